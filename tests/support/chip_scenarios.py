"""Scenarios whose outcome depends on the simulated chip (aclsim_chip.h), written once and run
both in the test process (the default part, Ascend910B1: STARS) and in a subprocess that
selects another part with AIOCANN_SIM_SOC_NAME (the chip is chosen once per process). Each
returns what it observed, so the subprocess can print it as JSON."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from acl_util import acl_session, sync_rc

from aiocann._lib import check, ffi, lib


def record_behind_a_stop_failure(test_kernels_path: Path | str) -> dict[str, Any]:
    """A stream of context A stops on failure; an event of context B is recorded on it behind
    the failed task. What the host and a stream of B waiting on the event see.

    The event belongs to B so that its own context's failure (which event calls check first)
    does not hide what became of the record."""
    with acl_session() as acl:
        poke = acl.function(test_kernels_path, "poke")
        write = acl.function(test_kernels_path, "write_value")
        wait = acl.function(test_kernels_path, "wait_us")
        ctx_a = ffi.new("aclrtContext *")
        check(lib.aclrtGetCurrentContext(ctx_a))
        ctx_b = ffi.new("aclrtContext *")
        check(lib.aclrtCreateContext(ctx_b, 0))  # current from here
        e = acl.event()
        waiter = acl.stream()
        out = acl.malloc(64)
        acl.zeros(out, 64)
        check(lib.aclrtSetCurrentContext(ctx_a[0]))
        a = acl.stream()
        check(lib.aclrtSetStreamFailureMode(a, lib.ACL_STOP_ON_FAILURE))
        acl.launch(wait, 1, a, ("ptr", acl.malloc(64)), ("uint64_t", 20_000))
        acl.launch(poke, 1, a, ("ptr", acl.malloc(64)), ("uint64_t", 1 << 20))
        check(lib.aclrtRecordEvent(e, a))  # behind the failure: discarded
        seen: dict[str, Any] = {"stream": sync_rc(a)}
        check(lib.aclrtSetCurrentContext(ctx_b[0]))
        seen["event_sync"] = int(lib.aclrtSynchronizeEvent(e))
        status = ffi.new("aclrtEventRecordedStatus *")
        seen["event_query"] = int(lib.aclrtQueryEventStatus(e, status))
        seen["event_query_deprecated"] = int(lib.aclrtQueryEvent(e, ffi.new("aclrtEventStatus *")))
        check(lib.aclrtStreamWaitEvent(waiter, e))
        acl.launch(write, 1, waiter, ("ptr", out), ("uint32_t", 0), ("int32_t", 5))
        deadline = time.monotonic() + 0.3
        done = ffi.new("aclrtStreamStatus *")
        while time.monotonic() < deadline:
            check(lib.aclrtStreamQuery(waiter, done))
            if done[0] == lib.ACL_STREAM_STATUS_COMPLETE:
                break
            time.sleep(0.01)
        seen["waiter_done"] = done[0] == lib.ACL_STREAM_STATUS_COMPLETE
        seen["waiter_wrote"] = int(acl.from_device(out, 1, np.int32)[0])
        # Returns: a wait for a record that never happens gives up when its stream is shut
        # down (simulator choice; the teardown would wait for good otherwise).
        check(lib.aclrtDestroyStream(waiter))
        check(lib.aclrtDestroyContext(ctx_b[0]))
        check(lib.aclrtSetCurrentContext(ctx_a[0]))
        return seen
