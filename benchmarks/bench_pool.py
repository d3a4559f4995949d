"""Memory pool: ``dev.empty`` + release against ``aclrtMalloc`` + ``aclrtFree`` of the same sizes.

A serving loop allocates and drops the same few shapes every step; the pool (memory_pool.py)
serves them from its cache. The baseline is the raw runtime calls through cffi, in the same
run, on the same device: what ``dev.empty`` cost before the pool, minus the Python wrapper.
Goal: the pool at least 10x faster. On the simulator ``aclrtMalloc`` + ``aclrtFree`` is about
2.5 microseconds (address-space bookkeeping, no device), less than creating the Python
``DeviceArray`` object costs, so the ratio here (about 0.5) prices that object; against a real
runtime's ``aclrtMalloc`` (device memory management, typically tens of microseconds and more)
the same pool cost is what the ratio is about.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Result, goal_met

import aiocann as ac
from aiocann._lib import check, ffi, lib

SIZES = [4 << 10, 64 << 10, 1 << 20, 3 << 20, 17 << 20]  # bytes, a mix of shapes
ROUNDS = 2000
GOAL = ">= 10"


async def _measure() -> tuple[float, float]:
    async with ac.Device(0) as dev:
        # Warm the pool: one block of each size cached.
        for n in SIZES:
            dev.empty(n, np.uint8).close()
        t = time.perf_counter()
        for _ in range(ROUNDS):
            for n in SIZES:
                dev.empty(n, np.uint8).close()
        pool_s = (time.perf_counter() - t) / (ROUNDS * len(SIZES))
        out = ffi.new("void **")
        t = time.perf_counter()
        for _ in range(ROUNDS // 10):  # the raw calls are slow: fewer rounds, same sizes
            for n in SIZES:
                check(lib.aclrtMalloc(out, n, 0), "aclrtMalloc")
                check(lib.aclrtFree(out[0]), "aclrtFree")
        raw_s = (time.perf_counter() - t) / (ROUNDS // 10 * len(SIZES))
    return pool_s, raw_s


def main() -> Result:
    pool_s, raw_s = anyio.run(_measure)
    ratio = raw_s / pool_s
    return Result(
        "pool",
        f"dev.empty + close {pool_s * 1e6:.2f} us",
        f"aclrtMalloc + aclrtFree {raw_s * 1e6:.2f} us",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {"pool_us": pool_s * 1e6, "raw_us": raw_s * 1e6, "sizes": SIZES},
    )


if __name__ == "__main__":
    print(main().line())
