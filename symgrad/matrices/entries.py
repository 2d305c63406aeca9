"""A matrix formula entry by entry, for the stability checks: every matrix
symbol of a domain becomes an explicit matrix of scalar symbols ``W_i_j``
(each with the symbol's box), and the formula expands into its entries in
the stable forms the generated code uses (the maximum taken out of every
exponential of softmax, log-softmax and log-sum-exp)."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar

from sympy import ImmutableMatrix, MatrixBase, MatrixSymbol, Symbol

__all__ = ["STABLE", "entry_symbols", "expand_entries"]

STABLE: ContextVar[bool] = ContextVar("symgrad_stable_entries", default=False)
"""Whether reductions expand into their stable forms (max taken out)."""


def entry_symbols(W: MatrixSymbol) -> ImmutableMatrix:
    """W as a matrix of real symbols ``W_i_j``.

    >>> entry_symbols(MatrixSymbol("W", 1, 2))
    Matrix([[W_0_0, W_0_1]])
    """
    m, n = (int(d) for d in W.shape)
    return ImmutableMatrix(m, n, lambda i, j: Symbol(f"{W.name}_{i}_{j}", real=True))


def expand_entries(expr: object, domain: Mapping | None) -> tuple[object, Mapping | None]:
    """``expr`` with the matrix symbols of ``domain`` replaced by their
    entries and expanded (a matrix formula becomes an explicit Matrix, one
    output per entry, row-major), and ``domain`` with a box per entry.
    Unchanged when ``domain`` names no matrix symbol.

    >>> from sympy import MatrixSymbol
    >>> from symgrad.matrices import softmax
    >>> z = MatrixSymbol("z", 2, 1)
    >>> e, d = expand_entries(softmax(z), {z: (-1, 1)})
    >>> e.shape, sorted(map(str, d))
    ((2, 1), ['z_0_0', 'z_1_0'])
    """
    if not domain or not any(isinstance(k, MatrixSymbol) for k in domain):
        return expr, domain
    subs, dom = {}, {}
    for k, box in domain.items():
        if isinstance(k, MatrixSymbol):
            E = entry_symbols(k)
            subs[k] = E
            dom.update(dict.fromkeys(E, box))
        else:
            dom[k] = box
    token = STABLE.set(True)
    try:
        out = _expand(expr, subs)
    finally:
        STABLE.reset(token)
    return out, dom


def _expand(expr: object, subs: dict) -> object:
    if isinstance(expr, (list, tuple)):
        return type(expr)(_expand(e, subs) for e in expr)
    if isinstance(expr, dict):
        return {k: _expand(v, subs) for k, v in expr.items()}
    e = expr.xreplace(subs).doit()
    if getattr(e, "is_Matrix", False) and not isinstance(e, MatrixBase):
        e = e.as_explicit()
    return ImmutableMatrix(e) if isinstance(e, MatrixBase) else e
