"""Generated code for exact(p): the polynomial p as a floating-point
expansion, rounded once, within an ulp of the exact value (checked here
against Python's fractions, point by point): siblings written before the
stabilize rows it is for (2x2, 3x3 and 4x4 determinants on their singular
sets, a discriminant with huge coefficients, a cross product's component),
both float types, the range's ends, NaN and inf, and the export."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from symgrad import SymgradError, compensated, exact, lambdify

u = 2.0**-52


def _exact(expr, syms, cols):
    """The exact value of ``expr`` at each point (fractions)."""
    f = sp.lambdify(syms, expr, modules=[{}])
    return [f(*(Fraction(float(c[j])) for c in cols)) for j in range(len(cols[0]))]


def _ulps(got, truth, dtype):
    """|got - truth| in ulps of the correctly rounded truth (per point)."""
    out = []
    for g, t in zip(got, truth):
        spacing = Fraction(float(np.spacing(np.abs(dtype.type(float(t))))))
        out.append(float(abs(Fraction(float(g)) - t) / spacing) if np.isfinite(g) else np.inf)
    return np.array(out)


def _det(n, name="m"):
    m = sp.Matrix(n, n, sp.symbols(f"{name}:{n * n}"))
    return m.det(method="berkowitz").expand(), list(m)


def _singular(rng, n, k, scale=10.0):
    """k n-by-n matrices of floats with the last row the sum of the others
    rounded (singular up to a rounding: the determinant cancels deep)."""
    rows = [rng.uniform(-scale, scale, (k, n)) for _ in range(n - 1)]
    rows.append(np.sum(rows, axis=0) * (1 + rng.integers(-2, 3, (k, 1)) * u))
    return [rows[i][:, j] for i in range(n) for j in range(n)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_determinants_on_their_singular_sets_within_an_ulp(n, dtype):
    rng = np.random.default_rng(n)
    det, syms = _det(n)
    cols = [c.astype(dtype) for c in _singular(rng, n, 40)]
    got = lambdify(syms, exact(det), dtype=np.dtype(dtype).name)(*cols)
    assert got.dtype == dtype
    err = _ulps(got, _exact(det, syms, cols), np.dtype(dtype))
    assert err.max() < 1 and (err <= 0.5).mean() > 0.9  # (mostly correctly rounded)
    if n == 3 and dtype is np.float64:  # pairs lose bits here: the class it is for
        pairs = lambdify(syms, compensated(det))(*cols)
        assert _ulps(pairs, _exact(det, syms, cols), np.dtype(dtype)).max() > 4


def test_discriminant_with_huge_and_tiny_coefficients():
    a, b, c = sp.symbols("a b c")
    disc = b**2 - 4 * a * c
    rng = np.random.default_rng(7)
    av = rng.uniform(1, 2, 30) * 2.0 ** rng.integers(-500, 500, 30)
    cv = rng.uniform(1, 2, 30) * 2.0 ** rng.integers(-500, 500, 30)
    bv = 2 * np.sqrt(av * cv) * (1 + rng.integers(-4, 5, 30) * u)  # b*b ~ 4ac
    cols = [av, bv, cv]
    got = lambdify([a, b, c], exact(disc))(*cols)
    assert _ulps(got, _exact(disc, [a, b, c], cols), np.dtype(np.float64)).max() < 1


def test_a_cross_product_component_and_the_ends_of_the_range():
    # a*e - b*d with the products past the largest float (plain code: inf -
    # inf) or among the subnormals, and their exact difference in the range:
    # scaled out, summed, scaled back once
    a, b, d, e = sp.symbols("a b d e")
    cross = a * e - b * d
    big, tiny = 2.0**515, 2.0**-500
    cols = [np.array([big * (1 + u), tiny * (1 + u), 1 + u, 5.0]),
            np.array([big, tiny * (1 - u), 1.0, 7.0]),
            np.array([big, tiny * (1 + u), 1 - u, 3.0]),
            np.array([big * (1 + 2 * u), tiny, 1 + 2 * u, 2.0])]
    got = lambdify([a, b, d, e], exact(cross))(*cols)
    with np.errstate(all="ignore"):
        assert np.isnan(lambdify([a, b, d, e], cross)(*cols)[0])
    assert got[0] == 2.0**978 * 3 + 2.0**927 and got[1] == 2.0**-1052  # (rounded once)
    assert _ulps(got, _exact(cross, [a, b, d, e], cols), np.dtype(np.float64)).max() < 1


def test_a_value_does_not_depend_on_its_batch_nor_on_the_fallback():
    # the points no pass certifies (monomials 2**1500 apart, a subnormal
    # result) are computed with fractions: each point alone as in the batch
    x, y, z = sp.symbols("x y z")
    p = x * y - z
    f = lambdify([x, y, z], exact(p))
    cols = [np.array([2.0**700, 3.0, 2.0**-537, 1.5]), np.array([2.0**300, 5.0, 2.0**-537, 2.0]),
            np.array([2.0**1000, 15.0 + 2.0**-49, 2.0**-1074 * 3, 3.0])]
    batch = f(*cols)
    alone = [float(f(*(c[j] for c in cols))) for j in range(4)]
    assert list(batch) == alone
    assert _ulps(batch, _exact(p, [x, y, z], cols), np.dtype(np.float64)).max() < 1


def test_nan_and_inf_as_plain_code_gives_them():
    x, y = sp.symbols("x y")
    f = lambdify([x, y], exact(x * x - y))
    got = f(np.array([np.inf, np.nan, 2.0, np.inf]), np.array([1.0, 1.0, np.inf, np.inf]))
    assert np.isposinf(got[0]) and np.isnan(got[1]) and np.isneginf(got[2]) and np.isnan(got[3])


def test_what_no_expansion_holds_is_refused():
    x, y = sp.symbols("x y")
    for form, why in ((x * sp.sin(y), "not a polynomial"),
                      ((x + y) ** 40, "beyond what expansions hold")):
        with pytest.raises(SymgradError, match=why + ".*use compensated"):
            lambdify([x, y], exact(form))
    assert lambdify([x, y], exact(x * y / 4 + sp.Float(0.1) * x))(1.0, 2.0) == 0.5 + 0.1
    # a coefficient no float holds: the quotient by its denominator, rounded once
    assert lambdify([x, y], exact(x / 3 - y))(1.0, 1.0) == -2 / 3 != 1 / 3 - 1


def test_the_export_keeps_the_pairs_form():
    # JAX and PyTorch code has no expansions: exact(p) is emitted as
    # compensated(p) (pairs), where NumPy's code is exact
    from symgrad.export.source import generate

    x, y = sp.symbols("x y")
    for backend in ("jax", "torch"):
        src = generate(backend, [x, y], [exact(x * y - 1) + x])
        assert "_dd_" in src and "_ex_poly" not in src


def test_every_monomial_order_gives_the_same_floats():
    # the expansion is exact: the order of the terms cannot change a float
    x, y, z = sp.symbols("x y z")
    terms = [x**3, -3 * x**2 * y, 3 * x * y**2, -(y**3), z]
    rng = np.random.default_rng(3)
    cols = [rng.uniform(-4, 4, 50), None, rng.uniform(-1e-30, 1e-30, 50)]
    cols[1] = cols[0] * (1 + rng.integers(-3, 4, 50) * u)  # (x - y)**3 + z: deep
    outs = {tuple(lambdify([x, y, z], exact(sp.Add(*perm, evaluate=False)))(*cols))
            for perm in itertools.islice(itertools.permutations(terms), 0, 120, 40)}
    assert len(outs) == 1


def test_a_rational_function_over_one_denominator_near_its_zero():
    # a sum of quotients (FPBench's test04_dqmom9: 3 m a**2 / w, thrice) as
    # its numerator and denominator, each an expansion, the pairs divided:
    # within an ulp at its zero set, where the sum cancels
    m0, m1, w0, w1, a0, a1 = syms = sp.symbols("m0 m1 w0 w1 a0 a1")
    expr = 3 * a0**2 * m0 / w0 + 3 * a1**2 * m1 / w1
    rng = np.random.default_rng(5)
    av, bv = rng.uniform(0.1, 1, (2, 40))
    wv, vv = rng.uniform(1e-5, 1, (2, 40))
    mv = rng.uniform(-1, 1, 40)
    nv = -(mv * av**2 / wv) * vv / bv**2 * (1 + rng.integers(-2, 3, 40) * u)
    cols = [mv, nv, wv, vv, av, bv]
    got = lambdify(syms, exact(expr))(*cols)
    assert _ulps(got, _exact(expr, syms, cols), np.dtype(np.float64)).max() < 1
    x, y = sp.symbols("x y")  # a zero denominator: what plain code gives
    f = lambdify([x, y], exact(x / y - 1))
    got = f(np.array([1.0, 0.0, 3.0]), np.array([0.0, 0.0, 3.0]))
    assert np.isposinf(got[0]) and np.isnan(got[1]) and got[2] == 0


def _rounded(t, dtype):
    """The exact value ``t`` rounded to nearest in ``dtype`` (inf past it)."""
    try:
        r = float(t)
    except OverflowError:
        return dtype.type(np.inf if t > 0 else -np.inf)
    with np.errstate(over="ignore"):
        c = dtype.type(r)
    if dtype == np.float32 and np.isfinite(c):  # (no double rounding)
        near = [c, np.nextafter(c, np.float32(np.inf)), np.nextafter(c, np.float32(-np.inf))]
        c = min((n for n in near if np.isfinite(n)), key=lambda n: abs(Fraction(float(n)) - t))
    return c


@pytest.mark.parametrize("quotient", [False, True], ids=["polynomial", "quotient"])
def test_random_formulas_over_the_whole_range_of_both_types(quotient):
    # the bound's claim at random: inputs over all binades (subnormal and
    # overflowing monomials, results that underflow or overflow); within an
    # ulp for a polynomial, within 4 for a quotient (2**-52 + 2**-53 relative)
    x, y, z = syms = sp.symbols("x y z")
    worst = 0.0
    for seed in range(8):
        rng = np.random.default_rng(seed)
        dtype = np.dtype(np.float64 if seed % 2 else np.float32)
        terms = zip(rng.integers(-9, 10, 4), rng.integers(0, 3, (4, 3)))
        p = sum(int(c) * x ** int(i) * y ** int(j) * z ** int(k) for c, (i, j, k) in terms)
        if quotient:
            p = p / (int(rng.integers(1, 9)) * x ** int(rng.integers(0, 3)) + y * z)
        lo, hi = (-50, 42) if dtype == np.float32 else (-358, 341)
        cols = [(rng.uniform(1, 2, 16) * 2.0 ** rng.integers(lo, hi, 16)
                 * rng.choice([-1, 1], 16)).astype(dtype) for _ in syms]
        got = lambdify(syms, exact(p), dtype=dtype.name)(*cols)
        f = sp.lambdify(syms, p, modules=[{}])
        for j in range(16):
            try:
                t = f(*(Fraction(float(c[j])) for c in cols))
            except ZeroDivisionError:
                continue
            r = _rounded(t, dtype)
            if not (np.isfinite(r) and np.isfinite(got[j])):
                assert got[j] == r
                continue
            err = float(abs(Fraction(float(got[j])) - t) / Fraction(float(np.spacing(abs(r)))))
            worst = max(worst, err)
    assert worst < (4 if quotient else 1)


def test_a_deep_formula_is_refused_in_a_short_line():
    # exact's refusals printed the whole formula with SymPy's printer (a
    # RecursionError for e = exp(-e)/2 + x nested 120 deep: stabilize of it
    # crashed there); now its brief form
    from symgrad.exact import polynomial_terms

    x = sp.Symbol("x", real=True)
    e = x
    for _ in range(120):
        e = sp.exp(-e) / 2 + x
    with pytest.raises(ValueError, match=r"not a polynomial in its symbols \(exp\(-x\)\)") as err:
        polynomial_terms(e)
    assert "…" in str(err.value) and len(str(err.value)) < 200
