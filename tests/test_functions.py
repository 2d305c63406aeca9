"""symgrad.functions: rint (round half to even, as numpy.rint / tf.round /
jnp.round) and the activations sigmoid, softplus, relu."""

from __future__ import annotations

import pickle
import random

import mpmath
import numpy as np
import pytest
import sympy as sp
from sympy import Float, Integer, Rational, S, Symbol, diff, oo, srepr, symbols

from symgrad import expand, grad, lambdify, relu, rint, sigmoid, softplus

x = Symbol("x", real=True)


@pytest.mark.parametrize(
    "value, want",
    [
        (Rational(1, 2), 0), (Rational(3, 2), 2), (Rational(5, 2), 2), (Rational(7, 2), 4),
        (Rational(-1, 2), 0), (Rational(-3, 2), -2), (Rational(-5, 2), -2),
        (Rational(7, 3), 2), (Rational(-7, 3), -2), (Float(2.6), 3), (Float(-2.6), -3),
        (Integer(4), 4), (S.Zero, 0),
    ],
)
def test_values(value, want):
    got = rint(value)
    assert got == want and got.is_Integer


def test_matches_numpy_rint():
    rng = random.Random(3)
    values = [k / 2 for k in range(-21, 22)] + [rng.uniform(-50, 50) for _ in range(200)]
    for v in values:
        assert int(rint(v)) == int(np.rint(v)), v


def test_symbolic_stays_unevaluated():
    r = Symbol("r", real=True)
    assert str(rint(x)) == "rint(x)"
    assert rint(r).is_real
    assert rint(r).is_integer
    assert rint(oo).is_integer is not True
    n = Symbol("n", integer=True)
    assert rint(n) == n
    assert rint(x).subs(x, Rational(5, 2)) == 2
    assert rint(x).subs(x, 2.5) == 2


def test_derivative_is_zero():
    assert diff(rint(x), x) == 0
    assert grad(rint(x**2) * x, x) == rint(x**2)


def test_pickle_and_srepr_round_trip():
    e = rint(x) + 1
    assert pickle.loads(pickle.dumps(e)) == e
    assert srepr(rint(x)).startswith("rint(")


def test_substitution_into_a_sum():
    a, b = symbols("a b", real=True)
    assert rint(a + b).subs({a: 1, b: Rational(3, 2)}) == 2


# ---- activations --------------------------------------------------------------


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


# ---- maximum / minimum: tf.maximum's argument order --------------------------


def test_maximum_keeps_the_users_order_for_ties_first():
    from symgrad import maximum, minimum

    y = Symbol("y", real=True)
    # TensorFlow's maximum(x, 3.) at x = 3 sends 1 to x (Max(x, 3) is Max(3, x))
    assert grad(maximum(x, 3), x, ties="first").subs(x, 3) == 1
    assert grad(minimum(x, 3), x, ties="first").subs(x, 3) == 1
    assert grad(sp.Max(x, 3), x, ties="first").subs(x, 3) == 0  # SymPy's first is 3
    for f in (maximum, minimum):
        assert [g.subs({x: 1, y: 1}) for g in grad(f(y, x), [y, x], ties="first")] == [1, 0]
        assert [g.subs({x: 1, y: 1}) for g in grad(f(x, y), [x, y], ties="first")] == [1, 0]
        assert [g.subs({x: 1, y: 1}) for g in grad(f(y, x), [y, x])] == [S.Half, S.Half]
    assert [g.subs({x: 2, y: 1}) for g in grad(maximum(y, x), [y, x])] == [0, 1]
    assert [g.subs({x: 2, y: 1}) for g in grad(minimum(y, x), [y, x])] == [1, 0]


def test_maximum_evaluates_prints_and_compiles_like_max():
    from symgrad import maximum, minimum

    y = Symbol("y", real=True)
    assert maximum(2, 3) == 3 and minimum(2, 3) == 2
    assert str(maximum(x, 3)) == "maximum(x, 3)" and maximum(x, 3).args == (x, 3)
    assert maximum(x, y).evalf(subs={x: 1, y: 2}) == Float(2)
    lowered = expand(minimum(y, x))
    assert lowered.func is sp.Min and set(lowered.args) == {x, y}
    f = lambdify([x, y], [maximum(x, y), minimum(x, y)])
    assert np.array_equal(f(np.array([1.0, 3.0]), np.array([2.0, 2.0])),
                          [[2.0, 3.0], [1.0, 2.0]])
    g = lambdify([x, y], list(grad(maximum(x, y) * y, [x, y], ties="first")))
    assert np.allclose(g(2.0, 2.0), [2.0, 2.0])  # tie: x gets y = 2, y gets max(x, y) = 2
    assert pickle.loads(pickle.dumps(maximum(x, y))) == maximum(x, y)
    assert grad(maximum(x, y), [x, y], convention="distribution") == [
        sp.Heaviside(x - y), sp.Heaviside(y - x)]


def test_maximum_refuses_strings():
    from symgrad import SymgradError, maximum

    with pytest.raises(TypeError, match="maximum: x is the string"):
        maximum("__import__('os')", 1)
    with pytest.raises(SymgradError, match="minimum: y is the string"):
        __import__("symgrad").minimum(1, "x")
