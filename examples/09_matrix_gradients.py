"""Matrix gradients: a two-layer MLP written over weight matrices, its
gradient derived at the matrix level (the backpropagation formulas, printed
as a few named statements), and evaluated with NumPy (@ for products).

Run:  python examples/09_matrix_gradients.py
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import symgrad

n = 32  # batch rows
X, Y = sp.MatrixSymbol("X", n, 4), sp.MatrixSymbol("Y", n, 3)  # inputs, one-hot labels
W1, b1 = sp.MatrixSymbol("W1", 4, 8), sp.MatrixSymbol("b1", 1, 8)
W2, b2 = sp.MatrixSymbol("W2", 8, 3), sp.MatrixSymbol("b2", 1, 3)

H = symgrad.elementwise(sp.tanh, X * W1 + sp.OneMatrix(n, 1) * b1)  # 𝟙·b1 repeats b1 per row
Z = H * W2 + sp.OneMatrix(n, 1) * b2
loss = symgrad.mean(symgrad.logsumexp(Z, axis=1)) - symgrad.sum(sp.hadamard_product(Y, Z)) / n

grads = symgrad.grad(loss, [W1, b1, W2, b2])
print(symgrad.program(grads, names=["∂L/∂W1", "∂L/∂b1", "∂L/∂W2", "∂L/∂b2"]))

# Evaluated with NumPy, checked against hand-written backpropagation.
f = symgrad.lambdify([X, Y, W1, b1, W2, b2], grads)
rng = np.random.default_rng(0)
Xv = rng.normal(size=(n, 4))
Yv = np.eye(3)[rng.integers(0, 3, n)]
ps = [rng.normal(size=s) for s in [(4, 8), (1, 8), (8, 3), (1, 3)]]
gW1, gb1, gW2, gb2 = f(Xv, Yv, *ps)
Hv = np.tanh(Xv @ ps[0] + ps[1])
Zv = Hv @ ps[2] + ps[3]
S = np.exp(Zv - Zv.max(1, keepdims=True))
S /= S.sum(1, keepdims=True)
delta = (S - Yv) / n
assert np.allclose(gW2, Hv.T @ delta, rtol=1e-12)
assert np.allclose(gW1, Xv.T @ ((delta @ ps[2].T) * (1 - Hv**2)), rtol=1e-12)
print(f"\nagrees with hand-written backpropagation; |∂L/∂W1| = {np.linalg.norm(gW1):.6f}")
