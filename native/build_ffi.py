"""cffi builder for aiocann._native (API mode).

It only reads C files: the cdef is the region between ``/* cffi-begin */`` and
``/* cffi-end */`` of the ACL headers and of aiocann_native.h, and the module body is
native_module.c. Paths are relative to the project root, where setuptools runs this.
"""

from pathlib import Path

from cffi import FFI

NATIVE = Path("native")
CDEF_HEADERS = [
    NATIVE / "include" / "acl" / "acl_base.h",
    NATIVE / "include" / "acl" / "acl_rt.h",
    NATIVE / "include" / "acl" / "acl_rt_allocator.h",
    NATIVE / "include" / "acl" / "acl_rt_device.h",
    NATIVE / "include" / "acl" / "acl_rt_compile.h",
    NATIVE / "include" / "aclsim_ext.h",
    NATIVE / "include" / "aclsim_chip.h",
    NATIVE / "aiocann_native.h",
    NATIVE / "aiocann_python.h",
]
HELPER_SOURCES = [
    "native/loader.c",
    "native/completion_queue.c",
    "native/fastpath.c",
    "native/loop_timer.c",
    "native/common/host_probe.c",
]


def cdef_region(path: Path) -> str:
    text = path.read_text()
    begin, end = text.find("/* cffi-begin */"), text.find("/* cffi-end */")
    if begin < 0 or end < begin:
        raise RuntimeError(f"{path} has no /* cffi-begin */ ... /* cffi-end */ region")
    return text[begin + len("/* cffi-begin */") : end]


ffibuilder = FFI()
ffibuilder.cdef("\n".join(cdef_region(p) for p in CDEF_HEADERS))
ffibuilder.set_source(
    "aiocann._native",
    (NATIVE / "native_module.c").read_text(),
    sources=HELPER_SOURCES,
    include_dirs=[str(NATIVE / "include"), str(NATIVE), str(NATIVE / "common")],
    extra_compile_args=["-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden"],
    libraries=["dl", "pthread", "m"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
