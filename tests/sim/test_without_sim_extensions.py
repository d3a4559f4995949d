"""The async core's failure reporting on a runtime that has only the real ACL API: the
simulator built with every simulator-only export (``aclsim*``) hidden, loaded as a real CANN
library would be (``AIOCANN_ACL_LIBRARY``), runs the fault tests of the async core, the native
completion queue and the failure model. So nothing on the completion path depends on a symbol
the real runtime lacks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_sim_c import SIM_CFLAGS, SIM_SOURCES, compiler

from aiocann.compiler import library_path

ROOT = Path(__file__).resolve().parents[2]

FAULT_TESTS = [
    "tests/core/test_async_stream.py::test_device_fault_fails_completions_and_is_raised_at_exit",
    "tests/core/test_async_stream.py::test_synchronize_raises_stream_error",
    "tests/core/test_async_launch.py::test_batch_schedule_and_timeout_config",
    "tests/sim/test_callback.py::test_native_completion_queue_fails_exactly_the_faulting_launch",
    "tests/sim/test_failure_model.py",
    "tests/tools/test_server.py::test_a_failed_batch_fails_only_its_requests_and_the_lane_recovers",
]


@pytest.fixture(scope="session")
def real_api_only_library(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("realapi")
    nm = subprocess.run(["nm", "-D", "--defined-only", str(library_path())], capture_output=True, text=True, check=True)
    names = sorted({line.split()[-1] for line in nm.stdout.splitlines() if line.split()[-1].startswith("acl")})
    real = [n for n in names if not n.startswith("aclsim")]
    assert len(real) < len(names), "the simulator's own exports were expected"
    script = out / "real_api.map"
    script.write_text("{\n  global:\n" + "".join(f"    {n};\n" for n in real) + "  local:\n    *;\n};\n")
    lib = out / "libascendcl.so"
    build = subprocess.run(
        [compiler(), *SIM_CFLAGS, "-fPIC", "-shared", f"-I{ROOT / 'native' / 'include'}",
         f"-I{ROOT / 'native' / 'sim'}", f"-I{ROOT / 'native' / 'common'}", *map(str, SIM_SOURCES),
         f"-Wl,--version-script={script}", "-Wl,-Bsymbolic", "-o", str(lib), "-lpthread", "-ldl"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    exported = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True)
    assert "aclsim" not in exported.stdout
    return lib


@pytest.mark.slow
def test_fault_tests_pass_with_the_simulator_extensions_hidden(real_api_only_library):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIOCANN_")}
    env.update(AIOCANN_ACL_LIBRARY=str(real_api_only_library), AIOCANN_BACKEND="cann")
    check = [sys.executable, "-c", "import aiocann, aiocann._lib as l; print(aiocann.backend()); "
             "assert not l.lib.aiocann_has_function(b'aclsimTraceStart')"]  # fmt: skip
    probe = subprocess.run(check, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert probe.returncode == 0, probe.stdout + probe.stderr
    assert str(real_api_only_library) in probe.stdout
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *FAULT_TESTS],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout
