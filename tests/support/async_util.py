"""Helpers shared by the async-core tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import aiocann as ac


def tiling(n: int) -> np.ndarray:
    """The AddTiling block of examples/kernels/vector_add.c for n elements."""
    return np.array([n, 0], dtype=np.uint32)


class Gate:
    """Holds a stream until the test opens it: the ``wait_flag`` kernel of
    tests/kernels/test_kernels.c, waiting for a flag that ``open()`` sets from a stream of its
    own. Work queued behind the gate is in flight, and stays so, for as long as the test
    needs: an ordering the test controls, not a duration it hopes for. If the test fails with
    the gate closed, the kernel's launch timeout ends it, so nothing hangs."""

    def __init__(self, dev: ac.Device, flag: ac.DeviceArray, done: ac.Completion) -> None:
        self._dev, self._flag, self.done = dev, flag, done

    @classmethod
    async def hold(cls, dev: ac.Device, stream: ac.Stream, test_kernels_path: Path, *, timeout: float = 20.0) -> Gate:
        """Enqueue the gate on ``stream``: later work on it waits until ``open()``."""
        kernel = (await dev.load_binary(test_kernels_path)).function("wait_flag")
        flag = dev.empty(1, np.int32)
        await (await stream.memset(flag, 0))  # done: only the gate is in flight on the stream
        args = await kernel.args().ptr(flag)
        done = await ac.launch(kernel, args, blocks=1, stream=stream, config=ac.LaunchConfig(timeout=timeout))
        return cls(dev, flag, done)

    async def open(self) -> None:
        """Let the held stream go on (returns once the flag is set, not when the gate is done)."""
        async with self._dev.stream() as opener:
            await (await opener.memset(self._flag, 1))
