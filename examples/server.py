"""An async inference server: Starlette on uvicorn, dynamic batching onto a pool of streams.

    python examples/server.py [--host 127.0.0.1] [--port 8000] [--max-queue 256] [--max-batch 32]
                              [--max-body-bytes N] [--numpy]
    curl -s localhost:8000/infer -d '{"inputs": [0.1, 0.2, ...]}'      # in_dim floats
    curl -s localhost:8000/health

The model, the batching engine and the HTTP app are in examples/inference.py (shared with
examples/ray_serve.py, which runs the same app as Ray Serve replicas, one NPU each): see there
for the request flow, back-pressure and draining. This file is the single-process driver:
uvicorn serves the app on one device. On SIGTERM/SIGINT uvicorn stops accepting connections and
waits for the requests it has; the app's lifespan then drains the engine (every queued request
and batch on the device is answered) and closes the Device. The process exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
import threading
from typing import Any

try:
    from inference import JSON_BYTES_PER_NUMBER, ServerConfig, create_app
except ModuleNotFoundError as exc:  # starlette / uvicorn: the server extra
    if __name__ != "__main__":
        raise  # imported (a benchmark, a test): the importer decides what a missing extra means
    sys.exit(f"server.py needs the module {exc.name!r}: python -m pip install 'aiocann[server]'")

# --------------------------------------------------------------------------- entry point


async def serve(
    config: ServerConfig | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    numpy: bool = False,
    **overrides: Any,
) -> dict[str, Any]:
    """Serve on the running asyncio loop until SIGINT/SIGTERM, drain, and return the final
    ``/health`` document (its ``stats`` hold the batching figures). ``numpy``: answer with the
    model in numpy on the host instead (no device)."""
    import uvicorn

    app = create_app(config, numpy=numpy, **overrides)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on"))
    # uvicorn handles SIGINT/SIGTERM with a graceful shutdown, then re-raises the signal under
    # the handlers that were in place before it started, so that the process dies of it. A
    # server that drained cleanly should return (and its process exit 0): make those handlers
    # uvicorn's own, for which the re-raised signal is a no-op once it has stopped.
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {sig: signal.signal(sig, server.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        await server.serve()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if not server.started:
        raise RuntimeError("the server did not start: see the log above")
    result: dict[str, Any] = app.state.final_health
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--max-queue",
        type=int,
        default=ServerConfig.max_queue,
        help="requests waiting for a batch before /infer answers 503",
    )
    parser.add_argument("--max-batch", type=int, default=ServerConfig.max_batch, help="rows per batch")
    parser.add_argument(
        "--batch-window-ms",
        type=float,
        default=ServerConfig.batch_window_ms,
        help="how long a batch waits for more requests",
    )
    parser.add_argument("--streams", type=int, default=ServerConfig.streams, help="batches on the device at once")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="extra device time per batch (a slow model)")
    parser.add_argument(
        "--in-dim",
        type=int,
        default=ServerConfig.in_dim,
        help=f"numbers per request row, the model's input (default {ServerConfig.in_dim})",
    )
    parser.add_argument(
        "--out-dim",
        type=int,
        default=ServerConfig.out_dim,
        help=f"numbers per answer row, the model's output (default {ServerConfig.out_dim})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the model's weights")
    parser.add_argument("--device", type=int, default=0, help="the NPU to serve on (default 0)")
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=None,
        help="largest request body; larger ones get 413 unread (default: room for "
        f"--max-batch rows of --in-dim numbers, {JSON_BYTES_PER_NUMBER} bytes each)",
    )
    parser.add_argument(
        "--numpy",
        action="store_true",
        help="answer with the model in numpy on the host, no device and no batching "
        "(what the HTTP stack alone serves: benchmarks/bench_server.py's baseline)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="uvicorn's and the server's log level (default info)",
    )
    args = parser.parse_args(argv)
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
            device=args.device,
            max_body_bytes=args.max_body_bytes,
        )
    except ValueError as exc:
        parser.error(str(exc))
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s: %(name)s: %(message)s")
    try:
        final = asyncio.run(serve(config, host=args.host, port=args.port, log_level=args.log_level, numpy=args.numpy))
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stats = final["stats"]
    print(
        f"served {stats['requests']} requests ({stats['rows']} rows) in {stats['batches']} batches, "
        f"mean {stats['mean_batch_rows']:.1f} rows per batch; refused {stats['rejected']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
