"""The aiocann command line: ``python -m aiocann {info,demo,bench,toolkit}``.

* ``info``  which ACL runtime is loaded and from where, its devices, cores and versions;
* ``demo``  builds the example kernels, runs the multi-stream pipeline on the simulator,
  verifies every batch against numpy and prints a summary; with ``--trace FILE`` it also
  writes a timeline trace;
* ``bench`` runs the benchmarks (each compares against a baseline in the same run) and prints
  one table of ratios;
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
from typing import Any

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    for candidate in (_PACKAGE / f"_{name}", _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise SystemExit(f"aiocann: the {name} directory is not installed (run from a source checkout)")


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
    """A one-line progress bar on stderr (a plain line every 10% when not a terminal)."""

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

    examples = _find("examples")
    pipeline = _load(examples / "pipeline.py")
    trace_path = Path(args.trace).resolve() if args.trace else None
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
    scripts = sorted(
        p
        for p in bench_dir.glob("bench_*.py")
        if (any(o in p.stem for o in args.only) if args.only else p.stem not in ON_REQUEST)
    )
    rows = []
    skipped = []
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
        result = module.main()
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
    if args.json:
        Path(args.json).write_text(json.dumps([r.asdict() for r in rows], indent=1))
    return 0


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
    # The help texts are plain text: no reST markup from the docstrings.
    parser = argparse.ArgumentParser(
        prog="python -m aiocann",
        description="aiocann, an async Python runtime for Ascend NPUs (CANN ACL) with a CPU simulator.",
        epilog="Run 'python -m aiocann COMMAND --help' for the options of a command.",
    )
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
    demo.add_argument("--streams", type=int, default=4, metavar="N", help="pipelines to run side by side (default 4)")
    demo.add_argument(
        "--batches",
        type=int,
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
    return int(args.fn(args))


if __name__ == "__main__":
    sys.exit(main())
