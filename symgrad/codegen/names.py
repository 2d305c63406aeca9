"""Safe Python names for the arguments and temporaries of generated code.

A symbol's name is only a label in SymPy (``Symbol("x.1")``,
``Symbol("lambda")``, ``Symbol("import os")`` are all legal); in generated
code it must be an identifier that is not a keyword and does not shadow
``np`` or a temporary.  Names are made from the characters of the original
(nothing a user wrote is ever evaluated) and made unique.
"""

from __future__ import annotations

import builtins
import keyword
import re
import unicodedata

__all__ = ["Namer"]

_RESERVED = frozenset({"np", "scipy"}) | frozenset(dir(builtins))
_BAD = re.compile(r"\W")


def _sanitize(name: str) -> str:
    """``name`` reduced to an identifier: ``x.1 -> x_1``, ``import os -> import_os``."""
    # Python reads identifiers in NFKC form: a full-width "ｔ0" is the name t0
    out = _BAD.sub("_", unicodedata.normalize("NFKC", name))
    if not out or not out.isidentifier():
        out = "_" + out
    if not out.isidentifier():  # e.g. only non-ASCII letters Python rejects
        out = "_" + "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in out)
    if keyword.iskeyword(out) or keyword.issoftkeyword(out) or out in _RESERVED:
        out += "_"
    return out


class Namer:
    """Hands out unique identifiers; temporaries never clash with arguments.

    >>> n = Namer()
    >>> n.name("x.1"), n.name("lambda"), n.name("import os"), n.name("x_1")
    ('x_1', 'lambda_', 'import_os', 'x_1_1')
    """

    def __init__(self, reserved: frozenset[str] = frozenset()) -> None:
        self.used: set[str] = set(reserved)  # names the surrounding code uses

    def name(self, wanted: str) -> str:
        base = _sanitize(wanted)
        out, k = base, 0
        while out in self.used:
            k += 1
            out = f"{base}_{k}"
        self.used.add(out)
        return out

    def temps(self, prefix: str = "t"):
        """An endless supply of fresh names ``t0, t1, ...`` (skipping used ones)."""
        k = 0
        while True:
            cand = f"{prefix}{k}"
            k += 1
            if cand not in self.used:
                self.used.add(cand)
                yield cand
