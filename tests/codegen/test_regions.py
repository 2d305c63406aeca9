"""Masked regions (codegen/regions.py): a Piecewise whose branches need heavy
work computes each branch only at its rows, with the floats of np.where over
every row (bitwise, signed zeros and infinities included; NaN where NaN, its
sign bit aside: NumPy's SIMD loops do not fix a NaN's sign), whatever the
batch."""

import numpy as np
import pytest
from sympy import Add, Integer, Mul, Piecewise, cos, exp, log, sin, sqrt, symbols

import symgrad.codegen.build as build
from symgrad import compensated, lambdify, widen
from symgrad.codegen.regions import split

x, y = symbols("x y", real=True)


def _heavy(u):
    """A branch value of many operations in pairs of floats (a region worth
    masking: calls of helpers, no product or power of its own)."""
    return compensated((exp(u) - 1 - u) / (u * u + sin(u)))


FORMS = {
    # pairs in both branches, conditions after the first quiet
    "two": Piecewise((_heavy(x + y), x < y), (_heavy((x - y) * y), True)),
    # nested, a shared input (x*y), no True condition (NaN where none holds)
    "nested": Piecewise(
        (Piecewise((_heavy(x * y), y > 0), (_heavy(x * y + 1), x > 1)), x < 2),
        (_heavy(sqrt(x) * y), x > 3)),
    # widened pairs, a cheap branch beside a heavy one, the value used again
    "widened": widen(Piecewise((_heavy(log(x) + y), x > 1), (x * y, True))) + x,
    # a branch with products and powers of its own is computed at every row
    # (emission writes them as the rest of the program makes them: x*t/r, or
    # x*(t/r) where another product shares t/r), the other at its rows
    "products": Piecewise((_heavy(x) * y / (x + 1), x < 0), (_heavy(y), True)),
    # a branch input that is a tuple of pairs: sin(y)'s and cos(y)'s from one
    # sincos, read in the branch and outside it (its shape was taken as the
    # rows': "could not broadcast (2, n) into (n,)", session 16)
    "sincos": compensated(Piecewise((sin(y) ** 2 - x, x < 0), (x, True)) + cos(y)),
}


def _points(n, dtype, rng):
    cols = []
    for _ in range(2):
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3, n)
        special = rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 700.0, 1.0], n)
        cols.append(np.where(rng.random(n) < 0.15, special, v).astype(dtype))
    return cols


def _unmasked(monkeypatch, expr, dtype):
    with monkeypatch.context() as m:
        m.setattr(build, "split", lambda roots, *a, **k: ({}, []))
        return lambdify([x, y], expr, dtype=dtype, threads=1)


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    assert np.array_equal(a[ok].view(f"u{a.itemsize}"), b[ok].view(f"u{b.itemsize}"))


@pytest.mark.parametrize("name", sorted(FORMS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_masked_regions_give_np_where_floats(monkeypatch, name, dtype):
    expr = FORMS[name]
    masked = lambdify([x, y], expr, dtype=dtype, threads=1)
    assert "_masked(" in masked.source  # (the form has a region worth masking)
    plain = _unmasked(monkeypatch, expr, dtype)
    assert "_masked(" not in plain.source
    rng = np.random.default_rng(7)
    # one block; two blocks of the entry point (16,384 float64, 32,768 float32
    # elements a block) for one form (pairs in long doubles cost 30 us a row)
    for n in (3, 255) + ((32_868,) if name == "two" else ()):
        xs = _points(n, dtype, rng)
        with np.errstate(all="ignore"):
            _same(masked(*xs), plain(*xs))
            # a point's value does not depend on its batch
            if n == 255:
                one = [masked(*(np.asarray(c[i:i + 1]) for c in xs)) for i in range(0, n, 17)]
                _same(np.concatenate(one), masked(*xs)[::17])
    with np.errstate(all="ignore"):
        for p in ((0.5, 2.0), (-1.0, 0.25), (5.0, np.nan), (4.0, 1e300)):  # one point
            _same(masked(*(dtype(v) for v in p)), plain(*(dtype(v) for v in p)))
            _same(masked(*map(float, p)), plain(*map(float, p)))
        a = np.array([[0.5, -3.0], [4.0, 1.5]], dtype)  # broadcasting, 2-D
        _same(masked(a, dtype(0.75)), plain(a, dtype(0.75)))


def test_cheap_branches_and_products_stay_in_the_program():
    cheap = Piecewise((exp(x) * y, x < 0), (sin(x), True))
    assert split([cheap]) == ({}, [])
    assert "_masked(" not in lambdify([x, y], cheap).source
    # the branch with products is an input of the selection, the other a region
    source = lambdify([x, y], FORMS["products"]).source
    assert "((None, (" in source and "(_mr0, (" in source


def test_a_deep_branch_is_typed_over_the_dag():
    # SymPy's is_number recurses per level: a 600-deep branch (a candidate
    # of stabilize on a growing annuity, (1 - ((1 + y)/(1 + x))**30)/(x - y),
    # was 473 deep) raised RecursionError in the regions' typing
    e = x
    for _ in range(600):
        e = Add(Integer(1), Mul(Integer(2), e, evaluate=False), evaluate=False)
    f = lambdify([x], Piecewise((e, x < 0), (x, True)))
    # e = 1 + 2e from x = -1/2: 0, 1, 3, ..., 2**599 - 1 (rounded to 2**599)
    assert list(f(np.array([-0.5, -1.0, 2.0]))) == [2.0**599, -1.0, 2.0]
