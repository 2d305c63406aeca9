"""``to_jax``: a formula as a ``jax.custom_jvp`` function whose derivatives,
at every order, are symgrad's.

The function of order k computes that order's formulas
(:class:`~symgrad.export.orders.Order`); its JVP rule returns them and
J(x)·t, where the entries of J are computed by the function of order k+1
(a ``custom_jvp`` of x alone, built the same way, lazily, the first time
JAX asks for that order) and the tangent is contracted in ``jax.numpy``.
Each order's coefficients are functions of x only and the tangents enter
linearly, outside them: JAX's reverse mode (which partially evaluates the
rule and inlines any ``custom_jvp`` that receives an unknown tangent) then
never differentiates emitted code, and ``jax.grad``, ``jax.hessian`` and any
nesting evaluate symgrad's formulas of each order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .args import signature
from .matrix_front import matrix_export
from .orders import FrameworkOrder, Order, contract_jvp, dtype_name, export
from .source import require

__all__ = ["to_jax"]


class _JaxOrder(FrameworkOrder):
    """The ``custom_jvp`` function of one order (``fn``: its live outputs)."""

    backend = "jax"

    def __init__(self, order: Order) -> None:
        import jax
        import jax.numpy as jnp

        super().__init__(order)
        live = order.live

        def plain(*xs):
            shape = jnp.broadcast_shapes(*(jnp.shape(x) for x in xs))
            dt = jnp.result_type(*xs) if xs else jnp.result_type(float)  # (no args: default)
            kernel = order.kernel("jax", dtype_name(dt))  # forms chosen for the traced type
            return tuple(jnp.broadcast_to(jnp.asarray(o, dt), shape) for o in kernel(*xs))

        fn = jax.custom_jvp(plain)

        def rule(primals, tangents):
            out = fn(*primals)
            jac = self.jacobian_at(*primals) if live else {}
            touts = contract_jvp(jac, tangents, live or [-1], lambda: jnp.zeros_like(out[0]))
            return out, tuple(jnp.broadcast_to(t.astype(o.dtype), o.shape)
                              for t, o in zip(touts, out))

        fn.defjvp(rule)
        self.fn = fn

    def run(self, *xs) -> tuple:
        return self.fn(*xs)


def to_jax(expr: object, args: object, *, stabilize: bool = False,
           domain: Mapping | None = None) -> Callable:
    """A JAX function computing ``expr`` (an expression or a pytree of them)
    from ``args`` (a Symbol, or a list of Symbols and Matrices of Symbols:
    one array argument each), whose derivatives of every order are
    symgrad's: a ``jax.custom_jvp`` whose rule is symgrad's JVP formula
    emitted as ``jax.numpy`` code, itself a ``custom_jvp`` of the next
    order's formulas.  Overrides, straight-through estimators, custom
    gradients and stabilized forms active when ``to_jax`` is called carry
    over to ``jax.grad``, ``jvp``, ``vjp``, ``jacfwd``, ``jacrev``,
    ``hessian``, ``jit`` and ``vmap``.  With ``stabilize=True`` the
    formulas of each order (the value, the gradient, ...) are emitted in
    :func:`symgrad.stabilize`'s choice of float forms over ``domain``
    (symbol -> (lo, hi); all floats where not given), chosen for that order
    when JAX first asks for it.

    Arguments broadcast; integers become the default float type.  A Matrix
    argument is an array whose leading axes are the Matrix's shape; a
    Matrix output comes back the same way.  ``f.source`` is the value's
    code, ``f.order(k).source`` that of the k-th derivative (``.forms``
    the formulas emitted).  MatrixSymbol arguments: see docs/export.md.

    >>> import jax, sympy as sp, symgrad
    >>> x, y = sp.symbols("x y")
    >>> with symgrad.gradient_override_map({"Floor": "Identity"}):
    ...     f = symgrad.to_jax(sp.floor(x) * y, [x, y])
    >>> float(jax.grad(f)(2.5, 3.0))
    3.0
    """
    require("jax")
    done = matrix_export("jax", expr, args, stabilize, domain)
    if done is not None:
        return done
    return export(_JaxOrder, signature(expr, args), stabilize, domain)
