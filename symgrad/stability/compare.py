"""As written against as run: which of symgrad's accurate forms made the
difference, so a user learns both that ``exp(x) - 1`` loses bits and that
symgrad's code for it does not."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sympy import Basic, Symbol

from ..brief import brief
from ..graph import postorder
from ..lowering import lower
from ..rewrites import accurate_forms
from .bits import Format, bits_error
from .floats import NodeEvaluator
from .truth import RESOLVED

__all__ = ["rewrite_notes", "rewrites_applied", "as_written"]

MAX_NODES = 400  # finding each rewrite is quadratic in the formula's size


def rewrites_applied(exprs: Sequence[Basic]) -> list[tuple[Basic, Basic]]:
    """(subexpression as written, the accurate form it runs as), for each
    place where the code generator rewrites the (lowered) formula."""
    low = lower(list(exprs))
    order, kids = postorder(low, lambda n: n.args)
    if len(order) > MAX_NODES:
        return []
    same = {}
    pairs = []
    for node in order:
        r = accurate_forms([node])[0]
        same[node] = r == node
        if not same[node] and all(same[k] for k in kids[node]):
            pairs.append((node, r))
    return pairs


def as_written(exprs: Sequence[Basic]) -> dict[Basic, Basic]:
    """Each subexpression of the formula that runs -> the subexpression of
    the (lowered) formula as written that it comes from, where they differ
    (``log1p(x)`` -> ``log(x + 1)``), so culprits are named as the user
    wrote them."""
    low = lower(list(exprs))
    order, _ = postorder(low, lambda n: n.args)
    if len(order) > MAX_NODES:
        return {}
    back: dict[Basic, Basic] = {}
    for node in order:
        r = accurate_forms([node])[0]
        if r != node:
            back.setdefault(r, node)
    return back


def rewrite_notes(exprs: Sequence[Basic], form: Sequence[Basic], symbols: Sequence[Symbol],
                  points: np.ndarray, bits: np.ndarray, truth: np.ndarray, status: np.ndarray,
                  fmt: Format) -> list[str]:
    """One line per output whose accuracy the accurate forms changed."""
    low = lower(list(exprs))
    if list(form) == low:
        return []
    ne = NodeEvaluator(low, symbols, fmt.dtype)
    vals = ne.values([points[:, j] for j in range(len(symbols))])
    notes = []
    pairs = rewrites_applied(exprs)
    applied = "; ".join(f"{brief(a)} -> {brief(b)}" for a, b in pairs) or "accurate forms"
    for o, e in enumerate(low):
        ok = status[o] == RESOLVED
        if form[o] == e or not ok.any():
            continue
        written = bits_error(np.asarray(vals[e], dtype=fmt.dtype), truth[o], fmt)[ok]
        run = bits[o][ok]
        if abs(float(np.max(written)) - float(np.max(run))) >= 1 or \
                abs(float(np.mean(written)) - float(np.mean(run))) >= 0.5:
            notes.append(
                f"output {o}: as written max {np.max(written):.1f} bits (mean "
                f"{np.mean(written):.2f}); as symgrad runs it max {np.max(run):.1f} (mean "
                f"{np.mean(run):.2f}), by the rewrites {applied}"
            )
    return notes
