"""Regimes: one form per region of a variable, as Herbie's ``regimes.rkt``
and ``bsearch.rkt`` choose them.

Given the bits of error of several forms at sample points sorted along one
variable, :func:`split` finds the segmentation that minimises the total
error plus a cost per split (so a split must pay for itself), by dynamic
programming over the points.  Between two regimes the threshold is then
refined by bisection on the float line (:func:`bisect_threshold`), asking
at each midpoint which of the two forms is the more accurate, and
:func:`piecewise` writes the result as a SymPy ``Piecewise``.  Nothing
here evaluates anything: the measurements come from the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from sympy import Basic, Expr, Float, Function, Mul, Piecewise, Pow, Symbol, cancel

from ..build import evaluated, mapped

__all__ = ["Segment", "split", "bisect_threshold", "piecewise", "into_branches"]


@dataclass(frozen=True)
class Segment:
    """Points ``start`` to ``end - 1`` (in sorted order) use form ``form``."""

    start: int
    end: int
    form: int


def split(errors: np.ndarray, cost: float) -> list[Segment]:
    """The segmentation of the points (columns of ``errors``, shape
    ``(forms, points)``, sorted along the variable) minimising the summed
    error of each segment's best form plus ``cost`` per split; ties go to
    the form listed first.

    >>> e = np.array([[0, 0, 0, 9, 9, 9],    # form 0: good on the left
    ...               [9, 9, 9, 0, 0, 0]])   # form 1: good on the right
    >>> split(e, cost=1.0)
    [Segment(start=0, end=3, form=0), Segment(start=3, end=6, form=1)]
    >>> split(e, cost=100.0)  # a split that does not pay for itself
    [Segment(start=0, end=6, form=0)]
    """
    errors = np.asarray(errors, dtype=np.float64)
    n_forms, n = errors.shape
    if n == 0:
        return []
    pre = np.concatenate([np.zeros((n_forms, 1)), np.cumsum(errors, axis=1)], axis=1)
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    form = np.zeros(n + 1, dtype=np.int64)
    penalty = np.full(n, cost)
    penalty[0] = 0.0  # the first segment is free
    for i in range(1, n + 1):
        seg = pre[:, i][:, None] - pre[:, :i]  # (forms, i): segment j..i-1 per form
        f = np.argmin(seg, axis=0)
        total = best[:i] + seg[f, np.arange(i)] + penalty[:i]
        j = int(np.argmin(total))
        best[i], back[i], form[i] = total[j], j, f[j]
    out: list[Segment] = []
    i = n
    while i > 0:
        j = int(back[i])
        out.append(Segment(j, i, int(form[i])))
        i = j
    return out[::-1]


def bisect_threshold(
    lo: float, hi: float, left_better: Callable[[float], bool], to_float: Callable,
    to_ordinal: Callable, steps: int = 24,
) -> float:
    """A threshold between ``lo`` (where the left form is used) and ``hi``
    (the right form), by bisection over the float ordinals: where
    ``left_better(m)`` the left form keeps its regime up to ``m``."""
    a, b = int(to_ordinal(lo)), int(to_ordinal(hi))
    for _ in range(steps):
        if b - a <= 1:
            break
        m = (a + b) // 2
        if left_better(float(to_float(m))):
            a = m
        else:
            b = m
    return float(to_float(b))


def piecewise(forms: Sequence[Expr], thresholds: Sequence[float], var: Symbol) -> Expr:
    """``forms[0]`` for ``var < thresholds[0]``, ``forms[1]`` up to
    ``thresholds[1]``, ..., the last form beyond.

    >>> from sympy import symbols
    >>> x = symbols("x")
    >>> piecewise([x, 2 * x], [0.5], x)
    Piecewise((x, x < 0.5), (2*x, True))
    """
    if len(forms) != len(thresholds) + 1:
        raise ValueError("piecewise needs one form more than thresholds")
    if len(forms) == 1:
        return forms[0]
    pairs = [(f, var < Float(t, 17)) for f, t in zip(forms, thresholds)]
    return Piecewise(*pairs, (forms[-1], True))


def _lifts(node: Basic) -> bool:
    """Whether ``node`` is a power by a number, or a function of one
    argument, of a ``Piecewise`` (whose branches it then takes in)."""
    if not node.args or not isinstance(node.args[0], Piecewise):
        return False
    if isinstance(node, Pow):
        return node.args[1].is_Number
    return isinstance(node, Function) and len(node.args) == 1


def into_branches(exprs: list[Basic]) -> list[Basic]:
    """``exprs`` with every product of a ``Piecewise`` and other factors
    written as one ``Piecewise`` whose values take the factors in, each
    simplified by ``cancel``: where a branch and its factor share one (the
    quadratic formula's conjugate branch ``-4ac/(b + √…)`` over ``2a``),
    the code no longer divides by it, and a branch no longer overflows or
    underflows through a factor that cancels.  One bottom-up pass over the
    DAG; a candidate for measurement, as every form.

    >>> from sympy import symbols, sqrt
    >>> a, b, c = symbols("a b c")
    >>> d = sqrt(b**2 - 4*a*c)
    >>> into_branches([Piecewise((-4*a*c / (b + d), b > 0), (d - b, True)) / (2*a)])
    [Piecewise((-2*c/(b + sqrt(-4*a*c + b**2)), b > 0), ((-b + sqrt(-4*a*c + b**2))/(2*a), True))]
    """
    return mapped(exprs, evaluated, after=_into_branch)


def _into_branch(cur: Basic) -> Basic:
    """``cur`` (a node over its rewritten arguments) taken into its
    ``Piecewise`` argument's branches (:func:`into_branches`)."""
    if isinstance(cur, Mul):
        pw = [f for f in cur.args if isinstance(f, Piecewise)]
        if len(pw) == 1:
            rest = Mul(*[f for f in cur.args if f is not pw[0]])
            try:
                cur = Piecewise(*[(cancel(v * rest), cond) for v, cond in pw[0].args])
            except Exception:  # noqa: BLE001  (SymPy's cancel gives up: as it was)
                pass
    elif _lifts(cur):
        # a root (or a function of one argument) of a Piecewise: one root per
        # branch, which the rewrites then see whole (sqrt(2·im²/(|z| - re)),
        # the complex square root's conjugate branch: its square taken out)
        f = cur.func
        rest = cur.args[1:]
        cur = Piecewise(*[(f(v, *rest), cond) for v, cond in cur.args[0].args])
    return cur
