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
from collections import Counter
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
               defined: Sequence[bool] | None = None) -> list[Fraction | None]:
        """Each node's exact value at the point ``xs`` (by position in
        ``order``), None where it has none or none is known.

        With ``defined`` (per node: whether it has a real value at ``xs``),
        a node of irrational value is an *atom*, named by its function and
        its operands' exact values, and a sum a linear combination of atoms
        over the rationals: ``sin(x) - sin(y)`` at x = y is exactly 0 (the
        same atom twice), where no interval of it excludes 0 or shrinks to it.
        Two atoms are equal only where the names are; a combination that is
        not identically 0 has no value known here.

        >>> from sympy import sin, symbols
        >>> from symgrad.graph import postorder
        >>> x, y = symbols("x y")
        >>> order, _ = postorder([sin(x) - sin(y)], lambda n: n.args)
        >>> exact = ExactNodes(order, [x, y], lambda node, args: None)
        >>> exact.values([1.3, 1.3], [True] * len(order))[-1], exact.values([1.3, 1.3])[-1]
        (Fraction(0, 1), None)
        """
        forms: list = []
        names: dict = {}  # a combination -> its short name (see _key)
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
                        if v is None and defined is not None and defined[i]:
                            v = _linear(node, k, names)
            except (ZeroDivisionError, ValueError, OverflowError):
                v = None
            if type(v) is Fraction and self.max_bits is not None and \
                    v.numerator.bit_length() + v.denominator.bit_length() > self.max_bits:
                v = None
            elif type(v) is dict and len(v) > _MAX_ATOMS:
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


_MAX_ATOMS = 128  # atoms in a linear combination, at most (a sum of n: n**2 work)
_ONE_KEY = 1  # the key of a combination's rational part


def _key(v: Fraction | dict, names: dict) -> object:
    """A hashable name of an exact value (a rational, or a combination): a
    combination's is a short tuple given once per point (``names``), so a
    name never nests another's whole structure (an atom of an atom of ...
    of a DAG: comparing two equal names would walk it as a tree)."""
    if type(v) is Fraction:
        return v
    return names.setdefault(frozenset(v.items()), ("#", len(names)))


def _as_linear(v: Fraction | dict) -> dict:
    return v if type(v) is dict else ({_ONE_KEY: v} if v else {})


def _linear(node: Basic, k: list, names: dict) -> Fraction | dict | None:
    """The value of ``node`` from its operands' (rationals or combinations
    of atoms): a sum adds them, a product scales one by the rest where the
    rest are rational; any other node (of a real value) is an atom of its
    own.  A combination with no atom is its rational part."""
    if isinstance(node, Add):
        out: dict = {}
        for a in k:
            for key, c in _as_linear(a).items():
                c = out.get(key, 0) + c
                if c:
                    out[key] = c
                else:
                    out.pop(key, None)
    elif isinstance(node, Mul) and sum(type(a) is dict for a in k) == 1:
        scale = Fraction(1)
        for a in k:
            if type(a) is Fraction:
                scale *= a
        lin = next(a for a in k if type(a) is dict)
        out = {key: c * scale for key, c in lin.items()} if scale else {}
    elif isinstance(node, Mul):
        scale, factors = Fraction(1), Counter()
        for a in k:
            if type(a) is Fraction:
                scale *= a
            else:
                factors[_key(a, names)] += 1
        out = {("Mul", frozenset(factors.items())): scale} if scale else {}
    else:
        name = type(node).__name__
        extra = (str(node.exp),) if isinstance(node, Pow) else ()
        out = {(name, *extra, *(_key(a, names) for a in k)): Fraction(1)}
    if set(out) <= {_ONE_KEY}:
        return out.get(_ONE_KEY, Fraction(0))
    return out


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
