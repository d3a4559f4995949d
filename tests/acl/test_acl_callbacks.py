"""Host callbacks and report threads through aiocann.acl, written as pyACL programs write them:
``acl.util.start_thread`` running a ``process_report`` loop (and a plain ``threading.Thread``
subscribed by its ``ident``), ``subscribe_report``, ``launch_callback``, and the codes of every
misuse. Also what pyACL guarantees about the Python side: the callback runs in the processing
thread, the GIL is released while threads wait, exceptions are logged and not propagated,
and the callback and its user data are dropped once it has run."""

from __future__ import annotations

import ctypes
import gc
import logging
import signal
import threading
import time
import weakref

import numpy as np
import pytest
from pyacl_support import (
    ACL_CALLBACK_BLOCK,
    ACL_CALLBACK_NO_BLOCK,
    ACL_MEMCPY_DEVICE_TO_HOST,
    INVALID_PARAM,
    RT_REPORT_TIMEOUT,
    RT_STREAM_NO_CB_REG,
    RT_STREAM_SUBSCRIBE,
    RT_THREAD_SUBSCRIBE,
    SUCCESS,
    dev_alloc,
    from_device,
    in_thread,
    ok,
)

import aiocann.acl as acl
from aiocann.acl import rt as acl_rt

TIMEOUT_MS = 100  # the processing loops' process_report timeout, as in the ACL samples


class ReportLoop:
    """The body of a pyACL report thread: bind the context, then process_report until told to
    stop. Records every ret so a test can check the loop saw no unexpected code: 0, 507012 (no
    report in time) and 107012 (before subscribe_report / after unsubscribe_report, when the
    thread serves no stream -- it returns at once, so the loop naps instead of spinning)."""

    def __init__(self, context: int) -> None:
        self.context = context
        self.stop = threading.Event()
        self.rets: list[int] = []
        self.ident: int | None = None

    def __call__(self, _args: object = None) -> None:
        self.ident = threading.get_ident()
        assert acl.rt.set_context(self.context) == SUCCESS
        while not self.stop.is_set():
            ret = acl.rt.process_report(TIMEOUT_MS)
            self.rets.append(ret)
            if ret == RT_THREAD_SUBSCRIBE:
                time.sleep(0.002)

    def assert_clean(self) -> None:
        assert set(self.rets) <= {SUCCESS, RT_REPORT_TIMEOUT, RT_THREAD_SUBSCRIBE}, set(self.rets)
        assert SUCCESS in self.rets


# ----------------------------------------------------------------------- pyACL-style programs


def test_start_thread_report_loop(device, stream, sigint_restored):
    loop = ReportLoop(device)
    tid, ret = acl.util.start_thread(loop, [device])
    assert ret == SUCCESS and type(tid) is int and tid != 0
    ok(acl.rt.subscribe_report(tid, stream))

    seen: list[tuple[str, int]] = []

    def callback(user_data):
        time.sleep(0.05 if user_data == "slow" else 0)
        seen.append((user_data, threading.get_ident()))

    # Interleave device work and callbacks: a blocking callback holds the stream, so the
    # memset after it runs only once it has returned -- and synchronize_stream waits for all.
    buf = dev_alloc(64)
    ok(acl.rt.launch_callback(callback, "first", ACL_CALLBACK_NO_BLOCK, stream))
    ok(acl.rt.launch_callback(callback, "slow", ACL_CALLBACK_BLOCK, stream))
    ok(acl.rt.memset_async(buf, 64, 9, 64, stream))
    ok(acl.rt.launch_callback(callback, "last", ACL_CALLBACK_BLOCK, stream))
    ok(acl.rt.synchronize_stream(stream))

    assert seen == [("first", tid), ("slow", tid), ("last", tid)]  # in order, in the report thread
    assert loop.ident == tid  # the id start_thread returned is the thread's pthread_self()
    assert np.all(from_device(buf, 64, np.uint8) == 9)

    ok(acl.rt.unsubscribe_report(tid, stream))
    loop.stop.set()
    assert acl.util.stop_thread(tid) == SUCCESS
    loop.assert_clean()
    assert acl_rt._pending_callback_count() == 0
    ok(acl.rt.free(buf))


def test_plain_thread_subscribed_by_ident(device, stream):
    loop = ReportLoop(device)
    t = threading.Thread(target=loop)
    t.start()
    try:
        ok(acl.rt.subscribe_report(t.ident, stream))
        results: list[int] = []
        done = threading.Event()

        def callback(box):
            box.append(threading.get_ident())
            done.set()

        ok(acl.rt.launch_callback(callback, results, ACL_CALLBACK_BLOCK, stream))
        ok(acl.rt.synchronize_stream(stream))
        assert done.is_set() and results == [t.ident]
        ok(acl.rt.unsubscribe_report(t.ident, stream))
    finally:
        loop.stop.set()
        t.join(10)
    loop.assert_clean()


def test_default_stream_callbacks(device):
    """Stream 0 is the default stream for subscribe_report and launch_callback alike."""
    loop = ReportLoop(device)
    t = threading.Thread(target=loop)
    t.start()
    try:
        ok(acl.rt.subscribe_report(t.ident, 0))
        got: list[object] = []
        ok(acl.rt.launch_callback(got.append, {"n": 1}, ACL_CALLBACK_BLOCK, 0))
        ok(acl.rt.synchronize_stream(0))
        assert got == [{"n": 1}]
        ok(acl.rt.unsubscribe_report(t.ident, 0))
    finally:
        loop.stop.set()
        t.join(10)


def test_one_thread_serves_two_streams(device, sigint_restored):
    s1, s2 = ok(acl.rt.create_stream()), ok(acl.rt.create_stream())
    loop = ReportLoop(device)
    tid = ok(acl.util.start_thread(loop, None))  # args None: fn() is called without arguments
    try:
        ok(acl.rt.subscribe_report(tid, s1))
        ok(acl.rt.subscribe_report(tid, s2))
        got: list[tuple[int, int]] = []
        for i in range(10):
            ok(acl.rt.launch_callback(lambda d: got.append((d, threading.get_ident())), i, i % 2, (s1, s2)[i % 2]))
        ok(acl.rt.synchronize_stream(s1))
        ok(acl.rt.synchronize_stream(s2))
        deadline = time.monotonic() + 5  # the non-blocking ones may still be running
        while len(got) < 10 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sorted(d for d, _ in got) == list(range(10))
        assert {ident for _, ident in got} == {tid}
        ok(acl.rt.unsubscribe_report(tid, s1))
        ok(acl.rt.unsubscribe_report(tid, s2))
    finally:
        loop.stop.set()
        acl.util.stop_thread(tid)
    ok(acl.rt.destroy_stream(s1))
    ok(acl.rt.destroy_stream(s2))


# ----------------------------------------------------------------------- misuse codes


def test_callback_misuse_codes(device, stream):
    me = threading.get_ident()
    # No thread serves the stream yet.
    assert acl.rt.launch_callback(print, None, ACL_CALLBACK_NO_BLOCK, stream) == RT_STREAM_NO_CB_REG
    # The calling thread serves nothing.
    assert acl.rt.process_report(10) == RT_THREAD_SUBSCRIBE
    # Timeouts: 0 and below -1 are invalid.
    assert acl.rt.process_report(0) == INVALID_PARAM
    assert acl.rt.process_report(-2) == INVALID_PARAM

    ok(acl.rt.subscribe_report(me, stream))
    # The same thread again is 107011 too (CbSubscribe::CheckForInsert: the stream is in the map)
    assert acl.rt.subscribe_report(me, stream) == RT_STREAM_SUBSCRIBE
    assert acl.rt.subscribe_report(me + 1, stream) == RT_STREAM_SUBSCRIBE  # one thread per stream
    assert acl.rt.launch_callback(print, None, 2, stream) == INVALID_PARAM  # blockType not 0/1
    assert acl.rt.launch_callback(print, None, ACL_CALLBACK_BLOCK, 0xBAD) != SUCCESS
    t0 = time.monotonic()
    assert acl.rt.process_report(50) == RT_REPORT_TIMEOUT  # subscribed, nothing arrived
    assert time.monotonic() - t0 >= 0.04
    assert acl_rt._pending_callback_count() == 0  # failed launches keep nothing

    # Processing from the subscribed thread itself (no separate loop): a non-blocking callback.
    got: list[int] = []
    ok(acl.rt.launch_callback(got.append, 5, ACL_CALLBACK_NO_BLOCK, stream))
    assert acl.rt.process_report(1000) == SUCCESS
    assert got == [5]
    ok(acl.rt.unsubscribe_report(me, stream))
    assert acl.rt.unsubscribe_report(me, stream) == RT_STREAM_SUBSCRIBE
    assert acl.rt.launch_callback(print, None, ACL_CALLBACK_NO_BLOCK, stream) == RT_STREAM_NO_CB_REG


def test_thread_serves_one_device_only(runtime):
    ok(acl.rt.set_device(0))
    s0 = ok(acl.rt.create_stream())
    ctx1 = ok(acl.rt.create_context(1))
    s1 = ok(acl.rt.create_stream())
    me = threading.get_ident()
    ok(acl.rt.subscribe_report(me, s0))
    assert acl.rt.subscribe_report(me, s1) == RT_THREAD_SUBSCRIBE
    ok(acl.rt.unsubscribe_report(me, s0))
    ok(acl.rt.destroy_stream(s1))
    ok(acl.rt.destroy_context(ctx1))
    ok(acl.rt.set_device(0))
    ok(acl.rt.destroy_stream(s0))
    ok(acl.rt.reset_device(0))
    ok(acl.rt.reset_device(0))


# ----------------------------------------------------------------------- the Python side


def test_callback_exception_is_logged_not_propagated(device, stream, caplog):
    me = threading.get_ident()
    ok(acl.rt.subscribe_report(me, stream))
    got: list[str] = []

    def bad(data):
        raise ValueError(f"boom {data}")

    caplog.set_level(logging.ERROR, logger="aiocann.acl")
    ok(acl.rt.launch_callback(bad, "x", ACL_CALLBACK_NO_BLOCK, stream))
    ok(acl.rt.launch_callback(got.append, "after", ACL_CALLBACK_NO_BLOCK, stream))
    ok(acl.rt.synchronize_stream(stream))
    ret = acl.rt.process_report(1000)
    while ret == SUCCESS and len(got) < 1:  # both reports may not be queued by the same time
        ret = acl.rt.process_report(1000)
    assert ret == SUCCESS and got == ["after"]
    records = [r for r in caplog.records if r.name == "aiocann.acl"]
    assert len(records) == 1
    assert records[0].exc_info is not None and records[0].exc_info[0] is ValueError
    assert "boom x" in str(records[0].exc_info[1])
    ok(acl.rt.unsubscribe_report(me, stream))


def test_callback_and_user_data_dropped_after_run(device, stream):
    class Payload:
        pass

    me = threading.get_ident()
    ok(acl.rt.subscribe_report(me, stream))
    payload = Payload()
    ran: list[bool] = []

    def make_callback():
        def cb(data):
            ran.append(isinstance(data, Payload))

        return cb

    cb = make_callback()
    refs = weakref.ref(payload), weakref.ref(cb)
    ok(acl.rt.launch_callback(cb, payload, ACL_CALLBACK_NO_BLOCK, stream))
    del payload, cb
    gc.collect()
    assert all(r() is not None for r in refs)  # held by the facade until the callback runs
    assert acl_rt._pending_callback_count() == 1
    ok(acl.rt.synchronize_stream(stream))
    assert acl.rt.process_report(1000) == SUCCESS
    assert ran == [True]
    gc.collect()
    assert all(r() is None for r in refs)  # and dropped right after
    assert acl_rt._pending_callback_count() == 0

    # A launch that fails keeps nothing either.
    payload2 = Payload()
    ref2 = weakref.ref(payload2)
    ok(acl.rt.unsubscribe_report(me, stream))
    assert acl.rt.launch_callback(print, payload2, ACL_CALLBACK_NO_BLOCK, stream) == RT_STREAM_NO_CB_REG
    del payload2
    gc.collect()
    assert ref2() is None


def test_finalize_drops_undelivered_callbacks(device, stream):
    me = threading.get_ident()
    ok(acl.rt.subscribe_report(me, stream))
    ok(acl.rt.launch_callback(print, "never", ACL_CALLBACK_NO_BLOCK, stream))
    ok(acl.rt.synchronize_stream(stream))
    assert acl_rt._pending_callback_count() == 1
    ok(acl.rt.unsubscribe_report(me, stream))
    ok(acl.rt.destroy_stream(stream))
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    assert acl_rt._pending_callback_count() == 0
    ok(acl.init())  # the fixtures finalize again
    ok(acl.rt.set_device(0))


@pytest.mark.parametrize("teardown", ["finalize", "reset_device_force"])
def test_teardown_drops_a_blocking_callback_nobody_processes(device, stream, teardown):
    """A blocking callback whose thread never calls process_report holds its stream; acl.finalize
    and reset_device_force must not wait for it (they hung): the callback is dropped and never
    runs, and the work behind it still drains."""
    me = threading.get_ident()
    ok(acl.rt.subscribe_report(me, stream))
    ran: list[object] = []
    ok(acl.rt.launch_callback(ran.append, "never", ACL_CALLBACK_BLOCK, stream))
    ptr = dev_alloc(64)
    ok(acl.rt.memset_async(ptr, 64, 7, 64, stream))  # queued behind the callback

    def tear_down() -> int:
        return acl.finalize() if teardown == "finalize" else acl.rt.reset_device_force(0)

    done: list[int] = []
    t = threading.Thread(target=lambda: done.append(tear_down()), daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), f"{teardown} waited for a callback nobody processes"
    assert done == [SUCCESS]
    assert acl.rt.process_report(50) == RT_THREAD_SUBSCRIBE  # the subscription went with it
    assert ran == []
    if teardown == "finalize":
        assert acl_rt._pending_callback_count() == 0
        ok(acl.init())  # the fixtures finalize again
    ok(acl.rt.set_device(0))


def test_waiting_calls_release_the_gil(device, stream):
    """process_report waits without the GIL: the main thread keeps running Python meanwhile.
    And synchronize_stream does too, or the report thread could never run the blocking
    callback the stream is waiting for (that would deadlock, not just be slow)."""
    me_ready = threading.Event()
    waited: list[float] = []

    def idle_reporter():
        ok(acl.rt.set_context(device))
        s = ok(acl.rt.create_stream())
        ok(acl.rt.subscribe_report(threading.get_ident(), s))
        me_ready.set()
        t0 = time.monotonic()
        assert acl.rt.process_report(600) == RT_REPORT_TIMEOUT
        waited.append(time.monotonic() - t0)
        ok(acl.rt.unsubscribe_report(threading.get_ident(), s))
        ok(acl.rt.destroy_stream(s))

    t = threading.Thread(target=idle_reporter)
    t.start()
    me_ready.wait(10)
    t0 = time.monotonic()
    total = sum(range(200_000))  # pure Python: needs the GIL
    elapsed = time.monotonic() - t0
    t.join(10)
    assert total == 199_999 * 200_000 // 2
    assert waited and waited[0] >= 0.55
    assert elapsed < 0.5, f"main thread starved for {elapsed:.3f}s while another thread waited"

    # synchronize_stream waiting on a blocking callback that needs the GIL to run.
    loop = ReportLoop(device)
    rt_thread = threading.Thread(target=loop)
    rt_thread.start()
    try:
        ok(acl.rt.subscribe_report(rt_thread.ident, stream))
        hits: list[int] = []
        ok(acl.rt.launch_callback(lambda _: hits.append(sum(range(1000))), None, ACL_CALLBACK_BLOCK, stream))
        ok(acl.rt.synchronize_stream(stream))
        assert hits == [499500]
        ok(acl.rt.unsubscribe_report(rt_thread.ident, stream))
    finally:
        loop.stop.set()
        rt_thread.join(10)


# ----------------------------------------------------------------------- acl.util threads


def test_stop_thread_reports_exceptions(runtime, sigint_restored):
    def fails(args):
        raise ValueError(f"bad {args}")

    tid, ret = acl.util.start_thread(fails, 1)
    assert ret == SUCCESS
    with pytest.raises(RuntimeError, match=r"exception=ValueError,msg=thread call failed;"):
        acl.util.stop_thread(tid)
    assert acl.util.stop_thread(tid) == 3  # ESRCH: already joined

    seen: list[object] = []
    tid, ret = acl.util.start_thread(lambda *a: seen.append(a), None)
    assert acl.util.stop_thread(tid) == SUCCESS
    assert seen == [()]  # args None: called with no argument
    tid, ret = acl.util.start_thread(lambda *a: seen.append(a), (1, 2))
    assert acl.util.stop_thread(tid) == SUCCESS
    assert seen[-1] == ((1, 2),)  # args passed as one positional argument

    assert acl.util.stop_thread(12345) == 3  # not a thread start_thread made
    assert signal.getsignal(signal.SIGINT) == signal.SIG_DFL  # reset, as pyACL does


def test_stop_thread_from_itself(runtime, sigint_restored):
    box: list[int] = []
    done = threading.Event()

    def body(_):
        box.append(acl.util.stop_thread(threading.get_ident()))
        done.set()

    tid, _ = acl.util.start_thread(body, 0)
    assert done.wait(10)
    assert acl.util.stop_thread(tid) == SUCCESS
    assert box == [35]  # EDEADLK


def test_start_thread_runs_concurrently(runtime, sigint_restored):
    """Each started thread is its own OS thread with its own pthread id."""
    barrier = threading.Barrier(3, timeout=10)
    ids: list[int] = []

    def body(_):
        ids.append(threading.get_ident())
        barrier.wait()

    tids = [ok(acl.util.start_thread(body, i)) for i in range(2)]
    barrier.wait()
    for tid in tids:
        assert acl.util.stop_thread(tid) == SUCCESS
    assert sorted(ids) == sorted(tids) and len(set(tids)) == 2


def test_report_thread_result_visible_to_device(device, stream, sigint_restored):
    """A blocking callback can fill host memory that a later copy on the same stream reads:
    the stream does not move on until the callback has returned."""
    loop = ReportLoop(device)
    tid = ok(acl.util.start_thread(loop, None))
    ok(acl.rt.subscribe_report(tid, stream))
    host = ok(acl.rt.malloc_host(16))
    dev = dev_alloc(16)
    out = bytes(16)

    def fill(_):
        time.sleep(0.05)  # the copy below would read zeros if the stream did not wait
        ctypes.memmove(host, b"from-callback!!!", 16)

    ok(acl.rt.launch_callback(fill, None, ACL_CALLBACK_BLOCK, stream))
    ok(acl.rt.memcpy_async(dev, 16, host, 16, 1, stream))
    ok(acl.rt.memcpy_async(acl.util.bytes_to_ptr(out), 16, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST, stream))
    ok(acl.rt.synchronize_stream(stream))
    assert out == b"from-callback!!!"
    ok(acl.rt.unsubscribe_report(tid, stream))
    loop.stop.set()
    assert acl.util.stop_thread(tid) == SUCCESS
    ok(acl.rt.free(dev))
    ok(acl.rt.free_host(host))
    assert in_thread(lambda: acl.rt.process_report(1)) == RT_THREAD_SUBSCRIBE
