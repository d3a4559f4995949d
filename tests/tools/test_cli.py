"""The command line (issue 5): info, demo, bench."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run(*args: str, timeout: float = 120, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aiocann", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


def test_info():
    r = run("info")
    assert r.returncode == 0, r.stderr
    assert "backend     sim" in r.stdout and "libascendcl.so" in r.stdout and "ACL version 1.17.0" in r.stdout
    assert "devices     8" in r.stdout and "device 7:" in r.stdout  # the default machine: a 910B server


def test_demo_verifies_and_writes_a_trace(tmp_path):
    trace = tmp_path / "demo.json"
    r = run("demo", "--streams", "2", "--batches", "3", "--trace", str(trace))
    assert r.returncode == 0, r.stderr
    assert "verified     6/6 batches" in r.stdout and "all batches verified" in r.stdout
    doc = json.loads(trace.read_text())
    assert any(e.get("cat") == "kernel" for e in doc["traceEvents"])
    assert "pipeline" in r.stderr  # the progress bar


def test_demo_writes_a_trace_only_when_asked(tmp_path):
    r = run("demo", "--streams", "1", "--batches", "2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "all batches verified" in r.stdout and "trace" not in r.stdout
    assert list(tmp_path.iterdir()) == []


def test_bench_prints_a_table_of_ratios(tmp_path):
    out = tmp_path / "bench.json"
    # From another directory: the benchmarks find their kernels through aiocann.compiler.example_kernel.
    r = run("bench", "--only", "pipeline_overlap", "--json", str(out), timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "P4 4-stream overlap" in r.stdout and "ratio" in r.stdout
    rows = json.loads(out.read_text())
    assert rows[0]["name"] == "P4 4-stream overlap" and rows[0]["ratio"] > 0


def test_usage_errors():
    r = run()
    assert r.returncode == 2 and "usage" in r.stderr


def test_help_is_plain_text():
    for args in ((), ("info",), ("demo",), ("bench",)):
        r = run(*args, "--help")
        assert r.returncode == 0 and r.stdout.startswith("usage: python -m aiocann"), r.stderr
        assert "``" not in r.stdout and ":func:" not in r.stdout, r.stdout
    assert "--trace FILE" in run("demo", "--help").stdout


def test_bench_skips_a_script_whose_dependency_is_missing(tmp_path, monkeypatch, capsys):
    import aiocann.__main__ as cli

    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "bench_needs_more.py").write_text("import aiocann_no_such_module\n")
    monkeypatch.setattr(cli, "_find", lambda name: bench)
    assert cli.main(["bench"]) == 0
    out = capsys.readouterr().out
    assert "skipped: bench_needs_more: needs the module 'aiocann_no_such_module', which is not installed" in out
