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
           "_polygamma_remainder"]

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
