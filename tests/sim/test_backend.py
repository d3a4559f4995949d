"""Backend selection and error reporting: ``aiocann.backend()``; ``check()`` raising the
``AclError`` subclass registered for a code with the runtime's own message; and, in
subprocesses, ``AIOCANN_BACKEND``: a bogus value, ``cann`` without an install, and the
real-runtime path -- a fake CANN install tree holding the standalone simulator library, found
through ``ASCEND_HOME_PATH`` and running the seed flow."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from acl_util import sync_rc

import aiocann
from aiocann import errors
from aiocann._lib import check, ffi, lib
from aiocann.compiler import library_path

# --------------------------------------------------------------------------- in process


def test_backend_reports_the_loaded_library():
    info = aiocann.backend()
    assert info.name == "sim"
    assert Path(info.library).resolve() == library_path().resolve()
    assert ffi.string(lib.aiocann_loaded_path()).decode() == info.library
    assert info.version[:2] == (1, 17)
    assert aiocann.backend() is info  # computed once


def test_check_raises_the_registered_subclass_with_the_runtime_message():
    check(0)  # success raises nothing
    with pytest.raises(aiocann.InvalidParamError) as ei:
        check(lib.aclrtMalloc(ffi.NULL, 16, 0), "aclrtMalloc")
    e = ei.value
    assert isinstance(e, aiocann.AclError)
    assert (e.code, e.name, e.api) == (100000, "ACL_ERROR_INVALID_PARAM", "aclrtMalloc")
    assert "devPtr must not be NULL" in e.message
    assert str(e).startswith("aclrtMalloc failed: ACL_ERROR_INVALID_PARAM (100000): aclrtMalloc: devPtr")
    assert lib.aclGetRecentErrMsg() == ffi.NULL  # check() consumed the message


def test_check_maps_runtime_failures(acl, test_kernels_path):
    s = acl.stream()
    check(lib.aclrtDestroyStream(s))
    with pytest.raises(aiocann.InvalidHandleError, match="not a live stream") as ei:
        check(lib.aclrtSynchronizeStream(s))
    assert ei.value.code == 107017 and ei.value.name == "ACL_ERROR_RT_INVALID_HANDLE"

    out = ffi.new("void **")
    with pytest.raises(aiocann.DeviceOutOfMemoryError) as oom:
        check(lib.aclrtMalloc(out, 1 << 50, 0))
    assert isinstance(oom.value, MemoryError) and oom.value.code == 207001

    fn = acl.function(test_kernels_path, "poke")
    s = acl.stream()
    buf = acl.malloc(4064)
    acl.launch(fn, 1, s, ("ptr", buf), ("uint64_t", 4096))
    with pytest.raises(aiocann.KernelFaultError) as fault:
        check(sync_rc(s), "aclrtSynchronizeStreamWithTimeout")
    assert fault.value.code == 507015 and fault.value.name == "ACL_ERROR_RT_AICORE_EXCEPTION"
    assert "kernel poke, block 0" in fault.value.message

    wait = acl.function(test_kernels_path, "wait_us")
    s2 = acl.stream()
    acl.launch(wait, 1, s2, ("ptr", buf), ("uint64_t", 200_000))
    with pytest.raises(aiocann.StreamSyncTimeoutError) as timeout:
        check(lib.aclrtSynchronizeStreamWithTimeout(s2, 10))
    assert isinstance(timeout.value, TimeoutError) and timeout.value.code == 507046
    acl.sync(s2)


def test_unregistered_codes_raise_the_base_class_with_their_name():
    with pytest.raises(aiocann.AclError) as ei:
        check(507899)
    assert type(ei.value) is aiocann.AclError
    assert ei.value.name == "ACL_ERROR_RT_DRV_INTERNAL_ERROR" and ei.value.message == ""
    assert errors.error_for(123456).name == "ACL error 123456"


# --------------------------------------------------------------------------- subprocesses

SEED_FLOW = textwrap.dedent(
    """
    import json, struct, sys
    import numpy as np
    import aiocann
    from aiocann._lib import check, ffi, lib

    kernel = sys.argv[1].encode()
    check(lib.aclInit(ffi.NULL))
    check(lib.aclrtSetDevice(0))
    stream = ffi.new("aclrtStream *"); check(lib.aclrtCreateStream(stream))
    binary = ffi.new("aclrtBinHandle *"); check(lib.aclrtBinaryLoadFromFile(kernel, ffi.NULL, binary))
    fn = ffi.new("aclrtFuncHandle *"); check(lib.aclrtBinaryGetFunction(binary[0], b"add_custom", fn))
    n = 100_000
    x = np.arange(n, dtype=np.float32); y = np.full(n, 0.5, np.float32); z = np.zeros(n, np.float32)
    dev = []
    for a in (x, y, z):
        p = ffi.new("void **"); check(lib.aclrtMalloc(p, a.nbytes, 0)); dev.append(p[0])
        check(lib.aclrtMemcpy(p[0], a.nbytes, ffi.from_buffer(a), a.nbytes, 1))
    args = ffi.new("aclrtArgsHandle *"); check(lib.aclrtKernelArgsInit(fn[0], args))
    ph = ffi.new("aclrtParamHandle *")
    for p in dev:
        check(lib.aclrtKernelArgsAppend(args[0], ffi.new("void **", p), 8, ph))
    check(lib.aclrtKernelArgsAppendPlaceHolder(args[0], ph))
    buf = ffi.new("void **"); check(lib.aclrtKernelArgsGetPlaceHolderBuffer(args[0], ph[0], 8, buf))
    ffi.memmove(buf[0], struct.pack("<II", n, 0), 8)
    check(lib.aclrtKernelArgsFinalize(args[0]))
    check(lib.aclrtLaunchKernelWithConfig(fn[0], 8, stream[0], ffi.NULL, args[0], ffi.NULL))
    check(lib.aclrtSynchronizeStream(stream[0]))
    check(lib.aclrtMemcpy(ffi.from_buffer(z), z.nbytes, dev[2], z.nbytes, 2))
    info = aiocann.backend()
    print(json.dumps({"name": info.name, "library": info.library, "correct": bool((z == x + y).all())}))
    check(lib.aclrtDestroyStream(stream[0]))
    check(lib.aclrtResetDevice(0))
    check(lib.aclFinalize())
    """
)

_CANN_ENV = ("AIOCANN_BACKEND", "AIOCANN_ACL_LIBRARY", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")


def run_python(code: str, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if k not in _CANN_ENV}
    e.update(env)
    return subprocess.run([sys.executable, "-c", code, *argv], env=e, capture_output=True, text=True, timeout=60)


def fake_cann(root: Path, name: str = "libascendcl.so") -> Path:
    """A CANN install tree as set_env.sh describes it, with the standalone simulator library."""
    lib64 = root / "lib64"
    lib64.mkdir(parents=True)
    shutil.copy(library_path(), lib64 / name)
    return lib64 / name


@pytest.mark.parametrize("backend", ["cann", "auto"])
@pytest.mark.parametrize("libname", ["libascendcl.so", "libacl_rt.so"])
def test_fake_cann_install_runs_the_seed_flow(tmp_path, vector_add_path, backend, libname):
    installed = fake_cann(tmp_path / "Ascend", libname)
    proc = run_python(
        SEED_FLOW, str(vector_add_path), AIOCANN_BACKEND=backend, ASCEND_HOME_PATH=str(tmp_path / "Ascend")
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"name": "cann", "library": str(installed), "correct": True}


def test_explicit_sim_wins_over_an_install(tmp_path, vector_add_path):
    fake_cann(tmp_path / "Ascend")
    proc = run_python(SEED_FLOW, str(vector_add_path), AIOCANN_BACKEND="sim", ASCEND_HOME_PATH=str(tmp_path / "Ascend"))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["name"] == "sim" and Path(result["library"]).resolve() == library_path().resolve()
    assert result["correct"]


def test_bogus_backend_is_a_clear_error():
    proc = run_python("import aiocann", AIOCANN_BACKEND="bogus")
    assert proc.returncode != 0
    assert "BackendError" in proc.stderr
    assert "AIOCANN_BACKEND='bogus'" in proc.stderr and "'auto', 'sim' or 'cann'" in proc.stderr


def test_cann_without_an_install_is_a_clear_error(tmp_path):
    proc = run_python("import aiocann", AIOCANN_BACKEND="cann")
    assert proc.returncode != 0
    assert "BackendError" in proc.stderr and "no CANN runtime library was found" in proc.stderr
    assert "ASCEND_HOME_PATH" in proc.stderr

    proc = run_python("import aiocann", AIOCANN_BACKEND="cann", ASCEND_HOME_PATH=str(tmp_path))
    assert proc.returncode != 0 and str(tmp_path / "lib64" / "libascendcl.so") in proc.stderr


def test_a_broken_install_is_a_clear_error(tmp_path):
    lib64 = tmp_path / "lib64"
    lib64.mkdir()
    (lib64 / "libascendcl.so").write_text("not a library")
    proc = run_python("import aiocann", AIOCANN_BACKEND="cann", ASCEND_HOME_PATH=str(tmp_path))
    assert proc.returncode != 0
    assert "BackendError" in proc.stderr and f"cannot load {lib64 / 'libascendcl.so'}" in proc.stderr


def test_auto_falls_back_past_a_broken_install_and_says_why(tmp_path):
    """In auto mode a CANN library that cannot be loaded is skipped, with a warning, for the
    next candidate -- here the simulator -- and aiocann.backend() records why."""
    lib64 = tmp_path / "lib64"
    lib64.mkdir()
    (lib64 / "libacl_rt.so").write_text("not a library")
    code = (
        "import json, warnings\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    import aiocann\n"
        "info = aiocann.backend()\n"
        "print(json.dumps({'name': info.name, 'skipped': list(info.skipped), 'warned': [str(x.message) for x in w]}))"
    )
    proc = run_python(code, AIOCANN_BACKEND="auto", ASCEND_HOME_PATH=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["name"] == "sim"
    assert len(result["skipped"]) == 1 and str(lib64 / "libacl_rt.so") in result["skipped"][0]
    assert any("skipped" in m and "libacl_rt.so" in m for m in result["warned"])
