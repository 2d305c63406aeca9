"""Piecewise formulas made cheaper to run as traced code, with the same
values: under ``jax.jit`` and in eager PyTorch a Piecewise is a ``where``
over every branch, each computed at every point, so a branch no point
reaches, and a branch that is another's mirror image, cost as much as the
ones that are used.

:func:`shared_branches` rewrites each Piecewise whose conditions are on the
sign of one real symbol ``s``:

* a branch no real ``s`` reaches (its condition implied by the earlier
  ones: stabilize's regimes often hold an ``x >= 0 & x <= 0`` after
  ``x <= 0``) is dropped;
* two branches left, one on (-oo, 0] (or (-oo, 0)) and one on the rest,
  where the second is the first's mirror image (``B(s) = A(-s)``: an even
  formula, as stabilize's exp-normalized regimes per sign of ``sigmoid'``,
  ``tanh'`` or ``sech**2``), become ``A(-|s|)``: one branch, computed once.
  ``B(s) = -A(-s)`` (odd) selects between ``A(-|s|)`` and its negation.

The mirror image is checked on the formulas (SymPy's canonical forms of
``A(-s)`` and ``B`` equal), so the folded formula is the same function.  It
is computed by ``A``'s float operations as written (nothing re-evaluated:
stabilize's forms are written for their rounding) at ``-|s|``, which is
``s`` on ``A``'s side and ``-s`` on ``B``'s: at points of ``A``'s side, as
accurate as ``A`` is there.  So the fold is made only where the domain of
``s`` holds the mirror image of ``B``'s side within ``A``'s (a symmetric
domain, or all floats).
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy
from sympy import Abs, Basic, Interval, Mul, S, Symbol, oo

from ..build import mapped, piecewise, replaced
from ..graph import postorder

__all__ = ["shared_branches"]

_NEGATIVE = Interval(-oo, 0)
_POSITIVE = Interval(0, oo)


def shared_branches(forms: list, domain: Mapping | None = None) -> list:
    """``forms`` with each Piecewise on the sign of one symbol folded
    (dead branches dropped, mirror-image branches computed once), over
    ``domain`` (symbol -> (lo, hi); all floats for a symbol it does not name).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> p = sp.Piecewise((sp.exp(x) / (1 + sp.exp(x)) ** 2, x <= 0),
    ...                  (sp.S(1) / 4, (x >= 0) & (x <= 0)),
    ...                  (sp.exp(-x) / (1 + sp.exp(-x)) ** 2, True))
    >>> shared_branches([p])
    [exp(-Abs(x))/(1 + exp(-Abs(x)))**2]
    >>> shared_branches([p], {x: (-1, 745)})  # x > 1 has no mirror image in it: dead branch only
    [Piecewise((exp(x)/(exp(x) + 1)**2, x <= 0), (exp(-x)/(1 + exp(-x))**2, True))]
    >>> shared_branches([sp.Piecewise((x**3, x < 0), (x**2, True))])  # not mirrored: kept
    [Piecewise((x**3, x < 0), (x**2, True))]
    """
    order, _ = postorder(forms, lambda n: n.args)
    swaps = {}
    for n in order:
        if isinstance(n, sympy.Piecewise):
            new = _folded(n, domain or {})
            if new is not None:
                swaps[n] = new
    if not swaps:
        return list(forms)
    return [replaced(f, swaps.get) for f in forms]


def _folded(p: Basic, domain: Mapping) -> Basic | None:
    """``p`` folded, or None if it is not a Piecewise on one symbol's sign
    that folding changes."""
    sym = _sign_symbol(p)
    if sym is None:
        return None
    try:
        sets, covered, live = [], S.EmptySet, []
        for pair in p.args:
            here = pair.cond.as_set() if pair.cond is not S.true else S.Reals
            sets.append(here - covered)
            covered = covered | here
        live = [k for k, st in enumerate(sets) if st is not S.EmptySet
                or p.args[k].cond is S.true]  # the last pair also takes NaN: kept
    except Exception:  # noqa: BLE001  (a condition SymPy cannot turn into a set: left as is)
        return None
    pairs = [p.args[k] for k in live]
    if len(pairs) == 2:
        mirrored = _mirror_fold(sym, pairs, [sets[k] for k in live], domain.get(sym))
        if mirrored is not None:
            return mirrored
    if len(pairs) == len(p.args):
        return None
    return piecewise([(q.expr, q.cond) for q in pairs[:-1]] + [(pairs[-1].expr, True)])


def _sign_symbol(p: Basic) -> Symbol | None:
    """The one real symbol all of ``p``'s conditions compare with numbers, if any."""
    syms: set = set()
    for pair in p.args:
        cond = pair.cond
        if cond is S.true:
            continue
        order, _ = postorder([cond], lambda n: n.args)
        for n in order:
            if n.is_Symbol:
                syms.add(n)
            elif isinstance(n, Basic) and not (n.is_Relational or n.is_Boolean or n.is_Number
                                               or n.is_Atom):
                return None  # a condition on more than a symbol and numbers
    if len(syms) != 1:
        return None
    sym = next(iter(syms))
    return sym if sym.is_real else None


def _mirrors_within(bounds, negative_first: bool) -> bool:
    """Whether the domain ``bounds`` (lo, hi) of the symbol holds the mirror
    image of its positive part within its negative part (or the reverse)."""
    if bounds is None:
        return True
    lo, hi = (sympy.sympify(b) for b in bounds)
    return bool(lo <= -hi) if negative_first else bool(hi >= -lo)


def _mirror_fold(sym: Symbol, pairs: list, sets: list, bounds) -> Basic | None:
    """The two branches ``pairs`` (on ``sets``, which cover the reals) as one
    computed at ``-|sym|`` (or ``|sym|``), if one is the other's mirror image
    and the domain (``bounds``) holds the points that branch is then computed at."""
    if sets[0] | sets[1] != S.Reals:
        return None
    for a, b in ((0, 1), (1, 0)):
        if sets[a].is_subset(_NEGATIVE) and sets[b].is_subset(_POSITIVE):
            at, negative = -Abs(sym), True  # s on a's side, -s on b's
        elif sets[a].is_subset(_POSITIVE) and sets[b].is_subset(_NEGATIVE):
            at, negative = Abs(sym), False
        else:
            continue  # not split at 0
        if not _mirrors_within(bounds, negative):
            return None
        first, second = pairs[a].expr, _canonical(pairs[b].expr)
        image = _canonical(replaced(first, {sym: -sym}.get))
        if image == second:
            return replaced(first, {sym: at}.get)
        if image == _canonical(-pairs[b].expr):
            t = replaced(first, {sym: at}.get)
            minus = Mul(S.NegativeOne, t, evaluate=False)  # as written: -t is exact
            return piecewise([(t, pairs[a].cond), (minus, True)] if a == 0
                             else [(minus, pairs[b].cond), (t, True)])
    return None


def _canonical(e: Basic) -> Basic:
    """``e`` with every node rebuilt with SymPy's evaluation (one canonical
    form, to compare two formulas: ``-x >= -c`` and ``x <= c`` alike), each
    distinct node once."""
    return mapped([e], _sympy_evaluated, every=True)[0]


def _sympy_evaluated(n: Basic, args: tuple) -> Basic:
    """``n`` over ``args`` by SymPy's own constructor (a Piecewise too)."""
    return sympy.Piecewise(*args) if isinstance(n, sympy.Piecewise) else n.func(*args)
