"""Fuzzing the kernel-args API (reference §10) against a Python model of the reference.

A hypothesis state machine issues random sequences of aclrtKernelArgs* calls and launches
through the raw binding, on the thread's system-managed handle (Init) and on three handles
built in test-owned memory (InitByUserMem, with random buffer sizes, too small ones included),
plus handles that are not handles (integers, zeroed memory, a byte copy of a live handle).
Every call is predicted by ``ArgsModel`` -- the state machine of §10.5, the layout of §10.3, the
error table of §10.6 in the runtime's order of checks -- and the test asserts:

* the same return code, and a recent error message exactly when the call fails;
* the same bytes: the caller's buffer of a user-memory handle, and the system handle's buffer
  (found from the address GetPlaceHolderBuffer returns), match the model after every call --
  parameters at their aligned offsets, placeholder slots, data blocks, untouched padding;
* parameter handles are (generation << 8 | index + 1), one fresh generation per Init;
* a launch delivers exactly [0, argsSize) with every placeholder slot patched to D + its
  dataOffset, as seen by a kernel that dumps its raw args (tests/kernels/fuzz_kernels.c).

Simulator kernels have no system parameters or overflow slot, so user parameters start at
offset 0; the simulator also refuses, with 107000, a launch whose args are shorter than the
kernel's signature reads, or whose handle was initialised for another kernel -- the model
includes both. The one place where the reference leaves the code open (launching empty args)
uses the simulator's 107000.

Below the state machine, regression tests for the two simulator bugs it found: a huge size
wrapped the `offset + size` bounds check around 2**64, and host memory was validated with
mincore alone, so a handle or buffer on a PROT_NONE (guard) page crashed the process.
"""

from __future__ import annotations

import ctypes
import mmap
import random
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from acl_util import (
    INVALID_PARAM,
    RT_FEATURE_NOT_SUPPORT,
    RT_INVALID_HANDLE,
    RT_PARAM_INVALID,
    SUCCESS,
    TESTS_DIR,
    KernelArgs,
    Runtime,
    acl_session,
    addr,
    expect,
    last_error,
    launch_rc,
    sync_rc,
    vp,
)
from hypothesis import HealthCheck, settings
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from aiocann._lib import check, ffi, lib

FUZZ_KERNELS = TESTS_DIR / "kernels" / "fuzz_kernels.c"
KERNELS = {"dump1": 1, "dump2": 2, "dump4": 4, "dump8": 8}  # name -> parameter count
SYSTEM_BUFFER, SYSTEM_PARAMS = 65536, 128  # §10.1
ALIGN = 8
DUMP_BLOCK_AT = 1024  # where dumpN copies the whole block in its output (fuzz_kernels.c)
OUT_BYTES = DUMP_BLOCK_AT + SYSTEM_BUFFER
USER_SLOTS = 3
OPEN, DATA, FINAL = "OPEN", "DATA", "FINAL"
COMMON, PLACEHOLDER = 0, 1
U64 = (1 << 64) - 1

# Sizes that would wrap `offset + size` around 2**64 if a check added them naively.
HUGE_SIZES = [U64, U64 - 7, 1 << 63, (1 << 64) - 8, (1 << 32) + 8]


def round_up(x: int, a: int = ALIGN) -> int:
    return (x + a - 1) // a * a


def host_bytes(payload: bytes) -> Any:
    """Host memory holding exactly ``payload`` (at least one byte, so never NULL)."""
    mem = ffi.new("uint8_t[]", max(1, len(payload)))
    ffi.memmove(mem, payload, len(payload))
    return mem


def mismatches(got: bytes, expected: bytes | bytearray, known: bytes | bytearray) -> list[int]:
    """The first offsets where ``got`` differs from ``expected`` at a known byte."""
    g, e, k = (np.frombuffer(bytes(b), np.uint8) for b in (got, expected, known))
    return np.flatnonzero((g != e) & (k != 0))[:16].tolist()


# --------------------------------------------------------------------------- the model


@dataclass
class Param:
    offset: int
    size: int
    type: int
    data_offset: int = 0


@dataclass
class ArgsModel:
    """One args handle as the reference defines it, plus the bytes of its buffer.

    ``known[i]`` says whether the model knows byte i of the buffer: a user-memory buffer is
    fully known (the test filled it), the thread's system buffer only where the calls of this
    run wrote (the rest is left over from earlier users of the thread's handle)."""

    name: str
    buf_size: int = 0
    max_params: int = 0
    live: bool = False  # initialised in this run (a handle memory starts zeroed: not a handle)
    func: str = ""
    epoch: int = 0  # bumped by every Init; param handles of older epochs are stale
    gen: int | None = None  # the runtime's generation of this epoch, learned from a param handle
    state: str = OPEN
    updating: bool = False
    args_size: int = 0
    params: list[Param] = field(default_factory=list)
    data: bytearray = field(default_factory=bytearray, repr=False)
    known: bytearray = field(default_factory=bytearray, repr=False)

    def reset(self, func: str, buf_size: int, max_params: int, content: bytes | None) -> None:
        self.live, self.func, self.buf_size, self.max_params = True, func, buf_size, max_params
        self.epoch += 1
        self.gen = None
        self.state, self.updating, self.args_size, self.params = OPEN, False, 0, []
        if content is not None:  # user memory: the test's own bytes
            self.data = bytearray(content)
            self.known = bytearray(b"\1" * buf_size)
        elif len(self.data) != buf_size:  # the system buffer: same memory, contents unknown
            self.data, self.known = bytearray(buf_size), bytearray(buf_size)

    def write(self, off: int, payload: bytes) -> None:
        self.data[off : off + len(payload)] = payload
        self.known[off : off + len(payload)] = b"\1" * len(payload)

    # Each returns the expected code; on success it applies the call to the model (the caller
    # then checks the outputs).

    def append(self, size: int, payload: bytes | None, placeholder: bool = False) -> int:
        if size == 0:
            return INVALID_PARAM
        if not self.live:
            return RT_INVALID_HANDLE
        if self.state in (FINAL, DATA):
            return RT_FEATURE_NOT_SUPPORT
        if len(self.params) >= self.max_params:
            return RT_PARAM_INVALID
        off = round_up(self.args_size)
        if off + size > self.buf_size:
            return RT_PARAM_INVALID
        self.params.append(Param(off, size, PLACEHOLDER if placeholder else COMMON))
        self.args_size = off + size
        self.write(off, bytes(8) if placeholder else payload)  # a placeholder slot is zeroed
        return SUCCESS

    def param_ok(self, ref: ParamRef) -> bool:
        if ref.model is not None:
            return ref.model is self and ref.epoch == self.epoch
        # a made-up handle of this epoch's generation: valid iff its index is in range
        return self.gen is not None and ref.value >> 8 == self.gen and 1 <= (ref.value & 0xFF) <= len(self.params)

    def param_of(self, ref: ParamRef) -> Param:
        return self.params[(ref.value & 0xFF) - 1] if ref.model is None else self.params[ref.index]

    def placeholder_buffer(self, ref: ParamRef, size: int) -> tuple[int, int | None]:
        """(code, data offset)."""
        if size == 0:
            return INVALID_PARAM, None
        if not self.live:
            return RT_INVALID_HANDLE, None
        if not self.param_ok(ref):
            return RT_INVALID_HANDLE, None
        p = self.param_of(ref)
        if p.type != PLACEHOLDER:  # checked before the Finalize check (§10.6)
            return RT_PARAM_INVALID, None
        if self.state == FINAL:
            return RT_FEATURE_NOT_SUPPORT, None
        off = round_up(self.args_size)
        if off + size > self.buf_size:
            return RT_PARAM_INVALID, None
        p.data_offset = off
        self.args_size = off + size
        self.state = DATA
        return SUCCESS, off

    def para_update(self, ref: ParamRef, size: int, payload: bytes) -> int:
        if size == 0:
            return INVALID_PARAM
        if not self.live:
            return RT_INVALID_HANDLE
        if not self.param_ok(ref):
            return RT_INVALID_HANDLE
        p = self.param_of(ref)
        if p.type != COMMON or size != p.size:
            return RT_PARAM_INVALID
        self.write(p.offset, payload)
        self.updating = True  # in any state; only Finalize clears it
        return SUCCESS

    def finalize(self) -> int:
        if not self.live:
            return RT_INVALID_HANDLE
        self.state, self.updating = FINAL, False
        return SUCCESS

    def launch(self, func: str, blocks: int) -> int:
        if blocks == 0:
            return INVALID_PARAM
        if not self.live:
            return RT_INVALID_HANDLE
        if func != self.func:  # simulator: the handle was initialised for another kernel
            return RT_PARAM_INVALID
        if self.state != FINAL or self.updating:
            return RT_PARAM_INVALID
        if self.args_size == 0:
            return RT_PARAM_INVALID
        if any(
            p.type == PLACEHOLDER and (p.offset >= self.args_size or p.data_offset >= self.args_size)
            for p in self.params
        ):
            return RT_PARAM_INVALID
        if self.args_size < 8 * KERNELS[func]:  # simulator: shorter than the signature reads
            return RT_PARAM_INVALID
        return SUCCESS


@dataclass(repr=False)
class ParamRef:
    """A parameter handle the test holds: one the runtime returned (model, epoch, index), or a
    made-up value (model None)."""

    value: int
    model: ArgsModel | None = field(default=None, repr=False)
    epoch: int = 0
    index: int = 0
    size: int = 8  # the parameter's size when it was appended

    def __repr__(self) -> str:
        owner = "made-up" if self.model is None else f"{self.model.name} epoch {self.epoch} param {self.index}"
        return f"ParamRef({self.value:#x}, {owner})"


NOT_A_HANDLE = ArgsModel("not-a-handle")  # live=False forever: every call gets 107017
# Mostly live handles; now and then one that is not a handle at all.
ANY_ARGS_HANDLE = st.sampled_from(
    ["sys"] * 8 + [f"user{i}" for i in range(USER_SLOTS)] * 6 + ["zeroed", "copy", "int", "unaligned", "high"]
)


# --------------------------------------------------------------------------- the machine


@dataclass
class Env:
    rt: Runtime
    stream: Any
    funcs: dict[str, Any]
    setup: Any  # dump_setup
    out: Any  # device buffer the dump kernels write to


class KernelArgsMachine(RuleBasedStateMachine):
    env: Env  # set by the test

    def __init__(self) -> None:
        super().__init__()
        self.models: dict[str, ArgsModel] = {"sys": ArgsModel("sys")}
        self.handles: dict[str, Any] = {}
        self.user_mem: dict[str, Any] = {}  # slot -> (handle memory, args buffer)
        for i in range(USER_SLOTS):
            slot = f"user{i}"
            self.models[slot] = ArgsModel(slot)
            # big enough for any of the kernels, 8-byte aligned, zeroed: not yet a handle
            self.user_mem[slot] = [ffi.new("uint64_t[]", (self._handle_mem_size("dump8") + 15) // 8), None]
            self.handles[slot] = ffi.cast("aclrtArgsHandle", self.user_mem[slot][0])
        self.sys_buffer: int | None = None  # address of the system handle's buffer, once known
        self.refs: list[ParamRef] = []
        self.gens: set[int] = set()
        self.launches = 0
        self.steps = 0  # calls since the last re-initialisation
        # handles that are not handles
        self.zeroed = ffi.new("uint64_t[64]")
        self.copy = ffi.new("uint64_t[64]")
        self.bogus = {
            "zeroed": ffi.cast("aclrtArgsHandle", self.zeroed),
            "copy": ffi.cast("aclrtArgsHandle", self.copy),
            "int": vp(0x12345678),
            "unaligned": vp(addr(self.zeroed) + 4),
            "high": vp(0xFFFF_FFFF_FFFF_F000),
        }
        last_error()

    def _handle_mem_size(self, func: str) -> int:
        out = ffi.new("size_t *")
        check(lib.aclrtKernelArgsGetHandleMemSize(self.env.funcs[func], out))
        return int(out[0])

    # -- plumbing -----------------------------------------------------------------------

    def target(self, name: str) -> tuple[ArgsModel, Any]:
        if name in self.bogus:
            return NOT_A_HANDLE, self.bogus[name]
        return self.models[name], self.handles[name]

    @staticmethod
    def check_rc(call: str, expected: int, rc: int) -> None:
        msg = last_error()
        assert rc == expected, f"{call}: expected {expected}, got {rc} ({msg or 'no message'})"
        assert (msg != "") == (rc != SUCCESS), f"{call} returned {rc} with recent error message {msg!r}"

    def learn_param(self, model: ArgsModel, value: int, index: int) -> None:
        """A param handle the runtime returned: (generation << 8) | (index + 1), one generation
        per Init, never reused."""
        assert value & 0xFF == index + 1, f"param handle {value:#x} for parameter {index}"
        gen = value >> 8
        if model.gen is None:
            assert gen not in self.gens, f"generation {gen} reused by a new Init"
            model.gen = gen
            self.gens.add(gen)
        assert gen == model.gen, f"param handle {value:#x}: generation changed within one Init"
        self.refs.append(ParamRef(value, model, model.epoch, index, model.params[index].size))

    def pick_ref(self, data: st.DataObject, model: ArgsModel, prefer: int) -> ParamRef:
        """Mostly a parameter handle of the handle's current Init (of the preferred type, when
        there is one), sometimes any handle the test ever got (stale or foreign), sometimes a
        made-up value."""
        current = [r for r in self.refs if r.model is model and r.epoch == model.epoch]
        preferred = [r for r in current if r.model is not None and r.model.params[r.index].type == prefer]
        kinds = ["preferred"] * 6 * bool(preferred) + ["current"] * 2 * bool(current) + ["held"] * bool(self.refs)
        kind = data.draw(st.sampled_from([*kinds, "made-up"]), label="param handle")
        if kind != "made-up":
            pool = {"preferred": preferred, "current": current, "held": self.refs}[kind]
            return data.draw(st.sampled_from(pool), label=kind)
        gen = model.gen if model.gen is not None else data.draw(st.integers(1, 1 << 20), label="generation")
        index = data.draw(st.one_of(st.integers(0, len(model.params) + 1), st.integers(0, 255)), label="index")
        return ParamRef((gen << 8) | index)

    def pick_handle(self, data: st.DataObject, useful: Any, odds: int = 7) -> str:
        """Which args handle a call goes to: usually (odds in 10) one where the call can do
        something (``useful(model)``), otherwise any -- live, stale, or not a handle at all."""
        self.steps += 1
        candidates = sorted(name for name, m in self.models.items() if m.live and useful(m))
        if candidates and data.draw(st.integers(0, 9), label="useful") < odds:
            return data.draw(st.sampled_from(candidates), label="args handle")
        return data.draw(ANY_ARGS_HANDLE, label="args handle")

    def buffer_bytes(self, model: ArgsModel) -> bytes | None:
        if model.name == "sys":
            if self.sys_buffer is None:
                return None
            return bytes(ffi.buffer(ffi.cast("uint8_t *", self.sys_buffer), SYSTEM_BUFFER))
        if model.name not in self.user_mem or self.user_mem[model.name][1] is None:
            return None
        return bytes(ffi.buffer(self.user_mem[model.name][1]))

    # -- the calls, each checked against the model ---------------------------------------

    def do_init_system(self, func: str) -> None:
        out = ffi.new("aclrtArgsHandle *")
        self.check_rc("Init", SUCCESS, lib.aclrtKernelArgsInit(self.env.funcs[func], out))
        if "sys" in self.handles:  # every Init in a thread returns the same handle
            assert out[0] == self.handles["sys"]
        self.handles["sys"] = out[0]
        self.models["sys"].reset(func, SYSTEM_BUFFER, SYSTEM_PARAMS, None)
        self.steps = 0

    def do_init_user(self, slot: int, func: str, size: int, seed: int) -> None:
        name = f"user{slot}"
        content = random.Random(seed).randbytes(size)
        buf = host_bytes(content)
        rc = lib.aclrtKernelArgsInitByUserMem(self.env.funcs[func], self.handles[name], buf, size)
        if size == 0:
            self.check_rc("InitByUserMem(size 0)", INVALID_PARAM, rc)
            return
        self.check_rc("InitByUserMem", SUCCESS, rc)
        self.user_mem[name][1] = buf  # the previous buffer may go: launches copied it
        self.models[name].reset(func, size, KERNELS[func], content)
        self.steps = 0

    def do_append(self, on: str, payload: bytes, size: int) -> None:
        model, h = self.target(on)
        index = len(model.params)
        expected = model.append(size, payload)
        out = ffi.new("aclrtParamHandle *")
        rc = lib.aclrtKernelArgsAppend(h, host_bytes(payload), size, out)
        self.check_rc(f"Append({size}) on {on}", expected, rc)
        if expected == SUCCESS:
            self.learn_param(model, addr(out[0]), index)

    def do_append_placeholder(self, on: str) -> None:
        model, h = self.target(on)
        index = len(model.params)
        expected = model.append(8, None, placeholder=True)
        out = ffi.new("aclrtParamHandle *")
        self.check_rc(f"AppendPlaceHolder on {on}", expected, lib.aclrtKernelArgsAppendPlaceHolder(h, out))
        if expected == SUCCESS:
            self.learn_param(model, addr(out[0]), index)

    def do_placeholder_buffer(self, on: str, ref: ParamRef, size: int, seed: int) -> None:
        model, h = self.target(on)
        expected, off = model.placeholder_buffer(ref, size)
        out = ffi.new("void **")
        rc = lib.aclrtKernelArgsGetPlaceHolderBuffer(h, vp(ref.value), size, out)
        self.check_rc(f"GetPlaceHolderBuffer({size}) on {on} for {ref}", expected, rc)
        if expected != SUCCESS:
            return
        assert off is not None
        got = addr(out[0])
        if model.name == "sys":
            if self.sys_buffer is None:
                self.sys_buffer = got - off
            assert got - self.sys_buffer == off, "placeholder data not at the model's offset"
        else:
            assert got - addr(self.user_mem[model.name][1]) == off, "placeholder data not at the model's offset"
        payload = random.Random(seed).randbytes(size)
        ffi.memmove(out[0], payload, size)  # the caller writes its data there
        model.write(off, payload)

    def do_para_update(self, on: str, ref: ParamRef, size: int, seed: int) -> None:
        model, h = self.target(on)
        payload = random.Random(seed).randbytes(size)
        expected = model.para_update(ref, size, payload)
        rc = lib.aclrtKernelArgsParaUpdate(h, vp(ref.value), host_bytes(payload), size)
        self.check_rc(f"ParaUpdate({size}) on {on} for {ref}", expected, rc)

    def do_finalize(self, on: str) -> None:
        model, h = self.target(on)
        self.check_rc(f"Finalize on {on}", model.finalize(), lib.aclrtKernelArgsFinalize(h))

    def do_launch(self, on: str, func: str, blocks: int) -> None:
        model, h = self.target(on)
        expected = model.launch(func, blocks)
        env = self.env
        n = KERNELS[func]
        # Derive D (where the runtime copies the block) from a placeholder the kernel sees.
        base = next((p for p in model.params if p.type == PLACEHOLDER and p.offset < 8 * n), None)
        if expected == SUCCESS:
            check(lib.aclrtMemset(env.out, OUT_BYTES, 0xEE, OUT_BYTES))
            # In user memory: an Init handle would re-initialise the thread's system handle.
            setup = KernelArgs(env.setup, 32)
            setup.ptr(env.out)
            setup.scalar("int64_t", -1 if base is None else base.offset // 8)
            setup.scalar("uint64_t", 0 if base is None else base.data_offset)
            setup.scalar("uint64_t", model.args_size)
            check(launch_rc(env.setup, 1, env.stream, setup.finalize()), "dump_setup")
        before = self.buffer_bytes(model)
        rc = lib.aclrtLaunchKernelWithConfig(env.funcs[func], blocks, env.stream, ffi.NULL, h, ffi.NULL)
        self.check_rc(f"Launch {func} x{blocks} on {on}", expected, rc)
        assert self.buffer_bytes(model) == before, "a launch changed the host args buffer"
        if expected != SUCCESS:
            return
        self.launches += 1
        if model.name != "sys":  # the block was copied during the call: scribbling now is harmless
            ffi.memmove(self.user_mem[model.name][1], b"\xcc" * model.buf_size, model.buf_size)
        check(sync_rc(env.stream), "the dump launch")
        if model.name != "sys":
            ffi.memmove(self.user_mem[model.name][1], bytes(model.data), model.buf_size)
        got = env.rt.from_device(env.out, OUT_BYTES, np.uint8).tobytes()
        self.check_launched(model, n, base, got)

    # -- rules ----------------------------------------------------------------------------

    @initialize(
        func=st.sampled_from(sorted(KERNELS)),
        funcs=st.lists(st.sampled_from(sorted(KERNELS)), min_size=USER_SLOTS, max_size=USER_SLOTS),
        sizes=st.lists(st.integers(8, 400), min_size=USER_SLOTS, max_size=USER_SLOTS),
        seed=st.integers(0, 2**32),
    )
    def bootstrap(self, func: str, funcs: list[str], sizes: list[int], seed: int) -> None:
        """The system handle is thread-local and outlives every test: Init it first so that its
        state is the model's from here on. Start with live user-memory handles too."""
        self.do_init_system(func)
        for slot, (f, size) in enumerate(zip(funcs, sizes, strict=True)):
            self.do_init_user(slot, f, size, seed + slot)

    # Re-initialising is interesting, but not so often that no handle gets far.
    @precondition(lambda self: self.steps >= 4)
    @rule(func=st.sampled_from(sorted(KERNELS)))
    def init_system(self, func: str) -> None:
        self.do_init_system(func)

    @precondition(lambda self: self.steps >= 4)
    @rule(
        slot=st.integers(0, USER_SLOTS - 1),
        func=st.sampled_from(sorted(KERNELS)),
        size=st.one_of(st.integers(1, 64), st.integers(65, 400), st.integers(65, 400), st.just(0)),
        seed=st.integers(0, 2**32),
    )
    def init_user(self, slot: int, func: str, size: int, seed: int) -> None:
        self.do_init_user(slot, func, size, seed)

    @rule(
        on=st.sampled_from(["sys", *(f"user{i}" for i in range(USER_SLOTS))]),
        func=st.sampled_from(sorted(KERNELS)),
        items=st.lists(st.one_of(st.binary(min_size=1, max_size=24), st.just(None)), min_size=1, max_size=10),
        data_sizes=st.lists(st.integers(1, 48), max_size=10),
        slack=st.sampled_from([0, 0, 8, 64, -1, -8]),
        seed=st.integers(0, 2**32),
    )
    def build(
        self, on: str, func: str, items: list[bytes | None], data_sizes: list[int], slack: int, seed: int
    ) -> None:
        """A whole argument list at once, as a program builds one: (re)Init, append parameters
        and placeholders (None), give placeholders data, finalize -- every call checked like
        the single-call rules. A user-memory buffer is sized with GetMemSize's rule of thumb
        plus some slack (negative: too small)."""
        if on == "sys":
            self.do_init_system(func)
        else:
            need = sum(round_up(len(b)) if b is not None else 8 for b in items) + sum(map(round_up, data_sizes))
            self.do_init_user(int(on[-1]), func, max(1, need + slack), seed)
        for item in items:
            if item is None:
                self.do_append_placeholder(on)
            else:
                self.do_append(on, item, len(item))
        model = self.models[on]
        placeholders = [
            r
            for r in self.refs
            if r.model is model and r.epoch == model.epoch and model.params[r.index].type == PLACEHOLDER
        ]
        for ref, size in zip(placeholders, data_sizes, strict=False):  # some get no data
            self.do_placeholder_buffer(on, ref, size, seed + size)
        self.do_finalize(on)

    @rule(data=st.data(), payload=st.binary(min_size=1, max_size=24), huge=st.sampled_from([None] * 9 + HUGE_SIZES))
    def append(self, data: st.DataObject, payload: bytes, huge: int | None) -> None:
        on = self.pick_handle(data, lambda m: m.state == OPEN)
        self.do_append(on, payload, len(payload) if huge is None else huge)

    @rule(data=st.data())
    def append_placeholder(self, data: st.DataObject) -> None:
        self.do_append_placeholder(self.pick_handle(data, lambda m: m.state == OPEN))

    @rule(
        data=st.data(),
        size=st.one_of(
            st.integers(1, 40), st.integers(1, 40), st.integers(41, 70000), st.sampled_from([0, *HUGE_SIZES])
        ),
        seed=st.integers(0, 2**32),
    )
    def placeholder_buffer(self, data: st.DataObject, size: int, seed: int) -> None:
        on = self.pick_handle(data, lambda m: m.state != FINAL and any(p.type == PLACEHOLDER for p in m.params))
        self.do_placeholder_buffer(on, self.pick_ref(data, self.target(on)[0], PLACEHOLDER), size, seed)

    @rule(data=st.data(), resize=st.sampled_from([0] * 8 + [-1, 1, 8, -8, -24]), seed=st.integers(0, 2**32))
    def para_update(self, data: st.DataObject, resize: int, seed: int) -> None:
        on = self.pick_handle(data, lambda m: any(p.type == COMMON for p in m.params))
        ref = self.pick_ref(data, self.target(on)[0], COMMON)
        # the parameter's own size, or a different one
        self.do_para_update(on, ref, max(0, ref.size + resize), seed)

    @rule(data=st.data())
    def finalize(self, data: st.DataObject) -> None:
        # useful: a handle not yet final, with args long enough for its kernel to launch
        self.do_finalize(
            self.pick_handle(data, lambda m: (m.state != FINAL or m.updating) and m.args_size >= 8 * KERNELS[m.func])
        )

    @precondition(lambda self: any(m.live and m.state == FINAL and not m.updating for m in self.models.values()))
    @rule(
        data=st.data(),
        other=st.sampled_from([None] * 12 + sorted(KERNELS)),
        blocks=st.sampled_from([1, 1, 1, 2, 2, 3, 4, 0]),
    )
    def launch(self, data: st.DataObject, other: str | None, blocks: int) -> None:
        """Launch a handle (usually a launchable one) for its own kernel, or another one."""
        on = self.pick_handle(
            data, lambda m: m.state == FINAL and not m.updating and m.args_size >= 8 * KERNELS[m.func], odds=9
        )
        self.do_launch(on, other or self.target(on)[0].func or "dump1", blocks)

    @rule(
        which=st.sampled_from(
            [
                "Init",
                "InitByUserMem",
                "Append",
                "AppendPlaceHolder",
                "GetPlaceHolderBuffer",
                "ParaUpdate",
                "Finalize",
                "Launch",
                "InitByUserMem on the system handle",
                "InitByUserMem misaligned",
                "copy a handle",
            ]
        ),
        on=ANY_ARGS_HANDLE,
        slot=st.integers(0, USER_SLOTS - 1),
    )
    def misuse(self, which: str, on: str, slot: int) -> None:
        """A NULL pointer argument: 100000 before anything else is looked at (§10.6).
        InitByUserMem on the system handle or on misaligned memory: 107000, and the handle it
        named is untouched. Or: the 'copy' handle becomes a byte copy of a user handle (which
        is still not a handle)."""
        self.steps += 1
        _, h = self.target(on)
        fn, NULL = self.env.funcs["dump1"], ffi.NULL
        if which == "copy a handle":
            mem = self.user_mem[f"user{slot}"][0]
            ffi.memmove(self.copy, mem, min(ffi.sizeof(self.copy), ffi.sizeof(mem)))
            return
        if which.startswith("InitByUserMem "):
            buf = ffi.new("uint8_t[64]")
            h = vp(addr(self.user_mem[f"user{slot}"][0]) + 4) if "misaligned" in which else self.handles["sys"]
            self.check_rc(which, RT_PARAM_INVALID, lib.aclrtKernelArgsInitByUserMem(fn, h, buf, 64))
            return
        ph = vp(self.refs[-1].value) if self.refs else vp(0x101)
        rc = {
            "Init": lambda: lib.aclrtKernelArgsInit(fn, NULL),
            "InitByUserMem": lambda: lib.aclrtKernelArgsInitByUserMem(fn, h, NULL, 8),
            "Append": lambda: lib.aclrtKernelArgsAppend(h, NULL, 8, ffi.new("aclrtParamHandle *")),
            "AppendPlaceHolder": lambda: lib.aclrtKernelArgsAppendPlaceHolder(h, NULL),
            "GetPlaceHolderBuffer": lambda: lib.aclrtKernelArgsGetPlaceHolderBuffer(h, NULL, 8, ffi.new("void **")),
            "ParaUpdate": lambda: lib.aclrtKernelArgsParaUpdate(h, ph, NULL, 8),
            "Finalize": lambda: lib.aclrtKernelArgsFinalize(NULL),
            "Launch": lambda: lib.aclrtLaunchKernelWithConfig(fn, 1, self.env.stream, NULL, NULL, NULL),
        }[which]()
        self.check_rc(f"{which} with NULL", INVALID_PARAM, rc)

    def check_launched(self, model: ArgsModel, n: int, base: Param | None, got: bytes) -> None:
        params = got[: 8 * n]
        expected = bytearray(model.data[: model.args_size])
        known = bytearray(model.known[: model.args_size])
        if base is not None:
            d = struct.unpack_from("<Q", params, base.offset)[0] - base.data_offset
            for p in model.params:
                if p.type == PLACEHOLDER:
                    struct.pack_into("<Q", expected, p.offset, (d + p.data_offset) & U64)
                    known[p.offset : p.offset + 8] = b"\1" * 8
            block = got[DUMP_BLOCK_AT : DUMP_BLOCK_AT + model.args_size]
            assert block[: 8 * n] == params, "the kernel's parameters are not the start of the block"
        else:  # no placeholder among the kernel's parameters: only they can be seen
            assert not any(p.type == PLACEHOLDER and p.offset < 8 * n for p in model.params)
            block = params
            expected, known = expected[: 8 * n], known[: 8 * n]
        diffs = mismatches(block[: len(expected)], expected, known)
        assert not diffs, (
            f"launched block differs from the model at offsets {diffs}: got {block[: len(expected)].hex()}, "
            f"expected {bytes(expected).hex()} (params {model.params})"
        )

    # -- invariants ---------------------------------------------------------------------

    @invariant()
    def buffers_match_the_model(self) -> None:
        for model in self.models.values():
            got = self.buffer_bytes(model)
            if got is None or not model.live:
                continue
            bad = mismatches(got, model.data, model.known)
            assert not bad, f"{model.name}: buffer differs from the model at offsets {bad[:16]} ({model.params})"


@pytest.fixture(scope="module")
def fuzz_kernels_path() -> Path:
    from aiocann.compiler import build_kernel

    return build_kernel(FUZZ_KERNELS)


@pytest.fixture
def env(fuzz_kernels_path) -> Iterator[Env]:
    with acl_session() as rt:
        funcs = {name: rt.function(fuzz_kernels_path, name) for name in KERNELS}
        yield Env(rt, rt.stream(), funcs, rt.function(fuzz_kernels_path, "dump_setup"), rt.malloc(OUT_BYTES))


def test_kernel_args_state_machine(env):
    KernelArgsMachine.env = env
    run_state_machine_as_test(
        KernelArgsMachine,
        settings=settings(
            max_examples=200,
            stateful_step_count=50,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        ),
    )


# --------------------------------------------------------------------------- regressions


@pytest.mark.parametrize("size", HUGE_SIZES)
def test_huge_sizes_do_not_wrap_the_bounds_check(env, size):
    """Found by the state machine: GetPlaceHolderBuffer(2**64 - 1) after one parameter passed
    the `offset + size <= bufferSize` check because the sum wrapped around, returned 0, and
    left argsSize smaller than the parameters. Every huge size is 107000 and changes nothing."""
    fn = env.funcs["dump4"]  # up to 4 parameters in user memory
    args = KernelArgs(fn, 64)
    v = ffi.new("uint64_t *", 0x1122334455667788)
    args.scalar("uint64_t", 0x1122334455667788)
    ph = args.placeholder()
    expect(
        RT_PARAM_INVALID, lib.aclrtKernelArgsAppend(args.handle, v, size, ffi.new("aclrtParamHandle *")), "do not fit"
    )
    expect(
        RT_PARAM_INVALID,
        lib.aclrtKernelArgsGetPlaceHolderBuffer(args.handle, ph, size, ffi.new("void **")),
        "do not fit",
    )
    # the handle is as it was: the data block still goes right after the two parameters
    assert args.data(ph, b"abcdefgh") - addr(args.buf) == 16
    args.finalize()

    sys_args = KernelArgs(fn)  # the system handle: 64 KiB
    sys_args.scalar("uint64_t", 1)
    ph = sys_args.placeholder()
    expect(
        RT_PARAM_INVALID,
        lib.aclrtKernelArgsAppend(sys_args.handle, v, size, ffi.new("aclrtParamHandle *")),
        "do not fit",
    )
    expect(
        RT_PARAM_INVALID,
        lib.aclrtKernelArgsGetPlaceHolderBuffer(sys_args.handle, ph, size, ffi.new("void **")),
        "do not fit",
    )


class Guarded:
    """``nbytes`` of fresh host memory (mmap) that end exactly where a PROT_NONE page begins --
    mapped, so mincore calls it memory, but any access faults."""

    def __init__(self, nbytes: int, prot: int = mmap.PROT_READ | mmap.PROT_WRITE) -> None:
        page = mmap.PAGESIZE
        pages = (nbytes + page - 1) // page + 1
        self.map = mmap.mmap(-1, pages * page)
        base = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        self.guard = base + (pages - 1) * page
        self.addr = self.guard - nbytes
        assert libc.mprotect(self.guard, page, 0) == 0, ctypes.get_errno()
        if prot != mmap.PROT_READ | mmap.PROT_WRITE:
            assert libc.mprotect(base, (pages - 1) * page, prot) == 0, ctypes.get_errno()


def test_inaccessible_host_memory_is_an_error_not_a_crash(env):
    """Found while writing the state machine: the simulator validated host addresses with
    mincore alone, which calls a PROT_NONE page (a guard page) mapped -- so an args handle
    pointing at one, or user memory running into one, crashed the process. Now: 107017 for a
    handle that cannot be read, 107000 for handle memory or a buffer that cannot be written in
    full (shorter than declared, or read-only) and for a parameter that cannot be read."""
    fn = env.funcs["dump4"]
    size = ffi.new("size_t *")
    check(lib.aclrtKernelArgsGetHandleMemSize(fn, size))
    need = int(size[0])

    guard = Guarded(64)
    h = vp(guard.guard)
    out, stream = ffi.new("void **"), env.stream
    for name, call in {
        "Append": lambda: lib.aclrtKernelArgsAppend(h, ffi.new("uint64_t *"), 8, ffi.new("aclrtParamHandle *")),
        "AppendPlaceHolder": lambda: lib.aclrtKernelArgsAppendPlaceHolder(h, ffi.new("aclrtParamHandle *")),
        "GetPlaceHolderBuffer": lambda: lib.aclrtKernelArgsGetPlaceHolderBuffer(h, vp(0x101), 8, out),
        "ParaUpdate": lambda: lib.aclrtKernelArgsParaUpdate(h, vp(0x101), ffi.new("uint64_t *"), 8),
        "Finalize": lambda: lib.aclrtKernelArgsFinalize(h),
        "Launch": lambda: lib.aclrtLaunchKernelWithConfig(fn, 1, stream, ffi.NULL, h, ffi.NULL),
    }.items():
        rc = call()
        msg = last_error()
        assert rc == RT_INVALID_HANDLE and "kernel-args handle" in msg, f"{name} on a PROT_NONE page: {rc} ({msg})"

    buf = ffi.new("uint8_t[128]")
    short = Guarded(round_up(need // 2))  # half the handle memory, then the guard page
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsInitByUserMem(fn, vp(short.addr), buf, 128), "GetHandleMemSize")
    read_only = Guarded(round_up(need), mmap.PROT_READ)
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsInitByUserMem(fn, vp(read_only.addr), buf, 128), "writable")
    exact = Guarded(round_up(need))  # exactly enough: works, up to the last parameter record
    check(lib.aclrtKernelArgsInitByUserMem(fn, vp(exact.addr), buf, 128))
    for _ in range(4):
        check(lib.aclrtKernelArgsAppend(vp(exact.addr), ffi.new("uint64_t *", 7), 8, ffi.new("aclrtParamHandle *")))

    handle_mem = ffi.new("uint64_t[]", (need + 7) // 8)
    short_buf = Guarded(64)
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsInitByUserMem(fn, handle_mem, vp(short_buf.addr), 65), "host memory")
    check(lib.aclrtKernelArgsInitByUserMem(fn, handle_mem, vp(short_buf.addr), 64))
    p = ffi.new("aclrtParamHandle *")
    param = Guarded(4)  # a 4-byte value: reading 8 bytes runs into the guard page
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsAppend(handle_mem, vp(param.addr), 8, p), "readable")
    check(lib.aclrtKernelArgsAppend(handle_mem, vp(param.addr), 4, p))
    expect(RT_PARAM_INVALID, lib.aclrtKernelArgsParaUpdate(handle_mem, p[0], vp(guard.guard), 4), "readable")
    for n in (8, 8, 40):  # at 8, 16, 24: the last one ends exactly at the guard page
        check(lib.aclrtKernelArgsAppend(handle_mem, ffi.new("uint8_t[]", n), n, ffi.new("aclrtParamHandle *")))
    check(lib.aclrtKernelArgsFinalize(handle_mem))
