"""``MemoryPool``: a stream-ordered caching pool of device memory, one per ``Device``.

Where it sits: behind ``dev.empty()`` / ``stream.empty()`` and the arrays ``stream.upload()``
makes, over ``aclrtMalloc`` / ``aclrtFree`` -- so it works the same on the real runtime, where
``aclrtMalloc`` costs far more than a launch (as CUDA's and torch_npu's caching allocators, and
CuPy's memory pools, exist for).

* Blocks come in size classes (multiples of 512 bytes up to 1 MiB, then 8 classes per power of
  two), and a freed block waits in its class's free list for the next allocation of that class.
* **Idle** means: every piece of work that may touch the block, through *any* array it was ever
  handed out as, is done. A block outlives its arrays: when it is handed out again before the
  old work is done (below), the new array's release does not make it idle -- the block counts
  the closed arrays whose work is still queued (``Block.waits``, per stream), and each of them
  settles its share when its last Completion resolves (memory.py). That is how the pool learns
  work is done: from the Completions the dispatcher resolves anyway, with nothing added to the
  launch path, no query, no event and no synchronization.
* **Stream-ordered reuse.** An array closed while device work still uses it, all of that work on
  one stream ``s``, gives its block to later work on ``s`` at once -- ``s.empty()`` /
  ``dev.empty(stream=s)`` -- since ``s`` runs it after the old work (the rule of CUDA's
  ``cudaMallocAsync``; such an array belongs to ``s``: make other streams wait for ``s`` before
  they use it). That holds as long as all the block's outstanding work, through every array, is
  on ``s``; once it spans two streams no stream's later work is ordered after all of it, and the
  block waits for some of it to finish. Every other allocation -- also one for a stream that
  is capturing or updating a graph, whose work runs in replays on any stream -- and ``trim()``
  take idle blocks only, so a block reaches other streams once its work has completed.
* A graph holds the arrays its captured work uses from no stream (graph.py): their blocks are
  reused by nobody until the graph is destroyed, after its replays are done. Work enqueued
  without its completion callback (the runtime refused the callback) holds its arrays the same
  way, until its stream is found idle (_submission.py).
* ``limit`` caps the bytes the pool holds (in use + cached); out of memory (the limit, or
  ``aclrtMalloc``'s 207001) first frees the cached blocks, then raises ``DeviceOutOfMemoryError``.
  ``trim()`` frees the cached (idle) blocks; ``stats()`` reports what the pool holds and did.
* ``Device(memory_pool=False)`` opts out: every array is its own ``aclrtMalloc``.

Threads: arrays are freed by whatever thread drops the last reference (the garbage collector),
so the pool's state is guarded by a lock; everything else runs on the device's event loop.
"""

from __future__ import annotations

import operator
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import errors
from ._factory import NoPublicConstructor
from ._lib import check, ffi, in_context, lib

if TYPE_CHECKING:
    from .stream import Stream

__all__ = ["MemoryPool", "PoolStats"]

_SMALL = 1 << 20
_UNIT = 512
_OOM_CODES = errors.DeviceOutOfMemoryError.codes  # aclrtMalloc's out-of-memory codes


def size_class(nbytes: int) -> int:
    """The bytes a request of ``nbytes`` is served with."""
    n = max(nbytes, 1)
    if n <= _SMALL:
        return -(-n // _UNIT) * _UNIT
    step = 1 << (n.bit_length() - 4)  # 8 classes per power of two: at most 12.5 % slack
    return -(-n // step) * step


@dataclass(frozen=True)
class PoolStats:
    """What a :class:`MemoryPool` holds and has done."""

    in_use_bytes: int  #: held by live arrays and graphs, and by closed arrays whose work is still queued
    cached_bytes: int  #: idle blocks kept for reuse
    limit: int | None  #: cap on in_use_bytes + cached_bytes, or None
    hits: int  #: allocations served from the cache
    stream_reuses: int  #: of those, blocks taken on a stream while its old work there was still queued
    mallocs: int  #: allocations that called aclrtMalloc
    frees: int  #: blocks returned with aclrtFree (trim, out-of-memory, close)


class Block:
    """A piece of device memory of one size class, the pool's for as long as it lives.

    ``state``: "used" while an array holds it; "pending" once released while ``waits`` is not
    empty; "free" when idle (in a free list, or given back). ``waits``: stream -> how many
    closed arrays of this block still have work queued on that stream. A pending block whose
    ``waits`` name one stream is in that stream's pending list (stream-ordered reuse); with two
    or more, it is in no list until enough of that work settles."""

    __slots__ = ("ptr", "size", "state", "waits")

    def __init__(self, ptr: int, size: int) -> None:
        self.ptr = ptr
        self.size = size
        self.state = "used"
        self.waits: dict[Stream, int] = {}


class _BlockPool:
    """The device memory of one ``Device`` (see the module docstring): what its arrays and
    the device's closing use (through its core, DeviceCore.pool); ``dev.memory_pool``
    (:class:`MemoryPool`) is its public face. ``enabled`` is False under
    ``Device(memory_pool=False)``: every block is then allocated and freed directly."""

    def __init__(self, ctx: Any, *, limit: int | None = None, enabled: bool = True) -> None:
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0 bytes or None, got {limit}")
        self._ctx = ctx
        self.enabled = enabled
        self._limit = limit
        self._lock = threading.Lock()
        self._free: dict[int, list[Block]] = {}
        # id(stream) -> ptr -> pending block whose outstanding work is all on that stream (the
        # block's ``waits`` hold the stream, so its id is not reused meanwhile)
        self._pending: dict[int, dict[int, Block]] = {}
        self._in_use = 0
        self._cached = 0
        self._hits = self._stream_reuses = self._mallocs = self._frees = 0
        self._closed = False

    # -- allocation (event loop) ------------------------------------------------------------

    def allocate(self, nbytes: int, stream: Stream | None = None) -> Block:
        """A block for ``nbytes``; with ``stream``, possibly one still used by work queued on it.
        The device's context must be current."""
        size = size_class(nbytes) if self.enabled else max(nbytes, 1)
        if stream is not None and stream._state != "open":
            # Capturing or updating a graph: what the stream is given now runs in the graph's
            # replays, on any stream, not after the stream's queued work. Idle memory only.
            stream = None
        if self.enabled:
            with self._lock:
                block = self._take_locked(size, stream)
                if block is not None:
                    return block
        return self._malloc(size)

    def _take_locked(self, size: int, stream: Stream | None) -> Block | None:
        if stream is not None:
            waiting = self._pending.get(id(stream))
            if waiting:
                for ptr, block in waiting.items():
                    if block.size == size:
                        # All its outstanding work is on ``stream``: later work there runs
                        # after it. It stays in ``waits`` -- the block is not idle.
                        del waiting[ptr]
                        if not waiting:
                            del self._pending[id(stream)]
                        block.state = "used"
                        self._hits += 1
                        self._stream_reuses += 1
                        return block
        free = self._free.get(size)
        if free:
            block = free.pop()
            block.state = "used"
            self._cached -= size
            self._in_use += size
            self._hits += 1
            return block
        return None

    def _malloc(self, size: int) -> Block:
        with self._lock:
            if self._limit is not None and self._in_use + self._cached + size > self._limit:
                self._trim_locked()
                if self._in_use + size > self._limit:
                    raise errors.DeviceOutOfMemoryError(
                        errors.ERROR_CODES["ACL_ERROR_RT_MEMORY_ALLOCATION"],
                        f"the memory pool's limit of {self._limit} bytes is reached "
                        f"({self._in_use} in use, {size} requested)",
                        "MemoryPool.allocate",
                    )
            self._in_use += size  # reserved now, so that concurrent frees see it
        out = ffi.new("void**")
        rc = lib.aclrtMalloc(out, size, lib.ACL_MEM_MALLOC_HUGE_FIRST)
        if rc in _OOM_CODES:
            self.trim()  # give the runtime back what we cache, then try once more
            rc = lib.aclrtMalloc(out, size, lib.ACL_MEM_MALLOC_HUGE_FIRST)
        if rc:
            with self._lock:
                self._in_use -= size
            check(rc, "aclrtMalloc")
        with self._lock:
            self._mallocs += 1
        return Block(int(ffi.cast("uintptr_t", out[0])), size)

    # -- release (any thread) ----------------------------------------------------------------

    def release(self, block: Block, pending_on: Stream | None = None) -> None:
        """The array the block was handed out as is gone. ``pending_on``: that array's work,
        all of it on this stream, is still queued; ``settle(block, pending_on)`` follows when
        it is done. The block is idle only when no array's work is queued any more: a pending
        block is never freed before that, whether the pool is enabled or closed."""
        with self._lock:
            if pending_on is not None:
                block.waits[pending_on] = block.waits.get(pending_on, 0) + 1
            if block.waits:
                block.state = "pending"
                self._park_locked(block)
                return
            if self.enabled and not self._closed:
                self._to_free_locked(block)
                return
            block.state = "free"
        self._give_back(block)

    def settle(self, block: Block, stream: Stream) -> None:
        """The work a closed array of ``block`` had queued on ``stream`` is done. The block is
        idle if no other array's work is queued and no array holds it."""
        with self._lock:
            if block.state == "pending":
                self._unpark_locked(block)
            left = block.waits[stream] - 1
            if left:
                block.waits[stream] = left
            else:
                del block.waits[stream]
            if block.state != "pending":
                return  # handed out again meanwhile: that array's release decides
            if block.waits:
                self._park_locked(block)
                return
            if self.enabled and not self._closed:
                self._to_free_locked(block)
                return
            block.state = "free"
        self._give_back(block)

    def _park_locked(self, block: Block) -> None:
        """A pending block whose work is all on one stream can be reused by that stream."""
        if len(block.waits) == 1:
            (stream,) = block.waits
            self._pending.setdefault(id(stream), {})[block.ptr] = block

    def _unpark_locked(self, block: Block) -> None:
        if len(block.waits) == 1:
            (stream,) = block.waits
            waiting = self._pending.get(id(stream))
            if waiting is not None:
                waiting.pop(block.ptr, None)
                if not waiting:
                    del self._pending[id(stream)]

    def _to_free_locked(self, block: Block) -> None:
        block.state = "free"
        self._in_use -= block.size
        self._cached += block.size
        self._free.setdefault(block.size, []).append(block)

    def _give_back(self, block: Block) -> None:
        with self._lock:
            self._in_use -= block.size
            self._frees += 1
        in_context(self._ctx, lambda: lib.aclrtFree(ffi.cast("void*", block.ptr)))

    # -- maintenance ---------------------------------------------------------------------------

    def trim(self) -> int:
        """Free every idle block; returns the bytes given back. A block that work -- of any
        array it was handed out as, or of a graph -- may still touch is not idle, and stays."""
        with self._lock:
            return self._trim_locked()

    def _trim_locked(self) -> int:
        blocks = [b for free in self._free.values() for b in free]
        self._free.clear()
        released = self._cached
        self._cached = 0
        self._frees += len(blocks)
        for b in blocks:
            in_context(self._ctx, lambda p=b.ptr: lib.aclrtFree(ffi.cast("void*", p)))
        return released

    @property
    def limit(self) -> int | None:
        return self._limit

    @limit.setter
    def limit(self, value: int | None) -> None:
        if value is not None:
            # A whole number of bytes, as Device(memory_limit=) takes it: not 1.5, not True.
            if isinstance(value, bool) or not hasattr(type(value), "__index__"):
                raise TypeError(f"limit must be an int number of bytes or None, not {type(value).__name__}")
            value = operator.index(value)
            if value < 0:
                raise ValueError(f"limit must be >= 0 bytes or None, got {value}")
        self._limit = value

    def stats(self) -> PoolStats:
        with self._lock:
            return PoolStats(
                self._in_use, self._cached, self._limit, self._hits, self._stream_reuses, self._mallocs, self._frees
            )

    def close(self) -> None:
        """The device is closing (every array was released): free what is cached; later
        releases free at once. Pending blocks -- work that still uses them may outlive the
        Device (another Device block of the same NPU, or work abandoned on a hung stream) --
        are freed when settled, and never if their work never completes."""
        with self._lock:
            self._closed = True
            self._trim_locked()


class MemoryPool(metaclass=NoPublicConstructor):
    """The device's memory pool, as ``dev.memory_pool`` (see the module docstring): ``stats()``,
    ``trim()``, ``limit``; ``enabled`` is False under ``Device(memory_pool=False)``."""

    _factory = "dev.memory_pool (each Device has one)"

    __slots__ = ("_blocks",)

    def __init__(self, blocks: _BlockPool) -> None:
        self._blocks = blocks

    @property
    def enabled(self) -> bool:
        return self._blocks.enabled

    def trim(self) -> int:
        """Free every idle block; returns the bytes given back. A block that work -- of any
        array it was handed out as, or of a graph -- may still touch is not idle, and stays."""
        return self._blocks.trim()

    @property
    def limit(self) -> int | None:
        """The cap on the bytes the pool holds (in use + cached), or None."""
        return self._blocks.limit

    @limit.setter
    def limit(self, value: int | None) -> None:
        self._blocks.limit = value

    def stats(self) -> PoolStats:
        return self._blocks.stats()
