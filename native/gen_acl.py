"""Writes what is generated from the description of the ACL functions (native/acl_functions.py).

    python native/gen_acl.py           rewrite every generated file or block that is stale
    python native/gen_acl.py --check   write nothing; exit 1, naming them, if any is stale

(Exit 2 when the description or a file's markers are inconsistent, saying what is wrong.)

As trio's gen_exports: the generated files are checked in (a reader, a review and the build
see them as they are), and tests/tools/test_generated.py runs --check, so a description
changed without regenerating -- or a generated file edited by hand -- fails the tests.

What it writes (each from the description alone, plus the ``typedef void *`` names of the
headers, which say which parameters are handles):

* native/include/acl/*.h, native/include/aclsim_ext.h: the prototypes, between each block's
  ``BEGIN GENERATED`` and ``END GENERATED`` markers (the types around them are hand-written);
* native/acl_table.h: the loader's function table and the macros that route calls through it
  (the loaded functions only: a header-only group's, ``loaded=False``, are declared and no more);
* native/acl_standins.h: the loader's stand-ins for optional functions a runtime lacks;
* aiocann/acl/rt.py: ``__all__`` and the wrappers of the two common shapes, between markers
  in the sections they belong to (every other line of rt.py is hand-written).

The output follows the hand-written style of the files it lands in: C wrapped at 120 columns
with continuation lines aligned after the opening parenthesis; Python as ``ruff format``
leaves it.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NATIVE = ROOT / "native"
INCLUDE = NATIVE / "include"
RT_PY = ROOT / "aiocann" / "acl" / "rt.py"
WIDTH = 120
NOTICE = "written by native/gen_acl.py from native/acl_functions.py"


def load_description() -> ModuleType:
    spec = importlib.util.spec_from_file_location("acl_functions", NATIVE / "acl_functions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["acl_functions"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- prototypes


@dataclass(frozen=True)
class Param:
    ctype: str  # as written: "const char *", "int32_t *const"; "..." for a variadic tail
    name: str  # "" for "..."
    declarator: str | None = None  # the whole declaration when the name sits inside it (a function pointer)

    @property
    def decl(self) -> str:
        if self.declarator is not None:
            return self.declarator
        if not self.name:
            return self.ctype
        sep = "" if self.ctype.endswith("*") else " "
        return f"{self.ctype}{sep}{self.name}"


@dataclass(frozen=True)
class Proto:
    ret: str
    name: str
    params: tuple[Param, ...]
    attrs: str = ""  # a trailing __attribute__((...)), as aclAppLog's printf format check

    @property
    def head(self) -> str:
        sep = "" if self.ret.endswith("*") else " "
        return f"{self.ret}{sep}{self.name}("

    @property
    def variadic(self) -> bool:
        return any(p.ctype == "..." for p in self.params)


_PROTO = re.compile(
    r"^(?P<ret>[\w\s*]+?)\s*\b(?P<name>\w+)\((?P<params>.*?)\)\s*(?P<attrs>__attribute__\s*\(\(.*\)\))?;$"
)
_FNPTR = re.compile(r"^[\w\s*]+\(\s*\*\s*(?:const\s+)?(?P<name>\w+)\s*\)\s*\(.*\)$")


def _split_params(body: str) -> list[str]:
    """The parameters of a prototype: split at the commas outside parentheses (a function
    pointer's own parameters stay in one piece)."""
    parts, depth, cur = [], 0, ""
    for ch in body:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def parse_proto(text: str) -> Proto:
    m = _PROTO.match(" ".join(text.split()))
    if not m:
        raise ValueError(f"not a prototype: {text!r}")
    params: list[Param] = []
    body = m["params"].strip()
    if body not in ("", "void"):
        parts = _split_params(body)
        for i, part in enumerate(parts):
            if part == "...":
                if i != len(parts) - 1 or i == 0:
                    raise ValueError(f"{m['name']}: '...' must follow a named parameter, last")
                params.append(Param("...", ""))
                continue
            fm = _FNPTR.match(part)
            if fm:
                params.append(Param("", fm["name"], part))
                continue
            pm = re.match(r"^(?P<type>.*?)\s*\b(?P<name>\w+)$", part)
            if not pm or not pm["type"]:
                raise ValueError(f"{m['name']}: a parameter without a name: {part!r}")
            params.append(Param(_spell(pm["type"]), pm["name"]))
    return Proto(_spell(m["ret"]), m["name"], tuple(params), m["attrs"] or "")


def _spell(ctype: str) -> str:
    """A C type as the headers spell it: ``char *``, ``void **``, ``int32_t *const``."""
    ctype = re.sub(r"\s*\*\s*", "*", " ".join(ctype.split()))
    ctype = re.sub(r"(?<=[\w])\*", " *", ctype)
    return ctype.replace("*const", "*const ").strip()


def _wrap_c(head: str, items: Sequence[str], tail: str, indent: str = "") -> list[str]:
    """``head item, item, ...tail``, packed greedily into WIDTH columns: continuation lines
    aligned after ``head`` (clang-format's BinPackParameters, AlignAfterOpenBracket), or, with
    no head (a statement), indented 4 more than the first line."""
    pad = " " * len(indent + head) if head else indent + "    "
    lines, cur, fresh = [], indent + head, True
    for i, item in enumerate(items):
        piece = item + (tail if i == len(items) - 1 else ",")
        if not fresh and len(cur) + 1 + len(piece) > WIDTH:
            lines.append(cur)
            cur = pad + piece
        else:
            cur += piece if fresh else " " + piece
        fresh = False
    lines.append(cur if items else cur + tail)
    return lines


def prototype_lines(proto: Proto, decl: str = "") -> list[str]:
    """The prototype as the header writes it: ``decl`` (its visibility macros) first, wrapped."""
    tail = ")" + (f" {proto.attrs}" if proto.attrs else "") + ";"
    return _wrap_c((f"{decl} " if decl else "") + proto.head, [p.decl for p in proto.params] or ["void"], tail)


# --------------------------------------------------------------------------- the description


@dataclass(frozen=True)
class Entry:
    fn: Any  # acl_functions.Fn
    group: Any  # acl_functions.Group
    proto: Proto


def entries(desc: ModuleType) -> list[Entry]:
    out, seen = [], set()
    for group in desc.GROUPS:
        if group.library not in ("acl", "rtc", "sim"):
            raise ValueError(f"group {group.title!r}: unknown library {group.library!r}")
        for fn in group.functions:
            proto = parse_proto(fn.proto)
            if proto.name in seen:
                raise ValueError(f"{proto.name} is described twice")
            seen.add(proto.name)
            if fn.required and (fn.missing is not None or group.library != "acl"):
                raise ValueError(f"{proto.name}: a required function has no stand-in (missing=) and is the runtime's")
            if not group.loaded:
                if fn.required or fn.missing is not None or fn.py is not None:
                    raise ValueError(
                        f"{proto.name} is declared in its header only (loaded=False): it has no place in"
                        " the loader's table (required=, missing=) nor in acl.rt (py=)"
                    )
            elif _decl(fn, group):
                raise ValueError(f"{proto.name}: a loaded function is in the cffi cdef, which knows no decl= macros")
            elif proto.variadic:
                raise ValueError(f"{proto.name}: variadic, it has no stand-in: make it header-only (loaded=False)")
            elif not fn.required and fn.missing is None and proto.ret != "aclError":
                raise ValueError(f"{proto.name} returns {proto.ret}: say what its stand-in returns (missing=...)")
            out.append(Entry(fn, group, proto))
    return out


def _decl(fn: Any, group: Any) -> str:
    """The macros the header writes before the prototype (its visibility, as the real header)."""
    return str(fn.decl if fn.decl is not None else group.decl)


def loaded(items: list[Entry]) -> list[Entry]:
    """The entries of the loader's table (and of the cffi cdef): every one not header-only."""
    return [e for e in items if e.group.loaded]


# --------------------------------------------------------------------------- C: headers


def _marker_c(kind: str, block: str) -> str:
    if kind == "BEGIN":
        return f'/* BEGIN GENERATED "{block}": {NOTICE} */'
    return f'/* END GENERATED "{block}" */'


def header_block(items: list[Entry]) -> str:
    lines: list[str] = []
    last_group = None
    for e in items:
        if e.group is not last_group:
            if lines:
                lines.append("")
            if e.group.title:
                lines.append(f"/* {e.group.title} */")
            last_group = e.group
        if e.fn.doc:
            lines.extend(e.fn.doc.splitlines())
        if e.fn.deprecated is not None:
            lines.append(f"ACL_DEPRECATED_MESSAGE({_cstring(e.fn.deprecated)})")
        lines.extend(prototype_lines(e.proto, _decl(e.fn, e.group)))
    return "\n".join(lines) + "\n"


def _cstring(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


CFFI_BEGIN, CFFI_END = "/* cffi-begin */", "/* cffi-end */"


def check_cdef_placement(text: str, path: str, blocks: dict[str, list[Entry]]) -> None:
    """A loaded block lies inside the header's cffi region (native/build_ffi.py reads it: cffi
    declares the function, and its calls go through the table's macros); a header-only block
    lies outside it, or cffi would call a symbol the table does not route."""
    i, j = text.find(CFFI_BEGIN), text.find(CFFI_END)
    for block, es in blocks.items():
        kinds = {e.group.loaded for e in es}
        if len(kinds) != 1:
            raise ValueError(f"{path}: block {block!r} mixes loaded and header-only (loaded=False) groups")
        at = text.find(_marker_c("BEGIN", block))
        inside = 0 <= i < at < j
        if kinds == {True} and not inside:
            raise ValueError(f"{path}: block {block!r} of loaded functions is outside the cffi region")
        if kinds == {False} and inside:
            raise ValueError(
                f"{path}: block {block!r} of header-only functions (loaded=False) is inside the cffi region"
            )


def replace_blocks(
    text: str, path: str, blocks: dict[str, str], begin: Callable[[str], str], end: Callable[[str], str]
) -> str:
    """``text`` with the content between each block's markers replaced. Every block must have
    its markers once, and every marked block must be one of ``blocks``: a block the
    description no longer fills is an error, not silently left as it was."""
    marked = re.findall(re.escape(begin("@block@")).replace("@block@", '([^"]+)'), text)
    unknown = sorted(set(marked) - set(blocks))
    if unknown:
        raise ValueError(f"{path}: no described function belongs to the generated blocks {unknown}")
    for block, content in blocks.items():
        b, e = begin(block), end(block)
        i, j = text.find(b), text.find(e)
        if i < 0 or j < i or marked.count(block) != 1:
            raise ValueError(f"{path} needs one {b!r} ... {e!r} pair for block {block!r}")
        text = text[: i + len(b)] + "\n" + content + text[j:]
    return text


# --------------------------------------------------------------------------- C: the table


TABLE_HEAD = """\
/*
 * aiocann native helpers: the ACL function table -- the one place where the C boundary to the
 * runtime library is crossed.
 *
 * The loader (loader.c) dlopen()s a runtime library (the bundled simulator or a real CANN
 * libacl_rt.so / libascendcl.so) and fills `aiocann_acl` with dlsym(). Every ACL call in the
 * extension -- those cffi generates for `aiocann._native.lib.aclrtMalloc` etc., and those in
 * the completion queue and fast paths -- goes through this table, because each ACL name is
 * defined below as a macro that reads its table entry. So the simulator and a real CANN
 * install take exactly the same code path.
 *
 * It includes the ACL headers: their prototypes give each entry its type (via __typeof__).
 *
 * Generated: {notice}; edit that, not this file.
 */
#ifndef AIOCANN_ACL_TABLE_H_
#define AIOCANN_ACL_TABLE_H_

#include "acl/acl.h"
#include "acl/acl_rt_compile.h"
#include "aclsim_chip.h"
#include "aclsim_ext.h"
"""

TABLE_LISTS = (
    ("AIOCANN_ACL_REQUIRED", "Required: loading fails, naming them, if the library lacks any."),
    (
        "AIOCANN_ACL_OPTIONAL",
        "Optional, from the runtime library: absent from older CANN releases, deprecated in newer\n"
        " * ones (aclrtGetVersion), absent from chips without a feature (stream capture), or the\n"
        " * simulator's own (aclsim*, absent from every real runtime). A missing one is a stand-in\n"
        " * (acl_standins.h) returning what native/acl_functions.py says, by default\n"
        " * ACL_ERROR_API_NOT_SUPPORT.",
    ),
    (
        "AIOCANN_ACL_OPTIONAL_RTC",
        "Optional, from the runtime compiler (aclrtc*): libacl_rtc.so beside the runtime library\n"
        " * on CANN; the loader takes them from the runtime library itself when it has them (the\n"
        " * simulator). Missing ones are stand-ins, as above.",
    ),
)


def _list_of(e: Entry) -> str:
    if e.fn.required:
        return "AIOCANN_ACL_REQUIRED"
    return "AIOCANN_ACL_OPTIONAL_RTC" if e.group.library == "rtc" else "AIOCANN_ACL_OPTIONAL"


def acl_table_h(items: list[Entry]) -> str:
    out = [TABLE_HEAD.format(notice=NOTICE)]
    for macro, comment in TABLE_LISTS:
        names = [e.proto.name for e in items if _list_of(e) == macro]
        out.append(f"\n/* {comment} */\n#define {macro}(X)")
        out.extend(f" \\\n    X({n})" for n in names)
        out.append("\n")
    out.append(
        "\ntypedef struct aiocann_acl_table {\n"
        "#define AIOCANN_ACL_ENTRY(name) __typeof__(name) *name;\n"
        + "".join(f"    {macro}(AIOCANN_ACL_ENTRY)\n" for macro, _ in TABLE_LISTS)
        + "#undef AIOCANN_ACL_ENTRY\n"
        "} aiocann_acl_table;\n"
        "\n"
        "extern aiocann_acl_table aiocann_acl;\n"
        "\n"
        "/* From here on, every ACL call in this translation unit goes through the table (except in the\n"
        " * loader, which only fills it and defines AIOCANN_ACL_NO_MACROS). */\n"
        "#ifndef AIOCANN_ACL_NO_MACROS\n"
    )
    out.extend(f"#define {e.proto.name} (aiocann_acl.{e.proto.name})\n" for e in items)
    out.append("#endif\n\n#endif /* AIOCANN_ACL_TABLE_H_ */\n")
    return "".join(out)


STANDINS_HEAD = """\
/*
 * aiocann native helpers: the loader's stand-ins for the optional ACL functions a runtime
 * library lacks. Each has its function's prototype, ignores its arguments and returns what
 * native/acl_functions.py says (by default ACL_ERROR_API_NOT_SUPPORT, and no recent error
 * message: the runtime that would hold one is not involved). Included by loader.c only.
 *
 * Generated: {notice}; edit that, not this file.
 */
#ifndef AIOCANN_ACL_STANDINS_H_
#define AIOCANN_ACL_STANDINS_H_
"""


def standin(e: Entry) -> list[str]:
    p = e.proto
    head = f"static {p.head[: -len(p.name) - 1]}missing_{p.name}("
    lines = _wrap_c(head, [q.decl for q in p.params] or ["void"], ")")
    lines.append("{")
    if p.params:
        lines.extend(_wrap_c("", [f"(void){q.name}" for q in p.params], ";", "    "))
    value = e.fn.missing if e.fn.missing is not None else "ACL_ERROR_API_NOT_SUPPORT"
    lines += [f"    return {value};", "}"]
    return lines


def acl_standins_h(items: list[Entry]) -> str:
    out = [STANDINS_HEAD.format(notice=NOTICE)]
    for e in items:
        if not e.fn.required:
            out.append("\n" + "\n".join(standin(e)) + "\n")
    out.append("\n#endif /* AIOCANN_ACL_STANDINS_H_ */\n")
    return "".join(out)


# --------------------------------------------------------------------------- Python: acl.rt


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _bare(ctype: str) -> str:
    return " ".join(re.sub(r"\bconst\b", " ", ctype).split())


class PyGen:
    """The wrappers of the common shapes, as a person would write them in rt.py."""

    def __init__(self, desc: ModuleType, handles: set[str], unsigned_enums: set[str]) -> None:
        self.desc = desc
        self.handles = handles
        self.unsigned_enums = unsigned_enums

    def is_handle(self, ctype: str) -> bool:
        bare = _bare(ctype)
        return bare == "void *" or bare in self.handles

    def is_output(self, ctype: str) -> bool:
        bare = _bare(ctype)
        return bare.endswith("*") and bare[:-1].strip() not in ("void", "char")

    def default_conv(self, ctype: str, fmt: str) -> str:
        if self.is_handle(ctype):
            return "_vptr"
        bare = _bare(ctype)
        if fmt == "i" and (bare in self.unsigned_enums or bare == "uint32_t"):
            # pyACL parses it with "i" into an int whose 4 bytes the C call sees; cffi takes an
            # enum without negative values as unsigned, so -1 must arrive as 0xFFFFFFFF (and
            # the runtime then refuses it with a code), not fail in cffi with OverflowError.
            return "_u32"
        return "_cstr" if bare == "char *" and "const" in ctype else ""

    def output_of(self, e: Entry) -> Param:
        w = e.fn.py
        if w.out is not None:
            found = [p for p in e.proto.params if p.name == w.out]
            if not found:
                raise ValueError(f"{e.proto.name}: no parameter {w.out!r}")
            return found[0]
        found = [p for p in e.proto.params if self.is_output(p.ctype)]
        if len(found) != 1:
            raise ValueError(f"{e.proto.name}: say which parameter is the output (out=...)")
        return found[0]

    def wrapper(self, e: Entry) -> list[str]:
        w = e.fn.py
        is_out = isinstance(w, self.desc.Out)
        output = self.output_of(e) if is_out else None
        inputs = [p for p in e.proto.params if p is not output]
        names = list(w.args) if w.args is not None else [_snake(p.name) for p in inputs]
        fmt = (w.fmt or "").replace("|", "")
        if len(names) != len(inputs) or len(fmt) != len(inputs):
            raise ValueError(f"{e.proto.name}: {len(inputs)} inputs, args {names}, format {w.fmt!r}")
        unknown = set(w.conv) - {p.name for p in inputs}
        if unknown:
            raise ValueError(f"{e.proto.name}: conv names no input parameter: {sorted(unknown)}")
        cargs, pyname = [], dict(zip((p.name for p in inputs), names, strict=True))
        pyfmt = dict(zip((p.name for p in inputs), fmt, strict=True))
        for p in e.proto.params:
            if p is output:
                cargs.append("out")
                continue
            conv = w.conv.get(p.name, self.default_conv(p.ctype, pyfmt[p.name]))
            cargs.append(f"{conv}({pyname[p.name]})" if conv else pyname[p.name])
        params = [f"{n}: {'str' if f == 's' else 'int'}" for n, f in zip(names, fmt, strict=True)]
        if is_out:
            pointee = _bare(output.ctype)[:-1].strip()
            result = w.result or (
                "_addr"
                if pointee.endswith("*") or pointee in self.handles
                else "float"
                if pointee == "float"
                else "int"
            )
            returns = f"tuple[{'float' if result == 'float' else 'int'}, int]"
        else:
            returns = "int"

        lines = [f"# {c}" if c else "#" for c in (w.comment.splitlines() if w.comment else [])]
        deco = [_q(w.name), _q(w.fmt) if w.fmt is not None else "None"]
        if w.message is not None:
            deco.append(_q(w.message))
        if w.suffix:
            deco.append(f"suffix={_q(w.suffix)}")
        line = f"@{'_rt_native' if w.native else '_rt'}({', '.join(deco)})"
        lines.append(line + (f"  # {w.note}" if w.note else ""))
        lines += _py_def(w.name, params, returns)
        if w.doc:
            lines += _docstring(w.doc)
        if w.forget:
            lines.append("    _forget_context()")
        call = f"_lib.{e.proto.name}"
        if is_out:
            lines.append(f"    out = _out({_q(_bare(output.ctype).replace('* ', '*'))})")
            if w.init:
                lines.append(f"    out[0] = _lib.{w.init}")
            lines += _py_call("    ret = ", call, cargs, "")
            lines.append(f"    return {result}(out[0]), int(ret)")
        else:
            lines += _py_call("    return int(", call, cargs, ")")
        return lines


def _q(s: str) -> str:
    """A str literal as ruff format writes it: double quotes unless that needs more escapes."""
    if '"' in s and "'" not in s:
        return "'" + s.replace("\\", "\\\\") + "'"
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _py_def(name: str, params: list[str], returns: str) -> list[str]:
    inner = ", ".join([*params, "/"]) if params else ""
    line = f"def {name}({inner}) -> {returns}:"
    if len(line) <= WIDTH:
        return [line]
    if len("    " + inner) <= WIDTH:
        return [f"def {name}(", "    " + inner, f") -> {returns}:"]
    return [f"def {name}(", *(f"    {p}," for p in [*params, "/"]), f") -> {returns}:"]


def _py_call(prefix: str, fn: str, args: list[str], suffix: str) -> list[str]:
    """``prefix fn(args) suffix`` split as ruff format splits it: the outermost brackets first."""
    line = f"{prefix}{fn}({', '.join(args)}){suffix}"
    if len(line) <= WIDTH:
        return [line]
    indent = " " * (len(prefix) - len(prefix.lstrip()))
    if suffix:  # return int(lib.f(...)): int( first
        inner = f"{indent}    {fn}({', '.join(args)})"
        if len(inner) <= WIDTH:
            return [prefix.rstrip(), inner, indent + suffix]
        return [prefix.rstrip(), *_py_call(indent + "    ", fn, args, ""), indent + suffix]
    joined = f"{indent}    {', '.join(args)}"
    if len(joined) <= WIDTH:
        return [f"{prefix}{fn}(", joined, f"{indent})"]
    return [f"{prefix}{fn}(", *(f"{indent}    {a}," for a in args), f"{indent})"]


def _docstring(doc: str) -> list[str]:
    lines = doc.split("\n")
    if len(lines) == 1:
        return [f'    """{doc}"""']
    out = [f'    """{lines[0]}'] + [f"    {line}" if line else "" for line in lines[1:]]
    out[-1] += '"""'
    return out


def _marker_py(kind: str, block: str) -> str:
    if kind == "BEGIN":
        return f'# BEGIN GENERATED "{block}": {NOTICE}'
    return f'# END GENERATED "{block}"'


def rt_blocks(items: list[Entry], gen: PyGen) -> dict[str, str]:
    desc = gen.desc
    names = sorted(e.fn.py.name for e in items if e.fn.py is not None)
    dup = {n for n in names if names.count(n) > 1}
    specials = {e.fn.py.name for e in items if isinstance(e.fn.py, desc.Special)}
    if dup - specials:
        raise ValueError(f"pyACL names given twice: {sorted(dup - specials)}")
    blocks = {"__all__": "__all__ = [\n" + "".join(f'    "{n}",\n' for n in sorted(set(names))) + "]\n"}
    sections: dict[str, list[str]] = {}
    for e in items:
        w = e.fn.py
        if w is None or isinstance(w, desc.Special):
            continue
        section = w.section or e.group.section
        if section is None:
            raise ValueError(f"{e.proto.name}: its wrapper has no section of rt.py (Group or Call section=...)")
        sections.setdefault(section, []).append("\n".join(gen.wrapper(e)))
    for section, wrappers in sections.items():
        blocks[section] = "\n\n" + "\n\n\n".join(wrappers) + "\n\n\n"
    return blocks


# --------------------------------------------------------------------------- the files


def _headers_text() -> str:
    return "".join(p.read_text() for p in sorted(INCLUDE.rglob("*.h")))


def _handles() -> set[str]:
    return set(re.findall(r"typedef\s+void\s*\*\s*(\w+)\s*;", _headers_text()))


def _unsigned_enums() -> set[str]:
    """The enum typedefs with no negative enumerator: cffi gives them C's unsigned int."""
    out = set()
    for m in re.finditer(r"typedef\s+enum\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", _headers_text(), re.S):
        body = re.sub(r"/\*.*?\*/|//[^\n]*", "", m.group(1), flags=re.S)
        if "-" not in body:
            out.add(m.group(2))
    return out


def generate() -> dict[Path, str]:
    """Every generated file's path and its content as it should be."""
    desc = load_description()
    items = entries(desc)
    out: dict[Path, str] = {
        NATIVE / "acl_table.h": acl_table_h(loaded(items)),
        NATIVE / "acl_standins.h": acl_standins_h(loaded(items)),
    }
    by_header: dict[str, dict[str, list[Entry]]] = {}
    for e in items:
        by_header.setdefault(e.group.header, {}).setdefault(e.group.block, []).append(e)
    for header, blocks in by_header.items():
        path = INCLUDE / header
        text = out.get(path, path.read_text())
        content = {b: header_block(es) for b, es in blocks.items()}
        for b in blocks:  # the markers are checked by replace_blocks; placement needs them
            if text.count(_marker_c("BEGIN", b)) != 1:
                raise ValueError(f"{header} needs one {_marker_c('BEGIN', b)!r} ... pair for block {b!r}")
        check_cdef_placement(text, header, blocks)
        out[path] = replace_blocks(
            text, header, content, lambda b: _marker_c("BEGIN", b), lambda b: _marker_c("END", b)
        )
    rt = RT_PY.read_text()
    out[RT_PY] = replace_blocks(
        rt,
        "aiocann/acl/rt.py",
        rt_blocks(items, PyGen(desc, _handles(), _unsigned_enums())),
        lambda b: _marker_py("BEGIN", b),
        lambda b: _marker_py("END", b),
    )
    return out


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated file is stale")
    args = ap.parse_args(list(argv) if argv is not None else None)
    try:
        files = generate()
    except ValueError as exc:  # the description, or a file's markers, is inconsistent
        print(f"native/gen_acl.py: {exc}", file=sys.stderr)
        return 2
    stale = []
    for path, content in files.items():
        current = path.read_text() if path.exists() else None
        if current == content:
            continue
        stale.append(path.relative_to(ROOT))
        if not args.check:
            path.write_text(content)
    if args.check and stale:
        print(
            "stale generated files (run `python native/gen_acl.py`): " + ", ".join(map(str, stale)),
            file=sys.stderr,
        )
        return 1
    for path in stale:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
