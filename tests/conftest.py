"""What the whole suite shares. The tests live by family, each folder with its own conftest:

* ``sim/``   the simulator's ACL C API through the raw binding, its loader and C tests;
* ``acl/``   the pyACL-compatible module ``aiocann.acl``;
* ``core/``  the async API (devices, streams, launches, memory, graphs, traces);
* ``tools/`` the command line, the pytest plugin, docs, packaging, examples and servers.

Helpers the test modules import by name (``acl_util``, ``pyacl_support``, ``async_util``,
``examples``) are in ``support/``, on the path through ``pythonpath`` in pyproject.toml. Every
async test runs on asyncio, uvloop and trio (anyio's pytest plugin).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Before anything imports them, so their asserts report like a test's own.
pytest.register_assert_rewrite("acl_util", "pyacl_support", "async_util")

from examples import EXAMPLE_KERNELS, TEST_KERNELS  # noqa: E402


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
    from aiocann.compiler import build_kernel

    return build_kernel(EXAMPLE_KERNELS / "vector_add.c")


@pytest.fixture(scope="session")
def test_kernels_path() -> Path:
    """tests/kernels/test_kernels.c: probe, wait_us, spin_us, wait_flag, write_value, faulting kernels."""
    from aiocann.compiler import build_kernel

    return build_kernel(TEST_KERNELS / "test_kernels.c")


@pytest.fixture(scope="session")
def args_kernels_path() -> Path:
    """tests/kernels/args_kernels.c: kernels that report what they received."""
    from aiocann.compiler import build_kernel

    return build_kernel(TEST_KERNELS / "args_kernels.c")
