"""The library of accurate rewrites: one entry per line of math, by family.

Each entry is ``source → form``, valid where its predicate holds on what
the pattern symbols bound (``a``, ``b``, ``p``, ``u``), with an example
instance, the region where the source loses its bits and one where it
does not.  The tests prove every entry equal to its source with SymPy and
measure it against mpmath on both regions (``tests/rewrites``).

Scopes (see :data:`~symgrad.rewrites.rewrite.SCOPES`): ``codegen`` entries
are applied to everything code generation emits; ``safe`` entries lose
accuracy nowhere they are valid and are applied by ``stabilize=True``;
``measured`` entries can lose elsewhere (an overflow the source does not
have, a cancellation moved to another region) and ``stabilize`` keeps them
only where it measures that they do not.
"""

from __future__ import annotations

from sympy import (
    Abs,
    Basic,
    Integer,
    Max,
    Min,
    Mul,
    Piecewise,
    Pow,
    Rational,
    atan,
    cos,
    cosh,
    erf,
    erfc,
    exp,
    expand,
    floor,
    log,
    sin,
    sinh,
    sqrt,
    symbols,
    tan,
    tanh,
)
from sympy.codegen.cfunctions import expm1, hypot, log1p, log2
from sympy.codegen.numpy_nodes import logaddexp

from ..build import evaluated, replaced
from ..compensated import compensated
from ..graph import count_ops
from .facts import CONJUGATE_OPS, Facts
from .forms import Sigmoid, Softplus, erfcx
from .gammas import GAMMAS
from .inverse import INVERSE, _square
from .pattern import PATTERN_SYMBOLS, Match
from .rewrite import Example, Rewrite
from .trigpi import TRIGPI

__all__ = ["LIBRARY", "by_name", "in_scope"]

a, b, c, p, u, v = PATTERN_SYMBOLS
x, y = symbols("x y")  # the examples' variables
MAX = 1.7976931348623157e308
TINY = 5e-324
ALL = (-MAX, MAX)
EXP = (-1e4, 1e4)  # beyond, every exp has overflowed or underflowed: nothing new happens
THIRD = Rational(1, 3)
BIG = 1e300  # a quotient past it may have overflowed
EXP_MAX = 709  # exp overflows from 709.78


# ---- domains of validity: predicates on the bound arguments -----------------
def real(*ss):
    return lambda m, f: all(f.real(m[s]) for s in ss)


def positive(*ss):
    return lambda m, f: all(f.positive(m[s]) for s in ss)


def nonzero(*ss):
    return lambda m, f: all(f.nonzero(m[s]) for s in ss)


def _roots_valid(m: Match, f: Facts) -> bool:
    # sqrt(a) ± sqrt(b), cbrt(a) - cbrt(b): real roots, not both zero
    return f.nonnegative(m[a]) and f.nonnegative(m[b]) and (f.positive(m[a]) or f.positive(m[b]))


def _not_negative(m: Match, f: Facts) -> bool:
    # log(1/u) = -log(u) except on u < 0 (where neither is real: NaN in real code)
    return f.real(m[u]) and not f.negative(m[u])


def _logs_valid(m: Match, f: Facts) -> bool:
    # log(a) - log(b) = log(a/b) for a, b ≥ 0 not both 0 (log 0 = -inf, x/0 = inf)
    return f.nonnegative(m[a]) and f.nonnegative(m[b]) and f.positive(m[a] + m[b])


def _log1p_valid(m: Match, f: Facts) -> bool:
    return f.nonnegative(1 + m[a]) and f.nonnegative(m[b]) and f.positive(1 + m[a] + m[b])


def _atan_valid(m: Match, f: Facts) -> bool:
    # atan a - atan b = atan((a - b)/(1 + ab)) while 1 + ab > 0 (else off by ±π)
    return f.real(m[a]) and f.real(m[b]) and f.positive(1 + m[a] * m[b])


def _log_near_one(m: Match, f: Facts) -> bool:
    # log(a) = log1p(a - 1) for real a (both -inf at 0, NaN below): pays where
    # a holds a number that the 1 cancels (log(erf(u)/2 + 1/2))
    return f.real(m[a]) and m[a].is_Add and any(t.is_Number for t in m[a].args)


def _may_be_positive(m: Match, f: Facts) -> bool:
    # log1p(exp(u)) is softplus's own form where u ≤ 0 (its expansion,
    # log1p(exp(-|v|))): rewriting it again rebuilds every node above it, and
    # SymPy's evaluation then merges what was kept apart (the halves of a
    # subnormal product split)
    b = f.bound(m[u])
    return b is not None and b[1] > 0


def _sqrt_square_valid(m: Match, f: Facts) -> bool:
    # b < 0 would make |a|·sqrt(b) NaN at a = 0, where sqrt(0·b) is 0
    return f.real(m[a]) and f.nonnegative(m[b])


def _pow_valid(m: Match, f: Facts) -> bool:
    return f.positive(m[a]) and f.positive(m[b]) and f.real(m[p]) and not m[p].is_integer


def _exponent_ratio(m: Match) -> Basic | None:
    """``c/p`` where it is an integer (a^p - b^c as a difference of p-th
    powers, b^c = (b^k)^p), else None."""
    k = m[c] / m[p]
    return k if k.is_integer and k != 0 else None


def _pow_difference_valid(m: Match, f: Facts) -> bool:
    return _pow_valid(m, f) and _exponent_ratio(m) is not None


def _power_difference_build(rhs):
    # per match: b^c as (b^k)^p, k = c/p (k = 1: b itself)
    def build(m: Match):
        k = _exponent_ratio(m)
        bound = {**m, b: m[b] if k == 1 else Pow(m[b], k)}
        return replaced(rhs, bound.get, evaluated)
    return build


def _sqrt_plus_valid(m: Match, f: Facts) -> bool:
    # sqrt(a² + b), real; b = 1 is hypot-one's (the same form, once)
    return f.real(m[a]) and f.real(m[b]) and m[b] != 1


def _pow_one_valid(m: Match, f: Facts) -> bool:
    # a^p = exp(p·log a) for a > 0 (a ≤ 0: log a is not real); p real
    return f.positive(m[a]) and f.real(m[p])


def _one_plus_valid(m: Match, f: Facts) -> bool:
    # (1 + u)^p = exp(p·log1p(u)) for 1 + u > 0; p symbolic (a number's power,
    # a square or a root, amplifies no rounding of 1 + u)
    return not m[p].is_number and f.positive(1 + m[u]) and f.real(m[p])


def _pow_quotient_valid(m: Match, f: Facts) -> bool:
    # (a^p - 1)·v with v = w/p: p·v = w is smaller than v (p cancels), w ≠ 0
    w = m[p] * m[v]
    return _pow_one_valid(m, f) and w != 0 and count_ops([w]) < count_ops([m[v]])


def _rounded_sum(e) -> bool:
    # a sum holding a number (1 + x): rounded before the power sees it
    return e.is_Add and any(t.is_Number for t in e.args)


def _pow_build(rhs):
    # per match: rhs, its power a^p as _power(a) (exp(p·log a) near a = 1)
    # only where a is a rounded sum: a rounded 1 + x raised to p loses
    # p·2^-53 (the annuity factor (1 - (1 + x)^-y)/x, 8 bits at y = 932),
    # log1p keeps x; an exact a keeps pow's rounding (exp of the rounded
    # product loses |p·log a|·2^-53, 9.5 bits at 709)
    plain = rhs.replace(_power(a), a**p)

    def build(m: Match):
        return replaced(rhs if _rounded_sum(m[a]) else plain, m.get, evaluated)
    return build


def _exp_sqrt_valid(m: Match, f: Facts) -> bool:
    return f.real(m[u]) and f.nonnegative(m[a])


def _cancels(m: Match, f: Facts) -> bool:
    # sqrt(a) + b: the conjugate pays only where a - b² cancels symbolically,
    # and only where b < 0 somewhere (else the regime keeps the sum everywhere,
    # and the conjugate's nodes hold the sum's other instances: Cardano's
    # √P + y/2 for y ≥ 0 made √P - y/2 before the pass reached it there)
    return not f.nonnegative(m[b]) and \
        count_ops([m[a] - m[b] ** 2]) < count_ops([m[a]]) + count_ops([m[b]])


def _hypot_numerator(m: Match):
    # a² + b² - c², expanded: the cancellation hypot(a, b) + c hides, exact
    # in the symbols (|z| + Re z: b² - b²; the TNG eigenvalue's difference of
    # two norms: ((a+d)² + (b-c)²) - ((a-d)² + (b+c)²) = 4ad - 4bc)
    return expand(m[a] ** 2 + m[b] ** 2 - _square(m[c]))


def _hypot_cancels(m: Match, f: Facts) -> bool:
    # (c < 0 somewhere: else the regime keeps the sum, as sqrt-conjugate's)
    if not (f.real(m[a]) and f.real(m[b]) and f.real(m[c])) or f.nonnegative(m[c]):
        return False
    parts = [m[a] ** 2 + m[b] ** 2, _square(m[c])]
    size = count_ops(parts)
    return size <= CONJUGATE_OPS and count_ops([_hypot_numerator(m)]) < size


def _hypot_conjugate(m: Match):
    h = hypot(m[a], m[b])
    return Piecewise((_hypot_numerator(m) / (h - m[c]), m[c] < 0), (h + m[c], True))


def _log_ratio(a, b):
    # log(a/b) for a, b > 0: log1p of the quotient that is ≥ 0 (log1p(y) near
    # y = -1 loses what a/b keeps); log(a) - log(b) where that quotient
    # overflows (then |log(a/b)| > 690 and the difference loses at most a bit)
    y, z = (a - b) / b, (b - a) / a
    return Piecewise((log1p(y), (y >= 0) & (y < BIG)), (-log1p(z), (z >= 0) & (z < BIG)),
                     (log(a) - log(b), True))


def _power(base):
    # base^p; as exp(p·log(base)) near 1, where log(1 + x) is log1p(x): a
    # rounded 1 + x raised to a large p loses p·2^-53 (pow keeps the rest)
    return Piecewise((exp(p * log(base)), (base > 0.5) & (base < 2)), (base**p, True))


def _scaled(e, m):
    # exp(e)·m for 0 < m ≤ 1 where exp(e) overflows and the product need not:
    # exp(e + log m), with log m as log(2)·log2(m) (SymPy makes exp(e + log(m))
    # exp(e)·m again)
    return exp(e + log(2) * log2(m))


def _power_difference():
    # a^p - b^p = big^p·(1 - (small/big)^p): the larger power times -expm1 of
    # a number ≤ 0, so expm1 never overflows and no 0·inf appears where the
    # other power underflows (b^p·expm1(p·log1p((a - b)/b)) was NaN there)
    t = p * _log_ratio(a, b)
    ma, mb = -expm1(-t), -expm1(t)  # in (0, 1] in the branches that use them
    big_a = p * (a - b) > 0  # a^p the larger
    return Piecewise((_scaled(p * log(a), ma), big_a & (p * log(a) > EXP_MAX)),
                     (_power(a) * ma, big_a),
                     (-_scaled(p * log(b), mb), p * log(b) > EXP_MAX),
                     (-_power(b) * mb, True))


# erfc(v) for v > ERFC_FAR, where 1 - erf(v) has lost a bit and more (6 at
# v = 2, all from 5.9): exp(-v²)·erfcx(v), within 2.8 bits up to 27.2 where
# erfc underflows (1500 samples a bin of 0.1 against mpmath; 1 - erf(v)
# keeps 2.3 below 0.8 and reaches 3.5 above).  scipy's own erfc loses up
# to 6 bits on [6, 9], 8 past 20 and all of them in the subnormals
ERFC_FAR = 0.8
# the erfc entries' full range: mpmath's erfc (the tests' truth) overflows
# past |u| = 1e154, and nothing changes past |u| = 27.2 (erfc is 0 or 2, its
# log -u² up to where u² overflows at 1.3e154)
ERFC_ALL = (-1e150, 1e150)


def _split(v, top, places=6):
    # v = vh + vl for 0 ≤ v, with vh = v to ``places`` binary places below
    # ``top`` = 2^(12 - places): at most 12 significant bits, so vh² is exact
    # in float32 and float64, and vl = v - vh is exact (Sterbenz), below
    # 2^-places
    scale = Integer(2) ** places
    vh = floor(Min(v, top) * scale) / scale
    return vh, v - vh


EXP_SPAN = 745  # |c·u²| past it, exp(c·u²) has overflowed or underflowed in float64


def _square_top(k) -> int:
    # the exponent t of the split's top 2^t: the smallest with |k|·4^t ≥ 745
    # (past it exp(k·u²) is 0 or inf), at least 6 (64, as for |k| ≥ 1/4):
    # 128 for exp(-u²/16) (erfc(x/4), whose exp loses 3.9 bits past 64 with
    # a top of 64)
    t = 6
    while abs(k) * 4**t < EXP_SPAN:
        t += 1
    return t


def _erfc_far(v):
    # exp(-v²)·erfcx(v), the square split exactly by the exp-square rewrite
    # (exp(-v*v) would lose v²·2^-53 of its value to the rounding of v²: 10 bits
    # at v = 26), of v² as SymPy writes it: x²/2 for v = x/√2, from the exact
    # x (a rounded x/√2 squared loses as many bits again)
    return exp(-v**2) * erfcx(v)


def _exp_square(c=c):
    # exp(c·u²), c = ±2^k, with |u| split exactly (_split): exp(c*u*u) loses
    # |c|u²·2^-53 of its value to the rounding of u² (8 bits at u = 36 for
    # c = -1/2).  Past |u| = 64, |c|u² > 1e3 for |c| ≥ 1/4: exp has long
    # overflowed or underflowed there either way (the template, for the
    # proofs: the build below takes the top from c)
    uh, ul = _split(Abs(u), 64)
    return exp(c * uh**2) * exp(c * (2 * uh * ul + ul**2))


def _exp_square_build(k=None):
    # per match: the top of the split from c (_square_top); where c is not a
    # power of two, c·uh² rounds (9.5 bits at |c·u²| = 745: exp(-x²/9) at
    # x = -70), so that exp is computed from the exact exponent (pairs; at the
    # root of a compensated node: a few operations)
    def build(m: Match):
        kk = m[c] if k is None else k
        t = _square_top(kk)
        uh, ul = _split(Abs(m[u]), Integer(2) ** t, 12 - t)
        high = exp(kk * uh**2)
        if not _is_power_of_two(kk):
            high = compensated(high)
        return high * exp(kk * (2 * uh * ul + ul**2))
    return build


def _is_power_of_two(k) -> bool:
    return k.is_Rational and k != 0 and (abs(k.p) & (abs(k.p) - 1)) == 0 \
        and (k.q & (k.q - 1)) == 0


def _square_valid(m: Match, f: Facts) -> bool:
    # exp(c·u²) for a rational c ≠ 0 (a power of two or not), u real, not
    # already the high part of a split (uh² is exact)
    k = m[c]
    if any(isinstance(t, floor) for t in Mul.make_args(m[u])):
        return False
    return f.real(m[u]) and k.is_Rational and k != 0


def _rw(name, lhs, rhs, scope, why, example, valid=None, where="everywhere", family="",
        needs=(), loses=None, build=None, dtypes=(), bind=None):
    # loses: the bits the example's source loses at least, where fewer than 10;
    # build: makes the replacement per match from rhs (build(rhs)(match));
    # dtypes: the only types stabilize offers it in (its form accurate in their pairs)
    extra = {"needs": tuple(needs)} if needs else {}
    if dtypes:
        extra["dtypes"] = tuple(dtypes)
    if build is not None:
        extra["build"] = build(rhs)
    if bind is not None:  # (what the proof binds: the template's instance it proves)
        extra["bind"] = bind
    return Rewrite(name, lhs, rhs, scope, why, example, valid, where, family,
                   {**extra, "loses": loses} if loses else extra)


_POW_T = p * log(a)  # a^p = exp(_POW_T)
# (a^p - 1)/p = log a + (expm1(t) - t)/p, t = p·log a: where t rounds on the
# subnormal grid expm1(t) - t is 0, and log a is the value to 2^-1000; where
# |t| < 1 the difference loses at most 2^-53·|t| of itself, below an ulp of
# log a.  Past |t| = 1 the terms cancel (at t = -30, 29/p - 30/p): the source
_POW_QUOTIENT = Piecewise((log(a) + (expm1(_POW_T) - _POW_T) / p, Abs(_POW_T) < 1),
                          ((_power(a) - 1) / p, True))

# fmt: off
LIBRARY: tuple[Rewrite, ...] = (
    # ---- exponential and logarithmic: the forms code generation applies ----
    _rw("softplus",        log(1 + exp(u)),     Softplus(u),      "codegen",
        "exp(u) overflows for u > 709 and 1 + exp(u) drops exp(u) < 1e-16",
        Example(log(1 + exp(x)), {x: (-700, -40)}, {x: (-30, 30)}, {x: EXP}),
        real(u), "u real", "exp-log"),
    _rw("softplus-log1p",  log1p(exp(u)),       Softplus(u),      "codegen",
        "exp(u) overflows for u > 709",
        Example(log1p(exp(x)), {x: (710, 1e4)}, {x: (-700, 700)}, {x: EXP}),
        _may_be_positive, "u real, not ≤ 0", "exp-log"),
    _rw("logaddexp",       log(exp(a) + exp(b)), logaddexp(a, b), "codegen",
        "exp overflows for arguments over 709, and drops the smaller term",
        Example(log(exp(x) + exp(y)), {x: (710, 1e4), y: (710, 1e4)},
                {x: (-20, 20), y: (-20, 20)}, {x: EXP, y: EXP}),
        real(a, b), "a, b real", "exp-log"),
    _rw("log1p",           log(1 + u),          log1p(u),         "codegen",
        "1 + u drops the bits of a small u",
        Example(log(1 + x), {x: (1e-300, 1e-6)}, {x: (0.5, 1e300)}, {x: (-1, MAX)}),
        family="exp-log"),
    _rw("log-reciprocal",  log(1 / u),          -log(u),          "codegen",
        "1/u overflows for u below 1/max float, and rounds",
        Example(log(1 / x), {x: (1e-320, 1e-309)}, {x: (1e-300, 1e300)}, {x: (TINY, MAX)}),
        _not_negative, "u real, not negative", "exp-log"),
    _rw("expm1",           exp(u) - 1,          expm1(u),         "codegen",
        "exp(u) - 1 cancels for small u",
        Example(exp(x) - 1, {x: (-1e-6, 1e-6)}, {x: (1, 700)}, {x: EXP}),
        family="exp-log"),
    _rw("expm1-negated",   1 - exp(u),          -expm1(u),        "codegen",
        "1 - exp(u) cancels for small u",
        Example(1 - exp(x), {x: (-1e-6, 1e-6)}, {x: (-700, -1)}, {x: EXP}),
        family="exp-log"),
    # a^p - 1 near a^p = 1 (p·log a near 0): expm1 of the product, which
    # rounds relatively (the Box-Cox transform (x^y - 1)/y near y = 0 lost
    # every bit); where |p·log a| > 1 nothing cancels, and the product's
    # rounding, |p·log a|·2^-53 of exp's value (9.5 bits at 709), would lose
    _rw("power-minus-one", a**p - 1,
        Piecewise((expm1(_POW_T), Abs(_POW_T) < 1), (_power(a) - 1, True)), "measured",
        "a^p - 1 cancels where a^p is near 1 (a near 1 or p near 0)",
        Example((x**y - 1) / y, {x: (0.5, 2), y: (-1e-9, 1e-9)}, {x: (0.5, 2), y: (1, 5)}),
        _pow_one_valid, "a > 0, p real", "exp-log", build=_pow_build),
    _rw("one-minus-power", 1 - a**p,
        Piecewise((-expm1(_POW_T), Abs(_POW_T) < 1), (1 - _power(a), True)), "measured",
        "1 - a^p cancels where a^p is near 1 (a near 1 or p near 0)",
        Example(1 - 2**x, {x: (-1e-9, 1e-9)}, {x: (1, 100)}),
        _pow_one_valid, "a > 0, p real", "exp-log", build=_pow_build),
    # (1 + u)^p with a symbolic p: the rounding of 1 + u, relative 2^-53, is
    # raised to the power p, |p|·2^-53 of the value (the compounding limit
    # (1 + x/n)^n lost 20 bits at n = 1e6; the CES aggregator's
    # (1 + u)^(1/p) near p = 0 likewise)
    _rw("power-of-one-plus", (1 + u)**p, exp(p * log1p(u)), "measured",
        "(1 + u)^p rounds 1 + u, and a large exponent amplifies that rounding",
        Example((1 + x / y)**y, {x: (-1, 1), y: (1e6, 1e12)}, {x: (-1, 1), y: (2, 8)}),
        _one_plus_valid, "1 + u > 0, p real and not a number", "exp-log"),
    # (a^p - 1)/p, the Box-Cox family: expm1(p·log a)/p keeps every bit but
    # where p is SUBNORMAL (or p·log a is): the product rounds on the
    # subnormal grid (62 bits at y = 1e-320): log a + (expm1(t) - t)/p (above).
    # (a^p - 1)·v for v = w/p: (x^(2y) - 1)/y and x·(x^y - 1)/y too
    _rw("power-minus-one-quotient", (a**p - 1) * v, v * p * _POW_QUOTIENT, "measured",
        "(a^p - 1)/p cancels where a^p is near 1, and p·log a rounds where p is subnormal",
        Example((x**y - 1) / y, {x: (0.5, 2), y: (1e-320, 1e-310)}, {x: (0.5, 2), y: (1, 5)}),
        _pow_quotient_valid, "a > 0, p real, v = w/p", "exp-log", build=_pow_build),
    _rw("one-minus-power-quotient", (1 - a**p) * v, -v * p * _POW_QUOTIENT, "measured",
        "(1 - a^p)/p cancels where a^p is near 1, and p·log a rounds where p is subnormal",
        Example((1 - 2**y) / y, {y: (-1e-310, -1e-320)}, {y: (1, 5)}),
        _pow_quotient_valid, "a > 0, p real, v = w/p", "exp-log", build=_pow_build),
    _rw("hypot",           sqrt(a**2 + b**2),   hypot(a, b),      "codegen",
        "a² overflows for |a| > 1.3e154 and underflows below 1.5e-154",
        Example(sqrt(x**2 + y**2), {x: (1e160, 1e300), y: (1e160, 1e300)},
                {x: (1, 100), y: (1, 100)}, {x: ALL, y: ALL}),
        real(a, b), "a, b real", "exp-log"),
    _rw("hypot-reciprocal", 1 / sqrt(a**2 + b**2), 1 / hypot(a, b), "codegen",
        "a² overflows for |a| > 1.3e154 and underflows below 1.5e-154",
        Example(1 / sqrt(x**2 + y**2), {x: (1e160, 1e300), y: (1e160, 1e300)},
                {x: (1, 100), y: (1, 100)}, {x: ALL, y: ALL}),
        real(a, b), "a, b real", "exp-log"),
    # ---- the logistic sigmoid, exact over the whole float range ----------------
    _rw("sigmoid-reciprocal", 1 / (1 + exp(u)), Sigmoid(-u),      "safe",
        "exp(u) overflows for u > 709: the result is 0 where it is a subnormal",
        Example(1 / (1 + exp(-x)), {x: (-745, -710)}, {x: (-700, 700)}, {x: EXP}),
        real(u), "u real", "sigmoid"),
    # exp(u)/(1 + exp(u)) is exp(u)·σ(-u) once its denominator is rewritten
    _rw("sigmoid",         exp(u) * Sigmoid(-u), Sigmoid(u),     "safe",
        "exp(u) overflows for u > 709: inf/inf is NaN",
        Example(exp(x) / (1 + exp(x)), {x: (710, 1e4)}, {x: (-700, 700)}, {x: EXP}),
        family="sigmoid", needs=("sigmoid-reciprocal",)),
    _rw("sigmoid-complement", 1 - Sigmoid(u),   Sigmoid(-u),      "safe",
        "1 - σ(u) cancels for u > 37: 0 instead of ≈ exp(-u)",
        Example(1 - 1 / (1 + exp(x)), {x: (-700, -40)}, {x: (-30, 700)}, {x: EXP}),
        family="sigmoid", needs=("sigmoid-reciprocal",)),
    _rw("sigmoid-minus-one", Sigmoid(u) - 1,    -Sigmoid(-u),     "safe",
        "σ(u) - 1 cancels for u > 37",
        Example(1 / (1 + exp(-x)) - 1, {x: (40, 700)}, {x: (-700, 30)}, {x: EXP}),
        family="sigmoid", needs=("sigmoid-reciprocal",)),
    _rw("log-sigmoid",     log(Sigmoid(u)),     -Softplus(-u),    "safe",
        "σ(u) rounds to 1 for u > 37: log gives 0 instead of ≈ -exp(-u)",
        Example(log(1 / (1 + exp(-x))), {x: (40, 700)}, {x: (-700, 30)}, {x: EXP}),
        family="sigmoid", needs=("sigmoid-reciprocal",)),
    # normalized by the larger exponent of exp(u) - 1 (rewrites/expsums): by
    # exp(u) for u > 0 only; -1/expm1(-u) for u < 0 is -1/inf = -0 where
    # exp(u) is subnormal (48.6 bits lost at u = -710.74)
    _rw("exp-over-expm1",  exp(u) / expm1(u),
        Piecewise((-1 / expm1(-u), u > 0), (exp(u) / expm1(u), True)), "safe",
        "exp(u) overflows for u > 709: inf/inf is NaN",
        Example(exp(x) / (exp(x) - 1), {x: (710, 1e4)}, {x: (0.5, 700)}, {x: EXP}),
        family="sigmoid", needs=("expm1",)),
    # log1p(-σ(±u)) as the exp-normalized forms write log(1 - σ): -softplus (a
    # focal loss's gradient holds log(1 - p) for p = σ(x))
    _rw("log1p-minus-sigmoid", log1p(-1 / (1 + exp(u))), -Softplus(-u), "safe",
        "1/(1 + exp(u)) rounds to 1 below u = -37: log1p(-1) is -inf where the value is "
        "u - softplus(u)",
        Example(log1p(-1 / (1 + exp(x))), {x: (-700, -40)}, {x: (-30, 700)}, {x: EXP}),
        real(u), "u real", "exp-log"),
    _rw("log1p-minus-sigmoid-exp", log1p(-exp(u) / (exp(u) + 1)), -Softplus(u), "safe",
        "exp(u)/(exp(u) + 1) rounds to 1 above u = 37 (and is NaN past 709): log1p(-1) is "
        "-inf where the value is -softplus(u)",
        Example(log1p(-exp(x) / (exp(x) + 1)), {x: (40, 700)}, {x: (-700, 30)}, {x: EXP}),
        real(u), "u real", "exp-log"),
    # ---- tanh near ±1: tanh(u) = 2σ(2u) - 1, so 1 ± tanh(u) are sigmoids -----
    # (GELU's tanh form: its derivative holds (tanh(u) + 1)/2 and 1 - tanh(u)²,
    # 0 from u = -19 where the values are ≈ exp(2u) and 4·exp(-2|u|))
    _rw("tanh-plus-one",   tanh(u) + 1,         2 * Sigmoid(2 * u), "safe",
        "tanh(u) rounds to -1 below u = -19: 0 instead of ≈ 2exp(2u)",
        Example(tanh(x) + 1, {x: (-300, -20)}, {x: (-10, 300)}, {x: EXP}),
        real(u), "u real", "sigmoid", needs=("sigmoid-reciprocal",)),
    _rw("one-minus-tanh",  1 - tanh(u),         2 * Sigmoid(-2 * u), "safe",
        "tanh(u) rounds to 1 above u = 19: 0 instead of ≈ 2exp(-2u)",
        Example(1 - tanh(x), {x: (20, 300)}, {x: (-300, 10)}, {x: EXP}),
        real(u), "u real", "sigmoid", needs=("sigmoid-reciprocal",)),
    _rw("tanh-minus-one",  tanh(u) - 1,         -2 * Sigmoid(-2 * u), "safe",
        "tanh(u) rounds to 1 above u = 19: 0 instead of ≈ -2exp(-2u)",
        Example(tanh(x) - 1, {x: (20, 300)}, {x: (-300, 10)}, {x: EXP}),
        real(u), "u real", "sigmoid", needs=("sigmoid-reciprocal",)),
    # 1 - tanh² = sech² = (1 - tanh)(1 + tanh): no cosh(u)² to overflow from u = 355
    _rw("one-minus-tanh-squared", 1 - tanh(u)**2, 4 * Sigmoid(2 * u) * Sigmoid(-2 * u), "safe",
        "tanh(u)² rounds to 1 beyond |u| = 19: 0 instead of ≈ 4exp(-2|u|)",
        Example(1 - tanh(x)**2, {x: (20, 300)}, {x: (-10, 10)}, {x: EXP}),
        real(u), "u real", "sigmoid", needs=("sigmoid-reciprocal",)),
    # ---- differences of nearby values: conjugate and identity forms -----------
    _rw("sqrt-difference", sqrt(a) - sqrt(b),   (a - b) / (sqrt(a) + sqrt(b)), "safe",
        "sqrt(a) - sqrt(b) cancels where a ≈ b",
        Example(sqrt(x + 1) - sqrt(x), {x: (1e3, 1e300)}, {x: (0, 1)}, {x: (0, MAX)}),
        _roots_valid, "a, b ≥ 0, not both 0", "differences"),
    _rw("reciprocal-sqrt-difference", 1 / sqrt(a) - 1 / sqrt(b),
        (b - a) / (sqrt(a) * sqrt(b) * (sqrt(a) + sqrt(b))), "measured",
        "1/sqrt(a) - 1/sqrt(b) cancels where a ≈ b",
        Example(1 / sqrt(x) - 1 / sqrt(x + 1), {x: (1e3, 1e100)}, {x: (1e-3, 1)}),
        positive(a, b), "a, b > 0", "differences"),
    _rw("reciprocal-difference", 1 / a - 1 / b, (b - a) / (a * b), "measured",
        "1/a - 1/b cancels where a ≈ b",
        Example(1 / (x + 1) - 1 / x, {x: (1e3, 1e100)}, {x: (1e-3, 1)}),
        nonzero(a, b), "a, b ≠ 0", "differences"),
    _rw("cbrt-difference", a**THIRD - b**THIRD,
        (a - b) / ((a**THIRD + b**THIRD)**2 - a**THIRD * b**THIRD),
        "safe",
        "cbrt(a) - cbrt(b) cancels where a ≈ b",
        Example((x + 1)**THIRD - x**THIRD, {x: (1e3, 1e300)}, {x: (0, 1)}, {x: (0, MAX)}),
        _roots_valid, "a, b ≥ 0, not both 0", "differences"),
    # (and a^p - b^c where c = k·p, k an integer: b^c = (b^k)^p for b > 0, so
    # the Charbonnier penalty (x² + y²)^(9/20) - y^(9/10) is a difference of
    # 9/20-th powers of x² + y² and y², whose difference x² cancels exactly;
    # the proof is of the template, c = p)
    _rw("power-difference", a**p - b**c,        _power_difference(), "measured",
        "a^p - b^p cancels where a ≈ b",
        Example((x + 1)**Rational(1, 5) - x**Rational(1, 5), {x: (1e3, 1e20)},
                {x: (1e-3, 1)}),
        _pow_difference_valid, "a, b > 0, p real, not an integer, c = k·p for an integer k",
        "differences", build=_power_difference_build, bind={c: p}),
    _rw("log-difference",  log(a) - log(b),     log1p((a - b) / b), "measured",
        "log(a) - log(b) cancels where a ≈ b",
        Example(log(x + 1) - log(x), {x: (1e3, 1e300)}, {x: (1e-3, 1)}),
        _logs_valid, "a, b ≥ 0, not both 0", "differences"),
    # log(1 + a) is log1p(a) by the time the difference is seen
    _rw("log1p-difference", log1p(a) - log(b),  log1p((1 + a - b) / b), "measured",
        "log1p(a) - log(b) cancels where 1 + a ≈ b",
        Example(log1p(x) - log(x), {x: (1e3, 1e300)}, {x: (1e-3, 1)}),
        _log1p_valid, "a ≥ -1, b ≥ 0, not 1 + a = b = 0", "differences"),
    _rw("log-ratio",       log(a / b),          log1p((a - b) / b), "measured",
        "a/b rounds near 1, and log keeps only what is left",
        Example(log((1 + x) / x), {x: (1e3, 1e300)}, {x: (1e-3, 1)}),
        _logs_valid, "a, b ≥ 0, not both 0", "differences"),
    _rw("log-quotient",    log(a / b),          log(a) - log(b),  "measured",
        "a/b loses the bits of a and b near 1 that log(a), log(b) keep",
        Example(log((1 - x) / (1 + x)), {x: (-1e-6, 1e-6)}, {x: (0.5, 0.9)}),
        _logs_valid, "a, b ≥ 0, not both 0", "differences", needs=("log1p",)),
    # (the product-to-sum form 2cos((a+b)/2)sin((a-b)/2) rounds (a+b)/2 and then
    #  loses bits where cos is ill-conditioned; this one uses a - b and b only)
    _rw("sin-difference",  sin(a) - sin(b),
        cos(b) * sin(a - b) - 2 * sin(b) * sin((a - b) / 2)**2, "measured",
        "sin(a) - sin(b) cancels where a ≈ b",
        Example(sin(x + y) - sin(x), {x: (0.1, 1.4), y: (1e-12, 1e-6)},
                {x: (0.1, 1.4), y: (0.5, 1)}),
        family="differences"),
    _rw("cos-difference",  cos(a) - cos(b),
        -sin(b) * sin(a - b) - 2 * cos(b) * sin((a - b) / 2)**2, "measured",
        "cos(a) - cos(b) cancels where a ≈ b",
        Example(cos(x + y) - cos(x), {x: (0.1, 1.4), y: (1e-12, 1e-6)},
                {x: (0.1, 1.4), y: (0.5, 1)}),
        family="differences"),
    _rw("tan-difference",  tan(a) - tan(b),     sin(a - b) / (cos(a) * cos(b)), "measured",
        "tan(a) - tan(b) cancels where a ≈ b",
        Example(tan(x + y) - tan(x), {x: (0.1, 1.4), y: (1e-12, 1e-6)},
                {x: (0.1, 0.7), y: (0.1, 0.5)}),
        family="differences"),
    # (tan-difference's cos(a) is of a rounded a = x + eps, wrong by far more than
    #  eps when x is large; this one evaluates cos(a) from b and a - b only)
    _rw("tan-difference-exact", tan(a) - tan(b),
        sin(a - b) / (cos(b) * (cos(b) * cos(a - b) - sin(b) * sin(a - b))), "measured",
        "tan(a) - tan(b) cancels where a ≈ b, and cos(a) of a rounded a = x + eps is "
        "wrong by far more than eps where x is large",
        Example(tan(x + y) - tan(x), {x: (0.1, 1.4), y: (1e-12, 1e-6)},
                {x: (0.1, 0.7), y: (0.1, 0.5)}),
        family="differences"),
    # The same differences as products, good only in pairs: in floats (a + b)/2
    # and a rounded a = x + eps are other angles (the comments above), but in
    # pairs of floats x + eps/2 is exact and sin/cos of a pair reduce it exactly
    # (compensated_helpers), so the product keeps every bit where the forms
    # above, whose terms are about 1, cancel 56 bits and more (NMSE 3.3 and
    # 3.3.2 at x = 2.72e85: 3.3 and 3.8 bits in pairs).  Their replacement is
    # computed in pairs, so the candidate is measured and ranked by its
    # pairs' figure, not its plain one (as double-angle-plus-one below).
    # Offered in float64 only: float32's pairs reduce sin and cos to first
    # order past 2**21 (float64 holds more of them, and widening is cheaper),
    # where these are no longer exact (float32's sine difference had a regime
    # 0.07% of eps wide of the product in pairs inside its widened form).
    _rw("sin-difference-product", sin(a) - sin(b),
        compensated(2 * cos((a + b) / 2) * sin((a - b) / 2)), "measured",
        "sin(a) - sin(b) cancels where a ≈ b (mod 2π); as a product in pairs, nothing cancels",
        Example(sin(x + y) - sin(x), {x: (0.1, 1.4), y: (1e-12, 1e-6)},
                {x: (0.1, 1.4), y: (0.5, 1)}),
        family="differences", dtypes=("float64",)),
    _rw("cos-difference-product", cos(a) - cos(b),
        compensated(-2 * sin((a + b) / 2) * sin((a - b) / 2)), "measured",
        "cos(a) - cos(b) cancels where a ≈ ±b (mod 2π); as a product in pairs, nothing cancels",
        Example(cos(x + y) - cos(x), {x: (0.1, 1.4), y: (1e-12, 1e-6)},
                {x: (0.1, 1.4), y: (0.5, 1)}),
        family="differences", dtypes=("float64",)),
    _rw("tan-difference-pairs", tan(a) - tan(b),
        compensated(sin(a - b) / (cos(a) * cos(b))), "measured",
        "tan(a) - tan(b) cancels where a ≈ b, and near a pole of tan(a) the expanded "
        "cos(a) of tan-difference-exact cancels; in pairs cos(a) is of the exact a",
        Example(tan(x + y) - tan(x), {x: (0.1, 1.4), y: (1e-12, 1e-6)},
                {x: (0.1, 0.7), y: (0.1, 0.5)}),
        family="differences", dtypes=("float64",)),
    # ---- angle sums: sin and cos of a rounded sum, from its exact terms --------
    _rw("sin-angle-sum",   sin(a + b),          sin(a) * cos(b) + cos(a) * sin(b), "measured",
        "a + b rounds to a float within half an ulp of a large a, which sin then reads "
        "as a different angle",
        Example(sin(x + y), {x: (1e3, 1e4), y: (1e-10, 1e-9)}, {x: (0.1, 0.5), y: (0.1, 0.5)}),
        family="angle sums"),
    _rw("cos-angle-sum",   cos(a + b),          cos(a) * cos(b) - sin(a) * sin(b), "measured",
        "a + b rounds to a float within half an ulp of a large a, which cos then reads "
        "as a different angle",
        Example(cos(x + y), {x: (1e3, 1e4), y: (1e-10, 1e-9)}, {x: (0.1, 0.5), y: (0.1, 0.5)}),
        family="angle sums"),
    # the reverse: a difference of products that is the sine of a difference,
    # but for a factor u near 1 on one product (the cross term of a spherical
    # angle, sin(y)cos(z) - cos(y)sin(z)cos(x): Vincenty's central angle lost
    # every bit at x ~ 0, y ~ z); u's share, 1 - u, is left to the library
    # (1 - cos(x), one-minus-cos)
    _rw("sin-of-a-difference", sin(a) * cos(b) - cos(a) * sin(b), sin(a - b), "measured",
        "sin(a)cos(b) - cos(a)sin(b) cancels where a ≈ b; a - b is exact there (Sterbenz)",
        Example(sin(x + y) * cos(x) - cos(x + y) * sin(x), {x: (0.1, 1.4), y: (1e-12, 1e-6)},
                {x: (0.1, 0.2), y: (1.0, 1.4)}),
        real(a, b), "a, b real", "angle sums"),
    _rw("sin-of-a-difference-times", sin(a) * cos(b) - cos(a) * sin(b) * u,
        sin(a - b) + cos(a) * sin(b) * (1 - u), "measured",
        "sin(a)cos(b) - cos(a)sin(b)u cancels where a ≈ b and u ≈ 1; a - b is exact there "
        "(Sterbenz) and 1 - u is u's own difference",
        Example(sin(x + y) * cos(x) - cos(x + y) * sin(x) * cos(y), {x: (0.1, 1.4),
                                                                       y: (1e-12, 1e-6)},
                {x: (0.1, 0.2), y: (1.0, 1.4)}),
        real(a, b), "a, b real", "angle sums", needs=("one-minus-cos",)),
    _rw("atan-difference", atan(a) - atan(b),   atan((a - b) / (1 + a * b)), "measured",
        "atan(a) - atan(b) cancels where a ≈ b, and both round to π/2 for large a, b",
        Example(atan(x + 1) - atan(x), {x: (1e3, 1e100)}, {x: (-1, 1)}),
        _atan_valid, "a, b real, 1 + ab > 0", "differences"),
    # the same where ab > 1, over ab: 1 + ab overflows for ab > max float while
    # the result 1/(ab) is a (subnormal) float; divided in turn by stabilize
    _rw("atan-difference-far", atan(a) - atan(b),
        atan(Piecewise((((a - b) / (a * b)) / (1 + 1 / (a * b)), a * b > 1),
                       ((a - b) / (1 + a * b), True))), "measured",
        "atan(a) - atan(b) cancels where a ≈ b, and 1 + ab overflows for large a, b",
        Example(atan(x + 1) - atan(x), {x: (1e3, 1e100)}, {x: (-1, 1)}),
        _atan_valid, "a, b real, 1 + ab > 0", "differences"),
    # 2 sin²(u/2) is the textbook form, but u/2 rounds where u is a subnormal
    # with its last bit set (±5e-324 halves to 0) and sin, linear at 0, passes
    # that on: a quotient by u² loses all its bits there.  Halved only inside
    # cos, flat at 0 (sin(u/2) = sin(u)/(2cos(u/2))), the rounding is harmless
    _rw("one-minus-cos",   1 - cos(u),          sin(u)**2 / (2 * cos(u / 2)**2), "safe",
        "1 - cos(u) cancels for small u",
        Example((1 - cos(x)) / x**2, {x: (1e-9, 1e-3)}, {x: (0.5, 3)}, {x: ALL}),
        family="differences"),
    _rw("cos-minus-one",   cos(u) - 1,          -sin(u)**2 / (2 * cos(u / 2)**2), "safe",
        "cos(u) - 1 cancels for small u",
        Example(cos(x) - 1, {x: (1e-9, 1e-3)}, {x: (0.5, 3)}, {x: ALL}),
        family="differences"),
    # 1 ± 2 sin(u)cos(u) = (sin u ± cos u)²: a double zero at u = ∓π/4 + kπ,
    # where the sum cancels twice (the derivative of Snake, x + sin²(x), lost
    # every bit); the square of a sum with a simple zero, in pairs (sin and cos
    # of pairs as pairs: their own rounding undone), keeps them
    _rw("double-angle-plus-one", 2 * sin(u) * cos(u) + 1,
        compensated((sin(u) + cos(u))**2), "measured",
        "1 + 2 sin(u) cos(u) cancels twice near its double zeros u = -π/4 + kπ",
        Example(2 * sin(x) * cos(x) + 1, {x: (-0.78539817, -0.78539815)}, {x: (0.1, 1.4)}),
        real(u), "u real", "differences"),
    _rw("one-minus-double-angle", 1 - 2 * sin(u) * cos(u),
        compensated((sin(u) - cos(u))**2), "measured",
        "1 - 2 sin(u) cos(u) cancels twice near its double zeros u = π/4 + kπ",
        Example(1 - 2 * sin(x) * cos(x), {x: (0.78539815, 0.78539817)}, {x: (-1.4, -0.1)}),
        real(u), "u real", "differences"),
    _rw("cosh-minus-one",  cosh(u) - 1,         2 * sinh(u / 2)**2, "safe",
        "cosh(u) - 1 cancels for small u",
        Example(cosh(x) - 1, {x: (1e-9, 1e-3)}, {x: (0.5, 700)}, {x: EXP}),
        family="differences"),
    _rw("exp-sinh",        exp(u) - exp(-u),    2 * sinh(u),      "safe",
        "exp(u) - exp(-u) cancels for small u",
        Example(exp(x) - exp(-x), {x: (1e-9, 1e-3)}, {x: (0.5, 700)}, {x: EXP}),
        family="differences"),
    # exp(a) - exp(b): the larger exponential times a difference of expm1s,
    # one of them expm1(0) = 0, the other in (-1, 0] (no overflow but the
    # result's own; no Piecewise: SymPy's folding of one nested in the
    # branches of a normalized sum recursed without end).  Also applied to
    # the branches of a sum of exponentials normalized by its largest exponent
    # (expsums.after): the cumulative-logit likelihood's gradient, where
    # exp(z - x) - exp(x - y) cancels at x = (y + z)/2 in the branch x > z
    _rw("exp-difference",  exp(a) - exp(b),
        exp(Max(a, b)) * (expm1(a - Max(a, b)) - expm1(b - Max(a, b))), "measured",
        "exp(a) - exp(b) cancels where a ≈ b",
        Example(exp(x) - exp(2 * x), {x: (1e-12, 1e-6)}, {x: (1, 300)}),
        real(a, b), "a, b real", "differences"),
    _rw("exp-cosh-minus-two", exp(u) - 2 + exp(-u), 4 * sinh(u / 2)**2, "safe",
        "exp(u) - 2 + exp(-u) cancels for small u",
        Example(exp(x) - 2 + exp(-x), {x: (1e-9, 1e-3)}, {x: (0.5, 700)}, {x: EXP}),
        family="differences"),
    # ---- the error function near ±1: erfc, accurate to its last subnormal ------
    _rw("one-minus-erf",   1 - erf(u),
        Piecewise((_erfc_far(u), u > ERFC_FAR), (1 - erf(u), True)), "safe",
        "erf(u) rounds to 1 from u = 5.9: 1 - erf(u) is 0 where erfc(u) is a float "
        "down to 5e-324 at u = 27.2",
        Example(1 - erf(x), {x: (4, 27.2)}, {x: (-6, 1.9)}, {x: ALL}),
        real(u), "u real", "erf", needs=("exp-square",)),
    _rw("erf-minus-one",   erf(u) - 1,
        Piecewise((-_erfc_far(u), u > ERFC_FAR), (erf(u) - 1, True)), "safe",
        "erf(u) rounds to 1 from u = 5.9: erf(u) - 1 is 0 where -erfc(u) is a float",
        Example(erf(x) - 1, {x: (4, 27.2)}, {x: (-6, 1.9)}, {x: ALL}),
        real(u), "u real", "erf", needs=("exp-square",)),
    _rw("erf-plus-one",    erf(u) + 1,
        Piecewise((_erfc_far(-u), u < -ERFC_FAR), (erf(u) + 1, True)), "safe",
        "erf(u) rounds to -1 below u = -5.9: erf(u) + 1 is 0 where erfc(-u) is a float",
        Example(erf(x) + 1, {x: (-27.2, -4)}, {x: (-1.9, 6)}, {x: ALL}),
        real(u), "u real", "erf", needs=("exp-square",)),
    # ---- complements of erfc: SymPy writes erfc(-u) as 2 - erfc(u) ------------
    # (log Φ as users type it, log(erfc(-x/√2)/2), is built as
    # log(1 - erfc(x/√2)/2); 1 - erfc(u)/2 matches as -1/2·(erfc(u) - 2))
    _rw("two-minus-erfc",  2 - erfc(u),
        Piecewise((_erfc_far(-u), u < -ERFC_FAR), (2 - erfc(u), True)), "safe",
        "erfc(u) rounds to 2 below u = -5.9: 2 - erfc(u) is 0 where erfc(-u) is a float "
        "down to 5e-324 at u = -27.2",
        Example(2 - erfc(x), {x: (-27.2, -4)}, {x: (-1.9, 6)}, {x: ERFC_ALL}),
        real(u), "u real", "erf", needs=("exp-square",)),
    _rw("erfc-minus-two",  erfc(u) - 2,
        Piecewise((-_erfc_far(-u), u < -ERFC_FAR), (erfc(u) - 2, True)), "safe",
        "erfc(u) rounds to 2 below u = -5.9: erfc(u) - 2 is 0 where -erfc(-u) is a float",
        Example(erfc(x) - 2, {x: (-27.2, -4)}, {x: (-1.9, 6)}, {x: ERFC_ALL}),
        real(u), "u real", "erf", needs=("exp-square",)),
    _rw("one-minus-erfc",  1 - erfc(u),         erf(u),           "safe",
        "erfc(u) is near 1 for small u: 1 - erfc(u) cancels where erf(u) is tiny",
        Example(1 - erfc(x), {x: (-1e-6, 1e-6)}, {x: (1, 6)}, {x: ERFC_ALL}),
        real(u), "u real", "erf"),
    _rw("erfc-minus-one",  erfc(u) - 1,         -erf(u),          "safe",
        "erfc(u) is near 1 for small u: erfc(u) - 1 cancels where erf(u) is tiny",
        Example(erfc(x) - 1, {x: (-1e-6, 1e-6)}, {x: (1, 6)}, {x: ERFC_ALL}),
        real(u), "u real", "erf"),
    # erfc itself past ERFC_FAR: scipy's loses 3.3 bits on [0.8, 3], 5.9 on [6, 9]
    # and 8.9 on [20, 26.5] (300 points a bin against mpmath at 200 bits;
    # exp(-u*u)*erfcx(u) the same: the rounding of u²).  Measured, not safe:
    # applied to the erfc of 2 - erfc(u) first it would hide the complement from
    # the safe rewrites above, which the candidates apply before this one
    _rw("erfc-far",        erfc(u),
        Piecewise((_erfc_far(u), u > ERFC_FAR), (erfc(u), True)), "measured",
        "scipy's erfc(u) loses up to 9 bits for u in [0.8, 27.2] (6 on [6, 9]), where "
        "exp(-u²)·erfcx(u) with u² split exactly keeps 2.8",
        Example(erfc(x), {x: (6, 27.2)}, {x: (-6, 0.8)}),
        real(u), "u real", "erf", needs=("exp-square",), loses=5),
    # log erfc(u) = log erfcx(u) - u² where erfc(u) underflows (u > 26.5) and
    # beyond ERFC_FAR, as the erfc form above
    _rw("log-erfc",        log(erfc(u)),
        Piecewise((log(erfcx(u)) - u**2, u > ERFC_FAR), (log(erfc(u)), True)), "safe",
        "erfc(u) underflows from u = 27.2: log(erfc(u)) is -inf where it is ≈ -u²",
        Example(log(erfc(x)), {x: (27.3, 1e150)}, {x: (-6, 1.9)}, {x: ERFC_ALL}),
        real(u), "u real", "erf"),
    # ---- exponential factors: a square split exactly, a log of a product with exp,
    #      a log near 1 -----------------------------------------------------------
    Rewrite("exp-square",  exp(c * u**2),       _exp_square(),    "safe",
        "u² rounds, and exp(c·u²) loses |c·u²|·2^-53 of its value: 8 bits for "
        "exp(-u²/2) at u = 36",
        Example(exp(-x**2 / 2), {x: (30, 37.5)}, {x: (-3, 3)}, {x: ALL}),
        _square_valid, "u real, c rational", "exponents",
        # log2 of |c·u²| < 745 wherever exp(c·u²) is a float: 9.5 at most
        {"loses": 6, "build": _exp_square_build()}),
    Rewrite("exp-square-unit", exp(u**2),       _exp_square(1),   "safe",
        "u² rounds, and exp(u²) loses u²·2^-53 of its value: 9 bits at u = 26",
        Example(exp(x**2), {x: (20, 26.6)}, {x: (-3, 3)}, {x: ALL}),
        lambda m, f: _square_valid({**m, c: Integer(1)}, f), "u real", "exponents",
        {"loses": 6, "build": _exp_square_build(Integer(1))}),
    _rw("log-exp-product", log(exp(a) * b),     a + log(b),       "measured",
        "exp(a) underflows or overflows where log(exp(a)·b) is an ordinary number "
        "(the log of erfc through erfcx: log(exp(-u²)·erfcx(u)))",
        Example(log(exp(-x**2) * (x**2 + 1)), {x: (30, 1e150)}, {x: (-5, 5)}),
        lambda m, f: f.real(m[a]) and f.positive_value(m[b]), "a real, b > 0", "exponents"),
    _rw("log-near-one",    log(a),              log1p(a - 1),     "measured",
        "log(a) of a rounded a near 1 keeps only what is left of a - 1, which the "
        "form computes first (log((1 + erf(u))/2) for large u)",
        Example(log(x / 2 + Rational(1, 2)), {x: (1 - 1e-9, 1 + 1e-9)}, {x: (2, 100)}),
        _log_near_one, "a real, a sum with a number", "exponents"),
    # ---- regimes: a form per region, the threshold known in advance ------------
    _rw("sqrt-exp",        sqrt(exp(u) + a),
        Piecewise((exp(u / 2) * sqrt(1 + a * exp(-u)), u > 0), (sqrt(exp(u) + a), True)),
        "measured",
        "exp(u) overflows for u > 709.78 while sqrt(exp(u) + a) ≈ exp(u/2) is a float "
        "up to u = 1419.6",
        Example(sqrt(exp(x) + 1), {x: (710, 1419)}, {x: (-700, 700)}),
        _exp_sqrt_valid,
        "u real, a ≥ 0", "regimes"),
    _rw("sqrt-conjugate",  sqrt(a) + b,
        Piecewise(((a - b**2) / (sqrt(a) - b), b < 0), (sqrt(a) + b, True)), "measured",
        "sqrt(a) + b cancels where b ≈ -sqrt(a) < 0; the conjugate moves the "
        "difference into a - b², which cancels symbolically",
        Example(sqrt(x**2 + 1) - x, {x: (1e3, 1e150)}, {x: (-1e3, 1)}),  # (b < 0 in part)
        _cancels, "a - b² simpler than a", "regimes"),
    # the same for a norm written hypot(a, b) (as code generation writes
    # sqrt(a² + b²)): |z| + Re z in the complex square root, the difference of
    # two norms (the TNG eigenvalue); the numerator is built expanded
    Rewrite("hypot-conjugate", hypot(a, b) + c,
            Piecewise(((a**2 + b**2 - c**2) / (hypot(a, b) - c), c < 0),
                      (hypot(a, b) + c, True)), "measured",
            "hypot(a, b) + c cancels where c ≈ -hypot(a, b) < 0; the conjugate moves "
            "the difference into a² + b² - c², which cancels symbolically",
            Example(sqrt(x**2 + y**2) + x, {x: (-1e12, -1e8), y: (0.5, 2)},
                    {x: (-100, 100), y: (1, 100)}),
            _hypot_cancels, "a, b, c real; a² + b² - c² simpler", "regimes",
            {"needs": ("hypot",), "build": _hypot_conjugate}),
    # sqrt(a² + 1) as a norm, which the hypot entry (a² + b²) does not match:
    # a² overflows past 1.3e154 (the conjugate of sqrt(x² + 1) - x divides by it)
    _rw("hypot-one",       sqrt(a**2 + 1),      hypot(a, 1),      "measured",
        "a² overflows for |a| > 1.3e154 where sqrt(a² + 1) ≈ |a| is a float",
        Example(sqrt(x**2 + 1), {x: (1e160, 1e300)}, {x: (-1e3, 1e3)}),
        real(a), "a real", "regimes"),
    # sqrt(a² + b) where a² overflows (|a| > 1.3e154) or underflows (below
    # 1.5e-154) and the root need not (Herbie's quaternion log, sqrt(x·x + y)):
    # hypot(a, √b) for b ≥ 0 (no square, nothing cancels); for b < 0, as
    # written up to |a| = 2^60 (float32's a² too), where a² + b may cancel (pairs
    # keep that: a² is exact in them), and |a|·√((1 - t)(1 + t)), t = √-b/|a|,
    # beyond
    _rw("sqrt-square-plus", sqrt(a**2 + b),
        Piecewise((hypot(a, sqrt(b)), b >= 0), (sqrt(a**2 + b), Abs(a) < Integer(2)**60),
                  (Abs(a) * sqrt((1 - sqrt(-b) / Abs(a)) * (1 + sqrt(-b) / Abs(a))), True)),
        "measured",
        "a² overflows for |a| > 1.3e154 and underflows below 1.5e-154 where sqrt(a² + b) "
        "is a float",
        Example(sqrt(x**2 + y), {x: (1e160, 1e300), y: (-1e300, 1e300)},
                {x: (-1e3, 1e3), y: (0, 1e3)}),
        _sqrt_plus_valid, "a, b real, b not 1 (hypot-one's)", "regimes", needs=("hypot",)),
    # a square under a root taken out: sqrt(a²·b) = |a|·sqrt(b) (a² overflows
    # for |a| > 1.3e154 and underflows below 1.5e-162 where the root need not:
    # the complex square root's im²/(|z| - re) after its conjugate)
    _rw("sqrt-of-square",  sqrt(a**2 * b),      Abs(a) * sqrt(b), "safe",
        "a² overflows for |a| > 1.3e154 and underflows below 1.5e-162 where "
        "sqrt(a²·b) is a float",
        Example(sqrt(x**2 * y), {x: (1e160, 1e300), y: (1e-300, 1e-200)},
                {x: (1e-3, 1e3), y: (1e-3, 1e3)}, {x: ALL, y: (0, MAX)}),
        _sqrt_square_valid, "a real, b ≥ 0", "exp-log"),
)
# fmt: on
LIBRARY += INVERSE + GAMMAS + TRIGPI

_BY_NAME = {rw.name: rw for rw in LIBRARY}
if len(_BY_NAME) != len(LIBRARY):  # pragma: no cover (a typo in the table)
    raise RuntimeError("two rewrites share a name in the library")


def by_name(name: str) -> Rewrite:
    """The library's rewrite called ``name``.

    >>> by_name("log1p")
    Rewrite(log1p: log(_u + 1) -> log1p(_u), codegen)
    """
    return _BY_NAME[name]


def in_scope(*scopes: str) -> tuple[Rewrite, ...]:
    """The rewrites of the given scopes, in library order.

    >>> [rw.name for rw in in_scope("codegen")][:3]
    ['softplus', 'softplus-log1p', 'logaddexp']
    """
    return tuple(rw for rw in LIBRARY if rw.scope in scopes)

