"""Piecewise cotangents: building a Piecewise without SymPy's exponential
evaluation, and the condition outside which a branchy cotangent is zero
(the support that guards a product instead of copying nested branches).
"""

from __future__ import annotations

from collections.abc import Sequence

from sympy import Add, And, Expr, Not, Or, Piecewise, S
from sympy.logic.boolalg import Boolean

from ..build import WIDE, connective
from ..build import piecewise as _piecewise
from ..graph import postorder
from .walkstate import WalkState

__all__ = ["piecewise", "support"]


def piecewise(pairs: Sequence[tuple]) -> Expr:
    """``Piecewise(*pairs)``, unevaluated past a few branches or over nested
    conditions (SymPy's evaluation compares every pair of branches and
    walks each condition as a tree, not a DAG: exponential in the depth of
    :func:`support`'s conditions).

    >>> from sympy import Symbol
    >>> x = Symbol("x")
    >>> piecewise([(x, x > 0), (x, True)])
    x
    """
    cheap = len(pairs) <= WIDE and not any(
        isinstance(c, (And, Or)) and any(isinstance(a, (And, Or)) for a in c.args)
        for _, c in pairs
    )
    return _piecewise(pairs, evaluate=cheap)


def _nested(ct: Expr) -> bool:
    """Whether a branch of ``ct`` holds branches of its own."""
    pws = [ct] if isinstance(ct, Piecewise) else [t for t in ct.args if isinstance(t, Piecewise)]
    return any(_branchy(pair.expr) for pw in pws for pair in pw.args)


def _any(alts: list) -> Boolean:
    """``Or(*alts)``, with the conjuncts common to all alternatives taken out
    (``(c ∧ s) ∨ (¬c ∧ s)`` is ``s``): the supports of nested ``where``s
    share their outer conditions, which SymPy's Boolean nodes would repeat,
    as trees, at every level."""
    if len(alts) < 2:
        return alts[0] if alts else S.false
    parts = [dict.fromkeys(a.args) if isinstance(a, And) else {a: None} for a in alts]
    common = set(parts[0]).intersection(*parts[1:])
    if not common:
        return connective(Or, alts)
    rest = connective(Or, [connective(And, [a for a in p if a not in common]) for p in parts])
    return connective(And, [*common, rest])


def support(ct: Expr, walk: WalkState | None = None) -> Boolean:
    """A condition outside which ``ct`` is exactly 0 (it may be 0 inside):
    the conditions under which a Piecewise takes a non-zero branch.  One
    node per Piecewise of ``ct``, shared (memoized for ``walk``).

    >>> from sympy import Piecewise, Symbol
    >>> x = Symbol("x")
    >>> support(Piecewise((0, x > 1), (Piecewise((x, x < -2), (0, True)), True)))
    (x <= 1) & (x < -2)
    """
    memo = {} if walk is None else walk.memo.setdefault("support", {})
    order, _ = postorder([ct], lambda e: _branches(e) if e not in memo else ())
    for e in order:
        if e in memo:
            continue
        if isinstance(e, Piecewise):
            alts, earlier = [], []
            for v, c in e.args:
                if v is not S.Zero and memo[v] is not S.false:
                    alts.append(connective(And, [c, *[Not(b) for b in earlier], memo[v]]))
                earlier.append(c)
            memo[e] = _any(alts)
        elif _branchy(e):
            memo[e] = _any([memo[t] for t in e.args])
        else:
            memo[e] = S.false if e is S.Zero else S.true
    return memo[ct]


def _branchy(e: Expr) -> bool:
    return isinstance(e, Piecewise) or (
        isinstance(e, Add) and any(isinstance(t, Piecewise) for t in e.args)
    )


def _branches(e: Expr) -> tuple:
    """What :func:`scale` distributes over: a Piecewise's branch values, the
    terms of a sum holding a Piecewise; anything else is a leaf."""
    if isinstance(e, Piecewise):
        return tuple(pair.expr for pair in e.args)
    return e.args if _branchy(e) else ()
