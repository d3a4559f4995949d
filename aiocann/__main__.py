"""The aiocann command line: ``python -m aiocann {info,demo,bench,cc,toolkit}``.

* ``info``  which ACL runtime is loaded and from where, its devices, cores and versions;
* ``demo``  builds the example kernels, runs the multi-stream pipeline on the simulator,
  verifies every batch against numpy and prints a summary; with ``--trace FILE`` it also
  writes a timeline trace;
* ``bench`` runs the benchmarks (each compares against a baseline in the same run) and prints
  one table of ratios;
* ``cc``    the kernel compiler (bisheng's role, aiocann.compiler.cc): a kernel binary, a host
  object (``-c``) or an ``.asc`` executable from Ascend C sources.
* ``toolkit`` prints the path of aiocann's CANN-shaped install (``aiocann._toolkit``).

The demo and the benchmarks live in the source tree (``examples/``, ``benchmarks/``); a wheel
carries copies of both.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

_PACKAGE = Path(__file__).resolve().parent


# Where a wheel carries them (setup.py's build_py); a source checkout has them at its top.
_INSTALLED = {"examples": "examples", "benchmarks": "_benchmarks"}


def _find(name: str) -> Path:
    for candidate in (_PACKAGE / _INSTALLED[name], _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise SystemExit(f"aiocann: the {name} directory is not installed (run from a source checkout)")


def examples_dir() -> Path:
    """The examples' folder: ``aiocann/examples`` in an installed wheel, ``examples/`` in a
    source checkout (``python -m aiocann info`` prints it)."""
    return _find("examples")


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_aiocann_{path.parent.name}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


# --------------------------------------------------------------------------- info


def cmd_info(args: argparse.Namespace) -> int:
    import anyio
    import cffi
    import numpy as np

    import aiocann
    from aiocann import _runtime

    info = aiocann.backend()
    print(f"aiocann     {_version()}")
    print(f"backend     {info.name}  ({'CPU simulator' if info.name == 'sim' else 'CANN runtime'})")
    print(f"library     {info.library}")
    print(f"examples    {examples_dir()}")
    print(f"ACL version {'.'.join(map(str, info.version)) if info.version else 'unknown (no aclrtGetVersion)'}")
    for reason in info.skipped:
        print(f"skipped: {reason}")
    visible = os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
    try:
        count = _runtime.device_count()
    except aiocann.AclError as exc:  # e.g. an ASCEND_RT_VISIBLE_DEVICES that leaves no device
        print(f"devices     none: {exc}")
        return 1
    print(f"devices     {count}" + ("" if visible is None else f"  (ASCEND_RT_VISIBLE_DEVICES={visible!r})"))
    if info.name == "sim":
        cores = os.environ.get("AIOCANN_SIM_CORES", "8")
        memory = os.environ.get("AIOCANN_SIM_MEMORY", "4g")
        print(f"AI cores    {cores} per device (AIOCANN_SIM_CORES)")
        print(f"memory      {memory} per device (AIOCANN_SIM_MEMORY)")

    async def mem() -> list[tuple[int, int, int | None]]:
        out = []
        for i in range(count):
            async with aiocann.Device(i) as dev:
                out.append((*dev.mem_info(), dev.logic_id))
        return out

    for i, (free, total, logic_id) in enumerate(anyio.run(mem)):
        machine = f" (the machine's device {logic_id})" if logic_id is not None and logic_id != i else ""
        print(f"  device {i}{machine}: {free / 2**30:.2f} GiB free of {total / 2**30:.2f} GiB")
    print(
        f"python      {platform.python_version()} ({platform.machine()}), numpy {np.__version__}, "
        f"anyio {anyio.__version__ if hasattr(anyio, '__version__') else _dist('anyio')}, cffi {cffi.__version__}"
    )
    return 0


def _dist(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def _version() -> str:
    return _dist("aiocann")


# --------------------------------------------------------------------------- demo


class _Progress:
    """A one-line progress bar on stderr (a plain line every 10% when not a terminal).

    Twenty lines of our own rather than tqdm or rich: the demo is the one user, it needs only a
    count and a bar, and the CLI should run with the package's three dependencies alone."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.tty = sys.stderr.isatty()
        self.last = -1
        self.t0 = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        frac = done / total if total else 1.0
        if self.tty:
            width = 30
            bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
            sys.stderr.write(f"\r{self.label} [{bar}] {done}/{total} {time.perf_counter() - self.t0:5.1f}s")
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()
        else:
            step = int(frac * 10)
            if step != self.last:
                self.last = step
                sys.stderr.write(f"{self.label}: {done}/{total}\n")


def cmd_demo(args: argparse.Namespace) -> int:
    import anyio

    import aiocann

    trace_path = Path(args.trace).resolve() if args.trace else None
    if trace_path is not None and not trace_path.parent.is_dir():
        _usage_error("demo", f"--trace {args.trace}: the directory {str(trace_path.parent)!r} does not exist")
    examples = _find("examples")
    pipeline = _load(examples / "pipeline.py")
    print(f"aiocann demo on {aiocann.backend().name} ({aiocann.backend().library})")

    kwargs: dict[str, Any] = {"streams": args.streams}
    if args.batches is not None:
        kwargs["batches"] = args.batches

    async def run() -> dict[str, Any]:
        async with AsyncExitStack() as stack:
            if trace_path is not None:
                await stack.enter_async_context(aiocann.trace(trace_path))
            result: dict[str, Any] = await pipeline.run_pipeline(**kwargs, progress=_Progress("pipeline"))
        return result

    result = anyio.run(run)
    print(pipeline.format_summary(result))
    if trace_path is not None:
        print(f"  trace        {trace_path}")
        print("               open it at https://ui.perfetto.dev (or chrome://tracing): a row per stream")
        print("               and per AI core, every launch, copy, event and block with device times")
    ok = not result["mismatches"] and result["verified"] == result["batches"]
    print("demo: all batches verified against numpy" if ok else "demo: VERIFICATION FAILED")
    return 0 if ok else 1


# --------------------------------------------------------------------------- bench


# Run only when named with --only: they start a Ray cluster (about a minute and a half) and need the
# serve extra.
ON_REQUEST = {"bench_ray_serve"}


def cmd_bench(args: argparse.Namespace) -> int:
    bench_dir = _find("benchmarks")
    available = sorted(bench_dir.glob("bench_*.py"))
    if args.only:
        unknown = [o for o in args.only if not any(o in p.stem for p in available)]
        if unknown:
            names = ", ".join(p.stem.removeprefix("bench_") for p in available)
            _usage_error("bench", f"no benchmark matches {', '.join(map(repr, unknown))} (there are: {names})")
    scripts = [p for p in available if (any(o in p.stem for o in args.only) if args.only else p.stem not in ON_REQUEST)]
    rows = []
    skipped = []
    failed = []
    for script in scripts:
        sys.stderr.write(f"running {script.name} ...\n")
        try:
            module = _load(script)
        except ModuleNotFoundError as exc:
            # An optional dependency (bench_server needs the server extra, pip install
            # 'aiocann[server]'): say so and go on with the others rather than lose the run.
            why = f"{script.stem}: needs the module {exc.name!r}, which is not installed"
            skipped.append(why)
            sys.stderr.write(f"  skipped: {why}\n")
            continue
        try:
            result = module.main()
        except Exception as exc:  # noqa: BLE001 -- one failing benchmark must not lose the others' rows
            why = f"{script.stem}: {type(exc).__name__}: {exc}"
            failed.append(why)
            sys.stderr.write(f"  FAILED: {why}\n")
            continue
        rows.append(result)
        sys.stderr.write(f"  {result.line()}\n")
    print()
    name_w = max([len(r.name) for r in rows] + [9])
    print(f"{'benchmark':<{name_w}}  {'ratio':>8}  {'goal':<18}  {'':<6}  subject / baseline")
    for r in rows:
        mark = "ok" if r.met else "missed"
        print(f"{r.name:<{name_w}}  {r.ratio:>8.3g}  {r.goal:<18}  {mark:<6}  {r.subject} / {r.baseline}")
    for why in skipped:
        print(f"skipped: {why}")
    for why in failed:
        print(f"FAILED: {why}")
    if args.json:
        Path(args.json).write_text(json.dumps([r.asdict() for r in rows], indent=1))
    return 1 if failed else 0


def _usage_error(command: str, message: str) -> NoReturn:
    """A usage error, as argparse reports its own: one line on stderr, exit status 2."""
    sys.stderr.write(f"usage: python -m aiocann {command} ... (see --help)\n")
    sys.stderr.write(f"python -m aiocann {command}: error: {message}\n")
    raise SystemExit(2)


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def cmd_cc(argv: list[str]) -> int:
    from aiocann.compiler import CC_HELP, cc

    if any(a in ("-h", "--help") for a in argv):
        print(CC_HELP)
        return 0
    return cc(argv)


# --------------------------------------------------------------------------- toolkit


def cmd_toolkit(args: argparse.Namespace) -> int:
    from ._toolkit import toolkit_path

    try:
        print(toolkit_path())
    except FileNotFoundError as exc:
        print(f"aiocann toolkit: {exc}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["cc"]:  # a compiler's command line (-I, -D, -O2...), not argparse's
        return cmd_cc(argv[1:])
    # The help texts are plain text: no reST markup from the docstrings.
    parser = argparse.ArgumentParser(
        prog="python -m aiocann",
        description="aiocann, an async Python runtime for Ascend NPUs (CANN ACL) with a CPU simulator.",
        epilog="Run 'python -m aiocann COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"aiocann {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, title="commands", metavar="COMMAND")
    info_help = "say which ACL runtime is loaded and from where, its devices, cores and versions"
    sub.add_parser("info", help=info_help, description=info_help[0].upper() + info_help[1:] + ".").set_defaults(
        fn=cmd_info
    )
    demo = sub.add_parser(
        "demo",
        help="run the multi-stream pipeline demo and verify it against numpy",
        description=(
            "Build the example kernels, run the multi-stream pipeline (examples/pipeline.py) on the "
            "loaded runtime, check every batch against numpy and print a summary."
        ),
    )
    demo.add_argument(
        "--streams", type=_at_least_one, default=4, metavar="N", help="pipelines to run side by side (default 4)"
    )
    demo.add_argument(
        "--batches",
        type=_at_least_one,
        default=None,
        metavar="N",
        help="batches per pipeline (default: what examples/pipeline.py uses)",
    )
    demo.add_argument(
        "--trace",
        default=None,
        metavar="FILE",
        help="also write a timeline trace (Chrome trace format, open at ui.perfetto.dev) to FILE",
    )
    demo.set_defaults(fn=cmd_demo)
    bench = sub.add_parser(
        "bench",
        help="run the benchmarks and print one table of ratios",
        description=(
            "Run the benchmarks; each measures its subject and a baseline in the same run. Prints "
            "one table of ratios and whether each met its goal."
        ),
    )
    bench.add_argument(
        "--only", nargs="*", metavar="NAME", help="run only the scripts benchmarks/bench_*.py whose name contains NAME"
    )
    bench.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    bench.set_defaults(fn=cmd_bench)
    sub.add_parser(
        "cc",
        help="compile Ascend C kernels: a kernel binary, a host object (-c) or an .asc executable",
        add_help=False,
    )
    toolkit_help = "print the path of aiocann's CANN-shaped install (include/, lib64/, set_env.sh, ascendc.cmake)"
    sub.add_parser(
        "toolkit",
        help=toolkit_help,
        description=(
            "Print the path of a directory laid out as a CANN toolkit, for C and C++ programs written for CANN: "
            "cmake -DASCEND_CANN_PACKAGE_PATH=$(python -m aiocann toolkit) .., or "
            "source $(python -m aiocann toolkit)/set_env.sh."
        ),
    ).set_defaults(fn=cmd_toolkit)
    args = parser.parse_args(argv)
    from aiocann import AclError, BackendError

    try:
        return int(args.fn(args))
    except (BackendError, AclError) as exc:
        # No runtime to load (AIOCANN_BACKEND=cann without CANN), or the runtime refused
        # (no device): the message says what to do; a traceback adds nothing for a user.
        sys.stderr.write(f"python -m aiocann {args.command}: error: {exc}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
