"""What an installed aiocann carries besides its modules: the kernel sources that the README,
the demo and the benchmarks build (aiocann.compiler.example_kernel). .ci/run checks the sdist and
the wheel themselves (.ci/check_dist.py) and runs the CLI from an installed wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiocann.compiler import build_kernel, example_kernel, kernel_signatures

ROOT = Path(__file__).resolve().parents[2]


def test_example_kernel_finds_every_shipped_source():
    shipped = sorted(p.name for p in (ROOT / "examples" / "kernels").glob("*.c")) + ["test_kernels.c"]
    for name in shipped:
        path = example_kernel(name)
        assert path.is_file() and path.name == name
        assert kernel_signatures(path.read_text()), name


def test_example_kernel_names_what_there_is():
    with pytest.raises(
        FileNotFoundError, match=r"no kernel 'args_kernels.c' ships with aiocann; there are .*vector_add.c"
    ):
        example_kernel("args_kernels.c")  # a test-suite kernel, not shipped


def test_an_example_kernel_builds(tmp_path):
    assert build_kernel(example_kernel("vector_add.c"), cache_dir=tmp_path).is_file()


def test_the_ascend_c_example_kernel_ships_and_builds(tmp_path):
    """softmax.cpp, the examples' Ascend C kernel (issue 22), is found like the C ones and builds
    with its extern "C" name."""
    from aiocann.compiler import read_signatures

    path = example_kernel("softmax.cpp")
    assert path.is_file()
    assert set(read_signatures(build_kernel(path, cache_dir=tmp_path)) or {}) == {"softmax_rows"}
