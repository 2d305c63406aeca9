"""Code for ``scaled(u)``: ``u`` computed on its inputs scaled by a power
of two, and scaled back.

Before emission each ``scaled(u)`` (``u`` homogeneous of degree ``d`` in
its symbols, :func:`symgrad.scaled.homogeneity`) becomes code-only nodes:
an exponent ``k`` per point, a copy of ``u`` over ``np.ldexp(v, -k)`` in
place of each of its symbols ``v``, and ``np.ldexp(copy, d*k)`` (the copy
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
module defines the helpers (:data:`SCALE_HELPERS`).  A ``scaled`` inside
a scaled subtree is dropped; a ``compensated`` one is computed in pairs
over the scaled inputs (this pass runs first: to the compensating pass a
scaled input is an input).
"""

from __future__ import annotations

import math

from sympy import (
    Abs,
    Add,
    Basic,
    Float,
    Function,
    Integer,
    Max,
    Min,
    Mul,
    Piecewise,
    Pow,
    Rational,
    Symbol,
)

from ..build import cancelling, mapped
from ..compensated import compensated
from ..graph import postorder
from ..scaled import degrees, scaled, weighted_homogeneity
from ..widen import widen
from . import scale_helpers
from .texts import HelperCall, module_text

__all__ = ["scaling", "SCALE_HELPERS", "SCALE_NAMES", "uses_scaling"]


class _Call(HelperCall):
    """A code-only call of a scaling helper."""


class _ScaleExp(_Call):
    """The exponent k the inputs are divided by 2**k by."""

    _helper = "_sc_k"


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
    (alt) where the scaled value is subnormal and alt finite."""

    _helper = "_sc_pick"


class _Down(Function):
    """An input divided by 2**k (codegen only; to compensating, an input)."""

    nargs = 2
    _symgrad_input = True

    def _numpycode(self, printer) -> str:
        v, k = (printer._print(a) for a in self.args)
        return f"np.ldexp({v}, -{k})"

    _symgrad_numpycode = _numpycode


class _Back(Function):
    """A scaled value multiplied back by 2**(p*k/r) (codegen only)."""

    nargs = 4

    def _numpycode(self, printer) -> str:
        v, k, p, r = (printer._print(a) for a in self.args)
        return f"np.ldexp({v}, {k} // {r} * {p})"

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
    sub, sub_kids = postorder([u], lambda n: n.args)
    got = weighted_homogeneity(u)
    if got is None or any(isinstance(n, widen) for n in sub):
        return u  # nothing to scale (scaled() refuses the rest when built)
    w, d = got
    leaves = sorted((s for s in sub if isinstance(s, Symbol) and w.get(s)), key=str)
    if not leaves:
        return u
    deg = degrees(u, w)
    est = _estimates(sub, sub_kids)
    bounds, den = [], d.denominator
    for n in sub:
        e = deg[n]
        if not isinstance(e, str):
            den = math.lcm(den, e.denominator)  # (every value scaled by a power of two)
        if est.get(n) is not None and e != 0 and not isinstance(e, str) \
                and not (normal_inputs and isinstance(n, Symbol)):
            bounds += [est[n], Integer(e.numerator), Integer(e.denominator)]
    # an input of weight w is scaled to its exponent E - w*k: the midrange of E/w
    k = (_ScaleExpNormal if normal_inputs else _ScaleExp)(
        Integer(2 * den), Integer(len(leaves)),
        *(est[s] if w[s] == 1 else Mul(Rational(1, w[s]), est[s]) for s in leaves),
        *bounds)

    def down(n: Basic, args: tuple) -> Basic | None:  # the copy over scaled inputs
        if isinstance(n, Symbol):
            return _Down(n, k if w.get(n) == 1 else Mul(Integer(w.get(n, 0)), k)) \
                if w.get(n) else n
        return args[0] if isinstance(n, scaled) else None  # (a nested scaled: already)

    memo: dict = {}

    def copy(n: Basic) -> Basic:
        return mapped([n], cancelling, hook=down, memo=memo)[0]

    top = copy(u)
    if d == 0:
        return top
    main = _Back(top, k, Integer(d.numerator), Integer(d.denominator))
    alt = _factors_back(u, deg, k, copy)
    return main if alt is None else _Pick(top, main, alt)


def _factors_back(u: Basic, deg: dict, k: Basic, copy) -> Basic | None:
    """``u`` with the scaling undone factor by factor (each non-constant
    factor of its top product times 2**(its degree times k), through a
    Piecewise's branches and a constant factor), so that the product's last
    rounding is in the range of the result: where the scaled value is
    subnormal, scaling it back rounded it twice (the complex square root's
    |im|·sqrt(1/(hypot - re)) at re = -1.8e308, im = 3.4e-154: its value
    1.28e-308 computed 4 binades into the subnormals of the scaled range,
    3.8 bits).  None where the top is no product of two factors or more."""

    def back(n: Basic, pairs: bool) -> Basic:
        e = deg[n]
        if pairs and e != 0 and not isinstance(e, str) and all(
                w == 1 for w in (weighted_homogeneity(n) or ({}, 0))[0].values()):
            # a factor of a compensated top: scaled on its own, its inputs only
            # kept normal (TNG's eigenvalue at b = -6.7e-308, c = -1.7e308: no one
            # k held the denominator 3.4e308 in range and b out of the subnormals,
            # and 4ad - 4bc, which needs no scaling, cancels 41 bits)
            return _scaled_code(compensated(n), True)
        v = copy(compensated(n) if pairs else n)
        return v if e == 0 or isinstance(e, str) else \
            _Back(v, k, Integer(e.numerator), Integer(e.denominator))

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
            return Piecewise(*[(g if g is not None else Mul(*consts, back(e, pairs)), copy(c))
                               for g, (e, c) in zip(got, n.args)])
        if not isinstance(n, Mul):
            return None
        cs = consts + tuple(f for f in n.args if not f.free_symbols)
        fs = [f for f in n.args if f.free_symbols]
        if len(fs) == 1:
            return pushed(fs[0], cs, pairs)
        return Mul(*cs, *[back(f, pairs) for f in fs], evaluate=False)

    return pushed(u, ())


def _estimates(sub: list, kids: dict) -> dict:
    """Per node, code estimating its binary exponent, or None (a function's
    value, a comparison: no estimate)."""
    est: dict = {}
    for n in sub:
        ks = [est.get(c) for c in kids[n]]
        if isinstance(n, Symbol):
            est[n] = _Exponent(n)
        elif n.is_Number or (not n.args and n.is_number):
            v = abs(float(n)) if n.is_finite else 0.0
            est[n] = Float(math.log2(v)) if v and math.isfinite(v) else None
        elif isinstance(n, (Add, Max, Min)):
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


SCALE_NAMES = frozenset({"_sc_k", "_sc_kn", "_sc_k_in", "_sc_e", "_sc_max", "_sc_pick"})


def uses_scaling(code: str) -> bool:
    """Whether generated code calls the scaling helper."""
    return "_sc_k(" in code


SCALE_HELPERS = module_text(scale_helpers)
