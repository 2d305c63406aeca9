"""Exact values of irrational nodes, as sums of products of atoms.

The ground truth's intervals cannot tell a value that *is* 0 from one
near it: ``sin(x) - sin(y)`` at x = y, ``log(x) + log(y)`` at x*y = 1,
``sqrt(x)*sqrt(y) - sqrt(x*y)`` or ``exp(x)*exp(-x) - 1`` anywhere hold 0
at every precision.  :class:`Combinations` writes such values exactly, as
a sum over the rationals of terms, each a product ``exp(L)*a**n*...``:

* an *atom* is a real number named by its function and its operands'
  names (``sin(13/10)``); one whose sign the intervals know is written
  ``sign*exp(log|a|)``, so that ``a*a``, ``sqrt(a*a)``, ``exp(log(a))``
  and ``a`` meet; one of unknown sign is a factor ``a**n`` of its own;
* ``L`` is a linear combination over the rationals of 1, of atoms, of the
  logarithms ``log n`` of integers and of ``log|a|``: exponentials multiply
  by adding their exponents, ``exp(q*log n)`` with ``q`` an integer is the
  rational ``n**q``, and a root or power of a positive term scales ``L``;
* the logarithm of a rational is ``sum e_p*log p`` over its prime factors
  (found by trial division up to :data:`TRIAL`, the rest one integer), of
  a product the sum of its factors' logarithms.

Every step is an identity, so a sum that comes out identically 0 is 0
(sound); one that does not has no value known here (two atoms are equal
only where named alike, and ``log 15`` and ``log 3 + log 5`` are equal
only if trial division splits 15).  Names are short (a sum or product is
named once per point by a tuple ``("#", n)``), so comparing two never
walks a DAG as a tree.

>>> from fractions import Fraction as F
>>> c = Combinations(max_bits=1 << 14)
>>> two, half = c.log(F(2)), c.log(F(1, 2))
>>> c.add([two, half])  # log 2 + log(1/2)
Fraction(0, 1)
>>> root2 = c.power(F(2), F(1, 2))
>>> c.mul([root2, root2]), c.mul([c.exp(F(3, 2)), c.exp(F(-3, 2))])
(Fraction(2, 1), Fraction(1, 1))
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["Combinations", "TRIAL"]

TRIAL = 1 << 10  # primes tried in a logarithm's factorization, up to this
MAX_TERMS = 128  # terms of a sum (or entries of an exponent), at most
_ONE = (frozenset(), frozenset())  # the empty product: a sum's rational part
_UNIT = 1  # L's key of the rational constant (exp(q) for a rational q)


def _primes(n: int) -> list[int]:
    sieve = bytearray([1]) * n
    sieve[:2] = b"\0\0"
    for p in range(2, int(n ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = bytearray(len(sieve[p * p::p]))
    return [p for p in range(n) if sieve[p]]


_PRIMES = _primes(TRIAL)


def _factor(n: int) -> dict[int, int]:
    """``n >= 1`` as {factor: exponent}: primes below TRIAL, then the rest
    (one integer, 1 left out)."""
    out: dict[int, int] = {}
    z = (n & -n).bit_length() - 1
    if z:
        out[2] = z
        n >>= z
    for p in _PRIMES[1:]:
        if n == 1 or p * p > n:
            break
        if n % p == 0:
            e = 0
            while n % p == 0:
                n //= p
                e += 1
            out[p] = e
    if n > 1:
        out[n] = out.get(n, 0) + 1
    return out


class Combinations:
    """The exact arithmetic of one point's sums of products of atoms (see
    the module).  A value is a :class:`Fraction` or a dict {term: rational
    coefficient}; a term is ``(L, raw)``, two frozensets of (key,
    exponent); every method returns None where a value is past the caps
    (``max_bits`` of a rational, :data:`MAX_TERMS` terms)."""

    def __init__(self, max_bits: int | None) -> None:
        self.max_bits = max_bits
        self.names: dict = {}  # a sum or a term -> ("#", n)
        self.terms: dict = {}  # ("#", n) of a term -> the term
        self.signs: dict = {}  # an atom -> +1 / -1 where known

    # ---- names and atoms --------------------------------------------------------

    def name(self, v: Fraction | dict) -> object:
        """A short hashable name of a value (a rational is its own)."""
        if type(v) is Fraction:
            return v
        return self.names.setdefault(frozenset(v.items()), ("#", len(self.names)))

    def atom(self, key: tuple, sign: int | None) -> dict:
        """The real number named ``key`` as a value; ``sign`` (+1, -1, or
        0/None: not known) is kept for it."""
        if sign in (1, -1):
            self.signs[key] = sign
        s = self.signs.get(key)
        if s is not None:
            return {(frozenset({(("ln|", key), Fraction(1))}), frozenset()): Fraction(s)}
        return {(frozenset(), frozenset({(key, 1)})): Fraction(1)}

    def _lkey_value(self, k: object) -> Fraction | dict:
        """The real number an exponent's key stands for, as a value."""
        if k == _UNIT:
            return Fraction(1)
        if type(k) is tuple and k[0] == "t":
            return {self.terms[k[1]]: Fraction(1)}
        return self.atom(k, None)

    def _term(self, L: dict, raw: dict) -> tuple[Fraction, tuple] | None:
        """``exp(L)*prod(raw)`` as (rational factor, term): ``n**q`` taken
        out of ``exp(q*log n)`` for the integer part of ``q``."""
        factor, out = Fraction(1), {}
        for k, c in L.items():
            if c and type(k) is tuple and k[0] == "ln":
                whole = c.numerator // c.denominator
                if whole:
                    if self.max_bits is not None and \
                            abs(whole) * k[1].bit_length() > self.max_bits:
                        return None
                    factor *= Fraction(k[1]) ** whole
                    c -= whole
            if c:
                out[k] = c
        if len(out) > MAX_TERMS:
            return None
        return factor, (frozenset(out.items()), frozenset((k, n) for k, n in raw.items() if n))

    def _value(self, acc: dict) -> Fraction | dict | None:
        acc = {t: c for t, c in acc.items() if c}
        if len(acc) > MAX_TERMS or (self.max_bits is not None and any(
                c.numerator.bit_length() + c.denominator.bit_length() > self.max_bits
                for c in acc.values())):
            return None
        if set(acc) <= {_ONE}:
            return acc.get(_ONE, Fraction(0))
        return acc

    @staticmethod
    def _sum(v: Fraction | dict) -> dict:
        return v if type(v) is dict else ({_ONE: v} if v else {})

    # ---- arithmetic -------------------------------------------------------------

    def add(self, vals: list) -> Fraction | dict | None:
        out: dict = {}
        for v in vals:
            for t, c in self._sum(v).items():
                out[t] = out.get(t, 0) + c
        return self._value(out)

    def mul(self, vals: list) -> Fraction | dict | None:
        acc: dict = {_ONE: Fraction(1)}
        for v in vals:
            new: dict = {}
            for t1, c1 in acc.items():
                for t2, c2 in self._sum(v).items():
                    L = dict(t1[0])
                    for k, e in t2[0]:
                        L[k] = L.get(k, 0) + e
                    raw = dict(t1[1])
                    for k, n in t2[1]:
                        raw[k] = raw.get(k, 0) + n
                    got = self._term(L, raw)
                    if got is None:
                        return None
                    f, t = got
                    new[t] = new.get(t, 0) + c1 * c2 * f
            acc = {t: c for t, c in new.items() if c}
            if len(acc) > MAX_TERMS:
                return None
        return self._value(acc)

    def exp(self, v: Fraction | dict) -> Fraction | dict | None:
        """``exp(v)``: one term, its exponent ``v`` written over 1, atoms,
        logarithms and the terms of ``v`` that are none of those."""
        L: dict = {}
        for t, c in self._sum(v).items():
            L_t, raw_t = t
            if t == _ONE:
                k, c = _UNIT, c
            elif not raw_t and len(L_t) == 1 and next(iter(L_t))[1] == 1 and \
                    type(next(iter(L_t))[0]) is tuple and next(iter(L_t))[0][0] == "ln|" \
                    and next(iter(L_t))[0][1] in self.signs:  # c*|a| of an atom a
                a = next(iter(L_t))[0][1]
                k, c = a, c * self.signs[a]
            elif not L_t and len(raw_t) == 1 and next(iter(raw_t))[1] == 1:
                k = next(iter(raw_t))[0]
            else:
                k = ("t", self.name_term(t))
            L[k] = L.get(k, 0) + c
        got = self._term(L, {})
        if got is None:
            return None
        return self._value({got[1]: got[0]})

    def name_term(self, t: tuple) -> object:
        n = self.names.setdefault(t, ("#", len(self.names)))
        self.terms[n] = t
        return n

    def log(self, v: Fraction | dict, sign: int | None = None) -> Fraction | dict | None:
        """``log(v)`` for ``v > 0``: of a rational, the sum over its factors;
        of one term ``c*exp(L)*prod(a**n)``, ``log|c| + L + sum(n*log|a|)``;
        of a sum of terms, an atom (``sign``: its sign, where known)."""
        if type(v) is Fraction:
            if v <= 0:
                return None
            parts: list = []
            for sgn, n in ((1, v.numerator), (-1, v.denominator)):
                for p, e in _factor(n).items():
                    self.signs[("ln", p)] = 1
                    parts.append(self.mul([Fraction(sgn * e), self.atom(("ln", p), 1)]))
            return None if None in parts else self.add(parts)
        if len(v) != 1:
            return self.atom(("log", self.name(v)), sign)
        (t, c), = v.items()
        parts = [self.log(abs(c))]
        for k, e in t[0]:
            parts.append(self.mul([e, self._lkey_value(k)]))
        for k, n in t[1]:
            parts.append(self.mul([Fraction(n), self.atom(("ln|", k), None)]))
        return None if None in parts else self.add(parts)

    def power(self, v: Fraction | dict, r: Fraction | dict,
              sign: int | None = None) -> Fraction | dict | None:
        """``v**r``: a rational ``r`` scales one positive term's exponent
        (an integer one of any term; a small positive one multiplies a
        sum out); any other power of a positive term is ``exp(r*log v)``;
        else an atom."""
        one = type(v) is dict and len(v) == 1
        positive = (type(v) is Fraction and v > 0) or \
            (one and not next(iter(v))[1] and next(iter(v.values())) > 0)
        if type(r) is Fraction and r.denominator == 1 and one and \
                (r > 0 or not next(iter(v))[1]):
            # (a negative power of an atom of unknown sign is an atom of its own:
            # that atom may be an exact 0 no name shows, and a/a is not 1 there)
            (t, c), = v.items()
            n = r.numerator
            L = {k: e * n for k, e in t[0]}
            raw = {k: m * n for k, m in t[1]}
            got = self._term(L, raw)
            if got is None or (self.max_bits is not None and abs(n) * max(
                    c.numerator.bit_length(), c.denominator.bit_length()) > self.max_bits):
                return None
            return self._value({got[1]: got[0] * c ** n})
        if type(r) is Fraction and r.denominator == 1 and 1 <= r <= 4:
            return self.mul([v] * r.numerator)
        if positive:
            lg = self.log(v)
            return None if lg is None else self.exp_of(self.mul([r, lg]))
        return self.atom(("Pow", self.name(v), self.name(r)), sign)

    def exp_of(self, v: Fraction | dict | None) -> Fraction | dict | None:
        return None if v is None else self.exp(v)

