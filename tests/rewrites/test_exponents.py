"""Exponential factors merged (0·inf products), complements of erf written
as erfc at scaled arguments and with coefficients, exp of a square split
exactly: each form proved by construction (identities), measured here
against the interval ground truth in float64 and float32 on formulas the
mechanisms were not built from."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad.rewrites import apply_rewrites, by_name, in_scope, safe_forms
from symgrad.rewrites.exponents import merge_exponentials, settle
from symgrad.stability.bits import bits_error, float_format
from symgrad.stability.floats import generated
from symgrad.stability.truth import RESOLVED, GroundTruth

x = sp.Symbol("x", real=True)
R2 = sp.sqrt(2)


def _bits(source, form, points, dtype):
    fmt = float_format(dtype)
    p = np.asarray(points, dtype=fmt.dtype)
    t, st = GroundTruth([source], [x], fmt.name).batch(p.astype(float)[:, None])
    ok = st[0] == RESOLVED
    got = np.broadcast_to(generated([x], [form], fmt.dtype)(p)[0], p.shape)
    return bits_error(got, t[0], fmt)[ok]


def _forms(source):
    """What candidates makes of ``source`` without algebra: the safe forms,
    and their exponents merged, then the rewrites again."""
    base = safe_forms([source])[0]
    merged = merge_exponentials([base])[0]
    again = apply_rewrites([merged], in_scope("measured"))
    return [base, settle(safe_forms([merged])[0]), settle(safe_forms(again)[0])]


def _best(source, points, dtype):
    """The least max error among those forms."""
    return min(_bits(source, f, points, dtype).max() for f in set(_forms(source)))


def test_merge_exponentials_cancels_huge_and_tiny_factors():
    assert merge_exponentials([sp.exp(-x**2 / 2) * sp.exp(x**2 / 2 + x)]) == [sp.exp(x)]
    assert merge_exponentials([sp.exp(-x) * sp.cosh(x)]) == [sp.exp(-2 * x) / 2 + sp.S.Half]
    # a regime folded out of a product: each branch meets the factor
    pw = sp.Piecewise((sp.exp(x**2) / x, x > 1), (x, True))
    assert merge_exponentials([sp.exp(-x**2) * pw]) == \
        [sp.Piecewise((1 / x, x > 1), (x * sp.exp(-x**2), True))]
    assert merge_exponentials([x + 1]) == [x + 1]


def test_complements_of_erf_with_a_coefficient_and_other_terms():
    # SymPy distributes (1 + erf(u))/2 and x*(1 + erf(u))/2: the pair is found
    # up to its common factor, the other terms kept
    for e in (sp.erf(x) / 2 + sp.S.Half, x * (1 + sp.erf(x / R2)) / 2, 3 - 3 * sp.erf(2 * x) + x):
        assert safe_forms([e])[0].has(sp.Piecewise), e
    assert str(safe_forms([3 * sp.exp(x) - 3 + x])[0]) == "x + 3*expm1(x)"


def test_exp_square_computes_a_coefficient_no_float_holds_from_the_exact_exponent():
    # c = -1/3: c·uh² would round (9.5 bits at |c·u²| = 745), so that exp is
    # computed in pairs; a power of two needs none (its measurement:
    # test_library's test_exp_square_splits_every_rational_coefficient_over_its_range)
    from symgrad.compensated import has_compensated

    rw = by_name("exp-square")
    half, third = safe_forms([sp.exp(-x**2 / 2), sp.exp(-x**2 / 3)])
    assert half != sp.exp(-x**2 / 2) and not has_compensated([half])
    assert third != sp.exp(-x**2 / 3) and has_compensated([third])
    assert rw.scope == "safe"


# the gradients of the normal log-CDF and log-survival, GELU and its gradient
# (erf form), the Mills ratio, log erfcx, exp(-x)·cosh(x): a form within 3 bits
# over the region where the textbook formula loses up to all its bits
_LOGCDF = sp.log((1 + sp.erf(x / R2)) / 2)
_GELU = x / 2 * (1 + sp.erf(x / R2))
CASES = {
    "log-CDF": (_LOGCDF, (-38, 38)),
    "log-CDF gradient": (sp.diff(_LOGCDF, x), (-38, 38)),
    "log-survival gradient": (sp.diff(sp.log((1 - sp.erf(x / R2)) / 2), x), (-38, 38)),
    "GELU": (_GELU, (-38, -2)),
    "GELU gradient": (sp.diff(_GELU, x), (-38, -2)),
    "Mills ratio": (sp.exp(x**2) * (1 - sp.erf(x)), (-26, 27)),
    "log erfcx": (sp.log(1 - sp.erf(x)) + x**2, (-5, 27)),
    "exp(-x)·cosh(x)": (sp.exp(-x) * sp.cosh(x), (-300, 1e4)),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_candidate_keeps_the_bits_the_formula_loses(name, dtype):
    e, (lo, hi) = CASES[name]
    if dtype == "float32":
        lo, hi = max(lo, -3e38), min(hi, 3e38)
    pts = np.linspace(lo, hi, 25)
    as_written = _bits(e, e, pts, dtype).max()
    worst = _best(e, pts, dtype)
    assert as_written >= 6, (name, dtype, as_written)
    assert worst <= 3, (name, dtype, worst)


def test_settle_drops_the_sign_ties_that_folding_two_sign_regimes_writes():
    # x*tanh(x) + sin(x)**2's gradient had (x >= 0) & (x <= 0), then
    # (x >= 0) | (x <= 0), then True: three forms computed at every point
    x = sp.Symbol("x", real=True)
    a = 4 * x / (1 + sp.exp(-2 * sp.Abs(x)))**2
    b, c = x * sp.exp(-sp.Abs(x)), x * sp.exp(-2 * sp.Abs(x))
    pw = sp.Piecewise((a, (x >= 0) & (x <= 0)), (b, (x >= 0) | (x <= 0)), (c, True), evaluate=False)
    assert settle(pw) == b
    # a tie whose branch differs from the next one's at t = 0 stays
    keep = sp.Piecewise((1 + a, (x >= 0) & (x <= 0)), (b, (x >= 0) | (x <= 0)), (c, True),
                        evaluate=False)
    assert settle(keep) == sp.Piecewise((1 + a, (x >= 0) & (x <= 0)), (b, True))
    # conditions of two symbols, or without a final True, are left
    y = sp.Symbol("y", real=True)
    two = sp.Piecewise((a, (x >= 0) & (y <= 0)), (b, (x >= 0) | (y <= 0)), (c, True),
                       evaluate=False)
    assert settle(two) == two
    open_end = sp.Piecewise((a, (x >= 0) & (x <= 0)), (b, (x >= 0) | (x <= 0)), evaluate=False)
    assert settle(open_end) == open_end


def test_a_piecewise_held_in_a_condition_is_left_unfolded():
    """SymPy's piecewise_fold asserts no condition holds a Piecewise; the
    rewrites hold such conditions unevaluated (the asymmetric loss's
    gradient: Heaviside(p - 1/20) of the exp-normalized sigmoid p, whose
    Piecewise stays inside the condition), and stabilize crashed with an
    AssertionError.  Such a formula is left unfolded, its exponentials
    still merged, its value unchanged."""
    from sympy.functions.elementary.piecewise import ExprCondPair

    y = sp.Symbol("y", real=True)
    e_x = sp.exp(-sp.Abs(x))
    p = sp.Piecewise((1, x >= 0), (e_x, True)) / (1 + e_x)
    cond = sp.StrictLessThan(p, sp.Rational(1, 20), evaluate=False)
    held = sp.Basic.__new__(sp.Piecewise, sp.Basic.__new__(ExprCondPair, sp.S(0), cond),
                            ExprCondPair(sp.exp(x) * p, sp.true))
    e = sp.Piecewise((y * held * sp.exp(-x), x >= 0), (held * sp.exp(x), True))
    (got,) = merge_exponentials([e])
    for xv, yv in ((-3.5, 0.25), (-2.0, 0.5), (0.5, 2.0), (4.0, -1.0)):
        at = {x: xv, y: yv}
        assert abs(float(got.subs(at)) - float(e.subs(at))) <= 1e-15 * abs(float(e.subs(at)))
