"""sigmoid, softplus, relu: values, rules, lowering (issue 4 aliases)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from symgrad import expand, grad, lambdify, relu, sigmoid, softplus

x = sp.Symbol("x", real=True)


@pytest.mark.parametrize("fn", [sigmoid, softplus, relu])
def test_rule_matches_derivative_of_lowering(fn):
    ours = grad(fn(x), x)
    theirs = sp.diff(expand(fn(x)), x)
    for v in ["-3.5", "-0.25", "0.75", "4"]:
        a = expand(ours).evalf(40, subs={x: sp.Float(v, 40)})
        b = theirs.evalf(40, subs={x: sp.Float(v, 40)})
        assert abs(a - b) < sp.Float("1e-35"), (fn, v)


def test_relu_gradient_at_zero_is_zero():
    assert grad(relu(x), x).subs(x, 0) == 0


def test_numbers_evaluate():
    assert sigmoid(0) == sp.Rational(1, 2)
    assert relu(-2) == 0 and relu(3) == 3
    assert softplus(0) == sp.log(2)


def test_numpy_values_match_mpmath():
    xs = np.linspace(-30, 30, 13)
    f = lambdify([x], [sigmoid(x), softplus(x), grad(softplus(x), x)])
    s, sp_, ds = f(xs)
    with mpmath.workdps(40):
        want_s = [float(1 / (1 + mpmath.exp(-mpmath.mpf(v)))) for v in xs]
        want_sp = [float(mpmath.log1p(mpmath.exp(mpmath.mpf(v)))) for v in xs]
    np.testing.assert_allclose(s, want_s, rtol=1e-14)
    np.testing.assert_allclose(sp_, want_sp, rtol=1e-14)
    np.testing.assert_allclose(ds, want_s, rtol=1e-14)
