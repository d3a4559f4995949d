"""Where the repository's examples and kernels are, and importing an example as its own module."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
EXAMPLE_KERNELS = EXAMPLES / "kernels"
TEST_KERNELS = ROOT / "tests" / "kernels"


def load_example(name: str) -> ModuleType:
    """Import examples/<name>.py as the module ``name``, as running it from examples/ would
    (examples import each other: server.py and ray_serve.py share inference.py)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)
