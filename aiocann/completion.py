"""``Completion``: the awaitable result of work enqueued on a stream.

A Completion is resolved by the device's dispatcher (``_dispatch.py``) when the stream's
completion callback for that work arrives -- never by polling. Until then it holds what the
device may still be using (the kernel's args, the arrays it reads and writes, staging buffers),
so nothing is freed early; resolution drops those references.

Awaiting is cancellation-safe: device work cannot be recalled, so cancelling the awaiting task
only detaches it. The Completion is still resolved, and its resources still released, when the
device is done.
"""

from __future__ import annotations

from asyncio import CancelledError
from asyncio import _get_running_loop as _running_loop
from collections.abc import Callable, Generator
from threading import get_ident as _get_ident
from typing import TYPE_CHECKING, Any

from . import errors
from ._factory import NoPublicConstructor
from ._hotpath import CompletionBase, provide

if TYPE_CHECKING:
    from ._submission import Submissions
    from .memory import DeviceArray
    from .stream import Stream

__all__ = ["Completion"]

_new = object.__new__  # Completion's private constructor: ``_new(Completion)._init(...)``


class Completion(CompletionBase, metaclass=NoPublicConstructor):
    """The awaitable result of work enqueued on a stream: ``await completion`` returns None
    when the device has done the work, and raises the work's :class:`AclError` if it failed.

    Returned by :func:`aiocann.launch` and by stream operations that return before the work is
    done (``Stream.copy``, ``Stream.memset``, ``Stream.copy_from_host``, ``Graph.launch``...);
    not created directly. ``label`` says what the work is (the kernel's name, ``"upload"``...).
    Awaiting from another thread or event loop than the device's raises
    :class:`~aiocann.WrongThreadError`; cancelling the await detaches the waiter only. Awaiting
    finished work returns without a trip through the event loop: on asyncio like a finished
    future, on trio as a cancel point.
    """

    _factory = "aiocann.launch() or a stream operation (s.copy(), s.memset(), ...)"

    # The fields (``_stream``, ``_lane``, ``_keep``, ``_arrays``, ``_on_done``, ``_done``,
    # ``_code``, ``_message``, ``_waiters``, ``label``), ``_resolve`` and ``__await__`` are
    # CompletionBase's, in C (native/hotpath.c): launch()'s fast path makes Completions there, and
    # the dispatcher's drain resolves them there. What stays here is what no hot path calls.
    __slots__ = ()

    # Built once per launch, so not through _factory.create: the submission owner
    # makes it with ``_new(Completion)._init(...)``, which is cheaper than a constructor call
    # (object.__new__ plus one method call, no type.__call__ dispatch to __init__).
    def _init(
        self,
        stream: Stream,
        lane: Submissions,
        label: str,
        keep: Any = None,
        arrays: tuple[DeviceArray, ...] = (),
        on_done: Callable[[], None] | None = None,
    ) -> Completion:
        self._stream = stream
        self._lane = lane  # the stream's lane: it resolves this, and knows the device's loop
        self._keep = keep
        self._arrays = arrays
        for a in arrays:  # DeviceArray's busy accounting, inlined: this runs for every launch
            a._busy += 1
            if a._stream is stream:
                a._busy_on += 1
            else:
                a._stream = stream
                a._busy_on = 1
        self._on_done = on_done
        self._done = False
        self._code = 0
        self._message: str | None = None
        self._waiters: list[Any] | None = None
        self.label = label
        return self

    # -- called by the lane, on the event loop ------------------------------------------

    def _give_up(self) -> _Held:
        """What the device may still use of this unresolved work, taken away for its lane to
        keep (the watchdog failed it, or its stream closes under it): resolving it then
        releases nothing and runs no ``on_done``."""
        held = _Held(self._stream, self._keep, self._arrays, self._on_done)
        self._keep, self._arrays, self._on_done = None, (), None
        return held

    # _resolve(code, message) -- called by the dispatcher, on the event loop -- is in C
    # (CompletionBase): it drops what the device used (the arrays' busy counts, the kept args),
    # runs on_done whatever the outcome (staging buffers back, graph replays ended; paths where
    # the device may still run the work take on_done away first), then wakes every waiter.

    # -- public -------------------------------------------------------------------------

    @property
    def stream(self) -> Stream:
        """The stream the work was enqueued on."""
        return self._stream

    def done(self) -> bool:
        """True once the device has finished (or failed) this work. Never blocks."""
        return self._done

    def exception(self) -> errors.AclError | None:
        """The :class:`AclError` of finished work that failed; None if it succeeded or is still
        pending. Never blocks."""
        if not self._done or not self._code:
            return None
        return errors.error_for(self._code, self._message, self.label)

    def __repr__(self) -> str:
        state = "pending" if not self._done else ("failed" if self._code else "done")
        return f"<Completion {self.label} {state}>"


class _Held:
    """What the device may still use of a Completion taken from it before its work is known to
    be done (``Completion._give_up``): the watchdog failed it, or its stream is being closed
    or abandoned. The lane keeps this record until the work ends, or keeps it alive for good."""

    __slots__ = ("stream", "keep", "arrays", "on_done")

    def __init__(self, stream: Stream, keep: Any, arrays: tuple[DeviceArray, ...], on_done: Any) -> None:
        self.stream = stream  # the arrays count their work by stream (DeviceArray.unuse)
        self.keep = keep
        self.arrays = arrays
        self.on_done = on_done

    def release(self, *, run_on_done: bool) -> None:
        """The work has ended (its callback came, or its stream was destroyed idle): its arrays
        are idle again, and ``on_done`` runs if the work is known to have finished."""
        arrays, self.arrays = self.arrays, ()
        self.keep = None
        for a in arrays:
            a._unuse(self.stream)
        on_done, self.on_done = self.on_done, None
        if run_on_done and on_done is not None:
            on_done()


def _await(self: Completion) -> Generator[Any, None, None]:
    """The Python path of ``await completion`` (CompletionBase.__await__ in C takes asyncio's
    finished and pending work itself): trio, whose waits and cancel points are its own."""
    lane = self._lane  # the device's owner and loop, one step away
    if self._done:
        if _get_ident() != lane.thread:
            lane.wrong_thread()
        # The common case when a batch of completions is awaited. No trip through the event
        # loop, and each backend's own semantics for finished work: on asyncio, that of a
        # finished future (it returns at once; a pending cancellation lands at the task's
        # next suspension), on trio a cancel point, as trio's own operations are. Not
        # anyio.lowlevel.checkpoint_if_cancelled(): on asyncio it looks the task's cancel
        # scopes up through anyio's backend, several microseconds per await here.
        if lane.loop is None:
            try:
                yield from lane.flavour.checkpoint_if_cancelled().__await__()
            except RuntimeError:  # not in a trio run: e.g. asyncio on the device's thread
                if not lane.on_own_loop():
                    lane.wrong_thread()
                raise
    else:
        # The loop's own primitives rather than anyio.Event, and each waiter is detached
        # alone if its task is cancelled.
        if self._waiters is None:
            self._waiters = []
        waiters = self._waiters
        loop = lane.loop
        if loop is not None:
            if _get_ident() != lane.thread:
                lane.wrong_thread()
            fut = loop.create_future()
            waiters.append(fut)
            try:
                yield from fut
            except BaseException as exc:
                # Cancelled (asyncio has cancelled fut by now, so it counts as done), or the
                # coroutine closed: detach this waiter only. An except, not a finally: the
                # common path pays nothing.
                waiters.remove(fut)
                # Another event loop of the device's thread refuses to wait for our loop's
                # future, and throws that in here. Checked only now: on Python 3.11,
                # asyncio._get_running_loop() costs a getpid() system call.
                if not isinstance(exc, (GeneratorExit, CancelledError)) and _running_loop() is not loop:
                    lane.wrong_thread()
                raise
        else:
            # Another trio run of the device's thread: the device's run has ended, and with
            # it the dispatcher's task. Asked of trio only then (it costs a microsecond).
            if _get_ident() != lane.thread or (not lane.dispatcher.draining and not lane.on_own_loop()):
                lane.wrong_thread()
            yield from lane.flavour.wait(waiters).__await__()
    if self._code:
        raise errors.error_for(self._code, self._message, self.label)


# What Completion's C side (native/hotpath.c) works with: the class it makes, the Python path of
# the await, and the errors a failed Completion raises.
provide(completion=Completion, slow_await=_await, error_for=errors.error_for)
