"""The public API is exactly what is written here (STYLE 12): every public name of the package
and of its public submodules, and every public attribute of each exported class. Adding,
renaming or removing one -- a new method, a leaked import, a helper that lost its underscore --
fails until this file says so: the API changes on purpose or not at all.

"Public" means not starting with an underscore. The lists are equalities, never subsets.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import types
import warnings

import anyio
import numpy as np

import aiocann as ac

ERRORS = """
    AclError ApiNotSupportedError BadAllocError ClosedError CompletionTimeoutError DeviceOutOfMemoryError
    DmaError EventNotCompleteError EventSyncTimeoutError EventTimestampError FeatureNotSupportedError
    FileOpenError InvalidDeviceError InvalidFileError InvalidHandleError InvalidParamError KernelFaultError
    KernelLookupError KernelTimeoutError NoContextError RepeatFinalizeError RepeatInitializeError
    RepeatSubscribeError ReportTimeoutError ResourceExhaustedError RtParamInvalidError StreamContextError
    StreamNotSubscribedError StreamSubscribeError StreamSyncTimeoutError ThreadSubscribeError
    UninitializedError WrongThreadError
""".split()

PACKAGE = (
    """
    ArgsBuilder BackendError BackendInfo Binary CapturedWork Completion Device DeviceArray Event Graph Kernel
    KernelArgs LaunchConfig MemoryPool PoolStats Stream TaskGroup Trace backend current_device current_stream
    device_count launch trace
""".split()
    + ERRORS
)

# Submodules a user may import by name (aiocann.acl has its own surface tests, tests/acl).
SUBMODULES = """
    acl completion compiler device errors event graph kernel launch memory memory_pool sim stream testing tracing
""".split()

# Each public module's __all__, exactly.
MODULE_ALL = {
    "aiocann.completion": ["Completion"],
    "aiocann.device": ["Device", "current_device", "device_count"],
    "aiocann.errors": ERRORS,
    "aiocann.event": ["Event"],
    "aiocann.graph": ["CapturedWork", "Graph", "TaskGroup"],
    "aiocann.kernel": ["ArgsBuilder", "Binary", "Kernel", "KernelArgs"],
    "aiocann.launch": ["LaunchConfig", "launch"],
    "aiocann.memory": ["DeviceArray", "StagingPool", "allocate_pinned", "is_pinned", "numpy_dtype", "shape_and_dtype"],
    "aiocann.memory_pool": ["MemoryPool", "PoolStats"],
    "aiocann.stream": ["Stream", "current_stream"],
    "aiocann.tracing": ["Trace", "trace"],
    "aiocann.compiler": """
        CompiledProgram KernelBuildError KernelParam KernelSignature ParamSpec build_kernel cc compile_program
        example_kernel include_dir kernel_signatures library_path plain_names read_signatures simulated_npu_arch
    """.split(),
    "aiocann.sim": """
        Chip KernelBuildError KernelParam KernelSignature ParamSpec build_kernel chip example_kernel include_dir
        kernel_signatures library_path read_signatures
    """.split(),
    "aiocann.testing": ["aiocann_device", "aiocann_stream"],
}

# Public classes and functions a module defines without exporting them in __all__: reachable by
# their module path only. Anything else a module defines is in its __all__ or private.
MODULE_EXTRAS = {
    "aiocann.errors": ["code_name", "error_for"],
    "aiocann.memory_pool": ["Block", "size_class"],
    "aiocann.testing": """
        pytest_addoption pytest_configure pytest_fixture_setup pytest_load_initial_conftests pytest_runtest_call
        pytest_unconfigure
    """.split(),  # pytest finds its hooks by these names
}

# The public attributes of a live instance of each exported class (methods, properties, data).
CLASS_ATTRS = {
    "Device": """aclose closed completion_timeout empty index load_binary load_binary_data logic_id max_in_flight
        mem_info memory_pool pinned_empty stream""",
    "Stream": """aclose borrowed capture copy copy_from_host copy_to_host device download empty error from_handle handle
        in_flight max_in_flight memset priority record synchronize upload wait""",
    "Binary": "device function handle label signatures unload",
    "Kernel": "args binary handle name signature",
    "ArgsBuilder": "array build bytes f16 f32 f64 i16 i32 i64 i8 kernel placeholder ptr scalar u16 u32 u64 u8",
    "KernelArgs": "arrays close handle kernel update",
    "DeviceArray": "close closed device dtype get nbytes ndim ptr set shape size",
    "Completion": "done exception label stream",
    "CapturedWork": "done exception graph label stream",
    "Event": "borrowed close device done elapsed_ms from_handle handle timestamp_us",
    "Graph": "close group handle launch",
    "TaskGroup": "update",
    "MemoryPool": "enabled limit stats trim",
    "PoolStats": "cached_bytes frees hits in_use_bytes limit mallocs stream_reuses",
    "Trace": "capacity device_records dropped events path start stop",
    "LaunchConfig": "schedule timeout",
    "BackendInfo": "library name skipped version",
}
# Exceptions: what they add to the builtin exception they derive from.
ACL_ERROR_ATTRS = "api code codes message name"  # class: codes; instance: code, name, message, api


def _public(names: object) -> list[str]:
    # (pytest's assertion rewriting adds "@py_builtins"-style globals to the plugin's package)
    return sorted(n for n in names if n.isidentifier() and not n.startswith("_"))  # type: ignore[attr-defined]


def _own_attributes(obj: object) -> list[str]:
    """Public attributes, less those of the builtin exception types the class derives from."""
    names = set(_public(dir(obj)))
    for base in type(obj).__mro__:
        if base.__module__ == "builtins" and base is not object:
            names -= set(dir(base))
    return sorted(names)


def test_package_namespace_is_exactly_the_list():
    assert sorted(ac.__all__) == sorted(PACKAGE)
    assert len(ac.__all__) == len(set(ac.__all__))
    names = [n for n in _public(dir(ac)) if not isinstance(getattr(ac, n), types.ModuleType)]
    assert names == sorted(PACKAGE), "a public name in `aiocann` that __all__ does not list (or the reverse)"
    for name in SUBMODULES:
        assert isinstance(importlib.import_module(f"aiocann.{name}"), types.ModuleType)
    loaded = {n for n in _public(dir(ac)) if isinstance(getattr(ac, n), types.ModuleType)}
    assert loaded <= set(SUBMODULES), f"public submodules not in the list: {sorted(loaded - set(SUBMODULES))}"


def test_every_public_module_exports_exactly_the_list():
    for name, expected in MODULE_ALL.items():
        module = importlib.import_module(name)
        assert sorted(module.__all__) == sorted(expected), name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # aiocann.sim's names warn (test_build_kernel)
            for attr in module.__all__:
                assert hasattr(module, attr), f"{name}.__all__ names {attr!r}, which does not exist"


def test_no_public_definition_hides_outside_all():
    """A class or function defined in a public module is exported, listed above as an extra,
    or private."""
    for name in MODULE_ALL:
        module = importlib.import_module(name)
        exported = MODULE_ALL[name]
        if name == "aiocann.sim":  # the chip description; its other names are aliases (aiocann.compiler)
            exported = ["Chip", "chip"]
        defined = [
            attr
            for attr, value in vars(module).items()
            if not attr.startswith("_")
            and (isinstance(value, type) or callable(value))
            and getattr(value, "__module__", None) == name
        ]
        assert sorted(defined) == sorted(exported + MODULE_EXTRAS.get(name, [])), name


def test_package_exports_are_documented_objects():
    for attr in ac.__all__:
        obj = getattr(ac, attr)
        assert obj.__doc__, f"aiocann.{attr} has no docstring"


def test_every_exported_class_has_exactly_its_attributes(vector_add_path):
    async def live_instances() -> dict[str, object]:
        async with ac.Device(0) as dev, dev.stream() as s:
            binary = await dev.load_binary(vector_add_path)
            kernel = binary.function("add_custom")
            x = dev.empty(8, np.float32)
            builder = kernel.args().ptr(x)
            args = await kernel.args().ptr(x).ptr(x).ptr(x).placeholder(np.zeros(2, np.uint32))
            done = await ac.launch(kernel, args, blocks=1)
            await done
            event = await s.record()
            async with s.capture() as graph:
                async with graph.group() as group:
                    captured = await ac.launch(kernel, args, blocks=1)
            graph.close()
            with ac.trace() as trace:
                pass
            return {
                "Device": dev,
                "Stream": s,
                "Binary": binary,
                "Kernel": kernel,
                "ArgsBuilder": builder,
                "KernelArgs": args,
                "DeviceArray": x,
                "Completion": done,
                "CapturedWork": captured,
                "Event": event,
                "Graph": graph,
                "TaskGroup": group,
                "MemoryPool": dev.memory_pool,
                "PoolStats": dev.memory_pool.stats(),
                "Trace": trace,
                "LaunchConfig": ac.LaunchConfig(),
                "BackendInfo": ac.backend(),
            }

    instances = anyio.run(live_instances)
    classes = {n for n in ac.__all__ if isinstance(getattr(ac, n), type) and not issubclass(getattr(ac, n), Exception)}
    assert set(instances) == set(CLASS_ATTRS) == classes
    for name, obj in instances.items():
        assert type(obj) is getattr(ac, name), name
        assert _own_attributes(obj) == sorted(CLASS_ATTRS[name].split()), name
    for name in ERRORS:
        cls = getattr(ac, name)
        error = cls(0, "message", "api") if issubclass(cls, ac.AclError) else cls("message")
        expected = ACL_ERROR_ATTRS.split() if issubclass(cls, ac.AclError) else []
        assert _own_attributes(error) == expected, name
    assert _own_attributes(ac.BackendError("x")) == []


def test_import_aiocann_stays_light():
    """``import aiocann`` loads the binding and the errors only: the async core (and anyio and
    numpy with it) comes with the first name that needs it."""
    code = (
        "import sys, aiocann\n"
        "print(sorted(m for m in sys.modules if m in ('anyio', 'numpy', 'trio') or m.startswith('aiocann.')))\n"
        "aiocann.Stream\n"
        "print('anyio' in sys.modules, 'aiocann.stream' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    loaded = "['aiocann._lib', 'aiocann._native', 'aiocann._native.lib', 'aiocann.errors']"
    assert out.stdout.splitlines() == [loaded, "True True"]
