"""Shared conventions of the benchmarks: each script measures a subject and a baseline in the
same run, prints one line, and its ``main()`` returns a ``Result`` that ``python -m aiocann
bench`` collects into one table."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass
class Result:
    name: str
    subject: str  # what was measured, with its figure
    baseline: str  # the baseline, with its figure
    ratio: float
    goal: str  # e.g. ">= 0.9"
    met: bool
    details: dict[str, Any]

    def line(self) -> str:
        mark = "ok" if self.met else "MISSED"
        return f"{self.name}: {self.subject} vs {self.baseline} -> ratio {self.ratio:.3g} (goal {self.goal}) {mark}"

    def asdict(self) -> dict[str, Any]:
        return asdict(self)


def goal_met(ratio: float, goal: str) -> bool:
    op, value = goal.split()
    return ratio >= float(value) if op == ">=" else ratio <= float(value)


def best_of(fn: Callable[[], float], repeats: int = 5) -> float:
    """Smallest of several timings: the least disturbed by other load on the machine."""
    return min(fn() for _ in range(repeats))


def timed(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


def kernel(name: str) -> Path:
    """Build one of the kernels aiocann ships (examples/kernels, tests/kernels/test_kernels.c),
    cached. ``aiocann.compiler.example_kernel`` finds them in a checkout and in an installed wheel."""
    from aiocann.compiler import build_kernel, example_kernel

    return build_kernel(example_kernel(name))


def run_c_program(name: str, *args: str, timeout: float = 120) -> str:
    """Builds benchmarks/c/<name>.c against the simulator library (in a temporary directory)
    and runs it with args; returns what it printed. The C baselines are fixed programs: only
    their arguments differ between the benchmarks that run them."""
    import subprocess
    import tempfile

    from aiocann.compiler import include_dir, library_path

    lib_dir = library_path().parent
    src = Path(__file__).resolve().parent / "c" / f"{name}.c"
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / name
        build = subprocess.run(
            ["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{include_dir()}", str(src), "-o", str(exe),
             f"-L{lib_dir}", "-l:libascendcl.so", f"-Wl,-rpath,{lib_dir}", "-lpthread"],
            capture_output=True, text=True,
        )  # fmt: skip
        if build.returncode:
            raise RuntimeError(f"building {src} failed:\n{build.stderr}")
        run = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout)
        if run.returncode:
            raise RuntimeError(f"{exe} failed:\n{run.stderr}")
        return run.stdout


def examples_dir() -> Path:
    """The examples (examples/inference.py, server.py, ...): examples/ next to benchmarks/ in a
    checkout, aiocann/examples next to aiocann/_benchmarks in an installed wheel."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "examples",):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"no examples directory next to {here}")


@dataclass(frozen=True)
class AddTiming:
    """Best-of times of a simulator vector add and of ``np.add`` on the same data (seconds)."""

    sim_s: float
    numpy_s: float
    nbytes: int  # bytes of one operand

    def details(self) -> dict[str, float]:
        return {
            "sim_ms": self.sim_s * 1e3,
            "numpy_ms": self.numpy_s * 1e3,
            "sim_gb_per_s": 3 * self.nbytes / self.sim_s / 1e9,
            "numpy_gb_per_s": 3 * self.nbytes / self.numpy_s / 1e9,
        }


def time_vector_add(binary: Path, name: str, n: int, blocks: int, repeats: int, tile: int = 0) -> AddTiming:
    """One kernel ``name(x, y, z, tiling)`` of ``binary`` adding ``n`` float32 elements on
    ``blocks`` blocks, against ``np.add(x, y, out=z)``: both measured in this run, interleaved,
    best of ``repeats``. The simulator's side is one ``aclrtLaunchKernelWithConfig`` plus the
    ``aclrtSynchronizeStream`` that waits for it, the data already in device memory (as
    numpy's is already in host memory); the tiling placeholder holds ``(n, tile)`` as two
    uint32; the output is checked against numpy's (AssertionError if it differs)."""
    import struct

    import numpy as np

    from aiocann._lib import check, ffi, lib

    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    z = np.empty_like(x)
    check(lib.aclInit(ffi.NULL), "aclInit")
    check(lib.aclrtSetDevice(0), "aclrtSetDevice")
    try:
        stream = ffi.new("aclrtStream *")
        check(lib.aclrtCreateStream(stream))
        handle, fn = ffi.new("aclrtBinHandle *"), ffi.new("aclrtFuncHandle *")
        check(lib.aclrtBinaryLoadFromFile(str(binary).encode(), ffi.NULL, handle))
        check(lib.aclrtBinaryGetFunction(handle[0], name.encode(), fn))
        dev = []
        for host in (x, y, z):
            p = ffi.new("void **")
            check(lib.aclrtMalloc(p, host.nbytes, 0))
            dev.append(p[0])
        for host, d in zip((x, y), dev[:2], strict=True):
            check(lib.aclrtMemcpy(d, host.nbytes, ffi.from_buffer(host), host.nbytes, 1))
        args = ffi.new("aclrtArgsHandle *")
        check(lib.aclrtKernelArgsInit(fn[0], args))
        ph = ffi.new("aclrtParamHandle *")
        for d in dev:
            check(lib.aclrtKernelArgsAppend(args[0], ffi.new("void **", d), 8, ph))
        check(lib.aclrtKernelArgsAppendPlaceHolder(args[0], ph))
        tiling = ffi.new("void **")
        check(lib.aclrtKernelArgsGetPlaceHolderBuffer(args[0], ph[0], 8, tiling))
        ffi.memmove(tiling[0], struct.pack("<II", n, tile), 8)
        check(lib.aclrtKernelArgsFinalize(args[0]))

        def sim_once() -> float:
            t0 = time.perf_counter()
            check(lib.aclrtLaunchKernelWithConfig(fn[0], blocks, stream[0], ffi.NULL, args[0], ffi.NULL))
            check(lib.aclrtSynchronizeStream(stream[0]))
            return time.perf_counter() - t0

        def numpy_once() -> float:
            t0 = time.perf_counter()
            np.add(x, y, out=z)
            return time.perf_counter() - t0

        sim_once()  # first touch of the output pages
        numpy_once()
        sim_times, numpy_times = [], []
        for _ in range(repeats):
            numpy_times.append(numpy_once())
            sim_times.append(sim_once())

        out = np.empty_like(z)
        check(lib.aclrtMemcpy(ffi.from_buffer(out), out.nbytes, dev[2], out.nbytes, 2))
        if not np.array_equal(out, z):
            raise AssertionError(f"the simulator's vector add ({name}) differs from numpy's")
        check(lib.aclrtDestroyStream(stream[0]))
    finally:
        lib.aclrtResetDevice(0)
        lib.aclFinalize()
    return AddTiming(min(sim_times), min(numpy_times), x.nbytes)


__all__ = [
    "AddTiming",
    "Result",
    "examples_dir",
    "time_vector_add",
    "best_of",
    "goal_met",
    "kernel",
    "percentile",
    "statistics",
    "timed",
]
