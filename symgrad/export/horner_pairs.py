"""A polynomial of one float inside ``compensated(u)``, in JAX code: by
compensated Horner, not by the pair arithmetic of its terms.

GELU-tanh's gradient holds ``exp(-|c (x + k x**3)|)`` in pairs (the
exponent cancels nothing, but its rounding is exp's relative error, which
the gradient's ``1 - tanh**2`` carries): as pair arithmetic that is a
chain of three pair products for ``k x**3``, a pair sum and a pair product
by ``c``, about 230 element operations that XLA recomputes in every fused
loop reading them (14.5 of the pair exponent's 20-23 ms per 10**6 points,
xla15's measure).  Here such a polynomial, ``x`` a float (a symbol), is
one ``_dd_horner(x, a_n, ..., a_0)``: the coefficients of its expanded
form, each as a pair (mpmath at 200 bits: ``c k`` is one constant, not a
pair product), and Horner's rule with TwoProduct and TwoSum at each step
and their error terms summed in floats (Graillat, Langlois and Louvet's
compensated Horner), returned as the pair (value, error): as accurate as
the pairs, about a third of the operations.  JAX only: NumPy's code (which
``stabilize`` measures) and PyTorch's keep their pair arithmetic.
"""

from __future__ import annotations

from sympy import Add, Basic, Expr, Poly, PolynomialError, Symbol

from ..build import mapped
from ..codegen.compensating import PairCall
from ..compensated import compensated

__all__ = ["polynomials_by_horner"]


class _DDHorner(PairCall):
    """``_dd_horner(x, a_n, ..., a_0)``: the pair of a polynomial of the
    float ``x`` (its coefficients floats or pairs)."""

    _helper = "_dd_horner"


class _Polynomial(Expr):
    """A polynomial of one symbol inside ``compensated(u)``: its symbol and
    coefficients (highest degree first); :mod:`symgrad.codegen.compensating`
    computes it as :class:`_DDHorner` of its arguments (the coefficients
    made pairs there)."""

    pair_call = _DDHorner
    pair_args = True


def _polynomial(n: Basic) -> Basic | None:
    """``n`` as a :class:`_Polynomial` where it is a sum or product that is a
    polynomial of degree >= 2 of one symbol with two terms or more; else None."""
    if not (n.is_Add or n.is_Mul):
        return None
    syms = n.free_symbols
    if len(syms) != 1:
        return None
    x = next(iter(syms))
    if not isinstance(x, Symbol):
        return None
    if any(a.is_Add and x in a.args and any(t.is_number and t != 0 for t in a.args)
           for a in n.atoms(Add)):
        # a polynomial written about a centre (x - c): its expanded coefficients
        # can be ill-conditioned (compensated Horner's error is about
        # u + cond u**2): a degree-30 series about 1.49 lost 16.8 bits at 2.11
        return None
    try:
        p = Poly(n, x)
    except PolynomialError:
        return None
    coeffs = p.all_coeffs()
    if p.degree() < 2 or sum(1 for c in coeffs if c != 0) < 2 \
            or not all(c.is_number and c.is_real for c in coeffs):
        return None
    return _Polynomial(x, *coeffs)


def polynomials_by_horner(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each polynomial of one symbol (degree 2 or more, two
    terms or more) strictly inside a ``compensated(u)`` as a node computed
    by compensated Horner (``u`` itself, rounded to one float at once, is
    left to the pairs).

    >>> import sympy as sp, symgrad
    >>> x = sp.Symbol("x", real=True)
    >>> u = sp.exp(-sp.sqrt(2) * (x + sp.Rational(44715, 10**6) * x**3))
    >>> polynomials_by_horner([symgrad.compensated(u) + x**2])  # its coefficients, expanded
    [x**2 + compensated(exp(_Polynomial(x, -8943*sqrt(2)/200000, 0, -sqrt(2), 0)))]
    """

    def inside(n: Basic) -> Basic | None:
        if not isinstance(n, compensated):
            return None
        top = n.args[0]

        def swap(m: Basic) -> Basic | None:
            return None if m is top else _polynomial(m)

        return compensated(mapped([top], swap=swap)[0])

    return mapped(roots, swap=inside)
