"""Generated code for compensated(u): the subtree in pairs of floats of the
working type (TwoSum, Dekker's TwoProduct), rounded back; checked against
the stability package's ground truth at random and structured points, per
class (cancelling polynomials, a product by a constant no float holds
before a function that is sensitive to it, cancelling sums, quotients and
roots), each with siblings, and at the extremes of the float range."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
import sympy as sp

from symgrad import compensated, lambdify, numpy_code
from symgrad.stability.bits import bits_error, float_format
from symgrad.stability.floats import generated
from symgrad.stability.truth import RESOLVED, GroundTruth

a, b, c, d, x, y, t = sp.symbols("a b c d x y t")


def _bits(expr, syms, cols, dtype="float64"):
    """(bits of the plain code, bits of the compensated code) at resolved points."""
    fmt = float_format(dtype)
    cols = [np.asarray(v, dtype=fmt.dtype) for v in cols]
    true, status = GroundTruth([expr], syms, fmt.name).batch(np.stack(cols, axis=1))
    ok = status[0] == RESOLVED
    assert ok.mean() > 0.9
    out = []
    for form in (expr, compensated(expr)):
        v = generated(syms, [form], fmt.dtype)(*cols)[0]
        out.append(bits_error(v, true[0], fmt)[ok])
    return out


def _near_double_roots(rng, n):
    """(a, b, c) with b*b - 4*a*c a few ulps of b*b: the discriminant cancels."""
    av = rng.uniform(0.5, 2.0, n)
    cv = rng.uniform(0.5, 2.0, n)
    bv = 2 * np.sqrt(av * cv) * (1 + rng.integers(-8, 8, n) * 2.0**-52)
    return av, bv, cv


@pytest.mark.parametrize("expr", [
    b**2 - 4 * a * c,  # the discriminant
    (b**2 - 4 * a * c) * a + c**3 / 7,  # in a larger polynomial, a rational coefficient
    b * b - 4 * c * a,  # written otherwise
], ids=["discriminant", "in-a-polynomial", "reordered"])
def test_polynomial_cancellation_at_double_roots(expr):
    rng = np.random.default_rng(1)
    cols = _near_double_roots(rng, 200)
    plain, comp = _bits(expr, [a, b, c], cols)
    if expr.equals(b**2 - 4 * a * c):
        assert plain.max() > 20  # the plain code cancels
    assert comp.max() <= 1.0


def test_determinants_near_singular():
    # a*d - b*c with (c, d) almost proportional to (a, b): a sibling in 4 variables
    rng = np.random.default_rng(2)
    av, bv = rng.uniform(-10, 10, (2, 300))
    k = rng.uniform(-3, 3, 300)
    cv = k * av * (1 + rng.integers(-4, 4, 300) * 2.0**-50)
    dv = k * bv
    plain, comp = _bits(a * d - b * c, [a, b, c, d], [av, bv, cv, dv])
    assert plain.max() > 20 and comp.max() <= 1.0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("expr", [a * d - b * c, a * b * d - c * d * t],
                         ids=["2x2", "three-factor-terms"])
def test_products_near_the_subnormals_keep_their_error_terms(expr, dtype):
    # the same near-singular cancellation with products 2**16 to 2**p times the
    # smallest normal float (the result normal): TwoProduct's error term, though
    # subnormal, is kept (it was dropped below 2**-969 in float64, 2**-102 in
    # float32: FPBench's 3x3 determinant of tiny entries lost 113 ulps in pairs)
    fi, rng = np.finfo(dtype), np.random.default_rng(3)
    big = 2.0 ** rng.integers(fi.minexp + 16, fi.minexp + fi.nmant, 200)  # the products
    near = 1 + rng.uniform(2.0**-10, 2.0**-3, 200)  # their ratio: the result is normal
    m1, m2, tv = rng.uniform(1, 2, (3, 200)) * rng.choice([-1, 1], (3, 200))
    if expr == a * d - b * c:  # a*d ~ b*c ~ 2**E, d and c near 1
        av, bv, dv = m1 * big, m2 * big, tv
        cv = av * dv * near / bv
    else:  # a*b*d - c*d*t: a*b rounded (~2**E), then times d; c*t ~ a*b
        av, bv, dv = m1, m2 * big, tv
        cv = av * bv * near / tv
    plain, comp = _bits(expr, [a, b, c, d, t], [av, bv, cv, dv, tv], dtype)
    assert comp.max() <= 1.0 and plain.max() > 2


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_chain_of_products_past_the_range_keeps_its_bits(dtype):
    # x*y*t where x*y underflows into the subnormals or overflows and t brings
    # it back; 6*x**2 - y (x**2 a chain: x, x) where the result is subnormal:
    # computed on the significands and scaled back once (_dd_prod), the
    # partial products keep every bit (the chain of pair products lost them:
    # FPBench's rigidBody2 and matrixDeterminant, 3.2-3.3 bits at subnormal
    # results)
    fi, rng = np.finfo(dtype), np.random.default_rng(4)
    n, lo, hi = 200, fi.minexp, fi.maxexp
    et, ex = rng.integers(lo // 2 - 12, lo // 2 - 2, (2, n))  # t*x below the normals
    ey = np.minimum(-(et + ex) + rng.integers(-40, 0, n), hi - 2)  # y brings it back
    sign = np.where(rng.random(n) < 0.5, 1, -1)  # (half: t*x overflows, y is tiny)
    tv, xv, yv = rng.uniform(1, 2, (3, n)) * 2.0 ** (sign * np.stack([et, ex, ey]))
    assert str(x * y * t) == "t*x*y"  # (the chain's order: t*x first)
    plain, comp = _bits(x * y * t, [x, y, t], [xv, yv, tv], dtype)
    assert comp.max() <= 1.0 and plain.max() > 8
    # 6*x**2 - y, subnormal: y = 6*x**2 rounded, then off by a few spacings
    xv = rng.uniform(1, 2, n) * 2.0 ** rng.integers(lo // 2 - 1, lo // 2 + 4, n)
    yv = (6 * xv.astype(dtype).astype(float) ** 2).astype(dtype).astype(float) \
        + rng.integers(-9, 9, n) * float(fi.smallest_subnormal)
    plain, comp = _bits(6 * x**2 - y, [x, y], [xv, yv], dtype)
    assert comp.max() <= 1.0 and plain.max() > 2


@pytest.mark.parametrize("expr, zeros", [
    (x * sp.cos(t * sp.pi / 180), lambda k: 90.0 + 180.0 * k),  # degrees
    (sp.sin(sp.pi * t), lambda k: 1.0 * k),  # sin(pi t) near integers
    (sp.exp(t * sp.Rational(1, 10)) - 1, lambda k: 0.0 * k + 7000.0),  # exp of a product, large
], ids=["cos-degrees", "sin-pi-t", "exp-tenth"])
def test_a_constant_no_float_holds_times_a_variable(expr, zeros):
    # the product rounds before a function whose value is sensitive to it:
    # compensated, the product is a pair and the function is corrected to first order
    rng = np.random.default_rng(3)
    k = rng.integers(-3, 4, 200)
    tv = zeros(k) + rng.uniform(-1e-3, 1e-3, 200)
    xv = rng.uniform(1, 10, 200)
    syms = sorted(expr.free_symbols, key=str)
    cols = [xv if s == x else tv for s in syms]
    plain, comp = _bits(expr, syms, cols)
    assert plain.max() > 5 and comp.max() <= 1.6
    # and at random points over the whole range, nothing lost
    tv = rng.uniform(-700, 700, 200)
    cols = [xv if s == x else tv for s in syms]
    plain, comp = _bits(expr, syms, cols)
    assert comp.max() <= max(plain.max(), 1.6)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cancelling_sums_and_dtype_kept(dtype):
    # a + b + c + d where the terms cancel (FPBench's sums4, in float32 too)
    rng = np.random.default_rng(4)
    n = 300
    av, bv, cv = rng.uniform(0, 1, (3, n))
    dv = -(av + bv + cv) * (1 + rng.uniform(-1e-6, 1e-6, n))
    expr = a + b + c + d
    plain, comp = _bits(expr, [a, b, c, d], [av, bv, cv, dv], dtype)
    assert plain.max() > 5 and comp.max() <= 1.0
    f = lambdify([a, b, c, d], compensated(expr))
    got = f(*(np.asarray(v, dtype=dtype) for v in (av, bv, cv, dv)))
    assert got.dtype == np.dtype(dtype)


@pytest.mark.parametrize("expr", [
    sp.sqrt(x**2 + 1) - x,  # a root whose value cancels
    (-b + sp.sqrt(b**2 - 4 * a * c)) / (2 * a),  # the quadratic formula's small root
    x / (x + y) - 1,  # a quotient that cancels
], ids=["root-minus-x", "quadratic-root", "quotient-minus-one"])
def test_roots_and_quotients_keep_twice_the_precision(expr):
    rng = np.random.default_rng(5)
    n = 200
    syms = sorted(expr.free_symbols, key=str)
    if syms == [a, b, c]:
        cols = [np.ones(n), 10.0 ** rng.uniform(2, 6, n), rng.uniform(0.5, 2, n)]
    elif syms == [x]:
        cols = [10.0 ** rng.uniform(1, 6, n)]
    else:
        cols = [rng.uniform(1, 2, n), 10.0 ** -rng.uniform(5, 12, n)]
    plain, comp = _bits(expr, syms, cols)
    assert plain.max() > 8 and comp.max() <= 1.6


EXTREMES = {
    "float64": [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 1e-160, 1.0, 3.0,
                1e150, 1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308],
    "float32": [0.0, 1e-45, -1e-45, 1.1754944e-38, 1e-30, 1e-20, 1.0, 3.0, 1e20, 1e30, -1e30,
                3.4028235e38, -3.4028235e38],
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("expr", [
    x * y - 3 * x, x * y + y / 7, x / y - 1, sp.sqrt(x * x + y), sp.exp(x * sp.pi) - y,
    sp.cos(x * sp.pi / 180) * y,
], ids=["prod-sum", "prod-const", "quot", "sqrt", "exp-pi", "cos-deg"])
def test_safe_at_the_extremes_of_the_floats(dtype, expr):
    # every pair of extreme floats (over- and underflow of the products, the
    # splits near the top of the range, subnormal products): the compensated code
    # loses nothing the plain code keeps, and is NaN only where the plain one is
    vals = EXTREMES[dtype]
    xv, yv = (np.array(v, dtype=dtype) for v in zip(*[(p, q) for p in vals for q in vals]))
    fmt = float_format(dtype)
    true, status = GroundTruth([expr], [x, y], fmt.name).batch(
        np.stack([xv.astype(float), yv.astype(float)], axis=1))
    ok = status[0] == RESOLVED
    plain = generated([x, y], [expr], fmt.dtype)(xv, yv)[0]
    comp = generated([x, y], [compensated(expr)], fmt.dtype)(xv, yv)[0]
    bp = bits_error(plain, true[0], fmt)[ok]
    bc = bits_error(comp, true[0], fmt)[ok]
    assert np.all(bc <= np.maximum(bp, 1.0) + 1.0), (xv[ok][bc > bp + 1], yv[ok][bc > bp + 1])
    assert not np.any(np.isnan(comp) & ~np.isnan(plain))


def test_helpers_only_where_compensated_and_the_code_is_plain_numpy():
    src = numpy_code([a, b, c], compensated(b**2 - 4 * a * c))
    assert "def _dd_two_prod" in src and "import numpy as np" in src
    assert "longdouble" not in src and "_dd_" not in numpy_code([a, b, c], b**2 - 4 * a * c)
    # a constant no float holds is a pair; one every float holds stays a literal
    src = numpy_code([t], compensated(t * sp.pi / 180 + t / 2))
    assert "_ddc(0.017453292519943295, 2.9486522708701687e-19" in src
    assert "_ddc(0.5" not in src


@pytest.mark.parametrize("expr, rounded", [
    (-x * y - 2 * y * t - x - t, False),  # negated terms are exact (rigidBody1)
    (sp.sqrt((a + b + c) * (c - (a - b)) * (c + (a - b)) * (a + (b - c))) / 4, False),  # Heron
    (x * sp.cos(t * sp.pi / 180), False),  # a function value, multiplied only
    (x + y * sp.tanh(t) * sp.erf(t), True),  # function values in a sum
    # exp, log, sin, cos, tan, atan are computed as pairs, not rounded
    (sp.exp(-(x - 1) ** 2) - sp.exp(-(y - 2) ** 2), False),
    (sp.log(x) - sp.log(y) - t, False),
    (x + y * sp.sin(t) * sp.cos(t), False),  # FPBench's sphere
    (sp.sin(x) - sp.sin(y), False),
    (sp.tanh(x) - sp.tanh(y), True),  # ... other function values are rounded
])
def test_rounded_terms_tells_function_values_from_exact_inputs(expr, rounded):
    from symgrad.codegen.compensating import rounded_terms

    assert rounded_terms(expr) is rounded


def test_compensated_inside_widen_runs_in_the_long_double():
    # widen() evaluates its subtree in np.longdouble: the splitting constant of
    # TwoProduct must exist for that type too (it raised KeyError: float128)
    from symgrad import widen

    a, b, c = sp.symbols("a b c")
    f = lambdify([a, b, c], widen(sp.log(compensated(b**2 - 4 * a * c))))
    assert float(f(1.0, 2 + 2.0**-26, 1 + 2.0**-26)) == float(np.log(2.0**-52))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_exp_and_log_of_pairs_keep_twice_the_precision(dtype):
    """compensated(exp(u) - y), ... computes exp, expm1, log, log1p as pairs
    (a double-float exp and log): where the sum cancels (the Poisson NLL's
    gradient along x = log y, the KL divergence's along x = log y + 1),
    the result keeps its bits; at the edges they are what the float
    function gives (inf, 0, -inf, NaN)."""
    import mpmath

    from symgrad.codegen import compensated_helpers as h

    dt = np.dtype(dtype)
    rng = np.random.default_rng(3)
    top = 700 if dtype == "float64" else 85
    xs = np.concatenate([rng.uniform(-top, top, 40), rng.uniform(-1, 1, 20),
                         rng.uniform(-1e-6, 1e-6, 10)]).astype(dt)
    ys = np.concatenate([10.0 ** rng.uniform(-30, 30, 40), 1 + rng.uniform(-1e-3, 1e-3, 20),
                         [np.finfo(dt).smallest_subnormal]]).astype(dt)
    want = 2 * (np.finfo(dt).nmant + 1) - 10  # bits, relative
    with mpmath.workprec(300), np.errstate(all="ignore"):
        for f, mf, pts in ((h._dd_exp, mpmath.exp, xs), (h._dd_expm1, mpmath.expm1, xs),
                           (h._dd_log, mpmath.log, ys[ys != 1]),
                           (h._dd_log1p, mpmath.log1p, ys)):
            hi, lo = f(pts)
            for p, a, b in zip(pts, hi, lo):
                true = mf(mpmath.mpf(float(p)))
                got = mpmath.mpf(float(a)) + mpmath.mpf(float(b))
                # (a pair holds no bit below the smallest subnormal)
                tol = max(abs(true) * mpmath.mpf(2) ** -want, np.finfo(dt).smallest_subnormal)
                assert abs(got - true) <= tol, (f, p)
        edge = np.array([np.inf, -np.inf, np.nan], dt)
        assert list(map(float, h._dd_exp(edge)[0][:2])) == [np.inf, 0.0]
        assert np.isnan(h._dd_exp(edge)[0][2]) and h._dd_exp(edge)[1][2] == 0
        assert list(map(float, h._dd_expm1(edge)[0][:2])) == [np.inf, -1.0]
        got = h._dd_log(np.array([0.0, -1.0, np.inf], dt))[0]
        assert got[0] == -np.inf and np.isnan(got[1]) and got[2] == np.inf


def test_pair_exp_table_is_the_exports_table():
    # NumPy's pair exp reduces by the table of 2**(j/256) - 1 that JAX and
    # PyTorch use (made there with mpmath at 200 bits; here by integer square
    # roots, with no mpmath in a generated module): the same floats in float64,
    # and within the pair's own precision in float32 and the long double
    from symgrad.codegen import compensated_helpers as h
    from symgrad.export.jax_ops import exp_reduction

    for t, rel in ((np.float64, 0), (np.float32, 2.0**-48), (np.longdouble, 2.0**-125)):
        inv, c1, c2, c3, hi, lo = h._DD_EXP_TABLE[np.dtype(t)]
        assert hi.dtype == lo.dtype == t and len(hi) == 257 and hi[128] == lo[128] == 0
        ref = exp_reduction(np.float64)
        if rel == 0:
            np.testing.assert_array_equal(hi, ref[4])
            np.testing.assert_array_equal(lo, ref[5])
            assert (c1, c2, c3) == ref[1:4]
        want = ref[4].astype(np.longdouble) + ref[5]  # (2**-106 of each entry)
        got = hi.astype(np.longdouble) + lo
        assert np.all(np.abs(got - want) <= max(rel, 2.0**-105) * np.abs(want))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_log1p_of_a_tiny_pair_keeps_its_low_part(dtype):
    # log1p(u) - y, u a pair far below 1 (exp(x) of a large negative x, a
    # product x*x, a product of two pair exps: the focal loss's gradient),
    # y the float nearest log1p(u): the truth is log1p's rounding error.
    # The pair 1 + u holds u only to 2**-2p of 1, none of its low part
    # where |u| < 2**-p: log1p then had the float's bits, not the pair's.
    # (u above 2**(emin + 2p), where a pair's low part is a normal float)
    import mpmath
    from sympy.codegen.cfunctions import log1p

    dt = np.dtype(dtype)
    nmant = np.finfo(dt).nmant
    rng = np.random.default_rng(5)
    top = (600, 40) if dtype == "float64" else (65, 18)
    xs = {sp.exp(x): -rng.uniform(top[1], top[0], 6),
          x * x: 10.0 ** rng.uniform(-15 if dtype == "float64" else -10, -1, 6),
          sp.exp(x) * sp.exp(x / 2): -rng.uniform(top[1], top[0] / 2, 6)}
    with mpmath.workprec(300):
        for u, xv in xs.items():
            xv = xv.astype(dt)
            mu = sp.lambdify(x, u, "mpmath")
            true_l = [mpmath.log1p(mu(mpmath.mpf(float(v)))) for v in xv]
            yv = np.array([float(t) for t in true_l], dt)
            got = lambdify([x, y], compensated(log1p(u) - y), dtype=dtype)(xv, yv)
            for g, t, yy in zip(got, true_l, yv):
                tv = t - mpmath.mpf(float(yy))
                # (within 4 bits of the result or 2**-(2p - 12) of log1p(u): a
                # pair exp of -600 holds 100 bits; the float log1p, p bits)
                tol = max(abs(tv) * 2.0 ** -(nmant - 4), abs(t) * 2.0 ** -(2 * nmant - 10))
                assert abs(mpmath.mpf(float(g)) - tv) <= tol, (u, g, tv)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_max_and_min_of_pairs_keep_the_pair(dtype):
    # Max(x*x - z, 0)**2 - y (the asymmetric loss's Max(p - 1/20, 0)**4 near
    # its kink): x*x - z holds ~p + 20 bits, the pair all of them; y the float
    # nearest its square, so the truth is that square's rounding error. Max
    # and Min took the pair rounded to one float (the truth's sign lost)
    import mpmath

    dt = np.dtype(dtype)
    nmant = np.finfo(dt).nmant
    rng = np.random.default_rng(7)
    xs = rng.uniform(1, 2, 8).astype(dt)
    zs = ((xs * xs) * dt.type(1 - 2.0**-20)).astype(dt)
    with mpmath.workprec(300):
        pm = [mpmath.mpf(float(a)) ** 2 - mpmath.mpf(float(b)) for a, b in zip(xs, zs)]
        ys = np.array([float(v * v) for v in pm], dt)
        for e in (sp.Max(x * x - y, 0) ** 2 - t, sp.Min(y - x * x, 0) ** 2 - t):
            got = lambdify([x, y, t], compensated(e), dtype=dtype)(xs, zs, ys)
            for g, v, yy in zip(got, pm, ys):
                tv = v * v - mpmath.mpf(float(yy))
                tol = max(abs(tv) * 2.0 ** -(nmant - 4), v * v * 2.0 ** -(2 * nmant - 10))
                assert abs(mpmath.mpf(float(g)) - tv) <= tol, (e, g, tv)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_difference_of_exp_or_log_and_an_input_keeps_its_bits(dtype):
    # exp(x) - y where x = log(y) (rounded): the truth is exp's rounding
    # error; plain code gives 0 or a multiple of an ulp of y
    import mpmath
    from sympy.codegen.cfunctions import expm1

    dt = np.dtype(dtype)
    ys = np.array([3.0, 50.0, 1e-3, 97.3, 1e-17], dt)
    on_line = np.log(ys.astype(np.float64)).astype(dt)
    with mpmath.workprec(200):
        for e, truth, xs in (
                (sp.exp(x) - y, lambda a, b: mpmath.exp(a) - b, on_line),
                (sp.log(y) - x + 1, lambda a, b: mpmath.log(b) - a + 1, on_line + 1),
                (expm1(x) - y + 1, lambda a, b: mpmath.expm1(a) - b + 1, on_line)):
            if e.has(expm1):  # (y = 1e-17: the sum cancels 2**-106 deep, past pairs)
                xs, ys_ = xs[:-1], ys[:-1]
            else:
                ys_ = ys
            got = lambdify([x, y], compensated(e), dtype=dtype)(xs, ys_)
            plain = lambdify([x, y], e, dtype=dtype)(xs, ys_)
            lost = 0
            for a, b, g, q in zip(xs, ys_, got, plain):
                tv = truth(mpmath.mpf(float(a)), mpmath.mpf(float(b)))
                # (within 4 bits: the cancellation is 2**-25 deep in float32, pairs
                # of it hold 48 bits; plain code keeps 8 bits at most)
                assert abs(mpmath.mpf(float(g)) - tv) <= abs(tv) * 2.0 ** -(np.finfo(dt).nmant - 4)
                lost += abs(mpmath.mpf(float(q)) - tv) > abs(tv) * 2.0 ** -8
            assert lost >= 3, e  # (plain code loses most of them: the test can fail)


# the overflow guards the domain's interval bounds rule out (codegen's
# _dd_ok): the same values, bitwise, as the guarded code, over the domain;
# JAX and PyTorch: tests/export/test_jax.py, test_torch.py (same cases)
_u = sp.sqrt(8 / sp.pi) * (x + sp.Rational(44715, 10**6) * x**3)  # GELU-tanh's exponent
BOUNDED_CASES = [
    ([x], sp.Abs(compensated(_u)), {x: (-1e4, 1e4)}),
    ([x, y], compensated(x * y - sp.Rational(1, 3) * x**3 * y + x**2 / 10),
     {x: (-50, 50), y: (-1e6, 1e6)}),
    # a function of a pair (first order: _dd_fun_b), its value and partials bounded
    ([x], compensated(sp.exp(-sp.Abs(_u))), {x: (-1e4, 1e4)}),
    # (tanh: sin and cos of pairs are computed as pairs, _dd_sincos)
    ([x, y], compensated(sp.tanh(sp.pi * x * y / 180) + x), {x: (-50, 50), y: (-1e3, 1e3)}),
]


def bounded_points(n, domain, dtype):
    """Points over each symbol's interval: uniform, normal(0, 3), magnitudes
    log-uniform down to the subnormals, the ends and zeros of both signs."""
    rng = np.random.default_rng(7)
    tiny = float(np.finfo(dtype).smallest_subnormal)
    cols = []
    for lo, hi in domain.values():
        mag = np.exp(rng.uniform(np.log(tiny), np.log(hi), n)) * rng.choice([-1, 1], n)
        v = np.concatenate([rng.uniform(lo, hi, n), rng.normal(0, 3, n), mag,
                            [lo, hi, 0.0, -0.0, tiny, -tiny]])
        cols.append(rng.permutation(v).astype(dtype))
    return cols


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(BOUNDED_CASES)))
def test_guards_left_out_by_the_domain_give_the_same_values(case, dtype):
    syms, expr, domain = BOUNDED_CASES[case]
    guarded, bounded = (lambdify(syms, expr, stabilize=True, domain=d) for d in (None, domain))
    assert "_dd_mul(x, x, " in bounded.source or "_dd_prod_b(" in bounded.source \
        or bounded.source.count("_dd_fun_b(") > guarded.source.count("_dd_fun_b(")
    cols = bounded_points(300, domain, dtype)
    np.testing.assert_array_equal(bounded(*cols), guarded(*cols), strict=True)


def test_no_bound_past_the_types_range():
    # |x**3| up to 1e600: no k (the guards stay); up to 1e300: k = 997 (the power's
    # bound, for each of its products), which
    # the helpers compare with the working type's limit at run time
    e = compensated(x**3 - 3 * x)
    assert "_dd_mul(x, x)" in lambdify([x], e, stabilize=True, domain={x: (-1e200, 1e200)}).source
    f = lambdify([x], e, stabilize=True, domain={x: (-1e100, 1e100)})
    assert "_dd_mul(x, x, 997)" in f.source
    v = np.array([1e100, -3e99, 2.5])
    np.testing.assert_array_equal(f(v), lambdify([x], e, stabilize=True)(v))


def test_a_nan_bound_is_no_bound():
    # max() with a NaN depends on the order: a NaN end must not lose a bound
    from symgrad.codegen.compensating import _Copy
    from symgrad.rewrites.facts import Facts

    cp = _Copy(Facts({x: (-1, 1)}))
    cp.facts._memo[x + 7] = (float("nan"), 1.0)
    assert cp._size(x + 7) == float("inf") and cp._size(x) == 1.0
    assert cp._k((x + 7) * x, True) == ()  # (max(1.0, nan) is 1.0: it was (1,))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sin_cos_tan_atan_of_pairs_to_twice_the_precision(dtype):
    # _dd_sincos / _dd_atan: floats and pairs (x + 2^-(p+7) x, p the type's
    # bits) against mpmath, at |x| up to 2**(p/2) (beyond: the first order)
    import mpmath

    from symgrad.codegen import compensated_helpers as h

    t = np.dtype(dtype).type
    rng = np.random.default_rng(3)
    top = 1e5 if dtype == "float64" else 2e3
    xs = np.concatenate([rng.uniform(-4, 4, 6), rng.uniform(-top, top, 6),
                         [np.pi / 2, 3 * np.pi / 4, 1e-30, -7.725251836937707]]).astype(t)
    pairs = (xs, (xs * t(2.0 ** -(np.finfo(t).nmant + 8))).astype(t))
    limit = 2.0 ** (-100 if dtype == "float64" else -44)
    with mpmath.workprec(260):
        for a in (xs, pairs):
            args = [mpmath.mpf(float(v)) for v in xs] if a is xs else \
                [mpmath.mpf(float(v)) + mpmath.mpf(float(w)) for v, w in zip(*pairs)]
            for f, g in ((h._dd_sin, mpmath.sin), (h._dd_cos, mpmath.cos),
                         (h._dd_tan, mpmath.tan), (h._dd_atan, mpmath.atan)):
                hi, lo = f(a)
                assert hi.dtype == lo.dtype == np.dtype(dtype)
                for u, v, w in zip(hi, lo, args):
                    want = g(w)
                    got = mpmath.mpf(float(u)) + mpmath.mpf(float(v))
                    assert abs(got - want) <= limit * abs(want), (f.__name__, w, got, want)
    # a tiny r: sin(r) = r - r³/6 with the r³/6 in the low part (x + sin(y) at
    # x = -y = 4.7e-52 is -y³/6: a shortcut sin(r) = (r, 0) lost all of it)
    r = t(4.6751102492310165e-52 if dtype == "float64" else 3.1e-12)
    hi, lo = h._dd_sin(np.array([r]))
    with mpmath.workprec(400):
        cube = mpmath.sin(mpmath.mpf(float(r))) - mpmath.mpf(float(r))
        assert abs(float(hi[0]) - float(r)) + abs(mpmath.mpf(float(lo[0])) - cube) \
            <= abs(cube) * 2.0**-20


@pytest.mark.parametrize("dtype", ["float64", "longdouble"])
def test_sin_cos_of_pairs_past_the_short_reduction(dtype):
    # _dd_sincos from 2**(p-2) on (2**50 in the long double): Payne-Hanek, a
    # pair's hi and lo reduced together.  Before: f(hi) + f'(hi) lo, lo
    # dropped past 1 (sin(x + e) - sin(x) at x = 2.7e85 in pairs: 45.5 bits,
    # NMSE 3.3), and in the long double sin(1e18) = -1.8e18
    import mpmath

    from symgrad.codegen import compensated_helpers as h

    t = np.dtype(dtype).type
    f = np.finfo(t)
    rng = np.random.default_rng(4)
    xs = np.ldexp(rng.uniform(1, 2, 8), rng.integers(f.nmant - 1, min(f.maxexp, 1024), 8))
    xs = np.concatenate([xs, -xs[:2], [1e18]]).astype(t)
    los = (xs * t(2.0 ** -(f.nmant + 2)) * rng.uniform(-1, 1, len(xs))).astype(t)
    cases = [(v, None) for v in xs] + list(zip(xs, los))
    if dtype == "float64":  # 4.7e-19 from a multiple of pi/2; cos(hi + lo) ~ -4e-18
        cases += [(6381956970095103 * 2.0**797, None), (2.7213554757554994e85, -0.7121884169600512)]
    limit = {"float64": 2.0**-100, "longdouble": 2.0**-105}[dtype]

    def mp(v):
        m, e = np.frexp(t(v))
        return mpmath.ldexp(int(np.ldexp(m, 64)), int(e) - 64)

    with mpmath.workprec(300):
        for hi, lo in cases:
            arg = np.array([hi], dtype=t) if lo is None else \
                (np.array([hi], dtype=t), np.array([lo], dtype=t))
            w = mp(hi) if lo is None else mpmath.fadd(mp(hi), mp(lo), exact=True)
            for got, g in zip(h._dd_sincos(arg), (mpmath.sin, mpmath.cos)):
                assert got[0].dtype == np.dtype(dtype)
                want = g(w)
                assert abs(mp(got[0][0]) + mp(got[1][0]) - want) <= limit * abs(want), \
                    (g, hi, lo, got, want)
    # NMSE 3.3's sine difference at its witness (2**-57 deep), the same as a
    # product (cos of the pair x + e/2 near its zero), and a cosine difference
    # at a float 4.7e-19 from a multiple of pi/2: within 2 ulps in pairs
    e = sp.Symbol("e")
    for expr, at in ((sp.sin(x + e) - sp.sin(x), (2.7213554757554994e85, -1.4243768339201024)),
                     (2 * sp.cos(x + e / 2) * sp.sin(e / 2),
                      (2.7213554757554994e85, -1.4243768339201024)),
                     (sp.cos(x + e) - sp.cos(x), (6381956970095103 * 2.0**797, 1e-30)),
                     # x + e past the largest float: the pair sum is (-inf, nan), and
                     # the terms' floats are reduced together (NaN before); and below
                     # it, where TwoSum's own s - a overflows and its error term is
                     # dropped (0.594 for -32.1 before)
                     (sp.tan(x + e) - sp.tan(x), (-5.7239e307, -1.2253e308)),
                     (sp.tan(x + e) - sp.tan(x), (-5.708826546071935e307, 1.7976931348623157e308))):
        if dtype != "float64":
            break
        with mpmath.workprec(1200):  # (x + e exact)
            want = float(sp.lambdify([x, e], expr, "mpmath")(mp(at[0]), mp(at[1])))
        got = float(lambdify([x, e], compensated(expr))(*at))
        assert abs(got - want) <= 4 * np.spacing(abs(want)), (expr, got, want)


@pytest.mark.parametrize("expr, at", [
    # 1/x - cot(x) at the zeros of tan(x) = x (NMSE example 3.9's second zero on)
    (1 / x - sp.cos(x) / sp.sin(x), [4.493409457909064, -7.725251836937707, 10.904121659428899]),
    (1 / x - 1 / sp.tan(x), [4.493409457909064, 14.066193912831473]),
    # atan's value added to a large angle inside cos, near its zeros
    # (FPBench's instantaneousCurrent: cos(2 pi f t + atan(...)))
    (sp.cos(x + sp.atan(y)), [(1.4509e5 + 0.4e-3, 0.5), (1570.0 + 0.2, 1.3)]),
])
def test_a_functions_own_rounding_is_undone_in_pairs(expr, at):
    # f(hi) + f'(hi)·lo left sin/cos/tan/atan's own rounding, which the
    # cancellation after it amplified (46-50 bits at the points below)
    import mpmath

    syms = [x] if isinstance(at[0], float) else [x, y]
    f = lambdify(syms, compensated(expr), stabilize=True)
    g = sp.lambdify(syms, expr, "mpmath")
    for p in at:
        p = (p,) if len(syms) == 1 else p
        if len(syms) == 2:  # the float nearest a zero of cos(x + atan(y)) along x
            with mpmath.workprec(300):
                z = (mpmath.mpf(int(p[0] / mpmath.pi + 0.5)) - 0.5) * mpmath.pi \
                    - mpmath.atan(p[1])
            p = (float(z), p[1])
        else:  # the float nearest the zero of tan(x) = x beside it
            with mpmath.workprec(300):
                p = (float(mpmath.findroot(lambda v: mpmath.tan(v) - v, p[0])),)
        got = float(f(*[np.array([v]) for v in p])[0])
        with mpmath.workprec(600):
            want = g(*[mpmath.mpf(v) for v in p])
        assert abs(got - want) <= 4 * 2.0**-53 * abs(want), (p, got, want)


_L = sp.codegen.cfunctions.log1p(sp.exp(-sp.Abs(x)))


@pytest.mark.parametrize("expr, plain, measure", [
    # mish's gradient's exp(-|2 softplus(x)|): log1p(exp(-|x|)) is in (0, 0.69], its
    # float rounding at most 1.7 roundings of 1 (x2: 3.4 <= PLAIN_TERM_ULPS): floats
    (sp.exp(-sp.Abs(2 * _L + 2 * sp.Max(0, x))), True, True),
    # siblings: a log-sigmoid-like exponent; the term scaled by 8 (13.5 roundings: pairs)
    # (their accuracy: as mish's, measured once)
    (sp.exp(-sp.Abs(x) - _L), True, False),
    (sp.exp(x / 4 - 8 * _L), False, False),
])
def test_small_terms_of_an_exponent_stay_in_floats(expr, plain, measure, monkeypatch):
    # exp(A) in pairs is exp(hi)(1 + lo): its relative error is A's absolute
    # error, which a term below 1 computed in floats raises by a rounding or
    # two; the pair exp and pair log1p it would cost are most of the code
    import symgrad.codegen.compensating as comp

    body = numpy_code([x], compensated(expr)).split("def f(")[1]
    assert ("_dd_log1p(" not in body and "_dd_exp(" not in body) == plain
    if not measure:
        return
    cols = [np.concatenate([np.linspace(-40, 40, 81), [-700.0, 700.0, 1e-300, 0.0]])]
    fmt = float_format("float64")
    true = GroundTruth([expr], [x]).batch(np.stack(cols, axis=1))[0][0]
    bits = [bits_error(generated([x], [compensated(expr)], np.float64)(*cols)[0], true, fmt)]
    monkeypatch.setattr(comp, "PLAIN_TERM_ULPS", -1.0)  # every term in pairs
    bits.append(bits_error(generated([x], [compensated(expr)], np.float64)(*cols)[0], true, fmt))
    assert bits[0].max() <= bits[1].max() + 1.0 and bits[0].max() <= 2.0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_pair_times_a_power_of_two_literal_is_twoproducts_pair(dtype):
    """_dd_mul by a literal ±2**j (the exact splits' 1/64, 1/8192, -1/2, 2) skips
    Dekker's splits: the same pair, bit for bit, as TwoProduct by the same
    constant as an array scalar (the general path), for floats and pairs,
    with guards (k None) and without them inside their bound, at zeros,
    subnormals, overflow, inf and NaN."""
    from symgrad.codegen import compensated_helpers as h

    dt = np.dtype(dtype)
    bits = np.int64 if dt.itemsize == 8 else np.int32
    fi, rng = np.finfo(dt), np.random.default_rng(5)
    v = (rng.uniform(-1, 1, 300) * 2.0 ** rng.integers(fi.minexp - fi.nmant, fi.maxexp, 300))
    v = np.concatenate([[0.0, -0.0, np.inf, -np.inf, np.nan, fi.max, fi.tiny, 1.0, -3.0], v])
    small = rng.uniform(-4, 4, 300)  # inside the bound k = 11 with |c| <= 64
    with np.errstate(all="ignore"):
        for xs, k in ((v.astype(dt), None), (small.astype(dt), 11)):
            pair = h._dd_two_sum(xs, (xs[::-1] * 2.0**-30).astype(dt))
            for c in (2, -0.5, 64, -1 / 8192, 2.0**-60):
                for arg in (xs, pair):
                    got, want = h._dd_mul(c, arg, k), h._dd_mul(arg, dt.type(c), k)
                    for g, w in zip(got, want):
                        assert g.dtype == dt and np.array_equal(g.view(bits), w.view(bits)), (c, k)


def test_a_pair_quotient_just_under_the_overflow_threshold_is_the_largest_float():
    """The pair quotient is rounded once, at the end: a0/b0 overflowed where
    the quotient of the pairs is under the threshold max + ulp/2 (b0 rounded
    below b), and the pair read inf (NMSE 3.4.2's one-ulp overflow, counted
    64 bits); over it, inf still. Float64 pairs, exact values by mpmath."""
    import mpmath

    from symgrad.codegen import compensated_helpers as h

    big = np.finfo(np.float64).max
    a = (np.array([big, big]), np.array([-(2.0**969), 2.0**969]))  # max(1 -+ 2**-55)
    b = (np.array([1 - 2.0**-53] * 2), np.array([2.0**-54 - 2.0**-70] * 2))
    got = h._dd_out(h._dd_div(a, b))
    m = mpmath.mpf
    with mpmath.workprec(300):
        threshold = m(2) ** 1024 - m(2) ** 970
        exact = [(m(a[0][i]) + m(a[1][i])) / (m(b[0][i]) + m(b[1][i])) for i in range(2)]
        assert exact[0] < threshold < exact[1]
    assert got[0] == big and got[1] == np.inf
    assert np.all(np.isinf(a[0] / b[0]))  # (the plain quotient of the high parts overflows)


def test_twosum_keeps_its_error_term_in_the_top_binade():
    """TwoSum's s - a overflows where a and b have opposite signs, |b| is near
    the largest float and s is finite; its error term was then NaN, dropped
    to 0 (the pair 1 ulp off, silently). Fast2Sum ordered by magnitude there:
    the exact low part, from either order; inf + finite keeps its 0."""
    from symgrad.codegen import compensated_helpers as h

    big = np.finfo(np.float64).max
    a = np.array([-5.708799999999999e307, -8.012744671936522e307, 1.0, -np.inf])
    b = np.array([big, big, 2.0**-60, 1.0])
    want = [-9.9792015476736e291, -9.9792015476736e291, 2.0**-60, 0.0]
    with np.errstate(all="ignore"):
        for x, y in ((a, b), (b, a)):
            s, e = h._dd_two_sum(x, y)
            assert list(e) == want and np.array_equal(s, x + y), (x, y, e)


def test_hypot_in_pairs_keeps_twice_the_precision():
    """hypot inside compensated() is a pair (scaled, the pair root of the pair
    sum of squares): hypot(x, y) - x keeps y**2/(2x); the float hypot of the
    high parts to first order rounded 1 + 5e-17 to 1 (0 for 5e-17), and
    TNG's eigenvalue, a quotient by a sum of hypots, read inf where its value
    is the largest float. From the smallest floats to the largest, by mpmath."""
    import mpmath

    x, y = sp.symbols("x y", real=True)
    f = lambdify([x, y], compensated(sp.sqrt(x**2 + y**2) - x))
    xs = np.array([1.0, 3.0, 0.75, 1e300, -1e300, 3e-300, 5e-324, 0.0])
    ys = np.array([1e-8, 2e-7, 1e-9, 3e292, 1e300, 4e-308, 5e-324, 0.0])
    with mpmath.workprec(300):
        want = [float(mpmath.sqrt(mpmath.mpf(a) ** 2 + mpmath.mpf(b) ** 2) - a)
                for a, b in zip(xs, ys)]
    got = f(xs, ys)
    assert np.all(np.abs(got - want) <= np.abs(want) * 2.0**-52), (got, want)


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="no type wider than float64")
def test_a_long_double_pair_rounds_once_when_cast_to_float64():
    """A pair of long doubles (compensated inside widen) is rounded to odd, so
    that the cast to float64 rounds the pair's value once: rounded to nearest,
    1 + 2**-53 + 2**-70 became the tie 1 + 2**-53, then 1 by ties to even."""
    from symgrad.codegen import compensated_helpers as h

    ld = np.longdouble
    hi = np.array([1 + ld(2) ** -53] * 3)
    lo = np.array([ld(2) ** -70, -(ld(2) ** -70), ld(0)])
    want = [1 + 2.0**-52, 1.0, 1.0]  # over the tie, under it, on it (ties to even)
    assert list(np.asarray(h._dd_out((hi, lo)), np.float64)) == want


def test_sin_and_cos_of_one_argument_share_one_sincos():
    """sin(u) and cos(u) in one compensated form are one _dd_sincos call
    (eager NumPy and PyTorch repeat a call XLA would merge: the pair
    gradient of x tanh x + sin(x)**2 took 3.05 -> 2.07 s per 10^6 in
    torch), and the same pairs as _dd_sin / _dd_cos, bit for bit."""
    from symgrad.codegen import compensated_helpers as h

    x = sp.Symbol("x", real=True)
    f = lambdify([x], compensated(2 * sp.sin(x) * sp.cos(x) - sp.sin(2 * x) + x))
    assert "_dd_sincos(x)" in f.source  # (once in each kernel of the source)
    assert "_dd_sin(x)" not in f.source and "_dd_cos(x)" not in f.source
    v = np.array([0.1, 1.0, 3.0, 1e5, 2.0**-1070])
    assert np.array_equal(h._dd_sincos(v)[0][1], h._dd_sin(v)[1])
    assert np.array_equal(h._dd_sincos(v)[1][0], h._dd_cos(v)[0])
    with np.errstate(all="ignore"):
        got = f(v)
    assert np.array_equal(got, v)  # 2 sin x cos x - sin 2x cancels in pairs: x is left


def test_exact_integer_products_stay_floats():
    """A product of integers (floor, ceiling, integer numbers) at most 2**24
    over the bounds, times a power of two, is exact in every float type:
    computed as a float, not a pair of (value, 0), and a function of it is
    the function of that float (GELU-erf's exp(-k**2/8192) at
    k = floor(64 min(64, |x|)): its stabilized gradient 8-15% less CPU in
    JAX and PyTorch, values bitwise the same on 1.6e6 outputs)."""
    import mpmath

    x = sp.Symbol("x", real=True)
    k = sp.floor(64 * sp.Min(64, sp.Abs(x)))
    f = lambdify([x], compensated(x * sp.exp(-k**2 / 8192) - 1))
    # unbounded, floor(64 x)**2 may round: the exp of its pair, to first order
    g = lambdify([x], compensated(x * sp.exp(-sp.floor(x * 64) ** 2 / 8192) - 1))
    # k**2 as a float, not _dd_prod(c, k, k) (the helpers' text is the same in both)
    assert f.source.count("_dd_mul(") + f.source.count("_dd_prod(") \
        < g.source.count("_dd_mul(") + g.source.count("_dd_prod(")
    v = np.array([0.3, 1.7, 20.0, 63.9, 1e4])
    e = np.exp(-np.floor(64 * np.minimum(64, v)) ** 2 / 8192)
    with mpmath.workprec(300):
        want = [float(mpmath.mpf(float(a)) * mpmath.mpf(float(b)) - 1) for a, b in zip(v, e)]
    assert np.array_equal(f(v), want)


@pytest.mark.parametrize("dtype, row, true", [
    # heldout_e row 31 (the triplet loss's gradient) in float32: y subnormal, z = 0
    (np.float32, (-76.32685852050781, -3.673719724191014e-39, 0.0), 2 * 3.673719724191014e-39),
    (np.float64, (-76.3, -3.67e-310, 0.0), 2 * 3.67e-310),
    (np.float32, (3e5, 2.5e-40, 0.0), -2 * float(np.float32(2.5e-40))),
])
def test_a_pairs_subnormal_low_part_survives_a_product(dtype, row, true):
    # 2*(x - y)*H - 2*(x - z)*H in pairs is exactly 2*(z - y) where H = 1: the
    # pair (x, -y) times 2 and H keeps its low part; scaled with its high
    # part's exponent (by 2**-7 at x = -76.3) it fell deep into the
    # subnormals and rounded (428 spacings off in float32; 0.0 at x = 3e5)
    x, y, z = sp.symbols("x y z", real=True)
    h = sp.Heaviside((x - y)**2 - (x - z)**2 + 1)
    e = sp.Add(sp.Mul(2, x - y, h, evaluate=False), sp.Mul(-2, x - z, h, evaluate=False),
               evaluate=False)
    f = lambdify([x, y, z], compensated(e), dtype=dtype)
    got = f(*[np.array([v], dtype=dtype) for v in row])[0]
    assert got == dtype(true)


@pytest.mark.parametrize("t", [np.float64, np.float32, np.longdouble])
def test_twoproduct_of_a_factor_next_to_the_largest_float_keeps_its_error_term(t):
    # Dekker's split of a factor in the top 2^-(p - s) of the range (scaled
    # down, split, scaled back) rounded its high half up past the largest
    # float: inf, the error term NaN, dropped as 0 (in 4, 200 and 2 of these
    # 200 products in float64, float32 and the long double); exp(a*x) - 1 at
    # a*x = 709.78 (FPBench's NMSE section 3.5) kept 44 of 53 bits.  The high
    # half is truncated there instead: the exact error term.  Siblings: the
    # top 12 binades, below and above the scaled split's bound (max/(2^s + 1))
    from symgrad.codegen.compensated_helpers import _dd_two_prod

    rng = np.random.default_rng(3)
    fi = np.finfo(t)
    top = fi.max * (1 - rng.uniform(0, 2.0**-20, 200).astype(t))
    binades = np.ldexp(rng.uniform(0.5, 1, 200).astype(t),
                       rng.integers(fi.maxexp - 12, fi.maxexp, 200))
    a = np.concatenate([top, binades]) * np.where(np.arange(400) % 2, t(1), t(-1))
    a[:2] = fi.max, -fi.max
    b = rng.uniform(0.01, 0.99, 400).astype(t)
    with np.errstate(over="raise", invalid="raise"):
        p, e = _dd_two_prod(a, b)
    exact = [F(*u.as_integer_ratio()) * F(*v.as_integer_ratio()) - F(*w.as_integer_ratio())
             for u, v, w in zip(a, b, p)]
    assert [F(*v.as_integer_ratio()) for v in e] == exact


def test_expm1_of_a_product_next_to_the_overflow_threshold_keeps_its_bits():
    # FPBench's NMSE section 3.5 point, and siblings (other factors whose
    # product is near log(max), one in the top 2^-26 of the range): 8.6-9.4
    # bits lost with the error term dropped; expm1 at the root is f(hi) +
    # f'(hi) lo, within an ulp
    from sympy.codegen.cfunctions import expm1

    f = lambdify([a, x], compensated(expm1(a * x)))
    v = np.array([1.7976931348623071e308, 1.797693134862315e308, 1.7976931348623157e308,
                  -1.7976931348623157e308])
    u = np.array([3.948297399198478e-306, 3.9482973991984e-306, 3.8e-306, -3.7e-306])
    with mpmath.workprec(300):
        want = np.array([float(mpmath.expm1(mpmath.mpf(p) * mpmath.mpf(q))) for p, q in zip(u, v)])
    assert np.all(np.abs(f(u, v) - want) <= np.spacing(want))


_PI_TRIG = [(sp.sin, sp.Rational(1, 180), True), (sp.cos, sp.Integer(1), True),
            (sp.tan, sp.Rational(-1, 4), True), (sp.sin, sp.Rational(3, 2), False),
            (sp.cos, sp.Rational(1, 3), False), (sp.tan, sp.Integer(2), False)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_trig_of_a_rational_multiple_of_pi_is_reduced_in_its_own_units(dtype):
    # sin, cos, tan of r*pi*x (r rational): the pair of r*pi holds pi to 2p
    # bits, so r*pi*x in pairs was off by ~2**-2p of itself, whole radians
    # past ~2**p (cos(pi*x/180) at float32's x = 3.4e38: 1e22 radians, 22-24
    # bits lost, as the plain code); x is reduced modulo 2/r (or 2q, r = p/q)
    # first, exactly (fmod).  Siblings: three functions, six scalings, at the
    # root (first order) and inside a product, x over every binade and the
    # top of the range.  Exact oracle: t = r*x mod 2 in rationals, sin(pi t)
    # and cos(pi t) by mpmath.  (Left out: t an odd multiple of 1/2, zeros
    # and poles the pairs' pi misses by ~2**-2p, as at small x: sinpi's)
    from fractions import Fraction

    from symgrad.stability.bits import FORMATS

    rng = np.random.default_rng(7)
    mx = float(np.finfo(dtype).max)
    xs = np.concatenate([10 ** rng.uniform(0, np.log10(mx), 120),
                         mx * (1 - rng.uniform(0, 1e-3, 8)), rng.uniform(-720, 720, 8)])
    xs = xs * np.where(rng.uniform(size=136) < 0.5, 1, -1)
    xs = xs.astype(dtype)
    exprs = [f(r * sp.pi * x) * (1 if root else y) for f, r, root in _PI_TRIG]
    plain = lambdify([x, y], exprs, dtype=dtype)(xs, np.ones_like(xs))
    got = lambdify([x, y], [compensated(e) for e in exprs], dtype=dtype)(xs, np.ones_like(xs))
    fmt = FORMATS[np.dtype(dtype).name]
    lost = []
    for (f, r, _), p, g in zip(_PI_TRIG, plain, got):
        ts = [Fraction(float(v)) * Fraction(int(r.p), int(r.q)) % 2 for v in xs]
        keep = np.array([t == 0 or (2 * t).denominator != 1 for t in ts])
        with mpmath.workprec(80):
            s = [mpmath.sinpi(mpmath.mpf(t.numerator) / t.denominator) for t in ts]
            c = [mpmath.cospi(mpmath.mpf(t.numerator) / t.denominator) for t in ts]
            true = np.array([float({sp.sin: u, sp.cos: v}.get(f, u / v if v else 0))
                             for u, v in zip(s, c)])
        assert bits_error(g, true, fmt)[keep].max() <= 1.0, f
        lost.append(bits_error(p, true, fmt)[keep].max())
    assert min(lost) > 20  # (the plain code's)
