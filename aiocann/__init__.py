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

Layers: ``aiocann.acl`` is the pyACL-compatible synchronous module; ``aiocann.compiler`` builds
simulator kernels; this package is the async core (anyio: asyncio, uvloop, trio).

PYTEST_DONT_REWRITE: pytest's assertion rewriting is for test modules and for our plugin
(aiocann.testing, rewritten on its own); this file has no asserts, and ``python -m aiocann.acl
-m pytest`` imports it before pytest loads the plugin, which would otherwise warn.
"""

import sys as _sys
import types as _types
import typing as _typing

try:
    from ._lib import BackendError, BackendInfo, backend
except ImportError as _exc:
    # `python -m aiocann ...` imports this package before its __main__ can catch anything: a
    # runtime that cannot be loaded (AIOCANN_BACKEND=cann without CANN) is reported there as a
    # command-line error, one line and exit status 1, not a traceback. `import aiocann` from a
    # program still raises BackendError.
    if type(_exc).__name__ == "BackendError" and getattr(_sys, "orig_argv", [])[1:3] == ["-m", __name__]:
        _sys.stderr.write(f"python -m aiocann: error: {_exc}\n")
        raise SystemExit(1) from None
    raise
from .errors import *  # noqa: F403
from .errors import __all__ as _errors_all

if _typing.TYPE_CHECKING:
    from ._version import __version__ as __version__
    from .completion import Completion
    from .device import Device, current_device, device_count
    from .event import Event
    from .graph import CapturedWork, Graph, TaskGroup
    from .kernel import ArgsBuilder, Binary, Kernel, KernelArgs
    from .launch import LaunchConfig, launch
    from .memory import DeviceArray
    from .memory_pool import MemoryPool, PoolStats
    from .stream import Stream, current_stream
    from .tracing import Trace, trace

# The async core (and anyio with it) is imported on first use, not here: `import aiocann.acl`
# runs this file too, and a pyACL program must not pay for an event-loop library it never uses.
_LAZY = {
    "Completion": "completion",
    "Device": "device",
    "current_device": "device",
    "device_count": "device",
    "Event": "event",
    "CapturedWork": "graph",
    "Graph": "graph",
    "TaskGroup": "graph",
    "ArgsBuilder": "kernel",
    "Binary": "kernel",
    "Kernel": "kernel",
    "KernelArgs": "kernel",
    "LaunchConfig": "launch",
    "launch": "launch",
    "DeviceArray": "memory",
    "MemoryPool": "memory_pool",
    "PoolStats": "memory_pool",
    "Trace": "tracing",
    "trace": "tracing",
    "Stream": "stream",
    "current_stream": "stream",
}
_SUBMODULES = {
    "completion",
    "device",
    "event",
    "graph",
    "kernel",
    "launch",
    "memory",
    "memory_pool",
    "tracing",
    "stream",
    "compiler",
    "sim",
}


class _Package(_types.ModuleType):
    """The package's module type. One name is both a submodule and a function: ``launch``.
    Whenever the import system binds the submodule aiocann.launch to the package (on its first
    import, by whoever imports it), the package attribute becomes the function instead -- what
    importing the core eagerly used to leave there."""

    def __setattr__(self, name: str, value: _typing.Any) -> None:
        if name == "launch" and isinstance(value, _types.ModuleType):
            value = value.launch
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> _typing.Any:
    import importlib

    module = _LAZY.get(name)  # before the submodules: `launch` names the function
    if name == "__version__":  # read from the package metadata on first use (importlib.metadata is not free)
        module = "_version"
    if module is None:
        if name in _SUBMODULES:
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "ArgsBuilder",
    "BackendError",
    "BackendInfo",
    "Binary",
    "CapturedWork",
    "Completion",
    "Device",
    "DeviceArray",
    "Event",
    "Graph",
    "Kernel",
    "KernelArgs",
    "LaunchConfig",
    "MemoryPool",
    "PoolStats",
    "Stream",
    "TaskGroup",
    "Trace",
    "backend",
    "current_device",
    "current_stream",
    "device_count",
    "launch",
    "trace",
    *_errors_all,
]
