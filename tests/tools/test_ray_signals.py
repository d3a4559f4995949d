"""examples/ray_serve.py stopped by a signal, as a terminal or an operator sends it (issue 20):
``python examples/ray_serve.py --replicas 2`` starts a local Ray cluster of its own and serves;
then Ctrl-C -- SIGINT to the whole foreground process group -- or SIGTERM to that group. Each
time the driver drains the replicas, stops its cluster and exits 0 within seconds, and no
process of that cluster is left.

Before the fix the cluster was in the driver's process group, so the terminal's Ctrl-C killed
Ray's own processes under the driver, which then hung in its drain (still running after 60 s).
The driver runs here in a session of its own, as a shell's foreground job has a process group
of its own, so that a signal to "the group" reaches the driver and whatever shares its group,
and nothing else.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from examples import ROOT, load_example

if importlib.util.find_spec("ray") is None:  # the test extra installs it (ray[serve])
    pytest.skip("ray[serve] is not installed: pip install -e '.[test]'", allow_module_level=True)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

DRIVER = ROOT / "examples" / "ray_serve.py"
IN_DIM = 64
START_S = 150  # a cold cluster, the replicas' environments and their devices, on a loaded machine
STOP_S = 30  # drain, Serve's shutdown and the cluster's: seconds (about 5 on an idle machine)

ray_serve = load_example("ray_serve")


def _cluster_processes(temp_dir: str) -> list[int]:
    return ray_serve._processes_mentioning(temp_dir)  # every process of that cluster names its temp dir


# SIGTERM to the driver alone takes the same path as to the group (the driver's handler, then
# the same drain and stop); it is left out to keep the suite's time (each case starts a cluster,
# about 50 s here): tests/tools/test_ray_serve.py sends it to a driver of a running cluster.
@pytest.mark.parametrize("how", ["Ctrl-C to the group", "SIGTERM to the group"])
def test_a_signal_drains_the_replicas_and_stops_the_local_cluster(tmp_path: Path, how: str):
    port = ray_serve.free_ports(1)[0]
    log_path = tmp_path / "driver.log"
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN")}
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, str(DRIVER), "--replicas", "2", "--port", str(port), "--in-dim", str(IN_DIM)],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env=env,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
    temp_dir = None
    try:
        deadline = time.monotonic() + START_S
        while "serving on" not in log_path.read_text(errors="replace"):
            text = log_path.read_text(errors="replace")
            if temp_dir is None and "(temp dir " in text:
                temp_dir = text.split("(temp dir ", 1)[1].split(")", 1)[0]
            assert proc.poll() is None and time.monotonic() < deadline, f"the driver did not start:\n{text}"
            time.sleep(0.2)
        text = log_path.read_text(errors="replace")
        temp_dir = text.split("(temp dir ", 1)[1].split(")", 1)[0]
        assert _cluster_processes(temp_dir), "the local cluster's processes are not visible"
        row = [0.5] * IN_DIM
        r = httpx.post(f"http://127.0.0.1:{port}/infer", json={"inputs": row}, timeout=30)
        assert r.status_code == 200, r.text  # it serves

        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT if how.startswith("Ctrl-C") else signal.SIGTERM)  # as a terminal does
        try:
            rc = proc.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {STOP_S} s after {how}:\n{log_path.read_text(errors='replace')[-4000:]}")
        took = time.monotonic() - t0
        text = log_path.read_text(errors="replace")
        assert rc == 0, text[-4000:]
        assert "drained in" in text and "stopped it in" in text, text[-4000:]
        print(f"{how}: the driver drained, stopped its cluster and exited in {took:.1f} s")
        deadline = time.monotonic() + 10
        while (left := _cluster_processes(temp_dir)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not left, f"processes of the driver's cluster outlived it: {left}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # its own group: only what this test started
            proc.wait(timeout=10)
        if temp_dir is not None:
            for pid in _cluster_processes(temp_dir):  # by pid, only that cluster's
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
