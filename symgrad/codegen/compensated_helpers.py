"""What the code of ``compensated(u)`` calls (:mod:`symgrad.codegen.compensating`).

Real code, linted and tested here; a generated module carries this text
(after this docstring and the imports) so that ``numpy_code`` stays
NumPy-only and a pickled function loads without symgrad.
"""

import numpy as np


# compensated(): values as unevaluated sums hi + lo of two floats of the
# working type (error-free transformations: TwoSum, Dekker's TwoProduct).
class _DDConsts(dict):
    """A constant per float type, made on first use: every type works (the
    long double too, where compensated code runs inside widen())."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, t):
        v = self[t] = self.make(np.dtype(t))
        return v


# Dekker's splitting constant 2**ceil(p/2) + 1 of a type of p bits
_DD_SPLIT = _DDConsts(lambda t: t.type(2.0 ** ((np.finfo(t).nmant + 2) // 2) + 1))
# below 4x the smallest normal float, a product's error term is not kept (the
# plain product, within half its ulp): above, TwoProduct's error term, even
# where it is subnormal (its partial products round to the subnormals'
# spacing), is within 1.5 of that spacing (measured on 200,000 products per
# type, every binade from the subnormals up), closer than the plain product
# (half an ulp of p: 2 or more spacings).  Two products of ~4e-300 that
# cancel to 1.6e-302 (a 3x3 determinant of tiny entries): 0.4 ulp, where
# dropping every error term below 2**-969 lost 113 ulps, more than the plain
# formula's 16.  Backends that flush subnormals to zero keep the exact band
# (JAX: symgrad.export.source)
_DD_TINY = _DDConsts(lambda t: np.finfo(t).tiny * 4)
_DD_BIG = _DDConsts(lambda t: np.finfo(t).max / _DD_SPLIT[t])
_DD_DOWN = _DDConsts(lambda t: t.type(2.0 ** -(np.finfo(t).nmant // 2 + 2)))
_DD_UP = _DDConsts(lambda t: t.type(2.0 ** (np.finfo(t).nmant // 2 + 2)))
# the largest high half of a split (a float of p bits: its top p - s), scaled
# down by _DD_DOWN: 2**E - 2**(E - p + s), E = maxexp - the scaling's exponent
_DD_TOP = _DDConsts(lambda t: t.type(2 - 2.0 ** ((np.finfo(t).nmant + 2) // 2 - np.finfo(t).nmant))
                    * t.type(2) ** (np.finfo(t).maxexp - np.finfo(t).nmant // 2 - 3))
# the largest k such that magnitudes below 2**k cannot make a guard below fire
# in the type (no product of two overflows, no split is of a big number)
_DD_BOUNDED = _DDConsts(lambda t: (np.finfo(t).maxexp - 1) // 2 - 2)


def _dd_ok(k, *values):
    """Whether ``k`` (the code generator's proof, from interval bounds over
    the domain, that a helper's operands, partial values and result are below
    2**k in magnitude; None: no proof) keeps the overflow guards from firing
    in the values' working type: then they are left out (the same values)."""
    return k is not None and k <= _DD_BOUNDED[np.result_type(*values)]


def _dd_fin(e):
    """An error term, 0 where it is not finite (its operation overflowed)."""
    return np.where(np.isfinite(e), e, 0)


def _dd_two_sum(a, b, ok=False):
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    if ok:
        return s, e
    finite = np.isfinite(e)
    if np.all(finite):  # (cheaper than _dd_fin's selection: 10^6 sums 16.9 -> 13.9 ms)
        return s, e
    # s - a overflows where s is finite, in the top binade (a = -5.7088e307,
    # b = max: 15% of such sums lost their low part): there Fast2Sum ordered by
    # magnitude, whose s - big cannot overflow; 0 where s itself is not finite
    # (a branch on the data: JAX's and PyTorch's exports keep _dd_fin's)
    first = np.abs(a) >= np.abs(b)
    big, small = np.where(first, a, b), np.where(first, b, a)
    return s, np.where(finite, e, np.where(np.isfinite(s), small - (s - big), 0))


def _dd_fast(s, e, ok=False):
    h = s + e
    e = e - (h - s)
    return h, e if ok else _dd_fin(e)


def _dd_rounded(v):
    """``v``, a product read as the float it rounds to (TwoProduct's ``p``,
    Dekker's ``c``): a backend whose compiler fuses a product into the sum
    that reads it (XLA on the CPU: one multiply-add) replaces this helper
    by one that keeps the rounding (:func:`symgrad.export.jax_ops.rounded`)."""
    return v


def _dd_split(a, ok=False):
    if type(a) in (int, float):  # a literal every float type holds (11 bits at most)
        return a, 0.0
    t = np.result_type(a)
    big = None if ok else np.abs(a) > _DD_BIG[t]  # ok (_dd_ok): no big number, no test
    if big is not None and np.any(big):  # a * splitter would overflow: split a scaled by 2^-k
        s = np.where(big, a * _DD_DOWN[t], a)
        c = _dd_rounded(s * _DD_SPLIT[t])
        h = c - (c - s)
        # a high half rounded up past the largest float scaled down (|a| in the
        # top 2**-(p - s) of the range) is the largest high half, truncated: the
        # split stays exact (a - h below 2**s) where h * 2**k was inf, and
        # TwoProduct's error term NaN, dropped (exp(a*x) - 1 at a*x = 709.78)
        top = np.minimum(np.maximum(h, -_DD_TOP[t]), _DD_TOP[t])  # (NaN stays NaN)
        h = np.where(big, top * _DD_UP[t], h)
        return h, a - h
    c = _dd_rounded(a * _DD_SPLIT[t])
    h = c - (c - a)
    return h, a - h


def _dd_two_prod(a, b, ok=False):
    p = _dd_rounded(a * b)
    ah, al = _dd_split(a, ok)
    bh, bl = _dd_split(b, ok)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    # 0 where not finite, and where p is so small (below _DD_TINY) that its
    # error, rounded to the subnormals, is no closer than the plain product
    tiny = np.abs(p) >= _DD_TINY[np.result_type(p)]
    return p, np.where(tiny if ok else np.isfinite(e) & tiny, e, 0)


def _dd_hi(a):
    return a[0] if isinstance(a, tuple) else a


def _dd_out(a):
    """The pair rounded to one float: to nearest; a pair of a type wider
    than float64 (computed inside ``widen()``, cast down after) to odd, so
    that the cast rounds the pair's value once (a long double rounded to
    nearest then to float64 rounds twice: NMSE 3.4.2's value 2**-65 under
    float64's overflow threshold rounded to the threshold, then to inf)."""
    if not isinstance(a, tuple):
        return a
    s = a[0] + a[1]
    t = np.result_type(s)
    if getattr(t, "kind", "") != "f" or t.itemsize <= 8:
        return s
    e = a[1] - (s - a[0])  # its rounding error (Fast2Sum: the pair is normalized)
    m, _ = np.frexp(s)
    even = np.fmod(np.ldexp(m, np.finfo(t).nmant + 1), 2) == 0
    away = np.where(e > 0, np.inf, -np.inf).astype(t)
    return np.where(even & (e != 0) & np.isfinite(e), np.nextafter(s, away), s)[()]


def _ddc(h, lo, like):
    """The constant h + lo (float64s) as a pair of the type of ``like``."""
    t = np.result_type(like, 1.0)
    hi = np.asarray(h, t)[()]
    return hi, np.asarray((h - float(hi)) + lo, t)[()]


def _dd_mod(a, m):
    """A float or pair ``a`` modulo ``m`` (a float), exactly: the IEEE
    remainder (fmod) of each float is exact, and their pair sum too."""
    if not isinstance(a, tuple):
        return np.fmod(a, m)
    return _dd_two_sum(np.fmod(a[0], m), np.fmod(a[1], m))


def _dd_neg(a):
    return (-a[0], -a[1]) if isinstance(a, tuple) else -a


def _dd_abs(a):
    if not isinstance(a, tuple):
        return np.abs(a)
    s = np.where(a[0] < 0, -1, 1).astype(np.result_type(a[0]))
    return a[0] * s, a[1] * s


def _dd_max(a, b):
    """max(a, b) of floats or pairs, as a pair: the one whose value is the
    larger (the sign of the pair a - b decides), NaN where either is."""
    return _dd_pick(a, b, 1)


def _dd_min(a, b):
    """min(a, b) of floats or pairs, as a pair (as :func:`_dd_max`)."""
    return _dd_pick(a, b, -1)


def _dd_pick(a, b, sign):
    ah, al = a if isinstance(a, tuple) else (a, a * 0)
    bh, bl = b if isinstance(b, tuple) else (b, b * 0)
    d = _dd_add(a, _dd_neg(b))
    d0, d1 = d[0] * sign, d[1] * sign
    take = (d0 > 0) | ((d0 == 0) & (d1 >= 0)) | (ah != ah)
    hi = np.where(take, ah, bh)
    lo = np.where(take, al, bl)
    nan = (ah != ah) | (bh != bh)
    return np.where(nan, ah + bh, hi), np.where(nan, 0 * lo, lo)


def _dd_add(a, b, k=None):
    """a + b (floats or pairs) as a pair; ``k``: see :func:`_dd_ok`."""
    if not isinstance(a, tuple):
        a, b = b, a
    ok = _dd_ok(k, _dd_hi(a), _dd_hi(b))
    if not isinstance(a, tuple):
        return _dd_two_sum(a, b, ok)
    if not isinstance(b, tuple):
        s, e = _dd_two_sum(a[0], b, ok)
        return _dd_fast(s, e + a[1], ok)
    s, e = _dd_two_sum(a[0], b[0], ok)
    t, f = _dd_two_sum(a[1], b[1], ok)
    s, e = _dd_fast(s, e + t, ok)
    return _dd_fast(s, e + f, ok)


def _dd_mul(a, b, k=None):
    """a * b (floats or pairs) as a pair; ``k``: see :func:`_dd_ok`."""
    if not isinstance(a, tuple):
        a, b = b, a
    ok = _dd_ok(k, _dd_hi(a), _dd_hi(b))
    if type(b) in (int, float) and float(b).hex().lstrip("-").startswith("0x1.0000000000000p"):
        # b = ±2**j, a literal: a*b is exact where p is normal, so TwoProduct's
        # error is +0 where it is kept (p finite, not below _DD_TINY) and NaN
        # where ok keeps it for an overflowed p: the same pair without Dekker's splits
        p = _dd_hi(a) * b
        e = np.where(np.abs(p) >= _DD_TINY[np.result_type(p)], p - p, 0) if ok \
            else np.zeros_like(p)
        if not isinstance(a, tuple):
            return p, e
        e = e + a[1] * b
        return _dd_fast(p, e if ok else _dd_fin(e), ok)
    if not isinstance(a, tuple):
        return _dd_two_prod(a, b, ok)
    if not isinstance(b, tuple):
        p, e = _dd_two_prod(a[0], b, ok)
        e = e + a[1] * b
        return _dd_fast(p, e if ok else _dd_fin(e), ok)
    p, e = _dd_two_prod(a[0], b[0], ok)
    e = e + (a[0] * b[1] + a[1] * b[0])
    return _dd_fast(p, e if ok else _dd_fin(e), ok)


def _dd_prod_b(k, *factors):
    """The product of three or more factors (floats, pairs, one literal
    first) as a pair, computed on their significands (frexp: in [1/2, 1))
    and scaled back once by the sum of their exponents (ldexp); ``k``: see
    :func:`_dd_ok` (the significands' products are below 1 wherever the
    inputs are finite).  The same pair as the chain of :func:`_dd_mul`
    wherever no partial product of the chain leaves the normal range; where
    one would (an underflow to the subnormals then a factor of 10: a 3x3
    determinant's subnormal result 7.6 spacings off), the partial products
    keep their error terms and only the result is rounded into the
    subnormals.  A pair's low part is not scaled with its high part (by its
    high part's exponent it may fall deep into the subnormals and round: in
    float32, ``2*(x - y)`` at x = -76.3, y = -3.67e-39, the pair (-76.3,
    3.67e-39) scaled by 2**-7, 428 spacings off the exact 2|y| once the
    ``2*(x - z)`` at z = 0 cancelled its high part): its first-order term
    ``l_i * prod_{j != i} h_j`` is added to the result's low part, scaled
    by the other factors' exponents first (within the result's range), then
    by their significands."""
    acc, e, sig, exps, lows = None, 0, [], [], []
    for f in factors:
        if type(f) in (int, float):  # a literal: its significand, a literal too
            m, ef = np.frexp(float(f))
            m, ef = float(m), int(ef)
        else:
            m, ef = np.frexp(f[0] if isinstance(f, tuple) else f)
            if isinstance(f, tuple):
                lows.append((len(sig), f[1]))
        acc = m if acc is None else _dd_mul(acc, m, k)
        sig.append(m)
        exps.append(ef)
        e = e + ef
    if not isinstance(acc, tuple):
        acc = (acc, acc * 0)
    lo = np.ldexp(acc[1], e)
    for i, low in lows:
        c = np.ldexp(low, e - exps[i])
        for j, m in enumerate(sig):
            if j != i:
                c = c * m
        lo = lo + (c if _dd_ok(k, c) else _dd_fin(c))
    return np.ldexp(acc[0], e), lo


def _dd_prod(*factors):
    """:func:`_dd_prod_b` with the overflow guards (no bound known)."""
    return _dd_prod_b(None, *factors)


def _dd_div(a, b):
    a0, a1 = a if isinstance(a, tuple) else (a, 0)
    b0, b1 = b if isinstance(b, tuple) else (b, 0)
    q = a0 / b0
    over = np.isinf(q)
    if np.any(over):
        # a0/b0 past the largest float where the pair's quotient may not be (b0
        # is b rounded: NMSE 3.4.2's eps/(1 - 5.7e-17) at eps = 1.8e308, 2**-65
        # under the overflow threshold): there a halved, the pair doubled at the
        # end; a normalized pair's hi doubles to the correctly rounded value of
        # twice the pair, inf only from the threshold on.  (A branch on the data,
        # for the rare case's cost: JAX's export overrides it by selections.)
        t = np.result_type(q)
        half = over & np.isfinite(a0) & (b0 != 0)
        s = np.where(half, 0.5, 1.0).astype(t)
        a0 = a0 * s
        h, lo = _dd_div_pair(a0, a1 * s, b0, b1, a0 / b0)
        u = np.where(half, 2.0, 1.0).astype(t)
        return h * u, lo * u
    return _dd_div_pair(a0, a1, b0, b1, q)


def _dd_div_pair(a0, a1, b0, b1, q):
    """The pair quotient of (a0, a1) by (b0, b1), q = a0/b0 (rounded)."""
    p, e = _dd_two_prod(q, b0)
    r = (((a0 - p) - e) + a1) - q * b1
    c = r / b0
    return _dd_fast(q, np.where(np.isfinite(c) & (np.abs(q) >= _DD_TINY[np.result_type(q)]),
                                c, 0))


def _dd_sqrt(a):
    a0, a1 = a if isinstance(a, tuple) else (a, 0)
    s = np.sqrt(a0)
    p, e = _dd_two_prod(s, s)
    return _dd_fast(s, _dd_fin((((a0 - p) - e) + a1) / (2 * s)))


def _dd_hypot(a, b):
    """hypot(a, b) of floats or pairs as a pair, to about twice the type's
    precision (np.hypot of the high parts to first order keeps one float's:
    TNG's eigenvalue, a quotient by a sum of two hypots, read inf where its
    value is the largest float): both scaled by the power of two that brings
    the larger into [1/2, 1) (no square overflows; a square that underflows is
    below the other by twice the type's precision), the pair root of the pair
    sum of squares, scaled back (a normalized pair's hi scales to the
    correctly rounded value: inf only past the overflow threshold)."""
    a0, a1 = a if isinstance(a, tuple) else (a, a * 0)
    b0, b1 = b if isinstance(b, tuple) else (b, b * 0)
    m = np.maximum(np.abs(a0), np.abs(b0))
    k = np.where(np.isfinite(m), np.frexp(m)[1], 0)
    x = (np.ldexp(a0, -k), np.ldexp(a1, -k))
    y = (np.ldexp(b0, -k), np.ldexp(b1, -k))
    h, lo = _dd_sqrt(_dd_add(_dd_mul(x, x), _dd_mul(y, y)))
    inf = np.isinf(a0) | np.isinf(b0)  # (hypot(inf, nan) is inf)
    return np.where(inf, np.inf, np.ldexp(h, k)), np.where(inf, 0, np.ldexp(lo, k))


def _dd_fun(f, *parts):
    """f(hi) corrected to first order: parts are (f_i'(hi), argument i).  Only
    where each |lo| < 1: the functions' own scale (a period, exp's e-fold);
    beyond (cos(1e150)'s lo is 1e134) the first order means nothing."""
    lo = None
    for d, a in zip(parts[::2], parts[1::2]):
        if isinstance(a, tuple):
            term = np.where(np.abs(a[1]) < 1, d * a[1], 0)
            lo = term if lo is None else lo + term
    if lo is None:
        return f
    return _dd_two_sum(f, _dd_fin(lo))


# the largest k such that a normalized pair below 2**k has |lo| < 1 with margin
_DD_LOW = _DDConsts(lambda t: np.finfo(t).nmant - 1)


def _dd_fun_b(k, f, *parts):
    """``_dd_fun`` where 2**k bounds f, each partial and each argument (the
    code generator's proof over the domain): within the type's limits
    (``_dd_ok``, and |lo| < 1 for every argument below 2**k) its guards
    cannot fire and are left out (the same values)."""
    if not (_dd_ok(k, f) and k <= _DD_LOW[np.result_type(f)]):
        return _dd_fun(f, *parts)
    lo = None
    for d, a in zip(parts[::2], parts[1::2]):
        if isinstance(a, tuple):
            lo = d * a[1] if lo is None else lo + d * a[1]
    if lo is None:
        return f
    return _dd_two_sum(f, lo, True)


# exp, expm1, log and log1p of pairs, as pairs (a double-float exp, not the
# function of the rounded value: exp(x) - y keeps its bits where it cancels)
def _dd_const(h, lo, t):
    """The constant h + lo (float64s) as a pair of type ``t``."""
    hi = t.type(h)
    return hi, t.type((h - float(hi)) + lo)


def _dd_series_terms(t):
    """Terms of expm1's Taylor series at |s| <= ln(2)/2**9, to twice the
    type's precision."""
    s, n, term = 0.3466 / 2.0**_DD_SQUARINGS, 1, 0.3466 / 2.0**_DD_SQUARINGS
    while term / s >= 2.0 ** (-2 * (np.finfo(t).nmant + 1) - 4):
        n += 1
        term = term * s / n
    return n


_DD_SQUARINGS = 8
_DD_LN2 = _DDConsts(lambda t: _dd_const(0.6931471805599453, 2.3190468138462996e-17, t))
# ln 2 - the pair _DD_LN2 as one float: k ln 2 of the reduction to 3p bits,
# not 2p (|k| up to 2**10 times the pair's 2**-2p made exp(-700) 100 bits)
_DD_LN2_3 = _DDConsts(lambda t: t.type(
    ((0.6931471805599453 - float(_DD_LN2[t][0])) - float(_DD_LN2[t][1]))
    + 2.3190468138462996e-17 + 5.707708438416212e-34))
_DD_INVLN2 = _DDConsts(lambda t: t.type(1.4426950408889634))
# past this |x| exp(x) is 0 or inf in the type (its exponents, subnormals included)
_DD_EXPMAX = _DDConsts(lambda t: t.type((np.finfo(t).maxexp + np.finfo(t).nmant + 3)
                                        * 0.6931471805599453))
_DD_TERMS = _DDConsts(_dd_series_terms)
_DD_SMALL = _DDConsts(lambda t: t.type(0.3466 / 2.0**_DD_SQUARINGS))
# 1/n! as pairs, n = 0 ... (exact rational, then split: float64 h + lo)
_DD_INVFACT = _DDConsts(lambda t: [_dd_inv_factorial(n, t) for n in range(_DD_TERMS[t] + 1)])


def _dd_plain_from(t):
    """The first index m of expm1's series at |s| <= ln(2)/2**9 whose terms
    s**m/m! on are below 2**-(p+4) of s, p the type's bits (6 in float64, 4
    in float32): those are summed in floats."""
    s, m, term = 0.3466 / 2.0**_DD_SQUARINGS, 2, (0.3466 / 2.0**_DD_SQUARINGS) / 2
    while term >= 2.0 ** (-(np.finfo(t).nmant + 1) - 4):  # term: s**(m-1)/m!
        m += 1
        term = term * s / m
    return min(m, _DD_TERMS[t])


_DD_PLAIN = _DDConsts(_dd_plain_from)


def _dd_inv_factorial(n, t):
    from fractions import Fraction
    from math import factorial

    q = Fraction(1, factorial(n))
    h = float(q)
    return _dd_const(h, float(q - Fraction(h)), t)


def _dd_pow2(k):
    """2**(k//2), 2**(k - k//2) for integral float k: each a power of two
    the type holds (ldexp: exact, where exp2 need not be), their product
    scaling a pair exactly."""
    k = np.where(np.isfinite(k), k, 0)
    k1 = np.rint(k * 0.5)
    one = np.ones_like(k)
    return np.ldexp(one, k1.astype(np.int32)), np.ldexp(one, (k - k1).astype(np.int32))


def _dd_expm1_series(s, t):
    """expm1(s) of a pair |s| <= 2**-9 of type ``t``, as a pair: its Taylor
    series.  The terms from s**m/m! on are below 2**-(p+4) of expm1(s) (p the
    type's bits): their sum in floats, over s's high part, is as good as in
    pairs (as _dd_sincos_small's tail); in pairs from there down to s (every
    value below 2: no guard, _dd_ok)."""
    coeffs = _DD_INVFACT[t]
    m = _DD_PLAIN[t]
    q = coeffs[-1][0]
    for c in coeffs[-2:m - 1:-1]:
        q = q * s[0] + c[0]
    for c in coeffs[m - 1:0:-1]:
        q = _dd_add(_dd_mul(q, s, 1), c, 1)
    return _dd_mul(q, s, 1)


def _dd_exp_table(t):
    """The pair exp's reduction in type ``t``: (256/ln 2, ln(2)/256 as three
    floats c1 + c2 + c3, and 2**(j/256) - 1 for j = -128 ... 128 as pairs:
    two arrays hi, lo), the constants of the JAX and PyTorch exports' table
    (:func:`symgrad.export.jax_ops.exp_reduction`).  2**(1/256) to 200 bits
    by eight integer square roots, its powers by integer products (each
    entry within 2**-190), each entry's pair to the type's own precision
    (the long double's too: its whole weight is in the value); once per
    process and type (a generated module shares symgrad's table where
    symgrad is there)."""
    try:
        from symgrad.codegen import compensated_helpers

        shared = compensated_helpers._DD_EXP_TABLE
    except ImportError:
        shared = None
    if shared is not None and shared is not _DD_EXP_TABLE:
        return shared[t]
    import math
    from fractions import Fraction

    bits = 200
    root = 1 << (256 * bits + 1)
    for _ in range(8):  # floor(2**(1/256) 2**200): nested floors of square roots
        root = math.isqrt(root)
    w, vals = 1 << bits, []
    for _ in range(-128, 0):  # 2**(j/256) for j < 0: 2**((j + 256)/256) / 2
        w = (w * root) >> bits
    w = w >> 1
    for _ in range(257):
        vals.append(Fraction(w, 1 << bits) - 1)
        w = (w * root) >> bits
        if len(vals) == 128:  # (j = 0: exactly 1; go on from there)
            w = 1 << bits
    def near(w):  # w to about the type's precision (as two float64s: long double too)
        h = float(w)
        return t.type(h) + t.type(float(w - Fraction(h)))

    hi = np.array([near(v) for v in vals], t)
    lo = np.array([near(v - Fraction(*h.as_integer_ratio())) for v, h in zip(vals, hi)], t)
    c1, c2 = (v * t.type(2.0**-8) for v in _DD_LN2[t])
    return t.type(256 * 1.4426950408889634), c1, c2, _DD_LN2_3[t] * t.type(2.0**-8), hi, lo


_DD_EXP_TABLE = _DDConsts(_dd_exp_table)


def _dd_reduced(a):
    """For x = a (a float or a pair, clipped to where exp is 0 or inf): k
    integral and expm1(x - k ln 2) as a pair (|x - k ln 2| <= ln(2)/2): x =
    k ln 2 + j ln(2)/256 + r with |r| <= ln(2)/512, expm1(r) by its series
    (:func:`_dd_expm1_series`), then T + q + T q with T = 2**(j/256) - 1
    (:data:`_DD_EXP_TABLE`): one pair product where expm1(r/256) was squared
    back eight times (the exports' reduction since session 15; NumPy's
    until session 17: 14 pair products, 7 now)."""
    ah, al = a if isinstance(a, tuple) else (a, 0)
    t = np.result_type(ah, 1.0)
    inv, c1, c2, c3, th, tl = _DD_EXP_TABLE[t]
    big = _DD_EXPMAX[t]
    x = np.where(ah > big, big, np.where(ah < -big, -big, ah))
    m = np.rint(x * inv)  # |m| < 2**19 (float64), 2**16 (float32): exact
    k = np.rint(m * 0.5**8)
    j = m - 256 * k  # -128 ... 128
    # (x - m c1 is exact: Sterbenz where m != 0; every value bounded, _dd_ok)
    p, e = _dd_two_prod(m, c1, True)
    r = _dd_add(_dd_two_sum(x - p, -e, True), _dd_neg(_dd_two_prod(m, c2, True)), 1)
    r = _dd_add(r, -(m * c3), 1)
    if isinstance(a, tuple):
        r = _dd_add(r, np.where(x == ah, al, 0))
    q = _dd_expm1_series(r, t)
    i = np.where(j == j, j + 128, 128).astype(np.intp)  # (NaN: any entry)
    tj = (np.take(th, i), np.take(tl, i))
    return k, _dd_add(_dd_add(tj, q, 1), _dd_mul(tj, q, 1), 1)


def _dd_scaled(y, k):
    f1, f2 = _dd_pow2(k)
    return (y[0] * f1) * f2, _dd_fin((y[1] * f1) * f2)


def _dd_exp(a):
    """exp(a) of a float or pair, as a pair (to about twice the type's
    precision; 0 and inf where exp is)."""
    k, q = _dd_reduced(a)
    return _dd_scaled(_dd_add(q, 1, 1), k)


def _dd_expm1(a):
    """expm1(a) of a float or pair, as a pair."""
    k, q = _dd_reduced(a)
    y = _dd_add(_dd_scaled(_dd_add(q, 1, 1), k), -1)
    return np.where(k == 0, q[0], y[0]), np.where(k == 0, q[1], y[1])


def _dd_log(a):
    """log(a) of a float or pair, as a pair: a = m 2**e (e = rint(log2 a)),
    log(m) by one Newton step from the float log (z + m exp(-z) - 1, in
    pairs), plus e ln 2 (about twice the type's precision, relative);
    NaN, -inf, inf as the float log gives."""
    ah, al = a if isinstance(a, tuple) else (a, 0)
    t = np.result_type(ah, 1.0)
    y0 = np.log(ah)
    ok = np.isfinite(y0)
    e = np.rint(np.where(ok, y0, 0) * _DD_INVLN2[t])
    f1, f2 = _dd_pow2(-e)
    m = ((ah * f1) * f2, (al * f1) * f2)
    # z: log(m) to first order in the low part; then m exp(-z) - 1 as
    # (m - 1)(expm1(-z) + 1) + expm1(-z), each term accurate relative to z
    z = np.log(m[0]) + m[1] / m[0]
    q = _dd_expm1(-z)
    # (m in [2**-0.5, 2**0.5], |z| and |q| below 1, |e ln 2| below 2**10 where
    # the log is finite, and elsewhere the float log is returned: no guard
    # can fire on a value returned, _dd_ok)
    u = _dd_add(_dd_mul(_dd_add(m, -1, 1), _dd_add(q, 1, 1), 1), q, 1)
    ln2h, ln2l = _DD_LN2[t]
    out = _dd_add(_dd_add(u, z, 1), _dd_add(_dd_two_prod(e, ln2h, True),
                                            _dd_two_prod(e, ln2l, True), 10), 10)
    return np.where(ok, out[0], y0), np.where(ok, _dd_fin(out[1]), 0)


def _dd_log1p(a):
    """log1p(a) of a float or pair, as a pair: the log of the pair u = 1 + a,
    plus r/u, where r = a - (u - 1) is the part of ``a`` that u dropped (u
    holds 1 + a only to about 2**-2p of 1, p the type's bits: all of a tiny
    pair's low part).  log1p(a) = log(u) + log1p(r/u), and |r/u| is below
    2**-2p, so its first order is enough: accurate relative to log1p(a) for
    tiny ``a`` too, where log(u) alone loses the low part of exp(-700)."""
    u = _dd_add(a, 1)
    r = _dd_add(a, _dd_neg(_dd_add(u, -1)))
    c = r[0] / u[0]
    out = _dd_log(u)
    return _dd_fast(out[0], out[1] + np.where(np.isfinite(c), c, 0))


# sin, cos, tan and atan of pairs, as pairs: a transcendental's own rounding
# (half an ulp of its value) is what a cancellation after it amplifies (atan's
# value added to 1e5 rad inside cos near its zeros; 1/x - cot(x) where tan(x)
# = x; 1 + 2 sin(x) cos(x) near its double zeros), and f(hi) + f'(hi) lo does
# not undo it.  x = k pi/2 + r with pi/2 as three floats (the products by k
# exact), then Taylor series of sin and cos at |r| <= pi/4 in pairs
def _dd_pio2(t):
    """pi/2 as three floats of type ``t`` (from float64s: 160 bits), each
    made by ``_dd_const`` (a backend's own constants)."""
    p = (1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33)
    q1, q2 = _dd_const(p[0], p[1], t)
    r = ((p[0] - float(q1)) - float(q2)) + p[1]  # (exact but the last addition)
    return q1, q2, _dd_const(r + p[2], 0.0, t)[0]


def _dd_trig_terms(t):
    """(K, N) for sin's and cos's Taylor series at |s| <= pi/16 (s = r/4,
    doubled back twice): terms 0 ... K-1 in pairs, K ... N-1 in floats (each
    below half an ulp of the sum, so its float rounding is below the pair's),
    none past N (below the pair's precision)."""
    p = np.finfo(t).nmant + 1
    z, k, term, first = 0.2**2, 0, 1.0, None
    while term >= 2.0 ** (-2 * p - 4):
        if first is None and term < 2.0 ** -(p + 1):
            first = k
        k += 1
        term = term * z / ((2 * k - 1) * (2 * k))
    return (k if first is None else first), k


def _dd_signed_inv_factorial(n, t):
    h, lo = _dd_inv_factorial(n, t)
    return (-h, -lo) if (n // 2) % 2 else (h, lo)


def _dd_trig_coeffs(t, odd):
    """sin's (odd) or cos's Taylor coefficients: the pairs, then the floats."""
    k, n = _dd_trig_terms(t)
    cs = [_dd_signed_inv_factorial(2 * i + odd, t) for i in range(n)]
    return cs[:k], [c[0] for c in cs[k:]]


_DD_PIO2 = _DDConsts(_dd_pio2)
_DD_2OPI = _DDConsts(lambda t: t.type(0.6366197723675814))
# below this |x| the reduction is exact enough (k * pi/2's three floats, k
# exact in the type, and k = rint(x 2/pi) off by less than 1 with 2/pi a
# float64: the long double's 2**61 gave sin(1e18) = -1.8e18); beyond, the
# exact reduction (_dd_sincos_big)
_DD_TRIG_MAX = _DDConsts(lambda t: t.type(2.0 ** (min(np.finfo(t).nmant, 52) - 2)))
# below this |r| (4 times the smallest normal float), r/4 may round: sin(r) is
# r and cos(r) is 1 (r³ and r² are below the subnormals)
_DD_TRIG_TINY = _DDConsts(lambda t: t.type(np.finfo(t).tiny * 4))
_DD_SIN_C = _DDConsts(lambda t: _dd_trig_coeffs(t, 1))
_DD_COS_C = _DDConsts(lambda t: _dd_trig_coeffs(t, 0))


def _dd_sincos_small(r):
    """sin(r) and cos(r) of a pair |r| <= pi/4 (or a float), as pairs: the
    Taylor series at s = r/4 (its tail in floats), doubled back twice
    (sin 2s = 2 sin s cos s, cos 2s = 1 - 2 sin² s: no cancellation below
    pi/4)."""
    rh = _dd_hi(r)
    t = np.result_type(rh, 1.0)
    q = (r[0] * 0.25, r[1] * 0.25) if isinstance(r, tuple) else r * 0.25  # exact
    z = _dd_mul(q, q, 1)  # (every value below 2: no overflow guard, _dd_ok)
    (ps, fs), (pc, fc) = _DD_SIN_C[t], _DD_COS_C[t]
    s, c = fs[-1], fc[-1]
    for a, b in zip(fs[-2::-1], fc[-2::-1]):
        s, c = s * z[0] + a, c * z[0] + b
    for a, b in zip(ps[::-1], pc[::-1]):
        s, c = _dd_add(_dd_mul(s, z, 1), a, 1), _dd_add(_dd_mul(c, z, 1), b, 1)
    s = _dd_mul(s, q, 1)
    for _ in range(2):
        m, w = _dd_mul(s, c, 1), _dd_mul(s, s, 1)
        s, c = (m[0] * 2, m[1] * 2), _dd_add(1, (w[0] * -2, w[1] * -2), 1)
    tiny = np.abs(rh) < _DD_TRIG_TINY[t]  # (r/4 of a subnormal r rounds)
    rl = r[1] if isinstance(r, tuple) else rh * 0
    return ((np.where(tiny, rh, s[0]), np.where(tiny, rl, s[1])),
            (np.where(tiny, 1, c[0]), np.where(tiny, 0, c[1])))


def _dd_sincos(a):
    """sin(a) and cos(a) of a float or pair, as pairs (to about twice the
    type's precision; for |a| from 2**(p-2), p the type's bits, by the exact
    reduction ``_dd_sincos_big``, where it is on)."""
    ah, al = a if isinstance(a, tuple) else (a, 0)
    t = np.result_type(ah, 1.0)
    ok = np.abs(ah) < _DD_TRIG_MAX[t]
    x = np.where(ok, ah, 0)
    k = np.rint(x * _DD_2OPI[t])
    q1, q2, q3 = _DD_PIO2[t]
    p, e = _dd_two_prod(k, q1, True)  # (k and q1 below 2**(p/2): exact, no guard)
    r = _dd_two_sum(x - p, -e)  # x - p is exact (Sterbenz)
    r = _dd_add(r, _dd_neg(_dd_two_prod(k, q2, True)), 1)  # (|r| < 1: no guard)
    r = _dd_add(r, -(k * q3), 1)
    if isinstance(a, tuple):
        r = _dd_add(r, np.where(ok, al, 0), 1)
    big = ~ok & np.isfinite(ah)
    if _DD_EXACT_REDUCTION and np.finfo(t).nmant >= 52 and np.any(big):
        k, r = _dd_big_reduced(big, ah, al, k, r)
        ok = ok | big
    (sh, sl), (ch, cl) = _dd_quadrant(k, *_dd_sincos_small(r))
    fs, fc = np.sin(ah), np.cos(ah)  # beyond: to first order in al (|al| < 1)
    if isinstance(a, tuple):
        low = np.where(np.abs(al) < 1, al, 0)
        ls, lc = _dd_fin(fc * low), _dd_fin(-fs * low)
    else:
        ls = lc = 0
    return ((np.where(ok, sh, fs), np.where(ok, sl, ls)),
            (np.where(ok, ch, fc), np.where(ok, cl, lc)))


def _dd_quadrant(k, s, c):
    """sin and cos of k pi/2 + r from those of r (pairs), k an integer."""
    q = k - 4 * np.floor(k * 0.25)  # the quadrant, 0 ... 3
    swap = (q == 1) | (q == 3)
    sh, sl = np.where(swap, c[0], s[0]), np.where(swap, c[1], s[1])
    ch, cl = np.where(swap, s[0], c[0]), np.where(swap, s[1], c[1])
    ns, nc = q >= 2, (q == 1) | (q == 2)  # negated
    sh, sl = np.where(ns, -sh, sh), np.where(ns, -sl, sl)
    ch, cl = np.where(nc, -ch, ch), np.where(nc, -cl, cl)
    return (sh, sl), (ch, cl)


# sin and cos from 2**(p-2) on: three floats of pi/2 times k no longer
# reduce exactly (k has more bits than they leave), and f(hi) + f'(hi) lo
# keeps no bit of a value near a zero of f (sin(x + e) - sin(x) at x = 2.7e85
# cancels 2**-57 deep).  Payne-Hanek: x = M 2**E (M an integer of p bits),
# x 2/pi mod 4 from the digits of 2/pi (base 2**24, int64 products of at most
# 48 bits, carried exactly) that reach the fraction, to 2**-(2p + 20); a
# pair's two floats are reduced together (their digits added before the
# carries), so the remainder of hi + lo is exact to that bound even where
# hi's and lo's remainders cancel; then r = (the fraction) pi/2 in pairs.
# NumPy only (backends without int64 keep the first order:
# _DD_EXACT_REDUCTION), and types of 53 bits or more: float32's pairs keep
# the first order past 2**21, where stabilize then widens to float64 (53
# bits, and 3-6x plain float32 where its pairs cost 30-100x): reduced
# exactly, float32 pairs (48 bits) passed the verification on Hamming's sine
# and tangent differences over all floats and lost 3.5 and 3.6 bits at the
# deepest zeros, where the widened forms lose 1.0
_DD_EXACT_REDUCTION = True
_DD_PH_MASK = 0xFFFFFF


def _dd_ph_sizes(t):
    """(p, nd, pad): the type's bits, the fraction's digits kept, and the
    zero digits before 2/pi's first (|lo| down to 2**-(2p + 40) reads them)."""
    p = np.finfo(t).nmant + 1
    return p, (2 * p + 47) // 24 + 2, (3 * p + 40) // 24 + 4


def _dd_2opi_digits(t):
    """2/pi's digits after the point in base 2**24 (int64), after the
    padding zeros, enough for every float of type ``t``: made from Machin's
    formula in Python integers (NumPy-only code, any type's range)."""
    p, nd, pad = _dd_ph_sizes(t)
    n = (np.finfo(t).maxexp + 24) // 24 + nd + 8
    b = 24 * n + 96  # fractional bits of pi, beyond the digits kept

    def atan_inv(m):  # atan(1/m) 2**b, to a few units
        power, total, i = (1 << b) // m, 0, 0
        while power:
            total += -(power // (2 * i + 1)) if i % 2 else power // (2 * i + 1)
            power //= m * m
            i += 1
        return total

    pi = 16 * atan_inv(5) - 4 * atan_inv(239)
    q = (2 << (24 * n + b)) // pi  # 2/pi 2**(24 n), within 1
    digits = [0] * pad + [(q >> (24 * (n - 1 - j))) & _DD_PH_MASK for j in range(n)]
    return np.array(digits, dtype=np.int64)


_DD_2OPI_DIGITS = _DDConsts(_dd_2opi_digits)


def _dd_ph_sums(x, sign):
    """sign |x| 2/pi's digit sums (weight 2**(-24 d), d = 0 ... nd, not yet
    carried; int64 below 2**51) for a finite float array x, |x| >= 2**-(2p
    + 40) (others: zeros); the digits above d = 0 are multiples of 4: left out."""
    t = x.dtype
    p, nd, pad = _dd_ph_sizes(t)
    table = _DD_2OPI_DIGITS[t]
    used = np.abs(x) >= t.type(2.0 ** -(2 * p + 40))
    m, e = np.frexp(np.where(used, np.abs(x), 1))
    big_m = np.ldexp(m, p)  # an integer below 2**p (p <= 64: three digits)
    e = e.astype(np.int64) - p
    l2 = np.floor(np.ldexp(big_m, -48))
    rest = big_m - np.ldexp(l2, 48)
    l1 = np.floor(np.ldexp(rest, -24))
    limbs = [(rest - np.ldexp(l1, 24)).astype(np.int64), l1.astype(np.int64),
             l2.astype(np.int64)]
    q, rho = e // 24, e % 24  # M 2**E = (M 2**rho) 2**(24 q)
    n, carry = [], np.int64(0)
    for v in limbs:  # the digits of M 2**rho (each shifted limb below 2**48)
        v = (v << rho) + carry
        n.append(v & _DD_PH_MASK)
        carry = v >> 24
    n.append(carry)
    # digit d of x 2/pi: the sum over i of N_i C_(d + i + q - 1)
    base = q - 1 + pad
    sign = np.where(used, sign, 0).astype(np.int64)
    out = []
    for d in range(nd + 1):
        s = np.int64(0)
        for i, ni in enumerate(n):
            s = s + ni * table[base + d + i]
        out.append(s * sign)
    return out


def _dd_ph(h, *rest):
    """h + the rest (finite float arrays of one type: a pair's two floats,
    or the floats of a sum's terms) as k pi/2 + r, |r| <= pi/4 (to
    2**-(2p + 20)): k an integer (a float) and r a pair (Payne-Hanek,
    above)."""
    t = h.dtype
    p, nd, pad = _dd_ph_sizes(t)
    mask = np.int64(_DD_PH_MASK)
    sums = _dd_ph_sums(h, np.sign(h))
    for x in rest:
        sums = [a + b for a, b in zip(sums, _dd_ph_sums(x, np.sign(x)))]
    digits, carry = [None] * (nd + 1), np.int64(0)
    for d in range(nd, -1, -1):  # carried (>> floors: a negative sum borrows)
        v = sums[d] + carry
        digits[d] = v & mask
        carry = v >> 24
    up = digits[1] >= (1 << 23)  # fraction >= 1/2: k + 1, and -(1 - fraction)
    k = ((digits[0] & 3) + up).astype(t)
    acc, c = (t.type(0), t.type(0)), np.int64(1)
    for d in range(nd, 0, -1):  # (positive digits, smallest first: no cancellation)
        v = np.where(up, mask - digits[d] + c, digits[d])
        c = np.where(up, v >> 24, 0)
        acc = _dd_add(acc, np.ldexp((v & mask).astype(t), -24 * d), 1)
    q1, q2, q3 = _DD_PIO2[t]
    r = _dd_mul(acc, (q1, q2), 1)
    return k, (np.where(up, -r[0], r[0]), np.where(up, -r[1], r[1]))


def _dd_big_reduced(big, ah, al, k, r):
    """``k`` and ``r`` (the short reduction of ah + al: k pi/2 + r) with the
    points ``big`` (|ah| >= 2**(p-2), finite) reduced exactly (``_dd_ph``)."""
    t = np.result_type(ah, 1.0)
    ah, al = np.asarray(ah, t), np.asarray(al, t)
    shape = np.broadcast_shapes(np.shape(big), ah.shape, al.shape, np.shape(r[0]))
    where = np.nonzero(np.broadcast_to(big, shape).reshape(-1))[0]
    h = np.broadcast_to(ah, shape).reshape(-1)[where]
    lo = np.broadcast_to(al, shape).reshape(-1)[where]
    bk, br = _dd_ph(h, np.where(np.isfinite(lo), lo, 0))
    out = []
    for v, w in ((k, bk), (r[0], br[0]), (r[1], br[1])):
        v = np.array(np.broadcast_to(v, shape), dtype=t)
        v.reshape(-1)[where] = w  # (a fresh array: reshape is a view)
        out.append(v[()])
    return out[0], (out[1], out[2])


def _dd_sincos2(a, b, k=None):
    """sin and cos of a + b (floats or pairs), as pairs: ``_dd_sincos`` of
    their pair sum; where that sum is at least 2**(p-2) or past the range
    and a and b are finite (x + eps near the largest float: the pair is
    (inf, nan)), the remainder of a + b mod pi/2 from all their floats
    together (``_dd_ph``): tan(x + eps) - tan(x) at x = -5.72e307,
    eps = -1.2253e308 was NaN."""
    s = _dd_add(a, b, k)  # (k: see _dd_ok)
    out = _dd_sincos(s)
    if not _DD_EXACT_REDUCTION:
        return out
    hi = _dd_hi(s)
    t = np.result_type(hi, 1.0)
    if np.finfo(t).nmant < 52:
        return out
    parts = [np.asarray(q, t) for v in (a, b) for q in (v if isinstance(v, tuple) else (v,))]
    # (past 2**(p-2) too: there TwoSum's own s - a can overflow while s does
    # not, and its error term is then dropped: cos(max - 5.7e307) read
    # 1.2268e308 for 1.2268e308 - 9.98e291)
    bad = ~(np.abs(hi) < _DD_TRIG_MAX[t])
    for q in parts:
        bad = bad & np.isfinite(q)
    if not np.any(bad):
        return out
    shape = np.broadcast_shapes(np.shape(bad), *(np.shape(q) for q in parts),
                                np.shape(out[0][0]))
    where = np.nonzero(np.broadcast_to(bad, shape).reshape(-1))[0]
    k, r = _dd_ph(*(np.broadcast_to(q, shape).reshape(-1)[where] for q in parts))
    bs, bc = _dd_quadrant(k, *_dd_sincos_small(r))
    res = []
    for v, w in ((out[0][0], bs[0]), (out[0][1], bs[1]), (out[1][0], bc[0]), (out[1][1], bc[1])):
        v = np.array(np.broadcast_to(v, shape), dtype=t)
        v.reshape(-1)[where] = w  # (a fresh array: reshape is a view)
        res.append(v[()])
    return (res[0], res[1]), (res[2], res[3])


def _dd_sin(a):
    """sin(a) of a float or pair, as a pair (see ``_dd_sincos``)."""
    return _dd_sincos(a)[0]


def _dd_cos(a):
    """cos(a) of a float or pair, as a pair (see ``_dd_sincos``)."""
    return _dd_sincos(a)[1]


def _dd_tan(a):
    """tan(a) of a float or pair, as a pair: sin over cos."""
    s, c = _dd_sincos(a)
    return _dd_div(s, c)


def _dd_atan(a):
    """atan(a) of a float or pair, as a pair: for |a| <= 1 one Newton step
    from the float atan, y0 - (sin y0 - a cos y0) cos y0 (the residual in
    pairs); beyond, pi/2 - atan(1/a) with 1/a a pair."""
    ah, al = a if isinstance(a, tuple) else (a, 0)
    t = np.result_type(ah, 1.0)
    big = np.abs(ah) > 1
    if isinstance(a, tuple):
        inv = _dd_div(1, (np.where(big, ah, 1), np.where(big, al, 0)))
        b = (np.where(big, inv[0], ah), np.where(big, inv[1], al))
    else:
        inv = _dd_div(1, np.where(big, ah, 1))
        b = (np.where(big, inv[0], ah), np.where(big, inv[1], 0))
    y0 = np.arctan(b[0])
    s, c = _dd_sincos_small(y0)
    rho = _dd_add(s, _dd_neg(_dd_mul(b, c)))
    y = _dd_two_sum(y0, -(rho[0] * c[0]))
    q1, q2, _ = _DD_PIO2[t]
    neg = ah < 0
    far = _dd_add((np.where(neg, -q1, q1), np.where(neg, -q2, q2)), _dd_neg(y))
    fin = np.isfinite(ah)
    return (np.where(big, far[0], y[0]),
            np.where(big & fin, far[1], np.where(big, 0, _dd_fin(y[1]))))
