"""A two-layer MLP (explicit Matrices of parameter symbols: 2 inputs, 4 tanh
units, 1 output, squared error) trained a few steps of gradient descent in
JAX and in PyTorch with the exported gradient: the same steps as with
symgrad's NumPy gradient."""

import numpy as np
import pytest
import sympy as sp

import symgrad

from ..backends import jax, jnp, torch

W1 = sp.Matrix(2, 4, lambda i, j: sp.Symbol(f"w1_{i}{j}", real=True))
B1 = sp.Matrix(1, 4, lambda i, j: sp.Symbol(f"b1_{j}", real=True))
W2 = sp.Matrix(4, 1, lambda i, j: sp.Symbol(f"w2_{i}", real=True))
B2 = sp.Symbol("b2", real=True)
U = sp.Matrix(1, 2, sp.symbols("u0 u1", real=True))
V = sp.Symbol("v", real=True)
H = (U * W1 + B1).applyfunc(sp.tanh)
LOSS = ((H * W2)[0, 0] + B2 - V) ** 2  # one sample; the batch broadcasts
PARAMS = [W1, B1, W2, B2]
ARGS = [*PARAMS, U, V]
STEPS, RATE = 5, 0.1


def _data():
    rng = np.random.default_rng(1)
    u = rng.normal(size=(1, 2, 32))  # leading axes: U's shape, then the batch
    v = np.sin(u[0, 0]) * u[0, 1]
    p0 = [rng.normal(size=(2, 4)) * 0.5, np.zeros((1, 4)), rng.normal(size=(4, 1)) * 0.5, 0.0]
    return u, v, p0


def _numpy_steps():
    u, v, p = _data()
    flat_syms = [s for P in PARAMS for s in (P if isinstance(P, sp.Matrix) else [P])]
    arg_syms = [*flat_syms, *U, V]
    g = symgrad.lambdify(arg_syms, symgrad.grad(LOSS, flat_syms))
    shapes = [np.shape(q) for q in p]
    for _ in range(STEPS):
        flat = [a for q in p for a in np.ravel(q)]
        grads = [np.mean(gi) for gi in g(*flat, u[0, 0], u[0, 1], v)]
        out, k = [], 0
        for q, shp in zip(p, shapes):
            n = int(np.prod(shp))
            out.append(np.asarray(q) - RATE * np.reshape(grads[k:k + n], shp))
            k += n
        p = out
    return p


def test_mlp_gradient_descent_jax_matches_numpy():
    want = _numpy_steps()
    u, v, p = _data()
    f = symgrad.to_jax(LOSS, ARGS)
    with jax.enable_x64():
        step = jax.jit(jax.grad(lambda ps: f(*ps, u, v).mean()))
        ps = [jnp.asarray(q) for q in p]
        for _ in range(STEPS):
            ps = [q - RATE * g for q, g in zip(ps, step(ps))]
        for got, w in zip(ps, want):
            np.testing.assert_allclose(np.asarray(got), w, rtol=1e-12, atol=1e-14)


def test_mlp_gradient_descent_torch_matches_numpy():
    want = _numpy_steps()
    u, v, p = _data()
    f = symgrad.to_torch(LOSS, ARGS)
    ps = [torch.tensor(np.asarray(q, dtype=np.float64), requires_grad=True) for q in p]
    tu, tv = torch.tensor(u), torch.tensor(v)
    for _ in range(STEPS):
        f(*ps, tu, tv).mean().backward()
        with torch.no_grad():
            for q in ps:
                q -= RATE * q.grad
                q.grad = None
    for got, w in zip(ps, want):
        np.testing.assert_allclose(got.detach().numpy(), w, rtol=1e-12, atol=1e-14)


def _matrix_mlp(n: int):
    """The two-layer MLP of the matrices guide: a loss over MatrixSymbols."""
    X, Y = sp.MatrixSymbol("X", n, 3), sp.MatrixSymbol("Y", n, 2)
    W1, b1 = sp.MatrixSymbol("W1", 3, 4), sp.MatrixSymbol("b1", 1, 4)
    W2, b2 = sp.MatrixSymbol("W2", 4, 2), sp.MatrixSymbol("b2", 1, 2)
    H = symgrad.elementwise(sp.tanh, X * W1 + sp.OneMatrix(n, 1) * b1)
    Z = H * W2 + sp.OneMatrix(n, 1) * b2
    loss = symgrad.mean(symgrad.logsumexp(Z, axis=1)) - symgrad.sum(sp.hadamard_product(Y, Z)) / n
    return loss, [W1, b1, W2, b2], [X, Y]


def _jnp_loss(w1, b1, w2, b2, x, y):
    z = jnp.tanh(x @ w1 + b1) @ w2 + b2
    return jnp.mean(jax.nn.logsumexp(z, axis=1)) - jnp.sum(y * z) / len(x)


def _torch_loss(w1, b1, w2, b2, x, y):
    z = torch.tanh(x @ w1 + b1) @ w2 + b2
    return torch.logsumexp(z, 1).mean() - (y * z).sum() / len(x)


def test_matrix_mlp_gradient_descent_jax_matches_numpy():
    n = 16
    loss, params, data = _matrix_mlp(n)
    g_np = symgrad.lambdify([*params, *data], list(symgrad.grad(loss, params)))
    f = symgrad.to_jax(loss, [*params, *data])
    rng = np.random.default_rng(0)
    p = [rng.normal(size=(3, 4)) * 0.5, np.zeros((1, 4)), rng.normal(size=(4, 2)) * 0.5,
         np.zeros((1, 2))]
    xs, ys = rng.normal(size=(n, 3)), np.eye(2)[rng.integers(0, 2, n)]
    with jax.enable_x64():
        step = jax.jit(jax.grad(lambda ps: f(*ps, xs, ys)))
        pj, pn = [jnp.asarray(q) for q in p], list(p)
        for _ in range(STEPS):
            pj = [q - RATE * g for q, g in zip(pj, step(pj))]
            pn = [q - RATE * g for q, g in zip(pn, g_np(*pn, xs, ys))]
        for a, b in zip(pj, pn):
            np.testing.assert_allclose(np.asarray(a), b, rtol=1e-12, atol=1e-15)
        # the Hessian is symgrad's Hessian-vector formula (the gradient's JVP), equal to
        # JAX's own Hessian of the same loss written in jax.numpy
        h = jax.jit(jax.hessian(lambda w: f(w, *p[1:], xs, ys)))(jnp.asarray(p[0]))
        np.testing.assert_allclose(np.asarray(h), np.asarray(jax.jit(jax.hessian(
            lambda w: _jnp_loss(w, *p[1:], xs, ys)))(jnp.asarray(p[0]))), rtol=1e-10, atol=1e-13)


def test_matrix_mlp_gradient_descent_torch_matches_numpy():
    n = 16
    loss, params, data = _matrix_mlp(n)
    g_np = symgrad.lambdify([*params, *data], list(symgrad.grad(loss, params)))
    f = symgrad.to_torch(loss, [*params, *data])
    rng = np.random.default_rng(0)
    p = [rng.normal(size=(3, 4)) * 0.5, np.zeros((1, 4)), rng.normal(size=(4, 2)) * 0.5,
         np.zeros((1, 2))]
    xs, ys = rng.normal(size=(n, 3)), np.eye(2)[rng.integers(0, 2, n)]
    pt = [torch.tensor(q, requires_grad=True) for q in p]
    tx, ty = torch.tensor(xs), torch.tensor(ys)
    pn = list(p)
    for _ in range(STEPS):
        f(*pt, tx, ty).backward()
        with torch.no_grad():
            for q in pt:
                q -= RATE * q.grad
                q.grad = None
        pn = [q - RATE * g for q, g in zip(pn, g_np(*pn, xs, ys))]
    for a, b in zip(pt, pn):
        np.testing.assert_allclose(a.detach().numpy(), b, rtol=1e-12, atol=1e-15)
    # double backward: symgrad's vector-Jacobian product of its gradient, equal to
    # PyTorch's own of the same loss written in torch
    (g,) = torch.autograd.grad(f(*pt, tx, ty), pt[0], create_graph=True)
    (hv,) = torch.autograd.grad((g**2).sum(), pt[2])
    (g_own,) = torch.autograd.grad(_torch_loss(*pt, tx, ty), pt[0], create_graph=True)
    (hv_own,) = torch.autograd.grad((g_own**2).sum(), pt[2])
    np.testing.assert_allclose(hv.numpy(), hv_own.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("export", ["to_jax", "to_torch"])
def test_matrix_formulas_not_exported_are_clear_errors(export):
    # stabilize=True of a matrix formula: refused before any code is built, the
    # message naming what to do
    W, X = sp.MatrixSymbol("W", 2, 2), sp.MatrixSymbol("X", 3, 2)
    with pytest.raises(symgrad.SymgradError, match=r"stabilize=True\) of a MatrixSymbol"):
        getattr(symgrad, export)(symgrad.sum(X * W), [W, X], stabilize=True)
