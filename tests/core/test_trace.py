"""Timeline traces (issue 5): valid Chrome trace JSON with every launch, per-stream order, and
event waits consistent with their records."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import aiocann as ac

pytestmark = pytest.mark.anyio


async def test_trace_structure(tmp_path, test_kernels_path):
    path = tmp_path / "t.json"
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(test_kernels_path)).function("wait_us")
        async with ac.trace(path):
            async with dev.stream() as s1, dev.stream() as s2:
                out = dev.empty(8, np.int32)
                a = await k.args().ptr(out).u64(3000)
                for _ in range(3):
                    await ac.launch(k, a, blocks=4, stream=s1)
                await s1.upload(np.zeros(1000, np.float32))
                ev = await s1.record()
                s2.wait(ev)
                for _ in range(2):
                    await ac.launch(k, a, blocks=2, stream=s2)
    doc = json.loads(path.read_text())
    events = doc["traceEvents"]
    assert doc["otherData"]["device_records"] is True and doc["otherData"]["dropped_records"] == 0
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    kernels = [e for e in events if e.get("cat") == "kernel"]
    blocks = [e for e in events if e.get("cat") == "block"]
    assert len(kernels) == 5 and all(e["name"] == "wait_us" for e in kernels)
    assert len(blocks) == 3 * 4 + 2 * 2
    assert all(names[(e["pid"], e["tid"])].startswith("AI core") for e in blocks)
    # per stream: tasks in sequence order, never overlapping
    by_stream: dict[tuple[int, int], list[dict]] = {}
    for e in events:
        if e["ph"] == "X" and e.get("cat") in ("kernel", "stream"):
            by_stream.setdefault((e["pid"], e["tid"]), []).append(e)
    assert len(by_stream) == 2
    for lane in by_stream.values():
        lane.sort(key=lambda e: e["args"]["seq"])
        for a, b in zip(lane, lane[1:], strict=False):
            assert a["ts"] + a["dur"] <= b["ts"] + 1e-3
    # the wait on s2 ends no earlier than the record on s1 happened (within the record's span),
    # and s2's kernels all start after it
    record = next(e for e in events if e.get("name") == "event record")
    wait = next(e for e in events if e.get("name") == "event wait")
    assert wait["args"]["event"] == record["args"]["event"]
    assert wait["ts"] + wait["dur"] >= record["ts"]
    wait_lane = (wait["pid"], wait["tid"])
    assert all(k["ts"] >= record["ts"] for k in kernels if (k["pid"], k["tid"]) == wait_lane)
    # the host side: one completion span per submission, ends after begins
    begins = [e for e in events if e["ph"] == "b"]
    ends = {e["id"]: e for e in events if e["ph"] == "e"}
    assert len(begins) == 3 + 1 + 1 + 2
    assert sorted(b["name"] for b in begins) == ["event record", "upload"] + ["wait_us"] * 5  # their labels
    assert all(ends[b["id"]]["ts"] >= b["ts"] for b in begins)
    # and every block ran within its kernel's span
    for b in blocks:
        k_ = next(
            k
            for k in kernels
            if k["args"]["seq"] == b["args"]["seq"] and names[(k["pid"], k["tid"])] == b["args"]["stream"]
        )
        assert k_["ts"] - 1e-3 <= b["ts"] and b["ts"] + b["dur"] <= k_["ts"] + k_["dur"] + 1e-3


async def test_trace_misuse():
    t = ac.trace()
    with t:
        with pytest.raises(RuntimeError, match="already active"):
            ac.trace().start()
    with pytest.raises(RuntimeError, match="not active"):
        t.stop()


def test_environment_switch_traces_a_program(tmp_path, vector_add_path):
    path = tmp_path / "env.json"
    code = f"""
import anyio, numpy as np, aiocann as ac
async def main():
    async with ac.Device(0) as dev:
        add = (await dev.load_binary({str(vector_add_path)!r})).function("add_custom")
        async with dev.stream():
            x = np.ones(64, np.float32)
            z = dev.empty(64, np.float32)
            args = await add.args().array(x).array(x).ptr(z).placeholder(np.array([64, 0], np.uint32))
            await (await ac.launch(add, args, blocks=2))
anyio.run(main)
"""
    env = {**os.environ, "AIOCANN_TRACE": str(path)}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    doc = json.loads(path.read_text())
    assert [e["name"] for e in doc["traceEvents"] if e.get("cat") == "kernel"] == ["add_custom"]
