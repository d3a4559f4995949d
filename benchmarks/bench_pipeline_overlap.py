"""P4: four streams of kernels that each wait a fixed time run concurrently.

Each stream runs M launches of a kernel that holds one AI core for T (sleeping, so the host's
CPUs are not the limit); the device has more cores than streams, so ideally the four streams
take M*T together. Figure: ideal time / wall time. Goal: >= 0.9.
"""

from __future__ import annotations

import sys
import time

import anyio
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _harness import Result, goal_met, kernel  # noqa: E402

import aiocann as ac  # noqa: E402

STREAMS = 4
LAUNCHES = 100
KERNEL_US = 5000
GOAL = ">= 0.9"


async def _run() -> float:
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(kernel("test_kernels.c"))).function("wait_us")
        streams = [dev.stream() for _ in range(STREAMS)]
        args = [await k.args().ptr(dev.empty(1, np.int32)).u64(KERNEL_US) for _ in streams]
        for s, a in zip(streams, args, strict=True):  # warm up
            await (await ac.launch(k, a, blocks=1, stream=s))

        async def run(s: ac.Stream, a: ac.KernelArgs) -> None:
            for _ in range(LAUNCHES):
                await ac.launch(k, a, blocks=1, stream=s)
            await s.synchronize()

        t = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for s, a in zip(streams, args, strict=True):
                tg.start_soon(run, s, a)
        return time.perf_counter() - t


def main() -> Result:
    wall = min(anyio.run(_run) for _ in range(3))
    ideal = LAUNCHES * KERNEL_US / 1e6
    ratio = ideal / wall
    return Result(
        "P4 4-stream overlap",
        f"wall {wall:.3f} s",
        f"ideal {ideal:.3f} s",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {"wall_s": wall, "ideal_s": ideal, "streams": STREAMS, "launches_per_stream": LAUNCHES, "kernel_us": KERNEL_US},
    )


if __name__ == "__main__":
    print(main().line())
