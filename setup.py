"""Build script: the cffi extension aiocann._native and the simulator library.

Everything else is in pyproject.toml. ``pip install .`` and ``pip install -e .`` build both
with no manual step:
  * aiocann/_native*.so      -- cffi API-mode extension (native/build_ffi.py)
  * aiocann/lib/libascendcl.so -- the simulator, a plain shared library exporting the ACL API
    (also what C programs link against), and aiocann/lib/aclsim-load-probe, the program it runs
    to try a kernel binary before loading it
  * aiocann/toolkit/...        the CANN-shaped install (build_toolkit below)
and (build_py, for a wheel) copies in what the installed package needs from the source tree,
which stays the one canonical copy:
  * native/include             -> aiocann/include      headers for build_kernel and C programs
  * examples/kernels/*.c, *.cpp,
    tests/kernels/test_kernels.c -> aiocann/_kernels   kernel sources, aiocann.compiler.example_kernel()
  * examples/ (with kernels/)  -> aiocann/examples     the examples (python -m aiocann demo runs
                                                       pipeline.py; server.py, ray_serve.py, ...)
  * benchmarks/*.py            -> aiocann/_benchmarks  python -m aiocann bench
An editable install copies nothing: aiocann.compiler and the CLI find these in the checkout.
"""

import glob
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

SIM = Extension(
    "aiocann.lib.libascendcl",
    sources=sorted(glob.glob("native/sim/*.c")) + ["native/common/host_probe.c"],
    include_dirs=["native/include", "native/sim", "native/common"],
    extra_compile_args=["-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden"],
    extra_link_args=["-Wl,--version-script=native/sim/exports.map", "-Wl,-Bsymbolic"],
    libraries=["pthread", "dl", "m"],
    # aclrtcCompileProg runs `python -m aiocann cc` (native/sim/rtc.c): the interpreter that built
    # the library is its last resort, after $AIOCANN_PYTHON and the install's own prefix.
    define_macros=[("AIOCANN_BUILD_PYTHON", '"' + sys.executable.replace("\\", "\\\\").replace('"', '\\"') + '"')],
)

# The per-launch path in C (native/hotpath.c): a plain CPython extension on the limited API
# (abi3, 3.10+), like the cffi module, so the one wheel still serves every supported Python. It
# links against nothing: aiocann/_hot.py hands it the addresses of the cffi module's helpers.
HOTPATH = Extension(
    "aiocann._hotpath",
    sources=["native/hotpath.c"],
    extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden"],
    define_macros=[("Py_LIMITED_API", "0x030A0000")],
    py_limited_api=True,
)

HINT = (
    "aiocann builds a C extension and the ACL simulator from C sources. It needs a C11 compiler "
    "(gcc or clang) and the Python development headers, e.g. on Debian/Ubuntu: "
    "'apt install build-essential python3-dev'; on Fedora: 'dnf install gcc python3-devel'."
)


class BuildExt(build_ext):
    def get_ext_filename(self, fullname):
        # A plain library, not a Python module: no ABI tag. setuptools asks both with the full
        # dotted name and with its last component.
        if fullname == SIM.name:
            return str(Path(*fullname.split("."))) + ".so"
        if fullname == SIM.name.rsplit(".", 1)[1]:
            return fullname + ".so"
        return super().get_ext_filename(fullname)

    def get_export_symbols(self, ext):
        return [] if ext.name == SIM.name else super().get_export_symbols(ext)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # CompileError, LinkError, missing compiler
            sys.stderr.write(f"\nerror: building {ext.name} failed: {exc}\n{HINT}\n\n")
            raise

    def run(self):
        if not self.compiler and shutil.which("cc") is None and shutil.which("gcc") is None:
            raise SystemExit(f"error: no C compiler found. {HINT}")
        # aiocann/lib is not a package, so nothing creates it for an in-place/editable copy.
        Path("aiocann", "lib").mkdir(parents=True, exist_ok=True)
        super().run()
        build_load_probe(self)
        build_toolkit(self)


# Kernel sources the installed package carries (aiocann.compiler.example_kernel). test_kernels.c is
# what the benchmarks launch (empty, wait_us, poke, ...); the tests' other kernels stay behind.
KERNEL_SOURCES = sorted(glob.glob("examples/kernels/*.c") + glob.glob("examples/kernels/*.cpp")) + [
    "tests/kernels/test_kernels.c"
]


class BuildPy(build_py):
    def run(self):
        super().run()
        if self.editable_mode:
            return  # the checkout itself is used: aiocann.compiler and the CLI look there
        pkg = Path(self.build_lib) / "aiocann"
        shutil.copytree("native/include", pkg / "include", dirs_exist_ok=True)
        kernels = pkg / "_kernels"
        kernels.mkdir(parents=True, exist_ok=True)
        for src in KERNEL_SOURCES:
            shutil.copy2(src, kernels)
        # The examples go whole, kernels included: server.py and inference.py build theirs from
        # the kernels/ folder beside them, wherever the examples are.
        no_cache = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree("examples", pkg / "examples", dirs_exist_ok=True, ignore=no_cache)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "kernels")
        shutil.copytree("benchmarks", pkg / "_benchmarks", dirs_exist_ok=True, ignore=ignore)


def build_load_probe(cmd):
    """aiocann/lib/aclsim-load-probe beside the simulator library, which runs it before it
    loads a kernel binary (native/sim/load_probe/load_probe.c says why)."""
    import subprocess

    sim = Path(cmd.get_ext_fullpath(SIM.name)).resolve()
    cc = c_compiler(cmd)
    subprocess.run(
        cc
        + ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-Inative/include", "-Inative/sim"]
        + ["-o", str(sim.parent / "aclsim-load-probe"), "native/sim/load_probe/load_probe.c", "-ldl"],
        check=True,
    )


# --------------------------------------------------------------------------- the CANN toolkit
# aiocann/toolkit is laid out as a CANN install (issue 23; `python -m aiocann toolkit` prints its
# path). The checkout holds its scripts and CMake module; the build adds:
#   * lib64/libascendcl.so, libacl_rt.so, libacl_rt_impl.so, libacl_rtc.so -- each a small ELF
#     *filter* (ld --filter) with its own SONAME, whose dynamic symbol table lists every function
#     the simulator exports and whose filtee is aiocann/lib/libascendcl.so ($ORIGIN-relative).
#     A program links against any of the names as against CANN's, and at run time the dynamic
#     linker binds every call to the one simulator library aiocann itself loads: one runtime per
#     process whichever name is linked (copies of the library would each carry their own state).
#   * bin/aclsim-chip: prints the simulated chip (set_env.sh reads SOC_VERSION from it);
#   * include/: the headers (native/include) -- a symlink in an editable install, a copy in a wheel;
#   * for a wheel, the scripts and the CMake module copied from the checkout.
TOOLKIT_LIBS = ("libascendcl.so", "libacl_rt.so", "libacl_rt_impl.so", "libacl_rtc.so")
# Libraries of packages the simulator does not have, which CANN's samples link: their functions
# are the simulator's not-provided ones (native/sim/not_provided.c), so a program links.
TOOLKIT_LIBS += (
    "libascend_dump.so",
    "libmsprofiler.so",
    "libprofapi.so",
    "libacl_tdt_channel.so",
    "libacl_tdt_queue.so",
)
# The operator library's aclnnAdd and aclnnMul (native/toolkit/aclnn_*.c): real libraries, built
# against the filter libascendcl.so -- libnnopbase.so its tensors, libopapi.so the operators,
# which is a simulator kernel binary too (it loads itself to launch its kernel).
TOOLKIT_OPERATOR_LIBS = (
    ("libnnopbase.so", "native/toolkit/aclnn_meta.c", ()),
    ("libopapi.so", "native/toolkit/aclnn_ops.c", ("libnnopbase.so",)),
)
TOOLKIT_STATIC = ("set_env.sh", "bin/setenv.bash", "tikcpp", "python")


def build_toolkit(cmd):
    import subprocess

    sim = Path(cmd.get_ext_fullpath(SIM.name)).resolve()  # .../aiocann/lib/libascendcl.so
    pkg = sim.parent.parent
    toolkit = pkg / "toolkit"
    source = Path("aiocann", "toolkit").resolve()
    in_checkout = toolkit == source
    lib64, tmp = toolkit / "lib64", Path(cmd.build_temp).resolve() / "toolkit"
    for d in (lib64, toolkit / "bin", tmp):
        d.mkdir(parents=True, exist_ok=True)
    cc = c_compiler(cmd)
    nm = subprocess.run(["nm", "-D", "--defined-only", str(sim)], capture_output=True, text=True, check=True)
    names = sorted({f[2] for f in (line.split() for line in nm.stdout.splitlines()) if len(f) == 3 and f[1] == "T"})
    # Placeholders only: the filter's symbols are never bound to (the filtee's are).
    stub = tmp / "filter_stub.c"
    stub.write_text("".join(f'__attribute__((visibility("default"))) void {n}(void) {{}}\n' for n in names))
    for lib in TOOLKIT_LIBS:
        subprocess.run(
            cc
            + [
                "-shared",
                "-fPIC",
                "-o",
                str(lib64 / lib),
                str(stub),
                f"-Wl,-soname,{lib}",
                "-Wl,--filter=$ORIGIN/../../lib/libascendcl.so",
            ],
            check=True,
        )
    for lib, src, needs in TOOLKIT_OPERATOR_LIBS:
        subprocess.run(
            cc
            + [
                "-std=gnu11",
                "-O2",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-fPIC",
                "-shared",
                "-fvisibility=hidden",
                "-Inative/include",
                "-Inative/toolkit",
                "-Inative/sim",
                "-o",
                str(lib64 / lib),
                src,
                f"-Wl,-soname,{lib}",
                *(str(lib64 / n) for n in needs),
                str(lib64 / "libascendcl.so"),
                "-Wl,-rpath,$ORIGIN",
                "-lm",
                "-lpthread",
                "-ldl",
            ],
            check=True,
        )
    subprocess.run(
        cc
        + [
            "-std=c11",
            "-O2",
            "-Inative/include",
            "-o",
            str(toolkit / "bin" / "aclsim-chip"),
            "native/toolkit/aclsim_chip_main.c",
            str(lib64 / "libascendcl.so"),
            "-Wl,-rpath,$ORIGIN/../lib64",
        ],
        check=True,
    )
    include = toolkit / "include"
    if in_checkout:
        if not include.is_symlink():
            if include.exists():
                shutil.rmtree(include)
            include.symlink_to(Path("..", "..", "native", "include"), target_is_directory=True)
        return
    shutil.copytree("native/include", include, dirs_exist_ok=True)
    for item in TOOLKIT_STATIC:
        src, dst = source / item, toolkit / item
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)


def c_compiler(cmd):
    """The C compiler build_ext compiles the extensions with, as an argv prefix."""
    return shlex_split(cmd.compiler.compiler_so[0]) if getattr(cmd.compiler, "compiler_so", None) else ["cc"]


def shlex_split(s):
    import shlex

    return shlex.split(s) if isinstance(s, str) else list(s)


setup(
    ext_modules=[SIM, HOTPATH],
    # The cffi extension is built on Python's limited API (cffi does so by default, hence
    # _native.abi3.so), so one wheel serves every supported Python: tag it so (abi3, from 3.10).
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
    cffi_modules=["native/build_ffi.py:ffibuilder"],
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
)
