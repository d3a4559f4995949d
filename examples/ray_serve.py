"""The inference service as Ray Serve replicas, one NPU each.

    python examples/ray_serve.py [--address HOST:PORT] [--replicas 2 | --autoscale MIN MAX]
                                 [--host 127.0.0.1] [--port 8000] [...the server's options...]
    curl -s localhost:8000/infer -d '{"inputs": [0.1, 0.2, ...]}'
    curl -s localhost:8000/health                   # the health of the replica that answers

Each replica is the app of examples/inference.py -- the same batching engine, back-pressure
and draining as examples/server.py -- on the one NPU Ray gave it; Serve's HTTP proxy spreads the
requests over the replicas. This file only adds what a replica needs around the app:

* **One NPU.** The deployment asks for ``{"NPU": 1}`` per replica (``ray_actor_options``). Ray
  gives the replica's process ``ASCEND_RT_VISIBLE_DEVICES=<its NPU>`` (Ray's NPU accelerator
  manager does this for the resource named ``NPU``, declared or detected; checked with ray
  2.60.0), so the runtime shows that NPU, and nothing else, as device 0; the app opens
  ``Device(0)`` once, in its lifespan. ``visible_npus`` checks this before the device is opened,
  and sets the variable from the replica's assigned ids where Ray did not
  (``RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES=1``, older Ray) or listed several out of
  order (the runtime refuses a descending list outright).
* **Back-pressure in two places.** A replica takes up to ``max_ongoing_requests`` requests at
  once -- set to what its engine can hold (``max_queue`` waiting plus a full batch per stream,
  and a few /health) -- so the engine's own ``503 queue full`` still answers a burst at once;
  when every replica is that full, Serve's proxy holds at most ``max_queued_requests`` more and
  answers ``503`` beyond.
* **Draining.** Scaling down, redeploying, ``serve.delete`` and the SIGTERM/SIGINT handling of
  ``main`` all shut a replica down gracefully: Serve stops routing to it, waits for its
  requests (``graceful_shutdown_timeout_s``), then runs its app's lifespan shutdown, which
  drains the engine and closes the device.
* **Health.** Serve calls ``check_health`` every ``health_check_period_s`` and replaces a replica
  whose engine is gone; a dead replica (its process killed) is replaced too. ``GET /health``
  answers with the health and batch statistics of the replica that serves it, including its
  replica id, process, node and NPU; every ``/infer`` answer names its replica.

* **A replica that dies** (its process killed, its node lost) fails the requests it was
  running: Serve's proxy answers them ``500``. Inference is idempotent, so clients retry; Serve
  starts a new replica, which gets the freed NPU.

``main`` connects to a running cluster (``--address``, e.g. ``127.0.0.1:6379``), or starts a
one-node cluster of this machine (``LocalCluster``: ``ray start --head`` with its own temp dir,
ports and token, ``--npus`` simulated NPUs declared as resources, in a session of its own so
that a terminal's Ctrl-C reaches only the driver) and stops it on the way out, once the replicas
have drained.
The replicas import this directory (the driver ships it with ``runtime_env={"working_dir":
...}``); aiocann itself must be installed on every node (it has a native part). ``app_builder``
serves the same application with ``serve run ray_serve:app_builder replicas=2`` from here.
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

try:
    import ray
    from inference import JSON_BYTES_PER_NUMBER, ServerConfig, create_app
    from ray import serve
except ModuleNotFoundError as exc:  # ray[serve], starlette, uvicorn: the serve extra
    if __name__ != "__main__":
        raise  # imported (a benchmark, a test): the importer decides what a missing extra means
    sys.exit(f"ray_serve.py needs the module {exc.name!r}: python -m pip install 'aiocann[serve]'")

EXAMPLES_DIR = Path(__file__).resolve().parent
VISIBLE_DEVICES = "ASCEND_RT_VISIBLE_DEVICES"
APP_NAME = "aiocann"
DEPLOYMENT_NAME = "Inference"
HEALTH_HEADROOM = 8  # /health requests a replica takes on top of what its engine can hold

log = logging.getLogger("aiocann.examples.ray_serve")


@dataclass(frozen=True)
class ServeOptions:
    """How Serve runs the replicas. ``autoscale=(min, max)`` replaces ``replicas``."""

    replicas: int = 2
    autoscale: tuple[int, int] | None = None
    target_ongoing_requests: float = 16.0  # per replica, what autoscaling aims for
    num_cpus: float = 1.0  # Ray CPUs per replica (each also holds {"NPU": 1})
    max_queued_requests: int = 256  # held by the proxy when every replica is full; more get 503
    graceful_shutdown_timeout_s: float = 20.0  # how long a stopping replica waits for its requests
    graceful_shutdown_wait_loop_s: float = 0.2  # how often it looks
    health_check_period_s: float = 2.0
    health_check_timeout_s: float = 10.0

    def __post_init__(self) -> None:
        if self.replicas < 1:
            raise ValueError(f"replicas must be >= 1, got {self.replicas}")
        if self.autoscale is not None and not 0 <= self.autoscale[0] <= self.autoscale[1] >= 1:
            raise ValueError(f"autoscale must be (min, max) with 0 <= min <= max, max >= 1, got {self.autoscale}")
        if self.max_queued_requests < 1 and self.max_queued_requests != -1:
            raise ValueError("max_queued_requests must be >= 1 (or -1: unbounded)")


# --------------------------------------------------------------------------- the replica


def visible_npus() -> list[str]:
    """The NPUs Ray gave this replica, with ASCEND_RT_VISIBLE_DEVICES naming exactly them.

    Ray sets the variable itself for an actor holding ``NPU`` resources; this sets it from the
    assigned ids where Ray did not (``RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES=1``, older
    Ray), and puts several in ascending order, since the runtime refuses any other (Ray joins
    them in set order). Call it before ACL is initialised: the runtime reads the variable then.
    A replica given no NPU is refused: it would see every device of its node."""
    ids = ray.get_runtime_context().get_accelerator_ids().get("NPU", [])
    if not ids:
        raise RuntimeError(
            'this replica was given no NPU: the deployment must request ray_actor_options={"resources": {"NPU": 1}}'
        )
    wanted = ",".join(sorted(ids, key=int))
    current = os.environ.get(VISIBLE_DEVICES)
    if current != wanted:
        log.warning(
            "%s=%r in this replica, but Ray assigned NPU %s: setting %s=%s",
            VISIBLE_DEVICES,
            current,
            ids,
            VISIBLE_DEVICES,
            wanted,
        )
        os.environ[VISIBLE_DEVICES] = wanted
    return wanted.split(",")


@serve.ingress()  # the app is built per replica (__serve_build_asgi_app__), once its NPU is known
class Inference:
    """One replica: the inference app on the replica's one NPU."""

    def __init__(self, config: ServerConfig) -> None:
        npus = visible_npus()
        context = serve.get_replica_context()
        runtime = ray.get_runtime_context()
        self._replica = {
            "id": context.replica_id.unique_id,
            "deployment": context.deployment,
            "pid": os.getpid(),
            "node": runtime.get_node_id(),
            "npu_ids": npus,  # the machine's NPUs this replica holds (Ray's ids)
            VISIBLE_DEVICES: os.environ[VISIBLE_DEVICES],
        }
        self._config = replace(config, device=0)  # the only device this process sees

    def __serve_build_asgi_app__(self) -> Any:
        return create_app(self._config, replica=self._replica)

    async def check_health(self) -> None:
        """Serve replaces the replica if this raises: its engine stopped or its device closed."""
        state = self.app.state  # self.app: the Starlette app, from Serve's ASGI wrapper class
        engine, device = getattr(state, "engine", None), getattr(state, "device", None)
        if engine is None or device is None or device.closed or not engine.running:
            raise RuntimeError(f"replica {self._replica['id']}: the inference engine is not running")


def max_ongoing_requests(config: ServerConfig) -> int:
    """What a replica's engine can hold: max_queue waiting and a full batch of single-row
    requests per stream on the device, plus room for /health."""
    return config.max_queue + config.streams * config.max_batch + HEALTH_HEADROOM


def build_app(config: ServerConfig | None = None, options: ServeOptions | None = None) -> Any:
    """The Serve application: ``serve.run(build_app(ServerConfig(...), ServeOptions(...)))``."""
    config = config or ServerConfig()
    options = options or ServeOptions()
    scaling: dict[str, Any]
    if options.autoscale is None:
        scaling = {"num_replicas": options.replicas}
    else:
        low, high = options.autoscale
        scaling = {
            "autoscaling_config": {
                "min_replicas": low,
                "initial_replicas": max(low, 1),
                "max_replicas": high,
                "target_ongoing_requests": options.target_ongoing_requests,
            }
        }
    deployment = serve.deployment(Inference).options(
        name=DEPLOYMENT_NAME,
        ray_actor_options={"num_cpus": options.num_cpus, "resources": {"NPU": 1}},
        max_ongoing_requests=max_ongoing_requests(config),
        max_queued_requests=options.max_queued_requests,
        graceful_shutdown_timeout_s=options.graceful_shutdown_timeout_s,
        graceful_shutdown_wait_loop_s=options.graceful_shutdown_wait_loop_s,
        health_check_period_s=options.health_check_period_s,
        health_check_timeout_s=options.health_check_timeout_s,
        **scaling,
    )
    return deployment.bind(config)


def app_builder(args: dict[str, str]) -> Any:
    """For ``serve run ray_serve:app_builder replicas=2 delay_ms=5`` (Serve's application
    builders): ``replicas``, ``autoscale_min``/``autoscale_max``, and any ServerConfig field."""
    args = dict(args)
    opts: dict[str, Any] = {}
    if "replicas" in args:
        opts["replicas"] = int(args.pop("replicas"))
    if "autoscale_min" in args or "autoscale_max" in args:
        opts["autoscale"] = (int(args.pop("autoscale_min", 1)), int(args.pop("autoscale_max")))
    fields = ServerConfig.__dataclass_fields__
    unknown = set(args) - set(fields)
    if unknown:
        raise ValueError(f"unknown arguments: {sorted(unknown)}")
    # every ServerConfig field is an int or a float (max_body_bytes: or None, its default)
    config = ServerConfig(**{k: (float if "float" in str(fields[k].type) else int)(v) for k, v in args.items()})
    return build_app(config, ServeOptions(**opts))


# --------------------------------------------------------------------------- a local cluster


def free_ports(n: int) -> list[int]:
    """n distinct TCP ports free on this machine right now."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for sock in socks:
            sock.bind(("", 0))
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def _free_port_range(size: int, taken: set[int]) -> int:
    """The first of ``size`` consecutive free ports, away from Ray's default worker ports and
    from ``taken`` (ports chosen for other components: free now, because their sockets were
    closed, but not for the workers -- Ray refuses to start when the two overlap)."""
    for _ in range(100):
        base = 30000 + secrets.randbelow(30000 - size)
        if taken & set(range(base, base + size)):
            continue
        try:
            for port in range(base, base + size):
                with socket.socket() as sock:
                    sock.bind(("", port))
        except OSError:
            continue
        return base
    raise RuntimeError(f"no {size} consecutive free ports for Ray's workers")


def _processes_mentioning(text: str) -> list[int]:
    """Pids of this machine's processes whose command line contains ``text``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


class LocalCluster:
    """A one-node Ray cluster of this machine, as a ``ray start --head --block`` process, with
    ``npus`` NPUs declared as resources (the simulator's devices: AIOCANN_SIM_DEVICES=npus).

    It shares nothing with another Ray on the machine: its own temp dir, every port chosen free
    (not Ray's defaults), and its own authentication token (Ray's token auth is on by default;
    without a token of its own Ray would write one to ~/.ray): ``RAY_AUTH_TOKEN`` if this process
    has one, else a new one (none if this process has ``RAY_AUTH_MODE=disabled``). A process
    connects to ``address`` with ``env``; Ray reads the auth settings when it is imported, so a
    driver in this process needs ``RAY_AUTH_MODE=token`` and the token in its environment before
    ``import ray``. ``stop()`` ends the cluster and every process it started, by pid.

    The cluster runs in a session (and process group) of its own: a Ctrl-C in the terminal goes
    to the whole foreground process group, and would kill Ray's processes -- GCS, raylet, the
    replicas -- before the driver could drain the replicas through them. So only the driver
    gets the terminal's signals, and the driver stops the cluster (``stop()``) once it has
    drained; the flip side is that a driver killed outright (SIGKILL) leaves the cluster
    running, to be stopped with ``ray stop`` or by its ``ray start`` process's pid."""

    def __init__(self, npus: int = 2, cpus: int = 2, logs_to: Path | None = None, timeout: float = 120) -> None:
        # Ray's sockets live in its temp dir, whose path must stay short (AF_UNIX: 107 bytes).
        self.temp_dir = Path(tempfile.mkdtemp(prefix="aiocann-ray-", dir="/tmp"))
        self.logs_to = logs_to
        self.log_path = self.temp_dir / "ray-start.log"
        ports = free_ports(9)
        gcs, client, node_manager, object_manager, agent, agent_grpc, env_agent, metrics, dashboard = ports
        workers = _free_port_range(64, set(ports))
        self.address = f"127.0.0.1:{gcs}"
        self.env = {
            **os.environ,
            "RAY_USAGE_STATS_ENABLED": "0",
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1"),  # BLAS threads spin
            "AIOCANN_SIM_DEVICES": str(npus),
        }
        self.env.pop(VISIBLE_DEVICES, None)  # Ray sets it per replica
        if os.environ.get("RAY_AUTH_MODE", "token") == "token":  # unless told RAY_AUTH_MODE=disabled
            self.env["RAY_AUTH_MODE"] = "token"
            self.env["RAY_AUTH_TOKEN"] = os.environ.get("RAY_AUTH_TOKEN") or secrets.token_hex(16)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "ray"),
                "start",
                "--head",
                "--block",
                "--disable-usage-stats",
                "--node-ip-address=127.0.0.1",
                f"--port={gcs}",
                f"--temp-dir={self.temp_dir}",
                f"--num-cpus={cpus}",
                f'--resources={{"NPU": {npus}}}',
                "--include-dashboard=false",
                f"--dashboard-port={dashboard}",
                f"--ray-client-server-port={client}",
                f"--node-manager-port={node_manager}",
                f"--object-manager-port={object_manager}",
                f"--dashboard-agent-listen-port={agent}",
                f"--dashboard-agent-grpc-port={agent_grpc}",
                f"--runtime-env-agent-port={env_agent}",
                f"--metrics-export-port={metrics}",
                f"--min-worker-port={workers}",
                f"--max-worker-port={workers + 63}",
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=self.env,
            cwd=self.temp_dir,
            start_new_session=True,  # out of reach of the terminal's Ctrl-C (see the class docstring)
        )
        try:
            deadline = time.monotonic() + timeout
            while "Ray runtime started" not in self.log():
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"ray start did not start a cluster:\n{self.log()}")
                time.sleep(0.2)
        except BaseException:  # a Ctrl-C while it starts, too: nothing else would stop it now
            self.stop()
            raise

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> list[int]:
        """SIGTERM to ``ray start --block``, which stops every process it started; then kill, by
        pid, any process of the cluster still running after 20 s (returned: there should be
        none). Its logs (the replicas' included) are copied to ``logs_to``; the temp dir goes."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()
        deadline = time.monotonic() + 20  # workers notice their raylet is gone, and exit
        while (leftovers := _processes_mentioning(str(self.temp_dir))) and time.monotonic() < deadline:
            time.sleep(0.5)
        for pid in leftovers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.logs_to is not None:
            session_logs = self.temp_dir / "session_latest" / "logs"
            if session_logs.is_dir():
                shutil.copytree(session_logs, self.logs_to, symlinks=True, dirs_exist_ok=True)
            self.logs_to.mkdir(parents=True, exist_ok=True)
            shutil.copy(self.log_path, self.logs_to / "ray-start.log")
        shutil.rmtree(self.temp_dir, ignore_errors=True)
        return leftovers

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --------------------------------------------------------------------------- the driver


def run(
    config: ServerConfig,
    options: ServeOptions,
    *,
    address: str | None,
    npus: int,
    host: str,
    port: int,
) -> None:
    """Deploy, serve until SIGINT, SIGTERM or SIGHUP, then shut down gracefully (every replica
    drains) and stop the local cluster if this started one.

    The signals, however they come -- Ctrl-C (SIGINT to the terminal's foreground process
    group), SIGTERM or SIGHUP to that group or to this process alone -- reach this process only:
    a local cluster runs in a session of its own (LocalCluster). Before the service is up, one
    unwinds (KeyboardInterrupt, SystemExit) and stops the cluster; while it serves, it starts
    the drain (serve_until_signalled); while the cluster stops, more of them are ignored, so that
    an impatient second Ctrl-C does not leave the cluster half stopped."""
    cluster = None
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on_signal)  # until serve_until_signalled takes over
    try:
        if not address:
            cpus = max(2, int(max(options.replicas, *(options.autoscale or (1,))) * options.num_cpus))
            cluster = LocalCluster(npus=npus, cpus=cpus)  # with this process's token (see main)
            print(
                f"started a local Ray cluster at {cluster.address} with {npus} NPU resources "
                f"(temp dir {cluster.temp_dir})",
                flush=True,
            )
            address = cluster.address
        # The replicas import inference.py from this directory, shipped to every node with the job.
        ray.init(address=address, runtime_env={"working_dir": str(EXAMPLES_DIR)}, log_to_driver=False)
        try:
            serve_until_signalled(config, options, host=host, port=port)
        finally:
            ray.shutdown()
    finally:
        if cluster is not None:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, _still_stopping)
            print("stopping the local Ray cluster", flush=True)
            t0 = time.monotonic()
            cluster.stop()
            print(f"stopped it in {time.monotonic() - t0:.1f} s", flush=True)


def _exit_on_signal(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)  # unwinds: a local cluster started here is stopped


def _still_stopping(signum: int, frame: Any) -> None:
    # os.write, not print: the signal may interrupt a print, and print is not reentrant
    os.write(sys.stdout.fileno(), f"{signal.Signals(signum).name}: still stopping the local Ray cluster\n".encode())


def serve_until_signalled(config: ServerConfig, options: ServeOptions, *, host: str, port: int) -> None:
    # After ray.init, which installs its own SIGTERM handler (it dumps a stack and exits).
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    serve.start(http_options={"host": host, "port": port})
    serve.run(build_app(config, options), name=APP_NAME, route_prefix="/")
    print(f"serving on http://{host}:{port} ({APP_NAME!r}: {describe(options)})", flush=True)
    while not stop.wait(0.2):
        pass
    print("shutting down: draining the replicas", flush=True)
    t0 = time.monotonic()
    # Deleting the application first shuts every replica down gracefully while the proxy still
    # carries their answers back; only then does Serve itself (proxy, controller) stop.
    serve.delete(APP_NAME)
    print(f"drained in {time.monotonic() - t0:.1f} s", flush=True)
    serve.shutdown()


def describe(options: ServeOptions) -> str:
    if options.autoscale is None:
        return f"{options.replicas} replica(s), one NPU each"
    return f"autoscaling {options.autoscale[0]}..{options.autoscale[1]} replicas, one NPU each"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--address", default=None, help="a running Ray cluster (HOST:PORT of its head); default: start a local one"
    )
    parser.add_argument(
        "--npus",
        type=int,
        default=2,
        help="NPU resources of the local cluster started without --address (simulated NPUs)",
    )
    parser.add_argument("--replicas", type=int, default=ServeOptions.replicas)
    parser.add_argument(
        "--autoscale",
        type=int,
        nargs=2,
        metavar=("MIN", "MAX"),
        default=None,
        help="autoscale between MIN and MAX replicas instead of a fixed --replicas",
    )
    parser.add_argument("--target-ongoing-requests", type=float, default=ServeOptions.target_ongoing_requests)
    parser.add_argument("--num-cpus", type=float, default=ServeOptions.num_cpus, help="Ray CPUs per replica")
    parser.add_argument(
        "--max-queued-requests",
        type=int,
        default=ServeOptions.max_queued_requests,
        help="requests the proxy holds when every replica is full; beyond, 503",
    )
    parser.add_argument("--graceful-shutdown-timeout-s", type=float, default=ServeOptions.graceful_shutdown_timeout_s)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    # The single-process server's options, per replica:
    parser.add_argument("--max-queue", type=int, default=ServerConfig.max_queue)
    parser.add_argument("--max-batch", type=int, default=ServerConfig.max_batch)
    parser.add_argument("--batch-window-ms", type=float, default=ServerConfig.batch_window_ms)
    parser.add_argument("--streams", type=int, default=ServerConfig.streams)
    parser.add_argument("--delay-ms", type=float, default=0.0, help="extra device time per batch (a slow model)")
    parser.add_argument("--in-dim", type=int, default=ServerConfig.in_dim)
    parser.add_argument("--out-dim", type=int, default=ServerConfig.out_dim)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=None,
        help=f"largest request body (default: room for --max-batch rows, {JSON_BYTES_PER_NUMBER} bytes a number)",
    )
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)
    token_auth = os.environ.get("RAY_AUTH_MODE", "token") == "token"
    if not args.address and token_auth and not os.environ.get("RAY_AUTH_TOKEN"):
        # The local cluster gets a token of its own, and this process must connect with it; Ray
        # read its auth settings when it was imported, so start again with them in place.
        os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(16))
        rest = sys.argv[1:] if argv is None else argv
        os.execv(sys.executable, [sys.executable, str(Path(__file__).resolve()), *rest])
    try:
        config = ServerConfig(
            max_queue=args.max_queue,
            max_batch=args.max_batch,
            batch_window_ms=args.batch_window_ms,
            streams=args.streams,
            delay_ms=args.delay_ms,
            in_dim=args.in_dim,
            out_dim=args.out_dim,
            seed=args.seed,
            max_body_bytes=args.max_body_bytes,
        )
        options = ServeOptions(
            replicas=args.replicas,
            autoscale=tuple(args.autoscale) if args.autoscale else None,
            target_ongoing_requests=args.target_ongoing_requests,
            num_cpus=args.num_cpus,
            max_queued_requests=args.max_queued_requests,
            graceful_shutdown_timeout_s=args.graceful_shutdown_timeout_s,
        )
    except ValueError as exc:
        parser.error(str(exc))
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s: %(name)s: %(message)s")
    log.info("config %s, options %s", asdict(config), asdict(options))
    run(config, options, address=args.address, npus=args.npus, host=args.host, port=args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
