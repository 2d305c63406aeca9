"""custom_gradient over whole matrices: the function takes matrix formulas,
returns a matrix formula (or a scalar), and its grad_fn gets the output's
cotangent as a matrix and returns one matrix per argument."""

from __future__ import annotations

import numpy as np
import pytest
from sympy import (
    Determinant,
    Identity,
    MatrixSymbol,
    OneMatrix,
    Symbol,
    ZeroMatrix,
    floor,
    hadamard_product,
    log,
    tanh,
)

import symgrad
from symgrad import grad
from symgrad.errors import RuleError, SymgradError

from ..matrices.oracle import check_grad

W, x = MatrixSymbol("W", 3, 2), MatrixSymbol("x", 2, 1)
A = MatrixSymbol("A", 2, 2)
calls = []


@symgrad.custom_gradient
def matvec(W, x):
    def grad_fn(g):
        calls.append(g.shape)
        return g * x.T, W.T * g
    return W * x, grad_fn


@symgrad.custom_gradient
def logdet(A):
    return log(Determinant(A)), lambda g: g * A.I.T


def test_matrix_in_matrix_out_matches_the_entry_by_entry_gradient():
    loss = symgrad.sum(symgrad.elementwise(tanh, matvec(W, x))) + symgrad.norm(W) ** 2
    calls.clear()
    gW, gx = grad(loss, [W, x])
    assert calls == [(3, 1)]  # once, with the whole (3, 1) cotangent
    assert gW.shape == (3, 2) and gx.shape == (2, 1) and "matvec(W, x)" in str(gW)
    check_grad(loss, gW, W, [W, x], seed=1)
    check_grad(loss, gx, x, [W, x], seed=2)


def test_scalar_output_and_numpy_code():
    B = A + 3 * Identity(2)
    loss = 2 * logdet(B)
    g = grad(loss, A)
    check_grad(loss, g, A, [A], seed=3)
    f = symgrad.lambdify([A], [loss, g])
    a = np.array([[0.5, 0.2], [-0.1, 0.3]])
    val, gv = f(a)
    b = a + 3 * np.eye(2)
    np.testing.assert_allclose(val, 2 * np.log(np.linalg.det(b)), rtol=1e-14)
    np.testing.assert_allclose(gv, 2 * np.linalg.inv(b).T, rtol=1e-14)


def test_straight_through_quantizer_on_a_weight_matrix():
    @symgrad.custom_gradient
    def quantize(M):
        return symgrad.elementwise(floor, 8 * M) / 8, lambda g: g
    v = MatrixSymbol("v", 2, 1)
    g = grad(symgrad.norm(quantize(W) * v) ** 2, W)
    assert g == 2 * quantize(W) * v * v.T


def test_a_grad_fn_is_what_the_gradient_uses():
    @symgrad.custom_gradient
    def doubled(M):
        return M, lambda g: 2 * g
    assert grad(symgrad.sum(doubled(W)), W) == grad(2 * symgrad.sum(W), W)


def test_clear_errors():
    @symgrad.custom_gradient
    def bad_shape(M):
        return M, lambda g: g.T
    with pytest.raises(RuleError, match="shape"):
        grad(symgrad.sum(bad_shape(W)), W)

    @symgrad.custom_gradient
    def captures(M):
        return M * x, lambda g: g * x.T
    with pytest.raises(SymgradError, match="x, which is not one of its arguments"):
        captures(W)


@symgrad.custom_vjp
def vmatvec(W, x):
    return W * x


vmatvec.defvjp(lambda W, x: (vmatvec(W, x), (W, x)), lambda res, g: (g * res[1].T, res[0].T * g))


@symgrad.custom_jvp
def jmatvec(W, x):
    return W * x


jmatvec.defjvps(lambda g, ans, W, x: g * x, lambda g, ans, W, x: W * g)


@symgrad.custom_jvp
def jlogdet(A):
    return log(Determinant(A))


@jlogdet.defjvp
def _jlogdet_jvp(primals, tangents):
    (M,), (T,) = primals, tangents
    return jlogdet(M), symgrad.sum(hadamard_product(M.I.T, T))


@pytest.mark.parametrize("f", [vmatvec, jmatvec, matvec], ids=["custom_vjp", "defjvps", "cg"])
def test_custom_vjp_and_jvp_over_matrices_both_modes(f):
    # a VJP rule serves forward mode and a JVP rule reverse mode, by transposing
    # the linear rule with symgrad's own reverse/forward mode over it
    loss = symgrad.sum(symgrad.elementwise(tanh, f(W, x)))
    gW, gx = grad(loss, [W, x])
    check_grad(loss, gW, W, [W, x], seed=4)
    check_grad(loss, gx, x, [W, x], seed=5)
    T = MatrixSymbol("T", 3, 2)
    assert symgrad.jvp(f(W, x), W, T) == T * x  # forward mode, zero tangent of x folded


def test_custom_jvp_of_a_scalar_over_a_matrix():
    B = A + 3 * Identity(2)
    loss = 2 * jlogdet(B)
    check_grad(loss, grad(loss, A), A, [A], seed=6)
    assert str(grad(jlogdet(A), A)) == "A.T**(-1)"


def test_a_rule_that_is_not_linear_is_refused_in_the_other_mode():
    @symgrad.custom_jvp
    def sq(M):
        return hadamard_product(M, M)
    sq.defjvps(lambda g, ans, M: hadamard_product(g, g))  # not linear in g
    with pytest.raises(RuleError, match="not linear"):
        grad(symgrad.sum(sq(W)), W)


def test_pytree_arguments_holding_matrices():
    # a dict of matrix symbols was taken entry by entry: f({'W': W, 'x': x})
    # came back a scalar node for a 3x1 product
    s = Symbol("s")

    @symgrad.custom_gradient
    def f(p, c):
        def grad_fn(g):
            return ({"W": c * g * p["x"].T, "x": c * p["W"].T * g},
                    symgrad.sum(hadamard_product(g, p["W"] * p["x"])))
        return c * p["W"] * p["x"], grad_fn

    y = f({"W": W, "x": x}, s)
    assert y.shape == (3, 1)
    loss = symgrad.sum(symgrad.elementwise(tanh, y))
    g = grad(loss, {"W": W, "x": x, "s": s})
    assert set(g) == {"W", "x", "s"} and g["W"].shape == (3, 2)
    check_grad(loss.xreplace({s: 2}), g["W"].xreplace({s: 2}), W, [W, x], seed=7)
    check_grad(loss.xreplace({s: 2}), g["x"].xreplace({s: 2}), x, [W, x], seed=8)

    @symgrad.custom_jvp
    def h(p):
        return p[0] * p[1]
    h.defjvps(lambda t, ans, p: t[0] * p[1] + p[0] * t[1])
    loss = symgrad.sum(symgrad.elementwise(tanh, h((W, x))))
    gW, gx = grad(loss, [W, x])
    check_grad(loss, gW, W, [W, x], seed=9)


# ---- nondiff_argnums and several outputs over matrices ----------------------------

def test_custom_vjp_nondiff_argnums_over_matrices():
    def kmatvec(k, W, x):  # k: a Python int, not differentiated
        return k * W * x

    f = symgrad.custom_vjp(kmatvec, nondiff_argnums=(0,))
    f.defvjp(lambda k, W, x: (f(k, W, x), (W, x)),
             lambda k, res, g: (k * g * res[1].T, k * res[0].T * g))
    for k in (2, 3):  # one trace per nondiff value
        loss = symgrad.sum(symgrad.elementwise(tanh, f(k, W, x)))
        gW, gx = grad(loss, [W, x])
        check_grad(loss, gW, W, [W, x], seed=10 + k)
        check_grad(loss, gx, x, [W, x], seed=20 + k)
    T = MatrixSymbol("T", 3, 2)
    assert symgrad.jvp(f(3, W, x), W, T) == 3 * T * x  # forward mode from bwd


def test_custom_jvp_nondiff_argnums_over_matrices():
    def scaled_logdet(c, M):
        return c * log(Determinant(M))

    f = symgrad.custom_jvp(scaled_logdet, nondiff_argnums=(0,))

    @f.defjvp
    def _(c, primals, tangents):  # nondiff arguments first, as in JAX
        (M,), (T,) = primals, tangents
        return f(c, M), c * symgrad.sum(hadamard_product(M.I.T, T))

    B = A + 3 * Identity(2)
    loss = f(5, B)
    g = grad(loss, A)
    check_grad(loss, g, A, [A], seed=30)
    assert grad(f(5, A), A) == 5 * A.I.T


@symgrad.custom_vjp
def split(W, x):  # two outputs: a matrix and a scalar
    return W * x, symgrad.sum(W)


split.defvjp(lambda W, x: (split(W, x), (W, x)),
             lambda res, g: (g[0] * res[1].T + g[1] * OneMatrix(3, 2), res[0].T * g[0]))


def test_several_outputs_custom_vjp_both_modes():
    y, s = split(W, x)
    assert y.shape == (3, 1) and not getattr(s, "is_Matrix", False)
    loss = symgrad.sum(symgrad.elementwise(tanh, y)) + s**2
    gW, gx = grad(loss, [W, x])
    check_grad(loss, gW, W, [W, x], seed=31)
    check_grad(loss, gx, x, [W, x], seed=32)
    T = MatrixSymbol("T", 3, 2)
    ty, ts = symgrad.jvp(list(split(W, x)), W, T)
    assert ty == T * x and ts == symgrad.sum(T)


def test_several_outputs_custom_gradient_and_jvp_and_code():
    @symgrad.custom_gradient
    def both(W, x):  # grad_fn(*dys): one cotangent per output, as TensorFlow
        return (W * x, W.T), lambda gy, gt: (gy * x.T + gt.T, W.T * gy)

    @symgrad.custom_jvp
    def jboth(W, x):
        return {"y": W * x, "t": W.T}
    jboth.defjvps(lambda g, ans, W, x: {"y": g * x, "t": g.T},
                  lambda g, ans, W, x: {"y": W * g, "t": ZeroMatrix(2, 3)})

    for f in (both, jboth):
        out = f(W, x)
        y, t = (out["y"], out["t"]) if isinstance(out, dict) else out
        loss = symgrad.sum(symgrad.elementwise(tanh, y)) + symgrad.norm(t * y) ** 2
        gW, gx = grad(loss, [W, x])
        check_grad(loss, gW, W, [W, x], seed=33)
        check_grad(loss, gx, x, [W, x], seed=34)
        fn = symgrad.lambdify([W, x], [y, t * y, gW])
        rng = np.random.default_rng(0)  # code: the forward formulas
        Wv, xv = rng.normal(size=(3, 2)), rng.normal(size=(2, 1))
        yv, tyv, _ = fn(Wv, xv)
        np.testing.assert_allclose(yv, Wv @ xv, rtol=1e-14)
        np.testing.assert_allclose(tyv, Wv.T @ Wv @ xv, rtol=1e-13)
    assert symgrad.vjp(list(both(W, x)), x, [MatrixSymbol("g", 3, 1), ZeroMatrix(2, 3)]) \
        == W.T * MatrixSymbol("g", 3, 1)


def test_several_outputs_rule_of_the_wrong_structure_is_named():
    @symgrad.custom_jvp
    def two(W):
        return W, 2 * W
    two.defjvps(lambda g, ans, W: g)  # one tangent for two outputs
    with pytest.raises(RuleError, match="defjvps"):
        grad(symgrad.sum(two(W)[1]), W)
