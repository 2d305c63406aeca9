"""hypot at about the cost of a square root (issue 9 §4: np.hypot cost 15x
np.sqrt, a quarter of the gradient of f), without losing its guarantee:
no overflow or underflow, within 1 ulp of np.hypot; and each element's
value its own, whatever the batch it is computed in."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import lambdify, numpy_code
from symgrad.codegen.runtime import HYPOT_SMALL, HYPOT_SMALL_32, _hypot

x, y = sp.symbols("x y", real=True)
r = sp.sqrt(x**2 + y**2)


def _ulps(a, b):
    return np.abs(a - b) / np.spacing(np.maximum(np.abs(a), np.abs(b)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_blocks_in_range_take_the_square_root(dtype):
    rng = np.random.default_rng(5)
    n = 3 * HYPOT_SMALL_32  # blocks long enough for the test of the square in both types
    a = (rng.standard_normal(n) * 1e3).astype(dtype)
    b = (rng.standard_normal(n) * rng.choice([1e-3, 1, 1e3], n)).astype(dtype)
    got = lambdify([x, y], r, block=HYPOT_SMALL_32)(a, b)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.sqrt(a * a + b * b))
    assert _ulps(got, np.hypot(a, b)).max() <= 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_blocks_out_of_range_take_hypot(dtype):
    big, tiny = np.finfo(dtype).max / 4, np.finfo(dtype).tiny * 8
    a = np.array([3, big, tiny, 0, np.inf, np.nan, -big, 5], dtype)
    b = np.array([4, big, tiny, 0, np.nan, 1, 2, -tiny], dtype)
    with np.errstate(all="raise"):  # the square's overflow is not the caller's
        got = lambdify([x, y], r)(a, b)
    np.testing.assert_array_equal(got, np.hypot(a, b))
    # a long block (the square's test) takes np.hypot in the caller's error
    # state: none raised here, and a subnormal hypot ignored where it says so
    la, lb = np.tile(a, HYPOT_SMALL_32 // 8), np.tile(b, HYPOT_SMALL_32 // 8)
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(_hypot(la, lb), np.hypot(la, lb))
    with np.errstate(all="ignore"):
        sub = np.full(HYPOT_SMALL_32, np.finfo(dtype).smallest_subnormal * 4)
        np.testing.assert_array_equal(_hypot(sub, sub), np.hypot(sub, sub))
    for k in range(len(a)):  # one point at a time: the single-point path
        with np.errstate(all="raise"):
            np.testing.assert_array_equal(lambdify([x, y], r)(a[k], b[k]), np.hypot(a[k], b[k]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_value_does_not_depend_on_its_batch(dtype):
    # hypot's choice (square root or np.hypot) is each element's own: the
    # same floats for a point alone (Python float, NumPy scalar), in batches
    # of any length, and beside a row whose squares overflow
    rng = np.random.default_rng(7)
    fi = np.finfo(dtype)
    n = 4200
    a = (rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4, n)).astype(dtype)
    b = (rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4, n)).astype(dtype)
    a[[7, 30]], b[[7, 30]] = fi.max / 2, fi.tiny  # (rows out of the square root's range)
    f = lambdify([x, y], r)
    with np.errstate(all="ignore"):
        whole = f(a, b)
        for size in (255, 256, 2048, 2100):
            got = np.concatenate([f(a[s:s + size], b[s:s + size]) for s in range(0, n, size)])
            np.testing.assert_array_equal(got, whole, err_msg=f"batches of {size}")
        for k in range(0, n, 13):
            assert f(a[k], b[k]) == whole[k] and f(dtype(a[k]), dtype(b[k])) == whole[k]
            if dtype is np.float64:
                assert f(float(a[k]), float(b[k])) == whole[k]
    assert _ulps(whole, np.hypot(a, b)).max() <= 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_an_overflow_beside_sums_in_range_takes_hypot(dtype):
    # arrays whose least sum of squares is in range: the square root path
    # unless a square or the sum overflowed (its test reads NumPy's overflow
    # flag, not the largest sum); an infinite operand is np.hypot's infinity
    # (also beside NaN), whatever the caller's error state; below 8,192
    # elements the least sum is tested by a count, from there by a
    # reduction: both lengths
    big = np.finfo(dtype).max / 2
    for a, b in (([3, big, 1], [4, 1, 1]), ([3, 1, big], [4, big, 1]), ([3, np.inf], [4, 1]),
                 ([3, np.inf, -np.inf], [4, np.nan, 2]), ([3, 2], [4, -np.inf])):
        a, b = np.array(a, dtype), np.array(b, dtype)
        for state in ("raise", "ignore"):
            with np.errstate(all=state):
                np.testing.assert_array_equal(_hypot(a, b), np.hypot(a, b))
                for k in range(len(a)):
                    assert _hypot(a[k:k + 1], b[k:k + 1])[0] == np.hypot(a[k], b[k])
                la, lb = np.resize(a, 8200), np.resize(b, 8200)
                np.testing.assert_array_equal(_hypot(la, lb), np.hypot(la, lb))


def test_out_of_range_elements_take_hypot_itself():
    a = np.full(HYPOT_SMALL - 1, 3e200)
    assert np.array_equal(_hypot(a, 4e200), np.hypot(a, 4e200))
    with np.errstate(all="raise"):
        assert _hypot(np.full(HYPOT_SMALL, 3e200), 4e200)[0] == np.hypot(3e200, 4e200)
        assert _hypot(np.float64(3e200), np.full(HYPOT_SMALL, 4e200))[0] == np.hypot(3e200, 4e200)
    b = np.full(HYPOT_SMALL_32 - 1, 3e30, np.float32)
    assert np.array_equal(_hypot(b, b), np.hypot(b, b))
    b = np.full(HYPOT_SMALL_32, 3, np.float32)
    assert _hypot(b, np.float32(4)).dtype == np.float32 and _hypot(b, np.float32(4))[0] == 5
    # mixed types promote as np.hypot's do (a Python float is weak, a float64
    # scalar or array is not), in either order
    for other in (4.0, 4, np.float64(4), np.full(HYPOT_SMALL_32, 4.0), np.array(4.0)):
        for got, want in ((_hypot(b, other), np.hypot(b, other)),
                          (_hypot(other, b), np.hypot(other, b))):
            assert got.dtype == want.dtype and got[0] == 5


def test_numpy_code_takes_any_arguments():
    ns: dict = {}
    exec(numpy_code([x, y], 1 / r), ns)  # noqa: S102  our own generated source
    f = ns["f"]
    assert f(3.0, 4.0) == 0.2
    np.testing.assert_array_equal(f(np.array([3, 6]), np.array([4, 8])), [0.2, 0.1])
    assert f(np.array([]), np.array([])).shape == (0,)


def test_in_a_long_program_with_reused_names(monkeypatch):
    # register allocation reuses the names of dead values around the call
    # (from the fifth line on here, as programs of over naming.REUSE_AFTER do)
    from symgrad.codegen import naming

    monkeypatch.setattr(naming, "REUSE_AFTER", 4)
    a, b = x, y
    for k in range(8):
        a, b = sp.sin(a + k), sp.cos(b * (k + 1))
    fn = lambdify([x, y], sp.sqrt(a**2 + b**2) + 1)
    line = next(ln for ln in fn.source.splitlines() if "_hypot(" in ln and " = " in ln)
    assert "t0" in line.split("_hypot(")[1]  # (t0: names were reused)
    xs, ys = np.linspace(-1, 1, 301), np.linspace(2, 0, 301)
    ra, rb = xs, ys
    for k in range(8):
        ra, rb = np.sin(ra + k), np.cos(rb * (k + 1))
    got = fn(xs, ys)
    assert _ulps(got, np.hypot(ra, rb) + 1).max() <= 2
    assert got[0] == fn(xs[0], ys[0])
