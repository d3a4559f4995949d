"""P1g: host cost per kernel of replaying a captured graph.

A 64-kernel graph replayed with ``await graph.launch()`` (one submission and one Completion per
replay) against a raw cffi loop of ``aclrtLaunchKernelWithConfig`` for the same 64 kernels, in
the same run. Goal: <= 0.05 of the raw per-kernel cost.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Result, goal_met, kernel

import aiocann as ac
from aiocann._lib import ffi, lib

KERNELS = 64
REPLAYS = 300
ROUNDS = 5
GOAL = "<= 0.05"


async def _measure() -> tuple[float, float]:
    async with ac.Device(0, max_in_flight=REPLAYS * KERNELS + 16) as dev:
        k = (await dev.load_binary(kernel("test_kernels.c"))).function("empty")
        async with dev.stream() as s:
            args = await k.args().ptr(dev.empty(1, np.uint8))
            async with s.capture() as g:
                for _ in range(KERNELS):
                    await ac.launch(k, args, blocks=1)
            # The public handles are ints (as pyACL's): cast once for the raw C calls.
            fn, handle, stream = (ffi.cast("void *", h) for h in (k.handle, args.handle, s.handle))
            null = ffi.NULL
            launch_raw = lib.aclrtLaunchKernelWithConfig
            best_graph = best_raw = float("inf")
            for _ in range(ROUNDS):
                await s.synchronize()
                t = time.perf_counter()
                for _ in range(REPLAYS):
                    await g.launch(stream=s)
                best_graph = min(best_graph, (time.perf_counter() - t) / (REPLAYS * KERNELS))
                await s.synchronize()
                t = time.perf_counter()
                for _ in range(REPLAYS):
                    for _ in range(KERNELS):
                        launch_raw(fn, 1, stream, null, handle, null)
                best_raw = min(best_raw, (time.perf_counter() - t) / (REPLAYS * KERNELS))
            await s.synchronize()
            g.close()
    return best_graph, best_raw


def main() -> Result:
    t_graph, t_raw = anyio.run(_measure)
    ratio = t_graph / t_raw
    return Result(
        "P1g graph replay host cost per kernel",
        f"await graph.launch() ({KERNELS} kernels) {t_graph * 1e9:.0f} ns/kernel",
        f"raw cffi launch loop {t_raw * 1e9:.0f} ns/kernel",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {"graph_ns_per_kernel": t_graph * 1e9, "raw_ns_per_kernel": t_raw * 1e9, "kernels": KERNELS},
    )


if __name__ == "__main__":
    print(main().line())
