"""Stirling's remainders of log Γ and ψ (the nodes
:class:`~symgrad.rewrites.forms.lgamma_remainder` and
:class:`~symgrad.rewrites.forms.digamma_remainder`), computed at run time:
one algorithm for NumPy's generated code (which imports
:func:`_lgamma_remainder` and :func:`_digamma_remainder`), JAX's and
PyTorch's (:mod:`symgrad.export.jax_ops`, :mod:`symgrad.export.torch_ops`
pass their ``where``, ``log1p`` and ``log`` to :func:`lgamma_remainder`
and :func:`digamma_remainder`).

From x = 10 each is its series in ``1/x²`` (:data:`STIRLING`,
:data:`DIGAMMA_SERIES`, within an ulp).  Below, it is not computed through
its definition (``gammaln(x) - (x - 1/2) log x + x - log(2π)/2`` cancels:
about 10 bits lost near 10; and XLA's ``lgamma`` is up to 211 ulps off on
[1/2, 10]) but shifted up to 10 by its recurrence, whose steps have series
with terms of one sign (u = 1/(2z + 1), from ``log1p(1/z) = 2 atanh(u)``)::

    R(z) - R(z + 1)   = (z + 1/2) log1p(1/z) - 1        =  u² Σ u²ʲ/(2j + 3)
    Rψ(z) - Rψ(z + 1) = log1p(1/z) - 1/(2z) - 1/(2z + 2) = -2u³ Σ (2j + 2)/(2j + 3) u²ʲ

and each remainder is of the same sign as its steps: nothing cancels,
within a few ulps for every x > 0 (the step from z < 1/2, where u > 1/2,
as ``log1p(z) - log(z)`` for ``log1p(1/z)``: no overflow, and it is then
at least the size of the terms beside it).  Each step's series has the
terms that leave out less than 2^-56 of it (:data:`LGAMMA_TERMS`,
:data:`DIGAMMA_TERMS`): step 1 is taken from z ≥ 1 (u ≤ 1/3), the next
from z ≥ 2 (u ≤ 1/5).

:func:`digamma` is ψ itself for the frameworks whose own digamma loses
bits where ψ is small (JAX's and PyTorch's: 53-63 bits at its positive
root x0, 4-9 bits across [1/2, 5/2]; scipy's ``psi`` keeps them): on
[1/4, 3] it is ``(x - x0)·P(x - 2)`` (:data:`DIGAMMA_ROOT`,
:data:`DIGAMMA_ROOT_POLY`), and ``ψ(x + 1) - 1/x`` below 1; elsewhere
the framework's.  :func:`loggamma` is log Γ for JAX, whose lgamma loses up
to 5 bits on (0, 10) (about its zeros 1 and 2, 29): on (0, 10) the series
of log Γ(2 + t) (:data:`LGAMMA2_SERIES`) at t = x - m, m the integer
nearest x, and the recurrence's factors; from 10 Stirling's series (no library lgamma).

This module imports NumPy only (a serial pickle of a generated function
carries its text, as it carries :mod:`symgrad.codegen.runtime`'s).  Forward
values only: the nodes' derivatives are symgrad's formulas.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from math import comb, factorial

import numpy as np

__all__ = ["STIRLING_FROM", "STIRLING", "DIGAMMA_SERIES", "LGAMMA_TERMS", "DIGAMMA_TERMS",
           "lgamma_remainder", "digamma_remainder", "polygamma_remainder",
           "polygamma_parts", "_lgamma_remainder", "_digamma_remainder",
           "_polygamma_remainder", "digamma", "digamma_near_root", "DIGAMMA_ROOT",
           "DIGAMMA_ROOT_POLY", "DIGAMMA_NEAR", "loggamma", "loggamma_near_zeros",
           "LGAMMA2_SERIES", "LGAMMA_NEAR"]

def _bernoulli(m):
    """B_0, B_1, ..., B_m (Akiyama and Tanigawa's algorithm, exact)."""
    a, out = [], []
    for i in range(m + 1):
        a.append(Fraction(1, i + 1))
        for j in range(i, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    return out


# B_2, B_4, ..., B_20 (tests/rewrites/test_gammas.py checks them against SymPy's)
_BERNOULLI = tuple(_bernoulli(20)[2::2])

# Stirling's series of log Γ(x) - ((x - 1/2)·log x - x + log(2π)/2) in 1/x:
# B_2k/(2k(2k - 1)·x^(2k-1)), ten terms; from x = 10 the first term left out
# is below 2^-66 of the sum
STIRLING_FROM = 10
STIRLING = tuple(float(b / (2 * k * (2 * k - 1))) for k, b in enumerate(_BERNOULLI, 1))
# the digamma's: ψ(x) - log(x) + 1/(2x) = -Σ B_2k/(2k·x^2k), ten terms from x = 10
DIGAMMA_SERIES = tuple(float(-b / (2 * k)) for k, b in enumerate(_BERNOULLI, 1))

# the steps' series, step 0 from z >= SERIES_FROM (u <= 1/2), step 1 from
# z >= 1 (u <= 1/3), the others from z >= 2 (u <= 1/5): the terms whose tail
# is below 2^-56 of the step
SERIES_FROM = 0.5
# log Γ's step 0 by atanh's addition formula from here to SERIES_FROM (u <= 4/5),
# atanh(1/2) - 1/2 rounded (mpmath)
ADDITION_FROM = 0.125
_ATANH_HALF = 0.04930614433405484
LGAMMA_TERMS = (27, 17, 12)
DIGAMMA_TERMS = (29, 18, 13)
_LGAMMA_STEP = tuple(1.0 / (2 * j + 3) for j in range(LGAMMA_TERMS[0]))
_DIGAMMA_STEP = tuple(-2.0 * (2 * j + 2) / (2 * j + 3) for j in range(DIGAMMA_TERMS[0]))


def _lgamma_series(r):
    return r * _horner(STIRLING, r * r)


def _digamma_series(r):
    return (r * r) * _horner(DIGAMMA_SERIES, r * r)


def _horner(coeffs, t):
    out = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        out = c + t * out
    return out


def _remainder(x, where, step, series, at_zero, cutoff=STIRLING_FROM, loop=None,
               spread=None):
    """The remainder at x (``where`` of the array's library): ``series(1/z)``
    from z = ``cutoff``, and below the steps R(z) - R(z + 1) =
    ``step(z, k)`` (k = 0, 1, 2): step 0 takes z < 1 to z + 1, step 1 z < 2
    to z + 1, then steps 2 to cutoff - 1 take z to the cutoff: unrolled; or,
    with ``loop(body, n, state)`` (JAX's ``fori_loop``: one copy to
    compile), in a loop; or, with ``spread`` (NumPy's, on a short array: an
    eighth of the calls), at once, at ``spread(z, n)`` = z + (0, 1, ..., n -
    1) along a new last axis (step i's z is step 2's plus i - 2), summed in
    order, and step 0 only if an element takes it.  The same operations on
    each element in all three."""
    pos = x > 0
    rest = cutoff - 2

    def shift(z, steps, k):
        active = z < cutoff
        w = where(active, z, 1.0)  # (an inactive lane computes a harmless value)
        return where(active, z + 1, z), steps + where(active, step(w, k), 0.0)

    z = where(pos, x, 1.0)
    first = z < 1
    w = where(first, z, 1.0)
    zero = w * 0  # (0 of x's type and shape: not inf*0)
    steps = zero if spread is not None and not first.any() else where(first, step(w, 0), zero)
    z, steps = shift(where(first, z + 1, z), steps, 1)  # from z >= 1: to z >= 2
    if spread is not None:
        zs = spread(z, rest)
        active = zs < cutoff
        each = where(active, step(where(active, zs, 1.0), 2), 0.0)
        for i in range(rest):
            steps = steps + each[..., i]
        z = where(active, zs + 1, zs[..., :1]).max(-1)
    elif loop is None:
        for _ in range(rest):
            z, steps = shift(z, steps, 2)
    else:
        z, steps = loop(lambda st: shift(*st, 2), rest, (z, steps))
    return where(pos, series(1 / z) + steps, where(x == 0, at_zero, x * float("nan")))


def lgamma_remainder(x, where, log1p, log, loop=None, spread=None):
    """``loggamma(x) - (x - 1/2)·log(x) + x - log(2π)/2`` of an array, in the
    array library's ``where``, ``log1p`` and ``log`` (``loop``, ``spread``:
    see ``_remainder``).

    >>> import numpy as np
    >>> lgamma_remainder(np.array([0.3, 9.0, 1e6]), np.where, np.log1p, np.log)
    array([2.36064901e-01, 9.25546218e-03, 8.33333333e-08])
    """
    def step(w, k):
        u = 1 / (2 * w + 1)
        if k:
            t = u * u
            return t * _horner(_LGAMMA_STEP[:LGAMMA_TERMS[k]], t)
        # step 0 (the step is (atanh(u) - u)/u): u <= 1/2 its series; u up to
        # 4/5 as atanh(u) - u = (atanh(v) - v) + (atanh(1/2) - 1/2) + u·v/2
        # with v = (u - 1/2)/(1 - u/2) <= 1/2 (terms of one sign: the log
        # form loses 3.7 bits below 1/2); the log form closer to 0
        near, mid = w >= SERIES_FROM, w >= ADDITION_FROM
        s = where(near, u, where(mid, (u - 0.5) / (1 - 0.5 * u), 0.0))
        t = s * s
        h = _horner(_LGAMMA_STEP[:LGAMMA_TERMS[0]], t)
        return where(near, t * h, where(mid, (s * t * h + _ATANH_HALF + 0.5 * u * s) / u,
                                        (w + 0.5) * (log1p(w) - log(w)) - 1))

    return _remainder(x, where, step, _lgamma_series, float("inf"), loop=loop, spread=spread)


def digamma_remainder(x, where, log1p, log, loop=None, spread=None):
    """``digamma(x) - log(x) + 1/(2x)`` of an array, as :func:`lgamma_remainder`.

    >>> import numpy as np
    >>> digamma_remainder(np.array([0.3, 9.0, 1e6]), np.where, np.log1p, np.log)
    array([-6.31884751e-01, -1.02754383e-03, -8.33333333e-14])
    """
    def step(w, k):
        u = 1 / (2 * w + 1)
        t = u * u
        series = u * t * _horner(_DIGAMMA_STEP[:DIGAMMA_TERMS[k]], t)
        return series if k else where(w >= SERIES_FROM, series,
                                      log1p(w) - log(w) - 0.5 / w - 0.5 / (w + 1))

    return _remainder(x, where, step, _digamma_series, float("-inf"), loop=loop, spread=spread)


@functools.cache
def polygamma_parts(n):
    """``(cutoff, series, weights)`` of :func:`polygamma_remainder` of order
    n >= 1: its series ``r^(n+2) Σ dₖ r^(2k)`` (r = 1/x) from ``cutoff``
    (10 while n <= 6, then further: the first term left out is below 2^-56
    of the first), and its step ``a² bⁿ⁺¹ Σ wᵢ qⁱ`` (a = 1/z, b = 1/(z + 1),
    q = 1 + a).

    >>> polygamma_parts(1)[0], polygamma_parts(1)[2], polygamma_parts(2)[2]
    (10, (0.5,), (-1.0, -1.0))
    """
    bern = _bernoulli(2 * _MOST_TERMS + 2)
    for cutoff in range(STIRLING_FROM, 4 * n + STIRLING_FROM):
        # R_n = D^n Rψ: the n-th derivative of -B_2k/(2k) x^-2k, k >= 1
        d = [(-1) ** n * -bern[2 * k] / (2 * k) * factorial(2 * k + n - 1) / factorial(2 * k - 1)
             for k in range(1, _MOST_TERMS + 2)]
        size = [abs(c) / Fraction(cutoff) ** (2 * k) for k, c in enumerate(d)]
        terms = next((k for k in range(1, _MOST_TERMS + 1) if size[k] < size[0] / 2**56), None)
        if terms is not None:
            break
    # D^(n-1) of a²b²/2 (Leibniz: every term of one sign)
    weights = tuple(float(Fraction((-1) ** (n - 1), 2) * comb(n - 1, i) * factorial(i + 1)
                          * factorial(n - i)) for i in range(n))
    return cutoff, tuple(float(c) for c in d[:terms]), weights


_MOST_TERMS = 30


def polygamma_remainder(n, x, where, log1p=None, log=None, loop=None, spread=None):
    """``polygamma(n, x)`` less its terms ``(-1)^(n-1) ((n-1)!/xⁿ + n!/(2xⁿ⁺¹))``
    (n >= 1), the n-th derivative of :func:`digamma_remainder`, of an
    array: its series from ``cutoff`` (:func:`polygamma_parts`), and below
    the recurrence, whose step ``D^(n-1)[1/(2z²(z + 1)²)]`` is a sum of
    terms of one sign, the remainder's (``log1p`` and ``log`` unused).

    >>> import numpy as np
    >>> polygamma_remainder(1, np.array([0.3, 9.0, 1e6]), np.where)
    array([3.35647566e+00, 2.28064077e-04, 1.66666667e-19])
    """
    cutoff, series, weights = polygamma_parts(n)

    def step(w, k):
        a, b = 1 / w, 1 / (w + 1)
        return (a * a) * b ** (n + 1) * _horner(weights, 1 + a)

    def tail(r):
        return r ** (n + 2) * _horner(series, r * r)

    return _remainder(x, where, step, tail, float("inf") if n % 2 else float("-inf"),
                      cutoff, loop, spread)


# NumPy computes the steps of up to this many elements at once (spread)
_SPREAD = 1024


def _spread(z, n):
    return z[..., None] + np.arange(n, dtype=z.dtype)


def _numpy(of, series, x, cutoff=STIRLING_FROM):
    """NumPy's: the series where x >= cutoff, the recurrence at the other
    elements only (NaN, below 0: NaN), float32 kept; a ufunc's types."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    big = x >= cutoff
    if big.all():
        out = series(1 / x)
    else:
        out = np.empty_like(x)
        out[big] = series(1 / x[big])
        xs = x[~big]
        # (8 rows at once: faster up to 2,000 elements, 3.7 times slower at 20,000)
        rs = of(xs, np.where, np.log1p, np.log, spread=_spread if xs.size <= _SPREAD else None)
        out[~big] = rs
    return out[()]


def _lgamma_remainder(x):
    """:func:`lgamma_remainder` of a NumPy array or scalar (generated code's).

    >>> f"{float(_lgamma_remainder(9.0)):.15e}"  # mpmath: 9.2554621827127329e-03
    '9.255462182712733e-03'
    >>> _lgamma_remainder(np.array([0.0, -1.0, np.inf], np.float32))
    array([inf, nan,  0.], dtype=float32)
    """
    return _numpy(lgamma_remainder, _lgamma_series, x)


def _digamma_remainder(x):
    """:func:`digamma_remainder` of a NumPy array or scalar (generated code's).

    >>> f"{float(_digamma_remainder(9.0)):.15e}"  # mpmath: -1.0275438250538307e-03
    '-1.027543825053831e-03'
    """
    return _numpy(digamma_remainder, _digamma_series, x)


def _polygamma_remainder(n, x):
    """:func:`polygamma_remainder` of a NumPy array or scalar (generated code's).

    >>> f"{float(_polygamma_remainder(1, 9.0)):.15e}"  # mpmath: 2.2806407674747452e-04
    '2.280640767474745e-04'
    """
    cutoff, series, _ = polygamma_parts(n)

    def of(z, where, log1p, log, spread=None):
        return polygamma_remainder(n, z, where, spread=spread)

    return _numpy(of, lambda r: r ** (n + 2) * _horner(series, r * r), x, cutoff)


# ψ's positive root x0 = 1.46163214496836234126265954232572132846819620...
# as three floats whose sum is x0 within 1e-32, the first two of at most 24
# bits (exact in float32): near x0, (x - R1) - R2 is exact in float64 and
# float32 (Sterbenz), so x - x0 is computed to a rounding (Boost's split)
DIGAMMA_ROOT = (1.4616321325302124, 1.243815006546356e-08, -1.2654465062537432e-16)
# ψ(y)/(y - x0) for y in [1, 3] as a polynomial in s = y - 2: Chebyshev
# interpolation (90 nodes, mpmath at 300 bits; benchmarks/fit_digamma_root.py)
# to the first coefficient below 2^-60 of the function, in powers of s:
# within 3.4e-17 of it relatively (the coefficients rounded);
# tests/rewrites/test_gammas.py checks it against mpmath
DIGAMMA_ROOT_POLY = (
    0.7853075386041053, -0.2607389546830014, 0.10899991701762858, -0.049551032917674556,
    0.023447309597549766, -0.011338432553223046, 0.005552254176536144,
    -0.0027395728862799856, 0.0013581421098813344, -0.0006753133229926531,
    0.0003364331278986385, -0.00016781561560296845, 8.377508659378348e-05,
    -4.184365724905356e-05, 2.091081451447697e-05, -1.0451685170553539e-05,
    5.212445133891106e-06, -2.6028093822135453e-06, 1.3308629411671011e-06,
    -6.710409517771273e-07, 2.8091189744546605e-07, -1.323523156579475e-07,
    1.3990472099665014e-07, -7.827281523696487e-08, -3.299171559966835e-08,
    2.248718312653436e-08, 3.846913846622345e-08, -2.2102164509428065e-08,
    -1.183257077685753e-08, 6.735601614678488e-09, 2.944930002207525e-09,
    -1.5781829106223942e-09)
# where digamma() computes ψ itself: JAX's and PyTorch's digamma lose more
# than 3 bits on [1/4, 3] (up to 63 at x0) and at most 2.8 outside (measured)
DIGAMMA_NEAR = (0.25, 3.0)


def digamma_near_root(x, where, kept=None):
    """ψ(x) for 1/4 <= x <= 3, within a few ulps: ``(x - x0)·P(x - 2)`` from
    1, ``(x + 1 - x0)·P(x - 1) - 1/x`` below (terms of one sign below x0 - 1,
    within a factor 1.8 of ψ above), x - x0 and x + 1 - x0 through
    :data:`DIGAMMA_ROOT` (exact to a rounding, however near x is to x0).
    ``kept(v)``: v as computed, where a compiler would fold the three
    subtractions' constants into one (XLA does: 0.0 at the float64 nearest
    x0, ψ there -9.2e-17).

    >>> import numpy as np
    >>> digamma_near_root(np.array([0.3, 1.4616321449683622, 2.5]), np.where)  # mpmath's
    array([-3.50252422e+00, -9.24126552e-17,  7.03156641e-01])
    """
    r1, r2, r3 = DIGAMMA_ROOT
    kept = kept or (lambda v: v)
    up = x < 1
    t = kept(kept(where(up, x - (r1 - 1), x - r1)) - r2) - r3
    return t * _horner(DIGAMMA_ROOT_POLY, where(up, x - 1, x - 2)) \
        - where(up, 1 / where(up, x, 1.0), 0.0)


def digamma(x, where, library, kept=None):
    """ψ(x) of an array: :func:`digamma_near_root` on :data:`DIGAMMA_NEAR`,
    the array library's ``library`` (its digamma) elsewhere.

    >>> import numpy as np, scipy.special
    >>> digamma(np.array([1e-3, 1.4616321449683622, 1e3]), np.where, scipy.special.psi)
    array([-1.00057557e+03, -9.24126552e-17,  6.90725520e+00])
    """
    lo, hi = DIGAMMA_NEAR
    near = (x >= lo) & (x <= hi)
    return where(near, digamma_near_root(where(near, x, 2.0), where, kept), library(x))


# log Γ(2 + t) = t·(c[0] + c[1]·t + ...) for |t| <= 1/2: 1 - γ, then
# (-1)^k (ζ(k) - 1)/k, k = 2 to 30 (the tail below 2^-60), as
# symgrad.codegen.printer.lgamma2_coefficients() (tests/rewrites/test_gammas.py
# checks they are the same floats)
LGAMMA2_SERIES = (
    0.42278433509846713, 0.3224670334241132, -0.0673523010531981, 0.020580808427784546,
    -0.007385551028673986, 0.0028905103307415234, -0.001192753911703261,
    0.0005096695247430425, -0.00022315475845357939, 9.945751278180853e-05,
    -4.492623673813314e-05, 2.050721277567069e-05, -9.439488275268397e-06,
    4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07,
    -4.492469198764566e-07, 2.1207184805554665e-07, -1.0043224823968099e-07,
    4.7698101693639804e-08, -2.2711094608943164e-08, 1.0838659214896955e-08,
    -5.183475041970047e-09, 2.4836745438024785e-09, -1.1921401405860912e-09,
    5.731367241678862e-10, -2.7595228851242334e-10, 1.330476437424449e-10,
    -6.4229645638381e-11, 3.1044247747322276e-11)
# where loggamma() computes log Γ itself, (0, LGAMMA_NEAR): XLA's lgamma
# loses up to 4.9 bits (float64) and 5.0 (float32) on [2.5, 5), 4.2 below
# 1/2, 29 about 1 and 2; from 10 at most 2.3 (measured)
LGAMMA_NEAR = 10.0


def loggamma_near_zeros(x, where, log1p, log):
    """log Γ(x) for 0 < x < :data:`LGAMMA_NEAR`, within a few ulps: with m
    the integer nearest x and t = x - m (exact, |t| <= 1/2), log Γ(2 + t)
    by its series, less ``log1p(t)`` for m <= 1 and ``log(x)`` for m = 0,
    plus ``log((x - 1)(x - 2)···(x - m + 2))`` for m >= 3 (every factor
    exact, at least 3/2: the log of at most 8 roundings).  About 1 and 2
    nothing cancels but ``t·(1 - γ) - t`` (a factor 1.7); below 1/2 the terms
    are of one sign; at a subnormal x it is ``-log(x)`` to the last bit.

    >>> import numpy as np
    >>> loggamma_near_zeros(np.array([1e-300, 1 + 2.0**-52, 2 - 2.0**-52, 7.5]), np.where,
    ...                     np.log1p, np.log)  # mpmath's to the digits shown
    array([ 6.90775528e+02, -1.28167624e-16, -9.38769807e-17,  7.53436424e+00])
    """
    m = (x + 0.5) // 1  # (floor, in every array library)
    t = x - m
    value = t * _horner(LGAMMA2_SERIES, t) - where(m <= 1, log1p(t), 0.0)
    prod = where(x - 1 >= 1.5, x - 1, 1.0)
    for j in range(2, int(LGAMMA_NEAR) - 1):
        prod = prod * where(x - j >= 1.5, x - j, 1.0)
    return value - where(m == 0, log(where(m == 0, x, 1.0)), 0.0) + log(prod)


def loggamma(x, where, log1p, log):
    """log Γ(x) of an array: :func:`loggamma_near_zeros` on (0, 10), Stirling's
    ``x·(log x - 1) - log(x)/2 + log(2π)/2`` plus its series from 10 (the
    terms of one sign but ``-log(x)/2``, at most an eighth of the rest),
    ``inf`` at 0, NaN below (log Γ of a negative real is complex, as NumPy's
    code of it: NaN).

    >>> import numpy as np
    >>> loggamma(np.array([0.0, 1.5, 1e3, np.inf]), np.where, np.log1p, np.log)  # mpmath's
    array([            inf, -1.20782238e-01,  5.90522042e+03,             inf])
    """
    pos = x > 0
    near = x < LGAMMA_NEAR
    w = where(pos & near, x, 2.0)
    finite = x < float("inf")
    z = where(near | ~finite, LGAMMA_NEAR, x)
    lz = log(z)
    far = z * (lz - 1) - 0.5 * lz + _LOG_SQRT_2PI + _lgamma_series(1 / z)
    return where(pos, where(near, loggamma_near_zeros(w, where, log1p, log),
                            where(finite, far, x)),
                 where(x == 0, float("inf"), x * float("nan")))


_LOG_SQRT_2PI = 0.9189385332046728  # log(2π)/2 rounded (mpmath)
