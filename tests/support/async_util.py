"""Helpers shared by the async-core tests."""

from __future__ import annotations

import numpy as np


def tiling(n: int) -> np.ndarray:
    """The AddTiling block of examples/kernels/vector_add.c for n elements."""
    return np.array([n, 0], dtype=np.uint32)
