"""The entry point's path for one point in Python floats (issue 9 §4: a
call paid the general path's conversions and checks) gives what the
general path gives: the same values, types and layouts."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import grad, lambdify

x, y = sp.symbols("x y", real=True)
f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)


@pytest.mark.parametrize("exprs", [
    f,
    grad(f, [x, y]),
    list(grad(f, [x, y])),
    (x * y,),
    sp.Matrix([[x, 1], [y, x / y]]),
])
def test_python_floats_as_numpy_scalars(exprs):
    fn = lambdify([x, y], exprs)
    assert "is float" in fn.source
    for a, b in [(0.3, -0.7), (0.0, 0.0), (-2.5, 1e300)]:
        with np.errstate(all="ignore"):
            fast = fn(a, b)
            general = fn(np.float64(a), np.float64(b))
        assert type(fast) is type(general)
        for u, v in zip(np.ravel(fast), np.ravel(general)):
            assert type(u) is type(v) is np.float64
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("scalar", [np.float32, np.float64])
def test_numpy_scalars_of_one_type_take_the_point_path(scalar):
    for exprs in (f, grad(f, [x, y]), list(grad(f, [x, y])), sp.Matrix([[x, 1], [y, x / y]])):
        fn = lambdify([x, y], exprs)
        for a, b in [(0.3, -0.7), (0.0, 0.0), (-2.5, 1e30)]:
            with np.errstate(all="ignore"):
                fast = fn(scalar(a), scalar(b))
                general = fn(np.array(a, scalar), np.array(b, scalar))  # 0-d arrays
            assert type(fast) is type(general)
            for u, v in zip(np.ravel(fast), np.ravel(general)):
                assert type(u) is type(v) is scalar
                np.testing.assert_array_equal(u, v)


def test_python_floats_follow_numpy_arithmetic():
    # Python's own float arithmetic raises (1/0.0) or turns complex
    # ((-1.0)**0.5): the fast path computes in NumPy float64 scalars
    with np.errstate(all="ignore"):
        assert lambdify(x, 1 / x)(0.0) == np.inf
        assert np.isnan(lambdify(x, sp.sqrt(x))(-1.0))
        assert np.isnan(lambdify(x, x**sp.Rational(3, 2))(-1.0))


def test_other_arguments_take_the_general_path():
    fn = lambdify([x, y], x * y, dtype=np.float32)
    assert "is float" not in fn.source
    assert fn(0.5, 3.0).dtype == np.float32
    assert lambdify([x, y], x * y)(2, 3.0) == 6.0
    assert lambdify([x, y], sp.I * x * y)(2.0, 3.0) == 6j


# Arrays of one float type and one batch shape skip the conversions and
# checks, and one block calls the kernel directly: the same values, types
# and shapes as the general path, which other arguments take.
G = grad(f, [x, y])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [0, 1, 7, 100, 1001])
def test_same_arrays_give_what_the_general_path_gives(dtype, n):
    fn = lambdify([x, y], G, block=256)
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((2, n)).astype(dtype)
    fast = fn(a, b)
    general = fn(a[None, :], b)  # broadcasting: the general path, same dtype
    for u, v in zip(fast, general):
        assert u.dtype == v.dtype == dtype and u.shape == (n,) and v.shape == (1, n)
        np.testing.assert_array_equal(u, v[0])
    if dtype == np.float64:
        for u, v in zip(fast, fn(list(a), list(b))):
            np.testing.assert_array_equal(u, v)


def test_same_arrays_of_any_layout():
    fn = lambdify([x, y], [x * y, 1 + 0 * x, x])
    a = np.arange(12.0).reshape(3, 4)
    b = np.asfortranarray(a) + 1
    got = fn(a, b.T.T[::1])
    np.testing.assert_array_equal(got[0], a * b)
    np.testing.assert_array_equal(got[1], np.ones((3, 4)))
    assert not np.shares_memory(got[2], a)  # an output equal to an input is a copy
    np.testing.assert_array_equal(fn(a[:, ::2], b[:, ::2])[0], (a * b)[:, ::2])
    np.testing.assert_array_equal(fn(a[0], b)[0], a[0] * b)  # broadcasting: general path


def test_vector_arguments_take_the_same_arrays_path():
    xs = sp.symbols("x0:3")
    fn = lambdify([list(xs), y], [xs[0] * y + xs[2], xs[1]], dtype=np.float32)
    v = np.arange(12, dtype=np.float32).reshape(3, 4)
    w = np.full(4, 2, np.float32)
    got = fn(v, w)
    assert got[0].dtype == np.float32
    np.testing.assert_array_equal(got[0], v[0] * w + v[2])
    np.testing.assert_array_equal(fn(v.astype(np.float64), w)[1], v[1])
    with pytest.raises(ValueError, match="must start with"):
        fn(np.zeros((2, 4), np.float32), w)


def test_byte_swapped_arrays_give_native_results_as_before():
    fn = lambdify([x, y], x * y + 1)
    a = np.arange(3.0).astype(">f8")
    for got in (fn(a, a), fn(a, a.astype(">f8")), fn(a[None], a)):
        assert got.dtype == np.float64 and got.dtype.isnative
        np.testing.assert_array_equal(got.ravel(), [1, 2, 5])


def test_one_block_returns_new_arrays_of_the_output_type():
    # one block returns the kernel's own arrays where each is a new array of
    # the block's length and the output type; otherwise copies, as before
    a = np.linspace(0.5, 2.0, 7)
    for dtype in (np.float64, np.float32):
        u, v = a.astype(dtype), (a + 1).astype(dtype)
        for exprs in ([x * y, sp.sin(x)], [x * y, x * y], [x * y, x], (x * y, 1 + 0 * x),
                      [x * y, sp.expint(2, x)]):  # expint: scipy's expn is float64 only
            fn = lambdify([x, y], exprs)
            got = fn(u, v)
            assert type(got) is type(exprs) and len(got) == 2
            assert got[0] is not got[1] and not np.shares_memory(got[0], got[1])
            for g in got:
                assert g.dtype == dtype and g.shape == (7,) and not np.shares_memory(g, u)
                assert g.flags.writeable and g.flags.c_contiguous
            np.testing.assert_array_equal(got[0], u * v)
        # an output of the single point only: the general path, broadcast
        got = lambdify([x, y], [x * y, y**2 + 1])(u, dtype(2.0))
        np.testing.assert_array_equal(got[1], np.full(7, 5, dtype))
        # batch shapes of more than one axis
        got = lambdify([x, y], [x * y, sp.cos(x)])(u.reshape(7, 1), v.reshape(7, 1))
        assert got[1].shape == (7, 1) and got[1].dtype == dtype
    assert "_fresh(_r" in lambdify([x, y], [x * y, sp.sin(x)]).source
    assert "_fresh(_r" not in lambdify([x, y], [x * y, x]).source
    z = sp.Symbol("z")  # re(z) is np.real(z): for a real array, the array itself
    fn = lambdify([x, z], [x * z, sp.re(z)])
    assert "_fresh(_r" not in fn.source
    assert not np.shares_memory(fn(a, a + 1)[1], a)


def test_the_entry_point_holds_no_closure_cells():
    # a nested function or generator reading the entry point's names makes
    # them cells, allocated on every call: seven of them were 0.2 us of a
    # one-point call (2026-11-27); the blocks' runner takes them as defaults
    cases = [([x * y] * 5 + [x], {"threads": 2}), ((x * y, x), {"dtype": np.float32}),
             (sp.Matrix([[x, 1], [y, x / y]]), {})]
    for exprs, kw in cases:
        fn = lambdify([x, y], exprs, **kw)
        assert fn.__wrapped__.__code__.co_cellvars == (), (exprs, kw)
        a = np.linspace(1.0, 2.0, 40000)  # (three blocks of 16384)
        got = fn(a, a)
        assert np.array_equal(np.asarray(got, float)[..., -1], np.asarray(fn(2.0, 2.0), float))
