"""What an adversarial run broke (issue 12): arrays used across devices, closing devices out
of order, objects used from a thread or event loop they do not belong to."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import typing

import anyio
import anyio.to_thread
import numpy as np
import pytest

import aiocann as ac
from aiocann import _runtime

pytestmark = pytest.mark.anyio


# --------------------------------------------------------------------------- point 1


async def test_stream_operations_refuse_arrays_of_another_device(test_kernels_path):
    """aiocann exposes no peer copies: an array of device 1 on a stream of device 0 is refused
    before anything is enqueued (closing device 1 would otherwise free it under that work)."""
    async with ac.Device(0) as d0, ac.Device(1) as d1:
        ours, theirs = d0.empty(16, np.int32), d1.empty(16, np.int32)
        async with d0.stream() as s:
            for what, op in [
                ("download", lambda: s.download(theirs)),
                ("get", lambda: theirs.get(stream=s)),
                ("copy to", lambda: s.copy(ours, theirs)),
                ("copy from", lambda: s.copy(theirs, ours)),
                ("memset", lambda: s.memset(theirs, 0)),
                ("upload into", lambda: s.copy_from_host(theirs, np.zeros(16, np.int32))),
                ("set", lambda: theirs.set(np.zeros(16, np.int32), stream=s)),
            ]:
                with pytest.raises(ValueError, match="on device 1.*device 0"):
                    await op()
                assert s.in_flight == 0, what  # refused before anything was enqueued
            empty0, empty1 = d0.empty(0, np.int32), d1.empty(0, np.int32)
            with pytest.raises(ValueError, match="on device 1"):
                await s.download(empty1)  # even with nothing to copy
            with pytest.raises(ValueError, match="on device 1"):
                await s.copy(empty0, empty1)
            await s.synchronize()


async def test_kernel_args_refuse_arrays_of_another_device(test_kernels_path):
    async with ac.Device(0) as d0, ac.Device(1) as d1:
        write = (await d0.load_binary(test_kernels_path)).function("write_value")
        theirs = d1.empty(4, np.int32)
        with pytest.raises(ValueError, match="not on device 0"):
            write.args().ptr(theirs)
        with pytest.raises(ValueError, match="not on device 0"):
            write.args().array(theirs)
        args = await write.args().ptr(d0.empty(4, np.int32)).u32(0).i32(1)
        with pytest.raises(ValueError, match="not on device 0"):
            args.update(0, theirs)
        before = d1.memory_pool.stats().in_use_bytes
        async with d1.stream() as s1:
            # a host array would be uploaded to the stream's device, which is not the kernel's
            with pytest.raises(ValueError, match="device 1.*device 0"):
                await write.args().array(np.zeros(4, np.int32)).u32(0).i32(1).build(stream=s1)
            with pytest.raises(ValueError, match="device 1.*device 0"):
                await ac.launch(write, write.args().array(np.zeros(4, np.int32)).u32(0).i32(1), blocks=1, stream=s1)
            assert s1.in_flight == 0 and d1.memory_pool.stats().in_use_bytes == before


async def test_an_array_in_use_outlives_the_device_object_that_made_it(test_kernels_path):
    """Two Device(0) blocks share NPU 0, so an array of one may be used by work on the other's
    stream. Closing its own Device while that work runs frees it only when the work is done."""
    async with ac.Device(0) as b:
        wait = (await b.load_binary(test_kernels_path)).function("wait_us")
        async with b.stream() as s:
            async with ac.Device(0) as a:
                arr = a.empty(4, np.int32)
                c = await ac.launch(wait, await wait.args().ptr(arr).u64(1_000_000), blocks=1, stream=s)
                pool = a.memory_pool
            assert a.closed and not c.done()
            assert pool.stats().in_use_bytes > 0  # not freed under the running kernel
            await c  # the kernel wrote into live memory: no fault
            gc.collect()
            assert pool.stats().in_use_bytes == 0 and arr.closed


@pytest.mark.parametrize("memory_pool", [True, False])
async def test_closing_a_busy_array_never_frees_it_under_its_work(test_kernels_path, memory_pool):
    async with ac.Device(0, memory_pool=memory_pool) as dev:
        wait = (await dev.load_binary(test_kernels_path)).function("wait_us")
        async with dev.stream():
            arr = dev.empty(4, np.int32)
            c = await ac.launch(wait, await wait.args().ptr(arr).u64(100_000), blocks=1)
            arr.close()
            await c  # the kernel wrote into live memory: no fault
            assert dev.memory_pool.stats().in_use_bytes == 0


# --------------------------------------------------------------------------- point 4


async def test_devices_and_streams_close_in_any_order(test_kernels_path):
    a, b = ac.Device(0), ac.Device(1)
    await a.__aenter__()
    await b.__aenter__()
    await a.aclose()  # in opening order, not nesting order
    await b.aclose()
    assert a.closed and b.closed and _runtime._users == 0 and not _runtime._devices

    a, b = ac.Device(0), ac.Device(1)
    await a.__aenter__()
    await b.__aenter__()
    wait = (await a.load_binary(test_kernels_path)).function("wait_us")
    sa, sb = a.stream(), b.stream()
    await sa.__aenter__()
    await sb.__aenter__()
    c = await ac.launch(wait, await wait.args().ptr(a.empty(1, np.int32)).u64(50_000), blocks=1, stream=sa)
    await sa.__aexit__(None, None, None)
    assert c.done()
    await a.__aexit__(None, None, None)  # before b's stream and b, opened after it
    await sb.synchronize()
    await sb.__aexit__(None, None, None)
    await b.__aexit__(None, None, None)
    assert a.closed and b.closed and _runtime._users == 0 and not _runtime._devices


# --------------------------------------------------------------------------- point 5


async def test_use_from_another_thread_or_loop_is_refused(test_kernels_path):
    """A Device, Stream, Event or Completion belongs to the thread and event loop that opened
    its device: used from another one it raises at once (with back-pressure it used to hang
    that thread, and the owner's synchronize never returned)."""
    async with ac.Device(0) as dev:
        wait = (await dev.load_binary(test_kernels_path)).function("wait_us")
        async with dev.stream(max_in_flight=1) as s:
            args = await wait.args().ptr(dev.empty(1, np.int32)).u64(100_000)
            c = await ac.launch(wait, args, blocks=1)  # the stream is full
            ev = await s.record()
            host_target = dev.empty(1, np.int32)
            outcomes: list[str] = []

            async def foreign() -> None:
                ops = {
                    "launch": lambda: ac.launch(wait, args, blocks=1, stream=s),
                    "synchronize": s.synchronize,
                    "record": s.record,
                    "await completion": lambda: c,
                    "await event": lambda: ev,
                    "download": lambda: s.download(host_target),
                    "close stream": s.aclose,
                    "close device": dev.aclose,
                }
                for name, op in ops.items():
                    try:
                        await op()
                    except ac.WrongThreadError as exc:
                        assert "thread" in str(exc)
                        outcomes.append(name)
                for name, sync_op in {"empty": lambda: dev.empty(4), "stream": dev.stream}.items():
                    try:
                        sync_op()
                    except ac.WrongThreadError:
                        outcomes.append(name)
                try:
                    s.wait(ev)
                except ac.WrongThreadError:
                    outcomes.append("wait")

            def in_thread() -> None:
                anyio.run(foreign)

            with anyio.fail_after(10):
                await anyio.to_thread.run_sync(in_thread)
                assert outcomes == [
                    "launch",
                    "synchronize",
                    "record",
                    "await completion",
                    "await event",
                    "download",
                    "close stream",
                    "close device",
                    "empty",
                    "stream",
                    "wait",
                ]
                await s.synchronize()  # the owner is unaffected
                assert c.done() and s.in_flight == 0


@pytest.mark.parametrize(
    ("opened_on", "awaited_on", "work"),
    [("asyncio", "asyncio", "pending"), ("trio", "trio", "pending"), ("asyncio", "trio", "pending"),
     ("trio", "asyncio", "pending"), ("trio", "asyncio", "finished")],
)  # fmt: skip
def test_awaiting_from_another_event_loop_of_the_same_thread_is_refused(test_kernels_path, opened_on, awaited_on, work):
    """The device's thread, but a later event loop (the first one ended with the device left
    open): awaiting its work there raises WrongThreadError, and the waiter is detached."""
    pytest.importorskip("trio")
    code = f"""
import anyio, numpy as np, aiocann as ac
async def first():
    dev = ac.Device(0)
    await dev.__aenter__()
    wait = (await dev.load_binary({str(test_kernels_path)!r})).function("wait_us")
    s = dev.stream()
    args = await wait.args().ptr(dev.empty(1, np.int32)).u64(300_000 if {work!r} == "pending" else 0)
    done = await ac.launch(wait, args, blocks=1, stream=s)
    if {work!r} == "finished":
        await done
    return done
work = anyio.run(first, backend={opened_on!r})
async def second():
    try:
        await work
    except ac.WrongThreadError as exc:
        print("refused:", "another event loop of the same thread" in str(exc), work._waiters or [])
anyio.run(second, backend={awaited_on!r})
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "refused: True []", out


@pytest.mark.parametrize(("opened_on", "used_on"), [("asyncio", "asyncio"), ("trio", "trio"), ("asyncio", "trio")])
def test_launching_from_a_later_event_loop_of_the_same_thread_is_refused(test_kernels_path, opened_on, used_on):
    """The first event loop ended with the device left open. From a later loop of the same
    thread, a launch of args launched before (launch()'s C path, which checks the thread
    alone), a launch of new args, a graph replay (C too) and a synchronize all raise
    WrongThreadError, and none of them runs: no loop would ever resolve their work."""
    pytest.importorskip("trio")
    code = f"""
import anyio, numpy as np, aiocann as ac
state = {{}}
async def first():
    dev = ac.Device(0)
    await dev.__aenter__()
    k = (await dev.load_binary({str(test_kernels_path)!r})).function("write_value")
    s = dev.stream()
    out = dev.empty(4, np.int32)
    await s.memset(out, 0)
    args = await k.args().ptr(out).u32(0).i32(1)
    await (await ac.launch(k, args, blocks=1, stream=s))  # launch()'s C path knows these args now
    other = await k.args().ptr(out).u32(2).i32(3)
    async with s.capture() as g:
        await ac.launch(k, other, blocks=1, stream=s)
    state.update(dev=dev, k=k, s=s, out=out, args=args)
    return g
graph = anyio.run(first, backend={opened_on!r})
async def second():
    st = state
    ops = {{
        "prebuilt": lambda: ac.launch(st["k"], st["args"], blocks=1, stream=st["s"]),
        "new args": lambda: ac.launch(st["k"], st["k"].args().ptr(st["out"]).u32(1).i32(2), blocks=1, stream=st["s"]),
        "replay": lambda: graph.launch(stream=st["s"]),
        "synchronize": st["s"].synchronize,
    }}
    for name, op in ops.items():
        try:
            await op()
        except ac.WrongThreadError as exc:
            print(name, "refused:", "another event loop of the same thread" in str(exc))
    await anyio.sleep(0.1)
    host = np.zeros(4, np.int32)
    import aiocann.acl as acl
    print("memory", acl.rt.memcpy(host.ctypes.data, 16, st["out"].ptr, 16, 2), host.tolist())
anyio.run(second, backend={used_on!r})
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines() == [
        "prebuilt refused: True",
        "new args refused: True",
        "replay refused: True",
        "synchronize refused: True",
        "memory 0 [1, 0, 0, 0]",  # the first loop's launch alone: none of the refused work ran
    ], out


def test_closing_a_coroutine_parked_on_pending_work_detaches_it(test_kernels_path):
    """A coroutine closed while it waits on a Completion (close() throws GeneratorExit in: by
    its owner, or by the garbage collector once its loop is gone) leaves no waiter behind and
    raises nothing; the work resolves all the same."""
    import asyncio

    parked: list[typing.Any] = []

    async def main() -> None:
        async with ac.Device(0) as dev:
            wait = (await dev.load_binary(test_kernels_path)).function("wait_us")
            async with dev.stream() as s:
                args = await wait.args().ptr(dev.empty(1, np.int32)).u64(100_000)
                for _ in range(2):
                    done = await ac.launch(wait, args, blocks=1)
                    waiting = done.__await__()
                    assert isinstance(next(waiting), asyncio.Future)  # suspended on the loop's future
                    parked.append((done, waiting))
                first, _ = parked[0]
                parked[0][1].close()  # on the loop
                assert first._waiters == [] and not first.done()
                await s.synchronize()
                assert all(d.done() and d.exception() is None for d, _ in parked)

    asyncio.run(main())
    parked[1][1].close()  # after the loop ended


async def test_launch_from_a_plain_thread_is_refused(test_kernels_path):
    async with ac.Device(0) as dev:
        write = (await dev.load_binary(test_kernels_path)).function("write_value")
        async with dev.stream() as s:
            args = await write.args().ptr(dev.empty(1, np.int32)).u32(0).i32(1)
            errors: list[BaseException] = []

            def in_thread() -> None:
                import asyncio

                try:  # the launch fast path, from a loop in another thread
                    asyncio.run(ac.launch(write, args, blocks=1, stream=s))
                except BaseException as exc:
                    errors.append(exc)

            t = threading.Thread(target=in_thread)
            t.start()
            await anyio.to_thread.run_sync(t.join, 10)
            assert len(errors) == 1 and isinstance(errors[0], ac.WrongThreadError), errors
            assert s.in_flight == 0
