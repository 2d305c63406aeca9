"""Roots mean what the formula says: ``x**(1/3)`` (and ``sympy.cbrt``, and
``root(x, 3)``) is SymPy's principal root, complex for x < 0, so real code
gives NaN there as ``sqrt`` does, and complex code its principal value;
``real_root(x, 3)`` is the real cube root, -2 at -8.  The gradient agrees
with the value."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad import lambdify, numpy_code

x = sp.Symbol("x", real=True)
u = sp.Symbol("u")  # no assumptions: SymPy's x**(1/3) is principal either way
THIRD = sp.Rational(1, 3)


@pytest.mark.parametrize("s", [x, u])
@pytest.mark.parametrize("make", [lambda s: s**THIRD, sp.cbrt, lambda s: sp.root(s, 3)])
def test_the_principal_cube_root_is_nan_below_zero_in_real_code(s, make):
    e = make(s)
    assert complex(e.subs(s, -8).evalf()) == pytest.approx(1 + 3**0.5 * 1j)
    f = lambdify(s, [e, symgrad.grad(e, s)])
    with np.errstate(invalid="ignore", divide="ignore"):
        value, slope = f(np.array([-8.0, 8.0, 0.0]))
    assert np.isnan(value[0]) and np.isnan(slope[0])  # was -2 (np.cbrt) and nan
    assert value[1] == 2.0 and slope[1] == pytest.approx(1 / 12, rel=1e-15)
    assert value[2] == 0.0


def test_the_principal_cube_root_in_complex_code():
    e = x**THIRD
    got = lambdify(x, [e, symgrad.grad(e, x)], dtype=complex)(-8.0)
    want = [complex(v.subs(x, -8).evalf()) for v in (e, symgrad.grad(e, x))]
    np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("s", [x, u])
def test_the_real_cube_root_is_real_root(s):
    e = sp.real_root(s, 3)
    f = lambdify(s, [e, symgrad.grad(e, s)])
    value, slope = f(np.array([-8.0, 8.0, -0.001]))
    np.testing.assert_allclose(value, [-2.0, 2.0, -0.1], rtol=1e-15)
    np.testing.assert_allclose(slope, [1 / 12, 1 / 12, 1 / 0.03], rtol=1e-14)


def test_a_root_of_a_nonnegative_base_is_cbrt():
    # accurate to the last bit where SymPy shows the base is not negative
    assert "np.cbrt(" in numpy_code(x, sp.Abs(x) ** THIRD)
    big = np.array([1e300, 2.0, 1e-300])
    np.testing.assert_array_equal(lambdify(x, sp.Abs(x) ** THIRD)(-big), np.cbrt(big))


def test_a_root_of_a_base_of_unknown_sign_is_exact_where_it_is_real():
    # the principal root where the base is >= 0 is cbrt's (within half an ulp)
    pts = np.array([1e300, 3.0, 2.0, 1e-300, 0.0, np.inf])
    f = lambdify(x, (x + 0) ** THIRD)
    np.testing.assert_array_equal(f(pts), np.cbrt(pts))
