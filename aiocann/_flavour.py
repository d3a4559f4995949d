"""The event-loop flavour of an open device: asyncio (and uvloop, an asyncio loop) or trio.

anyio runs aiocann on either; a few things it does not abstract -- or abstracts at a price the
per-await path cannot pay -- differ between them: whether the calling code runs on the
device's own loop, how a task waits for a Completion and is woken, how the dispatcher drains
the completion queue's eventfd and where its task lives, and whether the calling task is being
cancelled. ``Device.__aenter__`` picks one :class:`Flavour` for the loop it is opened in
(:func:`current`); every other module asks it, instead of branching on asyncio-or-trio itself.

Where it sits: below device.py, completion.py, stream.py and _dispatch.py, above nothing of
aiocann but the C boundary (``_lib``: the loop timer's timerfd). trio is an optional
dependency: imported only when a device opens under trio, and kept (``TrioFlavour.lowlevel``)
so the per-await paths need no import statement.

The loop timer (:class:`LoopTimer`): asyncio rounds its sleep up to whole milliseconds, so
every wake-up the device causes could make the loop's next timer up to 1 ms late; after each
drain the dispatcher has a timerfd wake the loop on time instead.

One shortcut stays outside: ``Completion.__await__`` reads its lane's ``loop`` (the asyncio
loop, None under trio -- a copy of ``AsyncioFlavour.loop``) rather than calling the flavour,
because that path runs once per awaited launch and a method call there costs more than the
branch (benchmarks/bench_completions.py).
"""

from __future__ import annotations

import asyncio
import math
import os
from asyncio import _get_running_loop
from collections.abc import Callable, Coroutine
from typing import Any

import anyio

from ._lib import ffi, lib

__all__ = ["NOT_OPEN", "AsyncioFlavour", "Flavour", "LoopTimer", "TrioFlavour", "current"]


class Flavour:
    """What the device's event loop does its own way (see the module docstring)."""

    __slots__ = ()

    #: asyncio's loop, None under trio (the per-await path's one branch, copied to DeviceCore.loop and each lane).
    loop: asyncio.AbstractEventLoop | None = None
    #: The dispatcher drains from a reader callback of the loop (asyncio), or from a task
    #: awaiting the eventfd (trio).
    reader_drains = False

    def on_own_loop(self) -> bool:
        """The calling code runs on the event loop this flavour was made for. (The base class is
        the flavour of a device not opened yet, :data:`NOT_OPEN`: it has no loop to be on.)"""
        return True

    #: trio's cancel point for finished work (``Completion.__await__``; asyncio's finished
    #: work returns at once, as a finished future does): trio's own function, no wrapper, so
    #: the per-await path makes no extra call.
    checkpoint_if_cancelled: Callable[[], Any]

    def wake(self, waiters: list[Any]) -> None:
        """Wake every task waiting for a resolved Completion (what :meth:`wait` appended)."""
        raise NotImplementedError

    async def wait(self, waiters: list[Any]) -> None:
        """Wait, as one of ``waiters``, until :meth:`wake` (trio; asyncio's path awaits a
        future in ``Completion.__await__`` itself)."""
        raise NotImplementedError

    def soon_threadsafe(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the loop, called from any thread (DeviceCore.soon: finalizers). Raises
        RuntimeError once the loop is closed or the run ended. (A device not opened yet has no
        loop: nothing of it needs running there.)"""

    def spawn(self, fn: Callable[..., Coroutine[Any, Any, None]], *args: Any, name: str) -> Any:
        """Start ``fn(*args)`` in a task of the loop that belongs to no task group of the
        caller (so it neither nests in the caller's cancel scopes nor is cancelled with them)."""
        raise NotImplementedError

    def add_reader(self, fd: int, callback: Callable[[], None]) -> None:
        raise NotImplementedError

    def remove_reader(self, fd: int) -> None:
        raise NotImplementedError

    async def wait_readable(self, fd: int) -> None:
        raise NotImplementedError

    def loop_timer(self) -> LoopTimer | None:
        """A :class:`LoopTimer` for this loop, or None where the loop's timers are its own
        business (trio; uvloop, whose timers libuv keeps in whole milliseconds anyway)."""
        return None

    def being_cancelled(self) -> bool:
        """The calling task is being cancelled: a cancel scope around it was -- or, on asyncio,
        the task itself, as asyncio.run does on Ctrl-C."""
        return anyio.current_effective_deadline() == -math.inf


class AsyncioFlavour(Flavour):
    """asyncio, and any asyncio loop (uvloop): futures for waiters, a reader callback drains."""

    __slots__ = ("loop",)
    reader_drains = True

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def on_own_loop(self) -> bool:
        return _get_running_loop() is self.loop

    def wake(self, waiters: list[Any]) -> None:
        for w in waiters:
            if not w.done():  # cancelled: detached by its own task
                w.set_result(None)

    def soon_threadsafe(self, fn: Callable[[], None]) -> None:
        assert self.loop is not None
        self.loop.call_soon_threadsafe(fn)

    def spawn(self, fn: Callable[..., Coroutine[Any, Any, None]], *args: Any, name: str) -> Any:
        assert self.loop is not None
        return self.loop.create_task(fn(*args), name=name)

    def add_reader(self, fd: int, callback: Callable[[], None]) -> None:
        assert self.loop is not None
        self.loop.add_reader(fd, callback)

    def remove_reader(self, fd: int) -> None:
        assert self.loop is not None
        if not self.loop.is_closed():
            self.loop.remove_reader(fd)

    def loop_timer(self) -> LoopTimer | None:
        if isinstance(self.loop, asyncio.BaseEventLoop) and isinstance(getattr(self.loop, "_scheduled", None), list):
            return LoopTimer(self.loop)
        return None

    def being_cancelled(self) -> bool:
        if super().being_cancelled():
            return True
        task = asyncio.current_task()
        cancelling = getattr(task, "cancelling", None)  # Python >= 3.11
        return cancelling is not None and cancelling() > 0


class LoopTimer:
    """Keeps an asyncio loop's next timer on time after the completion queue woke the loop.

    asyncio sleeps in epoll_wait, whose timeout is whole milliseconds, rounded up: a loop woken
    by a completion at an arbitrary moment, 0.3 ms before its next timer, sleeps 1 ms and runs
    the timer 0.7 ms late (native/loop_timer.c says more). The dispatcher calls :meth:`follow`
    after each drain -- the wake-ups aiocann causes -- and it arms a timerfd, one more fd the
    loop watches, at the due time of the loop's first timer: the loop then wakes on time. A
    timer cancelled or moved after that costs one early wake-up of the loop at most: the fd
    holds one expiry, re-armed whenever the first timer is another.

    It reads the loop's timer heap, ``BaseEventLoop._scheduled`` -- private to asyncio, a heap
    of ``TimerHandle`` since Python 3.4, and the only place the next timer can be read from.
    Loops that are not a ``BaseEventLoop`` with that heap get no LoopTimer
    (:meth:`AsyncioFlavour.loop_timer`)."""

    __slots__ = ("_armed", "_loop", "fd")

    def __init__(self, loop: asyncio.BaseEventLoop) -> None:
        fd = lib.aiocann_timer_open()
        if fd < 0:
            raise OSError(ffi.errno, f"timerfd_create: {os.strerror(ffi.errno)}")
        self._loop, self.fd = loop, fd
        self._armed: float | None = None  # the due time the fd is armed for, until it fires
        try:
            loop.add_reader(fd, self._fired)
        except BaseException:
            os.close(fd)
            raise

    def follow(self) -> None:
        """Arm the fd for the loop's first timer, unless it is armed for it already."""
        scheduled = self._loop._scheduled  # type: ignore[attr-defined]  # noqa: SLF001 (see the class docstring)
        if scheduled:
            first = scheduled[0]
            when = first.when()
            if when != self._armed and not first.cancelled():
                self._armed = when
                lib.aiocann_timer_arm(self.fd, when)

    def _fired(self) -> None:
        lib.aiocann_timer_clear(self.fd)
        self._armed = None

    def close(self) -> None:
        if not self._loop.is_closed():
            self._loop.remove_reader(self.fd)
        os.close(self.fd)


class TrioFlavour(Flavour):
    """trio: waiting tasks are rescheduled, a system task awaits the eventfd."""

    __slots__ = ("checkpoint_if_cancelled", "lowlevel", "token")

    def __init__(self, lowlevel: Any) -> None:
        self.lowlevel = lowlevel  # trio.lowlevel
        self.token = lowlevel.current_trio_token()  # identifies the run the device opened in
        self.checkpoint_if_cancelled = lowlevel.checkpoint_if_cancelled

    def soon_threadsafe(self, fn: Callable[[], None]) -> None:
        self.token.run_sync_soon(fn)

    def on_own_loop(self) -> bool:
        try:
            return bool(self.lowlevel.current_trio_token() is self.token)
        except RuntimeError:  # not in a trio run
            return False

    def wake(self, waiters: list[Any]) -> None:
        for w in waiters:
            self.lowlevel.reschedule(w)

    async def wait(self, waiters: list[Any]) -> None:
        lowlevel = self.lowlevel
        task = lowlevel.current_task()
        waiters.append(task)

        def abort(_: Any) -> Any:
            waiters.remove(task)
            return lowlevel.Abort.SUCCEEDED

        await lowlevel.wait_task_rescheduled(abort)

    def spawn(self, fn: Callable[..., Coroutine[Any, Any, None]], *args: Any, name: str) -> Any:
        return self.lowlevel.spawn_system_task(fn, *args, name=name)

    async def wait_readable(self, fd: int) -> None:
        await self.lowlevel.wait_readable(fd)


NOT_OPEN = Flavour()  # a device's flavour until it opens


def current() -> Flavour:
    """The flavour of the running event loop (raises RuntimeError outside one)."""
    try:
        return AsyncioFlavour(asyncio.get_running_loop())
    except RuntimeError:
        pass
    import trio.lowlevel  # trio, anyio's only other backend (optional: imported only here)

    return TrioFlavour(trio.lowlevel)
