"""Building matrix formulas: elementwise application and reductions.

One place for the names (re-exported from :mod:`symgrad`): ``elementwise``,
``sum``, ``mean``, ``logsumexp``, ``softmax``, ``log_softmax``, ``norm``.
``sum`` is named as ``jax.numpy.sum`` is; import it as ``symgrad.sum`` (a
star import of symgrad does not export it, so Python's ``sum`` stays).
An explicit ``Matrix`` argument gives an explicit result, entry by entry.
"""

from __future__ import annotations

from collections.abc import Callable

from sympy import Dummy, Expr, Lambda, MatrixBase, MatrixExpr, S
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

from ..safe import refuse_string
from .nodes import (
    LogSoftmax,
    LogSumExpAll,
    LogSumExpAxis,
    NormAll,
    NormAxis,
    Softmax,
    SumAll,
    SumAxis,
    _check_axis,
    _check_matrix,
)

__all__ = ["elementwise", "sum", "mean", "logsumexp", "softmax", "log_softmax", "norm"]


def _explicit_or(node: Expr, X: object) -> Expr:
    return node.doit() if isinstance(X, MatrixBase) else node


def elementwise(f: Callable, X: MatrixExpr | MatrixBase) -> MatrixExpr | MatrixBase:
    """``f`` applied to every entry of ``X``: any function the rule table
    knows (``tanh``, ``exp``, ``floor``, ``sigmoid``, ``relu``), a
    custom-gradient function, or a Python function of one scalar.  The same
    as SymPy's ``X.applyfunc(f)``; its gradient is ``Ḡ ⊙ f'(X)``, with
    ``f'`` from the rule table (overrides and custom rules included).

    >>> from sympy import MatrixSymbol, tanh
    >>> X = MatrixSymbol("X", 3, 2)
    >>> elementwise(tanh, X) == elementwise(tanh, X)  # built once, shared
    True
    >>> elementwise(tanh, X).dummy_eq(X.applyfunc(tanh))
    True
    >>> elementwise(tanh, X).shape
    (3, 2)
    """
    refuse_string(f, "elementwise", "f")
    refuse_string(X, "elementwise", "X")
    if not callable(f):
        raise TypeError(f"symgrad.elementwise takes a function first, but got {f!r}")
    X = _check_matrix(X, "elementwise")
    if isinstance(X, MatrixBase):
        return X.applyfunc(f)
    # SymPy's applyfunc takes a new dummy each time, so two tanh(X) built
    # apart are not equal (nor shared in the DAG): one dummy for all
    body = f(_ENTRY)
    if isinstance(body, MatrixBase) or getattr(body, "is_Matrix", False):
        raise TypeError(f"symgrad.elementwise: {f!r} returns a matrix for a scalar entry; "
                        "it must map a scalar to a scalar")
    return ElementwiseApplyFunction(Lambda(_ENTRY, body), X)


_ENTRY = Dummy("x")


def sum(X: MatrixExpr | MatrixBase, axis: int | None = None) -> Expr:  # noqa: A001
    """The sum of the entries of ``X`` (a scalar), or along ``axis`` (0:
    a row of column sums; 1: a column of row sums).

    >>> from sympy import MatrixSymbol
    >>> X = MatrixSymbol("X", 3, 2)
    >>> sum(X), sum(X, axis=0).shape
    (sum(X), (1, 2))
    """
    ax = _check_axis(axis, "sum")
    node = SumAll(X) if ax is None else SumAxis(X, ax)
    return _explicit_or(node, X)


def mean(X: MatrixExpr | MatrixBase, axis: int | None = None) -> Expr:
    """The mean of the entries of ``X``, or along ``axis``.

    >>> from sympy import MatrixSymbol
    >>> mean(MatrixSymbol("X", 4, 1))
    sum(X)/4
    """
    M = _check_matrix(X, "mean")
    m, n = M.shape
    ax = _check_axis(axis, "mean")
    count = m * n if ax is None else (m if ax == 0 else n)
    return S.One / count * sum(X, axis)


def logsumexp(X: MatrixExpr | MatrixBase, axis: int | None = None) -> Expr:
    """log Σ exp over the entries of ``X`` (a scalar) or along ``axis``;
    evaluated with the maximum taken out, so it is accurate over the whole
    float range.  Its gradient is ``softmax(X)``.

    >>> from sympy import MatrixSymbol
    >>> logsumexp(MatrixSymbol("z", 10, 1))
    logsumexp(z)
    """
    ax = _check_axis(axis, "logsumexp")
    node = LogSumExpAll(X) if ax is None else LogSumExpAxis(X, ax)
    return _explicit_or(node, X)


def softmax(X: MatrixExpr | MatrixBase, axis: int | None = None) -> MatrixExpr:
    """exp(xᵢ)/Σₖ exp(xₖ) over all entries of ``X`` or along ``axis``
    (``axis=1``: each row of a batch of logits), of ``X``'s shape;
    evaluated with the maximum taken out.

    >>> from sympy import MatrixSymbol
    >>> softmax(MatrixSymbol("Z", 5, 10), axis=1).shape
    (5, 10)
    """
    return _explicit_or(Softmax(X, axis), X)


def log_softmax(X: MatrixExpr | MatrixBase, axis: int | None = None) -> MatrixExpr:
    """xᵢ - log Σₖ exp(xₖ) over all entries of ``X`` or along ``axis``;
    evaluated as ``(x - m) - log Σ exp(xₖ - m)``.

    >>> from sympy import MatrixSymbol
    >>> log_softmax(MatrixSymbol("z", 10, 1))
    log_softmax(z)
    """
    return _explicit_or(LogSoftmax(X, axis), X)


def norm(X: MatrixExpr | MatrixBase, axis: int | None = None) -> Expr:
    """The Euclidean norm of ``X``'s entries (Frobenius for a matrix), or
    of each column (axis 0) or row (axis 1); evaluated scaled by the
    largest magnitude (no overflow or underflow of the squares).

    >>> from sympy import MatrixSymbol
    >>> norm(MatrixSymbol("x", 3, 1))
    norm(x)
    """
    ax = _check_axis(axis, "norm")
    if ax is None:
        return _explicit_or(NormAll(X), X)
    return _explicit_or(NormAxis(X, ax), X)
