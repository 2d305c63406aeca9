"""Stirling's remainders of log Γ and ψ (:class:`~symgrad.rewrites.forms.lgamma_remainder`,
:class:`~symgrad.rewrites.forms.digamma_remainder`) for JAX and PyTorch code,
without the library's ``lgamma`` or ``digamma``.

NumPy's code computes them from x = 10 by their series in ``1/x²`` and below
as their definitions through ``scipy.special.gammaln``/``psi``, which cancel
(about 10 bits lost near x = 10).  XLA's ``lgamma`` is up to 211 ulps off in
float64 on [1/2, 10] (177 in float32) and its ``digamma`` 34 (PyTorch's 84):
through the definitions the exported remainders lost 2 bits more than NumPy's.
Here both are shifted up to 10 by their recurrences, whose steps have series
with terms of one sign (u = 1/(2z + 1), from ``log1p(1/z) = 2 atanh(u)``)::

    R(z) - R(z + 1)   = (z + 1/2) log1p(1/z) - 1        =  u² Σ u²ʲ/(2j + 3)
    Rψ(z) - Rψ(z + 1) = log1p(1/z) - 1/(2z) - 1/(2z + 2) = -2u³ Σ (2j + 2)/(2j + 3) u²ʲ

and each remainder is of the same sign as its steps: nothing cancels, within
a few ulps for every x > 0 (the step from z < 1/2, where u > 1/2, as
``log1p(z) - log(z)`` for ``log1p(1/z)``: no overflow, and it is then at
least the size of the terms beside it).  Forward values only.
"""

from __future__ import annotations

from ..rewrites.forms import DIGAMMA_SERIES, STIRLING, STIRLING_FROM

__all__ = ["lgamma_remainder", "digamma_remainder"]

# the steps' series in u²: for u <= 1/2 (z >= 1/2) 26 terms leave out less than 2^-54
# of the first, for u <= 1/3 (z >= 1: every step after the first) 16
_STEPS, _STEPS_FROM_1 = 26, 16
_LGAMMA_STEP = tuple(1.0 / (2 * j + 3) for j in range(_STEPS))
_DIGAMMA_STEP = tuple(-2.0 * (2 * j + 2) / (2 * j + 3) for j in range(_STEPS))


def _horner(coeffs, t):
    out = float(coeffs[-1])
    for c in reversed(coeffs[:-1]):
        out = float(c) + t * out
    return out


def _repeated(body, n, state):
    for _ in range(n):
        state = body(state)
    return state


def _remainder(x, where, step, series, at_zero, repeated):
    """The remainder at x (``where`` of the array's library; ``repeated(body,
    n, state)`` applies body n times: JAX's is a loop, not n copies to compile)."""
    pos = x > 0

    def shift(z, steps, below, terms):
        active = z < below
        w = where(active, z, 1.0)  # (an inactive lane computes a harmless value)
        u = 1 / (2 * w + 1)
        return where(active, z + 1, z), steps + where(active, step(w, u, terms), 0.0)

    z = where(pos, x, 1.0)
    zero = where(z < STIRLING_FROM, z, 1.0) * 0  # (0 of x's type and shape: not inf*0)
    z, steps = shift(z, zero, 1.0, _STEPS)  # from z > 0 to z >= 1, then nine reach 10
    z, steps = repeated(lambda st: shift(*st, STIRLING_FROM, _STEPS_FROM_1),
                        STIRLING_FROM - 1, (z, steps))
    r = 1 / z
    return where(pos, series(r) + steps, where(x == 0, at_zero, x * float("nan")))


def lgamma_remainder(x, where, log1p, log, repeated=_repeated):
    """``loggamma(x) - (x - 1/2)·log(x) + x - log(2π)/2`` of an array, in the
    array library's ``where``, ``log1p`` and ``log``.

    >>> import numpy as np
    >>> lgamma_remainder(np.array([0.3, 9.0, 1e6]), np.where, np.log1p, np.log)
    array([2.36064901e-01, 9.25546218e-03, 8.33333333e-08])
    """
    def step(w, u, terms):
        t = u * u
        return where(w >= 0.5, t * _horner(_LGAMMA_STEP[:terms], t),
                     (w + 0.5) * (log1p(w) - log(w)) - 1)

    return _remainder(x, where, step, lambda r: r * _horner(STIRLING, r * r),
                      float("inf"), repeated)


def digamma_remainder(x, where, log1p, log, repeated=_repeated):
    """``digamma(x) - log(x) + 1/(2x)`` of an array, as :func:`lgamma_remainder`.

    >>> import numpy as np
    >>> digamma_remainder(np.array([0.3, 9.0, 1e6]), np.where, np.log1p, np.log)
    array([-6.31884751e-01, -1.02754383e-03, -8.33333333e-14])
    """
    def step(w, u, terms):
        t = u * u
        return where(w >= 0.5, u * t * _horner(_DIGAMMA_STEP[:terms], t),
                     log1p(w) - log(w) - 0.5 / w - 0.5 / (w + 1))

    return _remainder(x, where, step,
                      lambda r: (r * r) * _horner(DIGAMMA_SERIES, r * r), float("-inf"),
                      repeated)
