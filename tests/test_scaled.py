"""scaled(u): a homogeneous formula computed on its inputs scaled by a power
of two (symgrad/scaled.py, symgrad/codegen/scaling.py)."""

from fractions import Fraction

import numpy as np
import pytest
from sympy import Abs, Matrix, Piecewise, atan2, exp, log, sqrt, symbols
from sympy import lambdify as sympy_lambdify
from sympy.codegen.cfunctions import hypot

from symgrad import SymgradError, compensated, lambdify, scaled, stabilize

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


@pytest.mark.parametrize("expr", [a + 1, log(a), exp(a), sqrt(a) + a, a * b + a + b])
def test_not_homogeneous_is_refused(expr):
    from symgrad.scaled import homogeneity, weighted_homogeneity

    assert homogeneity(expr) is None and weighted_homogeneity(expr) is None
    with pytest.raises(SymgradError, match="not homogeneous"):
        scaled(expr)


@pytest.mark.parametrize(("expr", "weights", "dtype", "xs"), [
    # weights (1, 2): x*x + y cancels where x*x is near float32's subnormals, whose
    # pairs' low parts underflow (forms8: 28.7 bits in pairs; stabilize widened it)
    (sqrt(x * x + y), (1, 2), "float32", [3e-20, 1e-19, 7e-21, 2e18]),
    (x**3 + y, (1, 3), "float32", [1e-13, 3e-14, 2e12]),
    (sqrt(x * x + y), (1, 2), "float64", [1e-160, 3e-155, 1e153]),
])
def test_a_weighted_homogeneous_formula_is_scaled_by_its_weights(expr, weights, dtype, xs):
    from fractions import Fraction as Q

    import mpmath

    from symgrad import compensated
    from symgrad.scaled import weighted_homogeneity

    w, _ = weighted_homogeneity(expr)
    assert (w[x], w[y]) == weights
    p = weights[1]
    xv = np.array(xs, dtype)
    yv = np.array([-float(v) ** p * (1 - 2.0**-12) for v in xv], dtype)  # cancelling
    got = lambdify([x, y], scaled(compensated(expr)), dtype=dtype)(xv, yv)
    for g, u, v in zip(got, xv, yv):  # exact: the rational value (its root in floats)
        t = Q(float(u)) ** p + Q(float(v))
        with mpmath.workprec(200):
            true = float(mpmath.sqrt(mpmath.mpf(t.numerator) / t.denominator)) if p == 2 \
                else float(t)
        assert abs(float(g) - true) <= 4 * np.finfo(dtype).eps * abs(true), (g, true)


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


@pytest.mark.parametrize(("expr", "args"), [
    # the complex square root's branch for re < 0, |im|/sqrt(2(hypot - re)):
    # re = -1.78e308 needs k >= 8, and the result 1.28e-308 (degree 1/2) was
    # computed 4 binades into the scaled range's subnormals, then scaled back
    # (5 ulps; FPBench's row 3.8 bits)
    (sqrt(2) * sqrt(1 / (-x + hypot(y, x))) * Abs(y) / 2, (-1.78023e308, -3.41804e-154)),
    # a sibling of degree 3/2: c near the top, a*b/sqrt(c) = 2**-1030
    (a * b / sqrt(c), (2.0**-259, 1.3 * 2.0**-259, 1.7e308)),
])
def test_a_subnormal_result_is_rounded_once(expr, args):
    # where the scaled value is subnormal, the factors are scaled back each and
    # multiplied: the product's one rounding is in the result's own range
    import mpmath

    syms = sorted(expr.free_symbols, key=str)
    with mpmath.workprec(4000):
        truth = float(sympy_lambdify(syms, expr, "mpmath")(*map(mpmath.mpf, args)))
    got = float(lambdify(syms, scaled(expr))(*args))
    assert 0 < truth < np.finfo(np.float64).tiny
    assert abs(got - truth) <= np.spacing(truth), (got, truth)


@pytest.mark.parametrize("point", [
    ("0x0.0p+0", "0x1.60175b4af46fcp-161", "-0x1.f0af02c74b492p+92", "0x1.5b3202fffe08bp+835"),
    ("-0x1.ae8282b2ab1d2p+570", "-0x1.822e3d78dfd41p-1021", "-0x1.eaa9816c6b985p+1023",
     "-0x1.b8239d8c37e3ap-568"),
], ids=["quotient-underflows", "inputs-span-the-range"])
def test_a_compensated_quotient_whose_scaled_value_underflows_is_scaled_back_by_parts(point):
    # TNG's eigenvalue as stabilize writes it, (4ad - 4bc)/(hypot + hypot) in pairs
    # over scaled inputs: k = 337 (the inputs' midrange) put the quotient 2.9e-272
    # at 1e-373, 0 in the scaled range; numerator and denominator, each in pairs,
    # are scaled back and then divided (0 before, 58.9 bits in the FPBench row).
    # Each factor is scaled on its own, its inputs only kept normal: at b = -6.7e-308
    # beside c = -1.7e308 no one k held the denominator 3.4e308 in range and b out
    # of the subnormals (1.97e-322 for 1.44e-321, 8.0 bits); the numerator needs none
    import mpmath
    from sympy import Piecewise, symbols
    from sympy.codegen.cfunctions import hypot as hyp

    from symgrad import compensated

    a, b, c, d = symbols("a b c d", real=True)
    h1, h2 = hyp(a - d, b + c), hyp(a + d, b - c)
    form = scaled(compensated(Piecewise(((4 * a * d - 4 * b * c) / (h1 + h2), h1 > 0),
                                        (h2 - h1, True))))
    args = [float.fromhex(v) for v in point]
    with mpmath.workprec(3000):
        A, B, C, D = map(mpmath.mpf, args)
        truth = float(mpmath.sqrt((A + D)**2 + (B - C)**2) - mpmath.sqrt((A - D)**2 + (B + C)**2))
    got = float(lambdify([a, b, c, d], form)(*args))
    assert abs(got - truth) <= 2 * np.spacing(truth), (got, truth)


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
    # (the figures at points where b*b overflows, not explain=True's two reports:
    # 0.45 of this test's 0.85 s CPU; forms9)
    from symgrad.stability.bits import bits_error, float_format
    from symgrad.stability.truth import GroundTruth
    from symgrad.widen import has_widen

    root = 2*c / (-b - sqrt(b*b - 4*a*c))
    got = stabilize(root, {a: (1, 2), b: (1e100, 1e300), c: (1, 2)}, samples=48, widen=False)
    assert not has_widen([got])
    pts = np.array([[1.5, 1e155, 1.25], [1.0, 3e200, 2.0], [2.0, 1e300, 1.0]])
    true = GroundTruth([root], [a, b, c], "float64").batch(pts)[0][0]
    f64 = float_format("float64")
    cols = [pts[:, j] for j in range(3)]
    assert bits_error(lambdify([a, b, c], root)(*cols), true, f64).max() > 50
    assert bits_error(lambdify([a, b, c], got)(*cols), true, f64).max() <= 3


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


_e, _q = symbols("e q", real=True)


def _within_an_ulp(got, truth, dtype):
    t = np.abs(np.asarray(truth, dtype))
    with np.errstate(over="ignore"):  # (the largest float's spacing is inf: its ulp below)
        ulp = np.spacing(t) if t < np.finfo(dtype).max else np.spacing(np.nextafter(t, 0))
    return abs(float(got) - float(truth)) <= float(ulp)


@pytest.mark.parametrize(("form", "syms", "point", "dtype"), [
    # heldout_b row 5, ENA Exercise 4b: (e + x)**5 - x**5 as stabilize writes it; x**4
    # wants k >= 1 (float32), the subnormal e (51 quanta) wants k <= 0; k = 2 rounded
    # e/4 to 13 quanta (17.7 bits, stabilize reported 1.0)
    (_e*(_e**4 + 5*_e**3*x + 10*_e**2*x**2 + 10*_e*x**3 + 5*x**4), [_e, x],
     (-7.146622168056567e-44, 959518144.0), "float32"),
    # siblings not started from: n = 3 (float32), n = 2 (float64), a monomial
    (_e*(_e**2 + 3*_e*x + 3*x**2), [_e, x], (3.363116314379561e-44, 1.7e19), "float32"),
    (_e*(_e + 2*x), [_e, x], (1.3e-320, 1.5e308), "float64"),
    (x**2*y, [x, y], (1e300, 3e-320), "float64"),
    # (the quadratic formula where a subnormal c meets a = 1.7e308, b = 0:
    # test_a_root_at_the_largest_float_with_an_input_rounded_by_the_scaling)
], ids=["b5-float32", "n3-float32", "n2-float64", "x2y"])
def test_an_input_no_one_k_keeps_exact_is_kept_exact_by_its_factor(form, syms, point, dtype):
    # where no one power of two keeps every input exact and no value overflowing,
    # an input was rounded when scaled: there the factors of u, each scaled by its
    # own k (a lone e exactly), are multiplied significand by significand
    import mpmath

    from symgrad import compensated

    vals = [np.array([v], dtype) for v in point]
    with mpmath.workprec(4000):
        exact = sympy_lambdify(syms, form, "mpmath")
        truth = float(exact(*[mpmath.mpf(float(v[0])) for v in vals]))
    for f in (form, compensated(form)):
        got = lambdify(syms, scaled(f), dtype=dtype)(*vals)[0]
        assert _within_an_ulp(got, truth, dtype), (f, got, truth)


@pytest.mark.parametrize("pairs", [False, True])
def test_the_fallback_computed_at_its_rows_only_gives_each_row_its_own_floats(pairs):
    # alt (u's factors scaled back each) is computed at the rows that may take it
    # only (scaling.compacting): in a batch mixing those rows (a subnormal beside
    # a huge input, NaN, inf, 0) with plain ones, each row gets the floats it
    # gets alone, and an input given as one number broadcasts
    form = compensated(x**2*y) if pairs else x**2*y
    f = lambdify([x, y], scaled(form))
    pool = [1e300, 3e-320, 5e-324, 3.0, -2.5, 0.0, 1e-300, 1.7e308, np.inf, np.nan]
    rng = np.random.default_rng(0)
    xs, ys = rng.choice(pool, 64), rng.choice(pool, 64)
    with np.errstate(all="ignore"):
        batch = f(xs, ys)
        alone = np.array([f(u, v) for u, v in zip(xs, ys)])
        one_y = f(xs, ys[0])
        one_y_alone = np.array([f(u, ys[0]) for u in xs])
    assert batch.tobytes() == alone.tobytes()
    assert one_y.tobytes() == one_y_alone.tobytes()
    exact = float(Fraction(1e300)**2 * Fraction(3e-320))  # (a row taking alt)
    assert abs(f(1e300, 3e-320) - exact) <= np.spacing(exact)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_value_scaled_back_past_the_largest_float_by_its_rounding_is_the_largest(dtype):
    # the harmonic mean 2xy/(x + y) at x = max - ulp, y = max is x (heldout_d row
    # 53, float32: stabilize's scaled form reported 1.6 bits, inf there, 32); its
    # scaled value rounded up one ulp and scaled back past the threshold
    import mpmath

    big = np.finfo(dtype).max
    m1 = np.nextafter(big, 0, dtype=dtype)
    pts = [(m1, big), (big, m1), (-m1, -big), (big, big)]
    for form in (2*x*y/(x + y), sqrt(x*y)):
        f = lambdify([x, y], scaled(form), dtype=dtype)
        for p in pts:
            with mpmath.workprec(300):
                truth = sympy_lambdify([x, y], form, "mpmath")(*map(mpmath.mpf, map(float, p)))
            got = f(*[np.array([v], dtype) for v in p])[0]
            assert np.isfinite(got) and _within_an_ulp(got, truth, dtype), (form, p, got)
    # far past it, still inf: x*y and 2x at the largest float
    with np.errstate(over="ignore"):
        assert np.isinf(lambdify([x, y], scaled(x*y), dtype=dtype)(big, big))
        assert np.isinf(lambdify([x], scaled(2*x), dtype=dtype)(np.array([big], dtype))[0])


_ROOT_PLUS = Piecewise((-2*c / (b + sqrt(b**2 - 4*a*c)), b > 0),
                       ((-b + sqrt(b**2 - 4*a*c)) / (2*a), True))
_ROOT_MINUS = Piecewise((-2*c / (b - sqrt(b**2 - 4*a*c)), b < 0),
                        ((-b - sqrt(b**2 - 4*a*c)) / (2*a), True))


@pytest.mark.parametrize(("form", "points", "dtype", "plain"), [
    # (plain: the plain form is checked at the first ``plain`` points too)
    # FPBench's NMSE p42 (positive) over all floats, as stabilize chose it: at
    # a = 7.25e-310 (rounded by main's k), b = -3.95e-310, c = -2.34e307 the value is
    # 512 ulps past the largest float; the factors' product (alt) was inf, refused as
    # not finite, and main (of the rounded a) gave a finite value 274 ulps below it:
    # 8.1 bits in stabilize's own after-report, its verification having passed it.
    # 512 ulps below the largest float: plainly, the sum's factor kept main's k
    # (every input in it) and rounded a too, 64 bits (alt inf) / 9.7 (problem 3.2.1)
    # Then where a subnormal c meets a = 1.7e308, b = 0 (1/a needs k >= 8: verify20's
    # 25.8 bits, 0 at c = -4.9e-322; plainly, -4*a*c still overflows there)
    # And where no input is rounded but the value's last rounding passes the
    # threshold, its exact value rounding to the largest float (a = -5e-324, b = 0,
    # c = 1.6e293: -inf for -1.7976931348623157e308, 64 bits, after-report at seed 3)
    (_ROOT_PLUS, [(7.2501205469922e-310, -3.95e-310, -2.3430218973490977e+307),
                  (7.2501205469922e-310, -3.95e-310, -2.343021897348565e+307),
                  (-5e-324, 0.0, 1.5966722476277757e+293),
                  (1.7e308, 0.0, -4.27e-321), (1.7e308, 0.0, -4.9e-322)], "float64", 3),
    # siblings not started from: the negative root (p42 negative), and float32 (there
    # plainly, 256 ulps below the threshold, (sqrt - b)/a overflows before its 1/2: a
    # degree-0 intermediate no k moves; open)
    (_ROOT_MINUS, [(7.2501205469922e-310, 3.95e-310, -2.3430218973490977e+307),
                   (7.2501205469922e-310, 3.95e-310, -2.343021897348565e+307),
                   (5e-324, 0.0, -1.5966722476277757e+293)], "float64", 3),
    (_ROOT_PLUS, [(2.2995307799570248e-42, -1.1000192944949814e-42, -2.662755743563562e+35),
                  (2.2995307799570248e-42, -1.1000192944949814e-42, -2.6625931277600016e+35)],
     "float32", 0),
], ids=["p42", "p42-negative", "float32"])
def test_a_root_at_the_largest_float_with_an_input_rounded_by_the_scaling(form, points, dtype,
                                                                          plain):
    # where an input is rounded when scaled, the factors scaled each on its own
    # (every input exact) are the value: past the largest float too, where their
    # product is inf; every factor is scaled on its own, plainly as in pairs
    import mpmath

    big = np.finfo(dtype).max
    half_ulp = float(np.spacing(np.nextafter(big, 0, dtype=dtype))) / 2
    truths = []
    with mpmath.workprec(400):
        for p in points:
            tv = sympy_lambdify([a, b, c], form, "mpmath")(*map(mpmath.mpf, p))
            past = abs(tv) >= mpmath.mpf(float(big)) + mpmath.mpf(half_ulp)
            truths.append(float(mpmath.sign(tv)) * np.inf if past else float(tv))
    for f, n in ((form, plain), (compensated(form), len(points))):
        cols = [np.array(col, dtype) for col in zip(*points[:n])]
        with np.errstate(all="ignore"):
            got = lambdify([a, b, c], scaled(f), dtype=dtype)(*cols) if n else []
        for g, t in zip(got, truths):
            assert (g == t) if np.isinf(t) else _within_an_ulp(g, t, dtype), (f, g, t)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_no_intermediate_leaves_the_range_where_the_inputs_and_the_value_are_normal(dtype):
    # the scaling's k kept each node's estimated exponent within L of 0 where it
    # could, but where no k could (x**2 wants k <= -6 and y k >= 8 in float32's
    # x**2*y at (1e-20, 3e38)) k was clamped and x**2 scaled into the subnormals:
    # 0.02755 for 0.03; nor were the values the code computes that are no node
    # bounded (x*y in x*y*z, y/z in x*y/(3*z): degree 0, no k moves it, the
    # quadratic's (-b + sqrt(...))/a before its 1/2). Now those rows take the
    # factors each scaled on its own (a power of a product, a sum of products
    # too). Random exponents over the whole range: before, 1-13% of the rows
    # of each form off by up to every bit, in both types
    from tests.oracles import scaled_range_cases, ulps_where_normal

    syms, forms, cols, truths = scaled_range_cases(dtype)
    with np.errstate(all="ignore"):
        got = lambdify(syms, [scaled(e) for e in forms], dtype=dtype)(*cols)
    for e, g, t in zip(forms, got, truths):
        err = ulps_where_normal(g, t, dtype)
        assert np.isfinite(err).sum() >= 300, e
        assert np.nanmax(err) <= 2.5, (e, np.nanmax(err), np.nanargmax(err))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sums_in_pairs_long_products_and_cancelled_factors_stay_in_range(dtype):
    # a sum in pairs had no fallback where no k kept a term's factors in range
    # (compensated(x**2*y + z**3): every bit at 1-2% of the rows, both types);
    # the partial products of 5 factors were bounded only in part (float32
    # x*y*z*w*v: 1,470 ulps); the estimate of a sum is only an upper bound
    # ((x - y)**2*z with y ~ x: (x - y)**2 scaled into the subnormals, every
    # bit). Now such rows take u in floats with an exponent of their own (in
    # pairs where u is), and the products the estimates cannot bound are
    # checked on their scaled values
    from tests.oracles import scaled_more_cases, ulps_where_normal

    syms, cases = scaled_more_cases(dtype)
    for e, cols, t in cases:
        with np.errstate(all="ignore"):
            got = lambdify(syms, scaled(e), dtype=dtype)(*cols)
        err = ulps_where_normal(got, t, dtype)
        assert np.isfinite(err).sum() >= 200, e
        assert np.nanmax(err) <= 2.5, (e, np.nanmax(err), np.nanargmax(err))
