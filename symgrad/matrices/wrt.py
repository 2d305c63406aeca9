"""Differentiating with respect to a MatrixSymbol: its matrix-level
cotangent, plus the cotangents of its entries where the formula holds them
one by one (SymPy expands ``(r.T*r)[0, 0]`` into entries ``x[i, 0]``)."""

from __future__ import annotations

from collections.abc import Sequence

from sympy import Expr, ImmutableMatrix, MatrixExpr, MatrixSymbol, S, ZeroMatrix
from sympy.matrices.expressions.matexpr import MatrixElement

from ..errors import SymgradError
from ..graph import postorder
from .rules import madd, scale

__all__ = ["entries_of", "assemble", "zero_like", "as_scalar", "rolled", "refuse_symbolic_entries"]


def entries_of(roots: Sequence[Expr], mats: Sequence[MatrixSymbol]) -> list[MatrixElement]:
    """The entries ``W[i, j]`` of each ``W`` in ``mats`` that ``roots``
    hold as scalars, found over the DAG."""
    if not mats:
        return []
    want = set(mats)
    order, _ = postorder(
        roots, lambda n: () if isinstance(n, MatrixElement) or not n.args else n.args
    )
    return [n for n in order if isinstance(n, MatrixElement) and n.args[0] in want]


def assemble(W: MatrixSymbol, got: dict) -> Expr | None:
    """W's gradient from its matrix cotangent and its entries' (None if
    neither reached it)."""
    whole = got.get(W)
    m, n = W.shape
    parts = {(int(e.args[1]), int(e.args[2])): g for e, g in got.items()
             if isinstance(e, MatrixElement) and e.args[0] == W}
    if not parts:
        return whole
    vals = [parts.get((i, j), S.Zero) for i in range(m) for j in range(n)]
    explicit = _as_formula(vals, m, n)
    return explicit if whole is None else madd(whole, explicit)


def _as_formula(vals: list, m: int, n: int) -> Expr:
    """The matrix of ``vals``; c·Y when every entry is c·Y[i, j] of one
    matrix symbol Y in place (the cotangent of a linear term written with
    entries, as SymPy expands ``(y.T*z)[0, 0]``)."""
    c0, Y = None, None
    for k, v in enumerate(vals):
        c, e = v.as_coeff_Mul()
        i, j = divmod(k, n)
        if not (isinstance(e, MatrixElement) and isinstance(e.args[0], MatrixSymbol)
                and (e.args[1], e.args[2]) == (i, j) and e.args[0].shape == (m, n)
                and (Y is None or (e.args[0] == Y and c == c0))):
            return ImmutableMatrix(m, n, vals)
        c0, Y = c, e.args[0]
    return scale(c0, Y)


def rolled(roots: Sequence[Expr], mats: Sequence[MatrixSymbol]) -> list:
    """``roots``, each holding entries of ``mats`` one by one rolled back
    into matrix formulas where SymPy's indexing expanded them
    (:func:`~symgrad.matrices.reroll.reroll`:
    ``((A*x - b).T*(A*x - b))[0, 0]`` is ``sum((A*x - b)∘²)`` again, so its
    gradient is ``2*A.T*(A*x - b)``, not an explicit matrix of sums)."""
    from .reroll import reroll

    out = []
    for r in roots:
        els = entries_of([r], mats)
        refuse_symbolic_entries(els)
        out.append(reroll(r) if els else r)
    return out


def refuse_symbolic_entries(els: Sequence[MatrixElement]) -> None:
    """A clear error for an entry at a symbolic index or of a matrix of a
    symbolic shape (its derivative would silently be 0)."""
    for e in els:
        W = e.args[0]
        if not all(d.is_Integer for d in (*W.shape, *e.args[1:])):
            raise SymgradError(
                    f"{e} is an entry of {W} ({W.shape[0]}×{W.shape[1]}) at a symbolic index "
                    f"or of a symbolic shape (a Sum over entries, as SymPy writes an entry of a "
                    f"product of such matrices): symgrad differentiates entries of matrices of "
                    f"numeric shapes only (its derivative would silently be 0); give {W} "
                "numeric dimensions, or keep the matrix form (a product, trace, sum)")


def zero_like(s: Expr) -> Expr:
    """The zero gradient of ``s``: 0, or the zero matrix of its shape."""
    return ZeroMatrix(*s.shape) if isinstance(s, MatrixSymbol) else S.Zero


def as_scalar(e: Expr, who: str) -> Expr:
    """A 1×1 matrix formula as its one entry (kept unexpanded); other
    matrix formulas are refused with advice."""
    if isinstance(e, MatrixExpr):
        if tuple(e.shape) == (1, 1):
            return MatrixElement(e, 0, 0)
        rows, cols = e.shape
        raise SymgradError(
            f"{who} needs a scalar expression, but {e} is a {rows}×{cols} matrix formula; "
            "reduce it (symgrad.sum, symgrad.mean, symgrad.norm, Trace) or use "
            "symgrad.vjp/jacobian for a matrix-valued function"
        )
    return e
