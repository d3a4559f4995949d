"""``python -m aiocann.acl`` runs an unmodified pyACL program on aiocann, the way ``python`` runs
it::

    python -m aiocann.acl PROGRAM.py [ARGS...]
    python -m aiocann.acl -m MODULE [ARGS...]      e.g. -m pytest tests/
    python -m aiocann.acl -c CODE [ARGS...]
    python -m aiocann.acl - [ARGS...]              the program on stdin

Where it sits: the command-line entry of the pyACL facade. It makes ``import acl`` (and
``import acl.rt`` / ``from acl import util``) resolve to :mod:`aiocann.acl` by registering the
facade's modules under pyACL's names in ``sys.modules`` -- so the program and every module it
imports share one facade, with one table of pending callbacks and threads -- and, for the
processes the program starts (``subprocess``, ``multiprocessing`` spawn, a Ray cluster), puts
the ``acl`` shim folder on ``PYTHONPATH`` unless a real pyACL is importable; then it runs the
program as Python would: as ``__main__``, with Python's ``sys.argv`` and ``sys.path[0]`` for
that form, and its own exit status (``sys.exit(n)`` and uncaught exceptions behave as usual).
An uncaught exception's traceback starts at the program, as under ``python``: the frames of
this runner and of runpy are left out.
"""

from __future__ import annotations

import importlib.util
import os
import runpy
import signal
import sys
import types
from typing import NoReturn

from aiocann.acl._alias import alias_acl, export_to_children

USAGE = """\
usage: python -m aiocann.acl PROGRAM.py [ARGS...]
       python -m aiocann.acl -m MODULE [ARGS...]
       python -m aiocann.acl -c CODE [ARGS...]
       python -m aiocann.acl - [ARGS...]

Run a pyACL program unchanged, with `import acl` resolved to aiocann.acl (the ACL simulator,
or a real CANN runtime: see AIOCANN_BACKEND)."""

# Files whose frames are the runner's, not the program's (runpy may be frozen: "<frozen runpy>").
_RUNNER_FILES = {os.path.abspath(__file__), os.path.abspath(runpy.__file__), "<frozen runpy>"}


def _program_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback from the program's first frame on: this runner's and runpy's dropped."""

    def runner(filename: str) -> bool:
        return filename in _RUNNER_FILES or os.path.abspath(filename) in _RUNNER_FILES

    while tb is not None and runner(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return tb


def _die(exc: BaseException) -> NoReturn:
    """Report an uncaught exception as the interpreter would, then exit as it would."""
    tb = _program_traceback(exc.__traceback__)
    # The interpreter's hook prints the exception's own __traceback__, not the one passed in.
    exc.__traceback__ = tb
    sys.excepthook(type(exc), exc, tb)
    if isinstance(exc, KeyboardInterrupt):
        # `python` exits by the signal itself, so the parent sees SIGINT (status -2).
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    raise SystemExit(1)


def _run_code(code: str, filename: str) -> None:
    """Run source text as ``__main__``, as ``python -c`` and ``python -`` do."""
    main = types.ModuleType("__main__")
    main.__builtins__ = __builtins__  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    exec(compile(code, filename, "exec"), main.__dict__)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(USAGE, file=sys.stderr)
        return 2
    first = args[0]
    if first in ("-h", "--help"):
        print(USAGE)
        return 0
    if first in ("-m", "-c") and len(args) < 2:
        print(f"python -m aiocann.acl: argument expected for the {first} option\n\n{USAGE}", file=sys.stderr)
        return 2
    if first not in ("-m", "-c", "-") and not os.path.exists(first):
        print(f"python -m aiocann.acl: can't open file {first!r}: no such file", file=sys.stderr)
        return 2
    export_to_children()  # before the alias: a real pyACL, if there is one, keeps its children
    alias_acl()
    try:
        if first == "-m":
            # `python -m`: argv[0] becomes the module's path (run_module sets it), the current
            # directory stays first on sys.path -- as it already is, we run under -m too.
            try:
                found = importlib.util.find_spec(args[1]) is not None
            except (ImportError, ValueError):
                found = False
            if not found:  # what `python -m` says for a module it cannot find
                print(f"{sys.executable}: No module named {args[1]}", file=sys.stderr)
                return 1
            sys.argv = [args[1], *args[2:]]
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        elif first == "-c":
            sys.argv = ["-c", *args[2:]]
            sys.path[0] = ""  # `python -c` puts the current directory first, as ''
            _run_code(args[1], "<string>")
        elif first == "-":
            sys.argv = ["-", *args[1:]]
            sys.path[0] = ""
            _run_code(sys.stdin.read(), "<stdin>")
        else:
            sys.argv = [first, *args[1:]]
            # `python PROGRAM.py` puts the program's directory first on sys.path (so its
            # sibling modules import); `python -m` put the current directory there instead.
            sys.path[0] = os.path.dirname(os.path.abspath(first))
            runpy.run_path(first, run_name="__main__")
    except SystemExit:
        raise  # sys.exit(n) in the program: its status, its message
    except BaseException as exc:  # noqa: BLE001 -- reported as the interpreter would
        _die(exc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
