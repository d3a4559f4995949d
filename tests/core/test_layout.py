"""The house's layout: imports point down, so no module imports inside a function body.

A function-level import is how a run-time import circle hides (device.py importing stream.py
inside ``Device.stream`` because stream.py imports device.py): the circle is still there, the
import just runs later, on every call. This test parses every module of ``aiocann/`` (not
``aiocann/acl``, the pyACL surface, which has its own generator) and fails on any import --
an ``import`` statement, ``importlib.import_module`` or ``__import__`` -- inside a function,
except of an optional dependency, or one of the few lazy imports listed below with the reason
each must stay lazy.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "aiocann"

# Third-party packages aiocann runs without: imported where they are used, when they are.
OPTIONAL = {"trio", "uvloop", "pytest_asyncio", "torch", "torch_npu", "ray"}

# (module file, imported module) -> why it is imported inside a function. Each one keeps a
# cheap import cheap: ``import aiocann`` loads the native runtime (aiocann._lib), and these
# modules must work, or start, without loading it -- or without the async core and its anyio.
LAZY = {
    ("__init__.py", "importlib"): "the package's lazy attributes: `import aiocann.acl` pays for no async core",
    ("compiler.py", "._lib"): "build_kernel runs without a loadable runtime; aclrtc needs it",
    ("sim.py", "._lib"): "sim.chip() loads the runtime only when asked",
    ("testing.py", "aiocann"): "the pytest plugin loads in every pytest run: the runtime only for a test that asks",
    ("testing.py", ".device"): "the pytest plugin (as above): the async core only for a test that asks",
}
# Whole files whose functions import what they run.
LAZY_FILES = {
    "__main__.py": "the command line: each subcommand imports what it runs, so `python -m aiocann cc` "
    "starts without loading the runtime or anyio",
}


def _imports_in_functions(tree: ast.Module) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if in_function:
                if isinstance(child, ast.Import):
                    found.extend((child.lineno, alias.name) for alias in child.names)
                elif isinstance(child, ast.ImportFrom):
                    found.append((child.lineno, "." * child.level + (child.module or "")))
                elif isinstance(child, ast.Call):
                    f = child.func
                    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                    if name in ("import_module", "__import__"):
                        arg = child.args[0] if child.args else None
                        what = arg.value if isinstance(arg, ast.Constant) else "<computed>"
                        found.append((child.lineno, f"{name}({what})"))
            visit(child, inner)

    visit(tree, False)
    return found


def _allowed(file: str, module: str) -> bool:
    if file in LAZY_FILES:
        return True
    if module.split(".")[0] in OPTIONAL:
        return True
    if module.startswith(("import_module(", "__import__(")):
        inner = module[module.index("(") + 1 : -1]
        return inner.split(".")[0] in OPTIONAL or (file == "__init__.py" and inner == "<computed>")
    return (file, module) in LAZY


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_no_import_inside_a_function(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = [
        f"{path.name}:{line}: {module}"
        for line, module in _imports_in_functions(tree)
        if not _allowed(path.name, module)
    ]
    assert not bad, "imports inside a function body (import at module level, below the importer):\n" + "\n".join(bad)


def test_the_check_sees_a_function_level_import() -> None:
    source = (
        "def f():\n    from .stream import Stream\n\n"
        "async def g():\n    import importlib\n    importlib.import_module('aiocann.device')\n"
    )
    found = _imports_in_functions(ast.parse(source))
    assert found == [(2, ".stream"), (5, "importlib"), (6, "import_module(aiocann.device)")]
    assert not any(_allowed("device.py", m) for _, m in found)


def test_the_lazy_list_is_still_needed() -> None:
    """An entry whose import moved to module level is removed from LAZY, so it cannot hide a
    new one later."""
    used = set()
    for path in PACKAGE.glob("*.py"):
        for _, module in _imports_in_functions(ast.parse(path.read_text())):
            used.add((path.name, module))
    assert set(LAZY) <= used, f"stale LAZY entries: {sorted(set(LAZY) - used)}"


def test_the_context_module_is_the_floor() -> None:
    """aiocann/_context.py (the task's current device and stream) imports nothing of aiocann
    at run time: every module can import it at module level."""
    tree = ast.parse((PACKAGE / "_context.py").read_text())
    runtime_imports = [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level > 0  # not under `if TYPE_CHECKING:`
    ]
    assert not runtime_imports


def test_module_level_imports_form_no_circle() -> None:
    """The package's modules import each other (at module level, outside ``if TYPE_CHECKING``)
    along a hierarchy: no circle, so none needs hiding in a function."""
    deps: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        found = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found.update([node.module] if node.module else [a.name for a in node.names])
        deps[path.stem] = found & {p.stem for p in PACKAGE.glob("*.py")}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import circle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for dep in sorted(deps[module]):
            visit(dep, (*path, module))
        done.add(module)

    for module in sorted(deps):
        visit(module, ())
