"""Helpers for the tests that drive the ACL C API through the raw binding (``aiocann._lib``).

The fixtures are in tests/sim/conftest.py. ``acl`` opens a runtime session --
``aclInit`` + ``aclrtSetDevice(0)`` -- and always closes it (``aclrtResetDevice`` +
``aclFinalize``), even when the test fails, so every test starts from a fresh runtime.
``acl_session(**env)`` does the same for tests that configure the simulator through its
environment variables (they are read at ``aclInit``); ``acl_init(**env)`` only initialises.

``expect(code, rc, *fragments)`` is the one way these tests check a failing call: it asserts
the exact code, that the runtime recorded a recent error message for it (every failing ACL call
must), and that the newest line of that message mentions each fragment.
"""

from __future__ import annotations

import contextlib
import os
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from acl_codes import *  # noqa: F403 - the return codes, for the tests that import them from here
from acl_codes import REPEAT_INITIALIZE, SUCCESS

from aiocann._lib import check, ffi, lib

H2D, D2H, D2D, H2H = 1, 2, 3, 0  # aclrtMemcpyKind
STREAM_COMPLETE, STREAM_NOT_READY = 0, 1  # aclrtStreamStatus
EVENT_NOT_READY, EVENT_COMPLETE = 0, 1  # aclrtEventRecordedStatus (reverse of the stream enum)
NO_BLOCK, BLOCK = 0, 1  # aclrtCallbackBlockType

SYNC_MS = 20_000  # every wait in these tests is bounded; nothing legitimate takes this long

TESTS_DIR = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- errors


def last_error() -> str:
    """The calling thread's recent error text (all of it, newest first), and clear it."""
    p = lib.aclGetRecentErrMsg()
    return "" if p == ffi.NULL else ffi.string(p).decode(errors="replace")


def expect(code: int, rc: int, *fragments: str) -> str:
    """Assert that a call returned ``code`` and, if it failed, left a message naming fragments.

    Returns the newest line of the recent error message."""
    text = last_error()
    newest = text.split("\n", 1)[0]
    assert rc == code, f"expected ACL code {code}, got {rc} (recent error: {text or 'none'})"
    if code != SUCCESS:
        assert newest, f"the call failed with {code} but recorded no recent error message"
        for f in fragments:
            assert f in newest, f"{f!r} is not in the recent error message {newest!r}"
    return newest


# --------------------------------------------------------------------------- addresses


def sync_rc(stream: Any) -> int:
    """aclrtSynchronizeStream, bounded: the stream's error, or 507046 if it never finishes."""
    return int(lib.aclrtSynchronizeStreamWithTimeout(stream, SYNC_MS))


def addr(p: Any) -> int:
    """The integer value of a pointer given as cdata or int."""
    return p if isinstance(p, int) else int(ffi.cast("uintptr_t", p))


def vp(p: Any) -> Any:
    """A ``void *`` cdata for a pointer given as int or cdata."""
    return ffi.cast("void *", p)


def tiling(total: int) -> bytes:
    """The vector-add tiling block: struct {uint32 total; uint32 reserved}."""
    return struct.pack("<II", total, 0)


# --------------------------------------------------------------------------- kernel args


class KernelArgs:
    """Builds an args handle for ``fn`` with the ACL calls, raising on any failure.

    ``user_mem=None`` uses the thread's system-managed handle (``aclrtKernelArgsInit``), which
    the next Init in the same thread re-initialises; ``user_mem=n`` constructs the handle in
    memory owned by this object, with an ``n``-byte args buffer (``aclrtKernelArgsInitByUserMem``).
    """

    def __init__(self, fn: Any, user_mem: int | None = None) -> None:
        self.fn = fn
        if user_mem is None:
            out = ffi.new("aclrtArgsHandle *")
            check(lib.aclrtKernelArgsInit(fn, out), "aclrtKernelArgsInit")
            self.handle = out[0]
            self.buf = None
        else:
            size = ffi.new("size_t *")
            check(lib.aclrtKernelArgsGetHandleMemSize(fn, size), "aclrtKernelArgsGetHandleMemSize")
            self.handle_mem = ffi.new("uint64_t[]", (size[0] + 7) // 8)  # 8-byte aligned
            self.buf = ffi.new("uint8_t[]", user_mem)
            self.handle = ffi.cast("aclrtArgsHandle", self.handle_mem)
            check(lib.aclrtKernelArgsInitByUserMem(fn, self.handle, self.buf, user_mem), "InitByUserMem")

    def scalar(self, ctype: str, value: Any) -> Any:
        v = ffi.new(f"{ctype} *", value)
        ph = ffi.new("aclrtParamHandle *")
        check(lib.aclrtKernelArgsAppend(self.handle, v, ffi.sizeof(ctype), ph), "aclrtKernelArgsAppend")
        return ph[0]

    def ptr(self, p: Any) -> Any:
        return self.scalar("void *", vp(p))

    def placeholder(self) -> Any:
        ph = ffi.new("aclrtParamHandle *")
        check(lib.aclrtKernelArgsAppendPlaceHolder(self.handle, ph), "aclrtKernelArgsAppendPlaceHolder")
        return ph[0]

    def data(self, ph: Any, payload: bytes) -> int:
        """Reserves the placeholder's data block, writes payload there; returns its host address."""
        out = ffi.new("void **")
        check(
            lib.aclrtKernelArgsGetPlaceHolderBuffer(self.handle, ph, len(payload), out),
            "GetPlaceHolderBuffer",
        )
        ffi.memmove(out[0], payload, len(payload))
        return addr(out[0])

    def update(self, ph: Any, ctype: str, value: Any) -> None:
        v = ffi.new(f"{ctype} *", value)
        check(lib.aclrtKernelArgsParaUpdate(self.handle, ph, v, ffi.sizeof(ctype)), "aclrtKernelArgsParaUpdate")

    def finalize(self) -> KernelArgs:
        check(lib.aclrtKernelArgsFinalize(self.handle), "aclrtKernelArgsFinalize")
        return self

    def bytes(self, start: int, end: int) -> bytes:
        """The user-memory args buffer, read directly."""
        assert self.buf is not None, "only a user-memory handle has a buffer the test can read"
        return bytes(ffi.buffer(self.buf)[start:end])


def launch_rc(fn: Any, blocks: int, stream: Any, args: KernelArgs | Any) -> int:
    handle = args.handle if isinstance(args, KernelArgs) else args
    return int(lib.aclrtLaunchKernelWithConfig(fn, blocks, stream, ffi.NULL, handle, ffi.NULL))


# --------------------------------------------------------------------------- runtime session


class Runtime:
    """What a test needs around the raw calls: streams, device buffers, kernels."""

    def __init__(self) -> None:
        self._functions: dict[tuple[str, str], Any] = {}
        self._binaries: dict[str, Any] = {}

    # streams and events
    def stream(self) -> Any:
        out = ffi.new("aclrtStream *")
        check(lib.aclrtCreateStream(out), "aclrtCreateStream")
        return out[0]

    def event(self) -> Any:
        out = ffi.new("aclrtEvent *")
        check(lib.aclrtCreateEvent(out), "aclrtCreateEvent")
        return out[0]

    def record(self, stream: Any) -> Any:
        e = self.event()
        check(lib.aclrtRecordEvent(e, stream), "aclrtRecordEvent")
        return e

    @staticmethod
    def timestamp(event: Any) -> int:
        out = ffi.new("uint64_t *")
        check(lib.aclrtEventGetTimestamp(event, out), "aclrtEventGetTimestamp")
        return int(out[0])

    @staticmethod
    def elapsed_ms(start: Any, end: Any) -> float:
        out = ffi.new("float *")
        check(lib.aclrtEventElapsedTime(out, start, end), "aclrtEventElapsedTime")
        return float(out[0])

    @staticmethod
    def sync(stream: Any) -> None:
        check(sync_rc(stream), "aclrtSynchronizeStreamWithTimeout")

    @staticmethod
    def query(stream: Any) -> int:
        status = ffi.new("aclrtStreamStatus *")
        check(lib.aclrtStreamQuery(stream, status), "aclrtStreamQuery")
        return int(status[0])

    # memory
    @staticmethod
    def malloc(nbytes: int) -> Any:
        out = ffi.new("void **")
        check(lib.aclrtMalloc(out, nbytes, 0), "aclrtMalloc")
        return out[0]

    def to_device(self, arr: np.ndarray) -> Any:
        arr = np.ascontiguousarray(arr)
        d = self.malloc(arr.nbytes)
        check(lib.aclrtMemcpy(d, arr.nbytes, ffi.from_buffer(arr), arr.nbytes, H2D), "aclrtMemcpy")
        return d

    @staticmethod
    def from_device(dptr: Any, shape: Any, dtype: Any) -> np.ndarray:
        out = np.empty(shape, dtype)
        check(lib.aclrtMemcpy(ffi.from_buffer(out), out.nbytes, dptr, out.nbytes, D2H), "aclrtMemcpy")
        return out

    @staticmethod
    def zeros(dptr: Any, nbytes: int) -> None:
        check(lib.aclrtMemset(dptr, nbytes, 0, nbytes), "aclrtMemset")

    # kernels
    def binary(self, path: Path | str) -> Any:
        key = str(path)
        if key not in self._binaries:
            out = ffi.new("aclrtBinHandle *")
            check(lib.aclrtBinaryLoadFromFile(key.encode(), ffi.NULL, out), "aclrtBinaryLoadFromFile")
            self._binaries[key] = out[0]
        return self._binaries[key]

    def function(self, path: Path | str, name: str) -> Any:
        key = (str(path), name)
        if key not in self._functions:
            out = ffi.new("aclrtFuncHandle *")
            check(lib.aclrtBinaryGetFunction(self.binary(path), name.encode(), out), "aclrtBinaryGetFunction")
            self._functions[key] = out[0]
        return self._functions[key]

    @staticmethod
    def launch(fn: Any, blocks: int, stream: Any, *params: tuple[str, Any]) -> None:
        """Launches fn with plain parameters given as (ctype, value); "ptr" is a device pointer."""
        args = KernelArgs(fn)
        for ctype, value in params:
            if ctype == "ptr":
                args.ptr(value)
            else:
                args.scalar(ctype, value)
        args.finalize()
        check(launch_rc(fn, blocks, stream, args), "aclrtLaunchKernelWithConfig")


@contextlib.contextmanager
def acl_init(**env: str | None) -> Iterator[None]:
    """aclInit with the simulator configured by env (read at aclInit; None unsets a variable for
    it); aclFinalize always follows."""
    saved = {k: os.environ.get(k) for k in env}
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    try:
        rc = lib.aclInit(ffi.NULL)
        if rc == REPEAT_INITIALIZE:  # someone left the runtime up: start from a clean one
            last_error()
            lib.aclFinalize()
            rc = lib.aclInit(ffi.NULL)
        check(rc, "aclInit")
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    try:
        yield
    finally:
        lib.aclFinalize()
        last_error()


@contextlib.contextmanager
def acl_session(device: int = 0, **env: str | None) -> Iterator[Runtime]:
    """aclInit (with the simulator configured by env) + aclrtSetDevice; always torn down."""
    with acl_init(**env):
        try:
            check(lib.aclrtSetDevice(device), "aclrtSetDevice")
            yield Runtime()
        finally:
            lib.aclrtResetDevice(device)


# --------------------------------------------------------------------------- exception reports


class Reports:
    """An exception-info callback (a cffi callback: Python runs on the runtime's thread here,
    which aiocann itself never does -- fine for a test) that records every report."""

    def __init__(self) -> None:
        self.got: list[dict[str, int]] = []
        self.order: list[str] = []
        self.cb = ffi.callback("aclrtExceptionInfoCallback", self._on)

    def _on(self, info: object) -> None:
        self.got.append(
            {
                "task": lib.aclrtGetTaskIdFromExceptionInfo(info),
                "stream": lib.aclrtGetStreamIdFromExceptionInfo(info),
                "thread": lib.aclrtGetThreadIdFromExceptionInfo(info),
                "device": lib.aclrtGetDeviceIdFromExceptionInfo(info),
                "code": lib.aclrtGetErrorCodeFromExceptionInfo(info),
            }
        )
        self.order.append("exception")


# --------------------------------------------------------------------------- report thread


class ReportThread:
    """A Python thread serving host callbacks: subscribed by ``threading.get_ident()``, it loops
    ``aclrtProcessReport`` until stopped. Every return code it sees is kept in ``codes``."""

    def __init__(self, timeout_ms: int = 20) -> None:
        self.timeout_ms = timeout_ms
        self.codes: list[int] = []
        self._go = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._main, name="acl-report", daemon=True)
        self._thread.start()
        assert self._thread.ident is not None
        self.ident: int = self._thread.ident

    def _main(self) -> None:
        if not self._go.wait(10):
            return
        while not self._stop.is_set():
            self.codes.append(int(lib.aclrtProcessReport(self.timeout_ms)))
        last_error()

    def subscribe(self, stream: Any) -> None:
        check(lib.aclrtSubscribeReport(self.ident, stream), "aclrtSubscribeReport")
        self._go.set()

    def stop(self) -> None:
        self._go.set()
        self._stop.set()
        self._thread.join(10)
        assert not self._thread.is_alive(), "the report thread did not stop"

    def __enter__(self) -> ReportThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
