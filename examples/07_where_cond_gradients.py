"""where and cond (tf.where, tf.cond): the gradient of a selection flows
only into the branch taken, so a NaN in the other branch never leaks in:
the most reported problem with tf.where and jnp.where gradients.

Run:  python examples/07_where_cond_gradients.py
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

import symgrad

x = sp.Symbol("x", real=True)
f = symgrad.where(x > 0, sp.sqrt(x), 0)
g = symgrad.grad(f, x)
print("f  =", f)
print("f' =", g)

xs = np.array([-1.0, 0.0, 4.0])
print("f'(x) at", xs, "=", symgrad.lambdify([x], g)(xs), "(symgrad: no NaN)")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", RuntimeWarning)
    # tf.where / jnp.where: the cotangent is masked to 0 in the branch not
    # taken, then multiplied by that branch's derivative: 0 * inf = NaN
    naive = np.where(xs > 0, 1.0, 0.0) * (1 / (2 * np.sqrt(xs)))
print("mask times derivative (TF, JAX) =", naive)
assert not np.isnan(symgrad.lambdify([x], g)(xs)).any() and np.isnan(naive).any()

# cond takes expressions or, like tf.cond, functions of no arguments
h = symgrad.cond(x < 1, lambda: x**2, lambda: 2 * x - 1)
print("cond:", h, " gradient:", symgrad.grad(h, x))
assert symgrad.grad(h, x) == sp.Piecewise((2 * x, x < 1), (2, True))
