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
from collections.abc import AsyncIterator, Generator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal

from . import errors
from ._context import StreamBase, stream_or_current
from ._factory import NoPublicConstructor, create
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
    """What a graph's captured work uses, held for the graph's lifetime -- and the graph as the
    stream's lane sees it while the stream captures into it or updates one of its task groups
    (``Submissions.capture`` / ``updating``): the lane hands it what that work keeps
    (``record``). The graph's finalizer holds this record, not the graph, so that a graph
    dropped unclosed still releases what it held."""

    __slots__ = ("graph", "stream", "keep", "arrays", "abandoned", "replaying", "updates")

    def __init__(self, graph: Graph, stream: Stream) -> None:
        self.graph = weakref.ref(graph)
        self.stream = stream  # the capturing stream (CapturedWork names it)
        self.keep: list[Any] = []
        # The arrays the recorded work uses, each held busy (DeviceArray._hold) until the graph
        # is destroyed or its capture fails.
        self.arrays: list[DeviceArray] = []
        self.abandoned = False  # a replay was abandoned with its stream: never destroyed
        # The graph, held while replays are in flight: a replay's Completion keeps this record,
        # and a replay abandoned with its stream keeps it -- and so the model -- for good.
        self.replaying: Graph | None = None
        self.updates = 0  # streams updating one of its task groups now (TaskGroup.update)

    def record(self, label: str, keep: Any, arrays: tuple[DeviceArray, ...]) -> CapturedWork:
        """Work was just recorded into the graph (captured, or launched into a task group's
        update): hold what it uses for the graph's lifetime."""
        graph = self.graph()
        assert graph is not None  # the capture or update block holds it
        self.keep.append(keep)
        for a in arrays:
            a._hold()
        self.arrays.extend(arrays)
        return create(CapturedWork, graph, self.stream, label)

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

    def __init__(self, lane: Submissions, stream: Stream) -> None:
        self._device: Device = stream.device
        self._core: DeviceCore = lane.core
        self._lane = lane  # of the capturing stream
        self._handle: Any = None
        self._state = "capturing"  # capturing -> ready -> closed
        self._rec = _GraphRecord(self, stream)
        self._replays = 0
        self._close_requested = False
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._groups: list[TaskGroup] = []
        self._cqm: Any = None  # the model registered with the completion queue (see above)
        self._order: Any = None  # the event that orders replays across streams, made when needed
        self._last: Submissions | None = None  # the lane of the newest replay in flight

    # -- capture (_capture below) -------------------------------------------------------------

    def _captured(self, handle: Any) -> None:
        rc = ffi.new("aclError*")
        cqm = lib.aiocann_cq_model_new(self._lane.dispatcher.cq, handle, rc)
        if cqm == ffi.NULL:  # its failures could not be told: refuse the graph, not run it blind
            lib.aclmdlRIDestroy(handle)
            self._abandon()
            check(rc[0], "aclmdlRIGetStreams")
        self._cqm = cqm
        self._handle = handle
        self._state = "ready"
        # The finalizer holds the record, not the graph: a graph dropped unclosed still
        # releases what it held.
        self._finalizer = weakref.finalize(self, _destroy, self._core, handle, self._rec)
        self._finalizer.atexit = False
        self._core.graphs.add(self)

    def _abandon(self) -> None:
        """The capture failed: the model was destroyed before it ever ran."""
        self._state = "closed"
        self._rec.keep.clear()
        self._rec.unhold()

    # -- public -----------------------------------------------------------------------------

    @property
    def handle(self) -> int:
        """The ``aclmdlRI`` as an int (the value pyACL's ``acl.mdl`` functions take). Raises
        ClosedError while capturing and once closed."""
        if self._state != "ready":
            raise errors.ClosedError(f"{self!r} is not ready")
        return as_int(self._handle)

    @asynccontextmanager
    async def group(self) -> AsyncIterator[TaskGroup]:
        """During capture: the launches inside form a task group that ``update()`` can change
        later (``aclmdlRICaptureTaskGrpBegin`` / ``End``)."""
        if self._state != "capturing":
            raise RuntimeError("task groups are formed during capture")
        lane = self._lane
        self._core.bind()
        check(lib.aclmdlRICaptureTaskGrpBegin(lane.handle), "aclmdlRICaptureTaskGrpBegin")
        handle: list[Any] = [None]
        grp = TaskGroup._create(self, handle)
        try:
            yield grp
        finally:
            out = ffi.new("aclrtTaskGrp *")
            self._core.bind()
            check(lib.aclmdlRICaptureTaskGrpEnd(lane.handle, out), "aclmdlRICaptureTaskGrpEnd")
            handle[0] = out[0]
            self._groups.append(grp)

    async def launch(self, *, stream: Stream | None = None) -> Completion:
        """Replay the graph on ``stream`` (default: the task's current stream) as one
        submission (``aclmdlRIExecuteAsync``).

        :returns: one :class:`Completion`, which resolves when every captured task has run and fails
            with the error of the first that failed.
        :raises ClosedError: the graph is still capturing or was closed.
        :raises ValueError: a stream of another Device.
        """
        if self._state != "ready":
            raise errors.ClosedError(f"{self!r} is not ready (still capturing, or closed)")
        s = stream_or_current(stream)
        if s.device is not self._device:
            raise ValueError(f"{self!r} belongs to Device({self._device.index}), not {s.device!r}")
        sub = await s._sub.enter()
        if self._state != "ready":  # closed while the replay waited: the model is destroyed
            sub.decline()
            raise errors.ClosedError(f"{self!r} was closed while its replay waited for {s!r}")
        self._after_previous_replay(sub)
        rc = lib.aclmdlRIExecuteAsync(self._handle, sub.handle)
        self._replays += 1
        self._rec.replaying = self  # the replay's Completion keeps the record, and so the graph
        try:
            done = sub.complete_after(rc, "aclmdlRIExecuteAsync", "graph", self._rec, model=self._cqm,
                                      on_done=self._replayed)  # fmt: skip
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
        self._core.bind()
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
        if self._close_requested and not self._replays:
            self._destroy()

    def close(self) -> None:
        """Destroy the model (``aclmdlRIDestroy``) -- once the replays in flight are done."""
        if self._state == "closed":
            return
        if self._state == "capturing":
            raise RuntimeError("leave the capture block first")
        if self._rec.updates:
            # What the update block launches is recorded into this graph, and held by it: a
            # graph destroyed meanwhile would hold that for good (and the update would reach a
            # destroyed model).
            raise RuntimeError("leave the task group's update block first")
        self._close_requested = True
        if not self._replays:
            self._destroy()

    def _release(self) -> None:
        """The device is closing: its streams are drained, destroy now -- unless a replay was
        abandoned with its stream (Stream.aclose): the device may still run it, so the model
        and everything it holds stay as they are."""
        if self._state == "ready" and not self._rec.abandoned:
            self._destroy()

    def _destroy(self) -> None:
        self._state = "closed"
        if self._finalizer is not None:
            self._finalizer()  # binds the device's context itself (also while it closes)
        if self._cqm is not None:  # no replay is in flight: nothing can be reported on it any more
            lib.aiocann_cq_model_free(self._cqm)
            self._cqm = None
        if self._order is not None:
            order, self._order = self._order, None
            self._core.in_context(lambda: lib.aclrtDestroyEvent(order))
        self._last = None
        self._rec.unhold()  # no replay is in flight: the arrays are no longer busy for the graph
        # (the finalizer released them already; this is for a graph that never got one)
        self._rec.keep.clear()

    @asynccontextmanager
    async def _capture(self, mode: CaptureMode) -> AsyncIterator[Graph]:
        """The capture block (``Stream.capture``, ``_capture``): the lane records into this
        graph until it ends."""
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {', '.join(_MODES)}, not {mode!r}")
        lane, core = self._lane, self._core
        if lane.mode.value != "open":
            raise errors.ClosedError(f"{lane.stream!r} is not open")
        core.bind()
        # Work submitted before the capture keeps its completion callbacks; only what follows is
        # recorded. The completion callbacks already queued are not part of the capture.
        check(lib.aclmdlRICaptureBegin(lane.handle, _MODES[mode]), "aclmdlRICaptureBegin")
        lane.begin_capture(self._rec)
        ok = False
        try:
            yield self
            ok = True
        finally:
            if lane.capture is self._rec:  # else the device's closing ended the capture (_interrupt)
                lane.end_capture()
                out = ffi.new("aclmdlRI *")
                core.bind()
                rc = lib.aclmdlRICaptureEnd(lane.handle, out)
                if rc or not ok:
                    if out[0] != ffi.NULL:
                        lib.aclmdlRIDestroy(out[0])
                    self._abandon()
                    if ok:
                        check(rc, "aclmdlRICaptureEnd")
                else:
                    self._captured(out[0])
        if self._state == "closed":  # the body succeeded, but the capture was ended under it
            raise errors.ClosedError(f"{self._device!r} was closed during the capture: the graph was discarded")

    @asynccontextmanager
    async def _update(self, group: Any, s: Stream) -> AsyncIterator[None]:
        """``TaskGroup.update``: launches on ``s`` meanwhile update the task group ``group``."""
        if self._state != "ready" or group is None or self._close_requested:
            raise errors.ClosedError(f"{self!r} is not ready")
        if not isinstance(s, StreamBase):  # only Stream derives from it (_context.py)
            raise TypeError(f"stream must be a Stream (dev.stream()), not {type(s).__name__}")
        if s.device is not self._device:
            raise ValueError(f"{self!r} belongs to Device({self._device.index}), not {s.device!r}")
        sub, rec = s._sub, self._rec
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
            raise errors.ClosedError(f"{self._device!r} was closed during the update: it was not applied")

    def __repr__(self) -> str:
        return f"<Graph device={self._device.index} {self._state}>"


class TaskGroup(metaclass=NoPublicConstructor):
    """Captured launches that can be updated between replays. From ``graph.group()``."""

    _factory = "async with graph.group() as group (during capture)"

    def __init__(self, graph: Graph, handle: list[Any]) -> None:
        self._graph = graph
        self._handle = handle  # [aclrtTaskGrp], set when the group's capture ends

    def update(self, *, stream: Stream) -> AbstractAsyncContextManager[None]:
        """Re-launch the group's kernels (same order, new args or blocks) on ``stream``; the
        graph's kernels are replaced when the stream reaches them (replays after that run the
        new ones). ``aclmdlRICaptureTaskUpdateBegin`` / ``End``."""
        return self._graph._update(self._handle[0], stream)


def _capture(stream: Stream, lane: Submissions, mode: CaptureMode = "global") -> AbstractAsyncContextManager[Graph]:
    """``Stream.capture()``: see the module docstring."""
    return create(Graph, lane, stream)._capture(mode)


def _interrupt(lane: Submissions) -> None:
    """The device is closing while ``lane``'s stream captures a graph or updates a task group (in a
    task that is still inside that block): end it now -- the runtime would refuse to drain or
    destroy the stream until then -- and discard the capture (its graph never ran: what it held
    goes back) or the unfinished update. The block, when its task resumes, raises
    ClosedError."""
    lane.core.bind_closing()  # the device is closing: bind() would refuse
    captured, updated = lane.interrupt()
    if captured is not None:
        out = ffi.new("aclmdlRI *")
        if lib.aclmdlRICaptureEnd(lane.handle, out):
            last_error_message()  # e.g. the capture was invalidated already: ended either way
        if out[0] != ffi.NULL:
            lib.aclmdlRIDestroy(out[0])
        graph = captured.graph()
        if graph is not None:
            graph._abandon()
    if updated is not None:
        updated.updates -= 1
        if lib.aclmdlRICaptureTaskUpdateEnd(lane.handle):
            last_error_message()  # an update with kernels still to launch is refused: ended anyway
