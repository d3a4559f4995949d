"""Checks what the sdist and the wheel carry (run by .ci/run after `python -m build`).

python .ci/check_dist.py contents DIST_DIR   the sdist has every tracked file and no build
                                             product; the wheel has what the package needs
python .ci/check_dist.py tour                prints the README's async tour (to run it
                                             with an installed wheel, from any directory)
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Tracked files an sdist does not need.
NOT_IN_SDIST = {".gitignore"}
# Build products an sdist must not carry.
BUILT = ["*.so", "*.o", "*.pyc", "*/__pycache__/*", "aiocann/_native.c", "aiocann/lib/*", "aiocann/include/*"]
# The toolkit's build products (setup.py build_toolkit).
BUILT += ["aiocann/toolkit/lib64/*", "aiocann/toolkit/include*", "aiocann/toolkit/bin/aclsim-chip"]


def tracked() -> set[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {line for line in out.splitlines() if line} - NOT_IN_SDIST


def wheel_needs() -> list[str]:
    """Patterns the wheel must match: the modules (and the C module's stub), the two
    extensions and the simulator library, the headers,
    the shipped kernels, what the CLI runs, the licence and the pytest entry point."""
    needs = [f"{p}" for p in sorted(tracked()) if p.startswith("aiocann/") and p.endswith((".py", ".pyi", "py.typed"))]
    needs += [
        "aiocann/_native.*.so",
        "aiocann/_hotpath.*.so",
        "aiocann/lib/libascendcl.so",
        "aiocann/lib/aclsim-load-probe",
        "aiocann/include/kernel_operator.h",
        "aiocann/include/aclsim_kernel.h",
        "aiocann/include/acl/acl.h",
        "aiocann/include/acl/acl_rt.h",
        "aiocann/include/acl/acl_rt_compile.h",
        "aiocann/include/aclsim_frontend.h",
        "aiocann/include/aclsim_entry.h",
        "aiocann/include/aclsim_host.h",
        "aiocann/examples/pipeline.py",
        "aiocann/examples/server.py",
        "aiocann/_benchmarks/_harness.py",
        "aiocann-*.dist-info/licenses/LICENSE",
    ]
    # the CANN-shaped toolkit (issue 23)
    libs = ("libascendcl.so", "libacl_rt.so", "libacl_rt_impl.so", "libacl_rtc.so")
    needs += [
        f"aiocann/toolkit/lib64/{lib}"
        for lib in libs + ("libascend_dump.so", "libmsprofiler.so", "libprofapi.so", "libacl_tdt_channel.so")
    ]
    needs += [
        "aiocann/toolkit/include/acl/acl.h",
        "aiocann/toolkit/include/acl/acl_base_rt.h",
        "aiocann/toolkit/include/acl/error_codes/rt_error_codes.h",
        "aiocann/toolkit/set_env.sh",
        "aiocann/toolkit/bin/setenv.bash",
        "aiocann/toolkit/bin/aclsim-chip",
        "aiocann/toolkit/tikcpp/ascendc_kernel_cmake/ascendc.cmake",
    ]
    needs += [f"aiocann/_kernels/{p.name}" for p in sorted((ROOT / "examples" / "kernels").glob("*.c*"))]
    needs += [f"aiocann/examples/kernels/{p.name}" for p in sorted((ROOT / "examples" / "kernels").iterdir())]
    needs += ["aiocann/_kernels/test_kernels.c"]
    needs += [f"aiocann/_benchmarks/{p.name}" for p in sorted((ROOT / "benchmarks").glob("bench_*.py"))]
    needs += ["aiocann/_benchmarks/ascendc_add.cpp"]  # the kernel bench_ascendc_add.py builds
    needs += [
        f"aiocann/include/ascendc/{p.name}" for p in sorted((ROOT / "native" / "include" / "ascendc").glob("*.h"))
    ]
    return needs


def check_contents(dist: Path) -> list[str]:
    problems = []
    (sdist,) = dist.glob("aiocann-*.tar.gz")
    (wheel,) = dist.glob("aiocann-*.whl")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    problems += [f"sdist lacks {p}" for p in sorted(tracked() - names)]
    problems += [
        f"sdist carries the build product {n}" for n in sorted(names) if any(fnmatch.fnmatch(n, b) for b in BUILT)
    ]
    with zipfile.ZipFile(wheel) as whl:
        wnames = whl.namelist()
        entry_points = next((whl.read(n).decode() for n in wnames if n.endswith(".dist-info/entry_points.txt")), "")
    problems += [f"wheel lacks {p}" for p in wheel_needs() if not fnmatch.filter(wnames, p)]
    if not re.search(r"\[pytest11\]\s*\naiocann\s*=\s*aiocann\.testing", entry_points):
        problems.append("wheel lacks the pytest11 entry point aiocann = aiocann.testing")
    print(f"{sdist.name}: {len(names)} files; {wheel.name}: {len(wnames)} files")
    return problems


def tour() -> str:
    text = (ROOT / "README.md").read_text()
    m = re.search(r"```python\n(import anyio.*?)```", text, re.S)
    if m is None:
        raise SystemExit("the README lost its tour")
    return m.group(1)


def main(argv: list[str]) -> int:
    if argv[:1] == ["contents"] and len(argv) == 2:
        problems = check_contents(Path(argv[1]))
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    if argv == ["tour"]:
        sys.stdout.write(tour())
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
