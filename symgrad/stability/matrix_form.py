"""``stabilize`` of a matrix formula, kept a matrix formula: the products,
transposes and reductions stay (the reductions are in their stable forms as
built), and the formula of every elementwise function is stabilized over
all floats (an entry of its argument, ``W*x`` say, ranges over values a box
of the matrix symbols' entries does not bound); its parameters over their
boxes.  The result is then checked entry by entry over the boxes, as
``check_stability`` checks a matrix formula.

Where it is not accurate there, :func:`products_alone_lose` tells whether
the products' sums are what loses: the formula checked again with every
product whose entries are sums (``W*x``) standing as a matrix of its own,
free over all floats.  If that is accurate, the loss is the cancellation
of a product's sums, which the matrix code computes as BLAS does (and as
JAX and PyTorch do): the matrix form is kept, and the caller says so.
Otherwise (a composition loses, as ``log`` of a ``softmax`` that
underflows), the caller falls back to the explicit entries, each
stabilized."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sympy import Basic, MatMul, MatrixExpr, MatrixSymbol, oo

from ..autodiff_matrix import map_scalar_parts
from ..graph import free_symbols, postorder
from ..matrices.entries import out_of_reach

__all__ = ["holds_matrix_formula", "keep_matrix_form", "products_alone_lose"]


def holds_matrix_formula(expr: object) -> bool:
    """Whether ``expr`` (a formula, or a list or tuple of them) is a formula
    over matrix symbols: a matrix formula, or a scalar (a loss) computed
    from one, which is kept a formula over whole matrices too."""
    roots = list(expr) if isinstance(expr, (list, tuple)) else [expr]
    if not all(isinstance(r, Basic) for r in roots):
        return False
    order, _ = postorder(roots, lambda n: () if isinstance(n, MatrixSymbol) else n.args)
    return any(isinstance(n, MatrixSymbol) for n in order) and any(
        isinstance(n, MatrixExpr) for n in order)


def keep_matrix_form(expr: Basic, domain: Mapping | None, run: Callable, check: Callable
                     ) -> tuple[Basic, object, dict]:
    """``(the matrix formula with its scalar parts stabilized, check's report
    of it over the boxes, the boxes)``: ``run(body, domain)`` stabilizes one scalar
    formula, ``check(expr, boxes)`` is check_stability.  The report is why
    the check is out of reach (a text) where the entries are too many to
    check (:func:`~symgrad.matrices.entries.out_of_reach`): the scalar parts
    are stabilized over all floats whatever the sizes."""
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
    far = out_of_reach(kept, [k for k in boxes if isinstance(k, MatrixSymbol)])
    return kept, (far if far else check(kept, boxes)), boxes


def _sums(node: Basic) -> bool:
    """Whether ``node`` is a product of matrices whose entries are sums
    (two adjacent factors share a dimension longer than 1)."""
    if not isinstance(node, MatMul):
        return False
    mats = [a for a in node.args if getattr(a, "is_Matrix", False)]
    return any(int(a.shape[1]) > 1 for a in mats[:-1])


def products_alone_lose(kept: Basic, boxes: Mapping, check: Callable) -> list[str] | None:
    """The products (as text) whose sums are all that loses in ``kept``, or
    None when the formula loses elsewhere too: ``kept`` with each such
    product (outermost first) replaced by a matrix symbol free over all
    floats, checked by ``check(expr, boxes)``."""
    from ..build import replaced

    order, _ = postorder([kept], lambda n: () if isinstance(n, MatrixSymbol) else n.args)
    prods = [n for n in order if _sums(n)]
    if not prods:
        return None
    stand = {p: MatrixSymbol(f"_P{i}", *p.shape) for i, p in enumerate(prods)}
    rest = replaced(kept, stand.get)
    free = {**boxes, **dict.fromkeys(stand.values(), (-oo, oo))}
    order, _ = postorder([rest], lambda n: () if isinstance(n, MatrixSymbol) else n.args)
    used = [p for p, m in stand.items() if m in set(order)]
    if not used or not check(rest, {k: v for k, v in free.items() if k in set(order)}).ok:
        return None
    from ..matrices.notation import matrix_text

    return [matrix_text(p, 60) for p in used]
