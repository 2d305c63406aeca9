"""The table of where each function leaves the float range or its domain."""

import math

import numpy as np
import pytest
from sympy import cosh, erfc, exp, gamma, log, sinh, sqrt, symbols, tanh

from symgrad.rewrites.forms import erfcx
from symgrad.stability.bits import FORMATS
from symgrad.stability.edges import edges

x = symbols("x", real=True)


@pytest.mark.parametrize("fmt", ["float64", "float32"])
def test_each_edge_is_where_the_float_function_changes(fmt):
    f = FORMATS[fmt]
    dt = f.dtype.type
    big = math.log(f.max)
    for node, fn in ((sinh(x), np.sinh), (cosh(x), np.cosh)):  # log(2*max), not log(inf)
        c = max(v for _, v in edges(node, f))
        assert 0 < c - big < 1
        below, above = dt(c) * dt(1 - 1e-6), dt(c) * dt(1 + 1e-6)
        with np.errstate(over="ignore"):
            assert np.isfinite(fn(below)) and np.isinf(fn(above))
    (_, c), *_ = edges(exp(x), f)
    assert c == pytest.approx(big)
    (_, g), _ = edges(gamma(x), f)
    assert g == pytest.approx(171.6243769563 if fmt == "float64" else 35.0401, rel=1e-6)
    (_, e), = edges(erfcx(x), f)
    assert math.exp(e * e) * 2 == pytest.approx(f.max, rel=1e-3)  # erfcx(u) ~ 2 exp(u²)
    t = max(v for _, v in edges(tanh(x), f))
    assert 2 * math.exp(-2 * t) == pytest.approx(2.0 ** -(f.prec + 1))  # 1 - tanh: half an ulp
    assert {c for _, c in edges(erfc(x), f)} and {0.0, 1.0} <= {c for _, c in edges(log(x), f)}
    assert (x, 0.0) in edges(sqrt(x), f) and (x, 0.0) in edges(1 / x, f)
    over = [c for _, c in edges(x**3, f) if c > 1]
    with np.errstate(over="ignore"):  # x**3 overflows just past it
        assert np.isfinite(dt(over[0] * 0.999) ** 3) and np.isinf(dt(over[0] * 1.001) ** 3)
