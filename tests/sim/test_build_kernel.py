"""The simulator's kernel compiler (``aiocann.compiler.build_kernel``) and kernel binaries (reference
§9): caching by content, compiler diagnostics, unsupported signatures, C++ kernels; loading
from a file and from memory, unknown kernels, and unloaded binaries."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from acl_util import (
    INVALID_PARAM,
    RT_FILE_OPEN,
    RT_INVALID_HANDLE,
    RT_KERNEL_LOOKUP,
    RT_PARAM_INVALID,
    KernelArgs,
    expect,
    launch_rc,
    tiling,
)

import aiocann._frontend
import aiocann.compiler
from aiocann._lib import check, ffi, lib
from aiocann.compiler import KernelBuildError, build_kernel

SCALE = """
#include "kernel_operator.h"
__global__ __aicore__ void scale(GM_ADDR data, uint32_t n, float factor)
{
    float *d = (float *)data;
    for (uint32_t i = (uint32_t)GetBlockIdx(); i < n; i += (uint32_t)GetBlockNum())
        d[i] *= factor;
}
"""

VECTOR_ADD_CPP = r"""
#include "kernel_operator.h"
#include <cstdint>

namespace {
template <typename T> constexpr T add(T a, T b) { return a + b; }
struct Tiling { uint32_t total; uint32_t reserved; };
}

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    const auto *t = reinterpret_cast<const Tiling *>(tiling);
    const auto *a = reinterpret_cast<const float *>(x);
    const auto *b = reinterpret_cast<const float *>(y);
    auto *c = reinterpret_cast<float *>(z);
    for (uint64_t i = AscendC::GetBlockIdx(); i < t->total; i += AscendC::GetBlockNum())
        c[i] = add(a[i], b[i]);
}
"""


def load_file(path: Path | str, options=ffi.NULL) -> tuple[int, object]:
    out = ffi.new("aclrtBinHandle *")
    rc = lib.aclrtBinaryLoadFromFile(str(path).encode(), options, out)
    return rc, out[0]


def get_function(binary, name: str) -> tuple[int, object]:
    out = ffi.new("aclrtFuncHandle *")
    rc = lib.aclrtBinaryGetFunction(binary, name.encode(), out)
    return rc, out[0]


def run_vector_add(acl, fn, n: int = 10_000) -> None:
    """Launches fn as add_custom on fresh inputs and checks the result against numpy."""
    x = np.arange(n, dtype=np.float32)
    y = np.linspace(-1, 1, n, dtype=np.float32)
    dx, dy, dz = acl.to_device(x), acl.to_device(y), acl.malloc(x.nbytes)
    args = KernelArgs(fn)
    for p in (dx, dy, dz):
        args.ptr(p)
    args.data(args.placeholder(), tiling(n))
    args.finalize()
    s = acl.stream()
    check(launch_rc(fn, 4, s, args))
    acl.sync(s)
    np.testing.assert_array_equal(acl.from_device(dz, n, np.float32), x + y)


# --------------------------------------------------------------------------- build_kernel


def test_builds_are_cached_by_content(tmp_path, monkeypatch):
    first = build_kernel(SCALE, cache_dir=tmp_path)
    mtime = first.stat().st_mtime_ns

    def no_compiler(*args, **kwargs):
        raise AssertionError("build_kernel ran the compiler for a cached kernel")

    with monkeypatch.context() as m:
        m.setattr(aiocann._frontend.subprocess, "run", no_compiler)
        again = build_kernel(SCALE, cache_dir=tmp_path)
    assert again == first and again.stat().st_mtime_ns == mtime

    changed = build_kernel(SCALE + "/* another revision */\n", cache_dir=tmp_path)
    assert changed != first and changed.is_file()
    assert build_kernel(SCALE, cache_dir=tmp_path, cflags=["-O1"]) not in (first, changed)  # flags count too


def test_the_old_module_name_still_builds_with_a_deprecation_warning(tmp_path):
    """aiocann.sim, the compiler's earlier name, still works -- every name warns once per use,
    naming aiocann.compiler -- and gives the very same functions and the same binary."""
    import aiocann.sim

    with pytest.warns(DeprecationWarning, match=r"aiocann\.sim\.build_kernel moved to aiocann\.compiler\.build_kernel"):
        old_build = aiocann.sim.build_kernel
    assert old_build is build_kernel
    assert old_build(SCALE, cache_dir=tmp_path) == build_kernel(SCALE, cache_dir=tmp_path)
    with pytest.warns(DeprecationWarning, match="aiocann.compiler"):
        from aiocann.sim import KernelBuildError as old_error
    assert old_error is KernelBuildError
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        aiocann.sim.not_a_name  # noqa: B018


def test_compile_error_carries_the_compiler_output(tmp_path):
    bad = SCALE.replace("d[i] *= factor;", "d[i] *= no_such_variable;")
    with pytest.raises(KernelBuildError) as ei:
        build_kernel(bad, cache_dir=tmp_path)
    e = ei.value
    assert "no_such_variable" in e.output and "error" in e.output
    assert "no_such_variable" in str(e) and "scale" in str(e)
    assert e.command and Path(e.command[-1]).name.startswith("entry")
    assert not list(tmp_path.rglob("kernel.so"))  # nothing half-built is left to be found later


@pytest.mark.parametrize(
    ("signature", "message"),
    [
        ("GM_ADDR out, int values[4]", "parameter 1 'int values[4]' is not supported"),
        ("GM_ADDR out, void (*fn)(void)", "parameter 1 'void (*fn)(void)' is not supported"),
        ("GM_ADDR out, GM_ADDR", "parameter 1 'GM_ADDR' needs a type and a name"),
    ],
)
def test_unsupported_parameter_forms_are_rejected(tmp_path, signature, message):
    src = f'#include "kernel_operator.h"\n__global__ __aicore__ void k({signature}) {{ (void)out; }}\n'
    with pytest.raises(KernelBuildError, match="kernel k: ") as ei:
        build_kernel(src, cache_dir=tmp_path)
    assert message in str(ei.value)


def test_parameters_larger_than_8_bytes_are_rejected(tmp_path):
    src = (
        '#include "kernel_operator.h"\n'
        "typedef struct { double a, b; } pair;\n"
        "__global__ __aicore__ void k(GM_ADDR out, pair p) { (void)out; (void)p; }\n"
    )
    with pytest.raises(KernelBuildError) as ei:
        build_kernel(src, cache_dir=tmp_path)
    assert "parameter p is larger than 8 bytes" in ei.value.output


def test_sources_without_kernels_or_with_duplicates_are_rejected(tmp_path):
    with pytest.raises(KernelBuildError, match="no kernel found"):
        build_kernel("int helper(void) { return 1; }\n", cache_dir=tmp_path)
    twice = SCALE + SCALE.replace('#include "kernel_operator.h"', "")
    with pytest.raises(KernelBuildError, match="unique"):
        build_kernel(twice, cache_dir=tmp_path)


def test_a_missing_source_path_raises_file_not_found(tmp_path):
    """Issue 14: a path that does not exist is reported as such, not taken for source text
    without a kernel; a one-line source that defines a kernel still builds."""
    for missing in ("does/not/exist.c", str(tmp_path / "gone.c"), tmp_path / "gone.c"):
        with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
            build_kernel(missing, cache_dir=tmp_path)
    one_line = "__global__ __aicore__ void k(GM_ADDR out) { *(int *)out = 1; }"
    assert build_kernel(one_line, cache_dir=tmp_path).is_file()
    with pytest.raises(KernelBuildError, match="no kernel found"):
        build_kernel("", cache_dir=tmp_path)


def test_cpp_kernel_with_extern_c(acl, tmp_path):
    path = build_kernel(VECTOR_ADD_CPP, cache_dir=tmp_path)  # C++ is detected from extern "C"
    rc, binary = load_file(path)
    expect(0, rc)
    rc, fn = get_function(binary, "add_custom")
    expect(0, rc)
    run_vector_add(acl, fn)
    check(lib.aclrtBinaryUnLoad(binary))


def test_scalar_parameters_reach_the_kernel(acl, tmp_path):
    fn = acl.function(build_kernel(SCALE, cache_dir=tmp_path), "scale")
    x = np.arange(1000, dtype=np.float32)
    d = acl.to_device(x)
    s = acl.stream()
    acl.launch(fn, 8, s, ("ptr", d), ("uint32_t", 999), ("float", -2.5))
    acl.sync(s)
    expected = x * np.float32(-2.5)
    expected[999] = x[999]
    np.testing.assert_array_equal(acl.from_device(d, 1000, np.float32), expected)


# --------------------------------------------------------------------------- loading binaries


def test_files_that_are_not_kernel_binaries(acl, tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    src = tmp_path / "plain.c"
    src.write_text("int plain(void) { return 1; }\n")
    plain = tmp_path / "plain.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(plain), str(src)], check=True)
    rc, _ = load_file(plain)
    expect(RT_PARAM_INVALID, rc, "aclsim_kernels", "build_kernel")

    text = tmp_path / "kernel.o"
    text.write_text("this is not an ELF file\n")
    rc, _ = load_file(text)
    expect(RT_PARAM_INVALID, rc, "not a loadable kernel binary")

    rc, _ = load_file(tmp_path / "missing.so")
    expect(RT_FILE_OPEN, rc, "missing.so")
    expect(INVALID_PARAM, lib.aclrtBinaryLoadFromFile(ffi.NULL, ffi.NULL, ffi.new("aclrtBinHandle *")))
    expect(INVALID_PARAM, lib.aclrtBinaryLoadFromFile(b"/x", ffi.NULL, ffi.NULL))


def test_load_options(acl, vector_add_path):
    opt = ffi.new("aclrtBinaryLoadOption[1]")
    opts = ffi.new("aclrtBinaryLoadOptions *")
    opts.options, opts.numOpt = opt, 1
    opt[0].type = 2  # ACL_RT_BINARY_LOAD_OPT_MAGIC: LoadFromData only
    opt[0].value.magic = 0x43554245
    rc, _ = load_file(vector_add_path, opts)
    expect(RT_PARAM_INVALID, rc, "LoadFromData")
    data = vector_add_path.read_bytes()
    out = ffi.new("aclrtBinHandle *")
    check(lib.aclrtBinaryLoadFromData(data, len(data), opts, out))
    check(lib.aclrtBinaryUnLoad(out[0]))
    opt[0].type = 1  # LAZY_LOAD: accepted by both
    opt[0].value.isLazyLoad = 1
    rc, binary = load_file(vector_add_path, opts)
    expect(0, rc)
    check(lib.aclrtBinaryUnLoad(binary))
    opt[0].type = 99
    rc, _ = load_file(vector_add_path, opts)
    expect(RT_PARAM_INVALID, rc, "unknown load option")


def test_load_from_data(acl, vector_add_path):
    data = vector_add_path.read_bytes()
    handles = []
    for _ in range(2):  # two loads are two independent binaries
        out = ffi.new("aclrtBinHandle *")
        check(lib.aclrtBinaryLoadFromData(data, len(data), ffi.NULL, out))
        handles.append(out[0])
    assert handles[0] != handles[1]
    check(lib.aclrtBinaryUnLoad(handles[0]))
    rc, fn = get_function(handles[1], "add_custom")
    expect(0, rc)
    run_vector_add(acl, fn)
    check(lib.aclrtBinaryUnLoad(handles[1]))

    out = ffi.new("aclrtBinHandle *")
    expect(INVALID_PARAM, lib.aclrtBinaryLoadFromData(data, 0, ffi.NULL, out), "length")
    expect(INVALID_PARAM, lib.aclrtBinaryLoadFromData(ffi.NULL, 10, ffi.NULL, out), "data")
    junk = b"\x7fELF" + bytes(200)
    expect(RT_PARAM_INVALID, lib.aclrtBinaryLoadFromData(junk, len(junk), ffi.NULL, out), "binary data")


def test_binaries_loaded_from_data_are_each_their_own(acl, vector_add_path, test_kernels_path):
    """Two different binaries loaded from data (one after another, the first's memory file
    closed) each keep their own kernels: the dynamic loader takes a binary it was given by a
    name it already has for the one it loaded before, so every load needs a name of its own."""
    handles = []
    for path in (vector_add_path, test_kernels_path, vector_add_path):
        data = path.read_bytes()
        out = ffi.new("aclrtBinHandle *")
        check(lib.aclrtBinaryLoadFromData(data, len(data), ffi.NULL, out))
        handles.append(out[0])
    expect(0, get_function(handles[0], "add_custom")[0])
    expect(0, get_function(handles[1], "wait_us")[0])
    expect(RT_KERNEL_LOOKUP, get_function(handles[1], "add_custom")[0], "add_custom")
    expect(0, get_function(handles[2], "add_custom")[0])
    for h in handles:
        check(lib.aclrtBinaryUnLoad(h))


def test_unknown_kernel_name(acl, test_kernels_path):
    binary = acl.binary(test_kernels_path)
    rc, _ = get_function(binary, "no_such_kernel")
    expect(RT_KERNEL_LOOKUP, rc, "no_such_kernel", "probe")  # the message lists what there is


def test_unloaded_binaries_and_their_functions(acl, test_kernels_path):
    """Unload invalidates the binary and its functions at once (107017); a launch made before
    the unload still runs, with the code kept mapped until it has."""
    rc, binary = load_file(test_kernels_path)
    expect(0, rc)
    rc, wait = get_function(binary, "wait_us")
    expect(0, rc)
    out = acl.malloc(64)
    acl.zeros(out, 64)
    s = acl.stream()
    acl.launch(wait, 2, s, ("ptr", out), ("uint64_t", 100_000))
    check(lib.aclrtBinaryUnLoad(binary))

    expect(RT_INVALID_HANDLE, get_function(binary, "wait_us")[0], "binary")
    expect(RT_INVALID_HANDLE, lib.aclrtBinaryUnLoad(binary), "binary")
    args = ffi.new("aclrtArgsHandle *")
    expect(RT_INVALID_HANDLE, lib.aclrtKernelArgsInit(wait, args), "function")
    # The launch was queued when its binary was unloaded: its code is gone at once (as on the
    # real runtime), so unless it had already started it fails on its stream -- never a crash.
    rc = lib.aclrtSynchronizeStream(s)
    assert rc in (0, 507015)
    assert acl.from_device(out, 2, np.int32).tolist() == ([1, 2] if rc == 0 else [0, 0])
