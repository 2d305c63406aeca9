"""Regimes: split points by dynamic programming, thresholds by bisection."""

from __future__ import annotations

import numpy as np
import pytest
from sympy import Piecewise, symbols

from symgrad.rewrites.regimes import Segment, bisect_threshold, piecewise, split

x = symbols("x")


def test_split_takes_each_form_where_it_is_best():
    e = np.array([[0, 0, 0, 0, 50, 50, 50, 50, 0, 0],
                  [40, 40, 40, 40, 0, 0, 0, 0, 40, 40]], dtype=float)
    assert split(e, cost=5.0) == [Segment(0, 4, 0), Segment(4, 8, 1), Segment(8, 10, 0)]


def test_split_pays_for_each_split():
    e = np.array([[0, 0, 0, 3, 3, 3], [3, 3, 3, 0, 0, 0]], dtype=float)
    assert len(split(e, cost=8.0)) == 2  # saves 9 bits for a cost of 8
    assert split(e, cost=10.0) == [Segment(0, 6, 0)]  # ties go to the first form


def test_split_is_optimal_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(20):
        e = rng.integers(0, 10, size=(3, 7)).astype(float)
        segs = split(e, cost=4.0)
        got = sum(e[g.form, g.start:g.end].sum() for g in segs) + 4.0 * (len(segs) - 1)
        # every segmentation: a cut or not between each pair of points
        best = np.inf
        for mask in range(1 << 6):
            cuts = [0] + [i + 1 for i in range(6) if mask >> i & 1] + [7]
            cost = sum(e[:, a:b].sum(axis=1).min() for a, b in zip(cuts, cuts[1:]))
            best = min(best, cost + 4.0 * (len(cuts) - 2))
        assert got == pytest.approx(best)


def test_bisection_finds_the_crossing_on_the_float_line():
    # positive floats: the ordinal is the bit pattern
    def to_ordinal(v):
        return np.array([v], dtype=np.float64).view(np.int64)[0]

    def to_float(o):
        return np.array([o], dtype=np.int64).view(np.float64)[0]

    t = bisect_threshold(1.0, 1e10, lambda m: m < 12345.678, to_float, to_ordinal, steps=80)
    assert t == np.nextafter(12345.678, np.inf) or abs(t - 12345.678) < 1e-9


def test_piecewise_orders_the_regimes():
    p = piecewise([x, 2 * x, 3 * x], [0.0, 1.0], x)
    assert isinstance(p, Piecewise)
    assert [p.subs(x, v) for v in (-1, 0.5, 2)] == [-1, 1.0, 6]
    with pytest.raises(ValueError):
        piecewise([x], [0.0], x)
