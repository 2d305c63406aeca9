"""Bits of error: how many of a float's bits are wrong.

Herbie's and FPBench's measure: ``log2(1 + u)`` where ``u`` is the number of
floats between the computed result and the correctly rounded true result,
counted on the float's *ordinal* (its bits read as a sign-magnitude
integer, so that -0 and +0 are one point and adjacent floats differ by 1).
A NaN or an infinity where the truth is finite counts as the full width.

Also here: rounding an exact mpmath value to a float of the target format,
correctly (round half to even, subnormals and overflow included), which is
what "the correctly rounded truth" means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from mpmath.libmp import finf, fnan, fninf, fzero

__all__ = ["Format", "FORMATS", "float_format", "round_mpf", "ordinal", "bits_error",
           "bits_error_bounds"]


@dataclass(frozen=True)
class Format:
    """An IEEE binary format: ``prec`` significand bits (with the hidden
    one), normal exponents ``emin..emax``."""

    name: str
    width: int
    prec: int
    emin: int
    emax: int

    # (each computed once per format: the ground truth's rows and the
    # search ask them ~10^5 times a check; a field-free cache, so equality,
    # hashing and the dataclass's fields are as they were)
    @cached_property
    def dtype(self) -> np.dtype:
        return np.dtype(self.name)

    @cached_property
    def int_dtype(self) -> np.dtype:
        return np.dtype(f"int{self.width}")

    @cached_property
    def max(self) -> float:
        return float(np.finfo(self.dtype).max)

    @cached_property
    def tiny(self) -> float:
        """The smallest positive subnormal."""
        return math.ldexp(1.0, self.emin - self.prec + 1)


FORMATS = {
    "float32": Format("float32", 32, 24, -126, 127),
    "float64": Format("float64", 64, 53, -1022, 1023),
}


def float_format(dtype: object) -> Format:
    """The :class:`Format` of ``dtype`` ("float32", np.float64, ...).

    >>> float_format("float32").prec, float_format(np.float64).width
    (24, 64)
    """
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in FORMATS:
        raise ValueError(f"dtype={dtype!r}: give 'float32' or 'float64'")
    return FORMATS[name]


def round_mpf(v: tuple, fmt: Format) -> float:
    """The raw mpmath value ``v`` rounded to nearest (ties to even) in
    ``fmt``, returned as a Python float (exactly representable in ``fmt``).

    >>> from mpmath.libmp import from_rational
    >>> round_mpf(from_rational(1, 3, 200), FORMATS["float64"]) == 1 / 3
    True
    >>> round_mpf(from_rational(1, 3, 200), FORMATS["float32"]) == float(np.float32(1 / 3))
    True
    """
    if v == fzero:
        return 0.0
    if v == finf:
        return math.inf
    if v == fninf:
        return -math.inf
    if v == fnan:
        return math.nan
    sign, man, exp, bc = v
    man, exp, bc = int(man), int(exp), int(bc)  # (gmpy2.mpz under mpmath's gmpy backend)
    top = exp + bc - 1  # v in [2**top, 2**(top + 1))
    if top > fmt.emax:
        return -math.inf if sign else math.inf
    q = max(top - fmt.prec + 1, fmt.emin - fmt.prec + 1)  # exponent of the last kept bit
    if exp >= q:
        r, rq = man, exp
    elif q - exp > bc + 1:  # below half of the last place: rounds to 0
        return -0.0 if sign else 0.0
    else:
        shift = q - exp
        r = man >> shift
        rem = man & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rem > half or (rem == half and r & 1):
            r += 1
        rq = q
    if r.bit_length() + rq - 1 > fmt.emax:
        return -math.inf if sign else math.inf
    out = math.ldexp(r, rq)
    return -out if sign else out


def ordinal(a: np.ndarray, fmt: Format) -> np.ndarray:
    """Each float's position on the float line, as an int64: adjacent
    floats differ by 1, -0 and +0 are both 0, -x is -ordinal(x).

    >>> ordinal(np.array([-0.0, 0.0, 5e-324, 1.0]), FORMATS["float64"]).tolist()
    [0, 0, 1, 4607182418800017408]
    """
    i = np.asarray(a, dtype=fmt.dtype).view(fmt.int_dtype).astype(np.int64)
    mag = i & np.int64((1 << (fmt.width - 1)) - 1)
    return np.where(i < 0, -mag, mag)


def bits_error(computed: np.ndarray, truth: np.ndarray, fmt: Format) -> np.ndarray:
    """``log2(1 + ulps(computed, truth))`` elementwise; NaN or inf where
    the truth is finite is ``fmt.width`` bits.  Where the truth is NaN
    (the formula is undefined there) the result is NaN: no measure.

    >>> f = FORMATS["float64"]
    >>> bits_error(np.array([1.0, np.nextafter(1.0, 2), np.nan, 3.0]),
    ...            np.array([1.0, 1.0, 2.0, np.nan]), f).tolist()
    [0.0, 1.0, 64.0, nan]
    """
    c = np.asarray(computed, dtype=fmt.dtype)
    t = np.asarray(truth, dtype=fmt.dtype)
    oc, ot = ordinal(c, fmt).view(np.uint64), ordinal(t, fmt).view(np.uint64)
    # |oc - ot| < 2**64: the difference taken the right way round wraps correctly
    ulps = np.where(oc.view(np.int64) >= ot.view(np.int64), oc - ot, ot - oc)
    out = np.log2(1.0 + ulps.astype(np.float64))
    finite_t = np.isfinite(t)
    out = np.where(finite_t & ~np.isfinite(c), float(fmt.width), out)
    out = np.where(np.isnan(c) & np.isinf(t), float(fmt.width), out)
    out = np.where(np.isnan(t), np.nan, out)
    return np.minimum(out, float(fmt.width))


def bits_error_bounds(computed: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                      fmt: Format) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds on :func:`bits_error` where the correctly
    rounded truth is only known to lie in ``[lo, hi]`` (NaN bounds where
    ``lo`` is NaN: nothing known).  The truth is a real number there, so a
    NaN from the code is wrong by the full width.

    >>> f = FORMATS["float64"]
    >>> lo, hi = np.array([1.0, 1.0, 2.0]), np.array([1.0, np.nextafter(1.0, 2), 3.0])
    >>> [b.round(1).tolist() for b in bits_error_bounds(np.array([1.0, np.nan, 1.0]), lo, hi, f)]
    [[0.0, 64.0, 52.0], [0.0, 64.0, 52.6]]
    """
    c = np.asarray(computed, dtype=fmt.dtype)
    with np.errstate(invalid="ignore"):
        b_lo, b_hi = bits_error(c, lo, fmt), bits_error(c, hi, fmt)
        inside = (c >= lo) & (c <= hi)
    upper = np.maximum(b_lo, b_hi)
    lower = np.where(inside, 0.0, np.minimum(b_lo, b_hi))
    return lower, upper
