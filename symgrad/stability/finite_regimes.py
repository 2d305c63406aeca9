"""Finite regimes: the formula as its code runs it wherever that is finite,
a finite form only where it is not, chosen on a SUBEXPRESSION (issue 17 §3).

A form that removes the NaN or inf of the running code over one region may
lose more than that code elsewhere: at the zeros of a gradient, where every
form loses most of its bits, it may draw a worse error than the running
code by chance, and :func:`symgrad.stabilize`'s admissibility (a form never
loses accuracy where the running code kept it) rejects it.  The float32
gradient of ``log(1 + exp(x*y))*sin(x)`` over x in (-50, 50), y in (-2, 2)
was returned unchanged so, NaN where ``x*y > 88.7`` (``exp`` overflows),
beside a finite form in pairs that lost 2-4 bits more than the written one
at points of its zero curve ``u cos x + y sin x ≈ 0`` far from there.

Where the running code is NaN or inf is decided by a subexpression, not by
one variable: here the argument ``u = x*y`` of the exponential that
overflows.  So the axes are the arguments of the nodes whose edges
(:func:`.edges.edges`: overflow, underflow, domain) the analysis knows, and
the variables; on each, the points are sorted by the subexpression's value
as the code computes it, and the running code is kept on the interval
between two points where it is not finite (and the finite form is) that
holds the most other points.  Each end of that interval is then bisected
on lines through the sample rows beside it (each variable the
subexpression depends on moved alone, first to the other row's value of
the subexpression, then over the float ordinals to where the running code
stops being finite), and the regime is ``Piecewise((form, u < lo),
(source, u < hi), (form, True))``: at every point where the source runs,
it runs as it did, bitwise.  What this yields is a candidate like any
other: :func:`symgrad.stabilize` verifies it on fresh points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from sympy import Add, Expr, Float, Mul, Piecewise, Symbol, exp

from ..graph import free_symbols, postorder
from ..rewrites.candidates import Candidate
from .bits import Format, ordinal
from .edges import edges
from .sampling import from_ordinal

__all__ = ["axes", "finite_regime", "source_interval"]

MAX_AXES = 8  # subexpressions tried as the regime's axis, innermost first
LEFT = 0.1  # a regime leaving more of the running code's NaN points at the samples is none
LEVELS = 4  # bisection rounds evaluated in one call, at most ...
# ... in calls of fewer rows than this (a form in pairs costs ms a call, and up to
# 60 us a row: past a few hundred rows more rounds a call no longer pay)
LEVEL_ROWS = 256
ROUNDS = 3  # regimes nested, each on its own axis (a region bounded in several)
BESIDE = 2  # sample rows each side of an end whose lines are bisected

Values = Callable[[Expr, np.ndarray], np.ndarray]  # a form's values, as its code runs, at rows


def axes(e: Expr, symbols: Sequence[Symbol], fmt: Format) -> list[Expr]:
    """The arguments of ``e``'s nodes that have edges in ``fmt`` (where
    they overflow, underflow or leave their domain), innermost first, then
    the variables: where the running code's NaN or inf begins.

    >>> from sympy import exp, log, symbols
    >>> from .bits import FORMATS
    >>> x, y = symbols("x y")
    >>> axes(log(1 + exp(x*y)), [x, y], FORMATS["float32"])
    [x*y, exp(x*y) + 1, x, y]
    """
    order, _ = postorder([e], lambda n: n.args)
    out: list[Expr] = []
    for node in order:
        got = [u for u, _ in edges(node, fmt)]
        if isinstance(node, Mul):  # a product of exps overflows past the sum of exponents
            powers = [f.args[0] for f in node.args if isinstance(f, exp)]
            if len(powers) > 1:
                got.append(Add(*powers))
        for u in got:
            if not u.is_number and not u.is_Symbol and u not in out:
                out.append(u)
    return out[:MAX_AXES] + [s for s in symbols if s in free_symbols([e])]


def source_interval(u: np.ndarray, need: np.ndarray,
                    done: np.ndarray | None = None) -> tuple[float, float, int]:
    """The open interval ``(lo, hi)`` of ``u`` (ends at values of ``u``, or
    infinite) whose points, other points counting one and ``need`` points
    minus one, sum the most, and that sum: the running code kept there
    keeps the most points where it is finite, and the ``need`` points left
    inside are for a regime on another axis.  NaN values, and the points
    ``done`` (where an outer regime already runs the finite form), count
    nowhere.

    >>> u = np.array([1.0, 2.0, 3.0, 9.0, 10.0, -5.0])
    >>> source_interval(u, np.array([False, False, False, True, True, True]))
    (-5.0, 9.0, 3)
    """
    ok = ~np.isnan(u)
    vals, inverse = np.unique(u[ok], return_inverse=True)
    w = np.zeros(len(vals))
    np.add.at(w, inverse, np.where(need[ok], -1.0, 1.0) * (1.0 if done is None else ~done[ok]))
    best, at, run, start = 0.0, (0, -1), 0.0, 0
    for i, v in enumerate(w):  # the largest sum of consecutive values (Kadane)
        if run <= 0:
            run, start = v, i
        else:
            run += v
        if run > best:
            best, at = run, (start, i)
    i, j = at
    lo = float(vals[i - 1]) if i > 0 else -np.inf
    hi = float(vals[j + 1]) if j + 1 < len(vals) else np.inf
    return lo, hi, int(best)


def finite_regime(running: Candidate, form: Candidate, src_bits: np.ndarray, form_bits: np.ndarray,
                  points: np.ndarray, symbols: Sequence[Symbol],
                  ranges: Sequence[tuple[float, float]], fmt: Format,
                  values: Values) -> Candidate | None:
    """``running`` (the source as its code runs, or a form chosen) where its
    code is finite, ``form`` where it is not and ``form`` is (at the sample
    ``points``, with the bits of error of each there), as a regime on the
    axis (:func:`axes`) that separates them best, and where points are left
    NaN or inf (a region bounded in two subexpressions), a regime of that
    one on another axis (``ROUNDS`` at most); None where no axis leaves
    ``running`` a point.  ``ranges`` are the variables' float ranges;
    ``values(e, rows)`` runs a form's code.

    >>> import numpy as np, sympy as sp
    >>> from symgrad.rewrites.candidates import Candidate
    >>> from symgrad.stability.bits import float_format
    >>> from symgrad.stability.floats import generated
    >>> u, fmt = sp.Symbol("u", real=True), float_format("float64")
    >>> written, finite = sp.exp(u)/(sp.exp(u) + 1), 1/(1 + sp.exp(-u))
    >>> values = lambda e, rows: generated([u], [e], fmt.dtype)(rows[:, 0])[0]
    >>> pts = np.linspace(-800, 800, 401).reshape(-1, 1)
    >>> nan_bits = lambda e: np.where(np.isfinite(values(e, pts)), 0.0, 64.0)
    >>> got = finite_regime(Candidate(written, "as written"), Candidate(finite, "finite"),
    ...                     nan_bits(written), nan_bits(finite), pts, [u],
    ...                     [(-800.0, 800.0)], fmt, values)
    >>> got.how
    'finite regimes in u (above): as written | finite where the first is NaN or inf'
    >>> (kept, below), (other, _) = got.expr.args  # written below exp's overflow
    >>> kept == written and other == finite, below.lhs, float(below.rhs)
    (True, u, 709.7827128933841)
    """
    # (the truth finite: bits measured, the form finite there)
    need = (src_bits >= fmt.width) & (form_bits < fmt.width)
    first, out, done, axes_used = int(need.sum()), None, np.zeros(len(points), dtype=bool), []
    source = running
    for _ in range(ROUNDS):
        if not need.any():
            break
        got = _on_one_axis(running, form, need, done, points, symbols, ranges, fmt, values)
        if got is None:
            break
        (out, side), running = got, got[0]
        axes_used.append(out.how)
        done |= side
        need &= ~side  # (those left inside: for the next axis)
    if out is None or need.sum() > LEFT * first:
        # (a regime still NaN where the running code is, at most of its points, is no
        # fix: NMSE 3.4.2's three nested regimes left 3,027 of 3,031 and cost seconds)
        return None
    return Candidate(out.expr, f"finite regimes in {', '.join(axes_used)}: {source.how} | "
                               f"{form.how} where the first is NaN or inf")


def _on_one_axis(running: Candidate, form: Candidate, need: np.ndarray, done: np.ndarray,
                 points: np.ndarray, symbols: Sequence[Symbol],
                 ranges: Sequence[tuple[float, float]], fmt: Format,
                 values: Values) -> tuple[Candidate, np.ndarray] | None:
    """:func:`finite_regime` on the one axis that keeps ``running`` at the
    most points, ``need`` those where it is NaN or inf and ``form`` is not,
    ``done`` those where it runs ``form`` already; and the points where the
    regime runs ``form``."""
    source = running.expr
    best = None
    for u in axes(source, symbols, fmt):
        uv = values(u, points).astype(np.float64)
        lo, hi, held = source_interval(uv, need, done)
        if held > 0 and (lo > -np.inf or hi < np.inf) and (best is None or held > best[3]):
            best = (u, lo, hi, held, uv)
    if best is None:
        return None
    u, lo, hi, _, uv = best
    finite = _Finite(source, form.expr, u, symbols, ranges, fmt, values)
    inside = ~np.isnan(uv) & (uv > lo) & (uv < hi) & ~need & ~done
    if not inside.any():
        return None
    deep = float(np.median(uv[inside]))
    t_lo = t_hi = None
    # (an end on a line is taken only beyond the nearest sample where the code runs:
    # nearer, the line met where it stops for another cause, another axis's region)
    if hi < np.inf:  # the form from hi up
        near = np.flatnonzero(inside)[np.argsort(-uv[inside], kind="stable")[:BESIDE]]
        past = np.flatnonzero(need & (uv >= hi))[np.argsort(uv[need & (uv >= hi)],
                                                            kind="stable")[:BESIDE]]
        t_hi = min([hi, *(t for t in finite.ends(points[near], points[past], deep, up=True)
                          if t > uv[near[0]])])
    if lo > -np.inf:  # the form below lo
        near = np.flatnonzero(inside)[np.argsort(uv[inside], kind="stable")[:BESIDE]]
        past = np.flatnonzero(need & (uv <= lo))[np.argsort(-uv[need & (uv <= lo)],
                                                            kind="stable")[:BESIDE]]
        t_lo = max([float(np.nextafter(fmt.dtype.type(lo), fmt.dtype.type(np.inf))),
                    *(t for t in finite.ends(points[near], points[past], deep, up=False)
                      if t <= uv[near[0]])])
    if t_lo is not None and t_hi is not None and t_lo >= t_hi:
        return None
    pairs = []
    if t_lo is not None:
        pairs.append((form.expr, u < _const(t_lo)))
    pairs.append((source, u < _const(t_hi) if t_hi is not None else True))
    if t_hi is not None:
        pairs.append((form.expr, True))
    sides = " and ".join(s for s, t in (("below", t_lo), ("above", t_hi)) if t is not None)
    with np.errstate(invalid="ignore"):
        side = ~((uv >= (-np.inf if t_lo is None else t_lo)) &
                 (uv < (np.inf if t_hi is None else t_hi)))
    return Candidate(Piecewise(*pairs), f"{u} ({sides})"), side


def _const(t: float) -> Float:
    return Float(float(t), 17)


class _Finite:
    """Bisection of a regime's end on lines, all lines at once: each moves
    one variable of the axis from a row, the others fixed."""

    def __init__(self, source: Expr, form: Expr, u: Expr, symbols: Sequence[Symbol],
                 ranges: Sequence[tuple[float, float]], fmt: Format, values: Values) -> None:
        self.source, self.form, self.u, self.fmt, self.values = source, form, u, fmt, values
        self.ranges = ranges
        self.moved = [j for j, s in enumerate(symbols) if s in free_symbols([u])]
        self.ends_o = np.array([ordinal(np.array(r, dtype=fmt.dtype), fmt) for r in ranges],
                               dtype=np.int64)

    def _at(self, base: np.ndarray, js: np.ndarray, ords: np.ndarray) -> np.ndarray:
        rows = base.astype(self.fmt.dtype)
        rows[np.arange(len(js)), js] = from_ordinal(ords, self.fmt)
        return rows

    def _u(self, rows: np.ndarray) -> np.ndarray:
        return self.values(self.u, rows).astype(np.float64)

    def _runs(self, rows: np.ndarray) -> np.ndarray:
        """Where the source's code may run: finite there, or the form not."""
        return np.isfinite(self.values(self.source, rows)) | \
            ~np.isfinite(self.values(self.form, rows))

    @staticmethod
    def _bisect(a: np.ndarray, b: np.ndarray, keeps_a) -> tuple[np.ndarray, np.ndarray]:
        """Over the ordinals between ``a`` and ``b`` per line, the adjacent
        pair where ``keeps_a(lines, ords)`` (a boolean per line of
        ``lines`` at its ordinal of ``ords``) turns false.  Where the lines
        are few, up to ``LEVELS`` rounds in one call (every midpoint those
        rounds may visit, then each line walks its tree as one round at a
        time would: the same midpoints; a call of a form in pairs costs ms
        whatever its rows), in calls of fewer than ``LEVEL_ROWS`` rows."""
        a, b = a.copy(), b.copy()
        n = len(a)
        every = np.arange(n)
        while True:
            go = (b > a + 1) | (b < a - 1)
            if not go.any():
                return a, b
            if n >= LEVEL_ROWS:  # (many lines: one round a call, over every line)
                # (the midpoint without b - a, which overflows int64 across float64's zero)
                m = np.where(go, _mid(a, b), a)
                k = keeps_a(every, m)
                a = np.where(go & k, m, a)
                b = np.where(go & ~k, m, b)
                continue
            live = np.flatnonzero(go)
            levels = 1
            while levels < LEVELS and len(live) * (2 ** (levels + 1) - 1) < LEVEL_ROWS:
                levels += 1
            size = 2**levels - 1
            lo = np.empty((len(live), size), dtype=np.int64)
            hi = np.empty_like(lo)
            lo[:, 0], hi[:, 0] = a[live], b[live]
            for i in range(size // 2):  # (heap order: node i's halves are 2i + 1 and 2i + 2)
                md = _mid(lo[:, i], hi[:, i])
                lo[:, 2 * i + 1], hi[:, 2 * i + 1] = lo[:, i], md  # (it does not keep a)
                lo[:, 2 * i + 2], hi[:, 2 * i + 2] = md, hi[:, i]  # (it keeps a)
            mid = _mid(lo, hi)
            open_ = (hi > lo + 1) | (hi < lo - 1)
            q, i = np.nonzero(open_)
            keep = np.zeros((len(live), size), dtype=bool)
            keep[q, i] = keeps_a(live[q], mid[q, i])
            cur = np.zeros(len(live), dtype=np.int64)
            r = np.arange(len(live))
            on = np.ones(len(live), dtype=bool)
            for _ in range(levels):
                on &= open_[r, cur]
                k, md = keep[r, cur], mid[r, cur]
                a[live[on & k]] = md[on & k]
                b[live[on & ~k]] = md[on & ~k]
                cur = np.where(k, 2 * cur + 2, 2 * cur + 1)
                on &= cur < size


    def _cross(self, base: np.ndarray, js: np.ndarray, target: float) -> np.ndarray:
        """Per line, the ordinal of its moved variable where the axis reaches
        ``target`` (from the row toward an end of the range where it does);
        -1 where it does not within the range."""
        o = ordinal(base[np.arange(len(js)), js].astype(self.fmt.dtype), self.fmt)
        side = np.sign(self._u(base) - target)
        end = np.full(len(js), np.iinfo(np.int64).min)
        for e in (0, 1):
            oe = self.ends_o[js, e]
            over = np.sign(self._u(self._at(base, js, oe)) - target) == -side
            end = np.where((end == np.iinfo(np.int64).min) & over & (side != 0), oe, end)
        ok = end != np.iinfo(np.int64).min
        _, b = self._bisect(o, np.where(ok, end, o),
                            lambda q, m: np.sign(self._u(self._at(base[q], js[q], m)) - target)
                            == side[q])
        return np.where(side == 0, o, np.where(ok, b, np.iinfo(np.int64).min))

    def ends(self, near: np.ndarray, past: np.ndarray, deep: float, up: bool) -> list[float]:
        """The values of the axis where the source stops running, on lines
        from the value of the axis at the nearest row ``near`` (where it
        runs), and from ``deep`` (the middle of its interval), to its value
        at the nearest row ``past`` (where it does not): through each of
        those rows, and through the first near row with the other variables
        at the corners of their ranges (where a factor beside the
        overflowing node is largest, it overflows first: from ``deep``, as
        there it may overflow before the near row's value). ``up``: the
        first value where it does not run (the regime's upper end); else
        the last where it does."""
        if not len(near) or not len(past) or not self.moved:
            return []
        fmt, none = self.fmt, np.iinfo(np.int64).min
        bases, js = [], []
        k = len(self.ranges)
        for j in self.moved:
            rows = [*near, *past]
            others = [i for i in range(k) if i != j][:3]
            for c in range(1 << len(others)):
                r = near[0].copy()
                for bit, i in enumerate(others):
                    r[i] = self.ranges[i][(c >> bit) & 1]
                rows.append(r)
            bases += rows
            js += [j] * len(rows)
        base, jv = np.array(bases, dtype=fmt.dtype), np.array(js)
        base, jv = np.concatenate([base, base]), np.concatenate([jv, jv])
        half = len(jv) // 2
        u_in, u_out = self._u(near[:1])[0], self._u(past[:1])[0]
        start = np.concatenate([self._cross(base[:half], jv[:half], u_in),
                                self._cross(base[half:], jv[half:], deep)])
        stop = self._cross(base, jv, u_out)
        live = (start != none) & (stop != none)
        if not live.any():
            return []
        base, jv, start, stop = base[live], jv[live], start[live], stop[live]
        r0 = self._runs(self._at(base, jv, start))
        r1 = self._runs(self._at(base, jv, stop))
        turn = r0 != r1
        if not turn.any():
            return []
        base, jv = base[turn], jv[turn]
        runs = np.where(r0[turn], start[turn], stop[turn])
        stops = np.where(r0[turn], stop[turn], start[turn])
        runs, stops = self._bisect(runs, stops,
                                   lambda q, m: self._runs(self._at(base[q], jv[q], m)))
        vals = self._u(self._at(base, jv, stops if up else runs))
        return [float(fmt.dtype.type(v)) for v in vals if np.isfinite(v)]


def _mid(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The midpoint of ordinals ``a`` and ``b`` without ``b - a`` (which
    overflows int64 across float64's zero)."""
    return a // 2 + b // 2 + ((a & 1) + (b & 1)) // 2
