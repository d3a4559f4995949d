"""``MemoryPool``: a stream-ordered caching pool of device memory, one per ``Device``.

Where it sits: behind ``dev.empty()`` / ``stream.empty()`` and the arrays ``stream.upload()``
makes, over ``aclrtMalloc`` / ``aclrtFree`` -- so it works the same on the real runtime, where
``aclrtMalloc`` costs far more than a launch (as CUDA's and torch_npu's caching allocators, and
CuPy's memory pools, exist for).

* Blocks come in size classes (multiples of 512 bytes up to 1 MiB, then 8 classes per power of
  two), and a freed block waits in its class's free list for the next allocation of that class.
* **Stream-ordered reuse.** An array freed while device work still uses it is not idle, but if
  all that work is on one stream ``s``, later work on ``s`` runs after it: its block is handed at
  once to ``s.empty()`` / ``dev.empty(stream=s)`` (such an array belongs to ``s``: make other
  streams wait for ``s`` before they use it -- the rule of CUDA's ``cudaMallocAsync``). Every
  other allocation takes only idle blocks, so a block reaches other streams once the work that
  used it has completed.
* ``limit`` caps the bytes the pool holds (in use + cached); out of memory (the limit, or
  ``aclrtMalloc``'s 207001) first frees the cached blocks, then raises ``DeviceOutOfMemoryError``.
  ``trim()`` frees the cached blocks; ``stats()`` reports what the pool holds and did.
* ``Device(memory_pool=False)`` opts out: every array is its own ``aclrtMalloc``.

Threads: arrays are freed by whatever thread drops the last reference (the garbage collector),
so the pool's state is guarded by a lock; everything else runs on the device's event loop.
"""

from __future__ import annotations

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

    in_use_bytes: int  #: held by live arrays (and by freed arrays whose work is still running)
    cached_bytes: int  #: idle blocks kept for reuse
    limit: int | None  #: cap on in_use_bytes + cached_bytes, or None
    hits: int  #: allocations served from the cache
    stream_reuses: int  #: of those, blocks taken while their old work was still queued
    mallocs: int  #: allocations that called aclrtMalloc
    frees: int  #: blocks returned with aclrtFree (trim, out-of-memory, close)


class Block:
    """A piece of device memory of one size class. ``stream`` is set while the block waits,
    freed, for work queued on that stream (stream-ordered reuse)."""

    __slots__ = ("ptr", "size", "stream", "state")

    def __init__(self, ptr: int, size: int) -> None:
        self.ptr = ptr
        self.size = size
        self.stream: Stream | None = None
        self.state = "used"  # used -> pending (freed, work queued) -> free; or used -> free


class MemoryPool(metaclass=NoPublicConstructor):
    """The device memory of one ``Device`` (see the module docstring), as ``dev.memory_pool``.
    ``enabled`` is False under ``Device(memory_pool=False)``: every block is then allocated and
    freed directly."""

    _factory = "dev.memory_pool (each Device has one)"

    def __init__(self, ctx: Any, *, limit: int | None = None, enabled: bool = True) -> None:
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0 bytes or None, got {limit}")
        self._ctx = ctx
        self.enabled = enabled
        self._limit = limit
        self._lock = threading.Lock()
        self._free: dict[int, list[Block]] = {}
        self._pending: dict[int, dict[int, Block]] = {}  # id(stream) -> ptr -> block
        self._in_use = 0
        self._cached = 0
        self._hits = self._stream_reuses = self._mallocs = self._frees = 0
        self._closed = False

    # -- allocation (event loop) ------------------------------------------------------------

    def _allocate(self, nbytes: int, stream: Stream | None = None) -> Block:
        """A block for ``nbytes``; with ``stream``, possibly one still used by work queued on it.
        The device's context must be current."""
        size = size_class(nbytes) if self.enabled else max(nbytes, 1)
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
                        del waiting[ptr]
                        block.state, block.stream = "used", None
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

    def _release(self, block: Block, pending_on: Stream | None = None) -> None:
        """The block's array is gone. ``pending_on``: work queued on that stream (and only on
        it) still uses the block; ``settle`` follows when it is done. A pending block is never
        freed before that, whether the pool is enabled or closed."""
        with self._lock:
            if pending_on is not None:
                block.state, block.stream = "pending", pending_on
                self._pending.setdefault(id(pending_on), {})[block.ptr] = block
                return
            if self.enabled and not self._closed:
                self._to_free_locked(block)
                return
        self._give_back(block)

    def _settle(self, block: Block) -> None:
        """The work a pending block waited for is done: it is idle, unless reused meanwhile."""
        with self._lock:
            if block.state != "pending" or block.stream is None:
                return
            waiting = self._pending.get(id(block.stream))
            if waiting is not None:
                waiting.pop(block.ptr, None)
                if not waiting:
                    del self._pending[id(block.stream)]
            block.stream = None
            if self.enabled and not self._closed:
                self._to_free_locked(block)
                return
            block.state = "free"
        self._give_back(block)

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
        """Free every cached (idle) block; returns the bytes given back."""
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
        if value is not None and value < 0:
            raise ValueError(f"limit must be >= 0 bytes or None, got {value}")
        self._limit = value

    def stats(self) -> PoolStats:
        with self._lock:
            return PoolStats(
                self._in_use, self._cached, self._limit, self._hits, self._stream_reuses, self._mallocs, self._frees
            )

    def _close(self) -> None:
        """The device is closing (every array was released): free what is cached; later
        releases free at once. Pending blocks -- work that still uses them may outlive the
        Device (another Device block of the same NPU, or work abandoned on a hung stream) --
        are freed when settled, and never if their work never completes."""
        with self._lock:
            self._closed = True
            self._trim_locked()
