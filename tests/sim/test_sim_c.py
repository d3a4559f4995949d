"""The simulator as a C library: native/tests/sim_test.c (the seed flow, then many streams,
events and callbacks processed by a subscribed thread) and native/tests/sim_mem_test.c (the
memory family of issue 11: virtual memory, shareable handles and IPC keys across two processes,
value write/wait, host registration) linked against the standalone libascendcl.so exactly as
an ACL program would be; and the simulator's own sources built with ThreadSanitizer and
AddressSanitizer, running the same programs clean."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from aiocann.compiler import include_dir, library_path

ROOT = Path(__file__).resolve().parents[2]
SIM_TEST = ROOT / "native" / "tests" / "sim_test.c"
# Every C test program: its source and the line it prints when every check passed.
C_TESTS = {
    "sim_test": (SIM_TEST, "sim_test: all checks passed"),
    "sim_mem_test": (ROOT / "native" / "tests" / "sim_mem_test.c", "sim_mem_test: all checks passed"),
}
# The sources setup.py builds the simulator from.
SIM_SOURCES = sorted((ROOT / "native" / "sim").glob("*.c")) + [ROOT / "native" / "common" / "host_probe.c"]
# The flags setup.py builds the simulator with.
SIM_CFLAGS = ["-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden"]
SANITIZERS = {
    "thread": (["-fsanitize=thread"], "WARNING: ThreadSanitizer"),
    "address": (["-fsanitize=address", "-fno-omit-frame-pointer"], "Sanitizer"),  # ASan and LSan
}


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    return cc


def run_sim_test(exe: Path, kernel: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("AIOCANN_SIM_")}
    e.update(env or {})
    return subprocess.run([str(exe), str(kernel)], capture_output=True, text=True, timeout=90, env=e)


@pytest.mark.parametrize("program", list(C_TESTS))
def test_c_program_linked_against_the_standalone_library(tmp_path, vector_add_path, program):
    lib = library_path()
    source, passed = C_TESTS[program]
    exe = tmp_path / program
    build = subprocess.run(
        [
            compiler(),
            "-std=c11",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{include_dir()}",
            str(source),
            "-o",
            str(exe),
            f"-L{lib.parent}",
            "-l:libascendcl.so",
            f"-Wl,-rpath,{lib.parent}",
            "-lpthread",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert build.returncode == 0, build.stderr
    needed = subprocess.run(["ldd", str(exe)], capture_output=True, text=True).stdout
    assert str(lib.resolve()) in needed or str(lib) in needed  # the ACL API comes from the library
    proc = run_sim_test(exe, vector_add_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert passed in proc.stdout


@pytest.fixture(scope="module")
def sanitizer_builds(tmp_path_factory) -> dict[str, tuple[subprocess.Popen[str], Path]]:
    """Starts both sanitizer builds at once (the machine has 2 cores); tests wait for theirs.
    Each compiles the simulator's sources once and links every C test program against them."""
    out = tmp_path_factory.mktemp("sanitizers")
    builds = {}
    for name, (flags, _) in SANITIZERS.items():
        objs = out / name
        objs.mkdir()
        cc = [compiler(), *SIM_CFLAGS, *flags]
        includes = [f"-I{ROOT / 'native' / d}" for d in ("include", "sim", "common")]
        steps = [[*cc, *includes, "-c", *map(str, SIM_SOURCES)]]
        for program, (source, _) in C_TESTS.items():
            steps.append(
                [*cc, *includes, "*.o", str(source), "-o", str(out / f"{program}_{name}"), "-lpthread", "-ldl", "-lm"]
            )
        script = " && ".join(" ".join(shlex.quote(a) if a != "*.o" else a for a in step) for step in steps)
        builds[name] = (
            subprocess.Popen(
                ["sh", "-c", script], cwd=objs, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            ),
            out,
        )
    yield builds
    for proc, _ in builds.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.sanitizer
@pytest.mark.parametrize("program", list(C_TESTS))
@pytest.mark.parametrize("sanitizer", list(SANITIZERS))
def test_simulator_runs_clean_under_sanitizer(sanitizer_builds, vector_add_path, sanitizer, program):
    proc, out = sanitizer_builds[sanitizer]
    exe = out / f"{program}_{sanitizer}"
    log = out / f"{sanitizer}.log"  # the build's output, kept for the other programs' tests
    if not log.exists():
        try:
            output, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"the {sanitizer} sanitizer build did not finish in 120 s")
        log.write_text(output)
    output = log.read_text()
    if proc.returncode != 0 and "sanitize" in output and ("cannot find" in output or "unrecognized" in output):
        pytest.skip(f"the compiler has no {sanitizer} sanitizer runtime: {output.strip()}")
    assert proc.returncode == 0, output
    env = {"TSAN_OPTIONS": "halt_on_error=0 second_deadlock_stack=1", "ASAN_OPTIONS": "detect_leaks=1"}
    run = run_sim_test(exe, vector_add_path, env)
    report = SANITIZERS[sanitizer][1]
    assert report not in run.stderr, run.stderr
    assert run.returncode == 0, run.stdout + run.stderr
    assert C_TESTS[program][1] in run.stdout
