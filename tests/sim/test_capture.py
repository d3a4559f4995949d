"""Stream capture (ACL Graph) in the simulator, call by call through the raw binding, against
the real runtime (hicann/runtime; docs/fidelity.md, "Stream capture", names each source):
capture and replay, what each capture mode forbids, capture across streams through events,
task groups and their update, how a replay reports a failure, and every misuse's code."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from acl_codes import (
    RT_CAPTURE_DEPENDENCY,
    RT_CAPTURE_MODE_BLOCK_ASYNC,
    RT_CAPTURE_MODE_NOT_SUPPORT,
    RT_EVENT_CAPTURED,
    RT_INTERNAL_ERROR,
    RT_MODEL_CAPTURED,
    RT_MODEL_CONTEXT,
    RT_MODEL_RUNNING,
    RT_STREAM_CAPTURE_IMPLICIT,
    RT_STREAM_CAPTURE_INVALIDATED,
    RT_STREAM_CAPTURE_UNMATCHED,
    RT_STREAM_CAPTURE_WRONG_THREAD,
    RT_STREAM_CAPTURED,
    RT_STREAM_MODEL,
    RT_STREAM_NOT_CAPTURED,
    RT_STREAM_UNJOINED,
    RT_TASK_TYPE_NOT_SUPPORT,
    STREAM_CAPTURE_CONFLICT,
    STREAM_TASK_GROUP_INTR,
    STREAM_TASK_GROUP_STATUS,
)
from acl_util import (
    D2H,
    H2D,
    INVALID_PARAM,
    RT_AICORE_EXCEPTION,
    RT_FEATURE_NOT_SUPPORT,
    RT_INVALID_HANDLE,
    RT_PARAM_INVALID,
    RT_STREAM_CONTEXT,
    KernelArgs,
    ReportThread,
    acl_session,
    expect,
    launch_rc,
    sync_rc,
)

from aiocann._lib import check, ffi, lib

GLOBAL, THREAD_LOCAL, RELAXED = 0, 1, 2  # aclmdlRICaptureMode
NONE, ACTIVE = 0, 1  # aclmdlRICaptureStatus
EVENT_SYNC, EVENT_TIME_LINE, EVENT_EXTERNAL = 0x1, 0x8, 0x20


# --------------------------------------------------------------------------- helpers


def begin(stream: Any, mode: int = GLOBAL) -> int:
    return int(lib.aclmdlRICaptureBegin(stream, mode))


def end(stream: Any) -> tuple[int, Any]:
    out = ffi.new("aclmdlRI *")
    rc = int(lib.aclmdlRICaptureEnd(stream, out))
    return rc, out[0]


def end_ok(stream: Any) -> Any:
    rc, model = end(stream)
    check(rc, "aclmdlRICaptureEnd")
    assert model != ffi.NULL
    return model


def info(stream: Any) -> tuple[int, Any]:
    status, model = ffi.new("aclmdlRICaptureStatus *"), ffi.new("aclmdlRI *")
    check(lib.aclmdlRICaptureGetInfo(stream, status, model), "aclmdlRICaptureGetInfo")
    return int(status[0]), model[0]


def execute(model: Any, stream: Any) -> int:
    return int(lib.aclmdlRIExecuteAsync(model, stream))


def exchange(mode: int) -> int:
    m = ffi.new("aclmdlRICaptureMode *", mode)
    check(lib.aclmdlRICaptureThreadExchangeMode(m), "aclmdlRICaptureThreadExchangeMode")
    return int(m[0])


@contextlib.contextmanager
def thread_mode(mode: int) -> Iterator[None]:
    """This thread's exchanged capture mode for the block (it is thread-local and lasts)."""
    old = exchange(mode)
    try:
        yield
    finally:
        exchange(old)


def ex_event(flag: int = EVENT_SYNC) -> Any:
    out = ffi.new("aclrtEvent *")
    check(lib.aclrtCreateEventExWithFlag(out, flag), "aclrtCreateEventExWithFlag")
    return out[0]


def event_with_flag(flag: int) -> Any:
    out = ffi.new("aclrtEvent *")
    check(lib.aclrtCreateEventWithFlag(out, flag), "aclrtCreateEventWithFlag")
    return out[0]


def last_task_id() -> int:
    out = ffi.new("uint32_t *")
    check(lib.aclrtGetThreadLastTaskId(out))
    return int(out[0])


def stream_id(stream: Any) -> int:
    out = ffi.new("int32_t *")
    check(lib.aclrtStreamGetId(stream, out))
    return int(out[0])


def ints(acl: Any, dptr: Any, n: int) -> list[int]:
    return acl.from_device(dptr, n, np.int32).tolist()


def current_context() -> Any:
    ctx = ffi.new("aclrtContext *")
    check(lib.aclrtGetCurrentContext(ctx))
    return ctx[0]


def in_thread(ctx: Any, fn: Any) -> Any:
    """Runs fn() on a new thread whose current context is ctx; returns what it returned."""
    got: list[Any] = []

    def main() -> None:
        check(lib.aclrtSetCurrentContext(ctx))
        got.append(fn())

    t = threading.Thread(target=main)
    t.start()
    t.join(20)
    assert not t.is_alive()
    assert got, "the thread failed"
    return got[0]


def pinned(nbytes: int) -> Any:
    out = ffi.new("void **")
    check(lib.aclrtMallocHost(out, nbytes), "aclrtMallocHost")
    return out[0]


class Reports:
    """An exception-info callback that records what every report says."""

    def __init__(self) -> None:
        self.got: list[dict[str, int]] = []
        self.cb = ffi.callback("aclrtExceptionInfoCallback", self._on)

    def _on(self, info: Any) -> None:
        self.got.append(
            {
                "task": lib.aclrtGetTaskIdFromExceptionInfo(info),
                "stream": lib.aclrtGetStreamIdFromExceptionInfo(info),
                "code": lib.aclrtGetErrorCodeFromExceptionInfo(info),
            }
        )


# --------------------------------------------------------------------------- capture and replay


def test_a_capture_records_tasks_and_a_replay_runs_them_as_one_task(acl, k):
    s, other = acl.stream(), acl.stream()
    out = acl.malloc(64)
    acl.zeros(out, 64)
    expect(0, begin(s))
    assert info(s)[0] == ACTIVE
    for i in range(5):  # five kernels, captured: none runs now
        acl.launch(k.add_value, 1, s, ("ptr", out), ("uint32_t", i), ("int32_t", i + 1))
    assert last_task_id() == 4  # captured tasks get ids on the capture
    model = end_ok(s)
    assert info(s) == (NONE, ffi.NULL)
    assert ints(acl, out, 5) == [0, 0, 0, 0, 0]

    ids = []
    for stream in (s, other, other):  # any stream, as often as wanted
        expect(0, execute(model, stream))
        ids.append(last_task_id())
    assert ids[2] == ids[1] + 1  # one task per replay, whatever the model holds
    check(sync_rc(s))
    check(sync_rc(other))
    assert ints(acl, out, 5) == [3, 6, 9, 12, 15]
    expect(0, lib.aclmdlRIDestroy(model))
    expect(RT_INVALID_HANDLE, lib.aclmdlRIDestroy(model), "not a live model")
    expect(RT_INVALID_HANDLE, execute(model, s), "not a live model")


def test_a_model_outlives_the_stream_it_was_captured_on(acl, k):
    # The capture records into streams of the model's own (Context::StreamAddToCaptureModelProc
    # creates them), so destroying the stream the capture began on leaves the model whole.
    s, other = acl.stream(), acl.stream()
    out = acl.malloc(64)
    acl.zeros(out, 64)
    check(begin(s))
    acl.launch(k.add_value, 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 5))
    model = end_ok(s)
    check(execute(model, s))
    check(sync_rc(s))
    expect(0, lib.aclrtDestroyStream(s))
    for _ in range(2):
        expect(0, execute(model, other))
    check(sync_rc(other))
    assert ints(acl, out, 1) == [15]
    check(lib.aclmdlRIDestroy(model))


def test_replays_run_in_capture_order_on_the_executing_stream(acl, k):
    s, x = acl.stream(), acl.stream()
    out = acl.malloc(64)
    acl.zeros(out, 64)
    check(begin(s))
    for _ in range(3):  # out = out * 2 + 1: order-sensitive
        acl.launch(k.affine, 4, s, ("ptr", out), ("uint32_t", 8))
    model = end_ok(s)
    acl.launch(k.wait_us, 1, x, ("ptr", acl.malloc(64)), ("uint64_t", 30_000))  # ahead of the replay
    check(execute(model, x))
    acl.launch(k.write_value, 1, x, ("ptr", out), ("uint32_t", 0), ("int32_t", -1))  # behind it
    check(sync_rc(x))
    assert ints(acl, out, 8) == [-1] + [7] * 7
    check(lib.aclmdlRIDestroy(model))


def test_kernel_args_are_copied_when_captured(acl, k):
    s = acl.stream()
    out = acl.malloc(64)
    acl.zeros(out, 64)
    args = KernelArgs(k.write_value)
    args.ptr(out)
    args.scalar("uint32_t", 0)
    value = args.scalar("int32_t", 11)
    args.finalize()
    check(begin(s))
    check(launch_rc(k.write_value, 1, s, args))
    args.update(value, "int32_t", 22)  # after the launch: not what the capture holds
    model = end_ok(s)
    check(execute(model, s))
    check(sync_rc(s))
    assert ints(acl, out, 1) == [11]
    check(lib.aclmdlRIDestroy(model))


def test_copies_memsets_and_host_callbacks_are_captured(acl, k):
    s = acl.stream()
    dev = acl.malloc(256)
    host_in, host_out, host_out2 = pinned(64), pinned(64), pinned(32)
    ffi.memmove(host_in, np.arange(16, dtype=np.int32).tobytes(), 64)
    calls: list[int] = []
    cb = ffi.callback("aclrtCallback", lambda _: calls.append(1))
    with ReportThread() as rt:
        rt.subscribe(s)
        check(begin(s))
        check(lib.aclrtMemsetAsync(dev, 256, 0, 256, s))
        check(lib.aclrtMemcpyAsync(dev, 64, host_in, 64, H2D, s))
        acl.launch(k.add_value, 1, s, ("ptr", dev), ("uint32_t", 0), ("int32_t", 100))
        check(lib.aclrtMemcpyAsync(host_out, 64, dev, 64, D2H, s))
        check(lib.aclrtMemcpy2dAsync(host_out2, 8, dev, 16, 8, 4, D2H, s))  # columns 0-1 of 4 rows
        check(lib.aclrtLaunchCallback(cb, ffi.NULL, lib.ACL_CALLBACK_BLOCK, s))
        model = end_ok(s)
        assert calls == []
        for _ in range(2):
            check(execute(model, s))
        check(sync_rc(s))
        got = np.frombuffer(ffi.buffer(host_out, 64), np.int32).tolist()
        assert got == [100] + list(range(1, 16))  # the memset and the copy ran on every replay
        assert np.frombuffer(ffi.buffer(host_out2, 32), np.int32).tolist() == [100, 1, 4, 5, 8, 9, 12, 13]
        assert calls == [1, 1]
        check(lib.aclrtMemsetAsync(dev, 256, 0, 256, s))
        check(sync_rc(s))
        check(lib.aclmdlRIDestroy(model))
        check(lib.aclrtUnSubscribeReport(rt.ident, s))
    for h in (host_in, host_out, host_out2):
        check(lib.aclrtFreeHost(h))


def test_begin_end_and_get_info_misuse(acl, k):
    s = acl.stream()
    expect(INVALID_PARAM, begin(ffi.NULL), "stream")
    expect(RT_PARAM_INVALID, begin(s, 3), "not a capture mode")
    expect(RT_STREAM_NOT_CAPTURED, end(s)[0], "not capturing")
    expect(INVALID_PARAM, lib.aclmdlRICaptureGetInfo(s, ffi.NULL, ffi.NULL), "cannot both be NULL")
    assert info(s) == (NONE, ffi.NULL)
    check(begin(s))
    status, model = info(s)
    assert status == ACTIVE and model != ffi.NULL
    expect(RT_STREAM_CAPTURED, begin(s), "already capturing")
    expect(RT_PARAM_INVALID, lib.aclmdlRICaptureEnd(s, ffi.NULL), "modelRI")
    # The model of a capture in progress can be named, but neither run nor destroyed.
    expect(RT_MODEL_CAPTURED, execute(model, acl.stream()), "still capturing")
    expect(RT_MODEL_CAPTURED, lib.aclmdlRIDestroy(model), "still capturing")
    assert end_ok(s) == model
    expect(INVALID_PARAM, lib.aclmdlRIExecuteAsync(ffi.NULL, s))
    expect(INVALID_PARAM, lib.aclmdlRIDestroy(ffi.NULL))
    check(lib.aclmdlRIDestroy(model))
    expect(RT_INVALID_HANDLE, begin(ffi.cast("aclrtStream", 0x4242)))
    # A stream of another device is not in the current context.
    other = acl.stream()
    check(lib.aclrtSetDevice(1))
    try:
        expect(RT_STREAM_CONTEXT, begin(other), "current context")
    finally:
        check(lib.aclrtResetDevice(1))
        check(lib.aclrtSetDevice(0))


def test_a_capturing_stream_cannot_be_synchronized_queried_or_destroyed(acl, k):
    s, x = acl.stream(), acl.stream()
    check(begin(s))
    acl.launch(k.write_value, 1, s, ("ptr", acl.malloc(64)), ("uint32_t", 0), ("int32_t", 1))
    expect(RT_STREAM_CAPTURED, lib.aclrtSynchronizeStream(s), "capturing")
    expect(RT_STREAM_CAPTURED, lib.aclrtSynchronizeStreamWithTimeout(s, 100), "capturing")
    expect(RT_STREAM_CAPTURED, lib.aclrtStreamQuery(s, ffi.new("aclrtStreamStatus *")), "capturing")
    expect(RT_STREAM_CAPTURED, lib.aclrtDestroyStream(s), "capturing")
    expect(RT_STREAM_CAPTURED, lib.aclrtDestroyStreamForce(s), "capturing")
    tag = ffi.new("aclrtStreamAttrValue *")
    tag.userCustomTag = 5
    expect(RT_STREAM_CAPTURED, lib.aclrtSetStreamAttribute(s, lib.ACL_STREAM_ATTR_USER_CUSTOM_TAG, tag), "capturing")
    expect(RT_STREAM_CAPTURED, lib.aclrtSynchronizeDevice(), "capturing")
    check(sync_rc(x))  # other streams are not affected
    model = end_ok(s)
    check(lib.aclrtSynchronizeDevice())
    check(begin(x))
    expect(RT_STREAM_CAPTURED, execute(model, x), "capturing")  # nor run a model
    check(lib.aclmdlRIDestroy(end_ok(x)))
    check(lib.aclmdlRIDestroy(model))
    check(lib.aclrtDestroyStream(s))


def test_model_belongs_to_the_context_it_was_captured_in(acl, k):
    s = acl.stream()
    check(begin(s))
    acl.launch(k.write_value, 1, s, ("ptr", acl.malloc(64)), ("uint32_t", 0), ("int32_t", 1))
    model = end_ok(s)
    home = current_context()
    ctx = ffi.new("aclrtContext *")
    check(lib.aclrtCreateContext(ctx, 0))  # becomes current
    try:
        expect(RT_MODEL_CONTEXT, execute(model, ffi.NULL), "another context")
        expect(RT_MODEL_CONTEXT, lib.aclmdlRIDestroy(model), "another context")
    finally:
        check(lib.aclrtSetCurrentContext(home))
        check(lib.aclrtDestroyContext(ctx[0]))
    check(execute(model, ffi.NULL))  # the default stream is fine to execute on
    check(sync_rc(ffi.NULL))
    check(lib.aclmdlRIDestroy(model))


# --------------------------------------------------------------------------- capture modes


def sync_copy_rc(acl: Any, dev: Any) -> int:
    host = np.zeros(4, np.int32)
    return int(lib.aclrtMemcpy(dev, 16, ffi.from_buffer(host), 16, H2D))


def sync_copy_2d_rc(dev: Any) -> int:
    host = np.zeros(8, np.int32)
    return int(lib.aclrtMemcpy2d(dev, 16, ffi.from_buffer(host), 16, 16, 2, H2D))


@pytest.mark.parametrize(
    ("mode", "own", "own_exchanged", "other", "other_exchanged"),
    [
        # Context::IsCaptureModeSupport: who may make an unsafe (synchronous) call
        (GLOBAL, False, {THREAD_LOCAL: False, RELAXED: True}, False, {THREAD_LOCAL: True, RELAXED: True}),
        (THREAD_LOCAL, False, {THREAD_LOCAL: False, RELAXED: True}, True, {THREAD_LOCAL: True, RELAXED: True}),
        (RELAXED, True, {THREAD_LOCAL: True, RELAXED: True}, True, {THREAD_LOCAL: True, RELAXED: True}),
    ],
)
def test_capture_modes_decide_who_may_make_synchronous_calls(acl, mode, own, own_exchanged, other, other_exchanged):
    s = acl.stream()
    dev = acl.malloc(64)
    ctx = current_context()
    code = {True: 0, False: RT_CAPTURE_MODE_NOT_SUPPORT}
    expect(0, sync_copy_rc(acl, dev))  # no capture: anything goes
    check(begin(s, mode))
    try:
        expect(code[own], sync_copy_rc(acl, dev), *(("RELAXED",) if not own else ()))
        expect(code[own], lib.aclrtMemset(dev, 64, 0, 64))
        expect(code[own], sync_copy_2d_rc(dev))
        for m, allowed in own_exchanged.items():
            with thread_mode(m):
                assert sync_copy_rc(acl, dev) == code[allowed], k_name(m)
        assert in_thread(ctx, lambda: sync_copy_rc(acl, dev)) == code[other]
        for m, allowed in other_exchanged.items():

            def exchanged(m: int = m) -> int:
                with thread_mode(m):
                    return sync_copy_rc(acl, dev)

            assert in_thread(ctx, exchanged) == code[allowed], k_name(m)
    finally:
        check(lib.aclmdlRIDestroy(end_ok(s)))
    expect(0, sync_copy_rc(acl, dev))


def k_name(mode: int) -> str:
    return ("GLOBAL", "THREAD_LOCAL", "RELAXED")[mode]


def test_exchange_mode_swaps_the_threads_mode(acl):
    assert exchange(RELAXED) == GLOBAL  # GLOBAL until exchanged
    assert exchange(THREAD_LOCAL) == RELAXED
    assert exchange(GLOBAL) == THREAD_LOCAL
    bad = ffi.new("aclmdlRICaptureMode *", 3)
    expect(RT_PARAM_INVALID, lib.aclmdlRICaptureThreadExchangeMode(bad), "not a capture mode")
    expect(INVALID_PARAM, lib.aclmdlRICaptureThreadExchangeMode(ffi.NULL))


def test_a_pageable_copy_cannot_be_captured_and_becomes_a_synchronous_one(acl, k):
    s, x = acl.stream(), acl.stream()
    dev = acl.malloc(64)
    host = np.zeros(4, np.int32)  # pageable: not from aclrtMallocHost
    check(begin(s))
    expect(RT_PARAM_INVALID, lib.aclrtMemcpyAsync(dev, 16, ffi.from_buffer(host), 16, H2D, s), "pageable")
    expect(RT_PARAM_INVALID, lib.aclrtMemcpy2dAsync(dev, 8, ffi.from_buffer(host), 8, 8, 2, H2D, s), "pageable")
    # On another stream it turns into a synchronize plus a synchronous copy, which GLOBAL forbids.
    acl.launch(k.wait_us, 1, x, ("ptr", acl.malloc(64)), ("uint64_t", 20_000))
    expect(RT_CAPTURE_MODE_BLOCK_ASYNC, lib.aclrtMemcpyAsync(dev, 16, ffi.from_buffer(host), 16, H2D, x), "pageable")
    assert acl.query(x) == 0  # the stream was synchronized first
    with thread_mode(RELAXED):
        host[:] = 5
        expect(0, lib.aclrtMemcpyAsync(dev, 16, ffi.from_buffer(host), 16, H2D, x))
    check(lib.aclmdlRIDestroy(end_ok(s)))
    assert ints(acl, dev, 4) == [5, 5, 5, 5]


def test_ending_a_capture_on_another_thread(acl, k):
    ctx = current_context()
    s = acl.stream()

    def begin_here(mode: int) -> Any:
        check(begin(s, mode))
        acl.launch(k.write_value, 1, s, ("ptr", acl.malloc(64)), ("uint32_t", 0), ("int32_t", 1))
        return info(s)[1]

    model = in_thread(ctx, lambda: begin_here(GLOBAL))
    expect(RT_STREAM_CAPTURE_WRONG_THREAD, end(s)[0], "thread")
    assert info(s) == (NONE, ffi.NULL)  # the capture is abandoned
    expect(RT_INVALID_HANDLE, lib.aclmdlRIDestroy(model))
    expect(0, sync_copy_rc(acl, acl.malloc(64)))  # and no longer restricts anything
    in_thread(ctx, lambda: begin_here(RELAXED))
    model = end_ok(s)  # a RELAXED capture may end anywhere
    check(lib.aclmdlRIDestroy(model))


# --------------------------------------------------------------------------- across streams


def test_a_stream_that_waits_on_a_captured_record_joins_the_capture(acl, k):
    s1, s2, s3, x = acl.stream(), acl.stream(), acl.stream(), acl.stream()
    out = acl.malloc(64)
    acl.zeros(out, 64)
    e1, e2, e3 = ex_event(), ex_event(), ex_event()
    check(begin(s1))
    acl.launch(k.write_value, 1, s1, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
    check(lib.aclrtRecordEvent(e1, s1))
    expect(RT_EVENT_CAPTURED, lib.aclrtSynchronizeEvent(e1), "capture")
    expect(RT_EVENT_CAPTURED, lib.aclrtQueryEventStatus(e1, ffi.new("aclrtEventRecordedStatus *")), "capture")
    expect(RT_EVENT_CAPTURED, lib.aclrtQueryEvent(e1, ffi.new("aclrtEventStatus *")), "capture")
    expect(RT_EVENT_CAPTURED, lib.aclrtQueryEventWaitStatus(e1, ffi.new("aclrtEventWaitStatus *")), "capture")
    check(lib.aclrtStreamWaitEvent(s2, e1))  # s2 joins
    status, model = info(s2)
    assert status == ACTIVE and model == info(s1)[1]
    acl.launch(k.affine, 1, s2, ("ptr", out), ("uint32_t", 1))  # out[0] = 2 * 1 + 1
    check(lib.aclrtRecordEvent(e2, s2))
    check(lib.aclrtStreamWaitEvent(s3, e2))  # s3 joins through s2
    acl.launch(k.affine, 1, s3, ("ptr", out), ("uint32_t", 1))  # out[0] = 7
    check(lib.aclrtRecordEvent(e3, s3))
    check(lib.aclrtStreamWaitEvent(s2, e3))  # s3 back to s2 ...
    check(lib.aclrtRecordEvent(e2, s2))
    check(lib.aclrtStreamWaitEvent(s1, e2))  # ... and s2 back to s1
    acl.launch(k.add_value, 1, s1, ("ptr", out), ("uint32_t", 1), ("int32_t", 1))
    expect(RT_STREAM_CAPTURE_UNMATCHED, end(s2)[0], "joined")
    model = end_ok(s1)
    assert [info(s)[0] for s in (s1, s2, s3)] == [NONE, NONE, NONE]
    check(lib.aclrtSynchronizeEvent(e1))  # no longer part of a capture
    assert ints(acl, out, 2) == [0, 0]
    for _ in range(2):
        check(execute(model, x))
    check(sync_rc(x))
    assert ints(acl, out, 2) == [7, 2]
    check(lib.aclmdlRIDestroy(model))
    for e in (e1, e2, e3):
        check(lib.aclrtDestroyEvent(e))


@pytest.mark.parametrize("case", ["no record", "record not waited", "another stream waits"])
def test_a_joined_stream_must_rejoin_the_origin_stream(acl, k, case):
    s1, s2, s3 = acl.stream(), acl.stream(), acl.stream()
    e1, e2 = ex_event(), ex_event()
    check(begin(s1))
    check(lib.aclrtRecordEvent(e1, s1))
    check(lib.aclrtStreamWaitEvent(s2, e1))
    acl.launch(k.write_value, 1, s2, ("ptr", acl.malloc(64)), ("uint32_t", 0), ("int32_t", 1))
    if case != "no record":
        check(lib.aclrtRecordEvent(e2, s2))
    if case == "another stream waits":  # s3 joins on s2's record, but nothing returns to s1
        check(lib.aclrtStreamWaitEvent(s3, e2))
    model = info(s1)[1]
    rc, out = end(s1)
    expect(RT_STREAM_UNJOINED, rc, "not an event record" if case != "record not waited" else "no captured wait")
    assert out == ffi.NULL
    assert [info(s)[0] for s in (s1, s2, s3)] == [NONE, NONE, NONE]  # the capture is over
    expect(RT_INVALID_HANDLE, lib.aclmdlRIDestroy(model))  # and its model gone


def test_events_a_capture_can_record_and_wait_on(acl, k):
    s1, s2 = acl.stream(), acl.stream()
    plain = acl.event()  # aclrtCreateEvent: not for captures
    outside = ex_event()
    check(lib.aclrtRecordEvent(outside, s2))
    check(sync_rc(s2))
    no_sync = ex_event(EVENT_TIME_LINE)
    check(begin(s1))
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtRecordEvent(plain, s1), "aclrtCreateEventExWithFlag")
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtStreamWaitEvent(s1, plain), "aclrtCreateEventExWithFlag")
    expect(RT_CAPTURE_DEPENDENCY, lib.aclrtStreamWaitEvent(s1, outside), "outside the capture")
    expect(0, lib.aclrtRecordEvent(no_sync, s1))  # nothing to capture: no wait could use it
    e = ex_event()
    check(lib.aclrtRecordEvent(e, s1))
    expect(RT_STREAM_CAPTURE_IMPLICIT, lib.aclrtStreamWaitEvent(ffi.NULL, e), "default stream")
    ts, ms = ffi.new("uint64_t *"), ffi.new("float *")
    expect(RT_EVENT_CAPTURED, lib.aclrtEventGetTimestamp(e, ts), "capture")
    expect(RT_EVENT_CAPTURED, lib.aclrtEventElapsedTime(ms, e, outside), "capture")
    check(lib.aclrtRecordEvent(e, s2))  # a plain record on a stream not capturing: allowed
    check(sync_rc(s2))
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtResetEvent(e, s2), "cannot be reset")
    check(lib.aclmdlRIDestroy(end_ok(s1)))
    status = ffi.new("aclrtEventRecordedStatus *")
    check(lib.aclrtQueryEventStatus(ex_event(), status))
    assert status[0] == 1  # an Ex event is complete before its first record
    expect(RT_PARAM_INVALID, lib.aclrtCreateEventExWithFlag(ffi.new("aclrtEvent *"), EVENT_EXTERNAL))
    expect(RT_PARAM_INVALID, lib.aclrtCreateEventExWithFlag(ffi.new("aclrtEvent *"), 0))


def test_two_captures_cannot_share_an_event(acl, k):
    a, b, x = acl.stream(), acl.stream(), acl.stream()
    e = ex_event()
    check(begin(a))
    check(begin(b))
    check(lib.aclrtRecordEvent(e, a))
    expect(STREAM_CAPTURE_CONFLICT, lib.aclrtStreamWaitEvent(b, e), "another capture")
    acl.launch(k.write_value, 1, a, ("ptr", acl.malloc(64)), ("uint32_t", 0), ("int32_t", 1))
    assert info(a)[0] == ACTIVE  # invalidated, yet still capturing until ended
    for s in (a, b):
        rc, model = end(s)
        expect(RT_STREAM_CAPTURE_INVALIDATED, rc, "invalidated")
        assert model == ffi.NULL
    check(sync_rc(x))


def test_external_events_synchronise_a_replay_with_other_streams(acl, k):
    """An ACL_EVENT_EXTERNAL event's wait, reset and record are captured as such and happen
    at each replay (docs/zh/dev_guide/04-03: a graph waits for work outside it)."""
    s, feeder, x = acl.stream(), acl.stream(), acl.stream()
    out = acl.malloc(64)
    acl.zeros(out, 64)
    go, done = event_with_flag(EVENT_EXTERNAL), event_with_flag(EVENT_EXTERNAL)
    check(begin(s))
    check(lib.aclrtStreamWaitEvent(s, go))
    check(lib.aclrtResetEvent(go, s))
    acl.launch(k.add_value, 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
    check(lib.aclrtRecordEvent(done, s))
    model = end_ok(s)
    for i in range(1, 3):
        check(execute(model, x))
        time.sleep(0.05)
        assert acl.query(x) == 1  # the replay waits for `go`
        assert ints(acl, out, 1) == [i - 1]
        check(lib.aclrtRecordEvent(go, feeder))
        check(sync_rc(x))
        assert ints(acl, out, 1) == [i]
    check(lib.aclrtSynchronizeEvent(done))
    check(lib.aclmdlRIDestroy(model))


# --------------------------------------------------------------------------- task groups


def group_end(stream: Any) -> tuple[int, Any]:
    out = ffi.new("aclrtTaskGrp *")
    rc = int(lib.aclmdlRICaptureTaskGrpEnd(stream, out))
    return rc, out[0]


def test_a_task_group_update_replaces_its_captured_kernels(acl, k):
    s, upd, x = acl.stream(), acl.stream(), acl.stream()
    out = acl.malloc(64)
    acl.zeros(out, 64)
    check(begin(s))
    acl.launch(k.write_value, 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
    check(lib.aclmdlRICaptureTaskGrpBegin(s))
    acl.launch(k.write_value, 1, s, ("ptr", out), ("uint32_t", 1), ("int32_t", 2))
    acl.launch(k.write_value, 1, s, ("ptr", out), ("uint32_t", 2), ("int32_t", 3))
    rc, grp = group_end(s)
    check(rc)
    assert grp != ffi.NULL
    acl.launch(k.write_value, 1, s, ("ptr", out), ("uint32_t", 3), ("int32_t", 4))
    model = end_ok(s)
    check(execute(model, x))
    check(sync_rc(x))
    assert ints(acl, out, 4) == [1, 2, 3, 4]

    check(lib.aclmdlRICaptureTaskUpdateBegin(upd, grp))
    acl.launch(k.write_value, 1, upd, ("ptr", out), ("uint32_t", 1), ("int32_t", 20))
    acl.launch(k.add_value, 4, upd, ("ptr", out), ("uint32_t", 2), ("int32_t", 30))  # another kernel
    check(lib.aclmdlRICaptureTaskUpdateEnd(upd))
    check(sync_rc(upd))  # the update is a task of the updating stream
    for _ in range(2):
        check(execute(model, x))
    check(sync_rc(x))
    assert ints(acl, out, 4) == [1, 20, 63, 4]
    check(lib.aclmdlRIDestroy(model))
    expect(RT_INVALID_HANDLE, lib.aclmdlRICaptureTaskUpdateBegin(upd, grp), "task group")


def test_task_group_misuse(acl, k):
    s, s2, upd, upd2 = acl.stream(), acl.stream(), acl.stream(), acl.stream()
    out = acl.malloc(64)

    def kernel(stream: Any) -> int:
        args = KernelArgs(k.write_value)
        args.ptr(out)
        args.scalar("uint32_t", 0)
        args.scalar("int32_t", 1)
        args.finalize()
        return launch_rc(k.write_value, 1, stream, args)

    expect(RT_STREAM_NOT_CAPTURED, lib.aclmdlRICaptureTaskGrpBegin(s), "not capturing")
    expect(RT_STREAM_NOT_CAPTURED, group_end(s)[0], "not capturing")
    expect(INVALID_PARAM, lib.aclmdlRICaptureTaskGrpEnd(s, ffi.NULL))
    check(begin(s))
    expect(STREAM_TASK_GROUP_STATUS, group_end(s)[0], "no task group")
    check(lib.aclmdlRICaptureTaskGrpBegin(s))
    expect(STREAM_TASK_GROUP_STATUS, lib.aclmdlRICaptureTaskGrpBegin(s), "already open")
    check(kernel(s))
    rc, grp = group_end(s)
    check(rc)
    expect(RT_STREAM_CAPTURED, lib.aclmdlRICaptureTaskUpdateBegin(s, grp), "capturing")
    check(lib.aclmdlRICaptureTaskGrpBegin(s))
    expect(STREAM_TASK_GROUP_STATUS, end(s)[0], "still open")  # and the capture is over
    expect(RT_INVALID_HANDLE, lib.aclmdlRICaptureTaskUpdateBegin(upd, grp), "task group")

    check(begin(s))
    check(lib.aclmdlRICaptureTaskGrpBegin(s))
    check(kernel(s))
    rc, grp = group_end(s)
    check(rc)
    model = end_ok(s)
    check(lib.aclmdlRICaptureTaskUpdateBegin(upd, grp))
    expect(STREAM_TASK_GROUP_STATUS, lib.aclmdlRICaptureTaskUpdateBegin(upd, grp), "already")
    expect(STREAM_TASK_GROUP_STATUS, lib.aclmdlRICaptureTaskUpdateBegin(upd2, grp), "another stream")
    expect(RT_TASK_TYPE_NOT_SUPPORT, lib.aclrtMemsetAsync(out, 64, 0, 64, upd), "only kernel")
    check(kernel(upd))
    expect(RT_INTERNAL_ERROR, kernel(upd), "all are updated")
    check(lib.aclmdlRICaptureTaskUpdateEnd(upd))
    expect(STREAM_TASK_GROUP_STATUS, lib.aclmdlRICaptureTaskUpdateEnd(upd), "not updating")
    check(lib.aclmdlRICaptureTaskUpdateBegin(upd2, grp))
    expect(RT_INTERNAL_ERROR, lib.aclmdlRICaptureTaskUpdateEnd(upd2), "1 kernels but 0")
    check(lib.aclrtMemsetAsync(out, 64, 0, 64, upd2))  # no longer updating
    check(sync_rc(upd2))
    check(lib.aclmdlRIDestroy(model))

    # In a group only kernels; while a group is open, no other stream of the capture works.
    e = ex_event()
    for refused, code, message in [
        (lambda: lib.aclrtMemsetAsync(out, 64, 0, 64, s), RT_TASK_TYPE_NOT_SUPPORT, "only kernel"),
        (lambda: lib.aclrtRecordEvent(e, s), RT_TASK_TYPE_NOT_SUPPORT, "only kernel"),
        (lambda: kernel(s2), STREAM_TASK_GROUP_INTR, "another stream"),
    ]:
        check(begin(s))
        check(lib.aclrtRecordEvent(e, s))
        check(lib.aclrtStreamWaitEvent(s2, e))
        check(lib.aclmdlRICaptureTaskGrpBegin(s))
        expect(code, refused(), message)
        expect(code, group_end(s)[0], "refused earlier")  # the group fails ...
        expect(RT_STREAM_CAPTURE_INVALIDATED, end(s)[0], "invalidated")  # ... and the capture


# --------------------------------------------------------------------------- failures


def model_streams(model: Any) -> list[Any]:
    n = ffi.new("uint32_t *")
    check(lib.aclmdlRIGetStreams(model, ffi.NULL, n))
    streams = ffi.new("aclrtStream[]", n[0])
    check(lib.aclmdlRIGetStreams(model, streams, n))
    return list(streams)


def test_a_replay_fails_as_the_real_runtime_reports_it(acl, k):
    """ReportErrorInfoForModelExecuteTask (model_execute_task.cc): the executing stream's error
    slot gets the code, and the one report names the model's own stream and the failed
    captured task -- not the executing stream and the replay task."""
    r = Reports()
    check(lib.aclrtExceptionInfoCallbackRegister(r.cb))
    try:
        s, x = acl.stream(), acl.stream()
        out, buf = acl.malloc(64), acl.malloc(64)
        acl.zeros(out, 64)
        check(begin(s))
        acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", 1 << 20))
        captured = last_task_id()
        acl.launch(k.poke, 1, s, ("ptr", buf), ("uint64_t", 1 << 21))
        acl.launch(k.add_value, 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
        model = end_ok(s)
        (own,) = model_streams(model)  # one captured stream: one stream of the model's own
        assert stream_id(own) not in (stream_id(s), stream_id(x))
        assert r.got == []
        check(execute(model, x))
        expect(RT_AICORE_EXCEPTION, sync_rc(x), "replay of a captured model, task 1 of 3")
        # One report, for the first failed captured task; the tasks after it still ran.
        assert r.got == [{"task": captured, "stream": stream_id(own), "code": RT_AICORE_EXCEPTION}]
        assert ints(acl, out, 1) == [1]
        check(sync_rc(x))  # reported once
        check(lib.aclmdlRIDestroy(model))
    finally:
        check(lib.aclrtExceptionInfoCallbackUnregister(r.cb))


def test_a_models_streams_are_its_own(acl, k):
    """aclmdlRIGetStreams (Model::ModelGetStreams): NULL asks the count; a shorter array gets
    what fits, a longer one NULLs after them; the streams take no work and are not destroyed
    by aclrtDestroyStream (Context::TearDownOwnedStream: 107005); they go with the model."""
    s = acl.stream()
    check(begin(s))
    acl.launch(k.add_value, 1, s, ("ptr", acl.malloc(64)), ("uint32_t", 0), ("int32_t", 1))
    model = end_ok(s)
    n = ffi.new("uint32_t *")
    check(lib.aclmdlRIGetStreams(model, ffi.NULL, n))
    assert n[0] == 1
    n[0] = 3
    arr = ffi.new("aclrtStream[]", 3)
    check(lib.aclmdlRIGetStreams(model, arr, n))
    assert arr[0] != ffi.NULL and arr[1] == ffi.NULL and arr[2] == ffi.NULL
    own = arr[0]
    expect(RT_STREAM_MODEL, lib.aclrtDestroyStream(own))
    status = ffi.new("aclrtStreamStatus *")
    check(lib.aclrtStreamQuery(own, status))
    check(lib.aclmdlRIDestroy(model))
    expect(RT_INVALID_HANDLE, lib.aclrtStreamQuery(own, status))


def test_a_replay_in_a_stop_on_failure_context_discards_the_rest(test_kernels_path):
    with acl_session() as acl:
        poke = acl.function(test_kernels_path, "poke")
        add = acl.function(test_kernels_path, "add_value")
        s, x = acl.stream(), acl.stream()
        out, buf = acl.malloc(64), acl.malloc(64)
        acl.zeros(out, 64)
        check(begin(s))
        acl.launch(poke, 1, s, ("ptr", buf), ("uint64_t", 1 << 20))
        acl.launch(add, 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
        model = end_ok(s)
        check(lib.aclrtSetStreamFailureMode(x, lib.ACL_STOP_ON_FAILURE))
        check(execute(model, x))
        expect(RT_AICORE_EXCEPTION, sync_rc(x))
        assert ints(acl, out, 1) == [0]
        expect(RT_AICORE_EXCEPTION, execute(model, s))  # the context refuses work for good


def test_destroy_waits_for_running_replays(acl, k):
    s = acl.stream()
    out = acl.malloc(64)
    acl.zeros(out, 64)
    check(begin(s))
    acl.launch(k.add_value, 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
    model = end_ok(s)
    acl.launch(k.wait_us, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 100_000))
    check(execute(model, s))
    t0 = time.monotonic()
    expect(0, lib.aclmdlRIDestroy(model))  # Context::ModelDestroy: waits for the replay
    assert time.monotonic() - t0 > 0.05
    assert ints(acl, out, 1) == [1]


def test_destroy_of_a_model_still_running_gives_up(test_kernels_path):
    with acl_session(AIOCANN_SIM_MODEL_DESTROY_WAIT_MS="20") as acl:
        wait = acl.function(test_kernels_path, "wait_us")
        s = acl.stream()
        check(begin(s))
        acl.launch(wait, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 1))
        model = end_ok(s)
        acl.launch(wait, 1, s, ("ptr", acl.malloc(64)), ("uint64_t", 300_000))
        check(execute(model, s))
        expect(RT_MODEL_RUNNING, lib.aclmdlRIDestroy(model), "still running")
        check(sync_rc(s))
        expect(0, lib.aclmdlRIDestroy(model))


def test_teardown_in_the_middle_of_a_capture(test_kernels_path):
    """A device reset ends whatever is in progress: a capture on its streams, a model, an
    update; the next session starts clean and old handles are stale."""
    with acl_session() as acl:
        write = acl.function(test_kernels_path, "write_value")
        s, s2, upd = acl.stream(), acl.stream(), acl.stream()
        out = acl.malloc(64)
        check(begin(s))
        check(lib.aclmdlRICaptureTaskGrpBegin(s))
        acl.launch(write, 1, s, ("ptr", out), ("uint32_t", 0), ("int32_t", 1))
        rc, grp = group_end(s)
        check(rc)
        ready = end_ok(s)
        check(lib.aclmdlRICaptureTaskUpdateBegin(upd, grp))
        check(execute(ready, s2))
        e = ex_event()
        # Begun on a thread of its own: the thread that begins a capture keeps counting it when
        # a reset abandons it (as on the real runtime), and this one ends with the test.
        check(in_thread(current_context(), lambda: begin(s)))
        check(lib.aclrtRecordEvent(e, s))
        check(lib.aclrtStreamWaitEvent(s2, e))
        capturing = info(s)[1]
    with acl_session() as acl:
        for h in (ready, capturing):
            expect(RT_INVALID_HANDLE, lib.aclmdlRIDestroy(h))
        assert lib.aclmdlRICaptureTaskUpdateBegin(acl.stream(), grp) == RT_INVALID_HANDLE
        expect(0, sync_copy_rc(acl, acl.malloc(64)))  # no capture restricts anything
