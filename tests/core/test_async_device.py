"""Devices: reference counting, multi-device, exits and the watchdog (issue 4)."""

from __future__ import annotations

import math
import time

import anyio
import numpy as np
import pytest
from async_util import tiling

import aiocann as ac
from aiocann import _runtime
from aiocann._core import core_of

pytestmark = pytest.mark.anyio


async def test_devices_share_the_runtime_and_release_it():
    assert _runtime._users == 0
    async with ac.Device(0) as a:
        async with ac.Device(0) as b:  # same index, nested: shares the ACL device
            assert core_of(a).acl is core_of(b).acl and _runtime._devices[0].users == 2
        assert _runtime._devices[0].users == 1
        assert await ac.device_count() >= 2
    assert _runtime._users == 0 and not _runtime._devices


async def test_two_devices_work_concurrently(vector_add_path):
    n = 1 << 16
    xh = np.arange(n, dtype=np.float32)

    async def run(index: int) -> np.ndarray:
        async with ac.Device(index) as dev:
            add = (await dev.load_binary(vector_add_path)).function("add_custom")
            async with dev.stream() as s:
                z = dev.empty(n, np.float32)
                args = await add.args().array(xh).array(xh * index).ptr(z).placeholder(tiling(n))
                for _ in range(20):
                    await ac.launch(add, args, blocks=4)
                await s.synchronize()
                return await z.get()

    results: dict[int, np.ndarray] = {}

    async def store(i: int) -> None:
        results[i] = await run(i)

    async with anyio.create_task_group() as tg:
        tg.start_soon(store, 0)
        tg.start_soon(store, 1)
    np.testing.assert_array_equal(results[0], xh)
    np.testing.assert_array_equal(results[1], 2 * xh)


async def test_event_wait_across_devices(test_kernels_path):
    async with ac.Device(0) as d0, ac.Device(1) as d1:
        wait = (await d0.load_binary(test_kernels_path)).function("wait_us")
        write = (await d1.load_binary(test_kernels_path)).function("write_value")
        flag = d0.empty(1, np.int32)
        out = d1.empty(1, np.int32)
        async with d0.stream() as s0, d1.stream() as s1:
            t0 = time.monotonic()
            await ac.launch(wait, await wait.args().ptr(flag).u64(50_000), blocks=1, stream=s0)
            ev = await s0.record()
            s1.wait(ev)
            t_write = await s1.record()
            await ac.launch(write, await write.args().ptr(out).u32(0).i32(7), blocks=1, stream=s1)
            await t_write
            # d1's stream waited for d0's 50 ms kernel (device clocks differ: compare host time)
            assert time.monotonic() - t0 >= 0.045
            await ev
            np.testing.assert_array_equal(await out.get(stream=s1), [7])


async def test_device_errors_and_misuse():
    with pytest.raises(ac.InvalidDeviceError):
        async with ac.Device(63):
            pass
    assert _runtime._users == 0
    with pytest.raises(ValueError):
        ac.Device(-1)
    with pytest.raises(ValueError):
        ac.Device(0, max_in_flight=0)
    dev = ac.Device(0)
    with pytest.raises(ac.ClosedError, match="not open"):
        dev.empty(4)
    async with dev:
        s = dev.stream()
        assert s.device is dev
    with pytest.raises(RuntimeError, match="only once"):
        async with dev:
            pass
    with pytest.raises(ac.ClosedError):
        await s.synchronize()
    with pytest.raises(ac.ClosedError, match="closed"):
        dev.stream()  # a closed device makes no streams


def test_bools_are_not_device_indexes_or_counts():
    """Issue 20: ``Device(np.True_)`` was device 1 (numpy warning that np.bool scalars are used
    as an index), ``Device(True)`` too. A bool is a mistake there: TypeError, no warning."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's DeprecationWarning would be an error here
        for value in (True, False, np.True_, np.False_):
            with pytest.raises(TypeError, match="the device index must be an integer, not bool"):
                ac.Device(value)
            with pytest.raises(TypeError, match="max_in_flight must be an integer"):
                ac.Device(0, max_in_flight=value)
            with pytest.raises(TypeError, match="memory_limit must be an integer"):
                ac.Device(0, memory_limit=value)
        assert ac.Device(np.int64(1)).index == 1 and ac.Device(np.uint8(0)).index == 0


async def test_bools_are_not_counts_indexes_shapes_or_byte_values(vector_add_path):
    """The same for the rest of the API's integer arguments (numpy up to 2.2 let np.bool_
    through with a DeprecationWarning, 2.3 on refuses it: now one answer everywhere)."""
    import warnings

    async with ac.Device(0) as dev:
        add = (await dev.load_binary(vector_add_path)).function("add_custom")
        async with dev.stream() as s:
            x = dev.empty(16, np.float32)
            args = await add.args().ptr(x).ptr(x).ptr(x).placeholder(np.zeros(8, np.uint8))
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                for value in (True, np.True_):
                    for call, what in (
                        (lambda v=value: dev.stream(max_in_flight=v), "max_in_flight"),
                        (lambda v=value: dev.stream(priority=v), "priority"),
                        (lambda v=value: dev.empty(v), "a dimension"),
                        (lambda v=value: dev.empty((4, v)), "a dimension"),
                        (lambda v=value: dev.pinned_empty((v,)), "a dimension"),
                        (lambda v=value: args.update(v, x), "the argument index"),
                    ):
                        with pytest.raises(TypeError, match=f"{what}.* must be an integer, not bool"):
                            call()
                    with pytest.raises(TypeError, match="the memset value must be an integer, not bool"):
                        await s.memset(x, value)
            await (await s.memset(x, np.uint8(0)))  # numpy integers still are integers
            assert dev.empty((np.int64(2), np.uint8(3))).shape == (2, 3)


async def test_body_exception_releases_everything(vector_add_path):
    with pytest.raises(ZeroDivisionError):
        async with ac.Device(0) as dev:
            await dev.load_binary(vector_add_path)
            async with dev.stream() as s:
                await s.upload(np.ones(1000, np.float32))
                1 / 0  # noqa: B018
    assert _runtime._users == 0 and not _runtime._devices
    async with ac.Device(0) as dev:  # and the device opens again
        assert dev.mem_info()[0] == dev.mem_info()[1]


async def test_cancelled_device_block_releases_everything(test_kernels_path):
    with anyio.move_on_after(0.05):
        async with ac.Device(0) as dev:
            wait = (await dev.load_binary(test_kernels_path)).function("wait_us")
            async with dev.stream():
                await ac.launch(wait, await wait.args().ptr(dev.empty(1, np.int32)).u64(200_000), blocks=1)
                await anyio.sleep(1)
    assert _runtime._users == 0 and not _runtime._devices


async def test_watchdog_fails_late_completions_but_keeps_their_buffers(test_kernels_path):
    async with ac.Device(0, completion_timeout=0.1) as dev:
        wait = (await dev.load_binary(test_kernels_path)).function("wait_us")
        free0, _ = dev.mem_info()
        with pytest.raises(ac.CompletionTimeoutError):  # the stream reports it when it closes
            async with dev.stream():
                arr = dev.empty(1 << 20, np.uint8)
                c = await ac.launch(wait, await wait.args().ptr(arr).u64(600_000), blocks=1)
                with pytest.raises(ac.CompletionTimeoutError, match="no completion callback"):
                    await c
                arr.close()  # still busy: the kernel may use it, so the free is deferred
                assert dev.memory_pool.stats().in_use_bytes == 1 << 20
                await anyio.sleep(0.7)  # the late callback arrives: the deferred free happens
                assert dev.memory_pool.stats().in_use_bytes == 0 and arr.closed
                dev.memory_pool.trim()
                assert dev.mem_info()[0] == free0
    assert math.isinf(ac.Device(0, completion_timeout=math.inf).completion_timeout)


async def test_a_failing_drain_leaves_the_watchdog_to_fail_what_is_left(test_kernels_path):
    """An unexpected error while draining (not one of resolution code's own, which are kept per
    completion) stops draining on every backend; the watchdog still fails the pending work
    within the completion timeout, and leaving the block raises the error."""
    with pytest.raises(RuntimeError, match="failed while resolving completions") as raised:
        async with ac.Device(0, completion_timeout=0.3) as dev:
            d = dev._live_dispatcher

            def broken() -> int:
                raise RuntimeError("drain broke")

            d.drain = broken  # type: ignore[method-assign]
            k = (await dev.load_binary(test_kernels_path)).function("empty")
            async with dev.stream():
                done = await ac.launch(k, await k.args().ptr(dev.empty(1, np.uint8)), blocks=1)
                with anyio.fail_after(10), pytest.raises(ac.CompletionTimeoutError):
                    await done
                assert not d.draining
                del d.drain  # the late completion is drained when the device closes
    assert str(raised.value.__cause__) == "drain broke"


def test_a_loop_that_refuses_the_reader_fails_the_open_cleanly() -> None:
    """asyncio drains from a reader callback: a loop that refuses it fails the open, and
    nothing is left behind (trio drains from a task, with no reader to refuse)."""
    import asyncio

    def refuse(*_args: object) -> None:
        raise NotImplementedError("no add_reader on this loop")

    async def main() -> None:
        asyncio.get_running_loop().add_reader = refuse  # type: ignore[method-assign]
        with anyio.fail_after(10), pytest.raises(NotImplementedError, match="add_reader"):
            async with ac.Device(0):
                pass

    asyncio.run(main())
    assert _runtime._users == 0 and not _runtime._devices
