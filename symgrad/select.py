"""``where`` and ``cond``: TensorFlow's ``tf.where``/``Select`` and
``tf.cond`` as SymPy ``Piecewise``.

The cotangent reaches ``a`` where the condition holds and ``b`` elsewhere;
the condition gets none.  The gradient is distributed into the branches, so
a NaN or infinity of the branch not taken never leaks into it: the most
reported problem with ``tf.where``/``jnp.where`` gradients.
"""

from __future__ import annotations

from collections.abc import Callable

from sympy import Basic, Expr, MatrixBase, NDimArray, Tuple
from sympy.logic.boolalg import Boolean, BooleanFalse, BooleanTrue

from .build import piecewise
from .errors import SymgradError
from .safe import refuse_string, strict

__all__ = ["where", "cond"]


def _condition(c: object, who: str) -> Boolean | bool:
    refuse_string(c, who, "the condition")
    if isinstance(c, bool):
        return c
    if isinstance(c, (BooleanTrue, BooleanFalse)):
        return bool(c)
    if not isinstance(c, Boolean) or (isinstance(c, Expr) and c.is_extended_real):
        raise SymgradError(
            f"{who}: the condition must be a SymPy relational or boolean (x > 0, "
            f"And(x > 0, y < 1), ...), not {c!r} ({type(c).__name__})"
        )
    return c


def _expr(v: object, who: str, what: str) -> Expr:
    return strict(v, who, what)


def where(cond: Boolean | bool, a: Expr, b: Expr) -> Expr:
    """``a`` where ``cond`` holds, ``b`` elsewhere (``tf.where``).  On a
    Matrix or Array (condition or branches) it selects entry by entry, a
    scalar standing for every entry.

    >>> import sympy as sp
    >>> from symgrad import grad, lambdify
    >>> x = sp.Symbol("x", real=True)
    >>> e = where(x > 0, sp.sqrt(x), 0)
    >>> e
    Piecewise((sqrt(x), x > 0), (0, True))
    >>> g = grad(e, x)
    >>> float(lambdify([x], g)(-1.0))
    0.0
    """
    return _select(cond, a, b, "where", ("a", "b"))


def cond(pred: Boolean | bool, a: Expr | Callable[[], Expr],
         b: Expr | Callable[[], Expr]) -> Expr:
    """``a`` if ``pred`` holds, else ``b`` (``tf.cond``); each branch may be
    an expression or, as ``tf.cond``'s ``true_fn``/``false_fn``, a function
    of no arguments.

    >>> import sympy as sp
    >>> from symgrad import grad
    >>> x = sp.Symbol("x", real=True)
    >>> grad(cond(x < 1, lambda: x**2, lambda: 2 * x), x)
    Piecewise((2*x, x < 1), (2, True))

    Branches that return tuples (or lists, or dicts) of the same structure
    are selected entry by entry:

    >>> cond(x < 1, lambda: (x, 1), lambda: (0, x))
    (Piecewise((x, x < 1), (0, True)), Piecewise((1, x < 1), (x, True)))
    """
    a = a() if callable(a) and not isinstance(a, Basic) else a
    b = b() if callable(b) and not isinstance(b, Basic) else b
    return _select(pred, a, b, "cond", ("a", "b"))


def _nested(v: object) -> bool:
    return isinstance(v, (list, tuple, Tuple, dict))


def _select_nested(c: object, a: object, b: object, who: str, names: tuple[str, str]) -> object:
    """Branches that are tuples, lists or dicts (``tf.cond``'s nested
    outputs): selected entry by entry; both must have the same structure."""
    def shape(v: object) -> str:
        if isinstance(v, dict):
            return f"a dict with keys {sorted(map(str, v))}"
        if _nested(v):
            return f"a {type(v).__name__} of {len(v)}"
        return "a single value"

    same = type(a) is type(b) or (_nested(a) and _nested(b) and not isinstance(a, dict)
                                  and not isinstance(b, dict))
    if isinstance(a, dict) and isinstance(b, dict):
        same = a.keys() == b.keys()
    elif same:
        same = len(a) == len(b)
    if not same:
        raise SymgradError(
            f"{who}: {names[0]} is {shape(a)} but {names[1]} is {shape(b)}; both branches "
            "must have the same structure (as tf.cond requires), and are then selected "
            "entry by entry"
        )
    if isinstance(a, dict):
        return {k: _select(c, a[k], b[k], who, (f"{names[0]}[{k!r}]", f"{names[1]}[{k!r}]"))
                for k in a}
    items = [_select(c, u, v, who, (f"{names[0]}[{i}]", f"{names[1]}[{i}]"))
             for i, (u, v) in enumerate(zip(a, b))]
    if isinstance(a, Tuple):
        return tuple(items)
    return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)


def _select(c: object, a: object, b: object, who: str, names: tuple[str, str]) -> Expr:
    if _nested(a) or _nested(b):
        return _select_nested(c, a, b, who, names)
    arrays = [v for v in (c, a, b) if isinstance(v, (MatrixBase, NDimArray))]
    if arrays:  # tf.where on tensors: entry by entry, a scalar broadcast
        shape = tuple(arrays[0].shape)
        if any(tuple(v.shape) != shape for v in arrays):
            raise SymgradError(
                f"{who}: the condition and branches have shapes "
                f"{[tuple(getattr(v, 'shape', ())) for v in (c, a, b)]}; give one shape "
                "(or a scalar, used for every entry)"
            )

        def entries(v: object) -> list:
            if isinstance(v, MatrixBase):
                return list(v)
            if isinstance(v, NDimArray):
                return list(v.reshape(len(v)))
            return [v] * len(arrays[0])

        flat = [_select(*t, who, names) for t in zip(entries(c), entries(a), entries(b))]
        return type(arrays[0])(flat).reshape(*shape)
    c = _condition(c, who)
    a, b = _expr(a, who, names[0]), _expr(b, who, names[1])
    if c is True:
        return a
    if c is False:
        return b
    return piecewise([(a, c), (b, True)])
