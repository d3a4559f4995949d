"""The command line (issue 5): info, demo, bench; cc, the kernel compiler (issue 22)."""

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
    for args in ((), ("info",), ("demo",), ("bench",), ("cc",)):
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


CC_KERNEL = r"""
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void fill(__gm__ int32_t *out) { out[GetBlockIdx()] = VALUE; }
"""


def test_cc_builds_a_kernel_binary_that_loads(tmp_path):
    """The contract's command line: -I, -D, -O, -std, --npu-arch, SRC -o OUT (exit 0); the
    binary loads from data and runs."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "value.h").write_text("#define VALUE (BASE + 1)\n")
    (tmp_path / "fill.cpp").write_text('#include "value.h"\n' + CC_KERNEL)
    r = run(
        "cc",
        "-I",
        "inc",
        "-DBASE=41",
        "",  # what the toolkit's ascendc.cmake passes for an empty option list
        "-O2",
        "-std=c++17",
        "--npu-arch=dav-2201",
        "fill.cpp",
        "-o",
        "fill.o",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    from aiocann.compiler import read_signatures

    assert set(read_signatures(tmp_path / "fill.o") or {}) == {"fill"}
    import anyio
    import numpy as np

    import aiocann

    async def main() -> list[int]:
        async with aiocann.Device(0) as dev, dev.stream() as s:
            k = (await dev.load_binary_data((tmp_path / "fill.o").read_bytes())).function("fill")
            out = await s.upload(np.zeros(2, np.int32))
            await aiocann.launch(k, await k.args().ptr(out), blocks=2)
            return (await s.download(out)).tolist()

    assert anyio.run(main) == [42, 42]


def test_cc_exit_codes_and_diagnostics(tmp_path):
    (tmp_path / "bad.cpp").write_text(
        '#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void k()\n{\n    oops;\n}\n'
    )
    r = run("cc", "bad.cpp", "-o", "bad.o", cwd=tmp_path)
    assert r.returncode == 1 and "bad.cpp:4: error:" in r.stderr, r.stderr
    assert not (tmp_path / "bad.o").exists()
    for args in (
        ("bad.cpp",),
        ("-o", "x.o"),
        ("--bogus", "bad.cpp", "-o", "x.o"),
        ("--npu-arch=2201", "bad.cpp", "-o", "x"),
    ):
        r = run("cc", *args, cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.startswith("usage: python -m aiocann cc"), (args, r.stderr)
    r = run("cc", "missing.cpp", "-o", "x.o", cwd=tmp_path)
    assert r.returncode == 1 and "missing.cpp" in r.stderr


TU_KERNEL = r"""
#include "kernel_operator.h"
namespace {
struct Op {  // the same helper name in both files, as the samples' KernelAdd: each file its own
    __aicore__ inline int32_t Value() const { return VALUE; }
};
}
extern "C" __global__ __aicore__ void NAME(__gm__ int32_t *out) { out[GetBlockIdx()] = Op().Value(); }
int Launch_NAME(void *stream, int32_t *out) { return NAME<<<1, nullptr, stream>>>(out); }
"""


def test_cc_compiles_several_sources_into_one_binary(tmp_path):
    """As ascendc_fatbin_library() passes its sources: each its own translation unit, one kernel
    binary with every kernel; with -c, one host object with every wrapper."""
    (tmp_path / "a.cpp").write_text(TU_KERNEL.replace("NAME", "fill_a").replace("VALUE", "1"))
    (tmp_path / "b.cpp").write_text(TU_KERNEL.replace("NAME", "fill_b").replace("VALUE", "2"))
    r = run("cc", "a.cpp", "b.cpp", "-o", "ab.o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    from aiocann.compiler import read_signatures

    assert set(read_signatures(tmp_path / "ab.o") or {}) == {"fill_a", "fill_b"}
    r = run("cc", "-c", "a.cpp", "b.cpp", "-o", "host.o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    symbols = subprocess.run(["nm", str(tmp_path / "host.o")], capture_output=True, text=True, check=True).stdout
    assert "_Z13Launch_fill_aPvPi" in symbols and "_Z13Launch_fill_bPvPi" in symbols
    (tmp_path / "main.cpp").write_text(
        '#include <cstdio>\n#include "acl/acl.h"\n'
        "int Launch_fill_a(void *, int *);\nint Launch_fill_b(void *, int *);\n"
        "int main() { aclInit(nullptr); aclrtSetDevice(0); void *d; aclrtMalloc(&d, 8, ACL_MEM_MALLOC_HUGE_FIRST);\n"
        "  int a = Launch_fill_a(nullptr, (int *)d), b = Launch_fill_b(nullptr, (int *)d + 1);\n"
        "  aclrtSynchronizeDevice(); int h[2]; aclrtMemcpy(h, 8, d, 8, ACL_MEMCPY_DEVICE_TO_HOST);\n"
        '  printf("%d %d %d %d\\n", a, b, h[0], h[1]); return 0; }\n'
    )
    from aiocann.compiler import include_dir, library_path

    lib = library_path()
    subprocess.run(
        [
            "g++",
            "-o",
            "main",
            "main.cpp",
            "host.o",
            f"-I{include_dir()}",
            f"-L{lib.parent}",
            f"-l:{lib.name}",
            f"-Wl,-rpath,{lib.parent}",
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["0", "0", "1", "2"], out.stderr
    (tmp_path / "b.cpp").write_text(TU_KERNEL.replace("NAME", "fill_b").replace("VALUE", "nope"))
    r = run("cc", "a.cpp", "b.cpp", "-o", "ab.o", cwd=tmp_path)
    assert r.returncode == 1 and "b.cpp:5: error:" in r.stderr, r.stderr  # each file's own lines
