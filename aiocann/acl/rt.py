"""``acl.rt``: pyACL's runtime functions -- devices, contexts, streams, memory, events, host
callbacks, binaries, kernel arguments and launches.

Where it sits: the synchronous, pyACL-compatible face of the ACL runtime. Every function is a
thin wrapper over one ACL C call made through :mod:`aiocann._lib` (the simulator, or a real
CANN runtime loaded into the same function table), with pyACL's name, argument forms and
returns (reference §13; python/pyACL/rt/*.cpp):

* handles and addresses are ``int`` (``0`` is NULL; stream ``0`` is the default stream);
* a call with outputs returns a tuple with the ACL return code last, ``(value, ret)``; a call
  without outputs returns the bare ``ret``;
* runtime failures are return codes, never exceptions; only arguments that pyACL itself could
  not parse raise, with pyACL's exception and text (see :mod:`aiocann.acl._convert`).

Where pyACL's C wrapper returns something odd, this module returns the same: a value pyACL
formats with a narrower type than the C one is narrowed the same way (``get_device_info``'s
int64 value goes out through ``"i"``, its low 32 bits), a struct comes back as the dict pyACL
builds. Each such case is marked below.

The wrappers of the two common shapes (arguments in and the bare ``ret`` out; or one output
and ``(value, ret)``), and ``__all__``, are generated from the description of the ACL
functions, native/acl_functions.py, by native/gen_acl.py: they sit between ``BEGIN
GENERATED`` and ``END GENERATED`` markers, one block per section; edit the description, not
them. Every other line is written here.

pyACL functions aiocann does not provide (hardware the simulator does not model: notifies,
resource limits, ...) are still attributes:
calling one raises NotImplementedError naming it (``__getattr__`` at the end), never an
AttributeError deep inside a program.

The GIL: the binding is a cffi API-mode extension, whose generated wrappers release the GIL
around every C call. So synchronize, process_report and every other blocking call lets other
Python threads run -- in particular the thread that has to run a host callback while another
thread waits in ``synchronize_stream`` for the stream that callback holds. Callbacks coming
from the runtime (launch_callback's, set_exception_info_callback's) take the GIL back, as
pyACL's C callbacks do with PyGILState_Ensure.
"""

from __future__ import annotations

import itertools
import logging
import operator
import threading
import types
from collections.abc import Callable
from typing import Any

from .._lib import ffi as _ffi
from .._lib import forget_context as _forget_context
from .._lib import lib as _lib

# Private names: acl.rt exposes what pyACL's acl.rt has, and no helper of ours.
from ._convert import addr as _addr
from ._convert import cstr as _cstr
from ._convert import pyacl as _pyacl
from ._convert import vptr as _vptr
from ._live import LiveAddresses as _LiveAddresses
from ._unsupported import not_implemented as _not_implemented

# BEGIN GENERATED "__all__": written by native/gen_acl.py from native/acl_functions.py
__all__ = [
    "allocator_create_desc",
    "allocator_destroy_desc",
    "allocator_register",
    "allocator_set_alloc_advise_func_to_desc",
    "allocator_set_alloc_func_to_desc",
    "allocator_set_free_func_to_desc",
    "allocator_set_get_addr_from_block_func_to_desc",
    "allocator_set_obj_to_desc",
    "allocator_unregister",
    "binary_get_function",
    "binary_load",
    "binary_load_from_data",
    "binary_load_from_file",
    "binary_unload",
    "cmo_async",
    "create_binary",
    "create_context",
    "create_event",
    "create_event_ex_with_flag",
    "create_event_with_flag",
    "create_group_info",
    "create_notify",
    "create_stream",
    "create_stream_with_config",
    "ctx_get_current_default_stream",
    "ctx_get_sys_param_opt",
    "ctx_set_sys_param_opt",
    "destroy_binary",
    "destroy_context",
    "destroy_event",
    "destroy_group_info",
    "destroy_notify",
    "destroy_stream",
    "destroy_stream_force",
    "device_can_access_peer",
    "device_disable_peer_access",
    "device_enable_peer_access",
    "device_get_bare_tgid",
    "device_get_stream_priority_range",
    "device_get_uuid",
    "device_peer_access_status",
    "device_task_abort",
    "event_elapsed_time",
    "event_get_timestamp",
    "free",
    "free_host",
    "free_physical",
    "get_all_group_info",
    "get_context",
    "get_device",
    "get_device_capability",
    "get_device_count",
    "get_device_id_from_exception_info",
    "get_device_info",
    "get_device_res_limit",
    "get_device_sat_mode",
    "get_device_utilization_rate",
    "get_devices_topo",
    "get_error_code_from_exception_info",
    "get_event_avail_num",
    "get_event_id",
    "get_function_addr",
    "get_function_name",
    "get_group_count",
    "get_group_info_detail",
    "get_last_error",
    "get_logic_dev_id_by_phy_dev_id",
    "get_logic_dev_id_by_user_dev_id",
    "get_mem_info",
    "get_mem_uce_info",
    "get_memcpy_desc_size",
    "get_notify_id",
    "get_op_execute_timeout",
    "get_op_timeout_interval",
    "get_overflow_status",
    "get_phy_dev_id_by_logic_dev_id",
    "get_primary_ctx_state",
    "get_res_in_current_thread",
    "get_run_mode",
    "get_stream_attribute",
    "get_stream_available_num",
    "get_stream_id_from_exception_info",
    "get_stream_overflow_switch",
    "get_stream_res_limit",
    "get_sys_param_opt",
    "get_task_id_from_exception_info",
    "get_thread_id_from_exception_info",
    "get_thread_last_task_id",
    "get_user_dev_id_by_logic_dev_id",
    "host_get_device_pointer",
    "host_register",
    "host_register_v2",
    "host_unregister",
    "ipc_mem_close",
    "ipc_mem_get_export_key",
    "ipc_mem_import_by_key",
    "ipc_mem_set_import_pid",
    "kernel_args_append",
    "kernel_args_append_place_holder",
    "kernel_args_finalize",
    "kernel_args_get_handle_mem_size",
    "kernel_args_get_mem_size",
    "kernel_args_get_place_holder_buffer",
    "kernel_args_init",
    "kernel_args_init_by_user_mem",
    "kernel_args_para_update",
    "launch_callback",
    "launch_kernel",
    "launch_kernel_with_config",
    "malloc",
    "malloc_align32",
    "malloc_cached",
    "malloc_for_task_scheduler",
    "malloc_host",
    "malloc_host_with_cfg",
    "malloc_physical",
    "malloc_with_cfg",
    "map_mem",
    "mem_export_to_shareable_handle",
    "mem_flush",
    "mem_get_allocation_granularity",
    "mem_import_from_shareable_handle",
    "mem_invalidate",
    "mem_set_pid_to_shareable_handle",
    "mem_uce_repair",
    "memcpy",
    "memcpy2d",
    "memcpy2d_async",
    "memcpy_async",
    "memcpy_async_with_condition",
    "memcpy_async_with_desc",
    "memset",
    "memset_async",
    "notify_batch_reset",
    "notify_get_export_key",
    "notify_import_by_key",
    "notify_set_import_pid",
    "peek_at_last_error",
    "pointer_get_attributes",
    "process_report",
    "query_device_status",
    "query_event",
    "query_event_status",
    "query_event_wait_status",
    "record_event",
    "record_notify",
    "reduce_async",
    "register_cpu_func",
    "release_mem_address",
    "reserve_mem_address",
    "reset_device",
    "reset_device_force",
    "reset_device_res_limit",
    "reset_event",
    "reset_overflow_status",
    "reset_stream_res_limit",
    "set_context",
    "set_device",
    "set_device_res_limit",
    "set_device_sat_mode",
    "set_exception_info_callback",
    "set_group",
    "set_memcpy_desc",
    "set_op_execute_time_out",
    "set_op_execute_timeout_v2",
    "set_op_wait_timeout",
    "set_stream_attribute",
    "set_stream_failure_mode",
    "set_stream_overflow_switch",
    "set_stream_res_limit",
    "set_sys_param_opt",
    "set_ts_device",
    "stream_abort",
    "stream_get_id",
    "stream_query",
    "stream_wait_event",
    "subscribe_report",
    "synchronize_device",
    "synchronize_device_with_timeout",
    "synchronize_event",
    "synchronize_event_with_timeout",
    "synchronize_stream",
    "synchronize_stream_with_timeout",
    "unmap_mem",
    "unsubscribe_report",
    "unuse_stream_res_in_current_thread",
    "use_stream_res_in_current_thread",
    "value_wait",
    "value_write",
    "wait_and_reset_notify",
]
# END GENERATED "__all__"

_log = logging.getLogger("aiocann.acl")


def _rt(name: str, fmt: str | None, message: object = None, *, suffix: str = "") -> Any:
    """@pyacl for ``acl.rt.<name>``. The usual message is "acl.rt.<name> args parse failed",
    some wrappers add ``suffix`` ("!"); ``message`` overrides the whole text."""
    api = f"acl.rt.{name}"
    text = message if message is not None else f"{api} args parse failed{suffix}"
    return _pyacl(api, fmt, text)


def _rt_native(name: str, fmt: str) -> Any:
    """A wrapper whose CHECK_NULL carries no message: CPython's parser error shows."""
    return _pyacl(f"acl.rt.{name}", fmt, None)


def _out(ctype: str) -> Any:
    return _ffi.new(ctype)


# pyACL formats some outputs narrower than their C type (Py_BuildValue reads a vararg of the
# wrong width); these reproduce what a program then sees on an LP64 little-endian host.


def _as_i32(v: int) -> int:
    """An integer passed to Py_BuildValue("i"): its low 32 bits, signed."""
    v &= 0xFFFF_FFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _as_u32(v: int) -> int:
    """An integer passed to Py_BuildValue("I"): its low 32 bits."""
    return v & 0xFFFF_FFFF


# pyACL parses an enum or uint32_t argument with "i" into the parameter's 4 bytes, so -1
# reaches C as 0xFFFFFFFF (and the runtime refuses it with its own code); the cffi binding
# takes an unsigned enum as unsigned and would raise OverflowError for a negative int. The
# generator passes such arguments through _u32 (gen_acl.default_conv), as do the wrappers
# written by hand.
_u32 = _as_u32


# pyACL reads the fields of option, cfg and attribute dicts with GetValueFromPyDict
# (python/pyACL/utils_methods.cpp): a missing key or a value that is not an int leaves the
# field as it was (0); an int out of range raises ValueError with the conversion's name.


def _dict_int(entry: dict[Any, Any], key: str, *, signed: bool, bits: int = 32) -> int | None:
    """The int (``signed``: PyLong_AsLong) or unsigned (PyLong_AsUnsignedLong) field, cast to
    ``bits``; None when the key is missing or not an integer."""
    value: Any = entry.get(key)
    try:
        v = operator.index(value)
    except TypeError:
        return None
    mask = (1 << bits) - 1
    if signed:
        if not -(1 << 63) <= v < (1 << 63):
            raise ValueError("PyLong_AsLong failed")
        v &= mask  # static_cast<int>: the low bits
        return v - (1 << bits) if v >= 1 << (bits - 1) else v
    if not 0 <= v < (1 << 64):
        raise ValueError("PyLong_AsUnsignedLongLong failed" if bits == 64 else "PyLong_AsUnsignedLong failed")
    return v & mask


def _dict_u32_list(entry: dict[Any, Any], key: str, size: int, *, bits: int = 32) -> list[int] | None:
    """GetValueFromPyDict(unsigned int*, size) (``bits`` 64: unsigned long*): a list of at most
    ``size`` ints, read up to the first item that is not an int; None when the key is missing
    or not a list."""
    value: Any = entry.get(key)
    if not isinstance(value, list):
        return None
    if len(value) > size:
        raise ValueError(f"The length of {key} should be no greater than {size}")
    out = []
    for item in value:
        try:
            v = operator.index(item)
        except TypeError:
            break
        if not 0 <= v < (1 << 64):
            raise ValueError("PyLong_AsUnsignedLong failed")
        out.append(v & ((1 << bits) - 1))
    return out


# pyACL functions that take no arguments declare METH_VARARGS but never look at them: they
# accept and ignore any positional arguments, and so do these (fmt None).

# ----------------------------------------------------------------------- device and context
#
# Calls that change the thread's current context call _forget_context() first: the async layer
# caches the context it bound per thread, and may run on this thread too.

# BEGIN GENERATED "device and context": written by native/gen_acl.py from native/acl_functions.py


@_rt("set_device", "i")
def set_device(device_id: int, /) -> int:
    _forget_context()
    return int(_lib.aclrtSetDevice(device_id))


@_rt("reset_device", "i")
def reset_device(device_id: int, /) -> int:
    _forget_context()
    return int(_lib.aclrtResetDevice(device_id))


@_rt("reset_device_force", "i")
def reset_device_force(device_id: int, /) -> int:
    _forget_context()
    return int(_lib.aclrtResetDeviceForce(device_id))


@_rt("get_device", None)
def get_device() -> tuple[int, int]:
    out = _out("int32_t *")
    ret = _lib.aclrtGetDevice(out)
    return int(out[0]), int(ret)


@_rt("get_device_count", None)
def get_device_count() -> tuple[int, int]:
    out = _out("uint32_t *")
    ret = _lib.aclrtGetDeviceCount(out)
    return int(out[0]), int(ret)


@_rt("synchronize_device", None)
def synchronize_device() -> int:
    return int(_lib.aclrtSynchronizeDevice())


@_rt("create_context", "i")
def create_context(device_id: int, /) -> tuple[int, int]:
    _forget_context()
    out = _out("aclrtContext *")
    ret = _lib.aclrtCreateContext(out, device_id)
    return _addr(out[0]), int(ret)


@_rt("destroy_context", "k")
def destroy_context(context: int, /) -> int:
    _forget_context()
    return int(_lib.aclrtDestroyContext(_vptr(context)))


@_rt("set_context", "k")
def set_context(context: int, /) -> int:
    """aclrtSetCurrentContext."""
    _forget_context()
    return int(_lib.aclrtSetCurrentContext(_vptr(context)))


@_rt("get_context", None)
def get_context() -> tuple[int, int]:
    """aclrtGetCurrentContext."""
    out = _out("aclrtContext *")
    ret = _lib.aclrtGetCurrentContext(out)
    return _addr(out[0]), int(ret)


@_rt("get_run_mode", None)
def get_run_mode() -> tuple[int, int]:
    """``(run_mode, ret)``: 1 (ACL_HOST) -- a program on the host driving devices; 0 is
    ACL_DEVICE, a program on the device's own CPUs."""
    out = _out("aclrtRunMode *")
    out[0] = _lib.ACL_DEVICE
    ret = _lib.aclrtGetRunMode(out)
    return int(out[0]), int(ret)


@_rt("set_ts_device", "i")
def set_ts_device(ts_id: int, /) -> int:
    return int(_lib.aclrtSetTsDevice(_u32(ts_id)))


@_rt("set_device_sat_mode", "i")
def set_device_sat_mode(mode: int, /) -> int:
    return int(_lib.aclrtSetDeviceSatMode(_u32(mode)))


@_rt("get_device_sat_mode", None)
def get_device_sat_mode() -> tuple[int, int]:
    out = _out("aclrtFloatOverflowMode *")
    ret = _lib.aclrtGetDeviceSatMode(out)
    return int(out[0]), int(ret)


@_rt("query_device_status", "i")
def query_device_status(device_id: int, /) -> tuple[int, int]:
    """``(status, ret)``: 0 normal, 1 abnormal."""
    out = _out("aclrtDeviceStatus *")
    out[0] = _lib.ACL_RT_DEVICE_STATUS_END
    ret = _lib.aclrtQueryDeviceStatus(device_id, out)
    return _as_u32(out[0]), int(ret)


@_rt("synchronize_device_with_timeout", "i", suffix="!")
def synchronize_device_with_timeout(timeout: int, /) -> int:
    """Waits up to ``timeout`` ms (-1: forever) for every stream of the current device;
    507046 when time runs out."""
    return int(_lib.aclrtSynchronizeDeviceWithTimeout(timeout))


@_rt("get_device_capability", "iI")
def get_device_capability(device_id: int, feature: int, /) -> tuple[int, int]:
    out = _out("int32_t *")
    ret = _lib.aclrtGetDeviceCapability(device_id, _as_i32(feature), out)
    return int(out[0]), int(ret)


@_rt("get_logic_dev_id_by_user_dev_id", "i")
def get_logic_dev_id_by_user_dev_id(device_id: int, /) -> tuple[int, int]:
    out = _out("int32_t *")
    ret = _lib.aclrtGetLogicDevIdByUserDevId(device_id, out)
    return int(out[0]), int(ret)


@_rt("get_user_dev_id_by_logic_dev_id", "i")
def get_user_dev_id_by_logic_dev_id(device_id: int, /) -> tuple[int, int]:
    out = _out("int32_t *")
    ret = _lib.aclrtGetUserDevIdByLogicDevId(device_id, out)
    return int(out[0]), int(ret)


@_rt("get_logic_dev_id_by_phy_dev_id", "i")
def get_logic_dev_id_by_phy_dev_id(device_id: int, /) -> tuple[int, int]:
    out = _out("int32_t *")
    ret = _lib.aclrtGetLogicDevIdByPhyDevId(device_id, out)
    return int(out[0]), int(ret)


@_rt("get_phy_dev_id_by_logic_dev_id", "i")
def get_phy_dev_id_by_logic_dev_id(device_id: int, /) -> tuple[int, int]:
    out = _out("int32_t *")
    ret = _lib.aclrtGetPhyDevIdByLogicDevId(device_id, out)
    return int(out[0]), int(ret)


@_rt("device_get_bare_tgid", None)
def device_get_bare_tgid() -> tuple[int, int]:
    out = _out("int32_t *")
    ret = _lib.aclrtDeviceGetBareTgid(out)
    return int(out[0]), int(ret)


@_rt("device_can_access_peer", "ii")
def device_can_access_peer(device_id: int, peer_device_id: int, /) -> tuple[int, int]:
    out = _out("int32_t *")
    ret = _lib.aclrtDeviceCanAccessPeer(out, device_id, peer_device_id)
    return int(out[0]), int(ret)


@_rt("device_enable_peer_access", "iI")
def device_enable_peer_access(peer_device_id: int, flags: int, /) -> int:
    return int(_lib.aclrtDeviceEnablePeerAccess(peer_device_id, flags))


@_rt("device_disable_peer_access", "i")
def device_disable_peer_access(peer_device_id: int, /) -> int:
    return int(_lib.aclrtDeviceDisablePeerAccess(peer_device_id))


@_rt("device_peer_access_status", "ii")
def device_peer_access_status(device_id: int, peer_device_id: int, /) -> tuple[int, int]:
    out = _out("int32_t *")
    ret = _lib.aclrtDevicePeerAccessStatus(device_id, peer_device_id, out)
    return int(out[0]), int(ret)


@_rt("ctx_get_current_default_stream", None)
def ctx_get_current_default_stream() -> tuple[int, int]:
    """``(stream, ret)``: the current context's default stream, as a handle."""
    out = _out("aclrtStream *")
    ret = _lib.aclrtCtxGetCurrentDefaultStream(out)
    return _addr(out[0]), int(ret)


@_rt("ctx_set_sys_param_opt", "il")
def ctx_set_sys_param_opt(opt: int, value: int, /) -> int:
    return int(_lib.aclrtCtxSetSysParamOpt(_u32(opt), value))


@_rt("ctx_get_sys_param_opt", "i")
def ctx_get_sys_param_opt(opt: int, /) -> tuple[int, int]:
    out = _out("int64_t *")
    ret = _lib.aclrtCtxGetSysParamOpt(_u32(opt), out)
    return int(out[0]), int(ret)


@_rt("set_sys_param_opt", "il", "acl.rt.set_sys_param_opt args parse faild")  # sic, pyACL's text
def set_sys_param_opt(opt: int, value: int, /) -> int:
    return int(_lib.aclrtSetSysParamOpt(_u32(opt), value))


@_rt("get_sys_param_opt", "i", "acl.rt.get_sys_param_opt args parse faild")  # sic
def get_sys_param_opt(opt: int, /) -> tuple[int, int]:
    out = _out("int64_t *")
    ret = _lib.aclrtGetSysParamOpt(_u32(opt), out)
    return int(out[0]), int(ret)


# END GENERATED "device and context"


@_rt("get_device_utilization_rate", "i")
def get_device_utilization_rate(device_id: int, /) -> tuple[dict[str, int], int]:
    """``({"cube_utilization", "vector_utilization", "aicpu_utilization",
    "memory_utilization", "utilization_extend"}, ret)``: percentages, -1 where unknown."""
    info = _out("aclrtUtilizationInfo *")
    ret = _lib.aclrtGetDeviceUtilizationRate(device_id, info)
    rates = {
        "cube_utilization": int(info.cubeUtilization),
        "vector_utilization": int(info.vectorUtilization),
        "aicpu_utilization": int(info.aicpuUtilization),
        "memory_utilization": int(info.memoryUtilization),
        "utilization_extend": _addr(info.utilizationExtend),
    }
    return rates, _as_u32(ret)  # pyACL: "OI"


@_rt("get_device_info", "II")
def get_device_info(device_id: int, attr: int, /) -> tuple[int, int]:
    """``(value, ret)`` of an aclrtDevAttr. As in pyACL, the int64 value comes back through
    ``"i"``: its low 32 bits (a 4 GiB memory size reads 0)."""
    out = _out("int64_t *")
    ret = _lib.aclrtGetDeviceInfo(device_id, attr, out)
    return _as_i32(int(out[0])), int(ret)


@_rt("device_get_stream_priority_range", None)
def device_get_stream_priority_range() -> tuple[int, int, int]:
    """``(least_priority, greatest_priority, ret)``."""
    least, greatest = _out("int32_t *"), _out("int32_t *")
    ret = _lib.aclrtDeviceGetStreamPriorityRange(least, greatest)
    return int(least[0]), int(greatest[0]), int(ret)


@_rt("device_get_uuid", "i")
def device_get_uuid(device_id: int, /) -> tuple[dict[str, list[int]], int]:
    """``({"bytes": [16 ints]}, ret)``. pyACL converts each ``char`` with ``"i"``, so bytes
    above 127 come back negative, as here."""
    uuid = _out("aclrtUuid *")
    ret = _lib.aclrtDeviceGetUuid(device_id, uuid)
    raw = bytes(_ffi.buffer(uuid.bytes, 16))
    return {"bytes": [b - 256 if b > 127 else b for b in raw]}, int(ret)


@_rt("get_primary_ctx_state", "i")
def get_primary_ctx_state(device_id: int, /) -> tuple[int, int, int]:
    """``(active, flags, ret)``. pyACL passes NULL for the reserved flags, so flags is 0."""
    active = _out("int32_t *")
    ret = _lib.aclrtGetPrimaryCtxState(device_id, _ffi.NULL, active)
    return int(active[0]), 0, int(ret)


# ----------------------------------------------------------------------- streams

# BEGIN GENERATED "streams": written by native/gen_acl.py from native/acl_functions.py


@_rt("create_stream", None)
def create_stream() -> tuple[int, int]:
    out = _out("aclrtStream *")
    ret = _lib.aclrtCreateStream(out)
    return _addr(out[0]), int(ret)


@_rt("destroy_stream", "k")
def destroy_stream(stream: int, /) -> int:
    return int(_lib.aclrtDestroyStream(_vptr(stream)))


@_rt("synchronize_stream", "k")
def synchronize_stream(stream: int, /) -> int:
    return int(_lib.aclrtSynchronizeStream(_vptr(stream)))


@_rt("synchronize_stream_with_timeout", "ki")
def synchronize_stream_with_timeout(stream: int, timeout: int, /) -> int:
    return int(_lib.aclrtSynchronizeStreamWithTimeout(_vptr(stream), timeout))


@_rt("stream_query", "k", suffix="!")
def stream_query(stream: int, /) -> tuple[int, int]:
    out = _out("aclrtStreamStatus *")
    out[0] = _lib.ACL_STREAM_STATUS_RESERVED
    ret = _lib.aclrtStreamQuery(_vptr(stream), out)
    return _as_u32(out[0]), int(ret)


@_rt("stream_wait_event", "kk")
def stream_wait_event(stream: int, event: int, /) -> int:
    return int(_lib.aclrtStreamWaitEvent(_vptr(stream), _vptr(event)))


@_rt("set_stream_failure_mode", "kI", suffix="!")
def set_stream_failure_mode(stream: int, mode: int, /) -> int:
    """aclrtSetStreamFailureMode: 0 ACL_CONTINUE_ON_FAILURE, 1 ACL_STOP_ON_FAILURE (only bit 0
    counts). Stop is set on the stream and makes its whole context stop on failure; stop ->
    continue is 207000. pyACL parses ``mode`` with "I" (modulo 2**32)."""
    return int(_lib.aclrtSetStreamFailureMode(_vptr(stream), mode))


@_rt("get_thread_last_task_id", None)
def get_thread_last_task_id() -> tuple[int, int]:
    """``(task_id, ret)``: the id of the last task the calling thread submitted, on any stream
    (0xFFFFFFFF before its first); the task id an exception report names. pyACL builds it with
    "K" from a uint32, so it is never negative."""
    out = _out("uint32_t *")
    ret = _lib.aclrtGetThreadLastTaskId(out)
    return int(out[0]), int(ret)


@_rt("stream_get_id", "k")
def stream_get_id(stream: int, /) -> tuple[int, int]:
    """``(stream_id, ret)``: the per-device id exception reports carry (stream 0: the default
    stream)."""
    out = _out("int32_t *")
    ret = _lib.aclrtStreamGetId(_vptr(stream), out)
    return int(out[0]), int(ret)


@_rt("destroy_stream_force", "k")
def destroy_stream_force(stream: int, /) -> int:
    """Destroys the stream without waiting for its pending tasks, which are discarded."""
    return int(_lib.aclrtDestroyStreamForce(_vptr(stream)))


@_rt("get_stream_available_num", None)
def get_stream_available_num() -> tuple[int, int]:
    out = _out("uint32_t *")
    ret = _lib.aclrtGetStreamAvailableNum(out)
    return int(out[0]), int(ret)


# END GENERATED "streams"


@_rt("create_stream_with_config", "ii")
def create_stream_with_config(priority: int, flag: int, /) -> tuple[int, int]:
    # pyACL parses both with "i" (int32) and passes them on as uint32_t.
    out = _out("aclrtStream *")
    ret = _lib.aclrtCreateStreamWithConfig(out, priority & 0xFFFF_FFFF, flag & 0xFFFF_FFFF)
    return _addr(out[0]), int(ret)


# Attribute values travel as dicts keyed by the union member pyACL reads for the attribute:
# failure mode "failureMode", overflow check "overflowSwitch", user tag "userCustomTag", and
# for every other attribute (cache-op info, priority) the raw "reserved" words, whose first
# one overlays the value (rt_stream.cpp GetStreamAttrValueFromPyUnion).
_ATTR_KEYS = {1: "failureMode", 2: "overflowSwitch", 3: "userCustomTag"}


@_rt("set_stream_attribute", "kiO", suffix="!")
def set_stream_attribute(stream: int, attr: int, value: object, /) -> int:
    if not isinstance(value, dict):
        raise TypeError("the aclrtStreamAttrValue argument is not dict")
    c = _out("aclrtStreamAttrValue *")
    key = _ATTR_KEYS.get(attr)
    if key == "failureMode":
        v = _dict_int(value, key, signed=False, bits=64)
        if v is not None:
            c.failureMode = v
    elif key is not None:
        v = _dict_int(value, key, signed=False)
        if v is not None:
            setattr(c, key, v)
    else:
        words = _dict_u32_list(value, "reserved", 4)
        for i, w in enumerate(words or ()):
            c.reserve[i] = w
    return int(_lib.aclrtSetStreamAttribute(_vptr(stream), _u32(attr), c))


@_rt("get_stream_attribute", "ki", suffix="!")
def get_stream_attribute(stream: int, attr: int, /) -> tuple[dict[str, Any], int]:
    """``({member: value}, ret)``, keyed as set_stream_attribute takes it."""
    c = _out("aclrtStreamAttrValue *")
    ret = _lib.aclrtGetStreamAttribute(_vptr(stream), _u32(attr), c)
    key = _ATTR_KEYS.get(attr)
    value: dict[str, Any] = (
        {key: int(getattr(c, key))} if key is not None else {"reserved": [int(w) for w in c.reserve]}
    )
    return value, int(ret)


# ----------------------------------------------------------------------- memory

# BEGIN GENERATED "memory": written by native/gen_acl.py from native/acl_functions.py


@_rt("malloc", "ki")
def malloc(size: int, policy: int, /) -> tuple[int, int]:
    out = _out("void **")
    ret = _lib.aclrtMalloc(out, size, _u32(policy))
    return _addr(out[0]), int(ret)


@_rt("free", "k")
def free(dev_ptr: int, /) -> int:
    return int(_lib.aclrtFree(_vptr(dev_ptr)))


@_rt("malloc_host", "k")
def malloc_host(size: int, /) -> tuple[int, int]:
    out = _out("void **")
    ret = _lib.aclrtMallocHost(out, size)
    return _addr(out[0]), int(ret)


@_rt("free_host", "k")
def free_host(host_ptr: int, /) -> int:
    return int(_lib.aclrtFreeHost(_vptr(host_ptr)))


@_rt("memcpy", "kkkki")
def memcpy(dst: int, dest_max: int, src: int, count: int, kind: int, /) -> int:
    return int(_lib.aclrtMemcpy(_vptr(dst), dest_max, _vptr(src), count, _u32(kind)))


@_rt("memcpy_async", "kkkkik")
def memcpy_async(dst: int, dest_max: int, src: int, count: int, kind: int, stream: int, /) -> int:
    return int(_lib.aclrtMemcpyAsync(_vptr(dst), dest_max, _vptr(src), count, _u32(kind), _vptr(stream)))


@_rt("memset", "kkik")
def memset(dev_ptr: int, max_count: int, value: int, count: int, /) -> int:
    return int(_lib.aclrtMemset(_vptr(dev_ptr), max_count, value, count))


@_rt("memset_async", "kkikk")
def memset_async(dev_ptr: int, max_count: int, value: int, count: int, stream: int, /) -> int:
    return int(_lib.aclrtMemsetAsync(_vptr(dev_ptr), max_count, value, count, _vptr(stream)))


@_rt("malloc_align32", "ki")
def malloc_align32(size: int, policy: int, /) -> tuple[int, int]:
    """Device memory with the size rounded up to 32 bytes and no extra padding."""
    out = _out("void **")
    ret = _lib.aclrtMallocAlign32(out, size, _u32(policy))
    return _addr(out[0]), int(ret)


@_rt("malloc_cached", "ki")
def malloc_cached(size: int, policy: int, /) -> tuple[int, int]:
    out = _out("void **")
    ret = _lib.aclrtMallocCached(out, size, _u32(policy))
    return _addr(out[0]), int(ret)


@_rt("mem_flush", "kk")
def mem_flush(dev_ptr: int, size: int, /) -> int:
    return int(_lib.aclrtMemFlush(_vptr(dev_ptr), size))


@_rt("mem_invalidate", "kk")
def mem_invalidate(dev_ptr: int, size: int, /) -> int:
    return int(_lib.aclrtMemInvalidate(_vptr(dev_ptr), size))


@_rt("memcpy2d", "kkkkkki")
def memcpy2d(dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int, /) -> int:
    """``height`` rows of ``width`` bytes, ``spitch`` apart in src and ``dpitch`` in dst."""
    return int(_lib.aclrtMemcpy2d(_vptr(dst), dpitch, _vptr(src), spitch, width, height, _u32(kind)))


@_rt("memcpy2d_async", "kkkkkkik")
def memcpy2d_async(
    dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int, stream: int, /
) -> int:
    return int(
        _lib.aclrtMemcpy2dAsync(_vptr(dst), dpitch, _vptr(src), spitch, width, height, _u32(kind), _vptr(stream))
    )


# END GENERATED "memory"


def _malloc_cfg(cfg: object) -> tuple[Any, Any]:
    """pyACL's malloc cfg dict -> (aclrtMallocConfig* or NULL, what must stay alive).

    ``{}`` passes NULL; otherwise ``{"numAttrs": n, "attrs": [{"attr": t, "value": {...}}]}``
    where the value dict holds one of "moduleId", "deviceId" or "rsv" (rt_memory.cpp
    GetMallocConfigFromPydict), with pyACL's errors for each malformed part.
    """
    if not isinstance(cfg, dict):
        raise TypeError("pyCfg is not dict!")
    if not cfg:
        return _ffi.NULL, None
    attrs_obj: Any = cfg.get("attrs")
    if attrs_obj is None:
        raise TypeError("the aclrtMallocAttrValue argument is not dict")
    if not isinstance(attrs_obj, list):
        raise TypeError("cfg.attrs malloc failed!")  # PyList_Size failed, so did calloc
    c = _out("aclrtMallocConfig *")
    num = _dict_int(cfg, "numAttrs", signed=False, bits=64)
    c.numAttrs = num or 0
    if len(attrs_obj) != c.numAttrs:
        raise KeyError("The numAttrs inputed does not match the expected numAttrs")
    attrs = _ffi.new("aclrtMallocAttribute[]", max(len(attrs_obj), 1))
    for i, item in enumerate(attrs_obj):
        if not isinstance(item, dict):
            raise TypeError("the aclrtMallocWithCfg argument is not dict")
        kind = _dict_int(item, "attr", signed=True)
        if kind is not None:
            attrs[i].attr = kind
        value: Any = item.get("value")
        if value is None:
            continue
        if not isinstance(value, dict):
            raise TypeError("the aclrtMallocAttrValue argument is not dict")
        if "moduleId" in value:
            attrs[i].value.moduleId = _py_ulong(value["moduleId"]) & 0xFFFF
        elif "deviceId" in value:
            attrs[i].value.deviceId = _py_ulong(value["deviceId"]) & 0xFFFF_FFFF
        elif "rsv" in value:
            for j, b in enumerate(list(value["rsv"])[:8]):
                attrs[i].value.rsv[j] = _py_ulong(b) & 0xFF
        else:
            raise KeyError("No valid key found in aclrtMallocAttrValue")
    c.attrs = attrs
    return c, attrs


def _py_ulong(value: object) -> int:
    """PyLong_AsUnsignedLong as pyACL uses it on a dict value: ValueError on failure."""
    try:
        v = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError("PyLong_AsUnsignedLong failed") from None
    if not 0 <= v < (1 << 64):
        raise ValueError("PyLong_AsUnsignedLong failed")
    return v


@_rt("malloc_with_cfg", "kiO", suffix="!")
def malloc_with_cfg(size: int, policy: int, cfg: object, /) -> tuple[int, int]:
    c, keep = _malloc_cfg(cfg)
    out = _out("void **")
    ret = _lib.aclrtMallocWithCfg(out, size, _u32(policy), c)
    del keep
    return _addr(out[0]), int(ret)


@_rt("malloc_for_task_scheduler", "kiO", suffix="!")
def malloc_for_task_scheduler(size: int, policy: int, cfg: object, /) -> tuple[int, int]:
    c, keep = _malloc_cfg(cfg)
    out = _out("void **")
    ret = _lib.aclrtMallocForTaskScheduler(out, size, _u32(policy), c)
    del keep
    return _addr(out[0]), int(ret)


@_rt("malloc_host_with_cfg", "kO")
def malloc_host_with_cfg(size: int, cfg: object, /) -> tuple[int, int]:
    c, keep = _malloc_cfg(cfg)
    out = _out("void **")
    ret = _lib.aclrtMallocHostWithCfg(out, size, c)
    del keep
    return _addr(out[0]), int(ret)


@_rt("get_mem_info", "i")
def get_mem_info(attr: int, /) -> tuple[int, int, int]:
    """``(free, total, ret)`` for an aclrtMemAttr, on the current context's device."""
    free_, total = _out("size_t *"), _out("size_t *")
    ret = _lib.aclrtGetMemInfo(_u32(attr), free_, total)
    return int(free_[0]), int(total[0]), int(ret)


@_rt("pointer_get_attributes", "k")
def pointer_get_attributes(ptr: int, /) -> tuple[dict[str, Any], int]:
    """``({"location": {"id", "type"}, "page_size", "rsv": [4]}, ret)``; type 0 host (pinned),
    1 device, 2 host memory the runtime does not know."""
    a = _out("aclrtPtrAttributes *")
    ret = _lib.aclrtPointerGetAttributes(_vptr(ptr), a)
    attrs = {
        "location": {"id": int(a.location.id), "type": _as_u32(a.location.type)},
        "page_size": int(a.pageSize),
        "rsv": [int(w) for w in a.rsv],
    }
    return attrs, int(ret)


# ----------------------------------------------------------------------- events

# BEGIN GENERATED "events": written by native/gen_acl.py from native/acl_functions.py


@_rt("create_event", None)
def create_event() -> tuple[int, int]:
    out = _out("aclrtEvent *")
    ret = _lib.aclrtCreateEvent(out)
    return _addr(out[0]), int(ret)


@_rt("create_event_with_flag", "I")
def create_event_with_flag(flag: int, /) -> tuple[int, int]:
    out = _out("aclrtEvent *")
    ret = _lib.aclrtCreateEventWithFlag(out, flag)
    return _addr(out[0]), int(ret)


@_rt("destroy_event", "k")
def destroy_event(event: int, /) -> int:
    return int(_lib.aclrtDestroyEvent(_vptr(event)))


@_rt("record_event", "kk")
def record_event(event: int, stream: int, /) -> int:
    return int(_lib.aclrtRecordEvent(_vptr(event), _vptr(stream)))


@_rt("reset_event", "kk")
def reset_event(event: int, stream: int, /) -> int:
    return int(_lib.aclrtResetEvent(_vptr(event), _vptr(stream)))


@_rt("query_event_status", "k")
def query_event_status(event: int, /) -> tuple[int, int]:
    """``(status, ret)``; status is an aclrtEventRecordedStatus (1 = COMPLETE, 0 = NOT_READY)."""
    out = _out("aclrtEventRecordedStatus *")
    out[0] = _lib.ACL_EVENT_RECORDED_STATUS_NOT_READY
    ret = _lib.aclrtQueryEventStatus(_vptr(event), out)
    return _as_u32(out[0]), int(ret)


@_rt("synchronize_event", "k")
def synchronize_event(event: int, /) -> int:
    return int(_lib.aclrtSynchronizeEvent(_vptr(event)))


@_rt("synchronize_event_with_timeout", "ki", suffix="!")
def synchronize_event_with_timeout(event: int, timeout: int, /) -> int:
    return int(_lib.aclrtSynchronizeEventWithTimeout(_vptr(event), timeout))


@_rt("event_elapsed_time", "kk")
def event_elapsed_time(start: int, end: int, /) -> tuple[float, int]:
    """``(ms, ret)``: milliseconds between two recorded events, as a float."""
    out = _out("float *")
    ret = _lib.aclrtEventElapsedTime(out, _vptr(start), _vptr(end))
    return float(out[0]), int(ret)


@_rt("event_get_timestamp", "k")
def event_get_timestamp(event: int, /) -> tuple[int, int]:
    out = _out("uint64_t *")
    ret = _lib.aclrtEventGetTimestamp(_vptr(event), out)
    return int(out[0]), int(ret)


@_rt("create_event_ex_with_flag", "I")
def create_event_ex_with_flag(flag: int, /) -> tuple[int, int]:
    """A "new mode" event: cannot be reset or used with query_event/query_event_wait_status,
    and counts as complete until first recorded."""
    out = _out("aclrtEvent *")
    ret = _lib.aclrtCreateEventExWithFlag(out, flag)
    return _addr(out[0]), int(ret)


@_rt("query_event", "k")
def query_event(event: int, /) -> tuple[int, int]:
    """Deprecated. ``(status, ret)``; status is an aclrtEventStatus (0 COMPLETE, 1 NOT_READY)."""
    out = _out("aclrtEventStatus *")
    out[0] = _lib.ACL_EVENT_STATUS_COMPLETE
    ret = _lib.aclrtQueryEvent(_vptr(event), out)
    return _as_u32(out[0]), int(ret)


@_rt("query_event_wait_status", "k")
def query_event_wait_status(event: int, /) -> tuple[int, int]:
    """``(status, ret)``: 0 once every stream_wait_event on the event has been passed, else 1."""
    out = _out("aclrtEventWaitStatus *")
    out[0] = _lib.ACL_EVENT_WAIT_STATUS_COMPLETE
    ret = _lib.aclrtQueryEventWaitStatus(_vptr(event), out)
    return int(out[0]), int(ret)


# pyACL's wrapper passes its message to PyArg_ParseTuple instead of CHECK_NULL, so a bad
# argument shows the parser's own error ("function takes exactly 1 argument (0 given)").
@_rt_native("get_event_id", "k")
def get_event_id(event: int, /) -> tuple[int, int]:
    out = _out("uint32_t *")
    ret = _lib.aclrtGetEventId(_vptr(event), out)
    return int(out[0]), int(ret)


@_rt("get_event_avail_num", None)
def get_event_avail_num() -> tuple[int, int]:
    out = _out("uint32_t *")
    ret = _lib.aclrtGetEventAvailNum(out)
    return int(out[0]), int(ret)


# END GENERATED "events"


# ----------------------------------------------------------------------- host callbacks
#
# How a Python callback crosses into C and back. aclrtLaunchCallback takes a C function and a
# void* userData; the runtime later calls fn(userData) from inside aclrtProcessReport, in
# whichever thread called process_report. One C trampoline (`_trampoline`, the cffi
# `extern "Python"` function aiocann_acl_callback declared in native/aiocann_python.h, so no
# libffi closure is needed) serves every launch: the userData it receives is not a pointer but
# a token, the key of the (fn, user_data) pair in `_pending`. Tokens rather than
# _ffi.new_handle because a stale token (its record dropped by acl.finalize) is harmless to
# look up, whereas a dead handle would be a dangling pointer.
#
# The GIL: process_report is a cffi call, so the GIL is released while the runtime waits and
# while it runs callbacks; the trampoline re-takes it on entry (cffi does PyGILState_Ensure
# in every extern "Python" function, creating a thread state if a non-Python thread calls it)
# and gives it back on return. Nothing else holds a lock while the user's fn runs, so fn may itself call
# the facade (launch another callback, say) without deadlocking.
#
# Lifetimes: the record is registered *before* aclrtLaunchCallback, because the callback can
# run in another thread before aclrtLaunchCallback has even returned here; it is removed when
# the callback runs (so fn and user_data are dropped right after) or at once if the launch
# fails. A callback the runtime never delivers (its processing thread never calls
# process_report again) keeps its record until acl.finalize, which drops them all.
#
# Exceptions: nothing may propagate into C. An exception from fn is logged on the
# "aiocann.acl" logger and swallowed, as pyACL does; `_trampoline_error` is cffi's last line
# of defence for anything raised outside that try (e.g. MemoryError in the lookup).

# BEGIN GENERATED "host callbacks": written by native/gen_acl.py from native/acl_functions.py


@_rt("subscribe_report", "Kk")
def subscribe_report(thread_id: int, stream: int, /) -> int:
    """Bind the thread whose ``pthread_self()`` is ``thread_id`` (``threading.get_ident()``,
    ``Thread.ident``, or the id from ``acl.util.start_thread``) to ``stream``'s callbacks."""
    return int(_lib.aclrtSubscribeReport(thread_id, _vptr(stream)))


@_rt("unsubscribe_report", "Kk")
def unsubscribe_report(thread_id: int, stream: int, /) -> int:
    return int(_lib.aclrtUnSubscribeReport(thread_id, _vptr(stream)))


@_rt("process_report", "i")
def process_report(timeout: int, /) -> int:
    """Wait up to ``timeout`` ms (-1: forever) for callbacks addressed to the calling thread
    and run them here. The GIL is released while waiting."""
    return int(_lib.aclrtProcessReport(timeout))


# END GENERATED "host callbacks"


_pending_lock = threading.Lock()
_pending: dict[int, tuple[Callable[[Any], object], object]] = {}
_tokens = itertools.count(1)


def _trampoline_error(exc_type: type[BaseException], exc_value: BaseException, tb: types.TracebackType | None) -> None:
    _log.error(
        "acl.rt.launch_callback: internal error in the callback trampoline",
        exc_info=(exc_type, exc_value, tb),
    )


@_ffi.def_extern(name="aiocann_acl_callback", onerror=_trampoline_error)  # type: ignore[untyped-decorator]
def _run_callback(user_data: Any) -> None:
    token = int(_ffi.cast("uintptr_t", user_data))
    with _pending_lock:
        record = _pending.pop(token, None)
    if record is None:
        return  # dropped by acl.finalize: the runtime delivered a report it no longer owed
    fn, data = record
    del record
    try:
        fn(data)
    except BaseException:  # noqa: BLE001 -- nothing may escape into C; pyACL swallows it too
        _log.error("acl.rt.launch_callback: the callback %r raised; the exception is dropped", fn, exc_info=True)


_trampoline = _lib.aiocann_acl_callback


def _drop_pending_callbacks() -> None:
    """Called by acl.finalize: the runtime is gone, so are the callbacks it still owed."""
    with _pending_lock:
        _pending.clear()


def _pending_callback_count() -> int:
    """How many launched callbacks have not run yet (for tests and diagnostics)."""
    with _pending_lock:
        return len(_pending)


@_rt("launch_callback", "OOik")
def launch_callback(fn: Callable[[Any], object], user_data: object, block_type: int, stream: int, /) -> int:
    """Enqueue ``fn(user_data)`` on ``stream``; it runs in the thread that is inside
    ``process_report`` for that stream. ``block_type`` 1 holds the stream until ``fn`` returns."""
    if not callable(fn):
        raise TypeError("parameter must be callable")
    token = next(_tokens)
    with _pending_lock:
        _pending[token] = (fn, user_data)
    ret = int(_lib.aclrtLaunchCallback(_trampoline, _ffi.cast("void *", token), _u32(block_type), _vptr(stream)))
    if ret != 0:
        with _pending_lock:  # never enqueued: the runtime will not call back for this token
            _pending.pop(token, None)
    return ret


# ----------------------------------------------------------------------- exception info
#
# How pyACL delivers a failed task's report (python/pyACL/rt/rt_synchronize.cpp,
# WrapAclRtSetExceptionInfoCallback and InfoCallback), mirrored here:
#
# * one Python function per process (pyACL's global g_pyFunc), registered through the
#   deprecated single-slot aclrtSetExceptionInfoCallback -- not the Register/Unregister pair,
#   which pyACL does not wrap. Setting a callable replaces the previous one; calling with no
#   argument or None clears it (aclrtSetExceptionInfoCallback(NULL)); anything else raises
#   TypeError with the parse-failure text. The function is held (a strong reference) until
#   replaced or cleared -- acl.finalize does not drop it, as pyACL's finalize does not;
# * the runtime calls the C side on its own thread (the simulator: the failed stream's
#   worker; the real runtime: a recycle thread, or a thread inside a synchronize), which takes
#   the GIL (PyGILState_Ensure; here the cffi `extern "Python"` function
#   aiocann_acl_exception_callback of native/aiocann_python.h does it) and calls
#   ``fn(info)`` with ``info`` the address of the aclrtExceptionInfo as an int
#   (Py_BuildValue("(K)", info)). That address is valid only during the call: pass it to the
#   get_*_from_exception_info getters there and then (from any thread). Any other int -- and
#   this address once fn has returned -- reads as NULL (0xFFFFFFFF), where pyACL would
#   dereference it. The stream does not move on until fn returns, so fn must not wait for
#   that stream;
# * if fn raises, pyACL logs an error and drops its function (g_pyFunc = NULL) while its C
#   callback stays registered. Here too: the exception is logged on the "aiocann.acl" logger
#   and never reaches C, the function is dropped, and later reports find no function and are
#   ignored until set_exception_info_callback is called again. (pyACL would then call its NULL
#   function and crash the process -- the one thing not mirrored.)
#
# The async core (native/completion_queue.c) uses the runtime's registry, not this slot, so
# the two never displace each other where aclrtExceptionInfoCallbackRegister exists.

_exception_lock = threading.Lock()  # makes setting the function and the C slot one step
_exception_fn: Callable[[int], object] | None = None


def _exception_trampoline_error(
    exc_type: type[BaseException], exc_value: BaseException, tb: types.TracebackType | None
) -> None:
    _log.error(
        "acl.rt.set_exception_info_callback: internal error in the exception trampoline",
        exc_info=(exc_type, exc_value, tb),
    )


@_ffi.def_extern(name="aiocann_acl_exception_callback", onerror=_exception_trampoline_error)  # type: ignore[untyped-decorator]
def _run_exception_callback(info: Any) -> None:
    global _exception_fn
    fn = _exception_fn
    if fn is None:
        return  # cleared, or dropped after it raised
    try:
        with _live_reports.holding(_addr(info)):  # the getters read it only while fn runs
            fn(_addr(info))
    except BaseException:  # noqa: BLE001 -- nothing may escape into C
        if _exception_fn is fn:  # not replaced meanwhile: drop it, as pyACL does
            _exception_fn = None
        _log.error(
            "acl.rt.set_exception_info_callback: the callback %r raised; it is dropped (as pyACL drops it) "
            "and later exception reports are ignored until a callback is set again",
            fn,
            exc_info=True,
        )


_exception_trampoline = _lib.aiocann_acl_exception_callback


@_rt("set_exception_info_callback", "|O")
def set_exception_info_callback(fn: Callable[[int], object] | None = None, /) -> int:
    """aclrtSetExceptionInfoCallback: ``fn(info)`` is called, on a runtime thread, for every
    task that fails on a device, ``info`` being the report's address for the getters below.
    No argument or None clears it."""
    global _exception_fn
    with _exception_lock:
        if callable(fn):
            _exception_fn = fn
            return int(_lib.aclrtSetExceptionInfoCallback(_exception_trampoline))
        if fn is None:
            _exception_fn = None
            return int(_lib.aclrtSetExceptionInfoCallback(_ffi.NULL))
    raise TypeError("acl.rt.set_exception_info_callback args parse failed")


# The reports whose addresses a callback is holding now: the getters read only those. The C
# getters dereference any non-NULL pointer (callback.cpp: a NULL check, then info->field), so
# any other int -- 1, a stale address kept past the callback -- is given to them as NULL and
# gets their NULL answer (0xFFFFFFFF) instead of crashing the interpreter (see _live.py).
_live_reports = _LiveAddresses()


def _exception_getter(name: str, fn: Callable[[Any], int]) -> Callable[[int], int]:
    @_rt(name, "k")
    def getter(info: int, /) -> int:
        # The value alone, no ret (pyACL: Py_BuildValue("I", ...)); 0xFFFFFFFF for info 0.
        def read(live: bool) -> int:
            return int(fn(_ffi.cast("const aclrtExceptionInfo *", info) if live else _ffi.NULL))

        return _live_reports.read(info, read)

    getter.__name__ = getter.__qualname__ = name
    getter.__doc__ = f"The {name.split('_from_')[0][4:].replace('_', ' ')} of an exception report (its address)."
    return getter  # type: ignore[no-any-return]


get_error_code_from_exception_info = _exception_getter(
    "get_error_code_from_exception_info", lambda i: _lib.aclrtGetErrorCodeFromExceptionInfo(i)
)
get_task_id_from_exception_info = _exception_getter(
    "get_task_id_from_exception_info", lambda i: _lib.aclrtGetTaskIdFromExceptionInfo(i)
)
get_stream_id_from_exception_info = _exception_getter(
    "get_stream_id_from_exception_info", lambda i: _lib.aclrtGetStreamIdFromExceptionInfo(i)
)
get_thread_id_from_exception_info = _exception_getter(
    "get_thread_id_from_exception_info", lambda i: _lib.aclrtGetThreadIdFromExceptionInfo(i)
)
get_device_id_from_exception_info = _exception_getter(
    "get_device_id_from_exception_info", lambda i: _lib.aclrtGetDeviceIdFromExceptionInfo(i)
)


# ----------------------------------------------------------------------- last error
#
# The calling thread's last runtime failure. Both return the code alone (no tuple), as pyACL
# does; level must be 0 (ACL_RT_THREAD_LEVEL), else 100000.

# BEGIN GENERATED "last error": written by native/gen_acl.py from native/acl_functions.py


@_rt("peek_at_last_error", "i", suffix="!")
def peek_at_last_error(level: int, /) -> int:
    """aclrtPeekAtLastError: the code, left in place."""
    return int(_lib.aclrtPeekAtLastError(_u32(level)))


@_rt("get_last_error", "i", suffix="!")
def get_last_error(level: int, /) -> int:
    """aclrtGetLastError: the code, then cleared."""
    return int(_lib.aclrtGetLastError(_u32(level)))


# END GENERATED "last error"


# ----------------------------------------------------------------------- binaries

# BEGIN GENERATED "binaries": written by native/gen_acl.py from native/acl_functions.py


@_rt("binary_get_function", "ks")
def binary_get_function(bin_handle: int, kernel_name: str, /) -> tuple[int, int]:
    out = _out("aclrtFuncHandle *")
    ret = _lib.aclrtBinaryGetFunction(_vptr(bin_handle), _cstr(kernel_name), out)
    return _addr(out[0]), int(ret)


@_rt("binary_unload", "k")
def binary_unload(bin_handle: int, /) -> int:
    """aclrtBinaryUnLoad."""
    return int(_lib.aclrtBinaryUnLoad(_vptr(bin_handle)))


@_rt("destroy_binary", "k")
def destroy_binary(binary: int, /) -> int:
    return int(_lib.aclrtDestroyBinary(_vptr(binary)))


@_rt("binary_load", "k")
def binary_load(binary: int, /) -> tuple[int, int]:
    """Loads the binary a create_binary descriptor points at: ``(bin_handle, ret)``."""
    out = _out("aclrtBinHandle *")
    ret = _lib.aclrtBinaryLoad(_vptr(binary), out)
    return _addr(out[0]), int(ret)


# END GENERATED "binaries"


def _load_options(options: object) -> tuple[Any, Any]:
    """pyACL's options list -> (aclrtBinaryLoadOptions* or NULL, the array to keep alive).

    As in pyACL (rt_binary.cpp GetBinOptionsFromPyList): a non-list (None included) raises
    ValueError and a non-dict entry TypeError; inside an entry, "type" and "value" are 0 when
    missing or not integers; a negative "value" raises ValueError; "value" is stored as uint32
    in ``isLazyLoad``, which overlays ``magic`` and ``cpuKernelMode`` in the union. ``[]``
    passes NULL.
    """
    if not isinstance(options, list):
        raise ValueError("argument 2 only support the format of list")
    if not options:
        return _ffi.NULL, None
    arr = _ffi.new("aclrtBinaryLoadOption[]", len(options))  # zero-filled: rsv stays 0
    for i, entry in enumerate(options):
        if not isinstance(entry, dict):
            raise TypeError("the bin_option argument is not dict")
        arr[i].type = _dict_int(entry, "type", signed=True) or 0
        arr[i].value.isLazyLoad = _dict_int(entry, "value", signed=False) or 0
    opts = _out("aclrtBinaryLoadOptions *")
    opts.options = arr  # a struct field does not keep arr alive: the caller holds it
    opts.numOpt = len(options)
    return opts, arr


@_rt("binary_load_from_file", "sO", suffix="!")
def binary_load_from_file(bin_path: str, options: list[dict[str, int]], /) -> tuple[int, int]:
    opts, keep = _load_options(options)
    out = _out("aclrtBinHandle *")
    ret = _lib.aclrtBinaryLoadFromFile(_cstr(bin_path), opts, out)
    del keep
    return _addr(out[0]), int(ret)


@_rt("binary_load_from_data", "kkO", suffix="!")
def binary_load_from_data(data_ptr: int, length: int, options: list[dict[str, int]], /) -> tuple[int, int]:
    opts, keep = _load_options(options)
    out = _out("aclrtBinHandle *")
    ret = _lib.aclrtBinaryLoadFromData(_vptr(data_ptr), length, opts, out)
    del keep
    return _addr(out[0]), int(ret)


@_rt("create_binary", "kk")
def create_binary(data_ptr: int, length: int, /) -> int:
    """aclrtCreateBinary: a descriptor of the binary at ``data_ptr`` (not copied: keep the
    data alive until binary_load). Returns the handle alone, 0 on failure -- no ret."""
    return _addr(_lib.aclrtCreateBinary(_vptr(data_ptr), length))


@_rt("get_function_addr", "k", suffix="!")
def get_function_addr(func_handle: int, /) -> tuple[int, int, int]:
    """``(aic_addr, aiv_addr, ret)``: where the kernel's code starts (a simulator kernel has
    one entry, reported as the AIC address)."""
    aic, aiv = _out("void **"), _out("void **")
    ret = _lib.aclrtGetFunctionAddr(_vptr(func_handle), aic, aiv)
    return _addr(aic[0]), _addr(aiv[0]), int(ret)


@_rt("get_function_name", "kI", suffix="!")
def get_function_name(func_handle: int, max_len: int, /) -> tuple[str, int]:
    """``(name, ret)``; ``max_len`` (< 1024) must hold the name and its NUL, else ret is
    107000 and name is ""."""
    if max_len >= 1024:
        raise ValueError("maxLen should be less than 1024")
    buf = _ffi.new("char[]", max_len + 1)  # zeroed: "" unless the runtime wrote a name
    ret = _lib.aclrtGetFunctionName(_vptr(func_handle), max_len, buf)
    return _ffi.string(buf).decode("utf-8", errors="replace"), int(ret)


# ----------------------------------------------------------------------- kernel arguments
#
# Value parameters are host *addresses* (ints), as in pyACL: the caller owns the bytes (a
# ctypes value, a numpy array, a bytes object via acl.util.bytes_to_ptr) and the runtime copies
# them during the call, so nothing needs to be kept alive here. The user-memory handle and
# buffer of kernel_args_init_by_user_mem belong to the caller and must outlive every launch
# that uses them (the runtime copies the args block at launch, not before).

# BEGIN GENERATED "kernel arguments": written by native/gen_acl.py from native/acl_functions.py


@_rt("kernel_args_get_handle_mem_size", "k")
def kernel_args_get_handle_mem_size(func_handle: int, /) -> tuple[int, int]:
    out = _out("size_t *")
    ret = _lib.aclrtKernelArgsGetHandleMemSize(_vptr(func_handle), out)
    return int(out[0]), int(ret)


@_rt("kernel_args_get_mem_size", "kk")
def kernel_args_get_mem_size(func_handle: int, user_args_size: int, /) -> tuple[int, int]:
    out = _out("size_t *")
    ret = _lib.aclrtKernelArgsGetMemSize(_vptr(func_handle), user_args_size, out)
    return int(out[0]), int(ret)


@_rt("kernel_args_init", "k")
def kernel_args_init(func_handle: int, /) -> tuple[int, int]:
    out = _out("aclrtArgsHandle *")
    ret = _lib.aclrtKernelArgsInit(_vptr(func_handle), out)
    return _addr(out[0]), int(ret)


@_rt("kernel_args_init_by_user_mem", "kkkk")
def kernel_args_init_by_user_mem(
    func_handle: int, args_handle: int, user_host_mem: int, actual_args_size: int, /
) -> int:
    return int(
        _lib.aclrtKernelArgsInitByUserMem(
            _vptr(func_handle), _vptr(args_handle), _vptr(user_host_mem), actual_args_size
        )
    )


@_rt("kernel_args_append", "kkk")
def kernel_args_append(args_handle: int, param: int, param_size: int, /) -> tuple[int, int]:
    """Append ``param_size`` bytes read from the host address ``param``; ``(param_handle, ret)``."""
    out = _out("aclrtParamHandle *")
    ret = _lib.aclrtKernelArgsAppend(_vptr(args_handle), _vptr(param), param_size, out)
    return _addr(out[0]), int(ret)


@_rt("kernel_args_append_place_holder", "k")
def kernel_args_append_place_holder(args_handle: int, /) -> tuple[int, int]:
    out = _out("aclrtParamHandle *")
    ret = _lib.aclrtKernelArgsAppendPlaceHolder(_vptr(args_handle), out)
    return _addr(out[0]), int(ret)


@_rt("kernel_args_get_place_holder_buffer", "kkk")
def kernel_args_get_place_holder_buffer(args_handle: int, param_handle: int, data_size: int, /) -> tuple[int, int]:
    """``(buffer_addr, ret)``: host memory, owned by the args handle, for the placeholder's data."""
    out = _out("void **")
    ret = _lib.aclrtKernelArgsGetPlaceHolderBuffer(_vptr(args_handle), _vptr(param_handle), data_size, out)
    return _addr(out[0]), int(ret)


@_rt("kernel_args_para_update", "kkkk")
def kernel_args_para_update(args_handle: int, param_handle: int, param: int, param_size: int, /) -> int:
    return int(_lib.aclrtKernelArgsParaUpdate(_vptr(args_handle), _vptr(param_handle), _vptr(param), param_size))


@_rt("kernel_args_finalize", "k")
def kernel_args_finalize(args_handle: int, /) -> int:
    return int(_lib.aclrtKernelArgsFinalize(_vptr(args_handle)))


# END GENERATED "kernel arguments"


# ----------------------------------------------------------------------- launch

# BEGIN GENERATED "launch": written by native/gen_acl.py from native/acl_functions.py


@_rt("launch_kernel", "kIkkk")
def launch_kernel(func_handle: int, block_dim: int, args_data: int, args_size: int, stream: int, /) -> int:
    """aclrtLaunchKernel: ``args_data`` is *device* memory holding the packed arguments."""
    return int(_lib.aclrtLaunchKernel(_vptr(func_handle), block_dim, _vptr(args_data), args_size, _vptr(stream)))


# END GENERATED "launch"


def _launch_cfg(cfg: object) -> tuple[Any, Any]:
    """pyACL's cfg list -> (aclrtLaunchKernelCfg* or NULL, the attrs array to keep alive).

    Same rules as the load options (rt_binary.cpp GetKernelCfgFromPyList, whose message names
    "argument 2" although cfg is the fourth): a non-list raises ValueError, a non-dict entry
    TypeError, "id"/"value" default to 0; "value" is stored as uint32 in ``blockDimOffset``,
    which on a little-endian host also fills the uint8/uint16 members (schemMode, timeout, ...).
    """
    if not isinstance(cfg, list):
        raise ValueError("argument 2 only support the format of list")
    if not cfg:
        return _ffi.NULL, None
    attrs = _ffi.new("aclrtLaunchKernelAttr[]", len(cfg))  # zero-filled: rsv stays 0
    for i, entry in enumerate(cfg):
        if not isinstance(entry, dict):
            raise TypeError("the cfg argument is not dict")
        attrs[i].id = _dict_int(entry, "id", signed=True) or 0
        attrs[i].value.blockDimOffset = _dict_int(entry, "value", signed=False) or 0
    c = _out("aclrtLaunchKernelCfg *")
    c.attrs = attrs
    c.numAttrs = len(cfg)
    return c, attrs


@_rt("launch_kernel_with_config", "kIkOkk")
def launch_kernel_with_config(
    func_handle: int,
    num_blocks: int,
    stream: int,
    cfg: list[dict[str, int]],
    args_handle: int,
    reserve: int,
    /,
) -> int:
    c, attrs = _launch_cfg(cfg)
    ret = _lib.aclrtLaunchKernelWithConfig(
        _vptr(func_handle), num_blocks, _vptr(stream), c, _vptr(args_handle), _vptr(reserve)
    )
    del attrs  # the runtime has read the attributes by now
    return int(ret)


# ----------------------------------------------------------------------- virtual memory
#
# The memory family (python/pyACL/rt/rt_memory.cpp, rt_synchronize.cpp, rt_allocator.cpp):
# reservations, physical memory handles and their mapping, shareable handles, IPC keys, host
# registration, copies by descriptor, reduce, cache maintenance, stream value write/wait,
# allocators and memory UCE. Addresses and handles are ints as everywhere in this module.

# BEGIN GENERATED "virtual memory": written by native/gen_acl.py from native/acl_functions.py


@_rt("reserve_mem_address", "kkkK")
def reserve_mem_address(size: int, alignment: int, expect_ptr: int, flags: int, /) -> tuple[int, int]:
    """``(vir_ptr, ret)``: a reservation of device address space (no memory yet)."""
    out = _out("void **")
    ret = _lib.aclrtReserveMemAddress(out, size, alignment, _vptr(expect_ptr), flags)
    return _addr(out[0]), int(ret)


@_rt("release_mem_address", "k")
def release_mem_address(vir_ptr: int, /) -> int:
    return int(_lib.aclrtReleaseMemAddress(_vptr(vir_ptr)))


@_rt("free_physical", "k")
def free_physical(handle: int, /) -> int:
    return int(_lib.aclrtFreePhysical(_vptr(handle)))


@_rt("map_mem", "kkkkK")
def map_mem(vir_ptr: int, size: int, offset: int, handle: int, flags: int, /) -> int:
    return int(_lib.aclrtMapMem(_vptr(vir_ptr), size, offset, _vptr(handle), flags))


@_rt("unmap_mem", "k")
def unmap_mem(vir_ptr: int, /) -> int:
    return int(_lib.aclrtUnmapMem(_vptr(vir_ptr)))


@_rt("mem_export_to_shareable_handle", "kiK")
def mem_export_to_shareable_handle(handle: int, handle_type: int, flags: int, /) -> tuple[int, int]:
    """``(shareable_handle, ret)``: a 64-bit handle another process imports."""
    out = _out("uint64_t *")
    ret = _lib.aclrtMemExportToShareableHandle(_vptr(handle), _u32(handle_type), flags, out)
    return int(out[0]), int(ret)


@_rt("mem_import_from_shareable_handle", "Ki")
def mem_import_from_shareable_handle(shareable_handle: int, device_id: int, /) -> tuple[int, int]:
    out = _out("aclrtDrvMemHandle *")
    ret = _lib.aclrtMemImportFromShareableHandle(shareable_handle, device_id, out)
    return _addr(out[0]), int(ret)


# END GENERATED "virtual memory"


def _physical_mem_prop(prop: object) -> Any:
    """pyACL's aclrtPhysicalMemProp dict (rt_memory.cpp GetPhysicalMemPropFromPydict): keys
    "handleType", "allocationType", "memAttr" (GetEnumValueFromPyDict), "location" (a dict of
    "id" and "type"; a missing one stays zero) and "reserve"; a missing or non-int value leaves
    the field 0."""
    if not isinstance(prop, dict):
        raise TypeError("the aclrtPhysicalMemProp argument is not dict")
    c = _out("aclrtPhysicalMemProp *")
    for key in ("handleType", "allocationType", "memAttr"):
        v = _dict_int(prop, key, signed=True)
        if v is not None:
            setattr(c, key, v)
    location: Any = prop.get("location")
    if location is not None:
        if not isinstance(location, dict):
            raise TypeError("the aclrtMemLocation argument is not dict")
        loc_id = _dict_int(location, "id", signed=False)
        if loc_id is not None:
            c.location.id = loc_id
        loc_type = _dict_int(location, "type", signed=True)
        if loc_type is not None:
            c.location.type = loc_type
    reserve = _dict_int(prop, "reserve", signed=False, bits=64)
    if reserve is not None:
        c.reserve = reserve
    return c


def _int32_list(values: object) -> Any:
    """A pid list as pyACL converts it (argument 2 of the whitelist calls): not a list is
    ValueError; an item that is not an int or not an int32 fails the whole conversion
    (GetValuesFromPyList, reported as "get values from PyList failed"). The C array has one
    element more than the list, as pyACL's vector does, so [] is a valid pointer to none."""
    if not isinstance(values, list):
        raise ValueError("argument 2 only support the format of list")
    out = _ffi.new("int32_t[]", len(values) + 1)
    for i, item in enumerate(values):
        try:
            v = operator.index(item)
        except TypeError:
            raise ValueError("get values from PyList failed") from None
        if not -(1 << 31) <= v < (1 << 31):
            raise ValueError("get values from PyList failed")
        out[i] = v
    return out


@_rt("malloc_physical", "kOK")
def malloc_physical(size: int, prop: object, flags: int, /) -> tuple[int, int]:
    """``(handle, ret)``: physical memory described by ``prop`` (see _physical_mem_prop)."""
    c = _physical_mem_prop(prop)
    out = _out("aclrtDrvMemHandle *")
    ret = _lib.aclrtMallocPhysical(out, size, c, flags)
    return _addr(out[0]), int(ret)


@_rt("mem_get_allocation_granularity", "Oi")
def mem_get_allocation_granularity(prop: object, option: int, /) -> tuple[int, int]:
    c = _physical_mem_prop(prop)
    out = _out("size_t *")
    ret = _lib.aclrtMemGetAllocationGranularity(c, _u32(option), out)
    return int(out[0]), int(ret)


@_rt("mem_set_pid_to_shareable_handle", "KO")
def mem_set_pid_to_shareable_handle(shareable_handle: int, pids: object, /) -> int:
    """Adds the processes (ids from ``device_get_bare_tgid``) allowed to import it."""
    arr = _int32_list(pids)
    return int(_lib.aclrtMemSetPidToShareableHandle(shareable_handle, arr, len(arr) - 1))


# ----------------------------------------------------------------------- IPC memory

# BEGIN GENERATED "IPC memory": written by native/gen_acl.py from native/acl_functions.py


@_rt("ipc_mem_import_by_key", "sK")
def ipc_mem_import_by_key(key: str, flags: int, /) -> tuple[int, int]:
    """``(dev_ptr, ret)``: the exporter's device memory, mapped in this process."""
    out = _out("void **")
    ret = _lib.aclrtIpcMemImportByKey(out, _cstr(key), flags)
    return _addr(out[0]), int(ret)


@_rt("ipc_mem_close", "s")
def ipc_mem_close(key: str, /) -> int:
    return int(_lib.aclrtIpcMemClose(_cstr(key)))


# END GENERATED "IPC memory"


@_rt("ipc_mem_get_export_key", "kkkK")
def ipc_mem_get_export_key(dev_ptr: int, size: int, length: int, flags: int, /) -> tuple[str, int]:
    """``(key, ret)``; ``length`` (< 1024) is the key buffer's size, 65 as documented."""
    if length >= 1024:
        raise ValueError("key len should be less than 1024")
    key = _ffi.new("char[]", length + 1)
    ret = _lib.aclrtIpcMemGetExportKey(_vptr(dev_ptr), size, key, length, flags)
    return _ffi.string(key).decode("utf-8", errors="replace"), int(ret)


@_rt("ipc_mem_set_import_pid", "sO")
def ipc_mem_set_import_pid(key: str, pids: object, /) -> int:
    arr = _int32_list(pids)
    return int(_lib.aclrtIpcMemSetImportPid(_cstr(key), arr, len(arr) - 1))


# ----------------------------------------------------------------------- host registration

# BEGIN GENERATED "host registration": written by native/gen_acl.py from native/acl_functions.py


@_rt("host_register", "kki")
def host_register(ptr: int, size: int, register_type: int, /) -> tuple[int, int]:
    """``(dev_ptr, ret)``: the device address of the registered host memory."""
    out = _out("void **")
    ret = _lib.aclrtHostRegister(_vptr(ptr), size, _u32(register_type), out)
    return _addr(out[0]), int(ret)


@_rt("host_register_v2", "KKI")
def host_register_v2(ptr: int, size: int, flag: int, /) -> int:
    return int(_lib.aclrtHostRegisterV2(_vptr(ptr), size, flag))


@_rt("host_get_device_pointer", "KI", "acl.rt.host_get_device_pointer parse failed")  # sic, pyACL's text
def host_get_device_pointer(host_ptr: int, flag: int, /) -> tuple[int, int]:
    out = _out("void **")
    ret = _lib.aclrtHostGetDevicePointer(_vptr(host_ptr), out, flag)
    return _addr(out[0]), int(ret)


@_rt("host_unregister", "k")
def host_unregister(ptr: int, /) -> int:
    return int(_lib.aclrtHostUnregister(_vptr(ptr)))


# END GENERATED "host registration"


# ----------------------------------------------------------------------- copies, reduce, CMO

# BEGIN GENERATED "copies, reduce, CMO": written by native/gen_acl.py from native/acl_functions.py


@_rt("get_memcpy_desc_size", "i")
def get_memcpy_desc_size(kind: int, /) -> tuple[int, int]:
    out = _out("size_t *")
    ret = _lib.aclrtGetMemcpyDescSize(_u32(kind), out)
    return int(out[0]), int(ret)


@_rt("memcpy_async_with_desc", "kik")
def memcpy_async_with_desc(desc: int, kind: int, stream: int, /) -> int:
    return int(_lib.aclrtMemcpyAsyncWithDesc(_vptr(desc), _u32(kind), _vptr(stream)))


@_rt("memcpy_async_with_condition", "kkkkik")
def memcpy_async_with_condition(dst: int, dest_max: int, src: int, count: int, kind: int, stream: int, /) -> int:
    """Deprecated in CANN; behaves as memcpy_async."""
    return int(_lib.aclrtMemcpyAsyncWithCondition(_vptr(dst), dest_max, _vptr(src), count, _u32(kind), _vptr(stream)))


@_rt("reduce_async", "kkkiikk")
def reduce_async(dst: int, src: int, count: int, kind: int, data_type: int, stream: int, reserve: int, /) -> int:
    """``dst[i] = dst[i] op src[i]`` over ``count`` bytes; kind 10 SUM, 11 MAX, 12 MIN."""
    return int(
        _lib.aclrtReduceAsync(_vptr(dst), _vptr(src), count, _u32(kind), data_type, _vptr(stream), _vptr(reserve))
    )


@_rt("cmo_async", "kkik", suffix="!")
def cmo_async(src: int, size: int, cmo_type: int, stream: int, /) -> int:
    return int(_lib.aclrtCmoAsync(_vptr(src), size, _u32(cmo_type), _vptr(stream)))


@_rt("value_write", "kkIk")
def value_write(dev_addr: int, value: int, flag: int, stream: int, /) -> int:
    """Writes the 64-bit ``value`` at ``dev_addr`` when the stream gets there."""
    return int(_lib.aclrtValueWrite(_vptr(dev_addr), value, flag, _vptr(stream)))


@_rt("value_wait", "kkIk")
def value_wait(dev_addr: int, value: int, flag: int, stream: int, /) -> int:
    """Holds the stream until the 64 bits at ``dev_addr`` meet ``flag``: 0 GEQ (signed), 1 EQ,
    2 AND (non-zero), 3 NOR (``~(v | value) != 0``)."""
    return int(_lib.aclrtValueWait(_vptr(dev_addr), value, flag, _vptr(stream)))


# END GENERATED "copies, reduce, CMO"


@_rt("set_memcpy_desc", "kikkkk")
def set_memcpy_desc(desc: int, kind: int, src: int, dst: int, count: int, config: int, /) -> tuple[int, int]:
    """``(desc, ret)``: writes the descriptor (device memory) and hands its address back."""
    ret = _lib.aclrtSetMemcpyDesc(_vptr(desc), _u32(kind), _vptr(src), _vptr(dst), count, _vptr(config))
    return desc, int(ret)


# ----------------------------------------------------------------------- allocators
#
# pyACL (rt_allocator.cpp) keeps one Python function per kind for the whole process (global
# slots, set when the C setter succeeds) and hands the descriptor C trampolines that call them
# with the GIL; here the trampolines are the cffi `extern "Python"` functions of
# native/aiocann_python.h. The runtime only stores what is registered; the model executor of
# a real CANN install calls the functions (aclrtAllocatorGetByStream). Two things differ from
# pyACL, both where pyACL cannot have meant what it does:
# * allocator_set_obj_to_desc: pyACL passes the address of its local copy of the allocator
#   (which dangles once the call returns); here the address of a copy that lives as long as
#   the process, so what the descriptor holds -- a non-NULL pointer to the allocator's value --
#   and every return code are pyACL's, without the dangling pointer;
# * what a Python alloc, alloc-advise or get-addr function returns (an int address, or None for
#   NULL) is handed back to the runtime; pyACL drops it and returns NULL, so no allocation could
#   ever succeed. An exception in the function is logged and the C side gets NULL, as pyACL's.

# BEGIN GENERATED "allocators": written by native/gen_acl.py from native/acl_functions.py


@_rt("allocator_destroy_desc", "k")
def allocator_destroy_desc(desc: int, /) -> int:
    return int(_lib.aclrtAllocatorDestroyDesc(_vptr(desc)))


@_rt("allocator_register", "kk")
def allocator_register(stream: int, desc: int, /) -> int:
    return int(_lib.aclrtAllocatorRegister(_vptr(stream), _vptr(desc)))


@_rt("allocator_unregister", "k")
def allocator_unregister(stream: int, /) -> int:
    return int(_lib.aclrtAllocatorUnregister(_vptr(stream)))


# END GENERATED "allocators"


_allocator_lock = threading.Lock()
_allocator_fns: dict[str, Callable[..., object]] = {}
_allocator_cells: list[Any] = []  # the allocator values whose addresses descriptors hold


def _allocator_trampoline_error(
    exc_type: type[BaseException], exc_value: BaseException, tb: types.TracebackType | None
) -> None:
    _log.error("acl.rt allocator trampoline: internal error", exc_info=(exc_type, exc_value, tb))


def _call_allocator(kind: str, *args: int) -> object:
    fn = _allocator_fns.get(kind)
    if fn is None:
        return None
    try:
        return fn(*args)
    except BaseException:  # noqa: BLE001 -- nothing may escape into C
        _log.error("acl.rt allocator %s function %r raised; NULL is returned to the runtime", kind, fn, exc_info=True)
        return None


def _as_pointer(result: object) -> Any:
    try:
        return _vptr(operator.index(result) & ((1 << 64) - 1)) if result is not None else _ffi.NULL  # type: ignore[arg-type]
    except TypeError:
        return _ffi.NULL


@_ffi.def_extern(name="aiocann_acl_allocator_alloc", onerror=_allocator_trampoline_error)  # type: ignore[untyped-decorator]
def _allocator_alloc(allocator: Any, size: int) -> Any:
    return _as_pointer(_call_allocator("alloc", _addr(allocator), size & 0xFFFF_FFFF))  # pyACL: "kI"


@_ffi.def_extern(name="aiocann_acl_allocator_free", onerror=_allocator_trampoline_error)  # type: ignore[untyped-decorator]
def _allocator_free(allocator: Any, block: Any) -> None:
    _call_allocator("free", _addr(allocator), _addr(block))


@_ffi.def_extern(name="aiocann_acl_allocator_alloc_advise", onerror=_allocator_trampoline_error)  # type: ignore[untyped-decorator]
def _allocator_alloc_advise(allocator: Any, size: int, address: Any) -> Any:
    return _as_pointer(_call_allocator("alloc_advise", _addr(allocator), size & 0xFFFF_FFFF, _addr(address)))


@_ffi.def_extern(name="aiocann_acl_allocator_get_addr", onerror=_allocator_trampoline_error)  # type: ignore[untyped-decorator]
def _allocator_get_addr(block: Any) -> Any:
    return _as_pointer(_call_allocator("get_addr", _addr(block)))


@_rt("allocator_create_desc", None)
def allocator_create_desc() -> int:
    """The descriptor alone (no ret); 0 on failure."""
    return _addr(_lib.aclrtAllocatorCreateDesc())


@_rt("allocator_set_obj_to_desc", "kk")
def allocator_set_obj_to_desc(desc: int, allocator: int, /) -> int:
    cell = _ffi.new("aclrtAllocator *", _vptr(allocator))
    ret = int(_lib.aclrtAllocatorSetObjToDesc(_vptr(desc), cell))
    if ret == 0:
        with _allocator_lock:
            _allocator_cells.append(cell)
    return ret


def _allocator_setter(name: str, kind: str, setter: Callable[[Any, Any], int], trampoline: Any) -> Any:
    @_rt(name, "kO")
    def set_func(desc: int, fn: Callable[..., object], /) -> int:
        ret = int(setter(_vptr(desc), trampoline))
        if ret == 0:
            with _allocator_lock:
                _allocator_fns[kind] = fn
        return ret

    set_func.__name__ = set_func.__qualname__ = name
    set_func.__doc__ = f"Sets the process-wide {kind.replace('_', ' ')} function (pyACL keeps one per kind)."
    return set_func


allocator_set_alloc_func_to_desc = _allocator_setter(
    "allocator_set_alloc_func_to_desc",
    "alloc",
    lambda d, f: _lib.aclrtAllocatorSetAllocFuncToDesc(d, f),
    _lib.aiocann_acl_allocator_alloc,
)
allocator_set_free_func_to_desc = _allocator_setter(
    "allocator_set_free_func_to_desc",
    "free",
    lambda d, f: _lib.aclrtAllocatorSetFreeFuncToDesc(d, f),
    _lib.aiocann_acl_allocator_free,
)
allocator_set_alloc_advise_func_to_desc = _allocator_setter(
    "allocator_set_alloc_advise_func_to_desc",
    "alloc_advise",
    lambda d, f: _lib.aclrtAllocatorSetAllocAdviseFuncToDesc(d, f),
    _lib.aiocann_acl_allocator_alloc_advise,
)
allocator_set_get_addr_from_block_func_to_desc = _allocator_setter(
    "allocator_set_get_addr_from_block_func_to_desc",
    "get_addr",
    lambda d, f: _lib.aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, f),
    _lib.aiocann_acl_allocator_get_addr,
)


# ----------------------------------------------------------------------- memory UCE


@_rt("get_mem_uce_info", "iI", suffix="!")
def get_mem_uce_info(device_id: int, array_size: int, /) -> tuple[list[dict[str, Any]], int]:
    """``([{"addr", "len", "reserved"}...], ret)``: the addresses hit by uncorrectable errors."""
    try:
        arr = _ffi.new("aclrtMemUceInfo[]", array_size)
    except MemoryError:
        raise MemoryError("memory new failed") from None
    count = _out("size_t *")
    ret = _lib.aclrtGetMemUceInfo(device_id, arr, array_size, count)
    infos = [
        {"addr": _addr(arr[i].addr), "len": int(arr[i].len), "reserved": [int(w) for w in arr[i].reserved]}
        for i in range(int(count[0]))
    ]
    return infos, int(ret)


@_rt("mem_uce_repair", "iO", suffix="!")
def mem_uce_repair(device_id: int, infos: object, /) -> int:
    """Repairs the addresses of a get_mem_uce_info list ({"addr", "len", "reserved"} dicts)."""
    if not isinstance(infos, list):
        raise TypeError("aclrtMemUceInfo argument is not list")
    arr = _ffi.new("aclrtMemUceInfo[]", len(infos) + 1)
    for i, item in enumerate(infos):
        if not isinstance(item, dict):
            raise TypeError("the aclrtMemUceInfo argument is not dict")
        address = _dict_int(item, "addr", signed=False, bits=64)
        if address is not None:
            arr[i].addr = _vptr(address)
        length = _dict_int(item, "len", signed=False, bits=64)
        if length is not None:
            arr[i].len = length
        for j, w in enumerate(_dict_u32_list(item, "reserved", 14, bits=64) or ()):
            arr[i].reserved[j] = w
    return int(_lib.aclrtMemUceRepair(device_id, arr, len(infos)))


# ======================================================================= issue 11, device share
#
# Overflow detection, operator timeouts, notifies, core resource limits, device topology,
# stream and device task abort, AI CPU function registration and device groups, with pyACL's
# formats and returns (python/pyACL/rt/rt_stream.cpp, rt_context.cpp, rt_synchronize.cpp,
# rt_notify.cpp, rt_device.cpp, rt_binary.cpp, rt_group.cpp). Kept in one block while the
# other shares are written.


# ----------------------------------------------------------------------- overflow detection

# BEGIN GENERATED "overflow detection": written by native/gen_acl.py from native/acl_functions.py


@_rt("set_stream_overflow_switch", "kI")
def set_stream_overflow_switch(stream: int, flag: int, /) -> int:
    """1 turns overflow detection on for the launches submitted to ``stream`` from now on, 0
    off (anything else 100000). A launch that overflows with it on makes the stream's next
    synchronize return 207003, and sets the device's overflow status."""
    return int(_lib.aclrtSetStreamOverflowSwitch(_vptr(stream), flag))


@_rt("get_stream_overflow_switch", "k")
def get_stream_overflow_switch(stream: int, /) -> tuple[int, int]:
    """``(flag, ret)``."""
    out = _out("uint32_t *")
    ret = _lib.aclrtGetStreamOverflowSwitch(_vptr(stream), out)
    return int(out[0]), int(ret)


@_rt("get_overflow_status", "kkk", suffix="!")
def get_overflow_status(output_addr: int, output_size: int, stream: int, /) -> int:
    """Enqueues on ``stream`` a copy of the device's overflow status, 64 bytes (``output_size``
    must be 64), into the device memory at ``output_addr``; nonzero means an overflow.
    Synchronize the stream before reading it."""
    return int(_lib.aclrtGetOverflowStatus(_vptr(output_addr), output_size, _vptr(stream)))


@_rt("reset_overflow_status", "k", suffix="!")
def reset_overflow_status(stream: int, /) -> int:
    """Enqueues on ``stream`` the clearing of the device's overflow status."""
    return int(_lib.aclrtResetOverflowStatus(_vptr(stream)))


# END GENERATED "overflow detection"


# ----------------------------------------------------------------------- operator timeouts

# BEGIN GENERATED "operator timeouts": written by native/gen_acl.py from native/acl_functions.py


@_rt("set_op_wait_timeout", "I", suffix="!")
def set_op_wait_timeout(timeout: int, /) -> int:
    """Seconds a stream waits for an event (stream_wait_event submitted from now on); 0, the
    default, waits forever. A wait that runs out fails its task: synchronize returns 107020."""
    return int(_lib.aclrtSetOpWaitTimeout(timeout))


@_rt("set_op_execute_time_out", "I", "acl.rt.set_op_execute_timeout args parse failed!")  # sic, pyACL's name
def set_op_execute_time_out(timeout: int, /) -> int:
    """Seconds a launch without a timeout attribute may run (0: the maximum), rounded up to
    the hardware's interval (get_op_timeout_interval)."""
    return int(_lib.aclrtSetOpExecuteTimeOut(timeout))


@_rt("set_op_execute_timeout_v2", "K", suffix="!")
def set_op_execute_timeout_v2(timeout: int, /) -> tuple[int, int]:
    """``(actual_timeout, ret)``: microseconds; the actual timeout is whole intervals, at most
    254 of them (0: the maximum)."""
    out = _out("uint64_t *")
    ret = _lib.aclrtSetOpExecuteTimeOutV2(timeout, out)
    return int(out[0]), int(ret)


@_rt("get_op_timeout_interval", None)
def get_op_timeout_interval() -> tuple[int, int]:
    """``(interval, ret)``: the hardware's timeout granularity in microseconds."""
    out = _out("uint64_t *")
    ret = _lib.aclrtGetOpTimeOutInterval(out)
    return int(out[0]), int(ret)


@_rt("get_op_execute_timeout", None)
def get_op_execute_timeout() -> tuple[int, int]:
    """``(timeout_ms, ret)``: what a launch without a timeout attribute gets now."""
    out = _out("uint32_t *")
    ret = _lib.aclrtGetOpExecuteTimeout(out)
    return int(out[0]), int(ret)


# END GENERATED "operator timeouts"


# ----------------------------------------------------------------------- notifies

# BEGIN GENERATED "notifies": written by native/gen_acl.py from native/acl_functions.py


@_rt("create_notify", "K")
def create_notify(flag: int, /) -> tuple[int, int]:
    """``(notify, ret)``; flag 0 (ACL_NOTIFY_DEFAULT) or 1 (ACL_NOTIFY_DEVICE_USE_ONLY)."""
    out = _out("aclrtNotify *")
    ret = _lib.aclrtCreateNotify(out, flag)
    return _addr(out[0]), int(ret)


@_rt("destroy_notify", "k")
def destroy_notify(notify: int, /) -> int:
    return int(_lib.aclrtDestroyNotify(_vptr(notify)))


@_rt("record_notify", "kk")
def record_notify(notify: int, stream: int, /) -> int:
    """Enqueues a record on ``stream``: when the stream reaches it, the notify is set."""
    return int(_lib.aclrtRecordNotify(_vptr(notify), _vptr(stream)))


@_rt("get_notify_id", "k")
def get_notify_id(notify: int, /) -> tuple[int, int]:
    out = _out("uint32_t *")
    ret = _lib.aclrtGetNotifyId(_vptr(notify), out)
    return int(out[0]), int(ret)


@_rt("notify_import_by_key", "sK")
def notify_import_by_key(key: str, flag: int, /) -> tuple[int, int]:
    """``(notify, ret)``: the notify another process exported as ``key``."""
    out = _out("aclrtNotify *")
    ret = _lib.aclrtNotifyImportByKey(out, _cstr(key), flag)
    return _addr(out[0]), int(ret)


# END GENERATED "notifies"


_U32_LIMIT = 1 << 32


@_rt("wait_and_reset_notify", "kkL")
def wait_and_reset_notify(notify: int, stream: int, timeout: int, /) -> int:
    """Enqueues a wait on ``stream``: the stream (not the caller) stops there until the notify
    is set, then clears it. ``timeout``: 0 waits forever, else seconds."""
    if timeout < 0:
        raise TypeError("timeout can't be a negative number!")
    if timeout >= _U32_LIMIT:
        raise TypeError("timeout should be less than 2**32!")
    return int(_lib.aclrtWaitAndResetNotify(_vptr(notify), _vptr(stream), timeout))


def _int_list(values: object, convert: Callable[[int], int], failure: str) -> list[int]:
    """The items of a list of ints for a pyACL list argument; any bad item raises ValueError
    with pyACL's ``failure`` text (its CHECK_NULL replaces the converter's own error)."""
    assert isinstance(values, list)
    out = []
    for item in values:
        try:
            out.append(convert(operator.index(item)))
        except (TypeError, OverflowError):
            raise ValueError(failure) from None
    return out


def _u64_item(v: int) -> int:
    if not 0 <= v < 1 << 64:  # PyLong_AsUnsignedLongLong
        raise OverflowError
    return v


def _i32_item(v: int) -> int:
    if not -(1 << 31) <= v < 1 << 31:  # GetValuesFromPyList(int32): "value overflow"
        raise OverflowError
    return v


@_rt("notify_batch_reset", "O")
def notify_batch_reset(notifies: object, /) -> int:
    """Clears every notify of the list at once (not on a stream)."""
    if not isinstance(notifies, list):
        raise ValueError("argument only support the format of list")
    handles = _int_list(notifies, _u64_item, "get notify pointers from PyList failed")
    arr = _ffi.new("aclrtNotify[]", len(handles) + 1)  # pyACL's vector has one spare slot
    for i, h in enumerate(handles):
        arr[i] = _vptr(h)
    return int(_lib.aclrtNotifyBatchReset(arr, len(handles)))


@_rt("notify_get_export_key", "kkK")
def notify_get_export_key(notify: int, length: int, flag: int, /) -> tuple[str, int]:
    """``(key, ret)``: makes ``notify`` shareable with other processes (``length`` >= 65, <
    1024). Flag 0 lets only the pids set with notify_set_import_pid import it; 2
    (ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION) any process."""
    if length >= 1024:
        raise ValueError("key len should be less than 1024")
    buf = _ffi.new("char[]", length + 1)
    ret = _lib.aclrtNotifyGetExportKey(_vptr(notify), buf, length, flag)
    return _ffi.string(buf).decode("utf-8", errors="replace"), int(ret)


@_rt("notify_set_import_pid", "kO")
def notify_set_import_pid(notify: int, pids: object, /) -> int:
    """Lets the processes ``pids`` (a list; aclrtDeviceGetBareTgid's ids) import the notify."""
    if not isinstance(pids, list):
        raise ValueError("argument 2 only support the format of list")
    values = _int_list(pids, _i32_item, "get values from PyList failed")
    arr = _ffi.new("int32_t[]", len(values) + 1)
    for i, v in enumerate(values):
        arr[i] = v
    return int(_lib.aclrtNotifySetImportPid(_vptr(notify), arr, len(values)))


# ----------------------------------------------------------------------- core resource limits

# BEGIN GENERATED "core resource limits": written by native/gen_acl.py from native/acl_functions.py


@_rt("get_device_res_limit", "iI")
def get_device_res_limit(device_id: int, res_type: int, /) -> tuple[int, int]:
    """``(value, ret)``: the process's limit of cube (0) or vector (1) cores on the device."""
    out = _out("uint32_t *")
    ret = _lib.aclrtGetDeviceResLimit(device_id, res_type, out)
    return int(out[0]), int(ret)


@_rt("set_device_res_limit", "iII")
def set_device_res_limit(device_id: int, res_type: int, value: int, /) -> int:
    return int(_lib.aclrtSetDeviceResLimit(device_id, res_type, value))


@_rt("reset_device_res_limit", "i")
def reset_device_res_limit(device_id: int, /) -> int:
    return int(_lib.aclrtResetDeviceResLimit(device_id))


@_rt("get_stream_res_limit", "ki", "acl.rt.get_stream_res_limit parse failed")  # sic: no "args"
def get_stream_res_limit(stream: int, res_type: int, /) -> tuple[int, int]:
    """``(value, ret)``: the stream's own limit, else the device's."""
    out = _out("uint32_t *")
    ret = _lib.aclrtGetStreamResLimit(_vptr(stream), _u32(res_type), out)
    return int(out[0]), int(ret)


@_rt("set_stream_res_limit", "kiI", "acl.rt.set_stream_res_limit parse failed")
def set_stream_res_limit(stream: int, res_type: int, value: int, /) -> int:
    return int(_lib.aclrtSetStreamResLimit(_vptr(stream), _u32(res_type), value))


@_rt("reset_stream_res_limit", "k", "acl.rt.reset_stream_res_limit parse failed")
def reset_stream_res_limit(stream: int, /) -> int:
    return int(_lib.aclrtResetStreamResLimit(_vptr(stream)))


@_rt("use_stream_res_in_current_thread", "k", "acl.rt.use_stream_res_in_current_thread parse failed")
def use_stream_res_in_current_thread(stream: int, /) -> int:
    return int(_lib.aclrtUseStreamResInCurrentThread(_vptr(stream)))


@_rt("unuse_stream_res_in_current_thread", "k", "acl.rt.unuse_stream_res_in_current_thread parse failed")
def unuse_stream_res_in_current_thread(stream: int, /) -> int:
    return int(_lib.aclrtUnuseStreamResInCurrentThread(_vptr(stream)))


@_rt("get_res_in_current_thread", "i", "acl.rt.get_res_in_current_thread parse failed")
def get_res_in_current_thread(res_type: int, /) -> tuple[int, int]:
    """``(value, ret)``: the limit of the stream bound to this thread, else the device's."""
    out = _out("uint32_t *")
    ret = _lib.aclrtGetResInCurrentThread(_u32(res_type), out)
    return int(out[0]), int(ret)


# END GENERATED "core resource limits"


# ----------------------------------------------------------------------- topology, abort

# BEGIN GENERATED "topology, abort": written by native/gen_acl.py from native/acl_functions.py


@_rt("stream_abort", "k")
def stream_abort(stream: int, /) -> int:
    """Kills the stream's running task and drops its queued ones; synchronizes waiting on it
    return 107023, and afterwards the stream is clean."""
    return int(_lib.aclrtStreamAbort(_vptr(stream)))


@_rt("device_task_abort", "iI")
def device_task_abort(device_id: int, timeout: int, /) -> int:
    """The same for every stream of the device (``timeout`` ms, 0: no limit); it also clears
    the stop-on-failure errors of the device's contexts."""
    return int(_lib.aclrtDeviceTaskAbort(device_id, timeout))


# END GENERATED "topology, abort"


@_rt("get_devices_topo", "II", "acl.rt.reset_device_res_limit args parse failed")  # sic, pyACL's text
def get_devices_topo(device_id: int, other_device_id: int, /) -> tuple[int, int]:
    """``(value, ret)``: an ACL_RT_DEVS_TOPOLOGY_* bit. pyACL builds the uint64 with "I": its
    low 32 bits."""
    out = _out("uint64_t *")
    ret = _lib.aclrtGetDevicesTopo(device_id, other_device_id, out)
    return _as_u32(int(out[0])), int(ret)


# ----------------------------------------------------------------------- AI CPU functions


@_rt("register_cpu_func", "kss", suffix="!")
def register_cpu_func(bin_handle: int, func_name: str, kernel_name: str, /) -> tuple[int, int]:
    """``(func_handle, ret)``: registers the AI CPU kernel ``kernel_name`` (op type) whose code
    is ``func_name`` in a binary loaded with ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE."""
    if not func_name or not kernel_name:
        raise ValueError("argument 2 or 3 must not be empty")
    out = _out("aclrtFuncHandle *")
    ret = _lib.aclrtRegisterCpuFunc(_vptr(bin_handle), _cstr(func_name), _cstr(kernel_name), out)
    return _addr(out[0]), int(ret)


# ----------------------------------------------------------------------- device groups
#
# The simulated device (an A2) has no groups: every call that reaches the runtime is 207000.

# BEGIN GENERATED "device groups": written by native/gen_acl.py from native/acl_functions.py


# pyACL parses it with "I" and passes it as int32_t.
@_rt("set_group", "I")
def set_group(group_id: int, /) -> int:
    return int(_lib.aclrtSetGroup(_as_i32(group_id)))


# END GENERATED "device groups"


@_rt("get_group_count", "I")  # sic: pyACL parses (and ignores) one argument
def get_group_count(count: int, /) -> tuple[int, int]:
    """``(count, ret)``. pyACL requires one integer argument, which it overwrites."""
    out = _out("uint32_t *")
    out[0] = count
    ret = _lib.aclrtGetGroupCount(out)
    return int(out[0]), int(ret)


@_rt("create_group_info", None)
def create_group_info() -> int:
    """The group info array's address alone (no ret); 0 when the device has no groups."""
    return _addr(_lib.aclrtCreateGroupInfo())


@_rt("destroy_group_info", "k")
def destroy_group_info(group_info: int, /) -> int:
    return int(_lib.aclrtDestroyGroupInfo(_ffi.cast("aclrtGroupInfo *", group_info)))


@_rt("get_all_group_info", "k")
def get_all_group_info(group_info: int, /) -> int:
    return int(_lib.aclrtGetAllGroupInfo(_ffi.cast("aclrtGroupInfo *", group_info)))


_GROUP_VALUE_LEN = 0x100


@_rt("get_group_info_detail", "kii")
def get_group_info_detail(group_info: int, group_index: int, attr: int, /) -> tuple[list[int], int]:
    """``(values, ret)``; a failure (or an empty value) raises RuntimeError, as pyACL does.
    pyACL makes the list as long as the value's size in bytes, one int32 element each."""
    values = _ffi.new("int32_t[]", _GROUP_VALUE_LEN)
    size = _out("size_t *")
    ret = int(
        _lib.aclrtGetGroupInfoDetail(
            _ffi.cast("aclrtGroupInfo *", group_info), group_index, _u32(attr), values, _GROUP_VALUE_LEN, size
        )
    )
    if ret != 0 or size[0] == 0:
        raise RuntimeError("aclrtGetGroupInfoDetail failed")
    return [int(values[i]) for i in range(min(int(size[0]), _GROUP_VALUE_LEN))], ret


# ----------------------------------------------------------------------- not provided
#
# Every function of pyACL's acl.rt table (python/pyACL/rt/pyrt_methods.cpp) is provided. A name
# listed here, with its reason, would be an attribute whose call raises NotImplementedError.

NOT_PROVIDED: dict[str, str] = {}


def __getattr__(name: str) -> Any:
    reason = NOT_PROVIDED.get(name)
    if reason is None:
        raise AttributeError(f"module 'acl.rt' has no attribute {name!r}")
    return _not_implemented(f"acl.rt.{name}", reason)
