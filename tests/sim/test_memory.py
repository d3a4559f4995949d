"""Device and host memory through the raw binding (reference §6): ACL's alignment and size
rounding as aclrtGetMemInfo accounts it, bad pointers, wrong directions and sizes (errors,
never crashes), guard pages that make out-of-bounds kernel accesses fault, pinned versus
pageable async copies, and memset."""

from __future__ import annotations

import mmap
import time

import numpy as np
import pytest
from acl_util import (
    D2D,
    D2H,
    H2D,
    H2H,
    INVALID_PARAM,
    RT_AICORE_EXCEPTION,
    RT_MEMORY_ALLOCATION,
    RT_PARAM_INVALID,
    RT_SYS_DMA,
    STREAM_NOT_READY,
    acl_session,
    addr,
    expect,
    last_error,
    sync_rc,
    vp,
)

from aiocann._lib import check, ffi, lib

ACL_HBM_MEM = 1
MS = 1000


def rounded(size: int) -> int:
    """ACL's device allocation size: roundup(size, 32) + 32."""
    return (size + 31) // 32 * 32 + 32


def mem_info() -> tuple[int, int]:
    free, total = ffi.new("size_t *"), ffi.new("size_t *")
    check(lib.aclrtGetMemInfo(ACL_HBM_MEM, free, total))
    return int(free[0]), int(total[0])


def malloc_host(nbytes: int):
    out = ffi.new("void **")
    check(lib.aclrtMallocHost(out, nbytes))
    return out[0]


SIZES = [1, 31, 32, 33, 63, 64, 100, 1000, 4064, 4096, 65536, (1 << 20) + 3]


def test_alignment_rounding_and_mem_info():
    with acl_session(AIOCANN_SIM_MEMORY="64m") as acl:
        free0, total = mem_info()
        assert total == 64 << 20 and free0 == total
        live = []
        for size in SIZES:
            p = acl.malloc(size)
            assert addr(p) % 64 == 0, f"aclrtMalloc({size}) returned {addr(p):#x}"
            free1, _ = mem_info()
            assert free0 - free1 == sum(rounded(s) for s in SIZES[: len(live) + 1])
            live.append(p)
        for p in live:
            check(lib.aclrtFree(p))
        assert mem_info() == (free0, total)
        h = malloc_host(100)
        assert addr(h) % 64 == 0
        check(lib.aclrtFreeHost(h))


def test_out_of_device_memory():
    with acl_session(AIOCANN_SIM_MEMORY="64m") as acl:
        out = ffi.new("void **")
        expect(RT_MEMORY_ALLOCATION, lib.aclrtMalloc(out, 64 << 20, 0), "out of memory")  # +32 does not fit
        half = acl.malloc(32 << 20)
        expect(RT_MEMORY_ALLOCATION, lib.aclrtMalloc(out, 32 << 20, 0), "out of memory")
        check(lib.aclrtFree(half))
        check(lib.aclrtFree(acl.malloc((64 << 20) - 32)))  # exactly the capacity
        # Sizes whose rounding would wrap around to a few bytes are refused too.
        for huge in ((1 << 64) - 1, (1 << 64) - 32, (1 << 64) - 64):
            expect(RT_MEMORY_ALLOCATION, lib.aclrtMalloc(out, huge, 0), "out of memory", str(huge))


def test_zero_sizes_and_null_pointers(acl):
    out = ffi.new("void **")
    expect(INVALID_PARAM, lib.aclrtMalloc(out, 0, 0), "size")
    expect(INVALID_PARAM, lib.aclrtMallocHost(out, 0), "size")
    expect(INVALID_PARAM, lib.aclrtMalloc(ffi.NULL, 64, 0), "devPtr")
    expect(INVALID_PARAM, lib.aclrtMallocHost(ffi.NULL, 64), "hostPtr")
    expect(INVALID_PARAM, lib.aclrtFree(ffi.NULL), "devPtr")
    expect(INVALID_PARAM, lib.aclrtFreeHost(ffi.NULL), "hostPtr")
    d = acl.malloc(64)
    host = ffi.new("char[64]")
    expect(INVALID_PARAM, lib.aclrtMemcpy(ffi.NULL, 64, host, 64, H2D), "dst")
    expect(INVALID_PARAM, lib.aclrtMemcpy(d, 64, ffi.NULL, 64, H2D), "src")
    expect(INVALID_PARAM, lib.aclrtMemset(ffi.NULL, 64, 0, 64), "devPtr")
    expect(INVALID_PARAM, lib.aclrtGetMemInfo(ACL_HBM_MEM, ffi.NULL, ffi.new("size_t *")), "free")


def test_free_errors(acl):
    p = acl.malloc(4096)
    expect(RT_PARAM_INVALID, lib.aclrtFree(vp(addr(p) + 64)), "not its start")
    check(lib.aclrtFree(p))
    expect(RT_PARAM_INVALID, lib.aclrtFree(p), "already freed")
    host = ffi.new("char[64]")
    expect(RT_PARAM_INVALID, lib.aclrtFree(host), "not device memory")
    pinned = malloc_host(4096)
    expect(RT_PARAM_INVALID, lib.aclrtFreeHost(vp(addr(pinned) + 64)), "aclrtMallocHost")
    expect(RT_PARAM_INVALID, lib.aclrtFreeHost(host), "aclrtMallocHost")
    check(lib.aclrtFreeHost(pinned))
    expect(RT_PARAM_INVALID, lib.aclrtFreeHost(pinned), "aclrtMallocHost")


def test_copies_round_trip_in_every_direction(acl):
    x = np.arange(10_000, dtype=np.int32)
    y = np.empty_like(x)
    a, b = acl.malloc(x.nbytes), acl.malloc(x.nbytes)
    check(lib.aclrtMemcpy(a, x.nbytes, ffi.from_buffer(x), x.nbytes, H2D))
    check(lib.aclrtMemcpy(b, x.nbytes, a, x.nbytes, D2D))
    check(lib.aclrtMemcpy(ffi.from_buffer(y), y.nbytes, b, y.nbytes, D2H))
    np.testing.assert_array_equal(y, x)
    z = np.zeros_like(x)
    check(lib.aclrtMemcpy(ffi.from_buffer(z), z.nbytes, ffi.from_buffer(y), y.nbytes, H2H))
    np.testing.assert_array_equal(z, x)
    # ACL_MEMCPY_DEFAULT infers the direction from the addresses.
    check(lib.aclrtMemcpy(a, 8, ffi.from_buffer(x[100:]), 8, 4))
    check(lib.aclrtMemcpy(ffi.from_buffer(z), 8, a, 8, 4))
    assert z[:2].tolist() == [100, 101]
    # A copy at an offset inside an allocation, ending exactly at its end.
    check(lib.aclrtMemcpy(vp(addr(a) + x.nbytes - 8), 8, ffi.from_buffer(x), 8, H2D))
    check(lib.aclrtMemcpy(ffi.from_buffer(z), 8, vp(addr(a) + x.nbytes - 8), 8, D2H))
    assert z[:2].tolist() == [0, 1]


def test_wrong_directions_and_bad_pointers(acl):
    x = np.arange(1024, dtype=np.int32)
    hx = ffi.from_buffer(x)
    d, e = acl.malloc(x.nbytes), acl.malloc(x.nbytes)
    freed = acl.malloc(x.nbytes)
    check(lib.aclrtFree(freed))
    n = x.nbytes
    big = ffi.new("char[]", rounded(n) + 1)
    over = rounded(n) + 1  # past the allocation's rounded size, all ACL gave it
    bad = vp(0x10)
    cases = {
        # The runtime corrects a kind the addresses contradict (MemcpyKindAutoCorrect), but a
        # side in plain host memory only admits the kinds its pair allows: H2H into device
        # memory is not one of them.
        "H2H into device memory": (
            lambda: lib.aclrtMemcpy(d, n, hx, n, H2H),
            RT_PARAM_INVALID,
            "device memory",
        ),
        "unknown kind": (lambda: lib.aclrtMemcpy(d, n, hx, n, 8), INVALID_PARAM, "kind"),
        "inner device-to-device kind (not an ACL kind)": (
            lambda: lib.aclrtMemcpy(d, n, e, n, 6),
            INVALID_PARAM,
            "kind",
        ),
        "destMax < count": (lambda: lib.aclrtMemcpy(d, n - 1, hx, n, H2D), RT_PARAM_INVALID, "destMax"),
        "past the allocation": (
            lambda: lib.aclrtMemcpy(d, over, big, over, H2D),
            RT_PARAM_INVALID,
            "allocation",
        ),
        "into freed memory": (lambda: lib.aclrtMemcpy(freed, n, hx, n, H2D), RT_PARAM_INVALID, "allocation"),
        "from freed memory": (lambda: lib.aclrtMemcpy(hx, n, freed, n, D2H), RT_PARAM_INVALID, "allocation"),
        "async past the allocation": (
            lambda: lib.aclrtMemcpyAsync(d, over, big, over, H2D, ffi.NULL),
            RT_PARAM_INVALID,
            "allocation",
        ),
        # An unmapped host address is not rejected up front: the copy faults, contained by the
        # copy engine, and fails with a DMA error.
        "from an unmapped host address": (lambda: lib.aclrtMemcpy(d, n, bad, n, H2D), RT_SYS_DMA, "0x10"),
        "to an unmapped host address": (lambda: lib.aclrtMemcpy(bad, n, d, n, D2H), RT_SYS_DMA, "0x10"),
    }
    for name, (call, code, fragment) in cases.items():
        rc = call()
        msg = last_error().split("\n", 1)[0]
        assert rc == code, f"{name}: expected {code}, got {rc} ({msg})"
        assert fragment in msg, f"{name}: {fragment!r} not in {msg!r}"
    # The rounded size is usable; nothing was corrupted and the device still copies.
    check(lib.aclrtMemcpy(d, over - 1, big, over - 1, H2D))
    check(lib.aclrtMemcpy(d, n, hx, n, H2D))
    assert acl.from_device(d, 1024, np.int32).tolist() == x.tolist()


@pytest.mark.parametrize("size", [1, 100, 4064, 4096, 10_000])
def test_guard_pages_fault_kernels_past_an_allocation(acl, k, size):
    """An allocation is followed by a guard page: a kernel writing the last byte of the
    (rounded, 64-aligned) block is fine, one writing the next byte faults with 507015."""
    end = (rounded(size) + 63) // 64 * 64
    buf = acl.malloc(size)
    s = acl.stream()
    acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", size - 1))
    acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", end - 1))
    acl.sync(s)
    acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", end))
    expect(RT_AICORE_EXCEPTION, sync_rc(s), "poke", hex(addr(buf) + end))


PAGE = mmap.PAGESIZE
GAP_MAX = 64 << 20  # native/sim/memory.c: the unmapped gap on each side is capped here


@pytest.mark.parametrize(
    "size",
    [16 * PAGE - 64, 1 << 20, 80 << 20],  # 16 pages exactly, 1 MiB (+ a page), past the cap
    ids=["16-pages", "1MiB", "80MiB"],
)
def test_far_overruns_and_underruns_fault_and_spare_the_neighbours(acl, k, size):
    """Issue 12: an allocation had one guard page after it, so a kernel writing two pages past
    its end wrote silently into the next allocation. Now a write N pages past either end
    faults with 507015 for every N up to the allocation's own size (or the 64 MiB cap), and
    the allocations on both sides keep their contents."""
    end = (rounded(size) + 63) // 64 * 64  # the block ends where its pages end
    before, buf, after = acl.malloc(size), acl.malloc(size), acl.malloc(size)
    for p in (before, buf, after):
        check(lib.aclrtMemset(p, size, 0x5A, size))
    reach = min(end, GAP_MAX) // PAGE  # pages of overrun guaranteed to fault
    offsets = {}
    for n in sorted({1, 2, 16, reach} & set(range(1, reach + 1))):
        offsets[f"{n} pages past the end"] = end - 1 + n * PAGE
        offsets[f"{n} pages before the start"] = (1 << 64) - n * PAGE  # buf - n pages
    for what, offset in offsets.items():
        s = acl.stream()
        acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", offset))
        target = (addr(buf) + offset) % (1 << 64)
        rc = sync_rc(s)
        assert rc == RT_AICORE_EXCEPTION, f"a write {what} of a {size}-byte allocation: rc {rc}"
        expect(RT_AICORE_EXCEPTION, rc, "poke", hex(target))
        check(lib.aclrtDestroyStream(s))
    for p in (before, buf, after):
        assert (acl.from_device(p, size, np.uint8) == 0x5A).all()


def test_kernels_fault_before_an_allocation_and_in_freed_memory(acl, k):
    buf = acl.malloc(4064)  # rounded to exactly one page: it starts on a page boundary
    s = acl.stream()
    acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", (1 << 64) - 1))  # buf - 1
    expect(RT_AICORE_EXCEPTION, sync_rc(s), "poke", hex(addr(buf) - 1))

    gone = acl.malloc(4096)
    check(lib.aclrtFree(gone))
    s2 = acl.stream()
    acl.launch(k.poke, 1, s2, ("ptr", gone), ("uint64_t", 0))
    expect(RT_AICORE_EXCEPTION, sync_rc(s2), "poke", hex(addr(gone)))


def test_pageable_async_copy_returns_after_earlier_work(acl, k):
    """From pageable memory, aclrtMemcpyAsync returns only once the copy is done -- which, on a
    stream, is after the work submitted before it."""
    s = acl.stream()
    x = np.arange(1 << 16, dtype=np.float32)
    d = acl.malloc(x.nbytes)
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 300 * MS))
    t0 = time.monotonic()
    check(lib.aclrtMemcpyAsync(d, x.nbytes, ffi.from_buffer(x), x.nbytes, H2D, s))
    assert time.monotonic() - t0 >= 0.25
    np.testing.assert_array_equal(acl.from_device(d, x.shape, x.dtype), x)  # already there

    y = np.zeros_like(x)
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 100 * MS))
    acl.launch(k.write_value, 1, s, ("ptr", d), ("uint32_t", 0), ("int32_t", 0x7F7F7F7F))
    check(lib.aclrtMemcpyAsync(ffi.from_buffer(y), y.nbytes, d, y.nbytes, D2H, s))
    assert y.view(np.int32)[0] == 0x7F7F7F7F and (y[1:] == x[1:]).all()


def test_pinned_async_copy_is_asynchronous(acl, k):
    """From aclrtMallocHost memory the call returns at once; the copy happens in stream order."""
    s = acl.stream()
    n = 1 << 16
    x = np.arange(n, dtype=np.float32)
    d = acl.to_device(x)
    pinned = malloc_host(x.nbytes)
    host = np.frombuffer(ffi.buffer(pinned, x.nbytes), np.float32)
    host[:] = x * 2
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 300 * MS))
    t0 = time.monotonic()
    check(lib.aclrtMemcpyAsync(d, x.nbytes, pinned, x.nbytes, H2D, s))
    assert time.monotonic() - t0 < 0.1
    assert acl.query(s) == STREAM_NOT_READY
    np.testing.assert_array_equal(acl.from_device(d, n, np.float32), x)  # not copied yet
    acl.sync(s)
    np.testing.assert_array_equal(acl.from_device(d, n, np.float32), x * 2)

    host[:] = 0  # D2H into pinned memory: written only when the stream gets there
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 200 * MS))
    check(lib.aclrtMemcpyAsync(pinned, x.nbytes, d, x.nbytes, D2H, s))
    assert not host.any()
    acl.sync(s)
    np.testing.assert_array_equal(host, x * 2)
    del host
    check(lib.aclrtFreeHost(pinned))


def test_memset(acl, k):
    d = acl.malloc(256)
    check(lib.aclrtMemset(d, 256, 0xAB, 256))
    assert set(acl.from_device(d, 256, np.uint8).tolist()) == {0xAB}
    check(lib.aclrtMemset(vp(addr(d) + 8), 16, 0x11, 16))
    got = acl.from_device(d, 256, np.uint8)
    assert got[8:24].tolist() == [0x11] * 16 and set(got[:8]) | set(got[24:]) == {0xAB}
    expect(RT_PARAM_INVALID, lib.aclrtMemset(d, 16, 0, 32), "maxCount")
    expect(RT_PARAM_INVALID, lib.aclrtMemset(d, 512, 0, 512), "allocation")
    host = ffi.new("char[64]")
    expect(RT_PARAM_INVALID, lib.aclrtMemset(host, 64, 0, 64), "aclrtMallocHost")

    pinned = malloc_host(64)  # ACL host memory can be set too
    check(lib.aclrtMemset(pinned, 64, 0x5A, 64))
    assert bytes(ffi.buffer(pinned, 64)) == b"\x5a" * 64
    check(lib.aclrtFreeHost(pinned))

    s = acl.stream()  # stream-ordered: a kernel, then a memset, then a kernel
    acl.launch(k.write_value, 1, s, ("ptr", d), ("uint32_t", 0), ("int32_t", 5))
    check(lib.aclrtMemsetAsync(d, 256, 0, 256, s))
    acl.launch(k.write_value, 1, s, ("ptr", d), ("uint32_t", 1), ("int32_t", 6))
    acl.sync(s)
    assert acl.from_device(d, 3, np.int32).tolist() == [0, 6, 0]


def test_copy_kinds_are_corrected_from_the_addresses(acl):
    """The runtime's MemcpyKindAutoCorrect: device memory forces the direction whatever kind is
    passed, plain host memory admits the kinds of its pair, and count 0 succeeds before any
    check (hicann/runtime api_error.cc, src/acl/aclrt_impl/memory.cpp)."""
    x = np.arange(256, dtype=np.int32)
    y = np.zeros_like(x)
    hx, hy, n = ffi.from_buffer(x), ffi.from_buffer(y), x.nbytes
    d, e = acl.malloc(n), acl.malloc(n)
    check(lib.aclrtMemcpy(d, n, hx, n, 3))  # D2D from plain host memory into device: allowed
    check(lib.aclrtMemcpy(e, n, d, n, 1))  # H2D between two device buffers: forced to D2D
    check(lib.aclrtMemcpy(hy, n, e, n, 4))  # DEFAULT: device to host
    assert y.tolist() == x.tolist()
    z = np.zeros_like(x)
    check(lib.aclrtMemcpy(ffi.from_buffer(z), n, hx, n, 2))  # D2H between host buffers: allowed
    assert z.tolist() == x.tolist()
    assert lib.aclrtMemcpy(ffi.NULL, 0, ffi.NULL, 0, 99) == 0  # count 0: nothing is checked
    assert lib.aclrtMemcpyAsync(ffi.NULL, 0, ffi.NULL, 0, 99, ffi.NULL) == 0


def test_an_async_host_to_host_copy_is_not_supported(acl):
    """ApiErrorDecorator::MemcpyAsync: after the kind correction, a host-to-host copy is
    RT_ERROR_FEATURE_NOT_SUPPORT in online mode (a program on the host): 207000, whatever kind
    was passed and whether the host memory is pinned or not; nothing is copied. The
    synchronous copy does host-to-host copies."""
    from acl_codes import RT_FEATURE_NOT_SUPPORT

    x = np.arange(64, dtype=np.int32)
    y = np.zeros_like(x)
    hx, hy, n = ffi.from_buffer(x), ffi.from_buffer(y), x.nbytes
    pinned = ffi.new("void **")
    check(lib.aclrtMallocHost(pinned, n))
    try:
        s = acl.stream()
        for kind in (H2H, 4):  # H2H, and DEFAULT (which the addresses make H2H)
            expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtMemcpyAsync(hy, n, hx, n, kind, s), "host-to-host")
        expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtMemcpyAsync(pinned[0], n, hx, n, H2H, s), "host-to-host")
        expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtMemcpyAsync(hy, n, pinned[0], n, 4, s), "host-to-host")
        check(sync_rc(s))
        assert not y.any()
        check(lib.aclrtMemcpy(hy, n, hx, n, H2H))
        assert y.tolist() == x.tolist()
    finally:
        check(lib.aclrtFreeHost(pinned[0]))
