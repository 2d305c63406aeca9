"""What generated JAX code guards against XLA's own rewrites of its floats
under ``jax.jit`` (measured with jax 0.10.2 on CPU; docs/export.md):

* its algebraic simplifier writes ``exp(a) * exp(b)`` as ``exp(a + b)``,
  which undoes an exponent split exactly in two (:func:`exps_kept_apart`);
* at its default optimization level it fuses a product into the sum that
  reads it (one fused multiply-add), which turns an exact cancellation of
  two equal roundings (``x*x - y*y`` at ``x = y``: 0 in NumPy) into the
  rounding error of one, of either sign (``sqrt`` of it NaN)
  (:func:`products_kept_rounded`).

The pairs of floats of ``compensated(u)`` are guarded in their helpers
(:mod:`symgrad.export.source`'s JAX text).
"""

from __future__ import annotations

from collections.abc import Mapping

from sympy import Add, Basic, Mul, Pow, Rational, exp

from ..codegen.texts import HelperCall

__all__ = ["exps_kept_apart", "products_kept_rounded"]


class _Kept(HelperCall):
    """``_jg.kept(u)``: ``u`` behind an optimization barrier (JAX)."""

    _helper = "_jg.kept"


def exps_kept_apart(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each exponential after the first among a product's
    factors behind :func:`symgrad.export.jax_ops.kept`: XLA's algebraic
    simplifier rewrites ``exp(a) * exp(b)`` as ``exp(a + b)``, whose
    rounded exponent undoes the exact splits of stabilized forms
    (``exp(-x**2/2)`` as ``exp(-k**2/8192) * exp(-l**2/2 - l k/64)``).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> exps_kept_apart([sp.exp(x) * sp.exp(-x**2) * x])
    [x*_Kept(exp(-x**2))*exp(x)]
    """
    from ..build import mapped

    def apart(n: Basic) -> Basic:
        if not isinstance(n, Mul):
            return n
        es = [a for a in n.args if isinstance(a, exp)]
        if len(es) < 2:
            return n
        rest = [a for a in n.args if not isinstance(a, exp)]
        return Mul(*rest, es[0], *[_Kept(e) for e in es[1:]], evaluate=False)

    return mapped(roots, after=apart)  # (each node itself where none is a product of exps)


class _Rounded(HelperCall):
    """``_jg.rounded(u)``: the product ``u`` as the float it rounds to (JAX)."""

    _helper = "_jg.rounded"


def products_kept_rounded(roots: list[Basic], domain: Mapping | None = None) -> list[Basic]:
    """``roots`` with the rounded products of a sum of two or more of them
    that may cancel (terms not all of one sign over ``domain``) read through
    :func:`symgrad.export.jax_ops.rounded`: XLA fuses a product into the sum
    that reads it (``fma(x, x, -y*y)``), which rounds once where NumPy's code
    rounds twice, and where two equal roundings cancelled exactly (``x*x -
    y*y`` at ``x = y``) leaves one of them, of either sign.  A sum of one
    rounded product and other terms (``c + a*b``, a polynomial's Horner
    step) fused is rounded once and exactly: 0 where it is 0, never less
    accurate; terms of one sign do not cancel; a product that is exact or
    ends in a division (a power of two times one factor, ``a/b``) has
    nothing to fuse: all left as they are.

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> products_kept_rounded([x*x - y*y + 2*x + x/y, x*x + 3*y*y, 3*x*y - 1])
    [2*x + x/y + _Rounded(x**2) + _Rounded(-y**2), x**2 + 3*y**2, 3*x*y - 1]
    """
    from ..build import mapped
    from ..rewrites.facts import Facts

    facts = Facts(domain)

    def one_sign(n: Basic) -> bool:
        bounds = [facts.bound(t) for t in n.args]
        return all(b is not None and b[0] >= 0 for b in bounds) \
            or all(b is not None and b[1] <= 0 for b in bounds)

    def kept(n: Basic) -> Basic:
        if not isinstance(n, Add) or sum(map(_fused, n.args)) < 2 or one_sign(n):
            return n
        return Add(*[_Rounded(t) if _fused(t) else t for t in n.args], evaluate=False)

    return mapped(roots, after=kept)


def _fused(t: Basic) -> bool:
    """Whether ``t``, a term of a sum, ends in a rounded multiplication XLA
    may fuse into the sum: two factors or more (``a*b``, ``a*(f/r)``), a
    square or higher power, or one factor times a coefficient that is not
    a power of two; not ``a/b`` or ``2*a/b``, whose last operation is the
    division."""
    if isinstance(t, Pow):
        return bool(t.exp.is_Integer and t.exp > 1)
    if not isinstance(t, Mul):
        return False
    coeff, rest = t.as_coeff_Mul()
    factors = Mul.make_args(rest)
    top = [f for f in factors if not (isinstance(f, Pow) and f.exp.is_negative)]
    if len(top) > 1 or not _power_of_two(coeff):
        return bool(top)
    return len(top) == len(factors) == 1 and _fused(top[0])  # -x**2; not x**2/y


def _power_of_two(c: Basic) -> bool:
    """Whether the number ``c`` is 0 or plus or minus a power of two (a
    product by it is exact)."""
    q = Rational(c)  # a float's exact value
    p, d = abs(q.p), q.q
    return not (p & (p - 1) or d & (d - 1))
