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
from sympy import Expr, Function, MatrixBase, MatrixExpr, NDimArray, Tuple

from .errors import describe
from .notation import latex_call, pretty_call
from .safe import StrictArgs, strict

__all__ = ["Marker", "is_marker", "stop_gradient", "identity", "straight_through"]


class Marker(StrictArgs, Function):
    """Base class of symgrad's marker nodes: lowers to its first argument
    unless a subclass says otherwise.  Arguments are taken strictly: a
    string is refused, never evaluated, and each must be an expression."""

    _symgrad_expr_only = True

    def _symgrad_lower(self, *args: Expr) -> Expr:
        return args[0]

    def _eval_evalf(self, prec):
        return self._symgrad_lower(*self.args).evalf(prec_to_dps(prec))

    def _eval_is_real(self):
        return self._symgrad_lower(*self.args).is_real

    def _eval_is_finite(self):
        return self._symgrad_lower(*self.args).is_finite

    # the name as written (SymPy reads stop_gradient as stop with a subscript)
    def _latex(self, printer, exp=None):
        return latex_call(printer, type(self).__name__, self.args, exp)

    def _pretty(self, printer, **kwargs):
        return pretty_call(printer, type(self).__name__, self.args)


def _is_array(v: object) -> bool:
    return isinstance(v, (MatrixBase, NDimArray))


def _entries(a: MatrixBase | NDimArray) -> list:
    """The entries of a Matrix or Array, row-major."""
    return list(a) if isinstance(a, MatrixBase) else list(a.reshape(len(a)))


def _check_label(cls: type, name: object) -> None:
    """TensorFlow's ``name=``: a label only, as ``tf.identity``'s is to
    override maps (they key nodes by type)."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"{cls.__name__}: name must be a string or None, not {name!r}")


def _leafwise(cls: type, value: object, options: dict) -> object | None:
    """``cls`` applied entry by entry to a Matrix or Array (a tensor) and
    leaf by leaf to a list, tuple or dict (a pytree, as JAX maps
    ``stop_gradient``); None for a single value."""
    if _is_array(value):
        return value.applyfunc(lambda e: cls(e, **options))
    if isinstance(value, MatrixExpr):  # a matrix formula: the marker on every entry
        from .matrices.build import elementwise

        return elementwise(lambda e: cls(e, **options), value)
    if isinstance(value, (list, tuple, Tuple)):
        items = [cls(v, **options) for v in value]
        if isinstance(value, Tuple):
            return Tuple(*items)
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return {k: cls(v, **options) for k, v in value.items()}
    return None


class _Unary(Marker):
    """A one-argument marker as TensorFlow's ops take it: entry by entry over
    a Matrix, Array, list, tuple or dict, with ``name=`` as a label."""

    def __new__(cls, expr, name: str | None = None, **options):
        _check_label(cls, name)
        mapped = _leafwise(cls, expr, options)
        if mapped is not None:
            return mapped
        return super().__new__(cls, expr, **options)


def is_marker(node: object) -> bool:
    """Whether ``node`` lowers to something else before evaluation."""
    return hasattr(type(node), "_symgrad_lower")


class stop_gradient(_Unary):  # noqa: N801  (reads like tf.stop_gradient)
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
    _symgrad_argnames = ("x",)

    @classmethod
    def eval(cls, x):
        if x.is_Number or isinstance(x, stop_gradient):
            return x
        return None


class identity(_Unary):  # noqa: N801  (reads like tf.identity)
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
    _symgrad_argnames = ("x",)

    @classmethod
    def eval(cls, x):
        # A number has no gradient to route: identity(1) is 1, so a
        # substituted formula decides its conditions (identity(1) > 1).
        return x if x.is_Number else None


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
    _symgrad_argnames = ("forward", "backward")

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
        forward = strict(forward, cls.__name__, "forward")
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

    @classmethod
    def eval(cls, forward, backward):
        # numbers both: nothing to differentiate, the value is forward's
        return forward if forward.is_Number and backward.is_Number else None

