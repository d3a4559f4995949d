"""The public namespace stays honest: every module's __all__ names exist, and the package
re-exports exactly its public modules' names (STYLE 12)."""

from __future__ import annotations

import importlib

import aiocann

PUBLIC_MODULES = [
    "aiocann.completion",
    "aiocann.device",
    "aiocann.errors",
    "aiocann.event",
    "aiocann.kernel",
    "aiocann.launch",
    "aiocann.memory",
    "aiocann.tracing",
    "aiocann.stream",
    "aiocann.compiler",
]


def test_every_all_name_exists():
    for name in PUBLIC_MODULES + ["aiocann", "aiocann._lib"]:
        module = importlib.import_module(name)
        for attr in module.__all__:
            assert hasattr(module, attr), f"{name}.__all__ names {attr!r}, which does not exist"


def test_package_exports_are_documented_objects():
    for attr in aiocann.__all__:
        obj = getattr(aiocann, attr)
        assert obj.__doc__, f"aiocann.{attr} has no docstring"
    assert {"Device", "Stream", "Event", "launch", "Completion", "AclError", "trace"} <= set(aiocann.__all__)
