"""``launch``: enqueue a kernel on a stream and get a :class:`Completion`.

``done = await aiocann.launch(kernel, args, blocks=8)`` waits only for a free in-flight slot on
the stream (back-pressure), then makes one C call that enqueues the launch
(``aclrtLaunchKernelWithConfig``) and its completion callback together, and returns. ``await
done`` waits for the device; it raises the :class:`AclError` of a failed launch. The Completion
holds the args and every array they point to until the device is done with them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from threading import get_ident as _get_ident
from typing import Any, Literal

from . import errors
from ._context import _current_stream, stream_or_current
from ._core import core_of
from ._lib import check, ffi, lib
from ._submission import OPEN as _OPEN
from ._submission import Submissions
from .completion import Completion
from .device import _REAL
from .graph import _lane_of
from .kernel import ArgsBuilder, Kernel, KernelArgs
from .stream import Stream

__all__ = ["LaunchConfig", "launch"]


@dataclass(frozen=True)
class LaunchConfig:
    """Launch attributes (``aclrtLaunchKernelCfg``).

    ``schedule``: "normal" starts as soon as any AI core is free; "batch" only when all the
    launch's blocks can start together. ``timeout``: seconds after which a still-running
    kernel is stopped and fails with ``KernelTimeoutError`` (507014), as the runtime's
    ``ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US`` means it: None (no attribute) leaves the runtime's
    default operator timeout (about 1091 s on A2/A3, and in the simulator), 0 means never.
    """

    schedule: Literal["normal", "batch"] = "normal"
    timeout: float | None = None
    _cdata: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.schedule not in ("normal", "batch"):
            raise ValueError(f"schedule must be 'normal' or 'batch', not {self.schedule!r}")
        if self.timeout is not None:
            if isinstance(self.timeout, bool) or not isinstance(self.timeout, _REAL):
                raise TypeError(f"timeout must be a number of seconds, not {type(self.timeout).__name__}")
            if not (math.isfinite(self.timeout) and self.timeout >= 0):
                raise ValueError(f"timeout must be >= 0 seconds (0: never), not {self.timeout!r}")
        attrs = ffi.new("aclrtLaunchKernelAttr[2]")
        n = 0
        if self.schedule == "batch":
            attrs[n].id = lib.ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE
            attrs[n].value.schemMode = 1
            n += 1
        if self.timeout is not None:
            us = max(1, round(self.timeout * 1e6)) if self.timeout else 0  # 0: never
            attrs[n].id = lib.ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US
            attrs[n].value.timeoutUs.timeoutLow = us & 0xFFFFFFFF
            attrs[n].value.timeoutUs.timeoutHigh = us >> 32
            n += 1
        cfg = ffi.new("aclrtLaunchKernelCfg*")
        cfg.attrs = attrs
        cfg.numAttrs = n
        object.__setattr__(self, "_cdata", (cfg, attrs) if n else None)


async def launch(
    kernel: Kernel,
    args: KernelArgs | ArgsBuilder,
    *,
    blocks: int,
    stream: Stream | None = None,
    config: LaunchConfig | None = None,
) -> Completion:
    """Enqueue ``kernel`` with ``args`` on a stream, over ``blocks`` blocks.

    Waits only for a free in-flight slot on the stream (back-pressure; cancelling that wait
    enqueues nothing), then enqueues the launch and its completion callback in one C call.

    :param kernel: the :class:`Kernel` to run (``binary.function(name)``).
    :param args: its :class:`KernelArgs`, or an :class:`ArgsBuilder`, which is built first.
    :param blocks: how many blocks run the kernel, 1 to 2**32 - 1.
    :param stream: the stream (default: the task's current stream).
    :param config: launch attributes (:class:`LaunchConfig`), or None.
    :returns: the :class:`Completion` of the launch, once it is enqueued: ``await`` it for the device
        to finish (it raises the launch's :class:`AclError`, e.g. ``KernelFaultError``). It
        holds the args and every array they point to until then.
    :raises TypeError: a wrong type for any argument.
    :raises ValueError: ``blocks`` out of range, args built for another kernel, or a kernel of
        another NPU than the stream's.
    :raises ClosedError: the stream, the kernel's binary or the args are closed.
    :raises RuntimeError: no ``stream`` and no current stream.
    :raises AclError: the runtime refused the launch.
    """
    # The hot path -- prebuilt args for this kernel, an open stream with room, no config -- is
    # everything a raw launch loop does not do, kept to attribute reads, one C call (which also
    # binds the device's context) and the Completion. Anything else takes _prepare, which
    # validates, builds and waits for room.
    s = _current_stream.get() if stream is None else stream
    if (
        type(args) is KernelArgs
        and args.kernel is kernel
        and type(blocks) is int
        and 0 < blocks < 4294967296
        and config is None
        and type(s) is Stream
        and (sub := s._sub).mode is _OPEN
        and sub.thread == _get_ident()  # the device's own thread (the loop: _prepare)
        and kernel._npu is sub.npu
        and kernel.binary._handle is not None
        and (handle := args._handle) is not None
        and sub.in_flight < sub.max_in_flight
        and not sub.waiters
    ):
        cfg = _NULL
    else:
        sub, args, cfg = await _prepare(kernel, args, blocks, stream, config)
        s = sub.stream
        handle = args._handle
        graph = sub.capture or sub.updating
        if graph is not None:
            # Recorded into a graph, or updating one of its task groups: the runtime takes no
            # completion callback on the stream meanwhile, and the graph keeps what it uses.
            check(lib.aclrtLaunchKernelWithConfig(kernel._handle, blocks, sub.handle, cfg, handle, _NULL),
                  "aclrtLaunchKernelWithConfig")  # fmt: skip
            return graph.record(kernel.name, args, args.arrays)
    token = sub.new_token()
    rc = _launch(sub.qs, kernel._handle, blocks, cfg, handle, token, sub.launched)
    if rc:  # the lane's one submission tail (Submissions.submitted); its success inline here
        return sub.submitted(s, rc, token, "aclrtLaunchKernelWithConfig", kernel.name, args, args.arrays)
    arrays = args._arrays_cache
    return sub.track(s, token, kernel.name, args, args.arrays if arrays is None else arrays)


_NULL = ffi.NULL
_launch = lib.aiocann_launch


async def _prepare(
    kernel: Any, args: Any, blocks: Any, stream: Any, config: Any
) -> tuple[Submissions, KernelArgs, Any]:
    """The checks and waits of launch() off its hot path: raises for bad arguments, builds an
    ArgsBuilder, waits for a free in-flight slot. Returns the stream's submission owner, the
    args and the cfg."""
    if type(args) is not KernelArgs:
        if isinstance(args, ArgsBuilder):
            args = await args.build(stream=stream)
        else:
            raise TypeError(f"args must be KernelArgs (await kernel.args()...), not {type(args).__name__}")
    if args.kernel is not kernel:
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel must be a Kernel (binary.function(name)), not {type(kernel).__name__}")
        raise ValueError(f"{args!r} were built for kernel {args.kernel.name}, not {kernel.name}")
    if type(blocks) is not int or not 0 < blocks < 4294967296:
        if isinstance(blocks, bool) or not isinstance(blocks, int):
            raise TypeError(f"blocks must be an int, not {type(blocks).__name__}")
        raise ValueError(f"blocks must be in [1, 2**32), got {blocks}")
    s = stream_or_current(stream)
    binary = kernel.binary
    if not core_of(binary.device).same_npu(core_of(s.device)):
        raise ValueError(
            f"kernel {kernel.name} is loaded on device {binary.device.index}, the stream is on device {s.device.index}"
        )
    _live(kernel, args)
    if config is None:
        cfg = _NULL
    elif isinstance(config, LaunchConfig):
        cdata = config._cdata
        cfg = _NULL if cdata is None else cdata[0]
    else:
        raise TypeError(f"config must be a LaunchConfig, not {type(config).__name__}")
    # The wait may be long: the args, their arrays or the binary may be closed meanwhile, and
    # a closed array's block be another array's by now. Checked again once admitted.
    sub = await _lane_of(s).enter(args.arrays)
    try:
        _live(kernel, args)
    except errors.ClosedError:
        sub.decline()
        raise
    return sub, args, cfg


def _live(kernel: Kernel, args: KernelArgs) -> None:
    """Raise ClosedError, saying why, if the kernel's binary was unloaded or the args closed
    (their public handles say it)."""
    _ = kernel.handle, args.handle
