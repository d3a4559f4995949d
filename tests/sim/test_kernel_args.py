"""Kernel arguments (reference §10) through the raw binding: the byte layout of parameters and
placeholder data (read from the caller's buffer, and as the kernel received it), the sizing
formulas, every error condition of §10.6 with its code, the state machine of §10.5, the
thread-local handle of aclrtKernelArgsInit, and stale or foreign handles (107017, never a
crash). Simulator kernels have no hidden system parameters, so user parameters start at
offset 0 (ARCHITECTURE.md); every other rule is the reference's."""

from __future__ import annotations

import struct
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from acl_util import (
    INVALID_PARAM,
    RT_CONTEXT_NULL,
    RT_FEATURE_NOT_SUPPORT,
    RT_INVALID_HANDLE,
    RT_PARAM_INVALID,
    SUCCESS,
    KernelArgs,
    addr,
    expect,
    last_error,
    launch_rc,
    sync_rc,
    vp,
)

from aiocann._lib import check, ffi, lib

# probe(uint8 a, int16 b, uint32 c, int64 d, float e, double f, GM_ADDR ph1, GM_ADDR ph2, GM_ADDR out)
PROBE_SCALARS = [
    ("uint8_t", 0xA5, "<B"),
    ("int16_t", -12345, "<h"),
    ("uint32_t", 0xDEADBEEF, "<I"),
    ("int64_t", -(1 << 40) - 7, "<q"),
    ("float", 1.5, "<f"),
    ("double", -2.25, "<d"),
]
PROBE_OUT = "<BhIqfd8s8s"  # what probe writes: the scalars, then 8 bytes from each placeholder


def mem_size(fn: Any, user_args_size: int) -> int:
    out = ffi.new("size_t *")
    check(lib.aclrtKernelArgsGetMemSize(fn, user_args_size, out))
    return int(out[0])


def handle_mem_size(fn: Any) -> int:
    out = ffi.new("size_t *")
    check(lib.aclrtKernelArgsGetHandleMemSize(fn, out))
    return int(out[0])


def new_ph() -> Any:
    return ffi.new("aclrtParamHandle *")


# --------------------------------------------------------------------------- layout


def test_layout_of_mixed_size_parameters_and_placeholder_data(acl, test_kernels_path):
    """Each parameter at the next 8-byte boundary, placeholder data after all parameters,
    8-byte aligned (§10.3), read from the caller's buffer; then what the kernel received."""
    fn = acl.function(test_kernels_path, "probe")
    args = KernelArgs(fn, mem_size(fn, 9 * 8 + 16))
    for i, (ctype, value, fmt) in enumerate(PROBE_SCALARS):
        args.scalar(ctype, value)
        # a uint8 at 0, the int16 after it at 8 (not 1), the uint32 at 16, ...
        assert args.bytes(8 * i, 8 * i + struct.calcsize(fmt)) == struct.pack(fmt, value)
    ph1, ph2 = args.placeholder(), args.placeholder()  # slots at 48 and 56
    dout = acl.malloc(64)
    args.ptr(dout)
    assert args.bytes(64, 72) == struct.pack("<Q", addr(dout))
    buf = addr(args.buf)
    d1 = args.data(ph1, b"ABCDE")
    d2 = args.data(ph2, b"12345678")
    assert d1 - buf == 72  # right after the nine 8-byte parameters
    assert d2 - buf == 80  # 72 + 5, rounded up to 8
    assert args.bytes(72, 77) == b"ABCDE" and args.bytes(80, 88) == b"12345678"
    args.finalize()

    s = acl.stream()
    check(launch_rc(fn, 1, s, args))
    acl.sync(s)
    got = struct.unpack(PROBE_OUT, acl.from_device(dout, 43, np.uint8).tobytes())
    assert got[:6] == tuple(v for _, v, _ in PROBE_SCALARS)
    assert got[6][:5] == b"ABCDE"  # ph1: its 5 bytes (the rest is alignment padding)
    assert got[7] == b"12345678"


def test_system_managed_handle_has_the_same_layout(acl, test_kernels_path):
    fn = acl.function(test_kernels_path, "probe")
    args = KernelArgs(fn)
    for ctype, value, _ in PROBE_SCALARS:
        args.scalar(ctype, value)
    ph1, ph2 = args.placeholder(), args.placeholder()
    dout = acl.malloc(64)
    args.ptr(dout)
    d1 = args.data(ph1, b"xyz")
    d2 = args.data(ph2, b"\x01\x02\x03\x04\x05\x06\x07\x08")
    assert d2 - d1 == 8  # 3 bytes of data padded to 8
    args.finalize()
    s = acl.stream()
    check(launch_rc(fn, 3, s, args))
    acl.sync(s)
    got = struct.unpack(PROBE_OUT, acl.from_device(dout, 43, np.uint8).tobytes())
    assert got[:6] == tuple(v for _, v, _ in PROBE_SCALARS)
    assert got[6][:3] == b"xyz" and got[7] == bytes(range(1, 9))


def test_placeholder_slots_are_patched_to_data_in_the_launched_copy(acl, args_kernels_path):
    """At launch each placeholder slot becomes D + dataOffset, D being where the runtime copied
    the args; a placeholder never given a buffer keeps dataOffset 0 (§10.3 rule 6)."""
    fn = acl.function(args_kernels_path, "pointers")  # pointers(ph1, ph2, out)
    s = acl.stream()
    dout = acl.malloc(16)

    args = KernelArgs(fn, mem_size(fn, 3 * 8 + 16))
    ph1, ph2 = args.placeholder(), args.placeholder()
    args.ptr(dout)
    d2 = args.data(ph2, bytes(16))  # ph1 gets no buffer
    assert d2 - addr(args.buf) == 24
    args.finalize()
    check(launch_rc(fn, 1, s, args))
    acl.sync(s)
    p1, p2 = acl.from_device(dout, 2, np.uint64).tolist()
    assert p2 - p1 == 24  # D + 24 and D + 0
    assert p1 != addr(args.buf) and p2 != d2  # the kernel sees the runtime's copy, not ours

    args = KernelArgs(fn, mem_size(fn, 3 * 8 + 16))
    ph1, ph2 = args.placeholder(), args.placeholder()
    args.ptr(dout)
    assert args.data(ph1, b"abc") - addr(args.buf) == 24
    assert args.data(ph2, b"defgh") - addr(args.buf) == 32
    args.finalize()
    check(launch_rc(fn, 1, s, args))
    acl.sync(s)
    p1, p2 = acl.from_device(dout, 2, np.uint64).tolist()
    assert p2 - p1 == 8


def test_args_are_copied_at_launch(acl, test_kernels_path):
    """Changing the caller's args after the launch call (the placeholder data it owns, a
    ParaUpdate) does not change what that launch computes, even though it has not run yet."""
    fn = acl.function(test_kernels_path, "probe")
    wait = acl.function(test_kernels_path, "wait_us")
    s = acl.stream()
    scratch, dout = acl.malloc(64), acl.malloc(64)
    acl.launch(wait, 1, s, ("ptr", scratch), ("uint64_t", 150_000))  # the probe runs after this

    args = KernelArgs(fn, mem_size(fn, 9 * 8 + 16))
    params = [args.scalar(ctype, value) for ctype, value, _ in PROBE_SCALARS]
    ph1, ph2 = args.placeholder(), args.placeholder()
    args.ptr(dout)
    args.data(ph1, b"before!!")
    d2 = args.data(ph2, b"original")
    args.finalize()
    check(launch_rc(fn, 1, s, args))
    args.update(params[2], "uint32_t", 7)
    ffi.memmove(vp(d2), b"CHANGED!", 8)
    assert acl.query(s) == 1, "the probe ran before the args were changed: the test proves nothing"
    acl.sync(s)
    got = struct.unpack(PROBE_OUT, acl.from_device(dout, 43, np.uint8).tobytes())
    assert got[2] == 0xDEADBEEF and got[6] == b"before!!" and got[7] == b"original"


def test_worked_example_of_the_reference(acl, args_kernels_path):
    """§10.7 without the system slot: GetMemSize(1024) for 3 user parameters is 1112; a
    uint32 at 0, placeholders at 8 and 16, their 10-byte data blocks at 24 and 40."""
    fn = acl.function(args_kernels_path, "worked_example")  # (uint32 value, ph1, ph2)
    assert mem_size(fn, 1024) == 1024 + 64 + 24 == 1112
    args = KernelArgs(fn, 1112)
    args.scalar("uint32_t", 1002)
    assert args.bytes(0, 4) == struct.pack("<I", 1002)
    ph1, ph2 = args.placeholder(), args.placeholder()
    report = acl.malloc(64)
    buf = addr(args.buf)
    assert args.data(ph1, struct.pack("<Q", addr(report)) + b"\0\0") - buf == 24
    assert args.data(ph2, b"0123456789") - buf == 40  # 34 rounded up to 40
    args.finalize()
    s = acl.stream()
    check(launch_rc(fn, 1, s, args))
    acl.sync(s)
    value, delta, data = struct.unpack("<Iq10s", acl.from_device(report, 22, np.uint8).tobytes())
    assert (value, delta, data) == (1002, 16, b"0123456789")


# --------------------------------------------------------------------------- sizing (§10.4)


def test_get_mem_size_and_handle_mem_size_formulas(acl, test_kernels_path, args_kernels_path):
    kernels = {"empty": 1, "wait_us": 2, "write_value": 3, "probe": 9}
    sizes = {}
    for name, nparams in kernels.items():
        fn = acl.function(test_kernels_path, name)
        for user in (0, 8, 100, 4096):
            # non-CPU kernels: userArgsSize + 8 system params x 8 + 8 per user parameter
            assert mem_size(fn, user) == user + 8 * 8 + 8 * nparams
        sizes[nparams] = handle_mem_size(fn)
    # sizeof(handle) + maxUserParamNum x sizeof(param record): linear in the parameter count
    per_param = sizes[2] - sizes[1]
    assert per_param > 0
    assert all(sizes[n] == sizes[1] + (n - 1) * per_param for n in kernels.values())


def test_user_mem_handle_capacity_is_its_buffer(acl, args_kernels_path):
    """bufferSize = actualArgsSize: a parameter that ends exactly at the end fits, one byte
    more does not (107000)."""
    fn = acl.function(args_kernels_path, "stamp")  # (out, int64 value, ph): up to 3 params
    args = KernelArgs(fn, 12)
    args.ptr(0x1000)
    v = ffi.new("int64_t *", 1)
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppend(args.handle, v, 8, new_ph()), "do not fit")
    args.scalar("int32_t", 5)  # 8 + 4 == 12: fits
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppendPlaceHolder(args.handle, new_ph()), "do not fit")

    args = KernelArgs(fn, 24)
    args.ptr(0x1000)
    args.scalar("int64_t", 1)
    ph = args.placeholder()  # 16..24: the buffer is full
    out = ffi.new("void **")
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsGetPlaceHolderBuffer(args.handle, ph, 1, out), "do not fit")


def test_system_managed_handle_holds_64_kib(acl, test_kernels_path):
    fn = acl.function(test_kernels_path, "empty")
    big = ffi.new("uint8_t[]", 65537)
    args = KernelArgs(fn)
    args.scalar("uint8_t", 1)
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppend(args.handle, big, 65536, new_ph()), "do not fit")
    args = KernelArgs(fn)
    check(lib.aclrtKernelArgsAppend(args.handle, big, 65536, new_ph()))  # exactly 64 KiB
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppend(args.handle, big, 1, new_ph()), "do not fit")

    args = KernelArgs(fn)
    ph = args.placeholder()
    out = ffi.new("void **")
    expect(
        RT_PARAM_INVALID,
        lib.aclrtKernelArgsGetPlaceHolderBuffer(args.handle, ph, 65536 - 7, out),
        "do not fit",
    )
    check(lib.aclrtKernelArgsGetPlaceHolderBuffer(args.handle, ph, 65536 - 8, out))


def test_parameter_count_limits(acl, test_kernels_path, args_kernels_path):
    """At most 128 parameters in an Init handle; an InitByUserMem handle holds the kernel's own
    parameter count (§10.4). Beyond that: 107000, for plain parameters and placeholders."""
    empty = acl.function(test_kernels_path, "empty")
    args = KernelArgs(empty)
    for i in range(128):
        args.scalar("uint8_t", i)
    v = ffi.new("uint8_t *", 1)
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppend(args.handle, v, 1, new_ph()), "128")
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppendPlaceHolder(args.handle, new_ph()), "128")
    args.finalize()  # 128 parameters launch fine (the kernel reads the first)
    s = acl.stream()
    check(launch_rc(empty, 1, s, args))
    acl.sync(s)

    stamp = acl.function(args_kernels_path, "stamp")
    args = KernelArgs(stamp, 4096)
    args.ptr(0x1000)
    args.scalar("int64_t", 1)
    args.placeholder()
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppend(args.handle, v, 1, new_ph()), "3 parameters")
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppendPlaceHolder(args.handle, new_ph()), "3 parameters")


# --------------------------------------------------------------------------- errors (§10.6)


@dataclass
class Kit:
    """A stamp(out, int64 value, ph) args handle in the OPEN state, and what the calls need."""

    fn: Any
    stream: Any
    out: Any
    args: KernelArgs
    p_value: Any
    ph: Any
    handle_mem: Any = None
    buf: Any = None


@pytest.fixture
def kit(acl, args_kernels_path) -> Kit:
    fn = acl.function(args_kernels_path, "stamp")
    out = acl.malloc(16)
    args = KernelArgs(fn)
    args.ptr(out)
    p_value = args.scalar("int64_t", 5)
    ph = args.placeholder()
    return Kit(fn, acl.stream(), out, args, p_value, ph, ffi.new("uint64_t[64]"), ffi.new("uint8_t[256]"))


V8 = ffi.new("int64_t *", 9)
NULL = ffi.NULL
NULL_OR_ZERO: dict[str, Any] = {
    "Init/func": lambda k: lib.aclrtKernelArgsInit(NULL, ffi.new("aclrtArgsHandle *")),
    "Init/out": lambda k: lib.aclrtKernelArgsInit(k.fn, NULL),
    "InitByUserMem/func": lambda k: lib.aclrtKernelArgsInitByUserMem(NULL, k.handle_mem, k.buf, 256),
    "InitByUserMem/handle": lambda k: lib.aclrtKernelArgsInitByUserMem(k.fn, NULL, k.buf, 256),
    "InitByUserMem/mem": lambda k: lib.aclrtKernelArgsInitByUserMem(k.fn, k.handle_mem, NULL, 256),
    "InitByUserMem/size0": lambda k: lib.aclrtKernelArgsInitByUserMem(k.fn, k.handle_mem, k.buf, 0),
    "GetMemSize/func": lambda k: lib.aclrtKernelArgsGetMemSize(NULL, 8, ffi.new("size_t *")),
    "GetMemSize/out": lambda k: lib.aclrtKernelArgsGetMemSize(k.fn, 8, NULL),
    "GetHandleMemSize/func": lambda k: lib.aclrtKernelArgsGetHandleMemSize(NULL, ffi.new("size_t *")),
    "GetHandleMemSize/out": lambda k: lib.aclrtKernelArgsGetHandleMemSize(k.fn, NULL),
    "Append/handle": lambda k: lib.aclrtKernelArgsAppend(NULL, V8, 8, new_ph()),
    "Append/param": lambda k: lib.aclrtKernelArgsAppend(k.args.handle, NULL, 8, new_ph()),
    "Append/size0": lambda k: lib.aclrtKernelArgsAppend(k.args.handle, V8, 0, new_ph()),
    "Append/out": lambda k: lib.aclrtKernelArgsAppend(k.args.handle, V8, 8, NULL),
    "AppendPlaceHolder/handle": lambda k: lib.aclrtKernelArgsAppendPlaceHolder(NULL, new_ph()),
    "AppendPlaceHolder/out": lambda k: lib.aclrtKernelArgsAppendPlaceHolder(k.args.handle, NULL),
    "GetPlaceHolderBuffer/handle": lambda k: lib.aclrtKernelArgsGetPlaceHolderBuffer(NULL, k.ph, 8, ffi.new("void **")),
    "GetPlaceHolderBuffer/param": lambda k: lib.aclrtKernelArgsGetPlaceHolderBuffer(
        k.args.handle, NULL, 8, ffi.new("void **")
    ),
    "GetPlaceHolderBuffer/size0": lambda k: lib.aclrtKernelArgsGetPlaceHolderBuffer(
        k.args.handle, k.ph, 0, ffi.new("void **")
    ),
    "GetPlaceHolderBuffer/out": lambda k: lib.aclrtKernelArgsGetPlaceHolderBuffer(k.args.handle, k.ph, 8, NULL),
    "ParaUpdate/handle": lambda k: lib.aclrtKernelArgsParaUpdate(NULL, k.p_value, V8, 8),
    "ParaUpdate/param_handle": lambda k: lib.aclrtKernelArgsParaUpdate(k.args.handle, NULL, V8, 8),
    "ParaUpdate/param": lambda k: lib.aclrtKernelArgsParaUpdate(k.args.handle, k.p_value, NULL, 8),
    "ParaUpdate/size0": lambda k: lib.aclrtKernelArgsParaUpdate(k.args.handle, k.p_value, V8, 0),
    "Finalize/handle": lambda k: lib.aclrtKernelArgsFinalize(NULL),
    "Launch/func": lambda k: lib.aclrtLaunchKernelWithConfig(NULL, 1, k.stream, NULL, k.args.handle, NULL),
    "Launch/args": lambda k: lib.aclrtLaunchKernelWithConfig(k.fn, 1, k.stream, NULL, NULL, NULL),
    "Launch/blocks0": lambda k: lib.aclrtLaunchKernelWithConfig(k.fn, 0, k.stream, NULL, k.args.handle, NULL),
    "Launch/reserve": lambda k: lib.aclrtLaunchKernelWithConfig(k.fn, 1, k.stream, NULL, k.args.handle, V8),
}


@pytest.mark.parametrize("call", list(NULL_OR_ZERO.values()), ids=list(NULL_OR_ZERO))
def test_null_or_zero_argument_is_invalid_param(kit, call):
    expect(INVALID_PARAM, call(kit), "must")
    # The rejected call changed nothing: the handle still finalizes and launches.
    kit.args.data(kit.ph, struct.pack("<q", 3))
    kit.args.finalize()
    check(launch_rc(kit.fn, 1, kit.stream, kit.args))
    check(sync_rc(kit.stream))


def test_append_after_placeholder_data_is_refused(kit):
    kit.args.data(kit.ph, bytes(8))
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtKernelArgsAppend(kit.args.handle, V8, 8, new_ph()), "after")
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtKernelArgsAppendPlaceHolder(kit.args.handle, new_ph()), "after")


def test_after_finalize_the_layout_is_closed(kit):
    kit.args.finalize()
    out = ffi.new("void **")
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtKernelArgsAppend(kit.args.handle, V8, 8, new_ph()), "Finalize")
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtKernelArgsAppendPlaceHolder(kit.args.handle, new_ph()), "Finalize")
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtKernelArgsGetPlaceHolderBuffer(kit.args.handle, kit.ph, 8, out))


def test_placeholder_buffer_of_a_plain_parameter(kit):
    """107000, and checked before the Finalize check (so still 107000 after Finalize)."""
    out = ffi.new("void **")
    expect(
        RT_PARAM_INVALID,
        lib.aclrtKernelArgsGetPlaceHolderBuffer(kit.args.handle, kit.p_value, 8, out),
        "placeholder",
    )
    kit.args.finalize()
    expect(
        RT_PARAM_INVALID,
        lib.aclrtKernelArgsGetPlaceHolderBuffer(kit.args.handle, kit.p_value, 8, out),
        "placeholder",
    )


def test_para_update_only_plain_parameters_of_the_same_size(kit):
    h = kit.args.handle
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsParaUpdate(h, kit.ph, V8, 8), "placeholder")
    v4, v16 = ffi.new("int32_t *", 1), ffi.new("int64_t[2]")
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsParaUpdate(h, kit.p_value, v4, 4), "size")
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsParaUpdate(h, kit.p_value, v16, 16), "size")
    check(lib.aclrtKernelArgsParaUpdate(h, kit.p_value, V8, 8))


def test_unreadable_param_memory_is_a_copy_failure(kit):
    """Append and ParaUpdate copy from a host address; an unreadable one fails with 107000."""
    h = kit.args.handle
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsParaUpdate(h, kit.p_value, vp(0x10), 8), "readable")
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppend(h, vp(0x10), 8, new_ph()), "readable")


def test_param_handles_from_before_a_reinit_are_stale(acl, kit):
    """Init re-initialises the thread's one system-managed handle; InitByUserMem re-initialises
    the handle in place: parameter handles taken before are stale (107017), as are parameter
    handles of another args handle and made-up ones."""
    out = ffi.new("void **")
    old_value, old_ph = kit.p_value, kit.ph
    again = KernelArgs(kit.fn)
    assert again.handle == kit.args.handle
    expect(RT_INVALID_HANDLE, lib.aclrtKernelArgsParaUpdate(again.handle, old_value, V8, 8), "param handle")
    expect(
        RT_INVALID_HANDLE,
        lib.aclrtKernelArgsGetPlaceHolderBuffer(again.handle, old_ph, 8, out),
        "param handle",
    )

    user = KernelArgs(kit.fn, 256)
    p = user.scalar("int64_t", 1)
    check(lib.aclrtKernelArgsInitByUserMem(kit.fn, user.handle, user.buf, 256))  # in place, again
    expect(RT_INVALID_HANDLE, lib.aclrtKernelArgsParaUpdate(user.handle, p, V8, 8), "param handle")

    other = KernelArgs(kit.fn, 256)
    q = other.scalar("int64_t", 1)
    user.scalar("int64_t", 1)
    expect(RT_INVALID_HANDLE, lib.aclrtKernelArgsParaUpdate(user.handle, q, V8, 8), "param handle")
    for bogus in (0x1234567, 0xFFFF_FFFF_FFFF_FFFF, 1):
        expect(RT_INVALID_HANDLE, lib.aclrtKernelArgsParaUpdate(user.handle, vp(bogus), V8, 8), "param handle")


def test_launch_needs_a_finalized_handle_not_updated_since(kit):
    expect(RT_PARAM_INVALID, launch_rc(kit.fn, 1, kit.stream, kit.args), "not finalized")
    kit.args.finalize()
    kit.args.update(kit.p_value, "int64_t", 6)
    expect(RT_PARAM_INVALID, launch_rc(kit.fn, 1, kit.stream, kit.args), "finalize it again")
    kit.args.finalize()
    check(launch_rc(kit.fn, 1, kit.stream, kit.args))
    check(sync_rc(kit.stream))


def test_launch_with_no_arguments_is_rejected(acl, test_kernels_path):
    """argsSize == 0 is rejected (the reference leaves the code open; the simulator uses 107000)."""
    fn = acl.function(test_kernels_path, "empty")
    args = KernelArgs(fn).finalize()
    expect(RT_PARAM_INVALID, launch_rc(fn, 1, acl.stream(), args), "no parameters")


def test_launch_with_fewer_arguments_than_the_kernel_reads(kit):
    """The simulator knows the kernel's signature and refuses args too short for it, rather than
    letting the kernel read past them."""
    args = KernelArgs(kit.fn)
    args.ptr(kit.out)
    args.scalar("int64_t", 1)
    args.finalize()
    expect(RT_PARAM_INVALID, launch_rc(kit.fn, 1, kit.stream, args), "stamp")


def test_finalize_without_a_current_context(kit):
    """107002: Finalize in a thread that has no current context."""
    user = KernelArgs(kit.fn, 256)
    user.ptr(kit.out)
    result: list[Any] = []

    def worker() -> None:
        rc = lib.aclrtKernelArgsFinalize(user.handle)
        result.append((rc, last_error()))

    t = threading.Thread(target=worker)
    t.start()
    t.join(10)
    ((rc, msg),) = result
    assert rc == RT_CONTEXT_NULL and "context" in msg


# --------------------------------------------------------------------------- state machine (§10.5)

OPEN, DATA, FINAL, UPDATING = "OPEN", "DATA", "FINAL", "UPDATING"


def _build(k: Kit, state: str) -> tuple[KernelArgs, Any, Any]:
    a = KernelArgs(k.fn)  # re-initialises this thread's system-managed handle
    a.ptr(k.out)
    p_value = a.scalar("int64_t", 5)
    ph = a.placeholder()
    if state != OPEN:
        a.data(ph, struct.pack("<q", 7))
    if state in (FINAL, UPDATING):
        a.finalize()
    if state == UPDATING:
        a.update(p_value, "int64_t", 6)
    return a, p_value, ph


def _op(k: Kit, a: KernelArgs, p_value: Any, ph: Any, op: str) -> int:
    if op == "Append":
        return int(lib.aclrtKernelArgsAppend(a.handle, V8, 8, new_ph()))
    if op == "AppendPlaceHolder":
        return int(lib.aclrtKernelArgsAppendPlaceHolder(a.handle, new_ph()))
    if op == "GetPlaceHolderBuffer":
        return int(lib.aclrtKernelArgsGetPlaceHolderBuffer(a.handle, ph, 8, ffi.new("void **")))
    if op == "ParaUpdate":
        return int(lib.aclrtKernelArgsParaUpdate(a.handle, p_value, V8, 8))
    if op == "Finalize":
        return int(lib.aclrtKernelArgsFinalize(a.handle))
    assert op == "Launch"
    return launch_rc(k.fn, 1, k.stream, a)


def _state_after(k: Kit, state: str, op: str) -> str:
    """Which state `op` leaves a handle in, told apart by what it then accepts: Launch only in
    FINAL, Append only in OPEN, GetPlaceHolderBuffer in OPEN and DATA."""
    accepted = []
    for probe in ("Launch", "Append", "GetPlaceHolderBuffer"):
        a, p_value, ph = _build(k, state)
        _op(k, a, p_value, ph, op)
        accepted.append(_op(k, a, p_value, ph, probe) == SUCCESS)
        last_error()
    return {
        (False, True, True): OPEN,
        (False, False, True): DATA,
        (True, False, False): FINAL,
        (False, False, False): UPDATING,
    }[tuple(accepted)]


# (code, state afterwards) for each operation in each state: the table of §10.5.
STATE_TABLE = {
    OPEN: {
        "Append": (0, OPEN),
        "AppendPlaceHolder": (0, OPEN),
        "GetPlaceHolderBuffer": (0, DATA),
        "ParaUpdate": (0, OPEN),
        "Finalize": (0, FINAL),
        "Launch": (RT_PARAM_INVALID, OPEN),
    },
    DATA: {
        "Append": (RT_FEATURE_NOT_SUPPORT, DATA),
        "AppendPlaceHolder": (RT_FEATURE_NOT_SUPPORT, DATA),
        "GetPlaceHolderBuffer": (0, DATA),
        "ParaUpdate": (0, DATA),
        "Finalize": (0, FINAL),
        "Launch": (RT_PARAM_INVALID, DATA),
    },
    FINAL: {
        "Append": (RT_FEATURE_NOT_SUPPORT, FINAL),
        "AppendPlaceHolder": (RT_FEATURE_NOT_SUPPORT, FINAL),
        "GetPlaceHolderBuffer": (RT_FEATURE_NOT_SUPPORT, FINAL),
        "ParaUpdate": (0, UPDATING),
        "Finalize": (0, FINAL),
        "Launch": (0, FINAL),
    },
    UPDATING: {
        "Append": (RT_FEATURE_NOT_SUPPORT, UPDATING),
        "AppendPlaceHolder": (RT_FEATURE_NOT_SUPPORT, UPDATING),
        "GetPlaceHolderBuffer": (RT_FEATURE_NOT_SUPPORT, UPDATING),
        "ParaUpdate": (0, UPDATING),
        "Finalize": (0, FINAL),
        "Launch": (RT_PARAM_INVALID, UPDATING),
    },
}


@pytest.mark.parametrize("state", list(STATE_TABLE))
def test_state_machine(kit, state):
    for op, (code, after) in STATE_TABLE[state].items():
        a, p_value, ph = _build(kit, state)
        rc = _op(kit, a, p_value, ph, op)
        msg = last_error()
        assert rc == code, f"{op} in {state}: expected {code}, got {rc} ({msg})"
        assert (msg != "") == (code != 0), f"{op} in {state}: recent error message {msg!r}"
        got = _state_after(kit, state, op)
        assert got == after, f"{op} in {state}: the handle is now {got}, expected {after}"
    check(sync_rc(kit.stream))


def test_user_mem_handle_follows_the_same_state_machine(kit):
    a = KernelArgs(kit.fn, mem_size(kit.fn, 32))
    a.ptr(kit.out)
    p_value = a.scalar("int64_t", 5)
    ph = a.placeholder()
    expect(RT_PARAM_INVALID, launch_rc(kit.fn, 1, kit.stream, a))  # OPEN
    a.data(ph, struct.pack("<q", 70))  # DATA
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtKernelArgsAppendPlaceHolder(a.handle, new_ph()))
    a.finalize()  # FINAL
    check(launch_rc(kit.fn, 1, kit.stream, a))
    a.update(p_value, "int64_t", 50)  # UPDATING
    expect(RT_PARAM_INVALID, launch_rc(kit.fn, 1, kit.stream, a))
    expect(RT_FEATURE_NOT_SUPPORT, lib.aclrtKernelArgsGetPlaceHolderBuffer(a.handle, ph, 8, ffi.new("void **")))
    a.finalize()  # FINAL again
    check(launch_rc(kit.fn, 1, kit.stream, a))
    check(sync_rc(kit.stream))
    out = np.empty(2, np.int64)
    check(lib.aclrtMemcpy(ffi.from_buffer(out), 16, kit.out, 16, 2))
    assert out.tolist() == [50, 70]


# --------------------------------------------------------------------------- Init handle per thread


def test_init_returns_one_handle_per_thread(acl, test_kernels_path, args_kernels_path):
    """Every Init in a thread re-initialises and returns the same handle (even for another
    function); another thread has its own, and building args there does not disturb ours."""
    stamp = acl.function(args_kernels_path, "stamp")
    probe = acl.function(test_kernels_path, "probe")
    s = acl.stream()
    out_main, out_thread = acl.malloc(16), acl.malloc(16)

    a = KernelArgs(probe)
    b = KernelArgs(stamp)
    assert a.handle == b.handle
    b.ptr(out_main)
    b.scalar("int64_t", 11)
    ph = b.placeholder()

    seen: dict[str, Any] = {}

    def worker() -> None:
        try:
            check(lib.aclrtSetDevice(0))
            t1, t2 = KernelArgs(stamp), KernelArgs(stamp)
            seen["same_in_thread"] = t1.handle == t2.handle
            seen["handle"] = t2.handle
            t2.ptr(out_thread)
            t2.scalar("int64_t", 22)
            t2.data(t2.placeholder(), struct.pack("<q", 23))
            t2.finalize()
            check(launch_rc(stamp, 1, s, t2))
            check(sync_rc(s))
            check(lib.aclrtResetDevice(0))
        except BaseException as exc:  # reported by the main thread
            seen["error"] = exc

    t = threading.Thread(target=worker)
    t.start()
    t.join(30)
    assert "error" not in seen, seen.get("error")
    assert seen["same_in_thread"] and seen["handle"] != b.handle

    b.data(ph, struct.pack("<q", 12))  # our handle was untouched by the other thread's Init
    b.finalize()
    check(launch_rc(stamp, 1, s, b))
    acl.sync(s)
    assert acl.from_device(out_main, 2, np.int64).tolist() == [11, 12]
    assert acl.from_device(out_thread, 2, np.int64).tolist() == [22, 23]

    # The other thread is gone, and so is its handle. (Thread.join returns when the Python
    # thread is done; its thread-local destructors run a moment later, as the OS thread exits.)
    deadline = time.monotonic() + 5
    while lib.aclrtKernelArgsAppend(seen["handle"], V8, 8, new_ph()) != RT_INVALID_HANDLE:
        assert time.monotonic() < deadline, "the exited thread's args handle is still valid"
        time.sleep(0.01)
    assert "kernel-args handle" in last_error()


# --------------------------------------------------------------------------- stale and foreign handles


def _bogus_args_handles(acl, fn) -> dict[str, Any]:
    garbage = ffi.new("uint64_t[64]", [0x5347524153494D41] * 64)  # even the magic word does not help
    user = KernelArgs(fn, 256)
    size = handle_mem_size(fn)
    copy = ffi.new("uint64_t[]", (size + 7) // 8)
    ffi.memmove(copy, user.handle_mem, size)  # a byte copy of a live handle is not a handle
    return {
        "integer": vp(0x12345678),
        "garbage": garbage,
        "copy": copy,
        "stream": acl.stream(),
        "device memory": acl.malloc(4096),
        "high integer": vp(0xFFFF_FFFF_FFFF_F000),
        "_keep": (garbage, user, copy),
    }


def test_stale_or_foreign_args_handles(acl, kit):
    bogus = _bogus_args_handles(acl, kit.fn)
    keep = bogus.pop("_keep")
    out = ffi.new("void **")
    for name, h in bogus.items():
        h = ffi.cast("aclrtArgsHandle", h)
        calls = {
            "Append": lib.aclrtKernelArgsAppend(h, V8, 8, new_ph()),
            "AppendPlaceHolder": lib.aclrtKernelArgsAppendPlaceHolder(h, new_ph()),
            "GetPlaceHolderBuffer": lib.aclrtKernelArgsGetPlaceHolderBuffer(h, kit.ph, 8, out),
            "ParaUpdate": lib.aclrtKernelArgsParaUpdate(h, kit.p_value, V8, 8),
            "Finalize": lib.aclrtKernelArgsFinalize(h),
            "Launch": lib.aclrtLaunchKernelWithConfig(kit.fn, 1, kit.stream, NULL, h, NULL),
        }
        for call, rc in calls.items():
            assert rc == RT_INVALID_HANDLE, f"{call} with a {name} args handle returned {rc}"
        assert "kernel-args handle" in last_error()
    del keep
    # The live handle was never disturbed.
    kit.args.data(kit.ph, struct.pack("<q", 1))
    kit.args.finalize()
    check(launch_rc(kit.fn, 1, kit.stream, kit.args))
    check(sync_rc(kit.stream))


def test_stale_or_foreign_function_handles(acl, args_kernels_path):
    """A function handle of an unloaded binary, another kind of handle, or an integer: 107017
    from every call that takes one."""
    bin_out, fn_out = ffi.new("aclrtBinHandle *"), ffi.new("aclrtFuncHandle *")
    check(lib.aclrtBinaryLoadFromFile(str(args_kernels_path).encode(), NULL, bin_out))
    check(lib.aclrtBinaryGetFunction(bin_out[0], b"stamp", fn_out))
    fn, s = fn_out[0], acl.stream()
    out = acl.malloc(16)
    args = KernelArgs(fn, 256)
    args.ptr(out)
    args.scalar("int64_t", 1)
    args.data(args.placeholder(), bytes(8))
    args.finalize()
    dargs = acl.malloc(24)
    check(lib.aclrtLaunchKernelWithConfig(fn, 1, s, NULL, args.handle, NULL))
    check(lib.aclrtBinaryUnLoad(bin_out[0]))

    for name, f in {"unloaded": fn, "stream": s, "binary": bin_out[0], "integer": vp(0x4242)}.items():
        f = ffi.cast("aclrtFuncHandle", f)
        hm, buf = ffi.new("uint64_t[64]"), ffi.new("uint8_t[256]")
        calls = {
            "Init": lib.aclrtKernelArgsInit(f, ffi.new("aclrtArgsHandle *")),
            "InitByUserMem": lib.aclrtKernelArgsInitByUserMem(f, hm, buf, 256),
            "GetMemSize": lib.aclrtKernelArgsGetMemSize(f, 8, ffi.new("size_t *")),
            "GetHandleMemSize": lib.aclrtKernelArgsGetHandleMemSize(f, ffi.new("size_t *")),
            "LaunchKernelWithConfig": lib.aclrtLaunchKernelWithConfig(f, 1, s, NULL, args.handle, NULL),
            "LaunchKernel": lib.aclrtLaunchKernel(f, 1, dargs, 24, s),
        }
        for call, rc in calls.items():
            assert rc == RT_INVALID_HANDLE, f"{call} with a {name} function handle returned {rc}"
        assert "function" in last_error()
    # The launch made before the unload ran, unless the unload came first: then its code was
    # gone and it failed on its stream, as on the real runtime (never a crash).
    rc = lib.aclrtSynchronizeStream(s)
    assert rc in (0, 507015)
    assert acl.from_device(out, 1, np.int64).tolist() == ([1] if rc == 0 else [0])
