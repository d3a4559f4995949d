"""Adversarial probes (issue 20's re-run), data corruption and lifetimes first: memory that
queued work may still touch is never handed to anyone else; work whose arrays, args, binary or
graph were closed while it waited for a slot raises instead of touching freed memory, and gives
its turn on; prebuilt args pointing to a closed array are refused; graphs dropped or closed
mid-update release what they hold; a device closing under a capture, an update, a binary load
or another task's close ends or waits for it; finalizers run on the device's loop; nothing
leaks (pool blocks, threads, fds); bad input gets a clear error.

Probes that hold the device use a Gate (async_util.Gate): an ordering the test controls, never
a duration it hopes for.
"""

from __future__ import annotations

import anyio
import anyio.lowlevel
import numpy as np
import pytest
from async_util import Gate

import aiocann as ac

pytestmark = pytest.mark.anyio

N = 1024  # int32 elements: one 4 KiB block


async def _write_kernel(dev: ac.Device, test_kernels_path) -> ac.Kernel:
    return (await dev.load_binary(test_kernels_path)).function("write_value")


def _all_given_back(pool: ac.MemoryPool) -> None:
    st = pool.stats()
    assert st.in_use_bytes == 0 and st.cached_bytes == 0 and st.frees == st.mallocs, st


class _Waiting:
    """A submission started in a task of its own, left waiting for an in-flight slot."""

    def __init__(self) -> None:
        self.error: BaseException | None = None
        self.result: object = None
        self.finished = anyio.Event()

    async def run(self, submit) -> None:
        try:
            self.result = await submit()
        except Exception as exc:  # what the probe asserts on
            self.error = exc
        finally:
            self.finished.set()


async def _until(condition) -> None:
    """Until ``condition()`` holds: tasks started meanwhile have run far enough."""
    with anyio.fail_after(5):
        while not condition():  # noqa: ASYNC110 -- polls what other tasks do
            await anyio.lowlevel.checkpoint()


async def _until_waiting(s: ac.Stream, n: int) -> None:
    """Until ``n`` submissions wait for a slot on ``s``."""
    with anyio.fail_after(5):
        while len(s._sub.waiters) < n:  # noqa: ASYNC110 -- polls the stream's admission queue
            await anyio.lowlevel.checkpoint()


# --------------------------------------------------------------------------- admission waits


@pytest.mark.parametrize("op", ["copy dst", "copy src", "download", "upload into", "memset"])
async def test_an_array_closed_while_its_copy_waits_for_a_slot_is_not_touched(test_kernels_path, op):
    """A copy waiting for an in-flight slot has not enqueued anything: its arrays are not busy,
    so closing one frees its block at once -- and another array gets it. The copy, once
    admitted, must find the array closed (ClosedError), not write into (or read from) the
    memory that belongs to another array now."""
    async with ac.Device(0) as dev, dev.stream(max_in_flight=1) as s, dev.stream() as s2:
        pool = dev.memory_pool
        host = np.full(N, 55, np.int32)
        src = await s2.upload(host)
        dst = dev.empty(N, np.int32)
        await s2.synchronize()
        gate = await Gate.hold(dev, s, test_kernels_path)  # takes s's only slot
        victim = {"copy dst": dst, "copy src": src, "download": src, "upload into": dst, "memset": dst}[op]
        submit = {
            "copy dst": lambda: s.copy(dst, src),
            "copy src": lambda: s.copy(dst, src),
            "download": lambda: s.download(src),
            "upload into": lambda: s.copy_from_host(dst, host),
            "memset": lambda: s.memset(dst, 77),
        }[op]
        waiting = _Waiting()
        async with anyio.create_task_group() as tg:
            tg.start_soon(waiting.run, submit)
            await _until_waiting(s, 1)
            old = victim.ptr
            victim.close()
            other = dev.empty(N, np.int32)
            assert other.ptr == old  # the block was idle: handed out again
            await (await s2.memset(other, 0))
            await gate.open()
        with anyio.fail_after(10):
            await waiting.finished.wait()
        assert isinstance(waiting.error, ac.ClosedError), waiting.error or waiting.result
        await s.synchronize()
        np.testing.assert_array_equal(await other.get(stream=s2), np.zeros(N, np.int32))
        other.close()
    _all_given_back(pool)


async def test_a_submission_that_fails_after_its_wait_passes_the_slot_on(test_kernels_path):
    """Two submissions wait for the one slot; the first is woken and then fails (its array was
    closed meanwhile). The second must be woken too, not wait for a completion that will never
    come (nothing else is in flight)."""
    async with ac.Device(0) as dev, dev.stream(max_in_flight=1) as s:
        a = dev.empty(N, np.int32)
        b = dev.empty(N, np.int32)
        gate = await Gate.hold(dev, s, test_kernels_path)
        first, second = _Waiting(), _Waiting()
        async with anyio.create_task_group() as tg:
            tg.start_soon(first.run, lambda: s.memset(a, 1))
            await _until_waiting(s, 1)
            tg.start_soon(second.run, lambda: s.memset(b, 2))
            await _until_waiting(s, 2)
            a.close()
            await gate.open()
            with anyio.fail_after(10):
                await first.finished.wait()
                await second.finished.wait()
        assert isinstance(first.error, ac.ClosedError), first.error
        assert second.error is None, second.error
        await second.result
        assert (await b.get(stream=s))[0] == 0x02020202


@pytest.mark.parametrize("closed", ["array", "args", "binary"])
async def test_a_launch_whose_array_args_or_binary_closed_while_it_waited_for_a_slot_raises(test_kernels_path, closed):
    """As for copies: once admitted, the launch finds what it was to use closed -- the array
    (whose block is another array's now), the args, or the binary (its code unloaded)."""
    async with ac.Device(0) as dev, dev.stream(max_in_flight=1) as s, dev.stream() as s2:
        binary = await dev.load_binary(test_kernels_path)
        write = binary.function("write_value")
        a = dev.empty(N, np.int32)
        args = await write.args().ptr(a).u32(0).i32(777)
        gate = await Gate.hold(dev, s, test_kernels_path)
        waiting = _Waiting()
        async with anyio.create_task_group() as tg:
            tg.start_soon(waiting.run, lambda: ac.launch(write, args, blocks=1, stream=s))
            await _until_waiting(s, 1)
            old = a.ptr
            if closed == "array":
                a.close()
            elif closed == "args":
                args.close()
                a.close()  # idle: nothing was enqueued
            else:
                binary.unload()
                a.close()
            other = dev.empty(N, np.int32)
            assert other.ptr == old
            await (await s2.memset(other, 0))
            await gate.open()
        with anyio.fail_after(10):
            await waiting.finished.wait()
        assert isinstance(waiting.error, ac.ClosedError), waiting.error or waiting.result
        await s.synchronize()
        assert (await other.get(stream=s2))[0] == 0


async def test_a_graph_closed_while_its_replay_waits_for_a_slot_is_not_replayed(test_kernels_path):
    async with ac.Device(0) as dev, dev.stream(max_in_flight=1) as s, dev.stream() as s2:
        write = await _write_kernel(dev, test_kernels_path)
        x = dev.empty(N, np.int32)
        async with s2.capture() as g:
            await ac.launch(write, write.args().ptr(x).u32(0).i32(4242), blocks=1, stream=s2)
        gate = await Gate.hold(dev, s, test_kernels_path)
        waiting = _Waiting()
        async with anyio.create_task_group() as tg:
            tg.start_soon(waiting.run, lambda: g.launch(stream=s))
            await _until_waiting(s, 1)
            g.close()  # no replay in flight: destroyed now
            await gate.open()
        with anyio.fail_after(10):
            await waiting.finished.wait()
        assert isinstance(waiting.error, ac.ClosedError), waiting.error or waiting.result
        await s.synchronize()


# --------------------------------------------------------------------------- prebuilt args


async def test_prebuilt_args_pointing_to_a_closed_array_are_refused(test_kernels_path):
    """The args were built with ``a``; ``a`` is closed and its block handed to ``b``. Launching
    the old args again would write ``b``: it raises ClosedError instead, on the hot path too."""
    async with ac.Device(0) as dev, dev.stream() as s:
        write = await _write_kernel(dev, test_kernels_path)
        a = dev.empty(N, np.int32)
        args = await write.args().ptr(a).u32(0).i32(777)
        await (await ac.launch(write, args, blocks=1, stream=s))
        old = a.ptr
        a.close()
        b = dev.empty(N, np.int32)
        assert b.ptr == old
        await (await s.memset(b, 0))
        with pytest.raises(ac.ClosedError, match="argument 0"):
            await ac.launch(write, args, blocks=1, stream=s)
        with pytest.raises(ac.ClosedError, match="argument 0"):
            await ac.launch(write, args, blocks=1, stream=s, config=ac.LaunchConfig())
        with pytest.raises(ac.ClosedError, match="argument 0"):
            args.handle  # noqa: B018 -- what pyACL would launch
        async with s.capture():  # nor recorded into a graph
            with pytest.raises(ac.ClosedError, match="argument 0"):
                await ac.launch(write, args, blocks=1, stream=s)
        await s.synchronize()
        assert (await b.get(stream=s))[0] == 0
        args.update(2, np.int32(5))  # other arguments stay updatable; still refused
        with pytest.raises(ac.ClosedError, match="argument 0"):
            await ac.launch(write, args, blocks=1, stream=s)
        args.update(0, b)  # pointed at a live array again: usable
        await (await ac.launch(write, args, blocks=1, stream=s))
        assert (await b.get(stream=s))[0] == 5


async def test_every_args_pointing_to_a_closed_array_is_refused_until_updated(test_kernels_path):
    async with ac.Device(0) as dev, dev.stream() as s:
        copy = (await dev.load_binary(test_kernels_path)).function("empty")
        a, b = dev.empty(N, np.int32), dev.empty(N, np.int32)
        args = await copy.args().ptr(a)
        other = await copy.args().ptr(a)
        a.close()
        for x in (args, other):
            with pytest.raises(ac.ClosedError, match="argument 0"):
                await ac.launch(copy, x, blocks=1, stream=s)
        args.update(0, b.ptr)  # an int address is the caller's to keep valid
        await (await ac.launch(copy, args, blocks=1, stream=s))
        args.close()
        with pytest.raises(ac.ClosedError, match="were closed"):
            await ac.launch(copy, args, blocks=1, stream=s)


# --------------------------------------------------------------------------- bad input


async def test_empty_with_a_stream_that_is_not_a_stream_is_a_type_error():
    async with ac.Device(0) as dev:
        with pytest.raises(TypeError, match="stream"):
            dev.empty(N, np.int32, stream=object())  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="stream"):
            dev.empty(N, np.int32, stream=dev.empty(1))  # type: ignore[arg-type]  # has a _device too


# --------------------------------------------------------------------------- graphs


async def test_work_recorded_into_a_graph_closed_during_its_update_holds_nothing_for_good(test_kernels_path):
    """``g.close()`` inside ``grp.update()``: the update's launch would be recorded into a graph
    already destroyed, and hold its array for good (its block never back in the pool). Refused,
    as closing a graph inside its capture block is."""
    async with ac.Device(0) as dev, dev.stream() as s:
        write = await _write_kernel(dev, test_kernels_path)
        x, y = dev.empty(N, np.int32), dev.empty(N, np.int32)
        async with s.capture() as g:
            async with g.group() as grp:
                await ac.launch(write, write.args().ptr(x).u32(0).i32(1), blocks=1, stream=s)
        async with grp.update(stream=s):
            with pytest.raises(RuntimeError, match="update block"):
                g.close()
            await ac.launch(write, write.args().ptr(y).u32(0).i32(2), blocks=1, stream=s)
        await (await g.launch(stream=s))
        assert (await y.get(stream=s))[0] == 2
        g.close()
        y.close()
        x.close()
        assert not y._busy and not x._busy
    _all_given_back(dev.memory_pool)


async def test_a_task_group_update_on_a_stream_of_another_device_is_refused(test_kernels_path):
    async with ac.Device(0) as dev, ac.Device(1) as dev1, dev.stream() as s, dev1.stream() as s1:
        write = await _write_kernel(dev, test_kernels_path)
        x = dev.empty(N, np.int32)
        async with s.capture() as g:
            async with g.group() as grp:
                await ac.launch(write, write.args().ptr(x).u32(0).i32(1), blocks=1, stream=s)
        with pytest.raises(ValueError, match="Device"):
            async with grp.update(stream=s1):
                pass
        with pytest.raises(TypeError, match="Stream"):
            async with grp.update(stream=None):  # type: ignore[arg-type]
                pass
        assert s1._state == "open"
        await s1.synchronize()
        g.close()


# --------------------------------------------------------------------------- two Device blocks, one NPU


async def test_an_array_busy_on_another_device_blocks_stream_outlives_its_device(test_kernels_path):
    """Two Device blocks of one NPU share its memory: an array of ``a`` used by work queued on a
    stream of ``b`` is closed with ``a``. Its block is freed only once that work is done -- the
    work writes into live memory -- and then goes back (nothing leaks)."""
    async with ac.Device(0) as b, b.stream() as sb:
        write = await _write_kernel(b, test_kernels_path)
        gate = await Gate.hold(b, sb, test_kernels_path)
        async with ac.Device(0) as a:
            x = a.empty(N, np.int32)
            done = await ac.launch(write, write.args().ptr(x).u32(0).i32(9), blocks=1, stream=sb)
            pool_a = a.memory_pool
        assert x.closed and not done.done()
        assert pool_a.stats().in_use_bytes == 4096 and pool_a.stats().frees == 0  # not freed under the work
        await gate.open()
        await done
        _all_given_back(pool_a)


async def test_args_pointing_to_an_array_of_a_closed_device_block_are_refused(test_kernels_path):
    async with ac.Device(0) as b, b.stream() as sb:
        write = await _write_kernel(b, test_kernels_path)
        async with ac.Device(0) as a:
            x = a.empty(N, np.int32)
            args = await write.args().ptr(x).u32(0).i32(9)
            await (await ac.launch(write, args, blocks=1, stream=sb))
        with pytest.raises(ac.ClosedError, match="argument 0"):  # x was freed with its device
            await ac.launch(write, args, blocks=1, stream=sb)


# --------------------------------------------------------------------------- pressure


async def test_a_memory_limit_counts_pending_blocks_and_stream_reuse_still_serves_them(test_kernels_path):
    async with ac.Device(0, memory_limit=3 * 4096) as dev, dev.stream() as s:
        write = await _write_kernel(dev, test_kernels_path)
        gate = await Gate.hold(dev, s, test_kernels_path)  # its flag: one 512-byte block
        a = dev.empty(N, np.int32)
        old = a.ptr
        done = await ac.launch(write, write.args().ptr(a).u32(0).i32(1), blocks=1, stream=s)
        a.close()  # pending on s
        b = dev.empty(N, np.int32)  # a fresh block: 512 + 2 * 4096 bytes held
        assert b.ptr != old
        with pytest.raises(ac.DeviceOutOfMemoryError):
            dev.empty(N, np.int32)  # the pending block cannot be freed or given to other streams
        c = s.empty(N, np.int32)  # but s may take it
        assert c.ptr == old
        assert dev.memory_pool.trim() == 0
        await gate.open()
        await done
        for arr in (b, c):
            arr.close()
        assert dev.memory_pool.trim() == 2 * 4096


# --------------------------------------------------------------------------- leaks, exactly once


def _fds() -> int:
    import os

    return len(os.listdir("/proc/self/fd"))


async def test_devices_opened_and_closed_again_and_again_leak_no_threads_fds_or_memory(test_kernels_path):
    import threading

    async def once() -> None:
        async with ac.Device(0) as dev, dev.stream() as s, dev.stream() as s2:
            write = await _write_kernel(dev, test_kernels_path)
            x = await s.upload(np.arange(N, dtype=np.int32))
            args = await write.args().ptr(x).u32(0).i32(3)
            await ac.launch(write, args, blocks=1, stream=s)
            s2.wait(await s.record())
            async with s2.capture() as g:
                await ac.launch(write, args, blocks=1, stream=s2)
            await (await g.launch(stream=s))
            assert (await x.get(stream=s2))[0] == 3
            x.close()  # busy or not
        _all_given_back(dev.memory_pool)

    await once()
    threads, fds = threading.active_count(), _fds()
    for _ in range(15):
        await once()
    assert threading.active_count() <= threads and _fds() <= fds


async def test_cancelled_waits_leave_every_completion_resolved_once_and_every_array_idle(test_kernels_path):
    async with ac.Device(0) as dev, dev.stream(max_in_flight=8) as s:
        write = await _write_kernel(dev, test_kernels_path)
        arrays = [dev.empty(N, np.int32) for _ in range(16)]
        gate = await Gate.hold(dev, s, test_kernels_path)
        completions: list[ac.Completion] = []
        resolved0 = dev._live_dispatcher.resolved

        async def submit_and_wait(i: int) -> None:
            c = await ac.launch(write, write.args().ptr(arrays[i]).u32(0).i32(i), blocks=1, stream=s)
            completions.append(c)
            await c

        with anyio.move_on_after(0.5):  # cancels the waits, some for a slot, some for the device
            async with anyio.create_task_group() as tg:
                for i in range(16):
                    tg.start_soon(submit_and_wait, i)
        assert s.in_flight == 8 and all(not c.done() for c in completions)
        for a in arrays:
            a.close()  # busy or not
        await gate.open()
        await s.synchronize()
        assert all(c.done() and c.exception() is None for c in completions)
        assert dev._live_dispatcher.resolved - resolved0 == len(completions) + 3  # + the gate, its opener, synchronize
        assert all(a._busy == 0 for a in arrays)
        with pytest.raises(ac.ClosedError):
            arrays[0].ptr  # noqa: B018
    _all_given_back(dev.memory_pool)


async def test_the_pool_limit_takes_a_whole_number_of_bytes():
    async with ac.Device(0) as dev:
        pool = dev.memory_pool
        for bad in (1.5, True, "4096", np.float64(4096)):
            with pytest.raises(TypeError, match="limit"):
                pool.limit = bad  # type: ignore[assignment]
            assert pool.limit is None
        with pytest.raises(ValueError, match=">= 0"):
            pool.limit = -1
        pool.limit = np.int64(8192)  # type: ignore[assignment]
        assert pool.limit == 8192 and type(pool.limit) is int
        pool.limit = None


# --------------------------------------------------------------------------- closing under capture


async def test_closing_a_stream_that_captures_or_updates_is_refused(test_kernels_path):
    async with ac.Device(0) as dev, dev.stream() as s:
        write = await _write_kernel(dev, test_kernels_path)
        x = dev.empty(N, np.int32)
        async with s.capture() as g:
            async with g.group() as grp:
                await ac.launch(write, write.args().ptr(x).u32(0).i32(1), blocks=1, stream=s)
            with pytest.raises(RuntimeError, match="capture"):
                await s.aclose()
        async with grp.update(stream=s):
            with pytest.raises(RuntimeError, match="update"):
                await s.aclose()
            await ac.launch(write, write.args().ptr(x).u32(0).i32(2), blocks=1, stream=s)
        await (await g.launch(stream=s))
        assert (await x.get(stream=s))[0] == 2
        g.close()


@pytest.mark.parametrize("block", ["capture", "update"])
async def test_a_device_closed_while_another_task_captures_ends_the_capture(test_kernels_path, block):
    """Another task is inside ``s.capture()`` (or a task group's update) when the device
    closes: the device ends it, drains and destroys the stream, frees what the graph held and
    resets the NPU; the block, when it resumes, raises ClosedError."""
    from aiocann import _runtime

    inside, resume = anyio.Event(), anyio.Event()
    outcome: list[BaseException | None] = []
    dev = ac.Device(0)
    async with dev:
        write = await _write_kernel(dev, test_kernels_path)
        s = dev.stream()
        x = dev.empty(N, np.int32)
        grp = None
        if block == "update":
            async with s.capture() as g:
                async with g.group() as grp:
                    await ac.launch(write, write.args().ptr(x).u32(0).i32(1), blocks=1, stream=s)

        async def capturing() -> None:
            try:
                if grp is None:
                    async with s.capture():
                        await ac.launch(write, write.args().ptr(x).u32(0).i32(1), blocks=1, stream=s)
                        inside.set()
                        await resume.wait()
                else:
                    async with grp.update(stream=s):
                        inside.set()
                        await resume.wait()
                outcome.append(None)
            except Exception as exc:
                outcome.append(exc)

        async with anyio.create_task_group() as tg:
            tg.start_soon(capturing)
            await inside.wait()
            x.close()
            with anyio.fail_after(10):
                await dev.aclose()
            resume.set()
    assert len(outcome) == 1 and isinstance(outcome[0], ac.ClosedError), outcome
    assert "closed" in repr(s)
    _all_given_back(dev.memory_pool)
    assert 0 not in _runtime._kept_set


# --------------------------------------------------------------------------- wrong thread


async def test_closing_a_busy_array_from_another_thread_is_refused(test_kernels_path):
    """Its busy count is the event loop's, which resolves the array's work at the same time:
    closed from another thread, the array's release could miss its last completion and the
    block stay pending for good. An idle array closes from anywhere (as GC frees it)."""
    async with ac.Device(0) as dev, dev.stream() as s:
        write = await _write_kernel(dev, test_kernels_path)
        busy, idle = dev.empty(N, np.int32), dev.empty(N, np.int32)
        gate = await Gate.hold(dev, s, test_kernels_path)
        done = await ac.launch(write, write.args().ptr(busy).u32(0).i32(1), blocks=1, stream=s)
        with pytest.raises(ac.WrongThreadError):
            await anyio.to_thread.run_sync(busy.close)
        assert not busy.closed
        await anyio.to_thread.run_sync(idle.close)
        assert idle.closed
        await gate.open()
        await done
        await anyio.to_thread.run_sync(busy.close)  # idle now
    _all_given_back(dev.memory_pool)


# --------------------------------------------------------------------------- graphs dropped


async def test_a_graph_dropped_without_close_lets_its_arrays_go(test_kernels_path):
    """A graph is destroyed when garbage-collected (its finalizer): the arrays it held must be
    released with it, not stay busy for a graph that is gone (their blocks never back)."""
    import gc

    async with ac.Device(0) as dev, dev.stream() as s:
        write = await _write_kernel(dev, test_kernels_path)
        x = dev.empty(N, np.int32)
        old = x.ptr
        async with s.capture() as g:
            await ac.launch(write, write.args().ptr(x).u32(0).i32(1), blocks=1, stream=s)
        await (await g.launch(stream=s))
        del g
        gc.collect()
        x.close()
        assert dev.empty(N, np.int32).ptr == old
        # Collected in another thread: the arrays are released on the device's loop.
        y = dev.empty(N, np.int32)
        async with s.capture() as g:
            await ac.launch(write, write.args().ptr(y).u32(0).i32(1), blocks=1, stream=s)
        graphs = [g]
        del g
        await anyio.to_thread.run_sync(lambda: (graphs.clear(), gc.collect()))
        await anyio.lowlevel.checkpoint()  # handed to the loop before the thread returned
        assert y._busy == 0
        y.close()
    _all_given_back(dev.memory_pool)


async def test_host_data_that_holds_python_objects_is_refused_not_copied():
    """numpy makes an object array of a DeviceArray (or any object): its 8 bytes are a pointer,
    which a copy into an 8-byte array took as data."""
    async with ac.Device(0) as dev, dev.stream() as s:
        a = dev.empty(2, np.int32)
        await (await s.memset(a, 0))
        for data in (a, object(), np.array([None])):
            with pytest.raises(TypeError, match="numeric"):
                await s.copy_from_host(a, data)
            with pytest.raises(TypeError, match="numeric"):
                await a.set(data, stream=s)
        np.testing.assert_array_equal(await a.get(stream=s), [0, 0])


# --------------------------------------------------------------------------- events


async def test_an_event_closed_while_a_stream_waits_for_it_still_orders_that_stream(test_kernels_path):
    async with ac.Device(0) as dev, dev.stream() as s1, dev.stream() as s2:
        write = await _write_kernel(dev, test_kernels_path)
        x = dev.empty(N, np.int32)
        await (await s2.memset(x, 0))
        gate = await Gate.hold(dev, s1, test_kernels_path)
        first = await ac.launch(write, write.args().ptr(x).u32(0).i32(1), blocks=1, stream=s1)
        ev = await s1.record(timing=False)
        s2.wait(ev)
        ev.close()
        with pytest.raises(ac.ClosedError):
            s2.wait(ev)
        second = await ac.launch(write, write.args().ptr(x).u32(0).i32(2), blocks=1, stream=s2)
        assert not second.done()
        await gate.open()
        with anyio.fail_after(10):
            await second
        assert first.done()
        assert (await x.get(stream=s2))[0] == 2  # s2's write ran after s1's


# --------------------------------------------------------------------------- loads during close


async def test_a_device_closed_while_a_binary_loads_waits_for_the_load_and_unloads_it(test_kernels_path, monkeypatch):
    """The load runs in a worker thread, which the close cannot interrupt: the close waits for
    it, and the load -- finding its device closing -- unloads what it loaded (in the device's
    context, before the reset) and raises ClosedError, rather than hand back a binary of a
    closed device whose handle the reset made stale."""
    import threading

    import aiocann.kernel as kernel_module

    entered, go = threading.Event(), threading.Event()
    read = kernel_module.read_signatures

    def slow_read(path):
        entered.set()
        go.wait(10)
        return read(path)

    monkeypatch.setattr(kernel_module, "read_signatures", slow_read)
    got: list[object] = []
    unloads: list[object] = []
    dev = ac.Device(0)
    async with dev:

        async def load() -> None:
            try:
                got.append(await dev.load_binary(test_kernels_path))
            except Exception as exc:
                got.append(exc)

        async with anyio.create_task_group() as tg:
            tg.start_soon(load)
            await anyio.to_thread.run_sync(entered.wait, 10)
            real_unload = kernel_module.lib.aclrtBinaryUnLoad

            tg.start_soon(dev.aclose)
            with anyio.fail_after(10):
                while dev._state == "open":  # noqa: ASYNC110 -- until the close has begun
                    await anyio.lowlevel.checkpoint()
            monkeypatch.setattr(kernel_module, "lib", _Spy(real_unload, unloads, kernel_module.lib))
            go.set()
    assert len(got) == 1 and isinstance(got[0], ac.ClosedError), got
    assert len(unloads) == 1  # unloaded by the load itself, while the device's context lived
    assert dev.closed


class _Spy:
    """aiocann.kernel's ``lib`` with aclrtBinaryUnLoad counted."""

    def __init__(self, unload, calls: list[object], lib) -> None:
        self._unload, self._calls, self._lib = unload, calls, lib

    def aclrtBinaryUnLoad(self, handle):  # noqa: N802 -- the C name
        self._calls.append(handle)
        return self._unload(handle)

    def __getattr__(self, name):
        return getattr(self._lib, name)


async def test_a_device_closed_while_another_task_closes_a_stream_waits_for_that_streams_work(test_kernels_path):
    """Another task's ``s.aclose()`` is waiting for the stream's work when the device closes:
    the device must wait for that work too, not abandon it (and never reset the NPU)."""
    import warnings

    from aiocann import _runtime

    dev = ac.Device(0)
    async with ac.Device(0) as opener, dev:  # opener: another Device block, to open the gate
        write = await _write_kernel(dev, test_kernels_path)
        s = dev.stream()
        x = dev.empty(N, np.int32)
        gate = await Gate.hold(dev, s, test_kernels_path)
        done = await ac.launch(write, write.args().ptr(x).u32(0).i32(1), blocks=1, stream=s)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # an abandonment warns
            async with anyio.create_task_group() as tg:
                tg.start_soon(s.aclose)
                await _until(lambda: s._state == "closing")
                tg.start_soon(dev.aclose)
                await _until(lambda: dev._state == "closing")
                assert not done.done()
                with anyio.fail_after(20):
                    await Gate(opener, gate._flag, gate.done).open()
        assert dev.closed
    assert done.done() and done.exception() is None
    assert 0 not in _runtime._kept_set  # nothing abandoned: the NPU was reset
    _all_given_back(dev.memory_pool)


async def test_a_second_close_of_a_device_waits_for_the_first(test_kernels_path):
    """Task A's close of the device waits for a stream's work; task B's close must not return
    before the device is closed (it returned at once, the device still open)."""
    async with ac.Device(0) as opener:
        dev = ac.Device(0)
        await dev.__aenter__()
        s = dev.stream()
        gate = await Gate.hold(dev, s, test_kernels_path)
        closed_by_b: list[bool] = []

        async def second_close() -> None:
            await dev.aclose()
            closed_by_b.append(dev.closed)

        async with anyio.create_task_group() as tg:
            tg.start_soon(dev.aclose)
            await _until(lambda: dev._state == "closing")
            tg.start_soon(second_close)
            await anyio.lowlevel.checkpoint()
            assert not closed_by_b
            with anyio.fail_after(20):
                await Gate(opener, gate._flag, gate.done).open()
        assert closed_by_b == [True]


async def test_a_stream_collected_in_another_thread_is_closed_on_the_devices_loop(monkeypatch):
    """The garbage collector may drop an unclosed stream in any thread; unregistering it from
    the dispatcher there races the watchdog iterating the registered streams on the loop."""
    import gc
    import threading
    import warnings

    finished_in: list[int] = []
    close = ac.Stream._finish_close

    def spy(self, *args, **kwargs):
        finished_in.append(threading.get_ident())
        return close(self, *args, **kwargs)

    monkeypatch.setattr(ac.Stream, "_finish_close", spy)
    async with ac.Device(0) as dev:
        holder = [dev.stream()]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            await anyio.to_thread.run_sync(lambda: (holder.clear(), gc.collect()))
            await anyio.lowlevel.checkpoint()
        assert finished_in == [threading.get_ident()]  # the device's (this) thread
        assert any(issubclass(w.category, ResourceWarning) for w in caught)
        assert len(dev._streams) == 0
        async with dev.stream() as s:
            await s.synchronize()
