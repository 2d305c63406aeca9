"""A nested custom gradient: a grad_fn that returns another custom-gradient
node chooses the second derivative too (TensorFlow's recipe for custom
higher-order gradients).

Run:  python examples/05_nested_custom_gradient.py
"""

from __future__ import annotations

import sympy as sp

import symgrad

x = sp.Symbol("x", real=True)


@symgrad.custom_gradient
def op(a):
    def first_order(dy):
        @symgrad.custom_gradient
        def first_order_custom(unused_a):
            def second_order(ddy):
                return ddy * 100  # the chosen second derivative

            return sp.cos(unused_a), second_order

        return dy * first_order_custom(a)

    return sp.sin(a), first_order


g = symgrad.grad(op(x), x)
gg = symgrad.grad(g, x)
print("f(x)        =", op(x), "  which evaluates as", symgrad.expand(op(x)))
print("f'(x)       =", g, "  which evaluates as", symgrad.expand(g))
print("f''(x)      =", gg, "  (chosen by the inner rule; sin'' would be -sin(x))")
print("hessian     =", symgrad.hessian(op(x), [x]))
assert symgrad.expand(g) == sp.cos(x) and gg == 100

# forward mode agrees with reverse mode at both orders
t = symgrad.jvp(op(x), x, 1)
print("forward mode: f' =", symgrad.expand(t), " f'' =", symgrad.jvp(t, x, 1))
assert symgrad.expand(t) == sp.cos(x) and symgrad.jvp(t, x, 1) == 100
