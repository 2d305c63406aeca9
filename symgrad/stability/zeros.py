"""Series at the zero crossings where a formula of one variable cancels,
each in a regime whose interval is bisected against the ground truth
(issue 17 §3: the GELU gradient keeps 5.9 bits at its zero x = -0.7518
in every form the rewrites find).

For the worst points where the best form still loses bits, a root of the
formula nearby is found in mpmath (:func:`symgrad.rewrites.series.root_near`);
the Taylor polynomial about the float nearest it
(:func:`~symgrad.rewrites.series.taylor_about`, :func:`~symgrad.rewrites.series.horner`)
replaces the best form on the largest interval around it where the
polynomial keeps the tolerance (its worst error at three floats, and its
truncation computed exactly) or that form loses more than a bit past it
and the polynomial no more (:func:`_good`), found by bisection over
the float ordinals on each side, as far as four times the root's scale
(that interval, and narrower ones, each end shrunk on its own where the
best form keeps the tolerance over the band it takes back, :func:`_keeps`;
32 terms, or 16 or 8 where as good over nine tenths of it), beside
the best form with its exponentials of rounded arguments exact
(:meth:`symgrad.stability.stabilize._Search._zeros`).  What this yields are candidates like any
other: :func:`symgrad.stabilize` ranks them and verifies the one it chooses
on fresh points.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import numpy as np
from sympy import Abs, Dummy, Expr, Piecewise, Symbol

from ..rewrites.candidates import Candidate, taylor_coefficients
from ..rewrites.series import (
    exact_root,
    horner,
    mpmath_function,
    one_argument,
    root_near,
    series_radius,
    taylor_about,
)
from .bits import ordinal
from .sampling import from_ordinal

__all__ = ["series_at_zeros", "series_in_one_argument"]

TERMS = (8, 16, 32)  # polynomials tried about each root
MAX_ROOTS = 3  # distinct zero crossings tried per formula
# the bisected interval, and narrower ones: each end shrunk by these factors
SHRINK = ((1.0, 1.0), (1.0, 0.5), (0.5, 1.0), (0.5, 0.5), (0.25, 0.25))
_NOISE = 1 << 16  # ordinals to the other floats judging an edge (_good)
_BAND = 16  # floats judging the best form between a narrower interval's end and the bisected one
TRUNCATION = 2.0  # ulps of its value a series may lose to truncation where it keeps the tolerance
_STEPS = 32  # bisection steps over the float ordinals (a 2^-32 of the span at most)


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
        f = mpmath_function([sym], e)
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
        # a root at a simple number (0, an integer, p/q) that the iteration
        # found only to its tolerance is taken exactly (NMSE 3.9's 1/x -
        # 1/tan(x): -2.5e-309 for 0); about an exact root that is a float the
        # constant term is 0
        exact = exact_root(f, c)
        c = c if exact is None else exact
        at = float(fmt.dtype.type(float(c)))
        root = exact is not None and at == c
        if not span[0] <= at <= span[1]:
            continue
        # (as far as the root's own scale, at least: a polynomial of 32 terms
        # about the GELU-tanh gradient's zero is exact to 1.6 bits over
        # [-1.56, 0.09], and the form it replaces loses 3 bits at -1.23)
        reach = max(width, float(np.max(np.abs(near - at))), abs(at), 0.5) * 4
        got = None
        every = taylor_about(f, at, max(TERMS), radius=reach, root=root)
        # the most terms first, bisected; then each fewer-term polynomial,
        # fewest first, where it is good at nine tenths of that interval on
        # each side (more terms cost time in every evaluation, a 32-term
        # Horner sum under jax.jit as long as JAX's whole GELU gradient, and
        # buy nothing where fewer are as exact as far): two points, no
        # bisection
        for terms in sorted(TERMS, reverse=True) if every is not None else ():
            s = horner(every[:terms], sym, at)
            s_at = error_at(s)
            cut = _truncation(f, every[:terms], at, fmt)

            def good(v: float, s_at: Callable = s_at, cut: Callable = cut) -> bool:
                return _good(v, s_at, best_at, tolerance, fmt, cut)

            if not good(at):
                continue
            lo, hi = _interval(at, reach, span, good, fmt)
            if lo < hi:
                got = (s, lo, hi, terms)
                break
        if got is None:
            done.append((x0, x0))
            continue
        s, lo, hi, terms = got
        for fewer in sorted(t for t in TERMS if t < terms):
            p = horner(every[:fewer], sym, at)
            p_at = error_at(p)
            cut = _truncation(f, every[:fewer], at, fmt)
            a, b = at - 0.9 * (at - lo), at + 0.9 * (hi - at)
            if all(_good(v, p_at, best_at, tolerance, fmt, cut) for v in (at, a, b)):
                s, lo, hi, terms = p, a, b, fewer
                break
        done.append((lo, hi))
        # the bisection saw one point a step: the interval and narrower ones,
        # each side on its own, for the measurement to choose among (the
        # GELU-tanh gradient's 32-term series is exact over [-1.57, 0.09], but
        # its best form is too about 0, where the float ordinals crowd: the
        # whole interval lost to a narrow one on the mean, and the form beside
        # it loses 3 bits at -1.23)
        for k_lo, k_hi in SHRINK:
            a, b = at - (at - lo) * k_lo, at + (hi - at) * k_hi
            if not all(_keeps(end, far, best_at, tolerance, fmt)
                       for end, far, k in ((a, lo, k_lo), (b, hi, k_hi)) if k < 1):
                continue
            form = Piecewise((s, (sym >= a) & (sym <= b)), (best, True))
            out.append(Candidate(form, f"Taylor series at the zero {sym} = {float(c):.17g}, "
                                       f"{terms} terms, on [{a:.6g}, {b:.6g}]"))
    return out


def _good(v: float, s_at: Callable, best_at: Callable, tolerance: float, fmt,
          cut: Callable[[float], float] = lambda v: 0.0) -> bool:
    """Whether the series keeps the tolerance at ``v`` (its worst error at
    ``v`` and two floats ``2**16`` ordinals either side within it, and its
    truncation, ``cut(v)`` ulps computed exactly, within ``TRUNCATION``),
    or the best form loses more than a bit past the tolerance there and the
    series no more (the worst of its three errors against the worst of the
    best form's at the same three).  The error at one float is a draw of
    rounding noise (0 to 1.6 bits for a 32-term polynomial about the
    GELU-tanh gradient's zero; 0 to 3 for the best form beside it), and
    three draws miss its tail: judged at any one of the three against the
    best form's draw there, an edge passed where the truncation had cost
    3.17 bits (the GELU-erf gradient's 32-term series ended at x = -1.85877
    in float64, SiLU's at -3.10624 in float32; issue 17), and judged by the
    worst of three, the series' own three draws near -1.857 were within 2
    bits where its truncation cost 4 ulps (3.32 bits at x = -1.8535, seed
    11).  The truncation is no draw: smooth, measured at ``v`` alone."""
    ws = _three(v, fmt)
    series = max(s_at(w) for w in ws)
    if series <= tolerance and cut(v) <= TRUNCATION:
        return True
    best = max(best_at(w) for w in ws)
    return best > tolerance + 1 and series <= best


def _truncation(f: Callable, coeffs: list[float], at: float, fmt) -> Callable[[float], float]:
    """``v -> |P(v) - f(v)|`` in ulps of ``f(v)`` in ``fmt``: the Taylor
    polynomial ``P`` of ``coeffs`` about ``at`` evaluated exactly and ``f``
    (an mpmath function) at 50 digits; 0 where ``f`` has no value there."""
    cs = [mpmath.mpf(c) for c in coeffs]

    def cut(v: float) -> float:
        with mpmath.workdps(50):
            try:
                t = mpmath.mpf(v) - mpmath.mpf(at)
                poly = mpmath.mpf(0)
                for c in reversed(cs):
                    poly = poly * t + c
                fv = f(mpmath.mpf(v))
                if not mpmath.isfinite(fv) or fv == 0:
                    return 0.0
                unit = float(np.spacing(np.abs(fmt.dtype.type(float(fv)))))
                return float(abs(poly - fv)) / unit
            except (ValueError, ZeroDivisionError, TypeError, OverflowError):
                return 0.0
    return cut


def _keeps(end: float, far: float, best_at: Callable, tolerance: float, fmt) -> bool:
    """Whether the best form keeps the tolerance between a narrower
    interval's ``end`` and the bisected interval's (``far``), where the
    narrower interval hands the series' points to it: the worst of its
    errors at ``_BAND`` floats spread evenly over that band, its ends
    included.  The measurement choosing among the intervals sees few
    samples there, and chose on rounding noise in the mean a narrower
    interval that left the best form where it loses more than the
    tolerance (the derivative of x erfc(x), its 32-term series about the
    zero 0.5316 good over [-0.298, 1.316] in float64, cut to [0.324,
    0.728], the form beside it losing 3.2 to 3.5 bits at 0.73 to 0.86,
    where its errors at three floats about 0.728 were 2, 0 and 1.6)."""
    band = np.linspace(end, far, _BAND, dtype=np.float64).astype(fmt.dtype)
    return max(best_at(float(w)) for w in np.unique(band)) <= tolerance


def _three(v: float, fmt) -> list[float]:
    """``v`` and the floats ``2**16`` ordinals either side of it."""
    o = int(ordinal(np.array([v], dtype=fmt.dtype), fmt)[0])
    return [v] + [float(w) for w in from_ordinal(np.array([o - _NOISE, o + _NOISE]), fmt)]


def _interval(at: float, reach: float, span: tuple[float, float], good: Callable,
              fmt) -> tuple[float, float]:
    """The ends of the interval about ``at`` where ``good`` holds, within
    ``reach`` of it and inside ``span``, each bisected (:func:`_edge`)."""
    return (_edge(at, max(at - reach, span[0]), good, fmt),
            _edge(at, min(at + reach, span[1]), good, fmt))


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


ARGUMENT_TERMS = (6, 12, 24)  # Taylor polynomials in the one argument


def series_in_one_argument(e: Expr, best: Expr, value_of: Callable[[Expr], np.ndarray],
                           eps: float) -> list[Candidate]:
    """For a formula of several variables that is a function of one
    subexpression ``u`` (:func:`~symgrad.rewrites.series.one_argument`: CELU's
    α-derivative is ``g(x/y)``, cancelling wherever ``x/y`` is small),
    candidates ``Piecewise((Taylor polynomial of g at 0 in u, |u| < r), (best,
    True))``, ``r`` where the polynomial's last term is ``eps`` of its first
    (:func:`~symgrad.rewrites.series.series_radius`); none unless ``u`` is
    below 1 in magnitude at nine in ten of the losing points
    (``value_of(u)``: its values there)."""
    t = Dummy("t", real=True)
    got = one_argument(e, t)
    if got is None:
        return []
    u, g = got
    vals = np.abs(np.asarray(value_of(u), dtype=float))
    if not len(vals) or np.quantile(vals, 0.9) >= 1:
        return []
    out = []
    for terms in ARGUMENT_TERMS:
        cs = taylor_coefficients(g, t, 0, terms)
        r = series_radius(cs, eps) if cs is not None else None
        if r is None:
            continue
        near = horner(cs, u, 0.0)
        out.append(Candidate(Piecewise((near, Abs(u) < r), (best, True)),
                             f"Taylor series in {u} at 0, {terms} terms, where |{u}| < {r:.3g}"))
    return out
