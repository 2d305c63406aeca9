"""Limits at the infinite ends of the domain: SymPy's ``limit`` beside
what the floats give at the largest float of that end."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from sympy import Basic, Symbol, limit, oo

from ..graph import count_ops, free_symbols
from ..lowering import lower
from .report import Limit

__all__ = ["limits_at_infinity", "MAX_OPS"]

MAX_OPS = 60  # SymPy's limit can take very long on large formulas: skip those


def limits_at_infinity(exprs: Sequence[Basic], symbols: Sequence[Symbol], domain: dict,
                       compute: Callable, fmt_max: float) -> list[Limit]:
    """For each output of one variable and each infinite end of it."""
    out = []
    low = lower(list(exprs))
    for j, s in enumerate(symbols):
        lo, hi = domain[s]
        for end in (lo, hi):
            if np.isfinite(end):
                continue
            at = float(np.copysign(fmt_max, end))
            row = np.ones((1, len(symbols)))
            row[0, j] = at
            computed = compute(row)
            for o, e in enumerate(low):
                if count_ops([e]) > MAX_OPS or free_symbols([e]) != {s}:
                    continue
                try:
                    lim = limit(e, s, oo if end > 0 else -oo)
                except Exception:  # noqa: BLE001  (SymPy raises many kinds)
                    lim = None
                out.append(Limit(o, s, float(end), lim, at, float(computed[o][0])))
    return out
