"""Soak: many launches over several streams and devices, some of them failing on purpose.

Every stream worker keeps up to IN_FLIGHT launches of vector add (random sizes) in flight;
now and then it launches a kernel that writes out of bounds instead. The soak checks that
every Completion resolves exactly once with the right outcome (the fault for exactly the
failing launch; streams continue on failure, so the launches after it succeed, and the next
synchronize reports the fault once), samples results against numpy, and measures resident
memory growth and thread / file descriptor counts before and after (the simulator's stream
workers apart: a pool of the process's, bounded by its size).

    python benchmarks/soak.py [--launches 1000000] [--devices 2] [--streams 4]

``tests/tools/test_soak.py`` runs a short version.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import kernel  # noqa: E402

import aiocann as ac  # noqa: E402

MAX_N = 1 << 16
IN_FLIGHT = 64


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# The simulator's stream workers (native/sim/executor.c): a pool of the process's that starts on
# demand and stays, like a real runtime's threads -- counted apart from the threads that must
# not outlive the soak, and checked against the pool's configured size instead.
_POOL_THREAD = "aclsim-stream"


def _pool_size() -> int:
    workers = int(os.environ.get("AIOCANN_SIM_STREAM_WORKERS") or 0)
    if workers > 0:
        return workers
    return (os.cpu_count() or 1) + int(os.environ.get("AIOCANN_SIM_CORES") or 8)


def _counts() -> tuple[int, int, int]:
    """Threads other than the stream workers, file descriptors, stream workers."""
    pool = others = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
        except (FileNotFoundError, ProcessLookupError):  # it exited meanwhile (before the open, or the read)
            continue
        if name == _POOL_THREAD:
            pool += 1
        else:
            others += 1
    return others, len(os.listdir("/proc/self/fd")), pool


class _Stats:
    def __init__(self) -> None:
        self.submitted = 0
        self.resolved = 0
        self.ok = 0
        self.failed_expected = 0
        self.wrong = 0
        self.sampled = 0
        self.injected = 0
        self.streams_replaced = 0


async def _worker(
    dev: ac.Device,
    kernels: tuple[ac.Kernel, ac.Kernel],
    launches: int,
    fail_rate: float,
    sample_every: int,
    seed: int,
    stats: _Stats,
) -> None:
    add, poke = kernels
    rng = random.Random(seed)
    host_x = np.arange(MAX_N, dtype=np.float32)
    host_y = np.full(MAX_N, 0.5, np.float32)
    stream = dev.stream(max_in_flight=IN_FLIGHT + 8)
    x, y = await stream.upload(host_x), await stream.upload(host_y)
    z, zs = dev.empty(MAX_N, np.float32), dev.empty(MAX_N, np.float32)
    tiling = np.zeros(2, np.uint32)
    args = await add.args().ptr(x).ptr(y).ptr(z).placeholder(tiling)
    sample_args = await add.args().ptr(x).ptr(y).ptr(zs).placeholder(tiling)
    # Just past the buffer's page, inside the unmapped gap that follows every allocation: a far
    # offset could land in another live allocation, which the simulator cannot catch.
    bad_args = await poke.args().ptr(dev.empty(64, np.uint8)).u64(4096 + 64)
    window: collections.deque[tuple[ac.Completion, bool]] = collections.deque()
    failed = False  # the stream has a failure no synchronize has reported yet

    async def settle(completion: ac.Completion, expect_ok: bool) -> None:
        try:
            await completion
            outcome_ok = True
        except ac.KernelFaultError:
            outcome_ok = False
        stats.resolved += 1
        if outcome_ok == expect_ok:
            stats.ok += outcome_ok
            stats.failed_expected += not outcome_ok
        else:
            stats.wrong += 1

    for i in range(launches):
        inject = rng.random() < fail_rate
        n = rng.randrange(1, MAX_N + 1)
        sample = not inject and i % sample_every == 0
        if inject:
            c = await ac.launch(poke, bad_args, blocks=1, stream=stream)
            stats.injected += 1
            failed = True
            expect_ok = False
        else:
            tiling[0] = n
            a = sample_args if sample else args
            a.update(3, tiling)
            c = await ac.launch(add, a, blocks=rng.choice((1, 2, 4, 8)), stream=stream)
            expect_ok = True
        stats.submitted += 1
        window.append((c, expect_ok))
        if sample:
            out = await zs.get(stream=stream)  # stream-ordered after the sampled launch
            np.testing.assert_array_equal(out[:n], host_x[:n] + host_y[:n])
            stats.sampled += 1
        while len(window) >= IN_FLIGHT:
            await settle(*window.popleft())
        if failed and inject:
            # A few more launches after the fault: the stream goes on, so they succeed.
            for _ in range(rng.randrange(0, 4)):
                window.append((await ac.launch(add, args, blocks=1, stream=stream), True))
                stats.submitted += 1
            # Drain what is in flight; the next synchronize reports the fault, once.
            while window:
                await settle(*window.popleft())
            try:
                await stream.synchronize()
                stats.wrong += 1  # the failure must be reported by the synchronize
            except ac.KernelFaultError:
                pass
            await stream.synchronize()  # and only once
            stats.streams_replaced += 1
            failed = False
    while window:
        await settle(*window.popleft())
    await stream.aclose()


async def run_soak(
    launches: int = 1_000_000,
    devices: int = 2,
    streams: int = 4,
    fail_rate: float = 1e-4,
    sample_every: int = 997,
    progress: Any = None,
) -> dict[str, Any]:
    """Run the soak; returns its figures (``wrong_outcomes`` must be 0)."""
    stats = _Stats()
    per_worker = launches // (devices * streams)
    t0 = time.perf_counter()
    rss0 = rss1 = 0

    async def device(index: int) -> None:
        async with ac.Device(index) as dev:
            binary = await dev.load_binary(kernel("vector_add.c"))
            tk = await dev.load_binary(kernel("test_kernels.c"))
            kernels = (binary.function("add_custom"), tk.function("poke"))
            async with anyio.create_task_group() as tg:
                for w in range(streams):
                    tg.start_soon(_worker, dev, kernels, per_worker, fail_rate, sample_every, index * 1000 + w, stats)
            assert dev._live_dispatcher.pending == 0

    async def monitor() -> None:
        nonlocal rss0, rss1
        total = per_worker * devices * streams
        while stats.resolved < total:
            await anyio.sleep(0.2)
            if not rss0 and stats.resolved > total // 20:
                rss0 = _rss_bytes()  # after warm-up: pools, caches and arenas have settled
            if progress is not None:
                progress(stats.resolved, total)
        rss1 = _rss_bytes()

    async with anyio.create_task_group() as tg:
        tg.start_soon(monitor)
        for d in range(devices):
            tg.start_soon(device, d)
    elapsed = time.perf_counter() - t0
    return {
        "launches": stats.submitted,
        "resolved": stats.resolved,
        "succeeded": stats.ok,
        "failed_as_expected": stats.failed_expected,
        "wrong_outcomes": stats.wrong,
        "injected_faults": stats.injected,
        "streams_replaced": stats.streams_replaced,
        "sampled_and_verified": stats.sampled,
        "seconds": elapsed,
        "launches_per_s": stats.submitted / elapsed,
        "rss_growth_mb": (rss1 - rss0) / 2**20 if rss0 else 0.0,
    }


def soak(**kwargs: Any) -> dict[str, Any]:
    """run_soak in its own event loop, with the process's threads and file descriptors counted
    before the loop starts and after it ends (so the loop's own worker threads are gone)."""
    threads0, fds0, _ = _counts()
    result = anyio.run(lambda: run_soak(**kwargs))
    # The event loop's idle worker threads are told to stop when it ends, and exit a moment later.
    deadline = time.monotonic() + 5
    while _counts()[:2] != (threads0, fds0) and time.monotonic() < deadline:
        time.sleep(0.01)
    threads1, fds1, pool = _counts()
    result["threads_before_after"] = (threads0, threads1)
    result["fds_before_after"] = (fds0, fds1)
    result["stream_workers_and_pool_size"] = (pool, _pool_size())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--launches", type=int, default=1_000_000)
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--streams", type=int, default=4, help="streams per device")
    parser.add_argument("--fail-rate", type=float, default=1e-4)
    a = parser.parse_args()

    def progress(done: int, total: int) -> None:
        sys.stderr.write(f"\r{done:,}/{total:,}")

    r = soak(launches=a.launches, devices=a.devices, streams=a.streams, fail_rate=a.fail_rate, progress=progress)
    sys.stderr.write("\n")
    for k, v in r.items():
        print(f"{k:>22}: {v:,.2f}" if isinstance(v, float) else f"{k:>22}: {v}")
    ok = (
        r["wrong_outcomes"] == 0
        and r["resolved"] == r["launches"]
        and r["rss_growth_mb"] < 50
        and r["threads_before_after"][0] == r["threads_before_after"][1]
        and r["fds_before_after"][0] == r["fds_before_after"][1]
        and r["stream_workers_and_pool_size"][0] <= r["stream_workers_and_pool_size"][1]
    )
    print("soak: PASS" if ok else "soak: FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
