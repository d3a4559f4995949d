"""Deprecated alias of :mod:`aiocann.compiler` (the kernel compiler's earlier
name). Every name resolves to the one in ``aiocann.compiler``, with a
``DeprecationWarning`` naming the new home."""

from __future__ import annotations

import warnings
from typing import Any

from . import compiler as _compiler

# The names it had when it moved; what aiocann.compiler gained since is only there.
_MOVED = {
    "KernelBuildError",
    "KernelParam",
    "KernelSignature",
    "ParamSpec",
    "build_kernel",
    "example_kernel",
    "include_dir",
    "kernel_signatures",
    "library_path",
    "read_signatures",
}
__all__ = [name for name in _compiler.__all__ if name in _MOVED]


def __getattr__(name: str) -> Any:
    if name in __all__:
        warnings.warn(
            f"aiocann.sim.{name} moved to aiocann.compiler.{name}; aiocann.sim is a deprecated alias",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_compiler, name)
    raise AttributeError(f"module 'aiocann.sim' has no attribute {name!r}")
