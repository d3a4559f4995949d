"""The inference service shared by examples/server.py (one process, uvicorn) and
examples/ray_serve.py (Ray Serve replicas, one NPU each): the model, the batching engine and the
Starlette app.

The model is a one-layer classifier, ``softmax(x @ W.T + b)``, with ``W`` ([out_dim, in_dim])
and ``b`` drawn from a seeded generator (``model_weights``) and kept on the device. A batch of
rows runs as two kernels on one stream: ``matmul`` (examples/kernels/matmul.c, with ``W.T`` as
its right operand and ``b`` as its bias) and ``softmax_rows`` (softmax.cpp, in Ascend C).

Each stream of the engine (a *lane*) captures the whole batch once, when the app starts, into a
graph (``stream.capture()``, ACL Graph) sized for ``max_batch`` rows: the upload of the rows from
the lane's pinned input buffer, the upload of the kernels' tiling blocks, the two kernels, and
the download into the lane's pinned output buffer. A batch then costs one replay -- one
submission, one Completion -- instead of one per copy and kernel. The number of rows is a runtime parameter of the
kernels: their tiling blocks sit in device memory that the graph fills at every replay from
pinned host memory the lane owns, where the batcher writes the batch's row count before the
replay. Rows past it are left as they are and never read back.

Request flow
------------
``POST /infer`` takes ``{"inputs": [[...], ...]}`` (rows of ``in_dim`` floats) or
``{"inputs": [...]}`` (one row) and answers ``{"outputs": ..., "batch": {...}}`` in the same
shape, with the batch that served it (its id, rows and number of requests) -- and, when the app
runs as one replica of several, ``"replica"``: the id of the replica that answered.

* **Bounded input.** A body larger than ``max_body_bytes`` (by default what ``max_batch`` rows
  of ``in_dim`` numbers need in JSON, with generous room per number) is answered ``413``
  before it is parsed: at once from its Content-Length, or, for a chunked body, as soon as
  the bytes read pass the limit -- the rest is never read, and the connection is closed.
  JSON nested too deeply to parse is answered ``400``; numbers that are not finite -- NaN, or
  too large for a float32 or for any float (``1`` and 400 zeros) -- ``422``. A client that goes
  away before its body is complete costs one INFO line in the log.

* **Dynamic batching.** Handlers only queue their rows. One batcher task waits for a free
  stream, takes the oldest request, then gathers more for up to ``batch_window_ms`` or until
  ``max_batch`` rows, and runs the batch -- one replay of the stream's graph: upload, kernels,
  download -- on that stream while it goes on to form the next batch for another stream. Each
  request gets back its own rows.
* **Failures.** A replay that fails (a kernel fault, say) fails exactly the requests of its
  batch, with the runtime's error (``500``); the lane gets a fresh stream, keeps its graph, and
  serves the next batch.
* **Back-pressure.** At most ``max_queue`` requests wait for a batch; beyond that ``/infer``
  answers at once with ``503`` and ``Retry-After`` (JSON ``{"error": "queue full", ...}``), so a
  client learns quickly that it should back off, instead of piling up behind a slow device.
* **Draining.** When the app's lifespan ends (the server was told to stop, after it has
  stopped taking requests and waited for the ones it has), the engine stops admitting work,
  runs what is still queued, waits for the batches on the device, answers their requests, and
  only then closes the Device.

``GET /health`` reports the state, the device (its index and the machine's id for it), the
queue, and batching statistics (batches run, rows, the distribution of batch sizes).

``delay_ms`` adds that much device time to every batch (the ``delay_us`` kernel on the batch's
stream), playing a slow model: the tests of back-pressure and draining use it.
"""

from __future__ import annotations

import json
import logging
from collections import Counter, deque
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import numpy as np
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import aiocann as ac
from aiocann.compiler import build_kernel

KERNELS_DIR = Path(__file__).resolve().parent / "kernels"
BLOCKS = 8  # the simulator's default AI cores per device
RETRY_AFTER_S = 1
# The default body limit allows this much JSON text per number: "-0.12345678901234568" is 20
# characters; the rest is room for separators, indentation and the rows' brackets.
JSON_BYTES_PER_NUMBER = 48
JSON_ENVELOPE_BYTES = 4096  # '{"inputs": ...}' and whatever else a client puts around the rows

log = logging.getLogger("aiocann.examples.inference")


@dataclass(frozen=True)
class ServerConfig:
    max_queue: int = 256  # requests waiting for a batch; more are refused with 503
    max_batch: int = 32  # rows per batch (and per request)
    batch_window_ms: float = 2.0  # how long a batch waits for more requests
    streams: int = 2  # batches on the device at once
    delay_ms: float = 0.0  # extra device time per batch (a slow model, for tests)
    in_dim: int = 64
    out_dim: int = 10
    seed: int = 0
    device: int = 0
    max_body_bytes: int | None = None  # request body limit; None: room for max_batch rows (body_limit)

    def __post_init__(self) -> None:
        for name in ("max_queue", "max_batch", "streams", "in_dim", "out_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.batch_window_ms < 0 or self.delay_ms < 0:
            raise ValueError("batch_window_ms and delay_ms must be >= 0")
        if self.max_body_bytes is not None and self.max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be >= 1, got {self.max_body_bytes}")

    @property
    def body_limit(self) -> int:
        """The largest request body /infer reads: max_body_bytes, by default enough for
        max_batch rows of in_dim numbers written out in JSON, with generous room per number."""
        if self.max_body_bytes is not None:
            return self.max_body_bytes
        return JSON_ENVELOPE_BYTES + self.max_batch * self.in_dim * JSON_BYTES_PER_NUMBER


def model_weights(in_dim: int, out_dim: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The model's fixed parameters: W [out_dim, in_dim] and b [out_dim], float32."""
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((out_dim, in_dim)) / np.sqrt(in_dim)).astype(np.float32)
    b = (0.1 * rng.standard_normal(out_dim)).astype(np.float32)
    return w, b


def reference(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """What the server computes for rows x, in numpy (float64 inside)."""
    logits = np.asarray(x, np.float64) @ w.T.astype(np.float64) + b
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def build_kernels() -> dict[str, Path]:
    # softmax_rows in Ascend C (softmax.cpp), the others in plain C.
    return {
        name: build_kernel(KERNELS_DIR / src)
        for name, src in (("matmul", "matmul.c"), ("softmax", "softmax.cpp"), ("delay", "delay.c"))
    }


# --------------------------------------------------------------------------- the engine


class QueueFull(Exception):
    pass


class ShuttingDown(Exception):
    pass


class _Request:
    """Rows waiting for (then carrying) their outputs; ``done`` is set when either is known."""

    __slots__ = ("x", "done", "result", "error", "batch")

    def __init__(self, x: np.ndarray) -> None:
        self.x = x
        self.done = anyio.Event()
        self.result: np.ndarray | None = None
        self.error: str | None = None
        self.batch: dict[str, int] = {}

    @property
    def rows(self) -> int:
        return len(self.x)


@dataclass
class _Lane:
    """One stream, the graph that runs a batch on it, and the pinned host buffers that graph
    reads and writes at every replay (sized for max_batch rows). The graph holds the device
    buffers and the kernels' args."""

    stream: ac.Stream
    graph: ac.Graph
    x_host: np.ndarray  # [max_batch, in_dim]: the batch's rows, uploaded by each replay
    out_host: np.ndarray  # [max_batch, out_dim]: the probabilities, downloaded by each replay
    mm_tiling: np.ndarray  # matmul's tiling block, uploaded by each replay: the row count
    sm_tiling: np.ndarray  # softmax's


class Engine:
    """The batcher and its pool of streams. Lives inside the app's lifespan."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        # The queue is a deque plus a wake-up event rather than a memory object stream: the
        # batcher waits for "more requests or the end of the window", and a receive() that a
        # timeout cancels could lose the request it was handed at that very moment.
        self._pending: deque[_Request] = deque()
        self._arrived = anyio.Event()
        self._closing = False
        self._lanes_in, self._lanes_out = anyio.create_memory_object_stream[_Lane](config.streams)
        self._streams: list[ac.Stream] = []
        self._kernels: dict[str, ac.Kernel] = {}
        self._device: ac.Device | None = None
        self._in_flight = 0
        self._running = False
        self._next_batch_id = 0
        self.stats: Counter[str] = Counter()
        self.batch_sizes: Counter[int] = Counter()

    # -- requests (event loop, handler tasks) -----------------------------------------------

    def submit(self, x: np.ndarray) -> _Request:
        if self._closing:
            raise ShuttingDown
        if len(self._pending) >= self.config.max_queue:
            self.stats["rejected"] += 1
            raise QueueFull
        req = _Request(x)
        self._pending.append(req)
        self.stats["accepted"] += 1
        self._arrived.set()
        return req

    # -- setup --------------------------------------------------------------------------

    async def open(self, dev: ac.Device) -> None:
        cfg = self.config
        self._device = dev
        paths = await anyio.to_thread.run_sync(build_kernels)
        self._kernels = {
            "matmul": (await dev.load_binary(paths["matmul"])).function("matmul"),
            "softmax": (await dev.load_binary(paths["softmax"])).function("softmax_rows"),
            "delay": (await dev.load_binary(paths["delay"])).function("delay_us"),
        }
        w, b = model_weights(cfg.in_dim, cfg.out_dim, cfg.seed)
        # One copy of the weights, shared by every stream: wait until it is on the device, since
        # the other streams' kernels are not ordered after this stream's copies.
        async with dev.stream() as s:
            wt, bias = await s.upload(np.ascontiguousarray(w.T)), await s.upload(b)
        for _ in range(cfg.streams):
            s = dev.stream()  # closed by the Device on the way out
            self._streams.append(s)  # held here: the lane queue drops its lanes when it closes
            self._lanes_in.send_nowait(await self._capture_lane(dev, s, wt, bias))

    async def _capture_lane(self, dev: ac.Device, s: ac.Stream, wt: ac.DeviceArray, bias: ac.DeviceArray) -> _Lane:
        """A lane on stream ``s``: its pinned buffers, and the graph of one batch, captured."""
        cfg = self.config
        k = self._kernels
        x_host = dev.pinned_empty((cfg.max_batch, cfg.in_dim), np.float32)
        out_host = dev.pinned_empty((cfg.max_batch, cfg.out_dim), np.float32)
        mm_host, sm_host = dev.pinned_empty(4, np.uint32), dev.pinned_empty(2, np.uint32)
        x = dev.empty((cfg.max_batch, cfg.in_dim), np.float32)
        logits = dev.empty((cfg.max_batch, cfg.out_dim), np.float32)
        probs = dev.empty((cfg.max_batch, cfg.out_dim), np.float32)
        # The tiling blocks live in device memory rather than in placeholders: a placeholder's
        # data is copied into the args when the kernel is captured, and the row count changes
        # with every batch. The kernels take a pointer to their tiling either way.
        mm_tiling, sm_tiling = dev.empty(4, np.uint32), dev.empty(2, np.uint32)
        mm = await k["matmul"].args().ptr(x).ptr(wt).ptr(bias).ptr(logits).ptr(mm_tiling)
        sm = await k["softmax"].args().ptr(logits).ptr(probs).ptr(sm_tiling)
        delay = await k["delay"].args().u64(round(cfg.delay_ms * 1000)) if cfg.delay_ms else None
        async with s.capture() as graph:
            # Copies of pinned memory are captured as such: each replay reads the lane's
            # buffers as the batcher left them, and writes the outputs back into out_host.
            await s.copy_from_host(x, x_host)
            await s.copy_from_host(mm_tiling, mm_host)
            await s.copy_from_host(sm_tiling, sm_host)
            if delay is not None:
                await ac.launch(k["delay"], delay, blocks=1, stream=s)
            # Every block count is fixed at capture: blocks past the batch's rows find no row
            # of their own (the kernels split rows, not a row's arithmetic, across blocks), so
            # the results are the same as with fewer blocks.
            await ac.launch(k["matmul"], mm, blocks=BLOCKS, stream=s)
            await ac.launch(k["softmax"], sm, blocks=BLOCKS, stream=s)
            await s.copy_to_host(out_host, probs)
        return _Lane(s, graph, x_host, out_host, mm_host, sm_host)

    def _mm_tiling(self, rows: int) -> np.ndarray:
        return np.array([rows, self.config.out_dim, self.config.in_dim, 0], np.uint32)

    def _sm_tiling(self, rows: int) -> np.ndarray:
        return np.array([rows, self.config.out_dim], np.uint32)

    # -- the batcher ----------------------------------------------------------------------

    async def run(self) -> None:
        """Form batches and start each on a free stream, until closed and drained."""
        self._running = True
        try:
            await self._batch_until_drained()
        finally:
            self._running = False

    async def _batch_until_drained(self) -> None:
        with self._lanes_in, self._lanes_out:
            async with anyio.create_task_group() as tg:
                while True:
                    lane = await self._lanes_out.receive()
                    batch = await self._next_batch()
                    if batch is None:
                        break
                    self._in_flight += 1
                    tg.start_soon(self._run_batch, lane, batch)
            # Leaving the task group waited for every batch still on the device.

    async def _wait_arrival(self) -> None:
        self._arrived = anyio.Event()
        await self._arrived.wait()

    async def _next_batch(self) -> list[_Request] | None:
        """The next batch: the oldest request plus what arrives within the window, up to
        max_batch rows. None once closing and nothing is left."""
        while not self._pending:
            if self._closing:
                return None
            await self._wait_arrival()
        cfg = self.config
        deadline = anyio.current_time() + cfg.batch_window_ms / 1000
        while not self._closing and self._queued_rows(cfg.max_batch) < cfg.max_batch:
            remaining = deadline - anyio.current_time()
            if remaining <= 0:
                break
            with anyio.move_on_after(remaining):
                await self._wait_arrival()
        batch = [self._pending.popleft()]
        rows = batch[0].rows
        while self._pending and rows + self._pending[0].rows <= cfg.max_batch:
            req = self._pending.popleft()
            batch.append(req)
            rows += req.rows
        return batch

    def _queued_rows(self, limit: int) -> int:
        rows = 0
        for req in self._pending:
            rows += req.rows
            if rows >= limit:
                break
        return rows

    async def _run_batch(self, lane: _Lane, batch: list[_Request]) -> None:
        rows = sum(r.rows for r in batch)
        batch_id = self._next_batch_id
        self._next_batch_id += 1
        info = {"id": batch_id, "rows": rows, "requests": len(batch)}
        try:
            offset = 0
            for r in batch:
                lane.x_host[offset : offset + r.rows] = r.x
                offset += r.rows
            # The whole max_batch-row buffer goes up (a fixed-size copy in the graph); the
            # kernels' tiling, uploaded by the same replay, says how many rows are real.
            lane.mm_tiling[:] = self._mm_tiling(rows)
            lane.sm_tiling[:] = self._sm_tiling(rows)
            replay = await lane.graph.launch(stream=lane.stream)
            self.stats["graph_replays"] += 1
            # The replay fails if any of its tasks did (the first failure's error): then the
            # rows in out_host are not this batch's answers.
            await replay
            offset = 0
            for r in batch:
                r.result = lane.out_host[offset : offset + r.rows].copy()
                offset += r.rows
        except Exception as exc:  # a device error fails this batch's requests, not the server
            log.exception("batch %d failed", batch_id)
            self.stats["failed_batches"] += 1
            for r in batch:
                r.error = f"{type(exc).__name__}: {exc}"
            await self._replace_stream(lane)
        finally:
            self.stats["batches"] += 1
            for r in batch:
                if r.result is None and r.error is None:  # cancelled (a forced exit)
                    r.error = "the server stopped before this batch finished"
            self.stats["rows"] += rows
            self.stats["requests"] += len(batch)
            self.batch_sizes[rows] += 1
            for r in batch:
                r.batch = info
                r.done.set()
            self._in_flight -= 1
            self._lanes_in.send_nowait(lane)

    async def _replace_stream(self, lane: _Lane) -> None:
        # The stream itself goes on after a failure, but it still holds the failure for its next
        # synchronize point: give the lane a fresh stream and close the old one without
        # reporting, since this batch's requests were already answered with the error. The
        # graph stays: a captured model replays on any stream of its device, and outlives the
        # stream it was captured on (the runtime records it into streams of the model's own).
        assert self._device is not None
        old = lane.stream
        try:
            lane.stream = self._device.stream()
            self._streams[self._streams.index(old)] = lane.stream
            await old.aclose(raise_errors=False)
        except Exception:
            log.exception("cannot replace the failed stream; its lane keeps failing")

    @property
    def queued(self) -> int:
        return len(self._pending)

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def running(self) -> bool:
        """Whether the batcher is at work (until it has drained after close())."""
        return self._running

    def close(self) -> None:
        """Stop admitting requests; the batcher runs what is queued, then returns."""
        self._closing = True
        self._arrived.set()

    def health(self) -> dict[str, Any]:
        batches = self.stats["batches"]
        dev = self._device
        return {
            "status": "draining" if self._closing else "ok",
            # index: the device as this process numbers it; logic_id: the machine's id for it
            # (they differ when ASCEND_RT_VISIBLE_DEVICES restricts the devices, as Ray does)
            "device": {"index": self.config.device, "logic_id": dev.logic_id if dev is not None else None},
            "queue": len(self._pending),
            "batches_in_flight": self._in_flight,
            "config": {**asdict(self.config), "max_body_bytes": self.config.body_limit},
            "stats": {
                "accepted": self.stats["accepted"],
                "rejected": self.stats["rejected"],
                "requests": self.stats["requests"],
                "batches": batches,
                "failed_batches": self.stats["failed_batches"],
                "graph_replays": self.stats["graph_replays"],  # one per batch that reached the device
                "rows": self.stats["rows"],
                "max_batch_rows": max(self.batch_sizes, default=0),
                "mean_batch_rows": self.stats["rows"] / batches if batches else 0.0,
                "batch_sizes": {str(k): v for k, v in sorted(self.batch_sizes.items())},
            },
        }


class HostEngine(Engine):
    """The same model in numpy on the host, each request answered as it is submitted: no
    device, no batching. ``create_app(numpy=True)`` (``server.py --numpy``) serves with it --
    what the HTTP stack alone serves on this machine, the baseline of benchmarks/bench_server.py.
    Answers agree with the device's to float32 rounding (numpy computes in float64)."""

    def __init__(self, config: ServerConfig) -> None:
        super().__init__(config)
        self._lanes_in.close()  # no streams, no lanes
        self._lanes_out.close()

    async def open(self, dev: ac.Device | None) -> None:
        self._w, self._b = model_weights(self.config.in_dim, self.config.out_dim, self.config.seed)

    def submit(self, x: np.ndarray) -> _Request:
        if self._closing:
            raise ShuttingDown
        req = _Request(x)
        req.result = reference(x, self._w, self._b).astype(np.float32)
        req.batch = {"id": self._next_batch_id, "rows": req.rows, "requests": 1}
        self._next_batch_id += 1
        self.stats.update(accepted=1, requests=1, batches=1, rows=req.rows)
        self.batch_sizes[req.rows] += 1
        req.done.set()
        return req

    async def run(self) -> None:
        """Nothing to batch: wait until closed."""
        self._running = True
        try:
            while not self._closing:
                await self._wait_arrival()
        finally:
            self._running = False

    def health(self) -> dict[str, Any]:
        return {**super().health(), "device": None}


# --------------------------------------------------------------------------- HTTP


def _error(status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    if status == 503:
        headers = {**(headers or {}), "Retry-After": str(RETRY_AFTER_S)}
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


class BodyTooLarge(Exception):
    pass


def _peer(request: Request) -> str:
    return f"{request.client.host}:{request.client.port}" if request.client else "?"


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, or BodyTooLarge as soon as it is known to exceed ``limit`` bytes: from
    its Content-Length before any of it is read, else (a chunked body) while it streams in. So
    an oversized body is never buffered whole, let alone parsed."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(
    config: ServerConfig | None = None, *, replica: dict[str, Any] | None = None, numpy: bool = False, **overrides: Any
) -> Starlette:
    """The Starlette app. ``create_app(max_queue=8, delay_ms=50)`` or with a ServerConfig.

    ``replica``: when the app is one replica of several, what identifies it (its ``"id"`` and
    whatever else ``/health`` should report); every ``/infer`` answer then names it.
    ``numpy``: answer with the model in numpy on the host, opening no device (``HostEngine``)."""
    cfg = ServerConfig(**overrides) if config is None else ServerConfig(**{**asdict(config), **overrides})
    tag: dict[str, Any] = {} if replica is None else {"replica": replica["id"]}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            dev = None if numpy else await stack.enter_async_context(ac.Device(cfg.device))
            engine = HostEngine(cfg) if numpy else Engine(cfg)
            await engine.open(dev)
            async with anyio.create_task_group() as tg:
                tg.start_soon(engine.run)
                app.state.engine, app.state.device = engine, dev
                log.info("serving: %s", cfg)
                try:
                    yield
                finally:
                    # The server (uvicorn, or Ray Serve for a replica) has already stopped
                    # routing requests here and waited for those it had sent; whatever is still
                    # queued or on the device is finished and answered here.
                    log.info("draining: %d queued, %d batches in flight", engine.queued, engine.in_flight)
                    engine.close()
            app.state.final_health = engine.health()
            log.info("drained: %s", app.state.final_health["stats"])
        # The Device is closed: its streams, buffers and binaries are released.

    async def infer(request: Request) -> JSONResponse:
        engine: Engine = request.app.state.engine
        limit = cfg.body_limit
        try:
            raw = await read_body(request, limit)
        except BodyTooLarge:
            # The rest of the body stays unread, so this connection cannot carry another request.
            return _error(
                413, f"the body is larger than {limit} bytes", headers={"Connection": "close"}, max_body_bytes=limit
            )
        except ClientDisconnect:
            # The client went away before its body was complete: nobody is left to answer, and
            # it is the client's doing, not the server's -- one line, no traceback.
            log.info("client %s disconnected before its request body was complete", _peer(request))
            return _error(400, "the client disconnected mid-body")  # never delivered
        try:
            body = json.loads(raw)
        except RecursionError:  # the decoder recurses once per nesting level
            return _error(400, "the JSON body is nested too deeply")
        except ValueError:
            return _error(400, 'the body must be JSON: {"inputs": [[...], ...]}')
        if not isinstance(body, dict) or "inputs" not in body:
            return _error(400, 'expected a JSON object with an "inputs" field')
        try:
            with np.errstate(over="ignore"):  # a float32 overflow is inf, refused below
                x = np.asarray(body["inputs"], dtype=np.float32)
        except OverflowError:  # a JSON integer too large for any float (10**400): not finite
            return _error(422, "inputs must be finite numbers")
        except (TypeError, ValueError):
            return _error(422, "inputs must be a list of numbers or a list of such lists")
        single = x.ndim == 1
        if single:
            x = x[None, :]
        if x.ndim != 2 or x.shape[1] != cfg.in_dim or x.shape[0] == 0:
            return _error(422, f"inputs must be one row or a list of rows of {cfg.in_dim} numbers", shape=list(x.shape))
        if x.shape[0] > cfg.max_batch:
            return _error(413, f"at most {cfg.max_batch} rows per request", rows=x.shape[0])
        if not np.isfinite(x).all():
            return _error(422, "inputs must be finite numbers")
        try:
            req = engine.submit(x)
        except QueueFull:
            return _error(503, "queue full", queue=engine.queued, max_queue=cfg.max_queue, **tag)
        except ShuttingDown:
            return _error(503, "shutting down", **tag)
        # If the client goes away, this task is cancelled; the batch still runs, and the
        # result is dropped.
        await req.done.wait()
        if req.error is not None:
            return _error(500, req.error, batch=req.batch, **tag)
        assert req.result is not None
        if not np.isfinite(req.result).all():
            return _error(422, "the outputs overflowed: inputs too large", batch=req.batch)
        outputs = req.result[0].tolist() if single else req.result.tolist()
        return JSONResponse({"outputs": outputs, "batch": req.batch, **tag})

    async def health(request: Request) -> JSONResponse:
        engine: Engine | None = getattr(request.app.state, "engine", None)
        if engine is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        return JSONResponse(engine.health() if replica is None else {**engine.health(), "replica": replica})

    return Starlette(
        routes=[Route("/infer", infer, methods=["POST"]), Route("/health", health, methods=["GET"])],
        lifespan=lifespan,
    )
