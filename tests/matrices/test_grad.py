"""grad with respect to matrix symbols, by reverse mode over the matrix DAG."""

from __future__ import annotations

import numpy as np
import pytest
from sympy import (
    HadamardProduct,
    MatMul,
    MatrixSymbol,
    OneMatrix,
    Trace,
    Transpose,
    ZeroMatrix,
    exp,
    hadamard_product,
    tanh,
)
from sympy.matrices.expressions.matexpr import MatrixElement

import symgrad
from symgrad import grad
from symgrad.matrices import Softmax

from .oracle import check_grad

A = MatrixSymbol("A", 4, 3)
x = MatrixSymbol("x", 3, 1)
b = MatrixSymbol("b", 4, 1)
z = MatrixSymbol("z", 5, 1)
y = MatrixSymbol("y", 5, 1)


def test_least_squares_is_the_textbook_formula():
    r = A * x - b
    for loss in (symgrad.norm(r) ** 2, symgrad.sum(r.applyfunc(lambda t: t**2)),
                 MatrixElement(r.T * r, 0, 0), r.T * r):
        g = grad(loss, x)
        assert g == 2 * A.T * (A * x - b)
        check_grad(loss, g, x, [A, x, b])


def test_least_squares_wrt_A():
    r = A * x - b
    loss = symgrad.norm(r) ** 2
    gA, gx = grad(loss, [A, x])
    assert gA == MatMul(2, A * x - b, x.T)
    check_grad(loss, gA, A, [A, x, b], seed=1)


def test_indexing_a_one_by_one_product_is_rolled_back():
    # SymPy expands (r.T*r)[0, 0] into a sum over the entries before symgrad
    # sees it; the expansion is rolled back (and kept only if SymPy's own
    # expansion of the result is the formula given), so the gradient is the
    # matrix formula again, not an explicit matrix of sums
    from sympy import Matrix, MatrixBase

    r = A * x - b
    loss = (r.T * r)[0, 0]
    assert grad(loss, x) == 2 * A.T * (A * x - b)
    assert grad(loss, A) == MatMul(2, A * x - b, x.T)
    check_grad(loss, grad(loss, x), x, [A, x, b])
    S = MatrixSymbol("S", 3, 3)
    quad = (x.T * S * x)[0, 0]
    assert grad(quad, [x, S]) == [S * x + S.T * x, x * x.T]
    check_grad(quad, grad(quad, S), S, [S, x], seed=2)
    part = (A * x)[0, 0] + 3 * (A * x)[2, 0]  # no matrix formula: entries, still right
    check_grad(part, grad(part, x), x, [A, x], seed=3)
    odd = sum(v**2 for v in Matrix(b)[:3]) + b[3, 0] ** 3  # different functions: no roll
    assert isinstance(grad(odd, b), MatrixBase)
    check_grad(odd, grad(odd, b), b, [b], seed=4)


def test_softmax_cross_entropy_is_softmax_minus_y():
    for loss in (symgrad.logsumexp(z) - (y.T * z)[0, 0],
                 symgrad.logsumexp(z) - symgrad.sum(hadamard_product(y, z))):
        g = grad(loss, z)
        assert g == Softmax(z) - y
        check_grad(loss, g, z, [z, y])


def test_cross_entropy_through_log_softmax():
    loss = -symgrad.sum(hadamard_product(y, symgrad.log_softmax(z)))
    g = grad(loss, z)
    assert g == symgrad.sum(y) * Softmax(z) - y  # softmax(z) - y when sum(y) = 1
    check_grad(loss, g, z, [z, y])


def _mlp(n=2, d=3, h=2, k=2):
    X = MatrixSymbol("X", n, d)
    Y = MatrixSymbol("Y", n, k)
    W1, b1 = MatrixSymbol("W1", d, h), MatrixSymbol("b1", 1, h)
    W2, b2 = MatrixSymbol("W2", h, k), MatrixSymbol("b2", 1, k)
    H = symgrad.elementwise(tanh, X * W1 + OneMatrix(n, 1) * b1)
    Z = H * W2 + OneMatrix(n, 1) * b2
    loss = symgrad.mean(symgrad.logsumexp(Z, axis=1)) - symgrad.sum(hadamard_product(Y, Z)) / n
    return loss, (W1, b1, W2, b2), [X, Y, W1, b1, W2, b2], H, Z


def test_two_layer_mlp_backprop_formulas():
    loss, params, mats, H, Z = _mlp()
    gW1, gb1, gW2, gb2 = grad(loss, list(params))
    assert [g.shape for g in (gW1, gb1, gW2, gb2)] == [p.shape for p in params]
    assert Transpose(H) in MatMul.make_args(gW2)  # Hᵀ·δ, H shared with the loss


@pytest.mark.parametrize("k", range(4))
def test_two_layer_mlp_backprop_values(k):
    loss, params, mats, H, Z = _mlp()
    g = grad(loss, params[k])
    check_grad(loss, g, params[k], mats, seed=k, via="grad")


def test_dict_of_matrices_and_unconnected():
    loss = symgrad.sum(hadamard_product(z, z))
    out = grad(loss, {"z": z, "y": y})
    assert out["z"] == 2 * z and out["y"] == ZeroMatrix(5, 1)
    assert grad(loss, [y], unconnected="none") == [None]


def test_trace_transpose_hadamard_and_scalar_factor():
    W = MatrixSymbol("W", 2, 2)
    V = MatrixSymbol("V", 2, 2)
    mats = [W, V]
    cases = [
        Trace(W * V * W.T),
        symgrad.sum(HadamardProduct(W, V.T, W)),
        symgrad.sum(W) * symgrad.sum(W * V),  # a scalar factor that depends on W
        symgrad.sum(MatMul(Trace(W), W)),
        Trace(symgrad.softmax(W, axis=0) * V),
        Trace(symgrad.log_softmax(W, axis=1) * V),
        Trace(symgrad.logsumexp(W, axis=0).T * symgrad.logsumexp(V, axis=1).T),
        symgrad.norm(W * V) + symgrad.sum(symgrad.softmax(W) .T * V),
        symgrad.sum(W.applyfunc(exp) * V),
    ]
    for k, loss in enumerate(cases):
        check_grad(loss, grad(loss, W), W, mats, seed=k, via="diff" if k < 4 else "grad")


def test_elementwise_overrides_reach_matrix_entries():
    from sympy import floor
    W = MatrixSymbol("W", 2, 2)
    v = MatrixSymbol("v", 2, 1)
    loss = symgrad.sum(symgrad.elementwise(floor, W) * v)
    assert grad(loss, W) == ZeroMatrix(2, 2) or grad(loss, W).doit() == ZeroMatrix(2, 2)
    with symgrad.gradient_override_map({"floor": "Identity"}):
        g = grad(loss, W)
    assert g == OneMatrix(2, 1) * v.T or g.as_explicit() == (OneMatrix(2, 1) * v.T).as_explicit()


def test_derivative_equal_to_the_function_is_the_node_itself():
    # exp' = exp was written (w ↦ w)(exp(W*v)); now the node, scaled
    W, v = MatrixSymbol("W", 2, 2), MatrixSymbol("v", 2, 1)
    E = symgrad.elementwise(exp, W * v)
    assert grad(symgrad.sum(E), W) == MatMul(E, v.T)
    E3 = symgrad.elementwise(lambda t: 3 * exp(2 * t), W * v)
    loss = symgrad.sum(E3)
    assert grad(loss, W) == MatMul(2, E3, v.T)
    check_grad(loss, grad(loss, W), W, [W, v], seed=7)


def test_norm_along_an_axis_differentiates_and_is_scaled():
    # norm(X, axis) was sqrt(sum(X∘², axis)) entry by entry: inf at 1e200,
    # 0 at 1e-200, where the docs promised the scaled form of norm(X)
    import numpy as np

    W, V = MatrixSymbol("W", 2, 3), MatrixSymbol("V", 3, 2)
    for ax in (0, 1):
        loss = symgrad.sum(hadamard_product(symgrad.norm(W, axis=ax), symgrad.sum(V, axis=1).T
                                            if ax == 0 else symgrad.sum(V, axis=0).T))
        check_grad(loss, grad(loss, W), W, [W, V], seed=8 + ax, via="grad")
        f = symgrad.lambdify([W], symgrad.norm(W, axis=ax))
        for scale in (1e200, 1e-200):
            got = f(np.full((2, 3), scale)).ravel()
            np.testing.assert_allclose(got, np.sqrt(2 + ax) * scale, rtol=1e-15)
    z3 = MatrixSymbol("z", 3, 1)
    r = symgrad.check_stability(symgrad.norm(z3), {z3: (-1e300, 1e300)}, samples=16)
    assert r.ok  # the scaled form is what is measured (it reported overflow: 64 bits)


def test_matrix_loss_must_be_one_by_one():
    with pytest.raises(symgrad.SymgradError, match="2×1 matrix"):
        grad(A[:2, :1] + b[:2, :1], x)


def test_matrix_power_and_elementwise_parameters():
    from sympy import Rational, Symbol

    W = MatrixSymbol("W", 2, 2)
    V = MatrixSymbol("V", 2, 2)
    loss = Trace(W * W * W * V)  # SymPy writes W*W*W as the power W**3
    check_grad(loss, grad(loss, W), W, [W, V], seed=5, via="grad")
    a = Symbol("a", real=True)
    scaled = symgrad.sum(hadamard_product(W.applyfunc(lambda t: a * t**2), V))
    ga, gW = grad(scaled, [a, W])  # a slope inside f: a gradient reaches it
    at = {a: Rational(3, 4)}
    check_grad(scaled.xreplace(at), gW.xreplace(at), W, [W, V], seed=6, via="grad")
    assert ga.dummy_eq(symgrad.sum(HadamardProduct(V, W.applyfunc(lambda t: t**2))))


def test_inverse_and_determinant_rules():
    # d A⁻¹ = -A⁻¹·dA·A⁻¹ and d det A = det(A)·tr(A⁻¹·dA), checked against the
    # entry-by-entry gradient and central differences at 50 digits
    from sympy import Determinant, Identity, Inverse, log

    A, v = MatrixSymbol("A", 2, 2), MatrixSymbol("v", 2, 1)
    B = A + 4 * Identity(2)  # well away from singular at the sample points
    cases = [symgrad.sum(v.T * Inverse(B) * v), log(Determinant(B) ** 2) * Trace(Inverse(B) * A)]
    for k, loss in enumerate(cases):
        check_grad(loss, grad(loss, A), A, [A, v], seed=20 + k, via="diff")
    assert grad(symgrad.sum(v.T * Inverse(A) * v), v).has(Inverse(A))  # a matrix formula
    assert str(grad(Determinant(A), A)) == "Determinant(A)*(A**(-1)).T"


def test_inverse_and_determinant_run_as_numpy():
    from sympy import Determinant, Inverse

    A, v = MatrixSymbol("A", 3, 3), MatrixSymbol("v", 3, 1)
    loss = symgrad.sum(v.T * Inverse(A) * v) + Determinant(A)
    f = symgrad.lambdify([A, v], [loss, grad(loss, A)])
    rng = np.random.default_rng(3)
    a, w = rng.normal(size=(2, 3, 3)) + 3 * np.eye(3), rng.normal(size=(2, 3, 1))
    val, g = f(a, w)
    inv = np.linalg.inv(a)
    want = -np.swapaxes(inv, -1, -2) @ w @ np.swapaxes(w, -1, -2) @ np.swapaxes(inv, -1, -2) \
        + np.linalg.det(a)[:, None, None] * np.swapaxes(inv, -1, -2)
    np.testing.assert_allclose(g, want, rtol=1e-12)
    np.testing.assert_allclose(val, (np.swapaxes(w, -1, -2) @ inv @ w)[:, 0, 0]
                               + np.linalg.det(a), rtol=1e-12)
