"""jvp, vjp, jacobian and hessian where matrix symbols are differentiated,
with JAX's shapes: a tangent has its variable's shape, a jvp its output's,
a vjp its variable's; a Jacobian is ``output.shape + variable.shape`` (an
Array; a scalar output gives the gradient, a matrix formula), a Hessian
``W.shape + W.shape``.  The walker is the scalar one; matrix rules give
matrix formulas (:mod:`symgrad.matrices.rules`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

from sympy import (
    Basic,
    Expr,
    Identity,
    ImmutableMatrix,
    Lambda,
    MatrixBase,
    MatrixExpr,
    MatrixSymbol,
    OneMatrix,
    S,
    ZeroMatrix,
)
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
from sympy.matrices.expressions.matexpr import MatrixElement
from sympy.tensor.array import ImmutableDenseNDimArray

from .build import mapped
from .errors import ShapeError
from .graph import postorder
from .matrices.wrt import as_scalar, assemble, entries_of, rolled, zero_like
from .rules import Opts
from .walker import forward, reverse

__all__ = ["has_matrix", "matrix_jvp", "matrix_vjp", "matrix_jacobian", "matrix_hessian",
           "tree_jacobian", "map_scalar_parts"]


def has_matrix(*flats: list) -> bool:
    """Whether any of the flat lists holds a matrix symbol or formula."""
    return any(isinstance(v, MatrixExpr) for f in flats for v in f)


def _shape(v: Expr) -> tuple:
    return tuple(v.shape) if getattr(v, "is_Matrix", False) else ()


def _check(vs: list, of: list, what: str, of_what: str) -> None:
    for i, (v, o) in enumerate(zip(vs, of)):
        if _shape(v) != _shape(o):
            raise ShapeError(f"{what}[{i}] has shape {_shape(v)} but {of_what}[{i}] ({o}) "
                             f"has shape {_shape(o)}; give one of the same shape")


def _zero_of(e: Expr) -> Expr:
    return ZeroMatrix(*e.shape) if getattr(e, "is_Matrix", False) else S.Zero


def matrix_jvp(outs: list, syms: list, ts: list, opts: Opts) -> list:
    """The tangent of each output (JAX's ``jvp`` output tangents)."""
    _check(ts, syms, "tangents", "wrt")
    mats = [s for s in syms if isinstance(s, MatrixSymbol)]
    outs = rolled(outs, mats)  # SymPy's expanded entries, back as matrix formulas
    seeds: dict = {}
    for s, t in zip(syms, ts):
        seeds[s] = t if s not in seeds else seeds[s] + t
    for e in entries_of(outs, mats):  # entries held one by one: their tangents' entries
        seeds[e] = _entry(seeds[e.args[0]], int(e.args[1]), int(e.args[2]))
    res = forward(outs, seeds, opts)
    return [_zero_of(o) if r is None else r for o, r in zip(outs, res)]


def matrix_vjp(outs: list, syms: list, cts: list, opts: Opts) -> list:
    """uᵀ·J for each variable, in its shape."""
    _check(cts, outs, "cotangents", "exprs")
    mats = [s for s in syms if isinstance(s, MatrixSymbol)]
    outs = rolled(outs, mats)
    got = reverse(outs, cts, [*syms, *entries_of(outs, mats)], opts)
    for W in mats:
        g = assemble(W, got)
        if g is not None:
            got[W] = g
    return [got.get(s, zero_like(s)) for s in syms]


def _entries(v: Expr) -> list:
    """The entries of a matrix formula, each ``v[i, j]`` left unexpanded
    (SymPy's entry of a product expands, slowly) except through what makes
    it short: explicit factors (a unit cotangent), sums, transposes and
    products along a dimension of 1 (see :func:`_entry`); ``doit()``
    expands."""
    if isinstance(v, MatrixBase):
        return list(v)
    if getattr(v, "is_Matrix", False):
        order, _ = postorder([v], lambda n: () if isinstance(n, MatrixSymbol) else n.args)
        if not any(isinstance(n, MatrixSymbol) for n in order):  # constant: its numbers
            return list(v.as_explicit())
        m, n = v.shape
        return [_short_sums(_entry(v, i, j)) for i, j in product(range(m), range(n))]
    return [v]


def _sparse(v: Expr) -> bool:
    """An explicit matrix, or an entrywise product by one (zero where it is)."""
    from sympy import HadamardProduct

    return isinstance(v, MatrixBase) or (
        isinstance(v, HadamardProduct) and any(isinstance(a, MatrixBase) for a in v.args))


def _zero_at(v: Expr, i: int, j: int) -> bool:
    """Whether v[i, j] is 0 by v's explicit part (see _sparse)."""
    from sympy import HadamardProduct

    if isinstance(v, MatrixBase):
        return v[i, j] == 0
    return isinstance(v, HadamardProduct) and any(
        isinstance(a, MatrixBase) and a[i, j] == 0 for a in v.args)


def _short_sums(e: Expr) -> Expr:
    """``e`` with each sum over an entrywise product by an explicit matrix
    (``sum(E ⊙ X)``, where a unit cotangent meets a reduction's rule) as the
    sum over E's nonzero entries (``X[0, 0]``)."""
    from sympy import Add, HadamardProduct

    from .build import replaced
    from .matrices.nodes import SumAll

    def swap(n: Basic) -> Expr | None:
        if not (isinstance(n, SumAll) and isinstance(n.args[0], HadamardProduct)):
            return None
        H = n.args[0]
        if not any(isinstance(a, MatrixBase) for a in H.args):
            return None
        m, k = (int(d) for d in H.shape)
        return Add(*[_entry(H, i, j) for i, j in product(range(m), range(k))])

    return replaced(e, swap) if isinstance(e, Basic) else e


def _entry(v: Expr, i: int, j: int) -> Expr:
    """``v[i, j]`` as the entries of its parts where that is short: an
    explicit matrix's or a symbol's own entry, the entries of a sum, of a
    transpose, of an entrywise product, of a product along a dimension of 1
    (``(u·xᵀ)[i, j] = u[i, 0]·x[j, 0]``) or beside an explicit factor (a sum
    over its nonzero entries); else ``MatrixElement(v, i, j)``.  A Jacobian
    by unit cotangents was ``(Matrix([[1], [0], [0]])*x.T)[0, 1]`` for
    ``x[1, 0]``."""
    from sympy import Add, HadamardProduct, MatAdd, MatMul, Mul, Transpose

    if isinstance(v, (MatrixBase, MatrixSymbol)):
        return v[i, j]
    if isinstance(v, ZeroMatrix):
        return S.Zero
    if isinstance(v, OneMatrix):
        return S.One
    if isinstance(v, Identity):
        return S.One if i == j else S.Zero
    if isinstance(v, Transpose):
        return _entry(v.arg, j, i)
    if isinstance(v, MatAdd):
        return Add(*[_entry(a, i, j) for a in v.args])
    if isinstance(v, HadamardProduct):
        if _zero_at(v, i, j):
            return S.Zero
        return Mul(*[_entry(a, i, j) for a in v.args])
    if isinstance(v, MatMul):
        c = Mul(*[a for a in v.args if not getattr(a, "is_Matrix", False)])
        mats = [a for a in v.args if getattr(a, "is_Matrix", False)]
        if len(mats) == 1:
            return c * _entry(mats[0], i, j)
        # split where the entry is short: beside an explicit end factor, or
        # where the inner dimension is 1
        if _sparse(mats[-1]) and not _sparse(mats[0]):
            cut = len(mats) - 1
        else:
            cut = next((p for p in range(1, len(mats)) if int(mats[p].shape[0]) == 1), 1)
        left = mats[0] if cut == 1 else MatMul(*mats[:cut])
        right = mats[cut] if cut == len(mats) - 1 else MatMul(*mats[cut:])
        k = int(left.shape[1])
        if k == 1 or _sparse(left) or _sparse(right):
            terms = [_entry(left, i, m) * _entry(right, m, j) for m in range(k)
                     if not (_zero_at(left, i, m) or _zero_at(right, m, j))]
            return c * Add(*terms)
    return MatrixElement(v, i, j)


def _units(shape: tuple) -> list:
    """The unit cotangents of a matrix (or 1 for a scalar), row-major."""
    if not shape:
        return [S.One]
    m, n = shape
    out = []
    for i, j in product(range(m), range(n)):
        vals = [S.Zero] * (m * n)
        vals[i * n + j] = S.One
        out.append(ImmutableMatrix(m, n, vals))
    return out


def matrix_jacobian(out: Expr, W: Expr, opts: Opts) -> Expr:
    """∂out/∂W with shape ``out.shape + W.shape`` (reverse mode, one pass
    per output entry); a scalar output gives the gradient formula."""
    oshape, wshape = _shape(out), _shape(W)
    if not oshape:
        return matrix_vjp([as_scalar(out, "jacobian")], [W], [S.One], opts)[0]
    if not wshape:  # by a scalar: one forward pass gives the matrix ∂out/∂W
        t = matrix_jvp([out], [W], [S.One], opts)[0]
        rows = _entries(t)
        if len(oshape) == 2:
            return ImmutableMatrix(oshape[0], oshape[1], rows)
        return ImmutableDenseNDimArray(rows, oshape)
    rows = []
    for u in _units(oshape):
        g = matrix_vjp([out], [W], [u], opts)[0]
        rows.extend(_entries(g))
    if not wshape and len(oshape) == 2:
        return ImmutableMatrix(oshape[0], oshape[1], rows)
    return ImmutableDenseNDimArray(rows, oshape + wshape)


def matrix_hessian(expr: Expr, W: Expr, opts: Opts) -> Expr:
    """∂²expr/∂W², shape ``W.shape + W.shape``: the Jacobian of the gradient."""
    g = matrix_vjp([as_scalar(expr, "hessian")], [W], [S.One], opts)[0]
    return matrix_jacobian(g, W, opts)


def tree_jacobian(outs: list, ostruct, syms: list, sstruct, opts: Opts) -> object:
    """The Jacobian of each output leaf by each variable leaf, nested as
    JAX nests them (the outputs' structure of the variables' structure)."""
    blocks = [[matrix_jacobian(o, s, opts) for s in syms] for o in outs]
    if ostruct.kind == "scalar" and sstruct.kind == "scalar":
        return blocks[0][0]
    return ostruct.map_leaves(
        lambda _, span: sstruct.map_leaves(lambda _, sp: blocks[span[0]][sp[0]]))


def map_scalar_parts(e: Basic, fn: Callable[[list], list]) -> Basic:
    """A matrix formula with ``fn`` applied to its scalar parts: the formula
    of every elementwise function (``Lambda`` body), and every entry of an
    explicit Matrix; the matrix structure (products, reductions, their
    stable forms) is kept.  One pass over the DAG; ``fn`` maps a list of
    scalar formulas (all of them in one call) to their new forms.

    >>> from sympy import MatrixSymbol, exp, log
    >>> from symgrad.matrices import elementwise
    >>> X = MatrixSymbol("X", 2, 2)
    >>> softplus = elementwise(lambda t: log(1 + exp(t)), X)
    >>> map_scalar_parts(softplus, lambda es: [e.diff() for e in es]).args[0]
    Lambda(_x, exp(_x)/(exp(_x) + 1))
    """
    order, _ = postorder([e], lambda n: () if isinstance(n, (MatrixSymbol, Lambda)) else n.args)
    lams = [n.args[0] for n in order if isinstance(n, ElementwiseApplyFunction)]
    lams = list(dict.fromkeys(lams))
    mats = [n for n in order if isinstance(n, MatrixBase)]
    bodies = [lam.expr for lam in lams] + [v for M in mats for v in M]
    if not bodies:
        return e
    done = iter(fn(bodies))
    new: dict = {lam: Lambda(lam.variables, next(done)) for lam in lams}
    for M in mats:
        new[M] = ImmutableMatrix(M.rows, M.cols, [next(done) for _ in range(len(M))])

    def swap(n: Basic) -> Basic | None:
        got = new.get(n)
        return got if got is not None else n if isinstance(n, (MatrixSymbol, Lambda)) else None

    return mapped([e], lambda n, args: n.func(*args), swap=swap)[0]
