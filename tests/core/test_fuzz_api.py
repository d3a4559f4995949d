"""Fuzzing every public entry point with wrong-typed and out-of-range arguments.

Two contracts, checked with hypothesis:

* the async core (``aiocann``): every call either succeeds or raises a clear Python exception
  -- TypeError, ValueError, OverflowError, IndexError, ``aiocann.AclError`` or
  ``aiocann.ClosedError`` -- with a message; never another exception leaking out of the
  implementation (an AttributeError about a private attribute is not an answer), never a hang
  (each call is bounded), never a crash; and the device stays usable: afterwards the stream
  has no error, a vector add on it gives the right answer, and once the device is closed the
  async layer has let go of ACL (no leaked runtime reference). The calls run in one Device
  opened once per backend (asyncio and trio) behind a blocking portal, so that hypothesis can
  drive them from a synchronous test.

* the pyACL facade (``aiocann.acl``): pyACL's conventions -- a value that is not an integer
  where pyACL parses one raises TypeError (ValueError where pyACL says so); an out-of-range
  integer or a garbage handle (1, 12345, 2**63, -1, ...) gives an error return code (or the
  TypeError pyACL raises for an int32 out of range) -- never a crash or a hang. Because a crash
  would take pytest down with it, the facade is fuzzed in worker subprocesses, one function
  after another; a worker that dies or stops answering is restarted after the function it was
  in, and the exact call is reported.

At the end, regression tests for what the facade fuzz found: a truncated kernel binary killed
the process inside dlopen, and ptr_to_bytes copied from any address.
"""

from __future__ import annotations

import concurrent.futures
import gc
import inspect
import math
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import hypothesis.strategies as st
import numpy as np
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from async_util import tiling
from hypothesis import HealthCheck, example, given, settings

import aiocann as ac
from aiocann import errors
from aiocann._lib import ffi, lib

TESTS_DIR = Path(__file__).resolve().parents[1]
# What a worker subprocess imports: this module, and the helpers it imports (tests/support).
_WORKER_PATH = (str(Path(__file__).resolve().parent), str(TESTS_DIR / "support"))
EXAMPLE_KERNELS = TESTS_DIR.parent / "examples" / "kernels"

# --------------------------------------------------------------------------- wild values


class Opaque:
    """An object nothing in the API could expect."""

    def __repr__(self) -> str:
        return "Opaque()"


class Exploding:
    """Raises from every conversion Python might try on it."""

    def __index__(self) -> int:
        raise ZeroDivisionError("__index__ exploded")

    def __int__(self) -> int:
        raise ZeroDivisionError("__int__ exploded")

    def __float__(self) -> float:
        raise ZeroDivisionError("__float__ exploded")

    def __repr__(self) -> str:
        return "Exploding()"


INTS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, -1, 2**31 - 1, 2**31, -(2**31) - 1, 2**32, 2**63, 2**64 - 1, 2**64, -(2**64), 2**100]),
)
ODD_DTYPES = ["int8", "uint16", "float16", "complex64", "bool", "datetime64[s]", "U3", "S2", "O", "V4"]
NUMPY_SCALARS = st.one_of(
    st.integers(-128, 127).map(np.int8),
    st.integers(0, 2**64 - 1).map(np.uint64),
    st.floats(width=16, allow_nan=True).map(np.float16),
    st.complex_numbers(max_magnitude=1e6).map(np.complex64),
    st.booleans().map(np.bool_),
    st.just(np.datetime64("2020-01-01")),
    st.just(np.str_("x")),
)
NUMPY_ARRAYS = st.builds(
    lambda shape, dtype: np.zeros(shape, dtype=dtype),
    st.sampled_from([(), (0,), (3,), (2, 2), (1, 0, 2)]),
    st.sampled_from(ODD_DTYPES),
)
WILD = st.one_of(
    INTS,
    st.floats(allow_nan=True, allow_infinity=True),
    st.none(),
    st.booleans(),
    st.text(max_size=8),
    st.binary(max_size=8),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.tuples(st.integers(-3, 2**40)),
    st.complex_numbers(max_magnitude=10),
    NUMPY_SCALARS,
    NUMPY_ARRAYS,
    st.sampled_from([Opaque(), Exploding(), object, print, math.pi]),
)

# --------------------------------------------------------------------------- async core

# What a call may raise instead of succeeding. Anything else is a bug of the entry point.
CLEAR = (TypeError, ValueError, OverflowError, IndexError, errors.AclError, errors.ClosedError)
CALL_BOUND = 10.0  # seconds; nothing here legitimately takes more than a few milliseconds
ASYNC_EXAMPLES = int(os.environ.get("AIOCANN_FUZZ_ASYNC_EXAMPLES", "25"))  # more for a deep local run
N = 16


@dataclass(repr=False)
class World:
    """One open device with everything the entry points take, built inside the portal."""

    dev: ac.Device
    stream: ac.Stream
    binary: ac.Binary
    add: ac.Kernel
    x: ac.DeviceArray
    y: ac.DeviceArray
    args: ac.KernelArgs  # launched by the fuzz (never modified)
    args_u: ac.KernelArgs  # updated by the fuzz (never launched: it may hold garbage now)
    start: ac.Event
    end: ac.Event


async def _open_world(dev: ac.Device, vector_add: Path) -> World:
    binary = await dev.load_binary(vector_add)
    add = binary.function("add_custom")
    s = dev.stream()
    x = await s.upload(np.arange(N, dtype=np.float32))
    y = dev.empty(N, np.float32)
    args = await add.args().ptr(x).ptr(x).ptr(y).placeholder(tiling(N))
    args_u = await add.args().ptr(x).ptr(x).ptr(y).placeholder(tiling(N))
    start = await s.record()
    end = await s.record()
    await end
    return World(dev, s, binary, add, x, y, args, args_u, start, end)


def _acl_initialised() -> bool:
    """Whether ACL is initialised in this process (asked without changing that)."""
    rc = lib.aclInit(ffi.NULL)
    if rc == 100002:  # ACL_ERROR_REPEAT_INITIALIZE
        lib.aclGetRecentErrMsg()
        return True
    assert rc == 0, rc
    lib.aclFinalize()
    return False


@pytest.fixture(scope="module", params=["asyncio", "trio"])
def world(request: pytest.FixtureRequest, vector_add_path: Path) -> Iterator[tuple[BlockingPortal, World]]:
    gc.collect()
    clean = not _acl_initialised()
    # The Device block lives in one task of the portal (its task group must be entered and
    # left there); the fuzzed calls run as other tasks of the same event loop.
    with start_blocking_portal(request.param) as portal, portal.wrap_async_context_manager(ac.Device(0)) as dev:
        w = portal.call(_open_world, dev, vector_add_path)
        yield portal, w
        # The device is still usable: the fuzzed stream has no error, and a vector add on it
        # (and on a new stream) gives the right answer.
        assert w.stream.error is None, f"the fuzz left the stream failed: {w.stream.error}"
        portal.call(_vector_add_works, w, w.stream)
        portal.call(_vector_add_works, w, None)
        portal.call(w.stream.aclose)
    del w
    gc.collect()
    # Nothing the fuzz did leaked a hold on the runtime: with the device closed and its pinned
    # memory gone, the async layer has finalized ACL again (a failed pinned_empty used to keep
    # it initialised for good, and the next test that finalized ACL itself broke every later
    # Device).
    if clean:
        assert not _acl_initialised(), "ACL is still initialised after the fuzz: a leaked runtime reference"


async def _vector_add_works(w: World, stream: ac.Stream | None) -> None:
    with anyio.fail_after(30):
        a = np.arange(1000, dtype=np.float32)
        if stream is None:
            async with w.dev.stream() as s:
                await _vector_add_on(w, s, a)
        else:
            await _vector_add_on(w, stream, a)


async def _vector_add_on(w: World, s: ac.Stream, a: np.ndarray) -> None:
    x, y, z = await s.upload(a), await s.upload(2 * a), w.dev.empty(a.shape, a.dtype)
    args = await w.add.args().ptr(x).ptr(y).ptr(z).placeholder(tiling(a.size))
    await (await ac.launch(w.add, args, blocks=4, stream=s))
    np.testing.assert_array_equal(await z.get(stream=s), 3 * a)


async def _attempt(fn: Callable[[Any], Any], value: Any) -> None:
    """Runs one call (and, if it enqueued device work, waits for that work) under a bound.
    Returns normally if the call succeeded or raised a clear error; raises anything else."""
    with anyio.fail_after(CALL_BOUND):
        try:
            result = fn(value)
            if inspect.isawaitable(result):
                result = await result
            if isinstance(result, ac.Completion):
                await result
            elif isinstance(result, ac.Stream):  # dev.stream(): do not leak it
                await result.aclose()
            elif isinstance(result, ac.DeviceArray):
                result.close()
        except CLEAR as exc:
            assert str(exc), f"{type(exc).__name__} without a message"
        except ZeroDivisionError as exc:
            if not isinstance(value, Exploding):  # the value's own conversion may raise: fine
                raise
            assert "exploded" in str(exc)
        except RuntimeError as exc:
            # the calls run outside any `async with dev.stream()`: "no current stream" is clear
            if "no current" not in str(exc):
                raise


# Valid calls whose work is merely long (2**31 blocks of a kernel) are not what this fuzz is
# about: launch block counts above this run the real call only if they are invalid.
MAX_VALID_BLOCKS = 4096


def _blocks(w: World, v: Any) -> Any:
    if isinstance(v, int) and not isinstance(v, bool) and MAX_VALID_BLOCKS < v < 2**32:
        v = MAX_VALID_BLOCKS
    return ac.launch(w.add, w.args, blocks=v, stream=w.stream)


ENTRY_POINTS: dict[str, Callable[[World, Any], Any]] = {
    "Device(index)": lambda w, v: _enter_device(v),
    "Device(max_in_flight=)": lambda w, v: ac.Device(0, max_in_flight=v),
    "Device(completion_timeout=)": lambda w, v: ac.Device(0, completion_timeout=v),
    "dev.empty(shape)": lambda w, v: w.dev.empty(v),
    "dev.empty(dtype=)": lambda w, v: w.dev.empty(4, v),
    "dev.pinned_empty(shape)": lambda w, v: w.dev.pinned_empty(v),
    "dev.pinned_empty(dtype=)": lambda w, v: w.dev.pinned_empty(4, v),
    "dev.stream(max_in_flight=)": lambda w, v: w.dev.stream(max_in_flight=v),
    "dev.stream(priority=)": lambda w, v: w.dev.stream(priority=v),
    "dev.load_binary(path)": lambda w, v: w.dev.load_binary(v),
    "dev.load_binary_data(data)": lambda w, v: w.dev.load_binary_data(v),
    "binary.function(name)": lambda w, v: w.binary.function(v),
    "stream.upload(data)": lambda w, v: w.stream.upload(v),
    "stream.download(src)": lambda w, v: w.stream.download(v),
    "stream.download(out=)": lambda w, v: w.stream.download(w.x, v),
    "stream.copy(dst)": lambda w, v: w.stream.copy(v, w.x),
    "stream.copy(src)": lambda w, v: w.stream.copy(w.y, v),
    "stream.memset(dst)": lambda w, v: w.stream.memset(v, 0),
    "stream.memset(value)": lambda w, v: w.stream.memset(w.y, v),
    "stream.copy_from_host(dst)": lambda w, v: w.stream.copy_from_host(v, np.zeros(N, np.float32)),
    "stream.copy_from_host(data)": lambda w, v: w.stream.copy_from_host(w.y, v),
    "stream.record(timing=)": lambda w, v: w.stream.record(timing=v),
    "stream.wait(event)": lambda w, v: w.stream.wait(v),
    "args.ptr": lambda w, v: w.add.args().ptr(v),
    "args.array": lambda w, v: w.add.args().array(v),
    "args.scalar(value)": lambda w, v: w.add.args().scalar(v),
    "args.scalar(dtype=)": lambda w, v: w.add.args().scalar(1, v),
    "args.u32": lambda w, v: w.add.args().u32(v),
    "args.i64": lambda w, v: w.add.args().i64(v),
    "args.f32": lambda w, v: w.add.args().f32(v),
    "args.bytes": lambda w, v: w.add.args().bytes(v),
    "args.placeholder": lambda w, v: w.add.args().placeholder(v),
    "args.build(stream=)": lambda w, v: (
        w.add.args().array(np.zeros(N, np.float32)).ptr(w.x).ptr(w.y).placeholder(tiling(N)).build(stream=v)
    ),
    "KernelArgs.update(index)": lambda w, v: w.args_u.update(v, w.x),
    "KernelArgs.update(ptr value)": lambda w, v: w.args_u.update(0, v),
    "KernelArgs.update(placeholder value)": lambda w, v: w.args_u.update(3, v),
    "launch(kernel)": lambda w, v: ac.launch(v, w.args, blocks=1, stream=w.stream),
    "launch(args)": lambda w, v: ac.launch(w.add, v, blocks=1, stream=w.stream),
    "launch(blocks=)": _blocks,
    "launch(stream=)": lambda w, v: ac.launch(w.add, w.args, blocks=1, stream=v),
    "launch(config=)": lambda w, v: ac.launch(w.add, w.args, blocks=1, stream=w.stream, config=v),
    "LaunchConfig(schedule=)": lambda w, v: ac.LaunchConfig(schedule=v),
    "LaunchConfig(timeout=)": lambda w, v: ac.LaunchConfig(timeout=v),
    "Event.elapsed_ms(start)": lambda w, v: w.end.elapsed_ms(v),
    "Event - start": lambda w, v: w.end - v,
    "DeviceArray.get(stream=)": lambda w, v: w.x.get(stream=v),
    "DeviceArray.set(data)": lambda w, v: w.y.set(v, stream=w.stream),
    "DeviceArray.set(stream=)": lambda w, v: w.y.set(np.zeros(N, np.float32), stream=v),
}


async def _enter_device(index: Any) -> None:
    async with ac.Device(index):
        pass


# Some calls succeed by converting lossily (a complex timeout to float, a huge float to an f32
# inf); numpy warns. That is "succeeds", which the contract allows; the cases are reported.
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning", "ignore:overflow:RuntimeWarning")
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@settings(max_examples=ASYNC_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=WILD)
@example(value=2**70).via("pinned_empty of 2**72 bytes leaked a hold on ACL")
@example(value=-1)
@example(value=None)
@example(value=b",").via("numpy parses a comma-separated dtype as Python: SyntaxError")
def test_async_api_answers_bad_arguments_clearly(world, entry, value):
    portal, w = world
    done = portal.start_task_soon(_attempt, lambda v: ENTRY_POINTS[entry](w, v), value)
    try:
        # fail_after bounds the awaits; this also catches a call that blocks the event loop
        done.result(timeout=CALL_BOUND + 5)
    except concurrent.futures.TimeoutError:
        pytest.fail(f"{entry} with {value!r} hung (blocked the event loop for {CALL_BOUND + 5} s)")


# --------------------------------------------------------------------------- pyACL facade
#
# Each facade function is described by the kinds of its positional arguments; the worker builds
# a valid call from a baseline of live objects, replaces one argument with a wild value, and
# judges the outcome by the kind of the argument it replaced:
#
#   int kinds (handles, addresses, sizes, int32s): a value that is not an integer must raise
#     TypeError or ValueError; an integer must give a return code (or raise TypeError/ValueError
#     -- pyACL's TypeError for an int32 out of range -- or OverflowError). For an opaque handle
#     (context, stream, event, binary, function, args, param, device allocation, pinned block)
#     a garbage integer must give an error code, never success.
#   "str": a non-str raises TypeError.  "list" (load options, launch cfg): a non-list raises
#   ValueError, a list entry that is not a dict TypeError.  "callable": TypeError unless
#   callable.  "bytes"/"ndarray"/"shape": ValueError or TypeError as pyACL.  "any": anything.
#
# Never: another exception type, a crash, a hang.

INT_KINDS = {
    "dev",
    "ctx",
    "stream",
    "event",
    "bin",
    "func",
    "args",
    "param",
    "devptr",
    "pinned",
    "ptr",
    "mem",
    "size",
    "i32",
    "u32",
    "timeout",
    "thread",
    "reserve",
    "view",
    "info",
    "notify",
}
OPAQUE = {"ctx", "stream", "event", "bin", "func", "args", "param", "devptr", "pinned", "reserve", "notify"}

# name -> argument kinds. Functions that take no arguments get extra ones ("ignored"), which
# pyACL accepts and ignores. "fixed": an argument left at its valid value (get_mem_uce_info's
# array size: a wild one is a request for that many entries, which the wrapper allocates).
FACADE: dict[str, list[str]] = {
    "rt.set_device": ["dev"],
    "rt.reset_device": ["dev"],
    "rt.reset_device_force": ["dev"],
    "rt.get_device": ["ignored"],
    "rt.get_device_count": ["ignored"],
    "rt.synchronize_device": ["ignored"],
    "rt.create_context": ["dev"],
    "rt.destroy_context": ["ctx"],
    "rt.set_context": ["ctx"],
    "rt.get_context": ["ignored"],
    "rt.create_stream": ["ignored"],
    "rt.create_stream_with_config": ["i32", "i32"],
    "rt.destroy_stream": ["stream"],
    "rt.synchronize_stream": ["stream"],
    "rt.synchronize_stream_with_timeout": ["stream", "timeout"],
    "rt.stream_query": ["stream"],
    "rt.stream_wait_event": ["stream", "event"],
    "rt.malloc": ["size", "i32"],
    "rt.free": ["devptr"],
    "rt.malloc_host": ["size"],
    "rt.free_host": ["pinned"],
    "rt.memcpy": ["ptr", "size", "ptr", "size", "i32"],
    "rt.memcpy_async": ["ptr", "size", "ptr", "size", "i32", "stream"],
    "rt.memset": ["devptr", "size", "i32", "size"],
    "rt.memset_async": ["devptr", "size", "i32", "size", "stream"],
    "rt.get_mem_info": ["i32"],
    "rt.create_event": ["ignored"],
    "rt.create_event_with_flag": ["u32"],
    "rt.destroy_event": ["event"],
    "rt.record_event": ["event", "stream"],
    "rt.reset_event": ["event", "stream"],
    "rt.query_event_status": ["event"],
    "rt.synchronize_event": ["event"],
    "rt.synchronize_event_with_timeout": ["event", "timeout"],
    "rt.event_elapsed_time": ["event", "event"],
    "rt.event_get_timestamp": ["event"],
    "rt.launch_callback": ["callable", "any", "i32", "stream"],
    "rt.subscribe_report": ["thread", "stream"],
    "rt.unsubscribe_report": ["thread", "stream"],
    "rt.process_report": ["timeout"],
    "rt.binary_load_from_file": ["str", "list"],
    "rt.binary_load_from_data": ["ptr", "size", "list"],
    "rt.binary_get_function": ["bin", "str"],
    "rt.binary_unload": ["bin"],
    "rt.kernel_args_init": ["func"],
    "rt.kernel_args_init_by_user_mem": ["func", "mem", "mem", "size"],
    "rt.kernel_args_get_mem_size": ["func", "size"],
    "rt.kernel_args_get_handle_mem_size": ["func"],
    "rt.kernel_args_append": ["args", "ptr", "size"],
    "rt.kernel_args_append_place_holder": ["args"],
    "rt.kernel_args_get_place_holder_buffer": ["args", "param", "size"],
    "rt.kernel_args_para_update": ["args", "param", "ptr", "size"],
    "rt.kernel_args_finalize": ["args"],
    "rt.launch_kernel_with_config": ["func", "u32", "stream", "list", "args", "reserve"],
    "rt.launch_kernel": ["func", "u32", "devptr", "size", "stream"],
    # issue 11: the rest of pyACL's runtime surface
    "rt.get_run_mode": ["ignored"],
    "rt.set_ts_device": ["i32"],
    "rt.set_device_sat_mode": ["i32"],
    "rt.get_device_sat_mode": ["ignored"],
    "rt.synchronize_device_with_timeout": ["timeout"],
    "rt.get_device_utilization_rate": ["dev"],
    "rt.query_device_status": ["dev"],
    "rt.get_device_info": ["u32", "u32"],
    "rt.device_get_stream_priority_range": ["ignored"],
    "rt.get_device_capability": ["dev", "u32"],
    "rt.get_logic_dev_id_by_user_dev_id": ["dev"],
    "rt.get_user_dev_id_by_logic_dev_id": ["dev"],
    "rt.get_logic_dev_id_by_phy_dev_id": ["dev"],
    "rt.get_phy_dev_id_by_logic_dev_id": ["dev"],
    "rt.device_get_uuid": ["dev"],
    "rt.device_get_bare_tgid": ["ignored"],
    "rt.device_can_access_peer": ["dev", "dev"],
    "rt.device_enable_peer_access": ["dev", "u32"],
    "rt.device_disable_peer_access": ["dev"],
    "rt.device_peer_access_status": ["dev", "dev"],
    "rt.ctx_get_current_default_stream": ["ignored"],
    "rt.get_primary_ctx_state": ["dev"],
    "rt.ctx_set_sys_param_opt": ["i32", "size"],
    "rt.ctx_get_sys_param_opt": ["i32"],
    "rt.set_sys_param_opt": ["i32", "size"],
    "rt.get_sys_param_opt": ["i32"],
    "rt.get_stream_available_num": ["ignored"],
    "rt.destroy_stream_force": ["stream"],
    "rt.set_stream_attribute": ["stream", "i32", "any"],
    "rt.get_stream_attribute": ["stream", "i32"],
    "rt.create_event_ex_with_flag": ["u32"],
    "rt.query_event": ["event"],
    "rt.query_event_wait_status": ["event"],
    "rt.get_event_id": ["event"],
    "rt.get_event_avail_num": ["ignored"],
    "rt.malloc_align32": ["size", "i32"],
    "rt.malloc_cached": ["size", "i32"],
    "rt.mem_flush": ["devptr", "size"],
    "rt.mem_invalidate": ["devptr", "size"],
    "rt.malloc_with_cfg": ["size", "i32", "any"],
    "rt.malloc_for_task_scheduler": ["size", "i32", "any"],
    "rt.malloc_host_with_cfg": ["size", "any"],
    "rt.pointer_get_attributes": ["ptr"],
    "rt.memcpy2d": ["ptr", "size", "ptr", "size", "size", "size", "i32"],
    "rt.memcpy2d_async": ["ptr", "size", "ptr", "size", "size", "size", "i32", "stream"],
    "rt.destroy_binary": ["bin"],
    "rt.binary_load": ["bin"],
    "rt.get_function_addr": ["func"],
    "rt.get_function_name": ["func", "u32"],
    "util.start_thread": ["callable", "any"],
    "util.stop_thread": ["thread"],
    "util.bytes_to_ptr": ["bytes"],
    "util.numpy_to_ptr": ["ndarray"],
    "util.numpy_contiguous_to_ptr": ["ndarray"],
    "util.ptr_to_numpy": ["view", "shape", "i32"],
    "util.ptr_to_bytes": ["ptr", "size"],
    "get_version": ["ignored"],
    "get_recent_err_msg": ["ignored"],
    # issue 20: the rest of the module -- every function of acl.rt, acl.util and acl is here
    # (test_the_facade_fuzz_covers_the_whole_module keeps it so)
    "rt.get_error_code_from_exception_info": ["info"],
    "rt.get_task_id_from_exception_info": ["info"],
    "rt.get_stream_id_from_exception_info": ["info"],
    "rt.get_thread_id_from_exception_info": ["info"],
    "rt.get_device_id_from_exception_info": ["info"],
    "rt.set_exception_info_callback": ["any"],
    "rt.peek_at_last_error": ["i32"],
    "rt.get_last_error": ["i32"],
    "rt.set_stream_failure_mode": ["stream", "u32"],
    "rt.stream_get_id": ["stream"],
    "rt.get_thread_last_task_id": ["ignored"],
    "rt.create_binary": ["ptr", "size"],
    "rt.reserve_mem_address": ["size", "size", "ptr", "u32"],
    "rt.release_mem_address": ["ptr"],
    "rt.malloc_physical": ["size", "any", "u32"],
    "rt.free_physical": ["ptr"],
    "rt.map_mem": ["ptr", "size", "size", "ptr", "u32"],
    "rt.unmap_mem": ["ptr"],
    "rt.mem_get_allocation_granularity": ["any", "i32"],
    "rt.mem_export_to_shareable_handle": ["ptr", "i32", "u32"],
    "rt.mem_set_pid_to_shareable_handle": ["size", "any"],
    "rt.mem_import_from_shareable_handle": ["size", "dev"],
    "rt.ipc_mem_get_export_key": ["devptr", "size", "size", "u32"],
    "rt.ipc_mem_set_import_pid": ["str", "any"],
    "rt.ipc_mem_import_by_key": ["str", "u32"],
    "rt.ipc_mem_close": ["str"],
    "rt.host_register": ["ptr", "size", "i32"],
    "rt.host_register_v2": ["ptr", "size", "u32"],
    "rt.host_get_device_pointer": ["ptr", "u32"],
    "rt.host_unregister": ["ptr"],
    "rt.get_memcpy_desc_size": ["i32"],
    "rt.set_memcpy_desc": ["devptr", "i32", "ptr", "ptr", "size", "ptr"],
    "rt.memcpy_async_with_desc": ["devptr", "i32", "stream"],
    "rt.memcpy_async_with_condition": ["ptr", "size", "ptr", "size", "i32", "stream"],
    "rt.reduce_async": ["ptr", "ptr", "size", "i32", "i32", "stream", "reserve"],
    "rt.cmo_async": ["ptr", "size", "i32", "stream"],
    "rt.value_write": ["ptr", "size", "u32", "stream"],
    "rt.value_wait": ["ptr", "size", "u32", "stream"],
    "rt.allocator_create_desc": ["ignored"],
    "rt.allocator_destroy_desc": ["ptr"],
    "rt.allocator_set_obj_to_desc": ["ptr", "ptr"],
    "rt.allocator_set_alloc_func_to_desc": ["ptr", "any"],
    "rt.allocator_set_free_func_to_desc": ["ptr", "any"],
    "rt.allocator_set_alloc_advise_func_to_desc": ["ptr", "any"],
    "rt.allocator_set_get_addr_from_block_func_to_desc": ["ptr", "any"],
    "rt.allocator_register": ["stream", "ptr"],
    # the real one erases the stream from a map without looking at it: any non-NULL is success
    "rt.allocator_unregister": ["ptr"],
    "rt.get_mem_uce_info": ["dev", "fixed"],
    "rt.mem_uce_repair": ["dev", "any"],
    "get_soc_name": ["ignored"],
    "get_version_str": ["str"],
    "get_cann_version": ["u32"],
    "get_device_capability": ["u32", "u32"],
    "float16_to_float": ["u32"],
    "float_to_float16": ["any"],
    "app_log": ["i32", "str"],
    # issue 11's device share
    "rt.set_stream_overflow_switch": ["stream", "u32"],
    "rt.get_stream_overflow_switch": ["stream"],
    "rt.get_overflow_status": ["devptr", "size", "stream"],
    "rt.reset_overflow_status": ["stream"],
    "rt.set_op_wait_timeout": ["u32"],
    "rt.set_op_execute_time_out": ["u32"],
    "rt.set_op_execute_timeout_v2": ["size"],
    "rt.get_op_timeout_interval": ["ignored"],
    "rt.get_op_execute_timeout": ["ignored"],
    "rt.create_notify": ["size"],
    "rt.destroy_notify": ["notify"],
    "rt.record_notify": ["notify", "stream"],
    "rt.wait_and_reset_notify": ["notify", "stream", "i32"],
    "rt.get_notify_id": ["notify"],
    "rt.notify_batch_reset": ["any"],
    "rt.notify_get_export_key": ["notify", "size", "size"],
    "rt.notify_set_import_pid": ["notify", "any"],
    "rt.notify_import_by_key": ["str", "size"],
    "rt.get_device_res_limit": ["dev", "u32"],
    "rt.set_device_res_limit": ["dev", "u32", "u32"],
    "rt.reset_device_res_limit": ["dev"],
    "rt.get_stream_res_limit": ["stream", "i32"],
    "rt.set_stream_res_limit": ["stream", "i32", "u32"],
    "rt.reset_stream_res_limit": ["stream"],
    "rt.use_stream_res_in_current_thread": ["stream"],
    "rt.unuse_stream_res_in_current_thread": ["stream"],
    "rt.get_res_in_current_thread": ["i32"],
    "rt.get_devices_topo": ["u32", "u32"],
    "rt.stream_abort": ["stream"],
    "rt.device_task_abort": ["dev", "u32"],
    "rt.register_cpu_func": ["bin", "str", "str"],
    "rt.set_group": ["u32"],
    "rt.get_group_count": ["u32"],
    "rt.create_group_info": ["ignored"],
    "rt.destroy_group_info": ["ptr"],
    "rt.get_all_group_info": ["ptr"],
    "rt.get_group_info_detail": ["ptr", "i32", "i32"],
    "init+finalize": ["str"],
}
# What the facade hands back that is not a return code: the value alone.
VALUE_ALONE = {
    "rt.get_error_code_from_exception_info",
    "rt.get_task_id_from_exception_info",
    "rt.get_stream_id_from_exception_info",
    "rt.get_thread_id_from_exception_info",
    "rt.get_device_id_from_exception_info",
    "rt.create_binary",
    "rt.allocator_create_desc",
    "rt.create_group_info",
}
FACADE_EXAMPLES = int(os.environ.get("AIOCANN_FUZZ_FACADE_EXAMPLES", "30"))  # more for a deep local run


def _is_int(value: Any) -> bool:
    import operator

    try:
        operator.index(value)
    except TypeError:
        return False
    except ZeroDivisionError:  # Exploding: has __index__, which raises
        return True
    return True


class FacadeBaseline:
    """Live objects for valid calls: runtime, device 0, streams, events, memory, a binary, its
    kernels, args handles, and a report thread serving a callback stream."""

    def __init__(self) -> None:
        import aiocann.acl as acl
        from aiocann.compiler import build_kernel

        self.acl = acl
        ret = acl.init()
        if ret == 100002:  # REPEAT_INITIALIZE
            acl.finalize()
            ret = acl.init()
        assert ret == 0, ret
        assert acl.rt.set_device(0) == 0
        self.ctx = self.ok(acl.rt.get_context())
        self.stream = self.ok(acl.rt.create_stream())
        self.cb_stream = self.ok(acl.rt.create_stream())
        self.event = self.ok(acl.rt.create_event())
        self.event2 = self.ok(acl.rt.create_event())
        for e in (self.event, self.event2):
            assert acl.rt.record_event(e, self.stream) == 0
        assert acl.rt.synchronize_stream(self.stream) == 0
        self.devptr = self.ok(acl.rt.malloc(4096, 0))
        self.pinned = self.ok(acl.rt.malloc_host(4096))
        self.kernel_path = str(build_kernel(TESTS_DIR / "kernels" / "test_kernels.c"))
        self.kernel_bytes = Path(self.kernel_path).read_bytes()
        self.kernel_ptr = acl.util.bytes_to_ptr(self.kernel_bytes)
        self.bin = self.ok(acl.rt.binary_load_from_file(self.kernel_path, []))
        self.desc = acl.rt.create_binary(self.kernel_ptr, len(self.kernel_bytes))
        self.func = self.ok(acl.rt.binary_get_function(self.bin, "empty"))  # empty(GM_ADDR unused)
        self.host = np.zeros(64, np.uint64)  # values for Append / ParaUpdate
        self.host_ptr = int(self.host.ctypes.data)
        self.args = self.ok(acl.rt.kernel_args_init(self.func))
        self.param = self.ok(acl.rt.kernel_args_append(self.args, self.host_ptr, 8))
        self.placeholder = self.ok(acl.rt.kernel_args_append_place_holder(self.args))
        # scratch memory for InitByUserMem (never used afterwards: a wild size may overstate it)
        self.scratch_handle = np.zeros(512, np.uint64)
        self.scratch_buf = np.zeros(4096, np.uint8)
        # an args handle for launch_kernel_with_config that is never finalized: every such launch
        # is refused after its arguments were parsed (a wild block count could be 2**32 - 1)
        self.launch_handle = np.zeros(512, np.uint64)
        self.launch_buf = np.zeros(64, np.uint8)
        hsize = self.ok(acl.rt.kernel_args_get_handle_mem_size(self.func))
        assert hsize <= self.launch_handle.nbytes
        assert (
            acl.rt.kernel_args_init_by_user_mem(
                self.func, int(self.launch_handle.ctypes.data), int(self.launch_buf.ctypes.data), 64
            )
            == 0
        )
        assert acl.rt.kernel_args_append(int(self.launch_handle.ctypes.data), self.host_ptr, 8)[1] == 0
        self.launch_args = int(self.launch_handle.ctypes.data)
        # device args for launch_kernel: empty() reads one pointer
        self.dev_args = self.ok(acl.rt.malloc(64, 0))
        # issue 20's additions: a second allocation, a zeroed word and a stream of its own for
        # value_wait (a wild value may make its wait endless: the stream is then replaced), a
        # memcpy descriptor, host memory to register, an allocator descriptor, virtual memory
        # with physical memory and its shareable handle
        self.devptr2 = self.ok(acl.rt.malloc(4096, 0))
        self.word = self.ok(acl.rt.malloc(64, 0))
        assert acl.rt.memset(self.word, 64, 0, 64) == 0
        self.wait_stream = self.ok(acl.rt.create_stream())
        self.memcpy_desc = self.ok(acl.rt.malloc(64, 0))
        assert acl.rt.set_memcpy_desc(self.memcpy_desc, 6, self.devptr, self.devptr2, 64, 0)[1] == 0
        self.reg_buf = np.zeros(8192, np.uint8)
        self.reg_ptr = int(self.reg_buf.ctypes.data)
        self.alloc_desc = acl.rt.allocator_create_desc()
        assert self.alloc_desc != 0
        self.prop = {"handleType": 0, "allocationType": 0, "memAttr": 12, "location": {"id": 0, "type": 1}}
        self.granularity = self.ok(acl.rt.mem_get_allocation_granularity(self.prop, 0))
        self.vir = self.ok(acl.rt.reserve_mem_address(self.granularity, 0, 0, 0))
        self.phys = self.ok(acl.rt.malloc_physical(self.granularity, self.prop, 0))
        self.shareable = self.ok(acl.rt.mem_export_to_shareable_handle(self.phys, 0, 0))
        self.notify = self.ok(acl.rt.create_notify(0))
        # the report thread that serves cb_stream's callbacks
        self.stop = False
        self.tid = self.ok(acl.util.start_thread(self._reports, None))
        assert acl.rt.subscribe_report(self.tid, self.cb_stream) == 0

    def _reports(self) -> None:
        while not self.stop:
            self.acl.rt.process_report(20)

    def ok(self, result: Any) -> Any:
        *values, ret = result
        assert ret == 0, f"ret={ret}: {self.acl.get_recent_err_msg()}"
        return values[0] if len(values) == 1 else tuple(values)

    def valid(self, name: str) -> list[Any]:
        """A valid argument list for ``name``."""
        b = self
        return {
            "rt.set_device": [0],
            "rt.reset_device": [0],
            "rt.reset_device_force": [0],
            "rt.create_context": [0],
            "rt.destroy_context": [b.ctx],
            "rt.set_context": [b.ctx],
            "rt.create_stream_with_config": [0, 0],
            "rt.destroy_stream": [b.stream],
            "rt.synchronize_stream": [b.stream],
            "rt.synchronize_stream_with_timeout": [b.stream, 1000],
            "rt.stream_query": [b.stream],
            "rt.stream_wait_event": [b.stream, b.event],
            "rt.malloc": [64, 0],
            "rt.free": [b.devptr],
            "rt.malloc_host": [64],
            "rt.free_host": [b.pinned],
            "rt.memcpy": [b.pinned, 4096, b.devptr, 16, 2],
            "rt.memcpy_async": [b.pinned, 4096, b.devptr, 16, 2, b.stream],
            "rt.memset": [b.devptr, 4096, 7, 16],
            "rt.memset_async": [b.devptr, 4096, 7, 16, b.stream],
            "rt.get_mem_info": [1],
            "rt.create_event_with_flag": [1],
            "rt.destroy_event": [b.event],
            "rt.record_event": [b.event2, b.stream],
            "rt.reset_event": [b.event2, b.stream],
            "rt.query_event_status": [b.event],
            "rt.synchronize_event": [b.event],
            "rt.synchronize_event_with_timeout": [b.event, 1000],
            "rt.event_elapsed_time": [b.event, b.event2],
            "rt.event_get_timestamp": [b.event],
            "rt.launch_callback": [_noop, None, 0, b.cb_stream],
            "rt.subscribe_report": [b.tid, b.cb_stream],
            "rt.unsubscribe_report": [b.tid, b.cb_stream],
            "rt.process_report": [20],
            "rt.binary_load_from_file": [b.kernel_path, []],
            "rt.binary_load_from_data": [b.kernel_ptr, len(b.kernel_bytes), []],
            "rt.binary_get_function": [b.bin, "empty"],
            "rt.binary_unload": [b.bin],
            "rt.kernel_args_init": [b.func],
            "rt.kernel_args_init_by_user_mem": [
                b.func,
                int(b.scratch_handle.ctypes.data),
                int(b.scratch_buf.ctypes.data),
                4096,
            ],
            "rt.kernel_args_get_mem_size": [b.func, 64],
            "rt.kernel_args_get_handle_mem_size": [b.func],
            "rt.kernel_args_append": [b.args, b.host_ptr, 8],
            "rt.kernel_args_append_place_holder": [b.args],
            "rt.kernel_args_get_place_holder_buffer": [b.args, b.placeholder, 8],
            "rt.kernel_args_para_update": [b.args, b.param, b.host_ptr, 8],
            "rt.kernel_args_finalize": [b.args],
            "rt.launch_kernel_with_config": [b.func, 1, b.stream, [], b.launch_args, 0],
            "rt.launch_kernel": [b.func, 1, b.dev_args, 8, b.stream],
            "rt.set_ts_device": [0],
            "rt.set_device_sat_mode": [1],
            "rt.synchronize_device_with_timeout": [1000],
            "rt.get_device_utilization_rate": [0],
            "rt.query_device_status": [0],
            "rt.get_device_info": [0, 101],
            "rt.get_device_capability": [0, 1],
            "rt.get_logic_dev_id_by_user_dev_id": [0],
            "rt.get_user_dev_id_by_logic_dev_id": [0],
            "rt.get_logic_dev_id_by_phy_dev_id": [0],
            "rt.get_phy_dev_id_by_logic_dev_id": [0],
            "rt.device_get_uuid": [0],
            "rt.device_can_access_peer": [0, 1],
            "rt.device_enable_peer_access": [1, 0],
            "rt.device_disable_peer_access": [1],
            "rt.device_peer_access_status": [0, 1],
            "rt.get_primary_ctx_state": [0],
            "rt.ctx_set_sys_param_opt": [0, 1],
            "rt.ctx_get_sys_param_opt": [0],
            "rt.set_sys_param_opt": [0, 0],
            "rt.get_sys_param_opt": [0],
            "rt.destroy_stream_force": [b.stream],
            "rt.set_stream_attribute": [b.stream, 3, {"userCustomTag": 1}],
            "rt.get_stream_attribute": [b.stream, 3],
            "rt.create_event_ex_with_flag": [1],
            "rt.query_event": [b.event],
            "rt.query_event_wait_status": [b.event],
            "rt.get_event_id": [b.event],
            "rt.malloc_align32": [64, 0],
            "rt.malloc_cached": [64, 0],
            "rt.mem_flush": [b.devptr, 64],
            "rt.mem_invalidate": [b.devptr, 64],
            "rt.malloc_with_cfg": [64, 0, {}],
            "rt.malloc_for_task_scheduler": [64, 0, {}],
            "rt.malloc_host_with_cfg": [64, {}],
            "rt.pointer_get_attributes": [b.devptr],
            "rt.memcpy2d": [b.pinned, 64, b.devptr, 64, 16, 4, 2],
            "rt.memcpy2d_async": [b.pinned, 64, b.devptr, 64, 16, 4, 2, b.stream],
            "rt.destroy_binary": [b.desc],
            "rt.binary_load": [b.desc],
            "rt.get_function_addr": [b.func],
            "rt.get_function_name": [b.func, 64],
            "util.start_thread": [_noop, None],
            "util.stop_thread": [0],
            "util.bytes_to_ptr": [b"abc"],
            "util.numpy_to_ptr": [b.host],
            "util.numpy_contiguous_to_ptr": [b.host],
            "util.ptr_to_numpy": [b.host_ptr, (4,), 8],  # NPY_UINT = 8? any valid type number
            "util.ptr_to_bytes": [b.host_ptr, 16],
            "rt.get_error_code_from_exception_info": [0],
            "rt.get_task_id_from_exception_info": [0],
            "rt.get_stream_id_from_exception_info": [0],
            "rt.get_thread_id_from_exception_info": [0],
            "rt.get_device_id_from_exception_info": [0],
            "rt.set_exception_info_callback": [None],
            "rt.peek_at_last_error": [0],
            "rt.get_last_error": [0],
            "rt.set_stream_failure_mode": [b.stream, 0],
            "rt.stream_get_id": [b.stream],
            "rt.create_binary": [b.kernel_ptr, len(b.kernel_bytes)],
            "rt.reserve_mem_address": [b.granularity, 0, 0, 0],
            "rt.release_mem_address": [0],
            "rt.malloc_physical": [b.granularity, b.prop, 0],
            "rt.free_physical": [0],
            "rt.map_mem": [b.vir, b.granularity, 0, b.phys, 0],
            "rt.unmap_mem": [0],
            "rt.mem_get_allocation_granularity": [b.prop, 0],
            "rt.mem_export_to_shareable_handle": [b.phys, 0, 0],
            "rt.mem_set_pid_to_shareable_handle": [b.shareable, [os.getpid()]],
            "rt.mem_import_from_shareable_handle": [b.shareable, 0],
            "rt.ipc_mem_get_export_key": [b.devptr, 4096, 65, 0],
            "rt.ipc_mem_set_import_pid": ["no-such-key", [os.getpid()]],
            "rt.ipc_mem_import_by_key": ["no-such-key", 0],
            "rt.ipc_mem_close": ["no-such-key"],
            "rt.host_register": [b.reg_ptr, 4096, 0],
            "rt.host_register_v2": [b.reg_ptr, 4096, 1],
            "rt.host_get_device_pointer": [b.reg_ptr, 0],
            "rt.host_unregister": [0],
            "rt.get_memcpy_desc_size": [6],
            "rt.set_memcpy_desc": [b.memcpy_desc, 6, b.devptr, b.devptr2, 64, 0],
            "rt.memcpy_async_with_desc": [b.memcpy_desc, 6, b.stream],
            "rt.memcpy_async_with_condition": [b.pinned, 4096, b.devptr, 16, 2, b.stream],
            "rt.reduce_async": [b.devptr2, b.devptr, 64, 10, 0, b.stream, 0],
            "rt.cmo_async": [b.devptr, 64, 0, b.stream],
            "rt.value_write": [b.word, 0, 0, b.stream],
            "rt.value_wait": [b.word, 0, 1, b.wait_stream],
            "rt.allocator_destroy_desc": [0],
            "rt.allocator_set_obj_to_desc": [b.alloc_desc, 1],
            "rt.allocator_set_alloc_func_to_desc": [b.alloc_desc, _noop],
            "rt.allocator_set_free_func_to_desc": [b.alloc_desc, _noop],
            "rt.allocator_set_alloc_advise_func_to_desc": [b.alloc_desc, _noop],
            "rt.allocator_set_get_addr_from_block_func_to_desc": [b.alloc_desc, _noop],
            "rt.allocator_register": [b.stream, b.alloc_desc],
            "rt.allocator_unregister": [b.stream],
            "rt.get_mem_uce_info": [0, 4],
            "rt.mem_uce_repair": [0, []],
            "get_version_str": ["runtime"],
            "get_cann_version": [0],
            "get_device_capability": [0, 0],
            "float16_to_float": [0x3C00],
            "float_to_float16": [1.0],
            "app_log": [0, "fuzz"],
            "rt.set_stream_overflow_switch": [b.stream, 0],
            "rt.get_stream_overflow_switch": [b.stream],
            "rt.get_overflow_status": [b.devptr2, 64, b.stream],
            "rt.reset_overflow_status": [b.stream],
            "rt.set_op_wait_timeout": [0],
            "rt.set_op_execute_time_out": [0],
            "rt.set_op_execute_timeout_v2": [0],
            "rt.create_notify": [0],
            "rt.destroy_notify": [0],
            "rt.record_notify": [b.notify, b.stream],
            "rt.wait_and_reset_notify": [b.notify, b.wait_stream, 0],
            "rt.get_notify_id": [b.notify],
            "rt.notify_batch_reset": [[b.notify]],
            "rt.notify_get_export_key": [b.notify, 65, 0],
            "rt.notify_set_import_pid": [b.notify, [os.getpid()]],
            "rt.notify_import_by_key": ["no-such-key", 0],
            "rt.get_device_res_limit": [0, 0],
            "rt.set_device_res_limit": [0, 0, 1],
            "rt.reset_device_res_limit": [0],
            "rt.get_stream_res_limit": [b.stream, 0],
            "rt.set_stream_res_limit": [b.stream, 0, 1],
            "rt.reset_stream_res_limit": [b.stream],
            "rt.use_stream_res_in_current_thread": [b.stream],
            "rt.unuse_stream_res_in_current_thread": [b.stream],
            "rt.get_res_in_current_thread": [0],
            "rt.get_devices_topo": [0, 1],
            "rt.stream_abort": [b.stream],
            "rt.device_task_abort": [0, 1000],
            "rt.register_cpu_func": [b.bin, "fuzz", "fuzz"],
            "rt.set_group": [0],
            "rt.get_group_count": [0],
            "rt.destroy_group_info": [0],
            "rt.get_all_group_info": [0],
            "rt.get_group_info_detail": [0, 0, 0],
            "init+finalize": [""],
        }.get(name, [])

    def after(self, name: str, args: list[Any], result: Any) -> None:
        """Undo what a successful call changed, so the next call starts from the baseline."""
        acl = self.acl
        if name == "util.start_thread" and isinstance(result, tuple) and result[1] == 0:
            try:
                acl.util.stop_thread(result[0])
            except RuntimeError:
                pass  # the thread's fn raised: pyACL reports that through stop_thread, by design
            return
        if name == "rt.set_exception_info_callback":
            acl.rt.set_exception_info_callback(None)  # a wild callable must not stay in the slot
            return
        if name == "rt.create_binary" and result:
            acl.rt.destroy_binary(result)
            return
        if name == "rt.allocator_create_desc" and result:
            acl.rt.allocator_destroy_desc(result)
            return
        if name == "rt.create_group_info" and result:
            acl.rt.destroy_group_info(result)
            return
        if name in ("rt.value_wait", "rt.wait_and_reset_notify") and result == 0:
            # the wait may never be met: drop it with its stream, take a fresh one
            assert acl.rt.destroy_stream_force(self.wait_stream) == 0
            self.wait_stream = self.ok(acl.rt.create_stream())
            return
        if (
            name in VALUE_ALONE
            or not name.startswith("rt.")
            or (result[-1] if isinstance(result, tuple) else result) != 0
        ):
            return
        if name in (
            "rt.malloc",
            "rt.malloc_align32",
            "rt.malloc_cached",
            "rt.malloc_with_cfg",
            "rt.malloc_for_task_scheduler",
        ):
            acl.rt.free(result[0])
        elif name in ("rt.malloc_host", "rt.malloc_host_with_cfg"):
            acl.rt.free_host(result[0])
        elif name == "rt.create_event_ex_with_flag":
            acl.rt.destroy_event(result[0])
        elif name == "rt.binary_load":
            acl.rt.binary_unload(result[0])
        elif name == "rt.device_enable_peer_access":
            acl.rt.device_disable_peer_access(args[0])
        elif name in ("rt.create_stream", "rt.create_stream_with_config"):
            acl.rt.destroy_stream(result[0])
        elif name in ("rt.create_event", "rt.create_event_with_flag"):
            acl.rt.destroy_event(result[0])
        elif name in ("rt.binary_load_from_file", "rt.binary_load_from_data"):
            acl.rt.binary_unload(result[0])
        elif name == "rt.create_context":
            acl.rt.set_context(self.ctx)
            acl.rt.destroy_context(result[0])
        elif name in ("rt.set_device", "rt.set_context"):
            acl.rt.set_context(self.ctx)
        elif name in ("rt.reset_device", "rt.reset_device_force"):
            self.rebuild()  # a wild id that is a real device (0): everything on it is gone
        elif name == "rt.reserve_mem_address":
            acl.rt.release_mem_address(result[0])
        elif name in ("rt.malloc_physical", "rt.mem_import_from_shareable_handle"):
            acl.rt.free_physical(result[0])
        elif name == "rt.map_mem":
            acl.rt.unmap_mem(args[0])
        elif name == "rt.ipc_mem_get_export_key":
            acl.rt.ipc_mem_close(result[0])
        elif name in ("rt.host_register", "rt.host_register_v2"):
            acl.rt.host_unregister(args[0])
        elif name == "rt.set_stream_failure_mode":
            acl.rt.set_stream_failure_mode(args[0], 0)
        elif name == "rt.allocator_register":
            acl.rt.allocator_unregister(args[0])
        elif name == "rt.create_notify":
            acl.rt.destroy_notify(result[0])
        elif name == "rt.set_stream_overflow_switch":
            acl.rt.set_stream_overflow_switch(args[0], 0)
        elif name == "rt.set_op_wait_timeout":
            acl.rt.set_op_wait_timeout(0)
        elif name in ("rt.set_op_execute_time_out", "rt.set_op_execute_timeout_v2"):
            acl.rt.set_op_execute_time_out(0)
        elif name == "rt.set_device_res_limit":
            acl.rt.reset_device_res_limit(args[0])
        elif name == "rt.set_stream_res_limit":
            acl.rt.reset_stream_res_limit(args[0])
        elif name == "rt.use_stream_res_in_current_thread":
            acl.rt.unuse_stream_res_in_current_thread(args[0])
        elif name == "rt.kernel_args_init":
            self.args = self.ok(acl.rt.kernel_args_init(self.func))  # same handle, fresh params
            self.param = self.ok(acl.rt.kernel_args_append(self.args, self.host_ptr, 8))
            self.placeholder = self.ok(acl.rt.kernel_args_append_place_holder(self.args))

    def close(self) -> None:
        self.stop = True
        self.acl.util.stop_thread(self.tid)
        self.acl.finalize()

    def rebuild(self) -> None:
        self.close()
        self.__init__()  # type: ignore[misc]


def _noop(*_: Any) -> None:
    pass


def _call_facade(name: str, args: list[Any]) -> Any:
    import aiocann.acl as acl

    module, _, fn = name.rpartition(".")
    target = acl if not module else getattr(acl, module)
    return getattr(target, fn)(*args)


def _judge(name: str, kind: str, value: Any, outcome: Any, exc: BaseException | None) -> str | None:
    """What is wrong with this outcome, or None."""
    if exc is not None:
        if isinstance(exc, ZeroDivisionError) and isinstance(value, Exploding):
            return None  # the value's own __index__ raised: propagating it is right
        allowed: tuple[type[BaseException], ...] = (TypeError, ValueError)
        if kind in INT_KINDS and _is_int(value):
            allowed += (OverflowError,)
        if name == "rt.get_group_info_detail":
            allowed += (RuntimeError,)  # pyACL's own answer to a failed query
        if name in ("rt.malloc_with_cfg", "rt.malloc_for_task_scheduler", "rt.malloc_host_with_cfg"):
            allowed += (KeyError,)  # pyACL's own answer to a cfg dict with a wrong key or count
        if name == "util.ptr_to_numpy" and kind == "shape":
            allowed += (OverflowError, MemoryError)  # numpy's own answer to an absurd shape
        if not isinstance(exc, allowed):
            return f"raised {type(exc).__name__}: {exc}"
        if not str(exc):
            return f"raised {type(exc).__name__} without a message"
        return None
    # it returned
    if kind in INT_KINDS and not _is_int(value):
        return f"accepted a {type(value).__name__} where pyACL parses an integer (returned {outcome!r})"
    if kind == "str" and not isinstance(value, str):
        return f"accepted a {type(value).__name__} where pyACL parses a str"
    if kind == "list" and not isinstance(value, list):
        return f"accepted a {type(value).__name__} where pyACL wants a list"
    if kind == "callable" and not callable(value):
        return "accepted a non-callable"
    if name.endswith("_from_exception_info"):
        # no callback is running: nothing is a live report, every address reads as NULL
        return None if outcome == 0xFFFFFFFF else f"returned {outcome!r} for a report no callback holds"
    if name in VALUE_ALONE:
        return None if isinstance(outcome, int) and 0 <= outcome < 2**64 else f"returned {outcome!r}"
    ret = outcome[-1] if isinstance(outcome, tuple) else outcome
    if name.startswith("rt.") and not (isinstance(ret, int) and 0 <= ret < 2**31):
        return f"returned {outcome!r}: the ret code is not an ACL code"
    if kind in OPAQUE and ret == 0:
        garbage = not (kind == "stream" and int(value) % 2**64 == 0) and not (
            kind == "reserve" and int(value) % 2**64 == 0
        )
        if garbage:
            return f"returned success for a garbage {kind} handle {value!r}"
    return None


FACADE_VALUES = st.one_of(
    WILD,
    st.sampled_from([1, 12345, 2**63, -1, 2**64 - 1, 4096, 2**64 + 1, -(2**63), 0xDEADBEEF000]),
)


def _worker_settings() -> settings:
    from hypothesis import Phase

    return settings(
        max_examples=FACADE_EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],  # report each bad call as it is, unshrunk
        suppress_health_check=list(HealthCheck),
    )


def _fuzz_function(name: str, base: FacadeBaseline, say: Callable[[str], None]) -> list[str]:
    """Fuzz one facade function: one argument of a valid call replaced by a wild value."""
    kinds = FACADE[name]
    problems: list[str] = []

    @_worker_settings()
    @given(pos=st.sampled_from([i for i, k in enumerate(kinds) if k != "fixed"]), value=FACADE_VALUES)
    def fuzz(pos: int, value: Any) -> None:
        args = base.valid(name)
        kind = kinds[pos]
        if kind == "ignored":
            args = [value]
        else:
            args[pos] = value
        say(f"CALL {name}{tuple(args)!r:.300}")
        outcome: Any = None
        exc: BaseException | None = None
        try:
            outcome = _call_facade(name, args)
        except Exception as e:  # judged below
            exc = e
        problem = _judge(name, kind, value, outcome, exc)
        if problem is None and exc is None:
            base.after(name, args, outcome)
        if problem:
            problems.append(f"{name}{tuple(args)!r:.300}: {problem}")

    fuzz()
    return problems


def _fuzz_init(say: Callable[[str], None]) -> list[str]:
    """acl.init with wild config paths, acl.finalize with wild extra arguments; afterwards ACL
    still comes up."""
    import aiocann.acl as acl

    problems: list[str] = []

    @_worker_settings()
    @given(value=FACADE_VALUES)
    def fuzz(value: Any) -> None:
        say(f"CALL acl.init({value!r:.300})")
        assert acl.init() in (0, 100002)
        assert acl.finalize() == 0
        outcome: Any = None
        exc: BaseException | None = None
        try:
            outcome = acl.init(value)  # no such config file, or not a str
        except Exception as e:
            exc = e
        problem = _judge("init", "str", value, outcome, exc)
        if problem is None and exc is None and not isinstance(outcome, int):
            problem = f"returned {outcome!r}"
        if problem:
            problems.append(f"init+finalize: acl.init({value!r:.300}): {problem}")
        say(f"CALL acl.finalize({value!r:.300})")
        if not isinstance(acl.finalize(value), int):
            problems.append("init+finalize: acl.finalize did not return an int")

    fuzz()
    if acl.init() != 0:
        problems.append(f"init+finalize: acl.init() fails after the fuzz: {acl.get_recent_err_msg()}")
    acl.finalize()
    return problems


def _facade_worker(names: list[str], protocol: str) -> None:
    """Fuzz each facade function in turn (runs in a subprocess; see _run_facade). Writes a
    protocol line before every call, so that the parent can name the call a crash happened in."""
    import faulthandler
    import traceback
    import warnings

    warnings.simplefilter("ignore")  # the deprecated numpy helpers warn, as pyACL's do
    log = open(protocol, "a", buffering=1)  # noqa: SIM115 - line-buffered, lives for the process

    def say(line: str) -> None:
        if line.startswith("CALL "):  # re-arm the watchdog: it measures this one call
            faulthandler.dump_traceback_later(CALL_WATCHDOG, exit=True)
        log.write(line.replace("\n", "\\n") + "\n")
        log.flush()

    base: FacadeBaseline | None = FacadeBaseline()
    for name in names:
        say(f"BEGIN {name}")
        try:
            if name == "init+finalize":  # last: it takes the runtime down and up again
                if base is not None:
                    base.close()
                    base = None
                problems = _fuzz_init(say)
            else:
                assert base is not None, "init+finalize must come last"
                problems = _fuzz_function(name, base, say)
        except Exception:
            problems = [f"{name}: the worker failed: {traceback.format_exc()}"]
        for p in dict.fromkeys(problems):
            say(f"PROBLEM {p}")
        say(f"END {name}")
    if base is not None:
        base.close()
    say("DONE")


CALL_WATCHDOG = 20  # seconds: a worker stuck this long in one call dumps its stacks and exits


@dataclass
class FacadeReport:
    problems: list[str]
    deaths: list[str]  # crashes and hangs: the function, how it died, the exact call


def _run_facade(names: list[str], tmp: Path) -> FacadeReport:
    """Runs _facade_worker over names in subprocesses: after a crash or a hang, a new worker
    resumes after the function that died."""
    report = FacadeReport([], [])
    remaining = list(names)
    round_ = 0
    while remaining:
        round_ += 1
        protocol = tmp / f"facade-{round_}.log"
        code = (
            "import faulthandler, os, sys; sys.path[:0] = sys.argv[1].split(os.pathsep);"
            f"faulthandler.enable(); faulthandler.dump_traceback_later({CALL_WATCHDOG} * 3, exit=True);"
            "import test_fuzz_api as t; t._facade_worker(sys.argv[3:], sys.argv[2])"
        )
        proc = subprocess.run(
            [sys.executable, "-c", code, os.pathsep.join(_WORKER_PATH), str(protocol), *remaining],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=600,
        )
        lines = protocol.read_text().splitlines() if protocol.exists() else []
        begun = [ln.split(" ", 1)[1] for ln in lines if ln.startswith("BEGIN ")]
        report.problems += [ln.split(" ", 1)[1] for ln in lines if ln.startswith("PROBLEM ")]
        if "DONE" in lines:
            break
        if not begun:
            report.deaths.append(
                f"the worker died before fuzzing anything (exit {proc.returncode}): {proc.stderr[-2000:]}"
            )
            break
        current = begun[-1]
        calls = [ln for ln in lines if ln.startswith("CALL ")]
        how = (
            "hung (watchdog)"
            if "Timeout" in proc.stderr
            else f"crashed with signal {-proc.returncode}"
            if proc.returncode < 0
            else f"exited {proc.returncode}"
        )
        report.deaths.append(f"{current}: {how} in {calls[-1][5:] if calls else '?'}")
        remaining = remaining[remaining.index(current) + 1 :]
    return report


@pytest.fixture(scope="module")
def facade_report(tmp_path_factory: pytest.TempPathFactory) -> FacadeReport:
    """The facade fuzzed by two workers in parallel (init+finalize last: it restarts ACL)."""
    names = [n for n in FACADE if n != "init+finalize"]
    chunks = [names[0::2], [*names[1::2], "init+finalize"]]
    tmp = tmp_path_factory.mktemp("facade")
    for i in range(len(chunks)):
        (tmp / str(i)).mkdir()
    with concurrent.futures.ThreadPoolExecutor(len(chunks)) as pool:
        reports = list(pool.map(lambda i: _run_facade(chunks[i], tmp / str(i)), range(len(chunks))))
    return FacadeReport([p for r in reports for p in r.problems], [d for r in reports for d in r.deaths])


def test_facade_answers_bad_arguments_like_pyacl(facade_report):
    problems, deaths = facade_report.problems, facade_report.deaths
    assert not deaths, "facade calls that crashed or hung:\n" + "\n".join(deaths)
    assert not problems, "facade calls that answered wrongly:\n" + "\n".join(problems)


# Facade functions the fuzz leaves out, and why.
NOT_FUZZED = {
    "finalize_reference": "takes down the runtime the worker's baseline lives in (it parses no arguments)",
    "finalize": "fuzzed as part of init+finalize",
    "init": "fuzzed as part of init+finalize",
}


def test_the_facade_fuzz_covers_the_whole_module():
    """Issue 20: the fuzz listed functions by hand and missed the exception-info getters, which
    crashed on any int. Every public function of acl, acl.rt and acl.util is fuzzed."""
    import aiocann.acl as acl

    public = [n for n in acl.__all__ if callable(getattr(acl, n))]
    public += [f"{mod}.{n}" for mod in ("rt", "util") for n in getattr(acl, mod).__all__]
    missing = sorted(n for n in public if n not in FACADE and n not in NOT_FUZZED)
    assert not missing, f"facade functions the fuzz does not call: {missing}"


def test_ptr_to_bytes_refuses_unreadable_memory():
    import aiocann.acl as acl

    for ptr, size in ((1, 16), (12345, 8), (2**63, 8), (2**64 - 4096, 4096)):
        with pytest.raises(ValueError, match="not readable"):
            acl.util.ptr_to_bytes(ptr, size)
    data = b"abcdefgh"
    assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), 8) == data
    with pytest.raises(ValueError, match="not readable"):
        acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), 1 << 40)


def test_truncated_kernel_binaries_are_refused_not_crashed(tmp_path, test_kernels_path):
    """Found by the facade fuzz: binary_load_from_data with a length shorter than the binary
    killed the process with SIGBUS inside dlopen (the loader maps segments past the end of the
    data). Now every truncation is 107000, from data and from a file. In a subprocess, so that
    a regression is a failure and not the end of the test run."""
    data = Path(test_kernels_path).read_bytes()
    cuts = [1, 16, 64, 100, 1000, 4096, len(data) // 2, len(data) - 1]
    for i, n in enumerate(cuts):
        (tmp_path / f"cut{i}.so").write_bytes(data[:n])
    code = f"""
import sys
from aiocann._lib import ffi, lib
assert lib.aclInit(ffi.NULL) == 0 and lib.aclrtSetDevice(0) == 0
data = open({str(test_kernels_path)!r}, "rb").read()
out = ffi.new("aclrtBinHandle *")
for i, n in enumerate({cuts!r}):
    print("data", n, lib.aclrtBinaryLoadFromData(data, n, ffi.NULL, out), flush=True)
    print("file", n, lib.aclrtBinaryLoadFromFile(sys.argv[1].encode() + b"/cut%d.so" % i, ffi.NULL, out), flush=True)
print("whole", len(data), lib.aclrtBinaryLoadFromData(data, len(data), ffi.NULL, out), flush=True)
"""
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"died ({proc.returncode}) after:\n{proc.stdout}\n{proc.stderr[-2000:]}"
    rcs = [line.split() for line in proc.stdout.splitlines()]
    assert rcs[-1] == ["whole", str(len(data)), "0"]
    bad = [r for r in rcs[:-1] if r[2] != "107000"]
    assert not bad, f"truncated binaries not refused with 107000: {bad}"


def test_special_files_are_refused_not_waited_on(tmp_path):
    """Found by an adversarial probe: aclrtBinaryLoadFromFile of a FIFO waited for a writer for
    good (opening it for reading blocks), and so did an AI CPU program whose op-info JSON is
    one. A FIFO, a directory or a device is not a regular file: 107000, at once. In a
    subprocess with a deadline, so that a regression is a failure and not a hung run."""
    os.mkfifo(tmp_path / "k.so")
    os.mkfifo(tmp_path / "cpu.json")
    (tmp_path / "dir.so").mkdir()
    code = """
import sys
import aiocann.acl as acl
acl.init()
acl.rt.set_device(0)
d = sys.argv[1]
for path in (d + "/k.so", d + "/dir.so", "/dev/zero"):
    print(acl.rt.binary_load_from_file(path, [])[1], acl.get_recent_err_msg().splitlines()[0], flush=True)
mode = {"type": 3, "value": 0}  # ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE: the op-info JSON beside the path
print(acl.rt.binary_load_from_file(d + "/cpu.so", [mode])[1], acl.get_recent_err_msg().splitlines()[0], flush=True)
"""
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"died ({proc.returncode}) after:\n{proc.stdout}\n{proc.stderr[-2000:]}"
    lines = proc.stdout.splitlines()
    assert len(lines) == 4, proc.stdout
    for line in lines:
        assert line.startswith("107000 ") and "not a regular file" in line, line


def _elf_dynamic(data: bytes) -> dict[int, int]:
    """The dynamic section's entries (tag -> value) of a 64-bit little-endian shared object."""
    import struct

    phoff, phentsize, phnum = struct.unpack_from("<Q", data, 32)[0], *struct.unpack_from("<HH", data, 54)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 2:  # PT_DYNAMIC
            pairs = struct.iter_unpack("<qQ", data[p_offset : p_offset + p_filesz])
            return {tag: val for tag, val in pairs if tag != 0}
    raise AssertionError("no PT_DYNAMIC")


def test_corrupted_kernel_binaries_are_refused_not_crashed(tmp_path, test_kernels_path):
    """Found by fuzzing aclrtBinaryLoadFromData with flipped bytes: a third of the corrupted
    binaries killed the process -- a fault in dlopen (relocations aimed outside the object, a
    symbol hash table sending a lookup astray), in dlsym, or ld.so's own "Inconsistency
    detected" exit. The simulator now tries every binary in its load probe first; such a binary
    is 107000 naming what the probe died of, from data and from a file, and the process goes
    on. Relocations aimed outside the object are refused before any load (in the probe's
    process such a write may fault where in the caller's it would land on live memory). In a
    subprocess, so that a regression is a failure and not the end of the test run."""
    import random
    import struct

    data = Path(test_kernels_path).read_bytes()
    dyn = _elf_dynamic(data)
    # In these small objects the first pages are mapped at their file offsets (vaddr == offset).
    # Its first relocation aimed far outside the object: dlopen would write there, so the
    # simulator's own check refuses it before any loader sees it.
    wild = bytearray(data)
    struct.pack_into("<Q", wild, dyn[7], 0x7F00_0000_0000)  # DT_RELA: the first entry's r_offset
    (tmp_path / "wild.so").write_bytes(wild)
    # The relocation that fills its destructor list (DT_FINI_ARRAY) made to point far away: it
    # loads, and unloading it calls that address -- the probe faults (SIGSEGV).
    fini = bytearray(data)
    relas = [(dyn[7] + i, *struct.unpack_from("<QQ", data, dyn[7] + i)) for i in range(0, dyn[8], 24)]
    entry = next(at for at, r_offset, _ in relas if r_offset == dyn[26])
    struct.pack_into("<q", fini, entry + 16, 0x7F00_0000_0000)  # its r_addend
    (tmp_path / "fini.so").write_bytes(fini)
    # A GNU hash table whose Bloom filter is not a power of two words: ld.so gives up itself.
    bloom = bytearray(data)
    struct.pack_into("<I", bloom, dyn[0x6FFFFEF5] + 8, 3)  # DT_GNU_HASH: bloom_size
    rng = random.Random(20261203)
    flipped = []
    for _ in range(40):  # bytes flipped where the loader reads: the headers, dynamic data
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(4096)] = rng.randrange(256)
        flipped.append(bytes(b))
    cases = [wild, bloom, fini, *flipped]
    (tmp_path / "cases.bin").write_bytes(b"".join(len(c).to_bytes(8, "little") + c for c in cases))
    code = f"""
import sys
from aiocann._lib import ffi, lib
assert lib.aclInit(ffi.NULL) == 0 and lib.aclrtSetDevice(0) == 0
blob = open(sys.argv[1] + "/cases.bin", "rb").read()
cases, at = [], 0
while at < len(blob):
    n = int.from_bytes(blob[at : at + 8], "little")
    cases.append(blob[at + 8 : at + 8 + n])
    at += 8 + n
out = ffi.new("aclrtBinHandle *")
def report(what, rc):
    msg = lib.aclGetRecentErrMsg()
    print(what, rc, ffi.string(msg).decode(errors="replace").split(chr(10))[0] if msg else "", flush=True)
    if rc == 0:
        assert lib.aclrtBinaryUnLoad(out[0]) == 0
for i, case in enumerate(cases):
    report(f"data{{i}}", lib.aclrtBinaryLoadFromData(case, len(case), ffi.NULL, out))
report("file_wild", lib.aclrtBinaryLoadFromFile(sys.argv[1].encode() + b"/wild.so", ffi.NULL, out))
report("file_fini", lib.aclrtBinaryLoadFromFile(sys.argv[1].encode() + b"/fini.so", ffi.NULL, out))
whole = open({str(test_kernels_path)!r}, "rb").read()
report("whole", lib.aclrtBinaryLoadFromData(whole, len(whole), ffi.NULL, out))
"""
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"died ({proc.returncode}) after:\n{proc.stdout}\n{proc.stderr[-2000:]}"
    rows = {line.split(" ", 1)[0]: line.split(" ", 2)[1:] for line in proc.stdout.splitlines()}
    assert rows["whole"][0] == "0"
    for name in ("data0", "file_wild"):  # the wild relocation
        rc, msg = rows[name]
        assert rc == "107000" and "a relocation aims outside its segments" in msg, (name, msg)
    for name in ("data2", "file_fini"):  # the wild destructor
        rc, msg = rows[name]
        assert rc == "107000" and "loading it faults in the dynamic loader (signal 11" in msg, (name, msg)
    assert rows["data1"][0] == "107000" and "not a loadable kernel binary" in rows["data1"][1], rows["data1"]
    bad = {k: v for k, v in rows.items() if v[0] not in ("0", "107000")}
    assert not bad, f"corrupted binaries not refused with 107000: {bad}"


@pytest.mark.anyio
async def test_integers_out_of_c_range_name_their_argument(test_kernels_path):
    """Found by an adversarial probe: integers past what the C side holds raised cffi's bare
    OverflowError ("int too big to convert", "can't convert negative number to unsigned")
    from deep inside; now a ValueError names the argument and its range. An int subclass for
    ``blocks`` (an IntEnum member) is its value, not a range error naming it 1."""
    from enum import IntEnum

    from aiocann.launch import LaunchConfig

    for make, pattern in [
        (lambda: LaunchConfig(timeout=1e30), r"timeout must be .* below"),
        (lambda: LaunchConfig(timeout=2**64), r"timeout must be .* below"),
        (lambda: ac.Device(2**40), r"the device index must be in \[0, 2\*\*31\), got 1099511627776"),
        (lambda: ac.Device(-1), r"the device index must be in \[0, 2\*\*31\), got -1"),
        (lambda: ac.Device(0, max_in_flight=2**70), r"max_in_flight must be in \[1, 2\*\*62\)"),
        (lambda: ac.Device(0, max_in_flight=0), r"max_in_flight must be in \[1, 2\*\*62\), got 0"),
    ]:
        with pytest.raises(ValueError, match=pattern):
            make()

    class Blocks(IntEnum):
        ONE = 1

    async with ac.Device(0) as dev:
        for kwargs, pattern in [
            ({"priority": -1}, r"priority must be in \[0, 2\*\*32\), got -1"),
            ({"priority": 2**40}, r"priority must be in \[0, 2\*\*32\)"),
            ({"max_in_flight": 2**70}, r"max_in_flight must be in \[1, 2\*\*62\)"),
        ]:
            with pytest.raises(ValueError, match=pattern):
                dev.stream(**kwargs)
        k = (await dev.load_binary(test_kernels_path)).function("write_value")
        async with dev.stream() as s:
            out = dev.empty(4, np.int32)
            await s.memset(out, 0)
            args = await k.args().ptr(out).u32(0).i32(5)
            for bad in (-1, 2**64):
                with pytest.raises(ValueError, match="device address .* is out of range"):
                    args.update(0, bad)
            await (await ac.launch(k, args, blocks=Blocks.ONE, stream=s))
            assert (await out.get()).tolist() == [5, 0, 0, 0]
