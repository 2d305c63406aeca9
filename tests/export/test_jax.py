"""to_jax: derivatives of every order are symgrad's, under JAX's transforms."""

import math

import numpy as np
import pytest
import sympy as sp

import symgrad

from ..backends import jax, jnp
from .conftest import chosen_second, log1pexp


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64():  # float64 here only: other tests see JAX's float32 default
        yield

x, y = sp.symbols("x y", real=True)


def test_straight_through_floor():
    with symgrad.gradient_override_map({"Floor": "Identity"}):
        f = symgrad.to_jax(sp.floor(x) * y, [x, y])
    xs, ys = jnp.array([2.5, -1.25, 7.0]), jnp.array([3.0, -2.0, 0.5])
    gx, gy = jax.jit(jax.vmap(jax.grad(f, (0, 1))))(xs, ys)
    np.testing.assert_array_equal(gx, ys)  # the straight-through estimator
    np.testing.assert_array_equal(gy, jnp.floor(xs))
    plain = symgrad.to_jax(sp.floor(x) * y, [x, y])  # outside the map: floor' = 0
    assert float(jax.jit(jax.grad(plain))(2.5, 3.0)) == 0.0


def test_log1pexp_custom_gradient_float32():
    f = symgrad.to_jax(log1pexp(x), [x])
    at = jnp.full(3, 100.0, jnp.float32)
    g = jax.jit(jax.vmap(jax.grad(f)))(at)
    assert g.dtype == jnp.float32
    np.testing.assert_array_equal(g, 1.0)
    own = jax.jit(jax.vmap(jax.grad(lambda v: jnp.log(1 + jnp.exp(v)))))(at)  # inf/inf
    assert jnp.isnan(own).all()


def test_hessian_is_symgrads_chosen_second_derivative():
    f = symgrad.to_jax(chosen_second(x), [x])
    assert symgrad.hessian(chosen_second(x), [x])[0, 0] == 100
    both = jax.jit(lambda v: (jax.hessian(f)(v), jax.jacrev(jax.jacfwd(f))(v), jax.grad(f)(v)))
    h, h2, g = both(0.3)
    assert float(h) == float(h2) == 100.0  # not -sin(0.3)
    assert float(g) == pytest.approx(np.cos(0.3), rel=1e-15)


def test_hessian_equals_symgrad_hessian():
    e = sp.sin(x) * sp.exp(x * y) + sp.log(1 + y**2) * x
    f = symgrad.to_jax(e, [[x, y]])  # one vector argument
    h = symgrad.lambdify([x, y], symgrad.hessian(e, [x, y]))
    pts = np.array([[0.3, 0.7], [-1.5, 2.0], [4.0, -0.25]])
    hs, thirds = jax.jit(jax.vmap(lambda p: (jax.hessian(f)(p), jax.jacfwd(jax.hessian(f))(p))))(
        jnp.asarray(pts))
    for p, got in zip(pts, hs):
        np.testing.assert_allclose(got, h(*p), rtol=1e-14)
    third = thirds[0]
    d3 = sp.diff(e, x, x, y)  # ordinary formula: symgrad's rules are the true derivative
    assert float(third[0, 0, 1]) == pytest.approx(float(d3.subs({x: 0.3, y: 0.7})), rel=1e-13)


def test_transforms_agree_with_numpy_code():
    e = sp.log(1 + sp.exp(x * y)) * sp.sin(x) + sp.sqrt(x**2 + y**2)
    f = symgrad.to_jax(e, [x, y])
    ref = symgrad.lambdify([x, y], symgrad.grad(e, [x, y]))
    rng = np.random.default_rng(0)
    # (10**4 points: every point takes the same operations, nothing rare over this
    # square; at 10**6 the arrays cost 0.2 s of CPU more and assert the same)
    xs, ys = rng.uniform(-20, 20, 10**4), rng.uniform(-20, 20, 10**4)
    want = ref(xs, ys)
    got = jax.jit(jax.vmap(jax.grad(f, (0, 1))))(xs, ys)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-13)  # terms ~20 cancel
    # jvp, vjp and jacrev agree with the same formulas
    p = (0.7, -1.3)

    @jax.jit
    def three(a, b):  # one compilation (eager JAX compiles every operation)
        t = jax.jvp(f, (a, b), (1.0, 0.0))[1]
        back = jax.vjp(f, a, b)[1](1.0)
        return t, back, jax.jacrev(f, (0, 1))(a, b)

    t, back, rev = three(*p)
    w = ref(*p)
    assert float(t) == pytest.approx(w[0], rel=1e-14)
    assert [float(b) for b in back] == pytest.approx(list(w), rel=1e-14)
    assert [float(v) for v in rev] == pytest.approx(list(w), rel=1e-14)


def test_pytree_and_matrix():
    f = symgrad.to_jax({"v": x * y, "m": sp.Matrix([[x, y], [x * x, 1]])}, [x, y])
    out = f(jnp.arange(3.0), 2.0)
    assert out["m"].shape == (2, 2, 3)
    np.testing.assert_array_equal(out["m"][1, 1], 1.0)
    g = jax.jit(jax.grad(lambda a, b: f(a, b)["m"].sum() + f(a, b)["v"]))(1.5, 2.0)
    assert float(g) == 1 + 2 * 1.5 + 2.0


def test_stabilize_every_order():
    e = sp.log(1 + sp.exp(x))  # the domain of test_accuracy's: stabilize measures once
    f = symgrad.to_jax(e, [x], stabilize=True, domain={x: (-745, 745)})
    big = jnp.array([740.0, -700.0, 30.0])
    tiny = np.exp(-700.0)  # softplus and its derivative there, to an ulp
    np.testing.assert_allclose(jax.jit(f)(big)[:2], [740.0, tiny], rtol=2e-16)  # (eager: ops
    # compiled one by one, 0.3 s; test_pytree_and_matrix calls eagerly)
    g = jax.jit(jax.vmap(jax.grad(f)))(big)
    np.testing.assert_allclose(g[:2], [1.0, tiny], rtol=2e-16)
    naive = jax.jit(jax.vmap(jax.grad(symgrad.to_jax(e, [x]))))(big)
    assert np.isnan(naive[0])  # exp(x)/(1 + exp(x)) as written: inf/inf


def test_source_is_jax_numpy():
    f = symgrad.to_jax(sp.erf(x) + sp.Max(x, 0) + sp.tanh(x), [x])
    assert "_jg.erf(x)" in f.source and "jnp.maximum" in f.source  # erf, tanh: export.jax_ops'
    assert "_jg.tanh(x)" in f.source and "jnp." in f.order(1).source
    v = np.array([-3.0, -0.5, 0.25, 2.0])  # (the reference in NumPy: no eager JAX ops to compile)
    np.testing.assert_allclose(f(jnp.asarray(v)),
                               [math.erf(t) + max(t, 0) + math.tanh(t) for t in v], rtol=3e-16)


def test_guards_left_out_by_the_domain_give_the_same_values():
    # the pairs' overflow guards a domain's bounds rule out: the same values,
    # bitwise, under jax.jit (NumPy, float64 and float32 and the other cases:
    # tests/codegen/test_compensating.py; JAX's own text is its split, whose
    # guarded and plain forms do not depend on the type)
    from ..codegen.test_compensating import BOUNDED_CASES, bounded_points

    syms, expr, domain = BOUNDED_CASES[2]  # exp(-|u|): products, sums, a function (siblings: NumPy)
    fs = [jax.jit(symgrad.lambdify(syms, expr, stabilize=True, domain=d, backend="jax"))
          for d in (None, domain)]
    cols = [jnp.asarray(c) for c in bounded_points(200, domain, "float64")]
    np.testing.assert_array_equal(*(np.asarray(f(*cols)) for f in fs), strict=True)


def test_an_exact_exponent_split_survives_xla():
    # stabilize writes exp(-x**2/2) as exp(-k**2/8192) * exp(-l**2/2 - l*k/64) (the square
    # split exactly); XLA rewrites exp(a) * exp(b) as exp(a + b), which lost 8 bits at
    # x = 10-26 until the second factor was kept apart (export.jax_ops.kept); where k
    # takes few values (k = floor(64 min(64, |x|)): 4097) that factor is a table lookup
    # (export.exp_tables), no exp for XLA to merge: both, in one program
    import mpmath

    # (the forms written out: generated JAX code as to_jax's, without a stabilize call)
    forms = []
    for k in (sp.floor(64 * sp.Min(64, sp.Abs(x))), sp.floor(64 * sp.Abs(x))):
        low = sp.Abs(x) - k / 64
        forms.append(sp.Mul(sp.exp(-k**2 / 8192), sp.exp(-low**2 / 2 - low * k / 64),
                            evaluate=False))
    f = symgrad.lambdify([x], forms, backend="jax")
    assert "_jg.exp_table(" in f.source and "_jg.kept(" in f.source
    pts = np.linspace(10.0, 26.0, 41) + 1 / 3
    with mpmath.workprec(80):
        true = np.array([float(mpmath.exp(-mpmath.mpf(float(p)) ** 2 / 2)) for p in pts])
    for got in jax.jit(f)(jnp.asarray(pts)):
        got = np.asarray(got)
        assert np.max(np.abs(got - true) / true) <= 4 * 2.0**-53  # 2 ulps (8 bits lost before)


def test_an_exact_cancellation_of_two_products_survives_xla():
    # at XLA's defaults a product fuses into the sum that reads it: x*x - y*y at
    # x = y was the rounding of one square (+-5e-17 at 1.3) and its sqrt NaN at
    # half the points, where NumPy's code gives 0 (export.xla_guards); a
    # polynomial's c + a*b (one product) is left to fuse: rounded once, exactly
    from .conftest import XLA_DEFAULTS

    f = symgrad.to_jax([sp.sqrt(x**2 - y**2), 1 + x * (2 + x * (3 + x))], [x, y])
    assert f.source.count("_jg.rounded(") == 2
    v = np.random.default_rng(0).uniform(-10, 10, 200)
    root, _ = jax.jit(f, compiler_options=XLA_DEFAULTS)(v, v)
    np.testing.assert_array_equal(np.asarray(root), 0.0)


def test_a_function_of_no_arguments_gives_its_constants_in_jaxs_default_type():
    # (raised in jnp.result_type until 2026-11-27)
    f = symgrad.to_jax([2 * sp.pi, sp.sqrt(2)], [])
    a, b = f()
    assert a.dtype == jnp.result_type(float) and float(a) == np.float32(2 * math.pi)
    assert float(b) == np.float32(math.sqrt(2))


def test_symbols_named_like_the_generated_function():
    # generate() named the function f_1 when a symbol was called f, and the
    # compiled module was searched for f (FPBench's matrixDeterminant has a..i)
    f, jnp_ = sp.symbols("f jnp", real=True)
    h = symgrad.to_jax(f * jnp_, [f, jnp_])
    assert float(h(2.0, 3.0)) == 6.0
    assert float(jax.grad(h)(2.0, 3.0)) == 3.0
    assert float(symgrad.lambdify([f], 2 * f, backend="jax")(4.0)) == 8.0


@pytest.mark.parametrize("form", ["x**2*y", "y/hypot"])
def test_a_scaled_form_reads_a_subnormal_input_exactly(form):
    # XLA on the CPU flushes a subnormal operand, and its frexp (3e-320:
    # (0.5, -1074)) and ldexp (3e-320 by 2**1000: 3e-320) of one are wrong:
    # scaled(x**2*y) at (1e300, 3e-320) was 2.47e276 under JAX, scaled(y/hypot)
    # at (3e-320, 1e300) 2.85e-306; where the value is normal, NumPy's now
    e = {"x**2*y": x**2 * y, "y/hypot": y / sp.sqrt(x**2 + y**2)}[form]
    f = symgrad.lambdify([x, y], symgrad.scaled(e))
    fj = symgrad.lambdify([x, y], symgrad.scaled(e), backend="jax")
    xs = np.array([1e300, 1.5, 1e-300, 3e-320, 1e10, 5e-324, 7e-310])
    ys = np.array([3e-320, 2.0, 1e300, 1e300, -2.4e-309, 1.0, 1e305])
    with np.errstate(all="ignore"):
        want = f(xs, ys)
    got = np.asarray(jax.jit(fj)(jnp.array(xs), jnp.array(ys)))
    normal = np.abs(want) >= np.finfo(np.float64).tiny
    assert normal.sum() >= 4
    np.testing.assert_array_equal(got[normal], want[normal])
    assert (got[~normal] == 0).all()  # (a subnormal result: flushed, as XLA does)


def test_no_scaled_intermediate_leaves_the_range_where_the_inputs_and_value_are_normal():
    # NumPy's test_scaled sibling under jax.jit (one form, one type: XLA's
    # compile of all eight took ~10 s a type, of one ~1 s; the helpers are
    # NumPy's text). XLA's flush of a subnormal intermediate to 0 had sent the
    # products to the fallback, but sqrt(x**3*y) had none (0.0 for 8.6e30; 61
    # and 60 rows of 451 off in float32 and float64) nor a sum of products (37
    # and 27 rows of ~620; measured by hand), off by up to every bit
    from tests.oracles import scaled_range_cases, ulps_where_normal

    dtype, form = "float32", 4
    syms, forms, cols, truths = scaled_range_cases(dtype)
    f = jax.jit(symgrad.lambdify(syms, symgrad.scaled(forms[form]), backend="jax"))
    err = ulps_where_normal(np.asarray(f(*[jnp.asarray(c) for c in cols])), truths[form], dtype)
    assert np.isfinite(err).sum() >= 300
    assert np.nanmax(err) <= 2.5, (np.nanmax(err), np.nanargmax(err))


def test_a_sum_in_pairs_whose_factors_leave_the_range_takes_the_fallback():
    # NumPy's test_scaled sibling under jax.jit (one form, one type: XLA's
    # compile): compensated(x**2*y + z**3) had no fallback where no k kept a
    # term's factors in range (17 rows of 618 in float32, 11 of 623 in
    # float64 off by every bit); now u in floats with an exponent of their own
    # (NumPy's helpers' text), in pairs
    from tests.oracles import scaled_more_cases, ulps_where_normal

    dtype = "float32"
    syms, cases = scaled_more_cases(dtype)
    e, cols, t = cases[0]
    f = jax.jit(symgrad.lambdify(syms, symgrad.scaled(e), backend="jax"))
    err = ulps_where_normal(np.asarray(f(*[jnp.asarray(c) for c in cols])), t, dtype)
    assert np.isfinite(err).sum() >= 200
    assert np.nanmax(err) <= 2.5, (np.nanmax(err), np.nanargmax(err))
