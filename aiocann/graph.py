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
from ._factory import NoPublicConstructor
from ._hotpath import provide
from ._hotpath import replay as _replay
from ._lib import as_int, bind_context, check, ffi, in_context, last_error_message, lib
from .completion import Completion

if TYPE_CHECKING:
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

    def __init__(self, graph: Graph, label: str) -> None:  # no device work to track
        self.graph = graph
        self._stream = graph._stream
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


def _destroy(device: Device, handle: Any, arrays: list[DeviceArray]) -> None:
    """Destroy the model and release the arrays it held: Graph._destroy, or the graph's
    finalizer when it is collected unclosed (no replay is in flight then: each holds it)."""
    in_context(device._ctx, lambda: lib.aclmdlRIDestroy(handle))
    if arrays:
        device._soon(lambda: _unhold(arrays))


def _unhold(arrays: list[DeviceArray]) -> None:
    held = list(arrays)
    arrays.clear()  # in place: the finalizer holds this list
    for a in held:
        a._unhold()


class Graph(metaclass=NoPublicConstructor):
    """A captured model (``aclmdlRI``). Created by ``async with stream.capture() as graph:``;
    ``await graph.launch(stream=s)`` replays it, ``graph.close()`` destroys it."""

    _factory = "async with stream.capture() as graph"

    def __init__(self, stream: Stream) -> None:
        self._device: Device = stream._device
        self._stream = stream
        self._handle: Any = None
        self._state = "capturing"  # capturing -> ready -> closed
        self._keep: list[Any] = []
        # The arrays the recorded work uses, each held busy (DeviceArray._hold) until the graph
        # is destroyed or its capture fails.
        self._arrays: list[DeviceArray] = []
        self._replays = 0
        self._close_requested = False
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._groups: list[TaskGroup] = []
        self._updates = 0  # streams updating one of its task groups now (TaskGroup.update)
        self._abandoned = False  # a replay was abandoned with its stream: never destroyed
        self._cqm: Any = None  # the model registered with the completion queue (see above)
        self._order: Any = None  # the event that orders replays across streams, made when needed
        self._last: Stream | None = None  # the stream of the newest replay in flight
        # What launch()'s fast path (C, _hotpath.replay) needs while the graph is ready: the
        # model's and its registered model's addresses, and the device (a lane's owner).
        self._native: tuple[int, int, Device] | None = None

    # -- capture (the stream's submission owner calls these) ----------------------------------

    def _record(self, label: str, keep: Any, arrays: tuple[DeviceArray, ...]) -> CapturedWork:
        """Work was just recorded into the graph (captured, or launched into a task group's
        update): hold what it uses for the graph's lifetime."""
        self._keep.append(keep)
        for a in arrays:
            a._hold()
        self._arrays.extend(arrays)
        return CapturedWork._create(self, label)

    def _captured(self, handle: Any) -> None:
        rc = ffi.new("aclError*")
        cqm = lib.aiocann_cq_model_new(self._stream._sub.dispatcher.cq, handle, rc)
        if cqm == ffi.NULL:  # its failures could not be told: refuse the graph, not run it blind
            lib.aclmdlRIDestroy(handle)
            self._abandon()
            check(rc[0], "aclmdlRIGetStreams")
        self._cqm = cqm
        self._handle = handle
        self._state = "ready"
        self._native = (int(ffi.cast("uintptr_t", handle)), int(ffi.cast("uintptr_t", cqm)), self._device)
        # The finalizer holds the arrays list, not the graph: a graph dropped unclosed still
        # releases what it held.
        self._finalizer = weakref.finalize(self, _destroy, self._device, handle, self._arrays)
        self._finalizer.atexit = False
        self._device._graphs.add(self)

    def _abandon(self) -> None:
        """The capture failed: the model was destroyed before it ever ran."""
        self._state = "closed"
        self._keep.clear()
        self._unhold()

    def _unhold(self) -> None:
        _unhold(self._arrays)

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
        s = self._stream
        s._device._bind()
        check(lib.aclmdlRICaptureTaskGrpBegin(s._handle), "aclmdlRICaptureTaskGrpBegin")
        grp = TaskGroup._create(self)
        try:
            yield grp
        finally:
            out = ffi.new("aclrtTaskGrp *")
            s._device._bind()
            check(lib.aclmdlRICaptureTaskGrpEnd(s._handle, out), "aclmdlRICaptureTaskGrpEnd")
            grp._handle = out[0]
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
        return _replay(self, stream, self._native)

    async def _launch(self, stream: Stream | None) -> Completion:
        if self._state != "ready":
            raise errors.ClosedError(f"{self!r} is not ready (still capturing, or closed)")
        s = stream_or_current(stream)
        if s._device is not self._device:
            raise ValueError(f"{self!r} belongs to Device({self._device.index}), not {s.device!r}")
        sub = await s._admit()
        if self._state != "ready":  # closed while the replay waited: the model is destroyed
            sub.decline()
            raise errors.ClosedError(f"{self!r} was closed while its replay waited for {s!r}")
        self._after_previous_replay(s)
        rc = lib.aclmdlRIExecuteAsync(self._handle, s._handle)
        self._replays += 1
        try:
            done = sub.complete_after(rc, "aclmdlRIExecuteAsync", "graph", self, model=self._cqm)
        except BaseException:
            self._replays -= 1
            raise
        self._last = s
        done._on_done = self._replayed
        return done

    def _replay_started(self, sub: Submissions, s: Stream) -> tuple[Any, Any]:
        """The fast path replayed the graph on ``s``: the bookkeeping _launch does, and what
        the replay's Completion keeps and runs when the device is done."""
        self._replays += 1
        self._last = s
        return self, self._replayed

    def _replay_failed(self, sub: Submissions, s: Stream, token: int, rc: int) -> Completion:
        """The fast path's replay (token ``token`` on ``s``) failed with ``rc``: what _launch
        does then (Submissions.complete_after's failure paths)."""
        if not sub.launched[0]:  # the replay itself was refused
            sub.enqueue_failed(rc, "aclmdlRIExecuteAsync")
        self._replays += 1  # it runs; its completion callback was refused
        try:
            message = sub.enqueue_failed(rc, "aclrtLaunchCallback", self, (), work=True)
            done = sub.failed_now(s, token, "graph", self, (), rc, message)
        except BaseException:
            self._replays -= 1
            raise
        self._last = s
        done._on_done = self._replayed
        return done

    def _after_previous_replay(self, s: Stream) -> None:
        """Make a replay on ``s`` wait for the previous replay still in flight on another
        stream, so that replays of this graph never overlap (see the module docstring): an
        event recorded behind that replay's completion, which holds its stream until it ran."""
        last = self._last
        if not self._replays or last is None or last is s or last._state not in ("open", "updating"):
            return
        s._device._bind()
        if self._order is None:
            out = ffi.new("aclrtEvent*")
            check(lib.aclrtCreateEventWithFlag(out, lib.ACL_EVENT_SYNC), "aclrtCreateEventWithFlag")
            self._order = out[0]
        check(lib.aclrtRecordEvent(self._order, last._handle), "aclrtRecordEvent")
        check(lib.aclrtStreamWaitEvent(s._handle, self._order), "aclrtStreamWaitEvent")

    def _replayed(self) -> None:
        self._replays -= 1
        if not self._replays:
            self._last = None
        if self._close_requested and not self._replays:
            self._destroy()

    def close(self) -> None:
        """Destroy the model (``aclmdlRIDestroy``) -- once the replays in flight are done."""
        if self._state == "closed":
            return
        if self._state == "capturing":
            raise RuntimeError("leave the capture block first")
        if self._updates:
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
        if self._state == "ready" and not self._abandoned:
            self._destroy()

    def _replay_abandoned(self) -> None:
        self._abandoned = True

    def _destroy(self) -> None:
        self._state = "closed"
        self._native = None
        if self._finalizer is not None:
            self._finalizer()  # binds the device's context itself (also while it closes)
        if self._cqm is not None:  # no replay is in flight: nothing can be reported on it any more
            lib.aiocann_cq_model_free(self._cqm)
            self._cqm = None
        if self._order is not None:
            order, self._order = self._order, None
            in_context(self._device._ctx, lambda: lib.aclrtDestroyEvent(order))
        self._last = None
        self._unhold()  # no replay is in flight: the arrays are no longer busy for the graph
        # (the finalizer released them already; this is for a graph that never got one)
        self._keep.clear()

    def __repr__(self) -> str:
        return f"<Graph device={self._device.index} {self._state}>"


class TaskGroup(metaclass=NoPublicConstructor):
    """Captured launches that can be updated between replays. From ``graph.group()``."""

    _factory = "async with graph.group() as group (during capture)"

    def __init__(self, graph: Graph) -> None:
        self._graph = graph
        self._handle: Any = None

    @asynccontextmanager
    async def update(self, *, stream: Stream) -> AsyncIterator[None]:
        """Re-launch the group's kernels (same order, new args or blocks) on ``stream``; the
        graph's kernels are replaced when the stream reaches them (replays after that run the
        new ones). ``aclmdlRICaptureTaskUpdateBegin`` / ``End``."""
        g = self._graph
        if g._state != "ready" or self._handle is None or g._close_requested:
            raise errors.ClosedError(f"{g!r} is not ready")
        s = stream
        if not isinstance(s, StreamBase):  # only Stream derives from it (_context.py)
            raise TypeError(f"stream must be a Stream (dev.stream()), not {type(s).__name__}")
        if s._device is not g._device:
            raise ValueError(f"{g!r} belongs to Device({g._device.index}), not {s.device!r}")
        sub = s._sub
        sub.begin_update(g)  # raises ClosedError unless the stream is open
        try:
            s._device._bind()
            check(lib.aclmdlRICaptureTaskUpdateBegin(s._handle, self._handle), "aclmdlRICaptureTaskUpdateBegin")
        except BaseException:
            sub.end_update()
            raise
        # Launches on the stream now update the group's kernels: they take launch()'s slow
        # path, which hands the graph what they use.
        g._updates += 1
        try:
            yield
        finally:
            interrupted = sub.updating is not g  # the device's closing ended the update (_interrupt)
            if not interrupted:
                g._updates -= 1
                sub.end_update()
                s._device._bind()
                check(lib.aclmdlRICaptureTaskUpdateEnd(s._handle), "aclmdlRICaptureTaskUpdateEnd")
        if interrupted:  # the body succeeded, but the update was ended under it
            raise errors.ClosedError(f"{s._device!r} was closed during the update: it was not applied")


@asynccontextmanager
async def _capture(stream: Stream, mode: CaptureMode = "global") -> AsyncIterator[Graph]:
    """``Stream.capture()``: see the module docstring."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(_MODES)}, not {mode!r}")
    if stream._state != "open":
        raise errors.ClosedError(f"{stream!r} is not open")
    dev = stream._device
    dev._bind()
    # Work submitted before the capture keeps its completion callbacks; only what follows is
    # recorded. The completion callbacks already queued are not part of the capture.
    check(lib.aclmdlRICaptureBegin(stream._handle, _MODES[mode]), "aclmdlRICaptureBegin")
    graph = Graph._create(stream)
    sub = stream._sub
    sub.begin_capture(graph)
    ok = False
    try:
        yield graph
        ok = True
    finally:
        if sub.capture is graph:  # else the device's closing ended the capture (_interrupt)
            sub.end_capture()
            out = ffi.new("aclmdlRI *")
            dev._bind()
            rc = lib.aclmdlRICaptureEnd(stream._handle, out)
            if rc or not ok:
                if out[0] != ffi.NULL:
                    lib.aclmdlRIDestroy(out[0])
                graph._abandon()
                if ok:
                    check(rc, "aclmdlRICaptureEnd")
            else:
                graph._captured(out[0])
    if graph._state == "closed":  # the body succeeded, but the capture was ended under it
        raise errors.ClosedError(f"{dev!r} was closed during the capture: the graph was discarded")


def _interrupt(stream: Stream) -> None:
    """The device is closing while ``stream`` captures a graph or updates a task group (in a
    task that is still inside that block): end it now -- the runtime would refuse to drain or
    destroy the stream until then -- and discard the capture (its graph never ran: what it held
    goes back) or the unfinished update. The block, when its task resumes, raises
    ClosedError."""
    sub = stream._sub
    bind_context(stream._device._ctx)  # the device is closing: _bind() would refuse
    graph, updated = sub.interrupt()
    if graph is not None:
        out = ffi.new("aclmdlRI *")
        if lib.aclmdlRICaptureEnd(stream._handle, out):
            last_error_message()  # e.g. the capture was invalidated already: ended either way
        if out[0] != ffi.NULL:
            lib.aclmdlRIDestroy(out[0])
        graph._abandon()
    if updated is not None:
        updated._updates -= 1
        if lib.aclmdlRICaptureTaskUpdateEnd(stream._handle):
            last_error_message()  # an update with kernels still to launch is refused: ended anyway


provide(slow_replay=Graph._launch)  # the Python path of Graph.launch (native/hotpath.c)
