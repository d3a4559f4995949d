"""Handles: ints in the public API, shared with pyACL; borrowed streams and events; objects
come from their factories only (issue 14, point 3).

The pyACL side of these tests is ``aiocann.acl`` in the same process, as a program mixing the
two would use it: ``acl.rt.set_device`` binds the device's default context, the same one the
async layer uses, so handles pass between the two both ways.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import anyio
import numpy as np
import pytest
from async_util import Gate

import aiocann as ac
import aiocann.acl as acl

pytestmark = pytest.mark.anyio


@contextlib.contextmanager
def pyacl_device(index: int) -> Iterator[None]:
    """What a pyACL program does around its work: set the device, reset it at the end."""
    assert acl.rt.set_device(index) == 0
    try:
        yield
    finally:
        assert acl.rt.reset_device(index) == 0


def pyacl_stream() -> int:
    handle, ret = acl.rt.create_stream()
    assert ret == 0 and isinstance(handle, int) and handle
    return handle


class Wrapped:
    """Another library's stream object, speaking the __acl_stream__ protocol."""

    def __init__(self, handle: int, version: int = 0) -> None:
        self.handle, self.version = handle, version

    def __acl_stream__(self) -> tuple[int, int]:
        return (self.version, self.handle)


async def test_public_handles_are_the_ints_pyacl_takes(test_kernels_path):
    async with ac.Device(0) as dev, dev.stream() as s:
        binary = await dev.load_binary(test_kernels_path)
        k = binary.function("write_value")
        out = dev.empty(4, np.int32)
        await s.memset(out, 0)
        args = await k.args().ptr(out).u32(3).i32(-5)
        ev = await s.record()
        await ev
        for obj in (s, ev, binary, k, args):
            assert type(obj.handle) is int and obj.handle > 0, obj
        assert s.__acl_stream__() == (0, s.handle) and not s.borrowed and not ev.borrowed
        with pyacl_device(0):
            # pyACL finds the same kernel, launches aiocann's args on aiocann's stream, and
            # queries aiocann's event: one set of handles for both APIs.
            assert acl.rt.binary_get_function(binary.handle, "write_value") == (k.handle, 0)
            assert acl.rt.launch_kernel_with_config(k.handle, 1, s.handle, [], args.handle, 0) == 0
            assert acl.rt.synchronize_stream(s.handle) == 0
            assert acl.rt.query_event_status(ev.handle) == (1, 0)  # ACL_EVENT_RECORDED_STATUS_COMPLETE
        np.testing.assert_array_equal(await out.get(), [0, 0, 0, -5])
    args.close()
    for obj in (s, ev, binary, k, args):  # closed (with their device): no handle to hand out
        with pytest.raises(ac.ClosedError):
            _ = obj.handle
    with pytest.raises(ac.ClosedError):
        s.__acl_stream__()


async def test_borrowed_stream_runs_launches_copies_and_completions(test_kernels_path):
    host = np.arange(1000, dtype=np.int32)
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(test_kernels_path)).function("write_value")
        with pyacl_device(0):
            handle = pyacl_stream()
            s = ac.Stream.from_handle(handle)  # the task's current device
            assert s.borrowed and s.handle == handle and s.device is dev
            async with s:  # enter: the current stream, as any other
                assert ac.current_stream() is s
                x = await s.upload(host)
                done = await ac.launch(k, await k.args().ptr(x).u32(7).i32(-1), blocks=1)
                await done
                assert done.done() and done.stream is s
                expect = host.copy()
                expect[7] = -1
                np.testing.assert_array_equal(await x.get(), expect)
            assert "closed" in repr(s)
            with pytest.raises(ac.ClosedError):
                _ = s.handle
            # The wrapper is closed; the stream is still its owner's, alive and usable.
            assert acl.rt.memset_async(x.ptr, 4, 0, 4, handle) == 0
            assert acl.rt.synchronize_stream(handle) == 0
            assert acl.rt.destroy_stream(handle) == 0
            assert acl.rt.destroy_stream(handle) != 0  # destroyed now, by its owner: once


async def test_borrowed_stream_from_the_protocol_and_closed_by_its_device():
    # A pyACL program that initialised ACL itself, and opens aiocann's Device inside its work.
    assert acl.init() == 0
    with contextlib.ExitStack() as finalize, pyacl_device(0):
        finalize.callback(lambda: acl.finalize() == 0 or pytest.fail("acl.finalize failed"))
        handle = pyacl_stream()
        async with ac.Device(0) as dev:
            s = ac.Stream.from_handle(Wrapped(handle), device=dev, max_in_flight=3)
            assert s.handle == handle and s.max_in_flight == 3
            arr = await s.upload(np.ones(16, np.float32))
            await s.synchronize()
        # Closing the device closed the wrapper, not the stream.
        assert "closed" in repr(s)
        assert arr.closed
        assert acl.rt.stream_query(handle) == (0, 0)  # (ACL_STREAM_STATUS_COMPLETE, ret)
        assert acl.rt.destroy_stream(handle) == 0


async def test_work_other_code_puts_on_a_borrowed_stream_fails_at_synchronize(test_kernels_path):
    async with ac.Device(0) as dev:
        divide = (await dev.load_binary(test_kernels_path)).function("divide")
        with pyacl_device(0):
            handle = pyacl_stream()
            s = ac.Stream.from_handle(handle)
            out = dev.empty(1, np.int32)
            args = await divide.args().ptr(out).i32(0)  # 100 / 0: the kernel faults
            # Launched by other code (pyACL), not by aiocann: no Completion is about it.
            assert acl.rt.launch_kernel_with_config(divide.handle, 1, handle, [], args.handle, 0) == 0
            with pytest.raises(ac.KernelFaultError):
                await s.synchronize()
            await s.synchronize()  # reported once, as aclrtSynchronizeStream does
            await s.aclose()
            assert acl.rt.destroy_stream(handle) == 0


async def test_borrowed_event(test_kernels_path):
    n = 64
    async with ac.Device(0) as dev, dev.stream() as s:
        buf, copy = dev.empty(n, np.uint8), dev.empty(n, np.uint8)
        await s.memset(buf, 0)
        await s.synchronize()
        with pyacl_device(0):
            handle = pyacl_stream()
            event, ret = acl.rt.create_event()
            assert ret == 0
            ev = ac.Event.from_handle(event)
            assert ev.borrowed and ev.handle == event and ev.device is dev
            # Other code's stream: held at a gate, then a memset, then the event.
            other = ac.Stream.from_handle(handle)
            gate = await Gate.hold(dev, other, test_kernels_path)
            assert acl.rt.memset_async(buf.ptr, n, 7, n, handle) == 0
            assert acl.rt.record_event(event, handle) == 0
            # aiocann's stream waits for the borrowed event on the device: its copy stays
            # queued while the gate is closed (without the wait it would copy the zeros now).
            s.wait(ev)
            copied = await s.copy(copy, buf)
            with anyio.move_on_after(0.05):
                await copied
            assert not copied.done() and not ev.done()
            await gate.open()
            await copied
            assert ev.done()
            np.testing.assert_array_equal(await copy.get(), np.full(n, 7, np.uint8))
            with pytest.raises(RuntimeError, match="not recorded by aiocann"):
                await ev
            await other.aclose()
            ev.close()
            ev.close()  # idempotent
            with pytest.raises(ac.ClosedError):
                s.wait(ev)
            # Closing the wrapper did not destroy the event: its owner still has it.
            assert acl.rt.query_event_status(event) == (1, 0)
            assert acl.rt.destroy_event(event) == 0
            assert acl.rt.destroy_stream(handle) == 0


async def test_bad_handles_are_refused_clearly():
    async with ac.Device(0) as dev, ac.Device(1) as dev1, dev.stream() as s:
        ev = await s.record()
        with pyacl_device(0):
            gone = pyacl_stream()
            assert acl.rt.destroy_stream(gone) == 0
            for stale in (gone, 12345, ev.handle):  # destroyed, made up, an event
                with pytest.raises(ac.InvalidHandleError, match=r"Stream.from_handle\(0x[0-9a-f]+\) on Device\(0\)"):
                    ac.Stream.from_handle(stale, device=dev)
            with pytest.raises(ac.InvalidHandleError, match="Event.from_handle"):
                ac.Event.from_handle(s.handle, device=dev)  # a stream is no event
            # aiocann's own stream, through the protocol: its report thread already serves it, and a
            # second subscription by the same thread is 107011 (CbSubscribe::CheckForInsert)
            with pytest.raises(ac.StreamSubscribeError, match="already serves"):
                ac.Stream.from_handle(s, device=dev)
            mine = pyacl_stream()
            tid = 424242  # a thread id that serves the stream's callbacks (nobody processes them)
            assert acl.rt.subscribe_report(tid, mine) == 0
            with pytest.raises(ac.StreamSubscribeError, match="cannot be wrapped"):
                ac.Stream.from_handle(mine, device=dev)
            assert acl.rt.unsubscribe_report(tid, mine) == 0
            assert acl.rt.destroy_stream(mine) == 0
        with pyacl_device(1):
            other_device = pyacl_stream()
            with pytest.raises(ac.StreamContextError, match="device 1"):
                ac.Stream.from_handle(other_device, device=dev)
            wrapper = ac.Stream.from_handle(other_device, device=dev1)  # its own device takes it
            await dev1.aclose()  # which closes the wrapper
            assert "closed" in repr(wrapper)
            assert acl.rt.destroy_stream(other_device) == 0
        with pytest.raises(ValueError, match="default stream"):
            ac.Stream.from_handle(0)
        with pytest.raises(ValueError):
            ac.Stream.from_handle(1 << 64)
        with pytest.raises(ValueError, match="version"):
            ac.Stream.from_handle(Wrapped(s.handle, version=1))
        for wrong in (True, "0x1", 1.5, None):
            with pytest.raises(TypeError, match="handle must be an int"):
                ac.Stream.from_handle(wrong)  # type: ignore[arg-type]
            with pytest.raises(TypeError, match="handle must be an int"):
                ac.Event.from_handle(wrong)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            ac.Event.from_handle(0)
    with pytest.raises(RuntimeError, match="no current device"):
        ac.Stream.from_handle(12345)
    with pytest.raises(ac.ClosedError):
        ac.Stream.from_handle(12345, device=dev)


async def test_objects_come_from_their_factories_only(vector_add_path):
    async with ac.Device(0) as dev, dev.stream() as s:
        binary = await dev.load_binary(vector_add_path)
        kernel = binary.function("add_custom")
        array = dev.empty(4, np.float32)
        objects = {
            ac.Stream: (dev, 8, 0),
            ac.Event: (dev, None),
            ac.Binary: (dev, None, "x", None),
            ac.Kernel: (binary, "add_custom", None, None),
            ac.ArgsBuilder: (kernel,),
            ac.KernelArgs: (),
            ac.DeviceArray: (dev, None, (4,), np.dtype(np.float32)),
            ac.Completion: (s, "work"),
            ac.CapturedWork: (None, "work"),
            ac.Graph: (s,),
            ac.TaskGroup: (None,),
            ac.MemoryPool: (None,),
            ac.Trace: (),
        }
        factories = {
            ac.Stream: "dev.stream()",
            ac.Event: "await stream.record()",
            ac.Binary: "dev.load_binary",
            ac.Kernel: "binary.function(name)",
            ac.ArgsBuilder: "kernel.args()",
            ac.KernelArgs: "await kernel.args()",
            ac.DeviceArray: "dev.empty",
            ac.Completion: "aiocann.launch()",
            ac.CapturedWork: "stream.capture()",
            ac.Graph: "stream.capture()",
            ac.TaskGroup: "graph.group()",
            ac.MemoryPool: "dev.memory_pool",
            ac.Trace: "aiocann.trace(path)",
        }
        streams_before = len(dev._streams)
        for cls, args in objects.items():
            with pytest.raises(TypeError, match=rf"aiocann\.{cls.__name__} objects are not created directly: use .*"):
                cls(*args)
            with pytest.raises(TypeError) as info:
                cls(*args)
            assert factories[cls] in str(info.value), (cls, str(info.value))
        assert len(dev._streams) == streams_before  # nothing was half made
        assert not array.closed
