"""A short soak (the long one is benchmarks/soak.py): every Completion resolves exactly once
with the right outcome, including failing launches, and nothing leaks (issue 6)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from soak import soak  # noqa: E402


def test_short_soak_two_devices_eight_streams():
    r = soak(launches=24_000, devices=2, streams=4, fail_rate=2e-3)
    assert r["wrong_outcomes"] == 0
    assert r["resolved"] == r["launches"] >= 24_000
    assert r["injected_faults"] > 0 and r["failed_as_expected"] >= r["injected_faults"]
    assert r["streams_replaced"] == r["injected_faults"]
    assert r["sampled_and_verified"] > 0
    assert r["rss_growth_mb"] < 50
    assert r["threads_before_after"][0] == r["threads_before_after"][1]
    assert r["fds_before_after"][0] == r["fds_before_after"][1]
    workers, pool_size = r["stream_workers_and_pool_size"]
    assert 0 < workers <= pool_size
