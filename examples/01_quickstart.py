"""Quickstart: derive a gradient, print it (text, Unicode, LaTeX, and a
model-sized one as a program), and evaluate it with NumPy.

Run:  python examples/01_quickstart.py
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import symgrad

x, y = sp.symbols("x y", real=True)
f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)

gx, gy = symgrad.grad(f, [x, y])
print("f(x, y) =", f)
print("df/dx   =", gx)
print("df/dy   =", gy)
print()
print("unicode:")
sp.pprint(gx, use_unicode=True)
print("LaTeX:  ", sp.latex(gy))

# The same gradient as NumPy code, evaluated over a million points.
fn = symgrad.lambdify([x, y], [gx, gy])
rng = np.random.default_rng(0)
xs, ys = rng.uniform(-3, 3, 10**6), rng.uniform(-3, 3, 10**6)
dx, dy = fn(xs, ys)
print()
print(f"evaluated at {xs.size:,} points; at (x, y) = ({xs[0]:.3f}, {ys[0]:.3f}):")
print(f"  df/dx = {dx[0]:.12g}, df/dy = {dy[0]:.12g}")

# Check one point against SymPy's own derivative, at 30 digits.
point = {x: sp.Float(xs[0], 30), y: sp.Float(ys[0], 30)}
exact = sp.diff(f, x).evalf(30, subs=point)
print(f"  sympy.diff gives df/dx = {float(exact):.12g}")
assert abs(float(exact) - dx[0]) <= 1e-12 * max(1.0, abs(float(exact)))

# A model-sized gradient prints as its program: shared parts named once.
n = 16
w = sp.symbols(f"w1:{n + 1}", real=True)
c = sp.symbols(f"c1:{n + 1}", real=True)
t = sp.Symbol("t", real=True)
loss = (sum(ci * sp.tanh(wi * x + y) for wi, ci in zip(w, c)) - t) ** 2
g = symgrad.grad(loss, [*w, *c])
p = symgrad.program(g, [f"∂L/∂{v}" for v in [*w, *c]])
print()
print(f"a {n}-unit layer's gradient: {len(str(g)):,} characters as a tree, "
      f"{len(p.text()):,} as a program; its first and last lines:")
lines = p.text().splitlines()
print("\n".join(lines[:3] + ["..."] + lines[-2:]))
