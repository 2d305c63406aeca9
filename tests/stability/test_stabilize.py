"""stabilize: an equal formula, accurate on the domain, chosen by measurement."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from symgrad import grad, lambdify, stabilize
from symgrad.errors import ComplexValueError, SymgradError

x, y, N = sp.symbols("x y N")
TINY = 5e-324


def _equal(a, b, syms, values):
    for v in values:
        at = dict(zip(syms, v))
        p, q = sp.N(a.subs(at), 30), sp.N(b.subs(at), 30)
        assert abs(p - q) <= 1e-20 * (1 + abs(p)), (a, b, at)


def test_a_conjugate_keeps_the_bits_the_difference_loses():
    r = stabilize(sp.sqrt(x + 1) - sp.sqrt(x), {x: (0, sp.oo)}, explain=True, samples=128)
    assert r.result == 1 / (sp.sqrt(x) + sp.sqrt(x + 1))
    assert r.before.max_bits_error > 50 and r.after.max_bits_error <= 3
    assert "sqrt-difference" in r.how or "safe forms" in r.how
    assert r._repr_markdown_() == f"```text\n{r}\n```"  # notebooks
    assert r._repr_html_() == "<pre>" + str(r).replace("&", "&amp;").replace(">", "&gt;") + "</pre>"


def test_regimes_pick_a_form_per_region():
    # log1p(1/N) is exact for large N and 1/N overflows for the smallest: two forms
    r = stabilize(sp.log(N + 1) - sp.log(N), {N: (TINY, sp.oo)}, explain=True, samples=192)
    assert isinstance(r.result, sp.Piecewise) and r.how.startswith("regimes in N")
    assert r.after.max_bits_error <= 3 < 50 < r.before.max_bits_error
    _equal(r.expr, r.result, [N], [[sp.Rational(1, 10)], [sp.Integer(10) ** 40]])


def test_a_truncated_series_where_no_rewrite_is_known():
    # at 0, an END of the range: sinh(x)/x - 1 cancels toward its removable
    # singularity (as the Langevin function coth(x) - 1/x over (1e-8, 700));
    # until session 8 a series was tried only where the range held 0, and this
    # was left as it was (62 bits).  0 inside the range: docs/stabilize.md's
    # 1/x - 1/tan(x) over (-0.026, 0.026), its polynomial printed
    r = stabilize(sp.sinh(x) / x - 1, {x: (1e-8, 5)}, explain=True, samples=128)
    assert "Taylor series" in r.how and "compensated" not in r.how
    assert r.before.max_bits_error > 50 and r.after.max_bits_error <= 3


def test_a_stable_formula_is_left_alone():
    assert stabilize(x / (x + y), {x: (1, 4), y: (1, 4)}, samples=64) == x / (x + y)


def test_a_gradient_keeps_its_structure_and_values():
    g = grad(sp.log(1 + sp.exp(x * y)), [x, y])
    s = stabilize(g, {x: (-30, 30), y: (-30, 30)}, samples=96)
    assert isinstance(s, list) and len(s) == 2
    _equal(g[0], s[0], [x, y], [[sp.Rational(1, 3), sp.Rational(-2, 7)], [3, 5]])


def test_bad_input_is_named():
    with pytest.raises(SymgradError, match="y"):
        stabilize(x + y, {x: (0, 1)})
    with pytest.raises(TypeError, match="stabilize"):
        stabilize("x + 1")
    # a complex constant: was a ValueError from inside the ground truth's intervals
    with pytest.raises(ComplexValueError, match=r"stabilize measures real formulas, and "
                       r"output 0, .* holds the imaginary unit"):
        stabilize(x + sp.log(-sp.log(2)), {x: (0, 1)})


def test_float32():
    r = stabilize(sp.exp(x) - 1, {x: (-1, 1)}, dtype="float32", explain=True, samples=64)
    assert str(r.result) == "expm1(x)" and r.after.max_bits_error <= 2
    assert np.float32(r.after.max_bits_error) <= 32


@pytest.mark.parametrize("expr", [1 / (x + 1) - 1 / x, sp.atan(x + 1) - sp.atan(x)],
                         ids=["3.3.1", "3.5"])
def test_a_quotient_whose_product_overflows_is_divided_in_turn(expr):
    # the textbook forms -1/(x(x + 1)) and atan(1/(1 + x(x + 1))) divide by a
    # product that overflows for |x| > 1.3e154, where the value is a subnormal
    r = stabilize(expr, {x: (-sp.oo, sp.oo)}, explain=True, samples=128)
    # which non-overflowing form wins is measured: for 3.5 the verification on
    # fresh and searched points now keeps atan-difference-far's regime (its far
    # branch divides in turn too); for 3.3.1, SymPy's -1/(x*(x + 1)) is itself
    # emitted dividing by one reciprocal factor and multiplying by the other
    # (since 2026-11-27), so together+factor's form no longer overflows; what
    # must hold is the accuracy
    assert "divided in turn" in r.how or "far" in r.how or r.how == "together+factor"
    assert r.before.max_bits_error > 60 and r.after.max_bits_error <= 3
    _equal(expr, r.result, [x], [[sp.Rational(7, 3)], [sp.Integer(10) ** 160]])


def test_past_an_overflow_threshold_the_choice_is_measured_too():
    # Hamming 3.4.4: sqrt(exp(x) + 1) overflows from x = 709.78 while the value
    # is a float up to 1419.6; uniform samples over the floats barely land
    # there, the thresholds check_stability samples do, and sqrt-exp is chosen
    e = sp.sqrt((sp.exp(2 * x) - 1) / (sp.exp(x) - 1))
    r = stabilize(e, {x: (-sp.oo, sp.oo)}, explain=True, samples=128)
    assert r.result.has(sp.Piecewise) and r.after.max_bits_error <= 2
    assert r.before.max_bits_error == 64
    _equal(e, r.result, [x], [[sp.Rational(1, 3)], [-5], [1000]])


def test_the_smallest_subnormals_are_not_halved_to_zero():
    # Hamming 3.4.1: 2(sin(x/2)/x)² is exact but at x = ±5e-324, where x/2
    # rounds to 0 (62 bits lost); the value is 1/2 at every subnormal
    e = (1 - sp.cos(x)) / x**2
    s = stabilize(e, samples=128)
    tiny = np.array([TINY, -TINY, 3 * TINY, 1e-320, -7 * TINY, 2.2e-308])
    assert lambdify([x], s)(tiny).tolist() == [0.5] * 6
    _equal(e, s, [x], [[sp.Rational(1, 3)], [-3], [sp.Integer(10) ** 20]])
    # past 1.3e154 the value is a subnormal: squared last, (sin(x)/x/cos(x/2))², it
    # is rounded once; (sin(x)/x)² rounded into the subnormals and then divided
    # by cos²(x/2) lost up to 49 bits (x ≈ -5.3e154, where cos(x/2) is small)
    import mpmath

    big = np.array([-5.3403518370968824e154, 3.021502865352961e156, 7.7e200, -2.5e300])
    got = lambdify([x], s)(big)
    with mpmath.workdps(700):
        want = np.array([float((1 - mpmath.cos(mpmath.mpf(v))) / mpmath.mpf(v) ** 2) for v in big])
    assert np.all(np.abs(got - want) <= 4 * TINY), (got, want)


@pytest.mark.parametrize("expr, at, sign", [(sp.erf(x) - 1, 1, -1), (1 - sp.erf(x), 1, 1),
                                             (sp.erf(x) + 1, -1, 1)],
                         ids=["erf-1", "1-erf", "erf+1"])
def test_erf_near_one_keeps_its_bits(expr, at, sign):
    # erf(x) rounds to 1 from x = 5.9: erf(x) - 1 was 0 where its value is
    # -erfc(x) (down to 1e-323 at x = 27.2); scipy's erfc loses up to 8 bits
    import mpmath

    s = stabilize(expr, samples=128)
    pts = at * np.array([0.3, 1.7, 3.0, 6.5, 12.0, 26.5, 27.2])
    got = lambdify([x], s)(pts)
    want = sign * np.array([float(mpmath.erfc(at * p)) for p in pts])  # ± erfc(±x)
    err = np.abs(got - want)
    assert np.all((err <= 8 * 2.0**-53 * np.abs(want)) | (err <= 8 * TINY)), (s, got, want)


# ---- the figures are measured on points the choice never saw ----------------------


def test_a_form_that_loses_on_its_own_search_points_is_not_chosen():
    # -1/expm1(-u) measures 1 bit on the points that choose, but its expm1 overflows
    # from u = -709.78, where exp(u)/(exp(u) - 1) as written is still a subnormal
    # (-2.1e-309 at u = -710.74) and the form gives -0.0: the search of its fresh
    # points finds the edge, and another form is kept
    u = sp.Symbol("u", real=True)
    s = stabilize(sp.exp(u) / (sp.exp(u) - 1), {u: (-1000, 1000)}, explain=True, samples=128)
    f = lambdify([u], s.result)
    assert f(-710.74) == pytest.approx(-2.127e-309, rel=1e-3)
    (c,) = s.choices
    assert c.basis.counts["uniform over the floats"] == 8 * 128 and c.basis.total > 8 * 128


def test_a_form_losing_between_3_and_4_bits_is_computed_more_exactly():
    # a form verified between 3 and 4 bits was kept as it was (the more exact
    # forms were tried only above 4), and reported unfixed at 3.3: roundings a
    # power amplifies (sigma(x)**12, 12 roundings of sigma) in float32; the
    # asymmetric loss's gradient in float32 the same (3.6 bits at x = 3.33, its
    # output 1: 1.6 in float32 pairs)
    u = sp.Symbol("u", real=True)
    s = 1 / (1 + sp.exp(-u))
    e = s**12 * sp.log(s + 3)
    r = stabilize(e, {u: (-8, 8)}, dtype="float32", samples=64, explain=True)
    (c,) = r.choices
    assert c.after[0] <= 3 and r.after.max_bits_error <= 3, (c.how, c.after)


@pytest.mark.parametrize("e, lo, hi", [
    (1 - sp.tanh(x) ** 2, -40, 40),  # the tanh derivative: 0 where tanh rounds to +-1
    (sp.exp(x) / (1 + sp.exp(x)) ** 2, -800, 800),  # the logistic's derivative
], ids=["tanh'", "logistic'"])
def test_reported_figures_are_not_below_an_independent_measurement(e, lo, hi):
    from tests.stability.test_search import independent

    s = stabilize(e, {x: (lo, hi)}, explain=True, samples=64)
    (c,) = s.choices
    assert c.after[0] >= independent(e, c.chosen, {x: (lo, hi)}, 640) - 1
    assert s.after.max_bits_error >= independent(e, c.chosen, {x: (lo, hi)}, 640, seed=7) - 1


def test_a_form_is_never_nan_where_the_running_code_gives_a_number():
    # bits_error gives NaN/inf where the value is finite exactly the width: where
    # what runs now gives a number, however wrong, no form may give NaN or inf
    # (float32 gradients of logsumexp chose regimes NaN past exp's overflow)
    from symgrad.stability.bits import FORMATS
    from symgrad.stability.stabilize import _limit, _nonfinite

    lim = _limit(np.array([1.0, 58.0, 63.9, 64.0]), 64)
    assert lim[0] == 3.0 and 63.9 < lim[1] < 64 and lim[2] < 64 and lim[3] == np.inf
    assert _nonfinite(np.array([64.0, 63.9, np.nan, 1.0]), FORMATS["float64"]) == 1


def test_an_unfixed_output_warns_and_names_where():
    # plain stabilize() was silent where it could not fix (only .unfixed and the
    # command said so): a JAX/TF user calling it in a pipeline never saw it
    import warnings

    from symgrad import StabilityWarning

    # (gamma: a function no rewrite or pair form holds on this zero curve; erf
    # was the example until certified's pair erf fixed it, session 15)
    with pytest.warns(StabilityWarning) as caught:
        f = stabilize(sp.gamma(x) - y * y, {x: (0.5, 1.5), y: (0.5, 1)}, widen=False, samples=64)
    assert f == sp.gamma(x) - y * y and issubclass(StabilityWarning, UserWarning)
    text = str(caught[0].message)
    assert text.startswith("symgrad cannot fix output 0") and "where x in [" in text
    assert caught[0].filename == __file__  # the caller's line, not symgrad's
    with pytest.warns(StabilityWarning):  # each output of a gradient, explain=True too
        s = stabilize([x, sp.gamma(x) - y * y], {x: (0.5, 1.5), y: (0.5, 1)}, widen=False,
                      samples=64, explain=True)
    assert len(s.unfixed) == 1 and s.unfixed[0].startswith("symgrad cannot fix output 1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", StabilityWarning)  # fixed: no warning
        stabilize(sp.sqrt(x + 1) - sp.sqrt(x), {x: (0, sp.oo)}, samples=64)


def test_verification_keeps_unresolved_points_by_their_bounds():
    # stabilize's verification dropped a point whose truth was unresolved (NaN bits),
    # where check_stability counts it by the bounds it has (issue 17 §1: never dropped)
    from symgrad.stability.stabilize import _TruthCache
    from symgrad.stability.truth import GroundTruth

    # 1 + 2**-53 exactly at x = 2**-53, which no exact value names (sin**2 + cos**2: the
    # truth's algebra decides exp(log(1 + x)) there, a rational, since 5d35dce)
    halfway = 1 + x * (sp.sin(x) ** 2 + sp.cos(x) ** 2)
    cache = _TruthCache(GroundTruth([halfway], [x]))
    vals, ok, lo, hi = cache.at(np.array([[2.0**-53], [0.25]]))
    assert not ok[0] and (lo[0], hi[0]) == (1.0, 1.0 + 2.0**-52)
    assert ok[1] and vals[1] == 1.25 and np.isnan(lo[1])


def test_a_forms_bits_at_a_row_are_measured_once_per_truth():
    # the verification asks a form again at most of its rows: each row measured once
    # (per form), the rows asked again given as first measured, in the order asked
    from symgrad.stability.stabilize import _TruthCache
    from symgrad.stability.truth import GroundTruth

    cache = _TruthCache(GroundTruth([x], [x]))
    asked = []

    def measure(rows):
        asked.append(rows[:, 0].tolist())
        return rows[:, 0] * 10

    first = cache.bits(x, np.array([[1.0], [2.0], [3.0]]), measure)
    again = cache.bits(x, np.array([[3.0], [4.0], [1.0], [4.0]]), measure)
    other = cache.bits(x + 1, np.array([[1.0]]), measure)  # another form: its own
    assert asked == [[1.0, 2.0, 3.0], [4.0, 4.0], [1.0]]
    assert first.tolist() == [10, 20, 30] and again.tolist() == [30, 40, 10, 40]
    assert other.tolist() == [10]
    assert cache.bits(x, np.zeros((0, 1)), measure).shape == (0,) and len(asked) == 3


# ---- verification: the ranked forms computed more exactly before the source ----------


def _fallback_case():
    """A source that loses bits for x < -600 (``1 + 1/x**2 - 1`` cancels) and
    is exact elsewhere, and a form exact for x < -600 whose other branch,
    ``((x + 1) - x)/(x + 1)``, loses 9 bits where ``x + 1`` carries
    (511 < x < 512, 255 < x < 256, ...): a band the screening may not see."""
    from sympy import Add, Mul, Piecewise, Pow
    r = sp.Symbol("r", real=True)
    inv = Pow(Add(r, 1, evaluate=False), -1, evaluate=False)
    lossy = Mul(Add(Add(1, Pow(r, -2), evaluate=False), -1, evaluate=False), Pow(r, 2), inv,
                evaluate=False)
    carries = Mul(Add(Add(r, 1, evaluate=False), -r, evaluate=False), inv, evaluate=False)
    source = Piecewise((lossy, r < -600), (inv, True))
    form = Piecewise((inv, r < -600), (carries, True))
    return r, source, form


@pytest.mark.parametrize("dtype, widen, marker", [("float64", False, "compensated"),
                                                  ("float32", True, "compensated")])
def test_verification_falls_back_to_the_ranked_forms_computed_more_exactly(dtype, widen, marker):
    """A ranked form that loses bits on the fresh points, where the source
    loses bits too: its compensated (or widened) version is verified before
    the source is kept (forms3's log_softmax(3) float32 case, as a class)."""
    from symgrad.rewrites.candidates import Candidate
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import Choice, _Search

    r, source, form = _fallback_case()
    fmt = float_format(dtype)
    dom = parse_domain({r: (-1000, 1000)}, [r], fmt)
    search = _Search([r], dom, np.zeros((0, 1)), fmt, {r: (-1000, 1000)}, widen=widen)
    screened = Choice(source, form, "screened", (0.0, 0.0), (0.0, 0.0), 1,
                      ranked=[(Candidate(form, "screened"), None)])
    got = search.verify(screened, (256, 1))
    # pairs of the dtype first, float32 as float64 (a form of the dtype before a wider type)
    assert type(got.chosen).__name__ == marker and got.chosen.args[0] == form, got.chosen
    assert "lost bits on fresh points" in got.how and got.after[0] <= 2, got
    assert got.before[0] > 10  # the source's own loss, on the same points


def test_a_certified_form_is_verified_before_a_dearer_one_and_kept_where_exact(monkeypatch):
    """Where the form to verify costs over twice as much to run as the
    source certified (three branches in pairs, each with a pair logarithm),
    the certified form is verified first, and where it loses no bit on its
    fresh points it is the choice: the dearer form is never searched (the
    asymmetric loss's widened affine split, 8.7 s of a 26.7 s call)."""
    from sympy.codegen.cfunctions import log1p

    from symgrad import compensated
    from symgrad.certified import certified
    from symgrad.rewrites.candidates import Candidate
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import Choice, _Search

    a, b = sp.symbols("a b", real=True)
    source = sp.log(b) + 1 - a  # zero on a = log(b) + 1: no fixed precision holds it
    dear = compensated(sp.Piecewise((sp.log(b) + 1 - a, b > 2),
                                    (log1p(b - 1) + 1 - a, b > sp.Rational(1, 2)),
                                    (sp.log(2 * b) - sp.log(2) + 1 - a, True)))
    fmt, dom = float_format("float64"), {a: (-6, 6), b: (1e-3, 100)}
    searched = []
    fresh = _Search._fresh
    monkeypatch.setattr(_Search, "_fresh", lambda self, form, *r, **k: (
        searched.append(form), fresh(self, form, *r, **k))[1])
    search = _Search([a, b], parse_domain(dom, [a, b], fmt), np.zeros((0, 2)), fmt, dom)
    got = search.verify(Choice(source, dear, "branches", (0.0, 0.0), (0.0, 0.0), 1,
                               ranked=[(Candidate(dear, "branches"), None)]), (64, 3))
    assert got.chosen == certified(source) and got.after[0] <= 0.5, got
    assert "verified before the form" in got.how and dear not in searched
    # the same test while choosing, before the searches for more forms (kinks, affine
    # split, widened: _settled); the verification reads its outcome, searched once
    searched.clear()
    search = _Search([a, b], parse_domain(dom, [a, b], fmt), np.zeros((0, 2)), fmt, dom)
    search.fresh = (64, 3)
    assert search._settled(source, [Candidate(dear, "branches")], [0])
    again = search.verify(Choice(source, dear, "branches", (0.0, 0.0), (0.0, 0.0), 1,
                                 ranked=[(Candidate(dear, "branches"), None)]), (64, 3))
    assert again.chosen == certified(source) and again.after == got.after, again
    assert searched == [certified(source)], searched


def test_a_passing_form_still_losing_bits_is_verified_more_exactly_too():
    """A form that loses nothing against the source on fresh points but
    still loses more than 3 bits there (a determinant cancelling where the
    screening had no point: the TNG eigenvalue's conjugate over scaled
    inputs, 10.4 bits) is verified in pairs of floats too, and that kept
    where it loses fewer bits (the fallbacks above are for a form that
    loses against the source)."""
    from symgrad.rewrites.candidates import Candidate
    from symgrad.scaled import scaled
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import Choice, _Search

    a, b, c, d = sp.symbols("a b c d")
    source, fmt, dom = a * d - b * c, float_format("float64"), {s: (-4, 4) for s in (a, b, c, d)}
    form = scaled(source)  # the same roundings as the source: it passes
    search = _Search([a, b, c, d], parse_domain(dom, [a, b, c, d], fmt), np.zeros((0, 4)), fmt,
                     dom)
    got = search.verify(Choice(source, form, "scaled", (0.0, 0.0), (0.0, 0.0), 1,
                               ranked=[(Candidate(form, "scaled"), None)]), (128, 5))
    assert str(got.chosen) == "scaled(compensated(a*d - b*c))" and got.after[0] <= 1.6, got
    assert got.before[0] > 10 and "lost bits on fresh points" in got.how


def test_the_complex_square_root_is_stabilized_through_its_conjugate():
    # |z| + re cancels for re < 0: hypot-conjugate, the square taken out of the
    # root (im² overflows and underflows), over scaled inputs; a sibling of the
    # TNG eigenvalue's difference of norms (benchmarks/bench_fpbench.py)
    from symgrad.stability.bits import bits_error, float_format
    from symgrad.stability.truth import RESOLVED, GroundTruth

    re, im = sp.symbols("re im")
    top = 1.7976931348623157e308
    expr = sp.sqrt(2 * (sp.sqrt(re**2 + im**2) + re)) / 2
    got = stabilize(expr, {re: (-top, top), im: (-top, top)}, samples=128, seed=3)
    rng = np.random.default_rng(7)
    pts = np.stack([-(10.0 ** rng.uniform(-300, 300, 80)),
                    10.0 ** rng.uniform(-300, 300, 80) * rng.choice([-1, 1], 80)], axis=1)
    true, status = GroundTruth([expr], [re, im], "float64").batch(pts)
    fmt = float_format("float64")
    bits = {e: bits_error(lambdify([re, im], e)(pts[:, 0], pts[:, 1]), true[0], fmt)
            for e in (expr, got)}
    ok = status[0] == RESOLVED
    assert bits[expr][ok].max() > 50 and bits[got][ok].max() <= 2, bits[got][ok].max()


def test_a_form_losing_on_its_random_draws_is_not_searched(monkeypatch):
    """Verification rejects a form that loses against the source on the
    random draws of its fresh points without searching its structure (the
    search was most of NMSE 3.4.2's 17 s, 8 forms all rejected); the
    figures reported are still those of the last form's whole search."""
    from symgrad.rewrites.candidates import Candidate
    from symgrad.stability import search as srch
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import Choice, _figures, _Search, _TruthCache
    from symgrad.stability.truth import GroundTruth

    fmt, dom = float_format("float64"), {x: (-1, 1)}
    source = 2 * sp.sin(x / 2) ** 2
    lossy = [1 - sp.cos(x), 1 - sp.cos(x / 2) ** 2 + sp.sin(x / 2) ** 2]
    searched = []
    real = srch.PointSearch.structure
    monkeypatch.setattr(srch.PointSearch, "structure",
                        lambda self, drawn, check=None: searched.append(self.forms[0])
                        or real(self, drawn, check))
    search = _Search([x], parse_domain(dom, [x], fmt), np.zeros((0, 1)), fmt, dom)
    got = search.verify(Choice(source, lossy[0], "lossy", (0.0, 0.0), (0.0, 0.0), 2,
                               ranked=[(Candidate(e, "lossy"), None) for e in lossy]), (128, 1))
    assert got.chosen == source and got.how.startswith("nothing"), got
    assert searched == [lossy[1]]  # the last one, for the figures reported
    truth = _TruthCache(GroundTruth([source], [x], "float64"))
    points, labels, _, old = search._fresh(lossy[1], source, truth, (128, 1))
    assert got.before == _figures(old, labels) and got.basis.total == len(points)

def test_a_form_losing_where_one_before_it_lost_is_not_searched(monkeypatch):
    """Where a form verified before lost against the source (its points
    kept), a later form of the same choice that loses there too is rejected
    without its search, as on its draws (NMSE 3.4.2's second widened regime,
    the twin of the first: 0.6 s of structure search); one that does not
    lose there is searched as before."""
    from sympy import And, Piecewise

    from symgrad.rewrites.candidates import Candidate
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import Choice, _Later, _Search, _TruthCache
    from symgrad.stability.truth import GroundTruth

    fmt, dom, fresh = float_format("float64"), {x: (-1, 1)}, (64, 1)
    source = 2 * sp.sin(x / 2) ** 2
    # 1 - cos(x) only in a band no draw of these fresh points lands in: every bit lost
    band = And(x > 1e-9, x < 2e-9)
    twin = Piecewise((1 - sp.cos(x), band), (source, True))
    search = _Search([x], parse_domain(dom, [x], fmt), np.zeros((0, 1)), fmt, dom)
    truth = _TruthCache(GroundTruth([source], [x], "float64"), source)
    assert not search._loses_on_draws(twin, source, truth, fresh)
    row = np.array([[1.5e-9]])
    search._keep_lost(source, fresh, row, search._bits_at(1 - sp.cos(x), row, truth),
                      search._bits_at(source, row, truth))
    assert search._loses_where_lost(twin, source, truth, fresh)
    assert not search._loses_where_lost(sp.sin(x / 2) ** 2 * 2, source, truth, fresh)
    searched = []
    monkeypatch.setattr(_Search, "_fresh", lambda self, form, *r, **k: searched.append(form))
    tried = []
    choice = Choice(source, twin, "twin", (0.0, 0.0), (0.0, 0.0), 1,
                    ranked=[(Candidate(twin, "twin"), None)])
    got, _ = search._first_passing([Candidate(twin, "twin")], source, truth, fresh, choice,
                                   tried)
    assert got is None and not searched and isinstance(tried[-1], _Later)


def test_the_source_certified_is_verified_before_regimes_that_cannot_end_elsewhere(monkeypatch):
    """Where no ranked form passed and every finite regime is NaN or inf
    on the draws of its fresh points where the value is finite (as are its
    pairs), none of them can be kept within the tolerance: each that passes
    goes on to the source certified (the regime not certifiable itself),
    and where none passes the verification ends there too.  The source
    certified is then verified first, the regimes not searched (NMSE
    3.4.2: two regimes, 3.4 s of searches); a regime finite there is
    searched as before."""
    from sympy import Piecewise
    from sympy.codegen.cfunctions import expm1

    from symgrad.certified import certified
    from symgrad.rewrites.candidates import Candidate
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import Choice, _Search, _TruthCache
    from symgrad.stability.truth import GroundTruth

    x, y = sp.symbols("x y", real=True)
    fmt, dom, fresh = float_format("float64"), {x: (-1000, 1000), y: (-1000, 1000)}, (64, 1)
    source = sp.exp(x) / (sp.exp(x) + sp.exp(y))  # inf/inf where both overflow
    # (a nested regime: not certifiable itself; NaN where both exps overflow too)
    nan_there = Piecewise((source, x < 700), (Piecewise(
        (1 / (1 + sp.exp(y) / sp.exp(x)), y < 0), (1 / (2 + expm1(y) / sp.exp(x)), True)), True))
    regimes = [Candidate(nan_there, "a regime")]
    monkeypatch.setattr(_Search, "_finite_regimes", lambda self, *a: regimes)
    searched = []
    fresh_search = _Search._fresh
    monkeypatch.setattr(_Search, "_fresh", lambda self, form, *r, **k: (
        searched.append(form), fresh_search(self, form, *r, **k))[1])
    # the tie lines of a certified form are chosen on its pairs, without the
    # recompute (the lead's D1): its code's ground truth is not asked there
    import symgrad.stability.stabilize as st

    tie_truth, real_ties, real_bounds = [], st.ties, GroundTruth.batch_bounds

    def counted(self, *a, **k):
        tie_truth.append(1)
        return real_bounds(self, *a, **k)

    def ties(points, bits, values, *a):
        def on(rows):
            with monkeypatch.context() as m:
                m.setattr(GroundTruth, "batch_bounds", counted)
                return values(rows)
        return real_ties(points, bits, on, *a)

    monkeypatch.setattr(st, "ties", ties)
    search = _Search([x, y], parse_domain(dom, [x, y], fmt), np.zeros((0, 2)), fmt, dom)
    got = search.verify(Choice(source, source, "as written", (0.0, 0.0), (0.0, 0.0), 1,
                               ranked=[]), fresh)
    assert got.chosen == certified(source) and searched == [certified(source)], got
    assert not tie_truth, len(tie_truth)
    assert got.after == (0.0, 0.0) and got.before[0] == 64 and got.nonfinite[1] == 0
    finite = Piecewise((source, x < 700), (1 / (1 + sp.exp(y - x)), True))
    truth = _TruthCache(GroundTruth([source], [x, y], "float64"), source)
    assert search._certain_before_nonfinite([Candidate(finite, "finite")], source, truth, fresh,
                                            got) is None


def test_the_source_certified_takes_the_values_its_verification_resolved(monkeypatch):
    """The code of the source certified recomputes by the ground truth the
    elements its bound does not certify (here past exp's overflow, where
    its pairs are inf - inf); measured by the verification, whose ground
    truth has just resolved those rows, it takes those values (the same:
    a correctly rounded value is one) instead of computing them again."""
    from symgrad.certified import certified
    from symgrad.stability import truth as tr
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import _Search, _TruthCache

    source = sp.exp(x) - sp.exp(x - 1)
    fmt, dom = float_format("float64"), {x: (-800, 800)}
    asked = []  # the rows the certified code's own ground truth computes
    decided, first = tr.GroundTruth.decided, tr.GroundTruth._first

    def spy_first(self, plain, *args):  # rows the balls decide in one pass
        nows, sure = first(self, plain, *args)
        asked.extend(p for p, w in zip(plain, sure) if w and self.reads_known)
        return nows, sure

    monkeypatch.setattr(tr.GroundTruth, "_first", spy_first)
    monkeypatch.setattr(tr.GroundTruth, "decided", lambda self, xs, *a: (
        asked.append(xs) if self.reads_known else None, decided(self, xs, *a))[1])
    search = _Search([x], parse_domain(dom, [x], fmt), np.zeros((0, 1)), fmt, dom)
    truth = _TruthCache(tr.GroundTruth([source], [x], "float64"), source)
    rows = np.linspace(709.9, 710.2, 7)[:, None]  # finite, and past exp's overflow
    bits = search._bits_at(certified(source), rows, truth)
    assert not asked and np.all(bits == 0), bits
    # the same code run alone asks its own ground truth, and gets the same floats
    alone = search._values(certified(source), [rows[:, 0]])
    assert len(asked) == len(rows) and np.array_equal(alone, truth.at(rows)[0])


def test_a_loss_at_an_ill_conditioned_point_is_told_from_rounding_noise():
    """The binary cross-entropy with logits: its gradient as derived is NaN
    past exp's overflow; every exp-normalized form was vetoed at one point of
    the zero curve sigmoid(x) = y, where the source lost 41.0 bits and the
    form 43.1 (both a draw of the rounding there), and the source, NaN at 312
    of 4801 points, was kept.  Near such a point the source's worst error is
    as large: noise.  Where the source is exact near a point (a carry band),
    a form's loss there is no noise."""
    from sympy import Piecewise

    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import _Search, _TruthCache
    from symgrad.stability.truth import GroundTruth

    fmt = float_format("float64")
    p = 1 / (1 + sp.exp(-x))
    source = grad(-y * sp.log(p) - (1 - y) * sp.log(1 - p), x)
    form = Piecewise(((-y - y * sp.exp(-x) + 1) / (1 + sp.exp(-x)), x >= 0),
                     ((-y * sp.exp(x) - y + sp.exp(x)) / (sp.exp(x) + 1), True))
    dom = {x: (-1000, 1000), y: (0, 1)}
    search = _Search([x, y], parse_domain(dom, [x, y], fmt), np.zeros((0, 2)), fmt, dom)
    truth = _TruthCache(GroundTruth([source], [x, y], "float64"))
    at = np.array([[-343.9507657826839, 4.208044987916001e-150]])
    assert search._noise_only(form, source, truth, at, np.array([43.1]), np.array([41.0]))

    r, source, form = _fallback_case()
    dom = {r: (-1000, 1000)}
    search = _Search([r], parse_domain(dom, [r], fmt), np.zeros((0, 1)), fmt, dom)
    truth = _TruthCache(GroundTruth([source], [r], "float64"))
    at = np.array([[511.99999999999994]])  # x + 1 carries: the form loses 9 bits, the source 0
    assert not search._noise_only(form, source, truth, at, np.array([9.0]), np.array([0.0]))


def test_each_form_is_compiled_once(monkeypatch):
    # a form is measured on the choosing samples, its fresh points, its ascent
    # and beside the source: its generated code is compiled once for all of them
    import symgrad.stability.stabilize as st

    compiled = []
    real = st.generated

    def counting(symbols, exprs, dtype):
        compiled.append((tuple(exprs), np.dtype(dtype)))
        return real(symbols, exprs, dtype)

    monkeypatch.setattr(st, "generated", counting)
    r = stabilize(sp.sqrt(x + 1) - sp.sqrt(x), {x: (0, sp.oo)}, samples=128)
    assert r == 1 / (sp.sqrt(x) + sp.sqrt(x + 1))
    assert len(compiled) >= 2 and len(compiled) == len(set(compiled))


def test_near_ties_of_the_best_form_rank_the_cheapest_first():
    """Accurate forms (at most WIDEN_ABOVE bits, over TOLERANCE at fewer
    than WIDEN_TAIL samples) whose mean and max errors tie with the best
    ranked one (within _TIE) rank by cost: the sigmoid's derivative as
    e/(1 + e)**2 (one exponential) before a sum of its terms (two), 0.03
    bit worse in mean; a form worse by more than the tie, or over
    TOLERANCE at WIDEN_TAIL samples, keeps its place; operations in pairs
    of floats count more (costs.form_cost)."""
    from symgrad import compensated
    from symgrad.rewrites.candidates import Candidate
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import _cost, _Search

    fmt = float_format("float64")
    dom = {x: (-745, 745)}
    search = _Search([x], parse_domain(dom, [x], fmt), np.zeros((0, 1)), fmt, dom)
    e = sp.exp(-sp.Abs(x))
    summed = e / (1 + 2 * e + sp.exp(-2 * sp.Abs(x)))
    squared = e / (1 + e) ** 2
    cands = [Candidate(summed, "sum"), Candidate(squared, "square"),
             Candidate(compensated(squared), "pairs")]
    ref = np.full(100, 64.0)

    def bits(mean, top):  # 100 samples: max top, mean mean
        return np.array([top] + [(100 * mean - top) / 99] * 99)

    best = bits(0.09, 1.58)
    assert search._ranked(cands[:2], [best, bits(0.12, 2.0)], ref) == [1, 0]
    assert search._ranked(cands[:2], [best, bits(0.2, 2.0)], ref) == [0, 1]  # not a tie
    assert search._ranked(cands[:2], [best, bits(0.12, 2.5)], ref) == [0, 1]  # max: not a tie
    # over TOLERANCE at one sample (2.3 bits, the best 2.2): accurate, a tie; at
    # three (WIDEN_TAIL), not accurate: its place
    assert search._ranked(cands[:2], [bits(0.09, 2.2), bits(0.12, 2.3)], ref) == [1, 0]
    tail = np.array([2.3] * 3 + [(12 - 3 * 2.3) / 97] * 97)  # mean 0.12 too
    assert search._ranked(cands[:2], [bits(0.09, 2.2), tail], ref) == [0, 1]
    # the same form in pairs ties too, but costs more than the sum
    assert search._ranked([cands[0], cands[2]], [best, bits(0.1, 1.6)], ref) == [0, 1]
    assert _cost(compensated(squared)) > _cost(summed) > _cost(squared)


def test_a_near_tie_never_replaces_an_accurate_formula_by_a_less_accurate_one():
    """Where the formula as it runs now is accurate and in the tie, cost
    chooses only among the forms at least as accurate as it: the logit's
    gradient 1/(1 - p) + 1/p (0.028 bit mean) had been replaced by the
    cheaper (-1/p)/(p - 1) (0.040).  A sibling nobody tuned for, 1/(2 - q)
    + 1/q (replaced by (-2/q)/(q - 2), 0.019 -> 0.024 bit mean, before),
    comes back as accurate as written; the tie still ranks the cheaper
    form first where the formula as written is not in it."""
    from symgrad.rewrites.candidates import Candidate
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import _Search

    fmt = float_format("float64")
    p = sp.Symbol("p", real=True)
    dom = {p: (0.0, 1.0)}
    search = _Search([p], parse_domain(dom, [p], fmt), np.zeros((0, 1)), fmt, dom)
    cands = [Candidate(1 / (1 - p) + 1 / p, "as written"), Candidate((-1 / p) / (p - 1), "cheap")]
    ref = np.full(100, 64.0)

    def bits(mean, top):  # 100 samples: max top, mean mean
        return np.array([top] + [(100 * mean - top) / 99] * 99)

    errs = [bits(0.028, 1.0), bits(0.040, 1.0)]
    assert search._ranked(cands, errs, ref) == [1, 0]  # no formula as written: the tie
    search._now = errs[0]
    assert search._ranked(cands, errs, ref) == [0, 1]  # as accurate as written first
    search._now = bits(0.5, 30.0)  # the formula as written not accurate: the tie
    assert search._ranked(cands, errs, ref) == [1, 0]

    q = sp.Symbol("q", real=True)
    f = 1 / (2 - q) + 1 / q
    got = stabilize(f, {q: (1e-300, 2 - 2**-52)}, samples=128, explain=True)
    before, after = got.choices[0].before, got.choices[0].after
    assert after[0] <= before[0] and after[1] <= before[1]

@pytest.mark.parametrize("dtype, far", [("float64", -745.1332191019412), ("float32", -100.5)])
def test_the_chosen_form_splits_products_of_a_subnormal_exp(dtype, far):
    """A regime or a series at a zero is built from the forms best on the
    samples, which seldom land where exp is subnormal; the chosen forms are
    tried with x·exp(x) split as (x·exp(x/2))·exp(x/2) there (the gradient
    of silu gave 0 at x = -745.13, truth -1.84e-321: 8.5 bits)."""
    from symgrad.stability.bits import bits_error, float_format
    from symgrad.stability.truth import GroundTruth
    from symgrad.widen import has_widen

    x = sp.Symbol("x", real=True)
    g = sp.diff(x / (1 + sp.exp(-x)), x)
    got = stabilize(g, {x: (-1000, 1000)}, dtype=dtype, samples=128)
    assert not has_widen([got]), got
    pts = np.array([far, far / 1.01, far * 1.002], dtype=dtype)
    truth = GroundTruth([g], [x], dtype).batch(pts.astype(float)[:, None])[0][0]
    vals = lambdify([x], got, dtype=dtype)(pts)
    assert np.all(bits_error(vals, truth, float_format(dtype)) <= 2), (vals, truth)


def test_the_scales_beside_zeros_do_not_choose_the_form():
    """The points at 2**k floats beside a zero (the search's scales) judge a form
    on fresh points, not in the choice: 28 of them crowd each zero, and the
    regimes' sum of errors then preferred a 12-term Taylor series (exact there,
    4.3 bits at its edge) to x**2/(x**2 + 1) (1.6 bits) for 1 - 1/(x**2 + 1) (the
    held-out audit's seed 14, row 0)."""
    r = stabilize(1 - 1 / (x**2 + 1), {x: (-1e300, 1e300)}, samples=128, seed=25,
                  explain=True)
    (c,) = r.choices
    assert c.after[0] <= 3, (c.how, c.after)


@pytest.mark.parametrize("expr, dom, dtype, seed", [
    (sp.atan(y) - x, {x: (-2, 2), y: (-10, 10)}, "float32", 0),
    ((x - y) ** 2 * sp.exp(-x), {x: (-5, 5), y: (-5, 5)}, "float64", 1),
])
def test_the_after_report_is_never_below_what_the_verification_measured(expr, dom, dtype, seed):
    # the report's own search drew other points than the verification's: its
    # max was below the verified one (1.0 against 1.6, 1.6 against 2.0), and
    # for the focal loss's gradient 4.1 against 61.7.  Both reports measure
    # the verification's worst points too, the figures each chose by.  (At
    # 128 samples and these seeds both fail without them, 2026-11-28: 1.0
    # against 1.6, 1.6 against 2.0; at the default 512 the second passed
    # without them, and the first's figures were 2.0 against 1.6)
    r = stabilize(expr, dom, dtype=dtype, explain=True, samples=128, seed=seed)
    for c in r.choices:
        assert r.after.max_bits_error >= c.after[0]


def test_pairs_are_kept_where_both_forms_lose_every_bit_only_at_the_same_points():
    # FPBench's TNG eigenvalue: the conjugate over scaled inputs and the same
    # in pairs both lose 64 bits where every form overflows next to the
    # largest float, so their maxima tie; the plain one loses 10.4 bits where
    # ad - bc cancels, the pairs 1.0 (fresh mean 0.19 against 0.02).  The
    # points where both lose every bit are left out of the comparison.  (The pairs over
    # scaled inputs, 2.8 bits reported, lose 3.46, Arb-checked, at a = -b = 1.576e308,
    # c = -3.92e-308, d = -2.225e-308: a verification whose fresh points reach them, as
    # one did with two rows a pair of a subnormal beside a 0, certifies the same
    # conjugate instead, 1.0 bits; with four rows a pair they do not, as before)
    a, b, c, d = sp.symbols("a b c d", real=True)
    e = sp.sqrt((a + d) ** 2 + (b - c) ** 2) - sp.sqrt((a - d) ** 2 + (b + c) ** 2)
    r = stabilize(e, {v: (-sp.oo, sp.oo) for v in (a, b, c, d)}, explain=True)
    assert r.how.startswith("hypot-conjugate, ") and ("compensated" in r.how
                                                      or "certified" in r.how), r.how
    assert r.choices[0].after[0] <= 3.0 and r.choices[0].after[1] < 0.1


def test_candidates_measured_in_one_program_get_each_its_own_bits():
    # stabilize compiles an output's candidates as ONE program over the choosing
    # samples (_Search._bits_many): each form's bits are its own program's; where
    # the program cannot be built (a form holding I), each form alone, as before
    from symgrad.rewrites.candidates import candidates
    from symgrad.stability.bits import float_format
    from symgrad.stability.sampling import parse_domain
    from symgrad.stability.stabilize import _Search
    from symgrad.stability.truth import RESOLVED, GroundTruth

    u = sp.Symbol("u", real=True)
    e = sp.exp(u) / (1 + sp.exp(u))
    fmt, dom = float_format("float64"), {u: (-40, 40)}
    pts = np.linspace(-40, 40, 97)[:, None]
    search = _Search([u], parse_domain(dom, [u], fmt), pts, fmt, dom)
    t, st = GroundTruth([e], [u], "float64").batch(pts)
    search.true, search.keep = t[0], st[0] == RESOLVED
    forms = [e, *(c.expr for c in candidates(e, dom, "float64"))]
    assert len(forms) > 3
    together = search._bits_many(forms)
    assert not search._code  # (one program, not kept)
    for f, b in zip(forms, together):
        assert np.array_equal(b, search._bits(f), equal_nan=True), f
    search._code.clear()
    mixed = search._bits_many([e, e + sp.I])
    assert np.array_equal(mixed[0], together[0]) and np.all(mixed[1] == np.inf)


def test_the_chosen_form_is_measured_where_the_source_lost_most():
    # lead's decision D6: a form admissible at the choosing samples (within its
    # slack of the source) may still lose bits where the source loses more; its
    # figures include those samples, the (at most 8) where the source lost most
    x = sp.Symbol("x")
    s = stabilize(1 - sp.cos(x), {x: (-1.0, 1.0)}, samples=32, explain=True)
    c = s.choices[0]
    assert c.chosen != 1 - sp.cos(x)
    assert c.basis.counts.get("where the source lost most") == 8, c.basis
    assert "8 where the source lost most" in str(c.basis)


def _near_the_largest_float(g, dtype, ys):
    # rows (x, y) with x*g(y) within a few ulps of the largest float, on both
    # sides of its overflow threshold: x the float nearest max/g(y), and its
    # neighbours
    from symgrad.stability.bits import float_format

    fmt = float_format(dtype)
    big = mpmath.mpf(float(np.finfo(dtype).max))
    rows = []
    for y_ in ys:
        y_ = float(np.array(y_, dtype=dtype))
        with mpmath.workprec(200):
            x0 = np.array([float(big / g(mpmath.mpf(y_)))], dtype=dtype)
        for d in range(-6, 7):
            rows.append(((x0.view(fmt.int_dtype) + d).view(dtype)[0], y_))
    return np.array(rows, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("src, g", [(-sp.sin(x) * sp.sinh(y), mpmath.sinh),
                                    (sp.sin(x) * sp.cosh(y), mpmath.cosh),
                                    (x * sp.exp(y), mpmath.exp)], ids=["sin-sinh", "cosh", "exp"])
def test_a_split_product_within_ulps_of_the_largest_float_is_not_inf(src, g, dtype):
    # FPBench's complex sine and cosine, -sin(re)*sinh(im): stabilize's form
    # (the product past exp's range in halves) gave inf at re =
    # 6.440501585491352e-250, im = -1284.2595268994262 (true 1.79769313486231573e308,
    # the largest float: two rounded exponentials' product rounded past the
    # threshold), reported 64 bits, honestly; the siblings with cosh and exp,
    # in both types, started from neither: within 3 bits at every row on
    # either side of the threshold, and still inf well past it
    from symgrad.rewrites.exact_exponents import _HI, split_overflowing_products
    from symgrad.stability.bits import bits_error, float_format
    from symgrad.stability.truth import RESOLVED, GroundTruth

    hi = _HI[dtype == "float32"]
    (form,) = split_overflowing_products([src], None, hi)
    pts = _near_the_largest_float(g, dtype, [1.05 * hi, 1.81 * hi, 2.04 * hi])
    if dtype == "float64" and g is mpmath.sinh:
        pts = np.vstack([pts, [[6.440501585491352e-250, -1284.2595268994262]]])
    true, status = GroundTruth([src], [x, y], dtype).batch(pts)
    assert (status[0] == RESOLVED).all()
    got = np.asarray(lambdify([x, y], form)(pts[:, 0], pts[:, 1]), dtype=dtype)
    assert bits_error(got, true[0], float_format(dtype)).max() <= 3
    assert np.isinf(true[0]).any() and np.isfinite(true[0]).any()  # both sides seen
    far = np.array([[pts[0, 0] * 4, pts[0, 1]]], dtype=dtype)
    assert np.isinf(lambdify([x, y], form)(far[:, 0], far[:, 1])).all()


# seed 2043: the hypot form ranks first on the choosing samples (1.6 bits there)
# and passes on fresh points at 57.1, where the source loses 60.9; the ranked forms
# after it are verified too (_better_ranked): the sine of a difference, 3.0
@pytest.mark.parametrize("seed", [0, 2043])
def test_a_spherical_angles_cross_term_is_the_sine_of_a_difference(seed):
    """Vincenty's central angle (held-out j, row 27) loses every bit at x ~ 0,
    y ~ z, where sin(y)cos(z) - sin(z)cos(y)cos(x) cancels: as sin(y - z) +
    sin(z)cos(y)(1 - cos x) (library: sin-of-a-difference-times, then
    one-minus-cos) nothing cancels.  Before that rule stabilize returned the
    hypot form, 52 bits and more on that set, or at the defaults a form in
    pairs it reported at 1.0 bits that lost 61.8 where x < 1e-32, y = z.
    Judged here on points built on the set (y = z and a few floats off,
    x down to 2**-150), against mpmath."""
    x, y, z = sp.symbols("x y z", real=True)
    sin, cos = sp.sin, sp.cos
    e = sp.atan2(sp.sqrt((cos(y) * sin(x))**2 + (cos(z) * sin(y) - sin(z) * cos(y) * cos(x))**2),
                 sin(z) * sin(y) + cos(z) * cos(y) * cos(x))
    dom = {x: (-3.14159, 3.14159), y: (-1.5707, 1.5707), z: (-1.5707, 1.5707)}
    r = stabilize(e, dom, samples=512, seed=seed, explain=True)
    assert r.after.max_bits_error <= 3, str(r)
    rng = np.random.default_rng(3)
    n = 60
    ys = np.sign(rng.uniform(-1, 1, n)) * np.exp2(rng.uniform(-40, 0.6, n))
    zs = np.array([np.nextafter(v, 10) if k else v for v, k in zip(ys, rng.integers(0, 2, n))])
    xs = np.sign(rng.uniform(-1, 1, n)) * np.exp2(-rng.uniform(1, 150, n))
    got = lambdify([x, y, z], r.result)(xs, ys, zs)
    exact = sp.lambdify([x, y, z], e, "mpmath")
    with mpmath.workprec(400):
        true = np.array([float(exact(*map(mpmath.mpf, (a, b, c)))) for a, b, c in zip(xs, ys, zs)])
    ulps = np.abs(got - true) / np.spacing(np.abs(true))
    assert ulps.max() <= 8, (ulps.max(), r.result)
