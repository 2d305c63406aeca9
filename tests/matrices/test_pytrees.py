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
