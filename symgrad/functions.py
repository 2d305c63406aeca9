"""Functions symgrad adds to SymPy's, for nodes that SymPy has no class for.

``rint`` is round-half-to-even, the rounding of ``numpy.rint``, ``tf.round`` and
``jnp.round``; SymPy has no symbolic rounding node.
"""

from __future__ import annotations

from sympy import Function, Integer, Max, Number, Rational, exp, floor, log
from sympy.core.function import ArgumentIndexError

from .nodes import Marker
from .safe import StrictArgs

__all__ = ["rint", "sigmoid", "softplus", "relu"]


class rint(StrictArgs, Function):  # noqa: N801  (SymPy's own functions are lower case)
    """Round to the nearest integer, halves to even (``numpy.rint``).

    >>> from sympy import Rational, Symbol
    >>> rint(Rational(5, 2)), rint(Rational(7, 2)), rint(-2.6)
    (2, 4, -3)
    >>> rint(Symbol("x"))
    rint(x)
    """

    nargs = 1
    _symgrad_argnames = ("x",)

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


# ---- activation functions: TensorFlow's Sigmoid, Softplus, Relu ----------


class sigmoid(Marker):  # noqa: N801
    """The logistic function ``1/(1 + exp(-x))`` (``tf.sigmoid``).

    >>> from sympy import Symbol
    >>> from symgrad import expand
    >>> sigmoid(0), expand(sigmoid(Symbol("x")))
    (1/2, 1/(1 + exp(-x)))
    """

    nargs = 1
    _symgrad_argnames = ("x",)

    @classmethod
    def eval(cls, x):
        if x.is_Number:
            return 1 / (1 + exp(-x))
        return None

    def _symgrad_lower(self, x):
        return 1 / (1 + exp(-x))


class softplus(Marker):  # noqa: N801
    """``log(1 + exp(x))`` (``tf.math.softplus``).

    >>> from sympy import Symbol
    >>> from symgrad import expand
    >>> softplus(0), expand(softplus(Symbol("x")))
    (log(2), log(exp(x) + 1))
    """

    nargs = 1
    _symgrad_argnames = ("x",)

    @classmethod
    def eval(cls, x):
        if x.is_Number:
            return log(1 + exp(x))
        return None

    def _symgrad_lower(self, x):
        return log(1 + exp(x))


class relu(Marker):  # noqa: N801
    """``max(x, 0)`` (``tf.nn.relu``); its gradient at 0 is 0, as in
    TensorFlow, JAX and PyTorch.

    >>> from sympy import Symbol
    >>> from symgrad import expand
    >>> relu(-2), relu(3), expand(relu(Symbol("x")))
    (0, 3, Max(0, x))
    """

    nargs = 1
    _symgrad_argnames = ("x",)

    @classmethod
    def eval(cls, x):
        if x.is_Number:
            return Max(x, 0)
        return None

    def _symgrad_lower(self, x):
        return Max(x, 0)


