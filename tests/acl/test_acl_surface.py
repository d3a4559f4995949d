"""The rest of pyACL's runtime surface (issue 11), function by function: device and context
queries, stream attributes and forced destruction, Ex events and event queries, the memory
variants and 2-D copies, binary descriptors, the runtime functions of pyACL's top level --
each with pyACL's argument forms and returns and the runtime's codes -- and the stand-ins for
what aiocann does not provide."""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from acl_codes import FEATURE_UNSUPPORTED, RT_AICORE_EXCEPTION, RT_INTERNAL_ERROR, RT_SYSPARAMOPT_NOT_SET
from pyacl_support import (
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    INVALID_FILE,
    INVALID_PARAM,
    REPEAT_FINALIZE,
    REPEAT_INITIALIZE,
    RT_CONTEXT_NULL,
    RT_FEATURE_NOT_SUPPORT,
    RT_INVALID_DEVICEID,
    RT_INVALID_HANDLE,
    RT_PARAM_INVALID,
    RT_STREAM_SYNC_TIMEOUT,
    SUCCESS,
    append_ptr,
    append_value,
    dev_alloc,
    from_device,
    in_thread,
    load_function,
    ok,
    to_device,
    vector_add_args,
    wait_us_args,
)

import aiocann.acl as acl

CORES = int(os.environ.get("AIOCANN_SIM_CORES", "8"))
DEVICES = int(os.environ.get("AIOCANN_SIM_DEVICES", "8"))  # the default machine: a 910B server
ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE = 0x1, 0x8


@pytest.fixture
def wait_us(device: int, test_kernels_path: object):
    binary, func = load_function(test_kernels_path, "wait_us")
    yield func
    acl.rt.binary_unload(binary)


def launch_wait(func: int, stream: int, usec: int, blocks: int = 1) -> int:
    """wait_us on `blocks` blocks (each sleeps usec, then writes its index + 1)."""
    out = dev_alloc(4 * max(blocks, 16))
    ok(acl.rt.memset(out, 4 * max(blocks, 16), 0, 4 * max(blocks, 16)))
    args = wait_us_args(func, out, usec)
    ok(acl.rt.launch_kernel_with_config(func, blocks, stream, [], args, 0))
    return out


# ----------------------------------------------------------------------- run mode, SoC, versions


def test_run_mode_and_soc_name():
    # Neither needs aclInit, as in the real runtime.
    assert acl.rt.get_run_mode() == (1, SUCCESS)  # ACL_HOST: the program drives devices from the host
    assert acl.rt.get_run_mode(1, 2) == (1, SUCCESS)  # no-argument wrappers ignore arguments
    assert acl.get_soc_name() == "Ascend910B1"


def test_soc_name_override(tmp_path):
    import subprocess
    import sys

    code = "import aiocann.acl as acl; print(acl.get_soc_name())"
    env = {**os.environ, "AIOCANN_BACKEND": "sim", "AIOCANN_SIM_SOC_NAME": "Ascend310P3"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "Ascend310P3", out.stderr


def test_devices_before_init():
    """As on CANN, whose runtime boots on first use: a pyACL program may count and open devices
    before acl.init() (third-party programs count devices first)."""
    import subprocess
    import sys

    code = (
        "import aiocann.acl as acl\n"
        "print(acl.rt.get_device_count(), acl.rt.set_device(0), acl.rt.get_device_info(0, 601),"
        " acl.rt.reset_device(0), acl.rt.reset_device(0), acl.init(), acl.finalize())"
    )
    env = {**os.environ, "AIOCANN_BACKEND": "sim", "AIOCANN_SIM_DEVICES": "4"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(4, 0) 0 (2201, 0) 0 507007 0 0"  # a second reset: never set again


def test_version_queries(runtime):
    assert acl.get_version()[:3] == (1, 17, 0)
    assert acl.get_version_str("runtime") == ("9.1.0", SUCCESS)
    assert acl.get_version_str("opp") == ("", INVALID_FILE)  # not installed
    info, ret = acl.get_cann_version(1)  # ACL_PKG_NAME_RUNTIME
    assert ret == SUCCESS
    assert info == {
        "version": "9.1.0",
        "major_version": "9",
        "minor_version": "1",
        "release_version": "0",
        "patch_version": "",
        "reserved": "",
    }
    info, ret = acl.get_cann_version(0)  # the CANN toolkit: not installed
    assert ret == INVALID_FILE and info["version"] == ""
    assert acl.get_cann_version(99)[1] == INVALID_PARAM


def test_finalize_reference_counts_inits():
    assert acl.init() == SUCCESS
    assert acl.init() == REPEAT_INITIALIZE  # counted
    assert acl.init() == REPEAT_INITIALIZE
    assert acl.finalize_reference() == (2, SUCCESS)
    assert acl.finalize_reference() == (1, SUCCESS)
    assert acl.rt.set_device(0) == SUCCESS  # still initialised
    assert acl.rt.reset_device(0) == SUCCESS
    assert acl.finalize_reference() == (0, SUCCESS)  # the last one tears down
    assert acl.finalize_reference() == (0, REPEAT_FINALIZE)
    assert acl.finalize() == REPEAT_FINALIZE  # aclFinalizeFlag: a finalize after a finalize
    # The runtime itself needs no aclInit: it boots again on first use (RuntimeKeeper).
    assert acl.rt.set_device(0) == SUCCESS
    assert acl.rt.reset_device(0) == SUCCESS
    assert acl.finalize() == REPEAT_FINALIZE  # still: no aclInit since the last finalize


def test_float16_conversions():
    assert acl.float16_to_float(0x3C00) == 1.0
    assert acl.float16_to_float(0xC000) == -2.0
    assert acl.float16_to_float(0x7C00) == float("inf")
    assert acl.float16_to_float(0x1_3C00) == 1.0  # "H": the low 16 bits
    assert acl.float_to_float16(1.0) == 0x3C00
    assert acl.float_to_float16(0.1) == 0x2E66  # round to nearest
    assert acl.float_to_float16(1e9) == 0x7C00 and acl.float_to_float16(-1e40) == 0xFC00
    assert acl.float_to_float16(2) == 0x4000  # an int is a float for "f"
    with pytest.raises(TypeError, match=r"acl\.float_to_float16 args parse failed"):
        acl.float_to_float16("1.0")


def test_app_log(caplog):
    with caplog.at_level(logging.DEBUG, logger="aiocann.acl"):
        assert acl.app_log(3, "something failed") is None
        acl.app_log(9, "not a level")
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [(logging.ERROR, "something failed")]


# ----------------------------------------------------------------------- device queries


def test_device_attributes(device):
    # The part's counts (Ascend910B1: 24 AI cores, 48 vector cores), not the simulator's
    # AIOCANN_SIM_CORES threads: the real runtime asks the driver (ApiImpl::GetDeviceInfoByAttr).
    assert acl.rt.get_device_info(0, 101) == (24, SUCCESS)  # ACL_DEV_ATTR_AICORE_CORE_NUM
    assert acl.rt.get_device_info(0, 102) == (24, SUCCESS)  # cube cores (cube_core_cnt)
    assert acl.rt.get_device_info(0, 201) == (48, SUCCESS)  # vector cores
    assert acl.rt.get_device_info(0, 601) == (2201, SUCCESS)  # ACL_DEV_ATTR_NPU_ARCH: A2
    assert acl.rt.get_device_info(0, 1) == (0, SUCCESS)  # no AI CPUs
    # TOTAL_GLOBAL_MEM_SIZE: pyACL formats the int64 with "i", so 4 GiB comes back as its low
    # 32 bits -- 0. The C call has the full value.
    from aiocann._lib import ffi, lib

    v = ffi.new("int64_t *")
    assert lib.aclrtGetDeviceInfo(0, 301, v) == SUCCESS
    assert acl.rt.get_device_info(0, 301) == (int(v[0]) & 0xFFFFFFFF, SUCCESS)
    assert acl.rt.get_device_info(0, 202) == (0, SUCCESS)  # warp size: DevProperties' 0, no SIMT cores
    assert acl.rt.get_device_info(0, 403)[1] == RT_FEATURE_NOT_SUPPORT  # super pod: none simulated
    assert acl.rt.get_device_info(0, 7)[1] == RT_PARAM_INVALID  # no such attribute (GetDeviceInfoByAttrMisc)
    assert acl.rt.get_device_info(DEVICES, 101)[1] == RT_INVALID_DEVICEID
    assert acl.get_device_capability(0, 0) == (24, SUCCESS)  # ACL_DEVICE_INFO_AI_CORE_NUM
    assert acl.get_device_capability(0, 1) == (48, SUCCESS)  # ACL_DEVICE_INFO_VECTOR_CORE_NUM
    assert acl.get_device_capability(0, 2) == (0, SUCCESS)  # no L2 cache
    assert acl.get_device_capability(DEVICES, 0)[1] == INVALID_PARAM
    assert acl.get_device_capability(0, 7)[1] == INVALID_PARAM
    assert acl.rt.device_get_stream_priority_range() == (7, 0, SUCCESS)
    assert acl.rt.get_device_capability(0, 1) == (0, SUCCESS)
    assert acl.rt.get_device_capability(0, 5)[1] == RT_PARAM_INVALID
    assert acl.rt.query_device_status(0) == (0, SUCCESS)
    assert acl.rt.query_device_status(DEVICES)[1] == RT_INVALID_DEVICEID


def test_device_ids_and_uuid(runtime):
    # a negative id: RT_ERROR_DEVICE_ID for the user/logic pair (ApiErrorDecorator::
    # GetLogicDevIdByUserDevId, GetUserDevIdByLogicDevId), 107000 for the physical one
    for fn, negative in (
        (acl.rt.get_logic_dev_id_by_user_dev_id, RT_INVALID_DEVICEID),
        (acl.rt.get_user_dev_id_by_logic_dev_id, RT_INVALID_DEVICEID),
        (acl.rt.get_logic_dev_id_by_phy_dev_id, RT_PARAM_INVALID),
        (acl.rt.get_phy_dev_id_by_logic_dev_id, RT_PARAM_INVALID),
    ):
        assert fn(1) == (1, SUCCESS)
        assert fn(-1)[1] == negative
        assert fn(DEVICES)[1] == RT_INVALID_DEVICEID
    u0, ret = acl.rt.device_get_uuid(0)
    assert ret == SUCCESS and len(u0["bytes"]) == 16
    assert all(-128 <= b <= 127 for b in u0["bytes"])  # chars, through "i"
    assert acl.rt.device_get_uuid(0) == (u0, SUCCESS)  # stable
    assert acl.rt.device_get_uuid(1)[0] != u0
    assert acl.rt.device_get_uuid(DEVICES)[1] == RT_INVALID_DEVICEID
    assert acl.rt.device_get_bare_tgid() == (os.getpid(), SUCCESS)


def test_ts_and_saturation_modes(runtime):
    assert acl.rt.set_ts_device(0) == SUCCESS and acl.rt.set_ts_device(1) == SUCCESS
    assert acl.rt.set_ts_device(2) == INVALID_PARAM
    # Ascend910B1 has both overflow modes (supportOverflowMode), INF_NAN from boot (Runtime::Init);
    # the mode is the process's (other chips: tests/sim/test_chip.py).
    assert acl.rt.get_device_sat_mode() == (1, SUCCESS)  # ACL_RT_OVERFLOW_MODE_INFNAN
    assert acl.rt.set_device_sat_mode(0) == SUCCESS  # SATURATION
    assert acl.rt.get_device_sat_mode() == (0, SUCCESS)
    assert acl.rt.set_device_sat_mode(1) == SUCCESS
    assert acl.rt.get_device_sat_mode() == (1, SUCCESS)
    assert acl.rt.set_device_sat_mode(2) == RT_PARAM_INVALID


def test_utilization_follows_the_cores(stream, wait_us):
    def rates() -> dict[str, int]:
        value, ret = acl.rt.get_device_utilization_rate(0)
        assert ret == SUCCESS
        return value

    idle = rates()
    assert idle == {
        "cube_utilization": 0,
        "vector_utilization": 0,
        "aicpu_utilization": -1,
        "memory_utilization": -1,
        "utilization_extend": 0,
    }
    blocks = max(1, CORES // 2)
    launch_wait(wait_us, stream, 400_000, blocks=blocks)
    expected = blocks * 100 // CORES
    deadline = time.monotonic() + 5
    busy = rates()
    while busy["cube_utilization"] < expected and time.monotonic() < deadline:  # blocks start one by one
        time.sleep(0.01)
        busy = rates()
    assert busy["cube_utilization"] == busy["vector_utilization"] == expected
    ok(acl.rt.synchronize_stream(stream))
    assert rates()["cube_utilization"] == 0
    # A device the thread has no context on: unknown (-1), not an error.
    other, ret = acl.rt.get_device_utilization_rate(1)
    assert ret == SUCCESS and other["cube_utilization"] == -1
    # No context at all.
    assert in_thread(lambda: acl.rt.get_device_utilization_rate(0))[0]["cube_utilization"] == -1


def test_synchronize_device_with_timeout(stream, wait_us):
    out = launch_wait(wait_us, stream, 400_000)
    t0 = time.monotonic()
    assert acl.rt.synchronize_device_with_timeout(50) == RT_STREAM_SYNC_TIMEOUT
    assert time.monotonic() - t0 < 0.35
    assert acl.rt.synchronize_device_with_timeout(-2) == RT_PARAM_INVALID
    assert acl.rt.synchronize_device_with_timeout(-1) == SUCCESS
    assert from_device(out, 1, np.int32)[0] == 1
    # 0 is refused (ApiErrorDecorator::DeviceSynchronize: "not equal to 0"), pending work or not
    assert acl.rt.synchronize_device_with_timeout(0) == RT_PARAM_INVALID
    assert acl.rt.synchronize_device_with_timeout(10) == SUCCESS  # nothing pending
    assert in_thread(lambda: acl.rt.synchronize_device_with_timeout(10)) == RT_CONTEXT_NULL


def test_peer_access(device):
    assert acl.rt.device_can_access_peer(0, 1) == (1, SUCCESS)
    assert acl.rt.device_can_access_peer(0, 0)[1] == INVALID_PARAM
    assert acl.rt.device_can_access_peer(1, 0)[1] == RT_CONTEXT_NULL  # no context on device 1
    assert acl.rt.device_can_access_peer(0, DEVICES)[1] == RT_INVALID_DEVICEID
    assert acl.rt.device_peer_access_status(0, 1) == (0, SUCCESS)
    assert acl.rt.device_enable_peer_access(1, 0) == SUCCESS
    assert acl.rt.device_peer_access_status(0, 1) == (1, SUCCESS)
    assert acl.rt.device_enable_peer_access(1, 1) == FEATURE_UNSUPPORTED  # flags are reserved
    assert acl.rt.device_enable_peer_access(0, 0) == INVALID_PARAM
    assert acl.rt.device_disable_peer_access(1) == SUCCESS
    assert acl.rt.device_peer_access_status(0, 1) == (0, SUCCESS)


def test_contexts_default_stream_and_primary_state(runtime):
    assert acl.rt.get_primary_ctx_state(0) == (0, 0, SUCCESS)
    ok(acl.rt.set_device(0))
    try:
        assert acl.rt.get_primary_ctx_state(0) == (1, 0, SUCCESS)
        assert acl.rt.get_primary_ctx_state(DEVICES)[2] == RT_INVALID_DEVICEID
        default = ok(acl.rt.ctx_get_current_default_stream())
        assert default != 0
        # It is the stream 0 stands for: work on one is finished by synchronizing the other.
        src = np.arange(256, dtype=np.uint8)
        p = dev_alloc(256)
        ok(acl.rt.memcpy_async(p, 256, src.ctypes.data, 256, ACL_MEMCPY_HOST_TO_DEVICE, default))
        ok(acl.rt.synchronize_stream(0))
        assert np.array_equal(from_device(p, 256, np.uint8), src)
        ok(acl.rt.free(p))
    finally:
        ok(acl.rt.reset_device(0))
    assert acl.rt.get_primary_ctx_state(0) == (0, 0, SUCCESS)
    assert in_thread(acl.rt.ctx_get_current_default_stream)[1] == RT_CONTEXT_NULL


def test_sys_param_options(device):
    assert acl.rt.ctx_get_sys_param_opt(0)[1] == RT_SYSPARAMOPT_NOT_SET
    assert acl.rt.ctx_set_sys_param_opt(0, 3) == SUCCESS  # deterministic: levels 0..3
    assert acl.rt.ctx_get_sys_param_opt(0) == (3, SUCCESS)
    assert acl.rt.ctx_set_sys_param_opt(0, 4) == RT_PARAM_INVALID
    assert acl.rt.ctx_set_sys_param_opt(1, 2) == RT_PARAM_INVALID  # others: 0 or 1
    assert acl.rt.ctx_set_sys_param_opt(3, 1) == INVALID_PARAM  # early start is process-wide only
    # Another context has its own options.
    ctx = ok(acl.rt.create_context(0))
    assert acl.rt.ctx_get_sys_param_opt(0)[1] == RT_SYSPARAMOPT_NOT_SET
    ok(acl.rt.destroy_context(ctx))
    assert in_thread(lambda: acl.rt.ctx_set_sys_param_opt(0, 1)) == RT_CONTEXT_NULL
    assert acl.rt.get_sys_param_opt(3) == (0, SUCCESS)  # process options read 0 until set
    assert acl.rt.set_sys_param_opt(3, 1) == SUCCESS
    assert acl.rt.get_sys_param_opt(3) == (1, SUCCESS)
    assert acl.rt.set_sys_param_opt(3, 0) == SUCCESS
    assert acl.rt.get_sys_param_opt(4)[1] == INVALID_PARAM


# ----------------------------------------------------------------------- streams


def test_stream_available_num(device):
    before = ok(acl.rt.get_stream_available_num())
    s = ok(acl.rt.create_stream())
    assert ok(acl.rt.get_stream_available_num()) == before - 1
    ok(acl.rt.destroy_stream(s))
    assert ok(acl.rt.get_stream_available_num()) == before


def test_destroy_stream_force_lets_submitted_work_finish(device, wait_us):
    """Stream::TearDown(force) polls the stream's queue until the device has consumed it (up
    to 3000 polls, 1 ms apart) before it recycles what is left: work already submitted runs --
    CANN's memory samples launch a kernel, force-destroy the stream without a synchronize and
    read the output."""
    s = ok(acl.rt.create_stream())
    out = launch_wait(wait_us, s, 300_000)
    later = dev_alloc(64)
    ok(acl.rt.memset(later, 64, 0, 64))
    for _ in range(20):
        ok(acl.rt.memset_async(later, 64, 7, 64, s))
    event = ok(acl.rt.create_event())
    ok(acl.rt.record_event(event, s))
    t0 = time.monotonic()
    assert acl.rt.destroy_stream_force(s) == SUCCESS
    assert 0.25 <= time.monotonic() - t0 < 2.5  # waited for the kernel, not for the 3 s bound
    assert from_device(out, 1, np.int32)[0] == 1  # the kernel ran to its end
    assert np.all(from_device(later, 64, np.uint8) == 7)  # and everything behind it
    assert acl.rt.synchronize_event(event) == SUCCESS
    assert acl.rt.synchronize_stream(s) == RT_INVALID_HANDLE  # the handle is gone
    assert acl.rt.destroy_stream_force(s) == RT_INVALID_HANDLE
    ok(acl.rt.destroy_event(event))


@pytest.mark.slow
def test_destroy_stream_force_discards_what_is_left_after_3_s(device, wait_us):
    """Past the 3 s of polls the runtime recycles the queue (what the device does with it is
    the firmware's): the simulator discards what has not started; a running kernel cannot be
    recalled and is waited for. Its event record still triggers, so no waiter hangs."""
    s = ok(acl.rt.create_stream())
    out = launch_wait(wait_us, s, 3_400_000)
    later = dev_alloc(64)
    ok(acl.rt.memset(later, 64, 0, 64))
    for _ in range(5):
        ok(acl.rt.memset_async(later, 64, 7, 64, s))
    event = ok(acl.rt.create_event())
    ok(acl.rt.record_event(event, s))
    t0 = time.monotonic()
    assert acl.rt.destroy_stream_force(s) == SUCCESS
    assert 3.3 <= time.monotonic() - t0 < 6.0
    assert from_device(out, 1, np.int32)[0] == 1
    assert np.all(from_device(later, 64, np.uint8) == 0)  # discarded, never run
    assert acl.rt.synchronize_event(event) == SUCCESS
    ok(acl.rt.destroy_event(event))


def test_stream_attributes(stream):
    assert acl.rt.get_stream_attribute(stream, 3) == ({"userCustomTag": 0}, SUCCESS)
    assert acl.rt.set_stream_attribute(stream, 3, {"userCustomTag": 0xABC}) == SUCCESS
    assert acl.rt.get_stream_attribute(stream, 3) == ({"userCustomTag": 0xABC}, SUCCESS)
    # Priority and cache-op info travel in the "reserved" words (pyACL's union handling).
    assert acl.rt.set_stream_attribute(stream, 5, {"reserved": [3]}) == SUCCESS
    assert acl.rt.get_stream_attribute(stream, 5) == ({"reserved": [3, 0, 0, 0]}, SUCCESS)
    assert acl.rt.set_stream_attribute(stream, 5, {"reserved": [99]}) == SUCCESS
    assert acl.rt.get_stream_attribute(stream, 5)[0]["reserved"][0] == 7  # clamped to [0, 7]
    assert acl.rt.set_stream_attribute(stream, 4, {"reserved": [2]}) == RT_PARAM_INVALID
    # The overflow check is the stream's overflow switch (aclrtSetStreamOverflowSwitch).
    assert acl.rt.set_stream_attribute(stream, 2, {"overflowSwitch": 1}) == SUCCESS
    assert acl.rt.get_stream_attribute(stream, 2) == ({"overflowSwitch": 1}, SUCCESS)
    assert acl.rt.get_stream_overflow_switch(stream) == (1, SUCCESS)
    assert acl.rt.set_stream_attribute(stream, 2, {"overflowSwitch": 2}) == RT_PARAM_INVALID
    assert acl.rt.get_stream_attribute(stream, 1) == ({"failureMode": 0}, SUCCESS)  # continue
    assert acl.rt.get_stream_attribute(stream, 9)[1] == RT_PARAM_INVALID
    assert acl.rt.get_stream_attribute(0, 3) == ({"userCustomTag": 0}, SUCCESS)  # default stream
    assert acl.rt.get_stream_attribute(12345, 3)[1] == RT_INVALID_HANDLE
    with pytest.raises(TypeError, match="the aclrtStreamAttrValue argument is not dict"):
        acl.rt.set_stream_attribute(stream, 3, [1])
    with pytest.raises(ValueError, match="The length of reserved should be no greater than 4"):
        acl.rt.set_stream_attribute(stream, 5, {"reserved": [0] * 5})
    with pytest.raises(ValueError, match="PyLong_AsUnsignedLong failed"):
        acl.rt.set_stream_attribute(stream, 3, {"userCustomTag": -1})


def test_stream_attribute_failure_mode_is_stream_set_mode(stream):
    """rtsStreamSetAttribute(FAILURE_MODE) is StreamSetMode, as aclrtSetStreamFailureMode;
    rtsStreamGetAttribute(FAILURE_MODE) is StreamGetMode, the mode configured on that stream."""
    from aiocann._lib import ffi, lib

    assert acl.rt.set_stream_attribute(stream, 1, {"failureMode": 0}) == SUCCESS  # already so
    assert acl.rt.get_stream_attribute(stream, 1) == ({"failureMode": 0}, SUCCESS)
    assert acl.rt.set_stream_attribute(stream, 1, {"failureMode": 1}) == SUCCESS
    assert acl.rt.get_stream_attribute(stream, 1) == ({"failureMode": 1}, SUCCESS)
    assert acl.rt.set_stream_failure_mode(stream, 1) == SUCCESS  # same state, same call
    # stop -> continue is refused by the same state machine
    assert acl.rt.set_stream_attribute(stream, 1, {"failureMode": 0}) == RT_FEATURE_NOT_SUPPORT
    assert lib.aclrtSetStreamFailureMode(ffi.cast("void *", stream), 0) == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.set_stream_failure_mode(stream, 0) == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.get_stream_attribute(stream, 1) == ({"failureMode": 1}, SUCCESS)
    assert acl.rt.set_stream_attribute(12345, 1, {"failureMode": 1}) == RT_INVALID_HANDLE
    assert acl.rt.get_stream_attribute(12345, 1)[1] == RT_INVALID_HANDLE


# ----------------------------------------------------------------------- events


def test_ex_events(stream):
    ev = ok(acl.rt.create_event_ex_with_flag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE))
    assert acl.rt.query_event_status(ev) == (1, SUCCESS)  # never recorded: complete (new mode)
    assert acl.rt.reset_event(ev, stream) == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.query_event(ev)[1] == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.query_event_wait_status(ev)[1] == RT_FEATURE_NOT_SUPPORT
    ok(acl.rt.record_event(ev, stream))
    ok(acl.rt.synchronize_event(ev))
    assert acl.rt.query_event_status(ev) == (1, SUCCESS)
    ok(acl.rt.destroy_event(ev))
    assert acl.rt.create_event_ex_with_flag(0x40 | 0x1)[1] == RT_PARAM_INVALID  # IPC stands alone
    # A plain event never recorded is not complete in the old mode.
    plain = ok(acl.rt.create_event())
    assert acl.rt.query_event_status(plain) == (0, SUCCESS)
    ok(acl.rt.destroy_event(plain))


def test_query_event_and_wait_status(device, wait_us):
    s1, s2 = ok(acl.rt.create_stream()), ok(acl.rt.create_stream())
    ev = ok(acl.rt.create_event())
    assert acl.rt.query_event(ev) == (0, SUCCESS)  # ACL_EVENT_STATUS_COMPLETE: no record pending
    assert acl.rt.query_event_wait_status(ev) == (0, SUCCESS)  # nobody waits
    launch_wait(wait_us, s1, 300_000)
    ok(acl.rt.record_event(ev, s1))
    ok(acl.rt.stream_wait_event(s2, ev))
    assert acl.rt.query_event(ev) == (1, SUCCESS)  # NOT_READY
    assert acl.rt.query_event_wait_status(ev) == (1, SUCCESS)  # s2's wait not passed yet
    ok(acl.rt.synchronize_stream(s2))
    assert acl.rt.query_event(ev) == (0, SUCCESS)
    assert acl.rt.query_event_wait_status(ev) == (0, SUCCESS)
    for s in (s1, s2):
        ok(acl.rt.destroy_stream(s))
    ok(acl.rt.destroy_event(ev))


def test_event_ids_and_avail_num(device):
    before = ok(acl.rt.get_event_avail_num())
    a, b = ok(acl.rt.create_event()), ok(acl.rt.create_event_with_flag(ACL_EVENT_SYNC))
    assert ok(acl.rt.get_event_avail_num()) == before - 2
    ida, idb = ok(acl.rt.get_event_id(a)), ok(acl.rt.get_event_id(b))
    assert ida != idb and ida < 1 << 24
    timeline = ok(acl.rt.create_event_with_flag(ACL_EVENT_TIME_LINE))
    assert acl.rt.get_event_id(timeline)[1] == RT_INTERNAL_ERROR  # no device event behind it
    assert acl.rt.get_event_id(0)[1] == INVALID_PARAM
    for e in (a, b, timeline):
        ok(acl.rt.destroy_event(e))
    assert ok(acl.rt.get_event_avail_num()) == before
    assert in_thread(acl.rt.get_event_avail_num)[1] == RT_CONTEXT_NULL


# ----------------------------------------------------------------------- memory


def used() -> int:
    free, total, ret = acl.rt.get_mem_info(1)  # ACL_HBM_MEM
    assert ret == SUCCESS
    return total - free


def test_malloc_variants(device):
    base = used()
    p = ok(acl.rt.malloc(100, 0))
    assert used() - base == 160  # roundup(100, 32) + 32
    q = ok(acl.rt.malloc_align32(100, 0))
    assert used() - base == 160 + 128  # roundup(100, 32), no padding
    c = ok(acl.rt.malloc_cached(100, 0))
    assert ok(acl.rt.mem_flush(c, 100)) is None and ok(acl.rt.mem_invalidate(c, 64)) is None
    assert acl.rt.mem_flush(c, 0) == INVALID_PARAM
    assert acl.rt.mem_flush(c, 4096) == RT_PARAM_INVALID  # beyond the allocation
    host = np.zeros(16, np.uint8)
    assert acl.rt.mem_invalidate(host.ctypes.data, 16) == RT_PARAM_INVALID
    for ptr in (p, q, c):
        ok(acl.rt.free(ptr))
    assert used() == base
    assert acl.rt.malloc_align32(0, 0)[1] == INVALID_PARAM
    assert in_thread(lambda: acl.rt.malloc_cached(64, 0))[1] == RT_CONTEXT_NULL


def test_malloc_with_cfg(device):
    base = used()
    p = ok(acl.rt.malloc_with_cfg(100, 0, {}))
    assert used() - base == 128  # 32-byte rounding only
    ok(acl.rt.free(p))
    cfg = {"numAttrs": 2, "attrs": [{"attr": 1, "value": {"moduleId": 7}}, {"attr": 2, "value": {"deviceId": 0}}]}
    p = ok(acl.rt.malloc_with_cfg(64, 0, cfg))
    ok(acl.rt.free(p))
    p = ok(acl.rt.malloc_for_task_scheduler(64, 0, cfg))
    ok(acl.rt.free(p))
    wrong_device = {"numAttrs": 1, "attrs": [{"attr": 2, "value": {"deviceId": 1}}]}
    assert acl.rt.malloc_with_cfg(64, 0, wrong_device)[1] == RT_PARAM_INVALID
    va_flag = {"numAttrs": 1, "attrs": [{"attr": 3, "value": {"rsv": [1]}}]}
    assert acl.rt.malloc_with_cfg(64, 0, va_flag)[1] == RT_PARAM_INVALID  # not for device memory
    # Host memory with a config is pinned memory.
    h = ok(acl.rt.malloc_host_with_cfg(64, {"numAttrs": 1, "attrs": [{"attr": 1, "value": {"moduleId": 3}}]}))
    assert acl.rt.pointer_get_attributes(h)[0]["location"]["type"] == 0  # HOST
    ok(acl.rt.free_host(h))
    assert acl.rt.malloc_host_with_cfg(64, wrong_device)[1] == RT_PARAM_INVALID
    # pyACL's errors for malformed configs.
    with pytest.raises(TypeError, match="pyCfg is not dict!"):
        acl.rt.malloc_with_cfg(64, 0, [])
    with pytest.raises(TypeError, match="the aclrtMallocAttrValue argument is not dict"):
        acl.rt.malloc_with_cfg(64, 0, {"numAttrs": 1})
    with pytest.raises(KeyError, match="does not match the expected numAttrs"):
        acl.rt.malloc_with_cfg(64, 0, {"numAttrs": 2, "attrs": [{"attr": 1}]})
    with pytest.raises(KeyError, match="No valid key found"):
        acl.rt.malloc_with_cfg(64, 0, {"numAttrs": 1, "attrs": [{"attr": 1, "value": {}}]})
    with pytest.raises(TypeError, match="the aclrtMallocWithCfg argument is not dict"):
        acl.rt.malloc_with_cfg(64, 0, {"numAttrs": 1, "attrs": [5]})


def test_pointer_attributes(device):
    page = os.sysconf("SC_PAGESIZE")
    p = dev_alloc(256)
    assert acl.rt.pointer_get_attributes(p + 100) == (
        {"location": {"id": 0, "type": 1}, "page_size": page, "rsv": [0, 0, 0, 0]},
        SUCCESS,
    )
    pinned = ok(acl.rt.malloc_host(64))
    assert acl.rt.pointer_get_attributes(pinned)[0]["location"] == {"id": 0, "type": 0}
    host = np.zeros(8)
    assert acl.rt.pointer_get_attributes(host.ctypes.data)[0]["location"] == {"id": 0, "type": 2}
    ok(acl.rt.free(p))
    assert acl.rt.pointer_get_attributes(p)[1] == RT_PARAM_INVALID  # freed device memory
    assert acl.rt.pointer_get_attributes(0)[1] == INVALID_PARAM
    ok(acl.rt.free_host(pinned))


def test_memcpy2d(stream):
    rows, width, spitch, dpitch = 6, 10, 16, 12
    src = np.arange(rows * spitch, dtype=np.uint8).reshape(rows, spitch)
    dev = dev_alloc(rows * dpitch)
    ok(acl.rt.memset(dev, rows * dpitch, 0xEE, rows * dpitch))
    ok(acl.rt.memcpy2d(dev, dpitch, src.ctypes.data, spitch, width, rows, ACL_MEMCPY_HOST_TO_DEVICE))
    got = from_device(dev, rows * dpitch, np.uint8).reshape(rows, dpitch)
    assert np.array_equal(got[:, :width], src[:, :width])
    assert np.all(got[:, width:] == 0xEE)  # the gap between rows is untouched
    back = np.zeros((rows, 32), np.uint8)
    ok(acl.rt.memcpy2d(back.ctypes.data, 32, dev, dpitch, width, rows, 4))  # ACL_MEMCPY_DEFAULT
    assert np.array_equal(back[:, :width], src[:, :width]) and not back[:, width:].any()
    # The asynchronous form: D2D (which the synchronous one refuses), then D2H from pageable
    # memory, which is complete when the call returns.
    dev2 = dev_alloc(rows * dpitch)
    assert (
        acl.rt.memcpy2d(dev2, dpitch, dev, dpitch, width, rows, ACL_MEMCPY_DEVICE_TO_DEVICE) == RT_FEATURE_NOT_SUPPORT
    )
    ok(acl.rt.memcpy2d_async(dev2, dpitch, dev, dpitch, width, rows, ACL_MEMCPY_DEVICE_TO_DEVICE, stream))
    out = np.zeros((rows, dpitch), np.uint8)
    ok(acl.rt.memcpy2d_async(out.ctypes.data, dpitch, dev2, dpitch, width, rows, ACL_MEMCPY_DEVICE_TO_HOST, stream))
    assert np.array_equal(out[:, :width], src[:, :width])
    # Checks, in the real order: nothing to copy succeeds at once; then ACL's, then the runtime's.
    assert acl.rt.memcpy2d(0, 0, 0, 0, 0, 5, 1) == SUCCESS
    assert acl.rt.memcpy2d(dev, dpitch, src.ctypes.data, spitch, dpitch + 1, 1, 1) == INVALID_PARAM
    assert acl.rt.memcpy2d(dev, dpitch, src.ctypes.data, spitch, width, rows, 0) == INVALID_PARAM  # H2H kind
    assert acl.rt.memcpy2d(dev, 1 << 23, src.ctypes.data, 1 << 23, 5_000_001, 1, 1) == RT_PARAM_INVALID
    # past the allocation (and its ACL padding of 32 bytes)
    assert acl.rt.memcpy2d(dev, dpitch, src.ctypes.data, spitch, width, rows + 10, 1) == RT_PARAM_INVALID
    host2 = np.zeros(rows * dpitch, np.uint8)
    assert acl.rt.memcpy2d(host2.ctypes.data, dpitch, src.ctypes.data, spitch, width, rows, 4) == RT_PARAM_INVALID
    for p in (dev, dev2):
        ok(acl.rt.free(p))


def test_memcpy2d_async_from_pinned_memory(stream):
    rows, width = 4, 64
    pinned = ok(acl.rt.malloc_host(rows * width))
    ctypes.memset(pinned, 0x5A, rows * width)
    dev = dev_alloc(rows * width)
    ok(acl.rt.memcpy2d_async(dev, width, pinned, width, width, rows, ACL_MEMCPY_HOST_TO_DEVICE, stream))
    ok(acl.rt.synchronize_stream(stream))
    assert np.all(from_device(dev, rows * width, np.uint8) == 0x5A)
    ok(acl.rt.free(dev))
    ok(acl.rt.free_host(pinned))


# ----------------------------------------------------------------------- binaries and functions


def test_binary_descriptor_load_and_launch(stream, vector_add_path):
    data = vector_add_path.read_bytes()
    binary = acl.rt.create_binary(acl.util.bytes_to_ptr(data), len(data))
    assert isinstance(binary, int) and binary != 0  # the handle alone: no ret
    handle = ok(acl.rt.binary_load(binary))
    handle2 = ok(acl.rt.binary_load(binary))  # a descriptor loads as often as asked
    assert handle != handle2
    func = ok(acl.rt.binary_get_function(handle, "add_custom"))
    n = 1024
    x, y = np.arange(n, dtype=np.float32), np.full(n, 2, np.float32)
    dx, dy, dz = to_device(x), to_device(y), dev_alloc(x.nbytes)
    args, _ = vector_add_args(func, dx, dy, dz, n)
    ok(acl.rt.launch_kernel_with_config(func, 4, stream, [], args, 0))
    ok(acl.rt.synchronize_stream(stream))
    assert np.array_equal(from_device(dz, n, np.float32), x + y)
    # Function queries.
    aic, aiv = ok(acl.rt.get_function_addr(func))
    assert aic != 0 and aiv == 0  # one entry, reported as the AI Core address
    assert acl.rt.get_function_name(func, 64) == ("add_custom", SUCCESS)
    assert acl.rt.get_function_name(func, 11) == ("add_custom", SUCCESS)  # exactly the name + NUL
    assert acl.rt.get_function_name(func, 10) == ("", RT_PARAM_INVALID)
    with pytest.raises(ValueError, match="maxLen should be less than 1024"):
        acl.rt.get_function_name(func, 1024)
    assert acl.rt.get_function_addr(binary)[2] == RT_INVALID_HANDLE
    ok(acl.rt.destroy_binary(binary))
    assert acl.rt.destroy_binary(binary) == RT_INVALID_HANDLE
    assert acl.rt.binary_load(binary)[1] == RT_INVALID_HANDLE
    for h in (handle, handle2):
        ok(acl.rt.binary_unload(h))
    assert acl.rt.get_function_name(func, 64)[1] == RT_INVALID_HANDLE  # unloaded with its binary
    assert acl.rt.create_binary(0, 16) == 0
    garbage = bytes(64)
    desc = acl.rt.create_binary(acl.util.bytes_to_ptr(garbage), len(garbage))
    assert acl.rt.binary_load(desc)[1] == RT_PARAM_INVALID
    ok(acl.rt.destroy_binary(desc))
    for p in (dx, dy, dz):
        ok(acl.rt.free(p))


# ----------------------------------------------------------------------- failure model
#
# pyACL's wrappers over the runtime's failure model (rt_stream.cpp, rt_synchronize.cpp):
# set_stream_failure_mode "kI" -> ret; stream_get_id "k" -> (id, ret); get_thread_last_task_id
# no arguments -> (task_id, ret); set_exception_info_callback "|O" -> ret, the Python function
# called on a runtime thread with the report's address; the getters "k" -> the value alone;
# peek_at_last_error / get_last_error "i" -> ret.


@pytest.fixture
def poke(device: int, test_kernels_path: object):
    """test_kernels' poke(buf, offset): writes at buf + offset -- a fault when offset is far."""
    binary, func = load_function(test_kernels_path, "poke")
    yield func
    acl.rt.binary_unload(binary)


def launch_fault(func: int, stream: int) -> int:
    """A poke 1 MiB past a 64-byte buffer: the task fails with 507015. Returns its task id."""
    args = ok(acl.rt.kernel_args_init(func))
    append_ptr(args, dev_alloc(64))
    append_value(args, ctypes.c_uint64(1 << 20))
    ok(acl.rt.kernel_args_finalize(args))
    ok(acl.rt.launch_kernel_with_config(func, 1, stream, [], args, 0))
    return ok(acl.rt.get_thread_last_task_id())


@pytest.fixture
def exception_callback_cleared():
    """The callback slot is process-wide and survives acl.finalize: clear it after the test."""
    try:
        yield
    finally:
        assert acl.rt.set_exception_info_callback() == SUCCESS


def test_stream_ids_and_thread_last_task_id(stream):
    other = ok(acl.rt.create_stream())
    sid, other_id, default_id = (ok(acl.rt.stream_get_id(s)) for s in (stream, other, 0))
    assert len({sid, other_id, default_id}) == 3  # per-device ids; 0 is the default stream
    assert acl.rt.stream_get_id(12345) == (0, RT_INVALID_HANDLE)
    with pytest.raises(TypeError, match=r"^acl.rt.stream_get_id args parse failed$"):
        acl.rt.stream_get_id("s")
    # (task_id, ret): 0xFFFFFFFF on a thread that has submitted nothing, then the last task
    # this thread submitted -- a memset is a task -- counted per stream.
    assert in_thread(acl.rt.get_thread_last_task_id) == (0xFFFFFFFF, SUCCESS)
    buf = dev_alloc(64)
    ok(acl.rt.memset_async(buf, 64, 0, 64, stream))
    first = ok(acl.rt.get_thread_last_task_id())
    ok(acl.rt.memset_async(buf, 64, 1, 64, stream))
    assert acl.rt.get_thread_last_task_id() == (first + 1, SUCCESS)
    ok(acl.rt.memset_async(buf, 64, 2, 64, other))
    assert acl.rt.get_thread_last_task_id("ignored", 2) == (0, SUCCESS)  # other's first task
    ok(acl.rt.synchronize_device())
    ok(acl.rt.destroy_stream(other))
    ok(acl.rt.free(buf))


def test_set_stream_failure_mode(stream):
    """Each stream keeps the mode set on it; stop also makes its whole context stop on failure
    (ApiImpl::StreamSetMode, Stream::SetFailMode)."""
    sibling = ok(acl.rt.create_stream())
    assert acl.rt.set_stream_failure_mode(stream, 0) == SUCCESS  # its mode already: a no-op
    assert acl.rt.set_stream_failure_mode(stream, (1 << 32) | 2) == SUCCESS  # "I", then bit 0: continue
    assert acl.rt.get_stream_attribute(stream, 1) == ({"failureMode": 0}, SUCCESS)
    assert acl.rt.set_stream_failure_mode(stream, 3) == SUCCESS  # bit 0: stop
    assert acl.rt.get_stream_attribute(stream, 1) == ({"failureMode": 1}, SUCCESS)
    assert acl.rt.set_stream_failure_mode(stream, 1) == SUCCESS  # same mode
    assert acl.rt.set_stream_failure_mode(stream, 0) == RT_FEATURE_NOT_SUPPORT  # stop -> continue
    # The sibling's own mode is still continue, so continue is a no-op there, even though its
    # context now stops on failure.
    assert acl.rt.get_stream_attribute(sibling, 1) == ({"failureMode": 0}, SUCCESS)
    assert acl.rt.set_stream_failure_mode(sibling, 0) == SUCCESS
    assert acl.rt.set_stream_failure_mode(12345, 1) == RT_INVALID_HANDLE
    with pytest.raises(TypeError, match=r"^acl.rt.set_stream_failure_mode args parse failed!$"):
        acl.rt.set_stream_failure_mode(stream, "1")
    ok(acl.rt.destroy_stream(sibling))


def test_failure_mode_after_a_stop_on_failure_abort(stream, poke):
    sibling = ok(acl.rt.create_stream())
    ok(acl.rt.set_stream_failure_mode(stream, 1))
    launch_fault(poke, stream)
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
    assert acl.rt.synchronize_stream(sibling) == RT_AICORE_EXCEPTION  # the whole context
    # The configured mode reads the same after the abort; setting stop on an aborted stop
    # stream is refused ("from abort mode to stop mode").
    assert acl.rt.get_stream_attribute(stream, 1) == ({"failureMode": 1}, SUCCESS)
    assert acl.rt.set_stream_failure_mode(stream, 1) == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.get_stream_attribute(sibling, 1) == ({"failureMode": 0}, SUCCESS)
    ok(acl.rt.destroy_stream(sibling))


def test_exception_info_reaches_a_python_callback(stream, poke, exception_callback_cleared):
    reports: list[dict[str, object]] = []

    def on_exception(info: int) -> None:
        reports.append(
            {
                "info": info,
                "task": acl.rt.get_task_id_from_exception_info(info),
                "stream": acl.rt.get_stream_id_from_exception_info(info),
                "device": acl.rt.get_device_id_from_exception_info(info),
                "thread": acl.rt.get_thread_id_from_exception_info(info),
                "code": acl.rt.get_error_code_from_exception_info(info),
                "runs_on": threading.get_native_id(),
            }
        )

    assert acl.rt.set_exception_info_callback(on_exception) == SUCCESS
    task = launch_fault(poke, stream)
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
    assert len(reports) == 1  # made before the stream moved on, so before synchronize returned
    report = reports[0]
    assert isinstance(report["info"], int) and report["info"] > 0  # the report's address
    assert report["task"] == task
    assert report["stream"] == ok(acl.rt.stream_get_id(stream))
    assert report["device"] == 0
    assert report["thread"] == threading.get_native_id()  # the thread that submitted the task
    assert report["code"] == RT_AICORE_EXCEPTION
    assert report["runs_on"] != threading.get_native_id()  # a runtime thread, with the GIL

    # Held while registered: the only reference to the function is the runtime's.
    seen: list[int] = []
    assert (
        acl.rt.set_exception_info_callback(lambda info: seen.append(acl.rt.get_task_id_from_exception_info(info))) == 0
    )
    gc.collect()
    task = launch_fault(poke, stream)
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
    assert seen == [task] and len(reports) == 1  # replaced, not added

    # No argument, or None, clears it.
    for clear in ((), (None,)):
        assert acl.rt.set_exception_info_callback(*clear) == SUCCESS
        launch_fault(poke, stream)
        assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
        assert seen == [task]

    # The getters return the value alone; 0xFFFFFFFF for a NULL report.
    for getter in (
        acl.rt.get_error_code_from_exception_info,
        acl.rt.get_task_id_from_exception_info,
        acl.rt.get_stream_id_from_exception_info,
        acl.rt.get_thread_id_from_exception_info,
        acl.rt.get_device_id_from_exception_info,
    ):
        assert getter(0) == 0xFFFFFFFF
        with pytest.raises(TypeError, match=rf"^acl.rt.{getter.__name__} args parse failed$"):
            getter(None)
    for bad in (42, "f", (on_exception, 1)):
        args = bad if isinstance(bad, tuple) else (bad,)
        with pytest.raises(TypeError, match=r"^acl.rt.set_exception_info_callback args parse failed$"):
            acl.rt.set_exception_info_callback(*args)


EXCEPTION_GETTERS = (
    "get_error_code_from_exception_info",
    "get_task_id_from_exception_info",
    "get_stream_id_from_exception_info",
    "get_thread_id_from_exception_info",
    "get_device_id_from_exception_info",
)


def test_exception_getters_read_only_live_reports():
    """Issue 20: the getters took any int as a report's address and dereferenced it -- 1,
    0x1000, -1 killed the interpreter with SIGSEGV. Any address that is not a report a callback
    is holding now reads as NULL: 0xFFFFFFFF. In a subprocess, so that a crash fails this test
    and not the run."""
    code = f"""
import aiocann.acl as acl
bad = [1, 0x1000, 4095, -1, 2**63, 2**64 - 1, 0xDEADBEEF000, 12345, id(object())]
for name in {EXCEPTION_GETTERS!r}:
    getter = getattr(acl.rt, name)
    for value in bad:
        assert getter(value) == 0xFFFFFFFF, (name, value)  # before acl.init too
assert acl.init() == 0 and acl.rt.set_device(0) == 0
for name in {EXCEPTION_GETTERS!r}:
    for value in bad:
        assert getattr(acl.rt, name)(value) == 0xFFFFFFFF, (name, value)
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-3000:]}"
    assert out.stdout.strip() == "ok"


def test_a_report_is_readable_during_its_callback_only(stream, poke, exception_callback_cleared):
    """The report's address is live while the callback runs -- from any thread -- and reads as
    NULL (0xFFFFFFFF) once the callback has returned."""
    seen: dict[str, object] = {}

    def on_exception(info: int) -> None:
        seen["info"] = info
        seen["here"] = acl.rt.get_error_code_from_exception_info(info)
        elsewhere: list[int] = []
        t = threading.Thread(target=lambda: elsewhere.append(acl.rt.get_task_id_from_exception_info(info)))
        t.start()
        t.join()  # the callback still runs: the report is still live
        seen["elsewhere"] = elsewhere[0]

    ok(acl.rt.set_exception_info_callback(on_exception))
    task = launch_fault(poke, stream)
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
    assert seen["here"] == RT_AICORE_EXCEPTION and seen["elsewhere"] == task
    stale = seen["info"]
    assert isinstance(stale, int)
    for name in EXCEPTION_GETTERS:
        assert getattr(acl.rt, name)(stale) == 0xFFFFFFFF, name


def test_a_raising_exception_callback_is_logged_and_dropped(stream, poke, exception_callback_cleared, caplog):
    """pyACL's InfoCallback drops its function when the call raises; nothing reaches C."""
    caplog.set_level(logging.ERROR, logger="aiocann.acl")
    calls: list[int] = []

    def broken(info: int) -> None:
        calls.append(info)
        raise RuntimeError("boom")

    ok(acl.rt.set_exception_info_callback(broken))
    launch_fault(poke, stream)
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
    assert len(calls) == 1
    records = [r for r in caplog.records if r.name == "aiocann.acl"]
    assert len(records) == 1 and "boom" in records[0].getMessage() + str(records[0].exc_info[1])
    launch_fault(poke, stream)  # dropped: the next report calls nothing
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
    assert len(calls) == 1
    ok(acl.rt.set_exception_info_callback(broken))  # set again, it is called again
    launch_fault(poke, stream)
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
    assert len(calls) == 2


def test_last_error(device):
    def run() -> list[int]:  # a fresh thread: its own, empty last error
        got = [acl.rt.peek_at_last_error(0), acl.rt.get_last_error(0)]
        got.append(acl.rt.stream_query(0x4242)[1])  # a runtime failure
        got += [acl.rt.peek_at_last_error(0), acl.rt.peek_at_last_error(0)]  # peek keeps it
        got += [acl.rt.get_last_error(0), acl.rt.get_last_error(0)]  # get clears it
        got.append(acl.rt.get_last_error(1))  # only ACL_RT_THREAD_LEVEL
        return got

    h = RT_INVALID_HANDLE
    assert in_thread(run) == [SUCCESS, SUCCESS, h, h, h, h, SUCCESS, INVALID_PARAM]
    for fn in (acl.rt.peek_at_last_error, acl.rt.get_last_error):
        with pytest.raises(TypeError, match=rf"^acl.rt.{fn.__name__} args parse failed!$"):
            fn()
        with pytest.raises(TypeError, match=rf"^acl.rt.{fn.__name__} args parse failed!$"):
            fn(1 << 31)


# ----------------------------------------------------------------------- what is not provided


@pytest.mark.parametrize(
    "call, api",
    [
        (lambda: acl.mdl.load_from_file("model.om"), "acl.mdl.load_from_file"),
        (lambda: acl.op.execute_v2(), "acl.op.execute_v2"),
        (lambda: acl.media.dvpp_malloc(1024), "acl.media.dvpp_malloc"),
        (lambda: acl.himpi.vpc_create_chn(), "acl.himpi.vpc_create_chn"),
        (lambda: acl.blas.gemm_ex(), "acl.blas.gemm_ex"),
        (lambda: acl.prof.init(), "acl.prof.init"),
        (lambda: acl.fv.search(), "acl.fv.search"),
        (lambda: acl.create_data_buffer(0, 0), "acl.create_data_buffer"),
        (lambda: acl.get_cann_attribute(0), "acl.get_cann_attribute"),
    ],
)
def test_unprovided_functions_say_so(call, api):
    with pytest.raises(NotImplementedError, match=rf"^{api} is not implemented by aiocann: .*covers pyACL's runtime"):
        call()


def test_unprovided_names_are_attributes_but_typos_are_not():
    assert callable(acl.mdl.execute) and "execute" in dir(acl.mdl)
    assert hasattr(acl.rt, "reserve_mem_address") and hasattr(acl, "create_tensor_desc")
    for module, name in ((acl.rt, "malloc_everything"), (acl.mdl, "no_such_call"), (acl, "no_such_call")):
        with pytest.raises(AttributeError):
            getattr(module, name)
    with pytest.raises(AttributeError):
        _ = acl.media.__path__  # dunders stay AttributeErrors: import machinery relies on that


# ----------------------------------------------------------------------- ptr_to_numpy


def test_ptr_to_numpy_refuses_unreadable_memory(runtime):
    import mmap

    with pytest.warns(Warning), pytest.raises(ValueError, match="convert c pointer to numpy failed"):
        acl.util.ptr_to_numpy(8, (4,), 2)  # page 0: never mapped; pyACL would crash at first use
    data = bytearray(b"abcd")
    address = ctypes.addressof((ctypes.c_char * 4).from_buffer(data))
    with pytest.warns(Warning):
        arr = acl.util.ptr_to_numpy(address, (4,), 2)  # NPY_UBYTE
    assert arr.flags.writeable and bytes(arr) == b"abcd"
    arr[0] = ord("z")
    assert data[0] == ord("z")  # a view, not a copy
    del arr
    ro = mmap.mmap(-1, 4096, prot=mmap.PROT_READ)
    mapped = np.frombuffer(ro, np.uint8)
    with pytest.warns(Warning):
        view = acl.util.ptr_to_numpy(mapped.ctypes.data, (16,), 2)
    assert not view.flags.writeable  # readable but not writable memory: a read-only array
    assert view.sum() == 0
    with pytest.raises(ValueError):
        view[0] = 1  # refused by numpy instead of a segfault
    del view, mapped
    ro.close()


def test_acl_rt_exposes_no_helper_of_ours():
    # pyACL's acl.rt has its functions and constants; our conversion helpers, the cffi objects
    # and the live-report table are private (issue 26): a program probing with hasattr (or
    # dir()) sees what it would see on CANN.
    for name in ("addr", "cstr", "vptr", "pyacl", "not_implemented", "lib", "ffi", "forget_context", "LiveAddresses"):
        assert not hasattr(acl.rt, name), name
