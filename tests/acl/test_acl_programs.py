"""Whole pyACL-style programs through aiocann.acl: events ordering two streams with
``stream_wait_event``, a memory program that reads device data straight into a ``bytes`` object
through ``acl.util.bytes_to_ptr``, and the util conversions such programs rely on."""

from __future__ import annotations

import ctypes
import sys

import numpy as np
import pytest
from pyacl_support import (
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    SUCCESS,
    append_ptr,
    append_value,
    dev_alloc,
    from_device,
    load_function,
    ok,
    to_device,
)

import aiocann.acl as acl

BLOCKS = 4


def launch_wait_us(func: int, stream: int, out: int, usec: int) -> None:
    """wait_us(out, usec) on BLOCKS blocks: each sleeps, then writes block_idx + 1."""
    args = ok(acl.rt.kernel_args_init(func))
    append_ptr(args, out)
    append_value(args, ctypes.c_uint64(usec))
    ok(acl.rt.kernel_args_finalize(args))
    ok(acl.rt.launch_kernel_with_config(func, BLOCKS, stream, [], args, 0))


def test_event_orders_two_streams(device, test_kernels_path):
    """Stream A runs a slow kernel and records an event; stream B waits for that event and
    then copies A's output. Without the wait, B's copy would run at once and see zeros."""
    binary, wait_us = load_function(test_kernels_path, "wait_us")
    a, b = ok(acl.rt.create_stream()), ok(acl.rt.create_stream())
    produced, copied, unordered = dev_alloc(64), dev_alloc(64), dev_alloc(64)
    for p in (produced, copied, unordered):
        ok(acl.rt.memset(p, 64, 0, 64))
    done = ok(acl.rt.create_event())

    launch_wait_us(wait_us, a, produced, 200_000)
    ok(acl.rt.record_event(done, a))
    # The control: the same copy on a third stream that does not wait.
    c = ok(acl.rt.create_stream())
    ok(acl.rt.memcpy_async(unordered, 64, produced, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, c))
    ok(acl.rt.stream_wait_event(b, done))
    ok(acl.rt.memcpy_async(copied, 64, produced, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, b))

    ok(acl.rt.synchronize_stream(c))
    assert acl.rt.query_event_status(done) == (0, SUCCESS)  # A is still sleeping
    ok(acl.rt.synchronize_stream(b))  # B finishes only after A's event
    assert acl.rt.query_event_status(done) == (1, SUCCESS)
    expected = np.arange(1, BLOCKS + 1, dtype=np.int32)
    assert np.array_equal(from_device(copied, BLOCKS, np.int32), expected)
    assert np.array_equal(from_device(unordered, BLOCKS, np.int32), np.zeros(BLOCKS, np.int32))

    # The event's timestamp is after the kernel: elapsed from a start event on A covers it.
    start = ok(acl.rt.create_event())
    ok(acl.rt.record_event(start, a))
    launch_wait_us(wait_us, a, produced, 50_000)
    ok(acl.rt.record_event(done, a))
    ok(acl.rt.synchronize_event(done))
    ms = ok(acl.rt.event_elapsed_time(start, done))
    assert 45.0 <= ms < 2000.0

    for e in (start, done):
        ok(acl.rt.destroy_event(e))
    for s in (a, b, c):
        ok(acl.rt.destroy_stream(s))
    for p in (produced, copied, unordered):
        ok(acl.rt.free(p))
    ok(acl.rt.binary_unload(binary))


def test_memory_program_with_bytes(device):
    """The Ascend samples' memory program: host data as bytes, H2D, a device-side copy, D2H
    straight into a bytes object's own buffer (bytes_to_ptr is no copy), read back as bytes."""
    size = 1 << 12
    payload = bytes((i * 7) & 0xFF for i in range(size))
    src_dev = dev_alloc(size)
    dst_dev = dev_alloc(size)
    ok(acl.rt.memcpy(src_dev, size, acl.util.bytes_to_ptr(payload), size, ACL_MEMCPY_HOST_TO_DEVICE))
    ok(acl.rt.memcpy(dst_dev, size, src_dev, size, ACL_MEMCPY_DEVICE_TO_DEVICE))
    ok(acl.rt.memset(dst_dev, size, 0xEE, 16))

    out = bytes(size)  # a fresh object: the runtime writes into it
    out_ptr = acl.util.bytes_to_ptr(out)
    ok(acl.rt.memcpy(out_ptr, size, dst_dev, size, ACL_MEMCPY_DEVICE_TO_HOST))
    assert out[:16] == b"\xee" * 16 and out[16:] == payload[16:]
    assert acl.util.bytes_to_ptr(out) == out_ptr  # the same live buffer

    # ptr_to_bytes copies: later writes to the memory do not change it.
    host = ok(acl.rt.malloc_host(size))
    ok(acl.rt.memcpy(host, size, src_dev, size, ACL_MEMCPY_DEVICE_TO_HOST))
    snapshot = acl.util.ptr_to_bytes(host, size)
    assert snapshot == payload and type(snapshot) is bytes
    ok(acl.rt.memset(host, size, 0, size))
    assert snapshot == payload
    assert acl.util.ptr_to_bytes(host, 8) == bytes(8)
    for p in (src_dev, dst_dev):
        ok(acl.rt.free(p))
    ok(acl.rt.free_host(host))


def test_bytes_to_ptr_is_the_object_buffer():
    data = b"pyACL reads and writes bytes in place" * 3
    ptr = acl.util.bytes_to_ptr(data)
    assert type(ptr) is int
    assert ctypes.string_at(ptr, len(data)) == data
    # CPython keeps a bytes object's characters inline, right after its header.
    assert ptr == id(data) + sys.getsizeof(data) - len(data) - 1
    empty = acl.util.bytes_to_ptr(b"")
    assert type(empty) is int and empty != 0
    assert acl.util.ptr_to_bytes(ptr, 5) == b"pyACL"
    assert acl.util.ptr_to_bytes(ptr, 0) == b""
    assert acl.util.ptr_to_bytes(0, 4) == bytes(4)
    with pytest.raises(ValueError):
        acl.util.bytes_to_ptr(memoryview(data))


def test_numpy_helpers_warn_and_share_memory():
    arr = np.arange(12, dtype=np.float32)
    with pytest.warns(Warning, match="numpy_to_ptr will be deprecated"):
        ptr = acl.util.numpy_to_ptr(arr)
    assert ptr == arr.ctypes.data
    with pytest.warns(Warning) as record:
        strided_ptr = acl.util.numpy_to_ptr(arr[::2])
    assert strided_ptr == arr.ctypes.data and len(record) == 2
    assert "discontiguous" in str(record[1].message)
    with pytest.warns(Warning), pytest.raises(ValueError):
        acl.util.numpy_to_ptr([1, 2, 3])

    with pytest.warns(Warning):
        same_ptr, same = acl.util.numpy_contiguous_to_ptr(arr)
    assert same is arr and same_ptr == ptr
    with pytest.warns(Warning):
        copy_ptr, copy = acl.util.numpy_contiguous_to_ptr(arr[::3])
    assert copy.flags.c_contiguous and copy_ptr == copy.ctypes.data and np.array_equal(copy, arr[::3])

    with pytest.warns(Warning, match="ptr_to_numpy will be deprecated"):
        view = acl.util.ptr_to_numpy(ptr, (3, 4), 11)  # NPY_FLOAT
    assert view.shape == (3, 4) and view.dtype == np.float32 and view.flags.writeable
    view[2, 3] = -1.0  # no copy: writes land in arr
    assert arr[11] == -1.0
    with pytest.warns(Warning):
        ints = acl.util.ptr_to_numpy(ptr, (12,), 5)  # NPY_INT32 over the same bytes
    assert ints[0] == 0 and ints[1] == np.float32(1.0).view(np.int32)
    with pytest.warns(Warning), pytest.raises(ValueError):
        acl.util.ptr_to_numpy(ptr, [12], 11)  # shape must be a tuple
    with pytest.warns(Warning), pytest.raises(TypeError):
        acl.util.ptr_to_numpy(ptr, (3.0,), 11)
    with pytest.warns(Warning), pytest.raises(ValueError):
        acl.util.ptr_to_numpy(ptr, (3,), 9999)


def test_kernel_args_from_bytes_and_numpy(device, vector_add_path, stream):
    """Parameters from every kind of host address pyACL programs use: a ctypes value, a numpy
    array's data and a bytes object's buffer."""
    binary, func = load_function(vector_add_path, "add_custom")
    n = 1000
    x = np.linspace(-1, 1, n, dtype=np.float32)
    dx, dz = to_device(x), dev_alloc(x.nbytes)
    args = ok(acl.rt.kernel_args_init(func))
    ok(acl.rt.kernel_args_append(args, ctypes.addressof(ctypes.c_uint64(dx)), 8))
    y_ptr = np.array([dx], dtype=np.uint64)
    ok(acl.rt.kernel_args_append(args, y_ptr.ctypes.data, 8))
    z_ptr = int(dz).to_bytes(8, "little")
    ok(acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(z_ptr), 8))
    ph = ok(acl.rt.kernel_args_append_place_holder(args))
    buf = ok(acl.rt.kernel_args_get_place_holder_buffer(args, ph, 8))
    ctypes.memmove(buf, (n).to_bytes(4, "little") + bytes(4), 8)
    ok(acl.rt.kernel_args_finalize(args))
    ok(acl.rt.launch_kernel_with_config(func, 3, stream, [], args, 0))
    ok(acl.rt.synchronize_stream(stream))
    assert np.array_equal(from_device(dz, n, np.float32), x + x)
    ok(acl.rt.free(dx))
    ok(acl.rt.free(dz))
    ok(acl.rt.binary_unload(binary))


def test_faulting_kernel_returns_its_code_from_synchronize(device, test_kernels_path):
    """Issue 6: a kernel that writes past its buffer fails its launch with 507015, reported by
    synchronize_stream once with a message naming kernel, block and address; the process and
    the other streams carry on."""
    binary, poke = load_function(test_kernels_path, "poke")
    _, write_value = load_function(test_kernels_path, "write_value")
    bad, good = ok(acl.rt.create_stream()), ok(acl.rt.create_stream())
    buf, out = dev_alloc(64), dev_alloc(16)
    args = ok(acl.rt.kernel_args_init(poke))
    append_ptr(args, buf)
    append_value(args, ctypes.c_uint64(1 << 20))  # 1 MiB past a 64-byte allocation
    ok(acl.rt.kernel_args_finalize(args))
    assert acl.rt.launch_kernel_with_config(poke, 2, bad, [], args, 0) == SUCCESS  # enqueued fine
    assert acl.rt.synchronize_stream(bad) == 507015
    message = acl.get_recent_err_msg()
    assert "poke" in message and "block" in message and "address" in message
    assert acl.rt.synchronize_stream(bad) == SUCCESS  # reported once, then cleared (continue mode)

    args = ok(acl.rt.kernel_args_init(write_value))
    append_ptr(args, out)
    append_value(args, ctypes.c_uint32(1))
    append_value(args, ctypes.c_int32(77))
    ok(acl.rt.kernel_args_finalize(args))
    ok(acl.rt.launch_kernel_with_config(write_value, 1, good, [], args, 0))
    ok(acl.rt.synchronize_stream(good))
    assert from_device(out, 2, np.int32)[1] == 77
    for s in (bad, good):
        ok(acl.rt.destroy_stream(s))
