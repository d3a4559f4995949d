"""The seed flow end to end through the raw binding: load the vector-add binary, build its args
(three device pointers and a placeholder tiling block), launch it on the AI cores, compare with
numpy; update parameters and relaunch; and the aclrtLaunchKernel path, whose args already live
in device memory."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from acl_util import RT_PARAM_INVALID, KernelArgs, expect, launch_rc, sync_rc, tiling

from aiocann._lib import check, ffi, lib

N = 1_000_003  # not a multiple of the block count: the last block gets a short slice
ARGS_BYTES = 3 * 8 + 8 + 8  # three pointers, the placeholder slot, the tiling data


def _inputs(n: int = N) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def _user_mem_size(fn) -> int:
    size = ffi.new("size_t *")
    check(lib.aclrtKernelArgsGetMemSize(fn, ARGS_BYTES, size))
    return size[0]


def _add_args(fn, kind: str, x, y, z, total: int) -> tuple[KernelArgs, list]:
    args = KernelArgs(fn, None if kind == "init" else _user_mem_size(fn))
    params = [args.ptr(x), args.ptr(y), args.ptr(z)]
    ph = args.placeholder()
    args.data(ph, tiling(total))
    return args.finalize(), params


@pytest.mark.parametrize("kind", ["init", "user_mem"])
def test_vector_add_matches_numpy(acl, vector_add_path, kind):
    fn = acl.function(vector_add_path, "add_custom")
    s = acl.stream()
    x, y = _inputs()
    dx, dy, dz = acl.to_device(x), acl.to_device(y), acl.malloc(x.nbytes)
    args, _ = _add_args(fn, kind, dx, dy, dz, N)
    check(launch_rc(fn, 8, s, args))
    acl.sync(s)
    np.testing.assert_array_equal(acl.from_device(dz, N, np.float32), x + y)


@pytest.mark.parametrize("blocks", [1, 3, 8, 64])
def test_any_block_count_covers_the_tiling_total(acl, vector_add_path, blocks):
    """The kernel reads its element count from the tiling block: elements past it stay as they
    were, whatever the number of blocks (64 is more blocks than AI cores)."""
    fn = acl.function(vector_add_path, "add_custom")
    s = acl.stream()
    n, total = 10_000, 9_995
    x, y = _inputs(n)
    dx, dy, dz = acl.to_device(x), acl.to_device(y), acl.malloc(x.nbytes)
    acl.zeros(dz, x.nbytes)
    args, _ = _add_args(fn, "init", dx, dy, dz, total)
    check(launch_rc(fn, blocks, s, args))
    acl.sync(s)
    z = acl.from_device(dz, n, np.float32)
    np.testing.assert_array_equal(z[:total], x[:total] + y[:total])
    np.testing.assert_array_equal(z[total:], np.zeros(n - total, np.float32))


@pytest.mark.parametrize("kind", ["init", "user_mem"])
def test_para_update_finalize_relaunch(acl, vector_add_path, kind):
    """Launch, then -- before the first launch has necessarily run -- point y and z elsewhere,
    finalize again and relaunch: the args were copied at the first launch, so each launch
    computes with its own pointers."""
    fn = acl.function(vector_add_path, "add_custom")
    s = acl.stream()
    x, y = _inputs()
    y2 = (y * 3 - 1).astype(np.float32)
    dx, dy, dy2 = acl.to_device(x), acl.to_device(y), acl.to_device(y2)
    dz, dw = acl.malloc(x.nbytes), acl.malloc(x.nbytes)
    args, (_, p_y, p_z) = _add_args(fn, kind, dx, dy, dz, N)
    check(launch_rc(fn, 8, s, args))

    args.update(p_y, "void *", dy2)
    args.update(p_z, "void *", dw)
    # Updated since the last Finalize: not launchable until finalized again (reference §10.5).
    expect(RT_PARAM_INVALID, launch_rc(fn, 8, s, args), "aclrtLaunchKernelWithConfig", "finalize")
    args.finalize()
    check(launch_rc(fn, 8, s, args))
    acl.sync(s)

    np.testing.assert_array_equal(acl.from_device(dz, N, np.float32), x + y)
    np.testing.assert_array_equal(acl.from_device(dw, N, np.float32), x + y2)


def test_relaunch_same_args_many_times(acl, vector_add_path):
    """One finalized handle launched repeatedly, updating the output pointer between launches."""
    fn = acl.function(vector_add_path, "add_custom")
    s = acl.stream()
    n = 4096
    x, y = _inputs(n)
    dx, dy = acl.to_device(x), acl.to_device(y)
    outs = [acl.malloc(x.nbytes) for _ in range(6)]
    args, (_, _, p_z) = _add_args(fn, "user_mem", dx, dy, outs[0], n)
    for i, out in enumerate(outs):
        if i:
            args.update(p_z, "void *", out)
            args.finalize()
        check(launch_rc(fn, 4, s, args))
    acl.sync(s)
    for out in outs:
        np.testing.assert_array_equal(acl.from_device(out, n, np.float32), x + y)


def test_launch_kernel_with_args_in_device_memory(acl, vector_add_path):
    """aclrtLaunchKernel: the caller lays the args out in device memory itself, placeholder
    slot included (it points at the tiling data placed after the parameters). The args are
    read when the kernel runs, so rewriting them and relaunching uses the new values."""
    fn = acl.function(vector_add_path, "add_custom")
    s = acl.stream()
    x, y = _inputs()
    dx, dy, dz, dw = acl.to_device(x), acl.to_device(y), acl.malloc(x.nbytes), acl.malloc(x.nbytes)
    dargs = acl.malloc(ARGS_BYTES)
    base = int(ffi.cast("uintptr_t", dargs))

    def put_args(out) -> None:
        ptrs = [int(ffi.cast("uintptr_t", p)) for p in (dx, dy, out)]
        block = struct.pack("<4Q", *ptrs, base + 32) + tiling(N)
        assert len(block) == ARGS_BYTES
        check(lib.aclrtMemcpy(dargs, ARGS_BYTES, block, ARGS_BYTES, 1))

    put_args(dz)
    check(lib.aclrtLaunchKernel(fn, 8, dargs, ARGS_BYTES, s))
    acl.sync(s)
    np.testing.assert_array_equal(acl.from_device(dz, N, np.float32), x + y)

    put_args(dw)
    check(lib.aclrtLaunchKernel(fn, 8, dargs, ARGS_BYTES, s))
    acl.sync(s)
    np.testing.assert_array_equal(acl.from_device(dw, N, np.float32), x + y)


def test_default_stream(acl, vector_add_path):
    """A NULL stream is the current context's default stream."""
    fn = acl.function(vector_add_path, "add_custom")
    n = 1000
    x, y = _inputs(n)
    dx, dy, dz = acl.to_device(x), acl.to_device(y), acl.malloc(x.nbytes)
    args, _ = _add_args(fn, "init", dx, dy, dz, n)
    check(launch_rc(fn, 2, ffi.NULL, args))
    check(sync_rc(ffi.NULL))
    np.testing.assert_array_equal(acl.from_device(dz, n, np.float32), x + y)
