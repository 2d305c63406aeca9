"""grad / jacobian / jvp / vjp over SymPy Matrix and Array inputs and outputs."""

from __future__ import annotations

import numpy as np
import pytest
from sympy import (
    Array,
    ImmutableSparseNDimArray,
    Matrix,
    MutableDenseNDimArray,
    S,
    diff,
    exp,
    expand,
    sin,
    symbols,
)

from symgrad import ShapeError, SymgradError, grad, hessian, jacobian, jvp, vjp

a, b, c, d, e, f = symbols("a b c d e f", real=True)
A23 = Array([[a, b, c], [d, e, f]])
FLAT = [a, b, c, d, e, f]
# an array-valued function of A23: shape (3, 2)
F32 = Array([[a * d, sin(b)], [exp(c) * e, a + f], [b * c * f, d**2]])


def flat(arr: object) -> list:
    """Entries in row-major order (``list(arr)`` yields rows of a rank-2 Array)."""
    return [arr[i] for i in np.ndindex(*arr.shape)]


def inner(u: object, v: object) -> object:
    return sum(p * q for p, q in zip(flat(u), flat(v)))


def test_grad_wrt_2x3_array_is_a_2x3_array():
    expr = a * b * c + d**2 * e - sin(f)
    g = grad(expr, A23)
    assert type(g).__name__ == "ImmutableDenseNDimArray" and g.shape == (2, 3)
    assert g == Array([[diff(expr, s) for s in row] for row in A23.tolist()])


def test_grad_wrt_rank3_array_and_other_array_kinds():
    p = Array(FLAT, (1, 3, 2))
    g = grad(a * f + c, p)
    assert g.shape == (1, 3, 2) and flat(g) == [f, 0, 1, 0, 0, a]
    for arr in (MutableDenseNDimArray([a, b]), ImmutableSparseNDimArray([a, b])):
        assert list(grad(a * b, arr)) == [b, a]


def test_jacobian_rows_are_flattened_outputs_cols_flattened_inputs():
    j = jacobian(F32, A23)
    assert j.shape == (6, 6)
    outs = [F32[i, k] for i in range(3) for k in range(2)]  # row-major
    assert j == Matrix(6, 6, lambda r, q: diff(outs[r], FLAT[q]))
    jm = jacobian(Matrix([[a * b, c], [d, e * f]]), Matrix(A23.tolist()))
    assert jm.row(0) == Matrix([[b, a, 0, 0, 0, 0]]) and jm.row(3) == Matrix([[0] * 4 + [f, e]])
    # forward mode (more outputs than inputs) agrees with reverse mode
    tall = jacobian(Array([a * b, a, b, a**2]), Array([a, b]))
    assert tall == Matrix([[b, a], [1, 0], [0, 1], [2 * a, 0]])


def test_jvp_with_array_shapes():
    t = Array(symbols("t0:6", real=True), (2, 3))
    out = jvp(F32, A23, t)
    assert out.shape == (3, 2)
    jv = jacobian(F32, A23) * Matrix(flat(t))
    assert all(expand(p - q) == 0 for p, q in zip(flat(out), jv))


def test_vjp_with_array_shapes():
    u = Array(symbols("u0:6", real=True), (3, 2))
    out = vjp(F32, A23, u)
    assert out.shape == (2, 3)
    uj = Matrix([flat(u)]) * jacobian(F32, A23)
    assert all(expand(p - q) == 0 for p, q in zip(flat(out), uj))


def test_jvp_vjp_with_matrix_shapes():
    m = Matrix([[a, b], [c, d]])
    out = m * m  # Matrix-valued function of a Matrix
    v = Matrix([[1, 0], [0, 0]])
    assert jvp(out, m, v) == Matrix([[2 * a, b], [c, 0]])
    g = vjp(out, m, Matrix([[1, 0], [0, 0]]))
    assert isinstance(g, Matrix) and g == Matrix([[2 * a, c], [b, 0]])


def test_adjoint_identity_on_an_array_valued_function():
    u = Array(symbols("u0:6", real=True), (3, 2))
    v = Array(symbols("v0:6", real=True), (2, 3))
    lhs = inner(u, jvp(F32, A23, v))
    rhs = inner(vjp(F32, A23, u), v)
    assert expand(lhs - rhs) == 0
    # and at a numeric point
    pt = dict(zip(FLAT, [S(1) / 3, 2, -1, S(1) / 2, 3, -2]))
    assert expand((lhs - rhs).subs(pt)) == 0


def test_shape_mismatch_is_a_shape_error():
    with pytest.raises(ShapeError, match=r"tangents is an array of shape \(3, 2\) but wrt is an "
                       r"array of shape \(2, 3\)"):
        jvp(F32, A23, Array(FLAT, (3, 2)))
    with pytest.raises(ShapeError, match=r"cotangents is an array of shape \(2, 3\) but exprs is "
                       r"an array of shape \(3, 2\)"):
        vjp(F32, A23, A23)
    with pytest.raises(ShapeError, match="cotangents is a sequence of 5"):
        vjp(F32, A23, FLAT[:5])


def test_flat_list_pairs_with_any_shape_of_the_same_size():
    assert vjp(F32, A23, [1, 0, 0, 0, 0, 0]).shape == (2, 3)
    assert jvp(F32, A23, FLAT).shape == (3, 2)


def test_nested_lists_and_numpy_arrays_say_use_array():
    # a nested list is a pytree of sequences (JAX's view), not an array
    with pytest.raises(SymgradError, match=r"tangents is a sequence of 2 but wrt is an array of "
                       r"shape \(2, 3\).*pass sympy.Array\(value\)"):
        jvp(F32, A23, [[1, 0, 0], [0, 0, 0]])
    with pytest.raises(SymgradError, match=r"\(ndarray\).*pass sympy.Array\(value\)"):
        vjp(F32, A23, np.zeros((3, 2)))
    assert jvp(a * b, Array([a, b]), Array(np.array([1.0, 0.0]))) == S(1.0) * b


def test_unconnected_none_treats_a_matrix_or_array_as_one_variable():
    assert grad(a * b, Array([[c, d]]), unconnected="none") is None
    assert grad(a * b, Matrix([c, d]), unconnected="none") is None
    g = grad(a * b, Matrix([a, c]), unconnected="none")
    assert g == Matrix([b, 0])
    assert grad(a * b, A23, unconnected="none") == Array([[b, a, 0], [0, 0, 0]])
    assert grad(a * b, [a, c], unconnected="none") == [b, None]  # a tuple: per entry


def test_hessian_wrt_array():
    h = hessian(a**2 * b + c, Array([[a, b, c]]))
    assert h == Matrix([[2 * b, 2 * a, 0], [2 * a, 0, 0], [0, 0, 0]])


def test_grad_of_an_array_is_an_error():
    with pytest.raises(SymgradError, match=r"grad needs a scalar expression but got an array "
                       r"of shape \(1,\)"):
        grad(Array([a]), a)
