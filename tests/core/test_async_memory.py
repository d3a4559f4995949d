"""Device arrays, pinned memory and lifetimes in the async core (issue 4)."""

from __future__ import annotations

import gc

import anyio
import anyio.lowlevel
import numpy as np
import pytest
from async_util import Gate

import aiocann as ac
from aiocann.memory import is_pinned

pytestmark = pytest.mark.anyio

MB = 1 << 20


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint16, np.int64, np.complex64])
async def test_upload_download_roundtrip(dtype):
    rng = np.random.default_rng(0)
    host = (rng.random((33, 17)) * 100).astype(dtype)
    async with ac.Device(0) as dev:
        async with dev.stream() as s:
            d = await s.upload(host)
            assert d.shape == host.shape and d.dtype == host.dtype and d.nbytes == host.nbytes
            back = await d.get()
            np.testing.assert_array_equal(back, host)
            out = np.empty_like(host)
            assert await s.download(d, out) is out
            np.testing.assert_array_equal(out, host)
            # non-contiguous input is made contiguous; set() overwrites in place
            await d.set(host[::-1].copy())
            np.testing.assert_array_equal(await d.get(), host[::-1])


async def test_large_pageable_copies_are_staged(test_kernels_path):
    host = np.arange(3 * MB // 4, dtype=np.float32)  # 3 MB: staged, copied to staging off-loop
    async with ac.Device(0) as dev:
        async with dev.stream() as s:
            d = await s.upload(host)
            np.testing.assert_array_equal(await d.get(), host)
            assert dev._staging_pool._cached > 0  # the staging blocks went back to the pool


async def test_pinned_arrays_copy_without_staging():
    async with ac.Device(0) as dev:
        pinned = dev.pinned_empty((256, 4), np.float32)
        assert is_pinned(pinned) and not is_pinned(np.empty(16))
        pinned[:] = np.arange(1024, dtype=np.float32).reshape(256, 4)
        async with dev.stream() as s:
            d = await s.upload(pinned)
            out = dev.pinned_empty((256, 4), np.float32)
            await s.download(d, out)
            np.testing.assert_array_equal(out, pinned)
            assert dev._staging_pool._cached == 0  # no staging used
    # the pinned arrays outlive the device: still valid memory
    assert pinned.sum() == np.arange(1024).sum()


async def test_dropped_array_is_freed_only_after_its_work(test_kernels_path):
    """A dropped or closed array's memory goes back to the pool only when its work is done
    (idle blocks are cached; trim() returns them to the device)."""
    async with ac.Device(0) as dev:
        wait = (await dev.load_binary(test_kernels_path)).function("wait_us")
        pool = dev.memory_pool
        async with dev.stream():
            free0, _ = dev.mem_info()
            arr = dev.empty(8 * MB, np.uint8)
            c = await ac.launch(wait, await wait.args().ptr(arr).u64(100_000), blocks=1)
            del arr
            gc.collect()
            assert pool.stats().in_use_bytes == 8 * MB  # still in use: the launch holds it
            await c
            gc.collect()
            assert pool.stats().in_use_bytes == 0 and pool.stats().cached_bytes == 8 * MB
            assert pool.trim() == 8 * MB and dev.mem_info()[0] == free0

            arr = dev.empty(8 * MB, np.uint8)
            old = arr.ptr
            c = await ac.launch(wait, await wait.args().ptr(arr).u64(100_000), blocks=1)
            arr.close()  # busy: deferred
            assert arr.closed and pool.stats().in_use_bytes == 8 * MB
            other = dev.empty(8 * MB, np.uint8)  # no stream: only idle memory, so not arr's
            assert other.ptr != old and pool.stats().stream_reuses == 0
            other.close()
            with pytest.raises(ac.ClosedError):
                _ = arr.ptr
            await c
            gc.collect()
            assert pool.stats().in_use_bytes == 0
            pool.trim()
            assert dev.mem_info()[0] == free0


async def test_stream_ordered_reuse_and_pool_statistics(test_kernels_path):
    """A block freed while work on stream s still uses it is reusable at once by later work on
    s (stream order makes it safe), and by other streams only once that work is done."""
    async with ac.Device(0) as dev:
        b = await dev.load_binary(test_kernels_path)
        wait, write = b.function("wait_us"), b.function("write_value")
        pool = dev.memory_pool
        async with dev.stream() as s, dev.stream() as s2:
            arr = s.empty(1024, np.int32)
            old = arr.ptr
            c = await ac.launch(wait, await wait.args().ptr(arr).u64(100_000), blocks=1, stream=s)
            arr.close()
            assert dev.empty(1024, np.int32, stream=s2).ptr != old  # s2's work is not ordered after
            again = s.empty(1024, np.int32)  # s's later work is: the same memory, at once
            assert again.ptr == old and not c.done()
            assert pool.stats().stream_reuses == 1
            w = await ac.launch(write, await write.args().ptr(again).u32(3).i32(42), blocks=1, stream=s)
            await w
            assert c.done()  # stream order: the reuse ran after the old work
            assert (await again.get(stream=s))[3] == 42
            hits = pool.stats().hits
            again.close()
            assert dev.empty(1024, np.int32).ptr == old and pool.stats().hits == hits + 1  # idle now


async def test_pool_limit_trim_and_opt_out():
    async with ac.Device(0, memory_limit=4 * MB) as dev:
        pool = dev.memory_pool
        a = dev.empty(3 * MB, np.uint8)
        with pytest.raises(ac.DeviceOutOfMemoryError, match="limit"):
            dev.empty(2 * MB, np.uint8)
        a.close()
        assert pool.stats().cached_bytes == 3 * MB
        b = dev.empty(2 * MB, np.uint8)  # over the limit with the cache: the cache is freed first
        assert pool.stats().cached_bytes == 0 and pool.stats().in_use_bytes == 2 * MB
        b.close()
        pool.limit = None
        assert pool.trim() == 2 * MB
        st = pool.stats()
        assert st.in_use_bytes == 0 and st.cached_bytes == 0 and st.limit is None and st.mallocs == 2
    async with ac.Device(0, memory_pool=False) as dev:
        free0 = dev.mem_info()[0]
        a = dev.empty(MB, np.uint8)
        a.close()
        assert dev.mem_info()[0] == free0 and dev.memory_pool.stats().cached_bytes == 0
    with pytest.raises(ValueError):
        ac.Device(0, memory_limit=-1)
    with pytest.raises(TypeError):
        ac.Device(0, memory_pool="yes")  # type: ignore[arg-type]


async def test_cancelled_waiter_leaks_nothing(test_kernels_path):
    """A task cancelled while its launch is held behind a gate drops its references; the
    4 MB array the launch uses stays allocated until the device is done with it, then goes."""
    async with ac.Device(0) as dev:
        write = (await dev.load_binary(test_kernels_path)).function("write_value")
        async with dev.stream() as s:
            gate = await Gate.hold(dev, s, test_kernels_path)
            in_use = dev.memory_pool.stats().in_use_bytes  # the gate's flag

            async def submit_and_wait() -> None:
                arr = dev.empty(4 * MB, np.uint8)
                c = await ac.launch(write, await write.args().ptr(arr).u32(0).i32(1), blocks=1)
                await c

            with anyio.CancelScope() as scope:
                scope.cancel()  # the launch is enqueued (no checkpoint before it), its await cancelled
                await submit_and_wait()
            assert scope.cancelled_caught
            gc.collect()
            # Only the Completion (in the dispatcher's hands) holds the array now.
            assert dev._live_dispatcher.pending == 2 and dev.memory_pool.stats().in_use_bytes == in_use + 4 * MB
            await gate.open()
            await s.synchronize()
            gc.collect()
            assert dev._live_dispatcher.pending == 0 and dev.memory_pool.stats().in_use_bytes == in_use


async def test_download_cancelled_midway_is_safe(test_kernels_path):
    """The cancel lands while the download's copy is in flight -- enqueued, held behind a gate,
    observed pending -- and the task ends at once. The device's copy still runs, into the
    staging block, which then goes back to its pool; but ``out`` is never written: the caller
    got no result and no Completion to say when a late write would land, and may already
    reuse ``out``. The array and the stream go on working."""
    host = np.arange(1 << 18, dtype=np.float32)
    async with ac.Device(0) as dev, dev.stream() as s:
        d = await s.upload(host)
        await s.synchronize()
        staging = dev._staging_pool
        cached = staging._cached
        gate = await Gate.hold(dev, s, test_kernels_path)
        out = np.full_like(host, -1)  # pageable: the copy goes through a staging block
        finished = []

        async def download() -> None:
            await s.download(d, out)
            finished.append(True)  # never: the cancel comes first

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(download)
                while s._sub.last is gate.done:  # until the download's copy is enqueued behind the gate
                    await anyio.lowlevel.checkpoint()
                copy = s._sub.last
                assert copy is not None and copy.label == "download" and not copy.done()
                tg.cancel_scope.cancel()
        # Cancelled midway: the task is gone, its copy is not done, nothing was written yet,
        # and the staging block is still the copy's.
        assert not finished and not copy.done() and s.in_flight == 2
        assert (out == -1).all() and staging._cached == cached - host.nbytes
        await gate.open()
        await s.synchronize()
        assert copy.done() and copy.exception() is None and s.in_flight == 0
        assert (out == -1).all()  # the caller's buffer, left as it was at the cancel
        assert staging._cached == cached  # the block is back, once
        np.testing.assert_array_equal(await d.get(), host)


async def test_zero_dimensional_arrays_keep_their_shape_both_ways():
    """A 0-d array of any dtype goes up and comes back as one (numpy's ascontiguousarray makes
    it 1-d, and a 0-d view cannot change its itemsize: neither path may rely on them)."""
    async with ac.Device(0) as dev, dev.stream() as s:
        for value in (np.array(3.5), np.array(-7, np.int32), np.array(200, np.uint8), np.array(1 + 2j, np.complex64)):
            d = await s.upload(value)
            assert d.shape == () and d.dtype == value.dtype
            back = await d.get()
            assert back.shape == () and back == value
            out = np.empty((), value.dtype)
            assert await s.download(d, out) is out and out == value
            e = dev.empty((), value.dtype)
            await e.set(value)
            assert await e.get() == value
            pinned = dev.pinned_empty((), value.dtype)
            assert await s.download(d, pinned) is pinned and pinned == value


async def test_memory_errors_are_clear():
    async with ac.Device(0) as dev:
        with pytest.raises(ac.DeviceOutOfMemoryError) as info:
            dev.empty(1 << 50, np.uint8)
        assert info.value.code == 207001
        with pytest.raises(ValueError):
            dev.empty((-1, 2))
        with pytest.raises(TypeError):
            dev.empty(4, object)
        # More bytes than an ssize_t holds (numpy's limit): said so, with the shape (was cffi's bare OverflowError)
        for shape in ((1 << 31, 1 << 31, 4), 1 << 62):
            with pytest.raises(ValueError, match=r"would span \d+ bytes: too big"):
                dev.empty(shape, np.float64)
            with pytest.raises(ValueError, match="too big"):
                dev.pinned_empty(shape, np.float64)
        async with dev.stream() as s:
            d = dev.empty(4, np.float32)
            with pytest.raises(ValueError, match="size mismatch"):
                await s.copy_from_host(d, np.zeros(5, np.float32))
            with pytest.raises(ValueError):
                await s.memset(d, 300)
    with pytest.raises(ac.ClosedError):
        dev.empty(4)
    with pytest.raises(ac.ClosedError):
        _ = d.ptr  # freed with its device


async def test_copy_to_host_into_pinned_memory_returns_a_completion():
    host = np.arange(48, dtype=np.float32).reshape(12, 4)
    async with ac.Device(0) as dev:
        async with dev.stream() as s:
            d = dev.empty((12, 4), np.float32)
            await d.set(host)
            await s.synchronize()  # the upload's staging block is back in the pool
            staged = dev._staging_pool._cached
            out = dev.pinned_empty((12, 4), np.float32)
            done = await s.copy_to_host(out, d)
            assert isinstance(done, ac.Completion) and not isinstance(done, ac.CapturedWork)
            await done
            np.testing.assert_array_equal(out, host)
            # a flat view of a pinned block: same dtype and number of elements, any shape
            big = dev.pinned_empty(64, np.float32)
            await (await s.copy_to_host(big[8:56], d))
            np.testing.assert_array_equal(big[8:56].reshape(12, 4), host)
            # zero elements: nothing to copy, the Completion still resolves in stream order
            await (await s.copy_to_host(np.empty(0, np.float32), dev.empty(0, np.float32)))
            assert dev._staging_pool._cached == staged  # no staging block was used


async def test_copy_to_host_errors_are_clear():
    async with ac.Device(0) as dev, ac.Device(1) as other:
        src = dev.empty((4, 4), np.float32)
        pinned = dev.pinned_empty((4, 4), np.float32)
        async with dev.stream() as s:
            with pytest.raises(ValueError, match="pageable"):
                await s.copy_to_host(np.empty((4, 4), np.float32), src)
            with pytest.raises(TypeError, match="dtype mismatch"):
                await s.copy_to_host(pinned.view(np.int32), src)
            with pytest.raises(ValueError, match="size mismatch"):
                await s.copy_to_host(pinned[:3], src)
            wide = dev.pinned_empty((4, 8), np.float32)
            with pytest.raises(ValueError, match="C-contiguous"):
                await s.copy_to_host(wide[:, ::2], src)
            readonly = pinned.view()
            readonly.flags.writeable = False
            with pytest.raises(ValueError, match="writeable"):
                await s.copy_to_host(readonly, src)
            with pytest.raises(TypeError, match="numpy array"):
                await s.copy_to_host(memoryview(pinned), src)  # type: ignore[arg-type]
            with pytest.raises(TypeError, match="DeviceArray"):
                await s.copy_to_host(pinned, pinned)  # type: ignore[arg-type]
            with pytest.raises(ValueError, match="device 1"):
                await s.copy_to_host(pinned, other.empty((4, 4), np.float32))
            assert s.in_flight == 0  # nothing was enqueued by any of them
        with pytest.raises(ac.ClosedError):
            await s.copy_to_host(pinned, src)
