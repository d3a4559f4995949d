"""The per-launch path in C (aiocann._hotpath, native/hotpath.c): that its fast path is taken,
that everything that must leave it does, and that what it returns behaves as the Python path's.

The rest of tests/core runs through it too (every launch after an args' first); these tests
pin what is specific to it: the args cache and its invalidation, the awaitable as a coroutine,
the Completion's GC tracking while pending, and the array accounting the memory pool reads.
"""

from __future__ import annotations

import asyncio
import collections.abc
import gc
import weakref

import anyio
import numpy as np
import pytest

import aiocann as ac
from aiocann import _hotpath

pytestmark = pytest.mark.anyio


async def _writer(dev: ac.Device, test_kernels_path):  # type: ignore[no-untyped-def]
    return (await dev.load_binary(test_kernels_path)).function("write_value")


async def test_the_fast_path_is_taken_after_the_first_launch(test_kernels_path):
    async with ac.Device(0) as dev:
        write = await _writer(dev, test_kernels_path)
        async with dev.stream() as s:
            out = dev.empty(2, np.int32)
            args = await write.args().ptr(out).u32(0).i32(7)
            assert args._fast is None
            await (await ac.launch(write, args, blocks=1, stream=s))  # the Python path caches
            assert _hotpath.is_set_up()  # every module provided what the C path needs
            assert isinstance(args._fast, _hotpath.ArgsInfo)
            first = args._fast
            done = await ac.launch(write, args, blocks=1, stream=s)
            assert args._fast is first  # the fast path: nothing re-validated, nothing re-cached
            assert isinstance(done, ac.Completion) and done.label == "write_value"
            await done
            assert done.done() and done.exception() is None
            np.testing.assert_array_equal(await out.get(), [7, 0])


async def test_an_update_of_a_pointer_leaves_the_fast_path_once(test_kernels_path):
    async with ac.Device(0) as dev:
        write = await _writer(dev, test_kernels_path)
        async with dev.stream() as s:
            a, b = dev.empty(1, np.int32), dev.empty(1, np.int32)
            args = await write.args().ptr(a).u32(0).i32(1)
            await (await ac.launch(write, args, blocks=1, stream=s))
            await (await ac.launch(write, args, blocks=1, stream=s))
            args.update(0, b)  # the cached arrays are stale
            assert args._fast is None
            args.update(2, 2)
            done = await ac.launch(write, args, blocks=1, stream=s)
            assert done._arrays == (b,)  # the Completion holds (and counts busy) the new array
            await done
            args.update(2, 3)  # a scalar: same handle, same arrays -- the cache stays
            assert args._fast is not None
            await (await ac.launch(write, args, blocks=1, stream=s))
            np.testing.assert_array_equal(await a.get(), [1])
            np.testing.assert_array_equal(await b.get(), [3])


async def test_closed_args_closed_arrays_and_unloaded_binaries_leave_the_fast_path(test_kernels_path):
    async with ac.Device(0) as dev:
        binary = await dev.load_binary(test_kernels_path)
        write = binary.function("write_value")
        async with dev.stream() as s:
            x = dev.empty(1, np.int32)
            args = await write.args().ptr(x).u32(0).i32(1)
            await (await ac.launch(write, args, blocks=1, stream=s))
            x.close()  # its block may be another array's now: the args refuse launches
            with pytest.raises(ac.ClosedError):
                await ac.launch(write, args, blocks=1, stream=s)
            y = dev.empty(1, np.int32)
            args2 = await write.args().ptr(y).u32(0).i32(2)
            await (await ac.launch(write, args2, blocks=1, stream=s))
            args2.close()
            with pytest.raises(ac.ClosedError):
                await ac.launch(write, args2, blocks=1, stream=s)
            args3 = await write.args().ptr(y).u32(0).i32(3)
            await (await ac.launch(write, args3, blocks=1, stream=s))
            assert args3._fast is not None
            binary.unload()  # every cached args of every kernel is stale (invalidate())
            with pytest.raises(ac.ClosedError):
                await ac.launch(write, args3, blocks=1, stream=s)


async def test_back_pressure_and_a_closed_stream_leave_the_fast_path(test_kernels_path):
    async with ac.Device(0, max_in_flight=1) as dev:
        k = (await dev.load_binary(test_kernels_path)).function("wait_us")
        s = dev.stream()
        args = await k.args().ptr(dev.empty(1, np.int32)).u64(20_000)
        first = await ac.launch(k, args, blocks=1, stream=s)
        with anyio.move_on_after(0.005) as scope:  # no room: the launch waits (and enqueues nothing)
            await ac.launch(k, args, blocks=1, stream=s)
        assert scope.cancelled_caught and s._sub.in_flight == 1
        await first
        await s.aclose()
        with pytest.raises(ac.ClosedError):
            await ac.launch(k, args, blocks=1, stream=s)


async def test_the_awaitable_is_a_coroutine_that_does_nothing_until_started(test_kernels_path, anyio_backend_name):
    async with ac.Device(0) as dev:
        write = await _writer(dev, test_kernels_path)
        async with dev.stream() as s:
            out = dev.empty(1, np.int32)
            args = await write.args().ptr(out).u32(0).i32(5)
            await (await ac.launch(write, args, blocks=1, stream=s))
            pending = s._sub.in_flight
            coro = ac.launch(write, args, blocks=1, stream=s)
            assert isinstance(coro, collections.abc.Coroutine)
            assert s._sub.in_flight == pending  # nothing enqueued yet
            coro.close()  # never started: never enqueued
            with pytest.raises(RuntimeError, match="reuse"):
                coro.send(None)
            if anyio_backend_name == "asyncio":
                task = asyncio.create_task(ac.launch(write, args, blocks=1, stream=s))
                done = await task
                assert isinstance(done, ac.Completion)
                await done
            else:
                results: list[ac.Completion] = []

                async def run() -> None:
                    results.append(await ac.launch(write, args, blocks=1, stream=s))

                async with anyio.create_task_group() as tg:
                    tg.start_soon(run)
                await results[0]
            args.update(2, 6)
            async with anyio.create_task_group() as tg:  # start_soon takes launch itself
                tg.start_soon(lambda: ac.launch(write, args, blocks=1, stream=s))
            await s.synchronize()
            np.testing.assert_array_equal(await out.get(), [6])


async def test_a_pending_completion_is_tracked_by_the_gc_again_once_resolved(test_kernels_path):
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(test_kernels_path)).function("wait_us")
        async with dev.stream() as s:
            x = dev.empty(1, np.int32)
            args = await k.args().ptr(x).u64(20_000)
            await (await ac.launch(k, args, blocks=1, stream=s))
            done = await ac.launch(k, args, blocks=1, stream=s)  # the fast path makes it
            assert not done.done() and not gc.is_tracked(done)
            assert x._busy == 1 and x._stream is s and x._busy_on == 1  # what the pool reads
            await done
            assert gc.is_tracked(done)
            assert x._busy == 0 and x._busy_on == 0
            ref = weakref.ref(done)
            del done
            gc.collect()
            assert ref() is None


async def test_a_cancelled_waiter_detaches_alone(test_kernels_path):
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(test_kernels_path)).function("wait_us")
        async with dev.stream() as s:
            args = await k.args().ptr(dev.empty(1, np.int32)).u64(50_000)
            await (await ac.launch(k, args, blocks=1, stream=s))
            done = await ac.launch(k, args, blocks=1, stream=s)
            woke: list[str] = []

            async def wait(name: str, patience: float = 10) -> None:
                with anyio.move_on_after(patience):
                    await done
                    woke.append(name)

            async with anyio.create_task_group() as tg:
                tg.start_soon(wait, "a")
                tg.start_soon(wait, "b", 0.005)
                tg.start_soon(wait, "c")
                await anyio.sleep(0.02)
                if not done.done():
                    assert done._waiters is not None and len(done._waiters) == 2  # b's is gone
            assert sorted(woke) == ["a", "c"]
            assert done.done() and not done._waiters
