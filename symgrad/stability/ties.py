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

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
from sympy import Add, Basic, Symbol

from ..lowering import unwiden
from .ascent import _along
from .bits import Format, ordinal
from .floats import NodeEvaluator
from .sampling import from_ordinal

__all__ = ["ties", "zeros_on_ties"]

STARTS = 2  # worst points whose ties are searched
GRID = 128  # points per tie line and start, in floats only
KEEP = 6  # points measured per tie line: a third each largest, exactly 0, at random
LINES = 6  # tie lines at most (pairs of variables and signs), the worst points' first
REFINE = 6  # rounds of GRID rows beyond the largest exact zero on a line
TIE_ZEROS = 2  # sums' zeros on a tie with other variables at 0 walked toward, at most
TIE_BASES = 8  # rows at everyday magnitudes at which a sum's zeros on ties are asked
TIE_SLIDE = 48  # values of the tie, each with the walked variables at their deepest steps
TIE_WALKED = 2  # variables walked to 0 together, at most ...
TIE_ASKS = 512  # ... and (tie, variables) asked, at most, the fewest variables first
TIE_MAX_VARIABLES = 6  # ... of sums of so many variables at most (as the joint landings')


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


def zeros_on_ties(forms: Sequence[Basic], symbols: Sequence[Symbol],
                  domain_ranges: Sequence[tuple[float, float]], fmt: Format,
                  seed: int) -> np.ndarray:
    """Rows where a sum of ``forms`` (the formulas they compute: inside a
    ``widen(u)`` or ``compensated(u)`` too) vanishes on a tie ``x_j = ±x_i``
    with other variables ``S`` at 0, and not on the tie alone nor at
    ``S = 0`` alone: on the tie, ``S`` walked down together by
    ``2**-(prec/2)`` a step to 0, and the tie slid to ``TIE_SLIDE`` other
    values (:func:`.ascent._along`), ``S`` there at its deepest steps
    (:func:`_walked_on_tie`).  At most ``TIE_ZEROS`` such (tie, ``S``),
    ``S`` of at most ``TIE_WALKED`` variables, sums of at most
    ``TIE_MAX_VARIABLES``; each asked of the sums'
    floats at ``TIE_BASES`` rows of everyday magnitudes (the sum within 16
    floats of its terms at 0 on the tie with ``S`` at 0 at every one, above
    ``2**-(prec/2)`` of them on the tie alone and at ``S = 0`` alone at
    some), the fewest variables first, ``TIE_ASKS`` at most.

    There the sum's true value vanishes with ``S`` (as ``S**2``: the
    initial bearing's denominator ``cos(y) sin(z) - sin(y) cos(z) cos(x)``
    is ``sin(y) cos(y) (1 - cos x)`` at ``y = z``), while a form in pairs
    of floats computes the two terms the tie makes equal in another order
    and keeps their rounding (2.7e-48 for -4.8e-119 at ``x = 3.9e-55``);
    where its other terms vanish with ``S`` too (the numerator
    ``sin(x) cos(z)``), that rounding is the output's every bit (56.5 bits
    lost; 1.0 reported).  The point is a float tie with a variable far
    below the others: the output's own zeros (:func:`.ascent._joint_zero`)
    are elsewhere, and a zero of the sum found along a variable has no
    tie.  Only at some values of the tie (one in five to ten on the
    bearing's) does the rounding not cancel: hence the slides.

    >>> from sympy import symbols, cos, sin
    >>> from .bits import FORMATS
    >>> x, y, z = symbols("x y z")
    >>> rows = zeros_on_ties([cos(y)*sin(z) - sin(y)*cos(z)*cos(x)], [x, y, z],
    ...                      [(-3.0, 3.0), (-1.5, 1.5), (-1.5, 1.5)], FORMATS["float64"], 0)
    >>> on = rows[rows[:, 1] == rows[:, 2]]  # y = z (the others one float off)
    >>> len(on) > 2 * (len(rows) - len(on)), bool((abs(on[:, 0]) < 1e-300).any())
    (True, True)
    """
    k = len(symbols)
    none = np.zeros((0, k), dtype=fmt.dtype)
    if k < 2:
        return none
    exact = list(dict.fromkeys(unwiden(list(forms))))
    nodes = NodeEvaluator(exact, symbols, fmt.dtype)
    where = {s: j for j, s in enumerate(symbols)}
    deps: dict = {}  # node -> the variables it is computed from (one pass over the DAG)
    for n in nodes.order:
        deps[n] = frozenset([where[n]]) if n in where else frozenset().union(
            *(deps[c] for c in nodes.kids[n]))
    sums = [n for n in nodes.order if isinstance(n, Add) and len(nodes.kids[n]) >= 2
            and sum(not c.is_number for c in nodes.kids[n]) >= 2
            and len(deps[n]) <= TIE_MAX_VARIABLES]
    lo = np.array([r[0] for r in domain_ranges], dtype=float)
    hi = np.array([r[1] for r in domain_ranges], dtype=float)
    asks = []  # (sum, (i, j, sign, S)): TIE_ASKS combinations at most, in the order met
    at: dict = {}  # combination -> its index
    for n, c in _combinations(sums, deps, lo, hi):
        if c not in at:
            if len(at) >= TIE_ASKS:
                break
            at[c] = len(at)
        asks.append((n, c))
    if not asks:
        return none
    combos = list(at)
    rng = np.random.default_rng(seed + 0x71E5)
    bases = _everyday(lo, hi, TIE_BASES, rng)
    # per combination and base: on the tie with S at 0, on the tie, at S = 0
    rows = np.repeat(bases[None, :, :], 3 * len(combos), axis=0).reshape(len(combos), 3,
                                                                         TIE_BASES, k)
    valid = np.ones((len(combos), TIE_BASES), dtype=bool)
    for m, (i, j, sign, S) in enumerate(combos):
        tied = _tied(bases, i, j, sign, lo, hi)
        valid[m] = ~np.isnan(tied[:, i])
        rows[m, 0], rows[m, 1] = tied, tied
        rows[m, 0][:, list(S)] = 0.0
        rows[m, 2][:, list(S)] = 0.0
    flat = np.nan_to_num(rows.reshape(-1, k)).astype(fmt.dtype)
    with np.errstate(all="ignore"):
        vals = nodes.values([flat[:, c] for c in range(k)])
    mags: dict = {}  # node -> |its values|, shape (combinations, 3, TIE_BASES)

    def mag(node: Basic) -> np.ndarray:
        got = mags.get(node)
        if got is None:
            a = np.abs(np.broadcast_to(np.asarray(vals[node], dtype=float), (len(flat),)))
            got = mags[node] = a.reshape(len(combos), 3, TIE_BASES)
        return got

    zero, some = 2.0**-(fmt.prec - 4), 2.0**-(fmt.prec // 2)
    found: list = []  # (i, j, sign, S, base)
    for n, c in asks:
        i, j, sign, S = c
        if len(found) >= TIE_ZEROS or c in [f[:4] for f in found] or any(
                (i, j, sign) == f[:3] and set(f[3]) < set(S) for f in found):
            continue  # (or a zero with fewer variables at 0 already)
        m = at[c]
        v = mag(n)[m]
        with np.errstate(all="ignore"):
            terms = np.max([mag(u)[m] for u in nodes.kids[n]], axis=0)
            asked = valid[m] & np.isfinite(terms).all(axis=0) & (terms > 0).all(axis=0)
            # 0 on the tie with S at 0 at every value asked (a zero set, not a
            # coincidence of magnitudes: one exponential above the rest), and
            # not on the tie alone nor at S = 0 alone at some
            on = v[0] <= zero * terms[0]
            off = asked & (v[1] > some * terms[1]) & (v[2] > some * terms[2])
        if asked.sum() >= 2 and on[asked].all() and off.any():
            found.append((i, j, sign, S, rows[m, 1, int(np.argmax(off))]))
    out = [r for i, j, sign, S, base in found
           for r in _walked_on_tie(base, i, j, sign, list(S), lo, hi, fmt)]
    if not out:
        return none
    out = np.array(out, dtype=fmt.dtype)
    _, first = np.unique(out.view(np.dtype((np.void, out.dtype.itemsize * k))),
                         return_index=True)
    return out[np.sort(first)]


def _combinations(sums: list, deps: dict, lo: np.ndarray, hi: np.ndarray):
    """(sum, (i, j, sign, S)) for each sum, tie ``x_j = sign * x_i`` that
    meets the box and variables ``S`` of the sum whose ranges hold 0, the
    fewest variables first (a generator: a sum of many variables has many)."""
    zero_in = (lo <= 0) & (hi >= 0)
    for size in range(1, TIE_WALKED + 1):
        for n in sums:
            d = sorted(deps[n])
            for i, j in itertools.combinations(d, 2):
                for sign in (1.0, -1.0):
                    a, b = sorted((sign * lo[j], sign * hi[j]))
                    if max(lo[i], a) >= min(hi[i], b):
                        continue  # (the tie does not meet the box)
                    rest = [m for m in d if m not in (i, j) and zero_in[m]]
                    for S in itertools.combinations(rest, size):
                        yield n, (i, j, sign, S)


def _everyday(lo: np.ndarray, hi: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` rows: half uniform in value over the box, half of magnitude
    ``2**U`` (U uniform over -8..8) of either sign the range allows, clipped
    to it."""
    u = rng.random((n, len(lo)))
    flat = lo * (1 - u) + hi * u  # (no overflow of hi - lo)
    mag = np.exp2(rng.uniform(-8, 8, size=(n, len(lo)))) * rng.choice([-1.0, 1.0], (n, len(lo)))
    rows = np.where(np.arange(n)[:, None] % 2 == 0, flat, np.clip(mag, lo, hi))
    return rows


def _tied(rows: np.ndarray, i: int, j: int, sign: float, lo: np.ndarray,
          hi: np.ndarray) -> np.ndarray:
    """``rows`` with ``x_j = sign * x_i`` (or ``x_i = sign * x_j`` where that
    is not in range; NaN rows where neither is)."""
    out = rows.astype(float)
    a = out[:, i].copy()
    b = out[:, j].copy()
    first = (sign * a >= lo[j]) & (sign * a <= hi[j])
    second = (sign * b >= lo[i]) & (sign * b <= hi[i])
    out[:, j] = np.where(first, sign * a, b)
    out[:, i] = np.where(first, a, np.where(second, sign * b, math.nan))
    return out


def _walked_on_tie(base: np.ndarray, i: int, j: int, sign: float, S: list, lo: np.ndarray,
                   hi: np.ndarray, fmt: Format) -> list:
    """Rows on the tie ``x_j = sign * x_i`` of ``base``: the variables ``S``
    walked down together by ``2**-(prec/2)`` a step to 0 (every step); and
    the tie at ``TIE_SLIDE`` other values, ``S`` at its two deepest steps
    before 0, and one float of ``x_j`` off the tie at the deepest (there
    the sum is about a float of ``x_i``, which a form computed wider keeps
    to only its own extra digits)."""
    near = 2.0**-(fmt.prec // 2)
    tiny = float(np.finfo(fmt.dtype).smallest_subnormal)
    s = np.asarray(base[S], dtype=float)
    depths = []
    while s.any():
        s = s * near
        s = np.where(np.abs(s) < tiny, 0.0, s).astype(fmt.dtype).astype(float)
        depths.append(s)
    rows = []
    for d in depths:
        r = base.copy()
        r[S] = d
        rows.append(r)
    deep = depths[-3:-1] if len(depths) > 2 else depths[:1]
    up = fmt.dtype.type(np.inf)
    for v in [base[i], *_along(lo[i], hi[i], *sorted((sign * lo[j], sign * hi[j])), base[i],
                               fmt, TIE_SLIDE)]:
        for d in deep + ["off"]:
            r = base.copy()
            r[i], r[j] = v, sign * v
            r[S] = deep[-1]
            if isinstance(d, str):  # (one float off the tie: the sum about a float of x_i)
                r[j] = float(np.nextafter(fmt.dtype.type(r[j]), up))
            else:
                r[S] = d
            rows.append(r)
    return [r for r in rows if ((r >= lo) & (r <= hi)).all()]
