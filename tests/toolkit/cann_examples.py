"""Builds and runs hicann/runtime's example/ programs against aiocann's toolkit.

    python tests/toolkit/cann_examples.py RUNTIME_CHECKOUT [NAME_SUBSTRING ...]

RUNTIME_CHECKOUT is a checkout of hicann/runtime (its example/ directory is copied to a
temporary directory first, so the checkout is not written). Each example is run as its README
says: its run.sh, in a shell that sourced the toolkit's set_env.sh, as with CANN's. An example
passes when run.sh exits 0 and prints no "[FAILURE]" line (an "[ERROR]" line may be an error
the example provokes on purpose). Prints one line per example and a summary; the opt-in test
(test_toolkit.py::test_hicann_runtime_examples) uses `run_examples`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

TIMEOUT = 300


@dataclass
class Outcome:
    name: str
    kernels: bool  # includes ascendc.cmake: needs the Ascend C compiler
    passed: bool
    why: str
    output: str


def toolkit() -> Path:
    out = subprocess.run([sys.executable, "-m", "aiocann", "toolkit"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def examples(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob("run.sh") if (p.parent / "CMakeLists.txt").is_file())


def _why(rc: int, out: str) -> str:
    lines = out.splitlines()
    for marker in ("error:", "undefined reference", "[FAILURE]", "[ERROR]", "failed", "Error"):
        for line in lines:
            if marker in line:
                return line.strip()[:200]
    return f"exit status {rc}" if rc else ""


def run_one(tk: Path, example: Path, root: Path) -> Outcome:
    name = str(example.relative_to(root))
    kernels = "ascendc.cmake" in (example / "CMakeLists.txt").read_text(errors="replace")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASCEND", "SOC_VERSION"))}
    env["ASCENDC_PYTHON"] = sys.executable
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
    script = f'source "{tk}/set_env.sh" && cd "{example}" && bash ./run.sh'
    try:
        p = subprocess.run(
            ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=TIMEOUT, errors="replace"
        )
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return Outcome(name, kernels, False, f"timed out after {TIMEOUT} s", out)
    failed = rc != 0 or any("[FAILURE]" in line for line in out.splitlines())
    return Outcome(name, kernels, not failed, _why(rc, out) if failed else "", out)


def run_examples(checkout: Path, only: list[str] | None = None, log: Path | None = None) -> list[Outcome]:
    tk = toolkit()
    with tempfile.TemporaryDirectory(prefix="cann-examples-") as tmp:
        root = Path(tmp) / "example"
        shutil.copytree(checkout / "example", root)
        outcomes = []
        for ex in examples(root):
            rel = str(ex.relative_to(root))
            if only and not any(o in rel for o in only):
                continue
            o = run_one(tk, ex, root)
            outcomes.append(o)
            print(f"{'PASS' if o.passed else 'FAIL'} {'K' if o.kernels else 'R'} {o.name}  {o.why}", flush=True)
            if log is not None:
                with log.open("a") as f:
                    f.write(f"===== {o.name} ({'pass' if o.passed else 'FAIL'})\n{o.output}\n")
        return outcomes


def summary(outcomes: list[Outcome]) -> str:
    lines = []
    for label, sel in (("runtime only", False), ("with kernels", True)):
        group = [o for o in outcomes if o.kernels == sel]
        lines.append(f"{label}: {sum(o.passed for o in group)} of {len(group)} pass")
    return "; ".join(lines)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    results = run_examples(Path(sys.argv[1]), sys.argv[2:], Path("/tmp/cann-examples.log"))
    print(summary(results))
