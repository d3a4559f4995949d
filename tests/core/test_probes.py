"""Adversarial probes (issue 20's re-run): memory a queued piece of work may still touch is
never handed to anyone else, work that can no longer run raises instead of touching freed
memory, and a submission that gives up its turn never strands the ones behind it.

Every probe holds the device with a Gate (async_util.Gate): an ordering the test controls,
never a duration it hopes for.
"""

from __future__ import annotations

import anyio
import anyio.lowlevel
import numpy as np
import pytest
from async_util import Gate

import aiocann as ac

pytestmark = pytest.mark.anyio

N = 1024  # int32 elements: one 4 KiB block


async def _write_kernel(dev: ac.Device, test_kernels_path) -> ac.Kernel:
    return (await dev.load_binary(test_kernels_path)).function("write_value")


def _all_given_back(pool: ac.MemoryPool) -> None:
    st = pool.stats()
    assert st.in_use_bytes == 0 and st.cached_bytes == 0 and st.frees == st.mallocs, st


class _Waiting:
    """A submission started in a task of its own, left waiting for an in-flight slot."""

    def __init__(self) -> None:
        self.error: BaseException | None = None
        self.result: object = None
        self.finished = anyio.Event()

    async def run(self, submit) -> None:
        try:
            self.result = await submit()
        except Exception as exc:  # what the probe asserts on
            self.error = exc
        finally:
            self.finished.set()


async def _until_waiting(s: ac.Stream, n: int) -> None:
    """Until ``n`` submissions wait for a slot on ``s``."""
    with anyio.fail_after(5):
        while len(s._sub.waiters) < n:  # noqa: ASYNC110 -- polls the stream's admission queue
            await anyio.lowlevel.checkpoint()


# --------------------------------------------------------------------------- admission waits


async def test_a_submission_that_fails_after_its_wait_passes_the_slot_on(test_kernels_path):
    """Two submissions wait for the one slot; the first is woken and then fails (its array was
    closed meanwhile). The second must be woken too, not wait for a completion that will never
    come (nothing else is in flight)."""
    async with ac.Device(0) as dev, dev.stream(max_in_flight=1) as s:
        a = dev.empty(N, np.int32)
        b = dev.empty(N, np.int32)
        gate = await Gate.hold(dev, s, test_kernels_path)
        first, second = _Waiting(), _Waiting()
        async with anyio.create_task_group() as tg:
            tg.start_soon(first.run, lambda: s.memset(a, 1))
            await _until_waiting(s, 1)
            tg.start_soon(second.run, lambda: s.memset(b, 2))
            await _until_waiting(s, 2)
            a.close()
            await gate.open()
            with anyio.fail_after(10):
                await first.finished.wait()
                await second.finished.wait()
        assert isinstance(first.error, ac.ClosedError), first.error
        assert second.error is None, second.error
        await second.result
        assert (await b.get(stream=s))[0] == 0x02020202
