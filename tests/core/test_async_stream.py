"""Streams, events, errors and cancellation in the async core (issue 4)."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import numpy as np
import pytest
from async_util import Gate

import aiocann as ac

pytestmark = pytest.mark.anyio


async def test_current_stream_is_task_scoped(test_kernels_path):
    seen: dict[str, object] = {}
    async with ac.Device(0) as dev:
        assert ac.current_device() is dev

        async def worker(name: str, started: anyio.Event, go: anyio.Event) -> None:
            async with dev.stream() as s:
                seen[name] = s
                started.set()
                await go.wait()  # both tasks are inside their blocks at once
                assert ac.current_stream() is s

        go = anyio.Event()
        started = [anyio.Event(), anyio.Event()]
        async with anyio.create_task_group() as tg:
            tg.start_soon(worker, "a", started[0], go)
            tg.start_soon(worker, "b", started[1], go)
            for e in started:
                await e.wait()
            with pytest.raises(RuntimeError, match="no current stream"):
                ac.current_stream()  # the parent task is in no stream block
            go.set()
        assert seen["a"] is not seen["b"]


async def test_in_order_execution_on_one_stream(test_kernels_path):
    async with ac.Device(0) as dev:
        b = await dev.load_binary(test_kernels_path)
        affine, write = b.function("affine"), b.function("write_value")
        async with dev.stream() as s:
            out = dev.empty(64, np.int32)
            await s.memset(out, 0)
            step = await affine.args().ptr(out).u32(64)
            for _ in range(10):  # x -> 2x + 1, ten times: order-sensitive with the write below
                await ac.launch(affine, step, blocks=4)
            await ac.launch(write, await write.args().ptr(out).u32(0).i32(5), blocks=1)
            await ac.launch(affine, step, blocks=4)
            got = await out.get()
        assert got[0] == 11 and (got[1:] == 2 * 1023 + 1).all()


async def test_stream_exit_waits_for_pending_work(test_kernels_path):
    async with ac.Device(0) as dev:
        wait = (await dev.load_binary(test_kernels_path)).function("wait_us")
        out = dev.empty(4, np.int32)
        async with dev.stream() as s:
            await s.memset(out, 0)
            c = await ac.launch(wait, await wait.args().ptr(out).u64(50_000), blocks=4)
        assert c.done()  # leaving the block awaited it
        async with dev.stream():
            np.testing.assert_array_equal(await out.get(), [1, 2, 3, 4])


async def test_device_fault_fails_completions_and_is_raised_at_exit(test_kernels_path):
    async with ac.Device(0) as dev:
        b = await dev.load_binary(test_kernels_path)
        poke, write = b.function("poke"), b.function("write_value")
        buf = dev.empty(16, np.uint8)
        out = dev.empty(4, np.int32)
        with pytest.raises(ac.KernelFaultError) as at_exit:
            async with dev.stream() as s:
                ok = await ac.launch(write, await write.args().ptr(out).u32(0).i32(1), blocks=1)
                bad = await ac.launch(poke, await poke.args().ptr(buf).u64(1 << 20), blocks=2)
                later = await ac.launch(write, await write.args().ptr(out).u32(1).i32(2), blocks=1)
                await ok  # the launch before the fault succeeded
                with pytest.raises(ac.KernelFaultError) as info:
                    await bad
                assert info.value.code == 507015 and "poke" in info.value.message
                assert "address" in info.value.message
                await later  # streams continue on failure (ACL's default): later work runs
                assert s.error is not None and s.error.code == 507015
        assert at_exit.value.code == 507015  # not reported by a synchronize: leaving raises it
        # Other streams keep working.
        async with dev.stream():
            await ac.launch(write, await write.args().ptr(out).u32(2).i32(3), blocks=1)
            got = await out.get()
        assert got.tolist()[:3] == [1, 2, 3]


async def test_body_exception_wins_over_device_error(test_kernels_path):
    async with ac.Device(0) as dev:
        poke = (await dev.load_binary(test_kernels_path)).function("poke")
        buf = dev.empty(16, np.uint8)
        with pytest.raises(KeyError):
            async with dev.stream():
                await ac.launch(poke, await poke.args().ptr(buf).u64(1 << 20), blocks=1)
                raise KeyError("body")


async def test_events_across_streams_order_work(test_kernels_path):
    async with ac.Device(0) as dev:
        b = await dev.load_binary(test_kernels_path)
        wait, write = b.function("wait_us"), b.function("write_value")
        out = dev.empty(8, np.int32)
        async with dev.stream() as s1, dev.stream() as s2:
            await s1.memset(out, 0)
            await s1.synchronize()
            # s1: a slow kernel writes out[0..1]; s2 must not overwrite out[0] before it.
            await ac.launch(wait, await wait.args().ptr(out).u64(100_000), blocks=2, stream=s1)
            ev = await s1.record()
            s2.wait(ev)
            await ac.launch(write, await write.args().ptr(out).u32(0).i32(42), blocks=1, stream=s2)
            await s2.synchronize()
            await ev  # its completion may be dispatched after s2's: the device order is the data's
            got = await out.get(stream=s2)
        assert got[0] == 42 and got[1] == 2


async def test_event_timing_and_overlap_of_two_streams(test_kernels_path):
    async with ac.Device(0) as dev:
        wait = (await dev.load_binary(test_kernels_path)).function("wait_us")
        out1, out2 = dev.empty(1, np.int32), dev.empty(1, np.int32)
        async with dev.stream() as s1, dev.stream() as s2:
            e = []
            for s, out in ((s1, out1), (s2, out2)):
                start = await s.record()
                await ac.launch(wait, await wait.args().ptr(out).u64(100_000), blocks=1, stream=s)
                e.append((start, await s.record()))
            for start, end in e:
                await end
                assert 95 <= end.elapsed_ms(start) < 400
                assert end - start == end.elapsed_ms(start)
            (a0, a1), (b0, b1) = e
            # overlap: each stream's kernel ran while the other's did
            assert a0.timestamp_us < b1.timestamp_us and b0.timestamp_us < a1.timestamp_us


async def test_cancelled_waiter_leaves_state_consistent(test_kernels_path):
    """A task cancelled while it awaits a Completion -- observed waiting, its work held behind
    a gate -- is detached alone: the Completion stays pending and tracked, and resolves when
    the device does the work."""
    async with ac.Device(0) as dev, dev.stream() as s:
        gate = await Gate.hold(dev, s, test_kernels_path)
        write = (await dev.load_binary(test_kernels_path)).function("write_value")
        out = dev.empty(1, np.int32)
        c = await ac.launch(write, await write.args().ptr(out).u32(0).i32(5), blocks=1)
        woke = []

        async def waiter() -> None:
            await c
            woke.append(True)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(waiter)
                while not c._waiters:  # the waiter is parked on the Completion
                    await anyio.lowlevel.checkpoint()
                tg.cancel_scope.cancel()
        assert not woke and not c.done() and not c._waiters  # detached; the work still pending
        assert dev._live_dispatcher.pending == 2 and s.in_flight == 2  # the gate and the launch
        await gate.open()
        await s.synchronize()
        assert c.done() and c.exception() is None and not woke
        assert dev._live_dispatcher.pending == 0 and s.in_flight == 0
        assert (await out.get()).tolist() == [5]


async def test_back_pressure_bounds_in_flight_and_cancel_enqueues_nothing(test_kernels_path):
    async with ac.Device(0) as dev:
        wait = (await dev.load_binary(test_kernels_path)).function("wait_us")
        async with dev.stream(max_in_flight=3) as s:
            out = dev.empty(1, np.int32)
            args = await wait.args().ptr(out).u64(30_000)
            peak = 0
            for _ in range(8):
                await ac.launch(wait, args, blocks=1)
                peak = max(peak, s.in_flight)
            assert peak == 3
            await s.synchronize()
            # Full: the gate and two launches behind it, none of which can finish.
            gate = await Gate.hold(dev, s, test_kernels_path)
            for _ in range(2):
                await ac.launch(wait, args, blocks=1)
            assert s.in_flight == 3
            tokens_before = dev._live_dispatcher.pending
            launched = []

            async def one_more() -> None:
                await ac.launch(wait, args, blocks=1)  # waits for a slot
                launched.append(True)

            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(one_more)
                    while not s._sub.waiters:  # it waits for a slot
                        await anyio.lowlevel.checkpoint()
                    tg.cancel_scope.cancel()
            assert not launched and not s._sub.waiters
            assert dev._live_dispatcher.pending == tokens_before == 3 and s.in_flight == 3
            await gate.open()
            await s.synchronize()
            assert s.in_flight == 0


async def test_synchronize_raises_stream_error(test_kernels_path):
    async with ac.Device(0) as dev:
        divide = (await dev.load_binary(test_kernels_path)).function("divide")
        out = dev.empty(1, np.int32)
        async with dev.stream() as s:
            await ac.launch(divide, await divide.args().ptr(out).i32(0), blocks=1)
            with pytest.raises(ac.KernelFaultError, match="SIGFPE"):
                await s.synchronize()
            # reported once, as aclrtSynchronizeStream does: the next synchronize and leaving
            # the block have nothing to report, though the stream keeps its first error
            await s.synchronize()
            assert s.error is not None and s.error.code == 507015
