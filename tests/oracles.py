"""Oracles the tests compare symgrad with: symbolic equality (as SymPy can
decide it) and high-precision numbers (mpmath, through ``evalf``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import mpmath
from sympy import Basic, Expr, Rational, S, simplify

from symgrad.graph import postorder

__all__ = ["same", "exact", "value", "central_difference", "close", "dag_values"]

DPS = 50  # digits the numeric oracles work with
STEP = Rational(1, 10**15)  # central-difference step: error ~ STEP**2 ≈ 1e-30


def same(a: Expr, b: Expr) -> bool:
    """Whether SymPy can show ``a == b``: structurally, by ``simplify(a - b)``,
    or (a fallback) by ``a.equals(b)``."""
    if a == b:
        return True
    if simplify(a - b) == 0:
        return True
    return bool(a.equals(b))


def exact(v: float | int | str) -> Rational:
    """A sample coordinate as an exact rational (its shortest decimal)."""
    return v if isinstance(v, Rational) else Rational(str(v))


def value(expr: Basic, point: Mapping, dps: int = DPS) -> mpmath.mpf | mpmath.mpc:
    """``expr`` at ``point`` (symbol -> number), to ``dps`` digits."""
    e = expr.xreplace({s: exact(v) for s, v in point.items()})
    r = e.evalf(dps + 10) if isinstance(e, Basic) else S(e)
    re_, im_ = r.as_real_imag()
    if not (re_.is_Number and im_.is_Number) or not (re_.is_finite and im_.is_finite):
        raise ValueError(f"{expr} does not evaluate to a finite number at {dict(point)}: {r}")
    with mpmath.workdps(dps + 10):
        re_m, im_m = mpmath.mpf(re_), mpmath.mpf(im_)
        return re_m if im_m == 0 else mpmath.mpc(re_m, im_m)


def central_difference(expr: Expr, point: Mapping, s: Basic) -> mpmath.mpf:
    """(f(p + h·eₛ) − f(p − h·eₛ)) / 2h at ``dps`` digits, h = 1e-15."""
    p = {k: exact(v) for k, v in point.items()}
    up = dict(p)
    down = dict(p)
    up[s] = p[s] + STEP
    down[s] = p[s] - STEP
    with mpmath.workdps(DPS):
        return (value(expr, up) - value(expr, down)) / (2 * mpmath.mpf(STEP.p) / STEP.q)


def close(a, b, rel: float = 1e-20) -> bool:
    """``|a - b| <= rel · max(1, |b|)``."""
    with mpmath.workdps(DPS):
        return abs(a - b) <= rel * max(1, abs(b))


def dag_values(exprs: Sequence[Basic], point: Mapping, dps: int = DPS) -> list:
    """``exprs`` at ``point``, evaluated node by node over their DAG (each
    distinct subexpression once, no recursion), in mpmath at ``dps`` digits.

    For formulas too deep for ``evalf`` (which recurses).  Handles Add, Mul,
    Pow, numbers, symbols and functions mpmath has under the same name.
    """
    with mpmath.workdps(dps):
        order, kids = postorder(exprs, lambda n: n.args)
        val: dict = {s: mpmath.mpf(exact(v).p) / exact(v).q for s, v in point.items()}
        for node in order:
            if node in val:
                continue
            args = [val[k] for k in kids[node]]
            if node.is_Number or node.is_NumberSymbol:
                val[node] = mpmath.mpf(node.evalf(dps + 10))
            elif node.is_Add:
                val[node] = mpmath.fsum(args)
            elif node.is_Mul:
                val[node] = mpmath.fprod(args)
            elif node.is_Pow:
                val[node] = args[0] ** args[1]
            elif node.is_Function and hasattr(mpmath, type(node).__name__):
                val[node] = getattr(mpmath, type(node).__name__)(*args)
            else:
                raise TypeError(f"dag_values cannot evaluate {type(node).__name__}: {node}")
        return [val[e] for e in exprs]
