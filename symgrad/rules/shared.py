"""Function constructors that reuse nodes already in the formula.

A rule for ``sin(x)`` builds ``cos(x)``; when the formula already holds
``cos(x)`` (it usually does: the same argument feeds both), constructing it
anew would run SymPy's ``eval`` on a possibly huge argument for nothing.
The walk's nodes reach the constructor as its first argument, the running
walk's state (a rule's ``opts.walk``): ``cos(walk, x)`` returns the walk's
own ``cos(x)`` where it has one, else builds it (``walk`` None: outside a
walk, it is ``sympy.cos(x)``).  Nothing ambient: a rule table's partial
functions that build such nodes take the walk as their last argument
(``PartialsRule(..., walk=True)``).
"""

from __future__ import annotations

import sympy

__all__ = ["shared"]


class shared:  # noqa: N801  (reads like the function it wraps)
    """``shared(sympy.cos)(walk, x)`` is ``cos(x)``, the walk's own node
    where it holds one.

    >>> from sympy import Symbol
    >>> from symgrad.rules.walkstate import WalkState
    >>> x = Symbol("x")
    >>> mine = sympy.cos(x)
    >>> cos(WalkState(nodes={mine: mine}), x) is mine, cos(None, x) == mine
    (True, True)
    """

    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __call__(self, walk, *args):
        nodes = walk.nodes if walk is not None else None
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
