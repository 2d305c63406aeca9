"""Lowering: the expression that is *evaluated* in place of a formula.

Marker nodes (:mod:`symgrad.nodes`) matter to differentiation only; before a
formula is evaluated or emitted each one is replaced by what it lowers to,
``node._symgrad_lower(*lowered_args)``.  The pass knows no marker by name,
walks the DAG bottom-up once (no recursion, so any depth), and rebuilds only
the nodes below which something changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from sympy import Basic, Expr

from .graph import postorder
from .nodes import is_marker
from .shapes import flatten_exprs

__all__ = ["lower", "expand"]


def lower(exprs: Iterable[Basic]) -> list[Basic]:
    """Each expression with every marker node replaced by its lowering.

    >>> from sympy import symbols, sin
    >>> x = symbols("x")
    >>> lower([sin(x) + 1, x])
    [sin(x) + 1, x]
    """
    roots = list(exprs)
    memo: dict[Basic, Basic] = {}
    _lower_into(roots, memo)
    return [memo[r] for r in roots]


def _lower_into(roots: list[Basic], memo: dict[Basic, Basic]) -> None:
    """Fill ``memo[node]`` (the lowered node) for every node below ``roots``.

    Nodes already in ``memo`` are not walked again, so a marker whose
    lowering holds further markers costs only its new part.
    """
    order, kids = postorder(roots, lambda n: () if n in memo else n.args)
    for node in order:
        if node in memo:
            continue
        args = kids[node]
        low = tuple(memo[a] for a in args)
        if is_marker(node):
            out = node._symgrad_lower(*low)
            if memo.get(out) is not out:
                _lower_into([out], memo)  # nests only as deep as markers make markers
                out = memo[out]
        elif any(a is not b and a != b for a, b in zip(low, args)):
            # (an equal copy is no change: rebuilding would re-evaluate it)
            out = node.func(*low)
        else:
            out = node
        memo[node] = out
        memo.setdefault(out, out)


def expand(expr: Expr | list | tuple) -> Expr | list | tuple:
    """``expr`` as plain SymPy: markers lowered to what they evaluate as.

    Takes an expression, a list/tuple, or a Matrix, and returns the same
    structure.  Plain SymPy passes through unchanged.

    >>> from sympy import symbols, exp
    >>> x, y = symbols("x y")
    >>> expand(exp(x) * y)
    y*exp(x)
    >>> expand([x, 2 * y])
    [x, 2*y]
    """
    flat, struct = flatten_exprs(expr, "expr")
    out = lower(flat)
    if isinstance(expr, list):
        return out
    return struct.build(out)
