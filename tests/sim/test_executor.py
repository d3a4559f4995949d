"""The stream executor (native/sim/executor.c): a pool of worker threads runs whichever streams
have work, instead of a host thread per stream, and a stream that waits does not keep the
others from running.

Each test runs in a new process with a pool of two workers (AIOCANN_SIM_STREAM_WORKERS is read
when the runtime boots), so what it counts is the pool alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

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
def gated_record(flag):
    # An event (aclrtCreateEventWithFlag's flag), its record queued on a new stream behind a
    # wait on a notify no one has recorded yet: (event, that stream, the notify that releases it).
    e = ffi.new("aclrtEvent *")
    check(lib.aclrtCreateEventWithFlag(e, flag))
    rec = new_stream()
    n = ffi.new("aclrtNotify *")
    check(lib.aclrtCreateNotify(n, 0))
    check(lib.aclrtWaitAndResetNotify(n[0], rec, 0))
    check(lib.aclrtRecordEvent(e[0], rec))
    return e[0], rec, n[0]
def not_done(streams):
    status = ffi.new("aclrtStreamStatus *")
    n = 0
    for s in streams:
        check(lib.aclrtStreamQuery(s, status))
        n += status[0] != 0  # ACL_STREAM_STATUS_COMPLETE is 0
    return n
def replaying(model, n):
    # n new streams, each replaying model, given 0.1 s to reach its wait: (the threads before
    # them, the streams, how many are not done, the threads they added).
    base = threads()
    streams = [new_stream() for _ in range(n)]
    for s in streams:
        check(lib.aclmdlRIExecuteAsync(model, s))
    time.sleep(0.1)
    return base, streams, not_done(streams), threads() - base
def time_outs(busy, a, b):
    # New work on busy while the waits of a and b (1 s timeouts) are parked: [busy's code, whether
    # it ran within 0.5 s, a's and b's codes, whether they took about a second].
    t0 = time.monotonic()
    check(lib.aclrtMemsetAsync(p[0], 4096, 10, 4096, busy))
    ok = lib.aclrtSynchronizeStreamWithTimeout(busy, 5000)
    quick = time.monotonic() - t0 < 0.5
    ra = lib.aclrtSynchronizeStreamWithTimeout(a, 5000)
    rb = lib.aclrtSynchronizeStreamWithTimeout(b, 5000)
    return [ok, int(quick), ra, rb, int(0.8 < time.monotonic() - t0 < 3.0)]
def capture(enqueue):
    cs = new_stream()  # a graph of what enqueue(cs) enqueues
    check(lib.aclmdlRICaptureBegin(cs, 0))  # ACL_MODEL_RI_CAPTURE_MODE_GLOBAL
    enqueue(cs)
    model = ffi.new("aclmdlRI *")
    check(lib.aclmdlRICaptureEnd(cs, model))
    return model[0]
"""


def run(code: str, workers: int = 2, prefix: tuple[str, ...] = ()) -> list[int]:
    """Runs code in a new process (through the command `prefix`, if any); the integers it
    appends to `out`."""
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", PRELUDE + code + "\nprint(*out)"],
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
pending = not_done(waiting)
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
e, rec, gate = gated_record(0x1)  # ACL_EVENT_SYNC
waiters = [new_stream() for _ in range(3)]
for s in waiters:
    check(lib.aclrtStreamWaitEvent(s, e))
    check(lib.aclrtMemsetAsync(p[0], 4096, 5, 4096, s))
time.sleep(0.1)
pending = not_done(waiters)
other = new_stream()
check(lib.aclrtRecordNotify(gate, other))
out += [pending] + [lib.aclrtSynchronizeStreamWithTimeout(s, 5000) for s in [rec] + waiters]
"""
    )
    assert got == [3, 0, 0, 0, 0]


# Parking (executor.c): with a pool of ONE worker, a stream whose next task waits must not hold
# it -- the worker parks the stream and runs the others -- and the process gains no thread for
# the waits (no hand-off to a stand-in thread either).


def test_a_wait_on_a_later_record_completes_with_one_worker() -> None:
    """Stream A waits on an event that only stream B's later work records; with one worker
    that is a deadlock unless A's wait parks. Many waiters, and no thread joins the pool."""
    got = run(
        """
e, b, gate = gated_record(0x1)  # ACL_EVENT_SYNC; B parks on a notify, its record behind it
base = threads()
waiters = [new_stream() for _ in range(50)]
for s in waiters:
    check(lib.aclrtStreamWaitEvent(s, e))
    check(lib.aclrtMemsetAsync(p[0], 4096, 5, 4096, s))
time.sleep(0.1)
pending = not_done(waiters)
during = threads() - base
other = new_stream()  # the one worker still runs other work, then releases B
check(lib.aclrtMemsetAsync(p[0], 4096, 6, 4096, other))
ok_other = lib.aclrtSynchronizeStreamWithTimeout(other, 5000)
check(lib.aclrtRecordNotify(gate, other))
rcs = [lib.aclrtSynchronizeStreamWithTimeout(s, 5000) for s in [b] + waiters]
out += [pending, during, ok_other, sum(rc != 0 for rc in rcs), threads() - base]
""",
        workers=1,
    )
    pending, during, ok_other, failed, after = got
    assert pending == 50  # every waiter was still waiting (in order: its memset behind the wait)
    assert during == 0 and after == 0  # no thread for any of the 51 waits
    assert ok_other == 0 and failed == 0


def test_replays_waiting_on_an_external_event_park_with_one_worker() -> None:
    """50 streams replay a captured graph that waits on an ACL_EVENT_EXTERNAL event whose record
    is queued behind another stream's wait: each replay parks its stream at the wait (it goes
    on from there when the record comes) instead of holding a worker -- with one worker and no
    thread joining it -- and every replay's memset behind the wait then runs."""
    got = run(
        """
go, b, gate = gated_record(0x20)  # ACL_EVENT_EXTERNAL; B parks on a notify, its record behind it
def graph(cs):
    check(lib.aclrtStreamWaitEvent(cs, go))
    check(lib.aclrtMemsetAsync(p[0], 4096, 7, 4096, cs))
model = capture(graph)
base, replays, pending, during = replaying(model, 50)
other = new_stream()  # the one worker still runs other work, then releases B
check(lib.aclrtMemsetAsync(p[0], 4096, 6, 4096, other))
ok_other = lib.aclrtSynchronizeStreamWithTimeout(other, 5000)
check(lib.aclrtRecordNotify(gate, other))
rcs = [lib.aclrtSynchronizeStreamWithTimeout(s, 5000) for s in [b] + replays]
host = ffi.new("uint8_t[4096]")
check(lib.aclrtMemcpy(host, 4096, p[0], 4096, 2))  # ACL_MEMCPY_DEVICE_TO_HOST
out += [pending, during, ok_other, sum(rc != 0 for rc in rcs), threads() - base, host[0], host[4095]]
check(lib.aclmdlRIDestroy(model))
""",
        workers=1,
    )
    pending, during, ok_other, failed, after, first, last = got
    assert pending == 50  # every replay was still waiting for the record
    assert during == 0 and after == 0  # no thread for any of the 50 waits
    assert ok_other == 0 and failed == 0
    assert first == last == 7  # the replays went on past their wait


def test_a_replay_parks_at_a_wait_after_one_of_its_tasks_failed() -> None:
    """20 streams replay a graph whose first task fails (a memset of freed memory) and whose
    next waits on an EXTERNAL event not recorded yet: each replay parks at the wait, keeping its
    failure, with one worker and no thread joining it; when the record comes, each goes on past
    the wait and its stream reports the first task's failure, as without the wait."""
    got = run(
        """
go, b, gate = gated_record(0x20)  # ACL_EVENT_EXTERNAL; B parks on a notify, its record behind it
freed = ffi.new("void **")
check(lib.aclrtMalloc(freed, 4096, 0))
def graph(cs):
    check(lib.aclrtMemsetAsync(freed[0], 4096, 1, 4096, cs))  # fails: freed before the replays
    check(lib.aclrtStreamWaitEvent(cs, go))
    check(lib.aclrtMemsetAsync(p[0], 4096, 8, 4096, cs))
model = capture(graph)
check(lib.aclrtFree(freed[0]))
alone = new_stream()  # the code a replay of it fails with when nothing waits: the record is in
check(lib.aclrtMemsetAsync(p[0], 4096, 0, 4096, alone))
base, replays, pending, during = replaying(model, 20)
other = new_stream()
check(lib.aclrtRecordNotify(gate, other))
rcs = [lib.aclrtSynchronizeStreamWithTimeout(s, 5000) for s in replays]
check(lib.aclrtSynchronizeStreamWithTimeout(b, 5000))
check(lib.aclmdlRIExecuteAsync(model, alone))
host = ffi.new("uint8_t[4096]")
check(lib.aclrtMemcpy(host, 4096, p[0], 4096, 2))  # ACL_MEMCPY_DEVICE_TO_HOST
alone_rc = lib.aclrtSynchronizeStreamWithTimeout(alone, 5000)
out += [pending, during, threads() - base, len(set(rcs)), rcs[0], alone_rc, host[0]]
check(lib.aclmdlRIDestroy(model))
""",
        workers=1,
    )
    pending, during, after, codes, code, alone, written = got
    assert pending == 20  # every replay was waiting for the record
    assert during == 0 and after == 0  # no thread for any of the 20 waits
    assert codes == 1 and code != 0 and code == alone  # each reports the first task's failure
    assert written == 8  # and went on past its wait


def test_a_replay_aborted_while_parked_leaves_its_wait() -> None:
    """A replay parked at an EXTERNAL event wait, its stream then aborted: the replay goes back
    to the wait, which ends itself and leaves the event's queue -- so the stream's next wait,
    on another event, is woken by that event's record (before, the stream stayed on the first
    event's queue, the second wait was never woken, and the synchronize timed out)."""
    got = run(
        """
first, b1, gate1 = gated_record(0x20)  # ACL_EVENT_EXTERNAL, recorded behind gate1 (not yet)
def graph(cs):
    check(lib.aclrtStreamWaitEvent(cs, first))
model = capture(graph)
x = new_stream()
check(lib.aclmdlRIExecuteAsync(model, x))
time.sleep(0.1)
parked = not_done([x])
check(lib.aclrtStreamAbort(x))
aborted = lib.aclrtSynchronizeStreamWithTimeout(x, 5000)
second, b2, gate2 = gated_record(0x1)  # ACL_EVENT_SYNC
check(lib.aclrtStreamWaitEvent(x, second))
other = new_stream()
check(lib.aclrtRecordNotify(gate2, other))
woken = lib.aclrtSynchronizeStreamWithTimeout(x, 5000)
check(lib.aclrtRecordNotify(gate1, other))
out += [parked, aborted, woken, lib.aclrtSynchronizeStreamWithTimeout(b1, 5000)]
check(lib.aclmdlRIDestroy(model))
"""
    )
    parked, aborted, woken, released = got
    assert parked == 1
    assert aborted == 0 and woken == 0 and released == 0


def test_replayed_value_and_notify_waits_park_with_one_worker() -> None:
    """Replays whose captured value wait (20 streams) or notify wait (one stream) is not over
    park their streams, with one worker and no thread joining it; a value write and a notify
    record from another stream then end them, and each replay goes on past its wait."""
    got = run(
        """
def waiting(wait):
    def graph(cs):
        wait(cs)
        check(lib.aclrtMemsetAsync(p[0], 64, 9, 64, cs))
    return capture(graph)
flag = ffi.cast("char *", p[0]) + 1024  # a 64-bit value the replays wait for, 0 now
check(lib.aclrtMemset(flag, 8, 0, 8))
n = ffi.new("aclrtNotify *")
check(lib.aclrtCreateNotify(n, 0))
by_value = waiting(lambda cs: check(lib.aclrtValueWait(flag, 1, 0, cs)))  # >= 1
by_notify = waiting(lambda cs: check(lib.aclrtWaitAndResetNotify(n[0], cs, 0)))
base = threads()
replays = [new_stream() for _ in range(21)]
for s in replays[:20]:
    check(lib.aclmdlRIExecuteAsync(by_value, s))
check(lib.aclmdlRIExecuteAsync(by_notify, replays[20]))
time.sleep(0.1)
pending = not_done(replays)
during = threads() - base
other = new_stream()
check(lib.aclrtValueWrite(flag, 1, 0, other))
check(lib.aclrtRecordNotify(n[0], other))
rcs = [lib.aclrtSynchronizeStreamWithTimeout(s, 5000) for s in [other] + replays]
host = ffi.new("uint8_t[64]")
check(lib.aclrtMemcpy(host, 64, p[0], 64, 2))  # ACL_MEMCPY_DEVICE_TO_HOST
out += [pending, during, sum(rc != 0 for rc in rcs), threads() - base, host[0]]
for m in (by_value, by_notify):
    check(lib.aclmdlRIDestroy(m))
""",
        workers=1,
    )
    pending, during, failed, after, written = got
    assert pending == 21  # every replay was still waiting
    assert during == 0 and after == 0  # no thread for any of the 21 waits
    assert failed == 0 and written == 9


OTHER_PROCESS = """
import ctypes, sys
from aiocann._lib import backend, ffi, lib
def check(rc):
    assert rc == 0, rc
acl = ctypes.CDLL(backend().library)  # the IPC event calls are not in aiocann's binding
class IpcEventHandle(ctypes.Structure):  # aclrtIpcEventHandle, passed by value
    _fields_ = [("reserved", ctypes.c_ubyte * 64)]  # ACL_IPC_EVENT_HANDLE_SIZE
check(lib.aclrtSetDevice(0))
s = ffi.new("aclrtStream *")
check(lib.aclrtCreateStream(s))
gate = ffi.new("aclrtNotify *")  # holds the records back until the first process waits
check(lib.aclrtCreateNotify(gate, 0))
check(lib.aclrtWaitAndResetNotify(gate[0], s[0], 0))
events, keys = sys.stdin.readline().split(), sys.stdin.readline().split()
for h in events:
    e = ctypes.c_void_p()
    check(acl.aclrtIpcOpenEventHandle(IpcEventHandle.from_buffer_copy(bytes.fromhex(h)), ctypes.byref(e)))
    check(lib.aclrtRecordEvent(ffi.cast("aclrtEvent", e.value), s[0]))
imported = []
for k in keys:
    n = ffi.new("aclrtNotify *")
    check(lib.aclrtNotifyImportByKey(n, k.encode(), 0))
    imported.append(n[0])
print("recorded", flush=True)
sys.stdin.readline()  # the first process's streams wait now
for n in imported:
    check(lib.aclrtRecordNotify(n, s[0]))
g = ffi.new("aclrtStream *")
check(lib.aclrtCreateStream(g))
check(lib.aclrtRecordNotify(gate[0], g[0]))
check(lib.aclrtSynchronizeStream(s[0]))
print("done", flush=True)
"""


def test_waits_on_another_process_park_with_one_worker() -> None:
    """40 streams wait on IPC events and 10 on exported notifies, all recorded by another
    process: the waits park on the futex watch (native/sim/futex_watch.c) instead of holding a
    worker each -- one worker, one watch thread, no thread per wait -- and the other process's
    records end them, each stream going on past its wait."""
    got = run(
        f"OTHER = {OTHER_PROCESS!r}\n"
        + """
import ctypes, subprocess, sys
from aiocann._lib import backend
acl = ctypes.CDLL(backend().library)  # the IPC event calls are not in aiocann's binding
events, handles = [], []
for _ in range(40):
    e = ffi.new("aclrtEvent *")
    check(lib.aclrtCreateEventExWithFlag(e, 0x40))  # ACL_EVENT_IPC
    h = ctypes.create_string_buffer(64)  # aclrtIpcEventHandle
    check(acl.aclrtIpcGetEventHandle(ctypes.c_void_p(int(ffi.cast("uintptr_t", e[0]))), h))
    events.append(e[0])
    handles.append(h.raw.hex())
notifies, keys = [], []
for _ in range(10):
    n = ffi.new("aclrtNotify *")
    check(lib.aclrtCreateNotify(n, 0))
    key = ffi.new("char[128]")
    check(lib.aclrtNotifyGetExportKey(n[0], key, 128, 0x02))  # ..._DISABLE_PID_VALIDATION
    notifies.append(n[0])
    keys.append(ffi.string(key).decode())
other = subprocess.Popen([sys.executable, "-c", OTHER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
other.stdin.write(" ".join(handles) + "\\n" + " ".join(keys) + "\\n")
other.stdin.flush()
assert other.stdout.readline().strip() == "recorded"
first = new_stream()  # the one worker exists before the count
check(lib.aclrtMemsetAsync(p[0], 64, 1, 64, first))
check(lib.aclrtSynchronizeStream(first))
base = threads()
waiting = [new_stream() for _ in range(50)]
for s, e in zip(waiting, events):
    check(lib.aclrtStreamWaitEvent(s, e))
for s, n in zip(waiting[40:], notifies):
    check(lib.aclrtWaitAndResetNotify(n, s, 0))
for i, s in enumerate(waiting):
    check(lib.aclrtMemsetAsync(ffi.cast("char *", p[0]) + 64 * i, 64, 5, 64, s))
time.sleep(0.2)
pending = not_done(waiting)
during = threads() - base
check(lib.aclrtMemsetAsync(p[0], 64, 2, 64, first))  # the worker is free for other work
ok_first = lib.aclrtSynchronizeStreamWithTimeout(first, 5000)
other.stdin.write("go\\n")
other.stdin.flush()
rcs = [lib.aclrtSynchronizeStreamWithTimeout(s, 10000) for s in waiting]
assert other.stdout.readline().strip() == "done" and other.wait(30) == 0
host = ffi.new("uint8_t[3200]")
check(lib.aclrtMemcpy(host, 3200, p[0], 3200, 2))  # ACL_MEMCPY_DEVICE_TO_HOST
out += [pending, during, ok_first, sum(rc != 0 for rc in rcs), sum(host[64 * i] == 5 for i in range(50))]
""",
        workers=1,
    )
    pending, during, ok_first, failed, written = got
    assert pending == 50  # every stream was still waiting for the other process
    assert during <= 1  # the futex watch's thread, not one per wait
    assert ok_first == 0  # the one worker ran other work meanwhile
    assert failed == 0 and written == 50  # the other process's records ended every wait


def test_blocking_callbacks_park_while_other_streams_progress() -> None:
    """Twenty streams each reach a blocking callback that no thread processes yet: with one
    worker, another stream's work still completes; once a thread processes the reports, every
    callback runs, in order before its stream's next task."""
    got = run(
        """
import threading
streams = [new_stream() for _ in range(20)]
ran = []
@ffi.callback("void(void *)")
def cb(arg):
    ran.append(int(ffi.cast("intptr_t", arg)))
tid = threading.get_ident()
for s in streams:
    check(lib.aclrtSubscribeReport(tid, s))
base = threads()
for i, s in enumerate(streams):
    check(lib.aclrtLaunchCallback(cb, ffi.cast("void *", i), 1, s))  # ACL_CALLBACK_BLOCK
    check(lib.aclrtMemsetAsync(p[0], 4096, 7, 4096, s))
other = new_stream()
check(lib.aclrtMemsetAsync(p[0], 4096, 8, 4096, other))
ok_other = lib.aclrtSynchronizeStreamWithTimeout(other, 5000)
pending = not_done(streams)
during = threads() - base
deadline = time.monotonic() + 5
while len(ran) < 20 and time.monotonic() < deadline:
    lib.aclrtProcessReport(100)
rcs = [lib.aclrtSynchronizeStreamWithTimeout(s, 5000) for s in streams]
for s in streams:
    check(lib.aclrtUnSubscribeReport(tid, s))
out += [ok_other, pending, during, len(ran), int(sorted(ran) == list(range(20))), sum(rc != 0 for rc in rcs)]
""",
        workers=1,
    )
    assert got == [0, 20, 0, 20, 1, 0]


def test_replayed_blocking_callbacks_park_with_one_worker() -> None:
    """Ten replays of a graph with a captured blocking callback reach it before any thread
    processes reports: each parks its stream (no thread joins the one worker, and another
    stream's work completes); once a thread processes the reports, every replay's callback runs
    and the replay goes on past it."""
    got = run(
        """
import threading
ran = []
@ffi.callback("void(void *)")
def cb(arg):
    ran.append(int(ffi.cast("intptr_t", arg)))
tid = threading.get_ident()
def graph(cs):
    check(lib.aclrtSubscribeReport(tid, cs))
    check(lib.aclrtLaunchCallback(cb, ffi.cast("void *", 5), 1, cs))  # ACL_CALLBACK_BLOCK
    check(lib.aclrtMemsetAsync(p[0], 64, 3, 64, cs))
    subscribed.append(cs)
subscribed = []
model = capture(graph)
base = threads()
replays = [new_stream() for _ in range(10)]
for s in replays:
    check(lib.aclmdlRIExecuteAsync(model, s))
other = new_stream()
check(lib.aclrtMemsetAsync(p[0], 4096, 8, 4096, other))
ok_other = lib.aclrtSynchronizeStreamWithTimeout(other, 5000)
pending = not_done(replays)
during = threads() - base
deadline = time.monotonic() + 5
while len(ran) < 10 and time.monotonic() < deadline:
    lib.aclrtProcessReport(100)
rcs = [lib.aclrtSynchronizeStreamWithTimeout(s, 5000) for s in replays]
host = ffi.new("uint8_t[64]")
check(lib.aclrtMemcpy(host, 64, p[0], 64, 2))  # ACL_MEMCPY_DEVICE_TO_HOST
check(lib.aclmdlRIDestroy(model))
check(lib.aclrtUnSubscribeReport(tid, subscribed[0]))
out += [ok_other, pending, during, len(ran), int(set(ran) == {5}), sum(rc != 0 for rc in rcs), host[0]]
""",
        workers=1,
    )
    assert got == [0, 10, 0, 10, 1, 0, 3]


def test_parked_waits_still_time_out_with_their_codes() -> None:
    """A parked event wait (aclrtSetOpWaitTimeout's 1 s) and a parked notify wait (1 s) fail their
    tasks with 107020 after about a second, on a pool of one worker that meanwhile runs another
    stream's work; the stream then goes on with its next task."""
    got = run(
        """
e = ffi.new("aclrtEvent *")
check(lib.aclrtCreateEventWithFlag(e, 0x1))
rec = new_stream()
n0 = ffi.new("aclrtNotify *")
check(lib.aclrtCreateNotify(n0, 0))
check(lib.aclrtWaitAndResetNotify(n0[0], rec, 0))  # keeps the record from happening
check(lib.aclrtRecordEvent(e[0], rec))
a = new_stream()
check(lib.aclrtSetOpWaitTimeout(1))  # the wait task's timeout: 1 s
check(lib.aclrtStreamWaitEvent(a, e[0]))
check(lib.aclrtMemsetAsync(p[0], 4096, 9, 4096, a))
bs = new_stream()
n = ffi.new("aclrtNotify *")
check(lib.aclrtCreateNotify(n, 0))
check(lib.aclrtWaitAndResetNotify(n[0], bs, 1))
check(lib.aclrtMemsetAsync(p[0], 4096, 9, 4096, bs))
other = new_stream()
out += time_outs(other, a, bs)
check(lib.aclrtRecordNotify(n0[0], other))
out += [lib.aclrtSynchronizeStreamWithTimeout(rec, 5000)]
""",
        workers=1,
    )
    assert got == [0, 1, 107020, 107020, 1, 0]


def test_watched_waits_time_out_and_take_more_than_one_watcher() -> None:
    """Waits on the futex watch keep their timeouts: an IPC event wait (aclrtSetOpWaitTimeout's
    1 s) and an exported notify's wait (1 s) fail with 107020 after about a second, while the one
    worker runs other work. And 200 IPC event waits -- more than one watcher's 127 words -- park
    on two watcher threads, and all end when their records come."""
    got = run(
        """
def ipc_event_behind(gate_stream):
    e = ffi.new("aclrtEvent *")
    check(lib.aclrtCreateEventExWithFlag(e, 0x40))  # ACL_EVENT_IPC
    check(lib.aclrtRecordEvent(e[0], gate_stream))
    return e[0]
rec = new_stream()
n0 = ffi.new("aclrtNotify *")
check(lib.aclrtCreateNotify(n0, 0))
check(lib.aclrtWaitAndResetNotify(n0[0], rec, 0))  # keeps the records from happening
first = new_stream()  # the one worker exists before the counts
check(lib.aclrtMemsetAsync(p[0], 4096, 1, 4096, first))
check(lib.aclrtSynchronizeStream(first))
base = threads()
a = new_stream()
check(lib.aclrtSetOpWaitTimeout(1))  # the wait task's timeout: 1 s
check(lib.aclrtStreamWaitEvent(a, ipc_event_behind(rec)))
check(lib.aclrtMemsetAsync(p[0], 4096, 9, 4096, a))
bs = new_stream()
n = ffi.new("aclrtNotify *")
check(lib.aclrtCreateNotify(n, 0))
key = ffi.new("char[128]")
check(lib.aclrtNotifyGetExportKey(n[0], key, 128, 0x02))  # shared from now on
check(lib.aclrtWaitAndResetNotify(n[0], bs, 1))
check(lib.aclrtMemsetAsync(p[0], 4096, 9, 4096, bs))
timed = time_outs(first, a, bs)
check(lib.aclrtSetOpWaitTimeout(0))
many = [new_stream() for _ in range(200)]
for s in many:
    check(lib.aclrtStreamWaitEvent(s, ipc_event_behind(rec)))
time.sleep(0.3)
pending = not_done(many)
during = threads() - base
check(lib.aclrtRecordNotify(n0[0], first))
rcs = [lib.aclrtSynchronizeStreamWithTimeout(s, 10000) for s in [rec] + many]
out += timed + [pending, during, sum(rc != 0 for rc in rcs)]
""",
        workers=1,
    )
    ok_first, quick, ra, rb, about_a_second, pending, during, failed = got
    assert ok_first == 0 and quick == 1  # the worker ran other work while both waited
    assert ra == rb == 107020 and about_a_second == 1
    assert pending == 200 and during == 2  # two watcher threads for 200 words, no thread per wait
    assert failed == 0


# Runs a command with futex_waitv (syscall 449, the same number on every architecture) refused
# with EPERM, as some containers' seccomp filters refuse calls newer than they know.
NO_FUTEX_WAITV = r"""
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 449, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
        perror("seccomp");
        return 2;
    }
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 2;
}
"""


def test_without_futex_waitv_watched_waits_block_their_worker_instead(tmp_path) -> None:
    """Where futex_waitv is refused (a seccomp filter: EPERM), the futex watch takes no wait: 10
    IPC event waits block their workers as before (stand-in threads join the pool), nothing
    spins meanwhile, and every wait ends with its record."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    helper = tmp_path / "no_futex_waitv"
    source = tmp_path / "no_futex_waitv.c"
    source.write_text(NO_FUTEX_WAITV)
    subprocess.run([cc, "-O1", "-o", str(helper), str(source)], check=True)
    got = run(
        """
rec = new_stream()
gate = ffi.new("aclrtNotify *")
check(lib.aclrtCreateNotify(gate, 0))
check(lib.aclrtWaitAndResetNotify(gate[0], rec, 0))  # keeps the records from happening
base = threads()
waiting = []
for _ in range(10):
    e = ffi.new("aclrtEvent *")
    check(lib.aclrtCreateEventExWithFlag(e, 0x40))  # ACL_EVENT_IPC
    check(lib.aclrtRecordEvent(e[0], rec))
    s = new_stream()
    check(lib.aclrtStreamWaitEvent(s, e[0]))
    waiting.append(s)
time.sleep(0.3)
cpu0 = time.process_time()
time.sleep(0.3)
spent = time.process_time() - cpu0
pending, during = not_done(waiting), threads() - base
other = new_stream()
check(lib.aclrtRecordNotify(gate[0], other))
out += [pending, during, int(spent < 0.1), sum(lib.aclrtSynchronizeStreamWithTimeout(s, 5000) != 0 for s in waiting)]
""",
        workers=1,
        prefix=(str(helper),),
    )
    pending, during, idle, failed = got
    assert pending == 10
    assert during >= 9  # a stand-in thread per blocked wait: no watch took them
    assert idle == 1  # the blocked waits sleep in the kernel: no thread spins
    assert failed == 0


def test_abort_and_reset_of_parked_streams() -> None:
    """Streams parked on event waits, a blocking callback no one processes and a value wait:
    aclrtStreamAbort ends two (and a stream takes work again after it), and aclrtResetDevice the
    value wait (the end of its stream ends it) and the rest -- none hangs, on a pool of one
    worker. (aclrtDestroyStreamForce waits up to 3 s, as the runtime's does: not here.)"""
    got = run(
        """
import threading
e, rec, gate = gated_record(0x1)  # ACL_EVENT_SYNC
a = new_stream()
check(lib.aclrtStreamWaitEvent(a, e))
check(lib.aclrtMemsetAsync(p[0], 4096, 11, 4096, a))
c = new_stream()
@ffi.callback("void(void *)")
def cb(arg):
    pass
check(lib.aclrtSubscribeReport(threading.get_ident(), c))
check(lib.aclrtLaunchCallback(cb, ffi.NULL, 1, c))
f = new_stream()
check(lib.aclrtStreamWaitEvent(f, e))
v = new_stream()
check(lib.aclrtMemsetAsync(p[0], 8, 0, 8, v))
check(lib.aclrtValueWait(p[0], 1, 1, v))  # EQ 1: never written
time.sleep(0.1)
t0 = time.monotonic()
out += [lib.aclrtStreamAbort(a)]
check(lib.aclrtMemsetAsync(p[0], 4096, 12, 4096, a))
out += [lib.aclrtSynchronizeStreamWithTimeout(a, 5000)]
out += [lib.aclrtStreamAbort(c), lib.aclrtSynchronizeStreamWithTimeout(c, 5000)]
check(lib.aclrtRecordNotify(gate, a))  # a notify wait is not ended by a reset (as before); f's then is
out += [lib.aclrtResetDevice(0), int(time.monotonic() - t0 < 3)]
""",
        workers=1,
    )
    assert got == [0, 0, 0, 0, 0, 1]


def test_a_cross_device_wait_parks() -> None:
    """A stream of device 1 waits on an event device 0 records later (behind a notify wait):
    with one worker for both devices, device 0's streams still run, and the wait ends with the
    record."""
    got = run(
        """
e, rec, gate = gated_record(0x1)  # ACL_EVENT_SYNC
check(lib.aclrtSetDevice(1))
far = new_stream()
check(lib.aclrtStreamWaitEvent(far, e))
q = ffi.new("void **")
check(lib.aclrtMalloc(q, 4096, 0))
check(lib.aclrtMemsetAsync(q[0], 4096, 1, 4096, far))
time.sleep(0.05)
status = ffi.new("aclrtStreamStatus *")
check(lib.aclrtStreamQuery(far, status))
out += [status[0]]
check(lib.aclrtSetDevice(0))
other = new_stream()
check(lib.aclrtMemsetAsync(p[0], 4096, 2, 4096, other))
out += [lib.aclrtSynchronizeStreamWithTimeout(other, 5000)]
check(lib.aclrtRecordNotify(gate, other))
check(lib.aclrtSetDevice(1))
out += [lib.aclrtSynchronizeStreamWithTimeout(far, 5000)]
""",
        workers=1,
    )
    assert got == [1, 0, 0]  # 1: ACL_STREAM_STATUS_NOT_READY while parked


def test_a_host_function_in_progress_holds_no_worker() -> None:
    """aclrtLaunchHostFunc: its stream waits while the runtime's own thread runs the function
    (here 0.3 s); with one worker, another stream's work completes meanwhile, and the host
    function's stream goes on after it returns."""
    got = run(
        """
import ctypes
from aiocann.compiler import library_path
acl = ctypes.CDLL(str(library_path()))  # the library the binding uses (not in the binding)
@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def slow(arg):
    time.sleep(0.3)
a = new_stream()
check(acl.aclrtLaunchHostFunc(ctypes.c_void_p(int(ffi.cast("uintptr_t", a))), slow, None))
check(lib.aclrtMemsetAsync(p[0], 4096, 1, 4096, a))
time.sleep(0.05)
t0 = time.monotonic()
b = new_stream()
check(lib.aclrtMemsetAsync(p[0], 4096, 2, 4096, b))
out += [lib.aclrtSynchronizeStreamWithTimeout(b, 5000), int(time.monotonic() - t0 < 0.2)]
out += [lib.aclrtSynchronizeStreamWithTimeout(a, 5000), int(time.monotonic() - t0 > 0.2)]
""",
        workers=1,
    )
    assert got == [0, 1, 0, 1]
