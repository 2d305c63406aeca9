"""Functions whose ``jax.scipy.special`` form is slow under ``jax.jit`` or
wrong, as generated JAX code calls them (``_jg.erf(t0)``, ``_jg.erfcx(t0)``).

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

import math

__all__ = ["erf", "erfcx", "erf_given", "tanh", "kept", "up", "down", "exp_up", "small_up",
           "unflushed",
           "rounded", "materialized", "pow2", "exp_reduction",
           "exp_table", "log1p", "digamma", "polygamma", "loggamma", "lgamma_remainder",
           "digamma_remainder", "polygamma_remainder",
           "ERF_SERIES",
           "ERF_SERIES_UP_TO"]

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


# erfcx(a) = P(a)/Q(a) on [1, 8) and R(a)/S(a) on [8, 16) (a >= 0): the
# rational approximations of Cephes' ndtr.c (Moshier; scipy's xsf and XLA's
# erfc use them, multiplied by exp(-a*a)), leading coefficients first; Q and S
# with their leading 1.  Beyond 16 the asymptotic series 1/(a sqrt(pi)) *
# sum c_k a**(-2k), c_k = (-1)**k (2k-1)!!/2**k (k <= 8; the first term left
# out is below 2**-57 there).  Each at most 2 ulps (tests/export/test_jax_ops.py).
ERFCX_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
           4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
           9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2)
ERFCX_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
           9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
           1.65666309194161350182e3, 5.57535340817727675546e2)
ERFCX_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
           6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0)
ERFCX_S = (1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1,
           1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0)
ERFCX_ASYMPTOTIC = (7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875,
                    0.75, -0.5, 1.0)
ERFCX_ASYMPTOTIC_FROM = 16.0

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


def erfcx(x, a=None, e=None):
    """erfcx(x) = exp(x**2) erfc(x) of a JAX array, float32 or float64.

    ``jax.scipy.special.erfcx`` computes ``exp(x**2) * erfc(x)`` below
    sqrt(log(max float)) (26.64 in float64, 9.41 in float32), and XLA
    flushes ``erfc(x)`` to 0 where it is subnormal: it returns 0 for x in
    [26.55, 26.64] (float64) and [9.2, 9.41] (float32), where erfcx is
    0.021 / 0.060, and a log Phi gradient exported with it returns inf
    there.  Here, for a = |x|: exp(a**2) (1 - erf(a)) where a < 1 (erf's
    series above), Cephes' rational approximations of erfcx itself on
    [1, 16) and its asymptotic series beyond, no exp(a**2) erfc(a); for
    x < 0, 2 exp(x**2) - erfcx(-x).  At most 4 ulps in float64 for x >= 0
    (JAX's and SciPy's: 5-6), and as JAX's and SciPy's for x < 0, where
    erfcx's own condition number 2x**2 rules.  Only forward values, as
    :func:`erf`.  ``a``, where given, is ``|x|`` (a node of the program, so
    that ``erfcx(x)`` and ``erfcx(-x)`` share the work on ``|x|``: see
    :func:`erf_given`); ``e``, where given too, is ``exp(-x**2)`` as the
    program computes it (stabilize's exact split of the square), and
    ``exp(x**2)`` is read as ``1/e`` (a division, not a second ``exp``;
    more exact, as ``e``'s exponent is split exactly where ``x*x`` is
    rounded).  Generated code passes ``e`` only where erfcx's value is
    selected for ``x >= 0`` alone (:mod:`symgrad.export.erf_shared`): for
    x below -26.6 (float32: -9.34) ``e`` is flushed to 0 while erfcx(x) is
    still finite (tests/export/test_jax_ops.py measures both against mpmath).
    """
    if a is not None:
        return _erfcx(x, a, e)
    if "erfcx" not in _JITTED:
        import jax

        _JITTED["erfcx"] = jax.jit(_erfcx)
    return _JITTED["erfcx"](x)


def erf_given(w, a, e, complement=False, asymptotic=True):
    """erf(w), or erfc(w) with ``complement``, from ``a = |w|`` and ``e =
    exp(-w**2)``, both computed by the calling program (generated code
    passes ``stabilize``'s exact split of the square), no ``exp`` and no
    XLA ``erf``/``erfc`` of its own.  erf: :func:`erf`'s series where ``a <=
    1`` (the same floats), beyond ``sign(w) (1 - erfcx(a) e)`` (erfc(1) =
    0.157: no cancellation).  erfc: ``1 - erf(w)`` by the series where ``a <
    1`` (``1 - w`` kept as a pair: within an ulp for w < 0 too, where XLA's
    erfc is 9 off), beyond ``erfcx(a) e`` (``w > 0``) or ``2 - erfcx(a) e``.
    Both and :func:`erfcx` compute the same ``erfcx(a)`` past 1 (Cephes'
    rational approximations of ``a``), which XLA computes once for every
    call on the same ``a`` (GELU-erf's and log Φ's branches).  Without
    ``asymptotic``, Cephes' R/S past 16 as well, not erfcx's asymptotic
    series (3.1 ulps of erfcx on [16, 27.3] against the series' 1.7, measured
    on 6,000 points): generated code asks so where ``e`` is one ``exp`` of a
    square rounded in floats (its relative error up to a**2 u/2, 128 ulps
    and more past 16) and no ``erfcx`` of ``a`` is in the program; the
    series' 9 products cost the derived log Φ gradient 0.6 ms of 6.5 per
    10^6 float64 points and changed none of its floats.  Forward
    values only, as :func:`erf` and :func:`erfcx` (a helper of generated
    code: tests/export/test_jax_ops.py measures it against mpmath).

    >>> import jax, jax.numpy as jnp, numpy as np
    >>> both = jax.jit(lambda w, a, e: (erf_given(w, a, e), erf_given(w, a, e, complement=True)))
    >>> w = np.array([-3.0, 0.5, 3.0])
    >>> with jax.enable_x64():
    ...     erf, erfc = both(w, np.abs(w), np.exp(-w * w))
    >>> np.asarray(erf).tolist()  # mpmath: the same floats
    [-0.9999779095030014, 0.5204998778130465, 0.9999779095030014]
    >>> np.asarray(erfc).tolist()  # mpmath: ..., 2.209049699858544e-05 (1 ulp)
    [1.9999779095030015, 0.4795001221869535, 2.2090496998585445e-05]
    """
    import jax.numpy as jnp

    w = _floating(w)
    c = _erfcx_large(a, asymptotic) * e
    if complement:
        small = a < 1.0
        s = jnp.where(small, w, 0.0)
        h = 1 - s  # 1 - s as the pair (h, l) (Fast2Sum: |s| < 1): exact where s < 0 too
        # the series of |s| (the same floats: even in s), erfcx's own (one for both)
        y = _erf_series(jnp.where(small, a, 0.0))
        return jnp.where(small, h + (((1 - h) - s) - s * y), jnp.where(w < 0, 2 - c, c))
    small = a <= ERF_SERIES_UP_TO
    s = jnp.where(small, w, 0.0)
    return jnp.where(small, s + s * _erf_series(s), jnp.sign(w) * (1 - c))


def _horner(coefs, x):
    y = coefs[0]
    for c in coefs[1:]:
        y = y * x + c
    return y


def _floating(x):
    """``x`` as a JAX array of a floating type (integers as JAX's default float)."""
    import jax.numpy as jnp

    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.floating) else x.astype(jnp.result_type(float))


def _erf_series(s):
    """y(s*s) of :data:`ERF_SERIES` (erf(s) = s + s y)."""
    z = s * s
    y = ERF_SERIES[-1]
    for c in ERF_SERIES[-2::-1]:
        y = y * z + c
    return y


def _erfcx(x, a=None, e=None):
    import jax.numpy as jnp

    x = _floating(x)
    a = jnp.abs(x) if a is None else a
    # each piece on its own interval only (elsewhere a harmless stand-in):
    # no overflow, no inf * 0 for JAX's autodiff of the selection
    small = a < 1.0
    neg = x < 0
    s = jnp.where(small, a, 0.0)
    y = _erf_series(s)
    # exp(a*a): the small branch's and the negative one's (one exp for both),
    # or 1/exp(-a*a) where the program computes that
    w = jnp.exp(jnp.where(small | neg, a * a, 0.0)) if e is None else 1 / jnp.asarray(e)
    e0 = w * ((1 - s) - s * y)
    e = jnp.where(small, e0, _erfcx_large(a))
    return jnp.where(neg, 2 * w - e, e)


def _erfcx_large(a, asymptotic=True):
    """erfcx(a) for a >= 1 (elsewhere a finite stand-in), from ``a`` only:
    the same operations wherever it is called on the same ``a``; without
    ``asymptotic``, R/S past 16 too (about 3 ulps to 27.3, 21 at 10^8)."""
    import jax.numpy as jnp

    pq = a < 8.0
    m = jnp.where((a < 1.0) | ~pq, 2.0, a)
    rs = a < ERFCX_ASYMPTOTIC_FROM
    r = 1 / jnp.where(pq, 10.0, a)  # R/S in 1/a: no overflow of a**6; the series' 1/a
    # P/Q or R/S as one quotient (the same floats as each alone): two divisions
    # in all, where each piece's own were five (a division costs as ~10 products)
    num = jnp.where(pq, _horner(ERFCX_P, m), r * _horner(ERFCX_R[::-1], r))
    den = jnp.where(pq, _horner(ERFCX_Q, m), _horner(ERFCX_S[::-1], r))
    if not asymptotic:
        return num / den
    e3 = _horner(ERFCX_ASYMPTOTIC, r * r) * (r * 0.5641895835477563)  # 1/sqrt(pi)
    return jnp.where(rs, num / den, e3)


# tanh(x) = x + x z P(z)/Q(z), z = x*x, for |x| < 0.625: Cephes' tanh.c
# (Moshier), leading coefficients first, Q with its leading 1; beyond,
# 1 - 2/(exp(2|x|) + 1), signed
TANH_P = (-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3)
TANH_Q = (1.0, 1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3)
TANH_SMALL = 0.625


def tanh(x):
    """tanh(x) of a JAX array, float32 or float64, to about an ulp: XLA's
    float64 ``tanh`` is 6.5 ulps off near x = 19 (-0.9999999999999992 at
    -19.99, where the exact value rounds to -1.0), float32's 3.8, and
    ``1 - tanh(x)**2`` or ``x tanh(x) + sin(x)**2``'s gradient amplify that
    (49.5 bits lost under JAX over (-100, 100), NumPy's code 3-4).  Here, at
    most 1.2 ulps (tests/export/test_jax_ops.py), at about twice XLA's
    cost (2026-11-29, 10^6 points under ``jax.jit``, load 12: float64 3.6
    against 2.0 ms, float32 0.84 against 0.43; the derived GELU-tanh
    gradient 5.3 against 3.5 ms with XLA's, 1.66x JAX's own autodiff where
    XLA's would be 1.09x).  Only forward values, as :func:`erf`; JAX's autodiff of
    it is the derivative of its pieces (1 at 0: the zero is ``x`` itself).

    >>> import jax, jax.numpy as jnp, numpy as np
    >>> with jax.enable_x64():
    ...     float(tanh(np.float64(-19.99)))  # XLA's: -0.9999999999999992
    -1.0
    """
    if "tanh" not in _JITTED:
        import jax

        _JITTED["tanh"] = jax.jit(_tanh)
    return _JITTED["tanh"](x)


def _tanh(x):
    import jax.numpy as jnp

    x = _floating(x)
    a = jnp.abs(x)
    small = a < TANH_SMALL
    s = jnp.where(small, x, 0.0)  # each piece on its own interval only
    z = s * s
    near = s + s * (z * _horner(TANH_P, z) / _horner(TANH_Q, z))
    b = jnp.where(small, 1.0, a)
    far = 1 - 2 / (jnp.exp(2 * b) + 1)  # (exp overflows to inf: 1)
    return jnp.where(small, jnp.where(x == 0, x, near), jnp.where(x < 0, -far, far))


# log(1 + f) = f - (f**2/2 - s (f**2/2 + R(s**2))), s = f/(2 + f), for
# 1 + f in [sqrt(2)/2, sqrt(2)]: fdlibm's e_log.c (Sun, 1993; its Lg1 ... Lg7,
# a minimax fit of (log(1+f) - 2s)/s - s**2 ... below 2**-58.45), within an ulp
LOG_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
          2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
          1.479819860511658591e-01)
# ln 2 as hi + lo, hi with its low bits zero (k * hi exact for the type's exponents)
LOG_LN2 = {"float64": (6.93147180369123816490e-01, 1.90821492927058770002e-10),
           "float32": (6.9313812256e-01, 9.0580006145e-06)}


def log1p(x):
    """log1p(x) of a JAX array, float32 or float64, within about an ulp
    (other float types: ``jnp.log1p``):
    XLA's float64 ``log1p`` is up to 128 ulps off for x in [-0.414, -0.352]
    (1.3% of 45,000 points, against mpmath), and in the mish gradient's
    fused kernel it cost 12.6 ms of 28.4 per 10^6 float64 points under
    ``jax.jit`` (this: 19.5 in all; JAX's own gradient of mish 16.4), though
    in a kernel of exponentials and sums it adds 4.8 ms against this one's
    4.0: how XLA fuses it there, not traced.
    u = 1 + x rounded and its exact error r (TwoSum's), u = 2**k m with m in
    [sqrt(2)/2, sqrt(2)) from its exponent bits, log(m) by fdlibm's
    polynomial, k ln 2 in two parts, plus r/u (|r/u| <= 2**-53: its first
    order).  JAX's autodiff of it (``lambdify(..., backend="jax")`` code
    differentiated by JAX) is ``log1p``'s own derivative, 1/(1 + x) (a
    ``custom_jvp``: the exponent bits have none; tests/export/test_jax_ops.py).

    >>> import jax, numpy as np
    >>> with jax.enable_x64():
    ...     np.asarray(log1p(np.array([1e-300, -0.5, 1.0, 1e300, -1.0, -2.0, np.inf]))).tolist()
    [1e-300, -0.6931471805599453, 0.6931471805599453, 690.7755278982137, -inf, nan, inf]
    """
    if "log1p" not in _JITTED:
        import jax

        fn = jax.custom_jvp(_log1p)
        fn.defjvp(lambda p, t: (fn(p[0]), t[0] / (1 + p[0])))
        _JITTED["log1p"] = jax.jit(fn)
    # computed once for all its readers (:func:`materialized`): XLA copied its
    # ~40 operations into each fused loop reading it (mish's stabilized
    # gradient, 10^6 float64 points: 23.8 -> 20.8 ms; 60.7 -> 28.0 with the
    # flush guards of xla_guards.flushed_terms_scaled, which read it again)
    return materialized(_JITTED["log1p"](x))


def _log1p(x):
    import jax.numpy as jnp
    from jax import lax

    x = _floating(x)
    if x.dtype not in (jnp.float32, jnp.float64):  # (bfloat16, float16: XLA's own)
        return jnp.log1p(x)
    wide = x.dtype == jnp.float64
    it, mant, bias = (jnp.int64, 52, 1023) if wide else (jnp.int32, 23, 127)
    hi, lo = LOG_LN2["float64" if wide else "float32"]
    u = rounded(1 + x)
    fine = (u > 0) & (u < _INF)
    v = jnp.where(fine, u, 1.0)  # (the others' values are set below)
    # r = (1 + x) - u exactly (TwoSum, the larger of 1 and |x| first); kept
    # apart from XLA's algebraic simplifier, which folds (1 + x) - 1 into x
    r = jnp.where(jnp.abs(x) <= 1, x - (v - 1), 1 - (v - x))
    bits = lax.bitcast_convert_type(v, it)
    k = (bits >> mant) - bias
    m = lax.bitcast_convert_type((bits & ((1 << mant) - 1)) | (bias << mant), x.dtype)
    big = m > 1.4142135623730951
    m = jnp.where(big, m * 0.5, m)
    k = (k + big.astype(it)).astype(x.dtype)
    f = m - 1  # exact (Sterbenz)
    s = f / (2 + f)
    z = s * s
    w = z * z
    lg = LOG_LG
    t1 = w * (lg[1] + w * (lg[3] + w * lg[5]))
    t2 = z * (lg[0] + w * (lg[2] + w * (lg[4] + w * lg[6])))
    hfsq = 0.5 * f * f
    out = k * hi - ((hfsq - (s * (hfsq + t1 + t2) + (k * lo + r / v))) - f)
    out = jnp.where(u == 1, x, out)  # (x itself where 1 + x rounds to 1: -0.0 too)
    return jnp.where(fine, out, jnp.where(u == 0, -_INF, jnp.where(u == _INF, u, jnp.nan)))


def kept(v):
    """``v`` behind ``jax.lax.optimization_barrier``: XLA's algebraic
    simplifier rewrites ``exp(a) * exp(b)`` as ``exp(a + b)``, which undoes
    an exponent split exactly in two (``exp(-x**2/2)`` from the square's
    exact parts lost 8 bits at x = 10-26 under ``jax.jit``, NumPy's code of
    the same form 1.6); generated code multiplies a second exponential
    through this (about 1.4 ms per 10^6 float64 points)."""
    from jax import lax

    return lax.optimization_barrier(v)


def rounded(v):
    """``v`` (a product) as its own rounded float wherever a sum reads it:
    XLA on the CPU contracts a product and the sum that reads it into one
    fused multiply-add under its default flags (``x*x - y*y`` at x = y = 1.3
    is -5.3e-17 under ``jax.jit``, not 0), which changes the exact error
    terms of pairs of floats (TwoSum of a rounded product, Dekker's split)
    and exact cancellations.  A selection between two forms of ``v`` that
    are the same float (``v + v`` is ``v`` where ``v < inf`` is false:
    inf or NaN) stops the contraction (LLVM fuses a multiplication only
    into the addition that reads it directly) and is not simplified away,
    where ``lax.optimization_barrier`` is (XLA removes it before fusion),
    as are ``v + 0.0``, ``v * 1`` and no-op conversions (measured, jax
    0.10.2).

    >>> import jax, jax.numpy as jnp
    >>> kept = jax.jit(lambda x, y: rounded(x * x) - rounded(y * y))
    >>> float(kept(jnp.float32(1.3), jnp.float32(1.3)))  # x*x - y*y fused: 5.7e-08
    0.0
    """
    import jax.numpy as jnp

    return jnp.where(v < _INF, v, v + v)


_INF = float("inf")


def materialized(v):
    """``v`` (every float, inf and NaN alike), computed once for all that read
    it: ``v / 1`` with the 1 made from ``v`` (``v * 0 + 1``, or 1 where that
    is NaN), which XLA cannot fold.  XLA's fusion copies a chain of cheap
    operations (multiplications, additions, selections) into every fused
    loop that reads it, and splits loops at its costly operations (a
    division, ``pow``): a pair ``exp`` (about 150 multiplications a value)
    read by a division and by sums was computed four times per point in
    ``x tanh(x) + sin(x)**2``'s stabilized gradient.  A division is costly,
    so XLA computes it once and stores it; generated code passes the outputs
    of the pair transcendentals (``_dd_exp``, ``_dd_sincos``, ...) through
    this (session 11, export11: that gradient 429 -> 343 ms per 10^6 points,
    with :func:`pow2`, under ``jax.jit``, the values bitwise the same).

    >>> import jax, jax.numpy as jnp, numpy as np
    >>> v = np.array([1.5, -0.0, np.inf, -np.inf, np.nan, 1e-300])
    >>> with jax.enable_x64():
    ...     np.asarray(jax.jit(materialized)(v)).tolist()
    [1.5, -0.0, inf, -inf, nan, 1e-300]
    """
    import jax.numpy as jnp

    z = v * 0
    return v / jnp.where(z == z, z + 1, 1.0)


def _significand(x):
    """``(m, e)`` with ``x = m * 2**e`` exactly and ``m`` normal: a subnormal
    ``x`` as its significand's bits read as an integer (exact: under 2**52,
    2**23 in float32) times 2**-1074 (-149); any other ``x`` as ``(x, 0)``.
    XLA on the CPU flushes a subnormal operand to zero, and its ``frexp``
    and ``ldexp`` of one are wrong: ``frexp(3e-320)`` is (0.5, -1074),
    ``ldexp(3e-320, 1000)`` is 3e-320."""
    import jax.numpy as jnp
    from jax import lax

    x = jnp.asarray(x)
    if x.dtype == jnp.float64:
        it, mant, low = jnp.int64, 52, -1074
    elif x.dtype == jnp.float32:
        it, mant, low = jnp.int32, 23, -149
    else:
        return x, jnp.zeros(x.shape, jnp.int32)
    bits = lax.bitcast_convert_type(x, it)
    frac = bits & ((1 << mant) - 1)
    sub = ((bits >> mant) & ((1 << (x.dtype.itemsize * 8 - 1 - mant)) - 1) == 0) & (frac != 0)
    m = jnp.where(bits < 0, -frac, frac).astype(x.dtype)
    return jnp.where(sub, m, x), jnp.where(sub, low, 0).astype(jnp.int32)


def subnormal(x):
    """Where ``x`` is subnormal, read from its bits (XLA compares a flushed
    subnormal equal to 0).

    >>> import jax, jax.numpy as jnp, numpy as np
    >>> with jax.enable_x64():
    ...     np.asarray(subnormal(jnp.array([3e-320, 0.0, 1e-300, -5e-324]))).tolist()
    [True, False, False, True]
    """
    import jax.numpy as jnp

    return _significand(x)[1] != 0 if jnp.asarray(x).dtype in (jnp.float64, jnp.float32) \
        else jnp.zeros(jnp.shape(x), bool)


def frexp(x):
    """``numpy.frexp`` of a JAX array, subnormals included (:func:`_significand`).

    >>> import jax, jax.numpy as jnp, numpy as np
    >>> with jax.enable_x64():
    ...     m, e = frexp(jnp.array([3e-320, 1.5, 0.0]))
    >>> np.asarray(m).tolist(), np.asarray(e).tolist()
    ([0.7412109375, 0.75, 0.0], [-1061, 1, 0])
    """
    import jax.numpy as jnp

    m, e = _significand(x)
    f, g = jnp.frexp(m)
    return f, g + e


def ldexp(x, k):
    """``numpy.ldexp`` of a JAX array, a subnormal ``x`` included (a subnormal
    result is flushed, as XLA flushes every subnormal).

    >>> import jax, jax.numpy as jnp, numpy as np
    >>> with jax.enable_x64():
    ...     np.asarray(ldexp(jnp.array([3e-320, 1.5]), jnp.array([1000, 2]))).tolist()
    [3.21449003483007e-19, 6.0]
    """
    import jax.numpy as jnp

    m, e = _significand(x)
    return jnp.ldexp(m, jnp.asarray(k).astype(jnp.int32) + e)


def pow2(k):
    """2**k for integral floats ``k`` of a JAX array, float32 or float64,
    made from its exponent bits: exact, as ``numpy.ldexp(1, k)``, for k in
    the type's normal exponents, inf above them and 0 below (XLA flushes
    subnormals).  ``jnp.ldexp`` is a ``frexp`` and a float ``pow``, and XLA
    splits its fused loops at each ``pow`` (pairs' ``exp`` and ``log``
    scale by two of these per point).

    >>> import jax, jax.numpy as jnp, numpy as np
    >>> with jax.enable_x64():
    ...     np.asarray(jax.jit(pow2)(jnp.array([-1022.0, -1.0, 0.0, 3.0, 1023.0, 1024.0]))).tolist()
    [2.2250738585072014e-308, 0.5, 1.0, 8.0, 8.98846567431158e+307, inf]
    """
    import jax.numpy as jnp
    from jax import lax

    k = jnp.asarray(k)
    if k.dtype == jnp.float64:
        it, bias, mant = jnp.int64, 1023, 52
    elif k.dtype == jnp.float32:
        it, bias, mant = jnp.int32, 127, 23
    else:
        return jnp.ldexp(jnp.ones_like(k), k.astype(jnp.int32))
    inside = jnp.clip(k, 1 - bias, bias)
    bits = lax.bitcast_convert_type((inside.astype(it) + bias) << mant, k.dtype)
    return jnp.where(k > bias, _INF, jnp.where(k < 1 - bias, 0.0, bits)).astype(k.dtype)


# XLA on the CPU flushes subnormal floats to zero, results and operands
# (jax 0.10.2; its xla_cpu_ftz flag changes nothing): a sum whose terms are
# subnormal where the sum is normal (SiLU's gradient (x e^x + e^x + e^2x)/...
# at x = -712: e^x lost, 43 bits) is computed as its terms times 2**UP,
# each made without a subnormal value, and scaled back
# (:func:`symgrad.export.xla_guards.flushed_terms_scaled`)
UP = 64


def up(v):
    """``v * 2**UP`` (exact where ``v`` is normal and the product finite)."""
    return v * 2.0**UP


def down(v):
    """``v * 2**-UP``."""
    return v * 2.0**-UP


def exp_up(e, h):
    """``e * 2**UP`` for ``e = exp(u)``, ``h = exp(u/2)``: ``e`` scaled where
    it is normal, else ``(h * 2**UP) * h`` (two roundings), which XLA
    computes without the subnormal ``e`` (and does not fold into
    ``exp(u) * 2**UP``: its simplifier's ``exp(a) * exp(b)`` needs the two
    factors side by side; no :func:`kept`, whose barrier splits XLA's
    fused loop).

    >>> import jax, numpy as np
    >>> u = np.array([-712.0, -1.0])
    >>> with jax.enable_x64():
    ...     got = jax.jit(lambda u: exp_up(jax.numpy.exp(u), jax.numpy.exp(u / 2)))(u)
    ...     bool(np.allclose(np.asarray(got) * 2.0**-64, np.exp(u), rtol=1e-15, atol=0))
    True
    """
    import jax.numpy as jnp

    tiny = jnp.finfo(jnp.result_type(e)).tiny
    return jnp.where(e >= tiny, e * 2.0**UP, (h * 2.0**UP) * h)


# f(v) of a tiny v is v rounded (f(v) = v (1 + O(v**2)) for sin, tanh, ...; v
# (1 + O(v)) for log1p and expm1) below this power of the type's epsilon
_SMALL = {1: 0.5, 2: 1.0}


def small_up(sv, fv, kind):
    """``f(v) * 2**UP`` for ``f(v) = fv`` of a ``v`` whose value times 2**UP
    is ``sv``: ``sv`` where ``|v|`` is so small that ``f(v)`` rounds to
    ``v`` (``kind`` 1: f(v) = v (1 + O(v**2)), below sqrt(eps)/2; 2: v (1 +
    O(v)), below eps/2), else ``fv * 2**UP``."""
    import jax.numpy as jnp

    eps = float(jnp.finfo(jnp.result_type(fv)).eps)
    limit = eps ** _SMALL[kind] / 2 * 2.0**UP
    return jnp.where(jnp.abs(sv) < limit, sv, fv * 2.0**UP)


def unflushed(v, sv):
    """``v``, or ``sv * 2**-UP`` (``sv`` the same value made times 2**UP
    without subnormal terms) where ``|v|`` is small enough for a flushed
    subnormal term to change its last bits (below tiny/eps times 4) and
    ``sv`` is finite.

    >>> import jax, numpy as np
    >>> x = np.array([-712.0, -3.0])  # (x + 1) e^x: e^-712 is subnormal
    >>> def f(x):
    ...     e, h = jax.numpy.exp(x), jax.numpy.exp(x / 2)
    ...     return unflushed(e + x * e, exp_up(e, h) + x * exp_up(e, h))
    >>> with jax.enable_x64():
    ...     got = np.asarray(jax.jit(f)(x))
    >>> import mpmath  # exactly: (x + 1) e^x rounded once
    >>> want = [float((mpmath.mpf(v) + 1) * mpmath.exp(v)) for v in x]
    >>> # within an ulp (-3: three roundings, which XLA may compile differently)
    >>> [abs(g - w) <= abs(w) * 2.0**-52 for g, w in zip(got.tolist(), want)]
    [True, True]
    """
    import jax.numpy as jnp

    fi = jnp.finfo(jnp.result_type(v))
    low = float(fi.tiny) / float(fi.eps) * 4
    return jnp.where((jnp.abs(v) < low) & jnp.isfinite(sv), sv * 2.0**-UP, v)


EXP_TABLE_BITS = 8  # 2**(j/256) for j = -128 ... 128
_TABLES: dict = {}


def exp_reduction(dtype) -> tuple:
    """The constants of a pair ``exp`` by table, in float type ``dtype``:
    (256/ln 2, ln(2)/256 as three floats c1 + c2 + c3, and 2**(j/256) - 1
    for j = -128 ... 128 as pairs: two arrays hi, lo).  x = k ln 2 +
    j ln(2)/256 + r with |r| <= ln(2)/512, so expm1(x - k ln 2) is
    T + q + T q, T the table's entry and q = expm1(r) a short series: one
    pair product where NumPy's pairs squared expm1(r) back eight times
    (generated JAX code's ``_dd_reduced``).  Made with mpmath at 200 bits,
    once per type.

    >>> import numpy as np
    >>> inv, c1, c2, c3, hi, lo = exp_reduction(np.float64)
    >>> len(hi), float(hi[128]), float(hi[-1] + lo[-1])  # 2**0 - 1, 2**0.5 - 1
    (257, 0.0, 0.41421356237309503)
    """
    import mpmath
    import numpy as np

    t = np.dtype(dtype)
    if t.name not in _TABLES:
        with mpmath.workprec(200):
            n = 2 ** EXP_TABLE_BITS
            step = mpmath.log(2) / n
            c1 = t.type(float(step))
            c2 = t.type(float(step - mpmath.mpf(float(c1))))
            c3 = t.type(float(step - mpmath.mpf(float(c1)) - mpmath.mpf(float(c2))))
            vals = [mpmath.power(2, mpmath.mpf(j) / n) - 1 for j in range(-n // 2, n // 2 + 1)]
            hi = np.array([float(v) for v in vals]).astype(t)
            lo = np.array([float(v - mpmath.mpf(float(h))) for v, h in zip(vals, hi)]).astype(t)
        _TABLES[t.name] = (t.type(float(n / mpmath.log(2))), c1, c2, c3, hi, lo)
    return _TABLES[t.name]


_EXP_TABLES: dict = {}


def exp_table(k, lo: int, hi: int, *coeffs: int):
    """exp(c0 + c1 k + c2 k² + ...) at the integral floats ``k`` of a JAX
    array, each in [lo, hi], by a table of its ``hi - lo + 1`` values
    (``coeffs``: each c as two integers, numerator and denominator): each
    entry is exp of the exact exponent correctly rounded to float64 (mpmath
    at 96 bits), then to ``k``'s type; NaN where ``k`` is.  An exactly split
    square's second factor, ``exp(-k**2/8192)`` with k = floor(64 min(64,
    |x|)), costs an XLA ``exp`` (about 3 ms per 10^6 float64) where a lookup
    in 4097 values does not (generated code: :mod:`symgrad.export.exp_tables`).

    >>> import jax, numpy as np
    >>> k = np.array([0.0, 3.0, 4096.0, np.nan])  # exp(-k**2/8192) at these
    >>> with jax.enable_x64():
    ...     np.asarray(jax.jit(lambda k: exp_table(k, 0, 4096, 0, 1, 0, 1, -1, 8192))(k)).tolist()
    [1.0, 0.9989019704635819, 0.0, nan]
    """
    import jax.numpy as jnp

    k = jnp.asarray(k)
    key = (lo, hi, coeffs, k.dtype.name)
    if key not in _EXP_TABLES:
        _EXP_TABLES[key] = _exp_values(lo, hi, coeffs, k.dtype)
    i = jnp.clip(k - lo, 0, hi - lo).astype(jnp.int32)
    return jnp.where(k == k, jnp.take(_EXP_TABLES[key], i), k)


def _exp_values(lo: int, hi: int, coeffs: tuple, dtype):
    import mpmath
    import numpy as np

    cs = [mpmath.mpf(p) / q for p, q in zip(coeffs[::2], coeffs[1::2])]
    with mpmath.workprec(96):
        vals = [float(mpmath.exp(mpmath.fsum(c * k**j for j, c in enumerate(cs))))
                for k in range(lo, hi + 1)]
    return np.asarray(vals, np.float64).astype(dtype)


def _remainder(name, *order):
    if (name, *order) not in _JITTED:  # one compiled kernel when called eagerly, not 300 ops
        import jax
        import jax.numpy as jnp

        from ..rewrites import remainders

        fn = getattr(remainders, name)
        def loop(body, n, state):
            return jax.lax.fori_loop(0, n, lambda _, s: body(s), state)

        _JITTED[(name, *order)] = jax.jit(
            lambda x: fn(*order, x, jnp.where, log1p, jnp.log, loop))
    return _JITTED[(name, *order)]


def digamma(x):
    """ψ(x) at x (JAX array): :func:`symgrad.rewrites.remainders.digamma`,
    XLA's digamma outside [1/4, 3], where it is within 2.8 bits (it loses
    63 bits at ψ's root and 4-9 across [1/2, 5/2], float64 and float32).

    >>> import jax.numpy as jnp
    >>> f"{float(digamma(jnp.float32(1.4616321))):.6e}"  # mpmath: -1.20360525e-08
    '-1.203605e-08'
    """
    if "digamma" not in _JITTED:  # one compiled kernel when called eagerly
        import jax
        import jax.numpy as jnp
        import jax.scipy.special as jsp

        from ..rewrites import remainders

        _JITTED["digamma"] = jax.jit(
            lambda x: remainders.digamma(x, jnp.where, jsp.digamma, rounded))
    return _JITTED["digamma"](x)


def loggamma(x):
    """log Γ(x) at x (JAX array): :func:`symgrad.rewrites.remainders.loggamma`,
    no XLA lgamma (up to 5 bits lost on (0, 10), 29 about 1 and 2, 2.3
    beyond; ``jax.scipy.special.loggamma`` is NaN at 0), and faster than it.

    >>> import jax.numpy as jnp
    >>> f"{float(loggamma(jnp.float32(2.0) - 2.0**-23)):.6e}"  # mpmath: -5.03998156e-08
    '-5.039982e-08'
    """
    if "loggamma" not in _JITTED:  # one compiled kernel when called eagerly
        import jax
        import jax.numpy as jnp

        from ..rewrites import remainders

        _JITTED["loggamma"] = jax.jit(
            lambda x: remainders.loggamma(x, jnp.where, log1p, jnp.log))
    return _JITTED["loggamma"](x)


def polygamma(n, x):
    """ψ⁽ⁿ⁾(x) at x (JAX array), n a Python integer: :func:`digamma` for
    n = 0, else ``(-1)^(n+1) n!·ζ(n + 1, x)`` with n! exact (XLA's polygamma
    under ``jax.jit`` is 3.5 bits off in float64 everywhere, 4.2 in
    float32: its n! is exp(lgamma(n + 1))).

    >>> import jax.numpy as jnp
    >>> f"{float(polygamma(1, jnp.float32(1.5))):.6e}"  # mpmath: 9.3480220e-01
    '9.348022e-01'
    """
    import jax.scipy.special as jsp

    n = int(n)
    if n == 0:
        return digamma(x)
    return (-1) ** (n + 1) * float(math.factorial(n)) * jsp.zeta(n + 1.0, x)


def lgamma_remainder(x):
    """Stirling's remainder of log Γ at x (JAX array), within a few ulps, for
    :class:`~symgrad.rewrites.forms.lgamma_remainder`
    (:mod:`symgrad.rewrites.remainders`: no ``lgamma``, XLA's is up to
    211 ulps off).

    >>> import jax.numpy as jnp
    >>> f"{float(lgamma_remainder(jnp.float32(9.0))):.5e}"  # to an ulp (XLA's contractions)
    '9.25546e-03'
    """
    return _remainder("lgamma_remainder")(x)


def digamma_remainder(x):
    """``digamma(x) - log(x) + 1/(2x)`` at x (JAX array), within a few ulps,
    for :class:`~symgrad.rewrites.forms.digamma_remainder`
    (:mod:`symgrad.rewrites.remainders`: no ``digamma``).

    >>> import jax.numpy as jnp
    >>> f"{float(digamma_remainder(jnp.float32(9.0))):.5e}"  # mpmath: -1.02754383e-03
    '-1.02754e-03'
    """
    return _remainder("digamma_remainder")(x)


def polygamma_remainder(n, x):
    """``polygamma(n, x)`` less its first terms at infinity, at x (JAX array),
    for :class:`~symgrad.rewrites.forms.polygamma_remainder`
    (:mod:`symgrad.rewrites.remainders`: no ``polygamma``, whose difference
    with those terms cancels).

    >>> import jax.numpy as jnp
    >>> f"{float(polygamma_remainder(1, jnp.float32(9.0))):.5e}"  # mpmath: 2.28064077e-04
    '2.28064e-04'
    """
    return _remainder("polygamma_remainder", int(n))(x)
