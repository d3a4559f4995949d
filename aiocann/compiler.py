"""The simulator's kernel compiler, and where the simulator's files are.

A simulator kernel is C (or C++) with the kernel header ``kernel_operator.h``, keeping its
Ascend C signature::

    #include "kernel_operator.h"
    __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling) { ... }

:func:`build_kernel` plays the device compiler's part: it finds every ``__global__`` function,
generates for each an *entry* that unpacks the parameters from a launch's args block (parameter
``i`` at byte offset ``8*i``) and a descriptor table recording the signature, compiles the lot
with the system compiler into a host shared object, and caches it by content. The simulator
loads that object with ``aclrtBinaryLoadFromFile`` (or from its bytes).

This module sits beside the runtime layers: it needs no device and no loaded runtime.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "KernelBuildError",
    "KernelParam",
    "KernelSignature",
    "ParamSpec",
    "build_kernel",
    "example_kernel",
    "include_dir",
    "kernel_signatures",
    "library_path",
    "read_signatures",
]

# Bump when the generated stub changes, so cached binaries are rebuilt.
_GENERATOR_VERSION = "3"

_PACKAGE_DIR = Path(__file__).resolve().parent


class KernelBuildError(RuntimeError):
    """A kernel failed to build. ``output`` holds the compiler's diagnostics."""

    def __init__(self, message: str, *, output: str = "", command: list[str] | None = None) -> None:
        super().__init__(message if not output else f"{message}\n{output.rstrip()}")
        self.output = output
        self.command = command or []


@dataclass(frozen=True)
class KernelParam:
    """One parameter of a kernel: its C type, name, and kind ('p'ointer, 'i'nteger, 'f'loat)."""

    type: str
    name: str
    kind: str


@dataclass(frozen=True)
class KernelSignature:
    """A ``__global__`` function found in a kernel source."""

    name: str
    params: tuple[KernelParam, ...]


@dataclass(frozen=True)
class ParamSpec:
    """What a kernel binary records about one parameter: size in bytes and kind."""

    name: str
    size: int
    kind: str  # 'p' pointer, 'i' integer, 'f' floating point


def read_signatures(binary: str | os.PathLike[str]) -> dict[str, tuple[ParamSpec, ...]] | None:
    """The kernel signatures recorded next to a binary built by :func:`build_kernel`
    (``<binary>.json``), or None when the binary records none (e.g. a real device binary)."""
    meta = Path(binary).with_suffix(".json")
    try:
        data = json.loads(meta.read_text())
    except (OSError, ValueError):
        return None
    return {k["name"]: tuple(ParamSpec(**p) for p in k["params"]) for k in data.get("kernels", [])}


class _Desc(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("entry", ctypes.c_void_p),
        ("num_params", ctypes.c_uint32),
        ("param_sizes", ctypes.POINTER(ctypes.c_uint8)),
        ("param_kinds", ctypes.c_char_p),
    ]


def _write_signatures(so: Path, sigs: list[KernelSignature], meta: Path) -> None:
    """Records each kernel's parameter sizes as the compiler laid them out (read back from the
    binary's descriptor table, so typedefs need no guessing)."""
    table = (_Desc * (len(sigs) + 1)).in_dll(ctypes.CDLL(str(so), mode=os.RTLD_LOCAL), "aclsim_kernels")
    by_name = {s.name: s for s in sigs}
    kernels = []
    for d in table[: len(sigs)]:
        sig = by_name[d.name.decode()]
        params = [{"name": p.name, "size": int(d.param_sizes[i]), "kind": p.kind} for i, p in enumerate(sig.params)]
        kernels.append({"name": sig.name, "params": params})
    meta.write_text(json.dumps({"kernels": kernels}, indent=1))


def include_dir() -> Path:
    """The directory holding ``kernel_operator.h`` and the ACL headers (``acl/acl.h``)."""
    for candidate in (_PACKAGE_DIR / "include", _PACKAGE_DIR.parent / "native" / "include"):
        if (candidate / "kernel_operator.h").is_file():
            return candidate
    raise FileNotFoundError("aiocann's headers are missing: reinstall aiocann (pip install .)")


def library_path() -> Path:
    """The simulator built as a standalone ``libascendcl.so`` (link C programs against it)."""
    path = _PACKAGE_DIR / "lib" / "libascendcl.so"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: build aiocann first (pip install -e .)")
    return path


def example_kernel(name: str) -> Path:
    """The source file of a kernel that ships with aiocann, for :func:`build_kernel`::

        add = (await dev.load_binary(build_kernel(example_kernel("vector_add.c")))).function("add_custom")

    ``vector_add.c``, ``softmax.c``, ``matvec.c``, ``matmul.c`` and ``delay.c`` are the examples'
    kernels; ``test_kernels.c`` holds small ones for tests and benchmarks (``empty``,
    ``wait_us``, ``write_value``, and kernels that fault on purpose: ``poke``, ``divide``,
    ``trap``). An installed wheel carries copies; a source checkout uses ``examples/kernels``
    and ``tests/kernels`` directly, so the path works from any directory either way.
    """
    available = _shipped_kernels()
    path = available.get(name)
    if path is None:
        raise FileNotFoundError(f"no kernel {name!r} ships with aiocann; there are {', '.join(sorted(available))}")
    return path


def _shipped_kernels() -> dict[str, Path]:
    packaged = _PACKAGE_DIR / "_kernels"  # a wheel (setup.py copies them there)
    if packaged.is_dir():
        return {p.name: p for p in packaged.glob("*.c")}
    root = _PACKAGE_DIR.parent  # a source checkout (editable install)
    found = {p.name: p for p in (root / "examples" / "kernels").glob("*.c")}
    test_kernels = root / "tests" / "kernels" / "test_kernels.c"
    if test_kernels.is_file():
        found[test_kernels.name] = test_kernels
    return found


# --------------------------------------------------------------------------- parsing

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRINGS = re.compile(r'"(?:\\.|[^"\\\n])*"')
_KERNEL = re.compile(r"(?:__global__\s+__aicore__|__aicore__\s+__global__)\s+void\s+([A-Za-z_]\w*)\s*\(")
_IDENT = re.compile(r"[A-Za-z_]\w*$")
_FLOAT_WORDS = {"float", "double", "half", "bfloat16_t", "float16_t", "_Float16", "__fp16"}


def _param(text: str, kernel: str, index: int) -> KernelParam:
    text = " ".join(text.split())
    if "[" in text or "(" in text:
        raise KernelBuildError(
            f"kernel {kernel}: parameter {index} '{text}' is not supported; "
            "parameters are pointers (GM_ADDR) or scalars of at most 8 bytes"
        )
    m = _IDENT.search(text)
    words = text.split()
    if m is None or len(words) < 2 or text.endswith("*"):
        raise KernelBuildError(f"kernel {kernel}: parameter {index} '{text}' needs a type and a name")
    name = m.group(0)
    ctype = text[: m.start()].strip()
    if "*" in ctype or "GM_ADDR" in ctype.split():
        kind = "p"
        if "*" in ctype:
            head, _, tail = ctype.rpartition("*")
            ctype = head + "*" + " ".join(w for w in tail.split() if w != "const")  # drop `* const`
    else:
        kind = "f" if set(ctype.split()) & _FLOAT_WORDS else "i"
        ctype = " ".join(w for w in ctype.split() if w not in ("const", "volatile"))  # a local copy
    return KernelParam(ctype.strip(), name, kind)


def kernel_signatures(source: str) -> list[KernelSignature]:
    """The ``__global__ __aicore__`` functions defined in a kernel source, in order."""
    code = _STRINGS.sub('""', _COMMENTS.sub(" ", source))
    kernels = []
    for m in _KERNEL.finditer(code):
        name = m.group(1)
        # The parameter list up to its balanced ')', so a function-pointer parameter is seen
        # (and refused by _param with a clear message) instead of hiding the kernel.
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        if not code[i:].lstrip().startswith("{"):
            continue  # a declaration, not the definition
        params = code[m.end() : i - 1].strip()
        parts = [] if params in ("", "void") else _split_params(params)
        kernels.append(KernelSignature(name, tuple(_param(p, name, k) for k, p in enumerate(parts))))
    return kernels


def _split_params(params: str) -> list[str]:
    """Split on the commas that are not inside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(params):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(params[start:i])
            start = i + 1
    parts.append(params[start:])
    return parts


# --------------------------------------------------------------------------- generation


def _stub(sigs: list[KernelSignature]) -> str:
    out = [
        "/* Generated by aiocann.compiler.build_kernel: kernel entries and descriptors. */",
        "#include <string.h>",
        '#include "aclsim_kernel.h"',
        "#ifdef __cplusplus",
        "#define ACLSIM_STATIC_ASSERT static_assert",
        'extern "C" {',
        "#else",
        "#define ACLSIM_STATIC_ASSERT _Static_assert",
        "#endif",
        "__thread int64_t aclsim_block_idx;",
        "__thread int64_t aclsim_block_num;",
        "__thread uint32_t aclsim_block_status;",
        # Declared in aclsim_kernel.h with default visibility: the simulator looks it up.
        "uint32_t aclsim_kernel_take_status(void)",
        "{",
        "    uint32_t s = aclsim_block_status;",
        "    aclsim_block_status = 0;",
        "    return s;",
        "}",
    ]
    for sig in sigs:
        out.append(f"static void aclsim_entry_{sig.name}(const void *args, int64_t idx, int64_t num)")
        out.append("{")
        out.append("    const unsigned char *a = (const unsigned char *)args;")
        for i, p in enumerate(sig.params):
            out.append(f"    {p.type} p{i};")
            out.append(f"    memcpy(&p{i}, a + {8 * i}, sizeof p{i});")
        out.append("    (void)a;")
        out.append("    aclsim_block_idx = idx;")
        out.append("    aclsim_block_num = num;")
        out.append(f"    {sig.name}({', '.join(f'p{i}' for i in range(len(sig.params)))});")
        out.append("}")
        for p in sig.params:
            out.append(
                f'ACLSIM_STATIC_ASSERT(sizeof({p.type}) <= 8, "kernel {sig.name}: parameter {p.name} is larger '
                'than 8 bytes");'
            )
        if sig.params:
            sizes = ", ".join(f"(uint8_t)sizeof({p.type})" for p in sig.params)
            out.append(f"static const uint8_t aclsim_sizes_{sig.name}[] = {{{sizes}}};")
    # Both are declared extern with default visibility in aclsim_kernel.h.
    out.append("const uint32_t aclsim_kernel_abi = ACLSIM_KERNEL_ABI_VERSION;")
    out.append("const aclsim_kernel_desc aclsim_kernels[] = {")
    for sig in sigs:
        sizes = f"aclsim_sizes_{sig.name}" if sig.params else "0"
        kinds = '"' + "".join(p.kind for p in sig.params) + '"'
        out.append(f'    {{"{sig.name}", aclsim_entry_{sig.name}, {len(sig.params)}, {sizes}, {kinds}}},')
    out.append("    {0, 0, 0, 0, 0},")
    out.append("};")
    out.append("#ifdef __cplusplus")
    out.append("}")
    out.append("#endif")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- compiling


def _compiler(language: str) -> list[str]:
    env = os.environ.get("CXX" if language == "c++" else "CC")
    if env:
        cmd = shlex.split(env)
    elif language == "c++":
        cmd = ["c++"]
    else:
        cmd = shlex.split(sysconfig.get_config_var("CC") or "cc")[:1]
    if shutil.which(cmd[0]) is None:
        fallback = "g++" if language == "c++" else "gcc"
        if shutil.which(fallback) is None:
            raise KernelBuildError(
                f"no {language} compiler found (tried {cmd[0]!r} and {fallback!r}): install one, "
                "e.g. 'apt install build-essential', or set " + ("CXX" if language == "c++" else "CC")
            )
        cmd = [fallback]
    return cmd


def _cache_root(cache_dir: str | os.PathLike[str] | None) -> Path:
    if cache_dir is not None:
        return Path(cache_dir)
    env = os.environ.get("AIOCANN_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "aiocann" / "kernels"


def _names_a_file(source: str) -> bool:
    """Whether a str given to :func:`build_kernel` is a path rather than source text.

    An existing file is a path. So is any one-line string without a ``{``: no kernel can be
    defined without one, so such a string could never build as source, and taking it for a
    path turns a mistyped path into FileNotFoundError instead of "no kernel found"."""
    if "\n" in source or not source.strip():
        return False
    return os.path.isfile(source) or "{" not in source


def build_kernel(
    source: str | os.PathLike[str],
    *,
    language: str | None = None,
    cflags: tuple[str, ...] | list[str] = (),
    cache_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Compile a simulator kernel binary and return the path of the shared object.

    ``source`` is kernel source text, or a path to a ``.c``/``.cpp`` file: a ``PathLike``, an
    existing file, or a one-line string without ``{`` (which cannot be source text) is a path,
    and a missing one raises FileNotFoundError. ``language`` is ``"c"`` or ``"c++"``; by
    default C++ when the source uses ``extern "C"`` (as Ascend C kernels do) or the file ends
    in ``.cpp``/``.cc``, else C. Builds are cached by content
    under ``$AIOCANN_CACHE_DIR`` (default ``~/.cache/aiocann/kernels``). A failed build raises
    :class:`KernelBuildError` carrying the compiler's output.
    """
    path: Path | None = None
    if isinstance(source, os.PathLike) or _names_a_file(source):
        path = Path(source)
        text = path.read_text()  # a missing file raises FileNotFoundError naming the path
    else:
        text = str(source)
    if language is None:
        cpp_file = path is not None and path.suffix in (".cpp", ".cc", ".cxx")
        language = "c++" if cpp_file or 'extern "C"' in text else "c"
    if language not in ("c", "c++"):
        raise ValueError(f"language must be 'c' or 'c++', not {language!r}")
    sigs = kernel_signatures(text)
    if not sigs:
        raise KernelBuildError(
            "no kernel found: a kernel is defined as '__global__ __aicore__ void name(params) { ... }'"
        )
    names = [s.name for s in sigs]
    if len(set(names)) != len(names):
        raise KernelBuildError(f"kernel names must be unique, got {names}")

    inc = include_dir()
    cc = _compiler(language)
    std = "-std=gnu++17" if language == "c++" else "-std=gnu11"
    flags = [
        std,
        "-O3",
        "-fPIC",
        "-shared",
        "-fvisibility=hidden",
        "-Wall",
        f"-I{inc}",
        "-include",
        "kernel_operator.h",
    ]
    if path is not None:
        flags.append(f"-I{path.resolve().parent}")  # the kernel's own relative #includes
    flags += list(cflags)
    stub = _stub(sigs)
    key = hashlib.sha256()
    for part in (
        _GENERATOR_VERSION,
        language,
        " ".join(cc + flags),
        text,
        stub,
        (inc / "kernel_operator.h").read_text(),
        (inc / "aclsim_kernel.h").read_text(),
        *(p.read_text() for p in sorted((inc / "ascendc").glob("*.h"))),  # the Ascend C API headers
    ):
        key.update(part.encode())
        key.update(b"\0")
    digest = key.hexdigest()[:24]
    out_dir = _cache_root(cache_dir) / digest
    target = out_dir / "kernel.so"
    if target.is_file() and target.with_suffix(".json").is_file():
        return target

    out_dir.mkdir(parents=True, exist_ok=True)
    suffix = ".cpp" if language == "c++" else ".c"
    wrapper = out_dir / ("entry" + suffix)
    if path is not None:
        src_file = path.resolve()  # included where it is, like its own #includes
    else:
        src_file = out_dir / ("kernel" + suffix)
        src_file.write_text(text)
    quoted = str(src_file).replace("\\", "\\\\").replace('"', '\\"')
    wrapper.write_text(f'#include "{quoted}"\n' + stub)
    fd, tmp = tempfile.mkstemp(prefix=".kernel-", suffix=".so", dir=out_dir)
    os.close(fd)
    cmd = cc + flags + ["-o", tmp, str(wrapper)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=out_dir)
    except OSError as exc:
        os.unlink(tmp)
        raise KernelBuildError(f"cannot run the compiler {cc[0]!r}: {exc}", command=cmd) from exc
    if proc.returncode != 0:
        os.unlink(tmp)
        raise KernelBuildError(
            f"kernel build failed ({' '.join(names)}), compiler exit code {proc.returncode}",
            output=proc.stderr + proc.stdout,
            command=cmd,
        )
    meta_tmp = Path(tmp).with_suffix(".json")
    _write_signatures(Path(tmp), sigs, meta_tmp)
    os.replace(meta_tmp, target.with_suffix(".json"))
    os.replace(tmp, target)  # atomic, and last: concurrent builders of one kernel both succeed
    return target
