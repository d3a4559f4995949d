"""Process-wide ACL state shared by every ``Device`` of the async layer.

ACL itself is process-wide: ``aclInit`` once, ``aclrtSetDevice`` per device. Any number of
``async with Device(i)`` blocks -- in one task, several tasks, or several event loops in
different threads -- share that state through reference counts kept here:

* the runtime: ``aclInit`` on first use, ``aclFinalize`` when the last user is gone (unless
  someone else initialised ACL first, e.g. pyACL code in the same process: then it is theirs);
* per device: ``aclrtSetDevice``, the device's default context, and its report thread (C, see
  native/completion_queue.c) that runs ``aclrtProcessReport`` for every stream aiocann creates
  on the device.

Pinned host memory handed out as numpy arrays also holds a runtime reference, because
``aclFinalize`` would release it under a live array.

Abandoned work. When a stream is closed while the device still runs its work past the
completion timeout (a hung kernel), or its exit is cancelled, waiting is not an option:
``aclrtDestroyStream``, ``aclrtResetDevice`` and ``aclFinalize`` all wait for queued tasks. The
work is then abandoned: its stream is left undestroyed, what it uses is kept alive forever
(the device may still write to it), and its device is marked so that it is
never reset -- nor ACL finalized -- in this process. Later ``Device`` blocks of that index, and
of others, still work.

Every function here may block (device activation starts threads), so the async layer calls
them from worker threads.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from . import errors
from ._lib import check, ffi, forget_context, lib

_lock = threading.Lock()
_users = 0  # runtime references: devices in use + live pinned blocks
_owns_init = False  # whether our aclInit is the one in effect
_pid = os.getpid()
_devices: dict[int, AclDevice] = {}
_kept_set: set[int] = set()  # indices left set (never reset): they have abandoned work
_kept_alive: list[Any] = []  # what abandoned work uses, kept until the process exits


class AclDevice:
    """One opened ACL device, shared by all aiocann users of that device index."""

    __slots__ = ("index", "ctx", "reporter", "reporter_tid", "users", "abandoned", "logic_id")

    def __init__(self, index: int, ctx: Any, reporter: Any) -> None:
        self.index = index
        self.ctx = ctx
        self.reporter = reporter
        self.reporter_tid = int(lib.aiocann_reporter_thread_id(reporter))
        self.users = 0
        self.abandoned = False  # some stream's work was abandoned: never reset it
        self.logic_id = logic_device_id(index)


def abandon(dev: AclDevice, keep: Any) -> None:
    """Work on ``dev`` was abandoned (see the module docstring): keep what it uses alive for
    good, and never reset the device or finalize ACL in this process. No lock: this may run in
    a finalizer, in a thread that holds ``_lock`` (both stores are atomic)."""
    dev.abandoned = True
    _kept_alive.append(keep)


def logic_device_id(index: int) -> int | None:
    """The machine's (logical) id of user device ``index``: the same unless
    ASCEND_RT_VISIBLE_DEVICES renumbers the devices this process sees. None where the runtime
    lacks aclrtGetLogicDevIdByUserDevId (CANN releases before it)."""
    out = ffi.new("int32_t*")
    rc = lib.aclrtGetLogicDevIdByUserDevId(index, out)
    if rc == errors.ApiNotSupportedError.codes[0]:
        lib.aclGetRecentErrMsg()
        return None
    check(rc, "aclrtGetLogicDevIdByUserDevId")
    return int(out[0])


def check_process() -> None:
    """ACL state does not survive fork(): its threads are gone in the child."""
    if os.getpid() != _pid:
        raise RuntimeError(
            "aiocann was initialised in the parent process; its runtime threads do not exist in this "
            "forked child. Use the 'spawn' or 'forkserver' multiprocessing start method."
        )


def _retain_runtime() -> None:
    global _users, _owns_init
    if _users == 0 and not (_owns_init and _kept_set):  # else still initialised: see _release_runtime
        rc = lib.aclInit(ffi.NULL)
        if rc == errors.RepeatInitializeError.codes[0]:
            lib.aclGetRecentErrMsg()
            _owns_init = False  # initialised by someone else in this process: not ours to finalize
        else:
            check(rc, "aclInit")
            _owns_init = True
    _users += 1


def _release_runtime() -> None:
    global _users
    _users -= 1
    if _users == 0 and _owns_init and not _kept_set:  # finalizing would wait for abandoned work
        check(lib.aclFinalize(), "aclFinalize")


def retain_runtime() -> None:
    """Keep ACL initialised (for a pinned block that outlives its device)."""
    check_process()
    with _lock:
        _retain_runtime()


def release_runtime() -> None:
    with _lock:
        if os.getpid() == _pid:
            _release_runtime()


def acquire_device(index: int) -> AclDevice:
    """Open device ``index`` for one more user. Blocking: call from a worker thread."""
    check_process()
    with _lock:
        _retain_runtime()
        try:
            dev = _devices.get(index)
            if dev is None:
                check(lib.aclrtSetDevice(index), "aclrtSetDevice")
                forget_context()
                try:
                    ctx = ffi.new("aclrtContext*")
                    check(lib.aclrtGetCurrentContext(ctx), "aclrtGetCurrentContext")
                    rc = ffi.new("aclError*")
                    reporter = lib.aiocann_reporter_start(ctx[0], rc)
                    if reporter == ffi.NULL:
                        check(rc[0], "aiocann_reporter_start")
                except BaseException:
                    lib.aclrtResetDevice(index)
                    raise
                dev = _devices[index] = AclDevice(index, ctx[0], reporter)
            dev.users += 1
            return dev
        except BaseException:
            _release_runtime()
            raise


def release_device(dev: AclDevice) -> None:
    """Drop one user of ``dev``; the last one stops its report thread and resets it."""
    with _lock:
        dev.users -= 1
        if dev.users == 0:
            del _devices[dev.index]
            lib.aiocann_reporter_stop(dev.reporter)  # bounded: the thread is never blocked for long
            if dev.abandoned:
                _kept_set.add(dev.index)  # resetting would wait for the abandoned work: leave it set
            else:
                check(lib.aclrtResetDevice(dev.index), "aclrtResetDevice")
            forget_context()
        _release_runtime()


def device_count() -> int:
    """Number of devices the runtime reports (initialising ACL for the question if needed)."""
    retain_runtime()
    try:
        n = ffi.new("uint32_t*")
        check(lib.aclrtGetDeviceCount(n), "aclrtGetDeviceCount")
        return int(n[0])
    finally:
        release_runtime()


def initialised() -> tuple[int, bool]:
    """(aiocann's users of the runtime, whether aiocann's ``aclInit`` is the one in effect).

    For ``aiocann.testing``: the simulator reads its configuration at ``aclInit``, so a
    configuration set for one test only takes effect if nobody holds the runtime when the
    test's device opens, and if that open is what initialised it."""
    with _lock:
        return _users, _owns_init
