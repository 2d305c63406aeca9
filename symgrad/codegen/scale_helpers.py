"""What the code of ``scaled(u)`` calls (:mod:`symgrad.codegen.scaling`).

Real code, linted and tested here; a generated module carries this text
(after this docstring and the imports) so that ``numpy_code`` stays
NumPy-only and a pickled function loads without symgrad.
"""

import numpy as np


def _sc_e(x):
    """scaled(u): an input's binary exponent, NaN where it is 0 or not finite;
    in the input's float type (its range sets how far _sc_k lets values go)."""
    x = np.asarray(x)
    e = np.frexp(x)[1].astype(x.dtype if x.dtype.kind == "f" else np.float64)
    return np.where(np.isfinite(x) & (x != 0), e, np.nan)


def _sc_max(*es):
    """The largest of exponent estimates, NaN ignored."""
    out = es[0]
    for e in es[1:]:
        out = np.fmax(out, e)
    return out


def _sc_k(q, n, *args):
    """scaled(u): the exponent k (a multiple of q) its n inputs (their
    exponents first) are divided by 2**k by, per point: their midrange,
    moved into the interval where every value (exponent estimate E, degree
    p/r: scaled to E - p*k/r) stays within L of 0; 0 where no input is
    finite and nonzero."""
    return _sc_k_in(q, n, False, *args)


def _sc_kn(q, n, *args):
    """:func:`_sc_k` where the inputs themselves need only stay normal (their
    scaled values exact), not within L of 0: a factor of a compensated
    form scaled on its own (an input of 2**-1020 beside one of 2**1024,
    where L leaves no k and the small one was rounded into the subnormals)."""
    return _sc_k_in(q, n, True, *args)


def _sc_k_in(q, n, normal, *args):
    es = args[:n]
    t = np.result_type(*[np.asarray(a) for a in es], 1.0)
    big = float(np.finfo(t).maxexp - 8)
    hi = lo = np.nan
    for e in es:
        hi, lo = np.fmax(hi, e), np.fmin(lo, e)
    k = np.floor((hi + lo) / 2)
    top, bottom = np.inf, -np.inf
    if normal:  # frexp's e - k within [minexp + 1, maxexp]: the scaled input normal
        fi = np.finfo(t)
        for e in es:
            bottom = np.fmax(bottom, e - float(fi.maxexp))
            top = np.fmin(top, e - float(fi.minexp + 1))
    for i in range(n, len(args), 3):
        e, d = args[i], args[i + 1] / args[i + 2]
        a, b = (e - big) / d, (e + big) / d
        bottom = np.fmax(bottom, np.minimum(a, b))
        top = np.fmin(top, np.maximum(a, b))
    k = np.maximum(np.minimum(k, top), bottom)
    k = np.where(np.isfinite(k), np.ceil(k / q) * q, 0.0)
    if normal:  # the multiple of q below, where the one above leaves the interval
        k = np.where((k > top) & (k - q >= bottom), k - q, k)
    return np.clip(k, -4096, 4096).astype(np.int32)[()]


def _sc_pick(v, main, alt):
    """scaled(u): ``main`` (the scaled value v scaled back), or ``alt`` (u's
    factors scaled back each, then multiplied) where v is subnormal or 0 and
    alt finite: there v was rounded to the scaled range's subnormals and
    rounded again when scaled back."""
    v = np.asarray(v)
    tiny = np.finfo(v.dtype if v.dtype.kind == "f" else np.float64).tiny
    return np.where((np.abs(v) < tiny) & np.isfinite(alt), alt, main)[()]
