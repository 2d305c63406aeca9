"""Marker nodes: SymPy ``Function`` subclasses that evaluate like what they
wrap and differ only in how they are differentiated.

Every marker says how it *lowers* (what is evaluated in its place) through
``_symgrad_lower(self, *args)``, called with its arguments already lowered;
the lowering pass (:mod:`symgrad.lowering`) knows no marker by name.  Rules
and override maps know a marker by its class name (``stop_gradient``,
``identity``, ``straight_through``), TensorFlow's op names being aliases.

Markers print as what they are (``stop_gradient(x)``), because a gradient
formula that holds one behaves differently under further differentiation
than one that does not; ``symgrad.expand`` shows the lowered formula.
"""

from __future__ import annotations

from mpmath.libmp import prec_to_dps
from sympy import Expr, Function, MatrixBase, NDimArray
from sympy.core.sympify import _sympify

from .errors import describe

__all__ = ["Marker", "is_marker", "stop_gradient", "identity", "straight_through"]


class Marker(Function):
    """Base class of symgrad's marker nodes: lowers to its first argument
    unless a subclass says otherwise."""

    def _symgrad_lower(self, *args: Expr) -> Expr:
        return args[0]

    def _eval_evalf(self, prec):
        return self._symgrad_lower(*self.args).evalf(prec_to_dps(prec))

    def _eval_is_real(self):
        return self._symgrad_lower(*self.args).is_real

    def _eval_is_finite(self):
        return self._symgrad_lower(*self.args).is_finite


def _is_array(v: object) -> bool:
    return isinstance(v, (MatrixBase, NDimArray))


def _entries(a: MatrixBase | NDimArray) -> list:
    """The entries of a Matrix or Array, row-major."""
    return list(a) if isinstance(a, MatrixBase) else list(a.reshape(len(a)))


def is_marker(node: object) -> bool:
    """Whether ``node`` lowers to something else before evaluation."""
    return hasattr(type(node), "_symgrad_lower")


class stop_gradient(Marker):  # noqa: N801  (reads like tf.stop_gradient)
    """Value ``x``, derivative 0 in every mode and at every order
    (``tf.stop_gradient``, ``jax.lax.stop_gradient``).

    >>> from sympy import Symbol
    >>> from symgrad import grad
    >>> x = Symbol("x")
    >>> grad(x * stop_gradient(x), x)
    stop_gradient(x)
    >>> grad(grad(x * stop_gradient(x), x), x)
    0
    """

    nargs = 1

    def __new__(cls, expr, **options):
        if _is_array(expr):  # tf.stop_gradient on a tensor: entry by entry
            return expr.applyfunc(lambda e: cls(e, **options))
        return super().__new__(cls, expr, **options)

    @classmethod
    def eval(cls, x):
        if x.is_Number or isinstance(x, stop_gradient):
            return x
        return None


class identity(Marker):  # noqa: N801  (reads like tf.identity)
    """Value ``x`` and the Identity rule: the usual target of an override.

    ``name`` is accepted for TensorFlow compatibility (``tf.identity(x,
    name=...)``) and, as there, is a label only: override maps key nodes by
    their type, ``identity`` (alias ``"Identity"``).

    >>> from sympy import Symbol
    >>> from symgrad import grad
    >>> x = Symbol("x")
    >>> grad(identity(x**2), x)
    2*x
    """

    nargs = 1

    def __new__(cls, expr, name: str | None = None, **kwargs):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"identity: name must be a string or None, not {name!r}")
        if _is_array(expr):
            return expr.applyfunc(lambda e: cls(e, **kwargs))
        return super().__new__(cls, expr, **kwargs)


class straight_through(Marker):  # noqa: N801
    """Value ``forward``, derivative that of ``backward``: the classic
    straight-through estimator for quantisation.  ``backward`` defaults to
    the forward node's (single) argument, so ``straight_through(floor(x))``
    has value ``floor(x)`` and derivative 1.

    >>> from sympy import Symbol, floor, tanh
    >>> from symgrad import grad
    >>> x = Symbol("x")
    >>> grad(straight_through(floor(x)), x)
    1
    >>> grad(straight_through(floor(x), tanh(x)), x)
    1 - tanh(x)**2
    """

    nargs = 2

    def __new__(cls, forward, backward=None, **kwargs):
        if _is_array(forward):
            if backward is None:
                return forward.applyfunc(lambda f: cls(f, **kwargs))
            if not _is_array(backward) or backward.shape != forward.shape:
                raise TypeError(
                    f"straight_through: backward must have forward's shape {forward.shape}, "
                    f"not {getattr(backward, 'shape', type(backward).__name__)}"
                )
            pairs = zip(_entries(forward), _entries(backward))
            return type(forward)([cls(f, b, **kwargs) for f, b in pairs]).reshape(*forward.shape)
        forward = _sympify(forward)
        if backward is None:
            if len(forward.args) != 1 or not isinstance(forward, Function):
                raise TypeError(
                    f"straight_through({describe(forward)}): the default backward is the forward "
                    "node's single argument, but this node is "
                    f"{type(forward).__name__} with {len(forward.args)} arguments; "
                    "pass backward= explicitly"
                )
            backward = forward.args[0]
        return super().__new__(cls, forward, backward, **kwargs)

