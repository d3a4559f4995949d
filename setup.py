"""Build script: the cffi extension aiocann._native and the simulator library.

Everything else is in pyproject.toml. ``pip install .`` and ``pip install -e .`` build both
with no manual step:
  * aiocann/_native*.so      -- cffi API-mode extension (native/build_ffi.py)
  * aiocann/lib/libascendcl.so -- the simulator, a plain shared library exporting the ACL API
    (also what C programs link against)
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
    libraries=["pthread", "dl"],
    # aclrtcCompileProg runs `python -m aiocann cc` (native/sim/rtc.c): the interpreter that built
    # the library is its last resort, after $AIOCANN_PYTHON and the install's own prefix.
    define_macros=[("AIOCANN_BUILD_PYTHON", '"' + sys.executable.replace("\\", "\\\\").replace('"', '\\"') + '"')],
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


setup(
    ext_modules=[SIM],
    # The cffi extension is built on Python's limited API (cffi does so by default, hence
    # _native.abi3.so), so one wheel serves every supported Python: tag it so (abi3, from 3.10).
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
    cffi_modules=["native/build_ffi.py:ffibuilder"],
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
)
