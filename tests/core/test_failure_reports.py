"""What the runtime says about failures reaches exactly the right Completion (issue 20 point 4,
issue 21 items 1 and 2), on asyncio, uvloop and trio:

* a stream that other code switched to stop-on-failure: the failed work's Completion fails at
  once with the fault's error -- its completion callback never runs there -- and the work
  behind it with the runtime's code; later work is refused; closing is quick;
* a failed graph replay, which the runtime reports on the model's own stream and task: exactly
  that replay's Completion fails, also with another replay of the graph in flight at once;
* the second report of a failed kernel (the fast ring buffer, where the driver supports
  millisecond operator timeouts), which comes on a user's thread: it fails nothing else.
"""

from __future__ import annotations

import threading
import time

import anyio
import numpy as np
import pytest

import aiocann as ac
from aiocann import acl
from aiocann._lib import ffi, lib

pytestmark = pytest.mark.anyio

BAD = 1 << 20  # an offset far past a small buffer: the kernel faults (507015)


async def test_a_stream_switched_to_stop_on_failure_fails_its_work_at_once(test_kernels_path):
    t_open = time.monotonic()
    async with ac.Device(0) as dev:
        b = await dev.load_binary(test_kernels_path)
        poke, write, wait = b.function("poke"), b.function("write_value"), b.function("wait_us")
        buf, out = dev.empty(16, np.uint8), dev.empty(8, np.int32)
        s = dev.stream()
        await s.__aenter__()
        assert acl.rt.set_stream_failure_mode(s.handle, 1) == 0  # other code's doing
        # 30 ms ahead of the fault: the work behind it is submitted before it fails.
        before = await ac.launch(wait, await wait.args().ptr(out).u64(30_000), blocks=1)
        t0 = time.monotonic()
        fault = await ac.launch(poke, await poke.args().ptr(buf).u64(BAD), blocks=1)
        behind = [await ac.launch(write, await write.args().ptr(out).u32(i).i32(i), blocks=1) for i in range(3)]
        await before  # work before the failure ran, and completes as usual
        with pytest.raises(ac.KernelFaultError, match="poke"):
            await fault
        assert time.monotonic() - t0 < 1.0  # not the watchdog (300 s)
        for c in behind:  # discarded unrun: they fail with the runtime's code, as quickly
            with pytest.raises(ac.KernelFaultError, match="discarded"):
                await c
        assert time.monotonic() - t0 < 1.0
        # The runtime refuses new work on the stream, with its code; nothing is left behind.
        with pytest.raises(ac.KernelFaultError):
            await ac.launch(write, await write.args().ptr(out).u32(0).i32(9), blocks=1)
        t1 = time.monotonic()
        await s.aclose(raise_errors=False)
        assert time.monotonic() - t1 < 5.0
        with pytest.raises(ac.ClosedError):
            await s.synchronize()  # closed (destroyed), not abandoned
    assert time.monotonic() - t_open < 15.0


async def _poke_once_graph(dev: ac.Device, s: ac.Stream, kernels: ac.Binary):
    """A graph whose kernel faults once: it reads its offset from `off`, zeroes it, then writes
    buf[offset] -- so of two replays after off is set bad, exactly the first faults."""
    poke_once = kernels.function("poke_once")
    buf, off = dev.empty(16, np.uint8), dev.empty(1, np.uint32)
    await s.memset(off, 0)
    async with s.capture() as g:
        await ac.launch(poke_once, await poke_once.args().ptr(buf).ptr(off), blocks=1, stream=s)
    return g, off


async def test_a_failed_replay_fails_exactly_its_completion(test_kernels_path):
    async with ac.Device(0) as dev:
        kernels = await dev.load_binary(test_kernels_path)
        async with dev.stream() as s:
            g, off = await _poke_once_graph(dev, s, kernels)
            await (await g.launch())  # a good replay
            await s.copy_from_host(off, np.array([BAD], np.uint32))
            first, second = await g.launch(), await g.launch()  # both in flight at once
            with pytest.raises(ac.KernelFaultError, match="replay"):
                await first
            await second  # the same graph, replayed right behind: not failed by the report
            await (await g.launch())
            g.close()
            with pytest.raises(ac.KernelFaultError):
                await s.synchronize()  # the stream's failure, reported once


async def test_replays_of_one_graph_on_two_streams_fail_only_their_own(test_kernels_path):
    async with ac.Device(0) as dev:
        kernels = await dev.load_binary(test_kernels_path)
        wait = kernels.function("wait_us")
        async with dev.stream() as s1, dev.stream() as s2:
            g, off = await _poke_once_graph(dev, s1, kernels)
            await (await s1.copy_from_host(off, np.array([BAD], np.uint32)))  # set before either replay
            scratch = dev.empty(4, np.int32)
            await ac.launch(wait, await wait.args().ptr(scratch).u64(20_000), blocks=1, stream=s1)
            # The replay on s1 comes first (behind a 20 ms kernel); the one on s2 is submitted
            # while it is in flight, and would run at once on its idle stream: it waits for the
            # first, which faults, and runs clean itself.
            first = await g.launch(stream=s1)
            second = await g.launch(stream=s2)
            with pytest.raises(ac.KernelFaultError, match="replay"):
                await first
            await second
            g.close()
            with pytest.raises(ac.KernelFaultError):
                await s1.synchronize()
            await s2.synchronize()  # nothing failed there


async def test_the_second_report_of_a_fault_fails_nothing_else(test_kernels_path, monkeypatch):
    # A driver with millisecond operator timeouts (AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US, read at
    # aclInit): a faulting kernel is reported twice, the second time on the next thread that
    # submits or queries -- here the event loop's own, inside a launch.
    monkeypatch.setenv("AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US", "1000")
    reports: list[tuple[int, int, int]] = []

    @ffi.callback("aclrtExceptionInfoCallback")
    def on_report(info):  # Python on a runtime thread: fine for a test, never done by aiocann
        reports.append(
            (
                lib.aclrtGetStreamIdFromExceptionInfo(info),
                lib.aclrtGetTaskIdFromExceptionInfo(info),
                threading.get_ident(),
            )
        )

    async with ac.Device(0) as dev:
        assert lib.aclrtExceptionInfoCallbackRegister(on_report) == 0
        try:
            b = await dev.load_binary(test_kernels_path)
            poke, write, wait = b.function("poke"), b.function("write_value"), b.function("wait_us")
            buf, out = dev.empty(16, np.uint8), dev.empty(64, np.int32)
            async with dev.stream() as s:
                await ac.launch(wait, await wait.args().ptr(out).u64(50_000), blocks=1)
                fault = await ac.launch(poke, await poke.args().ptr(buf).u64(BAD), blocks=1)
                # Submitted before the fault happens, so it reports the fault (once) and the
                # second report is still waiting in the fast ring buffer afterwards.
                with pytest.raises(ac.KernelFaultError):
                    await s.synchronize()
                with pytest.raises(ac.KernelFaultError):
                    await fault
                assert len(reports) == 1
                # Later work on the stream: its first launch takes the second report, here.
                later = [await ac.launch(write, await write.args().ptr(out).u32(i).i32(i), blocks=1) for i in range(32)]
                for c in later:
                    await c  # none of them failed by the second report
                await s.synchronize()  # nor the stream: it is no new failure
                assert (await out.get())[:32].tolist() == list(range(32))
        finally:
            assert lib.aclrtExceptionInfoCallbackUnregister(on_report) == 0
    tasks = {(sid, task) for sid, task, _ in reports}
    assert len(reports) == 2 and len(tasks) == 1  # one task, reported twice ...
    assert threading.get_ident() in {tid for _, _, tid in reports}  # ... once on this thread


def test_the_second_report_is_only_where_the_driver_has_millisecond_timeouts(test_kernels_path):
    """Without the feature (the default interval), one report: checked through the plain API."""
    from acl_util import Reports, acl_session, sync_rc

    with acl_session() as rt:
        poke = rt.function(test_kernels_path, "poke")
        r = Reports()
        assert lib.aclrtExceptionInfoCallbackRegister(r.cb) == 0
        try:
            s = rt.stream()
            rt.launch(poke, 1, s, ("ptr", rt.malloc(64)), ("uint64_t", BAD))
            sync_rc(s)
            rt.launch(poke, 1, s, ("ptr", rt.malloc(64)), ("uint64_t", 0))
            sync_rc(s)
        finally:
            assert lib.aclrtExceptionInfoCallbackUnregister(r.cb) == 0
    assert len(r.got) == 1


async def test_stop_on_failure_close_is_quick_on_every_loop(test_kernels_path):
    """The whole Device block with a stopped stream closes well within 5 s."""
    t0 = time.monotonic()
    with anyio.fail_after(10):
        async with ac.Device(0) as dev:
            poke = (await dev.load_binary(test_kernels_path)).function("poke")
            async with dev.stream() as s:
                assert acl.rt.set_stream_failure_mode(s.handle, 1) == 0
                c = await ac.launch(poke, await poke.args().ptr(dev.empty(16, np.uint8)).u64(BAD), blocks=1)
                with pytest.raises(ac.KernelFaultError):
                    await c
                await s.aclose(raise_errors=False)
    assert time.monotonic() - t0 < 5.0


async def test_a_failed_replay_on_a_stop_on_failure_stream_fails_at_once(test_kernels_path):
    # The replay's completion (a blocking callback) is discarded with the stream; the report,
    # on the model's own stream, still names the replay in flight.
    async with ac.Device(0) as dev:
        kernels = await dev.load_binary(test_kernels_path)
        write, wait = kernels.function("write_value"), kernels.function("wait_us")
        out = dev.empty(4, np.int32)
        s = dev.stream()
        await s.__aenter__()
        g, off = await _poke_once_graph(dev, s, kernels)
        await (await s.copy_from_host(off, np.array([BAD], np.uint32)))
        assert acl.rt.set_stream_failure_mode(s.handle, 1) == 0
        t0 = time.monotonic()
        # Ahead of the replay, so that the work behind it is submitted before the failure (after
        # it, the runtime refuses new work at once).
        await ac.launch(wait, await wait.args().ptr(out).u64(30_000), blocks=1, stream=s)
        replay = await g.launch()
        behind = await ac.launch(write, await write.args().ptr(out).u32(0).i32(1), blocks=1, stream=s)
        with pytest.raises(ac.KernelFaultError, match="replay"):
            await replay
        with pytest.raises(ac.KernelFaultError, match="discarded"):
            await behind
        assert time.monotonic() - t0 < 1.0
        g.close()
        t1 = time.monotonic()
        await s.aclose(raise_errors=False)
        assert time.monotonic() - t1 < 5.0
