"""Argument errors raise what pyACL raises, with its text (issue 11).

pyACL's wrappers parse with PyArg_ParseTuple and replace its error by
``TypeError("<api> args parse failed")`` (a few say "failed!", two "faild"); two let CPython's
own parser error through. The expected texts below are copied from python/pyACL (rt/*.cpp,
util/*.cpp, py_init_acl.cpp); the parser's own messages are checked against CPython's
PyArg_ParseTuple itself, through ctypes.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys

import pytest
from pyacl_support import INVALID_PARAM, RT_PARAM_INVALID, ok

import aiocann.acl as acl
from aiocann.acl._convert import pyacl

# Wrappers whose CHECK_NULL text is not "<api> args parse failed".
BANG = {
    "stream_query",
    "synchronize_event_with_timeout",
    "synchronize_device_with_timeout",
    "set_stream_attribute",
    "get_stream_attribute",
    "binary_load_from_file",
    "binary_load_from_data",
    "get_function_addr",
    "get_function_name",
    "malloc_with_cfg",
    "malloc_for_task_scheduler",
    "set_stream_failure_mode",
    "peek_at_last_error",
    "get_last_error",
    # issue 11, memory family
    "cmo_async",
    "get_mem_uce_info",
    "mem_uce_repair",
    # issue 11, device share
    "get_overflow_status",
    "reset_overflow_status",
    "set_op_wait_timeout",
    "set_op_execute_timeout_v2",
    "register_cpu_func",
}
FAILD = {"set_sys_param_opt", "get_sys_param_opt"}
# Wrappers with a text of their own: another function's name, or no "args" (sic in pyACL).
OWN_TEXT = {
    "host_get_device_pointer": "acl.rt.host_get_device_pointer parse failed",
    "set_op_execute_time_out": "acl.rt.set_op_execute_timeout args parse failed!",
    "get_devices_topo": "acl.rt.reset_device_res_limit args parse failed",
    **{
        name: f"acl.rt.{name} parse failed"
        for name in (
            "get_stream_res_limit",
            "set_stream_res_limit",
            "reset_stream_res_limit",
            "use_stream_res_in_current_thread",
            "unuse_stream_res_in_current_thread",
            "get_res_in_current_thread",
        )
    },
}
NATIVE = {"acl.rt.get_event_id", "acl.util.start_thread"}


def _expected(api: str) -> str:
    name = api.rsplit(".", 1)[1]
    if name in OWN_TEXT:
        return OWN_TEXT[name]
    if name in FAILD:
        return f"{api} args parse faild"
    return f"{api} args parse failed" + ("!" if name in BANG else "")


def _wrappers():
    for module, prefix in ((acl.rt, "acl.rt"), (acl.util, "acl.util"), (acl, "acl")):
        for name in module.__all__:
            fn = getattr(module, name)
            if callable(fn) and hasattr(fn, "__pyacl_format__"):
                yield f"{prefix}.{name}", fn


WRAPPERS = dict(_wrappers())


def test_every_function_is_declared():
    """Every function of the facade goes through the pyACL parser declaration."""
    for module in (acl.rt, acl.util):
        for name in module.__all__:
            assert hasattr(getattr(module, name), "__pyacl_format__"), f"{module.__name__}.{name}"
    assert len(WRAPPERS) >= 120


@pytest.mark.parametrize("api", sorted(WRAPPERS))
def test_wrong_argument_count(api):
    fn = WRAPPERS[api]
    fmt = fn.__pyacl_format__
    if fmt is None:  # never parses: extra arguments are ignored (it is not called here)
        return
    required = fmt.index("|") if "|" in fmt else len(fmt)
    maximum = len(fmt.replace("|", ""))
    if api in NATIVE:
        n = maximum
        expected = f"function takes exactly {n} argument{'' if n == 1 else 's'} ({n + 1} given)"
    else:
        expected = _expected(api)
    with pytest.raises(TypeError) as info:
        fn(*([0] * (maximum + 1)))
    assert str(info.value) == expected
    if required:
        with pytest.raises(TypeError):
            fn()


@pytest.mark.parametrize("api", sorted(WRAPPERS))
def test_keyword_arguments_are_refused(api):
    with pytest.raises(TypeError, match=rf"^{api.rsplit('.', 1)[1]}\(\) takes no keyword arguments$"):
        WRAPPERS[api](x=1)


def test_pyacl_texts_for_bad_values(runtime):
    cases = [
        (lambda: acl.rt.set_device("0"), TypeError, "acl.rt.set_device args parse failed"),
        (lambda: acl.rt.set_device(1 << 31), TypeError, "acl.rt.set_device args parse failed"),  # "i" overflow
        (lambda: acl.rt.stream_query(None), TypeError, "acl.rt.stream_query args parse failed!"),
        (lambda: acl.rt.set_sys_param_opt(0, 1 << 63), TypeError, "acl.rt.set_sys_param_opt args parse faild"),
        (
            lambda: acl.rt.binary_load_from_file("a\0b", []),
            TypeError,
            "acl.rt.binary_load_from_file args parse failed!",
        ),
        (lambda: acl.rt.binary_load_from_file("k.so", None), ValueError, "argument 2 only support the format of list"),
        (lambda: acl.rt.launch_kernel_with_config(1, 1, 0, (), 1, 0), ValueError, "argument 2 only support"),
        (lambda: acl.rt.launch_callback(42, None, 0, 0), TypeError, "parameter must be callable"),
        (lambda: acl.rt.get_event_id("e"), TypeError, "argument 1 must be int, not str"),
        (lambda: acl.rt.get_event_id(1.5), TypeError, "argument 1 must be int, not float"),
        (lambda: acl.util.start_thread(print), TypeError, "function takes exactly 2 arguments (1 given)"),
        (lambda: acl.util.start_thread(1, None), TypeError, "parameter must be callable"),
        (lambda: acl.util.bytes_to_ptr("text"), ValueError, "needs an byte as argument"),
        (lambda: acl.init(1), TypeError, "acl.init args parse failed"),
        (lambda: acl.init("a", "b"), TypeError, "acl.init args parse failed"),
        (lambda: acl.get_version_str(None), TypeError, "acl.get_version_str args parse failed"),
    ]
    for call, exc, text in cases:
        with pytest.raises(exc) as info:
            call()
        assert str(info.value).startswith(text), (str(info.value), text)
    # ... and the no-argument wrappers ignore what they are given, as pyACL's do.
    assert acl.rt.get_run_mode("anything", 2) == (1, 0)
    assert acl.finalize(1) == 0 and acl.init() == 0


def test_negative_enum_arguments_reach_the_runtime(stream):
    """pyACL parses an enum argument with "i" and hands C its 4 bytes, so -1 is 0xFFFFFFFF to
    the runtime, which answers with its own code; it was cffi's OverflowError (the binding takes
    those enums as unsigned)."""
    dev = ok(acl.rt.malloc(64, 0))
    host = ok(acl.rt.malloc_host(64))
    try:
        assert acl.rt.memcpy(dev, 64, host, 64, -1) == INVALID_PARAM
        assert acl.rt.memcpy_async(dev, 64, host, 64, -1, stream) == INVALID_PARAM
        ok(acl.rt.free(ok(acl.rt.malloc(64, -1))))  # an unknown policy is the default (aclMallocMemInner)
        assert acl.rt.launch_callback(lambda _: None, None, -1, stream) == INVALID_PARAM
        assert acl.rt.set_stream_attribute(stream, -1, {}) == RT_PARAM_INVALID
        assert acl.rt.get_mem_info(-1)[2] == INVALID_PARAM
    finally:
        acl.rt.free(dev)
        acl.rt.free_host(host)


@pytest.mark.filterwarnings("ignore:acl.util.ptr_to_numpy will be deprecated")
def test_no_wrapper_overflows_on_a_negative_int(stream):
    """Every "i" argument of every wrapper takes -1 as pyACL does: whatever the runtime answers,
    the conversion to C never raises OverflowError."""
    blocking = {"synchronize_stream_with_timeout", "synchronize_event_with_timeout", "synchronize_device_with_timeout"}
    for api, fn in sorted(WRAPPERS.items()):
        name = api.rsplit(".", 1)[1]
        fmt = (fn.__pyacl_format__ or "").replace("|", "")
        if "i" not in fmt or name in blocking or name == "process_report" or "finalize" in name or "reset" in name:
            continue
        filler = {"f": 0.0, "s": "", "O": None}
        for pos in (i for i, c in enumerate(fmt) if c == "i"):
            args = [-1 if j == pos else filler.get(c, 0) for j, c in enumerate(fmt)]
            if name == "launch_callback":
                args[0] = lambda _: None
            try:
                fn(*args)
            except OverflowError as exc:  # the failure this test is about
                pytest.fail(f"{api} argument {pos + 1} = -1: {exc!r}")
            except (TypeError, ValueError, RuntimeError):  # pyACL's own refusals and raises
                pass


# --------------------------------------------------------------------------- CPython's parser


def _cpython_parse(fmt: str, args: tuple) -> tuple[type, str] | None:
    """What PyArg_ParseTuple raises for args, or None if it accepts them."""
    fn = ctypes.pythonapi.PyArg_ParseTuple
    slots = [ctypes.c_ulonglong() for _ in fmt] + [ctypes.c_ulonglong()]  # 's' writes a pointer
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.py_object, ctypes.c_char_p] + [ctypes.c_void_p] * len(slots)
    try:
        fn(args, fmt.encode(), *[ctypes.addressof(s) for s in slots])
    except Exception as exc:  # noqa: BLE001 -- the error the parser set
        return type(exc), str(exc)
    return None


FORMATS = ["k", "K", "I", "H", "i", "l", "L", "f", "s", "O", "kk", "OO", "kIk", "|s", "ki|s", "Ii", "kiO"]
VALUES = [0, 7, -1, 1 << 31, -(1 << 31) - 1, 1 << 64, "x", "a\0b", None, 1.5, True, b"b", [1]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_parser_errors_match_cpython(fmt):
    """For wrappers that let the parser's error through, aiocann raises exactly what CPython's
    PyArg_ParseTuple raises (type and text), for wrong counts and wrong values alike."""

    @pyacl("acl.test.fn", fmt, None)
    def fn(*args: object) -> tuple:
        return args

    n = len(fmt.replace("|", ""))
    candidates = [()] + [(v,) * k for v in VALUES for k in (n - 1, n, n + 1) if k >= 0]
    candidates += [tuple(VALUES[(i + j) % len(VALUES)] for j in range(n)) for i in range(len(VALUES))]
    for args in candidates:
        want = _cpython_parse(fmt, args)
        try:
            fn(*args)
            got = None
        except Exception as exc:  # noqa: BLE001
            got = (type(exc), str(exc))
        # The one deliberate difference: aiocann takes __index__ objects where CPython wants
        # int -- none of VALUES is one, so here the two agree exactly.
        assert got == want, (fmt, args)


# --------------------------------------------------------------------------- import cost


def test_import_is_light():
    """`import aiocann.acl` brings neither the async core (anyio) nor numpy; numpy comes with
    the first numpy helper that needs it."""
    code = (
        "import sys, aiocann.acl as acl\n"
        "heavy = [m for m in ('anyio', 'sniffio', 'numpy', 'aiocann.stream', 'aiocann.device') if m in sys.modules]\n"
        "print(heavy)\n"
        "import warnings; warnings.simplefilter('ignore')\n"
        "acl.util.ptr_to_numpy(0, (2,), 11)\n"
        "print('numpy' in sys.modules, 'anyio' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "True False"]
