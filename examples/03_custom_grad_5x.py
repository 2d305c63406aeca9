"""A rule of your own: TensorFlow's "CustomGrad" example, a gradient five
times the incoming one, registered by name and mapped onto a node type.

Run:  python examples/03_custom_grad_5x.py
"""

from __future__ import annotations

import sympy as sp

import symgrad

x = sp.Symbol("x", real=True)


@symgrad.register_gradient("CustomGrad")
def _const_mul_grad(unused_node, grad):
    return 5 * grad


try:
    # tf.identity with its gradient overridden, as in TensorFlow's documentation
    with symgrad.gradient_override_map({"Identity": "CustomGrad"}):
        g = symgrad.grad(symgrad.identity(x), x)
    print("d/dx identity(x) under CustomGrad  =", g)
    assert g == 5

    # any node type can be mapped; the rule serves reverse and forward mode
    with symgrad.gradient_override_map({"sin": "CustomGrad"}):
        g, t = symgrad.grad(sp.sin(x**2), x), symgrad.jvp(sp.sin(x**2), x, 1)
    print("d/dx sin(x**2) with sin -> CustomGrad =", g, "(reverse) =", t, "(forward)")
    assert g == t == 10 * x

    # the rule belongs to the block: outside it, sin is sin again
    print("outside the block                  =", symgrad.grad(sp.sin(x**2), x))
finally:
    symgrad.unregister_gradient("CustomGrad")
