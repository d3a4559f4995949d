"""aiocann: an async Python runtime for Huawei Ascend NPUs (CANN ACL), with a CPU simulator.

    import aiocann as ac

    async with ac.Device(0) as dev:
        binary = await dev.load_binary(path)
        add = binary.function("add_custom")
        async with dev.stream() as s:
            x, y = await s.upload(np_x), await s.upload(np_y)
            z = dev.empty(np_x.shape, np_x.dtype)
            args = await add.args().ptr(x).ptr(y).ptr(z).placeholder(tiling)
            done = await ac.launch(add, args, blocks=8)
            await done
            out = await z.get()

Layers: ``aiocann.acl`` is the pyACL-compatible synchronous module; ``aiocann.sim`` builds
simulator kernels; this package is the async core (anyio: asyncio, uvloop, trio).
"""

from ._lib import BackendError, BackendInfo, backend
from .completion import Completion
from .device import Device, current_device, device_count
from .errors import *  # noqa: F403
from .errors import __all__ as _errors_all
from .event import Event
from .kernel import ArgsBuilder, Binary, Kernel, KernelArgs
from .launch import LaunchConfig, launch
from .memory import DeviceArray
from .memory_pool import MemoryPool, PoolStats
from .profile import Trace, trace
from .stream import Stream, current_stream

__all__ = [
    "ArgsBuilder",
    "BackendError",
    "BackendInfo",
    "Binary",
    "Completion",
    "Device",
    "DeviceArray",
    "Event",
    "Kernel",
    "KernelArgs",
    "LaunchConfig",
    "MemoryPool",
    "PoolStats",
    "Stream",
    "Trace",
    "backend",
    "current_device",
    "current_stream",
    "device_count",
    "launch",
    "trace",
    *_errors_all,
]
