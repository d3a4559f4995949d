"""Argument parsing for the pyACL facade: Python values in, C values out, as pyACL does it.

pyACL is a C extension: each wrapper is a ``METH_VARARGS`` function that parses its arguments
with ``PyArg_ParseTuple(args, FORMAT, ...)`` and, almost always, wraps that in
``CHECK_NULL(..., "acl.rt.<name> args parse failed")``, which replaces whatever error the
parser set with ``TypeError(<that message>)`` -- for a wrong argument count, a wrong type and
an out-of-range value alike. A few wrappers carry no message (``acl.util.start_thread``, and
``acl.rt.get_event_id``, whose message ended up among PyArg_ParseTuple's arguments): there the
parser's own error shows, e.g. ``TypeError: function takes exactly 2 arguments (1 given)``.
And as for every ``METH_VARARGS`` builtin, keyword arguments raise
``TypeError: <name>() takes no keyword arguments``.

:func:`pyacl` declares a wrapper by its pyACL name, its format and its message; the decorated
function receives the converted values. The formats pyACL uses:

* ``k`` / ``K`` (handles, addresses, sizes, thread ids): any integer, reduced modulo 2**64 with
  no overflow check -- ``-1`` becomes ``0xFFFF_FFFF_FFFF_FFFF`` and reaches the runtime, which
  then reports a bad handle or pointer as a return code;
* ``I`` (unsigned flags) and ``H``: any integer, reduced modulo 2**32 / 2**16;
* ``i`` (device ids, timeouts, enums): an integer that must fit int32; ``l`` / ``L``: int64;
* ``f``: a float (or an int); ``s``: a ``str`` without NUL characters; ``O``: anything;
* ``|``: the arguments after it are optional.

One deliberate widening: where pyACL accepts only ``int``, these accept any object with
``__index__`` (numpy integers, for instance). That never changes what a working pyACL program
does; it only lets through values pyACL would have refused.

This module sits under :mod:`aiocann.acl`'s modules; it takes its conversions between cdata and
ints from :mod:`aiocann._lib`, the only owner of the binding.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any, TypeVar

from .._lib import as_int, as_pointer

__all__ = ["DEFAULT_MESSAGE", "addr", "cstr", "i32", "pyacl", "u32", "u64", "vptr"]

_U16 = (1 << 16) - 1
_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1

DEFAULT_MESSAGE = object()  # "<api> args parse failed", pyACL's usual CHECK_NULL text

_F = TypeVar("_F", bound=Callable[..., Any])


class _ParseError(Exception):
    """What PyArg_ParseTuple itself would raise (before any CHECK_NULL replaces it)."""

    def __init__(self, exc_type: type[BaseException], message: str) -> None:
        super().__init__(message)
        self.exc_type = exc_type
        self.message = message


def _type_name(value: object) -> str:
    """A value's type as CPython prints it (tp_name: qualified outside builtins)."""
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _index(value: object, pos: int, strict: bool) -> int:
    """An integer argument. `strict`: the ``k``/``K`` message ("must be int") rather than the
    ``i``/``I`` one (PyNumber_Index's)."""
    if isinstance(value, float):  # never an integer, even with an integral value
        if strict:
            raise _ParseError(TypeError, f"argument {pos} must be int, not float")
        raise _ParseError(TypeError, "'float' object cannot be interpreted as an integer")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        if strict:
            # converterr() names None "None", not "NoneType"
            what = "None" if value is None else _type_name(value)
            raise _ParseError(TypeError, f"argument {pos} must be int, not {what}") from None
        raise _ParseError(TypeError, f"'{_type_name(value)}' object cannot be interpreted as an integer") from None


def _conv_k(value: object, pos: int) -> int:
    return _index(value, pos, True) & _U64


def _conv_I(value: object, pos: int) -> int:
    return _index(value, pos, False) & _U32


def _conv_H(value: object, pos: int) -> int:
    return _index(value, pos, False) & _U16


def _conv_i(value: object, pos: int) -> int:
    v = _index(value, pos, False)
    if not _I64_MIN <= v <= _I64_MAX:  # PyLong_AsLong fails before the int range is checked
        raise _ParseError(OverflowError, "Python int too large to convert to C long")
    if v > _I32_MAX:
        raise _ParseError(OverflowError, "signed integer is greater than maximum")
    if v < _I32_MIN:
        raise _ParseError(OverflowError, "signed integer is less than minimum")
    return v


def _conv_l(value: object, pos: int) -> int:
    v = _index(value, pos, False)
    if not _I64_MIN <= v <= _I64_MAX:
        raise _ParseError(OverflowError, "Python int too large to convert to C long")
    return v


def _conv_L(value: object, pos: int) -> int:
    v = _index(value, pos, False)
    if not _I64_MIN <= v <= _I64_MAX:
        raise _ParseError(OverflowError, "int too big to convert")
    return v


def _conv_f(value: object, pos: int) -> float:
    # PyFloat_AsDouble: __float__, else __index__ -- never a string, unlike float().
    if isinstance(value, float):
        return value
    for method in ("__float__", "__index__"):
        fn = getattr(type(value), method, None)
        if fn is not None:
            return float(fn(value))
    raise _ParseError(TypeError, f"must be real number, not {_type_name(value)}")


def _conv_s(value: object, pos: int) -> str:
    if not isinstance(value, str):
        what = "None" if value is None else _type_name(value)
        raise _ParseError(TypeError, f"argument {pos} must be str, not {what}")
    if "\0" in value:
        raise _ParseError(ValueError, "embedded null character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates
        raise _ParseError(UnicodeEncodeError, str(exc)) from None
    return value


def _conv_O(value: object, pos: int) -> object:
    return value


_CONVERTERS: dict[str, Callable[[object, int], Any]] = {
    "k": _conv_k,
    "K": _conv_k,
    "I": _conv_I,
    "H": _conv_H,
    "i": _conv_i,
    "l": _conv_l,
    "L": _conv_L,
    "f": _conv_f,
    "s": _conv_s,
    "O": _conv_O,
}


def pyacl(api: str, fmt: str | None, message: object = DEFAULT_MESSAGE) -> Callable[[_F], _F]:
    """Declare a pyACL wrapper: ``api`` is its full name (``"acl.rt.malloc"``), ``fmt`` its
    PyArg_ParseTuple format, or None for a wrapper that never parses its arguments (it accepts
    and ignores any positional ones, as pyACL's do). ``message``: the TypeError text pyACL sets
    when parsing fails; None when pyACL lets the parser's own error through.

    The decorated function is called with the converted arguments.
    """
    short = api.rsplit(".", 1)[1]
    text = f"{api} args parse failed" if message is DEFAULT_MESSAGE else message
    if fmt is None:
        converters: list[Callable[[object, int], Any]] = []
        required = 0
    else:
        required = fmt.index("|") if "|" in fmt else len(fmt)
        converters = [_CONVERTERS[c] for c in fmt.replace("|", "")]
    maximum = len(converters)

    def count_error(given: int) -> str:
        if required == maximum:
            how, n = "exactly", maximum
        elif given < required:
            how, n = "at least", required
        else:
            how, n = "at most", maximum
        return f"function takes {how} {n} argument{'' if n == 1 else 's'} ({given} given)"

    def decorate(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(*args: object, **kwargs: object) -> Any:
            if kwargs:
                raise TypeError(f"{short}() takes no keyword arguments")
            if fmt is None:
                return fn()
            try:
                if not required <= len(args) <= maximum:
                    raise _ParseError(TypeError, count_error(len(args)))
                values = [conv(a, i + 1) for i, (conv, a) in enumerate(zip(converters, args, strict=False))]
            except _ParseError as err:
                if text is None:
                    raise err.exc_type(err.message) from None
                raise TypeError(text) from None
            return fn(*values)

        wrapper.__pyacl_format__ = fmt  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


# --------------------------------------------------------------------------- C values


# A converted handle or address (``k``) as a ``void *`` for the C call; and a pointer or handle
# the runtime returned as the int pyACL hands back (NULL is 0) -- the same ints the async API's
# ``handle`` properties give, which is what lets the two interoperate.
vptr = as_pointer
addr = as_int


def cstr(value: str) -> bytes:
    """A converted ``s`` argument as UTF-8 bytes for a ``const char *``."""
    return value.encode("utf-8")


# Single-value conversions for code outside a @pyacl wrapper (the "value" of an option dict,
# say): the same rules, with pyACL's generic message.


def _one(conv: Callable[[object, int], Any], value: object, api: str) -> Any:
    try:
        return conv(value, 1)
    except _ParseError:
        raise TypeError(f"{api} args parse failed") from None


def u64(value: object, api: str) -> int:
    """Format ``k``/``K``: an integer taken modulo 2**64 (no overflow check, as in C)."""
    return int(_one(_conv_k, value, api))


def u32(value: object, api: str) -> int:
    """Format ``I``: an integer taken modulo 2**32."""
    return int(_one(_conv_I, value, api))


def i32(value: object, api: str) -> int:
    """Format ``i``: an integer in int32 range (pyACL reports the overflow as a TypeError)."""
    return int(_one(_conv_i, value, api))
