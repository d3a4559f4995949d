"""Helpers for the tests of the pyACL module (tests/acl; the fixtures are in tests/acl/conftest.py).

The tests are written the way a pyACL program is: ``acl.*`` calls, int handles, ``(value,
ret)`` tuples. Test modules import the helpers they use (``from pyacl_support import ...``);
tests/conftest.py registers this module for pytest's assertion rewriting.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from acl_codes import *  # noqa: F403 - the return codes, for the tests that import them from here
from acl_codes import SUCCESS

import aiocann.acl as acl

# Enum values a pyACL program spells as numbers.
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_HBM_MEM = 1
ACL_EVENT_SYNC = 0x1
ACL_EVENT_TIME_LINE = 0x8
ACL_CALLBACK_NO_BLOCK = 0
ACL_CALLBACK_BLOCK = 1
ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD = 1
ACL_RT_BINARY_LOAD_OPT_MAGIC = 2
ACL_RT_BINARY_MAGIC_ELF_AICORE = 0x43554245
ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE = 1

TILING = struct.Struct("<II")  # vector_add's AddTiling {uint32 total; uint32 reserved}


def ok(result: Any) -> Any:
    """Assert a facade call succeeded: a bare ret of 0, or a tuple whose last item is 0.
    Returns the outputs (the tuple without ret; a single output unwrapped)."""
    if isinstance(result, tuple):
        *values, ret = result
        assert ret == SUCCESS, f"ret={ret}: {acl.get_recent_err_msg()}"
        return values[0] if len(values) == 1 else tuple(values)
    assert result == SUCCESS, f"ret={result}: {acl.get_recent_err_msg()}"
    return None


def in_thread(fn: Callable[[], Any]) -> Any:
    """Run fn in a fresh thread (clean thread-local runtime state) and return its result."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 -- re-raised in the caller
            box["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join(30)
    assert not t.is_alive()
    if "error" in box:
        raise box["error"]
    return box["value"]


# ----------------------------------------------------------------------- device memory


def dev_alloc(nbytes: int) -> int:
    return ok(acl.rt.malloc(nbytes, ACL_MEM_MALLOC_HUGE_FIRST))


def to_device(arr: np.ndarray) -> int:
    ptr = dev_alloc(arr.nbytes)
    ok(acl.rt.memcpy(ptr, arr.nbytes, arr.ctypes.data, arr.nbytes, ACL_MEMCPY_HOST_TO_DEVICE))
    return ptr


def from_device(ptr: int, count: int, dtype: Any) -> np.ndarray:
    out = np.empty(count, dtype=dtype)
    ok(acl.rt.memcpy(out.ctypes.data, out.nbytes, ptr, out.nbytes, ACL_MEMCPY_DEVICE_TO_HOST))
    return out


# ----------------------------------------------------------------------- kernels and args


def load_function(path: Any, name: str) -> tuple[int, int]:
    """(bin_handle, func_handle) of kernel ``name`` in the binary at ``path``."""
    binary = ok(acl.rt.binary_load_from_file(str(path), []))
    return binary, ok(acl.rt.binary_get_function(binary, name))


def append_ptr(args: int, dev_ptr: int) -> int:
    """A pointer parameter: the address of a host variable holding the device pointer."""
    value = ctypes.c_uint64(dev_ptr)
    return ok(acl.rt.kernel_args_append(args, ctypes.addressof(value), 8))


def append_value(args: int, value: Any) -> int:
    """A scalar parameter: ``value`` is a ctypes instance, appended with its own size."""
    return ok(acl.rt.kernel_args_append(args, ctypes.addressof(value), ctypes.sizeof(value)))


def append_tiling(args: int, total: int) -> int:
    ph = ok(acl.rt.kernel_args_append_place_holder(args))
    buf = ok(acl.rt.kernel_args_get_place_holder_buffer(args, ph, TILING.size))
    ctypes.memmove(buf, TILING.pack(total, 0), TILING.size)
    return ph


def vector_add_args(func: int, x: int, y: int, z: int, total: int) -> tuple[int, int]:
    """A finalized system-managed args handle for add_custom; returns (args, z's param handle)."""
    args = ok(acl.rt.kernel_args_init(func))
    append_ptr(args, x)
    append_ptr(args, y)
    z_param = append_ptr(args, z)
    append_tiling(args, total)
    ok(acl.rt.kernel_args_finalize(args))
    return args, z_param


def wait_us_args(func: int, out: int, usec: int) -> int:
    """A finalized args handle for test_kernels' wait_us(out, usec)."""
    args = ok(acl.rt.kernel_args_init(func))
    append_ptr(args, out)
    append_value(args, ctypes.c_uint64(usec))
    ok(acl.rt.kernel_args_finalize(args))
    return args
