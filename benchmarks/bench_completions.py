"""P2: awaited completions per second through aiocann's native completion queue, against a
design that runs a Python callback per completion on the report thread and hands it to the
event loop with ``call_soon_threadsafe`` (the usual way to bridge a callback API to asyncio).

Two workloads, N completions each, on S streams with the empty kernel:
* burst (the headline): C tasks each launch their share at once, then await all of it;
* closed loop (a server's pattern): C tasks each repeatedly launch and await one completion.
In the baseline the report thread is a Python thread looping ``aclrtProcessReport``; each
completion's callback takes the GIL on that thread and wakes the loop with its own
``call_soon_threadsafe``. Goal: ratio (native / baseline) >= 10 on the burst.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time

import anyio
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _harness import Result, goal_met, kernel  # noqa: E402

import aiocann as ac  # noqa: E402
from aiocann._lib import check, ffi, lib  # noqa: E402

N = 20000
TASKS = 64
STREAMS = 4
GOAL = ">= 10"


async def _native(burst: bool) -> float:
    async with ac.Device(0, max_in_flight=N + 16) as dev:
        k = (await dev.load_binary(kernel("test_kernels.c"))).function("empty")
        streams = [await dev.create_stream() for _ in range(STREAMS)]
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


def _baseline(burst: bool) -> float:
    """Per-completion Python callbacks bridged with call_soon_threadsafe."""

    async def run() -> float:
        loop = asyncio.get_running_loop()
        check(lib.aclInit(ffi.NULL))
        check(lib.aclrtSetDevice(0))
        stop = threading.Event()
        ready = threading.Event()
        tid: list[int] = []

        def report_loop() -> None:
            check(lib.aclrtSetDevice(0))
            tid.append(threading.get_ident())
            ready.set()
            while not stop.is_set():
                lib.aclrtProcessReport(100)
            check(lib.aclrtResetDevice(0))

        th = threading.Thread(target=report_loop)
        th.start()
        ready.wait()
        streams = []
        for _ in range(STREAMS):
            p = ffi.new("aclrtStream*")
            check(lib.aclrtCreateStream(p))
            check(lib.aclrtSubscribeReport(tid[0], p[0]))
            streams.append(p[0])
        futures: dict[int, asyncio.Future[None]] = {}

        @ffi.callback("void(void*)")
        def on_done(user: object) -> None:  # runs on the report thread, with the GIL
            fut = futures.pop(int(ffi.cast("uintptr_t", user)))
            loop.call_soon_threadsafe(fut.set_result, None)

        b = ffi.new("aclrtBinHandle*")
        check(lib.aclrtBinaryLoadFromFile(str(kernel("test_kernels.c")).encode(), ffi.NULL, b))
        f = ffi.new("aclrtFuncHandle*")
        check(lib.aclrtBinaryGetFunction(b[0], b"empty", f))
        a = ffi.new("aclrtArgsHandle*")
        check(lib.aclrtKernelArgsInit(f[0], a))
        ph = ffi.new("aclrtParamHandle*")
        zero = ffi.new("uint64_t*", 0)
        check(lib.aclrtKernelArgsAppend(a[0], zero, 8, ph))
        check(lib.aclrtKernelArgsFinalize(a[0]))
        counter = iter(range(1, 1 << 62))

        def submit(stream: object) -> asyncio.Future[None]:
            token = next(counter)
            fut = loop.create_future()
            futures[token] = fut
            check(lib.aclrtLaunchKernelWithConfig(f[0], 1, stream, ffi.NULL, a[0], ffi.NULL))
            check(lib.aclrtLaunchCallback(on_done, ffi.cast("void*", token), lib.ACL_CALLBACK_NO_BLOCK, stream))
            return fut

        async def worker(stream: object) -> None:
            if burst:
                for fut in [submit(stream) for _ in range(N // TASKS)]:
                    await fut
            else:
                for _ in range(N // TASKS):
                    await submit(stream)

        t = time.perf_counter()
        await asyncio.gather(*(worker(streams[i % STREAMS]) for i in range(TASKS)))
        rate = (N // TASKS * TASKS) / (time.perf_counter() - t)
        stop.set()
        th.join()
        for stream in streams:
            check(lib.aclrtUnSubscribeReport(tid[0], stream))
            check(lib.aclrtDestroyStream(stream))
        check(lib.aclrtBinaryUnLoad(b[0]))
        check(lib.aclrtResetDevice(0))
        check(lib.aclFinalize())
        return rate

    return asyncio.run(run())


def main() -> Result:
    figures = {}
    for mode, burst in (("burst", True), ("closed_loop", False)):
        figures[f"{mode}_native_per_s"] = max(anyio.run(_native, burst) for _ in range(3))
        figures[f"{mode}_baseline_per_s"] = max(_baseline(burst) for _ in range(3))
    native, base = figures["burst_native_per_s"], figures["burst_baseline_per_s"]
    ratio = native / base
    loop_ratio = figures["closed_loop_native_per_s"] / figures["closed_loop_baseline_per_s"]
    return Result(
        "P2 completions/s",
        f"native queue {native:,.0f}/s",
        f"call_soon_threadsafe per completion {base:,.0f}/s (closed loop: ratio {loop_ratio:.2f})",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {**figures, "closed_loop_ratio": loop_ratio, "completions": N, "tasks": TASKS, "streams": STREAMS},
    )


if __name__ == "__main__":
    print(main().line())
