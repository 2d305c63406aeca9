"""rint: round half to even, as numpy.rint / tf.round / jnp.round."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from sympy import Float, Integer, Rational, S, Symbol, diff, oo, srepr, symbols

from symgrad import grad, rint

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
