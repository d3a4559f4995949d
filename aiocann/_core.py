"""``DeviceCore``: the one owner of an open device's state, which everything of the device uses.

Where it sits: below every child of a device -- streams and their lanes, events, arrays, the
memory pool, graphs, binaries and kernels, tracing -- and above the floor (``_flavour``,
``_runtime``, ``_lib``). :class:`~aiocann.device.Device` is the public face: it builds its core
when it is constructed, opens it on entering (``open``), closes its children through it and
tears it down. Children never read the Device's fields: they hold the core (``core_of(device)``,
taken once, when they are made) and ask it through methods -- "may I run here?"
(``check_owner``), "bind the context" (``bind``), "are we the same NPU?" (``same_npu``), the
dispatcher, the pools, the registries of what the device closes, "keep this for good"
(``abandon``).

What it does not import: the dispatcher (``_dispatch.py``) and the pools sit above it or
beside it; the Device builds them and hands them over at open (typed here by Protocols and
TYPE_CHECKING imports only), so that a child's module can import this one at module level
without an import circle.

Everything here runs on the device's thread, except ``soon`` (any thread) and the checks that
say a caller is on the wrong one.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

import anyio

from . import _flavour, _runtime, errors
from ._flavour import Flavour
from ._lib import bind_context, in_context

if TYPE_CHECKING:
    from .device import Device
    from .event import Event
    from .graph import Graph
    from .kernel import Binary
    from .memory import DeviceArray, StagingPool
    from .memory_pool import _BlockPool
    from .stream import Stream

__all__ = ["DeviceCore", "Dispatching", "core_of"]

# Each Device's core, for the children made from a Device (core_of): the Device's public face
# carries no attribute for it. Weak: a Device dropped must still be collected (and warn).
_cores: weakref.WeakKeyDictionary[Device, DeviceCore] = weakref.WeakKeyDictionary()


def core_of(device: Device) -> DeviceCore:
    """The core of ``device`` (every Device has one from its construction).

    :raises TypeError: ``device`` is not a Device (a ``device=`` argument of the wrong type)."""
    try:
        return _cores[device]
    except (KeyError, TypeError):  # TypeError: unhashable
        raise TypeError(f"device must be an aiocann Device, not {type(device).__name__}") from None


class Dispatching(Protocol):
    """What the device's children ask of its dispatcher (``_dispatch.Dispatcher``)."""

    cq: Any
    draining: bool

    def register(self, lane: Any) -> int: ...

    def unregister(self, key: int) -> None: ...


class DeviceCore:
    """The state of one ``Device`` block and the operations its children use (see the module
    docstring). ``state``: new -> opening -> open -> closing -> closed, written by the Device."""

    __slots__ = (
        "index",
        "state",
        "thread",
        "flavour",
        "loop",
        "acl",
        "ctx",
        "_dispatcher",
        "_pool",
        "_staging",
        "streams",
        "arrays",
        "events",
        "graphs",
        "binaries",
        "_loads",
        "_loads_done",
        "__weakref__",
    )

    def __init__(self, device: Device, index: int) -> None:
        _cores[device] = self
        self.index = index
        self.state = "new"
        # Who owns it: the thread and the event loop that opened it, whose flavour (asyncio or
        # trio, _flavour.py) everything of the device asks. Everything of the device runs there.
        self.thread = 0
        self.flavour: Flavour = _flavour.NOT_OPEN
        # The asyncio loop (None under trio): the flavour's, copied to each stream's lane for
        # Completion.__await__, whose once-per-await branch cannot pay for a call (_flavour.py).
        self.loop: Any = None
        self.acl: _runtime.AclDevice | None = None
        self.ctx: Any = None
        self._dispatcher: Dispatching | None = None
        self._pool: _BlockPool | None = None
        self._staging: StagingPool | None = None
        # What the device closes when it closes, registered by each child as it is made. Weak:
        # a stream with work in flight is kept alive by its Completions (the dispatcher holds
        # them); one dropped while idle is destroyed by its finalizer, with a warning.
        self.streams: weakref.WeakSet[Stream] = weakref.WeakSet()
        self.arrays: weakref.WeakSet[DeviceArray] = weakref.WeakSet()
        self.events: weakref.WeakSet[Event] = weakref.WeakSet()
        self.graphs: weakref.WeakSet[Graph] = weakref.WeakSet()
        self.binaries: weakref.WeakSet[Binary] = weakref.WeakSet()
        # Binary loads running in worker threads (kernel._load_binary): the close waits for them, so
        # that what they load is unloaded while the device's context lives.
        self._loads = 0
        self._loads_done: anyio.Event | None = None

    # -- open and close (the Device) --------------------------------------------------------

    def claim(self) -> None:
        """The Device is being entered by this thread, on this event loop: they own it now."""
        self.state = "opening"
        self.thread = threading.get_ident()
        self.flavour = _flavour.current()
        self.loop = self.flavour.loop

    def open(self, acl: _runtime.AclDevice) -> None:
        """The ACL device was acquired for this block: its context is current from now on."""
        self.acl = acl
        self.ctx = acl.ctx
        bind_context(self.ctx)

    def serve(self, dispatcher: Dispatching, staging: StagingPool, pool: _BlockPool) -> None:
        """The dispatcher and the pools the Device built for the open device."""
        self._dispatcher = dispatcher
        self._staging = staging
        self._pool = pool

    async def loads_ended(self) -> None:
        """Wait for the binary loads in worker threads (they cannot be interrupted; they end soon)."""
        while self._loads:
            self._loads_done = anyio.Event()
            await self._loads_done.wait()

    # -- who may use it ---------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self.state == "open"

    @property
    def closing(self) -> bool:
        return self.state == "closing"

    def check_owner(self) -> None:
        """Raise WrongThreadError unless called from the thread and event loop that opened the
        device. (Only that loop's dispatcher resolves the device's work: a submission or a
        wait from elsewhere would never wake up -- and the state it touches is not locked.)"""
        if threading.get_ident() != self.thread or not self.flavour.on_own_loop():
            self.wrong_thread()

    def check_thread(self) -> None:
        """Raise WrongThreadError unless called from the device's thread (any of its loops)."""
        if threading.get_ident() != self.thread:
            self.wrong_thread()

    def wrong_thread(self) -> NoReturn:
        here = threading.current_thread().name
        owner = next((t.name for t in threading.enumerate() if t.ident == self.thread), f"id {self.thread}")
        where = "another event loop of the same thread" if threading.get_ident() == self.thread else f"thread {here!r}"
        raise errors.WrongThreadError(
            f"Device({self.index}) and its streams, events and Completions belong to the event loop of thread "
            f"{owner!r} that opened it; this call came from {where}. Hand the work to that loop "
            "(e.g. anyio.from_thread.run) instead"
        )

    def bind(self) -> None:
        """Check the device is usable from here and make its context current in this thread."""
        if threading.get_ident() != self.thread and self.thread:
            self.wrong_thread()
        if self.state != "open":
            raise errors.ClosedError(f"Device({self.index}) is {'not open yet' if self.state == 'new' else 'closed'}")
        bind_context(self.ctx)

    def bind_closing(self) -> None:
        """Make the context current for the device's own closing, which ``bind`` refuses."""
        bind_context(self.ctx)

    def in_context(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` with the device's context current (a finalizer's or a closing's call)."""
        return in_context(self.ctx, fn)

    def soon(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the device's thread: now if called there, else handed to its event
        loop -- for finalizers, which the garbage collector runs in whatever thread it is in,
        that touch state only the loop may (arrays' busy counts). Once the loop is gone,
        nothing runs there any more, and nothing will use that state either."""
        if threading.get_ident() == self.thread:
            fn()
            return
        try:
            self.flavour.soon_threadsafe(fn)
        except RuntimeError:  # the loop is closed, or the trio run ended
            pass

    def same_npu(self, other: DeviceCore) -> bool:
        """Whether ``other`` is a Device block of the same NPU (they share one ACL device:
        its arrays, kernels and streams may be used together)."""
        return self.acl is other.acl

    # -- what the children use ----------------------------------------------------------------

    @property
    def dispatcher(self) -> Dispatching:
        """The dispatcher of the open device."""
        assert self._dispatcher is not None
        return self._dispatcher

    @property
    def staging(self) -> StagingPool:
        """The pinned blocks pageable copies are staged through."""
        assert self._staging is not None
        return self._staging

    @property
    def pool(self) -> _BlockPool:
        """The device's memory pool."""
        if self._pool is None:
            raise errors.ClosedError(f"Device({self.index}) is not open")
        return self._pool

    def pools(self) -> tuple[StagingPool | None, _BlockPool | None]:
        """The pools to close (either is None if the open failed before it)."""
        return self._staging, self._pool

    @property
    def reporter_tid(self) -> int:
        """The id of the device's report thread, for aclrtSubscribeReport."""
        assert self.acl is not None
        return self.acl.reporter_tid

    def served_stream(self, handle: int) -> Stream | None:
        """The open stream of this device whose ACL handle is ``handle``, if aiocann serves one
        (Stream.from_handle answers with it rather than subscribing the stream a second time)."""
        for stream in self.streams:
            try:
                if stream.handle == handle:
                    return stream
            except errors.ClosedError:
                continue
        return None

    def abandon(self, held: Any) -> None:
        """A stream's work is abandoned (Stream.aclose): keep what it uses alive for good, and
        never reset this NPU -- that would wait for the work."""
        assert self.acl is not None
        _runtime.abandon(self.acl, held)

    @contextlib.contextmanager
    def loading(self) -> Iterator[None]:
        """Around a binary load's worker thread (kernel._load_binary)."""
        self._loads += 1
        try:
            yield
        finally:
            self._loads -= 1
            if not self._loads and self._loads_done is not None:
                self._loads_done.set()
