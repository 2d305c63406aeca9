"""Pytrees of symbols and matrix symbols: grad, vjp, jvp, jacobian and
hessian give back the structure they were given (dicts, tuples, nested,
dataclasses), with JAX's shapes: a gradient has its variable's shape, a
Jacobian block ``out.shape + var.shape``, a Hessian block
``sᵢ.shape + sⱼ.shape``."""

from __future__ import annotations

import dataclasses

from sympy import Matrix, MatrixSymbol, Symbol, diff

import symgrad

x = Symbol("x")
A, v = MatrixSymbol("A", 2, 2), MatrixSymbol("v", 2, 1)
L = symgrad.sum(A * v) * x + x**3 + symgrad.norm(v) ** 2


@dataclasses.dataclass
class Params:
    w: object
    rest: object


def _shape(e):
    return tuple(getattr(e, "shape", ()))


def test_grad_vjp_jvp_keep_dicts_tuples_and_dataclasses():
    g = symgrad.grad(L, Params(w=A, rest=(x, {"v": v})))
    assert isinstance(g, Params) and isinstance(g.rest, tuple) and set(g.rest[1]) == {"v"}
    assert (_shape(g.w), _shape(g.rest[0]), _shape(g.rest[1]["v"])) == ((2, 2), (), (2, 1))
    assert g.w == symgrad.grad(L, A) and g.rest[1]["v"] == symgrad.grad(L, v)
    u = symgrad.vjp({"o": A * v, "p": L}, {"A": A, "x": x}, {"o": v, "p": 1})
    assert set(u) == {"A", "x"} and _shape(u["A"]) == (2, 2)
    t = symgrad.jvp({"o": A * v, "p": L}, (A, v), (A, v))
    assert set(t) == {"o", "p"} and _shape(t["o"]) == (2, 1) and _shape(t["p"]) == ()


def test_jacobian_and_hessian_nest_as_jax():
    J = symgrad.jacobian({"o": A * v, "p": L}, {"A": A, "s": x})
    shapes = {k: {kk: _shape(b) for kk, b in d.items()} for k, d in J.items()}
    assert shapes == {"o": {"A": (2, 1, 2, 2), "s": (2, 1)}, "p": {"A": (2, 2), "s": ()}}
    H = symgrad.hessian(L, (x, v))
    assert [[_shape(b) for b in row] for row in H] == [[(), (2, 1)], [(2, 1), (2, 1, 2, 1)]]
    # against the entry-by-entry Hessian (a mixed matrix/scalar tree was a
    # 2×2 Matrix with a matrix inside and a 0 where ∂²L/∂x∂v is Aᵀ𝟙)
    a = Matrix(2, 2, lambda i, j: Symbol(f"a{i}{j}"))
    w = Matrix(2, 1, lambda i, j: Symbol(f"w{i}"))
    Le = (L.xreplace({A: a, v: w}).doit())
    ws = list(w)
    assert (H[0][0] - diff(Le, x, 2)).expand() == 0
    for i in range(2):
        want = diff(Le, x, ws[i])
        assert (H[0][1].xreplace({A: a, v: w}).doit()[i] - want).expand() == 0
        assert (Matrix(H[1][0]).xreplace({A: a, v: w}).doit()[i] - want).expand() == 0
        for j in range(2):
            assert H[1][1][i, 0, j, 0] == diff(Le, ws[i], ws[j])


def _numbers(e):
    """Entries of a (matrix) result as floats."""
    e = e.doit()
    e = e.as_explicit() if hasattr(e, "as_explicit") else e
    return [float(t) for t in (e if getattr(e, "is_Matrix", False) else [e])]


def test_explicit_tangents_and_cotangents_stand_for_matrix_symbols():
    # JAX takes a concrete array for a tangent or cotangent: so does symgrad,
    # in every container, as the matrix it is (Matrix, Array or NumPy array)
    import numpy as np
    from sympy import Array

    T, C = MatrixSymbol("T", 2, 1), MatrixSymbol("C", 2, 1)
    tv, cv = Matrix([[3], [-2]]), Matrix([[0.5], [7]])
    at = {A: Matrix([[1, 2], [3, 4]]), x: Matrix([[0.25]])[0], v: Matrix([[-1], [5]])}
    loss = (symgrad.sum(A * v) * x + v[0, 0] * v[1, 0])
    for t in (tv, Array([[3], [-2]]), np.array([[3.0], [-2.0]])):
        got = symgrad.jvp({"l": loss, "o": A * v}, [v], [t])
        want = symgrad.jvp({"l": loss, "o": A * v}, [v], [T])
        for k in ("l", "o"):
            w = want[k].subs(T, tv).subs(at)
            assert _numbers(got[k].subs(at)) == _numbers(w)
    got = symgrad.vjp([A * v, loss], {"v": v}, [np.array([[0.5], [7.0]]), 2])
    want = symgrad.vjp([A * v, loss], {"v": v}, [C, 2])
    assert _numbers(got["v"].subs(at)) == _numbers(want["v"].subs(C, cv).subs(at))
    # entry by entry, as a check independent of the matrix rules
    vs = Matrix(2, 1, lambda i, j: Symbol(f"v{i}"))
    flat = loss.subs({v: vs, A: at[A]}).doit()
    by_entries = sum(diff(flat, vs[i]) * tv[i] for i in range(2))
    scalar = symgrad.jvp(loss, v, tv)
    point = {vs[0]: -1, vs[1]: 5, A: at[A], x: at[x]}
    assert abs(_numbers(scalar.subs(at))[0] - _numbers(by_entries.subs(point))[0]) < 1e-12


def test_a_tangent_of_another_shape_names_the_matrix():
    import pytest

    from symgrad.errors import ShapeError

    with pytest.raises(ShapeError, match=r"wrt\[0\] is the matrix v of shape \(2, 1\)"):
        symgrad.jvp(v[0, 0] * v[1, 0], [v], [Matrix([[1, 2]])])
    with pytest.raises(ShapeError, match=r"exprs is the matrix A\*v of shape \(2, 1\)"):
        symgrad.vjp(A * v, v, Matrix([[1, 2]]))
