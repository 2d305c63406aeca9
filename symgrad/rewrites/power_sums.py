"""Sums of powers with one symbolic exponent, expanded about an integer
exponent where the sum is a number.

A sum ``S(p) = Σ wᵢ·bᵢ^p + q`` (the ``bᵢ > 0`` and ``wᵢ`` free of the
exponent ``p``, ``q`` the terms without such a power; a term may be a
product of powers whose exponents are linear in ``p``, ``pᵅ·q^(1-α)`` in a
Rényi divergence, ``b^(a·p + r)`` for numbers a, r) that is a number
``K`` at an integer ``p = c`` cancels for ``p`` near ``c``: Tsallis'
entropy of a coin, ``(1 - x^p - (1 - x)^p)/(p - 1)``, is 0/0 at ``p = 1``
and loses ``log2(1/|p - 1|)`` bits beside it (20 at ``p = 1 + 1e-6``); the
CES aggregator ``((x^p + y^p)/2)^(1/p)`` near its Cobb-Douglas limit ``p =
0`` rounds ``(x^p + y^p)/2`` to about 1.  Written about ``c``,

    ``S(p) = K + Σ wᵢ·bᵢ^c·expm1((p - c)·log bᵢ)``,

an identity (``bᵢ^p = bᵢ^c·(1 + expm1((p - c)·log bᵢ))`` and ``K = Σ
wᵢ·bᵢ^c + q``; a product's ``log bᵢ`` is ``Σ aⱼ·log bⱼ`` over its powers
``bⱼ^(aⱼ·p + rⱼ)``), each term keeps its bits where ``p`` is near ``c``
(``p - c`` is exact there), and the rewrites of the library then see ``K =
0`` (nothing left to cancel) or ``log(1 + u)`` and ``(1 + u)^(1/p)``.  It
generalizes ``a^p - 1`` as ``expm1(p·log a)`` (``c = 0``, one power).
Which ``c`` (and whether the form is accurate) is for
:func:`symgrad.stabilize` to measure: each ``c`` where the sum is a number
gives a candidate.

>>> from sympy import symbols
>>> x, p = symbols("x p", positive=True)
>>> forms = dict(about_integer_exponents([(1 - x**p - (1 - x)**p) / (p - 1)],
...                                      {x: (0.01, 0.99), p: (1, 2)}))
>>> sorted(forms)  # 1 - 1 - 1 at p = 0, 1 - x - (1 - x) at p = 1: numbers
[0, 1]
>>> forms[1][0]
(-x*expm1((p - 1)*log(x)) + (x - 1)*expm1((p - 1)*log(1 - x)))/(p - 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sympy import Add, Basic, Integer, Mul, Pow, cancel, expand, log
from sympy.codegen.cfunctions import expm1

from ..build import evaluated, mapped
from ..graph import count_ops
from .facts import Facts

__all__ = ["about_integer_exponents", "EXPONENTS"]

EXPONENTS = (0, 1, 2, -1)  # the integers tried, nearest first
MAX_TERMS = 8  # sums of more powers are left alone
MAX_OPS = 400  # formulas of more operations are left alone (SymPy's cancel per sum)


def _powers(t: Basic) -> tuple[Basic, list] | None:
    """``t`` as ``(w, [(b, p), ...])`` with ``t = w·Π b^p`` over its factors
    of symbolic exponent; None where it has none."""
    found, rest = [], []
    for f in Mul.make_args(t):
        if isinstance(f, Pow) and not f.exp.is_number:
            found.append((f.base, f.exp))
        else:
            rest.append(f)
    return (Mul(*rest), found) if found else None


def _slope(e: Basic, s: Basic) -> Basic | None:
    """``a`` where ``e = a·s + r`` with ``a``, ``r`` numbers, else None."""
    a = e.diff(s)
    return a if a.is_number and a != 0 else None


def _expanded(node: Add, c: int, facts: Facts) -> Basic | None:
    """``node`` written about the integer exponent ``c``, or None."""
    terms, others = [], []
    for t in node.args:
        wp = _powers(t)
        (terms if wp is not None else others).append(wp if wp is not None else t)
    if not terms or len(terms) > MAX_TERMS:
        return None
    syms = {f for _, ps in terms for _, e in ps for f in e.free_symbols}
    if len(syms) != 1:
        return None
    (s,) = syms
    at_c, slopes = [], []
    for w, ps in terms:
        if w.has(s) or any(b.has(s) or not facts.positive(b) for b, _ in ps):
            return None
        sl = [_slope(e, s) for _, e in ps]
        if any(a is None for a in sl):
            return None
        at_c.append(w * Mul(*[b**e.subs(s, c) for b, e in ps]))
        slopes.append(Add(*[a * log(b) for a, (b, _) in zip(sl, ps)]))
    if any(q.has(s) for q in others):
        return None
    k = cancel(expand(Add(*at_c, *others)))
    if not k.is_Number:
        return None
    shift = s - Integer(c)
    return Add(k, *[a * expm1(shift * lg) for a, lg in zip(at_c, slopes)])


def about_integer_exponents(exprs: Sequence[Basic],
                            domain: Mapping | None = None) -> list[tuple[int, list[Basic]]]:
    """For each integer ``c`` of :data:`EXPONENTS`, ``exprs`` with every
    sum of powers of one symbolic exponent that is a number at ``c``
    written about ``c`` (one bottom-up pass over the DAG per ``c``); the
    ``c`` at which no sum changed are left out.

    >>> from sympy import symbols
    >>> a, p = symbols("a p", positive=True)
    >>> about_integer_exponents([a**p - 1], {a: (0.5, 2), p: (-1, 1)})
    [(0, [expm1(p*log(a))])]
    >>> about_integer_exponents([a**2 - 1], {a: (0.5, 2)})  # no symbolic exponent
    []
    """
    if count_ops(list(exprs)) > MAX_OPS:
        return []
    facts = Facts(domain, interior=True)
    out = []
    for c in EXPONENTS:
        hits = [False]

        def after(node: Basic, c: int = c, hits: list = hits) -> Basic:
            if isinstance(node, Add):
                e = _expanded(node, c, facts)
                if e is not None:
                    hits[0] = True
                    return e
            return node

        got = mapped(list(exprs), evaluated, after=after)
        if hits[0]:
            out.append((c, got))
    return out
