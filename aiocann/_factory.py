"""No public constructors: every aiocann object that wraps runtime state comes from its
factory (``dev.stream()``, ``await s.record()``, ``binary.function(name)``, ...), one way each.

Where it sits: a metaclass the handle wrappers of the async core use (STYLE 11; trio's
``NoPublicConstructor`` is the model). Calling such a class raises ``TypeError`` naming its
factory, because an object built by hand would lack what its parent sets up -- a registered
stream, a loaded binary's context, the device's bookkeeping -- and fail later, far from the
mistake. aiocann itself builds instances with :func:`create`, the one way in for parents and
for a class's own alternative constructors alike; the one class built on the launch path,
``Completion``, skips even that call (see completion.py).
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

__all__ = ["NoPublicConstructor", "create"]

_T = TypeVar("_T")


class NoPublicConstructor(type):
    """Metaclass: ``Cls(...)`` raises TypeError naming the class's ``_factory`` (a short text
    such as ``"dev.stream()"``, set in the class body); :func:`create` is the private way in."""

    def __call__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        factory = getattr(cls, "_factory", "its factory")
        raise TypeError(f"aiocann.{cls.__name__} objects are not created directly: use {factory}")


def create(cls: type[_T], *args: Any, **kwargs: Any) -> _T:
    """A new ``cls`` (of the metaclass above), built as a call would: the private constructor
    a parent's factory uses (``create(Stream, device, ...)`` in ``Device.stream``)."""
    return type.__call__(cls, *args, **kwargs)  # type: ignore[no-any-return]
