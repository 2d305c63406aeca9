"""``to_jax`` of a scalar matrix formula (:mod:`.matrix_front`): the value
and symgrad's matrix-level gradient, each from symgrad's matrix code with
its NumPy calls mapped to ``jax.numpy``; the rule contracts the gradient
with the tangents, ``sum(G * dW)`` per argument.  The gradient's own
derivative is not exported yet: asking JAX for it is an error, never JAX's
derivative of the emitted code."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..codegen.matrix import matrix_code
from ..errors import SymgradError
from .source import compile_source

__all__ = ["matrix_to_jax"]

_NP = re.compile(r"\bnp\.")


def _jax_source(args: list, exprs: list) -> str:
    src = matrix_code(args, exprs)
    src = src.replace("import numpy as np\n", "import jax.numpy as jnp\n", 1)
    return _NP.sub("jnp.", src)


def _jax_along(op, a, axis):
    """``_along`` of the NumPy code writes into its output; JAX reduces."""
    return op.reduce(a, axis=axis, keepdims=True)


def _compile(args: list, exprs: list) -> Callable:
    fn = compile_source(_jax_source(args, exprs))
    fn.__globals__["_along"] = _jax_along
    return fn


def matrix_to_jax(expr, grads: list, args: list, second: str) -> Callable:
    import jax
    import jax.numpy as jnp

    value = _compile(args, [expr])
    gfn = _compile(args, grads)

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
