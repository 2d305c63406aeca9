"""Climbing the error from the worst points measured: :func:`ascend` (steps
of +-2**k ordinals per coordinate, kept where the error grows: the error is
locally smooth in the ordinal), :func:`toward_zeros` (secant steps on the
true value toward the output's own zero: a form in pairs cancels deeper
than the float sums :mod:`.search`'s grids watch), :func:`climb` (the same
ascent on any objective, in floats: the search's joint cancellations), and
:func:`worst_bits`.  Used by :mod:`.search`, :mod:`.check` and
:mod:`.stabilize` after the points of :class:`.search.PointSearch` are
measured."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from ..progress import tick
from .bits import Format, ordinal
from .sampling import from_ordinal

__all__ = ["ascend", "climb", "rise", "scatter", "toward_zeros", "worst_bits", "ZERO_STARTS",
           "ZERO_STEPS", "ZERO_ROUNDS"]

ZERO_STARTS = 2  # the output's own zeros beside the worst points: starts ...
ZERO_STEPS = 5  # ... secant steps on the true value along each variable ...
ZERO_ROUNDS = 2  # ... and rounds (the next from the point nearest a zero)
SIDES = (-8, -4, -2, -1, 1, 2, 4, 8)  # floats measured beside the last secant step ...
CLOSE = (-2, -1, 1, 2)  # ... and beside the side nearest the zero
NEAR_ZERO = 4.0  # a line's end this many floats from its zero (by the secant) is beside it
ACROSS = 32  # floats of each other variable beside a line's end nearest a zero
JOINT_STEPS = 8  # conjugate-gradient steps on the square of the true value ...
JOINT_MAX_VARIABLES = 6  # ... of formulas of so many variables at most (2k + 2 rows a step)
JOINT_SPREAD = 3  # ... from so many draws spread over the box, of least value
SLIDE = 16  # values of a tie along the zero set beside a joint landing
_GOLDEN = 0.6180339887498949  # (spread by the golden ratio's fractions)
SCATTER = 96  # random floats about the worst point measured ...
SCATTER_EVERY = 4  # ... first two at every 4th scale of 2**s floats, then where still high
SCATTER_NEAR = 2.0  # ... (bits below the worst: a scale still in its band)


def _first_steps(fmt: Format) -> list[float]:
    """The secant's first steps, relative to the abscissa: 2**-8, then
    every 10 binades down while wider than 16 floats of ``fmt``."""
    return [2.0**-e for e in range(8, fmt.prec - 4, 10)]


def ascend(points: np.ndarray, bits: np.ndarray, measure: Callable[[np.ndarray], np.ndarray],
           domain_ranges: Sequence[tuple[float, float]], fmt: Format, budget: int,
           starts: int = 4) -> np.ndarray:
    """Climb the error from the ``starts`` worst of ``points`` (``bits``:
    the worst error over the outputs at each, NaN where not measured):
    each start tries +-2**k ordinals on one coordinate at a time, moves
    where the error grows, and lowers k (from a binade down to one float)
    when no step along any coordinate helps.  ``measure(rows)`` returns
    the worst error at each row; at most ``budget`` rows are measured.
    Returns the rows measured, in the order measured.
    """
    n, k = points.shape
    if n == 0 or k == 0 or budget <= 0:
        return np.zeros((0, k), dtype=fmt.dtype)
    b = np.where(np.isnan(bits), -1.0, bits)
    order = np.argsort(-b, kind="stable")
    chosen: list[int] = []
    for i in order:
        if b[i] < 0 or len(chosen) >= starts:
            break
        if b[i] < fmt.width and not any((points[i] == points[c]).all() for c in chosen):
            chosen.append(int(i))
    if not chosen:
        return np.zeros((0, k), dtype=fmt.dtype)
    bounds = [tuple(int(v) for v in ordinal(np.array(r), fmt)) for r in domain_ranges]
    cur = np.stack([ordinal(points[i], fmt) for i in chosen]).astype(np.int64)
    best = b[chosen].copy()
    # from a binade down to one float; from a start that has lost every
    # significand bit (its value is 0 or noise), from one float up: the
    # noise's sign is wrong a few floats away (a value of the wrong sign is
    # a bit more wrong than 0: x**2/2 + y**2/2 - ((x + y)/2)**2 at x ~ y,
    # 61.9 bits reported where -1e-5 beside it is 63.0)
    down = list(range(fmt.prec - 1, -1, -4)) + [0]
    each = [down if best[s] < fmt.prec - 1 else down[::-1] for s in range(len(chosen))]
    levels = down  # (their number)
    level = np.zeros(len(chosen), dtype=int)  # index into each start's levels
    coord = np.zeros(len(chosen), dtype=int)
    fails = np.zeros(len(chosen), dtype=int)
    rows_out: list[np.ndarray] = []
    spent = 0
    while spent < budget:
        live = [s for s in range(len(chosen)) if level[s] < len(levels) and best[s] < fmt.width]
        if not live:
            break
        cand, owner = [], []
        for s in live:
            j = coord[s]
            step = 1 << each[s][level[s]]
            for d in (-step, step):
                o = cur[s].copy()
                o[j] = min(max(o[j] + d, bounds[j][0]), bounds[j][1])
                if o[j] != cur[s][j]:
                    cand.append(o)
                    owner.append(s)
        if not cand:
            for s in live:
                level[s] += 1
            continue
        cand_o = np.array(cand[: budget - spent])
        owner = owner[: len(cand_o)]
        rows = np.stack([from_ordinal(cand_o[:, j], fmt) for j in range(k)], axis=1)
        worst = np.asarray(measure(rows), dtype=float)
        worst = np.where(np.isnan(worst), -1.0, worst)
        rows_out.append(rows)
        spent += len(rows)
        moved = set()
        for i, s in enumerate(owner):
            if worst[i] > best[s]:
                best[s], cur[s] = worst[i], cand_o[i]
                moved.add(s)
        for s in live:
            if s in moved:
                fails[s] = 0
                continue
            fails[s] += 1
            coord[s] = (coord[s] + 1) % k
            if fails[s] >= k:
                fails[s] = 0
                level[s] += 1
    if not rows_out:
        return np.zeros((0, k), dtype=fmt.dtype)
    return np.concatenate(rows_out)


def scatter(points: np.ndarray, bits: np.ndarray, measure: Callable[[np.ndarray], np.ndarray],
            domain_ranges: Sequence[tuple[float, float]], fmt: Format, seed: int,
            budget: int = SCATTER) -> np.ndarray:
    """Random floats about the worst of ``points`` (``bits``: the worst
    error over the outputs at each, NaN where not measured): every
    coordinate moved by a random number of floats up to ``2**s`` at once,
    two at every ``SCATTER_EVERY``-th scale ``s``, then the rest of the
    ``budget`` at the scales up to the largest where those still came
    within ``SCATTER_NEAR`` bits of the worst (at random among them).
    ``measure(rows)`` returns the worst error at each row.  Returns the rows
    measured, in the order measured.

    A loss made of rounding noise is a plateau in the large with a noise
    of the last bits on top, float to float: the binary entropy's
    derivative as derived, ``log(1 - x) + 1 - log(x) - 1``, loses 15.4
    bits over ``|x - 1/2|`` about 2e-6, and 16.4-16.9 at one float in 200
    within ``2**20 .. 2**33`` floats of that point: the ascent's two steps
    a scale, moving only where the error grows, stop on the plateau (15.4
    reported, 16.6 by the held-out audit's ten times the points).  The top
    of a noise is its rare tail; a sampled maximum stays a lower bound.

    >>> import numpy as np
    >>> from symgrad.stability.bits import FORMATS
    >>> worst = np.array([[0.5, 1.0], [0.25, -1.0]])
    >>> noise = lambda r: np.full(len(r), 3.0)  # a plateau: every row 3 bits
    >>> rows = scatter(worst, np.array([2.0, 5.0]), noise, [(-2, 2), (-2, 2)],
    ...                FORMATS["float64"], seed=0, budget=16)
    >>> d = np.abs(rows - [0.25, -1.0]).max(axis=1)  # about the worst, the nearest floats first
    >>> len(rows), bool(d.min() < 1e-15), bool(np.all(np.abs(rows) <= 2))
    (16, True, True)
    """
    n, k = points.shape
    b = np.where(np.isnan(bits), -np.inf, np.asarray(bits, dtype=float))
    if n == 0 or k == 0 or budget <= 0 or not np.isfinite(b).any():
        return np.zeros((0, k), dtype=fmt.dtype)
    i = int(np.argmax(b))
    best = float(b[i])
    if best <= 0 or best >= fmt.width:  # (nothing lost, or everything: no noise to climb)
        return np.zeros((0, k), dtype=fmt.dtype)
    rng = np.random.default_rng(seed + 0x5CA7)
    bounds = [tuple(int(v) for v in ordinal(np.array(r), fmt)) for r in domain_ranges]
    centre = [int(v) for v in ordinal(points[i], fmt)]

    def rows_at(scales: list[int]) -> np.ndarray:
        o = np.empty((len(scales), k), dtype=np.int64)
        for r, s in enumerate(scales):
            for j in range(k):
                d = int(rng.integers(0, 1 << s, endpoint=True)) * (1 if rng.random() < 0.5 else -1)
                o[r, j] = min(max(centre[j] + d, bounds[j][0]), bounds[j][1])
        return np.stack([from_ordinal(o[:, j], fmt) for j in range(k)], axis=1)

    first = [s for s in range(0, fmt.prec, SCATTER_EVERY) for _ in range(2)][:budget]
    rows = rows_at(first)
    worst = np.where(np.isnan(got := np.asarray(measure(rows), dtype=float)), -np.inf, got)
    out = [rows]
    high = [s for s, w in zip(first, worst) if w >= best - SCATTER_NEAR]
    rest = budget - len(first)
    if high and rest > 0:
        top = min(max(high) + SCATTER_EVERY, fmt.prec)
        more = rows_at([int(s) for s in rng.integers(0, top, size=rest, endpoint=True)])
        measure(more)
        out.append(more)
    return np.concatenate(out)


def toward_zeros(points: np.ndarray, bits: np.ndarray, values: np.ndarray,
                 probe: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
                 domain_ranges: Sequence[tuple[float, float]], fmt: Format,
                 starts: int = ZERO_STARTS, steps: int = ZERO_STEPS,
                 rounds: int = ZERO_ROUNDS, spread: np.ndarray | None = None) -> np.ndarray:
    """Where a cancellation loses bits, the loss is largest at the exact
    output's own zero: from the ``starts`` worst of ``points`` (``bits``
    and the true ``values``: shape (outputs, n), NaN where not known), along
    each variable, secant steps on the true value of the output worst
    there toward its zero, then the floats on both sides of the last step (``SIDES``);
    then (``rounds``) the same along the other variables from the point of
    each start's lines nearest a zero (a zero only a finer variable
    resolves).  Then toward a zero in all the variables at once
    (:func:`_joint_zero`), from the starts, from each start's line end of
    least value, and from the ``JOINT_SPREAD`` points of ``spread`` (a mask
    of ``points``: draws spread over the box) of least value.  ``probe(rows)``
    measures rows: (bits, true values), each (outputs, m).  Returns the rows
    measured, in the order measured.

    The zeros the structural search finds are those of the sums as floats
    compute them: where a form in pairs of floats cancels deeper than a
    float can tell, their signs are rounding noise, and the ascent does not
    cross the flat error around the true zero (the weighted BCE gradient's
    form in pairs -(y*z + (y - 1)*exp(x))/(exp(x) + 1): 1.0 bits but within
    1e-18 of its zero at x ~ -1.8e-16, every bit at the floats beside it).
    The true value is smooth there, and a secant step lands next to the
    zero from anywhere its first order holds.
    """
    n, k = points.shape
    b = np.where(np.isnan(bits), -np.inf, bits)
    b = b if b.ndim == 2 else b[None, :]
    v = np.asarray(values, dtype=float)
    v = v if v.ndim == 2 else v[None, :]
    worst = b.max(axis=0, initial=-np.inf)
    chosen: list[int] = []
    for i in (int(i) for i in np.argsort(-worst, kind="stable") if np.isfinite(worst[i])):
        if len(chosen) >= starts:
            break
        # distinct points of distinct values: points apart only in a variable
        # the value does not see (x subnormal or 0 in exp(-x*y)*cos(y*z))
        # are one start's lines twice
        if not any((points[i] == points[c]).all() or (v[:, i] == v[:, c]).all()
                   for c in chosen):
            chosen.append(i)
    if not chosen or k == 0:
        return np.zeros((0, k), dtype=fmt.dtype)
    lo = np.array([r[0] for r in domain_ranges], dtype=float)
    hi = np.array([r[1] for r in domain_ranges], dtype=float)
    bounds = np.array([[int(x) for x in ordinal(np.array(r), fmt)] for r in domain_ranges])
    out: list[np.ndarray] = []

    def measure(rows: np.ndarray, outs: list) -> list:
        _, got = probe(rows)
        out.append(rows)
        got = np.asarray(got, dtype=float)
        got = got if got.ndim == 2 else got[None, :]
        return [float(got[o, m]) for m, o in enumerate(outs)]

    def line(o: int, row: np.ndarray, j: int, f0: float, start: int, r: float) -> list:
        """A line along variable ``j`` from ``row`` (true value ``f0``), its
        first step ``r`` of the abscissa (the width's 2**-40 at 0)."""
        x0 = float(row[j])
        h = abs(x0) * r or (hi[j] * 2.0**-40 - lo[j] * 2.0**-40)
        x1 = x0 + h if x0 + h <= hi[j] else x0 - h
        return [o, row, j, x0, f0, x1, math.nan, start, h, 0]

    def secant(lines: list) -> None:
        """The secant steps of ``lines``, in place."""
        live = lines
        for step in range(steps + 1):
            tick()  # a secant step: a step of the search
            xs = []
            for it in live:
                if step == 0:
                    xs.append(it[5])
                    continue
                x0, f0, x1, f1 = it[3], it[4], it[5], it[6]
                with np.errstate(all="ignore"):
                    if f1 == f0:  # not visible yet: a larger first step
                        it[8] = max(it[8] * 2.0**20, hi[it[2]] * 2.0**-40 - lo[it[2]] * 2.0**-40)
                        xs.append(x0 + it[8] if x0 + it[8] <= hi[it[2]] else x0 - it[8])
                    else:
                        if it[9] >= 2:
                            f0, f1 = math.sqrt(abs(f0)), math.sqrt(abs(f1))
                        # (on sqrt|f| two values of opposite signs may tie: a step
                        # across the double zero to its mirror; the line ends there,
                        # as where a step leaves the box: a ZeroDivisionError stopped
                        # stabilize on the angle between two 3-vectors in float64)
                        xs.append(math.nan if f1 == f0 else
                                  float(fmt.dtype.type(x1 - f1 * (x1 - x0) / (f1 - f0))))
            keep = [m for m, x in enumerate(xs) if np.isfinite(x)
                    and lo[live[m][2]] <= x <= hi[live[m][2]] and (step == 0 or x != live[m][5])]
            live, xs = [live[m] for m in keep], [xs[m] for m in keep]
            if not live:
                break
            rows = np.array([it[1] for it in live], dtype=fmt.dtype)
            rows[np.arange(len(live)), [it[2] for it in live]] = np.asarray(xs, dtype=fmt.dtype)
            fs = measure(rows, [it[0] for it in live])
            nxt = []
            for it, x, f in zip(live, xs, fs):
                if step == 0 or it[6] == it[4]:  # (a first step, or a larger one)
                    it[5], it[6] = x, f
                else:
                    # twice the same sign and not a tenth nearer: a double zero
                    # (a secant step on a double zero leaves |f| * 0.38)
                    slow = f * it[6] > 0 and abs(it[6]) / 10 < abs(f) < abs(it[6])
                    it[9] = max(it[9], 2) if it[9] >= 2 else (it[9] + 1 if slow else 0)
                    it[3], it[4], it[5], it[6] = it[5], it[6], x, f
                if np.isfinite(f) and f != 0:
                    nxt.append(it)
            live = nxt

    # a start: (output, row, its true value, the variable it came along: -1
    # none, the start it came from)
    todo = []
    for i in chosen:
        o = int(np.argmax(b[:, i]))
        todo.append((o, points[i].copy(), float(v[o, i]), -1, len(todo)))
    every: list = []  # every line's end, for the steps across the zeros
    for _ in range(rounds):
        # a line: [output, row, variable, x0, f0, x1, f1, start, first step, slow
        # steps (2: a double zero, secant steps on sqrt|f|: on (x - y)**2 they
        # converge slowly)]; a first step small enough for the first order
        # (grown where the value does not change: from x = 1e-144 toward
        # 1e-16; the width scaled first: hi - lo overflows over all floats)
        first = _first_steps(fmt)
        lines = [line(o, row, j, f0, origin, first[0])
                 for o, row, f0, came, origin in todo if np.isfinite(f0) and f0 != 0
                 for j in range(k) if j != came]
        if not lines:
            break
        secant(lines)
        # then finer first steps where a line did not end beside a zero: where
        # the value oscillates faster than the first step (cos(y*z) at
        # y*z ~ 5e4 in float32: a period of 1e-4 of z, 2**-8 of z is 3,000
        # periods) the secant jumps between periods and nears no zero
        batch = lines
        for r in first[1:]:
            batch = [line(it[0], it[1], it[2], f0, it[7], r)
                     for it, f0 in ((it, _start_value(it, todo)) for it in batch)
                     if it[1][it[2]] != 0 and _floats_away(it, fmt) > NEAR_ZERO]
            if not batch:
                break
            secant(batch)
            lines += batch
        # the floats on both sides of each line's last abscissa, 1, 2, 4 and 8
        # floats away: the steps may stop a few floats from the zero (they run
        # out, or a double zero converges slowly), and the error peaks at the
        # float nearest it (x/2 - sqrt(y) + y/(2x) in pairs: 49.0 bits at the
        # last step, 62.8 four floats of y away; the barometric difference
        # exp(-x/8400) - exp(-y/8400) in pairs, 47.7 reported, 50.9 measured)
        ends = [it for it in lines if np.isfinite(it[6])]
        if not ends:
            break
        rows = np.repeat(np.array([it[1] for it in ends], dtype=fmt.dtype), len(SIDES), axis=0)
        o = ordinal(np.array([it[5] for it in ends], dtype=fmt.dtype), fmt).astype(np.int64)
        js = np.repeat([it[2] for it in ends], len(SIDES))
        side = np.clip((o[:, None] + np.array(SIDES, dtype=np.int64)).ravel(),
                       bounds[js, 0], bounds[js, 1])
        rows[np.arange(len(rows)), js] = from_ordinal(side, fmt)
        _, got = probe(rows)
        out.append(rows)
        # then 1 and 2 floats beside the side nearest the zero (the smallest
        # |true value|) of each line: the sides are up to 4 floats apart (the
        # Newton step in float32, widened: the steps ended 7 floats of x from
        # the zero's nearest float, 18.4 bits at +8, 22.6 at +7)
        got = np.abs(np.asarray(got, dtype=float).reshape(-1, len(rows)))
        near = []
        for m, it in enumerate(ends):
            f = got[it[0], m * len(SIDES):(m + 1) * len(SIDES)]
            if np.isfinite(f).any():
                near.append(m * len(SIDES) + int(np.nanargmin(np.where(np.isfinite(f), f,
                                                                       np.nan))))
        if near:
            again = np.repeat(rows[near], len(CLOSE), axis=0)
            jn = js[near].repeat(len(CLOSE))
            on = ordinal(rows[near, js[near]], fmt).astype(np.int64)
            again[np.arange(len(again)), jn] = from_ordinal(np.clip(
                (on[:, None] + np.array(CLOSE, dtype=np.int64)).ravel(),
                bounds[jn, 0], bounds[jn, 1]), fmt)
            probe(again)
            out.append(again)
        every += ends
        # the next round's starts: each start's line that ended nearest a zero
        best: dict[int, list] = {}
        for it in ends:
            if it[6] != 0 and (it[7] not in best or abs(it[6]) < abs(best[it[7]][6])):
                best[it[7]] = it
        todo = []
        for it in best.values():
            row = it[1].copy()
            row[it[2]] = it[5]
            todo.append((it[0], row, it[6], it[2], it[7]))
    # and across each start's zero, through the floats of the other variables
    _across_zero(_nearest_in_floats(every, fmt), measure, bounds, fmt)
    # and toward a zero in all the variables at once, from each start and from
    # its line's end of least value (a minimum along that line, not a zero)
    joint = []
    for i in chosen:
        o = int(np.argmax(b[:, i]))
        joint.append((o, points[i].astype(float), float(v[o, i])))
    least: dict[int, list] = {}
    for it in every:
        if np.isfinite(it[6]) and it[6] != 0 and (
                it[7] not in least or abs(it[6]) < abs(least[it[7]][6])):
            least[it[7]] = it
    for it in least.values():
        if abs(it[6]) < abs(joint[it[7]][2]):
            row = it[1].astype(float)
            row[it[2]] = it[5]
            joint.append((it[0], row, float(it[6])))
    # (the worst points may all be where the zero set loses nothing: at y, z
    # ~ 1e-73 in Vincenty's angle, whose cos(y), cos(z) round to 1; the
    # draws spread over the box reach it where its terms are of everyday size)
    if spread is not None and spread.any():
        a = np.abs(v[:, spread])
        a = np.where(np.isfinite(a) & (a > 0), a, np.nan)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (an output NaN at every draw)
            rel = a / np.nanmedian(a, axis=1, keepdims=True)
        rel = np.where(np.isnan(rel), np.inf, rel)
        at = np.flatnonzero(spread)
        # apart from each other by half the box in some variable (the
        # least values may all be on one part of the zero set: Vincenty's
        # angle is 0 at either pole whatever x, near the box's edges 1.5707)
        half = hi / 2 - lo / 2
        taken: list[np.ndarray] = []
        for m in np.argsort(rel.min(axis=0), kind="stable"):
            o = int(np.argmin(rel[:, m]))
            if len(taken) >= JOINT_SPREAD or not np.isfinite(rel[o, m]):
                break
            u = np.where(half > 0, (points[at[m]] / 2 - lo / 2) / half, 0.0)
            if all(np.abs(u - w).max() >= 0.5 for w in taken):
                taken.append(u)
                joint.append((o, points[at[m]].astype(float), float(v[o, at[m]])))
    _joint_zero(joint, measure, lo, hi, bounds, fmt)
    return np.concatenate(out) if out else np.zeros((0, k), dtype=fmt.dtype)


def _start_value(it: list, todo: list) -> float:
    """The true value at the start of line ``it`` (its row, unmoved)."""
    return next(t[2] for t in todo if t[4] == it[7])


def _floats_away(it: list, fmt: Format) -> float:
    """How many floats of its variable line ``it``'s last step is from the
    zero its secant model puts next (inf where there is no model)."""
    x0, f0, x1, f1 = it[3], it[4], it[5], it[6]
    if f1 == 0:
        return 0.0
    if not (np.isfinite(f0) and np.isfinite(f1)) or x1 == x0 or f1 == f0:
        return math.inf
    with np.errstate(all="ignore"):
        away = abs(f1 * (x1 - x0) / (f1 - f0)) / float(np.spacing(fmt.dtype.type(x1)))
    return float(away) if np.isfinite(away) else math.inf


def _nearest_in_floats(ends: list, fmt: Format) -> list:
    """Each start's line whose last step is fewest floats of its variable
    from the zero its secant model puts next (at most ``NEAR_ZERO``): a
    value decaying toward 0 (exp(-x*y) along x) is small, but no zero is
    near."""
    best: dict[int, tuple[float, list]] = {}
    for it in ends:
        away = _floats_away(it, fmt)
        if away <= NEAR_ZERO and (it[7] not in best or away < best[it[7]][0]):
            best[it[7]] = (away, it)
    return [it for _, it in best.values()]


def _joint_zero(starts: list, measure: Callable, lo: np.ndarray, hi: np.ndarray,
                bounds: np.ndarray, fmt: Format, steps: int = JOINT_STEPS) -> None:
    """Toward the output's zero in all the variables at once: from each of
    ``starts`` (output, row, true value), conjugate-gradient steps
    (Polak-Ribiere) on the square of the true value relative to the start's,
    its gradient by central differences (exact on a quadratic), each line
    searched at the point where a cone through a zero would meet it, then
    at the minimum of the parabola through the value, its slope and that
    point; then the floats beside each last point along each variable
    (``SIDES``: the loss at a zero set is a noise, float to float).  A
    start ends where no step lowers its value, or where the quadratic puts
    the zero within a quarter float of its largest variable.
    ``measure(rows, outputs)`` measures (and keeps) rows and returns the
    outputs' true values.

    A nonnegative output (a norm, a distance, an angle) is zero on a set of
    two or more fewer dimensions, where it has a minimum and changes no
    sign: along one variable at a time its least value is not a zero, and
    the secant lines stop there.  Its square is smooth there, a quadratic of
    the distance to that set, whose minimum conjugate gradients reach in as
    many steps as the set has codimensions.  Vincenty's central angle in
    hypot form loses up to 58 bits where x ~ 0 and y ~ z (stabilize had
    reported 2.8, the held-out audit measured 7.8; the secant lines from
    the worst points reached 4-10 at most seeds).
    """
    k = len(lo)
    if k < 2 or k > JOINT_MAX_VARIABLES:
        return
    with np.errstate(all="ignore"):  # (steps past the box are clipped; a value's square)
        ends = _joint_steps(starts, measure, lo, hi, fmt, steps)
    # the floats beside each last point, along each variable
    if not ends:
        return
    rows = np.repeat(np.array([x for _, x in ends], dtype=fmt.dtype), k * len(SIDES), axis=0)
    js = np.tile(np.repeat(np.arange(k), len(SIDES)), len(ends))
    o = ordinal(rows[np.arange(len(rows)), js], fmt).astype(np.int64)
    moved = o + np.tile(np.array(SIDES, dtype=np.int64), k * len(ends))
    rows[np.arange(len(rows)), js] = from_ordinal(np.clip(moved, bounds[js, 0], bounds[js, 1]),
                                                  fmt)
    measure(rows, [o for o, _ in ends for _ in range(k * len(SIDES))])
    # and onto the zero set exactly where floats can hold it, then deeper
    snapped = [(o, r) for o, x in ends for r in _onto_exact_zeros(x, lo, hi, fmt)]
    if snapped:
        measure(np.array([r for _, r in snapped], dtype=fmt.dtype), [o for o, _ in snapped])


def _onto_exact_zeros(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, fmt: Format) -> list:
    """Rows on the zero set beside a joint landing ``x``, exactly, where
    floats hold it: variables within half the format's digits of each other
    (or of each other's negative) made equal, each choice of the two values
    (a tie, ``y = z``, or ``y = -z``); the variables under half the digits
    of the largest (those the set has at 0) taken down together by
    ``2**-(prec/2)`` a step to 0, at each tie; and each tie slid along the
    set: its value moved to ``SLIDE`` others spread over the box, the
    vanishing variables at their landing, their deepest nonzero step and 0.

    The conjugate-gradient landing stops within a quarter float of the
    largest variable, where the true value is still about that quarter
    float: a form in pairs of floats (``compensated``) is exact to twice the
    digits there and loses nothing.  It loses where the true value is below
    its own rounding: on the set's float points and far down the vanishing
    variables, and there as a noise along the set (the pairs' rounding of
    two products the set makes equal, 0 at some of its points and not at
    others).  The compensated Vincenty angle lost 61 bits at x below 1e-32,
    y = z (computed 1.2e-32 where the truth is x cos y), found by one
    seed of eight (1.0 reported at the others); its landings were within
    1e-17 of the set, at values of y where the rounding happened to cancel.
    """
    k = len(x)
    big = float(np.abs(x).max())
    if not (np.isfinite(x).all() and big > 0):
        return []
    near = 2.0**-(fmt.prec // 2)
    base = np.clip(x, lo, hi).astype(fmt.dtype).astype(float)
    ties = []  # (i, j, sign, snapped row)
    for i in range(k):
        for j in range(i + 1, k):
            for sign in (1.0, -1.0):
                a, b = float(base[i]), float(sign * base[j])
                if abs(a / 2 - b / 2) <= near * max(abs(a), abs(b)) / 2 and (a != 0 or sign > 0):
                    for v in ((a, b) if a != b else (a,)):
                        r = base.copy()
                        r[i], r[j] = v, sign * v
                        ties.append((i, j, sign, r))
    small = np.abs(base) <= near * big
    rows = [r for *_, r in ties]
    depths = []  # each step down of the vanishing variables, to 0
    if small.any():
        s = base[small]
        while s.any():
            s = s * near
            s = np.where(np.abs(s) < float(np.finfo(fmt.dtype).smallest_subnormal), 0.0, s)
            depths.append(s)
        for r in list(rows) or [base]:  # (at the ties where there are: the set)
            for d in depths:
                q = r.copy()
                q[small] = d
                rows.append(q)
    # along each tie: the same tie at other values, spread in value and in
    # binade, the vanishing variables at their landing, their deepest step
    # before 0, and 0; and one float off the tie at their landing
    kept = [base[small]] + depths[-2:] if depths else [None]
    for i, j, sign, r in {(i, j, sign): (i, j, sign, r) for i, j, sign, r in ties}.values():
        for v in _along(lo[i], hi[i], *sorted((sign * lo[j], sign * hi[j])), r[i], fmt):
            for d in kept + ["off"]:
                q = r.copy()
                q[i], q[j] = v, sign * v
                if isinstance(d, str):
                    q[j] = np.nextafter(fmt.dtype.type(q[j]), fmt.dtype.type(np.inf))
                elif d is not None:
                    q[small] = d
                rows.append(q)
    inside = [r for r in rows if ((r >= lo) & (r <= hi)).all()]
    return [np.asarray(r, dtype=float) for r in inside]


def _along(lo_i: float, hi_i: float, lo_j: float, hi_j: float, at: float,
           fmt: Format, n: int = SLIDE) -> list[float]:
    """``n`` values in both ranges, spread from ``at`` by the golden
    ratio's fractions: half uniform in value, half uniform in binade (down
    to the smallest normal float), each sign the range allows."""
    a, b = float(max(lo_i, lo_j)), float(min(hi_i, hi_j))
    if not a < b:
        return []
    top = max(abs(a), abs(b))
    e_lo, e_hi = math.log2(float(np.finfo(fmt.dtype).tiny)), math.log2(top)
    out = []
    for m in range(1, n // 2 + 1):  # (in halves: b - a overflows over the whole range)
        u = (m * _GOLDEN + (float(at) / 2 - a / 2) / (b / 2 - a / 2)) % 1.0
        out.append(a * (1 - u) + b * u)
        mag = 2.0**(e_lo + (e_hi - e_lo) * u)
        out.append(min(max(mag if m % 2 or a >= 0 else -mag, a), b))
    return [float(fmt.dtype.type(v)) for v in out]


def _joint_steps(starts: list, measure: Callable, lo: np.ndarray, hi: np.ndarray, fmt: Format,
                 steps: int) -> list:
    """:func:`_joint_zero`'s steps; returns each start's (output, last point)."""
    k = len(lo)
    eye = np.eye(k, dtype=bool)
    width = hi * 2.0**-40 - lo * 2.0**-40

    def rounded(rows: np.ndarray) -> np.ndarray:
        return np.clip(rows, lo, hi).astype(fmt.dtype).astype(float)

    class Start:  # a start's state: its point, its value squared relative to the start's
        def __init__(self, o: int, x: np.ndarray, f: float) -> None:
            self.o, self.x, self.f0, self.phi = o, x, abs(f), 1.0
            self.g = self.d = self.dist = None

    live = [Start(o, np.asarray(x, dtype=float), f) for o, x, f in starts
            if np.isfinite(f) and f != 0 and np.isfinite(x).all()]
    ends: list = []
    for _ in range(steps):
        if not live:
            break
        tick()  # a step toward the joint zero
        # the gradient, by central differences: steps of half the format's
        # digits, no more than a sixteenth of the distance to the zero the last
        # step's quadratic puts (the cubic term's share of a difference is
        # h**2 over that distance), and no less than 16 floats (the rounding)
        ups, downs = [], []
        for s in live:
            h = np.where(s.x != 0, np.abs(s.x) * 2.0**-(fmt.prec // 2), width)
            if s.dist is not None:
                h = np.maximum(np.minimum(h, s.dist / 16), np.abs(s.x) * 2.0**(4 - fmt.prec))
                h = np.where(h > 0, h, width)
            ups.append(rounded(s.x + np.diag(h)))
            downs.append(rounded(s.x - np.diag(h)))
        got = np.asarray(measure(np.concatenate([r for p in zip(ups, downs) for r in p]),
                                 [s.o for s in live for _ in range(2 * k)]), dtype=float)
        moving = []
        for m, s in enumerate(live):
            fu, fd = got[2 * k * m:2 * k * m + k], got[2 * k * m + k:2 * k * (m + 1)]
            dx = ups[m][eye] - downs[m][eye]
            g = np.where(dx != 0, ((fu / s.f0)**2 - (fd / s.f0)**2) / dx, 0.0)
            # (a variable at an end of its box moves inward only)
            top, bottom = s.x >= hi, s.x <= lo
            g = np.where((top & (g < 0)) | (bottom & (g > 0)), 0.0, g)
            dist = 2 * s.phi / np.sqrt(g @ g)
            # (no gradient, or on the zero to a quarter float of the largest variable)
            if not (np.isfinite(g).all() and dist >= np.abs(s.x).max() * 2.0**-(fmt.prec + 2)):
                ends.append((s.o, s.x))
                continue
            d = -g
            if s.g is not None:  # Polak-Ribiere, restarted where not downhill
                beta = max(0.0, float(g @ (g - s.g) / (s.g @ s.g)))
                d2 = -g + beta * s.d
                d2 = np.where((top & (d2 > 0)) | (bottom & (d2 < 0)), 0.0, d2)
                if np.isfinite(d2).all() and g @ d2 < 0:
                    d = d2
            s.g, s.d, s.dist, s.slope = g, d, dist, g @ d
            moving.append(s)
        # along each direction: where a cone through a zero would meet it (its
        # square, a parabola of least value 0), then the minimum of the
        # parabola through the value, its slope and that point
        best = [(s.phi, None) for s in moving]
        first: dict[int, tuple] = {}
        for phase in (0, 1):
            rows, which = [], []
            for m, s in enumerate(moving):
                if phase == 0:
                    t = -2 * s.phi / s.slope
                elif m in first:
                    t1, p1 = first[m]
                    c = (p1 - s.phi - s.slope * t1) / (t1 * t1)
                    t = -s.slope / (2 * c) if c > 0 and np.isfinite(c) else 2 * t1
                else:
                    continue
                row = rounded(s.x + t * s.d)
                if np.isfinite(row).all() and (row != s.x).any():
                    rows.append(row)
                    which.append((m, t))
            if not rows:
                break
            got = np.asarray(measure(np.array(rows, dtype=fmt.dtype),
                                     [moving[m].o for m, _ in which]), dtype=float)
            for row, (m, t), f in zip(rows, which, got):
                p = (f / moving[m].f0)**2 if np.isfinite(f) else np.inf
                if phase == 0:
                    first[m] = (t, p)
                if p < best[m][0]:
                    best[m] = (p, row)
        live = []
        for s, (p, row) in zip(moving, best):
            if row is None or p == 0:
                ends.append((s.o, s.x if row is None else row))
            else:
                s.x, s.phi = row, p
                live.append(s)
    return ends + [(s.o, s.x) for s in live]


def _across_zero(ends: list, measure: Callable, bounds: np.ndarray, fmt: Format,
                 reach: int = ACROSS) -> None:
    """The output's zero beside each line's end, through the floats of the
    other variables: where the zero is a surface in two or more variables,
    the float nearest it along one line is at a random fraction of a float's
    step from it, and how deep the loss goes there is luck (cos(y*z) at
    y*z ~ 5e4 in float32: the computed y*z rounds across the zero only where
    the exact product is within a quarter of its rounding step of it).  Each
    other variable moved by 1 to ``reach`` floats each way, and the line's
    own variable moved to the zero by the first-order model (its slope from
    the line's last secant step, the other's from one measured step): the
    floats on both sides of each of those zeros, 2 * ``reach`` fresh tries.
    ``measure(rows, outputs)`` measures (and keeps) rows."""
    k = bounds.shape[0]
    # one measured step along each other variable: its slope
    asks, tries = [], []
    for it in ends:
        j, x0, f0, x1, f1 = it[2], it[3], it[4], it[5], it[6]
        if not (np.isfinite(f0) and np.isfinite(f1)) or x1 == x0 or f1 == f0:
            continue
        row = it[1].copy()
        row[j] = x1
        for q in range(k):
            if q == j:
                continue
            oq = int(ordinal(np.array([row[q]], dtype=fmt.dtype), fmt)[0])
            step = reach if oq + reach <= bounds[q, 1] else -reach
            if not bounds[q, 0] <= oq + step <= bounds[q, 1]:
                continue
            moved = row.copy()
            moved[q] = from_ordinal(np.array([oq + step], dtype=np.int64), fmt)[0]
            asks.append(moved)
            tries.append((it[0], row, j, (f1 - f0) / (x1 - x0), f1, q, oq, step))
    if not asks:
        return
    got = measure(np.array(asks, dtype=fmt.dtype), [t[0] for t in tries])
    rows, outs = [], []
    offsets = np.array([m for m in range(-reach, reach + 1) if m], dtype=np.int64)
    for (o, row, j, a, f, q, oq, step), g in zip(tries, got):
        if not np.isfinite(g) or g == f:
            continue
        b = (g - f) / step  # per float of variable q
        with np.errstate(all="ignore"):
            xs = (row[j] - (f + b * offsets.astype(float)) / a).astype(fmt.dtype)
        oq_m = np.clip(oq + offsets, bounds[q, 0], bounds[q, 1])
        ok = np.isfinite(xs)
        if not ok.any():
            continue
        oj = ordinal(xs[ok], fmt).astype(np.int64)
        near = np.clip((oj[:, None] + np.array([-1, 0, 1], dtype=np.int64)).ravel(),
                       bounds[j, 0], bounds[j, 1])
        block = np.repeat(row[None, :], len(near), axis=0)
        block[:, j] = from_ordinal(near, fmt)
        block[:, q] = from_ordinal(np.repeat(oq_m[ok], 3), fmt)
        rows.append(block)
        outs += [o] * len(block)
    if rows:
        measure(np.concatenate(rows).astype(fmt.dtype), outs)


def climb(points: np.ndarray, score: np.ndarray, objective: Callable[[np.ndarray], np.ndarray],
          domain_ranges: Sequence[tuple[float, float]], fmt: Format, starts: int,
          calls: int) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`ascend`, for an objective cheap per row and dear per
    call: from the ``starts`` best of ``points`` (by ``score``), every step
    tries +-2**k ordinals along every coordinate and pair of coordinates
    (:func:`_directions`), and the last move again and doubled, of every
    start at once, and moves each start to its best candidate where that is
    higher; k goes down (from a binade to one float) where none is.  At most ``calls``
    calls of ``objective``.  Returns the rows measured and their scores.
    """
    n, k = points.shape
    s = np.where(np.isnan(score), -np.inf, score)
    order = np.argsort(-s, kind="stable")
    order = order[np.isfinite(s[order])].tolist()
    chosen: list[int] = []
    seen: set = set()
    for i in order:
        key = points[i].tobytes()
        if key not in seen:
            seen.add(key)
            chosen.append(i)
        if len(chosen) >= starts:
            break
    if not chosen or k == 0:
        return points[:0], np.zeros(0)
    bounds = np.array([[int(v) for v in ordinal(np.array(r), fmt)] for r in domain_ranges])
    cur = np.stack([ordinal(points[i], fmt) for i in chosen]).astype(np.int64)
    best = s[chosen].copy()
    levels = list(range(fmt.prec - 1, -1, -4)) + [0]
    level = np.zeros(len(chosen), dtype=int)
    moved = np.zeros_like(cur)  # each start's last move: tried again, doubled (a valley)
    dirs = np.array(_directions(k))
    rows_out, scores_out = [], []
    step = np.array([1 << v for v in levels], dtype=np.int64)
    nd = len(dirs)
    for _ in range(calls):
        tick()  # a step of the climb
        live = np.flatnonzero(level < len(levels))
        if not len(live):
            break
        # each start's tries as one array, in the order of dirs, then its last move
        # again and doubled where it moved (all starts at once: the same ordinals,
        # in the same order, as start by start)
        at, mv = cur[live], moved[live]
        tries = np.concatenate([dirs[None, :, :] * step[level[live]][:, None, None],
                                mv[:, None, :], 2 * mv[:, None, :]], axis=1)
        o = np.clip(at[:, None, :] + tries, bounds[:, 0], bounds[:, 1])
        valid = (o != at[:, None, :]).any(axis=2)
        valid[:, nd:] &= mv.any(axis=1)[:, None]
        cand_o = o[valid]
        if not len(cand_o):
            level[live] += 1
            continue
        rows = np.stack([from_ordinal(cand_o[:, j], fmt) for j in range(k)], axis=1)
        got = np.asarray(objective(rows), dtype=float)
        got = np.where(np.isnan(got), -np.inf, got)
        rows_out.append(rows)
        scores_out.append(got)
        # each start to its best try (the first of the highest), where that is higher
        table = np.full(valid.shape, -np.inf)
        table[valid] = got
        where = np.full(valid.shape, -1, dtype=np.int64)
        where[valid] = np.arange(len(cand_o))
        pick = np.argmax(table, axis=1)
        top = table[np.arange(len(live)), pick]
        up = valid.any(axis=1) & (top > best[live])
        i = where[np.arange(len(live)), pick][up]
        t = live[up]
        best[t], moved[t], cur[t] = top[up], cand_o[i] - cur[t], cand_o[i]
        t = live[~up]
        level[t] += 1
        moved[t] = 0
    if not rows_out:
        return points[:0], np.zeros(0)
    return np.concatenate(rows_out), np.concatenate(scores_out)


def rise(points: np.ndarray, objective: Callable[[np.ndarray], np.ndarray],
         domain_ranges: Sequence[tuple[float, float]], fmt: Format,
         calls: int) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`climb`, in VALUE rather than in ordinals, from every one
    of ``points``: steps of +-h times each variable's range along every
    coordinate and pair of coordinates, h from a quarter down, quartered
    where no step helps.  For a smooth objective whose top is at everyday
    values: in ordinals the way from x = -1.4 to x = 0.9 runs through every
    tiny magnitude between, and an ascent toward ``cos(x - y)``'s ridge
    x = y ends at x, y ~ 0.  At most ``calls`` calls of ``objective``.
    Returns the rows measured and their scores.

    >>> import numpy as np
    >>> from symgrad.stability.bits import FORMATS
    >>> top = lambda r: -(r[:, 0] - 0.5)**2 - (r[:, 1] + 0.25)**2
    >>> rows, scores = rise(np.zeros((1, 2)), top, [(-2, 2), (-2, 2)],
    ...                     FORMATS["float64"], calls=10)
    >>> rows[np.argmax(scores)].tolist(), len(rows)  # 8 steps a call in 2 variables
    ([0.5, -0.25], 80)
    """
    n, k = points.shape
    if n == 0 or k == 0:
        return points[:0], np.zeros(0)
    lo = np.array([r[0] for r in domain_ranges], dtype=float)
    hi = np.array([r[1] for r in domain_ranges], dtype=float)
    width = hi / 2 - lo / 2  # (half of it: no overflow)
    dirs = np.array(_directions(k), dtype=float)
    cur = points.astype(float)
    best = np.where(np.isnan(s := np.asarray(objective(points), dtype=float)), -np.inf, s)
    h = np.full(n, 0.5)
    floor = 2.0 ** -(fmt.prec + 2)
    rows_out, scores_out = [], []
    for _ in range(calls):
        tick()  # a step of the ascent
        live = np.flatnonzero(h >= floor)
        if not len(live):
            break
        with np.errstate(all="ignore"):
            cand = cur[live, None, :] + (h[live, None, None] * dirs[None]) * width
        cand = np.clip(cand, lo, hi).reshape(-1, k)
        rows = cand.astype(fmt.dtype)
        got = np.asarray(objective(rows), dtype=float)
        got = np.where(np.isnan(got), -np.inf, got)
        rows_out.append(rows)
        scores_out.append(got)
        per = got.reshape(len(live), len(dirs))
        i = np.argmax(per, axis=1)
        up = per[np.arange(len(live)), i] > best[live]
        moved = live[up]
        cur[moved] = rows.reshape(len(live), len(dirs), k)[up, i[up]].astype(float)
        best[moved] = per[up, i[up]]
        h[live[~up]] /= 4
    if not rows_out:
        return points[:0], np.zeros(0)
    return np.concatenate(rows_out), np.concatenate(scores_out)


def _directions(k: int) -> list[np.ndarray]:
    """Steps to try in ``k`` dimensions: along each axis, and along the
    diagonals of each pair of axes where there are at most 4 (a valley
    across two variables)."""
    eye = np.eye(k, dtype=np.int64)
    out = [s * eye[j] for j in range(k) for s in (-1, 1)]
    if k <= 4:
        out += [a * eye[i] + b * eye[j] for i in range(k) for j in range(i + 1, k)
                for a in (-1, 1) for b in (-1, 1)]
    return out


def worst_bits(bits: np.ndarray) -> np.ndarray:
    """The worst error over the outputs at each point, NaN where none is
    measured (``bits``: shape (outputs, n))."""
    b = np.where(np.isnan(bits), -np.inf, bits).max(axis=0, initial=-np.inf)
    return np.where(np.isinf(b) & (b < 0), np.nan, b)
