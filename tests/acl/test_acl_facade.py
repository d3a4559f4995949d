"""aiocann.acl, function by function, against the pyACL contract (reference §13): names and
layout, int handles, ``(value, ret)`` returns with ret last, the runtime's code for each
misuse, and the TypeError/ValueError pyACL raises for arguments it cannot parse."""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest
from pyacl_support import (
    ACL_EVENT_SYNC,
    ACL_EVENT_TIME_LINE,
    ACL_HBM_MEM,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD,
    ACL_RT_BINARY_LOAD_OPT_MAGIC,
    ACL_RT_BINARY_MAGIC_ELF_AICORE,
    ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE,
    INVALID_FILE,
    INVALID_PARAM,
    REPEAT_FINALIZE,
    REPEAT_INITIALIZE,
    RT_CONTEXT_NULL,
    RT_EVENT_SYNC_TIMEOUT,
    RT_EVENT_TIMESTAMP_REVERSAL,
    RT_FEATURE_NOT_SUPPORT,
    RT_FILE_OPEN,
    RT_INVALID_DEVICEID,
    RT_INVALID_HANDLE,
    RT_KERNEL_LOOKUP,
    RT_PARAM_INVALID,
    RT_STREAM_SYNC_TIMEOUT,
    SUCCESS,
    TILING,
    append_ptr,
    append_value,
    dev_alloc,
    from_device,
    in_thread,
    load_function,
    ok,
    to_device,
    vector_add_args,
    wait_us_args,
)

import aiocann.acl as acl

N = 4096
BLOCKS = 4

# Every wrapper the simulator's runtime backs, by module (reference §13's table, restricted to
# what native/include/acl/acl_rt.h declares).
RT_NAMES = """
    set_device reset_device reset_device_force get_device get_device_count synchronize_device
    create_context destroy_context set_context get_context
    create_stream create_stream_with_config destroy_stream synchronize_stream
    synchronize_stream_with_timeout stream_query stream_wait_event
    malloc free malloc_host free_host memcpy memcpy_async memset memset_async get_mem_info
    create_event create_event_with_flag destroy_event record_event reset_event query_event_status
    synchronize_event synchronize_event_with_timeout event_elapsed_time event_get_timestamp
    subscribe_report unsubscribe_report process_report launch_callback
    binary_load_from_file binary_load_from_data binary_get_function binary_unload
    kernel_args_init kernel_args_init_by_user_mem kernel_args_get_mem_size
    kernel_args_get_handle_mem_size kernel_args_append kernel_args_append_place_holder
    kernel_args_get_place_holder_buffer kernel_args_para_update kernel_args_finalize
    launch_kernel_with_config launch_kernel
""".split()
UTIL_NAMES = """start_thread stop_thread bytes_to_ptr ptr_to_bytes numpy_to_ptr numpy_contiguous_to_ptr
    ptr_to_numpy""".split()


@pytest.fixture
def vector_add(device: int, vector_add_path: object):
    binary, func = load_function(vector_add_path, "add_custom")
    yield func
    acl.rt.binary_unload(binary)


@pytest.fixture
def wait_us(device: int, test_kernels_path: object):
    binary, func = load_function(test_kernels_path, "wait_us")
    yield func
    acl.rt.binary_unload(binary)


def launch_wait(func: int, stream: int, usec: int) -> int:
    """Start wait_us on one block (it sleeps usec, then writes 1); returns its output buffer."""
    out = dev_alloc(64)
    args = wait_us_args(func, out, usec)
    ok(acl.rt.launch_kernel_with_config(func, 1, stream, [], args, 0))
    return out


# ----------------------------------------------------------------------- layout


def test_module_layout_matches_pyacl():
    assert set(RT_NAMES) <= set(acl.rt.__all__)
    assert set(UTIL_NAMES) <= set(acl.util.__all__)
    for name in acl.rt.__all__:
        assert callable(getattr(acl.rt, name)), name
    for name in acl.util.__all__:
        assert callable(getattr(acl.util, name)), name
    for name in ("init", "finalize", "get_recent_err_msg", "get_version"):
        assert callable(getattr(acl, name))
    # pyACL's functions are positional-only (METH_VARARGS): keywords are refused.
    with pytest.raises(TypeError):
        acl.rt.malloc(size=64, policy=0)


# ----------------------------------------------------------------------- init, version, errors


def test_init_finalize_codes():
    assert acl.init() in (SUCCESS, REPEAT_INITIALIZE)
    assert acl.init() == REPEAT_INITIALIZE
    assert acl.finalize() == SUCCESS
    assert acl.finalize() == REPEAT_FINALIZE
    assert acl.init("/nonexistent/acl.json") == INVALID_FILE
    with pytest.raises(TypeError):
        acl.init(None)  # pyACL parses "|s": an optional str, not None
    with pytest.raises(TypeError):
        acl.init(1)
    assert acl.init() == SUCCESS
    assert acl.finalize() == SUCCESS


def test_init_with_config_file(tmp_path):
    cfg = tmp_path / "acl.json"
    cfg.write_text("{}")
    assert acl.init(str(cfg)) == SUCCESS
    assert acl.finalize() == SUCCESS


def test_get_version(runtime):
    assert acl.get_version() == (1, 17, 0, SUCCESS)


def test_recent_error_message(runtime):
    acl.get_recent_err_msg()  # start empty
    assert acl.get_recent_err_msg() is None
    assert acl.rt.set_device(99) == RT_INVALID_DEVICEID
    msg = acl.get_recent_err_msg()
    assert isinstance(msg, str) and "aclrtSetDevice" in msg and "99" in msg
    assert acl.get_recent_err_msg() is None  # reading clears it


# ----------------------------------------------------------------------- device and context


def test_device_and_context(runtime):
    assert acl.rt.get_device_count() == (8, SUCCESS)  # the default machine: a 910B server
    # A fresh thread has no device and no current context.
    assert in_thread(acl.rt.get_device) == (0, RT_CONTEXT_NULL)
    assert in_thread(acl.rt.get_context) == (0, RT_CONTEXT_NULL)

    assert acl.rt.set_device(99) == RT_INVALID_DEVICEID
    assert acl.rt.reset_device(99) == RT_INVALID_DEVICEID
    ok(acl.rt.set_device(0))
    assert acl.rt.get_device() == (0, SUCCESS)
    default_ctx = ok(acl.rt.get_context())
    assert type(default_ctx) is int and default_ctx != 0

    ctx = ok(acl.rt.create_context(1))  # becomes current
    assert type(ctx) is int and ctx not in (0, default_ctx)
    assert acl.rt.get_context() == (ctx, SUCCESS)
    assert acl.rt.get_device() == (1, SUCCESS)
    ok(acl.rt.set_context(default_ctx))
    assert acl.rt.get_device() == (0, SUCCESS)
    assert acl.rt.synchronize_device() == SUCCESS
    ok(acl.rt.destroy_context(ctx))
    assert acl.rt.destroy_context(ctx) == RT_INVALID_HANDLE  # stale
    assert acl.rt.set_context(ctx) == RT_INVALID_HANDLE
    assert acl.rt.destroy_context(0) == INVALID_PARAM
    assert acl.rt.create_context(99) == (0, RT_INVALID_DEVICEID)

    ok(acl.rt.set_device(1))
    ok(acl.rt.set_device(1))
    assert acl.rt.reset_device_force(1) == SUCCESS  # drops both references at once
    ok(acl.rt.set_context(default_ctx))
    assert acl.rt.reset_device(0) == SUCCESS


# ----------------------------------------------------------------------- streams


def test_stream_lifecycle(device):
    s = ok(acl.rt.create_stream())
    assert type(s) is int and s != 0
    s2 = ok(acl.rt.create_stream_with_config(0, 0x1 | 0x2))  # FAST_LAUNCH | FAST_SYNC
    assert acl.rt.stream_query(s) == (0, SUCCESS)  # ACL_STREAM_STATUS_COMPLETE
    assert acl.rt.synchronize_stream(s) == SUCCESS
    assert acl.rt.synchronize_stream(0) == SUCCESS  # 0: the default stream
    assert acl.rt.synchronize_stream_with_timeout(s, -1) == SUCCESS
    assert acl.rt.synchronize_stream_with_timeout(s, 10) == SUCCESS
    assert acl.rt.synchronize_stream_with_timeout(s, -2) == RT_PARAM_INVALID
    ok(acl.rt.destroy_stream(s2))
    ok(acl.rt.destroy_stream(s))
    assert acl.rt.destroy_stream(s) == RT_INVALID_HANDLE
    assert acl.rt.synchronize_stream(s) == RT_INVALID_HANDLE
    assert acl.rt.stream_query(s)[1] == RT_INVALID_HANDLE


def test_stream_query_and_timeout_while_busy(stream, wait_us):
    out = launch_wait(wait_us, stream, 300_000)
    assert acl.rt.stream_query(stream) == (1, SUCCESS)  # ACL_STREAM_STATUS_NOT_READY
    assert acl.rt.synchronize_stream_with_timeout(stream, 20) == RT_STREAM_SYNC_TIMEOUT
    assert acl.rt.synchronize_stream(stream) == SUCCESS
    assert acl.rt.stream_query(stream) == (0, SUCCESS)
    assert from_device(out, 1, np.int32)[0] == 1
    ok(acl.rt.free(out))


# ----------------------------------------------------------------------- memory


def test_memory_alloc_copy_set(device):
    assert acl.rt.malloc(0, 0) == (0, INVALID_PARAM)
    assert acl.rt.malloc_host(0) == (0, INVALID_PARAM)
    assert acl.rt.free(0) == INVALID_PARAM
    assert acl.rt.free_host(0) == INVALID_PARAM
    assert acl.rt.get_mem_info(99) == (0, 0, INVALID_PARAM)

    free0, total, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
    assert ret == SUCCESS and 0 < free0 <= total
    a = dev_alloc(1000)
    assert type(a) is int and a % 64 == 0
    free1, total1, _ = acl.rt.get_mem_info(ACL_HBM_MEM)
    assert total1 == total and free0 - free1 == 1024 + 32  # ACL rounding: roundup(size, 32) + 32

    src = np.arange(250, dtype=np.int32)
    ok(acl.rt.memcpy(a, 1000, src.ctypes.data, 1000, ACL_MEMCPY_HOST_TO_DEVICE))
    b = dev_alloc(1000)
    ok(acl.rt.memcpy(b, 1000, a, 1000, ACL_MEMCPY_DEVICE_TO_DEVICE))
    assert np.array_equal(from_device(b, 250, np.int32), src)
    ok(acl.rt.memset(b, 1000, 0x7F, 8))
    got = from_device(b, 250, np.int32)
    assert got[0] == got[1] == 0x7F7F7F7F and np.array_equal(got[2:], src[2:])

    # destMax < count; NULL dst; count > maxCount.
    assert acl.rt.memcpy(src.ctypes.data, 10, a, 1000, ACL_MEMCPY_DEVICE_TO_HOST) == RT_PARAM_INVALID
    assert acl.rt.memcpy(0, 1000, a, 1000, ACL_MEMCPY_DEVICE_TO_HOST) == INVALID_PARAM
    assert acl.rt.memset(b, 10, 1, 1000) == RT_PARAM_INVALID

    ok(acl.rt.free(b))
    ok(acl.rt.free(a))
    assert acl.rt.free(a) == RT_PARAM_INVALID  # not (any more) device memory
    assert acl.rt.get_mem_info(ACL_HBM_MEM)[0] == free0


def test_async_copies_with_pinned_memory(stream):
    n = 1 << 16
    host, ret = acl.rt.malloc_host(n * 4)
    assert ret == SUCCESS and host % 64 == 0
    view = np.frombuffer((ctypes.c_char * (n * 4)).from_address(host), dtype=np.float32)
    view[:] = np.linspace(0, 1, n, dtype=np.float32)
    d = dev_alloc(n * 4)
    ok(acl.rt.memcpy_async(d, n * 4, host, n * 4, ACL_MEMCPY_HOST_TO_DEVICE, stream))
    ok(acl.rt.memset_async(d, n * 4, 0, 4 * 16, stream))  # zero the first 16 floats, in order
    back, _ = acl.rt.malloc_host(n * 4)
    ok(acl.rt.memcpy_async(back, n * 4, d, n * 4, ACL_MEMCPY_DEVICE_TO_HOST, stream))
    ok(acl.rt.synchronize_stream(stream))
    got = np.frombuffer((ctypes.c_char * (n * 4)).from_address(back), dtype=np.float32).copy()
    expect = view.copy()
    expect[:16] = 0
    assert np.array_equal(got, expect)
    assert acl.rt.memcpy_async(d, n * 4, host, n * 4, ACL_MEMCPY_HOST_TO_DEVICE, 12345) == RT_INVALID_HANDLE
    ok(acl.rt.free(d))
    ok(acl.rt.free_host(back))
    ok(acl.rt.free_host(host))


# ----------------------------------------------------------------------- events


def test_event_lifecycle(stream):
    assert acl.rt.create_event_with_flag(0x8000_0000) == (0, RT_PARAM_INVALID)  # unknown flag bit
    e = ok(acl.rt.create_event())
    assert type(e) is int and e != 0
    assert acl.rt.query_event_status(e) == (0, SUCCESS)  # never recorded: NOT_READY
    # never recorded: RT_ERROR_EVENT_RECORDER_NULL, which the runtime maps to 507000
    assert acl.rt.event_get_timestamp(e) == (0, 507000)
    ok(acl.rt.record_event(e, stream))
    ok(acl.rt.synchronize_event(e))
    assert acl.rt.query_event_status(e) == (1, SUCCESS)  # COMPLETE
    t0 = ok(acl.rt.event_get_timestamp(e))
    assert type(t0) is int and t0 > 0

    e2 = ok(acl.rt.create_event_with_flag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE))
    ok(acl.rt.record_event(e2, stream))
    assert acl.rt.synchronize_event_with_timeout(e2, 1000) == SUCCESS
    ms, ret = acl.rt.event_elapsed_time(e, e2)
    assert ret == SUCCESS and type(ms) is float and ms >= 0.0
    assert acl.rt.event_elapsed_time(e2, e)[1] in (SUCCESS, RT_EVENT_TIMESTAMP_REVERSAL)
    ok(acl.rt.reset_event(e2, stream))
    ok(acl.rt.synchronize_stream(stream))
    assert acl.rt.query_event_status(e2) == (0, SUCCESS)

    plain = ok(acl.rt.create_event_with_flag(0))  # no ACL_EVENT_SYNC: cannot be waited on
    assert acl.rt.stream_wait_event(stream, plain) == RT_PARAM_INVALID
    assert acl.rt.stream_wait_event(stream, 0) == INVALID_PARAM

    for ev in (e, e2, plain):
        ok(acl.rt.destroy_event(ev))
    assert acl.rt.destroy_event(e) == RT_INVALID_HANDLE
    assert acl.rt.record_event(e, stream) == RT_INVALID_HANDLE
    assert acl.rt.query_event_status(e)[1] == RT_INVALID_HANDLE


def test_event_sync_timeout(stream, wait_us):
    out = launch_wait(wait_us, stream, 300_000)
    e = ok(acl.rt.create_event())
    ok(acl.rt.record_event(e, stream))
    assert acl.rt.query_event_status(e) == (0, SUCCESS)
    assert acl.rt.synchronize_event_with_timeout(e, 20) == RT_EVENT_SYNC_TIMEOUT
    assert acl.rt.synchronize_event(e) == SUCCESS
    assert acl.rt.query_event_status(e) == (1, SUCCESS)
    ok(acl.rt.destroy_event(e))
    ok(acl.rt.free(out))


# ----------------------------------------------------------------------- binaries


def test_binary_load_options_and_lookup(device, vector_add_path):
    path = str(vector_add_path)
    b = ok(acl.rt.binary_load_from_file(path, []))
    assert type(b) is int and b != 0
    lazy = ok(acl.rt.binary_load_from_file(path, [{"type": ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, "value": 1}]))
    assert lazy != b
    # The magic option is for LoadFromData only; unknown option types are refused.
    magic = [{"type": ACL_RT_BINARY_LOAD_OPT_MAGIC, "value": ACL_RT_BINARY_MAGIC_ELF_AICORE}]
    assert acl.rt.binary_load_from_file(path, magic) == (0, RT_PARAM_INVALID)
    assert acl.rt.binary_load_from_file(path, [{"type": 9, "value": 0}]) == (0, RT_PARAM_INVALID)
    assert acl.rt.binary_load_from_file(path, [{"value": 0}]) == (0, RT_PARAM_INVALID)  # type 0
    assert acl.rt.binary_load_from_file(path + ".missing", []) == (0, RT_FILE_OPEN)

    assert acl.rt.binary_get_function(b, "no_such_kernel") == (0, RT_KERNEL_LOOKUP)
    assert acl.rt.binary_get_function(0, "add_custom") == (0, INVALID_PARAM)
    f = ok(acl.rt.binary_get_function(b, "add_custom"))
    assert type(f) is int and f != 0
    assert acl.rt.binary_get_function(b, "add_custom") == (f, SUCCESS)  # one handle per kernel

    ok(acl.rt.binary_unload(lazy))
    ok(acl.rt.binary_unload(b))
    assert acl.rt.binary_unload(b) == RT_INVALID_HANDLE
    assert acl.rt.binary_get_function(b, "add_custom") == (0, RT_INVALID_HANDLE)
    assert acl.rt.kernel_args_init(f) == (0, RT_INVALID_HANDLE)  # functions die with their binary


def test_nul_in_a_kernel_name_or_path_is_a_parse_error(device, vector_add_path):
    """Issue 12: a C string ends at its first NUL, so "add_custom\\0x" would find add_custom.
    pyACL parses names and paths with "s", which refuses embedded NULs (CPython sets
    ValueError "embedded null character"); pyACL's CHECK_NULL then replaces that with its own
    TypeError, so that is what a pyACL program sees."""
    path = str(vector_add_path)
    b = ok(acl.rt.binary_load_from_file(path, []))
    with pytest.raises(TypeError, match=r"^acl\.rt\.binary_get_function args parse failed"):
        acl.rt.binary_get_function(b, "add_custom\0x")
    with pytest.raises(TypeError, match=r"^acl\.rt\.binary_load_from_file args parse failed"):
        acl.rt.binary_load_from_file(path + "\0.bak", [])
    ok(acl.rt.binary_unload(b))


def test_binary_options_parse_errors(device, vector_add_path):
    path = str(vector_add_path)
    for bad in (None, (), {"type": 1, "value": 1}, "[]"):
        with pytest.raises(ValueError):
            acl.rt.binary_load_from_file(path, bad)
    with pytest.raises(TypeError):
        acl.rt.binary_load_from_file(path, [1])
    with pytest.raises(ValueError):
        acl.rt.binary_load_from_file(path, [{"type": 1, "value": -1}])
    with pytest.raises(TypeError):
        acl.rt.binary_load_from_file(path.encode(), [])
    with pytest.raises(TypeError):
        acl.rt.binary_load_from_file(path + "\0x", [])
    with pytest.raises(TypeError):
        acl.rt.binary_get_function(1, None)


def test_binary_load_from_data(stream, vector_add_path):
    data = vector_add_path.read_bytes()
    ptr = acl.util.bytes_to_ptr(data)
    assert acl.rt.binary_load_from_data(ptr, 0, []) == (0, INVALID_PARAM)
    assert acl.rt.binary_load_from_data(0, len(data), []) == (0, INVALID_PARAM)
    with pytest.raises(ValueError):
        acl.rt.binary_load_from_data(ptr, len(data), None)
    b = ok(acl.rt.binary_load_from_data(ptr, len(data), []))
    f = ok(acl.rt.binary_get_function(b, "add_custom"))
    x, y = np.arange(N, dtype=np.float32), np.full(N, 2.0, dtype=np.float32)
    dx, dy, dz = to_device(x), to_device(y), dev_alloc(x.nbytes)
    args, _ = vector_add_args(f, dx, dy, dz, N)
    ok(acl.rt.launch_kernel_with_config(f, BLOCKS, stream, [], args, 0))
    ok(acl.rt.synchronize_stream(stream))
    assert np.array_equal(from_device(dz, N, np.float32), x + y)
    for p in (dx, dy, dz):
        ok(acl.rt.free(p))
    ok(acl.rt.binary_unload(b))


# ----------------------------------------------------------------------- kernel args + launch


def test_system_managed_args_launch_and_para_update(stream, vector_add):
    f = vector_add
    x = np.random.default_rng(1).standard_normal(N).astype(np.float32)
    y = np.random.default_rng(2).standard_normal(N).astype(np.float32)
    dx, dy, dz, dz2 = to_device(x), to_device(y), dev_alloc(x.nbytes), dev_alloc(x.nbytes)
    args, z_param = vector_add_args(f, dx, dy, dz, N)
    assert type(args) is int and type(z_param) is int
    ok(acl.rt.launch_kernel_with_config(f, BLOCKS, stream, [], args, 0))
    ok(acl.rt.synchronize_stream(stream))
    assert np.array_equal(from_device(dz, N, np.float32), x + y)

    # ParaUpdate marks the handle as updating: no launch until Finalize runs again.
    z2 = ctypes.c_uint64(dz2)
    ok(acl.rt.kernel_args_para_update(args, z_param, ctypes.addressof(z2), 8))
    assert acl.rt.launch_kernel_with_config(f, BLOCKS, stream, [], args, 0) == RT_PARAM_INVALID
    ok(acl.rt.kernel_args_finalize(args))
    ok(acl.rt.launch_kernel_with_config(f, BLOCKS, stream, [], args, 0))
    ok(acl.rt.synchronize_stream(stream))
    assert np.array_equal(from_device(dz2, N, np.float32), x + y)

    # The system-managed handle is one per thread: Init again returns it, and the param
    # handles from before are stale.
    assert acl.rt.kernel_args_init(f) == (args, SUCCESS)
    assert acl.rt.kernel_args_para_update(args, z_param, ctypes.addressof(z2), 8) == RT_INVALID_HANDLE
    for p in (dx, dy, dz, dz2):
        ok(acl.rt.free(p))


def test_kernel_args_order_violations(stream, vector_add):
    f = vector_add
    d = dev_alloc(64)
    ptr = ctypes.c_uint64(d)
    args = ok(acl.rt.kernel_args_init(f))
    assert acl.rt.kernel_args_append(args, ctypes.addressof(ptr), 0) == (0, INVALID_PARAM)
    assert acl.rt.kernel_args_append(args, 0, 8) == (0, INVALID_PARAM)
    assert acl.rt.kernel_args_append(0, ctypes.addressof(ptr), 8) == (0, INVALID_PARAM)
    p1 = append_ptr(args, d)
    assert acl.rt.launch_kernel_with_config(f, 1, stream, [], args, 0) == RT_PARAM_INVALID  # not finalized
    not_a_placeholder = p1
    assert acl.rt.kernel_args_get_place_holder_buffer(args, not_a_placeholder, 8) == (0, RT_PARAM_INVALID)
    append_ptr(args, d)
    append_ptr(args, d)
    ph = ok(acl.rt.kernel_args_append_place_holder(args))
    assert acl.rt.kernel_args_get_place_holder_buffer(args, ph, 0) == (0, INVALID_PARAM)
    buf = ok(acl.rt.kernel_args_get_place_holder_buffer(args, ph, TILING.size))
    assert type(buf) is int and buf != 0
    # Placeholder data follows all parameters: no more appends.
    assert acl.rt.kernel_args_append(args, ctypes.addressof(ptr), 8) == (0, RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.kernel_args_append_place_holder(args) == (0, RT_FEATURE_NOT_SUPPORT)
    ok(acl.rt.kernel_args_finalize(args))
    assert acl.rt.kernel_args_append(args, ctypes.addressof(ptr), 8) == (0, RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.kernel_args_get_place_holder_buffer(args, ph, 8) == (0, RT_FEATURE_NOT_SUPPORT)
    # ParaUpdate: same size only, never a placeholder.
    assert acl.rt.kernel_args_para_update(args, p1, ctypes.addressof(ptr), 4) == RT_PARAM_INVALID
    assert acl.rt.kernel_args_para_update(args, ph, ctypes.addressof(ptr), 8) == RT_PARAM_INVALID
    assert acl.rt.kernel_args_para_update(args, p1, 0, 8) == INVALID_PARAM
    assert acl.rt.kernel_args_finalize(0) == INVALID_PARAM
    assert acl.rt.kernel_args_finalize(0x1234_5678) == RT_INVALID_HANDLE  # not an args handle
    ok(acl.rt.free(d))


def test_launch_with_config_misuse(stream, vector_add):
    f = vector_add
    x = np.ones(N, dtype=np.float32)
    dx, dz = to_device(x), dev_alloc(x.nbytes)
    args, _ = vector_add_args(f, dx, dx, dz, N)
    assert acl.rt.launch_kernel_with_config(0, BLOCKS, stream, [], args, 0) == INVALID_PARAM
    assert acl.rt.launch_kernel_with_config(f, 0, stream, [], args, 0) == INVALID_PARAM
    assert acl.rt.launch_kernel_with_config(f, BLOCKS, stream, [], 0, 0) == INVALID_PARAM
    assert acl.rt.launch_kernel_with_config(f, BLOCKS, stream, [], args, 1) == INVALID_PARAM  # reserve
    assert acl.rt.launch_kernel_with_config(f + 1, BLOCKS, stream, [], args, 0) == RT_INVALID_HANDLE
    assert acl.rt.launch_kernel_with_config(f, BLOCKS, 0xDEAD, [], args, 0) == RT_INVALID_HANDLE
    schem = ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE
    assert acl.rt.launch_kernel_with_config(f, BLOCKS, stream, [{"id": schem, "value": 7}], args, 0) == RT_PARAM_INVALID
    for bad in (None, ({"id": schem, "value": 1},)):
        with pytest.raises(ValueError):
            acl.rt.launch_kernel_with_config(f, BLOCKS, stream, bad, args, 0)
    with pytest.raises(TypeError):
        acl.rt.launch_kernel_with_config(f, BLOCKS, stream, [schem], args, 0)
    # A valid cfg (batch scheduling) and the default stream (0) both work.
    ok(acl.rt.launch_kernel_with_config(f, BLOCKS, stream, [{"id": schem, "value": 1}], args, 0))
    ok(acl.rt.launch_kernel_with_config(f, BLOCKS, 0, [], args, 0))
    ok(acl.rt.synchronize_stream(stream))
    ok(acl.rt.synchronize_stream(0))
    assert np.array_equal(from_device(dz, N, np.float32), x + x)
    ok(acl.rt.free(dx))
    ok(acl.rt.free(dz))


def test_user_mem_args_with_probe_kernel(stream, test_kernels_path):
    """InitByUserMem in numpy-owned memory, with scalars of every width: the probe kernel
    writes back exactly what it received, so the layout is checked byte for byte."""
    binary, f = load_function(test_kernels_path, "probe")
    handle_size = ok(acl.rt.kernel_args_get_handle_mem_size(f))
    user_size = 6 * 8 + 3 * 8 + 2 * 8  # 6 scalars, ph1, ph2, out (8 each) + 2 x 8 bytes of data
    assert acl.rt.kernel_args_get_mem_size(f, user_size) == (user_size + 8 * 8 + 9 * 8, SUCCESS)
    actual = ok(acl.rt.kernel_args_get_mem_size(f, user_size))
    handle_mem = np.zeros(handle_size, dtype=np.uint64)  # 8-byte aligned
    args_mem = np.zeros(actual, dtype=np.uint8)
    h = handle_mem.ctypes.data
    assert acl.rt.kernel_args_init_by_user_mem(f, h, args_mem.ctypes.data, 0) == INVALID_PARAM
    assert acl.rt.kernel_args_init_by_user_mem(f, 0, args_mem.ctypes.data, actual) == INVALID_PARAM
    assert acl.rt.kernel_args_append_place_holder(h) == (0, RT_INVALID_HANDLE)  # not initialised yet
    ok(acl.rt.kernel_args_init_by_user_mem(f, h, args_mem.ctypes.data, actual))

    out = dev_alloc(64)
    ok(acl.rt.memset(out, 64, 0, 64))
    append_value(h, ctypes.c_uint8(0xAB))
    append_value(h, ctypes.c_int16(-2))
    append_value(h, ctypes.c_uint32(0xDEADBEEF))
    d_param = append_value(h, ctypes.c_int64(-(1 << 40)))
    append_value(h, ctypes.c_float(1.5))
    append_value(h, ctypes.c_double(-2.25))
    ph1 = ok(acl.rt.kernel_args_append_place_holder(h))
    ph2 = ok(acl.rt.kernel_args_append_place_holder(h))
    append_ptr(h, out)
    for ph, payload in ((ph1, b"tiling-1"), (ph2, b"TILING-2")):
        buf = ok(acl.rt.kernel_args_get_place_holder_buffer(h, ph, 8))
        ctypes.memmove(buf, payload, 8)
    ok(acl.rt.kernel_args_finalize(h))
    ok(acl.rt.launch_kernel_with_config(f, 1, stream, [], h, 0))
    ok(acl.rt.synchronize_stream(stream))
    got = from_device(out, 64, np.uint8).tobytes()[:43]
    assert got == struct.pack("<BhIqfd", 0xAB, -2, 0xDEADBEEF, -(1 << 40), 1.5, -2.25) + b"tiling-1TILING-2"

    d_new = ctypes.c_int64(7)
    ok(acl.rt.kernel_args_para_update(h, d_param, ctypes.addressof(d_new), 8))
    ok(acl.rt.kernel_args_finalize(h))
    ok(acl.rt.launch_kernel_with_config(f, 1, stream, [], h, 0))
    ok(acl.rt.synchronize_stream(stream))
    assert struct.unpack_from("<q", from_device(out, 64, np.uint8).tobytes(), 7) == (7,)
    ok(acl.rt.free(out))
    ok(acl.rt.binary_unload(binary))


def test_launch_kernel_with_device_args(stream, vector_add):
    """aclrtLaunchKernel: the packed args (and the tiling they point to) live in device memory."""
    f = vector_add
    x, y = np.arange(N, dtype=np.float32), np.arange(N, dtype=np.float32) * 3
    dx, dy, dz = to_device(x), to_device(y), dev_alloc(x.nbytes)
    tiling = to_device(np.frombuffer(TILING.pack(N, 0), dtype=np.uint8).copy())
    packed = np.array([dx, dy, dz, tiling], dtype=np.uint64)
    dargs = to_device(packed)
    assert acl.rt.launch_kernel(f, BLOCKS, dargs, 0, stream) == INVALID_PARAM
    assert acl.rt.launch_kernel(f, 0, dargs, packed.nbytes, stream) == INVALID_PARAM
    host_args = packed.ctypes.data  # launch_kernel takes device memory only
    assert acl.rt.launch_kernel(f, BLOCKS, host_args, packed.nbytes, stream) == RT_PARAM_INVALID
    assert acl.rt.launch_kernel(f, BLOCKS, dargs, 16, stream) == RT_PARAM_INVALID  # too short for 4 params
    ok(acl.rt.launch_kernel(f, BLOCKS, dargs, packed.nbytes, stream))
    ok(acl.rt.synchronize_stream(stream))
    assert np.array_equal(from_device(dz, N, np.float32), x + y)
    for p in (dx, dy, dz, tiling, dargs):
        ok(acl.rt.free(p))


# ----------------------------------------------------------------------- argument parsing


BAD_CALLS = [
    (lambda: acl.rt.malloc("64", 0), TypeError),
    (lambda: acl.rt.malloc(64.0, 0), TypeError),
    (lambda: acl.rt.malloc(64, None), TypeError),
    (lambda: acl.rt.set_device(None), TypeError),
    (lambda: acl.rt.set_device(1 << 31), TypeError),  # "i" overflow: pyACL reports a TypeError
    (lambda: acl.rt.free(None), TypeError),
    (lambda: acl.rt.memcpy(1, 2, 3, 4), TypeError),  # missing argument
    (lambda: acl.rt.memcpy(1.0, 2, 3, 4, 1), TypeError),
    (lambda: acl.rt.create_stream_with_config("0", 0), TypeError),
    (lambda: acl.rt.destroy_stream("stream"), TypeError),
    (lambda: acl.rt.process_report(None), TypeError),
    (lambda: acl.rt.process_report(1.5), TypeError),
    (lambda: acl.rt.subscribe_report(None, 0), TypeError),
    (lambda: acl.rt.launch_callback(None, None, 0, 0), TypeError),  # not callable
    (lambda: acl.rt.launch_callback(print, None, "0", 0), TypeError),
    (lambda: acl.rt.kernel_args_append(1, 2.5, 8), TypeError),
    (lambda: acl.rt.record_event(None, 0), TypeError),
    (lambda: acl.rt.create_event_with_flag("x"), TypeError),
    (lambda: acl.rt.get_mem_info("hbm"), TypeError),
    (lambda: acl.rt.launch_kernel_with_config(1, 1, 0, [], 1), TypeError),  # reserve missing
    (lambda: acl.util.start_thread(1, None), TypeError),
    (lambda: acl.util.start_thread(print), TypeError),  # args is required
    (lambda: acl.util.stop_thread("tid"), TypeError),
    (lambda: acl.util.bytes_to_ptr(bytearray(4)), ValueError),
    (lambda: acl.util.bytes_to_ptr("text"), ValueError),
    (lambda: acl.util.ptr_to_bytes(None, 4), TypeError),
]


@pytest.mark.parametrize("call, exc", BAD_CALLS, ids=range(len(BAD_CALLS)))
def test_unparsable_arguments_raise_like_pyacl(call, exc, runtime):
    with pytest.raises(exc):
        call()


def test_parse_errors_name_the_function(runtime):
    with pytest.raises(TypeError, match=r"acl\.rt\.malloc args parse failed"):
        acl.rt.malloc("64", 0)
    with pytest.raises(TypeError, match="parameter must be callable"):
        acl.rt.launch_callback(42, None, 0, 0)


def test_integer_forms(device):
    """Handles are masked to 64 bits like pyACL's "k" (no overflow check); numpy integers are
    accepted wherever an int is."""
    assert acl.rt.free(-1) == RT_PARAM_INVALID  # 0xFFFF_FFFF_FFFF_FFFF reaches the runtime
    assert acl.rt.destroy_stream((1 << 64) + 5) == RT_INVALID_HANDLE
    p = ok(acl.rt.malloc(np.int64(128), np.int32(0)))
    ok(acl.rt.memset(p, np.uint64(128), np.int8(3), 128))
    assert np.all(from_device(p, 128, np.uint8) == 3)
    ok(acl.rt.free(np.uint64(p)))
    # No-argument wrappers ignore stray arguments, as pyACL's C wrappers do.
    assert acl.rt.get_device(123) == (0, SUCCESS)


def test_runtime_failures_never_raise(runtime):
    """Without a device bound, every call reports a code instead of raising."""

    def calls():
        return [
            acl.rt.create_stream(),
            acl.rt.malloc(64, 0),
            acl.rt.synchronize_device(),
            acl.rt.create_event(),
            acl.rt.get_mem_info(ACL_HBM_MEM),
            acl.rt.process_report(1),
            acl.rt.launch_callback(print, None, 0, 0),
        ]

    for result in in_thread(calls):
        ret = result[-1] if isinstance(result, tuple) else result
        assert ret != SUCCESS and type(ret) is int


def test_threads_see_one_facade(device):
    """Handles are plain ints: a stream made in one thread is usable from another (after it
    binds the device), as in pyACL."""
    s = ok(acl.rt.create_stream())

    def other():
        ok(acl.rt.set_device(0))
        try:
            return acl.rt.synchronize_stream(s)
        finally:
            acl.rt.reset_device(0)

    assert in_thread(other) == SUCCESS
    ok(acl.rt.destroy_stream(s))
