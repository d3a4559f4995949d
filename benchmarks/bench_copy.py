"""Host <-> device copy bandwidth through aclrtMemcpy against a numpy copy of the same bytes.

Measured in the same run, interleaved, best of several repeats:
  * simulator: ``aclrtMemcpy`` host -> device, then device -> host, of SIZE bytes between
    ordinary (pageable) numpy arrays and device memory; also the same from pinned memory
    (``aclrtMallocHost``) for reference;
  * numpy:     two ``np.copyto`` of the same SIZE bytes between preallocated arrays.

Ratio ``numpy_time / sim_time`` for the pageable round trip, goal >= 0.9. ``main()``
returns a ``_harness.Result`` whose ``details`` hold every figure (the pinned one too).

    python benchmarks/bench_copy.py
"""

from __future__ import annotations

import sys
import time

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _harness import Result, goal_met  # noqa: E402

from aiocann._lib import check, ffi, lib  # noqa: E402

H2D, D2H = 1, 2
GOAL = ">= 0.9"


def main(mib: int = 64, repeats: int = 10) -> Result:
    size = mib << 20
    src = np.random.default_rng(0).integers(0, 255, size, dtype=np.uint8)
    dst = np.empty_like(src)
    mid = np.empty_like(src)  # numpy's stand-in for the device buffer

    check(lib.aclInit(ffi.NULL), "aclInit")
    check(lib.aclrtSetDevice(0), "aclrtSetDevice")
    try:
        dptr = ffi.new("void **")
        check(lib.aclrtMalloc(dptr, size, 0))
        dev = dptr[0]
        pin_src, pin_dst = ffi.new("void **"), ffi.new("void **")
        check(lib.aclrtMallocHost(pin_src, size))
        check(lib.aclrtMallocHost(pin_dst, size))
        ffi.memmove(pin_src[0], ffi.from_buffer(src), size)
        ffi.memmove(pin_dst[0], ffi.from_buffer(dst), size)  # first touch
        hsrc, hdst = ffi.from_buffer(src), ffi.from_buffer(dst)

        def sim_pageable() -> float:
            t0 = time.perf_counter()
            check(lib.aclrtMemcpy(dev, size, hsrc, size, H2D))
            check(lib.aclrtMemcpy(hdst, size, dev, size, D2H))
            return time.perf_counter() - t0

        def sim_pinned() -> float:
            t0 = time.perf_counter()
            check(lib.aclrtMemcpy(dev, size, pin_src[0], size, H2D))
            check(lib.aclrtMemcpy(pin_dst[0], size, dev, size, D2H))
            return time.perf_counter() - t0

        def numpy_copy() -> float:
            t0 = time.perf_counter()
            np.copyto(mid, src)
            np.copyto(dst, mid)
            return time.perf_counter() - t0

        for warm in (sim_pageable, sim_pinned, numpy_copy):
            warm()
        pageable, pinned, base = [], [], []
        for _ in range(repeats):
            base.append(numpy_copy())
            dst[:] = 0
            pageable.append(sim_pageable())
            pinned.append(sim_pinned())
        if not np.array_equal(dst, src):
            raise AssertionError("the device round trip changed the data")
        check(lib.aclrtFreeHost(pin_src[0]))
        check(lib.aclrtFreeHost(pin_dst[0]))
        check(lib.aclrtFree(dev))
    finally:
        lib.aclrtResetDevice(0)
        lib.aclFinalize()

    sim_s, pin_s, numpy_s = min(pageable), min(pinned), min(base)
    ratio = numpy_s / sim_s
    return Result(
        f"copy H2D+D2H {mib} MiB",
        f"aclrtMemcpy {2 * size / sim_s / 1e9:.2f} GB/s",
        f"numpy copy {2 * size / numpy_s / 1e9:.2f} GB/s",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {
            "bytes": size,
            "sim_ms": sim_s * 1e3,
            "sim_pinned_ms": pin_s * 1e3,
            "numpy_ms": numpy_s * 1e3,
            "sim_gb_per_s": 2 * size / sim_s / 1e9,
            "sim_pinned_gb_per_s": 2 * size / pin_s / 1e9,
            "numpy_gb_per_s": 2 * size / numpy_s / 1e9,
            "ratio_pinned": numpy_s / pin_s,
        },
    )


if __name__ == "__main__":
    print(main().line())
