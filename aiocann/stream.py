"""``Stream``: an ordered queue of device work, as an async context manager.

Everything enqueued on a stream -- launches (``aiocann.launch``), copies, event records,
synchronize markers -- returns a :class:`Completion` resolved by the device's dispatcher, and
runs on the device in submission order. Streams run concurrently with each other.

* ``async with dev.stream() as s:`` opens the stream and makes it the task's *current* stream
  inside the block (a contextvar, so two tasks on one loop never see each other's stream).
  Leaving the block awaits all pending work, raises the stream's first device error if the
  body succeeded, and destroys the stream -- or, for work still running past the completion
  timeout or when that wait is cancelled, abandons it (``aclose``).
* Back-pressure: a stream admits at most ``max_in_flight`` unresolved Completions; further
  submissions wait (cancelling such a wait enqueues nothing).
* Errors, as the runtime reports them (streams run in ACL's default continue-on-failure mode):
  a failed kernel or copy fails exactly its own Completion, with the task's error code (the
  runtime's exception report names the stream and task); work before and after it is
  unaffected and runs. Events carry no error. ``synchronize()`` and leaving ``async with
  stream`` (if the body succeeded) raise the first failure no earlier synchronize reported.
"""

from __future__ import annotations

import operator
import threading
import warnings
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import anyio.to_thread
import numpy as np

from . import _context, _ints, errors
from ._context import StreamBase, _current_stream, current_device, current_stream
from ._core import core_of
from ._factory import NoPublicConstructor, create
from ._interrupt import keyboard_interrupt_on_ctrl_c
from ._lib import as_int, as_pointer, check, ffi, last_error_message, lib
from ._submission import OPEN, Mode, Submissions, stopped_code
from .completion import Completion
from .event import Event, _new_event
from .graph import _capture, _interrupt
from .memory import DeviceArray, is_pinned

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from .device import Device
    from .graph import CaptureMode, Graph

__all__ = ["Stream", "current_stream"]

# Host copies smaller than this run on the event loop; larger ones in a worker thread.
_INLINE_COPY = 1 << 20


def _array(value: Any, what: str) -> DeviceArray:
    if not isinstance(value, DeviceArray):
        raise TypeError(f"{what} must be a DeviceArray, not {type(value).__name__}")
    return value


class _AclStreamLike(Protocol):
    """An object that hands out an ACL stream handle: ``__acl_stream__()`` returns
    ``(version, handle)``, version 0 (the shape of cuda.core's ``__cuda_stream__``)."""

    def __acl_stream__(self) -> tuple[int, int]: ...


def _stream_handle(obj: object) -> int:
    """The int handle ``Stream.from_handle`` was given: an int, or an ``__acl_stream__`` object."""
    protocol = getattr(type(obj), "__acl_stream__", None)
    if protocol is not None:
        got = protocol(obj)
        if not (isinstance(got, tuple) and len(got) == 2):
            raise TypeError(f"{type(obj).__name__}.__acl_stream__() must return (version, handle), not {got!r}")
        version, obj = got
        if version != 0:
            raise ValueError(f"__acl_stream__ protocol version {version!r} is not supported (aiocann knows version 0)")
    elif not hasattr(type(obj), "__index__") and isinstance(getattr(obj, "npu_stream", None), int):
        # torch_npu's streams (torch.npu.Stream, torch_npu.npu.current_stream()) carry the
        # aclrtStream as an int attribute, as torch.cuda.Stream carries cuda_stream.
        obj = obj.npu_stream  # type: ignore[attr-defined]
    if isinstance(obj, bool) or not hasattr(type(obj), "__index__"):
        raise TypeError(
            f"handle must be an int (an aclrtStream, as acl.rt.create_stream returns it), an object with "
            f"__acl_stream__() or an int npu_stream attribute (torch_npu), not {type(obj).__name__}"
        )
    value = operator.index(obj)  # type: ignore[arg-type]
    if value == 0:
        raise ValueError(
            "handle 0 is the default stream (NULL), which has no identity to wrap: pass a stream created "
            "with acl.rt.create_stream (aclrtCreateStream)"
        )
    if not 0 < value < 1 << 64:
        raise ValueError(f"handle {value} is not a pointer-sized value")
    return value


class Stream(StreamBase, metaclass=NoPublicConstructor):
    """An ordered queue of device work on one NPU (an ACL stream); see the module docstring.

    Made by :meth:`Device.stream` -- ``async with dev.stream() as s:`` for a block, or
    ``s = dev.stream()`` ... ``await s.aclose()`` to keep one open -- or, around a stream that
    other code created, by :meth:`Stream.from_handle`. ``max_in_flight`` and ``priority`` are
    the stream's admission limit and its ACL priority.
    """

    _factory = "dev.stream(), or Stream.from_handle(handle) for a stream made by other code"

    def __init__(self, device: Device, max_in_flight: int, priority: int, borrowed: Any = None) -> None:
        # Opens the stream: creates it (or adopts ``borrowed``, an aclrtStream other code owns),
        # subscribes the device's report thread to it and registers it with the completion queue.
        max_in_flight = _ints.in_range(max_in_flight, "max_in_flight", _ints.IN_FLIGHT_STOP, 1)
        self._device = device
        self._core = core = core_of(device)  # what the stream asks of its device (_core.py)
        self.max_in_flight = max_in_flight
        self.priority = priority
        self._handle_int = 0
        self._borrowed = borrowed is not None
        self._sub: Submissions = None  # type: ignore[assignment]  # set below
        self._cv_token: Any = None
        self._closed_event: anyio.Event | None = None  # for a close that waits for another's
        core.bind()
        reporter = core.reporter_tid
        if borrowed is None:
            h = ffi.new("aclrtStream*")
            check(lib.aclrtCreateStreamWithConfig(h, priority, 0), "aclrtCreateStreamWithConfig")
            handle = h[0]
        else:
            handle = borrowed

        def undo() -> None:
            if borrowed is None:  # a borrowed stream is its owner's to destroy, always
                lib.aclrtDestroyStream(handle)

        rc = lib.aclrtSubscribeReport(reporter, handle)
        if rc:
            undo()
            if borrowed is None:
                check(rc, "aclrtSubscribeReport")
            # One report thread serves a stream's host callbacks (ACL's rule), and aiocann's
            # completions are such callbacks: a stream another thread serves cannot be wrapped.
            raise errors.error_for(
                rc,
                f"{last_error_message()} -- a stream takes one report thread: one that other code subscribed "
                "(aclrtSubscribeReport), or that aiocann already serves, cannot be wrapped",
                "Stream.from_handle (aclrtSubscribeReport)",
            )
        try:
            self._sub = Submissions(self, core, handle, max_in_flight)
        except BaseException:
            lib.aclrtUnSubscribeReport(reporter, handle)
            undo()
            raise
        self._handle_int = as_int(handle)
        core.streams.add(self)

    @classmethod
    def from_handle(
        cls,
        handle: int | _AclStreamLike,
        *,
        device: Device | None = None,
        max_in_flight: int | None = None,
    ) -> Stream:
        """Wrap a stream that other code created -- pyACL or :mod:`aiocann.acl`
        (``acl.rt.create_stream()``), or another library -- so that aiocann can launch, copy
        and await work on it.

        The stream is **borrowed**: aiocann never destroys it. Closing the wrapper (``await
        s.aclose()``, leaving ``async with s``, or closing its device) waits for the work aiocann
        enqueued on it and stops aiocann's bookkeeping (its report-thread subscription and
        completion queue entry); the handle stays valid for its owner, who destroys it. Work
        that other code enqueues on the stream meanwhile runs in order with aiocann's, and a
        failure of such work is reported by the wrapper's next ``synchronize()``.

        :param handle: the stream as an int (``aclrtStream``, the value ``acl.rt.create_stream``
            returns), any object with an ``__acl_stream__()`` method returning ``(0, handle)``
            -- as :class:`Stream` itself has -- or an object with an int ``npu_stream``
            attribute, as torch_npu's streams have.
        :returns: an open :class:`Stream` on ``device``; for a stream that aiocann itself serves
            on ``device`` (one of its own streams, or one already wrapped), that same
            :class:`Stream`.
        :param device: the device the stream belongs to (default: the task's current device).
        :param max_in_flight: the wrapper's admission limit (default: the device's).
            Not the task's current stream until entered with ``async with``.
        :raises TypeError: ``handle`` is none of these.
        :raises ValueError: ``handle`` is 0 (the default stream) or out of range.
        :raises InvalidHandleError: the handle is not a live stream (destroyed, or another kind of
            handle) -- the simulator checks; a real runtime may crash on garbage pointers.
        :raises StreamContextError: the stream belongs to another device or context.
        :raises StreamSubscribeError: another thread already serves the stream's host callbacks
            (``aclrtSubscribeReport``): another process's library, or aiocann on another device
            object.
        :raises ClosedError: ``device`` is not open.
        """
        if device is None:
            device = current_device()
        value = _stream_handle(handle)
        core = core_of(device)
        served = core.served_stream(value)
        if served is not None:
            return served
        core.bind()
        ptr = as_pointer(value, "aclrtStream")
        api = f"Stream.from_handle({value:#x}) on Device({device.index})"
        attr = ffi.new("aclrtStreamAttrValue *")
        # A read that checks the stream is alive and in the current context (the runtime's
        # GetStreamTag checks both, 107017 / 107003); a runtime without it gets a liveness check.
        rc = lib.aclrtGetStreamAttribute(ptr, lib.ACL_STREAM_ATTR_USER_CUSTOM_TAG, attr)
        if rc == errors.ApiNotSupportedError.codes[0]:
            last_error_message()
            rc = lib.aclrtStreamGetId(ptr, ffi.new("int32_t *"))
        check(rc, api)
        priority = 0
        if lib.aclrtGetStreamAttribute(ptr, lib.ACL_STREAM_ATTR_PRIORITY, attr) == 0:
            priority = int(attr.streamPriority)
        else:
            last_error_message()
        limit = device.max_in_flight if max_in_flight is None else max_in_flight
        return create(cls, device, limit, priority, ptr)

    def __acl_stream__(self) -> tuple[int, int]:
        """``(0, handle)``: the stream-handle protocol :meth:`from_handle` accepts, so other
        libraries can take an aiocann stream without knowing its type (as cuda.core's
        ``__cuda_stream__``)."""
        return (0, self.handle)

    # -- lifecycle ------------------------------------------------------------------------

    async def __aenter__(self) -> Stream:
        """Make the stream the task's current stream until the block ends, which closes it."""
        self._core.check_owner()
        if self._state != "open":
            raise errors.ClosedError(f"{self!r} is not open")
        if self._cv_token is not None:
            raise RuntimeError(f"{self!r} is already in an `async with` block")
        self._cv_token = _context.enter(_current_stream, self)
        return self

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> None:
        _context.leave(_current_stream, self, self._cv_token)
        self._cv_token = None
        await self.aclose(raise_errors=et is None)

    @keyboard_interrupt_on_ctrl_c  # a Ctrl-C that ends the wait is KeyboardInterrupt on 3.10 too
    async def aclose(self, *, raise_errors: bool = True) -> None:
        """Wait for the stream's work, destroy the stream, and raise its first device error (if
        any and ``raise_errors``).

        The wait ends within the device's completion timeout: work still running then (a hung
        kernel: the watchdog failed its Completion) is abandoned -- the stream is left
        undestroyed, what the work uses stays allocated, the device is not reset again in this
        process -- with a RuntimeWarning, because destroying the stream would wait for it. If
        the calling task is already being cancelled (the body of ``async with`` was), the wait
        runs shielded, so that a cancelled block still releases what it used -- then nothing
        but the completion timeout bounds it, not even a deadline expiring meanwhile; otherwise
        a cancellation that arrives during the wait (a deadline around the exit, Ctrl-C) ends
        it, abandoning the work still running. A borrowed stream (:meth:`from_handle`) is not destroyed, only
        unsubscribed and forgotten. Closing a closed stream does nothing; a close while another
        task's close of the stream waits for its work waits for that close to end (and raises
        nothing: that close reports the stream's errors).

        :param raise_errors: raise the stream's first unreported failure.
        :raises AclError: that failure (with ``raise_errors``).
        :raises RuntimeError: the stream is inside a ``capture()`` or task-group ``update()``
            block (the device's closing ends such a block instead: it raises ClosedError then).
        :raises WrongThreadError: called from another thread or event loop than the device's.
        """
        sub = self._sub
        if sub is None:
            return
        if sub.mode is Mode.CAPTURING or sub.mode is Mode.UPDATING:
            what = "capture" if sub.mode is Mode.CAPTURING else "task group's update"
            if not self._core.closing:
                raise RuntimeError(f"{self!r} is inside a {what} block: leave it first")
            self._core.check_owner()
            _interrupt(sub)  # the device is closing: the block cannot be waited for
        if sub.mode is Mode.CLOSING:
            # Another task is closing it, waiting for its work: wait for that close to end --
            # above all the device's close, which would abandon the work under it otherwise.
            self._core.check_owner()
            if self._closed_event is None:
                self._closed_event = anyio.Event()
            if self._core.flavour.being_cancelled():
                with anyio.CancelScope(shield=True):
                    await self._closed_event.wait()
            else:
                await self._closed_event.wait()
            return
        if sub.mode is not OPEN:
            return
        self._core.check_owner()
        sub.begin_close()
        waited = False
        try:
            if self._core.flavour.being_cancelled():
                with anyio.CancelScope(shield=True):
                    await self._wait_for_device()
            else:
                await self._wait_for_device()
            waited = True
        finally:
            self._finish_close(
                f"it outlived the completion timeout ({self._device.completion_timeout:g} s)"
                if waited
                else "the wait for it was interrupted"
            )
        error = sub.take_unreported()
        if raise_errors and error is not None:
            raise error

    async def _wait_for_device(self) -> None:
        sub = self._sub
        await sub.wait_resolved()  # within the completion timeout (the watchdog)
        if sub.orphans:  # work enqueued without a completion (see enqueue_failed): nothing
            # will tell when it is done, so poll the stream (rare: a failed callback enqueue)
            deadline = anyio.current_time() + self._device.completion_timeout
            while anyio.current_time() < deadline:
                if self._idle_on_device():
                    return
                await anyio.sleep(0.01)

    def _idle_on_device(self) -> bool:
        """Nothing this stream was given can still run on the device. Never blocks."""
        if self._sub.settled():
            return True
        status = ffi.new("aclrtStreamStatus*")
        handle = self._sub.handle
        rc = self._core.in_context(lambda: lib.aclrtStreamQuery(handle, status))
        if rc:
            last_error_message()  # clear it: a stream we cannot query counts as busy ...
            # ... unless it answers with the failure its context stopped on: then nothing it
            # was given runs any more (Stream::EnterFailureAbort discards it all).
            return stopped_code(rc)
        return bool(status[0] == lib.ACL_STREAM_STATUS_COMPLETE)

    def _finish_close(self, why: str, *, collected: bool = False) -> None:
        """Destroy the stream if the device is done with its work, else abandon the work (see
        aclose; ``why`` says why it is not waited for). Never blocks: aclrtDestroyStream would
        wait for the work."""
        if self._state == "closed":  # e.g. the device finished it while our aclose waited
            return
        core, sub = self._core, self._sub
        handle = sub.handle
        what = repr(self)
        abandoned = 0
        try:
            if self._idle_on_device():
                sub.release_leftovers()

                def destroy() -> int:
                    if lib.aclrtUnSubscribeReport(core.reporter_tid, handle):
                        last_error_message()  # e.g. a borrowed stream its owner destroyed already
                    return 0 if self._borrowed else int(lib.aclrtDestroyStream(handle))

                rc = core.in_context(destroy)
                if rc and not collected:
                    check(rc, "aclrtDestroyStream")
            else:
                abandoned = sub.outstanding()
                core.abandon(sub.abandon())
        finally:
            self._handle_int = 0
            sub.close()
            core.streams.discard(self)
            if self._closed_event is not None:
                self._closed_event.set()
        if abandoned and not collected:
            warnings.warn(
                f"closing {what}: {abandoned} piece(s) of its work still running on the device were abandoned "
                f"({why}): the ACL stream is left {'subscribed' if self._borrowed else 'undestroyed'}, the memory "
                "that work uses stays allocated, and "
                f"device {core.index} will not be reset (nor ACL finalized) in this process",
                RuntimeWarning,
                stacklevel=4,
            )

    def __del__(self) -> None:
        # Collected while open: a leak of the caller's making, so warn. Its Completions would
        # keep it alive while work is in flight -- unless they are garbage too (a device never
        # closed, at interpreter exit): then that work is abandoned, never waited for.
        if getattr(self, "_state", None) != "open":
            return
        core = self._core
        if core.state not in ("open", "closing"):
            self._sub.mark_closed()
            return
        if threading.get_ident() != core.thread:
            # The collector runs in whatever thread it is in, and the stream's bookkeeping is the
            # event loop's (the dispatcher and its watchdog iterate the registered streams while
            # this unregisters one): finish on the loop (this resurrects the stream until then).
            core.soon(self._collected)
            return
        self._collected()

    def _collected(self) -> None:
        """The rest of ``__del__``, on the device's thread."""
        if self._state != "open":
            return
        if self._core.state not in ("open", "closing"):
            self._sub.mark_closed()
            return
        outstanding = 0 if self._sub.settled() else self._sub.outstanding()
        self._finish_close("it was garbage-collected", collected=True)
        warnings.warn(
            f"{self!r} was never closed; use `async with dev.stream()` or `await s.aclose()`"
            + (f" ({outstanding} piece(s) of its work were still running: abandoned)" if outstanding else ""),
            ResourceWarning,
            stacklevel=2,
        )

    @property
    def _state(self) -> str:
        """The stream's mode, held by its lane (``Mode``): "new" until the lane exists."""
        sub = self._sub
        return "new" if sub is None else sub.mode.value

    @property
    def device(self) -> Device:
        """The :class:`Device` the stream belongs to."""
        return self._device

    @property
    def handle(self) -> int:
        """The ACL stream handle (``aclrtStream``) as an int: the value pyACL's ``acl.rt.*``
        functions take, e.g. ``acl.rt.stream_wait_event(s.handle, ev)``, so :mod:`aiocann.acl`
        and other libraries can use the stream. Raises ClosedError once the stream is closed."""
        if not self._sub.submitting():
            raise errors.ClosedError(f"{self!r} is not open")
        return self._handle_int

    @property
    def borrowed(self) -> bool:
        """True for a stream wrapped with :meth:`from_handle`: aiocann never destroys it."""
        return self._borrowed

    @property
    def in_flight(self) -> int:
        """Completions enqueued on this stream and not yet resolved."""
        return self._sub.in_flight if self._sub is not None else 0

    @property
    def error(self) -> errors.AclError | None:
        """The stream's first device error, if any work on it failed."""
        return self._sub.first_error if self._sub is not None else None

    def __repr__(self) -> str:
        borrowed = " borrowed" if self._borrowed else ""
        return f"<Stream device={self._device.index}{borrowed} {self._state} in_flight={self.in_flight}>"

    # -- submission (event loop): the stream's lane (Submissions) owns it: enter() -----------

    def capture(self, mode: CaptureMode = "global") -> AbstractAsyncContextManager[Graph]:
        """Record the work submitted inside the block into a :class:`Graph` instead of running
        it (``aclmdlRICaptureBegin`` / ``End``); ``await graph.launch()`` replays it. ``mode``:
        which threads may make synchronous runtime calls meanwhile (the runtime's capture
        modes: ``"global"``, ``"thread_local"``, ``"relaxed"``)."""
        return _capture(self, self._sub, mode)

    def _usable(self) -> None:
        """Raise ClosedError unless the stream is open; bind the device's context (pinned
        staging memory is allocated against it)."""
        self._sub.usable()

    def _own(self, array: DeviceArray) -> None:
        """Refuse an array of another NPU: aiocann exposes no peer copies, and that device's
        closing would free the array under this stream's work. (Another ``Device`` block of the
        same NPU is fine: a busy array outlives its Device, see DeviceArray.close.)"""
        if not self._core.same_npu(core_of(array.device)):
            raise ValueError(
                f"{array!r} is on device {array.device.index}, this stream on device {self._core.index}: "
                "aiocann has no copies between devices (copy through host memory)"
            )

    async def _marker(self, label: str) -> Completion:
        """A Completion that resolves when everything enqueued so far has run."""
        return (await self._sub.enter()).complete_after(0, "", label)

    async def _empty_copy(self) -> Completion:
        """A copy of zero bytes: nothing to enqueue. Eagerly a marker, so that the Completion
        still resolves in stream order; during capture nothing is recorded (a marker would
        wait for the capture)."""
        sub = await self._sub.enter()
        if sub.capture is not None:
            return sub.capture.record("empty copy", None, ())
        return sub.complete_after(0, "", "empty copy")

    # -- public operations ---------------------------------------------------------------

    async def synchronize(self) -> None:
        """Wait until all work enqueued so far is done, without blocking the event loop.

        :raises AclError: the first failure on the stream since the previous synchronize (once, as
            ``aclrtSynchronizeStream`` reports it) -- also of work other code put on a
            borrowed stream.
        :raises ClosedError: the stream is closed.
        :raises RuntimeError: the stream is capturing (nothing runs until the graph does).
        """
        await (await self._marker("synchronize"))
        error = self._sub.take_unreported()
        if error is not None:
            raise error

    async def record(self, *, timing: bool = True) -> Event:
        """Record a new event after the work enqueued so far (``aclrtRecordEvent``).

        :param timing: give the event a timestamp (``ACL_EVENT_TIME_LINE``), for ``elapsed_ms``.
        :returns: the :class:`Event`: ``await event`` waits for that work, other streams can
            ``wait(event)``, and two events give ``end.elapsed_ms(start)``.
        :raises ClosedError: the stream is closed.
        :raises AclError: the runtime refused the event or the record.
        """
        event, rec = _new_event(self._device, timing, captured=self._sub.capture is not None)
        sub = await self._sub.enter()
        rc = lib.aclrtRecordEvent(rec.handle, self._sub.handle)
        rec.completion = sub.complete_after(rc, "aclrtRecordEvent", "event record", event)
        return event

    def wait(self, event: Event) -> None:
        """Make later work on this stream wait until ``event`` completes (``aclrtStreamWaitEvent``).

        Enqueues a device-side wait; the host does not block. ``event`` may come from any
        stream, of any device, or from other code (:meth:`Event.from_handle`).

        :raises TypeError: ``event`` is not an :class:`Event`.
        :raises ClosedError: the stream or the event is closed.
        :raises NotImplementedError: the event was recorded inside a capture.
        """
        if not isinstance(event, Event):
            raise TypeError(f"wait() takes an Event (await stream.record()), not {type(event).__name__}")
        rec = event._rec
        if rec.captured:
            # The waiting stream would join the capture, and its own completion callbacks with
            # it; the async API captures one stream at a time.
            raise NotImplementedError(
                "waiting on an event recorded in a capture (cross-stream capture) is not supported"
            )
        self._usable()
        check(lib.aclrtStreamWaitEvent(self._sub.handle, rec.live_handle()), "aclrtStreamWaitEvent")

    def empty(self, shape: int | tuple[int, ...], dtype: Any = np.float32) -> DeviceArray:
        """``dev.empty(shape, dtype, stream=self)``: device memory ready for work on this stream,
        possibly memory that earlier work on it still uses (stream-ordered reuse)."""
        return self._device.empty(shape, dtype, stream=self)

    async def upload(self, data: Any) -> DeviceArray:
        """Copy a numpy array (or anything ``np.asarray`` accepts) to new device memory.

        :returns: the new :class:`DeviceArray` (same shape and dtype), once the copy is enqueued:
            later work on this stream sees the data.
        :raises ClosedError: the stream is closed.
        :raises DeviceOutOfMemoryError: no device memory for it.
        """
        host = np.asarray(data, order="C")  # not ascontiguousarray: it makes a 0-d array 1-d
        dst = self._device.empty(host.shape, host.dtype, stream=self)
        try:
            await self.copy_from_host(dst, host)
        except BaseException:
            dst.close()
            raise
        return dst

    async def copy_from_host(self, dst: DeviceArray, data: Any) -> Completion:
        """Copy host data into ``dst``. Pageable memory is staged through a pinned block, so
        the device-side copy is truly asynchronous.

        :param dst: the :class:`DeviceArray` to fill, of this stream's device.
        :param data: a numpy array (or anything ``np.asarray`` accepts) of ``dst.nbytes`` bytes.
        :returns: the copy's :class:`Completion`, once it is enqueued.
        :raises TypeError: ``dst`` is not a DeviceArray, or ``data`` is not numeric (holds Python
            objects: a DeviceArray, say).
        :raises ValueError: a size mismatch, or an array of another device.
        :raises ClosedError: the stream or the array is closed.
        """
        self._own(_array(dst, "dst"))
        self._usable()
        host = np.asarray(data, order="C")
        if host.dtype.hasobject:  # its bytes are object pointers (a DeviceArray passed as data, say)
            raise TypeError(f"data must be numeric, not {type(data).__name__} (numpy made an {host.dtype} array of it)")
        if host.nbytes != dst.nbytes:
            raise ValueError(f"size mismatch: {host.nbytes} host bytes for a {dst.nbytes}-byte {dst!r}")
        if host.nbytes == 0:
            return await self._empty_copy()
        if is_pinned(host):
            src, keep, on_done = host, host, None
        else:
            pool = self._core.staging
            block = pool.get(host.nbytes)
            stage = block[: host.nbytes]
            await _host_copy(stage, host.reshape(-1).view(np.uint8))  # flat first: a 0-d view cannot change itemsize
            src, keep, on_done = stage, block, (lambda: pool.put(block))
        return await self._copy(
            dst.ptr, _addr(src), host.nbytes, lib.ACL_MEMCPY_HOST_TO_DEVICE, "upload", keep, (dst,), on_done
        )

    async def download(self, src: DeviceArray, out: np.ndarray | None = None) -> np.ndarray:
        """Copy a device array to host memory and wait for it.

        :param src: the :class:`DeviceArray`, of this stream's device.
        :param out: a writeable C-contiguous numpy array of ``src.nbytes`` bytes to fill, or None
            for a new one. Pinned memory (``dev.pinned_empty``) is copied into directly,
            pageable memory through a staging block. If the download is cancelled, a pageable
            ``out`` is not written from then on; a pinned one may still be, by the device's copy
            already enqueued (as with :meth:`copy_to_host`).
        :returns: ``out``, or a new array of ``src``'s shape and dtype.
        :raises TypeError: ``src`` is not a DeviceArray, or ``out`` not a numpy array.
        :raises ValueError: ``out`` of another size, read-only or not C-contiguous, or ``src`` of
            another device.
        :raises ClosedError: the stream or the array is closed.
        :raises RuntimeError: the stream is capturing.
        :raises AclError: the copy failed on the device.
        """
        self._own(_array(src, "src"))
        if out is not None and not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
        if out is None:
            out = np.empty(src.shape, src.dtype)
        elif out.nbytes != src.nbytes or not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("out must be a writeable C-contiguous array of the same size")
        if src.nbytes == 0:
            return out
        self._usable()
        if self._sub.capture is not None:
            raise RuntimeError(f"cannot download from {self!r} while it captures: nothing runs until the graph does")
        if is_pinned(out):
            await (
                await self._copy(
                    _addr(out), src.ptr, src.nbytes, lib.ACL_MEMCPY_DEVICE_TO_HOST, "download", out, (src,)
                )
            )
            return out
        pool = self._core.staging
        block = pool.get(src.nbytes)
        target = out.reshape(-1).view(np.uint8)  # a view of out (C-contiguous); flat first, as above
        abandoned = False

        def unstage() -> None:
            # In the dispatcher, on the loop's thread (as is the except clause below), before the
            # block can be reused. A caller whose await was cancelled got no result and may
            # already reuse out: the device's data must not land in it later.
            if not abandoned:
                target[:] = block[: src.nbytes]
            pool.put(block)

        try:
            await (
                await self._copy(
                    _addr(block),
                    src.ptr,
                    src.nbytes,
                    lib.ACL_MEMCPY_DEVICE_TO_HOST,
                    "download",
                    (block, out),
                    (src,),
                    unstage,
                )
            )
        except BaseException:
            abandoned = True
            raise
        return out

    async def copy_to_host(self, dst: np.ndarray, src: DeviceArray) -> Completion:
        """Copy the device array ``src`` into the page-locked numpy array ``dst``; returns once
        the copy is enqueued, and ``dst`` holds the data when the returned Completion is done.

        Unlike :meth:`download`, it does not wait, so it can be captured: inside
        ``s.capture()`` it records a copy that writes ``dst`` at every replay of the graph (the
        graph keeps ``dst`` alive), and the replay's Completion says when ``dst`` is ready.
        ``dst`` must be pinned because the device writes it after this call returns, with no
        staging copy in between -- and the runtime refuses to capture a copy of pageable memory.

        :param dst: a writeable, C-contiguous numpy array in pinned host memory
            (``dev.pinned_empty(...)``, or a view of one), with ``src``'s dtype and number of
            elements (its shape may differ, e.g. a flat view).
        :param src: a :class:`DeviceArray` of this stream's device.
        :returns: the copy's :class:`Completion` (a :class:`CapturedWork` during capture).
        :raises TypeError: ``dst`` is not a numpy array, ``src`` not a DeviceArray, or their
            dtypes differ.
        :raises ValueError: ``dst`` is read-only, not C-contiguous, not pinned, or holds a
            different number of elements; ``src`` is on another device.
        :raises ClosedError: the stream or ``src`` is closed.
        :raises AclError: the runtime refused the copy (``aclrtMemcpyAsync``).
        """
        self._own(_array(src, "src"))
        if not isinstance(dst, np.ndarray):
            raise TypeError(f"dst must be a numpy array in pinned memory, not {type(dst).__name__}")
        if dst.dtype != src.dtype:
            raise TypeError(f"dtype mismatch: a {dst.dtype} dst for {src!r}")
        if dst.size != src.size:
            raise ValueError(f"size mismatch: a dst of {dst.size} elements for {src!r} ({src.size} elements)")
        if not dst.flags.c_contiguous or not dst.flags.writeable:
            raise ValueError("dst must be a writeable C-contiguous array")
        self._usable()
        if src.nbytes == 0:
            return await self._empty_copy()
        if not is_pinned(dst):
            raise ValueError(
                "dst is pageable host memory: copy_to_host writes it asynchronously, with no staging, "
                "so it must be page-locked -- allocate it with dev.pinned_empty(...), or use "
                "await stream.download(src, out=dst), which stages pageable memory and waits"
            )
        return await self._copy(
            _addr(dst), src.ptr, src.nbytes, lib.ACL_MEMCPY_DEVICE_TO_HOST, "copy to host", dst, (src,)
        )

    async def copy(self, dst: DeviceArray, src: DeviceArray) -> Completion:
        """Copy ``src`` into ``dst`` on the device (the same number of bytes, this stream's
        device).

        :returns: the copy's :class:`Completion`, once it is enqueued.
        :raises TypeError: not DeviceArrays.
        :raises ValueError: a size mismatch, or another device's array.
        :raises ClosedError: the stream or an array is closed.
        """
        self._own(_array(dst, "dst"))
        self._own(_array(src, "src"))
        if dst.nbytes != src.nbytes:
            raise ValueError(f"size mismatch: {src!r} -> {dst!r}")
        if src.nbytes == 0:
            return await self._empty_copy()
        return await self._copy(dst.ptr, src.ptr, src.nbytes, lib.ACL_MEMCPY_DEVICE_TO_DEVICE, "copy", None, (dst, src))

    async def memset(self, dst: DeviceArray, value: int) -> Completion:
        """Fill every byte of ``dst`` with ``value`` (``aclrtMemsetAsync``).

        :returns: the memset's :class:`Completion`, once it is enqueued.
        :raises ValueError: ``value`` is not a byte (0..255), or ``dst`` is of another device.
        :raises TypeError: ``value`` is not an integer.
        :raises ClosedError: the stream or the array is closed.
        """
        self._own(_array(dst, "dst"))
        value = _ints.index(value, "the memset value")  # an integer: not a float, a bool or a str int() takes
        if not 0 <= value <= 255:
            raise ValueError(f"memset value must be a byte (0..255), got {value}")
        sub = await self._sub.enter((dst,))
        rc = lib.aclrtMemsetAsync(ffi.cast("void*", dst.ptr), dst.nbytes, value, dst.nbytes, self._sub.handle)
        return sub.complete_after(rc, "aclrtMemsetAsync", "memset", None, (dst,))

    async def _copy(
        self,
        dst: int,
        src: int,
        nbytes: int,
        kind: int,
        label: str,
        keep: Any,
        arrays: tuple[DeviceArray, ...],
        on_done: Any = None,
    ) -> Completion:
        # ``dst`` and ``src`` were read from ``arrays`` before the wait: still theirs if none
        # of them was closed meanwhile, which enter() checks.
        sub = await self._sub.enter(arrays)
        if sub.capture is not None:
            rc = lib.aclrtMemcpyAsync(
                ffi.cast("void*", dst), nbytes, ffi.cast("void*", src), nbytes, kind, self._sub.handle
            )
            check(rc, "aclrtMemcpyAsync")
            return sub.capture.record(label, keep, arrays)  # on_done never runs: the graph keeps it
        token = sub.new_token()
        rc = lib.aiocann_memcpy(
            sub.qs, ffi.cast("void*", dst), nbytes, ffi.cast("void*", src), nbytes, kind, token, sub.launched
        )
        return sub.submitted(self, rc, token, "aclrtMemcpyAsync", label, keep, arrays, on_done)


def _addr(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


async def _host_copy(dst: np.ndarray, src: np.ndarray) -> None:
    if src.nbytes <= _INLINE_COPY:
        dst[:] = src
    else:
        await anyio.to_thread.run_sync(np.copyto, dst, src)
