"""``Device``: the async context that owns everything aiocann does on one NPU.

``async with Device(i) as dev`` initialises ACL (reference-counted, process-wide), opens the
device, starts the block's dispatcher (which drains the completion queue on the event loop),
and makes ``dev`` the task's current device. Every stream, array, event and binary created
through ``dev`` belongs to it: leaving the block closes the streams (awaiting their work),
frees what is left, stops the dispatcher, and releases the device -- resetting it and
finalizing ACL when the last user in the process is gone. Exceptions in the body still release
everything. Leaving never waits past the completion timeout: work the device is still running
then (a hung kernel), or when the wait is cancelled, is abandoned (see ``Stream.aclose``),
since destroying its stream or resetting the device would wait for it.

Several ``Device(i)`` blocks may be open at once (in one task or many, for one index or
several, closing in any order): each has its own dispatcher and completion queue, and they
share the ACL device. A device and everything of it belong to the thread and event loop that
opened it; used from another, they raise ``WrongThreadError``.
"""

from __future__ import annotations

import math
import operator
import warnings
import weakref
from os import PathLike
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
import numpy as np

from . import _context, _ints, _runtime, errors
from ._context import _current_device, current_device
from ._core import DeviceCore
from ._dispatch import Dispatcher
from ._factory import create
from ._lib import check, ffi, lib
from .kernel import Binary, _load_binary
from .memory import DeviceArray, StagingPool, allocate_pinned, shape_and_dtype
from .memory_pool import MemoryPool, _BlockPool
from .stream import Stream
from .tracing import _device_closed, _device_opened

__all__ = ["Device", "current_device", "device_count"]

_REAL = (int, float, np.integer, np.floating)  # real numbers; bool is refused separately
_count = _ints.index  # an integer argument, never a bool: Device(True) is a mistake, not device 1


async def device_count() -> int:
    """Number of NPUs this process sees (``aclrtGetDeviceCount``; simulated devices on the
    simulator). Initialises ACL for the question if no device is open.

    :raises AclError: the runtime could not count its devices (e.g. ``ACL_ERROR_RT_NO_DEVICE``).
    """
    return await anyio.to_thread.run_sync(_runtime.device_count)


class Device:
    """One NPU, as an async context manager: ``async with Device(i) as dev:`` (see the module
    docstring). Constructing it opens nothing; entering does.

    :param index: the device index, 0 to ``await device_count()`` - 1 (as
        ``ASCEND_RT_VISIBLE_DEVICES`` numbers them).
    :param max_in_flight: the default admission limit of the device's streams.
    :param completion_timeout: seconds after which the watchdog fails a Completion whose
        callback has not arrived (``math.inf`` disables it).
    :param memory_pool: take device memory from a caching pool (True) or allocate every array
        directly (False).
    :param memory_limit: cap on the bytes the pool holds, or None.
    :raises ValueError: a negative index or limit, ``max_in_flight`` below 1, a timeout not > 0.
    :raises TypeError: a timeout that is not a number, a ``memory_pool`` that is not a bool, an
        index, ``max_in_flight`` or ``memory_limit`` that is a bool (``np.bool_`` too).
    :raises InvalidDeviceError: (on entering) no device of that index.
    """

    def __init__(
        self,
        index: int = 0,
        *,
        max_in_flight: int = 1024,
        completion_timeout: float = 300.0,
        memory_pool: bool = True,
        memory_limit: int | None = None,
    ) -> None:
        self.index = _ints.in_range(index, "the device index", 1 << 31)  # aclrtSetDevice's int32_t
        _ints.in_range(max_in_flight, "max_in_flight", _ints.IN_FLIGHT_STOP, 1)
        if isinstance(completion_timeout, bool) or not isinstance(completion_timeout, _REAL):
            raise TypeError(f"completion_timeout must be a number of seconds, not {type(completion_timeout).__name__}")
        if not completion_timeout > 0:
            raise ValueError(f"completion_timeout must be > 0 seconds (math.inf disables it), got {completion_timeout}")
        self.max_in_flight = int(max_in_flight)
        self.completion_timeout = float(completion_timeout)
        if not isinstance(memory_pool, bool):
            raise TypeError(f"memory_pool must be True or False, not {type(memory_pool).__name__}")
        if memory_limit is not None and _count(memory_limit, "memory_limit") < 0:
            raise ValueError(f"memory_limit must be >= 0 bytes or None, got {memory_limit}")
        self._pool_options = (memory_pool, None if memory_limit is None else operator.index(memory_limit))
        # The open device's state -- owner, context, registries, pools -- and what its children
        # ask of it, in one owner (_core.py); the Device builds what it serves and closes it.
        self._core = DeviceCore(self, self.index)
        self._dispatcher: Dispatcher | None = None
        self._memory_pool: MemoryPool | None = None  # the public face of the core's pool
        self._cv_token: Any = None
        self._closed_event: anyio.Event | None = None  # for a close that waits for another's

    # -- lifecycle ------------------------------------------------------------------------

    async def __aenter__(self) -> Device:
        core = self._core
        if core.state != "new":
            raise RuntimeError("a Device can be entered only once; create a new Device(i)")
        core.claim()
        with anyio.CancelScope(shield=True):  # a cancellation must not lose the acquired device
            acl = await anyio.to_thread.run_sync(_runtime.acquire_device, self.index)
        try:
            core.open(acl)  # the ACL device is the core's now: released by _teardown whatever follows
            # The dispatcher runs in a task of its own (see _dispatch.py), not in a task group
            # entered here: that would nest in the caller's cancel scopes, and Device blocks
            # could then only close in reverse opening order.
            self._dispatcher = Dispatcher(core.ctx, self.completion_timeout)
            self._dispatcher.start(core.flavour)
            enabled, limit = self._pool_options
            blocks = _BlockPool(core.ctx, limit=limit, enabled=enabled)
            core.serve(self._dispatcher, StagingPool(), blocks)
            self._memory_pool = create(MemoryPool, blocks)
            await anyio.lowlevel.checkpoint_if_cancelled()
        except BaseException:
            await self._teardown()
            raise
        core.state = "open"
        self._cv_token = _context.enter(_current_device, self)
        _device_opened()
        return self

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> None:
        _context.leave(_current_device, self, self._cv_token)
        await self.aclose(raise_errors=et is None)

    async def aclose(self, *, raise_errors: bool = True) -> None:
        """Close the device (what leaving ``async with`` does): close its streams, awaiting
        their work, free what is left and release the device. Devices close in any order;
        closing a closed device does nothing, and a close while another task's close is in
        progress waits for that close to end (that one reports the errors).

        :param raise_errors: raise the first device error a stream reports on closing.
        :raises AclError: a stream's unreported failure (with ``raise_errors``).
        :raises WrongThreadError: called from another thread or event loop than the device's.
        """
        core = self._core
        if core.state == "closing":
            # Another task is closing it: wait for that close (shielded, as the closing is).
            core.check_owner()
            if self._closed_event is None:
                self._closed_event = anyio.Event()
            with anyio.CancelScope(shield=core.flavour.being_cancelled()):
                await self._closed_event.wait()
            return
        if core.state != "open":
            return
        core.check_owner()
        core.state = "closing"
        first: BaseException | None = None
        try:
            # Each stream waits for its work as Stream.aclose says: shielded if this task is
            # already being cancelled, and never past the completion timeout.
            for stream in list(core.streams):
                try:
                    await stream.aclose(raise_errors=True)
                except errors.AclError as exc:
                    first = first or exc
        finally:
            try:
                for stream in list(core.streams):  # left open by an interrupted wait
                    stream._finish_close("the device's close was interrupted")  # destroyed if idle, else abandoned
                for event in list(core.events):
                    event.close()
                for graph in list(core.graphs):
                    graph._release()
                for array in list(core.arrays):
                    array.close()  # busy ones (abandoned work, another Device's) later, or never
                for binary in list(core.binaries):
                    binary.unload()
            finally:
                await self._teardown()
                _device_closed()
        crash = self._dispatcher.error if self._dispatcher is not None else None
        if crash is not None:
            raise RuntimeError(f"the dispatcher of {self!r} failed while resolving completions") from crash
        if raise_errors and first is not None:
            raise first

    async def _teardown(self) -> None:
        """Stop the dispatcher, free the pools and release the ACL device (shielded, bounded)."""
        core = self._core
        assert core.acl is not None
        with anyio.CancelScope(shield=True):
            await core.loads_ended()  # a load's thread cannot be interrupted: it ends soon, then unloads
            try:
                if self._dispatcher is not None:
                    await self._dispatcher.stop()
                    self._dispatcher.close()
                staging, pool = core.pools()
                if staging is not None:
                    staging.close()
                if pool is not None:
                    pool.close()  # after every array was released
            finally:
                await anyio.to_thread.run_sync(_runtime.release_device, core.acl)
                core.state = "closed"
                if self._closed_event is not None:
                    self._closed_event.set()

    def __del__(self) -> None:
        core = getattr(self, "_core", None)
        if core is not None and core.state == "open":
            warnings.warn(
                f"Device({self.index}) was never closed: use `async with Device(...)`",
                ResourceWarning,
                stacklevel=2,
            )

    @property
    def closed(self) -> bool:
        return self._core.state == "closed"

    @property
    def _state(self) -> str:
        """new -> opening -> open -> closing -> closed (the core's; for repr and tests)."""
        return self._core.state

    @_state.setter
    def _state(self, state: str) -> None:  # tests pretend a state
        self._core.state = state

    @property
    def _streams(self) -> weakref.WeakSet[Stream]:
        """The open streams (the core's registry; tests read it)."""
        return self._core.streams

    @property
    def _live_dispatcher(self) -> Dispatcher:
        """The dispatcher of the open device (its resolved/pending counts are what tests read)."""
        assert self._dispatcher is not None
        return self._dispatcher

    @property
    def logic_id(self) -> int | None:
        """The machine's id of this NPU (``aclrtGetLogicDevIdByUserDevId``). ``index`` counts the
        devices this process sees: with ``ASCEND_RT_VISIBLE_DEVICES=2,3``, ``Device(0)`` is the
        machine's device 2. None if the runtime predates the call."""
        acl = self._core.acl
        if acl is None:
            raise errors.ClosedError(f"Device({self.index}) is not open yet")
        return acl.logic_id

    @property
    def _reporter_tid(self) -> int:
        """The id of the device's report thread (tests subscribe with it)."""
        return self._core.reporter_tid

    # -- children -------------------------------------------------------------------------

    def stream(self, *, max_in_flight: int | None = None, priority: int = 0) -> Stream:
        """A new stream on this device, open at once (``aclrtCreateStreamWithConfig``).

        ``async with dev.stream() as s:`` makes it the task's current stream inside the block
        and closes it at the end (awaiting its work, raising its first device error); code that
        keeps a stream open writes ``s = dev.stream()`` and closes it with ``await s.aclose()``
        -- or leaves that to the device's closing.

        :param max_in_flight: how many of the stream's Completions may be unresolved at once before
            submissions wait (default: the device's ``max_in_flight``).
        :param priority: the ACL stream priority (``aclrtCreateStreamWithConfig``'s ``priority``).
        :returns: the open :class:`Stream`.
        :raises ClosedError: the device is not open.
        :raises WrongThreadError: called from another thread than the device's.
        :raises ValueError: ``max_in_flight`` is below 1.
        :raises AclError: the runtime refused the stream (e.g. ``ResourceExhaustedError``).
        """
        limit = self.max_in_flight if max_in_flight is None else max_in_flight
        return create(Stream, self, limit, _ints.in_range(priority, "priority", 1 << 32))  # a uint32_t

    async def load_binary(self, path: str | PathLike[str]) -> Binary:
        """Load a kernel binary from a file (``aclrtBinaryLoadFromFile``; the file work runs
        off the event loop).

        :param path: the binary (for the simulator, a shared object built by
            :func:`aiocann.compiler.build_kernel`).
        :returns: the loaded :class:`Binary`; ``binary.function(name)`` finds its kernels.
        :raises TypeError: ``path`` is not a str or path.
        :raises ValueError: ``path`` contains a NUL character.
        :raises FileOpenError: no such file.
        :raises InvalidFileError: not a kernel binary.
        :raises ClosedError: the device is not open.
        """
        self._core.bind()
        return await _load_binary(self, path=path)

    async def load_binary_data(self, data: bytes | bytearray | memoryview) -> Binary:
        """Load a kernel binary from bytes in memory (``aclrtBinaryLoadFromData``).

        :returns: the loaded :class:`Binary`; a binary built by :mod:`aiocann.compiler` (or
            aclrtc on the simulator) carries its kernels' signatures, as from a file.
        :raises InvalidFileError: the bytes are not a kernel binary.
        :raises ClosedError: the device is not open.
        """
        self._core.bind()
        # memoryview, not bytes(): bytes(n) of an int n would allocate n zero bytes
        return await _load_binary(self, data=bytes(memoryview(data)))

    def empty(
        self, shape: int | tuple[int, ...], dtype: Any = np.float32, *, stream: Stream | None = None
    ) -> DeviceArray:
        """Uninitialised device memory for an array of ``shape`` and ``dtype``, from the device's
        memory pool.

        :param shape: an int or a tuple of ints.
        :param dtype: any numpy dtype that holds no Python objects.
        :param stream: with a stream, the memory may be memory that work queued on that stream
            still uses (released by ``close()``): the array is then ready for later work on
            that stream only -- make other streams ``wait`` for it first. Without (or while
            the stream captures a graph), the memory is idle: no work, through any array it
            was, may still touch it.
        :returns: the :class:`DeviceArray`.
        :raises ValueError: a negative dimension, or a stream of another device.
        :raises TypeError: an object dtype, or a ``stream`` that is not a Stream.
        :raises DeviceOutOfMemoryError: the pool's limit or the device's memory is exhausted.
        :raises ClosedError: the device is not open.
        """
        self._core.bind()
        shape_t, dt = shape_and_dtype(shape, dtype)
        if stream is not None and (type(stream) is not Stream or stream.device is not self):
            if not isinstance(stream, Stream):
                raise TypeError(f"stream must be a Stream (dev.stream()) or None, not {type(stream).__name__}")
            raise ValueError(f"{stream!r} is not a stream of {self!r}")
        block = self._core.pool.allocate(math.prod(shape_t) * dt.itemsize, stream)
        return create(DeviceArray, self, block, shape_t, dt)  # registered with the core

    def pinned_empty(self, shape: int | tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
        """A numpy array of ``shape`` and ``dtype`` in page-locked host memory
        (``aclrtMallocHost``): copies to and from it are truly asynchronous, with no staging
        copy. The memory is freed with the array (and keeps ACL initialised until then).

        :raises ValueError: a negative dimension.
        :raises TypeError: an object dtype.
        :raises BadAllocError: the host memory could not be allocated.
        """
        self._core.bind()
        shape_t, dt = shape_and_dtype(shape, dtype)
        return allocate_pinned(math.prod(shape_t) * dt.itemsize).view(dt).reshape(shape_t)

    def mem_info(self) -> tuple[int, int]:
        """``(free, total)`` bytes of the device's memory (``aclrtGetMemInfo``), as the runtime
        counts them: memory the pool caches counts as used.

        :raises ClosedError: the device is not open.
        """
        self._core.bind()
        free, total = ffi.new("size_t*"), ffi.new("size_t*")
        check(lib.aclrtGetMemInfo(lib.ACL_HBM_MEM, free, total), "aclrtGetMemInfo")
        return int(free[0]), int(total[0])

    @property
    def memory_pool(self) -> MemoryPool:
        """The device's memory pool: ``stats()``, ``trim()``, ``limit``."""
        if self._memory_pool is None:
            raise errors.ClosedError(f"Device({self.index}) is not open")
        return self._memory_pool

    @property
    def _staging_pool(self) -> StagingPool:
        """The pinned blocks pageable copies are staged through (tests read it)."""
        return self._core.staging

    def __repr__(self) -> str:
        return f"<Device {self.index} {self._core.state}>"
