"""What the kernel compiler reads from the ELF files it builds: sections, symbols, relocations.

The front-end (aiocann.compiler) learns which kernels a translation unit defines from the symbol
table of a scouting object (their mangled names and visibility), which function a name
expression denotes from a relocation, and a built kernel binary's signatures from two sections
its entry stub writes. This module reads exactly that much of 64-bit little-endian ELF, from
a file or from bytes, without loading anything.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

__all__ = ["ElfError", "ElfFile", "Symbol"]

STB_LOCAL = 0
STT_FUNC = 2
STV_PROTECTED = 3
SHT_SYMTAB = 2
SHT_RELA = 4
SHN_UNDEF = 0


class ElfError(ValueError):
    """Not a 64-bit little-endian ELF file, or a malformed one."""


@dataclass(frozen=True)
class Symbol:
    name: str
    section: int  # section index; 0 when undefined
    value: int  # in an object file: the offset in its section
    bind: int
    type: int
    visibility: int


class ElfFile:
    """A parsed ELF image: ``section(name)`` gives a section's bytes, ``symbols`` the symbol
    table, ``relocated_symbols(name)`` the symbols the relocations of section ``name`` name."""

    def __init__(self, data: bytes) -> None:
        if len(data) < 64 or data[:4] != b"\x7fELF":
            raise ElfError("not an ELF file")
        if data[4] != 2 or data[5] != 1:
            raise ElfError("not a 64-bit little-endian ELF file")
        self.data = data
        (shoff,) = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        if shoff == 0 or shentsize != 64 or shoff + shnum * 64 > len(data):
            raise ElfError("the section headers are missing or lie past the end of the file")
        self._headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * 64) for i in range(shnum)]
        names = self._raw(shstrndx) if shstrndx < shnum else b""
        self._names = [_cstr(names, h[0]) for h in self._headers]
        self._symbols: list[Symbol] | None = None

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> ElfFile:
        with open(path, "rb") as f:
            return cls(f.read())

    def _raw(self, index: int) -> bytes:
        h = self._headers[index]
        offset, size = h[4], h[5]
        if h[1] == 8:  # SHT_NOBITS
            return b""
        if offset + size > len(self.data):
            raise ElfError(f"section {index} lies past the end of the file")
        return self.data[offset : offset + size]

    def section(self, name: str) -> bytes | None:
        """The contents of the first section called ``name``, or None."""
        for i, n in enumerate(self._names):
            if n == name:
                return self._raw(i)
        return None

    @property
    def symbols(self) -> list[Symbol]:
        """The static symbol table (``.symtab``), in order; empty when stripped."""
        if self._symbols is None:
            self._symbols = []
            for i, h in enumerate(self._headers):
                if h[1] != SHT_SYMTAB:
                    continue
                table, strings = self._raw(i), self._raw(h[6])
                for off in range(0, len(table) - 23, 24):
                    st_name, st_info, st_other, st_shndx, st_value = struct.unpack_from("<IBBHQ", table, off)
                    self._symbols.append(
                        Symbol(_cstr(strings, st_name), st_shndx, st_value, st_info >> 4, st_info & 15, st_other & 3)
                    )
                break
        return self._symbols

    def relocated_symbols(self, name: str) -> list[tuple[int, str]]:
        """(offset, symbol name) of each relocation applied to section ``name`` (an object's
        ``.rela<name>``), in offset order."""
        target = [i for i, n in enumerate(self._names) if n == name]
        out = []
        for i, h in enumerate(self._headers):
            if h[1] != SHT_RELA or h[7] not in target:
                continue
            rela = self._raw(i)
            for off in range(0, len(rela) - 23, 24):
                r_offset, r_info = struct.unpack_from("<QQ", rela, off)
                index = r_info >> 32
                if index < len(self.symbols):
                    out.append((r_offset, self.symbols[index].name))
        return sorted(out)

    def section_index(self, name: str) -> int:
        """The index of the first section called ``name``, or -1."""
        return self._names.index(name) if name in self._names else -1

    def section_name(self, index: int) -> str:
        return self._names[index] if 0 <= index < len(self._names) else ""


def _cstr(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    return table[offset : end if end >= 0 else len(table)].decode("utf-8", "replace")
