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
from math import comb

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
DEEP_KEEP = 12  # points measured: the deepest found (as many from each step)
SHORT_KEEP = 4  # ... and besides, the deepest turned from the zeros at short dyadics ...
SHORT_TURNS = 4  # ... (their variable moved by up to this many floats each way)
SEG = 2**15  # the deepest float of a stretch of the zero surface: every float this far ...
# ... each way along each other variable, from the DEEP_WALK deepest zeros found
SEG_FIT = 2.0**-20  # the zero's local model must hold to this fraction of a float
RARE = 8  # base rows of an output's rarer sign (each output), besides the random ones ...
RARE_SHARE = 0.1  # ... where that sign holds at most this share of the points
ROUNDS = 4  # bisection rounds evaluated together, at most ...
# ... in calls of at most this many rows (a form in pairs costs 5-60 us a row beside
# its 2.5-7 ms a call: past a few hundred rows more rounds a call no longer pay)
ROUND_ROWS = 255
TERM_STEP = 2**10  # floats of each variable over which a zero's terms are measured


def deepest_zeros(points: np.ndarray, values: Callable[[np.ndarray], np.ndarray],
                  probe: Callable[[np.ndarray], object],
                  domain_ranges: Sequence[tuple[float, float]], fmt: Format,
                  seed: int, starts: tuple | None = None) -> np.ndarray:
    """The deepest zeros of the outputs ``values(rows)`` (the form's floats,
    shape (outputs, n)) along each variable, from base rows among
    ``points`` (where every output is finite), and turned from the zeros
    ``starts`` (rows, and the variable each was found along: the search's
    zeros at a short dyadic, :meth:`.search.PointSearch.short_zeros`),
    measured with ``probe(rows)``.  Returns the rows measured.

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
    rare = [] if touch or k == 1 else _rare(v0[:, ok], ok, rng)
    bases, js, own = [], [], []
    for j in range(k):
        if lines.bounds[j, 1] < lines.bounds[j, 0] + 2:
            continue
        # (one variable: every base row gives the same line)
        per = 1 if k == 1 else DEEP_BASES if k <= 3 else max(4, 3 * DEEP_BASES // k)
        pick = rng.choice(ok, size=min(per, len(ok)), replace=False)
        more = [i for i in rare if i not in set(pick)]
        bases += [points[i] for i in (*pick, *more)]
        js += [j] * (len(pick) + len(more))
        own += [False] * len(pick) + [True] * len(more)
    if not bases:
        return points[:0]
    found = [lines.zeros(np.array(bases, dtype=fmt.dtype), np.array(js), np.array(own))]
    if k > 1 and len(found[0][0]):
        if not touch:  # (the secant steps are on a sign change's slope)
            # every float of a stretch from the deepest; the walk's samples
            # only where a stretch's model did not hold that far
            stretch, covered = lines.stretches(found[0], DEEP_WALK, SEG, rng)
            found.append(stretch)
            found.append(lines.walk(found[0], DEEP_WALK, WALK, rng, skip=covered))
        found.append(lines.turn(_merged(found), TURN, TURNS, rng))
    # the deepest of each step alike (exp(x) - y's walk from its zero at
    # x = 1e-282, y = 1 finds zeros 1e-282 deep that pairs compute exactly,
    # and would crowd out the turn's, 2**-104 deep, where they lose)
    out, seen = [], set()
    share = DEEP_KEEP // (len(found) - (len(found) == 4))  # (stretch and walk: one share each)
    for rows, depth in (f[:2] for f in found):
        got = 0
        for i in np.argsort(depth, kind="stable"):
            if got >= share:
                break
            if rows[i].tobytes() not in seen:
                seen.add(rows[i].tobytes())
                out.append(rows[i])
                got += 1
    if starts is not None and len(starts[0]) and k > 1:
        for rows in _from_short_zeros(lines, starts, seed)[:SHORT_KEEP]:
            if rows.tobytes() not in seen:
                seen.add(rows.tobytes())
                out.append(rows)
    out = np.array(out, dtype=fmt.dtype).reshape(-1, k)
    if len(out):
        probe(out)
    return out


def _from_short_zeros(lines: _Lines, starts: tuple, seed: int) -> np.ndarray:
    """The deepest floats of the lines that turn from each zero of
    ``starts`` (rows, and the variable each was found along: zeros at a
    short dyadic, :meth:`.search.PointSearch.short_zeros`), deepest first:
    its variable moved up to ``SHORT_TURNS`` floats each way, the zero
    bisected along each other variable.  There a zero curve passes
    through a float point, and the other variables meet it beside that
    point deeper than any fixed precision holds (the Poly-1 sigmoid
    loss's gradient in pairs: 0 for -5.7e-76 at x = 3.33e-15, y = 1/2 +
    5 * 2**-53, on the curve's tangent x = 6 (y - 1/2) through x = 0,
    y = 1/2).  The random draws' lines seldom start there, and zeros that
    underflow (1e-323 deep, where pairs are right) take the turns from the
    deepest.  Its own random stream: the other steps' rows unchanged."""
    rows, js = starts
    zero = (rows, np.zeros(len(rows)), np.asarray(js))
    got, depth = lines.turn(zero, len(rows), SHORT_TURNS, np.random.default_rng(seed + 0x5D))[:2]
    return got[np.argsort(depth, kind="stable")]


def _rare(v: np.ndarray, ok: np.ndarray, rng: np.random.Generator) -> list[int]:
    """Points of an output's rarer sign where it is rare (at most
    :data:`RARE_SHARE` of the points): up to :data:`RARE` of each output's.

    A zero set that only clips the box (``exp(x) - y`` over x in (-1, 1),
    y in (2.7, 10): y = e**x only reaches y > 2.7 for x > 0.993) or bounds a
    small region is crossed by few lines through random points: 24 random
    base rows a variable missed it at every seed, and a form in pairs that
    loses 50 bits at its deepest floats there was reported 0.0.  Every point
    of the rarer sign lies across the zero set from the others; the lines
    through it along each variable reach the other sign at the box's ends or
    before (a line through the corner (1, 2.7) along x or y crosses).

    >>> v = np.array([[-1.0, -2.0, 3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -1.5, -2.5]])
    >>> _rare(v, np.arange(11), np.random.default_rng(0))
    [2]
    """
    out: list[int] = []
    for row in v:
        pos, neg = np.flatnonzero(row > 0), np.flatnonzero(row < 0)
        few = pos if len(pos) <= len(neg) else neg
        if 0 < len(few) <= RARE_SHARE * v.shape[1]:
            # (the nearest the zero first: the least |value|, then at random)
            few = few[np.argsort(np.abs(row[few]), kind="stable")]
            near, rest = few[:RARE // 2], few[RARE // 2:]
            few = np.concatenate([near, rng.permutation(rest)[:RARE - len(near)]])
            out += [int(ok[i]) for i in few if int(ok[i]) not in out]
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

    def zeros(self, bases: np.ndarray, js: np.ndarray, own: np.ndarray | None = None) -> tuple:
        """The sign changes of each output along variable ``js[q]`` from
        ``bases[q]``, on the grids (two at most per line and output),
        bisected to two floats; where ``own[q]``, the grid holds the base's
        own float too (a sign held only in a band narrower than the grid's
        step is seen)."""
        fmt = self.fmt
        grids = [np.union1d(self.grids[j], ordinal(b[j:j + 1], fmt).astype(np.int64))
                 if own is not None and own[q] else self.grids[j]
                 for q, (b, j) in enumerate(zip(bases, js))]
        rows = np.concatenate([self.at(np.repeat(b[None, :], len(g), axis=0),
                                       np.full(len(g), j), g)
                               for b, j, g in zip(bases, js, grids)])
        with np.errstate(all="ignore"):
            vals = np.asarray(self.values(rows), dtype=float).reshape(-1, len(rows))
        line, outs, lo, hi, scale = [], [], [], [], []
        start = 0
        for q, g in enumerate(grids):
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
        # (one call: both floats of each bracket, and the lower one moved along
        # each variable for the size of the terms that cancel there)
        n = len(base)
        lo_rows, hi_rows = self.at(base, jj, lo_o), self.at(base, jj, hi_o)
        moved, used = self._moved(lo_rows)
        v = self.value(np.concatenate([lo_rows, hi_rows, *moved]),
                       np.tile(outs, 2 + len(moved)))
        va, vb, w = v[:n], v[n:2 * n], v[2 * n:].reshape(len(moved), n)
        first = np.abs(va) <= np.abs(vb)
        rows = np.where(first[:, None], lo_rows, hi_rows)
        # the terms that cancel: the line's median value, or less where the
        # terms measured at the zero are less (lse's 3 logits over (-1000,
        # 1000): the line's values are ~500 where its zeros ~100 bits deep
        # cancel terms ~1e-227, and lose 47-63 bits)
        scale = np.minimum(np.array(scale), self.terms(lo_rows, va, moved, used, w))
        return rows, self.depth(np.minimum(np.abs(va), np.abs(vb)), scale), jj, outs, vb - va, \
            scale

    def depth(self, v: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """A zero's depth: the value there, ``v``, over the terms that
        cancel, ``scale``, a value below the format's smallest normal
        counted as that (a form's error is in units of the result's last
        place, no finer below it: lse's zeros where every term underflows,
        the result 0 or subnormal, lose nothing, and were the deepest by the
        value alone; they took every start and every point kept)."""
        with np.errstate(all="ignore"):
            return _finite(np.maximum(v, 2.0**self.fmt.emin) / scale)

    def _moved(self, rows: np.ndarray) -> tuple[list, list]:
        """``rows`` with each variable moved by :data:`TERM_STEP` floats
        (back where that leaves its box), one array per variable moved."""
        o = ordinal(rows, self.fmt).astype(np.int64)
        moved, used = [], []
        for i in range(rows.shape[1]):
            lo, hi = (int(b) for b in self.bounds[i])
            if hi < lo + 2:
                continue
            oi = o[:, i] + TERM_STEP
            oi = np.where(oi > hi, o[:, i] - TERM_STEP, oi).clip(lo, hi)
            r = rows.copy()
            r[:, i] = from_ordinal(oi, self.fmt)
            moved.append(r)
            used.append(i)
        return moved, used

    @staticmethod
    def terms(rows: np.ndarray, v: np.ndarray, moved: list, used: list,
              w: np.ndarray) -> np.ndarray:
        """The size of the terms that cancel at each zero ``rows`` (signed
        value ``v``; ``w``, the value at ``moved``, each variable ``used``
        moved by :data:`TERM_STEP` floats): the largest |x_i * df/dx_i| over
        the variables; inf where none is finite and positive (a zero at
        x = 0 of exp(x) - 1: its terms are the constant's, not measured).

        >>> rows = np.array([[2.0, 3.0]])
        >>> moved = [np.array([[2.5, 3.0]]), np.array([[2.0, 3.5]])]
        >>> w = np.array([[0.5], [-0.5]])  # x - y + 1 at both
        >>> float(_Lines.terms(rows, np.array([0.0]), moved, [0, 1], w)[0])
        3.0
        """
        if not moved:
            return np.full(len(rows), np.inf)
        x = rows[:, used].T.astype(float)
        dx = np.array([m[:, i] for m, i in zip(moved, used)], dtype=float) - x
        with np.errstate(all="ignore"):
            t = np.abs((w - v) / dx * x)
        t = np.where(np.isfinite(t), t, 0.0).max(axis=0)
        return np.where(t > 0, t, np.inf)

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

    def walk(self, found: tuple, starts: int, far: int, rng: np.random.Generator,
             skip: frozenset = frozenset()) -> tuple:
        """From the ``starts`` deepest zeros, each other variable moved by
        every number of floats up to ``far`` each way, and the zero along
        the same variable again: a secant step on the zero's own slope,
        the floats beside it.  Not along the (zero, variable) pairs in
        ``skip`` (a stretch searched through them farther)."""
        rows, depth, js, outs, slope, scale = found
        k = rows.shape[1]
        m = np.arange(-far, far + 1, dtype=np.int64)
        got = []
        for d in _distinct(rows, np.argsort(depth, kind="stable"), starts):
            j = js[d]
            oj = int(ordinal(rows[d:d + 1, j], self.fmt)[0])
            for i in _others(k, j, rng):
                if (int(d), i) in skip:
                    continue
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
                got.append((cb, self.depth(cv, np.full(len(cv), scale[d])), np.full(len(cb), j),
                            np.repeat(o, 3),
                            np.full(len(cb), slope[d]), np.full(len(cb), scale[d])))
        return _merged(got) if got else _empty(found)

    def stretches(self, found: tuple, starts: int, far: int,
                  rng: np.random.Generator) -> tuple[tuple, frozenset]:
        """From the ``starts`` deepest zeros, the deepest float of the zero
        surface over every float of each other variable up to ``far`` each
        way: not sampled but searched through.

        Along the other variable (floats m), the zero's position along its
        own (t(m), in its floats, fractional) is a smooth function: Newton
        steps on the form's own value find it at nine m, a polynomial of
        degree 4 through five of them is checked at the other four to
        :data:`SEG_FIT` of a float (else the stretch is cut to a 16th),
        and the distance of t(m) to the nearest integer, the depth of the
        float there, is computed at every m of the stretch (in pieces of
        256, exact at each centre).  The floats beside the three least are
        evaluated.  A form in pairs knows its zero to about 2**-24 (float32)
        or 2**-48 (float64) of a float, so floats 2**-16 deep are found
        where the walk's 2,049 steps find about 2**-11.  Points only (the
        ground truth decides each one's loss); where no stretch's model
        holds, nothing is claimed of it.  Also returns the (zero, variable)
        pairs searched to ``far`` itself.
        """
        rows, depth, js, outs, slope, scale = found
        k, fmt = rows.shape[1], self.fmt
        segs = []  # (zero, other variable, its ordinal, the zero's ordinal, m's)
        seen: set = set()
        for d in _distinct(rows, np.argsort(depth, kind="stable"), starts):
            if not (np.isfinite(slope[d]) and slope[d] != 0):
                continue
            j = js[d]
            oj = int(ordinal(rows[d:d + 1, j], fmt)[0])
            for i in _others(k, j, rng):
                oi = int(ordinal(rows[d:d + 1, i], fmt)[0])
                if (i, j, oi, oj, outs[d]) in seen:  # (the same zero twice)
                    continue
                seen.add((i, j, oi, oj, outs[d]))
                for f in (far, far >> 4):
                    lo = max(-f, int(self.bounds[i, 0]) - oi)
                    hi = min(f, int(self.bounds[i, 1]) - oi)
                    h = (hi - lo) // 8  # (nine floats equally spaced)
                    if h >= 8:
                        segs.append((d, i, oi, oj, lo, lo + 8 * h,
                                     lo + h * np.arange(9, dtype=np.int64)))
        if not segs:
            return _empty(found), frozenset()
        # Newton steps along the zero's own variable, every sample at once
        base = np.concatenate([np.repeat(rows[d:d + 1], len(ms), axis=0)
                               for d, i, oi, oj, lo, hi, ms in segs])
        ii = np.concatenate([np.full(len(ms), i) for d, i, oi, oj, lo, hi, ms in segs])
        oo = np.concatenate([oi + ms for d, i, oi, oj, lo, hi, ms in segs])
        base[np.arange(len(base)), ii] = from_ordinal(oo, fmt)
        jj = np.concatenate([np.full(len(s_[6]), js[s_[0]]) for s_ in segs])
        n = np.concatenate([np.full(len(s_[6]), s_[3], dtype=np.int64) for s_ in segs])
        out_ = np.concatenate([np.full(len(s_[6]), outs[s_[0]]) for s_ in segs])
        sl = np.concatenate([np.full(len(s_[6]), slope[s_[0]]) for s_ in segs])
        top, bot = self.bounds[jj, 1], self.bounds[jj, 0]
        for _ in range(2):  # (the first is a secant step on the zero's slope: near)
            v = self.value(self.at(base, jj, n), out_)
            with np.errstate(all="ignore"):
                step = np.where(np.isfinite(v / sl), np.round(-v / sl), 0.0)
            n = np.clip(n + np.clip(step, -2.0**40, 2.0**40).astype(np.int64), bot, top)
        v = self.value(self.at(base, jj, n), out_)
        with np.errstate(all="ignore"):
            frac = -v / sl
        cand, at = [], 0
        done: set = set()
        covered: set = set()
        for d, i, oi, oj, lo, hi, ms in segs:
            q = slice(at, at + len(ms))
            at += len(ms)
            if (d, i) in done:
                continue
            fit = _fit(ms, n[q] - oj, frac[q])
            if fit is None:
                continue
            done.add((d, i))
            if hi - lo >= far:  # (the whole stretch, not its 16th)
                covered.add((int(d), i))
            for m, t in _nearest_integers(fit, lo, hi):
                r = rows[d].copy()
                r[i] = from_ordinal(np.array([oi + m]), fmt)[0]
                for e in (-1, 0, 1):
                    cand.append((r, js[d], oj + t + e, outs[d], slope[d], scale[d]))
        if not cand:
            return _empty(found), frozenset(covered)
        cb = np.array([c[0] for c in cand], dtype=fmt.dtype)
        cj = np.array([c[1] for c in cand])
        co = np.clip(np.array([c[2] for c in cand], dtype=np.int64),
                     self.bounds[cj, 0], self.bounds[cj, 1])
        outs_c = np.array([c[3] for c in cand])
        cb = self.at(cb, cj, co)
        cv = np.abs(self.value(cb, outs_c))
        sc = np.array([c[5] for c in cand])
        return ((cb, self.depth(cv, sc), cj, outs_c, np.array([c[4] for c in cand]), sc),
                frozenset(covered))

    def turn(self, found: tuple, starts: int, far: int, rng: np.random.Generator) -> tuple:
        """From the ``starts`` deepest zeros, lines along each other
        variable, the zero's own variable moved by up to ``far`` floats
        each way (and not moved)."""
        rows, depth, js = found[:3]
        k = rows.shape[1]
        m = np.arange(-far, far + 1, dtype=np.int64)
        bases, lj = [], []
        for d in _distinct(rows, np.argsort(depth, kind="stable"), starts):
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


def _fit(ms: np.ndarray, whole: np.ndarray, frac: np.ndarray):
    """The zero's position t(m) = whole + frac (floats of its variable, from
    the zero) at the nine equally spaced samples ``ms``, as the polynomial
    of degree 4 through the even ones, if it holds at the odd ones to
    :data:`SEG_FIT`; else None.  Exact, in integers: ``(n, d)`` with
    t(m) = sum(n[k] * m**k) / d.  (Degree 4: over 2**15 floats of a float32
    variable a quadratic is off by 2**-9 of a float, a quartic by about
    2**-20.)

    >>> ms = np.arange(-8, 9, 2)
    >>> t = 0.25 + 0.3 * ms + 0.01 * ms**2
    >>> n, d = _fit(ms, np.floor(t).astype(np.int64), t - np.floor(t))
    >>> [round(v / d, 12) for v in n]
    [0.25, 0.3, 0.01, 0.0, 0.0]
    """
    if len(ms) != 9 or not (np.isfinite(frac).all() and (np.abs(frac) <= 1).all()):
        return None
    m0, h = int(ms[0]), int(ms[2]) - int(ms[0])
    if h <= 0 or any(int(ms[2 * r]) != m0 + r * h for r in range(5)):
        return None
    scale = 1 << 40
    tt = [int(w) * scale + round(float(f) * scale) for w, f in zip(whole, frac)]
    diffs, row = [], tt[::2]  # forward differences at the nodes (exact)
    for _ in range(5):
        diffs.append(row[0])
        row = [b - a for a, b in zip(row, row[1:])]
    # t(m) * 24 h**4 * scale = sum_r diffs[r] * (24/r!) h**(4-r) prod_{s<r} (m - m0 - s h)
    n = [0] * 5
    fact = (1, 1, 2, 6, 24)
    for r in range(5):
        poly = [diffs[r] * (24 // fact[r]) * h ** (4 - r)]
        for q in range(r):  # times (m - (m0 + q h))
            c0 = -(m0 + q * h)
            poly = [(poly[i - 1] if i else 0) + (c0 * poly[i] if i < len(poly) else 0)
                    for i in range(len(poly) + 1)]
        for i, v in enumerate(poly):
            n[i] += v
    d = 24 * h**4 * scale
    for mm, t_ in zip(ms[1::2], tt[1::2]):
        mm = int(mm)
        if abs(sum(v * mm**k for k, v in enumerate(n)) - t_ * 24 * h**4) > SEG_FIT * d:
            return None
    return n, d


def _nearest_integers(fit, lo: int, hi: int, keep: int = 3, piece: int = 256):
    """The ``keep`` m in [lo, hi] where the polynomial ``fit`` (``_fit``'s)
    comes nearest an integer, each with that integer: at every m, in pieces
    about centres c, where t(c + e) = sum(a_p e**p) / d with integer a_p,
    whose fraction parts (a_p mod d) / d are exact."""
    n, d = fit
    centres = list(range(lo + piece // 2, hi + piece // 2, piece))
    fr = np.empty((len(centres), 5))
    for i, c in enumerate(centres):
        for p in range(5):
            a = sum(comb(k, p) * n[k] * c ** (k - p) for k in range(p, 5))
            fr[i, p] = (a % d) / d
    e = np.arange(-(piece // 2), piece - piece // 2, dtype=np.int64)
    f = sum(fr[:, p:p + 1] * (e.astype(float) ** p)[None, :] for p in range(5))
    dist = np.abs(f - np.round(f))
    mm = np.array(centres, dtype=np.int64)[:, None] + e[None, :]
    dist[(mm < lo) | (mm > hi)] = np.inf
    out = []
    for b in np.argsort(dist, axis=None, kind="stable")[:keep]:
        m = int(mm.flat[b])
        t = sum(v * m**k for k, v in enumerate(n))
        out.append((m, (2 * t + d) // (2 * d)))  # (t / d rounded)
    return out


def _distinct(rows: np.ndarray, order: np.ndarray, n: int) -> list[int]:
    """The first ``n`` of ``order`` whose rows are not near an earlier
    one's (every coordinate within 2**-20 of it, relatively): a stretch's
    zeros are one zero's neighbours, and the two deepest zeros of lse's
    3 logits were often one's, so the turn left the other zeros unturned
    (those where a third logit, whose exp underflows, can be moved to
    where it adds the last bits of the sum: 50-60 bits deep, not 20).

    >>> r = np.array([[1.0, 2.0], [1.0, 2.0 + 1e-12], [3.0, 2.0]])
    >>> _distinct(r, np.arange(3), 2)
    [0, 2]
    """
    out: list[int] = []
    for d in order:
        if len(out) >= n:
            break
        if not any((np.abs(rows[d] - rows[e]) <= 2.0**-20 * np.abs(rows[e])).all()
                   for e in out):
            out.append(int(d))
    return out


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
