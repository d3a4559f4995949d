"""Host callbacks through the raw binding (reference §8): a Python thread subscribed by
``threading.get_ident()`` loops ``aclrtProcessReport``; every error code of the protocol; a
blocking callback holding its stream; and the native completion queue of aiocann._native (C
callback -> token queue -> eventfd, served by a report thread written in C)."""

from __future__ import annotations

import select
import threading
import time
from typing import Any

import numpy as np
import pytest
from acl_util import (
    BLOCK,
    INVALID_PARAM,
    NO_BLOCK,
    RT_AICORE_EXCEPTION,
    RT_REPORT_TIMEOUT,
    RT_STREAM_NO_CB_REG,
    RT_STREAM_SUBSCRIBE,
    RT_STREAM_SYNC_TIMEOUT,
    RT_THREAD_SUBSCRIBE,
    STREAM_NOT_READY,
    KernelArgs,
    ReportThread,
    acl_session,
    expect,
    sync_rc,
    vp,
)

from aiocann._lib import check, ffi, lib


def wait_for(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


def test_callbacks_run_once_each_in_order_in_the_subscribed_thread(acl):
    s = acl.stream()
    ran: list[tuple[int, int]] = []

    @ffi.callback("void(void *)")
    def cb(user: Any) -> None:
        ran.append((int(ffi.cast("uintptr_t", user)), threading.get_ident()))

    with ReportThread() as rep:
        rep.subscribe(s)
        for i in range(60):
            check(lib.aclrtLaunchCallback(cb, vp(i), BLOCK if i % 2 else NO_BLOCK, s))
        acl.sync(s)
        assert wait_for(lambda: len(ran) >= 60), f"only {len(ran)} of 60 callbacks ran"
        check(lib.aclrtUnSubscribeReport(rep.ident, s))
    assert [i for i, _ in ran] == list(range(60))
    assert {t for _, t in ran} == {rep.ident}
    assert 0 in rep.codes and set(rep.codes) <= {0, RT_REPORT_TIMEOUT}


def test_callback_runs_after_the_work_before_it(acl, k):
    """A callback sees what the stream did before it: a kernel's output copied to pinned
    memory by an async copy on the same stream."""
    s = acl.stream()
    d = acl.malloc(64)
    pinned = ffi.new("void **")
    check(lib.aclrtMallocHost(pinned, 64))
    host = ffi.cast("int32_t *", pinned[0])
    host[0] = -1
    seen: list[int] = []

    @ffi.callback("void(void *)")
    def cb(_: Any) -> None:
        seen.append(int(host[0]))

    with ReportThread() as rep:
        rep.subscribe(s)
        acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 50_000))
        acl.launch(k.write_value, 1, s, ("ptr", d), ("uint32_t", 0), ("int32_t", 77))
        check(lib.aclrtMemcpyAsync(pinned[0], 64, d, 64, 2, s))
        check(lib.aclrtLaunchCallback(cb, ffi.NULL, NO_BLOCK, s))
        acl.sync(s)
        assert wait_for(lambda: bool(seen))
        check(lib.aclrtUnSubscribeReport(rep.ident, s))
    assert seen == [77]
    check(lib.aclrtFreeHost(pinned[0]))


def test_launch_callback_on_an_unsubscribed_stream(acl):
    s = acl.stream()
    cb = ffi.callback("void(void *)", lambda _: None)
    expect(RT_STREAM_NO_CB_REG, lib.aclrtLaunchCallback(cb, ffi.NULL, NO_BLOCK, s), "aclrtSubscribeReport")
    expect(RT_STREAM_NO_CB_REG, lib.aclrtLaunchCallback(cb, ffi.NULL, BLOCK, ffi.NULL))  # default stream
    check(lib.aclrtSubscribeReport(threading.get_ident(), s))
    check(lib.aclrtUnSubscribeReport(threading.get_ident(), s))
    expect(RT_STREAM_NO_CB_REG, lib.aclrtLaunchCallback(cb, ffi.NULL, NO_BLOCK, s))  # unsubscribed again


def test_process_report_in_an_unsubscribed_thread(acl):
    expect(RT_THREAD_SUBSCRIBE, lib.aclrtProcessReport(10), "not subscribed")


def test_process_report_times_out_and_runs_callbacks_in_the_calling_thread(acl):
    """The main thread subscribes itself: ProcessReport with nothing due times out (507012)
    after about the timeout; with a callback due, runs it here and returns 0."""
    s = acl.stream()
    me = threading.get_ident()
    check(lib.aclrtSubscribeReport(me, s))
    t0 = time.monotonic()
    expect(RT_REPORT_TIMEOUT, lib.aclrtProcessReport(50), "50 ms")
    assert 0.045 <= time.monotonic() - t0 < 1.0
    ran: list[int] = []
    cb = ffi.callback("void(void *)", lambda _: ran.append(threading.get_ident()))
    check(lib.aclrtLaunchCallback(cb, ffi.NULL, NO_BLOCK, s))
    check(lib.aclrtProcessReport(2000))
    assert ran == [me]
    check(lib.aclrtLaunchCallback(cb, ffi.NULL, BLOCK, s))  # the stream waits for this thread
    check(lib.aclrtProcessReport(2000))
    check(lib.aclrtSynchronizeStreamWithTimeout(s, 2000))
    assert ran == [me, me]
    check(lib.aclrtUnSubscribeReport(me, s))


def test_subscriptions_and_undelivered_reports_end_with_finalize():
    """A report delivered to a thread that never processed it does not outlive aclFinalize: after
    the next aclInit the thread is not subscribed, and the stale callback never runs."""
    ran: list[int] = []
    cb = ffi.callback("void(void *)", lambda _: ran.append(1))
    me = threading.get_ident()
    with acl_session() as rt:
        s = rt.stream()
        check(lib.aclrtSubscribeReport(me, s))
        check(lib.aclrtLaunchCallback(cb, ffi.NULL, NO_BLOCK, s))
        rt.sync(s)  # delivered to this thread's queue; nobody processes it
    with acl_session():
        expect(RT_THREAD_SUBSCRIBE, lib.aclrtProcessReport(10), "not subscribed")
    assert ran == []


def test_invalid_arguments(acl):
    s = acl.stream()
    check(lib.aclrtSubscribeReport(threading.get_ident(), s))
    cb = ffi.callback("void(void *)", lambda _: None)
    expect(INVALID_PARAM, lib.aclrtProcessReport(0), "timeout")
    expect(INVALID_PARAM, lib.aclrtProcessReport(-2), "timeout")
    expect(INVALID_PARAM, lib.aclrtLaunchCallback(cb, ffi.NULL, 2, s), "blockType")
    expect(INVALID_PARAM, lib.aclrtLaunchCallback(cb, ffi.NULL, 0xFFFFFFFF, s), "blockType")
    expect(INVALID_PARAM, lib.aclrtLaunchCallback(ffi.NULL, ffi.NULL, NO_BLOCK, s), "fn")
    check(lib.aclrtUnSubscribeReport(threading.get_ident(), s))


def test_binding_rules(acl):
    """One processing thread per stream (107011, the same thread subscribing it again too:
    CbSubscribe::CheckForInsert), and a thread serves streams of one device only (107012)."""
    s, s2 = acl.stream(), acl.stream()
    a, b = threading.get_ident(), threading.get_ident() + 4096  # ids are plain numbers here
    check(lib.aclrtSubscribeReport(a, s))
    expect(RT_STREAM_SUBSCRIBE, lib.aclrtSubscribeReport(a, s), "already serves")
    expect(RT_STREAM_SUBSCRIBE, lib.aclrtSubscribeReport(b, s), "already served")
    check(lib.aclrtSubscribeReport(a, s2))  # one thread, several streams of one device
    ctx0 = ffi.new("aclrtContext *")
    check(lib.aclrtGetCurrentContext(ctx0))
    check(lib.aclrtSetDevice(1))
    try:
        s_dev1 = acl.stream()
        expect(RT_THREAD_SUBSCRIBE, lib.aclrtSubscribeReport(a, s_dev1), "device")
        check(lib.aclrtSubscribeReport(b, s_dev1))
        check(lib.aclrtUnSubscribeReport(b, s_dev1))
        check(lib.aclrtDestroyStream(s_dev1))
    finally:
        check(lib.aclrtSetCurrentContext(ctx0[0]))
        check(lib.aclrtResetDevice(1))
    for stream in (s, s2):
        check(lib.aclrtUnSubscribeReport(a, stream))


@pytest.mark.parametrize("block", [BLOCK, NO_BLOCK], ids=["block", "no_block"])
def test_blocking_callback_holds_its_stream(acl, k, block):
    """While an ACL_CALLBACK_BLOCK callback runs, later tasks of its stream wait; a NO_BLOCK
    callback lets them run at once."""
    s = acl.stream()
    d = acl.malloc(64)
    acl.zeros(d, 64)
    entered, release = threading.Event(), threading.Event()

    @ffi.callback("void(void *)")
    def hold(_: Any) -> None:
        entered.set()
        release.wait(5)

    def value() -> int:
        return int(acl.from_device(d, 1, np.int32)[0])

    with ReportThread() as rep:
        rep.subscribe(s)
        try:
            check(lib.aclrtLaunchCallback(hold, ffi.NULL, block, s))
            acl.launch(k.write_value, 1, s, ("ptr", d), ("uint32_t", 0), ("int32_t", 9))
            assert entered.wait(5), "the callback never ran"
            if block == BLOCK:
                time.sleep(0.1)
                assert value() == 0, "the kernel ran while the blocking callback was running"
                assert acl.query(s) == STREAM_NOT_READY
                expect(RT_STREAM_SYNC_TIMEOUT, lib.aclrtSynchronizeStreamWithTimeout(s, 50))
            else:
                assert wait_for(lambda: value() == 9, 2), "the kernel waited for a NO_BLOCK callback"
        finally:
            release.set()
        check(lib.aclrtSynchronizeStreamWithTimeout(s, 5000))
        assert value() == 9
        check(lib.aclrtUnSubscribeReport(rep.ident, s))


# --------------------------------------------------------------------------- native completion queue


class NativeQueue:
    """aiocann._native's completion queue with a C report thread subscribed to a stream."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        ctx = ffi.new("aclrtContext *")
        check(lib.aclrtGetCurrentContext(ctx))
        rc = ffi.new("aclError *")
        self.cq = lib.aiocann_cq_new(ctx[0], rc)
        check(rc[0], "aiocann_cq_new")
        self.fd = lib.aiocann_cq_fd(self.cq)
        self.reporter = lib.aiocann_reporter_start(ctx[0], rc)
        check(rc[0], "aiocann_reporter_start")
        self.tid = lib.aiocann_reporter_thread_id(self.reporter)
        check(lib.aclrtSubscribeReport(self.tid, stream))
        self.qs = lib.aiocann_cq_stream_new(self.cq, stream, 7, rc)
        check(rc[0], "aiocann_cq_stream_new")
        self._tokens = ffi.new("uint64_t[]", 256)
        self._status = ffi.new("int32_t[]", 256)
        self._messages = ffi.new("char *[]", 256)
        self.messages: dict[int, str] = {}
        self.early: dict[int, int] = {}

    def readable(self, timeout: float = 0.0) -> bool:
        return bool(select.select([self.fd], [], [], timeout)[0])

    def drain(self, max_items: int = 256) -> list[tuple[int, int]]:
        """The completions drained; the early reports of failures (AIOCANN_TASK_REPORT) go to
        ``early`` (token -> code)."""
        n = lib.aiocann_cq_drain(self.cq, self._tokens, self._status, self._messages, max_items)
        got = []
        for i in range(n):
            token, status = int(self._tokens[i]), int(self._status[i])
            if token & lib.AIOCANN_TASK_REPORT:
                self.early[token ^ lib.AIOCANN_TASK_REPORT] = status
                lib.aiocann_free(self._messages[i])
                continue
            if self._messages[i] != ffi.NULL:
                self.messages[token] = ffi.string(self._messages[i]).decode()
                lib.aiocann_free(self._messages[i])
            got.append((token, status))
        return got

    def collect(self, count: int, timeout: float = 10.0) -> list[tuple[int, int]]:
        got: list[tuple[int, int]] = []
        deadline = time.monotonic() + timeout
        while len(got) < count and time.monotonic() < deadline:
            if self.readable(min(0.1, max(0.0, deadline - time.monotonic()))):
                got += self.drain()
        return got

    def close(self) -> None:
        check(lib.aclrtUnSubscribeReport(self.tid, self.stream))
        check(lib.aiocann_reporter_stop(self.reporter))
        lib.aiocann_cq_stream_free(self.qs)
        lib.aiocann_cq_free(self.cq)


def test_native_completion_queue_one_token_per_launch(acl, k):
    s = acl.stream()
    d = acl.malloc(4 * 64)
    acl.zeros(d, 4 * 64)
    q = NativeQueue(s)
    try:
        launched = ffi.new("int *")
        n = 200
        for token in range(1, n + 1):
            args = KernelArgs(k.write_value)
            args.ptr(d)
            args.scalar("uint32_t", token % 64)
            args.scalar("int32_t", token)
            args.finalize()
            check(lib.aiocann_launch(q.qs, k.write_value, 1, ffi.NULL, args.handle, token, launched))
            assert launched[0] == 1
        got = q.collect(n)
        assert [t for t, _ in got] == list(range(1, n + 1))  # each exactly once, in stream order
        assert {st for _, st in got} == {0}
        assert not q.readable(0.05), "the eventfd stays readable with an empty queue"
        # A token is queued only once its launch has run: every write is visible now.
        expected = np.zeros(64, np.int32)
        for token in range(1, n + 1):
            expected[token % 64] = token
        np.testing.assert_array_equal(acl.from_device(d, 64, np.int32), expected)

        # Completions batch: ten launches, one drain of at most 4, the rest later.
        for token in range(1001, 1011):
            check(lib.aiocann_launch(q.qs, k.write_value, 1, ffi.NULL, args.handle, token, launched))
        acl.sync(s)
        deadline = time.monotonic() + 10  # the report thread may still be running the callbacks
        while lib.aiocann_cq_pending(q.cq) < 10 and time.monotonic() < deadline:
            time.sleep(0.001)
        assert lib.aiocann_cq_pending(q.cq) == 10
        first = q.drain(4)
        assert [t for t, _ in first] == [1001, 1002, 1003, 1004]
        assert q.readable(0)
        assert [t for t, _ in q.drain()] == list(range(1005, 1011))
        assert not q.readable(0)
    finally:
        q.close()


def test_native_completion_queue_drops_the_second_report_of_a_fault(test_kernels_path):
    """Where the driver supports millisecond operator timeouts the runtime reports a faulting
    kernel twice (the fast ring buffer, v100/device_error_proc.cc), the second time on the next
    thread that submits: here this one, after the fault's completion came. The queue drops it:
    no later completion fails, and no stream-level failure goes out."""
    with acl_session(AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US="1000") as rt:
        write, poke = rt.function(test_kernels_path, "write_value"), rt.function(test_kernels_path, "poke")
        s = rt.stream()
        buf = rt.malloc(4064)
        q = NativeQueue(s)
        try:
            launched = ffi.new("int *")
            ok = KernelArgs(write, 256)
            ok.ptr(buf)
            ok.scalar("uint32_t", 0)
            ok.scalar("int32_t", 1)
            ok.finalize()
            bad = KernelArgs(poke, 256)
            bad.ptr(buf)
            bad.scalar("uint64_t", 4096)
            bad.finalize()
            check(lib.aiocann_launch(q.qs, poke, 1, ffi.NULL, bad.handle, 1, launched))
            assert dict(q.collect(1)) == {1: RT_AICORE_EXCEPTION}
            # The second report waits in the fast ring buffer: the next launch takes it.
            for token in range(2, 6):
                check(lib.aiocann_launch(q.qs, write, 1, ffi.NULL, ok.handle, token, launched))
            got = q.collect(4)
            assert dict(got) == {2: 0, 3: 0, 4: 0, 5: 0}
            assert not [t for t, _ in got if t & lib.AIOCANN_STREAM_REPORT]  # no failure of the stream
            assert q.early == {1: RT_AICORE_EXCEPTION}  # one early word, for the first report only
            # A marker delivers every report still parked: there is none.
            check(lib.aiocann_cq_enqueue(q.qs, 6, 0))
            assert q.collect(1) == [(6, 0)]
        finally:
            q.close()


def test_native_completion_queue_fails_exactly_the_faulting_launch(acl, k):
    s = acl.stream()
    buf = acl.malloc(4064)
    q = NativeQueue(s)
    try:
        launched = ffi.new("int *")
        ok = KernelArgs(k.write_value, 256)
        ok.ptr(buf)
        ok.scalar("uint32_t", 0)
        ok.scalar("int32_t", 1)
        ok.finalize()
        bad = KernelArgs(k.poke, 256)
        bad.ptr(buf)
        bad.scalar("uint64_t", 4096)  # the guard page after the allocation
        bad.finalize()
        for token, fn, args in ((1, k.write_value, ok), (2, k.poke, bad), (3, k.write_value, ok)):
            check(lib.aiocann_launch(q.qs, fn, 1, ffi.NULL, args.handle, token, launched))
        got = dict(q.collect(3))
        # Exactly the faulting launch fails, with its code and the runtime's description; the
        # stream goes on (continue on failure) and the launch after it succeeds.
        assert got == {1: 0, 2: RT_AICORE_EXCEPTION, 3: 0}
        assert "poke" in q.messages[2] and set(q.messages) == {2}
        assert q.early == {2: RT_AICORE_EXCEPTION}  # and its report came ahead, as itself
        expect(RT_AICORE_EXCEPTION, sync_rc(s), "poke")  # reported once by synchronize...
        check(sync_rc(s))  # ...and then cleared
    finally:
        q.close()
