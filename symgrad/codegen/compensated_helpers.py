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
_DD_TINY = _DDConsts(lambda t: np.finfo(t).tiny * 2.0 ** (np.finfo(t).nmant + 1))
_DD_BIG = _DDConsts(lambda t: np.finfo(t).max / _DD_SPLIT[t])
_DD_DOWN = _DDConsts(lambda t: t.type(2.0 ** -(np.finfo(t).nmant // 2 + 2)))
_DD_UP = _DDConsts(lambda t: t.type(2.0 ** (np.finfo(t).nmant // 2 + 2)))


def _dd_fin(e):
    """An error term, 0 where it is not finite (its operation overflowed)."""
    return np.where(np.isfinite(e), e, 0)


def _dd_two_sum(a, b):
    s = a + b
    bb = s - a
    return s, _dd_fin((a - (s - bb)) + (b - bb))


def _dd_fast(s, e):
    h = s + e
    return h, _dd_fin(e - (h - s))


def _dd_split(a):
    if type(a) in (int, float):  # a literal every float type holds (11 bits at most)
        return a, 0.0
    t = np.result_type(a)
    big = np.abs(a) > _DD_BIG[t]
    if np.any(big):  # a * splitter would overflow: split a scaled by a power of two
        s = np.where(big, a * _DD_DOWN[t], a)
        c = s * _DD_SPLIT[t]
        h = c - (c - s)
        h = np.where(big, h * _DD_UP[t], h)
        return h, a - h
    c = a * _DD_SPLIT[t]
    h = c - (c - a)
    return h, a - h


def _dd_two_prod(a, b):
    p = a * b
    ah, al = _dd_split(a)
    bh, bl = _dd_split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    # 0 where not finite, and where p is so small that its error is below the
    # subnormals (the splits are inexact there): the plain product
    return p, np.where(np.isfinite(e) & (np.abs(p) >= _DD_TINY[np.result_type(p)]), e, 0)


def _dd_hi(a):
    return a[0] if isinstance(a, tuple) else a


def _dd_out(a):
    return a[0] + a[1] if isinstance(a, tuple) else a


def _ddc(h, lo, like):
    """The constant h + lo (float64s) as a pair of the type of ``like``."""
    t = np.result_type(like, 1.0)
    hi = np.asarray(h, t)[()]
    return hi, np.asarray((h - float(hi)) + lo, t)[()]


def _dd_neg(a):
    return (-a[0], -a[1]) if isinstance(a, tuple) else -a


def _dd_abs(a):
    if not isinstance(a, tuple):
        return np.abs(a)
    s = np.where(a[0] < 0, -1, 1).astype(np.result_type(a[0]))
    return a[0] * s, a[1] * s


def _dd_add(a, b):
    if not isinstance(a, tuple):
        a, b = b, a
    if not isinstance(a, tuple):
        return _dd_two_sum(a, b)
    if not isinstance(b, tuple):
        s, e = _dd_two_sum(a[0], b)
        return _dd_fast(s, e + a[1])
    s, e = _dd_two_sum(a[0], b[0])
    t, f = _dd_two_sum(a[1], b[1])
    s, e = _dd_fast(s, e + t)
    return _dd_fast(s, e + f)


def _dd_mul(a, b):
    if not isinstance(a, tuple):
        a, b = b, a
    if not isinstance(a, tuple):
        return _dd_two_prod(a, b)
    if not isinstance(b, tuple):
        p, e = _dd_two_prod(a[0], b)
        return _dd_fast(p, _dd_fin(e + a[1] * b))
    p, e = _dd_two_prod(a[0], b[0])
    return _dd_fast(p, _dd_fin(e + (a[0] * b[1] + a[1] * b[0])))


def _dd_div(a, b):
    a0, a1 = a if isinstance(a, tuple) else (a, 0)
    b0, b1 = b if isinstance(b, tuple) else (b, 0)
    q = a0 / b0
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
