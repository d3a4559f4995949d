"""The stream executor (native/sim/executor.c): a pool of worker threads runs whichever streams
have work, instead of a host thread per stream, and a stream that waits does not keep the
others from running.

Each test runs in a new process with a pool of two workers (AIOCANN_SIM_STREAM_WORKERS is read
when the runtime boots), so what it counts is the pool alone.
"""

from __future__ import annotations

import os
import subprocess
import sys

PRELUDE = """
import os, time
from aiocann._lib import ffi, lib
out = []
def threads():
    return len(os.listdir("/proc/self/task"))
def check(rc):
    assert rc == 0, rc
check(lib.aclrtSetDevice(0))
p = ffi.new("void **")
check(lib.aclrtMalloc(p, 4096, 0))
def new_stream():
    s = ffi.new("aclrtStream *")
    check(lib.aclrtCreateStream(s))
    return s[0]
"""


def run(code: str, workers: int = 2) -> list[int]:
    """Runs code in a new process; the integers it appends to `out`."""
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE + code + "\nprint(*out)"],
        capture_output=True,
        text=True,
        env={**os.environ, "AIOCANN_BACKEND": "sim", "AIOCANN_SIM_STREAM_WORKERS": str(workers)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return [int(x) for x in proc.stdout.split()]


def test_many_streams_add_no_thread_each() -> None:
    """300 streams, each with work, run on the pool's two workers: the process gains at most
    the pool's threads, not one per stream."""
    before, after, done = run(
        """
first = new_stream()
check(lib.aclrtMemsetAsync(p[0], 4096, 1, 4096, first))
check(lib.aclrtSynchronizeStream(first))
before = threads()
streams = [new_stream() for _ in range(300)]
for s in streams:
    check(lib.aclrtMemsetAsync(p[0], 4096, 2, 4096, s))
for s in streams:
    check(lib.aclrtSynchronizeStream(s))
out += [before, threads(), len(streams)]
for s in streams:
    check(lib.aclrtDestroyStream(s))
"""
    )
    assert done == 300
    assert after - before <= 2, f"{after - before} threads for 300 streams on a pool of 2"


def test_waiting_streams_do_not_hold_the_pool() -> None:
    """Six streams wait on notifies no one has recorded yet -- more waits than the pool has
    workers -- and another stream's work still runs; recording the notifies then ends every
    wait, and the threads that stood in for the waiting workers leave again."""
    got = run(
        """
base = threads()
waiting = [new_stream() for _ in range(6)]
notifies = []
for s in waiting:
    n = ffi.new("aclrtNotify *")
    check(lib.aclrtCreateNotify(n, 0))
    notifies.append(n[0])
    check(lib.aclrtWaitAndResetNotify(n[0], s, 0))
for s in waiting:
    check(lib.aclrtMemsetAsync(p[0], 4096, 3, 4096, s))  # queued behind the wait
time.sleep(0.2)
status = ffi.new("aclrtStreamStatus *")
pending = 0
for s in waiting:
    check(lib.aclrtStreamQuery(s, status))
    pending += status[0] != 0  # ACL_STREAM_STATUS_COMPLETE is 0
other = new_stream()
check(lib.aclrtMemsetAsync(p[0], 4096, 4, 4096, other))
out += [pending, lib.aclrtSynchronizeStreamWithTimeout(other, 5000)]
for n in notifies:
    check(lib.aclrtRecordNotify(n, other))
out += [sum(lib.aclrtSynchronizeStreamWithTimeout(s, 5000) for s in waiting)]
deadline = time.monotonic() + 5
while threads() > base + 2 and time.monotonic() < deadline:
    time.sleep(0.01)
out += [threads() - base]
"""
    )
    pending, other_rc, waits_rc, extra_threads = got
    assert pending == 6  # every waiting stream was still waiting
    assert other_rc == 0  # the other stream ran meanwhile
    assert waits_rc == 0  # every wait ended with its record
    assert extra_threads <= 2  # back to the pool's size


def test_an_event_wait_on_every_worker_does_not_stall_the_recording_stream() -> None:
    """Three streams wait on an event whose record is queued behind a blocked stream's wait;
    the record's stream still gets a worker once it is released, and the waits then end in
    order with the record."""
    got = run(
        """
e = ffi.new("aclrtEvent *")
check(lib.aclrtCreateEventWithFlag(e, 0x1))  # ACL_EVENT_SYNC
rec = new_stream()
n = ffi.new("aclrtNotify *")
check(lib.aclrtCreateNotify(n, 0))
check(lib.aclrtWaitAndResetNotify(n[0], rec, 0))
check(lib.aclrtRecordEvent(e[0], rec))
waiters = [new_stream() for _ in range(3)]
for s in waiters:
    check(lib.aclrtStreamWaitEvent(s, e[0]))
    check(lib.aclrtMemsetAsync(p[0], 4096, 5, 4096, s))
time.sleep(0.1)
status = ffi.new("aclrtStreamStatus *")
pending = 0
for s in waiters:
    check(lib.aclrtStreamQuery(s, status))
    pending += status[0] != 0
other = new_stream()
check(lib.aclrtRecordNotify(n[0], other))
out += [pending] + [lib.aclrtSynchronizeStreamWithTimeout(s, 5000) for s in [rec] + waiters]
"""
    )
    assert got == [3, 0, 0, 0, 0]
