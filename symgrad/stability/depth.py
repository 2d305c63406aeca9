"""The deepest zeros of a form computed beyond its format (in pairs of floats,
or wider), where it loses the most: :func:`deepest_zeros`.

A form in pairs is exact only to about 2**-48 (float32) or 2**-100
(float64) of its terms.  Beside a zero of the output the value is smaller
than its terms by the distance of the nearest float to the zero: a float is
a step of the grid, and the zero falls anywhere between two of them.  Along
a zero surface of two or three variables some floats come much nearer than
the average, and there the pairs' error is the whole value: van der Waals'
pressure ``-x/y**2 + z/(y - 1/20)`` in float32 pairs was verified at 2.3
bits, and an independent measurement near its zero surface finds 5.0 at 130
points and 7.8 at 580 (verdicts8's family c).  The steps toward the
output's zero (:func:`.ascent.toward_zeros`) reach a zero, not the deepest.

So: along each variable, from many base rows, the sign changes of the
output as the form itself computes it (in pairs its sign is right down to
its precision) bisected to two floats; each zero's depth is the value at
the nearer float over the line's own scale (the median of the values along
it: ``exp(x) - y`` along x near y = 1 + 2**-52 has its zero at
x ~ 2**-52, where floats are 2**-104 apart, and is ~2**-104 of its terms
deep); from the deepest, the zero again with another variable moved a few
floats (a walk on the zero surface: the nearest float's distance changes
from one to the next); and the ground truth measured at the deepest found.
Floats only, but for the points kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..progress import tick
from .bits import Format, ordinal
from .sampling import from_ordinal

__all__ = ["deepest_zeros", "DEEP_BASES", "DEEP_KEEP"]

DEEP_BASES = 24  # base rows per variable whose line is searched (3 variables or fewer)
GRID = 32  # grid points along a line, over the floats and in value (each)
DEEP_WALK = 4  # the deepest zeros walked from ...
WALK = 1024  # ... each other variable moved by up to this many floats each way
TURN = 2  # the deepest zeros from which lines run along each other variable ...
TURNS = 16  # ... that zero's variable moved by up to this many floats each way
DEEP_KEEP = 12  # points measured: the deepest found
ROUNDS = 4  # bisection rounds evaluated together, at most ...
# ... in calls of at most this many rows (a form in pairs costs 5-60 us a row beside
# its 2.5-7 ms a call: past a few hundred rows more rounds a call no longer pay)
ROUND_ROWS = 255


def deepest_zeros(points: np.ndarray, values: Callable[[np.ndarray], np.ndarray],
                  probe: Callable[[np.ndarray], object],
                  domain_ranges: Sequence[tuple[float, float]], fmt: Format,
                  seed: int) -> np.ndarray:
    """The deepest zeros of the outputs ``values(rows)`` (the form's floats,
    shape (outputs, n)) along each variable, from base rows among
    ``points`` (where every output is finite), measured with
    ``probe(rows)``.  Returns the rows measured.

    >>> from .bits import FORMATS
    >>> fmt = FORMATS["float64"]
    >>> pts = np.array([[0.3, 1.2], [1.0, 0.9], [-0.5, 1.7]])
    >>> vals = lambda r: (np.exp(r[:, 0]) - r[:, 1])[None, :]
    >>> rows = deepest_zeros(pts, vals, lambda r: None, [(-1.0, 1.0), (0.5, 2.0)], fmt, 0)
    >>> bool(np.abs(np.exp(rows[:, 0]) - rows[:, 1]).min() < 1e-15)
    True
    """
    n, k = points.shape
    if n == 0 or k == 0:
        return points[:0]
    rng = np.random.default_rng(seed + 0xDE)
    with np.errstate(all="ignore"):
        v0 = np.asarray(values(points), dtype=float).reshape(-1, n)
    ok = np.flatnonzero(np.isfinite(v0).all(axis=0))
    if not len(ok):
        return points[:0]
    # no output takes both signs at the points: no sign change to bisect, but a
    # double zero (a value that touches 0, (x - sqrt y)**2/(2x)) is a minimum
    # of |value| along a line, bisected on the sign of its slope
    touch = not ((v0 > 0).any(axis=1) & (v0 < 0).any(axis=1)).any()
    lines = _Lines(values, domain_ranges, fmt, minima=touch)
    bases, js = [], []
    for j in range(k):
        if lines.bounds[j, 1] < lines.bounds[j, 0] + 2:
            continue
        # (one variable: every base row gives the same line)
        per = 1 if k == 1 else DEEP_BASES if k <= 3 else max(4, 3 * DEEP_BASES // k)
        pick = rng.choice(ok, size=min(per, len(ok)), replace=False)
        bases += [points[i] for i in pick]
        js += [j] * len(pick)
    if not bases:
        return points[:0]
    found = [lines.zeros(np.array(bases, dtype=fmt.dtype), np.array(js))]
    if k > 1 and len(found[0][0]):
        if not touch:  # (the walk's secant step is on a sign change's slope)
            found.append(lines.walk(found[0], DEEP_WALK, WALK, rng))
        found.append(lines.turn(_merged(found), TURN, TURNS, rng))
    # the deepest of each step alike (exp(x) - y's walk from its zero at
    # x = 1e-282, y = 1 finds zeros 1e-282 deep that pairs compute exactly,
    # and would crowd out the turn's, 2**-104 deep, where they lose)
    out, seen = [], set()
    for rows, depth in (f[:2] for f in found):
        got = 0
        for i in np.argsort(depth, kind="stable"):
            if got >= DEEP_KEEP // len(found):
                break
            if rows[i].tobytes() not in seen:
                seen.add(rows[i].tobytes())
                out.append(rows[i])
                got += 1
    out = np.array(out, dtype=fmt.dtype).reshape(-1, k)
    if len(out):
        probe(out)
    return out


def _merged(found: list) -> tuple:
    """The zeros of several searches as one: (rows, depth, variable,
    output, slope per float, the line's scale)."""
    return tuple(np.concatenate([f[i] for f in found]) for i in range(6))


class _Lines:
    """Zeros of the outputs along lines parallel to one variable, in the
    form's own floats: each (rows, depth, variable, output, slope per float
    there, scale) with ``depth`` the value at the float nearest the zero
    over ``scale``, the median of the values along its line."""

    def __init__(self, values: Callable[[np.ndarray], np.ndarray],
                 domain_ranges: Sequence[tuple[float, float]], fmt: Format,
                 minima: bool = False) -> None:
        self.values, self.fmt = values, fmt
        # (minima: the local minima of |value| stand for the zeros, and the sign
        # bisected is that of |value| one float on minus |value| here)
        self.minima = minima
        self.bounds = np.array([[int(b) for b in ordinal(np.array(r), fmt)]
                                for r in domain_ranges])
        u = np.linspace(0.0, 1.0, GRID + 1)
        self.grids = []  # along each variable: uniform over the floats and in value
        for j, (lo, hi) in enumerate(domain_ranges):
            a, b = (int(v) for v in self.bounds[j])  # (b - a may pass 2**63: Python ints)
            o = np.array([a + int((b - a) * float(t)) for t in u], dtype=np.int64)
            self.grids.append(np.unique(np.concatenate([
                ordinal(from_ordinal(o, fmt), fmt).astype(np.int64),
                ordinal(np.asarray(lo * (1 - u) + hi * u, dtype=fmt.dtype), fmt
                        ).astype(np.int64)])))

    def at(self, base: np.ndarray, js: np.ndarray, o: np.ndarray) -> np.ndarray:
        """``base`` with variable ``js`` at ordinal ``o``, row by row."""
        r = base.copy()
        r[np.arange(len(r)), js] = from_ordinal(o, self.fmt)
        return r

    def value(self, rows: np.ndarray, outs: np.ndarray) -> np.ndarray:
        """Output ``outs`` at each row."""
        with np.errstate(all="ignore"):
            v = np.asarray(self.values(rows), dtype=float).reshape(-1, len(rows))
        return v[outs, np.arange(len(rows))]

    def signed(self, base: np.ndarray, jj: np.ndarray, o: np.ndarray,
               outs: np.ndarray) -> np.ndarray:
        """What the bisection keeps the sign of at ordinal ``o`` of each
        line: the output, or (``minima``) its magnitude's step to the next
        float (negative before a minimum, positive after)."""
        if not self.minima:
            return self.value(self.at(base, jj, o), outs)
        top = self.bounds[jj, 1]
        a = np.abs(self.value(self.at(base, jj, o), outs))
        b = np.abs(self.value(self.at(base, jj, np.minimum(o + 1, top)), outs))
        return b - a

    def zeros(self, bases: np.ndarray, js: np.ndarray) -> tuple:
        """The sign changes of each output along variable ``js[q]`` from
        ``bases[q]``, on the grids (two at most per line and output),
        bisected to two floats."""
        fmt = self.fmt
        rows = np.concatenate([self.at(np.repeat(b[None, :], len(self.grids[j]), axis=0),
                                       np.full(len(self.grids[j]), j), self.grids[j])
                               for b, j in zip(bases, js)])
        with np.errstate(all="ignore"):
            vals = np.asarray(self.values(rows), dtype=float).reshape(-1, len(rows))
        line, outs, lo, hi, scale = [], [], [], [], []
        start = 0
        for q, j in enumerate(js):
            g = self.grids[j]
            seg = vals[:, start:start + len(g)]
            start += len(g)
            for o in range(seg.shape[0]):
                s = seg[o]
                mag = np.abs(s[np.isfinite(s) & (s != 0)])
                if not len(mag):
                    continue
                if self.minima:  # the two deepest local minima of |s| inside the grid
                    m = np.abs(s)
                    c = np.flatnonzero(np.isfinite(m[1:-1]) & (m[1:-1] <= m[:-2])
                                       & (m[1:-1] <= m[2:])) + 1
                    c = c[np.argsort(m[c], kind="stable")][:2]
                    pairs = [(g[i - 1], g[i + 1]) for i in c]
                else:
                    a, b = s[:-1], s[1:]
                    cross = np.flatnonzero(np.isfinite(a) & np.isfinite(b)
                                           & (np.sign(a) * np.sign(b) < 0))
                    pairs = [(g[i], g[i + 1]) for i in cross[:2]]
                for a_o, b_o in pairs:
                    line.append(q)
                    outs.append(o)
                    lo.append(a_o)
                    hi.append(b_o)
                    scale.append(float(np.median(mag)))
        k = bases.shape[1]
        if not line:
            return (np.zeros((0, k), dtype=fmt.dtype), np.zeros(0), np.zeros(0, dtype=int),
                    np.zeros(0, dtype=int), np.zeros(0), np.zeros(0))
        base, jj, outs = bases[line], js[line], np.array(outs)
        lo_o, hi_o = np.array(lo, dtype=np.int64), np.array(hi, dtype=np.int64)
        sign_lo = np.sign(self.signed(base, jj, lo_o, outs))
        while True:  # bisection in ordinals to two floats beside each other
            tick()  # rounds of bisection: a step of the search
            live = np.flatnonzero(hi_o - 1 > lo_o)  # (hi - lo may pass 2**63)
            if not len(live):
                break
            self._rounds(base[live], jj[live], outs[live], sign_lo[live], live, lo_o, hi_o)
        va = self.value(self.at(base, jj, lo_o), outs)
        vb = self.value(self.at(base, jj, hi_o), outs)
        near = np.where(np.abs(va) <= np.abs(vb), lo_o, hi_o)
        scale = np.array(scale)
        depth = np.minimum(np.abs(va), np.abs(vb)) / scale
        return self.at(base, jj, near), _finite(depth), jj, outs, vb - va, scale

    def _rounds(self, base: np.ndarray, jj: np.ndarray, outs: np.ndarray, sign_lo: np.ndarray,
                live: np.ndarray, lo_o: np.ndarray, hi_o: np.ndarray) -> None:
        """The next rounds of the bisection of the brackets ``lo_o[live]``,
        ``hi_o[live]`` (in place), several in one evaluation: every
        midpoint those rounds may visit (a tree of ``2**m - 1`` per
        bracket: the lower half's next, the upper half's next, ...) is
        computed at once, then each bracket walks down its tree as one
        round at a time would (the same midpoints, the same floats: a
        round's fixed cost, a few ms for a form in pairs, was most of a
        verification's bisection at ~45 rows a call).  As many rounds as
        keep a call below :data:`ROUND_ROWS` rows."""
        n = len(live)
        m = 1
        while m < ROUNDS and n * (2 ** (m + 1) - 1) <= ROUND_ROWS:
            m += 1
        size = 2**m - 1
        lo = np.empty((n, size), dtype=np.int64)
        hi = np.empty((n, size), dtype=np.int64)
        mid = np.empty((n, size), dtype=np.int64)
        lo[:, 0], hi[:, 0] = lo_o[live], hi_o[live]
        for i in range(size):  # (heap order: node i's halves are 2i + 1 and 2i + 2)
            a, b = lo[:, i], hi[:, i]
            mid[:, i] = a // 2 + b // 2 + (a % 2 + b % 2) // 2
            if 2 * i + 2 < size:
                lo[:, 2 * i + 1], hi[:, 2 * i + 1] = a, mid[:, i]  # (its sign changed)
                lo[:, 2 * i + 2], hi[:, 2 * i + 2] = mid[:, i], b  # (the sign at lo)
        open_ = hi - 1 > lo  # (a bracket of two floats beside each other: no round)
        q, i = np.nonzero(open_)
        s = np.full((n, size), np.nan)
        s[q, i] = np.sign(self.signed(base[q], jj[q], mid[q, i], outs[q]))
        cur = np.zeros(n, dtype=np.int64)
        go = np.ones(n, dtype=bool)
        r = np.arange(n)
        for _ in range(m):
            go &= open_[r, cur]
            if not go.any():
                break
            v, md = s[r, cur], mid[r, cur]
            same, zero = go & (v == sign_lo), go & (v == 0)
            lower = go & ~same & ~zero
            lo_o[live[same]] = md[same]
            hi_o[live[lower]] = md[lower]
            lo_o[live[zero]] = md[zero]  # an exact zero: the bracket ends there
            hi_o[live[zero]] = md[zero] + 1
            go &= ~zero
            cur = np.where(same, 2 * cur + 2, 2 * cur + 1)
            go &= cur < size

    def walk(self, found: tuple, starts: int, far: int, rng: np.random.Generator) -> tuple:
        """From the ``starts`` deepest zeros, each other variable moved by
        every number of floats up to ``far`` each way, and the zero along
        the same variable again: a secant step on the zero's own slope,
        the floats beside it."""
        rows, depth, js, outs, slope, scale = found
        k = rows.shape[1]
        m = np.arange(-far, far + 1, dtype=np.int64)
        got = []
        for d in np.argsort(depth, kind="stable")[:starts]:
            j = js[d]
            oj = int(ordinal(rows[d:d + 1, j], self.fmt)[0])
            for i in _others(k, j, rng):
                b = np.repeat(rows[d:d + 1], len(m), axis=0)
                oi = np.clip(int(ordinal(rows[d:d + 1, i], self.fmt)[0]) + m,
                             *self.bounds[i])
                b[:, i] = from_ordinal(oi, self.fmt)
                o = np.full(len(m), outs[d])
                v = self.value(b, o)
                with np.errstate(all="ignore"):
                    step = np.where(np.isfinite(v / slope[d]), np.round(-v / slope[d]), 0.0)
                o1 = oj + np.clip(step, -2.0**40, 2.0**40).astype(np.int64)
                cand = np.clip((o1[:, None] + np.arange(-1, 2)[None, :]).ravel(),
                               *self.bounds[j])
                cb = self.at(np.repeat(b, 3, axis=0), np.full(len(cand), j), cand)
                cv = np.abs(self.value(cb, np.repeat(o, 3)))
                got.append((cb, _finite(cv / scale[d]), np.full(len(cb), j), np.repeat(o, 3),
                            np.full(len(cb), slope[d]), np.full(len(cb), scale[d])))
        return _merged(got) if got else _empty(found)

    def turn(self, found: tuple, starts: int, far: int, rng: np.random.Generator) -> tuple:
        """From the ``starts`` deepest zeros, lines along each other
        variable, the zero's own variable moved by up to ``far`` floats
        each way (and not moved)."""
        rows, depth, js = found[:3]
        k = rows.shape[1]
        m = np.arange(-far, far + 1, dtype=np.int64)
        bases, lj = [], []
        for d in np.argsort(depth, kind="stable")[:starts]:
            j = js[d]
            b = np.repeat(rows[d:d + 1], len(m), axis=0)
            b[:, j] = from_ordinal(np.clip(int(ordinal(rows[d:d + 1, j], self.fmt)[0]) + m,
                                           *self.bounds[j]), self.fmt)
            for i in _others(k, j, rng):
                if self.bounds[i, 1] >= self.bounds[i, 0] + 2:
                    bases.append(b)
                    lj += [i] * len(b)
        if not bases:
            return _empty(found)
        return self.zeros(np.concatenate(bases), np.array(lj))


def _others(k: int, j: int, rng: np.random.Generator) -> list[int]:
    """The variables other than ``j``: two of them at random where there are
    more (a 10-logit softmax gradient: 9 walks and turns per zero cost more
    than the rest of a verification)."""
    out = [i for i in range(k) if i != j]
    return out if len(out) <= 2 else sorted(int(i) for i in rng.choice(out, 2, replace=False))


def _finite(d: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(d), d, np.inf)


def _empty(like: tuple) -> tuple:
    return tuple(a[:0] for a in like)
