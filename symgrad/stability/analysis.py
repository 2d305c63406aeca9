"""Analysis: where a formula goes wrong and which subexpression is to blame.

An *alarm* (a region) is raised only where the output is wrong: the
formula is defined there, its correctly rounded value is known, and the
code's result is more than the tolerance away from it.  Where the formula
itself has no real value (a pole, a log or a root outside its domain) the
code's NaN or inf is right: those points form the *undefined* regions,
information beside the alarms, each named by the node where the
undefinedness starts (``log(log(x))`` for 0 < x <= 1).

At every sample the formula is evaluated node by node in the target dtype
(:mod:`.floats`).  A bad point is explained, in this order, by

* an *event*: the first node (children first) that turns inf or NaN from
  finite operands: an overflow (``exp(u)`` with u > log(max float), a
  division by zero) or a domain error (``log``, ``sqrt``, ``acos``, ``pow``
  of an argument pushed outside their domain by rounding);
* otherwise, Herbie's localization (``localize.rkt``): each node applied in
  floats to its operands' *exact* values, compared with its own exact
  value; the node with the largest local error is the culprit.  A sum
  whose condition number ``sum |a_i| / |sum a_i|`` is large there is a
  cancellation; another culprit (a log near 1, a power with a large
  exponent) is ill-conditioned: it amplifies its operands' rounding; a node
  that rounds to 0 or a subnormal is an underflow.

Points with one explanation form a region; in one variable the region's
ends are then refined by bisection over the float lattice, so a threshold
is exact to the float (``exp(x)`` overflows from x = 709.782712893384 on),
and an alarm ends where the output is right again even if its event goes
on (``2/(exp(x) + exp(-x))`` is wrong from 709.78 to about 744, where the
truth underflows to 0 too).  An event at a point whose result is still
right (an intermediate overflow, or a NaN in a branch not taken) is a
harmless region (``exp(x) -> inf`` inside ``1/(1 + exp(x))``).

This module groups the points and makes the regions; the stages it calls
live beside it: what was measured (:mod:`.measurement`), the event or
culprit of a point (:mod:`.localize`), the sentences (:mod:`.explain`) and
the bisection of a region's ends (:mod:`.refine`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import replace

import numpy as np
from sympy import Add

from ..graph import postorder
from .bits import ordinal
from .explain import why_event, why_harmless, why_local, why_undefined
from .localize import events, localize
from .measurement import Group, Measurement
from .refine import SPLIT_GRID, refine
from .report import Region, Witness
from .sampling import from_ordinal
from .truth import RESOLVED, UNDEFINED, UNRESOLVED

__all__ = ["Measurement", "find_regions", "LOCALIZE_POINTS", "group_counts"]

LOCALIZE_POINTS = 24  # bad points localized exactly per output


def find_regions(m: Measurement) -> tuple[list[Region], list[Region], list[Region]]:
    """The regions (alarms: defined points whose output loses more than the
    tolerance), the harmless events and the undefined regions (where the
    formula itself has no real value) of every output."""
    n = len(m.points)
    vals = m.nodes.values([m.points[:, j] for j in range(len(m.symbols))])
    regions: list[Region] = []
    harmless: list[Region] = []
    undefined_regions: list[Region] = []
    origins = _undefined_origins(m)
    for o, root in enumerate(m.form):
        order, kids = postorder([root], lambda x: m.nodes.kids[x])
        first, over = events(order, kids, vals, n)
        st = m.status[o]
        # bad: resolved and wrong, or unresolved and wrong for every value the
        # truth's bounds allow (measure() put that lower bound in bits)
        bad = ((st == RESOLVED) | (st == UNRESOLVED)) & (m.bits[o] > m.tolerance)
        undefined = st == UNDEFINED
        good = (st == RESOLVED) & ~bad
        groups: dict[tuple, Group] = {}

        def add(key, i, kind, culprit, harmless_, why, event, groups=groups, o=o):
            """Put point i in the group ``key``; ``why()`` words a new group."""
            g = groups.get(key)
            if g is None:
                g = groups[key] = Group(kind, culprit, o, harmless_, why(), [], event)
            g.members.append(i)

        out_vals = m.computed[o]
        for i in np.flatnonzero((bad | good) & (first >= 0)):
            node = order[first[i]]
            if good[i]:
                add(("harmless", node, bool(over[i])), i, "overflow" if over[i] else "nan",
                    node, True,
                    lambda node=node, o_=bool(over[i]), t=float(m.truth[o][i]):
                        why_harmless(node, o_, t, m.fmt), True)
                continue
            v = float(out_vals[i])
            if over[i]:
                kind = "nan" if math.isnan(v) else "overflow"
            else:
                kind = "nan" if node.is_Mul or node.is_Add or node.is_Pow else "domain"
            add((kind, node), i, kind, node, False,
                lambda node=node, o_=bool(over[i]), v=v: why_event(node, o_, v, m.fmt),
                True)
        # where the formula has no real value: information, no alarm
        for i in np.flatnonzero(undefined):
            node = origins[i][o] if origins[i][o] is not None else root
            add(("undefined", node), i, "undefined", node, False,
                lambda node=node: why_undefined(node), False)
        # bad points with no event: localize a few exactly, the rest by proximity
        rest = np.flatnonzero(bad & (first < 0))
        if len(rest):
            pick = rest[np.unique(np.linspace(0, len(rest) - 1, min(LOCALIZE_POINTS, len(rest)))
                                  .astype(int))]
            found = localize(m, m.points[pick], set(order), m.bits[o][pick])
            ords = np.stack([ordinal(m.points[:, j], m.fmt).astype(float)
                             for j in range(len(m.symbols))], axis=1)
            for i in rest:
                j = int(np.argmin(np.abs(ords[pick] - ords[i]).sum(axis=1)))
                node, lb, cond, under = found[j]
                if node is None:
                    node = root
                kind = ("underflow" if under else
                        "cancellation" if isinstance(node, Add) else "ill-conditioned")
                add((kind, node), i, kind, node, False,
                    lambda node=node, cond=cond, under=under: why_local(node, cond, under), False)
        for g in groups.values():
            runs = _runs(m, g, good | bad | undefined)
            if g.kind == "undefined":
                runs = [r for run in runs for r in _split_on_floats(m, g, run)]
            for members in runs:
                r = _region(m, g, members, vals)
                if g.kind == "undefined":
                    undefined_regions.append(_with_code_values(r, m, members))
                else:
                    (harmless if g.harmless else regions).append(r)
    return regions, harmless, undefined_regions


def _undefined_origins(m: Measurement) -> dict[int, list]:
    """At each point where some output is undefined, each output's node
    where the undefinedness starts (in the evaluated form)."""
    rows = np.flatnonzero(np.any(m.status == UNDEFINED, axis=0))
    return {int(i): m.local_truth.undefined_origins(m.points[i]) for i in rows}


def _with_code_values(r: Region, m: Measurement, members: np.ndarray) -> Region:
    """An undefined region whose code gives finite numbers at some points
    says so (information: the formula has no value to compare them with)."""
    c = m.computed[r.output][members].astype(float)
    finite = np.isfinite(c)
    if not np.any(finite):
        return r
    k = int(np.flatnonzero(finite)[0])
    return replace(r, why=r.why + f" (the code gives finite numbers at {int(finite.sum())} of "
                              f"these {len(members)} points, such as {c[k]:.6g})")


GAP = 8  # a run ends at more than this many other points in a row


def _runs(m: Measurement, g: Group, measured: np.ndarray) -> list[np.ndarray]:
    """The group's points split into runs along the one variable (a run
    ends where more than GAP other points lie in a row, or, for where the
    formula is undefined, at any point where it is defined: log(sin(x)) is
    undefined on every other half-period, not on one long range); in
    several variables, one run."""
    members = np.array(g.members)
    if len(m.symbols) != 1:
        return [members]
    xs = m.points[:, 0].astype(float)
    idx = np.flatnonzero(measured)
    idx = idx[np.argsort(xs[idx], kind="stable")]
    inside = np.zeros(len(xs), dtype=bool)
    inside[members] = True
    runs, cur, gap = [], [], 0
    for i in idx:
        if inside[i]:
            cur.append(i)
            gap = 0
        elif cur and xs[i] != xs[cur[-1]]:
            gap += 1
            if gap > (0 if g.kind == "undefined" else GAP):
                runs.append(np.array(cur))
                cur, gap = [], 0
    if cur:
        runs.append(np.array(cur))
    return runs




def _split_on_floats(m: Measurement, g: Group, run: np.ndarray) -> list[np.ndarray]:
    """An undefined run (one variable) split where, between two of its
    neighbouring samples, the culprit is finite in floats at one of
    SPLIT_GRID points evenly spaced in ordinal: a defined window that no
    sample fell in (log(sin(x)) at large x, sampled sparsely)."""
    if len(m.symbols) != 1 or len(run) < 2:
        return [run]
    run = run[np.argsort(m.points[run, 0].astype(float), kind="stable")]
    o = ordinal(m.points[run, 0], m.fmt)
    steps = np.arange(1, SPLIT_GRID + 1) / (SPLIT_GRID + 1)
    grid = (o[:-1, None] + (o[1:] - o[:-1])[:, None].astype(float) * steps).astype(np.int64)
    xs = from_ordinal(grid.ravel(), m.fmt)
    vals = m.nodes.values([xs])
    if g.culprit not in vals:
        return [run]
    finite = np.isfinite(np.asarray(vals[g.culprit], dtype=float)).reshape(grid.shape)
    cut = np.flatnonzero(finite.any(axis=1)) + 1
    return [p for p in np.split(run, cut) if len(p)]


def _region(m: Measurement, g: Group, members: np.ndarray, vals: dict) -> Region:
    o = g.output
    b = m.bits[o][members]
    bnan = np.where(np.isnan(b), -1.0, b)
    w = int(members[int(np.argmax(bnan))])
    ranges = {}
    for j, s in enumerate(m.symbols):
        col = m.points[members, j].astype(float)
        ranges[s] = (float(col.min()), float(col.max()))
    if len(m.symbols) == 1:
        ranges = {m.symbols[0]: refine(m, g, ranges[m.symbols[0]])}
    witness = Witness(
        {s: float(m.points[w, j]) for j, s in enumerate(m.symbols)},
        float(m.computed[o][w]), float(m.truth[o][w]), float(m.bits[o][w]),
    )
    mb = float(np.nanmax(b)) if np.any(~np.isnan(b)) else math.nan
    return Region(g.kind, ranges, mb, g.culprit, o, witness, g.why, len(members), g.harmless)


def group_counts(regions: list[Region]) -> dict[str, int]:
    c: dict[str, int] = defaultdict(int)
    for r in regions:
        c[r.kind] += 1
    return dict(c)
