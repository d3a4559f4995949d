"""A griffe extension for the API reference: aiocann's docstrings are written in reST habits
(``code``, :class:`Name`, a paragraph ending in ``::`` before a literal block), and MkDocs
renders Markdown. Rewriting those few constructs here keeps the docstrings as they are.

It also gives each exception class of aiocann.errors the ACL codes it stands for, read from its
``@_register("ACL_ERROR_...")`` decorator and the one code table (aiocann.errors.ERROR_CODES,
pure Python), so the errors page can never disagree with what ``check(rc)`` raises.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|exc|mod|data|obj):`~?([^`]+)`")
_LITERAL = re.compile(r"(?<=\S)::\n\n", re.M)


def markdown(text: str) -> str:
    text = _ROLE.sub(lambda m: f"`{m.group(1)}`", text)
    return _LITERAL.sub(":\n\n", text)


_REGISTER = re.compile(r"^_register\((.*)\)$", re.S)


def _codes(obj: griffe.Object) -> str | None:
    """ "Codes: `ACL_ERROR_X` (N), ..." for a class registered for codes, else None."""
    if not isinstance(obj, griffe.Class) or not obj.path.startswith("aiocann.errors."):
        return None
    from aiocann.errors import ERROR_CODES  # imports no runtime library

    for decorator in obj.decorators:
        m = _REGISTER.match(str(decorator.value))
        if m:
            names = re.findall(r"['\"](ACL_[A-Z0-9_]+)['\"]", m.group(1))
            return "Codes: " + ", ".join(f"`{n}` ({ERROR_CODES[n]})" for n in names) + "."
    return None


class RstRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
        codes = _codes(obj)
        if codes is not None and obj.docstring is not None:
            obj.docstring.value = f"{obj.docstring.value.rstrip()}\n\n{codes}"
