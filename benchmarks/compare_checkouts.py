"""Before/after: the same async-API figures for two or more installs of aiocann, measured in one
sitting in alternating rounds (on a shared machine the figures of two runs minutes apart differ
more than two versions do).

    python benchmarks/compare_checkouts.py OLD/venv/bin/python NEW/venv/bin/python [--rounds 3] [--launches 20000]

Each interpreter must have its own aiocann installed (a virtual environment per checkout, with
``pip install -e CHECKOUT``). The drivers use only calls that every version has, so a checkout
from before an API change can be compared too. Figures per interpreter are the best of its
rounds (each itself the best of several repetitions):

* ``launch_us``: host cost of a fire-and-forget ``await launch(...)`` (``--launches`` per round);
* ``burst_per_s`` / ``closed_per_s``: awaited completions per second, 64 tasks on 4 streams,
  each task launching a batch and then awaiting it, or awaiting each launch before the next;
  on asyncio, and ``trio_closed_per_s`` on trio when it is installed;
* ``rtt_us`` / ``trio_rtt_us``: one task, ``await (await launch(...))``, per round trip.

Not a ``bench_*`` script: ``python -m aiocann bench`` measures one install, this compares several.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TASKS, STREAMS = 64, 4

# -- the driver: runs inside each interpreter, with that interpreter's aiocann ----------------


def _build(source: str) -> Any:
    try:
        from aiocann.compiler import build_kernel
    except ImportError:  # before aiocann.compiler, the builder lived in aiocann.sim
        from aiocann.sim import build_kernel  # type: ignore[no-redef]
    return build_kernel(source)


async def _stream(dev: Any) -> Any:
    if hasattr(dev, "create_stream"):  # before dev.stream() was the one factory
        return await dev.create_stream()
    return dev.stream()


async def _setup(dev: Any, kernel: Any, streams: int) -> tuple[Any, list[Any], Any]:
    import numpy as np

    k = (await dev.load_binary(kernel)).function("empty")
    ss = [await _stream(dev) for _ in range(streams)]
    args = await k.args().ptr(dev.empty(1, np.uint8))
    return k, ss, args


async def _launch_cost(kernel: Any, launches: int) -> float:
    import aiocann as ac

    async with ac.Device(0, max_in_flight=launches + 16) as dev:
        k, (s,), args = await _setup(dev, kernel, 1)
        best = float("inf")
        for _ in range(7):
            done = []
            t0 = time.perf_counter()
            for _ in range(launches):
                done.append(await ac.launch(k, args, blocks=1, stream=s))
            best = min(best, (time.perf_counter() - t0) / launches)
            for c in done:
                await c
        return best * 1e6


async def _completions(kernel: Any, launches: int, burst: bool) -> float:
    import anyio

    import aiocann as ac

    per_task = max(1, launches // TASKS)
    async with ac.Device(0, max_in_flight=per_task * TASKS + 16) as dev:
        k, ss, args = await _setup(dev, kernel, STREAMS)

        async def worker(s: Any) -> None:
            if burst:
                for c in [await ac.launch(k, args, blocks=1, stream=s) for _ in range(per_task)]:
                    await c
            else:
                for _ in range(per_task):
                    await (await ac.launch(k, args, blocks=1, stream=s))

        best = 0.0
        for _ in range(5):
            t0 = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for i in range(TASKS):
                    tg.start_soon(worker, ss[i % STREAMS])
            best = max(best, per_task * TASKS / (time.perf_counter() - t0))
        return best


async def _round_trip(kernel: Any, launches: int) -> float:
    import aiocann as ac

    n = max(1, launches // 4)
    async with ac.Device(0) as dev:
        k, (s,), args = await _setup(dev, kernel, 1)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                await (await ac.launch(k, args, blocks=1, stream=s))
            best = min(best, (time.perf_counter() - t0) / n)
        return best * 1e6


def _driver(source: str, launches: int) -> None:
    import anyio

    kernel = _build(source)
    out = {
        "launch_us": anyio.run(_launch_cost, kernel, launches),
        "burst_per_s": anyio.run(_completions, kernel, launches, True),
        "closed_per_s": anyio.run(_completions, kernel, launches, False),
        "rtt_us": anyio.run(_round_trip, kernel, launches),
    }
    try:
        import trio  # noqa: F401
    except ImportError:
        pass
    else:
        out["trio_closed_per_s"] = anyio.run(_completions, kernel, launches, False, backend="trio")
        out["trio_rtt_us"] = anyio.run(_round_trip, kernel, launches, backend="trio")
    print(json.dumps(out))


# -- the comparison: alternating rounds, best per interpreter ---------------------------------

LOWER_IS_BETTER = {"launch_us", "rtt_us", "trio_rtt_us"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pythons", nargs="*", metavar="PYTHON", help="interpreters, each with its own aiocann")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--launches", type=int, default=20_000, help="launches per measurement (default 20000)")
    parser.add_argument("--driver", metavar="KERNEL_SOURCE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.launches < 1:
        parser.error("--launches must be at least 1")
    if args.driver:
        _driver(args.driver, args.launches)
        return
    if len(args.pythons) < 2:
        parser.error("give at least two interpreters to compare")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    from aiocann.compiler import example_kernel  # the source, in a checkout or an installed wheel

    source = example_kernel("test_kernels.c")
    best: list[dict[str, float]] = [{} for _ in args.pythons]  # by position: a path may repeat
    for r in range(args.rounds):
        for i, py in enumerate(args.pythons):
            # From /: each interpreter imports its own aiocann, not a checkout in the cwd.
            run = subprocess.run(
                [py, str(Path(__file__).resolve()), "--driver", str(source), "--launches", str(args.launches)],
                capture_output=True,
                text=True,
                cwd="/",
            )
            if run.returncode:
                sys.exit(f"{py} failed:\n{run.stderr[-2000:]}")
            figures = json.loads(run.stdout.strip().splitlines()[-1])
            print(f"round {r + 1} {py}: " + ", ".join(f"{k} {v:,.2f}" for k, v in figures.items()), flush=True)
            for k, v in figures.items():
                old = best[i].get(k)
                if old is None or (v < old if k in LOWER_IS_BETTER else v > old):
                    best[i][k] = v
    names = sorted({k for b in best for k in b})
    print("\nbest of each (lower is better for *_us):")
    for i, p in enumerate(args.pythons, 1):
        print(f"  [{i}] {p}")
    print(f"{'':22}" + "".join(f"{f'[{i}]':>20}" for i in range(1, len(args.pythons) + 1)))
    for k in names:
        print(f"{k:22}" + "".join(f"{b.get(k, float('nan')):>20,.2f}" for b in best))


if __name__ == "__main__":
    main()
