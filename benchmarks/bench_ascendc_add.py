"""An Ascend C vector add on the simulator against numpy.add: 16 Mi float32 elements, 8 blocks
(issue 22, item 5).

The kernel (benchmarks/ascendc_add.cpp) is Ascend C as a user writes it for the device:
GlobalTensor views, a TPipe with double-buffered TQue queues, DataCopy in and out of each AI
core's unified buffer, Add on the tiles, the tiling read with GET_TILING_DATA -- every API call
checking the hardware's rules. Both sides are measured in the same run, interleaved, best of
several repeats:
  * numpy:     ``np.add(x, y, out=z)`` into a preallocated output;
  * simulator: one ``aclrtLaunchKernelWithConfig`` on 8 blocks plus the ``aclrtSynchronizeStream``
    that waits for it, the data already in device memory (as numpy's is already in host
    memory); its output is checked against numpy's.

Ratio ``numpy_time / sim_time`` (= simulator GB/s / numpy GB/s), goal >= 0.5. ``main()`` returns
a ``_harness.Result`` whose ``details`` hold every figure.

    python benchmarks/bench_ascendc_add.py
"""

from __future__ import annotations

import struct
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _harness import Result, goal_met  # noqa: E402

from aiocann._lib import check, ffi, lib  # noqa: E402
from aiocann.compiler import build_kernel  # noqa: E402

GOAL = ">= 0.5"
KERNEL = Path(__file__).resolve().parent / "ascendc_add.cpp"
TILE = 2048  # floats per tile: 3 queues x 2 buffers x 8 KiB = 48 KiB of the 192 KiB UB (L2-resident on the host)


def main(n: int = 16 * 1024 * 1024, blocks: int = 8, repeats: int = 20) -> Result:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    z = np.empty_like(x)
    path = build_kernel(KERNEL)

    check(lib.aclInit(ffi.NULL), "aclInit")
    check(lib.aclrtSetDevice(0), "aclrtSetDevice")
    try:
        stream = ffi.new("aclrtStream *")
        check(lib.aclrtCreateStream(stream))
        binary, fn = ffi.new("aclrtBinHandle *"), ffi.new("aclrtFuncHandle *")
        check(lib.aclrtBinaryLoadFromFile(str(path).encode(), ffi.NULL, binary))
        check(lib.aclrtBinaryGetFunction(binary[0], b"ascendc_add", fn))
        dev = []
        for host in (x, y, z):
            p = ffi.new("void **")
            check(lib.aclrtMalloc(p, host.nbytes, 0))
            dev.append(p[0])
        for host, d in zip((x, y), dev[:2], strict=True):
            check(lib.aclrtMemcpy(d, host.nbytes, ffi.from_buffer(host), host.nbytes, 1))
        args = ffi.new("aclrtArgsHandle *")
        check(lib.aclrtKernelArgsInit(fn[0], args))
        ph = ffi.new("aclrtParamHandle *")
        for d in dev:
            check(lib.aclrtKernelArgsAppend(args[0], ffi.new("void **", d), 8, ph))
        check(lib.aclrtKernelArgsAppendPlaceHolder(args[0], ph))
        tiling = ffi.new("void **")
        check(lib.aclrtKernelArgsGetPlaceHolderBuffer(args[0], ph[0], 8, tiling))
        ffi.memmove(tiling[0], struct.pack("<II", n, TILE), 8)
        check(lib.aclrtKernelArgsFinalize(args[0]))

        def sim_once() -> float:
            t0 = time.perf_counter()
            check(lib.aclrtLaunchKernelWithConfig(fn[0], blocks, stream[0], ffi.NULL, args[0], ffi.NULL))
            check(lib.aclrtSynchronizeStream(stream[0]))
            return time.perf_counter() - t0

        def numpy_once() -> float:
            t0 = time.perf_counter()
            np.add(x, y, out=z)
            return time.perf_counter() - t0

        sim_once()  # first touch of the output pages
        numpy_once()
        sim_times, numpy_times = [], []
        for _ in range(repeats):
            numpy_times.append(numpy_once())
            sim_times.append(sim_once())

        out = np.empty_like(z)
        check(lib.aclrtMemcpy(ffi.from_buffer(out), out.nbytes, dev[2], out.nbytes, 2))
        if not np.array_equal(out, z):
            raise AssertionError("the simulator's Ascend C vector add differs from numpy's")
        check(lib.aclrtDestroyStream(stream[0]))
    finally:
        lib.aclrtResetDevice(0)
        lib.aclFinalize()

    sim_s, numpy_s = min(sim_times), min(numpy_times)
    ratio = numpy_s / sim_s
    return Result(
        f"Ascend C add {n / 2**20:g}Mi float32, {blocks} blocks",
        f"simulator {sim_s * 1e3:.2f} ms",
        f"numpy.add {numpy_s * 1e3:.2f} ms",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {
            "elements": n,
            "blocks": blocks,
            "tile": TILE,
            "sim_ms": sim_s * 1e3,
            "numpy_ms": numpy_s * 1e3,
            "sim_gb_per_s": 3 * x.nbytes / sim_s / 1e9,
            "numpy_gb_per_s": 3 * x.nbytes / numpy_s / 1e9,
        },
    )


if __name__ == "__main__":
    print(main().line())
