"""The device share of issue 11 through aiocann.acl, written as a pyACL program would: overflow
detection, operator timeouts, notifies (within a process and across processes), core resource
limits, device topology, stream and device task abort, AI CPU function registration and device
groups. The behaviours and codes are the real runtime's (docs/fidelity.md names the sources)."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from acl_codes import (
    INVALID_PARAM,
    RT_AICORE_EXCEPTION,
    RT_AICORE_OVER_FLOW,
    RT_AICORE_TIMEOUT,
    RT_CONTEXT_NULL,
    RT_DEV_SETUP_ERROR,
    RT_DEVICE_TASK_ABORT,
    RT_FEATURE_NOT_SUPPORT,
    RT_INTERNAL_ERROR,
    RT_INVALID_DEVICEID,
    RT_INVALID_HANDLE,
    RT_NO_NOTIFY_RESOURCE,
    RT_NO_PERMISSION,
    RT_PARAM_INVALID,
    RT_STREAM_ABORT,
    RT_STREAM_CONTEXT,
    RT_TASK_TIMEOUT,
    SUCCESS,
)
from pyacl_support import (
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    append_ptr,
    append_value,
    dev_alloc,
    from_device,
    in_thread,
    load_function,
    ok,
)

import aiocann.acl as acl
from examples import TEST_KERNELS

ACL_RT_DEV_RES_CUBE_CORE = 0
ACL_RT_DEV_RES_VECTOR_CORE = 1
ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE = 3
ACL_RT_ENGINE_TYPE_AIV = 1
ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE = 3
ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION = 2
ACL_RT_DEVS_TOPOLOGY_HCCS = 0x01
ACL_STREAM_STATUS_NOT_READY = 1
OVERFLOW_STATUS_SIZE = 64
CORES = 8  # the simulator's AI-core threads per device (AIOCANN_SIM_CORES default)
# The part's core counts (the default chip, Ascend910B1: aiocann.sim.chip()), where core limits
# start (RawDevice::InitResource reads them from the driver).
CUBE_CORES, VECTOR_CORES = 24, 48
A2_INTERVAL_US = 4294967  # 2^32 ns, truncated to whole microseconds
DEFAULT_CREDITS = 254


@pytest.fixture(scope="module")
def device_kernels_path() -> Path:
    from aiocann.compiler import build_kernel

    return build_kernel(TEST_KERNELS / "device_kernels.c")


@pytest.fixture
def kernels(device: int, device_kernels_path: Path, test_kernels_path: Path) -> Iterator[dict[str, int]]:
    """Function handles of device_kernels.c and test_kernels.c, by name."""
    own = ok(acl.rt.binary_load_from_file(str(device_kernels_path), []))
    shared = ok(acl.rt.binary_load_from_file(str(test_kernels_path), []))
    names = {own: ("overflow", "concurrency"), shared: ("wait_us", "write_value", "poke")}
    yield {n: ok(acl.rt.binary_get_function(b, n)) for b, ns in names.items() for n in ns}
    for b in names:
        acl.rt.binary_unload(b)


def launch(func: int, stream: int, blocks: int, *params: Any, cfg: list[dict[str, int]] | None = None) -> int:
    """Launch func with params: ints are device pointers, ctypes values scalars."""
    args = ok(acl.rt.kernel_args_init(func))
    for p in params:
        if isinstance(p, int):
            append_ptr(args, p)
        else:
            append_value(args, p)
    ok(acl.rt.kernel_args_finalize(args))
    return int(acl.rt.launch_kernel_with_config(func, blocks, stream, cfg or [], args, 0))


def zeroed(nbytes: int) -> int:
    ptr = dev_alloc(nbytes)
    ok(acl.rt.memset(ptr, nbytes, 0, nbytes))
    return ptr


def overflow_status(stream: int) -> int:
    """The device's overflow status word, read through a stream task."""
    out = zeroed(OVERFLOW_STATUS_SIZE)
    ok(acl.rt.get_overflow_status(out, OVERFLOW_STATUS_SIZE, stream))
    ok(acl.rt.synchronize_stream(stream))
    status = from_device(out, OVERFLOW_STATUS_SIZE, np.uint8)
    ok(acl.rt.free(out))
    assert not status[4:].any()
    return int(status[:4].view(np.uint32)[0])


def stream_busy(stream: int) -> bool:
    return ok(acl.rt.stream_query(stream)) == ACL_STREAM_STATUS_NOT_READY


def wait_until(predicate: Any, timeout: float = 10.0) -> None:
    """Polls predicate (a state another thread reaches) until it holds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the condition"
        time.sleep(0.005)


class Background:
    """A call made on another thread, whose result is read later (a synchronize that blocks)."""

    def __init__(self, fn: Any, *args: Any) -> None:
        self.result: Any = None
        self._thread = threading.Thread(target=self._run, args=(fn, args))
        self._thread.start()

    def _run(self, fn: Any, args: tuple[Any, ...]) -> None:
        self.result = fn(*args)

    def join(self) -> Any:
        self._thread.join(30)
        assert not self._thread.is_alive()
        return self.result


# ----------------------------------------------------------------------- overflow detection


def test_overflow_switch_per_stream(device, stream):
    assert acl.rt.get_stream_overflow_switch(stream) == (0, SUCCESS)
    ok(acl.rt.set_stream_overflow_switch(stream, 1))
    assert acl.rt.get_stream_overflow_switch(stream) == (1, SUCCESS)
    assert acl.rt.get_stream_overflow_switch(0) == (0, SUCCESS)  # the default stream: its own
    assert acl.rt.set_stream_overflow_switch(stream, 2) == INVALID_PARAM  # ACL layer: 0 or 1
    assert acl.rt.set_stream_overflow_switch(12345, 1) == RT_INVALID_HANDLE
    # The stream attribute is the same switch (aclrtSetStreamAttribute FLOAT_OVERFLOW_CHECK).
    assert acl.rt.get_stream_attribute(stream, 2) == ({"overflowSwitch": 1}, SUCCESS)
    ok(acl.rt.set_stream_overflow_switch(stream, 0))
    assert acl.rt.get_stream_attribute(stream, 2) == ({"overflowSwitch": 0}, SUCCESS)
    # Another context's stream is not the current context's (107003); no context is 107002.
    other = ok(acl.rt.create_context(0))  # current from now on
    assert acl.rt.set_stream_overflow_switch(stream, 1) == RT_STREAM_CONTEXT
    ok(acl.rt.destroy_context(other))
    ok(acl.rt.set_context(device))
    assert in_thread(lambda: acl.rt.get_stream_overflow_switch(0)) == (0, RT_CONTEXT_NULL)


def test_an_overflow_is_reported_only_with_the_switch_on(stream, kernels):
    out = zeroed(4 * CORES)
    ok(acl.rt.reset_overflow_status(stream))
    # Switch off: the kernel overflows unnoticed.
    assert launch(kernels["overflow"], stream, 4, out, ctypes.c_int32(1)) == SUCCESS
    ok(acl.rt.synchronize_stream(stream))
    assert overflow_status(stream) == 0

    # Switch on: the stream's next synchronize says so (a warning: the kernel ran to the end),
    # and the process's overflow status is set until reset.
    ok(acl.rt.set_stream_overflow_switch(stream, 1))
    assert launch(kernels["overflow"], stream, 4, out, ctypes.c_int32(1)) == SUCCESS
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_OVER_FLOW
    assert list(from_device(out, 4, np.int32)) == [1, 2, 3, 4]
    assert acl.rt.synchronize_stream(stream) == SUCCESS  # reported once
    assert overflow_status(stream) != 0
    other = ok(acl.rt.create_stream())  # process-wide: any stream reads it
    assert overflow_status(other) != 0
    ok(acl.rt.reset_overflow_status(other))
    ok(acl.rt.synchronize_stream(other))
    assert overflow_status(stream) == 0

    # Not an exception: the stream goes on, and a kernel that does not overflow is clean.
    assert launch(kernels["overflow"], stream, 2, out, ctypes.c_int32(0)) == SUCCESS
    ok(acl.rt.synchronize_stream(stream))
    assert overflow_status(stream) == 0
    for p in (out,):
        ok(acl.rt.free(p))
    ok(acl.rt.destroy_stream(other))


def test_the_switch_counts_when_the_launch_is_submitted(stream, kernels):
    """The switch goes into the launch's task when it is submitted: turning it off before the
    stream reaches the launch changes nothing."""
    out = zeroed(4 * CORES)
    gate = ok(acl.rt.create_notify(0))
    other = ok(acl.rt.create_stream())
    ok(acl.rt.wait_and_reset_notify(gate, stream, 0))  # holds the stream
    ok(acl.rt.set_stream_overflow_switch(stream, 1))
    assert launch(kernels["overflow"], stream, 1, out, ctypes.c_int32(1)) == SUCCESS
    ok(acl.rt.set_stream_overflow_switch(stream, 0))
    assert launch(kernels["overflow"], stream, 1, out, ctypes.c_int32(1)) == SUCCESS  # off: unnoticed
    assert stream_busy(stream)
    ok(acl.rt.record_notify(gate, other))
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_OVER_FLOW
    ok(acl.rt.reset_overflow_status(stream))
    ok(acl.rt.synchronize_stream(stream))
    ok(acl.rt.destroy_notify(gate))
    ok(acl.rt.destroy_stream(other))
    ok(acl.rt.free(out))


def test_overflow_status_arguments(stream):
    out = zeroed(OVERFLOW_STATUS_SIZE)
    assert acl.rt.get_overflow_status(out, 8, stream) == RT_PARAM_INVALID  # exactly 64 bytes
    assert acl.rt.get_overflow_status(0, OVERFLOW_STATUS_SIZE, stream) == INVALID_PARAM
    host = ctypes.create_string_buffer(OVERFLOW_STATUS_SIZE)  # not device memory
    assert acl.rt.get_overflow_status(ctypes.addressof(host), OVERFLOW_STATUS_SIZE, stream) == RT_PARAM_INVALID
    assert acl.rt.get_overflow_status(out, OVERFLOW_STATUS_SIZE, 12345) == RT_INVALID_HANDLE
    assert acl.rt.reset_overflow_status(12345) == RT_INVALID_HANDLE
    ok(acl.rt.get_overflow_status(out, OVERFLOW_STATUS_SIZE, 0))  # the default stream
    ok(acl.rt.synchronize_stream(0))
    ok(acl.rt.free(out))


# ----------------------------------------------------------------------- operator timeouts


def test_operator_timeout_configuration(device):
    """On the A2 the hardware counts a launch's timeout in credits of 2^32 ns, 254 by default."""
    assert acl.rt.get_op_timeout_interval() == (A2_INTERVAL_US, SUCCESS)
    default_ms = (DEFAULT_CREDITS * 4294967296 // 1000 + 999) // 1000
    assert acl.rt.get_op_execute_timeout() == (default_ms, SUCCESS)
    # Seconds, rounded up to whole credits: 4 s is one credit (4.29 s), 5 s two.
    ok(acl.rt.set_op_execute_time_out(4))
    assert acl.rt.get_op_execute_timeout() == ((4294967296 // 1000 + 999) // 1000, SUCCESS)
    ok(acl.rt.set_op_execute_time_out(5))
    assert acl.rt.get_op_execute_timeout() == ((2 * 4294967296 // 1000 + 999) // 1000, SUCCESS)
    # V2: microseconds; what the hardware will apply comes back. 0 is the maximum (254 credits).
    assert acl.rt.set_op_execute_timeout_v2(1) == (A2_INTERVAL_US, SUCCESS)
    assert acl.rt.set_op_execute_timeout_v2(0) == (DEFAULT_CREDITS * 4294967296 // 1000, SUCCESS)
    assert acl.rt.set_op_execute_timeout_v2(1 << 60) == (DEFAULT_CREDITS * 4294967296 // 1000, SUCCESS)
    ok(acl.rt.set_op_wait_timeout(0))
    # V2 and the interval need a context; the others do not.
    assert in_thread(acl.rt.get_op_timeout_interval) == (0, RT_CONTEXT_NULL)
    assert in_thread(lambda: acl.rt.set_op_execute_timeout_v2(5)) == (0, RT_CONTEXT_NULL)
    assert in_thread(lambda: acl.rt.set_op_execute_time_out(0)) == SUCCESS


def test_configuration_ends_with_finalize():
    """The configuration lasts until aclFinalize (simulator choice: the real one lives as long
    as the process)."""
    ok(acl.init())
    try:
        ok(acl.rt.set_op_execute_time_out(4))
        assert acl.rt.get_op_execute_timeout()[0] < 10_000
    finally:
        acl.finalize()
    ok(acl.init())
    try:
        assert acl.rt.get_op_execute_timeout()[0] > 1_000_000
    finally:
        acl.finalize()


def test_execute_timeout_ends_a_long_launch(monkeypatch, test_kernels_path):
    """A driver with a millisecond interval (AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US, read at
    aclInit): a launch submitted after set_op_execute_timeout_v2 is ended by the AI-core
    watchdog at that time."""
    monkeypatch.setenv("AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US", "1000")
    ok(acl.init())
    ok(acl.rt.set_device(0))
    try:
        assert acl.rt.get_op_timeout_interval() == (1000, SUCCESS)
        assert acl.rt.set_op_execute_timeout_v2(0) == (2**64 - 1, SUCCESS)  # 0: never, in ms mode
        assert acl.rt.get_op_execute_timeout() == (0xFFFFFFFF, SUCCESS)
        assert acl.rt.set_op_execute_timeout_v2(2500) == (3000, SUCCESS)  # whole intervals
        assert acl.rt.get_op_execute_timeout() == (3, SUCCESS)
        binary, wait_us = load_function(test_kernels_path, "wait_us")
        stream = ok(acl.rt.create_stream())
        out = zeroed(64)
        t0 = time.monotonic()
        assert launch(wait_us, stream, 1, out, ctypes.c_uint64(20_000_000)) == SUCCESS
        assert acl.rt.synchronize_stream(stream) == RT_AICORE_TIMEOUT
        assert time.monotonic() - t0 < 10
        # Back to never: a short launch completes.
        ok(acl.rt.set_op_execute_timeout_v2(0))
        assert launch(wait_us, stream, 1, out, ctypes.c_uint64(1000)) == SUCCESS
        # The launch took the fast ring buffer's second report of the timeout (a driver with
        # millisecond timeouts: v100/device_error_proc.cc ProcessReportFastRingBuffer sets the
        # stream's error again), which this synchronize reports; then it is clear.
        assert acl.rt.synchronize_stream(stream) == RT_AICORE_TIMEOUT
        ok(acl.rt.synchronize_stream(stream))
        ok(acl.rt.free(out))
        ok(acl.rt.destroy_stream(stream))
        ok(acl.rt.binary_unload(binary))
    finally:
        acl.rt.reset_device(0)
        acl.finalize()
    monkeypatch.setenv("AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US", "0.5")
    assert acl.init() == INVALID_PARAM  # like every simulator variable: checked at aclInit
    monkeypatch.delenv("AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US")


def test_wait_timeout_fails_an_event_wait(device):
    """set_op_wait_timeout: a stream_wait_event submitted afterwards gives up after that many
    seconds and fails its task with 107020; one submitted before waits as long as it takes."""
    stream, patient, held = (ok(acl.rt.create_stream()) for _ in range(3))
    gate = ok(acl.rt.create_notify(0))
    event = ok(acl.rt.create_event())
    # The event's record sits behind a notify wait on `held`: nothing records it until the
    # gate opens.
    ok(acl.rt.wait_and_reset_notify(gate, held, 0))
    ok(acl.rt.record_event(event, held))
    ok(acl.rt.stream_wait_event(patient, event))  # submitted before: no timeout
    ok(acl.rt.set_op_wait_timeout(1))
    ok(acl.rt.stream_wait_event(stream, event))
    t0 = time.monotonic()
    assert acl.rt.synchronize_stream(stream) == RT_TASK_TIMEOUT
    assert 0.9 <= time.monotonic() - t0 < 10
    assert stream_busy(patient)
    ok(acl.rt.record_notify(gate, stream))  # the stream goes on after its failed wait
    ok(acl.rt.synchronize_stream(patient))
    ok(acl.rt.synchronize_stream(held))
    ok(acl.rt.set_op_wait_timeout(0))
    ok(acl.rt.destroy_event(event))
    ok(acl.rt.destroy_notify(gate))
    for s in (stream, patient, held):
        ok(acl.rt.destroy_stream(s))


# ----------------------------------------------------------------------- notifies


def test_notify_lifecycle_and_arguments(device):
    a = ok(acl.rt.create_notify(0))
    b = ok(acl.rt.create_notify(1))  # ACL_NOTIFY_DEVICE_USE_ONLY
    assert acl.rt.create_notify(2) == (0, RT_PARAM_INVALID)
    ids = {ok(acl.rt.get_notify_id(a)), ok(acl.rt.get_notify_id(b))}
    assert len(ids) == 2 and all(0 <= i < 8192 for i in ids)
    assert acl.rt.get_notify_id(12345) == (0, RT_INVALID_HANDLE)
    assert acl.rt.record_notify(a, 12345) == RT_INVALID_HANDLE
    with pytest.raises(TypeError, match=r"^timeout can't be a negative number!$"):
        acl.rt.wait_and_reset_notify(a, 0, -1)
    with pytest.raises(TypeError, match=r"^timeout should be less than 2\*\*32!$"):
        acl.rt.wait_and_reset_notify(a, 0, 1 << 32)
    ok(acl.rt.destroy_notify(a))
    assert acl.rt.destroy_notify(a) == RT_INVALID_HANDLE
    assert acl.rt.destroy_notify(0) == INVALID_PARAM
    ok(acl.rt.destroy_notify(b))
    # No context on this thread: creation needs one.
    assert in_thread(lambda: acl.rt.create_notify(0)) == (0, RT_CONTEXT_NULL)


def test_a_device_has_8192_notifies(device):
    made = []
    while True:
        n, ret = acl.rt.create_notify(0)
        if ret != SUCCESS:
            break
        made.append(n)
    assert (len(made), ret) == (8192, RT_NO_NOTIFY_RESOURCE)
    ok(acl.rt.destroy_notify(made.pop()))  # its id is free again
    made.append(ok(acl.rt.create_notify(0)))
    for n in made:
        ok(acl.rt.destroy_notify(n))


def test_a_notify_orders_two_streams(device, kernels):
    """A waits-and-resets on B's record: the wait stops stream A, not the caller, until B's
    slow kernel and then its record have run; A's copy then sees the kernel's output."""
    a, b = ok(acl.rt.create_stream()), ok(acl.rt.create_stream())
    n = ok(acl.rt.create_notify(0))
    produced, copied = zeroed(64), zeroed(64)
    t0 = time.monotonic()
    ok(acl.rt.wait_and_reset_notify(n, a, 0))
    ok(acl.rt.memcpy_async(copied, 64, produced, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, a))
    assert time.monotonic() - t0 < 1  # enqueued, not waited for
    assert launch(kernels["wait_us"], b, 4, produced, ctypes.c_uint64(100_000)) == SUCCESS
    ok(acl.rt.record_notify(n, b))
    assert stream_busy(a)
    ok(acl.rt.synchronize_stream(a))
    assert list(from_device(copied, 4, np.int32)) == [1, 2, 3, 4]
    # The wait reset the notify: a second wait needs a second record.
    ok(acl.rt.wait_and_reset_notify(n, a, 0))
    ok(acl.rt.synchronize_stream(b))
    assert stream_busy(a)
    ok(acl.rt.record_notify(n, b))
    ok(acl.rt.synchronize_stream(a))
    # A record with no wait pending stays set until a wait takes it.
    ok(acl.rt.record_notify(n, b))
    ok(acl.rt.synchronize_stream(b))
    ok(acl.rt.wait_and_reset_notify(n, a, 0))
    ok(acl.rt.synchronize_stream(a))
    ok(acl.rt.destroy_notify(n))
    for s in (a, b):
        ok(acl.rt.destroy_stream(s))
    for p in (produced, copied):
        ok(acl.rt.free(p))


def test_notify_wait_timeout_and_batch_reset(device):
    """A wait still unreleased after its timeout (seconds) fails its task: 107020. A batch
    reset clears records at once, so a wait after it is not released."""
    a, b = ok(acl.rt.create_stream()), ok(acl.rt.create_stream())
    n, m = ok(acl.rt.create_notify(0)), ok(acl.rt.create_notify(0))
    ok(acl.rt.record_notify(n, b))
    ok(acl.rt.record_notify(m, b))
    ok(acl.rt.synchronize_stream(b))
    ok(acl.rt.notify_batch_reset([n, m]))
    ok(acl.rt.wait_and_reset_notify(n, a, 1))
    t0 = time.monotonic()
    assert acl.rt.synchronize_stream(a) == RT_TASK_TIMEOUT
    assert 0.9 <= time.monotonic() - t0 < 10
    # The stream goes on after the failed wait.
    ok(acl.rt.record_notify(m, b))
    ok(acl.rt.wait_and_reset_notify(m, a, 1))
    ok(acl.rt.synchronize_stream(a))

    assert acl.rt.notify_batch_reset([]) == RT_PARAM_INVALID
    assert acl.rt.notify_batch_reset([n, 12345]) == RT_INVALID_HANDLE
    assert acl.rt.notify_batch_reset([0]) == RT_PARAM_INVALID
    with pytest.raises(ValueError, match=r"^argument only support the format of list$"):
        acl.rt.notify_batch_reset((n,))
    with pytest.raises(ValueError, match=r"^get notify pointers from PyList failed$"):
        acl.rt.notify_batch_reset([n, "m"])
    for x in (n, m):
        ok(acl.rt.destroy_notify(x))
    for s in (a, b):
        ok(acl.rt.destroy_stream(s))


def test_notify_export_and_import_arguments(device):
    n = ok(acl.rt.create_notify(0))
    assert acl.rt.notify_get_export_key(n, 64, 0) == ("", RT_PARAM_INVALID)  # at least 65
    assert acl.rt.notify_get_export_key(n, 65, 1) == ("", RT_PARAM_INVALID)  # flags 0 or 2
    with pytest.raises(ValueError, match=r"^key len should be less than 1024$"):
        acl.rt.notify_get_export_key(n, 1024, 0)
    assert acl.rt.notify_set_import_pid(n, [os.getpid()]) == RT_PARAM_INVALID  # not exported yet
    key = ok(acl.rt.notify_get_export_key(n, 128, 0))
    assert key and len(key) < 65
    assert acl.rt.notify_get_export_key(n, 128, 0) == ("", RT_INTERNAL_ERROR)  # once only
    assert acl.rt.notify_set_import_pid(n, []) == RT_PARAM_INVALID
    with pytest.raises(ValueError, match=r"^argument 2 only support the format of list$"):
        acl.rt.notify_set_import_pid(n, os.getpid())
    with pytest.raises(ValueError, match=r"^get values from PyList failed$"):
        acl.rt.notify_set_import_pid(n, [1 << 31])
    assert acl.rt.notify_import_by_key(key, 4) == (0, RT_PARAM_INVALID)  # flags <= 3
    assert acl.rt.notify_import_by_key("no such key", 0) == (0, RT_PARAM_INVALID)

    # The whitelist binds the creator's own process too; listed, it opens its own key, and the
    # two handles share one flag.
    assert acl.rt.notify_import_by_key(key, 0) == (0, RT_NO_PERMISSION)
    ok(acl.rt.notify_set_import_pid(n, [os.getpid()]))
    twin = ok(acl.rt.notify_import_by_key(key, 0))
    a, b = ok(acl.rt.create_stream()), ok(acl.rt.create_stream())
    ok(acl.rt.wait_and_reset_notify(n, a, 0))
    assert stream_busy(a)
    ok(acl.rt.record_notify(twin, b))
    ok(acl.rt.synchronize_stream(a))
    ok(acl.rt.destroy_notify(twin))
    ok(acl.rt.destroy_notify(n))
    assert acl.rt.notify_import_by_key(key, 0) == (0, RT_PARAM_INVALID)  # gone with its creator
    for s in (a, b):
        ok(acl.rt.destroy_stream(s))


IMPORTER = r"""
import os, sys
import aiocann.acl as acl

def say(*values):
    print(*values, flush=True)

device = int(sys.argv[1])
assert acl.init() == 0 and acl.rt.set_device(device) == 0
say("pid", os.getpid())
key = sys.stdin.readline().strip()
notify, ret = acl.rt.notify_import_by_key(key, 0)
say("import", ret)
if ret != 0:
    sys.stdin.readline()  # the creator lists this process, then says so
    notify, ret = acl.rt.notify_import_by_key(key, 0)
    say("import", ret)
stream, _ = acl.rt.create_stream()
# On another device than the creator's a wait is refused when it is submitted; on the same
# device it would hold this stream, and the record below with it.
say("wait", acl.rt.wait_and_reset_notify(notify, stream, 0) if device != 0 else -1)
say("record", acl.rt.record_notify(notify, stream))
say("sync", acl.rt.synchronize_stream(stream))
say("destroy", acl.rt.destroy_notify(notify))
acl.rt.destroy_stream(stream)
acl.rt.reset_device(device)
acl.finalize()
"""


class Importer:
    """A second process that imports a notify by key and records it (IMPORTER)."""

    def __init__(self, device: int = 0) -> None:
        self.proc: subprocess.Popen[str] = subprocess.Popen(
            [sys.executable, "-c", IMPORTER, str(device)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.pid = int(self.read("pid"))

    def read(self, what: str) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().split()
        assert line and line[0] == what, line
        return line[1]

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def finish(self) -> dict[str, int]:
        out = {what: int(self.read(what)) for what in ("wait", "record", "sync", "destroy")}
        assert self.proc.wait(30) == 0
        return out

    def __enter__(self) -> Importer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()  # closes the pipes


def test_a_notify_shared_with_another_process(device):
    """Exported with pid validation, a notify opens only in the processes the creator listed
    (207006 before that); then the other process's record releases this process's wait."""
    with Importer() as child:
        n = ok(acl.rt.create_notify(0))
        key = ok(acl.rt.notify_get_export_key(n, 65, 0))
        child.send(key)
        assert int(child.read("import")) == RT_NO_PERMISSION
        ok(acl.rt.notify_set_import_pid(n, [child.pid]))
        child.send("listed")
        assert int(child.read("import")) == SUCCESS
        stream = ok(acl.rt.create_stream())
        ok(acl.rt.wait_and_reset_notify(n, stream, 30))
        assert child.finish() == {"wait": -1, "record": SUCCESS, "sync": SUCCESS, "destroy": SUCCESS}
        ok(acl.rt.synchronize_stream(stream))  # released by the other process's record
    ok(acl.rt.destroy_stream(stream))
    ok(acl.rt.destroy_notify(n))


def test_pid_validation_off_and_the_creator_device(device):
    """DISABLE_PID_VALIDATION lets any process import; a wait on an IPC notify must run on
    the device that created it (107000 elsewhere)."""
    with Importer(device=1) as child:
        n = ok(acl.rt.create_notify(0))
        key = ok(acl.rt.notify_get_export_key(n, 65, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION))
        child.send(key)
        assert int(child.read("import")) == SUCCESS
        stream = ok(acl.rt.create_stream())
        ok(acl.rt.wait_and_reset_notify(n, stream, 30))
        # The child is on device 1: its wait is refused; its record reaches device 0's notify.
        assert child.finish() == {"wait": RT_PARAM_INVALID, "record": SUCCESS, "sync": SUCCESS, "destroy": SUCCESS}
        ok(acl.rt.synchronize_stream(stream))  # released by the other process's record
    ok(acl.rt.destroy_stream(stream))
    ok(acl.rt.destroy_notify(n))


# ----------------------------------------------------------------------- resource limits


def most_at_once(kernels: dict[str, int], stream: int, blocks: int = CORES, cfg: Any = None) -> int:
    counters = zeroed(8)
    assert launch(kernels["concurrency"], stream, blocks, counters, ctypes.c_uint64(30_000), cfg=cfg) == SUCCESS
    ok(acl.rt.synchronize_stream(stream))
    most = int(from_device(counters, 2, np.uint32)[1])
    ok(acl.rt.free(counters))
    return most


def test_device_res_limit(stream, kernels):
    assert acl.rt.get_device_res_limit(0, ACL_RT_DEV_RES_CUBE_CORE) == (CUBE_CORES, SUCCESS)
    assert acl.rt.get_device_res_limit(0, ACL_RT_DEV_RES_VECTOR_CORE) == (VECTOR_CORES, SUCCESS)
    assert most_at_once(kernels, stream) > 2  # the kernel sees its blocks run together
    ok(acl.rt.set_device_res_limit(0, ACL_RT_DEV_RES_CUBE_CORE, 2))
    assert acl.rt.get_device_res_limit(0, ACL_RT_DEV_RES_CUBE_CORE) == (2, SUCCESS)
    assert most_at_once(kernels, stream) == 2
    # An AIV launch counts vector cores.
    aiv = [{"id": ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE, "value": ACL_RT_ENGINE_TYPE_AIV}]
    ok(acl.rt.set_device_res_limit(0, ACL_RT_DEV_RES_VECTOR_CORE, 1))
    assert most_at_once(kernels, stream, cfg=aiv) == 1
    ok(acl.rt.reset_device_res_limit(0))
    assert acl.rt.get_device_res_limit(0, ACL_RT_DEV_RES_CUBE_CORE) == (CUBE_CORES, SUCCESS)

    assert acl.rt.set_device_res_limit(0, ACL_RT_DEV_RES_CUBE_CORE, CUBE_CORES + 1) == RT_PARAM_INVALID
    assert acl.rt.set_device_res_limit(0, ACL_RT_DEV_RES_VECTOR_CORE, VECTOR_CORES + 1) == RT_PARAM_INVALID
    ok(acl.rt.set_device_res_limit(0, ACL_RT_DEV_RES_VECTOR_CORE, VECTOR_CORES))  # all of them
    ok(acl.rt.reset_device_res_limit(0))
    assert acl.rt.set_device_res_limit(0, 2, 1) == RT_PARAM_INVALID
    assert acl.rt.get_device_res_limit(-1, 0) == (0, RT_INVALID_DEVICEID)
    assert acl.rt.get_device_res_limit(64, 0) == (0, RT_INVALID_DEVICEID)
    assert acl.rt.set_device_res_limit(1, 0, 1) == RT_DEV_SETUP_ERROR  # device 1 is not open
    assert acl.rt.reset_device_res_limit(1) == RT_DEV_SETUP_ERROR


def test_stream_and_thread_res_limits(stream, kernels):
    other = ok(acl.rt.create_stream())
    ok(acl.rt.set_device_res_limit(0, ACL_RT_DEV_RES_CUBE_CORE, 4))
    assert acl.rt.get_stream_res_limit(stream, ACL_RT_DEV_RES_CUBE_CORE) == (4, SUCCESS)  # the device's
    ok(acl.rt.set_stream_res_limit(stream, ACL_RT_DEV_RES_CUBE_CORE, 3))
    assert acl.rt.get_stream_res_limit(stream, ACL_RT_DEV_RES_CUBE_CORE) == (3, SUCCESS)
    assert most_at_once(kernels, stream) == 3
    ok(acl.rt.set_stream_res_limit(stream, ACL_RT_DEV_RES_CUBE_CORE, 6))  # above the device's: allowed
    assert most_at_once(kernels, stream) == 6
    assert acl.rt.set_stream_res_limit(stream, ACL_RT_DEV_RES_CUBE_CORE, CUBE_CORES + 1) == RT_PARAM_INVALID
    assert acl.rt.get_stream_res_limit(12345, 0) == (0, RT_INVALID_HANDLE)
    assert acl.rt.get_stream_res_limit(stream, 2) == (0, RT_PARAM_INVALID)

    # A thread bound to the stream's limits: launches on streams without their own use them.
    ok(acl.rt.set_stream_res_limit(stream, ACL_RT_DEV_RES_CUBE_CORE, 1))
    assert acl.rt.get_res_in_current_thread(ACL_RT_DEV_RES_CUBE_CORE) == (4, SUCCESS)
    ok(acl.rt.use_stream_res_in_current_thread(stream))
    assert acl.rt.get_res_in_current_thread(ACL_RT_DEV_RES_CUBE_CORE) == (1, SUCCESS)
    assert acl.rt.get_res_in_current_thread(ACL_RT_DEV_RES_VECTOR_CORE) == (VECTOR_CORES, SUCCESS)  # not set there
    assert most_at_once(kernels, other) == 1
    ok(acl.rt.unuse_stream_res_in_current_thread(other))  # not the bound one: no change
    assert acl.rt.get_res_in_current_thread(ACL_RT_DEV_RES_CUBE_CORE) == (1, SUCCESS)
    ok(acl.rt.unuse_stream_res_in_current_thread(stream))
    assert acl.rt.get_res_in_current_thread(ACL_RT_DEV_RES_CUBE_CORE) == (4, SUCCESS)
    assert most_at_once(kernels, other) == 4

    ok(acl.rt.reset_stream_res_limit(stream))
    assert acl.rt.get_stream_res_limit(stream, ACL_RT_DEV_RES_CUBE_CORE) == (4, SUCCESS)
    ok(acl.rt.reset_device_res_limit(0))
    ok(acl.rt.destroy_stream(other))


# ----------------------------------------------------------------------- topology, groups


def test_devices_topology(device):
    assert acl.rt.get_devices_topo(0, 1) == (ACL_RT_DEVS_TOPOLOGY_HCCS, SUCCESS)
    assert acl.rt.get_devices_topo(1, 0) == (ACL_RT_DEVS_TOPOLOGY_HCCS, SUCCESS)
    assert acl.rt.get_devices_topo(0, 0) == (ACL_RT_DEVS_TOPOLOGY_HCCS, SUCCESS)
    assert acl.rt.get_devices_topo(0, 64) == (0, RT_INVALID_DEVICEID)
    assert acl.rt.get_devices_topo(0, -1) == (0, RT_INVALID_DEVICEID)  # "I": 0xFFFFFFFF
    with pytest.raises(TypeError, match=r"^acl.rt.reset_device_res_limit args parse failed$"):  # sic
        acl.rt.get_devices_topo(0, "1")


def test_the_a2_has_no_device_groups(device):
    assert acl.rt.set_group(0) == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.get_group_count(0) == (0, RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.create_group_info() == 0
    assert acl.rt.destroy_group_info(0) == INVALID_PARAM
    assert acl.rt.get_all_group_info(0) == INVALID_PARAM
    buf = ctypes.create_string_buffer(64)
    assert acl.rt.get_all_group_info(ctypes.addressof(buf)) == RT_FEATURE_NOT_SUPPORT
    with pytest.raises(RuntimeError, match=r"^aclrtGetGroupInfoDetail failed$"):
        acl.rt.get_group_info_detail(ctypes.addressof(buf), 0, 0)


# ----------------------------------------------------------------------- abort


def test_stream_abort_ends_a_wait_and_drops_queued_tasks(stream, kernels):
    """The stream is stuck on a notify nobody records, with a kernel queued behind it and a
    synchronize waiting: the abort ends the wait, drops the kernel (it never runs), the
    waiting synchronize returns 107023, and afterwards the stream is clean and usable."""
    n = ok(acl.rt.create_notify(0))
    out = zeroed(64)
    ok(acl.rt.wait_and_reset_notify(n, stream, 0))
    assert launch(kernels["write_value"], stream, 1, out, ctypes.c_uint32(0), ctypes.c_int32(7)) == SUCCESS
    waiter = Background(acl.rt.synchronize_stream, stream)
    time.sleep(0.05)  # let the synchronize start waiting (it returns 107023 either way)
    ok(acl.rt.stream_abort(stream))
    assert waiter.join() in (RT_STREAM_ABORT, SUCCESS)
    assert acl.rt.synchronize_stream(stream) == SUCCESS
    assert from_device(out, 1, np.int32)[0] == 0  # the queued kernel never ran
    assert launch(kernels["write_value"], stream, 1, out, ctypes.c_uint32(0), ctypes.c_int32(7)) == SUCCESS
    ok(acl.rt.synchronize_stream(stream))
    assert from_device(out, 1, np.int32)[0] == 7
    ok(acl.rt.destroy_notify(n))
    ok(acl.rt.free(out))


def test_a_waiting_synchronize_returns_the_abort_code(stream):
    n = ok(acl.rt.create_notify(0))
    ok(acl.rt.wait_and_reset_notify(n, stream, 0))
    waiter = Background(acl.rt.synchronize_stream, stream)
    wait_until(lambda: waiter._thread.is_alive() and stream_busy(stream))
    time.sleep(0.2)
    ok(acl.rt.stream_abort(stream))
    assert waiter.join() == RT_STREAM_ABORT
    ok(acl.rt.synchronize_stream(stream))
    ok(acl.rt.destroy_notify(n))


def test_stream_abort_interrupts_a_running_kernel(stream, kernels):
    out = zeroed(64)
    t0 = time.monotonic()
    assert launch(kernels["wait_us"], stream, 4, out, ctypes.c_uint64(20_000_000)) == SUCCESS
    wait_until(lambda: stream_busy(stream))
    time.sleep(0.1)
    ok(acl.rt.stream_abort(stream))
    assert time.monotonic() - t0 < 10
    ok(acl.rt.synchronize_stream(stream))
    ok(acl.rt.free(out))


def test_stream_abort_ends_a_value_wait(stream, kernels):
    """The memory family's value wait holds its stream like a notify wait; an abort ends it too."""
    word, out = zeroed(8), zeroed(64)
    ok(acl.rt.value_wait(word, 1, 1, stream))  # EQ 1: never, nobody writes it
    assert launch(kernels["write_value"], stream, 1, out, ctypes.c_uint32(0), ctypes.c_int32(3)) == SUCCESS
    wait_until(lambda: stream_busy(stream))
    ok(acl.rt.stream_abort(stream))
    ok(acl.rt.synchronize_stream(stream))
    assert from_device(out, 1, np.int32)[0] == 0
    for p in (word, out):
        ok(acl.rt.free(p))


def test_stream_abort_arguments(stream):
    assert acl.rt.stream_abort(12345) == RT_INVALID_HANDLE
    ok(acl.rt.stream_abort(0))  # the default stream, idle
    other = ok(acl.rt.create_context(0))  # now current: stream is another context's
    assert acl.rt.stream_abort(stream) == RT_STREAM_CONTEXT
    ok(acl.rt.destroy_context(other))
    assert in_thread(lambda: acl.rt.stream_abort(0)) == RT_PARAM_INVALID  # no current stream


def test_device_task_abort_unpoisons_the_context(device, kernels):
    """A stop-on-failure fault poisons the whole context (every stream's synchronize fails,
    nothing new is accepted); aborting the device's tasks clears that."""
    stream, sibling = ok(acl.rt.create_stream()), ok(acl.rt.create_stream())
    ok(acl.rt.set_stream_failure_mode(stream, 1))
    buf = dev_alloc(64)
    assert launch(kernels["poke"], stream, 1, buf, ctypes.c_uint64(1 << 20)) == SUCCESS
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
    assert acl.rt.synchronize_stream(sibling) == RT_AICORE_EXCEPTION
    ok(acl.rt.device_task_abort(0, 0))
    ok(acl.rt.synchronize_stream(stream))
    ok(acl.rt.synchronize_stream(sibling))
    ok(acl.rt.synchronize_device())
    out = zeroed(64)
    assert launch(kernels["write_value"], sibling, 1, out, ctypes.c_uint32(0), ctypes.c_int32(5)) == SUCCESS
    ok(acl.rt.synchronize_stream(sibling))
    assert from_device(out, 1, np.int32)[0] == 5
    for s in (stream, sibling):
        ok(acl.rt.destroy_stream(s))
    for p in (buf, out):
        ok(acl.rt.free(p))


def test_device_task_abort_ends_every_stream(device, kernels):
    """Streams of two contexts, one stuck on a notify, one running a long kernel, each with a
    kernel queued: the device abort ends both, drops the queued kernels, and a synchronize
    waiting meanwhile returns 107022."""
    stream = ok(acl.rt.create_stream())
    ctx2 = ok(acl.rt.create_context(0))
    other = ok(acl.rt.create_stream())  # in ctx2
    n = ok(acl.rt.create_notify(0))
    out = zeroed(64)
    ok(acl.rt.set_context(device))
    ok(acl.rt.wait_and_reset_notify(n, stream, 0))
    assert launch(kernels["write_value"], stream, 1, out, ctypes.c_uint32(0), ctypes.c_int32(1)) == SUCCESS
    ok(acl.rt.set_context(ctx2))
    assert launch(kernels["wait_us"], other, 2, out, ctypes.c_uint64(20_000_000)) == SUCCESS
    assert launch(kernels["write_value"], other, 1, out, ctypes.c_uint32(1), ctypes.c_int32(1)) == SUCCESS
    ok(acl.rt.set_context(device))
    waiter = Background(acl.rt.synchronize_stream, stream)
    wait_until(lambda: stream_busy(stream))
    time.sleep(0.2)
    t0 = time.monotonic()
    ok(acl.rt.device_task_abort(0, 0))
    assert time.monotonic() - t0 < 10
    assert waiter.join() == RT_DEVICE_TASK_ABORT
    ok(acl.rt.synchronize_stream(stream))
    assert list(from_device(out, 2, np.int32)) == [0, 0]  # neither queued kernel ran
    ok(acl.rt.set_context(ctx2))
    ok(acl.rt.synchronize_stream(other))
    ok(acl.rt.destroy_stream(other))
    ok(acl.rt.set_context(device))
    ok(acl.rt.destroy_context(ctx2))
    ok(acl.rt.destroy_notify(n))
    ok(acl.rt.destroy_stream(stream))
    ok(acl.rt.free(out))


def test_device_task_abort_arguments(runtime):
    assert acl.rt.device_task_abort(0, 36 * 60 * 1000 + 1) == RT_PARAM_INVALID
    assert acl.rt.device_task_abort(64, 0) == RT_INVALID_DEVICEID
    assert acl.rt.device_task_abort(0, 0) == RT_CONTEXT_NULL  # the device is not open here
    ok(acl.rt.set_device(0))
    try:
        ok(acl.rt.device_task_abort(0, 36 * 60 * 1000))
    finally:
        acl.rt.reset_device(0)


# ----------------------------------------------------------------------- AI CPU functions


def cpu_program_from_data() -> tuple[int, bytes]:
    data = b"\x7fELF not really: an AI CPU kernel library's bytes"
    ptr = ctypes.c_char_p(data)
    opts = [{"type": ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, "value": 2}]
    return ok(acl.rt.binary_load_from_data(ctypes.cast(ptr, ctypes.c_void_p).value, len(data), opts)), data


def test_register_cpu_func(stream, test_kernels_path):
    binary, _ = cpu_program_from_data()
    func = ok(acl.rt.register_cpu_func(binary, "RunCpuKernel", "MyCpuOp"))
    assert acl.rt.register_cpu_func(binary, "Other", "MyCpuOp") == (func, SUCCESS)  # same op type
    second = ok(acl.rt.register_cpu_func(binary, "RunCpuKernel", "OtherOp"))
    assert second != func
    assert acl.rt.get_function_name(func, 64) == ("MyCpuOp", SUCCESS)
    # The simulated device has no AI CPU: the launch is refused.
    args = ok(acl.rt.kernel_args_init(func))
    ok(acl.rt.kernel_args_finalize(args))
    assert acl.rt.launch_kernel_with_config(func, 1, stream, [], args, 0) == RT_FEATURE_NOT_SUPPORT
    ok(acl.rt.binary_unload(binary))
    assert acl.rt.get_function_name(func, 64)[1] == RT_INVALID_HANDLE  # gone with its binary

    aicore = ok(acl.rt.binary_load_from_file(str(test_kernels_path), []))
    assert acl.rt.register_cpu_func(aicore, "f", "k") == (0, RT_PARAM_INVALID)  # not an AI CPU program
    ok(acl.rt.binary_unload(aicore))
    assert acl.rt.register_cpu_func(aicore, "f", "k") == (0, RT_INVALID_HANDLE)
    with pytest.raises(ValueError, match=r"^argument 2 or 3 must not be empty$"):
        acl.rt.register_cpu_func(aicore, "", "k")
    binary, _ = cpu_program_from_data()
    assert in_thread(lambda: acl.rt.register_cpu_func(binary, "f", "k")) == (0, RT_CONTEXT_NULL)
    ok(acl.rt.binary_unload(binary))


def test_cpu_program_from_files(device, tmp_path):
    """Mode 0 reads the op-info JSON next to the path, mode 1 the .so too; from data only 2."""
    ops = {"MyCpuOp": {"opInfo": {"functionName": "RunCpuKernel", "kernelSo": "libcpu.so"}}}
    (tmp_path / "libcpu.json").write_text(json.dumps(ops))
    mode = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE
    binary = ok(acl.rt.binary_load_from_file(str(tmp_path / "libcpu.so"), [{"type": mode, "value": 0}]))
    ok(acl.rt.register_cpu_func(binary, "RunCpuKernel", "MyCpuOp"))
    ok(acl.rt.binary_unload(binary))
    # Mode 1 needs the .so as well.
    assert acl.rt.binary_load_from_file(str(tmp_path / "libcpu.so"), [{"type": mode, "value": 1}]) == (
        0,
        RT_PARAM_INVALID,
    )
    (tmp_path / "libcpu.so").write_bytes(b"\x7fELF")
    binary = ok(acl.rt.binary_load_from_file(str(tmp_path / "libcpu.so"), [{"type": mode, "value": 1}]))
    ok(acl.rt.binary_unload(binary))
    # No JSON, or not JSON: 107000.
    assert acl.rt.binary_load_from_file(str(tmp_path / "other.so"), [{"type": mode, "value": 0}])[1] == RT_PARAM_INVALID
    (tmp_path / "bad.json").write_text('{"MyCpuOp": {"opInfo": }')
    assert acl.rt.binary_load_from_file(str(tmp_path / "bad.so"), [{"type": mode, "value": 0}])[1] == RT_PARAM_INVALID
    # Invalid modes.
    assert (
        acl.rt.binary_load_from_file(str(tmp_path / "libcpu.so"), [{"type": mode, "value": 2}])[1] == RT_PARAM_INVALID
    )
    data = ctypes.create_string_buffer(b"bytes")
    assert acl.rt.binary_load_from_data(ctypes.addressof(data), 5, [{"type": mode, "value": 0}])[1] == RT_PARAM_INVALID
