"""The memory family of acl.rt (issue 11): virtual memory and physical memory handles,
shareable handles and IPC keys between two processes, host registration, copies by
descriptor, reduce, cache maintenance, stream value write/wait, allocators and memory UCE --
each with pyACL's argument forms and returns, over the simulator's implementation of the real
behaviour and codes (docs/fidelity.md, "memory family")."""

from __future__ import annotations

import ctypes
import struct
import time

import numpy as np
import pytest
from acl_codes import (
    HOST_MEMORY_ALREADY_REGISTERED,
    HOST_MEMORY_NOT_REGISTERED,
    RT_ADDR_UNALIGNED,
    RT_AICORE_EXCEPTION,
    RT_MEMORY_ALLOCATION,
    RT_NO_PERMISSION,
    RT_SYS_DMA,
)
from mem_peer import Peer
from pyacl_support import (
    ACL_MEMCPY_HOST_TO_DEVICE,
    INVALID_PARAM,
    RT_CONTEXT_NULL,
    RT_FEATURE_NOT_SUPPORT,
    RT_INVALID_DEVICEID,
    RT_INVALID_HANDLE,
    RT_PARAM_INVALID,
    RT_STREAM_SYNC_TIMEOUT,
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
from aiocann._lib import ffi, lib

MIB = 1 << 20

# Enum values a pyACL program spells as numbers.
LOC_HOST, LOC_DEVICE, LOC_UNREGISTERED = 0, 1, 2
DDR_MEM_NORMAL, HBM_MEM_HUGE, HBM_MEM_P2P_HUGE = 3, 4, 8
MEM_NORMAL, MEM_HUGE, MEM_HUGE1G = 12, 13, 14
GRANULARITY_MINIMUM, GRANULARITY_RECOMMENDED = 0, 1
VMM_DISABLE_PID_VALIDATION = IPC_DISABLE_PID_VALIDATION = 1
INNER_DEVICE_TO_DEVICE = 6
REDUCE_SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_EQUAL = 10, 11, 12, 13
ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_UINT8, ACL_INT16, ACL_DOUBLE, ACL_BF16 = 0, 1, 2, 3, 4, 6, 11, 27
WAIT_GEQ, WAIT_EQ, WAIT_AND, WAIT_NOR = 0, 1, 2, 3
HOST_REG_MAPPED, HOST_REG_PINNED = 0x2, 0x10000000


def prop(mem_attr: int = MEM_NORMAL, loc_type: int = LOC_DEVICE, loc_id: int = 0, **extra: int) -> dict:
    """An aclrtPhysicalMemProp dict as a pyACL program writes it."""
    return {
        "handleType": 0,
        "allocationType": 0,
        "memAttr": mem_attr,
        "location": {"id": loc_id, "type": loc_type},
    } | extra


def write_u64(ptr: int, value: int) -> None:
    buf = ctypes.c_uint64(value)
    ok(acl.rt.memcpy(ptr, 8, ctypes.addressof(buf), 8, ACL_MEMCPY_HOST_TO_DEVICE))


def read_bytes(ptr: int, n: int) -> bytes:
    return from_device(ptr, n, np.uint8).tobytes()


def write_bytes(ptr: int, data: bytes) -> None:
    buf = ctypes.create_string_buffer(data, len(data))
    ok(acl.rt.memcpy(ptr, len(data), ctypes.addressof(buf), len(data), ACL_MEMCPY_HOST_TO_DEVICE))


@pytest.fixture
def kernels(device: int, test_kernels_path: object):
    """test_kernels.c's write_value(out, index, value) and poke(buf, offset), by name."""
    loaded = {}

    def get(name: str) -> int:
        if name not in loaded:
            loaded[name] = load_function(test_kernels_path, name)
        return loaded[name][1]

    yield get
    for binary, _ in loaded.values():
        acl.rt.binary_unload(binary)


def launch(func: int, stream: int, *params: object) -> None:
    """Launches func with params: ints are device pointers, ctypes values are scalars."""
    args = ok(acl.rt.kernel_args_init(func))
    for p in params:
        if isinstance(p, int):
            append_ptr(args, p)
        else:
            append_value(args, p)
    ok(acl.rt.kernel_args_finalize(args))
    ok(acl.rt.launch_kernel_with_config(func, 1, stream, [], args, 0))


# ----------------------------------------------------------------------- virtual memory


def test_granularity_is_what_the_memory_is_made_of(device):
    assert acl.rt.mem_get_allocation_granularity(prop(MEM_NORMAL), GRANULARITY_MINIMUM) == (2 * MIB, SUCCESS)
    assert acl.rt.mem_get_allocation_granularity(prop(HBM_MEM_HUGE), GRANULARITY_RECOMMENDED) == (2 * MIB, SUCCESS)
    assert acl.rt.mem_get_allocation_granularity(prop(MEM_HUGE1G), GRANULARITY_MINIMUM) == (1 << 30, SUCCESS)
    page = ok(acl.rt.mem_get_allocation_granularity(prop(DDR_MEM_NORMAL, LOC_HOST), GRANULARITY_MINIMUM))
    assert page == ok(acl.rt.pointer_get_attributes(to_device(np.zeros(1, np.uint8))))["page_size"]
    assert acl.rt.mem_get_allocation_granularity(prop(MEM_HUGE, LOC_HOST), GRANULARITY_MINIMUM) == (2 * MIB, SUCCESS)
    # The ACL layer's checks (100000), then the runtime's (device id 107001, option 107000).
    assert acl.rt.mem_get_allocation_granularity(prop(DDR_MEM_NORMAL), 0)[1] == INVALID_PARAM  # host-only attribute
    assert acl.rt.mem_get_allocation_granularity(prop(HBM_MEM_P2P_HUGE), 0)[1] == INVALID_PARAM  # not handled
    assert acl.rt.mem_get_allocation_granularity(prop(loc_id=99), 0)[1] == RT_INVALID_DEVICEID
    assert acl.rt.mem_get_allocation_granularity(prop(), 2)[1] == RT_PARAM_INVALID


def test_reserve_map_use_unmap_release(device, stream, kernels):
    va = ok(acl.rt.reserve_mem_address(6 * MIB, 0, 0, 0))
    assert va % (2 * MIB) == 0
    handles = [ok(acl.rt.malloc_physical(2 * MIB, prop(), 0)) for _ in range(2)]
    free_before = ok(acl.rt.get_mem_info(1))[0]
    for i, h in enumerate(handles):
        ok(acl.rt.map_mem(va + i * 2 * MIB, 2 * MIB, 0, h, 0))
    # Copies, memsets and kernels use it as device memory, across the two mappings.
    data = np.arange(1024, dtype=np.int32)
    ok(acl.rt.memcpy(va + 2 * MIB - 2048, 4096, data.ctypes.data, 4096, ACL_MEMCPY_HOST_TO_DEVICE))
    assert acl.rt.memcpy(va + 2 * MIB - 2048, 4096, data.ctypes.data, 4096, 4) == SUCCESS  # DEFAULT: H2D
    launch(kernels("write_value"), stream, va + 4 * MIB - 64, ctypes.c_uint32(3), ctypes.c_int32(77))
    ok(acl.rt.synchronize_stream(stream))
    assert np.array_equal(from_device(va + 2 * MIB - 2048, 1024, np.int32), data)
    assert from_device(va + 4 * MIB - 64, 4, np.int32)[3] == 77
    attrs = ok(acl.rt.pointer_get_attributes(va + 123))
    assert attrs["location"] == {"id": 0, "type": LOC_DEVICE}
    # The third page is reserved but not mapped: not memory, and a kernel touching it faults.
    assert acl.rt.pointer_get_attributes(va + 5 * MIB)[1] == RT_PARAM_INVALID
    assert acl.rt.memset(va + 5 * MIB, 16, 0, 16) == RT_PARAM_INVALID
    launch(kernels("poke"), stream, va + 4 * MIB, ctypes.c_uint64(16))
    assert acl.rt.synchronize_stream(stream) == RT_AICORE_EXCEPTION
    # Unmap, release, free, in the documented order; memory returns to the device.
    assert acl.rt.release_mem_address(va) == RT_PARAM_INVALID  # still mapped
    for i in range(2):
        ok(acl.rt.unmap_mem(va + i * 2 * MIB))
    assert acl.rt.unmap_mem(va) == RT_PARAM_INVALID
    ok(acl.rt.release_mem_address(va))
    assert acl.rt.release_mem_address(va) == RT_PARAM_INVALID
    for h in handles:
        ok(acl.rt.free_physical(h))
    assert acl.rt.free_physical(handles[0]) == RT_INVALID_HANDLE
    assert ok(acl.rt.get_mem_info(1))[0] == free_before + 4 * MIB


def test_physical_memory_outlives_its_handle_while_mapped(device):
    va = ok(acl.rt.reserve_mem_address(2 * MIB, 0, 0, 0))
    h = ok(acl.rt.malloc_physical(2 * MIB, prop(MEM_HUGE), 0))
    ok(acl.rt.map_mem(va, 2 * MIB, 0, h, 0))
    write_bytes(va, b"still here")
    free_mapped = ok(acl.rt.get_mem_info(1))[0]
    ok(acl.rt.free_physical(h))  # the mapping keeps the memory (aclrtFreePhysical)
    assert read_bytes(va, 10) == b"still here"
    assert ok(acl.rt.get_mem_info(1))[0] == free_mapped
    ok(acl.rt.unmap_mem(va))
    assert ok(acl.rt.get_mem_info(1))[0] == free_mapped + 2 * MIB
    ok(acl.rt.release_mem_address(va))


def test_host_physical_memory_is_host_memory(device):
    page = ok(acl.rt.mem_get_allocation_granularity(prop(DDR_MEM_NORMAL, LOC_HOST), 0))
    va = ok(acl.rt.reserve_mem_address(2 * MIB, 0, 0, 0))
    h = ok(acl.rt.malloc_physical(page, prop(DDR_MEM_NORMAL, LOC_HOST), 0))
    ok(acl.rt.map_mem(va, page, 0, h, 0))
    assert ok(acl.rt.pointer_get_attributes(va))["location"]["type"] == LOC_HOST
    dev = dev_alloc(64)
    write_bytes(dev, b"to the host")
    ok(acl.rt.memcpy(va, 64, dev, 11, 4))  # DEFAULT: device to (registered) host
    assert ctypes.string_at(va, 11) == b"to the host"
    assert acl.rt.mem_export_to_shareable_handle(h, 0, 0)[1] == RT_PARAM_INVALID  # device memory only
    ok(acl.rt.unmap_mem(va))
    ok(acl.rt.release_mem_address(va))
    ok(acl.rt.free_physical(h))


def test_virtual_memory_misuse(device):
    # aclrtMallocPhysical: the ACL layer's checks, then the runtime's.
    assert acl.rt.malloc_physical(0, prop(), 0)[1] == INVALID_PARAM
    assert acl.rt.malloc_physical(2 * MIB, prop(), 1)[1] == INVALID_PARAM  # flags reserved
    assert acl.rt.malloc_physical(2 * MIB, prop(handleType=2), 0)[1] == INVALID_PARAM
    assert acl.rt.malloc_physical(2 * MIB, prop(allocationType=1), 0)[1] == INVALID_PARAM
    assert acl.rt.malloc_physical(2 * MIB, prop(loc_type=LOC_UNREGISTERED), 0)[1] == INVALID_PARAM
    assert acl.rt.malloc_physical(2 * MIB, prop(DDR_MEM_NORMAL), 0)[1] == INVALID_PARAM
    assert acl.rt.malloc_physical(2 * MIB, prop(loc_id=64), 0)[1] == RT_INVALID_DEVICEID  # past the 8 devices
    assert acl.rt.malloc_physical(2 * MIB, prop(MEM_HUGE1G, LOC_HOST), 0)[1] == RT_PARAM_INVALID
    assert acl.rt.malloc_physical(1 << 40, prop(), 0)[1] == RT_MEMORY_ALLOCATION  # more than the device has
    # Reservations: size, flags (0 or the compatible 1), alignment reserved, expectPtr.
    assert acl.rt.reserve_mem_address(0, 0, 0, 0)[1] == INVALID_PARAM
    assert acl.rt.reserve_mem_address(MIB, 0, 0, 2)[1] == INVALID_PARAM
    assert acl.rt.reserve_mem_address(MIB, 4096, 0, 0)[1] == RT_PARAM_INVALID
    va = ok(acl.rt.reserve_mem_address(MIB, 0, 0, 1))
    assert acl.rt.reserve_mem_address(MIB, 0, va, 0)[1] == RT_PARAM_INVALID  # taken
    assert acl.rt.reserve_mem_address(MIB, 0, 0x1000, 0)[1] == RT_PARAM_INVALID  # outside the device range
    ok(acl.rt.release_mem_address(va))
    assert acl.rt.reserve_mem_address(MIB, 0, va, 0) == (va, SUCCESS)  # free again: there it is
    # Mapping: the whole physical size, offset 0, aligned, inside one reservation, no overlap.
    h = ok(acl.rt.malloc_physical(2 * MIB, prop(), 0))
    assert acl.rt.map_mem(va, 2 * MIB, 0, h, 1) == INVALID_PARAM
    assert acl.rt.map_mem(va, 0, 0, h, 0) == INVALID_PARAM
    assert acl.rt.map_mem(va, MIB, 0, h, 0) == RT_PARAM_INVALID
    assert acl.rt.map_mem(va, 2 * MIB, 4096, h, 0) == RT_PARAM_INVALID
    assert acl.rt.map_mem(va + 4096, 2 * MIB, 0, h, 0) == RT_PARAM_INVALID
    assert acl.rt.map_mem(0x1000, 2 * MIB, 0, h, 0) == RT_PARAM_INVALID
    assert acl.rt.map_mem(va, 2 * MIB, 0, 12345, 0) == RT_INVALID_HANDLE
    ok(acl.rt.map_mem(va, 2 * MIB, 0, h, 0))
    assert acl.rt.map_mem(va, 2 * MIB, 0, h, 0) == RT_PARAM_INVALID  # overlaps
    # A reservation holds memory of one device only.
    other = ok(acl.rt.reserve_mem_address(4 * MIB, 0, 0, 0))
    ok(acl.rt.map_mem(other, 2 * MIB, 0, h, 0))  # a handle may be mapped twice
    h1 = ok(acl.rt.malloc_physical(2 * MIB, prop(loc_id=1), 0))
    assert acl.rt.map_mem(other + 2 * MIB, 2 * MIB, 0, h1, 0) == RT_PARAM_INVALID
    for v in (va, other):
        ok(acl.rt.unmap_mem(v))
        ok(acl.rt.release_mem_address(v))
    ok(acl.rt.free_physical(h))
    ok(acl.rt.free_physical(h1))
    assert acl.rt.release_mem_address(0) == INVALID_PARAM


def test_finalize_releases_virtual_memory(runtime):
    ok(acl.rt.set_device(0))
    va = ok(acl.rt.reserve_mem_address(2 * MIB, 0, 0, 0))
    h = ok(acl.rt.malloc_physical(2 * MIB, prop(), 0))
    ok(acl.rt.map_mem(va, 2 * MIB, 0, h, 0))
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    ok(acl.init())
    ok(acl.rt.set_device(0))
    assert acl.rt.free_physical(h) == RT_INVALID_HANDLE  # gone with the runtime
    assert acl.rt.reserve_mem_address(2 * MIB, 0, va, 0) == (va, SUCCESS)  # and so is the reservation
    ok(acl.rt.release_mem_address(va))
    ok(acl.rt.reset_device(0))


def test_physical_mem_prop_parsing(device):
    with pytest.raises(TypeError, match="^the aclrtPhysicalMemProp argument is not dict$"):
        acl.rt.malloc_physical(2 * MIB, [], 0)
    with pytest.raises(TypeError, match="^the aclrtMemLocation argument is not dict$"):
        acl.rt.mem_get_allocation_granularity({"location": 1}, 0)
    with pytest.raises(ValueError, match="^PyLong_AsLong failed$"):
        acl.rt.malloc_physical(2 * MIB, {"memAttr": 1 << 64}, 0)
    with pytest.raises(TypeError, match=r"^acl.rt.malloc_physical args parse failed$"):
        acl.rt.malloc_physical(2 * MIB, prop(), "0")
    # Missing keys and non-int values leave the field 0: handle type NONE, HOST location, DDR_MEM.
    assert acl.rt.mem_get_allocation_granularity({}, 0)[1] == INVALID_PARAM  # memAttr 0 is not handled
    assert acl.rt.mem_get_allocation_granularity({"memAttr": MEM_NORMAL, "location": {"type": "x"}}, 0)[1] == 0


# ----------------------------------------------------------------------- between processes


def test_ipc_key_shares_device_memory_with_another_process(device, stream, kernels):
    dev = to_device(np.frombuffer(b"exporter data...", np.uint8))
    key = ok(acl.rt.ipc_mem_get_export_key(dev, 16, 65, 0))
    assert key and len(key) < 65
    with Peer() as peer:
        # Not on the whitelist: refused; then allowed, with the id the peer's device_get_bare_tgid gave.
        assert peer.call(op="ipc_import", key=key)["ret"] == RT_NO_PERMISSION
        ok(acl.rt.ipc_mem_set_import_pid(key, [peer.pid]))
        imported = peer.call(op="ipc_import", key=key)
        assert imported["ret"] == SUCCESS and imported["ptr"] % 4096 == dev % 4096
        assert bytes.fromhex(peer.call(op="read", ptr=imported["ptr"], n=13)["hex"]) == b"exporter data"
        # The peer's writes land in this process's memory, and this process's kernels' in the peer's.
        assert peer.call(op="write", ptr=imported["ptr"], hex=b"from the peer".hex())["ret"] == 0
        assert read_bytes(dev, 13) == b"from the peer"
        launch(kernels("write_value"), stream, dev, ctypes.c_uint32(0), ctypes.c_int32(0x21212121))
        ok(acl.rt.synchronize_stream(stream))
        assert bytes.fromhex(peer.call(op="read", ptr=imported["ptr"], n=4)["hex"]) == b"!!!!"
        assert peer.call(op="ipc_close", key=key)["ret"] == SUCCESS
        assert peer.call(op="ipc_close", key=key)["ret"] == RT_PARAM_INVALID  # neither imported nor its own
        ok(acl.rt.ipc_mem_close(key))  # the exporter's close destroys the key
        assert peer.call(op="ipc_import", key=key)["ret"] == RT_PARAM_INVALID
    ok(acl.rt.free(dev))


def test_ipc_close_waits_for_the_work_queued_before_it(device):
    """Issue 23 (hicann/runtime's 11_ipc_memory_withoutpid): the importer closes the key while a
    copy from the imported memory is still queued; the copy reads the exporter's data, and the
    pages go once it is done."""
    dev = to_device(np.frombuffer(b"queued before the close", np.uint8))
    key = ok(acl.rt.ipc_mem_get_export_key(dev, 23, 65, IPC_DISABLE_PID_VALIDATION))
    with Peer() as peer:
        imported = peer.call(op="ipc_import", key=key)
        assert imported["ret"] == SUCCESS
        got = peer.call(op="close_behind_queued_read", key=key, ptr=imported["ptr"], n=23)
        assert (got["close"], got["sync"]) == (SUCCESS, SUCCESS)
        assert bytes.fromhex(got["hex"]) == b"queued before the close"
        assert got["after"] != SUCCESS  # unmapped by then
    ok(acl.rt.ipc_mem_close(key))
    ok(acl.rt.free(dev))


def test_ipc_key_without_pid_validation(device):
    dev = to_device(np.frombuffer(b"open to any process", np.uint8))
    key = ok(acl.rt.ipc_mem_get_export_key(dev, 19, 65, IPC_DISABLE_PID_VALIDATION))
    with Peer() as peer:
        imported = peer.call(op="ipc_import", key=key)
        assert imported["ret"] == SUCCESS
        assert bytes.fromhex(peer.call(op="read", ptr=imported["ptr"], n=19)["hex"]) == b"open to any process"
    ok(acl.rt.ipc_mem_close(key))
    ok(acl.rt.free(dev))


def test_shareable_handle_shares_physical_memory_with_another_process(device):
    h = ok(acl.rt.malloc_physical(2 * MIB, prop(), 0))
    va = ok(acl.rt.reserve_mem_address(2 * MIB, 0, 0, 0))
    ok(acl.rt.map_mem(va, 2 * MIB, 0, h, 0))
    write_bytes(va, b"physical memory")
    shareable = ok(acl.rt.mem_export_to_shareable_handle(h, 0, 0))
    assert acl.rt.mem_export_to_shareable_handle(h, 0, 0)[1] == RT_PARAM_INVALID  # one export per handle
    assert acl.rt.mem_import_from_shareable_handle(shareable, 0)[1] == RT_PARAM_INVALID  # not in its own process
    with Peer() as peer:
        assert peer.call(op="vmm_import", handle=shareable, size=2 * MIB)["ret"] == RT_NO_PERMISSION
        ok(acl.rt.mem_set_pid_to_shareable_handle(shareable, [peer.pid]))
        imported = peer.call(op="vmm_import", handle=shareable, size=2 * MIB)
        assert imported["ret"] == SUCCESS
        assert bytes.fromhex(peer.call(op="read", ptr=imported["ptr"], n=15)["hex"]) == b"physical memory"
        assert peer.call(op="write", ptr=imported["ptr"] + MIB, hex=b"peer".hex())["ret"] == 0
        assert read_bytes(va + MIB, 4) == b"peer"
        assert peer.call(op="vmm_close")["ret"] == SUCCESS
        ok(acl.rt.unmap_mem(va))
        ok(acl.rt.free_physical(h))  # destroys the shareable handle
        assert peer.call(op="vmm_import", handle=shareable, size=2 * MIB)["ret"] == RT_PARAM_INVALID
    ok(acl.rt.release_mem_address(va))


def test_shareable_handle_without_pid_validation(device):
    h = ok(acl.rt.malloc_physical(2 * MIB, prop(), 0))
    shareable = ok(acl.rt.mem_export_to_shareable_handle(h, 0, VMM_DISABLE_PID_VALIDATION))
    with Peer(device=1) as peer:  # imported on another device
        imported = peer.call(op="vmm_import", handle=shareable, size=2 * MIB)
        assert imported["ret"] == SUCCESS
        assert peer.call(op="vmm_close")["ret"] == SUCCESS
    ok(acl.rt.free_physical(h))


def test_sharing_misuse(device):
    dev = dev_alloc(4096)
    assert acl.rt.ipc_mem_get_export_key(dev, 4096, 65, 2)[1] == RT_PARAM_INVALID  # flags
    assert acl.rt.ipc_mem_get_export_key(dev, 0, 65, 0)[1] == RT_PARAM_INVALID
    assert acl.rt.ipc_mem_get_export_key(dev, 4096, 0, 0)[1] == RT_PARAM_INVALID
    assert acl.rt.ipc_mem_get_export_key(dev, 4096, 8, 0)[1] == RT_PARAM_INVALID  # cannot hold the key
    assert acl.rt.ipc_mem_get_export_key(dev, 1 << 20, 65, 0)[1] == RT_PARAM_INVALID  # past the allocation
    host = np.zeros(64, np.uint8)
    assert acl.rt.ipc_mem_get_export_key(host.ctypes.data, 64, 65, 0)[1] == RT_PARAM_INVALID
    with pytest.raises(ValueError, match="^key len should be less than 1024$"):
        acl.rt.ipc_mem_get_export_key(dev, 4096, 1024, 0)
    key = ok(acl.rt.ipc_mem_get_export_key(dev, 4096, 65, 0))
    with pytest.raises(ValueError, match="^argument 2 only support the format of list$"):
        acl.rt.ipc_mem_set_import_pid(key, (1,))
    with pytest.raises(ValueError, match="^get values from PyList failed$"):
        acl.rt.ipc_mem_set_import_pid(key, ["1"])
    with pytest.raises(ValueError, match="^get values from PyList failed$"):
        acl.rt.mem_set_pid_to_shareable_handle(1, [1 << 31])
    assert acl.rt.ipc_mem_set_import_pid(key, []) == RT_PARAM_INVALID  # num 0
    assert acl.rt.ipc_mem_set_import_pid("aclsim:1:2:3", [1]) == RT_PARAM_INVALID  # not exported here
    assert acl.rt.ipc_mem_import_by_key("not a key", 0)[1] == RT_PARAM_INVALID
    assert acl.rt.ipc_mem_import_by_key(key, 2)[1] == RT_PARAM_INVALID  # flags
    # The exporting process may import its own key, once on its whitelist: a second address
    # for the same memory.
    assert acl.rt.ipc_mem_import_by_key(key, 0)[1] == RT_NO_PERMISSION
    ok(acl.rt.ipc_mem_set_import_pid(key, [ok(acl.rt.device_get_bare_tgid())]))
    same = ok(acl.rt.ipc_mem_import_by_key(key, 0))
    write_bytes(dev, b"twice")
    assert same != dev and read_bytes(same, 5) == b"twice"
    ok(acl.rt.ipc_mem_close(key))  # the import
    ok(acl.rt.ipc_mem_close(key))  # the export
    assert acl.rt.ipc_mem_close(key) == RT_PARAM_INVALID
    assert acl.rt.mem_set_pid_to_shareable_handle(12345, [1]) == RT_PARAM_INVALID
    assert acl.rt.mem_set_pid_to_shareable_handle(12345, []) == INVALID_PARAM
    assert acl.rt.mem_import_from_shareable_handle(12345, 0)[1] == RT_PARAM_INVALID
    assert acl.rt.mem_import_from_shareable_handle(12345, 9)[1] == RT_INVALID_DEVICEID
    assert acl.rt.mem_import_from_shareable_handle(12345, 1)[1] == RT_CONTEXT_NULL  # not the current device
    assert acl.rt.mem_export_to_shareable_handle(12345, 0, 0)[1] == RT_INVALID_HANDLE
    h = ok(acl.rt.malloc_physical(2 * MIB, prop(), 0))
    assert acl.rt.mem_export_to_shareable_handle(h, 2, 0)[1] == INVALID_PARAM  # handle type
    assert acl.rt.mem_export_to_shareable_handle(h, 0, 2)[1] == RT_PARAM_INVALID  # flags
    ok(acl.rt.free_physical(h))
    ok(acl.rt.free(dev))


def test_ipc_needs_a_context(runtime):
    assert acl.rt.ipc_mem_import_by_key("aclsim:1:2:3", 0)[1] == RT_CONTEXT_NULL
    assert acl.rt.ipc_mem_close("aclsim:1:2:3") == RT_CONTEXT_NULL


# ----------------------------------------------------------------------- host registration


def test_registered_host_memory(device, stream, kernels):
    buf = np.zeros(1024, np.int32)
    ptr = buf.ctypes.data
    assert acl.rt.pointer_get_attributes(ptr)[0]["location"]["type"] == LOC_UNREGISTERED
    dev_ptr = ok(acl.rt.host_register(ptr, buf.nbytes, 0))
    assert dev_ptr == ptr  # one address space: the device address is the host address
    assert acl.rt.host_get_device_pointer(ptr, 0) == (ptr, SUCCESS)
    assert ok(acl.rt.pointer_get_attributes(ptr + 100))["location"]["type"] == LOC_HOST
    # A kernel writes it through the device address; copies treat it as page-locked host memory.
    launch(kernels("write_value"), stream, dev_ptr, ctypes.c_uint32(5), ctypes.c_int32(55))
    ok(acl.rt.synchronize_stream(stream))
    assert buf[5] == 55
    dev = dev_alloc(buf.nbytes)
    ok(acl.rt.memcpy_async(dev, buf.nbytes, ptr, buf.nbytes, 4, stream))  # DEFAULT: registered host to device
    ok(acl.rt.synchronize_stream(stream))
    assert from_device(dev, 8, np.int32)[5] == 55
    ok(acl.rt.memset(ptr, 16, 1, 16))  # memset takes registered host memory
    assert buf[0] == 0x01010101
    # Overlaps, unregistering, and the device pointer of a range that is not a registered base.
    assert acl.rt.host_register_v2(ptr + 8, 8, HOST_REG_PINNED) == HOST_MEMORY_ALREADY_REGISTERED
    assert acl.rt.host_get_device_pointer(ptr + 8, 0)[1] == RT_PARAM_INVALID
    assert acl.rt.host_get_device_pointer(ptr, 1)[1] == INVALID_PARAM
    assert acl.rt.host_unregister(ptr + 8) == HOST_MEMORY_NOT_REGISTERED
    ok(acl.rt.host_unregister(ptr))
    assert acl.rt.host_unregister(ptr) == HOST_MEMORY_NOT_REGISTERED
    assert acl.rt.host_get_device_pointer(ptr, 0)[1] == RT_PARAM_INVALID
    # V2: pinned only (no device address), mapped, or both; the flags are checked.
    ok(acl.rt.host_register_v2(ptr, buf.nbytes, HOST_REG_PINNED))
    assert ok(acl.rt.pointer_get_attributes(ptr))["location"]["type"] == LOC_HOST
    assert acl.rt.host_get_device_pointer(ptr, 0)[1] == RT_PARAM_INVALID
    ok(acl.rt.host_unregister(ptr))
    ok(acl.rt.host_register_v2(ptr, buf.nbytes, HOST_REG_MAPPED | HOST_REG_PINNED))
    assert acl.rt.host_get_device_pointer(ptr, 0) == (ptr, SUCCESS)
    ok(acl.rt.host_unregister(ptr))
    assert acl.rt.host_register_v2(ptr, buf.nbytes, 0) == RT_PARAM_INVALID
    assert acl.rt.host_register_v2(ptr, buf.nbytes, 0x1) == RT_PARAM_INVALID
    assert acl.rt.host_register(ptr, buf.nbytes, 0x2)[1] == RT_FEATURE_NOT_SUPPORT  # V1 types: IOMEMORY, READONLY
    assert acl.rt.host_register(ptr, 0, 0)[1] == INVALID_PARAM
    assert acl.rt.host_register(8, 4096, 0)[1] == RT_PARAM_INVALID  # not mapped memory


def test_host_registration_needs_a_context(runtime):
    buf = np.zeros(16, np.uint8)
    assert acl.rt.host_register(buf.ctypes.data, 16, 0)[1] == RT_CONTEXT_NULL
    assert acl.rt.host_unregister(buf.ctypes.data) == RT_CONTEXT_NULL


# ----------------------------------------------------------------------- value write / wait


def test_value_wait_holds_the_stream_not_the_host(device, stream):
    writer = ok(acl.rt.create_stream())
    flag, out = dev_alloc(64), dev_alloc(64)
    ok(acl.rt.memset(flag, 64, 0, 64))
    ok(acl.rt.memset(out, 64, 0, 64))
    t0 = time.monotonic()
    ok(acl.rt.value_wait(flag, 3, WAIT_GEQ, stream))
    ok(acl.rt.memset_async(out, 64, 7, 64, stream))
    assert time.monotonic() - t0 < 1  # the host went on
    assert acl.rt.synchronize_stream_with_timeout(stream, 50) == RT_STREAM_SYNC_TIMEOUT
    assert acl.rt.stream_query(stream) == (1, SUCCESS)  # NOT_READY
    ok(acl.rt.value_write(flag, 2, 0, writer))
    ok(acl.rt.synchronize_stream(writer))
    assert acl.rt.synchronize_stream_with_timeout(stream, 20) == RT_STREAM_SYNC_TIMEOUT
    assert read_bytes(out, 1) == b"\0"
    ok(acl.rt.value_write(flag, 3, 0, writer))
    ok(acl.rt.synchronize_stream(stream))
    assert read_bytes(out, 1) == b"\x07"
    ok(acl.rt.destroy_stream(writer))


@pytest.mark.parametrize(
    "flag, start, want, satisfied_by",
    [
        (WAIT_GEQ, 0, 10, 10),
        (WAIT_GEQ, 0, (1 << 64) - 5, 0),  # signed: 0 >= -5, so it is satisfied at once
        (WAIT_EQ, 1, 42, 42),
        (WAIT_AND, 0b0101, 0b1010, 0b0010),
        (WAIT_NOR, (1 << 64) - 1, 0xF0, 0x0F0),  # ~(v | 0xF0) != 0 once v leaves a bit clear
    ],
)
def test_value_wait_conditions(device, stream, flag, start, want, satisfied_by):
    mem = dev_alloc(8)
    write_u64(mem, start)
    ok(acl.rt.value_wait(mem, want, flag, stream))
    already = start == satisfied_by or acl.rt.synchronize_stream_with_timeout(stream, 30) == SUCCESS
    if not already:
        write_u64(mem, satisfied_by)  # a host write, noticed at the next poll (at most 1 ms later)
    assert acl.rt.synchronize_stream_with_timeout(stream, 5000) == SUCCESS


def test_value_wait_ends_with_its_stream(device, kernels):
    mem, out = dev_alloc(8), dev_alloc(8)
    write_u64(mem, 0)
    write_u64(out, 0)
    for destroy in (acl.rt.destroy_stream, acl.rt.destroy_stream_force):
        s = ok(acl.rt.create_stream())
        ok(acl.rt.value_wait(mem, 1, WAIT_EQ, s))
        ok(acl.rt.memset_async(out, 8, 9, 8, s))
        ok(destroy(s))  # returns: the wait gives up, what was queued behind it is discarded
    assert read_bytes(out, 1) == b"\0"
    s = ok(acl.rt.create_stream())
    ok(acl.rt.value_wait(mem, 1, WAIT_EQ, s))
    # ... and with its device (the fixture's reset_device would otherwise never return).


def test_value_write_wait_misuse(device, stream):
    mem = dev_alloc(8)
    host = np.zeros(1, np.uint64)
    assert acl.rt.value_write(0, 1, 0, stream) == INVALID_PARAM
    assert acl.rt.value_write(mem, 1, 1, stream) == RT_PARAM_INVALID  # flag reserved
    assert acl.rt.value_wait(mem, 1, 4, stream) == RT_PARAM_INVALID  # not a condition
    assert acl.rt.value_write(host.ctypes.data, 1, 0, stream) == RT_PARAM_INVALID  # host memory
    assert acl.rt.value_wait(mem, 1, 0, 12345) == RT_INVALID_HANDLE
    assert acl.rt.value_write(mem, 1, 4, 12345) == RT_INVALID_HANDLE  # the handle is checked first
    ok(acl.rt.free(mem))
    assert acl.rt.value_write(mem, 1, 0, stream) == RT_PARAM_INVALID  # freed
    live = dev_alloc(8)
    ok(acl.rt.value_write(live, (1 << 64) - 1, 0, 0))
    ok(acl.rt.synchronize_stream(0))
    assert from_device(live, 1, np.uint64)[0] == (1 << 64) - 1


def test_a_failed_value_write_is_reported_as_a_task_failure(device, stream):
    # The address is checked at submission; freeing it before the task runs makes the write fault.
    hold, mem = dev_alloc(8), dev_alloc(8)
    write_u64(hold, 0)
    ok(acl.rt.value_wait(hold, 1, WAIT_EQ, stream))
    ok(acl.rt.value_write(mem, 5, 0, stream))
    ok(acl.rt.free(mem))
    write_u64(hold, 1)
    assert acl.rt.synchronize_stream(stream) == RT_SYS_DMA
    ok(acl.rt.synchronize_stream(stream))  # reported once


# ----------------------------------------------------------------------- copies by descriptor


def test_copy_by_descriptor_reads_the_descriptor_when_it_runs(device, stream):
    assert acl.rt.get_memcpy_desc_size(INNER_DEVICE_TO_DEVICE) == (32, SUCCESS)
    assert acl.rt.get_memcpy_desc_size(3)[1] == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.get_memcpy_desc_size(8)[1] == INVALID_PARAM
    desc = dev_alloc(64)
    first, second, dst = (to_device(np.frombuffer(t, np.uint8)) for t in (b"first!", b"second", b"......"))
    assert acl.rt.set_memcpy_desc(desc, INNER_DEVICE_TO_DEVICE, first, dst, 6, 0) == (desc, SUCCESS)
    layout = struct.unpack("<4I2Q", read_bytes(desc, 32))
    assert layout == (0, 0, 0, 6, first, dst)  # rtMemcpyAddrInfo
    # Held behind a wait, the copy runs after the descriptor was pointed at `second`.
    hold = dev_alloc(8)
    write_u64(hold, 0)
    ok(acl.rt.value_wait(hold, 1, WAIT_EQ, stream))
    ok(acl.rt.memcpy_async_with_desc(desc, INNER_DEVICE_TO_DEVICE, stream))
    ok(acl.rt.set_memcpy_desc(desc, INNER_DEVICE_TO_DEVICE, second, dst, 6, 0))
    write_u64(hold, 1)
    ok(acl.rt.synchronize_stream(stream))
    assert read_bytes(dst, 6) == b"second"
    # A descriptor that no longer names device memory fails the copy when it runs.
    host = np.zeros(8, np.uint8)
    write_bytes(desc + 16, struct.pack("<Q", host.ctypes.data))
    ok(acl.rt.memcpy_async_with_desc(desc, INNER_DEVICE_TO_DEVICE, stream))
    assert acl.rt.synchronize_stream(stream) == RT_SYS_DMA


def test_copy_by_descriptor_misuse(device, stream):
    desc, a, b = dev_alloc(64), dev_alloc(64), dev_alloc(64)
    host = np.zeros(64, np.uint8)
    assert acl.rt.set_memcpy_desc(desc, 3, a, b, 8, 0)[1] == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.set_memcpy_desc(desc, 8, a, b, 8, 0)[1] == INVALID_PARAM
    assert acl.rt.set_memcpy_desc(desc, INNER_DEVICE_TO_DEVICE, a, b, 0, 0)[1] == INVALID_PARAM
    assert acl.rt.set_memcpy_desc(desc, INNER_DEVICE_TO_DEVICE, a, b, 8, 1)[1] == INVALID_PARAM  # config reserved
    assert acl.rt.set_memcpy_desc(desc + 8, INNER_DEVICE_TO_DEVICE, a, b, 8, 0)[1] == RT_PARAM_INVALID  # unaligned
    assert acl.rt.set_memcpy_desc(desc, INNER_DEVICE_TO_DEVICE, host.ctypes.data, b, 8, 0)[1] == RT_PARAM_INVALID
    assert acl.rt.set_memcpy_desc(host.ctypes.data & ~63, INNER_DEVICE_TO_DEVICE, a, b, 8, 0)[1] == RT_PARAM_INVALID
    assert acl.rt.set_memcpy_desc(desc, INNER_DEVICE_TO_DEVICE, a, b, (4 << 30) + 1, 0)[1] == RT_PARAM_INVALID
    ok(acl.rt.set_device(1))
    other = dev_alloc(64)
    ok(acl.rt.set_context(device))  # back to device 0
    assert acl.rt.set_memcpy_desc(desc, INNER_DEVICE_TO_DEVICE, a, other, 8, 0)[1] == RT_PARAM_INVALID  # two devices
    assert acl.rt.memcpy_async_with_desc(desc, 3, stream) == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.memcpy_async_with_desc(desc, INNER_DEVICE_TO_DEVICE, 0) == INVALID_PARAM  # a stream is needed
    assert acl.rt.memcpy_async_with_desc(desc + 8, INNER_DEVICE_TO_DEVICE, stream) == RT_PARAM_INVALID
    assert acl.rt.memcpy_async_with_desc(desc, INNER_DEVICE_TO_DEVICE, 12345) == RT_INVALID_HANDLE
    ok(acl.rt.free(other))
    acl.rt.reset_device(1)


def test_memcpy_async_with_condition_is_memcpy_async(device, stream):
    src = np.arange(64, dtype=np.uint8)
    dst = dev_alloc(64)
    # Pageable host memory: the copy is done when the call returns, as memcpy_async's is.
    ok(acl.rt.memcpy_async_with_condition(dst, 64, src.ctypes.data, 64, ACL_MEMCPY_HOST_TO_DEVICE, stream))
    assert np.array_equal(from_device(dst, 64, np.uint8), src)
    assert acl.rt.memcpy_async_with_condition(dst, 8, src.ctypes.data, 64, 1, stream) == RT_PARAM_INVALID
    assert acl.rt.memcpy_async_with_condition(dst, 64, src.ctypes.data, 0, 9, stream) == SUCCESS  # count 0 first
    assert acl.rt.memcpy_async_with_condition(dst, 64, src.ctypes.data, 8, 7, stream) == INVALID_PARAM


# ----------------------------------------------------------------------- reduce, CMO


@pytest.mark.parametrize(
    "dtype, acl_type, kind, a, b, want",
    [
        (np.float32, ACL_FLOAT, REDUCE_SUM, [1.5, -2, 3], [0.25, 2, 4], [1.75, 0, 7]),
        (np.float32, ACL_FLOAT, REDUCE_MAX, [1, np.nan, 3], [2, 5, np.nan], [2, 5, 3]),
        (np.float32, ACL_FLOAT, REDUCE_MIN, [1, -2, 3], [2, -5, 0], [1, -5, 0]),
        (np.int8, ACL_INT8, REDUCE_SUM, [127, -128, 5], [1, -1, 5], [-128, 127, 10]),  # wraps around
        (np.int16, ACL_INT16, REDUCE_MAX, [-7, 300, 0], [-8, 299, 1], [-7, 300, 1]),
        (np.int32, ACL_INT32, REDUCE_MIN, [1 << 30, -3, 9], [-(1 << 30), 4, 9], [-(1 << 30), -3, 9]),
        (np.float16, ACL_FLOAT16, REDUCE_SUM, [1, 0.5, 65504], [2, 0.25, 65504], [3, 0.75, np.inf]),
    ],
)
def test_reduce(device, stream, dtype, acl_type, kind, a, b, want):
    dst, src = to_device(np.array(a, dtype)), to_device(np.array(b, dtype))
    ok(acl.rt.reduce_async(dst, src, np.dtype(dtype).itemsize * len(a), kind, acl_type, stream, 0))
    ok(acl.rt.synchronize_stream(stream))
    np.testing.assert_array_equal(from_device(dst, len(a), dtype), np.array(want, dtype))


def test_reduce_bf16(device, stream):
    def bf16(values: list[float]) -> np.ndarray:
        return (np.array(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)

    dst, src = to_device(bf16([1.0, 2.5, -3.0])), to_device(bf16([0.5, 2.5, 1.0]))
    ok(acl.rt.reduce_async(dst, src, 6, REDUCE_SUM, ACL_BF16, stream, 0))
    ok(acl.rt.synchronize_stream(stream))
    out = (from_device(dst, 3, np.uint16).astype(np.uint32) << 16).view(np.float32)
    assert list(out) == [1.5, 5.0, -2.0]


def test_reduce_misuse(device, stream):
    dst, src = dev_alloc(64), dev_alloc(64)
    assert acl.rt.reduce_async(dst, src, 64, REDUCE_SUM, ACL_FLOAT, stream, 1) == INVALID_PARAM  # reserve
    assert acl.rt.reduce_async(dst, src, 64, REDUCE_SUM, ACL_DOUBLE, stream, 0) == INVALID_PARAM  # not mapped
    assert acl.rt.reduce_async(dst, src, 0, REDUCE_SUM, ACL_FLOAT, stream, 0) == RT_PARAM_INVALID
    assert acl.rt.reduce_async(dst, src, 64, 9, ACL_FLOAT, stream, 0) == RT_PARAM_INVALID
    assert acl.rt.reduce_async(dst, src, 64, REDUCE_EQUAL, ACL_FLOAT, stream, 0) == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.reduce_async(dst, src, 64, REDUCE_SUM, ACL_UINT8, stream, 0) == RT_FEATURE_NOT_SUPPORT  # not on A2
    assert acl.rt.reduce_async(dst + 2, src, 8, REDUCE_SUM, ACL_FLOAT, stream, 0) == RT_ADDR_UNALIGNED
    assert acl.rt.reduce_async(dst, src, 6, REDUCE_SUM, ACL_FLOAT, stream, 0) == RT_PARAM_INVALID  # 1.5 elements
    host = np.zeros(16, np.float32)
    assert acl.rt.reduce_async(host.ctypes.data, src, 64, REDUCE_SUM, ACL_FLOAT, stream, 0) == RT_PARAM_INVALID
    assert acl.rt.reduce_async(dst, src, 64, REDUCE_SUM, ACL_FLOAT, 12345, 0) == RT_INVALID_HANDLE


def test_cmo_async(device, stream):
    mem = dev_alloc(4096)
    for cmo_type in range(4):  # prefetch, write back, invalidate, flush
        ok(acl.rt.cmo_async(mem, 4096, cmo_type, stream))
    ok(acl.rt.synchronize_stream(stream))
    assert acl.rt.cmo_async(mem, 4096, 4, stream) == RT_FEATURE_NOT_SUPPORT
    assert acl.rt.cmo_async(mem, 0, 0, stream) == INVALID_PARAM
    assert acl.rt.cmo_async(0, 64, 0, stream) == INVALID_PARAM
    hold = dev_alloc(8)
    write_u64(hold, 0)
    ok(acl.rt.value_wait(hold, 1, WAIT_EQ, stream))
    ok(acl.rt.cmo_async(mem, 4096, 3, stream))
    ok(acl.rt.free(mem))  # the range is not device memory any more when the task runs
    write_u64(hold, 1)
    assert acl.rt.synchronize_stream(stream) == RT_SYS_DMA


# ----------------------------------------------------------------------- allocators


def test_allocator_registry(device, stream):
    desc = acl.rt.allocator_create_desc()
    assert desc != 0
    calls = []
    assert acl.rt.allocator_register(stream, desc) == INVALID_PARAM  # nothing set yet
    ok(acl.rt.allocator_set_obj_to_desc(desc, 0))  # pyACL passes the address of the value: never NULL
    ok(acl.rt.allocator_set_alloc_func_to_desc(desc, lambda allocator, size: calls.append(("alloc", size)) or 0x1000))
    ok(acl.rt.allocator_set_free_func_to_desc(desc, lambda allocator, block: calls.append(("free", block))))
    assert acl.rt.allocator_register(stream, desc) == INVALID_PARAM  # get-addr function missing
    ok(acl.rt.allocator_set_get_addr_from_block_func_to_desc(desc, lambda block: block + 16))
    ok(acl.rt.allocator_set_alloc_advise_func_to_desc(desc, lambda allocator, size, address: address))
    ok(acl.rt.allocator_register(stream, desc))
    assert acl.rt.allocator_register(0, desc) == INVALID_PARAM  # a stream is needed
    # What a model executor finds for the stream (aclrtAllocatorGetByStream): the functions
    # set through pyACL, which call the Python ones.
    out = [
        ffi.new(t)
        for t in (
            "aclrtAllocatorDesc *",
            "aclrtAllocator *",
            "aclrtAllocatorAllocFunc *",
            "aclrtAllocatorFreeFunc *",
            "aclrtAllocatorAllocAdviseFunc *",
            "aclrtAllocatorGetAddrFromBlockFunc *",
        )
    ]
    assert lib.aclrtAllocatorGetByStream(ffi.cast("void *", stream), *out) == 0
    got_desc, allocator, alloc, free_, advise, get_addr = (o[0] for o in out)
    assert int(ffi.cast("uintptr_t", got_desc)) == desc
    assert ffi.cast("uint64_t *", allocator)[0] == 0  # points at the allocator value set
    assert int(ffi.cast("uintptr_t", alloc(allocator, 256))) == 0x1000
    free_(allocator, ffi.cast("void *", 0x1000))
    assert int(ffi.cast("uintptr_t", get_addr(ffi.cast("void *", 0x2000)))) == 0x2010
    assert int(ffi.cast("uintptr_t", advise(allocator, 8, ffi.cast("void *", 0x3000)))) == 0x3000
    assert calls == [("alloc", 256), ("free", 0x1000)]
    ok(acl.rt.allocator_unregister(stream))
    ok(acl.rt.allocator_unregister(stream))  # unknown streams too
    assert lib.aclrtAllocatorGetByStream(ffi.cast("void *", stream), *out) == INVALID_PARAM
    ok(acl.rt.allocator_destroy_desc(desc))
    assert acl.rt.allocator_destroy_desc(desc) == INVALID_PARAM
    assert acl.rt.allocator_set_alloc_func_to_desc(desc, print) == INVALID_PARAM


def test_allocator_function_that_raises_gives_null(device, stream, caplog):
    desc = acl.rt.allocator_create_desc()
    ok(acl.rt.allocator_set_alloc_func_to_desc(desc, lambda allocator, size: 1 / 0))
    alloc = ffi.cast("aclrtAllocatorAllocFunc", lib.aiocann_acl_allocator_alloc)
    assert alloc(ffi.NULL, 8) == ffi.NULL
    assert "ZeroDivisionError" in caplog.text
    ok(acl.rt.allocator_destroy_desc(desc))


# ----------------------------------------------------------------------- memory UCE


def test_memory_uce(device):
    assert acl.rt.get_mem_uce_info(0, 20) == ([], SUCCESS)  # simulated memory never has one
    assert acl.rt.get_mem_uce_info(9, 20)[1] == RT_INVALID_DEVICEID
    assert acl.rt.get_mem_uce_info(1, 20)[1] == RT_CONTEXT_NULL  # not the current device
    assert acl.rt.mem_uce_repair(0, []) == SUCCESS
    mem = dev_alloc(64)
    assert acl.rt.mem_uce_repair(0, [{"addr": mem, "len": 64}]) == RT_PARAM_INVALID  # nothing to repair there
    assert acl.rt.mem_uce_repair(0, [{"addr": mem, "len": 64, "reserved": [1]}]) == INVALID_PARAM
    assert acl.rt.mem_uce_repair(0, [{"addr": mem}] * 21) == INVALID_PARAM
    with pytest.raises(TypeError, match="^aclrtMemUceInfo argument is not list$"):
        acl.rt.mem_uce_repair(0, {})
    with pytest.raises(TypeError, match="^the aclrtMemUceInfo argument is not dict$"):
        acl.rt.mem_uce_repair(0, [1])
    with pytest.raises(TypeError, match=r"^acl.rt.get_mem_uce_info args parse failed!$"):
        acl.rt.get_mem_uce_info("0", 1)


def test_memory_operations_are_captured_and_replayed(device, stream):
    """A capturing stream records value writes, reduces and copies by descriptor like any task
    (docs/zh/api_ref/15: ACL_MODEL_RI_TASK_VALUE_WRITE); each replay runs them again, reading
    the descriptor anew."""
    mem, desc, dst = dev_alloc(8), dev_alloc(64), dev_alloc(8)
    write_u64(mem, 0)
    ok(acl.rt.set_memcpy_desc(desc, INNER_DEVICE_TO_DEVICE, mem, dst, 8, 0))
    s = ffi.cast("void *", stream)
    assert lib.aclmdlRICaptureBegin(s, 2) == SUCCESS  # RELAXED
    ok(acl.rt.value_write(mem, 3, 0, stream))
    ok(acl.rt.reduce_async(mem, mem, 8, REDUCE_SUM, ACL_INT32, stream, 0))  # two int32: mem *= 2
    ok(acl.rt.memcpy_async_with_desc(desc, INNER_DEVICE_TO_DEVICE, stream))
    model = ffi.new("aclmdlRI *")
    assert lib.aclmdlRICaptureEnd(s, model) == SUCCESS
    assert from_device(mem, 1, np.uint64)[0] == 0  # captured, not run
    for _ in range(2):
        assert lib.aclmdlRIExecuteAsync(model[0], s) == SUCCESS
        ok(acl.rt.synchronize_stream(stream))
        assert list(from_device(dst, 2, np.int32)) == [6, 0]
    assert lib.aclmdlRIDestroy(model[0]) == SUCCESS
