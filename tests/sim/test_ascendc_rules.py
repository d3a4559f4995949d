"""The hardware's rules for Ascend C kernels (issue 22, item 1): a kernel that breaks one fails
its launch with an AI-core exception (507015) whose message names the rule, the kernel and the
block -- never silent corruption. One case per rule; each rule and its documentation source is
a row of docs/fidelity.md. The kernel is tests/kernels/ascendc/rules.cpp (`which` picks the
rule broken)."""

from __future__ import annotations

import pytest
from acl_util import RT_AICORE_EXCEPTION, TESTS_DIR, last_error, sync_rc

from aiocann.compiler import build_kernel

RULES = [
    (0, "UB alignment: Add: dst starts at UB offset 4, not a multiple of 32 bytes"),
    (1, "UB capacity: InitBuffer(tbuf): 131072 bytes more at UB offset 131072 pass the Ascend910B1's 196608-byte"),
    (2, "TPipe buffers: InitBuffer(tbuf): 65 buffers in one TPipe; at most 64"),
    (3, "queue order: AllocTensor on a VECIN queue whose 1 buffers are all in use"),
    (4, "queue depth: EnQue on a VECIN queue of depth 1 that already holds 1 tensors"),
    (5, "queue order: DeQue of an empty VECOUT queue"),
    (6, "queue order: FreeTensor of a VECIN buffer in state FREE"),
    (7, "queue order: EnQue of a VECIN buffer in state FREE"),
    (8, "repeat count: Adds: repeatTime 256; the vector unit runs at most 255 repeats of 256 bytes"),
    (9, "operand range: Add: dst needs 512 bytes from UB offset 0 but its buffer ends at UB offset 256"),
    (10, "DataCopy params: DataCopy(GM->UB): blockCount 5000 is out of range [0, 4095]"),
    (11, "tensors per position: AllocTensor: a 9-th tensor allocated at once on VECIN; the chip has 8"),
    (12, "operand range: LocalTensor::GetValue(16): UB offset 64 is past the end of the tensor's buffer (64)"),
    (13, "DataCopyPad params: DataCopyPad(GM->UB): blockLen 10 bytes is not a multiple of the element size 4"),
    (14, "trap: the kernel called trap()"),
    (15, "unsupported position: InitBuffer: a queue on A1"),
    (16, "DataCopyPad params: DataCopyPad(GM->UB): leftPadding 9 / rightPadding 0 elements exceed 32 bytes"),
    (17, "queue order: FreeTensor of a tensor that is not one of this VECIN queue's buffers"),
    (18, "operand range: Exp: dst is a LocalTensor with no buffer"),
    (19, "InitBuffer: num is 9: a queue has 1 to 8 buffers"),
    (20, "GM alignment: DataCopy(GM->UB): src at 0x"),
]


@pytest.fixture
def rule(acl):
    return acl.function(build_kernel(TESTS_DIR / "kernels" / "ascendc" / "rules.cpp"), "rule")


@pytest.mark.parametrize(("which", "message"), RULES, ids=[m.split(":")[0] + f"-{w}" for w, m in RULES])
def test_broken_rule_fails_the_launch_naming_rule_kernel_and_block(acl, rule, which, message):
    s = acl.stream()
    gm = acl.malloc(4096)
    acl.launch(rule, 3, s, ("uint32_t", which), ("ptr", gm))
    assert sync_rc(s) == RT_AICORE_EXCEPTION
    text = last_error()
    assert "kernel rule, block " in text and " of 3: " in text
    assert message in text


def test_a_kernel_keeping_the_rules_runs(acl, rule):
    s = acl.stream()
    acl.launch(rule, 3, s, ("uint32_t", 99), ("ptr", acl.malloc(64)))
    assert sync_rc(s) == 0


def test_the_stream_runs_on_after_a_broken_rule(acl, rule):
    """The failed launch is contained: the core's unified buffer and the process carry on, and
    the next launch of the same kernel on a new stream runs."""
    s = acl.stream()
    acl.launch(rule, 1, s, ("uint32_t", 3), ("ptr", acl.malloc(64)))
    assert sync_rc(s) == RT_AICORE_EXCEPTION
    last_error()
    s2 = acl.stream()
    acl.launch(rule, 1, s2, ("uint32_t", 99), ("ptr", acl.malloc(64)))
    assert sync_rc(s2) == 0
