"""Functions symgrad adds to SymPy's, for nodes that SymPy has no class for.

``rint`` is round-half-to-even, the rounding of ``numpy.rint``, ``tf.round`` and
``jnp.round``; SymPy has no symbolic rounding node.
"""

from __future__ import annotations

from sympy import Function, Integer, Number, Rational, floor
from sympy.core.function import ArgumentIndexError

__all__ = ["rint"]


class rint(Function):  # noqa: N801  (SymPy's own functions are lower case)
    """Round to the nearest integer, halves to even (``numpy.rint``).

    >>> from sympy import Rational, Symbol
    >>> rint(Rational(5, 2)), rint(Rational(7, 2)), rint(-2.6)
    (2, 4, -3)
    >>> rint(Symbol("x"))
    rint(x)
    """

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x.is_integer:
            return x
        if isinstance(x, Number) and x.is_finite:
            q = Rational(x)
            lower = floor(q)
            diff = q - lower
            if diff > Rational(1, 2) or (diff == Rational(1, 2) and lower % 2 == 1):
                return Integer(lower + 1)
            return Integer(lower)
        return None

    def fdiff(self, argindex=1):
        if argindex != 1:
            raise ArgumentIndexError(self, argindex)
        return Integer(0)

    def _eval_is_integer(self):
        return self.args[0].is_finite

    def _eval_is_real(self):
        return self.args[0].is_real
