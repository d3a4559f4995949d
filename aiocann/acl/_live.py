"""Addresses :mod:`aiocann.acl` hands to Python code that are valid only for a while.

The one case: the runtime calls ``set_exception_info_callback``'s function with the address of
an ``aclrtExceptionInfo`` that lives only during that call, and the program reads it through
the ``get_*_from_exception_info`` getters, which take a plain int. The C getters dereference
whatever they are given (on CANN as in the simulator: only NULL is checked), so an int that is
not such a report -- ``1``, a stale address kept past the callback, a typo -- would crash the
interpreter. pyACL has the same hole; a Python module must not, so the facade keeps the set of
report addresses it has handed out and not yet taken back, and the getters read only those.

:class:`LiveAddresses` is that set. The trampoline holds an address live around the user's
function (:meth:`LiveAddresses.holding`); a getter runs its C call through :meth:`LiveAddresses.read`,
under the same lock the trampoline takes to retire the address, so the report cannot be
retired (and then freed by the runtime, once the trampoline returns to it) between the check
and the read -- even when another thread calls the getter with the address while the callback
is returning. The lock is held only for one short C getter, never across the user's function.

Counts, not a set: two failing streams may report at once, and in principle the runtime may
reuse one address for two reports whose callbacks overlap.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["LiveAddresses"]

_T = TypeVar("_T")


class LiveAddresses:
    """A multiset of addresses that may be read now."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count: dict[int, int] = {}

    @contextmanager
    def holding(self, address: int) -> Iterator[None]:
        """``address`` is live for the duration of the ``with`` block."""
        with self._lock:
            self._count[address] = self._count.get(address, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._count[address] - 1
                if left:
                    self._count[address] = left
                else:
                    del self._count[address]

    def read(self, address: int, fn: Callable[[bool], _T]) -> _T:
        """``fn(live)``, ``live`` telling whether ``address`` is live: only then may ``fn``
        dereference it. Under the lock, so the address stays live until ``fn`` returns."""
        with self._lock:
            return fn(address in self._count)
