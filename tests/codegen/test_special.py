"""Special functions: generated code calls ``scipy.special`` for what NumPy
lacks, value and gradient against mpmath (40 digits), and gives NaN where
the value at a real argument is complex (never its real part)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad import lambdify, numpy_code
from symgrad.codegen.printer import NoNumpyFormError

from .test_every_function import _exact, central_difference, value

x = sp.Symbol("x", real=True)

# name: (node over x, sample points[, the same function as SymPy can evalf it]);
# the rule table's own special functions (erf, erfc, gamma, loggamma,
# polygamma, LambertW) are in test_every_function
# fmt: off
SPECIAL = {
    "erfinv":       (sp.erfinv(x),             [-0.7, 0.2, 0.9]),
    "erfcinv":      (sp.erfcinv(x),            [0.3, 1.2, 1.9], sp.erfinv(1 - x)),
    "erfi":         (sp.erfi(x),               [-1.5, 0.4, 2.0]),
    "besselj":      (sp.besselj(1, x),         [-2.5, 0.7, 6.0]),
    "besselj-frac": (sp.besselj(sp.Rational(1, 3), x), [0.4, 3.0]),
    "bessely":      (sp.bessely(0, x),         [0.5, 4.0]),
    "besseli":      (sp.besseli(2, x),         [-1.5, 0.5, 3.0]),
    "besselk":      (sp.besselk(1, x),         [0.3, 2.0]),
    "Ei":           (sp.Ei(x),                 [-2.0, 0.5, 3.0]),
    "Si":           (sp.Si(x),                 [-3.0, 0.5, 7.0]),
    "Ci":           (sp.Ci(x),                 [0.3, 4.0]),
    "Shi":          (sp.Shi(x),                [-1.0, 2.0]),
    "Chi":          (sp.Chi(x),                [0.3, 2.0]),
    "fresnels":     (sp.fresnels(x),           [-1.0, 0.6, 2.5]),
    "fresnelc":     (sp.fresnelc(x),           [-1.0, 0.6, 2.5]),
    "airyai":       (sp.airyai(x),             [-3.0, 0.5, 2.0]),
    "airybi":       (sp.airybi(x),             [-3.0, 0.5, 2.0]),
    "airyaiprime":  (sp.airyaiprime(x),        [-3.0, 0.5, 2.0]),
    "zeta":         (sp.zeta(3, x),            [0.5, 2.5]),
    "beta":         (sp.beta(x, 2),            [0.5, 3.0]),
    "factorial":    (sp.factorial(x),          [-1.5, 0.5, 4.0]),
    "digamma":      (sp.digamma(x),            [-1.5, 0.5, 4.0]),
    "uppergamma":   (sp.uppergamma(sp.Rational(3, 2), x), [0.5, 3.0]),
    "lowergamma":   (sp.lowergamma(sp.Rational(3, 2), x), [0.5, 3.0]),
    "expint":       (sp.expint(2, x),          [0.5, 3.0]),
    "elliptic_k":   (sp.elliptic_k(x),         [-2.0, 0.3, 0.9]),
    "elliptic_e":   (sp.elliptic_e(x),         [-2.0, 0.3, 0.9]),
    "sinc":         (sp.sinc(x),               [-2.0, 0.5, 7.0]),
    "legendre":     (sp.legendre(3, x),        [-0.5, 0.8]),
}
# fmt: on
ITEMS = sorted(SPECIAL.items())


@pytest.mark.parametrize("name, spec", ITEMS, ids=[n for n, _ in ITEMS])
def test_value_and_gradient_agree_with_mpmath(name, spec):
    expr, pts, *oracle = spec
    f = lambdify(x, [expr, symgrad.grad(expr, x)])
    got, dgot = f(np.array(pts))
    truth = oracle[0] if oracle else expr
    for p, g, dg in zip(pts, got, dgot):
        point = {x: _exact((p,))[0]}
        want = value(truth, point)
        assert abs(mpmath.mpf(float(g)) - want) <= 1e-12 * max(1, abs(want)), (name, p, g, want)
        dwant = central_difference(truth, point, x)
        assert abs(mpmath.mpf(float(dg)) - dwant) <= 1e-9 * max(1, abs(dwant)), (name, p, dg)


@pytest.mark.parametrize(
    "expr, at",
    [
        (sp.loggamma(x), -1.5),  # log(gamma(-1.5)) = 0.86 - 6.28i; gammaln says 0.86
        (sp.LambertW(x), -1.0),  # below -1/e: lambertw's real part is -0.32
        (sp.LambertW(x, -1), 0.5),
        (sp.Ci(x), -1.0),  # 0.34 + 3.14i; sici's real part is -0.95
        (sp.Chi(x), -1.0),
    ],
)
def test_complex_values_at_real_arguments_are_nan(expr, at):
    assert not sp.N(expr.subs(x, at)).is_extended_real
    with np.errstate(invalid="ignore"):
        assert np.isnan(lambdify(x, expr)(at))


def test_riemann_zeta_values():  # d/ds zeta(s) has no SymPy form: value only
    pts = [-1.5, 0.5, 2.5]
    got = lambdify(x, sp.zeta(x))(np.array(pts))
    np.testing.assert_allclose(got, [float(mpmath.zeta(p)) for p in pts], rtol=1e-13)


def test_factorial_below_zero_is_gamma():
    # scipy.special.factorial is 0 for negative arguments
    assert lambdify(x, sp.factorial(x))(-1.5) == pytest.approx(float(sp.gamma(-0.5)), rel=1e-14)


def test_scipy_is_imported_only_when_used():
    assert "scipy" not in numpy_code(x, sp.sin(x))
    src = numpy_code(x, sp.erf(x) + 1)
    assert src.startswith("import numpy as np\nimport scipy.special\n")
    f = lambdify(x, sp.sin(x))
    assert "scipy" not in f.source
    assert "import scipy.special" in lambdify(x, sp.gamma(x)).source


def test_a_symbol_named_scipy_does_not_shadow_the_module():
    s = sp.Symbol("scipy", real=True)
    f = lambdify([s], sp.erf(s) * s)
    assert f(0.5) == pytest.approx(0.5 * 0.5204998778130465, rel=1e-15)


@pytest.mark.parametrize("expr", [sp.hankel1(0, x), sp.polylog(3, x),
                                  sp.dirichlet_eta(x)])
def test_functions_neither_numpy_nor_scipy_evaluate_are_refused_by_name(expr):
    with pytest.raises(NoNumpyFormError, match=type(expr).__name__):
        lambdify(x, expr + 1)


def test_loggamma_at_the_subnormals():
    # scipy's loggamma and gammaln overflow below the smallest normal float64
    # (inf at 2.5e-309, where log Γ is 710.58): the code writes -log(x) there
    import mpmath

    f = lambdify([x], sp.loggamma(x))
    pts = np.array([5e-324, 2.5e-309, 2.2e-308, 1e-300])
    with mpmath.workdps(40):
        want = [float(mpmath.loggamma(mpmath.mpf(v))) for v in pts]
    assert f(pts).tolist() == want
    assert np.isnan(f(-0.5)) and f(0.0) == np.inf


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_loggamma_about_its_zeros_keeps_the_values_bits(dtype):
    # scipy's loggamma loses the bits of a value near log Γ's zeros 1 and 2
    # (the wrong sign at 2 - 2**-52, 29 bits within 1e-6 of either, 3-4 at
    # 0.8 and 1.6): the generated code takes log Γ(2 + t)'s series on [1/2, 5/2)
    import warnings

    import scipy.special

    f = lambdify([x], sp.loggamma(x))
    rng = np.random.default_rng(7)
    eps = np.finfo(dtype).eps
    pts = np.concatenate([1 + rng.uniform(-1e-4, 1e-4, 40), 2 + rng.uniform(-1e-4, 1e-4, 40),
                          rng.uniform(0.5, 2.5, 40), rng.uniform(2.5, 30, 10),
                          [1 - eps / 2, 1 + eps, 2 - eps, 2 + 2 * eps, 0.5, 2.5]]).astype(dtype)
    with mpmath.workdps(40):
        want = np.array([float(mpmath.loggamma(mpmath.mpf(float(v)))) for v in pts]).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (the series' rows outside: no overflow)
        got = np.asarray(f(pts))
    assert got.dtype == dtype
    ulps = np.abs(got.astype(float) - want) / np.spacing(np.abs(want))
    assert ulps.max() <= 6, (pts[ulps.argmax()], ulps.max())
    if dtype is np.float64:  # (float32 took scipy's float64 values, rounded: right)
        old = scipy.special.loggamma(pts)
        assert (np.abs(old - want) / np.spacing(np.abs(want))).max() > 1e6  # (as was)
