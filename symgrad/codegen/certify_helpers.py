"""What the code of ``certified(u)`` calls (:mod:`symgrad.codegen.certifying`).

Real code, linted and tested here; a generated module carries this text
(after this docstring and the imports).  Only the rare path (elements the
bound does not certify) imports symgrad, for its ground truth.
"""

import numpy as np

from .compensated_helpers import _dd_add, _dd_exp, _dd_mul, _dd_neg

# certified(u): the pair's rounded value r of u, beside the bound C (eps**2 E2
# + eps E1 + tiny E0) on its error (E2: the pairs' own roundings, E1: values of
# functions rounded to one float, E0: low parts lost below the normal range,
# each carried to the root by |derivative| factors); where |r| is not above
# 2**p times the bound, or r or the bound is not finite, the element is
# recomputed by the ground truth (interval arithmetic at increasing precision
# until it rounds to one float).
_ZV_C = 64.0  # the bound's constant (measured: 0.55 of it at most, docs/api.md)
_ZV_FORMS = {}  # srepr text -> the formula, as code generation made it
_ZV_TRUTHS = {}  # (text, dtype) -> its ground truth, built on the first rare element
# (text, formula or None, dtype) -> a ground truth: set by symgrad.stability.truth
# (code generation does not import the verification; symgrad imports both)
_ZV_MAKER = None


def _zv_truth(text, dtype):
    got = _ZV_TRUTHS.get((text, dtype))
    if got is not None:
        return got
    from symgrad.codegen import certify_helpers

    if certify_helpers._ZV_MAKER is None:
        raise RuntimeError("certified(...): its uncertified elements need symgrad's ground "
                           "truth: import symgrad before calling this function")
    got = certify_helpers._ZV_MAKER(text, certify_helpers._ZV_FORMS.get(text), dtype)
    _ZV_TRUTHS[text, dtype] = got
    return got


def _zv_unit(x):
    """The unit roundoff of the float type ``x`` is in (float64's for
    another type), in that type."""
    dt = np.asarray(x).dtype
    dt = dt if dt.kind == "f" else np.dtype(np.float64)
    return dt.type(np.finfo(dt).eps / 2)


def _zv_tiny(x):
    """The smallest subnormal of the float type ``x`` is in (float64's for
    another type), in that type."""
    dt = np.asarray(x).dtype
    dt = dt if dt.kind == "f" else np.dtype(np.float64)
    return dt.type(np.finfo(dt).smallest_subnormal)


def _zv_bad(r, e2, e1, e0):
    """The elements whose rounded pair ``r`` the bound does not certify
    within about an ulp (NaN or inf among them: not certified)."""
    fi = np.finfo(r.dtype)
    eps = fi.eps / 2
    bound = _ZV_C * (eps * eps * e2 + eps * e1 + fi.smallest_subnormal * e0)
    with np.errstate(invalid="ignore", over="ignore"):
        return ~(np.abs(r) * eps > bound) | ~np.isfinite(r)


def _zv(r, e2, e1, e0, text, *inputs):
    """``r`` with its uncertified elements replaced by the ground truth's
    correctly rounded values (where it resolves them; else ``r``'s)."""
    scalar = np.ndim(r) == 0 and all(np.ndim(a) == 0 for a in inputs)
    r = np.asarray(r)
    dt = r.dtype if r.dtype.kind == "f" else np.dtype(np.float64)
    shape = np.broadcast_shapes(r.shape, *(np.shape(a) for a in inputs))
    flat = np.broadcast_to(r, shape).astype(dt).reshape(-1)
    bad = _zv_bad(flat, *(np.broadcast_to(m, shape).reshape(-1) for m in (e2, e1, e0)))
    if bad.any():
        idx = np.flatnonzero(bad)
        rows = np.stack([np.broadcast_to(np.asarray(a, dtype=dt), shape).reshape(-1)[idx]
                         for a in inputs], axis=-1) if inputs else np.zeros((len(idx), 0), dt)
        # an input NaN or infinite is no point of the ground truth's: the pairs'
        # value stands there (as compensated(u)'s)
        finite = np.isfinite(rows).all(axis=-1)
        idx, rows = idx[finite], rows[finite]
        if len(idx):
            vals, status, lo, hi = _zv_truth(text, dt.name).batch_bounds(rows)
            ok = status[0] == 0  # RESOLVED
            flat[idx[ok]] = vals[0][ok]
            # a value the truth leaves between two adjacent floats (at a midpoint
            # to past its top precision: acos(cos(x - y)) is |x - y|, in float32
            # a tie where x, y ~ 1e-31, whose pairs return 0): either is within
            # an ulp of it, where the pairs may be within none
            a, b = lo[0].astype(dt), hi[0].astype(dt)
            tie = ~ok & np.isfinite(a) & np.isfinite(b) & (np.nextafter(a, b) == b)
            flat[idx[tie]] = a[tie]
    return flat[0] if scalar else flat.reshape(shape)


# erf and erfc of a float or a pair, as pairs (certified(u) only: a function
# rounded to one float would send every element near a zero curve of
# Phi(x) - y to the ground truth).  |a| <= 1/2: erf's Maclaurin series a P(a**2)
# in pairs (terms below 2**-120 of the value left out); beyond: erfc(|a|) =
# exp(-a**2) erfcx(|a|), erfcx's Taylor series at the nearest center (every
# 1/32 up to 8, every 1/4 up to 28; its coefficients from the ODE y' = 2zy -
# 2/sqrt(pi) at 400 bits, made on first use), erf = 1 - erfc and erfc(-a) = 2 -
# erfc(a).  Error measured within a few eps**2 of |v| + |v'(a) a|, the bound's
# own term for a function of pairs (tests/codegen/test_certifying.py).
_ZV_ERF_TERMS = 22  # terms of erf's Maclaurin series (|a| <= 1/2: 2**-120)
_ZV_ERFCX_TERMS = 20  # terms of erfcx's Taylor series (|h| <= 1/64 at c >= 1/2, 1/8 at c >= 8)
_ZV_ERF_PLAIN, _ZV_ERFCX_PLAIN = 12, 9  # the first term of each computed in plain floats
_ZV_ERF_TABLES = {}  # dtype -> (Maclaurin coefficients, erfcx's coefficient table), as pairs


def _zv_erf_tables(t):
    got = _ZV_ERF_TABLES.get(t)
    if got is not None:
        return got
    try:  # (one table per process: every generated module shares symgrad's)
        from symgrad.codegen import certify_helpers
        shared = certify_helpers._ZV_ERF_TABLES
    except ImportError:
        shared = _ZV_ERF_TABLES
    got = _ZV_ERF_TABLES[t] = shared.get(t) or shared.setdefault(t, _zv_erf_made(t))
    return got


def _zv_erf_made(t):
    if t == np.float32:  # (float64 pairs hold float32's: rounded to it, no new series)
        mac, (hi, lo) = _zv_erf_tables(np.dtype(np.float64))

        def pairs32(h, lo):
            h32 = h.astype(t)
            return h32, ((h - h32.astype(np.float64)) + lo).astype(t)

        return [pairs32(np.float64(h), np.float64(low)) for h, low in mac], pairs32(hi, lo)
    import math

    import mpmath

    def pair(v):
        hi = t.type(float(v))
        return hi, t.type(float(v - mpmath.mpf(float(hi))))

    with mpmath.workprec(200):
        k2 = 2 / mpmath.sqrt(mpmath.pi)
        mac = [pair(k2 * (-1) ** n / (mpmath.factorial(n) * (2 * n + 1)))
               for n in range(_ZV_ERF_TERMS)]
    rows = []
    n_last = _ZV_ERFCX_TERMS - 1
    for c in _zv_erf_centers():
        # the forward recurrence amplifies d0's error by about (2c**2 + 2)**n / n!
        grow = n_last * math.log2(2 * c * c + 2) - math.lgamma(n_last + 1) / math.log(2)
        with mpmath.workprec(130 + max(0, int(grow))):
            c = mpmath.mpf(c)
            d = [mpmath.erfc(c) * mpmath.exp(c * c)]
            d.append(2 * c * d[0] - 2 / mpmath.sqrt(mpmath.pi))
            for n in range(1, n_last):
                d.append((2 * c * d[n] + 2 * d[n - 1]) / (n + 1))
            rows.append([pair(v) for v in d])
    return mac, (np.array([[p[0] for p in r] for r in rows], t),
                 np.array([[p[1] for p in r] for r in rows], t))


def _zv_erf_centers():
    return [0.5 + k / 32 for k in range(240)] + [8 + k / 4 for k in range(81)]


def _zv_erf_small(a, t):
    """erf(a) for |a| <= 1/2 (a pair), as a pair: a P(a**2), the terms
    below 2**-56 of P's (from the 12th) in plain floats."""
    mac = _zv_erf_tables(t)[0]
    z = _dd_mul(a, a)
    q = mac[-1][0]
    for c in mac[-2:_ZV_ERF_PLAIN - 1:-1]:
        q = q * z[0] + c[0]
    p = (q, q * 0)
    for c in mac[_ZV_ERF_PLAIN - 1::-1]:
        p = _dd_add(_dd_mul(p, z), c)
    return _dd_mul(p, a)


def _zv_erfc_big(a, t):
    """erfc(a) for a > 1/2 (a pair), as a pair (0 past 28: it underflows
    there in every type symgrad computes); the terms below 2**-54 of the
    series' value (from the 9th: |h| <= 1/64 at c < 8, 1/8 beyond) in plain
    floats."""
    hi, lo = _zv_erf_tables(t)[1]
    x = np.minimum(a[0], 28.0)
    k = np.where(x < 8, np.rint((x - 0.5) * 32), 240 + np.rint((x - 8) * 4))
    k = np.clip(np.where(np.isfinite(k), k, 0), 0, 320).astype(np.intp)
    h = _dd_add(x - np.asarray(_ZV_ERF_CENTERS, t)[k], a[1])  # (x - c is exact)
    q = hi[k, -1]
    for n in range(_ZV_ERFCX_TERMS - 2, _ZV_ERFCX_PLAIN - 1, -1):
        q = q * h[0] + hi[k, n]
    p = (q, q * 0)
    for n in range(_ZV_ERFCX_PLAIN - 1, -1, -1):
        p = _dd_add(_dd_mul(p, h), (hi[k, n], lo[k, n]))
    return _dd_mul(_dd_exp(_dd_neg(_dd_mul(a, a))), p)


_ZV_ERF_CENTERS = _zv_erf_centers()


def _zv_erf_parts(a):
    """erf(a) where |a| <= 1/2 and erfc(|a|) elsewhere, each computed on its
    own elements: (shape, the elements' indices and values, sign of a)."""
    ah, al = a if isinstance(a, tuple) else (a, 0)
    ah = np.asarray(ah)
    t = np.result_type(ah, 1.0)
    shape = np.broadcast_shapes(ah.shape, np.shape(al))
    ah = np.broadcast_to(ah, shape).astype(t).reshape(-1)
    al = np.broadcast_to(np.asarray(al, t), shape).reshape(-1)
    small = np.abs(ah) <= 0.5
    i, j = np.flatnonzero(small), np.flatnonzero(~small)
    sign = np.where(ah[j] < 0, -1, 1).astype(t)
    return (shape, i, _zv_erf_small((ah[i], al[i]), t), j,
            _zv_erfc_big((ah[j] * sign, al[j] * sign), t), sign)


def _zv_joined(shape, i, p, j, q):
    out = []
    for m in range(2):
        v = np.empty(len(i) + len(j), p[0].dtype)
        v[i], v[j] = p[m], q[m]
        out.append(v.reshape(shape)[()])
    return tuple(out)


def _zv_erf(a):
    """erf(a) of a float or a pair, as a pair."""
    shape, i, e, j, c, sign = _zv_erf_parts(a)
    c = _dd_add(_dd_neg(c), 1)
    return _zv_joined(shape, i, e, j, (c[0] * sign, c[1] * sign))


def _zv_erfc(a):
    """erfc(a) of a float or a pair, as a pair."""
    shape, i, e, j, c, sign = _zv_erf_parts(a)
    c2 = _dd_add(_dd_neg(c), 2)
    return _zv_joined(shape, i, _dd_add(_dd_neg(e), 1), j,
                      (np.where(sign > 0, c[0], c2[0]), np.where(sign > 0, c[1], c2[1])))
