"""Exceptions raised by symgrad.

Every error names what went wrong (the node, the rule, the argument) and how
to fix it, so that a user never has to read a traceback from inside SymPy.
"""

from __future__ import annotations

__all__ = [
    "SymgradError",
    "RuleError",
    "NoRuleError",
    "ComplexValueError",
    "ShapeError",
]


class SymgradError(ValueError):
    """Base class of every error symgrad raises on bad input."""


class RuleError(SymgradError):
    """A derivative rule failed or returned something unusable for a node."""


class NoRuleError(SymgradError, LookupError):
    """A name (of a node or of a rule) that symgrad does not know."""


class ComplexValueError(SymgradError):
    """An expression has complex parts that a real-valued rule would get wrong."""


class ShapeError(SymgradError):
    """Tangents or cotangents whose shape does not match what they pair with."""


def describe(node: object, limit: int = 160) -> str:
    """``node`` as text for an error message, safely: a formula whose
    printed tree is huge or deep is abbreviated, never printed whole (that
    could take exponential time or hit Python's recursion limit).

    >>> from sympy import sin, symbols
    >>> x = symbols("x")
    >>> describe(sin(x) + 1)
    'sin(x) + 1'
    >>> e = x
    >>> for _ in range(60):
    ...     e = sin(e) + e
    >>> describe(e)
    'Add(x, ...)'
    """
    size = _tree_size(node, cap=limit)
    if size <= limit:
        text = str(node)
        return text if len(text) <= limit else text[: limit - 3] + "..."
    args = getattr(node, "args", ())
    inner = ", ".join(
        str(a) if _tree_size(a, cap=20) <= 20 else f"{type(a).__name__.lower()}(...)"
        for a in args[:1]
    )
    more = ", ..." if len(args) > 1 else ""
    return f"{type(node).__name__}({inner}{more})"


def _tree_size(node: object, cap: int) -> int:
    """Nodes in the printed tree of ``node``, counted up to ``cap``."""
    total = 0
    stack = [node]
    while stack and total <= cap:
        n = stack.pop()
        total += 1
        stack.extend(getattr(n, "args", ()))
    return total
