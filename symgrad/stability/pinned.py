"""A formula's polynomial about a zero at a point of few bits, with its
coefficients as pairs of floats (issue 17 §3: the zero at a point of few
bits).

The gradient of binary cross-entropy with logits, ``sigmoid(x) - y``,
vanishes at ``x = 0, y = 1/2``, and its zero curve ``y = 1/2 + x/4 -
x³/48 + …`` passes through points where both inputs are floats: at
``x = -2^-51, y = 1/2 - 2^-53`` the value is ``x³/48 ≈ 1.8e-48``, a
cancellation ``2^-158`` deep of terms of size 1/2, past any pair of
floats (every form symgrad builds lost 42.4 bits there).  The focal loss's
gradient on the line ``y = 1/2`` is a multiple of ``x`` near 0, summed from
terms of size 1 (61.7 bits at ``x = 5.9e-51``).  The class: a formula
affine in one input ``y`` (a label, a weight) whose zero set passes
through a point ``(x0, c)`` of few bits; its terms are exact numbers there,
so their leading parts cancel exactly, and what is left is of a higher
order in ``x - x0``.

About that point the formula is, exactly for every ``y`` (it is affine
in ``y``),

    e(x, y) = Σ_j dx^(j-1)·(a_j·dx + b_(j-1)·dy),   dx = x - x0,  dy = y - c,

with ``a_k`` the Taylor coefficients of ``e(x, c)`` and ``b_k`` those of
``∂e/∂y`` about ``x0`` (:func:`coefficients`, Cauchy's integral at 60
digits), summed by Horner's rule over the orders ``j`` and computed in
pairs.  ``dx`` and ``dy`` are exact, and each order's ``a_j·dx +
b_(j-1)·dy`` is written over the common denominator of the two where
both are rationals (``(-dx + 6·dy)/48``: integers times floats, exact in
pairs), else with them as constants of 40 digits (pairs): at a point of
few bits on the zero curve an order whose value is 0 comes out 0, and
the value is the first order that is not, to the pairs' precision
(``sigmoid(x) - y`` at ``x = -2^-51, y = 1/2 - 2^-53``: ``-dx³/48``; the
Poly-1 loss's gradient at ``x = -3·2^-53, y = 1/2 - 2^-54``: orders 1
and 3 are 0 there, and its value, of order 5, is ``2^-206`` of the
terms).  Where ``a1/b0`` is not a rational (the focal loss:
``(log 2/8 + 5/16)/(log 2/2 + 1/4)``), the zero curve meets no float
point but ``(x0, c)`` itself, and the pairs keep the cancellation along
the line ``y = c`` and beside it.

``x0`` is a zero of ``e(x, c)`` that is a float: about a zero that is
none, the zero curve meets floats at random depths, which the pairs of
the form chosen keep as well as any polynomial.  The coefficients come
from Cauchy's integral on a circle of radius
``2^-2·max(1, |x0|)`` (halved until ``f`` is holomorphic in it: two
circles agree), and the polynomial is used where ``|x - x0| <= r``, the
widest power of two within the circle where the last terms of each
series (:data:`TERMS`) are below ``2^-112`` of the largest (sigmoid's,
radius π: ``r = 1/16``), the form it is beside elsewhere: beyond the
band, the cancellation at a float point is no deeper than the pairs of
that form keep (``x²/12`` of the terms at ``|x| = 1/16``: ``2^-11.6``).
:meth:`symgrad.stability.stabilize._Search.verify` tries it where the
verified form still loses bits, and keeps it where it passes on fresh
points and loses over a bit less.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import NamedTuple

import mpmath
import numpy as np
from sympy import Add, Basic, Expr, Float, Integer, Mul, Rational, Symbol

from ..graph import free_symbols
from ..rewrites.series import _on_circle, _vanishes, exact_root, mpmath_function, root_near
from .affine import about, affine_slope, centre

__all__ = ["Pinned", "pinned"]

TERMS = 24  # orders 0..TERMS-1 of each series
CIRCLE_BITS = 2  # the circle of the coefficients: 2^-CIRCLE_BITS * max(1, |x0|), ...
HALVINGS = 8  # ... halved at most this many times, until f is holomorphic in it
DIGITS = 40  # decimal digits of a coefficient (a pair of float64 holds ~32)
DPS = 60  # decimal digits of the evaluations on the circles
NODES = 64  # points on each circle
_AGREE = mpmath.mpf(2) ** -114  # two circles' terms at the band's edge agree to this
_TAIL = mpmath.mpf(2) ** -112  # the last terms at the band's edge, of the largest term


class Pinned(NamedTuple):
    """A polynomial about a zero and the band of ``var`` it is for."""

    poly: Expr
    var: Symbol
    lo: float
    hi: float
    how: str

    @property
    def band(self) -> Basic:
        """The condition ``lo <= var <= hi``."""
        return (self.var >= self.lo) & (self.var <= self.hi)


def pinned(e: Expr, s: Symbol, point: Mapping[Symbol, float], dtype) -> Pinned | None:
    """A :class:`Pinned`: ``e`` (affine in ``s``, of one other
    variable ``x``) as its polynomial about the zero ``(x0, c)`` nearest
    ``point`` (``c`` the number of few bits nearest ``point[s]``, :func:`.affine.centre`;
    ``x0`` a zero of ``e(x, c)`` near ``point[x]`` that is a float of
    ``dtype``), the band of ``x`` where it is used, and a label; None
    where ``e`` is not of that shape, has no such zero near ``point``, or
    its series do not converge there.  The polynomial is to be computed in
    pairs (``compensated``).

    >>> from sympy import symbols, exp
    >>> x, y = symbols("x y", real=True)
    >>> got = pinned(1 / (1 + exp(-x)) - y, y, {x: -2.0**-51, y: 0.5 - 2.0**-53}, "float64")
    >>> got.how
    'polynomial about the zero x = 0, y = 1/2, 24 terms, on |x| <= 0.0625'
    >>> from symgrad import compensated
    >>> from symgrad.stability.floats import generated
    >>> import numpy as np
    >>> run = generated([x, y], [compensated(got.poly)], "float64")
    >>> float(run(np.array([-2.0**-51]), np.array([0.5 - 2.0**-53]))[0][0])  # -x**3/48
    1.82460737542...e-48
    """
    slope = affine_slope(e, s)
    if slope is None or s not in point:
        return None
    ws = point[s]
    c = Rational(0) if ws == 0 else centre(np.array([ws]))
    if c is None:
        return None
    at = about(e, s, c)
    free = free_symbols([at, slope]) - {s}
    if len(free) != 1:
        return None
    x = next(iter(free))
    wx = point.get(x)
    if wx is None or not math.isfinite(wx):
        return None
    try:
        f = mpmath_function([x], at)
        g = mpmath_function([x], slope)
    except Exception:  # noqa: BLE001  (no mpmath form: no polynomial)
        return None
    x0 = _zero(f, wx, dtype)
    if x0 is None:
        return None
    rho = 2.0 ** -CIRCLE_BITS * max(1.0, abs(x0))
    for _ in range(HALVINGS):
        a = coefficients(f, x0, TERMS, rho)
        b = coefficients(g, x0, TERMS, rho) if a is not None else None
        if a is not None and b is not None:
            break
        rho /= 2
    else:
        return None
    r = rho  # the widest power-of-two band within the circle where the series converge
    while r > abs(wx - x0) and not (_converged(a, r) and _converged(b, r)):
        r /= 2
    if abs(wx - x0) > r or not (_converged(a, r) and _converged(b, r)):
        return None
    dx = x if x0 == 0 else Add(x, -Rational(x0), evaluate=False)
    dy = s if c == 0 else Add(s, -c, evaluate=False)
    # Horner's form over the orders: g_1 + dx·(g_2 + dx·(g_3 + ...)), g_j =
    # a_j·dx + b_(j-1)·dy, each exactly 0 where its value is (_group)
    poly = None
    for j in range(TERMS - 1, 0, -1):
        g = _group(a[j], b[j - 1], dx, dy)
        inner = None if poly is None else Mul(dx, poly, evaluate=False)
        poly = g if inner is None else inner if g is None else Add(g, inner, evaluate=False)
    if poly is None:
        return None
    where = f"|{x}| <= {r:.6g}" if x0 == 0 else f"|{x} - {x0:.17g}| <= {r:.6g}"
    how = f"polynomial about the zero {x} = {x0:.17g}, {s} = {c}, {TERMS} terms, on {where}"
    return Pinned(poly, x, x0 - r, x0 + r, how)


def _zero(f, wx: float, dtype) -> float | None:
    """A zero of ``f`` near ``wx`` that is a float of ``dtype`` where ``f``
    vanishes exactly: 0 or the number of few bits nearest ``wx``
    (:func:`.affine.centre`) where ``f`` vanishes at it (a root of order 3,
    ``tanh(x) - x`` at 0, is beyond the secant iteration's tolerance), else
    a root found by iteration (:func:`.series.root_near`) that is a simple
    number (:func:`.series.exact_root`); None where there is none.  (About
    a zero that is no float, the zero curve meets floats at random depths,
    which the pairs of the form chosen keep as well as any polynomial.)"""
    near = [mpmath.mpf(0)]
    c = centre(np.array([wx]))
    if c is not None:
        near.append(mpmath.mpf(c.p) / c.q)
    for v in near:
        if abs(v - wx) <= 2.0 ** -CIRCLE_BITS * max(1.0, abs(float(v))) and _vanishes(f, v):
            return float(v)
    root = root_near(f, wx, max(4 * abs(wx), 1e-300))
    exact = exact_root(f, root) if root is not None else None
    if exact is None:
        return None
    x0 = float(np.dtype(dtype).type(float(exact)))
    return x0 if math.isfinite(x0) and mpmath.mpf(x0) == exact else None


def coefficients(f, at: float, terms: int, r: float) -> list | None:
    """The first ``terms`` Taylor coefficients of ``f`` (an mpmath function)
    about ``at`` from Cauchy's integral over :data:`NODES` points of the
    circle of radius ``r`` (the band's), at :data:`DPS` digits, or None
    where those of the circle of radius ``3r/4`` differ from them (or have
    an imaginary part) by more than ``2^-114`` of the largest term at ``r``
    in a term at ``r`` (one they do not give alike to 10 bits is below what
    the integral resolves: 0): ``f`` is not holomorphic in the disk, or the
    aliased terms, ``(r/R)^64`` of each, are not negligible.  On the band
    the rounding adds ``10^-60`` of ``f``'s largest value on the circle to
    each term, whatever its order (:func:`.series.cauchy_coefficients`
    takes a circle 8 times smaller, whose rounding grows as ``8^k`` of the
    terms at its radius: too much for pairs at order 16).

    >>> cs = coefficients(mpmath.exp, 0.0, 4, 0.5)
    >>> [float(c) for c in cs]
    [1.0, 1.0, 0.5, 0.16666666666666666]
    >>> coefficients(lambda z: 1 / (z - 0.25), 0.0, 4, 0.5) is None
    True
    """
    with mpmath.workdps(DPS):
        c, rho = mpmath.mpf(at), mpmath.mpf(r)
        roots = [mpmath.expjpi(mpmath.mpf(2 * j) / NODES) for j in range(NODES)]
        a = _on_circle(f, c, rho, roots, terms)
        b = _on_circle(f, c, rho * 3 / 4, roots, terms) if a is not None else None
        if b is None:
            return None
        if not all(mpmath.isfinite(v) for v in a):
            return None
        top = max(abs(v) * rho**k for k, v in enumerate(a))
        if any(max(abs(u - v), abs(u.imag)) * rho**k > _AGREE * top
               for k, (u, v) in enumerate(zip(a, b))):
            return None
        # a coefficient the two circles do not give alike to 10 bits is below
        # what the integral resolves (an odd function's even ones: 10^-57): 0
        return [u.real if abs(u - v) <= abs(u) * mpmath.mpf(2) ** -10 else mpmath.mpf(0)
                for u, v in zip(a, b)]


def _converged(cs: list, r: float) -> bool:
    """Whether the last two coefficients' terms at ``r`` are below the
    pairs' precision of the largest term there (an odd or even function's
    every other one is 0; so is every one of a constant)."""
    terms = [abs(v) * mpmath.mpf(r) ** k for k, v in enumerate(cs)]
    top = max(terms)
    return top == 0 or max(terms[-2:]) <= top * _TAIL


def _number(v) -> Expr | None:
    """A coefficient as a constant of :data:`DIGITS` digits (None where 0)."""
    return None if v == 0 else Float(v, DIGITS)  # (mpf(v) would round it to 53 bits)


def _group(u, v, dx: Expr, dy: Expr) -> Expr | None:
    """``u·dx + v·dy`` (None where both are 0); where ``u`` and ``v`` are
    rationals (:func:`_rational`), as ``(p·dx + q·dy)/d`` over their common
    denominator with integers ``p`` and ``q``: in pairs the products and
    their sum are then exact where the value is 0 (the Poly-1 loss's
    gradient at x = -3·2^-53, y = 1/2 - 2^-54: its orders 1 and 3 are 0
    there, its value of order 5, 2^-206 of the terms; with ``u = -1/48``
    as a pair, order 3 left 2^-106 of itself: 49.8 bits)."""
    ru, rv = _rational(u), _rational(v)
    if ru is not None and rv is not None:
        d = math.lcm(ru.denominator, rv.denominator)
        p, q = ru.numerator * (d // ru.denominator), rv.numerator * (d // rv.denominator)
        if max(abs(p), abs(q), d) < 2**53:
            parts = [_scaled(p, dx), _scaled(q, dy)]
            parts = [t for t in parts if t is not None]
            if not parts:
                return None
            inner = parts[0] if len(parts) == 1 else Add(*parts, evaluate=False)
            return inner if d == 1 else Mul(Rational(1, d), inner, evaluate=False)
    parts = [t for t in (_times(u, dx), _times(v, dy)) if t is not None]
    return None if not parts else parts[0] if len(parts) == 1 else Add(*parts, evaluate=False)


def _rational(v) -> Fraction | None:
    """``v`` (an mpf of :data:`DPS` digits) as a fraction of denominator at
    most 2^40 within ``2^-150`` of it relatively (0 as 0), or None."""
    if v == 0:
        return Fraction(0)
    man, exp = v.man_exp  # (|v|'s: the sign apart)
    exact = Fraction(int(man) * (-1 if v < 0 else 1)) * (Fraction(2) ** int(exp))
    q = exact.limit_denominator(2**40)
    return q if abs(exact - q) <= abs(exact) * Fraction(1, 2**150) else None


def _scaled(n: int, t: Expr) -> Expr | None:
    """``n·t`` for an integer ``n``, kept a product; None where ``n`` is 0."""
    if n == 0:
        return None
    return t if n == 1 else Mul(Integer(n), t, evaluate=False)


def _times(v, t: Expr) -> Expr | None:
    """``v·t`` with ``v`` a constant of :data:`DIGITS` digits, kept a product
    (SymPy distributes a number over a sum); None where ``v`` is 0."""
    k = _number(v)
    return None if k is None else Mul(k, t, evaluate=False)
