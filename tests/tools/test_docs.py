"""The documentation's complete programs run as written (as test_readme.py does for the README):
every Python block in docs/ that ends in anyio.run(main), from a directory outside the checkout."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PROGRAMS = [
    pytest.param(code, id=f"{page.stem}-{i}")
    for page in sorted(DOCS.glob("**/*.md"))
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.S))
    if re.search(r"^anyio\.run\(main", code, re.M)
]


def test_the_docs_have_programs():
    assert len(PROGRAMS) >= 2


@pytest.mark.parametrize("code", PROGRAMS)
def test_program_runs(code, tmp_path):
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
