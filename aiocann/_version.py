"""The installed distribution's version, as ``aiocann.__version__`` (PEP 396 style) and in
``python -m aiocann --version``. Read from the package metadata, so pyproject.toml's
``version`` stays the one place it is written; a tree that is imported without being installed
(no metadata) says so rather than guess."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__: str = version("aiocann")
except PackageNotFoundError:  # a source tree on sys.path, never pip-installed
    __version__ = "0+unknown"
