"""``logsumexp`` near its zero in exported matrix code, recomputed from pairs
of floats as lambdify's NumPy code does (:mod:`symgrad.codegen.matrix_entry`).

The matrix code computes ``lse = m + log1p(r)`` (m the maximum, r the sum
of the other exponentials); near lse = 0, m and log1p(r) cancel and their
rounding errors, an ulp of m, become many ulps of the result.  Where more
than 4 bits cancel, ``_lse_near_zero`` recomputes the rows in pairs of
floats: each ``exp(a - m)`` as a pair (``_dd_exp``, the exported pair
arithmetic's), their sum pairwise, ``log1p`` of it by a
Newton step on the pair, plus m.  NumPy's code chooses those rows with a
branch on the data (``np.any``).  Under JAX the recomputation is NumPy's
own code, called on the host (``jax.pure_callback``) only when a row is
near 0: a ``lax.cond`` under ``jax.jit`` (under ``jax.vmap`` it runs for
every row), a branch in Python on eager arrays; written in ``jax.numpy``
the pair arithmetic took 2 s of XLA compilation per ``jax.jit`` of a
formula holding a logsumexp (measured 2026-11-27, at XLA's lowest
optimization level).  PyTorch runs the pairs itself, with a
Python branch on eager tensors (under ``torch.func`` transforms, on the
``meta`` device or while compiling, where the data cannot be read, the
pairs are computed for every row and selected).  Forward values only: the
derivatives of exported code are symgrad's.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["near_zero_helper"]

# PyTorch's, after the exported pair helpers (their _tnp. is symgrad.export.torch_pairs)
_TORCH = """

def _lse_pair_sum(h, lo, axis):
    # the pairs summed along axis (-1, -2, or a tuple: all entries), pairwise
    if isinstance(axis, tuple):
        h, lo = (v.reshape(tuple(v.shape[:-2]) + (-1, 1)) for v in (h, lo))
        axis = -2
    s = (h, lo)
    while s[0].shape[axis] > 1:
        if s[0].shape[axis] % 2:  # an odd count: a zero pair at the end
            s = tuple(_lse_pad(v, axis) for v in s)
        if axis == -2:
            s = _dd_add((s[0][..., 0::2, :], s[1][..., 0::2, :]),
                        (s[0][..., 1::2, :], s[1][..., 1::2, :]))
        else:
            s = _dd_add((s[0][..., 0::2], s[1][..., 0::2]), (s[0][..., 1::2], s[1][..., 1::2]))
    return s


def _lse_pairs(a, m, axis):
    # m + log1p(sum exp(a - m) - 1), in pairs of floats
    d = _dd_two_sum(a, -m)  # a - m exactly
    top = a == m  # exp(a - m) = 1 there: counted apart, so that r keeps its bits
    e = _dd_exp(d)
    e = (_tnp.where(top, 0.0, e[0]), _tnp.where(top, 0.0, e[1]))
    ones = _lse_ones(top, a)
    count = _lse_pair_sum(ones, ones * 0, axis)[0]  # exact
    r = _dd_add(_lse_pair_sum(e[0], e[1], axis), count - 1)
    s = _dd_add(_lse_log1p(r), m)
    return s[0] + s[1]


def _lse_log1p(r):
    # log1p of a pair r >= 0, relative to its value however small r is (the
    # pair 1 + r would keep only 53 bits of a tiny r): a Newton step from
    # the float log1p, y0 + (r - expm1(y0)) / (1 + r)
    y0 = _tnp.log1p(r[0])
    c = _dd_hi(_dd_add(r, _dd_neg(_dd_expm1(y0)))) / (1 + r[0])
    return _dd_two_sum(y0, c)


import torch as _torch


def _lse_pad(v, axis):
    shape = list(v.shape)
    shape[axis] = 1
    return _torch.cat([v, _torch.zeros(shape, dtype=v.dtype, device=v.device)], dim=axis)


def _lse_ones(top, a):
    return top.to(a.dtype)


def _lse_unreadable(t):
    # no data to branch on: under torch.func transforms, on 'meta', compiling
    return (t.device.type == "meta" or _torch._C._functorch.is_functorch_wrapped_tensor(t)
            or _torch.compiler.is_compiling())


def _lse_near_zero(a, m, lse, axis):
    near = _torch.abs(lse) < _torch.abs(m) * 0.0625
    if _lse_unreadable(near) or bool(near.any()):
        return _torch.where(near, _lse_pairs(a, m, axis), lse)
    return lse
"""

_MADE: list = []


def _jax_near_zero(a, m, lse, axis):
    """JAX's: the rows near 0 by NumPy's own code, on the host, only when
    one is (a ``lax.cond`` under ``jax.jit``; a small program to compile)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from ..codegen.matrix_entry import _lse_near_zero

    def host(a, m, lse):
        a, m, lse = (np.asarray(v) for v in (a, m, lse))
        return np.asarray(_lse_near_zero(a, m, lse, axis), lse.dtype)

    def recomputed():
        return jax.pure_callback(host, jax.ShapeDtypeStruct(lse.shape, lse.dtype), a, m, lse,
                                 vmap_method="broadcast_all")

    near = jnp.any(jnp.abs(lse) < jnp.abs(m) * 0.0625)
    if not isinstance(near, jax.core.Tracer):  # eager: a branch on the data
        return recomputed() if near else lse
    return jax.lax.cond(near, recomputed, lambda: lse)


def near_zero_helper(backend: str) -> Callable:
    """``_lse_near_zero(a, m, lse, axis)`` for ``backend`` ("jax" or
    "torch"): ``lse`` with the rows where more than 4 bits cancel
    recomputed in pairs of floats."""
    if backend == "jax":
        return _jax_near_zero
    if not _MADE:  # PyTorch's, compiled once
        from .source import _pair_helpers, compile_source

        _MADE.append(compile_source(_pair_helpers("torch") + _TORCH, "_lse_near_zero"))
    return _MADE[0]
