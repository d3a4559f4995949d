"""Fixtures of the simulator-level tests (tests/sim): they drive the ACL C API through the raw
binding (``aiocann._lib``), as a C program would. The helpers they use are in
``support/acl_util.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acl_util import Runtime, acl_session


@pytest.fixture
def acl() -> Iterator[Runtime]:
    with acl_session() as rt:
        yield rt


@pytest.fixture
def k(acl: Runtime, test_kernels_path: Path) -> Any:
    """The kernels of tests/kernels/test_kernels.c by name: ``k.wait_us`` is its function."""

    class Kernels:
        def __getattr__(self, name: str) -> Any:
            return acl.function(test_kernels_path, name)

    return Kernels()
