"""The README's async tour runs as written (keeps the README true)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_tour_runs(tmp_path):
    text = (ROOT / "README.md").read_text()
    tour = re.search(r"```python\n(import anyio.*?)```", text, re.S)
    assert tour, "the README lost its tour"
    # From another directory: the tour must not depend on the checkout being the cwd.
    result = subprocess.run(
        [sys.executable, "-c", tour.group(1)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
