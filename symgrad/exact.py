"""``exact(p)``: a polynomial, evaluated by generated code exactly (a
floating-point expansion) and rounded once.

Mathematically ``exact`` is the identity: every proof, the mpmath ground
truth and differentiation see ``p``.  Only code generation treats it
differently (:mod:`symgrad.codegen.expanding`): ``p`` is expanded into its
monomials in its symbols, each monomial is computed exactly as a sum of float64s
(a product of ``j`` floats is exactly ``2**(j-1)`` floats by Dekker's
TwoProduct, on the inputs' significands so that no product leaves the
range), the monomials are summed without error (TwoSum) and the sum is
rounded once.  A per-element bound certifies the result within one ulp of
the exact value of ``p`` at the inputs; an element the bound
does not certify (a cancellation deeper than the passes reach, a result
outside the normal range) is computed with Python's fractions and rounded
to nearest.

A rational function ``p`` of its symbols is brought over one denominator
(``N/D``, :func:`quotient_terms`): ``N`` and ``D`` are each computed so, as
a pair of floats within a quarter of an ulp, and the pairs divided and
rounded once (a relative error of at most 2**-52 + 2**-53: within 4 ulps,
most often correctly rounded), scaled once into the range.

It is the form for zero sets deeper than pairs reach (:func:`symgrad.compensated`
keeps about twice the type's precision; a 3x3 determinant of entries of
size 10 can cancel 2**-105 deep), and it is dear: a few times the pairs'
cost, more where elements fall back to fractions.  ``p`` must be a
polynomial or a rational function of its symbols (a polynomial whose
coefficients no float holds, ``x/3 - y``, is computed as a quotient): code
generation refuses ``exact(x*sin(y))``, and ``exact(x**20*y**20)`` (an
expansion past 1,024 floats).
"""

from __future__ import annotations

from .brief import brief
from .widen import FloatMarker

__all__ = ["exact", "has_exact", "polynomial_terms", "quotient_terms"]

_MAX_PARTS = 1024  # an expansion's floats at most (2**(j-1) per monomial of degree j)
_MAX_DEGREE = 15  # TwoProduct is error-free down to the parts of 16 significands


class exact(FloatMarker):  # noqa: N801  (reads like widen)
    """The value of the polynomial ``p``, computed by generated code exactly
    (a floating-point expansion in float64, certified per element, fractions
    where not) and rounded once: within one ulp of ``p`` at its inputs;
    plain NumPy, on every platform.

    Mathematically the identity (proofs and the ground truth see ``p``; its
    derivative is ``p``'s).  A number is itself; a Matrix or list is exact
    entry by entry.

    >>> from sympy import symbols
    >>> from symgrad import lambdify, compensated
    >>> a, b, c, d, e = symbols("a b c d e")
    >>> f = a*b*c - d - e  # a product of three floats is three floats: pairs keep two
    >>> u = 2.0**-52
    >>> args = (1 + u, 1 + u, 1 + u, 1 + 3*u, 3*u**2)  # the truth: u**3 = 2**-156
    >>> float(lambdify([a, b, c, d, e], compensated(f))(*args))  # pairs: no bit right
    0.0
    >>> float(lambdify([a, b, c, d, e], exact(f))(*args)) == u**3
    True
    >>> from sympy import sin
    >>> lambdify([a, b], exact(a * sin(b)))  # refused where its code is made
    Traceback (most recent call last):
    ...
    symgrad.errors.SymgradError: exact(a*sin(b)): not a polynomial in its symbols (sin(b)): ...
    """

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_Number or isinstance(u, FloatMarker):
            return u
        return None


def polynomial_terms(u, gens=None) -> tuple[list, list]:
    """``(generators, terms)`` of the polynomial ``u``: each term is
    ``(numerator, log2 of the denominator, powers of the generators)``, the
    coefficient ``numerator / 2**log2``.  ValueError where a coefficient is
    not dyadic or the expansion would be too long.  ``gens``: the
    generators (default: ``u``'s symbols, sorted by name).

    >>> from sympy import symbols, Rational
    >>> x, y = symbols("x y")
    >>> polynomial_terms(x**2 - 4*x*y + Rational(1, 2))
    ([x, y], [(1, 0, (2, 0)), (-4, 0, (1, 1)), (1, 1, (0, 0))])
    """
    from sympy import Float, Poly, PolynomialError, Rational

    _bounded(u)
    gens = gens or sorted(u.free_symbols, key=str)
    try:
        p = Poly(u.expand(), *gens) if gens else None
    except PolynomialError:
        p = None
    if p is None:
        raise ValueError(f"exact({brief(u)}): not a polynomial in its symbols")
    terms, parts = [], 0
    for powers, c in p.terms():
        q = Rational(c) if isinstance(c, Float) else c
        if not q.is_Rational:
            raise ValueError(f"exact({brief(u)}): the coefficient {c} is not a rational number")
        den = int(q.q)
        if den & (den - 1):
            raise ValueError(f"exact({brief(u)}): the coefficient {c} is not dyadic "
                             f"(no float expansion holds it)")
        degree = sum(powers)
        if degree > _MAX_DEGREE or any(k < 0 for k in powers):
            raise ValueError(f"exact({brief(u)}): degree {degree} is beyond what expansions hold")
        parts += max(1, 2 ** (degree - 1)) * (int(abs(q.p)).bit_length() // 52 + 1)
        terms.append((int(q.p), den.bit_length() - 1, tuple(int(k) for k in powers)))
    if parts > _MAX_PARTS:
        raise ValueError(f"exact({brief(u)}): its expansion takes {parts} floats "
                         f"(at most {_MAX_PARTS})")
    return list(p.gens), terms


_MAX_NODES = 400  # a rational formula brought over one denominator, at most


def quotient_terms(u) -> tuple[list, list, list]:
    """``(generators, numerator's terms, denominator's terms)`` of the
    rational function ``u`` of its symbols brought over one denominator
    (terms as :func:`polynomial_terms` gives them); ValueError where ``u``
    is not such a quotient (a polynomial: :func:`polynomial_terms`).

    >>> from sympy import symbols
    >>> m, a, w = symbols("m a w")
    >>> quotient_terms(3*m*a**2/w + a/3)
    ([a, m, w], [(9, 0, (2, 1, 0)), (1, 0, (1, 0, 1))], [(3, 0, (0, 0, 1))])
    """
    from sympy import Poly, PolynomialError, Pow, fraction, together

    from .graph import postorder

    order, _ = postorder([u], lambda n: n.args)
    if len(order) > _MAX_NODES:
        raise ValueError(f"exact({brief(u)}): too large a rational function")
    for n in order:
        if not (n.is_Symbol or n.is_Rational or n.is_Add or n.is_Mul
                or (isinstance(n, Pow) and n.exp.is_Integer)):
            raise ValueError(f"exact({brief(u)}): not a rational function ({brief(n)})")
    if not u.free_symbols:
        raise ValueError(f"exact({brief(u)}): a number")
    gens = sorted(u.free_symbols, key=str)
    num, den = fraction(together(u))
    try:  # integer coefficients on both sides (-9*z/10 - 7/10 over 1: -9*z - 7 over 10)
        cn, pn = Poly(num, *gens).clear_denoms()
        cd, pd = Poly(den, *gens).clear_denoms()
    except PolynomialError:
        raise ValueError(f"exact({brief(u)}): not a rational function") from None
    num, den = pn.as_expr() * cd, pd.as_expr() * cn
    if den == 1:
        raise ValueError(f"exact({brief(u)}): a polynomial")
    return gens, polynomial_terms(num, gens)[1], polynomial_terms(den, gens)[1]


def _bounded(u) -> None:
    """ValueError unless ``u`` is built of sums, products, nonnegative
    integer powers, symbols and numbers with a degree and a count of
    monomials (bounds over the DAG, before SymPy expands it) within what
    an expansion holds."""
    from .graph import postorder

    order, kids = postorder([u], lambda n: n.args)
    degree, count = {}, {}
    for n in order:
        ks = kids[n]
        if n.is_Symbol:
            degree[n], count[n] = 1, 1
        elif n.is_Number:
            degree[n], count[n] = 0, 1
        elif n.is_Add:
            degree[n], count[n] = max(degree[k] for k in ks), sum(count[k] for k in ks)
        elif n.is_Mul:
            degree[n] = sum(degree[k] for k in ks)
            count[n] = 1
            for k in ks:
                count[n] = min(count[n] * count[k], 1 << 40)
        elif n.is_Pow and n.exp.is_Integer and n.exp >= 0:
            k = int(n.exp)
            degree[n] = degree[n.base] * k
            count[n] = min(count[n.base] ** min(k, 40), 1 << 40)
        else:
            raise ValueError(f"exact({brief(u)}): not a polynomial in its symbols ({brief(n)})")
        if degree[n] > _MAX_DEGREE or count[n] > _MAX_PARTS:
            raise ValueError(f"exact({brief(u)}): beyond what expansions hold (degree "
                             f"{degree[n]}, up to {count[n]} monomials)")


def has_exact(exprs) -> bool:
    """Whether any of ``exprs`` holds an ``exact`` node (one walk of the DAG).

    >>> from sympy import symbols
    >>> a, b = symbols("a b")
    >>> has_exact([a * b]), has_exact([1 + exact(a * b - 1)])
    (False, True)
    """
    from .graph import postorder

    roots = [e for e in exprs if hasattr(e, "args")]
    order, _ = postorder(roots, lambda n: n.args)
    return any(isinstance(n, exact) for n in order)
