"""The analysis: an alarm means the output is wrong; undefined points are
information.  (The thresholds added to the samples are the search's:
tests/stability/test_search.py.)"""

import math

import numpy as np
import pytest
from sympy import Piecewise, acos, atan, exp, log, sin, sqrt, symbols

from symgrad import check_stability
from symgrad.stability.bits import FORMATS
from symgrad.stability.truth import RESOLVED, GroundTruth

x = symbols("x", real=True)
F64, F32 = FORMATS["float64"], FORMATS["float32"]


# ---- an alarm means the output is wrong; undefined points are information -----------


def _undefined_ranges(r):
    return sorted(u.ranges[x] for u in r.undefined)


def test_poles_are_undefined_not_alarms():
    # FPBench control: "computed inf, true nan" at x = +-1 was a "domain" region, NOT ok
    r = check_stability(1 / (x - 1) + x / (x + 1), {x: (-10, 10)}, samples=256)
    assert r.ok and not r.regions and r.max_bits_error <= 1, str(r)
    assert _undefined_ranges(r) == [(-1.0, -1.0), (1.0, 1.0)]
    assert {u.culprit for u in r.undefined} == {1 / (x - 1), 1 / (x + 1)}
    assert all(u.kind == "undefined" and "divides by zero" in u.why for u in r.undefined)
    assert r.undefined_points == 2 and r.outputs[0].undefined == 2


@pytest.mark.parametrize(
    ("expr", "edge"),
    [  # FPBench's controls, no :pre: every float
        (log(x) - log(log(x)), 1.0),  # undefined for x <= 1
        (2 * atan(sqrt((1 - x) / (1 + x))), -1.0),  # for x <= -1 and x > 1
    ],
)
def test_fpbench_controls_over_all_floats_are_ok(expr, edge):
    r = check_stability(expr, {x: (-math.inf, math.inf)}, samples=256)
    assert r.ok and not r.regions, str(r)
    assert r.undefined and any(edge in u.ranges[x] for u in r.undefined)
    assert r.undefined_points > 0 and r.max_bits_error <= 2


@pytest.mark.parametrize(
    ("expr", "lo", "hi", "where"),
    [
        (sqrt(x), -1, 1, [(-1.0, -5e-324)]),
        (1 / x, -1, 1, [(0.0, 0.0)]),
        (log(x**2 - 1), -3, 3, [(-1.0, 1.0)]),
        (acos(x), -2, 2, [(-2.0, np.nextafter(-1.0, -2)), (np.nextafter(1.0, 2), 2.0)]),
        (x / (x**2 - 4), -10, 10, [(-2.0, -2.0), (2.0, 2.0)]),
    ],
)
def test_siblings_undefined_ranges_are_exact(expr, lo, hi, where):
    r = check_stability(expr, {x: (lo, hi)}, samples=256)
    # alarms only where the formula is defined and the output wrong (the search finds
    # real losses beside some: log(x**2 - 1) near x = +-sqrt(2), where the log meets 1,
    # 52 bits; x**2 - 4 cancelling beside the poles of x/(x**2 - 4), 8 bits)
    assert all(math.isfinite(g.witness.true) and g.max_bits > r.tolerance_bits
               for g in r.regions), str(r)
    assert _undefined_ranges(r) == where


def test_a_float_next_to_a_pole_is_measured():
    a = 1 + 2.0**-52  # 1/(x - 1) = 2**52 exactly: defined, finite
    t = GroundTruth([1 / (x - 1)], [x])
    assert t.at([a]) == ([2.0**52], [RESOLVED])
    r = check_stability(1 / (x - 1), {x: (a, 1 + 2.0**-40)}, samples=64)
    assert r.ok and not r.undefined and r.undefined_points == 0


def test_a_truth_beyond_the_largest_float_is_inf_and_inf_is_right():
    r = check_stability(exp(x), {x: (700, 800)}, samples=128)
    # (NumPy's exp is faithfully rounded, not correctly: 1 bit at x =
    # 702.51717297..., which the secant's finer first steps reach)
    assert r.ok and r.max_bits_error <= 1 and not r.regions
    (h,) = r.harmless
    assert h.culprit == exp(x) and "correctly rounded" in h.why


def test_alarms_stay_where_the_defined_output_is_wrong():
    r = check_stability(exp(x) / (1 + exp(x)), {x: (-1000, 1000)}, samples=256)
    assert not r.ok and [g.ranges[x][0] for g in r.regions] == [709.7827128933841]
    # the secant's thin windows: exp overflows for |x| > 709.78, the result is
    # wrong until the truth underflows to 0 too, near 744.44
    r = check_stability(2 / (exp(x) + exp(-x)), {x: (-math.inf, math.inf)}, samples=256)
    assert not r.ok and len(r.regions) == 2
    for g in r.regions:
        lo, hi = sorted(map(abs, g.ranges[x]))
        assert lo == 709.7827128933841 and 740 < hi < 744.45 and g.max_bits > 40


def test_code_values_where_undefined_are_said():
    # at x = -1: (1 - x)/(1 + x) divides by zero; the code's atan(inf) gives pi
    r = check_stability(2 * atan(sqrt((1 - x) / (1 + x))), {x: (-1, 1)}, samples=64)
    (u,) = r.undefined
    assert u.ranges[x] == (-1.0, -1.0) and "finite numbers" in u.why and r.ok


def test_an_intermediate_nan_in_an_untaken_branch_is_harmless():
    r = check_stability(Piecewise((log(x), x > 0), (0, True)), {x: (-1, 1)}, samples=128)
    assert r.ok and not r.undefined
    # log(x) is NaN for x < 0 and -inf at 0 where numpy computes both branches
    assert {(h.kind, h.culprit) for h in r.harmless} == {("nan", log(x)), ("overflow", log(x))}


def test_undefined_counts_per_output():
    r = check_stability([log(x), x], {x: (-1, 1)}, samples=128)
    assert r.ok and r.outputs[0].undefined > 0 and r.outputs[1].undefined == 0
    assert "undefined (no real value; the code's NaN/inf is right there):" in str(r)


def test_undefined_runs_end_at_every_defined_point():
    # log(sin(x)) is undefined on every other half-period; sampled sparsely, the
    # runs were merged into one long range (more than GAP defined points apart)
    r = check_stability(log(sin(x)), {x: (-20, 20)}, samples=256)
    spans = sorted(u.ranges[x] for u in r.undefined)
    # each within one half-period, its ends at multiples of pi (or the domain's end)
    assert len(spans) >= 5 and all(hi - lo <= math.pi + 1e-12 for lo, hi in spans)
    assert all(abs(math.sin(v)) < 1e-14 or abs(v) == 20 for span in spans for v in span)
