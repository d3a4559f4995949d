"""A multi-stream, double-buffered pipeline: upload -> kernel chain -> download, verified.

    python examples/pipeline.py [--streams 4] [--batches 24] [--batch-size 256] [--cols 256]

Each of ``streams`` pipelines pushes ``batches`` batches through a chain of four kernels, a
small scoring head over the row-normalised sum of two inputs:

    z = x + y            (vector_add.c, add_custom)
    s = softmax(z)       (softmax.c, softmax_rows: row-wise, in place on z)
    h = s @ W            (matmul.c, matmul: W is [cols, hidden], fixed for the run)
    v = h @ u            (matvec.c, matvec: one dot product per row, u fixed for the run)

where ``x`` and ``y`` are ``[batch_size, cols]`` float32 matrices drawn fresh for every batch.
Every batch's ``s`` and ``v`` are downloaded and checked against numpy.

How one pipeline overlaps copies with kernels
---------------------------------------------
A pipeline owns three streams -- ``copy_in`` (uploads), ``compute`` (the four kernels) and
``copy_out`` (downloads) -- and two *slots* of device buffers, used by alternate batches. Two
tasks drive it: the producer enqueues the uploads and kernels of batch ``b``, the consumer the
downloads of batch ``b`` and the check. Nothing on the host waits for the device except where
a buffer is about to be reused:

* upload of ``b`` -> kernels of ``b``: the compute stream waits (on the device) for the event
  recorded after the upload;
* kernels of ``b`` -> download of ``b``: the copy-out stream waits for the event recorded after
  the kernels;
* kernels of ``b - 2`` -> upload of ``b`` into the same slot: the copy-in stream waits for the
  event recorded after those kernels, so an upload never overwrites inputs still being read;
* download of ``b - 2`` -> kernels of ``b`` writing the same slot: ``Stream.download`` returns
  when the copy is done, so the consumer sets a host-side flag and the producer waits for it
  before enqueuing the kernels.

So while the kernels of batch ``b`` run on the AI cores, the upload of ``b + 1`` runs on the
copy engine, and the ``streams`` pipelines interleave on top of that. The host's numpy work
(drawing inputs, checking outputs) runs in worker threads, so the event loop only enqueues.

What the overlap figures mean
-----------------------------
Every stage is bracketed by two timing events on its stream, so its start and end are *device*
timestamps (``Event.timestamp_us``). From them:

* ``upload_overlap``: the fraction of the time some upload was in progress during which some
  kernel chain was running as well -- copies hidden behind compute;
* ``concurrency``: the summed duration of all upload and kernel stages divided by the span
  from the first upload to the last kernel: above 1.0, stages ran at the same time; below it,
  the device was idle part of the time, waiting for the host (on the simulator the host and
  the "AI cores" share the machine's CPUs, so a busy machine shows up here).

Downloads are left out of both: ``Stream.download`` awaits its copy, so an event recorded after
it lands only after a host round trip and would overstate the stage.

``run_pipeline`` is what ``python -m aiocann demo`` calls; it returns a summary dict (see
``format_summary``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import numpy as np

import aiocann as ac
from aiocann.compiler import build_kernel, example_kernel

# The kernels' sources; softmax is the Ascend C one (softmax.cpp), built as the NPU's compiler would.
KERNEL_SOURCES = {"vector_add": "vector_add.c", "softmax": "softmax.cpp", "matmul": "matmul.c", "matvec": "matvec.c"}
KERNEL_NAMES = tuple(KERNEL_SOURCES)
BLOCKS = 8  # the simulator's default AI cores per device
SLOTS = 2  # double buffering


def build_kernels() -> dict[str, Path]:
    """Compile (or find in the cache) the pipeline's kernels: {name: path of the binary}."""
    return {name: build_kernel(example_kernel(src)) for name, src in KERNEL_SOURCES.items()}


def reference(x: np.ndarray, y: np.ndarray, w: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What the kernel chain computes, in numpy: (s, v) with s = softmax(x + y), v = s @ w @ u."""
    s = x + y
    s -= s.max(axis=1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=1, keepdims=True)
    # v as s @ (w @ u), from elementwise products and sums: no BLAS call. A multithreaded BLAS
    # (numpy's OpenBLAS) keeps its worker threads spinning after each call, and on a small
    # machine they take the CPUs from the simulator's AI cores: a 64-row check took 15 ms so,
    # against 0.1 ms this way.
    wu = (w.astype(np.float64) * u).sum(axis=1)
    return s, (s * wu).sum(axis=1).astype(np.float32)


def _random_pair(rng: np.random.Generator, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    # Uniform in [-4, 4): cheaper to draw than normals, so the host keeps ahead of the device.
    a = rng.random((2, rows, cols), dtype=np.float32)
    a *= 8.0
    a -= 4.0
    return a[0], a[1]


# --------------------------------------------------------------------------- the pipeline


@dataclass
class _Slot:
    """One set of device buffers, and what orders its reuse."""

    x_host: np.ndarray  # pinned: the uploads copy from here with no staging
    y_host: np.ndarray
    x: ac.DeviceArray
    y: ac.DeviceArray
    z: ac.DeviceArray  # x + y, then softmax in place
    h: ac.DeviceArray  # softmax @ W
    v: ac.DeviceArray  # h @ u
    args: tuple[tuple[ac.Kernel, ac.KernelArgs], ...]  # the chain, in order
    graph: ac.Graph  # the chain, captured: one replay per batch
    uploaded: ac.Completion | None = None  # the slot's last upload: x_host, y_host free
    computed: ac.Event | None = None  # after the kernels of the slot's last batch: x, y free
    outputs_free: anyio.Event = field(default_factory=anyio.Event)  # its download is done


@dataclass
class _InFlight:
    """A batch between the producer and the consumer."""

    index: int
    slot: _Slot
    x: np.ndarray
    y: np.ndarray
    events: tuple[ac.Event, ac.Event, ac.Event, ac.Event]  # upload start/end, kernels start/end


@dataclass
class _Kernels:
    add: ac.Kernel
    softmax: ac.Kernel
    matmul: ac.Kernel
    matvec: ac.Kernel


class _Run:
    """State shared by all the pipelines of one run."""

    def __init__(self, total: int, progress: Callable[[int, int], Any] | None) -> None:
        self.total = total
        self.progress = progress
        self.done = 0
        self.mismatches: list[tuple[int, int, str]] = []
        self.upload_spans: list[tuple[int, int]] = []
        self.kernel_spans: list[tuple[int, int]] = []
        # Host clock, from the first batch started to the last one checked: the throughput
        # leaves out setting up (buffers, streams) and tearing down.
        self.first_start = float("inf")
        self.last_end = 0.0

    def starting(self) -> None:
        self.first_start = min(self.first_start, time.perf_counter())

    def finished(self, pipeline: int, batch: int, problem: str | None) -> None:
        self.last_end = time.perf_counter()
        if problem is not None:
            self.mismatches.append((pipeline, batch, problem))
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)


async def _make_slot(
    dev: ac.Device, k: _Kernels, w: ac.DeviceArray, u: ac.DeviceArray, rows: int, cols: int, compute: ac.Stream
) -> _Slot:
    hidden = w.shape[1]
    x_host, y_host = dev.pinned_empty((rows, cols), np.float32), dev.pinned_empty((rows, cols), np.float32)
    x, y = dev.empty((rows, cols), np.float32), dev.empty((rows, cols), np.float32)
    z, h = dev.empty((rows, cols), np.float32), dev.empty((rows, hidden), np.float32)
    v = dev.empty(rows, np.float32)
    # Argument lists are built once per slot and relaunched for every batch that uses it.
    args = (
        (k.add, await k.add.args().ptr(x).ptr(y).ptr(z).placeholder(np.array([rows * cols, 0], np.uint32))),
        (k.softmax, await k.softmax.args().ptr(z).ptr(z).placeholder(np.array([rows, cols], np.uint32))),
        (
            k.matmul,
            await k.matmul.args()
            .ptr(z)
            .ptr(w)
            .ptr(0)
            .ptr(h)  # ptr(0): no bias
            .placeholder(np.array([rows, hidden, cols, 0], np.uint32)),
        ),
        (k.matvec, await k.matvec.args().ptr(h).ptr(u).ptr(v).placeholder(np.array([rows, hidden], np.uint32))),
    )
    # The four kernels are captured once into a graph and replayed for every batch that uses
    # the slot: one submission per batch instead of four.
    async with compute.capture() as graph:
        for kernel, kargs in args:
            await ac.launch(kernel, kargs, blocks=BLOCKS, stream=compute)
    slot = _Slot(x_host, y_host, x, y, z, h, v, args, graph)
    slot.outputs_free.set()
    return slot


async def _pipeline(
    index: int,
    dev: ac.Device,
    k: _Kernels,
    w_host: np.ndarray,
    u_host: np.ndarray,
    batches: int,
    rows: int,
    cols: int,
    seed: int,
    run: _Run,
) -> None:
    rng = np.random.default_rng([seed, index])
    async with dev.stream() as copy_in, dev.stream() as compute, dev.stream() as copy_out:
        # The compute stream sees these through its wait on the first batch's upload event.
        w, u = await copy_in.upload(w_host), await copy_in.upload(u_host)
        slots = [await _make_slot(dev, k, w, u, rows, cols, compute) for _ in range(SLOTS)]
        # Capacity SLOTS: the producer runs at most two batches ahead of the checks.
        send, receive = anyio.create_memory_object_stream[_InFlight](SLOTS)

        async def produce() -> None:
            async with send:
                run.starting()
                for b in range(batches):
                    slot = slots[b % SLOTS]
                    # The host's own number crunching (drawing inputs here, the checks in the
                    # consumer) runs in worker threads -- numpy releases the GIL -- so the
                    # event loop stays free to keep every stream fed.
                    x, y = await anyio.to_thread.run_sync(_random_pair, rng, rows, cols)
                    # Stage into the slot's pinned buffers here, before the first event, so the
                    # upload's span holds device work only (copy_from_host would stage pageable
                    # memory itself, between the events).
                    if slot.uploaded is not None:
                        await slot.uploaded  # the upload of batch b-2 has read the pinned buffers
                    np.copyto(slot.x_host, x)
                    np.copyto(slot.y_host, y)
                    if slot.computed is not None:
                        copy_in.wait(slot.computed)  # the kernels of batch b-2 have read x, y
                    up0 = await copy_in.record()
                    await copy_in.copy_from_host(slot.x, slot.x_host)
                    slot.uploaded = await copy_in.copy_from_host(slot.y, slot.y_host)
                    up1 = await copy_in.record()
                    compute.wait(up1)
                    await slot.outputs_free.wait()  # batch b-2's s and v are downloaded
                    slot.outputs_free = anyio.Event()
                    k0 = await compute.record()
                    await slot.graph.launch(stream=compute)
                    k1 = await compute.record()
                    slot.computed = k1
                    await send.send(_InFlight(b, slot, x, y, (up0, up1, k0, k1)))

        async def consume() -> None:
            # Pinned host buffers: the downloads go straight into them, with no staging copy.
            # One pair suffices, because this task checks a batch before downloading the next.
            s_host = dev.pinned_empty((rows, cols), np.float32)
            v_host = dev.pinned_empty(rows, np.float32)
            async with receive:
                async for item in receive:
                    up0, up1, k0, k1 = item.events
                    copy_out.wait(k1)
                    await copy_out.download(item.slot.z, out=s_host)
                    await copy_out.download(item.slot.v, out=v_host)
                    item.slot.outputs_free.set()
                    problem = await anyio.to_thread.run_sync(_check, item, s_host, v_host, w_host, u_host)
                    run.finished(index, item.index, problem)
                    await k1  # the download waited for k1 on the device; this is the host's view
                    run.upload_spans.append((up0.timestamp_us, up1.timestamp_us))
                    run.kernel_spans.append((k0.timestamp_us, k1.timestamp_us))

        async with anyio.create_task_group() as tg:
            tg.start_soon(produce)
            tg.start_soon(consume)


def _check(item: _InFlight, s: np.ndarray, v: np.ndarray, w: np.ndarray, u: np.ndarray) -> str | None:
    want_s, want_v = reference(item.x, item.y, w, u)
    if not np.allclose(s, want_s, rtol=1e-5, atol=1e-7):
        return f"softmax(x + y) differs by up to {np.abs(s - want_s).max():.3g}"
    if not np.allclose(v, want_v, rtol=1e-4, atol=1e-5):
        return f"s @ W @ u differs by up to {np.abs(v - want_v).max():.3g}"
    return None


# --------------------------------------------------------------------------- measurements


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _length(spans: list[tuple[int, int]]) -> int:
    return sum(end - start for start, end in spans)


def _intersection(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Total length of the intersection of two sorted, disjoint span lists."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def overlap_figures(upload_spans: list[tuple[int, int]], kernel_spans: list[tuple[int, int]]) -> dict[str, float]:
    """The overlap figures of the module docstring, from (start_us, end_us) device spans (one device's clock)."""
    uploads, kernels = _union(upload_spans), _union(kernel_spans)
    upload_us, kernel_us = _length(uploads), _length(kernels)
    all_spans = upload_spans + kernel_spans
    span_us = max(e for _, e in all_spans) - min(s for s, _ in all_spans) if all_spans else 0
    busy_us = sum(e - s for s, e in all_spans)
    return {
        "upload_overlap": _intersection(uploads, kernels) / upload_us if upload_us else 0.0,
        "concurrency": busy_us / span_us if span_us else 0.0,
        "upload_busy_ms": upload_us / 1e3,
        "kernel_busy_ms": kernel_us / 1e3,
        "device_span_ms": span_us / 1e3,
    }


# --------------------------------------------------------------------------- entry points


async def run_pipeline(
    streams: int = 4,
    batches: int = 24,
    batch_size: int = 256,
    *,
    cols: int = 256,
    hidden: int = 64,
    seed: int = 0,
    device: int = 0,
    progress: Callable[[int, int], Any] | None = None,
) -> dict[str, Any]:
    """Run ``streams`` pipelines of ``batches`` batches each (``batch_size`` rows of ``cols``
    float32; W is [cols, hidden]), verify every batch, and return a summary: counts, ``mismatches`` (a list of
    (pipeline, batch, what) -- empty when every batch matched numpy), throughput and overlap.
    ``progress(done, total)`` is called after each batch is checked."""
    sizes = {"streams": streams, "batches": batches, "batch_size": batch_size, "cols": cols, "hidden": hidden}
    for name, value in sizes.items():
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    paths = await anyio.to_thread.run_sync(build_kernels)
    rng = np.random.default_rng([seed, 1 << 20])
    w = rng.standard_normal((cols, hidden), dtype=np.float32)
    u = rng.standard_normal(hidden, dtype=np.float32)
    total = streams * batches
    run = _Run(total, progress)
    async with ac.Device(device) as dev:
        binaries = {name: await dev.load_binary(path) for name, path in paths.items()}
        kernels = _Kernels(
            binaries["vector_add"].function("add_custom"),
            binaries["softmax"].function("softmax_rows"),
            binaries["matmul"].function("matmul"),
            binaries["matvec"].function("matvec"),
        )
        async with anyio.create_task_group() as tg:
            for p in range(streams):
                tg.start_soon(_pipeline, p, dev, kernels, w, u, batches, batch_size, cols, seed, run)
        pool = dev.memory_pool.stats()
    wall = run.last_end - run.first_start
    moved = total * (3 * batch_size * cols + batch_size) * 4  # x, y up; s, v down
    return {
        "streams": streams,
        "batches": total,
        "batch_size": batch_size,
        "cols": cols,
        "hidden": hidden,
        "verified": run.done - len(run.mismatches),
        "mismatches": run.mismatches,
        "wall_s": wall,
        "batches_per_s": total / wall,
        "rows_per_s": total * batch_size / wall,
        "copy_mb_per_s": moved / wall / 1e6,
        **overlap_figures(run.upload_spans, run.kernel_spans),
        "graph_replays": total,  # one per batch: the batch's four kernels in one submission
        "pool_hits": pool.hits,
        "pool_mallocs": pool.mallocs,
    }


def format_summary(r: dict[str, Any]) -> str:
    lines = [
        f"pipeline: {r['streams']} streams x {r['batches'] // r['streams']} batches of "
        f"[{r['batch_size']}, {r['cols']}] float32 (x + y -> softmax -> matmul -> matvec)",
        f"  verified     {r['verified']}/{r['batches']} batches against numpy"
        + (f"  ({len(r['mismatches'])} MISMATCHED)" if r["mismatches"] else ""),
        f"  throughput   {r['batches_per_s']:.1f} batches/s, {r['rows_per_s']:.0f} rows/s, "
        f"{r['copy_mb_per_s']:.1f} MB/s copied, in {r['wall_s']:.2f} s",
        f"  overlap      {r['upload_overlap']:.0%} of upload time ran under kernels; "
        f"concurrency {r['concurrency']:.2f} (stage time / device span)",
        f"  graphs       {r['graph_replays']} replays of a captured 4-kernel graph (one submission per batch); "
        f"memory pool: {r['pool_hits']} allocations from cache, {r['pool_mallocs']} aclrtMalloc",
    ]
    for pipeline, batch, what in r["mismatches"][:5]:
        lines.append(f"  mismatch     pipeline {pipeline} batch {batch}: {what}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=4, help="pipelines (each has 3 streams)")
    parser.add_argument("--batches", type=int, default=24, help="batches per pipeline")
    parser.add_argument("--batch-size", type=int, default=256, help="rows per batch")
    parser.add_argument("--cols", type=int, default=256, help="columns per row")
    parser.add_argument("--hidden", type=int, default=64, help="columns of the matmul's W")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    args = parser.parse_args(argv)
    result = anyio.run(
        lambda: run_pipeline(
            args.streams, args.batches, args.batch_size, cols=args.cols, hidden=args.hidden, seed=args.seed
        ),
        backend=args.backend,
    )
    print(format_summary(result))
    return 1 if result["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
