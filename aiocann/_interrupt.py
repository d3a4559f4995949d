"""Ctrl-C that ends a wait for device work ends the program with KeyboardInterrupt, on every
Python the package supports.

How Ctrl-C reaches a wait on asyncio: ``asyncio.run`` (and anyio's ``run``, through its
``Runner``) handles SIGINT by cancelling the main task, so the wait -- a stream's close
waiting for a kernel -- ends with CancelledError; when the main task has finished that way the
Runner turns the CancelledError back into KeyboardInterrupt, telling its own cancellation from
any other with ``Task.uncancel()``. That method exists from Python 3.11. On 3.10 anyio's
backport of the Runner cannot tell, and lets the CancelledError out: a program interrupted
while aiocann waits for the device ends with a CancelledError traceback instead of
KeyboardInterrupt (trio raises KeyboardInterrupt itself and needs nothing).

:func:`keyboard_interrupt_on_ctrl_c` wraps such a wait: a CancelledError leaving it in the
main task, on a Python without ``Task.uncancel``, while the Runner's SIGINT handler has counted
an interrupt, is the Ctrl-C, and becomes KeyboardInterrupt (from the CancelledError) -- what
3.11's Runner would have raised. The Runner's handler is recognised by its shape
(``functools.partial(runner._on_sigint, main_task=task)`` with the count in
``runner._interrupt_count``), anyio's backport's and CPython's alike; anything else -- another
handler, another task, a cancellation with no Ctrl-C behind it -- passes through unchanged.
"""

from __future__ import annotations

import asyncio
import functools
import signal
import sys
from asyncio import _get_running_loop
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

__all__ = ["keyboard_interrupt_on_ctrl_c"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


def _runner_cancelled_for_ctrl_c() -> bool:
    """The running task is the main task a Runner cancelled for Ctrl-C, on a Python whose
    Runner cannot turn that into KeyboardInterrupt itself."""
    if sys.version_info >= (3, 11) or _get_running_loop() is None:
        return False
    handler = signal.getsignal(signal.SIGINT)
    if not isinstance(handler, functools.partial):
        return False
    on_sigint = handler.func
    if getattr(on_sigint, "__name__", None) != "_on_sigint":
        return False
    interrupts = getattr(getattr(on_sigint, "__self__", None), "_interrupt_count", 0)
    main_task = handler.keywords.get("main_task")
    return isinstance(interrupts, int) and interrupts > 0 and main_task is asyncio.current_task()


def keyboard_interrupt_on_ctrl_c(fn: Callable[_P, Awaitable[_T]]) -> Callable[_P, Awaitable[_T]]:
    """Wrap an async function whose wait Ctrl-C may end (see the module's docstring)."""

    @functools.wraps(fn)
    async def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return await fn(*args, **kwargs)
        except asyncio.CancelledError as exc:
            if _runner_cancelled_for_ctrl_c():
                raise KeyboardInterrupt from exc
            raise

    return wrapper
