"""P1: host cost of ``await aiocann.launch(...)`` with prebuilt args, against one cffi call
that enqueues the launch and its completion callback (``aiocann_launch``, the native fast path,
called straight from Python) -- the floor of any per-launch future -- on the same simulator,
stream and args.

Each loop launches the empty kernel N times after the stream drained. A round times the three
loops back to back; the figures are the medians of ROUNDS rounds, and the ratio is the median
of the rounds' own ratios (async / native). Pairing matters here: a launch costs about twice as
much while the stream's worker runs on the other core (each launch's cache lines cross between
the cores) as while the scheduler keeps both threads on one, and which of the two a round gets
changes from round to round -- so the best of each side's rounds can pair one side's good
placement with the other's bad one (ratios of 0.46 and 2.3 in runs where the paired ratio was
about 1.05). Goal: ratio <= 1.5. A raw ``aclrtLaunchKernelWithConfig`` loop is timed too, to
split the cost into the launch, the completion callback and the Python layer.
"""

from __future__ import annotations

import statistics
import sys
import time

import anyio
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _harness import Result, goal_met, kernel  # noqa: E402

import aiocann as ac  # noqa: E402
from aiocann._lib import ffi, lib  # noqa: E402

N = 5000
ROUNDS = 15
GOAL = "<= 1.5"


async def _measure() -> dict[str, list[float]]:
    """Seconds per launch of each loop, one figure per round."""
    times: dict[str, list[float]] = {"async": [], "raw": [], "native": []}
    async with ac.Device(0, max_in_flight=N + 16) as dev:
        k = (await dev.load_binary(kernel("test_kernels.c"))).function("empty")
        async with dev.stream() as s:
            args = await k.args().ptr(dev.empty(1, np.uint8))
            # The public handles are ints (as pyACL's): cast once for the raw C calls.
            fn, handle, stream = (ffi.cast("void *", h) for h in (k.handle, args.handle, s.handle))
            launch_raw, null = lib.aclrtLaunchKernelWithConfig, ffi.NULL
            native, qs, launched = lib.aiocann_launch, s._sub.qs, s._sub.launched
            for _ in range(ROUNDS):
                await s.synchronize()
                t = time.perf_counter()
                for _ in range(N):
                    await ac.launch(k, args, blocks=1, stream=s)
                times["async"].append((time.perf_counter() - t) / N)
                await s.synchronize()
                t = time.perf_counter()
                for _ in range(N):
                    launch_raw(fn, 1, stream, null, handle, null)
                times["raw"].append((time.perf_counter() - t) / N)
                await s.synchronize()
                t = time.perf_counter()
                for _ in range(N):  # token 0 belongs to no stream: the dispatcher ignores it
                    native(qs, fn, 1, null, handle, 0, launched)
                times["native"].append((time.perf_counter() - t) / N)
            await s.synchronize()
    return times


def main() -> Result:
    times = anyio.run(_measure)
    t_async, t_raw, t_native = (statistics.median(times[k]) for k in ("async", "raw", "native"))
    ratio = statistics.median(a / n for a, n in zip(times["async"], times["native"], strict=True))
    return Result(
        "P1 launch host cost",
        f"await launch {t_async * 1e6:.2f} us (Python layer {(t_async - t_native) * 1e6:.2f} us)",
        f"aiocann_launch (launch + completion callback, one cffi call) {t_native * 1e6:.2f} us "
        f"(raw launch alone {t_raw * 1e6:.2f} us; medians of {ROUNDS} rounds, the ratio the median of theirs)",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {
            "async_us": t_async * 1e6,
            "raw_us": t_raw * 1e6,
            "callback_us": (t_native - t_raw) * 1e6,
            "python_us": (t_async - t_native) * 1e6,
            "best_async_us": min(times["async"]) * 1e6,
            "best_native_us": min(times["native"]) * 1e6,
            "launches": N,
            "rounds": ROUNDS,
        },
    )


if __name__ == "__main__":
    print(main().line())
