"""Kernel binaries, kernels, and their argument lists.

``binary = await dev.load_binary(path)`` loads an operator binary; ``k = binary.function(name)``
finds a kernel; ``args = await k.args().ptr(x).ptr(y).ptr(z).placeholder(tiling)`` builds its
argument list with ACL's kernel-args API (``aclrtKernelArgsInitByUserMem``, ``Append``,
``AppendPlaceHolder``, ``GetPlaceHolderBuffer``, ``Finalize``) in memory the ``KernelArgs``
owns, so any number of argument lists can exist at once and each can be relaunched, or
updated in place (``args.update(i, value)`` -> ``aclrtKernelArgsParaUpdate`` + ``Finalize``).

The builder is awaitable because host arrays passed to it are uploaded as part of the build.
Scalars must say their width -- a numpy scalar (``np.uint32(7)``) or a typed method
(``.u32(7)``, ``.f32(0.5)``): a bare Python int or float is refused, never silently turned into
a pointer or a double. Where the binary records its kernels' signatures (simulator binaries
built by ``aiocann.compiler.build_kernel`` do), the count, kinds and sizes of the arguments are
checked against it before anything reaches the runtime.
"""

from __future__ import annotations

import operator
import os
import weakref
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, SupportsIndex

import anyio
import anyio.lowlevel
import anyio.to_thread
import numpy as np

from . import _hotpath, _ints, errors
from ._context import stream_or_current
from ._core import core_of
from ._factory import NoPublicConstructor, create
from ._lib import as_int, as_pointer, bind_context, check, ffi, in_context, lib
from .compiler import ParamSpec, plain_names, read_signatures
from .memory import DeviceArray, numpy_dtype

if TYPE_CHECKING:
    from .device import Device
    from .stream import Stream

__all__ = ["ArgsBuilder", "Binary", "Kernel", "KernelArgs"]


def _refuse_nul(what: str, text: str) -> None:
    """The runtime takes names and paths as C strings, which end at the first NUL: it would see
    only the part before it -- another kernel, without the signature recorded under the full
    name, or another file. Refuse such text instead."""
    if "\0" in text:
        head = text.split("\0", 1)[0]
        raise ValueError(f"{what} {text!r} contains a NUL character (the runtime would see only {head!r})")


def _unload(ctx: Any, handle: Any) -> None:
    in_context(ctx, lambda: lib.aclrtBinaryUnLoad(handle))


class Binary(metaclass=NoPublicConstructor):
    """A loaded kernel binary. Made by ``await dev.load_binary(path)`` or
    ``await dev.load_binary_data(data)``; unloaded by ``unload()``, when dropped, or with its
    device. ``label`` is its absolute path (or ``<N bytes>``); ``signatures`` maps its kernels'
    names to their parameters where the binary records them (``aiocann.compiler`` builds do)."""

    _factory = "await dev.load_binary(path) or await dev.load_binary_data(data)"

    def __init__(
        self,
        device: Device,
        handle: Any,
        label: str,
        signatures: dict[str, tuple[ParamSpec, ...]] | None,
        aliases: dict[str, list[str]] | None = None,
    ):
        self._device = device
        self._core = core_of(device)
        self._handle = handle
        self.label = label
        self.signatures = signatures
        # The plain names of C++ kernels (aiocann's lookup, not the runtime's): "k" or
        # "ns::k<float>" for the mangled "_ZN2ns1kIfEEvPf", where only one kernel has it.
        self._aliases = aliases or {}
        self._kernels: dict[str, Kernel] = {}
        # Unloaded when dropped (in-flight launches keep the code alive inside the runtime).
        self._finalizer = weakref.finalize(self, _unload, core_of(device).ctx, handle)
        self._finalizer.atexit = False

    @property
    def device(self) -> Device:
        """The :class:`Device` the binary is loaded on."""
        return self._device

    def _live_handle(self) -> Any:
        if self._handle is None:
            raise errors.ClosedError(f"binary {self.label} was unloaded")
        return self._handle

    @property
    def handle(self) -> int:
        """The ACL binary handle (``aclrtBinHandle``) as an int, the value pyACL's
        ``acl.rt.binary_*`` functions take. Raises ClosedError once unloaded."""
        return as_int(self._live_handle())

    def function(self, name: str) -> Kernel:
        """The kernel ``name`` of this binary (``aclrtBinaryGetFunction``; looked up once).

        ``name`` is the kernel's name in the binary -- an ``extern "C"`` kernel's own name, a C++
        kernel's mangled name -- or, for binaries built by aiocann.compiler, the plain C++ name
        of a kernel where only one kernel has it (``"add"``, ``"ns::add<float>"``). The
        runtime's ``aclrtBinaryGetFunction`` takes exact names only; the plain names are
        aiocann's.

        :raises TypeError: ``name`` is not a str.
        :raises ValueError: ``name`` contains a NUL character.
        :raises KernelLookupError: the binary has no kernel of that name, or several kernels
            have that plain name (the message lists their exact names).
        :raises ClosedError: the binary was unloaded.
        """
        if not isinstance(name, str):
            raise TypeError(f"kernel name must be a str, not {type(name).__name__}")
        _refuse_nul("kernel name", name)
        kernel = self._kernels.get(name)
        if kernel is None:
            exact = self._exact_name(name)
            self._core.bind()
            h = ffi.new("aclrtFuncHandle*")
            check(lib.aclrtBinaryGetFunction(self._live_handle(), exact.encode(), h), "aclrtBinaryGetFunction")
            sig = self.signatures.get(exact) if self.signatures else None
            kernel = self._kernels[name] = create(Kernel, self, exact, h[0], sig, self._finalizer)
        return kernel

    def _exact_name(self, name: str) -> str:
        if self.signatures is not None and name in self.signatures:
            return name
        matches = self._aliases.get(name, [])
        if len(matches) > 1:
            raise errors.KernelLookupError(
                errors.ERROR_CODES["ACL_ERROR_RT_KERNEL_LOOKUP"],
                f"{name!r} names {len(matches)} kernels of {self.label}: {', '.join(matches)}; pass one of these names",
                "Binary.function",
            )
        return matches[0] if matches else name

    def unload(self) -> None:
        """Unload the binary at once, as ``aclrtBinaryUnLoad`` does: its kernels become
        unusable, and a launch of one of them that has not started yet fails with
        :class:`~aiocann.KernelFaultError` (507015, what the device gives for freed code); one
        already running finishes. Await the launches' Completions (or synchronize their
        streams) first to let them run. Idempotent."""
        self._handle = None
        _hotpath.invalidate()  # launch()'s cached args of its kernels are stale
        self._kernels.clear()
        self._finalizer()

    def __repr__(self) -> str:
        return f"<Binary {self.label}{' unloaded' if self._handle is None else ''}>"


async def _load_binary(
    device: Device, *, path: str | os.PathLike[str] | None = None, data: bytes | None = None
) -> Binary:
    """``Device.load_binary`` / ``load_binary_data``: load in a worker thread, then register
    the binary with its device."""
    core = core_of(device)
    with core.loading():
        binary = await _load_in_thread(device, core.ctx, path, data)
    # No await from here to the unload: the close, woken by the end of the load, runs
    # only after it.
    if not core.is_open:
        # The device closed while the file loaded (its close waited for that): unload now,
        # while its context lives, rather than leave a handle the reset made stale.
        binary.unload()
        raise errors.ClosedError(f"Device({device.index}) was closed while binary {binary.label} loaded")
    core.binaries.add(binary)
    await anyio.lowlevel.checkpoint_if_cancelled()
    return binary


async def _load_in_thread(device: Device, ctx: Any, path: str | os.PathLike[str] | None, data: bytes | None) -> Binary:
    if path is not None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or path, not {type(path).__name__}")
        _refuse_nul("binary path", os.fspath(path))

        def load() -> tuple[Any, str, Any, dict[str, list[str]]]:
            fspath = os.path.abspath(path)
            bind_context(ctx)
            h = ffi.new("aclrtBinHandle*")
            check(lib.aclrtBinaryLoadFromFile(fspath.encode(), ffi.NULL, h), "aclrtBinaryLoadFromFile")
            return h[0], fspath, read_signatures(fspath), plain_names(fspath)

        with anyio.CancelScope(shield=True):  # never lose a loaded handle to a cancellation
            handle, fspath, signatures, aliases = await anyio.to_thread.run_sync(load)
        binary = create(Binary, device, handle, fspath, signatures, aliases)
    else:
        if data is None:
            raise TypeError("path must be a str or path, not None")

        def load_data() -> Any:
            bind_context(ctx)
            h = ffi.new("aclrtBinHandle*")
            check(lib.aclrtBinaryLoadFromData(data, len(data), ffi.NULL, h), "aclrtBinaryLoadFromData")
            return h[0]

        with anyio.CancelScope(shield=True):
            handle = await anyio.to_thread.run_sync(load_data)
        binary = create(Binary, device, handle, f"<{len(data)} bytes>", read_signatures(data), plain_names(data))
    return binary


class Kernel(metaclass=NoPublicConstructor):
    """A kernel of a :class:`Binary`, made by ``binary.function(name)``. ``kernel.args()``
    starts an argument list. ``signature`` is its parameters (name, kind, size) where the
    binary records them, else None."""

    _factory = "binary.function(name)"

    def __init__(
        self,
        binary: Binary,
        name: str,
        handle: Any,
        signature: tuple[ParamSpec, ...] | None,
        loaded: weakref.finalize[Any, Any],
    ):
        self.binary = binary
        self._loaded = loaded  # the binary's unloader: alive while the binary is loaded
        self.name = name
        self._handle = handle
        self.signature = signature
        # Its NPU, as the launch path asks "the stream's NPU?" (Submissions.npu): one identity test.
        self._npu = core_of(binary.device).acl

    def _live_handle(self) -> Any:
        if not self._loaded.alive:
            raise errors.ClosedError(f"kernel {self.name}: binary {self.binary.label} was unloaded")
        return self._handle

    @property
    def handle(self) -> int:
        """The ACL function handle (``aclrtFuncHandle``) as an int, the value pyACL's
        ``acl.rt.launch_kernel*`` functions take. Raises ClosedError once its binary is
        unloaded."""
        return as_int(self._live_handle())

    def args(self) -> ArgsBuilder:
        """A new, empty argument list for this kernel, filled in parameter order by the
        builder's methods and finished by ``await``: ``await k.args().ptr(x).u32(n)``."""
        return create(ArgsBuilder, self)

    def __repr__(self) -> str:
        if self.signature is None:
            return f"<Kernel {self.name}>"
        params = ", ".join(f"{p.name}:{p.kind}{p.size}" for p in self.signature)
        return f"<Kernel {self.name}({params})>"


# Argument entries: (kind, payload, label)
#   "ptr"   payload: DeviceArray | int       -> 8-byte device address
#   "host"  payload: np.ndarray              -> uploaded at build, then a "ptr"
#   "scalar" payload: np.ndarray (0-d)       -> its bytes, kind 'i' or 'f'
#   "raw"   payload: bytes                   -> appended as is
#   "placeholder" payload: bytes             -> 8-byte slot patched to its data at launch


def _scalar(value: Any, dtype: Any = None) -> np.ndarray:
    """A 0-d array holding ``value`` at an explicit width; refuses implicit widths and
    conversions that would lose the value."""
    if dtype is None:
        if not isinstance(value, np.generic):
            raise TypeError(
                f"scalar {value!r} has no width: pass a numpy scalar (np.uint32({value!r})), a dtype, "
                "or use .u32()/.i64()/.f32()/..."
            )
        arr = np.asarray(value)
    else:
        dt = numpy_dtype(dtype)
        if dt.kind not in "biuf" or dt.itemsize > 8:
            raise TypeError(f"scalar dtype must be an integer or float of at most 8 bytes, not {dt}")
        if isinstance(value, (float, np.floating)) and dt.kind in "biu":
            raise TypeError(f"refusing to truncate float {value!r} to {dt}")
        if dt.kind in "iu":
            info = np.iinfo(dt)
            iv = int(value) if isinstance(value, (bool, np.bool_)) else operator.index(value)
            if not info.min <= iv <= info.max:
                raise OverflowError(f"{value!r} does not fit {dt} [{info.min}, {info.max}]")
            arr = np.asarray(iv, dtype=dt)
        else:
            if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
                raise TypeError(f"{value!r} is not a number")
            with np.errstate(over="ignore"):
                arr = np.asarray(value, dtype=dt)
            if np.isfinite(value) and not np.isfinite(arr):
                raise OverflowError(f"{value!r} does not fit {dt}")
    if arr.dtype.kind not in "biuf" or arr.dtype.itemsize > 8:
        raise TypeError(f"scalar of dtype {arr.dtype} is not an integer or float of at most 8 bytes")
    return arr


def _address(value: Any) -> int:
    """An int device address (ptr(), update() of a pointer): 64 bits, or a ValueError."""
    address: int = operator.index(value)
    if not 0 <= address < 1 << 64:
        raise ValueError(f"device address {address:#x} is out of range")
    return address


def _to_bytes(data: Any, what: str) -> bytes:
    if isinstance(data, (np.ndarray, np.generic)) and data.dtype.hasobject:
        # tobytes() would give the objects' addresses in this process, not data for a kernel.
        raise TypeError(f"{what} needs a numpy array of numbers, not one of dtype {data.dtype}")
    if isinstance(data, (bytes, bytearray, memoryview)):
        b = bytes(data)
    elif isinstance(data, np.ndarray):
        b = np.ascontiguousarray(data).tobytes()
    elif isinstance(data, np.generic):
        b = data.tobytes()
    elif hasattr(data, "__bytes__"):
        b = bytes(data)
    else:
        raise TypeError(f"{what} must be bytes, a numpy array, or a numpy scalar, not {type(data).__name__}")
    return b


class ArgsBuilder(metaclass=NoPublicConstructor):
    """Builds a kernel's argument list in the kernel's parameter order; made by
    ``kernel.args()``. Every method appends one parameter and returns the builder, so calls
    chain; ``await builder`` (or ``await builder.build()``) gives the :class:`KernelArgs`.

    Scalars say their width: a typed method (``.u32(7)``, ``.f32(0.5)``) or ``.scalar(value,
    dtype)``. A value that does not fit its type raises OverflowError at once; a float for an
    integer type, or a bare Python number without a width, raises TypeError.
    """

    _factory = "kernel.args()"

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self._entries: list[tuple[str, Any]] = []

    def ptr(self, value: DeviceArray | int) -> ArgsBuilder:
        """A device pointer: a :class:`DeviceArray` (kept alive by every launch) or a raw
        device address (int).

        :raises TypeError: neither.
        :raises ValueError: an address outside 64 bits, or an array of another NPU than the
            kernel's.
        :raises ClosedError: a freed array.
        """
        if isinstance(value, DeviceArray):
            _same_device(self.kernel, value)
            _ = value.ptr  # raises if freed
        elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            value = _address(value)
        else:
            raise TypeError(f"ptr() takes a DeviceArray or an int address, not {type(value).__name__}")
        self._entries.append(("ptr", value))
        return self

    def array(self, value: Any) -> ArgsBuilder:
        """A host array, uploaded to new device memory when the args are built; the kernel gets
        its device pointer."""
        if isinstance(value, DeviceArray):
            return self.ptr(value)
        arr = np.asarray(value)
        if arr.dtype.hasobject:
            raise TypeError("array() takes numeric arrays, not object arrays")
        self._entries.append(("host", arr))
        return self

    def scalar(self, value: Any, dtype: Any = None) -> ArgsBuilder:
        """A scalar by value: a numpy scalar (its own width), or any number with an explicit
        ``dtype`` (an integer or float type of at most 8 bytes).

        :raises TypeError: no width (a bare Python number without ``dtype``), a float for an
            integer type, or an unsupported dtype.
        :raises OverflowError: the value does not fit the type.
        """
        self._entries.append(("scalar", _scalar(value, dtype)))
        return self

    # The typed scalars, one method per width the runtime's kernels take (every integer and
    # float of at most 8 bytes numpy has): explicit so that type checkers and IDEs see them.
    # All go through scalar(), which does the checking.

    def i8(self, value: SupportsIndex) -> ArgsBuilder:
        """An ``int8`` scalar (C ``int8_t``), -128..127; OverflowError outside that range,
        TypeError for a float."""
        return self.scalar(value, np.int8)

    def u8(self, value: SupportsIndex) -> ArgsBuilder:
        """A ``uint8`` scalar (C ``uint8_t``), 0..255; OverflowError outside that range,
        TypeError for a float."""
        return self.scalar(value, np.uint8)

    def i16(self, value: SupportsIndex) -> ArgsBuilder:
        """An ``int16`` scalar (C ``int16_t``), -32768..32767; OverflowError outside that range,
        TypeError for a float."""
        return self.scalar(value, np.int16)

    def u16(self, value: SupportsIndex) -> ArgsBuilder:
        """A ``uint16`` scalar (C ``uint16_t``), 0..65535; OverflowError outside that range,
        TypeError for a float."""
        return self.scalar(value, np.uint16)

    def i32(self, value: SupportsIndex) -> ArgsBuilder:
        """An ``int32`` scalar (C ``int32_t``), -2**31..2**31-1; OverflowError outside that range,
        TypeError for a float."""
        return self.scalar(value, np.int32)

    def u32(self, value: SupportsIndex) -> ArgsBuilder:
        """A ``uint32`` scalar (C ``uint32_t``), 0..2**32-1; OverflowError outside that range,
        TypeError for a float."""
        return self.scalar(value, np.uint32)

    def i64(self, value: SupportsIndex) -> ArgsBuilder:
        """An ``int64`` scalar (C ``int64_t``), -2**63..2**63-1; OverflowError outside that range,
        TypeError for a float."""
        return self.scalar(value, np.int64)

    def u64(self, value: SupportsIndex) -> ArgsBuilder:
        """A ``uint64`` scalar (C ``uint64_t``), 0..2**64-1; OverflowError outside that range,
        TypeError for a float."""
        return self.scalar(value, np.uint64)

    def f16(self, value: float | np.floating[Any] | np.integer[Any]) -> ArgsBuilder:
        """A ``float16`` scalar (C ``half`` / ``_Float16``); OverflowError for a finite value
        beyond its range (65504)."""
        return self.scalar(value, np.float16)

    def f32(self, value: float | np.floating[Any] | np.integer[Any]) -> ArgsBuilder:
        """A ``float32`` scalar (C ``float``); OverflowError for a finite value beyond its range
        (about 3.4e38)."""
        return self.scalar(value, np.float32)

    def f64(self, value: float | np.floating[Any] | np.integer[Any]) -> ArgsBuilder:
        """A ``float64`` scalar (C ``double``)."""
        return self.scalar(value, np.float64)

    def bytes(self, data: Any) -> ArgsBuilder:
        """Raw bytes appended as one parameter (a packed struct, say)."""
        b = _to_bytes(data, "bytes()")
        if not b:
            raise ValueError("bytes() needs at least one byte")
        self._entries.append(("raw", b))
        return self

    def placeholder(self, data: Any) -> ArgsBuilder:
        """A pointer parameter whose data (tiling, say) travels in the args block: the kernel
        gets a pointer to a device copy of ``data`` made at launch."""
        b = _to_bytes(data, "placeholder()")
        if not b:
            raise ValueError("placeholder() needs at least one byte of data")
        self._entries.append(("placeholder", b))
        return self

    def __await__(self) -> Generator[Any, None, KernelArgs]:
        return self.build().__await__()

    def _check_signature(self) -> None:
        sig = self.kernel.signature
        if sig is None:
            return
        names = ", ".join(p.name for p in sig)
        if len(self._entries) != len(sig):
            raise TypeError(
                f"kernel {self.kernel.name}({names}) takes {len(sig)} arguments, {len(self._entries)} given"
            )
        for i, ((kind, payload), spec) in enumerate(zip(self._entries, sig, strict=True)):
            where = f"argument {i} ({spec.name}) of {self.kernel.name}"
            if kind in ("ptr", "host", "placeholder"):
                if spec.kind != "p":
                    raise TypeError(
                        f"{where} is a {spec.size}-byte {'float' if spec.kind == 'f' else 'integer'}, not a pointer"
                    )
            elif kind == "scalar":
                if spec.kind == "p":
                    raise TypeError(
                        f"{where} is a pointer: pass a DeviceArray, an array or a placeholder, not a scalar"
                    )
                got = "f" if payload.dtype.kind == "f" else "i"
                if got != spec.kind or payload.dtype.itemsize != spec.size:
                    want = f"{'float' if spec.kind == 'f' else 'integer'} of {spec.size} bytes"
                    raise TypeError(f"{where} is a {want}, got {payload.dtype}")
            elif kind == "raw" and len(payload) != spec.size:
                raise TypeError(f"{where} is {spec.size} bytes, got {len(payload)} raw bytes")

    async def build(self, *, stream: Stream | None = None) -> KernelArgs:
        """Check the arguments against the kernel's signature, upload host arrays, and build
        the list (``await builder`` does the same, on the current stream).

        :param stream: where ``.array()`` data is uploaded (default: the task's current stream).
        :returns: the finalized :class:`KernelArgs`.
        :raises TypeError: the count, kinds or sizes do not match the kernel's recorded signature.
        :raises ValueError: the stream is of another NPU than the kernel.
        :raises AclError: the runtime refused the list (e.g. more than 128 parameters or 64 KiB).
        """
        self._check_signature()
        entries = list(self._entries)
        uploaded: list[DeviceArray] = []
        if any(kind == "host" for kind, _ in entries):
            s = stream_or_current(stream)
            device = self.kernel.binary.device
            if not core_of(s.device).same_npu(core_of(device)):
                raise ValueError(
                    f"host arrays would be uploaded on {s!r}, of device {s.device.index}, but kernel "
                    f"{self.kernel.name} is loaded on device {device.index}"
                )
            try:
                for i, (kind, payload) in enumerate(entries):
                    if kind == "host":
                        arr = await s.upload(payload)
                        uploaded.append(arr)
                        entries[i] = ("ptr", arr)
            except BaseException:
                for arr in uploaded:
                    arr.close()
                raise
        return create(KernelArgs, self.kernel, entries)


def _same_device(kernel: Kernel, array: DeviceArray) -> None:
    """A kernel takes arrays of its own NPU only (its device could free another's under it)."""
    device = kernel.binary.device
    if not core_of(array.device).same_npu(core_of(device)):
        raise ValueError(f"{array!r} is not on device {device.index}, where kernel {kernel.name} is loaded")


def _aligned(nbytes: int, align: int = 64) -> tuple[np.ndarray, int]:
    """Zeroed memory aligned to ``align``: (owning array, address)."""
    raw = np.zeros(nbytes + align, np.uint8)
    addr = raw.__array_interface__["data"][0]
    off = (-addr) % align
    return raw, addr + off


class KernelArgs(metaclass=NoPublicConstructor):
    """A finalized argument list, reusable across launches and updatable in place. Made by
    ``await kernel.args()...``; ``kernel`` is the kernel it was built for."""

    _factory = "await kernel.args()...  (an ArgsBuilder)"

    def __init__(self, kernel: Kernel, entries: list[tuple[str, Any]]) -> None:
        self.kernel = kernel
        self._handle: Any = None
        self._memory: tuple[np.ndarray, np.ndarray] | None = None
        self._params: list[Any] = []
        self._kinds: list[str] = []
        self._sizes: list[int] = []
        self._dtypes: list[np.dtype[Any] | None] = []
        self._placeholder_data: dict[int, np.ndarray] = {}
        self._arrays: list[DeviceArray | None] = []
        self._arrays_cache: tuple[DeviceArray, ...] | None = None
        # The handle while an argument points to a closed array (see _array_closed): _handle is
        # None then, so every launch path -- the hot one checks _handle anyway -- refuses them.
        self._parked: Any = None
        # What launch()'s fast path (C, native/hotpath.c) needs of these args: an ArgsInfo, made
        # by the first launch that took the Python path, dropped whenever the handle or the
        # arrays change (so that the next launch validates again).
        self._fast: Any = None
        self._build(kernel, entries)

    def _build(self, kernel: Kernel, entries: list[tuple[str, Any]]) -> None:
        fn = as_pointer(kernel.handle, "aclrtFuncHandle")  # raises ClosedError once unloaded
        core_of(kernel.binary.device).bind()
        payloads: list[bytes | None] = []
        for kind, payload in entries:
            if kind == "ptr":
                addr = payload.ptr if isinstance(payload, DeviceArray) else payload
                payloads.append(int(addr).to_bytes(8, "little"))
            elif kind == "scalar":
                payloads.append(payload.tobytes())
            elif kind == "raw":
                payloads.append(payload)
            else:  # placeholder
                payloads.append(None)
        user_size = sum((len(p) + 7) // 8 * 8 if p is not None else 8 for p in payloads)
        user_size += sum((len(e[1]) + 7) // 8 * 8 for e in entries if e[0] == "placeholder")
        size = ffi.new("size_t*")
        check(lib.aclrtKernelArgsGetHandleMemSize(fn, size), "aclrtKernelArgsGetHandleMemSize")
        handle_mem, handle_addr = _aligned(int(size[0]))
        check(lib.aclrtKernelArgsGetMemSize(fn, user_size, size), "aclrtKernelArgsGetMemSize")
        buf_mem, buf_addr = _aligned(int(size[0]))
        self._memory = (handle_mem, buf_mem)
        handle = ffi.cast("aclrtArgsHandle", handle_addr)
        check(
            lib.aclrtKernelArgsInitByUserMem(fn, handle, ffi.cast("void*", buf_addr), int(size[0])),
            "aclrtKernelArgsInitByUserMem",
        )
        ph = ffi.new("aclrtParamHandle*")
        for (kind, payload), data in zip(entries, payloads, strict=True):
            if data is None:
                check(lib.aclrtKernelArgsAppendPlaceHolder(handle, ph), "aclrtKernelArgsAppendPlaceHolder")
                self._sizes.append(8)
            else:
                check(lib.aclrtKernelArgsAppend(handle, ffi.from_buffer(data), len(data), ph), "aclrtKernelArgsAppend")
                self._sizes.append(len(data))
            self._params.append(ph[0])
            self._kinds.append(kind)
            self._dtypes.append(payload.dtype if kind == "scalar" else None)
            if isinstance(payload, DeviceArray):
                payload._pointed_by(self)
                self._arrays.append(payload)
            else:
                self._arrays.append(None)
        buf = ffi.new("void**")
        for i, (kind, payload) in enumerate(entries):
            if kind == "placeholder":
                check(
                    lib.aclrtKernelArgsGetPlaceHolderBuffer(handle, self._params[i], len(payload), buf),
                    "aclrtKernelArgsGetPlaceHolderBuffer",
                )
                view = np.frombuffer(ffi.buffer(buf[0], len(payload)), np.uint8)
                view[:] = np.frombuffer(payload, np.uint8)
                self._placeholder_data[i] = view
        check(lib.aclrtKernelArgsFinalize(handle), "aclrtKernelArgsFinalize")
        self._handle = handle

    def _array_closed(self, array: DeviceArray) -> None:
        """``array``, which an argument may point to, was closed: its block goes back to the
        pool (at once, or once its work is done) and may become another array's, which a launch
        of these args would write. Refuse launches until every pointer argument points to an
        open array again (``update``). The device addresses of arrays given as ints are the
        caller's to keep valid, as with pyACL."""
        if self._handle is not None and any(a is array for a in self._arrays):
            self._parked, self._handle = self._handle, None
            self._fast = None

    def _closed_argument(self) -> int | None:
        return next((i for i, a in enumerate(self._arrays) if a is not None and a.closed), None)

    def _live_handle(self) -> Any:
        if self._handle is None:
            i = self._closed_argument() if self._parked is not None else None
            if i is not None:
                raise errors.ClosedError(
                    f"argument {i} of the {self.kernel.name} args points to {self._arrays[i]!r}, which was closed "
                    f"(its memory may be another array's now): point it to an open array (args.update({i}, array)) "
                    "before launching them again"
                )
            raise errors.ClosedError("the kernel args were closed")
        return self._handle

    @property
    def handle(self) -> int:
        """The ACL args handle (``aclrtArgsHandle``) as an int, the value pyACL's
        ``acl.rt.launch_kernel_with_config`` takes. Raises ClosedError once closed."""
        return as_int(self._live_handle())

    @property
    def arrays(self) -> tuple[DeviceArray, ...]:
        """The device arrays the arguments point to (kept alive by every launch)."""
        if self._arrays_cache is None:
            self._arrays_cache = tuple(a for a in self._arrays if a is not None)
        return self._arrays_cache

    def __len__(self) -> int:
        return len(self._params)

    def update(self, index: int, value: Any) -> None:
        """Replace argument ``index`` in place (``aclrtKernelArgsParaUpdate``, then Finalize
        again); later launches see the new value, launches already enqueued do not.

        :param index: the argument's position.
        :param value: for a pointer, a DeviceArray or int address; for a scalar, a value of its
            width; for a placeholder, new data of at most its original size (the bytes past it
            keep their values, as when writing into the placeholder's buffer); for raw bytes,
            the same number of bytes.
        :raises IndexError: no such argument.
        :raises TypeError: a value of the wrong kind or width for the argument.
        :raises ValueError: placeholder data larger than the original.
        :raises OverflowError: a scalar that does not fit its type.
        :raises ClosedError: the args were closed.
        """
        index = _ints.index(index, "the argument index")
        if not 0 <= index < len(self._params):
            raise IndexError(f"argument index {index} out of range for {len(self._params)} arguments")
        kind = self._kinds[index]
        handle = self._handle if self._parked is None else self._parked  # updatable while parked
        if handle is None:
            raise errors.ClosedError("the kernel args were closed")
        if kind == "placeholder":
            data = np.frombuffer(_to_bytes(value, "placeholder data"), np.uint8)
            view = self._placeholder_data[index]
            if data.nbytes > view.nbytes:
                raise ValueError(f"placeholder {index} holds {view.nbytes} bytes, got {data.nbytes}")
            view[: data.nbytes] = data  # copied into the device args at each launch
            return
        array: DeviceArray | None = None
        if kind == "ptr":
            if isinstance(value, DeviceArray):
                _same_device(self.kernel, value)
                array, payload = value, value.ptr.to_bytes(8, "little")
            elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
                payload = _address(value).to_bytes(8, "little")
            else:
                raise TypeError(f"argument {index} is a pointer: pass a DeviceArray or int address")
        elif kind == "scalar":
            dt = self._dtypes[index]
            if isinstance(value, np.generic) and value.dtype != dt:
                raise TypeError(f"argument {index} is {dt}, got {value.dtype}")
            payload = _scalar(value, dt).tobytes()
        else:
            payload = _to_bytes(value, "raw argument")
        if len(payload) != self._sizes[index]:
            raise TypeError(f"argument {index} is {self._sizes[index]} bytes, the new value {len(payload)}")
        core_of(self.kernel.binary.device).bind()
        check(
            lib.aclrtKernelArgsParaUpdate(handle, self._params[index], ffi.from_buffer(payload), len(payload)),
            "aclrtKernelArgsParaUpdate",
        )
        check(lib.aclrtKernelArgsFinalize(handle), "aclrtKernelArgsFinalize")
        if kind == "ptr":
            self._arrays[index] = array
            self._arrays_cache = None
            self._fast = None
            if array is not None:
                array._pointed_by(self)
            if self._parked is not None and self._closed_argument() is None:
                self._handle, self._parked = self._parked, None  # every pointer is live again

    def close(self) -> None:
        """Release the argument list's memory (launches already enqueued copied it)."""
        self._handle = None
        self._fast = None
        self._parked = None
        self._memory = None
        self._placeholder_data.clear()
        self._arrays.clear()
        self._arrays_cache = None

    def __repr__(self) -> str:
        return f"<KernelArgs {self.kernel.name} ({len(self._params)} args)>"
