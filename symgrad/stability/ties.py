"""Points where two variables are equal or opposite, exactly: :func:`ties`.

A formula symmetric under swapping or negating two variables often has an
exact value on the line where they tie (``x**4 - y**4`` is 0 at x = -y),
and code that rounds alike on both sides gets it exactly.  Code that does
not, does not: NumPy's ``x**4`` of an array is not symmetric in the sign
for about 5% of mantissas, so at x = -y the generated code returns ±1e90
for 0 at those floats only (62.4 bits), and whether the zero reached by the
search has one of them is luck: ``check_stability`` reported 62.4 at seed
11, 42.4 and 50.1 at seeds 12 and 13 (verdicts9's audit).  A form computed
in a wider type can lose along a tie too: ``widen(x*(-1 + x*(1 - x)/v))``
rounds ``1 - x`` to 1 for x below 2**-64 and returns 0 at x = v, where the
value is -x**2.

So: from the worst points measured, the tie lines of every pair of
variables (x_j = x_i and x_j = -x_i), with x_i at ``2**U`` floats from
the start (U uniform up to the precision and beyond), the form's own floats
computed at each (cheap, vectorized), and a few kept for the ground truth:
along each line, those where the code's value is largest in magnitude and
those where it is exactly 0 at the largest inputs (the two ways a tie's
exact value is missed), beside a few at random.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .bits import Format, ordinal
from .sampling import from_ordinal

__all__ = ["ties"]

STARTS = 2  # worst points whose ties are searched
GRID = 128  # points per tie line and start, in floats only
KEEP = 6  # points measured per tie line: a third each largest, exactly 0, at random
LINES = 6  # tie lines at most (pairs of variables and signs), the worst points' first
REFINE = 6  # rounds of GRID rows beyond the largest exact zero on a line


def ties(points: np.ndarray, bits: np.ndarray, values: Callable[[np.ndarray], np.ndarray],
         domain_ranges: Sequence[tuple[float, float]], fmt: Format, seed: int) -> np.ndarray:
    """Rows on the tie lines ``x_j = ±x_i`` of every pair of variables
    through the ``STARTS`` worst of ``points`` (``bits``: the worst error
    over the outputs at each, NaN where not measured), chosen by the form's
    floats ``values(rows)`` (shape (outputs, n)).  Returns the rows to measure.

    >>> from .bits import FORMATS
    >>> fmt = FORMATS["float64"]
    >>> pts = np.array([[3.0, -2.0], [1.5, 1.0]])
    >>> f = lambda r: (np.power(r[:, 0], 4) - np.power(r[:, 1], 4))[None, :]
    >>> rows = ties(pts, np.array([40.0, 3.0]), f, [(-1e75, 1e75)] * 2, fmt, 0)
    >>> on = rows[rows[:, 1] == -rows[:, 0]]
    >>> bool(len(on)) and bool((f(on)[0] != 0).any())  # NumPy's x**4: x = -y, not 0
    True
    """
    n, k = points.shape
    if n == 0 or k < 2:
        return points[:0]
    b = np.where(np.isnan(bits), -1.0, bits)
    starts = [int(i) for i in np.argsort(-b, kind="stable")[:STARTS] if b[i] >= 0]
    if not starts:
        return points[:0]
    rng = np.random.default_rng(seed + 0x71E)
    lo = np.array([r[0] for r in domain_ranges], dtype=float)
    hi = np.array([r[1] for r in domain_ranges], dtype=float)
    bounds = np.array([[int(v) for v in ordinal(np.array(r), fmt)] for r in domain_ranges])
    lines = [(i, j, s) for i in range(k) for j in range(i + 1, k) for s in (1, -1)
             if lo[j] <= s * hi[i] or lo[j] <= s * lo[i]]  # (the line meets the box)
    out = []
    for i, j, s in lines[:LINES]:
        rows = []
        for st in starts:
            o = int(ordinal(points[st:st + 1, i], fmt)[0])
            u = rng.uniform(0, fmt.prec + 8, size=GRID)
            step = np.exp2(u).astype(np.int64) * rng.choice([-1, 1], size=GRID)
            oi = np.clip(o + step, bounds[i, 0], bounds[i, 1])
            r = np.repeat(points[st:st + 1], GRID, axis=0)
            r[:, i] = from_ordinal(oi, fmt)
            r[:, j] = s * r[:, i]
            rows.append(r)
        r = np.concatenate(rows)
        r = r[(r[:, j] >= lo[j]) & (r[:, j] <= hi[j])]
        if not len(r):
            continue
        with np.errstate(all="ignore"):
            v = np.abs(np.asarray(values(r), dtype=float).reshape(-1, len(r))).max(axis=0)
        r, v = _largest_zero(r, v, i, j, s, values, bounds[i], lo[j], hi[j], fmt, rng)
        mag = np.abs(r[:, i].astype(float))
        big = np.flatnonzero(np.isfinite(v) & (v > 0))
        zero = np.flatnonzero(v == 0)
        pick = [*big[np.argsort(-v[big], kind="stable")][:KEEP // 3],
                *zero[np.argsort(-mag[zero], kind="stable")][:KEEP // 3]]
        rest = np.setdiff1d(np.arange(len(r)), pick)
        pick += list(rng.choice(rest, size=min(KEEP - len(pick), len(rest)), replace=False))
        out.append(r[np.unique(pick)])
    if not out:
        return points[:0]
    rows = np.concatenate(out)
    _, first = np.unique(rows.view(np.dtype((np.void, rows.dtype.itemsize * k))),
                         return_index=True)
    return rows[np.sort(first)]


def _largest_zero(r: np.ndarray, v: np.ndarray, i: int, j: int, s: int, values: Callable,
                  bound: np.ndarray, lo_j: float, hi_j: float, fmt: Format,
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The line's rows ``r`` and the code's largest magnitudes ``v`` there,
    with ``REFINE`` rounds of ``GRID`` more rows beyond the largest input
    where the code is exactly 0, drawn over a window above it: one binade
    at first, four times wider after a round whose largest zero is in the
    window's upper half (the zeros go on), a quarter as wide after any
    other.  The zeros need not be one interval (``1 - x`` rounds to 1 or
    not by the mantissa), so each round draws the whole window, not a
    bisection.  The widened beta form is 0 at x = v up to 1.665e-16 in
    float32 (27.47 bits); the grid's largest zero was 2.3e-18 to 1.6e-16
    by the seed (26.3 to 27.47 reported)."""
    width = 1 << (fmt.prec - 1)
    for _ in range(REFINE):
        zero = np.flatnonzero(v == 0)
        if not len(zero):
            break
        z = zero[np.argmax(np.abs(r[zero, i].astype(float)))]
        o = int(ordinal(r[z:z + 1, i], fmt)[0])
        sign = 1 if o >= 0 else -1
        step = rng.integers(1, width + 1, size=GRID)
        oi = np.clip(o + sign * step, bound[0], bound[1])
        new = np.repeat(r[z:z + 1], GRID, axis=0)
        new[:, i] = from_ordinal(oi, fmt)
        new[:, j] = s * new[:, i]
        keep = (new[:, j] >= lo_j) & (new[:, j] <= hi_j)
        new, step = new[keep], step[keep]
        if not len(new):
            break
        with np.errstate(all="ignore"):
            nv = np.abs(np.asarray(values(new), dtype=float).reshape(-1, len(new))).max(axis=0)
        r, v = np.concatenate([r, new]), np.concatenate([v, nv])
        on = step[nv == 0]
        width = width * 4 if len(on) and on.max() > width // 2 else max(width // 4, GRID)
    return r, v

