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

__all__ = ["index"]

_BOOLS = (bool, np.bool_)


def index(value: object, what: str) -> int:
    """``operator.index(value)``; a bool (Python's or numpy's) raises TypeError naming ``what``."""
    if isinstance(value, _BOOLS):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    return operator.index(value)  # type: ignore[arg-type]
