"""The dispatcher: turns the native completion queue into resolved ``Completion``s.

One dispatcher per ``async with Device(...)`` block. It owns a native completion queue
(``aiocann_cq``, see native/completion_queue.c): every piece of work the block's streams
enqueue is followed on its stream by a completion callback carrying a 64-bit token. The
device's report thread (C) runs that callback, which appends (token, stream status) to the
queue and makes the queue's eventfd readable. This task awaits the eventfd with
``anyio.wait_readable`` -- so it works the same on asyncio, uvloop and trio -- drains the whole
batch and resolves each token's Completion. No Python code ever runs on a runtime thread.

A watchdog task fails Completions whose callbacks have not arrived within the completion
timeout (a lost callback, a hung device), so no awaiter waits forever. Their resources stay
held (the device may still be using them) until the late callback arrives, if ever.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import deque
from typing import TYPE_CHECKING, Any

import anyio
import numpy as np

from ._lib import ffi, last_error_message, lib

if TYPE_CHECKING:
    from .completion import Completion

_BATCH = 4096
_WAIT_TIMEOUT_CODE = 107019  # ACL_ERROR_RT_WAIT_TIMEOUT, used for watchdog failures


class Dispatcher:
    def __init__(self, ctx: Any, completion_timeout: float) -> None:
        cq = lib.aiocann_cq_new(ctx)
        if cq == ffi.NULL:
            raise MemoryError("cannot create a completion queue (out of memory or file descriptors)")
        self.cq = cq
        self.fd = int(lib.aiocann_cq_fd(cq))
        self.completion_timeout = completion_timeout
        self._pending: dict[int, Completion] = {}
        self._zombies: dict[int, Completion] = {}  # timed out, still holding their resources
        self._tokens = itertools.count(1)
        self.new_token = self._tokens.__next__
        # The watchdog needs each completion's age without a clock read per launch: tokens
        # increase, so it notes the next token at every tick; (time, token) marks the boundary.
        self._marks: deque[tuple[float, int]] = deque()
        self._tok_buf = ffi.new("uint64_t[]", _BATCH)
        self._st_buf = ffi.new("int32_t[]", _BATCH)
        self._tok_view = np.frombuffer(ffi.buffer(self._tok_buf), dtype=np.uint64)
        self._st_view = np.frombuffer(ffi.buffer(self._st_buf), dtype=np.int32)
        self.resolved = 0  # completions resolved so far (tests, stats)

    # Stream._track registers Completions in _pending directly (the launch path).

    @property
    def pending(self) -> int:
        return len(self._pending)

    # -- the dispatcher task ----------------------------------------------------------------

    async def run(self) -> None:
        while True:
            await anyio.wait_readable(self.fd)
            self.drain()

    def drain(self) -> int:
        total = 0
        while True:
            n = int(lib.aiocann_cq_drain(self.cq, self._tok_buf, self._st_buf, _BATCH))
            if n == 0:
                return total
            total += n
            tokens = self._tok_view[:n].tolist()
            status = self._st_view[:n].tolist()
            for token, code in zip(tokens, status, strict=True):
                self._resolve(token, code)
            if n < _BATCH:
                return total

    def _resolve(self, token: int, code: int) -> None:
        completion = self._pending.pop(token, None)
        if completion is None:
            zombie = self._zombies.pop(token, None)
            if zombie is not None:  # the device is done at last: release what it held
                _, arrays = zombie._keep
                zombie._keep = None
                for a in arrays:
                    a._unuse()
            return
        stream = completion._stream
        message = stream._failure_message(code) if code else None
        self.resolved += 1
        try:
            completion._resolve(code, message)
        finally:
            stream._completed(completion, code, message)

    async def watchdog(self) -> None:
        if not math.isfinite(self.completion_timeout):
            return
        period = min(1.0, self.completion_timeout / 4)
        while True:
            await anyio.sleep(period)
            self.expire(time.monotonic())

    def expire(self, now: float) -> None:
        """Fail completions registered more than completion_timeout seconds ago."""
        probe = self.new_token()  # a token nobody uses: the boundary of "registered by now"
        self._marks.append((now, probe))
        boundary = 0
        while self._marks and self._marks[0][0] <= now - self.completion_timeout:
            boundary = self._marks.popleft()[1]
        if not boundary:
            return
        late = [t for t in self._pending if t < boundary]  # dict order: oldest tokens first
        for token in late:
            completion = self._pending.pop(token)
            held = (completion._keep, completion._arrays)
            message = (
                f"no completion callback for {completion.what} within {self.completion_timeout:g} s "
                "(device hung or callback lost); its buffers stay allocated until it completes"
            )
            completion._arrays = ()  # still in use by the device: not idle, never unused
            completion._resolve(_WAIT_TIMEOUT_CODE, message)
            completion._keep = held
            self._zombies[token] = completion
            completion._stream._completed(completion, _WAIT_TIMEOUT_CODE, message)

    def close(self) -> None:
        """Free the queue. The dispatcher task must have stopped (no fd waiter left)."""
        if self.cq is not None:
            self.drain()
            lib.aiocann_cq_free(self.cq)
            self.cq = None


def stream_failure(stream_handle: Any) -> tuple[int, str | None]:
    """The sticky error of a stream and its message, read on the calling thread."""
    status = ffi.new("aclrtStreamStatus*")
    rc = int(lib.aclrtStreamQuery(stream_handle, status))
    return rc, (last_error_message() if rc else None)
