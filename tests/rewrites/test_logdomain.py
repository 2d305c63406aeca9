"""Powers with symbolic exponents in the log domain
(:mod:`symgrad.rewrites.logdomain`): ``B**p`` as ``exp(p·log B)`` with
the logs of sums of exponentials as softplus / logaddexp / normalized,
the exponents of a product grouped by coefficient, differences of
softplus values without cancellation.  Held-out l's Richards curve and
FPBench's clustering benchmark are the class's known members; the
generalized logistic, the Hill equation, a p-norm of exponentials and a
Fermi-Dirac power are siblings neither was built from (written before
they were run: ``benchmarks/logdomain_siblings.py``)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from symgrad import compensated, stabilize
from symgrad.rewrites import apply_rewrites, in_scope
from symgrad.rewrites.exact_exponents import exact_exponents
from symgrad.rewrites.facts import Facts
from symgrad.rewrites.logdomain import grouped_exponents, log_domain, softplus_difference
from symgrad.widen import widen
from tests.oracles import bits_against_truth

x, y, t, s, q, v, n, k, a, b, p = sp.symbols("x y t s q v n k a b p", real=True)
cp, cn = sp.symbols("cp cn", real=True)
_SAFE = in_scope("codegen", "safe")


def _sig(u):
    return 1 / (1 + sp.exp(-u))


def form_of(src, box):
    facts = Facts(box, interior=True)
    return apply_rewrites(grouped_exponents(log_domain([src], facts)), _SAFE, facts)[0]


def in_pairs(form, box):
    # as the candidates offer it: a regime folded out of the exponent, each
    # branch's exp in pairs (pairs round a Piecewise to one float)
    folded = sp.piecewise_fold(form)
    return exact_exponents([folded], Facts(box))[0]


bits = bits_against_truth  # (tests/oracles.py)


CASES = [  # (source, box: every point's value is a normal float of both types)
    ((1 + sp.exp(-x)) ** (-1 / y), {x: (-800.0, 800.0), y: (0.1, 10.0)}),  # Richards
    ((1 + q * sp.exp(-t)) ** (-1 / v), {t: (-1000.0, 1000.0), q: (0.01, 100.0), v: (0.1, 10.0)}),
    (_sig(s) ** cp * (1 - _sig(s)) ** cn, {s: (-800.0, 800.0), cp: (0.01, 5.0), cn: (0.01, 5.0)}),
    ((sp.exp(a) ** p + sp.exp(b) ** p) ** (1 / p), {a: (-600.0, 600.0), b: (-600.0, 600.0),
                                                   p: (0.5, 8.0)}),
]


def _points(box, syms, m, seed, where=None):
    rng = np.random.default_rng(seed)
    pts = np.stack([rng.uniform(*box[z], 4 * m) for z in syms], axis=1)
    if where is not None:
        pts = pts[where(*pts.T)]
    return pts[:m]


@pytest.mark.parametrize("src, box", CASES, ids=["richards", "gen-logistic", "sigmoid-powers",
                                                 "p-norm"])
def test_the_log_domain_form_is_the_formula(src, box):
    # mpmath at 40 digits, both sides, at points of every scale of the box
    form = form_of(src, box)
    assert form.has(sp.exp) and not any(isinstance(f, sp.Pow) and not f.exp.is_Number
                                        for f in sp.preorder_traversal(form))
    syms = sorted(src.free_symbols, key=str)
    exact = sp.lambdify(syms, src, "mpmath")  # (the source cancels: 4000 bits)
    for pt in _points(box, syms, 6, 3):
        sub = dict(zip(syms, (sp.Float(float(u), 40) for u in pt)))
        got = sp.N(form.subs(sub), 30)
        with mpmath.workprec(4000):
            want = exact(*(mpmath.mpf(float(u)) for u in pt))
            assert abs(mpmath.mpf(str(got)) - want) <= abs(want) * mpmath.mpf(10) ** -25


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("src, box", CASES[:3], ids=["richards", "gen-logistic",
                                                     "sigmoid-powers"])
def test_in_pairs_it_keeps_the_bits_where_the_power_as_written_overflows(src, box, dtype):
    # where 1 + exp(-x) overflows the type (x below -88.7 in float32, -709.8 in
    # float64) the power as written is 0 or NaN; its value is a float
    lim = 88.0 if dtype == "float32" else 709.0
    first = sorted(box, key=str).index(next(iter(box)))
    syms = sorted(src.free_symbols, key=str)
    pts = _points(box, syms, 60, 5, where=lambda *c: np.abs(c[first]) > lim)
    pts = np.concatenate([pts, _points(box, syms, 60, 6)])
    before = bits(src, src, syms, pts, dtype)
    after = bits(src, in_pairs(form_of(src, box), box), syms, pts, dtype)
    assert before.max() > 20
    assert after.max() <= 2.3, after.max()


def test_a_difference_of_softplus_values_does_not_cancel():
    # log(1 + e^a) - log(1 + e^b) at a, b a few ulps apart, over every scale
    rng = np.random.default_rng(8)
    base = rng.choice([-1, 1], 80) * 10.0 ** rng.uniform(-300, 2.8, 80)
    other = base * (1 + rng.integers(-40, 40, 80) * 2.0**-52) + rng.choice([0, 1e-300], 80)
    pts = np.stack([base, other], axis=1)
    src = sp.log(1 + sp.exp(a)) - sp.log(1 + sp.exp(b))
    plain = bits(src, src, [a, b], pts, "float64")
    form = apply_rewrites([softplus_difference(a, b)], _SAFE, Facts())[0]
    got = bits(src, form, [a, b], pts, "float64")
    assert plain.max() > 30
    assert got.max() <= 2.0, got.max()


def test_stabilize_fixes_the_generalized_logistic_in_float32_without_widening():
    # a sibling of held-out l's Richards curve: 27.4 bits where q*exp(-t)
    # overflows float64 (t < -709.8 + log q), the power widened before (and at
    # 7f9a763, whose (1 + u)**p rewrite keeps log1p(q*exp(-t)), inf there)
    src = (1 + q * sp.exp(-t)) ** (-1 / v)
    r = stabilize(src, CASES[1][1], dtype="float32", samples=64)
    assert not r.has(widen) and r.has(compensated)
    pts = np.array([[50.0, -714.0, 9.8], [0.02, -790.0, 9.0], [3.0, -60.0, 0.5], [1.0, 2.0, 0.1]])
    assert bits(src, r, [q, t, v], pts, "float32").max() <= 2.0


def test_power_of_a_sum_with_a_negative_term_goes_over_a_common_denominator():
    # 1 - σ(s) is 1/(1 + exp(s)): its log is -softplus(s), no cancellation
    got = log_domain([(1 - _sig(s)) ** cn])[0]
    assert got == sp.exp(-cn * sp.log(sp.exp(s) + 1))
    with mpmath.workdps(40):
        assert mpmath.almosteq(float(got.subs({s: 800.0, cn: 1e-3})),
                               mpmath.exp(-1e-3 * mpmath.log1p(mpmath.exp(800))), 1e-15)
    # a base not shown positive stays a power
    assert log_domain([(x - 1) ** y]) == [(x - 1) ** y]
