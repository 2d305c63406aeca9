"""symgrad.export.jax_ops: the functions generated JAX code computes in
operations XLA vectorizes, as accurate as jax.scipy.special's."""

import re

import mpmath
import numpy as np
import sympy as sp

from ..backends import jax, jnp
from .pair_exp_oracle import check_pair_exp


def test_erf_series_coefficients_are_erfs_taylor_coefficients():
    from symgrad.export.jax_ops import ERF_SERIES, ERF_SERIES_UP_TO

    with mpmath.workprec(200):
        c = 2 / mpmath.sqrt(mpmath.pi)
        exact = [c * (-1) ** n / (mpmath.factorial(n) * (2 * n + 1)) for n in range(40)]
        exact[0] -= 1
        assert [float(e) for e in exact[:len(ERF_SERIES)]] == list(ERF_SERIES)
        z = mpmath.mpf(ERF_SERIES_UP_TO) ** 2  # the first term left out is negligible
        assert abs(exact[len(ERF_SERIES)]) * z ** len(ERF_SERIES) < mpmath.mpf(2) ** -60


def test_tanh_to_about_an_ulp_where_xlas_is_six_off():
    # XLA's float64 tanh is 6.5 ulps off near x = 19 (float32 3.8): measured on
    # 9,000 points, export.jax_ops.tanh 1.17 (float32 1.09); generated code calls
    # it (test_jax.py::test_source_is_jax_numpy)
    from symgrad.export.jax_ops import tanh

    rng = np.random.default_rng(0)
    with jax.enable_x64():
        for dtype in (np.float64, np.float32):
            pts = np.concatenate([rng.uniform(-1, 1, 40), rng.uniform(-25, 25, 40),
                                  [19.051121774928774, -8.001136779785156, 0.625, 1e-30]]
                                 ).astype(dtype)
            # the edges in the same call (one kernel per type)
            got = np.asarray(tanh(jnp.asarray(np.append(
                pts, np.array([-0.0, 0.0, np.inf, -np.inf, np.nan], dtype)))))
            got, edges = got[:-5], got[-5:]
            assert got.dtype == dtype
            with mpmath.workprec(120):
                err = np.array([float(abs(mpmath.mpf(float(g)) - mpmath.tanh(mpmath.mpf(float(p)))))
                                for g, p in zip(got, pts)])
            true = np.tanh(pts.astype(float)).astype(dtype)
            assert (err / np.spacing(np.abs(true)).astype(float)).max() <= 1.2
            np.testing.assert_array_equal(edges, [-0.0, 0.0, 1.0, -1.0, np.nan])
            assert np.signbit(edges[0]) and not np.signbit(edges[1])


def test_log1p_within_an_ulp_in_both_types():
    # XLA's float64 log1p is 128 ulps off at x in [-0.414, -0.352] (measured on
    # 52,000 points; export.jax_ops.log1p 0.80, float32 0.80) and cost mish's fused
    # gradient kernel 12.6 ms of 28.4 per 10^6: generated code calls this one
    import sympy as sp

    import symgrad
    from symgrad.export.jax_ops import log1p

    rng = np.random.default_rng(1)
    pts = np.concatenate([rng.uniform(-1, 1, 30), np.exp(rng.uniform(-80, 80, 30)),
                          [np.sqrt(2) - 1, np.nextafter(np.sqrt(2) - 1, 1), -0.5, 3e-17]])
    with jax.enable_x64():
        for dtype in (np.float64, np.float32):
            p = pts.astype(dtype)
            got = np.asarray(log1p(jnp.asarray(p)))
            assert got.dtype == dtype
            with mpmath.workprec(120):
                err = np.array([float(abs(mpmath.mpf(float(g)) - mpmath.log1p(float(v))))
                                for g, v in zip(got, p)])
            true = np.log1p(p.astype(float)).astype(dtype)
            assert (err / np.spacing(np.abs(true)).astype(float)).max() <= 1.0
        # JAX's autodiff of lambdify(..., backend="jax") code, which calls it: log1p's
        # derivative (the exponent bits alone have none: 0.0 without the custom_jvp)
        x = sp.Symbol("x")
        assert "_jg.log1p(" in symgrad.lambdify([x], sp.log(1 + x), backend="jax").source
        assert float(jax.grad(log1p)(0.5)) == 1 / 1.5
    # half types are XLA's own (the exponent bits read as float32's gave 1.1 at 0.5)
    half = np.asarray(log1p(jnp.asarray([0.5, 3.0], jnp.float16)), np.float64)
    np.testing.assert_allclose(half, np.log1p([0.5, 3.0]), rtol=2e-3)


def test_pair_arithmetic_keeps_its_error_terms_under_xlas_default_flags():
    # XLA's defaults (users' jax.jit; not the tests' level 0) fuse a product into
    # the sum that reads it: TwoProduct's rounded p became exact inside the next
    # TwoSum or a0 - p (division, square root), whose error terms then counted the
    # product's error twice; and its algebraic simplifier (every level) folds
    # (c + x) - c into x, which zeroed TwoSum's error where the constant came
    # first. Pairs were floats there (x*x - y*y near x = y: 2**-14 of relative
    # error, 2**-104 in NumPy's pairs). The helpers generated JAX code carries,
    # compiled at XLA's defaults, give NumPy's pairs bitwise (float64; the guards
    # do not depend on the type)
    from symgrad.codegen.compensating import COMPENSATED_HELPERS
    from symgrad.export.printers import HEADERS
    from symgrad.export.source import _pair_helpers

    from .conftest import XLA_DEFAULTS

    jx, npy = {}, {}
    exec(HEADERS["jax"] + _pair_helpers("jax"), jx)  # noqa: S102 (symgrad's own text)
    exec("import numpy as np\n" + COMPENSATED_HELPERS, npy)  # noqa: S102

    def pairs(h, x, y):
        # ((x + 1) - 1 in pairs: two TwoSums, whose (x + 1) + -1 XLA folded into x,
        # the pair log1p's u - 1: log1p(x)/x at 1e-20 was 0)
        return (h["_dd_add"](h["_dd_mul"](x, x), h["_dd_neg"](h["_dd_mul"](y, y))),
                h["_dd_add"](x, 1.0), h["_dd_div"](h["_dd_add"](x, 3.0), y),
                h["_dd_add"](h["_dd_add"](x, 1.0), -1.0))

    rng = np.random.default_rng(1)
    x = rng.uniform(-10, 10, 400) * 2.0 ** rng.integers(-20, 20, 400)
    y = x * (1 + rng.uniform(-1e-6, 1e-6, 400)) * rng.choice([-1, 1], 400)
    # and JAX's compensated Horner of a polynomial of one float (a pair for
    # GELU-tanh's sqrt(8/pi) (x + 0.044715 x**3): export.horner_pairs), as
    # exact as NumPy's pair arithmetic of its terms (2**-104.7 both, these points)
    with mpmath.workprec(200):
        c3, c1 = mpmath.sqrt(8 / mpmath.pi) * mpmath.mpf(44715) / 10**6, mpmath.sqrt(8 / mpmath.pi)
        cs = [(float(c), float(c - mpmath.mpf(float(c)))) for c in (c3, c1)]
    with jax.enable_x64():
        got, poly = jax.jit(lambda a, b: (pairs(jx, a, b), jx["_dd_horner"](
            a, jx["_ddc"](*cs[0], a), 0, jx["_ddc"](*cs[1], a), 0)),
            compiler_options=XLA_DEFAULTS)(x, y)
    with np.errstate(all="ignore"):
        want = pairs(npy, x, y)
    for g, w in zip(got, want):
        for part_g, part_w in zip(g, w):
            np.testing.assert_array_equal(np.asarray(part_g), part_w, strict=True)
    with mpmath.workprec(200):
        for h, lo, v in zip(*map(np.asarray, poly), x):
            exact = c3 * mpmath.mpf(v) ** 3 + c1 * mpmath.mpf(v)
            assert abs(mpmath.mpf(h) + mpmath.mpf(lo) - exact) <= 2.0**-104 * abs(exact)
    import sympy as sp

    import symgrad

    t = sp.Symbol("t", real=True)  # generated code calls it for such a polynomial
    g = symgrad.lambdify([t], symgrad.compensated(sp.exp(t - t**3 / 3)), backend="jax")
    assert "_dd_horner(t, _ddc(" in g.source
    # but not a polynomial written about a centre: its expanded coefficients are
    # ill-conditioned (compensated Horner's error ~ u + cond u**2; mish's second
    # derivative's series about 1.49 lost 16.8 bits at 2.11)
    c = 100.1
    g = symgrad.lambdify([t], symgrad.compensated(3 * (t - c) ** 7 + (t - c) ** 2),
                         backend="jax")
    assert "_dd_horner(t" not in g.source  # pair arithmetic: as NumPy's, above
    # (by _dd_horner it returned -0.0249 at t = 100.6 where the value is 0.2734)


def test_a_pair_product_of_a_tiny_and_a_large_factor_keeps_its_error_term():
    # below 2**-969 a factor's Dekker split has a subnormal low part, which XLA
    # flushes: JAX's TwoProduct dropped its error term there, where p was normal
    # (x*y - 1 in pairs at x = 1e292...1e307, y ~ 1/x: 47.4 bits lost, NumPy's
    # and PyTorch's pairs 0); now the factors are scaled by 2**512 and 2**-512
    from fractions import Fraction

    import sympy as sp

    import symgrad

    x, y = sp.symbols("x y", real=True)
    f = symgrad.lambdify([x, y], symgrad.compensated(x * y - 1), backend="jax")
    rng = np.random.default_rng(3)
    xs = 10.0 ** rng.uniform(292, 307, 40)
    ys = (1 + rng.uniform(-1e-12, 1e-12, 40)) / xs
    with jax.enable_x64():  # (the tiny factor second and first)
        got = np.asarray(jax.jit(f)(np.r_[xs, ys], np.r_[ys, xs]))
    want = [float(Fraction(a) * Fraction(b) - 1) for a, b in zip(xs, ys)] * 2
    np.testing.assert_array_equal(got, want)  # (correctly rounded: the pair is exact)


def test_pow2_is_ldexp_over_every_exponent_of_both_types():
    # pairs' exp and log scale by pow2 (exponent bits) where jnp.ldexp is a frexp
    # and a float pow: the same powers of two, inf past the largest and 0 below the
    # normal ones (XLA flushes subnormals), in both types
    from symgrad.export.jax_ops import pow2

    for dt, lo, hi in ((np.float64, -1080, 1080), (np.float32, -160, 160)):
        k = np.arange(lo, hi + 1).astype(dt)
        with jax.enable_x64():
            got = np.asarray(jax.jit(pow2)(k))
        want = np.ldexp(np.ones_like(k), k.astype(np.int32))
        want[want < np.finfo(dt).tiny] = 0
        assert got.dtype == dt
        np.testing.assert_array_equal(got, want)


def test_pair_exp_by_table_to_twice_the_precision_in_both_types(monkeypatch):
    # generated JAX code's pair exp and expm1 reduce by a table of 2**(j/256)
    # (_dd_reduced; NumPy's pairs too since session 17): exp and expm1 of
    # pairs (a low part of 0: of floats) over the whole range, against mpmath,
    # where the pair's low part is normal (XLA flushes subnormals). NumPy's pairs
    # reach 2**-100.4 in float64 and 2**-45.9 in float32 at these points, the
    # table 2**-105 and 2**-47.5 (the XLA defaults' contractions: the guards of
    # test_pair_arithmetic_keeps_its_error_terms_under_xlas_default_flags)
    def run(h, x, lo, lim):
        with jax.enable_x64():
            outs = jax.jit(lambda a, b: (h["_dd_exp"]((a, b)), h["_dd_expm1"]((a, b))))(x, lo)
        return [[np.asarray(v) for v in o] for o in outs]

    check_pair_exp("jax", monkeypatch, run)


def test_erf_erfc_and_erfcx_from_the_programs_square_and_one_erfcx():
    # GELU-erf's and log Phi's branches computed erfcx(-u) (its own exp(u**2))
    # and erf(u) or erfc(u) (XLA's erfc, its own exp(-u**2)) at every point:
    # generated code calls erf_given (erf; erfc: complement) / erfcx(v, |v|) on the
    # program's |u| and exp(-u**2), one erfcx of |u| past 1 for all.  Within
    # 1.25 ulps (erf) and 5.5 (erfc: erfcx's own 4, times the
    # square) of the exact values, both signs, both types, the square given
    # correctly rounded (stabilize's split gives it so; measured 2026-11-28 on
    # 36,000 points: 1.11 / 5.17 ulps, XLA's erf / erfc 4.5 / 491).
    # jax_ops.erf (the value programs') in the same kernel: as JAX's own
    # jsp.erf on these points (measured 2026-11-27: max 1.0, mean 0.036; a
    # fixed figure, not a second kernel).  jax_ops.erfcx too:
    # jax.scipy.special.erfcx is exp(x*x) * erfc(x) below 26.64 (9.41 in
    # float32) and XLA flushes the subnormal erfc(x) to 0 before that: 0.0 at
    # 26.6 (float32: 9.3), where erfcx is 0.0212 (0.0600).  Bounds measured on
    # 4000 points: float64 <= 4 ulps (JAX's 8.4 where not 0), float32 4.9 near
    # x = 1 (1 - erf(x) from the series; JAX's 8.9)
    import sympy as sp

    import symgrad
    from symgrad.export.jax_ops import erf, erf_given, erfcx
    from symgrad.rewrites.forms import erfcx as erfcx_node

    x = sp.Symbol("x", real=True)
    assert "_jg.erfcx(x)" in symgrad.lambdify([x], erfcx_node(x), backend="jax").source
    branches = sp.Piecewise((erfcx_node(-x) * sp.exp(-x**2), x < -1), (1 + sp.erf(x), True))
    # erfcx selected only where its argument is >= 0 (log Phi's gradient) reads
    # exp(v**2) as 1/exp(-v**2) (no exp of its own); not where it can be < 0
    # (exp(-v**2) is flushed to 0 past v = -26.6 while erfcx(v) is finite)
    only_positive = sp.Piecewise((1 / erfcx_node(-x), 2 * x < -1.6), (0, True))
    f = symgrad.lambdify([x], [branches, sp.erfc(x), only_positive, 1 / erfcx_node(x)],
                         backend="jax")
    # each call reads the program's |x| and exp(-x**2) (one node each)
    for line in ("t1 = jnp.abs(x)", "t2 = jnp.exp(-x**2)",  # (names of this source)
                 "_jg.erf_given(t0, t1, t2, complement=True)", "1 + _jg.erf_given(x, t1, t2)",
                 "t4 = _jg.erf_given(x, t1, t2, complement=True)", "_jg.erfcx(t0, t1, t2)",
                 "_jg.erfcx(x, t1)"):
        assert line in f.source
    assert "_jg.erf(" not in f.source and "jsp.erfc(" not in f.source
    assert "asymptotic" not in f.source  # erfcx of +-x in the program: its arms shared
    # one exp of a square rounded in floats (its error v**2 u/2 past 16, 128 ulps
    # and more) and no erfcx: erfcx's R/S past 16 too, no asymptotic arm
    plain = symgrad.lambdify([x], sp.erfc(x) * sp.exp(-x**2), backend="jax").source
    assert "_jg.erf_given(x, jnp.abs(x), t0, complement=True, asymptotic=False)" in plain
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.uniform(-1, 1, 300),
                        rng.uniform(1, 6.5, 300) * rng.choice([-1, 1], 300),
                        rng.uniform(6.5, 27, 40) * rng.choice([-1, 1], 40),
                        [0.0, 1.0, -1.0, np.nextafter(1.0, 2.0), 1e-300]])
    with mpmath.workprec(120):
        mp = [mpmath.mpf(float(p)) for p in v]
        exact = [np.array([float(g(p)) for p in mp]) for g in (mpmath.erf, mpmath.erfc)]
        square = np.array([float(mpmath.exp(-p**2)) for p in mp])

    def ulps(got, true, dtype):
        fine = np.abs(true) >= np.finfo(dtype).tiny
        return np.abs(got[fine] - true[fine]) / np.spacing(np.abs(true[fine]).astype(dtype))

    with jax.enable_x64():
        for dtype, hole, bound, top in ((np.float64, 26.6, 4.5, 300), (np.float32, 9.3, 5.5, 38)):
            pts = np.concatenate([rng.uniform(0, 1, 20), rng.uniform(1, 8, 20),
                                  rng.uniform(8, 30, 20), 10 ** rng.uniform(1.5, top, 6),
                                  -rng.uniform(0, 1, 10), [0.0, np.inf, -np.inf, np.nan, hole]]
                                 ).astype(dtype)
            vt, e = v.astype(dtype), square.astype(dtype)
            got = [np.asarray(g) for g in jax.jit(lambda w, ee, q: (
                erf_given(w, jnp.abs(w), ee), erf_given(w, jnp.abs(w), ee, complement=True),
                erf(w), erf(jnp.asarray([40.0, -np.inf, np.inf], w.dtype)), erfcx(q),
                erfcx(q, jnp.abs(q), jnp.exp(-q * q)),
                erf_given(w, jnp.abs(w), ee, complement=True, asymptotic=False)))(vt, e, pts)]
            for g, true, most in zip(got[:2] + got[-1:], exact + exact[1:], (1.25, 5.5, 5.5)):
                assert g.dtype == dtype and ulps(g, true, dtype).max() <= most
            if dtype == np.float64:  # (float32: jsp.erf's)
                assert ulps(got[2], exact[0], dtype).max() <= 1.0
                assert ulps(got[2], exact[0], dtype).mean() <= 0.036 + 0.05
            np.testing.assert_array_equal(got[3], [1.0, -1.0, 1.0])
            cx = got[4]
            assert cx.dtype == dtype
            np.testing.assert_array_equal(cx[-5:-1], [1.0, 0.0, np.inf, np.nan])
            # (1/exp(-q*q) where |q| < 1 or q < 0; past 1 the same floats)
            big = np.abs(pts) >= 1
            np.testing.assert_array_equal(got[5][big], cx[big])
            cx = np.where(big, cx, got[5])
            with mpmath.workprec(120):
                true = np.array([mpmath.exp(mpmath.mpf(float(p)) ** 2)
                                 * mpmath.erfc(mpmath.mpf(float(p))) if p < 1e6
                                 else 1 / (mpmath.mpf(float(p)) * mpmath.sqrt(mpmath.pi))
                                 for p in np.append(pts[:-5], hole)])
                err = np.array([float(abs(m - t)) for m, t in zip(np.append(cx[:-5], cx[-1]),
                                                                   true)])
            assert (err / np.spacing(np.abs(true.astype(dtype)))).max() <= bound


def test_a_sums_subnormal_terms_are_kept_where_the_sum_is_normal():
    # XLA flushes subnormals (results and operands): SiLU's stabilized gradient
    # (x e^x + e^x + ...)/... lost its term e^x at x = -712, where (x + 1) e^x
    # is normal: 43.5 bits (mish's tanh(log1p(e^x)) the same; GELU-erf's
    # Phi(x) = e^P e^Q erfcx(.)/2 beside x phi(x) at x = -37.7: 42.5).  Generated
    # code for a stabilized export computes such sums times 2**64 where they are
    # small (xla_guards.flushed_terms_scaled): within 2 bits, as NumPy's code.
    # And a pair function's first-order term f'(hi) lo, subnormal where f(hi) <
    # 2**-968, was flushed: exp of the pair x + 1/3 near -708 took the rounded
    # argument's error (swish-beta's gradient at x = -472.1: 8.8 bits)
    import sympy as sp

    import symgrad
    from symgrad.export.source import compile_source, generate
    from symgrad.stability.bits import FORMATS, bits_error
    from symgrad.stability.truth import GroundTruth

    x = sp.Symbol("x", real=True)
    split = sp.Piecewise((x * sp.exp(x), x >= -708.396418532264),
                         (sp.Mul(x * sp.exp(x / 2), sp.exp(x / 2), evaluate=False), True))
    # an underflow split of its own whose value is subnormal beside a normal term
    # (both branches: each factor normal, the product 2**-20 below them): the
    # float32 GELU-erf gradient's Phi(x) beside x phi(x) at x = -13.2, 25 bits;
    # and a form in pairs as a whole, whose pair e^x is flushed (float64 mish''
    # in pairs at x = -708.5: 55 bits): its copy times 2**64 in pairs
    small = sp.Piecewise((sp.exp(x) / 2**20, x >= -708.396418532264),
                         (sp.Mul(sp.exp(x / 2) / 2**20, sp.exp(x / 2), evaluate=False), True))
    forms = [split + sp.exp(x), split + sp.tanh(sp.log(1 + sp.exp(x))),
             sp.exp(x / 64) * sp.exp(x) + split, symgrad.compensated(sp.exp(x + sp.Rational(1, 3))),
             split + small, symgrad.compensated(x * sp.exp(x) + sp.exp(x) / 3)]
    exact = [x * sp.exp(x) + sp.exp(x), x * sp.exp(x) + sp.tanh(sp.log(1 + sp.exp(x))),
             sp.exp(x / 64 + x) + x * sp.exp(x), sp.exp(x + sp.Rational(1, 3)),
             (x + sp.Rational(1, 2**20)) * sp.exp(x), (x + sp.Rational(1, 3)) * sp.exp(x)]
    xs = np.linspace(-714.5, -705.0, 39)  # (-714.9 on: the sums are normal)
    # (below -1417 exp(x/2) is subnormal too: the split's second branch scaled)
    f = compile_source(generate("jax", [x], forms, domain={x: (-1500.0, 0.0)}, dtype="float64"))
    with jax.enable_x64():
        got = [np.asarray(v) for v in jax.jit(f)(xs)]
    truth = GroundTruth(exact, [x]).batch(xs[:, None])[0]
    for k in range(6):
        normal = np.abs(truth[k]) >= np.finfo(np.float64).tiny
        bits = bits_error(got[k], truth[k], FORMATS["float64"])[normal]
        assert normal.sum() >= 10 and np.max(bits) <= 2, (k, bits)


def test_a_near_identity_function_of_a_guarded_sum_read_as_it_is():
    # tanh(u) of a sum u with a subnormal term, read by a power: its copy times
    # 2**64 (small_up) holds tanh(u) itself, which the guard mapped again
    # without end (RecursionError: the float64 mish second derivative,
    # stabilize's tanh(...)**2, 2026-11-29); 1/tanh(u) ~ 1/u at x = -712
    import mpmath
    import sympy as sp

    from symgrad.export.source import compile_source, generate

    x = sp.Symbol("x", real=True)
    src = generate("jax", [x], [1 / sp.tanh(x * sp.exp(x) + sp.exp(x))],
                   domain={x: (-745.0, -1.0)}, dtype="float64")
    assert "_jg.small_up(" in src and "_jg.unflushed(" in src
    xs = np.array([-712.0, -709.5, -3.0])
    with jax.enable_x64():
        got = np.asarray(jax.jit(compile_source(src))(xs)[0])
    want = [float(1 / mpmath.tanh((mpmath.mpf(v) + 1) * mpmath.exp(v))) for v in xs]
    np.testing.assert_allclose(got, want, rtol=4e-16)  # (flushed e^x: -inf at -712)


def test_the_copy_times_2_64_is_the_value_bit_for_bit_where_no_term_is_subnormal(monkeypatch):
    # the 2**64 copy computes a product's factors in the value's own order (the
    # scaled ones in their places): where no term is subnormal it is the value
    # times 2**64 exactly (its products in another order were 2**64 times a
    # value rounded otherwise, mish's gradient at 15% of normal(0, 3) points)
    from symgrad.export import jax_ops
    from symgrad.export.source import compile_source, generate

    x = sp.Symbol("x", real=True)
    e, h = sp.exp(x), sp.exp(x / 2)
    form = (sp.Mul(sp.Float(0.3), x, sp.tanh(x), e, 1 / (1 + e) ** 2, evaluate=False)
            + sp.Mul(x**3, sp.sin(x), sp.exp(2 * x), sp.Float(1.7), evaluate=False)
            + sp.Mul(sp.cos(x) * h, x / (1 + x**2), h, evaluate=False))
    src = generate("jax", [x], [form], domain={x: (-1000.0, 10.0)}, dtype="float64")
    assert "_jg.unflushed(" in src
    xs = np.concatenate([np.linspace(-700.0, 10.0, 2001), -np.geomspace(1e-3, 700.0, 500)])
    # (the value and its copy side by side, from one compiled program)
    monkeypatch.setattr(jax_ops, "unflushed", lambda v, sv: jnp.stack([v, jax_ops.down(sv)]))
    with jax.enable_x64():
        value, copy = np.asarray(jax.jit(compile_source(src))(xs)[0])
    assert np.array_equal(copy, value) and np.all(np.abs(value[xs > -600]) > 2.0**-900)


def test_a_long_pair_chain_read_twice_is_computed_once_in_jax_code():
    # XLA copies a chain of cheap operations into each fused loop reading it,
    # and pairs read twice compound the copies (GELU-tanh's second derivative:
    # 8.8 -> 1.5 ms per 10^3 points): the long chain read twice is kept, the
    # short ones (cheaper copied than stored) are not
    import symgrad
    from symgrad.export.source import generate

    x = sp.Symbol("x", real=True)
    u = x + sp.Float(1.4185040087908283)
    p = sum(sp.Float(1.0 / (k + 1) ** 2) * u**k for k in range(20))
    src = generate("jax", [x], [symgrad.compensated(p), symgrad.compensated(p * sp.exp(x))],
                   domain={x: (-3.0, 0.0)}, dtype="float64")
    body = src[src.index("def f("):].splitlines()
    kept = [line for line in body if "_dd_keep(" in line]
    assert len(kept) == 1
    name = kept[0].split("=")[0].strip()
    after = "\n".join(body[body.index(kept[0]) + 1:])
    assert len(re.findall(rf"\b{name}\b", after)) >= 2
