"""Simulator vector add against numpy.add: 16 M float32 elements, 8 blocks.

Both sides are measured in the same run, interleaved, best of several repeats:
  * numpy:     ``np.add(x, y, out=z)`` into a preallocated output;
  * simulator: one ``aclrtLaunchKernelWithConfig`` of examples/kernels/vector_add.c on 8 blocks
    plus the ``aclrtSynchronizeStream`` that waits for it, the data already in device memory
    (as numpy's is already in host memory); its output is checked against numpy's.

Ratio ``numpy_time / sim_time``, goal >= 0.9. ``main()`` returns a ``_harness.Result`` whose
``details`` hold every figure.

    python benchmarks/bench_vector_add.py
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _harness import Result, goal_met, kernel, time_vector_add  # noqa: E402

GOAL = ">= 0.9"


def main(n: int = 16 * 1024 * 1024, blocks: int = 8, repeats: int = 10) -> Result:
    path = kernel("vector_add.c")
    t = time_vector_add(path, "add_custom", n, blocks, repeats)
    ratio = t.numpy_s / t.sim_s
    return Result(
        f"vector add {n / 2**20:g}M float32, {blocks} blocks",
        f"simulator {t.sim_s * 1e3:.2f} ms",
        f"numpy.add {t.numpy_s * 1e3:.2f} ms",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {"elements": n, "blocks": blocks, **t.details()},
    )


if __name__ == "__main__":
    print(main().line())
