"""Accurate forms that the rewrites produce, and the nodes that carry them.

Two shapes are recognised in several spellings and then combined further
(``1 - σ(u)`` is ``σ(-u)``; ``log σ(u)`` is ``-softplus(-u)``), so the
rewrites first produce a node for them, :class:`Sigmoid` or
:class:`Softplus`, and the pass ends by expanding each into its accurate
float form (:func:`expand_forms`):

=================  ===================================================
``Sigmoid(u)``     ``where(u >= 0, 1, e)/(1 + e)`` with ``e = exp(-|u|)``
``Softplus(u)``    ``max(u, 0) + log1p(exp(-|u|))``
=================  ===================================================

Both take ``exp`` of a number ≤ 0 only, so nothing overflows, and lose no
tiny value: exact (within 2 ulps) over the whole float range.  The
softplus form is NumPy's own ``logaddexp(0, u)`` algorithm, written out:
as accurate, and five times faster than the ``np.logaddexp`` ufunc.

One node stays in what code generation emits: :class:`erfcx`, the scaled
complementary error function ``exp(u²)·erfc(u)`` (``scipy.special.erfcx``),
which SymPy lacks; the accurate ``erfc`` form of the library is built on it.
"""

from __future__ import annotations

from sympy import Abs, Basic, Function, Max, Piecewise, S, erfc, exp, log, oo, pi, sqrt
from sympy.codegen.cfunctions import log1p

from ..graph import postorder

__all__ = ["Sigmoid", "Softplus", "erfcx", "accurate_sigmoid", "accurate_softplus",
           "expand_forms"]


class Sigmoid(Function):
    """σ(u) = 1/(1 + exp(-u)), produced by the rewrites and expanded by
    :func:`expand_forms` (never seen outside :mod:`symgrad.rewrites`)."""

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_Number:
            return 1 / (1 + exp(-u))
        return None

    def definition(self) -> Basic:
        return 1 / (1 + exp(-self.args[0]))


class Softplus(Function):
    """softplus(u) = log(1 + exp(u)), as :class:`Sigmoid`."""

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_Number:
            return log(1 + exp(u))
        return None

    def definition(self) -> Basic:
        return log(1 + exp(self.args[0]))


class erfcx(Function):  # noqa: N801  (scipy's name; SymPy's functions are lower case)
    """The scaled complementary error function ``exp(u²)·erfc(u)``: about
    ``1/(u√π)`` for large u, where ``erfc(u)`` underflows; code generation
    emits ``scipy.special.erfcx``, the ground truth evaluates it in mpmath.

    >>> from sympy import Symbol, diff
    >>> u = Symbol("u")
    >>> erfcx(0), erfcx(u).rewrite(erfc)
    (1, exp(u**2)*erfc(u))
    >>> diff(erfcx(u), u)
    2*u*erfcx(u) - 2/sqrt(pi)
    """

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_zero:
            return S.One
        if u is oo:
            return S.Zero
        return None

    def fdiff(self, argindex=1):
        u = self.args[0]
        return 2 * u * self - 2 / sqrt(pi)

    def _eval_rewrite_as_erfc(self, u, **kwargs):
        return exp(u**2) * erfc(u)

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_is_positive(self):
        return True if self.args[0].is_real else None

    def _eval_evalf(self, prec):
        return self.rewrite(erfc)._eval_evalf(prec)


def _abs(u: Basic) -> Basic:
    # |u| as written (Abs would split |x*y| into |x|*|y| for real symbols)
    return Abs(-u if u.could_extract_minus_sign() else u, evaluate=False)


def accurate_sigmoid(u: Basic) -> Basic:
    """1/(1 + exp(-u)), exact over the whole float range (real ``u``).

    >>> from sympy import Symbol
    >>> accurate_sigmoid(Symbol("x"))
    Piecewise((1, x >= 0), (exp(-Abs(x)), True))/(1 + exp(-Abs(x)))
    """
    e = exp(-_abs(u))
    return Piecewise((S.One, u >= 0), (e, True)) / (1 + e)


def accurate_softplus(u: Basic) -> Basic:
    """log(1 + exp(u)) without overflow or loss of tiny values (real ``u``).

    >>> from sympy import Symbol
    >>> accurate_softplus(Symbol("x"))
    log1p(exp(-Abs(x))) + Max(0, x)
    """
    return Max(u, S.Zero) + log1p(exp(-_abs(u)))


_ACCURATE = {Sigmoid: accurate_sigmoid, Softplus: accurate_softplus}


def expand_forms(exprs: list[Basic]) -> list[Basic]:
    """``exprs`` with every :class:`Sigmoid` / :class:`Softplus` expanded to
    its accurate form (one bottom-up pass over the DAG, no recursion)."""
    order, kids = postorder(exprs, lambda n: n.args)
    if not any(type(n) in _ACCURATE for n in order):
        return list(exprs)
    new: dict[Basic, Basic] = {}
    for node in order:
        args = kids[node]
        low = tuple(new[a] for a in args)
        if any(a is not b and a != b for a, b in zip(low, args)):
            node2 = node.func(*low)
        else:
            node2 = node
        make = _ACCURATE.get(type(node2))
        new[node] = node2 if make is None else make(*node2.args)
    return [new[r] for r in exprs]
