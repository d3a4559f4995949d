"""``python -m aiocann.acl PROGRAM.py [ARGS...]``: run an unmodified pyACL program on aiocann.

Where it sits: the command-line entry of the pyACL facade. It makes ``import acl`` (and
``import acl.rt`` / ``from acl import util``) resolve to :mod:`aiocann.acl` by registering the
facade's modules under pyACL's names in ``sys.modules`` -- so the program and every module it
imports share one facade, with one table of pending callbacks and threads -- then runs the
program as Python would run ``python PROGRAM.py ARGS...``: as ``__main__``, with ``sys.argv``
set to ``[PROGRAM.py, ARGS...]``, the program's directory first on ``sys.path``, and its own
exit status (``sys.exit(n)`` and uncaught exceptions behave as usual).
"""

from __future__ import annotations

import os
import runpy
import sys

import aiocann.acl

USAGE = """\
usage: python -m aiocann.acl PROGRAM.py [ARGS...]

Run a pyACL program unchanged, with `import acl` resolved to aiocann.acl (the ACL simulator,
or a real CANN runtime: see AIOCANN_BACKEND)."""


def alias_acl() -> None:
    """Make ``import acl``, ``import acl.rt`` and ``import acl.util`` give aiocann's modules.

    The submodules are registered too: otherwise ``import acl.rt`` would load rt.py a second
    time under the name ``acl.rt``, a separate module with its own callback table.
    """
    sys.modules["acl"] = aiocann.acl
    sys.modules["acl.rt"] = aiocann.acl.rt
    sys.modules["acl.util"] = aiocann.acl.util


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(USAGE, file=sys.stderr)
        return 2
    if args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    program = args[0]
    if not os.path.exists(program):
        print(f"python -m aiocann.acl: can't open file {program!r}: no such file", file=sys.stderr)
        return 2
    alias_acl()
    sys.argv = [program, *args[1:]]
    # `python PROGRAM.py` puts the program's directory first on sys.path (so its sibling
    # modules import); `python -m` put the current directory there instead.
    sys.path[0] = os.path.dirname(os.path.abspath(program))
    # Raises SystemExit for sys.exit(); an uncaught exception propagates and the interpreter
    # prints it and exits with status 1, exactly as for `python PROGRAM.py`.
    runpy.run_path(program, run_name="__main__")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
