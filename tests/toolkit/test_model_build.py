"""Models built by stream binding, labels, stream switch and activation (issue 23), from C.

tests/toolkit/programs/model_build_c is a C program in the style of CANN's label and
model-building samples: built by CMake against `python -m aiocann toolkit`, it builds models on
persistent streams, runs them, and checks from what its kernels computed which branch each replay
took (native/sim/model_build.c, label.c, stream_switch.c), and every code of the bad input it
tries. CMake is needed (.ci/run installs it when the machine lacks it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed (.ci/run installs it)")


def _toolkit() -> Path:
    out = subprocess.run([sys.executable, "-m", "aiocann", "toolkit"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def _env(toolkit: Path) -> dict[str, str]:
    """The environment after `source set_env.sh`, as the samples' run.sh run."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ASCEND", "SOC_VERSION"))}
    script = f'set -euo pipefail; source "{toolkit}/set_env.sh"; env -0'
    out = subprocess.run(["bash", "-c", script], env=base, capture_output=True, check=True).stdout
    return dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)


@needs_cmake
def test_models_built_by_stream_binding_from_c(tmp_path: Path, test_kernels_path: Path) -> None:
    toolkit = _toolkit()
    env = _env(toolkit)
    build = tmp_path / "build"
    for cmd in (
        [
            "cmake",
            "-S",
            str(HERE / "programs" / "model_build_c"),
            "-B",
            str(build),
            f"-DASCEND_CANN_PACKAGE_PATH={toolkit}",
        ],
        ["cmake", "--build", str(build)],
    ):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
        assert p.returncode == 0, f"{' '.join(cmd)}:\n{p.stdout}\n{p.stderr}"
    p = subprocess.run(
        [str(build / "main"), str(test_kernels_path), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and "[SUCCESS]" in p.stdout, p.stdout + p.stderr
    # The dump is JSON: the trace events of the label model's one stream, in order.
    events = json.loads((tmp_path / "label_model.json").read_text())
    types = [e["args"]["Task Type"] for e in events]
    assert types == [
        "STREAM_LABEL_SWITCH_BY_INDEX",
        "KERNEL_AICORE",
        "LABEL_SET",
        "KERNEL_AICORE",
        "LABEL_SET",
        "KERNEL_AICORE",
        "MODEL_END_GRAPH",
    ]
    assert all(e["ph"] == "X" and e["tid"] == events[0]["tid"] for e in events)
    assert [e["args"]["Task Id"] for e in events] == list(range(7))
