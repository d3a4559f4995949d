"""The simulator's file map (the comment that opens native/sim/sim.h) stays true.

The map is how a reader finds the file that owns a concept; it went stale once (11 of 38 files
missing, issue 24), so this test holds it to the tree: every native/sim/*.c has exactly one
entry with a description on its line, and the map names no file that does not exist.
"""

from __future__ import annotations

import re
from pathlib import Path

SIM = Path(__file__).resolve().parents[2] / "native" / "sim"

# An entry: " *   name.c   what it holds" -- the file name in the map's column, then words.
ENTRY = re.compile(r"^ \*   (?P<file>[A-Za-z0-9_]+\.c)(?P<rest>.*)$", re.MULTILINE)


def _map_text() -> str:
    text = (SIM / "sim.h").read_text()
    start = text.index("/*")
    return text[start : text.index("*/", start)]


def _entries() -> list[tuple[str, str]]:
    return [(m["file"], m["rest"].strip()) for m in ENTRY.finditer(_map_text())]


def test_every_simulator_file_is_in_the_map_once() -> None:
    named = [name for name, _ in _entries()]
    duplicated = sorted({name for name in named if named.count(name) > 1})
    assert not duplicated, f"named more than once in sim.h's file map: {duplicated}"
    on_disk = sorted(p.name for p in SIM.glob("*.c"))
    missing = sorted(set(on_disk) - set(named))
    assert not missing, f"native/sim files missing from sim.h's file map: {missing}"


def test_the_map_names_only_files_that_exist() -> None:
    on_disk = {p.name for p in SIM.glob("*.c")}
    stale = sorted(name for name, _ in _entries() if name not in on_disk)
    assert not stale, f"sim.h's file map names files that do not exist: {stale}"


def test_every_entry_says_what_its_file_holds() -> None:
    bare = sorted(name for name, rest in _entries() if not rest)
    assert not bare, f"sim.h's file map has entries without a description on their line: {bare}"
