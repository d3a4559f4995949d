"""``Event``: a point in a stream, for cross-stream dependencies and timing.

``ev = await s.record()`` records an event after the work enqueued on ``s`` so far.
``await ev`` waits (without blocking the loop) until that work is done; ``s2.wait(ev)`` makes
later work on another stream -- of this device or another -- wait for it on the device;
``end.elapsed_ms(start)`` (or ``end - start``) is the device time between two completed events.
"""

from __future__ import annotations

import weakref
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from . import errors
from ._lib import check, ffi, in_context, lib

if TYPE_CHECKING:
    from .completion import Completion
    from .device import Device

__all__ = ["Event"]


def _destroy(ctx: Any, handle: Any) -> None:
    in_context(ctx, lambda: lib.aclrtDestroyEvent(handle))


class Event:
    """An ACL event recorded on a stream. Created by ``Stream.record()``."""

    __slots__ = ("_device", "_handle", "_completion", "_finalizer", "__weakref__")

    def __init__(self, device: Device, handle: Any) -> None:
        self._device = device
        self._handle = handle
        self._completion: Completion | None = None
        self._finalizer = weakref.finalize(self, _destroy, device._ctx, handle)
        self._finalizer.atexit = False

    @classmethod
    def _create(cls, device: Device, timing: bool, captured: bool = False) -> Event:
        device._bind()
        h = ffi.new("aclrtEvent*")
        flags = lib.ACL_EVENT_SYNC | (lib.ACL_EVENT_TIME_LINE if timing else 0)
        if captured:  # only events of the Ex kind can be recorded in a capture
            check(lib.aclrtCreateEventExWithFlag(h, flags), "aclrtCreateEventExWithFlag")
        else:
            check(lib.aclrtCreateEventWithFlag(h, flags), "aclrtCreateEventWithFlag")
        event = cls(device, h[0])
        device._events.add(event)
        return event

    def _captured(self) -> bool:
        from .graph import CapturedWork

        return isinstance(self._completion, CapturedWork)

    @property
    def device(self) -> Device:
        return self._device

    @property
    def handle(self) -> Any:
        if not self._finalizer.alive:
            raise errors.ClosedError("the event was closed")
        return self._handle

    def done(self) -> bool:
        """True once the work before the record has finished."""
        return self._completion is not None and self._completion.done()

    def __await__(self) -> Generator[Any, None, None]:
        assert self._completion is not None
        return self._completion.__await__()

    def _timestamp(self) -> int:
        self._device._bind()
        ts = ffi.new("uint64_t*")
        check(lib.aclrtEventGetTimestamp(self.handle, ts), "aclrtEventGetTimestamp")
        return int(ts[0])

    @property
    def timestamp_us(self) -> int:
        """Device time of the record (``aclrtEventGetTimestamp``): microseconds since the device
        started, on that device's own clock -- compare timestamps of one device only. The event
        must have completed."""
        return self._timestamp()

    def elapsed_ms(self, start: Event) -> float:
        """Milliseconds of device time from ``start`` to this event (both completed)."""
        if not isinstance(start, Event):
            raise TypeError(f"elapsed_ms() takes the start Event, not {type(start).__name__}")
        self._device._bind()
        ms = ffi.new("float*")
        check(lib.aclrtEventElapsedTime(ms, start.handle, self.handle), "aclrtEventElapsedTime")
        return float(ms[0])

    def __sub__(self, start: Event) -> float:
        return self.elapsed_ms(start)

    def close(self) -> None:
        """Destroy the event (allowed while its record is pending)."""
        self._finalizer()

    def __repr__(self) -> str:
        state = "closed" if not self._finalizer.alive else ("done" if self.done() else "pending")
        return f"<Event device={self._device.index} {state}>"
