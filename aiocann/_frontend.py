"""The kernel compiler front-end: bisheng's role for the simulator, written once.

``build_kernel`` (aiocann.compiler), ``python -m aiocann cc``, the toolkit's ascendc.cmake (which
runs ``cc``) and ``aclrtcCompileProg`` in the simulator (which runs ``cc`` as a child process)
all come here. A :class:`Unit` is one Ascend C translation unit on its way through:

1. **rewrite** the source text, keeping every line where it was (so the compiler's messages
   name the source's own file and line, through a ``#line`` directive): a
   ``kernel<<<blocks, l2ctrl, stream>>>(args)`` call becomes ``aclsim_launch(&kernel, blocks,
   l2ctrl, stream, args)`` (aclsim_frontend.h), ``asm("trap")`` becomes the kernel header's
   ``trap()`` (g++ on x86 cannot assemble the device instruction);
2. **scout**: compile once to an object with ``__global__`` marking kernels with protected
   visibility, and read the kernels from its symbol table -- mangled names for C++ linkage,
   every template instantiation the source makes, the lowered name of each name expression
   (from a relocation), and whether the file has a host ``main``;
3. **kernel binary**: compile again as a shared object with the entry stub appended: one line
   per kernel naming its address (demangled back into a C++ expression), from which
   aclsim_entry.h deduces the parameter pack, the sizes, the kinds and the unpacking entry;
4. for ``cc -c`` and an ``.asc`` executable, a **host object**: the same source compiled for
   the host with the kernel binary embedded and each ``<<<>>>`` launch going through the
   runtime (aclsim_host.h); linked against the simulator for an executable.

Plain C kernels (``.c``) keep the older path: no C++ to deduce from, so their signatures are
parsed (aiocann.compiler.kernel_signatures) and the stub is generated in C. Both paths embed
the same two records in the binary (``.aclsim.meta``: names and parameter names;
``.aclsim.sig``: sizes and kinds), which ``read_signatures`` reads back.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from ._elf import STB_LOCAL, STT_FUNC, STV_PROTECTED, ElfError, ElfFile

__all__ = ["Found", "KernelBuildError", "Options", "Unit", "demangle", "rewrite"]


class KernelBuildError(RuntimeError):
    """A kernel failed to build: ``output`` holds the compiler's diagnostics (naming the
    source's own file and line), ``command`` what ran."""

    __module__ = "aiocann.compiler"  # its public home (defined here, below aiocann.compiler)

    def __init__(self, message: str, *, output: str = "", command: list[str] | None = None) -> None:
        super().__init__(message if not output else f"{message}\n{output.rstrip()}")
        self.output = output
        self.command = command or []


@dataclass
class Options:
    """What a compile of one unit is given: the compiler-driver options of ``cc``."""

    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)  # NAME or NAME=VALUE
    optimize: str = "-O3"
    std: str | None = None
    npu_arch: int | None = None  # __NPU_ARCH__; None: the simulated chip's
    extra: list[str] = field(default_factory=list)  # other flags, passed through
    name_expressions: list[str] = field(default_factory=list)  # aclrtcAddNameExpr

    def flags(self) -> list[str]:
        out = [f"-I{d}" for d in self.include_dirs] + [f"-D{d}" for d in self.defines]
        return out + [self.optimize] + self.extra


# --------------------------------------------------------------------------- rewriting

_TOKENS = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|<<<", re.S)
_TRAP = re.compile(r"\b(?:asm|__asm__|__asm)\s*(?:(?:volatile|__volatile__)\s*)?\(\s*\"trap\"\s*\)")
_IDENT_CHARS = re.compile(r"[A-Za-z0-9_:]")


class RewriteError(ValueError):
    """A ``<<<>>>`` launch the front-end cannot take apart; ``line`` is where it starts."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def rewrite(text: str, *, cplusplus: bool) -> str:
    """The source with its device-only syntax rewritten for the host compiler, every line kept
    in place. Comments and string literals are left alone."""
    text = _rewrite_trap(text)
    return _rewrite_launches(text) if cplusplus else text


def _code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the comments and literals, which no rewrite may touch."""
    return [m.span() for m in _TOKENS.finditer(text) if m.group() != "<<<"]


def _rewrite_trap(text: str) -> str:
    spans = _code_spans(text)

    def keep(m: re.Match[str]) -> str:
        inside = any(a <= m.start() < b for a, b in spans)
        return m.group() if inside else "trap()"

    return _TRAP.sub(keep, text)


def _rewrite_launches(text: str) -> str:
    out: list[str] = []
    pos = 0
    while True:
        m = _find_launch(text, pos)
        if m is None:
            out.append(text[pos:])
            return "".join(out)
        start, callee, config, gap, args, end = _parse_launch(text, m)
        parts = _split_top(config)
        if len(parts) != 3 or not all(p.strip() for p in parts):
            raise RewriteError(
                f"a <<<>>> launch takes three values (blocks, l2ctrl, stream), this one has {len(parts)}",
                text.count("\n", 0, m) + 1,
            )
        # Every newline of the original stays (in the values, the arguments, between them), so
        # the lines after the launch keep their numbers.
        call = f"aclsim_launch(&{callee},{','.join(parts)}" + "\n" * gap.count("\n")
        call += f", {args})" if args.strip() else f"{args})"
        out.append(text[pos:start])
        out.append(call)
        pos = end


def _find_launch(text: str, pos: int) -> int | None:
    for m in _TOKENS.finditer(text, pos):
        if m.group() == "<<<":
            return m.start()
    return None


def _parse_launch(text: str, at: int) -> tuple[int, str, str, str, str, int]:
    """Takes ``callee<<<config>>>(args)`` apart around the ``<<<`` at ``at``."""
    line = text.count("\n", 0, at) + 1
    # The callee: a (qualified) name, with template arguments, just before <<<.
    i = at
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    end_callee = i
    if i > 0 and text[i - 1] == ">":
        depth = 0
        while i > 0:
            c = text[i - 1]
            depth += {">": 1, "<": -1}.get(c, 0)
            i -= 1
            if depth == 0:
                break
    while i > 0 and _IDENT_CHARS.match(text[i - 1]):
        i -= 1
    callee = text[i:end_callee].strip()
    if not callee or not re.match(r"[A-Za-z_:]", callee):
        raise RewriteError("a <<<>>> launch needs the kernel's name before '<<<'", line)
    # The configuration, up to the >>> that closes it (parentheses may nest inside).
    j = at + 3
    depth = 0
    while j < len(text):
        if depth == 0 and text.startswith(">>>", j):
            break
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        j += 1
    else:
        raise RewriteError("a <<<>>> launch has no closing '>>>'", line)
    config = text[at + 3 : j]
    k = j + 3
    while k < len(text) and text[k] in " \t\n":
        k += 1
    if k >= len(text) or text[k] != "(":
        raise RewriteError(f"the <<<>>> launch of {callee} has no argument list after '>>>'", line)
    depth, m = 0, k
    while m < len(text):
        depth += {"(": 1, ")": -1}.get(text[m], 0)
        m += 1
        if depth == 0:
            break
    else:
        raise RewriteError(f"the argument list of the <<<>>> launch of {callee} is not closed", line)
    return i, callee, config, text[j + 3 : k], text[k + 1 : m - 1], m


def _split_top(text: str) -> list[str]:
    """Split on the commas outside parentheses, brackets and braces."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts if any(p.strip() for p in parts) else []


# --------------------------------------------------------------------------- demangling

_cxa_demangle = None


def demangle(name: str) -> str:
    """The C++ name of a mangled symbol (``_ZN2ns1kIfEEvPT_`` -> ``void ns::k<float>(float*)``
    without the return type), or ``name`` itself for a C name. Uses the C++ runtime's own
    demangler, ``abi::__cxa_demangle`` from libstdc++."""
    global _cxa_demangle
    if not name.startswith("_Z"):
        return name
    if _cxa_demangle is None:
        lib = ctypes.CDLL(ctypes.util.find_library("stdc++") or "libstdc++.so.6")
        fn = lib["__cxa_demangle"]  # by name: the attribute form would be name-mangled
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        _cxa_demangle = fn
    status = ctypes.c_int()
    ptr = _cxa_demangle(name.encode(), None, None, ctypes.byref(status))
    if status.value != 0 or not ptr:
        return name
    try:
        return ctypes.string_at(ptr).decode()
    finally:
        libc = ctypes.CDLL(None)
        libc.free.argtypes = [ctypes.c_void_p]
        libc.free(ptr)


def _split_demangled(text: str) -> tuple[str, str]:
    """``ns::k<float>(float*, int)`` -> (``ns::k<float>``, ``float*, int``)."""
    if not text.endswith(")"):
        return text, ""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth == 0:
            return text[:i], text[i + 1 : -1]
    return text, ""


@dataclass(frozen=True)
class Found:
    """A kernel the scouting compile found."""

    name: str  # the symbol: the name aclrtBinaryGetFunction takes
    qualified: str  # the C++ name without the parameters (== name for extern "C")
    params: str  # the demangled parameter types, "" for extern "C"

    @property
    def base(self) -> str:
        """The unqualified name without template arguments: ``k`` for ``ns::k<float>``."""
        q = self.qualified
        if q.endswith(">"):
            depth = 0
            for i in range(len(q) - 1, -1, -1):
                depth += {">": 1, "<": -1}.get(q[i], 0)
                if depth == 0:
                    q = q[:i]
                    break
        return q.rsplit("::", 1)[-1]

    def expression(self, overloaded: bool) -> str:
        """A C++ expression for the kernel's address, valid at the end of the translation unit."""
        qualified = self.qualified.replace("(anonymous namespace)::", "")
        if not self.name.startswith("_Z"):
            return f"&{self.name}"
        if overloaded:
            return f"static_cast<void (*)({self.params})>(&{qualified})"
        return f"&{qualified}"


def _found(symbol: str) -> Found:
    if not symbol.startswith("_Z"):
        return Found(symbol, symbol, "")
    qualified, params = _split_demangled(demangle(symbol))
    if qualified.startswith("void "):  # a template's demangled name carries its return type
        qualified = qualified[5:]
    return Found(symbol, qualified, "" if params == "void" else params)


# --------------------------------------------------------------------------- compiling


_STACK_PROBES: dict[tuple[str, ...], bool] = {}


def stack_probe_flags(cc: list[str]) -> list[str]:
    """``-fstack-clash-protection`` where the compiler takes it (GCC 8, Clang 11 and later).

    A kernel's blocks run on the simulator's threads, each with a 1 MB stack and one guard page
    below it. A frame larger than what is left -- a big local array -- would otherwise move the
    stack pointer past the guard page in one step, and its writes would land in whatever memory
    lies below (another thread's stack, the heap) instead of faulting: silent corruption and a
    crash later, far from the kernel. With the probes every page of a new frame is touched in
    order, so the guard page faults, and the fault is the kernel's own (507015, contained like
    any other). Probed once per compiler and process."""
    key = tuple(cc)
    if key not in _STACK_PROBES:
        try:
            probe = subprocess.run(
                [*cc, "-fstack-clash-protection", "-Werror", "-x", "c", "-c", "-o", os.devnull, "-"],
                input="int aclsim_probe;\n",
                capture_output=True,
                text=True,
                timeout=120,
            )
            _STACK_PROBES[key] = probe.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _STACK_PROBES[key] = False
    return ["-fstack-clash-protection"] if _STACK_PROBES[key] else []


def compiler(language: str) -> list[str]:
    """The host compiler: $CXX / $CC, else c++ / the interpreter's cc, else g++ / gcc."""
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


def _quote(path: str) -> str:
    return path.replace("\\", "\\\\").replace('"', '\\"')


def run(cmd: list[str], what: str, cwd: Path) -> None:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    except OSError as exc:
        raise KernelBuildError(f"cannot run the compiler {cmd[0]!r}: {exc}", command=cmd) from exc
    if proc.returncode != 0:
        raise KernelBuildError(
            f"{what} failed, compiler exit code {proc.returncode}", output=proc.stderr + proc.stdout, command=cmd
        )


class Unit:
    """One translation unit through the front-end (see the module docstring).

    ``text`` is the source, ``display`` the file name its diagnostics carry (the source's own
    path, or the name given to aclrtc), ``source_dir`` where its relative ``#include``s are
    found, ``workdir`` where the generated files go."""

    def __init__(
        self,
        text: str,
        *,
        display: str,
        source_dir: Path | None,
        language: str,
        options: Options,
        include_dir: Path,
        workdir: Path,
    ) -> None:
        self.text = text
        self.display = display
        self.source_dir = source_dir
        self.language = language
        self.options = options
        self.include_dir = include_dir
        self.workdir = workdir
        self.cc = compiler(language)
        try:
            self.rewritten = rewrite(text, cplusplus=language == "c++")
        except RewriteError as exc:
            raise KernelBuildError(
                f"{display}:{exc.line}: error: {exc}", output=f"{display}:{exc.line}: error: {exc}"
            ) from exc
        self.kernels: list[Found] = []
        self.lowered: dict[str, str] = {}  # name expression -> the symbol it denotes
        self.has_main = False

    # -- the pieces of the generated translation units

    def _std(self) -> str:
        if self.options.std:
            return self.options.std
        return "-std=gnu++17" if self.language == "c++" else "-std=gnu11"

    def base_flags(self, mode: str) -> list[str]:
        flags = [self._std(), "-fPIC", "-Wall", "-fno-show-column", *stack_probe_flags(self.cc)]
        flags.append(f"-DACLSIM_FRONTEND_{mode}")
        if self.source_dir is not None:
            flags.append(f"-iquote{self.source_dir}")  # the source's own "..." includes
        flags += self.options.flags()
        flags += [f"-I{self.include_dir}", "-include", "kernel_operator.h", "-include", "aclsim_frontend.h"]
        if self.options.npu_arch is not None:
            flags.append(f"-D__NPU_ARCH__={self.options.npu_arch}")
        return flags

    def _source_part(self) -> str:
        return f'#line 1 "{_quote(self.display)}"\n{self.rewritten}\n'

    def _name_expressions(self) -> str:
        if not self.options.name_expressions:
            return ""
        lines = ['#line 1 "<aclrtc name expressions>"']
        for i, expr in enumerate(self.options.name_expressions):
            lines.append(
                f'__attribute__((section(".aclsim.names"), used)) static const void *const aclsim_name_expr_{i} = '
                f"(const void *)({expr});"
            )
        return "\n".join(lines) + "\n"

    def _write(self, name: str, text: str) -> Path:
        path = self.workdir / name
        path.write_text(text)
        return path

    # -- 2. scouting

    def scout(self) -> None:
        """Finds the kernels, the lowered names and a host main (C++ only)."""
        src = self._write("scout.cpp", self._source_part() + self._name_expressions())
        obj = self.workdir / "scout.o"
        # -O0 (the last -O wins): every kernel and instantiation is emitted, none inlined away.
        cmd = self.cc + self.base_flags("DISCOVER") + ["-O0", "-fno-inline", "-c", "-o", str(obj), str(src)]
        run(cmd, f"compiling {self.display}", self.workdir)
        try:
            elf = ElfFile.read(obj)
        except ElfError as exc:
            raise KernelBuildError(f"the compiler's object for {self.display} is unreadable: {exc}") from exc
        names = []
        for s in elf.symbols:
            if s.type == STT_FUNC and s.section != 0 and s.bind != STB_LOCAL:
                if s.visibility == STV_PROTECTED and s.name not in names:
                    names.append(s.name)
                if s.name == "main":
                    self.has_main = True
        self.kernels = [_found(n) for n in names]
        # Each name expression's pointer, aclsim_name_expr_<i>, is relocated against the
        # symbol the expression denotes; found by its own symbol's offset, whatever order the
        # compiler laid the pointers out in.
        relocs = dict(elf.relocated_symbols(".aclsim.names"))
        names_section = elf.section_index(".aclsim.names")
        offsets = {}
        for s in elf.symbols:
            m = re.search(r"aclsim_name_expr_(\d+)$", s.name)
            if m and s.section == names_section:
                offsets[int(m.group(1))] = s.value
        for i, expr in enumerate(self.options.name_expressions):
            sym = relocs.get(offsets.get(i, -1))
            if sym is None:
                raise KernelBuildError(f"name expression {expr!r} does not denote a function or variable")
            self.lowered[expr] = sym

    # -- 3. the kernel binary

    def _references(self) -> list[str]:
        bases: dict[str, int] = {}
        for k in self.kernels:
            bases[k.qualified] = bases.get(k.qualified, 0) + 1
        return [k.expression(bases[k.qualified] > 1) for k in self.kernels]

    def metadata(self, param_names: dict[str, list[list[str]]]) -> list[dict[str, object]]:
        """What the binary records of this unit's kernels (``.aclsim.meta``): each one's name,
        C++ name and parameter names (from the source, matched by name and count)."""
        kernels: list[dict[str, object]] = []
        for k in self.kernels:
            count = len(_split_params(k.params)) if k.params else None
            names = None
            for candidate in param_names.get(k.base, []):
                if count is None or len(candidate) == count:
                    names = candidate
                    break
            kernels.append({"name": k.name, "plain": k.qualified, "params": names})
        return kernels

    def cpp_entries(self, base: int) -> str:
        """This unit's part of the entry stub: for kernel ``j``, number ``base + j`` in the binary,
        its signature record and its descriptor ``aclsim_desc_<n>``, which the table unit
        (:func:`cpp_table`) gathers -- each translation unit compiles on its own, as it would
        for the device."""
        out = ['#line 1 "<aiocann entry stub>"', '#include "aclsim_entry.h"']
        for j, (k, ref) in enumerate(zip(self.kernels, self._references(), strict=True)):
            n = base + j
            out.append(f"using aclsim_sig_{n} = aclsim_entry_detail::signature<decltype({ref})>;")
            out.append(
                f'__attribute__((section(".aclsim.sig"), used, retain)) static constexpr aclsim_sigrec '
                f"aclsim_sigrec_{n} = aclsim_sig_{n}::record({n});"
            )
            out.append(f'extern "C" __attribute__((visibility("hidden"))) const aclsim_kernel_desc aclsim_desc_{n};')
            out.append(
                f'const aclsim_kernel_desc aclsim_desc_{n} = {{"{k.name}", &aclsim_sig_{n}::entry<{ref}>, '
                f"aclsim_sig_{n}::count, aclsim_sig_{n}::sizes, aclsim_sig_{n}::kinds}};"
            )
        return "\n".join(out) + "\n"

    def kernel_object(self, out: Path, stub: str) -> list[str]:
        """Compiles this unit with its entries (:meth:`cpp_entries`) to the object ``out``."""
        src = self._write("entry.cpp", self._source_part() + self._name_expressions() + stub)
        cmd = (
            self.cc
            + self.base_flags("KERNEL")
            + [
                "-c",
                "-fvisibility=hidden",
                "-ffunction-sections",
                "-fdata-sections",
                "-MMD",  # the headers it read, for the cache (dependencies())
                "-MF",
                str(self.workdir / "deps.d"),
                "-o",
                str(out),
                str(src),
            ]
        )
        run(cmd, f"building the kernel binary of {self.display}", self.workdir)
        return cmd

    def kernel_binary(self, out: Path, stub: str) -> list[str]:
        """Compiles a plain C unit and its stub straight into the kernel binary ``out``."""
        src = self._write("entry.c", self._source_part() + stub)
        cmd = (
            self.cc
            + self.base_flags("KERNEL")
            + [
                "-shared",
                "-fvisibility=hidden",
                "-ffunction-sections",
                "-fdata-sections",
                "-Wl,--gc-sections",
                "-MMD",  # the headers it read, for the cache (dependencies())
                "-MF",
                str(self.workdir / "deps.d"),
                "-o",
                str(out),
                str(src),
            ]
        )
        run(cmd, f"building the kernel binary of {self.display}", self.workdir)
        return cmd

    def dependencies(self) -> list[str]:
        """The files the kernel binary's compile read besides the generated source, the system
        headers and aiocann's own headers (those are in the cache key already): the source's
        own headers, whose changes must rebuild it."""
        try:
            text = (self.workdir / "deps.d").read_text()
        except OSError:
            return []
        _, _, files = text.replace("\\\n", " ").partition(":")
        inc = str(self.include_dir)
        out = []
        for f in files.split():
            path = os.path.abspath(os.path.join(self.workdir, f))
            if not path.startswith(inc + os.sep) and not path.startswith(str(self.workdir) + os.sep):
                out.append(path)
        return sorted(set(out))

    # -- 4. the host object and the executable

    def host_object(self, out: Path, binary: Path) -> None:
        if self.language != "c++":
            raise KernelBuildError(f"{self.display}: a host object is built from C++ (an Ascend C .cpp or .asc file)")
        digest = re.sub(r"\W", "_", binary.parent.name)[:24] or "bin"
        label = f"aclsim_bin_{digest}"
        refs = self._references()
        table = ",\n".join(
            f'    {{(const void *)({ref}), "{k.name}"}}' for k, ref in zip(self.kernels, refs, strict=True)
        )
        epilogue = "\n".join(
            [
                '#line 1 "<aiocann host epilogue>"',
                *_COMMON_DEFINITIONS_WEAK,
                "struct aclsim_host_kernel_ref { const void *address; const char *name; };",
                f"static const aclsim_host_kernel_ref aclsim_host_kernels[] = {{\n{table}\n}};",
                f'extern "C" const unsigned char {label}[] __attribute__((visibility("hidden")));',
                f'extern "C" const unsigned char {label}_end[] __attribute__((visibility("hidden")));',
                f'__asm__(".pushsection .rodata.{label},\\"a\\",@progbits\\n.balign 64\\n.local {label}\\n{label}:\\n'
                f'.incbin \\"{_quote(_quote(str(binary)))}\\"\\n.local {label}_end\\n{label}_end:\\n.popsection\\n");',
                f"#define ACLSIM_EMBEDDED_BEGIN {label}",
                f"#define ACLSIM_EMBEDDED_END {label}_end",
                '#include "aclsim_host.h"',
            ]
        )
        src = self._write("host.cpp", self._source_part() + epilogue + "\n")
        cmd = self.cc + self.base_flags("HOST") + ["-c", "-o", str(out), str(src)]
        run(cmd, f"building the host object of {self.display}", self.workdir)

    def executable(self, out: Path, host_objects: list[Path], library: Path) -> None:
        libdir = str(library.parent)
        cmd = self.cc + [*map(str, host_objects), "-o", str(out), f"-L{libdir}", f"-l:{library.name}"]
        cmd.append(f"-Wl,-rpath,{libdir}")
        cmd += ["-lpthread"]
        run(cmd, f"linking {out.name}", self.workdir)


def cpp_table(count: int, meta: str) -> str:
    """The table unit of a C++ kernel binary: the descriptors of the ``count`` kernels the
    units defined (``aclsim_desc_<n>``, copied in at load: static initialisation of the
    binary, before the simulator reads the table), the records of aclsim_kernel.h, the
    metadata, and the block context every kernel binary defines."""
    out = ['#line 1 "<aiocann kernel table>"', *_COMMON_DEFINITIONS, _meta_line(meta)]
    out.append("const uint32_t aclsim_kernel_abi = ACLSIM_KERNEL_ABI_VERSION;")
    for n in range(count):
        out.append(f'extern "C" __attribute__((visibility("hidden"))) const aclsim_kernel_desc aclsim_desc_{n};')
    out.append("const aclsim_kernel_desc aclsim_kernels[] = {")
    out += [f"    aclsim_desc_{n}," for n in range(count)]
    out.append("    {0, 0, 0, 0, 0},")
    out.append("};")
    return "\n".join(out) + "\n"


def link_kernel_binary(units: list[Unit], objects: list[Path], table: Path, out: Path) -> None:
    """Links the units' objects and the table unit into the kernel binary ``out``."""
    first = units[0]
    obj = first.workdir.parent / "table.o"
    cmd = first.cc + first.base_flags("KERNEL") + ["-c", "-o", str(obj), str(table)]
    run(cmd, "building the kernel table", first.workdir.parent)
    cmd = first.cc + ["-shared", "-fPIC", "-Wl,--gc-sections", "-o", str(out), *map(str, objects), str(obj)]
    run(cmd, "linking the kernel binary", first.workdir.parent)


def _split_params(params: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(params):
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(params[start:i])
            start = i + 1
    parts.append(params[start:])
    return [p.strip() for p in parts if p.strip()]


def _meta_line(meta: str) -> str:
    return (
        '__attribute__((section(".aclsim.meta"), used, retain)) static const char aclsim_meta[] = '
        + json.dumps(meta)  # a JSON string is a valid C string literal for ASCII text
        + ";"
    )


# What every kernel binary defines: the block context the entry sets and the block status
# (aclsim_kernel.h, kernel_operator.h). A host object compiles the kernels too (as host code
# that never runs): it defines them weak, so several host objects link together.
_COMMON_DEFINITIONS = [
    "#include <stdio.h>",
    '#ifdef __cplusplus\nextern "C" {\n#define ACLSIM_NOTHROW noexcept\n#else\n#define ACLSIM_NOTHROW\n#endif',
    "__thread int64_t aclsim_block_idx;",
    "__thread int64_t aclsim_block_num;",
    "__thread uint32_t aclsim_block_status;",
    "uint32_t aclsim_kernel_take_status(void)",
    "{",
    "    uint32_t s = aclsim_block_status;",
    "    aclsim_block_status = 0;",
    "    return s;",
    "}",
    # The kernel's own assert() and abort() end its block as an AI-core exception, as a trap
    # does on the device, instead of raising SIGABRT in the host process (which would end it:
    # abort() from inside libc -- a corrupted heap -- is not caught, the heap's locks may be
    # held). Hidden definitions: the binary's calls bind to them, the host keeps libc's. Hidden
    # by the assembler's .hidden: a visibility attribute is ignored once a system header has
    # declared the function (<cstdlib> has, in a C++ unit), and a default-visibility definition
    # loses to libc's in the binary's own calls.
    "#ifdef __GLIBC__",
    '__asm__(".hidden __assert_fail\\n.hidden abort");',
    "__attribute__((noreturn)) void __assert_fail(const char *expr, const char *file, unsigned int line,",
    "                                             const char *func) ACLSIM_NOTHROW",
    "{",
    "    char what[320];",
    '    snprintf(what, sizeof what, "assert: %s:%u: %s: Assertion `%s\' failed", file, line, func, expr);',
    "    aclsim_kernel_fail(what);",
    "}",
    "__attribute__((noreturn)) void abort(void) ACLSIM_NOTHROW",
    "{",
    '    aclsim_kernel_fail("abort: the kernel called abort()");',
    "}",
    "#endif",
    "#ifdef __cplusplus\n}\n#endif",
]
_COMMON_DEFINITIONS_WEAK = [
    'extern "C" {',
    "__attribute__((weak)) __thread int64_t aclsim_block_idx;",
    "__attribute__((weak)) __thread int64_t aclsim_block_num;",
    "__attribute__((weak)) __thread uint32_t aclsim_block_status;",
    "}",
]


# --------------------------------------------------------------------------- parameter names

_GLOBAL_DEF = re.compile(r"\b__global__\b[^;{}()]*?\b([A-Za-z_]\w*)\s*\(")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRINGS = re.compile(r'"(?:\\.|[^"\\\n])*"')


def parameter_names(text: str) -> dict[str, list[list[str]]]:
    """The parameter names of each ``__global__`` function defined in ``text``, by its base
    name (one list per definition). Only names: the types come from the compiler. Lenient --
    a parameter without a name gets ``argN``."""
    code = _STRINGS.sub('""', _COMMENTS.sub(" ", text))
    found: dict[str, list[list[str]]] = {}
    for m in _GLOBAL_DEF.finditer(code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        if not code[i:].lstrip().startswith("{"):
            continue
        params = code[m.end() : i - 1].strip()
        parts = [] if params in ("", "void") else _split_params(params)
        names = []
        for k, p in enumerate(parts):
            ident = re.search(r"([A-Za-z_]\w*)\s*(?:=.*)?$", p)
            words = p.split()
            name = ident.group(1) if ident and len(words) > 1 and not p.rstrip().endswith("*") else f"arg{k}"
            names.append(name)
        found.setdefault(m.group(1), []).append(names)
    return found
