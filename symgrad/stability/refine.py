"""A region's ends pushed by bisection over the float lattice to where its
predicate changes (a threshold exact to the float: ``exp(x)`` overflows from
x = 709.782712893384 on), in one variable; see :mod:`.analysis`."""

from __future__ import annotations

import numpy as np
from sympy import Basic

from .bits import ordinal
from .measurement import Group, Measurement
from .sampling import from_ordinal
from .truth import UNDEFINED

__all__ = ["refine", "REFINE_STEPS", "REFINE_STEPS_MEASURED", "SPLIT_GRID"]

REFINE_STEPS = 70  # bisection steps over ordinals (2**64 floats): exact to the float
REFINE_STEPS_MEASURED = 16  # where each step needs the ground truth: a blurry edge anyway
SPLIT_GRID = 16  # floats tried between neighbouring points of an undefined run


def _in_group(m: Measurement, g: Group, x: float) -> bool:
    row = np.array([x], dtype=m.fmt.dtype)
    if g.event:
        if not _nonfinite(m, g.culprit, x):
            return False
        if g.harmless:
            return True
        # an alarm ends where the output is right again, though the event goes on
        # (2/(exp(x) + exp(-x)): exp(x) overflows from 709.78 on, the result is
        # wrong only up to 744.44, where the truth rounds to 0 too)
    _, _, status, bits = m.measure(row.reshape(1, 1))[:4]
    if g.kind == "undefined":
        return bool(status[g.output][0] == UNDEFINED)
    return bool(status[g.output][0] != UNDEFINED and bits[g.output][0] > m.tolerance)


def refine(m: Measurement, g: Group, rng: tuple[float, float]) -> tuple[float, float]:
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


def _defined_between(m: Measurement, g: Group, end: float, nb: float) -> float | None:
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
