"""The kernel compiler (bisheng's role for the simulator), and where the simulator's files are.

A kernel is Ascend C -- unmodified, as written for the NPU -- or plain C with the kernel header
``kernel_operator.h`` and Ascend C signatures::

    #include "kernel_operator.h"
    extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z) { ... }

:func:`build_kernel` compiles a source into a simulator kernel binary (a host shared object the
simulator loads with ``aclrtBinaryLoadFromFile`` or ``FromData``) and caches it by content. The
front-end behind it (aiocann._frontend) finds the kernels as the real toolchain does --
``extern "C"`` names, the mangled names of C++ and template kernels -- rewrites ``<<<>>>``
launches and ``asm("trap")``, and appends an entry stub that unpacks a launch's args block
(parameter ``i`` at byte offset ``8*i``). ``python -m aiocann cc`` (:func:`cc`) is the same
compiler on the command line, also building host objects and ``.asc`` executables, and the
simulator's ``aclrtcCompileProg`` runs it as a child process; :func:`compile_program` compiles
through aclrtc, so the same call works on the simulator and on a CANN install.

This module sits beside the runtime layers: apart from :func:`compile_program` it needs no
device and no loaded runtime.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import re
import shutil
import struct
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ._elf import ElfError, ElfFile
from ._frontend import (
    _COMMON_DEFINITIONS,
    KernelBuildError,
    Options,
    Unit,
    _meta_line,
    compiler,
    cpp_table,
    link_kernel_binary,
    parameter_names,
)
from ._frontend import run as _run

__all__ = [
    "CompiledProgram",
    "KernelBuildError",
    "KernelParam",
    "KernelSignature",
    "ParamSpec",
    "build_kernel",
    "cc",
    "compile_program",
    "example_kernel",
    "include_dir",
    "kernel_signatures",
    "library_path",
    "plain_names",
    "read_signatures",
    "simulated_npu_arch",
]

# Bump when the generated code changes, so cached binaries are rebuilt.
_GENERATOR_VERSION = "4"

_PACKAGE_DIR = Path(__file__).resolve().parent


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


# The fixed-size signature record of aclsim_entry.h (struct aclsim_sigrec): magic, index,
# count, 128 sizes, 128 kinds.
_SIGREC = struct.Struct("<8sII128s128s")


def _read_metadata(binary: str | os.PathLike[str] | bytes) -> list[dict[str, object]] | None:
    """The kernels a binary built here records (``.aclsim.meta`` and ``.aclsim.sig``): each
    with its name, its C++ name (``plain``) and its parameters, in the binary's order."""
    try:
        elf = ElfFile(bytes(binary)) if isinstance(binary, (bytes, bytearray, memoryview)) else ElfFile.read(binary)
    except (OSError, ElfError):
        return None
    meta, sig = elf.section(".aclsim.meta"), elf.section(".aclsim.sig")
    if meta is None or sig is None:
        return None
    try:
        kernels = json.loads(meta.rstrip(b"\0").decode())["kernels"]
    except (ValueError, KeyError, UnicodeDecodeError):
        return None
    records = {}
    off = 0  # the compiler may pad between records (alignment): find each by its magic
    while off + _SIGREC.size <= len(sig):
        magic, index, count, sizes, kinds = _SIGREC.unpack_from(sig, off)
        if magic != b"ACLSIG1\0" or count > 128:
            off += 8
            continue
        records[index] = (sizes[:count], kinds[:count].decode("ascii", "replace"))
        off += _SIGREC.size
    out = []
    for i, k in enumerate(kernels):
        if i not in records:
            return None
        sizes, kinds = records[i]
        names = k.get("params") or [f"arg{j}" for j in range(len(sizes))]
        if len(names) != len(sizes):
            names = [f"arg{j}" for j in range(len(sizes))]
        params = tuple(ParamSpec(n, int(sz), kd) for n, sz, kd in zip(names, sizes, kinds, strict=True))
        out.append({"name": k["name"], "plain": k.get("plain") or k["name"], "params": params})
    return out


def read_signatures(binary: str | os.PathLike[str] | bytes) -> dict[str, tuple[ParamSpec, ...]] | None:
    """The kernel signatures a binary built by this compiler records (a path, or the binary's
    bytes), by kernel name; None when the binary records none (e.g. a real device binary)."""
    kernels = _read_metadata(binary)
    if kernels is None:
        return None
    return {str(k["name"]): k["params"] for k in kernels}  # type: ignore[misc]


def plain_names(binary: str | os.PathLike[str] | bytes) -> dict[str, list[str]]:
    """For the plain-name lookup of ``Binary.function``: each shorter name a kernel answers to
    (``ns::k<float>``, ``k<float>``, ``ns::k``, ``k`` for ``void ns::k<float>(float*)``) mapped
    to the kernels that have it. A name with two kernels is ambiguous."""
    out: dict[str, list[str]] = {}
    for k in _read_metadata(binary) or []:
        name, plain = str(k["name"]), str(k["plain"])
        no_args = _strip_template_args(plain)
        base = no_args.rsplit("::", 1)[-1]
        with_args = plain[len(no_args) - len(base) :]
        for alias in {plain, no_args, base, with_args} - {name}:
            out.setdefault(alias, []).append(name)
    return out


def _strip_template_args(name: str) -> str:
    """``ns::k<float, 4>`` -> ``ns::k``."""
    if not name.endswith(">"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        depth += {">": 1, "<": -1}.get(name[i], 0)
        if depth == 0:
            return name[:i]
    return name


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
    kernels in plain C, ``softmax.cpp`` the softmax in Ascend C (what the pipeline and the server
    launch); ``test_kernels.c`` holds small ones for tests and benchmarks (``empty``, ``wait_us``,
    ``write_value``, and kernels that fault on purpose: ``poke``, ``divide``, ``trap``). An
    installed wheel carries copies; a source checkout uses ``examples/kernels``
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
        return {p.name: p for p in packaged.iterdir() if p.suffix in (".c", ".cpp")}
    root = _PACKAGE_DIR.parent  # a source checkout (editable install)
    found = {p.name: p for p in (root / "examples" / "kernels").iterdir() if p.suffix in (".c", ".cpp")}
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


# --------------------------------------------------------------------------- the C stub


def _c_stub(sigs: list[KernelSignature], meta: str) -> str:
    """The entry stub of a plain C kernel binary: the same descriptor table and records as
    aclsim_entry.h builds for C++, with the parameter types the C parser found."""
    out = [
        '#line 1 "<aiocann entry stub>"',
        "#include <string.h>",
        '#include "aclsim_kernel.h"',
        *_COMMON_DEFINITIONS,
        "struct aclsim_sigrec { char magic[8]; uint32_t index, count; uint8_t sizes[128]; char kinds[128]; };",
    ]
    for i, sig in enumerate(sigs):
        out.append(f"static void aclsim_entry_{sig.name}(const void *args, int64_t idx, int64_t num)")
        out.append("{")
        out.append("    const unsigned char *a = (const unsigned char *)args;")
        for j, p in enumerate(sig.params):
            out.append(f"    {p.type} p{j};")
            out.append(f"    memcpy(&p{j}, a + {8 * j}, sizeof p{j});")
        out.append("    (void)a;")
        out.append("    aclsim_block_idx = idx;")
        out.append("    aclsim_block_num = num;")
        out.append(f"    {sig.name}({', '.join(f'p{j}' for j in range(len(sig.params)))});")
        out.append("}")
        for p in sig.params:
            out.append(
                f"_Static_assert(sizeof({p.type}) <= 8, "
                f'"kernel {sig.name}: parameter {p.name} is larger than 8 bytes");'
            )
        sizes = ", ".join(f"(uint8_t)sizeof({p.type})" for p in sig.params)
        kinds = "".join(p.kind for p in sig.params)
        out.append(f"static const uint8_t aclsim_sizes_{sig.name}[] = {{{sizes or '0'}}};")
        out.append(
            f'__attribute__((section(".aclsim.sig"), used, retain)) static const struct aclsim_sigrec '
            f"aclsim_sigrec_{i} = "
            f'{{"ACLSIG1", {i}, {len(sig.params)}, {{{sizes or "0"}}}, "{kinds}"}};'
        )
    out.append(_meta_line(meta))
    out.append("const uint32_t aclsim_kernel_abi = ACLSIM_KERNEL_ABI_VERSION;")
    out.append("const aclsim_kernel_desc aclsim_kernels[] = {")
    for sig in sigs:
        kinds = '"' + "".join(p.kind for p in sig.params) + '"'
        out.append(
            f'    {{"{sig.name}", aclsim_entry_{sig.name}, {len(sig.params)}, aclsim_sizes_{sig.name}, {kinds}}},'
        )
    out.append("    {0, 0, 0, 0, 0},")
    out.append("};")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- building


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


def _headers_digest(inc: Path) -> str:
    """The content of every header the front-end compiles against (the Ascend C API and the
    stubs) and of the generator itself: a change to either rebuilds every kernel."""
    h = hashlib.sha256()
    for p in [Path(__file__), Path(__file__).with_name("_frontend.py"), *sorted(inc.rglob("*.h"))]:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _file_digest(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""  # gone: never equal to a recorded digest


class _ChipStruct(ctypes.Structure):
    _fields_ = [("soc_name", ctypes.c_char_p), ("soc_version", ctypes.c_char_p), ("npu_arch", ctypes.c_uint32)]


def simulated_npu_arch() -> int | None:
    """``__NPU_ARCH__`` of the chip the simulator stands for (``aclsimGetChip()->npu_arch``, chosen
    by AIOCANN_SIM_SOC_NAME), read from the simulator library; None without it."""
    try:
        lib = ctypes.CDLL(str(library_path()))
    except (OSError, FileNotFoundError):
        return None
    get = lib.aclsimGetChip
    get.restype = ctypes.POINTER(_ChipStruct)
    chip = get()
    if not chip:
        raise KernelBuildError(
            f"AIOCANN_SIM_SOC_NAME={os.environ.get('AIOCANN_SIM_SOC_NAME')!r} names no simulated chip"
        )
    return int(chip.contents.npu_arch)


def _npu_arch(text: str | None) -> int | None:
    """``--npu-arch=dav-2201`` -> 2201 (bisheng's spelling of __NPU_ARCH__)."""
    if text is None:
        return None
    m = re.fullmatch(r"dav-(?:[a-z]+-)?(\d+)", text)
    if m is None:
        raise KernelBuildError(f"--npu-arch={text}: expected the form dav-2201")
    return int(m.group(1))


@dataclass
class _Built:
    binary: Path  # the kernel binary in the cache
    lowered: dict[str, str] = field(default_factory=dict)
    has_main: bool = False


@dataclass(frozen=True)
class _Source:
    """One translation unit to build: its text, its file (None for text), its name in messages."""

    text: str
    path: Path | None
    display: str | None = None

    def unit(self, language: str, options: Options, workdir: Path) -> Unit:
        default = "kernel" + (".cpp" if language == "c++" else ".c")
        display = self.display or (str(self.path) if self.path is not None else default)
        source_dir = self.path.resolve().parent if self.path is not None else None
        workdir.mkdir(parents=True, exist_ok=True)
        return Unit(
            self.text,
            display=display,
            source_dir=source_dir,
            language=language,
            options=options,
            include_dir=include_dir(),
            workdir=workdir,
        )


def _language(path: Path | None, text: str, language: str | None) -> str:
    if language is None:
        cpp_file = path is not None and path.suffix in (".cpp", ".cc", ".cxx", ".asc")
        language = "c++" if cpp_file or 'extern "C"' in text else "c"
    if language not in ("c", "c++"):
        raise ValueError(f"language must be 'c' or 'c++', not {language!r}")
    return language


_NO_KERNEL = "no kernel found: a kernel is defined as '__global__ __aicore__ void name(params) { ... }'"


def _build(
    sources: list[_Source], *, language: str, options: Options, cache_dir: str | os.PathLike[str] | None
) -> _Built:
    """Builds (or finds in the cache) the kernel binary of the sources: C++ sources each as its
    own translation unit (one binary holds the kernels of all), a C source on its own."""
    if options.npu_arch is None:
        options.npu_arch = simulated_npu_arch()
    if len(sources) > 1 and (language != "c++" or options.name_expressions):
        raise KernelBuildError("several sources build together only as C++ and without name expressions")
    inc = include_dir()
    key = hashlib.sha256()
    for part in (
        _GENERATOR_VERSION,
        language,
        " ".join(compiler(language)),
        json.dumps([options.flags(), options.std, options.npu_arch, options.name_expressions]),
        _headers_digest(inc),
        *(f"{src.path.resolve() if src.path else ''}\0{src.display or ''}\0{src.text}" for src in sources),
    ):
        key.update(part.encode())
        key.update(b"\0")
    out_dir = _cache_root(cache_dir) / key.hexdigest()[:24]
    target = out_dir / "kernel.so"
    info = out_dir / "unit.json"
    if target.is_file() and info.is_file():
        with contextlib.suppress(ValueError, OSError, KeyError):
            saved = json.loads(info.read_text())
            if all(_file_digest(f) == d for f, d in saved["dependencies"].items()):
                return _Built(target, saved["lowered"], saved["has_main"])
            # else a header the sources include changed: build again, in place

    out_dir.mkdir(parents=True, exist_ok=True)
    # Each build works in its own directory, so concurrent builders of one kernel never share
    # a half-written file; the results are renamed into place last.
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=out_dir))
    try:
        tmp = work / "kernel.so"
        units = [src.unit(language, options, work / f"unit{i}") for i, src in enumerate(sources)]
        try:
            if language == "c++":
                _build_cpp(units, tmp)
            else:
                _build_c(units[0], tmp)
        except KernelBuildError as exc:
            names = " ".join(k.name for u in units for k in u.kernels) or " ".join(
                s.name for s in kernel_signatures(sources[0].text)
            )
            first = exc.args[0].splitlines()[0]
            raise KernelBuildError(
                f"kernel build failed ({names}): {first}" if names else first, output=exc.output, command=exc.command
            ) from None
        lowered = {e: s for u in units for e, s in u.lowered.items()}
        has_main = any(u.has_main for u in units)
        deps = {f: _file_digest(f) for u in units for f in u.dependencies()}
        (work / "unit.json").write_text(json.dumps({"lowered": lowered, "has_main": has_main, "dependencies": deps}))
        os.replace(work / "unit.json", info)
        os.replace(tmp, target)  # atomic, and last
        return _Built(target, lowered, has_main)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _build_cpp(units: list[Unit], out: Path) -> None:
    records: list[dict[str, object]] = []
    objects = []
    for unit in units:
        unit.scout()
        objects.append(unit.workdir / "kernel.o")
        unit.kernel_object(objects[-1], unit.cpp_entries(len(records)))
        records += unit.metadata(parameter_names(unit.text))
    if not records:
        raise KernelBuildError(_NO_KERNEL)
    names = [str(r["name"]) for r in records]
    if len(set(names)) != len(names):
        raise KernelBuildError(f"kernel names must be unique, got {names}")
    meta = json.dumps({"kernels": records}, separators=(",", ":"))
    table = units[0].workdir.parent / "table.cpp"
    table.write_text(cpp_table(len(records), meta))
    link_kernel_binary(units, objects, table, out)


def _build_c(unit: Unit, out: Path) -> None:
    sigs = kernel_signatures(unit.text)
    if not sigs:
        raise KernelBuildError(_NO_KERNEL)
    names = [s.name for s in sigs]
    if len(set(names)) != len(names):
        raise KernelBuildError(f"kernel names must be unique, got {names}")
    meta = json.dumps(
        {"kernels": [{"name": s.name, "plain": s.name, "params": [p.name for p in s.params]} for s in sigs]},
        separators=(",", ":"),
    )
    unit.kernel_binary(out, _c_stub(sigs, meta))


def build_kernel(
    source: str | os.PathLike[str],
    *,
    language: str | None = None,
    cflags: Sequence[str] = (),
    defines: Iterable[str] = (),
    include_dirs: Iterable[str | os.PathLike[str]] = (),
    cache_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Compile a kernel source into a simulator kernel binary and return its path.

    ``source`` is kernel source text, or a path to a ``.cpp``/``.asc``/``.c`` file: a
    ``PathLike``, an existing file, or a one-line string without ``{`` (which cannot be source
    text) is a path, and a missing one raises FileNotFoundError. Ascend C sources build
    unmodified: ``extern "C"`` kernels keep their names, C++ and template kernels get their
    mangled names (``binary.function()`` also takes the plain name where it is unambiguous),
    ``<<<>>>`` launches and ``asm("trap")`` are rewritten. ``defines`` are ``-D`` definitions
    (``"DTYPE_X=float"``), ``include_dirs`` extra ``-I`` directories, ``cflags`` any other
    compiler flags. ``language`` is ``"c"`` or ``"c++"``; by default C++ when the file ends in
    ``.cpp``/``.cc``/``.asc`` or the source uses ``extern "C"``, else C. Builds are cached by
    content under ``$AIOCANN_CACHE_DIR`` (default ``~/.cache/aiocann/kernels``).

    :raises KernelBuildError: the build failed; ``output`` holds the compiler's diagnostics,
        which name the source's own file and line.
    """
    path: Path | None = None
    if isinstance(source, os.PathLike) or _names_a_file(source):
        path = Path(source)
        text = path.read_text()  # a missing file raises FileNotFoundError naming the path
    else:
        text = str(source)
    lang = _language(path, text, language)
    options = Options(
        include_dirs=[os.path.abspath(d) for d in include_dirs], defines=list(defines), extra=list(cflags)
    )
    return _build([_Source(text, path)], language=lang, options=options, cache_dir=cache_dir).binary


# --------------------------------------------------------------------------- python -m aiocann cc

_CC_USAGE = (
    "usage: python -m aiocann cc [-c] [-I DIR]... [-D NAME[=VAL]]... [-O0..3] [-std=STD] "
    "[--npu-arch=dav-NNNN] SRC... -o OUT"
)


CC_HELP = f"""{_CC_USAGE}

Compile Ascend C kernel sources (bisheng's role, for the simulator).

  SRC... -o OUT       a kernel binary (aclrtBinaryLoadFromFile / FromData, kernels by name);
                      an executable linked against the simulator if SRC has a host main (.asc)
  -c SRC... -o OUT    a host object: SRC's host code with the kernel binary embedded, each
                      <<<>>> launch going through the runtime (link with -lascendcl)
  -I DIR, -D NAME[=VAL], -O0..3, -std=STD   as a C++ compiler takes them
  --npu-arch=dav-NNNN __NPU_ARCH__ (default: the simulated chip's, AIOCANN_SIM_SOC_NAME)

Several C++ sources are each their own translation unit, their kernels in one binary.
Exit status 0 on success, 1 on a compile error (printed as file:line: error: ...), 2 on a usage error."""


class _UsageError(ValueError):
    pass


@dataclass
class _CcArgs:
    sources: list[str] = field(default_factory=list)
    output: str | None = None
    host_object: bool = False
    options: Options = field(default_factory=Options)
    lowered_names: str | None = None
    display: str | None = None
    kernel_only: bool = False  # aclrtc: a kernel binary even when the program has a main


def _parse_cc(argv: Sequence[str]) -> _CcArgs:
    a = _CcArgs()
    it = iter(argv)
    for arg in it:

        def value(flag: str, arg: str = arg) -> str:
            if arg != flag:
                return arg[len(flag) :].lstrip("=") if flag.startswith("--") else arg[len(flag) :]
            try:
                return next(it)
            except StopIteration:
                raise _UsageError(f"{flag} needs a value") from None

        if arg == "":
            continue  # what a build system's empty option list expands to
        if arg == "-o":
            a.output = value("-o")
        elif arg == "-c":
            a.host_object = True
        elif arg.startswith("-I"):
            a.options.include_dirs.append(os.path.abspath(value("-I")))  # the compiler runs elsewhere
        elif arg.startswith("-D"):
            a.options.defines.append(value("-D"))
        elif re.fullmatch(r"-O[0-3s]?", arg):
            a.options.optimize = arg
        elif arg.startswith("-std="):
            a.options.std = arg
        elif arg.startswith("--npu-arch"):
            try:
                a.options.npu_arch = _npu_arch(value("--npu-arch"))
            except KernelBuildError as exc:
                raise _UsageError(str(exc)) from None
        elif arg.startswith("--name-expr"):  # aclrtcAddNameExpr (native/sim/rtc.c)
            a.options.name_expressions.append(value("--name-expr"))
        elif arg.startswith("--lowered-names"):
            a.lowered_names = value("--lowered-names")
        elif arg == "--kernel-binary":
            a.kernel_only = True
        elif arg.startswith("--source-name"):  # the program name aclrtcCreateProg was given
            a.display = value("--source-name")
        elif arg in ("-g", "-w") or re.match(r"-(W|f|m)[\w+=,.-]+$", arg):
            a.options.extra.append(arg)  # warning, code-generation and debug flags: the host compiler's
        elif arg.startswith("-") and arg != "-":
            raise _UsageError(f"unknown option {arg!r}")
        else:
            a.sources.append(arg)
    if not a.sources:
        raise _UsageError("no source file given")
    if a.output is None:
        raise _UsageError("no output given (-o OUT)")
    return a


def cc(argv: Sequence[str]) -> int:
    """``python -m aiocann cc``: the kernel compiler on the command line.

    Without ``-c``, ``OUT`` is a kernel binary (for ``aclrtBinaryLoadFromFile``/``FromData``),
    or, when the sources define a host ``main`` (an ``.asc`` file), an executable linked
    against the simulator. With ``-c``, ``OUT`` is a host object: the sources' host code with
    the kernel binary embedded and every ``<<<>>>`` launch going through the runtime (link it
    with the runtime library, ``-lascendcl``). Several C++ sources are each their own
    translation unit, their kernels in one binary. Exit status 0 on success, 1 on a compile
    error (printed as ``file:line: error: ...``), 2 on a usage error.
    """
    try:
        args = _parse_cc(argv)
    except _UsageError as exc:
        print(f"{_CC_USAGE}\naiocann cc: error: {exc}", file=sys.stderr)
        return 2
    try:
        return _cc(args)
    except FileNotFoundError as exc:
        print(f"aiocann cc: error: {exc}", file=sys.stderr)
        return 1
    except KernelBuildError as exc:
        print(exc.output.rstrip() if exc.output else f"aiocann cc: error: {exc}", file=sys.stderr)
        return 1


def _cc(args: _CcArgs) -> int:
    paths = [Path(s) for s in args.sources]
    texts = [p.read_text() for p in paths]
    language = _language(paths[0], texts[0], None)
    if language == "c++":
        sources = [_Source(t, p, args.display) for p, t in zip(paths, texts, strict=True)]
    else:  # plain C: one translation unit, each file's lines still its own
        text = "".join(f'#line 1 "{p}"\n{t}\n' for p, t in zip(paths, texts, strict=True))
        sources = [_Source(text, paths[0], args.display or str(paths[0]))]
    built = _build(sources, language=language, options=args.options, cache_dir=None)
    out = Path(args.output)  # type: ignore[arg-type]
    if args.lowered_names is not None:
        Path(args.lowered_names).write_text("".join(built.lowered[e] + "\n" for e in args.options.name_expressions))
    if not args.host_object and (args.kernel_only or not built.has_main):
        _copy(built.binary, out)
        return 0
    work = Path(tempfile.mkdtemp(prefix=".host-", dir=built.binary.parent))
    try:
        # Each source's host code with the one kernel binary embedded, the <<<>>> launches of
        # each finding its kernels there.
        objects = []
        for i, src in enumerate(sources):
            unit = src.unit(language, args.options, work / f"unit{i}")
            unit.scout()
            objects.append(work / f"host{i}.o")
            unit.host_object(objects[-1], built.binary)
        if args.host_object:
            obj = objects[0]
            if len(objects) > 1:  # one relocatable object, as -c -o promises
                obj = work / "host.o"
                run_compiler = compiler(language) + ["-r", "-o", str(obj), *map(str, objects)]
                _run(run_compiler, "combining the host objects", work)
            _copy(obj, out)
        else:
            exe = work / "a.out"
            unit.executable(exe, objects, library_path())
            _copy(exe, out)
            out.chmod(0o755)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _copy(src: Path, dst: Path) -> None:
    tmp = dst.with_name(f".{dst.name}.tmp{os.getpid()}")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


# --------------------------------------------------------------------------- aclrtc


@dataclass(frozen=True)
class CompiledProgram:
    """A kernel source compiled by :func:`compile_program`: the kernel ``binary`` (load it with
    ``await dev.load_binary_data(program.binary)``), the compiler's ``log``, and the mangled
    name of each name expression (``lowered_names["&add<float>"]``)."""

    binary: bytes
    log: str
    lowered_names: dict[str, str]


_RTC_COMPILATION = 176003


def compile_program(
    source: str,
    *,
    name: str = "default_program",
    options: Sequence[str] = (),
    name_expressions: Sequence[str] = (),
) -> CompiledProgram:
    """Compile a kernel source through the runtime's aclrtc (``aclrtcCreateProg``,
    ``aclrtcAddNameExpr``, ``aclrtcCompileProg``, ``aclrtcGetBinData``, ...): bisheng on a CANN
    install, aiocann's own front-end (``python -m aiocann cc`` in a child process) on the
    simulator -- the same call either way.

    ``name`` is the program's file name in diagnostics, ``options`` compiler options (``-I``,
    ``-D``, ``-O2``, ``--npu-arch=dav-2201``), ``name_expressions`` expressions such as
    ``"&ns::kernel<float>"`` whose mangled names the result carries. It blocks while the
    compiler runs (seconds): from async code, call it through ``anyio.to_thread.run_sync``.

    :raises KernelBuildError: the source does not compile; ``output`` is the compile log.
    :raises AclError: aclrtc refused the program or an option (e.g. ACL_ERROR_RTC_INVALID_OPTION,
        176002), or is not available (ACL_ERROR_API_NOT_SUPPORT).
    """
    from ._lib import check, ffi, lib

    prog = ffi.new("aclrtcProg *")
    check(lib.aclrtcCreateProg(prog, source.encode(), name.encode(), 0, ffi.NULL, ffi.NULL), "aclrtcCreateProg")
    try:
        for expr in name_expressions:
            check(lib.aclrtcAddNameExpr(prog[0], expr.encode()), "aclrtcAddNameExpr")
        keep = [ffi.new("char[]", o.encode()) for o in options]
        argv = ffi.new("const char *[]", keep) if keep else ffi.NULL
        rc = lib.aclrtcCompileProg(prog[0], len(keep), argv)
        size = ffi.new("size_t *")
        check(lib.aclrtcGetCompileLogSize(prog[0], size), "aclrtcGetCompileLogSize")
        buf = ffi.new("char[]", max(int(size[0]), 1))
        check(lib.aclrtcGetCompileLog(prog[0], buf), "aclrtcGetCompileLog")
        log = ffi.string(buf).decode(errors="replace")
        if rc == _RTC_COMPILATION:
            raise KernelBuildError(f"aclrtcCompileProg failed to compile {name}", output=log)
        check(rc, "aclrtcCompileProg")
        check(lib.aclrtcGetBinDataSize(prog[0], size), "aclrtcGetBinDataSize")
        data = ffi.new("char[]", int(size[0]))
        check(lib.aclrtcGetBinData(prog[0], data), "aclrtcGetBinData")
        lowered = {}
        out = ffi.new("const char **")
        for expr in name_expressions:
            check(lib.aclrtcGetLoweredName(prog[0], expr.encode(), out), "aclrtcGetLoweredName")
            lowered[expr] = ffi.string(out[0]).decode()
        return CompiledProgram(bytes(ffi.buffer(data, int(size[0]))), log, lowered)
    finally:
        lib.aclrtcDestroyProg(prog)
