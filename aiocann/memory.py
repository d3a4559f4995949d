"""Device memory (``DeviceArray``) and page-locked host memory.

A ``DeviceArray`` is device memory with a numpy shape and dtype, a block of its device's
``MemoryPool`` (memory_pool.py). Its block goes back to the pool when it is closed or
garbage-collected -- but never while device work may use it: every Completion that uses an
array holds a reference to it (and counts it busy), so dropping the last user reference to an
array with pending work defers the release until that work completes, and ``close()`` on a
busy array releases it when it becomes idle -- or at once for later work on the one stream all
its pending work is on (stream-ordered reuse, see memory_pool.py: the block is then idle only
once that work, and the work of every later array it is handed out as, is done). A graph holds
the arrays its captured work uses (``_hold``) until it is destroyed.

Pinned host memory (``aclrtMallocHost``) comes back as numpy arrays whose buffer is that memory;
copies to and from it are truly asynchronous. Pageable numpy arrays are staged through pinned
blocks from a per-device ``StagingPool``. Pinned blocks keep ACL initialised while they live,
because ``aclFinalize`` would release them under a live array.
"""

from __future__ import annotations

import bisect
import math
import threading
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _ints, _runtime, errors
from ._context import stream_or_current
from ._core import core_of
from ._factory import NoPublicConstructor
from ._hotpath import Busy
from ._lib import check, ffi, lib

if TYPE_CHECKING:
    from .completion import Completion
    from .device import Device
    from .kernel import KernelArgs
    from .memory_pool import Block
    from .stream import Stream

__all__ = ["DeviceArray", "StagingPool", "allocate_pinned", "is_pinned", "numpy_dtype", "shape_and_dtype"]


# dtype arguments already converted and checked, keyed by (type, argument) -- so that no two
# arguments equal across types (np.dtype("f4") == "float32") share an entry -- and bounded:
# np.dtype() is about 0.3 us, much of what ``dev.empty`` costs besides the pool. Only dtypes
# without fields: a structured dtype's field names can be reassigned, which must not reach
# the arrays of another call.
_DTYPES: dict[tuple[type, Any], np.dtype[Any]] = {}
_DTYPES_MAX = 256


def numpy_dtype(dtype: Any) -> np.dtype[Any]:
    """``np.dtype(dtype)``, except that numpy's SyntaxError for a malformed comma-separated
    format string (``np.dtype(",")``, which it parses as Python) is the TypeError every other
    argument that names no dtype gets."""
    try:
        dt: np.dtype[Any] = np.dtype(dtype)
    except SyntaxError as exc:
        raise TypeError(f"data type {dtype!r} not understood ({exc.msg})") from None
    return dt


def _dtype(dtype: Any) -> np.dtype[Any]:
    try:
        return _DTYPES[type(dtype), dtype]
    except (KeyError, TypeError):  # not seen yet, or unhashable (a list of fields, say)
        pass
    dt = numpy_dtype(dtype)
    if dt.hasobject:
        raise TypeError(f"dtype {dt} holds Python objects and cannot live in device memory")
    if dt.fields is None and len(_DTYPES) < _DTYPES_MAX:
        try:
            _DTYPES[type(dtype), dtype] = dt
        except TypeError:
            pass
    return dt


# The most bytes an array may span, as numpy's (ssize_t): more cannot be allocated anywhere,
# and the runtime's size_t would not even take the number.
_MAX_NBYTES = 2**63 - 1


def shape_and_dtype(shape: int | tuple[int, ...], dtype: Any) -> tuple[tuple[int, ...], np.dtype[Any]]:
    shape_t: tuple[int, ...]
    if type(shape) is int and shape >= 0:  # the common case, as _ints.index would take it
        shape_t, dt = (shape,), _dtype(dtype)
        n = shape
    else:
        dims = shape if isinstance(shape, tuple) else (shape,)
        shape_t = tuple(_ints.index(d, "a dimension of a shape") for d in dims)
        if any(d < 0 for d in shape_t):
            raise ValueError(f"negative dimension in shape {shape_t}")
        dt = _dtype(dtype)
        n = math.prod(shape_t)
    if n * dt.itemsize > _MAX_NBYTES:
        raise ValueError(f"an array of shape {shape_t} and dtype {dt} would span {n * dt.itemsize} bytes: too big")
    return shape_t, dt


# --------------------------------------------------------------------------- pinned memory

_pinned_lock = threading.Lock()
_pinned_starts: list[int] = []  # sorted start addresses of live pinned blocks
_pinned_ends: dict[int, int] = {}


def _free_pinned(ptr: Any) -> None:
    start = int(ffi.cast("uintptr_t", ptr))
    with _pinned_lock:
        i = bisect.bisect_left(_pinned_starts, start)
        if i < len(_pinned_starts) and _pinned_starts[i] == start:
            del _pinned_starts[i]
            del _pinned_ends[start]
    lib.aclrtFreeHost(ptr)
    _runtime.release_runtime()


def allocate_pinned(nbytes: int) -> np.ndarray:
    """``nbytes`` of page-locked host memory as a uint8 numpy array (freed with the array)."""
    _runtime.retain_runtime()
    p = ffi.new("void**")
    try:
        rc = lib.aclrtMallocHost(p, max(nbytes, 1))  # OverflowError for 2**64 bytes or more
    except BaseException:
        _runtime.release_runtime()
        raise
    if rc:
        _runtime.release_runtime()
        check(rc, "aclrtMallocHost")
    start = int(ffi.cast("uintptr_t", p[0]))
    with _pinned_lock:
        bisect.insort(_pinned_starts, start)
        _pinned_ends[start] = start + max(nbytes, 1)
    # ffi.buffer keeps the gc'ed pointer alive, and numpy keeps the buffer: the memory lives
    # exactly as long as the array and its views.
    owner = ffi.gc(p[0], _free_pinned)
    return np.frombuffer(ffi.buffer(owner, nbytes), dtype=np.uint8)


def is_pinned(array: np.ndarray) -> bool:
    """True if the array's bytes lie inside one live pinned block."""
    if array.nbytes == 0:
        return False
    start = array.__array_interface__["data"][0]
    with _pinned_lock:
        i = bisect.bisect_right(_pinned_starts, start) - 1
        return i >= 0 and start + array.nbytes <= _pinned_ends[_pinned_starts[i]]


class StagingPool:
    """Reusable pinned blocks for staging pageable copies (power-of-two size classes)."""

    MIN_BLOCK = 64 * 1024
    MAX_CACHED = 256 * 1024 * 1024

    def __init__(self) -> None:
        self._free: dict[int, list[np.ndarray]] = {}
        self._cached = 0
        self._closed = False

    def get(self, nbytes: int) -> np.ndarray:
        size = max(self.MIN_BLOCK, 1 << max(0, nbytes - 1).bit_length())
        blocks = self._free.get(size)
        if blocks:
            self._cached -= size
            return blocks.pop()
        return allocate_pinned(size)

    def put(self, block: np.ndarray) -> None:
        size = block.nbytes
        if self._closed or self._cached + size > self.MAX_CACHED:
            return  # dropped: freed with the array
        self._free.setdefault(size, []).append(block)
        self._cached += size

    def close(self) -> None:
        self._closed = True
        self._free.clear()
        self._cached = 0


# --------------------------------------------------------------------------- device arrays


class DeviceArray(Busy, metaclass=NoPublicConstructor):
    """An array in device memory, with a numpy ``shape`` and ``dtype``. Made by
    ``dev.empty(...)``, ``stream.empty(...)`` or ``await stream.upload(x)``; freed by
    ``close()`` or when dropped -- never while device work still uses it. ``ptr`` is its device
    address as an int (what pyACL's ``acl.rt.memcpy*`` functions take)."""

    _factory = "dev.empty(shape, dtype), stream.empty(shape, dtype) or await stream.upload(array)"

    __slots__ = (
        "_device",
        "_core",
        "_ptr",
        "shape",
        "dtype",
        "_released_on",
        "_block",
        "_finalizer",
        "_args",
        "__weakref__",
    )

    def __init__(self, device: Device, block: Block, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
        self._device = device
        self._core = core = core_of(device)
        self._block = block
        self._ptr = block.ptr
        self.shape = shape
        self.dtype = dtype
        self._busy = 0  # Completions in flight that use it
        self._stream: Stream | None = None  # the stream of the newest of them
        self._busy_on = 0  # how many of them are on that stream (at most: see _hold)
        self._closing = False
        self._released_on: Stream | None = None  # see close(): its block went back early
        self._finalizer = weakref.finalize(self, core.pool.release, block)
        self._finalizer.atexit = False  # at exit the process frees everything anyway
        # The KernelArgs whose arguments point to it (made on the first such build): closing
        # the array makes them refuse launches, since its block may be another array's then.
        self._args: weakref.WeakSet[KernelArgs] | None = None
        core.arrays.add(self)  # the device frees it when it closes

    @property
    def device(self) -> Device:
        return self._device

    @property
    def ptr(self) -> int:
        """The device address (raises ClosedError once freed)."""
        if not self._finalizer.alive or self._closing:
            raise errors.ClosedError(f"{self!r} was freed")
        return self._ptr

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d DeviceArray")
        return self.shape[0]

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive or self._closing

    # Busy accounting, driven by the streams: a Completion that uses the array marks it busy
    # when enqueued (Completion._init, or launch()'s fast path in C) and idle when resolved. Only the event
    # loop thread touches these. ``_busy_on`` never counts more than the work in flight on
    # ``_stream`` (a completion of older work there may lower it further), so ``_busy ==
    # _busy_on`` proves all the work in flight is on ``_stream``; a hold (a graph's) counts in
    # ``_busy`` only, and so rules that out for as long as it lasts.
    # ``_busy``, ``_busy_on``, ``_stream`` and ``_closing`` are Busy's (C, native/hotpath.c),
    # and so is ``_unuse(stream)`` -- the work of a Completion on ``stream`` that used the array
    # is done: one less busy (on that stream, if it is still ``_stream``), and a closed array's
    # last work calls ``_idle()`` -- so the launch and resolution paths count without Python.

    def _hold(self) -> None:
        """Something that is no stream's work keeps the array busy: a graph whose captured work
        uses it (graph.py), for as long as the graph lives. No stream may reuse the block
        meanwhile, as any stream may replay the graph."""
        self._busy += 1

    def _unhold(self) -> None:
        self._busy -= 1
        if self._busy == 0 and self._closing:
            self._idle()

    def _idle(self) -> None:
        """A closed array's last work is done."""
        if self._finalizer.alive:
            self._finalizer()  # the block goes back: idle, unless earlier arrays' work is queued
        elif self._released_on is not None:  # released to its stream early (close)
            stream, self._released_on = self._released_on, None
            self._core.pool.settle(self._block, stream)

    def _pointed_by(self, args: KernelArgs) -> None:
        """``args`` holds this array's address (KernelArgs builds and updates call this)."""
        if self._args is None:
            self._args = weakref.WeakSet()
        self._args.add(args)

    def close(self) -> None:
        """Free the memory now, or -- if device work still uses it -- as soon as that is done.
        If all that work is on one stream, later work on that stream may reuse the memory at
        once (stream-ordered; see memory_pool.py). Kernel args that point to the array refuse
        to be launched from now on (until that argument is updated): its memory may be
        another array's by then.

        :raises WrongThreadError: the array is busy and this is not its device's thread: its busy
            count is the event loop's, which resolves its work meanwhile (an idle array may be
            closed from anywhere, as the garbage collector frees it from anywhere)."""
        if self._busy:
            self._core.check_thread()
        if self._args is not None:
            pointing, self._args = list(self._args), None
            for args in pointing:
                args._array_closed(self)
        if not self._busy:
            self._finalizer()
            return
        if self._closing:
            return
        self._closing = True
        if self._busy == self._busy_on and self._finalizer.alive:
            # All its work is on one stream: the block goes back now, pending on that stream,
            # and this array settles its share of the block's waits when its work is done.
            self._finalizer.detach()
            self._released_on = self._stream
            self._core.pool.release(self._block, pending_on=self._stream)

    def _release(self) -> None:
        """The device is closing: free the memory, or -- if work still uses it -- when that
        work is done. Such work outlives the Device when it was queued on a stream of another
        Device block of the same NPU, or abandoned on a hung stream (then it never completes,
        and the memory stays allocated, since the device may still write to it)."""
        self.close()

    async def get(self, *, stream: Stream | None = None) -> np.ndarray:
        """Copy to a new numpy array and wait for it (``stream.download(self)``).

        :param stream: the stream to copy on (default: the task's current stream).
        :raises ClosedError: the array or the stream is closed.
        :raises RuntimeError: no ``stream`` and no current stream.
        """
        return await stream_or_current(stream).download(self)

    async def set(self, data: Any, *, stream: Stream | None = None) -> Completion:
        """Copy host data into this array (``stream.copy_from_host(self, data)``).

        :returns: the copy's :class:`Completion`, once it is enqueued (await it to wait).
        :raises ValueError: ``data`` is not ``nbytes`` bytes.
        :raises ClosedError: the array or the stream is closed.
        :raises RuntimeError: no ``stream`` and no current stream.
        """
        return await stream_or_current(stream).copy_from_host(self, data)

    def __repr__(self) -> str:
        state = " freed" if self.closed else ""
        return f"<DeviceArray shape={self.shape} dtype={self.dtype} device={self._device.index}{state}>"
