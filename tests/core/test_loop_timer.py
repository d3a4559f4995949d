"""The loop timer (aiocann/_flavour.py LoopTimer, native/loop_timer.c): after the completion
queue wakes an asyncio loop, a timerfd the loop watches is armed at the due time of the loop's
first timer, so that asyncio's whole-millisecond epoll timeout, rounded up, does not make the
timer late (issue 25, P3). What is checked here is the mechanism, through what the kernel shows
of the process's timerfds (/proc/self/fdinfo); how late timers are under load is a benchmark's
business (benchmarks/bench_loop_lag.py)."""

from __future__ import annotations

import asyncio
import math
import os
import re
import select
from pathlib import Path

import anyio
import anyio.lowlevel
import numpy as np
import pytest

import aiocann as ac


def _timerfds() -> dict[int, float | None]:
    """Each timerfd of this process, and the seconds until it fires (None: disarmed)."""
    found: dict[int, float | None] = {}
    for entry in Path("/proc/self/fd").iterdir():
        try:
            if os.readlink(entry) != "anon_inode:[timerfd]":
                continue
            info = Path(f"/proc/self/fdinfo/{entry.name}").read_text()
        except OSError:  # closed meanwhile (the listing's own fd)
            continue
        m = re.search(r"it_value: \((\d+), (\d+)\)", info)
        assert m, info
        sec, nsec = int(m[1]), int(m[2])
        found[int(entry.name)] = sec + nsec / 1e9 if (sec or nsec) else None
    return found


async def _one_completion(dev: ac.Device, path: Path) -> None:
    k = (await dev.load_binary(path)).function("empty")
    async with dev.stream() as s:
        await (await ac.launch(k, await k.args().ptr(dev.empty(1, np.uint8)), blocks=1, stream=s))


def test_a_wake_up_by_the_device_arms_the_loop_timer_for_the_first_timer(test_kernels_path: Path) -> None:
    async def main() -> tuple[dict[int, float | None], dict[int, float | None], float]:
        before = _timerfds()
        async with ac.Device(0, completion_timeout=math.inf) as dev:
            loop = asyncio.get_running_loop()
            handle = loop.call_later(30, lambda: None)  # the loop's only timer (no watchdog)
            await _one_completion(dev, test_kernels_path)  # drained: the loop timer follows
            armed = {fd: left for fd, left in _timerfds().items() if fd not in before}
            left = handle.when() - loop.time()
            handle.cancel()
        return armed, _timerfds(), left

    armed, after, left = asyncio.run(main())
    assert len(armed) == 1, armed  # the device's loop timer
    (remaining,) = armed.values()
    assert remaining is not None and abs(remaining - left) < 0.5, (remaining, left)
    assert not set(armed) & set(after)  # closed with the device: no fd left behind


def test_a_cancelled_first_timer_is_not_armed(test_kernels_path: Path) -> None:
    async def main() -> list[float | None]:
        before = _timerfds()
        async with ac.Device(0, completion_timeout=math.inf) as dev:
            loop = asyncio.get_running_loop()
            loop.call_later(20, lambda: None).cancel()  # first in the heap until the loop drops it
            await _one_completion(dev, test_kernels_path)
            return [left for fd, left in _timerfds().items() if fd not in before]

    (left,) = asyncio.run(main())
    assert left is None, left  # armed for no cancelled timer


def test_the_armed_timer_fires_and_its_reader_clears_it(test_kernels_path: Path) -> None:
    """After a completion the fd is armed for a timer due 50 ms later; once that timer has run,
    the fd has fired and its reader has read it: disarmed and not readable (a fired fd left
    unread would wake the loop on every iteration)."""

    async def main() -> tuple[float | None, float | None, bool]:
        before = _timerfds()
        async with ac.Device(0, completion_timeout=math.inf) as dev:
            ran = anyio.Event()
            asyncio.get_running_loop().call_later(0.05, ran.set)
            await _one_completion(dev, test_kernels_path)
            ((fd, armed),) = ((fd, left) for fd, left in _timerfds().items() if fd not in before)
            with anyio.fail_after(10):
                await ran.wait()
            await anyio.lowlevel.checkpoint()  # the fd's reader runs in the iteration that ran the timer
            readable = bool(select.select([fd], [], [], 0)[0])
            return armed, _timerfds()[fd], readable

    armed, left, readable = asyncio.run(main())
    assert armed is not None and 0 < armed <= 0.05, armed
    assert left is None and not readable, (left, readable)


def test_uvloop_and_trio_keep_their_own_timers(test_kernels_path: Path) -> None:
    """No loop timer where the loop's timer heap cannot be read: uvloop (libuv keeps timers in
    whole milliseconds anyway) and trio."""

    async def main() -> int:
        before = _timerfds()
        async with ac.Device(0) as dev:
            await _one_completion(dev, test_kernels_path)
            return len(set(_timerfds()) - set(before))

    assert anyio.run(main, backend="trio") == 0
    uvloop = pytest.importorskip("uvloop")
    assert anyio.run(main, backend="asyncio", backend_options={"loop_factory": uvloop.new_event_loop}) == 0
