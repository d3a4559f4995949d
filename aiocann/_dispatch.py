"""The dispatcher: turns the native completion queue into resolved ``Completion``s.

One dispatcher per ``async with Device(...)`` block. It owns a native completion queue
(``aiocann_cq``, see native/completion_queue.c): every piece of work the block's streams
enqueue is followed on its stream by a non-blocking completion callback carrying a 64-bit
token. The device's report thread (C) runs that callback, which appends (token, status,
message) to the queue -- the status is the error of the work's task when the runtime reported
it failed -- and makes the queue's eventfd readable. The event loop then drains the whole batch
and hands each completion to the stream that owns its token (``_submission.py``): on asyncio
(and uvloop) from a reader callback the loop runs when the eventfd is readable, registered once
for the device's lifetime; on trio from a task that awaits ``trio.lowlevel.wait_readable``. (A
task awaiting ``anyio.wait_readable`` would cost, per batch, a reader registered and removed --
two epoll_ctl calls -- and a task switch: on asyncio, more than half of a lone completion's
round trip.) No Python code ever runs on a runtime thread.

A watchdog task fails Completions whose callbacks have not arrived within the completion
timeout (a lost callback, a hung device), so no awaiter waits forever. Their resources stay
held (the device may still be using them) until the late callback arrives, if ever.

The watchdog (and on trio the draining task) runs in a task of its own (``start``/``stop``): an
asyncio task, or a trio system task -- not in a task group entered by ``Device.__aenter__``,
whose cancel scope would then sit in the caller's scope stack and make ``Device`` blocks close
only in reverse opening order.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import deque
from typing import TYPE_CHECKING, Any

import anyio

from . import _hotpath, errors
from ._flavour import NOT_OPEN, Flavour, LoopTimer
from ._lib import bind_context, check, ffi, lib
from ._submission import KEY_SHIFT

if TYPE_CHECKING:
    from ._submission import Submissions

_BATCH = 4096
_STREAM_REPORT = int(lib.AIOCANN_STREAM_REPORT)
_TASK_REPORT = int(lib.AIOCANN_TASK_REPORT)
# How often a stream with a reported failure whose completion has not come is checked for
# having stopped on it (see Submissions.task_report); the first check is this long after the
# report, so a stream that goes on (the default mode) has long delivered that completion.
_STOP_POLL = 0.02

# The C helpers of the cffi module (native/fastpath.c, completion_queue.c) that the hot path in
# C calls directly: their addresses, once.
_hotpath.provide(
    **{
        f"{name}_fn": int(ffi.cast("uintptr_t", ffi.addressof(lib, f"aiocann_{c_name}")))
        for name, c_name in (("launch", "launch"), ("replay", "replay"), ("drain", "cq_drain"), ("free", "free"))
    }
)


# The chips whose runtime runs the exception callbacks of a failed task before it resumes the
# stream (the order the completion queue relies on, native/completion_queue.c): the STARS
# engines (hicann/runtime src/runtime/config/910_B_93 and 950, dev_info_reg.cc: isStars = true;
# StarsEngine::ProcLogicCqReport runs TaskFailCallBackManager::Notify before StarsResumeRtsq).
# The others (config/cloud: 910A, dc: 310P, mini: 310: isStars = false) have no such barrier
# in the source, so a failure could be reported after the completion behind it had resolved
# the work as done: aiocann refuses them rather than resolve a failed launch as a success.
STARS_SOC_PREFIXES = ("Ascend910B", "Ascend910_93", "Ascend950")


def check_report_order(ctx: Any) -> None:
    """Refuse a chip on which failure reports are not known to precede later host callbacks."""
    bind_context(ctx)
    name = lib.aclrtGetSocName()
    soc = ffi.string(name).decode(errors="replace") if name != ffi.NULL else "an unknown chip"
    if not soc.startswith(STARS_SOC_PREFIXES):
        raise errors.FeatureNotSupportedError(
            errors.ERROR_CODES["ACL_ERROR_RT_FEATURE_NOT_SUPPORT"],
            f"{soc} has no STARS engine: its runtime does not establish that a failed task's exception "
            "report comes before the completion callback behind it (only the STARS engines' "
            "ProcLogicCqReport does), so aiocann could resolve failed work as done; it supports "
            f"{', '.join(p + '*' for p in STARS_SOC_PREFIXES)}",
            "aiocann completion path",
        )


class Dispatcher:
    def __init__(self, ctx: Any, completion_timeout: float) -> None:
        check_report_order(ctx)
        rc = ffi.new("aclError*")
        cq = lib.aiocann_cq_new(ctx, rc)
        if cq == ffi.NULL:
            check(rc[0], "aiocann_cq_new")
        self.cq = cq
        self.fd = int(lib.aiocann_cq_fd(cq))
        self.completion_timeout = completion_timeout
        self._streams: dict[int, Submissions] = {}
        self._keys = itertools.count(1)
        # The watchdog needs each completion's age without a clock read per launch: it notes,
        # at every tick, each stream's next token; (time, {key: token}) marks the boundary.
        self._marks: deque[tuple[float, dict[int, int]]] = deque()
        self._tok_buf = ffi.new("uint64_t[]", _BATCH)
        self._st_buf = ffi.new("int32_t[]", _BATCH)
        self._msg_buf = ffi.new("char*[]", _BATCH)
        # Their addresses, and the queue's, for the drain in C (native/hotpath.c).
        self._cq_addr = int(ffi.cast("uintptr_t", cq))
        self._tok_addr = int(ffi.cast("uintptr_t", self._tok_buf))
        self._st_addr = int(ffi.cast("uintptr_t", self._st_buf))
        self._msg_addr = int(ffi.cast("uintptr_t", self._msg_buf))
        self.resolved = 0  # completions resolved so far (tests, stats)
        self.error: BaseException | None = None  # the first exception resolution code raised
        self._scope: anyio.CancelScope | None = None
        self._stopped: anyio.Event | None = None
        self._task: Any = None  # the asyncio task (kept referenced), or the trio system task
        self._flavour: Flavour = NOT_OPEN  # the device's event loop (start)
        self._reading = False  # our reader callback is registered on it (asyncio)
        self._timer: LoopTimer | None = None  # keeps the loop's timers on time after our wake-ups (asyncio)
        # Completions are being drained on the device's loop: our reader is registered
        # (asyncio), or the draining task has not ended (trio; a trio run ends its system tasks).
        self.draining = False
        # Streams with a reported failure whose completion has not come yet (Submissions.
        # task_report), and what wakes the task that checks them.
        self.suspects: set[Submissions] = set()
        self._suspect_wake: anyio.Event | None = None

    # -- streams ------------------------------------------------------------------------------

    def register(self, owner: Submissions) -> int:
        """A key for a new stream's tokens."""
        key = next(self._keys)
        self._streams[key] = owner
        return key

    def unregister(self, key: int) -> None:
        self._streams.pop(key, None)

    @property
    def pending(self) -> int:
        return sum(len(s.pending) for s in self._streams.values())

    # -- the dispatcher task ----------------------------------------------------------------

    def start(self, flavour: Flavour) -> None:
        """Start draining the queue and the watchdog on the calling event loop: on asyncio a
        reader callback and a task for the watchdog, on trio a system task for both. The task
        belongs to no task group of the caller, so it neither nests in the caller's cancel
        scopes nor is cancelled with them: it stops on ``stop()``, or when the loop ends."""
        self._flavour = flavour
        if flavour.reader_drains:
            flavour.add_reader(self.fd, self._on_readable)  # first: if it raises, nothing is left to stop
            self._reading = True
            try:
                self._timer = flavour.loop_timer()
            except OSError:  # out of fds: timers may run late, nothing else changes
                self._timer = None
        self.draining = True  # on trio from now too: the task may start after the first await on it
        self._scope, self._stopped = anyio.CancelScope(), anyio.Event()
        self._task = flavour.spawn(self._main, not flavour.reader_drains, name="aiocann dispatcher")

    def _drained(self) -> bool:
        """Drain; False if draining failed unexpectedly (resolution code's own errors are kept
        per completion by drain()): the error is kept for Device.aclose to raise, draining
        stops, and the watchdog fails what is left within the completion timeout."""
        try:
            self.drain()
        except Exception as exc:
            self.error = self.error or exc
            return False
        return True

    def _on_readable(self) -> None:
        # asyncio's reader callback: runs on the loop, between task steps. This wake-up came
        # at the device's moment, not the loop's: the loop timer keeps its next timer on time.
        if not self._drained():
            self._remove_reader()
        elif self._timer is not None:
            self._timer.follow()

    def _remove_reader(self) -> None:
        if self._timer is not None:
            self._timer.close()
            self._timer = None
        if self._reading:
            self._flavour.remove_reader(self.fd)
            self._reading = False
            self.draining = False

    async def _main(self, drain: bool) -> None:
        assert self._scope is not None and self._stopped is not None
        try:
            with self._scope:
                async with anyio.create_task_group() as tg:
                    if drain:
                        tg.start_soon(self.run)
                    tg.start_soon(self.watchdog)
                    tg.start_soon(self._watch_suspects)
        except anyio.get_cancelled_exc_class():
            # The event loop is ending with the device still open (a trio system task must not
            # raise): its streams must not take work through C from a later loop.
            for owner in self._streams.values():
                owner.loop_ended()
        except BaseException as exc:  # kept for Device.aclose to raise
            self.error = self.error or exc
        finally:
            self._stopped.set()

    async def stop(self) -> None:
        """Stop what ``start`` started and wait until it has (shielded: it is quick)."""
        self._remove_reader()
        if self._scope is None or self._stopped is None:
            return
        self._scope.cancel()
        with anyio.CancelScope(shield=True):
            await self._stopped.wait()
        self._task = None

    async def run(self) -> None:
        """trio: drain whenever the queue's eventfd is readable (until draining fails: the
        watchdog, in the same task group, goes on)."""
        try:
            while True:
                await self._flavour.wait_readable(self.fd)
                if not self._drained():
                    return
        finally:
            self.draining = False

    def drain(self) -> int:
        """Resolve every completion the queue holds, a batch at a time, in C
        (``_hotpath.drain``): each is resolved by the lane of the stream its token names, and
        the tasks waiting for it are woken. The few entries that carry a failure come to
        :meth:`_special` in their order. An exception of resolution code (an ``on_done`` hook)
        is kept in ``error`` and the rest goes on. Returns how many entries were drained."""
        total, resolved = _hotpath.drain(
            self, self._cq_addr, self._streams, self._tok_addr, self._st_addr, self._msg_addr, _BATCH
        )
        self.resolved += resolved
        return int(total)

    def _special(self, token: int, code: int, message: str | None) -> int:
        """A drained entry with a failure: a stream's report, the early word of a failed task
        (its completion follows), or a failed piece of work. Returns 1 if it resolved one."""
        streams = self._streams
        if token & _STREAM_REPORT:
            reported = streams.get(token ^ _STREAM_REPORT)  # the key, in the low bits
            if reported is not None:
                reported.stream_failure(code, message)
            return 0
        if token & _TASK_REPORT:  # the early word of a failure (its completion follows)
            token ^= _TASK_REPORT
            reported = streams.get(token >> KEY_SHIFT)
            if reported is not None and reported.task_report(token, code, message):
                self._suspect(reported)
            return 0
        owner = streams.get(token >> KEY_SHIFT)
        if owner is None:
            return 0
        try:
            owner.resolve(token, code, message)
        except Exception as exc:  # an on_done hook failed: keep resolving the rest
            self.error = self.error or exc
        return 1

    def _suspect(self, owner: Submissions) -> None:
        self.suspects.add(owner)
        if self._suspect_wake is not None:
            self._suspect_wake.set()

    async def _watch_suspects(self) -> None:
        """Check the streams with a reported failure whose completion has not come, every
        _STOP_POLL s while there are any: a stream that stopped on the failure never delivers
        it (Submissions.check_stopped)."""
        while True:
            if not self.suspects:
                self._suspect_wake = anyio.Event()
                if not self.suspects:  # none came in meanwhile
                    await self._suspect_wake.wait()
                self._suspect_wake = None
            await anyio.sleep(_STOP_POLL)
            for owner in list(self.suspects):
                owner.check_stopped()
                if owner.settled_reports():
                    self.suspects.discard(owner)

    async def watchdog(self) -> None:
        if not math.isfinite(self.completion_timeout):
            return
        period = min(1.0, self.completion_timeout / 4)
        while True:
            await anyio.sleep(period)
            self.expire(time.monotonic())

    def expire(self, now: float) -> None:
        """Fail completions registered more than completion_timeout seconds ago."""
        # A token each stream hands to nobody: everything registered before it is older.
        self._marks.append((now, {k: s.new_token() for k, s in self._streams.items()}))
        boundaries: dict[int, int] | None = None
        while self._marks and self._marks[0][0] <= now - self.completion_timeout:
            boundaries = self._marks.popleft()[1]
        if boundaries is None:
            return
        for key, boundary in boundaries.items():
            owner = self._streams.get(key)
            if owner is not None:
                owner.expire(boundary, self.completion_timeout)

    def close(self) -> None:
        """Free the queue. ``stop()`` must have run: no reader or task waits on its eventfd."""
        if self.cq is not None:
            self.drain()
            self._cq_addr = 0
            lib.aiocann_cq_free(self.cq)
            self.cq = None
        # The device's binaries go with it: launch()'s cached args of its kernels are stale.
        _hotpath.invalidate()
