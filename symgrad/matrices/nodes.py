"""Reductions over matrices, as SymPy nodes with their stable forms built in.

``sum``, ``logsumexp`` and ``norm`` over all entries are scalars (``Expr``,
as SymPy's ``Trace`` is); along an axis they are matrices that keep the
reduced dimension (a 1×n row for ``axis=0``, an m×1 column for ``axis=1``:
matrix formulas are two-dimensional, so the result of a reduction along an
axis stays one).  ``softmax`` and ``log_softmax`` keep their argument's
shape.  Each node expands entry by entry with ``doit()`` once its argument
is an explicit Matrix (the oracle of the tests), prints as itself
(``softmax(z)``), and is emitted in its stable form (the maximum taken out
of every exponential; the norm scaled by the largest entry).
"""

from __future__ import annotations

from sympy import (
    Abs,
    Add,
    Basic,
    Eq,
    Expr,
    ImmutableMatrix,
    Integer,
    MatrixBase,
    MatrixExpr,
    Max,
    Piecewise,
    Pow,
    S,
    exp,
    log,
    sqrt,
)
from sympy.codegen.cfunctions import log1p
from sympy.core.sympify import _sympify

from ..compensated import compensated
from ..safe import refuse_string
from .entries import STABLE

__all__ = ["SumAll", "SumAxis", "LogSumExpAll", "LogSumExpAxis", "Softmax", "LogSoftmax",
           "NormAll", "NormAxis", "Reduction", "axis_of"]


def axis_of(node: Basic) -> int | None:
    """The axis a reduction runs along (None: all entries)."""
    return None if len(node.args) < 2 else int(node.args[1])


def _check_matrix(X: object, who: str) -> MatrixExpr:
    refuse_string(X, who, "X")
    X = _sympify(X)
    if isinstance(X, MatrixBase):
        X = ImmutableMatrix(X)
    if not getattr(X, "is_Matrix", False):
        raise TypeError(
            f"symgrad.{who} takes a matrix (a MatrixSymbol, a matrix formula or a Matrix), "
            f"but got {X} ({type(X).__name__}); for scalars write the formula itself"
        )
    return X


def _check_axis(axis: object, who: str) -> Integer | None:
    if axis is None:
        return None
    if axis in (0, 1, -1, -2):
        return Integer(int(axis) % 2)
    raise ValueError(
        f"symgrad.{who}: axis={axis!r} is not None, 0 or 1; matrix formulas have two axes "
        "(0: down the rows, giving a row; 1: across the columns, giving a column)"
    )


def _groups(M: MatrixBase, axis: int | None) -> list[list]:
    """The entries of an explicit matrix, grouped as a reduction sees them."""
    m, n = M.shape
    if axis is None:
        return [[M[i, j] for i in range(m) for j in range(n)]]
    if axis == 0:
        return [[M[i, j] for i in range(m)] for j in range(n)]
    return [[M[i, j] for j in range(n)] for i in range(m)]


def _shift_exp(x: Expr, m: Expr) -> Expr:
    """exp(x - m) in the stable form: computed from the pair d + lo = x - m
    (compensated arithmetic), so the rounding of x - m, which exp amplifies
    into up to |x - m|/2 ulps where logits are hundreds apart, is undone."""
    return compensated(exp(x - m))


def _largest(xs: list) -> Expr:
    """Max(*xs), unevaluated where an entry is a formula: SymPy's Max
    compares every pair of its arguments (factor_terms of their
    differences), which took most of the time of expanding a small
    network's gradient into entries (58 of 78 s); the entries of one
    group are distinct formulas, and the value is the same."""
    if all(x.is_Number for x in xs):
        return Max(*xs)
    return Max(*xs, evaluate=False)


def _rest(xs: list, m: Expr) -> Expr:
    """Σ exp(xₖ - m) - 1 without the rounding of 1 + tiny: the terms at the
    maximum (exactly 1 each) counted apart from the others."""
    top = [Piecewise((1, Eq(x, m)), (0, True)) for x in xs]
    others = [Piecewise((0, Eq(x, m)), (_shift_exp(x, m), True)) for x in xs]
    # kept as (small terms) + (count of maxima - 1): SymPy's order would
    # start the sum with -1 and lose the small terms against it
    return Add(Add(*others), Add(*top, -1), evaluate=False)


def _lse(xs: list) -> Expr:
    if STABLE.get() and len(xs) > 1:  # m + log1p(Σ_{k≠max} exp(xₖ - m))
        m = _largest(xs)
        return m + log1p(_rest(xs, m))
    return log(Add(*[exp(x) for x in xs]))


def _norm(xs: list) -> Expr:
    """sqrt(Σ x²); in the stable form the code computes (STABLE): scaled by
    m, the largest |x|, as m·sqrt(Σ (x/m)²) (0 where m is), so that the
    squares neither overflow nor underflow: the checks measure that, not
    the plain form the code does not compute."""
    if STABLE.get() and len(xs) > 1:
        m = _largest([Abs(x) for x in xs])
        scaled = Add(*[Pow(x / m, 2, evaluate=False) for x in xs])
        return Piecewise((m * sqrt(scaled), m > 0), (0, True))
    return sqrt(Add(*[x**2 for x in xs]))


def _all_explicit(X: MatrixExpr) -> bool:
    """Whether ``X`` holds no matrix symbol (so its entries are its own);
    ``doit`` is the expansion for oracles, not a hot path."""
    from sympy import MatrixSymbol

    return not X.atoms(MatrixSymbol)


class Reduction:
    """Mixin: the node's argument, axis and explicit expansion."""

    @property
    def arg(self) -> MatrixExpr:
        return self.args[0]

    @property
    def axis(self) -> int | None:
        return axis_of(self)

    # -- printing: as the function a user wrote, softmax(z) ---------------
    def _call(self, printer: object, fmt: object) -> str:
        inner = fmt(self.args[0])
        ax = "" if self.axis is None else f", axis={self.axis}"
        return f"{self.who}({inner}{ax})"

    def _sympystr(self, printer: object) -> str:
        return self._call(printer, printer._print)

    def _latex(self, printer: object) -> str:
        name = self.who.replace("_", r"\_")
        ax = "" if self.axis is None else f", \\mathrm{{axis}}={self.axis}"
        return rf"\operatorname{{{name}}}\left({printer._print(self.args[0])}{ax}\right)"

    def _pretty(self, printer: object) -> object:
        from sympy.printing.pretty.stringpict import prettyForm

        arg = printer._print(self.args[0])
        ax = "" if self.axis is None else f", axis={self.axis}"
        inner = prettyForm(*arg.right(ax)) if ax else arg
        return prettyForm(*prettyForm(*inner.parens()).left(self.who))

    def doit(self, **hints: object) -> Basic:
        X = self.args[0]
        if hints.get("deep", True):
            X = X.doit(**hints)
        if not isinstance(X, MatrixBase) and _all_explicit(X):
            X = X.as_explicit()  # c·M with c symbolic stays a MatMul under doit
        if not isinstance(X, MatrixBase):
            return type(self)(X, *self.args[1:]) if X is not self.args[0] else self
        return self._explicit(ImmutableMatrix(X))


class SumAll(Reduction, Expr):
    """The sum of all entries of a matrix (a scalar)."""

    who = "sum"

    def __new__(cls, X: object) -> SumAll:
        return Expr.__new__(cls, _check_matrix(X, "sum"))

    is_commutative = True

    def _explicit(self, M: MatrixBase) -> Expr:
        return Add(*_groups(M, None)[0])


class LogSumExpAll(Reduction, Expr):
    """log Σ exp(xᵢⱼ) over all entries (a scalar); emitted as
    ``m + log Σ exp(xᵢⱼ - m)``, m the largest entry."""

    who = "logsumexp"

    def __new__(cls, X: object) -> LogSumExpAll:
        return Expr.__new__(cls, _check_matrix(X, "logsumexp"))

    is_commutative = True
    is_extended_real = None

    def _explicit(self, M: MatrixBase) -> Expr:
        return _lse(_groups(M, None)[0])


class NormAll(Reduction, Expr):
    """The Euclidean (Frobenius) norm of a matrix (a scalar); emitted
    scaled by the largest magnitude, so it neither overflows nor
    underflows where the norm itself is a float."""

    who = "norm"

    def __new__(cls, X: object) -> NormAll:
        return Expr.__new__(cls, _check_matrix(X, "norm"))

    is_commutative = True
    is_nonnegative = True

    def _explicit(self, M: MatrixBase) -> Expr:
        return _norm(_groups(M, None)[0])


class _AxisReduction(Reduction, MatrixExpr):
    who = "?"

    def __new__(cls, X: object, axis: object) -> _AxisReduction:
        ax = _check_axis(axis, cls.who)
        if ax is None:
            raise ValueError(f"{cls.__name__} needs an axis")
        return MatrixExpr.__new__(cls, _check_matrix(X, cls.who), ax)

    @property
    def shape(self) -> tuple:
        m, n = self.args[0].shape
        return (S.One, n) if self.axis == 0 else (m, S.One)

    def _entry(self, i: object, j: object, **kw: object) -> Expr:
        X = self.args[0]
        m, n = X.shape
        if self.axis == 0:
            return self._reduce([X[k, j] for k in range(m)])
        return self._reduce([X[i, k] for k in range(n)])

    def _explicit(self, M: MatrixBase) -> MatrixBase:
        vals = [self._reduce(g) for g in _groups(M, self.axis)]
        return ImmutableMatrix(vals).T if self.axis == 0 else ImmutableMatrix(vals)


class SumAxis(_AxisReduction):
    """Sums along an axis: a 1×n row of column sums (axis 0), an m×1
    column of row sums (axis 1)."""

    who = "sum"

    def _reduce(self, xs: list) -> Expr:
        return Add(*xs)


class LogSumExpAxis(_AxisReduction):
    """log Σ exp along an axis (a row for axis 0, a column for axis 1)."""

    who = "logsumexp"

    def _reduce(self, xs: list) -> Expr:
        return _lse(xs)


class NormAxis(_AxisReduction):
    """The Euclidean norm of each column (axis 0, a row) or row (axis 1, a
    column); emitted scaled by the largest magnitude of each, as NormAll."""

    who = "norm"

    def _reduce(self, xs: list) -> Expr:
        return _norm(xs)


class _Shaped(Reduction, MatrixExpr):
    """A node of its argument's shape, over all entries or along an axis."""

    who = "?"

    def __new__(cls, X: object, axis: object = None) -> _Shaped:
        ax = _check_axis(axis, cls.who)
        X = _check_matrix(X, cls.who)
        return MatrixExpr.__new__(cls, X) if ax is None else MatrixExpr.__new__(cls, X, ax)

    @property
    def shape(self) -> tuple:
        return self.args[0].shape

    def _entry(self, i: object, j: object, **kw: object) -> Expr:
        X = self.args[0]
        m, n = X.shape
        if self.axis is None:
            group = [X[a, b] for a in range(m) for b in range(n)]
        elif self.axis == 0:
            group = [X[a, j] for a in range(m)]
        else:
            group = [X[i, b] for b in range(n)]
        return self._value(X[i, j], group)

    def _explicit(self, M: MatrixBase) -> MatrixBase:
        return ImmutableMatrix(M.shape[0], M.shape[1], lambda i, j: self._at(M, i, j))

    def _at(self, M: MatrixBase, i: int, j: int) -> Expr:
        m, n = M.shape
        if self.axis is None:
            group = list(M)
        elif self.axis == 0:
            group = [M[a, j] for a in range(m)]
        else:
            group = [M[i, b] for b in range(n)]
        return self._value(M[i, j], group)


class Softmax(_Shaped):
    """exp(xᵢ) / Σ exp(xₖ), over all entries or along an axis; emitted with
    the maximum taken out (no overflow, no 0/0)."""

    who = "softmax"

    def _value(self, x: Expr, group: list) -> Expr:
        if STABLE.get() and len(group) > 1:
            m = _largest(group)
            return _shift_exp(x, m) / Add(*[_shift_exp(g, m) for g in group])
        return exp(x) / Add(*[exp(g) for g in group])


class LogSoftmax(_Shaped):
    """xᵢ - log Σ exp(xₖ), over all entries or along an axis; emitted as
    ``(x - m) - log Σ exp(xₖ - m)``, exact where softmax underflows."""

    who = "log_softmax"

    def _value(self, x: Expr, group: list) -> Expr:
        if STABLE.get() and len(group) > 1:
            m = _largest(group)
            return (x - m) - log1p(_rest(group, m))
        return x - _lse(group)
