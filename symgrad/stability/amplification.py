"""The first-order bound on each output's rounding error, at many rows in
floats (:func:`amplification`): where the search's carries, joint
cancellations and their ascent look for losses before any ground truth
is paid for (:mod:`.search`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from sympy import Add, Basic, Mul, Pow

from ..graph import postorder
from .bits import Format
from .floats import NodeEvaluator

__all__ = ["amplification", "NO_ROWS"]

NO_ROWS = np.zeros(0, dtype=np.int64)  # values_at: a node not computed


def amplification(nodes: NodeEvaluator, forms: Sequence[Basic], rows: np.ndarray,
                  fmt: Format, vals: dict | None = None) -> np.ndarray:
    """At each row, the largest over the outputs of ``log2(1 + E)``, ``E``
    the first-order bound on the output's relative error in units of the
    rounding of one operation, propagated node by node from exact inputs:
    a sum's is its terms' (plus the roundings of its partial sums) weighted
    by ``|term| / |sum|`` (its condition number), a product's the sum of its
    factors', a power's ``|p|`` times its
    base's, any other function's its argument's times its condition number
    ``|u f'(u) / f(u)|`` (estimated by a central difference in floats), a
    regime's that of the branch taken; plus 1 for the node's own rounding.
    Capped at the format's precision, 0 where nothing is known (NaN, inf).
    ``vals``: the nodes' float values at ``rows`` where the caller has them
    (:meth:`.floats.NodeEvaluator.values` of the same rows), not computed again.

    >>> from sympy import symbols, exp
    >>> from .bits import FORMATS
    >>> x, y = symbols("x y")
    >>> f = [(x**2 + y - 11)**2 + (x + y**2 - 7)**2]  # Himmelblau's: roots at (3, 2) ...
    >>> ev = NodeEvaluator(f, [x, y], np.float64)
    >>> rows = np.array([[0.0, 0.0], [3.0, 2.0001]])
    >>> amplification(ev, f, rows, FORMATS["float64"]).round(1)
    array([ 2.3, 16.9])
    >>> g = [exp(-30 * x)]  # exp turns the rounding of 30*x into a relative error
    >>> amplification(NodeEvaluator(g, [x], np.float64), g, rows, FORMATS["float64"]).round(1)
    array([1. , 6.5])
    """
    read, plan, numbers = _amplification_plan(nodes)
    if vals is None:
        vals = nodes.values_at([rows[:, j] for j in range(rows.shape[1])],
                               lambda node: None if node in read else NO_ROWS)
    n = len(rows)
    h = 2.0 ** -(fmt.prec // 2)
    big = 2.0 ** fmt.prec
    err: dict = {}  # a node's bound: an array over the rows, or one float for all of them
    floats: dict = {}

    def arr(node: Basic) -> np.ndarray:  # a node's values as floats over the rows, once
        got = floats.get(node)
        if got is None:
            a = np.asarray(vals[node], dtype=float)
            got = floats[node] = a if a.shape == (n,) else np.broadcast_to(a, (n,))
        return got

    with np.errstate(all="ignore"):
        for kind, node, what in plan:
            if kind == _PAIR:
                if what in err:
                    err[node] = err[what]
                continue
            if kind == _REGIME:
                taken = np.zeros(n, dtype=bool)
                e = np.zeros(n)
                for pair, cond in what:
                    c = np.broadcast_to(np.asarray(vals[cond], dtype=bool), (n,))
                    now = c & ~taken
                    e = np.where(now, err.get(pair, 0.0), e)
                    taken |= now
                err[node] = e
                continue
            if node in read:
                v = vals[node]
                if not isinstance(v, np.ndarray) or v.dtype.kind not in "fiu":
                    continue  # a condition
            if kind == _SUM:
                t = sum(np.abs(arr(k)) * (err.get(k, 0.0) + 1) for k in what)
                e = t / np.abs(arr(node)) - 1
            elif kind == _PRODUCT:  # (weights: 1, or a reciprocal factor's |exponent|)
                e = sum(err.get(k, 0.0) * w for k, w in what) + len(what) - 2
            elif kind == _POWER:
                k, w = what
                e = err.get(k, 0.0) * w
            elif kind == _OF_LEAVES:  # exact arguments: its own rounding only
                e = 0.0
            else:
                e = np.zeros(n)
                args = [vals[k] for k in what]
                op = nodes.op(node)
                v = arr(node)
                for i, k in enumerate(what):
                    ek = err.get(k, 0.0)
                    if k in numbers or not np.any(ek):
                        continue
                    u = np.asarray(args[i], dtype=float)
                    up, dn = list(args), list(args)
                    up[i] = np.asarray(u * (1 + h), dtype=nodes.dtype)
                    dn[i] = np.asarray(u * (1 - h), dtype=nodes.dtype)
                    d = np.broadcast_to(np.asarray(op(*up), dtype=float), (n,)) - \
                        np.broadcast_to(np.asarray(op(*dn), dtype=float), (n,))
                    cond = np.abs(d / (2 * h * v))
                    e = e + np.where(np.isfinite(cond), cond, 0.0) * ek
            if isinstance(e, np.ndarray):
                err[node] = np.where(np.isfinite(e), e, big) + 1.0
            else:
                err[node] = (float(e) if math.isfinite(e) else big) + 1.0
        out = np.zeros(n)
        for f in forms:
            if f in err:
                e = np.where(np.isnan(err[f]), 0.0, err[f])
                out = np.maximum(out, np.minimum(np.log2(1.0 + e), float(fmt.prec)))
    return out


_PAIR, _REGIME, _SUM, _PRODUCT, _POWER, _OF_LEAVES, _FUNCTION = range(7)
_PLANS: dict = {}  # id(NodeEvaluator) -> (the evaluator, its plan)


def _amplification_plan(nodes: NodeEvaluator) -> tuple[set, list, set]:
    """Once per evaluator: the nodes whose float values
    :func:`amplification` reads, with every node they are computed from;
    per node what it does; and the operands that are numbers (SymPy's
    questions, ``is_number`` a walk of a node's tree, asked once).  Read:
    a sum's and its terms' values (its condition number), a function's
    and its arguments' (the central difference), unless its arguments are
    all leaves (exact: nothing to propagate), and the conditions of a
    regime.  Not read: a product's and a power's (only their errors are)
    and a function of leaves' (a ``compensated(u)`` is a function of u's
    symbols, ~600 array operations in pairs; it was computed at every call
    of the joint climb and read by none)."""
    got = _PLANS.get(id(nodes))
    if got is not None and got[0] is nodes:
        return got[1]
    want: list = []
    plan: list = []
    numbers: set = set()
    for node in nodes.order:
        kids = nodes.kids.get(node, ())
        name = type(node).__name__
        if name == "ExprCondPair":
            if kids:
                plan.append((_PAIR, node, kids[0]))
            continue
        if name == "Piecewise":
            conds = [(pair, pair.cond) for pair in node.args]
            want += [c for _, c in conds]
            plan.append((_REGIME, node, conds))
            continue
        if not kids or node.is_Boolean or node.is_Relational:
            continue  # a leaf (exact), a number, a condition
        if isinstance(node, Add):
            want += [node, *kids]
            plan.append((_SUM, node, kids))
        elif isinstance(node, Mul):
            plan.append((_PRODUCT, node, [(k, 1.0 if k is a else float(abs(a.exp)))
                                          for k, a in zip(kids, node.args)]))
        elif isinstance(node, Pow) and node.exp.is_number:
            plan.append((_POWER, node, (kids[0], float(abs(node.exp)))))
        else:
            num = [k for k in kids if k.is_number]
            numbers.update(num)
            if all(k.is_Symbol or k in num for k in kids):
                plan.append((_OF_LEAVES, node, kids))
            else:
                want += [node, *kids]
                plan.append((_FUNCTION, node, kids))
    read = set(postorder(want, lambda x: nodes.kids.get(x, ()))[0])
    if len(_PLANS) > 64:
        _PLANS.clear()
    _PLANS[id(nodes)] = (nodes, (read, plan, numbers))
    return read, plan, numbers
