"""jacobian, hessian, jvp and vjp over matrix symbols against JAX itself:
the same shapes and the same numbers as jax.jacobian / jax.hessian /
jax.jvp / jax.vjp of the same function written in jax.numpy (float64; one
jit for all of them, JAX's eager transforms take seconds)."""

from __future__ import annotations

import numpy as np
from sympy import MatrixBase, MatrixSymbol, Symbol, tanh

import symgrad

from ..backends import jax, jnp

A, x = MatrixSymbol("A", 3, 2), MatrixSymbol("x", 2, 1)
tA, u = MatrixSymbol("tA", 3, 2), MatrixSymbol("u", 3, 1)
s = Symbol("s", real=True)
ARGS = (A, x, s, tA, u)


def _F(A, x, s):  # tanh(s·A·x), a 3×1 matrix
    return jnp.tanh(s * A @ x)


def _L(A, x, s):  # a scalar loss over matrices
    return jnp.sum(_F(A, x, s) ** 2) + s * jnp.sum(A)


def _jax_all(A, x, s, tA, u):
    out = {}
    for name, f in (("F", _F), ("L", _L)):
        for k, w in enumerate("Axs"):
            out[f"jacobian {name} {w}"] = jax.jacobian(f, k)(A, x, s)
    for k, w in enumerate("Ax"):
        out[f"hessian L {w}"] = jax.hessian(_L, k)(A, x, s)
    out["jvp F A"] = jax.jvp(lambda a: _F(a, x, s), (A,), (tA,))[1]
    pull = jax.vjp(lambda a, y: _F(a, y, s), A, x)[1]
    out["vjp F A"], out["vjp F x"] = pull(u)
    return out


def test_shapes_and_values_are_jaxs():
    F = symgrad.elementwise(tanh, s * A * x)
    L = symgrad.sum(symgrad.elementwise(lambda t: t**2, F)) + s * symgrad.sum(A)
    ours = {}
    for name, f in (("F", F), ("L", L)):
        for w in (A, x, s):
            ours[f"jacobian {name} {w}"] = symgrad.jacobian(f, w)
    for w in (A, x):
        ours[f"hessian L {w}"] = symgrad.hessian(L, w)
    ours["jvp F A"] = symgrad.jvp(F, A, tA)
    ours["vjp F A"], ours["vjp F x"] = symgrad.vjp(F, [A, x], u)
    rng = np.random.default_rng(4)
    vals = [rng.normal(size=tuple(int(d) for d in M.shape)) for M in (A, x)] + [0.7] + [
        rng.normal(size=tuple(int(d) for d in M.shape)) for M in (tA, u)]
    with jax.enable_x64():
        want = jax.jit(_jax_all)(*vals)
    # a scalar by a scalar keeps symgrad's (and SymPy's) Jacobian, a 1×1 Matrix
    assert isinstance(ours["jacobian L s"], MatrixBase) and ours["jacobian L s"].shape == (1, 1)
    ours["jacobian L s"] = ours["jacobian L s"][0, 0]
    for key, e in ours.items():
        shape = tuple(getattr(e, "shape", ()))
        flat = list(np.asarray(e.tolist(), dtype=object).ravel()) if len(shape) > 2 else [e]
        got = np.reshape(np.asarray(symgrad.lambdify(list(ARGS), flat)(*vals), float), shape)
        w = np.asarray(want[key])
        assert got.shape == w.shape, key
        np.testing.assert_allclose(got, w, rtol=1e-12, atol=1e-14, err_msg=key)
