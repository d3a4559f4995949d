"""A griffe extension for the API reference: aiocann's docstrings are written in reST habits
(``code``, :class:`Name`, a paragraph ending in ``::`` before a literal block), and MkDocs
renders Markdown. Rewriting those few constructs here keeps the docstrings as they are.
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


class RstRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
