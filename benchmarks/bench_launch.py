"""Launch rate of an empty kernel (tests/kernels/test_kernels.c ``empty``, 1 block).

Measured in the same run, best of several repeats:
  * launch + synchronize: ``aclrtLaunchKernelWithConfig`` then ``aclrtSynchronizeStream``,
    one at a time: the round trip of one launch, in launches/s;
  * launch only: many launches back to back, then one synchronize: the throughput when the
    host keeps the stream fed (launches/s over the whole batch, and the submission rate);
  * baseline: the same host-side handoff in pure Python -- hand an item to a worker thread
    (``queue.Queue``) and wait for its ``threading.Event`` -- the least a synchronous launch
    through another thread costs in this interpreter.

Ratio ``launch+sync rate / thread round-trip rate``. The issue sets no goal for this figure;
the provisional one, >= 0.5, says a synchronous launch -- two handoffs inside the simulator
(stream worker, AI core), in C -- costs no more than two bare Python thread handoffs. ``main()``
returns a ``_harness.Result`` whose ``details`` hold every figure, the launch-only ones too.

    python benchmarks/bench_launch.py
"""

from __future__ import annotations

import queue
import sys
import threading
import time

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _harness import Result, goal_met, kernel  # noqa: E402

from aiocann._lib import check, ffi, lib  # noqa: E402

GOAL = ">= 0.5"


def _thread_roundtrip_rate(n: int) -> float:
    q: queue.Queue[threading.Event | None] = queue.Queue()

    def worker() -> None:
        while (item := q.get()) is not None:
            item.set()

    t = threading.Thread(target=worker, daemon=True)
    t.start()
    t0 = time.perf_counter()
    for _ in range(n):
        done = threading.Event()
        q.put(done)
        done.wait(10)
    rate = n / (time.perf_counter() - t0)
    q.put(None)
    t.join(10)
    return rate


def main(launches: int = 2000, repeats: int = 5) -> Result:
    path = kernel("test_kernels.c")
    check(lib.aclInit(ffi.NULL), "aclInit")
    check(lib.aclrtSetDevice(0), "aclrtSetDevice")
    try:
        stream = ffi.new("aclrtStream *")
        check(lib.aclrtCreateStream(stream))
        s = stream[0]
        binary, fn = ffi.new("aclrtBinHandle *"), ffi.new("aclrtFuncHandle *")
        check(lib.aclrtBinaryLoadFromFile(str(path).encode(), ffi.NULL, binary))
        check(lib.aclrtBinaryGetFunction(binary[0], b"empty", fn))
        f = fn[0]
        args = ffi.new("aclrtArgsHandle *")
        check(lib.aclrtKernelArgsInit(f, args))
        check(lib.aclrtKernelArgsAppend(args[0], ffi.new("void **"), 8, ffi.new("aclrtParamHandle *")))
        check(lib.aclrtKernelArgsFinalize(args[0]))
        a = args[0]
        launch, sync, null = lib.aclrtLaunchKernelWithConfig, lib.aclrtSynchronizeStream, ffi.NULL

        def launch_sync() -> float:
            t0 = time.perf_counter()
            for _ in range(launches):
                if launch(f, 1, s, null, a, null) or sync(s):
                    raise RuntimeError("launch failed")
            return launches / (time.perf_counter() - t0)

        def launch_only() -> tuple[float, float]:
            t0 = time.perf_counter()
            for _ in range(launches):
                if launch(f, 1, s, null, a, null):
                    raise RuntimeError("launch failed")
            t1 = time.perf_counter()
            check(sync(s))
            t2 = time.perf_counter()
            return launches / (t2 - t0), launches / (t1 - t0)

        launch_sync()  # warm up: threads, caches
        launch_only()
        ls, lo, sub, base = [], [], [], []
        for _ in range(repeats):
            base.append(_thread_roundtrip_rate(launches))
            ls.append(launch_sync())
            total, submit = launch_only()
            lo.append(total)
            sub.append(submit)
        check(lib.aclrtDestroyStream(s))
    finally:
        lib.aclrtResetDevice(0)
        lib.aclFinalize()

    d = {
        "launch_sync_per_s": max(ls),
        "launch_only_per_s": max(lo),
        "submit_per_s": max(sub),
        "thread_roundtrip_per_s": max(base),
        "launches": launches,
    }
    d["ratio_pipelined"] = d["launch_only_per_s"] / d["launch_sync_per_s"]
    ratio = d["launch_sync_per_s"] / d["thread_roundtrip_per_s"]
    return Result(
        "empty kernel launch rate",
        f"launch+sync {d['launch_sync_per_s']:,.0f}/s (launch-only {d['launch_only_per_s']:,.0f}/s)",
        f"python thread round trip {d['thread_roundtrip_per_s']:,.0f}/s",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        d,
    )


if __name__ == "__main__":
    print(main().line())
