"""``to_jax`` of a matrix formula (:mod:`.matrix_front`): each derivative
level (:class:`~symgrad.export.matrix_levels.MatrixLevel`) is a
``jax.custom_jvp`` of symgrad's matrix code with its NumPy calls mapped to
``jax.numpy``.

A scalar formula (a loss) contracts symgrad's matrix gradient with the
tangents, ``sum(G * dW)`` per argument, the gradient being a level of the
arguments alone; any other level's rule is the next level, symgrad's
Jacobian-vector product along the tangents JAX passes (inputs JAX does not
perturb are left out: ``symbolic_zeros``).  That product is linear in the
tangents, so JAX's reverse mode transposes it (linear algebra) and
``jax.grad``, ``jax.hessian``, ``jacfwd``/``jacrev`` and their nesting
evaluate symgrad's formulas of each order, never JAX's derivative of
emitted code."""

from __future__ import annotations

from collections.abc import Callable

from .matrix_levels import MatrixLevel, shape_of

__all__ = ["matrix_to_jax"]


def _zero(jnp, expr, level: MatrixLevel, xs: tuple):
    """Zeros of ``expr``'s shape, after the inputs' leading (batch) axes."""
    batch = jnp.broadcast_shapes(*(jnp.shape(x)[:jnp.ndim(x) - len(shape_of(s))]
                                   for x, s in zip(xs, level.inputs)))
    dt = jnp.result_type(*xs, float)
    return jnp.zeros(batch + shape_of(expr), dt)


class _JaxLevel:
    """One level as a ``custom_jvp`` function returning a tuple of arrays."""

    def __init__(self, level: MatrixLevel) -> None:
        import jax
        import jax.numpy as jnp
        from jax.custom_derivatives import SymbolicZero

        self.level = level
        self._next: dict[tuple, _JaxLevel] = {}
        kernel = level.kernel("jax")

        def plain(*xs):
            got = dict(zip(level.live, kernel(*xs))) if level.live else {}
            return tuple(got[k] if k in got else _zero(jnp, e, level, xs)
                         for k, e in enumerate(level.exprs))

        fn = jax.custom_jvp(plain)

        def rule(primals, tangents):
            out = fn(*primals)
            mask = tuple(j for j, t in enumerate(tangents) if not isinstance(t, SymbolicZero))
            if not mask:
                return out, tuple(jnp.zeros_like(o) for o in out)
            nxt = self.next(("jvp", mask))
            touts = nxt.fn(*primals, *(jnp.asarray(tangents[j], out[0].dtype) for j in mask))
            return out, tuple(jnp.broadcast_to(jnp.asarray(t, o.dtype), o.shape)
                              for t, o in zip(touts, out))

        fn.defjvp(rule, symbolic_zeros=True)
        self.fn = fn

    def next(self, key: tuple) -> _JaxLevel:
        if key not in self._next:
            self._next[key] = _JaxLevel(self.level.jvp(key[1]))
        return self._next[key]


def _loss(level: MatrixLevel) -> Callable:
    """A scalar formula: its value, and the rule Σ sum(G * dW) over the
    perturbed arguments, G from the gradient's level."""
    import jax
    import jax.numpy as jnp
    from jax.custom_derivatives import SymbolicZero

    value = level.kernel("jax")
    gradient = _JaxLevel(level.gradient())

    @jax.custom_jvp
    def f(*xs):
        return value(*xs)[0]

    def rule(primals, tangents):
        out = f(*primals)
        gs = gradient.fn(*primals)
        # summed over each argument's own axes: one value per batch element
        t = sum((jnp.sum(g * dt, axis=tuple(range(-len(shape_of(s)), 0)))
                 for g, dt, s in zip(gs, tangents, level.inputs)
                 if not isinstance(dt, SymbolicZero)), jnp.zeros((), out.dtype))
        return out, jnp.broadcast_to(jnp.asarray(t, out.dtype), jnp.shape(out))

    f.defjvp(rule, symbolic_zeros=True)
    f.gradient = gradient
    return f


def matrix_to_jax(level: MatrixLevel, single: bool) -> Callable:
    """The exported function of ``level`` (its formulas of the arguments):
    one array if ``single`` (the one formula), else a tuple of them."""
    if single and not shape_of(level.exprs[0]):
        f = _loss(level)
    else:
        lv = _JaxLevel(level)
        f = (lambda *xs: lv.fn(*xs)[0]) if single else (lambda *xs: lv.fn(*xs))
        f.level = lv
    f.source = level.kernel("jax").source
    return f
