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
    return _sc_k_in(q, n, False, 0, *args)[0]


def _sc_kg(q, n, *args):
    """:func:`_sc_k`, and where it leaves the interval (the gap: that
    interval is empty, or narrower than q): some value is scaled past L, an
    intermediate of u out of the normal range while its inputs and its value
    may be in it (float32's x**2*y at (1e-20, 3e38): x**2 wants k <= -6, y
    k >= 8; at k = 8 the scaled x**2 was subnormal, 0.02755 for 0.03).
    The rows that take u's factors each scaled on its own (:func:`_sc_use`)."""
    return _sc_k_in(q, n, False, 0, *args)


def _sc_kn(q, n, s, *args):
    """:func:`_sc_k` where the inputs themselves need only stay normal (their
    scaled values exact), not within L of 0: a factor of a compensated
    form scaled on its own (an input of 2**-1020 beside one of 2**1024,
    where L leaves no k and the small one was rounded into the subnormals).
    The last s bounds are soft: k is moved toward their interval as far as
    the inputs stay normal (partial products: 4*a in the quadratic's
    4*a*c at (1.5e34, 1.3e-36, -1.2e-31) in float32 was inf, and the
    factor's reciprocal 0, where b*b, which underflows harmlessly, set k)."""
    return _sc_k_in(q, n, True, s, *args)[0]


def _sc_k_in(q, n, normal, soft, *args):
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
    nb, nt = bottom, top
    bottom, top, out = _sc_span(big, bottom, top, args[n:len(args) - 3 * soft])
    k = np.maximum(np.minimum(k, top), bottom)
    if soft:  # k moved toward them as far as the inputs stay normal, and
        # down no further than the others' bottom (up last: overflows first)
        sb, st, _ = _sc_span(big, -np.inf, np.inf, args[len(args) - 3 * soft:])
        k = np.minimum(k, np.fmax(np.maximum(st, nb), bottom))
        k = np.maximum(k, np.minimum(sb, nt))
    k = np.where(np.isfinite(k), np.ceil(k / q) * q, 0.0)
    # the multiple of q below, where the one above leaves the interval
    k = np.where((k > top) & (k - q >= bottom), k - q, k)
    return np.clip(k, -4096, 4096).astype(np.int32)[()], ((k > top) | (k < bottom) | out)[()]


def _sc_span(big, bottom, top, bounds):
    """The interval of k where every value of ``bounds`` (exponent estimate
    E, degree p/r, in threes: scaled to E - p*k/r) stays within big of 0,
    met with [bottom, top]; and where a value of degree 0 (no k moves it)
    is past big.  Per degree, the largest and smallest estimates (NaN
    ignored) set its bounds: two operations a value."""
    by = {}
    for i in range(0, len(bounds), 3):
        e, d = bounds[i], bounds[i + 1] / bounds[i + 2]
        got = by.get(d)
        by[d] = (e, e) if got is None else (np.fmax(got[0], e), np.fmin(got[1], e))
    out = False
    for d, (hi, lo) in by.items():
        if d == 0:
            out = out | (hi > big) | (lo < -big)
            continue
        a, b = ((hi - big) / d, (lo + big) / d) if d > 0 else ((lo + big) / d, (hi - big) / d)
        bottom, top = np.fmax(bottom, a), np.fmin(top, b)
    return bottom, top, out


def _sc_use(v, main, gap, *xs):
    """scaled(u): where the value takes u's factors scaled back each (alt,
    :func:`_sc_pick`): k left its interval (``gap``, :func:`_sc_kg`: an
    intermediate may be out of the normal range), the scaled value v is
    subnormal or 0 (it was rounded
    to the scaled range's subnormals and rounded again when scaled back) or
    an input was rounded when scaled (xs: each input, its scaled value and
    the exponent it was divided by 2**K by, in threes): no one k kept every
    input exact and no value overflowing (a subnormal e beside x = 9.6e8 in
    float32's e*(e**4 + ... + 5*x**4): x**4 wants k >= 1, and e/4 lost 2 of
    6 bits), or v is inf or NaN: an overflow of v's last rounding where the
    value rounds to the largest float (the quadratic's root in pairs at
    a = -5e-324, b = 0, c = 1.6e293: -inf, the truth -1.7976931348623157e308;
    the factors' product passes the threshold in :func:`_sc_up`'s band) or
    of an intermediate.  In the shape of ``main`` (the value scaled back)
    and the inputs."""
    v = np.asarray(v)
    tiny = np.finfo(v.dtype if v.dtype.kind == "f" else np.float64).tiny
    use = ~(np.abs(v) >= tiny) | np.isinf(v) | gap
    for i in range(0, len(xs), 3):
        x, s, k = xs[i], xs[i + 1], xs[i + 2]
        use = use | ((np.ldexp(s, k) != x) & np.isfinite(x))
    return np.broadcast_to(use, np.broadcast_shapes(np.shape(use), np.shape(main)))


def _sc_rows(use):
    """scaled(u): the rows alt is computed at (:func:`_sc_at`): the flat
    indices where ``use`` holds, and its shape (NumPy only: the exporters'
    code computes alt at every row)."""
    return np.flatnonzero(use), np.shape(use)


def _sc_at(x, rows):
    """scaled(u): an input at the rows alt is computed at (``x`` itself where
    rows is None or x a single value: it broadcasts, in its own type).
    Every operation is elementwise: alt at these rows is alt's floats at
    them computed over every row."""
    if rows is None or np.ndim(x) == 0:
        return x
    idx, shape = rows
    return np.broadcast_to(x, shape).reshape(-1)[idx]


def _sc_pick(main, alt, use, rows=None):
    """scaled(u): ``main`` (the scaled value scaled back), or ``alt`` (u's
    factors scaled back each, then multiplied: :func:`_sc_mul`; computed at
    ``rows`` only, :func:`_sc_rows`; None: every row) where ``use`` holds (:func:`_sc_use`)
    and alt is not NaN (or main is): ``np.where`` over every row's floats,
    in its type.  An infinite alt is its finite factors' product past the
    largest float (:func:`_sc_mul` gives NaN where a factor is not finite),
    the value's own overflow: main, of inputs rounded when scaled, can be
    finite there (the quadratic's root at a = 7.25e-310, b = -3.95e-310,
    c = -2.34e307, 554 ulps past the largest float: main was 274 ulps below
    it, 8.1 bits).

    >>> x = np.array([1.0, 2.0, 3.0])
    >>> use = np.array([False, True, False])
    >>> rows = _sc_rows(use)
    >>> _sc_pick(x, -_sc_at(x, rows), use, rows)
    array([ 1., -2.,  3.])
    """
    if rows is None:
        return np.where(use & (~np.isnan(alt) | np.isnan(main)), alt, main)[()]
    idx, shape = rows
    main = np.asarray(main)
    t = np.result_type(main, alt)
    out = main.astype(t) if main.shape == shape else np.array(np.broadcast_to(main, shape), t)
    if len(idx):
        flat = out.reshape(-1)
        m = flat[idx]
        flat[idx] = np.where(~np.isnan(alt) | np.isnan(m), alt, m)
    return out[()]


def _sc_up(v, k):
    """scaled(u): ``v*2**k``, where that is past the largest float by less
    than 8 of its ulps (the scaled value's own rounding error, as
    :func:`symgrad.rewrites.exact_exponents._saturated`) the largest float
    (signed), not inf: the truth may be below the threshold (the harmonic
    mean 2xy/(x + y) in float32 at x = max - ulp, y = max is x, and its
    scaled value rounded one ulp up); far past it, inf."""
    r = np.asarray(np.ldexp(v, k))
    inf = np.isinf(r)
    if type(inf) is np.ndarray and not inf.any():  # (no inf: r; JAX's text never, traced)
        return r[()]
    fi = np.finfo(r.dtype if r.dtype.kind == "f" else np.float64)
    half = np.abs(np.ldexp(v, k - 1))  # exact near the threshold
    band = inf & (half <= fi.max / 2 * (1 + 4 * fi.eps))
    return np.where(band, np.copysign(fi.max, v), r)[()]


def _sc_mul(c, *fs):
    """scaled(u): the constant c times the product of factors each scaled
    back, in fours (a factor's scaled value m, its exponent k, its degree
    p/r: m*2**(k//r*p)): their significands multiplied (c with them, a
    number keeping the factors' type) and their exponents summed, scaled
    back once (:func:`_sc_up`): no factor scaled back on its own overflows
    or rounds into the subnormals (x**2*y at x = 1e300, y = 3e-320).  NaN
    where a factor is not finite (its scaled value overflowed: the product
    would not be the value's own; :func:`_sc_pick` takes main there):
    :func:`_sc_mt`'s pair scaled back (its NaN significand stays NaN, a
    zero's exponent -2**30 scales ±0 to ±0)."""
    return _sc_up(*_sc_mt(c, *fs))


def _sc_mt(c, *fs):
    """:func:`_sc_mul`'s product not scaled back: (significand, exponent),
    the significand NaN where a factor is not finite, the exponent of a
    zero product far below every other (:func:`_sc_mts`).

    >>> m, t = _sc_mt(3, np.ldexp(0.75, 1), 600, 1, 1, 2.0, 0, 1, 1)
    >>> float(m), int(t), float(np.ldexp(m, t)) == 3 * 1.5 * 2.0**601
    (1.125, 603, True)
    """
    m, t, ok = c, 0, True
    for i in range(0, len(fs), 4):
        mi, ei = np.frexp(fs[i])
        m, t = m * mi, t + ei + fs[i + 1] // fs[i + 3] * fs[i + 2]
        ok = ok & np.isfinite(fs[i])
    return np.where(ok, m, np.nan)[()], np.where(m == 0, -(2**30), t)[()]


def _sc_mtp(p, r, mt):
    """(significand, exponent) of a product to the power p/r (r > 0): the
    exponent made a multiple of r first, so that the power of two's is
    exact; the significand's power (a square root, or np.power: NaN below 0
    where r > 1, as the code of the power itself)."""
    m, t = mt
    s = t % r
    m = np.ldexp(m, s)
    m = np.sqrt(m) if (p, r) == (1, 2) else 1 / np.sqrt(m) if (p, r) == (-1, 2) \
        else m**p if r == 1 else np.power(m, p / r)
    return m, np.where(m == 0, -(2**30), (t - s) // r * p)[()]


def _sc_mts(*mts):
    """(significand, exponent) of the sum of terms each (significand,
    exponent): the significands scaled to the largest exponent and added
    (a term below the largest by more than the type's range is lost there:
    far below its rounding error unless the larger terms cancel)."""
    top = mts[0][1]
    for _, t in mts[1:]:
        top = np.maximum(top, t)
    s = 0
    for m, t in mts:
        s = s + np.ldexp(m, t - top)
    return s, top


def _sc_upt(c, mt):
    """c times (significand, exponent) scaled back once (:func:`_sc_up`);
    NaN where the significand is."""
    return _sc_up(c * mt[0], mt[1])


def _sc_ex(x):
    """scaled(u)'s fallback: a value's binary exponent as an integer (frexp's);
    0 where it is not finite, and -2**24 where it is 0: far below every
    float's (and its sum with a few hundred others no overflow), so that a
    zero term or factor never sets the largest exponent a sum aligns its
    terms to (x - y = 0 in (x - y)**2*z + w**3 lost w**3 below it)."""
    x = np.asarray(x)
    nz = np.isfinite(x) & (x != 0)  # (JAX's text: a subnormal is not 0 here)
    return np.where(nz, np.frexp(x)[1], np.where(np.isfinite(x), -(2**24), 0))[()]


def _sc_p2(like, d):
    """2**d in the float type of ``like`` (d an integer per point; 0 below
    the subnormals: a term that far below the largest is lost)."""
    like = np.asarray(like)
    return np.ldexp(np.ones((), like.dtype if like.dtype.kind == "f" else np.float64), d)


def _sc_xmax(*ts):
    """The largest of integer exponents."""
    out = ts[0]
    for t in ts[1:]:
        out = np.maximum(out, t)
    return out


def _sc_xmod(t, r):
    """``t mod r``, in [0, r)."""
    return t % r


def _sc_xroot(t, r, p):
    """The exponent of (m*2**t)**(p/r): t made a multiple of r (the rest,
    :func:`_sc_xmod`, multiplied into m), divided by r, times p."""
    return (t - t % r) // r * p


def _sc_xsel(*args):
    """The exponent of a Piecewise's branch: (condition, exponent) pairs,
    then the default exponent."""
    return np.select(list(args[:-1:2]), list(args[1:-1:2]), args[-1])


def _sc_xb(m, t, *xs):
    """scaled(u)'s fallback scaled back once (:func:`_sc_up`): m*2**t; NaN
    where an input (xs) is not finite (:func:`_sc_pick` takes main there)."""
    ok = True
    for x in xs:
        ok = ok & np.isfinite(x)
    return np.where(ok, _sc_up(m, t), np.nan)[()]


def _sc_pp(like, m, *nv):
    """scaled(u): where a product's partial products, in any order, may leave
    the normal range, from its factors (in pairs: a power n, an integer, and
    the factor's scaled value v, the first m; then an input's scaled
    exponent, E - k, NaN where it is 0): v of frexp exponent a is in
    [2**(a-1), 2**a), so every partial product is in [2**lo, 2**hi), lo the
    sum of the factors' min(0, n*(a - 1)), hi that of their max(0, n*a) (n
    < 0: the power computed before its reciprocal in range too).  Out where
    hi reaches the largest exponent or lo passes the smallest normal one (a
    factor 0 counts as 2**-1; one not finite makes the product's value inf
    or NaN, which :func:`_sc_use` reads); ``like`` a scaled input (the
    type, whose range this is)."""
    fi = np.finfo(np.result_type(like, 1.0))
    hi = lo = 0
    for i in range(0, len(nv), 2):
        n, a = nv[i], (np.frexp(nv[i + 1])[1] if i < 2 * m else nv[i + 1])
        if n > 0:
            hi, lo = hi + n * np.fmax(a, 0), lo + n * np.fmin(a, 1) - n
        else:  # (1/v**-n: v**-n and its reciprocal both within 2**(-n*c) of 1)
            c = np.fmax(a, 1 - a)
            hi, lo = hi - n * c, lo + n * c
    return ((hi >= fi.maxexp) | (lo < fi.minexp))[()]


def _sc_any(*masks):
    """The union of row masks."""
    out = masks[0]
    for m in masks[1:]:
        out = out | m
    return out


def _sc_exz(x):
    """0, or -2**24 where x is 0 (:func:`_sc_ex`'s exponent of 0)."""
    return np.where(np.asarray(x) == 0, -(2**24), 0)[()]


def _sc_nm(m, e):
    """m divided by 2**e, e its exponent (:func:`_sc_ex`): in [0.5, 1)."""
    return np.ldexp(m, -np.maximum(e, -(2**12)))
