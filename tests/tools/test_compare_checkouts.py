"""benchmarks/compare_checkouts.py, the before/after driver: with tiny counts, the same install
twice, it measures every figure for each and prints the table of best values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "compare_checkouts.py"


def test_compares_two_installs_in_alternating_rounds() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), sys.executable, sys.executable, "--rounds", "2", "--launches", "128"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert sum(line.startswith("round ") for line in lines) == 4  # 2 rounds x 2 interpreters
    start = lines.index("best of each (lower is better for *_us):")
    table = {line.split()[0]: line.split()[1:] for line in lines[start:]}
    for figure in ("launch_us", "burst_per_s", "closed_per_s", "rtt_us"):
        values = [float(v.replace(",", "")) for v in table[figure]]
        assert len(values) == 2 and all(v > 0 for v in values), (figure, values)


def test_refuses_fewer_than_two_interpreters() -> None:
    run = subprocess.run([sys.executable, str(SCRIPT), sys.executable], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "at least two interpreters" in run.stderr
