"""Argument conversion for the pyACL facade: Python values in, C values out, as pyACL does it.

pyACL is a C extension whose wrappers parse their arguments with ``PyArg_ParseTuple`` and, when
parsing fails, replace whatever error the parser set with ``TypeError("acl.rt.<name> args parse
failed")``. The helpers here reproduce the formats pyACL uses, so a program gets the same
values and the same exception types on aiocann as on pyACL:

* ``k`` / ``K`` (handles, addresses, sizes, thread ids): any integer, reduced modulo 2**64 with
  no overflow check -- ``-1`` becomes ``0xFFFF_FFFF_FFFF_FFFF`` and reaches the runtime, which
  then reports a bad handle or pointer as a return code;
* ``I`` (unsigned flags): any integer, reduced modulo 2**32;
* ``i`` (device ids, timeouts, enums): an integer that must fit int32, else TypeError;
* ``s`` (paths, kernel names): a ``str`` without NUL characters, encoded as UTF-8.

One deliberate widening: where pyACL accepts only ``int``, these accept any object with
``__index__`` (numpy integers, for instance). That never changes what a working pyACL program
does; it only lets through values pyACL would have refused.

This module sits under :mod:`aiocann.acl.rt` and :mod:`aiocann.acl.util`; it imports ``ffi``
from :mod:`aiocann._lib`, the only owner of the binding.
"""

from __future__ import annotations

import operator
from typing import Any

from .._lib import ffi

__all__ = ["addr", "cstr", "i32", "u32", "u64", "vptr"]

_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1


def _index(value: object, api: str) -> int:
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{api} args parse failed") from None


def u64(value: object, api: str) -> int:
    """Format ``k``/``K``: an integer taken modulo 2**64 (no overflow check, as in C)."""
    return _index(value, api) & _U64


def u32(value: object, api: str) -> int:
    """Format ``I``: an integer taken modulo 2**32."""
    return _index(value, api) & _U32


def i32(value: object, api: str) -> int:
    """Format ``i``: an integer in int32 range. pyACL turns the parser's OverflowError into a
    TypeError, so out-of-range values raise TypeError here too."""
    v = _index(value, api)
    if not _I32_MIN <= v <= _I32_MAX:
        raise TypeError(f"{api} args parse failed")
    return v


def cstr(value: object, api: str) -> bytes:
    """Format ``s``: a str with no NUL character, as UTF-8 bytes for a ``const char *``."""
    if not isinstance(value, str) or "\0" in value:
        raise TypeError(f"{api} args parse failed")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates
        raise TypeError(f"{api} args parse failed") from None


def vptr(value: object, api: str) -> Any:
    """A handle or address (format ``k``) as a ``void *`` for the C call."""
    return ffi.cast("void *", u64(value, api))


def addr(pointer: Any) -> int:
    """A pointer or handle the runtime returned, as the int pyACL hands back (NULL is 0)."""
    return int(ffi.cast("uintptr_t", pointer))
