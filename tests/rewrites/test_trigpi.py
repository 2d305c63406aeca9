"""Trig of π times an input, its argument reduced exactly (sinpi, cospi,
tanpi): the NumPy code against Arb's sin_pi over the whole float range and
at the exact zeros, the ground truth's exact values, and the rewrites on the
formulas that lost every bit (cosine annealing near 1, degrees at 90) and
siblings the rewrites were not built from."""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy as sp
from sympy import cos, pi, sin, tan

from symgrad import stabilize
from symgrad.rewrites import LIBRARY, Facts, apply_rewrites
from symgrad.rewrites.pi_nodes import cospi, sinpi, tanpi
from symgrad.rewrites.proof import prove_equal
from symgrad.rewrites.trigpi import pi_multiple
from symgrad.stability.bits import bits_error, float_format
from symgrad.stability.floats import generated
from symgrad.stability.truth import RESOLVED, GroundTruth

from .measure import from_ordinals, ordinals

x, t = sp.symbols("x t")


def _arb_trig(name, v: float, q: Fraction) -> float:
    # Arb's sin_pi/cos_pi/tan_pi of v/q at 2,400 bits (v/q of a float below
    # 2**1024 to 2**-1300 absolute: its reduction exact enough), nearest float
    old = flint.ctx.prec
    flint.ctx.prec = 2400
    try:
        f = Fraction(v) / q
        w = flint.arb(flint.fmpq(f.numerator, f.denominator))
        got = {"sin": w.sin_pi, "cos": w.cos_pi, "tan": w.tan_pi}[name]()
        return float(got.mid()) if got.is_finite() else np.inf
    finally:
        flint.ctx.prec = old


def _bits(got: np.ndarray, true: np.ndarray, dtype: str) -> np.ndarray:
    return bits_error(got, true, float_format(dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("node, name", [(sinpi, "sin"), (cospi, "cos"), (tanpi, "tan")])
@pytest.mark.parametrize("q", [Fraction(1), Fraction(180), Fraction(1, 2), Fraction(3)])
def test_code_is_within_two_ulps_over_the_float_range(node, name, q, dtype):
    # uniform over the float ordinals (1e-300 and 1e300 both), plus points near
    # the zeros and extrema: multiples of q/2 and their neighbours
    dt = np.dtype(dtype)
    big = float(np.finfo(dt).max)
    rng = np.random.default_rng(5)
    lo, hi = ordinals(np.array([-big, big]))
    pts = from_ordinals(rng.integers(lo, hi, 150)).astype(dt)
    k = rng.integers(-40, 40, 50).astype(dt) * dt.type(q / 2)
    pts = np.concatenate([pts, k, np.nextafter(k, dt.type(np.inf)), np.nextafter(k, -dt.type(1))])
    f = generated([x], [node(x, sp.Rational(q.numerator, q.denominator))], dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        got = f(pts)[0]
    true = np.array([_arb_trig(name, float(v), q) for v in pts])
    at_pole = ~np.isfinite(true)
    err = _bits(got[~at_pole], true[~at_pole].astype(dt), dtype)
    assert err.max() <= 1.6, (node, q, pts[~at_pole][err.argmax()])
    # the zeros are exact: sin at multiples of q, cos at odd multiples of q/2
    zeros = (true == 0)
    assert np.all(got[zeros] == 0)


def test_truth_gives_the_exact_zeros_and_ones():
    gt = GroundTruth([sinpi(x, 180), cospi(x, 180), tanpi(x, 4)], [x], "float64")
    vals, status = gt.batch(np.array([[180.0], [90.0], [-360.0], [1e300], [4.0]]))
    assert (status[:2] == RESOLVED).all()
    assert vals[0].tolist() == [0.0, 1.0, 0.0, 0.0, _arb_trig("sin", 4.0, Fraction(180))]
    assert vals[1][:4].tolist() == [-1.0, 0.0, 1.0, 1.0]
    # tan(π·180/4) = tan(45π) = 0; tan(π·90/4) = tan(22.5π): a pole, undefined
    assert vals[2][0] == 0.0 and status[2][0] == RESOLVED and status[2][1] != RESOLVED


def test_arguments_that_are_pi_times_a_short_rational():
    assert pi_multiple(pi * t / 180) == (0, t, 180)
    assert pi_multiple(pi * (1 - x) / 2) == (1, -x, 2)  # sin(π(1 - x)/2) = cos(πx/2)
    assert pi_multiple(2 * pi * x + 3 * pi / 2) == (3, x, sp.Rational(1, 2))
    assert pi_multiple(pi * x / 7 + pi / 3) is None  # an offset no reduction shifts exactly
    assert pi_multiple(3 * pi * x / 7) is None  # 7/3: no float holds its half
    assert pi_multiple(x * t) is None


def _near(c, d):
    return (c - d * max(abs(c), 1), c + d * max(abs(c), 1))


SIBLINGS = [
    # (source, region where it loses (d: its relative width), the node expected)
    ((1 + cos(pi * x)) / 2, lambda d: {x: _near(1, d)}, cospi),   # cosine annealing
    (x * cos(t * pi / 180), lambda d: {x: (1, 2), t: _near(90, d)}, cospi),   # degrees
    (x * cos(t * pi / 180), lambda d: {x: (1, 2), t: _near(270, d)}, cospi),
    (sin(pi * x), lambda d: {x: _near(3, d)}, sinpi),                 # near integers
    (tan(pi * x / 4), lambda d: {x: _near(2, d)}, tanpi),            # near its pole
    (sin(2 * pi * x), lambda d: {x: _near(0.5, d)}, sinpi),          # a periodic activation
    (sin(pi * (1 - x) / 2) ** 2, lambda d: {x: _near(3, d)}, cospi),  # a shift by π/2
    (1 - cos(pi * x / 90), lambda d: {x: _near(180, d)}, sinpi),     # 1 - cos
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("source, region, node", SIBLINGS, ids=[
    "annealing", "degrees-90", "degrees-270", "sin-near-3", "tan-near-pole", "sin-2pi-half",
    "shifted-half-pi", "one-minus-cos-degrees"])
def test_rewritten_forms_keep_the_bits_the_source_loses(source, region, node, dtype):
    region = region(1e-9 if dtype == "float64" else 1e-4)
    form = apply_rewrites([source], LIBRARY, Facts(region))[0]
    assert form.has(node) and prove_equal(source, form)
    syms = sorted(region, key=str)
    dt = np.dtype(dtype)
    rng = np.random.default_rng(3)
    cols = [rng.uniform(*region[s], 64).astype(dt) for s in syms]
    pts = np.stack(cols, axis=1).astype(np.float64)
    true, status = GroundTruth([source], syms, dtype).batch(pts)
    ok = status[0] == RESOLVED
    assert ok.sum() >= 48
    err = {}
    for name, e in (("source", source), ("form", form)):
        with np.errstate(all="ignore"):
            got = generated(syms, [e], dt)(*cols)[0]
        err[name] = _bits(got[ok], true[0][ok].astype(dt), dtype)
    assert err["form"].max() <= 2.5
    assert err["source"].max() >= (8 if dtype == "float32" else 20)


def test_stabilize_fixes_cosine_annealing():
    # verdicts17: "cannot fix", 61.9 bits near x = 1 (heldout_i); now within 3
    # bits on stabilize's own fresh points, with the exact half angle
    got = stabilize((1 + cos(pi * x)) / 2, {x: (0, 2)}, samples=64, seed=5, explain=True)
    (choice,) = got.choices
    assert choice.chosen.has(cospi)
    assert choice.before[0] > 50 and choice.after[0] <= 3
