"""Helpers shared by the async-core tests."""

from __future__ import annotations

import numpy as np
import pytest


def tiling(n: int) -> np.ndarray:
    """The AddTiling block of examples/kernels/vector_add.c for n elements."""
    return np.array([n, 0], dtype=np.uint32)


@pytest.fixture(params=["asyncio", "trio", "uvloop"])
def anyio_backend_with_uvloop(request: pytest.FixtureRequest) -> object:
    if request.param == "uvloop":
        pytest.importorskip("uvloop")
        return ("asyncio", {"use_uvloop": True})
    return request.param
