"""The search for the worst points: a figure check_stability or stabilize
reports is not below what an independent measurement finds.

Each class of false claim the search was built against has a test, with
siblings it was not tuned on: a losing region a few binades wide (the GELU
gradients; 1 + tanh, 1 - erf, the tanh derivative), the thresholds of the
form actually measured (``-1/expm1(-u)`` is 0 where its truth is
subnormal; 1/sinh, 1/cosh, 1/gamma), the zeros of subtractions.
"""

import itertools
import math

import mpmath
import numpy as np
import pytest
from sympy import (
    Abs,
    Add,
    Heaviside,
    Max,
    Mul,
    Piecewise,
    Pow,
    Rational,
    acos,
    asin,
    atan,
    atan2,
    cosh,
    erf,
    erfc,
    exp,
    gamma,
    log,
    pi,
    sin,
    sinh,
    sqrt,
    symbols,
    tan,
    tanh,
)
from sympy import cos as sp_cos
from sympy import lambdify as sp_lambdify
from sympy.codegen.cfunctions import expm1, hypot

from symgrad import check_stability, compensated, grad, lambdify, scaled, stabilize, widen
from symgrad.lowering import unwiden
from symgrad.stability.ascent import ascend
from symgrad.stability.bits import FORMATS, bits_error, ordinal
from symgrad.stability.floats import generated
from symgrad.stability.sampling import from_ordinal, parse_domain
from symgrad.stability.search import SOURCES, Basis, PointSearch
from symgrad.stability.truth import RESOLVED, GroundTruth

x, u, y = symbols("x u y", real=True)
Z = symbols("z", real=True)
F64 = FORMATS["float64"]


def independent(source, form, domain, n, seed=99):
    """The max bits of ``form`` (as symgrad's code runs it) against the
    exact value of ``source``, at ``n`` points: half uniform over the float
    ordinals, half uniform in value (another generator than the search's)."""
    syms = sorted(source.free_symbols, key=str)
    dom = parse_domain(domain, syms, F64)
    rng = np.random.default_rng(seed)
    cols = []
    for s in syms:
        lo, hi = max(dom[s][0], -F64.max), min(dom[s][1], F64.max)
        o = ordinal(np.array([lo, hi]), F64)
        a = from_ordinal(rng.integers(int(o[0]), int(o[1]), size=n // 2, endpoint=True), F64)
        w = rng.random(n - n // 2)
        cols.append(np.concatenate([a, lo * (1 - w) + hi * w]))
    pts = np.stack(cols, axis=1)
    t, st = GroundTruth([source], syms).batch(pts)
    c = generated(syms, [form], np.float64)(*[pts[:, j] for j in range(len(syms))])[0]
    b = bits_error(c, t[0], F64)
    return float(np.max(b[st[0] == RESOLVED]))


C = Rational(44715, 10**6)
GELU_TANH = grad(Rational(1, 2) * x * (1 + tanh(sqrt(2 / pi) * (x + C * x**3))), x)
GELU_ERF = grad(Rational(1, 2) * x * (1 + erf(x / sqrt(2))), x)


# ---- a losing region a few binades wide ---------------------------------------------


@pytest.mark.parametrize("f, lo, hi, least", [
    (GELU_TANH, -20, 20, 55),  # 61.9 bits at x = -8.4252 (0.0 for -5.96e-23)
    (GELU_ERF, -20, 20, 40),  # 46 at x = -10.283
    (1 + tanh(x), -30, 30, 55),  # siblings: saturations that cancel, never tuned on
    (1 - erf(x), -12, 12, 55),
    (1 - tanh(x) ** 2, -40, 40, 55),  # the tanh derivative as written
    (Rational(1, 2) * (1 + tanh(x / 2)), -80, 80, 55),  # the logistic through tanh
], ids=["gelu-tanh", "gelu-erf", "1+tanh", "1-erf", "tanh'", "logistic-tanh"])
def test_a_losing_region_a_few_binades_wide_is_found(f, lo, hi, least):
    r = check_stability(f, {x: (lo, hi)}, samples=64, rewrites=False)
    assert r.max_bits_error >= least and not r.ok
    assert r.basis.counts["uniform in value"] > 0


def test_the_zero_of_a_subtraction_is_found():
    # the SiLU gradient as written is 0 at x = -1.2785: relative error grows
    # without bound there; uniform sampling over the floats barely visits it
    silu = grad(x / (1 + exp(-x)), x)
    ps = PointSearch([silu], [x], {x: (-10.0, 10.0)}, F64, 64, 0)
    pts, labels = ps.points()
    zeros = pts[labels == SOURCES.index("zeros of subtractions"), 0]
    assert np.any(np.abs(zeros + 1.2784645427610738) < 1e-12)
    r = check_stability(silu, {x: (-10, 10)}, samples=64, rewrites=False)
    assert r.max_bits_error > 20


@pytest.mark.parametrize("f, lo, hi, least", [
    (2 * x**2 + 2 * x, -1, 1, 15),  # 0 at x = -1: 20 bits at -1 + 1e-10 (independent: 10.2)
    (x**2 - 1, 1, 2, 15),  # siblings: a zero at an end of the box
    (sqrt(x) - 1, 1, 4, 15),
    (exp(x) - 1, 0, 1, 15),
], ids=["2x²+2x", "x²-1", "sqrt(x)-1", "exp(x)-1"])
def test_a_zero_at_an_end_of_the_box_is_approached(f, lo, hi, least):
    r = check_stability(f, {x: (lo, hi)}, samples=64, rewrites=False)
    assert r.max_bits_error >= least, str(r)


# ---- the thresholds of the form actually measured -----------------------------------


@pytest.mark.parametrize("f, lo, hi", [
    (-1 / expm1(-u), -1000, 1000),  # stabilize's form for exp(u)/(exp(u) - 1)
    (1 / expm1(u), -1000, 1000),  # siblings: a subnormal result after an overflow
    (1 / sinh(u), 1, 1000),
    (2 / (exp(u) + exp(-u)), -1000, 1000),  # the secant: 709.78 < |u| < 744.44
    (1 / gamma(u), 1, 200),  # gamma overflows at 171.62, 1/gamma is subnormal past it
], ids=["-1/expm1(-u)", "1/expm1", "1/sinh", "sech", "1/gamma"])
def test_a_thin_window_past_an_overflow_is_found(f, lo, hi):
    r = check_stability(f, {u: (lo, hi)}, samples=64, rewrites=False)
    assert r.max_bits_error >= 40, str(r)


def test_the_thresholds_of_each_function_are_points():
    pts, labels = PointSearch([exp(x**2)], [x], {x: (-100.0, 100.0)}, F64, 16, 0).points()
    th = pts[labels >= SOURCES.index("thresholds"), 0]  # a threshold, or the overflow it is
    r = math.sqrt(math.log(F64.max))  # exp(x**2) overflows past it
    assert np.any(np.abs(th - r) < 1e-13) and np.any(np.abs(th + r) < 1e-13)
    # the floats on both sides of the overflow, exactly (among the rows where the
    # output is within floats of the largest float: output_ceiling's)
    over = np.sort(th[np.abs(th - r) < 1e-13])
    with np.errstate(over="ignore"):
        inf = np.isinf(np.exp(over**2))
    assert any(np.nextafter(v, np.inf) == w and not i and j
               for v, w, i, j in zip(over, over[1:], inf, inf[1:])), over
    pts, _ = PointSearch([log(x - 2) + sqrt(3 - x)], [x], {x: (0.0, 10.0)}, F64, 16, 0).points()
    assert {2.0, 3.0} <= set(pts[:, 0].tolist())  # the log's and the root's domain edges


@pytest.mark.parametrize("fmt", ["float64", "float32"])
def test_thresholds_of_a_composition_are_bracketed_to_the_float(fmt):
    f = FORMATS[fmt]
    pts, _ = PointSearch([exp(sinh(x))], [x], {x: (-100.0, 100.0)}, f, 16, 0).points()
    over = math.asinh(math.log(f.max))  # exp overflows
    under = math.asinh(math.log(f.tiny))  # exp underflows below the least subnormal
    tol = 1e-14 if fmt == "float64" else 1e-5
    assert np.any(np.abs(pts[:, 0] - over) < tol) and np.any(np.abs(pts[:, 0] - under) < tol)
    r = check_stability(exp(x**2), {x: (-100, 100)}, samples=16)  # and they are measured
    assert np.any(np.abs(np.abs(r.points[:, 0]) - math.sqrt(math.log(F64.max))) < 1e-13)


def test_several_variables_search_each_with_the_others_sampled():
    ps = PointSearch([exp(x * y)], [x, y], {x: (-1000.0, 1000.0), y: (1.0, 2.0)}, F64, 32, 0)
    pts, labels = ps.points()
    th = pts[labels == SOURCES.index("thresholds")]
    assert np.any(np.abs(th[:, 0] * th[:, 1] - math.log(F64.max)) < 1e-9)


@pytest.mark.parametrize("f", [1 + exp(exp(sqrt(tanh(y)))) / x, 1 + sqrt(y) / x, 1 - log(y) / x],
                         ids=["bench_verdicts-4", "sqrt", "log"])
def test_the_other_variables_are_held_where_the_formula_is_defined(f, seed=7):
    # undefined for y < 0: along x, the zero x = -exp(exp(sqrt(tanh(y)))) is only
    # there for y > 0 (bench_verdicts, seed 11: the four rows all had y < 0, 5.9 bits
    # reported, 64 measured independently; seed 7 here, before: 3 of 3 under 50 bits)
    r = check_stability(f, {x: (-1e300, 1e300), y: (-1, 1)}, samples=32, seed=seed)
    assert r.max_bits_error > 50, str(r)


z = symbols("z", real=True)
# Himmelblau's function (FPBench's himmilbeau: reported 2.3 bits by stabilize, 4.6
# measured independently; the 4,096 uniform points of check_stability saw 5.4), and
# siblings it was not tuned on: each a sum of squares of sums that vanish together at
# isolated points, where neither sum's zero along one variable, the others at random,
# comes near the other's.
JOINT = [
    ((x**2 + y - 11)**2 + (x + y**2 - 7)**2, {x: (-5.0, 5.0), y: (-5.0, 5.0)},
     [(3, 2), (-2.805118086952745, 3.131312518250573),
      (-3.779310253377747, -3.283185991286170), (3.584428340330492, -1.848126526964404)]),
    ((x**2 + y**2 - 1)**2 + (x - y)**2, {x: (-2.0, 2.0), y: (-2.0, 2.0)},
     [(math.sqrt(0.5), math.sqrt(0.5)), (-math.sqrt(0.5), -math.sqrt(0.5))]),
    ((x + y + z - 1)**2 + (x - 2*y)**2 + (y - z + Rational(1, 7))**2,
     {x: (-1.0, 1.0), y: (-1.0, 1.0), z: (-1.0, 1.0)}, [(3 / 7, 3 / 14, 5 / 14)]),
]


@pytest.mark.parametrize("f, dom, roots", JOINT, ids=["himmelblau", "circle-line", "3-plane"])
def test_points_where_several_sums_cancel_at_once(f, dom, roots):
    syms = sorted(dom, key=str)
    pts, labels = PointSearch([f], syms, dom, F64, 64, 1).points()
    joint = pts[labels == SOURCES.index("joint cancellations")]
    near = min(np.abs(joint - np.array(r)).max(axis=1).min() for r in roots)
    assert near < 1e-6, joint
    # where the output is far smaller than its terms: many bits lost
    t, st = GroundTruth([f], syms).batch(joint)
    b = bits_error(generated(syms, [f], F64.dtype)(*joint.T)[0], t[0], F64)
    assert np.max(b[st[0] == RESOLVED]) > 15


def test_check_stability_measures_at_joint_cancellations():
    f, dom, _ = JOINT[0]
    r = check_stability(f, dom, samples=64, rewrites=False)
    assert r.max_bits_error > 20 and r.basis.counts["joint cancellations"] > 0


# a threshold crossed only where several variables move at once: exp((x - y)/z)
# overflows only where z < 0.028 and x - y > 7.1 together; the Fermi-Dirac occupation
# 1/(exp((x - y)/z) + 1) is 0 there for a subnormal value (verdicts7's held-out family,
# heldout_b: 8.6 bits reported, 48 true); bisected between two drawn rows of the two
# classes. Siblings it was not found on: the sigmoid of x*y + z, Planck's x**3/(e**(x/y) - 1)
def test_check_stability_sees_an_overflow_reached_only_jointly():
    f = 1 / (exp((x - y) / z) + 1)
    r = check_stability(f, {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (0.01, 10.0)}, samples=64)
    assert r.max_bits_error > 45, str(r)  # 6.2 before (seed 0)


# an intermediate quotient that overflows over a thin wedge where the output is finite:
# the renormalized beta parameter x*(x*(1 - x)/v - 1), x*(1 - x)/v past the largest float
# where v is subnormal (verdicts9's audit: stabilize reported 15.9 bits, 32.0 true);
# check_stability of its form in pairs missed the wedge at 2 of 10 seeds at 512 samples
# (float32: 9.0, 21.0), 1 of 12 at 128 (1.0 bit, the seed here); bands.range_bands climbs
# to it. The sibling it was not found on: the same form in float64 (1.0 at 1 of 12)
@pytest.mark.parametrize("dtype, seed", [("float32", 6), ("float64", 5)])
def test_an_intermediate_overflow_over_a_thin_wedge_is_measured(dtype, seed):
    from symgrad.compensated import compensated

    f = compensated(x * (-1 + x * (1 - x) / y))
    r = check_stability(f, {x: (0.0, 1.0), y: (0.0, 0.25)}, dtype=dtype, seed=seed, samples=128)
    assert r.max_bits_error == np.finfo(dtype).bits  # inf for a finite value


# an intermediate factor that underflows into the subnormals where another factor scales
# it back up to a normal output: the subnormal's lost bits are the output's. bands.range_bands
# climbed from the rows nearest the underflow, which had no room (z near 0: exp(-z) = 1), and
# stopped there; and its climbed rows had short significands whose squares are exact. The
# Gaussian NLL's d2/dlogvar2, (x - y)**2*exp(-z)/2, was reported at 2.0 bits where it loses
# 25.9 (verdicts18's held-out family j, row 37, float64). The sibling it was not found on:
# x*y**2*z (1.6 reported at this seed before, 28.9 true)
@pytest.mark.parametrize("f, dom", [
    ((x - y)**2 * exp(-z) / 2, {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (-20.0, 20.0)}),
    (x * y**2 * z, {x: (-1.0, 1.0), y: (-1.0, 1.0), z: (1.0, 1e9)}),
], ids=["gaussian-nll-d2", "x*y**2*z"])
def test_a_subnormal_factor_scaled_up_to_a_normal_output_is_measured(f, dom):
    r = check_stability(f, dom, samples=16, seed=0)  # (abcf4cd's parent: 2.0 and 1.6)
    assert r.max_bits_error > 20, str(r)


# a subnormal's absolute rounding (x/2 halves the odd ones and the smallest to 0) scaled up
# most at an end of another variable's range: the one-subnormal rows had the others uniform
# in value, and the ascent started from none of them among the rounding noise's ties.
# Kepler's true anomaly in float32 (verdicts18's held-out family j, row 24): stabilize
# kept it and reported 1.6 bits, 5.5 true at x = 4.6e-41, y = 0.999 (2.0 here before).
# The sibling it was not found on: sinh(x/3)/(1 - y) in float64 (3.7 here before, 11.7)
@pytest.mark.parametrize("f, dom, dtype, seed", [
    (2 * atan(sqrt((1 + y) / (1 - y)) * tan(x / 2)), {x: (-3.1, 3.1), y: (0.0, 0.999)},
     "float32", 7),
    (sinh(x / 3) / (1 - y), {x: (-1.0, 1.0), y: (0.0, 0.9999)}, "float64", 4),
], ids=["kepler-float32", "sinh(x/3)/(1 - y)"])
def test_a_subnormal_rounding_scaled_up_at_a_range_end_is_measured(f, dom, dtype, seed):
    r = check_stability(f, dom, dtype=dtype, samples=32 if dtype == "float32" else 16,
                        seed=seed)
    assert r.max_bits_error > (5 if dtype == "float32" else 11), str(r)


@pytest.mark.parametrize("f, dom, u", [
    (1 / (1 + exp(-(x * y + z))), {x: (-30.0, 30.0), y: (-30.0, 30.0), z: (-10.0, 10.0)},
     lambda p: -(p[:, 0] * p[:, 1] + p[:, 2])),
    (x**3 / (exp(x / y) - 1), {x: (1e-3, 10.0), y: (1e-3, 10.0)}, lambda p: p[:, 0] / p[:, 1]),
], ids=["sigmoid(x*y + z)", "planck"])
def test_thresholds_between_drawn_rows(f, dom, u):
    pts, labels = PointSearch([f], sorted(dom, key=str), dom, F64, 64, 3).points()
    at = u(pts)
    assert ((at > 709.78) & (at < 709.79)).any()  # exp's overflow, bracketed


# over all floats, the grids along a variable (uniform over the ordinals: 8 binades a
# step; uniform in value: nothing below 1e305) bracket no zero at everyday magnitudes;
# NMSE 3.9, 1/x - cot(x), vanishes at 4.4934 (tan x = x), where stabilize's verification
# then measured nothing and reported 2.0 bits for a form losing 49.7 (forms7, session 7).
# Siblings it was not found on: cos(x) - 1/x, x*cos(x) - sin(x)
@pytest.mark.parametrize("f, root", [
    (1 / x - 1 / tan(x), 4.493409457909064),
    (sp_cos(x) - 1 / x, 4.917185925287132),
    (x * sp_cos(x) - sin(x), 4.493409457909064),
], ids=["1/x - cot(x)", "cos(x) - 1/x", "x cos(x) - sin(x)"])
def test_zeros_at_everyday_magnitudes_over_all_floats(f, root):
    pts, labels = PointSearch([f], [x], {x: (-1.7976931348623157e308, 1.7976931348623157e308)},
                              F64, 64, 1).points()
    z = pts[labels == SOURCES.index("zeros of subtractions"), 0]
    assert np.any(np.abs(z - root) < 1e-12 * root), np.sort(np.abs(z))


# a subnormal in one variable while another is large: scaled(...) multiplies every
# variable by one power of two and flushes a tiny one to 0 (float32 stabilize of
# (x + e)**5 - x**5 chose this form and reported 3.2 bits: 29.6 at e = tiny; held-out
# family b). The subnormal points made every variable subnormal at once
def test_a_tiny_variable_beside_a_large_one_is_measured():
    e = symbols("e", real=True)
    # since scaled21 that form, e times a polynomial, is exact there (the factors
    # scaled each on its own where an input was rounded); a sum at the top has no
    # factors, and 5*e*x**4 + e**5 still rounds e when x**4 wants k >= 2
    f = 5 * e * x**4 + e**5
    form = scaled(compensated(f))
    r = check_stability(form, {x: (-4e9, 4e9), e: (-1.0, 1.0)}, dtype="float32", samples=64,
                        seed=0, _source=[f])
    # what the form lost at a few subnormal e beside x = 3e9, against exact
    # arithmetic (e = 2**-149 flushed, 3 * 2**-149 rounded: 29.7, 21.7 bits), the
    # search had to find to within a bit (it reported 1.0 before it drew one
    # variable subnormal at a time). Since scaled24 those rows take u in floats
    # with an exponent of their own, in pairs: the form is right there, and at
    # the search's points (its subnormal draws: test_one_variable_subnormal_at_a_time)
    xs = np.float32([3e9] * 4)
    es = np.float32([2.0**-149, 3 * 2.0**-149, 7 * 2.0**-149, 2.0**-140])
    truth = GroundTruth([f], [x, e]).batch(np.stack([xs, es], 1).astype(float))[0][0]
    worst = np.max(bits_error(lambdify([x, e], form)(xs, es), truth, FORMATS["float32"]))
    assert worst <= 1
    assert r.max_bits_error <= 2, str(r)


def test_one_variable_subnormal_at_a_time():
    dom = {x: (-1e9, 1e9), y: (-1.0, 1.0), u: (0.0, 1e3)}
    pts, labels = PointSearch([x * y + u], [u, x, y], dom, F64, 64, 0).points()
    sub = pts[labels == SOURCES.index("subnormals")]
    tiny = np.abs(sub) < 2.2250738585072014e-308
    for j in range(3):  # each variable subnormal alone, the others not
        alone = tiny[:, j] & (tiny.sum(axis=1) == 1)
        assert alone.any() and (np.abs(sub[alone]) == 5e-324).any(axis=0)[j]


def test_a_subnormal_beside_an_exact_zero_in_each_ordered_pair():
    # each variable subnormal (both signs, the smallest too) while ANOTHER is exactly 0,
    # the rest uniform in value; judging points only: not among stabilize's choosing
    # samples (beside_zero=False)
    dom = {x: (-1e9, 1e9), y: (-1.0, 1.0), u: (-1.0, 1e3)}
    syms = [u, x, y]
    pts, labels = PointSearch([x * y + u], syms, dom, F64, 64, 0).points()
    rows = pts[labels == SOURCES.index("subnormal beside zero")]
    tiny = (np.abs(rows) < 2.2250738585072014e-308) & (rows != 0)
    for j, o in itertools.permutations(range(3), 2):
        here = tiny[:, j] & (rows[:, o] == 0)
        assert (rows[here, j] > 0).any() and (rows[here, j] < 0).any(), (j, o)
        assert (np.abs(rows[here, j]) == 5e-324).any(), (j, o)
    _, lab = PointSearch([x * y + u], syms, dom, F64, 64, 0, beside_zero=False).points()
    assert not (lab == SOURCES.index("subnormal beside zero")).any()


# one variable subnormal beside another exactly 0, the rest of any size: the 0 removes
# the term that dominates elsewhere, and the output is of the subnormal's size. No row
# had both: stabilize chose the quadratic formula's root over all floats in scaled pairs
# (test_stabilize_compensated) and reported 1.0 bits, where at a = 1.7e308, b = 0,
# c = -4.27e-321 it gives 4.70e-315 for 4.99e-315 (25.8 bits; 0 or NaN nearby, 29 to 64,
# Arb-checked); float32's triplet-loss gradient in pairs reported 0.0 where it lost 8.7
# at x = 39, y = -1.2e-38, z = 0 (held-out family e, row 31; that arithmetic is fixed
# since bcc830d). The form in float32 too, not started from (1.0 here before in both).
# Since scaled21 the pairs form is right there (where an input is rounded by the scale,
# each factor is scaled on its own); the plain form lost there (-4*a*c, its factor
# scaled on its own at k = 0, overflowed in 4*a) until scaled24
@pytest.mark.parametrize("dtype, big", [("float64", 1.7976931348623157e308),
                                        ("float32", 3.4028234663852886e38)])
def test_a_subnormal_beside_an_exact_zero_is_measured(dtype, big):
    a, b, c = symbols("a b c", real=True)
    root = sqrt(b**2 - 4 * a * c)
    form = scaled(Piecewise((-2 * c / (b + root), b > 0), ((-b + root) / (2 * a), True)))
    if dtype == "float64":  # the loss, against mpmath
        row = (1.7168588294614164e308, 0.0, -4.27e-321)
        with mpmath.workdps(50):
            A = mpmath.mpf(row[0])
            true = float(mpmath.sqrt(-4 * A * row[2]) / (2 * A))
        got = float(lambdify([a, b, c], form)(*[np.array([v]) for v in row])[0])
        assert true > 4.9e-315 and abs(got - true) <= 1e-9 * true, (got, true)
    # since scaled24 such rows take u in floats with an exponent of their own:
    # the plain form is right there too (before: > 20 bits found in both types;
    # float32's worst left, 11.8 bits, is where the output itself underflows)
    r = check_stability(form, {s: (-big, big) for s in (a, b, c)}, dtype=dtype, samples=64,
                        seed=1, _source=[(-b + root) / (2 * a)])
    assert r.max_bits_error < 20, str(r)


@pytest.mark.parametrize("dtype, big", [("float32", 1e100), ("float64", 1.7976931348623157e308)])
def test_an_output_within_floats_of_the_largest_float_is_measured(dtype, big):
    # the harmonic mean over (1, big)**2, scaled: its value is within floats of the
    # largest float only where both inputs are (x = max - ulp, y = max: the scaled
    # value rounded up and was scaled back to inf before scaled21, 32 bits where
    # stabilize reported 1.6: heldout_d row 53); the floats' own nodes (x*y) overflow
    # far from there, and the corners are at max itself. float64 not started from
    top = float(np.finfo(dtype).max)
    r = check_stability(scaled(2 * x * y / (x + y)), {x: (1, big), y: (1, big)}, dtype=dtype,
                        samples=32, seed=0)
    p = np.asarray(r.points, dtype=float)
    v = p[:, 0] * (p[:, 1] / (p[:, 0] / 2 + p[:, 1] / 2))
    near = (np.abs(v / top - 1) < 4 * np.finfo(dtype).eps) & (p != top).any(axis=1)
    assert near.any()
    assert r.max_bits_error <= 3, str(r)


def test_a_cancellation_at_a_corner_of_the_box_is_measured():
    # (x + y)/(1 + x*y) over x, y in (-1, 1): 1 + x*y cancels as x -> 1, y -> -1 together
    # (held-out family b: 6.0 reported, 8.0 measured with the audit's probe; 2.0 here
    # before, at seed 0); every variable near an end of its range at once
    dom = {x: (-1.0, 1.0), y: (-1.0, 1.0)}
    pts, _ = PointSearch([(x + y) / (1 + x * y)], [x, y], dom, F64, 64, 0).points()
    both = (np.abs(pts) > 1 - 1e-6).all(axis=1)
    assert (both & (np.sign(pts[:, 0]) != np.sign(pts[:, 1]))).any()  # the corner that cancels
    r = check_stability((x + y) / (1 + x * y), dom, seed=0)
    assert r.max_bits_error > 8, str(r)  # 2.0 before


def test_the_amplification_climbs_where_an_exponential_magnifies_a_rounding():
    # exp(-u) turns the rounding of a large u into its relative error
    f = exp(-(3 * (x - Rational(1, 10))**2 + 17 * (y - Rational(4, 5))**2))
    pts, labels = PointSearch([f], [x, y], {x: (0.0, 1.0), y: (0.0, 1.0)}, F64, 64, 2).points()
    joint = pts[labels == SOURCES.index("joint cancellations")]
    assert len(joint) and np.all(np.abs(joint[:, 1]) < 0.05)  # u is largest at y = 0


# ---- the ascent -------------------------------------------------------------------


def test_the_ascent_climbs_to_a_narrow_peak():
    # error as a function of the point: a peak 1e-6 wide at 3.25, a slope around it
    def measure(rows):
        d = np.abs(rows[:, 0].astype(float) - 3.25)
        return np.where(d < 1e-6, 64.0, np.maximum(0.0, 60 - 5 * np.log10(1 + 1e6 * d)))

    start = np.array([[3.0], [-5.0]])
    got = ascend(start, measure(start), measure, [(-10.0, 10.0)], F64, budget=400)
    assert 0 < len(got) <= 400
    assert measure(got).max() == 64.0


def test_the_basis_says_how_the_figures_were_measured():
    r = check_stability(1 + tanh(x), {x: (-30, 30)}, samples=64, rewrites=False)
    assert isinstance(r.basis, Basis) and r.basis.total == r.samples == len(r.points)
    assert r.basis.counts["uniform over the floats"] == 64
    text = str(r)
    assert "how known: measured on" in text and "64 uniform over the floats" in text
    assert "by ascent" in text
    assert "the max is the largest found, a lower bound for the domain" in text


# ---- the figures stabilize reports ---------------------------------------------------


def test_stabilize_reports_what_its_form_loses_on_its_own_thresholds():
    # exp(u)/(exp(u) - 1) as -1/expm1(-u) is -0.0 near u = -710.74, where the truth
    # is -2.1e-309 and the formula as written is exact: that form is not chosen
    # unseen, and what is reported is what fresh points and the search find
    src = exp(u) / (exp(u) - 1)
    dom = {u: (-1000, 1000)}
    s = stabilize(src, dom, explain=True, samples=128)
    (c,) = s.choices
    assert c.basis is not None and c.basis.counts.get("ascent", 0) > 0
    assert c.after[0] >= independent(src, c.chosen, dom, 1280) - 1
    assert "fresh points, not those it chose on" in str(s)


# ---- a carry's rounding, amplified by a cancellation ----------------------------------


def _as_written(c):
    """``((x + c) - x) / (x + c)``, as written: ``x + c`` is exact except where
    it carries into a higher binade than ``x`` (``511 < x < 512`` for c = 1),
    and there the cancellation makes its rounding a relative error of the
    output (9 bits at x = 512 - 2**-44); elsewhere the formula is exact."""
    s = Add(x, c, evaluate=False)
    return Mul(Add(s, -x, evaluate=False), Pow(s, -1), evaluate=False)


@pytest.mark.parametrize("c, least", [(1, 8), (3, 6), (Rational(1, 2), 9), (-Rational(1, 2), 9)],
                         ids=["1", "3", "1/2", "-1/2"])
def test_a_sum_that_rounds_only_where_it_carries_is_found(c, least):
    """softsign's derivative, stabilized as -(x*sign(x) - |x| - 1)/(|x| + 1)**2,
    was reported at 2.0 bits where -1 - |x| carries and loses 9 (the ML
    benchmark's false claim); these siblings lose only in such bands."""
    r = check_stability(_as_written(c), {x: (-1000, 1000)}, samples=512)
    assert r.max_bits_error >= least
    assert r.basis.counts.get("carries of sums", 0) > 0


@pytest.mark.parametrize("f, dom", [
    (-1 / (-x - y - 1), {x: (1, 1e15), y: (-30, 30)}),  # audit seed 10: 2.3 reported, 64 true
    (-1 / (-x - y - 3), {x: (1, 1e15), y: (-30, 30)}),
    (2 / (x + y + 1), {x: (1, 1e6), y: (-1e3, 1e3)}),
    (1 / (-x - y - Z - 1), {x: (1, 1e6), y: (-1e3, 1e3), Z: (-1, 1)}),  # three variables
    (1 / (x + y + Z + 1), {x: (1, 1e6), y: (-1e3, 1e3), Z: (-1, 1)}),
    (x / (2 + x - y - Z), {x: (1, 1e6), y: (-1e3, 1e3), Z: (-1, 1)}),
], ids=["audit-seed-10", "-x-y-3", "x+y+1", "-x-y-z-1", "x+y+z+1", "x/(2+x-y-z)"])
def test_a_cancellation_where_a_carry_rounds_is_found(f, dom):
    """On the zero line of ``-1 - x - y`` the output loses every bit where
    ``-1 - x`` rounds (a carry) and nothing elsewhere on it: the zeros along
    one variable are found from the carries along another.  The carries are
    those of the additions the code does, in its order (``((-1 - x) - y) -
    z``), and first those whose rounding a move along the other variable
    keeps: with every pair of terms watched, ``-1 - x - y - z`` was missed
    at 4 seeds of 10 and ``x + y + z + 1`` at 2 of 6 (seeds 2 and 4 each)."""
    seeds = (2, 4) if Z in f.free_symbols else (0, 1)
    got = [check_stability(f, dom, samples=256, seed=s).max_bits_error for s in seeds]
    assert min(got) >= 50, got


def test_the_carries_watched_are_the_codes_additions():
    from symgrad.stability.search import _Tracks

    tr = _Tracks([1 / (-x - y - Z - 1)], [x, y, Z], FORMATS["float64"])
    assert [(str(a), str(b)) for a, b in tr.pairs] == [
        ("-x", "-1"), ("-x - 1", "-y"), ("-y + (-x - 1)", "-z")]  # (the kernel: -x - 1)
    assert [set(tr.depends(tr.first_carry + i)) for i in range(3)] == [{0}, {0, 1}, {0, 1, 2}]


# ---- a cancellation whose term is exact at its zero ------------------------------------


def _ray_max(f, x0, dom):
    """The max bits of the generated code at 2**k floats from ``x0`` (every k)."""
    o = ordinal(np.array([x0]), F64)[0] + np.concatenate(
        [-(np.int64(1) << np.arange(53)), np.int64(1) << np.arange(53)])
    pts = from_ordinal(o, F64)
    pts = pts[(pts >= dom[0]) & (pts <= dom[1])][:, None]
    t, st = GroundTruth([f], [x]).batch(pts)
    got = generated([x], [f], np.float64)(pts[:, 0])[0]
    return float(np.max(bits_error(got, t[0], F64)[st[0] == RESOLVED]))


# (samples: the default where the peak is reached only by the ascent's full budget;
# 512 for the siblings, whose scales beside the zero alone reach it: -0.7 s CPU)
@pytest.mark.parametrize("f, dom, x0, n", [
    (tanh(x) / (sqrt(x - Rational(1, 2)) - Rational(1, 2)), (-1000, 1000), 0.75, 4096),
    (1 / (x**2 - 1), (0.5, 2), 1.0, 512),
    (1 / (x**3 - 8), (1, 3), 2.0, 512),
    (x / ((x - Rational(1, 2))**2 - Rational(1, 4)), (0.6, 3), 1.0, 512),
], ids=["audit-seed-14", "x**2-1", "x**3-8", "(x-1/2)**2-1/4"])
def test_a_cancellation_exact_at_its_zero_is_measured_at_every_scale(f, dom, x0, n):
    """Where the cancelling term is exact at the zero (sqrt(1/4) = 1/2, 1**2 = 1),
    its rounding grows with the distance from the zero while the difference
    does too: nothing is lost beside the zero, about 25 bits at 2**25.5 floats
    from it.  The audit's seed 14 found 1.0 bit reported, 3.6 measured
    independently, 25.3 true (the zero hid behind the domain edge at x = 1/2,
    in the same grid bracket)."""
    r = check_stability(f, {x: dom}, seed=0, samples=n)
    want = _ray_max(f, x0, dom)
    assert want > 20
    assert r.max_bits_error >= want - 1, (r.max_bits_error, want)
    assert r.basis.counts.get("scales beside zeros", 0) > 0


def _truth_bits(f, syms, row):
    got = generated(syms, [f], np.float64)(*[np.array([v]) for v in row])[0]
    t, st = GroundTruth([f], syms).batch(np.array([row]))
    assert st[0][0] == RESOLVED
    return float(bits_error(np.asarray(got), t[0], F64)[0])


@pytest.mark.parametrize("f, dom", [
    (log(1 + exp(x)) - x * y, {x: (-1000, 1000), y: (0, 1)}),  # held-out audit, session 6
    (exp(x) - exp(x) * y, {x: (-10, 10), y: (0, 1)}),
    (x * y + log(1 + exp(-x)), {x: (-1000, 1000), y: (0, 1)}),
    (x * y - x * y * Z, {x: (1, 100), y: (1, 100), Z: (0, 1)}),
], ids=["logistic-regression-2", "exp-times-1-y", "softplus-minus", "three-variables"])
def test_a_cancellation_whose_zero_is_the_domains_edge_is_found_beside_it(f, dom):
    """``x - x*y`` cancels as y -> 1, the end of its box: the sum changes no
    sign along y, and at y = 1 nothing rounds, so the joint ascent of the
    error bound stops there (the bound is at its cap) and measures 0 bits.
    The error is beside it: 52 bits at y = 1 - 2**-53 (Herbie's "Logistic
    regression 2" was reported 8.5 bits, 12.6 measured independently; two
    of these siblings were reported 6.0)."""
    r = check_stability(f, dom, samples=256)
    assert r.max_bits_error > 45, r.max_bits_error
    w = r.regions[0].witness.point
    syms = list(dom)
    assert _truth_bits(f, syms, [w[s] for s in syms]) > 45  # (the figure is true)


def test_a_peak_one_binade_wide_beside_a_corner_is_measured():
    """2-ancestry mixing (Herbie's bench/mathematics/statistics): the
    rounding of -g/h near 1, amplified by acos, loses 10.2 bits at g = -1,
    h = 1 + 2**-27 and 1.0 at 1 + 2**-26; with points at every fourth
    power of two beside the corner it was reported at 9.1 (a denser probe
    of the held-out family found it)."""
    g, h = symbols("g h", real=True)
    f = 2 * sp_cos(2 * pi / 3 + acos(-g / h) / 3)
    r = check_stability(f, {g: (-1, 1), h: (1, 2)}, samples=256)
    assert r.max_bits_error > 10.1, r.max_bits_error
    w = r.regions[0].witness.point
    assert _truth_bits(f, [g, h], [w[g], w[h]]) > 10.1


def test_stabilized_softsign_derivative_claims_what_its_carries_lose():
    """The claim is checked on every carry band of |x| + 1, densely."""
    f = grad(x / (1 + Abs(x)), x)
    s = stabilize(f, {x: (-1000, 1000)}, explain=True, samples=128)
    (c,) = s.choices
    k = np.arange(1, 11)
    rng = np.random.default_rng(5)
    band = (2.0**k - 1)[:, None] + rng.random((10, 40))  # 2**k - 1 < |x| < 2**k
    pts = np.concatenate([band.ravel(), -band.ravel()])[:, None]
    t, st = GroundTruth([f], [x]).batch(pts)
    got = generated([x], [c.chosen], np.float64)(pts[:, 0])[0]
    measured = float(np.max(bits_error(got, t[0], F64)[st[0] == RESOLVED]))
    assert c.after[0] >= measured - 1, (c.chosen, c.after, measured)


# ---- held out: never tuned on -------------------------------------------------------


HELD_OUT = [
    (x / (exp(x) - 1), {x: (-800, 800)}),
    (sqrt(x**2 + 1) - x, {x: (-1e10, 1e10)}),
    (log(exp(x) + 1) - x, {x: (-50, 800)}),
    (tanh(x) - x, {x: (-4, 4)}),
]


@pytest.mark.parametrize("f, dom", HELD_OUT, ids=[str(f) for f, _ in HELD_OUT])
def test_no_reported_max_is_below_an_independent_measurement(f, dom):
    r = check_stability(f, dom, samples=48, seed=3)
    assert r.max_bits_error >= independent(f, f, dom, 480) - 1


def test_bisection_computes_each_node_only_for_the_tracks_above_it():
    # own_classes: each row's class of its own track, every node computed only at the
    # rows of the tracks above it, equal to computing every track at every row
    import sympy as sp

    from symgrad.stability.search import _Tracks

    x, y = symbols("x y", real=True)
    forms = [log(1 + exp(x)) - x * y, sp.Max(x, y) * sqrt(sp.Abs(y) + 1),
             x * exp(sp.Piecewise((exp(-x), x > 0), (sp.cos(y), True)))]  # (pairs: tuples)
    tr = _Tracks(forms, [x, y], FORMATS["float64"])
    rng = np.random.default_rng(3)
    rows = rng.uniform(-30, 30, size=(120, 2))
    n_tracks = tr.count  # nodes, thresholds, carries
    spans, at = [], 0
    for t in sorted(rng.choice(n_tracks, size=min(9, n_tracks), replace=False)):
        spans.append((int(t), at, at + 12))
        at += 12
    rows = rows[:at]
    whole = tr.classes(rows)
    own = tr.own_classes(rows, spans)
    for t, a, b in spans:
        assert (own[a:b] == whole[t, a:b]).all(), t


@pytest.mark.parametrize("only, label", [("carries", "carries of sums"),
                                         ("sums", "zeros of subtractions")])
def test_watching_some_tracks_finds_their_transitions_as_watching_all(only, label):
    # the cancellations at carries ask only for carries, then only for the zeros of
    # sums: watching those tracks alone (their nodes alone computed) finds exactly
    # the transitions that watching every track finds for them
    from symgrad.stability.search import _Tracks

    a, b = symbols("a b", real=True)
    forms = [(exp(a) / (exp(a) + exp(b) + exp(x)) - 1) * exp(-a), -1 / (-x - a - b - 1)]
    tr = _Tracks(forms, [x, a, b], F64)
    rng = np.random.default_rng(5)
    asks = [(rng.uniform(-30, 30, 3), j, (-40.0, 40.0)) for j in range(3) for _ in range(2)]
    want = [[(lb, [r.tobytes() for r in rs], t) for lb, rs, t in got
             if lb == SOURCES.index(label)] for got in tr.along_many(asks)]
    got = [[(lb, [r.tobytes() for r in rs], t) for lb, rs, t in g
            if lb == SOURCES.index(label)] for g in tr.along_many(asks, only=only)]
    assert got == want and sum(map(len, want)) > 0


def test_the_amplification_computes_only_the_values_it_reads():
    """A product's value is never read by the amplification (only its
    factors' errors are), nor a function of exact leaves' (its error is its
    own rounding): a compensated(u), pairs of floats over u's symbols, was
    computed at every call of the joint climb and read by none."""
    from symgrad import compensated
    from symgrad.stability.amplification import amplification
    from symgrad.stability.floats import NodeEvaluator

    y = symbols("y", real=True)
    pair = compensated(exp(x) - 1)
    fs = [pair * y, pair + exp(x * y) - x]  # read beside a sum, not beside a product
    rows = np.array([[1e-8, 3.0], [-2.0, 0.5], [40.0, -1.0]])
    for form, read in ((fs[0], 0), (fs[1], 1)):
        ev = NodeEvaluator([form], [x, y], np.float64)
        calls = []
        real = ev.op(pair)
        ev._ops[pair] = lambda *a, _f=real, _c=calls: _c.append(1) or _f(*a)
        got = amplification(ev, [form], rows, FORMATS["float64"])
        assert len(calls) == read
        if not read:  # its own rounding and the product's: log2(1 + 2)
            assert np.allclose(got, math.log2(3))


def test_the_splits_of_many_brackets_are_each_brackets_own():
    """_all_splits (vectorized over the brackets of a bisection round) gives
    each bracket's _splits, padded with its last ordinal: narrow brackets,
    wide ones, and ones wider than 2**63 ordinals (the width wraps in int64)."""
    from symgrad.stability.search import SPLIT, _all_splits, _splits

    top = (1 << 63) - (1 << 52)
    a = [5, -top, 0, -7, 1 << 40, -top + 3]
    b = [7, top, 40, (1 << 58) + 3, (1 << 40) + 33, -top + 40]
    got = _all_splits(a, b)
    assert got.shape == (len(a), SPLIT - 1)
    for row, lo, hi in zip(got, a, b):
        want = _splits(lo, hi)
        assert list(row[:len(want)]) == list(want) and set(row[len(want):]) <= {want[-1]}


def test_a_loss_that_lives_only_on_a_face_of_the_box_is_measured():
    """At x = 1 exactly, 1/x is 1 and tanh(20 sin z) rounds to 1 for z in
    about (1.2, 1.9): the code's argument is 0, the true one negative; one
    float of x inside, 1/x is above 1 and the code is right.  Bases along z
    with x at an end of its range (a face) find it; the random bases never
    hold x = 1 (0.0 bits before, at seeds 0-2).  Random held-out formulas,
    seed 38, row 7: ``H(erf(z) - 1/x)`` at x = 1, stabilize reported 1.0,
    the audit 52.0.  (Sibling, measured, not a test for time: sign(tanh(20 sin z)
    - 1/x), 0.0 at seeds 0-2 before, 62.0 now.)"""
    f = Heaviside(tanh(20 * sin(z)) - 1 / x, 1)
    dom = {x: (0.5, 1.0), z: (0.0, 3.0)}
    ps = PointSearch([f], [x, z], dom, F64, 64, 0)
    ps.points()
    pts = ps.faces()  # (measured after the ascent)
    face = pts[pts[:, 0] == 1.0, 1]
    assert ((face > 1.2) & (face < 1.9)).any(), face
    r = check_stability(f, dom, samples=64, seed=0)
    assert r.max_bits_error > 60, str(r)  # 0.0 before


def test_a_loss_that_lives_only_on_an_edge_of_the_box_is_measured():
    """On the edge x = y = 1 of a 3-variable box, 1/(xy) is 1 and erf(6 sin z)
    rounds to 1 for z about pi/2 (the sibling above, two variables at their
    ends): 62.0 at 1 of seeds 0-5 with two faces a variable, 6 of 6 with
    every combination of ends."""
    f = Heaviside(erf(6 * sin(z)) - 1 / (x * y), 1)
    r = check_stability(f, {x: (0.5, 1.0), y: (0.25, 1.0), z: (0.0, 3.0)}, samples=64, seed=0)
    assert r.max_bits_error > 60, str(r)


def test_a_loss_on_a_corner_of_two_of_four_variables_is_measured():
    """With four variables the faces' bases put every pair of the others at
    each of its four pairs of ends: ``H(erf(z) - 1/(x w)) + v`` loses 51 bits
    only where x = w = 1 (erf(z) rounds to 1); one end at random each, then
    the opposite ends, reached it at 5 of seeds 0-7 (0.0 at seeds 0, 3, 4)."""
    w, v = symbols("w v", real=True)
    f = Heaviside(erf(z) - 1 / (x * w)) + v
    dom = {x: (0.5, 1.0), w: (0.5, 1.0), z: (0.0, 30.0), v: (1.0, 2.0)}
    r = check_stability(f, dom, samples=64, seed=0)
    assert r.max_bits_error > 40, str(r)


def test_a_variable_at_exactly_zero_is_measured():
    """0*inf is NaN only where sin(x) is exactly 0: sin(x)*sinh(y)/y at x = 0,
    |y| > 710 (held-out family, Herbie's haskell.fpcore, float32): stabilize
    chose it widened and reported 0.0 bits, 32 true; the search now puts each
    variable at 0 where its range holds it, the others at their ends.
    (Since aae0da1 stabilize rejects the widened form on those points and
    keeps certified(...), right there: so the widened form is checked.)"""
    from sympy import sin

    f = sin(x) * sinh(y) / y
    r = check_stability(widen(f), {x: (-10, 10), y: (-1000, 1000)}, dtype="float32",
                        samples=64)
    assert r.max_bits_error > 30, str(r)


def test_the_brackets_bisected_are_those_the_cap_may_keep():
    # along_many bisects every bracket of a sum's track and of a carry's (their
    # zeros and carries are all read later); of the other kinds, per kind, at
    # most PRESELECT * cap, each track's first transition before any second
    from symgrad.stability.search import PRESELECT, _Tracks

    x, y = symbols("x y", real=True)
    tracks = _Tracks([exp(x) * y + sinh(x)], [x, y], FORMATS["float64"])
    sums = [t for t, n in enumerate(tracks.watched) if isinstance(n, Add)]
    others = [t for t, n in enumerate(tracks.watched)
              if not isinstance(n, Add) and not n.is_Symbol][:2]
    assert sums and len(others) == 2
    asks = [(np.zeros(2), 0, (-1.0, 1.0))]
    cap = 4
    # (track, a, b, class at a, class at b, ask, b, class at b): a track's n-th
    # bracket along x; classes 3 -> 7 are an overflow for a node's track
    brackets = [(t, 10 * i, 10 * i + 5, 3, 7, 0, 10 * i + 5, 7)
                for i in range(12) for t in others] + \
        [(sums[0], 10 * i, 10 * i + 5, 3, 5, 0, 10 * i + 5, 5) for i in range(12)]
    kept = tracks._preselected(brackets, asks, cap, np.random.default_rng(0))
    assert [b for b in kept if b[0] == sums[0]] == brackets[24:]  # every sum's bracket
    rest = [b for b in kept if b[0] != sums[0]]
    assert len(rest) == PRESELECT * cap
    # the first PRESELECT * cap / 2 transitions of each of the two tracks, in order
    assert rest == brackets[:PRESELECT * cap]


def test_the_steps_toward_the_outputs_zero_reach_a_zero_only_a_finer_variable_resolves():
    # the true value (y - 1/10) + x, exactly: along y alone its zero is left
    # at fl(0.1) - 0.1 = 5.6e-18 (y's floats); from there along x (whose
    # floats are 1e-33 apart at 5.6e-18) it goes below 1e-30; from a start at
    # x = -2e-144, where a first step of x does not change the value at all
    from fractions import Fraction

    from symgrad.stability.ascent import toward_zeros

    fmt = FORMATS["float64"]

    def value(rows):
        return np.array([[float(Fraction(float(b)) - Fraction(1, 10) + Fraction(float(a)))
                          for a, b in rows]])

    measured = []

    def probe(rows):
        measured.append(rows)
        return np.zeros((1, len(rows))), value(rows)

    points = np.array([[-2e-144, 0.7], [0.5, 0.9]])
    rows = toward_zeros(points, np.array([[5.0, 1.0]]), value(points), probe,
                        [(-1.0, 1.0), (0.0, 1.0)], fmt)
    # (the secant steps, SIDES: 8 floats beside each line's last step, 2 until 2d66534,
    # and CLOSE: 4 beside the side nearest the zero: 96 rows; since 2026-11-29
    # finer first steps where a line ends far from a zero, and 1 + 3 * 64 rows
    # across each start's zero; since session 22 the steps in both variables at
    # once from the two starts and their lines' ends: 8 steps of 6 rows, 16 beside)
    assert len(rows) == sum(len(m) for m in measured) <= 96 + 2 * 193 + 48 + 4 * (8 * 6 + 16)
    exact = [abs(Fraction(float(b)) - Fraction(1, 10) + Fraction(float(a))) for a, b in rows]
    assert min(exact) < Fraction(1, 10**30)


def test_a_zero_start_over_the_whole_float_range_steps_without_overflow():
    # a start at x = 0 takes its first step from the range's width, which is
    # past the largest float over (-max, max): hi - lo overflowed (a
    # RuntimeWarning users of stabilize saw over all floats, and a step of inf)
    import warnings

    from symgrad.stability.ascent import toward_zeros

    fmt = FORMATS["float64"]
    big = float(np.finfo(np.float64).max)

    def value(rows):
        return np.array([[a + b - 1 for a, b in rows]])

    def probe(rows):
        return np.zeros((1, len(rows))), value(rows)

    points = np.array([[0.0, 0.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        rows = toward_zeros(points, np.array([[5.0]]), value(points), probe,
                            [(-big, big), (-big, big)], fmt)
    assert len(rows) and np.isfinite(rows).all()


def test_a_form_in_pairs_is_measured_at_its_true_zero_beyond_a_floats_reach():
    # the weighted BCE gradient's form in pairs (heldout_b row 44) was
    # verified at 1.0 bits: the sums' zeros the search brackets are those of
    # floats (noise there), and pairs lose every bit only within 1e-18 of the
    # true zero at x ~ 1e-16.  A sibling with sin: x*y + (x - 1)*(1 + sin z)
    # vanishes 1e-33 deep at z ~ 1e-16, where x*y + x - 1 ~ 1e-17
    x, y, z = symbols("x y z", real=True)
    r = check_stability(compensated(x * y + (x - 1) * (1 + sin(z))),
                        {x: (0, 1), y: (0.1, 10), z: (-1, 1)}, seed=1, samples=256)
    assert r.max_bits_error > 40  # (4.2 without the steps toward the zero)


def test_the_ascent_from_a_total_loss_tries_the_nearest_floats_first():
    # where every significand bit is lost (the value is 0 or noise), the
    # noise's sign is wrong a few floats away, a bit more wrong than 0 (the
    # one-pass variance x**2/2 + y**2/2 - ((x + y)/2)**2: 61.9 reported, 63.0
    # beside it); from a binade down, four starts in two variables spend the
    # budget before one float
    from symgrad.stability.ascent import ascend

    fmt = FORMATS["float64"]
    starts = np.array([[1.0 + k, 3.0 + k] for k in range(4)])
    o0 = ordinal(starts, fmt)

    def measure(rows):
        d = np.abs(ordinal(rows, fmt)[:, None, :] - o0[None, :, :]).max(axis=2).min(axis=1)
        return np.where(d <= 3, 63.0, np.where(d < 2**40, 61.9, 10.0))

    rows = ascend(starts, np.full(4, 61.9), measure, [(0.0, 10.0)] * 2, fmt, 96)
    assert measure(rows).max() == 63.0


# an argument whose exact value only touches its function's domain edge: asin's
# sin(x)*cos(y) + cos(x)*sin(y) = sin(x + y) <= 1, equal to 1 on the line
# x + y = pi/2, where its rounding crosses 1 and the code returns NaN for ~pi/2
# (check_stability reported 10-12 bits); the spherical law of cosines in float32
# (verdicts8's family c: 29.9 reported, 32 true). No grid along one variable
# and no transition is there: the argument climbed toward the edge, in value
@pytest.mark.parametrize("f, dom, dtype", [
    (asin(sin(x) * sp_cos(y) + sp_cos(x) * sin(y)), {x: (0.0, 1.5), y: (0.0, 1.5)}, "float64"),
    (acos(sin(x) * sin(y) + sp_cos(x) * sp_cos(y) * sp_cos(Z)),
     {x: (-1.5, 1.5), y: (-1.5, 1.5), Z: (-1e-3, 1e-3)}, "float32"),
])
def test_an_argument_that_crosses_its_domain_edge_by_rounding_is_found(f, dom, dtype):
    syms = list(dom)
    fmt = FORMATS[dtype]
    from symgrad.stability.search import _Tracks

    search = PointSearch([f], syms, parse_domain(dom, syms, fmt), fmt, 64, 12)
    edge = search._edges_by_rounding(_Tracks([f], syms, fmt), search.drawn()[0])
    with np.errstate(invalid="ignore"):
        got = generated(syms, [f], fmt.dtype)(*[edge[:, j] for j in range(len(syms))])[0]
    assert np.isnan(got).any()  # (no such point before)


def test_the_floats_beside_a_zero_steps_end_are_measured_a_few_floats_away():
    # x/2 - sqrt(y) + y/(2x) (a Newton step for sqrt y; heldout_d row 16) is
    # (x - sqrt y)**2/(2x), a double zero on y = x**2: in pairs it loses every
    # bit at the float of y nearest the zero, where the value is 3e-33 and its
    # noise has the wrong sign; the secant steps stopped 4 floats of y from it
    # (49.0 bits; stabilize reported 49.0 where 62.8 was measured)
    x, y = symbols("x y", real=True)
    r = check_stability(compensated(x / 2 - sqrt(y) + y / (2 * x)),
                        {x: (0.5, 2.0), y: (0.25, 4.0)}, seed=0, samples=256)
    assert r.max_bits_error > 60  # (47.0 before)


def test_the_floats_beside_a_zero_steps_end_reach_the_nearest_float_in_float32():
    # the same double zero in float32, widened: the steps ended 7 floats of x from the
    # zero's nearest float; the sides (1, 2, 4, 8 floats) missed it, and then 1 and 2
    # floats beside the side nearest the zero reach it. stabilize's verification reported
    # 6.0 bits at 128 samples (25.2 at 256) where its form, widen(x/2 - sqrt(y) +
    # y/(2x)), loses 28-30. (stabilize now goes on to that form in float64 pairs,
    # 0 bits there: the search is checked on the widened form itself)
    x, y = symbols("x y", real=True)
    r = check_stability(widen(x / 2 - sqrt(y) + y / (2 * x)), {x: (0.5, 2.0), y: (0.25, 4.0)},
                        dtype="float32", samples=128, seed=11)
    assert r.max_bits_error > 27


def test_an_underflowing_factor_is_climbed_to_where_the_output_is_largest():
    # -4*z*exp(-z**4)*|x|/sqrt(pi) (a random held-out formula, seed 36 row 13): exp
    # underflows to 0 past z ~ 5.2247 while |x| up to 1e15 keeps the value normal
    # (-2.9e-308 for the code's -0.0: 52.4 bits); reported 43.1 at seed 47 (43.4 at 1),
    # where the climb toward an intermediate's overflow had no mirror for underflows
    x, z = symbols("x z", real=True)
    r = check_stability(-4 * z * exp(-z**4) * Abs(x) / sqrt(pi), {x: (1, 1e15), z: (-30, 30)},
                        seed=47)
    assert r.max_bits_error > 51.5, str(r)


@pytest.mark.parametrize("f, dom, seed", [
    (cosh(erfc(Z) * Max(x, Z**2)), {x: (-1e300, 1e300), Z: (1, 1e15)}, 1),
    (cosh(x / Z), {x: (-1e300, 1e300), Z: (1e-3, 1e300)}, 3),
])
def test_a_threshold_bracketed_along_one_variable_is_bisected_along_the_others(f, dom, seed):
    # cosh(erfc(z)*Max(x, z**2)) (a random held-out formula, seed 36 row 0): one float of
    # z moves cosh's argument ~1,000 of its floats past the overflow, while the code's
    # argument is ~23 floats above the true one; along x, the floats past the code's
    # own overflow are inf where the true value is finite (64 bits). Reported 18.2
    # (cosh(x/z): 9.0) at these seeds before, 64 at 9-10 of seeds 0-9 now
    r = check_stability(f, dom, seed=seed, samples=256)
    assert r.max_bits_error > 63, str(r)


@pytest.mark.parametrize("f, dom, seed, above", [
    (grad(-x * log(x) - (1 - x) * log(1 - x), x), {x: (1e-300, 1.0)}, 11, 16.2),
    (log(x) + 1 - (log(1 - x) + 1), {x: (0.4, 0.6)}, 0, 16.0),
])
def test_a_noise_plateau_is_sampled_about_its_worst_point(f, dom, seed, above):
    # the binary entropy's derivative as derived, log(1 - x) + 1 - log(x) - 1 (heldout_d
    # row 1; verdicts11's open hole), loses 15.4 bits on a plateau near |x - 1/2| ~ 2e-6
    # with a noise of the last bits on top: 16.4-16.9 at one float in 200 within 2**20
    # .. 2**33 floats. The ascent stopped on the plateau (15.4 reported, 16.6 by the
    # audit); its sibling, the logit as derived, 15.4 likewise (16.4 now)
    r = check_stability(f, dom, seed=seed, samples=256)
    assert r.max_bits_error > above, str(r)


def _cos_yz_probe(fmt):
    """cos(y*z) exactly (mpmath) and as float32 computes it, for toward_zeros."""
    import mpmath

    def value(rows):
        with mpmath.workprec(200):
            return np.array([[float(mpmath.cos(mpmath.mpf(float(a)) * mpmath.mpf(float(b))))
                              for a, b in rows]])

    def probe(rows):
        t = value(rows)
        with np.errstate(all="ignore"):
            c = np.cos((rows[:, 0] * rows[:, 1]).astype(fmt.dtype))
        return bits_error(c[None, :], t, fmt), t

    return value, probe


def _cos_yz_steps(starts, bits):
    """The rows toward_zeros measures from ``starts`` on float32 cos(y*z)
    over y in (0, 1000), z in (0, 100); and the probe's two functions."""
    from symgrad.stability.ascent import toward_zeros

    fmt = FORMATS["float32"]
    value, probe = _cos_yz_probe(fmt)
    measured = []

    def kept(rows):
        measured.append(rows)
        return probe(rows)

    points = np.array(starts, dtype=np.float32)
    toward_zeros(points, np.array([bits]), value(points), kept,
                 [(0.0, 1000.0), (0.0, 100.0)], fmt)
    return value, probe, np.concatenate(measured)


def test_a_line_whose_value_oscillates_faster_than_its_first_step_reaches_a_zero():
    # cos(y*z) at y ~ 500, z ~ 100 in float32: a period of 0.0126 of z, and
    # the secant's first step, 2**-8 of z, is 31 periods: its steps jumped
    # between periods and ended 0.0012 from a zero (a third of a float of
    # y*z); a finer first step ends on the zero's nearest floats
    value, _, rows = _cos_yz_steps([[499.99783, 99.717484]], [17.7])
    # within a float's step of y*z (2**-8 at 5e4) of a zero: |cos| < 0.004
    assert np.abs(value(rows)).min() < 2.0**-8


def test_the_steps_cross_a_zero_surface_through_the_other_variables_floats():
    # where the zero is a surface in y and z, the float nearest it along one
    # line is at a random fraction of a step from it, and whether y*z rounds
    # across it there is luck: from these starts every float of z next to
    # the zero was short of it (24.4 bits at most); along the surface,
    # y moved by a few floats and z to the zero, the rounding crosses it
    # (the computed cos has the wrong sign: 30 bits and more)
    _, probe, rows = _cos_yz_steps([[499.99783, 99.717484], [500.0002, 99.99962]],
                                   [17.7, 17.0])
    assert probe(rows)[0].max() >= 30


@pytest.mark.parametrize("expr, domain, dtype, seed", [
    # each under 25 bits before 2026-11-29 at that seed, 30.7-63 at the others
    (exp(-x * y) * sp_cos(y * Z), {x: (0, 10), y: (0, 1000), Z: (0, 100)}, "float32", 7),
    (tan(x * y), {x: (0, 100), y: (0, 100)}, "float32", 2),
    (sin(x * x * y), {x: (0, 30), y: (0, 30)}, "float64", 2),
])
def test_a_zero_surface_of_a_rounded_argument_is_measured_at_its_depth(expr, domain, dtype,
                                                                         seed):
    r = check_stability(expr, domain, dtype=dtype, seed=seed)
    width = 32 if dtype == "float32" else 64
    assert r.max_bits_error >= width - 3, r.max_bits_error


# a nonnegative output's zero set of two or more fewer dimensions (a norm, a
# distance, an angle): a minimum, no sign change, so no secant line along one
# variable reaches it; the loss grows as log2 of 1 / the distance to it.  From
# 64 draws at seeds 0-3, the steps measured at most 1.6-2.0 (Vincenty), 1.6-10.2,
# 1.6-3.5, 1.6 (float32), 6.1-9.0 bits before the steps in all variables at once,
# 52.0, 61.9, 50.7-54.2, 29.6-29.7, 52.0-52.1 with them; at most 58.0, 61.9, 58.0,
# 29.7 and 51.2 at 400 points built on each zero set (mpmath at 400 digits)
_P, _T = symbols("p t", real=True)
_VINCENTY = atan2(hypot(sin(y) * sp_cos(Z) - sin(Z) * sp_cos(x) * sp_cos(y),
                        Abs(sin(x)) * Abs(sp_cos(y))),
                  sin(y) * sin(Z) + sp_cos(x) * sp_cos(y) * sp_cos(Z))


def _toward_zeros_from_draws(f, domain, dtype, seed):
    """The worst bits toward_zeros measures on ``f`` (symgrad's code against
    its ground truth) from 64 draws uniform in value over ``domain`` (its
    starts: the worst of them; its spread draws: all), and the point."""
    from symgrad.stability.ascent import toward_zeros

    syms = list(domain)
    fmt = FORMATS[dtype]
    truth = GroundTruth([f], syms, dtype)
    code = generated(syms, [f], fmt.dtype)
    lo = np.array([domain[s][0] for s in syms])
    hi = np.array([domain[s][1] for s in syms])
    draws = (lo + (hi - lo) * np.random.default_rng(seed).random((64, len(syms))))
    draws = draws.astype(fmt.dtype)
    measured = []

    def probe(rows):
        t, _ = truth.batch(rows)
        c = np.asarray(code(*[rows[:, j] for j in range(len(syms))])[0], dtype=fmt.dtype)
        b = bits_error(np.atleast_1d(c)[None, :], t, fmt)
        measured.append((rows, b[0]))
        return b, t

    bits, values = probe(draws)
    toward_zeros(draws, bits, values, probe, [tuple(domain[s]) for s in syms], fmt,
                 spread=np.ones(len(draws), dtype=bool))
    rows = np.concatenate([r for r, _ in measured[1:]])
    b = np.concatenate([b for _, b in measured[1:]])
    return float(np.nanmax(b)), rows[int(np.nanargmax(b))]


@pytest.mark.parametrize("f, domain, dtype, least", [
    # Vincenty's central angle in the hypot form stabilize chose (heldout_j row 27:
    # stabilize reported 2.8, the audit measured 7.8): at x ~ 0 and y ~ z
    (atan2(hypot(sin(y) * sp_cos(Z) - sin(Z) * sp_cos(x) * sp_cos(y),
                 Abs(sin(x)) * Abs(sp_cos(y))),
           sin(y) * sin(Z) + sp_cos(x) * sp_cos(y) * sp_cos(Z)),
     {x: (-3.14159, 3.14159), y: (-1.5707, 1.5707), Z: (-1.5707, 1.5707)}, "float64", 45),
    # siblings never tuned on: the distance from (x, y) to the unit circle's point
    # at angle z, the chord between two points of a sphere, the distance from
    # (x, y, z) to the sphere's point at (t, p) (a set of three fewer dimensions),
    # the angle between (1, x, y) and (1, z, w) by atan2 of the cross product's norm
    (hypot(x - sp_cos(Z), y - sin(Z)), {x: (-1.5, 1.5), y: (-1.5, 1.5), Z: (-3, 3)},
     "float64", 45),
    (hypot(hypot(sp_cos(y) * sp_cos(x) - sp_cos(Z), sp_cos(y) * sin(x)), sin(y) - sin(Z)),
     {x: (-3, 3), y: (-1.5, 1.5), Z: (-1.5, 1.5)}, "float64", 45),
    (hypot(hypot(x - sp_cos(_T) * sp_cos(_P), y - sp_cos(_T) * sin(_P)), Z - sin(_T)),
     {x: (-1.5, 1.5), y: (-1.5, 1.5), Z: (-1.5, 1.5), _T: (-1.5, 1.5), _P: (-3, 3)},
     "float32", 24),
    (atan2(hypot(hypot(x * u - y * Z, y - u), Z - x), 1 + x * Z + y * u),
     {x: (0.5, 2), y: (0.5, 2), Z: (0.5, 2), u: (0.5, 2)}, "float64", 45),
    # the same angle in pairs of floats (stabilize chose it at the defaults and
    # reported 1.0 bits): exact but where x is under 1e-32 on the set's float
    # points y = z, there the pairs' rounding of two equal products; 1.0
    # measured at most seeds before the landings were put on the set exactly
    # and slid along it (ascent._onto_exact_zeros), 61.8 at every seed after
    (compensated(_VINCENTY), {x: (-3.14159, 3.14159), y: (-1.5707, 1.5707),
                              Z: (-1.5707, 1.5707)}, "float64", 55),
    (compensated(_VINCENTY), {x: (-3.14159, 3.14159), y: (-1.5707, 1.5707),
                              Z: (-1.5707, 1.5707)}, "float32", 25),
], ids=["vincenty-hypot", "circle-point", "sphere-chord", "sphere-point-f32", "atan2-angle",
        "vincenty-pairs", "vincenty-pairs-f32"])
def test_a_nonnegative_outputs_zero_set_is_reached_in_all_variables_at_once(
        f, domain, dtype, least):
    most, at = _toward_zeros_from_draws(f, domain, dtype, 0)
    assert most > least, most
    # at that point, against mpmath apart from symgrad's ground truth
    syms = list(domain)
    fmt = FORMATS[dtype]
    code = generated(syms, [f], fmt.dtype)(*[np.array([v], dtype=fmt.dtype) for v in at])[0]
    exact = unwiden([f])[0]  # (the formula a form in pairs computes)
    with mpmath.workdps(100):
        true = sp_lambdify(syms, exact, "mpmath")(*[mpmath.mpf(float(v)) for v in at])
    got = bits_error(np.atleast_1d(code), np.array([float(true)], dtype=fmt.dtype), fmt)
    assert got[0] > least


def _curve_bits(f, syms, rows):
    """The most bits lost by float32 at ``rows``, against mpmath at 100 digits."""
    got = generated(syms, [f], np.float32)(*[rows[:, j] for j in range(len(syms))])[0]
    worst, exact = 0.0, sp_lambdify(syms, f, "mpmath")
    for row, c in zip(rows, np.broadcast_to(got, (len(rows),))):
        with mpmath.workdps(100):
            t = exact(*[mpmath.mpf(float(v)) for v in row])
        worst = max(worst, float(bits_error(np.array([c]), np.array([float(t)]),
                                            FORMATS["float32"])[0]))
    return worst


# (the default samples, at the seeds that reported below 11 bits before)
@pytest.mark.parametrize("f, dom, seeds", [
    (2 * x * Z**2 + 2 * (x - 2), {x: (1, 1e15), Z: (-30, 30)}, (3, 6, 2523)),
    (y * Z**2 + y - x, {x: (1, 2), y: (1, 1e15), Z: (-30, 30)}, (3,)),
], ids=["audit-2512-row-27", "y(1+z**2)=x"])
def test_a_zero_set_reached_only_at_everyday_values_is_slid_along(f, dom, seeds):
    """Each crossing the search finds along one variable is at the others'
    drawn values, uniform over the floats: mostly tiny (|z| < 2**-12 for
    ~90% of the float32 ordinals of [-30, 30]), where the zero set is
    x = 2 exactly (y = x) and the output exact.  On x(1 + z**2) = 2 at
    |z| ~ 0.3 it loses every bit (float32); the max reported was 4.6-30.7
    by seed (random audit seed 2512, row 27; 1.6 at seed 3 for the
    sibling).  The crossings slid along their zero set reach it."""
    syms = list(dom)
    j = 0 if syms[0] == x and len(syms) == 2 else 1  # the variable solved for
    z0 = np.float32(0.3)
    row = np.array([1.5] * (len(syms) - 1) + [z0], dtype=np.float32)
    row[j] = np.float32((2 if j == 0 else 1.5) / (1 + float(z0)**2))
    o = ordinal(row[j:j + 1], FORMATS["float32"])[0]
    rows = np.repeat(row[None, :], 9, axis=0)
    rows[:, j] = from_ordinal(o + np.arange(-4, 5), FORMATS["float32"])
    want = _curve_bits(f, syms, rows)
    assert want > 20
    for s in seeds:
        r = check_stability(f, dom, dtype="float32", seed=s)
        assert r.max_bits_error >= 20, (s, r.max_bits_error, want)
        assert r.basis.counts.get("zeros slid along their set", 0) > 0


def test_the_steps_on_a_double_zero_end_where_the_square_roots_tie():
    # on a double zero the secant steps on sqrt|f|; a step across the zero to
    # its mirror gives |f| the same on both sides, and the secant divided by 0
    # (ZeroDivisionError: stabilize of the angle between two 3-vectors,
    # acos(u.v/(|u||v|)), in float64).  The true values here are scripted:
    # two slow steps on one side (0.8, 0.6, 0.5), then the mirror (-0.5)
    from symgrad.stability.ascent import toward_zeros

    fmt = FORMATS["float64"]
    script = [0.8, 0.6, 0.5, -0.5]

    def probe(rows):
        vals = [script.pop(0) if script else 1.0 for _ in rows]
        return np.zeros((1, len(rows))), np.array([vals])

    points = np.array([[0.5]])
    rows = toward_zeros(points, np.array([[5.0]]), np.array([[1.0]]), probe, [(-1e6, 1e6)], fmt,
                        rounds=1)
    assert not script and np.isfinite(rows).all()
