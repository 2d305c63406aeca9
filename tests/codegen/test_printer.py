"""The printer: long selections stay flat."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import lambdify, numpy_code

x = sp.Symbol("x", real=True)


def _steps(n: int) -> sp.Piecewise:
    # first true condition wins: x < 1 -> 0, x < 2 -> 1, ..., else sin(x)
    return sp.Piecewise(*[(k * x / 7, x < k) for k in range(1, n)], (sp.sin(x), True))


@pytest.mark.parametrize("n", [3, 40, 202])
def test_a_piecewise_of_many_branches_compiles_and_selects_the_first_true(n):
    # 202 branches were a SyntaxError: too many nested parentheses
    pw = _steps(n)
    f = lambdify(x, pw)
    pts = np.array([-1.0, 0.5, 1.5, 17.25, n - 0.5, n + 3.0], dtype=np.float64)
    k = np.floor(pts) + 1  # the first k with x < k
    want = np.where(k < n, np.maximum(k, 1) * pts / 7, np.sin(pts))
    np.testing.assert_allclose(f(pts), want, rtol=1e-15)
    assert f(pts.astype(np.float32)).dtype == np.float32
    assert numpy_code(x, pw).count("np.where(") <= 40


def test_a_long_selection_keeps_float32_in_plain_code():
    ns: dict = {}
    exec(compile(numpy_code(x, _steps(202)), "<test>", "exec"), ns)
    out = ns["f"](np.array([0.5, 150.5, 300.0], dtype=np.float32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [0.5 / 7, 151 * np.float32(150.5) / 7, np.sin(300.0)],
                               rtol=1e-6)


def test_a_sum_starting_negative_is_printed_without_a_negation():
    # -x*y + z is (-x)*y + z in Python: one pass more than z - x*y, the same float
    x, y, z = sp.symbols("x y z")
    e = sp.Add(sp.Mul(-1, x, y), z, sp.sin(z), evaluate=False)
    src = numpy_code([x, y, z], e)
    assert "= z - x*y + np.sin(z)" in src
    ns: dict = {}
    exec(src, ns)  # noqa: S102  our own generated source
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((3, 1000))
    np.testing.assert_array_equal(ns["f"](a, b, c), (-a) * b + c + np.sin(c))


def test_a_sum_starting_with_several_negative_terms_has_no_negation():
    # -a*b - c + d is ((-a)*b - c) + d: the same float as d - (a*b + c), a pass fewer
    x, y, z = sp.symbols("x y z")
    e = sp.Add(sp.Mul(-1, x, y), sp.Mul(-2, z), sp.Mul(-1, sp.exp(x)), sp.sin(z), y,
               evaluate=False)
    src = numpy_code([x, y, z], e)
    assert "= np.sin(z) - (x*y + 2*z + np.exp(x)) + y" in src, src
    ns: dict = {}
    exec(src, ns)  # noqa: S102  our own generated source
    rng = np.random.default_rng(0)
    for scale in (1.0, 1e300, 1e-300):
        a, b, c = rng.standard_normal((3, 1000)) * scale
        with np.errstate(all="ignore"):
            want = (-a) * b - 2 * c - np.exp(a) + np.sin(c) + b
            np.testing.assert_array_equal(ns["f"](a, b, c), want)
    # all terms negative: written as it is
    assert "= -x*y - np.exp(x)" in numpy_code([x, y], sp.Add(sp.Mul(-1, x, y), -sp.exp(x),
                                                              evaluate=False))


_X, _Y, _Z = sp.symbols("x y z", real=True)


@pytest.mark.parametrize("c", [sp.sqrt(2), sp.exp(-sp.Rational(1, 2)), sp.log(3),
                               sp.gamma(sp.Rational(1, 3)), sp.atan(2)])
def test_a_constant_of_functions_of_numbers_keeps_a_float32_kernel_float32(c):
    # printed as NumPy calls (np.sqrt(2)), such a constant was a float64
    # NumPy scalar, NumPy's strong type: the operations after it ran in
    # float64 on the constant's 53 bits and were cast at the end (c*x*y/z
    # at x = y = 2e19, z = 1e10 was finite where float32 overflows); now
    # the constant is rounded once to float32 and every operation is float32
    x = np.random.default_rng(0).uniform(-3, 3, 1000).astype(np.float32)
    k = np.float32(float(c.evalf(30)))
    got = lambdify([_X], c * _X, dtype="float32")(x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, k * x)


def test_a_constant_beyond_a_float_is_left_as_written():
    # exp(1000) is no float: its NumPy call's own overflow, as before
    with np.errstate(all="ignore"):
        got = lambdify([_X], sp.exp(1000) * _X)(np.array([0.0, 1.0]))
    assert np.isnan(got[0]) and np.isinf(got[1])
