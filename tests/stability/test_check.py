"""check_stability on the examples of its issue."""

import math

import numpy as np
import pytest
import sympy as sp
from sympy import Float, Matrix, Piecewise, cos, exp, log, sin, sqrt, symbols

from symgrad import (
    ComplexValueError,
    SymgradError,
    check_stability,
    compensated,
    custom_gradient,
    grad,
    lambdify,
    scaled,
    stabilize,
)
from symgrad.stability.floats import NodeEvaluator, evaluated_form

x, y = symbols("x y", real=True)
N = 384  # samples: enough for every behaviour tested here, and fast


def regions_of(r, kind=None):
    return [g for g in r.regions if kind is None or g.kind == kind]


@pytest.mark.parametrize(("dtype", "threshold"), [("float32", 88.72284), ("float64", 709.7827)])
def test_logistic_overflows_from_log_max(dtype, threshold):
    r = check_stability(exp(x) / (1 + exp(x)), {x: (-1000, 1000)}, dtype=dtype, samples=N)
    assert not r.ok
    assert r.max_bits_error == np.dtype(dtype).itemsize * 8
    (reg,) = [g for g in r.regions if g.kind in ("nan", "overflow")]
    assert reg.culprit == exp(x)
    lo, hi = reg.ranges[x]
    assert hi == 1000
    # the exact threshold: the first float whose exp overflows in dtype
    assert math.isclose(lo, threshold, rel_tol=1e-6)
    with np.errstate(over="ignore"):
        assert np.isinf(np.exp(np.array(lo, dtype=dtype)))
    below = np.nextafter(np.array(lo, dtype=dtype), np.array(0, dtype=dtype))
    assert np.isfinite(np.exp(below))
    assert reg.witness.true == 1.0 and math.isnan(reg.witness.computed)


def test_tf_stable_gradient_cancels_below_minus_37():
    r = check_stability(1 - 1 / (1 + exp(x)), {x: (-1000, 1000)}, samples=N)
    (reg,) = regions_of(r, "cancellation")
    assert reg.culprit == 1 - 1 / (1 + exp(x))
    lo, hi = reg.ranges[x]
    assert lo < -700 and -37 < hi < 0
    assert reg.max_bits > 50
    w = reg.witness
    if w.point[x] < -37:
        assert w.computed == 0.0 and w.true > 0


@pytest.mark.parametrize(
    ("expr", "rng", "culprit"),
    [
        (sqrt(x + 1) - sqrt(x), (0, 1e300), sqrt(x + 1) - sqrt(x)),
        ((1 - cos(x)) / x**2, (-1e-3, 1e-3), 1 - cos(x)),
    ],
)
def test_cancellation_cases(expr, rng, culprit):
    r = check_stability(expr, {x: rng}, samples=N)
    regs = regions_of(r, "cancellation")
    assert regs and max(g.max_bits for g in regs) > 20
    assert all(g.culprit == culprit for g in regs)


def test_log_difference_cancels_as_written_and_as_run():
    for rewrites in (False, True):
        r = check_stability(log(x + 1) - log(x), {x: (1, 1e15)}, samples=N, rewrites=rewrites)
        (reg,) = regions_of(r, "cancellation")
        # named as written, though the code runs log1p(x) - log(x)
        assert reg.max_bits > 20 and reg.culprit == log(x + 1) - log(x)


@pytest.mark.parametrize(
    ("expr", "domain"),
    [
        (x / (x + y), {x: (1, 4), y: (1, 4)}),
        (1 / (sqrt(x + 1) + sqrt(x)), {x: (1, 1000)}),
        (sqrt(x**2 + y**2), {x: (1, 100), y: (1, 100)}),
    ],
)
def test_stable_controls_are_ok(expr, domain):
    r = check_stability(expr, domain, samples=N)
    assert r.ok, str(r)
    assert r.max_bits_error <= 3
    kinds = {p.kind for p in r.proved}
    assert {"overflow", "domain", "nan"} <= kinds


def test_log1pexp_gradient_and_tf_custom_gradient():
    g = grad(log(1 + exp(x)), x)
    r = check_stability(g, {x: (-1000, 1000)}, samples=N)
    assert any(reg.culprit == exp(x) and reg.kind in ("nan", "overflow") for reg in r.regions)

    @custom_gradient
    def log1pexp(u):
        e = exp(u)

        def grad_fn(dy):
            return dy * (1 - 1 / (1 + e))

        return log(1 + e), grad_fn

    (dg,) = grad(log1pexp(x), [x])
    r = check_stability(dg, {x: (-700, 700)}, samples=N)
    assert any(p.kind == "overflow" and "no overflow" in p.statement for p in r.proved)
    (reg,) = regions_of(r, "cancellation")
    assert reg.ranges[x][0] == -700 and -37 < reg.ranges[x][1] < 0
    # on the wider range exp overflows, harmlessly: 1/(1 + inf) = 0 is right
    r = check_stability(dg, {x: (-1000, 1000)}, samples=N)
    assert [h.culprit for h in r.harmless] == [exp(x)]
    assert not [g for g in r.regions if g.kind in ("overflow", "nan")]


def test_quickstart_gradient_several_outputs():
    f = log(1 + exp(x * y)) + sp.sin(x) * cos(y) + sqrt(x**2 + y**2) * sp.tanh(x - y)
    g = grad(f, [x, y])
    r = check_stability(g, {x: (-3, 3), y: (-3, 3)}, samples=N)
    # not ok: the search finds tiny x, y where y*tanh(x - y)/hypot(x, y) loses 52 bits
    # (-5.05e-306 for -1.04e-305), and the zeros of the outputs, where their sums
    # cancel; it also found subnormal x, y where a shared 1/hypot(x, y) overflowed,
    # since fixed in codegen
    assert not r.ok and r.max_bits_error > 40, str(r)
    assert all(math.isfinite(reg.witness.computed) for reg in r.regions), str(r)
    assert len(r.outputs) == 2
    assert any("exp(x*y) cannot overflow" in p.statement and "x*y <= 9" in p.reason
               for p in r.proved)
    r = check_stability(g, {x: (-30, 30), y: (-30, 30)}, samples=N)
    assert not r.ok
    assert {reg.output for reg in r.regions} == {0, 1}
    events = [reg for reg in r.regions if reg.kind in ("overflow", "nan")]
    assert events
    for reg in events:
        # exp(x*y) itself, or (since 2026-11-27: y*exp(x*y)/(exp(x*y) + 1) is
        # emitted as one product divided, not times a shared quotient) the
        # product that overflows with it
        assert reg.culprit == exp(x * y) or exp(x * y) in reg.culprit.args, reg.culprit
        w = reg.witness.point
        assert w[x] * w[y] > 709
    # and where tanh(x - y) saturates, 1 - tanh(x - y)**2 is 0 (the truth 4*exp(-2|x - y|))
    assert any(reg.culprit == 1 - sp.tanh(x - y)**2 for reg in r.regions
               if reg.kind == "cancellation"), str(r)


def test_matrix_and_rewrites_note():
    r = check_stability(Matrix([exp(x) - 1, x]), {x: (-1e-10, 1e-10)}, samples=N)
    assert r.ok and len(r.outputs) == 2
    assert any("expm1" in n for n in r.notes)
    r = check_stability(exp(x) - 1, {x: (-1e-10, 1e-10)}, samples=N, rewrites=False)
    assert not r.ok and r.regions[0].kind == "cancellation"


def test_proofs_hold_at_every_sample():
    """Soundness: no sample contradicts a proved statement."""
    cases = [
        (1 - 1 / (1 + exp(x)), {x: (-700, 700)}),
        (exp(x) / (1 + exp(x)), {x: (-1000, 1000)}),
        (sqrt(x + 1) - sqrt(x), {x: (0, 1e300)}),
        (log(x + 1) - log(x), {x: (1, 1e15)}),
        (x / (x + y), {x: (1, 4), y: (1, 4)}),
        (exp(x * y) + log(x), {x: (1e-300, 20), y: (-5, 20)}),
        (sqrt(1 - x**2), {x: (-1, 1)}),
    ]
    proved = 0
    for dtype in ("float64", "float32"):
        for expr, dom in cases:
            r = check_stability(expr, dom, samples=256, dtype=dtype)
            syms = list(dom)
            ne = NodeEvaluator(evaluated_form(r.exprs, True), syms, np.dtype(dtype))
            vals = ne.values([r.points[:, j] for j in range(len(syms))])
            ops = [n for n in ne.order if ne.kids[n]]

            def finite(n, vals=vals):
                return np.isfinite(vals[n].astype(float))

            for p in r.proved:
                proved += 1
                if p.kind == "overflow" and p.node is not None and "cannot" in p.statement:
                    assert finite(p.node).all(), (expr, dtype, p)
                elif p.kind in ("overflow", "nan"):  # every intermediate is finite
                    assert all(finite(n).all() for n in ops), (expr, dtype, p)
                elif p.kind == "domain":  # no NaN out of finite operands
                    for n in ops:
                        ins = np.logical_and.reduce([finite(k) for k in ne.kids[n]])
                        assert not np.isnan(vals[n].astype(float))[ins].any(), (expr, dtype, p, n)
    assert proved >= 20


def test_underflow_in_a_product():
    z = symbols("z", real=True)
    tiny = (1e-200, 1e-180)
    # (x*y/(y + z), here before 2026-11-27, is emitted x*(y/(y + z)): in range)
    r = check_stability(x * y * exp(z), {x: tiny, y: tiny, z: (400, 410)}, samples=64)
    (reg,) = r.regions
    assert reg.kind == "underflow" and reg.culprit == x * y * exp(z)
    assert reg.witness.computed == 0.0 and reg.witness.true > 0


def test_a_form_that_cancels_inside_is_not_called_an_underflow():
    # scaled(compensated(u)) gives -0 from exact x, y, w on the weighted BCE
    # gradient's zero surface y = sigmoid(x) (true 3.0e-45, normal): a cancellation
    # deeper than its pairs, not an underflow; until 2026-11-28 a second region
    # said "underflow", and stabilize's "cannot fix" gave that as the reason
    w = symbols("w", real=True)
    u = Piecewise((-w * (y + (y - 1) * exp(x)) / (exp(x) + 1), x <= 0),
                  (-w * (y + y * exp(-x) - 1) / (1 + exp(-x)), True))
    box = {x: (-2.4424906541753475e-15, -2.4424897245018916e-15),
           y: (0.4999999999999994, 0.4999999999999994), w: (9.0, 10.0)}
    r = check_stability(scaled(compensated(u)), box, samples=16)
    assert r.max_bits_error > 60 and r.regions, str(r)
    assert all(reg.kind != "underflow" for reg in r.regions), str(r)


def test_bad_input_is_refused_clearly():
    with pytest.raises(SymgradError, match="y has no range"):
        check_stability(x + y, {x: (0, 1)})
    with pytest.raises(TypeError, match="string"):
        check_stability("x + 1", {x: (0, 1)})
    with pytest.raises(SymgradError, match="empty"):
        check_stability(x, {x: (2, 1)})
    with pytest.raises(ValueError, match="float32"):
        check_stability(x, {x: (0, 1)}, dtype="int8")


def test_a_domain_with_no_finite_float_and_a_complex_formula_are_refused_clearly():
    # both crashed inside numpy (low > high) or the ground truth (ValueError)
    with pytest.raises(SymgradError, match="holds no finite float64"):
        check_stability(exp(x), {x: (sp.oo, sp.oo)})
    with pytest.raises(SymgradError, match="holds no finite float32"):
        check_stability(exp(x), {x: (1e308, math.inf)}, dtype="float32")
    y_ = sp.Symbol("y", real=True)
    g = grad(sp.Integer(-3) ** y_, y_)
    for rewrites in (True, False):
        with pytest.raises(ComplexValueError, match=r"output 0, .* holds the imaginary unit"):
            check_stability(g, {y_: (0, 1)}, rewrites=rewrites)


def test_a_formula_of_no_variable_is_checked_at_its_one_value():
    # the gradient of x is 1: the command's `grad x --check x=0:1` crashed
    r = check_stability(grad(x, x), {x: (0, 1)})
    assert r.ok and r.max_bits_error == 0
    assert check_stability(sp.Integer(3), {}).ok
    big = exp(sp.Integer(800))
    r = check_stability(big / (1 + big), {})
    assert not r.ok and r.regions[0].kind == "nan" and r.regions[0].culprit == big


def test_infinite_ends_and_limits():
    r = check_stability(x / (1 + abs(x)), {x: (-math.inf, math.inf)}, samples=N)
    assert r.ok
    lims = {(lim.end > 0): lim for lim in r.limits}
    assert lims[True].limit == 1 and lims[False].limit == -1
    assert lims[True].computed == 1.0


def test_a_constant_is_reported_without_a_made_up_variable():
    big = exp(sp.Integer(800))
    r = check_stability(big / (1 + big), {x: (0, 1)})
    text = str(r)
    assert "domain: none (a constant)" in text and "over 1 point\n" in text
    assert "nan in output 0 (a constant)" in text
    assert "at its one value: computed nan, true 1" in text
    assert "constant in [" not in text and "_constant" not in r._repr_markdown_()
    assert r.domain == {} and r.regions[0].ranges == {} and r.regions[0].witness.point == {}


def test_an_amplifying_operation_is_not_called_a_cancellation():
    n = sp.Symbol("n", positive=True)
    r = check_stability((1 + 1 / n) ** n, {n: (1, 1e15)}, rewrites=False, samples=N)
    (reg,) = r.regions
    assert reg.kind == "ill-conditioned" and reg.culprit == (1 + 1 / n) ** n
    assert "amplifies the rounding errors" in reg.why
    # a sum whose terms cancel keeps its name
    r = check_stability(sp.sqrt(x + 1) - sp.sqrt(x), {x: (1, 1e15)}, rewrites=False, samples=N)
    assert r.regions and {g.kind for g in r.regions} == {"cancellation"}


@pytest.mark.parametrize("bad, what", [(sp.zoo * x, "zoo"), (sp.nan * x, "nan"), (x + sp.oo, "oo")],
                         ids=["zoo", "nan", "oo"])
def test_a_formula_holding_no_number_is_a_clear_error(bad, what):
    # they were ValueErrors from inside the ground truth ("zoo in the formula")
    from symgrad import stabilize
    for f in (check_stability, stabilize):
        with pytest.raises(SymgradError, match=rf"output 0, .* holds {what}"):
            f(bad, {x: (0.5, 2)}, samples=16)


def test_tanh_written_with_exponentials_over_every_float_is_all_resolved():
    # was: about half the points unresolved, silently out of max/mean, and the NaN
    # regions stopped at 2**40
    r = check_stability((exp(x) - exp(-x)) / (exp(x) + exp(-x)), {x: (-math.inf, math.inf)},
                        samples=256)
    assert r.unresolved == 0 and r.outputs[0].unresolved == 0 and r.verdict == "NOT ok"
    ends = sorted(g.ranges[x] for g in r.regions if g.kind == "nan")
    assert ends[0][0] == -1.7976931348623157e308 and ends[-1][1] == 1.7976931348623157e308
    assert r.mean_bits_error > 30


# Points whose truth is never established are counted, never dropped (the truth
# straddles 0 under sqrt(1 - sin(x)**2 - cos(x)**2) at every precision), and the
# NaN of sin(exp(x)) past x ~ 709.78 is wrong where sin is only known in [-1, 1]:
# docs/stability.md's example makes those two calls and checks the same (each
# point escalates to the highest precision: 2.4 s of CPU, run once).


def test_unresolved_points_the_bounds_decide():
    # exactly halfway between 1 and the next float, through inexact operations: the
    # interval never rounds to one float, but either neighbour is within 1 bit
    half = Float(2.0**-53, 30)
    r = check_stability(1 + half * (sin(x)**2 + cos(x)**2), {x: (1.0, 2.0)}, samples=16)
    assert r.unresolved == r.unresolved_within == r.samples and r.ok and r.verdict == "ok"


def test_a_zero_of_unknown_sign_is_counted_unresolved_and_kept_in_the_figures():
    """cos(pi*x/2) is exactly 0 at odd x, which no ball proves: the truth's
    value there is a zero of unknown sign (unresolved, between -0.0 and +0.0),
    and the code's 6.1e-17 is 62 bits from either: in the figures, in an alarm,
    and counted visibly."""
    r = check_stability(cos(sp.pi * x / 2), {x: (-4, 4)}, samples=256)
    assert r.unresolved_known >= 1 and r.unresolved >= r.unresolved_known
    assert r.max_bits_error > 60 and not r.ok and r.regions
    assert "zero of unknown sign" in str(r)


def test_a_form_is_measured_against_its_sources_values():
    """stabilize's report `after` measures the chosen form's code against the
    source's exact values (`_source`): a Taylor series approximates them, and
    against its own values it measures only its rounding (NMSE 3.9's series
    at a numerical root x = -2.5e-309 was reported at 26.7 bits, 47.2 true)."""
    from sympy import tan

    series = x / 3 + x**3 / 45
    own = check_stability(series, {x: (0.01, 0.5)}, samples=256)
    vs = check_stability(series, {x: (0.01, 0.5)}, samples=256, _source=[1 / x - 1 / tan(x)])
    assert own.max_bits_error <= 2 and vs.max_bits_error > 30, (own.max_bits_error,
                                                                vs.max_bits_error)


def test_a_condition_sympy_holds_as_an_ite_is_evaluated_by_every_tier():
    # SymPy writes some relations of a Piecewise as ITE(c, a, b) (the asymmetric
    # loss's kink, Max(sigmoid(x) - 1/20, 0), crashed stabilize in float64 with
    # "exprs is ITE(...), not a SymPy expression"); the floats, the ground truth,
    # the balls and the boxes take it as (c & a) | (~c & b) does
    import sympy as sp

    from symgrad import check_stability

    x = sp.Symbol("x", real=True)
    ite = sp.ITE(x > 0, x < 2, x > -1)
    same = ((x > 0) & (x < 2)) | ((x <= 0) & (x > -1))
    reports = [check_stability(sp.Piecewise((sp.sin(x) - x, c), (sp.Integer(0), True)),
                               {x: (-4, 4)}, samples=64) for c in (ite, same)]
    assert not reports[0].ok and reports[0].max_bits_error > 40  # sin(x) - x at 0
    assert reports[0].max_bits_error == reports[1].max_bits_error


def test_a_pole_inside_the_domain_leaves_no_numpy_warning():
    # a point beside tan's pole at x = 2 is unresolved with bounds (-inf, inf):
    # its middle, the value the steps toward zeros stand at, is NaN, silently
    # (the user saw "invalid value encountered in add" from check.py)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        r = check_stability(sp.tan(sp.pi * x / 4), {x: (0, 3.9)}, samples=32)
    assert not r.ok


def test_no_domain_means_every_symbol_over_all_floats_as_in_stabilize():
    # (check_stability(f, None) raised TypeError from inside its symbol ordering)
    f = sp.sqrt(x + 1) - sp.sqrt(x)
    r = check_stability(f, None, samples=32)
    assert r.max_bits_error == check_stability(f, {x: (-sp.oo, sp.oo)}, samples=32).max_bits_error
    assert r.max_bits_error > 50


X, Y, Z = symbols("x y z", real=True)


@pytest.mark.parametrize("expr, domain, at", [
    # heldout_k row 6 (Levy's function): each term 0 at x = 1 or y = 1
    (sin(sp.pi * (1 + (X - 1) / 4))**2
     + ((X - 1) / 4)**2 * (1 + 10 * sin(sp.pi * (1 + (X - 1) / 4) + 1)**2)
     + ((Y - 1) / 4)**2 * (1 + sin(2 * sp.pi * (1 + (Y - 1) / 4))**2),
     {X: (0.99, 1.01), Y: (0.99, 1.01)}, (1, 1)),
    # siblings: a zero of sin or cos (not of a subtraction) meeting another's
    (sin(sp.pi * X)**2 + (Y**2 - 4)**2, {X: (0.5, 1.5), Y: (1.5, 2.5)}, (1, 2)),
    (cos(sp.pi * X / 2)**2 + cos(sp.pi * Y / 2)**2 + (Z - 3)**2,
     {X: (0.5, 1.5), Y: (0.5, 1.5), Z: (2.5, 3.5)}, (1, 1, 3)),
])
def test_zeros_of_separate_terms_are_measured_where_they_meet(expr, domain, at):
    # every term vanishes at one float of its own variable: the sum is exactly
    # 0 where they meet, and there the code's rounding residue (sin(pi) is
    # 1.2e-16 in float64) is all of its value; found along one variable at a
    # time, the others at random, the max was 46-54 bits (true: 61.8)
    syms = sorted(domain, key=str)
    point = dict(zip(syms, at))
    assert expr.subs(point) == 0  # (exact: SymPy's own arithmetic)
    code = float(lambdify(syms, expr)(*[float(v) for v in at]))
    assert code != 0.0
    r = check_stability(expr, domain, seed=3)
    assert r.max_bits_error >= 61.0


def test_gradient_of_abs_of_a_formula_not_proved_real():
    # grad's rule for Abs(w), w not provably real, is re(sign(conjugate(w))*w'): the
    # real pipeline reads re and conjugate as the identity (w real wherever defined)
    g = grad(sp.Abs(log(x)) * exp(x), [x])
    assert g[0].has(sp.re, sp.conjugate)
    r = check_stability(g, {x: (-4, 30)}, samples=N)
    assert r.ok and r.max_bits_error <= 3
    assert r.exprs == list(g)  # reported as written
    lows, highs = zip(*(u.ranges[x] for u in r.undefined))  # log of x <= 0: no real value
    assert min(lows) == -4 and max(highs) == 0
    # a sibling whose sign flips on a rounding: sqrt(x) = 1 at x = 1 + ulp
    h = grad(sp.Abs(sqrt(x) - 1), [x])
    r = check_stability(h, {x: (0.25, 4)}, samples=N)
    assert not r.ok and r.max_bits_error > 60
    assert check_stability(h, {x: (0.25, 4)}, samples=N, rewrites=False).max_bits_error > 60
    # the code that runs is measured: SymPy's evaluation of re() multiplies the
    # products out, so the code has no (-1/x**2)*(x**2*...) to give inf*0 at tiny x
    w = sp.sinh(x**2 / log(1 + y / x) ** 2 + sp.Rational(1, 4))
    k = grad(sp.Abs(w) ** 3, [x])
    r = check_stability(k, {x: (-1, 1), y: (1e-6, 1e6)}, samples=128)
    run = lambdify([x, y], k[0])
    for g in r.regions + r.harmless:
        c = run(*(np.array([g.witness.point[s]]) for s in (x, y)))[0]
        assert c == g.witness.computed or np.isnan(c) and np.isnan(g.witness.computed)
    fixed = stabilize(h, {x: (0.25, 4)}, explain=True)
    assert fixed.after.max_bits_error <= 3 and not fixed.result[0].has(sp.re, sp.conjugate)
