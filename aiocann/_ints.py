"""Integer arguments of the async API: what ``operator.index`` takes, but never a bool.

A bool where the API wants a count, an index, a size or a byte value -- ``Device(True)``,
``dev.empty((np.True_, 4))`` -- is a mistake, not 1. numpy agrees, in steps: up to 2.2 an
``np.bool_`` still converts, with a DeprecationWarning ("np.bool scalars ... interpreted as an
index"); from 2.3 it is a TypeError. Refusing both kinds of bool here gives one answer, a
TypeError that names the argument, whatever numpy is installed. (Kernel argument values are
not this: a bool there is a legitimate 0/1 scalar, see kernel.py.)
"""

from __future__ import annotations

import operator

import numpy as np

__all__ = ["IN_FLIGHT_STOP", "index", "in_range"]

#: max_in_flight's bound (exclusive), for Device and Stream alike: the lane counts in C ssize_ts.
IN_FLIGHT_STOP = 1 << 62

_BOOLS = (bool, np.bool_)


def index(value: object, what: str) -> int:
    """``operator.index(value)``; a bool (Python's or numpy's) raises TypeError naming ``what``."""
    if isinstance(value, _BOOLS):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    return operator.index(value)  # type: ignore[arg-type]


def in_range(value: object, what: str, stop: int, start: int = 0) -> int:
    """``index(value, what)``, which must lie in ``[start, stop)``: else a ValueError naming
    ``what`` -- not the bare OverflowError cffi or a C member would raise further on."""
    v = index(value, what)
    if not start <= v < stop:
        bound = f"2**{stop.bit_length() - 1}" if stop > 1 << 16 and stop & (stop - 1) == 0 else str(stop)
        raise ValueError(f"{what} must be in [{start}, {bound}), got {v}")
    return v
