"""Shutdown and lifetimes (issue 6): unclosed objects warn, closed devices refuse use, fork
children get a clear error, and interpreter exit with work in flight neither hangs nor crashes."""

from __future__ import annotations

import gc
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import aiocann as ac

pytestmark = pytest.mark.anyio


def run_script(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )


async def test_unclosed_stream_warns_and_is_destroyed():
    async with ac.Device(0) as dev:
        s = dev.stream()
        await s.synchronize()
        with pytest.warns(ResourceWarning, match="never closed"):
            del s
            gc.collect()
        assert len(dev._streams) == 0
        async with dev.stream() as s2:  # the device is fine
            await s2.synchronize()


async def test_objects_of_a_closed_device_raise_clear_errors(vector_add_path):
    async with ac.Device(0) as dev:
        binary = await dev.load_binary(vector_add_path)
        add = binary.function("add_custom")
        s = dev.stream()
        arr = dev.empty(16, np.float32)
        args = await add.args().ptr(arr).ptr(arr).ptr(arr).placeholder(np.array([16, 0], np.uint32))
        ev = await s.record()
    for action in (
        lambda: dev.empty(4),
        lambda: arr.ptr,
        lambda: s.handle,
        lambda: add.handle,
        lambda: ev.handle,
    ):
        with pytest.raises(ac.ClosedError):
            action()
    with pytest.raises(ac.ClosedError):
        await ac.launch(add, args, blocks=1, stream=s)
    with pytest.raises(ac.ClosedError):
        await arr.get(stream=s)


def test_unclosed_device_warns():
    result = run_script(
        """
        import gc, warnings, anyio, aiocann as ac
        warnings.simplefilter("always")
        async def main():
            dev = ac.Device(0)
            await dev.__aenter__()  # entered by hand and never exited
            ac.device._current_device.set(None)
            await dev.aclose()      # closes it...
            dev2 = ac.Device(0)
            dev2._state = "open"    # ...and one that claims to be open is reported when dropped
            del dev2
            gc.collect()
        anyio.run(main)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "ResourceWarning: Device(0) was never closed" in result.stderr


def test_forked_child_gets_a_clear_error_not_a_deadlock():
    result = run_script(
        """
        import os, sys, threading, anyio, aiocann as ac
        from aiocann._lib import lib, ffi, last_error_message
        async def parent():
            async with ac.Device(0) as dev:
                async with dev.stream() as s:
                    await s.upload([1.0, 2.0])
                    pid = os.fork()
                    if pid == 0:  # the child: raw ACL and the async layer both refuse cleanly
                        rc = lib.aclrtSetDevice(0)
                        msg = last_error_message() or ""
                        ok = rc == 100001 and "forked" in msg
                        # issue 12: every entry point refuses, these three included
                        ok = ok and lib.aclrtSynchronizeStream(ffi.cast("aclrtStream", s.handle)) == 100001
                        ok = ok and lib.aclrtSynchronizeEvent(ffi.cast("aclrtEvent", 1)) == 100001
                        ok = ok and lib.aclrtCreateStream(ffi.new("aclrtStream *")) == 100001
                        result = []
                        def in_thread():  # a fresh thread: this one is inside the parent's loop
                            try:
                                anyio.run(child_async)
                                result.append("no error")
                            except RuntimeError as exc:
                                result.append(str(exc))
                        t = threading.Thread(target=in_thread)
                        t.start()
                        t.join(10)
                        ok = ok and bool(result) and "fork" in result[0]
                        print(rc, msg, result, flush=True)
                        os._exit(0 if ok else 3)
                    _, status = os.waitpid(pid, 0)
                    return os.waitstatus_to_exitcode(status)
        async def child_async():
            async with ac.Device(0):
                pass
        sys.exit(anyio.run(parent))
        """
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_interpreter_exit_with_work_in_flight(test_kernels_path):
    """Exits mid-flight (kernels running, callbacks queued, nothing closed): no hang, no crash."""
    result = run_script(
        f"""
        import threading, time, numpy as np, anyio, aiocann as ac
        from aiocann._lib import lib, ffi, check
        import aiocann.acl as acl
        KERNELS = {str(test_kernels_path)!r}

        # The async layer, left running in a daemon thread.
        def async_side():
            async def main():
                async with ac.Device(0) as dev:
                    k = (await dev.load_binary(KERNELS)).function("wait_us")
                    async with dev.stream() as s:
                        args = await k.args().ptr(dev.empty(1, np.int32)).u64(300_000)
                        for _ in range(20):
                            await ac.launch(k, args, blocks=2)
                        await anyio.sleep(30)
            anyio.run(main)
        threading.Thread(target=async_side, daemon=True).start()

        # pyACL style: a Python report thread with queued Python callbacks, never cleaned up.
        assert acl.init() in (0, 100002)  # the async thread may have initialised ACL first
        assert acl.rt.set_device(1) == 0
        stream, ret = acl.rt.create_stream()
        tid, ret = acl.util.start_thread(lambda _: [acl.rt.process_report(100) for _ in iter(int, 1)], None)
        assert acl.rt.subscribe_report(tid, stream) == 0
        for i in range(50):
            acl.rt.launch_callback(lambda d: time.sleep(0.01), i, 0, stream)
        time.sleep(0.5)
        print("exiting with work in flight", flush=True)
        """,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "exiting with work in flight" in result.stdout
    assert "Fatal Python error" not in result.stderr and "Segmentation" not in result.stderr


# --------------------------------------------------------------------------- issue 12, points 2, 3
#
# Work abandoned on a hung device leaves the NPU un-reset and ACL initialised for the rest of
# the process (deliberately: resetting would wait for that work), so these run in subprocesses.

_PRELUDE = """
import os, signal, sys, time, warnings
import anyio, numpy as np
import aiocann as ac
BACKEND, KERNELS = sys.argv[1], sys.argv[2]
NEVER = ac.LaunchConfig(timeout=0)  # no device-side time limit
warnings.simplefilter("always")

def run(main):
    if BACKEND == "uvloop":
        return anyio.run(main, backend="asyncio", backend_options={"use_uvloop": True})
    return anyio.run(main, backend=BACKEND)

def say(*what):
    print(*what, flush=True)
"""


def _backend_name(anyio_backend: object) -> str:
    return "uvloop" if isinstance(anyio_backend, tuple) else str(anyio_backend)


def spawn_async(code: str, anyio_backend: object, kernels: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _PRELUDE + textwrap.dedent(code), _backend_name(anyio_backend), str(kernels)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running after {timeout} s:\n{out}\n{err[-3000:]}")
    return out, err


def test_leaving_after_a_completion_timeout_abandons_the_work(anyio_backend, test_kernels_path):
    """The Completion fails at the completion timeout; leaving the blocks then returns at once,
    abandoning the kernel that never ends (with a warning); the NPU stays usable."""
    proc = spawn_async(
        """
        async def main():
            with anyio.fail_after(20):
                try:
                    async with ac.Device(0, completion_timeout=0.5) as dev:
                        spin = (await dev.load_binary(KERNELS)).function("spin_us")
                        async with dev.stream():
                            args = await spin.args().ptr(dev.empty(1, np.int32)).u64(10**13)
                            c = await ac.launch(spin, args, blocks=1, config=NEVER)
                            t0 = time.monotonic()
                            try:
                                await c
                            except ac.CompletionTimeoutError:
                                say("completion failed after", time.monotonic() - t0)
                except ac.CompletionTimeoutError:
                    say("the exit reported it")
                say("left after", time.monotonic() - t0)
                async with ac.Device(0) as dev:  # the NPU still runs new work
                    write = (await dev.load_binary(KERNELS)).function("write_value")
                    async with dev.stream() as s:
                        out = dev.empty(1, np.int32)
                        await (await ac.launch(write, await write.args().ptr(out).u32(0).i32(7), blocks=1))
                        assert (await out.get()).tolist() == [7]
                say("device usable")
        run(main)
        say("exiting")
        """,
        anyio_backend,
        test_kernels_path,
    )
    out, err = finish(proc, 60)
    assert proc.returncode == 0, out + err[-3000:]
    lines = dict(line.rsplit(" ", 1) for line in out.splitlines() if " after " in line)
    assert 0.4 < float(lines["completion failed after"]) < 3
    assert float(lines["left after"]) < float(lines["completion failed after"]) + 2
    assert "the exit reported it" in out and "device usable" in out and "exiting" in out
    assert "RuntimeWarning" in err and "abandoned" in err, err[-3000:]


def test_a_deadline_around_the_exit_ends_its_wait(anyio_backend, test_kernels_path):
    """fail_after around a block whose exit waits for long work ends the wait at the deadline;
    the work is abandoned (with a warning) and the device closed."""
    proc = spawn_async(
        """
        async def main():
            dev = ac.Device(0)  # the default completion timeout: 300 s
            try:
                with anyio.fail_after(1000) as scope:
                    async with dev:
                        spin = (await dev.load_binary(KERNELS)).function("spin_us")
                        async with dev.stream():
                            args = await spin.args().ptr(dev.empty(1, np.int32)).u64(10**13)
                            await ac.launch(spin, args, blocks=1, config=NEVER)
                            t0 = time.monotonic()
                            scope.deadline = anyio.current_time() + 1  # passes while leaving waits
                            say("leaving")
            except TimeoutError:
                say("timed out after", time.monotonic() - t0)
            assert dev.closed
            async with ac.Device(0):
                pass
        run(main)
        say("exiting")
        """,
        anyio_backend,
        test_kernels_path,
    )
    out, err = finish(proc, 60)
    assert proc.returncode == 0, out + err[-3000:]
    assert "leaving" in out and "exiting" in out
    timed_out = float(out.split("timed out after ")[1].split()[0])
    assert timed_out < 3, out
    assert "RuntimeWarning" in err and "abandoned" in err, err[-3000:]


@pytest.mark.parametrize("when", ["during the exit", "after a cancelled body", "during the body"])
def test_ctrl_c_ends_a_wait_for_device_work(anyio_backend, test_kernels_path, when):
    """Ctrl-C while leaving waits for a kernel that never ends: the process exits -- also when
    the wait is shielded because a deadline cancelled the body. (A Ctrl-C in the body cancels
    the body, so the exit waits as for any cancelled block; the next one ends that wait.)"""
    proc = spawn_async(
        f"""
        async def main():
            with anyio.CancelScope() as scope:
                async with ac.Device(0) as dev:
                    spin = (await dev.load_binary(KERNELS)).function("spin_us")
                    async with dev.stream():
                        args = await spin.args().ptr(dev.empty(1, np.int32)).u64(10**13)
                        c = await ac.launch(spin, args, blocks=1, config=NEVER)
                        if {when == "after a cancelled body"!r}:
                            scope.deadline = anyio.current_time() + 0.3
                        say("ready")
                        if {when == "during the body"!r}:
                            await c
                        elif {when == "after a cancelled body"!r}:
                            try:
                                await anyio.sleep(1000)
                            finally:
                                say("cancelled")  # by the deadline: the exit's wait follows
        run(main)
        """,
        anyio_backend,
        test_kernels_path,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n", finish(proc, 30)
    if when == "after a cancelled body":
        # Once the deadline has cancelled the body, not after a guess at how long that takes: a
        # Ctrl-C that came first, in the body, would cancel the body itself, and the exit would
        # then wait as for any cancelled block (the "during the body" case: it takes two).
        assert proc.stdout.readline() == "cancelled\n", finish(proc, 30)
    time.sleep(0.3)  # into the exit's wait
    signals = 2 if when == "during the body" else 1
    for _ in range(signals):
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(3)
        except subprocess.TimeoutExpired:
            pass
    if proc.poll() is None:
        proc.kill()
        proc.communicate()
        pytest.fail(f"still running after {signals} Ctrl-C")
    out, err = finish(proc, 5)
    assert "KeyboardInterrupt" in err, err[-3000:]
    assert "Fatal Python error" not in err and "Segmentation" not in err


@pytest.mark.parametrize("work", ["queued", "spinning"])
def test_interpreter_exit_does_not_wait_for_device_work(anyio_backend, test_kernels_path, work):
    """A program that returns with a device and stream never closed and device work queued
    (10 x 1 s) or running forever exits at once: the work is abandoned, not awaited."""
    proc = spawn_async(
        f"""
        keep = []
        async def main():
            dev = ac.Device(0)
            await dev.__aenter__()
            s = dev.stream()
            out = dev.empty(1, np.int32)
            if {work!r} == "queued":
                k = (await dev.load_binary(KERNELS)).function("wait_us")
                args = await k.args().ptr(out).u64(1_000_000)
                for _ in range(10):
                    await ac.launch(k, args, blocks=1, stream=s)
            else:
                k = (await dev.load_binary(KERNELS)).function("spin_us")
                args = await k.args().ptr(out).u64(10**13)
                await ac.launch(k, args, blocks=1, stream=s, config=NEVER)
            keep.append((dev, s))
        run(main)
        say("main returned")
        """,
        anyio_backend,
        test_kernels_path,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "main returned\n", finish(proc, 30)
    t0 = time.monotonic()
    out, err = finish(proc, 30)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 0, err[-3000:]
    assert elapsed < 3, f"the interpreter took {elapsed:.1f} s to exit:\n{err[-3000:]}"
    assert "Fatal Python error" not in err and "Segmentation" not in err


def test_an_abandoned_replay_keeps_its_graph_and_memory(anyio_backend, test_kernels_path):
    """A graph replay abandoned with its stream may still run: closing the device neither
    destroys the graph nor frees the memory it writes."""
    proc = spawn_async(
        """
        async def main():
            async with ac.Device(0, completion_timeout=0.5) as dev:
                spin = (await dev.load_binary(KERNELS)).function("spin_us")
                pool = dev.memory_pool
                async with dev.stream() as s:
                    arr = dev.empty(1024, np.int32)
                    async with s.capture() as g:
                        await ac.launch(spin, await spin.args().ptr(arr).u64(10**13), blocks=1, config=NEVER)
                    del arr
                    try:
                        await (await g.launch())
                    except ac.CompletionTimeoutError:
                        say("replay timed out")
                    try:
                        await s.aclose()
                    except ac.CompletionTimeoutError:
                        pass
                g.close()  # not destroyed: its replay may still run
            say("graph", g._state, "in use", pool.stats().in_use_bytes)
        run(main)
        """,
        anyio_backend,
        test_kernels_path,
    )
    out, err = finish(proc, 60)
    assert proc.returncode == 0, out + err[-3000:]
    assert "replay timed out" in out and "graph ready in use 4096" in out, out + err[-3000:]
    assert "RuntimeWarning" in err and "abandoned" in err
