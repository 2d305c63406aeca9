"""where / cond: gradient to the taken branch only, and never a NaN from
the branch not taken (issue 4)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import SymgradError, cond, grad, hessian, jvp, lambdify, where

x, y = sp.symbols("x y", real=True)


def test_where_routes_the_cotangent():
    e = where(x > y, x**2, 3 * y)
    gx, gy = grad(e, [x, y])
    assert gx.subs({x: 2, y: 1}) == 4 and gy.subs({x: 2, y: 1}) == 0
    assert gx.subs({x: 0, y: 1}) == 0 and gy.subs({x: 0, y: 1}) == 3


def test_condition_gets_no_gradient():
    # y appears only in the condition
    assert grad(where(y > 0, x, 2 * x), y) == 0


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_untaken_branch_never_leaks_nan(mode):
    e = where(x > 0, sp.sqrt(x), 0)
    g = grad(e, x) if mode == "reverse" else jvp(e, x, 1)
    assert g.subs(x, -1) == 0
    f = lambdify([x], g)
    xs = np.array([-1.0, -0.0, 0.0, 0.25, 4.0])
    with np.errstate(all="raise"):
        out = f(xs)
    np.testing.assert_array_equal(out, [0.0, 0.0, 0.0, 1.0, 0.25])


def test_nan_free_through_a_chain():
    # the classic: log of a branch that is invalid where not taken, times more
    e = y * where(x > 1, sp.log(x - 1), x) ** 2
    g = grad(e, x)
    f = lambdify([x, y], g)
    out = f(np.array([0.5, 3.0]), np.array([2.0, 2.0]))
    np.testing.assert_allclose(out, [2 * 2 * 0.5, 2 * 2 * np.log(2) / 2])


def test_cond_with_callables_and_bools():
    assert grad(cond(x < 1, lambda: x**2, lambda: 2 * x), x) == sp.Piecewise(
        (2 * x, x < 1), (2, True)
    )
    assert cond(True, x, y) == x
    assert where(sp.true, x, y) == x
    assert where(False, x, y) == y


def test_bad_condition():
    with pytest.raises(SymgradError, match="relational or boolean"):
        where(x, 1, 2)
    with pytest.raises(SymgradError, match="string"):
        where(x > 0, "x", 2)


@pytest.mark.parametrize("mode", ["reverse", "hessian"])
def test_nested_where_never_leaks_nan(mode):
    # the outer where's cotangent, a Piecewise, reaches the inner where's
    # branches; it must be distributed there too, not multiplied by their
    # partials (0 * nan at x <= 0, where the inner sqrt branch is untaken)
    e = where(x > 0, where(x > 1, sp.log(x - 1), sp.sqrt(x)), 0) * y
    g = grad(e, x) if mode == "reverse" else hessian(e, [x, y])[0, 0]
    assert g.subs({x: -1, y: 2}) == 0
    f = lambdify([x, y], g)
    for dtype in (np.float32, np.float64):
        out = f(np.array([-1.0, 0.0, 0.25, 2.0], dtype), np.array(2.0, dtype))
        assert np.all(np.isfinite(out)), out
        assert out[0] == 0 and out[1] == 0


def test_where_on_matrices_and_arrays_is_elementwise():
    # tf.where(c, A, B) on tensors: one select per entry, not one Piecewise
    # holding two matrices
    a, b = sp.Matrix([[x, y]]), sp.Matrix([[y, 2 * x]])
    w = where(x > 0, a, b)
    assert isinstance(w, sp.MatrixBase) and w.shape == (1, 2)
    assert w[1] == sp.Piecewise((y, x > 0), (2 * x, True))
    assert grad(w[0] + w[1], x).subs(x, -1) == 2
    # a condition per entry, and a scalar branch broadcast
    c = where(sp.Array([x > 0, y > 0]), sp.Array([sp.sqrt(x), sp.log(y)]), 0)
    assert isinstance(c, sp.NDimArray) and c.shape == (2,)
    assert grad(c[0] + c[1], [x, y]) == (
        sp.Piecewise((1 / (2 * sp.sqrt(x)), x > 0), (0, True)),
        sp.Piecewise((1 / y, y > 0), (0, True)),
    )
    assert cond(x > 0, lambda: a, lambda: b) == w
    with pytest.raises(SymgradError, match="shape"):
        where(x > 0, a, sp.Matrix([x, y, 1]))


def test_cond_with_tuple_valued_branches_selects_entry_by_entry():
    # was: a Piecewise of Tuples, which nothing could differentiate
    a, b = cond(x < 1, lambda: (x, x**2), lambda: (1, 2 * y))
    assert a == sp.Piecewise((x, x < 1), (1, True))
    assert grad(b, [x, y]) == (sp.Piecewise((2 * x, x < 1), (0, True)),
                              sp.Piecewise((0, x < 1), (2, True)))
    d = cond(x < 1, {"u": x}, {"u": y})
    assert d == {"u": sp.Piecewise((x, x < 1), (y, True))}
    assert where(x < 1, [x, y], [1, 2]) == [sp.Piecewise((x, x < 1), (1, True)),
                                             sp.Piecewise((y, x < 1), (2, True))]


def test_cond_branches_of_different_structure_are_refused():
    with pytest.raises(SymgradError, match="a is a tuple of 2 but b is a tuple of 3"):
        cond(x < 1, (x, y), (x, y, 1))
    with pytest.raises(SymgradError, match="a is a tuple of 2 but b is a single value"):
        cond(x < 1, lambda: (x, y), lambda: x)
    with pytest.raises(SymgradError, match="dict with keys"):
        cond(x < 1, {"u": x}, {"v": x})
