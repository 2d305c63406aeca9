"""Piecewise cotangents: building a Piecewise without SymPy's exponential
evaluation, the condition outside which a branchy cotangent is zero
(the support that guards a product instead of copying nested branches),
and the cotangent of one branch of a wide Piecewise, which selects on the
branch taken, named once (:func:`selected`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sympy import Add, And, Eq, Expr, Integer, Not, Or, Piecewise, S
from sympy.logic.boolalg import Boolean

from ..build import WIDE, bare, connective
from ..build import Piecewise as _AsWritten
from ..build import piecewise as _piecewise
from ..graph import postorder
from .walkstate import WalkState

__all__ = ["piecewise", "support", "Taken", "taken", "selected", "selection", "spread"]


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


# ---- one branch's cotangent of a wide Piecewise ------------------------------
# A cotangent that is ``ct`` in branch i and 0 in the others, written over
# the node's conditions, has i + 1 pairs: n branches, n² pairs.  Past WIDE
# branches it is written over one shared node instead, the position of the
# branch taken, and the walker spreads the cotangents that meet back over
# the conditions (:func:`spread`): one Piecewise, as before.


class Taken(_AsWritten):
    """The position of the branch a Piecewise takes: ``Piecewise((0, c₀),
    (1, c₁), …)`` over its conditions (built by :func:`taken`), the one
    node that the cotangents of its branches select on.

    >>> from sympy import Symbol
    >>> x = Symbol("x", real=True)
    >>> t = taken([x < 0, x < 1, True])
    >>> t
    Taken((0, x < 0), (1, x < 1), (2, True))
    >>> t.subs(x, 0.5)
    1
    """


def taken(conds: Sequence) -> Expr:
    """The :class:`Taken` node of a Piecewise with conditions ``conds``
    (false and repeated conditions dropped, as :func:`symgrad.build.piecewise`
    drops them: their branch is never taken).

    >>> from sympy import Symbol, false
    >>> x = Symbol("x", real=True)
    >>> t = taken([x < 0, false, x < 1, True])
    >>> [int(j) for j, _ in t.args], t.subs(x, 0.5)
    ([0, 2, 3], 2)
    """
    pw = _piecewise([(Integer(j), c) for j, c in enumerate(conds)], evaluate=False)
    return bare(Taken, pw.args) if isinstance(pw, Piecewise) else pw


def selected(ct: Expr, where: Expr, i: int) -> Expr:
    """``ct`` where the branch taken (``where``, from :func:`taken`) is the
    ``i``-th, else 0: two pairs, whatever the number of branches.

    >>> from sympy import Symbol
    >>> x, y = Symbol("x", real=True), Symbol("y")
    >>> selected(y, taken([x < 0, x < 1, True]), 1).subs(x, 0.5)
    y
    """
    if not isinstance(where, Taken):  # one branch: always taken
        return ct
    return _piecewise([(ct, Eq(where, Integer(i), evaluate=False)), (S.Zero, True)],
                      evaluate=False)


def selection(t: Expr) -> tuple | None:
    """``(where, i, value)`` for a cotangent built by :func:`selected` (or
    scaled since: the value scaled, the condition kept), else None.

    >>> from sympy import Symbol
    >>> x, y = Symbol("x", real=True), Symbol("y")
    >>> where = taken([x < 0, True])
    >>> selection(selected(y, where, 1)) == (where, 1, y), selection(y)
    (True, None)
    """
    if not (isinstance(t, Piecewise) and len(t.args) == 2):
        return None
    (value, c), last = t.args
    if last.cond is S.true and last.expr is S.Zero and isinstance(c, Eq) \
            and isinstance(c.lhs, Taken):
        return c.lhs, c.rhs, value
    return None


def spread(where: Taken, values: dict) -> list:
    """The values by branch position, over ``where``'s conditions: the
    dense form of the cotangents selected on it (``values``: position
    (an Integer) -> value; missing positions are 0).

    >>> from sympy import Integer, Symbol
    >>> x, y = Symbol("x", real=True), Symbol("y")
    >>> spread(taken([x < 0, x < 1, True]), {Integer(2): y})
    [0, 0, y]
    """
    return [values.get(j, S.Zero) for j, _ in where.args]
