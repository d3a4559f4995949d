"""The completion queue and report thread as a C program: native/tests/cq_test.c, built from
the extension's own sources (completion_queue.c, fastpath.c, loader.c) and loading the runtime
with aiocann_load() as the extension does. It runs as built by the compiler, and -- marked
like the simulator's sanitizer tests -- with ThreadSanitizer and AddressSanitizer, against the
simulator built with the same sanitizer (issue 12, point 10)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_sim_c import SANITIZERS, SIM_CFLAGS, SIM_SOURCES, compiler

from aiocann.compiler import library_path

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "native"
CQ_TEST = NATIVE / "tests" / "cq_test.c"
# The helper sources native/build_ffi.py builds into aiocann._native, with its flags.
CQ_SOURCES = [NATIVE / "completion_queue.c", NATIVE / "loader.c", NATIVE / "fastpath.c"]
CQ_CFLAGS = ["-std=gnu11", "-O1", "-g", "-Wall", "-Wextra", "-Werror"]
INCLUDES = [f"-I{NATIVE / 'include'}", f"-I{NATIVE}", f"-I{NATIVE / 'common'}"]


def build_cq_test(exe: Path, flags: list[str]) -> list[str]:
    return [
        compiler(),
        *CQ_CFLAGS,
        *flags,
        *INCLUDES,
        str(CQ_TEST),
        *map(str, CQ_SOURCES),
        "-o",
        str(exe),
        "-lpthread",
        "-ldl",
    ]


def run_cq_test(exe: Path, runtime: Path, kernels: Path, env: dict[str, str] | None = None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("AIOCANN_SIM_")}
    e.update(env or {})
    return subprocess.run([str(exe), str(runtime), str(kernels)], capture_output=True, text=True, timeout=180, env=e)


def test_completion_queue_c_program(tmp_path, test_kernels_path):
    exe = tmp_path / "cq_test"
    build = subprocess.run(build_cq_test(exe, []), capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    proc = run_cq_test(exe, library_path(), test_kernels_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cq_test: all checks passed" in proc.stdout


@pytest.fixture(scope="module")
def cq_sanitizer_builds(tmp_path_factory) -> dict[str, tuple[subprocess.Popen[str], Path, Path]]:
    """Per sanitizer: the simulator as a shared library and cq_test, both instrumented; both
    sanitizers build at once (the machine has 2 cores), and tests wait for theirs."""
    out = tmp_path_factory.mktemp("cq_sanitizers")
    builds = {}
    for name, (flags, _) in SANITIZERS.items():
        sim, exe = out / f"libascendcl_{name}.so", out / f"cq_test_{name}"
        sim_cmd = [
            compiler(),
            *SIM_CFLAGS,
            *flags,
            "-fPIC",
            "-shared",
            f"-I{NATIVE / 'include'}",
            f"-I{NATIVE / 'sim'}",
            f"-I{NATIVE / 'common'}",
            *map(str, SIM_SOURCES),
            "-o",
            str(sim),
            "-lpthread",
            "-ldl",
        ]
        script = " && ".join(subprocess.list2cmdline(c) for c in (sim_cmd, build_cq_test(exe, flags)))
        proc = subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        builds[name] = (proc, sim, exe)
    yield builds
    for proc, _, _ in builds.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.sanitizer
@pytest.mark.parametrize("sanitizer", list(SANITIZERS))
def test_completion_queue_runs_clean_under_sanitizer(cq_sanitizer_builds, test_kernels_path, sanitizer):
    proc, sim, exe = cq_sanitizer_builds[sanitizer]
    try:
        output, _ = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"the {sanitizer} sanitizer build did not finish in 240 s")
    if proc.returncode != 0 and "sanitize" in output and ("cannot find" in output or "unrecognized" in output):
        pytest.skip(f"the compiler has no {sanitizer} sanitizer runtime: {output.strip()}")
    assert proc.returncode == 0, output
    env = {"TSAN_OPTIONS": "halt_on_error=0 second_deadlock_stack=1", "ASAN_OPTIONS": "detect_leaks=1"}
    run = run_cq_test(exe, sim, test_kernels_path, env)
    report = SANITIZERS[sanitizer][1]
    assert report not in run.stderr, run.stderr
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cq_test: all checks passed" in run.stdout
