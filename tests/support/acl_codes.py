"""The ACL return codes the tests expect, by their header names without the ``ACL_ERROR_``
prefix (``RT_INVALID_HANDLE`` is ``ACL_ERROR_RT_INVALID_HANDLE``, 107017), plus ``SUCCESS``.

Derived from aiocann's one table of them, ``aiocann.errors.ERROR_CODES``, which
tests/sim/test_abi.py checks against the real headers: the tests never spell a code's value
again. A failing assertion still shows the numbers (``assert 107003 == 107017``).
"""

from __future__ import annotations

from aiocann.errors import ERROR_CODES

SUCCESS = 0
globals().update({name.removeprefix("ACL_ERROR_"): code for name, code in ERROR_CODES.items()})

__all__ = ["SUCCESS", *(name.removeprefix("ACL_ERROR_") for name in ERROR_CODES)]
