"""Rewrites of inverse trigonometric and hyperbolic functions, and of
nested ``log``/``exp`` pairs: entries of the library (:mod:`.library`).

* ``acos`` and ``asin`` near ±1 of an argument whose complement cancels
  symbolically (``acos(1 - x)``: the rounded ``1 - x`` keeps nothing of a
  tiny ``x``): half-angle forms, ``acos(a) = 2·asin(√((1 - a)/2))``, with
  ``1 - a`` simplified, in a regime on the sign of ``a`` (the half-angle
  form loses near the other end);
* ``acos`` and ``asin`` of a ratio ``N/D`` (``D ≥ 0``) whose complement
  ``D² - N²`` cancels symbolically (the polar angle ``acos(z/√(x² + y² + z²))``,
  whose ``D² - N²`` is ``x² + y²``; the angle between two plane vectors, whose
  ``D² - N²`` is the square of their cross product; the law of cosines,
  Heron's product): ``atan2(√(D² - N²), N)`` and ``atan2(N, √(D² - N²))``,
  which never round the ratio near ±1;
* ``π/2 - atan(u)`` as ``atan(1/u)`` for ``u > 0`` (cancels for large u);
* ``asinh``, ``acosh``, ``atanh`` written with logarithms
  (``log(u + √(u² + 1))`` rounds ``1 + u`` for small u, cancels for large
  negative u and overflows in ``u²``) as the functions themselves, which
  NumPy computes to an ulp; ``acosh(a)`` near 1 of a cancelling ``a - 1``
  as ``2·asinh(√((a - 1)/2))``;
* ``log1p(expm1(u))``, ``log(exp(u))`` and ``expm1(log1p(u))`` as ``u``.
"""

from __future__ import annotations

from collections.abc import Callable

from sympy import (
    Abs,
    Basic,
    I,
    Mul,
    Piecewise,
    Rational,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    exp,
    expand,
    factor,
    fraction,
    log,
    pi,
    sqrt,
    symbols,
)
from sympy.codegen.cfunctions import expm1, hypot, log1p
from sympy.polys.polyerrors import PolynomialError

from ..graph import count_ops
from .facts import CONJUGATE_OPS, Facts
from .pattern import PATTERN_SYMBOLS, Match
from .rewrite import Example, Rewrite

__all__ = ["INVERSE"]

a, b, c, p, u, v = PATTERN_SYMBOLS
x, y = symbols("x y")
MAX = 1.7976931348623157e308
# asin(a) for |a| ≥ 7/8 is at least 1.07 against π/2: the half-angle form
# cancels at most 0.6 bit there (at |a| = 1/2 it lost 2.3)
NEAR = Rational(7, 8)
ROOT = Rational(3, 4)  # a root past it: 1 - a² < 7/16


def _simpler(e) -> Callable:
    # the complement ``e`` (over ``a``) cancels symbolically: 1 - (1 - x) is x
    # (or its negation: 1 - (1 + x) is -x)
    def valid(m: Match, f: Facts) -> bool:
        d = e.xreplace(m)
        return f.real(m[a]) and min(count_ops([d]), count_ops([-d])) < count_ops([m[a]])
    return valid


def _squared_simpler(m: Match, f: Facts) -> bool:
    # a is a root: its square has fewer operations (√(x/2)² is x/2)
    return f.real(m[a]) and count_ops([m[a] ** 2]) < count_ops([m[a]])


def _square_of_u(m: Match, f: Facts) -> bool:
    # b = u² up to expansion (4x² is (2x)²)
    return f.real(m[u]) and expand(m[u] ** 2 - m[b]) == 0


def _real_u(m: Match, f: Facts) -> bool:
    return f.real(m[u])


def _not_below_minus_one(m: Match, f: Facts) -> bool:
    return f.real(m[u]) and f.nonnegative(1 + m[u])


def _half_angle(t):
    # 2·asin(√(t/2)) for 0 ≤ t ≤ 2: √t/√2, not √(t/2) (t/2 rounds where t is
    # a subnormal with its last bit set, and asin is linear at 0)
    return 2 * asin(sqrt(t) / sqrt(2))


# id(argument) -> (the argument, (N, D, √(D² - N²)) or None): _ratio
_RATIOS: dict = {}


def _square(e: Basic) -> Basic:
    # e², a hypot(p, q) in it squared as p² + q² (SymPy keeps hypot(p, q)²)
    return (e.replace(hypot, lambda p_, q_: sqrt(p_**2 + q_**2)) if e.has(hypot) else e) ** 2


def _real_polynomial(e: Basic) -> bool:
    # a factor of D² - N² over real symbols (symgrad's convention, as Facts': a
    # symbol is real unless declared imaginary or complex), with no I in it
    return not e.has(I) and all(
        not (v.is_extended_real is False or (v.is_complex and not v.is_extended_real))
        for v in e.free_symbols)


def _root(s: Basic) -> Basic:
    # √s, each factor of s that is an even power of a real base taken out:
    # √((u_x v_y - u_y v_x)²) is |u_x v_y - u_y v_x| (no square to under- or overflow)
    out, rest = [], []
    for t in Mul.make_args(s):
        if t.is_Pow and t.exp.is_Integer and t.exp % 2 == 0 and _real_polynomial(t.base):
            out.append(Abs(t.base) ** (t.exp // 2))
        else:
            rest.append(t)
    return Mul(*out) * sqrt(Mul(*rest))


def _ratio(r: Basic) -> tuple | None:
    """``(N, D, √(D² - N²))`` for ``r = N/D``, a ratio (``D`` not 1) whose
    complement ``D² - N²`` (``D²(1 - r²)``) cancels symbolically: expanded
    and factored, it has fewer operations than ``D²`` and ``N²``
    (``z/√(x² + y² + z²)``: ``x² + y²``; the cosine of the angle between two
    plane vectors: ``(u_x v_y - u_y v_x)²``), else None.  Algebra alone (the
    domain's part, ``N`` real and ``D ≥ 0``, is :func:`_ratio_valid`'s);
    remembered per argument object (every candidate asks again)."""
    got = _RATIOS.get(id(r))
    if got is not None and got[0] is r:
        return got[1]
    out = None
    n, d = fraction(r)
    if d != 1:
        d2, n2 = expand(_square(d)), expand(_square(n))
        size = count_ops([d2, n2])
        if size <= CONJUGATE_OPS:  # (D² - N² worked out only where small)
            try:
                s = factor(expand(d2 - n2))
            except PolynomialError:  # (SymPy's factor gives up: no form)
                s = None
            if s is not None and count_ops([s]) < size:
                out = (n, d, _root(s))
    if len(_RATIOS) >= 4096:
        _RATIOS.clear()
    _RATIOS[id(r)] = (r, out)  # (the argument kept alive: its id stays its own)
    return out


def _ratio_valid(m: Match, f: Facts) -> bool:
    got = _ratio(m[a]) if f.real(m[a]) else None
    return got is not None and f.real(got[0]) and f.nonnegative(got[1])


def _acos_of_ratio(rhs: Basic) -> Callable:
    def build(m: Match) -> Basic:
        n, _, root = _ratio(m[a])
        return atan2(root, n)
    return build


def _asin_of_ratio(rhs: Basic) -> Callable:
    def build(m: Match) -> Basic:
        n, _, root = _ratio(m[a])
        return atan2(n, root)
    return build


def _rw(name, lhs, rhs, why, example, valid, where, scope="safe", loses=None, needs=(),
        build=None, bind=None):
    # loses: the bits the example's source loses at least, where fewer than 10;
    # needs: the rewrites that make the template's shape from the example;
    # build: makes the replacement per match (build(rhs)(match)); bind: what the proof binds
    extra = {"needs": tuple(needs)} if needs else {}
    if valid is _square_of_u:
        extra["bind"] = {b: u**2}  # the proof is over b = u²
    if build is not None:
        extra["build"] = build(rhs)
    if bind is not None:
        extra["bind"] = bind
    return Rewrite(name, lhs, rhs, scope, why, example, valid, where, "inverse functions",
                   {**extra, "loses": loses} if loses else extra)


# fmt: off
INVERSE: tuple[Rewrite, ...] = (
    # ---- acos and asin near ±1: half angles of a complement that cancels -------
    # acos(a) = 2·asin(√((1 - a)/2)) on [-1, 1] (a = cos 2θ); near a = -1 the
    # half angle nears π/2, where asin is ill-conditioned: acos(a) itself there
    _rw("acos-near-one",   acos(a),
        Piecewise((_half_angle(1 - a), a >= 0), (acos(a), True)),
        "a rounded a near 1 keeps only what is left of 1 - a: acos(1 - x) loses "
        "every bit below x = 1e-16",
        Example(acos(1 - x), {x: (1e-300, 1e-6)}, {x: (0.5, 2)}, {x: (0, 2)}),
        _simpler(1 - a), "a real, 1 - a simpler than a"),
    _rw("acos-near-minus-one", acos(a),
        Piecewise((pi - _half_angle(1 + a), a <= 0), (acos(a), True)),
        "a rounded a near -1 keeps only what is left of 1 + a",
        Example(acos(x - 1), {x: (1e-300, 1e-6)}, {x: (0.5, 2)}, {x: (0, 2)}),
        _simpler(1 + a), "a real, 1 + a simpler than a"),
    _rw("asin-near-one",   asin(a),
        Piecewise((pi / 2 - _half_angle(1 - a), a >= NEAR), (asin(a), True)),
        "a rounded a near 1 keeps only what is left of 1 - a",
        Example(asin(1 + x), {x: (-1e-6, -1e-300)}, {x: (-2, -0.5)}, {x: (-2, 0)}),
        _simpler(1 - a), "a real, 1 - a simpler than a"),
    _rw("asin-near-minus-one", asin(a),
        Piecewise((_half_angle(1 + a) - pi / 2, a <= -NEAR), (asin(a), True)),
        "a rounded a near -1 keeps only what is left of 1 + a (SymPy writes "
        "asin(1 - x) as -asin(x - 1))",
        Example(asin(x - 1), {x: (1e-300, 1e-6)}, {x: (0.5, 2)}, {x: (0, 2)}),
        _simpler(1 + a), "a real, 1 + a simpler than a"),
    # asin(a) of a root a = √t near ±1: 1 - a² is 1 - t, computed from t
    # (2·asin(√(x/2)) near x = 2 lost 26 bits: asin is ill-conditioned at 1
    # and √ rounds); acos of a number ≤ √(7/16) is well-conditioned.  (SymPy
    # writes asin(-√t) as -asin(√t), acos(-√t) as π - acos(√t): a > 0 is the case)
    _rw("asin-of-root",    asin(a),
        Piecewise((acos(sqrt(1 - a**2)), a > ROOT), (asin(a), True)),
        "asin(a) of a rounded a near ±1 is ill-conditioned; 1 - a² cancels symbolically "
        "where a is a root",
        Example(2 * asin(sqrt(x / 2)), {x: (2 - 1e-6, 2)}, {x: (0, 1)}),
        _squared_simpler, "a real, a² simpler than a", scope="measured"),
    _rw("acos-of-root",    acos(a),
        Piecewise((asin(sqrt(1 - a**2)), a > ROOT), (acos(a), True)),
        "acos(a) of a rounded a near 1 is ill-conditioned; 1 - a² cancels symbolically "
        "where a is a root",
        Example(acos(sqrt(1 - x)), {x: (1e-300, 1e-6)}, {x: (0.5, 1)}),
        _squared_simpler, "a real, a² simpler than a", scope="measured"),
    # ---- acos and asin of a ratio whose complement cancels symbolically ---------
    # acos(N/D) = atan2(√(D² - N²), N) and asin(N/D) = atan2(N, √(D² - N²))
    # for D > 0 (atan2 is the same for both arguments scaled by 1/D): the
    # ratio is never rounded near ±1, and D² - N² is worked out exactly (the
    # proof is of the template, a = u/v; the build writes D² - N² expanded
    # and factored)
    _rw("acos-of-ratio",   acos(a),          atan2(sqrt(v**2 - u**2), u),
        "N/D rounds near 1 and acos keeps only what is left of 1 - N/D: the polar angle "
        "acos(z/√(x² + y² + z²)) is 0 where it is 1.5e-8",
        Example(acos(x / sqrt(x**2 + y**2)), {x: (0.5, 2), y: (1e-300, 1e-9)},
                {x: (-2, 2), y: (0.5, 2)}),
        _ratio_valid, "a = N/D, N real, D ≥ 0, D² - N² simpler than D² and N²",
        scope="measured", needs=("hypot-reciprocal",), build=_acos_of_ratio, bind={a: u / v}),
    _rw("asin-of-ratio",   asin(a),          atan2(u, sqrt(v**2 - u**2)),
        "N/D rounds near ±1 and asin is ill-conditioned there: the latitude "
        "asin(z/√(x² + y² + z²)) loses half its bits near the poles",
        Example(asin(x / sqrt(x**2 + y**2)), {x: (0.5, 2), y: (1e-12, 1e-4)},
                {x: (-2, 2), y: (0.5, 2)}),
        _ratio_valid, "a = N/D, N real, D ≥ 0, D² - N² simpler than D² and N²",
        scope="measured", needs=("hypot-reciprocal",), build=_asin_of_ratio, bind={a: u / v}),
    # ---- atan near π/2 -------------------------------------------------------
    _rw("atan-complement", pi / 2 - atan(u),
        Piecewise((atan(1 / u), u > 0), (pi / 2 - atan(u), True)),
        "π/2 - atan(u) cancels for large u: 0 from u = 1e16 where it is 1/u",
        Example(pi / 2 - atan(x), {x: (1e3, 1e300)}, {x: (-1e3, 1)}, {x: (-MAX, MAX)}),
        _real_u, "u real"),
    _rw("atan-minus-quarter-turn", atan(u) - pi / 2,
        Piecewise((-atan(1 / u), u > 0), (atan(u) - pi / 2, True)),
        "atan(u) - π/2 cancels for large u",
        Example(atan(x) - pi / 2, {x: (1e3, 1e300)}, {x: (-1e3, 1)}, {x: (-MAX, MAX)}),
        _real_u, "u real"),
    # ---- inverse hyperbolic functions written with logs ---------------------------
    # (b = u² up to expansion: log(2x + √(4x² + 1)) is asinh(2x))
    _rw("asinh-log",       log(u + sqrt(b + 1)), asinh(u),
        "1 + u rounds for small u (every bit lost below 1e-16), the sum cancels "
        "for large negative u, and u² overflows past 1.3e154",
        Example(log(x + sqrt(x**2 + 1)), {x: (1e-300, 1e-6)}, {x: (0.5, 1e100)},
                {x: (-MAX, MAX)}),
        _square_of_u, "u real, b = u²"),
    _rw("asinh-log-negated", log(sqrt(b + 1) - u), -asinh(u),
        "the difference cancels for large u, and rounds 1 - u for small u",
        Example(log(sqrt(x**2 + 1) - x), {x: (1e3, 1e30)}, {x: (-1e100, -0.5)},
                {x: (-MAX, MAX)}),
        _square_of_u, "u real, b = u²"),
    _rw("acosh-log",       log(u + sqrt(b - 1)), acosh(u),
        "log(1 + √(u² - 1)) rounds the sum near u = 1, and u² overflows past 1.3e154",
        Example(log(x + sqrt(x**2 - 1)), {x: (1, 1 + 1e-6)}, {x: (1.5, 1e100)},
                {x: (1, MAX)}),
        _square_of_u, "u real, b = u²"),
    _rw("acosh-log-negated", log(u - sqrt(b - 1)), -acosh(u),
        "the difference cancels for large u (0 from u = 1e8, where it is 1/(2u)), "
        "and rounds near u = 1",
        Example(log(x - sqrt(x**2 - 1)), {x: (1e3, 1e30)}, {x: (1.5, 1e2)}, {x: (1, MAX)}),
        _square_of_u, "u real, b = u²"),
    _rw("acosh-log-split", log(u + sqrt(u - 1) * sqrt(u + 1)), acosh(u),
        "log(1 + √(u - 1)·√(u + 1)) rounds the sum near u = 1",
        Example(log(x + sqrt(x - 1) * sqrt(x + 1)), {x: (1, 1 + 1e-6)}, {x: (1.5, 1e100)},
                {x: (1, 1e307)}),
        _real_u, "u real"),
    _rw("acosh-near-one",  acosh(a),        2 * asinh(sqrt(a - 1) / sqrt(2)),
        "a rounded a near 1 keeps only what is left of a - 1: acosh(1 + x) loses "
        "every bit below x = 1e-16",
        Example(acosh(1 + x), {x: (1e-300, 1e-6)}, {x: (0.5, 1e300)}, {x: (0, MAX)}),
        _simpler(a - 1), "a real, a - 1 simpler than a"),
    _rw("atanh-log",       log((1 + u) / (1 - u)), 2 * atanh(u),
        "(1 + u)/(1 - u) rounds near 1 for small u: every bit lost below 1e-16",
        Example(log((1 + x) / (1 - x)) / 2, {x: (1e-300, 1e-6)}, {x: (0.5, 1)},
                {x: (-1, 1)}),
        _real_u, "u real"),
    _rw("atanh-log-reciprocal", log((1 - u) / (1 + u)), -2 * atanh(u),
        "(1 - u)/(1 + u) rounds near 1 for small u",
        Example(log((1 - x) / (1 + x)), {x: (1e-300, 1e-6)}, {x: (0.5, 1)}, {x: (-1, 1)}),
        _real_u, "u real"),
    # ---- a function of its inverse ------------------------------------------------
    _rw("log1p-expm1",     log1p(expm1(u)),  u,
        "expm1(u) overflows for u > 709.78 and is -1 for u < -37: log1p gives inf, -inf",
        Example(log(1 + expm1(x)), {x: (710, 1e300)}, {x: (-30, 700)}, {x: (-MAX, MAX)}),
        _real_u, "u real", needs=("log1p",)),
    _rw("log-exp",         log(exp(u)),      u,
        "exp(u) overflows for u > 709.78 and underflows for u < -745",
        Example(log(exp(x)), {x: (710, 1e300)}, {x: (-700, 700)}, {x: (-MAX, MAX)}),
        _real_u, "u real"),
    _rw("expm1-log1p",     expm1(log1p(u)),  u,
        "log1p rounds, and expm1 passes the rounding on (u·2^-53 at large u)",
        Example(expm1(log1p(x)), {x: (1e300, 1.7e308)}, {x: (-0.5, 1)}, {x: (-1, MAX)}),
        _not_below_minus_one, "u ≥ -1", loses=8),
)
# fmt: on
