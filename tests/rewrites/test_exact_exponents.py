"""Exponentials of rounded arguments computed from the exact argument
(:mod:`symgrad.rewrites.exact_exponents`): ``exp(fl(u))`` loses about
``log2|u|`` bits; ``compensated(exp(u))`` keeps them, in float64 and
float32, on siblings of the ML gradients it was made for."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import grad, lambdify, stabilize
from symgrad.compensated import compensated
from symgrad.rewrites import accurate_forms
from symgrad.rewrites.exact_exponents import (
    exact_exponents,
    rounded_exponent,
    split_overflowing_products,
    split_subnormal_products,
)
from symgrad.rewrites.facts import Facts
from symgrad.stability.bits import bits_error, float_format
from tests.oracles import bits_against_truth

x, y, z = sp.symbols("x y z", real=True)
E = sp.exp


bits = bits_against_truth  # (tests/oracles.py)


# exponents that round, over boxes (float64's, float32's) where exp is a
# float but |u| is large
SIBLINGS = [
    (E(x - y), [x, y], {"float64": [(-350, 350)] * 2, "float32": [(-44, 44)] * 2}),
    (E(-x * y), [x, y], {"float64": [(-700, 700), (-1, 1)], "float32": [(-87, 87), (-1, 1)]}),
    (E(x / 3) * y, [x, y], {"float64": [(-2000, 2000), (1, 2)],
                            "float32": [(-260, 260), (1, 2)]}),
    (1 / (1 + E(x - y - z)), [x, y, z], {"float64": [(-230, 230)] * 3,
                                         "float32": [(-29, 29)] * 3}),
    (sp.log(1 + E(x * y)), [x, y], {"float64": [(-26, 26)] * 2, "float32": [(-9.3, 9.3)] * 2}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("src, syms, box", SIBLINGS, ids=lambda v: str(v)[:24])
def test_exact_exponents_keep_the_bits_the_rounded_argument_loses(src, syms, box, dtype):
    (runs,) = accurate_forms([src])  # what code generation emits (softplus's form)
    (form,) = exact_exponents([runs])
    assert form != runs and form.has(compensated)
    assert sp.simplify(form.replace(compensated, lambda u: u) - runs) == 0
    rng = np.random.default_rng(11)
    pts = np.stack([rng.uniform(lo, hi, 400) for lo, hi in box[dtype]], axis=1)
    before = bits(src, runs, syms, pts, dtype)
    after = bits(src, form, syms, pts, dtype)
    assert before.max() > 4  # the rounding of the argument costs bits as written
    assert after.max() <= 2.0
    assert after.mean() <= before.mean()


def test_exact_or_small_exponents_are_left_alone():
    assert exact_exponents([E(-2 * x) + E(x / 4) + E(sp.Abs(x))]) == [E(-2 * x) + E(x / 4) +
                                                                        E(sp.Abs(x))]
    facts = Facts({x: (-1, 1), y: (0, 2)})
    assert not rounded_exponent(E(x * y), facts)
    assert rounded_exponent(E(x * y), Facts({x: (-1, 1), y: (0, 20)}))


def test_stabilize_fixes_the_log_sum_exp_gradient_without_widening():
    # exp(a)/(exp(a) + exp(b)), normalized: exp(b - a) lost 9 bits at
    # a = -710.1, b = -36.3 (where exp(a) is subnormal), so the form was
    # rejected on fresh points and the gradient kept as written, NaN at (800, 0)
    a, b = sp.symbols("a b", real=True)
    g = grad(sp.log(E(a) + E(b)), a)
    s = stabilize(g, {a: (-1000, 1000), b: (-1000, 1000)}, explain=True, samples=128,
                  widen=False)
    assert s.choices[0].after[0] <= 3
    pts = np.array([[-710.10672131, -36.27317096], [800.0, 0.0], [181.087, 716.244],
                    [-3.5, 2.25]])
    assert bits(g, s.result, [a, b], pts, "float64").max() <= 2


# products c·exp(e) where exp(e) is subnormal and c is large (the silu's
# derivative at x = -744, the soft margin's at x·y = 716), float64 and float32
SUBNORMAL = [
    (x * E(x), [x], {"float64": [(-745, -700)], "float32": [(-103, -85)]}),
    (-x * E(-x * y) / (1 + E(-x * y)), [x, y], {"float64": [(700, 1000), (0.74, 1)],
                                              "float32": [(90, 200), (0.5, 1)]}),
    (x**3 * E(x) / (1 + E(x)) ** 2, [x], {"float64": [(-745, -690)],
                                         "float32": [(-110, -80)]}),
    # mish's gradient term: its softplus expanded, log1p(exp(-|x|)), is no longer
    # rewritten again by code generation, whose rebuild let SymPy merge the halves
    (x * (1 - sp.tanh(sp.log(1 + E(x)))**2) * E(x) / (1 + E(x)), [x],
     {"float64": [(-745, -700)], "float32": [(-105, -90)]}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("src, syms, box", SUBNORMAL, ids=lambda v: str(v)[:24])
def test_subnormal_exponentials_times_large_factors_are_split(src, syms, box, dtype):
    from symgrad.rewrites import safe_forms
    from symgrad.rewrites.expsums import EXP32, EXP_LO

    lo = EXP_LO if dtype == "float64" else EXP32[0]
    (runs,) = safe_forms([src])  # the sigmoid's shape as a Piecewise factor, too
    (form,) = split_subnormal_products(exact_exponents([runs]), lo=lo)
    assert form != runs
    rng = np.random.default_rng(12)
    pts = np.stack([rng.uniform(a, b, 300) for a, b in box[dtype]], axis=1)
    before = bits(src, runs, syms, pts, dtype)
    after = bits(src, form, syms, pts, dtype)
    assert before.max() > 5  # the subnormal's rounding times a large factor
    assert after.max() <= 3


def test_the_gelu_tanh_gradient_within_3_bits():
    # 1 - tanh(u)**2 and tanh(u) + 1 as sigmoids, the cubic exponent in pairs,
    # x·exp(...) split where the exp is subnormal; a float form (widen=False).
    # As derived: 0 at x = -7.31414 where the value is -6.03582e-16
    gc = sp.sqrt(2 / sp.pi)
    g = grad(x / 2 * (1 + sp.tanh(gc * (x + sp.Float("0.044715", 30) * x**3))), x)
    s = stabilize(g, {x: (-1000, 1000)}, samples=64, widen=False)
    pts = np.array([[-7.31414], [-7.5149], [-21.7], [-23.2], [-60.0], [3.0], [-0.7]])
    assert bits(g, g, [x], pts, "float64").max() > 60
    assert bits(g, s, [x], pts, "float64").max() <= 3


@pytest.mark.parametrize("src", [sp.sin(x) * sp.sinh(y), x * sp.cosh(y), x * E(y)],
                         ids=["sin-sinh", "cosh", "exp"])
def test_a_factor_past_the_range_beside_a_small_one_is_split(src):
    # FPBench's complex sine, -sin(re)*sinh(im): -inf at re = 4.3e-263,
    # im = 802.8 (true -9.5e85) and NaN at re = 0 past im = 710.5 (true 0);
    # its siblings with cosh and exp; within 1 ulp from the halves, the
    # quarters (a subnormal factor, |y| > 1419.6) and the zero, and the
    # product that overflows as it should
    import mpmath

    f = lambdify([x, y], split_overflowing_products([src])[0])
    g = sp.lambdify([x, y], src, "mpmath")
    for p in ((4.3e-263, 802.8), (0.0, 1e308), (0.5, 2.0), (5e-324, 1450.0),
              (1e-300, -800.0), (7.35891e183, 710.476), (2.0, 1e308)):
        with mpmath.workprec(200):
            t = g(mpmath.mpf(p[0]), mpmath.mpf(p[1]))
            want = float(t) if abs(t) < mpmath.mpf(2)**1024 else float(mpmath.sign(t)) * np.inf
        got = float(f(*p))
        assert got == want or abs(got - want) <= np.spacing(abs(want)), (src, p, got, want)


@pytest.mark.parametrize("src", [x**3 * E(-x**2), x * E(x) / (1 + E(x))**2,
                                 (x**2 + 1) * compensated(E(-x**4 / 3))],
                         ids=["cubic-gauss", "silu-shape", "compensated"])
def test_a_split_is_not_split_again(src):
    # stabilize splits the candidates that were split already: each half
    # was split into quarters, a third exp in every evaluation (the GELU
    # gradient's form under jax.jit: 95 -> 39 ms per 10^6 with two)
    from symgrad.graph import postorder

    (once,) = split_subnormal_products([src])
    (twice,) = split_subnormal_products([once])
    assert once != src and twice == once
    order, _ = postorder([twice], lambda n: n.args)
    exps = {n.args[0] for n in order if isinstance(n, sp.exp)}
    assert len(exps) == 2, exps  # exp(e) and its half exp(e/2)


def test_the_exact_squares_halves_are_not_split_where_the_domain_keeps_them_normal():
    # exp(-x**2/2) split exactly (two exps of floor parts) beside erfcx: over
    # (-30, 30) the exponents are >= -450 and > -1, never subnormal: no split
    # (log Phi's value carried a dead pair branch for |x| > 37.6); over
    # (-40, 40) the square's part may be: split
    from symgrad.rewrites import safe_forms
    from symgrad.rewrites.forms import erfcx

    (runs,) = exact_exponents(safe_forms([erfcx(-x) * E(-x**2 / 2)]), Facts({x: (-30, 30)}))
    assert split_subnormal_products([runs], Facts({x: (-30, 30)})) == [runs]
    assert split_subnormal_products([runs], Facts({x: (-40, 40)})) != [runs]


# a product split about a subnormal exp keeps its grouping (c·exp(e/2))·exp(e/2) through a
# later rewrite of e (log(1 + exp(-x)) as a softplus: the rewrites' evaluated rebuild folded
# the two halves into c·exp(e), subnormal), and a product of two Piecewise exponentials (σ(2u)
# and σ(-2u) normalized, each 1 where the other may be subnormal) is split at the second too:
# the mish second derivative lost 10.5 bits at x = 357.8 in its export's form (session 19).
# Siblings: exp(-|x + log(1 + exp(x))|) in halves, and the normalized product at x = 365
W = 2 * x + 2 * sp.log(1 + sp.exp(-x))


@pytest.mark.parametrize("f, at", [
    (sp.Mul(sp.Mul(8 - 8 * x, sp.exp(-sp.Abs(W) / 2), evaluate=False),
            sp.exp(-sp.Abs(W) / 2), evaluate=False), 357.8),
    (sp.Mul(sp.Mul(x**2, sp.exp(-sp.Abs(x + sp.log(1 + sp.exp(x))) / 2), evaluate=False),
            sp.exp(-sp.Abs(x + sp.log(1 + sp.exp(x))) / 2), evaluate=False), 356.0),
    (split_subnormal_products([(8 - 8 * x) * sp.Piecewise((1, W >= 0), (sp.exp(-sp.Abs(W)), True))
                               * sp.Piecewise((1, W <= 0), (sp.exp(-sp.Abs(W)), True))])[0],
     357.8),
    (split_subnormal_products([(8 - 8 * x) * sp.Piecewise((1, W >= 0), (sp.exp(-sp.Abs(W)), True))
                               * sp.Piecewise((1, W <= 0), (sp.exp(-sp.Abs(W)), True))])[0],
     365.0),
], ids=["split-halves", "sibling-halves", "sigmoid-product", "sigmoid-product-365"])
def test_a_split_product_stays_split_in_the_code(f, at):
    import mpmath

    exact = f.replace(lambda n: isinstance(n, compensated), lambda n: n.args[0])
    with mpmath.workdps(60):
        true = float(sp.lambdify(x, exact, "mpmath")(mpmath.mpf(at)))
    assert 0 < abs(true) < 1e-300, f
    got = float(lambdify([x], f)(at))
    assert bits_error(np.array([got]), np.array([true]), float_format("float64"))[0] <= 1, \
        (got, true)
