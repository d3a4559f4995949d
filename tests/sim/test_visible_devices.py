"""ASCEND_RT_VISIBLE_DEVICES, as the real runtime reads it (Runtime::GetVisibleDevices and
SplitString in hicann/runtime src/runtime/core/src/runtime.cc; docs/zh/env_vars/
ASCEND_RT_VISIBLE_DEVICES.md; docs/fidelity.md "Visible devices"): which of the machine's devices
a process sees, renumbered from 0. It is what Ray sets for a worker given NPUs.

The simulator reads it at aclInit, with AIOCANN_SIM_DEVICES as the machine's device count; the
C-level cases run in this process between aclInit and aclFinalize, the async layer's in a fresh
process with the variable in its environment, as a Ray worker has it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from acl_codes import RT_NO_DEVICE
from acl_util import (
    RT_AICORE_EXCEPTION,
    RT_INVALID_DEVICEID,
    RT_PARAM_INVALID,
    Reports,
    acl_init,
    acl_session,
    expect,
    sync_rc,
)

from aiocann._lib import check, ffi, lib
from examples import ROOT

NO_DEVICE = RT_NO_DEVICE  # what aclrtGetDeviceCount returns for an invalid setting

pytestmark = pytest.mark.timeout(60)


def device_count() -> int:
    out = ffi.new("uint32_t *")
    check(lib.aclrtGetDeviceCount(out), "aclrtGetDeviceCount")
    return int(out[0])


def logic_id(user: int) -> tuple[int, int]:
    """(rc, logical id) of aclrtGetLogicDevIdByUserDevId."""
    out = ffi.new("int32_t *", -7)
    return int(lib.aclrtGetLogicDevIdByUserDevId(user, out)), int(out[0])


def user_id(logic: int) -> tuple[int, int]:
    out = ffi.new("int32_t *", -7)
    return int(lib.aclrtGetUserDevIdByLogicDevId(logic, out)), int(out[0])


def visible(devices: int, value: str | None) -> Any:
    return acl_init(AIOCANN_SIM_DEVICES=str(devices), ASCEND_RT_VISIBLE_DEVICES=value)


# (machine's devices, ASCEND_RT_VISIBLE_DEVICES, the logical ids the process sees in order), each
# with the rule of GetVisibleDevices/SplitString it follows.
SEEN = [
    pytest.param(4, None, [0, 1, 2, 3], id="unset: every device, user id = logical id"),
    pytest.param(4, "2", [2], id="one id: that device becomes device 0"),
    pytest.param(4, "1,3", [1, 3], id="ascending ids renumbered from 0"),
    pytest.param(4, "0,1,2,3", [0, 1, 2, 3], id="all of them"),
    pytest.param(4, "1,3,8", [1, 3], id="doc example: an id past the devices stops the reading"),
    pytest.param(4, "1, 2,3", [1], id="doc example: a space stops the reading"),
    pytest.param(4, "1,,2", [1], id="two commas in a row stop the reading"),
    pytest.param(4, "1a,2", [1], id="any other character stops the reading"),
    pytest.param(4, "1,2,", [1, 2], id="a trailing comma is harmless"),
    pytest.param(4, "003", [3], id="leading zeros: std::stoi"),
    pytest.param(4, "0,4", [0], id="out of range after a valid id: stops, keeps the valid one"),
    pytest.param(4, "1,99999999999999999999999", [1], id="too large for stoi: stops the reading"),
    pytest.param(2, "0,1,1", [0, 1], id="reading stops once every device is listed: the repeat is never read"),
    pytest.param(4, "0" * 126 + "1,2", [1], id="only the first 128 characters are read"),
]

# (machine's devices, value, why no device is usable); aclInit still succeeds.
NONE = [
    pytest.param(4, "", "it names no device", id="empty: set, so no device"),
    pytest.param(4, " 1", "it names no device", id="a leading space: no id at all"),
    pytest.param(4, ",1", "it names no device", id="a leading comma: no id at all"),
    pytest.param(4, "-1", "it names no device", id="a sign is not a digit"),
    pytest.param(4, "4", "it names no device", id="the first id is out of range"),
    pytest.param(4, "99999999999999999999999", "it names no device", id="too large for stoi"),
    pytest.param(4, "2,1", "ascending order", id="descending ids invalidate the setting"),
    pytest.param(4, "0,2,1,3", "ascending order", id="any descent invalidates it"),
    pytest.param(4, "1,1", "cannot be repeated", id="a repeated id invalidates the setting"),
    pytest.param(4, "0,2,2", "cannot be repeated", id="a repeat later on too"),
]


@pytest.mark.parametrize(("devices", "value", "seen"), SEEN)
def test_the_process_sees_the_listed_devices_renumbered_from_0(devices: int, value: str | None, seen: list[int]):
    with visible(devices, value):
        assert device_count() == len(seen)
        # user id -> logical id, and back; the devices left out have no user id
        for user, logical in enumerate(seen):
            assert logic_id(user) == (0, logical)
            assert user_id(logical) == (0, user)
        for logical in set(range(devices)) - set(seen):
            rc, _ = user_id(logical)
            expect(RT_INVALID_DEVICEID, rc, f"logical device {logical} is not visible")
        # every user id works, and is what aclrtGetDevice says; the next one does not exist
        for user in range(len(seen)):
            check(lib.aclrtSetDevice(user), "aclrtSetDevice")
            got = ffi.new("int32_t *")
            check(lib.aclrtGetDevice(got), "aclrtGetDevice")
            assert got[0] == user
            check(lib.aclrtResetDevice(user), "aclrtResetDevice")
        rc = lib.aclrtSetDevice(len(seen))
        if value is None:
            expect(RT_INVALID_DEVICEID, rc, f"device {len(seen)} does not exist")
        else:
            expect(
                RT_INVALID_DEVICEID,
                rc,
                f"device {len(seen)} is not visible",
                f"makes {len(seen)} of the {devices} devices visible",
            )
        expect(RT_INVALID_DEVICEID, logic_id(len(seen))[0])


@pytest.mark.parametrize(("devices", "value", "why"), NONE)
def test_an_invalid_setting_leaves_no_device(devices: int, value: str, why: str):
    with visible(devices, value):  # aclInit itself succeeds, as GetVisibleDevices' result is ignored
        count = ffi.new("uint32_t *")
        expect(NO_DEVICE, lib.aclrtGetDeviceCount(count), "ASCEND_RT_VISIBLE_DEVICES", why)
        for user in range(devices):
            expect(RT_INVALID_DEVICEID, lib.aclrtSetDevice(user), f"device {user} is not visible", why)
            expect(RT_INVALID_DEVICEID, logic_id(user)[0])
            expect(RT_INVALID_DEVICEID, user_id(user)[0], "is not visible")


def test_the_id_calls_check_their_arguments():
    with visible(2, "1"):
        out = ffi.new("int32_t *")
        expect(RT_INVALID_DEVICEID, lib.aclrtGetLogicDevIdByUserDevId(-1, out), "userDevid must be >= 0")
        expect(RT_PARAM_INVALID, lib.aclrtGetLogicDevIdByUserDevId(0, ffi.NULL), "must not be NULL")
        expect(RT_INVALID_DEVICEID, lib.aclrtGetUserDevIdByLogicDevId(-1, out), "logicDevId must be >= 0")
        expect(RT_PARAM_INVALID, lib.aclrtGetUserDevIdByLogicDevId(1, ffi.NULL), "must not be NULL")
        expect(RT_INVALID_DEVICEID, lib.aclrtGetUserDevIdByLogicDevId(2, out), "does not exist (2 devices)")
    with visible(2, None):  # unset: an id past the machine's devices, either way
        out = ffi.new("int32_t *")
        expect(RT_INVALID_DEVICEID, lib.aclrtGetLogicDevIdByUserDevId(2, out), "device 2 does not exist")
        expect(RT_INVALID_DEVICEID, lib.aclrtGetUserDevIdByLogicDevId(2, out), "does not exist (2 devices)")


def test_the_setting_is_read_again_at_each_aclInit():
    """A simulator choice: the real runtime reads it once per process (Runtime::Init)."""
    with visible(4, "3"):
        assert device_count() == 1 and logic_id(0) == (0, 3)
    with visible(4, None):
        assert device_count() == 4 and logic_id(0) == (0, 0)


def test_exception_reports_carry_the_user_device_id(test_kernels_path):
    """TaskFailCallBackNotify converts the failed device's id to the user's before calling the
    callbacks, so a report names the device the way aclrtGetDevice does -- what the completion
    queue matches reports against."""
    with acl_session(0, AIOCANN_SIM_DEVICES="2", ASCEND_RT_VISIBLE_DEVICES="1") as rt:
        assert logic_id(0) == (0, 1)
        reports = Reports()
        check(lib.aclrtExceptionInfoCallbackRegister(reports.cb))
        try:
            s = rt.stream()
            rt.launch(rt.function(test_kernels_path, "poke"), 1, s, ("ptr", rt.malloc(64)), ("uint64_t", 1 << 20))
            assert sync_rc(s) == RT_AICORE_EXCEPTION
            assert [r["device"] for r in reports.got] == [0]
        finally:
            check(lib.aclrtExceptionInfoCallbackUnregister(reports.cb))


# --------------------------------------------------------------------------- a fresh process

ASYNC_PROGRAM = textwrap.dedent(
    """
    import anyio, numpy as np, sys
    import aiocann as ac
    from aiocann.compiler import build_kernel

    async def main():
        assert await ac.device_count() == 1
        add = build_kernel(sys.argv[1] + "/examples/kernels/vector_add.c")
        poke = build_kernel(sys.argv[1] + "/tests/kernels/test_kernels.c")
        async with ac.Device(0) as dev:
            print("logic_id", dev.logic_id)
            fn = (await dev.load_binary(add)).function("add_custom")
            bad = (await dev.load_binary(poke)).function("poke")
            x = np.arange(1000, dtype=np.float32)
            async with dev.stream() as s:
                xd, z = await s.upload(x), dev.empty(x.shape, x.dtype)
                args = await fn.args().ptr(xd).ptr(xd).ptr(z).placeholder(np.array([x.size, 0], np.uint32))
                buf = dev.empty((16,), np.float32)
                failed = await ac.launch(bad, await bad.args().ptr(buf).u64(1 << 20), blocks=1)
                done = await ac.launch(fn, args, blocks=4)
                try:
                    await failed
                except ac.KernelFaultError:
                    print("fault attributed to its launch")
                await done
                assert np.array_equal(await z.get(), 2 * x)
                try:
                    await s.synchronize()
                except ac.KernelFaultError:
                    pass
        try:
            async with ac.Device(1):
                pass
        except ac.InvalidDeviceError as exc:
            print("Device(1):", exc)

    anyio.run(main)
    """
)


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "AIOCANN_SIM_DEVICES": "2", **env}
    return subprocess.run(args, env=full, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_process_given_device_1_sees_one_device_and_uses_it():
    """What a Ray worker given NPU 1 has: ASCEND_RT_VISIBLE_DEVICES=1 in its environment from
    the start. The async layer sees one device, Device(0) is the machine's device 1, it computes,
    a failed launch is attributed to that launch, and Device(1) does not exist."""
    r = _run([sys.executable, "-c", ASYNC_PROGRAM, str(ROOT)], ASCEND_RT_VISIBLE_DEVICES="1")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "logic_id 1"
    assert lines[1] == "fault attributed to its launch"
    assert lines[2].startswith("Device(1):")
    assert 'ASCEND_RT_VISIBLE_DEVICES="1" makes 1 of the 2 devices visible' in lines[2]

    info = _run([sys.executable, "-m", "aiocann", "info"], ASCEND_RT_VISIBLE_DEVICES="1")
    assert info.returncode == 0, info.stderr
    assert "devices     1  (ASCEND_RT_VISIBLE_DEVICES='1')" in info.stdout
    assert "device 0 (the machine's device 1)" in info.stdout
    bad = _run([sys.executable, "-m", "aiocann", "info"], ASCEND_RT_VISIBLE_DEVICES="1,0")
    assert bad.returncode == 1 and "ascending order" in bad.stdout
