"""The proofs' bounds over every box at once: interval arithmetic in arrays.

:mod:`.bounds` bounds every node of a formula over boxes that cover the
domain (up to 256 of them), each operation's interval widened by what
rounding in the target dtype can add.  Run box by box in mpmath's
intervals (:meth:`.truth.Program.run`), that was about 20 microseconds a
node and a box, pure Python: 28% of every ``check_stability``.  Here each
node is one pass over all the boxes, an interval end an array of ``DT``:
x87's 80-bit long double where numpy has one (64 bits of significand, as
the mpmath tier's widening keeps, and exponents to 2**16383), else
float64.

* ``+ - * /`` and ``sqrt`` are correctly rounded, and their exact error is
  a number of the same type (TwoSum; Dekker's product by Veltkamp's split,
  as numpy has no fma): each end is the rounded result where it is exact,
  else the next number outward (a directed rounding);
* exp, log, tanh, erf, sin, roots and the other functions with a kernel
  here are evaluated at the ends in Arb's balls (python-flint), which hold
  the exact value, the ends rounded outward to ``PREC`` bits, with each
  function's extrema, poles and domain edges decided as the mpmath tier
  decides them (:mod:`.intervals`);
* every operation is then widened as :func:`rounding` widens the mpmath
  tier's (relative ``2**-(p - SLACK)``, plus the smallest subnormal of the
  target dtype), each step directed;
* a node type without a kernel here runs box by box in the mpmath tier's
  own kernel, its interval rounded outward;
* a box on which some end is NaN or wholly past ``DT``'s range (a lower end
  at +inf: mpmath's exponents are unbounded, so ``1/exp(x)`` at x = 1e5
  keeps its sign there) is *not* bounded here: :func:`.bounds.node_bounds`
  runs it in the mpmath tier, as before.

Every end is an outward rounding of an exact bound, so it is sound.  It is
within an ulp or two of ``PREC`` bits of the mpmath tier's (which computes
at p + 20 bits and widens at 64): the statements proved are the same, bar
a bound tighter here (cosh over a box across 0 is bounded below by 1, where
the mpmath tier's exp-based cosh says e**-|x|).  Without python-flint the
functions run box by box in the mpmath kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import methodcaller

import numpy as np
from mpmath.libmp import (
    finf,
    fnan,
    fninf,
    from_float,
    from_man_exp,
    fzero,
    mpf_abs,
    mpf_add,
    mpf_cmp,
    mpf_pos,
    mpf_shift,
    mpf_sub,
    round_ceiling,
    round_floor,
    to_float,
)
from sympy import Basic

from ..widen import FloatMarker
from .balls import _ctx, _lock, arb
from .bits import Format
from .intervals import UNDEF, UNKNOWN

__all__ = ["SLACK", "rounding", "BoxBounds", "run", "rerun"]

SLACK = 10  # bits of the significand a libm result may get wrong, and then some

# a node's state in a box
VALUE, UNDEFINED, UNKNOWN_S, BOOL, PAIR = 0, 1, 2, 3, 4
_INF = np.inf
# The ends' type: x87's 80-bit long double where numpy has it (64 bits of
# significand, as the mpmath tier's widening keeps; exponents to 2**16383, so
# exp(1000) is a number, not an overflow), else float64 (53 bits: a few ulps
# looser than the mpmath tier, and boxes past 1e308 go to it).
DT = np.longdouble if np.finfo(np.longdouble).nmant >= 63 else np.float64
_FI = np.finfo(DT)
PREC = int(_FI.nmant) + 1
_NORMAL = _FI.smallest_normal  # below it conversions round to nearest


def rounding(fmt: Format) -> Callable:
    """The mpmath tier's widening of one operation's interval (``post`` of
    :meth:`.truth.Program.run`): outward by ``2**-(p - SLACK)`` relative
    and the smallest subnormal of ``fmt``."""
    tiny = from_float(fmt.tiny)
    shift = -(fmt.prec - SLACK)

    def widen(v: tuple) -> tuple:
        lo, hi = v
        if lo not in (finf, fninf):
            lo = mpf_sub(mpf_sub(lo, mpf_shift(mpf_abs(lo), shift), 64, round_floor), tiny, 64,
                         round_floor)
        if hi not in (finf, fninf):
            hi = mpf_add(mpf_add(hi, mpf_shift(mpf_abs(hi), shift), 64, round_ceiling), tiny, 64,
                         round_ceiling)
        return lo, hi

    return widen


def _dn(a: np.ndarray) -> np.ndarray:
    return np.nextafter(a, -_INF)


def _up(a: np.ndarray) -> np.ndarray:
    return np.nextafter(a, _INF)


# ---- directed rounding: the rounded result, or the next float out where it is inexact ----
#
# The exact error of a sum (Knuth's TwoSum) and of a product (Dekker's, by Veltkamp's
# split: numpy has no fma) are floats, so each end is the float just inside the exact
# value's side: an exact result is not moved (2*x, -y, 0 + x), an inexact one by one ulp.
# Where the error term is not exact (a product or quotient near the ends of the
# exponent range), the end moves out by one ulp regardless.

_SPLIT = DT(2 ** ((PREC + 1) // 2) + 1)  # Veltkamp's
_BIG = np.ldexp(DT(1), int(_FI.maxexp) - 40)
_SMALL = np.ldexp(DT(1), int(_FI.minexp) + PREC + 10)


def _sum_err(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _sum_dn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    s, e = _sum_err(a, b)
    return np.where(e < 0, _dn(s), s)


def _sum_up(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    s, e = _sum_err(a, b)
    return np.where(e > 0, _up(s), s)


def _prod_err(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a*b`` rounded, and its exact error (NaN where not exact)."""
    p = a * b
    ca = _SPLIT * a
    ah = ca - (ca - a)
    al = a - ah
    cb = _SPLIT * b
    bh = cb - (cb - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    trust = (np.abs(a) < _BIG) & (np.abs(b) < _BIG) & ((np.abs(p) >= _SMALL) | (a == 0) | (b == 0))
    return p, np.where(trust, e, np.nan)


def _prod_ends(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floats below and above the exact ``a*b``."""
    p, e = _prod_err(a, b)
    # (an overflow stays infinite: a bound wholly past the range sends the box to mpmath)
    big = np.isinf(p)
    return np.where((e >= 0) | big, p, _dn(p)), np.where((e <= 0) | big, p, _up(p))


def _recip_ends(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floats below and above the exact ``1/b`` (b != 0): q*b's exact error
    tells on which side of 1/b the rounded q lies."""
    q = 1.0 / b
    p, e = _prod_err(q, b)
    d = 1.0 - p  # exact (Sterbenz): q*b is within an ulp of 1
    trust = (np.abs(q) < _BIG) & (np.abs(q) >= _SMALL) & (np.abs(b) >= _SMALL) & (e == e)
    above = (d > e) == (b > 0)  # the exact 1/b above q
    big = np.isinf(q)  # (as in _prod_ends)
    return (np.where((trust & (above | (d == e))) | big, q, _dn(q)),
            np.where((trust & (~above | (d == e))) | big, q, _up(q)))


def _recip_pair(b: np.ndarray) -> tuple[np.ndarray, ...]:
    """``1/b`` as ``(q, below, q, above)``: the rounded quotient and bounds
    of the rest ``1/b - q = (1 - q*b)/b``, whose numerator q*b's exact error
    gives (``d - e``, rounded: the division and that rounding are within
    2**-62 of the rest, which is within half an ulp of q). Where the error
    is not exact: (q moved out, 0)."""
    q = 1.0 / b
    p, e = _prod_err(q, b)
    d = 1.0 - p  # exact (Sterbenz)
    trust = (np.abs(q) < _BIG) & (np.abs(q) >= _SMALL) & (np.abs(b) >= _SMALL) & (e == e)
    t = (d - e) / b
    slack = np.abs(t) * DT(2.0**-60)
    below, above = _sum_dn(t, -slack), _sum_up(t, slack)
    big = np.isinf(q)
    return (np.where(trust | big, q, _dn(q)), np.where(trust, below, 0),
            np.where(trust | big, q, _up(q)), np.where(trust, above, 0))


def _sqrt_ends(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floats below and above the exact ``sqrt(x)`` (x >= 0)."""
    s = np.sqrt(x)
    p, e = _prod_err(s, s)
    d = x - p  # exact (Sterbenz)
    trust = ((x >= _SMALL) & (e == e)) | (x == 0)
    return (np.where(trust & (d >= e), s, np.maximum(_dn(s), 0.0)),
            np.where(trust & (d <= e), s, _up(s)))


def to_mpf(x) -> tuple:
    """An end, exactly, as an mpf (+-inf as mpmath's)."""
    if np.isinf(x):
        return finf if x > 0 else fninf
    m, e = np.frexp(DT(x))
    return from_man_exp(int(np.ldexp(m, PREC)), int(e) - PREC)


def _ends(mans: list[int], exps: list[int]) -> np.ndarray:
    """``man * 2**exp`` as DT, exactly where it is in range (``man`` of at
    most PREC bits; past the range +-inf or a rounded subnormal)."""
    a = np.array([abs(m) >> 32 for m in mans], dtype=np.float64).astype(DT)
    b = np.array([abs(m) & 0xFFFFFFFF for m in mans], dtype=np.float64).astype(DT)
    e = np.array([max(-(1 << 20), min(x, 1 << 20)) for x in exps], dtype=np.int64)
    with np.errstate(over="ignore", under="ignore"):
        v = np.ldexp(a * DT(2.0**32) + b, e)
    return np.where(np.array([m < 0 for m in mans], dtype=bool), -v, v)


def end_lo(v: tuple):
    """The largest DT <= the mpf ``v`` (inf past the range: the box is the
    mpmath tier's)."""
    if v in (finf, fninf) or v == fnan:
        return DT(to_float(v))
    r = mpf_pos(v, PREC, round_floor)
    out = _ends([-r[1] if r[0] else r[1]], [r[2]])[0]
    if np.isfinite(out) and out != 0 and mpf_cmp(to_mpf(out), v) > 0:
        out = np.nextafter(out, DT(-_INF))  # (a subnormal rounded to nearest)
    if out == 0 and mpf_cmp(fzero, v) > 0:
        out = np.nextafter(DT(0), DT(-_INF))
    return out


def end_hi(v: tuple):
    if v in (finf, fninf) or v == fnan:
        return DT(to_float(v))
    r = mpf_pos(v, PREC, round_ceiling)
    out = _ends([-r[1] if r[0] else r[1]], [r[2]])[0]
    if np.isfinite(out) and out != 0 and mpf_cmp(to_mpf(out), v) < 0:
        out = np.nextafter(out, DT(_INF))
    if out == 0 and mpf_cmp(fzero, v) < 0:
        out = np.nextafter(DT(0), DT(_INF))
    return out


def double_lo(x) -> float:
    """The largest float64 <= the DT ``x``; inf past the largest float64,
    as the mpmath tier's hull reads such a bound (``1 + exp(800) in [inf,
    inf]``: past every float)."""
    d = np.float64(x)
    if d == _INF:
        return d
    return float(np.nextafter(d, -_INF) if d > x else d)


def double_hi(x) -> float:
    d = np.float64(x)
    if d == -_INF:
        return d
    return float(np.nextafter(d, _INF) if d < x else d)


class BoxBounds:
    """Every node's bounds over ``n`` boxes: ``lo``, ``hi`` (float arrays,
    shape ``(nodes, n)``), ``state`` (VALUE: ``[lo, hi]`` holds it;
    UNDEFINED, UNKNOWN_S: the mpmath tier's sentinels; BOOL: a condition,
    ``lo`` 1.0 for true and 0.0 for false; PAIR: a Piecewise's pair), and
    ``bad``, the boxes left to the mpmath tier (shape ``(n,)``), and
    ``taint``, per node the boxes where its bounds are not to be read (past
    the range there, or computed from such a node)."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray, state: np.ndarray,
                 bad: np.ndarray, taint: np.ndarray) -> None:
        self.lo, self.hi, self.state, self.bad, self.taint = lo, hi, state, bad, taint


class _Run:
    def __init__(self, prog, lo: np.ndarray, hi: np.ndarray, fmt: Format, prec: int) -> None:
        n_nodes, n = len(prog.steps), lo.shape[1]
        self.prog, self.fmt, self.prec, self.n = prog, fmt, prec, n
        self.lo = np.zeros((n_nodes, n), dtype=DT)
        self.hi = np.zeros((n_nodes, n), dtype=DT)
        self.state = np.zeros((n_nodes, n), dtype=np.int8)
        self.bad = np.zeros(n, dtype=bool)
        self.taint = np.zeros((n_nodes, n), dtype=bool)
        self.inputs = (lo.astype(DT), hi.astype(DT))
        self.rel = np.ldexp(DT(1), -(fmt.prec - SLACK))
        self.tiny = DT(fmt.tiny)
        self.post = rounding(fmt)

    # ---- one node -------------------------------------------------------------

    def widen(self, lo: np.ndarray, hi: np.ndarray, elo: np.ndarray | None = None,
              ehi: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The float widening of an operation's result (see :func:`rounding`).
        With remainders (``lo + elo`` a lower bound, ``hi + ehi`` an upper
        one, each pair exact), the widened end is rounded once, from the
        exact sum: as tight as 64 bits allow, never looser than the mpmath
        tier's (rounded at p + 20 bits, then widened at 64)."""
        if elo is not None:
            return self._widen_exact(lo, elo, -1), self._widen_exact(hi, ehi, 1)
        a, b = np.abs(lo) * self.rel, np.abs(hi) * self.rel  # exact unless subnormal
        a = np.where((np.abs(lo) >= _SMALL) | (lo == 0), a, _up(a))
        b = np.where((np.abs(hi) >= _SMALL) | (hi == 0), b, _up(b))
        wlo = _sum_dn(_sum_dn(lo, -a), -self.tiny)
        whi = _sum_up(_sum_up(hi, b), self.tiny)
        return np.where(np.isinf(lo), lo, wlo), np.where(np.isinf(hi), hi, whi)  # (as mpmath's)

    def _widen_exact(self, v: np.ndarray, e: np.ndarray, side: int) -> np.ndarray:
        """One end ``v + e`` (exact) moved out by ``|v + e|*rel + tiny``
        (``side`` -1: down, 1: up), in one directed rounding of the exact sum
        (the remainders' own sum rounded outward: 2**-128 of it at most)."""
        m = _sum_up(np.abs(v), np.abs(e)) * self.rel  # >= |v + e|*rel (exact scaling)
        m = np.where((np.abs(v) >= _SMALL) | (m == 0), m, _up(m))
        t, e1 = _sum_err(v, side * m)
        t, e2 = _sum_err(t, side * self.tiny)
        if side < 0:
            out = _sum_dn(t, _sum_dn(_sum_dn(e, e1), e2))
        else:
            out = _sum_up(t, _sum_up(_sum_up(e, e1), e2))
        return np.where(np.isinf(v), v, out)  # (as mpmath's: an infinite end stays)

    def set(self, i: int, lo: np.ndarray, hi: np.ndarray, ok: np.ndarray | None,
            widen: bool = True, elo: np.ndarray | None = None,
            ehi: np.ndarray | None = None) -> None:
        """Node ``i``'s interval on the boxes ``ok`` (None: every box whose
        state is VALUE already); ``elo``, ``ehi``: remainders (:meth:`widen`)."""
        if widen:
            lo, hi = self.widen(lo, hi, elo, ehi)
        if ok is None:
            self.lo[i], self.hi[i] = lo, hi
        else:
            self.lo[i][ok], self.hi[i][ok] = lo[ok], hi[ok]
        self.check(i)

    def check(self, i: int) -> None:
        """Boxes whose bound of node ``i`` is NaN or wholly past the range
        (a lower end at +inf, an upper at -inf: mpmath's exponents are
        unbounded) are the mpmath tier's.  An upper end at +inf (a lower at
        -inf) is a sound bound, and the hull's end either way."""
        lo, hi = self.lo[i], self.hi[i]
        own = (self.state[i] == VALUE) & (np.isnan(lo) | np.isnan(hi) | (lo == _INF)
                                          | (hi == -_INF))
        self.bad |= own
        self.taint[i] |= own


def run(prog, lo: np.ndarray, hi: np.ndarray, fmt: Format, prec: int) -> BoxBounds:
    """Every node of ``prog`` (a :class:`.truth.Program` without
    complements) over the boxes ``[lo[j], hi[j]]`` of the symbols (arrays
    of shape ``(symbols, n)``), as described in the module doc; ``prec``
    is the mpmath tier's working precision, for the nodes it computes."""
    r = _Run(prog, lo, hi, fmt, prec)
    with np.errstate(all="ignore"):
        for i, step in enumerate(prog.steps):
            _step(r, i, step, prog.order[i])
    return BoxBounds(r.lo, r.hi, r.state, r.bad, r.taint)


def _step(r: _Run, i: int, step: tuple, node: Basic) -> None:
    kind = step[0]
    if kind == "sym":
        r.lo[i], r.hi[i] = r.inputs[0][step[1]], r.inputs[1][step[1]]
        return
    if kind == "const":
        c = r.prog._consts(r.prec)[step[1]]
        r.lo[i], r.hi[i] = end_lo(c[0]), end_hi(c[1])
        r.check(i)
        return
    if kind == "bool":
        r.state[i] = BOOL
        r.lo[i] = r.hi[i] = 1.0 if step[1] else 0.0
        return
    name = type(node).__name__
    args = step[2]
    if name == "ExprCondPair":
        r.state[i] = PAIR
        return
    if name == "Piecewise":
        _piecewise(r, i, args)
        for k in args:
            r.taint[i] |= r.taint[list(r.prog.steps[k][2])].any(axis=0)
        return
    # the sentinels propagate (Program.run: UNDEF first, then UNKNOWN)
    st = r.state[list(args)]
    undef = (st == UNDEFINED).any(axis=0)
    unknown = ~undef & (st == UNKNOWN_S).any(axis=0)
    r.state[i] = np.where(undef, UNDEFINED, np.where(unknown, UNKNOWN_S, VALUE))
    kernel = _KERNELS.get(name)
    if node.is_Pow:
        kernel = _pow_kernel(node)
    elif isinstance(node, FloatMarker):
        kernel = _identity
    if kernel is None or not kernel(r, i, args):
        _by_box(r, i, step)
    r.taint[i] |= r.taint[list(args)].any(axis=0)


# ---- kernels: each fills node i where its state is VALUE (True), or declines ---------


def _identity(r, i, args):
    (a,) = args
    r.set(i, r.lo[a], r.hi[a], None)
    return True


def _add(r, i, args):
    """A sum of n terms, each end within an ulp of the exact sum: the
    running sum's exact errors (TwoSum) are added up apart, rounded in the
    end's direction, and added last (pairwise rounding loses the small
    terms of -1 + 1e-175 + 1, which mpmath's p + 20 bits keep)."""
    lo, hi = r.lo[args[0]], r.hi[args[0]]
    elo, ehi = np.zeros_like(lo), np.zeros_like(hi)
    for a in args[1:]:
        lo, e = _sum_err(lo, r.lo[a])
        elo = _sum_dn(elo, np.where(np.isnan(e), 0, e))  # (NaN: an infinite end)
        hi, e = _sum_err(hi, r.hi[a])
        ehi = _sum_up(ehi, np.where(np.isnan(e), 0, e))
    r.set(i, lo, hi, None, elo=elo, ehi=ehi)
    return True


def _mul2(alo, ahi, blo, bhi, point: bool = False):
    """[alo, ahi] * [blo, bhi] outward (``point``: the second is a point)."""
    if point and np.frexp(blo[:1])[0][0] in (0.5, -0.5):
        # times +-2**k (-x, 2*x, x/2): exact but in the subnormals (or past the range)
        pa, pb = alo * blo, ahi * blo
        exact_a = (np.abs(pa) >= _SMALL) | (alo == 0)
        exact_b = (np.abs(pb) >= _SMALL) | (ahi == 0)
        lo = np.minimum(np.where(exact_a, pa, _dn(pa)), np.where(exact_b, pb, _dn(pb)))
        hi = np.maximum(np.where(exact_a, pa, _up(pa)), np.where(exact_b, pb, _up(pb)))
        return lo, hi
    corners = ((alo, blo), (ahi, blo)) if point else \
        ((alo, blo), (alo, bhi), (ahi, blo), (ahi, bhi))
    ends = [_prod_ends(u, v) for u, v in corners]
    lo, hi = ends[0]
    for a, b in ends[1:]:
        lo, hi = np.minimum(lo, a), np.maximum(hi, b)
    return lo, hi


def _mul(r, i, args):
    # numbers that are floats (a Mul's number is first; 1/3 or pi is an interval)
    points = [a for a in args if r.prog.steps[a][0] == "const" and r.lo[a, 0] == r.hi[a, 0]]
    rest = [a for a in args if a not in points]
    order = rest + points
    lo, hi = r.lo[order[0]], r.hi[order[0]]
    for a in order[1:-1]:
        lo, hi = _mul2(lo, hi, r.lo[a], r.hi[a], a in points)
    last = order[-1]
    if len(order) > 1 and not (last in points and np.frexp(r.lo[last, :1])[0][0] in (0.5, -0.5)):
        # the last product's exact error goes into the widening's one rounding
        r.set(i, *_mul2_exact(lo, hi, r.lo[last], r.hi[last], last in points))
        return True
    if len(order) > 1:
        lo, hi = _mul2(lo, hi, r.lo[last], r.hi[last], True)
    r.set(i, lo, hi, None)
    return True


def _mul2_exact(alo, ahi, blo, bhi, point: bool) -> tuple:
    """``(lo, hi, ok, elo, ehi)`` for :meth:`_Run.set`: the corner products
    least and greatest as exact pairs (product, its error): a pair is
    ordered by its product, then its error (|error| <= half an ulp); where
    an error is not exact, the product moved out one ulp and no error."""
    corners = ((alo, blo), (ahi, blo)) if point else \
        ((alo, blo), (alo, bhi), (ahi, blo), (ahi, bhi))
    best = None
    for u, v in corners:
        p, e = _prod_err(u, v)
        ok = (e == e) | np.isinf(p)
        e0 = np.where(ok & (e == e), e, 0)
        cand = (np.where(ok, p, _dn(p)), e0, np.where(ok, p, _up(p)), e0)
        if best is None:
            best = cand
            continue
        lo_take = (cand[0] < best[0]) | ((cand[0] == best[0]) & (cand[1] < best[1]))
        hi_take = (cand[2] > best[2]) | ((cand[2] == best[2]) & (cand[3] > best[3]))
        best = (np.where(lo_take, cand[0], best[0]), np.where(lo_take, cand[1], best[1]),
                np.where(hi_take, cand[2], best[2]), np.where(hi_take, cand[3], best[3]))
    lo, elo, hi, ehi = best
    return lo, hi, None, True, elo, ehi


def _recip(r, i, lo, hi):
    """1/[lo, hi] where the state is VALUE: UNDEFINED at [0, 0], UNKNOWN
    across 0 (intervals.recip)."""
    st = r.state[i]
    val = st == VALUE
    zero = val & (lo == 0) & (hi == 0)
    across = val & ~zero & (lo <= 0) & (hi >= 0)
    st[zero] = UNDEFINED
    st[across] = UNKNOWN_S
    return _recip_ends(hi)[0], _recip_ends(lo)[1]


def _pow_int_abs(lo, hi, n):
    """[lo**n, hi**n] for 0 <= lo <= hi, outward (by squaring)."""
    rlo, rhi = np.ones_like(lo), np.ones_like(hi)
    blo, bhi = lo, hi
    while n:
        if n & 1:
            rlo, rhi = _prod_ends(rlo, blo)[0], _prod_ends(rhi, bhi)[1]
        n >>= 1
        if n:
            blo, bhi = _prod_ends(blo, blo)[0], _prod_ends(bhi, bhi)[1]
    return np.maximum(rlo, 0.0), rhi


def _pow_int(lo, hi, n):
    """mpmath's mpi_pow_int, outward: even powers through |x|."""
    if n == 0:
        return np.ones_like(lo), np.ones_like(hi)
    if n == 1:
        return lo, hi
    if n % 2:  # increasing; an end's power has the end's sign
        a_dn, a_up = _pow_int_abs(np.abs(lo), np.abs(lo), n)
        b_dn, b_up = _pow_int_abs(np.abs(hi), np.abs(hi), n)
        return np.where(lo < 0, -a_up, a_dn), np.where(hi < 0, -b_dn, b_up)
    alo, ahi = np.abs(lo), np.abs(hi)
    mn = np.where((lo <= 0) & (hi >= 0), 0.0, np.minimum(alo, ahi))
    mx = np.maximum(alo, ahi)
    return _pow_int_abs(mn, mx, n)


def _real_pow(r, i, args):
    """``b**e`` for an exponent that is not a number of the formula
    (intervals._pow's real powers): b >= 0; over a box, b**e = exp(e*log b)
    takes its extremes at the corners, each in Arb. Where e is a point that
    is an integer or 1/2, mpmath's other cases: box by box."""
    if arb is None:
        return False
    b, e = args
    blo, bhi, elo, ehi = r.lo[b], r.hi[b], r.lo[e], r.hi[e]
    st = r.state[i]
    val = st == VALUE
    special = val & (elo == ehi) & ((elo == np.round(elo)) | (elo == 0.5))
    val &= ~special
    st[val & (bhi < 0)] = UNDEFINED
    st[val & (bhi >= 0) & (blo < 0)] = UNKNOWN_S
    at0 = val & (blo == 0) & (bhi >= 0) & ~(elo > 0)
    st[at0 & (bhi == 0)] = UNDEFINED
    st[at0 & (bhi > 0)] = UNKNOWN_S
    val = (st == VALUE) & ~special
    zero = val & (bhi == 0)  # [0, 0]**e, e > 0
    live = val & ~zero & np.isfinite(elo) & np.isfinite(ehi) & np.isfinite(bhi)
    m = int(live.sum())
    xs = np.concatenate([blo[live], blo[live], bhi[live], bhi[live]])
    ys = np.concatenate([elo[live], ehi[live], elo[live], ehi[live]])
    clo, chi = _arb_pow(xs, ys)
    out_lo, out_hi = np.zeros(r.n, dtype=DT), np.zeros(r.n, dtype=DT)
    out_lo[live] = np.minimum.reduce([clo[k * m:(k + 1) * m] for k in range(4)])
    out_hi[live] = np.maximum.reduce([chi[k * m:(k + 1) * m] for k in range(4)])
    r.set(i, out_lo, out_hi, live | zero)
    _by_box(r, i, r.prog.steps[i], special | (val & ~zero & ~live))
    return True


def _arb_pow(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of x**y (x >= 0; 0**y = 0 for y > 0) at each pair, as _arb_at's."""
    pairs = np.stack([xs, ys]).T
    if not len(pairs):
        return np.zeros(0, dtype=DT), np.zeros(0, dtype=DT)
    u, inv = np.unique(pairs, axis=0, return_inverse=True)
    mx, my = _man_exps(u[:, 0]), _man_exps(u[:, 1])
    lo, hi = _ball_ends(lambda: [arb(0) if a[0] == 0 else (arb(a).log() * arb(b)).exp()
                                 for a, b in zip(mx, my)])
    inv = np.ravel(inv)
    return lo[inv], hi[inv]


def _pow_kernel(node: Basic) -> Callable | None:
    e = node.exp
    if not e.is_Number:
        return _real_pow
    if e.is_Integer:
        n = int(e)
        if abs(n) > 64:
            return None

        def op(r, i, args):
            lo, hi = r.lo[args[0]], r.hi[args[0]]
            if n == -1:  # 1/b: the quotient's rest into the widening's one rounding
                _recip(r, i, lo, hi)  # (the states)
                qlo, elo, _, _ = _recip_pair(hi)
                _, _, qhi, ehi = _recip_pair(lo)
                r.set(i, qlo, qhi, None, elo=elo, ehi=ehi)
                return True
            if n < 0:
                lo, hi = _recip(r, i, lo, hi)
            plo, phi = _pow_int(lo, hi, abs(n))
            r.set(i, plo, phi, None)
            return True

        return op
    if e.is_Rational and not (int(e.q) == 2 and abs(int(e.p)) == 1):
        return _root_kernel(int(e.p), int(e.q))
    if e.is_Rational:
        p = int(e.p)

        def op(r, i, args):  # intervals.rational_pow(+-1, 2)
            lo, hi = r.lo[args[0]], r.hi[args[0]]
            st = r.state[i]
            val = st == VALUE
            st[val & (hi < 0)] = UNDEFINED
            st[val & (hi >= 0) & (lo < 0)] = UNKNOWN_S
            if p < 0:
                st[val & (lo == 0) & (hi == 0)] = UNDEFINED
                st[val & (lo == 0) & (hi > 0)] = UNKNOWN_S
            slo, shi = _sqrt_ends(np.maximum(lo, 0.0))[0], _sqrt_ends(np.maximum(hi, 0.0))[1]
            if p < 0:
                slo, shi = _recip_ends(shi)[0], _recip_ends(slo)[1]
            r.set(i, slo, shi, None)
            return True

        return op
    return None


def _abs(r, i, args):
    lo, hi = r.lo[args[0]], r.hi[args[0]]
    alo = np.where(lo >= 0, lo, np.where(hi <= 0, -hi, 0.0))
    ahi = np.where(lo >= 0, hi, np.where(hi <= 0, -lo, np.maximum(-lo, hi)))
    r.set(i, alo, ahi, None)
    return True


def _max(r, i, args):
    lo, hi = r.lo[args[0]], r.hi[args[0]]
    for a in args[1:]:
        lo, hi = np.maximum(lo, r.lo[a]), np.maximum(hi, r.hi[a])
    r.set(i, lo, hi, None)
    return True


def _min(r, i, args):
    lo, hi = r.lo[args[0]], r.hi[args[0]]
    for a in args[1:]:
        lo, hi = np.minimum(lo, r.lo[a]), np.minimum(hi, r.hi[a])
    r.set(i, lo, hi, None)
    return True


# ---- monotone functions through Arb at the ends ---------------------------------


def _arb_at(name: str | Callable, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DT arrays below and above ``name`` (an arb method, or a function of
    an arb) at each value: its ball at PREC + 27 bits, the ball's ends
    rounded outward to PREC bits, exactly then in DT (subnormals and past
    the range: moved out once more); NaN where the ball is not finite."""
    u, inv = np.unique(values, return_inverse=True)
    fn = methodcaller(name) if isinstance(name, str) else name
    ok = np.isfinite(u).tolist()  # (an infinite end: the mpmath tier's)
    lo, hi = _ball_ends(lambda: [fn(arb((int(m), int(e)))) if f else None
                                 for (m, e), f in zip(_man_exps(u), ok)])
    return lo[inv], hi[inv]


def _ball_ends(make: Callable[[], list]) -> tuple[np.ndarray, np.ndarray]:
    """DT arrays below and above each ball ``make()`` computes at PREC + 27
    bits (under flint's lock): its ends rounded outward to PREC bits, exact
    in DT (subnormals: moved out once more); NaN for None or a ball that is
    not finite (past Arb's reach: the mpmath tier's)."""
    ends = []
    with _lock:
        old = _ctx.prec
        try:
            _ctx.prec = PREC + 27
            balls = make()
            _ctx.prec = PREC  # (lower() and upper() round to the context's precision)
            for b in balls:
                ok = b is not None and b.is_finite()
                ends.append((b.lower().man_exp(), b.upper().man_exp()) if ok else None)
        finally:
            _ctx.prec = old
    ok = np.array([e is not None for e in ends], dtype=bool)
    low, up = zip(*(v or ((0, 0), (0, 0)) for v in ends)) if ends else ((), ())
    lo = _ends([int(m) for m, _ in low], [int(e) for _, e in low])
    hi = _ends([int(m) for m, _ in up], [int(e) for _, e in up])
    small = np.abs(lo) < _NORMAL
    lo[small] = _dn(lo[small])
    small = np.abs(hi) < _NORMAL
    hi[small] = _up(hi[small])
    lo[~ok] = hi[~ok] = np.nan
    return lo, hi


def _arb_pairs(name: str, values: np.ndarray) -> tuple:
    """Like :func:`_arb_at`, each end as an exact pair ``(s, e)``: the ball's
    end rounded outward at PREC + 27 bits, split into its leading PREC bits
    and the rest (both exact in DT), for :meth:`_Run.set`'s one rounding.
    Ends that are not finite (or subnormal in DT): _arb_at's, and e = 0."""
    u, inv = np.unique(values, return_inverse=True)
    fn = methodcaller(name)
    ok = np.isfinite(u)
    parts: list[list[int]] = [[], [], [], [], [], [], [], []]
    with _lock:
        old = _ctx.prec
        try:
            _ctx.prec = PREC + 27
            for k0, ((m, e), f) in enumerate(zip(_man_exps(u), ok.tolist())):
                b = fn(arb((int(m), int(e)))) if f else None
                if b is None or not b.is_finite():  # (past Arb's reach: the mpmath tier's)
                    ok[k0] = False
                    for q in parts:
                        q.append(0)
                    continue
                for k, end in ((0, b.lower()), (4, b.upper())):
                    man, ex = end.man_exp()
                    man, ex = int(man), int(ex)
                    cut = max(abs(man).bit_length() - PREC, 0)
                    top = man >> cut  # (floor: the rest is >= 0)
                    parts[k].append(top)
                    parts[k + 1].append(ex + cut)
                    parts[k + 2].append(man - (top << cut))
                    parts[k + 3].append(ex)
        finally:
            _ctx.prec = old
    out = []
    for k in (0, 4):
        s_ = _ends(parts[k], parts[k + 1])
        e_ = _ends(parts[k + 2], parts[k + 3])
        tiny = np.abs(s_) < _NORMAL  # (a subnormal DT: outward once, no rest)
        s_[tiny] = (_dn if k == 0 else _up)(_sum_dn(s_[tiny], e_[tiny]) if k == 0
                                            else _sum_up(s_[tiny], e_[tiny]))
        e_[tiny] = 0
        s_[~ok] = e_[~ok] = np.nan
        out += [s_[inv], e_[inv]]
    return tuple(out)


def _man_exps(u: np.ndarray) -> list[tuple[int, int]]:
    """Each finite DT exactly as (mantissa, exponent) (0 for the others)."""
    m, e = np.frexp(np.where(np.isfinite(u), u, 0))
    man = np.ldexp(m, PREC)  # (int() of each DT scalar: tolist() would round to float64)
    return [(int(a), int(b) - PREC) for a, b in zip(man, e.tolist())]


def _monotone(name: str, increasing: bool = True, lo_edge: float | None = None,
              open_lo: bool = False, closed_positive: bool = False) -> Callable:
    """A monotone function (an arb method ``name``) defined above
    ``lo_edge`` (``open_lo``: not at it; :func:`.intervals._on`'s
    decisions; ``closed_positive``: log's, undefined at <= 0 and unknown
    from an end at <= 0)."""

    def op(r, i, args):
        if arb is None:
            return False
        (a,) = args
        lo, hi = r.lo[a], r.hi[a]
        st = r.state[i]
        val = st == VALUE
        if closed_positive:
            st[val & (hi <= 0)] = UNDEFINED
            st[val & (hi > 0) & (lo <= 0)] = UNKNOWN_S
        elif lo_edge is not None:
            under = (hi < lo_edge) | ((hi == lo_edge) & open_lo)
            st[val & under] = UNDEFINED
            st[val & ~under & ((lo < lo_edge) | ((lo == lo_edge) & open_lo))] = UNKNOWN_S
        val = st == VALUE
        both = np.concatenate([lo[val], hi[val]])
        ls, le, hs, he = _arb_pairs(name, both)
        m = int(val.sum())
        a, b = (slice(None, m), slice(m, None)) if increasing else (slice(m, None), slice(None, m))
        out = [np.zeros(r.n, dtype=DT) for _ in range(4)]
        out[0][val], out[1][val], out[2][val], out[3][val] = ls[a], le[a], hs[b], he[b]
        r.set(i, out[0], out[2], val, elo=np.nan_to_num(out[1]), ehi=np.nan_to_num(out[3]))
        return True

    return op


def _cosh(r, i, args):
    """cosh: decreasing then increasing (intervals._cosh_sinh)."""
    if arb is None:
        return False
    (a,) = args
    lo, hi = r.lo[a], r.hi[a]
    val = r.state[i] == VALUE
    m = int(val.sum())
    flo, fhi = _arb_at("cosh", np.concatenate([lo[val], hi[val]]))
    alo, ahi, blo, bhi = flo[:m], fhi[:m], flo[m:], fhi[m:]
    a_, b_ = lo[val], hi[val]
    clo = np.where(a_ >= 0, alo, np.where(b_ <= 0, blo, 1.0))
    chi = np.where(a_ >= 0, bhi, np.where(b_ <= 0, ahi, np.maximum(ahi, bhi)))
    out_lo, out_hi = np.zeros(r.n, dtype=DT), np.zeros(r.n, dtype=DT)
    out_lo[val], out_hi[val] = clo, chi
    r.set(i, out_lo, out_hi, val)
    return True


def _sign_of(lo, hi):
    """+1 / -1 / 0 where [lo, hi] is positive / negative / [0, 0]; NaN
    where it holds 0 and more (intervals._sign)."""
    return np.where(lo > 0, 1.0, np.where(hi < 0, -1.0,
                                          np.where((lo == 0) & (hi == 0), 0.0, np.nan)))


def _sign(r, i, args):
    sg = _sign_of(r.lo[args[0]], r.hi[args[0]])
    r.state[i][(r.state[i] == VALUE) & np.isnan(sg)] = UNKNOWN_S
    r.set(i, sg, sg, None)
    return True


def _heaviside(r, i, args):
    """1 right of 0, 0 left of it, ``H(0)`` (the second argument, else 1/2)
    at [0, 0]; unknown across 0 (intervals._heaviside)."""
    sg = _sign_of(r.lo[args[0]], r.hi[args[0]])
    r.state[i][(r.state[i] == VALUE) & np.isnan(sg)] = UNKNOWN_S
    h0lo, h0hi = (r.lo[args[1]], r.hi[args[1]]) if len(args) > 1 else (0.5, 0.5)
    lo = np.where(sg == 1, 1.0, np.where(sg == -1, 0.0, h0lo))
    hi = np.where(sg == 1, 1.0, np.where(sg == -1, 0.0, h0hi))
    r.set(i, lo, hi, None)
    return True


_HALF_PI = float(np.pi / 2)
_TRIG_SURE = 2.0 ** 30  # below it, (x - pi/2)/pi in floats is within 1e-7 of its value


def _trig(name: str) -> Callable:
    """sin, cos or tan: over a box 8 wide or more, [-1, 1] (tan: every
    value), as the mpmath tier (intervals._periodic); else from the ends
    in Arb, with sin's or cos's extremum (tan's pole) where the box holds
    one: the points x0 + k*pi (x0 = pi/2 for sin and tan, 0 for cos) it
    holds are found in floats where each end is farther than 1e-6 from one
    of them (in units of pi), and box by box in mpmath elsewhere."""
    x0 = 0.0 if name == "cos" else _HALF_PI

    def op(r, i, args):
        if arb is None:
            return False
        (a,) = args
        lo, hi = r.lo[a], r.hi[a]
        val = (r.state[i] == VALUE) & ~r.bad
        wide = val & (_sum_dn(hi, -lo) >= 8)
        ta, tb = (lo - x0) / np.pi, (hi - x0) / np.pi
        sure = (np.abs(lo) < _TRIG_SURE) & (np.abs(hi) < _TRIG_SURE) & \
            (np.abs(ta - np.round(ta)) > 1e-6) & (np.abs(tb - np.round(tb)) > 1e-6)
        ka, kb = np.ceil(ta), np.floor(tb)  # the points x0 + k*pi in the box
        unsure = val & ~wide & ~sure
        if unsure.any():  # far out or near such a point: k in Arb, at as many bits as x has
            _points_in(name == "cos", lo, hi, unsure, ka, kb)
            sure |= unsure & ~np.isnan(ka)
        narrow = val & ~wide & sure
        inside = narrow & (ka <= kb)
        m = int(narrow.sum())
        flo, fhi = _arb_at(name, np.concatenate([lo[narrow], hi[narrow]]))
        out_lo, out_hi = np.full(r.n, -1.0, dtype=DT), np.full(r.n, 1.0, dtype=DT)
        if name == "tan":  # increasing between poles
            out_lo[narrow], out_hi[narrow] = flo[:m], fhi[m:]
            out_lo[inside | wide], out_hi[inside | wide] = -_INF, _INF
        else:
            out_lo[narrow] = np.minimum(flo[:m], flo[m:])
            out_hi[narrow] = np.maximum(fhi[:m], fhi[m:])
            # sin's maxima at k even, cos's too (x0 + 2j*pi); minima at k odd
            two = kb - ka >= 1
            out_hi[inside & (two | (ka % 2 == 0))] = 1.0
            out_lo[inside & (two | (ka % 2 != 0))] = -1.0
            out_lo, out_hi = np.maximum(out_lo, -1.0), np.minimum(out_hi, 1.0)
        r.set(i, out_lo, out_hi, narrow | wide)
        _by_box(r, i, r.prog.steps[i], val & ~wide & ~sure)
        return True

    return op


def _points_in(cos: bool, lo, hi, rows, ka, kb) -> None:
    """``ka = ceil((lo - x0)/pi)`` and ``kb = floor((hi - x0)/pi)`` on
    ``rows``, in Arb at 80 bits more than the ends' magnitude (NaN where
    the ball still holds an integer: that box is mpmath's)."""
    js = np.flatnonzero(rows)
    me = _man_exps(np.concatenate([lo[js], hi[js]]))
    n = len(js)
    with _lock:
        old = _ctx.prec
        try:
            for k, j in enumerate(js.tolist()):
                (ma, ea), (mb, eb) = me[k], me[n + k]
                mag = max(int(ma).bit_length() + ea, int(mb).bit_length() + eb, 0)
                _ctx.prec = mag + 80
                pi = arb.pi()
                x0 = 0 if cos else pi / 2
                ca = ((arb((ma, ea)) - x0) / pi).ceil()
                fb = ((arb((mb, eb)) - x0) / pi).floor()
                if ca.is_exact() and fb.is_exact():
                    ka[j], kb[j] = int(ca.unique_fmpz()), int(fb.unique_fmpz())
                else:
                    ka[j] = np.nan
        finally:
            _ctx.prec = old


def _root_kernel(p: int, q: int) -> Callable:
    """``b**(p/q)`` (intervals.rational_pow): the q-th root at the ends in
    Arb, then the integer power (a decreasing function for p < 0)."""

    def fn(b):
        v = b.root(q) ** abs(p)
        return 1 / v if p < 0 else v

    def op(r, i, args):
        if arb is None:
            return False
        lo, hi = r.lo[args[0]], r.hi[args[0]]
        st = r.state[i]
        val = st == VALUE
        st[val & (hi < 0)] = UNDEFINED
        st[val & (hi >= 0) & (lo < 0)] = UNKNOWN_S
        if p < 0:
            st[val & (lo == 0) & (hi == 0)] = UNDEFINED
            st[val & (lo == 0) & (hi > 0)] = UNKNOWN_S
        val = st == VALUE
        zero = val & (hi == 0)  # [0, 0]**(p/q), p > 0
        val &= ~zero
        m = int(val.sum())
        flo, fhi = _arb_at(fn, np.concatenate([lo[val], hi[val]]))
        out_lo, out_hi = np.zeros(r.n, dtype=DT), np.zeros(r.n, dtype=DT)
        if p > 0:
            out_lo[val], out_hi[val] = np.maximum(flo[:m], 0.0), fhi[m:]
        else:
            out_lo[val], out_hi[val] = flo[m:], fhi[:m]
        r.set(i, out_lo, out_hi, val | zero)
        return True

    return op


# ---- conditions -------------------------------------------------------------------


def _relation(test: Callable) -> Callable:
    """A comparison of intervals, three-valued (truth.LOGIC)."""

    def op(r, i, args):
        a, b = args
        true, false = test(r.lo[a], r.hi[a], r.lo[b], r.hi[b])
        st = r.state[i]
        val = st == VALUE
        st[val & ~true & ~false] = UNKNOWN_S
        st[val & (true | false)] = BOOL
        r.lo[i] = r.hi[i] = np.where(true, 1.0, 0.0)
        return True

    return op


def _lt(alo, ahi, blo, bhi):
    return ahi < blo, bhi <= alo


def _le(alo, ahi, blo, bhi):
    return ahi <= blo, bhi < alo


def _eq(alo, ahi, blo, bhi):
    return (alo == ahi) & (blo == bhi) & (alo == blo), (ahi < blo) | (bhi < alo)


def _logic(kind: str) -> Callable:
    def op(r, i, args):
        st = r.state[i]
        val = st == VALUE
        v = r.lo[list(args)] == 1.0
        out = v.all(axis=0) if kind == "And" else v.any(axis=0) if kind == "Or" else \
            np.where(v[0], v[1], v[2]) if kind == "ITE" else ~v[0]
        st[val] = BOOL
        r.lo[i] = r.hi[i] = np.where(out, 1.0, 0.0)
        return True

    return op


def _piecewise(r: _Run, i: int, pairs: tuple) -> None:
    """The first branch whose condition holds; UNDEF/UNKNOWN at the first
    condition that is so; UNDEF where none holds (truth._piecewise), the
    value widened as an operation's."""
    st = np.full(r.n, UNDEFINED, dtype=np.int8)
    lo, hi = np.zeros(r.n, dtype=DT), np.zeros(r.n, dtype=DT)
    pending = np.ones(r.n, dtype=bool)
    for k in pairs:
        v, c = r.prog.steps[k][2]
        cs = r.state[c]
        for s in (UNDEFINED, UNKNOWN_S):
            m = pending & (cs == s)
            st[m] = s
            pending &= ~m
        m = pending & (cs == BOOL) & (r.lo[c] == 1.0)
        st[m] = r.state[v][m]
        lo[m], hi[m] = r.lo[v][m], r.hi[v][m]
        pending &= ~m
    r.state[i] = st
    wlo, whi = r.widen(lo, hi)
    val = st == VALUE
    r.lo[i] = np.where(val, wlo, lo)
    r.hi[i] = np.where(val, whi, hi)
    r.check(i)


# ---- anything else: the mpmath tier's kernel, box by box ---------------------------


def _by_box(r: _Run, i: int, step: tuple, rows: np.ndarray | None = None) -> None:
    """Node ``i`` on the boxes ``rows`` (default: all where its state is
    VALUE) by the mpmath tier's kernel, rounded outward to floats."""
    fn, args = step[1], step[2]
    st = r.state[i]
    lo, hi = r.lo[i], r.hi[i]
    mine = (st == VALUE) if rows is None else rows & (st == VALUE)
    r.taint[i] |= mine & r.bad  # (not computed: the box is the mpmath tier's)
    todo = mine & ~r.bad
    for j in np.flatnonzero(todo).tolist():
        vals = []
        for a in args:
            s = r.state[a, j]
            if s == BOOL:
                vals.append(bool(r.lo[a, j]))
            else:
                vals.append((to_mpf(r.lo[a, j]), to_mpf(r.hi[a, j])))
        v = fn(r.prec, *vals)
        if v is UNDEF:
            st[j] = UNDEFINED
        elif v is UNKNOWN:
            st[j] = UNKNOWN_S
        elif v is True or v is False:
            st[j] = BOOL
            lo[j] = hi[j] = 1.0 if v else 0.0
        else:
            v = r.post(v)
            lo[j], hi[j] = end_lo(v[0]), end_hi(v[1])
    r.check(i)


def rerun(prog, got: BoxBounds, j: int, prec: int, post: Callable) -> list:
    """Every node's value on box ``j`` in the mpmath tier's terms (as
    :meth:`.truth.Program.run` returns them): the nodes the float tier
    bounded there as it did, the others -- from where a bound left the range
    on -- by the mpmath kernels, as ``Program.run`` computes them."""
    vals: list = []
    for i, step in enumerate(prog.steps):
        st = got.state[i, j]
        if not got.taint[i, j] and st != PAIR:
            if st == VALUE:
                vals.append((to_mpf(got.lo[i, j]), to_mpf(got.hi[i, j])))
            elif st == BOOL:
                vals.append(bool(got.lo[i, j]))
            else:
                vals.append(UNDEF if st == UNDEFINED else UNKNOWN)
            continue
        kind = step[0]
        if kind == "const":
            vals.append(prog._consts(prec)[step[1]])
            continue
        if kind != "op":  # (a symbol or a truth value is never tainted)
            raise AssertionError(step)
        args = [vals[k] for k in step[2]]
        if not step[3]:
            if UNDEF in args:
                vals.append(UNDEF)
                continue
            if UNKNOWN in args:
                vals.append(UNKNOWN)
                continue
        v = step[1](prec, *args)
        if type(v) is tuple and type(v[0]) is tuple and len(v[0]) == 4:
            v = post(v)
        vals.append(v)
    return vals


_KERNELS: dict[str, Callable] = {
    "Add": _add,
    "Mul": _mul,
    "Abs": _abs,
    "Max": _max,
    "Min": _min,
    "exp": _monotone("exp"),
    "log": _monotone("log", closed_positive=True),
    "log1p": _monotone("log1p", lo_edge=-1.0, open_lo=True),
    "expm1": _monotone("expm1"),
    "atan": _monotone("atan"),
    "asinh": _monotone("asinh"),
    "tanh": _monotone("tanh"),
    "erf": _monotone("erf"),
    "erfc": _monotone("erfc", increasing=False),
    "sinh": _monotone("sinh"),
    "cosh": _cosh,
    "sin": _trig("sin"),
    "cos": _trig("cos"),
    "tan": _trig("tan"),
    "sign": _sign,
    "Heaviside": _heaviside,
    "StrictLessThan": _relation(_lt),
    "LessThan": _relation(_le),
    "StrictGreaterThan": _relation(lambda alo, ahi, blo, bhi: _lt(blo, bhi, alo, ahi)),
    "GreaterThan": _relation(lambda alo, ahi, blo, bhi: _le(blo, bhi, alo, ahi)),
    "Equality": _relation(_eq),
    "Unequality": _relation(lambda alo, ahi, blo, bhi: _eq(alo, ahi, blo, bhi)[::-1]),
    "And": _logic("And"),
    "Or": _logic("Or"),
    "Not": _logic("Not"),
    "ITE": _logic("ITE"),
}
