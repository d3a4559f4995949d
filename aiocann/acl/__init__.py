"""aiocann.acl: a pyACL-compatible module, so programs written for pyACL (``import acl``) run on
aiocann -- on the bundled simulator or on a real CANN runtime -- unchanged.

Where it sits: the synchronous facade above :mod:`aiocann._lib` (the only owner of the cffi
binding), beside the async core, which it does not use. It has pyACL's layout and names::

    import aiocann.acl as acl          # or `import acl` under `python -m aiocann.acl PROGRAM.py`

    ret = acl.init()
    ret = acl.rt.set_device(0)
    stream, ret = acl.rt.create_stream()
    dev_ptr, ret = acl.rt.malloc(1024, 0)
    tid, ret = acl.util.start_thread(loop, None)

and pyACL's conventions (reference §13): handles and addresses are ints, a call with outputs
returns ``(value..., ret)`` with the ACL return code last and a call without outputs the bare
``ret``; runtime failures are return codes, never exceptions; arguments pyACL could not parse
raise the TypeError (or ValueError) pyACL raises. ``acl.rt`` wraps every runtime function the
simulator provides, ``acl.util`` the thread and memory helpers.

``python -m aiocann.acl PROGRAM.py [ARGS...]`` runs an unmodified pyACL program with ``import
acl`` resolved to this module (see :mod:`aiocann.acl.__main__`).
"""

from __future__ import annotations

from .._lib import ffi, lib
from . import rt, util
from ._convert import cstr

__all__ = ["finalize", "get_recent_err_msg", "get_version", "init", "rt", "util"]

_NO_CONFIG = object()


def init(config_path: str = _NO_CONFIG, /) -> int:  # type: ignore[assignment]
    """aclInit. ``config_path`` (optional) is a JSON config file; 100002 if already initialised."""
    if config_path is _NO_CONFIG:
        return int(lib.aclInit(ffi.NULL))
    return int(lib.aclInit(cstr(config_path, "acl.init")))


def finalize(*_ignored: object) -> int:
    """aclFinalize. Also drops the host callbacks the runtime had not delivered: after a
    successful finalize it never will."""
    ret = int(lib.aclFinalize())
    if ret == 0:
        rt._drop_pending_callbacks()
    return ret


def get_recent_err_msg(*_ignored: object) -> str | None:
    """The calling thread's recent ACL error messages (newest first), then cleared; None if
    there are none."""
    p = lib.aclGetRecentErrMsg()
    if p == ffi.NULL:
        return None
    return ffi.string(p).decode("utf-8", errors="replace")  # type: ignore[no-any-return]


def get_version(*_ignored: object) -> tuple[int, int, int, int]:
    """aclrtGetVersion: ``(major, minor, patch, ret)``."""
    v = ffi.new("int32_t[3]")
    ret = lib.aclrtGetVersion(v, v + 1, v + 2)
    return int(v[0]), int(v[1]), int(v[2]), int(ret)
