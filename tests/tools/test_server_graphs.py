"""The inference engine (examples/inference.py) serves by replaying captured graphs (issue 13,
point 4): one replay per batch, as a trace shows; every batch size up to max_batch answered
exactly as the same kernels launched one by one answer it; a failing replay fails the requests
of its batch only, and every lane goes on serving. And the server benchmark's baseline (the same
app answering with numpy) and the benchmark itself (benchmarks/bench_server.py) run."""

from __future__ import annotations

import subprocess
import sys

import anyio
import httpx
import numpy as np
import pytest

import aiocann as ac
from examples import ROOT, load_example

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

IN_DIM, OUT_DIM, SEED = 64, 10, 0
inference = load_example("inference")
W, B = inference.model_weights(IN_DIM, OUT_DIM, SEED)


def _app(**overrides):
    config = {"batch_window_ms": 0, "in_dim": IN_DIM, "out_dim": OUT_DIM, "seed": SEED, **overrides}
    return inference.create_app(**config)


async def _eager(dev: ac.Device, x: np.ndarray) -> np.ndarray:
    """The model on rows x as the engine ran it before it captured graphs: an upload, the two
    kernels launched one by one with their tiling in placeholders, a download."""
    paths = await anyio.to_thread.run_sync(inference.build_kernels)
    matmul = (await dev.load_binary(paths["matmul"])).function("matmul")
    softmax = (await dev.load_binary(paths["softmax"])).function("softmax_rows")
    rows = len(x)
    async with dev.stream() as s:
        wt, bias, xd = await s.upload(np.ascontiguousarray(W.T)), await s.upload(B), await s.upload(x)
        logits, probs = s.empty((rows, OUT_DIM), np.float32), s.empty((rows, OUT_DIM), np.float32)
        mm = (
            await matmul.args()
            .ptr(xd)
            .ptr(wt)
            .ptr(bias)
            .ptr(logits)
            .placeholder(np.array([rows, OUT_DIM, IN_DIM, 0], np.uint32))
        )
        sm = await softmax.args().ptr(logits).ptr(probs).placeholder(np.array([rows, OUT_DIM], np.uint32))
        blocks = min(inference.BLOCKS, rows)
        await ac.launch(matmul, mm, blocks=blocks)
        await ac.launch(softmax, sm, blocks=blocks)
        return await s.download(probs)


async def test_every_batch_is_one_graph_replay(tmp_path):
    app = _app(max_batch=8, streams=2)
    rng = np.random.default_rng(20)
    xs = [rng.standard_normal((1 + i % 4, IN_DIM)).astype(np.float32) for i in range(10)]
    with anyio.fail_after(30):
        async with app.router.lifespan_context(app):
            engine = app.state.engine
            async with ac.trace(tmp_path / "server.json") as tr:
                requests = [engine.submit(x) for x in xs]
                for r in requests:
                    await r.done.wait()
            stats = engine.health()["stats"]
    for r, x in zip(requests, xs, strict=True):
        assert r.error is None, r.error
        np.testing.assert_allclose(r.result, inference.reference(x, W, B), rtol=1e-5, atol=1e-6)
    assert stats["graph_replays"] == stats["batches"] >= 2 and stats["failed_batches"] == 0
    # On the host, each batch resolved exactly one Completion: its replay. Nothing else was
    # submitted while serving -- no launch, no copy of its own.
    host = [e for e in tr.events if e.get("cat") == "completion" and e["ph"] == "b"]
    assert [e["name"] for e in host] == ["graph"] * stats["batches"]
    # On the device, each replay ran the captured work -- both kernels, the three uploads and
    # the download -- under the replay's one sequence number, followed by one completion
    # callback.
    tasks = [e for e in tr.events if e.get("cat") in ("kernel", "stream")]
    device = [e for e in tasks if e["name"] != "callback"]
    assert len(tasks) - len(device) == stats["batches"]
    kernels = [e["name"] for e in device if e["cat"] == "kernel"]
    assert kernels.count("matmul") == kernels.count("softmax_rows") == stats["batches"]
    copies = [e for e in device if e["name"].startswith("memcpy")]
    assert len(copies) == 4 * stats["batches"]
    assert len({(e["tid"], e["args"]["seq"]) for e in device}) == stats["batches"]


async def test_every_batch_size_matches_the_kernels_launched_one_by_one():
    # One lane, and each request alone in its batch: sizes 1..max_batch in an order where a
    # small batch follows a larger one, whose rows stay in the lane's buffers (the tiling keeps
    # the kernels off them). The answers are bit for bit those of eager launches.
    max_batch = 8
    app = _app(max_batch=max_batch, streams=1)
    rng = np.random.default_rng(21)
    sizes = [max_batch, 1, 5, 2, 7, 3, 6, 4, max_batch, 1]
    with anyio.fail_after(30):
        async with app.router.lifespan_context(app):
            engine, dev = app.state.engine, app.state.device
            for rows in sizes:
                x = rng.standard_normal((rows, IN_DIM)).astype(np.float32)
                req = engine.submit(x)
                await req.done.wait()
                assert req.error is None, req.error
                assert req.batch["rows"] == rows and req.result.shape == (rows, OUT_DIM)
                np.testing.assert_array_equal(req.result, await _eager(dev, x))
                np.testing.assert_allclose(req.result, inference.reference(x, W, B), rtol=1e-5, atol=1e-6)
            stats = engine.health()["stats"]
    assert stats["batch_sizes"] == {str(n): sizes.count(n) for n in sorted(set(sizes))}
    assert stats["graph_replays"] == len(sizes)


async def test_a_failing_replay_fails_its_batch_only_and_every_lane_keeps_serving(tmp_path):
    # A real device fault in one replay (the matmul told its inner dimension is 2**24 reads past
    # its input into the guard page) while the other lane serves too: exactly the requests of
    # that batch fail, with the kernel's error; then both lanes serve correct answers again.
    app = _app(max_batch=4, streams=2)
    rng = np.random.default_rng(22)
    with anyio.fail_after(30):
        async with app.router.lifespan_context(app):
            engine = app.state.engine
            good_tiling, calls = engine._mm_tiling, []

            def faulty_once(rows: int) -> np.ndarray:  # the first batch to reach the device faults
                calls.append(rows)
                return np.array([rows, OUT_DIM, 1 << 24, 0], np.uint32) if len(calls) == 1 else good_tiling(rows)

            engine._mm_tiling = faulty_once
            # Requests of max_batch rows: one request per batch.
            xs = [rng.standard_normal((4, IN_DIM)).astype(np.float32) for _ in range(4)]
            first = [engine.submit(x) for x in xs]
            for r in first:
                await r.done.wait()
            later = [rng.standard_normal((4, IN_DIM)).astype(np.float32) for _ in range(6)]
            async with ac.trace() as tr:
                again = [engine.submit(x) for x in later]
                for r in again:
                    await r.done.wait()
            stats = engine.health()["stats"]
    bad = [r for r in first if r.error is not None]
    assert len(bad) == 1 and bad[0].result is None
    assert "KernelFaultError" in bad[0].error and "matmul" in bad[0].error and "replay" in bad[0].error
    for r, x in [*zip(first, xs, strict=True), *zip(again, later, strict=True)]:
        if r is not bad[0]:
            assert r.error is None, r.error
            np.testing.assert_allclose(r.result, inference.reference(x, W, B), rtol=1e-5, atol=1e-6)
    assert stats["failed_batches"] == 1 and stats["graph_replays"] == stats["batches"] == 10
    # After the failure both lanes -- the one that got a fresh stream too -- replayed batches.
    replays = [e for e in tr.events if e.get("cat") == "completion" and e["ph"] == "b"]
    assert len(replays) == 6 and len({e["tid"] for e in replays}) == 2


async def test_a_faulting_replay_answers_its_batchs_requests_500_over_http():
    # Through the app's HTTP face: the runtime reports the fault on the graph's own stream and
    # captured task, and the batch it replayed for -- several requests gathered into one --
    # answers 500 with the kernel's error; the batches before and after answer 200.
    app = _app(max_batch=8, streams=1, batch_window_ms=50)
    rng = np.random.default_rng(24)
    with anyio.fail_after(30):
        async with app.router.lifespan_context(app):
            engine = app.state.engine
            good_tiling, calls = engine._mm_tiling, []

            def faulty_second(rows: int) -> np.ndarray:  # the second batch to reach the device faults
                calls.append(rows)
                return np.array([rows, OUT_DIM, 1 << 24, 0], np.uint32) if len(calls) == 2 else good_tiling(rows)

            engine._mm_tiling = faulty_second
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://npu") as client:

                async def post(x: np.ndarray) -> httpx.Response:
                    return await client.post("/infer", json={"inputs": x.tolist()})

                rounds = []
                for _ in range(3):  # three rounds of three requests at once: a batch each, as a rule
                    xs = [rng.standard_normal((2, IN_DIM)).astype(np.float32) for _ in range(3)]
                    answers: list[httpx.Response] = [None] * 3  # type: ignore[list-item]

                    async def one(i: int, x: np.ndarray, answers: list[httpx.Response] = answers) -> None:
                        answers[i] = await post(x)

                    async with anyio.create_task_group() as tg:
                        for i, x in enumerate(xs):
                            tg.start_soon(one, i, x)
                    rounds.append((xs, answers))
            stats = engine.health()["stats"]
    answered = [(x, r) for xs, answers in rounds for x, r in zip(xs, answers, strict=True)]
    failed = [r for _, r in answered if r.status_code != 200]
    assert failed and all(r.status_code == 500 for r in failed), [r.text for r in failed]
    (bad_batch,) = {r.json()["batch"]["id"] for r in failed}  # one batch failed ...
    assert all("KernelFaultError" in r.json()["error"] and "replay" in r.json()["error"] for r in failed)
    assert len(failed) == failed[0].json()["batch"]["requests"]  # ... every one of its requests
    for x, r in answered:
        if r.status_code == 200:
            assert r.json()["batch"]["id"] != bad_batch
            np.testing.assert_allclose(r.json()["outputs"], inference.reference(x, W, B), rtol=1e-5, atol=1e-6)
    assert stats["failed_batches"] == 1 and stats["graph_replays"] == stats["batches"] >= 3


async def test_the_numpy_app_answers_the_same_without_a_device():
    # The benchmark's baseline (server.py --numpy): the same app, each request answered at once
    # with numpy on the host; no Device is opened.
    app = _app(numpy=True, max_batch=4)
    x = np.random.default_rng(23).standard_normal((3, IN_DIM)).astype(np.float32)
    with anyio.fail_after(30):
        async with app.router.lifespan_context(app):
            assert app.state.device is None
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://numpy") as client:
                r = await client.post("/infer", json={"inputs": x.tolist()})
                too_many = await client.post("/infer", json={"inputs": np.zeros((5, IN_DIM)).tolist()})
                health = (await client.get("/health")).json()
    assert r.status_code == 200, r.text
    np.testing.assert_allclose(r.json()["outputs"], inference.reference(x, W, B), rtol=1e-6)
    assert r.json()["batch"] == {"id": 0, "rows": 3, "requests": 1}
    assert too_many.status_code == 413  # the same checks as the device's app
    assert health["device"] is None and health["stats"]["requests"] == 1 and health["stats"]["graph_replays"] == 0
    assert app.state.final_health["status"] == "draining"


def test_the_server_benchmark_runs(tmp_path):
    # benchmarks/bench_server.py with tiny counts (python -m aiocann bench runs it in full): both
    # servers start, answer correctly under 64 connections, and stop.
    script = ROOT / "benchmarks" / "bench_server.py"
    r = subprocess.run(
        [sys.executable, str(script), "--seconds", "0.3", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "server 64 clients: example server (NPU, graphs)" in r.stdout and "numpy on the host" in r.stdout
    assert "graph replays for" in r.stdout
