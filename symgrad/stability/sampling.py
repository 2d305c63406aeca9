"""Sample points: uniform over the float lattice of each variable's range.

As Herbie samples: a float is drawn uniformly among the *floats* of the
range (uniform in the float's ordinal), so 1e-300 and 1e300 are visited
as often as 1, and a range like [0, 1e300] is covered at every scale.
The range's ends and the thresholds the analysis finds are added.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np
from sympy import Basic, Symbol, sympify

from ..errors import SymgradError
from .bits import Format, ordinal

__all__ = ["Domain", "parse_domain", "from_ordinal", "sample", "float_range"]

Domain = dict[Symbol, tuple[float, float]]


def _as_float_end(v: object, name: str, fmt: Format, up: bool) -> float:
    """A domain end as a float of ``fmt`` inside the range: a lower end is
    rounded up, an upper end down."""
    if isinstance(v, str):
        raise TypeError(
            f"check_stability: the domain of {name} holds the string {v!r}; give numbers")
    e = sympify(v, strict=True) if isinstance(v, Basic) else v
    if isinstance(e, Basic):
        if e.is_infinite:
            return math.inf if e.is_extended_positive else -math.inf
        if not e.is_real:
            raise SymgradError(
                f"the domain of {name} has the end {v!r}, which is not a real number")
        q = Fraction(str(e.evalf(40))) if not e.is_Rational else Fraction(int(e.p), int(e.q))
    else:
        f = float(v)
        if math.isinf(f) or math.isnan(f):
            if math.isnan(f):
                raise SymgradError(f"the domain of {name} has a NaN end")
            return f
        q = Fraction(v) if isinstance(v, (int, Fraction)) else Fraction(f)
    if abs(q) > Fraction(fmt.max):  # past the format's range: its largest float
        return math.copysign(fmt.max, q) if (q > 0) != up else math.copysign(math.inf, q)
    with np.errstate(over="ignore", under="ignore"):
        f = float(fmt.dtype.type(q))
    if Fraction(f) < q and up:
        f = float(np.nextafter(fmt.dtype.type(f), fmt.dtype.type(np.inf)))
    elif Fraction(f) > q and not up:
        f = float(np.nextafter(fmt.dtype.type(f), fmt.dtype.type(-np.inf)))
    return f


def parse_domain(domain: Mapping, symbols: Sequence[Symbol], fmt: Format) -> Domain:
    """``domain`` checked against the formula's free ``symbols``: each
    maps to ``(lo, hi)`` with ``lo <= hi``, ends as floats of ``fmt``."""
    if not isinstance(domain, Mapping):
        raise TypeError(
            f"check_stability: domain is {type(domain).__name__}; give a dict mapping "
            "each symbol to (lo, hi)"
        )
    out: Domain = {}
    for s in symbols:
        if s not in domain:
            raise SymgradError(
                f"check_stability: the symbol {s} has no range in domain; add {s}: (lo, hi)"
            )
        rng = domain[s]
        try:
            lo, hi = rng
        except (TypeError, ValueError):
            raise SymgradError(f"the domain of {s} is {rng!r}; give a pair (lo, hi)") from None
        flo = _as_float_end(lo, str(s), fmt, up=True)
        fhi = _as_float_end(hi, str(s), fmt, up=False)
        if not flo <= fhi:
            raise SymgradError(f"the domain of {s} is empty: ({lo}, {hi})")
        if not max(flo, -fmt.max) <= min(fhi, fmt.max):
            raise SymgradError(
                f"the domain of {s}, ({lo}, {hi}), holds no finite {fmt.name}: both ends "
                f"are {'+' if flo > 0 else '-'}inf in {fmt.name}; give at least one finite end "
                f"(the largest finite {fmt.name} is {fmt.max:.7g})"
            )
        out[s] = (flo, fhi)
    return out


def from_ordinal(o: np.ndarray, fmt: Format) -> np.ndarray:
    """The floats at ordinals ``o`` (the inverse of :func:`.bits.ordinal`)."""
    o = np.asarray(o, dtype=np.int64)
    sign = np.int64(1) << np.int64(fmt.width - 1)
    if fmt.width == 64:
        bits = np.where(o < 0, (-o) | sign, o)
    else:
        bits = np.where(o < 0, (-o) | sign, o).astype(np.int32)
    return bits.astype(fmt.int_dtype).view(fmt.dtype)


def float_range(lo: float, hi: float, fmt: Format) -> tuple[float, float]:
    """``(lo, hi)`` with infinite ends replaced by the largest finite floats."""
    return max(lo, -fmt.max), min(hi, fmt.max)


def sample(domain: Domain, symbols: Sequence[Symbol], n: int, fmt: Format, seed: int,
           extra: Sequence[Mapping[Symbol, float]] = ()) -> np.ndarray:
    """``n`` points, shape ``(n + k, len(symbols))`` in ``fmt``'s dtype:
    uniform over each variable's float ordinals, then the corners of the
    domain (up to 3 variables) and the ``extra`` points (a mapping gives
    some variables; the others are drawn at random).

    >>> from sympy import Symbol
    >>> from .bits import FORMATS
    >>> x = Symbol("x")
    >>> pts = sample({x: (0.0, 1e300)}, [x], 1000, FORMATS["float64"], 0)
    >>> len(pts), bool((pts >= 0).all() and (pts <= 1e300).all())
    (1002, True)
    >>> bool(1e-100 < np.median(pts) < 1e100)  # every scale is visited
    True
    """
    rng = np.random.default_rng(seed)
    cols = []
    for s in symbols:
        lo, hi = float_range(*domain[s], fmt)
        olo, ohi = (int(v) for v in ordinal(np.array([lo, hi]), fmt))
        cols.append(from_ordinal(rng.integers(olo, ohi, size=n, endpoint=True), fmt))
    pts = np.stack(cols, axis=1) if cols else np.zeros((n, 0), dtype=fmt.dtype)
    more = []
    if 0 < len(symbols) <= 3:
        ends = [float_range(*domain[s], fmt) for s in symbols]
        for corner in np.array(np.meshgrid(*ends)).reshape(len(symbols), -1).T:
            more.append(corner)
    for where in extra:
        row = pts[rng.integers(0, n)].copy() if n else np.zeros(len(symbols), dtype=fmt.dtype)
        for j, s in enumerate(symbols):
            if s in where:
                row[j] = where[s]
        more.append(row)
    if more:
        pts = np.concatenate([pts, np.array(more, dtype=fmt.dtype)])
    return pts
