"""Ray Serve replicas: requests/s of the inference service (examples/ray_serve.py) with 1 and 2
replicas, one simulated NPU each, on a local Ray cluster of this machine.

The model is device-bound: every batch holds its NPU for DELAY_MS of device time (the delay
kernel sleeps, so it takes no host CPU, as an NPU's compute takes none), MAX_BATCH rows a batch,
one stream: a replica answers at most MAX_BATCH / DELAY_MS one-row requests per second, and a
second replica on a second NPU can double that if nothing else -- Serve's HTTP proxy, the
replicas' Python, the client, all on this machine's CPUs -- gets in the way first.

Load: CLIENTS concurrent clients send one-row requests back to back (closed loop) for SECONDS,
after a warm-up; a sample of answers is checked against numpy, every answer for its status.
Baseline: the same service with 1 replica, measured in the same run on the same cluster.
Figure: requests/s with 2 replicas / with 1. Goal: >= 1.6.

Not in ``python -m aiocann bench``'s default run (it starts a Ray cluster: about a minute and a
half, and needs the serve extra): ``python benchmarks/bench_ray_serve.py`` or
``python -m aiocann bench --only ray_serve``.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
from pathlib import Path

import anyio
import httpx
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Result, examples_dir, goal_met  # noqa: E402

# The local cluster's token: Ray reads its auth settings when it is imported (by ray_serve), and
# this process is the cluster's driver (ray_serve.LocalCluster takes the token from here).
if "ray" not in sys.modules:
    os.environ.setdefault("RAY_AUTH_MODE", "token")
    if os.environ["RAY_AUTH_MODE"] == "token":
        os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(16))
sys.path.insert(0, str(examples_dir()))
import inference  # noqa: E402
import ray_serve  # noqa: E402

DELAY_MS = 250
MAX_BATCH = 8
CLIENTS = 32  # two replicas' batches and as much again waiting
SECONDS = 8.0
WARMUP_S = 2.0
GOAL = ">= 1.6"


async def _load(url: str, seconds: float, check: int = 20) -> tuple[int, int, dict[str, int]]:
    """(answers, failures, answers per replica) of CLIENTS closed-loop clients over ``seconds``;
    the first ``check`` answers are compared with numpy."""
    w, b = inference.model_weights(ray_serve.ServerConfig.in_dim, ray_serve.ServerConfig.out_dim)
    rng = np.random.default_rng(0)
    rows = rng.standard_normal((256, ray_serve.ServerConfig.in_dim)).astype(np.float32)
    ok, failed, checked = 0, 0, 0
    per_replica: dict[str, int] = {}
    deadline = anyio.current_time() + seconds

    async def client(http: httpx.AsyncClient, i: int) -> None:
        nonlocal ok, failed, checked
        n = i
        while anyio.current_time() < deadline:
            x = rows[n % len(rows)]
            n += CLIENTS
            r = await http.post(url + "/infer", json={"inputs": x.tolist()})
            if r.status_code != 200:
                failed += 1
                continue
            body = r.json()
            ok += 1
            per_replica[body["replica"]] = per_replica.get(body["replica"], 0) + 1
            if checked < check:
                checked += 1
                np.testing.assert_allclose(body["outputs"], inference.reference(x[None], w, b)[0], rtol=1e-5, atol=1e-6)

    limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        async with anyio.create_task_group() as tg:
            for i in range(CLIENTS):
                tg.start_soon(client, http, i)
    return ok, failed, per_replica


def _wait_for_replicas(url: str, count: int, timeout: float = 120) -> None:
    seen: set[str] = set()
    deadline = time.monotonic() + timeout
    while len(seen) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {len(seen)} of {count} replicas answered in {timeout} s")
        try:
            r = httpx.get(url + "/health", timeout=10)
            if r.status_code == 200:
                seen.add(r.json()["replica"]["id"])
        except httpx.TransportError:
            pass
        time.sleep(0.05)


def measure(replicas: int, url: str, config: inference.ServerConfig) -> tuple[float, dict[str, int]]:
    from ray import serve

    options = ray_serve.ServeOptions(replicas=replicas)
    serve.run(ray_serve.build_app(config, options), name=ray_serve.APP_NAME, route_prefix="/")
    _wait_for_replicas(url, replicas)
    anyio.run(_load, url, WARMUP_S, 0)
    t = time.perf_counter()
    ok, failed, per_replica = anyio.run(_load, url, SECONDS)
    elapsed = time.perf_counter() - t
    if failed:
        raise RuntimeError(f"{failed} requests failed with {replicas} replica(s)")
    if len(per_replica) != replicas:
        raise RuntimeError(f"{replicas} replicas deployed, {len(per_replica)} answered: {per_replica}")
    return ok / elapsed, per_replica


def main() -> Result:
    import ray
    from ray import serve

    config = inference.ServerConfig(max_batch=MAX_BATCH, streams=1, batch_window_ms=5, delay_ms=DELAY_MS)
    port = ray_serve.free_ports(1)[0]
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    with ray_serve.LocalCluster(npus=2, cpus=2) as cluster:
        ray.init(address=cluster.address, runtime_env={"working_dir": str(ray_serve.EXAMPLES_DIR)}, log_to_driver=False)
        try:
            serve.start(http_options={"host": "127.0.0.1", "port": port})
            one, per_one = measure(1, url, config)  # the baseline first, then scale out to 2
            two, per_two = measure(2, url, config)
            serve.shutdown()
        finally:
            ray.shutdown()
    ratio = two / one
    bound = 1000 / DELAY_MS * MAX_BATCH  # one replica's device-bound limit, one-row requests
    return Result(
        "Ray Serve 2 replicas vs 1",
        f"2 replicas {two:.1f} req/s",
        f"1 replica {one:.1f} req/s",
        ratio,
        GOAL,
        goal_met(ratio, GOAL),
        {
            "rps_1": one,
            "rps_2": two,
            "per_replica_1": per_one,
            "per_replica_2": per_two,
            "device_bound_rps_per_replica": bound,
            "delay_ms": DELAY_MS,
            "max_batch": MAX_BATCH,
            "clients": CLIENTS,
            "seconds": SECONDS,
            "total_s": time.perf_counter() - t0,
        },
    )


if __name__ == "__main__":
    result = main()
    print(result.line())
    d = result.details
    print(
        f"  device-bound limit {d['device_bound_rps_per_replica']:.0f} req/s per replica; answers per replica: "
        f"{d['per_replica_1']} / {d['per_replica_2']}; whole run {d['total_s']:.0f} s"
    )
