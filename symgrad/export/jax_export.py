"""``to_jax``: a formula as a ``jax.custom_jvp`` function whose derivatives,
at every order, are symgrad's.

The function of order 0 computes the formulas F(x); its JVP rule returns
F(x) and J(x)·t, where the entries of J are symgrad's derivatives ∂Fᵢ/∂xⱼ
(symgrad's forward-mode formula, the tangent contracted in ``jax.numpy``),
computed by the function of order 1: a ``custom_jvp`` of x alone, built the
same way from J's entries, lazily, the first time JAX asks for that order.
Each order's coefficients are functions of x only and the tangents enter
linearly, outside them: JAX's reverse mode (which partially evaluates the
rule and inlines any ``custom_jvp`` that receives an unknown tangent) then
never differentiates emitted code, and ``jax.grad``, ``jax.hessian`` and any
nesting evaluate symgrad's formulas of each order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import Context

from sympy import S

from ..autodiff import jacobian
from ..errors import SymgradError
from .args import export_context, signature
from .source import compile_source, generate, require

__all__ = ["to_jax"]


class _Order:
    """The exported function of one order: formulas ``exprs`` of ``symbols``
    (the zero ones are not computed)."""

    def __init__(self, symbols: list, exprs: list, stabilize: bool, domain, order: int,
                 ctx: Context) -> None:
        import jax
        import jax.numpy as jnp

        self.symbols, self.exprs, self.order = symbols, exprs, order
        self.stabilize, self.domain, self.ctx = stabilize, domain, ctx
        live = [k for k, e in enumerate(exprs) if e is not S.Zero]
        self.live = live
        self.source = generate("jax", symbols, [exprs[k] for k in live] or [S.Zero],
                               stabilize=stabilize, domain=domain)
        kernel = compile_source(self.source)
        self._next: _Order | None = None
        n_in, n_out = len(symbols), len(exprs)
        if not live:
            kernel_zero = kernel
            kernel = lambda *xs: kernel_zero(*xs)  # noqa: E731  (one zero output)

        def plain(*xs):
            shape = jnp.broadcast_shapes(*(jnp.shape(x) for x in xs))
            dt = jnp.result_type(*xs)
            outs = kernel(*xs)
            return tuple(jnp.broadcast_to(jnp.asarray(o, dt), shape) for o in outs)

        fn = jax.custom_jvp(plain)

        def rule(primals, tangents):
            out = fn(*primals)
            nxt = self.next_order()
            jac = dict(zip(nxt.live, nxt.fn(*primals))) if nxt.live else {}
            touts = []
            for p in range(len(out)):  # the live outputs (one zero if none is)
                i = live[p] if live else -(n_in + 1)
                terms = [jac[i * n_in + j] * tangents[j] for j in range(n_in)
                         if i * n_in + j in jac]
                t = terms[0] if terms else jnp.zeros_like(out[0])
                for term in terms[1:]:
                    t = t + term
                touts.append(jnp.broadcast_to(t.astype(out[p].dtype), out[p].shape))
            return out, tuple(touts)

        fn.defjvp(rule)
        self.fn = fn
        self.n_out = n_out

    def _outputs(self, computed: tuple) -> tuple:
        """All outputs (zeros where the formula is 0) from the live ones."""
        import jax.numpy as jnp

        if len(self.live) == self.n_out:
            return computed
        zero = jnp.zeros_like(computed[0])
        got = dict(zip(self.live, computed))
        return tuple(got.get(k, zero) for k in range(self.n_out))

    def call(self, *xs) -> tuple:
        return self._outputs(self.fn(*xs))

    def next_order(self) -> _Order:
        """The next order: symgrad's derivatives ∂Fᵢ/∂xⱼ, row-major."""
        if self._next is None:
            # in the context of the export: the overrides active then
            jac = self.ctx.run(jacobian, list(self.exprs), list(self.symbols))
            entries = [jac[i, j] for i in range(jac.rows) for j in range(jac.cols)]
            self._next = _Order(self.symbols, entries, self.stabilize, self.domain,
                                self.order + 1, self.ctx)
        return self._next


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
    ``hessian``, ``jit`` and ``vmap``.  With ``stabilize=True`` every order
    is emitted in symgrad's safe forms valid on ``domain`` (symbol ->
    (lo, hi)), as ``lambdify(..., stabilize=True)`` emits NumPy code.

    Arguments broadcast; integers become the default float type.  A Matrix
    argument is an array whose leading axes are the Matrix's shape; a
    Matrix output comes back the same way.  ``f.source`` is the value's
    code, ``f.order(k).source`` that of the k-th derivative.

    >>> import jax, sympy as sp, symgrad
    >>> x, y = sp.symbols("x y")
    >>> with symgrad.gradient_override_map({"Floor": "Identity"}):
    ...     f = symgrad.to_jax(sp.floor(x) * y, [x, y])
    >>> float(jax.grad(f)(2.5, 3.0))
    3.0
    """
    require("jax")
    import jax.numpy as jnp

    from ..safe import refuse_string

    refuse_string(args, "to_jax", "args")
    from ..codegen.matrix import is_matrix_program

    if is_matrix_program(args, expr):
        from .matrix_jax import matrix_to_jax

        if stabilize:
            raise SymgradError("to_jax(stabilize=True) of a MatrixSymbol formula is not "
                               "supported yet; its matrix code uses the accurate forms only")

        return matrix_to_jax(expr, list(args) if isinstance(args, (list, tuple)) else [args],
                             export_context())
    sig = signature(expr, args)
    first = _Order(sig.symbols, sig.exprs, stabilize, domain, 0, export_context())

    def call(*values):
        flat = sig.split(values[0:1] if sig.single else values, jnp.asarray, jnp.reshape)
        dt = jnp.result_type(*flat)
        if not jnp.issubdtype(dt, jnp.floating):
            dt = jnp.result_type(float)
        outs = first.call(*(jnp.asarray(v, dt) for v in flat))
        return sig.build(outs, lambda es, shape: jnp.stack(
            jnp.broadcast_arrays(*es)).reshape(shape + jnp.shape(es[0])))

    call.source = first.source

    def order(k: int) -> _Order:
        """The k-th derivatives' function (its ``source``, its ``exprs``)."""
        o = first
        for _ in range(k):
            o = o.next_order()
        return o

    call.order = order
    return call
