"""Shared fixtures. Every async test runs on asyncio, uvloop and trio (anyio's pytest plugin)."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
EXAMPLE_KERNELS = EXAMPLES / "kernels"
TEST_KERNELS = Path(__file__).resolve().parent / "kernels"


def load_example(name: str) -> ModuleType:
    """Import examples/<name>.py as the module ``name``, as running it from examples/ would
    (examples import each other: server.py and ray_serve.py share inference.py)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)


def pytest_configure(config: pytest.Config) -> None:
    # Kernel binaries built by the tests go to a per-run cache, not the user's ~/.cache.
    if "AIOCANN_CACHE_DIR" not in os.environ:
        os.environ["AIOCANN_CACHE_DIR"] = str(Path(config.rootpath, ".pytest_cache", "kernels"))


@pytest.fixture(params=["asyncio", "uvloop", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> object:
    if request.param == "uvloop":
        pytest.importorskip("uvloop")
        return ("asyncio", {"use_uvloop": True})
    return request.param


@pytest.fixture(scope="session")
def vector_add_path() -> Path:
    from aiocann.sim import build_kernel

    return build_kernel(EXAMPLE_KERNELS / "vector_add.c")


@pytest.fixture(scope="session")
def test_kernels_path() -> Path:
    """tests/kernels/test_kernels.c: probe, wait_us, spin_us, write_value, faulting kernels."""
    from aiocann.sim import build_kernel

    return build_kernel(TEST_KERNELS / "test_kernels.c")
