"""The task's current device and stream: the floor every module of the async core stands on.

``async with Device(i)`` and ``async with dev.stream()`` make their object the calling task's
*current* one (a contextvar each, so two tasks on one loop never see each other's); every
``stream=None`` / ``device=None`` argument falls back to them. They live here, below every
other module -- this file imports nothing of aiocann -- so that any module can reach them with
a module-level import: before, they lived in device.py and stream.py, and every module that
needed them imported those inside a function body to dodge an import circle.

``stream_or_current`` must tell a stream from anything else without importing stream.py:
:class:`StreamBase` is the (empty) class :class:`~aiocann.stream.Stream` derives from.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .device import Device
    from .stream import Stream

__all__ = ["StreamBase", "current_device", "current_stream", "enter", "leave", "stream_or_current"]

_T = TypeVar("_T")

# Read by launch()'s hot path as a module global of its own (``_current_stream.get()``).
_current_device: ContextVar[Device | None] = ContextVar("aiocann_current_device", default=None)
_current_stream: ContextVar[Stream | None] = ContextVar("aiocann_current_stream", default=None)


class StreamBase:
    """What :func:`stream_or_current` accepts as a stream: :class:`~aiocann.stream.Stream`
    derives from it (and nothing else does). It has no state of its own."""

    __slots__ = ()


def current_device() -> Device:
    """The device of the innermost ``async with Device(...)`` in the calling task.

    :raises RuntimeError: the task is in no ``async with Device`` block.
    """
    dev = _current_device.get()
    if dev is None:
        raise RuntimeError("no current device: use `async with aiocann.Device(i) as dev:`")
    return dev


def current_stream() -> Stream:
    """The stream of the innermost ``async with dev.stream()`` in the calling task.

    :raises RuntimeError: the task is in no ``async with`` stream block.
    """
    s = _current_stream.get()
    if s is None:
        raise RuntimeError("no current stream: pass stream=... or use `async with dev.stream() as s:`")
    return s


def stream_or_current(stream: Any) -> Stream:
    """A ``stream=`` argument: the stream itself, or the current stream when None."""
    if stream is None:
        return current_stream()
    if not isinstance(stream, StreamBase):
        raise TypeError(f"stream must be a Stream (dev.stream()), not {type(stream).__name__}")
    return stream  # type: ignore[return-value]  # only Stream derives from StreamBase


def enter(var: ContextVar[_T | None], value: _T) -> Token[_T | None]:
    """Make ``value`` the task's current one (entering its ``async with`` block); the token
    goes back to :func:`leave`."""
    return var.set(value)


def leave(var: ContextVar[_T | None], value: _T, token: Token[_T | None] | None) -> None:
    """Leave ``value``'s block: restore what was current before it -- only if ``value`` is still
    current, since blocks (of several devices, several streams) may close in any order."""
    if token is None or var.get() is not value:
        return
    try:
        var.reset(token)
    except ValueError:  # entered in another context (e.g. a fixture's task)
        var.set(None)


# Their public homes (as trio's fixup_module_metadata does): the docs, reprs and pickles name
# aiocann.device.current_device and aiocann.stream.current_stream, which re-export them.
current_device.__module__ = "aiocann.device"
current_stream.__module__ = "aiocann.stream"
