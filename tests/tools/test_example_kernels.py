"""The example kernels (examples/kernels/*.c) against numpy, on asyncio and trio.

Each kernel splits rows across blocks; the shapes below include row counts that do not divide
by the block count, more blocks than rows, odd column counts, and (for softmax) inputs whose
naive exp() would overflow float32.
"""

from __future__ import annotations

import numpy as np
import pytest

import aiocann as ac

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def ref_softmax(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


async def test_vector_add(example_kernels):
    rng = np.random.default_rng(1)
    async with ac.Device(0) as dev:
        add = (await dev.load_binary(example_kernels["vector_add"])).function("add_custom")
        async with dev.stream() as s:
            for n, blocks in ((1, 1), (1000, 8), (4097, 3), (5, 8)):
                x = rng.standard_normal(n, dtype=np.float32)
                y = rng.standard_normal(n, dtype=np.float32)
                dx, dy, dz = await s.upload(x), await s.upload(y), dev.empty(n, np.float32)
                await s.memset(dz, 0xFF)  # NaN everywhere: an element no block wrote would show
                args = await add.args().ptr(dx).ptr(dy).ptr(dz).placeholder(np.array([n, 0], np.uint32))
                await ac.launch(add, args, blocks=blocks)
                np.testing.assert_array_equal(await dz.get(), x + y)


@pytest.mark.parametrize(
    ("rows", "cols", "blocks"),
    [(1, 1, 1), (7, 33, 3), (64, 256, 8), (3, 1000, 8), (100, 5, 7)],
)
async def test_softmax_matches_numpy(example_kernels, rows, cols, blocks):
    rng = np.random.default_rng(rows * 1000 + cols)
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    async with ac.Device(0) as dev:
        sm = (await dev.load_binary(example_kernels["softmax"])).function("softmax_rows")
        async with dev.stream() as s:
            dx, dy = await s.upload(x), dev.empty((rows, cols), np.float32)
            await s.memset(dy, 0xFF)
            args = await sm.args().ptr(dx).ptr(dy).placeholder(np.array([rows, cols], np.uint32))
            await ac.launch(sm, args, blocks=blocks)
            got = await dy.get()
    np.testing.assert_allclose(got, ref_softmax(x), rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-5)


async def test_softmax_is_numerically_stable_and_works_in_place(example_kernels):
    # exp(100) overflows float32: a kernel that does not subtract the row max returns inf/nan.
    x = np.array(
        [
            [1000.0, 999.0, 998.0, -1000.0],
            [-1e4, -1e4, -1e4, -1e4],  # equal values: uniform, despite exp(-1e4) == 0
            [88.0, 89.0, 90.0, 0.0],
            [0.0, 0.0, 0.0, 50.0],
        ],
        dtype=np.float32,
    )
    async with ac.Device(0) as dev:
        sm = (await dev.load_binary(example_kernels["softmax"])).function("softmax_rows")
        async with dev.stream() as s:
            dx = await s.upload(x)
            args = await sm.args().ptr(dx).ptr(dx).placeholder(np.array(x.shape, np.uint32))
            await ac.launch(sm, args, blocks=4)  # in place: y aliases x
            got = await dx.get()
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, ref_softmax(x), rtol=2e-6, atol=1e-7)
    np.testing.assert_array_equal(got[1], np.full(4, 0.25, np.float32))


@pytest.mark.parametrize(
    ("rows", "cols", "blocks"),
    [(1, 1, 1), (10, 3, 4), (256, 256, 8), (5, 1001, 8), (1000, 17, 3)],
)
async def test_matvec_matches_numpy(example_kernels, rows, cols, blocks):
    rng = np.random.default_rng(rows + 7 * cols)
    a = rng.standard_normal((rows, cols), dtype=np.float32)
    x = rng.standard_normal(cols, dtype=np.float32)
    async with ac.Device(0) as dev:
        mv = (await dev.load_binary(example_kernels["matvec"])).function("matvec")
        async with dev.stream() as s:
            da, dx, dy = await s.upload(a), await s.upload(x), dev.empty(rows, np.float32)
            await s.memset(dy, 0xFF)
            args = await mv.args().ptr(da).ptr(dx).ptr(dy).placeholder(np.array([rows, cols], np.uint32))
            await ac.launch(mv, args, blocks=blocks)
            got = await dy.get()
    want = a.astype(np.float64) @ x.astype(np.float64)
    # float32 accumulation: the error grows with sqrt(cols) times the terms' magnitude.
    scale = np.sqrt(cols) * np.abs(a).max() * np.abs(x).max()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * scale)


@pytest.mark.parametrize(
    ("m", "n", "k", "blocks", "with_bias"),
    [(1, 1, 1, 1, False), (9, 16, 33, 4, True), (32, 32, 128, 8, True), (3, 7, 5, 8, False)],
)
async def test_matmul_matches_numpy(example_kernels, m, n, k, blocks, with_bias):
    rng = np.random.default_rng(m * n * k)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    bias = rng.standard_normal(n, dtype=np.float32)
    async with ac.Device(0) as dev:
        mm = (await dev.load_binary(example_kernels["matmul"])).function("matmul")
        async with dev.stream() as s:
            da, db, dc = await s.upload(a), await s.upload(b), dev.empty((m, n), np.float32)
            await s.memset(dc, 0xFF)
            builder = mm.args().ptr(da).ptr(db)
            builder = builder.ptr(await s.upload(bias)) if with_bias else builder.ptr(0)  # null: no bias
            args = await builder.ptr(dc).placeholder(np.array([m, n, k, 0], np.uint32))
            await ac.launch(mm, args, blocks=blocks)
            got = await dc.get()
    want = a.astype(np.float64) @ b.astype(np.float64) + (bias if with_bias else 0.0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.sqrt(k) * 4)


async def test_delay_holds_its_stream(example_kernels):
    async with ac.Device(0) as dev:
        delay = (await dev.load_binary(example_kernels["delay"])).function("delay_us")
        async with dev.stream() as s:
            start = await s.record()
            await ac.launch(delay, await delay.args().u64(30_000), blocks=1)
            end = await s.record()
            await end
            assert 29.0 <= end.elapsed_ms(start) < 1000.0
