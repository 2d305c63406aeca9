"""scaled(u): a homogeneous formula computed on its inputs scaled by a power
of two (symgrad/scaled.py, symgrad/codegen/scaling.py)."""

from fractions import Fraction

import numpy as np
import pytest
from sympy import Matrix, atan2, exp, log, sqrt, symbols

from symgrad import SymgradError, lambdify, scaled, stabilize

a, b, c, d, x, y = symbols("a b c d x y")


@pytest.mark.parametrize(("expr", "degree"), [
    ((-b + sqrt(b**2 - 4*a*c)) / (2*a), 0),
    (Matrix([[a, b], [c, d]]).det(), 2),
    (sqrt(x**2 + y**2), 1),
    (atan2(y, x), 0),
    (x * exp(y / x), 1),
    (1 / (x * y), -2),
    (sqrt(x * y), Fraction(1)),
])
def test_homogeneity_finds_the_degree(expr, degree):
    from symgrad.scaled import homogeneity

    assert homogeneity(expr) == degree


@pytest.mark.parametrize("expr", [a + 1, log(a), exp(a), a * b + c, sqrt(a) + a])
def test_not_homogeneous_is_refused(expr):
    from symgrad.scaled import homogeneity

    assert homogeneity(expr) is None
    with pytest.raises(SymgradError, match="not homogeneous"):
        scaled(expr)


@pytest.mark.parametrize(("expr", "args", "truth", "dtype"), [
    # an intermediate past the top of the range: b*b (the quadratic's root)
    (2*c / (-b - sqrt(b*b - 4*a*c)), (1.0, 1e200, 1.0), -1e-200, "float64"),
    # ... and below the bottom: x*x underflows to 0 (x*x*(y/(x*x + y*y)) as
    # emitted; x*y/(x + y), here before, is x*(y/(x + y)) since 2026-11-27:
    # emission divides a product's last factor first, and stays in range)
    (x*x*y / (x*x + y*y), (1e-200, 3e-200), 3e-201, "float64"),
    (x*x*y / (x*x + y*y), (1e200, 3e200), 3e199, "float64"),
    # degree 1: the result is scaled back (x*y overflows, its root does not)
    (sqrt(x*y), (1e300, 4e300), 2e300, "float64"),
    # (hypot(x, y)/(x*y) was here: since 2026-11-27 emission divides by one
    # reciprocal factor and multiplies by the other, so x*y no longer underflows
    # as written; the underflow of a product stays covered by x*x*y/(x*x + y*y) above)
    (x*x*y / (x*x + y*y), (1e30, 3e30), 3e29, "float32"),
    # float32's own range bounds the scaled values (x*x of x = 1e30 beside a tiny y)
    ((x*x + y*y) / (x + y), (1e30, 1e-30), 1e30, "float32"),
])
def test_scaled_stays_in_range(expr, args, truth, dtype):
    syms = sorted(expr.free_symbols, key=str)
    vals = [np.asarray(v, dtype) for v in args]
    plain = lambdify(syms, expr, dtype=dtype)(*vals)
    got = lambdify(syms, scaled(expr), dtype=dtype)(*vals)
    assert got.dtype == np.dtype(dtype)
    assert not np.isclose(plain, truth, rtol=1e-5, atol=0)  # the formula as written fails
    assert np.isclose(got, truth, rtol=4 * np.finfo(dtype).eps, atol=0)


def test_scaled_rounds_as_the_formula_where_nothing_leaves_the_range():
    # multiplying by a power of two is exact: the same bits at every ordinary point
    rng = np.random.default_rng(3)
    cols = [rng.uniform(-4, 4, 200) * 10.0 ** rng.integers(-30, 30, 200) for _ in range(3)]
    expr = (b*b - 4*a*c) / (a + b + c)
    plain = lambdify([a, b, c], expr)(*cols)
    assert np.array_equal(lambdify([a, b, c], scaled(expr))(*cols), plain)


def test_stabilize_scales_where_a_product_overflows():
    # the conjugate root is accurate but b*b overflows past 1.3e154: fixed
    # without widening, by scaling or (since sqrt-square-plus, 2026-11-27) by
    # the root's square taken out, |b|·sqrt((1 - t)(1 + t)); the scaled
    # marker's own mechanism stays tested by the scaled-pairs test below
    root = 2*c / (-b - sqrt(b*b - 4*a*c))
    r = stabilize(root, {a: (1, 2), b: (1e100, 1e300), c: (1, 2)}, samples=48,
                  widen=False, explain=True)
    assert "widened" not in r.how and r.choices[0].before[0] > 50
    assert r.choices[0].after[0] <= 3


def test_scaled_pairs_fix_overflow_and_cancellation_at_once():
    # the quadratic's root over all floats: b*b overflows (b = 1e200), and b*b
    # nearly equals 4ac with a tiny, c huge: pairs of floats over scaled inputs
    import mpmath
    from sympy import Piecewise

    from symgrad import compensated

    disc = sqrt(b**2 - 4*a*c)
    root = Piecewise((-2*c / (b + disc), b > 0), ((-b + disc) / (2*a), True))
    pts = [(1.0, 1e200, 1.0), (1.79321564e-295, -3.13614624e+005, 1.37119778e+305)]
    with mpmath.workprec(2000):
        truth = []
        for av, bv, cv in pts:
            A, B, C = map(mpmath.mpf, (av, bv, cv))
            d = mpmath.sqrt(B * B - 4 * A * C)
            truth.append(float(-2 * C / (B + d) if B > 0 else (-B + d) / (2 * A)))
    cols = [np.array(col) for col in zip(*pts)]
    both = lambdify([a, b, c], scaled(compensated(root)))(*cols)
    assert np.allclose(both, truth, rtol=4e-16, atol=0)
    only_scaled = lambdify([a, b, c], scaled(root))(*cols)
    assert not np.isclose(only_scaled[1], truth[1], rtol=1e-14, atol=0)  # 13 bits cancel
