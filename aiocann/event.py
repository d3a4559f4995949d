"""``Event``: a point in a stream, for cross-stream dependencies and timing.

``ev = await s.record()`` records an event after the work enqueued on ``s`` so far.
``await ev`` waits (without blocking the loop) until that work is done; ``s2.wait(ev)`` makes
later work on another stream -- of this device or another -- wait for it on the device;
``end.elapsed_ms(start)`` (or ``end - start``) is the device time between two completed events.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from . import errors
from ._context import current_device
from ._core import core_of
from ._factory import NoPublicConstructor, create
from ._lib import as_int, as_pointer, check, ffi, in_context, lib
from .graph import CapturedWork

if TYPE_CHECKING:
    from .completion import Completion
    from .device import Device

__all__ = ["Event"]


def _destroy(ctx: Any, handle: Any) -> None:
    in_context(ctx, lambda: lib.aclrtDestroyEvent(handle))


def _forget(ctx: Any, handle: Any) -> None:
    """A borrowed event is its owner's to destroy: closing the wrapper only forgets it."""


class _EventRecord:
    """What an Event is in the runtime, for the streams that record and wait for it: its
    ``aclrtEvent`` (``live_handle()``, raising ClosedError once closed) and the Completion of
    its record (set by ``Stream.record``; None for a borrowed event)."""

    __slots__ = ("handle", "completion", "finalizer")

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.completion: Completion | None = None
        self.finalizer: weakref.finalize[Any, Any]  # set by the Event made of it

    def live_handle(self) -> Any:
        """The aclrtEvent for a C call; raises ClosedError once closed."""
        if not self.finalizer.alive:
            raise errors.ClosedError("the event was closed")
        return self.handle

    @property
    def captured(self) -> bool:
        return isinstance(self.completion, CapturedWork)


class Event(metaclass=NoPublicConstructor):
    """An ACL event: a point in a stream's work, for cross-stream dependencies and timing.

    Made by ``await stream.record()``, or around an event other code created by
    :meth:`Event.from_handle`. See the module docstring.
    """

    _factory = "await stream.record(), or Event.from_handle(handle) for an event made by other code"

    __slots__ = ("_device", "_core", "_rec", "_borrowed", "_finalizer", "__weakref__")

    def __init__(self, device: Device, rec: _EventRecord, borrowed: bool = False) -> None:
        handle = rec.handle
        self._device = device
        self._core = core = core_of(device)
        self._borrowed = borrowed
        self._finalizer = weakref.finalize(self, _forget if borrowed else _destroy, core.ctx, handle)
        self._finalizer.atexit = False
        rec.finalizer = self._finalizer
        self._rec = rec
        core.events.add(self)

    @classmethod
    def from_handle(cls, handle: int, *, device: Device | None = None) -> Event:
        """Wrap an event that other code created (pyACL's ``acl.rt.create_event*``, or another
        library), so that aiocann streams can ``wait`` for it and time against it.

        The event is **borrowed**: aiocann never destroys it; ``close()`` (or the device's
        closing) only forgets the wrapper, and the handle stays valid for its owner. aiocann
        does not know when other code records it, so it cannot be awaited: make a stream wait
        for it (``s.wait(ev)``) and await that stream's work instead. ``done()`` asks the
        runtime (``aclrtQueryEventStatus``).

        :param handle: the event as an int (``aclrtEvent``, the value ``acl.rt.create_event``
            returns).
        :param device: the device whose context the event's calls run in (default: the task's
            current device).
        :returns: the borrowed :class:`Event`.
        :raises TypeError: ``handle`` is not an int.
        :raises ValueError: ``handle`` is 0 or out of range.
        :raises InvalidHandleError: the handle is not a live event (the simulator checks; a real
            runtime may crash on garbage pointers).
        :raises ClosedError: ``device`` is not open.
        """
        if device is None:
            device = current_device()
        if isinstance(handle, bool) or not hasattr(type(handle), "__index__"):
            raise TypeError(
                f"handle must be an int (an aclrtEvent, as acl.rt.create_event returns it), not {type(handle).__name__}"
            )
        value = operator.index(handle)
        if not 0 < value < 1 << 64:
            raise ValueError(f"handle {value:#x} is not an event handle (NULL or out of range)")
        core_of(device).bind()
        ptr = as_pointer(value, "aclrtEvent")
        status = ffi.new("aclrtEventRecordedStatus *")
        check(lib.aclrtQueryEventStatus(ptr, status), f"Event.from_handle({value:#x}) on Device({device.index})")
        return create(cls, device, _EventRecord(ptr), borrowed=True)

    def _live_handle(self) -> Any:
        return self._rec.live_handle()

    @property
    def device(self) -> Device:
        """The :class:`Device` the event belongs to."""
        return self._device

    @property
    def handle(self) -> int:
        """The ACL event handle (``aclrtEvent``) as an int: the value pyACL's ``acl.rt.*``
        functions take, e.g. ``acl.rt.stream_wait_event(stream, ev.handle)``. Raises
        ClosedError once the event is closed."""
        return as_int(self._live_handle())

    @property
    def borrowed(self) -> bool:
        """True for an event wrapped with :meth:`from_handle`: aiocann never destroys it."""
        return self._borrowed

    def done(self) -> bool:
        """True once the work before the record has finished. Never blocks."""
        if self._borrowed:
            status = ffi.new("aclrtEventRecordedStatus *")
            self._core.bind()
            check(lib.aclrtQueryEventStatus(self._live_handle(), status), "aclrtQueryEventStatus")
            return bool(status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE)
        completion = self._rec.completion
        return completion is not None and completion.done()

    def __await__(self) -> Generator[Any, None, None]:
        completion = self._rec.completion
        if completion is None:
            raise RuntimeError(
                f"{self!r} was not recorded by aiocann, so there is nothing to await: make a stream wait for it "
                "(s.wait(event)) and await that stream's work (await s.synchronize())"
            )
        return completion.__await__()

    def _timestamp(self) -> int:
        self._core.bind()
        ts = ffi.new("uint64_t*")
        check(lib.aclrtEventGetTimestamp(self._live_handle(), ts), "aclrtEventGetTimestamp")
        return int(ts[0])

    @property
    def timestamp_us(self) -> int:
        """Device time of the record (``aclrtEventGetTimestamp``): microseconds since the device
        started, on that device's own clock -- compare timestamps of one device only. The event
        must have completed."""
        return self._timestamp()

    def elapsed_ms(self, start: Event) -> float:
        """Milliseconds of device time from ``start`` to this event (``aclrtEventElapsedTime``;
        ``end - start`` is the same).

        :param start: an earlier :class:`Event`; both must have completed, with timing.
        :raises TypeError: ``start`` is not an Event.
        :raises EventTimestampError: an event has no timestamp (not completed, or recorded without
            timing), or the end precedes the start.
        :raises ClosedError: an event is closed.
        """
        if not isinstance(start, Event):
            raise TypeError(f"elapsed_ms() takes the start Event, not {type(start).__name__}")
        self._core.bind()
        ms = ffi.new("float*")
        begin = as_pointer(start.handle, "aclrtEvent")  # raises ClosedError once closed
        check(lib.aclrtEventElapsedTime(ms, begin, self._live_handle()), "aclrtEventElapsedTime")
        return float(ms[0])

    def __sub__(self, start: Event) -> float:
        return self.elapsed_ms(start)

    def close(self) -> None:
        """Destroy the event (allowed while its record is pending); a borrowed event is only
        forgotten. Idempotent."""
        self._finalizer()

    def __repr__(self) -> str:
        if not self._finalizer.alive:
            state = "closed"
        elif self._borrowed:
            state = "borrowed"
        else:
            state = "done" if self.done() else "pending"
        return f"<Event device={self._device.index} {state}>"


def _new_event(device: Device, timing: bool, captured: bool = False) -> tuple[Event, _EventRecord]:
    """A new event for ``Stream.record`` to record (an ``Ex`` one inside a capture: only those
    can be recorded there), and its record, whose ``completion`` the stream sets."""
    core_of(device).bind()
    h = ffi.new("aclrtEvent*")
    flags = lib.ACL_EVENT_SYNC | (lib.ACL_EVENT_TIME_LINE if timing else 0)
    if captured:
        check(lib.aclrtCreateEventExWithFlag(h, flags), "aclrtCreateEventExWithFlag")
    else:
        check(lib.aclrtCreateEventWithFlag(h, flags), "aclrtCreateEventWithFlag")
    rec = _EventRecord(h[0])
    return create(Event, device, rec), rec
