"""Bits of error of a formula against mpmath, for the rewrite tests.

The formula *as written* is evaluated by SymPy's own NumPy lambdify (no
accurate forms); *what runs* by symgrad's lambdify.  The truth is the
source formula in mpmath, at a precision raised until two precisions
round to the same float; a point where they never agree is dropped.  (The
stability package's ground truth is the thorough one; this is a test
oracle for formulas whose cancellation is at most a few thousand bits.)
Samples are uniform over float ordinals (Herbie's sampling), so 1e-300
and 1e300 are both visited.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

import symgrad

PRECISIONS = (128, 256, 512, 1024, 2048, 4096, 8192)


def ordinals(v: np.ndarray) -> np.ndarray:
    """float64 -> int64, monotone over the floats (-0 and +0 both 0)."""
    i = np.asarray(v, dtype=np.float64).view(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFFFFFFFFFF), i)


def from_ordinals(o: np.ndarray) -> np.ndarray:
    o = np.asarray(o, dtype=np.int64)
    i = np.where(o < 0, (-o) | np.int64(-0x8000000000000000), o)
    return i.view(np.float64)


def sample(region: dict, n: int, seed: int = 0) -> dict:
    """``n`` points of the box ``region`` (symbol -> (lo, hi)), uniform in
    the float ordinal of each coordinate."""
    rng = np.random.default_rng(seed)
    out = {}
    for s, (lo, hi) in region.items():
        a, b = ordinals(np.array([float(lo), float(hi)]))
        out[s] = from_ordinals(rng.integers(a, b, size=n, endpoint=True))
    return out


def truth(expr: sp.Expr, syms: list, points: dict) -> np.ndarray:
    """The correctly rounded float64 value at each point: the precision is
    doubled until two in a row round to the same float, from values that
    are neither exactly 0 nor infinite in mpmath (two low precisions agree
    on 0 under total cancellation, on ±inf from log(0): that is not
    accepted until the highest; a value that is only below or beyond the
    float range, exp(-1e600), is accepted at once).  NaN where that never
    happens, or where the value is not real."""
    f = sp.lambdify(syms, expr, modules="mpmath")
    n = len(points[syms[0]])
    out = np.full(n, np.nan)
    for k in range(n):
        args = [mpmath.mpf(float(points[s][k])) for s in syms]
        prev = None
        for prec in PRECISIONS:
            with mpmath.workprec(prec):
                try:
                    got, sure = _to_float(f(*args))
                except (ZeroDivisionError, ValueError):
                    got, sure = None, False
            last = prec == PRECISIONS[-1]
            if got is not None and got == prev and (sure or last):
                out[k] = got
                break
            prev = got
    return out


def _to_float(val) -> tuple[float | None, bool]:
    """The float of an mpmath value, and whether the value was a finite,
    nonzero real number (not the 0 of a total cancellation, nor an inf)."""
    if val is None:
        return None, False
    if isinstance(val, mpmath.mpc):
        if abs(val.imag) > abs(val.real) * mpmath.mpf(2) ** -200 and val.imag != 0:
            return float("nan"), False
        val = val.real
    return float(val), bool(mpmath.isfinite(val) and val != 0)


def bits(computed: np.ndarray, true: np.ndarray) -> np.ndarray:
    """log2(1 + floats between computed and true); 64 where a finite truth
    got NaN or inf."""
    c = np.asarray(computed, dtype=np.float64)
    bad = ~np.isfinite(c) & np.isfinite(true)
    finite = np.isfinite(c) & np.isfinite(true)
    d = np.abs(ordinals(np.where(finite, c, 0.0)) - ordinals(np.where(finite, true, 0.0)))
    out = np.log2(1.0 + d.astype(np.float64))
    same_special = (c == true) | (np.isnan(c) & np.isnan(true))
    return np.where(bad, 64.0, np.where(same_special, 0.0, out))


def as_written(expr: sp.Expr, syms: list, points: dict) -> np.ndarray:
    f = sp.lambdify(syms, expr, modules=["scipy", "numpy"])  # erf, erfc: scipy.special
    with np.errstate(all="ignore"):
        return np.broadcast_to(f(*[points[s] for s in syms]), points[syms[0]].shape)


def as_run(expr: sp.Expr, syms: list, points: dict) -> np.ndarray:
    f = symgrad.lambdify(syms, expr)
    with np.errstate(all="ignore"):
        return np.broadcast_to(f(*[points[s] for s in syms]), points[syms[0]].shape)


def errors(source: sp.Expr, forms: dict, region: dict, n: int = 64, seed: int = 0) -> dict:
    """Bits of error of each of ``forms`` (name -> (expr, evaluator)) on
    ``n`` samples of ``region``, against the truth of ``source``; points
    where the truth is not a finite float are dropped."""
    syms = sorted(region, key=str)
    pts = sample(region, n, seed)
    true = truth(source, syms, pts)
    keep = np.isfinite(true)
    return {k: bits(ev(e, syms, pts), true)[keep] for k, (e, ev) in forms.items()}
