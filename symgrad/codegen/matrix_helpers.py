"""What the code of a matrix formula calls (:mod:`symgrad.codegen.matrix`).

Real code, linted and tested here; a generated module carries this text
(after this docstring and the imports) so that ``numpy_code`` stays
NumPy-only and a pickled function loads without symgrad.  The export to
JAX and PyTorch runs the same text over ``jax.numpy`` or a stand-in for
NumPy over tensors, so these use only what those provide and never write
into an array (``_along``, which does, the export replaces); lambdify's
NumPy-only additions are :mod:`.matrix_entry`.
"""

import numpy as np


def _along(op, a, axis):
    """op-reduction along one short axis (-1 or -2), kept: NumPy's own
    reduction over a short inner axis is slow, a few whole-array ops are not;
    over the entries of vectors, a sum is a product with ones (BLAS's gemv,
    one call: 4x faster than the additions at 10 entries), and another
    reduction runs over the transposed entries (one call, 1.5x faster)."""
    if isinstance(axis, tuple) or a.shape[axis] > 32:
        return op.reduce(a, axis=axis, keepdims=True)
    n = a.shape[axis]
    if a.shape[-3 - axis] == 1 and a.flags.c_contiguous:  # vectors: (.., n, 1), (.., 1, n)
        flat, keep = a.reshape(-1, n), a.shape[:-2] + (1, 1)
        if op is np.add and a.dtype.kind == "f":
            return (flat @ np.ones(n, a.dtype)).reshape(keep)
        # entries i of all the vectors made contiguous: one reduction over rows
        return op.reduce(np.ascontiguousarray(flat.T), axis=0).reshape(keep)
    take = (lambda k: a[..., k:k + 1, :]) if axis == -2 else (lambda k: a[..., k:k + 1])
    out = take(0).copy()
    for k in range(1, n):
        op(out, take(k), out=out)
    return out


def _finite_max(a, axis):
    """The maximum along axis, 0 where it is not finite (all -inf, or inf)."""
    m = _along(np.maximum, a, axis)
    return np.where(np.isfinite(m), m, 0.0)


def _exp_shift(a, m):
    """exp(a - m) for a <= m, the rounding of a - m undone: with d + lo = a - m
    exactly (Knuth's TwoSum), exp(a - m) = exp(d)*(1 + lo) to within an ulp.
    The rounding of d alone (up to |d|/2 ulps of d, hundreds where logits are
    hundreds apart) would be amplified by exp into as many ulps of the result.
    lo is NaN only where a is infinite (exp(d) is then 0 or inf): fmin makes
    it 1 there, which leaves 0 and inf as they are.  Where a = m, exp(0) is
    exactly 1."""
    d = a - m
    b = d - a
    lo = np.fmin((a - (d - b)) - (m + b), 1.0)
    return np.exp(d)*(1.0 + lo)


def _rest(a, m, e, axis):
    """Σ exp(a - m) - 1 along axis, the terms at the maximum (e exactly 1
    there) counted apart from the others, so that log1p of it keeps the bits
    of log_softmax where one logit dominates."""
    top = a == m
    return _along(np.add, np.where(top, 0.0, e), axis) + (
        _along(np.add, np.where(top, e, 0.0), axis) - 1)


def _norm(a, axis=(-2, -1)):
    """sqrt(sum(a**2)) over all entries or along one axis (-2 or -1), scaled
    by the largest magnitude there: no overflow or underflow."""
    s = np.max(np.abs(a), axis=axis, keepdims=True)
    safe = np.where(s > 0, s, 1.0)
    return np.where(s > 0, s*np.sqrt(np.sum((a/safe)**2, axis=axis, keepdims=True)), 0.0)


def _spread(a, axis, n):
    """a (of length 1 along axis) repeated n times along it: a view."""
    shape = list(a.shape)
    shape[axis] = n
    return np.broadcast_to(a, tuple(shape))


def _stack(rows):
    """A matrix of entries (rows of numbers, or arrays whose last two axes
    are (1, 1) and whose leading axes are a batch's), the entries along the
    last two axes of the result, the batch's axes before them."""
    vals = [[np.asarray(v) for v in r] for r in rows]
    shape = np.broadcast_shapes((1, 1), *[v.shape for r in vals for v in r])
    return np.concatenate([np.concatenate([np.broadcast_to(v, shape) for v in r], axis=-1)
                           for r in vals], axis=-2)


def _cast(a, dt):
    """A constant array in the computation's float type (None: as made)."""
    return a if dt is None else a.astype(dt, copy=False)


def _arg(a, shape, name, dt=float):
    """A matrix argument as an array whose last two axes are ``shape``."""
    a = np.asarray(a, dtype=dt)
    if a.shape[-2:] != shape:
        raise ValueError(f"argument {name}: expected an array whose last two axes are "
                         f"{shape} (leading axes are a batch), got shape {a.shape}")
    return a
