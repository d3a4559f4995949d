"""Timeline traces in Chrome trace event format (open them in https://ui.perfetto.dev).

``async with aiocann.trace("trace.json"):`` (or ``with``) records, for every stream, each
launch, copy, memset, event record, event wait and completion callback with its *device*
timestamps, every block each AI core ran, and on the host side the span from submission to
resolution of every Completion. Setting ``AIOCANN_TRACE=path`` traces a whole program: from
the first ``Device`` opened to the last one closed.

Device-side records come from the simulator's trace interface (``aclsim_ext.h``). A real
CANN runtime has none; the trace then holds the host spans only.

Layout: one process per device ("NPU 0") with a thread per stream and one per AI core, and a
"host" process whose async tracks are the Completions (submit -> resolve). Timestamps share
one clock (CLOCK_MONOTONIC), in microseconds from the start of the trace.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _hotpath
from ._factory import NoPublicConstructor, create
from ._lib import ffi, lib

if TYPE_CHECKING:
    from .completion import Completion
    from .stream import Stream

__all__ = ["Trace", "trace"]

_RECORD = np.dtype(
    {
        "names": ["start", "end", "stream", "seq", "bytes", "device", "core", "block", "type", "status", "name"],
        "formats": ["<u8", "<u8", "<u8", "<u8", "<u8", "<i4", "<i4", "<i4", "<i4", "<i4", "S36"],
        "offsets": [0, 8, 16, 24, 32, 40, 44, 48, 52, 56, 60],
        "itemsize": 96,
    }
)
assert ffi.sizeof("aclsimTraceRecord") == _RECORD.itemsize

_TASK_NAMES = {
    lib.ACLSIM_TRACE_MEMCPY: "memcpy",
    lib.ACLSIM_TRACE_MEMSET: "memset",
    lib.ACLSIM_TRACE_EVENT_RECORD: "event record",
    lib.ACLSIM_TRACE_EVENT_RESET: "event reset",
    lib.ACLSIM_TRACE_EVENT_WAIT: "event wait",
    lib.ACLSIM_TRACE_CALLBACK: "callback",
}

# The active trace, read by the streams on every submission and resolution (one global read
# when tracing is off).
_active: Trace | None = None
_lock = threading.Lock()


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


class Trace(metaclass=NoPublicConstructor):
    """A recording session, made by :func:`trace` (see there)."""

    _factory = "aiocann.trace(path)"

    def __init__(self, path: str | os.PathLike[str] | None = None, *, capacity: int = 1 << 20) -> None:
        self.path = Path(path) if path is not None else None
        self.capacity = capacity
        self.device_records = lib.aiocann_has_function(b"aclsimTraceStart") == 1
        self._t0 = 0
        self._host: list[tuple[int, int, int, str, int, int]] = []  # (stream, device, token, label, t_submit, t_done)
        self._submitted: dict[int, tuple[int, int, str, int]] = {}  # id(completion) -> (stream, device, label, t)
        self._streams: dict[int, str] = {}
        self.dropped = 0
        self.events: list[dict[str, Any]] = []

    # -- hooks called by the streams --------------------------------------------------------

    def _on_submit(self, stream: Stream, completion: Completion) -> None:
        key = stream.handle  # the stream is open: it was just given this work
        self._streams.setdefault(key, f"stream {len(self._streams) + 1}")
        self._submitted[id(completion)] = (key, stream.device.index, completion.label, time.monotonic_ns())

    def _on_resolve(self, completion: Completion, code: int) -> None:
        sub = self._submitted.pop(id(completion), None)
        if sub is not None:
            key, dev, label, t0 = sub
            self._host.append((key, dev, code, label, t0, time.monotonic_ns()))

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> Trace:
        global _active
        with _lock:
            if _active is not None:
                raise RuntimeError("a trace is already active")
            if self.device_records and lib.aclsimTraceStart(self.capacity) != 0:
                raise MemoryError(f"cannot allocate a trace buffer of {self.capacity} records")
            self._t0 = time.monotonic_ns()
            _active = self
            _hotpath.provide(trace=self)  # the C paths report to it (native/hotpath.c)
        return self

    def stop(self) -> dict[str, Any]:
        """Stop recording and build the trace (written to ``path`` if one was given)."""
        global _active
        with _lock:
            if _active is not self:
                raise RuntimeError("this trace is not active")
            _active = None
            _hotpath.provide(trace=None)
            records = self._drain() if self.device_records else np.zeros(0, _RECORD)
        doc = self._build(records)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(doc))
        return doc

    def _drain(self) -> np.ndarray:
        self.dropped = int(lib.aclsimTraceStop())
        chunks = []
        buf = ffi.new("aclsimTraceRecord[]", 65536)
        view = np.frombuffer(ffi.buffer(buf), dtype=_RECORD)
        while True:
            n = int(lib.aclsimTraceDrain(buf, 65536))
            if n == 0:
                break
            chunks.append(view[:n].copy())
        return np.concatenate(chunks) if chunks else np.zeros(0, _RECORD)

    def __enter__(self) -> Trace:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> Trace:
        return self.start()

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: Any) -> None:
        self.stop()

    # -- Chrome trace -----------------------------------------------------------------------

    def _us(self, ns: int) -> float:
        return (ns - self._t0) / 1000.0

    def _build(self, records: np.ndarray) -> dict[str, Any]:
        events: list[dict[str, Any]] = []
        host_pid = 1000
        names: dict[tuple[int, int], str] = {}

        def thread(pid: int, tid: int, name: str, sort: int) -> None:
            if (pid, tid) not in names:
                names[(pid, tid)] = name
                events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}})
                events.append(
                    {"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid, "args": {"sort_index": sort}}
                )

        stream_tid: dict[int, int] = {}

        def stream_label(key: int) -> tuple[int, str]:
            label = self._streams.setdefault(key, f"stream {len(self._streams) + 1}")
            return stream_tid.setdefault(key, len(stream_tid) + 1), label

        devices = sorted({int(d) for d in records["device"]} | {h[1] for h in self._host})
        for d in devices:
            events.append({"ph": "M", "name": "process_name", "pid": d, "args": {"name": f"NPU {d}"}})
            events.append({"ph": "M", "name": "process_sort_index", "pid": d, "args": {"sort_index": d}})
        events.append({"ph": "M", "name": "process_name", "pid": host_pid, "args": {"name": "host"}})

        for r in records:
            start, end = int(r["start"]), int(r["end"])
            dev, kind, status = int(r["device"]), int(r["type"]), int(r["status"])
            args: dict[str, Any] = {"seq": int(r["seq"])}
            if status:
                args["error"] = status
            if kind == lib.ACLSIM_TRACE_BLOCK:
                core = int(r["core"])
                tid = 10000 + core
                thread(dev, tid, f"AI core {core}", 1000 + core)
                args.update(block=int(r["block"]), stream=stream_label(int(r["stream"]))[1])
                name = r["name"].decode(errors="replace")
                cat = "block"
            else:
                tid, label = stream_label(int(r["stream"]))
                thread(dev, tid, label, tid)
                if kind == lib.ACLSIM_TRACE_KERNEL:
                    name = r["name"].decode(errors="replace")
                    args["blocks"] = int(r["block"])
                    cat = "kernel"
                else:
                    name = _TASK_NAMES.get(kind, f"task {kind}")
                    if kind in (lib.ACLSIM_TRACE_MEMCPY, lib.ACLSIM_TRACE_MEMSET):
                        args["bytes"] = int(r["bytes"])
                        name = f"{name} {_size(int(r['bytes']))}"
                    elif kind in (
                        lib.ACLSIM_TRACE_EVENT_RECORD,
                        lib.ACLSIM_TRACE_EVENT_RESET,
                        lib.ACLSIM_TRACE_EVENT_WAIT,
                    ):
                        args["event"] = f"{int(r['bytes']):#x}"
                    cat = "stream"
            events.append(
                {
                    "ph": "X",
                    "cat": cat,
                    "name": name,
                    "pid": dev,
                    "tid": tid,
                    "ts": self._us(start),
                    "dur": max((end - start) / 1000.0, 0.001),
                    "args": args,
                }
            )

        for i, (key, dev, code, label, t0, t1) in enumerate(self._host):
            tid, track = stream_label(key)
            thread(host_pid, tid, f"{track} (NPU {dev})", tid)
            common = {"cat": "completion", "name": label, "pid": host_pid, "tid": tid, "id": i}
            events.append({**common, "ph": "b", "ts": self._us(t0), "args": {"error": code} if code else {}})
            events.append({**common, "ph": "e", "ts": self._us(t1)})
        self.events = events
        return {
            "traceEvents": events,
            "displayTimeUnit": "ms",
            "otherData": {
                "producer": "aiocann",
                "device_records": bool(self.device_records),
                "dropped_records": self.dropped,
            },
        }


def trace(path: str | os.PathLike[str] | None = None, *, capacity: int = 1 << 20) -> Trace:
    """A trace that records a timeline while its ``with`` block runs (or between ``start()``
    and ``stop()``), written to ``path`` in Chrome trace-event format (open it at
    ui.perfetto.dev).

    :param path: the JSON file to write, or None to keep the events in ``trace.events`` only.
    :param capacity: how many device records the simulator keeps (later ones are counted in
        ``trace.dropped``).
    :returns: the :class:`Trace`, not yet started.
    :raises RuntimeError: (on starting) another trace is active.
    """
    return create(Trace, path, capacity=capacity)


# --------------------------------------------------------------------------- AIOCANN_TRACE

_env_devices = 0
_env_trace: Trace | None = None


def _device_opened() -> None:
    """Called when a Device opens: AIOCANN_TRACE starts a trace with the first one."""
    global _env_devices, _env_trace
    path = os.environ.get("AIOCANN_TRACE")
    if not path:
        return
    with _lock:
        _env_devices += 1
        start = _env_devices == 1 and _active is None
    if start:
        _env_trace = create(Trace, path).start()


def _device_closed() -> None:
    global _env_devices, _env_trace
    if not os.environ.get("AIOCANN_TRACE") and _env_trace is None:
        return
    with _lock:
        _env_devices = max(0, _env_devices - 1)
        finish = _env_devices == 0 and _env_trace is not None and _active is _env_trace
    if finish:
        assert _env_trace is not None
        t, _env_trace = _env_trace, None
        t.stop()
