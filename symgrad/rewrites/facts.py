"""What a rewrite may assume about its arguments: real, positive, nonzero.

Symbols are real variables (symgrad's convention) unless declared
imaginary or complex; a domain narrows each to an interval.
:class:`Facts` propagates outward-rounded interval bounds through the DAG
(children before parents, no recursion, each node once)
and answers the validity predicates of the rewrites from them.  A node
whose value may leave the reals (``log`` of a possibly negative number,
``I``, an unknown function) has no bound and is not known to be real, so a
real-only rewrite is not applied to it.  A polynomial in one variable that
the bounds cannot place is decided by counting its real roots.

>>> from sympy import symbols, sqrt, log, I
>>> x = symbols("x")
>>> f = Facts({x: (0, float("inf"))})
>>> f.positive(x + 1), f.nonnegative(sqrt(x)), f.real(log(x - 2)), f.real(I * x)
(True, True, False, False)
>>> Facts().positive(x**2 + x + 1)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction

from sympy import (
    Abs,
    Add,
    Basic,
    Dummy,
    Max,
    Min,
    Mod,
    Mul,
    Piecewise,
    Poly,
    PolynomialError,
    Pow,
    Rational,
    S,
    Symbol,
    acos,
    acosh,
    asin,
    atan,
    atanh,
    ceiling,
    cos,
    cosh,
    erf,
    exp,
    expand,
    floor,
    gamma,
    log,
    loggamma,
    polygamma,
    sin,
    sinh,
    tanh,
)
from sympy.codegen.cfunctions import expm1, hypot, log1p
from sympy.polys.polyerrors import BasePolynomialError

from ..graph import count_ops, postorder
from .forms import (
    Sigmoid,
    Softplus,
    betaln,
    digamma_remainder,
    erfcx,
    lgamma_remainder,
    log1pmx,
    polygamma_remainder,
)
from .pi_nodes import cospi, sinpi, tanpi

__all__ = ["Facts", "Bound"]

Bound = tuple[float, float]  # a closed interval of reals, ends may be infinite
INF = math.inf


def _down(v: float) -> float:
    return math.nextafter(v, -INF) if math.isfinite(v) else v


def _up(v: float) -> float:
    return math.nextafter(v, INF) if math.isfinite(v) else v


def _widen(lo: float, hi: float) -> Bound:
    return _down(lo), _up(hi)


def _exact(v: float, true: Fraction | None) -> bool:
    return true is not None and math.isfinite(v) and Fraction(v) == true


def _mul(a: Bound, b: Bound) -> Bound:
    ps = []
    for x in a:
        for y in b:
            if x == 0 or y == 0:
                ps.append((0.0, True))
            else:
                p = x * y
                ok = math.isfinite(x) and math.isfinite(y) and _exact(p, Fraction(x) * Fraction(y))
                ps.append((p, ok))
    lo, lo_ok = min(ps)
    hi, hi_ok = max(ps)
    return (lo if lo_ok else _down(lo), hi if hi_ok else _up(hi))


def _add(bs: list[Bound]) -> Bound:
    out = []
    for k in (0, 1):
        vs = [b[k] for b in bs]
        finite = all(math.isfinite(t) for t in vs)
        try:
            v = math.fsum(vs) if finite else sum(vs)
        except OverflowError:  # finite ends whose sum passes the largest float
            v, finite = (INF if sum(map(Fraction, vs)) > 0 else -INF), False
        if math.isnan(v):  # inf - inf: unbounded
            out.append(-INF if k == 0 else INF)
            continue
        exact = finite and _exact(v, sum(map(Fraction, vs)))
        out.append(v if exact else (_down(v) if k == 0 else _up(v)))
    return out[0], out[1]


def _monotone(f: Callable[[float], float], b: Bound) -> Bound:
    return _widen(f(b[0]), f(b[1]))


def _safe(f: Callable[[float], float], lo_limit: float, hi_limit: float):
    def g(v: float) -> float:
        if v == -INF:
            return lo_limit
        if v == INF:
            return hi_limit
        try:
            return f(v)
        except OverflowError:
            return hi_limit
    return g


_exp = _safe(math.exp, 0.0, INF)
_log = _safe(lambda v: math.log(v) if v > 0 else -INF, -INF, INF)


def _pow(b: Bound, e: Basic) -> Bound | None:
    if e.is_Integer:
        n = int(e)
        if n == 0:
            return (1.0, 1.0)
        if n > 0:
            out = b
            for _ in range(n - 1):  # repeated products: sound, if loose
                out = _mul(out, b)
            if n % 2 == 0 and out[0] < 0:
                out = (0.0, out[1])
            return out
        if b[0] == b[1] == 0:
            return None
        if b[0] == 0 or b[1] == 0:
            # a pole at an end: the sign of the other end (1/(|z| - re) ≥ 0)
            inv = (_down(1 / b[1]) if b[1] != INF else 0.0, INF) if b[0] == 0 else \
                (-INF, _up(1 / b[0]) if b[0] != -INF else 0.0)
            return _pow(inv, -e)
        if b[0] < 0 < b[1]:
            return (-INF, INF)
        inv = (_down(1 / b[1]) if b[1] != INF else 0.0, _up(1 / b[0]) if b[0] != 0 else INF)
        if b[1] < 0:
            inv = (_down(1 / b[0]) if b[0] != -INF else 0.0, _up(1 / b[1]))
            inv = (min(inv), max(inv))
        return _pow(inv, -e)
    if e.is_Rational or e.is_Float:
        if b[0] < 0:
            return None  # a fractional power of a negative number is not real
        p = float(e)

        def f(v: float) -> float:
            if v == INF:
                return INF if p > 0 else 0.0
            if v == 0:
                return 0.0 if p > 0 else INF
            try:
                return v**p
            except OverflowError:
                return INF
        lo, hi = _widen(min(f(b[0]), f(b[1])), max(f(b[0]), f(b[1])))
        return max(lo, 0.0), hi  # a root of a nonnegative number is nonnegative
    return None


# node class -> bound from the children's bounds (None: not known real)
_RULES: dict[type, Callable[..., Bound | None]] = {
    exp: lambda a: (max(_monotone(_exp, a)[0], 0.0), _monotone(_exp, a)[1]),
    log: lambda a: _monotone(_log, a) if a[0] > 0 else None,
    log1p: lambda a: _monotone(_safe(math.log1p, -INF, INF), a) if a[0] > -1 else None,
    expm1: lambda a: _monotone(_safe(math.expm1, -1.0, INF), a),
    sin: lambda a: (-1.0, 1.0),
    hypot: lambda a, b: (0.0, INF),  # (at least |a| and |b|: see _norm_minus_part)
    # the accurate forms' nodes (a rewrite sees them before they are expanded:
    # 1 - tanh(softplus(x))**2 in mish's gradient)
    Sigmoid: lambda a: (0.0, 1.0),
    Softplus: lambda a: (max(a[0], 0.0), _up(max(a[1], 0.0) + math.log(2)) if a[1] < INF else INF),
    cos: lambda a: (-1.0, 1.0),
    sinpi: lambda a, q: (-1.0, 1.0),  # sin(π·a/q)
    cospi: lambda a, q: (-1.0, 1.0),
    tanpi: lambda a, q: (-INF, INF),  # (real, infinite at a pole)
    tanh: lambda a: _monotone(_safe(math.tanh, -1.0, 1.0), a),
    erf: lambda a: _monotone(_safe(math.erf, -1.0, 1.0), a),
    atan: lambda a: _monotone(_safe(math.atan, -math.pi / 2, math.pi / 2), a),
    sinh: lambda a: _monotone(_safe(math.sinh, -INF, INF), a),
    cosh: lambda a: (1.0, INF),
    Abs: lambda a: (0.0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1])),
                    max(abs(a[0]), abs(a[1]))),
    Max: lambda *bs: (max(b[0] for b in bs), max(b[1] for b in bs)),
    Min: lambda *bs: (min(b[0] for b in bs), min(b[1] for b in bs)),
    # real only inside their domain (complex outside it)
    asin: lambda a: (-math.pi / 2 - 1e-15, math.pi / 2 + 1e-15) if -1 <= a[0] and a[1] <= 1
    else None,
    acos: lambda a: (0.0, math.pi + 1e-15) if -1 <= a[0] and a[1] <= 1 else None,
    acosh: lambda a: (0.0, INF) if a[0] >= 1 else None,
    atanh: lambda a: (-INF, INF) if -1 <= a[0] and a[1] <= 1 else None,
    # exp(u²)·erfc(u) > 0, decreasing, ≥ erfcx(1.8e308) = 3.1e-309 over the floats
    erfcx: lambda a: (5e-324, INF),
    # real for positive arguments (complex on the negative axis); log Γ ≥ -0.1215
    loggamma: lambda a: (-0.13, INF) if a[0] > 0 else None,
    polygamma: lambda n, a: (-INF, INF) if a[0] > 0 and n[0] >= 0 else None,
    betaln: lambda a, b: (-INF, INF) if a[0] > 0 and b[0] > 0 else None,
    lgamma_remainder: lambda a: (0.0, INF) if a[0] > 0 else None,
    digamma_remainder: lambda a: (-INF, 0.0) if a[0] > 0 else None,
    polygamma_remainder: lambda n, a: ((0.0, INF) if n[0] % 2 else (-INF, 0.0))
    if a[0] > 0 and n[0] == n[1] >= 1 else None,
    log1pmx: lambda a: (-INF, 0.0) if a[0] > -1 else None,
    # monotone, exact on floats (the exact split of a square: floor(64*min(64, |x|)),
    # whose bound tells where exp(-floor(...)**2/8192) may be subnormal)
    floor: lambda a: (math.floor(a[0]) if math.isfinite(a[0]) else a[0],
                      math.floor(a[1]) if math.isfinite(a[1]) else a[1]),
    ceiling: lambda a: (math.ceil(a[0]) if math.isfinite(a[0]) else a[0],
                        math.ceil(a[1]) if math.isfinite(a[1]) else a[1]),
    # real for every real argument (infinite or undefined at a pole: not complex)
    gamma: lambda a: (-INF, INF),
    Mod: lambda a, b: (-INF, INF),
}

_REAL_CLASS: dict[tuple[type, int], bool] = {}


def _real_for_real_arguments(node: Basic) -> bool:
    """Whether SymPy knows ``node``'s function real at every real argument
    (``tan``, ``floor``, ``sign``, ``sigmoid``, ...): asked once per class."""
    key = (type(node), len(node.args))
    got = _REAL_CLASS.get(key)
    if got is None:
        try:
            got = node.func(*(Dummy(real=True) for _ in node.args)).is_extended_real is True
        except (TypeError, ValueError):  # refuses symbolic arguments: not known real
            got = False
        _REAL_CLASS[key] = got
    return got


def _norm_minus_part(node: Add) -> int:
    """+1 where ``node`` is ``hypot(p, q) ± p`` (or ``± q``), so at least 0
    (the norm is at least ``|p|``); -1 where it is ``-hypot(p, q) ± p``; else
    0 (intervals alone cannot see it: ``|z| - Re z`` in the complex square
    root's conjugate)."""
    if len(node.args) != 2:
        return 0
    for h, t in (node.args, node.args[::-1]):
        sign = 1
        if h.is_Mul and len(h.args) == 2 and h.args[0] == -1:
            sign, h = -1, h.args[1]
        if isinstance(h, hypot) and (t in h.args or -t in h.args):
            return sign
    return 0


# a difference of squares worked out symbolically only where its parts are this
# small (count_ops): √P + T bounded through its conjugate here, hypot-conjugate
# (.library), acos/asin of a ratio's D² - N² (.inverse)
CONJUGATE_OPS = 40


class Facts:
    """Bounds of subexpressions over ``domain`` (symbol -> (lo, hi)); a
    symbol left out ranges over all reals."""

    def __init__(self, domain: Mapping[Basic, tuple] | None = None, interior: bool = False) -> None:
        # interior: the open box (ends excluded), for candidates whose ends
        # measurement checks anyway
        def end(v: object, toward: float) -> float:
            f = float(v)
            return math.nextafter(f, toward) if interior and math.isfinite(f) else f

        self._sym: dict[Basic, Bound] = {
            s: (end(lo, INF), end(hi, -INF)) for s, (lo, hi) in (domain or {}).items()
        }
        self._memo: dict[Basic, Bound | None] = {}
        self._conjugating: set = set()  # the sums whose conjugate is being bounded

    # -- the predicates rewrites use ---------------------------------------
    def real(self, e: Basic) -> bool:
        return self.bound(e) is not None

    def positive(self, e: Basic) -> bool:
        b = self.bound(e)
        if b is not None and b[0] > 0:
            return True
        return b is not None and self._polynomial_sign(e, b) == 1

    def positive_value(self, e: Basic) -> bool:
        """Whether the real value of ``e`` is positive, whatever its float (which
        may underflow to 0): ``positive``, or a product of ``exp`` of real
        numbers and positive factors (``exp(u)·erfcx(u)/2``).

        >>> from sympy import exp, Symbol
        >>> x = Symbol("x")
        >>> Facts().positive(exp(x) / 2), Facts().positive_value(exp(x) / 2)
        (False, True)
        """
        if self.positive(e):
            return True
        for f in Mul.make_args(e):
            if isinstance(f, exp):
                if self.bound(f.args[0]) is None:
                    return False
            elif not self.positive(f):
                return False
        return True

    def nonnegative(self, e: Basic) -> bool:
        b = self.bound(e)
        return b is not None and (b[0] >= 0 or self.positive(e))

    def negative(self, e: Basic) -> bool:
        return self.positive(-e)

    def nonzero(self, e: Basic) -> bool:
        b = self.bound(e)
        return b is not None and (b[0] > 0 or b[1] < 0 or self.positive(e) or self.negative(e))

    # -- bounds ----------------------------------------------------------------
    def bound(self, e: Basic) -> Bound | None:
        """An interval holding every value of ``e`` over the domain, or
        None where ``e`` may not be real."""
        if e in self._memo:
            return self._memo[e]
        order, kids = postorder([e], lambda n: () if n in self._memo else n.args)
        for node in order:
            if node not in self._memo:
                self._memo[node] = self._node_bound(node, kids[node])
        return self._memo[e]

    def _node_bound(self, node: Basic, args: tuple) -> Bound | None:
        if isinstance(node, Symbol):
            if node.is_extended_real is False or (node.is_complex and not node.is_extended_real):
                return None  # declared imaginary or complex: not real by convention
            return self._sym.get(node, (-INF, INF))
        if node.is_Number:
            if not node.is_real or not node.is_finite:
                return None
            v = float(node)
            return (v, v) if node.is_Integer or _exact(v, Fraction(str(node)) if node.is_Rational
                                                       else None) else _widen(v, v)
        if node.is_NumberSymbol:
            return _widen(float(node), float(node))
        if isinstance(node, Piecewise):
            bs = [self._memo.get(p.expr) for p in node.args]
            if any(b is None for b in bs):
                return None
            return min(b[0] for b in bs), max(b[1] for b in bs)
        bs = [self._memo.get(a) for a in args]
        if any(b is None for b in bs):
            return None
        if isinstance(node, Add):
            b = _add(bs)
            part = self._fraction_part(node)
            if part is not None:  # v - floor(s*v)/s: interval arithmetic alone sees v - v
                b = (max(b[0], part[0]), min(b[1], part[1]))
            sign = _norm_minus_part(node)
            b = (max(b[0], 0.0), b[1]) if sign > 0 else (b[0], min(b[1], 0.0)) if sign else b
            if b[0] < 0 < b[1]:
                c = self._conjugate_bound(node)
                if c is not None:
                    b = (max(b[0], c[0]), min(b[1], c[1]))
            return b
        if isinstance(node, Mul):
            out = bs[0]
            for b in bs[1:]:
                out = _mul(out, b)
            return out
        if isinstance(node, Pow):
            return _pow(bs[0], node.args[1])
        rule = _RULES.get(type(node))
        if rule is not None:
            return rule(*bs)
        return (-INF, INF) if _real_for_real_arguments(node) else None

    def _conjugate_bound(self, node: Add) -> Bound | None:
        """A bound of ``√P + T`` (one square root among the terms of
        ``node``, up to a number's factor) through its conjugate ``(P - T²)/(√P - T)``, where
        ``P - T²`` cancels symbolically (expanded, fewer operations than
        ``P`` and ``T²``): the sum's terms nearly cancel, which intervals
        cannot see.  Where ``P - T² > 0``, ``√P > |T|``: the sum and
        ``√P - T`` are positive; where ``P - T² < 0`` and ``T ≤ 0``, the
        sum is negative and ``√P - T`` positive.  Cardano's
        ``√(y²/4 + x³/27) ± y/2`` is ``(x³/27)/(√(y²/4 + x³/27) ∓ y/2) > 0``
        for every real y.  None where ``node`` is not so (or is being
        bounded so already).

        >>> from sympy import symbols, sqrt
        >>> x, y = symbols("x y")
        >>> f = Facts({x: (1e-3, 1e3), y: (-1e3, 1e3)})
        >>> f.positive(sqrt(y**2/4 + x**3/27) - y/2), f.positive(sqrt(y**2 + 1) - y - 2)
        (True, False)
        """
        roots = []
        for term in node.args:
            c, r = term.as_coeff_Mul()
            if isinstance(r, Pow) and r.exp == S.Half and c != 0:
                roots.append((term, c, r))
        if len(roots) != 1 or node in self._conjugating:
            return None
        term, c, root = roots[0]
        # node = sgn·(|c|·√P + T'), T' = sgn·(the other terms)
        sgn = 1 if c > 0 else -1
        t = sgn * Add(*[a for a in node.args if a is not term])
        q, t2 = c**2 * root.base, t**2
        size = count_ops([q, t2])
        if size > CONJUGATE_OPS:
            return None
        d = expand(q - t2)
        if count_ops([d]) >= size:
            return None
        self._conjugating.add(node)
        try:
            db, rb, tb = self.bound(d), self.bound(root), self.bound(t)
        finally:
            self._conjugating.discard(node)
        if db is None or rb is None or tb is None:
            return None
        k = float(abs(c))
        kb = (k, k) if _exact(k, Fraction(str(abs(c))) if c.is_Rational else None) \
            else _widen(k, k)
        den = _add([_mul(kb, rb), (-tb[1], -tb[0])])  # |c|·√P - T'
        if db[0] > 0:  # |c|·√P > |T'|: |c|·√P - T' > 0
            lo = _down(db[0] / den[1]) if den[1] < INF else 0.0
            hi = _up(db[1] / den[0]) if den[0] > 0 and db[1] < INF else INF
            lo, hi = max(lo, 0.0), hi
        elif db[1] < 0 and tb[1] <= 0:  # |c|·√P < |T'| = -T': |c|·√P - T' ≥ -T' > 0
            lo = _down(db[0] / den[0]) if den[0] > 0 and db[0] > -INF else -INF
            hi = _up(db[1] / den[1]) if den[1] < INF else 0.0
            lo, hi = lo, min(hi, 0.0)
        else:
            return None
        return (lo, hi) if sgn > 0 else (-hi, -lo)

    def _fraction_part(self, node: Add) -> Bound | None:
        """(0, 1/s) for ``v - floor(s*v)/s`` (s > 0; ``floor(s*Min(top, v))``
        where v <= top over the domain): the exact square split's low part
        (rewrites.library._split), which the interval sum bounds as wide as
        v itself (a product with it then looked subnormal where it is not).
        None for any other sum."""
        if len(node.args) != 2:
            return None
        for v, term in (node.args, node.args[::-1]):
            if not isinstance(term, Mul):
                continue
            nums = [a for a in term.args if a.is_Number]
            rest = [a for a in term.args if not a.is_Number]
            if len(rest) != 1 or not isinstance(rest[0], floor):
                continue
            inner = Mul.make_args(rest[0].args[0])
            scale = [a for a in inner if a.is_Number]
            m = [a for a in inner if not a.is_Number]
            if len(scale) != 1 or len(m) != 1 or not scale[0].is_positive:
                continue
            c = Mul(*nums) if nums else Rational(1)
            if c != -1 / scale[0]:
                continue
            m = m[0]
            if isinstance(m, Min) and len(m.args) == 2 and v in m.args:
                top = m.args[0] if m.args[1] == v else m.args[1]
                vb = self._memo.get(v)
                if not (top.is_Number and vb is not None and vb[1] <= float(top)):
                    continue
            elif m != v:
                continue
            return 0.0, _up(float(1 / scale[0]))
        return None

    def _polynomial_sign(self, e: Basic, b: Bound) -> int:
        """+1 where ``e`` is a polynomial in one symbol with no real root in
        that symbol's interval and positive inside it; else 0."""
        syms = e.free_symbols
        if len(syms) != 1:
            return 0
        (s,) = syms
        lo, hi = self._sym.get(s, (-INF, INF))
        try:
            poly = Poly(e, s)
        except PolynomialError:
            return 0
        if not poly.is_univariate or poly.degree() < 1:
            return 0
        ends = [None if not math.isfinite(v) else Rational(v) for v in (lo, hi)]
        try:
            if poly.count_roots(*ends) != 0:
                return 0
        except (BasePolynomialError, TypeError):  # (coefficients SymPy cannot count
            return 0  # over: √3·y's, a float's, in mpmath's and flint's numbers at once)
        if math.isfinite(lo) and math.isfinite(hi):
            mid = (lo + hi) / 2
        else:
            mid = lo + 1 if math.isfinite(lo) else hi - 1 if math.isfinite(hi) else 0.0
        return 1 if poly.eval(Rational(mid)) > 0 else 0
