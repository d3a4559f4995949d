"""examples/ray_serve.py on a real Ray cluster on this machine: the inference service as Ray Serve
replicas, one (simulated) NPU each.

The module starts a cluster with ``ray start --head --block`` in a subprocess -- its own temp
dir, ports, and authentication token, ``{"NPU": 2}`` declared as resources, 2 CPUs
(ray_serve.LocalCluster) -- and stops it (by its process id) whatever happens; then it checks
that no process of that cluster is left. The
service is ``python examples/ray_serve.py --address ...`` against it, a process like the one in
tests/tools/test_server.py, with a slow model (100 ms of device time per batch) so that requests are
really in flight when a replica dies or the service stops. The tests run in file order: the
shutdown test ends that service; the back-pressure test then runs a slower one of its own.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import anyio
import httpx
import numpy as np
import pytest

from examples import ROOT, load_example

if importlib.util.find_spec("ray") is None:  # the test extra installs it (ray[serve])
    pytest.skip("ray[serve] is not installed: pip install -e '.[test]'", allow_module_level=True)

pytestmark = [pytest.mark.slow, pytest.mark.anyio, pytest.mark.timeout(240)]

DRIVER = ROOT / "examples" / "ray_serve.py"
IN_DIM, OUT_DIM, SEED = 64, 10, 0
MAX_BATCH = 8
DELAY_MS = 100  # device time per batch: keeps requests in flight long enough to be caught there
# Requests a replica's engine holds waiting; beyond, it answers 503. Serve does not split a burst
# evenly (under load its router can hand one replica nearly all of it, up to max_ongoing_requests),
# so for the 64-request burst to be answered whatever the split, one replica must be able to
# queue all of it (it may arrive before the first batch leaves the queue). The burst test below
# checks the 503s, with a service of its own.
MAX_QUEUE = 64
# Requests Serve's proxy holds waiting for a replica; beyond, 503. It counts every request not yet
# handed to a replica, and a burst arrives faster than the proxy hands requests out, so it must
# exceed the largest burst that should all be answered (64).
MAX_QUEUED = 128

inference = load_example("inference")
ray_serve = load_example("ray_serve")
W, B = inference.model_weights(IN_DIM, OUT_DIM, SEED)


def expected(x: Any) -> np.ndarray:
    return inference.reference(np.atleast_2d(np.asarray(x, np.float32)), W, B)


class ServeDriver:
    """``python examples/ray_serve.py --address <cluster>`` on a free loopback port."""

    def __init__(self, cluster: Any, log_path: Path, *args: str) -> None:
        self.port = ray_serve.free_ports(1)[0]
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(DRIVER),
                "--address",
                cluster.address,
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
            env=cluster.env,
            cwd=ROOT,
        )
        try:
            deadline = time.monotonic() + 150
            while "serving on" not in self.log():
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the Serve driver did not start:\n{self.log()}\n{cluster.log()}")
                time.sleep(0.2)
        except BaseException:
            self.stop()
            raise

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def replicas(self, count: int = 2, timeout: float = 60, exclude: frozenset[str] = frozenset()) -> dict[str, dict]:
        """The /health of ``count`` distinct live replicas (not in ``exclude``): /health answers
        for whichever replica Serve routes it to, so ask until that many have answered."""
        seen: dict[str, dict] = {}
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                r = httpx.get(self.url + "/health", timeout=10)
            except httpx.TransportError:
                r = None
            if r is not None and r.status_code == 200:
                health = r.json()
                rid = health["replica"]["id"]
                if rid not in exclude:
                    seen[rid] = health
                    if len(seen) == count:
                        return seen
            time.sleep(0.05)
        raise AssertionError(f"only replicas {sorted(seen)} answered /health in {timeout} s:\n{self.log()[-3000:]}")

    def stop(self) -> int | None:
        """SIGTERM, as an operator would: the driver drains the replicas, then exits."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()
        return self.proc.returncode


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """2 CPUs, {"NPU": 2}: its own temp dir, ports and token (ray_serve.LocalCluster)."""
    t0 = time.monotonic()
    c = ray_serve.LocalCluster(npus=2, cpus=2, logs_to=tmp_path_factory.mktemp("ray") / "logs")
    print(f"ray start: {time.monotonic() - t0:.1f} s")
    try:
        yield c
    finally:
        leftovers = c.stop()
    assert not leftovers, f"processes of the cluster outlived it (killed): {leftovers}"


@pytest.fixture(scope="module")
def service(cluster: Any, tmp_path_factory: pytest.TempPathFactory):
    t0 = time.monotonic()
    driver = ServeDriver(
        cluster,
        tmp_path_factory.mktemp("serve") / "driver.log",
        "--replicas",
        "2",
        "--max-batch",
        str(MAX_BATCH),
        "--streams",
        "1",
        "--batch-window-ms",
        "10",
        "--delay-ms",
        str(DELAY_MS),
        "--max-queue",
        str(MAX_QUEUE),
        "--max-queued-requests",
        str(MAX_QUEUED),
    )
    try:
        driver.replicas(2)
        print(f"service up: {time.monotonic() - t0:.1f} s")
        yield driver
    finally:
        driver.stop()


def _check_answer(r: httpx.Response, inputs: Any) -> dict:
    assert r.status_code == 200, r.text
    body = r.json()
    got = np.asarray(body["outputs"])
    want = expected(inputs)
    if np.ndim(inputs) == 1:
        want = want[0]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    return body


def _bodies(n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        x = rng.standard_normal((1 + i % 3, IN_DIM)).astype(np.float32)
        out.append(x[0].tolist() if i % 3 == 0 else x.tolist())
    return out


async def _post_all(url: str, bodies: list, limit_s: float = 60.0) -> list[httpx.Response]:
    results: list = [None] * len(bodies)
    limits = httpx.Limits(max_connections=len(bodies), max_keepalive_connections=len(bodies))
    async with httpx.AsyncClient(timeout=limit_s, limits=limits) as client:

        async def one(i: int) -> None:
            results[i] = await client.post(url + "/infer", json={"inputs": bodies[i]})

        with anyio.fail_after(limit_s):
            async with anyio.create_task_group() as tg:
                for i in range(len(bodies)):
                    tg.start_soon(one, i)
    return results


# --------------------------------------------------------------------------- the replicas


def test_each_replica_holds_its_own_npu(service: ServeDriver):
    """Ray gave each replica one of the two NPU resources and set ASCEND_RT_VISIBLE_DEVICES to
    it; the runtime then shows that NPU, and only it, as device 0: the machine's id of the device
    the replica opened is the NPU Ray assigned."""
    replicas = service.replicas(2)
    npus = sorted(h["replica"]["npu_ids"][0] for h in replicas.values())
    assert npus == ["0", "1"]
    for health in replicas.values():
        replica = health["replica"]
        assert replica["npu_ids"] == [replica["ASCEND_RT_VISIBLE_DEVICES"]]
        assert health["device"] == {"index": 0, "logic_id": int(replica["npu_ids"][0])}
        assert health["status"] == "ok" and health["config"]["delay_ms"] == DELAY_MS
    assert len({h["replica"]["pid"] for h in replicas.values()}) == 2


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the service is the subject; one client loop
async def test_64_concurrent_requests_over_two_replicas(service: ServeDriver, anyio_backend: str):
    before = service.replicas(2)
    bodies = _bodies(64, seed=1)
    t0 = time.monotonic()
    results = await _post_all(service.url, bodies)
    elapsed = time.monotonic() - t0

    per_batch: dict[tuple[str, int], list[int]] = defaultdict(list)
    info: dict[tuple[str, int], dict] = {}
    for r, inputs in zip(results, bodies, strict=True):
        body = _check_answer(r, inputs)  # every answer against numpy
        key = (body["replica"], body["batch"]["id"])
        per_batch[key].append(len(np.atleast_2d(inputs)))
        assert info.setdefault(key, body["batch"]) == body["batch"]
    by_replica = Counter(replica for replica, _ in per_batch)  # batches per replica
    answered = Counter(r.json()["replica"] for r in results)
    assert set(answered) == set(before), f"answers came from {answered}, replicas are {sorted(before)}"
    for key, rows in per_batch.items():  # each replica's batches hold what their requests say
        assert info[key]["rows"] == sum(rows) <= MAX_BATCH and info[key]["requests"] == len(rows)
    assert len(per_batch) < 64, "no two concurrent requests ever shared a batch"

    after = service.replicas(2)
    assert set(after) == set(before)
    for rid in before:  # each replica's own statistics account for its answers
        delta = after[rid]["stats"]["requests"] - before[rid]["stats"]["requests"]
        assert delta == answered[rid]
        assert after[rid]["stats"]["batches"] - before[rid]["stats"]["batches"] == by_replica[rid]
    print(
        f"64 requests in {elapsed:.2f} s: {dict(answered)} per replica, "
        f"{len(per_batch)} batches, sizes {sorted(i['rows'] for i in info.values())}"
    )


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_replica_killed_under_load_loses_no_request_and_is_replaced(service: ServeDriver, anyio_backend: str):
    """SIGKILL one replica's process, under load from clients, while it holds requests (a batch
    on its device, one queued behind it). A request in flight there is answered with a server
    error by Serve's proxy (never with a wrong answer, never left hanging); inference is
    idempotent, so the client sends it again and it is answered right. Serve starts a new
    replica, which takes the dead one's NPU, and serves."""
    replicas = service.replicas(2)
    victim_id, victim = next(iter(replicas.items()))
    survivor_id = next(r for r in replicas if r != victim_id)
    rng = np.random.default_rng(2)
    failures: list[tuple[float, int | str, str]] = []  # (time, status, body) of failed attempts
    answers: list[tuple[float, str]] = []  # (time, replica) of right answers
    wrong: list[str] = []
    t_kill = 0.0
    replaced = anyio.Event()
    stop = anyio.Event()

    async def client(client: httpx.AsyncClient) -> None:
        while not stop.is_set():
            x = rng.standard_normal((2, IN_DIM)).astype(np.float32)
            for _attempt in range(20):
                t = time.monotonic()
                try:
                    r = await client.post(service.url + "/infer", json={"inputs": x.tolist()})
                except httpx.TransportError as exc:
                    failures.append((t, type(exc).__name__, str(exc)))
                else:
                    if r.status_code == 200:
                        body = r.json()
                        if not np.allclose(body["outputs"], expected(x), rtol=1e-5, atol=1e-6):
                            wrong.append(r.text)
                        answers.append((t, body["replica"]))
                        if body["replica"] not in replicas:
                            replaced.set()
                        break
                    failures.append((t, r.status_code, r.text))
                await anyio.sleep(0.1)  # then the same request again
            else:
                raise AssertionError(f"a request failed 20 times: {failures[-3:]}")

    async def holds_work(http: httpx.AsyncClient) -> bool:
        """Whether the victim answers /health with a batch on its device and a request queued
        behind it. Answers alone do not say so: they come when a batch completes, and the
        clients' next requests may not have reached the replica yet; a request still on its way
        is not lost with the replica (Serve sends it to another), so it fails nothing. A queued
        request is the replica's for at least the rest of the batch before it (up to 100 ms),
        far longer than this answer takes to arrive and the kill."""
        try:
            r = await http.get(service.url + "/health")
        except httpx.TransportError:
            return False
        if r.status_code != 200:
            return False
        h = r.json()
        return h["replica"]["id"] == victim_id and h["batches_in_flight"] >= 1 and h["queue"] >= 1

    with anyio.fail_after(120):
        async with httpx.AsyncClient(timeout=60) as http:
            async with anyio.create_task_group() as tg:
                for _ in range(12):
                    tg.start_soon(client, http)
                while sum(1 for _, rid in answers if rid == victim_id) < 10:  # noqa: ASYNC110 -- load is flowing to it
                    await anyio.sleep(0.05)
                while not await holds_work(http):  # noqa: ASYNC110 -- a state of the victim, polled
                    await anyio.sleep(0.01)
                t_kill = time.monotonic()
                os.kill(victim["replica"]["pid"], signal.SIGKILL)  # a process of our cluster, by pid
                await replaced.wait()
                await anyio.sleep(2)  # the new replica under load for a while
                stop.set()

    assert not wrong, f"{len(wrong)} wrong answers, e.g. {wrong[0]}"
    statuses = Counter(status for _, status, _ in failures)
    assert failures, "no request was in flight on the killed replica: the test did not test anything"
    for t, status, body in failures:  # server errors only, around the kill
        assert status in (500, 502, 503) or isinstance(status, str), (status, body)
        assert t_kill - 30 < t < t_kill + 30
    new = service.replicas(2, exclude=frozenset({victim_id}))
    assert survivor_id in new and len(new) == 2
    new_id = next(r for r in new if r != survivor_id)
    assert new[new_id]["replica"]["npu_ids"] == victim["replica"]["npu_ids"]  # the freed NPU
    assert new[new_id]["device"]["logic_id"] == victim["device"]["logic_id"]
    assert new[new_id]["replica"]["pid"] != victim["replica"]["pid"]
    with pytest.raises(ProcessLookupError):
        os.kill(victim["replica"]["pid"], 0)
    first_new = min(t for t, rid in answers if rid == new_id)
    print(
        f"{len(answers)} right answers; failed attempts {dict(statuses)}; the new replica "
        f"answered {first_new - t_kill:.1f} s after the kill"
    )


# --------------------------------------------------------------------------- shutdown, then another service


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_shutdown_drains_the_work_in_flight(service: ServeDriver, anyio_backend: str):
    """SIGTERM to the driver while both replicas have queued work: every request is answered,
    right, before the replicas go; the driver exits 0. (This test ends the module's service.)"""
    # Full batches: 48 requests of MAX_BATCH rows are about 24 batches per replica at 100 ms each
    # (well within the 64 a replica holds waiting: Serve does not split them evenly), 2.4 s of
    # work. The signal comes once a quarter of them are
    # answered: by then the rest have long reached the replicas. (Asking each replica via /health
    # does not work under load: Serve routes a request to the less busy of the two.)
    bodies = [
        np.random.default_rng(3 + i).standard_normal((MAX_BATCH, IN_DIM)).astype(np.float32).tolist() for i in range(48)
    ]
    results: list = []
    answered_at: list[float] = []
    t_signal = 0.0
    quarter_answered = anyio.Event()

    async def send() -> None:
        async with httpx.AsyncClient(timeout=90, limits=httpx.Limits(max_connections=len(bodies))) as client:

            async def one(inputs: list) -> None:
                r = await client.post(service.url + "/infer", json={"inputs": inputs})
                answered_at.append(time.monotonic())
                results.append((r, inputs))
                if len(answered_at) >= len(bodies) // 4:
                    quarter_answered.set()

            async with anyio.create_task_group() as tg:
                for inputs in bodies:
                    tg.start_soon(one, inputs)

    async def terminate() -> None:
        nonlocal t_signal
        await quarter_answered.wait()
        t_signal = time.monotonic()
        service.proc.send_signal(signal.SIGTERM)

    with anyio.fail_after(120):
        async with anyio.create_task_group() as tg:
            tg.start_soon(send)
            tg.start_soon(terminate)
    rc = await anyio.to_thread.run_sync(lambda: service.proc.wait(timeout=90))
    pending = sum(t > t_signal for t in answered_at)
    assert pending > 0, "all the work was done before the signal came"
    assert len(results) == len(bodies)
    for r, inputs in results:
        _check_answer(r, inputs)
    log = service.log()
    assert rc == 0, log
    assert "shutting down: draining the replicas" in log and "drained in" in log
    print(f"{pending} of {len(bodies)} requests unanswered at SIGTERM: all answered right; the driver exited 0")


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_burst_beyond_what_a_slow_service_holds_gets_503s(
    cluster: Any, service: ServeDriver, tmp_path: Path, anyio_backend: str
):
    """Back-pressure through Serve, on a service of its own (after the module's has stopped): a
    slow model (500 ms a batch) whose replicas each hold a batch and 4 requests waiting. Serve
    hands a replica more than that (up to its max_ongoing_requests), and its engine refuses them
    at once: 503 "queue full" with Retry-After, naming the replica; anything refused by Serve's
    proxy (more than 8 waiting there) is a 503 too; every request taken is answered right."""
    assert service.stop() == 0  # Serve is one per cluster: the module's service goes first (if still up)
    driver = ServeDriver(
        cluster,
        tmp_path / "driver.log",
        "--replicas",
        "2",
        "--max-batch",
        str(MAX_BATCH),
        "--streams",
        "1",
        "--batch-window-ms",
        "0",
        "--delay-ms",
        "500",
        "--max-queue",
        "4",
        "--max-queued-requests",
        "8",
    )
    try:
        replicas = set(driver.replicas(2))
        # Full batches (one request each): the replicas answer 4 a second between them, whatever
        # the proxy's pace, so the burst outruns them.
        bodies = [
            np.random.default_rng(100 + i).standard_normal((MAX_BATCH, IN_DIM)).astype(np.float32).tolist()
            for i in range(48)
        ]
        results: list = [None] * len(bodies)
        took: list[float] = [0.0] * len(bodies)
        limits = httpx.Limits(max_connections=len(bodies), max_keepalive_connections=len(bodies))
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:

            async def one(i: int) -> None:
                t = time.monotonic()
                results[i] = await client.post(driver.url + "/infer", json={"inputs": bodies[i]})
                took[i] = time.monotonic() - t

            with anyio.fail_after(90):
                async with anyio.create_task_group() as tg:
                    for i in range(len(bodies)):
                        tg.start_soon(one, i)
    finally:
        rc = driver.stop()
    answered = [i for i, r in enumerate(results) if r is not None and r.status_code == 200]
    refused = [i for i, r in enumerate(results) if r is not None and r.status_code == 503]
    assert len(answered) + len(refused) == len(bodies), Counter(r.status_code for r in results if r is not None)
    for i in answered:
        _check_answer(results[i], bodies[i])
    by_engine = [i for i in refused if results[i].headers.get("content-type") == "application/json"]
    assert by_engine, f"no replica refused anything: {len(answered)} answered, {len(refused)} refused by the proxy"
    for i in by_engine:
        assert results[i].json()["error"] == "queue full" and results[i].headers["retry-after"] == "1"
        assert results[i].json()["replica"] in replicas
    slowest_refusal, slowest_answer = max(took[i] for i in by_engine), max(took[i] for i in answered)
    assert slowest_refusal < slowest_answer  # a refusal does not wait for the queue
    assert rc == 0, driver.log()
    print(
        f"{len(bodies)} concurrent requests: {len(answered)} answered (the last after {slowest_answer:.2f} s), "
        f"{len(by_engine)} refused by a replica's engine (the last after {slowest_refusal:.2f} s), "
        f"{len(refused) - len(by_engine)} by Serve's proxy"
    )


# --------------------------------------------------------------------------- no cluster needed


def test_visible_npus_follows_what_ray_assigned(monkeypatch: pytest.MonkeyPatch):

    class Context:
        ids: list[str] = []

        def get_accelerator_ids(self) -> dict[str, list[str]]:
            return {"NPU": self.ids, "GPU": []}

    monkeypatch.setattr(ray_serve.ray, "get_runtime_context", lambda: Context())
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "3")
    Context.ids = ["3"]
    assert ray_serve.visible_npus() == ["3"] and os.environ["ASCEND_RT_VISIBLE_DEVICES"] == "3"
    Context.ids = ["3", "1"]  # Ray lists several in set order: the runtime needs ascending
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "3,1")
    assert ray_serve.visible_npus() == ["1", "3"] and os.environ["ASCEND_RT_VISIBLE_DEVICES"] == "1,3"
    monkeypatch.delenv("ASCEND_RT_VISIBLE_DEVICES")  # RAY_EXPERIMENTAL_NOSET_...: set it here
    Context.ids = ["1"]
    assert ray_serve.visible_npus() == ["1"] and os.environ["ASCEND_RT_VISIBLE_DEVICES"] == "1"
    Context.ids = []
    with pytest.raises(RuntimeError, match="given no NPU"):
        ray_serve.visible_npus()


def test_replicas_or_autoscaling_and_back_pressure_are_configured():
    config = inference.ServerConfig(max_queue=64, max_batch=8, streams=2)
    fixed = ray_serve.build_app(config, ray_serve.ServeOptions(replicas=3, max_queued_requests=100))
    d = fixed._bound_deployment
    assert d.num_replicas == 3
    assert d.ray_actor_options["resources"] == {"NPU": 1}
    assert d._deployment_config.max_ongoing_requests == 64 + 2 * 8 + ray_serve.HEALTH_HEADROOM
    assert d._deployment_config.max_queued_requests == 100
    auto = ray_serve.build_app(config, ray_serve.ServeOptions(autoscale=(1, 4), target_ongoing_requests=24))
    scaling = auto._bound_deployment._deployment_config.autoscaling_config
    assert (scaling.min_replicas, scaling.max_replicas, scaling.target_ongoing_requests) == (1, 4, 24)
    built = ray_serve.app_builder({"autoscale_min": "1", "autoscale_max": "2", "delay_ms": "2.5", "max_batch": "4"})
    assert built._bound_deployment._deployment_config.autoscaling_config.max_replicas == 2
    with pytest.raises(ValueError, match="unknown"):
        ray_serve.app_builder({"replica": "2"})
    with pytest.raises(ValueError, match="autoscale"):
        ray_serve.ServeOptions(autoscale=(3, 2))
