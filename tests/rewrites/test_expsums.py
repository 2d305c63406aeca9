"""Sums of exponentials normalized by their largest exponent (one mechanism,
:mod:`symgrad.rewrites.expsums`): every member of the family proved equal
to its source and measured against the ground truth over all floats, in
float64 and float32; siblings drawn at random (hypothesis) too."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sympy import lambdify
from sympy.codegen.numpy_nodes import logaddexp

import symgrad
from symgrad.rewrites import apply_rewrites, in_scope, safe_forms
from symgrad.rewrites.candidates import candidates
from symgrad.rewrites.expsums import after, normalized, normalized_safe
from symgrad.rewrites.proof import prove_equal
from symgrad.stability.bits import bits_error, float_format
from symgrad.stability.floats import generated
from symgrad.stability.sampling import parse_domain
from symgrad.stability.search import PointSearch
from symgrad.stability.truth import RESOLVED, GroundTruth

x, y, z, t = sp.symbols("x y z t", real=True)
E = sp.exp
MAX = 1.7976931348623157e308
SIG = 1 / (1 + E(-x))
_SAFE = in_scope("codegen", "safe")


def form(e):
    """The candidate stabilize measures: normalized, then the rewrites."""
    n = normalized(e, together=True)
    assert n is not None, f"no sum of exponentials found in {e}"
    return apply_rewrites([n], after(_SAFE))[0]


def measure(src, forms, syms, dtype, n=24, dom=None, seed=5, truth=False):
    """Bits of error of each form against the ground truth of ``src``, at
    the points of the stability package's search over ``dom`` (all floats
    where None): ``n`` uniform over the float ordinals, others uniform in
    value and over binades, the subnormals, and every node's transitions
    (over- and underflow, zeros, regime boundaries) in the source and the
    forms; also the points (unresolved ones dropped)."""
    fmt = float_format(dtype)
    p = parse_domain(dom or {s: (-MAX, MAX) for s in syms}, syms, fmt)
    # (logaddexp, as code generation writes log(exp(x) + exp(y)), crashes the
    # node evaluator the search uses: the speed lane's; its arguments are searched)
    searched = [f for f in forms if not f.has(logaddexp)]
    pts, _ = PointSearch([src, *searched], syms, p, fmt, n, seed).points()
    true, status = GroundTruth([src], syms, dtype).batch(pts)
    ok = status[0] == RESOLVED
    # exp of 1e300 is beyond any precision: those points are unresolved
    assert ok.sum() >= 8, "the ground truth resolved too few points"
    cols = [pts[:, j] for j in range(len(syms))]
    bits = [bits_error(generated(syms, [f], fmt.dtype)(*cols)[0], true[0], fmt)[ok]
            for f in forms]
    return (bits, pts[ok], true[0][ok]) if truth else (bits, pts[ok])


def condition(src, syms, pts, true):
    """The relative condition number of ``src`` at each point, ``Σ|x_j ∂f/∂x_j| /
    |f|`` (the derivatives in float64, ``f`` the ground truth): a relative
    error ``u`` in the variables (or in a rounded difference of them) moves
    the value by about ``κ u``.  0 where a derivative is not a finite float."""
    d = lambdify(syms, [sp.diff(src, s) for s in syms], "numpy")
    cols = [pts[:, j].astype(np.float64) for j in range(len(syms))]
    with np.errstate(all="ignore"):
        size = sum(np.abs(c * np.asarray(g, dtype=np.float64)) for c, g in zip(cols, d(*cols)))
        k = size / np.abs(np.asarray(true, dtype=np.float64))
    return np.nan_to_num(k, nan=0.0, posinf=0.0)


# name, source, variables, domain (None: all floats)
FAMILY = [
    ("log-sum-exp gradient", E(x) / (E(x) + E(y)), [x, y], None),
    ("log-sum-exp, 2 terms", sp.log(E(x) + E(y)), [x, y], None),
    ("log-sum-exp, 3 terms", sp.log(E(x) + E(y) + E(z)), [x, y, z], None),
    ("softmax entry", E(y) / (E(x) + E(y) + E(z)), [x, y, z], None),
    ("sigmoid", 1 / (1 + E(-x)), [x], None),
    ("sigmoid derivative", E(-x) / (1 + E(-x)) ** 2, [x], None),
    ("sigmoid derivative, σ(1 - σ)", SIG * (1 - SIG), [x], None),
    ("tanh with exp", (E(x) - E(-x)) / (E(x) + E(-x)), [x], None),
    ("sinh with exp", (E(x) - E(-x)) / 2, [x], None),
    ("cosh with exp", (E(x) + E(-x)) / 2, [x], None),
    ("sech with exp", 2 / (E(x) + E(-x)), [x], None),
    # log cosh x ≈ x²/2 cancels near 0 in every form of this family (a
    # Taylor regime takes it there): measured from |x| = 1, and up to 2^40
    # (the ground truth leaves cosh of larger numbers unresolved)
    ("log cosh", sp.log(sp.cosh(x)), [x], {x: (1, 2.0**40)}),
    ("log cosh with exp", sp.log((E(x) + E(-x)) / 2), [x], {x: (-(2.0**40), -1)}),
    ("softplus", sp.log(1 + E(x)), [x], None),
    ("softplus gradient", E(x) / (1 + E(x)), [x], None),
    ("exp(u)/(exp(u) - 1)", E(x) / (E(x) - 1), [x], None),
    ("Bose-Einstein", 1 / (E(x) - 1), [x], None),
    ("Fermi-Dirac", 1 / (E(x) + 1), [x], None),
]
IDS = [f[0] for f in FAMILY]


@pytest.mark.parametrize("name, src, syms, dom", FAMILY, ids=IDS)
def test_each_member_is_proved_equal_to_its_source(name, src, syms, dom):
    assert prove_equal(src, form(src))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, src, syms, dom", FAMILY, ids=IDS)
def test_each_member_is_accurate_over_all_floats(name, src, syms, dom, dtype):
    runs = apply_rewrites([src], in_scope("codegen"))[0]
    (old, got), pts, true = measure(src, [runs, form(src)], syms, dtype, dom=dom, truth=True)
    # exp(x - y) rounds x - y: up to log2|x - y| bits of a result of that
    # size (5.9 bits in float32 on 1000 samples for exp(x)/(exp(x) + exp(y)));
    # where the differences are exact (one variable here), nothing.  Where
    # the function is ill-conditioned (log(exp(x) + exp(y)) at its zero, which
    # the search finds) no float form keeps the bits: no worse than before,
    # or within what the condition number makes of a rounded difference
    # (float32 lse at x = -9.09e-13, y = -27.73, value -1.7e-18: the form 18.5
    # bits, logaddexp 17.2, κ = 1.5e7)
    with np.errstate(over="ignore"):  # ±max float apart: the allowance is capped anyway
        spread = np.ptp(pts.astype(np.float64), axis=1) if len(syms) > 1 else np.zeros(len(pts))
    kappa = condition(src, syms, pts, true) if len(syms) > 1 else np.zeros(len(pts))
    allowance = 3.0 + np.log2(1.0 + np.minimum(spread, 1e4)) + np.log2(1.0 + kappa)
    bad = (got > allowance) & (got > old + 1.0)
    assert not bad.any(), (name, dtype, got[bad].max(), pts[bad][:3])


@pytest.mark.parametrize("name, src, syms, dom", FAMILY, ids=IDS)
def test_safe_forms_lose_nothing_the_source_keeps(name, src, syms, dom):
    # stabilize=True's forms: nowhere more than a bit worse than the formula
    # as symgrad ran it before, where that was accurate (every float64 sample)
    runs = apply_rewrites([src], in_scope("codegen"))[0]
    safe = safe_forms([src])[0]
    if safe == runs:
        return  # nothing applied: nothing to lose
    (old, new), _ = measure(src, [runs, safe], syms, "float64", dom=dom, seed=6)
    # as tests/rewrites/test_safety.py counts a safe rewrite's loss: more than a
    # bit over max(old, 1) (two ulps are rounding: the sech's normal form
    # 2exp(-x)/(1 + exp(-2x)) is 2 ulps off at x = ±ln 2, where the search's
    # carries of sums look, and the source happens to round exactly)
    bad = (old <= 1.0) & (new > np.maximum(old, 1.0) + 1.0)
    assert not bad.any(), (name, new[bad].max())


def test_the_issue_cases():
    f = symgrad.lambdify([x, y], form(E(x) / (E(x) + E(y))))
    assert f(800.0, 0.0) == 1.0 and f(0.0, 800.0) == 0.0  # NaN as written
    # the sigmoid's derivative at -800 (NaN from (e/(1 + e))/(1 + e), e = exp(800))
    d = symgrad.lambdify([x], safe_forms([E(-x) / (1 + E(-x)) ** 2])[0])
    assert d(np.array([-800.0, -700.0])).tolist() == [0.0, math.exp(-700.0)]
    # tanh written with exp: NaN for x > 11357 in the form stabilize chose
    th = symgrad.lambdify([x], safe_forms([(E(x) - E(-x)) / (E(x) + E(-x))])[0])
    assert th(np.array([11357.3, 1e5, -1e300, 1e-300])).tolist() == [1.0, 1.0, -1.0, 1e-300]
    # log cosh: |x| + log1p(exp(-2|x|)) - log(2), no overflow
    lc = symgrad.lambdify([x], safe_forms([sp.log(sp.cosh(x))])[0])
    assert lc(np.array([1000.0, -1e300])).tolist() == [1000.0 - math.log(2), 1e300]
    # exp(u)/(exp(u) - 1) where exp(u) is subnormal: exact as written, 0 once
    # written -1/expm1(-u); normalized by the larger of u and 0, exact again
    eu = symgrad.lambdify([x], safe_forms([E(x) / (E(x) - 1)])[0])
    assert eu(-710.74) == -float(mpmath.exp(-710.74) / (1 - mpmath.exp(-710.74)))


def test_safe_scope_normalizes_only_where_differences_are_exact():
    assert normalized_safe(E(x) / (E(x) + E(y))) is None  # x - y rounds
    assert normalized_safe(E(2 * x) / (1 + E(2 * x))) is not None  # 2x - 0
    assert normalized_safe(E(x) / (E(x) + E(-x))) is not None  # x - (-x) = 2x


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_softmax_cross_entropy_gradient_of_ten_logits(dtype):
    zs = sp.symbols("z0:10", real=True)
    loss = sp.log(sum(E(v) for v in zs)) - zs[0]
    g = symgrad.grad(loss, list(zs))
    forms = [form(g[0]), form(g[3])]  # the target's entry (σ - 1) and another
    rng = np.random.default_rng(3)
    pts = rng.uniform(-900, 900, size=(6, 10)).astype(dtype)
    pts[0, 0] = 900.0  # the target dominates: σ - 1 ≈ -Σ exp(z_i - z_0)
    pts[0, 1:] = rng.uniform(850, 880, size=9)
    run = generated(zs, forms, np.dtype(dtype))
    got = run(*[pts[:, j] for j in range(10)])
    with mpmath.workdps(60):
        for k, (gk, out) in enumerate(zip((g[0], g[3]), got)):
            f = sp.lambdify(zs, gk, "mpmath")
            want = np.array([float(f(*map(mpmath.mpf, map(float, row)))) for row in pts])
            bits = bits_error(out, want, float_format(dtype))
            assert bits.max() <= 3.0, (k, bits, out, want)


@pytest.mark.parametrize("loss", ["bce", "focal"])
def test_ml_losses_gradients_have_an_accurate_normalized_candidate(loss):
    p = SIG
    f = -(t * sp.log(p) + (1 - t) * sp.log(1 - p)) if loss == "bce" else -(1 - p) ** 2 * sp.log(p)
    g = symgrad.grad(f, x)
    forms = [c for c in candidates(g) if "exp-normalized" in c.how]
    assert forms
    xs = np.array([-800.0, -30.0, -0.3, 2.5, 40.0, 800.0])
    ts = np.full_like(xs, 0.25)
    want_f = sp.lambdify([x, t], g, "mpmath")
    with mpmath.workdps(1000):  # 1 - σ(800) as written: 1000 digits keep it
        want = np.array([float(want_f(mpmath.mpf(a), mpmath.mpf(b))) for a, b in zip(xs, ts)])
    best = min(bits_error(symgrad.lambdify([x, t], c.expr)(xs, ts), want,
                          float_format("float64")).max() for c in forms)
    assert best <= 3.0, (loss, best)


def test_the_focal_loss_gradient_has_a_finite_normalized_candidate(dtype="float32"):
    # the normalized sums left log1p(-1/(1 + exp(-x))) = log(1 - σ(x)): -inf from
    # x = 17 in float32 (NaN where JAX and PyTorch are finite); the library's
    # log1p-minus-sigmoid rewrites make it -softplus(x)
    p = SIG
    f = -(t * (1 - p) ** 2 * sp.log(p) + (1 - t) * p**2 * sp.log(1 - p))
    g = symgrad.grad(f, x)
    forms = [c for c in candidates(g, {x: (-1000, 1000), t: (0, 1)}, dtype)
             if "exp-normalized" in c.how]
    xs = np.array([-646.0, -90.0, -30.0, -0.3, 2.5, 20.0, 40.0, 90.0, 646.0], dtype=dtype)
    ts = np.full_like(xs, 0.25)
    want_f = sp.lambdify([x, t], g, "mpmath")
    with mpmath.workdps(1000):
        want = np.array([float(want_f(mpmath.mpf(float(a)), mpmath.mpf(float(b))))
                         for a, b in zip(xs, ts)])
    best = min(bits_error(generated([x, t], [c.expr], np.dtype(dtype))(xs, ts)[0], want,
                          float_format(dtype)).max() for c in forms)
    assert best <= 3.0


@st.composite
def exp_sums(draw):
    """A small rational function or log of a sum of c·exp(p·x + q)."""
    k = draw(st.integers(2, 3))
    terms = [sp.Rational(draw(st.sampled_from([1, 2, 3])), draw(st.sampled_from([1, 2])))
             * E(draw(st.sampled_from([-2, -1, 1, 2])) * x + draw(st.integers(-3, 3)))
             for _ in range(k)]
    s = sp.Add(*terms)
    assume(isinstance(s, sp.Add) and len(s.args) >= 2)  # no two terms merged into one
    shape = draw(st.sampled_from(["log", "quotient", "square", "reciprocal"]))
    return {"log": sp.log(s), "quotient": terms[0] / s, "square": terms[0] / s**2,
            "reciprocal": 1 / s}[shape]


@settings(max_examples=5, deadline=None)
@given(exp_sums())
def test_random_sums_of_exponentials_with_affine_exponents(e):
    f = form(e)
    # equal: at 50 digits, at three points (SymPy's proof of every member
    # is the test above; here a sibling's value is what is checked)
    for v in ("-3.3", "0.7", "41.5"):
        a, b = sp.N(e.subs(x, sp.Float(v, 60)), 50), sp.N(f.subs(x, sp.Float(v, 60)), 50)
        assert abs(a - b) <= 1e-40 * abs(a), (v, a, b)
    (got,), pts = measure(e, [f], [x], "float64", n=16, dom={x: (-1e300, 1e300)})
    # exp(p·x + q - M) rounds its argument as exp(p·x + q) does: up to
    # log2|p·x + q| bits of a result of that size, in any form
    allowance = 3.0 + np.log2(1.0 + 3.0 * np.abs(pts[:, 0]))
    assert np.all(got <= allowance), (e, f, got.max(), pts[np.argmax(got - allowance)])


A, B, C = sp.symbols("a b c", real=True)


@pytest.mark.parametrize("expr", [
    # the float32 softmax cross-entropy gradient crashed stabilize: its sum
    # of exponentials comes with negative coefficients, and the overflow
    # bound took a log of it ("Invalid comparison of non-real log1p(...)")
    -sp.exp(A) / (-sp.exp(A) - sp.exp(B) - sp.exp(C)),
    1 / (-sp.exp(A) - sp.exp(B)),  # siblings: all terms negative,
    sp.exp(A) / (sp.exp(B) - 2 * sp.exp(A)),  # mixed signs
    sp.log(3 * sp.exp(A) - sp.exp(B)) - A,
], ids=["negated-softmax", "negative-sum", "mixed-sum", "log-of-mixed-sum"])
def test_overflow_bound_of_a_sum_of_any_signs_is_real(expr):
    """normalized_beyond's condition bounds |Σ cᵢ·exp(aᵢ)| by Σ |cᵢ|·exp(aᵢ):
    real whatever the signs, and at least the sum's size."""
    from symgrad.rewrites.expsums import normalized_beyond

    f = normalized_beyond(expr)
    assert f is not None and isinstance(f, sp.Piecewise)
    cond = f.args[0][1]
    syms = sorted(expr.free_symbols, key=str)
    rng = np.random.default_rng(3)
    for _ in range(20):
        pt = dict(zip(syms, rng.uniform(-800, 800, len(syms))))
        held = bool(cond.subs(pt))  # a truth value: no non-real comparison
        if held:  # where the source is kept, every exp and the sum are finite
            with mpmath.workdps(30):
                for s in (sp.exp(A), sp.exp(B), sp.exp(C)):
                    if s.free_symbols <= set(syms):
                        assert abs(float(s.subs(pt))) < 1.8e308


def test_softmax_cross_entropy_gradient_stabilizes_in_float32():
    f = -sp.log(sp.exp(A) / (sp.exp(A) + sp.exp(B) + sp.exp(C)))
    g = symgrad.grad(f, [A, B, C])[0]
    dom = {A: (-1000, 1000), B: (-1000, 1000), C: (-1000, 1000)}
    s = symgrad.stabilize(g, dom, dtype="float32", samples=64, seed=2)
    r = symgrad.check_stability(s, dom, dtype="float32", samples=64, seed=7)
    assert r.max_bits_error <= 3.0, r


def test_safe_forms_rebuild_a_where_chain_as_written():
    # the rewrites rebuild the nodes above a rewritten one through
    # build.evaluated: SymPy's Piecewise constructor folds a condition
    # holding a Piecewise into ITE form (8 deep: over a minute before)
    from symgrad import lambdify, where

    e = E(x) / (1 + E(x))
    for _ in range(8):
        e = where(sp.Gt(e, sp.S.Half, evaluate=False), sp.sin(e) + sp.S.Half, 2 * e)
    (safe,) = safe_forms([e])
    assert isinstance(safe, sp.Piecewise) and safe != e
    f, g = lambdify([x], safe), lambdify([x], e)
    for x0 in (-30.0, -0.2, 0.1, 0.7, 2.5):
        assert float(f(x0)) == pytest.approx(float(g(x0)), rel=1e-14)


def test_the_largest_exponent_of_a_sum_is_built_once_for_every_output(monkeypatch):
    """Every output of a softmax gradient holds the same sum of
    exponentials: its Max (SymPy compares the arguments pairwise, 45 ms
    for 10 logits; 6 s of the 10-output softmax cross-entropy's stabilize)
    is built once, not per output and per use."""
    from symgrad.rewrites import expsums

    built = []
    real = expsums.Max
    monkeypatch.setattr(expsums, "Max", lambda *a: built.append(a) or real(*a))
    expsums._max_of.cache_clear()
    z = sp.symbols("z0:3", real=True)
    den = sum(sp.exp(t) for t in z)
    first, second = (expsums.normalized_beyond(sp.exp(z[k]) / den) for k in (0, 1))
    assert len(built) == 1 and first.has(sp.Max) and second.has(sp.Max)


# the sigmoid family's forms of tanh apply to a normalized form too: it keeps tanh of its
# normalized argument, and 1 - tanh(u)**2 rounded to 0 from u = 19 where its value,
# ~4exp(-2u), is a normal float up to u = 354 (the mish second derivative lost 56.5 bits
# at x = 350.9 in its exported form: stabilize without certified; its sibling below, the
# gradient of tanh(log(exp(x) + exp(2x))), 61.9 bits at x = 9.5). ``after`` left out the
# whole family, whose other members would normalize the sums again
@pytest.mark.parametrize("e, at", [
    (x * (1 - sp.tanh(sp.log(1 + sp.exp(x)))**2) * sp.exp(x) / (1 + sp.exp(x)), 300.0),
    ((1 - sp.tanh(sp.log(sp.exp(x) + sp.exp(2 * x)))**2) * (1 + 2 * sp.exp(x))
     / (1 + sp.exp(x)), 150.0),
], ids=["mish-like", "tanh(log(exp(x) + exp(2x)))'"])
def test_tanh_forms_apply_to_normalized_forms(e, at):
    from symgrad.rewrites.facts import Facts

    facts = Facts({x: (-1000.0, 1000.0)}, interior=True)
    n = normalized(e, facts, together=True)
    f = apply_rewrites([n], after(in_scope("codegen", "safe")), facts)[0]
    with mpmath.workdps(800):
        true = float(lambdify(x, e, "mpmath")(mpmath.mpf(at)))
    assert 0 < abs(true) < 1e-200
    got = float(symgrad.lambdify([x], f)(at))
    assert abs(got - true) <= 1e-13 * abs(true), (f, got, true)


def test_a_difference_of_exponentials_in_a_normalized_branch_is_an_expm1():
    # the cumulative-logit (ordinal regression) likelihood's x-gradient,
    # 1 - sigma(y - x) - sigma(z - x): normalized by its largest exponent its
    # branch x > z holds exp(z - x) - exp(x - y), which cancels at
    # x = (y + z)/2; at y = -z = 4.4e-104, x = -4.7e-126 every form chosen
    # returned 0.0 (61.6 bits, reported as not fixed) for 2.35e-126.  Since
    # certified forms (2987ce7) the source certified is accurate there too, at
    # every sample count: a float formula, not certified, is what the rewrite
    # gives (without it, certified at 128, 256 and 512 samples; 128 samples,
    # 1.5 s, instead of the default 512, 2.7 s, 2026-11-29 under load 9)
    g = symgrad.grad(sp.log(1 / (1 + E(x - y)) - 1 / (1 + E(x - z))), x)
    dom = {x: (-50.0, 50.0), y: (0.0, 5.0), z: (-5.0, 0.0)}
    s = symgrad.stabilize(g, dom, seed=5, explain=True, samples=128)
    assert s.choices[0].after[0] <= 3.0 and "certified" not in s.choices[0].how, s.how
    at = (-4.7015493037853e-126, 4.4049359449961744e-104, -4.4049359449961744e-104)
    with mpmath.workprec(6000):
        true = float(lambdify([x, y, z], g, "mpmath")(*(mpmath.mpf(v) for v in at)))
    got = float(symgrad.lambdify([x, y, z], s.choices[0].chosen)(*at))
    assert got == pytest.approx(true, rel=1e-15)
