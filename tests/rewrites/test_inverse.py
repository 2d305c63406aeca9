"""Inverse trigonometric and hyperbolic functions, and functions of their
inverses (symgrad/rewrites/inverse.py): the cases of issue 17 and siblings
the rewrites were not written from, measured against mpmath where the
formula as written loses its bits."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from sympy.codegen.cfunctions import expm1

from symgrad.rewrites import safe_forms
from symgrad.rewrites.candidates import candidates

from .measure import as_run, as_written, errors

x = sp.Symbol("x")

SIBLINGS = [
    # (formula, where it loses as written, its domain)
    (sp.acos(1 - x), (1e-300, 1e-6), (0, 2)),            # issue 17: 59.9 bits kept
    (sp.acos(1 - x**2), (1e-150, 1e-4), (-1.4, 1.4)),
    (sp.acos(x - 1), (1e-300, 1e-6), (0, 2)),            # near -1
    (sp.asin(1 - 3 * x), (1e-300, 1e-6), (0, 0.6)),
    (sp.acosh(x**2 + 1), (1e-150, 1e-4), (-1e100, 1e100)),
    (sp.log(x + sp.sqrt(x**2 + 1)), (1e-300, 2e-5), (-1e300, 1e300)),
    (sp.log(x + sp.sqrt(x**2 + 1)), (-1e30, -1e3), (-1e300, 1e300)),  # cancels
    (sp.log(2 * x + sp.sqrt(4 * x**2 + 1)), (1e-300, 1e-6), (-1e150, 1e150)),
    (sp.log(x - sp.sqrt(x**2 - 1)), (1, 1 + 1e-6), (1, 1e100)),  # -acosh
    (sp.log((1 + 2 * x) / (1 - 2 * x)) / 2, (1e-300, 1e-6), (-0.5, 0.5)),
    (sp.pi / 2 - sp.atan(sp.exp(x)), (40, 700), (-700, 700)),
    (sp.log(1 + expm1(2 * x)), (360, 1e300), (-1e300, 1e300)),
]


@pytest.mark.parametrize("e, lossy, domain", SIBLINGS, ids=[str(s[0]) for s in SIBLINGS])
def test_inverse_functions_keep_their_bits(e, lossy, domain):
    form = safe_forms([e], {x: domain})[0]
    got = errors(e, {"source": (e, as_written), "form": (form, as_run)}, {x: lossy}, n=48)
    assert len(got["source"]) >= 40
    assert got["source"].max() >= 10, "the sibling does not lose bits as written"
    assert got["form"].max() <= 3, (form, got["form"].max())
    # and nowhere else on its domain more than the formula as written
    every = errors(e, {"source": (e, as_written), "form": (form, as_run)}, {x: domain}, n=48,
                   seed=3)
    assert every["form"].max() <= max(every["source"].max(), 2.0) + 1, form


def test_half_angle_near_its_ill_conditioned_end():
    # 2*asin(sqrt(x/2)), issue 17's fix for acos(1 - x), itself loses 26 bits near
    # x = 2 (asin near 1 of a rounded root); as acos(sqrt(1 - x/2)) there
    e = 2 * sp.asin(sp.sqrt(x / 2))
    cands = {c.how: c.expr for c in candidates(e, {x: (0, 2)})}
    form = cands["asin-of-root"]
    got = errors(e, {"source": (e, as_run), "form": (form, as_run)}, {x: (2 - 1e-6, 2)}, n=48)
    assert got["source"].max() >= 10 and got["form"].max() <= 2


def test_inverse_of_the_function_is_its_argument():
    from sympy.codegen.cfunctions import log1p

    y = sp.Symbol("y")
    assert safe_forms([sp.log(sp.exp(x * y))]) == [x * y]
    assert safe_forms([log1p(expm1(x)) + sp.log(1 + expm1(y))]) == [x + y]
    assert safe_forms([expm1(log1p(x))], {x: (-1, np.inf)}) == [x]
    assert safe_forms([expm1(log1p(x))]) != [x]  # x < -1: NaN as written, not x


def test_acos_of_a_rounded_argument_is_left_alone():
    # acos(x) near 1 is ill-conditioned in x itself: no form does better than
    # acos of the exact x, and nothing cancels symbolically
    assert safe_forms([sp.acos(x)]) == [sp.acos(x)]
    assert safe_forms([sp.asinh(x), sp.atanh(x)]) == [sp.asinh(x), sp.atanh(x)]


def test_acos_and_asin_of_a_ratio_whose_complement_cancels():
    # acos(N/D) = atan2(√(D² - N²), N), asin(N/D) = atan2(N, √(D² - N²)), D² - N²
    # worked out symbolically (heldout_o row 1, the polar angle acos(z/|r|):
    # 62.0 bits after stabilize, D² - N² = x² + y²).  Siblings not started from:
    # the latitude near a pole, the angle between two nearly parallel plane
    # vectors (D² - N² the square of their cross product), the angle of (x, y)
    # to the diagonal (D² - N² is (x - y)²), each as written 0 or π/2 where
    # the angle is ~1e-9 from it.  (The law of cosines' D² - N² is Heron's
    # product, whose factors a - b - c still cancel in floats: stabilize
    # computes it in pairs, certified)
    from symgrad.rewrites import Facts, apply_rewrites, by_name, in_scope

    x, y, z = sp.symbols("x y z", real=True)
    ux, uy, vx, vy = sp.symbols("ux uy vx vy", real=True)
    cases = [
        (sp.asin(z / sp.sqrt(x**2 + y**2 + z**2)),
         {x: (1e-12, 1e-6), y: (-1e-6, 1e-6), z: (0.5, 1)}),
        (sp.acos((ux * vx + uy * vy) / (sp.sqrt(ux**2 + uy**2) * sp.sqrt(vx**2 + vy**2))),
         {ux: (0.5, 1), uy: (1e-12, 1e-9), vx: (0.5, 1), vy: (-1e-9, -1e-12)}),
        (sp.acos((x + y) / sp.sqrt(2 * (x**2 + y**2))),  # to the diagonal: |x - y|
         {x: (1, 1), y: (1 - 1e-9, 1 - 1e-12)}),
    ]
    rewrites = [*in_scope("codegen"), by_name("acos-of-ratio"), by_name("asin-of-ratio")]
    for e, lossy in cases:
        form = apply_rewrites([e], rewrites, Facts(lossy))[0]
        assert form.has(sp.atan2), (e, form)
        got = errors(e, {"source": (e, as_written), "form": (form, as_run)}, lossy, n=24)
        assert len(got["source"]) >= 20
        assert got["source"].max() >= 10, e
        assert got["form"].max() <= 2, (form, got["form"].max())
    # D ≥ 0 is the domain's to say, per domain (remembered per argument alone, the
    # rewrite was made on x < 0 after a call on x > 0: atan2(1, √(x² - 1)) is not
    # acos(√(x² - 1)/x) there)
    e = sp.acos(sp.sqrt(x**2 - 1) / x)
    assert apply_rewrites([e], rewrites, Facts({x: (1, 2)}))[0].has(sp.atan2)
    assert apply_rewrites([e], rewrites, Facts({x: (-2, -1)}))[0] == e
    # nothing cancels in D² - N²: left alone (acos((x + 1)/2), acos of a plain symbol)
    assert apply_rewrites([sp.acos((x + 1) / 2), sp.asin(x)], rewrites, Facts()) == \
        [sp.acos((x + 1) / 2), sp.asin(x)]
