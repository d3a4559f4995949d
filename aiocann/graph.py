"""``Graph``: stream work captured once and replayed as one submission (ACL Graph).

    async with s.capture() as g:                 # aclmdlRICaptureBegin ... End
        x = await s.upload(host)                 # recorded, not run
        await ac.launch(k, args, blocks=8)       # recorded, not run
    done = await g.launch(stream=s)              # aclmdlRIExecuteAsync: one Completion
    await done

Where it sits: the async face of the runtime's stream capture (``aclmdlRICapture*``,
``aclmdlRIExecuteAsync``, ``aclmdlRIDestroy``; the simulator implements them in
native/sim/capture.c). Inside ``capture()`` the stream's submissions are recorded by the
runtime instead of run; the stream's submission owner (``_submission.py``) then enqueues no
completion callbacks -- a host callback would be captured too and run at every replay -- and
hands back :class:`CapturedWork` in place of Completions: awaiting one raises at once, since
the work runs only when the graph does. A replay costs one task on its stream and resolves one
``Completion``; its failure is the failure of the first captured task that failed.

How a replay's failure reaches its Completion. The runtime reports it on the model's own stream
and the failed captured task (``model_execute_task.cc``), not on the stream that replays it, so
the graph registers its model's streams with the completion queue (``aclmdlRIGetStreams``,
``aiocann_cq_model_new``): reports on them are parked for the replay, whose completion -- a
callback that holds its stream until it has run -- claims them. The runtime makes that report
before the replaying stream goes past the replay (STARS: the callbacks run before the queue is
resumed), so it is parked before the completion runs. What the report cannot say is *which*
replay it is about: so replays of one graph never overlap -- on one stream the blocking
completion orders them, and a replay on another stream than the previous one still in flight
first waits (``aclrtStreamWaitEvent``) for an event recorded behind that one's completion. Two
replays in flight at once then run one after the other, each failing only its own Completion.

Lifetimes: a graph holds everything its captured work uses -- the kernel args, the arrays they
point to, staging buffers -- for as long as it lives. The arrays count as busy from the moment
work using them is recorded, and busy on no stream (any stream may replay the graph), so
closing one defers its release, and its memory is reused by nobody, not even by the capturing
stream, until the graph is destroyed. ``close()`` destroys the model once the replays in flight
are done.

Task groups let a replayed kernel change: ``async with g.group() as grp:`` during capture marks
the launches inside it; later ``async with grp.update(stream=s):`` re-launches them with new
args or blocks, which the runtime swaps into the graph in stream order
(``aclmdlRICaptureTaskGrpBegin/End``, ``aclmdlRICaptureTaskUpdateBegin/End``).
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Awaitable, Generator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal

from . import errors
from ._context import StreamBase, stream_or_current
from ._factory import NoPublicConstructor, create
from ._hotpath import provide
from ._hotpath import replay as _replay
from ._lib import as_int, check, ffi, last_error_message, lib
from .completion import Completion

if TYPE_CHECKING:
    from ._core import DeviceCore
    from ._submission import Submissions
    from .device import Device
    from .memory import DeviceArray
    from .stream import Stream

__all__ = ["CapturedWork", "Graph", "TaskGroup"]

_MODES = {"global": 0, "thread_local": 1, "relaxed": 2}  # aclmdlRICaptureMode
CaptureMode = Literal["global", "thread_local", "relaxed"]


class CapturedWork(Completion):
    """What a submission inside ``stream.capture()`` returns in place of a Completion: the work
    was recorded into the graph, not run. It is never done; awaiting it raises at once (launch
    the graph to run it)."""

    _factory = "a submission inside stream.capture()"
    __slots__ = ("graph",)

    def __init__(self, graph: Graph, stream: Stream, label: str) -> None:  # no device work to track
        self.graph = graph
        self._stream = stream
        self.label = label

    def done(self) -> bool:
        return False

    def exception(self) -> errors.AclError | None:
        return None

    def __await__(self) -> Generator[Any, None, None]:
        raise RuntimeError(
            f"{self.label} was captured into {self.graph!r}, not run: it runs when the graph is "
            "launched (await graph.launch(stream=...))"
        )
        yield  # pragma: no cover - makes this a generator

    def __repr__(self) -> str:
        return f"<CapturedWork {self.label} in {self.graph!r}>"


def _destroy(core: DeviceCore, handle: Any, record: _GraphRecord) -> None:
    """Destroy the model and release the arrays it held: Graph._destroy, or the graph's
    finalizer when it is collected unclosed (no replay is in flight then: each holds it)."""
    core.in_context(lambda: lib.aclmdlRIDestroy(handle))
    if record.arrays:
        core.soon(record.unhold)


class _GraphRecord:
    """The state of one graph, which its public face (:class:`Graph`), its task groups, the
    capture block and the stream's lane share: the lane sees the graph through it while the
    stream captures into it or updates one of its task groups (``Submissions.capture`` /
    ``updating``) and hands it what that work keeps (``record``). What the captured work uses
    is held here for the graph's lifetime; the graph's finalizer holds this record, not the
    graph, so that a graph dropped unclosed still releases what it held."""

    __slots__ = (
        "graph",
        "lane",
        "core",
        "device",
        "stream",
        "state",
        "close_requested",
        "handle",
        "cqm",
        "finalizer",
        "keep",
        "arrays",
        "abandoned",
        "replaying",
        "updates",
        "native",
    )

    def __init__(self, lane: Submissions, stream: Stream) -> None:
        self.graph: weakref.ref[Graph] | None = None  # set by the Graph made of it
        self.lane = lane  # of the capturing stream
        self.core: DeviceCore = lane.core
        self.device: Device = stream.device
        self.stream = stream  # the capturing stream (CapturedWork names it)
        self.state = "capturing"  # capturing -> ready -> closed
        self.close_requested = False
        self.handle: Any = None  # the aclmdlRI, once captured
        self.cqm: Any = None  # the model registered with the completion queue (see above)
        self.finalizer: weakref.finalize[Any, Any] | None = None
        self.keep: list[Any] = []
        # The arrays the recorded work uses, each held busy (DeviceArray._hold) until the graph
        # is destroyed or its capture fails.
        self.arrays: list[DeviceArray] = []
        self.abandoned = False  # a replay was abandoned with its stream: never destroyed
        # The graph, held while replays are in flight: a replay's Completion keeps this record,
        # and a replay abandoned with its stream keeps it -- and so the model -- for good.
        self.replaying: Graph | None = None
        self.updates = 0  # streams updating one of its task groups now (TaskGroup.update)
        # What Graph.launch's fast path (C, _hotpath.replay) needs while the graph is ready:
        # the model's and its registered model's addresses, and the device's core (the owner
        # of the lanes it may replay on). None otherwise.
        self.native: tuple[int, int, DeviceCore] | None = None

    def the_graph(self) -> Graph:
        graph = self.graph() if self.graph is not None else None
        assert graph is not None  # whoever asks (a capture or update block, a replay) holds it
        return graph

    def record(self, label: str, keep: Any, arrays: tuple[DeviceArray, ...]) -> CapturedWork:
        """Work was just recorded into the graph (captured, or launched into a task group's
        update): hold what it uses for the graph's lifetime."""
        self.keep.append(keep)
        for a in arrays:
            a._hold()
        self.arrays.extend(arrays)
        return create(CapturedWork, self.the_graph(), self.stream, label)

    def captured(self, handle: Any) -> None:
        """The capture ended with the model ``handle``: the graph is ready to replay."""
        rc = ffi.new("aclError*")
        cqm = lib.aiocann_cq_model_new(self.lane.dispatcher.cq, handle, rc)
        if cqm == ffi.NULL:  # its failures could not be told: refuse the graph, not run it blind
            lib.aclmdlRIDestroy(handle)
            self.abandon()
            check(rc[0], "aclmdlRIGetStreams")
        self.cqm = cqm
        self.handle = handle
        self.state = "ready"
        self.native = (int(ffi.cast("uintptr_t", handle)), int(ffi.cast("uintptr_t", cqm)), self.core)
        graph = self.the_graph()
        self.finalizer = weakref.finalize(graph, _destroy, self.core, handle, self)
        self.finalizer.atexit = False
        self.core.graphs.add(graph)

    def abandon(self) -> None:
        """The capture failed, or was ended by the device's closing: the model was destroyed
        before it ever ran."""
        self.state = "closed"
        self.native = None
        self.keep.clear()
        self.unhold()

    def replay_abandoned(self) -> None:
        self.abandoned = True

    def unhold(self) -> None:
        held = list(self.arrays)
        self.arrays.clear()
        for a in held:
            a._unhold()


class Graph(metaclass=NoPublicConstructor):
    """A captured model (``aclmdlRI``). Created by ``async with stream.capture() as graph:``;
    ``await graph.launch(stream=s)`` replays it, ``graph.close()`` destroys it."""

    _factory = "async with stream.capture() as graph"

    def __init__(self, rec: _GraphRecord) -> None:
        rec.graph = weakref.ref(self)
        self._rec = rec
        self._replays = 0
        self._groups: list[TaskGroup] = []
        self._order: Any = None  # the event that orders replays across streams, made when needed
        self._last: Submissions | None = None  # the lane of the newest replay in flight

    @property
    def _state(self) -> str:
        """capturing -> ready -> closed (the record's)."""
        return self._rec.state

    # -- public -----------------------------------------------------------------------------

    @property
    def handle(self) -> int:
        """The ``aclmdlRI`` as an int (the value pyACL's ``acl.mdl`` functions take). Raises
        ClosedError while capturing and once closed."""
        if self._rec.state != "ready":
            raise errors.ClosedError(f"{self!r} is not ready")
        return as_int(self._rec.handle)

    @asynccontextmanager
    async def group(self) -> AsyncIterator[TaskGroup]:
        """During capture: the launches inside form a task group that ``update()`` can change
        later (``aclmdlRICaptureTaskGrpBegin`` / ``End``)."""
        if self._rec.state != "capturing":
            raise RuntimeError("task groups are formed during capture")
        lane = self._rec.lane
        self._rec.core.bind()
        check(lib.aclmdlRICaptureTaskGrpBegin(lane.handle), "aclmdlRICaptureTaskGrpBegin")
        handle: list[Any] = [None]
        grp = create(TaskGroup, self, self._rec, handle)
        try:
            yield grp
        finally:
            out = ffi.new("aclrtTaskGrp *")
            self._rec.core.bind()
            check(lib.aclmdlRICaptureTaskGrpEnd(lane.handle, out), "aclmdlRICaptureTaskGrpEnd")
            handle[0] = out[0]
            self._groups.append(grp)

    def launch(self, *, stream: Stream | None = None) -> Awaitable[Completion]:
        """Replay the graph on ``stream`` (default: the task's current stream) as one
        submission (``aclmdlRIExecuteAsync``): ``done = await graph.launch(stream=s)``.

        :returns: one :class:`Completion`, which resolves when every captured task has run and fails
            with the error of the first that failed.
        :raises ClosedError: the graph is still capturing or was closed.
        :raises ValueError: a stream of another Device.
        """
        # The awaitable is C's (native/hotpath.c): when the graph is ready, its previous replay
        # done or on this stream, and the stream open with room, its await makes one C call
        # (the replay and its completion) and makes the Completion, with no coroutine frame;
        # otherwise it awaits _launch, the same in Python with the checks and the waits.
        return _replay(self, stream, self._rec.native)

    async def _launch(self, stream: Stream | None) -> Completion:
        if self._rec.state != "ready":
            raise errors.ClosedError(f"{self!r} is not ready (still capturing, or closed)")
        s = stream_or_current(stream)
        if s.device is not self._rec.device:
            raise ValueError(f"{self!r} belongs to Device({self._rec.device.index}), not {s.device!r}")
        sub = await _lane_of(s).enter()
        if self._rec.state != "ready":  # closed while the replay waited: the model is destroyed
            sub.decline()
            raise errors.ClosedError(f"{self!r} was closed while its replay waited for {s!r}")
        self._after_previous_replay(sub)
        rc = lib.aclmdlRIExecuteAsync(self._rec.handle, sub.handle)
        self._replays += 1
        self._rec.replaying = self  # the replay's Completion keeps the record, and so the graph
        try:
            done = sub.complete_after(rc, "aclmdlRIExecuteAsync", "graph", self._rec, model=self._rec.cqm,
                                      on_done=self._replayed)  # fmt: skip
        except BaseException:
            self._replayed()
            raise
        self._last = sub
        return done

    def _replay_started(self, sub: Submissions, s: Stream) -> tuple[Any, Any]:
        """The fast path replayed the graph on ``s``: the bookkeeping _launch does, and what
        the replay's Completion keeps and runs when the device is done."""
        self._replays += 1
        self._rec.replaying = self  # the replay's Completion keeps the record, and so the graph
        self._last = sub
        return self._rec, self._replayed

    def _replay_failed(self, sub: Submissions, s: Stream, token: int, rc: int) -> Completion:
        """The fast path's replay (token ``token`` on ``s``) failed with ``rc``: what _launch
        does then (Submissions.complete_after's failure paths)."""
        if not sub.launched[0]:  # the replay itself was refused
            sub.enqueue_failed(rc, "aclmdlRIExecuteAsync")
        self._replays += 1  # it runs; its completion callback was refused
        self._rec.replaying = self
        try:
            done = sub.submitted(s, rc, token, "aclrtLaunchCallback", "graph", self._rec, (), self._replayed)
        except BaseException:
            self._replayed()
            raise
        self._last = sub
        return done

    def _after_previous_replay(self, sub: Submissions) -> None:
        """Make a replay on ``sub``'s stream wait for the previous replay still in flight on
        another stream, so that replays of this graph never overlap (see the module docstring):
        an event recorded behind that replay's completion, which holds its stream until it ran."""
        last = self._last
        if not self._replays or last is None or last is sub or not last.submitting() or last.capture is not None:
            return
        self._rec.core.bind()
        if self._order is None:
            out = ffi.new("aclrtEvent*")
            check(lib.aclrtCreateEventWithFlag(out, lib.ACL_EVENT_SYNC), "aclrtCreateEventWithFlag")
            self._order = out[0]
        check(lib.aclrtRecordEvent(self._order, last.handle), "aclrtRecordEvent")
        check(lib.aclrtStreamWaitEvent(sub.handle, self._order), "aclrtStreamWaitEvent")

    def _replayed(self) -> None:
        self._replays -= 1
        if not self._replays:
            self._last = None
            if not self._rec.abandoned:
                self._rec.replaying = None
        if self._rec.close_requested and not self._replays:
            self._destroy()

    def close(self) -> None:
        """Destroy the model (``aclmdlRIDestroy``) -- once the replays in flight are done."""
        if self._rec.state == "closed":
            return
        if self._rec.state == "capturing":
            raise RuntimeError("leave the capture block first")
        if self._rec.updates:
            # What the update block launches is recorded into this graph, and held by it: a
            # graph destroyed meanwhile would hold that for good (and the update would reach a
            # destroyed model).
            raise RuntimeError("leave the task group's update block first")
        self._rec.close_requested = True
        if not self._replays:
            self._destroy()

    def _release(self) -> None:
        """The device is closing: its streams are drained, destroy now -- unless a replay was
        abandoned with its stream (Stream.aclose): the device may still run it, so the model
        and everything it holds stay as they are."""
        if self._rec.state == "ready" and not self._rec.abandoned:
            self._destroy()

    def _destroy(self) -> None:
        self._rec.state = "closed"
        self._rec.native = None
        if self._rec.finalizer is not None:
            self._rec.finalizer()  # binds the device's context itself (also while it closes)
        if self._rec.cqm is not None:  # no replay is in flight: nothing can be reported on it any more
            lib.aiocann_cq_model_free(self._rec.cqm)
            self._rec.cqm = None
        if self._order is not None:
            order, self._order = self._order, None
            self._rec.core.in_context(lambda: lib.aclrtDestroyEvent(order))
        self._last = None
        self._rec.unhold()  # no replay is in flight: the arrays are no longer busy for the graph
        # (the finalizer released them already; this is for a graph that never got one)
        self._rec.keep.clear()

    def __repr__(self) -> str:
        return f"<Graph device={self._rec.device.index} {self._rec.state}>"


class TaskGroup(metaclass=NoPublicConstructor):
    """Captured launches that can be updated between replays. From ``graph.group()``."""

    _factory = "async with graph.group() as group (during capture)"

    def __init__(self, graph: Graph, rec: _GraphRecord, handle: list[Any]) -> None:
        self._graph = graph
        self._rec = rec
        self._handle = handle  # [aclrtTaskGrp], set when the group's capture ends

    @asynccontextmanager
    async def update(self, *, stream: Stream) -> AsyncIterator[None]:
        """Re-launch the group's kernels (same order, new args or blocks) on ``stream``; the
        graph's kernels are replaced when the stream reaches them (replays after that run the
        new ones). ``aclmdlRICaptureTaskUpdateBegin`` / ``End``."""
        g, rec, group = self._graph, self._rec, self._handle[0]
        if rec.state != "ready" or group is None or rec.close_requested:
            raise errors.ClosedError(f"{g!r} is not ready")
        s = stream
        if not isinstance(s, StreamBase):  # only Stream derives from it (_context.py)
            raise TypeError(f"stream must be a Stream (dev.stream()), not {type(s).__name__}")
        if s.device is not rec.device:
            raise ValueError(f"{g!r} belongs to Device({rec.device.index}), not {s.device!r}")
        sub = _lane_of(s)
        sub.begin_update(rec)  # raises ClosedError unless the stream is open
        try:
            sub.core.bind()
            check(lib.aclmdlRICaptureTaskUpdateBegin(sub.handle, group), "aclmdlRICaptureTaskUpdateBegin")
        except BaseException:
            sub.end_update()
            raise
        # Launches on the stream now update the group's kernels: they take launch()'s slow
        # path, which hands the graph what they use.
        rec.updates += 1
        try:
            yield
        finally:
            interrupted = sub.updating is not rec  # the device's closing ended the update (_interrupt)
            if not interrupted:
                rec.updates -= 1
                sub.end_update()
                sub.core.bind()
                check(lib.aclmdlRICaptureTaskUpdateEnd(sub.handle), "aclmdlRICaptureTaskUpdateEnd")
        if interrupted:  # the body succeeded, but the update was ended under it
            raise errors.ClosedError(f"{rec.device!r} was closed during the update: it was not applied")


def _lane_of(stream: Stream) -> Submissions:
    """The stream's lane, which the graph's replays and updates go through."""
    return stream._sub


@asynccontextmanager
async def _capture(stream: Stream, lane: Submissions, mode: CaptureMode = "global") -> AsyncIterator[Graph]:
    """``Stream.capture()``: see the module docstring. The lane records into the graph until
    the block ends."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(_MODES)}, not {mode!r}")
    if lane.mode.value != "open":
        raise errors.ClosedError(f"{stream!r} is not open")
    core = lane.core
    core.bind()
    # Work submitted before the capture keeps its completion callbacks; only what follows is
    # recorded. The completion callbacks already queued are not part of the capture.
    check(lib.aclmdlRICaptureBegin(lane.handle, _MODES[mode]), "aclmdlRICaptureBegin")
    rec = _GraphRecord(lane, stream)
    graph = create(Graph, rec)
    lane.begin_capture(rec)
    ok = False
    try:
        yield graph
        ok = True
    finally:
        if lane.capture is rec:  # else the device's closing ended the capture (_interrupt)
            lane.end_capture()
            out = ffi.new("aclmdlRI *")
            core.bind()
            rc = lib.aclmdlRICaptureEnd(lane.handle, out)
            if rc or not ok:
                if out[0] != ffi.NULL:
                    lib.aclmdlRIDestroy(out[0])
                rec.abandon()
                if ok:
                    check(rc, "aclmdlRICaptureEnd")
            else:
                rec.captured(out[0])
    if rec.state == "closed":  # the body succeeded, but the capture was ended under it
        raise errors.ClosedError(f"{rec.device!r} was closed during the capture: the graph was discarded")


def _interrupt(lane: Submissions) -> None:
    """The device is closing while ``lane``'s stream captures a graph or updates a task group
    (in a task that is still inside that block): end it now -- the runtime would refuse to
    drain or destroy the stream until then -- and discard the capture (its graph never ran:
    what it held goes back) or the unfinished update. The block, when its task resumes,
    raises ClosedError."""
    lane.core.bind_closing()  # the device is closing: bind() would refuse
    captured, updated = lane.interrupt()
    if captured is not None:
        out = ffi.new("aclmdlRI *")
        if lib.aclmdlRICaptureEnd(lane.handle, out):
            last_error_message()  # e.g. the capture was invalidated already: ended either way
        if out[0] != ffi.NULL:
            lib.aclmdlRIDestroy(out[0])
        captured.abandon()
    if updated is not None:
        updated.updates -= 1
        if lib.aclmdlRICaptureTaskUpdateEnd(lane.handle):
            last_error_message()  # an update with kernels still to launch is refused: ended anyway


provide(slow_replay=Graph._launch)  # the Python path of Graph.launch (native/hotpath.c)
