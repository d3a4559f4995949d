"""What an adversarial run broke (issue 20, points 1 to 3): memory handed out while queued work
still writes it -- by the pool's stream-ordered reuse, or under a graph -- and a borrowed stream
destroyed under its wrapper, whose close waited for work that was never enqueued.

The probes as the issue gives them queue work behind a 300 ms delay kernel, and check before
the event loop runs again (so nothing can resolve meanwhile, however slow the machine); the
others hold their work behind a gate (async_util.Gate) for as long as they need. The pool's
rule these tests hold it to: a block is idle only when every piece of work that may
touch it, through any array it was ever handed out as, is done; until then only later work on
the one stream all that work is on may reuse it (stream order runs it after), and a block a
graph holds is reused by nobody until the graph is closed and its replays are done.
"""

from __future__ import annotations

import gc
import time
from pathlib import Path

import anyio
import numpy as np
import pytest
from async_util import Gate

import aiocann as ac
import aiocann.acl as acl
from aiocann import _runtime
from examples import EXAMPLE_KERNELS

pytestmark = pytest.mark.anyio

N = 1024  # int32 elements: one 4 KiB block
DELAY_US = 300_000


@pytest.fixture(scope="module")
def delay_path() -> Path:
    """examples/kernels/delay.c: holds its stream for a while without writing anything."""
    from aiocann.compiler import build_kernel

    return build_kernel(EXAMPLE_KERNELS / "delay.c")


async def _kernels(dev: ac.Device, test_kernels_path: Path, delay_path: Path) -> tuple[ac.Kernel, ac.Kernel]:
    delay = (await dev.load_binary(delay_path)).function("delay_us")
    write = (await dev.load_binary(test_kernels_path)).function("write_value")
    return delay, write


async def _queue_a_late_write(
    s: ac.Stream, delay: ac.Kernel, write: ac.Kernel, arr: ac.DeviceArray, value: int
) -> ac.Completion:
    """On ``s``: a delay, then a kernel writing ``arr[0] = value`` -- queued, not yet run."""
    await ac.launch(delay, delay.args().u64(DELAY_US), blocks=1, stream=s)
    return await ac.launch(write, write.args().ptr(arr).u32(0).i32(value), blocks=1, stream=s)


async def _write(write: ac.Kernel, s: ac.Stream, arr: ac.DeviceArray, value: int, index: int = 0) -> ac.Completion:
    """On ``s``: ``arr[index] = value``."""
    return await ac.launch(write, write.args().ptr(arr).u32(index).i32(value), blocks=1, stream=s)


def _all_given_back(pool: ac.MemoryPool) -> None:
    """After the device closed: every block the pool took from the runtime went back, once."""
    st = pool.stats()
    assert st.in_use_bytes == 0 and st.cached_bytes == 0 and st.frees == st.mallocs, st


# --------------------------------------------------------------------------- point 1


async def test_a_block_reused_on_its_stream_is_not_idle_until_the_first_arrays_work_is_done(
    test_kernels_path, delay_path
):
    """The probe: a's block is reused by b on a's stream (stream order makes that safe), b is
    released with no work of its own -- and the block must still wait for a's queued write
    before anyone else gets it."""
    async with ac.Device(0) as dev, dev.stream() as s1, dev.stream() as s2:
        delay, write = await _kernels(dev, test_kernels_path, delay_path)
        pool = dev.memory_pool
        a = s1.empty(N, np.int32)
        old = a.ptr
        written = await _queue_a_late_write(s1, delay, write, a, 777)
        a.close()
        b = s1.empty(N, np.int32)
        assert b.ptr == old and pool.stats().stream_reuses == 1  # stream-ordered reuse, at once
        b.close()
        c = dev.empty(N, np.int32)
        assert not written.done()  # dev.empty() did not wait for the device
        assert c.ptr != old  # the write is still queued: not an idle block
        cs2 = dev.empty(N, np.int32, stream=s2)
        assert cs2.ptr != old  # nor one s2's work is ordered after
        await (await s2.memset(c, 0))
        await written
        np.testing.assert_array_equal(await c.get(stream=s2), np.zeros(N, np.int32))
        # The write is done: the block is idle for everyone now (cross-stream reuse).
        again = dev.empty(N, np.int32, stream=s2)
        assert again.ptr == old
        assert (await again.get(stream=s2))[0] == 777  # the memory the write went to
    _all_given_back(dev.memory_pool)


async def test_trim_never_frees_a_block_under_queued_work(test_kernels_path, delay_path):
    async with ac.Device(0) as dev, dev.stream() as s1:
        delay, write = await _kernels(dev, test_kernels_path, delay_path)
        pool = dev.memory_pool
        a = s1.empty(N, np.int32)
        old = a.ptr
        written = await _queue_a_late_write(s1, delay, write, a, 777)
        a.close()
        s1.empty(N, np.int32).close()  # reused on s1 and released with no work of its own
        freed = pool.trim()
        assert freed == 0 and pool.stats().frees == 0  # the block is not idle: kept
        assert not written.done()
        await written  # the kernel wrote into live memory: no fault (507015)
        await s1.synchronize()
        assert pool.stats().cached_bytes == 4096 and pool.stats().in_use_bytes == 0
        assert dev.empty(N, np.int32).ptr == old  # idle now
        gc.collect()
        assert pool.trim() == 4096
    _all_given_back(dev.memory_pool)


async def test_a_block_reused_through_several_arrays_waits_for_all_their_work(test_kernels_path, delay_path):
    """a, then b (reusing a's block on s1) used on s2 after an event: the block's work is on
    two streams now, so no stream may reuse it at once -- only when both are done."""
    async with ac.Device(0) as dev, dev.stream() as s1, dev.stream() as s2:
        _, write = await _kernels(dev, test_kernels_path, delay_path)
        pool = dev.memory_pool
        gate1 = await Gate.hold(dev, s1, test_kernels_path)
        gate2 = await Gate.hold(dev, s2, test_kernels_path)
        in_use = pool.stats().in_use_bytes  # the gates' flags
        a = s1.empty(N, np.int32)
        old = a.ptr
        first = await _write(write, s1, a, 1)
        a.close()
        b = s1.empty(N, np.int32)
        assert b.ptr == old
        s2.wait(await s1.record(timing=False))  # b belongs to s1: s2 waits for s1 first
        second = await _write(write, s2, b, 2)
        b.close()
        for s in (s1, s2, None):  # neither stream's later work is ordered after both
            arr = dev.empty(N, np.int32, stream=s)
            assert arr.ptr != old
            arr.close()
        assert not first.done() and not second.done()
        await gate1.open()
        await first
        assert s1.empty(N, np.int32).ptr != old and dev.empty(N, np.int32).ptr != old  # s2's write is queued
        await gate2.open()
        await second
        last = dev.empty(N, np.int32)
        assert last.ptr == old and (await last.get(stream=s1))[0] == 2
        assert pool.stats().in_use_bytes == in_use + 4096
    _all_given_back(dev.memory_pool)


async def test_stream_ordered_reuse_chains_on_one_stream(test_kernels_path, delay_path):
    """Reuse after reuse on the one stream all the block's work is on stays immediate."""
    async with ac.Device(0) as dev, dev.stream() as s1, dev.stream() as s2:
        _, write = await _kernels(dev, test_kernels_path, delay_path)
        pool = dev.memory_pool
        gate = await Gate.hold(dev, s1, test_kernels_path)
        a = s1.empty(N, np.int32)
        old = a.ptr
        first = await _write(write, s1, a, 1)
        a.close()
        b = s1.empty(N, np.int32)
        assert b.ptr == old
        second = await _write(write, s1, b, 2, index=1)
        b.close()
        c = s1.empty(N, np.int32)
        assert c.ptr == old and pool.stats().stream_reuses == 2
        assert not first.done() and dev.empty(N, np.int32, stream=s2).ptr != old
        await gate.open()
        await second
        assert first.done()
        np.testing.assert_array_equal((await c.get(stream=s1))[:2], [1, 2])
    _all_given_back(dev.memory_pool)


@pytest.mark.parametrize("memory_pool", [True, False])
async def test_an_array_closed_under_work_on_two_streams_waits_for_both(test_kernels_path, delay_path, memory_pool):
    async with ac.Device(0, memory_pool=memory_pool) as dev, dev.stream() as s1, dev.stream() as s2:
        _, write = await _kernels(dev, test_kernels_path, delay_path)
        gates = [await Gate.hold(dev, s, test_kernels_path) for s in (s1, s2)]
        in_use = dev.memory_pool.stats().in_use_bytes  # the gates' flags
        a = dev.empty(N, np.int32)
        old = a.ptr
        first = await _write(write, s1, a, 1)
        second = await _write(write, s2, a, 2, index=1)
        a.close()
        for gate, done in zip(gates, (first, second), strict=True):
            for s in (s1, s2, None):
                arr = dev.empty(N, np.int32, stream=s)
                assert arr.ptr != old
                arr.close()
            await gate.open()
            await done
        assert dev.memory_pool.stats().in_use_bytes == in_use
    _all_given_back(dev.memory_pool)


# --------------------------------------------------------------------------- point 2


@pytest.mark.parametrize("close_in_capture", [False, True])
async def test_a_graph_holds_its_arrays_from_no_stream(test_kernels_path, close_in_capture):
    """The probe: x is captured into a graph and closed; no stream's allocation may take its
    block while the graph lives, since every replay writes it."""
    async with ac.Device(0) as dev, dev.stream() as s, dev.stream() as s2:
        write = (await dev.load_binary(test_kernels_path)).function("write_value")
        pool = dev.memory_pool
        x = s.empty(N, np.int32)
        old = x.ptr
        async with s.capture() as g:
            await ac.launch(write, write.args().ptr(x).u32(0).i32(4242), blocks=1, stream=s)
            if close_in_capture:
                x.close()
        x.close()
        y = s.empty(N, np.int32)
        assert y.ptr != old  # not the graph's block, even on the capturing stream
        for other in (dev.empty(N, np.int32), dev.empty(N, np.int32, stream=s2)):
            assert other.ptr != old
            other.close()
        await (await s.memset(y, 0))
        await (await g.launch(stream=s))
        await (await g.launch(stream=s2))
        assert (await y.get(stream=s))[0] == 0
        assert pool.trim() == 2 * 4096  # the two idle blocks, never the graph's
        g.close()
        z = dev.empty(N, np.int32)
        assert z.ptr == old and (await z.get(stream=s))[0] == 4242  # idle once the graph is gone
    _all_given_back(dev.memory_pool)


async def test_a_closed_graph_holds_its_arrays_until_its_replays_are_done(test_kernels_path, delay_path):
    async with ac.Device(0) as dev, dev.stream() as s:
        _, write = await _kernels(dev, test_kernels_path, delay_path)
        x = s.empty(N, np.int32)
        old = x.ptr
        async with s.capture() as g:
            await _write(write, s, x, 4242)
        x.close()
        gate = await Gate.hold(dev, s, test_kernels_path)
        replay = await g.launch(stream=s)
        g.close()  # destroyed once the replay is done
        for stream in (s, None):
            arr = dev.empty(N, np.int32, stream=stream)
            assert arr.ptr != old
            arr.close()
        assert dev.memory_pool.trim() == 4096 and not replay.done()
        await gate.open()
        await replay
        z = dev.empty(N, np.int32)
        assert z.ptr == old and (await z.get(stream=s))[0] == 4242
    _all_given_back(dev.memory_pool)


async def test_a_block_reused_then_captured_waits_for_the_graph_and_the_old_work(test_kernels_path, delay_path):
    async with ac.Device(0) as dev, dev.stream() as s:
        delay, write = await _kernels(dev, test_kernels_path, delay_path)
        a = s.empty(N, np.int32)
        old = a.ptr
        written = await _queue_a_late_write(s, delay, write, a, 1)
        a.close()
        x = s.empty(N, np.int32)
        assert x.ptr == old
        async with s.capture() as g:
            await ac.launch(write, write.args().ptr(x).u32(1).i32(2), blocks=1, stream=s)
        x.close()
        await written
        assert s.empty(N, np.int32).ptr != old and dev.empty(N, np.int32).ptr != old  # the graph's
        await (await g.launch(stream=s))
        g.close()
        z = dev.empty(N, np.int32)
        assert z.ptr == old
        np.testing.assert_array_equal((await z.get(stream=s))[:2], [1, 2])
    _all_given_back(dev.memory_pool)


async def test_an_array_a_task_group_update_points_to_is_held_by_the_graph(test_kernels_path):
    """An update re-launches a group's kernels with new args: the graph's later replays write
    the new array, so the graph holds it as it holds what it captured."""
    async with ac.Device(0) as dev, dev.stream() as s, dev.stream() as s2:
        write = (await dev.load_binary(test_kernels_path)).function("write_value")
        x = dev.empty(N, np.int32)
        async with s.capture() as g:
            async with g.group() as grp:
                await _write(write, s, x, 1)
        y = s.empty(N, np.int32)
        old = y.ptr
        async with grp.update(stream=s):
            await _write(write, s, y, 2)
        await s.synchronize()  # the update is in the graph
        y.close()
        for stream in (s, s2, None):
            arr = dev.empty(N, np.int32, stream=stream)
            assert arr.ptr != old
            arr.close()
        z = s.empty(N, np.int32)
        assert z.ptr != old
        await (await s.memset(z, 0))
        await (await g.launch(stream=s))
        assert (await z.get(stream=s))[0] == 0
        g.close()
        last = dev.empty(N, np.int32)
        assert last.ptr == old and (await last.get(stream=s))[0] == 2
    _all_given_back(dev.memory_pool)


# --------------------------------------------------------------------------- point 3


async def test_closing_the_wrapper_of_a_destroyed_borrowed_stream_returns_at_once(test_kernels_path):
    """Other code destroys a borrowed stream under its wrapper: synchronize() raises, and the
    marker whose callback could not be enqueued is no work in flight -- closing returns at once,
    and the device is reset as usual."""
    async with ac.Device(0) as dev:
        assert acl.rt.set_device(0) == 0
        try:
            handle, ret = acl.rt.create_stream()
            assert ret == 0
            w = ac.Stream.from_handle(handle, device=dev)
            await w.synchronize()
            assert acl.rt.destroy_stream(handle) == 0
            with pytest.raises(ac.InvalidHandleError):
                await w.synchronize()
            write = (await dev.load_binary(test_kernels_path)).function("write_value")
            arr = dev.empty(N, np.int32)
            for op in (
                lambda: ac.launch(write, write.args().ptr(arr).u32(0).i32(1), blocks=1, stream=w),
                lambda: w.memset(arr, 0),
                lambda: w.copy_from_host(arr, np.zeros(N, np.int32)),
                lambda: w.download(arr),
                lambda: w.record(),
                w.synchronize,
            ):
                with pytest.raises(ac.InvalidHandleError):
                    await op()
            assert w.in_flight == 0 and w._sub.outstanding() == 0  # nothing was enqueued
            t0 = time.monotonic()
            with anyio.fail_after(5):
                await w.aclose()
            assert time.monotonic() - t0 < 1 and "closed" in repr(w)
        finally:
            assert acl.rt.reset_device(0) == 0
    assert 0 not in _runtime._kept_set  # nothing abandoned: device 0 was reset


async def test_work_enqueued_without_its_completion_callback_still_holds_its_arrays(test_kernels_path, delay_path):
    """Other code takes a borrowed stream's callbacks away: aiocann's launches are enqueued, but
    their completion callbacks are refused. Such work has no Completion, and still may touch
    what it uses: its arrays are not idle until the stream is found done with it."""
    async with ac.Device(0) as dev, dev.stream() as s2:
        delay, write = await _kernels(dev, test_kernels_path, delay_path)
        assert acl.rt.set_device(0) == 0
        try:
            handle, ret = acl.rt.create_stream()
            assert ret == 0
            w = ac.Stream.from_handle(handle, device=dev)
            assert acl.rt.unsubscribe_report(dev._reporter_tid, handle) == 0
            a = dev.empty(N, np.int32)
            old = a.ptr
            with pytest.raises(ac.AclError, match="aclrtLaunchCallback"):
                await _queue_a_late_write(w, delay, write, a, 777)  # the delay is enqueued, then refused
            with pytest.raises(ac.AclError, match="aclrtLaunchCallback"):
                await ac.launch(write, write.args().ptr(a).u32(0).i32(777), blocks=1, stream=w)
            a.close()
            c = dev.empty(N, np.int32)
            assert c.ptr != old and dev.memory_pool.trim() == 0
            await (await s2.memset(c, 0))
            assert acl.rt.synchronize_stream(handle) == 0
            assert (await c.get(stream=s2))[0] == 0
            with anyio.fail_after(10):
                await w.aclose()  # finds the stream idle
            z = dev.empty(N, np.int32)
            assert z.ptr == old and (await z.get(stream=s2))[0] == 777
            assert acl.rt.destroy_stream(handle) == 0
        finally:
            assert acl.rt.reset_device(0) == 0
    _all_given_back(dev.memory_pool)


async def test_memory_allocated_while_capturing_is_not_reused_from_the_capturing_stream(test_kernels_path, delay_path):
    """An array made during capture (``s.upload`` inside ``s.capture()``) is written by the
    graph's replays, on any stream: not ordered after the old work queued on ``s``, so it
    must be idle memory."""
    async with ac.Device(0) as dev, dev.stream() as s, dev.stream() as s2:
        _, write = await _kernels(dev, test_kernels_path, delay_path)
        gate = await Gate.hold(dev, s, test_kernels_path)
        a = s.empty(N, np.int32)
        old = a.ptr
        written = await _write(write, s, a, 777)
        a.close()
        host = np.arange(N, dtype=np.int32)
        async with s.capture() as g:
            x = await s.upload(host)
            assert x.ptr != old and dev.empty(N, np.int32, stream=s).ptr != old
        await (await g.launch(stream=s2))  # not ordered after s's write
        await gate.open()
        await written
        np.testing.assert_array_equal(await x.get(stream=s2), host)
        x.close()
        g.close()
    _all_given_back(dev.memory_pool)
