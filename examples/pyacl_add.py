"""Vector add in pyACL style, on the aiocann simulator: the nine steps of loading and running a
kernel with the ACL runtime.

    python examples/pyacl_add.py                 # imports aiocann.acl as acl
    python -m aiocann.acl examples/pyacl_add.py  # `import acl` resolves to aiocann.acl

The kernel is examples/kernels/vector_add.c, ``add_custom(x, y, z, tiling)``: z = x + y over
float32, the element count arriving as tiling data through a placeholder parameter. The
program builds the kernel's argument list both ways the runtime offers -- the system-managed
handle (``kernel_args_init``) and one in the program's own memory
(``kernel_args_init_by_user_mem``) -- updates a parameter in place, and checks every result
against numpy. It exits 0 on success. (On a host with CANN installed, set
AIOCANN_BACKEND=sim: the kernel is a simulator binary.)
"""

from __future__ import annotations

import ctypes
import struct
import sys

import numpy as np

try:  # under `python -m aiocann.acl`, this is aiocann.acl ...
    import acl
except ImportError:  # ... run directly: the same module under its own name
    import aiocann.acl as acl

from aiocann.compiler import build_kernel, example_kernel

DEVICE = 0
N = 1 << 16  # elements
BLOCKS = 8
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE = 1
POINTER_SIZE = 8
TILING = struct.Struct("<II")  # AddTiling {uint32 total; uint32 reserved}


def check(ret: int, what: str) -> None:
    if ret != 0:
        raise RuntimeError(f"{what} failed: ret={ret}: {acl.get_recent_err_msg()}")


def append_pointer(args: int, dev_ptr: int) -> int:
    """A pointer parameter is the address of a host variable holding the device pointer."""
    value = ctypes.c_uint64(dev_ptr)
    param, ret = acl.rt.kernel_args_append(args, ctypes.addressof(value), POINTER_SIZE)
    check(ret, "acl.rt.kernel_args_append")
    return param


def append_tiling(args: int, total: int) -> None:
    """The placeholder slot, then its data: the runtime patches the slot to point at it."""
    placeholder, ret = acl.rt.kernel_args_append_place_holder(args)
    check(ret, "acl.rt.kernel_args_append_place_holder")
    buf, ret = acl.rt.kernel_args_get_place_holder_buffer(args, placeholder, TILING.size)
    check(ret, "acl.rt.kernel_args_get_place_holder_buffer")
    ctypes.memmove(buf, TILING.pack(total, 0), TILING.size)


def to_host(dev_ptr: int) -> np.ndarray:
    out = np.empty(N, dtype=np.float32)
    check(
        acl.rt.memcpy(out.ctypes.data, out.nbytes, dev_ptr, out.nbytes, ACL_MEMCPY_DEVICE_TO_HOST),
        "acl.rt.memcpy",
    )
    return out


def main() -> int:
    # 1. Initialise, 2. bind a device, 3. create a stream.
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE), "acl.rt.set_device")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")

    # 4. Load the binary, 5. get the kernel.
    kernel_path = build_kernel(example_kernel("vector_add.c"))  # examples/kernels/vector_add.c
    binary, ret = acl.rt.binary_load_from_file(str(kernel_path), [])
    check(ret, "acl.rt.binary_load_from_file")
    func, ret = acl.rt.binary_get_function(binary, "add_custom")
    check(ret, "acl.rt.binary_get_function")

    # Inputs on the device; three output buffers.
    x = np.arange(N, dtype=np.float32)
    y = np.full(N, 0.5, dtype=np.float32)
    nbytes = x.nbytes
    dev = {}
    for name in ("x", "y", "z", "z2", "z3"):
        dev[name], ret = acl.rt.malloc(nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret, "acl.rt.malloc")
    for name, host in (("x", x), ("y", y)):
        check(
            acl.rt.memcpy(dev[name], nbytes, host.ctypes.data, nbytes, ACL_MEMCPY_HOST_TO_DEVICE),
            "acl.rt.memcpy",
        )
    check(acl.rt.memset(dev["z3"], nbytes, 0, nbytes), "acl.rt.memset")

    # 6. The argument list, system-managed: pointers, then the tiling placeholder; finalize.
    args, ret = acl.rt.kernel_args_init(func)
    check(ret, "acl.rt.kernel_args_init")
    append_pointer(args, dev["x"])
    append_pointer(args, dev["y"])
    z_param = append_pointer(args, dev["z"])
    append_tiling(args, N)
    check(acl.rt.kernel_args_finalize(args), "acl.rt.kernel_args_finalize")

    # 7. Launch, 8. synchronize: the args block is copied at launch, so it can change next.
    check(
        acl.rt.launch_kernel_with_config(func, BLOCKS, stream, [], args, 0),
        "acl.rt.launch_kernel_with_config",
    )
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")

    # Update the output parameter in place, finalize again, launch into z2.
    z2_value = ctypes.c_uint64(dev["z2"])
    check(
        acl.rt.kernel_args_para_update(args, z_param, ctypes.addressof(z2_value), POINTER_SIZE),
        "acl.rt.kernel_args_para_update",
    )
    check(acl.rt.kernel_args_finalize(args), "acl.rt.kernel_args_finalize")
    check(
        acl.rt.launch_kernel_with_config(func, BLOCKS, stream, [], args, 0),
        "acl.rt.launch_kernel_with_config",
    )

    # 6'. The same list in the program's own memory: the handle and the args buffer are host
    # allocations this program owns (and keeps until the launches using them are done). This
    # one's tiling covers only the first half of the elements.
    handle_size, ret = acl.rt.kernel_args_get_handle_mem_size(func)
    check(ret, "acl.rt.kernel_args_get_handle_mem_size")
    user_args_size = 3 * POINTER_SIZE + POINTER_SIZE + TILING.size  # x, y, z3, placeholder, tiling
    args_size, ret = acl.rt.kernel_args_get_mem_size(func, user_args_size)
    check(ret, "acl.rt.kernel_args_get_mem_size")
    handle_mem, ret = acl.rt.malloc_host(handle_size)
    check(ret, "acl.rt.malloc_host")
    args_mem, ret = acl.rt.malloc_host(args_size)
    check(ret, "acl.rt.malloc_host")
    check(
        acl.rt.kernel_args_init_by_user_mem(func, handle_mem, args_mem, args_size),
        "acl.rt.kernel_args_init_by_user_mem",
    )
    user_args = handle_mem  # the handle is the memory it was built in
    for name in ("x", "y", "z3"):
        append_pointer(user_args, dev[name])
    append_tiling(user_args, N // 2)
    check(acl.rt.kernel_args_finalize(user_args), "acl.rt.kernel_args_finalize")
    batch = [{"id": ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, "value": 1}]  # start when all blocks fit
    check(
        acl.rt.launch_kernel_with_config(func, BLOCKS, stream, batch, user_args, 0),
        "acl.rt.launch_kernel_with_config",
    )
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")

    # 9. Check against numpy.
    expected = x + y
    half = expected.copy()
    half[N // 2 :] = 0
    results = {
        "z": (to_host(dev["z"]), expected),
        "z2": (to_host(dev["z2"]), expected),
        "z3": (to_host(dev["z3"]), half),
    }
    ok = all(np.array_equal(got, want) for got, want in results.values())

    # Tear down in order: memory, binary, stream, device, runtime.
    for ptr in dev.values():
        check(acl.rt.free(ptr), "acl.rt.free")
    check(acl.rt.free_host(args_mem), "acl.rt.free_host")
    check(acl.rt.free_host(handle_mem), "acl.rt.free_host")
    check(acl.rt.binary_unload(binary), "acl.rt.binary_unload")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.reset_device(DEVICE), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")

    for name, (got, want) in results.items():
        status = "ok" if np.array_equal(got, want) else "MISMATCH"
        print(f"{name}: {status} ({np.count_nonzero(got == want)}/{N} elements match)")
    print(f"vector add via {acl.__name__}: {N} float32 elements, {BLOCKS} blocks: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
