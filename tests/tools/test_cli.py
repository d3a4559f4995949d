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
    assert "devices     2" in r.stdout and "device 1:" in r.stdout


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


def test_version():
    import aiocann

    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"aiocann {aiocann.__version__}"
    from importlib.metadata import version

    assert aiocann.__version__ == version("aiocann")


def test_bad_options_are_usage_errors_not_tracebacks(tmp_path):
    for args, says in (
        (("demo", "--streams", "0"), "--streams: must be at least 1, got 0"),
        (("demo", "--batches", "-3"), "--batches: must be at least 1, got -3"),
        (("demo", "--streams", "two"), "'two' is not a whole number"),
        (("demo", "--trace", str(tmp_path / "no" / "such" / "x.json")), "does not exist"),
        (("bench", "--only", "nonexistent"), "no benchmark matches 'nonexistent' (there are: "),
    ):
        r = run(*args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert says in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    assert not (tmp_path / "no").exists()  # the demo made no folder for the trace


def test_a_runtime_that_cannot_be_loaded_is_an_error_line():
    import os

    env = {**os.environ, "AIOCANN_BACKEND": "cann"}
    for key in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "AIOCANN_ACL_LIBRARY"):
        env.pop(key, None)
    r = subprocess.run([sys.executable, "-m", "aiocann", "info"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("python -m aiocann: error: AIOCANN_BACKEND=cann but no CANN runtime library was found")


def test_one_failing_benchmark_does_not_lose_the_others(tmp_path, monkeypatch, capsys):
    import aiocann.__main__ as cli

    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "bench_broken.py").write_text("def main():\n    raise FileNotFoundError('kernels/matmul.c')\n")
    (bench / "bench_fine.py").write_text(
        "class R:\n"
        "    name, ratio, goal, met, subject, baseline = 'fine', 1.0, '>= 1', True, 's', 'b'\n"
        "    def line(self):\n        return 'fine 1.0'\n"
        "    def asdict(self):\n        return {'name': self.name, 'ratio': self.ratio}\n"
        "def main():\n    return R()\n"
    )
    monkeypatch.setattr(cli, "_find", lambda name: bench)
    out_json = tmp_path / "rows.json"
    assert cli.main(["bench", "--json", str(out_json)]) == 1
    out = capsys.readouterr().out
    assert "fine" in out and "FAILED: bench_broken: FileNotFoundError: kernels/matmul.c" in out
    assert json.loads(out_json.read_text()) == [{"name": "fine", "ratio": 1.0}]
