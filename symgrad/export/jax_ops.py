"""Functions whose ``jax.scipy.special`` form is slow under ``jax.jit``, as
generated JAX code calls them (``_jg.erf(t0)``).

XLA on the CPU computes a float64 ``erf`` one element at a time (a scalar
library call), and that serializes the whole fused loop it sits in: every
other operation of the kernel then runs unvectorized too (measured under
``jax.jit``, 10^6 points: ten exponentials and sums alone 83 ms, the same
with one ``jsp.erf`` 302 ms; ``erfc``, ``erfcx``, ``tanh``, ``log1p`` leave
it at 84-92).  Here ``erf`` is written in operations XLA vectorizes.  Only
forward values: the derivatives of exported code are symgrad's; JAX's
autodiff of ``lambdify(..., backend="jax")`` code differentiates these
operations (a polynomial and ``erfc``), which is the derivative's series.
"""

from __future__ import annotations

__all__ = ["erf", "ERF_SERIES", "ERF_SERIES_UP_TO"]

# erf(x) = x + x*y(x*x) for |x| <= 1: y's Taylor coefficients, those of
# 2/sqrt(pi) * sum (-1)**n x**(2n) / (n! (2n + 1)) with 1 taken from the
# first (mpmath at 200 bits, rounded; tests/export/test_jax_ops.py checks
# them); the next term is below 2**-61 at |x| = 1
ERF_SERIES = (
    0.1283791670955126, -0.37612638903183754, 0.11283791670955126, -0.026866170645131252,
    0.005223977625442188, -0.0008548327023450853, 0.00012055332981789664,
    -1.492565035840625e-05, 1.6462114365889248e-06, -1.6365844691234924e-07,
    1.4807192815879218e-08, -1.2290555301717928e-09, 9.422759064650411e-11,
    -6.7113668551641105e-12, 4.4632242632864775e-13, -2.7835162072109215e-14,
    1.6342614095367152e-15, -9.063970842808673e-17, 4.763348040515068e-18,
)
ERF_SERIES_UP_TO = 1.0


_JITTED: dict = {}


def erf(x):
    """erf(x) of a JAX array: float64 from the Taylor series where |x| <= 1
    and from ``1 - erfc(|x|)`` beyond (erfc(1) = 0.157: no cancellation);
    other types through ``jax.scipy.special.erf`` (XLA vectorizes float32's).

    As accurate as ``jax.scipy.special.erf`` (at most 1 ulp at 2 x 20,000
    points of [-6, 6], tests/export/test_jax_ops.py), and more than SciPy's
    (3 ulps), which symgrad's NumPy code calls.
    """
    if "erf" not in _JITTED:  # one compiled kernel when called eagerly, not 45 ops
        import jax

        _JITTED["erf"] = jax.jit(_erf)
    return _JITTED["erf"](x)


def _erf(x):
    import jax.numpy as jnp
    import jax.scipy.special as jsp

    x = jnp.asarray(x)
    if x.dtype != jnp.float64:
        return jsp.erf(x)
    a = jnp.abs(x)
    small = a <= ERF_SERIES_UP_TO
    s = jnp.where(small, x, 0.0)  # the series only where it is used (JAX's grad: no inf*0)
    z = s * s
    y = ERF_SERIES[-1]
    for c in ERF_SERIES[-2::-1]:
        y = y * z + c
    return jnp.where(small, s + s * y, jnp.sign(x) * (1 - jsp.erfc(a)))
