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


def test_markers_of_numbers_are_numbers_so_substituted_conditions_decide():
    # found by the long differential fuzz: the gradient of
    # Piecewise((identity(z)**2, identity(z) > relu(z)), (sin(relu(z)), True))
    # at z = 1 held the undecidable condition identity(1) > 1
    assert identity(sp.Integer(1)) == 1 and stop_gradient(sp.Rational(1, 3)) == sp.Rational(1, 3)
    assert straight_through(sp.floor(x)).subs(x, 2) == 2
    assert straight_through(sp.Integer(3), x).args == (3, x)  # value 3, derivative 1: kept
    z = sp.Symbol("z", real=True)
    from symgrad import relu

    e = sp.Piecewise((identity(z) ** 2, identity(z) > relu(z)), (sp.sin(relu(z)), True))
    assert grad(e, z).subs(z, 1) == sp.cos(1)
    assert grad(e, z).subs(z, -1) == 0  # sin(relu(z)) is flat there


def test_identity_rule_and_name():
    assert grad(identity(sp.sin(x)), x) == sp.cos(x)
    assert jvp(identity(x**2), x, 1) == 2 * x
    assert identity(x, name="anything") == identity(x)
    with pytest.raises(TypeError, match="name"):
        identity(x, name=3)


def test_straight_through():
    assert grad(straight_through(sp.floor(x)), x) == 1
    assert grad(straight_through(sp.floor(x)) * y, [x, y]) == [y, straight_through(sp.floor(x))]
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


def test_markers_apply_elementwise_to_matrices_and_arrays():
    # tf.stop_gradient(W) on a tensor: one marker per entry, same shape
    w = sp.Matrix([[x, y], [x * y, 2]])
    s = stop_gradient(w)
    assert isinstance(s, sp.MatrixBase) and s.shape == (2, 2)
    assert s[0, 1] == stop_gradient(y) and s[1, 1] == 2
    assert grad(x * s[1, 0] + s[0, 0] ** 2, x) == stop_gradient(x * y)
    a = identity(sp.Array([x, y]), name="Identity")
    assert isinstance(a, sp.NDimArray) and a.shape == (2,) and a[1] == identity(y)
    st = straight_through(sp.Matrix([sp.floor(x), sp.floor(y)]))
    assert st.shape == (2, 1) and grad(st[0] + 3 * st[1], [x, y]) == [1, 3]
    st = straight_through(sp.Matrix([sp.floor(x)]), sp.Matrix([sp.tanh(x)]))
    assert grad(st[0], x) == 1 - sp.tanh(x) ** 2
    # repeated forward entries keep their own backward
    st = straight_through(sp.Array([sp.floor(x), sp.floor(x)]), sp.Array([x, 2 * x]))
    assert st.shape == (2,) and grad(st[0] + st[1], x) == 3


# ---- what stop_gradient takes (issue 8 §5) ----


def test_stop_gradient_none_is_a_clear_type_error():
    with pytest.raises(TypeError, match=r"stop_gradient: x is None \(NoneType\), not a SymPy"):
        stop_gradient(None)
    with pytest.raises(TypeError, match=r"stop_gradient: x is x > 0 \(StrictGreaterThan\), not an"):
        stop_gradient(x > 0)


def test_stop_gradient_list_tuple_dict_map_leaf_by_leaf_as_jax_pytrees():
    assert stop_gradient([x, y]) == [stop_gradient(x), stop_gradient(y)]
    assert stop_gradient((x, [y, 2])) == (stop_gradient(x), [stop_gradient(y), 2])
    assert stop_gradient({"a": x, "b": (y,)}) == {"a": stop_gradient(x), "b": (stop_gradient(y),)}
    assert stop_gradient(sp.Tuple(x, y)) == sp.Tuple(stop_gradient(x), stop_gradient(y))
    assert identity([x, y]) == [identity(x), identity(y)]
    a, b = stop_gradient([x * y, x])
    assert grad(a * x + b, x) == stop_gradient(x * y)


def test_stop_gradient_and_identity_take_tensorflows_name_as_a_label():
    assert stop_gradient(x, name="frozen") == stop_gradient(x)
    assert identity(x, name="id") == identity(x)
    with pytest.raises(TypeError, match="name must be a string"):
        stop_gradient(x, name=3)
