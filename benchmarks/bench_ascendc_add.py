"""An Ascend C vector add on the simulator against numpy.add: 16 Mi float32 elements, 8 blocks
(issue 22, item 5).

The kernel (benchmarks/ascendc_add.cpp) is Ascend C as a user writes it for the device:
GlobalTensor views, a TPipe with double-buffered TQue queues, DataCopy in and out of each AI
core's unified buffer, Add on the tiles, the tiling read with GET_TILING_DATA -- every API call
checking the hardware's rules. Both sides are measured in the same run, interleaved, best of
several repeats:
  * numpy:     ``np.add(x, y, out=z)`` into a preallocated output;
  * simulator: one ``aclrtLaunchKernelWithConfig`` on 8 blocks plus the ``aclrtSynchronizeStream``
    that waits for it, the data already in device memory (as numpy's is already in host
    memory); its output is checked against numpy's.

Ratio ``numpy_time / sim_time`` (= simulator GB/s / numpy GB/s), goal >= 0.5. ``main()`` returns
a ``_harness.Result`` whose ``details`` hold every figure.

    python benchmarks/bench_ascendc_add.py
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _harness import Result, goal_met, time_vector_add  # noqa: E402

from aiocann.compiler import build_kernel  # noqa: E402

GOAL = ">= 0.5"
KERNEL = Path(__file__).resolve().parent / "ascendc_add.cpp"
TILE = 2048  # floats per tile: 3 queues x 2 buffers x 8 KiB = 48 KiB of the 192 KiB UB (L2-resident on the host)


def main(n: int = 16 * 1024 * 1024, blocks: int = 8, repeats: int = 20) -> Result:
    path = build_kernel(KERNEL)
    t = time_vector_add(path, "ascendc_add", n, blocks, repeats, tile=TILE)
    ratio = t.numpy_s / t.sim_s
    return Result(
        f"Ascend C add {n / 2**20:g}Mi float32, {blocks} blocks",
        f"simulator {t.sim_s * 1e3:.2f} ms",
        f"numpy.add {t.numpy_s * 1e3:.2f} ms",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {"elements": n, "blocks": blocks, "tile": TILE, **t.details()},
    )


if __name__ == "__main__":
    print(main().line())
