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

import contextlib
import math
import operator
import threading
import warnings
import weakref
from collections.abc import Iterator
from os import PathLike
from typing import TYPE_CHECKING, Any, NoReturn

import anyio
import anyio.lowlevel
import anyio.to_thread
import numpy as np

from . import _context, _flavour, _ints, _runtime, errors, tracing
from ._context import _current_device, current_device
from ._dispatch import Dispatcher
from ._flavour import Flavour
from ._lib import bind_context, check, ffi, lib
from .kernel import Binary
from .memory import DeviceArray, StagingPool, allocate_pinned, shape_and_dtype
from .memory_pool import MemoryPool
from .stream import Stream

if TYPE_CHECKING:
    from .event import Event
    from .graph import Graph

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
        self.index = _count(index, "the device index")
        if self.index < 0:
            raise ValueError(f"device index must be >= 0, got {index}")
        if _count(max_in_flight, "max_in_flight") < 1:
            raise ValueError(f"max_in_flight must be >= 1, got {max_in_flight}")
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
        self._pool: MemoryPool | None = None
        self._state = "new"  # new -> open -> closing -> closed
        self._acl: _runtime.AclDevice | None = None
        self._ctx: Any = None
        self._dispatcher: Dispatcher | None = None
        self._cv_token: Any = None
        # Weak: a stream with work in flight is kept alive by its Completions (the dispatcher
        # holds them); one dropped while idle is destroyed by its finalizer, with a warning.
        self._streams: weakref.WeakSet[Stream] = weakref.WeakSet()
        self._arrays: weakref.WeakSet[DeviceArray] = weakref.WeakSet()
        self._events: weakref.WeakSet[Event] = weakref.WeakSet()
        self._graphs: weakref.WeakSet[Graph] = weakref.WeakSet()
        self._binaries: weakref.WeakSet[Binary] = weakref.WeakSet()
        self._staging: StagingPool | None = None
        # Binary loads running in worker threads (load_binary): the close waits for them, so
        # that what they load is unloaded while the device's context lives.
        self._loads = 0
        self._loads_done: anyio.Event | None = None
        self._closed_event: anyio.Event | None = None  # for a close that waits for another's
        # Who owns it: the thread and the event loop that opened it, whose flavour (asyncio or
        # trio, _flavour.py) everything of the device asks. Everything of the device runs
        # there; see _check_owner.
        self._thread = 0
        self._flavour: Flavour = _flavour.NOT_OPEN
        # The asyncio loop (None under trio): the flavour's, copied (to each stream's lane) for
        # Completion.__await__, whose once-per-await branch cannot pay for a call (_flavour.py).
        self._loop: Any = None

    # -- lifecycle ------------------------------------------------------------------------

    async def __aenter__(self) -> Device:
        if self._state != "new":
            raise RuntimeError("a Device can be entered only once; create a new Device(i)")
        self._state = "opening"
        self._thread = threading.get_ident()
        self._flavour = flavour = _flavour.current()
        self._loop = flavour.loop
        with anyio.CancelScope(shield=True):  # a cancellation must not lose the acquired device
            acl = await anyio.to_thread.run_sync(_runtime.acquire_device, self.index)
        self._acl = acl
        try:
            self._ctx = acl.ctx
            bind_context(self._ctx)
            # The dispatcher runs in a task of its own (see _dispatch.py), not in a task group
            # entered here: that would nest in the caller's cancel scopes, and Device blocks
            # could then only close in reverse opening order.
            self._dispatcher = Dispatcher(self._ctx, self.completion_timeout)
            self._dispatcher.start(flavour)
            self._staging = StagingPool()
            enabled, limit = self._pool_options
            self._pool = MemoryPool._create(self._ctx, limit=limit, enabled=enabled)
            await anyio.lowlevel.checkpoint_if_cancelled()
        except BaseException:
            await self._teardown()
            raise
        self._state = "open"
        self._cv_token = _context.enter(_current_device, self)
        tracing._device_opened()
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
        if self._state == "closing":
            # Another task is closing it: wait for that close (shielded, as the closing is).
            self._check_owner()
            if self._closed_event is None:
                self._closed_event = anyio.Event()
            with anyio.CancelScope(shield=self._flavour.being_cancelled()):
                await self._closed_event.wait()
            return
        if self._state != "open":
            return
        self._check_owner()
        self._state = "closing"
        first: BaseException | None = None
        try:
            # Each stream waits for its work as Stream.aclose says: shielded if this task is
            # already being cancelled, and never past the completion timeout.
            for stream in list(self._streams):
                try:
                    await stream.aclose(raise_errors=True)
                except errors.AclError as exc:
                    first = first or exc
        finally:
            try:
                for stream in list(self._streams):  # left open by an interrupted wait
                    stream._finish_close("the device's close was interrupted")  # destroyed if idle, else abandoned
                for event in list(self._events):
                    event.close()
                for graph in list(self._graphs):
                    graph._release()
                for array in list(self._arrays):
                    array._release()  # busy ones (abandoned work, another Device's) later, or never
                for binary in list(self._binaries):
                    binary.unload()
            finally:
                await self._teardown()
                tracing._device_closed()
        crash = self._dispatcher.error if self._dispatcher is not None else None
        if crash is not None:
            raise RuntimeError(f"the dispatcher of {self!r} failed while resolving completions") from crash
        if raise_errors and first is not None:
            raise first

    def _abandon(self, held: Any) -> None:
        """A stream's work is abandoned (Stream.aclose): keep what it uses alive for good, and
        never reset this NPU -- that would wait for the work."""
        assert self._acl is not None
        _runtime.abandon(self._acl, held)

    @contextlib.contextmanager
    def _loading(self) -> Iterator[None]:
        """Around a binary load's worker thread (Binary._load)."""
        self._loads += 1
        try:
            yield
        finally:
            self._loads -= 1
            if not self._loads and self._loads_done is not None:
                self._loads_done.set()

    async def _teardown(self) -> None:
        """Stop the dispatcher, free the pools and release the ACL device (shielded, bounded)."""
        assert self._acl is not None
        with anyio.CancelScope(shield=True):
            while self._loads:  # a load's thread cannot be interrupted: it ends soon, then unloads
                self._loads_done = anyio.Event()
                await self._loads_done.wait()
            try:
                if self._dispatcher is not None:
                    await self._dispatcher.stop()
                    self._dispatcher.close()
                if self._staging is not None:
                    self._staging.close()
                if self._pool is not None:
                    self._pool._close()  # after every array was released
            finally:
                await anyio.to_thread.run_sync(_runtime.release_device, self._acl)
                self._state = "closed"
                if self._closed_event is not None:
                    self._closed_event.set()

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

    def _check_owner(self) -> None:
        """Raise WrongThreadError unless called from the thread and event loop that opened the
        device. (Only that loop's dispatcher resolves the device's work: a submission or a
        wait from elsewhere would never wake up -- and the state it touches is not locked.)"""
        if threading.get_ident() != self._thread or not self._on_own_loop():
            self._wrong_thread()

    def _on_own_loop(self) -> bool:
        return self._flavour.on_own_loop()

    def _wrong_thread(self) -> NoReturn:
        here = threading.current_thread().name
        owner = next((t.name for t in threading.enumerate() if t.ident == self._thread), f"id {self._thread}")
        where = "another event loop of the same thread" if threading.get_ident() == self._thread else f"thread {here!r}"
        raise errors.WrongThreadError(
            f"Device({self.index}) and its streams, events and Completions belong to the event loop of thread "
            f"{owner!r} that opened it; this call came from {where}. Hand the work to that loop "
            "(e.g. anyio.from_thread.run) instead"
        )

    def _soon(self, fn: Any) -> None:
        """Run ``fn`` on the device's thread: now if called there, else handed to its event
        loop -- for finalizers, which the garbage collector runs in whatever thread it is in,
        that touch state only the loop may (arrays' busy counts). Once the loop is gone,
        nothing runs there any more, and nothing will use that state either."""
        if threading.get_ident() == self._thread:
            fn()
            return
        try:
            self._flavour.soon_threadsafe(fn)
        except RuntimeError:  # the loop is closed, or the trio run ended
            pass

    def _served_stream(self, handle: int) -> Stream | None:
        """The open stream of this device whose ACL handle is ``handle``, if aiocann serves one
        (Stream.from_handle answers with it rather than subscribing the stream a second time)."""
        for stream in self._streams:
            try:
                if stream.handle == handle:
                    return stream
            except errors.ClosedError:
                continue
        return None

    def _bind(self) -> None:
        """Check the device is usable from here and make its context current in this thread."""
        if threading.get_ident() != self._thread and self._thread:
            self._wrong_thread()
        if self._state != "open":
            raise errors.ClosedError(f"Device({self.index}) is {'not open yet' if self._state == 'new' else 'closed'}")
        bind_context(self._ctx)

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
        if self._acl is None:
            raise errors.ClosedError(f"Device({self.index}) is not open yet")
        return self._acl.logic_id

    @property
    def _reporter_tid(self) -> int:
        """The id of the device's report thread, for aclrtSubscribeReport."""
        assert self._acl is not None
        return self._acl.reporter_tid

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
        return Stream._create(self, limit, _count(priority, "priority"))

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
        self._bind()
        return await Binary._load(self, path=path)

    async def load_binary_data(self, data: bytes | bytearray | memoryview) -> Binary:
        """Load a kernel binary from bytes in memory (``aclrtBinaryLoadFromData``).

        :returns: the loaded :class:`Binary`; a binary built by :mod:`aiocann.compiler` (or
            aclrtc on the simulator) carries its kernels' signatures, as from a file.
        :raises InvalidFileError: the bytes are not a kernel binary.
        :raises ClosedError: the device is not open.
        """
        self._bind()
        # memoryview, not bytes(): bytes(n) of an int n would allocate n zero bytes
        return await Binary._load(self, data=bytes(memoryview(data)))

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
        self._bind()
        shape_t, dt = shape_and_dtype(shape, dtype)
        if stream is not None and (type(stream) is not Stream or stream._device is not self):
            if not isinstance(stream, Stream):
                raise TypeError(f"stream must be a Stream (dev.stream()) or None, not {type(stream).__name__}")
            raise ValueError(f"{stream!r} is not a stream of {self!r}")
        block = self.memory_pool._allocate(math.prod(shape_t) * dt.itemsize, stream)
        arr = DeviceArray._create(self, block, shape_t, dt)
        self._arrays.add(arr)
        return arr

    def pinned_empty(self, shape: int | tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
        """A numpy array of ``shape`` and ``dtype`` in page-locked host memory
        (``aclrtMallocHost``): copies to and from it are truly asynchronous, with no staging
        copy. The memory is freed with the array (and keeps ACL initialised until then).

        :raises ValueError: a negative dimension.
        :raises TypeError: an object dtype.
        :raises BadAllocError: the host memory could not be allocated.
        """
        self._bind()
        shape_t, dt = shape_and_dtype(shape, dtype)
        return allocate_pinned(math.prod(shape_t) * dt.itemsize).view(dt).reshape(shape_t)

    def mem_info(self) -> tuple[int, int]:
        """``(free, total)`` bytes of the device's memory (``aclrtGetMemInfo``), as the runtime
        counts them: memory the pool caches counts as used.

        :raises ClosedError: the device is not open.
        """
        self._bind()
        free, total = ffi.new("size_t*"), ffi.new("size_t*")
        check(lib.aclrtGetMemInfo(lib.ACL_HBM_MEM, free, total), "aclrtGetMemInfo")
        return int(free[0]), int(total[0])

    @property
    def memory_pool(self) -> MemoryPool:
        """The device's memory pool: ``stats()``, ``trim()``, ``limit``."""
        if self._pool is None:
            raise errors.ClosedError(f"Device({self.index}) is not open")
        return self._pool

    @property
    def _staging_pool(self) -> StagingPool:
        """The pinned blocks pageable copies are staged through."""
        assert self._staging is not None
        return self._staging

    def __repr__(self) -> str:
        return f"<Device {self.index} {self._state}>"
