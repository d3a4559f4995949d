"""Graphs in the async API (issue 13): capture on a stream, replay as one Completion, hold what
the graph uses, update a task group between replays, and nothing created during capture hangs."""

from __future__ import annotations

import gc

import anyio
import numpy as np
import pytest

import aiocann as ac

pytestmark = pytest.mark.anyio


async def test_capture_then_replay_many_times(test_kernels_path):
    async with ac.Device(0) as dev:
        b = await dev.load_binary(test_kernels_path)
        write, affine = b.function("write_value"), b.function("affine")
        async with dev.stream() as s:
            out = dev.empty(64, np.int32)
            await s.memset(out, 0)
            async with s.capture() as g:
                c1 = await ac.launch(write, await write.args().ptr(out).u32(0).i32(5), blocks=1)
                c2 = await ac.launch(write, await write.args().ptr(out).u32(1).i32(6), blocks=1)
                assert isinstance(c1, ac.CapturedWork) and not c1.done()
                with pytest.raises(RuntimeError, match="captured"):
                    await c1  # never hangs: the work did not run
                with pytest.raises(RuntimeError, match="captures"):
                    await s.synchronize()
            assert (await out.get())[:2].tolist() == [0, 0]  # recorded, not run
            assert c2.graph is g
            for _ in range(3):
                done = await g.launch()
                assert isinstance(done, ac.Completion) and not isinstance(done, ac.CapturedWork)
                await done
            assert (await out.get())[:2].tolist() == [5, 6]
            # a replay of a kernel that accumulates shows each run happened
            acc = dev.empty(8, np.int32)
            await s.memset(acc, 0)
            async with s.capture() as g2:
                await ac.launch(affine, await affine.args().ptr(acc).u32(8), blocks=1)
            for _ in range(4):
                await g2.launch()
            await s.synchronize()
            first = (await acc.get()).tolist()
            await (await g2.launch())
            assert (await acc.get()).tolist() != first
            g.close()
            g2.close()
            with pytest.raises(ac.ClosedError):
                await g.launch()


async def test_graph_holds_its_arrays_and_copies(test_kernels_path):
    async with ac.Device(0) as dev:
        write = (await dev.load_binary(test_kernels_path)).function("write_value")
        async with dev.stream() as s:
            host = np.arange(16, dtype=np.int32)
            async with s.capture() as g:
                x = await s.upload(host)  # staged copy, recorded
                await ac.launch(write, await write.args().ptr(x).u32(0).i32(99), blocks=1)
            x.close()  # the graph still uses it: released only when the graph is destroyed
            assert x.closed and dev.memory_pool.stats().in_use_bytes >= host.nbytes
            in_use = dev.memory_pool.stats().in_use_bytes
            gc.collect()
            await (await g.launch())
            g.close()
            gc.collect()
            assert dev.memory_pool.stats().in_use_bytes < in_use


async def test_a_failing_captured_kernel_fails_its_replay(test_kernels_path):
    async with ac.Device(0) as dev:
        b = await dev.load_binary(test_kernels_path)
        poke, write = b.function("poke"), b.function("write_value")
        buf, out = dev.empty(16, np.uint8), dev.empty(4, np.int32)
        async with dev.stream() as s:
            async with s.capture() as g:
                await ac.launch(poke, await poke.args().ptr(buf).u64(1 << 20), blocks=1)
            with pytest.raises(ac.KernelFaultError):
                await (await g.launch())
            g.close()  # a failed replay is over too: the model is destroyed at once
            assert "closed" in repr(g)
            # the stream goes on
            await (await ac.launch(write, await write.args().ptr(out).u32(0).i32(1), blocks=1))
            with pytest.raises(ac.KernelFaultError):
                await s.synchronize()  # and reports the failure once


async def test_task_group_update_between_replays(test_kernels_path):
    async with ac.Device(0) as dev:
        write = (await dev.load_binary(test_kernels_path)).function("write_value")
        async with dev.stream() as s:
            out = dev.empty(8, np.int32)
            await s.memset(out, 0)
            async with s.capture() as g:
                async with g.group() as grp:
                    await ac.launch(write, await write.args().ptr(out).u32(2).i32(10), blocks=1)
            await (await g.launch())
            assert (await out.get())[2] == 10
            async with grp.update(stream=s):
                await ac.launch(write, await write.args().ptr(out).u32(3).i32(20), blocks=1)
            await (await g.launch())
            got = (await out.get()).tolist()
            assert got[3] == 20
            g.close()


async def test_capture_misuse_is_clear():
    async with ac.Device(0) as dev:
        async with dev.stream() as s:
            with pytest.raises(ValueError):
                async with s.capture(mode="sometimes"):  # type: ignore[arg-type]
                    pass
            with pytest.raises(RuntimeError, match="captures"):
                async with s.capture():
                    await s.download(dev.empty(4, np.float32))
            with pytest.raises(KeyError):  # the body's exception wins; the capture is abandoned
                async with s.capture() as g:
                    raise KeyError("x")
            with pytest.raises(ac.ClosedError):
                await g.launch()
            with anyio.fail_after(5):
                await s.synchronize()  # the stream works normally after all that


async def test_a_graph_copies_in_and_out_of_pinned_memory_at_every_replay(test_kernels_path):
    # The serving pattern (examples/inference.py): the host writes pinned inputs, one replay
    # uploads them, runs the kernels and writes pinned outputs, and its one Completion says
    # when the outputs are there.
    async with ac.Device(0) as dev:
        add = (await dev.load_binary(test_kernels_path)).function("add_value")
        host_in, host_out = dev.pinned_empty(8, np.int32), dev.pinned_empty(8, np.int32)
        x = dev.empty(8, np.int32)
        async with dev.stream() as s:
            async with s.capture() as g:
                await s.copy_from_host(x, host_in)  # pinned: read at each replay
                await ac.launch(add, await add.args().ptr(x).u32(3).i32(100), blocks=1)
                out = await s.copy_to_host(host_out, x)
                assert isinstance(out, ac.CapturedWork)
                with pytest.raises(RuntimeError, match="captured"):
                    await out
                # zero-byte copies record nothing, and neither hangs nor fails the capture
                nothing, none = np.empty(0, np.int32), dev.empty(0, np.int32)
                assert isinstance(await s.copy_to_host(nothing, none), ac.CapturedWork)
                assert isinstance(await s.copy_from_host(none, nothing), ac.CapturedWork)
            host_out[:] = -1
            assert host_out.tolist() == [-1] * 8  # recorded, not run
            for i in range(4):
                host_in[:] = np.arange(8) * (i + 1)
                await (await g.launch(stream=s))
                want = np.arange(8) * (i + 1)
                want[3] += 100
                assert host_out.tolist() == want.tolist()
            g.close()
        del out
        gc.collect()  # the graph held host_out; it is still the caller's, and valid
        assert host_out[3] == 3 * 4 + 100


async def test_the_stream_mode_is_held_by_its_lane(test_kernels_path):
    """Capturing and updating are modes of the stream's lane, entered and left through its
    methods: the stream shows them, nobody sets them from outside, and a stream in one mode
    cannot enter another (the runtime captures a stream once at a time)."""
    from aiocann._submission import Mode

    async with ac.Device(0) as dev:
        write = (await dev.load_binary(test_kernels_path)).function("write_value")
        s = dev.stream()
        out = dev.empty(8, np.int32)
        assert s._sub.mode is Mode.OPEN and "open" in repr(s)
        with pytest.raises(AttributeError):
            s._state = "capturing"  # type: ignore[misc]  # a read-only view of the lane's mode
        async with s.capture() as g:
            assert s._sub.mode is Mode.CAPTURING and s._sub.capture is not None and s._sub.capture.graph() is g
            with pytest.raises(ac.ClosedError, match="not open"):
                async with s.capture():
                    pass
            async with g.group() as grp:
                await ac.launch(write, await write.args().ptr(out).u32(0).i32(1), blocks=1, stream=s)
        assert s._sub.mode is Mode.OPEN and s._sub.capture is None
        async with grp.update(stream=s):
            assert s._sub.mode is Mode.UPDATING and s._sub.updating is not None and s._sub.updating.graph() is g
            await ac.launch(write, await write.args().ptr(out).u32(0).i32(2), blocks=1, stream=s)
        assert s._sub.mode is Mode.OPEN and s._sub.updating is None
        await (await g.launch(stream=s))
        assert (await out.get(stream=s))[0] == 2
        await s.aclose()
        assert s._sub.mode is Mode.CLOSED and "closed" in repr(s)
        with pytest.raises(ac.ClosedError):
            async with grp.update(stream=s):
                pass
        g.close()
