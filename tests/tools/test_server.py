"""examples/server.py as a real process on loopback, driven by concurrent httpx clients: every
answer checked against numpy, dynamic batching, back-pressure (quick 503s under a slow model),
and draining on SIGTERM/SIGINT (every in-flight request answered, exit status 0)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import anyio
import httpx
import numpy as np
import pytest

from examples import ROOT, load_example

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SERVER = ROOT / "examples" / "server.py"
IN_DIM, OUT_DIM, SEED = 64, 10, 0


inference = load_example("inference")  # the model, the engine and the app; server.py drives them
W, B = inference.model_weights(IN_DIM, OUT_DIM, SEED)


def expected(x) -> np.ndarray:
    return inference.reference(np.asarray(x, np.float32), W, B)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``python examples/server.py`` on a free loopback port, its output in a log file."""

    def __init__(self, log_path: Path, *args: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(SERVER),
                "--port",
                str(self.port),
                "--in-dim",
                str(IN_DIM),
                "--out-dim",
                str(OUT_DIM),
                "--seed",
                str(SEED),
                *args,
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env=os.environ.copy(),
        )
        try:
            self._wait_healthy(timeout=30)
        except BaseException:
            self.kill()
            raise

    def _wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"server not healthy after {timeout} s:\n{self.log()}")

    def health(self) -> dict:
        r = httpx.get(self.url + "/health", timeout=5)
        assert r.status_code == 200
        return r.json()

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()  # by its pid: only the process this test started
            self.proc.wait(timeout=10)
        self._log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # One server for the tests that only send requests; its batch window is long enough that
    # 64 concurrent requests reliably share batches, short enough not to slow anything down.
    srv = ServerProcess(
        tmp_path_factory.mktemp("server") / "server.log",
        "--max-batch",
        "16",
        "--batch-window-ms",
        "10",
        "--streams",
        "2",
    )
    yield srv
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.proc.wait(timeout=20) == 0, srv.log()
    srv.kill()


async def _post(client: httpx.AsyncClient, url: str, inputs) -> tuple[httpx.Response, float]:
    t0 = time.monotonic()
    r = await client.post(url + "/infer", json={"inputs": inputs})
    return r, time.monotonic() - t0


async def _post_all(url: str, bodies: list, limit_s: float = 30.0) -> list[tuple[httpx.Response, float]]:
    """POST every body at once, each on its own connection; (response, seconds) in order."""
    results: list = [None] * len(bodies)
    limits = httpx.Limits(max_connections=len(bodies), max_keepalive_connections=len(bodies))
    async with httpx.AsyncClient(timeout=limit_s, limits=limits) as client:

        async def one(i: int) -> None:
            results[i] = await _post(client, url, bodies[i])

        with anyio.fail_after(limit_s):
            async with anyio.create_task_group() as tg:
                for i in range(len(bodies)):
                    tg.start_soon(one, i)
    return results


def _check_answer(r: httpx.Response, inputs) -> dict:
    assert r.status_code == 200, r.text
    body = r.json()
    got = np.asarray(body["outputs"])
    want = expected(np.atleast_2d(inputs))
    if np.ndim(inputs) == 1:
        want = want[0]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    return body["batch"]


# --------------------------------------------------------------------------- answers and batching


async def test_concurrent_requests_are_batched_and_each_gets_its_own_answer(server):
    rng = np.random.default_rng(5)
    before = server.health()["stats"]
    # 64 concurrent requests: single vectors, and some with 2 or 3 rows.
    bodies = []
    for i in range(64):
        rows = (1, 1, 2, 1, 3)[i % 5]
        x = rng.standard_normal((rows, IN_DIM)).astype(np.float32)
        bodies.append(x[0].tolist() if rows == 1 and i % 2 else x.tolist())
    results = await _post_all(server.url, bodies)

    per_batch: dict[int, list[int]] = defaultdict(list)
    batch_info: dict[int, dict] = {}
    for (r, _), inputs in zip(results, bodies, strict=True):
        info = _check_answer(r, inputs)
        per_batch[info["id"]].append(np.atleast_2d(inputs).shape[0])
        assert batch_info.setdefault(info["id"], info) == info  # one description per batch
    # Each batch's reported rows and request count match the requests that said they were in it
    # (the tests share this server, but run one at a time).
    for batch_id, rows in per_batch.items():
        assert batch_info[batch_id]["rows"] == sum(rows) <= 16
        assert batch_info[batch_id]["requests"] == len(rows)
    total_rows = sum(sum(r) for r in per_batch.values())
    assert len(per_batch) < 64, "no two concurrent requests ever shared a batch"
    assert max(len(r) for r in per_batch.values()) >= 2

    after = server.health()["stats"]
    assert after["requests"] - before["requests"] == 64
    assert after["rows"] - before["rows"] == total_rows
    assert after["batches"] - before["batches"] == len(per_batch)
    assert after["rejected"] == before["rejected"]
    assert 1 < after["max_batch_rows"] <= 16
    print(
        f"64 requests, {total_rows} rows in {len(per_batch)} batches: "
        f"sizes {sorted(batch_info[b]['rows'] for b in per_batch)}"
    )


async def test_request_shapes_and_errors(server):
    log_before = len(server.log())
    rng = np.random.default_rng(6)
    full = rng.standard_normal((16, IN_DIM)).astype(np.float32)
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        r = await client.post("/infer", json={"inputs": full.tolist()})  # exactly max_batch rows
        assert _check_answer(r, full)["rows"] == 16
        r = await client.post("/infer", json={"inputs": full[:1].tolist()})  # one row, as a list of rows
        assert np.asarray(r.json()["outputs"]).shape == (1, OUT_DIM)
        _check_answer(r, full[:1])

        too_many = np.zeros((17, IN_DIM)).tolist()
        cases = [
            (b"not json", 400, "JSON"),
            (b"[1, 2]", 400, "inputs"),
            (b'{"x": [1.0]}', 400, "inputs"),
            (b'{"inputs": [1.0, 2.0]}', 422, f"{IN_DIM} numbers"),
            (b'{"inputs": [["a"]]}', 422, "numbers"),
            (b'{"inputs": [[1.0], [1.0, 2.0]]}', 422, "numbers"),
            (b'{"inputs": []}', 422, f"{IN_DIM} numbers"),
            (b'{"inputs": [' + b", ".join([b"NaN"] * IN_DIM) + b"]}", 422, "finite"),
            # issue 20: an integer no float can hold was a 500 (OverflowError); one a float32
            # cannot hold is inf; both are numbers that are not finite
            (b'{"inputs": [1' + b"0" * 400 + b", " + b", ".join([b"0"] * (IN_DIM - 1)) + b"]}", 422, "finite"),
            (b'{"inputs": [[-1' + b"0" * 400 + b"]]}", 422, "finite"),
            (b'{"inputs": [1' + b"0" * 40 + b", " + b", ".join([b"0"] * (IN_DIM - 1)) + b"]}", 422, "finite"),
            (f'{{"inputs": {too_many}}}'.encode(), 413, "at most 16 rows"),
        ]
        for body, status, fragment in cases:
            r = await client.post("/infer", content=body, headers={"content-type": "application/json"})
            assert r.status_code == status, (body[:40], r.text)
            assert fragment in r.json()["error"]
        assert (await client.get("/infer")).status_code == 405
        health = (await client.get("/health")).json()
        assert health["status"] == "ok" and health["queue"] == 0
        assert health["config"]["max_batch"] == 16 and health["config"]["in_dim"] == IN_DIM
    log = server.log()[log_before:]
    assert "Traceback" not in log and "ERROR" not in log, log


# --------------------------------------------------------------------------- hostile bodies


async def _raw_exchange(url: str, request: bytes) -> tuple[int, dict[str, str], dict]:
    """Send raw request bytes on a fresh connection, then read the answer until the server
    closes the connection: (status, headers, JSON body). Fails if no answer comes in 10 s."""
    host, port = url.removeprefix("http://").split(":")
    data = b""
    with anyio.fail_after(10):
        async with await anyio.connect_tcp(host, int(port)) as conn:
            await conn.send(request)
            while True:
                try:
                    data += await conn.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    break
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode().split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, httpx.Response(200, content=body).json()


def _chunked(body: bytes, size: int = 8192) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size]) for i in range(0, len(body), size))


async def test_deeply_nested_json_is_a_4xx_or_an_answer_not_a_crash(server):
    """Issue 12: JSON nested deeper than the decoder can recurse was answered 500 with a
    RecursionError traceback in the log. How deep the decoder goes depends on the Python: up to
    3.12 these bodies exceed it, and the answer is 400, "nested too deeply"; 3.13's decoder
    parses them (issue 20), and the server then judges what it got -- 5000 nested lists are not
    rows of numbers (422), and a well-formed request with a deep extra field is answered. Never
    a 500, never a traceback."""
    log_before = len(server.log())
    depth = 5000  # inside the body limit, past the decoder's recursion limit before 3.13
    row = np.ones(IN_DIM, np.float32).tolist()
    deep_inputs = b'{"inputs": ' + b"[" * depth + b"]" * depth + b"}"
    deep_field = b'{"inputs": ' + json.dumps(row).encode() + b', "x": ' + b'{"a":' * depth + b"0" + b"}" * depth + b"}"
    nested = {"error": "the JSON body is nested too deeply"}
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        r = await client.post("/infer", content=deep_inputs, headers={"content-type": "application/json"})
        assert (r.status_code, r.json()) == (400, nested) or (
            r.status_code == 422 and "list of numbers" in r.json()["error"]
        ), r.text
        parsed = r.status_code == 422
        r = await client.post("/infer", content=deep_field, headers={"content-type": "application/json"})
        if parsed:  # the decoder that took the first takes this one: a correct answer
            _check_answer(r, row)
        else:
            assert (r.status_code, r.json()) == (400, nested), r.text
        _check_answer(await client.post("/infer", json={"inputs": row}), row)  # still serving
    log = server.log()[log_before:]
    assert "RecursionError" not in log and "Traceback" not in log, log


async def test_a_client_gone_mid_body_is_one_log_line_not_a_traceback(server):
    """Issue 20: a client that disconnected before its body was complete made the server log
    an ERROR with a ClientDisconnect traceback. It is the client's doing: at most one line."""
    log_before = len(server.log())
    host, port = server.url.removeprefix("http://").split(":")
    for _ in range(3):
        async with await anyio.connect_tcp(host, int(port)) as conn:
            await conn.send(
                b"POST /infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 4000\r\n\r\n" + b'{"inputs": [' + b"0.5, " * 100
            )
            await anyio.sleep(0.05)  # the server is reading the body when the client goes
    row = np.ones(IN_DIM, np.float32).tolist()
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        _check_answer(await client.post("/infer", json={"inputs": row}), row)  # still serving
    deadline = time.monotonic() + 5
    while server.log()[log_before:].count("disconnected") < 3 and time.monotonic() < deadline:  # noqa: ASYNC110
        await anyio.sleep(0.05)  # polling another process's log file: there is no event to wait on
    log = server.log()[log_before:]
    assert "Traceback" not in log and "ERROR" not in log and "ClientDisconnect" not in log, log
    lines = [ln for ln in log.splitlines() if "disconnected" in ln]
    assert len(lines) <= 3, log  # one line per client at most
    assert all(ln.startswith("INFO") for ln in lines), log


async def test_oversized_bodies_get_413_before_they_are_read(server):
    """Issue 12: a 60 MB body was read and parsed before being refused. A body larger than the
    limit is now answered 413 from its Content-Length before any of it is sent, and a chunked
    one as soon as the bytes read pass the limit; the connection is closed, since the rest of
    the body is never read. Nothing is parsed, so nothing is slow."""
    limit = server.health()["config"]["max_body_bytes"]
    assert limit == inference.ServerConfig(max_batch=16, in_dim=IN_DIM).body_limit
    head = b"POST /infer HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
    announced = head + b"Content-Length: 60000000\r\n\r\n"  # and not one byte of the body
    pending_chunks = head + b"Transfer-Encoding: chunked\r\n\r\n" + _chunked(b'{"inputs": [' + b"0.5, " * limit)
    for request in (announced, pending_chunks):  # neither body is ever finished
        status, headers, body = await _raw_exchange(server.url, request)
        assert status == 413 and headers["connection"] == "close"
        assert body == {"error": f"the body is larger than {limit} bytes", "max_body_bytes": limit}

    # Below the limit, both ways of sending a body work -- and a full batch of rows, written out
    # as verbosely as json.dumps does with float64 and indentation, is well below it.
    rows = np.random.default_rng(11).standard_normal((16, IN_DIM))
    verbose = json.dumps({"inputs": rows.tolist()}, indent=4).encode()
    assert len(verbose) < limit
    status, _, body = await _raw_exchange(
        server.url,
        head + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + _chunked(verbose, 1000) + b"0\r\n\r\n",
    )
    assert status == 200
    np.testing.assert_allclose(body["outputs"], expected(rows), rtol=1e-5, atol=1e-6)
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        r = await client.post("/infer", content=verbose, headers={"content-type": "application/json"})
        _check_answer(r, rows.astype(np.float32))


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the server is the subject; one client loop
async def test_the_body_limit_is_configurable(tmp_path, anyio_backend):
    row = np.full(IN_DIM, 0.25, np.float32).tolist()
    one = len(json.dumps({"inputs": row}))
    srv = ServerProcess(tmp_path / "server.log", "--max-body-bytes", str(one + 10))
    try:
        assert srv.health()["config"]["max_body_bytes"] == one + 10
        async with httpx.AsyncClient(base_url=srv.url, timeout=10) as client:
            _check_answer(await client.post("/infer", json={"inputs": row}), row)
            r = await client.post("/infer", json={"inputs": [row, row]})
            assert r.status_code == 413 and r.json()["max_body_bytes"] == one + 10
    finally:
        srv.proc.send_signal(signal.SIGTERM)
        rc = srv.proc.wait(timeout=20)
        srv.kill()
    assert rc == 0, srv.log()
    with pytest.raises(ValueError, match="max_body_bytes"):
        inference.ServerConfig(max_body_bytes=0)
    cfg = inference.ServerConfig(max_batch=4, in_dim=8)
    assert cfg.body_limit == inference.JSON_ENVELOPE_BYTES + 4 * 8 * inference.JSON_BYTES_PER_NUMBER


# --------------------------------------------------------------------------- back-pressure


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the server is the subject; one client loop
async def test_full_queue_answers_503_quickly_and_the_rest_are_correct(tmp_path, anyio_backend):
    delay = 0.5
    srv = ServerProcess(
        tmp_path / "server.log",
        "--max-queue",
        "2",
        "--max-batch",
        "2",
        "--streams",
        "1",
        "--batch-window-ms",
        "0",
        "--delay-ms",
        str(delay * 1000),
    )
    try:
        rng = np.random.default_rng(7)
        bodies = [rng.standard_normal(IN_DIM).astype(np.float32).tolist() for _ in range(24)]
        results = await _post_all(srv.url, bodies)
        ok = [(r, t, x) for (r, t), x in zip(results, bodies, strict=True) if r.status_code == 200]
        refused = [(r, t) for r, t in results if r.status_code != 200]
        # One stream, a slow model, at most 2 rows per batch and 2 requests queued: most of the
        # 24 cannot be held, and those are told so at once.
        assert refused and len(ok) >= 1
        assert len(ok) + len(refused) == 24
        for r, t in refused:
            assert r.status_code == 503, r.text
            assert r.headers["retry-after"] == "1"
            assert r.json()["error"] == "queue full" and r.json()["max_queue"] == 2
            assert t < delay, f"a refusal took {t:.3f} s, longer than one batch of the slow model"
        for r, t, x in ok:
            _check_answer(r, x)
            assert t >= delay * 0.9  # they did wait for the slow model
        stats = srv.health()["stats"]
        assert stats["rejected"] == len(refused) and stats["requests"] == len(ok)
        assert stats["max_batch_rows"] <= 2
        # Once the burst is over, the server takes requests again.
        r, _ = (await _post_all(srv.url, bodies[:1]))[0]
        _check_answer(r, bodies[0])
        print(
            f"24 concurrent requests: {len(ok)} answered, {len(refused)} refused with 503 in at most "
            f"{max(t for _, t in refused) * 1000:.0f} ms"
        )
    finally:
        srv.proc.send_signal(signal.SIGTERM)
        rc = srv.proc.wait(timeout=20)
        srv.kill()
    assert rc == 0, srv.log()


# --------------------------------------------------------------------------- draining


@pytest.mark.parametrize(
    ("anyio_backend", "sig"),
    [
        pytest.param("asyncio", signal.SIGTERM, id="asyncio-SIGTERM"),
        pytest.param("trio", signal.SIGINT, id="trio-SIGINT"),
    ],
)
async def test_shutdown_answers_every_request_in_flight_then_exits_0(tmp_path, anyio_backend, sig):
    srv = ServerProcess(
        tmp_path / "server.log", "--max-batch", "4", "--streams", "2", "--batch-window-ms", "0", "--delay-ms", "200"
    )
    try:
        rng = np.random.default_rng(8)
        bodies = [rng.standard_normal((1 + i % 2, IN_DIM)).astype(np.float32).tolist() for i in range(16)]
        results: list = []
        state_at_signal: dict = {}

        async def send_all() -> None:
            results.extend(await _post_all(srv.url, bodies))

        async def signal_when_all_accepted() -> None:
            # Wait until the server holds all 16 (queued or on the device): 24 rows at 4 per batch
            # on 2 streams with 200 ms each is >= 600 ms of work still to do.
            with anyio.fail_after(20):
                while True:
                    health = await anyio.to_thread.run_sync(srv.health)
                    if health["stats"]["accepted"] == 16:
                        break
                    await anyio.sleep(0.01)
            state_at_signal.update(health)
            srv.proc.send_signal(sig)

        async with anyio.create_task_group() as tg:
            tg.start_soon(send_all)
            tg.start_soon(signal_when_all_accepted)
        rc = await anyio.to_thread.run_sync(lambda: srv.proc.wait(timeout=20))
    finally:
        srv.kill()
    log = srv.log()
    # Work was still pending when the signal arrived, and none of it was lost.
    assert state_at_signal["stats"]["requests"] < 16
    assert state_at_signal["queue"] + state_at_signal["batches_in_flight"] > 0
    assert len(results) == 16
    for (r, _), x in zip(results, bodies, strict=True):
        _check_answer(r, x)
    assert rc == 0, log
    assert "drained" in log and "'requests': 16" in log
    assert "served 16 requests" in log


async def test_lifespan_shutdown_drains_queued_and_running_batches():
    # In process, the lifespan alone: requests still queued and batches still on the device when
    # shutdown begins are all finished and answered before the Device closes.
    app = inference.create_app(
        max_batch=4, streams=2, batch_window_ms=0, delay_ms=100, in_dim=IN_DIM, out_dim=OUT_DIM, seed=SEED
    )
    rng = np.random.default_rng(9)
    xs = [rng.standard_normal((1 + i % 3, IN_DIM)).astype(np.float32) for i in range(12)]  # 24 rows
    with anyio.fail_after(30):
        async with app.router.lifespan_context(app):
            engine, dev = app.state.engine, app.state.device
            requests = [engine.submit(x) for x in xs]
            while engine.in_flight < 2:  # noqa: ASYNC110 -- polls the engine: both streams busy
                await anyio.sleep(0.005)
            assert engine.queued > 0 and not any(r.done.is_set() for r in requests)
        # Shutdown returned: everything was answered, then the device was closed.
    assert dev.closed
    for r, x in zip(requests, xs, strict=True):
        assert r.done.is_set() and r.error is None
        np.testing.assert_allclose(r.result, expected(x), rtol=1e-5, atol=1e-6)
    stats = app.state.final_health["stats"]
    assert stats["requests"] == 12 and stats["rows"] == 24 and stats["max_batch_rows"] <= 4
    assert app.state.final_health["status"] == "draining" and app.state.final_health["queue"] == 0
    with pytest.raises(inference.ShuttingDown):
        engine.submit(xs[0])


async def test_a_failed_batch_fails_only_its_requests_and_the_lane_recovers():
    # A real device fault: a matmul told its inner dimension is 2**24 reads past its input into
    # the guard page. The batch's requests get the error; the next batch, on the same (only)
    # lane, runs on a fresh stream and is correct.
    app = inference.create_app(max_batch=4, streams=1, batch_window_ms=0, in_dim=IN_DIM, out_dim=OUT_DIM, seed=SEED)
    x = np.random.default_rng(10).standard_normal((2, IN_DIM)).astype(np.float32)
    with anyio.fail_after(30):
        async with app.router.lifespan_context(app):
            engine = app.state.engine
            good_tiling = engine._mm_tiling
            engine._mm_tiling = lambda rows: np.array([rows, OUT_DIM, 1 << 24, 0], np.uint32)
            bad = engine.submit(x)
            await bad.done.wait()
            engine._mm_tiling = good_tiling
            good = engine.submit(x)
            await good.done.wait()
    assert bad.result is None and "matmul" in bad.error, bad.error
    assert good.error is None
    np.testing.assert_allclose(good.result, expected(x), rtol=1e-5, atol=1e-6)
    assert app.state.final_health["stats"]["batches"] == 2


async def test_a_replica_names_itself_in_every_answer_and_in_health():
    # As one replica of several (examples/ray_serve.py), the app says which replica answered, and
    # /health reports the replica and its device (index here, the machine's id for it).
    app = inference.create_app(
        replica={"id": "r-1", "npu_ids": ["0"]}, max_batch=4, streams=1, in_dim=IN_DIM, out_dim=OUT_DIM, seed=SEED
    )
    x = np.random.default_rng(12).standard_normal(IN_DIM).astype(np.float32)
    with anyio.fail_after(30):
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://replica") as client:
                r = await client.post("/infer", json={"inputs": x.tolist()})
                health = (await client.get("/health")).json()
    _check_answer(r, x)
    assert r.json()["replica"] == "r-1"
    assert health["replica"] == {"id": "r-1", "npu_ids": ["0"]}
    assert health["device"] == {"index": 0, "logic_id": 0}
