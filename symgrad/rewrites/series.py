"""Taylor polynomials about a point where a formula cancels: its zero
crossings (issue 17: the GELU gradient, ``Φ(x) + x·φ(x)``, keeps 5.9 bits
at its zero x = -0.7518 in float64, whatever form it is written in).

A root ``c`` of ``f`` is found in mpmath at high precision
(:func:`root_near`); it is rarely a float.  The polynomial is expanded
about ``c_hi``, the float nearest ``c`` in the working dtype, in
``t = x - c_hi``, which is exact near ``c`` (Sterbenz: x within a factor
of 2 of ``c_hi``), with the coefficients ``f⁽ᵏ⁾(c_hi)/k!`` computed in
mpmath and rounded once.  The constant term ``f(c_hi)`` is not 0: it is
the value at the float ``c_hi`` itself, tiny and kept to full relative
precision.  At any other float ``x = c_hi + t``, ``|t| ≥ ulp(c_hi)`` and
``|f(c_hi)| ≤ |f'(c)|·ulp/2`` (c is within half an ulp of c_hi), so the
sum ``f(c_hi) + f'(c_hi)·t`` cancels at most a factor 2: no bit is lost to
the root not being a float.  (Expanding about ``c`` itself would need
``t = (x - c_hi) - c_lo``, a two-float constant SymPy folds into one.)
How far from ``c`` the polynomial is accurate is for the caller to measure
(stabilize bisects it against the ground truth and keeps it in a regime).
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
from sympy import Add, Expr, Float, Mul, Symbol

__all__ = ["root_near", "taylor_about", "horner"]

DPS = 60  # decimal digits of the root's arithmetic
COEFF_DPS = 30  # of the coefficients' (mpmath's differences raise it as they need)


def root_near(f: Callable, x0: float, width: float) -> mpmath.mpf | None:
    """A root of ``f`` (an mpmath function of one variable) within
    ``width`` of ``x0``, to :data:`DPS` digits, or None where the secant
    iteration does not converge to one there.

    >>> import mpmath
    >>> float(root_near(lambda x: mpmath.erf(x) + x / 2 - mpmath.mpf(1) / 3, 0.0, 1.0))
    0.20671699627931...
    """
    with mpmath.workdps(DPS):
        try:
            c = mpmath.findroot(f, mpmath.mpf(x0), tol=mpmath.mpf(10) ** (-DPS + 10))
        except (ValueError, ZeroDivisionError, TypeError, OverflowError):
            return None
        if not isinstance(c, mpmath.mpf) or not mpmath.isfinite(c) \
                or abs(c - x0) > width:
            return None
        scale = max(abs(f(c + mpmath.mpf(2) ** -40 * (1 + abs(c)))), mpmath.mpf(10) ** -DPS)
        if abs(f(c)) > scale * mpmath.mpf(2) ** -60:
            return None  # not a root: where the iteration stopped, f is not small
        return c


def taylor_about(f: Callable, at: float, terms: int) -> list[float] | None:
    """``f(at + t) = Σ a_k t^k``: the first ``terms`` coefficients, computed
    in mpmath at :data:`COEFF_DPS` digits about the float ``at`` (exact), each
    rounded to a float once; None where they are not finite numbers.

    >>> import mpmath
    >>> taylor_about(mpmath.exp, 0.0, 4)
    [1.0, 1.0, 0.5, 0.16666666666666666]
    """
    with mpmath.workdps(COEFF_DPS):
        try:
            cs = mpmath.taylor(f, mpmath.mpf(at), terms - 1)
        except (ValueError, ZeroDivisionError, TypeError, OverflowError):
            return None
    out = [float(c) for c in cs]
    # the constant term, f(at) at a root's float, is all cancellation (17 digits
    # of f's terms at least): at as many digits as it takes to round it twice alike
    prev = None
    for dps in (DPS, 2 * DPS, 4 * DPS):
        with mpmath.workdps(dps):
            try:
                v = float(f(mpmath.mpf(at)))
            except (ValueError, ZeroDivisionError, TypeError, OverflowError):
                return None
        if v == prev:
            break
        prev = v
    out[0] = v
    return out if all(map(_finite, out)) else None


def _finite(v: float) -> bool:
    return v == v and abs(v) != float("inf")


def horner(coeffs: list[float], x: Symbol, at: float) -> Expr:
    """``Σ coeffs[k]·(x - at)^k`` in Horner's form, ``x - at`` computed once.

    >>> from sympy import Symbol
    >>> horner([1.0, 2.0, 3.0], Symbol("x"), 0.5)
    (x - 0.5)*(3.0*x + 0.5) + 1.0
    """
    t = Add(x, Float(-at, 17)) if at != 0 else x
    out: Expr = Float(coeffs[-1], 17)
    for c in reversed(coeffs[:-1]):
        out = Add(Float(c, 17), Mul(t, out)) if c != 0 else Mul(t, out)
    return out
