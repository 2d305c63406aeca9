"""Rewrites of differences of log-gammas and polygammas: entries of the
library (:mod:`.library`).

* An integer shift is a finite sum (the recurrences
  ``ψ⁽ᵐ⁾(x + 1) = ψ⁽ᵐ⁾(x) + (-1)ᵐ·m!/x^(m+1)`` and
  ``log Γ(x + 1) = log Γ(x) + log x``): ``digamma(x + 1) - digamma(x)`` is
  ``1/x``, where the difference rounds to 0 from x = 1e16;
* ``loggamma(a) + loggamma(b) - loggamma(a + b)`` is ``log B(a, b)``:
  for a, b ≥ 10 Stirling's form, whose large parts are differenced
  exactly through ``log1p`` and whose remainders
  (:class:`~.forms.lgamma_remainder`, about ``1/(12x)``) are small; where
  one of them is ≥ 10, the other's log-gamma less the Stirling difference
  ``log Γ(a + b) - log Γ(b)``; scipy's ``betaln`` where both are below 10
  (scipy's own is accurate only where one argument is a million times the
  other: 20 bits lost at a = 3.4, b = 2.8e6);
* the same with ``loggamma(a + b + n)`` for an integer ``n``, ``1 ≤ |n| ≤
  16`` (the log of a binomial coefficient, ``loggamma(n + 1) -
  loggamma(k + 1) - loggamma(n - k + 1)``, is ``-log B(k + 1, n - k + 1) -
  log(n + 1)``), and the negations of both;
* ``loggamma(a) - loggamma(b)`` and ``digamma(a) - digamma(b)`` with
  ``a - b`` a number or a formula of the inputs no larger than ``a`` and
  ``b`` (``x + y - x`` is ``y``: the log of a Pochhammer ratio): Stirling's
  forms likewise for a, b ≥ 10 (the digamma's remainder
  :class:`~.forms.digamma_remainder` ≈ ``-1/(12x²)``); below, both shifted
  up to 10 by the recurrence, the shift's terms all of the sign of ``a - b``
  (digamma: everywhere, nothing left to cancel; log-gamma: for a, b ≥ 3,
  where the plain difference is a few units beside log-gammas up to 13);
* ``digamma(a) - log(b)``, ``a - b`` a number of at most 5: ``(2d - 1)/(2a)
  - log1pmx(-d/a) + Rψ(a)`` for a ≥ 10, d = a - b (:class:`~.forms.log1pmx`,
  ``log1p(v) - v``), as written below.
"""

from __future__ import annotations

from sympy import (
    Abs,
    Add,
    Dummy,
    Min,
    Piecewise,
    Product,
    Rational,
    Sum,
    expand,
    factorial,
    log,
    loggamma,
    pi,
    polygamma,
    sign,
    symbols,
)
from sympy.codegen.cfunctions import log1p

from ..graph import count_ops
from .facts import Facts
from .forms import betaln, digamma_remainder, lgamma_remainder, log1pmx
from .pattern import PATTERN_SYMBOLS, Match
from .remainders import STIRLING_FROM
from .rewrite import Example, Rewrite

__all__ = ["GAMMAS"]

a, b, c, p, u, v = PATTERN_SYMBOLS
k = Dummy("k")  # the index of a shift's sum
x, y = symbols("x y")
MAX = 1.7976931348623157e308
TINY = 5e-324
SHIFTS = 16  # integer shifts up to this many are written as sums
HALF = Rational(1, 2)
BIG = STIRLING_FROM  # Stirling's forms from here
STIRLING_SHIFT = 10  # a digamma difference below BIG: both shifted by this many
SHIFT_FROM = 3  # a log-gamma difference of arguments in [3, BIG): shifted to BIG and up


def _shift(m: Match) -> int | None:
    d = m[a] - m[b]
    return int(d) if d.is_Integer and 1 <= abs(d) <= SHIFTS else None


def _polygamma_shift_valid(m: Match, f: Facts) -> bool:
    return m[c].is_Integer and m[c] >= 0 and f.real(m[a]) and _shift(m) is not None


def _loggamma_shift_valid(m: Match, f: Facts) -> bool:
    # at a = 0 or b = 0 both sides are ±inf
    return f.nonnegative(m[a]) and f.nonnegative(m[b]) and _shift(m) is not None


def _difference(m: Match):
    # a - b where it is a number or a formula no larger than a and b and free
    # of one of their symbols at least (x + y - x is y): computed from the
    # inputs, it does not cancel as a - b in floats would (Stirling's forms
    # difference a and b through it exactly).  (Of a and b of independent
    # symbols, ψ(x) - ψ(y), the difference cancels only along x = y, a zero
    # of the formula, which no form keeps: no candidate to measure)
    d = expand(m[a] - m[b])
    if d == 0:
        return None
    if d.is_Number:
        return d
    small = count_ops([d]) <= count_ops([m[a], m[b]]) + 1
    return d if small and d.free_symbols < (m[a].free_symbols | m[b].free_symbols) else None


def _number_shift_valid(m: Match, f: Facts) -> bool:
    return _difference(m) is not None and f.positive(m[a]) and f.positive(m[b])


def _digamma_number_shift_valid(m: Match, f: Facts) -> bool:
    return m[c] == 0 and _number_shift_valid(m, f)


def _beta_valid(m: Match, f: Facts) -> bool:
    return f.positive(m[a]) and f.positive(m[b]) and expand(m[c] - m[a] - m[b]) == 0


def _beta_offset(m: Match) -> int | None:
    d = expand(m[c] - m[a] - m[b])
    return int(d) if d.is_Integer and 1 <= abs(d) <= SHIFTS else None


def _beta_shift_valid(m: Match, f: Facts) -> bool:
    # (c > 0 too: the log-gammas' sum of logs is over c and a + b)
    return f.positive(m[a]) and f.positive(m[b]) and f.positive(m[c]) \
        and _beta_offset(m) is not None


def _polygamma_sum(n, lo, order):
    return Sum((-1) ** order * factorial(order) / (lo + k) ** (order + 1), (k, 0, n - 1))


def _loggamma_sum(n, lo):
    # log Γ(lo + n) - log Γ(lo): a sum of logs ≥ 0 from lo = 1 (no cancellation
    # there); below, the log of the product (≤ n!, no overflow)
    return Piecewise((Sum(log(lo + k), (k, 0, n - 1)), lo >= 1),
                     (log(Product(lo + k, (k, 0, n - 1))), True))


def _build_polygamma(m: Match):
    n = _shift(m)
    return (1 if n > 0 else -1) * _polygamma_sum(abs(n), Min(m[a], m[b]), m[c]).doit()


def _build_loggamma(m: Match):
    n = _shift(m)
    pw = _loggamma_sum(abs(n), Min(m[a], m[b]))
    pw = Piecewise(*[(e.doit(), cond) for e, cond in pw.args])
    return pw if n > 0 else -pw


def _stirling_beta(a, b):
    # Stirling: (a - ½)·log(a/(a + b)) + (b - ½)·log(b/(a + b)) - ½·log(a + b)
    # + ½·log(2π) + R(a) + R(b) - R(a + b): the two large terms have one sign
    return (-(a - HALF) * log1p(b / a) - (b - HALF) * log1p(a / b) - log(a + b) / 2
            + log(2 * pi) / 2 + lgamma_remainder(a) + lgamma_remainder(b)
            - lgamma_remainder(a + b))


def _stirling_difference(a, b, d=None):
    # log Γ(a) - log Γ(b) = (b - ½)·log(a/b) + (a - b)·log(a) - (a - b) + R(a) - R(b)
    # (d: a - b as :func:`_difference` writes it)
    d = a - b if d is None else d
    return (b - HALF) * log1p(d / b) + d * log(a) - d + lgamma_remainder(a) - lgamma_remainder(b)


def _log_beta(a, b):
    # both large: Stirling's form; one large (b): log Γ(a) - (log Γ(a + b) - log Γ(b)),
    # the difference by Stirling (its terms (b - ½)·log1p(a/b) ≈ a and -a cancel to
    # O(a²/b), small beside a·log(a + b), which has the value's sign); scipy's
    # betaln where both are small (no large log-gamma to cancel)
    return Piecewise((_stirling_beta(a, b), (a >= BIG) & (b >= BIG)),
                     (loggamma(a) - _stirling_difference(a + b, b), b >= BIG),
                     (loggamma(b) - _stirling_difference(a + b, a), a >= BIG),
                     (betaln(a, b), True))


def _signed_shift(hi, lo):
    # log Γ(hi) - log Γ(lo), hi - lo an integer: the sum of logs from the smaller
    return sign(hi - lo) * _loggamma_sum(Abs(hi - lo), Min(hi, lo))


def _build_beta_shift(m: Match, by: int = 1):
    # log Γ(a) + log Γ(b) - log Γ(a + b + n) = log B(a, b) - (log Γ(a + b + n) - log Γ(a + b))
    n = _beta_offset(m)
    s = m[a] + m[b]
    pw = _loggamma_sum(abs(n), Min(m[c], s))
    pw = Piecewise(*[(e.doit(), cond) for e, cond in pw.args]) if isinstance(pw, Piecewise) \
        else pw.doit()  # (one shift: SymPy folds both branches to one log)
    return by * (_log_beta(m[a], m[b]) - (pw if n > 0 else -pw))


def _build_beta_shift_negated(m: Match):
    return _build_beta_shift(m, -1)


def _digamma_difference(a, b, d=None):
    # ψ(a) - ψ(b) = log(a/b) - (a - b)/(2ab) + Rψ(a) - Rψ(b), Rψ ≈ -1/(12x²)
    d = a - b if d is None else d
    return log1p(d / b) + d / (2 * a * b) + digamma_remainder(a) - digamma_remainder(b)


def _shifted_difference(a, b, d):
    # log Γ(a) - log Γ(b) = [log Γ(a + n) - log Γ(b + n)] - Σₖ log1p((a - b)/(b + k)),
    # n = BIG - SHIFT_FROM: the bracket by Stirling (a + n, b + n ≥ 10 where a, b ≥
    # 3), the sum's terms all of the sign of a - b, as the bracket's.  Measured
    # against mpmath (a - b = 1/2, 1/3, 7/3, -1/5; 300 points a unit interval):
    # on [3, 5) the plain difference loses 3.0-4.5 bits max (1.1-2.8 mean), this
    # 2.0-3.2 (0.7-1.2); on [5, 10) 3.8-5.0 against 1.6-2.0.  On [2, 3) it is no
    # better than the plain (3.8 against 3.2 at 1/3, 2.8 against 2.0 at 7/3), and
    # below 2, about log Γ's minimum (log Γ(x) ≈ -0.12 at 1.46) and its zeros 1
    # and 2, the plain difference of small log-gammas is the most accurate
    n = BIG - SHIFT_FROM
    return _stirling_difference(a + n, b + n, d) - Add(*[log1p(d / (b + j)) for j in range(n)])


def _shifted_digamma_difference(a, b, d):
    # ψ(a) - ψ(b) = [ψ(a + n) - ψ(b + n)] + (a - b)·Σₖ 1/((a + k)(b + k)), n =
    # STIRLING_SHIFT: both parts of the sign of a - b, nothing cancels (the plain
    # difference of scipy's digammas loses 5.0-7.2 bits where a, b are 1-10, this
    # 1.6-2.0; below 1 both are within 2.6)
    n = STIRLING_SHIFT
    return _digamma_difference(a + n, b + n, d) \
        + d * Add(*[1 / ((a + j) * (b + j)) for j in range(n)])


# the shifted forms' templates, what the proofs prove, write the shift as the
# identity ψ(a) - ψ(b) = [ψ(a + n) - ψ(b + n)] + [ψ(a) - ψ(a + n)] - [ψ(b) -
# ψ(b + n)] (log-gamma's likewise): the builds write the first bracket by
# Stirling's form, which is the first branch at a + n, b + n (proved there,
# over positive symbols, which a + n, b + n are), and the others as the
# recurrence's sums (checked against mpmath to 35 digits in
# tests/rewrites/test_gammas.py).  SymPy proved the written-out sums in 3-8 s a
# rule, Stirling's form at a + n in 0.4 s, this in 0.01
def _digamma_pieces(a, b, d=None, template=False):
    n, d = STIRLING_SHIFT, a - b if d is None else d
    shifted = Add(polygamma(0, a + n) - polygamma(0, b + n), polygamma(0, a) - polygamma(0, a + n),
                  polygamma(0, b + n) - polygamma(0, b), evaluate=False) if template \
        else _shifted_digamma_difference(a, b, d)
    return Piecewise((_digamma_difference(a, b, d), (a >= BIG) & (b >= BIG)), (shifted, True))


def _loggamma_pieces(a, b, d=None, template=False):
    n, d = BIG - SHIFT_FROM, a - b if d is None else d
    shifted = Add(loggamma(a + n) - loggamma(b + n), loggamma(a) - loggamma(a + n),
                  loggamma(b + n) - loggamma(b), evaluate=False) if template \
        else _shifted_difference(a, b, d)
    return Piecewise((_stirling_difference(a, b, d), (a >= BIG) & (b >= BIG)),
                     (shifted, (a >= SHIFT_FROM) & (b >= SHIFT_FROM)),
                     (loggamma(a) - loggamma(b), True))


def _oriented(m: Match):
    # a, b, a - b and the sign the difference is taken with: a formula a - b
    # written negative (ψ(x) - ψ(x + y): -y) is taken the other way round, so
    # that log1p(d/b) has d ≥ 0 (with d/b near -1, where y ≫ x, log1p of
    # the rounded quotient lost 11.5 bits at x = 1.9, y = 6e5)
    d = _difference(m)
    if not d.is_Number and d.could_extract_minus_sign():
        return m[b], m[a], -d, -1
    return m[a], m[b], d, 1


def _build_digamma_pieces(m: Match):
    hi, lo, d, by = _oriented(m)
    return by * _digamma_pieces(hi, lo, d)


def _build_loggamma_pieces(m: Match):
    hi, lo, d, by = _oriented(m)
    return by * _loggamma_pieces(hi, lo, d)


def _digamma_log(a, d):
    # ψ(a) - log(b), b = a - d: ψ(a) = log(a) - 1/(2a) + Rψ(a) and log(a/b) =
    # -log1p(-d/a) = d/a - log1pmx(-d/a), so ψ(a) - log(b) = (2d - 1)/(2a) -
    # log1pmx(-d/a) + Rψ(a): the terms' leading parts, d/a and -1/(2a), are
    # differenced exactly as (2d - 1)/(2a) (ψ(x + 1/2) - log(x) is about
    # 1/(24x²): written so it keeps every bit; d = 0: -1/(2a) + Rψ(a))
    return (2 * d - 1) / (2 * a) - log1pmx(-d / a) + digamma_remainder(a)


def _digamma_log_pieces(a, b, d=None):
    # from BIG; below, ψ and log as written (shifting ψ up by the recurrence
    # leaves its sum of 1/(a + k) to cancel against the log's growth)
    d = a - b if d is None else d
    return Piecewise((_digamma_log(a, d), a >= BIG), (polygamma(0, a) - log(b), True))


def _digamma_log_valid(m: Match, f: Facts) -> bool:
    # d a number, |d| ≤ BIG/2: -d/a in [-1/2, 1/2] from a = 10 (log1pmx near
    # -1, or d/a large beside the log, would cancel: ψ(x) - log(x + y), y ≫ x)
    d = expand(m[a] - m[b])
    return m[c] == 0 and d.is_Number and abs(d) <= BIG / 2 and f.positive(m[a]) \
        and f.positive(m[b])


def _build_digamma_log(m: Match):
    return _digamma_log_pieces(m[a], m[b], expand(m[a] - m[b]))


def _rw(name, lhs, rhs, scope, why, example, valid, where, **extra):
    return Rewrite(name, lhs, rhs, scope, why, example, valid, where, "log-gamma", extra)


_SHIFT_PROOFS = [{a: b + 1, c: 0}, {a: b + 3, c: 0}, {a: b + 2, c: 2}, {b: a + 2, c: 1}]

# fmt: off
GAMMAS: tuple[Rewrite, ...] = (
    _rw("polygamma-shift", polygamma(c, a) - polygamma(c, b),
        sign(a - b) * _polygamma_sum(Abs(a - b), Min(a, b), c), "safe",
        "ψ⁽ᵐ⁾(a) - ψ⁽ᵐ⁾(b) cancels for large a, b: digamma(x + 1) - digamma(x) is 0 "
        "from x = 1e16 where it is 1/x",
        Example(polygamma(0, x + 1) - polygamma(0, x), {x: (1e3, 1e300)}, {x: (0.1, 10)},
                {x: (TINY, MAX)}),
        _polygamma_shift_valid, "a - b an integer, 1 ≤ |a - b| ≤ 16, m ≥ 0",
        build=_build_polygamma, bind=_SHIFT_PROOFS),
    _rw("loggamma-shift",  loggamma(a) - loggamma(b),
        sign(a - b) * _loggamma_sum(Abs(a - b), Min(a, b)), "safe",
        "log Γ(a) - log Γ(b) cancels for large a, b: loggamma(x + 1) - loggamma(x) "
        "keeps no bit of log(x) from x = 1e16",
        Example(loggamma(x + 2) - loggamma(x), {x: (1e3, 1e300)}, {x: (0.1, 10)},
                {x: (TINY, MAX)}),
        _loggamma_shift_valid, "a, b ≥ 0, a - b an integer, 1 ≤ |a - b| ≤ 16",
        build=_build_loggamma, bind=[{a: b + 1}, {a: b + 3}, {b: a + 2}]),
    _rw("betaln",          loggamma(a) + loggamma(b) - loggamma(c), _log_beta(a, b),
        "measured",
        "the three log-gammas cancel where a, b are large: 14 bits at a = 1e7, b = 1e3",
        Example(loggamma(x) + loggamma(y) - loggamma(x + y), {x: (1e7, 1e12), y: (10, 1e3)},
                {x: (0.5, 5), y: (0.5, 5)}),
        _beta_valid, "a, b > 0, c = a + b", bind={c: a + b}, loses=8),
    _rw("betaln-negated",  loggamma(c) - loggamma(a) - loggamma(b), -_log_beta(a, b),
        "measured",
        "the three log-gammas cancel where a, b are large (log 1/B(a, b), as a "
        "binomial coefficient's log is written)",
        Example(loggamma(x + y) - loggamma(x) - loggamma(y), {x: (1e7, 1e12), y: (10, 1e3)},
                {x: (0.5, 5), y: (0.5, 5)}),
        _beta_valid, "a, b > 0, c = a + b", bind={c: a + b}, loses=8),
    # (the shifts' templates have log B as the node betaln, whose accurate forms
    # are betaln's above and proved there; their build writes those forms)
    _rw("betaln-shift",    loggamma(a) + loggamma(b) - loggamma(c),
        betaln(a, b) - _signed_shift(c, a + b), "measured",
        "log B(a, b) with a + b shifted by an integer n: the three log-gammas cancel "
        "where a, b are large",
        Example(loggamma(x + 1) + loggamma(y + 1) - loggamma(x + y + 1),
                {x: (1e7, 1e12), y: (10, 1e3)}, {x: (0.5, 5), y: (0.5, 5)}),
        _beta_shift_valid, "a, b, c > 0, c - a - b an integer, 1 ≤ |c - a - b| ≤ 16",
        build=_build_beta_shift, bind=[{c: a + b - 1}, {c: a + b + 2}], loses=8),
    _rw("betaln-shift-negated", loggamma(c) - loggamma(a) - loggamma(b),
        _signed_shift(c, a + b) - betaln(a, b), "measured",
        "the log of a binomial coefficient, loggamma(n + 1) - loggamma(k + 1) - "
        "loggamma(n - k + 1): the three log-gammas cancel where n is large (62 bits at "
        "n = 1e12, k = 3)",
        Example(loggamma(x + y + 1) - loggamma(x + 1) - loggamma(y + 1),
                {x: (1e7, 1e12), y: (1, 20)}, {x: (0.5, 5), y: (0.5, 5)}),
        _beta_shift_valid, "a, b, c > 0, c - a - b an integer, 1 ≤ |c - a - b| ≤ 16",
        build=_build_beta_shift_negated, bind=[{c: a + b - 1}, {c: a + b + 2}], loses=8),
    _rw("digamma-difference", polygamma(c, a) - polygamma(c, b),
        _digamma_pieces(a, b, template=True), "measured",
        "ψ(a) - ψ(b) cancels for large a, b near each other: digamma(x + 1/2) - "
        "digamma(x) keeps no bit of 1/(2x) from x = 1e16",
        Example(polygamma(0, x + HALF) - polygamma(0, x), {x: (1e3, 1e300)}, {x: (0.1, 10)}),
        _digamma_number_shift_valid, "a, b > 0, a - b a number or a formula of the inputs, m = 0",
        bind={c: 0},
        build=_build_digamma_pieces),
    _rw("loggamma-difference", loggamma(a) - loggamma(b),
        _loggamma_pieces(a, b, template=True), "measured",
        "log Γ(a) - log Γ(b) cancels for large a, b near each other",
        Example(loggamma(x + HALF) - loggamma(x), {x: (1e3, 1e300)}, {x: (0.1, 10)}),
        _number_shift_valid, "a, b > 0, a - b a number or a formula of the inputs",
        build=_build_loggamma_pieces),
    _rw("digamma-log", polygamma(c, a) - log(b), _digamma_log_pieces(a, b), "measured",
        "ψ(a) - log(b) cancels for large a, b near each other: digamma(x + 1/2) - log(x), "
        "about 1/(24x²), keeps no bit of it from x = 1e8",
        Example(polygamma(0, x + HALF) - log(x), {x: (1e3, 1e300)}, {x: (0.1, 10)}),
        _digamma_log_valid, "a, b > 0, a - b a number, |a - b| ≤ 5, m = 0",
        bind={c: 0}, build=_build_digamma_log),
)
# fmt: on
