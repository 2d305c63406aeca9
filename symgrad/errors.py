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
