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
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from sympy import Add, Basic, S, Symbol, exp

from ..brief import brief
from ..graph import postorder
from .bits import Format, bits_error, ordinal, round_mpf
from .floats import NodeEvaluator
from .report import Region, Witness
from .sampling import from_ordinal
from .truth import RESOLVED, UNDEFINED, UNRESOLVED, GroundTruth

__all__ = ["Measurement", "find_regions", "LOCALIZE_POINTS"]

LOCALIZE_POINTS = 24  # bad points localized exactly per output
REFINE_STEPS = 70  # bisection steps over ordinals (2**64 floats): exact to the float
REFINE_STEPS_MEASURED = 16  # where each step needs the ground truth: a blurry edge anyway


@dataclass
class Measurement:
    """Everything measured at the samples: inputs, floats, truth, bits."""

    symbols: list[Symbol]
    form: list[Basic]  # the formula evaluated (markers lowered, maybe rewritten)
    points: np.ndarray  # (n, k)
    fmt: Format
    computed: np.ndarray  # (outputs, n)
    truth: np.ndarray  # (outputs, n)
    status: np.ndarray  # (outputs, n)
    bits: np.ndarray  # (outputs, n), NaN where not measured
    tolerance: float
    nodes: NodeEvaluator
    local_truth: GroundTruth  # exact values of the evaluated form's nodes
    measure: Callable  # point rows -> (computed, truth, status, bits) for refinement


def _is_numeric(node: Basic) -> bool:
    return not (node.is_Boolean or node.is_Relational or type(node).__name__ == "ExprCondPair")


def _events(order: list, kids: dict, vals: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The first event node (index into ``order``, -1 for none) at each
    point, and whether it is an overflow (else a domain error)."""
    first = np.full(n, -1)
    over = np.zeros(n, dtype=bool)
    for i, node in enumerate(order):
        ks = kids[node]
        if not ks or not _is_numeric(node) or type(node).__name__ == "Piecewise":
            continue
        v = np.asarray(vals[node])
        ok_in = np.ones(n, dtype=bool)
        for k in ks:
            if _is_numeric(k):
                ok_in &= np.isfinite(np.asarray(vals[k], dtype=float))
        bad = ok_in & ~np.isfinite(v) & (first < 0)
        first[bad] = i
        over[bad] = np.isinf(v[bad])
    return first, over


def _exact_nodes(m: Measurement, row: np.ndarray) -> list:
    """Every node of the evaluated form at ``row``, as the float nearest
    its exact value (NaN where undefined or not decided)."""
    _, _, vals, _ = m.local_truth.resolve(row)
    out = []
    for v in vals:
        if isinstance(v, bool):
            out.append(v)
        elif isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], tuple) and len(v[0]) == 4:
            out.append(round_mpf(v[0], m.fmt))
        else:  # UNDEF, UNKNOWN, or a Piecewise branch
            out.append(math.nan)
    return out


def _localize(m: Measurement, rows: np.ndarray, sub: set,
              seen: np.ndarray) -> list[tuple[Basic, float, float, bool]]:
    """Per row: (culprit node, its local bits, its condition number, whether
    an operand of it underflowed: its exact value is 0 or subnormal).

    The culprit is the sum with the largest condition number where that
    number accounts for the error ``seen`` there (a subtraction amplifies
    the rounding errors of its operands: Herbie's localization), else the
    node with the largest local error."""
    prog = m.local_truth.program
    exact = np.array([_exact_nodes(m, r) for r in rows], dtype=object).T  # (nodes, rows)
    index = {n: i for i, n in enumerate(prog.order)}
    kids = m.nodes.kids
    best: list = [(None, -1.0, 1.0, False)] * len(rows)
    worst_add: list = [(None, 1.0, 0.0, False)] * len(rows)
    normal = math.ldexp(1.0, m.fmt.emin)
    for node in m.nodes.order:
        ks = kids.get(node, ())
        if node not in sub or not ks or not _is_numeric(node) \
                or type(node).__name__ == "Piecewise":
            continue
        ex = np.array(exact[index[node]], dtype=float)
        args = [np.array(exact[index[k]], dtype=float).astype(m.fmt.dtype) if _is_numeric(k)
                else np.array(exact[index[k]], dtype=bool) for k in ks]
        with np.errstate(all="ignore"):
            local = np.asarray(m.nodes.op(node)(*args), dtype=m.fmt.dtype)
            lb = bits_error(local, ex.astype(m.fmt.dtype), m.fmt)
            lb = np.where(np.isnan(lb), 0.0, lb)
            if isinstance(node, Add):
                cond = sum(np.abs(a.astype(float)) for a in args) / np.abs(ex)
            else:
                cond = np.ones(len(rows))
            # an underflow: inside the operation (a product or quotient rounding
            # to 0 or a subnormal, the exact value normal), or in an operand
            under = np.zeros(len(rows), dtype=bool)
            if not isinstance(node, Add):
                under |= (np.abs(local.astype(float)) < normal) & (np.abs(ex) >= normal)
            for k, a in zip(ks, args):
                if _is_numeric(k) and not k.is_number:
                    under |= np.abs(a.astype(float)) < normal
        for j in range(len(rows)):
            if lb[j] > best[j][1]:
                best[j] = (node, float(lb[j]), float(cond[j]), bool(under[j]))
            if isinstance(node, Add) and not cond[j] <= worst_add[j][1]:
                worst_add[j] = (node, float(cond[j]), float(lb[j]), bool(under[j]))
    out = []
    for j in range(len(rows)):
        node, cond, lb, under = worst_add[j]
        if node is not None and (math.isinf(cond) or math.log2(cond) + 2 >= seen[j] / 2):
            out.append((node, lb, cond, under))
        else:
            out.append(best[j])
    return out


def _why_event(node: Basic, over: bool, output_value: float, fmt: Format) -> str:
    if over:
        if isinstance(node, exp):
            text = (f"{brief(node)} overflows to inf where {brief(node.args[0])} > "
                    f"{math.log(fmt.max):.6g} = log(max {fmt.name})")
        else:
            text = f"{brief(node)} overflows to +-inf"
    elif node.is_Mul or node.is_Pow:
        text = f"{brief(node)} is NaN from finite operands (0/0, or a root of a negative number)"
    elif node.is_Add:
        text = f"{brief(node)} is NaN from finite operands"
    else:
        text = (f"{brief(node)} is NaN: an argument of {type(node).__name__} leaves its domain "
                "through rounding (the exact argument is inside it)")
    if math.isnan(output_value):
        return text + ", and the result is NaN"
    if math.isinf(output_value):
        return text + ", and the result is infinite"
    return text + ", and the result is wrong"


def _why_local(node: Basic, cond: float, under: bool) -> str:
    if under:
        return (f"{brief(node)} underflows: it or an operand rounds to 0 or a subnormal where the "
                "exact value is not that small, and the result is wrong")
    if isinstance(node, Add):
        return (f"{brief(node)} cancels: its terms are {cond:.3g} times larger than their sum, so "
                "their rounding errors are amplified")
    return (f"{brief(node)} is ill-conditioned here: it amplifies the rounding errors of its "
            "arguments")


@dataclass
class _Group:
    kind: str
    culprit: Basic
    output: int
    harmless: bool
    why: str
    members: list[int]
    event: bool


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
        first, over = _events(order, kids, vals, n)
        st = m.status[o]
        # bad: resolved and wrong, or unresolved and wrong for every value the
        # truth's bounds allow (measure() put that lower bound in bits)
        bad = ((st == RESOLVED) | (st == UNRESOLVED)) & (m.bits[o] > m.tolerance)
        undefined = st == UNDEFINED
        good = (st == RESOLVED) & ~bad
        groups: dict[tuple, _Group] = {}

        def add(key, i, kind, culprit, harmless_, why, event, groups=groups, o=o):
            """Put point i in the group ``key``; ``why()`` words a new group."""
            g = groups.get(key)
            if g is None:
                g = groups[key] = _Group(kind, culprit, o, harmless_, why(), [], event)
            g.members.append(i)

        out_vals = m.computed[o]
        for i in np.flatnonzero((bad | good) & (first >= 0)):
            node = order[first[i]]
            if good[i]:
                add(("harmless", node, bool(over[i])), i, "overflow" if over[i] else "nan",
                    node, True,
                    lambda node=node, o_=bool(over[i]), t=float(m.truth[o][i]):
                        _why_harmless(node, o_, t, m.fmt), True)
                continue
            v = float(out_vals[i])
            if over[i]:
                kind = "nan" if math.isnan(v) else "overflow"
            else:
                kind = "nan" if node.is_Mul or node.is_Add or node.is_Pow else "domain"
            add((kind, node), i, kind, node, False,
                lambda node=node, o_=bool(over[i]), v=v: _why_event(node, o_, v, m.fmt),
                True)
        # where the formula has no real value: information, no alarm
        for i in np.flatnonzero(undefined):
            node = origins[i][o] if origins[i][o] is not None else root
            add(("undefined", node), i, "undefined", node, False,
                lambda node=node: _why_undefined(node), False)
        # bad points with no event: localize a few exactly, the rest by proximity
        rest = np.flatnonzero(bad & (first < 0))
        if len(rest):
            pick = rest[np.unique(np.linspace(0, len(rest) - 1, min(LOCALIZE_POINTS, len(rest)))
                                  .astype(int))]
            found = _localize(m, m.points[pick], set(order), m.bits[o][pick])
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
                    lambda node=node, cond=cond, under=under: _why_local(node, cond, under), False)
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


def _why_undefined(node: Basic) -> str:
    """Why ``node`` has no real value (its operands have one)."""
    name = type(node).__name__
    if node.is_Pow and node.exp.is_negative and node.exp.is_integer:
        text = f"{brief(node)} divides by zero: {brief(node.base)} = 0"
    elif node.is_Pow and node.exp == S.Half:
        text = f"{brief(node)} is a square root of {brief(node.base)} < 0"
    elif node.is_Pow and node.exp.is_positive:
        text = f"{brief(node)} is a root (a real power) of {brief(node.base)} < 0"
    elif node.is_Pow:
        text = f"{brief(node)} is a negative real power of {brief(node.base)} <= 0"
    elif name in ("log", "log2", "loggamma"):
        text = f"{brief(node)} is a log of {brief(node.args[0])} <= 0"
    elif name == "log1p":
        text = f"{brief(node)} is a log of 1 + {brief(node.args[0])} <= 0"
    elif name in ("gamma", "polygamma"):
        text = f"{brief(node)} is at a pole: its argument is a non-positive integer"
    elif name == "Piecewise":
        text = f"no branch of {brief(node)} holds"
    elif node.args:
        text = f"{brief(node)}: {brief(node.args[-1])} is outside the domain of {name}"
    else:
        text = f"{brief(node)} has no real value"
    return text + "; the formula has no real value here, and a NaN or inf from the code is right"


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


def _why_harmless(node: Basic, over: bool, truth: float, fmt: Format) -> str:
    inf = "inf" if isinstance(node, exp) else "+-inf"
    if over and math.isinf(truth):
        return (f"{brief(node)} overflows to {inf}, and so does the result: its exact value is "
                f"beyond the largest {fmt.name}, so {inf} is its correctly rounded value")
    if over:
        return f"{brief(node)} overflows to {inf}, but the result is still right"
    return f"{brief(node)} is NaN, but the result is still right"


GAP = 8  # a run ends at more than this many other points in a row


def _runs(m: Measurement, g: _Group, measured: np.ndarray) -> list[np.ndarray]:
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


SPLIT_GRID = 16  # floats tried between neighbouring points of an undefined run


def _split_on_floats(m: Measurement, g: _Group, run: np.ndarray) -> list[np.ndarray]:
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


def _region(m: Measurement, g: _Group, members: np.ndarray, vals: dict) -> Region:
    o = g.output
    b = m.bits[o][members]
    bnan = np.where(np.isnan(b), -1.0, b)
    w = int(members[int(np.argmax(bnan))])
    ranges = {}
    for j, s in enumerate(m.symbols):
        col = m.points[members, j].astype(float)
        ranges[s] = (float(col.min()), float(col.max()))
    if len(m.symbols) == 1:
        ranges = {m.symbols[0]: _refine(m, g, ranges[m.symbols[0]])}
    witness = Witness(
        {s: float(m.points[w, j]) for j, s in enumerate(m.symbols)},
        float(m.computed[o][w]), float(m.truth[o][w]), float(m.bits[o][w]),
    )
    mb = float(np.nanmax(b)) if np.any(~np.isnan(b)) else math.nan
    return Region(g.kind, ranges, mb, g.culprit, o, witness, g.why, len(members), g.harmless)


def _in_group(m: Measurement, g: _Group, x: float) -> bool:
    row = np.array([x], dtype=m.fmt.dtype)
    if g.event:
        if not _nonfinite(m, g.culprit, x):
            return False
        if g.harmless:
            return True
        # an alarm ends where the output is right again, though the event goes on
        # (2/(exp(x) + exp(-x)): exp(x) overflows from 709.78 on, the result is
        # wrong only up to 744.44, where the truth rounds to 0 too)
    _, _, status, bits = m.measure(row.reshape(1, 1))
    if g.kind == "undefined":
        return bool(status[g.output][0] == UNDEFINED)
    return bool(status[g.output][0] != UNDEFINED and bits[g.output][0] > m.tolerance)


def _refine(m: Measurement, g: _Group, rng: tuple[float, float]) -> tuple[float, float]:
    """The run's ends pushed by bisection to where the group's predicate
    changes, between the run's extreme samples and their outside
    neighbours."""
    xs = np.sort(m.points[:, 0].astype(float))
    lo, hi = rng
    out = []
    for end, step in ((lo, -1), (hi, +1)):
        k = np.searchsorted(xs, end)
        nb = xs[k - 1] if step < 0 and k > 0 else (xs[np.searchsorted(xs, end, "right")]
                                                  if step > 0 and np.searchsorted(xs, end, "right")
                                                  < len(xs) else None)
        if nb is not None and nb != end and g.kind == "undefined" and _in_group(m, g, nb):
            nb = _defined_between(m, g, end, nb)  # a run split by _split_on_floats
        if nb is None or nb == end or _in_group(m, g, nb):
            out.append(end)
            continue
        a, b = (int(v) for v in ordinal(np.array([end, nb]), m.fmt))  # a inside, b outside
        if g.kind == "undefined":
            # the floats first (cheap), kept where the truth confirms the edge
            # they find: undefined on one side, defined on the other
            fa = fb = None
            if g.culprit in m.nodes.values([np.array([end], dtype=m.fmt.dtype)]):
                fa, fb = _float_edge(m, g.culprit, a, b)
            if fa is not None and abs(fb - fa) <= 1 and _in_group(m, g, _at(m, fa)) \
                    and not _in_group(m, g, _at(m, fb)):
                a = fa
            else:
                a, _ = _bisect(m, a, b, lambda v: _in_group(m, g, v), REFINE_STEPS)
        else:
            a, _ = _bisect(m, a, b, lambda v: _in_group(m, g, v),
                           REFINE_STEPS if g.event else REFINE_STEPS_MEASURED)
        out.append(_at(m, a))
    return out[0], out[1]


def _defined_between(m: Measurement, g: _Group, end: float, nb: float) -> float | None:
    """The float nearest ``end`` among SPLIT_GRID between it and ``nb`` where
    the culprit is finite in floats (None if there is none)."""
    a, b = (int(v) for v in ordinal(np.array([end, nb]), m.fmt))
    k = SPLIT_GRID + 1
    grid = np.array([a + (b - a) * i // k for i in range(1, k)], dtype=np.int64)
    xs = from_ordinal(grid, m.fmt)
    vals = m.nodes.values([xs])
    if g.culprit not in vals:
        return None
    ok = np.flatnonzero(np.isfinite(np.asarray(vals[g.culprit], dtype=float)))
    return float(xs[ok[0]]) if len(ok) else None


def _float_edge(m: Measurement, node: Basic, a: int, b: int) -> tuple[int, int]:
    """Ordinals ``a`` (``node`` non-finite in floats) and ``b`` (finite)
    narrowed to neighbours, 64-fold per evaluation of the floats."""
    while abs(b - a) > 1:
        cand = np.unique(np.array([a + (b - a) * i // 64 for i in range(65)], dtype=np.int64))
        if cand[0] != a:
            cand = cand[::-1]  # from a to b, whichever way they lie
        v = m.nodes.values([from_ordinal(cand, m.fmt)])[node]
        out = np.flatnonzero(np.isfinite(np.asarray(v, dtype=float)))
        if not len(out) or out[0] == 0:
            break  # not the predicate this assumed: the caller checks with the truth
        a, b = int(cand[out[0] - 1]), int(cand[out[0]])
    return a, b


def _at(m: Measurement, o: int) -> float:
    return float(from_ordinal(np.array([o]), m.fmt)[0])


def _nonfinite(m: Measurement, node: Basic, x: float) -> bool:
    v = m.nodes.values([np.array([x], dtype=m.fmt.dtype)])[node]
    return not bool(np.isfinite(np.asarray(v, dtype=float))[0])


def _bisect(m: Measurement, a: int, b: int, inside, steps: int) -> tuple[int, int]:
    """Ordinals ``a`` (inside) and ``b`` (outside) brought together by
    ``steps`` halvings on the predicate ``inside(x)``."""
    for _ in range(steps):
        if abs(b - a) <= 1:
            break
        mid = (a + b) // 2
        if inside(_at(m, mid)):
            a = mid
        else:
            b = mid
    return a, b


def group_counts(regions: list[Region]) -> dict[str, int]:
    c: dict[str, int] = defaultdict(int)
    for r in regions:
        c[r.kind] += 1
    return dict(c)
