"""P12: cost as streams grow -- awaited completions per second with the work spread over 1900
streams, against the same work on 8 streams (the baseline), and the host threads the streams
add (read from /proc/self/status: the simulator's stream workers are host threads).

Real devices take about 2000 streams, and graph-heavy servers reach that limit; a runtime whose
cost grows with the number of streams (a host thread each, say) does not survive it. The work:
N launches of the empty kernel, one task per stream launching its share at once and then
awaiting it all. Goal: ratio (1900 streams / 8) >= 0.9, with at most 0.1 threads per stream.

A control, printed beside it and not part of the ratio: the many-streams side's own work --
1900 tasks of N/1900 launches each -- on the baseline's 8 streams. The two sides differ in the
number of streams and in the number of tasks the event loop runs (each of the 1900 tasks is
spawned, and suspends at least once: its first completion cannot be resolved before its own
step ends); the control tells the two costs apart.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Result, goal_met, kernel  # noqa: E402

import aiocann as ac  # noqa: E402

N = 19000  # divisible by both stream counts
FEW, MANY = 8, 1900
ROUNDS = 3
GOAL = ">= 0.9"
THREADS_GOAL = 0.1  # at most this many host threads per stream


def _threads() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise RuntimeError("/proc/self/status has no Threads line")


async def _measure(streams: int, tasks: int | None = None) -> tuple[float, float, int]:
    """Best completions/s of ROUNDS on `streams` streams, the threads they added per stream, and
    the process's threads while they exist. One task per stream, or `tasks` tasks taking the
    streams in turn."""
    tasks = tasks or streams
    async with ac.Device(0, max_in_flight=N + 16) as dev:
        k = (await dev.load_binary(kernel("test_kernels.c"))).function("empty")
        args = await k.args().ptr(dev.empty(1, np.uint8))
        before = _threads()
        pool = [dev.stream() for _ in range(streams)]
        # A first launch on each makes every stream's runtime side exist before the count.
        for s in pool:
            await (await ac.launch(k, args, blocks=1, stream=s))
        total = _threads()
        per_stream = (total - before) / streams

        async def work(s: ac.Stream) -> None:
            for c in [await ac.launch(k, args, blocks=1, stream=s) for _ in range(N // tasks)]:
                await c

        best = 0.0
        for _ in range(ROUNDS):
            t = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for i in range(tasks):
                    tg.start_soon(work, pool[i % streams])
            best = max(best, N / (time.perf_counter() - t))
        for s in pool:
            await s.aclose()
    return best, per_stream, total


def main() -> Result:
    few, _, _ = anyio.run(_measure, FEW)
    many, per_stream, total = anyio.run(_measure, MANY)
    control, _, _ = anyio.run(_measure, FEW, MANY)
    ratio = many / few
    met = goal_met(ratio, GOAL) and per_stream <= THREADS_GOAL
    return Result(
        "P12 streams scaling",
        f"{MANY} streams {many:,.0f} completions/s ({per_stream:.3f} host threads per stream, {total} in all; "
        f"control: the same {MANY} tasks on {FEW} streams {control:,.0f}/s)",
        f"{FEW} streams {few:,.0f}/s",
        ratio,
        GOAL,
        met,
        {
            "many_per_s": many,
            "few_per_s": few,
            "control_per_s": control,
            "control_ratio": many / control,
            "streams_many": MANY,
            "streams_few": FEW,
            "threads_per_stream": per_stream,
            "process_threads": total,
            "threads_goal": THREADS_GOAL,
            "completions": N,
        },
    )


if __name__ == "__main__":
    print(main().line())
