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

import mpmath
import sympy
from sympy import Abs, Basic, Interval, Mul, S, Symbol, oo
from sympy.functions.elementary.piecewise import ExprCondPair

from ..build import EVALUATED_TREE, evaluated, mapped, piecewise, replaced, tree_size
from ..graph import count_ops, free_symbols, postorder

__all__ = ["shared_branches", "clamped_branches", "cancelled_into_branches", "context_pruned",
           "exps_by_magnitude"]

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
    out = [replaced(f, swaps.get) for f in forms] if swaps else list(forms)
    if any(isinstance(n, Mul) and sum(isinstance(a, sympy.Piecewise) for a in n.args) > 1
           for n in postorder(out, lambda n: n.args)[0]):
        out = mapped(out, after=lambda n: _merged_product(n, domain or {}))
    return out


def _merged_product(n: Basic, domain: Mapping) -> Basic:
    """A product holding several Piecewise factors on the sign of one symbol
    ``s`` (conditions comparing ``s`` with 0 only), with those factors as
    one: multiplied branch by branch on ``s < 0``, ``s = 0`` and ``s > 0``
    (a factor 1 dropped, nothing else rewritten), then folded (a branch
    equal to its neighbour's formula at ``s = 0``, checked by substituting
    0, merged with it; mirror images as :func:`_folded`).  stabilize's
    exp-normalized regimes per factor write ``sech(x)**2`` as
    ``4*P*Q/(1 + t)**2`` with ``P = (1 if x >= 0 else t)`` and ``Q = (1 if
    x <= 0 else t)``, ``t = exp(-2|x|)``: ``P*Q`` is ``t``, no branch."""
    if not isinstance(n, Mul):
        return n
    groups: dict = {}
    for k, a in enumerate(n.args):
        if isinstance(a, sympy.Piecewise):
            sym = _sign_symbol(a)
            regions = _regions(a, sym) if sym is not None else None
            if regions is not None:
                groups.setdefault(sym, []).append((k, regions))
    merged, drop = [], set()
    for sym, members in groups.items():
        if len(members) < 2:
            continue
        neg, zero, pos = (_product([r[i] for _, r in members]) for i in range(3))
        one = _one_piece(sym, neg, zero, pos)
        if one is None:
            continue
        folded = _folded(one, domain) if isinstance(one, sympy.Piecewise) else None
        merged.append(one if folded is None else folded)
        drop |= {k for k, _ in members}
    if not merged:
        return n
    rest = [a for k, a in enumerate(n.args) if k not in drop]
    return _product(rest + merged)


def _regions(p: Basic, sym: Symbol) -> tuple | None:
    """The branches ``p`` takes for ``sym`` < 0, = 0 and > 0, if its
    conditions compare ``sym`` with 0 only."""
    for pair in p.args:
        if pair.cond is not S.true and any(
                q.is_Number and q != 0 for q in postorder([pair.cond], lambda m: m.args)[0]):
            return None
    out = []
    for at in (-1, 0, 1):
        for pair in p.args:
            held = pair.cond if pair.cond is S.true else pair.cond.subs(sym, at)
            if held is S.true:
                out.append(pair.expr)
                break
            if held is not S.false:
                return None
        else:
            return None
    return tuple(out)


def _product(factors: list) -> Basic:
    """The product as written, a factor 1 dropped."""
    kept = [f for f in factors if f is not S.One]
    if not kept:
        return S.One
    return kept[0] if len(kept) == 1 else Mul(*kept, evaluate=False)


def _at_zero_is(branch: Basic, sym: Symbol, value: Basic) -> bool:
    """Whether ``branch`` and ``value`` at ``sym`` = 0 are the same nonzero
    rational (a float formula computes such a number at 0 exactly, as
    exp(-0.0) = 1; a zero is not merged, whose sign the branches may set
    differently at -0.0)."""
    try:
        there, want = (sympy.sympify(f).subs(sym, 0) for f in (branch, value))
        return bool(there.is_Rational and there != 0 and there == want)
    except Exception:  # noqa: BLE001  (SymPy cannot say: not merged)
        return False


def _one_piece(sym: Symbol, neg: Basic, zero: Basic, pos: Basic) -> Basic | None:
    """One formula or a two-branch Piecewise for the branches on ``sym`` <
    0, = 0, > 0, or None if it takes three."""
    if neg == pos and (zero == neg or _at_zero_is(neg, sym, zero)):
        return neg
    if zero == neg or _at_zero_is(neg, sym, zero):
        return piecewise([(neg, sym <= 0), (pos, True)])
    if zero == pos or _at_zero_is(pos, sym, zero):
        return piecewise([(neg, sym < 0), (pos, True)])
    return None


def _folded(p: Basic, domain: Mapping) -> Basic | None:
    """``p`` folded, or None if it is not a Piecewise on one symbol's sign
    that folding changes."""
    sym = _sign_symbol(p)
    if sym is None:
        return None
    try:
        sets, covered, live = [], S.EmptySet, []
        for pair in p.args:
            here = _as_set(pair.cond, sym) if pair.cond is not S.true else S.Reals
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


def _as_set(cond: Basic, sym: Symbol) -> Basic:
    """``cond.as_set()`` where ``cond`` compares ``sym`` with numbers (``<``,
    ``<=``, ``>``, ``>=``, and conjunctions and disjunctions of them), built
    as intervals directly: SymPy solves each inequality (about 0.1 s a
    condition with a Float in it); anything else by SymPy.

    >>> x = Symbol("x", real=True)
    >>> _as_set((x >= -1.5) & (x < 2), x) == ((x >= -1.5) & (x < 2)).as_set()
    True
    """
    return _connected(cond, lambda c: _relation_as_set(c, sym))


def _relation_as_set(cond: Basic, sym: Symbol) -> Basic:
    """:func:`_as_set` of a condition that is not a conjunction or disjunction."""
    from sympy.core.relational import Relational

    if isinstance(cond, Relational) and cond.rel_op in ("<", "<=", ">", ">="):
        lhs, rhs, op = cond.lhs, cond.rhs, cond.rel_op
        if lhs == sym and rhs.is_Number and rhs.is_finite:
            if op in ("<", "<="):
                return Interval(-oo, rhs, True, op == "<")
            return Interval(rhs, oo, op == ">", True)
        if rhs == sym and lhs.is_Number and lhs.is_finite:
            flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
            return _relation_as_set(Relational(sym, lhs, flipped), sym)
    return cond.as_set()


def _connected(cond: Basic, leaf) -> Basic | None:
    """The set where ``cond`` holds: ``leaf(c)`` (a set, or None: none)
    for each condition ``c`` under its conjunctions and disjunctions,
    intersected and joined over the DAG, each distinct node once (a
    Hessian's conditions nest them: as a tree, exponential in a ``where``
    chain's depth); None as soon as a leaf is None (nothing more read)."""
    from sympy import And, Or, Union

    got: dict = {}

    def kids(c: Basic) -> tuple:
        if isinstance(c, (And, Or)):
            return c.args
        got[c] = leaf(c)
        if got[c] is None:
            raise _Unread
        return ()

    try:
        order, _ = postorder([cond], kids)
    except _Unread:
        return None
    for c in order:
        if isinstance(c, (And, Or)):
            parts = [got[k] for k in c.args]
            got[c] = parts[0].intersect(*parts[1:]) if isinstance(c, And) else Union(*parts)
    return got[cond]


class _Unread(Exception):
    """A condition :func:`_connected` cannot read (its walk stops there)."""


def _sign_symbol(p: Basic) -> Symbol | None:
    """The one real symbol all of ``p``'s conditions compare with numbers, if any.

    Read down from each condition through its relations and connectives only,
    stopping at the first other node (a condition on a formula: a ``where``
    chain's ``e > k`` holds the whole chain below, so walking it first made
    reading every Piecewise of the chain quadratic in its depth).
    """
    syms: set = set()
    seen: set = set()
    stack = [pair.cond for pair in p.args if pair.cond is not S.true]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.is_Symbol:
            syms.add(n)
            if len(syms) > 1:
                return None
        elif not isinstance(n, Basic):
            continue
        elif n.is_Relational or n.is_Boolean:
            stack.extend(n.args)
        elif not (n.is_Number or n.is_Atom):
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
        even, odd = _may_mirror(sym, pairs[a].expr, pairs[b].expr)
        if not (even or odd):
            continue
        first, second = pairs[a].expr, _canonical(pairs[b].expr)
        image = _canonical(replaced(first, {sym: -sym}.get))
        if even and image == second:
            return replaced(first, {sym: at}.get)
        if odd and image == _canonical(-pairs[b].expr):
            t = replaced(first, {sym: at}.get)
            minus = Mul(S.NegativeOne, t, evaluate=False)  # as written: -t is exact
            return piecewise([(t, pairs[a].cond), (minus, True)] if a == 0
                             else [(minus, pairs[b].cond), (t, True)])
    return None


def _may_mirror(sym: Symbol, a: Basic, b: Basic) -> tuple[bool, bool]:
    """Whether ``b(s)`` may be ``a(-s)`` (even) and whether it may be
    ``-a(-s)`` (odd): a screen before the canonical forms are compared.
    Both are evaluated over the DAG in 200-bit floats at two points (``s``
    = ±0.739..., any other symbol at a point of its own): told apart at
    either by more than rounding, they are not mirror images.  Where the screen cannot
    evaluate a formula (a function it does not know, a pole), both stay
    possible.  (The canonical forms rebuild both arms with SymPy's
    evaluation: a reverse-mode Hessian's ``Piecewise((0, x > 0), (D, True))``
    holds a ``where`` chain's whole derivative ``D``, a second per 80 levels.)"""
    even = odd = True
    for side in (1, -1):
        va, vb = _value_at(a, sym, -side), _value_at(b, sym, side)
        if va is None or vb is None or isinstance(va, tuple) or isinstance(vb, tuple):
            continue
        with mpmath.workprec(_SCREEN_PREC):
            tol = mpmath.mpf(2) ** (-_SCREEN_PREC // 2) * max(1, abs(va), abs(vb))
            even = even and abs(va - vb) <= tol
            odd = odd and abs(va + vb) <= tol
    return even, odd


_SCREEN_PREC = 200
_SCREEN_AT = mpmath.mpf("0.7390851332151606416553120876738734040134117589007574649656806")
_SCREEN: dict = {}  # (id(node), side, s) -> (node, value): the node kept, so its id stays its own
_SCREEN_KEPT = 1 << 16
_SCREEN_FUNCTIONS = {
    sympy.sin: mpmath.sin, sympy.cos: mpmath.cos, sympy.tan: mpmath.tan,
    sympy.asin: mpmath.asin, sympy.acos: mpmath.acos, sympy.atan: mpmath.atan,
    sympy.sinh: mpmath.sinh, sympy.cosh: mpmath.cosh, sympy.tanh: mpmath.tanh,
    sympy.asinh: mpmath.asinh, sympy.acosh: mpmath.acosh, sympy.atanh: mpmath.atanh,
    sympy.exp: mpmath.exp, sympy.log: mpmath.log, sympy.erf: mpmath.erf,
    sympy.erfc: mpmath.erfc, sympy.Abs: mpmath.fabs, sympy.atan2: mpmath.atan2,
    sympy.Min: min, sympy.Max: max,
}
_RELATIONS = {"<": lambda u, v: u < v, "<=": lambda u, v: u <= v,
              ">": lambda u, v: u > v, ">=": lambda u, v: u >= v,
              "==": lambda u, v: u == v, "!=": lambda u, v: u != v}


def _value_at(e: Basic, sym: Symbol, side: int):
    """``e`` at ``sym = side * _SCREEN_AT`` (another symbol at a point of its
    own name), in ``_SCREEN_PREC``-bit floats, over the DAG and kept for the
    next call; None where it cannot be evaluated here."""
    key = (id(e), side, sym)
    hit = _SCREEN.get(key)
    if hit is not None and hit[0] is e:
        return hit[1]

    def known(n: Basic):
        h = _SCREEN.get((id(n), side, sym))
        return h if h is not None and h[0] is n else None

    order, kids = postorder([e], lambda n: () if known(n) is not None else n.args)
    if len(_SCREEN) + len(order) > _SCREEN_KEPT:
        _SCREEN.clear()
    got: dict = {}
    with mpmath.workprec(_SCREEN_PREC):
        for n in order:
            h = known(n)
            if h is not None:
                got[n] = h[1]
                continue
            try:
                v = _node_value(n, [got[k] for k in kids[n]], sym, side)
            except (ArithmeticError, ValueError, TypeError):
                v = None
            if isinstance(v, (mpmath.mpf, mpmath.mpc)) and not mpmath.isfinite(v):
                v = None
            got[n] = v
            _SCREEN[(id(n), side, sym)] = (n, v)
    return got[e]


def _node_value(n: Basic, args: list, sym: Symbol, side: int):
    """One node's value from its arguments' (:func:`_value_at`); None where unknown."""
    from sympy.core.relational import Relational

    if n.is_Symbol:
        if n == sym:
            return side * _SCREEN_AT
        return mpmath.mpf(1) / 3 + mpmath.mpf(sum(map(ord, n.name)) % 89) / 97
    if n.is_Number or n.is_NumberSymbol:
        return mpmath.mpmathify(n.evalf(_SCREEN_PREC // 3 + 10))
    if n is S.true or n is S.false:
        return n is S.true
    if isinstance(n, (sympy.Piecewise, ExprCondPair)):
        if isinstance(n, ExprCondPair):
            return tuple(args)
        for pair in args:
            if pair is None or pair[1] is None or not isinstance(pair[1], bool):
                return None
            if pair[1]:
                return pair[0]
        return None
    if any(a is None for a in args):
        return None
    if isinstance(n, Relational):
        op = _RELATIONS.get(n.rel_op)
        if op is None or any(isinstance(a, bool) or isinstance(a, mpmath.mpc) for a in args):
            return None
        return bool(op(*args))
    if isinstance(n, (sympy.And, sympy.Or, sympy.Not)):
        if not all(isinstance(a, bool) for a in args):
            return None
        return all(args) if isinstance(n, sympy.And) else \
            any(args) if isinstance(n, sympy.Or) else not args[0]
    if any(isinstance(a, bool) for a in args):
        return None
    if n.is_Add:
        return mpmath.fsum(args)
    if n.is_Mul:
        return mpmath.fprod(args)
    if n.is_Pow:
        return mpmath.power(*args)
    f = _SCREEN_FUNCTIONS.get(n.func)
    if f is None or isinstance(n, (sympy.Min, sympy.Max)) and any(
            isinstance(a, mpmath.mpc) for a in args):
        return None
    return f(*args)


def _canonical(e: Basic) -> Basic:
    """``e`` with every node rebuilt with SymPy's evaluation (one canonical
    form, to compare two formulas: ``-x >= -c`` and ``x <= c`` alike), each
    distinct node once, under the library's one construction policy
    for a Piecewise (:func:`..build.piecewise`): SymPy's own constructor folds a
    condition that holds a Piecewise into ITE form, exponential in a
    ``where`` chain's depth (``jax.grad`` of a 5-deep chain's export: 44 s).
    Two formulas told apart here that SymPy's folding would have made equal
    are only left unfolded: the same values, one branch more to run."""
    return mapped([e], _sympy_evaluated, every=True)[0]


def _sympy_evaluated(n: Basic, args: tuple) -> Basic:
    """``n`` over ``args`` by SymPy's own constructor; a Piecewise, its
    pairs, and a node over an argument large as a tree by the library's
    policy (:func:`..build.evaluated`: SymPy's evaluation walks such
    arguments as trees)."""
    if isinstance(n, (sympy.Piecewise, ExprCondPair)) \
            or any(a.args and tree_size(a) > EVALUATED_TREE for a in args):
        return evaluated(n, args)
    return n.func(*args)


def clamped_branches(forms: list) -> list:
    """``forms`` with each two-sided Piecewise on the sign of a symbol ``s``
    whose one side is a constant ``c`` that the other side's formula takes
    at 0 written as that formula of ``min(s, 0)`` (or ``max(s, 0)``): no
    branch.  On its own side ``min(s, 0)`` is ``s`` and ``-|s|`` is
    ``min(s, 0)``, so the same float operations run on the same values; on
    the constant's side the formula is computed at 0, where it is ``c`` (a
    nonzero rational: exp(-0.0) = 1).  For eager PyTorch, where a select
    (``torch.where``) costs about five ``exp`` on data whose condition is
    random (a mispredicted branch per value) and a ``minimum`` less than one;
    traced code (XLA) selects for the price of a multiply, so JAX keeps the
    Piecewise.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> t = sp.exp(-sp.Abs(x))
    >>> clamped_branches([sp.Piecewise((1, x >= 0), (t, True)) / (1 + t)])
    [exp(Min(0, x))/(1 + exp(-Abs(x)))]
    """
    order, _ = postorder(forms, lambda n: n.args)
    swaps = {}
    for n in order:
        if isinstance(n, sympy.Piecewise) and len(n.args) == 2:
            new = _clamped(n)
            if new is not None:
                swaps[n] = new
    return [replaced(f, swaps.get) for f in forms] if swaps else list(forms)


def _clamped(p: Basic) -> Basic | None:
    sym = _sign_symbol(p)
    regions = _regions(p, sym) if sym is not None else None
    if regions is None:
        return None
    neg, zero, pos = regions
    for side, const, bound in ((neg, pos, sympy.Min), (pos, neg, sympy.Max)):
        if zero is not const or not _at_zero_is(side, sym, const) \
                or not (const.is_Rational and const != 0):
            continue
        clamp = bound(sym, 0)
        outer = -Abs(sym) if bound is sympy.Min else Abs(sym)  # = clamp on the side
        return replaced(side, {outer: clamp, sym: clamp}.get)
    return None


def cancelled_into_branches(forms: list) -> list:
    """``forms`` with each product of a Piecewise and exponentials
    ``exp(A)`` multiplied into the Piecewise's branches, where a branch
    holds a factor ``exp(-A)`` (or ``compensated`` of one) that then cancels
    it: ``exp(-A) * Piecewise((exp(A) * u, c), (v, True))`` is
    ``Piecewise((u, c), (exp(-A) * v, True))``.  The same function; the
    branch loses two exponentials and their roundings (a product of
    ``exp(A)`` and ``exp(-A)`` that overflows there is no longer computed),
    and traced code, which computes every branch at every point, two
    ``exp`` per point.  stabilize's forms make such products where a
    rewrite of one factor of a derivative brings the inverse of another
    (log Phi's gradient: ``exp(-x**2/2) / erfc(-x/sqrt(2))`` with erfc
    written ``erfcx(u) exp(-u**2)`` where it underflows).  Factors are
    multiplied as written (nothing else rewritten); a product without such a
    cancellation is left as it is.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> a = x**2 / 2 + x
    >>> p = sp.Piecewise((sp.exp(a) * sp.erf(x), x < -1), (1 / sp.erfc(x), True))
    >>> cancelled_into_branches([sp.exp(-a) * p])
    [Piecewise((erf(x), x < -1), (exp(-x**2/2 - x)/erfc(x), True))]
    """
    order, _ = postorder(forms, lambda n: n.args)
    if not any(_cancelling(n) is not None for n in order):
        return list(forms)
    return mapped(forms, after=lambda n: _cancelling(n) or n)


def _exp_argument(f: Basic) -> Basic | None:
    """A of a factor exp(A) or compensated(exp(A)), else None."""
    from ..compensated import compensated

    if isinstance(f, compensated) and isinstance(f.args[0], sympy.exp):
        f = f.args[0]
    return f.args[0] if isinstance(f, sympy.exp) else None


def _cancelling(n: Basic) -> Basic | None:
    """The product ``n`` with the exponentials that cancel in a branch of its
    one Piecewise factor moved into its branches (cancelled where they do);
    else None."""
    if not isinstance(n, Mul):
        return None
    at = [k for k, a in enumerate(n.args) if isinstance(a, sympy.Piecewise)]
    if len(at) != 1:
        return None
    exps = [(k, _exp_argument(a)) for k, a in enumerate(n.args)]
    exps = [(k, a) for k, a in exps if a is not None]
    if not exps:
        return None
    branches = []  # per branch: its factors, and (outer k -> its factor j) cancelled
    for pair in n.args[at[0]].args:
        factors, hits = list(Mul.make_args(pair.expr)), {}
        for k, a in exps:
            for j, f in enumerate(factors):
                b = _exp_argument(f)
                if j not in hits.values() and b is not None and (a + b) == 0:
                    hits[k] = j
                    break
        branches.append((factors, hits, pair.cond))
    moved = sorted({k for _, hits, _ in branches for k in hits})
    if not moved:
        return None
    arms = []
    for factors, hits, cond in branches:  # the branch's factors as written, then the moved
        kept = [f for j, f in enumerate(factors) if j not in hits.values()]
        arms.append((_product(kept + [n.args[k] for k in moved if k not in hits]), cond))
    p = piecewise(arms, evaluate=False)
    return _product([p if k == at[0] else a for k, a in enumerate(n.args) if k not in moved])


# a context's finite ends moved out by this much of their magnitude: conditions
# are evaluated in floats (``sqrt(2)*x < c`` rounds its product), so an arm is
# dropped only where no point within that margin of the context reaches it
_MARGIN = 2.0**-30


def _holding(order: list, kinds: tuple) -> set:
    """The nodes of ``order`` (children first) with a node of ``kinds``
    inside, or one themselves."""
    holds: set = set()
    for n in order:
        if isinstance(n, kinds) or any(a in holds for a in n.args):
            holds.add(n)
    return holds


def _domain_context(domain: Mapping | None) -> tuple:
    """The domain as sorted ``(symbol, Interval)`` pairs (bounds SymPy
    cannot read are left out: no context from them)."""
    ctx = {}
    for s, (lo, hi) in (domain or {}).items():
        try:
            ctx[s] = Interval(sympy.sympify(lo), sympy.sympify(hi))
        except (TypeError, ValueError, sympy.SympifyError):
            continue
    return tuple(sorted(ctx.items(), key=lambda kv: kv[0].name))


def context_pruned(forms: list, domain: Mapping | None = None) -> list:
    """``forms`` with each Piecewise's arms that no point of its *context*
    reaches dropped: the context of a node is where it is read, the domain
    (symbol -> (lo, hi)) at the roots, and inside an arm of an enclosing
    Piecewise on the same symbol the points that select that arm.  Traced
    code computes every arm at every point, and stabilize's forms nest
    regimes (log Φ's second derivative: pairs of floats for
    ``sqrt(2)*x < -11.7`` around a Piecewise whose arm for
    ``sqrt(2)*x >= -1.6``, in pairs too, no point of that region selects:
    under ``jax.jit`` 695 -> 122 ms per 10^6 points).

    Only conditions comparing a multiple of one real symbol with numbers
    (and their conjunctions and disjunctions) are read; a Piecewise with any
    other condition is kept whole (its arms still pruned inside).  The
    context is widened by 2**-30 of its ends' magnitude, so an arm that a
    condition rounded in floats may select is kept; a last arm on ``True``
    is kept where the context holds NaN (no condition holds there: the
    domain's, and a last arm's).  At every point the same arm's formula is
    computed: the same values.  Where the forms pruned would cost more
    operations in all (a formula read inside an arm and elsewhere is rebuilt
    for the arm: two copies), they are left as they are.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> inner = sp.Piecewise((sp.exp(x), x < -1), (sp.log(x + 2), True))
    >>> context_pruned([sp.Piecewise((inner, 2 * x < -10), (x, True))])
    [Piecewise((exp(x), x < -5), (x, True))]
    >>> context_pruned([inner], {x: (-30, -2)})  # the domain is a context too (NaN: kept)
    [Piecewise((exp(x), x < -1), (log(x + 2), True))]
    >>> context_pruned([sp.Piecewise((inner, x <= -1), (x, True))])  # x = -1 reaches log
    [Piecewise((Piecewise((exp(x), x < -1), (log(x + 2), True)), x <= -1), (x, True))]
    """
    order, _ = postorder(forms, lambda n: n.args)
    if not any(isinstance(n, sympy.Piecewise) for n in order):
        return list(forms)
    holds = _holding(order, (sympy.Piecewise,))
    memo: dict = {}
    top = (_domain_context(domain), True)
    out = [_restricted(f, top, holds, memo) for f in forms]
    # a formula read both inside an arm and elsewhere is rebuilt for the arm: kept only
    # where that costs fewer operations in all (a where chain's Hessian reads the chain
    # in its arm for x <= 0, with the chain's first where pruned: a copy of the chain,
    # twice the operations to save one sin)
    return out if count_ops(out) <= count_ops(forms) else list(forms)


def _restricted(e: Basic, ctx: tuple, holds: set, memo: dict) -> Basic:
    """``e`` read where ``ctx`` holds (((symbol, set), ...), NaN possible):
    its Piecewise's unreached arms dropped."""
    key = (e, ctx)
    if key not in memo:
        memo[key] = replaced(e, lambda n: _pruned_piece(n, ctx, holds, memo)
                             if isinstance(n, sympy.Piecewise)
                             else (None if n in holds else n))
    return memo[key]


def _pruned_piece(p: Basic, ctx: tuple, holds: set, memo: dict) -> Basic | None:
    """The Piecewise ``p`` read where ``ctx`` holds, its unreached arms
    dropped and its arms' insides read where each is selected; None (its
    arguments visited as they are) if its conditions are not on one symbol."""
    sets = _arm_sets(p)
    if sets is None:
        return None
    sym, arm_sets = sets
    bounds, nan = dict(ctx[0]), ctx[1]
    here = bounds.get(sym, S.Reals)
    wide, kept, covered = _widened(here), [], S.EmptySet
    for pair, st in zip(p.args, arm_sets):
        last = pair.cond is S.true
        selected = st - covered  # the points that select this arm
        reached = (st - _shrunk(covered)).intersect(wide)
        covered = covered | st
        if reached is S.EmptySet and not (last and nan):
            continue
        inner = dict(bounds)
        inner[sym] = selected.intersect(here)
        sub = (tuple(sorted(inner.items(), key=lambda kv: kv[0].name)), nan and last)
        kept.append((_restricted(pair.expr, sub, holds, memo), pair.cond))
    if not kept:  # (no arm reached: an empty context) as it is
        return None
    if not nan or kept[-1][1] is S.true:  # the last arm kept takes every point left
        kept[-1] = (kept[-1][0], True)
    return piecewise(kept, evaluate=False)


def exps_by_magnitude(forms: list, domain: Mapping | None = None) -> list:
    """``forms`` with the exponentials of ``c*s`` that arms on either side of
    0 compute for the same ``|c*s|`` written as one: in a context (the
    domain, an enclosing Piecewise arm on ``s``: as :func:`context_pruned`)
    where ``s`` has one sign, ``exp(c*s)`` is ``exp(-|c|*|s|)`` where
    ``c*s <= 0`` there and ``exp(|c|*|s|)`` where it is ``>= 0``.  Traced
    code computes every arm at every point: stabilize's regimes per sign of
    ``s`` (SiLU's gradient: ``exp(x)``, ``exp(2*x)`` for ``x <= 0``,
    ``exp(-x)``, ``exp(-2*x)`` for ``x > 0``) computed each exponential
    twice.  An exponential is so written unless it is read in a context
    without one sign too, or would be written two ways (then it stays: no
    more exponentials than before).  The values are the same floats:
    ``-|c|*|s|`` is ``c*s`` rounded where ``c*s <= 0`` (rounding is
    symmetric), and NaN where ``s`` is.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> p = sp.Piecewise((x * sp.exp(x) + sp.exp(2 * x), x <= 0),
    ...                  (sp.exp(-x) + sp.exp(-2 * x), True))
    >>> exps_by_magnitude([p])
    [Piecewise((x*exp(-Abs(x)) + exp(-2*Abs(x)), x <= 0), (exp(-Abs(x)) + exp(-2*Abs(x)), True))]
    >>> e = sp.exp(x) + sp.Piecewise((sp.exp(x), x <= 0), (x, True))  # exp(x) read without a sign
    >>> exps_by_magnitude([e])[0] is e
    True
    """
    order, _ = postorder(forms, lambda n: n.args)
    if not any(isinstance(n, sympy.Piecewise) for n in order):
        return list(forms)
    holds = _holding(order, (sympy.Piecewise, sympy.exp))
    top = _domain_context(domain)
    found: dict = {}  # each exponential -> the forms it would be written as (None: as it is)
    _by_sign(forms, top, holds, found, None)
    keep = {old for old, news in found.items() if len(news) == 1 and None not in news}
    if not keep:
        return list(forms)
    return _by_sign(forms, top, holds, {}, keep)


def _by_sign(forms: list, top: tuple, holds: set, found: dict, keep: set | None) -> list:
    """``forms`` read where ``top`` holds, each ``exp(c*s)`` in ``keep``
    (every one: None) written by magnitude where ``s`` has one sign, what
    each exponential reached would be written as recorded in ``found``
    (exp -> the set of its forms, None where as it is)."""
    memo: dict = {}

    def visit(e: Basic, ctx: tuple) -> Basic:
        key = (e, ctx)
        if key not in memo:
            memo[key] = replaced(e, lambda n: swap(n, ctx))
        return memo[key]

    def swap(n: Basic, ctx: tuple) -> Basic | None:
        if n not in holds:
            return n
        if isinstance(n, sympy.exp):
            new = _magnitude_exp(n, dict(ctx))
            found.setdefault(n, set()).add(new)
            return new if new is not None and (keep is None or n in keep) else None
        if not isinstance(n, sympy.Piecewise):
            return None
        sets = _arm_sets(n)
        if sets is None:
            return None
        sym, arm_sets = sets
        bounds = dict(ctx)
        here = bounds.get(sym, S.Reals)
        covered, pairs = S.EmptySet, []
        for pair, st in zip(n.args, arm_sets):
            inner = dict(bounds)
            inner[sym] = (st - covered).intersect(here)
            covered = covered | st
            sub = tuple(sorted(inner.items(), key=lambda kv: kv[0].name))
            pairs.append((visit(pair.expr, sub), pair.cond))
        if all(a is pair.expr for (a, _), pair in zip(pairs, n.args)):
            return n
        return piecewise(pairs, evaluate=False)

    return [visit(f, top) for f in forms]


def _magnitude_exp(n: Basic, bounds: dict) -> Basic | None:
    """``exp(c*s)`` as ``exp(-|c|*|s|)`` or ``exp(|c|*|s|)`` if ``s`` has
    one sign in ``bounds`` (symbol -> set); else None."""
    c, s = n.args[0].as_coeff_Mul()
    if not (isinstance(s, Symbol) and s in bounds and c.is_number and c.is_real) or c == 0:
        return None
    st = bounds[s]
    if st.is_subset(_NEGATIVE):
        negative = c > 0
    elif st.is_subset(_POSITIVE):
        negative = c < 0
    else:
        return None
    k = abs(c)
    return sympy.exp(Mul(-k if negative else k, Abs(s)))


def _arm_sets(p: Basic) -> tuple | None:
    """(s, the set of s where each arm's condition holds) if every condition
    of ``p`` compares multiples of one real symbol ``s`` with numbers.

    The symbol is read from the relations' sides (``c*s`` beside a number),
    not from the conditions' free symbols: a ``where`` chain's ``e > k``
    holds the whole chain below, and a walk of it per Piecewise made reading
    the chain quadratic in its depth."""
    syms: set = set()
    out = []
    for pair in p.args:
        if pair.cond is S.true:
            out.append(S.Reals)
            continue
        st = _linear_set(pair.cond, syms)
        if st is None:
            return None
        out.append(st)
    if len(syms) != 1:
        return None
    sym = next(iter(syms))
    return (sym, out) if sym.is_real else None


def _linear_set(cond: Basic, syms: set) -> Basic | None:
    """The set where ``cond`` holds, if it compares ``c*s`` (c a nonzero
    real number, ``s`` a symbol, added to ``syms``) with numbers, in
    conjunctions and disjunctions, ``s`` the one symbol of ``syms``; else
    None."""
    return _connected(cond, lambda c: _linear_relation_set(c, syms))


def _linear_relation_set(cond: Basic, syms: set) -> Basic | None:
    """:func:`_linear_set` of a condition that is not a conjunction or disjunction."""
    from sympy.core.relational import Relational

    if not (isinstance(cond, Relational) and cond.rel_op in ("<", "<=", ">", ">=")):
        return None
    lhs, rhs, op = cond.lhs, cond.rhs, cond.rel_op
    # (read from the nodes, the multiple of s by its shape first: SymPy's
    # as_independent and is_number, and free symbols, walk the whole side)
    found = _multiple(lhs)
    if found is None:
        lhs, rhs = rhs, lhs
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
        found = _multiple(lhs)
    if found is None or free_symbols([rhs]):
        return None
    c, sym = found
    syms.add(sym)
    if len(syms) > 1:
        return None
    try:
        c, b = float(c), float(rhs)
    except (TypeError, ValueError):
        return None
    if c == 0 or c != c or b != b:
        return None
    if c < 0:
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
    b = sympy.Float(b / c, 17)  # (within the margin of the real bound)
    if b in (oo, -oo) or not b.is_finite:
        return None
    if op in ("<", "<="):
        return Interval(-oo, b, True, op == "<")
    return Interval(b, oo, op == ">", True)


def _multiple(side: Basic) -> tuple | None:
    """``(c, s)`` where ``side`` is a symbol ``s`` (c = 1) or a product of
    one symbol ``s`` and numbers ``c``; else None."""
    if side.is_Symbol:
        return S.One, side
    if not side.is_Mul:
        return None
    at = [a for a in side.args if a.is_Symbol]
    if len(at) != 1:
        return None
    rest = [a for a in side.args if a is not at[0]]
    if free_symbols(rest):
        return None
    return Mul(*rest), at[0]


def _widened(st: Basic) -> Basic:
    """``st`` (a union of intervals) with its finite ends moved out by
    ``_MARGIN`` of their magnitude (closed); the reals if it is another set."""
    from sympy import FiniteSet, Union

    def out(v, sign):
        return v if v in (oo, -oo) else v + sign * abs(v) * _MARGIN

    if st is S.EmptySet:
        return st
    if isinstance(st, Interval):
        return Interval(out(st.start, -1), out(st.end, 1))
    if isinstance(st, FiniteSet) and all(v.is_number for v in st.args):
        return Union(*(Interval(out(v, -1), out(v, 1)) for v in st.args))
    if isinstance(st, Union):
        return Union(*(_widened(a) for a in st.args))
    return S.Reals


def _shrunk(st: Basic) -> Basic:
    """``st`` with the margin taken off: the complement of its complement widened."""
    if st is S.EmptySet:
        return st
    return S.Reals - _widened(S.Reals - st)
