"""pyACL's module names for aiocann's facade (``import acl`` resolving to :mod:`aiocann.acl`), and
the folder that makes ``import acl`` work in other processes. Used by the runner
(``python -m aiocann.acl``) and by the toolkit's ``acl`` package
(``aiocann/toolkit/python/site-packages/acl``)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

FACADE_MODULES = ("rt", "util", "mdl", "op", "media", "himpi", "blas", "prof", "fv")

# The folder holding the `acl` package that resolves to aiocann.acl: the toolkit's
# python/site-packages, as in a CANN install (on PYTHONPATH, `import acl` gives aiocann.acl).
SHIM_DIR = Path(__file__).resolve().parent.parent / "toolkit" / "python" / "site-packages"


def alias_acl() -> None:
    """Make ``import acl``, ``import acl.rt``, ``import acl.util``, ... give aiocann's modules.

    The submodules are registered too: otherwise ``import acl.rt`` would load rt.py a second
    time under the name ``acl.rt``, a separate module with its own callback table.
    """
    import aiocann.acl as facade

    sys.modules["acl"] = facade
    for name in FACADE_MODULES:
        sys.modules[f"acl.{name}"] = getattr(facade, name)


def real_pyacl_installed() -> bool:
    """Whether ``import acl`` finds a module other than our shim (CANN's pyACL, where CANN is
    installed and its set_env.sh was sourced). Asked before :func:`alias_acl` runs."""
    if "acl" in sys.modules:
        module = sys.modules["acl"]
        return getattr(module, "__name__", "") != "aiocann.acl"
    try:
        spec = importlib.util.find_spec("acl")
    except (ImportError, ValueError):
        return False
    if spec is None or spec.origin is None:
        return False
    return Path(spec.origin).resolve().parent.parent != SHIM_DIR


def export_to_children() -> None:
    """Put the shim on ``PYTHONPATH`` for the processes this one starts (environment variables
    are inherited), unless a real pyACL answers ``import acl`` there: never shadow it."""
    if real_pyacl_installed():
        return
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(SHIM_DIR) not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(SHIM_DIR), *paths])
    # multiprocessing's spawn children take their sys.path from this process, not from the
    # environment; last, so it shadows nothing.
    if str(SHIM_DIR) not in sys.path:
        sys.path.append(str(SHIM_DIR))
