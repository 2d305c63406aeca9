"""Interval arithmetic on raw mpmath values, one function per node type.

An interval is a pair ``(lo, hi)`` of raw mpf tuples (``mpmath.libmp``),
outward rounded at the working precision, possibly with infinite ends.
Two sentinels stand for what an interval cannot say:

* ``UNDEF``: the function is not defined anywhere on its argument (log of
  a negative number, 1/0, 0**-1): the formula has no real value here.
* ``UNKNOWN``: the argument straddles the edge of the domain or a jump
  (log of [-1e-30, 1e-30]); more precision may decide it.

Arithmetic (+, -, *, /, sqrt, integer powers) is mpmath's, correctly
rounded outward.  mpmath's transcendental functions are *not* reliably
rounded in the direction asked (``mpf_exp(1e-30, 154 bits, ceiling)`` is
exactly 1 + 1e-30, below the truth), so every transcendental value is
computed with 20 guard bits and then widened outward by one unit of the
working precision: sound as long as mpmath's result is within 2**20 units
of the truth at the guard precision.  Functions without an interval kernel
in mpmath are evaluated, the same way, at the ends of monotone pieces.

Every function here serves both the ground truth (narrow intervals around
exact inputs, :mod:`.truth`) and the proofs (wide boxes, :mod:`.bounds`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from fractions import Fraction

import mpmath
from mpmath.libmp import (
    fhalf,
    finf,
    fnan,
    fninf,
    fone,
    from_int,
    from_rational,
    fzero,
    mpf_abs,
    mpf_add,
    mpf_ceil,
    mpf_cmp,
    mpf_cos,
    mpf_cosh_sinh,
    mpf_div,
    mpf_exp,
    mpf_floor,
    mpf_ln2,
    mpf_log,
    mpf_lt,
    mpf_neg,
    mpf_nthroot,
    mpf_shift,
    mpf_sin,
    mpf_sub,
    round_ceiling,
    round_floor,
    round_nearest,
    to_float,
    to_int,
)
from mpmath.libmp import libmpi as mpi

__all__ = ["UNDEF", "UNKNOWN", "point", "const", "lt", "le", "contains_zero", "OPS", "is_point"]

UNDEF = "undefined"
UNKNOWN = "unknown"
WHOLE = (fninf, finf)
GUARD = 20
# exp(u) is computed exactly (to the working precision, with an exponent of as many
# bits as it needs: exp(1e300) = 2**(1.44e300) * m) for |u| < 2**_BIG_BITS; beyond,
# where its exponent alone would have more than 16384 bits, it is only bounded
_BIG_BITS = 1 << 14
_BIG = 1 << _BIG_BITS
_REDUCE_MAG = 64  # from |u| >= 2**64 on, exp(u) by an explicit reduction mod ln 2
_TRIG_MAG = 1 << 16  # sin/cos/tan of a point beyond 2**_TRIG_MAG: only bounded
# mpmath's tanh, erfc, gamma, polygamma cost as the argument's exponent (tanh builds
# 1 << mag: exp(exp(28)) as its argument ran the process out of memory); past
# 2**_FN_MAG each is bounded by its asymptotic form instead (or left unknown)
_FN_MAG = 1 << 12

_ctx = mpmath.MPContext()  # private: precision changes never touch mpmath.mp
_lock = threading.Lock()  # ... and one thread's precision never another's


def point(v: tuple) -> tuple:
    return (v, v)


def is_point(s: tuple) -> bool:
    return s[0] == s[1]


def const(value: object, prec: int) -> tuple:
    """An interval holding a SymPy number (Integer, Rational, Float, pi, ...)."""
    if value.is_Integer:
        return point(from_int(int(value)))
    if value.is_Rational:
        p, q = int(value.p), int(value.q)
        return (from_rational(p, q, prec, round_floor), from_rational(p, q, prec, round_ceiling))
    if value.is_Float:
        return point(value._mpf_)  # exact: a Float is a binary number
    if value.is_infinite:
        raise ValueError(f"{value} in the formula: it has no real value")
    v = value.evalf(prec // 3 + 10)  # digits; the error is far below the widening
    if not v.is_Float:
        raise ValueError(f"{value} in the formula is not a real number")
    return _widen(v._mpf_, v._mpf_, prec)


def _widen(a: tuple, b: tuple, prec: int) -> tuple:
    """``[a, b]`` pushed outward by one unit of ``prec`` bits (relative)."""
    lo = a if a in (finf, fninf) or a == fzero else mpf_sub(
        a, mpf_shift(mpf_abs(a), -prec), prec, round_floor)
    hi = b if b in (finf, fninf) or b == fzero else mpf_add(
        b, mpf_shift(mpf_abs(b), -prec), prec, round_ceiling)
    return lo, hi


def lt(a: tuple, b: tuple) -> bool:
    return mpf_lt(a, b)


def le(a: tuple, b: tuple) -> bool:
    return mpf_cmp(a, b) <= 0


def contains_zero(s: tuple) -> bool:
    return le(s[0], fzero) and le(fzero, s[1])


def _sign(s: tuple) -> int | None:
    """+1 / -1 when the whole interval is positive / negative, 0 for [0, 0]."""
    if lt(fzero, s[0]):
        return 1
    if lt(s[1], fzero):
        return -1
    if s[0] == s[1] == fzero:
        return 0
    return None


# ---- arithmetic -------------------------------------------------------------


def _add(prec: int, *args: tuple) -> tuple:
    out = args[0]
    for a in args[1:]:
        out = mpi.mpi_add(out, a, prec)
    return out


def _mul(prec: int, *args: tuple) -> tuple:
    out = args[0]
    for a in args[1:]:
        out = mpi.mpi_mul(out, a, prec)
        if fnan in out:  # 0 * inf at an unbounded end: no bound
            out = WHOLE
    return out


def recip(prec: int, s: tuple) -> tuple | str:
    sg = _sign(s)
    if sg == 0:
        return UNDEF
    if sg is None:
        return UNKNOWN
    return mpi.mpi_div(point(fone), s, prec)


def _div(prec: int, a: tuple, b: tuple) -> tuple | str:
    sg = _sign(b)
    if sg == 0:
        return UNDEF
    if sg is None:
        return UNKNOWN
    out = mpi.mpi_div(a, b, prec)
    return WHOLE if fnan in out else out


# an integer exponent from 2**_POW_INT_BITS on (every float from 2**52 is an
# integer: the clustering row's sigma(s)**cp over cp in (0, inf)) is taken as
# exp(n·log|b|), its sign b**n's: rigorous, and O(1) in n where binary powering
# is ~log2(n) squarings at thousands of bits (mpf_pow_int: 110 of the 139 s
# that row's choice took before its budget ran out)
_POW_INT_BITS = 64


def _pow_huge(prec: int, b: tuple, n: int) -> tuple:
    """b**n for an integer n with |n| >= 2**_POW_INT_BITS and b > 0 or b < 0."""
    neg = lt(b[1], fzero)
    m = (mpf_neg(b[1]), mpf_neg(b[0])) if neg else b
    # log|b| to wp bits keeps n·log|b| to prec + GUARD bits (|log| < 2**12 for
    # every float; the mpf bounds may be wider: their magnitude is added)
    mag = max(12, *(abs(_mag(v)) for v in m if v not in (fzero, finf)))
    wp = prec + GUARD + n.bit_length() + mag.bit_length() + 10
    r = _exp(prec, mpi.mpi_mul(_mpi_log(wp, m), point(from_int(n)), wp))
    return (mpf_neg(r[1]), mpf_neg(r[0])) if neg and n % 2 else r


def _pow(prec: int, b: tuple, e: tuple) -> tuple | str:
    if is_point(e) and e[0] not in (finf, fninf):
        ev = e[0]
        if ev == from_int(to_int(ev)):  # integer exponent
            n = int(to_int(ev))
            if abs(n) >= 1 << _POW_INT_BITS and (lt(fzero, b[0]) or lt(b[1], fzero)):
                return _pow_huge(prec, b, n)
            if n >= 0:
                return mpi.mpi_pow_int(b, n, prec)
            r = recip(prec + GUARD, b)
            return r if isinstance(r, str) else mpi.mpi_pow_int(r, -n, prec)
        if ev == fhalf:
            return _sqrt(prec, b)
    # real powers: base >= 0 (a negative base has no real principal power)
    if lt(b[1], fzero):
        return UNDEF
    if lt(b[0], fzero):
        return UNKNOWN
    if b[0] == fzero:
        if not lt(fzero, e[0]):  # 0**e with e <= 0 somewhere
            return UNDEF if b[1] == fzero else UNKNOWN
        if b[1] == fzero:
            return point(fzero)
    wp = prec + GUARD
    lg = _mpi_log(wp, b) if b[0] != fzero else (fninf, _mpi_log(wp, (b[1], b[1]))[1])
    prod = mpi.mpi_mul(lg, e, wp)
    if fnan in prod:
        return WHOLE
    return _exp(prec, prod)


def rational_pow(p: int, q: int) -> Callable:
    """``b**(p/q)`` (q > 1, the principal power: real for b >= 0 only)."""

    def op(prec: int, b: tuple, e: tuple = None) -> tuple | str:
        if lt(b[1], fzero):
            return UNDEF
        if lt(b[0], fzero):
            return UNKNOWN
        if b[0] == fzero:
            if p < 0:
                return UNDEF if b[1] == fzero else UNKNOWN
            if b[1] == fzero:
                return point(fzero)
        if q == 2 and abs(p) == 1:
            r = mpi.mpi_sqrt(b, prec + GUARD)
            return recip(prec, r) if p < 0 else mpi.mpi_sqrt(b, prec)
        return _root_pow(prec, b, p, q)

    return op


def _root_pow(prec: int, b: tuple, p: int, q: int) -> tuple | str:
    """b**(p/q) for b >= 0: the q-th root outward, then the integer power."""
    wp = prec + GUARD
    lo = mpf_nthroot(b[0], q, wp, round_floor)
    hi = mpf_nthroot(b[1], q, wp, round_ceiling)
    r = _widen(lo, hi, wp)  # nthroot's directed rounding is not trusted either
    out = mpi.mpi_pow_int(r, abs(p), wp)
    return recip(prec, out) if p < 0 else _widen(out[0], out[1], prec)


def _sqrt(prec: int, s: tuple) -> tuple | str:
    if lt(s[1], fzero):
        return UNDEF
    if lt(s[0], fzero):
        return UNKNOWN
    return mpi.mpi_sqrt(s, prec)


# ---- exponential and logarithmic ----------------------------------------------


def _huge(v: tuple) -> bool:
    """|v| >= 2**_BIG_BITS (v finite and not 0)."""
    return v[1] != 0 and v[2] + v[3] > _BIG_BITS


_BIG_MPF = from_int(_BIG)
_NEG_BIG_MPF = from_int(-_BIG)


def _clamp_big(s: tuple) -> tuple:
    """``s`` with ends beyond +-_BIG replaced by +-inf, or by +-_BIG (sound
    for exp-like functions, whose values there are beyond any float)."""
    a, b = s
    if _huge(a):
        a = fninf if a[0] else _BIG_MPF
    if _huge(b):
        b = _NEG_BIG_MPF if b[0] else finf
    return a, b


def _guarded(kernel: Callable, at_point: Callable | None = None) -> Callable:
    """An mpmath interval kernel made sound: guard bits, then widened.
    ``at_point`` (an mpf function) serves a point interval with one call."""

    def op(prec: int, *args: tuple) -> tuple:
        if at_point is not None and args[0][0] == args[0][1] \
                and args[0][0] not in (finf, fninf):
            v = at_point(args[0][0], prec + GUARD, round_nearest)
            return _widen(v, v, prec)
        out = kernel(*args, prec + GUARD)
        return WHOLE if fnan in out else _widen(out[0], out[1], prec)

    return op


_mpi_exp = _guarded(mpi.mpi_exp, mpf_exp)
_mpi_log = _guarded(mpi.mpi_log, mpf_log)


def _mag(v: tuple) -> int:
    """|v| < 2**_mag(v) (v finite, not 0)."""
    return v[2] + v[3]


def _exp_at(prec: int, u: tuple) -> tuple:
    """exp(u) for a finite u with |u| < 2**_BIG_BITS, outward.  Past 2**64
    by an explicit reduction: u = n ln 2 + r with ln 2 to as many bits as u
    has before its point, then exp(r) * 2**n.  (mpmath's own exp of a large
    integer-valued u at more than 600 bits is a power of e with |u| bits of
    exponent: 11 ms for u = 1e300 at 616 bits, 46 s for u ~ 2**16384.)"""
    if u[1] == 0 or _mag(u) < _REDUCE_MAG:
        return _mpi_exp(prec, (u, u))
    wp = prec + GUARD + _mag(u) + 10
    ln2 = _widen(mpf_ln2(wp, round_floor), mpf_ln2(wp, round_ceiling), wp - 4)
    n = int(to_int(mpf_floor(mpf_div(u, ln2[0], _mag(u) + 10, round_floor))))  # (gmpy: mpz)
    r = mpi.mpi_sub(point(u), mpi.mpi_mul(point(from_int(n)), ln2, wp), wp)
    e = _mpi_exp(prec, r)  # |r| < 1, the interval ~2**-(prec + GUARD) wide
    return mpf_shift(e[0], n), mpf_shift(e[1], n)


def _exp(prec: int, s: tuple) -> tuple:
    a, b = _clamp_big(s)
    if a == b and a not in (finf, fninf) and not _huge(a):  # a point, |a| < _BIG
        return _exp_at(prec, a)
    lo = fzero if a == fninf else (
        (0, 1, _BIG, 1) if a == _BIG_MPF else _exp_at(prec, a)[0])
    hi = finf if b == finf else (
        (0, 1, -_BIG, 1) if b == _NEG_BIG_MPF else _exp_at(prec, b)[1])
    return lo, hi


def _log(prec: int, s: tuple) -> tuple | str:
    if le(s[1], fzero):
        return UNDEF
    if le(s[0], fzero):
        return UNKNOWN
    return _mpi_log(prec, s)


# ---- monotone pieces through mpmath's own functions --------------------------


def _mono(fn: Callable, prec: int, s: tuple, increasing: bool = True) -> tuple:
    """``fn`` (an mpmath context function) over ``s``, where it is monotone."""
    with _lock:
        _ctx.prec = prec + GUARD
        fa = fn(_ctx.make_mpf(s[0]))._mpf_
        fb = fa if is_point(s) else fn(_ctx.make_mpf(s[1]))._mpf_
    if not increasing:
        fa, fb = fb, fa
    if fnan in (fa, fb):
        return WHOLE
    return _widen(fa, fb, prec)


def _on(lo: object, hi: object, fn: Callable, increasing: bool = True,
        open_lo: bool = False, open_hi: bool = False) -> Callable:
    """A monotone function defined on ``[lo, hi]`` (ends as mpf, None for
    unbounded; ``open_*`` when an end itself is excluded)."""

    def op(prec: int, s: tuple) -> tuple | str:
        if lo is not None:
            c = mpf_cmp(s[1], lo)
            if c < 0 or (c == 0 and open_lo):
                return UNDEF
            c = mpf_cmp(s[0], lo)
            if c < 0 or (c == 0 and open_lo):
                return UNKNOWN
        if hi is not None:
            c = mpf_cmp(s[0], hi)
            if c > 0 or (c == 0 and open_hi):
                return UNDEF
            c = mpf_cmp(s[1], hi)
            if c > 0 or (c == 0 and open_hi):
                return UNKNOWN
        return _mono(fn, prec, s, increasing)

    return op


def _split_at_zero(fn: Callable) -> Callable:
    """A function defined for x != 0 and monotone on each side of 0."""

    def op(prec: int, s: tuple) -> tuple | str:
        sg = _sign(s)
        if sg == 0:
            return UNDEF
        if sg is None:
            return UNKNOWN
        return fn(prec, s)

    return op


def _of_recip(fn: Callable) -> Callable:
    """``fn(1/x)``, undefined at x = 0."""

    def op(prec: int, s: tuple) -> tuple | str:
        r = recip(prec + GUARD, s)
        return r if isinstance(r, str) else fn(prec, r)

    return op


def _then_recip(fn: Callable) -> Callable:
    """``1/fn(x)``."""

    def op(prec: int, s: tuple) -> tuple | str:
        r = fn(prec + GUARD, s)
        return r if isinstance(r, str) else recip(prec, r)

    return op


_NEG1 = from_int(-1)


def _asin(prec, s):
    return _on(_NEG1, fone, _ctx.asin)(prec, s)


def _acos(prec, s):
    return _on(_NEG1, fone, _ctx.acos, increasing=False)(prec, s)


_atan = _guarded(mpi.mpi_atan)


def _acot(prec, s):  # SymPy: acot(x) = atan(1/x), acot(0) = pi/2
    sg = _sign(s)
    if sg == 0:
        return _half_pi(prec)
    if sg is None:
        return UNKNOWN
    return _atan(prec, recip(prec + GUARD, s))


def _half_pi(prec):
    p = _widen(*mpi.mpi_pi(prec + GUARD), prec)
    return (mpf_shift(p[0], -1), mpf_shift(p[1], -1))


def _periodic(op: Callable, spanned: tuple) -> Callable:
    """A periodic ``op`` (period <= 2 pi), ``spanned`` on an interval wider
    than 8 or on a point beyond 2**_TRIG_MAG: without this, mpmath reduces
    the ends mod pi to as many bits as they have before the point
    (sin(exp(1e5)): 4 s for nothing, sin(exp(1e6)) did not finish)."""

    def periodic(prec: int, s: tuple) -> tuple:
        a, b = s
        if a in (finf, fninf) or b in (finf, fninf):
            return op(prec, s)
        if a != b and mpf_cmp(mpf_sub(b, a, 8, round_floor), from_int(8)) >= 0:
            return spanned
        if max(_mag(a) if a[1] else 0, _mag(b) if b[1] else 0) > _TRIG_MAG:
            return spanned
        return op(prec, s)

    return periodic


_UNIT = (from_int(-1), fone)
_sin = _periodic(_guarded(mpi.mpi_sin, mpf_sin), _UNIT)
_cos = _periodic(_guarded(mpi.mpi_cos, mpf_cos), _UNIT)
_tan = _periodic(_guarded(mpi.mpi_tan), WHOLE)
_mpi_cot = _periodic(_guarded(mpi.mpi_cot), WHOLE)


def _cot(prec, s):
    return UNDEF if _sign(s) == 0 else _mpi_cot(prec, s)


def _small(s: tuple, bits: int) -> bool:
    """Both ends finite and below 2**bits in magnitude."""
    return all(v not in (finf, fninf) and (v[1] == 0 or _mag(v) <= bits) for v in s)


def _cosh_sinh(prec: int, s: tuple) -> tuple[tuple, tuple]:
    """(cosh, sinh) over ``s``: mpmath's kernel for small ends; else
    (e^x +- e^-x)/2 from :func:`_exp` (exact for huge x, e^-x there far
    below the last bit; sinh is increasing, so pairing the ends is exact)."""
    if _small(s, 6):
        # at each end (mpmath's interval kernel subtracts e^x - e^-x at a fixed
        # precision: sinh(8.77e-110) came out [0, 1.5e-36], and a point as 0):
        # sinh is increasing, cosh decreasing then increasing
        wp = prec + GUARD
        ca, sa = mpf_cosh_sinh(s[0], wp, round_nearest)
        cb, sb = (ca, sa) if is_point(s) else mpf_cosh_sinh(s[1], wp, round_nearest)
        if not lt(s[0], fzero):
            c = (ca, cb)
        elif not lt(fzero, s[1]):
            c = (cb, ca)
        else:
            c = (fone, cb if lt(ca, cb) else ca)
        return _widen(c[0], c[1], prec), _widen(sa, sb, prec)
    wp = prec + GUARD
    e1, e2 = _exp(wp, s), _exp(wp, mpi.mpi_neg(s))
    c = mpi.mpi_shift(mpi.mpi_add(e1, e2, wp), -1)
    sh = mpi.mpi_shift(mpi.mpi_sub(e1, e2, wp), -1)
    return _widen(c[0], c[1], prec), _widen(sh[0], sh[1], prec)


def _cosh(prec, s):
    return _cosh_sinh(prec, s)[0]


def _sinh(prec, s):
    return _cosh_sinh(prec, s)[1]


def _beyond(v: tuple) -> bool:
    """|v| >= 2**_FN_MAG (v finite and not 0)."""
    return v[1] != 0 and v not in (finf, fninf) and _mag(v) > _FN_MAG


def _tanh(prec, s):
    # increasing; past 2**_FN_MAG within 2*exp(-2|x|) < 2**-prec of +-1
    return _tanh_end(prec, s[0])[0], _tanh_end(prec, s[1])[1]


def _tanh_end(prec: int, v: tuple) -> tuple:
    if not _beyond(v):
        return _mono(_ctx.tanh, prec, point(v))
    near = mpf_sub(fone, mpf_shift(fone, -prec), prec, round_floor)
    return (mpf_neg(fone), mpf_neg(near)) if v[0] else (near, fone)


def _coth(prec, s):
    return _split_at_zero(_then_recip(_tanh))(prec, s)


_mpi_gamma = _guarded(mpi.mpi_gamma)
_mpi_loggamma = _guarded(mpi.mpi_loggamma)


_REFLECT = from_int(-64)  # gamma left of this by reflection


def _pole(s: tuple) -> str | None:
    """UNDEF at a non-positive integer, UNKNOWN across one, else None."""
    if lt(fzero, s[0]):
        return None
    if s[1] == finf:
        return UNKNOWN
    j = mpf_floor(s[1]) if lt(s[1], fzero) else fzero  # the largest integer <= min(hi, 0)
    if lt(j, s[0]):
        return None
    return UNDEF if is_point(s) else UNKNOWN


def _gamma(prec, s):
    bad = _pole(s)
    if bad:
        return bad
    if lt(s[0], _REFLECT):
        # far left of 0 (between two poles): mpmath's mpi_gamma recurses once per
        # unit up to 0 (gamma over [-9999.75, -9999.25] raised RecursionError in
        # the proofs and the ground truth); the reflection pi/(sin(pi x) gamma(1 - x))
        # instead, 1 - x > 65 (a sine spanning 0 there, |x| > 2**16/pi: unknown)
        wp = prec + GUARD
        pi = mpi.mpi_pi(wp)
        sn = _sin(wp, mpi.mpi_mul(pi, s, wp))
        g = _gamma(wp, mpi.mpi_sub(point(fone), s, wp))
        if isinstance(g, str):
            return g
        return _div(prec, pi, mpi.mpi_mul(sn, g, wp))
    if _beyond(s[0]) or _beyond(s[1]):
        if not lt(from_int(2), s[0]):
            return UNKNOWN  # an end far left of the poles: no bound from here
        # increasing past 1.47: exp(loggamma) (mpmath's gamma of x > 2**4096 ran for minutes)
        lg = _mpi_loggamma(prec + GUARD, s)
        return _exp(prec, lg)
    return _mpi_gamma(prec, s)


def _loggamma(prec, s):
    # real only for x > 0 (SymPy's loggamma is complex on the negative axis)
    if le(s[1], fzero):
        return UNDEF
    if le(s[0], fzero):
        return UNKNOWN
    return _mpi_loggamma(prec, s)


def _polygamma(prec, n, s):
    if not is_point(n) or mpf_cmp(n[0], fzero) < 0 or n[0] != from_int(to_int(n[0])):
        return UNDEF  # polygamma's order is a non-negative integer
    m = int(to_int(n[0]))
    bad = _pole(s)
    if bad:
        return bad
    if m > 0 and not is_point(s) and not lt(fzero, s[0]):
        return UNKNOWN  # not monotone between the poles left of 0
    if _beyond(s[0]) or _beyond(s[1]):
        return UNKNOWN  # mpmath's cost grows with the argument's exponent
    def fn(x):
        return _ctx.polygamma(m, x)

    # x > 0: psi increasing; psi^(m) has the sign (-1)**(m+1) and |psi^(m)| decreases
    return _mono(fn, prec, s, increasing=(m % 2 == 0))


def _betaln(prec, a, b):
    # log B(a, b) = loggamma(a) + loggamma(b) - loggamma(a + b) (symgrad.rewrites.forms
    # betaln); the truth raises prec where the three cancel
    wp = prec + GUARD
    parts = [_loggamma(wp, a), _loggamma(wp, b), _loggamma(wp, mpi.mpi_add(a, b, wp))]
    bad = next((p for p in parts if isinstance(p, str)), None)
    if bad:
        return bad
    return mpi.mpi_sub(mpi.mpi_add(parts[0], parts[1], wp), parts[2], prec)


def _lgamma_remainder(prec, s):
    # loggamma(x) - (x - 1/2)·log(x) + x - log(2π)/2 (symgrad.rewrites.forms)
    wp = prec + GUARD
    lg = _loggamma(wp, s)
    if isinstance(lg, str):
        return lg
    half = mpi.mpi_sub(s, point(mpf_shift(fone, -1)), wp)
    st = mpi.mpi_sub(mpi.mpi_mul(half, mpi.mpi_log(s, wp), wp), s, wp)
    c = mpi.mpi_log(mpi.mpi_mul(point(from_int(2)), mpi.mpi_pi(wp), wp), wp)
    return mpi.mpi_sub(mpi.mpi_sub(lg, st, wp), mpi.mpi_div(c, point(from_int(2)), wp), prec)


def _digamma_remainder(prec, s):
    # digamma(x) - log(x) + 1/(2x) (symgrad.rewrites.forms)
    wp = prec + GUARD
    psi = _polygamma(wp, point(fzero), s)
    if isinstance(psi, str):
        return psi
    if not lt(fzero, s[0]):
        return UNKNOWN
    half = mpi.mpi_div(point(fone), mpi.mpi_mul(point(from_int(2)), s, wp), wp)
    return mpi.mpi_add(mpi.mpi_sub(psi, mpi.mpi_log(s, wp), wp), half, prec)


def _polygamma_remainder(prec, n, s):
    # polygamma(n, x) - (-1)^(n-1)·((n-1)!/x^n + n!/(2x^(n+1))) (symgrad.rewrites.forms)
    wp = prec + GUARD
    psi = _polygamma(wp, n, s)
    if isinstance(psi, str):
        return psi
    m = int(to_int(n[0]))
    if m < 1 or not lt(fzero, s[0]):
        return UNKNOWN
    xm = mpi.mpi_pow_int(s, m, wp)
    first = mpi.mpi_div(point(from_int(math.factorial(m - 1))), xm, wp)
    second = mpi.mpi_div(point(from_int(math.factorial(m))),
                         mpi.mpi_mul(point(from_int(2)), mpi.mpi_mul(xm, s, wp), wp), wp)
    terms = mpi.mpi_add(first, second, wp)
    return mpi.mpi_sub(psi, terms, prec) if m % 2 else mpi.mpi_add(psi, terms, prec)


def _log1pmx(prec, s):
    # log1p(v) - v (symgrad.rewrites.forms), about -v²/2: increasing on (-1, 0],
    # decreasing from 0, so the bounds are its values at the ends (each taken
    # 2·|log2 v| bits wider, what the difference cancels), 0 where s holds 0
    if not lt(_NEG1, s[0]):
        return UNKNOWN

    def at(v):
        small = 0 if v == fzero else max(0, -(v[2] + v[3]))
        wp = prec + GUARD + 2 * small
        lg = _log1p(wp, point(v))
        return lg if isinstance(lg, str) else mpi.mpi_sub(lg, point(v), prec)

    lo, hi = at(s[0]), at(s[1])
    for got in (lo, hi):
        if isinstance(got, str):
            return got
    if not lt(s[0], fzero):  # s ≥ 0: decreasing
        return hi[0], lo[1]
    if not lt(fzero, s[1]):  # s ≤ 0: increasing
        return lo[0], hi[1]
    return (lo[0] if lt(lo[0], hi[0]) else hi[0]), fzero


def _lambertw(prec, x, *k):
    branch = 0 if not k else int(to_int(k[0][0]))
    edge = mpf_neg(mpi.mpi_exp(point(_NEG1), prec + GUARD)[0])  # -1/e, to GUARD bits
    if branch == 0:
        fn = _ctx.lambertw
        return _edge_monotone(prec, x, edge, None, fn, True)
    if branch == -1:
        return _edge_monotone(prec, x, edge, fzero, _lambertw_m1, False)
    return UNDEF  # other branches are complex on the real line


def _lambertw_m1(v):
    return _ctx.lambertw(v, -1)


def _edge_monotone(prec, s, lo, hi, fn, increasing):
    """Like :func:`_on`, with a domain end known only to ``GUARD`` extra
    bits: a point that close to it is unknown, not decided."""
    tol = mpf_shift(mpf_abs(lo), -(prec + GUARD - 4))
    lo_out, lo_in = mpf_sub(lo, tol, prec + GUARD), mpf_add(lo, tol, prec + GUARD)
    if lt(s[1], lo_out):
        return UNDEF
    if lt(s[0], lo_in):
        return UNKNOWN
    if hi is not None:
        if le(hi, s[0]):
            return UNDEF
        if le(hi, s[1]):
            return UNKNOWN
    return _mono(fn, prec, s, increasing)


# ---- piecewise-constant and non-smooth ------------------------------------------


def _abs(prec, s):
    return mpi.mpi_abs(s)


def _max(prec, *args):
    lo, hi = args[0]
    for a, b in args[1:]:
        lo = a if lt(lo, a) else lo
        hi = b if lt(hi, b) else hi
    return lo, hi


def _min(prec, *args):
    lo, hi = args[0]
    for a, b in args[1:]:
        lo = a if lt(a, lo) else lo
        hi = b if lt(b, hi) else hi
    return lo, hi


def _steps(f: Callable) -> Callable:
    """A non-decreasing step function from one mpf end to another."""

    def op(prec, s):
        if fninf in s or finf in s:
            return (f(s[0]) if s[0] != fninf else fninf, f(s[1]) if s[1] != finf else finf)
        return f(s[0]), f(s[1])

    return op


def _nint(v):  # round half to even, exactly
    sign, man, exp, _ = v
    if exp >= 0:  # an integer already (2**exp may have a huge exponent: no Fraction)
        return v
    if man.bit_length() + exp < -1:  # |v| < 1/4 (2**-exp may have a huge exponent)
        return fzero
    q = Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
    return from_int(round(-q if sign else q))


def _sign_fn(prec, s):
    sg = _sign(s)
    return UNKNOWN if sg is None else point(from_int(sg))


def _heaviside(prec, s, *h0):
    sg = _sign(s)
    if sg == 1:
        return point(fone)
    if sg == -1:
        return point(fzero)
    if sg == 0:
        return h0[0] if h0 else point((0, 1, -1, 1))  # SymPy's default H(0) = 1/2
    return UNKNOWN


def _frac(prec, s):
    if fninf in s or finf in s:
        return (fzero, fone)
    fa, fb = mpf_floor(s[0]), mpf_floor(s[1])
    if fa != fb:
        return (fzero, fone)
    return (mpf_sub(s[0], fa, prec, round_floor), mpf_sub(s[1], fa, prec, round_ceiling))


def _mod(prec, x, y):  # SymPy's Mod(x, y) = x - y*floor(x/y), the sign of y
    q = _div(prec + GUARD, x, y)
    if isinstance(q, str):
        return q
    if fninf in q or finf in q:
        return UNKNOWN
    fa, fb = mpf_floor(q[0]), mpf_floor(q[1])
    if fa != fb:
        return UNKNOWN
    return mpi.mpi_sub(x, mpi.mpi_mul(y, point(fa), prec + GUARD), prec)


# ---- the forms symgrad's code generator emits ----------------------------------


def _erfcx(v):
    """exp(v²)·erfc(v) at the context's precision (mpmath has no erfcx):
    with as many more bits as exp(v²) needs; past |v| = 1e6 by its
    asymptotic series, alternating, stopped where a term falls under the
    precision (mpmath's erfc fails near 1e9)."""
    prec = _ctx.prec
    a = abs(v)
    if _ctx.isinf(v) or _ctx.isnan(v):
        return _ctx.mpf(0) if v > 0 else _ctx.mpf(v) if _ctx.isnan(v) else _ctx.inf
    if a > 1e6:
        with _ctx.workprec(prec + 10):
            w, term, total, k = 1 / (2 * a * a), _ctx.mpf(1), _ctx.mpf(0), 0
            while abs(term) > _ctx.ldexp(1, -prec - 10):
                total += term
                k += 1
                term *= -(2 * k - 1) * w
            tail = total / (a * _ctx.sqrt(_ctx.pi))  # erfcx(|v|)
            return tail if v > 0 else 2 * _ctx.exp(a * a) - tail
    with _ctx.workprec(prec + 2 * (max(int(_ctx.mag(v)), 0) if v else 0) + 10):
        return _ctx.exp(v * v) * _ctx.erfc(v)


def _erfc(v):
    """erfc(v); past |v| = 1e6 as exp(-v²)·erfcx(|v|) (mpmath's erfc raises
    OverflowError near 1e9: erfc over all floats crashed check_stability)."""
    if _ctx.isfinite(v) and abs(v) > 1e6:
        with _ctx.workprec(_ctx.prec + 10):
            t = _ctx.exp(-v * v) * _erfcx(abs(v))
            return t if v > 0 else 2 - t
    return _ctx.erfc(v)


def _saturated(prec: int, v: tuple) -> bool:
    """erfc(|v|) < exp(-v²) < 2**-(prec + GUARD): erf(v) is ±1 and erfc(-|v|)
    is 2 within the working precision (|v| >= 1; a float's rounding of |v|
    cannot bridge the 4 bits of margin)."""
    if v[1] == 0 or v in (finf, fninf, fnan):
        return False
    return abs(to_float(v)) > math.sqrt((prec + GUARD + 4) * math.log(2.0))


def _erf_end(prec: int, v: tuple) -> tuple:
    """erf at one end.  Where it is ±1 within the working precision, said
    so at once: mpmath sums a series with cancellation there (erf(124.6) at
    8,192 bits: 2.8 s; the ground truth of a Black-Scholes price deep in
    the money asked for it at every precision it tried, 16 s a point)."""
    if _saturated(prec, v):
        tail = mpf_shift(fone, -prec)  # > erfc(|v|)
        if v[0]:
            return from_int(-1), mpf_add(from_int(-1), tail, prec, round_ceiling)
        return mpf_sub(fone, tail, prec, round_floor), fone
    return _mono(_ctx.erf, prec, point(v))


def _erfc_op(prec, s):
    # decreasing: the upper end's value bounds from below, the lower end's from above
    return _erfc_end(prec, s[1])[0], _erfc_end(prec, s[0])[1]


def _erfc_end(prec: int, v: tuple) -> tuple:
    """erfc at one end; past 2**_FN_MAG from exp: for x > 2,
    exp(-2x²) < erfc(x) < exp(-x²), and erfc(-x) = 2 - erfc(x)."""
    if v[0] and _saturated(prec, v):  # 2 - erfc(|v|), as erf (mpmath: as slow)
        return mpf_sub(from_int(2), mpf_shift(fone, -prec), prec, round_floor), from_int(2)
    if not _beyond(v):
        return _mono(_erfc, prec, point(v), increasing=False)
    wp = prec + GUARD
    sq = mpi.mpi_square(point(mpf_abs(v)), wp)
    lo = _exp(wp, mpi.mpi_neg(mpi.mpi_shift(sq, 1)))[0]
    hi = _exp(wp, mpi.mpi_neg(sq))[1]
    if v[0]:  # 2 - erfc(|x|)
        return mpf_sub(from_int(2), hi, prec, round_floor), from_int(2)
    return _widen(lo, hi, prec)


def _erfcx_op(prec, s):
    return _erfcx_end(prec, s[1])[0], _erfcx_end(prec, s[0])[1]


def _erfcx_end(prec: int, v: tuple) -> tuple:
    """erfcx at one end; past 2**_FN_MAG, for x > 0:
    (1 - 1/(2x²))/(x√π) < erfcx(x) < 1/(x√π), and erfcx(-x) = 2exp(x²) - erfcx(x)."""
    if not _beyond(v):
        return _mono(_erfcx, prec, point(v), increasing=False)
    wp = prec + GUARD
    if v[0]:  # 2exp(x²) - erfcx(|x|), the last below 1
        e = _exp(wp, mpi.mpi_square(point(v), wp))
        return (mpf_sub(mpf_shift(e[0], 1), fone, prec, round_floor),
                mpf_shift(e[1], 1))
    pi = mpi.mpi_pi(wp)
    r = recip(wp, mpi.mpi_mul(point(v), mpi.mpi_sqrt(pi, wp), wp))
    # 1/(2x²) < 2**-(2 * _FN_MAG): a relative 2**-_FN_MAG below covers it
    cut = mpf_shift(r[0], -min(prec, _FN_MAG))
    return _widen(mpf_sub(r[0], cut, wp, round_floor), r[1], prec)


def _log1p(prec, s):
    return _on(_NEG1, None, _ctx.log1p, open_lo=True)(prec, s)


def _expm1(prec, s):
    if _small(s, 6):  # where exp(x) - 1 would cancel
        return _mono(_ctx.expm1, prec, s)
    e = _exp(prec + GUARD, s)  # |x| >= 64 at an end: no cancellation there
    return mpi.mpi_sub(e, point(fone), prec)


def _hypot(prec, a, b):
    return _sqrt(prec, mpi.mpi_add(mpi.mpi_square(a, prec + GUARD),
                                   mpi.mpi_square(b, prec + GUARD), prec + GUARD))


def _logaddexp(prec, a, b):
    m = _max(prec, a, b)
    wp = prec + GUARD
    # log(e^a + e^b) = max + log(1 + e^(min - max)): no overflow
    d = mpi.mpi_neg(mpi.mpi_abs(mpi.mpi_sub(a, b, wp)))
    return mpi.mpi_add(m, _log1p(wp, _exp(wp, d)), prec)


# sin, cos, tan of π·s/q (symgrad.rewrites.trigpi; q a positive binary number):
# the argument reduced exactly in its own units, as rationals, to
# π/2·n + π·w with |w| <= 1/4 (about), then sin or cos of π·w by n mod 4: the
# zeros (s a multiple of q) exact, and no rounding of π·s to resolve
def _binary(v: tuple) -> Fraction:
    sign, man, exp, _ = v
    f = Fraction(int(man) << int(exp)) if exp >= 0 else Fraction(int(man), 1 << -int(exp))
    return -f if sign else f


def _neg(s: tuple) -> tuple:
    return mpf_neg(s[1]), mpf_neg(s[0])


def _trig_pi(name: str) -> Callable:
    spanned = WHOLE if name == "tan" else _UNIT

    def op(prec: int, s: tuple, q: tuple) -> tuple | str:
        if not is_point(q) or q[0] in (finf, fninf, fnan) or not lt(fzero, q[0]):
            return UNDEF
        if fnan in s:
            return UNDEF
        if s[0] in (finf, fninf) or s[1] in (finf, fninf):
            return UNDEF if s[0] == s[1] else spanned  # (sin(±inf) is NaN)
        lo, hi, qq = _binary(s[0]), _binary(s[1]), _binary(q[0])
        period = 2 * qq
        if hi - lo >= period:
            return spanned
        k = math.floor(lo / period) * period
        vlo, vhi = (lo - k) / qq, (hi - k) / qq  # in [0, 4)
        n = round(vlo + vhi)  # the nearest half-integer to the middle, in halves
        wlo, whi = vlo - Fraction(n, 2), vhi - Fraction(n, 2)
        m = n % 4
        if wlo == whi == 0:  # a multiple of q/2: 0 or ±1, exactly
            if name == "tan":
                return UNDEF if m % 2 else point(fzero)
            val = (0, 1, 0, -1)[m] if name == "sin" else (1, 0, -1, 0)[m]
            return point(from_int(val))
        wp = prec + GUARD
        w = (from_rational(wlo.numerator, wlo.denominator, wp, round_floor),
             from_rational(whi.numerator, whi.denominator, wp, round_ceiling))
        t = mpi.mpi_mul(mpi.mpi_pi(wp), w, wp)
        if name == "tan":
            if m % 2 == 0:
                return _tan(prec, t)
            c = _cot(prec, t)
            return c if isinstance(c, str) else _neg(c)
        first = _sin if (name == "sin") == (m % 2 == 0) else _cos
        v = first(prec, t)
        # sin: s, c, -s, -c; cos: c, -s, -c, s
        negate = m >= 2 if name == "sin" else m in (1, 2)
        return _neg(v) if negate and not isinstance(v, str) else v

    return op


OPS: dict[str, Callable] = {
    "Add": _add,
    "Mul": _mul,
    "Pow": _pow,
    "exp": _exp,
    "log": _log,
    "sin": _sin,
    "cos": _cos,
    "tan": _tan,
    "cot": _cot,
    "sec": _then_recip(_cos),
    "csc": _then_recip(_sin),
    "asin": _asin,
    "acos": _acos,
    "atan": _atan,
    "acot": _acot,
    "asec": _of_recip(_acos),
    "acsc": _of_recip(_asin),
    "atan2": None,  # below: two arguments, SymPy's order (y, x)
    "sinh": _sinh,
    "cosh": _cosh,
    "tanh": _tanh,
    "coth": _coth,
    "sech": _then_recip(_cosh),
    "csch": _split_at_zero(_then_recip(_sinh)),
    "asinh": lambda prec, s: _mono(_ctx.asinh, prec, s),
    "acosh": _on(fone, None, _ctx.acosh),
    "atanh": _on(_NEG1, fone, _ctx.atanh, open_lo=True, open_hi=True),
    "acoth": _of_recip(_on(_NEG1, fone, _ctx.atanh, open_lo=True, open_hi=True)),
    "asech": _of_recip(_on(fone, None, _ctx.acosh)),
    "acsch": _of_recip(lambda prec, s: _mono(_ctx.asinh, prec, s)),
    "erf": lambda prec, s: (_erf_end(prec, s[0])[0], _erf_end(prec, s[1])[1]),
    "erfc": _erfc_op,
    "erfcx": _erfcx_op,
    "erfinv": _on(_NEG1, fone, _ctx.erfinv, open_lo=True, open_hi=True),
    "gamma": _gamma,
    "loggamma": _loggamma,
    "polygamma": _polygamma,
    "betaln": _betaln,
    "lgamma_remainder": _lgamma_remainder,
    "digamma_remainder": _digamma_remainder,
    "polygamma_remainder": _polygamma_remainder,
    "log1pmx": _log1pmx,
    "LambertW": _lambertw,
    "Abs": _abs,
    "Max": _max,
    "Min": _min,
    "floor": _steps(mpf_floor),
    "ceiling": _steps(mpf_ceil),
    "rint": _steps(_nint),
    "sign": _sign_fn,
    "Heaviside": _heaviside,
    "frac": _frac,
    "Mod": _mod,
    "log1p": _log1p,
    "log2": _on(fzero, None, lambda v: _ctx.log(v, 2), open_lo=True),
    "expm1": _expm1,
    "hypot": _hypot,
    "logaddexp": _logaddexp,
    "sqrt": _sqrt,
    "sinpi": _trig_pi("sin"),
    "cospi": _trig_pi("cos"),
    "tanpi": _trig_pi("tan"),
}


def _atan2(prec, y, x):
    sy, sx = _sign(y), _sign(x)
    if sy == 0 and sx == 0:
        return UNDEF
    if sx is None and sy in (None, 0):
        # (y exactly 0 and x of either sign: 0, pi or undefined at (0, 0) by
        # x's sign, which more bits decide; the initial bearing's atan2(sin(x)cos(z),
        # cos(y)sin(z) - sin(y)cos(z)cos(x)) at x = 0, y = z was given pi there)
        return UNKNOWN
    if sy is None and not lt(fzero, x[0]):  # across the branch cut x < 0
        return UNKNOWN
    return _mpi_atan2(prec, y, x)


_mpi_atan2 = _guarded(mpi.mpi_atan2)


OPS["atan2"] = _atan2


# ---- exact values at exact points ------------------------------------------------------
# An mpmath kernel widens every result by a unit, exact or not: exp([0, 0]) is
# [1 - 2**-80, 1 + 2**-80], and ``Heaviside(2 - 2*exp(x/2))`` (CELU's
# gradient) at x = 0 then straddles 0 at every precision, a point no
# precision decides.  Where a function's value at a point argument is a
# nonzero rational, it is given as the point it is.  Those arguments are few
# (Lindemann-Weierstrass: exp, cos and cosh of a nonzero algebraic number are
# transcendental, and so are log, log2 of a rational unless a power of the base);
# the functions whose value there is 0 come out exact from mpmath already.


def _one_at_zero(fn: Callable) -> Callable:
    def op(prec: int, s: tuple) -> tuple | str:
        return _ONE_POINT if s[0] == s[1] == fzero else fn(prec, s)

    return op


def _gamma_exact(prec: int, s: tuple) -> tuple | str:
    a = s[0]
    if a == s[1] and not a[0] and a[1] and a[2] >= 0 and a[1].bit_length() + a[2] <= 9:
        n = int(a[1]) << a[2]  # a positive integer below 512: (n - 1)!
        return point(from_int(math.factorial(n - 1)))
    return _gamma(prec, s)


def _log2_exact(prec: int, s: tuple) -> tuple | str:
    a = s[0]
    if a == s[1] and not a[0] and a[1] == 1:  # 2**k (an mpf's mantissa is odd)
        return point(from_int(a[2]))
    return _log2(prec, s)


def _pow_exact(prec: int, b: tuple, e: tuple) -> tuple | str:
    if b[0] == b[1] == fone and e[0] not in (finf, fninf) and e[1] not in (finf, fninf):
        return _ONE_POINT  # 1**e, e finite
    return _pow(prec, b, e)


_ONE_POINT = (fone, fone)
_log2 = OPS["log2"]
for _name in ("exp", "cos", "cosh", "sec", "sech", "erfc", "erfcx"):
    OPS[_name] = _one_at_zero(OPS[_name])
OPS["gamma"], OPS["log2"], OPS["Pow"] = _gamma_exact, _log2_exact, _pow_exact
