"""Taylor coefficients in Arb's power series of balls: the same floats as
mpmath's differentiation, or UNSETTLED (then mpmath's tier runs)."""

from __future__ import annotations

import sympy as sp

from symgrad.rewrites.candidates import _mpmath_taylor_coefficients, taylor_coefficients
from symgrad.rewrites.taylor_balls import UNSETTLED, ball_taylor

x, y = sp.symbols("x y", real=True)
_s = 1 / (1 + sp.exp(-x))


def test_ball_coefficients_are_mpmaths_where_both_settle():
    # functions the kernels cover (some through identities: sinh, atanh,
    # acosh), odd/even ones with exact zeros, powers of every kind, constants
    cases = [(-(1 - _s)**2 * sp.log(_s) + sp.log(1 - _s) * _s**2, 0),  # focal loss' d/dy
             (sp.cosh(x) - 1, 0), (sp.atanh(x) / 2 + sp.asinh(x), 0), (sp.acosh(x + 2), 0),
             (sp.exp(x**2) * sp.erfc(x) + sp.pi * x, 0), (x**sp.Rational(3, 2) + x**x, 1),
             ((x + 1)**-3 + sp.tan(x) - sp.atan(x), 0)]
    for e, at in cases:
        got = ball_taylor(e, x, float(at), 6)
        assert got is not UNSETTLED, e
        assert got == _mpmath_taylor_coefficients(e, x, sp.S(at), 6), e
    # (mpmath differentiates log-gamma in 2 s: against its known series instead,
    # log Γ(2 + x) = (1 - γ)x + Σ (-1)^k (ζ(k) - 1) x^k / k)
    import mpmath

    got = ball_taylor(sp.loggamma(x + 2), x, 0.0, 8)
    with mpmath.workdps(40):
        want = [0.0, float(1 - mpmath.euler)] + \
            [float((-1)**k * (mpmath.zeta(k) - 1) / k) for k in range(2, 9)]
    assert got == want


def test_what_balls_cannot_settle_is_left_to_mpmath():
    # a kink, a pole, a log at 0, a removable singularity (SymPy's exact series
    # serves it: taylor's doctest), another variable, a function without a kernel
    for e in (sp.Abs(x) + x, 1 / x, sp.log(x), sp.sin(x) / x, x * y, sp.besselj(0, x)):
        assert ball_taylor(e, x, 0.0, 3) is UNSETTLED, e
    assert taylor_coefficients(sp.sin(x) / x, x, 0, 3) is None  # (mpmath's answer, as before)
    assert ball_taylor(x - x, x, 0.0, 3) is None  # the zero function: no series
