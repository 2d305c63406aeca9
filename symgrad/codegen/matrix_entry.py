"""What lambdify's code of a matrix formula adds (:mod:`symgrad.codegen.matrix`):
NumPy only, unlike :mod:`.matrix_helpers`, whose text the export shares.

Real code, linted and tested here; a generated module carries this text
(after this docstring and the imports).  The entry converts the arguments
to their common float type and runs the kernel on blocks of the first
batch axis (``_dtype``, ``_blocked``); inside a block, arrays the kernel
allocated and no longer needs are written into instead of allocating new
ones (``_ip``, ``_exp_shift_into``): a fresh array of more than a few pages
costs more than the arithmetic on it (page faults), and a block's arrays
then stay in the cache.
"""

import numpy as np

from .compensated_helpers import _dd_add, _dd_div, _dd_hi, _dd_mul, _dd_neg, _dd_two_sum, _ddc
from .matrix_helpers import _along, _finite_max


def _ip(op, a, b):
    """op(a, b), written into ``a`` (an array the kernel allocated and no
    longer reads) when it has the result's shape and type."""
    if isinstance(a, np.ndarray) and a.flags.owndata and a.flags.writeable:
        try:
            return op(a, b, out=a, casting="no")
        except (ValueError, TypeError):  # broadcast to a larger shape, or another type
            pass
    return op(a, b)


# where exp(a) and exp(-m) are normal floats, exp(a - m) = exp(a) * exp(-m)
# to two roundings, with no rounding of a - m to undo (float type -> bounds)
_EXP_NORMAL = {np.dtype(np.float64): (-708.0, 709.0), np.dtype(np.float32): (-87.0, 88.0)}


def _exp_shift_into(a, m):
    """_exp_shift(a, m) (see there), in fewer operations: where every a and
    m of the block are within the bounds above, as exp(a) * exp(-m) (the
    cost of the plain exp(a - m), exact where that loses up to |a - m|/2
    ulps); else the pair d + lo = a - m with three arrays allocated, not
    nine."""
    lim = _EXP_NORMAL.get(a.dtype)
    if lim is not None and a.size and a.min() >= lim[0] and m.max() <= lim[1]:
        e = np.exp(a)
        e *= np.exp(-m)
        return e
    d = a - m
    b = d - a
    t = d - b
    np.subtract(a, t, out=t)
    np.add(m, b, out=b)
    np.subtract(t, b, out=t)
    np.fmin(t, 1.0, out=t)
    t += 1.0
    np.exp(d, out=d)
    d *= t
    return d


def _softmax_into(a, axis):
    """softmax along ``axis`` where nothing else of the program needs the
    maximum: where every entry of the block is within the bounds above and
    the sum of ``n`` exponentials cannot overflow, exp(a) / Σ exp(a) (no
    maximum to find, nor to take out: each exp(a) is a normal float, with
    no rounding of a - m to amplify; one rounding fewer than exp(a) *
    exp(-m)); else through the maximum, as _exp_shift_into."""
    lim = _EXP_NORMAL.get(a.dtype)
    n = a.shape[-2] * a.shape[-1] if isinstance(axis, tuple) else a.shape[axis]
    if (lim is not None and a.size and a.min() >= lim[0]
            and a.max() <= lim[1] - np.log(n)):
        e = np.exp(a)
    else:
        e = _exp_shift_into(a, _finite_max(a, axis))
    return _ip(np.divide, e, _along(np.add, e, axis))


def _rest_into(a, m, e, axis):
    """_rest(a, m, e, axis) with the maxima counted from ``a == m`` (e is
    not exactly 1 there when computed as exp(a) * exp(-m))."""
    top = a == m
    return _along(np.add, np.where(top, 0.0, e), axis) + (
        _along(np.add, top.astype(e.dtype), axis) - 1)


def _dtype(args, dt):
    """The float type to compute in: ``dt`` if given, else the arguments'
    common floating type (float32 stays float32; a Python number is weakly
    typed, as in NumPy's arithmetic; integers count as float64)."""
    if dt is not None:
        return np.dtype(dt)
    t = getattr(args[0], "dtype", None) if args else None
    if t is not None and t.kind == "f" and all(  # the usual call: arrays of one type
            isinstance(a, np.ndarray) and a.dtype == t for a in args):
        return t
    kinds = []
    for a in args:
        if isinstance(a, (bool, int, float)):
            continue
        t = np.asarray(a).dtype
        kinds.append(t if t.kind == "f" else np.dtype(np.float64))
    return np.result_type(*kinds) if kinds else np.dtype(np.float64)


def _blocked(kernel, args, dt, cells, block):
    """``kernel(*args, dt)`` computed ``rows`` of the first batch axis at a
    time into preallocated outputs, so that its temporaries (``cells``
    entries a batch element at the most; ``block`` entries of float64 in
    all, as many bytes of another type) stay in the cache; in one call
    when there is no batch axis or few rows.  Every node of a matrix program
    maps batch elements to batch elements, so the blocks are independent."""
    lead = max(a.ndim for a in args) - 2  # the broadcast batch axes (every a has 2 more)
    if block is None or lead == 0:
        return kernel(*args, dt)
    n = max(a.shape[0] for a in args if a.ndim - 2 == lead)
    inner = 1
    for a in args:
        if a.ndim - 2 == lead:
            inner = max(inner, int(np.prod(a.shape[1:-2], dtype=np.int64)))
    rows = max(2, block * 8 // (np.dtype(dt).itemsize * cells * inner))  # as many bytes
    if n < 2 * rows:
        return kernel(*args, dt)

    def part(s):
        return [a[s:s + rows] if a.ndim - 2 == lead and a.shape[0] == n else a for a in args]

    first = kernel(*part(0), dt)
    full = []
    for o in first:
        if o.ndim - 2 == lead and o.shape[0] == rows:  # batched (else the same for all)
            f = np.empty((n,) + o.shape[1:], o.dtype)
            f[:rows] = o
            full.append(f)
        else:
            full.append(None)
    for s in range(rows, n, rows):
        got = kernel(*part(s), dt)
        for f, o in zip(full, got):
            if f is not None:
                f[s:s + rows] = o
    return tuple(o if f is None else f for f, o in zip(full, first))


# ---- logsumexp near its zero: the cancellation of m + log1p(r) -----------------
# Where logsumexp is near 0, m and log1p(r) cancel: their rounding errors, an
# ulp of m, are then many ulps of the result.  There (where more than 4 bits
# cancel) it is recomputed from pairs of floats (the _dd_ helpers of
# compensated code): each exp(a - m) and the log1p of their sum to about twice
# the working precision, so that the cancellation leaves a full float.

def _exp_pair(xh, xl, minus_one=False):
    """exp(xh + xl) (or expm1 with ``minus_one``) as a pair (hi, lo), for
    x <= 709: x = k ln2 + r, the Taylor series of expm1(r / 2**8) to degree
    9, squared back 8 times; expm1 of a small x is that series' value itself
    (1 + it as a pair would keep only its bits above 2**-106)."""
    t = np.result_type(xh, 1.0)
    xh = np.maximum(xh, -1100.0)  # exp is 0 in every float type below
    k = np.rint(xh * (1 / 0.6931471805599453))
    ln2 = _ddc(0.6931471805599453, 2.3190468138462996e-17, xh)
    r = _dd_add((xh, xl), _dd_neg(_dd_mul(k, ln2)))
    r = (r[0] * t.type(2.0**-8), r[1] * t.type(2.0**-8))
    p = 1.0
    for j in range(9, 1, -1):  # p = 1 + r/2 (1 + r/3 (1 + ...)): expm1(r) = r p
        p = _dd_add(1.0, _dd_div(_dd_mul(r, p), float(j)))
    e = _dd_mul(r, p)
    for _ in range(8):  # expm1(2y) = expm1(y) (2 + expm1(y))
        e = _dd_mul(e, _dd_add(e, 2.0))
    ki = k.astype(np.int64)
    h, lo = _dd_add(e, 1.0)
    h, lo = np.ldexp(h, ki).astype(t), np.ldexp(lo, ki).astype(t)
    if not minus_one:
        return h, lo
    h, lo = _dd_add((h, lo), -1.0)
    return np.where(k == 0, e[0], h), np.where(k == 0, e[1], lo)


def _pair_sum(h, lo, axis):
    """The sum of the pairs along one axis (-1 or -2) or all entries, kept."""
    if isinstance(axis, tuple):
        h, lo = (np.reshape(v, v.shape[:-2] + (-1, 1)) for v in (h, lo))
        axis = -2
    take = (lambda v, k: v[..., k:k + 1, :]) if axis == -2 else (lambda v, k: v[..., k:k + 1])
    s = (take(h, 0), take(lo, 0))
    for k in range(1, h.shape[axis]):
        s = _dd_add(s, (take(h, k), take(lo, k)))
    return s


def _lse_near_zero(a, m, lse, axis):
    """``lse`` (= m + log1p(r)), recomputed from pairs of floats where m and
    log1p(r) cancel more than 4 bits."""
    with np.errstate(all="ignore"):
        near = np.abs(lse) < np.abs(m) * 0.0625
        if not np.any(near):
            return lse
        d = _dd_two_sum(a, -m)  # a - m exactly
        top = a == m  # exp(a - m) = 1 there: counted apart, so that r keeps its bits
        e = [np.where(top, 0.0, v) for v in _exp_pair(*d)]
        count = _along(np.add, np.where(top, 1.0, 0.0).astype(e[0].dtype), axis)
        r = _dd_add(_pair_sum(*e, axis), count - 1)  # Σ exp(a - m) - 1
        y0 = np.log1p(r[0])
        g = _exp_pair(y0, np.zeros_like(y0), minus_one=True)
        c = _dd_hi(_dd_add(r, _dd_neg(g))) / (1 + r[0])  # Newton: log1p(r) = y0 + c
        s = _dd_add(_dd_two_sum(y0, c), m)
        return np.where(near, s[0] + s[1], lse)
