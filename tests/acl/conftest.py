"""Fixtures of the pyACL-module tests (tests/acl); their helpers are in ``support/pyacl_support.py``.

``aclInit`` is process-wide: ``runtime`` initialises ACL for one test and always finalizes it,
even when the test fails, so every test starts from a fresh runtime. ``device`` adds
``set_device(0)`` (reset afterwards) and yields the device's default context; ``stream`` a
stream on it. ``sigint_restored`` puts pytest's SIGINT handler back after a test that called
``acl.util.start_thread`` (which, like pyACL's, resets SIGINT to the default action).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from pyacl_support import REPEAT_INITIALIZE, SUCCESS, ok

import aiocann.acl as acl


@pytest.fixture
def runtime() -> Iterator[None]:
    ret = acl.init()
    if ret == REPEAT_INITIALIZE:  # an earlier test in this process left ACL initialised
        acl.finalize()
        ret = acl.init()
    assert ret == SUCCESS
    try:
        yield
    finally:
        acl.finalize()


@pytest.fixture
def device(runtime: None) -> Iterator[int]:
    """Device 0 bound to the calling thread; yields its default context."""
    ok(acl.rt.set_device(0))
    ctx = ok(acl.rt.get_context())
    try:
        yield ctx
    finally:
        acl.rt.set_context(ctx)  # a test may have left another context current
        acl.rt.reset_device(0)


@pytest.fixture
def stream(device: int) -> Iterator[int]:
    s = ok(acl.rt.create_stream())
    try:
        yield s
    finally:
        acl.rt.destroy_stream(s)


@pytest.fixture
def sigint_restored() -> Iterator[None]:
    """acl.util.start_thread resets SIGINT to SIG_DFL, as pyACL does: put pytest's back."""
    saved = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, saved)
