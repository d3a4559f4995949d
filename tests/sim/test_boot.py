"""How the runtime starts and what aclInit, aclFinalize and device resets mean (issue 21).

The real runtime boots on its first use in the process (RuntimeKeeper::BootRuntime), not at
aclInit: aclrtGetDeviceCount, aclrtSetDevice, aclrtGetDeviceInfo work before it (third-party
pyACL programs count devices first). aclInit is the ACL layer's (aclInitImpl counts it),
aclFinalize refuses only a finalize after a finalize (aclFinalizeFlag). A reset releases one
aclrtSetDevice: a device never set, or reset once too often, is 507007
(Runtime::PrimaryContextRelease -> RT_ERROR_CONTEXT_DEL). A fresh process is needed to see the
runtime before anything booted it."""

from __future__ import annotations

import os
import subprocess
import sys

from acl_codes import REPEAT_FINALIZE, REPEAT_INITIALIZE, RT_CONTEXT_RELEASE_ERROR, SUCCESS
from acl_util import RT_INVALID_DEVICEID, expect

from aiocann._lib import check, ffi, lib


def fresh(code: str, **env: str) -> list[int]:
    """Runs code in a new process that imported the raw binding only; the integers it prints."""
    prelude = "from aiocann._lib import ffi, lib\nout = []\n"
    proc = subprocess.run(
        [sys.executable, "-c", prelude + code + "\nprint(*out)"],
        capture_output=True,
        text=True,
        env={**os.environ, "AIOCANN_BACKEND": "sim", **env},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return [int(x) for x in proc.stdout.split()]


def test_devices_work_before_acl_init():
    got = fresh(
        """
n = ffi.new("uint32_t *")
out += [lib.aclrtGetDeviceCount(n), n[0]]
v = ffi.new("int64_t *")
out += [lib.aclrtGetDeviceInfo(0, 601, v), v[0]]          # ACL_DEV_ATTR_NPU_ARCH
out.append(lib.aclrtSetDevice(0))
p = ffi.new("void **")
out.append(lib.aclrtMalloc(p, 64, 0))
s = ffi.new("aclrtStream *")
out.append(lib.aclrtCreateStream(s))
out.append(lib.aclrtMemsetAsync(p[0], 64, 7, 64, s[0]))
out.append(lib.aclrtSynchronizeStream(s[0]))
host = ffi.new("uint8_t[64]")
out.append(lib.aclrtMemcpy(host, 64, p[0], 64, 2))
out.append(host[63])
out.append(lib.aclInit(ffi.NULL))                          # ACL's session starts now
out.append(lib.aclInit(ffi.NULL))
out.append(lib.aclrtDestroyStream(s[0]))
out.append(lib.aclrtResetDevice(0))
out.append(lib.aclFinalize())
out.append(lib.aclFinalize())
""",
        AIOCANN_SIM_DEVICES="3",
    )
    assert got == [0, 3, 0, 2201] + [SUCCESS] * 6 + [7] + [0, REPEAT_INITIALIZE, 0, 0, 0, REPEAT_FINALIZE]


def test_finalize_before_any_init_succeeds_once():
    """aclFinalizeFlag starts false: the first aclFinalize of a process succeeds even without an
    aclInit; the next one is 100037 until an aclInit."""
    got = fresh(
        """
out += [lib.aclFinalize(), lib.aclFinalize()]
out += [lib.aclInit(ffi.NULL), lib.aclFinalize(), lib.aclFinalize()]
"""
    )
    assert got == [SUCCESS, REPEAT_FINALIZE, SUCCESS, SUCCESS, REPEAT_FINALIZE]


def test_the_configuration_is_read_when_the_runtime_boots():
    """Whichever call boots the runtime reads the simulator's configuration then; a bad value
    fails that call (aclrtGetDeviceCount here), as it fails aclInit."""
    assert fresh("n = ffi.new('uint32_t *'); out += [lib.aclrtGetDeviceCount(n), n[0]]", AIOCANN_SIM_DEVICES="5") == [
        SUCCESS,
        5,
    ]
    got = fresh("n = ffi.new('uint32_t *'); out += [lib.aclrtGetDeviceCount(n)]", AIOCANN_SIM_DEVICES="zero")
    assert got == [100000]  # ACL_ERROR_INVALID_PARAM, the simulator's configuration error


def test_a_reset_releases_one_set_device(acl):
    """The fixture set device 0 once. Each aclrtSetDevice is one retain of the device's primary
    context; a reset without one left is 507007, forced or not."""
    expect(RT_CONTEXT_RELEASE_ERROR, lib.aclrtResetDevice(1), "has not been set")
    expect(RT_CONTEXT_RELEASE_ERROR, lib.aclrtResetDeviceForce(1), "has not been set")
    assert lib.aclrtResetDevice(64) == RT_INVALID_DEVICEID  # not a device at all: 107001 first
    check(lib.aclrtSetDevice(1))
    check(lib.aclrtSetDevice(1))
    check(lib.aclrtResetDevice(1))
    check(lib.aclrtResetDevice(1))
    expect(RT_CONTEXT_RELEASE_ERROR, lib.aclrtResetDevice(1), "already been reset")
    check(lib.aclrtSetDevice(1))
    check(lib.aclrtSetDevice(1))
    check(lib.aclrtResetDeviceForce(1))  # every retain at once
    expect(RT_CONTEXT_RELEASE_ERROR, lib.aclrtResetDevice(1), "has not been set")
    check(lib.aclrtSetDevice(0))  # device 0: twice now, so the fixture's reset leaves one
    check(lib.aclrtResetDevice(0))
    ctx = ffi.new("aclrtContext *")
    check(lib.aclrtGetCurrentContext(ctx))


def test_acl_init_reads_the_configuration_when_no_device_is_open():
    """A runtime booted before aclInit with no device open yet boots again at aclInit, with the
    configuration of that moment (simulator choice: the simulator reads its configuration per
    session); one with a device open keeps it."""
    got = fresh(
        """
import os
n = ffi.new("uint32_t *")
out += [lib.aclrtGetDeviceCount(n), n[0]]
os.environ["AIOCANN_SIM_DEVICES"] = "4"
out += [lib.aclInit(ffi.NULL), lib.aclrtGetDeviceCount(n), n[0], lib.aclFinalize()]
out += [lib.aclrtSetDevice(0)]
os.environ["AIOCANN_SIM_DEVICES"] = "2"
out += [lib.aclInit(ffi.NULL), lib.aclrtGetDeviceCount(n), n[0], lib.aclrtResetDevice(0), lib.aclFinalize()]
""",
        AIOCANN_SIM_DEVICES="3",
    )
    assert got == [0, 3, 0, 0, 4, 0, 0, 0, 0, 4, 0, 0]
