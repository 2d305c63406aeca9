"""Bits of error of a formula against mpmath, for the rewrite tests.

The formula *as written* is evaluated by SymPy's own NumPy lambdify (no
accurate forms); *what runs* by symgrad's lambdify.  The truth is the
source formula in Arb's ball arithmetic (python-flint, here directly, not
through symgrad), at a precision raised until the whole ball rounds to one
float: correctly rounded, proved.  Where Arb has no function for a node, or
gives no finite ball (a pole, a value only complex arithmetic reaches), it
is mpmath at a precision raised until two precisions round to the same
float; a point where they never agree is dropped.  (The stability package's
ground truth is the thorough one; this is a test oracle for formulas whose
cancellation is at most a few thousand bits.)
Samples are uniform over float ordinals (Herbie's sampling), so 1e-300
and 1e300 are both visited.
"""

from __future__ import annotations

import flint
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
    """The correctly rounded float64 value at each point, NaN where it is
    not established or not real: Arb's, where its ball rounds to one float
    at a precision of :data:`PRECISIONS`; else mpmath's (:func:`_mpmath_truth`)."""
    arb_f = _arb_function(expr, syms)
    n = len(points[syms[0]])
    out = np.full(n, np.nan)
    rest = []
    for k in range(n):
        got = _arb_round(arb_f, [float(points[s][k]) for s in syms]) if arb_f else None
        if got is None:
            rest.append(k)
        else:
            out[k] = got
    if rest:
        out[rest] = _mpmath_truth(expr, syms, {s: points[s][rest] for s in syms})
    return out


def _mpmath_truth(expr: sp.Expr, syms: list, points: dict) -> np.ndarray:
    """The precision is doubled until two in a row round to the same float,
    from values that are neither exactly 0 nor infinite in mpmath (two low
    precisions agree on 0 under total cancellation, on ±inf from log(0):
    that is not accepted until the highest; a value that is only below or
    beyond the float range, exp(-1e600), is accepted at once)."""
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


class _NoArb(Exception):
    """A node Arb has no function for."""


def _polygamma(n, x):
    v = flint.acb(x).polygamma(flint.acb(n))
    return v.real if v.imag.is_zero() else flint.arb("nan")


# SymPy function -> the Arb function of its arguments
_ARB = {
    sp.exp: flint.arb.exp, sp.log: flint.arb.log,
    sp.sin: flint.arb.sin, sp.cos: flint.arb.cos, sp.tan: flint.arb.tan,
    sp.asin: flint.arb.asin, sp.acos: flint.arb.acos, sp.atan: flint.arb.atan,
    sp.sinh: flint.arb.sinh, sp.cosh: flint.arb.cosh, sp.tanh: flint.arb.tanh,
    sp.asinh: flint.arb.asinh, sp.acosh: flint.arb.acosh, sp.atanh: flint.arb.atanh,
    sp.erf: flint.arb.erf, sp.erfc: flint.arb.erfc, sp.loggamma: flint.arb.lgamma,
    sp.gamma: flint.arb.gamma, sp.digamma: flint.arb.digamma, sp.polygamma: _polygamma,
    sp.Abs: abs, sp.atan2: flint.arb.atan2,
}
_ARB_NAMED = {"expm1": flint.arb.expm1, "log1p": flint.arb.log1p}
_CONSTANTS = {sp.pi: flint.arb.pi, sp.E: lambda: flint.arb(1).exp(),
              sp.EulerGamma: flint.arb.const_euler}


def _arb_function(expr: sp.Expr, syms: list):
    """``expr`` as a function of Arb balls (one per symbol), or None if a
    node has no Arb counterpart.  Each distinct node is evaluated once."""
    memo: dict = {}

    def build(e):
        if e in memo:
            return memo[e]
        if e.is_Symbol:
            i = syms.index(e)
            f = lambda a, i=i: a[i]  # noqa: E731
        elif e.is_Integer or e.is_Rational:
            q = flint.fmpq(int(e.p), int(e.q))
            f = lambda a, q=q: flint.arb(q)  # noqa: E731
        elif e.is_Float:
            sign, man, exp, _ = e._mpf_  # the Float's binary value, exactly
            m = -int(man) if sign else int(man)
            f = lambda a, m=m, k=int(exp): flint.arb(m) * flint.arb(2) ** k  # noqa: E731
        elif e in _CONSTANTS:
            f = lambda a, c=_CONSTANTS[e]: c()  # noqa: E731
        elif e.is_Add or e.is_Mul:
            parts = [build(t) for t in e.args]
            if e.is_Add:
                def f(a, parts=parts):
                    v = parts[0](a)
                    for p in parts[1:]:
                        v = v + p(a)
                    return v
            else:
                def f(a, parts=parts):
                    v = parts[0](a)
                    for p in parts[1:]:
                        v = v * p(a)
                    return v
        elif e.is_Pow:
            b, x = build(e.base), e.exp
            if x.is_Integer:
                f = lambda a, b=b, k=int(x): b(a) ** k  # noqa: E731
            elif x == sp.S.Half:
                f = lambda a, b=b: b(a).sqrt()  # noqa: E731
            else:
                xf = build(x)
                f = lambda a, b=b, xf=xf: b(a) ** xf(a)  # noqa: E731
        else:
            fn = _ARB.get(e.func) or _ARB_NAMED.get(type(e).__name__)
            if fn is None:
                raise _NoArb(type(e).__name__)
            parts = [build(t) for t in e.args]
            f = lambda a, fn=fn, parts=parts: fn(*[p(a) for p in parts])  # noqa: E731
        memo[e] = f
        return f

    try:
        return build(expr)
    except (_NoArb, ValueError):
        return None


def _arb_round(f, args: list) -> float | None:
    """The float nearest ``f`` at ``args``, proved: both ends of its ball
    round to it (round to nearest is monotone), at the first precision of
    :data:`PRECISIONS` where they do; None if no precision gives a finite
    real ball that does."""
    old = flint.ctx.prec
    try:
        for prec in PRECISIONS:
            flint.ctx.prec = prec
            try:
                v = f([flint.arb(x) for x in args])
            except (ZeroDivisionError, ValueError, TypeError):
                return None
            if not isinstance(v, flint.arb) or not v.is_finite():
                return None
            lo, hi = float(v.lower()), float(v.upper())
            if lo == hi:
                return lo
        return None
    finally:
        flint.ctx.prec = old


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
