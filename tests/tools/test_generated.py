"""What native/gen_acl.py writes from the description of the ACL functions
(native/acl_functions.py): the generated files are current (the CI check, as trio's
gen_exports), a stale one is found and rewritten, and the loader built from them behaves as
the description says -- a required function missing fails the load, an optional one is its
stand-in, and the runtime compiler's functions come from libacl_rtc.so beside the runtime
library when the runtime lacks them. Every function our ACL headers declare is described; the
header-only ones are declared as the description says, in neither the table nor the cdef."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "native" / "gen_acl.py"


def _gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_acl", GEN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_acl"] = module
    spec.loader.exec_module(module)
    return module


gen = _gen()
ALL_ENTRIES = gen.entries(gen.load_description())
ENTRIES = gen.loaded(ALL_ENTRIES)  # those of the loader's table and the cffi cdef
HEADER_ONLY = [e for e in ALL_ENTRIES if not e.group.loaded]


def test_the_generated_files_are_current():
    run = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


@pytest.fixture
def tree_copy(tmp_path) -> Path:
    """What the generator reads and writes, copied: the description, the generator, the
    headers, the table, the stand-ins and rt.py."""
    for rel in ("native/gen_acl.py", "native/acl_functions.py", "native/acl_table.h", "native/acl_standins.h"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    shutil.copytree(ROOT / "native" / "include", tmp_path / "native" / "include")
    (tmp_path / "aiocann" / "acl").mkdir(parents=True)
    shutil.copy(ROOT / "aiocann" / "acl" / "rt.py", tmp_path / "aiocann" / "acl" / "rt.py")
    return tmp_path


def test_a_stale_generated_file_is_found_and_rewritten(tree_copy):
    """An edit of the description makes --check fail naming what it changes, a run rewrites
    exactly those, and --check passes again."""
    tmp_path = tree_copy
    desc = tmp_path / "native" / "acl_functions.py"
    text = desc.read_text()
    old = 'Fn("aclError aclrtFreeHost(void *hostPtr);", REQUIRED, py=Call("free_host", "k")),'
    assert old in text
    desc.write_text(text.replace(old, old.replace('"free_host", "k"', '"free_host", "k", doc="Frees it."')))
    script = [sys.executable, str(tmp_path / "native" / "gen_acl.py")]

    check = subprocess.run([*script, "--check"], capture_output=True, text=True, timeout=60)
    assert check.returncode == 1
    assert "stale generated files" in check.stderr and "aiocann/acl/rt.py" in check.stderr
    assert "acl_table.h" not in check.stderr  # a docstring changes only the wrapper

    write = subprocess.run(script, capture_output=True, text=True, timeout=60)
    assert write.returncode == 0, write.stderr
    assert write.stdout.strip() == "wrote aiocann/acl/rt.py"
    assert (
        'def free_host(host_ptr: int, /) -> int:\n    """Frees it."""\n'
        in (tmp_path / "aiocann" / "acl" / "rt.py").read_text()
    )
    again = subprocess.run([*script, "--check"], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (
            lambda t: t.replace(
                'Fn("aclError aclFinalize(void);", REQUIRED),', 'Fn("aclError aclFinalize(void);"),' * 2
            ),
            "aclFinalize is described twice",
        ),
        (
            lambda t: t.replace(
                'Fn("const char *aclGetRecentErrMsg(void);", REQUIRED)', 'Fn("const char *aclGetRecentErrMsg(void);")'
            ),
            "aclGetRecentErrMsg returns const char *: say what its stand-in returns",
        ),
        (
            lambda t: t.replace('py=Call("free_host", "k")', 'py=Call("free_host", "kk")'),
            "aclrtFreeHost: 1 inputs",
        ),
        (
            lambda t: t.replace(
                'Fn("aclError aclrtProcessHostFunc(int32_t timeout);")',
                'Fn("aclError aclrtProcessHostFunc(int32_t timeout);", REQUIRED)',
            ),
            "aclrtProcessHostFunc is declared in its header only (loaded=False)",
        ),
        (
            lambda t: t.replace(
                'Fn("aclError aclrtSetDevice(int32_t deviceId);", REQUIRED',
                'Fn("aclError aclrtSetDevice(int32_t deviceId);", REQUIRED, decl="ACL_FUNC_VISIBILITY"',
            ),
            "aclrtSetDevice: a loaded function is in the cffi cdef, which knows no decl= macros",
        ),
    ],
    ids=["twice", "no-stand-in-value", "format-of-the-wrong-length", "header-only-required", "decl-in-cdef"],
)
def test_an_inconsistent_description_is_refused_saying_why(tree_copy, edit, error):
    desc = tree_copy / "native" / "acl_functions.py"
    text = desc.read_text()
    assert edit(text) != text
    desc.write_text(edit(text))
    run = subprocess.run([sys.executable, str(tree_copy / "native" / "gen_acl.py")], capture_output=True, text=True)
    assert run.returncode == 2
    assert error in run.stderr
    assert (tree_copy / "aiocann" / "acl" / "rt.py").read_text() == (ROOT / "aiocann" / "acl" / "rt.py").read_text()


def test_the_description_is_consistent():
    names = [e.proto.name for e in ALL_ENTRIES]
    assert len(names) == len(set(names))
    rtc = [e.proto.name for e in ENTRIES if e.group.library == "rtc"]
    assert rtc and all(n.startswith("aclrtc") for n in rtc)
    assert all(not e.fn.required for e in ENTRIES if e.group.library != "acl")
    # every wrapper of acl.rt is described, and every described one exists
    import aiocann.acl.rt as rt

    described = {e.fn.py.name for e in ENTRIES if e.fn.py is not None}
    assert described == set(rt.__all__)
    assert all(callable(getattr(rt, n)) for n in described)


def _undescribed_prototypes(text: str) -> list[str]:
    """The function declarations of a header outside its generated blocks."""
    text = re.sub(r'/\* BEGIN GENERATED "([^"]+)".*?/\* END GENERATED "\1" \*/', " ", text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"(?m)^\s*#.*$", " ", text)
    text = re.sub(r'(?m)extern "C" \{|^\}$', " ", text)
    found, depth, stmt = [], 0, ""
    for ch in text:
        depth += (ch == "{") - (ch == "}")
        stmt += ch
        if ch == ";" and depth == 0:
            s = " ".join(stmt.split())
            if re.search(r"\b\w+\s*\(", s) and not s.startswith("typedef") and "}" not in s:
                found.append(s)
            stmt = ""
        elif ch == "}" and depth == 0:
            stmt = ""
    return found


def test_every_function_of_the_acl_headers_is_described():
    """No ACL header declares a function by hand: each is in the description, so the headers,
    the table and the cdef cannot disagree on it."""
    for header in sorted((ROOT / "native" / "include" / "acl").rglob("*.h")):
        assert _undescribed_prototypes(header.read_text()) == [], header.name
    described = {e.proto.name for e in ALL_ENTRIES}
    assert {"aclFloatToFloat16", "aclrtLaunchHostFunc", "aclprofInit", "acltdtCreateQueue"} <= described


def test_header_only_functions_are_declared_but_not_loaded():
    """loaded=False: the prototype is in its header, with its visibility macro, outside the
    cffi region; the loader's table, its stand-ins and the cdef do not know it."""
    from aiocann._lib import lib

    table = (ROOT / "native" / "acl_table.h").read_text() + (ROOT / "native" / "acl_standins.h").read_text()
    assert HEADER_ONLY
    for e in HEADER_ONLY:
        text = (ROOT / "native" / "include" / e.group.header).read_text()
        lines = gen.prototype_lines(e.proto, gen._decl(e.fn, e.group))
        at = text.find("\n".join(lines))
        assert at >= 0, e.proto.name
        assert not (text.find("/* cffi-begin */") < at < text.find("/* cffi-end */")), e.proto.name
        assert not re.search(rf"\b{e.proto.name}\b", table), e.proto.name
        assert not hasattr(lib, e.proto.name), e.proto.name
    assert "ACL_DEPRECATED_MESSAGE(" in (ROOT / "native" / "include" / "acl" / "acl_base_rt.h").read_text()


def test_a_block_on_the_wrong_side_of_the_cffi_region_is_refused():
    loaded = [e for e in ENTRIES if e.group.header == "acl/acl_rt_compile.h"]
    only = HEADER_ONLY[:1]
    inside = (
        "/* cffi-begin */\n" + gen._marker_c("BEGIN", "b") + "\n" + gen._marker_c("END", "b") + "\n/* cffi-end */\n"
    )
    outside = "/* cffi-begin */\n/* cffi-end */\n" + gen._marker_c("BEGIN", "b") + "\n" + gen._marker_c("END", "b")
    gen.check_cdef_placement(inside, "h", {"b": loaded})
    gen.check_cdef_placement(outside, "h", {"b": only})
    with pytest.raises(ValueError, match="header-only functions .* inside the cffi region"):
        gen.check_cdef_placement(inside, "h", {"b": only})
    with pytest.raises(ValueError, match="loaded functions is outside the cffi region"):
        gen.check_cdef_placement(outside, "h", {"b": loaded})
    with pytest.raises(ValueError, match="mixes loaded and header-only"):
        gen.check_cdef_placement(inside, "h", {"b": loaded + only})


def test_prototypes_the_headers_need_parse_and_print_back():
    """Variadic tails, trailing attributes and spelled-out function pointers round-trip."""
    for text in (
        "void aclAppLog(aclLogLevel logLevel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));",
        "aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t), int32_t flag);",
    ):
        assert "\n".join(gen.prototype_lines(gen.parse_proto(text))) == text
    with pytest.raises(ValueError, match="'...' must follow a named parameter"):
        gen.parse_proto("void f(...);")


# --------------------------------------------------------------------------- the loader


def _stub_source(entries, *, rtc_value: int | None = None) -> str:
    """C for a library defining ``entries``: each returns 0 (NULL for a pointer); with
    ``rtc_value``, the aclrtc* functions return it instead and aclrtcCreateProg sets *prog."""
    out = ['#include "acl/acl.h"', '#include "acl/acl_rt_compile.h"', '#include "aclsim_ext.h"', ""]
    for e in entries:
        p = e.proto
        params = ", ".join(q.decl for q in p.params) or "void"
        value = "NULL" if p.ret.endswith("*") else "0"
        body = f"return {value};"
        if rtc_value is not None:
            body = f"return {rtc_value};"
            if p.name == "aclrtcCreateProg":
                body = f"if (prog) *prog = (aclrtcProg)0x1234; return {rtc_value};"
        out.append(f'__attribute__((visibility("default"))) {p.head}{params}) {{ {body} }}')
    return "\n".join(out) + "\n"


def _build(tmp: Path, name: str, source: str) -> Path:
    c, lib = tmp / f"{name}.c", tmp / f"{name}.so"
    c.write_text(source)
    inc = ROOT / "native" / "include"
    run = subprocess.run(
        [shutil.which("cc") or "gcc", "-shared", "-fPIC", "-w", f"-I{inc}", f"-I{inc / 'acl'}", str(c), "-o", str(lib)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return lib


PROBE = textwrap.dedent(
    """
    import json, sys
    from aiocann._lib import ffi, lib

    report = {}
    for name in json.loads(sys.argv[1]):
        fn = getattr(lib, name)
        ftype = ffi.typeof(fn)
        args = [ffi.NULL if t.kind in ("pointer", "function") else 0 for t in ftype.args]
        result = fn(*args)
        if ftype.result.kind == "pointer":
            result = None if result == ffi.NULL else int(ffi.cast("uintptr_t", result))
        report[name] = [lib.aiocann_has_function(name.encode()), result]
    prog = ffi.new("aclrtcProg *")
    report["prog"] = [lib.aclrtcCreateProg(prog, b"", b"", 0, ffi.NULL, ffi.NULL), int(ffi.cast("uintptr_t", prog[0]))]
    print(json.dumps(report))
    """
)


def _probe(library: Path, names: list[str]) -> dict[str, list[int | None]]:
    import json

    env = {k: v for k, v in os.environ.items() if not k.startswith("AIOCANN_")}
    env.update(AIOCANN_ACL_LIBRARY=str(library), AIOCANN_BACKEND="cann")
    run = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(names)], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(run.stdout.splitlines()[-1])  # type: ignore[no-any-return]


STANDIN_VALUES = {"ACL_ERROR_API_NOT_SUPPORT": 200001, "UINT32_MAX": 0xFFFF_FFFF, "NULL": None}


def _standin_value(fn) -> int | None:
    """What the C expression of the description's ``missing`` is, as the probe reports it."""
    missing = fn.missing or "ACL_ERROR_API_NOT_SUPPORT"
    return STANDIN_VALUES[missing] if missing in STANDIN_VALUES else int(missing)


@pytest.fixture(scope="module")
def runtime_with_only_the_required(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("required_only")
    return _build(tmp, "libascendcl", _stub_source([e for e in ENTRIES if e.fn.required]))


def test_a_runtime_with_only_the_required_functions_gets_every_stand_in(runtime_with_only_the_required):
    optional = [e for e in ENTRIES if not e.fn.required]
    report = _probe(runtime_with_only_the_required, [e.proto.name for e in optional])
    for e in optional:
        assert report[e.proto.name] == [0, _standin_value(e.fn)], e.proto.name
    assert report["prog"] == [200001, 0]  # no libacl_rtc.so beside it: the stand-in


def test_the_runtime_compiler_comes_from_libacl_rtc_beside_the_runtime(runtime_with_only_the_required, tmp_path):
    runtime = tmp_path / "libascendcl.so"
    shutil.copy(runtime_with_only_the_required, runtime)
    rtc_entries = [e for e in ENTRIES if e.group.library == "rtc"]
    _build(tmp_path, "libacl_rtc", _stub_source(rtc_entries, rtc_value=7))
    report = _probe(runtime, [e.proto.name for e in rtc_entries])
    for e in rtc_entries:
        assert report[e.proto.name] == [1, 7], e.proto.name
    assert report["prog"] == [7, 0x1234]


def test_a_runtime_lacking_a_required_function_is_refused_naming_it(tmp_path):
    required = [e for e in ENTRIES if e.fn.required]
    lib = _build(tmp_path, "libascendcl", _stub_source([e for e in required if e.proto.name != "aclrtMalloc"]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIOCANN_")}
    env.update(AIOCANN_ACL_LIBRARY=str(lib), AIOCANN_BACKEND="cann")
    run = subprocess.run([sys.executable, "-c", "import aiocann"], capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode != 0
    assert f"{lib} is not a usable ACL runtime: it lacks aclrtMalloc" in run.stderr
