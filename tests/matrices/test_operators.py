"""jvp, vjp, jacobian, hessian over matrix symbols (JAX's shapes), markers,
overrides and the program printer on matrix formulas."""

from __future__ import annotations

import pytest
from sympy import (
    Matrix,
    MatrixSymbol,
    ZeroMatrix,
    floor,
    hadamard_product,
    latex,
    tanh,
)

import symgrad
from symgrad import grad, hessian, jacobian, jvp, vjp
from symgrad.errors import ShapeError

from .oracle import entries, point, value

A = MatrixSymbol("A", 3, 2)
x = MatrixSymbol("x", 2, 1)
v = MatrixSymbol("v", 2, 1)
u = MatrixSymbol("u", 3, 1)


def _explicit_jacobian(F, W, at):
    """∂F/∂W entry by entry: F expanded over W's entries, sympy.diff."""
    Ws = entries(W)
    others = {M: val for M, val in at.items() if M != W}
    Fe = value(F, {**others, W: Ws}, prec=50)
    wvals = {Ws[k]: at[W][k] for k in range(len(Ws))}
    return Fe, Ws, wvals


def test_jvp_and_vjp_are_the_jacobian_products():
    F = symgrad.elementwise(tanh, A * x)
    t = jvp(F, x, v)
    c = vjp(F, x, u)
    assert t.shape == (3, 1) and c.shape == (2, 1)
    at = point([A, x, v, u])
    Fe, Ws, wvals = _explicit_jacobian(F, x, at)
    J = Fe.jacobian(list(Ws)).xreplace(wvals)
    assert (value(t, at) - (J * at[v]).evalf(40)).norm() < 1e-30
    assert (value(c, at) - (J.T * at[u]).evalf(40)).norm() < 1e-30
    Jm = jacobian(F, x)
    for i in range(3):
        for j in range(2):
            assert abs(value(Jm[i, 0, j, 0], at) - J[i, j].evalf(40)) < 1e-30


def test_jacobian_and_hessian_shapes_are_jax_shapes():
    F = symgrad.elementwise(tanh, A * x)
    assert jacobian(F, x).shape == (3, 1, 2, 1)  # out.shape + wrt.shape
    assert jacobian(F, A).shape == (3, 1, 3, 2)
    L = symgrad.norm(A * x) ** 2
    assert jacobian(L, x) == grad(L, x)  # a scalar output: the gradient's shape
    H = hessian(L, x)
    assert H.shape == (2, 1, 2, 1)
    at = point([A, x])
    Ae = at[A]
    want = 2 * Ae.T * Ae
    for i in range(2):
        for j in range(2):
            assert abs(value(H[i, 0, j, 0], {A: Ae}) - want[i, j]) < 1e-25


def test_jacobian_entries_by_unit_cotangents_are_readable():
    # each entry was MatrixElement of the product with a unit matrix:
    # (Matrix([[1], [0], [0]])*x.T)[0, 1] for x[1, 0]
    from sympy import Array, MatrixBase, S
    from sympy.matrices.expressions.matexpr import MatrixElement

    from symgrad.graph import postorder
    from symgrad.matrices.nodes import Softmax

    J = jacobian(A * x, A)
    assert J == Array([[[[x[0, 0], x[1, 0]], [0, 0], [0, 0]]],
                       [[[0, 0], [x[0, 0], x[1, 0]], [0, 0]]],
                       [[[0, 0], [0, 0], [x[0, 0], x[1, 0]]]]])
    z = MatrixSymbol("z", 3, 1)
    Js = jacobian(symgrad.softmax(z), z)
    s = [MatrixElement(Softmax(z), k, 0) for k in range(3)]
    for i in range(3):
        for j in range(3):
            assert (Js[i, 0, j, 0] - (s[i] * ((i == j) * S.One - s[j]))).expand() == 0
    F = symgrad.elementwise(tanh, A * x)
    for e in [*jacobian(F, x), *hessian(symgrad.norm(A * x) ** 2, x)]:  # small formulas
        assert not any(isinstance(n, MatrixBase) for n in postorder([e], lambda n: n.args)[0])
    at = point([A, x])
    Fe, Ws, wvals = _explicit_jacobian(F, x, at)
    Je = Fe.jacobian(list(Ws)).xreplace(wvals)
    Jm = jacobian(F, x)
    for i in range(3):
        for j in range(2):
            assert abs(value(Jm[i, 0, j, 0], at) - Je[i, j].evalf(40)) < 1e-30


def test_jacobian_by_a_scalar_is_one_forward_pass_with_readable_entries():
    """∂F/∂s for a matrix F and a scalar s has F's shape (JAX's); its
    entries are the tangent's entries (A[0, 1], not sum(E_01 ⊙ A))."""
    from sympy import Symbol, sin

    s = Symbol("s", real=True)
    B = MatrixSymbol("B", 3, 2)
    J = jacobian(A * s, s)
    assert J == Matrix(3, 2, lambda i, j: A[i, j])
    F = symgrad.elementwise(tanh, A * sin(s) + B * s**2)
    Jf = jacobian(F, s)
    assert Jf.shape == (3, 2)
    at = point([A, B])
    sv = 0.3
    Fe = value(F, {**at, s: s}, prec=50)  # entries as formulas of s
    for i in range(3):
        for j in range(2):
            want = Fe[i, j].diff(s).subs(s, sv).evalf(40)
            assert abs(value(Jf[i, j], {**at, s: sv}) - want) < 1e-30
    assert jvp(A, s, 1) == ZeroMatrix(3, 2)  # A does not depend on s


def test_tangent_of_the_wrong_shape_is_refused():
    with pytest.raises(ShapeError, match="tangents"):
        jvp(symgrad.sum(A * x), x, u)


def test_stop_gradient_of_a_matrix():
    W = MatrixSymbol("W", 2, 2)
    sg = symgrad.stop_gradient(W)
    assert sg.shape == (2, 2)
    assert grad(symgrad.sum(hadamard_product(W, sg)), W).dummy_eq(sg)
    assert grad(symgrad.sum(sg), W) == ZeroMatrix(2, 2)


def test_straight_through_floor_on_a_quantized_weight_matrix():
    W = MatrixSymbol("W", 2, 2)
    Wq = symgrad.elementwise(floor, 8 * W) / 8
    loss = symgrad.norm(Wq * v) ** 2
    assert grad(loss, W) == ZeroMatrix(2, 2)
    with symgrad.gradient_override_map({"floor": "Identity"}):
        g = grad(loss, W)
    assert g == 2 * Wq * v * v.T  # the gradient as if Wq were W


def test_custom_gradient_function_applied_entrywise():
    from sympy import exp, log

    @symgrad.custom_gradient
    def softplus(t):
        return log(1 + exp(t)), lambda dy: dy / (1 + exp(-t))

    W = MatrixSymbol("W", 2, 2)
    g = grad(symgrad.sum(symgrad.elementwise(softplus, W)), W)
    at = point([W])
    want = Matrix(2, 2, lambda i, j: 1 / (1 + exp(-at[W][i, j]))).evalf(30)
    assert (value(g, at) - want).norm() < 1e-25


def test_program_prints_a_gradient_as_named_matrix_statements():
    from sympy import OneMatrix

    n = 4
    X, Y = MatrixSymbol("X", n, 3), MatrixSymbol("Y", n, 2)
    W1, b1 = MatrixSymbol("W1", 3, 5), MatrixSymbol("b1", 1, 5)
    W2 = MatrixSymbol("W2", 5, 2)
    H = symgrad.elementwise(tanh, X * W1 + OneMatrix(n, 1) * b1)
    Z = H * W2
    loss = symgrad.mean(symgrad.logsumexp(Z, axis=1)) - symgrad.sum(hadamard_product(Y, Z)) / n
    p = symgrad.program(grad(loss, [W1, b1, W2]), names=["dW1", "db1", "dW2"])
    text = str(p)
    assert len(p) <= 8
    assert "tanh(X*W1 + 𝟙*b1)" in text and "softmax(" in text and " ⊙ " in text
    assert "W2.T" in text and "X.T" in text
    assert "⊙" in p.unicode() and r"\odot" in p.latex() and r"\operatorname{softmax}" in p.latex()
    assert latex(symgrad.softmax(Z, axis=1)).startswith(r"\operatorname{softmax}")


def test_jvp_through_entries_sympy_expanded():
    # forward mode seeded the matrix symbol only, not its entries one by one:
    # jvp of ((A*x - b).T*(A*x - b))[0, 0] (expanded by SymPy) was 0
    b = MatrixSymbol("b", 3, 1)
    r = A * x - b
    at = point([A, x, b, v])
    for e in ((r.T * r)[0, 0], (A * x)[0, 0] + 3 * (A * x)[2, 0], x[0, 0] * x[1, 0]):
        t = jvp(e, x, v)
        Fe, Ws, wvals = _explicit_jacobian(e, x, at)
        want = (Matrix([Fe]).jacobian(list(Ws)).xreplace(wvals) * at[v])[0, 0]
        assert abs(value(t, at) - want.evalf(40)) < 1e-30, e


def test_entries_of_symbolic_shapes_are_refused_not_zero():
    # (v.T*W*v)[0, 0] with W n×n is a Sum over W[i, j] at symbolic indices:
    # its gradient and its jvp were silently 0
    from sympy import Symbol

    n = Symbol("n", integer=True, positive=True)
    W, w = MatrixSymbol("W", n, n), MatrixSymbol("w", n, 1)
    e = (w.T * W * w)[0, 0]
    for call in (lambda: grad(e, W), lambda: jvp(e, W, MatrixSymbol("T", n, n)),
                 lambda: grad(W[0, 0] * W[1, 1], W)):
        with pytest.raises(symgrad.SymgradError, match="numeric dimensions"):
            call()
    assert grad(symgrad.sum(W * w), W).shape == (n, n)  # the matrix form works
