"""``acl.rt``: pyACL's runtime functions -- devices, contexts, streams, memory, events, host
callbacks, binaries, kernel arguments and launches.

Where it sits: the synchronous, pyACL-compatible face of the ACL runtime. Every function is a
thin wrapper over one ACL C call made through :mod:`aiocann._lib` (the simulator, or a real
CANN runtime loaded into the same function table), with pyACL's name, argument forms and
returns (reference §13):

* handles and addresses are ``int`` (``0`` is NULL; stream ``0`` is the default stream);
* a call with outputs returns a tuple with the ACL return code last, ``(value, ret)``; a call
  without outputs returns the bare ``ret``;
* runtime failures are return codes, never exceptions; only arguments that pyACL itself could
  not parse raise (``TypeError``, or ``ValueError`` for a cfg/options that is not a list).

The GIL: the binding is a cffi API-mode extension, whose generated wrappers release the GIL
around every C call. So synchronize, process_report and every other blocking call lets other
Python threads run -- in particular the thread that has to run a host callback while another
thread waits in ``synchronize_stream`` for the stream that callback holds.
"""

from __future__ import annotations

import itertools
import logging
import operator
import threading
import types
from collections.abc import Callable
from typing import Any

from .._lib import ffi, forget_context, lib
from ._convert import addr, cstr, i32, u32, u64, vptr

__all__ = [
    "binary_get_function",
    "binary_load_from_data",
    "binary_load_from_file",
    "binary_unload",
    "create_context",
    "create_event",
    "create_event_with_flag",
    "create_stream",
    "create_stream_with_config",
    "destroy_context",
    "destroy_event",
    "destroy_stream",
    "event_elapsed_time",
    "event_get_timestamp",
    "free",
    "free_host",
    "get_context",
    "get_device",
    "get_device_count",
    "get_mem_info",
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
    "malloc_host",
    "memcpy",
    "memcpy_async",
    "memset",
    "memset_async",
    "process_report",
    "query_event_status",
    "record_event",
    "reset_device",
    "reset_device_force",
    "reset_event",
    "set_context",
    "set_device",
    "stream_query",
    "stream_wait_event",
    "subscribe_report",
    "synchronize_device",
    "synchronize_event",
    "synchronize_event_with_timeout",
    "synchronize_stream",
    "synchronize_stream_with_timeout",
    "unsubscribe_report",
]

_log = logging.getLogger("aiocann.acl")


def _api(name: str) -> str:
    return f"acl.rt.{name}"


# Functions that pyACL declares METH_VARARGS but whose C wrapper never looks at its arguments
# (create_stream, get_device, ...) accept and ignore any positional arguments there; they do
# here too (`*_ignored`), so a program that passes one by mistake still runs unchanged.

# ----------------------------------------------------------------------- device and context


# Calls that change the thread's current context call forget_context() first: the async layer
# caches the context it bound per thread, and may run on this thread too.


def set_device(device_id: int, /) -> int:
    forget_context()
    return int(lib.aclrtSetDevice(i32(device_id, _api("set_device"))))


def reset_device(device_id: int, /) -> int:
    forget_context()
    return int(lib.aclrtResetDevice(i32(device_id, _api("reset_device"))))


def reset_device_force(device_id: int, /) -> int:
    forget_context()
    return int(lib.aclrtResetDeviceForce(i32(device_id, _api("reset_device_force"))))


def get_device(*_ignored: object) -> tuple[int, int]:
    out = ffi.new("int32_t *")
    ret = lib.aclrtGetDevice(out)
    return int(out[0]), int(ret)


def get_device_count(*_ignored: object) -> tuple[int, int]:
    out = ffi.new("uint32_t *")
    ret = lib.aclrtGetDeviceCount(out)
    return int(out[0]), int(ret)


def synchronize_device(*_ignored: object) -> int:
    return int(lib.aclrtSynchronizeDevice())


def create_context(device_id: int, /) -> tuple[int, int]:
    forget_context()
    dev = i32(device_id, _api("create_context"))
    out = ffi.new("aclrtContext *")
    ret = lib.aclrtCreateContext(out, dev)
    return addr(out[0]), int(ret)


def destroy_context(context: int, /) -> int:
    forget_context()
    return int(lib.aclrtDestroyContext(vptr(context, _api("destroy_context"))))


def set_context(context: int, /) -> int:
    """aclrtSetCurrentContext."""
    forget_context()
    return int(lib.aclrtSetCurrentContext(vptr(context, _api("set_context"))))


def get_context(*_ignored: object) -> tuple[int, int]:
    """aclrtGetCurrentContext."""
    out = ffi.new("aclrtContext *")
    ret = lib.aclrtGetCurrentContext(out)
    return addr(out[0]), int(ret)


# ----------------------------------------------------------------------- streams


def create_stream(*_ignored: object) -> tuple[int, int]:
    out = ffi.new("aclrtStream *")
    ret = lib.aclrtCreateStream(out)
    return addr(out[0]), int(ret)


def create_stream_with_config(priority: int, flag: int, /) -> tuple[int, int]:
    api = _api("create_stream_with_config")
    # pyACL parses both with "i" (int32) and passes them on as uint32_t.
    prio, flg = i32(priority, api) & 0xFFFF_FFFF, i32(flag, api) & 0xFFFF_FFFF
    out = ffi.new("aclrtStream *")
    ret = lib.aclrtCreateStreamWithConfig(out, prio, flg)
    return addr(out[0]), int(ret)


def destroy_stream(stream: int, /) -> int:
    return int(lib.aclrtDestroyStream(vptr(stream, _api("destroy_stream"))))


def synchronize_stream(stream: int, /) -> int:
    return int(lib.aclrtSynchronizeStream(vptr(stream, _api("synchronize_stream"))))


def synchronize_stream_with_timeout(stream: int, timeout: int, /) -> int:
    api = _api("synchronize_stream_with_timeout")
    return int(lib.aclrtSynchronizeStreamWithTimeout(vptr(stream, api), i32(timeout, api)))


def stream_query(stream: int, /) -> tuple[int, int]:
    out = ffi.new("aclrtStreamStatus *", lib.ACL_STREAM_STATUS_RESERVED)
    ret = lib.aclrtStreamQuery(vptr(stream, _api("stream_query")), out)
    return int(out[0]), int(ret)


def stream_wait_event(stream: int, event: int, /) -> int:
    api = _api("stream_wait_event")
    return int(lib.aclrtStreamWaitEvent(vptr(stream, api), vptr(event, api)))


# ----------------------------------------------------------------------- memory


def malloc(size: int, policy: int, /) -> tuple[int, int]:
    api = _api("malloc")
    nbytes, pol = u64(size, api), i32(policy, api)
    out = ffi.new("void **")
    ret = lib.aclrtMalloc(out, nbytes, pol)
    return addr(out[0]), int(ret)


def free(dev_ptr: int, /) -> int:
    return int(lib.aclrtFree(vptr(dev_ptr, _api("free"))))


def malloc_host(size: int, /) -> tuple[int, int]:
    nbytes = u64(size, _api("malloc_host"))
    out = ffi.new("void **")
    ret = lib.aclrtMallocHost(out, nbytes)
    return addr(out[0]), int(ret)


def free_host(host_ptr: int, /) -> int:
    return int(lib.aclrtFreeHost(vptr(host_ptr, _api("free_host"))))


def memcpy(dst: int, dest_max: int, src: int, count: int, kind: int, /) -> int:
    api = _api("memcpy")
    return int(
        lib.aclrtMemcpy(vptr(dst, api), u64(dest_max, api), vptr(src, api), u64(count, api), i32(kind, api))
    )


def memcpy_async(dst: int, dest_max: int, src: int, count: int, kind: int, stream: int, /) -> int:
    api = _api("memcpy_async")
    return int(
        lib.aclrtMemcpyAsync(
            vptr(dst, api),
            u64(dest_max, api),
            vptr(src, api),
            u64(count, api),
            i32(kind, api),
            vptr(stream, api),
        )
    )


def memset(dev_ptr: int, max_count: int, value: int, count: int, /) -> int:
    api = _api("memset")
    return int(lib.aclrtMemset(vptr(dev_ptr, api), u64(max_count, api), i32(value, api), u64(count, api)))


def memset_async(dev_ptr: int, max_count: int, value: int, count: int, stream: int, /) -> int:
    api = _api("memset_async")
    return int(
        lib.aclrtMemsetAsync(
            vptr(dev_ptr, api), u64(max_count, api), i32(value, api), u64(count, api), vptr(stream, api)
        )
    )


def get_mem_info(attr: int, /) -> tuple[int, int, int]:
    """``(free, total, ret)`` for an aclrtMemAttr, on the current context's device."""
    kind = i32(attr, _api("get_mem_info"))
    free_, total = ffi.new("size_t *"), ffi.new("size_t *")
    ret = lib.aclrtGetMemInfo(kind, free_, total)
    return int(free_[0]), int(total[0]), int(ret)


# ----------------------------------------------------------------------- events


def create_event(*_ignored: object) -> tuple[int, int]:
    out = ffi.new("aclrtEvent *")
    ret = lib.aclrtCreateEvent(out)
    return addr(out[0]), int(ret)


def create_event_with_flag(flag: int, /) -> tuple[int, int]:
    flg = u32(flag, _api("create_event_with_flag"))
    out = ffi.new("aclrtEvent *")
    ret = lib.aclrtCreateEventWithFlag(out, flg)
    return addr(out[0]), int(ret)


def destroy_event(event: int, /) -> int:
    return int(lib.aclrtDestroyEvent(vptr(event, _api("destroy_event"))))


def record_event(event: int, stream: int, /) -> int:
    api = _api("record_event")
    return int(lib.aclrtRecordEvent(vptr(event, api), vptr(stream, api)))


def reset_event(event: int, stream: int, /) -> int:
    api = _api("reset_event")
    return int(lib.aclrtResetEvent(vptr(event, api), vptr(stream, api)))


def query_event_status(event: int, /) -> tuple[int, int]:
    """``(status, ret)``; status is an aclrtEventRecordedStatus (1 = COMPLETE, 0 = NOT_READY)."""
    out = ffi.new("aclrtEventRecordedStatus *", lib.ACL_EVENT_RECORDED_STATUS_NOT_READY)
    ret = lib.aclrtQueryEventStatus(vptr(event, _api("query_event_status")), out)
    return int(out[0]), int(ret)


def synchronize_event(event: int, /) -> int:
    return int(lib.aclrtSynchronizeEvent(vptr(event, _api("synchronize_event"))))


def synchronize_event_with_timeout(event: int, timeout: int, /) -> int:
    api = _api("synchronize_event_with_timeout")
    return int(lib.aclrtSynchronizeEventWithTimeout(vptr(event, api), i32(timeout, api)))


def event_elapsed_time(start: int, end: int, /) -> tuple[float, int]:
    """``(ms, ret)``: milliseconds between two recorded events, as a float."""
    api = _api("event_elapsed_time")
    out = ffi.new("float *")
    ret = lib.aclrtEventElapsedTime(out, vptr(start, api), vptr(end, api))
    return float(out[0]), int(ret)


def event_get_timestamp(event: int, /) -> tuple[int, int]:
    out = ffi.new("uint64_t *")
    ret = lib.aclrtEventGetTimestamp(vptr(event, _api("event_get_timestamp")), out)
    return int(out[0]), int(ret)


# ----------------------------------------------------------------------- host callbacks
#
# How a Python callback crosses into C and back. aclrtLaunchCallback takes a C function and a
# void* userData; the runtime later calls fn(userData) from inside aclrtProcessReport, in
# whichever thread called process_report. One C trampoline (`_trampoline`, the cffi
# `extern "Python"` function aiocann_acl_callback declared in native/aiocann_python.h, so no
# libffi closure is needed) serves every launch: the userData it receives is not a pointer but
# a token, the key of the (fn, user_data) pair in `_pending`. Tokens rather than
# ffi.new_handle because a stale token (its record dropped by acl.finalize) is harmless to
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

_pending_lock = threading.Lock()
_pending: dict[int, tuple[Callable[[Any], object], object]] = {}
_tokens = itertools.count(1)


def _trampoline_error(
    exc_type: type[BaseException], exc_value: BaseException, tb: types.TracebackType | None
) -> None:
    _log.error(
        "acl.rt.launch_callback: internal error in the callback trampoline",
        exc_info=(exc_type, exc_value, tb),
    )


@ffi.def_extern(name="aiocann_acl_callback", onerror=_trampoline_error)  # type: ignore[untyped-decorator]
def _run_callback(user_data: Any) -> None:
    token = int(ffi.cast("uintptr_t", user_data))
    with _pending_lock:
        record = _pending.pop(token, None)
    if record is None:
        return  # dropped by acl.finalize: the runtime delivered a report it no longer owed
    fn, data = record
    del record
    try:
        fn(data)
    except BaseException:  # noqa: BLE001 -- nothing may escape into C; pyACL swallows it too
        _log.error(
            "acl.rt.launch_callback: the callback %r raised; the exception is dropped", fn, exc_info=True
        )


_trampoline = lib.aiocann_acl_callback


def _drop_pending_callbacks() -> None:
    """Called by acl.finalize: the runtime is gone, so are the callbacks it still owed."""
    with _pending_lock:
        _pending.clear()


def _pending_callback_count() -> int:
    """How many launched callbacks have not run yet (for tests and diagnostics)."""
    with _pending_lock:
        return len(_pending)


def launch_callback(fn: Callable[[Any], object], user_data: object, block_type: int, stream: int, /) -> int:
    """Enqueue ``fn(user_data)`` on ``stream``; it runs in the thread that is inside
    ``process_report`` for that stream. ``block_type`` 1 holds the stream until ``fn`` returns."""
    api = _api("launch_callback")
    block, strm = i32(block_type, api), vptr(stream, api)
    if not callable(fn):
        raise TypeError("parameter must be callable")
    token = next(_tokens)
    with _pending_lock:
        _pending[token] = (fn, user_data)
    ret = int(lib.aclrtLaunchCallback(_trampoline, ffi.cast("void *", token), block, strm))
    if ret != 0:
        with _pending_lock:  # never enqueued: the runtime will not call back for this token
            _pending.pop(token, None)
    return ret


def subscribe_report(thread_id: int, stream: int, /) -> int:
    """Bind the thread whose ``pthread_self()`` is ``thread_id`` (``threading.get_ident()``,
    ``Thread.ident``, or the id from ``acl.util.start_thread``) to ``stream``'s callbacks."""
    api = _api("subscribe_report")
    return int(lib.aclrtSubscribeReport(u64(thread_id, api), vptr(stream, api)))


def unsubscribe_report(thread_id: int, stream: int, /) -> int:
    api = _api("unsubscribe_report")
    return int(lib.aclrtUnSubscribeReport(u64(thread_id, api), vptr(stream, api)))


def process_report(timeout: int, /) -> int:
    """Wait up to ``timeout`` ms (-1: forever) for callbacks addressed to the calling thread
    and run them here. The GIL is released while waiting."""
    return int(lib.aclrtProcessReport(i32(timeout, _api("process_report"))))


# ----------------------------------------------------------------------- binaries


def _load_options(options: object, api: str) -> tuple[Any, Any]:
    """pyACL's options list -> (aclrtBinaryLoadOptions* or NULL, the array to keep alive).

    As in pyACL: a non-list (None included) raises ValueError and a non-dict entry TypeError;
    inside an entry, "type" and "value" are 0 when missing or not integers; a negative "value"
    raises ValueError; "value" is stored as uint32 in ``isLazyLoad``, which overlays ``magic``
    and ``cpuKernelMode`` in the union. ``[]`` passes NULL.
    """
    if not isinstance(options, list):
        raise ValueError(f"{api}: options only support the format of list")
    if not options:
        return ffi.NULL, None
    arr = ffi.new("aclrtBinaryLoadOption[]", len(options))  # zero-filled: rsv stays 0
    for i, entry in enumerate(options):
        if not isinstance(entry, dict):
            raise TypeError("the bin_option argument is not dict")
        arr[i].type = _dict_int(entry, "type", signed=True)
        arr[i].value.isLazyLoad = _dict_int(entry, "value", signed=False)
    opts = ffi.new("aclrtBinaryLoadOptions *")
    opts.options = arr  # a struct field does not keep arr alive: the caller holds it
    opts.numOpt = len(options)
    return opts, arr


def _dict_int(entry: dict[Any, Any], key: str, *, signed: bool) -> int:
    """pyACL's GetValueFromPyDict for the int ("type", "id") or uint32 ("value") field of an
    options or cfg entry."""
    value: Any = entry.get(key)
    try:
        v = operator.index(value)
    except TypeError:
        return 0  # pyACL leaves a missing or non-integer field at 0
    if signed:
        if not -(1 << 63) <= v < (1 << 63):
            raise ValueError("PyLong_AsLong failed")
        v &= 0xFFFF_FFFF  # static_cast<int>: the low 32 bits
        return v - (1 << 32) if v >= (1 << 31) else v
    if not 0 <= v < (1 << 64):
        raise ValueError("PyLong_AsUnsignedLong failed")
    return v & 0xFFFF_FFFF


def binary_load_from_file(bin_path: str, options: list[dict[str, int]], /) -> tuple[int, int]:
    api = _api("binary_load_from_file")
    path = cstr(bin_path, api)
    opts, keep = _load_options(options, api)
    out = ffi.new("aclrtBinHandle *")
    ret = lib.aclrtBinaryLoadFromFile(path, opts, out)
    del keep
    return addr(out[0]), int(ret)


def binary_load_from_data(data_ptr: int, length: int, options: list[dict[str, int]], /) -> tuple[int, int]:
    api = _api("binary_load_from_data")
    data, size = vptr(data_ptr, api), u64(length, api)
    opts, keep = _load_options(options, api)
    out = ffi.new("aclrtBinHandle *")
    ret = lib.aclrtBinaryLoadFromData(data, size, opts, out)
    del keep
    return addr(out[0]), int(ret)


def binary_get_function(bin_handle: int, kernel_name: str, /) -> tuple[int, int]:
    api = _api("binary_get_function")
    handle, name = vptr(bin_handle, api), cstr(kernel_name, api)
    out = ffi.new("aclrtFuncHandle *")
    ret = lib.aclrtBinaryGetFunction(handle, name, out)
    return addr(out[0]), int(ret)


def binary_unload(bin_handle: int, /) -> int:
    """aclrtBinaryUnLoad."""
    return int(lib.aclrtBinaryUnLoad(vptr(bin_handle, _api("binary_unload"))))


# ----------------------------------------------------------------------- kernel arguments
#
# Value parameters are host *addresses* (ints), as in pyACL: the caller owns the bytes (a
# ctypes value, a numpy array, a bytes object via acl.util.bytes_to_ptr) and the runtime copies
# them during the call, so nothing needs to be kept alive here. The user-memory handle and
# buffer of kernel_args_init_by_user_mem belong to the caller and must outlive every launch
# that uses them (the runtime copies the args block at launch, not before).


def kernel_args_init(func_handle: int, /) -> tuple[int, int]:
    out = ffi.new("aclrtArgsHandle *")
    ret = lib.aclrtKernelArgsInit(vptr(func_handle, _api("kernel_args_init")), out)
    return addr(out[0]), int(ret)


def kernel_args_init_by_user_mem(
    func_handle: int, args_handle: int, user_host_mem: int, actual_args_size: int, /
) -> int:
    api = _api("kernel_args_init_by_user_mem")
    return int(
        lib.aclrtKernelArgsInitByUserMem(
            vptr(func_handle, api),
            vptr(args_handle, api),
            vptr(user_host_mem, api),
            u64(actual_args_size, api),
        )
    )


def kernel_args_get_mem_size(func_handle: int, user_args_size: int, /) -> tuple[int, int]:
    api = _api("kernel_args_get_mem_size")
    out = ffi.new("size_t *")
    ret = lib.aclrtKernelArgsGetMemSize(vptr(func_handle, api), u64(user_args_size, api), out)
    return int(out[0]), int(ret)


def kernel_args_get_handle_mem_size(func_handle: int, /) -> tuple[int, int]:
    out = ffi.new("size_t *")
    ret = lib.aclrtKernelArgsGetHandleMemSize(vptr(func_handle, _api("kernel_args_get_handle_mem_size")), out)
    return int(out[0]), int(ret)


def kernel_args_append(args_handle: int, param: int, param_size: int, /) -> tuple[int, int]:
    """Append ``param_size`` bytes read from the host address ``param``; ``(param_handle, ret)``."""
    api = _api("kernel_args_append")
    out = ffi.new("aclrtParamHandle *")
    ret = lib.aclrtKernelArgsAppend(vptr(args_handle, api), vptr(param, api), u64(param_size, api), out)
    return addr(out[0]), int(ret)


def kernel_args_append_place_holder(args_handle: int, /) -> tuple[int, int]:
    out = ffi.new("aclrtParamHandle *")
    ret = lib.aclrtKernelArgsAppendPlaceHolder(
        vptr(args_handle, _api("kernel_args_append_place_holder")), out
    )
    return addr(out[0]), int(ret)


def kernel_args_get_place_holder_buffer(
    args_handle: int, param_handle: int, data_size: int, /
) -> tuple[int, int]:
    """``(buffer_addr, ret)``: host memory, owned by the args handle, for the placeholder's data."""
    api = _api("kernel_args_get_place_holder_buffer")
    out = ffi.new("void **")
    ret = lib.aclrtKernelArgsGetPlaceHolderBuffer(
        vptr(args_handle, api), vptr(param_handle, api), u64(data_size, api), out
    )
    return addr(out[0]), int(ret)


def kernel_args_para_update(args_handle: int, param_handle: int, param: int, param_size: int, /) -> int:
    api = _api("kernel_args_para_update")
    return int(
        lib.aclrtKernelArgsParaUpdate(
            vptr(args_handle, api), vptr(param_handle, api), vptr(param, api), u64(param_size, api)
        )
    )


def kernel_args_finalize(args_handle: int, /) -> int:
    return int(lib.aclrtKernelArgsFinalize(vptr(args_handle, _api("kernel_args_finalize"))))


# ----------------------------------------------------------------------- launch


def _launch_cfg(cfg: object, api: str) -> tuple[Any, Any]:
    """pyACL's cfg list -> (aclrtLaunchKernelCfg* or NULL, the attrs array to keep alive).

    Same rules as the load options: a non-list raises ValueError, a non-dict entry TypeError,
    "id"/"value" default to 0; "value" is stored as uint32 in ``blockDimOffset``, which on a
    little-endian host also fills the uint8/uint16 members (schemMode, timeout, ...).
    """
    if not isinstance(cfg, list):
        raise ValueError(f"{api}: cfg only support the format of list")
    if not cfg:
        return ffi.NULL, None
    attrs = ffi.new("aclrtLaunchKernelAttr[]", len(cfg))  # zero-filled: rsv stays 0
    for i, entry in enumerate(cfg):
        if not isinstance(entry, dict):
            raise TypeError("the cfg argument is not dict")
        attrs[i].id = _dict_int(entry, "id", signed=True)
        attrs[i].value.blockDimOffset = _dict_int(entry, "value", signed=False)
    c = ffi.new("aclrtLaunchKernelCfg *")
    c.attrs = attrs
    c.numAttrs = len(cfg)
    return c, attrs


def launch_kernel_with_config(
    func_handle: int,
    num_blocks: int,
    stream: int,
    cfg: list[dict[str, int]],
    args_handle: int,
    reserve: int,
    /,
) -> int:
    api = _api("launch_kernel_with_config")
    func, blocks, strm = vptr(func_handle, api), u32(num_blocks, api), vptr(stream, api)
    handle, rsv = vptr(args_handle, api), vptr(reserve, api)
    c, attrs = _launch_cfg(cfg, api)
    ret = lib.aclrtLaunchKernelWithConfig(func, blocks, strm, c, handle, rsv)
    del attrs  # the runtime has read the attributes by now
    return int(ret)


def launch_kernel(func_handle: int, block_dim: int, args_data: int, args_size: int, stream: int, /) -> int:
    """aclrtLaunchKernel: ``args_data`` is *device* memory holding the packed arguments."""
    api = _api("launch_kernel")
    return int(
        lib.aclrtLaunchKernel(
            vptr(func_handle, api),
            u32(block_dim, api),
            vptr(args_data, api),
            u64(args_size, api),
            vptr(stream, api),
        )
    )
