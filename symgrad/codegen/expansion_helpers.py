"""What the code of ``exact(p)`` calls (:mod:`symgrad.codegen.expanding`).

Real code, linted and tested here; a generated module carries this text
(after this docstring and the imports) so that ``numpy_code`` stays
NumPy-only and a pickled function loads without symgrad.
"""

import numpy as np

# exact(): a polynomial with dyadic coefficients in the inputs, evaluated
# exactly as a floating-point expansion (an unevaluated sum of float64s) and
# rounded once.  Each input x = m 2**e (frexp, m in [1/2, 1)); a monomial
# c x1**k1 ... is c's significand times the m's (Dekker's TwoProduct: a
# product of j significands is exactly 2**(j-1) floats, none below 2**-969
# for j <= 16, where TwoProduct is error-free) times 2**(the exponents' sum);
# the monomials are brought to the largest exponent by ldexp (exact unless
# a part falls below the normal range: then that element is not certified),
# summed by repeated VecSum (Ogita-Rump-Oishi: TwoSum along the vector, the
# exact sum unchanged) and rounded; an element whose rounding the bound
# below does not certify within an ulp is computed with Python's fractions.
_EX_BLOCK = 8192  # elements per block: the parts' memory stays small
_EX_PASSES = 3  # VecSum passes before the first certification
_EX_MORE = 6  # further passes over the elements not yet certified
_EX_U = 2.0 ** -53


def _ex_two_sum(a, b):
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _ex_split(a):
    c = a * 134217729.0  # 2**27 + 1 (|a| < 1: no overflow)
    h = c - (c - a)
    return h, a - h


def _ex_two_prod(a, b, bs):
    """a*b = p + e exactly, for |a|, |b| < 1 with |a*b| >= 2**-969 or a*b = 0
    (Dekker; ``bs``: b's split)."""
    p = a * b
    ah, al = _ex_split(a)
    bh, bl = bs
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _ex_coefficient(num, den_log2):
    """num/2**den_log2 (an integer over a power of two) as floats
    (significand in [1/2, 1), exponent) whose sum is exactly it."""
    out, n, shift = [], abs(int(num)), 0
    sign = -1.0 if num < 0 else 1.0
    while n:
        low = n & ((1 << 52) - 1)
        if low:
            m, e = np.frexp(float(low))
            out.append((sign * float(m), int(e) + shift - den_log2))
        n >>= 52
        shift += 52
    return out


def _ex_vecsum(parts):
    """One VecSum pass: TwoSum along the list, the last the running sum;
    the exact sum is unchanged."""
    s = parts[0]
    out = []
    for p in parts[1:]:
        s, e = _ex_two_sum(s, p)
        out.append(e)
    out.append(s)
    return out


def _ex_round(parts, lost=0.0):
    """(r, ok, e): r the sum of ``parts`` rounded (r + e: the pair of
    the last part and the others' float sum), ok where it is certified
    within one ulp of r: the errors' float sum t and their magnitudes'
    sum a bound the rest, |t - exact| <= (n u) a, and r = fl(last + t)
    adds half an ulp; ok where (n u) a (rounded up by the factor 2), a
    subnormal spacing where a > 0 (the product may underflow) and ``lost``
    (what the parts' scaling dropped) are at most a quarter of r's ulp."""
    last, rest = parts[-1], parts[:-1]
    t = np.zeros_like(last)
    a = np.zeros_like(last)
    for p in rest:
        t = t + p
        a = a + np.abs(p)
    r, e = _ex_two_sum(last, t)
    bound = a * (2 * len(parts) * _EX_U) + np.where(a > 0, 5e-324, 0.0) + lost
    ok = np.isfinite(r) & np.isfinite(bound) & (bound <= np.spacing(np.abs(r)) * 0.25)
    return r, ok, e


def _ex_fraction(terms, values):
    """The polynomial at one point of floats, exactly (a Fraction), or
    None where an input is not finite."""
    from fractions import Fraction

    if not all(np.isfinite(v) for v in values):
        return None
    xs = [Fraction(float(v)) for v in values]
    total = Fraction(0)
    for num, den_log2, powers in terms:
        m = Fraction(num, 1 << den_log2)
        for x, k in zip(xs, powers):
            if k:
                m *= x ** k
        total += m
    return total


def _ex_plain(terms, values):
    """The polynomial at one point in float64 arithmetic (inputs not all
    finite: the NaN or inf that plain code gives)."""
    total = np.float64(0.0)
    for num, den_log2, powers in terms:
        m = np.float64(float(num) if abs(num) < 2**1023 else np.sign(num) * np.inf) \
            / np.float64(2.0) ** den_log2
        for x, k in zip(values, powers):
            if k:
                m = m * np.float64(x) ** k  # (NumPy's: inf, not OverflowError)
        total = total + m
    return total


def _ex_to(value, dtype):
    """A Fraction rounded to ``dtype`` (float64 or float32) to nearest."""
    from fractions import Fraction

    try:
        r = float(value)  # (correctly rounded: int / int)
    except OverflowError:
        r = np.inf if value > 0 else -np.inf
    if dtype == np.float64 or not np.isfinite(r):
        return dtype.type(r)
    c = np.float32(r)
    best = c
    for n in (np.nextafter(c, np.float32(np.inf)), np.nextafter(c, np.float32(-np.inf))):
        if np.isfinite(n) and abs(Fraction(float(n)) - value) < abs(Fraction(float(best)) - value):
            best = n
    return best


def _ex_sum(terms, cols):
    """(r, low, top, done): the polynomial at the block's points (float64
    columns) is r 2**top, r within 3/4 of its ulp and r + low within 1/4
    of it where ``done``."""
    n = cols[0].shape[0]
    sig = [np.frexp(c) for c in cols]
    splits = [_ex_split(m) for m, _ in sig]
    zero = [m == 0 for m, _ in sig]
    mons, exps = [], []
    low = np.full(n, -(1 << 30), dtype=np.int64)  # the exponent of a zero monomial
    for num, den_log2, powers in terms:
        e = np.zeros(n, dtype=np.int64)
        nil = np.zeros(n, dtype=bool)
        for i, k in enumerate(powers):
            if k:
                e = e + k * sig[i][1].astype(np.int64)
                nil = nil | zero[i]
        for cm, ce in _ex_coefficient(num, den_log2):
            parts = [np.full(n, cm)]
            for i, k in enumerate(powers):
                for _ in range(k):
                    parts = [y for p in parts
                             for y in _ex_two_prod(p, sig[i][0], splits[i])]
            mons.append(parts)
            exps.append(np.where(nil, low, e + ce))
    top = np.max(exps, axis=0) if exps else np.zeros(n, dtype=np.int64)
    top = np.where(top == low, 0, top)
    lost = np.zeros(n)  # a bound on what the scaling dropped (below the range)
    flat = []
    for parts, e in zip(mons, exps):
        shift = np.maximum(e - top, -4000).astype(np.int32)
        for p in parts:
            q = np.ldexp(p, shift)
            # (ldexp to the subnormals rounds: within half their spacing)
            lost = lost + np.where(np.ldexp(q, -shift) == p, 0.0, 5e-324)
            flat.append(q)
    if not flat:
        return np.zeros(n), np.zeros(n), top, np.ones(n, dtype=bool)
    for _ in range(_EX_PASSES):
        flat = _ex_vecsum(flat)
    r, done, low = _ex_round(flat, lost)
    ok = np.isfinite(np.asarray(flat)).all(axis=0)
    done &= ok
    todo = np.flatnonzero(ok & ~done)
    if todo.size:  # deep cancellations: more passes, on those elements only
        sub, dropped = [p[todo] for p in flat], lost[todo]
        for _ in range(_EX_MORE):
            sub = _ex_vecsum(sub)
            rs, ds, es = _ex_round(sub, dropped)
            r[todo[ds]] = rs[ds]
            low[todo[ds]] = es[ds]
            done[todo[ds]] = True
            sub, dropped = [p[~ds] for p in sub], dropped[~ds]
            todo = todo[~ds]
            if not todo.size:
                break
    return r, low, top, done


def _ex_block(terms, cols):
    """The polynomial at the block's points (float64 columns) as float64,
    with the mask of the points certified."""
    r, _, top, done = _ex_sum(terms, cols)
    topc = np.clip(top, -4000, 4000).astype(np.int32)
    out = np.ldexp(r, topc)
    # r 2**top: exact in the normal range (within 3/4 ulp, as r); among the
    # subnormals ldexp rounds to their spacing G, and r's ulp is at most G/2
    # there, so the result is within 3/8 G + G/2 < G of the exact value (one
    # ulp); past the largest float it is certified where r - ulp(r) and
    # r + ulp(r), between which the exact sum lies, round alike (rounding is
    # monotonic: inf only where the exact value rounds to inf)
    step = np.spacing(np.abs(r))
    lo, hi = np.ldexp(r - step, topc), np.ldexp(r + step, topc)
    done &= (r == 0) | (np.isfinite(lo) & np.isfinite(hi)) | (lo == hi)
    return out, done


def _ex_inputs(args):
    """``args`` broadcast together, each flattened to float64; their shape
    and the result's float type (float32 stays float32; any other type is
    computed and returned in float64)."""
    arrays = np.broadcast_arrays(*[np.asarray(a) for a in args])
    dtype = np.dtype(np.result_type(*arrays, 1.0))
    if dtype not in (np.dtype(np.float64), np.dtype(np.float32)):
        dtype = np.dtype(np.float64)
    return [np.ravel(a).astype(np.float64) for a in arrays], arrays[0].shape, dtype


def _ex_poly(terms, *args):
    """The polynomial ``terms`` (each (numerator, log2 of the denominator,
    powers of the inputs)) at ``args`` (arrays or scalars of one float
    type), within one ulp of its exact value: float64 expansions, certified
    per element, the rest exactly (fractions) and rounded to nearest."""
    flat, shape, dtype = _ex_inputs(args)
    size = flat[0].size
    out = np.empty(size, dtype=dtype)
    with np.errstate(all="ignore"):
        for start in range(0, size, _EX_BLOCK):
            cols = [f[start:start + _EX_BLOCK] for f in flat]
            r, done = _ex_block(terms, cols)
            out[start:start + _EX_BLOCK] = r  # (float32: one rounding of r)
            for j in np.flatnonzero(~done):  # the rest, exactly
                values = [c[j] for c in cols]
                v = _ex_fraction(terms, values)
                out[start + j] = _ex_plain(terms, values) if v is None else _ex_to(v, dtype)
    return out.reshape(shape)[()] if shape == () else out.reshape(shape)


def _ex_scaled(value):
    """A Fraction as (r, low, top): r + low a pair of float64s, r in
    [1/4, 4) (or 0) correctly rounded, value ~ (r + low) 2**top."""
    from fractions import Fraction

    if value == 0:
        return 0.0, 0.0, 0
    top = value.numerator.bit_length() - value.denominator.bit_length()
    v = value / Fraction(2) ** top
    r = float(v)
    return r, float(v - Fraction(r)), top


def _ex_quot(num_terms, den_terms, *args):
    """The quotient of two polynomials (as ``_ex_poly``'s terms) at
    ``args``: each computed as an expansion, a pair r + low within 1/4 ulp
    of r (no range: (r + low) 2**top), or exactly where not certified; the
    pairs divided (one correction of the float quotient by the exact
    residual, TwoProduct), rounded once and scaled once: within a relative
    2**-52 + 2**-53 (3/4 ulp each operand's pair at most, half an ulp the
    rounding; the correction's own error near 2**-104) wherever the
    quotient is a normal float."""
    flat, shape, dtype = _ex_inputs(args)
    size = flat[0].size
    out = np.empty(size, dtype=dtype)
    with np.errstate(all="ignore"):
        for start in range(0, size, _EX_BLOCK):
            cols = [f[start:start + _EX_BLOCK] for f in flat]
            nh, nl, tn, dn = _ex_sum(num_terms, cols)
            dh, dl, td, dd = _ex_sum(den_terms, cols)
            for j in np.flatnonzero(~(dn & dd)):  # the rest, exactly
                values = [c[j] for c in cols]
                vn = _ex_fraction(num_terms, values)
                vd = _ex_fraction(den_terms, values)
                if vn is None or vd is None or vd == 0:
                    nh[j] = _ex_plain(num_terms, values)
                    dh[j] = _ex_plain(den_terms, values) if vd != 0 else 0.0
                    nl[j] = dl[j] = tn[j] = td[j] = 0
                else:
                    (nh[j], nl[j], tn[j]), (dh[j], dl[j], td[j]) = _ex_scaled(vn), _ex_scaled(vd)
            q = nh / dh
            p, e = _ex_two_prod(q, dh, _ex_split(dh))  # (|q|, |dh| < 16: no overflow)
            c = (((nh - p) - e) + nl - q * dl) / dh
            q = q + np.where(np.isfinite(c), c, 0)
            shift = np.clip(tn - td, -4000, 4000).astype(np.int32)
            out[start:start + _EX_BLOCK] = np.ldexp(q, shift)
    return out.reshape(shape)[()] if shape == () else out.reshape(shape)
