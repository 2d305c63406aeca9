"""Matrix formulas (MatrixSymbol arguments) exported beyond a loss's
gradient: matrix-valued outputs and their Jacobians, second derivatives,
several outputs.  Every order is symgrad's (a straight-through floor keeps
its identity derivative at the second order, where the framework's own
derivative of the emitted code would be 0), and equals the framework's own
autodiff of the same formula written by hand."""

import numpy as np
import pytest
import sympy as sp

import symgrad

from ..backends import jax, jnp, torch

N = 5
X = sp.MatrixSymbol("X", N, 3)
W1, b1 = sp.MatrixSymbol("W1", 3, 4), sp.MatrixSymbol("b1", 1, 4)
W2 = sp.MatrixSymbol("W2", 4, 2)
Z = symgrad.elementwise(sp.tanh, X * W1 + sp.OneMatrix(N, 1) * b1) * W2
ARGS = [W1, b1, W2, X]
RNG = np.random.default_rng(0)
VALS = [RNG.normal(size=(3, 4)), RNG.normal(size=(1, 4)), RNG.normal(size=(4, 2)),
        RNG.normal(size=(N, 3))]


def _z(lib, w1, b, w2, x):
    return lib.tanh(x @ w1 + b) @ w2


def test_matrix_valued_output_jax_jacobians_are_symgrads():
    f = symgrad.to_jax(Z, ARGS)
    with jax.enable_x64():
        np.testing.assert_allclose(np.asarray(f(*VALS)), symgrad.lambdify(ARGS, Z)(*VALS),
                                   rtol=1e-14)
        # (jitted: one compile each, where eager JAX dispatches every operation; an
        # eager jacrev of a matrix-valued output is in test_straight_through_floor_...)
        own = jax.jit(jax.jacrev(lambda w: _z(jnp, w, *VALS[1:])))(VALS[0])
        for jac in (jax.jacrev, jax.jacfwd):
            got = jax.jit(jac(f, 0))(*VALS)
            assert got.shape == (N, 2, 3, 4)
            np.testing.assert_allclose(np.asarray(got), np.asarray(own), rtol=1e-12, atol=1e-14)
        # second order of a matrix-valued output (the JVP's JVP), along W1 and along
        # W2 (Z is linear in W2: a level whose formulas are all 0)
        for k, d in ((0, RNG.normal(size=(3, 4))), (2, RNG.normal(size=(4, 2)))):
            def second(g, k=k, d=d):
                def first(w):
                    return jax.jvp(lambda u: g(*VALS[:k], u, *VALS[k + 1:]), (w,), (d,))[1]
                return jax.jit(lambda w: jax.jvp(first, (w,), (2 * d,))[1])(VALS[k])

            np.testing.assert_allclose(np.asarray(second(f)),
                                       np.asarray(second(lambda *v: _z(jnp, *v))), atol=1e-13)


def test_matrix_valued_output_torch_backward_and_double_backward_are_symgrads():
    f = symgrad.to_torch(Z, ARGS)
    ts = [torch.tensor(v, requires_grad=k < 3) for k, v in enumerate(VALS)]
    ct = torch.tensor(RNG.normal(size=(N, 2)))
    (g,) = torch.autograd.grad(f(*ts), ts[0], ct, create_graph=True)
    (g_own,) = torch.autograd.grad(_z(torch, *ts), ts[0], ct, create_graph=True)
    torch.testing.assert_close(g, g_own, rtol=1e-12, atol=1e-14)
    for k in (0, 1, 2):  # the VJP's own derivatives, by the next level
        (h,) = torch.autograd.grad((g**3).sum(), ts[k], retain_graph=True)
        (h_own,) = torch.autograd.grad((g_own**3).sum(), ts[k], retain_graph=True)
        torch.testing.assert_close(h, h_own, rtol=1e-11, atol=1e-13)
    # the VJP for W2 (tanh(...).T @ ct) is linear in W2: its own W2-derivative is a
    # level whose formulas are all 0
    (g2,) = torch.autograd.grad(f(*ts), ts[2], ct, create_graph=True)
    (g2_own,) = torch.autograd.grad(_z(torch, *ts), ts[2], ct, create_graph=True)
    for k in (0, 2):
        (h,) = torch.autograd.grad((g2**2).sum(), ts[k], retain_graph=True)
        (h_own,) = torch.autograd.grad((g2_own**2).sum(), ts[k], retain_graph=True,
                                       allow_unused=True)  # PyTorch's: no path to W2
        torch.testing.assert_close(h, torch.zeros_like(h) if h_own is None else h_own,
                                   rtol=1e-11, atol=1e-13)
    assert ts[3].grad is None  # data needs no gradient: none computed


def test_straight_through_floor_is_kept_at_the_second_order():
    W = sp.MatrixSymbol("W", 2, 3)
    F = symgrad.elementwise(sp.floor, W)
    w = np.array([[0.5, 1.5, -2.5], [3.2, 0.1, -0.7]])
    with symgrad.gradient_override_map({"Floor": "Identity"}):
        fj = symgrad.to_jax(symgrad.sum(sp.hadamard_product(F, F)), [W])
        ft = symgrad.to_torch(symgrad.sum(sp.hadamard_product(F, F)), [W])
        fv = symgrad.to_jax(3 * F, [W])
    with jax.enable_x64():
        # (jitted: each eager derivative program dispatches every primitive alone)
        np.testing.assert_array_equal(np.asarray(jax.jit(jax.grad(fj))(w)), 2 * np.floor(w))
        # d/dW 2*floor(W) straight through: 2 (JAX's derivative of the code: 0)
        np.testing.assert_array_equal(np.asarray(jax.jit(jax.hessian(fj))(w)).reshape(6, 6),
                                      2 * np.eye(6))
        np.testing.assert_array_equal(np.asarray(jax.jit(jax.jacrev(fv))(w)).reshape(6, 6),
                                      3 * np.eye(6))
    wt = torch.tensor(w, requires_grad=True)
    (g,) = torch.autograd.grad(ft(wt), wt, create_graph=True)
    np.testing.assert_array_equal(torch.autograd.grad(g.sum(), wt)[0].numpy(), np.full((2, 3), 2.0))


@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_a_gradient_stacked_from_entries_of_products(backend):
    # the gradient of a formula of entries, log(1 + exp((W v)[0, 0])) + ..., is a
    # matrix stacked from them: jax.grad raised AttributeError (np.broadcast) and
    # PyTorch's backward RuntimeError ((W).dot(v)[0, 0], torch's dot is 1-D) until
    # 2026-11-28; now both are symgrad's NumPy gradient at the point
    wv = W2x2 * V2
    e = sp.log(1 + sp.exp(wv[0, 0])) + sp.log(1 + wv[1, 0] ** 2)
    want = symgrad.lambdify([W2x2, V2], symgrad.grad(e, [W2x2])[0])(W_AT, V_AT)
    if backend == "jax":
        with jax.enable_x64():
            got = np.asarray(jax.grad(symgrad.to_jax(e, [W2x2, V2]))(W_AT, V_AT))
    else:
        w = torch.tensor(W_AT, requires_grad=True)
        symgrad.to_torch(e, [W2x2, V2])(w, torch.tensor(V_AT)).backward()
        got = w.grad.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert np.isclose(want[0, 1], want[0, 0] * V_AT[1, 0] / V_AT[0, 0], rtol=1e-15, atol=0)  # v_j


W2x2, V2 = sp.MatrixSymbol("W", 2, 2), sp.MatrixSymbol("v", 2, 1)
W_AT, V_AT = np.array([[0.5, -1.25], [2.0, 0.75]]), np.array([[1.5], [-0.5]])


@pytest.mark.parametrize("export", ["to_jax", "to_torch"])
def test_several_outputs_come_back_in_the_users_structure(export):
    f = getattr(symgrad, export)([Z, symgrad.sum(Z), Z.T], ARGS)
    with jax.enable_x64():
        out = f(*VALS)
    assert isinstance(out, list) and len(out) == 3
    z = symgrad.lambdify(ARGS, Z)(*VALS)
    for got, want in zip(out, (z, z.sum(), z.T)):
        got = got.detach().numpy() if export == "to_torch" else np.asarray(got)
        np.testing.assert_allclose(got, want, rtol=1e-14)
    assert isinstance(getattr(symgrad, export)((Z, Z), ARGS)(*VALS), tuple)


def test_torch_func_transforms_of_matrix_formulas_are_symgrads():
    from torch.func import grad, hessian, jacfwd, jvp, vmap

    W = sp.MatrixSymbol("W", 2, 3)
    F = symgrad.elementwise(sp.floor, W)
    with symgrad.gradient_override_map({"Floor": "Identity"}):
        f = symgrad.to_torch(symgrad.sum(sp.hadamard_product(F, F)), [W])
    w = torch.tensor([[0.5, 1.5, -2.5], [3.2, 0.1, -0.7]], dtype=torch.float64)
    # forward over reverse, straight through at both orders (PyTorch's: 0)
    torch.testing.assert_close(hessian(f)(w).reshape(6, 6), 2 * torch.eye(6, dtype=w.dtype))
    fz = symgrad.to_torch(Z, ARGS)
    ts = [torch.tensor(v) for v in VALS]
    xs = torch.tensor(RNG.normal(size=(3, N, 3)))  # a batch of data, vmapped
    own = torch.tanh(xs @ ts[0] + ts[1]) @ ts[2]
    torch.testing.assert_close(vmap(fz, (None, None, None, 0))(*ts[:3], xs), own)
    loss = symgrad.to_torch(symgrad.sum(Z), ARGS)
    torch.testing.assert_close(
        vmap(grad(loss), (None, None, None, 0))(*ts[:3], xs),
        vmap(grad(lambda *v: _z(torch, *v).sum()), (None, None, None, 0))(*ts[:3], xs))
    d = torch.ones_like(ts[0])
    torch.testing.assert_close(jvp(lambda u: fz(u, *ts[1:]), (ts[0],), (d,))[1],
                               jvp(lambda u: _z(torch, u, *ts[1:]), (ts[0],), (d,))[1])
    torch.testing.assert_close(jacfwd(fz)(*ts), jacfwd(lambda u, *v: _z(torch, u, *v))(*ts))


def _lse_rows(n_rows: int, n: int, seed: int) -> tuple:
    """Rows whose logsumexp is within a few percent down to 2**-48 of 0
    (m and log1p(r) cancel up to 48 bits), and that logsumexp in mpmath."""
    import mpmath

    rng = np.random.default_rng(seed)
    rows, want = [], []
    with mpmath.workprec(600):
        for _ in range(n_rows):
            v = rng.normal(size=n) * rng.choice([0.1, 1, 10, 100])
            L = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(t)) for t in v))
            m = max(float(t - L) for t in v)
            delta = abs(m) * 2.0 ** -rng.uniform(2, 48) * rng.choice([-1, 1])
            row = [float(mpmath.mpf(t) - L + delta) for t in v]
            rows.append(row)
            want.append(mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(t)) for t in row)))
    return np.array(rows)[:, None, :], want


def _bits_lost(got, want) -> float:
    import mpmath

    with mpmath.workprec(600):
        err = abs(mpmath.mpf(float(got)) - want) / abs(want)
        return float(max(0, mpmath.log(err * 2**53, 2) + 1)) if err else 0.0


def test_logsumexp_near_its_zero_is_as_accurate_as_numpys():
    # lse = m + log1p(r) cancels near 0: NumPy's code recomputes those rows from
    # pairs of floats (np.any branch), and so does the export (lax.cond under
    # jax.jit, a branch on eager tensors); the plain code lost up to 53 bits here
    z = sp.MatrixSymbol("z", 1, 3)
    zs, want = _lse_rows(40, 3, 5)
    f_np = symgrad.lambdify([z], symgrad.logsumexp(z))
    f_jax, f_torch = (export(symgrad.logsumexp(z), [z])
                      for export in (symgrad.to_jax, symgrad.to_torch))
    with jax.enable_x64():
        got_jax = np.asarray(jax.jit(f_jax)(zs))
    got_torch = f_torch(torch.from_numpy(zs)).numpy()
    lost = {name: max(_bits_lost(g, w) for g, w in zip(got.reshape(-1), want))
            for name, got in (("numpy", f_np(zs)), ("jax", got_jax), ("torch", got_torch))}
    assert lost["numpy"] < 6 and lost["jax"] <= lost["numpy"] + 1, lost
    assert lost["torch"] <= lost["numpy"] + 1, lost


def test_a_loss_over_batched_matrix_arguments_has_its_gradient_summed_over_the_batch():
    # one loss per batch element (leading axes of X): a shared W and s get the
    # sum of the rows' gradients, X its gradient per row (a shape error before)
    x1, w1, s = sp.MatrixSymbol("x1", 1, 3), sp.MatrixSymbol("w1", 3, 2), sp.Symbol("s", real=True)
    loss, args = symgrad.logsumexp(s * x1 * w1), [w1, x1, s]
    w, xs, sv = RNG.normal(size=(3, 2)), RNG.normal(size=(4, 1, 3)), 0.7
    per_row = symgrad.lambdify(args, symgrad.grad(loss, args))
    rows = [per_row(w, x, sv) for x in xs]
    want = [sum(np.asarray(r[0]) for r in rows), np.stack([np.asarray(r[1]) for r in rows]),
            sum(float(r[2]) for r in rows)]
    f_jax, f_torch = symgrad.to_jax(loss, args), symgrad.to_torch(loss, args)
    with jax.enable_x64():
        got = jax.jit(jax.grad(lambda *a: f_jax(*a).sum(), argnums=(0, 1, 2)))(w, xs, sv)
        tangent = jax.jit(lambda v, t: jax.jvp(lambda u: f_jax(u, xs, sv), (v,), (t,))[1])(
            w, np.ones_like(w))
    leaves = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (w, xs, sv)]
    f_torch(*leaves).sum().backward()
    for g_jax, leaf, ref in zip(got, leaves, want):
        np.testing.assert_allclose(np.asarray(g_jax).reshape(np.shape(ref)), ref, rtol=1e-13)
        np.testing.assert_allclose(leaf.grad.numpy().reshape(np.shape(ref)), ref, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(tangent), [np.sum(r[0]) for r in rows], rtol=1e-13)
