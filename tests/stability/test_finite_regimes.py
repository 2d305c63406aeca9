"""Finite regimes on a subexpression (stability/finite_regimes.py): the
running code kept wherever it is finite, a finite form only where it is
not (issue 17 §3: the float32 gradient of log(1 + exp(x*y))*sin(x) was
returned NaN where x*y > 88.7), on the class's siblings: a product holding
an overflowing exp of a product (float32 and float64), a quotient of
hyperbolic functions NaN on both sides, and a region bounded in two
subexpressions (two logistic terms of two variables)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from symgrad.rewrites.candidates import Candidate
from symgrad.stability.bits import float_format
from symgrad.stability.finite_regimes import finite_regime
from symgrad.stability.floats import generated

x, y = sp.symbols("x y", real=True)


def _regime(running, form, box, fmt, n=1500, seed=0):
    """finite_regime on ``n`` uniform points of ``box``, each form's bits
    the full width where its code is NaN or inf (the truth finite), else 0."""
    rng = np.random.default_rng(seed)
    pts = np.stack([rng.uniform(*box[s], n) for s in (x, y)], axis=1).astype(fmt.dtype)
    code = {}

    def values(e, rows):
        if e not in code:
            code[e] = generated([x, y], [e], fmt.dtype)
        return code[e](*[rows[:, j] for j in range(2)])[0]

    def bits(e):
        return np.where(np.isfinite(values(e, pts)), 0.0, float(fmt.width))

    ranges = [box[x], box[y]]
    got = finite_regime(Candidate(running, "as it runs"), Candidate(form, "finite"),
                        bits(running), bits(form), pts, [x, y], ranges, fmt, values)
    return got, values


@pytest.mark.parametrize("dtype, span", [("float32", 50.0), ("float64", 400.0)])
def test_the_running_code_is_kept_up_to_its_own_overflow_and_no_nan_is_left(dtype, span):
    # the term of the gradient: y*sigmoid(xy)*sin(x), exp(x*y) written out
    fmt = float_format(dtype)
    running = y * sp.exp(x * y) * sp.sin(x) / (sp.exp(x * y) + 1)
    form = y * sp.sin(x) / (1 + sp.exp(-x * y))
    got, values = _regime(running, form, {x: (-span, span), y: (-2.0, 2.0)}, fmt)
    assert got is not None and "in x*y" in got.how
    (_, cond), _ = got.expr.args
    t = float(cond.rhs)
    # the source runs up to where y*exp(xy) can first overflow (|y| = 2), not past
    logmax = math.log(fmt.max)
    assert abs(t - (logmax - math.log(2))) < 0.01
    # a band about the overflow, |y| near its end where the product overflows first
    rng = np.random.default_rng(5)
    yy = rng.uniform(1.5, 2.0, 4000) * rng.choice([-1, 1], 4000)
    uu = rng.uniform(logmax - 3, logmax + 3, 4000)
    rows = np.stack([uu / yy, yy], axis=1).astype(fmt.dtype)
    rows = rows[np.abs(rows[:, 0]) <= span]
    out = values(got.expr, rows)
    assert np.isfinite(out).all()
    kept = values(x * y, rows) < t
    assert kept.any() and np.array_equal(out[kept], values(running, rows)[kept])


def test_a_quotient_nan_on_both_sides_gets_the_form_on_both():
    fmt = float_format("float32")
    running = y * sp.sinh(x * y) / sp.cosh(x * y)
    got, values = _regime(running, y * sp.tanh(x * y), {x: (-60.0, 60.0), y: (-3.0, 3.0)}, fmt)
    assert got is not None and len(got.expr.args) == 3
    grid = np.stack([g.ravel() for g in np.meshgrid(np.linspace(-60, 60, 301),
                                                    np.linspace(-3, 3, 301))],
                    axis=1).astype(np.float32)
    assert np.isfinite(values(got.expr, grid)).all()
    assert not np.isfinite(values(running, grid)).all()


def test_a_region_bounded_in_several_subexpressions_takes_nested_regimes():
    # two logistic terms as written: NaN (inf/inf) where x*y or x + y passes log(max)
    fmt = float_format("float32")
    a, b = x * y, x + y
    running = sp.exp(a) / (sp.exp(a) + 1) + sp.exp(b) / (sp.exp(b) + 1)
    form = 1 / (1 + sp.exp(-a)) + 1 / (1 + sp.exp(-b))
    got, values = _regime(running, form, {x: (-100.0, 100.0), y: (-100.0, 100.0)}, fmt)
    assert got is not None and "in x*y (above), x + y" in got.how, got
    grid = np.stack([g.ravel() for g in np.meshgrid(np.linspace(-100, 100, 201),
                                                    np.linspace(-100, 100, 201))],
                    axis=1).astype(np.float32)
    out = values(got.expr, grid)
    assert np.isfinite(out).all()
    run = values(running, grid)
    kept = np.isfinite(run) & (out == run)  # the running code kept, bitwise
    assert kept.sum() > 0.95 * np.isfinite(run).sum()


def test_the_ends_bisection_walks_several_rounds_as_one_round_at_a_time_would():
    # _Finite._bisect evaluates the midpoints of up to LEVELS rounds in one call
    # where the lines are few; each line then walks its tree: the same brackets
    # as rounds one at a time, whatever the predicate (a noisy one here), in
    # both directions and across float64's zero (ordinals far apart)
    import numpy as np

    from symgrad.stability.finite_regimes import _Finite

    def one_at_a_time(a, b, keeps):
        a, b = a.copy(), b.copy()
        while True:
            go = (b > a + 1) | (b < a - 1)
            if not go.any():
                return a, b
            m = np.where(go, a // 2 + b // 2 + ((a & 1) + (b & 1)) // 2, a)
            k = keeps(np.arange(len(a)), m)
            a, b = np.where(go & k, m, a), np.where(go & ~k, m, b)

    def noisy(q, m):  # (a fixed pseudo-random answer per line and ordinal)
        return ((m.astype(np.uint64) * np.uint64(2654435761) + q.astype(np.uint64)) >> np.uint64(9)
                ) % np.uint64(3) > 0

    rng = np.random.default_rng(7)
    for n in (5, 40, 300):
        a = rng.integers(-2**62, 2**62, n)
        far = rng.integers(-2**62, 2**62, n)
        b = np.where(rng.random(n) < 0.5, a + rng.integers(0, 2**40, n), far)
        got = _Finite._bisect(a, b, noisy)
        want = one_at_a_time(a, b, noisy)
        assert all(np.array_equal(g, w) for g, w in zip(got, want)), n
