"""Functions symgrad adds to SymPy's, for nodes that SymPy has no class for.

``rint`` is round-half-to-even, the rounding of ``numpy.rint``, ``tf.round`` and
``jnp.round``; SymPy has no symbolic rounding node.
"""

from __future__ import annotations

from sympy import Dummy, Function, Integer, Max, Min, Number, Rational, exp, floor, log
from sympy.core.function import ArgumentIndexError

from .nodes import Marker
from .safe import StrictArgs

__all__ = ["rint", "sigmoid", "softplus", "relu", "maximum", "minimum"]


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


# ---- binary extrema that keep the argument order: tf.maximum, tf.minimum --


class _Extremum(Marker):
    """A binary Max/Min that keeps its arguments in the order given (SymPy
    sorts a ``Max``'s), so ``ties="first"`` means the first as written."""

    nargs = 2
    _symgrad_argnames = ("x", "y")
    _extremum: type = Max

    @classmethod
    def eval(cls, x, y):
        if x.is_Number and y.is_Number:
            return cls._extremum(x, y)
        return None

    def _symgrad_lower(self, x, y):
        return self._extremum(x, y)

    def fdiff(self, argindex=1):
        """SymPy's derivative of Max/Min in that argument (the
        ``"distribution"`` convention)."""
        if argindex not in (1, 2):
            raise ArgumentIndexError(self, argindex)
        d = Dummy("t", real=True)
        args = list(self.args)
        args[argindex - 1] = d
        return self._extremum(*args).diff(d).subs(d, self.args[argindex - 1])


class maximum(_Extremum):  # noqa: N801  (reads like tf.maximum)
    """The larger of ``x`` and ``y`` (``tf.maximum``); its value is ``Max(x,
    y)``, but the arguments stay in the order given: at a tie,
    ``ties="first"`` sends the gradient to ``x``, as TensorFlow does
    (``ties="split"``, the default, shares it, as JAX does).

    >>> from sympy import Symbol
    >>> from symgrad import grad
    >>> x = Symbol("x")
    >>> maximum(x, 3), maximum(2, 3)
    (maximum(x, 3), 3)
    >>> grad(maximum(x, 3), x, ties="first").subs(x, 3)
    1
    """

    _extremum = Max


class minimum(_Extremum):  # noqa: N801  (reads like tf.minimum)
    """The smaller of ``x`` and ``y`` (``tf.minimum``), its arguments in
    the order given (see :class:`maximum`).

    >>> from sympy import Symbol
    >>> from symgrad import grad
    >>> x = Symbol("x")
    >>> minimum(x, 3), minimum(2, 3)
    (minimum(x, 3), 2)
    >>> grad(minimum(x, 3), x, ties="first").subs(x, 3)
    1
    """

    _extremum = Min
