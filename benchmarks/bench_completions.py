"""P2: awaited completions per second through the async API, against a C program on the same
runtime (benchmarks/c/completions.c: each launch followed by a non-blocking completion
callback, run by a C report thread; no Python) -- the ceiling of any per-launch completion on
this runtime.

The async side: N completions on S streams with the empty kernel, C tasks each launching their
share at once and then awaiting all of it (burst, the headline); also reported, a closed loop
(each task launches and awaits one at a time, a server's pattern). Goal: burst ratio
(async / C) >= 0.35.
"""

from __future__ import annotations

import sys
import time

import anyio
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _harness import Result, goal_met, kernel, run_c_program  # noqa: E402

import aiocann as ac  # noqa: E402

N = 20000
TASKS = 64
STREAMS = 4
GOAL = ">= 0.35"


async def _native(burst: bool) -> float:
    async with ac.Device(0, max_in_flight=N + 16) as dev:
        k = (await dev.load_binary(kernel("test_kernels.c"))).function("empty")
        streams = [dev.stream() for _ in range(STREAMS)]
        args = await k.args().ptr(dev.empty(1, np.uint8))

        async def worker(s: ac.Stream) -> None:
            if burst:
                for c in [await ac.launch(k, args, blocks=1, stream=s) for _ in range(N // TASKS)]:
                    await c
            else:
                for _ in range(N // TASKS):
                    await (await ac.launch(k, args, blocks=1, stream=s))

        t = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for i in range(TASKS):
                tg.start_soon(worker, streams[i % STREAMS])
        return (N // TASKS * TASKS) / (time.perf_counter() - t)


def _c_baseline() -> float:
    """Completions/s of benchmarks/c/completions.c, built against the simulator library."""
    return float(run_c_program("completions", str(kernel("test_kernels.c")), str(N), str(STREAMS)).strip())


def main() -> Result:
    figures = {}
    for mode, burst in (("burst", True), ("closed_loop", False)):
        figures[f"{mode}_async_per_s"] = max(anyio.run(_native, burst) for _ in range(3))
    figures["c_per_s"] = base = max(_c_baseline() for _ in range(3))
    native = figures["burst_async_per_s"]
    ratio = native / base
    loop_ratio = figures["closed_loop_async_per_s"] / base
    return Result(
        "P2 completions/s",
        f"await launch, burst {native:,.0f}/s (closed loop {figures['closed_loop_async_per_s']:,.0f}/s)",
        f"C launch + callback + report thread {base:,.0f}/s (closed loop: ratio {loop_ratio:.2f})",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {**figures, "closed_loop_ratio": loop_ratio, "completions": N, "tasks": TASKS, "streams": STREAMS},
    )


if __name__ == "__main__":
    print(main().line())
