"""Straight-through floor: quantise in the forward pass, let the gradient
through as if floor were the identity (TensorFlow's
gradient_override_map({"Floor": "Identity"})), for a whole block or for
one node.

Run:  python examples/02_straight_through_floor.py
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import symgrad

w, x = sp.symbols("w x", real=True)
loss = (sp.floor(w * x) - 3) ** 2  # a quantised activation, fit to 3

print("loss                 =", loss)
print("true gradient        =", symgrad.grad(loss, w), " (floor is flat: nothing to learn from)")

with symgrad.gradient_override_map({"Floor": "Identity"}):  # TensorFlow's op name works
    g = symgrad.grad(loss, w)
print("straight-through     =", g)
assert (g - 2 * x * (sp.floor(w * x) - 3)).expand() == 0

# One node only: tag it, and the tag travels with the formula.
e = symgrad.override(sp.floor(w * x), {"floor": "Identity"}) + sp.floor(w)
print("tagged node          =", e, "->", symgrad.grad(e, w))
assert symgrad.grad(e, w) == x

# Or a marker: the value of floor(u), the derivative of u (or of any other
# formula: here a tanh-shaped surrogate).
st = symgrad.straight_through(sp.floor(w * x), sp.tanh(w * x))
print("straight_through     =", symgrad.grad(st, w))

# The gradient runs as NumPy code.
dw = symgrad.lambdify([w, x], g)
ws = np.array([0.2, 1.4, 2.0])
print("at w =", ws, "x = 2:  dloss/dw =", dw(ws, 2.0))
assert np.allclose(dw(ws, 2.0), 2 * 2.0 * (np.floor(ws * 2.0) - 3))
