"""Code for ``exact(p)``: the polynomial ``p`` evaluated as a
floating-point expansion and rounded once (:mod:`symgrad.exact`).

Before emission each ``exact(p)`` becomes one code-only call
``_ex_poly(terms, *inputs)``: ``terms`` are ``p``'s monomials (numerator,
log2 of the dyadic denominator, powers of the inputs), printed as a
literal; the generated module defines the helpers
(:data:`EXPANSION_HELPERS`, from :mod:`symgrad.codegen.expansion_helpers`).
"""

from __future__ import annotations

from sympy import Basic, Integer

from ..build import cancelling, mapped
from ..errors import SymgradError
from ..exact import exact, polynomial_terms, quotient_terms
from ..graph import postorder
from . import expansion_helpers
from .texts import HelperCall, module_text

__all__ = ["expanding", "EXPANSION_HELPERS", "EXPANSION_NAMES", "uses_expansions"]


class _ExPoly(HelperCall):
    """``_ex_poly(terms, *inputs)``: args are the number of inputs g, then
    per term its numerator, log2 of its denominator and g powers (flat
    Integers: the program keeps them literal), then the g inputs."""

    _helper = "_ex_poly"

    def _numpycode(self, printer) -> str:
        g = int(self.args[0])
        terms, inputs = _terms_and_inputs(self.args[1:], g, printer)
        return f"_ex_poly({terms!r}, {inputs})"

    _symgrad_numpycode = _numpycode


class _ExQuot(HelperCall):
    """``_ex_quot(numerator's terms, denominator's terms, *inputs)``: args
    are g, the numerator's count of terms, both polynomials' terms flat (as
    :class:`_ExPoly`), then the g inputs."""

    _helper = "_ex_quot"

    def _numpycode(self, printer) -> str:
        g, k = int(self.args[0]), int(self.args[1])
        terms, inputs = _terms_and_inputs(self.args[2:], g, printer)
        return f"_ex_quot({terms[:k]!r}, {terms[k:]!r}, {inputs})"

    _symgrad_numpycode = _numpycode


def _terms_and_inputs(args: tuple, g: int, printer) -> tuple[tuple, str]:
    """A helper call's flat ``args`` (terms, each a numerator, log2 of its
    denominator and ``g`` powers, then the ``g`` inputs) as the terms'
    tuples and the inputs' printed text."""
    flat = [int(a) for a in args[:-g]]
    terms = tuple((flat[i], flat[i + 1], tuple(flat[i + 2:i + 2 + g]))
                  for i in range(0, len(flat), g + 2))
    return terms, ", ".join(printer._print(a) for a in args[-g:])


def _flat(terms: list) -> list:
    return [Integer(v) for n, d, ks in terms for v in (n, d, *ks)]


def _call(u: Basic) -> Basic:
    try:
        gens, terms = polynomial_terms(u)
    except ValueError as err:
        try:
            gens, num, den = quotient_terms(u)
        except ValueError:  # (the polynomial's reason, and what to do)
            raise SymgradError(
                f"{err}: exact(...) computes polynomials, and quotients of them, in its "
                "symbols with dyadic coefficients; write the formula so, or use "
                "compensated(...) (pairs of floats) for any other formula") from None
        return _ExQuot(Integer(len(gens)), Integer(len(num)), *_flat(num), *_flat(den), *gens)
    return _ExPoly(Integer(len(gens)), *_flat(terms), *gens)


def expanding(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each ``exact(p)`` replaced by the call that computes
    ``p`` as an expansion, or a rational ``p``'s numerator and denominator
    so, divided once (ValueError where ``p`` is neither with dyadic
    coefficients); roots without ``exact`` come back as they are.

    >>> from sympy import symbols
    >>> from symgrad import exact
    >>> x, y = symbols("x y")
    >>> expanding([exact(x**2 - 4*x*y) + 1])
    [_ExPoly(2, 1, 0, 2, 0, -4, 0, 1, 1, x, y) + 1]
    """
    order, _ = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, exact) for n in order):
        return roots
    return mapped(roots, cancelling, swap=lambda n: _call(n.args[0])
                  if isinstance(n, exact) else None)


EXPANSION_NAMES = frozenset({
    "_ex_poly", "_ex_block", "_ex_sum", "_ex_quot", "_ex_scaled", "_ex_two_sum", "_ex_split",
    "_ex_two_prod", "_ex_coefficient",
    "_ex_inputs", "_ex_vecsum", "_ex_round", "_ex_fraction", "_ex_plain", "_ex_to",
    "_EX_BLOCK", "_EX_PASSES", "_EX_MORE", "_EX_U",
})


def uses_expansions(code: str) -> bool:
    """Whether generated code calls the expansion helpers.

    >>> uses_expansions("t0 = _ex_poly(((1, 0, (1, 1)),), a, b)"), uses_expansions("t0 = a*b")
    (True, False)
    """
    return "_ex_poly(" in code or "_ex_quot(" in code


EXPANSION_HELPERS = module_text(expansion_helpers)
