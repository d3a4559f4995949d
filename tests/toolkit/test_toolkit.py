"""The simulator as a CANN toolkit (issue 23): `python -m aiocann toolkit`, its layout, its
libraries (one runtime whichever name is linked), its environment scripts, its CMake module, and
C and C++ programs built by CMake against it and run.

The programs (tests/toolkit/programs) check the issue's runtime functions code by code; each
exits 0 and prints "[SUCCESS]" only when every check holds, and names every failed check.
CMake is needed (.ci/run installs it when the machine lacks it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
ROOT = HERE.parents[1]
LIBRARIES = ("libascendcl.so", "libacl_rt.so", "libacl_rt_impl.so", "libacl_rtc.so")
LIBRARIES += ("libascend_dump.so", "libmsprofiler.so", "libprofapi.so", "libacl_tdt_channel.so", "libacl_tdt_queue.so")
HEADERS = (
    "acl/acl.h",
    "acl/acl_base.h",
    "acl/acl_base_rt.h",
    "acl/acl_base_mdl.h",
    "acl/acl_rt.h",
    "acl/acl_rt_allocator.h",
    "acl/acl_mdl.h",
    "acl/acl_op.h",
    "acl/error_codes/rt_error_codes.h",
    "acl/error_codes/ge_error_codes.h",
)

needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed (.ci/run installs it)")


@pytest.fixture(scope="module")
def toolkit() -> Path:
    out = subprocess.run([sys.executable, "-m", "aiocann", "toolkit"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def toolkit_env(toolkit: Path, **extra: str) -> dict[str, str]:
    """The environment after `source set_env.sh` (in bash, under set -euo pipefail, twice)."""
    script = f'set -euo pipefail; source "{toolkit}/set_env.sh"; source "{toolkit}/set_env.sh"; env -0'
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ASCEND", "SOC_VERSION"))}
    base.update(extra)
    out = subprocess.run(["bash", "-c", script], env=base, capture_output=True, check=True).stdout
    return dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)


def build(src: Path, build_dir: Path, toolkit: Path, *args: str) -> None:
    """Configures and builds as the samples' run.sh do: after set_env.sh."""
    configure = ["cmake", "-S", str(src), "-B", str(build_dir), f"-DASCEND_CANN_PACKAGE_PATH={toolkit}", *args]
    env = toolkit_env(toolkit)
    for cmd in (configure, ["cmake", "--build", str(build_dir)]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
        assert p.returncode == 0, f"{' '.join(cmd)}:\n{p.stdout}\n{p.stderr}"


# --------------------------------------------------------------------------- the layout


def test_toolkit_command_prints_a_cann_install(toolkit: Path) -> None:
    assert toolkit.is_dir() and toolkit.name == "toolkit"
    for header in HEADERS:
        assert (toolkit / "include" / header).is_file(), header
    for lib in LIBRARIES:
        assert (toolkit / "lib64" / lib).is_file(), lib
    for f in ("set_env.sh", "bin/setenv.bash", "tikcpp/ascendc_kernel_cmake/ascendc.cmake", "bin/aclsim-chip"):
        assert (toolkit / f).is_file(), f
    # acl/acl.h includes what CANN's includes; acl_base.h what CANN's includes.
    acl_h = (toolkit / "include/acl/acl.h").read_text()
    assert all(f'#include "{h}"' in acl_h for h in ("acl_rt.h", "acl_op.h", "acl_mdl.h"))
    base = (toolkit / "include/acl/acl_base.h").read_text()
    assert all(
        f'#include "{h}"' in base
        for h in ("acl_base_rt.h", "acl_base_mdl.h", "error_codes/rt_error_codes.h", "error_codes/ge_error_codes.h")
    )
    # The operator library's headers, as a CANN install has them beside ACL's (the ops package
    # links its aclnnop/ into include/): only those of the operators libopapi.so implements.
    assert sorted(p.name for p in (toolkit / "include/aclnnop").iterdir()) == ["aclnn_add.h", "aclnn_mul.h"]
    assert (toolkit / "include/aclnn/acl_meta.h").is_file()


def dynamic_section(lib: Path) -> str:
    return subprocess.run(["readelf", "-d", "-W", str(lib)], capture_output=True, text=True, check=True).stdout


def exports(lib: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True).stdout
    return {f[2] for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[1] == "T"}


def test_libraries_have_their_sonames_and_bind_to_the_one_simulator(toolkit: Path) -> None:
    from aiocann.compiler import library_path

    sim = exports(library_path())
    for lib in LIBRARIES:
        dyn = dynamic_section(toolkit / "lib64" / lib)
        assert f"Library soname: [{lib}]" in dyn
        # An ELF filter: at run time every symbol binds to the simulator aiocann loads.
        assert "Filter library: [$ORIGIN/../../lib/libascendcl.so]" in dyn
        assert exports(toolkit / "lib64" / lib) == sim
        assert (toolkit / "lib64" / "../../lib/libascendcl.so").resolve() == library_path().resolve()


def declared_functions(toolkit: Path) -> set[str]:
    """Every function the ACL headers (every header under include/acl, acl_rt_compile.h of the
    kernel compiler's aclrtc among them) and the simulator's own headers declare (preprocessed)."""
    acl = sorted(str(h.relative_to(toolkit / "include")) for h in (toolkit / "include" / "acl").rglob("*.h"))
    assert set(HEADERS) <= set(acl)
    src = "".join(f'#include "{h}"\n' for h in acl) + '#include "aclsim_ext.h"\n#include "aclsim_chip.h"\n'
    out = subprocess.run(
        ["cc", "-E", "-P", "-I", str(toolkit / "include"), "-x", "c", "-"],
        input=src,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    out = re.sub(r"typedef[^;]*;", "", out)  # function-pointer typedefs are not functions
    return set(re.findall(r"\b((?:acl|aclsim)[A-Za-z0-9_]*)\s*\(", out))


def test_every_declared_function_is_exported_and_every_export_declared(toolkit: Path) -> None:
    from aiocann.compiler import library_path

    declared = declared_functions(toolkit)
    exported = exports(library_path())
    assert not declared - exported, f"declared but not in the library: {sorted(declared - exported)}"
    assert not exported - declared, f"exported but declared in no header: {sorted(exported - declared)}"
    # The functions among them.
    for name in (
        "aclrtLaunchHostFunc",
        "aclrtCreateStreamV2",
        "aclrtRandomNumAsync",
        "aclFloatToFloat16",
        "aclrtGetErrorVerbose",
        "aclmdlRIBuildBegin",
        "aclrtMemAllocManaged",
        "aclCreateDataBuffer",
    ):
        assert name in declared


# --------------------------------------------------------------------------- the environment


def test_set_env_exports_what_cann_s_script_does(toolkit: Path) -> None:
    env = toolkit_env(toolkit)
    for var in ("ASCEND_HOME_PATH", "ASCEND_CANN_PACKAGE_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_INSTALL_PATH"):
        assert env[var] == str(toolkit), var
    assert env["ASCENDC_CMAKE_DIR"] == str(toolkit / "tikcpp" / "ascendc_kernel_cmake")
    lib64 = str(toolkit / "lib64")
    assert env["LD_LIBRARY_PATH"].split(":")[0] == lib64 and env["LD_LIBRARY_PATH"].split(":").count(lib64) == 1
    site = str(toolkit / "python" / "site-packages")
    assert env["PYTHONPATH"].split(":")[0] == site and env["PYTHONPATH"].split(":").count(site) == 1
    # the chip description's SoC version (aclsimGetChip()->soc_version, through bin/aclsim-chip)
    chip = subprocess.run([str(toolkit / "bin" / "aclsim-chip"), "--all"], capture_output=True, text=True, check=True)
    assert f"soc_version={env['SOC_VERSION']}\n" in chip.stdout and env["SOC_VERSION"] == "Ascend910B"
    # the chip follows AIOCANN_SIM_SOC_NAME
    assert toolkit_env(toolkit, AIOCANN_SIM_SOC_NAME="Ascend310P3")["SOC_VERSION"] == "Ascend310P"
    # bin/setenv.bash, which the samples' run.sh source, is the same script
    script = f'set -euo pipefail; source "{toolkit}/bin/setenv.bash"; echo "$ASCEND_HOME_PATH|$LD_LIBRARY_PATH"'
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout.strip()
    assert out.split("|")[0] == str(toolkit) and out.split("|")[1].startswith(lib64)


def test_import_acl_is_aiocann_acl_under_set_env(toolkit: Path) -> None:
    env = toolkit_env(toolkit)
    code = textwrap.dedent(
        """
        import acl, acl.rt, aiocann.acl, aiocann
        assert acl is aiocann.acl and acl.rt is aiocann.acl.rt, (acl, acl.rt)
        assert aiocann.backend().name == "sim", aiocann.backend()
        ret = acl.init()
        assert ret == 0, ret
        print(acl.rt.get_device_count())
        """
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd="/")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(8, 0)"


def test_unopened_devices_cost_nothing() -> None:
    # 8 devices by default; aclInit starts no thread, and opening a device starts only its own --
    # besides, at the first open, the one stream worker of the process's pool its default stream
    # needs (native/sim/executor.c: the pool is the process's, its workers start on demand).
    code = textwrap.dedent(
        """
        import os
        from aiocann._lib import ffi, lib
        threads = lambda: len(os.listdir("/proc/self/task"))
        t0 = threads()
        assert lib.aclInit(ffi.NULL) == 0
        n = ffi.new("uint32_t *")
        assert lib.aclrtGetDeviceCount(n) == 0 and n[0] == 8
        t1 = threads()
        assert lib.aclrtSetDevice(0) == 0
        t2 = threads()
        assert lib.aclrtSetDevice(7) == 0
        t3 = threads()
        print(t1 - t0, t2 - t1, t3 - t2)
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ("AIOCANN_SIM_DEVICES", "AIOCANN_SIM_CORES")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    at_init, first, second = map(int, out.stdout.split())
    assert at_init == 0 and second > 0 and first == second + 1, out.stdout


# --------------------------------------------------------------------------- programs


@needs_cmake
def test_c_program_built_against_the_toolkit(toolkit: Path, tmp_path: Path, test_kernels_path: Path) -> None:
    build(PROGRAMS / "runtime_c", tmp_path / "build", toolkit)
    env = toolkit_env(toolkit)
    p = subprocess.run(
        [str(tmp_path / "build" / "main"), str(test_kernels_path)], env=env, capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0 and "[SUCCESS]" in p.stdout, p.stdout + p.stderr
    assert "devices=8" in p.stdout
    assert "[ERROR] test_base main.c:" in p.stderr and "app log from the toolkit test 23" in p.stderr  # aclAppLog


@needs_cmake
def test_cpp_program_built_against_the_toolkit(toolkit: Path, tmp_path: Path) -> None:
    build(PROGRAMS / "runtime_cpp", tmp_path / "build", toolkit)
    p = subprocess.run(
        [str(tmp_path / "build" / "main")], env=toolkit_env(toolkit), capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0 and "[SUCCESS]" in p.stdout, p.stdout + p.stderr
    assert "every toolkit library resolves to one runtime" in p.stdout


@needs_cmake
def test_aclnn_operators_built_against_the_toolkit(toolkit: Path, tmp_path: Path) -> None:
    """aclnnAdd and aclnnMul (libopapi.so, libnnopbase.so) as CANN's samples call them: results,
    the codes of bad calls, executors, a captured launch replayed, a fault, two sessions."""
    build(PROGRAMS / "aclnn_cpp", tmp_path / "build", toolkit)
    p = subprocess.run(
        [str(tmp_path / "build" / "main")], env=toolkit_env(toolkit), capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0 and "[SUCCESS]" in p.stdout, p.stdout + p.stderr
    # The bad calls say why, and the runtime's refusal carries its message.
    assert "[ERROR] aclnnAdd: the operands' shapes do not broadcast to out's shape" in p.stderr
    assert "aclnnAdd: the runtime refused the launch: 107017" in p.stderr
    # The library's check of its kernel binary's handle (stale in the second session) is not the
    # caller's error: its message does not surface in the caller's aclGetRecentErrMsg.
    assert "is not a loaded binary" not in p.stdout + p.stderr


def test_operator_libraries_export_the_aclnn_functions(toolkit: Path) -> None:
    """libopapi.so exports the operators and is a kernel binary (its own kernel table);
    libnnopbase.so the tensors; neither exports its helpers."""

    def exports(lib: str) -> set[str]:
        out = subprocess.run(
            ["nm", "-D", "--defined-only", str(toolkit / "lib64" / lib)], capture_output=True, text=True
        )
        return {f[2] for f in (line.split() for line in out.stdout.splitlines()) if len(f) == 3}

    ops = {f"aclnn{p}{op}{s}" for op in ("Add", "Mul") for p in ("", "Inplace") for s in ("", "GetWorkspaceSize")}
    assert ops | {"aclsim_kernels", "aclsim_kernel_abi"} <= exports("libopapi.so")
    meta = exports("libnnopbase.so")
    assert {"aclCreateTensor", "aclDestroyTensor", "aclCreateScalar", "aclDestroyScalar", "aclGetViewShape"} <= meta
    assert not any(n.startswith(("f16_", "dtype_")) for n in meta | exports("libopapi.so"))


@needs_cmake
def test_ipc_events_synchronize_two_processes(toolkit: Path, tmp_path: Path) -> None:
    """Records in one process release stream waits and host synchronizes in the other (issue 23)."""
    build(PROGRAMS / "ipc_event_c", tmp_path / "build", toolkit)
    main = str(tmp_path / "build" / "main")
    p = subprocess.run([main], env=toolkit_env(toolkit), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "[SUCCESS]" in p.stdout, p.stdout + p.stderr
    # A part without RT_FEATURE_IPC_EVENT (910A): creating or opening one is 207000.
    env = toolkit_env(toolkit, AIOCANN_SIM_SOC_NAME="Ascend910A")
    p = subprocess.run([main, "nochip"], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "[SUCCESS]" in p.stdout, p.stdout + p.stderr


@needs_cmake
def test_a_c_library_and_aiocann_share_one_runtime(toolkit: Path, tmp_path: Path) -> None:
    build(PROGRAMS / "shared_lib", tmp_path / "build", toolkit)
    so = tmp_path / "build" / "libtkprobe.so"
    code = textwrap.dedent(
        f"""
        import ctypes
        from aiocann._lib import ffi, lib
        probe = ctypes.CDLL({str(so)!r})  # links lib64/libacl_rt.so
        probe.tk_alloc.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
        probe.tk_free.argtypes = [ctypes.c_void_p]
        p = ctypes.c_void_p()
        # The runtime boots on first use, before any aclInit (RuntimeKeeper::BootRuntime): what
        # the library allocates then is the runtime's that aiocann initialises and frees it in.
        assert probe.tk_alloc(0, ctypes.byref(p)) == 0 and p.value
        assert lib.aclInit(ffi.NULL) == 0
        assert lib.aclrtSetDevice(0) == 0
        assert lib.aclrtFree(ffi.cast("void *", p.value)) == 0  # the library's memory, freed by aiocann
        q = ffi.new("void **")
        assert lib.aclrtMalloc(q, 64, 0) == 0
        assert probe.tk_free(ctypes.c_void_p(int(ffi.cast("uintptr_t", q[0])))) == 0  # and the other way
        assert probe.tk_reset(0) == 0 and lib.aclrtResetDevice(0) == 0
        assert lib.aclFinalize() == 0
        print("one runtime")
        """
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "one runtime" in p.stdout, p.stdout + p.stderr


# --------------------------------------------------------------------------- ascendc.cmake

KERNEL_PROJECT = """
cmake_minimum_required(VERSION 3.16.0)
project(kernels_sample)
set(SOC_VERSION $ENV{SOC_VERSION})
set(ASCENDC_CMAKE_DIR $ENV{ASCENDC_CMAKE_DIR})
set(CMAKE_INSTALL_PREFIX "${CMAKE_CURRENT_LIST_DIR}/out" CACHE STRING "path for install()" FORCE)
include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)
ascendc_library(kernels STATIC add.cpp)
ascendc_compile_definitions(kernels PRIVATE SCALE=2)
ascendc_include_directories(kernels PRIVATE inc)
ascendc_compile_options(kernels PRIVATE -O2)
ascendc_library(kernels_so SHARED add.cpp)
ascendc_fatbin_library(add_fatbin add.cpp)
include_directories(${ASCEND_CANN_PACKAGE_PATH}/include)
add_executable(main main.cpp)
target_link_libraries(main PRIVATE kernels ${ASCEND_CANN_PACKAGE_PATH}/lib64/libacl_rt.so)
"""


def kernel_project(tmp_path: Path, soc: str | None = None) -> Path:
    src = tmp_path / "src"
    (src / "inc").mkdir(parents=True)
    cml = KERNEL_PROJECT if soc is None else KERNEL_PROJECT.replace("$ENV{SOC_VERSION}", soc)
    (src / "CMakeLists.txt").write_text(cml)
    (src / "add.cpp").write_text(
        '#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void add(GM_ADDR x) {}\n'
    )
    (src / "main.cpp").write_text("int main() { return 0; }\n")
    return src


@needs_cmake
def test_ascendc_cmake_defines_the_kernel_targets(toolkit: Path, tmp_path: Path) -> None:
    src = kernel_project(tmp_path)
    p = subprocess.run(
        [
            "cmake",
            "-S",
            str(src),
            "-B",
            str(tmp_path / "b"),
            f"-DASCEND_CANN_PACKAGE_PATH={toolkit}",
            f"-DASCENDC_PYTHON={sys.executable}",
        ],
        env=toolkit_env(toolkit),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    # The generated build runs the contract's compiler command for each kernel source.
    rules = "".join(f.read_text(errors="replace") for f in (tmp_path / "b").rglob("build.make"))
    assert f"{sys.executable} -m aiocann cc -c -DSCALE=2 -I{src}/inc -O2 {src}/add.cpp -o" in rules
    assert f"-m aiocann cc {src}/add.cpp -o {tmp_path}/b/fatbin/add_fatbin/add_fatbin.o" in rules
    # A SOC_VERSION that is not the simulated chip is refused with a reason.
    bad = kernel_project(tmp_path / "bad", soc="Ascend310P3")
    p = subprocess.run(
        [
            "cmake",
            "-S",
            str(bad),
            "-B",
            str(tmp_path / "bad" / "b"),
            f"-DASCEND_CANN_PACKAGE_PATH={toolkit}",
            f"-DASCENDC_PYTHON={sys.executable}",
        ],
        env=toolkit_env(toolkit),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode != 0 and "SOC_VERSION=Ascend310P3 is not the simulated chip" in p.stderr


def has_cc() -> bool:
    p = subprocess.run([sys.executable, "-m", "aiocann", "cc", "--help"], capture_output=True, text=True)
    return p.returncode == 0


@needs_cmake
@pytest.mark.skipif(not has_cc(), reason="python -m aiocann cc (the Ascend C compiler, issue 22) is not in this build")
def test_ascendc_cmake_builds_kernels_with_the_compiler(toolkit: Path, tmp_path: Path) -> None:
    src = kernel_project(tmp_path)
    env = toolkit_env(toolkit)
    build(src, tmp_path / "b", toolkit, f"-DASCENDC_PYTHON={sys.executable}")
    subprocess.run(["cmake", "--install", str(tmp_path / "b")], env=env, check=True, capture_output=True)
    assert (src / "out" / "fatbin" / "add_fatbin" / "add_fatbin.o").is_file()
    assert (tmp_path / "b" / "libkernels.a").is_file() and (tmp_path / "b" / "libkernels_so.so").is_file()


# --------------------------------------------------------------------------- CANN's own examples

CHECKOUT = os.environ.get("AIOCANN_RUNTIME_CHECKOUT")


@pytest.mark.slow
@pytest.mark.timeout(1200)  # 60 builds and runs: 112-116 s here, where the suite's default is 120 s
@pytest.mark.skipif(not CHECKOUT, reason="set AIOCANN_RUNTIME_CHECKOUT to a hicann/runtime checkout")
def test_hicann_runtime_examples(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(HERE))
    try:
        import cann_examples
    finally:
        sys.path.remove(str(HERE))
    assert CHECKOUT is not None
    results = cann_examples.run_examples(Path(CHECKOUT))
    with capsys.disabled():
        for r in results:
            print(f"{'PASS' if r.passed else 'FAIL'} {'K' if r.kernels else 'R'} {r.name}  {r.why}")
        print(cann_examples.summary(results))
    assert results, "no example found under example/"
    # Every example that needs the runtime alone and whose features are simulated passes.
    runtime_only = {r.name: r for r in results if not r.kernels}
    for name in (
        "0_quickstart/1_error_handling",
        "0_quickstart/2_system_info",
        "1_basic_features/context/0_context_query",
        "2_advanced_features/built_in_task/0_reduce_task",
        "2_advanced_features/built_in_task/1_random_num_task",
        "2_advanced_features/label/0_simple_label",
        "3_memory_advanced/allocator/0_custom_allocator",
    ):
        if name in runtime_only:
            assert runtime_only[name].passed, runtime_only[name].output[-3000:]


def test_a_toolkit_not_built_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import aiocann._toolkit as tk

    (tmp_path / "toolkit").mkdir()
    monkeypatch.setattr(tk, "_HOME", tmp_path / "toolkit")
    with pytest.raises(FileNotFoundError, match=r"lacks include/acl/acl\.h.*lib64/libacl_rt\.so.*pip install"):
        tk.toolkit_path()
    from aiocann.__main__ import main

    assert main(["toolkit"]) == 1
