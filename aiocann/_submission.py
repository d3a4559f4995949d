"""The submission owner of one stream: everything between enqueueing work and resolving its
``Completion``.

Where it sits: below :class:`~aiocann.stream.Stream` (which creates one when it opens) and
above the native completion queue (native/completion_queue.c). One ``Submissions`` per stream
owns, and is the only code that touches:

* admission -- how many Completions are in flight and who waits for a slot (FIFO);
* tokens -- every piece of work gets a 64-bit token, the stream's key in the high bits, so the
  dispatcher can route a drained completion to its owner without a shared map;
* pending and timed-out entries -- token -> Completion, and the completions the watchdog failed
  whose device work may still be running (their buffers stay held until it ends);
* resolution -- the status and message travel with the completion from C (the failed task's
  error code, from the runtime's exception report), so nothing is queried again;
* the stream's failures: the first one, and the first one no synchronize point has reported
  yet (``Stream.synchronize()`` and leaving ``async with stream`` report it once);
* a stream that stopped on a failure (``aclrtSetStreamFailureMode`` by any code, or another
  stream of the context in that mode): the runtime reports the failed task, then never runs
  its completion callback nor anything behind it (``Stream::EnterFailureAbort``). The report
  comes to the dispatcher at once (``task_report``); if the completion has not followed when
  the dispatcher checks, and ``aclrtStreamQuery`` answers with the context's failure (which it
  does only in that mode), the failed work's Completion fails with its report and every later
  one with the runtime's code (``check_stopped``) -- no Completion waits for the watchdog.

Everything here runs on the event loop thread of the stream's device.
"""

from __future__ import annotations

import enum
import weakref
from collections import deque
from typing import TYPE_CHECKING, Any, NoReturn

import anyio

from . import errors, tracing
from ._hotpath import Lane, provide
from ._lib import bind_context, check, ffi, in_context, last_error_message, lib
from .completion import Completion, _Held, _new
from .graph import _GraphRecord  # module level: abandon() also runs from Stream.__del__ at exit

if TYPE_CHECKING:
    from ._core import DeviceCore, Dispatching
    from .memory import DeviceArray
    from .stream import Stream

KEY_SHIFT = 40  # tokens: key << KEY_SHIFT | sequence number (2**40 completions per stream)
_WAIT_TIMEOUT_CODE = errors.ERROR_CODES["ACL_ERROR_RT_WAIT_TIMEOUT"]  # for completions the watchdog fails
_DISCARDED = (
    "discarded: the stream stopped on an earlier failure (stop-on-failure mode), so this work never ran; "
    "the runtime refuses new work on the context with this code"
)


def stopped_code(rc: int) -> bool:
    """Whether ``aclrtStreamQuery``'s ``rc`` is the failure of a stop-on-failure context (a
    task's device error, 5xxxxx), rather than a bad handle or context (1xxxxx)."""
    return rc >= 500000


class Mode(enum.Enum):
    """What a stream is doing, held by its lane alone (``Stream._state`` reads it):

    open -> capturing -> open (``stream.capture()``), open -> updating -> open (a task
    group's ``update``; either also ended from outside by ``interrupt()`` when the device
    closes under the block), open -> closing -> closed (``aclose``), or open -> closed at once
    (the stream is collected, or its device closed under it)."""

    OPEN = "open"
    CAPTURING = "capturing"
    UPDATING = "updating"
    CLOSING = "closing"
    CLOSED = "closed"


OPEN = Mode.OPEN  # launch()'s fast path compares with it, a module global
_SUBMITTING = (Mode.OPEN, Mode.UPDATING, Mode.CAPTURING)  # work may be submitted
provide(open=OPEN)  # the mode the fast paths compare with


class Submissions(Lane):
    """Admission, tokens, pending completions and their resolution, for one stream -- its
    lane: it also holds the stream's :class:`Mode`, entered and left through its methods.

    What the hot paths read and write is :class:`~aiocann._hotpath.Lane`'s, in C
    (native/hotpath.c): ``mode``, ``thread``, ``loop``, ``flavour``, ``npu``, ``owner``,
    ``max_in_flight``, ``in_flight``, ``waiters``, ``pending``, ``last``, the token counter
    (``new_token()``) and the native queue; and so is ``resolve``, the one way a pending
    Completion ends. Everything else -- admission's waits, failures, the watchdog, closing --
    is here."""

    __slots__ = (
        "_stream",
        "core",
        "handle",
        "ctx",
        "dispatcher",
        "key",
        "qs",
        "timed_out",
        "first_error",
        "unreported",
        "orphans",
        "launched",
        "capture",
        "updating",
        "reports",
        "stopped",
    )

    def __init__(self, stream: Stream, core: DeviceCore, handle: Any, max_in_flight: int) -> None:
        # Weak: the dispatcher holds this object for as long as the stream is open, and an open
        # stream nobody references must still be collected (and warn). Completions in flight
        # hold the stream itself.
        self._stream = weakref.ref(stream)
        self.core = core
        self.ctx = core.ctx
        # The device's owner, event loop and NPU, fixed at its open: what a Completion of this
        # stream checks on every await, and launch() on every launch, read them here (in C:
        # the Lane's members), in fewer steps than through the device's core.
        self.thread = core.thread
        self.loop = core.loop  # the asyncio loop, None under trio
        self.flavour = core.flavour
        self.npu = core.acl  # "the same NPU?" is an identity test (DeviceCore.same_npu)
        self.owner = core  # a graph replays on the streams of its own device (its native record)
        # The aclrtStream: this lane's until the stream is destroyed (close()).
        self.handle: Any = handle
        dispatcher = core.dispatcher
        self.dispatcher: Dispatching = dispatcher
        self.key = dispatcher.register(self)
        rc = ffi.new("aclError*")
        qs = lib.aiocann_cq_stream_new(dispatcher.cq, handle, self.key, rc)
        if qs == ffi.NULL:
            dispatcher.unregister(self.key)
            check(rc[0], "aiocann_cq_stream_new")
        self.qs: Any = qs
        self.mode = Mode.OPEN
        self.max_in_flight = max_in_flight
        self.in_flight = 0
        self.waiters: deque[anyio.Event] = deque()
        self.pending: dict[int, Completion] = {}
        # What the device may still use of the completions the watchdog failed, by token.
        self.timed_out: dict[int, _Held] = {}
        self.last: Completion | None = None
        self.first_error: errors.AclError | None = None  # the stream's first failure, kept
        self.unreported: errors.AclError | None = None  # first since the last synchronize()
        # Work enqueued without a completion (see enqueue_failed): what it keeps, and its arrays
        self.orphans: list[tuple[Any, tuple[DeviceArray, ...]]] = []
        self.launched = ffi.new("int*")  # set by the fast paths: was the work itself enqueued?
        # The graph this stream captures into (no completion callbacks then: they would be
        # captured too), and the graph whose task group this stream updates (graph.py): set
        # with the mode, by begin_capture / begin_update.
        self.capture: _GraphRecord | None = None
        self.updating: _GraphRecord | None = None
        # Failures the runtime reported, by token, whose completions have not come yet; and
        # the runtime's code once the stream's context stopped on a failure (see the top).
        self.reports: dict[int, tuple[int, str | None]] = {}
        self.stopped = 0
        # The C side's view of the queue and the out-flag, and the tokens: key << KEY_SHIFT |
        # sequence number, from the lane's counter (new_token(); the fast paths count in C).
        self._set_native(
            int(ffi.cast("uintptr_t", qs)), int(ffi.cast("uintptr_t", self.launched)), self.key << KEY_SHIFT
        )

    @property
    def stream(self) -> Stream:
        s = self._stream()
        assert s is not None  # whoever submits holds it
        return s

    def wrong_thread(self) -> NoReturn:
        """Raise the device's WrongThreadError (a Completion awaited off its loop)."""
        self.core.wrong_thread()

    def on_own_loop(self) -> bool:
        return self.flavour.on_own_loop()

    # -- the stream's mode --------------------------------------------------------------------

    def submitting(self) -> bool:
        """Work may be submitted: open, or capturing or updating a graph."""
        return self.mode in _SUBMITTING

    def _enter(self, mode: Mode) -> None:
        if self.mode is not Mode.OPEN:
            raise errors.ClosedError(f"{self._stream()!r} is not open")
        self.mode = mode

    def begin_capture(self, graph: _GraphRecord) -> None:
        """Work submitted from now on is recorded into ``graph`` (``stream.capture()``; the
        caller began the runtime's capture). Raises ClosedError unless the stream is open."""
        self._enter(Mode.CAPTURING)
        self.capture = graph

    def end_capture(self) -> None:
        self.capture = None
        if self.mode is Mode.CAPTURING:
            self.mode = Mode.OPEN

    def begin_update(self, graph: _GraphRecord) -> None:
        """Launches from now on update a task group of ``graph`` (``TaskGroup.update``)."""
        self._enter(Mode.UPDATING)
        self.updating = graph

    def end_update(self) -> None:
        self.updating = None
        if self.mode is Mode.UPDATING:
            self.mode = Mode.OPEN

    def interrupt(self) -> tuple[_GraphRecord | None, _GraphRecord | None]:
        """The device is closing while another task is inside this stream's capture or update
        block: leave it from outside (the stream is open again, so it can be closed). Returns
        the graph captured into and the graph updated (either may be None); the caller ends
        them in the runtime. The block, when its task resumes, finds itself ended."""
        capture, updating = self.capture, self.updating
        self.capture = self.updating = None
        if self.mode in (Mode.CAPTURING, Mode.UPDATING):
            self.mode = Mode.OPEN
        return capture, updating

    def begin_close(self) -> bool:
        """The stream starts closing (Stream.aclose): False if it was not open (closing twice
        does nothing). Every waiter for a slot finds out."""
        if self.mode is not Mode.OPEN:
            return False
        self.mode = Mode.CLOSING
        self.wake_all()
        return True

    def mark_closed(self) -> None:
        """The stream's device closed without it (it was collected later): nothing to free."""
        self.mode = Mode.CLOSED

    # -- admission --------------------------------------------------------------------------

    async def enter(self, arrays: tuple[DeviceArray, ...] = ()) -> Submissions:
        """Check the stream is open and used from its device's loop, wait for a free in-flight
        slot and bind the device's context; returns this lane, for the one submission the
        caller makes. Cancelling the wait enqueues nothing. While the stream captures, nothing
        is in flight for what it records: no wait.

        ``arrays``: what the work will use. They count as busy only once it is enqueued, so one
        closed during the wait was freed -- and its block may be another array's now: raise
        ClosedError rather than enqueue work on it. A caller that raises after this returns
        (and before it enqueues) calls ``decline()``, as this does."""
        self.core.check_owner()
        if not self.submitting():
            raise errors.ClosedError(f"{self._stream()!r} is not open")
        if self.capture is None:
            await self.admit()
        try:
            for a in arrays:
                if a.closed:
                    raise errors.ClosedError(f"{a!r} was closed while the work using it waited for {self._stream()!r}")
            self.core.bind()
        except BaseException:
            self.decline()
            raise
        return self

    def usable(self) -> None:
        """Raise ClosedError unless the stream is open; bind the device's context."""
        if not self.submitting():
            raise errors.ClosedError(f"{self._stream()!r} is not open")
        self.core.bind()

    def ready(self) -> bool:
        """The fast path of admission: a free slot and nobody queued before us."""
        return self.in_flight < self.max_in_flight and not self.waiters

    async def admit(self) -> None:
        """Wait for a free in-flight slot (FIFO). Cancelling the wait enqueues nothing. The
        caller enqueues and calls track() with no await in between, so the slot is its own."""
        if self.ready():
            return
        while True:
            event = anyio.Event()
            self.waiters.append(event)
            try:
                await event.wait()
            except BaseException:
                if event in self.waiters:
                    self.waiters.remove(event)
                else:
                    self._wake_next()  # we were handed a slot: pass it on
                raise
            stream = self._stream()
            if stream is None or self.mode not in (Mode.OPEN, Mode.UPDATING):
                self._wake_next()
                raise errors.ClosedError(f"{stream!r} was closed")
            if self.in_flight < self.max_in_flight:
                if self.waiters and self.in_flight + 1 < self.max_in_flight:
                    self._wake_next()
                return

    def _wake_next(self) -> None:
        if self.waiters:
            self.waiters.popleft().set()

    def decline(self) -> None:
        """The caller was admitted but enqueues nothing (it raises: e.g. what it was to use was
        closed while it waited). admit() woke it alone, for the one slot it was to take: pass
        that turn on, or the submissions queued behind it wait for a completion that may never
        come (nothing else in flight)."""
        if self.waiters and self.in_flight < self.max_in_flight:
            self._wake_next()

    def wake_all(self) -> None:
        """The stream is closing: every waiter finds out."""
        while self.waiters:
            self.waiters.popleft().set()

    # -- submission -------------------------------------------------------------------------

    def track(
        self,
        stream: Stream,
        token: int,
        label: str,
        keep: Any = None,
        arrays: tuple[DeviceArray, ...] = (),
        on_done: Any = None,
    ) -> Completion:
        """Register the Completion for work just enqueued on ``stream`` (this owner's; passed by
        the submitter, which holds it, sparing a weak-reference call per launch) with ``token``."""
        c = _new(Completion)._init(stream, self, label, keep, arrays, on_done)
        self.pending[token] = c
        self.in_flight += 1
        self.last = c
        trace = tracing._active
        if trace is not None:
            trace._on_submit(stream, c)
        return c

    def enqueue_failed(
        self,
        rc: int,
        api: str,
        keep: Any = None,
        arrays: tuple[DeviceArray, ...] = (),
        *,
        work: bool = False,
    ) -> str:
        """Work could not be enqueued: raise (the slot was never taken). If the work itself was
        enqueued but its completion callback was not, it still runs, with no Completion to say
        when it is done: keep what it uses alive, and its arrays busy (held: no stream may
        reuse their memory), until the stream is found idle (release_leftovers) -- or for good,
        if it is abandoned. Unless the runtime refused the callback because the stream's context
        stopped on a failure (stop-on-failure mode): then the ``work`` is over already (it was
        the failure, or is discarded behind it), and this returns the runtime's message for the
        caller to return a Completion failed with ``rc`` (failed_now)."""
        self.decline()
        if self.launched[0]:
            if work and stopped_code(rc):
                return last_error_message() or ""
            for a in arrays:
                a._hold()
            self.orphans.append((keep, arrays))
        check(rc, api)
        raise AssertionError("unreachable: check() raised")

    def failed_now(
        self,
        stream: Stream,
        token: int,
        label: str,
        keep: Any,
        arrays: tuple[DeviceArray, ...],
        rc: int,
        message: str,
        on_done: Any = None,
    ) -> Completion:
        """The Completion of work the runtime took but that is over already, failed with ``rc``
        (see enqueue_failed): tracked and resolved at once, so nothing stays in flight."""
        c = self.track(stream, token, label, keep, arrays, on_done)
        self.resolve(token, rc, message)
        return c

    def complete_after(
        self,
        rc: int,
        api: str,
        label: str,
        keep: Any = None,
        arrays: tuple[DeviceArray, ...] = (),
        model: Any = None,
        on_done: Any = None,
    ) -> Completion:
        """Work was just submitted by this thread with return code ``rc`` (by ``api``; "" when
        there was none, for a marker): enqueue the completion callback behind it and track it.
        ``model``: the work was a replay of that registered model (graph.py). Called after
        ``enter()``."""
        if rc:
            self.launched[0] = 0
            self.enqueue_failed(rc, api)
        if self.capture is not None:
            if not api:
                raise RuntimeError(f"cannot wait for work on {self.stream!r} while it captures into a graph")
            return self.capture.record(label, keep, arrays)
        token = self.new_token()
        if model is None:
            rc = lib.aiocann_cq_enqueue(self.qs, token, 1 if api else 0)
        else:
            rc = lib.aiocann_cq_enqueue_replay(self.qs, token, model)
        if rc:
            # The work was enqueued and runs on without a completion: an orphan the stream's
            # close must wait for -- or, on a stream stopped by a failure, work that is over. A
            # marker (no api) is nothing but its callback: nothing was enqueued, nothing is in
            # flight (e.g. a borrowed stream its owner destroyed).
            self.launched[0] = 1 if api else 0
            return self.submitted(
                self.stream, rc, token, "aclrtLaunchCallback", label, keep, arrays, on_done, bool(api)
            )
        return self.track(self.stream, token, label, keep, arrays, on_done)

    def submitted(
        self,
        stream: Stream,
        rc: int,
        token: int,
        api: str,
        label: str,
        keep: Any = None,
        arrays: tuple[DeviceArray, ...] = (),
        on_done: Any = None,
        work: bool = True,
    ) -> Completion:
        """The one tail of every submission, after the C call that enqueued the work and its
        completion callback with ``token`` returned ``rc``: the Completion, tracked -- or, if
        ``rc`` failed, raised (enqueue_failed) or failed at once (failed_now). Copies and
        markers come here; launch() writes the same lines inline on its fast path, where a
        call would cost more than they do."""
        if rc:
            message = self.enqueue_failed(rc, api, keep, arrays, work=work)
            return self.failed_now(stream, token, label, keep, arrays, rc, message, on_done)
        return self.track(stream, token, label, keep, arrays, on_done)

    # -- resolution (the dispatcher, on the event loop) ------------------------------------

    # resolve(token, code, message) is Lane's (C): the work of ``token`` ended with ``code``:
    # resolve its Completion and account for it (in_flight, last, the next admission waiter,
    # tracing, the stream's failures). Every path that ends a pending Completion comes there
    # (the dispatcher for each completion callback; the watchdog, closing and abandoning, after
    # taking from the Completion what the device may still use). A token not pending comes here:

    def _resolve_late(self, token: int) -> None:
        """Not pending: the callback of a Completion the watchdog failed, if any. The device is
        done with its work at last: release what it held."""
        late = self.timed_out.pop(token, None)
        if late is not None:
            late.release(run_on_done=True)

    # -- stopped streams (the dispatcher, on the event loop; see the top) -------------------

    def task_report(self, token: int, code: int, message: str | None) -> bool:
        """The runtime reported that the work of ``token`` failed; its completion should
        follow. True: the dispatcher is to check on it."""
        if token not in self.pending:
            return False
        self.reports[token] = (code, message)
        return True

    def settled_reports(self) -> bool:
        """Nothing left to check: every reported failure's completion came."""
        for token in [t for t in self.reports if t not in self.pending]:
            del self.reports[token]
        return not self.reports

    def _query(self) -> int:
        stream = self._stream()
        if stream is None:
            return 0
        status = ffi.new("aclrtStreamStatus*")
        handle = self.handle
        rc = int(in_context(self.ctx, lambda: lib.aclrtStreamQuery(handle, status)))
        if rc:
            last_error_message()  # the answer is rc; the thread's message is not left behind
        return rc

    def check_stopped(self) -> bool:
        """Has the stream stopped on a reported failure whose completion has not come? Then
        fail what will never complete -- the failed work with its report, everything after it
        (discarded unrun) with the runtime's code -- and return True. Work before it was run
        and its completions come. (Other streams of the context run what they were given;
        only new work is refused: their completions come.)"""
        self.settled_reports()
        if not self.reports:
            return False
        rc = self._query()
        if not stopped_code(rc):
            return False  # the stream goes on: the completion is on its way
        self.stopped = rc
        first = min(self.reports)
        for token in [t for t in self.pending if t >= first]:
            code, message = self.reports.pop(token, (rc, _DISCARDED))
            self.resolve(token, code, message)
        self.reports.clear()
        return True

    def stream_failure(self, code: int, message: str | None) -> None:
        """A task on this stream that was not aiocann's work failed."""
        self._failed(errors.error_for(code, message, "stream"))

    def _failed(self, error: errors.AclError) -> None:
        if self.first_error is None:
            self.first_error = error
        if self.unreported is None:
            self.unreported = error

    def take_unreported(self) -> errors.AclError | None:
        """What a synchronize point reports: the first failure since the previous one, once
        (as aclrtSynchronizeStream reports a failed task once and then clears it)."""
        e, self.unreported = self.unreported, None
        return e

    def expire(self, boundary: int, timeout: float) -> None:
        """Fail the completions with tokens below ``boundary`` (registered more than
        ``timeout`` seconds ago). Their buffers stay held: the device may still use them."""
        late = [t for t in self.pending if t < boundary]  # dict order: oldest tokens first
        for token in late:
            completion = self.pending[token]
            # Still in use by the device: the lane keeps it (and runs on_done when the late
            # callback arrives, resolve); the Completion resolves with nothing left to release.
            held = completion._give_up()
            message = (
                f"no completion callback for {completion.label} within {timeout:g} s "
                "(device hung or callback lost); its buffers stay allocated until it completes"
            )
            self.resolve(token, _WAIT_TIMEOUT_CODE, message)
            self.timed_out[token] = held

    # -- closing (Stream.aclose) --------------------------------------------------------------

    async def wait_resolved(self) -> None:
        """Wait until every Completion is resolved: by its callback, or failed by the watchdog
        (so this ends within the completion timeout). Callbacks run in order, and the watchdog
        fails the oldest first: the newest one resolved means all are."""
        last = self.last
        if last is not None and not last.done():
            try:
                await last
            except errors.AclError:
                pass  # the stream's failures are reported by whoever closes it

    def settled(self) -> bool:
        """Every Completion was resolved by its callback and nothing was enqueued without one:
        the device has run everything it was given on this stream."""
        return self.in_flight == 0 and not self.timed_out and not self.orphans

    def outstanding(self) -> int:
        """Pieces of work the device may still be running (unresolved, timed out, orphaned)."""
        return self.in_flight + len(self.timed_out) + len(self.orphans)

    def release_leftovers(self) -> None:
        """The stream is being destroyed and the device has finished all its work, but some
        callbacks were not processed (the close did not wait for them): fail those Completions
        -- their outcome is unknown -- and release what they and the timed-out ones held."""
        message = "the stream was closed before this work's completion callback arrived (its outcome is unknown)"
        for token, completion in list(self.pending.items()):
            completion._give_up().release(run_on_done=False)  # outcome unknown: no staging buffer goes back
            self.resolve(token, _WAIT_TIMEOUT_CODE, message)
        for late in self.timed_out.values():
            late.release(run_on_done=False)  # as above
        self.timed_out.clear()
        orphans, self.orphans = self.orphans, []
        for _, arrays in orphans:
            for a in arrays:
                a._unhold()

    def abandon(self) -> list[Any]:
        """The stream is closed while the device may still run its work, which is abandoned:
        fail its Completions that are still pending, and return everything its work uses --
        buffers, args, staging memory -- for the caller to keep alive for good (the device may
        still read and write it; its arrays stay busy, so they are never freed)."""
        message = (
            "abandoned: the stream was closed while the device was still running this work (its buffers stay allocated)"
        )
        held: list[Any] = []
        for token, completion in list(self.pending.items()):
            held.append(_abandoned(completion._give_up()))  # never unused; e.g. no staging block goes back
            self.resolve(token, _WAIT_TIMEOUT_CODE, message)
        for late in self.timed_out.values():
            held.append(_abandoned(late))
        self.timed_out.clear()
        held.extend(self.orphans)
        self.orphans.clear()
        return held

    def loop_ended(self) -> None:
        """The device's event loop ended with the device still open: no loop resolves this
        lane's work any more. The C paths check the thread alone (the loop's identity costs a
        call per launch), so they are shut here -- no launch, replay or await goes in through
        C -- and the Python path's check (DeviceCore.check_owner, thread and loop) raises
        WrongThreadError for another loop of the same thread."""
        self.thread = 0

    def close(self) -> None:
        """The stream is destroyed: no completion will come any more."""
        self.mode = Mode.CLOSED
        self.handle = None
        if self.qs is not None:
            bind_context(self.ctx)
            self._set_native(0, 0, 0)  # before the free: no fast path reaches the queue after it
            lib.aiocann_cq_stream_free(self.qs)
            self.qs = None
            self.dispatcher.unregister(self.key)
        self.orphans.clear()


def _abandoned(late: _Held) -> tuple[Any, tuple[DeviceArray, ...]]:
    """Work abandoned with its stream: what to keep alive for good (a replayed graph's model
    must outlive the replay, so the graph is told)."""
    if isinstance(late.keep, _GraphRecord):
        late.keep.replay_abandoned()
    late.on_done = None
    return (late.keep, late.arrays)
