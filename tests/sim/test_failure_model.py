"""The simulator's failure model, call by call, against the real runtime's (hicann/runtime;
docs/fidelity.md names each source): exception-info callbacks and their ordering, task and
stream ids, the thread's last error, stop-on-failure contexts, event timestamps, unloading a
binary under queued launches, and pinned memory without a context."""

from __future__ import annotations

import threading
import time

import numpy as np
from acl_codes import RT_CONTEXT_NULL, RT_FEATURE_NOT_SUPPORT
from acl_util import (
    INVALID_PARAM,
    RT_AICORE_EXCEPTION,
    RT_INVALID_HANDLE,
    RT_PARAM_INVALID,
    Reports,
    acl_session,
    sync_rc,
)

from aiocann._lib import check, ffi, lib


def last_task_id() -> int:
    out = ffi.new("uint32_t *")
    check(lib.aclrtGetThreadLastTaskId(out))
    return int(out[0])


def stream_id(stream: object) -> int:
    out = ffi.new("int32_t *")
    check(lib.aclrtStreamGetId(stream, out))
    return int(out[0])


def test_exception_report_names_the_failed_task(acl, k):
    r = Reports()
    check(lib.aclrtExceptionInfoCallbackRegister(r.cb))
    check(lib.aclrtExceptionInfoCallbackRegister(r.cb))  # the same function again: one entry
    try:
        s = acl.stream()
        out, buf = acl.malloc(64), acl.malloc(64)
        acl.launch(k.write_value, 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
        ok_task = last_task_id()
        acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", 1 << 20))
        bad_task = last_task_id()
        assert bad_task != ok_task
        assert sync_rc(s) == RT_AICORE_EXCEPTION
        assert r.got == [
            {
                "task": bad_task,
                "stream": stream_id(s),
                "thread": threading.get_native_id(),
                "device": 0,
                "code": RT_AICORE_EXCEPTION,
            }
        ]
    finally:
        check(lib.aclrtExceptionInfoCallbackUnregister(r.cb))
    # Unregistered: no more reports; unregistering again is fine, NULL is not.
    acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", 1 << 20))
    assert sync_rc(s) == RT_AICORE_EXCEPTION and len(r.got) == 1
    check(lib.aclrtExceptionInfoCallbackUnregister(r.cb))
    assert lib.aclrtExceptionInfoCallbackRegister(ffi.NULL) == RT_PARAM_INVALID
    assert lib.aclrtExceptionInfoCallbackUnregister(ffi.NULL) == RT_PARAM_INVALID
    assert lib.aclrtGetTaskIdFromExceptionInfo(ffi.NULL) == 0xFFFFFFFF
    assert lib.aclrtGetErrorCodeFromExceptionInfo(ffi.NULL) == 0xFFFFFFFF


def test_the_deprecated_slot_and_the_registry_are_separate(acl, k):
    r = Reports()
    check(lib.aclrtSetExceptionInfoCallback(r.cb))
    check(lib.aclrtExceptionInfoCallbackRegister(r.cb))
    try:
        s = acl.stream()
        acl.launch(k.poke, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 1 << 20))
        assert sync_rc(s) == RT_AICORE_EXCEPTION
        assert len(r.got) == 2  # set both ways: called twice, as the real runtime does
    finally:
        check(lib.aclrtExceptionInfoCallbackUnregister(r.cb))
        check(lib.aclrtSetExceptionInfoCallback(ffi.NULL))  # NULL clears the slot


def test_the_report_comes_before_anything_after_the_failed_task(acl, k):
    """The stream moves past a failed task only once the exception callbacks have returned, so
    a host callback behind the task always runs after its report."""
    r = Reports()
    host = ffi.callback("aclrtCallback", lambda _: r.order.append("host"))
    stop = threading.Event()
    ctx = ffi.new("aclrtContext *")
    check(lib.aclrtGetCurrentContext(ctx))

    def process() -> None:
        lib.aclrtSetCurrentContext(ctx[0])
        while not stop.is_set():
            lib.aclrtProcessReport(50)

    t = threading.Thread(target=process)
    t.start()
    s = acl.stream()
    check(lib.aclrtSubscribeReport(t.ident, s))
    check(lib.aclrtExceptionInfoCallbackRegister(r.cb))
    try:
        buf = acl.malloc(64)
        for _ in range(20):
            acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", 1 << 20))
            check(lib.aclrtLaunchCallback(host, ffi.NULL, lib.ACL_CALLBACK_NO_BLOCK, s))
        assert sync_rc(s) == RT_AICORE_EXCEPTION
        deadline = time.monotonic() + 10
        while r.order.count("host") < 20 and time.monotonic() < deadline:
            time.sleep(0.005)
        # Each host callback runs after the report of the fault before it (reports of later
        # faults may overtake it: the host callbacks do not block their stream).
        assert r.order.count("exception") == r.order.count("host") == 20
        for i in range(1, len(r.order) + 1):
            assert r.order[:i].count("exception") >= r.order[:i].count("host"), r.order
    finally:
        check(lib.aclrtExceptionInfoCallbackUnregister(r.cb))
        check(lib.aclrtUnSubscribeReport(t.ident, s))
        stop.set()
        t.join()


def test_task_ids_count_every_task_of_a_stream(acl, k):
    s = acl.stream()
    out = acl.malloc(64)
    acl.launch(k.write_value, 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
    first = last_task_id()
    e = acl.record(s)  # an event record is a task too
    assert last_task_id() == first + 1
    check(lib.aclrtMemsetAsync(out, 64, 0, 64, s))
    assert last_task_id() == first + 2
    other = acl.stream()
    acl.launch(k.write_value, 1, other, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
    assert last_task_id() == 0  # per stream: a new stream's first task
    assert stream_id(s) != stream_id(other)
    assert stream_id(ffi.NULL) not in (stream_id(s), stream_id(other))  # the default stream
    got: list[int] = []
    t = threading.Thread(target=lambda: got.append(last_task_id()))
    t.start()
    t.join()
    assert got == [0xFFFFFFFF]  # per thread: nothing submitted yet
    check(lib.aclrtSynchronizeEvent(e))


def test_last_error_is_the_threads_last_runtime_failure(acl):
    lib.aclrtGetLastError(lib.ACL_RT_THREAD_LEVEL)  # what earlier tests on this thread left
    assert lib.aclrtGetLastError(lib.ACL_RT_THREAD_LEVEL) == 0
    assert lib.aclrtStreamQuery(ffi.cast("aclrtStream", 0x4242), ffi.new("aclrtStreamStatus *")) == RT_INVALID_HANDLE
    assert lib.aclrtPeekAtLastError(lib.ACL_RT_THREAD_LEVEL) == RT_INVALID_HANDLE  # peek keeps it
    check(lib.aclrtCreateStream(ffi.new("aclrtStream *")))  # a success does not clear it
    assert lib.aclrtMalloc(ffi.NULL, 64, 0) == INVALID_PARAM  # ACL-layer checks are not recorded
    assert lib.aclrtGetLastError(lib.ACL_RT_THREAD_LEVEL) == RT_INVALID_HANDLE
    assert lib.aclrtGetLastError(lib.ACL_RT_THREAD_LEVEL) == 0  # get cleared it
    assert lib.aclrtGetLastError(1) == INVALID_PARAM


def test_stop_on_failure_poisons_the_context(test_kernels_path):
    """aclrtSetStreamFailureMode(STOP) makes the whole context stop on failure: the failed
    stream's later tasks never run (its host callbacks neither), and every submission,
    synchronize and query in the context returns the failure, for good."""
    with acl_session() as acl:
        poke = acl.function(test_kernels_path, "poke")
        write = acl.function(test_kernels_path, "write_value")
        wait = acl.function(test_kernels_path, "wait_us")
        a, b = acl.stream(), acl.stream()
        assert lib.aclrtSetStreamFailureMode(a, 5) == 0  # only bit 0 counts: STOP
        check(lib.aclrtSetStreamFailureMode(a, lib.ACL_STOP_ON_FAILURE))  # same mode: no-op
        assert lib.aclrtSetStreamFailureMode(a, lib.ACL_CONTINUE_ON_FAILURE) == RT_FEATURE_NOT_SUPPORT
        # b keeps its own mode (Stream::failureMode_): continue is a no-op there, though the
        # context now stops on failure.
        check(lib.aclrtSetStreamFailureMode(b, lib.ACL_CONTINUE_ON_FAILURE))
        out = acl.malloc(64)
        acl.zeros(out, 64)
        acl.launch(wait, 1, a, ("ptr", acl.malloc(64)), ("uint64_t", 20_000))
        acl.launch(poke, 1, a, ("ptr", acl.malloc(64)), ("uint64_t", 1 << 20))
        acl.launch(write, 1, a, ("ptr", out), ("uint32_t", 0), ("int32_t", 7))  # queued: discarded
        e = acl.record(a)  # discarded too: on this STARS part it never happens (test_chip.py)
        assert sync_rc(a) == RT_AICORE_EXCEPTION
        assert sync_rc(a) == RT_AICORE_EXCEPTION  # sticky
        assert sync_rc(b) == RT_AICORE_EXCEPTION  # the whole context
        assert lib.aclrtStreamQuery(b, ffi.new("aclrtStreamStatus *")) == RT_AICORE_EXCEPTION
        assert lib.aclrtSynchronizeDevice() == RT_AICORE_EXCEPTION
        assert lib.aclrtSynchronizeEvent(e) == RT_AICORE_EXCEPTION
        assert lib.aclrtMemsetAsync(out, 64, 1, 64, b) == RT_AICORE_EXCEPTION
        assert lib.aclrtRecordEvent(acl.event(), b) == RT_AICORE_EXCEPTION
        assert acl.from_device(out, 1, np.int32).tolist() == [0]  # write_value never ran


def test_event_timestamps_are_device_microseconds(acl, k):
    s = acl.stream()
    before = time.monotonic()
    e1 = acl.record(s)
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 50_000))
    e2 = acl.record(s)
    check(sync_rc(s))
    t1, t2 = ffi.new("uint64_t *"), ffi.new("uint64_t *")
    check(lib.aclrtEventGetTimestamp(e1, t1))
    check(lib.aclrtEventGetTimestamp(e2, t2))
    assert 45_000 <= t2[0] - t1[0] < 1_000_000  # microseconds
    # Counted from the device's boot, not from its first use in this process: the simulated
    # devices boot with the machine, whose boot CLOCK_MONOTONIC (time.monotonic) counts from.
    assert before - 0.01 <= t1[0] / 1e6 <= time.monotonic() + 0.01
    ms = ffi.new("float *")
    check(lib.aclrtEventElapsedTime(ms, e1, e2))
    assert abs(ms[0] - (t2[0] - t1[0]) / 1000) < 1.0  # milliseconds


def test_unloading_a_binary_fails_its_queued_launches(acl, test_kernels_path):
    """aclrtBinaryUnLoad frees the code at once: a launch still queued behind a 100 ms kernel
    fails on its stream with 507015 instead of running freed code; the process carries on."""
    wait = acl.function(test_kernels_path, "wait_us")  # another binary: stays loaded
    bin_out, fn = ffi.new("aclrtBinHandle *"), ffi.new("aclrtFuncHandle *")
    check(lib.aclrtBinaryLoadFromFile(str(test_kernels_path).encode(), ffi.NULL, bin_out))
    check(lib.aclrtBinaryGetFunction(bin_out[0], b"write_value", fn))
    s = acl.stream()
    out = acl.malloc(64)
    acl.zeros(out, 64)
    acl.launch(wait, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 100_000))
    acl.launch(fn[0], 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 9))
    check(lib.aclrtBinaryUnLoad(bin_out[0]))
    assert sync_rc(s) == RT_AICORE_EXCEPTION
    assert acl.from_device(out, 1, np.int32).tolist() == [0]


def test_pinned_memory_needs_a_context(acl):
    got: list[int] = []
    t = threading.Thread(target=lambda: got.append(lib.aclrtMallocHost(ffi.new("void **"), 64)))
    t.start()
    t.join()
    assert got == [RT_CONTEXT_NULL]
