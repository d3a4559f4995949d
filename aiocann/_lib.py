"""The only owner of ``ffi``/``lib``: backend selection, loading, and ``check(rc)``.

Importing this module loads one ACL runtime library into the process through the native
loader (``aiocann._native``), so every ACL call -- from the pyACL facade, the async core or a
test -- goes through the same function table:

* ``AIOCANN_BACKEND=sim``   the bundled simulator (``aiocann/lib/libascendcl.so``);
* ``AIOCANN_BACKEND=cann``  a real CANN install, found through ``ASCEND_HOME_PATH`` /
  ``ASCEND_TOOLKIT_HOME`` (what CANN's ``set_env.sh`` exports): ``libacl_rt.so``, else
  ``libascendcl.so``, in its ``lib64``;
* ``AIOCANN_BACKEND=auto``  (default) the real runtime when one is found, else the simulator.

``AIOCANN_ACL_LIBRARY=/path/to/lib.so`` names the library outright (backend ``cann``).
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from . import errors
from ._native import ffi, lib

__all__ = [
    "BackendError",
    "BackendInfo",
    "as_int",
    "as_pointer",
    "backend",
    "bind_context",
    "check",
    "ffi",
    "in_context",
    "last_error_message",
    "lib",
]

_PACKAGE = Path(__file__).resolve().parent
_CANN_HOME_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
_CANN_LIB_DIRS = ("lib64", "lib", "runtime/lib64")
_CANN_LIB_NAMES = ("libacl_rt.so", "libascendcl.so")


class BackendError(ImportError):
    """No usable ACL runtime library could be selected or loaded."""


@dataclass(frozen=True)
class BackendInfo:
    """Which ACL runtime this process uses: ``name`` is ``"sim"`` or ``"cann"``; ``version`` is
    what the deprecated ``aclrtGetVersion`` reports, or None where the runtime lacks it;
    ``skipped`` says why libraries tried before this one were not used."""

    name: str
    library: str
    version: tuple[int, int, int] | None
    skipped: tuple[str, ...] = ()


def _cann_candidates() -> list[Path]:
    out = []
    for var in _CANN_HOME_VARS:
        home = os.environ.get(var)
        if not home:
            continue
        # aiocann's own toolkit (its set_env.sh exports these): its lib64 is the simulator.
        if Path(home).resolve() == (_PACKAGE / "toolkit").resolve():
            continue
        for sub in _CANN_LIB_DIRS:
            for name in _CANN_LIB_NAMES:
                out.append(Path(home) / sub / name)
    return out


def _candidates() -> tuple[str, list[tuple[str, Path]]]:
    """The backend choice and the libraries to try, in order."""
    explicit = os.environ.get("AIOCANN_ACL_LIBRARY")
    if explicit:
        return "explicit", [("cann", Path(explicit))]
    choice = os.environ.get("AIOCANN_BACKEND", "auto").strip().lower() or "auto"
    if choice not in ("auto", "sim", "cann"):
        raise BackendError(f"AIOCANN_BACKEND={choice!r}: expected 'auto', 'sim' or 'cann'")
    out: list[tuple[str, Path]] = []
    if choice in ("auto", "cann"):
        out = [("cann", p) for p in _cann_candidates() if p.is_file()]
        if choice == "cann" and not out:
            where = ", ".join(str(p) for p in _cann_candidates()) or f"none: set one of {', '.join(_CANN_HOME_VARS)}"
            raise BackendError(
                "AIOCANN_BACKEND=cann but no CANN runtime library was found "
                f"(source CANN's set_env.sh, or set AIOCANN_ACL_LIBRARY); looked at: {where}"
            )
    if choice in ("auto", "sim"):
        sim = _PACKAGE / "lib" / "libascendcl.so"
        if not sim.is_file():
            raise BackendError(f"the simulator library {sim} is missing: rebuild aiocann (pip install -e .)")
        out.append(("sim", sim))
    return choice, out


def _load() -> tuple[str, str, tuple[str, ...]]:
    """Loads the first library that works. In ``auto``, a CANN library that cannot be loaded
    (missing dependencies, too old) is skipped with a warning, down to the simulator."""
    choice, candidates = _candidates()
    skipped: list[str] = []
    err = ffi.new("char[]", 2048)
    for name, path in candidates:
        if lib.aiocann_load(str(path).encode(), err, len(err)) == 0:
            if skipped:
                warnings.warn(f"aiocann: using {path}; skipped: {'; '.join(skipped)}", RuntimeWarning, stacklevel=3)
            return name, str(path), tuple(skipped)
        reason = ffi.string(err).decode(errors="replace")
        if choice != "auto":
            raise BackendError(reason)
        skipped.append(reason)
    raise BackendError("no usable ACL runtime: " + "; ".join(skipped))


_BACKEND_NAME, _LIBRARY, _SKIPPED = _load()
_backend_lock = threading.Lock()
_backend_info: BackendInfo | None = None


def backend() -> BackendInfo:
    """Which runtime library was loaded, from where, and the ACL version it reports."""
    global _backend_info
    with _backend_lock:
        if _backend_info is None:
            v = ffi.new("int32_t[3]")
            rc = lib.aclrtGetVersion(v, v + 1, v + 2)  # deprecated in 9.x, may be absent
            version = None if rc == errors.ApiNotSupportedError.codes[0] else (v[0], v[1], v[2])
            if version is None:
                last_error_message()
            else:
                check(rc, "aclrtGetVersion")
            _backend_info = BackendInfo(_BACKEND_NAME, _LIBRARY, version, _SKIPPED)
        return _backend_info


def last_error_message() -> str | None:
    """The calling thread's recent ACL error text (and clears it), or None."""
    p = lib.aclGetRecentErrMsg()
    if p == ffi.NULL:
        return None
    return str(ffi.string(p).decode(errors="replace"))


def as_int(pointer: Any) -> int:
    """A handle or pointer the runtime gave out, as an int (NULL is 0): the value pyACL's
    ``acl.rt.*`` functions take and return, and what aiocann's public ``handle`` properties are."""
    return int(ffi.cast("uintptr_t", pointer))


def as_pointer(value: int, ctype: str = "void *") -> Any:
    """An int handle or address (``as_int``'s inverse) as the cdata a C call takes."""
    return ffi.cast(ctype, value)


def check(rc: int, api: str | None = None) -> None:
    """Raise the AclError subclass registered for ``rc`` unless it is ACL_SUCCESS.

    Must run in the thread that made the failing call: the runtime's message is thread-local.
    """
    if rc:
        raise errors.error_for(rc, last_error_message(), api)


# --------------------------------------------------------------------------- contexts
#
# ACL's current context is per thread. The async layer runs many devices from one event-loop
# thread (and uses worker threads for blocking calls), so before any call that depends on the
# current context it binds the device's context. The binding is cached per thread in C
# (aiocann_bind_context), where the launch fast path checks it too without a second call;
# only aiocann sets contexts on the threads it drives.

_T = TypeVar("_T")


def bind_context(ctx: Any) -> None:
    """Make ``ctx`` (an aclrtContext) current in the calling thread, if it is not already."""
    check(lib.aiocann_bind_context(ctx), "aclrtSetCurrentContext")


def forget_context() -> None:
    """The calling thread's current context was changed behind the cache (aclrtSetDevice...)."""
    lib.aiocann_forget_context()


def in_context(ctx: Any, fn: Callable[[], _T]) -> _T:
    """Run ``fn`` with ``ctx`` current, restoring the thread's previous context afterwards.

    For finalizers, which run in whatever thread drops the last reference: they must not leave
    a different context current in, say, a user's own pyACL thread.
    """
    old = ffi.new("aclrtContext*")
    had = lib.aclrtGetCurrentContext(old) == 0
    lib.aclGetRecentErrMsg()  # drop the "no context" message if there was none
    if had and as_int(old[0]) == as_int(ctx):
        return fn()
    lib.aclrtSetCurrentContext(ctx)
    try:
        return fn()
    finally:
        if had:
            lib.aclrtSetCurrentContext(old[0])
        lib.aiocann_forget_context()
