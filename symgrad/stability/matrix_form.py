"""``stabilize`` of a matrix formula, kept a matrix formula: the products,
transposes and reductions stay (the reductions are in their stable forms as
built), and the formula of every elementwise function is stabilized over
all floats (an entry of its argument, ``W*x`` say, ranges over values a box
of the matrix symbols' entries does not bound); its parameters over their
boxes.  The result is then checked entry by entry over the boxes, as
``check_stability`` checks a matrix formula; where it is not accurate there
(a composition loses, as ``log`` of a ``softmax`` that underflows), the
caller falls back to the explicit entries, each stabilized."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sympy import Basic, MatrixExpr, MatrixSymbol, oo

from ..autodiff_matrix import map_scalar_parts
from ..graph import free_symbols, postorder

__all__ = ["holds_matrix_formula", "keep_matrix_form"]


def holds_matrix_formula(expr: object) -> bool:
    """Whether ``expr`` (a formula, or a list or tuple of them) holds a
    matrix formula over matrix symbols."""
    roots = list(expr) if isinstance(expr, (list, tuple)) else [expr]
    if not all(isinstance(r, Basic) for r in roots):
        return False
    order, _ = postorder(roots, lambda n: () if isinstance(n, MatrixSymbol) else n.args)
    return any(isinstance(n, MatrixSymbol) for n in order) and any(
        isinstance(n, MatrixExpr) for n in roots)


def keep_matrix_form(expr: Basic, domain: Mapping | None, run: Callable, check: Callable
                     ) -> tuple[Basic, object, dict]:
    """``(the matrix formula with its scalar parts stabilized, check's report
    of it over the boxes, the boxes)``: ``run(body, domain)`` stabilizes one scalar
    formula, ``check(expr, boxes)`` is check_stability."""
    boxes = dict(domain or {})

    def each(bodies: list) -> list:
        out = []
        for b in bodies:
            syms = free_symbols([b])
            if not syms:
                out.append(b)
                continue
            out.append(run(b, {s: boxes.get(s, (-oo, oo)) for s in syms}))
        return out

    kept = map_scalar_parts(expr, each)
    order, _ = postorder([kept], lambda n: () if isinstance(n, MatrixSymbol) else n.args)
    for n in order:
        if isinstance(n, MatrixSymbol) and n not in boxes:
            boxes[n] = (-oo, oo)
        elif getattr(n, "is_Symbol", False) and n not in boxes and not n.is_Dummy:
            boxes[n] = (-oo, oo)
    return kept, check(kept, boxes), boxes
