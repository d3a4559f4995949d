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
from typing import TYPE_CHECKING, Any, Literal

from . import _hotpath, errors
from ._context import _current_stream, stream_or_current
from ._core import core_of
from ._lib import check, ffi, lib
from ._submission import Submissions
from .completion import Completion
from .device import _REAL
from .graph import _lane_of
from .kernel import ArgsBuilder, Kernel, KernelArgs
from .stream import Stream

__all__ = ["LaunchConfig", "launch"]

# A timeout is passed as a 64-bit count of microseconds (timeoutLow / timeoutHigh); any bound
# below 2**64 us well clear of float rounding will do -- this one is some 292,000 years.
_MAX_TIMEOUT_S = float(2**63 // 10**6)


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
            if not (math.isfinite(self.timeout) and 0 <= self.timeout < _MAX_TIMEOUT_S):
                raise ValueError(
                    f"timeout must be >= 0 seconds (0: never) and below {_MAX_TIMEOUT_S:.3g} (the runtime's "
                    f"64-bit count of microseconds), not {self.timeout!r}"
                )
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


if TYPE_CHECKING:

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

else:
    # launch() is C's (native/hotpath.c; its docstring is the one above): it returns an
    # awaitable whose await, on the fast path -- prebuilt args already launched once through
    # _launch (KernelArgs._fast), no config, an open stream of the kernel's device with room,
    # on the device's thread -- makes the one C call (launch + its completion callback) and the
    # Completion at once, with no coroutine frame. Anything else awaits _launch.
    launch = _hotpath.launch
    launch.__module__ = __name__


async def _launch(
    kernel: Any, args: Any, blocks: Any, stream: Stream | None, config: LaunchConfig | None
) -> Completion:
    """launch() through Python: validates, builds, waits for room, records into a graph, and
    caches on the args what the fast path needs for the next launch."""
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
    rc = _native_launch(sub.qs, kernel._handle, blocks, cfg, handle, token, sub.launched)
    if rc:
        return _launch_failed(sub, s, token, kernel, args, rc)
    arrays = args.arrays
    done = sub.track(s, token, kernel.name, args, arrays)
    if type(args) is KernelArgs:
        # Checked by _prepare: the args are this kernel's, live, and its binary is on the
        # stream's NPU. Stale once either changes (KernelArgs._fast, _hotpath.invalidate()).
        args._fast = _hotpath.ArgsInfo(kernel, _addr(kernel._handle), _addr(handle), arrays, kernel.name, kernel._npu)
    return done


def _launch_failed(sub: Submissions, s: Stream, token: int, kernel: Any, args: KernelArgs, rc: int) -> Completion:
    """The launch of ``token`` was refused (raises), or its completion callback was: the work
    runs unwatched (raises, the args kept), or it is over already on a stopped stream (a
    Completion failed with rc). The lane's one submission tail (Submissions.submitted)."""
    return sub.submitted(s, rc, token, "aclrtLaunchKernelWithConfig", kernel.name, args, args.arrays)


def _addr(handle: Any) -> int:
    return int(ffi.cast("uintptr_t", handle))


_NULL = ffi.NULL
_native_launch = lib.aiocann_launch


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
        blocks = int(blocks)  # an int subclass (an IntEnum member, say): its value
        if not 0 < blocks < 4294967296:
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


# What launch()'s C path works with (native/hotpath.c, provide()).
_hotpath.provide(
    stream=Stream,
    kernel_args=KernelArgs,
    slow_launch=_launch,
    launch_failed=_launch_failed,
    current_stream=_current_stream,
)
