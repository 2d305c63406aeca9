"""A stable gradient by hand: TensorFlow's log1pexp custom_gradient.  The
ordinary gradient of log(1 + exp(x)) is exp(x)/(1 + exp(x)): inf/inf, NaN,
once exp overflows (x > 88.7 in float32, x > 709.8 in float64).  The custom
rule 1 - 1/(1 + exp(x)) stays finite.

Run:  python examples/04_log1pexp_custom_gradient.py
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

import symgrad

x = sp.Symbol("x", real=True)


@symgrad.custom_gradient
def log1pexp(u):
    e = sp.exp(u)

    def grad_fn(upstream):
        return upstream * (1 - 1 / (1 + e))

    return sp.log(1 + e), grad_fn


plain = symgrad.grad(sp.log(1 + sp.exp(x)), x)
custom = symgrad.grad(log1pexp(x), x)
print("ordinary gradient:", plain)
print("custom gradient:  ", custom)
print("the same function?", sp.simplify(symgrad.expand(custom) - plain) == 0)

points = np.array([-50.0, 0.0, 100.0, 1000.0])
with warnings.catch_warnings():
    warnings.simplefilter("ignore", RuntimeWarning)  # exp overflows: that is the point
    # (the formula exactly as written: lambdify would otherwise rewrite it accurately)
    naive = np.exp(points) / (1 + np.exp(points))
    stable = symgrad.lambdify([x], custom)(points)
print("x                =", points)
print("ordinary, NumPy  =", naive)
print("custom, symgrad  =", stable)
assert np.isnan(naive[-1]) and np.all(np.isfinite(stable)) and stable[-1] == 1.0
print("(no NaN; but at x = -50 the custom rule gives 0, not 1.9e-22: 1 - 1/(1 + e^x)")
print(" cancels for x below about -37. The stability scenario finds and fixes that.)")

# symgrad's code for the custom gradient, one assignment per shared part
print()
print(symgrad.numpy_code([x], custom, name="dlog1pexp"))
