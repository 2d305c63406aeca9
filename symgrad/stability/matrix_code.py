"""The code ``lambdify`` writes for a matrix formula, run at the points of a
check over its entry symbols.

``check_stability`` measures a matrix formula entry by entry (each entry a
scalar formula of the entry symbols ``W_i_j``, :mod:`symgrad.matrices.entries`),
but what runs is the matrix code: a batch of matrices through BLAS products,
and reductions that do more than their entries' formulas say
(``logsumexp`` recomputed from pairs of floats where ``m + log1p(r)``
cancels; ``softmax`` without its shift where the logits allow).  Measuring
the entries' own code reported losses the matrix code does not have
(``logsumexp`` of three logits: 50.7 bits near its zero, where the matrix
code is exact).  :func:`matrix_run` gives the matrix code as a function of
the entry symbols' columns, one value per output entry, row-major, as the
entries are listed; None where the formula's outputs are not a matrix
formula or a list of them, or the code does not take a batch of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from sympy import Basic, MatrixSymbol, Symbol

from ..codegen import lambdify
from ..matrices.entries import entry_symbols

__all__ = ["matrix_run"]


def matrix_run(expr: object, domain: Mapping, symbols: Sequence[Symbol],
               dtype: np.dtype, n_out: int, entries: Callable | None = None) -> Callable | None:
    """``run(*columns) -> list of n_out arrays``: the matrix code of
    ``expr`` (a matrix or scalar formula over the matrix symbols of
    ``domain``, or a list or tuple of them) at points given as one column
    per entry symbol of ``symbols``; None where that code is not available
    (then the entries' own code is measured).  With ``entries`` (the
    entries' own code), the first call compares the two at its first 16
    points and, where they differ by more than 2**-20 of the value
    (entries assembled wrongly: a broadcast of a scalar against a batch
    of matrices), runs the entries' code from then on.

    >>> import sympy as sp
    >>> from symgrad.matrices import logsumexp
    >>> z = sp.MatrixSymbol("z", 3, 1)
    >>> run = matrix_run(logsumexp(z), {z: (-1, 1)}, list(entry_symbols(z)), np.float64, 1)
    >>> cols = [np.array([-10.949584171568274, 0.0]), np.array([-11.947444080248637, 0.0]),
    ...         np.array([-2.4041370186788046e-05, 0.0])]
    >>> [float(v) for v in run(*cols)[0]]  # the entries' m + log1p(r): 6.8e-21 for 9.58e-21
    [9.580597767560193e-21, 1.0986122886681098]
    """
    mats = [k for k in domain if isinstance(k, MatrixSymbol)]
    outs = list(expr) if isinstance(expr, (list, tuple)) else [expr]
    if not mats or not all(isinstance(o, Basic) for o in outs):
        return None
    where = {s: j for j, s in enumerate(symbols)}
    cells = {}
    for W in mats:
        E = entry_symbols(W)
        cells[W] = np.array([[where.get(E[i, j], -1) for j in range(E.shape[1])]
                               for i in range(E.shape[0])], dtype=np.int64)
    taken = {s for W in mats for s in entry_symbols(W)}
    scalars = [s for s in symbols if s not in taken]
    try:
        fn = lambdify(mats + scalars, outs, dtype=dtype)
    except Exception:  # noqa: BLE001  (no matrix code: the entries' code is measured)
        return None

    def run(*xs: np.ndarray) -> list[np.ndarray]:
        n = len(xs[0]) if xs else 1
        args = []
        for W in mats:
            idx = cells[W]
            a = np.zeros((n, *idx.shape), dtype=dtype)
            for (i, j), k in np.ndenumerate(idx):
                if k >= 0:  # (an entry the formula does not use stays 0)
                    a[:, i, j] = xs[k]
            args.append(a)
        args += [np.asarray(xs[where[s]], dtype=dtype) for s in scalars]
        with np.errstate(all="ignore"):
            got = fn(*args)
        flat = np.concatenate([np.asarray(o, dtype=dtype).reshape(n, -1) for o in got], axis=1)
        return [flat[:, k] for k in range(flat.shape[1])]

    try:  # the code takes a batch and gives one value per output entry
        probe = run(*[np.zeros(2, dtype=dtype) for _ in symbols])
    except Exception:  # noqa: BLE001
        return None
    if len(probe) != n_out:
        return None
    if entries is None:
        return run
    chosen: list[Callable] = []

    def checked(*xs: np.ndarray) -> list[np.ndarray]:
        if not chosen:
            head = [x[:16] for x in xs]
            a = np.array([np.asarray(v, dtype=float) for v in run(*head)])
            b = np.array([np.asarray(v, dtype=float) for v in entries(*head)])
            ok = np.isfinite(a) & np.isfinite(b)
            with np.errstate(all="ignore"):
                far = np.abs(a - b) > 2.0**-20 * np.maximum(np.abs(a), np.abs(b))
            chosen.append(entries if (ok & far).any() else run)
        return chosen[0](*xs)

    return checked
