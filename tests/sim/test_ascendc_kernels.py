"""Ascend C kernels on the simulator, checked against numpy (issue 22, items 1 and 4).

The kernels are in tests/kernels/ascendc/, written in the style of the public samples (the
runtime's example/kernel_func/ and the asc-devkit add samples): TPipe/TQue double buffering,
tiling by placeholder pointers and by GET_TILING_DATA, leaky relu with Muls/Max, a row softmax
with reductions, printf, trap. Element-wise results are exact where the hardware rounds once
(add, sub, mul, max, min, duplicate, casts); transcendental functions and reductions are within
1e-6 relative in float32 and 1e-3 in float16.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest
from acl_util import RT_AICORE_EXCEPTION, TESTS_DIR, last_error, sync_rc

from aiocann.compiler import build_kernel

KERNELS = TESTS_DIR / "kernels" / "ascendc"
F32, F16 = np.float32, np.float16


def kernel(acl: Any, source: str, name: str, cflags: tuple[str, ...] = ()) -> Any:
    return acl.function(build_kernel(KERNELS / source, cflags=cflags), name)


def run(acl: Any, fn: Any, blocks: int, *params: tuple[str, Any]) -> None:
    s = acl.stream()
    acl.launch(fn, blocks, s, *params)
    acl.sync(s)


def fails(acl: Any, fn: Any, blocks: int, *params: tuple[str, Any]) -> str:
    s = acl.stream()
    acl.launch(fn, blocks, s, *params)
    assert sync_rc(s) == RT_AICORE_EXCEPTION
    return last_error()


# --------------------------------------------------------------------------- the samples


@pytest.mark.parametrize(("name", "dtype"), [("add_custom", F16), ("add_custom_f32", F32)])
def test_double_buffered_add(acl, name, dtype):
    """add_custom as the public sample has it: 8 blocks, 8 tiles of 2 buffers each; its tiling
    (total length, tile count) through placeholder pointers."""
    total, tiles = 8 * 2048 * 4, 8
    rng = np.random.default_rng(1)
    x = rng.standard_normal(total).astype(dtype)
    y = rng.standard_normal(total).astype(dtype)
    dx, dy, dz = acl.to_device(x), acl.to_device(y), acl.malloc(x.nbytes)
    length, num = acl.to_device(np.array([total], np.int32)), acl.to_device(np.array([tiles], np.int32))
    run(
        acl,
        kernel(acl, "add_custom.cpp", name),
        8,
        ("ptr", dx),
        ("ptr", dy),
        ("ptr", dz),
        ("ptr", length),
        ("ptr", num),
    )
    np.testing.assert_array_equal(acl.from_device(dz, total, dtype), x + y)


@pytest.mark.parametrize("key", [0, 1])
def test_get_tiling_data_and_tiling_key(acl, key):
    """GET_TILING_DATA fills the registered struct from the tiling pointer; the tile does not
    divide a block's share (the last tile is shorter); TILING_KEY_IS(1) is the variant built
    with -DTILING_KEY_VAR=1."""
    total, tile, blocks = 8 * 3000, 1024, 8
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(total).astype(F32), rng.standard_normal(total).astype(F32)
    dx, dy, dz = acl.to_device(x), acl.to_device(y), acl.malloc(x.nbytes)
    dt = acl.to_device(np.frombuffer(struct.pack("<II", total, tile), np.uint8))
    fn = kernel(acl, "add_tiling.cpp", "add_tiling", (f"-DTILING_KEY_VAR={key}",))
    run(acl, fn, blocks, ("ptr", dx), ("ptr", dy), ("ptr", dz), ("ptr", dt))
    want = (x + y) * F32(2) if key else x + y
    np.testing.assert_array_equal(acl.from_device(dz, total, F32), want)


def test_leaky_relu_two_ways(acl):
    blocks, per, alpha = 4, 4096, 0.1
    x = np.random.default_rng(3).standard_normal(blocks * per).astype(F16)
    dx = acl.to_device(x)
    a16 = F16(alpha).astype(F32)
    scaled = (x.astype(F32) * a16).astype(F16)
    for name in ("leaky_relu", "leaky_relu_op"):
        dy = acl.malloc(x.nbytes)
        run(
            acl,
            kernel(acl, "leaky_relu.cpp", name),
            blocks,
            ("ptr", dx),
            ("ptr", dy),
            ("float", alpha),
            ("uint32_t", per),
        )
        got = acl.from_device(dy, x.size, F16)
        want = np.maximum(x, scaled) if name == "leaky_relu" else np.where(x >= 0, x, scaled)
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_clamp_with_maxs_mins(acl):
    x = np.random.default_rng(4).standard_normal(2 * 1024).astype(F32)
    dx, dy = acl.to_device(x), acl.malloc(x.nbytes)
    run(
        acl,
        kernel(acl, "leaky_relu.cpp", "clamp"),
        2,
        ("ptr", dx),
        ("ptr", dy),
        ("float", -0.5),
        ("float", 0.75),
        ("uint32_t", 1024),
    )
    np.testing.assert_array_equal(acl.from_device(dy, x.size, F32), np.clip(x, F32(-0.5), F32(0.75)))


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_row_softmax_float(acl):
    rows, cols = 37, 512
    x = (np.random.default_rng(5).standard_normal((rows, cols)) * 3).astype(F32)
    dx, dy = acl.to_device(x), acl.malloc(x.nbytes)
    run(
        acl,
        kernel(acl, "softmax.cpp", "softmax_rows"),
        8,
        ("ptr", dx),
        ("ptr", dy),
        ("uint32_t", rows),
        ("uint32_t", cols),
    )
    got = acl.from_device(dy, (rows, cols), F32)
    shifted = (x - x.max(axis=1, keepdims=True)).astype(np.float64)  # rounded in float32, as the kernel's Adds
    np.testing.assert_allclose(got, _softmax(shifted), rtol=2e-6, atol=1e-9)
    np.testing.assert_allclose(got.sum(axis=1), 1, rtol=1e-5)


def test_row_softmax_half_through_float(acl):
    rows, cols = 16, 256
    x = np.random.default_rng(6).standard_normal((rows, cols)).astype(F16)
    dx, dy = acl.to_device(x), acl.malloc(x.nbytes)
    run(
        acl,
        kernel(acl, "softmax.cpp", "softmax_rows_half"),
        4,
        ("ptr", dx),
        ("ptr", dy),
        ("uint32_t", rows),
        ("uint32_t", cols),
    )
    want = _softmax(x.astype(np.float64))
    np.testing.assert_allclose(acl.from_device(dy, (rows, cols), F16).astype(np.float64), want, rtol=1e-3, atol=1e-6)


# --------------------------------------------------------------------------- tier 0


def test_printf_prints_whole_prefixed_lines_from_every_block(acl, capfd):
    blocks = 6
    run(acl, kernel(acl, "misc.cpp", "hello"), blocks, ("uint32_t", 42))
    lines = capfd.readouterr().out.splitlines()
    for b in range(blocks):
        prefix = f"[AIV Block {b}/{blocks}] "
        assert lines.count(prefix + "Hello World") == 1
        assert lines.count(f"{prefix}value 42 from block {b} of {blocks}, half 1.500000") == 1
        assert lines.count(prefix + "second line") == 1
        # A call's lines stay together: the second line follows its first.
        i = lines.index(f"{prefix}value 42 from block {b} of {blocks}, half 1.500000")
        assert lines[i + 1] == prefix + "second line"
    assert len(lines) == 3 * blocks


def test_block_idx_variables_and_cache_noops(acl):
    """easy_op is example/kernel_func/easy_OP.cpp's kernel: x[block_idx] += 1 through the
    variables, dcci as a no-op."""
    blocks = 5
    x = np.arange(2 * blocks, dtype=np.uint32)
    dx = acl.to_device(x)
    run(acl, kernel(acl, "misc.cpp", "easy_op"), blocks, ("ptr", dx))
    got = acl.from_device(dx, x.size, np.uint32)
    np.testing.assert_array_equal(got[:blocks], x[:blocks] + 1)
    np.testing.assert_array_equal(got[blocks:], blocks)


def test_trap_ends_the_launch_as_an_ai_core_exception(acl):
    out = acl.malloc(64)
    msg = fails(acl, kernel(acl, "misc.cpp", "trap_block"), 4, ("ptr", out), ("int32_t", 2))
    assert "kernel trap_block, block 2 of 4: trap: the kernel called trap()" in msg


def test_builtin_trap_is_contained(acl):
    msg = fails(acl, kernel(acl, "misc.cpp", "builtin_trap"), 1, ("uint32_t", 0))
    assert "kernel builtin_trap, block 0 of 1" in msg and "SIGILL" in msg


@pytest.mark.parametrize(
    ("how", "text"),
    [
        (0, "assert: "),
        (1, "abort: the kernel called abort()"),
        (2, "exception: the kernel threw an exception: index 7 past 3"),
        (3, "exception: the kernel threw an exception (not a std::exception)"),
    ],
    ids=["assert", "abort", "std_exception", "other_exception"],
)
def test_libc_assert_abort_and_exceptions_end_the_block_not_the_process(acl, how, text):
    """The C library's assert() and abort() and an exception let out of the kernel end the block
    as an AI-core exception, as trap() does; they ended the host process (SIGABRT, or
    std::terminate unwinding into the simulator). The other blocks of the launch still ran,
    and the stream goes on."""
    out = acl.malloc(64)
    acl.zeros(out, 64)
    fn = kernel(acl, "misc.cpp", "host_failures")
    msg = fails(acl, fn, 4, ("ptr", out), ("int32_t", 2), ("int32_t", how))
    assert "kernel host_failures, block 2 of 4: " + text in msg, msg
    if how == 0:
        assert "misc.cpp:" in msg and "host_failures" in msg and "Assertion `block_idx != which' failed" in msg, msg
    run(acl, fn, 4, ("ptr", out), ("int32_t", 9), ("int32_t", how))
    assert acl.from_device(out, 4, np.int32).tolist() == [0, 1, 2, 3]


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    u = x.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def test_bfloat16_storage_rounds_to_nearest_even_and_arch(acl):
    x = np.random.default_rng(7).standard_normal(256).astype(F32)
    x[:4] = [1.00390625, 1.01171875, -2.00390625, 3.0]  # ties: even below, even above
    dx, bits, back, arch = acl.to_device(x), acl.malloc(512), acl.malloc(1024), acl.malloc(16)
    run(
        acl,
        kernel(acl, "misc.cpp", "bf16_round"),
        1,
        ("ptr", dx),
        ("ptr", bits),
        ("ptr", back),
        ("ptr", arch),
        ("uint32_t", x.size),
    )
    want = _bf16_bits(x)
    np.testing.assert_array_equal(acl.from_device(bits, x.size, np.uint16), want)
    np.testing.assert_array_equal(acl.from_device(back, x.size, F32), (want.astype(np.uint32) << 16).view(F32))
    np.testing.assert_array_equal(acl.from_device(arch, 3, np.uint32), [2201, 192 * 1024, 192 * 1024])


# --------------------------------------------------------------------------- the instructions

CAP = 16384  # bytes per operand in ops.cpp


def _operands(acl: Any, dtype: Any, fill: float = -9.0, positive: bool = False) -> tuple[np.ndarray, ...]:
    n = CAP // np.dtype(dtype).itemsize
    rng = np.random.default_rng(8)
    a = rng.uniform(0.25, 8, n) if positive else rng.standard_normal(n) * 4  # exp(8) fits a half
    b = rng.standard_normal(n) * 4
    b[np.abs(b) < 0.1] = 0.5  # no division by ~0
    a, b = a.astype(dtype), b.astype(dtype)
    out = np.full(n, fill, dtype)
    return a, b, out


def _run_count(acl: Any, name: str, dtype: Any, op: int, n: int, positive: bool = False) -> tuple[np.ndarray, ...]:
    a, b, out = _operands(acl, dtype, positive=positive)
    da, db, do = acl.to_device(a), acl.to_device(b), acl.to_device(out)
    run(acl, kernel(acl, "ops.cpp", name), 1, ("ptr", da), ("ptr", db), ("ptr", do), ("uint32_t", op), ("uint32_t", n))
    return a, b, out, acl.from_device(do, out.size, dtype)


EXACT = {
    0: lambda a, b: a + b,
    1: lambda a, b: a - b,
    2: lambda a, b: a * b,
    3: lambda a, b: a / b,
    4: np.maximum,
    5: np.minimum,
    6: lambda a, b: a + a.dtype.type(2.5),
    7: lambda a, b: a * a.dtype.type(-1.5),
    8: lambda a, b: np.maximum(a, a.dtype.type(0.25)),
    9: lambda a, b: np.minimum(a, a.dtype.type(0.25)),
    12: lambda a, b: np.abs(a),
    16: lambda a, b: np.maximum(a, a.dtype.type(0)),
    17: lambda a, b: np.where(a >= 0, a, a * a.dtype.type(0.1)),
    18: lambda a, b: np.full_like(a, 3),
    19: lambda a, b: a + b,  # dst = src0 + src1
    20: lambda a, b: a * b,
}
ROUNDED = {
    10: lambda a: np.exp(a.astype(np.float64)),
    11: lambda a: np.log(a.astype(np.float64)),
    13: lambda a: np.sqrt(a.astype(np.float64)),
    14: lambda a: 1 / np.sqrt(a.astype(np.float64)),
    15: lambda a: 1 / a.astype(np.float64),
}


@pytest.mark.parametrize(("name", "dtype"), [("count_f32", F32), ("count_f16", F16)])
@pytest.mark.parametrize("op", sorted(EXACT))
def test_count_form_exact_ops(acl, name, dtype, op):
    n = 1000  # not a whole number of repeats
    a, b, out, got = _run_count(acl, name, dtype, op, n)
    np.testing.assert_array_equal(got[:n], EXACT[op](a[:n], b[:n]))
    np.testing.assert_array_equal(got[n:], out[n:])  # past count: untouched


@pytest.mark.parametrize(("name", "dtype", "rtol"), [("count_f32", F32, 1e-6), ("count_f16", F16, 1e-3)])
@pytest.mark.parametrize("op", sorted(ROUNDED))
def test_count_form_transcendental_ops(acl, name, dtype, rtol, op):
    n = 777
    a, b, out, got = _run_count(acl, name, dtype, op, n, positive=True)
    np.testing.assert_allclose(got[:n].astype(np.float64), ROUNDED[op](a[:n]), rtol=rtol)
    np.testing.assert_array_equal(got[n:], out[n:])


@pytest.mark.parametrize("op", [0, 1, 2, 4, 5, 6])
def test_count_form_int32(acl, op):
    n = 1000
    rng = np.random.default_rng(9)
    a = rng.integers(-1000, 1000, CAP // 4, dtype=np.int32)
    b = rng.integers(-1000, 1000, CAP // 4, dtype=np.int32)
    out = np.zeros(CAP // 4, np.int32)
    da, db, do = acl.to_device(a), acl.to_device(b), acl.to_device(out)
    run(
        acl,
        kernel(acl, "ops.cpp", "count_i32"),
        1,
        ("ptr", da),
        ("ptr", db),
        ("ptr", do),
        ("uint32_t", op),
        ("uint32_t", n),
    )
    want = {0: a + b, 1: a - b, 2: a * b, 4: np.maximum(a, b), 5: np.minimum(a, b), 6: a + 7}[op]
    np.testing.assert_array_equal(acl.from_device(do, a.size, np.int32)[:n], want[:n])


def _lanes(lo: int, hi: int, cont: bool, lanes: int) -> list[int]:
    if cont:
        return list(range(min(lo, lanes)))
    bits = lo | (hi << 64 if lanes > 64 else 0)
    return [ln for ln in range(lanes) if bits >> ln & 1]


def _mask_expect(op, a, b, out, lanes, repeat, dblk, sblk, drep, srep):
    want = out.copy()
    e = 32 // a.itemsize
    for r in range(repeat):
        for ln in lanes:
            d = (r * drep + (ln // e) * dblk) * e + ln % e
            s = (r * srep + (ln // e) * sblk) * e + ln % e
            if op == 0:
                want[d] = a[s] + b[s]
            elif op == 1:
                want[d] = np.exp(a[s].astype(np.float64)).astype(a.dtype)
            elif op == 2:
                want[d] = a[s] * a.dtype.type(3)
            else:
                want[d] = 7
    return want


@pytest.mark.parametrize(("name", "dtype"), [("mask_f32", F32), ("mask_f16", F16)])
@pytest.mark.parametrize("op", [0, 1, 2, 3])
@pytest.mark.parametrize(
    ("cont", "lo", "hi", "repeat", "dblk", "sblk", "drep", "srep"),
    [
        (1, 1000, 0, 4, 1, 1, 8, 8),  # a continuous mask above the lanes counts as all of them
        (1, 37, 0, 3, 1, 1, 8, 8),
        (0, 0x69A569A569A569A5, 0x0F0F00FF12345678, 5, 1, 1, 8, 8),
        (0, 0xFFFF0000FFFF0000, 0xAAAAAAAAAAAAAAAA, 3, 2, 1, 16, 8),  # strided dst blocks
        (0, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 4, 1, 2, 8, 16),  # strided sources
        (1, 64, 0, 6, 1, 1, 4, 10),  # overlapping dst repeats, gapped sources
        (0, 0, 0, 4, 1, 1, 8, 8),  # an empty mask: nothing changes
        (1, 128, 0, 0, 1, 1, 8, 8),  # no repeats: a no-op
    ],
)
def test_mask_forms_honour_mask_and_strides(acl, name, dtype, op, cont, lo, hi, repeat, dblk, sblk, drep, srep):
    a, b, out = _operands(acl, dtype)
    if op == 1:
        a = np.clip(a, -4, 4).astype(dtype)
    da, db, do = acl.to_device(a), acl.to_device(b), acl.to_device(out)
    params = [("uint32_t", op), ("uint32_t", cont), ("uint64_t", lo), ("uint64_t", hi)]
    params += [("uint32_t", v) for v in (repeat, dblk, sblk, drep, srep)]
    run(acl, kernel(acl, "ops.cpp", name), 1, ("ptr", da), ("ptr", db), ("ptr", do), *params)
    got = acl.from_device(do, out.size, dtype)
    lanes = _lanes(lo, hi, bool(cont), 256 // a.itemsize)
    want = _mask_expect(op, a, b, out, lanes, repeat, dblk, sblk, drep, srep)
    if op == 1:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3 if dtype is F16 else 1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def _reduce(acl, dtype, kind, n=0, mask=0, repeat=0, rep=8, data=None):
    x = data if data is not None else np.random.default_rng(10).standard_normal(65536 // np.dtype(dtype).itemsize)
    x = x.astype(dtype)
    dx, do = acl.to_device(x), acl.malloc(32)
    name = "reduce_f32" if dtype is F32 else "reduce_f16"
    params = [("uint32_t", v) for v in (kind, n, mask, repeat, rep)]
    run(acl, kernel(acl, "ops.cpp", name), 1, ("ptr", dx), ("ptr", do), *params)
    return x, acl.from_device(do, 32 // np.dtype(dtype).itemsize, dtype)


@pytest.mark.parametrize(("dtype", "rtol"), [(F32, 1e-6), (F16, 1e-3)])
@pytest.mark.parametrize("n", [1, 64, 200, 1000, 8000])
def test_reduce_sum_count_form(acl, dtype, rtol, n):
    data = np.random.default_rng(11).uniform(0.5, 1.5, 65536 // np.dtype(dtype).itemsize)
    x, out = _reduce(acl, dtype, 0, n=n, data=data)
    np.testing.assert_allclose(float(out[0]), x[:n].astype(np.float64).sum(), rtol=rtol)


@pytest.mark.parametrize("dtype", [F32, F16])
@pytest.mark.parametrize(("kind", "pick"), [(1, np.argmax), (2, np.argmin)])
@pytest.mark.parametrize("n", [5, 129, 4000])
def test_reduce_max_min_value_and_first_index(acl, dtype, kind, pick, n):
    data = np.random.default_rng(12).integers(-50, 50, 65536 // np.dtype(dtype).itemsize).astype(np.float64)
    x, out = _reduce(acl, dtype, kind, n=n, data=data)
    i = int(pick(x[:n]))  # numpy's arg*: the first of equal extremes, as the device
    assert out[0] == x[i]
    idx = out[1:2].view(np.uint16 if dtype is F16 else np.uint32)[0]
    assert idx == i


@pytest.mark.parametrize("dtype", [F32, F16])
def test_reduce_mask_form_with_rep_stride(acl, dtype):
    lanes = 256 // np.dtype(dtype).itemsize
    e = 32 // np.dtype(dtype).itemsize
    data = np.random.default_rng(13).uniform(0.5, 1.5, 65536 // np.dtype(dtype).itemsize)
    mask, repeat, rep = lanes // 2 + 3, 7, 12
    x, out = _reduce(acl, dtype, 0, mask=mask, repeat=repeat, rep=rep, data=data)
    sel = np.concatenate([x[r * rep * e : r * rep * e + mask] for r in range(repeat)])
    np.testing.assert_allclose(float(out[0]), sel.astype(np.float64).sum(), rtol=1e-3 if dtype is F16 else 1e-6)
    x, out = _reduce(acl, dtype, 1, mask=mask, repeat=repeat, rep=rep, data=data)
    assert out[0] == sel.max()
    assert lanes > mask


def _cast(acl, which, mode, x, out_dtype):
    n = x.size
    dx, do = acl.to_device(np.concatenate([x.view(np.uint8), np.zeros(16384 - x.nbytes, np.uint8)])), acl.malloc(16384)
    run(
        acl,
        kernel(acl, "ops.cpp", "cast_op"),
        1,
        ("ptr", dx),
        ("ptr", do),
        ("uint32_t", which),
        ("uint32_t", mode),
        ("uint32_t", n),
    )
    return acl.from_device(do, 16384, np.uint8)[: n * np.dtype(out_dtype).itemsize].view(out_dtype)


NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD = range(7)


def _to_half_ref(x: np.ndarray, mode: int) -> np.ndarray:
    """float32 -> float16 by mode, computed from the two float16 neighbours of each value."""
    r = x.astype(F16)
    rf = r.astype(np.float64)
    xd = x.astype(np.float64)
    lo = np.where(rf > xd, np.nextafter(r, F16(-np.inf)), r)
    hi = np.where(rf < xd, np.nextafter(r, F16(np.inf)), r)
    if mode in (NONE, RINT):
        return r
    if mode == FLOOR:
        return lo
    if mode == CEIL:
        return hi
    if mode == TRUNC:
        return np.where(xd > 0, lo, hi)
    if mode == ROUND:
        tie = (xd - lo.astype(np.float64)) == (hi.astype(np.float64) - xd)
        return np.where(tie & (lo != hi), np.where(xd > 0, hi, lo), r)
    odd_lo = (lo.view(np.uint16) & 1) == 1
    return np.where(lo == hi, r, np.where(odd_lo, lo, hi))


@pytest.mark.parametrize("mode", [NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD])
def test_cast_float_to_half_round_modes(acl, mode):
    rng = np.random.default_rng(14)
    x = (rng.standard_normal(2048) * 100).astype(F32)
    x[:4] = [1.0 + 2**-11, 1.0 + 3 * 2**-11, -(1.0 + 2**-11), 2048.5]  # exact ties
    got = _cast(acl, 0, mode, x, F16)
    np.testing.assert_array_equal(got.view(np.uint16), _to_half_ref(x, mode).view(np.uint16))


@pytest.mark.parametrize("mode", [RINT, FLOOR, CEIL, ROUND, TRUNC])
def test_cast_float_to_int32_round_modes(acl, mode):
    x = (np.random.default_rng(15).standard_normal(1024) * 1000).astype(F32)
    x[:6] = [2.5, -2.5, 3.5, -0.5, 1e12, -1e12]  # ties and saturation
    got = _cast(acl, 2, mode, x, np.int32)
    xd = x.astype(np.float64)
    ref = {
        RINT: np.rint(xd),
        FLOOR: np.floor(xd),
        CEIL: np.ceil(xd),
        ROUND: np.sign(xd) * np.floor(np.abs(xd) + 0.5),
        TRUNC: np.trunc(xd),
    }[mode]
    np.testing.assert_array_equal(got, np.clip(ref, -(2**31), 2**31 - 1).astype(np.int32))


def test_cast_other_pairs(acl):
    rng = np.random.default_rng(16)
    h = rng.standard_normal(1024).astype(F16)
    np.testing.assert_array_equal(_cast(acl, 1, NONE, h, F32), h.astype(F32))
    f = rng.standard_normal(1024).astype(F32)
    np.testing.assert_array_equal(_cast(acl, 3, RINT, f, np.uint16), _bf16_bits(f))
    np.testing.assert_array_equal(
        _cast(acl, 4, TRUNC, (h * 100).astype(F16), np.int32),
        np.trunc((h * 100).astype(F16).astype(np.float64)).astype(np.int32),
    )
    i = rng.integers(-(2**30), 2**30, 1024, dtype=np.int32)
    np.testing.assert_array_equal(_cast(acl, 5, RINT, i, F32), i.astype(F32))


@pytest.mark.parametrize(
    ("mode", "fn"),
    [(0, np.less), (1, np.greater), (2, np.equal), (3, np.less_equal), (4, np.greater_equal), (5, np.not_equal)],
)
@pytest.mark.parametrize("tensor_scalar", [0, 1])
def test_compare_and_select(acl, mode, fn, tensor_scalar):
    a, b, out = _operands(acl, F32)
    b[::7] = a[::7]  # some equal pairs
    n = 1000  # rounded down to whole repeats (960 = 15 x 64)
    da, db, do, dbits = acl.to_device(a), acl.to_device(b), acl.to_device(out), acl.malloc(1024)
    run(
        acl,
        kernel(acl, "ops.cpp", "cmp_sel"),
        1,
        ("ptr", da),
        ("ptr", db),
        ("ptr", do),
        ("ptr", dbits),
        ("uint32_t", mode),
        ("uint32_t", n),
        ("uint32_t", tensor_scalar),
        ("float", 0.5),
    )
    m = n - n % 64
    cond = fn(a[:m], b[:m])
    bits = acl.from_device(dbits, 1024, np.uint8)
    np.testing.assert_array_equal(bits[: m // 8], np.packbits(cond, bitorder="little"))
    assert not bits[m // 8 :].any()  # the count's tail was not compared
    got = acl.from_device(do, out.size, F32)
    cond_n = np.concatenate([cond, np.zeros(n - m, bool)])  # Select's count is not rounded
    other = np.full(n, F32(0.5)) if tensor_scalar else b[:n]
    np.testing.assert_array_equal(got[:n], np.where(cond_n, a[:n], other))


# --------------------------------------------------------------------------- data movement


def test_data_copy_rounds_the_length_down_to_32_bytes(acl):
    x = np.arange(1024, dtype=F32)
    dx, do = acl.to_device(x), acl.malloc(4096)
    run(acl, kernel(acl, "ops.cpp", "copy_round"), 1, ("ptr", dx), ("ptr", do), ("uint32_t", 13))
    got = acl.from_device(do, 1024, F32)
    np.testing.assert_array_equal(got[:8], x[:8])  # 13 floats = 52 bytes: 32 moved
    assert np.all(got[8:] == -1)


def test_data_copy_block_form_with_gaps(acl):
    x = np.arange(2048, dtype=F32)
    dx, do = acl.to_device(x), acl.malloc(8192)
    count, length, src_gap, dst_gap = 3, 2, 1, 3
    run(
        acl,
        kernel(acl, "ops.cpp", "copy_blocks"),
        1,
        ("ptr", dx),
        ("ptr", do),
        ("uint32_t", count),
        ("uint32_t", length),
        ("uint32_t", src_gap),
        ("uint32_t", dst_gap),
    )
    got = acl.from_device(do, 2048, F32)
    want = np.full(2048, -1, F32)
    blk = length * 8
    for i in range(count):
        s, d = i * (blk + src_gap * 8), i * (blk + dst_gap * 8)
        want[d : d + blk] = x[s : s + blk]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("count", "length", "src_stride", "dst_stride", "left", "right", "is_pad", "value"),
    [
        (3, 20, 6, 1, 0, 0, 0, 0),  # 10 int16 per block: the dummy repeats the first element
        (2, 24, 0, 0, 2, 3, 1, -7),  # padded with the value
        (2, 32, 4, 2, 0, 0, 1, 5),  # aligned blocks: nothing to pad
        (2, 20, 0, 0, 1, 1, 0, 0),  # padding asked, no value: the UB keeps what it held
    ],
)
def test_data_copy_pad(acl, count, length, src_stride, dst_stride, left, right, is_pad, value):
    x = np.arange(1, 2049, dtype=np.int16)
    out = np.full(4096, 99, np.int16)
    dx, do, do2 = acl.to_device(x), acl.to_device(out), acl.to_device(np.full(4096, 99, np.int16))
    params = [("uint32_t", v) for v in (count, length, src_stride, dst_stride, left, right, is_pad)]
    run(acl, kernel(acl, "ops.cpp", "pad_copy"), 1, ("ptr", dx), ("ptr", do), ("ptr", do2), *params, ("int32_t", value))
    got = acl.from_device(do, 4096, np.int16)
    want = out.copy()
    span = -(-(left * 2 + length + right * 2) // 32) * 32 // 2  # elements per UB block
    n = length // 2
    for b in range(count):
        base = b * (span + dst_stride * 16)
        s = b * (length + src_stride) // 2
        want[base + left : base + left + n] = x[s : s + n]
        if left == 0 and right == 0:
            want[base + n : base + span] = x[s]
        elif is_pad:
            want[base : base + left] = value
            want[base + left + n : base + span] = value
    np.testing.assert_array_equal(got, want)
    if left == 0 and right == 0:  # and back out with DataCopyPad UB -> GM
        back = acl.from_device(do2, 4096, np.int16)
        want2 = np.full(4096, 99, np.int16)
        for b in range(count):
            d = b * (length + src_stride) // 2
            want2[d : d + n] = want[b * (span + dst_stride * 16) : b * (span + dst_stride * 16) + n]
        np.testing.assert_array_equal(back, want2)


def test_local_mem_allocator_and_flags(acl):
    """The asc-devkit add sample's newer style: LocalMemAllocator tensors, SetFlag/WaitFlag."""
    total = 4 * 4096
    rng = np.random.default_rng(17)
    x, y = rng.standard_normal(total).astype(F32), rng.standard_normal(total).astype(F32)
    dx, dy, dz = acl.to_device(x), acl.to_device(y), acl.malloc(x.nbytes)
    run(acl, kernel(acl, "misc.cpp", "allocator_add"), 4, ("ptr", dx), ("ptr", dy), ("ptr", dz), ("uint32_t", total))
    np.testing.assert_array_equal(acl.from_device(dz, total, F32), x + y)


def test_ascendc_assert_prints_and_fails_the_launch(acl, capfd):
    msg = fails(acl, kernel(acl, "misc.cpp", "assert_block"), 3, ("int32_t", 1))
    assert "kernel assert_block, block 1 of 3: assert: " in msg and "ascendc_assert(block_idx != which) failed" in msg
    assert "[AIV Block 1/3] block 1 says no" in capfd.readouterr().out.splitlines()


def _tree_sum_model(x: np.ndarray, lanes: int) -> Any:
    """ReduceSum's documented order in the element type: adjacent pairs within each repeat,
    then the repeats' sums the same way, lanes at a time, until one is left."""

    def tree(v: np.ndarray) -> Any:
        while v.size > 1:
            v = (v[0::2] + v[1::2]).astype(x.dtype)
        return v[0]

    def groups(v: np.ndarray) -> np.ndarray:
        pad = np.zeros(-v.size % lanes, x.dtype)
        w = np.concatenate([v, pad]).reshape(-1, lanes)
        return np.array([tree(row) for row in w], x.dtype)

    v = groups(x)
    while v.size > 1:
        v = groups(v)
    return v[0]


@pytest.mark.parametrize("dtype", [F32, F16])
@pytest.mark.parametrize("n", [77, 4096, 9000])
def test_reduce_sum_follows_the_documented_order_exactly(acl, dtype, n):
    data = np.random.default_rng(18).standard_normal(65536 // np.dtype(dtype).itemsize)
    x, out = _reduce(acl, dtype, 0, n=n, data=data)
    want = _tree_sum_model(x[:n], 256 // np.dtype(dtype).itemsize)
    assert out[0] == want, (out[0], want, x[:n].astype(np.float64).sum())


def test_binaries_loaded_from_data_one_after_another_are_each_their_own(acl):
    """Two different binaries loaded from data in turn (as two host objects' <<<>>> launches
    load their embedded binaries): the second is its own, not the first one again -- the
    loader knows a library by its path, and the memory file behind the first stays open."""
    from aiocann._lib import check, ffi, lib

    first = build_kernel(KERNELS / "rules.cpp").read_bytes()
    second = build_kernel(KERNELS / "misc.cpp").read_bytes()
    handles = []
    for data in (first, second, first):
        out = ffi.new("aclrtBinHandle *")
        check(lib.aclrtBinaryLoadFromData(data, len(data), ffi.NULL, out), "aclrtBinaryLoadFromData")
        handles.append(out[0])
    fn = ffi.new("aclrtFuncHandle *")
    for handle, name in zip(handles, (b"rule", b"easy_op", b"rule"), strict=True):
        check(lib.aclrtBinaryGetFunction(handle, name, fn), "aclrtBinaryGetFunction")
    s = acl.stream()
    x = acl.to_device(np.zeros(4, np.uint32))
    check(lib.aclrtBinaryGetFunction(handles[1], b"easy_op", fn), "aclrtBinaryGetFunction")
    acl.launch(fn[0], 2, s, ("ptr", x))
    acl.sync(s)
    np.testing.assert_array_equal(acl.from_device(x, 4, np.uint32), [1, 1, 2, 2])
    for handle in handles:
        check(lib.aclrtBinaryUnLoad(handle), "aclrtBinaryUnLoad")


def test_get_tpipe_ptr_is_the_blocks_pipe(acl):
    out = acl.to_device(np.zeros(4, np.int32))
    run(acl, kernel(acl, "misc.cpp", "pipe_ptr"), 4, ("ptr", out))
    np.testing.assert_array_equal(acl.from_device(out, 4, np.int32), 1)


def test_dump_tensor_prints_as_the_device(acl, capfd):
    ints = acl.to_device(np.arange(12, dtype=np.int32))
    run(acl, kernel(acl, "misc.cpp", "dump"), 1, ("ptr", ints))
    out = capfd.readouterr().out
    assert "DumpTensor: desc=7, addr=0x0, data_type=float16, position=UB, dump_size=8\n" in out
    assert "[0.000000,0.500000,1.000000,1.500000,2.000000,2.500000,3.000000,3.500000]\n" in out
    assert "data_type=int32, position=GM, dump_size=12\n[[0,1,2,3],\n[4,5,6,7],\n[8,9,10,11]]\n" in out
    assert (
        "shape is [4, 4], dumpSize is 12, data is not enough.\n[[0,1,2,3],\n[4,5,6,7],\n[8,9,10,11],\n[-,-,-,-]]\n"
        in out
    )


def test_compares_and_axpy(acl):
    a, b, out = _operands(acl, F32)
    n = 1000
    h = np.random.default_rng(19).standard_normal(2048).astype(F16)
    da, db, do, dbits = acl.to_device(a), acl.to_device(b), acl.to_device(out), acl.malloc(1024)
    dh, dm = acl.to_device(h), acl.malloc(8192)
    run(
        acl,
        kernel(acl, "ops.cpp", "compares_axpy"),
        1,
        ("ptr", da),
        ("ptr", db),
        ("ptr", do),
        ("ptr", dbits),
        ("uint32_t", 1),
        ("uint32_t", n),
        ("ptr", dh),
        ("ptr", dm),
    )
    m = n - n % 64
    bits = acl.from_device(dbits, 1024, np.uint8)
    np.testing.assert_array_equal(bits[: m // 8], np.packbits(a[:m] > F32(0.5), bitorder="little"))
    got = acl.from_device(do, out.size, F32)
    want = F32(1.5) * a[:n] + out[:n]  # a float multiply and a float add
    np.testing.assert_array_equal(got[:n], want)
    mixed = acl.from_device(dm, 2048, F32)
    np.testing.assert_array_equal(mixed[:n], (F32(2) * h[:n].astype(F32) + F32(1)))
    np.testing.assert_array_equal(mixed[n:], 1)


@pytest.mark.parametrize(
    ("which", "lo", "hi", "dblk", "drep"),
    [
        (0, 130, 0, 2, 16),  # counter mode, 130 elements: repeats of 64, 64, 2; gapped blocks
        (1, 100, 0, 1, 8),
        (2, 0xF0F0F0F0F0F0F0F0, 0, 1, 10),
        (3, 0, 0, 1, 8),
        (4, 77, 0, 1, 8),
    ],
)
def test_mask_register_modes(acl, which, lo, hi, dblk, drep):
    a, b, out = _operands(acl, F32)
    da, db, do = acl.to_device(a), acl.to_device(b), acl.to_device(out)
    run(
        acl,
        kernel(acl, "ops.cpp", "mask_register"),
        1,
        ("ptr", da),
        ("ptr", db),
        ("ptr", do),
        ("uint32_t", which),
        ("uint64_t", lo),
        ("uint64_t", hi),
        ("uint32_t", dblk),
        ("uint32_t", drep),
    )
    got = acl.from_device(do, out.size, F32)
    want = out.copy()
    if which == 4:  # the count form: the first `lo` elements
        want[:lo] = a[:lo] + F32(1)
    else:
        if which in (0, 1):
            n = lo
            reps = [min(64, n - 64 * r) for r in range(-(-n // 64))]
            lanes_of = [list(range(k)) for k in reps]
        elif which == 2:
            lanes_of = [[ln for ln in range(64) if lo >> ln & 1]] * 3
        else:
            lanes_of = [list(range(64))] * 2  # the full default mask, 2 repeats
        for r, lanes in enumerate(lanes_of):
            for ln in lanes:
                i = (r * drep + (ln // 8) * dblk) * 8 + ln % 8
                want[i] = a[i] + F32(1)
    np.testing.assert_array_equal(got, want)


def test_sync_all_is_a_barrier_of_the_launchs_blocks(acl):
    blocks = 6
    slots, out = acl.to_device(np.full(blocks, -1, np.int32)), acl.to_device(np.full(2 * blocks, -1, np.int32))
    run(acl, kernel(acl, "misc.cpp", "sync_all"), blocks, ("ptr", slots), ("ptr", out))
    got = acl.from_device(out, 2 * blocks, np.int32)
    nxt = (np.arange(blocks) + 1) % blocks
    np.testing.assert_array_equal(got, np.concatenate([nxt, nxt + 100]))


def test_sync_all_with_more_blocks_than_cores_fails_instead_of_hanging(acl):
    slots, out = acl.malloc(4 * 1024), acl.malloc(8 * 1024)
    msg = fails(acl, kernel(acl, "misc.cpp", "sync_all"), 1000, ("ptr", slots), ("ptr", out))
    assert "kernel sync_all, block " in msg and "SyncAll: the launch has 1000 blocks and at most " in msg


def test_sync_all_waiters_end_when_a_block_fails(acl):
    msg = fails(acl, kernel(acl, "misc.cpp", "sync_all_one_fails"), 4, ("int32_t", 2))
    assert "kernel sync_all_one_fails, block 2 of 4: trap" in msg


@pytest.mark.parametrize(("kind", "fn"), [(0, np.sum), (1, np.max), (2, np.min)])
@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_reduce_data_block_and_reduce_repeat(acl, kind, fn, order):
    x = np.random.default_rng(20).integers(-40, 40, 8192).astype(F32)  # sums exact in float
    mask, repeat, src_rep = 45, 5, 10  # the 6th block partly on the mask, 7th and 8th off
    dx, d1, d2 = acl.to_device(x), acl.malloc(4096), acl.malloc(4096)
    run(
        acl,
        kernel(acl, "ops.cpp", "reduce_blocks"),
        1,
        ("ptr", dx),
        ("ptr", d1),
        ("ptr", d2),
        *[("uint32_t", v) for v in (kind, mask, repeat, src_rep, order)],
    )
    blocks = acl.from_device(d1, 1024, F32)
    repeats = acl.from_device(d2, 1024, F32)
    ident = {0: 0.0, 1: -np.inf, 2: np.inf}[kind]
    for r in range(repeat):
        lanes = x[r * src_rep * 8 : r * src_rep * 8 + mask]
        for b in range(8):
            part = lanes[b * 8 : b * 8 + 8]
            assert blocks[r * 8 + b] == (fn(part) if part.size else ident)
        if kind == 0:
            assert repeats[r] == lanes.sum()  # a sum has only its value
            continue
        at = int(np.argmax(lanes) if kind == 1 else np.argmin(lanes))
        res = repeats[r * (2 if order < 2 else 1) : r * (2 if order < 2 else 1) + 2]
        idx = lambda v: int(np.array([v], F32).view(np.uint32)[0])  # noqa: E731
        if order == 0:
            assert res[0] == lanes[at] and idx(res[1]) == at
        elif order == 1:
            assert idx(res[0]) == at and res[1] == lanes[at]
        elif order == 2:
            assert res[0] == lanes[at]
        else:
            assert idx(res[0]) == at


@pytest.mark.parametrize("op", range(8))
def test_int16_bit_operations_index_and_copy(acl, op):
    rng = np.random.default_rng(21)
    n = CAP // 2
    a = rng.integers(-(2**15), 2**15, n, dtype=np.int16)
    b = rng.integers(-(2**15), 2**15, n, dtype=np.int16)
    out = np.full(n, 7, np.int16)
    da, db, do = acl.to_device(a), acl.to_device(b), acl.to_device(out)
    count = 1000
    run(
        acl,
        kernel(acl, "ops.cpp", "bits_i16"),
        1,
        ("ptr", da),
        ("ptr", db),
        ("ptr", do),
        ("uint32_t", op),
        ("uint32_t", count),
    )
    got = acl.from_device(do, n, np.int16)
    want = out.copy()
    if op == 7:  # Brcb: src element 8i+j fills dst block (20 i + 2 j)
        for i in range(3):
            for j in range(8):
                base = (i * 20 + j * 2) * 16
                want[base : base + 16] = a[i * 8 + j]
    elif op == 6:
        for r in range(2):
            for ln in range(100):
                want[(r * 8 + ln // 16) * 16 + ln % 16] = a[(r * 16 + (ln // 16) * 2) * 16 + ln % 16]
    else:
        want[:count] = {
            0: a & b,
            1: a | b,
            2: ~a,
            3: (a.astype(np.uint16) << 3).astype(np.int16),
            4: a >> 2,
            5: (np.arange(n) - 5).astype(np.int16),
        }[op][:count]
    np.testing.assert_array_equal(got, want)


def test_set_pad_value_fills_data_copy_pads_padding(acl):
    x = np.arange(1, 41, dtype=np.int16)
    dx, do = acl.to_device(x), acl.malloc(1024)
    run(acl, kernel(acl, "ops.cpp", "pad_value"), 1, ("ptr", dx), ("ptr", do))
    got = acl.from_device(do, 512, np.int16)
    want = np.full(512, 99, np.int16)
    for blk in range(2):  # each block: 10 data elements, then padding up to 32 bytes
        want[blk * 16 : blk * 16 + 10] = x[blk * 10 : blk * 10 + 10]
        want[blk * 16 + 10 : blk * 16 + 16] = -3
    np.testing.assert_array_equal(got, want)


def test_static_tensor_gm_bypass_and_system_cycle(acl):
    blocks = 3
    x = np.arange(64 * blocks, dtype=F32)
    dx, flags, cycles = acl.to_device(x), acl.to_device(np.zeros(2 * blocks, np.int32)), acl.malloc(8 * blocks)
    run(acl, kernel(acl, "misc.cpp", "static_tensor"), blocks, ("ptr", dx), ("ptr", flags), ("ptr", cycles))
    np.testing.assert_array_equal(acl.from_device(dx, x.size, F32), x * 2)  # each block its own 64
    got = acl.from_device(flags, 2 * blocks, np.int32)
    np.testing.assert_array_equal(got[:blocks], [1, 1, 2])  # DivCeil(idx + 1, 2)
    np.testing.assert_array_equal(got[blocks:], 4)  # every block saw every block's write
    assert np.all(acl.from_device(cycles, blocks, np.int64) >= 0)


# --------------------------------------------------------------------------- float overflow mode

SATURATION, INF_NAN = 0, 1
HALF_MAX = F16(65504)


def _in_mode(acl: Any, mode: int, launch: Any) -> Any:
    """launch(stream) on a stream created after aclrtSetDeviceSatMode(mode) -- a stream takes
    the mode when it is created -- with the Inf/NaN default restored afterwards."""
    from aiocann._lib import lib

    assert lib.aclrtSetDeviceSatMode(mode) == 0
    try:
        s = acl.stream()
    finally:
        assert lib.aclrtSetDeviceSatMode(INF_NAN) == 0
    return launch(s)


def _count_in_mode(acl, mode, name, dtype, op, a, b):
    n, full = a.size, CAP // np.dtype(dtype).itemsize  # the kernel copies whole buffers
    pad = np.ones(full - n, dtype)
    da, db = acl.to_device(np.concatenate([a, pad])), acl.to_device(np.concatenate([b, pad]))
    do = acl.to_device(np.zeros(full, dtype))
    fn = kernel(acl, "ops.cpp", name)

    def go(s):
        acl.launch(fn, 1, s, ("ptr", da), ("ptr", db), ("ptr", do), ("uint32_t", op), ("uint32_t", n))
        acl.sync(s)

    _in_mode(acl, mode, go)
    return acl.from_device(do, n, dtype)


def _saturate(x: np.ndarray) -> np.ndarray:
    """What the saturation mode makes of IEEE results: +-Inf -> +-max finite, NaN -> 0."""
    big = np.finfo(x.dtype).max
    return np.where(np.isnan(x), x.dtype.type(0), np.clip(x, -big, big)).astype(x.dtype)


@pytest.mark.parametrize(("name", "dtype"), [("count_f16", F16), ("count_f32", F32)])
@pytest.mark.parametrize("op", [0, 1, 2, 3])  # add, sub, mul, div
def test_overflow_mode_of_arithmetic(acl, name, dtype, op):
    """aclrtFloatOverflowMode: Inf/NaN mode gives IEEE (numpy's) results; saturation mode turns
    an Inf result into the largest finite value of its sign and a NaN result into 0."""
    big = np.finfo(dtype).max
    a = np.array([big, -big, big, 0, 1, -1, np.inf, np.nan, 3, 0.5] * 7, dtype)
    b = np.array([big, big, -big, 0, 0, 0, 1, 1, 2, 0.25] * 7, dtype)
    with np.errstate(all="ignore"):
        ieee = EXACT[op](a, b)
    assert not np.isfinite(ieee).all()  # the operands do overflow
    got = _count_in_mode(acl, INF_NAN, name, dtype, op, a, b)
    np.testing.assert_array_equal(got, ieee)  # NaN == NaN for assert_array_equal
    got = _count_in_mode(acl, SATURATION, name, dtype, op, a, b)
    np.testing.assert_array_equal(got, _saturate(ieee))
    assert np.isfinite(got).all()


def test_overflow_mode_of_cast_to_half(acl):
    """float -> half: a value past half's range is Inf in the Inf/NaN mode, +-65504 in the
    saturation mode; a NaN or Inf source stays so, or becomes 0 / +-65504."""
    x = np.array([1e6, -1e6, 65504, 65520, np.inf, -np.inf, np.nan, 1.5], F32)
    fn = kernel(acl, "ops.cpp", "cast_op")
    dx = acl.to_device(np.concatenate([x.view(np.uint8), np.zeros(16384 - x.nbytes, np.uint8)]))

    def cast(s):
        do = acl.malloc(16384)
        args = (("ptr", dx), ("ptr", do), ("uint32_t", 0), ("uint32_t", RINT), ("uint32_t", x.size))
        acl.launch(fn, 1, s, *args)
        acl.sync(s)
        return acl.from_device(do, 16384, np.uint8)[: x.size * 2].view(F16)

    with np.errstate(over="ignore"):
        ieee = x.astype(F16)
    np.testing.assert_array_equal(_in_mode(acl, INF_NAN, cast), ieee)
    sat = _in_mode(acl, SATURATION, cast)
    np.testing.assert_array_equal(sat, [HALF_MAX, -HALF_MAX, HALF_MAX, HALF_MAX, HALF_MAX, -HALF_MAX, 0, 1.5])


def test_a_stream_keeps_the_mode_it_was_created_with(acl):
    """The docs: the mode applies to streams created after aclrtSetDeviceSatMode; earlier
    streams keep theirs."""
    from aiocann._lib import lib

    a = np.full(CAP // 2, 60000, F16)
    da, do = acl.to_device(a), acl.to_device(np.zeros(CAP // 2, F16))
    fn = kernel(acl, "ops.cpp", "count_f16")
    before = acl.stream()  # Inf/NaN
    assert lib.aclrtSetDeviceSatMode(SATURATION) == 0
    try:
        acl.launch(fn, 1, before, ("ptr", da), ("ptr", da), ("ptr", do), ("uint32_t", 0), ("uint32_t", 64))
        acl.sync(before)
    finally:
        assert lib.aclrtSetDeviceSatMode(INF_NAN) == 0
    assert np.isinf(acl.from_device(do, 64, F16)).all()


_PART_ADD = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from acl_util import acl_session
from aiocann.compiler import build_kernel
with acl_session() as acl:
    fn = acl.function(build_kernel(sys.argv[2]), "add_custom")
    total, tiles = 8 * 2048 * 4, 8
    x = np.full(total, 60000, np.float16)
    dx, dz = acl.to_device(x), acl.malloc(x.nbytes)
    length, num = acl.to_device(np.array([total], np.int32)), acl.to_device(np.array([tiles], np.int32))
    s = acl.stream()
    acl.launch(fn, 8, s, ("ptr", dx), ("ptr", dx), ("ptr", dz), ("ptr", length), ("ptr", num))
    acl.sync(s)
    print(sorted(set(float(v) for v in acl.from_device(dz, total, np.float16))))
"""


@pytest.mark.parametrize(("soc", "want"), [("Ascend310P3", "[65504.0]"), ("Ascend910B1", "[inf]")])
def test_each_part_computes_in_its_default_mode(soc, want):
    """The default mode is the chip's: saturation on the parts that have only that one (910A,
    310P), Inf/NaN on A2/A3 (aclrtFloatOverflowMode's docs). The chip is chosen per process."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "AIOCANN_BACKEND": "sim", "AIOCANN_SIM_SOC_NAME": soc}
    args = [sys.executable, "-c", _PART_ADD, str(TESTS_DIR / "support"), str(KERNELS / "add_custom.cpp")]
    p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == want
