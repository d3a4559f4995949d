"""Fixtures of the tests of what ships around the library (tests/tools): the command line, the
pytest plugin, docs and README, packaging, the example kernels, programs and servers. They run
things as a user would, mostly in subprocesses, with the repository's paths from
``support/examples.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from examples import EXAMPLE_KERNELS


@pytest.fixture(scope="session")
def example_kernels() -> dict[str, Path]:
    """Every example kernel (examples/kernels/*.c) built, by name without ``.c``."""
    from aiocann.compiler import build_kernel

    return {src.stem: build_kernel(src) for src in sorted(EXAMPLE_KERNELS.glob("*.c"))}
