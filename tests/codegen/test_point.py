"""The one-point kernel (issue 20 §6: a call of one point of Python floats
cost 1.6x SymPy's): Python floats and math where they give NumPy's very
floats, NumPy's functions on floats where their argument passes a test, and
the NumPy kernel wherever Python raises or a result is not finite, so the
values and warnings are those of an array of one point."""

from __future__ import annotations

import random
import re
import warnings

import numpy as np
import pytest
import sympy as sp

from symgrad import compensated, grad, lambdify, widen
from symgrad.codegen import build, rows
from symgrad.codegen.printer import NoNumpyFormError

from ..test_differential_fuzz import BLOCKS, X, _apply

x, y = sp.symbols("x y", real=True)

FORMULAS = [
    x * y - x / y + 3, sp.sin(x) * sp.cos(y), sp.sqrt(x) + 1 / sp.sqrt(y), abs(x) - x**2,
    1 / x**2 + x**-1, x**5 - y**-3, x**sp.Rational(3, 2), x**y, sp.exp(x) - sp.exp(y) + 1,
    sp.log(x) + sp.log(1 + y) * sp.log(y, 2), sp.sinh(x) * sp.cosh(y), sp.tanh(x * y),
    sp.asin(x) + sp.acos(y) + sp.atan(x), sp.atanh(x) + sp.acosh(y) + sp.asinh(x),
    sp.tan(x) + sp.floor(y), sp.Max(x, y) - sp.Min(x, 1), sp.atan2(x, y), sp.sign(x) * y,
]
ARRAY_EXACT = [e for e in FORMULAS if not any(
    isinstance(p, sp.Pow) and not (p.exp.is_Integer and abs(p.exp) <= 2 or abs(p.exp) == sp.S.Half)
    for p in sp.preorder_traversal(e))]
POINTS = [0.3, -0.7, 0.0, -0.0, 1.0, -1.0, 2.5, 1e-310, 700.0, 720.0, -750.0, 1e200,
          np.inf, -np.inf, np.nan]


@pytest.fixture
def every_batch(monkeypatch):
    """The short-batch kernel (rows.py) up to rows.MOST points for every
    program that has one: its cost model leaves it out of small formulas,
    whose floats it must give all the same."""
    monkeypatch.setattr(build, "rows_bound", lambda prog, args, plan: rows.MOST)


def _batches(fn, a, b):
    """``fn`` on float64 arrays of ``a`` and ``b`` in batches of 7 (the
    short-batch kernel where it runs; one point's arrays: the caller) gives
    the array kernel's floats and NumPy's warnings (Python's arithmetic may
    overflow silently on the way to a finite result, as on one point)."""
    block = fn.__wrapped__.__globals__["f_block"]
    for s in range(0, len(a), 7):
        u, v = np.array(a[s:s + 7]), np.array(b[s:s + 7])
        got, warned = _run(fn, u, v)
        want, want_warned = _run(block, u, v)
        (want,) = want  # (one formula: its array)
        _equal(got, want, "at", u, v)
        assert warned == want_warned or np.isfinite(got).all() \
            and set(warned) <= set(want_warned), (u, v, warned, want_warned)


def _equal(got, want, *where):
    """``np.testing.assert_array_equal``, its message made of ``where`` only
    on a failure (an f-string of a SymPy formula at every comparison cost
    the random trees' test 0.3 of its 1.9 s)."""
    try:
        np.testing.assert_array_equal(got, want)
    except AssertionError as err:
        raise AssertionError(" ".join(map(str, where)) + f"\n{err}") from None


def _scalar_kernel(fn):
    """The NumPy kernel a one-point call falls back to (on float64 scalars)."""
    names = fn.__wrapped__.__globals__
    return names.get("f_scalar", names["f_block"])


def _run(fn, *args):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, sorted(str(m.message) for m in w)


@pytest.mark.parametrize("expr", FORMULAS, ids=str)
def test_one_point_gives_the_floats_and_warnings_of_an_array(expr, every_batch):
    # (and a short batch: the array kernel's floats and NumPy's warnings)
    fn = lambdify([x, y], expr)
    assert "def f_point" in fn.source and "def f_rows" in fn.source
    kernel = _scalar_kernel(fn)
    rng = np.random.default_rng(0)
    pairs = [(a, b) for a in POINTS for b in POINTS[::4]] + list(rng.standard_normal((8, 2)))
    for a, b in pairs:
        a, b = float(a), float(b)
        got, warned = _run(fn, a, b)
        # the NumPy kernel on float64 scalars (the path before; the values of
        # an array but for powers, whose scalar and array loops differ)
        (want,), want_warned = _run(kernel, np.float64(a), np.float64(b))
        assert type(got) is np.float64
        _equal(got, want, expr, "at", a, b)
        if expr in ARRAY_EXACT:
            (whole,), _ = _run(fn, np.array([a]), np.array([b]))
            np.testing.assert_array_equal(got, whole)
        # (Python's float arithmetic may overflow silently on the way to a
        # finite result, where NumPy warns: documented)
        assert warned == want_warned or np.isfinite(got) and set(warned) <= set(want_warned), \
            (expr, a, b)
        got64, _ = _run(fn, np.float64(a), np.float64(b))
        np.testing.assert_array_equal(got64, got)
    _batches(fn, [float(a) for a, _ in pairs], [float(b) for _, b in pairs])


def test_formulas_beyond_it_keep_the_numpy_kernel():
    for expr in (sp.erf(x) * y, sp.Piecewise((sp.log(x), x > 0), (y, True)),
                 sp.cbrt(x) * y, sp.I * x * y, compensated(x * y - 1), widen(x * y - 1)):
        assert "def f_point" not in lambdify([x, y], expr).source, expr
    assert "def f_point" not in lambdify([x, y], x * y, dtype=np.float32).source


def test_one_point_returns_each_layout_as_before():
    for exprs in ([x * y, sp.sin(x)], (x * y,), x / y, sp.Matrix([[x, 1], [y, x / y]])):
        fn = lambdify([x, y], exprs)
        got, general = fn(0.5, -2.0), fn(np.array(0.5), np.array(-2.0))
        assert type(got) is type(general)
        for u, v in zip(np.ravel(got), np.ravel(general)):
            assert type(u) is type(v) is np.float64 and u == v


def test_compound_operands_keep_their_parentheses():
    # 1/(sqrt(x) + sqrt(x + 1)) printed as 1/sqrt(x) + sqrt(x + 1) (found by
    # forms4): every printing of a power, over bases of every kind, in a sum
    # and a product; the point kernel itself (no output raises or is NaN at
    # y < x < 2y) against the NumPy kernel on float64 scalars
    bases = [x + y, x - y, x * y, sp.sqrt(x) + sp.sqrt(y), sp.sin(x) + 1, x / y,
             sp.exp(x) - y, -x + 2 * y]
    powers = [-1, -2, 2, 3, -3, sp.S.Half, -sp.S.Half, sp.Rational(3, 2), y]
    exprs = [e for b in bases for p in powers for e in (sp.Pow(b, p), y * sp.Pow(b, p) - x)]
    exprs += [1 / (sp.sqrt(x) + sp.sqrt(x + 1)), x / (y + 1), -(x + y) / (x - y),
              sp.exp(x + y) / (1 + sp.exp(x * y)), abs(x - y) * sp.cos(x + y)]
    fn = lambdify([x, y], exprs)
    point, kernel = fn.__wrapped__.__globals__["f_point"], _scalar_kernel(fn)
    rng = np.random.default_rng(3)
    for b in rng.uniform(0.1, 3.0, 30):
        a, b = float(b * rng.uniform(1.1, 1.9)), float(b)
        np.testing.assert_array_equal(point(a, b), kernel(np.float64(a), np.float64(b)),
                                      err_msg=f"{a}, {b}")


@pytest.mark.parametrize("f", [sp.sec, sp.csc, sp.cot, sp.sech, sp.csch, sp.coth, sp.acot,
                               sp.asec, sp.acsc, sp.acoth, sp.asech, sp.acsch, sp.frac])
def test_functions_printed_over_a_template(f):
    # asec(x) is np.arccos(1/x): the point kernel once took arccos of x itself
    fn = lambdify([x, y], f(x - y / 4))
    kernel = _scalar_kernel(fn)
    for a in (0.5, 2.0, -3.0, 0.9, 7.25):
        with np.errstate(all="ignore"):
            got, (want,) = fn(a, 0.5), kernel(np.float64(a), np.float64(0.5))
        np.testing.assert_array_equal(got, want, err_msg=f"{f} at {a}")


def _random_tree(rng: random.Random, depth: int) -> sp.Expr:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([*X, *X, sp.Integer(2), sp.Rational(-3, 2)])
    spec = rng.choice(BLOCKS)
    args = [_random_tree(rng, depth - 1) for _ in spec.domain]
    try:
        return _apply(spec, args, rng.random() < 0.8)
    except (ValueError, TypeError, AttributeError, ZeroDivisionError):
        return args[0]


def test_random_trees_give_what_the_numpy_kernel_gives(every_batch):
    # random trees over every entry of the rule table (the differential fuzz's
    # building blocks), depth 3: where the point kernel runs (does not
    # raise), its floats are the NumPy kernel's on float64 scalars; and the
    # array kernel (ufunc calls, constants as 0-d arrays) gives on arrays of
    # both types the floats of the same lines in operators
    rng = random.Random(20)
    ran = batched = 0
    for _ in range(60):
        e = _random_tree(rng, 3)
        try:
            fn = lambdify(list(X), e)
        except NoNumpyFormError:
            continue
        names = fn.__wrapped__.__globals__
        if "f_scalar" in names:  # the array kernel's ufunc calls: the operators' floats
            for dtype in (np.float64, np.float32):
                pts = np.array([[rng.uniform(-2.0, 2.0) for _ in X] for _ in range(6)], dtype)
                with np.errstate(all="ignore"):
                    (calls,), (ops,) = names["f_block"](*pts.T), names["f_scalar"](*pts.T)
                assert np.asarray(calls).dtype == np.asarray(ops).dtype
                _equal(calls, ops, e, "in", dtype)
                if "f_rows" in names and dtype is np.float64:  # (a short batch)
                    with np.errstate(all="ignore"):
                        short = names["f_rows"](*pts.T)
                    if short is not None:
                        _equal(short[0], calls, e)
                        batched += 1
        if "f_point" not in names:
            continue
        for _ in range(4):
            a = [rng.uniform(-2.0, 2.0) for _ in X]
            with np.errstate(all="ignore"):
                (want,) = _scalar_kernel(fn)(*map(np.float64, a))
                try:
                    (got,) = names["f_point"](*a)
                except (ArithmeticError, ValueError, TypeError):
                    continue
            _equal(got, want, e, "at", a)
            ran += 1
    assert ran > 100  # (the point kernel ran, and was compared, that often)
    assert batched > 10  # (and the short-batch kernel)


def test_a_short_batch_of_a_gradient_gives_the_array_kernels_floats():
    # the quickstart-style gradient (two outputs) up to its short batch's
    # length: the array kernel's floats at every length (its loop, or the
    # kernel where a line would warn: exp overflows past x*y = 709.78, a
    # hypot out of range, inf, NaN), and its warning; under another error
    # state the kernel itself (it raises)
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    fn = lambdify([x, y], grad(f, [x, y]))
    names = fn.__wrapped__.__globals__
    most = int(re.search(r"_shape\[0\] <= (\d+) and _dtype is _D64", fn.source)[1])
    assert 8 <= most <= 30  # (the cost model's length: 11 on 2026-11-28)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(most), rng.standard_normal(most)
    big = abs(b) * 30 + 30  # (x*y > 900)
    for u, v, loud in ((a, b, False), (a + 30, big, True),
                       (np.r_[a[1:], 1e-200], np.r_[b[1:], 0.0], False),
                       (np.r_[a[1:], np.nan], b, False)):
        for n in (1, 2, most):
            got, warned = _run(fn, u[:n], v[:n])
            want, want_warned = _run(names["f_block"], u[:n], v[:n])
            _equal(got, want, n, "points at", u, v)
            assert warned == want_warned and bool(warned) == loud
    assert names["f_rows"](a[:3] + 30, big[:3]) is None
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        fn(a[:3] + 30, big[:3])
    # results that are not new arrays (an argument, a constant), a batch of
    # two axes, an argument broadcast (0-d after _flat), integers: the one
    # block of the general path runs the same kernel
    fn = lambdify([x, y], [*grad(f, [x, y]), x, 2])
    assert re.search(r"_n <= \d+ and _dtype is _D64", fn.source)
    block = fn.__wrapped__.__globals__["f_block"]
    for u, v in ((a[:4].reshape(2, 2), b[:4].reshape(2, 2)), (a[:3], 0.5), (0.5, a[:1]),
                 (np.arange(3), np.float64(2.0))):
        got = fn(u, v)
        shape = np.broadcast_shapes(np.shape(u), np.shape(v))
        want = block(np.asarray(u, float), np.asarray(v, float))
        for g, w in zip(got, want):
            assert g.dtype == np.float64
            _equal(g, np.broadcast_to(w, shape), u, v)


def test_an_error_state_of_the_callers_holds_on_one_point():
    # Python's float arithmetic overflows silently (1e200**2 on the way to
    # 1/x**2 = 0): under np.errstate(over="raise") one point raises, as
    # NumPy's scalars did; under the default it gives NumPy's value
    fn = lambdify(x, 1 / x**2 + 1)
    assert fn(1e200) == 1.0
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        fn(1e200)
    with np.errstate(all="ignore"):
        assert fn(1e200) == 1.0
    assert fn(2.0) == 1.25 and type(fn(2.0)) is np.float64
