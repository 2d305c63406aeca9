"""Accurate NumPy forms keep their bits where the naive formula loses them."""

from __future__ import annotations

import numpy as np
import sympy as sp

from symgrad import lambdify, numpy_code

x, y = sp.symbols("x y")


def test_softplus_does_not_overflow_or_underflow():
    f = lambdify(x, sp.log(1 + sp.exp(x)))
    np.testing.assert_allclose(f(np.array([1000.0, -1000.0, 0.0])), [1000.0, np.exp(-1000.0),
                                                                      np.log(2.0)])
    assert abs(f(-50.0) / np.exp(-50.0) - 1) < 1e-15


def test_log1p_and_expm1_keep_tiny_values():
    assert lambdify(x, sp.log(1 + x))(1e-20) == 1e-20
    assert lambdify(x, sp.exp(x) - 1)(1e-20) == 1e-20
    assert lambdify(x, 1 - sp.exp(x))(1e-20) == -1e-20
    assert "np.log1p" in numpy_code(x, sp.log(x + 1))
    assert "np.expm1" in numpy_code(x, sp.exp(x) - 1)


def test_hypot_does_not_overflow():
    f = lambdify([x, y], [sp.sqrt(x**2 + y**2), 1 / sp.sqrt(x**2 + y**2)])
    big = f(3e200, 4e200)
    np.testing.assert_allclose(big, [5e200, 2e-201], rtol=1e-15)


def test_logaddexp_of_two_exponentials():
    f = lambdify([x, y], sp.log(sp.exp(x) + sp.exp(y)))
    assert f(1000.0, 1000.0) == 1000.0 + np.log(2.0)
    assert "np.logaddexp" in f.source


def test_an_equal_copy_of_a_node_is_no_change():
    from symgrad.codegen.accurate import accurate_forms

    a = sp.Add(x, x, evaluate=False)
    b = sp.Add._from_args((x, x))  # uncached: a distinct object
    e = sp.Mul(a, sp.sin(b, evaluate=False), evaluate=False)
    assert accurate_forms([e])[0] is e


def test_log_sigmoid_keeps_its_tiny_values():
    # log(1/(1 + exp(-x))) is -softplus(-x): at x = 45 it is -exp(-45), not 0
    f = lambdify(x, sp.log(1 / (1 + sp.exp(-x))))
    got = f(np.array([45.0, -1000.0, 0.0]))
    np.testing.assert_allclose(got, [-np.exp(-45.0), -1000.0, -np.log(2.0)], rtol=1e-15)
    assert f(np.float32(40)).dtype == np.float32 and f(np.float32(40)) < 0
    assert "log1p" in numpy_code([x], sp.log(1 / (x + 1)))
