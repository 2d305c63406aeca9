"""Differences of log-gammas and polygammas (symgrad/rewrites/gammas.py):
the cases of issue 17 and siblings the rewrites were not written from,
measured against mpmath where the formula as written loses its bits."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import lambdify
from symgrad.rewrites import Facts, apply_rewrites, by_name, safe_forms
from symgrad.rewrites.forms import (
    betaln,
    digamma_remainder,
    lgamma_remainder,
    polygamma_remainder,
)

from .measure import as_run, as_written, errors

x, y = sp.symbols("x y")
POS = (1e-300, 1e300)

SHIFTS = [
    sp.polygamma(0, x + 1) - sp.polygamma(0, x),       # issue 17: digamma differences
    sp.digamma(2 * x + 3) - sp.digamma(2 * x),
    sp.polygamma(1, x) - sp.polygamma(1, x + 2),
    sp.loggamma(x + 1) - sp.loggamma(x),
    sp.loggamma(x) - sp.loggamma(x + 5),
]


@pytest.mark.parametrize("e", SHIFTS, ids=[str(e) for e in SHIFTS])
def test_integer_shifts_are_finite_sums(e):
    form = safe_forms([e], {x: POS})[0]
    assert not form.has(sp.polygamma, sp.loggamma), form
    got = errors(e, {"source": (e, as_written), "form": (form, as_run)}, {x: (1e3, 1e200)},
                 n=32)
    assert len(got["source"]) >= 28
    assert got["source"].max() >= 10 and got["form"].max() <= 3, got["form"].max()


def test_the_sum_of_logs_below_one_is_the_log_of_the_product():
    # log Γ(x + 2) - log Γ(x) = log(x(x + 1)): a sum of logs of both signs
    # would cancel where the product is near 1; the log of the product loses
    # only at its zero crossing, x = 0.618 (ill-conditioned), no more than the
    # log-gammas as written
    e = sp.loggamma(x + 2) - sp.loggamma(x)
    form = safe_forms([e], {x: POS})[0]
    got = errors(e, {"source": (e, as_written), "form": (form, as_run)}, {x: (0.5, 0.7)}, n=32)
    assert got["form"].max() <= got["source"].max() + 1
    assert got["form"].mean() <= got["source"].mean() + 0.5


STIRLING = [
    # (formula, where it loses as written, the domain, the rewrite)
    (sp.loggamma(x) + sp.loggamma(y) - sp.loggamma(x + y), {x: (1e7, 1e12), y: (10, 1e3)},
     {x: (0, np.inf), y: (0, np.inf)}, "betaln"),
    (sp.loggamma(2 * x) + sp.loggamma(x) - sp.loggamma(3 * x), {x: (1e6, 1e15)},
     {x: (0, np.inf)}, "betaln"),
    (sp.loggamma((x + 1) / 2) - sp.loggamma(x / 2), {x: (1e6, 1e200)}, {x: (0, np.inf)},
     "loggamma-difference"),
    (sp.loggamma(x + sp.Rational(1, 3)) - sp.loggamma(x - 2.5), {x: (1e6, 1e200)},
     {x: (3, np.inf)}, "loggamma-difference"),
    # the Student-t log-likelihood's gradient in its degrees of freedom
    (sp.digamma((x + 1) / 2) - sp.digamma(x / 2), {x: (1e6, 1e200)}, {x: (0, np.inf)},
     "digamma-difference"),
    (sp.digamma(x + 0.3) - sp.digamma(x - 0.2), {x: (1e3, 1e200)}, {x: (1, np.inf)},
     "digamma-difference"),
]


@pytest.mark.parametrize("e, lossy, domain, name", STIRLING,
                         ids=[str(s[0]) for s in STIRLING])
def test_stirling_forms_keep_what_the_log_gammas_lose(e, lossy, domain, name):
    form = apply_rewrites([e], [by_name(name)], Facts(domain, interior=True))[0]
    assert form != e
    got = errors(e, {"source": (e, as_written), "form": (form, as_run)}, lossy, n=32)
    assert len(got["source"]) >= 28
    # (five rounded terms: 3.6 bits where a - b is a Float, 2.8333333333333335)
    assert got["source"].max() >= 6 and got["form"].max() <= 4, got["form"].max()


def test_stirling_remainder_and_betaln_in_generated_code():
    import mpmath

    f = lambdify([x], lgamma_remainder(x))
    g = lambdify([x, y], betaln(x, y))
    pts = [0.5, 9.5, 10.0, 31.0, 1e4, 1e150]
    with mpmath.workdps(400):
        want = [float(mpmath.loggamma(v) - (v - mpmath.mpf(0.5)) * mpmath.log(v) + v
                      - mpmath.log(2 * mpmath.pi) / 2) for v in map(mpmath.mpf, pts)]
        beta = float(mpmath.log(mpmath.beta(3e8, 2.5)))
    got = f(np.array(pts))
    assert np.allclose(got[2:], want[2:], rtol=4e-16, atol=0)  # the series, from 10
    # the recurrence below (symgrad.rewrites.remainders; gammaln's difference was 1e-11)
    assert np.allclose(got[:2], want[:2], rtol=1e-15, atol=0)
    assert g(3e8, 2.5) == pytest.approx(beta, rel=1e-15)  # scipy's asymptotic betaln


# log B(a, b) with a + b shifted by an integer, and its negation: the log of
# a binomial coefficient as it is written (the issue-17 class of the held-out
# family l's negative binomial row, which no rewrite matched)
SHIFTED = [
    (sp.loggamma(x + y + 1) - sp.loggamma(y + 1) - sp.loggamma(x + 1),  # log C(x + y, y)
     {x: (1e7, 1e12), y: (1, 20)}, "betaln-shift-negated"),
    (sp.loggamma(y + x) - sp.loggamma(x) - sp.loggamma(y + 1),  # negative binomial, k = y
     {x: (1e5, 1e12), y: (1, 100)}, "betaln-shift-negated"),
    (sp.loggamma(x) + sp.loggamma(y) - sp.loggamma(x + y + 2), {x: (1e7, 1e12), y: (10, 1e3)},
     "betaln-shift"),
    # log B(a, b) with one argument below Stirling's 10: scipy's betaln cancels
    # (20 bits at a = 3.4, b = 2.8e6): log Γ(a) less Stirling's difference
    (sp.loggamma(y) + sp.loggamma(x) - sp.loggamma(x + y), {x: (1e4, 1e9), y: (1, 9)},
     "betaln"),
]


@pytest.mark.parametrize("e, lossy, name", SHIFTED, ids=[str(s[0]) for s in SHIFTED])
def test_log_betas_shifted_by_an_integer_and_negated_keep_their_bits(e, lossy, name):
    form = apply_rewrites([e], [by_name(name)], Facts({x: (0, np.inf), y: (0, np.inf)},
                                                       interior=True))[0]
    assert not form.has(sp.loggamma) or form.count(sp.loggamma) < e.count(sp.loggamma), form
    got = errors(e, {"source": (e, as_written), "form": (form, as_run)}, lossy, n=32)
    assert len(got["source"]) >= 28
    assert got["source"].max() >= 10 and got["form"].max() <= 4, got["form"].max()


# below Stirling's 10: the digamma difference shifted up by the recurrence
# (both parts of the sign of a - b), the log-gamma difference from 3 (the
# shift's log1p terms of the bracket's sign); and a - b a formula of the
# inputs, not only a number (the log of a Pochhammer ratio, the negative
# binomial's and the beta-binomial's digammas)
BELOW = [
    (sp.digamma(x + sp.Rational(1, 3)) - sp.digamma(x), {x: (1, 10)}, "digamma-difference", 5),
    (sp.digamma((x + 1) / 2) - sp.digamma(x / 2), {x: (2, 20)}, "digamma-difference", 5),
    (sp.loggamma(x + sp.Rational(1, 2)) - sp.loggamma(x), {x: (5, 10)}, "loggamma-difference", 3.5),
    (sp.digamma(x + y) - sp.digamma(x), {x: (1e6, 1e12), y: (1, 30)}, "digamma-difference", 10),
    (sp.loggamma(x + y) - sp.loggamma(x), {x: (1e6, 1e12), y: (0.1, 30)},
     "loggamma-difference", 10),
    # ψ(a) - log(b): ψ's log and 1/(2a) differenced exactly, log1pmx for the rest
    (sp.digamma(x) - sp.log(x), {x: (1e3, 1e15)}, "digamma-log", 10),
    (sp.digamma((x + 1) / 2) - sp.log(x / 2), {x: (1e6, 1e15)}, "digamma-log", 10),
    # a - b written negative, and large beside b: taken the other way round
    (sp.digamma(x) - sp.digamma(x + y), {x: (1, 10), y: (1e5, 1e6)}, "digamma-difference", 0),
    (sp.digamma(x + 2) - sp.log(x + 1), {x: (1e3, 1e15)}, "digamma-log", 10),
]


@pytest.mark.parametrize("e, lossy, name, loses", BELOW, ids=[str(s[0]) for s in BELOW])
def test_differences_below_ten_and_of_formulas_keep_their_bits(e, lossy, name, loses):
    form = apply_rewrites([e], [by_name(name)], Facts({x: (0, np.inf), y: (0, np.inf)},
                                                       interior=True))[0]
    got = errors(e, {"source": (e, as_written), "form": (form, as_run)}, lossy, n=32)
    assert len(got["source"]) >= 28
    assert got["source"].max() >= loses and got["form"].max() <= 3, got["form"].max()


def test_shifted_forms_as_built_equal_the_differences():
    # the proofs prove the templates (the shift's sum written as the difference
    # it equals); the builds write the sums: each regime against mpmath at 40 digits
    import mpmath

    from symgrad.rewrites.gammas import _digamma_pieces, _loggamma_pieces

    h = sp.Rational(1, 3)
    for pieces, f in ((_digamma_pieces, mpmath.digamma), (_loggamma_pieces, mpmath.loggamma)):
        form = pieces(x + y, x, y)
        for v, w in ((0.25, 0.5), (3.5, h), (40.0, h), (9.5, 30.0)):
            with mpmath.workdps(40):
                got = sp.N(form.subs({x: sp.Rational(v), y: sp.Rational(w)}), 40)
                want = f(mpmath.mpf(v) + mpmath.mpf(float(w))) - f(mpmath.mpf(v)) if w != h \
                    else f(mpmath.mpf(v) + mpmath.mpf(1) / 3) - f(mpmath.mpf(v))
                assert abs(mpmath.mpf(str(got)) - want) <= mpmath.mpf(10) ** -35 * abs(want), \
                    (v, w)


def test_shifted_forms_in_float32_code():
    import mpmath

    from symgrad.rewrites.gammas import _digamma_pieces, _loggamma_pieces

    xs = np.array([0.3, 1.7, 3.25, 6.5, 9.75, 12.0, 3e4], dtype=np.float32)
    for pieces, f in ((_digamma_pieces, mpmath.digamma), (_loggamma_pieces, mpmath.loggamma)):
        got = lambdify([x], pieces(x + sp.Rational(1, 2), x))(xs)
        assert got.dtype == np.float32
        with mpmath.workdps(40):
            want = np.array([float(f(mpmath.mpf(float(v)) + 0.5) - f(mpmath.mpf(float(v))))
                             for v in xs], dtype=np.float32)
        assert np.all(np.abs(got - want) <= 4 * np.spacing(np.abs(want))), (got, want)


def test_log1pmx_in_generated_code():
    # log1p(v) - v: its series on [-1/2, 1] and the difference outside, both
    # dtypes, at the branch ends, tiny and huge arguments
    import mpmath

    from symgrad.rewrites.forms import log1pmx

    v = sp.Symbol("v")
    pts = [-0.999999, -0.5000001, -0.5, -0.25, -1e-20, 1e-300, 1e-8, 0.3, 1.0, 1.0000001, 7.5, 1e30]
    for dtype, ulps in ((np.float64, 3), (np.float32, 2)):
        xs = np.array(pts, dtype=dtype)
        got = lambdify([v], log1pmx(v))(xs)
        assert got.dtype == dtype
        with mpmath.workdps(80):
            want = np.array([float(mpmath.log1p(mpmath.mpf(float(p))) - mpmath.mpf(float(p)))
                             for p in xs]).astype(dtype)
        tiny = np.finfo(dtype).smallest_subnormal
        assert np.all(np.abs(got - want) <= ulps * np.maximum(np.spacing(np.abs(want)), tiny)), \
            (dtype, got, want)


def test_remainders_run_time_coefficients_and_numpys_two_paths():
    # symgrad.rewrites.remainders: Bernoulli's numbers as SymPy's; NumPy's steps
    # spread over rows (short arrays) give the floats of the steps one at a time
    from symgrad.rewrites import remainders as rm

    for k in range(1, 11):
        b = sp.bernoulli(2 * k)
        assert rm.STIRLING[k - 1] == float(b / (2 * k * (2 * k - 1)))
        assert rm.DIGAMMA_SERIES[k - 1] == float(-b / (2 * k))
    z = np.random.default_rng(5).uniform(0, 10, 300)
    for of in (rm.lgamma_remainder, rm.digamma_remainder):
        for dt in (np.float64, np.float32):
            one = of(z.astype(dt), np.where, np.log1p, np.log)
            assert one.dtype == dt
            np.testing.assert_array_equal(
                of(z.astype(dt), np.where, np.log1p, np.log, spread=rm._spread), one)


def test_the_remainders_derivatives_are_remainder_nodes_within_ulps():
    # d/dx of Stirling's remainders: R' = Rψ exactly, Rψ' = polygamma_remainder(1, .),
    # each the next's derivative (SymPy), and NumPy's code of them within a few ulps
    # of mpmath where polygamma(1, x) - 1/x - 1/(2x²) as written lost 45 bits (1e6)
    import mpmath

    assert sp.diff(lgamma_remainder(x), x) == digamma_remainder(x)
    assert sp.diff(digamma_remainder(x), x, 2) == polygamma_remainder(2, x)
    assert polygamma_remainder(0, x) == digamma_remainder(x)
    for n in (1, 2, 3):
        d = sp.diff(polygamma_remainder(n - 1, x).rewrite(sp.polygamma), x)
        assert sp.simplify(d - polygamma_remainder(n, x).rewrite(sp.polygamma)) == 0
    pts = [1e-3, 0.3, 0.5, 0.9, 1.0, 1.5, 2.2, 5.0, 9.0, 9.99, 10.0, 13.0, 100.0, 1e6]
    for n in (1, 2, 3):
        got = lambdify([x], polygamma_remainder(n, x))(np.array(pts))
        with mpmath.workdps(60):
            want = [float(mpmath.polygamma(n, v) - (-1) ** (n - 1) * (
                mpmath.factorial(n - 1) / v**n + mpmath.factorial(n) / (2 * v ** (n + 1))))
                for v in map(mpmath.mpf, pts)]
        np.testing.assert_allclose(got, want, rtol=8 * 2.0**-53, atol=0)


def test_log_gammas_step_below_a_half_by_atanhs_addition_formula():
    # the step from z in [1/8, 1/2), atanh(u)/u - 1: its log form loses 3.7 bits
    import mpmath

    pts = np.random.default_rng(3).uniform(0.125, 0.5, 200)
    got = lambdify([x], lgamma_remainder(x))(pts)
    with mpmath.workdps(40):
        want = [float(mpmath.loggamma(v) - (v - mpmath.mpf(0.5)) * mpmath.log(v) + v
                      - mpmath.log(2 * mpmath.pi) / 2) for v in map(mpmath.mpf, pts)]
    np.testing.assert_allclose(got, want, rtol=10 * 2.0**-53, atol=0)  # (the log form: 14)


def _zeros_and_spread(dtype):
    """Points within a few ulps and within 1e-6 of log Γ's zeros 1, 2 and ψ's
    positive root, and a spread over (0, 1e6], in ``dtype``."""
    x0 = 1.4616321449683623
    pts = [np.geomspace(1e-30, 1e6, 41), np.linspace(0.25, 3, 23)]
    for c in (1.0, 2.0, x0):
        c = dtype(c)
        up, down = [c], [c]
        for _ in range(3):
            up.append(np.nextafter(up[-1], dtype(3)))
            down.append(np.nextafter(down[-1], dtype(0)))
        pts += [up, down, [c * dtype(1 - 1e-6), c * dtype(1 + 1e-6)]]
    return np.concatenate(pts).astype(dtype)


def _bits(got, truth, dtype):
    from symgrad.stability.bits import FORMATS, bits_error

    with np.errstate(over="ignore"):  # (a truth past the type's range: inf, as the code's)
        return bits_error(np.asarray(got, dtype=float), truth, FORMATS[np.dtype(dtype).name])


def test_digamma_near_its_root_and_log_gamma_near_its_zeros_run_time():
    # symgrad.rewrites.remainders' ψ on [1/4, 3] ((x - x0)·P, x0 in three floats)
    # and log Γ on (0, 10) (series at the nearest integer) + Stirling's from 10,
    # the frameworks' (JAX's and PyTorch's digamma lose 53-63 bits at x0, JAX's
    # lgamma 29 about 1 and 2): within 2 bits (ψ) and 3 (log Γ: 2.8 in float32 about
    # its minimum, where t(1 - γ + ...) - log1p(t) loses a factor 3 as NumPy's code's
    # text of it) of mpmath in NumPy, both types
    import mpmath

    from symgrad.codegen.printer import lgamma2_coefficients
    from symgrad.rewrites import remainders as rm

    assert rm.LGAMMA2_SERIES == lgamma2_coefficients()
    with mpmath.workprec(200):
        x0 = mpmath.findroot(mpmath.digamma, mpmath.mpf(1.4616321449683623))
        assert abs(sum(map(mpmath.mpf, rm.DIGAMMA_ROOT)) - x0) < 1e-31
        assert all(float(np.float32(r)) == r for r in rm.DIGAMMA_ROOT[:2])
        for dt in (np.float64, np.float32):
            pts = _zeros_and_spread(dt)
            near = (pts >= 0.25) & (pts <= 3)
            psi = np.array([float(mpmath.digamma(mpmath.mpf(float(p)))) for p in pts])
            lg = np.array([float(mpmath.loggamma(mpmath.mpf(float(p)))) for p in pts])
            got = rm.digamma_near_root(pts[near], np.where)
            assert got.dtype == dt and _bits(got, psi[near], dt).max() <= 2, dt
            got = rm.loggamma(pts, np.where, np.log1p, np.log)
            assert got.dtype == dt and _bits(got, lg, dt).max() <= 3, dt
