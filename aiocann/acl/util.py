"""``acl.util``: pyACL's helper functions -- report threads, and raw memory as bytes or numpy.

Where it sits: beside :mod:`aiocann.acl.rt` in the pyACL-compatible facade. Nothing here calls
the ACL runtime; these are the host-side tools pyACL programs use around it:

* ``start_thread(fn, args)`` / ``stop_thread(thread_id)``: the thread a pyACL program runs its
  ``process_report`` loop in. The id returned is the thread's ``pthread_self()`` value, which
  is what ``acl.rt.subscribe_report`` takes;
* ``bytes_to_ptr`` / ``ptr_to_bytes`` and the (deprecated) numpy conversions: host addresses
  for ``acl.rt.memcpy``, ``kernel_args_append`` and friends.
"""

from __future__ import annotations

import errno
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

from .._lib import ffi, lib
from ._convert import pyacl

__all__ = [
    "bytes_to_ptr",
    "numpy_contiguous_to_ptr",
    "numpy_to_ptr",
    "ptr_to_bytes",
    "ptr_to_numpy",
    "start_thread",
    "stop_thread",
]


# ----------------------------------------------------------------------- threads
#
# pyACL starts a raw pthread that takes the GIL and calls fn. A threading.Thread is the same
# thing seen from Python: its `ident` is the pthread_t of the OS thread (CPython sets it from
# pthread_self()), so it is the id the runtime will see when that thread calls process_report.
# The threads are daemons, like pyACL's pthreads, which the interpreter does not wait for at
# exit: a program that forgets stop_thread does not hang on the way out.
#
# Joining: stop_thread is pthread_join. Thread.join releases the GIL while it waits, so the
# joined thread (which needs the GIL to finish its Python code) can run. pthread_join fails
# with ESRCH for an id it does not know and EDEADLK for the calling thread itself; stop_thread
# returns those codes rather than raising, as pyACL returns pthread_join's code.
#
# Errors: an exception escaping fn is printed (pyACL calls PyErr_Display) and recorded against
# the thread id as "exception=<Type>,msg=thread call failed"; the next stop_thread of that id
# raises RuntimeError carrying every record for it.


_threads_lock = threading.Lock()
_threads: dict[int, threading.Thread] = {}  # thread id -> thread, until stop_thread joins it
_thread_errors: dict[int, list[str]] = {}  # thread id -> what its fn raised (as pyACL keys them)


def _run(fn: Callable[..., object], args: object, registered: threading.Event) -> None:
    # Wait until start_thread has recorded this thread, so that fn may already call
    # stop_thread (on itself: EDEADLK) or anything else that looks the thread up.
    registered.wait()
    try:
        if args is None:
            fn()
        else:
            fn(args)
    except BaseException as exc:  # noqa: BLE001 -- reported through stop_thread, as in pyACL
        sys.excepthook(type(exc), exc, exc.__traceback__)
        with _threads_lock:
            _thread_errors.setdefault(threading.get_ident(), []).append(
                f"exception={type(exc).__name__},msg=thread call failed"
            )


# pyACL's start_thread lets the parser's own error through (no CHECK_NULL message).
@pyacl("acl.util.start_thread", "OO", None)
def start_thread(fn: Callable[..., object], args: object, /) -> tuple[int, int]:
    """Start a thread running ``fn(args)`` (``fn()`` when ``args`` is None).

    Returns ``(thread_id, rc)``: the thread's pthread id, usable with
    ``acl.rt.subscribe_report``, and 0 (or the errno of a failed thread creation, with id 0).
    Like pyACL, this also restores the default SIGINT disposition, so Ctrl-C ends a program
    whose main thread is blocked in a runtime call (only from the main thread, the one place
    Python lets a program change a signal handler).
    """
    if not callable(fn):
        raise TypeError("parameter must be callable")
    registered = threading.Event()
    thread = threading.Thread(target=_run, args=(fn, args, registered), name="acl.util.start_thread", daemon=True)
    try:
        thread.start()  # returns once the new thread runs, so `ident` is set
    except RuntimeError:  # "can't start new thread": pthread_create failed
        return 0, errno.EAGAIN
    tid = thread.ident
    assert tid is not None
    with _threads_lock:
        _threads[tid] = thread
    registered.set()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    return tid, 0


@pyacl("acl.util.stop_thread", "K")
def stop_thread(thread_id: int, /) -> int:
    """Join a thread started by :func:`start_thread`; returns 0, or pthread_join's error code
    (ESRCH for an unknown id). Raises RuntimeError if the thread's function raised."""
    tid = thread_id
    with _threads_lock:
        thread = _threads.get(tid)
        if thread is not None and thread is not threading.current_thread():
            del _threads[tid]
    if thread is None:
        rc = errno.ESRCH
    elif thread is threading.current_thread():
        rc = errno.EDEADLK
    else:
        thread.join()  # releases the GIL while waiting
        rc = 0
    with _threads_lock:
        errors = _thread_errors.pop(tid, None) if rc == 0 else None
    if errors:
        raise RuntimeError("".join(e + ";" for e in errors))
    return rc


# ----------------------------------------------------------------------- bytes


@pyacl("acl.util.bytes_to_ptr", "O")
def bytes_to_ptr(data: bytes, /) -> int:
    """The address of the bytes object's own buffer -- no copy.

    As in pyACL, the runtime may write through it (a device-to-host copy into a ``bytes``), which
    mutates an object Python considers immutable: use a fresh ``bytes(n)`` for that, never a
    literal or a cached object such as ``b""`` or a single byte.
    """
    if not isinstance(data, bytes):
        raise ValueError("needs an byte as argument")
    # from_buffer on a bytes object points into the object itself (cffi special-cases bytes);
    # the address stays valid for as long as the caller keeps `data` alive.
    return int(ffi.cast("uintptr_t", ffi.from_buffer("char[]", data)))


@pyacl("acl.util.ptr_to_bytes", "kk")
def ptr_to_bytes(ptr: int, size: int, /) -> bytes:
    """A new ``bytes`` holding a copy of ``size`` bytes at host address ``ptr``.

    ``ptr`` 0 gives ``size`` zero bytes (pyACL gives an uninitialised buffer of that size).
    """
    address, n = ptr, size
    if n > sys.maxsize:
        raise ValueError("convert c pointer to bytes failed")
    if address == 0:
        return bytes(n)
    # pyACL would read whatever it is given; a bad address or size here is an error, not a crash.
    if not lib.aiocann_host_accessible(ffi.cast("void *", address), n, 0) and n:
        raise ValueError(f"convert c pointer to bytes failed: [{address:#x}, +{n}) is not readable memory")
    return ffi.unpack(ffi.cast("char *", address), n)  # type: ignore[no-any-return]


# ----------------------------------------------------------------------- numpy (deprecated)


def _numpy() -> Any:
    import numpy  # imported lazily: only these deprecated helpers need it

    return numpy


@pyacl("acl.util.numpy_to_ptr", "O")
def numpy_to_ptr(arr: Any, /) -> int:
    """The data address of an ndarray, no copy (deprecated in pyACL: warns)."""
    warnings.warn(
        "acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.",
        Warning,
        stacklevel=2,
    )
    np = _numpy()
    if not isinstance(arr, np.ndarray):
        raise ValueError("needs an ndarray as argument")
    if not arr.flags.c_contiguous:
        warnings.warn(
            "The input ndarray is discontiguous. Please use acl.util.bytes_to_ptr instead.",
            Warning,
            stacklevel=2,
        )
    return int(arr.__array_interface__["data"][0])


@pyacl("acl.util.numpy_contiguous_to_ptr", "O")
def numpy_contiguous_to_ptr(arr: Any, /) -> tuple[int, Any]:
    """``(address, contiguous_array)``: the array itself if C-contiguous, else a C-ordered copy,
    which the caller must keep alive while the address is used (deprecated in pyACL: warns)."""
    warnings.warn(
        "acl.util.numpy_contiguous_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.",
        Warning,
        stacklevel=2,
    )
    np = _numpy()
    if not isinstance(arr, np.ndarray):
        raise ValueError("needs an ndarray as argument")
    contiguous = arr if arr.flags.c_contiguous else arr.copy(order="C")
    return int(contiguous.__array_interface__["data"][0]), contiguous


_dtype_by_num: dict[int, Any] = {}


def _dtype(npy_type: int) -> Any:
    """The numpy dtype of an NPY_TYPES number (NPY_FLOAT = 11, NPY_INT32 = 5, ...)."""
    if not _dtype_by_num:
        np = _numpy()
        for code in np.typecodes["All"]:
            dt = np.dtype(code)
            _dtype_by_num.setdefault(dt.num, dt)
    try:
        return _dtype_by_num[npy_type]
    except KeyError:
        raise ValueError(f"Invalid data-type for array: {npy_type}") from None


@pyacl("acl.util.ptr_to_numpy", "kOi")
def ptr_to_numpy(ptr: int, shape: tuple[int, ...], npy_type: int, /) -> Any:
    """A writable ndarray viewing host memory at ``ptr`` -- no copy, no ownership; the caller
    keeps the memory alive (deprecated in pyACL: warns). ``ptr`` 0 gives a new zeroed array.

    Unlike pyACL, which wraps whatever address it is given, memory that is not readable raises
    ValueError (as ptr_to_bytes does) instead of crashing the process at the first access, and
    memory that is readable but not writable comes back as a read-only array.
    """
    warnings.warn(
        "acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes instead.",
        Warning,
        stacklevel=2,
    )
    address, type_num = ptr, npy_type
    if not isinstance(shape, tuple):
        raise ValueError("shape is empty")
    dims = []
    for d in shape:
        if not isinstance(d, int):
            raise TypeError("the second argument is not list of int")
        dims.append(d)
    np = _numpy()
    dtype = _dtype(type_num)
    if any(d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    if address == 0:
        return np.zeros(dims, dtype)
    count = 1
    for d in dims:
        count *= d
    nbytes = count * dtype.itemsize
    if nbytes > sys.maxsize:
        raise ValueError("array is too big")
    p = ffi.cast("void *", address)
    if nbytes and not lib.aiocann_host_accessible(p, nbytes, 0):
        raise ValueError(f"convert c pointer to numpy failed: [{address:#x}, +{nbytes}) is not readable memory")
    writable = nbytes == 0 or bool(lib.aiocann_host_accessible(p, nbytes, 1))
    buf = ffi.buffer(ffi.cast("char *", address), nbytes)  # no copy
    arr = np.frombuffer(buf, dtype=dtype, count=count).reshape(dims)
    if not writable:
        arr.flags.writeable = False
    return arr
