"""The pyACL modules aiocann does not provide, as modules whose functions say so.

pyACL's ``acl`` package has more than the runtime: offline models (``acl.mdl``), single
operators (``acl.op``), DVPP media processing (``acl.media``, ``acl.himpi``), BLAS
(``acl.blas``), profiling (``acl.prof``) and feature-vector retrieval (``acl.fv``). aiocann
covers the runtime (``acl.rt``, ``acl.util`` and the runtime functions of ``acl`` itself). So
that a program using one of the others fails where it calls it, with a message that says
why -- not with an AttributeError deep inside, or at import -- each of those modules exists,
and its functions are stand-ins whose call raises NotImplementedError naming the pyACL API.

Names: where this module knows pyACL's method table (python/pyACL/<module>/py*_methods.cpp)
the stand-ins are exactly those names and anything else is an AttributeError, as in pyACL;
where it does not list the table, any public name is a stand-in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NoReturn

__all__ = ["module_getattr", "not_implemented"]

COVERS = "aiocann.acl covers pyACL's runtime (acl.rt, acl.util and the runtime functions of acl); see docs/pyacl.md"


def not_implemented(api: str, reason: str) -> Callable[..., NoReturn]:
    """A stand-in for the pyACL function ``api``: calling it raises NotImplementedError."""

    def call(*_args: object, **_kwargs: object) -> NoReturn:
        raise NotImplementedError(f"{api} is not implemented by aiocann: {reason}. {COVERS}")

    call.__name__ = call.__qualname__ = api.rsplit(".", 1)[1]
    call.__doc__ = f"Not implemented by aiocann ({reason}); calling it raises NotImplementedError."
    return call


def module_getattr(
    module: str, names: Iterable[str] | None, reason: str
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a module of stand-ins. ``names``: pyACL's method
    table for the module, or None when any public name is to be a stand-in."""
    known = frozenset(names) if names is not None else None

    def getattr_(name: str) -> Any:
        if name.startswith("__") or (known is not None and name not in known):
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return not_implemented(f"{module}.{name}", reason)

    def dir_() -> list[str]:
        return sorted(known or ())

    return getattr_, dir_
