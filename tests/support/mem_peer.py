"""A second process for the cross-process memory tests (tests/acl/test_acl_rt_memory.py): a
pyACL program that imports device memory another process exported, driven over its stdin and
stdout, one JSON object per line.

Run as ``python mem_peer.py DEVICE``. It initialises ACL, binds DEVICE, prints
``{"pid": <its aclrtDeviceGetBareTgid>}`` and then answers each command with one line:

* ``{"op": "ipc_import", "key": K}`` -> ``{"ret": r, "ptr": p}`` (acl.rt.ipc_mem_import_by_key)
* ``{"op": "ipc_close", "key": K}`` -> ``{"ret": r}``
* ``{"op": "vmm_import", "handle": H, "size": S}`` -> ``{"ret": r, "ptr": p}``: import, reserve,
  map; ``ret`` is the first failing call's
* ``{"op": "vmm_close"}`` -> ``{"ret": r}``: unmap, release, free what vmm_import made
* ``{"op": "read", "ptr": p, "n": n}`` -> ``{"ret": r, "hex": ...}`` (a device-to-host memcpy)
* ``{"op": "write", "ptr": p, "hex": ...}`` -> ``{"ret": r}`` (a host-to-device memcpy)
* ``{"op": "close_behind_queued_read", "key": K, "ptr": p, "n": n}`` -> ``{"close": r, "sync": r,
  "hex": ..., "after": r}``: an async device-to-host copy of the import, queued behind a notify
  wait, then ``ipc_close(K)``, then the notify's record; ``hex`` is what the copy read once the
  stream synchronized, ``after`` a synchronous read of p once the import is gone
* ``{"op": "exit"}``: resets the device, finalizes and exits.

The tests drive it through ``Peer`` (a context manager): ``Peer().call(op=..., ...)``.
"""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import tempfile
from typing import Any

import aiocann.acl as acl

MEMCPY_HOST_TO_DEVICE, MEMCPY_DEVICE_TO_HOST = 1, 2


def main() -> int:
    device = int(sys.argv[1])
    assert acl.init() == 0 and acl.rt.set_device(device) == 0
    pid, ret = acl.rt.device_get_bare_tgid()
    print(json.dumps({"pid": pid, "ret": ret}), flush=True)
    vmm: dict[str, int] = {}
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "exit":
            break
        if op == "ipc_import":
            ptr, ret = acl.rt.ipc_mem_import_by_key(cmd["key"], 0)
            reply = {"ret": ret, "ptr": ptr}
        elif op == "ipc_close":
            reply = {"ret": acl.rt.ipc_mem_close(cmd["key"])}
        elif op == "vmm_import":
            handle, ret = acl.rt.mem_import_from_shareable_handle(cmd["handle"], device)
            va = 0
            if ret == 0:
                va, ret = acl.rt.reserve_mem_address(cmd["size"], 0, 0, 0)
            if ret == 0:
                ret = acl.rt.map_mem(va, cmd["size"], 0, handle, 0)
            vmm = {"handle": handle, "va": va}
            reply = {"ret": ret, "ptr": va}
        elif op == "vmm_close":
            ret = acl.rt.unmap_mem(vmm["va"]) or acl.rt.release_mem_address(vmm["va"])
            reply = {"ret": ret or acl.rt.free_physical(vmm["handle"])}
        elif op == "close_behind_queued_read":
            reply = _close_behind_queued_read(cmd["key"], cmd["ptr"], cmd["n"])
        elif op == "read":
            buf = ctypes.create_string_buffer(cmd["n"])
            ret = acl.rt.memcpy(ctypes.addressof(buf), cmd["n"], cmd["ptr"], cmd["n"], MEMCPY_DEVICE_TO_HOST)
            reply = {"ret": ret, "hex": buf.raw.hex()}
        elif op == "write":
            data = bytes.fromhex(cmd["hex"])
            buf = ctypes.create_string_buffer(data, len(data))
            ret = acl.rt.memcpy(cmd["ptr"], len(data), ctypes.addressof(buf), len(data), MEMCPY_HOST_TO_DEVICE)
            reply = {"ret": ret}
        else:
            reply = {"error": f"unknown op {op!r}"}
        print(json.dumps(reply), flush=True)
    acl.rt.reset_device(device)
    acl.finalize()
    return 0


def _close_behind_queued_read(key: str, ptr: int, n: int) -> dict[str, Any]:
    s, _ = acl.rt.create_stream()
    side, _ = acl.rt.create_stream()
    gate, _ = acl.rt.create_notify(0)
    host, _ = acl.rt.malloc_host(n)
    assert acl.rt.wait_and_reset_notify(gate, s, 0) == 0
    assert acl.rt.memcpy_async(host, n, ptr, n, MEMCPY_DEVICE_TO_HOST, s) == 0
    close = acl.rt.ipc_mem_close(key)  # the copy has not run yet
    assert acl.rt.record_notify(gate, side) == 0
    sync = acl.rt.synchronize_stream(s)
    data = ctypes.string_at(host, n).hex()
    # The import's pages go once its work is done (the next IPC call looks): a read fails then.
    acl.rt.ipc_mem_close(key)
    buf = ctypes.create_string_buffer(n)
    after = acl.rt.memcpy(ctypes.addressof(buf), n, ptr, n, MEMCPY_DEVICE_TO_HOST)
    for done in (acl.rt.free_host(host), acl.rt.destroy_notify(gate), acl.rt.destroy_stream(s)):
        assert done == 0
    assert acl.rt.destroy_stream(side) == 0
    return {"close": close, "sync": sync, "hex": data, "after": after}


class Peer:
    """The peer process, seen from the test: ``pid`` (for whitelists) and ``call``."""

    def __init__(self, device: int = 0) -> None:
        self._stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, str(device)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        hello = self._reply()
        assert hello["ret"] == 0
        self.pid: int = hello["pid"]

    def _reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(30)
            self._stderr.seek(0)
            raise AssertionError(f"the peer exited ({self.proc.returncode}): {self._stderr.read()}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def call(self, **cmd: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def __enter__(self) -> Peer:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None
        if self.proc.poll() is None:
            self.proc.stdin.write(json.dumps({"op": "exit"}) + "\n")
        self.proc.stdin.close()
        self.proc.wait(30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._stderr.close()


if __name__ == "__main__":
    sys.exit(main())
