"""Function constructors that reuse nodes already in the formula.

A rule for ``sin(x)`` builds ``cos(x)``; when the formula already holds
``cos(x)`` (it usually does: the same argument feeds both), constructing it
anew would run SymPy's ``eval`` on a possibly huge argument for nothing.
While a walk runs, :data:`NODES` holds its nodes, and the wrappers here
return the existing node instead.
"""

from __future__ import annotations

from contextvars import ContextVar

import sympy

__all__ = ["NODES", "shared"]

NODES: ContextVar[dict | None] = ContextVar("symgrad_walk_nodes", default=None)


class shared:  # noqa: N801  (reads like the function it wraps)
    """``shared(sympy.cos)(x)`` is ``cos(x)``, reusing a node of the walk."""

    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __call__(self, *args):
        nodes = NODES.get()
        if nodes:
            hit = nodes.get(self.cls(*args, evaluate=False))
            if hit is not None:
                return hit
        try:
            return self.cls(*args)
        except RecursionError:  # its evaluation asks SymPy's assumptions of a
            # deep argument, which recurse (sign of 3,000 nested square roots)
            return self.cls(*args, evaluate=False)

    def __repr__(self) -> str:
        return f"shared({self.cls.__name__})"


sin, cos, tan, cot = (shared(c) for c in (sympy.sin, sympy.cos, sympy.tan, sympy.cot))
sinh, cosh, tanh, coth = (shared(c) for c in (sympy.sinh, sympy.cosh, sympy.tanh, sympy.coth))
exp, log, sign, floor = (shared(c) for c in (sympy.exp, sympy.log, sympy.sign, sympy.floor))
polygamma = shared(sympy.polygamma)
Abs, conjugate = shared(sympy.Abs), shared(sympy.conjugate)
