"""aiocann.acl: a pyACL-compatible module, so programs written for pyACL (``import acl``) run on
aiocann -- on the bundled simulator or on a real CANN runtime -- unchanged.

Where it sits: the synchronous facade above :mod:`aiocann._lib` (the only owner of the cffi
binding), beside the async core, which it does not use -- importing it does not import anyio,
nor numpy until a numpy helper is called, so pyACL programs start fast. It has pyACL's layout
and names::

    import aiocann.acl as acl          # or `import acl` under `python -m aiocann.acl PROGRAM.py`

    ret = acl.init()
    ret = acl.rt.set_device(0)
    stream, ret = acl.rt.create_stream()
    dev_ptr, ret = acl.rt.malloc(1024, 0)
    tid, ret = acl.util.start_thread(loop, None)

and pyACL's conventions (reference §13): handles and addresses are ints, a call with outputs
returns ``(value..., ret)`` with the ACL return code last and a call without outputs the bare
``ret``; runtime failures are return codes, never exceptions; arguments pyACL could not parse
raise the exception pyACL raises, with its text.

``acl.rt`` wraps pyACL's runtime functions, ``acl.util`` the thread and memory helpers, and
this module the runtime functions of pyACL's top level (init, versions, SoC name, ...). The
rest of pyACL -- models (``acl.mdl``), operators (``acl.op``), media (``acl.media``,
``acl.himpi``), ``acl.blas``, ``acl.prof``, ``acl.fv``, and the tensor/data-buffer functions
of the top level -- are present as stand-ins that raise NotImplementedError when called
(docs/pyacl.md lists what is covered).

``python -m aiocann.acl PROGRAM.py [ARGS...]`` (or ``-m MODULE``, ``-c CODE``) runs an
unmodified pyACL program with ``import acl`` resolved to this module (see
:mod:`aiocann.acl.__main__`).
"""

from __future__ import annotations

import logging
import math
import struct
from typing import Any

from .._lib import ffi, lib
from . import blas, fv, himpi, mdl, media, op, prof, rt, util
from ._convert import cstr, pyacl
from ._unsupported import not_implemented

__all__ = [
    "app_log",
    "blas",
    "finalize",
    "finalize_reference",
    "float16_to_float",
    "float_to_float16",
    "fv",
    "get_cann_version",
    "get_device_capability",
    "get_recent_err_msg",
    "get_soc_name",
    "get_version",
    "get_version_str",
    "himpi",
    "init",
    "mdl",
    "media",
    "op",
    "prof",
    "rt",
    "util",
]

_log = logging.getLogger("aiocann.acl")


@pyacl("acl.init", "|s")
def init(config_path: str | None = None, /) -> int:
    """aclInit. ``config_path`` (optional) is a JSON config file; 100002 if already initialised
    (each such call is counted, for finalize_reference)."""
    return int(lib.aclInit(ffi.NULL if config_path is None else cstr(config_path)))


@pyacl("acl.finalize", None)
def finalize() -> int:
    """aclFinalize. Also drops the host callbacks the runtime had not delivered: after a
    successful finalize it never will."""
    ret = int(lib.aclFinalize())
    if ret == 0:
        rt._drop_pending_callbacks()
    return ret


@pyacl("acl.finalize_reference", None)
def finalize_reference() -> tuple[int, int]:
    """aclFinalizeReference: ``(ref_count, ret)``. With several acl.init calls outstanding it
    only drops one; the last tears down like finalize."""
    refs = ffi.new("uint64_t *")
    ret = int(lib.aclFinalizeReference(refs))
    if ret == 0 and refs[0] == 0:
        rt._drop_pending_callbacks()
    return int(refs[0]), ret


@pyacl("acl.get_recent_err_msg", None)
def get_recent_err_msg() -> str | None:
    """The calling thread's recent ACL error messages (newest first), then cleared; None if
    there are none."""
    p = lib.aclGetRecentErrMsg()
    if p == ffi.NULL:
        return None
    return ffi.string(p).decode("utf-8", errors="replace")  # type: ignore[no-any-return]


@pyacl("acl.get_version", None)
def get_version() -> tuple[int, int, int, int]:
    """aclrtGetVersion: ``(major, minor, patch, ret)``."""
    v = ffi.new("int32_t[3]")
    ret = lib.aclrtGetVersion(v, v + 1, v + 2)
    return int(v[0]), int(v[1]), int(v[2]), int(ret)


@pyacl("acl.get_soc_name", None)
def get_soc_name() -> str | None:
    """aclrtGetSocName: the SoC the devices are ("Ascend910B1" for the simulator's, or
    AIOCANN_SIM_SOC_NAME), None if the runtime cannot tell."""
    p = lib.aclrtGetSocName()
    if p == ffi.NULL:
        return None
    return ffi.string(p).decode("utf-8", errors="replace")  # type: ignore[no-any-return]


@pyacl("acl.get_version_str", "s")
def get_version_str(pkg_name: str, /) -> tuple[str, int]:
    """aclsysGetVersionStr: ``(version, ret)`` of an installed CANN package ("" when absent)."""
    out = ffi.new("char[]", 128)  # ACL_PKG_VERSION_MAX_SIZE, zeroed
    ret = lib.aclsysGetVersionStr(ffi.new("char[]", cstr(pkg_name)), out)
    return ffi.string(out).decode("utf-8", errors="replace"), int(ret)


@pyacl("acl.get_cann_version", "I")
def get_cann_version(name: int, /) -> tuple[dict[str, str], int]:
    """aclsysGetCANNVersion: ``({"version", "major_version", "minor_version",
    "release_version", "patch_version", "reserved"}, ret)`` of an aclCANNPackageName."""
    v = ffi.new("aclCANNPackageVersion *")
    ret = lib.aclsysGetCANNVersion(name, v)

    def text(field: Any) -> str:
        return ffi.string(field).decode("utf-8", errors="replace")  # type: ignore[no-any-return]

    info = {
        "version": text(v.version),
        "major_version": text(v.majorVersion),
        "minor_version": text(v.minorVersion),
        "release_version": text(v.releaseVersion),
        "patch_version": text(v.patchVersion),
        "reserved": text(v.reserved),
    }
    return info, int(ret) & 0xFFFF_FFFF  # pyACL: "OI"


@pyacl("acl.get_device_capability", "Ii")
def get_device_capability(device_id: int, device_info: int, /) -> tuple[int, int]:
    """aclGetDeviceCapability: ``(value, ret)`` for an aclDeviceInfo (AI core count, vector
    core count, L2 size)."""
    out = ffi.new("int64_t *")
    ret = lib.aclGetDeviceCapability(device_id, device_info, out)
    return int(out[0]), int(ret)


# float16 conversions. aclFloat16ToFloat / aclFloatToFloat16 are pure arithmetic (no runtime
# state), done here in Python: IEEE binary16, round to nearest even, overflow to infinity.


@pyacl("acl.float16_to_float", "H")
def float16_to_float(value: int, /) -> float:
    """The float an IEEE half-precision bit pattern (uint16) holds."""
    return float(struct.unpack("<e", struct.pack("<H", value))[0])


@pyacl("acl.float_to_float16", "f")
def float_to_float16(value: float, /) -> int:
    """The IEEE half-precision bit pattern (uint16) of a float (parsed as float32 first)."""
    try:
        v = struct.unpack("<f", struct.pack("<f", value))[0]  # pyACL parses with "f": a float32
    except OverflowError:
        v = math.copysign(math.inf, value)
    try:
        return int(struct.unpack("<H", struct.pack("<e", v))[0])
    except OverflowError:  # beyond the largest half: infinity, as a conversion in C gives
        return 0xFC00 if v < 0 else 0x7C00


_LOG_LEVELS = {0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING, 3: logging.ERROR}


@pyacl("acl.app_log", "is")
def app_log(level: int, message: str, /) -> None:
    """aclAppLog: writes ``message`` to the application log -- here the "aiocann.acl" logger,
    at ACL_DEBUG/INFO/WARNING/ERROR (0..3); other levels are dropped, as ACL drops them."""
    py_level = _LOG_LEVELS.get(level)
    if py_level is not None:
        _log.log(py_level, "%s", message)


# The tensor-description and data-buffer functions of pyACL's top level (py_init_acl.cpp)
# serve acl.mdl and acl.op, which aiocann does not provide.
NOT_PROVIDED = """
    create_data_buffer destroy_data_buffer get_data_buffer_addr get_data_buffer_size
    get_data_buffer_size_v2 update_data_buffer data_type_size create_tensor_desc destroy_tensor_desc
    get_tensor_desc_type get_tensor_desc_format get_tensor_desc_size get_tensor_desc_element_count
    get_tensor_desc_num_dims get_tensor_desc_dim get_tensor_desc_name set_tensor_desc_name
    trans_tensor_desc_format set_tensor_storage_format set_tensor_storage_shape set_tensor_format
    set_tensor_shape set_tensor_origin_format set_tensor_dynamic_input set_tensor_origin_shape
    set_tensor_shape_range get_tensor_desc_address get_tensor_desc_by_index get_tensor_desc_dim_range
    get_tensor_desc_dim_v2 set_tensor_place_ment set_tensor_const set_tensor_value_range
    get_cann_attribute_list get_cann_attribute
""".split()


def __getattr__(name: str) -> Any:
    if name in NOT_PROVIDED:
        reason = (
            "CANN's feature list (swFeatureList.json) is not part of the simulator"
            if name.startswith("get_cann_attribute")
            else "tensor descriptions and data buffers serve acl.mdl and acl.op, which the simulator does not have"
        )
        return not_implemented(f"acl.{name}", reason)
    raise AttributeError(f"module 'acl' has no attribute {name!r}")
