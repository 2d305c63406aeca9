"""An exact value to audit against, computed apart from symgrad's own ground truth.

Arb balls (python-flint): every operation returns a ball that provably
holds the exact value, so a value is taken only when both ends of the ball
round to the same float of the target format; otherwise the precision is
doubled, up to a cap, and the point is counted *unresolved*.  Agreement of
two fixed precisions proves nothing (``4x/(sqrt(pi) erf(x)**2) - 2/erf(x)``
at x = 1e-61 cancels 122 digits, and mpmath at 60 and at 120 digits both
say 0 where the value is 6.96e-62).

Where the formula has no real value (a square root or a log of a number
that is certainly negative, a division by an exact 0, a fractional power
of a negative number) the value is NaN: mpmath, asked for the same, goes
into the complex plane, and a tiny imaginary part then passes for a real
value (``sqrt(tanh(y))`` for y = -1e-120, divided by a huge x).

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> f = Exact([2/sp.erf(x) - 4*x*sp.exp(-x**2)/(sp.sqrt(sp.pi)*sp.erf(x)**2)], [x])
    >>> f.at([1e-61])[0]  # the 2/erf(x) and the quotient cancel: sqrt(pi)*2x/3
    1.1816359006036774e-61
    >>> f.at([0.0])[0], Exact([sp.sqrt(x)], [x]).at([-1e-300])[0]
    (nan, nan)
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from symgrad.graph import postorder

try:
    from flint import arb, ctx
except ImportError as exc:  # pragma: no cover - the benchmark's own requirement
    raise ImportError("the audit needs python-flint (pip install python-flint)") from exc

__all__ = ["Exact", "UNRESOLVED"]

PRECISIONS = (128, 256, 512, 1024, 2048, 4096)


class Undefined(Exception):
    """The formula has no real value at the point."""


class Unresolved(Exception):
    """Not decided at this precision (an argument straddles a domain edge)."""


UNRESOLVED = None


def _sqrt(b):
    if b < 0:
        raise Undefined
    if not b >= 0:
        raise Unresolved
    return b.sqrt()


def _log(b):
    if b <= 0:
        raise Undefined
    if not b > 0:
        raise Unresolved
    return b.log()


def _recip(b):
    if b.is_zero():
        raise Undefined
    if b.contains(0):
        raise Unresolved
    return 1 / b


def _pow(b, e):
    if e.is_Integer:
        n = int(e)
        if n >= 0:
            return b**n
        return _recip(b) ** (-n)
    if e.is_Rational:
        p, q = int(e.p), int(e.q)
        r = _sqrt(b) if q == 2 else _root(b, q)
        return r**p if p >= 0 else _recip(r) ** (-p)
    raise ValueError(f"Exact: exponent {e}")


def _real_pow(b, e):
    """b**e for a real exponent: real only for b > 0 (b = 0, e > 0: 0)."""
    if b > 0:
        return (b.log() * e).exp()
    if b.is_zero() and e > 0:
        return b
    if b < 0 or (b.is_zero() and e <= 0):
        raise Undefined
    raise Unresolved


def _root(b, q):
    if b < 0:
        raise Undefined  # SymPy's principal root of a negative number is not real
    if not b >= 0:
        raise Unresolved
    return b.root(q) if not b.is_zero() else b


def _off_zero(f):
    """``f`` of a ball with a pole at 0 (coth, csch, cot, csc): undefined at
    an exact 0, not decided where the ball holds 0 and more."""
    def run(b):
        if b.is_zero():
            raise Undefined
        if not (b > 0 or b < 0):
            raise Unresolved
        return f(b)
    return run


def _acosh(b):
    if b < 1:
        raise Undefined
    if not b >= 1:
        raise Unresolved
    return b.acosh()


def _atanh(b):
    if b >= 1 or b <= -1:
        raise Undefined
    if not (b > -1 and b < 1):
        raise Unresolved
    return b.atanh()


def _acos(b):
    if b > 1 or b < -1:
        raise Undefined
    if not (b >= -1 and b <= 1):
        raise Unresolved
    return b.acos()


def _asin(b):
    if b > 1 or b < -1:
        raise Undefined
    if not (b >= -1 and b <= 1):
        raise Unresolved
    return b.asin()


def _loggamma(b):
    """log(gamma(b)) for b > 0 (SymPy's loggamma is complex below 0)."""
    if b > 0:
        return b.lgamma()
    if b <= 0:
        raise Undefined  # (a pole at 0 and the negative integers; complex between)
    raise Unresolved


def _gamma(b):
    """gamma(b): poles at 0 and the negative integers."""
    if b <= 0 and b.is_exact() and b.unique_fmpz() is not None:
        raise Undefined  # (a pole)
    v = b.gamma()
    if not v.is_finite():
        raise Unresolved
    return v


def _polygamma(n, b):
    """polygamma(n, b): digamma for n = 0, (-1)**(n+1) n! zeta(n+1, b) above
    (Hurwitz); poles at 0 and the negative integers."""
    if not n.is_exact() or n.unique_fmpz() is None or n < 0:
        raise ValueError(f"Exact: polygamma of order {n}")
    k = int(n.unique_fmpz())
    if b <= 0 and b.is_exact() and b.unique_fmpz() is not None:
        raise Undefined  # (a pole)
    if k == 0:
        v = b.digamma()
    else:  # (Hurwitz zeta needs a > 0: shifted up by the recurrence)
        m = max(0, math.ceil(1 - float(b.mid())))
        c = math.factorial(k) * (-1) ** (k + 1)
        v = c * arb(k + 1).zeta(b + m) + c * sum((b + j) ** -(k + 1) for j in range(m))
    if not v.is_finite():
        raise Unresolved
    return v


def _atan2(yb, xb):
    """atan2(y, x) (SymPy's argument order): undefined at (0, 0); a y ball
    holding 0 with x < 0 straddles the cut at +-pi."""
    if yb.is_zero() and xb.is_zero():
        raise Undefined
    v = arb.atan2(yb, xb)
    if not v.is_finite() or v.rad() > 3:
        raise Unresolved
    return v


def _relation(d, op):
    """Whether ``a op b`` holds, from the ball ``d = a - b``."""
    if d.is_zero():
        return op in ("==", "<=", ">=")
    if d > 0:
        return op in ("!=", ">", ">=")
    if d < 0:
        return op in ("!=", "<", "<=")
    raise Unresolved  # a ball holding 0 and more


def _extreme(balls, largest):
    """Max or Min of balls: the one certainly above (below) all others."""
    for b in balls:
        if all(b is c or (b >= c if largest else b <= c) for c in balls):
            return b
    raise Unresolved


def _sign(b):
    if b > 0:
        return arb(1)
    if b < 0:
        return arb(-1)
    if b.is_zero():
        return arb(0)
    raise Unresolved  # a ball holding 0 and more


UNARY = {
    "exp": lambda b: b.exp(), "log": _log, "sqrt": _sqrt, "tanh": lambda b: b.tanh(),
    "erf": lambda b: b.erf(), "erfc": lambda b: b.erfc(), "sin": lambda b: b.sin(),
    "cos": lambda b: b.cos(), "tan": lambda b: b.tan(), "atan": lambda b: b.atan(),
    "sinh": lambda b: b.sinh(), "cosh": lambda b: b.cosh(), "Abs": lambda b: abs(b),
    "log1p": lambda b: _log(1 + b), "expm1": lambda b: b.expm1(), "sign": _sign,
    "acos": _acos, "asin": _asin, "loggamma": _loggamma, "gamma": _gamma,
    # (the reciprocal and inverse hyperbolic functions SymPy keeps as written;
    # the poles of cot and csc at k*pi other than 0 are never exact floats)
    "coth": _off_zero(lambda b: b.coth()), "csch": _off_zero(lambda b: b.csch()),
    "sech": lambda b: b.sech(), "cot": _off_zero(lambda b: b.cot()),
    "csc": _off_zero(lambda b: b.csc()), "sec": lambda b: b.sec(),
    "asinh": lambda b: b.asinh(), "acosh": _acosh, "atanh": _atanh,
    # SymPy's d|u| of a u not known to be real: the balls are real
    "conjugate": lambda b: b, "re": lambda b: b, "im": lambda b: arb(0),
}


class Exact:
    """Correctly rounded values of ``exprs`` (SymPy) at points, from Arb balls."""

    def __init__(self, exprs, symbols, dtype=np.float64) -> None:
        self.order, self.kids = postorder(list(exprs), lambda n: n.args)
        self.exprs, self.symbols = list(exprs), list(symbols)
        info = np.finfo(dtype)
        self.prec, self.emin, self.emax = info.nmant + 1, info.minexp, info.maxexp - 1
        self.dtype = np.dtype(dtype).type

    def _run(self, xs) -> list:
        val: dict = {}
        pos = {s: i for i, s in enumerate(self.symbols)}
        for node in self.order:
            kids = [val[k] for k in self.kids[node]]
            if node in pos:
                v = arb(float(xs[pos[node]]))
            elif node.is_Integer:
                v = arb(int(node))
            elif node.is_Rational:
                v = arb(int(node.p)) / int(node.q)
            elif node.is_Float:
                sign, man, exp, _ = node._mpf_  # exact: a binary number
                v = arb(-man if sign else man) * arb(2) ** int(exp)
            elif node is sp.pi:
                v = arb.pi()
            elif node is sp.E:
                v = arb(1).exp()
            elif node.is_Add:
                v = kids[0]
                for k in kids[1:]:
                    v = v + k
            elif node.is_Mul:
                v = kids[0]
                for k in kids[1:]:
                    v = v * k
            elif node.is_Pow and node.exp.is_Rational:
                v = _pow(kids[0], node.exp)
            elif node.is_Pow:
                v = _real_pow(kids[0], kids[1])
            elif type(node).__name__ == "Heaviside":  # SymPy's: H(0) = 1/2 or its 2nd arg
                u = kids[0]
                if u > 0 or u < 0:
                    v = arb(1 if u > 0 else 0)
                elif u.is_zero():
                    v = kids[1] if len(kids) > 1 else arb(1) / 2
                else:
                    raise Unresolved
            elif node is sp.true or node is sp.false:
                v = node is sp.true
            elif isinstance(node, sp.core.relational.Relational):
                v = _relation(kids[0] - kids[1], node.rel_op)
            elif isinstance(node, (sp.And, sp.Or)):  # (of decided relations: bools)
                v = all(kids) if isinstance(node, sp.And) else any(kids)
            elif isinstance(node, sp.Not):
                v = not kids[0]
            elif isinstance(node, sp.functions.elementary.piecewise.ExprCondPair):
                v = (kids[0], kids[1])  # (its value is taken only where chosen)
            elif isinstance(node, sp.Piecewise):
                v = next((e for e, c in kids if c), None)
                if v is None:
                    raise Undefined  # no piece holds: SymPy's Piecewise is undefined
            elif type(node).__name__ in ("Max", "Min"):
                v = _extreme(kids, type(node).__name__ == "Max")
            elif type(node).__name__ == "atan2":
                v = _atan2(kids[0], kids[1])
            elif type(node).__name__ == "polygamma":
                v = _polygamma(kids[0], kids[1])
            elif type(node).__name__ in UNARY and len(kids) == 1:
                v = UNARY[type(node).__name__](kids[0])
            else:
                raise ValueError(f"Exact: no Arb kernel for {type(node).__name__} ({node})")
            val[node] = v
        return [val[e] for e in self.exprs]

    def at(self, xs, bracket: bool = False) -> list:
        """Per output, the correctly rounded value (a float), NaN where
        undefined, ``UNRESOLVED`` (None) where not decided at 4096 bits.

        ``bracket``: where the 4096-bit ball is finite but its ends round to
        two floats (the exact value at, or within 2**-4000 of, the midpoint of
        two floats: ``acosh(cosh(x)cosh(y) - sinh(x)sinh(y))`` is ``|x - y|``,
        half of whose float32 pairs are such ties), the pair ``(lo, hi)``: the
        correctly rounded value is one of them (rounding is monotone)."""
        out: list = [UNRESOLVED] * len(self.exprs)
        ends: list = [UNRESOLVED] * len(self.exprs)
        todo = set(range(len(self.exprs)))
        for prec in PRECISIONS:
            ctx.prec = prec
            try:
                balls = self._run(xs)
            except Undefined:
                return [math.nan] * len(self.exprs)
            except Unresolved:
                continue
            for k in list(todo):
                b = balls[k]
                if not b.is_finite():
                    continue
                lo, hi = self._round(b.lower()), self._round(b.upper())
                if lo == hi:
                    out[k] = lo
                    todo.discard(k)
                elif self._adjacent(lo, hi):
                    ends[k] = (lo, hi)
                else:  # (a ball over more than two floats decides nothing)
                    ends[k] = UNRESOLVED
            if not todo:
                break
        ctx.prec = 53
        if bracket:
            for k in todo:
                out[k] = ends[k]
        return out

    def _adjacent(self, lo: float, hi: float) -> bool:
        """``hi`` is the float of the format next above ``lo``."""
        dt = self.dtype
        return bool(np.nextafter(dt(lo), dt(np.inf)) == dt(hi))

    def _round(self, v) -> float:
        """An exact ball end rounded to nearest, ties to even, in the format."""
        m, e = (int(t) for t in v.man_exp())
        if m == 0:
            return 0.0
        sign, m = m < 0, abs(m)
        top = e + m.bit_length() - 1  # 2**top <= |v| < 2**(top + 1)
        if top > self.emax:
            r = math.inf
        elif top < self.emin - self.prec - 1:
            r = 0.0  # below half the smallest subnormal
        else:
            k = max(top, self.emin) - (self.prec - 1)  # exponent of the last bit kept
            shift = k - e
            if shift <= 0:
                n = m << -shift
            else:
                n, rest = m >> shift, m & ((1 << shift) - 1)
                half = 1 << (shift - 1)
                if rest > half or (rest == half and n & 1):
                    n += 1
            r = math.inf if n.bit_length() + k - 1 > self.emax else math.ldexp(n, k)
        return -r if sign else r
