"""Code for ``scaled(u)``: ``u`` computed on its inputs scaled by a power
of two, and scaled back.

Before emission each ``scaled(u)`` (``u`` homogeneous of degree ``d`` in
its symbols, :func:`symgrad.scaled.homogeneity`) becomes code-only nodes:
an exponent ``k`` per point, a copy of ``u`` over ``np.ldexp(v, -k)`` in
place of each of its symbols ``v``, and ``copy*2**(d*k)`` (the copy
itself where ``d = 0``).

``k`` is chosen from estimates of the binary exponent ``E`` of every
value of ``u`` (the inputs' from ``numpy.frexp``; a product's the sum of
its factors', a power ``n`` times its base's, a sum's the largest of its
terms'; a function's value has none): a value of degree ``e`` is scaled to
the exponent ``E - e*k``, and each of them should stay within ``L`` of 0
(``L`` a few below the type's largest exponent) so that nothing overflows
or underflows.  ``k`` is the midrange of the inputs' exponents, moved into
the interval those constraints leave (to its low end, where overflow is
avoided, when they leave none), and rounded to a multiple of ``q`` (even,
and a multiple of ``d``'s denominator: ``d*k`` is an integer and a square
root of a scaled value is scaled by a power of two).  The generated
module defines the helpers (:data:`SCALE_HELPERS`).

The values the code computes that are no node of ``u`` are bounded too:
the partial products of a product of 3 or 4 factors (every sub-product:
the emitted order is the printer's), ``b**n`` of ``1/b**n``, and a value
of degree 0 (no ``k`` moves it) has to be within ``L`` of 0 itself.  What
the estimates cannot bound is checked on the scaled values once ``k`` is
chosen (:func:`_unseen`): the partial products of 5 factors or more, and
products and powers of a sum (its estimate, its largest term's, is only
an upper bound: ``(x - y)**2*z`` with ``x ~ y``).

Where no one ``k`` keeps every input exact and no value overflowing (a
subnormal ``e`` beside ``x = 9.6e8`` in float32's ``e*(e**4 + ... +
5*x**4)``: ``x**4`` wants ``k >= 1``, and ``e/4`` is rounded), where
``k`` left its interval (``_sc_kg``'s gap: an intermediate may be out of
the normal range, float32's ``x**2*y`` at (1e-20, 3e38) had ``x**2``
subnormal), or where
the scaled value is subnormal, the point takes ``u`` in floats with an
exponent of their own instead (``_sc_pick``; :func:`_extended`: the
formula's own roundings with no range to leave, in pairs inside a
``compensated``, so that a sum in pairs keeps its cancellation); where
``u`` holds a function's value, ``u``'s top product
(a power of a product, a sum of products: their significands and
exponents, ``_sc_mt``, ``_sc_mtp``, ``_sc_mts``)
factor by factor (:func:`_factors_back`): each factor scaled by its own
``k`` (its inputs only kept normal, so exact), their significands
multiplied and their exponents summed, scaled back once (``_sc_mul``),
computed at the rows that may take it only (:func:`compacting`, NumPy;
eager PyTorch: a masked region, :mod:`symgrad.export.subsets`);
inf too where that product is past the largest float (the value's own
overflow: main, of a rounded input, may be finite there).  The scaling
back (``_sc_up``) gives the largest float, not inf, where the value is
past it by less than 8 of its ulps (the scaled value's own rounding: the
harmonic mean at x = max - ulp, y = max is x).  A ``scaled`` inside a scaled subtree is dropped; a
``compensated`` one is computed in pairs over the scaled inputs (this
pass runs first: to the compensating pass a scaled input is an input).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from sympy import (
    Abs,
    Add,
    Basic,
    Expr,
    Float,
    Function,
    Integer,
    Max,
    Min,
    Mul,
    Piecewise,
    Pow,
    Rational,
    S,
    Symbol,
)
from sympy.codegen.cfunctions import hypot

from ..build import cancelling, mapped
from ..compensated import compensated
from ..graph import postorder
from ..scaled import degrees, scaled, weighted_homogeneity
from ..widen import widen
from . import scale_helpers
from .texts import HelperCall, module_text

__all__ = ["scaling", "compacting", "SCALE_HELPERS", "SCALE_NAMES", "uses_scaling"]


class _Call(HelperCall):
    """A code-only call of a scaling helper."""


class _ScaleExp(_Call):
    """The exponent k the inputs are divided by 2**k by."""

    _helper = "_sc_k"


class _ScaleExpGap(_Call):
    """:class:`_ScaleExp` and where it leaves its interval (a pair: ``_Item``)."""

    _helper = "_sc_kg"


class _Item(Function):
    """An entry of a helper's pair (codegen only)."""

    nargs = 2

    def _numpycode(self, printer) -> str:
        return f"{printer._print(self.args[0])}[{int(self.args[1])}]"

    _symgrad_numpycode = _numpycode


class _ScaleExpNormal(_ScaleExp):
    """As :class:`_ScaleExp`, the inputs needing only to stay normal (a factor
    of a compensated form scaled on its own: ``_factors_back``)."""

    _helper = "_sc_kn"


class _Exponent(_Call):
    """An input's binary exponent (NaN where it is 0 or not finite)."""

    _helper = "_sc_e"


class _Largest(_Call):
    """The largest of exponent estimates (NaN ignored)."""

    _helper = "_sc_max"


class _Pick(_Call):
    """The scaled value scaled back (main), or its factors scaled back each
    (alt, computed at the rows that may take it) where the scaled value is
    subnormal or an input was rounded when scaled, and alt not NaN
    (its inf: the factors' product past the largest float)."""

    _helper = "_sc_pick"


class _Use(_Call):
    """Where the scaled value is subnormal or an input was rounded when
    scaled: the rows that take alt (where it is finite)."""

    _helper = "_sc_use"


class _Rows(_Call):
    """The rows alt is computed at (where :class:`_Use` holds)."""

    _helper = "_sc_rows"


class _At(_Call):
    """An input at the rows alt is computed at (:func:`compacting`)."""

    nargs = 2
    _helper = "_sc_at"


class _Product(_Call):
    """A constant times factors each scaled back (in fours: a scaled value,
    its exponent k, its degree p/r), their significands multiplied and
    their exponents summed, scaled back once."""

    _helper = "_sc_mul"


class _Pair(_Call):
    """A constant times factors each scaled back (in fours, as
    :class:`_Product`), not scaled back: (significand, exponent)."""

    _helper = "_sc_mt"


class _PairPow(_Call):
    """(significand, exponent) of a pair's value to a power p/r."""

    nargs = 3
    _helper = "_sc_mtp"


class _PairSum(_Call):
    """(significand, exponent) of the sum of pairs' values."""

    _helper = "_sc_mts"


class _PairBack(_Call):
    """A constant times a pair's value, scaled back once."""

    nargs = 2
    _helper = "_sc_upt"


class _Ex(_Call):
    """A value's binary exponent as an integer (0 where it is 0 or not
    finite): the fallback's exponents (:func:`_extended`)."""

    _helper = "_sc_ex"


class _P2(_Call):
    """2**d in the type of ``like`` (codegen only; to compensating, an input:
    a pair times it is exact)."""

    nargs = 2
    _helper = "_sc_p2"
    _symgrad_input = True


class _ExZero(_Call):
    """0, or -2**24 where a value is 0 (far below every float's exponent)."""

    _helper = "_sc_exz"


class _Normal(_Call):
    """A value divided by 2**e, e its exponent (:class:`_Ex`): normalized."""

    nargs = 2
    _helper = "_sc_nm"


class _ExMax(_Call):
    """The largest of integer exponents."""

    _helper = "_sc_xmax"


class _ExMod(_Call):
    """``t mod r`` (r > 0)."""

    nargs = 2
    _helper = "_sc_xmod"


class _ExRoot(_Call):
    """``(t - t mod r) // r * p``: the exponent of a power p/r."""

    nargs = 3
    _helper = "_sc_xroot"


class _ExSel(_Call):
    """The exponent of a Piecewise's branch: conditions and exponents in
    pairs, the last exponent the default."""

    _helper = "_sc_xsel"


class _ExBack(_Call):
    """The fallback's value m*2**t scaled back once (:func:`_sc_up`), NaN
    where an input (the rest) is not finite."""

    _helper = "_sc_xb"


class _Partials(_Call):
    """Where a product's partial products (any order) may leave the normal
    range, read from its factors' values (multiplicity, value in pairs)."""

    _helper = "_sc_pp"


class _AnyOf(_Call):
    """The union of row masks."""

    _helper = "_sc_any"


class _Down(Function):
    """An input divided by 2**k (codegen only; to compensating, an input)."""

    nargs = 2
    _symgrad_input = True

    def _numpycode(self, printer) -> str:
        v, k = (printer._print(a) for a in self.args)
        return f"np.ldexp({v}, -{k})"

    _symgrad_numpycode = _numpycode


class _Back(_Call):
    """A scaled value multiplied back by 2**(p*k/r) (codegen only): the
    largest float, not inf, where that rounds past it by less than the
    value's own rounding error."""

    nargs = 2
    _helper = "_sc_up"


def _back(v: Basic, k: Basic, e: Fraction) -> Basic:
    return _Back(v, k if e == 1 else Mul(Integer(e.numerator), k) if e.denominator == 1
                 else _Div(k, Integer(e.denominator), Integer(e.numerator)))


class _Div(Function):
    """``k // r * p`` (codegen only): an exponent times a degree p/r, k a
    multiple of r."""

    nargs = 3

    def _numpycode(self, printer) -> str:
        k, r, p = (printer._print(a) for a in self.args)
        return f"({k} // {r} * {p})"

    _symgrad_numpycode = _numpycode


def scaling(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each ``scaled(u)`` replaced by code-only nodes that
    compute ``u`` on scaled inputs and scale it back (see the module's
    docstring); roots without ``scaled`` come back as they are."""
    order, kids = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, scaled) for n in order):
        return roots
    return mapped(roots, cancelling,
                  swap=lambda n: _scaled_code(n.args[0]) if isinstance(n, scaled) else None)


def _scaled_code(u: Basic, normal_inputs: bool = False) -> Basic:
    got = _scaled_parts(u, normal_inputs)
    if got is None:
        return u
    top, k, d, deg, copy, downs, gap = got
    checks = _unseen(u, copy, dict(downs))
    if checks:
        gap = _AnyOf(gap, *checks)
    main = top if d == 0 else _back(top, k, d)
    alt = _extended(u, copy)
    if alt is None:
        alt = _factors_back(u, deg, k, copy)
    if alt is None:
        return main
    # the inputs' scaled values: where one was rounded (no k kept every input
    # exact and no value overflowing), or k left its interval (an intermediate
    # may be out of range: gap), the factors, each scaled on its own;
    # alt computed at those rows only (over the inputs there: every operation
    # is elementwise, so its floats are those it has over every row)
    return _Pick(main, alt, _Use(top, main, gap, *(a for s, down in downs
                                                  for a in (s, down, down.args[1]))))


def compacting(roots: list[Basic]) -> list[Basic]:
    """``roots`` with the fallback of each ``scaled(u)`` (``_sc_pick``'s alt)
    computed at the rows that may take it only: alt over its inputs at those
    rows (``_sc_at``).  Every operation is elementwise, so its floats there
    are those it has over every row.  After the compensating pass (alt's
    pairs are then code, not a ``compensated`` node inside an input's
    rows); NumPy only (eager PyTorch computes alt in a masked region under
    ``_sc_use``, export.subsets; JAX at every row).

    >>> from sympy import symbols
    >>> x, y = symbols("x y", real=True)
    >>> pick = compacting(scaling([scaled(x**2*y)]))[0]
    >>> rows = pick.args[3]
    >>> type(rows).__name__, pick.args[1].has(_At(x, rows), _At(y, rows))
    ('_Rows', True)
    """
    order, _ = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, _Pick) for n in order):
        return roots

    def swap(n: Basic) -> Basic | None:
        if not isinstance(n, _Pick) or len(n.args) != 3:
            return None
        main, alt, use = n.args
        rows = _Rows(use)
        at = {s: _At(s, rows) for s in alt.free_symbols}
        return _Pick(main, mapped([alt], cancelling, swap=at.get)[0], use, rows)

    return mapped(roots, cancelling, swap=swap)


def _scaled_parts(u: Basic, normal_inputs: bool) -> tuple | None:
    """``u`` over its inputs scaled by 2**-k (``u``'s weights): (the scaled
    value, k, u's degree, the degrees of u's nodes, the copying function,
    (each input, its scaled value)); None where there is nothing to scale."""
    sub, sub_kids = postorder([u], lambda n: n.args)
    got = weighted_homogeneity(u)
    if got is None or any(isinstance(n, widen) for n in sub):
        return None  # nothing to scale (scaled() refuses the rest when built)
    w, d = got
    leaves = sorted((s for s in sub if isinstance(s, Symbol) and w.get(s)), key=str)
    if not leaves:
        return None
    deg = degrees(u, w)
    est = _estimates(sub, sub_kids)
    bounds, den, seen = [], d.denominator, set()
    for n in sub:
        e = deg[n]
        if not isinstance(e, str):
            den = math.lcm(den, e.denominator)  # (every value scaled by a power of two)
        if est.get(n) is not None and not isinstance(e, str) and not n.is_number \
                and (e != 0 or not (normal_inputs or n is u)) \
                and not (normal_inputs and isinstance(n, Symbol)):
            # (degree 0: no k moves it; out of range, k's gap, where u's factors
            # are taken each scaled on its own: (-b + sqrt(...))/a before its 1/2;
            # not u itself, whose value _sc_use reads: x/y in float32 at
            # (1.5, 1.1e-38) is one rounding, 1/y then x times it two)
            if (est[n], e) not in seen:  # (one bound per estimate and degree)
                seen.add((est[n], e))
                bounds += [est[n], Integer(e.numerator), Integer(e.denominator)]
    # (a factor scaled on its own keeps its inputs exact first: its partial
    # products' bounds soft)
    partial = _partial_bounds(sub, deg, est, seen, normal_inputs)
    bounds += partial
    # an input of weight w is scaled to its exponent E - w*k: the midrange of E/w
    k = (_ScaleExpNormal if normal_inputs else _ScaleExpGap)(
        Integer(2 * den), Integer(len(leaves)),
        *([Integer(len(partial) // 3)] if normal_inputs else []),
        *(est[s] if w[s] == 1 else Mul(Rational(1, w[s]), est[s]) for s in leaves),
        *bounds)
    gap = None
    if not normal_inputs:  # (k, and where it left its interval)
        k, gap = _Item(k, Integer(0)), _Item(k, Integer(1))
    downs = [(s, _Down(s, k if w[s] == 1 else Mul(Integer(w[s]), k))) for s in leaves]
    down_of = dict(downs)

    def down(n: Basic, args: tuple) -> Basic | None:  # the copy over scaled inputs
        if isinstance(n, Symbol):
            return down_of.get(n, n)
        return args[0] if isinstance(n, scaled) else None  # (a nested scaled: already)

    memo: dict = {}

    def copy(n: Basic) -> Basic:
        return mapped([n], cancelling, hook=down, memo=memo)[0]

    return copy(u), k, d, deg, copy, downs, gap


def _partial_bounds(sub: list, deg: dict, est: dict, seen: set, normal_inputs: bool) -> list:
    """Bounds (estimate, p, r in threes) of the values the code computes that
    are no node of ``u``: the partial products of a product of 3 factors
    or more, a constant among them (its sub-products of 2 to all but one of
    them, up to 4 factors; else those of 2 and all but one: the emitted
    order is the printer's), and the power ``b**n`` of ``b**-n`` (printed
    ``1/b**n``).  Without them k kept the product and each factor in range
    but not x*y in x*y*z (float32 at (2.4e-12, 1.3e-11, 4.2e32): x*y
    subnormal in the scaled range, 1.38e10 for 1.34e10), nor (-b + sqrt(...))/a
    before its 1/2 (degree 0: no k moves it; its gap takes the factors)."""
    out = []

    def add(e: Basic, p: Fraction) -> None:
        if (e, p) not in seen and (p != 0 or not normal_inputs):
            seen.add((e, p))
            out.extend([e, Integer(p.numerator), Integer(p.denominator)])

    for n in sub:
        if isinstance(n, Pow) and n.exp.is_Integer and n.exp < -1 \
                and est.get(n) is not None and not isinstance(deg[n], str):
            add(Mul(Integer(-1), est[n]), -deg[n])
        if not isinstance(n, Mul):
            continue
        fs = [f for f in n.args if est.get(f) is not None and not isinstance(deg[f], str)
              and not (f.is_number and abs(float(f)) == 1)]
        m = len(fs)
        for size in range(2, m) if m <= 4 else (2, m - 1):
            for part in itertools.combinations(fs, size):
                add(Add(*(est[f] for f in part)), sum((deg[f] for f in part), Fraction(0)))
    return out


def _factors_back(u: Basic, deg: dict, k: Basic, copy) -> Basic | None:
    """``u`` with the scaling undone factor by factor (each non-constant
    factor of its top product, through a Piecewise's branches and a
    constant factor, as a scaled value and its exponent, multiplied by
    :func:`~symgrad.codegen.scale_helpers._sc_mul`: significands times
    significands, exponents summed, one rounding at the end in the result's
    range): where the scaled value is subnormal, scaling it back rounded it
    twice (the complex square root's |im|·sqrt(1/(hypot - re)) at
    re = -1.8e308, im = 3.4e-154: its value 1.28e-308 computed 4 binades
    into the subnormals of the scaled range, 3.8 bits).  Every factor of
    nonzero degree is scaled on its own (its k from its own inputs, kept
    normal: where no one k kept every input of ``u`` exact and no value
    overflowing, a subnormal e beside a large x in e*(e**4 + ... + 5*x**4),
    each factor's does; a factor with every input too: the quadratic's
    -b + sqrt(b*b - 4*a*c) at a = 7.25e-310, c = -2.3e307 rounded a with
    u's k, 9.7 bits).  None where the top is no product of two factors or
    more."""

    def back(n: Basic, pairs: bool) -> tuple:
        e = deg[n]
        if e != 0 and not isinstance(e, str):
            got = weighted_homogeneity(n)
            if got is not None and all(w == 1 for w in got[0].values()):
                # scaled on its own, its inputs only kept normal (TNG's eigenvalue at
                # b = -6.7e-308, c = -1.7e308, a factor of a compensated top: no one
                # k held the denominator 3.4e308 in range and b out of the
                # subnormals, and 4ad - 4bc, which needs no scaling, cancels 41 bits)
                own = _scaled_parts(compensated(n) if pairs else n, True)
                if own is not None:
                    return own[0], own[1], own[2]
        v = copy(compensated(n) if pairs else n)
        return (v, Integer(0), Fraction(0)) if e == 0 or isinstance(e, str) else (v, k, e)

    def product(consts: tuple, fs: list, pairs: bool) -> Basic:
        quads = []
        for f in fs:
            v, kf, e = back(f, pairs)
            quads += [v, kf, Integer(e.numerator), Integer(e.denominator)]
        return _Product(Mul(*consts), *quads)

    def quads(fs: list, pairs: bool) -> list:
        out = []
        for f in fs:
            v, kf, e = back(f, pairs)
            out += [v, kf, Integer(e.numerator), Integer(e.denominator)]
        return out

    def pair(n: Basic, pairs: bool, term: bool = False) -> Basic | None:
        # (significand, exponent) of n: a product, a power of one (sqrt(x**3*y):
        # x**3 wants k >= 55, y k <= 41 in float32 at (3.6e28, 1.6e-24)), or a
        # sum of them (x**2*y + z**3), the sum plainly (in pairs its terms'
        # roundings would cancel: no fallback); a term of a sum, a factor
        if isinstance(n, Mul):
            cs = [f for f in n.args if not f.free_symbols]
            return _Pair(Mul(*cs), *quads([f for f in n.args if f.free_symbols], pairs))
        if isinstance(n, Pow) and n.exp.is_Rational and isinstance(n.base, (Mul, Add)):
            got = pair(n.base, pairs)
            if got is not None:
                return _PairPow(Integer(n.exp.p), Integer(n.exp.q), got)
        if isinstance(n, Add) and not pairs:
            return _PairSum(*(pair(t, pairs, True) for t in n.args))
        return _Pair(Integer(1), *quads([n], pairs)) if term else None

    def pushed(n: Basic, consts: tuple, pairs: bool = False) -> Basic | None:
        if isinstance(n, compensated):
            # into a compensated top: each factor in pairs over the scaled inputs,
            # rounded, scaled back (TNG's eigenvalue, (4ad - 4bc)/(hypot + hypot):
            # 0 for 2.9e-272, the quotient 1e-373 in the scaled range; a product
            # of two rounded factors is within 1.5 ulp)
            return pushed(n.args[0], consts, True)
        if isinstance(n, Piecewise):
            got = [pushed(e, consts, pairs) for e, _ in n.args]
            if all(g is None for g in got):
                return None
            return Piecewise(*[(g if g is not None else product(consts, [e], pairs), copy(c))
                               for g, (e, c) in zip(got, n.args)])
        if isinstance(n, (Pow, Add)):
            got = pair(n, pairs)
            return None if got is None else _PairBack(Mul(*consts), got)
        if not isinstance(n, Mul):
            return None
        cs = consts + tuple(f for f in n.args if not f.free_symbols)
        fs = [f for f in n.args if f.free_symbols]
        if len(fs) == 1:
            return pushed(fs[0], cs, pairs)
        return product(cs, fs, pairs)

    return pushed(u, ())


def _unseen(u: Basic, copy, downs: dict) -> list:
    """Checks of the products the estimates do not bound (:class:`_Partials`
    over the scaled values, after k is chosen): a product of 5 factors or
    more (its partial products in the printer's order: only pairs and all
    but one are bounded; float32's x*y*z*w*v 1,470 ulps off), and a product
    or an integer power with a factor whose estimate is only an upper bound
    (a sum, which may cancel: (x - y)**2*z with x ~ y, (x - y)**2 scaled
    into the subnormals, every bit; Max, Min, a Piecewise's branch)."""
    sub, kids = postorder([u], lambda n: n.args)
    loose: set = set()
    out = []
    seen: set = set()  # (powers checked as a product's factors)
    like = next(iter(downs.values()))  # (a scaled input: the type's range)
    for n in sub:
        if isinstance(n, (Add, Max, Min, Piecewise)) or isinstance(
                n, (Mul, Pow, Abs, compensated, scaled)) and any(c in loose for c in kids[n]):
            loose.add(n)
    for n in reversed(sub):  # (parents first: a power's product before it)
        if isinstance(n, Mul):
            fs = [f for f in n.args if not (f.is_number and abs(float(f)) == 1)]
            if len(fs) >= 5 or any(f in loose for f in fs):
                # (an integer power of a sum read from its base: its own
                # partial powers bounded with it)
                # (an input's scaled exponent known: E - k, no frexp)
                known = [f for f in fs if f in downs]
                out.append(_Partials(like, Integer(len(fs) - len(known)), *(a for f in fs for a in (
                    (f.exp, copy(f.base)) if _power_of_loose(f, loose)
                    else (Integer(1), copy(f))) if f not in downs),
                    *(a for f in known for a in (Integer(1), _Exponent(f) - downs[f].args[1]))))
                seen.update(f for f in fs if _power_of_loose(f, loose))
        elif _power_of_loose(n, loose) and abs(n.exp) >= 2 and n not in seen:
            out.append(_Partials(like, Integer(1), n.exp, copy(n.base)))
    return out


def _power_of_loose(n: Basic, loose: set) -> bool:
    return isinstance(n, Pow) and n.exp.is_Integer and n.base in loose


def _extended(u: Basic, copy) -> Basic | None:
    """``u`` in floats with an exponent of their own (the fallback where no
    one k keeps every value in range): each value m*2**t, t an integer per
    point; an input its significand (``x`` divided by 2**t, t its frexp
    exponent: exact), a product the product of the significands and the
    sum of the exponents, a power p/r of m*2**t (t made a multiple of r)
    the power of the significand, a sum (hypot, Max, Min) its terms'
    significands scaled to the largest exponent and added (a sum inside
    ``u`` normalized: its significand divided by its own exponent's power of
    two, so that powers and products of cancelled sums stay in range).
    These are the formula's own floats with no range to leave (a scaling by a
    power of two commutes with every rounding in the normal range); a
    ``compensated`` subtree is computed in pairs over the significands
    (a pair times a power of two is exact): a sum in pairs keeps its
    cancellation.  None where ``u`` holds a node that has no such form (a
    function's value)."""
    sub, kids = postorder([u], lambda n: n.args)
    leaves = sorted((n for n in sub if isinstance(n, Symbol)), key=str)
    if not leaves:
        return None
    like = leaves[0]
    zero = Integer(0)
    root = u
    while isinstance(root, (compensated, scaled)):
        root = root.args[0]

    def p2(d: Basic) -> Basic:
        return Integer(1) if d == 0 else _P2(like, d)

    def aligned(parts: list) -> tuple:
        ts = list(dict.fromkeys(t for _, t in parts))
        top = ts[0] if len(ts) == 1 else _ExMax(*ts)
        return [m * p2(t - top) for m, t in parts], top

    paired: set = set()  # (the nodes of compensated subtrees)
    for n in reversed(sub):
        if isinstance(n, compensated) or n in paired:
            paired.update(kids[n])
    got: dict = {}
    for n in sub:
        ks = [got.get(c) for c in kids[n]]
        if isinstance(n, Symbol):
            e = _Ex(n)
            got[n] = (_Down(n, e), e)
        elif n.is_number and isinstance(n, Expr):
            got[n] = (n, zero)
        elif isinstance(n, (compensated, scaled)) and ks[0] is not None:
            m, t = ks[0]
            got[n] = (compensated(m) if isinstance(n, compensated) else m, t)
        elif isinstance(n, Piecewise):
            bs = [got.get(e) for e, _ in n.args]
            if any(b is None for b in bs):
                got[n] = None
                continue
            conds = [copy(c) for _, c in n.args]
            sel = [a for (_, t), c in zip(bs, conds) if c is not S.true for a in (c, t)]
            last = bs[-1][1] if conds[-1] is S.true else zero
            got[n] = (Piecewise(*[(m, c) for (m, _), c in zip(bs, conds)]),
                      _ExSel(*sel, last) if sel else last)
        elif any(k is None for k in ks):
            got[n] = None
        elif isinstance(n, Mul):
            got[n] = (Mul(*(m for m, _ in ks)), Add(*(t for _, t in ks)))
        elif isinstance(n, Pow) and n.exp.is_Rational and not n.exp.free_symbols:
            (m, t), q = ks[0], n.exp
            if q.is_Integer:
                got[n] = (m**q, q * t)
            else:
                got[n] = ((m * p2(_ExMod(t, Integer(q.q))))**q,
                          _ExRoot(t, Integer(q.q), Integer(q.p)))
        elif isinstance(n, Abs):
            got[n] = (Abs(ks[0][0]), ks[0][1])
        elif isinstance(n, (Add, hypot, Max, Min)):
            ms, top = aligned(ks)
            # (Max and Min unevaluated: SymPy's evaluation seeks proofs that one
            # significand bounds another, pairwise, which these never give: 2.2 s
            # of NMSE 3.4.2's stabilize, the same nodes)
            m = n.func(*ms, evaluate=False) if isinstance(n, (Max, Min)) else n.func(*ms)
            if n is not root and isinstance(n, Add):
                # a sum inside u: its significand normalized (a cancelled sum's
                # powers and products kept in range); in pairs its exponent
                # only where it is 0 (far below: a zero term sets no sum's
                # largest exponent, as w**3 in (x - y)**2*z + w**3 at x = y)
                if n in paired:
                    top = top + _ExZero(m)
                else:
                    e = _Ex(m)
                    m, top = _Normal(m, e), top + e
            got[n] = (m, top)
        else:
            got[n] = None
    if got.get(u) is None:
        return None
    m, t = got[u]
    return _ExBack(m, t, *leaves)


def _estimates(sub: list, kids: dict) -> dict:
    """Per node, code estimating its binary exponent, or None (a function's
    value, a comparison: no estimate; but hypot's, its largest argument's:
    a factor 1/hypot(x, y) scaled on its own is kept out of the
    subnormals, which XLA flushes)."""
    est: dict = {}
    for n in sub:
        ks = [est.get(c) for c in kids[n]]
        if isinstance(n, Symbol):
            est[n] = _Exponent(n)
        elif n.is_Number or (not n.args and n.is_number):
            v = abs(float(n)) if n.is_finite else 0.0
            est[n] = Float(math.log2(v)) if v and math.isfinite(v) else None
        elif isinstance(n, (Add, Max, Min, hypot)):
            got = [k for k in ks if k is not None]
            est[n] = (got[0] if len(got) == 1 else _Largest(*got)) if got else None
        elif isinstance(n, Piecewise):
            got = [est.get(p.args[0]) for p in n.args]
            got = [k for k in got if k is not None]
            est[n] = (got[0] if len(got) == 1 else _Largest(*got)) if got else None
        elif isinstance(n, Mul):
            est[n] = None if any(k is None for k in ks) else Add(*ks)
        elif isinstance(n, Pow) and n.exp.is_Rational and ks[0] is not None:
            est[n] = Mul(n.exp, ks[0])
        elif isinstance(n, (Abs, scaled)):
            est[n] = ks[0]
        else:
            est[n] = None
    return est


SCALE_NAMES = frozenset({"_sc_k", "_sc_kn", "_sc_k_in", "_sc_e", "_sc_max", "_sc_pick",
                         "_sc_up", "_sc_mul", "_sc_use", "_sc_rows", "_sc_at",
                         "_sc_kg", "_sc_span", "_sc_mt", "_sc_mtp", "_sc_mts", "_sc_upt",
                         "_sc_ex", "_sc_p2", "_sc_xmax", "_sc_xmod", "_sc_xroot", "_sc_xsel",
                         "_sc_xb", "_sc_pp", "_sc_any", "_sc_exz", "_sc_nm"})


def uses_scaling(code: str) -> bool:
    """Whether generated code calls the scaling helper."""
    return "_sc_kg(" in code or "_sc_k(" in code


SCALE_HELPERS = module_text(scale_helpers)
