"""Proofs: bounds on every intermediate value over the whole domain.

Outward-rounded intervals (:mod:`.intervals`) are propagated through the
DAG over boxes that cover the domain (a wide range is split into pieces
uniform over its floats, so [0, 1e300] is cut at every scale).  Each
operation's interval is widened by what rounding in the target dtype can
add (``2**-(p - 10)`` relative, for correctly rounded arithmetic and a
libm within 1000 ulps, plus the smallest subnormal), so the bounds hold
for the *floats* the code computes, not only for the exact values.  Where
a node's bound stays inside the dtype's range and its function's domain
on every box, that is a proof for the whole domain:
"exp(x*y) cannot overflow on this domain: x*y <= 400 < 709.78".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
from mpmath.libmp import from_float, round_ceiling, round_floor, to_float
from sympy import Basic, Pow, Symbol, cosh, exp, sinh

from ..brief import brief
from .bits import Format, ordinal
from .boxes import (
    SLACK,
    UNDEFINED,
    UNKNOWN_S,
    VALUE,
    double_hi,
    double_lo,
    rerun,
    rounding,
    run,
)
from .intervals import UNDEF, UNKNOWN
from .report import Proof
from .sampling import float_range, from_ordinal
from .truth import Program

__all__ = ["prove", "node_bounds", "PIECES", "BOXES", "SLACK"]

PIECES = {1: 96, 2: 16, 3: 6}  # pieces per variable, by number of variables (else 2) ...
BOXES = 256  # ... and at most this many boxes: past 8 variables, the first 8 are halved
# (14 matrix entries made 2**14 boxes: 177 s of a 199 s check_stability)
_DOMAIN_FUNCS = ("log", "asin", "acos", "acosh", "atanh", "acoth", "asec", "acsc", "asech",
                 "loggamma", "gamma", "polygamma", "LambertW", "log1p", "erfinv", "cot", "coth",
                 "csch", "acot", "atan2", "Mod")


def _pieces(lo: float, hi: float, k: int, fmt: Format) -> list[tuple[float, float]]:
    lo, hi = float_range(lo, hi, fmt)
    a, b = (int(v) for v in ordinal(np.array([lo, hi]), fmt))
    if b - a < k:
        k = max(b - a, 1)
    cuts = np.unique(np.array([a + (b - a) * i // k for i in range(k + 1)], dtype=np.int64))
    fl = from_ordinal(cuts, fmt).astype(float)
    if len(fl) == 1:
        return [(float(fl[0]), float(fl[0]))]
    return [(float(fl[i]), float(fl[i + 1])) for i in range(len(fl) - 1)]


def node_bounds(form: Sequence[Basic], symbols: Sequence[Symbol], domain: dict,
                fmt: Format, fast: bool = True) -> tuple[Program, list]:
    """The hull over all boxes of each node's float enclosure: an interval
    ``(lo, hi)`` as floats, or UNDEF/UNKNOWN where some box has no bound.
    The boxes run together in arrays (:mod:`.boxes`); on those it leaves
    (a bound past its range) the nodes from there on, or every node of every
    box with ``fast=False``, run one box at a time in mpmath's intervals."""
    prog = Program(list(form), list(symbols))
    k = PIECES.get(len(symbols), 2)
    split = len(symbols) if k ** len(symbols) <= BOXES else int(math.log(BOXES, k))
    axes = [_pieces(*domain[s], k if j < split else 1, fmt) for j, s in enumerate(symbols)]
    boxes = list(itertools.product(*axes))
    hull: list = [None] * len(prog.order)
    if fast:
        ends = np.array(boxes, dtype=float).reshape(len(boxes), len(symbols), 2)
        got = run(prog, ends[:, :, 0].T.copy(), ends[:, :, 1].T.copy(), fmt, fmt.prec + 20)
        good = ~got.bad
        for i in range(len(hull)):
            st = got.state[i][good]
            if ((st == UNDEFINED) | (st == UNKNOWN_S)).any():
                hull[i] = UNKNOWN  # no bound on some box
                continue
            val = st == VALUE
            if val.any():
                hull[i] = (double_lo(got.lo[i][good][val].min()),
                           double_hi(got.hi[i][good][val].max()))
    widen = rounding(fmt)
    # the boxes left to mpmath: from the nodes where a bound left the range on
    # (all of each box with fast=False)
    runs = ((lambda j=j: rerun(prog, got, j, fmt.prec + 20, widen))
            for j in np.flatnonzero(got.bad).tolist()) if fast else \
        ((lambda box=box: prog.run([(from_float(a), from_float(b)) for a, b in box],
                                   fmt.prec + 20, post=widen)) for box in boxes)
    for values in runs:
        vals = values()
        for i, v in enumerate(vals):
            h = hull[i]
            if v is UNDEF or v is UNKNOWN:
                hull[i] = UNKNOWN  # no bound on some box
                continue
            if h is UNKNOWN or not (type(v) is tuple and type(v[0]) is tuple and len(v[0]) == 4):
                continue
            lo, hi = to_float(v[0], rnd=round_floor), to_float(v[1], rnd=round_ceiling)
            if math.isnan(lo) or math.isnan(hi):
                hull[i] = UNKNOWN
                continue
            hull[i] = (lo, hi) if h is None else (min(h[0], lo), max(h[1], hi))
    return prog, hull


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def prove(form: Sequence[Basic], symbols: Sequence[Symbol], domain: dict,
          fmt: Format) -> list[Proof]:
    """What the bounds prove for the whole domain (see the module doc)."""
    prog, hull = node_bounds(form, symbols, domain, fmt)
    proofs: list[Proof] = []
    index = {n: i for i, n in enumerate(prog.order)}
    numeric = [(n, hull[i]) for i, n in enumerate(prog.order)
               if n.args and not (n.is_Boolean or n.is_Relational)
               and type(n).__name__ != "ExprCondPair"]
    defined = all(isinstance(h, tuple) for _, h in numeric)
    finite = defined and all(max(abs(h[0]), abs(h[1])) <= fmt.max for _, h in numeric)
    logmax = math.log(fmt.max)
    if finite and not numeric:
        proofs.append(Proof("overflow", "no overflow is possible on this domain",
                            "the formula is a variable or a constant: no operation"))
    elif finite:
        big, where = max(((max(abs(h[0]), abs(h[1])), n) for n, h in numeric),
                         key=lambda t: t[0], default=(0.0, None))
        proofs.append(Proof("overflow", "no overflow is possible on this domain",
                            f"every intermediate value stays within +-{_fmt(big)} < "
                            f"{_fmt(fmt.max)} (the largest: {brief(where)})", where))
    else:
        for n, h in numeric:
            if not isinstance(n, (exp, sinh, cosh)) or not isinstance(h, tuple):
                continue
            a = hull[index[n.args[0]]]
            if not isinstance(a, tuple) or max(abs(h[0]), abs(h[1])) > fmt.max:
                continue
            arg = n.args[0]
            bound = a[1] if isinstance(n, exp) else max(abs(a[0]), abs(a[1]))
            what = brief(arg) if isinstance(n, exp) else f"|{brief(arg)}|"
            limit = logmax if isinstance(n, exp) else math.log(2 * fmt.max)
            proofs.append(Proof("overflow", f"{brief(n)} cannot overflow on this domain",
                                f"{what} <= {_fmt(bound)} < {_fmt(limit)}", n))
    if defined:
        reasons = []
        for n, _ in numeric:
            name = type(n).__name__
            if name in _DOMAIN_FUNCS or (isinstance(n, Pow) and (not n.exp.is_integer
                                                                   or n.exp.is_negative)):
                arg = n.base if isinstance(n, Pow) else n.args[-1] if name == "polygamma" \
                    else n.args[0]
                a = hull[index[arg]]
                reasons.append(f"{brief(arg)} in [{_fmt(a[0])}, {_fmt(a[1])}] for {brief(n)}")
        proofs.append(Proof("domain", "no domain error or division by zero is possible",
                            "; ".join(reasons) if reasons else "no operation here has a "
                            "restricted domain"))
        if finite:
            proofs.append(Proof("nan", "no NaN is possible on this domain",
                                "every operation is defined and finite on all of it"))
    return proofs
