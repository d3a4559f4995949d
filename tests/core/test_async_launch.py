"""The async core: launches, argument builders, completions (issue 4)."""

from __future__ import annotations

import typing

import anyio
import anyio.lowlevel
import numpy as np
import pytest
from async_util import tiling

import aiocann as ac

pytestmark = pytest.mark.anyio


async def test_vector_add_matches_numpy(vector_add_path):
    n = 100_003
    rng = np.random.default_rng(1)
    xh, yh = rng.random(n, np.float32), rng.random(n, np.float32)
    async with ac.Device(0) as dev:
        add = (await dev.load_binary(vector_add_path)).function("add_custom")
        async with dev.stream() as s:
            x, y = await s.upload(xh), await s.upload(yh)
            z = dev.empty(n, np.float32)
            args = await add.args().ptr(x).ptr(y).ptr(z).placeholder(tiling(n))
            done = await ac.launch(add, args, blocks=8)
            assert isinstance(done, ac.Completion)
            await done
            assert done.done() and done.exception() is None
            np.testing.assert_array_equal(await z.get(), xh + yh)


async def test_builder_uploads_host_arrays_and_relaunch_with_update(vector_add_path):
    n = 4096
    xh = np.arange(n, dtype=np.float32)
    async with ac.Device(0) as dev:
        add = (await dev.load_binary(vector_add_path)).function("add_custom")
        async with dev.stream():
            z1, z2 = dev.empty(n, np.float32), dev.empty(n, np.float32)
            args = await add.args().array(xh).array(2 * xh).ptr(z1).placeholder(tiling(n))
            assert len(args.arrays) == 3  # two uploaded + z1
            await (await ac.launch(add, args, blocks=4))
            args.update(2, z2)  # ParaUpdate + Finalize, no repacking
            args.update(3, tiling(n // 2))  # placeholder data, in place
            await (await ac.launch(add, args, blocks=4))
            np.testing.assert_array_equal(await z1.get(), 3 * xh)
            out2 = await z2.get()
            np.testing.assert_array_equal(out2[: n // 2], 3 * xh[: n // 2])


async def test_typed_scalars_and_signature_checks(test_kernels_path):
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(test_kernels_path)).function("write_value")
        assert [p.name for p in k.signature] == ["out", "index", "value"]
        async with dev.stream() as s:
            out = dev.empty(4, np.int32)
            await s.memset(out, 0)
            args = await k.args().ptr(out).u32(2).scalar(np.int32(-7))
            await (await ac.launch(k, args, blocks=1))
            np.testing.assert_array_equal(await out.get(), [0, 0, -7, 0])
            with pytest.raises(TypeError, match="no width"):
                k.args().ptr(out).scalar(2)  # a bare int is never guessed
            with pytest.raises(TypeError, match="takes 3 arguments, 2 given"):
                await k.args().ptr(out).u32(1)
            with pytest.raises(TypeError, match="is a pointer"):
                await k.args().u64(1).u32(1).i32(1)
            with pytest.raises(TypeError, match="integer of 4 bytes, got int64"):
                await k.args().ptr(out).u32(1).i64(1)
            with pytest.raises(TypeError, match="not a pointer"):
                await k.args().ptr(out).ptr(out).i32(1)
            with pytest.raises(OverflowError):
                k.args().ptr(out).u32(-1)
            with pytest.raises(TypeError, match="truncate"):
                k.args().ptr(out).scalar(1.5, np.int32)
            with pytest.raises(TypeError):
                k.args().ptr("0x1000")
            # An object array's bytes are its objects' addresses: not data for a kernel.
            for data in (np.array([1, "a"], dtype=object), np.array([(1, None)], dtype=[("a", "i4"), ("b", "O")])):
                with pytest.raises(TypeError, match="array of numbers, not one of dtype"):
                    k.args().placeholder(data)
                with pytest.raises(TypeError, match="array of numbers"):
                    k.args().bytes(data)


async def test_probe_sees_every_scalar_width_and_placeholder(test_kernels_path):
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(test_kernels_path)).function("probe")
        async with dev.stream():
            out = dev.empty(43, np.uint8)
            ph1 = np.array([0x1122334455667788], np.uint64)
            ph2 = np.frombuffer(b"ABCDEFGH", np.uint8)
            args = await (
                k.args()
                .u8(200)
                .i16(-300)
                .u32(70000)
                .i64(-(2**40))
                .f32(1.5)
                .f64(-2.25)
                .placeholder(ph1)
                .placeholder(ph2)
                .ptr(out)
            )
            await (await ac.launch(k, args, blocks=2))
            raw = (await out.get()).tobytes()
            assert raw[0] == 200
            assert np.frombuffer(raw[1:3], np.int16)[0] == -300
            assert np.frombuffer(raw[3:7], np.uint32)[0] == 70000
            assert np.frombuffer(raw[7:15], np.int64)[0] == -(2**40)
            assert np.frombuffer(raw[15:19], np.float32)[0] == 1.5
            assert np.frombuffer(raw[19:27], np.float64)[0] == -2.25
            assert raw[27:35] == ph1.tobytes() and raw[35:43] == b"ABCDEFGH"


# The typed scalar methods of the argument builder, in the parameter order of args_kernels.c's
# `scalars` kernel, which reports each value in an 8-byte slot of its own.
WIDTHS = {
    "i8": np.int8,
    "u8": np.uint8,
    "i16": np.int16,
    "u16": np.uint16,
    "i32": np.int32,
    "u32": np.uint32,
    "i64": np.int64,
    "u64": np.uint64,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
}


def _range(dtype: type[np.generic]) -> tuple[int | float, int | float]:
    """The smallest and largest value of a scalar type, as Python numbers."""
    if np.issubdtype(dtype, np.integer):
        i = np.iinfo(dtype)
        return int(i.min), int(i.max)
    f = np.finfo(dtype)
    return float(f.min), float(f.max)


def test_typed_scalar_methods_are_real_typed_methods():
    assert "__getattr__" not in vars(ac.ArgsBuilder)  # what a type checker could not see
    for name, dtype in WIDTHS.items():
        method = vars(ac.ArgsBuilder)[name]
        hints = typing.get_type_hints(method)
        assert hints["return"] is ac.ArgsBuilder and "value" in hints, name
        assert np.dtype(dtype).name in method.__doc__, name


async def test_every_typed_scalar_reaches_the_kernel(args_kernels_path):
    async with ac.Device(0) as dev, dev.stream():
        k = (await dev.load_binary(args_kernels_path)).function("scalars")
        out = dev.empty(len(WIDTHS) * 8, np.uint8)
        lows = {name: _range(dt)[0] for name, dt in WIDTHS.items()}
        highs = {name: _range(dt)[1] for name, dt in WIDTHS.items()}
        middles = {name: (-3 if np.issubdtype(dt, np.signedinteger) else 3) for name, dt in WIDTHS.items()}
        middles.update(f16=0.5, f32=-1.25, f64=2.0**-40)
        for values in (lows, highs, middles):
            b = k.args().ptr(out)
            b = b.i8(values["i8"]).u8(values["u8"]).i16(values["i16"]).u16(values["u16"])
            b = b.i32(values["i32"]).u32(values["u32"]).i64(values["i64"]).u64(values["u64"])
            b = b.f16(values["f16"]).f32(values["f32"]).f64(values["f64"])
            await (await ac.launch(k, await b, blocks=1))
            raw = (await out.get()).tobytes()
            for slot, (name, dtype) in enumerate(WIDTHS.items()):
                got = np.frombuffer(raw, dtype, count=1, offset=8 * slot)[0]
                assert got == dtype(values[name]), (name, got, values[name])
                assert got.item() == values[name], (name, got, values[name])  # exact, not rounded


async def test_typed_scalars_refuse_what_does_not_fit(args_kernels_path):
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(args_kernels_path)).function("scalars")
        b = k.args()
        for name, dtype in WIDTHS.items():
            low, high = _range(dtype)
            method = getattr(b, name)
            if np.issubdtype(dtype, np.integer):
                for value in (low - 1, high + 1):
                    with pytest.raises(OverflowError, match=f"does not fit {np.dtype(dtype).name}"):
                        method(value)
                with pytest.raises(TypeError, match="truncate"):
                    method(1.0)  # a float is never truncated into an integer
                with pytest.raises(TypeError):
                    method("1")
            else:
                with pytest.raises(TypeError):
                    method(True)  # not a number of any width
                with pytest.raises(OverflowError):
                    method(10**400 if dtype is np.float64 else high * 2)
            assert b._entries == [], "a refused value must not be appended"
        # The values that do fit, at both ends, are taken.
        for name, dtype in WIDTHS.items():
            getattr(b, name)(_range(dtype)[0])
        assert len(b._entries) == len(WIDTHS)


async def test_ten_thousand_launches_resolve_exactly_once(test_kernels_path):
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(test_kernels_path)).function("empty")
        async with dev.stream(max_in_flight=256) as s:
            args = await k.args().ptr(dev.empty(1, np.uint8))
            before = dev._live_dispatcher.resolved
            done = [await ac.launch(k, args, blocks=1) for _ in range(10_000)]
            for c in done:
                await c
            assert all(c.done() and c.exception() is None for c in done)
            assert dev._live_dispatcher.resolved - before == 10_000
            assert dev._live_dispatcher.pending == 0 and s.in_flight == 0


async def test_launch_validation(vector_add_path, test_kernels_path):
    async with ac.Device(0) as dev:
        add = (await dev.load_binary(vector_add_path)).function("add_custom")
        empty = (await dev.load_binary(test_kernels_path)).function("empty")
        async with dev.stream():
            z = dev.empty(8, np.float32)
            args = await add.args().ptr(z).ptr(z).ptr(z).placeholder(tiling(8))
            with pytest.raises(ValueError, match="built for kernel add_custom"):
                await ac.launch(empty, args, blocks=1)
            with pytest.raises(ValueError, match="blocks"):
                await ac.launch(add, args, blocks=0)
            with pytest.raises(TypeError, match="blocks"):
                await ac.launch(add, args, blocks=2.0)
            with pytest.raises(TypeError, match="KernelArgs"):
                await ac.launch(add, b"raw", blocks=1)
        with pytest.raises(RuntimeError, match="no current stream"):
            await ac.launch(add, args, blocks=1)


async def test_kernel_lookup_and_unload_errors(vector_add_path):
    async with ac.Device(0) as dev:
        binary = await dev.load_binary(vector_add_path)
        with pytest.raises(ac.KernelLookupError) as info:
            binary.function("nope")
        assert info.value.code == 507027 and "add_custom" in info.value.message
        add = binary.function("add_custom")
        binary.unload()
        with pytest.raises(ac.ClosedError):
            add.args()  # noqa: B018 - building is fine, launching is not
            _ = add.handle
        with pytest.raises(ac.FileOpenError):
            await dev.load_binary("/nonexistent/kernel.so")


async def test_nul_in_a_kernel_name_or_binary_path_is_refused(test_kernels_path):
    """Issue 12: the runtime sees names and paths as C strings, which end at the first NUL.
    "poke\\0x" would be kernel poke without the signature recorded under "poke", so its
    arguments would go unchecked; a path with a NUL would load the file named by its head,
    again without signatures. Both are refused, naming the problem."""
    async with ac.Device(0) as dev:
        binary = await dev.load_binary(test_kernels_path)
        with pytest.raises(ValueError, match=r"kernel name 'poke\\x00x' contains a NUL character.*'poke'"):
            binary.function("poke\0x")
        assert binary.function("poke").signature is not None
        with pytest.raises(ValueError, match="binary path .* contains a NUL character"):
            await dev.load_binary(f"{test_kernels_path}\0.old")


async def test_batch_schedule_and_timeout_config(test_kernels_path):
    async with ac.Device(0) as dev:
        b = await dev.load_binary(test_kernels_path)
        spin, write = b.function("spin_us"), b.function("write_value")
        async with dev.stream() as s:
            out = dev.empty(8, np.int32)
            await s.memset(out, 0)
            args = await spin.args().ptr(out).u64(1000)
            await (await ac.launch(spin, args, blocks=4, config=ac.LaunchConfig(schedule="batch")))
            np.testing.assert_array_equal((await out.get())[:4], [1, 2, 3, 4])
        with pytest.raises(ac.KernelTimeoutError) as at_exit:
            async with dev.stream():
                # every core runs a block that would spin for 5 s: the timeout must free them all
                args = await spin.args().ptr(out).u64(5_000_000)
                c = await ac.launch(spin, args, blocks=8, config=ac.LaunchConfig(timeout=0.05))
                with pytest.raises(ac.KernelTimeoutError) as info:
                    await c
                assert info.value.code == 507014 and "spin_us" in info.value.message
                # streams continue on failure, as ACL's do: later work runs and succeeds;
                # leaving the block still raises the failure no synchronize reported
                w = await write.args().ptr(out).u32(0).i32(9)
                await (await ac.launch(write, w, blocks=1))
                assert (await out.get())[0] == 9
        assert at_exit.value.code == 507014
        # no core was left stuck: a batch launch needing all 8 cores at once runs promptly
        async with dev.stream() as s:
            await s.memset(out, 0)
            args = await spin.args().ptr(out).u64(1000)
            with anyio.fail_after(5):
                await (await ac.launch(spin, args, blocks=8, config=ac.LaunchConfig(schedule="batch")))
            np.testing.assert_array_equal(await out.get(), np.arange(1, 9))
    with pytest.raises(ValueError):
        ac.LaunchConfig(timeout=-1)
    assert ac.LaunchConfig(timeout=0)._cdata is not None  # 0: the attribute, meaning "never"
    with pytest.raises(ValueError):
        ac.LaunchConfig(schedule="eager")  # type: ignore[arg-type]


async def test_awaiting_finished_work_follows_the_backend(test_kernels_path, anyio_backend):
    """A finished Completion is awaited without a trip through the event loop. On trio it is a
    cancel point, as trio's own operations are; on asyncio it behaves as a finished future
    does: it returns, and a cancellation lands at the task's next suspension."""
    async with ac.Device(0) as dev:
        k = (await dev.load_binary(test_kernels_path)).function("empty")
        async with dev.stream() as s:
            done = await ac.launch(k, await k.args().ptr(dev.empty(1, np.uint8)), blocks=1)
            await s.synchronize()
            assert done.done()
            await done  # no suspension needed: nothing else runs in between
            after_await = after_checkpoint = False
            with anyio.CancelScope() as scope:
                scope.cancel()
                await done
                after_await = True
                await anyio.lowlevel.checkpoint()  # every backend: the cancellation lands here
                after_checkpoint = True
            assert scope.cancelled_caught and not after_checkpoint
            assert after_await is (anyio_backend != "trio")
