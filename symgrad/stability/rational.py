"""Exact values of rational formulas, where balls and intervals cannot decide.

A sum, product or integer power of float inputs and rational constants
has a rational value, which Python's :class:`fractions.Fraction` computes
exactly, and which then rounds exactly to the format.  The ground truth
(:mod:`.truth`) asks for it only where its intervals did not decide: the
value is the point halfway between two floats, or 0, or within a tiny
distance of one (``x + y - x*y`` at x = 1.3e-268, y = 1.4e-269: ``x + y``
is such a midpoint, and ``x*y``, 1e-537 below it, needs about 900 bits to
see; Herbie's colour formula ``x + (y - x)*6*(2/3 - z)`` left 242 of 5,000
points unresolved so).

The formula is a DAG, walked once in postorder (:func:`symgrad.graph.postorder`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from sympy import (
    Abs,
    Add,
    Basic,
    Heaviside,
    Max,
    Min,
    Mul,
    Pow,
    Symbol,
    ceiling,
    floor,
    integer_nthroot,
    sign,
)

from ..graph import postorder
from .atoms import Combinations
from .bits import Format

__all__ = ["ExactNodes", "RationalProgram", "binary_fraction", "round_fraction"]


class RationalProgram:
    """Exact values of ``exprs`` at float points, where every node is a
    symbol, a rational or float constant, a sum, a product, an integer
    power, ``Abs``, ``Max`` or ``Min`` (:meth:`of` returns None otherwise).

    >>> from sympy import symbols
    >>> x, y = symbols("x y")
    >>> p = RationalProgram.of([x + y - x*y], [x, y])
    >>> p.values([1.5, 2.0])
    [Fraction(1, 2)]
    >>> RationalProgram.of([x**0.5], [x]) is None
    True
    >>> from sympy import Float
    >>> v = RationalProgram.of([x + Float("0.1", 60)], [x]).values([0.0])[0]
    >>> v != Fraction(0.1) and abs(v - Fraction(1, 10)) < Fraction(1, 10**55)  # all its digits
    True
    """

    def __init__(self, order: list, outputs: list, symbols: list) -> None:
        # (the same exact arithmetic as ExactNodes, with no cap on a value's bits)
        self.exact = ExactNodes(order, symbols, lambda node, k: None, max_bits=None)
        index = {n: i for i, n in enumerate(order)}
        self.at = [index[e] for e in outputs]

    @classmethod
    def of(cls, exprs: Sequence[Basic], symbols: Sequence[Symbol]) -> RationalProgram | None:
        order, kids = postorder(list(exprs), lambda n: n.args)
        for node in order:
            if kids[node]:
                if isinstance(node, (Add, Mul, Abs, Max, Min)):
                    continue
                if isinstance(node, Pow) and node.exp.is_Integer:
                    continue
                return None
            if node in symbols or node.is_Rational or node.is_Float:
                continue
            return None
        return cls(order, list(exprs), list(symbols))

    def values(self, xs: Sequence[float]) -> list[Fraction] | None:
        """Each output's exact value at the point ``xs``, or None where the
        formula has none (a division by 0) or an input is not finite."""
        if not all(math.isfinite(float(v)) for v in xs):
            return None
        val = self.exact.values(xs)
        out = [val[i] for i in self.at]
        return None if any(v is None for v in out) else out


# a node's exact value is given up past this many bits (x**64 at 1e300)
_MAX_BITS = 1 << 14


class ExactNodes:
    """The exact rational value of every node of a formula that has one at
    a float point: a node whose operands all have one and that is a sum, a
    product, an integer power, an exact root (``sqrt`` of 4), ``Abs``,
    ``Max``, ``Min``, ``Heaviside``, ``sign``, ``floor`` or ``ceiling``;
    any other node by ``other(node, operands)`` (None: not known to be
    rational).  The ground truth (:mod:`.truth`) asks for them only where
    its intervals leave a sign undecided: an argument that is exactly 0
    (``Heaviside(1/2 - x/6)`` at x = 3, a kink of the hard sigmoid: 1/6
    is no binary number, and its interval straddles 0 at every precision).

    ``order`` is the formula's nodes, children first (:func:`symgrad.graph.postorder`).

    >>> from sympy import Heaviside, Rational, symbols
    >>> x = symbols("x")
    >>> e = Heaviside(Rational(1, 2) - x/6)
    >>> from symgrad.graph import postorder
    >>> order, _ = postorder([e], lambda n: n.args)
    >>> exact = ExactNodes(order, [x], lambda node, args: None)
    >>> exact.values([3.0])[-1], exact.values([2.0])[-1]
    (Fraction(1, 2), Fraction(1, 1))
    """

    def __init__(self, order: Sequence[Basic], symbols: Sequence[Symbol],
                 other: Callable[[Basic, list[Fraction]], Fraction | None],
                 max_bits: int | None = _MAX_BITS) -> None:
        index = {n: i for i, n in enumerate(order)}
        self.order = list(order)
        self.kids = [tuple(index[a] for a in n.args) for n in order]
        self.pos = {s: j for j, s in enumerate(symbols)}
        self.other = other
        self.max_bits = max_bits  # (None: no cap)

    def values(self, xs: Sequence[float],
               signs: Sequence[int | None] | None = None) -> list[Fraction | None]:
        """Each node's exact value at the point ``xs`` (by position in
        ``order``), None where it has none or none is known.

        With ``signs`` (per node: None where it has no real value at
        ``xs``, else its sign where known, 0 where not), a node of
        irrational value is written exactly over atoms
        (:class:`.atoms.Combinations`): ``sin(x) - sin(y)`` at x = y, or
        ``log(x) + log(y)`` at x*y = 1, is exactly 0, where no interval of it
        excludes 0 or shrinks to it.  A value so written that is not a
        rational has no value known here.

        >>> from sympy import log, sin, symbols
        >>> from symgrad.graph import postorder
        >>> x, y = symbols("x y")
        >>> order, _ = postorder([sin(x) - sin(y), log(x) + log(y)], lambda n: n.args)
        >>> exact = ExactNodes(order, [x, y], lambda node, args: None)
        >>> at = exact.values([2.0**-40, 2.0**40], [0] * len(order))
        >>> at[order.index(sin(x) - sin(y))], at[order.index(log(x) + log(y))]
        (None, Fraction(0, 1))
        >>> exact.values([1.3, 1.3], [0] * len(order))[order.index(sin(x) - sin(y))]
        Fraction(0, 1)
        >>> exact.values([1.3, 1.3])[order.index(sin(x) - sin(y))] is None
        True
        """
        forms: list = []
        alg = Combinations(self.max_bits)
        for i, (node, kids) in enumerate(zip(self.order, self.kids)):
            v = None
            try:
                if node in self.pos:
                    x = float(xs[self.pos[node]])
                    v = Fraction(x) if math.isfinite(x) else None
                elif not kids:
                    if node.is_Rational:
                        v = Fraction(int(node.p), int(node.q))
                    elif node.is_Float:
                        v = binary_fraction(node._mpf_)
                else:
                    k = [forms[c] for c in kids]
                    if None not in k:
                        if all(type(a) is Fraction for a in k):
                            v = self._op(node, k)
                        if v is None and signs is not None and signs[i] is not None:
                            v = _combined(alg, node, k, signs[i], [signs[c] for c in kids])
            except (ZeroDivisionError, ValueError, OverflowError):
                v = None
            if type(v) is Fraction and self.max_bits is not None and \
                    v.numerator.bit_length() + v.denominator.bit_length() > self.max_bits:
                v = None
            forms.append(v)
        return [v if type(v) is Fraction else None for v in forms]

    def _op(self, node: Basic, k: list[Fraction]) -> Fraction | None:
        if isinstance(node, Add):
            return sum(k, Fraction(0))
        if isinstance(node, Mul):
            v = Fraction(1)
            for f in k:
                v *= f
            return v
        if isinstance(node, Pow) and node.exp.is_Rational:
            return _power(k[0], int(node.exp.p), int(node.exp.q), self.max_bits)
        if isinstance(node, Abs):
            return abs(k[0])
        if isinstance(node, (Max, Min)):
            return max(k) if isinstance(node, Max) else min(k)
        if isinstance(node, Heaviside):
            a = k[0]
            return Fraction(int(a > 0)) if a != 0 else (k[1] if len(k) > 1 else Fraction(1, 2))
        if isinstance(node, sign):
            return Fraction((k[0] > 0) - (k[0] < 0))
        if isinstance(node, (floor, ceiling)):
            return Fraction(math.floor(k[0]) if isinstance(node, floor) else math.ceil(k[0]))
        return self.other(node, k)


def _combined(alg: Combinations, node: Basic, k: list, sign: int,
              kid_signs: list) -> Fraction | dict:
    """The exact value of ``node`` (of a real value, its sign ``sign`` or 0)
    from its operands' (rationals or sums of atoms: :mod:`.atoms`); a node
    the algebra does not write otherwise is an atom of its own."""
    v = None
    name = type(node).__name__
    if isinstance(node, Add):
        v = alg.add(k)
    elif isinstance(node, Mul):
        v = alg.mul(k)
    elif isinstance(node, Pow):
        v = alg.power(k[0], k[1], sign)
    elif name == "exp":
        v = alg.exp(k[0])
    elif name == "log" and len(k) == 1:
        v = alg.log(k[0], sign)
    elif isinstance(node, Abs) and kid_signs[0] in (1, -1):
        v = alg.mul([Fraction(kid_signs[0]), k[0]])
    elif len(k) == 1 and (name in _ODD or name in _EVEN):
        # f(-u) = -f(u) (f(u)): one atom for both, named by the operand of the two
        # named first (a rational's: the positive one)
        u, neg = k[0], alg.mul([Fraction(-1), k[0]])
        if neg is not None and (neg > u if type(u) is Fraction else
                                type(neg) is dict and alg.name(neg) < alg.name(u)):
            odd = name in _ODD
            a = alg.atom((name, alg.name(neg)), -sign if odd else sign)
            v = alg.mul([Fraction(-1), a]) if odd else a
    if v is None:
        v = alg.atom((name, *(alg.name(a) for a in k)), sign)
    return v


_ODD = frozenset({"sin", "tan", "cot", "csc", "sinh", "tanh", "coth", "csch", "asin", "atan",
                  "asinh", "atanh", "erf", "erfinv", "cbrt"})
_EVEN = frozenset({"cos", "sec", "cosh", "sech"})


def _power(b: Fraction, p: int, q: int, max_bits: int | None) -> Fraction | None:
    """``b**(p/q)`` where exactly rational (the principal root, ``b >= 0``
    for an even ``q``) and, with ``max_bits``, of at most about that many
    bits; None otherwise."""
    if q != 1:
        if b < 0 and q % 2 == 0:
            return None
        n, d = abs(b.numerator), b.denominator
        rn, en = integer_nthroot(n, q)
        rd, ed = integer_nthroot(d, q)
        if not (en and ed):
            return None
        b = Fraction(-rn if b < 0 else rn, rd)
    if max_bits is not None and \
            abs(p) * max(b.numerator.bit_length(), b.denominator.bit_length()) > max_bits:
        return None
    return b ** p


def binary_fraction(mpf: tuple) -> Fraction:
    """The exact value of a finite mpmath number (sign, mantissa, exponent, bits).

    >>> binary_fraction((1, 3, -2, 2))
    Fraction(-3, 4)
    """
    sign, man, exp, _ = mpf
    man, exp = int(man), int(exp)
    v = Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)
    return -v if sign else v


def round_fraction(q: Fraction, fmt: Format) -> float:
    """``q`` rounded to nearest (ties to even) in ``fmt``, as a Python float.

    >>> from .bits import FORMATS
    >>> round_fraction(Fraction(1, 3), FORMATS["float64"]) == 1 / 3
    True
    >>> round_fraction(Fraction(1) + Fraction(1, 2**53), FORMATS["float64"])  # a tie: even
    1.0
    >>> round_fraction(Fraction(1, 2**1075) * 3, FORMATS["float64"])  # 1.5 of the last place
    1e-323
    """
    if q == 0:
        return 0.0
    sign, a = q < 0, abs(q)
    n, d = a.numerator, a.denominator
    top = n.bit_length() - d.bit_length()  # 2**top <= a < 2**(top + 1), after the fix
    if (n << max(-top, 0)) < (d << max(top, 0)):
        top -= 1
    if top > fmt.emax:
        return -math.inf if sign else math.inf
    e = max(top, fmt.emin) - (fmt.prec - 1)  # exponent of the last bit kept
    num, den = (n, d << e) if e >= 0 else (n << -e, d)
    m, rem = divmod(num, den)
    if 2 * rem > den or (2 * rem == den and m & 1):
        m += 1
    if m.bit_length() + e - 1 > fmt.emax:
        return -math.inf if sign else math.inf
    r = math.ldexp(m, e)
    return -r if sign else r
