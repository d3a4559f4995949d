"""``Device``: the async context that owns everything aiocann does on one NPU.

``async with Device(i) as dev`` initialises ACL (reference-counted, process-wide), opens the
device, starts the block's dispatcher task, and makes ``dev`` the task's current device. Every
stream, array, event and binary created through ``dev`` belongs to it: leaving the block
closes the streams (awaiting their work), frees what is left, stops the dispatcher, and
releases the device -- resetting it and finalizing ACL when the last user in the process is
gone. Exceptions in the body still release everything.

Several ``Device(i)`` blocks may be open at once (in one task or many, for one index or
several): each has its own dispatcher and completion queue, and they share the ACL device.
"""

from __future__ import annotations

import asyncio
import math
import operator
import warnings
import weakref
from contextlib import AsyncExitStack
from contextvars import ContextVar
from os import PathLike
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel
import anyio.to_thread
import numpy as np

from . import _runtime, errors, profile
from ._dispatch import Dispatcher
from ._lib import bind_context, check, ffi, lib
from .memory import DeviceArray, StagingPool, allocate_pinned, shape_and_dtype

if TYPE_CHECKING:
    from .event import Event
    from .kernel import Binary
    from .stream import Stream

__all__ = ["Device", "current_device", "device_count"]

_REAL = (int, float, np.integer, np.floating)  # real numbers; bool is refused separately

_current_device: ContextVar[Device | None] = ContextVar("aiocann_current_device", default=None)


def current_device() -> Device:
    """The device of the innermost ``async with Device(...)`` in the calling task."""
    dev = _current_device.get()
    if dev is None:
        raise RuntimeError("no current device: use `async with aiocann.Device(i) as dev:`")
    return dev


async def device_count() -> int:
    """Number of NPUs (simulated devices on the simulator)."""
    return await anyio.to_thread.run_sync(_runtime.device_count)


class Device:
    """One NPU, as an async context manager. See the module docstring."""

    def __init__(
        self,
        index: int = 0,
        *,
        max_in_flight: int = 1024,
        completion_timeout: float = 300.0,
    ) -> None:
        self.index = operator.index(index)
        if self.index < 0:
            raise ValueError(f"device index must be >= 0, got {index}")
        if operator.index(max_in_flight) < 1:
            raise ValueError(f"max_in_flight must be >= 1, got {max_in_flight}")
        if isinstance(completion_timeout, bool) or not isinstance(completion_timeout, _REAL):
            raise TypeError(f"completion_timeout must be a number of seconds, not {type(completion_timeout).__name__}")
        if not completion_timeout > 0:
            raise ValueError(f"completion_timeout must be > 0 seconds (math.inf disables it), got {completion_timeout}")
        self.max_in_flight = int(max_in_flight)
        self.completion_timeout = float(completion_timeout)
        self._state = "new"  # new -> open -> closing -> closed
        self._acl: _runtime.AclDevice | None = None
        self._ctx: Any = None
        self._dispatcher: Dispatcher | None = None
        self._stack: AsyncExitStack | None = None
        self._cv_token: Any = None
        # Weak: a stream with work in flight is kept alive by its Completions (the dispatcher
        # holds them); one dropped while idle is destroyed by its finalizer, with a warning.
        self._streams: weakref.WeakSet[Stream] = weakref.WeakSet()
        self._arrays: weakref.WeakSet[DeviceArray] = weakref.WeakSet()
        self._events: weakref.WeakSet[Event] = weakref.WeakSet()
        self._binaries: weakref.WeakSet[Binary] = weakref.WeakSet()
        self._staging: StagingPool | None = None
        self._loop: Any = None  # the asyncio loop the device was opened in; None under trio

    # -- lifecycle ------------------------------------------------------------------------

    async def __aenter__(self) -> Device:
        if self._state != "new":
            raise RuntimeError("a Device can be entered only once; create a new Device(i)")
        self._state = "opening"
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None  # trio (anyio's only other backend)
        with anyio.CancelScope(shield=True):  # a cancellation must not lose the acquired device
            acl = await anyio.to_thread.run_sync(_runtime.acquire_device, self.index)
        self._acl = acl
        stack = AsyncExitStack()
        try:
            self._ctx = acl.ctx
            bind_context(self._ctx)
            self._dispatcher = dispatcher = Dispatcher(self._ctx, self.completion_timeout)
            stack.callback(dispatcher.close)
            tg = await stack.enter_async_context(anyio.create_task_group())
            serve_scope = await tg.start(self._serve, dispatcher)
            stack.callback(serve_scope.cancel)
            self._staging = StagingPool()
            stack.callback(self._staging.close)
            await anyio.lowlevel.checkpoint_if_cancelled()
        except BaseException:
            try:
                await stack.aclose()  # not inside another cancel scope: it holds the task group's
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(_runtime.release_device, acl)
                self._state = "closed"
            raise
        self._stack = stack
        self._state = "open"
        self._cv_token = _current_device.set(self)
        profile._device_opened()
        return self

    @staticmethod
    async def _serve(dispatcher: Dispatcher, *, task_status: Any) -> None:
        # Shielded: if the task that owns the Device block is cancelled, the block's exit still
        # awaits its streams' pending work, which needs the dispatcher to keep resolving. Only
        # the block's own exit stops it (by cancelling this scope).
        with anyio.CancelScope(shield=True) as scope:
            task_status.started(scope)
            async with anyio.create_task_group() as tg:
                tg.start_soon(dispatcher.run)
                tg.start_soon(dispatcher.watchdog)

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> None:
        _current_device.reset(self._cv_token)
        await self.aclose(raise_errors=et is None)

    async def aclose(self, *, raise_errors: bool = True) -> None:
        """Close the device (what leaving ``async with`` does)."""
        if self._state != "open":
            return
        self._state = "closing"
        first: BaseException | None = None
        try:
            with anyio.CancelScope(shield=True):
                for stream in list(self._streams):
                    try:
                        await stream.aclose(raise_errors=True)
                    except errors.AclError as exc:
                        first = first or exc
                for event in list(self._events):
                    event.close()
                for array in list(self._arrays):
                    array._release()
                for binary in list(self._binaries):
                    binary.unload()
        finally:
            assert self._stack is not None and self._acl is not None
            try:
                # Exiting the task group must not happen inside a newer cancel scope. It may
                # re-raise a pending cancellation of this task -- after joining our tasks.
                await self._stack.aclose()
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(_runtime.release_device, self._acl)
                self._state = "closed"
                profile._device_closed()
        if raise_errors and first is not None:
            raise first

    def __del__(self) -> None:
        if getattr(self, "_state", None) == "open":
            warnings.warn(
                f"Device({self.index}) was never closed: use `async with Device(...)`",
                ResourceWarning,
                stacklevel=2,
            )

    @property
    def closed(self) -> bool:
        return self._state == "closed"

    def _bind(self) -> None:
        """Check the device is usable and make its context current in this thread."""
        if self._state != "open":
            raise errors.ClosedError(f"Device({self.index}) is {'not open yet' if self._state == 'new' else 'closed'}")
        bind_context(self._ctx)

    @property
    def dispatcher(self) -> Dispatcher:
        assert self._dispatcher is not None
        return self._dispatcher

    @property
    def logic_id(self) -> int | None:
        """The machine's id of this NPU (``aclrtGetLogicDevIdByUserDevId``). ``index`` counts the
        devices this process sees: with ``ASCEND_RT_VISIBLE_DEVICES=2,3``, ``Device(0)`` is the
        machine's device 2. None if the runtime predates the call."""
        if self._acl is None:
            raise errors.ClosedError(f"Device({self.index}) is not open yet")
        return self._acl.logic_id

    @property
    def reporter_thread_id(self) -> int:
        assert self._acl is not None
        return self._acl.reporter_tid

    # -- children -------------------------------------------------------------------------

    def stream(self, *, max_in_flight: int | None = None, priority: int = 0) -> Stream:
        """A new stream; use it as ``async with dev.stream() as s:`` (it is then the task's
        current stream inside the block)."""
        from .stream import Stream

        return Stream(self, self.max_in_flight if max_in_flight is None else max_in_flight, operator.index(priority))

    async def create_stream(self, *, max_in_flight: int | None = None, priority: int = 0) -> Stream:
        """An opened stream that stays open until ``await s.aclose()`` or the device closes."""
        s = self.stream(max_in_flight=max_in_flight, priority=priority)
        s._open()
        return s

    async def load_binary(self, path: str | PathLike[str]) -> Binary:
        """Load a kernel binary from a file (the file work runs off the event loop)."""
        from .kernel import Binary

        self._bind()
        return await Binary._load(self, path=path)

    async def load_binary_data(self, data: bytes | bytearray | memoryview) -> Binary:
        """Load a kernel binary from bytes in memory (aclrtBinaryLoadFromData)."""
        from .kernel import Binary

        self._bind()
        # memoryview, not bytes(): bytes(n) of an int n would allocate n zero bytes
        return await Binary._load(self, data=bytes(memoryview(data)))

    def empty(self, shape: int | tuple[int, ...], dtype: Any = np.float32) -> DeviceArray:
        """Uninitialised device memory for an array of ``shape`` and ``dtype``."""
        self._bind()
        shape_t, dt = shape_and_dtype(shape, dtype)
        nbytes = math.prod(shape_t) * dt.itemsize
        ptr = ffi.new("void**")
        check(lib.aclrtMalloc(ptr, max(nbytes, 1), lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
        arr = DeviceArray(self, int(ffi.cast("uintptr_t", ptr[0])), shape_t, dt)
        self._arrays.add(arr)
        return arr

    def pinned_empty(self, shape: int | tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
        """A numpy array in page-locked host memory (aclrtMallocHost): copies to and from it are
        truly asynchronous, with no staging copy."""
        self._bind()
        shape_t, dt = shape_and_dtype(shape, dtype)
        return allocate_pinned(math.prod(shape_t) * dt.itemsize).view(dt).reshape(shape_t)

    def mem_info(self) -> tuple[int, int]:
        """(free, total) bytes of device memory."""
        self._bind()
        free, total = ffi.new("size_t*"), ffi.new("size_t*")
        check(lib.aclrtGetMemInfo(lib.ACL_HBM_MEM, free, total), "aclrtGetMemInfo")
        return int(free[0]), int(total[0])

    @property
    def staging(self) -> StagingPool:
        assert self._staging is not None
        return self._staging

    def __repr__(self) -> str:
        return f"<Device {self.index} {self._state}>"
