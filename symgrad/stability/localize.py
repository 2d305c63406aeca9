"""Explaining a bad point: the first event (a node turning inf or NaN from
finite operands) or, Herbie's localization, the node whose own rounding
error (or, for a sum, condition number) accounts for the error seen; see
:mod:`.analysis`."""

from __future__ import annotations

import math

import numpy as np
from sympy import Add, Basic

from .bits import bits_error, round_mpf
from .measurement import Measurement

__all__ = ["is_numeric", "events", "localize"]


def is_numeric(node: Basic) -> bool:
    return not (node.is_Boolean or node.is_Relational or type(node).__name__ == "ExprCondPair")


def events(order: list, kids: dict, vals: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The first event node (index into ``order``, -1 for none) at each
    point, and whether it is an overflow (else a domain error)."""
    first = np.full(n, -1)
    over = np.zeros(n, dtype=bool)
    for i, node in enumerate(order):
        ks = kids[node]
        if not ks or not is_numeric(node) or type(node).__name__ == "Piecewise":
            continue
        v = np.asarray(vals[node])
        ok_in = np.ones(n, dtype=bool)
        for k in ks:
            if is_numeric(k):
                ok_in &= np.isfinite(np.asarray(vals[k], dtype=float))
        bad = ok_in & ~np.isfinite(v) & (first < 0)
        first[bad] = i
        over[bad] = np.isinf(v[bad])
    return first, over


def _exact_nodes(m: Measurement, row: np.ndarray) -> list:
    """Every node of the evaluated form at ``row``, as the float nearest
    its exact value (NaN where undefined or not decided)."""
    _, _, vals, _ = m.local_truth.resolve(row)
    out = []
    for v in vals:
        if isinstance(v, bool):
            out.append(v)
        elif isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], tuple) and len(v[0]) == 4:
            out.append(round_mpf(v[0], m.fmt))
        else:  # UNDEF, UNKNOWN, or a Piecewise branch
            out.append(math.nan)
    return out


def localize(m: Measurement, rows: np.ndarray, sub: set,
              seen: np.ndarray) -> list[tuple[Basic, float, float, bool]]:
    """Per row: (culprit node, its local bits, its condition number, whether
    an operand of it underflowed: its exact value is 0 or subnormal).

    The culprit is the sum with the largest condition number where that
    number accounts for the error ``seen`` there (a subtraction amplifies
    the rounding errors of its operands: Herbie's localization), else the
    node with the largest local error."""
    prog = m.local_truth.program
    exact = np.array([_exact_nodes(m, r) for r in rows], dtype=object).T  # (nodes, rows)
    index = {n: i for i, n in enumerate(prog.order)}
    kids = m.nodes.kids
    best: list = [(None, -1.0, 1.0, False)] * len(rows)
    worst_add: list = [(None, 1.0, 0.0, False)] * len(rows)
    normal = math.ldexp(1.0, m.fmt.emin)
    for node in m.nodes.order:
        ks = kids.get(node, ())
        if node not in sub or not ks or not is_numeric(node) \
                or type(node).__name__ == "Piecewise":
            continue
        ex = np.array(exact[index[node]], dtype=float)
        args = [np.array(exact[index[k]], dtype=float).astype(m.fmt.dtype) if is_numeric(k)
                else np.array(exact[index[k]], dtype=bool) for k in ks]
        with np.errstate(all="ignore"):
            local = np.asarray(m.nodes.op(node)(*args), dtype=m.fmt.dtype)
            lb = bits_error(local, ex.astype(m.fmt.dtype), m.fmt)
            lb = np.where(np.isnan(lb), 0.0, lb)
            if isinstance(node, Add):
                cond = sum(np.abs(a.astype(float)) for a in args) / np.abs(ex)
            else:
                cond = np.ones(len(rows))
            # an underflow: inside the operation (a product or quotient rounding
            # to 0 or a subnormal, the exact value normal), or in an operand.
            # (Only a product or power: a form of several steps, such as
            # scaled(compensated(u)), that gives 0 from exact arguments where
            # its exact value is normal may as well cancel inside; until
            # 2026-11-28 it was called an underflow, and stabilize's "cannot
            # fix" said so of a zero surface, the weighted BCE gradient's.)
            under = np.zeros(len(rows), dtype=bool)
            if node.is_Mul or node.is_Pow:
                under |= (np.abs(local.astype(float)) < normal) & (np.abs(ex) >= normal)
            for k, a in zip(ks, args):
                if is_numeric(k) and not k.is_number:
                    under |= np.abs(a.astype(float)) < normal
        for j in range(len(rows)):
            if lb[j] > best[j][1]:
                best[j] = (node, float(lb[j]), float(cond[j]), bool(under[j]))
            if isinstance(node, Add) and not cond[j] <= worst_add[j][1]:
                worst_add[j] = (node, float(cond[j]), float(lb[j]), bool(under[j]))
    out = []
    for j in range(len(rows)):
        node, cond, lb, under = worst_add[j]
        if node is not None and (math.isinf(cond) or math.log2(cond) + 2 >= seen[j] / 2):
            out.append((node, lb, cond, under))
        else:
            out.append(best[j])
    return out
