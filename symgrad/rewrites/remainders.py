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

from fractions import Fraction

import numpy as np

__all__ = ["STIRLING_FROM", "STIRLING", "DIGAMMA_SERIES", "LGAMMA_TERMS", "DIGAMMA_TERMS",
           "lgamma_remainder", "digamma_remainder", "_lgamma_remainder",
           "_digamma_remainder"]

# B_2, B_4, ..., B_20 (tests/rewrites/test_remainders.py checks them against SymPy's)
_BERNOULLI = tuple(Fraction(*p) for p in (
    (1, 6), (-1, 30), (1, 42), (-1, 30), (5, 66), (-691, 2730), (7, 6), (-3617, 510),
    (43867, 798), (-174611, 330)))

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
LGAMMA_TERMS = (27, 17, 12)
DIGAMMA_TERMS = (29, 18, 13)
_LGAMMA_STEP = tuple(1.0 / (2 * j + 3) for j in range(LGAMMA_TERMS[0]))
_DIGAMMA_STEP = tuple(-2.0 * (2 * j + 2) / (2 * j + 3) for j in range(DIGAMMA_TERMS[0]))


def _horner(coeffs, t):
    out = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        out = c + t * out
    return out


def _remainder(x, where, step, direct, series, at_zero, terms, loop=None, spread=None):
    """The remainder at x (``where`` of the array's library): step 0 takes
    z < 1 to z + 1 (``step(u, terms)``, the series, from ``SERIES_FROM``,
    ``direct(w)`` below), step 1 z < 2 to z + 1, then steps 2 to 9 take z
    to 10: unrolled; or, with ``loop(body, n, state)`` (JAX's ``fori_loop``:
    one copy to compile), in a loop; or, with ``spread`` (NumPy's, on a
    short array: an eighth of the calls), at once, at ``spread(z)`` = z +
    (0, 1, ..., 7) along a new last axis (step i's z is step 2's plus i - 2),
    summed in order, and step 0 only if an element takes it.  The same
    operations on each element in all three."""
    pos = x > 0

    def shift(z, steps, n):
        active = z < STIRLING_FROM
        w = where(active, z, 1.0)  # (an inactive lane computes a harmless value)
        return where(active, z + 1, z), steps + where(active, step(1 / (2 * w + 1), n), 0.0)

    z = where(pos, x, 1.0)
    first = z < 1
    w = where(first, z, 1.0)
    zero = w * 0  # (0 of x's type and shape: not inf*0)
    steps = zero if spread is not None and not first.any() else \
        where(first, where(w >= SERIES_FROM, step(1 / (2 * w + 1), terms[0]), direct(w)), zero)
    z, steps = shift(where(first, z + 1, z), steps, terms[1])  # from z >= 1: to z >= 2
    if spread is not None:
        zs = spread(z)
        active = zs < STIRLING_FROM
        w = where(active, zs, 1.0)
        each = where(active, step(1 / (2 * w + 1), terms[2]), 0.0)
        for i in range(STIRLING_FROM - 2):
            steps = steps + each[..., i]
        z = where(active, zs + 1, zs[..., :1]).max(-1)
    elif loop is None:
        for _ in range(STIRLING_FROM - 2):
            z, steps = shift(z, steps, terms[2])
    else:
        z, steps = loop(lambda st: shift(*st, terms[2]), STIRLING_FROM - 2, (z, steps))
    r = 1 / z
    return where(pos, series(r) + steps, where(x == 0, at_zero, x * float("nan")))


def lgamma_remainder(x, where, log1p, log, loop=None, spread=None):
    """``loggamma(x) - (x - 1/2)·log(x) + x - log(2π)/2`` of an array, in the
    array library's ``where``, ``log1p`` and ``log`` (``loop``, ``spread``:
    see ``_remainder``).

    >>> import numpy as np
    >>> lgamma_remainder(np.array([0.3, 9.0, 1e6]), np.where, np.log1p, np.log)
    array([2.36064901e-01, 9.25546218e-03, 8.33333333e-08])
    """
    def step(u, terms):
        t = u * u
        return t * _horner(_LGAMMA_STEP[:terms], t)

    def direct(w):
        return (w + 0.5) * (log1p(w) - log(w)) - 1

    return _remainder(x, where, step, direct, lambda r: r * _horner(STIRLING, r * r),
                      float("inf"), LGAMMA_TERMS, loop, spread)


def digamma_remainder(x, where, log1p, log, loop=None, spread=None):
    """``digamma(x) - log(x) + 1/(2x)`` of an array, as :func:`lgamma_remainder`.

    >>> import numpy as np
    >>> digamma_remainder(np.array([0.3, 9.0, 1e6]), np.where, np.log1p, np.log)
    array([-6.31884751e-01, -1.02754383e-03, -8.33333333e-14])
    """
    def step(u, terms):
        t = u * u
        return u * t * _horner(_DIGAMMA_STEP[:terms], t)

    def direct(w):
        return log1p(w) - log(w) - 0.5 / w - 0.5 / (w + 1)

    return _remainder(x, where, step, direct,
                      lambda r: (r * r) * _horner(DIGAMMA_SERIES, r * r), float("-inf"),
                      DIGAMMA_TERMS, loop, spread)


# NumPy computes the steps of up to this many elements at once (spread)
_SPREAD = 1024


def _spread(z):
    return z[..., None] + np.arange(STIRLING_FROM - 2, dtype=z.dtype)


def _numpy(of, series, x):
    """NumPy's: the series where x >= 10, the recurrence at the other
    elements only (NaN, below 0: NaN), float32 kept; a ufunc's types."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    big = x >= STIRLING_FROM
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
    return _numpy(lgamma_remainder, lambda r: r * _horner(STIRLING, r * r), x)


def _digamma_remainder(x):
    """:func:`digamma_remainder` of a NumPy array or scalar (generated code's).

    >>> f"{float(_digamma_remainder(9.0)):.15e}"  # mpmath: -1.0275438250538307e-03
    '-1.027543825053831e-03'
    """
    return _numpy(digamma_remainder, lambda r: (r * r) * _horner(DIGAMMA_SERIES, r * r), x)
