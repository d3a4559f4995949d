"""aclrtc in the simulator (issue 22 item 3, native/sim/rtc.c): a program compiled by
aclrtcCompileProg -- which runs aiocann's kernel compiler as a child process -- loads with
aclrtBinaryLoadFromData and runs; name expressions lower to mangled names; compile errors come
back in the log with the program's name and line; the argument checks and codes of CANN's
libacl_rtc (hicann/asc-devkit's implementation and tests)."""

from __future__ import annotations

import numpy as np
import pytest
from acl_util import expect

import aiocann
from aiocann._lib import check, ffi, lib
from aiocann.compiler import KernelBuildError, compile_program

pytestmark = pytest.mark.timeout(300)

INVALID_PROG, INVALID_INPUT, INVALID_OPTION, COMPILATION = 176000, 176001, 176002, 176003
NO_NAME_EXPR_AFTER, NO_LOWERED_BEFORE, NAME_EXPR_NOT_VALID = 176005, 176006, 176007

SOURCE = r"""
#include "kernel_operator.h"
template <typename T> __global__ __aicore__ void axpy(__gm__ T *y, __gm__ const T *x, T a, uint32_t n)
{
    for (uint32_t i = GetBlockIdx(); i < n; i += GetBlockNum())
        y[i] += a * x[i];
}
extern "C" __global__ __aicore__ void set(__gm__ int32_t *out) { out[GetBlockIdx()] = SET_VALUE; }
"""


def create(src: str = SOURCE, name: str = "axpy.asc"):
    prog = ffi.new("aclrtcProg *")
    check(lib.aclrtcCreateProg(prog, src.encode(), name.encode(), 0, ffi.NULL, ffi.NULL))
    return prog


def options(*opts: str):
    keep = [ffi.new("char[]", o.encode()) for o in opts]
    return keep, ffi.new("const char *[]", keep)


def log_of(prog) -> str:
    size = ffi.new("size_t *")
    check(lib.aclrtcGetCompileLogSize(prog[0], size))
    buf = ffi.new("char[]", size[0])
    check(lib.aclrtcGetCompileLog(prog[0], buf))
    assert len(ffi.string(buf)) == size[0] - 1  # the size counts the terminating NUL
    return ffi.string(buf).decode()


def test_compile_load_and_run_with_name_expressions(acl):
    prog = create()
    check(lib.aclrtcAddNameExpr(prog[0], b"&axpy<float>"))
    lowered = ffi.new("const char **")
    expect(NO_LOWERED_BEFORE, lib.aclrtcGetLoweredName(prog[0], b"&axpy<float>", lowered))
    keep, argv = options("-DSET_VALUE=42", "--npu-arch=dav-2201", "-O2")
    check(lib.aclrtcCompileProg(prog[0], len(keep), argv))
    expect(NO_NAME_EXPR_AFTER, lib.aclrtcAddNameExpr(prog[0], b"&axpy<int>"))
    check(lib.aclrtcGetLoweredName(prog[0], b"&axpy<float>", lowered))
    name = ffi.string(lowered[0]).decode()
    assert name == "_Z4axpyIfEvPT_PKS0_S0_j"
    expect(NAME_EXPR_NOT_VALID, lib.aclrtcGetLoweredName(prog[0], b"&axpy<double>", lowered))

    size = ffi.new("size_t *")
    check(lib.aclrtcGetBinDataSize(prog[0], size))
    data = ffi.new("char[]", size[0])
    check(lib.aclrtcGetBinData(prog[0], data))
    binary = ffi.new("aclrtBinHandle *")
    check(lib.aclrtBinaryLoadFromData(data, size[0], ffi.NULL, binary))
    check(lib.aclrtcDestroyProg(prog))
    assert prog[0] == ffi.NULL

    out = ffi.new("aclrtFuncHandle *")
    check(lib.aclrtBinaryGetFunction(binary[0], name.encode(), out))
    fn = out[0]
    n = 1000
    x = np.linspace(0, 1, n, dtype=np.float32)
    y = np.ones(n, np.float32)
    dy, dx = acl.to_device(y), acl.to_device(x)
    s = acl.stream()
    acl.launch(fn, 4, s, ("ptr", dy), ("ptr", dx), ("float", 2.0), ("uint32_t", n))
    acl.sync(s)
    np.testing.assert_allclose(acl.from_device(dy, n, np.float32), y + 2 * x)
    check(lib.aclrtBinaryUnLoad(binary[0]))


def test_compile_errors_are_in_the_log_with_the_programs_name_and_line():
    prog = create(
        '#include "kernel_operator.h"\n\nextern "C" __global__ __aicore__ void k(GM_ADDR x)\n{\n    *x = missing;\n}\n',
        "broken.asc",
    )
    expect(COMPILATION, lib.aclrtcCompileProg(prog[0], 0, ffi.NULL))
    log = log_of(prog)
    assert "broken.asc:5: error:" in log and "missing" in log
    size = ffi.new("size_t *")
    expect(INVALID_PROG, lib.aclrtcGetBinDataSize(prog[0], size))  # no binary
    keep, argv = options("--no-such-option")
    expect(INVALID_OPTION, lib.aclrtcCompileProg(prog[0], 1, argv))
    check(lib.aclrtcDestroyProg(prog))


def test_argument_checks_and_codes():
    prog = ffi.new("aclrtcProg *")
    src = SOURCE.encode()
    expect(INVALID_INPUT, lib.aclrtcCreateProg(ffi.NULL, src, b"k", 0, ffi.NULL, ffi.NULL))
    expect(INVALID_INPUT, lib.aclrtcCreateProg(prog, ffi.NULL, b"k", 0, ffi.NULL, ffi.NULL))
    expect(INVALID_INPUT, lib.aclrtcCreateProg(prog, src, ffi.NULL, 0, ffi.NULL, ffi.NULL))
    size = ffi.new("size_t *")
    for call in (
        lambda p: lib.aclrtcCompileProg(p, 0, ffi.NULL),
        lambda p: lib.aclrtcAddNameExpr(p, b"&k"),
        lambda p: lib.aclrtcGetBinDataSize(p, size),
        lambda p: lib.aclrtcGetCompileLogSize(p, size),
    ):
        expect(INVALID_PROG, call(ffi.NULL))
    expect(INVALID_INPUT, lib.aclrtcDestroyProg(ffi.NULL))
    null = ffi.new("aclrtcProg *")
    expect(INVALID_PROG, lib.aclrtcDestroyProg(null))

    p = create()
    expect(INVALID_INPUT, lib.aclrtcCompileProg(p[0], -1, ffi.NULL))
    expect(INVALID_INPUT, lib.aclrtcCompileProg(p[0], 1, ffi.NULL))
    expect(INVALID_INPUT, lib.aclrtcCompileProg(p[0], 1, ffi.new("const char *[]", [ffi.NULL])))
    keep, argv = options("")
    expect(INVALID_OPTION, lib.aclrtcCompileProg(p[0], 1, argv))
    expect(INVALID_INPUT, lib.aclrtcAddNameExpr(p[0], ffi.NULL))
    expect(INVALID_INPUT, lib.aclrtcGetBinData(p[0], ffi.NULL))
    expect(INVALID_INPUT, lib.aclrtcGetCompileLog(p[0], ffi.NULL))
    assert log_of(p) == ""  # nothing compiled yet: an empty log of size 1
    stale = p[0]
    check(lib.aclrtcDestroyProg(p))
    expect(INVALID_PROG, lib.aclrtcGetCompileLogSize(stale, size))  # destroyed: refused, no crash


def test_an_ai_cpu_program_does_not_compile():
    prog = create(name="op.aicpu")
    expect(COMPILATION, lib.aclrtcCompileProg(prog[0], 0, ffi.NULL))
    assert log_of(prog) == "[ERROR] aicpu compile is not supported yet\n"
    check(lib.aclrtcDestroyProg(prog))


@pytest.mark.anyio
async def test_compile_program_is_aiocanns_front_door():
    exprs = ["&axpy<float>", "axpy<int>", "&set", "&axpy<double>"]
    program = compile_program(SOURCE, name="axpy.asc", options=["-DSET_VALUE=9"], name_expressions=exprs)
    assert program.lowered_names == {
        "&axpy<float>": "_Z4axpyIfEvPT_PKS0_S0_j",
        "axpy<int>": "_Z4axpyIiEvPT_PKS0_S0_j",
        "&set": "set",
        "&axpy<double>": "_Z4axpyIdEvPT_PKS0_S0_j",
    }
    async with aiocann.Device(0) as dev, dev.stream() as s:
        binary = await dev.load_binary_data(program.binary)
        k = binary.function("set")
        out = await s.upload(np.zeros(4, np.int32))
        await aiocann.launch(k, await k.args().ptr(out), blocks=4)
        assert (await s.download(out)).tolist() == [9] * 4
        assert binary.function("axpy<float>").name == "_Z4axpyIfEvPT_PKS0_S0_j"  # plain name, from the data
    with pytest.raises(KernelBuildError, match="oops.asc:1: error"):
        compile_program("int x = ;\n", name="oops.asc")
