"""Marker nodes: stop_gradient, identity, straight_through (issue 4)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sympy as sp

from symgrad import expand, grad, hessian, identity, jvp, lambdify, stop_gradient, straight_through

x, y = sp.symbols("x y", real=True)


def test_markers_print_as_what_they_are_and_lower_away():
    e = stop_gradient(x) + identity(y) + straight_through(sp.floor(x))
    assert str(e) == "identity(y) + stop_gradient(x) + straight_through(floor(x), x)"
    assert expand(e) == x + y + sp.floor(x)


def test_markers_evaluate_like_what_they_wrap():
    e = stop_gradient(sp.sin(x)) * identity(y) + straight_through(sp.floor(x))
    pt = {x: sp.Float("2.5", 30), y: sp.Float(3, 30)}
    want = (sp.sin(x) * y + sp.floor(x)).evalf(30, subs=pt)
    assert abs(e.evalf(30, subs=pt) - want) < sp.Float("1e-28")
    f = lambdify([x, y], e)
    assert np.isclose(f(2.5, 3.0), np.sin(2.5) * 3 + 2)


def test_markers_substitute_and_pickle():
    e = stop_gradient(x**2) * identity(x) + straight_through(sp.floor(x), sp.tanh(x))
    moved = e.subs(x, y)
    assert grad(moved, y) == grad(e, x).subs(x, y)
    back = pickle.loads(pickle.dumps(e))
    assert back == e
    assert grad(back, x) == grad(e, x)


def test_identity_rule_and_name():
    assert grad(identity(sp.sin(x)), x) == sp.cos(x)
    assert jvp(identity(x**2), x, 1) == 2 * x
    assert identity(x, name="anything") == identity(x)
    with pytest.raises(TypeError, match="name"):
        identity(x, name=3)


def test_straight_through():
    assert grad(straight_through(sp.floor(x)), x) == 1
    assert grad(straight_through(sp.floor(x)) * y, [x, y]) == (y, straight_through(sp.floor(x)))
    assert jvp(straight_through(sp.floor(x), 2 * x), x, 1) == 2
    assert grad(straight_through(sp.floor(x), sp.tanh(x)), x) == 1 - sp.tanh(x) ** 2
    # second order: the derivative of the backward formula
    assert hessian(straight_through(sp.floor(x), x**3), [x]) == sp.Matrix([[6 * x]])
    with pytest.raises(TypeError, match="backward="):
        straight_through(sp.Max(x, y))


def test_stop_gradient_in_forward_and_reverse_agree():
    e = sp.exp(stop_gradient(x) * x) + stop_gradient(y**2) * y
    g = grad(e, [x, y])
    assert g[0] == stop_gradient(x) * sp.exp(x * stop_gradient(x))
    assert jvp(e, [x, y], [1, 0]) == g[0]
    assert jvp(e, [x, y], [0, 1]) == g[1]
