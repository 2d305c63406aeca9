"""The thresholds the analysis adds to the samples: where a node's argument
crosses the edge of the float range or of its function's domain, by
SymPy's solver (a polynomial of degree <= 2) or by bracketing on the floats."""

import math

import numpy as np
from sympy import exp, log, sinh, sqrt, symbols

from symgrad import check_stability
from symgrad.stability.analysis import formula_thresholds
from symgrad.stability.bits import FORMATS

x = symbols("x", real=True)
F64, F32 = FORMATS["float64"], FORMATS["float32"]


def _xs(points):
    return sorted(p[x] for p in points)


def test_solver_thresholds_are_the_floats_around_the_root():
    got = _xs(formula_thresholds([exp(x**2)], [x], {x: (-100.0, 100.0)}, F64))
    r = math.sqrt(math.log(F64.max))  # exp(x**2) overflows past it
    assert len(got) == 6 and all(abs(abs(v) - r) < 1e-13 for v in got)
    assert got[3] == np.nextafter(got[4], -np.inf) and got[5] == np.nextafter(got[4], np.inf)


def test_bracketing_where_no_solver_applies():
    got = _xs(formula_thresholds([exp(sinh(x))], [x], {x: (-100.0, 100.0)}, F64))
    over = math.asinh(math.log(F64.max))  # overflow
    under = math.asinh(math.log(5e-324))  # underflow below the least subnormal
    assert any(abs(v - over) < 1e-14 for v in got) and any(abs(v - under) < 1e-14 for v in got)
    f32 = _xs(formula_thresholds([exp(sinh(x))], [x], {x: (-100.0, 100.0)}, F32))
    assert any(abs(v - math.asinh(math.log(float(np.finfo(np.float32).max)))) < 1e-5
               for v in f32)


def test_domain_edges_and_the_samples_hold_them():
    got = _xs(formula_thresholds([log(x - 2) + sqrt(3 - x)], [x], {x: (0.0, 10.0)}, F64))
    assert 2.0 in got and 3.0 in got
    r = check_stability(exp(x**2), {x: (-100, 100)}, samples=16)
    edge = math.sqrt(math.log(F64.max))
    assert any(abs(abs(v) - edge) < 1e-13 for v in r.points[:, 0])  # 16 random points would not
