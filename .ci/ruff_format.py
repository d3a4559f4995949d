"""ruff format, on the files listed in .ci/formatted.txt only.

    python .ci/ruff_format.py --check          every listed file (what .ci/run does)
    python .ci/ruff_format.py [--check] FILE.. those of FILE.. that are listed (pre-commit)

A listed file that does not exist is an error, so the list cannot silently rot.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / ".ci" / "formatted.txt"


def listed() -> list[str]:
    lines = (line.strip() for line in LIST.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    given = [a for a in argv if a != "--check"]
    files = listed()
    missing = [f for f in files if not (ROOT / f).is_file()]
    if missing:
        print(f"{LIST.relative_to(ROOT)} lists missing files: {', '.join(missing)}", file=sys.stderr)
        return 1
    if given:
        wanted = set(files)
        files = [f for f in given if Path(f).resolve().relative_to(ROOT).as_posix() in wanted]
    if not files:
        return 0
    cmd = [sys.executable, "-m", "ruff", "format", *(["--check"] if check else []), *files]
    return subprocess.call(cmd, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
