"""Fixtures of the async-API tests (tests/core).

Every test here must leave the runtime as it found it: each ``Device`` it opened closed again
(the report thread stopped, the device reset). A test that leaves one open would hand the next
test a device in an unknown state, so it fails here, naming the devices.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _devices_closed() -> Iterator[None]:
    from aiocann import _runtime

    before = set(_runtime._devices)
    yield
    left = set(_runtime._devices) - before
    assert not left, f"the test left device(s) {sorted(left)} open (a Device block not closed)"
