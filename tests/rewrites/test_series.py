"""Taylor coefficients from Cauchy's integral (rewrites/series.py) against
exact series and mpmath's own differences."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symgrad.rewrites.series import cauchy_coefficients, mpmath_function, root_near, taylor_about

x = sp.Symbol("x", real=True)


def _close(got, want, rho):
    """The polynomial-level agreement the series search needs: every term's
    difference at ``rho`` within 2^-50 of the linear term."""
    lin = abs(want[1])
    return all(abs(g - w) * rho ** (k - 1) <= 2.0**-50 * lin for k, (g, w)
               in enumerate(zip(got, want)) if k)


def test_loggamma_about_one_is_its_zeta_series():
    # log Γ(1 + t) = -γ t + Σ_{k≥2} (-1)^k ζ(k) t^k / k: 32 terms, no mpmath.diff
    cs = cauchy_coefficients(mpmath.loggamma, 1.0, 32, 2.0)
    with mpmath.workdps(40):
        exact = [0.0, float(-mpmath.euler)] + [float((-1) ** k * mpmath.zeta(k) / k)
                                               for k in range(2, 32)]
    assert [float(c) for c in cs[1:]] == exact[1:]


# (polygamma(0, x) at 1.46 and exp(x)·tanh(x) - 1 at 0.6 were cases too, 1.3 and
#  0.5 s of mpmath's differences: loggamma keeps the gamma family, the three
#  others 32 terms of erf, tanh-of-a-cubic and trigonometric formulas)
@pytest.mark.parametrize("e, at, terms", [
    (sp.loggamma(x), 1.4616321449683622, 8),    # the gamma family: slow differences
    (sp.erf(x) - sp.Rational(1, 2), 0.4769362762044699, 32),
    (sp.diff(x / 2 * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (x + sp.Float("0.044715") * x**3))), x),
     -0.75246, 32),                               # the GELU-tanh gradient's zero
    (sp.cos(x) - x, 0.7390851332151607, 32),
])
def test_cauchy_coefficients_agree_with_mpmaths_differences(e, at, terms):
    f = sp.lambdify(x, e, modules="mpmath")
    rho = 4 * max(abs(at), 0.5)
    got = taylor_about(f, at, terms, radius=rho)
    want = taylor_about(f, at, terms)  # mpmath.taylor: numerical differences
    assert got is not None and got[0] == want[0] and _close(got, want, rho)


@pytest.mark.parametrize("f", [
    lambda z: abs(z - 1) - z / 3,                        # not holomorphic
    lambda z: mpmath.sqrt(z - 1.2),                      # a branch point in the circle
    lambda z: mpmath.mpf(1) if z.real > 1 else z,        # a comparison
])
def test_no_cauchy_coefficients_where_the_function_is_not_holomorphic(f):
    assert cauchy_coefficients(f, 1.0, 8, 4.0) is None


def test_a_root_search_that_strays_gives_up_before_it_fills_memory():
    """The Gumbel log-survival derivative's secant iteration, from x0 = 125.7,
    stepped to a huge negative x, where mpmath's exp(exp(-x)) asked for a
    mantissa beyond memory: MemoryError in stabilize (verdicts10's family-c
    float32 audit). No root is within ``width`` there: None."""
    e = lambda x: mpmath.exp(-mpmath.exp(-x))  # noqa: E731
    f = lambda x: -mpmath.exp(-x) * e(x) / (1 - e(x))  # noqa: E731
    assert root_near(f, 125.74164581298828, 115.98545837402344) is None


def test_a_circle_far_out_in_the_complex_plane_gives_no_coefficients_not_a_memory_error():
    # stabilize's series about a zero of exp(-sin(2*y*cosh(1))**2)*cos(2*y*cosh(1))
    # near y = 1e14 drew a Cauchy circle of radius 5e13: exp(1e14) went into exp,
    # whose mpmath integer part filled memory (a MemoryError out of stabilize)
    y = sp.Symbol("y", real=True)
    c = 2 * y * sp.cosh(1)
    f = mpmath_function([y], sp.exp(-sp.sin(c) ** 2) * sp.cos(c))
    with pytest.raises(OverflowError):
        f(mpmath.mpc(1e14, 5e13))
    assert cauchy_coefficients(f, 1e14, 8, 4e14) is None
    # ordinary arguments are untouched: the same values as mpmath's own
    g = mpmath_function([y], sp.exp(y) + sp.sin(y) * sp.erf(y))
    v = mpmath.mpf(3) / 7
    assert g(v) == mpmath.exp(v) + mpmath.sin(v) * mpmath.erf(v)
