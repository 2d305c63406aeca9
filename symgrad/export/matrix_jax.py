"""``to_jax`` of a scalar matrix formula (:mod:`.matrix_front`): the value
and symgrad's matrix-level gradient, each from symgrad's matrix code with
its NumPy calls mapped to ``jax.numpy``; the rule contracts the gradient
with the tangents, ``sum(G * dW)`` per argument.  The gradient's own
derivative is not exported yet: asking JAX for it is an error, never JAX's
derivative of the emitted code."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import SymgradError
from .source import compile_matrix

__all__ = ["matrix_to_jax"]


def matrix_to_jax(expr, grads: list, args: list, second: str) -> Callable:
    import jax
    import jax.numpy as jnp

    value = compile_matrix("jax", args, [expr])
    gfn = compile_matrix("jax", args, grads)

    def no_second(primals, tangents):
        raise SymgradError(second)

    gradient = jax.custom_jvp(lambda *xs: tuple(gfn(*xs)))
    gradient.defjvp(no_second)

    @jax.custom_jvp
    def f(*xs):
        return value(*xs)[0]

    @f.defjvp
    def rule(primals, tangents):
        out = f(*primals)
        gs = gradient(*primals)
        t = sum(jnp.sum(g * dt) for g, dt in zip(gs, tangents))
        return out, jnp.asarray(t, out.dtype)

    f.source = value.source
    return f
