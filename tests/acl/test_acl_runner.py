"""``python -m aiocann.acl PROGRAM.py [ARGS...]``: an unmodified pyACL program runs with
``import acl`` resolved to aiocann.acl, as ``__main__``, with its own argv and exit status.
Each test runs the runner in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A pyACL program as found in the wild: `import acl`, return codes checked by hand, sys.exit.
PYACL_PROGRAM = """\
import sys

import acl
import acl.rt
from acl import util

import helper  # a sibling module: the program's directory is first on sys.path

ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2


def main():
    print("name", __name__)
    print("argv", sys.argv[1:])
    print("facade", acl.__name__, acl.rt is sys.modules["aiocann.acl.rt"], util is acl.util)
    ret = acl.init()
    assert ret == 0, ret
    assert acl.rt.set_device(0) == 0
    stream, ret = acl.rt.create_stream()
    data = helper.PAYLOAD
    dev, ret = acl.rt.malloc(len(data), 0)
    assert ret == 0, ret
    assert acl.rt.memcpy(dev, len(data), util.bytes_to_ptr(data), len(data), ACL_MEMCPY_HOST_TO_DEVICE) == 0
    out = bytes(len(data))
    assert acl.rt.memcpy_async(util.bytes_to_ptr(out), len(out), dev, len(data), ACL_MEMCPY_DEVICE_TO_HOST,
                               stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    print("roundtrip", out == data)
    print("bad free", acl.rt.free(0))
    assert acl.rt.free(dev) == 0
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.reset_device(0) == 0
    assert acl.finalize() == 0
    return int(sys.argv[1])


if __name__ == "__main__":
    sys.exit(main())
"""


def run_acl(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.setdefault("AIOCANN_BACKEND", "sim")
    return subprocess.run(
        [sys.executable, "-m", "aiocann.acl", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd or ROOT,
        env=env,
    )


@pytest.fixture
def program(tmp_path: Path) -> Path:
    (tmp_path / "helper.py").write_text("PAYLOAD = bytes(range(256)) * 4\n")
    path = tmp_path / "pyacl_program.py"
    path.write_text(PYACL_PROGRAM)
    return path


def test_runner_runs_pyacl_program_unchanged(program: Path, tmp_path: Path):
    proc = run_acl(str(program), "7", "--flag", cwd=tmp_path.parent)
    assert proc.returncode == 7, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines == [
        "name __main__",
        "argv ['7', '--flag']",
        "facade aiocann.acl True True",
        "roundtrip True",
        "bad free 100000",
    ]


def test_runner_exit_status_zero_and_exceptions(program: Path, tmp_path: Path):
    assert run_acl(str(program), "0").returncode == 0
    failing = tmp_path / "failing.py"
    failing.write_text("import acl\nassert acl.init() == 0\nraise ValueError('program failed on purpose')\n")
    proc = run_acl(str(failing))
    assert proc.returncode == 1
    assert "ValueError: program failed on purpose" in proc.stderr
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit('fatal: message')\n")
    proc = run_acl(str(exits))
    assert proc.returncode == 1 and "fatal: message" in proc.stderr


def test_runner_usage_errors(tmp_path: Path):
    proc = run_acl()
    assert proc.returncode == 2 and "usage: python -m aiocann.acl" in proc.stderr
    proc = run_acl(str(tmp_path / "missing.py"))
    assert proc.returncode == 2 and "missing.py" in proc.stderr
    proc = run_acl("--help")
    assert proc.returncode == 0 and "usage" in proc.stdout


def test_runner_callbacks_program(tmp_path: Path):
    """A callback program in pyACL style, run through the runner: start_thread + report loop."""
    path = tmp_path / "callbacks.py"
    path.write_text(
        textwrap.dedent(
            """\
            import threading
            import acl

            exiting = False
            seen = []

            def loop(args):
                ctx = args[0]
                acl.rt.set_context(ctx)
                while not exiting:
                    acl.rt.process_report(100)

            def callback(user_data):
                seen.append((user_data, threading.get_ident()))

            assert acl.init() == 0
            assert acl.rt.set_device(0) == 0
            ctx, ret = acl.rt.get_context()
            stream, ret = acl.rt.create_stream()
            tid, ret = acl.util.start_thread(loop, [ctx])
            assert ret == 0
            assert acl.rt.subscribe_report(tid, stream) == 0
            for i in range(3):
                assert acl.rt.launch_callback(callback, i, 1, stream) == 0
            assert acl.rt.synchronize_stream(stream) == 0
            assert acl.rt.unsubscribe_report(tid, stream) == 0
            exiting = True
            assert acl.util.stop_thread(tid) == 0
            print([d for d, _ in seen], all(t == tid for _, t in seen))
            acl.rt.destroy_stream(stream)
            acl.rt.reset_device(0)
            acl.finalize()
            """
        )
    )
    proc = run_acl(str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[0, 1, 2] True"


def test_example_pyacl_add_both_ways():
    example = ROOT / "examples" / "pyacl_add.py"
    via_runner = run_acl(str(example))
    assert via_runner.returncode == 0, via_runner.stderr
    assert "PASS" in via_runner.stdout and "via aiocann.acl" in via_runner.stdout
    direct = subprocess.run(
        [sys.executable, str(example)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "AIOCANN_BACKEND": os.environ.get("AIOCANN_BACKEND", "sim")},
    )
    assert direct.returncode == 0, direct.stderr
    assert direct.stdout.splitlines()[:3] == [
        "z: ok (65536/65536 elements match)",
        "z2: ok (65536/65536 elements match)",
        "z3: ok (65536/65536 elements match)",
    ]


# --------------------------------------------------------------------------- python's forms


def test_runner_dash_c(tmp_path: Path):
    """``-c CODE``: argv[0] is '-c', the current directory comes first on sys.path."""
    (tmp_path / "sibling.py").write_text("VALUE = 42\n")
    code = "import sys, acl, sibling; print(sys.argv, sibling.VALUE, acl.rt.get_run_mode(), __name__)"
    proc = run_acl("-c", code, "x", "--y", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['-c', 'x', '--y'] 42 (1, 0) __main__"


def test_runner_dash_m_pytest(tmp_path: Path):
    """``-m MODULE``: a test suite written for pyACL runs under pytest with `import acl`."""
    (tmp_path / "test_pyacl_suite.py").write_text(
        textwrap.dedent(
            """\
            import acl

            def test_device():
                assert acl.init() in (0, 100002)
                assert acl.rt.set_device(0) == 0
                assert acl.rt.get_run_mode() == (1, 0)
                assert acl.rt.reset_device(0) == 0
            """
        )
    )
    proc = run_acl("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_pyacl_suite.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
    proc = run_acl("-m", "no_such_module_anywhere", cwd=tmp_path)
    assert proc.returncode == 1 and "No module named no_such_module_anywhere" in proc.stderr


def test_runner_stdin(tmp_path: Path):
    env = {**os.environ, "AIOCANN_BACKEND": "sim"}
    proc = subprocess.run(
        [sys.executable, "-m", "aiocann.acl", "-", "arg"],
        input="import sys, acl\nprint(sys.argv, acl.get_soc_name())\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['-', 'arg'] Ascend910B1"


def test_traceback_starts_at_the_program(tmp_path: Path):
    """An uncaught exception is reported as `python PROGRAM.py` reports it: no frame of the
    runner or of runpy above the program's."""
    program = tmp_path / "crash.py"
    program.write_text("import acl\n\ndef inner():\n    raise RuntimeError('boom')\n\ninner()\n")
    for args in ([str(program)], ["-c", "import acl\nraise RuntimeError('boom')"], ["-m", "crash"]):
        proc = run_acl(*args, cwd=tmp_path)
        assert proc.returncode == 1
        lines = proc.stderr.strip().splitlines()
        assert lines[0] == "Traceback (most recent call last):"
        assert lines[-1] == "RuntimeError: boom"
        assert "aiocann/acl/__main__.py" not in proc.stderr and "runpy" not in proc.stderr, proc.stderr
        frames = [line for line in lines if line.startswith('  File "')]
        assert frames and ("crash.py" in frames[0] or "<string>" in frames[0]), proc.stderr


CHILDREN = """
import multiprocessing
import subprocess
import sys

import acl


def child(queue):
    import acl
    import acl.rt

    queue.put((acl.__name__, acl.rt.__name__, acl.get_soc_name()))


if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=child, args=(queue,))
    proc.start()
    print("spawn", *queue.get(timeout=60))
    proc.join(60)
    code = "import acl, acl.rt; print('subprocess', acl.__name__, acl.rt.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    print(out.stdout.strip() or out.stderr)
"""


def test_import_acl_works_in_the_programs_child_processes(tmp_path):
    # As with real pyACL (CANN's set_env.sh puts it on PYTHONPATH): the processes a program
    # starts -- multiprocessing spawn children, subprocesses of sys.executable, a Ray cluster's
    # workers -- import acl too, and get aiocann's facade.
    (tmp_path / "children.py").write_text(CHILDREN)
    r = run_acl(str(tmp_path / "children.py"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "spawn aiocann.acl aiocann.acl.rt Ascend910B1" in lines, r.stdout
    assert "subprocess aiocann.acl aiocann.acl.rt" in lines, r.stdout


def test_a_real_pyacl_is_never_shadowed_in_child_processes(tmp_path):
    # Where CANN's pyACL is importable, the runner's program still gets aiocann's facade, but the
    # processes it starts keep the real one.
    real = tmp_path / "cann" / "acl"
    real.mkdir(parents=True)
    (real / "__init__.py").write_text("REAL = True\n")
    code = (
        "import subprocess, sys, acl; print('parent', acl.__name__); "
        "print(subprocess.run([sys.executable, '-c', 'import acl; print(\"child\", acl.__name__, acl.REAL)'], "
        "capture_output=True, text=True).stdout.strip())"
    )
    env = {**os.environ, "AIOCANN_BACKEND": "sim", "PYTHONPATH": str(tmp_path / "cann")}
    r = subprocess.run(
        [sys.executable, "-m", "aiocann.acl", "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["parent aiocann.acl", "child acl True"], r.stdout


def test_pytest_under_the_runner_has_no_plugin_warning(tmp_path):
    (tmp_path / "test_uses_acl.py").write_text("import acl\n\ndef test_soc():\n    assert acl.get_soc_name()\n")
    r = run_acl(
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-W",
        "error::pytest.PytestAssertRewriteWarning",
        str(tmp_path / "test_uses_acl.py"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "already imported" not in r.stdout + r.stderr
