"""The simulated chip (native/include/aclsim_chip.h, issue 21): one description, chosen by
AIOCANN_SIM_SOC_NAME (Ascend910B1 by default), that every chip-dependent answer of the
simulator reads -- the SoC name, ACL_DEV_ATTR_NPU_ARCH, the part's core counts, the overflow
modes, device groups, what a stop-on-failure abort does to event records (STARS or HWTS) --
and that Python reads through aiocann.sim.chip(). The chip is chosen once per process, so other
parts run in a subprocess."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acl_codes import RT_FEATURE_NOT_SUPPORT
from acl_util import RT_AICORE_EXCEPTION, RT_PARAM_INVALID
from chip_scenarios import record_behind_a_stop_failure

import aiocann.sim
from aiocann._lib import check, ffi, lib

SUPPORT = Path(__file__).resolve().parent.parent / "support"

# What the subprocess reports about its chip: the description, and the runtime's answers.
PROBE = """
import dataclasses, json, sys
sys.path.insert(0, sys.argv[1])
from acl_util import acl_session
import aiocann.sim
from aiocann._lib import ffi, lib

def info(attr):
    v = ffi.new("int64_t *")
    rc = lib.aclrtGetDeviceInfo(0, attr, v)
    return int(v[0]) if rc == 0 else rc

def sat():
    m = ffi.new("aclrtFloatOverflowMode *")
    assert lib.aclrtGetDeviceSatMode(m) == 0
    return int(m[0])

with acl_session():
    chip = aiocann.sim.chip()
    count = ffi.new("uint32_t *")
    out = {
        "chip": dataclasses.asdict(chip),
        "soc": ffi.string(lib.aclrtGetSocName()).decode(),
        "npu_arch": info(601),
        "aicore": info(101),
        "cube": info(102),
        "vector": info(201),
        "sat_default": sat(),
        "set_saturation": lib.aclrtSetDeviceSatMode(0),
        "after_saturation": sat(),
        "set_inf_nan": lib.aclrtSetDeviceSatMode(1),
        "after_inf_nan": sat(),
        "group_count": lib.aclrtGetGroupCount(count),
        "group_message": ffi.string(lib.aclGetRecentErrMsg()).decode().split(chr(10))[0],
    }
    flag = ffi.new("uint32_t *")
    assert lib.aclrtGetStreamOverflowSwitch(ffi.NULL, flag) == 0
    out["overflow_switch"] = int(flag[0])
if len(sys.argv) > 2:
    from chip_scenarios import record_behind_a_stop_failure
    out["stop_record"] = record_behind_a_stop_failure(sys.argv[2])
print(json.dumps(out))
"""


def run_chip(soc: str | None, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AIOCANN_BACKEND": "sim"}
    env.pop("AIOCANN_SIM_SOC_NAME", None)
    if soc is not None:
        env["AIOCANN_SIM_SOC_NAME"] = soc
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(SUPPORT), *extra], capture_output=True, text=True, env=env, timeout=90
    )


def probe(soc: str, *extra: str) -> dict[str, Any]:
    proc = run_chip(soc, *extra)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_the_default_chip_is_ascend910b1():
    chip = aiocann.sim.chip()
    assert chip is not None
    assert dataclasses.asdict(chip) == {
        "soc_name": "Ascend910B1",
        "soc_version": "Ascend910B",
        "npu_arch": 2201,
        "arch_name": "dav-2201",
        "engine": "STARS",
        "aicore_num": 24,
        "vector_core_num": 48,
        "ub_size": 192 << 10,
        "l1_size": (512 << 10) - 128,
        "l0a_size": 64 << 10,
        "l0b_size": 64 << 10,
        "l0c_size": 128 << 10,
        "hbm_size": 64 << 30,
        "saturation_mode": True,
        "inf_nan_mode": True,
        "device_groups": False,
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        chip.npu_arch = 1  # type: ignore[misc]


def test_the_runtime_answers_from_the_chip(acl):
    flag = ffi.new("uint32_t *")
    check(lib.aclrtGetStreamOverflowSwitch(ffi.NULL, flag))
    assert flag[0] == 0  # STARS: the stream's own switch, off until set
    chip = aiocann.sim.chip()
    assert chip is not None
    assert ffi.string(lib.aclrtGetSocName()).decode() == chip.soc_name
    v = ffi.new("int64_t *")
    check(lib.aclrtGetDeviceInfo(0, lib.ACL_DEV_ATTR_NPU_ARCH, v))
    assert v[0] == chip.npu_arch == 2201
    check(lib.aclrtGetDeviceInfo(0, lib.ACL_DEV_ATTR_AICORE_CORE_NUM, v))
    assert v[0] == chip.aicore_num
    check(lib.aclrtGetDeviceInfo(0, lib.ACL_DEV_ATTR_VECTOR_CORE_NUM, v))
    assert v[0] == chip.vector_core_num
    assert lib.aclrtGetDeviceInfo(0, lib.ACL_DEV_ATTR_SUPER_POD_ID, v) == RT_FEATURE_NOT_SUPPORT
    # The simulator's own AI-core threads are another thing: AIOCANN_SIM_CORES (8 here) only
    # decides how many blocks run at once.
    count = ffi.new("uint32_t *")
    assert lib.aclrtGetGroupCount(count) == RT_FEATURE_NOT_SUPPORT
    assert "Ascend910B1" in ffi.string(lib.aclGetRecentErrMsg()).decode()


def test_a_stop_on_failure_abort_loses_the_records_behind_it_on_stars(test_kernels_path):
    """STARS (the default part): nothing triggers a record discarded behind the failure
    (Stream::EnterFailureAbort triggers only without GetDisableThread): a host waiting on it
    gets the recording stream's failure, a stream waiting on it waits on."""
    assert record_behind_a_stop_failure(test_kernels_path) == {
        "stream": RT_AICORE_EXCEPTION,
        "event_sync": RT_AICORE_EXCEPTION,
        "event_query": RT_AICORE_EXCEPTION,
        "event_query_deprecated": RT_AICORE_EXCEPTION,
        "waiter_done": False,
        "waiter_wrote": 0,
    }


def test_ascend910a_is_an_hwts_chip_with_saturation_only(test_kernels_path):
    got = probe("Ascend910A", str(test_kernels_path))
    assert got["chip"]["engine"] == "HWTS" and got["chip"]["npu_arch"] == 1001
    assert got["soc"] == "Ascend910A"
    assert (got["npu_arch"], got["aicore"], got["cube"], got["vector"]) == (1001, 32, 32, 0)
    # config/cloud: supportOverflowMode = SATURATION, no RT_FEATURE_OVERFLOW_MODE (so the
    # process starts in saturation mode); setting it succeeds and changes nothing, Inf/NaN is
    # refused (rtSetDeviceSatMode).
    assert got["sat_default"] == 0
    assert (got["set_saturation"], got["after_saturation"]) == (0, 0)
    assert (got["set_inf_nan"], got["after_inf_nan"]) == (RT_FEATURE_NOT_SUPPORT, 0)
    assert got["group_count"] == RT_FEATURE_NOT_SUPPORT and "no RT_FEATURE_DEVICE_GROUP" in got["group_message"]
    assert got["overflow_switch"] == 1  # GetStreamOverflowSwitch: 1 where the chip has no STARS
    # HWTS: the host triggers the discarded record (TaskTriggerEvent), so its waiters go on.
    assert got["stop_record"] == {
        "stream": RT_AICORE_EXCEPTION,
        "event_sync": 0,
        "event_query": 0,
        "event_query_deprecated": 0,
        "waiter_done": True,
        "waiter_wrote": 5,
    }


def test_ascend310p3():
    got = probe("Ascend310P3")
    assert got["soc"] == "Ascend310P3"
    assert got["chip"]["soc_version"] == "Ascend310P" and got["chip"]["engine"] == "HWTS"
    assert (got["npu_arch"], got["aicore"], got["vector"]) == (2002, 8, 7)
    assert got["chip"]["device_groups"] is True and got["chip"]["inf_nan_mode"] is False
    assert got["sat_default"] == 0 and got["set_inf_nan"] == RT_FEATURE_NOT_SUPPORT
    # config/dc has device groups; the simulator does not simulate them, and says so.
    assert got["group_count"] == RT_FEATURE_NOT_SUPPORT and "does not simulate" in got["group_message"]


def test_the_a2_parts_have_both_overflow_modes():
    """Ascend910B1 in this process: INF_NAN from boot (Runtime::Init, RT_FEATURE_OVERFLOW_MODE),
    either mode may be set, the mode is the process's."""
    m = ffi.new("aclrtFloatOverflowMode *")
    try:
        check(lib.aclrtGetDeviceSatMode(m))
        assert m[0] == lib.ACL_RT_OVERFLOW_MODE_INFNAN
        check(lib.aclrtSetDeviceSatMode(lib.ACL_RT_OVERFLOW_MODE_SATURATION))
        check(lib.aclrtGetDeviceSatMode(m))
        assert m[0] == lib.ACL_RT_OVERFLOW_MODE_SATURATION
        assert lib.aclrtSetDeviceSatMode(2) == RT_PARAM_INVALID
    finally:
        check(lib.aclrtSetDeviceSatMode(lib.ACL_RT_OVERFLOW_MODE_INFNAN))


def test_an_unknown_part_makes_acl_init_fail_naming_the_known_ones():
    code = (
        "import aiocann.sim\n"
        "from aiocann._lib import ffi, lib\n"
        "rc = lib.aclInit(ffi.NULL)\n"
        "msg = ffi.string(lib.aclGetRecentErrMsg()).decode()\n"
        "n = ffi.new('uint32_t *')\n"
        "print(rc, lib.aclrtSetDevice(0), lib.aclrtGetDeviceCount(n))\n"
        "print(msg)\n"
        "try:\n"
        "    aiocann.sim.chip()\n"
        "except ValueError as e:\n"
        "    print('ValueError', e)\n"
    )
    env = {**os.environ, "AIOCANN_BACKEND": "sim", "AIOCANN_SIM_SOC_NAME": "Ascend999Z"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    codes, *lines = proc.stdout.splitlines()
    assert codes == "500000 500000 500000"  # aclInitImpl: no SoC name -> ACL_ERROR_INTERNAL_ERROR
    text = "\n".join(lines)
    assert "Ascend999Z" in text and "Ascend910B1" in text and "Ascend310P3" in text
    assert "ValueError" in text and "names no simulated part" in text
