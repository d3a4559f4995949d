"""examples/pipeline.py: every batch of a multi-stream, double-buffered run verified against
numpy, overlap of copies with kernels measured from device timestamps, and the overlap
arithmetic itself."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from examples import ROOT

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def _load(name: str):
    path = ROOT / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"aiocann_example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


pipeline = _load("pipeline")


@pytest.fixture(scope="module", autouse=True)
def _kernels_built() -> dict[str, Path]:
    return pipeline.build_kernels()


async def test_every_batch_verified_and_copies_overlap_kernels():
    calls: list[tuple[int, int]] = []
    # Heavier kernels than the default (hidden=256 makes the matmul dominate) and few batches:
    # each upload of batch b+1 is enqueued while the kernels of batch b are still running.
    r = await pipeline.run_pipeline(
        streams=3, batches=6, batch_size=128, cols=256, hidden=256, progress=lambda d, t: calls.append((d, t))
    )
    assert r["mismatches"] == []
    assert r["batches"] == 18 and r["verified"] == 18
    assert calls == [(i, 18) for i in range(1, 19)]
    assert r["wall_s"] > 0 and r["batches_per_s"] == pytest.approx(18 / r["wall_s"])
    assert r["upload_busy_ms"] > 0 and r["kernel_busy_ms"] > 0
    assert r["device_span_ms"] >= r["kernel_busy_ms"]
    # The measured overlap: some upload time ran while kernels of another batch were running.
    assert 0.0 < r["upload_overlap"] <= 1.0, r
    assert r["concurrency"] > 0.0
    summary = pipeline.format_summary(r)
    assert "18/18 batches" in summary and "MISMATCHED" not in summary


async def test_a_wrong_result_is_reported(monkeypatch):
    # The check is real: a reference that disagrees with the device flags every batch.
    real = pipeline.reference

    def off_by_a_bit(x, y, w, u):
        s, v = real(x, y, w, u)
        return s, v + 1e-3 * (np.abs(v) + 1)

    monkeypatch.setattr(pipeline, "reference", off_by_a_bit)
    r = await pipeline.run_pipeline(streams=2, batches=2, batch_size=16, cols=32, hidden=8)
    assert r["verified"] == 0
    assert sorted((p, b) for p, b, _ in r["mismatches"]) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert all("s @ W @ u differs" in what for _, _, what in r["mismatches"])
    assert "4 MISMATCHED" in pipeline.format_summary(r)


async def test_odd_shapes_one_stream():
    # Rows not a multiple of the 8 blocks, more blocks than rows, odd column counts.
    for batch_size, cols, hidden in ((3, 5, 7), (37, 129, 3)):
        r = await pipeline.run_pipeline(streams=1, batches=3, batch_size=batch_size, cols=cols, hidden=hidden)
        assert r["mismatches"] == [] and r["verified"] == 3


def test_bad_arguments_are_refused():
    import anyio

    with pytest.raises(ValueError, match="streams must be >= 1"):
        anyio.run(lambda: pipeline.run_pipeline(streams=0))


def test_overlap_figures():
    ms = 1_000  # spans are in device microseconds (Event.timestamp_us)
    uploads = [(0, 2 * ms), (10 * ms, 12 * ms)]
    kernels = [(1 * ms, 5 * ms), (4 * ms, 11 * ms)]  # overlapping kernel spans merge: [1, 11]
    f = pipeline.overlap_figures(uploads, kernels)
    # Upload time 4 ms, of which [1, 2] and [10, 11] ran under kernels: 2 ms.
    assert f["upload_overlap"] == pytest.approx(0.5)
    assert f["upload_busy_ms"] == pytest.approx(4.0) and f["kernel_busy_ms"] == pytest.approx(10.0)
    # Stage time 2 + 2 + 4 + 7 = 15 ms over a 12 ms span.
    assert f["concurrency"] == pytest.approx(15 / 12) and f["device_span_ms"] == pytest.approx(12.0)
    assert pipeline.overlap_figures([(0, ms)], [(2 * ms, 3 * ms)])["upload_overlap"] == 0.0


def test_main_prints_the_summary(capsys):
    assert pipeline.main(["--streams", "2", "--batches", "3", "--batch-size", "32", "--cols", "64"]) == 0
    out = capsys.readouterr().out
    assert "verified     6/6 batches against numpy" in out
    assert "of upload time ran under kernels" in out
