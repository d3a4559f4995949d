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


def examples_dir() -> Path:
    """The examples (examples/inference.py, server.py, ...): examples/ next to benchmarks/ in a
    checkout, aiocann/examples next to aiocann/_benchmarks in an installed wheel."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "examples",):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"no examples directory next to {here}")


__all__ = ["Result", "examples_dir", "best_of", "goal_met", "kernel", "percentile", "statistics", "timed"]
