"""attach_gradient: hand symgrad a value and the gradient you computed
yourself (tfp.math.custom_gradient); the value is exact, the gradient is
yours.

Run:  python examples/06_attach_gradient.py
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import symgrad

x = sp.Symbol("x", real=True)
softplus = sp.log(1 + sp.exp(x))
h = symgrad.attach_gradient(softplus, symgrad.sigmoid(x), x)  # value softplus, gradient sigmoid

print("h          =", h)
print("its value  =", symgrad.expand(h), "(the stop_gradient markers lower away)")
print("dh/dx      =", symgrad.grad(h, x))
assert symgrad.expand(h) == softplus
assert symgrad.grad(h, x) == symgrad.stop_gradient(symgrad.sigmoid(x))

# The value is the same code as softplus alone: x - stop(x) folds to an exact 0.
xs = np.array([-30.0, 0.0, 30.0])
value = symgrad.lambdify([x], h)(xs)
print("value at", xs, "=", value)
assert np.array_equal(value, symgrad.lambdify([x], softplus)(xs))
# sigmoid here is symgrad's activation: 1/(1 + exp(-x)), evaluated stably
print("gradient at", xs, "=", symgrad.lambdify([x], symgrad.grad(h, x))(xs))
