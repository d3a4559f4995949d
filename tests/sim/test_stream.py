"""Streams and events through the raw binding: in-order execution on one stream, concurrency of
two streams (shown by event timestamps), event waits across streams, query and timeouts, stale
and foreign stream handles, and how a faulting kernel's error is reported (the real runtime's
continue-on-failure model).

Kernels come from tests/kernels/test_kernels.c; ``wait_us`` sleeps off the CPU, so timing
assertions hold on a 2-core machine."""

from __future__ import annotations

import os
import platform
import signal
import time

import numpy as np
import pytest
from acl_util import (
    EVENT_COMPLETE,
    EVENT_NOT_READY,
    RT_AICORE_EXCEPTION,
    RT_EVENT_SYNC_TIMEOUT,
    RT_INVALID_HANDLE,
    RT_PARAM_INVALID,
    RT_STREAM_CONTEXT,
    RT_STREAM_SYNC_TIMEOUT,
    STREAM_COMPLETE,
    STREAM_NOT_READY,
    KernelArgs,
    acl_session,
    addr,
    expect,
    last_error,
    launch_rc,
    sync_rc,
    vp,
)

from aiocann._lib import check, ffi, lib
from aiocann.errors import AclError

MS = 1000  # wait_us takes microseconds


def test_tasks_of_one_stream_run_in_order(acl, k):
    """Forty launches with varying block counts, interleaving an order-sensitive update
    (affine: x*2+1) with point writes, framed by async copies from and to pinned memory: the
    result is that of running them one after another in submission order."""
    n = 4096
    s = acl.stream()
    d = acl.malloc(4 * n)
    pinned = ffi.new("void **")
    check(lib.aclrtMallocHost(pinned, 4 * n))
    host = np.frombuffer(ffi.buffer(pinned[0], 4 * n), np.int32)
    host[:] = np.arange(n) % 4
    expected = host.astype(np.int64)
    check(lib.aclrtMemcpyAsync(d, 4 * n, pinned[0], 4 * n, 1, s))
    for i in range(40):
        if i % 3 == 2:
            idx = (i * 97) % n
            acl.launch(k.write_value, 1, s, ("ptr", d), ("uint32_t", idx), ("int32_t", -i))
            expected[idx] = -i
        else:
            acl.launch(k.affine, 1 + i % 8, s, ("ptr", d), ("uint32_t", n))
            expected = expected * 2 + 1
    check(lib.aclrtMemcpyAsync(pinned[0], 4 * n, d, 4 * n, 2, s))
    acl.sync(s)
    np.testing.assert_array_equal(host, expected)
    del host
    check(lib.aclrtFreeHost(pinned[0]))


def test_one_stream_serialises_by_timestamps(acl, k):
    s = acl.stream()
    scratch = acl.malloc(64)
    e0 = acl.record(s)
    acl.launch(k.wait_us, 1, s, ("ptr", scratch), ("uint64_t", 100 * MS))
    e1 = acl.record(s)
    acl.launch(k.wait_us, 1, s, ("ptr", scratch), ("uint64_t", 100 * MS))
    e2 = acl.record(s)
    acl.sync(s)
    assert acl.timestamp(e0) < acl.timestamp(e1) < acl.timestamp(e2)
    assert acl.elapsed_ms(e0, e1) >= 99 and acl.elapsed_ms(e1, e2) >= 99
    assert acl.elapsed_ms(e0, e2) >= 199


def test_two_streams_overlap(acl, k):
    """A 200 ms kernel on each of two streams: their [start, end] records overlap by most of
    that time, and both finish well before 400 ms."""
    a, b = acl.stream(), acl.stream()
    scratch = acl.malloc(64)
    t0 = time.monotonic()
    a0 = acl.record(a)
    acl.launch(k.wait_us, 1, a, ("ptr", scratch), ("uint64_t", 200 * MS))
    a1 = acl.record(a)
    b0 = acl.record(b)
    acl.launch(k.wait_us, 1, b, ("ptr", vp(addr(scratch) + 32)), ("uint64_t", 200 * MS))
    b1 = acl.record(b)
    acl.sync(a)
    acl.sync(b)
    wall = time.monotonic() - t0
    ta0, ta1, tb0, tb1 = (acl.timestamp(e) for e in (a0, a1, b0, b1))
    ms_per_tick = acl.elapsed_ms(a0, a1) / (ta1 - ta0)
    overlap_ms = (min(ta1, tb1) - max(ta0, tb0)) * ms_per_tick
    assert acl.elapsed_ms(a0, a1) >= 199 and acl.elapsed_ms(b0, b1) >= 199
    assert overlap_ms > 150, f"the two streams overlapped for only {overlap_ms:.1f} ms"
    assert wall < 0.35


def test_stream_wait_event_orders_work_across_streams(acl, k):
    """B waits for an event A records after a slow kernel and a write; B's update then sees the
    write (1*2+1 = 3; had B run first, A's write would leave 1). A stream without the wait
    completes while A is still held. The ordering this relies on is real, not a race: A starts
    only when a notify is recorded, which the host does once the unordered stream has finished
    (issue 20: the test assumed the unordered stream ran within 50 ms, and lost that race once on
    a loaded machine)."""
    a, b = acl.stream(), acl.stream()
    d, scratch = acl.malloc(64), acl.malloc(64)
    acl.zeros(d, 64)
    go = ffi.new("aclrtNotify *")
    check(lib.aclrtCreateNotify(go, 0))
    check(lib.aclrtWaitAndResetNotify(go[0], a, 0))  # A holds here until `go` is recorded
    acl.launch(k.wait_us, 1, a, ("ptr", scratch), ("uint64_t", 150 * MS))
    acl.launch(k.write_value, 1, a, ("ptr", d), ("uint32_t", 0), ("int32_t", 1))
    e = acl.record(a)
    check(lib.aclrtStreamWaitEvent(b, e))
    acl.launch(k.affine, 1, b, ("ptr", d), ("uint32_t", 1))
    b_done = acl.record(b)
    unordered = acl.stream()
    c_done = acl.record(unordered)  # nothing makes this one wait
    acl.sync(unordered)  # it finishes while A is held
    assert acl.query(b) != STREAM_COMPLETE  # B waits for A, which has not started
    check(lib.aclrtRecordNotify(go[0], unordered))  # now A goes
    acl.sync(b)
    assert acl.from_device(d, 1, np.int32)[0] == 3
    assert acl.elapsed_ms(e, b_done) >= 0  # B finished after A's record (no timestamp reversal)
    assert acl.elapsed_ms(c_done, e) >= 149  # A's record came after its 150 ms kernel, begun after c_done
    check(lib.aclrtDestroyNotify(go[0]))


def test_wait_captures_only_records_made_before_it(acl, k):
    """A stream wait waits for the event's newest record at the time of the call: on a never
    recorded event it does not block at all."""
    a, b = acl.stream(), acl.stream()
    scratch = acl.malloc(64)
    e = acl.event()
    check(lib.aclrtStreamWaitEvent(b, e))
    acl.launch(k.wait_us, 1, a, ("ptr", scratch), ("uint64_t", 300 * MS))
    check(lib.aclrtRecordEvent(e, a))  # recorded after the wait was issued
    t0 = time.monotonic()
    check(lib.aclrtSynchronizeStreamWithTimeout(b, 5000))
    assert time.monotonic() - t0 < 0.2
    acl.sync(a)


def test_stream_query(acl, k):
    s = acl.stream()
    assert acl.query(s) == STREAM_COMPLETE  # nothing submitted
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 200 * MS))
    assert acl.query(s) == STREAM_NOT_READY
    acl.sync(s)
    assert acl.query(s) == STREAM_COMPLETE
    expect(0, lib.aclrtStreamQuery(s, ffi.new("aclrtStreamStatus *")))


def test_synchronize_stream_with_timeout(acl, k):
    s = acl.stream()
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 400 * MS))
    t0 = time.monotonic()
    expect(RT_STREAM_SYNC_TIMEOUT, lib.aclrtSynchronizeStreamWithTimeout(s, 50), "50 ms")
    waited = time.monotonic() - t0
    assert 0.045 <= waited < 0.3
    expect(RT_PARAM_INVALID, lib.aclrtSynchronizeStreamWithTimeout(s, -2), "timeout")
    # 0 is no poll: ApiErrorDecorator::StreamSynchronize refuses it ("not equal to 0"), before
    # looking at the stream -- pending work or not
    expect(RT_PARAM_INVALID, lib.aclrtSynchronizeStreamWithTimeout(s, 0), "timeout 0")
    check(lib.aclrtSynchronizeStreamWithTimeout(s, -1))
    assert acl.query(s) == STREAM_COMPLETE
    check(lib.aclrtSynchronizeStreamWithTimeout(s, 10))  # nothing pending: returns at once
    expect(RT_PARAM_INVALID, lib.aclrtSynchronizeStreamWithTimeout(s, 0), "timeout 0")
    expect(RT_PARAM_INVALID, lib.aclrtSynchronizeDeviceWithTimeout(0), "timeout 0")  # DeviceSynchronize too


def test_synchronize_event_with_timeout(acl, k):
    s = acl.stream()
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 400 * MS))
    e = acl.record(s)
    status = ffi.new("aclrtEventRecordedStatus *")
    check(lib.aclrtQueryEventStatus(e, status))
    assert status[0] == EVENT_NOT_READY
    t0 = time.monotonic()
    expect(RT_EVENT_SYNC_TIMEOUT, lib.aclrtSynchronizeEventWithTimeout(e, 50), "50 ms")
    assert 0.045 <= time.monotonic() - t0 < 0.3
    check(lib.aclrtSynchronizeEventWithTimeout(e, 5000))
    check(lib.aclrtQueryEventStatus(e, status))
    assert status[0] == EVENT_COMPLETE
    assert acl.query(s) == STREAM_COMPLETE  # the event was the stream's last task


def test_destroy_waits_for_pending_tasks(acl, k):
    s = acl.stream()
    d = acl.malloc(64)
    acl.zeros(d, 64)
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 100 * MS))
    acl.launch(k.write_value, 1, s, ("ptr", d), ("uint32_t", 3), ("int32_t", 33))
    t0 = time.monotonic()
    check(lib.aclrtDestroyStream(s))
    assert time.monotonic() - t0 >= 0.09
    assert acl.from_device(d, 4, np.int32).tolist() == [0, 0, 0, 33]


def test_stale_and_foreign_stream_handles(acl, k):
    """A destroyed stream, another kind of handle and an integer: 107017 from every call that
    takes a stream, never a crash."""
    dead = acl.stream()
    check(lib.aclrtDestroyStream(dead))
    event = acl.event()
    ctx = ffi.new("aclrtContext *")
    check(lib.aclrtGetCurrentContext(ctx))
    d = acl.malloc(64)
    host = ffi.new("char[64]")
    args = KernelArgs(k.write_value, 256)
    args.ptr(d)
    args.scalar("uint32_t", 0)
    args.scalar("int32_t", 1)
    args.finalize()
    cb = ffi.callback("void(void *)", lambda _: None)
    for name, s in {"destroyed": dead, "event": event, "context": ctx[0], "integer": vp(0xDEAD0000)}.items():
        s = ffi.cast("aclrtStream", s)
        calls = {
            "SynchronizeStream": lib.aclrtSynchronizeStream(s),
            "SynchronizeStreamWithTimeout": lib.aclrtSynchronizeStreamWithTimeout(s, 10),
            "StreamQuery": lib.aclrtStreamQuery(s, ffi.new("aclrtStreamStatus *")),
            "DestroyStream": lib.aclrtDestroyStream(s),
            "RecordEvent": lib.aclrtRecordEvent(event, s),
            "StreamWaitEvent": lib.aclrtStreamWaitEvent(s, event),
            "MemcpyAsync": lib.aclrtMemcpyAsync(d, 64, host, 64, 1, s),
            "MemsetAsync": lib.aclrtMemsetAsync(d, 64, 0, 64, s),
            "LaunchKernelWithConfig": launch_rc(k.write_value, 1, s, args),
            "SubscribeReport": lib.aclrtSubscribeReport(1, s),
            "LaunchCallback": lib.aclrtLaunchCallback(cb, ffi.NULL, 0, s),
        }
        for call, rc in calls.items():
            assert rc == RT_INVALID_HANDLE, f"{call} on a {name} stream handle returned {rc}"
        assert "stream" in last_error()


def test_stream_of_another_device(acl, k):
    """A stream created on device 1 used while device 0's context is current: 107003."""
    ctx0, ctx1 = ffi.new("aclrtContext *"), ffi.new("aclrtContext *")
    check(lib.aclrtGetCurrentContext(ctx0))
    check(lib.aclrtSetDevice(1))
    try:
        check(lib.aclrtGetCurrentContext(ctx1))
        s1 = acl.stream()
        check(lib.aclrtSetCurrentContext(ctx0[0]))
        calls, event = _work_for(acl, k, s1)
        cb = ffi.callback("void(void *)", lambda _: None)
        calls |= {
            "StreamWaitEvent": lambda: lib.aclrtStreamWaitEvent(s1, event),
            "LaunchCallback": lambda: lib.aclrtLaunchCallback(cb, ffi.NULL, 0, s1),
            "DestroyStream": lambda: lib.aclrtDestroyStream(s1),
        }
        for call, fn in calls.items():
            rc = fn()
            assert rc == RT_STREAM_CONTEXT, f"{call} on device 1's stream from device 0 returned {rc}"
        assert "device 1" in last_error()
        check(lib.aclrtSetCurrentContext(ctx1[0]))
        check(lib.aclrtDestroyStream(s1))
    finally:
        check(lib.aclrtSetCurrentContext(ctx0[0]))
        check(lib.aclrtResetDevice(1))


def _work_for(acl, k, stream):
    """Work of every kind for ``stream`` -- a kernel, an event record, a copy, a memset -- made
    in the current context, as calls to run later; and the event it records."""
    d = acl.malloc(64)
    host = ffi.new("char[64]")
    event = acl.event()
    args = KernelArgs(k.write_value)
    args.ptr(d)
    args.scalar("uint32_t", 0)
    args.scalar("int32_t", 7)
    args.finalize()
    calls = {
        "LaunchKernelWithConfig": lambda: launch_rc(k.write_value, 1, stream, args),
        "RecordEvent": lambda: lib.aclrtRecordEvent(event, stream),
        "MemcpyAsync": lambda: lib.aclrtMemcpyAsync(d, 64, host, 64, 1, stream),
        "MemsetAsync": lambda: lib.aclrtMemsetAsync(d, 64, 0, 64, stream),
    }
    return calls, event


def test_work_on_a_stream_of_another_context_on_the_same_device(acl, k):
    """The runtime compares the stream's context with the current one, not their devices
    (COND_RETURN_AND_MSG_INVALID_CONTEXT_STREAM in api_impl.cc): a stream of a second context
    on the same device takes no work while the first is current, and all of it once its own is."""
    home, other = ffi.new("aclrtContext *"), ffi.new("aclrtContext *")
    check(lib.aclrtGetCurrentContext(home))
    check(lib.aclrtCreateContext(other, 0))  # becomes current
    try:
        s = acl.stream()  # in the second context
        check(lib.aclrtSetCurrentContext(home[0]))
        calls, _ = _work_for(acl, k, s)
        for call, fn in calls.items():
            rc = fn()
            assert rc == RT_STREAM_CONTEXT, f"{call} on another context's stream returned {rc}"
            assert "another context" in last_error()
        check(lib.aclrtSetCurrentContext(other[0]))
        for call, fn in calls.items():
            assert fn() == 0, call
        check(lib.aclrtSynchronizeStream(s))
        check(lib.aclrtDestroyStream(s))
    finally:
        check(lib.aclrtSetCurrentContext(home[0]))
        check(lib.aclrtDestroyContext(other[0]))


def test_synchronize_device_waits_for_the_current_contexts_streams_only(acl, k):
    """Context::Synchronize collects the streams of the current context: a stream of another
    context, on the same device, is neither waited for nor has its error consumed."""
    home, other = ffi.new("aclrtContext *"), ffi.new("aclrtContext *")
    check(lib.aclrtGetCurrentContext(home))
    check(lib.aclrtCreateContext(other, 0))  # becomes current
    try:
        slow, failed = acl.stream(), acl.stream()  # both in the second context
        acl.launch(k.wait_us, 1, slow, ("ptr", acl.malloc(64)), ("uint64_t", 400 * MS))
        acl.launch(k.poke, 1, failed, ("ptr", acl.malloc(64)), ("uint64_t", 1 << 20))
        check(lib.aclrtSetCurrentContext(home[0]))
        mine = acl.stream()
        acl.launch(k.wait_us, 1, mine, ("ptr", acl.malloc(64)), ("uint64_t", 20 * MS))
        t0 = time.monotonic()
        check(lib.aclrtSynchronizeDevice())  # mine only: not the 400 ms, not the fault
        assert time.monotonic() - t0 < 0.3
        assert acl.query(mine) == STREAM_COMPLETE
        check(lib.aclrtSetCurrentContext(other[0]))
        assert acl.query(slow) == STREAM_NOT_READY
        expect(RT_AICORE_EXCEPTION, lib.aclrtSynchronizeDevice(), "poke")  # its own context's streams
        assert acl.query(slow) == STREAM_COMPLETE
        check(lib.aclrtSynchronizeStream(failed))  # consumed by that device synchronize
    finally:
        check(lib.aclrtSetCurrentContext(home[0]))
        check(lib.aclrtDestroyContext(other[0]))


FAULTS = {
    # kernel: (its parameters, given a 4064-byte buffer and a scratch output)
    "poke": lambda buf, out: [("ptr", buf), ("uint64_t", 4096)],  # the first byte of the guard page
    "divide": lambda buf, out: [("ptr", out), ("int32_t", 0)],
    "trap": lambda buf, out: [("ptr", out)],
}


@pytest.mark.parametrize("kernel", list(FAULTS))
def test_faulting_kernel_fails_its_task_and_the_stream_goes_on(acl, k, kernel):
    """The launch succeeds (it is only enqueued); the fault surfaces at synchronize as 507015
    with a message naming the kernel, the block and the address. As on the real runtime
    (continue on failure, the default): later work on the stream runs, synchronize reports the
    error once and clears it, aclrtStreamQuery never reports it; the process and other streams
    carry on."""
    s = acl.stream()
    buf = acl.malloc(4064)  # 4064 rounds to 4096: the allocation ends exactly at a guard page
    out = acl.malloc(64)
    acl.zeros(out, 64)
    acl.launch(getattr(k, kernel), 1, s, *FAULTS[kernel](buf, out))
    acl.launch(k.write_value, 1, s, ("ptr", out), ("uint32_t", 1), ("int32_t", 42))
    msg = expect(RT_AICORE_EXCEPTION, sync_rc(s), f"kernel {kernel}", "block 0", "address 0x")
    if kernel == "poke":
        assert hex(addr(buf) + 4096) in msg
    assert acl.from_device(out, 2, np.int32).tolist() == [0, 42]  # write_value ran

    check(lib.aclrtSynchronizeStream(s))  # reported once, then cleared
    status = ffi.new("aclrtStreamStatus *")
    check(lib.aclrtStreamQuery(s, status))
    assert status[0] == lib.ACL_STREAM_STATUS_COMPLETE
    acl.launch(k.write_value, 1, s, ("ptr", out), ("uint32_t", 1), ("int32_t", 43))
    check(sync_rc(s))
    assert acl.from_device(out, 2, np.int32).tolist() == [0, 43]
    check(lib.aclrtSynchronizeDevice())

    other = acl.stream()
    acl.launch(k.write_value, 4, other, ("ptr", out), ("uint32_t", 2), ("int32_t", 7))
    acl.sync(other)
    assert acl.from_device(out, 3, np.int32).tolist() == [0, 43, 7]
    check(lib.aclrtDestroyStream(s))


def test_a_kernel_has_the_same_stack_on_every_thread(acl, k):
    """600 KiB of locals: one block runs on the stream's worker, which borrows an idle core, and
    8 blocks run mostly on the AI-core threads. Both work: every thread that runs kernel blocks
    has the same 1 MiB stack (the workers had 256 KiB, so the block a worker ran faulted: block 0
    of 1, and of 8)."""
    s = acl.stream()
    out = acl.malloc(64)
    for blocks in (1, 8):
        acl.zeros(out, 64)
        acl.launch(k.stack_use, blocks, s, ("ptr", out), ("uint64_t", 600))
        check(sync_rc(s))
        assert acl.from_device(out, blocks, np.int32).tolist() == list(range(1, blocks + 1))


def test_a_kernel_that_overflows_its_stack_faults_and_the_process_goes_on(acl, k):
    """4 MiB of locals, past the 1 MiB stack: the kernel is built with stack probes
    (``-fstack-clash-protection``), so its frame touches the guard page below the stack first
    and faults there -- 507015, as any kernel fault -- instead of writing past it into other
    memory (before, such a kernel on the worker's stack crashed the process a moment later).
    On one block and on 8; afterwards the same threads run kernels as before."""
    s = acl.stream()
    out = acl.malloc(64)
    for blocks in (1, 8):
        acl.launch(k.stack_use, blocks, s, ("ptr", out), ("uint64_t", 4096))
        expect(RT_AICORE_EXCEPTION, sync_rc(s), "kernel stack_use", "SIGSEGV")
    acl.zeros(out, 64)
    for blocks in (1, 8):
        acl.launch(k.stack_use, blocks, s, ("ptr", out), ("uint64_t", 600))
        check(sync_rc(s))
    assert acl.from_device(out, 8, np.int32).tolist() == list(range(1, 9))


@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL], ids=lambda s: s.name)
def test_a_fault_signal_a_kernel_raises_is_reported_without_an_address(acl, k, sig):
    """Issue 12: a signal sent by raise() (or kill, sigqueue) carries the sender's pid and uid
    where a CPU fault carries its address; the message says there is no address instead of
    printing the pid as one."""
    s = acl.stream()
    acl.launch(k.raise_signal, 1, s, ("ptr", acl.malloc(64)), ("int32_t", int(sig)))
    msg = expect(RT_AICORE_EXCEPTION, sync_rc(s), "kernel raise_signal", "block 0", sig.name, "no address")
    pid = os.getpid()
    assert "0x" not in msg and "(nil)" not in msg and f"{pid:x}" not in msg and str(pid) not in msg, msg


def test_assert_and_abort_in_a_c_kernel_end_the_launch_not_the_process(acl, k):
    """A plain C kernel's assert() and abort() bind to the kernel binary's own definitions, which
    end the block as an AI-core exception (they raised SIGABRT, which ended the process)."""
    s = acl.stream()
    out = acl.malloc(64)
    acl.launch(k.check_positive, 1, s, ("ptr", out), ("int32_t", 0))
    expect(RT_AICORE_EXCEPTION, sync_rc(s), "kernel check_positive, block 0 of 1: assert: ", "`value > 0' failed")
    acl.launch(k.check_positive, 1, s, ("ptr", out), ("int32_t", -1))
    expect(RT_AICORE_EXCEPTION, sync_rc(s), "kernel check_positive, block 0 of 1: abort: the kernel called abort()")
    acl.launch(k.check_positive, 1, s, ("ptr", out), ("int32_t", 5))
    check(sync_rc(s))
    assert acl.from_device(out, 1, np.int32).tolist() == [5]


def test_a_fault_without_an_address_is_not_reported_at_null(acl, k):
    """A general-protection fault (x86-64: an access to a non-canonical address) is a real
    SIGSEGV whose si_addr the kernel leaves 0; that is not an access at NULL."""
    if platform.machine() != "x86_64":
        pytest.skip("non-canonical addresses are an x86-64 notion")
    s = acl.stream()
    acl.launch(k.poke, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 1 << 63))
    msg = expect(RT_AICORE_EXCEPTION, sync_rc(s), "kernel poke", "SIGSEGV", "no address")
    assert "(nil)" not in msg and "0x0" not in msg, msg


def test_events_carry_no_error(acl, k):
    """An event recorded after a failed task completes normally: a stream waiting on it goes on
    and aclrtSynchronizeEvent succeeds (ApiImpl::EventSynchronize checks only the context); the
    failure is the failed stream's to report."""
    a, b = acl.stream(), acl.stream()
    buf, out = acl.malloc(4064), acl.malloc(64)
    acl.zeros(out, 64)
    acl.launch(k.poke, 1, a, ("ptr", buf), ("uint64_t", 1 << 20))
    e = acl.record(a)
    check(lib.aclrtStreamWaitEvent(b, e))
    acl.launch(k.write_value, 1, b, ("ptr", out), ("uint32_t", 0), ("int32_t", 5))
    check(sync_rc(b))
    check(lib.aclrtSynchronizeEvent(e))
    status = ffi.new("aclrtEventRecordedStatus *")
    check(lib.aclrtQueryEventStatus(e, status))
    assert status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert acl.from_device(out, 1, np.int32).tolist() == [5]
    expect(RT_AICORE_EXCEPTION, sync_rc(a), "poke")


@pytest.mark.parametrize("spin_us", ["0", "1000"])
def test_worker_polling_setting_keeps_order(spin_us, test_kernels_path):
    """AIOCANN_SIM_SPIN_US=0: workers sleep as soon as their queue runs dry; 1000: they poll.
    Either way every launch runs, in submission order, including ones submitted while the
    worker sleeps (the gaps) or polls."""
    with acl_session(AIOCANN_SIM_SPIN_US=spin_us) as acl:
        fn = acl.function(test_kernels_path, "write_value")
        s = acl.stream()
        out = acl.malloc(4 * 64)
        acl.zeros(out, 4 * 64)
        for i in range(64):
            acl.launch(fn, 1, s, ("ptr", out), ("uint32_t", i), ("int32_t", i * 3 + 1))
            if i % 16 == 0:
                time.sleep(0.002)  # longer than a 1000 us poll: the worker goes to sleep
        acl.sync(s)
        assert acl.from_device(out, (64,), np.int32).tolist() == [i * 3 + 1 for i in range(64)]


def test_worker_polling_setting_is_validated():
    with pytest.raises(AclError) as e, acl_session(AIOCANN_SIM_SPIN_US="fast"):
        pass
    assert e.value.code == 100000 and "AIOCANN_SIM_SPIN_US" in str(e.value)
