"""Series at the zero crossings where a formula of one variable cancels,
each in a regime whose interval is bisected against the ground truth
(issue 17 §3: the GELU gradient keeps 5.9 bits at its zero x = -0.7518
in every form the rewrites find).

For the worst points where the best form still loses bits, a root of the
formula nearby is found in mpmath (:func:`symgrad.rewrites.series.root_near`);
the Taylor polynomial about the float nearest it
(:func:`~symgrad.rewrites.series.taylor_about`, :func:`~symgrad.rewrites.series.horner`)
replaces the best form on the largest interval around it where the
polynomial is as accurate as that form or within the tolerance, found by
bisection over the float ordinals on each side (that interval, and two
narrower ones about the root).  What this yields are candidates like any
other: :func:`symgrad.stabilize` ranks them and verifies the one it chooses
on fresh points.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sympy import Expr, Piecewise, Symbol, lambdify

from ..rewrites.candidates import Candidate
from ..rewrites.series import horner, root_near, taylor_about
from .bits import ordinal
from .sampling import from_ordinal

__all__ = ["series_at_zeros"]

TERMS = (8, 16)  # polynomials tried about each root
MAX_ROOTS = 3  # distinct zero crossings tried per formula
SHRINK = (1.0, 0.5, 0.25)  # the bisected interval, and narrower ones
_STEPS = 48  # bisection steps over the float ordinals (2^48 floats apart at most)


def series_at_zeros(
    e: Expr, sym: Symbol, xs: np.ndarray, bits: np.ndarray, best: Expr,
    span: tuple[float, float], fmt, error_at: Callable[[Expr], Callable[[float], float]],
    tolerance: float,
) -> list[Candidate]:
    """Candidates ``Piecewise((series about a root, lo <= x <= hi), (best, True))``
    for the zero crossings of ``e`` (one variable ``sym``) near the points
    ``xs`` where ``best`` loses ``bits`` (> ``tolerance``), within ``span``
    (the variable's float range); ``error_at(form)(x)`` is a form's bits of
    error at one value of ``sym`` against the ground truth."""
    try:
        f = lambdify(sym, e, modules="mpmath")
    except Exception:  # noqa: BLE001  (no mpmath form: no series)
        return []
    out, done = [], []
    best_at = error_at(best)
    for i in np.argsort(-bits, kind="stable"):
        if len(done) >= MAX_ROOTS:
            break
        x0 = float(xs[i])
        if any(lo <= x0 <= hi for lo, hi in done):
            continue
        near = xs[np.abs(xs - x0) <= max(0.5 * abs(x0), 0.5)]
        width = max(float(np.max(np.abs(near - x0))) * 2, 1e-300, 0.25 * abs(x0))
        c = root_near(f, x0, width)
        if c is None:
            done.append((x0, x0))
            continue
        at = float(fmt.dtype.type(float(c)))
        if not span[0] <= at <= span[1]:
            continue
        reach = max(width, float(np.max(np.abs(near - at)))) * 4
        got = None
        every = taylor_about(f, at, max(TERMS))
        for terms in TERMS if every is not None else ():
            s = horner(every[:terms], sym, at)
            s_at = error_at(s)

            def good(v: float, s_at: Callable = s_at) -> bool:
                return s_at(v) <= max(best_at(v), tolerance / 2)

            if not good(at):
                continue
            lo = _edge(at, max(at - reach, span[0]), good, fmt)
            hi = _edge(at, min(at + reach, span[1]), good, fmt)
            if lo < hi:
                got = (s, lo, hi, terms)
        if got is None:
            done.append((x0, x0))
            continue
        s, lo, hi, terms = got
        done.append((lo, hi))
        # the bisection saw one point a step: the interval and two narrower
        # ones, for the measurement to choose among
        for k in SHRINK:
            a, b = at - (at - lo) * k, at + (hi - at) * k
            form = Piecewise((s, (sym >= a) & (sym <= b)), (best, True))
            out.append(Candidate(form, f"Taylor series at the zero {sym} = {float(c):.17g}, "
                                       f"{terms} terms, on [{a:.6g}, {b:.6g}]"))
    return out


def _edge(inside: float, outside: float, good: Callable[[float], bool], fmt) -> float:
    """The last float from ``inside`` (where ``good``) toward ``outside``
    that is ``good``, by bisection over the float ordinals (``outside``
    itself where it is good)."""
    if good(outside):
        return outside
    a = int(ordinal(np.array([inside], dtype=fmt.dtype), fmt)[0])
    b = int(ordinal(np.array([outside], dtype=fmt.dtype), fmt)[0])
    for _ in range(_STEPS):
        if abs(b - a) <= 1:
            break
        m = (a + b) // 2
        if good(float(from_ordinal(np.array([m]), fmt)[0])):
            a = m
        else:
            b = m
    return float(from_ordinal(np.array([a]), fmt)[0])
