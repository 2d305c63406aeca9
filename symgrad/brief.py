"""``brief``: a formula as one short line for reports and error messages,
sized over its DAG (below every stage of the pipeline, so the stability
checker and the printers can both use it)."""

from __future__ import annotations

from sympy import Basic, Symbol

from .build import unevaluated
from .graph import postorder

__all__ = ["brief", "BRIEF_NODES", "BRIEF_ARGS"]

BRIEF_NODES = 40  # nodes of the printed tree shown in one line of a report
BRIEF_ARGS = 4  # arguments shown of one node (the rest as one …)


def brief(expr: Basic, nodes: int = BRIEF_NODES) -> str:
    """``str(expr)`` where its printed tree has at most ``nodes`` nodes;
    past that, its top levels (at most ``BRIEF_ARGS`` arguments of a node)
    with the parts left out shown as ``…``.  Sizes
    are counted over the DAG (capped), so a formula whose tree is
    exponential in its depth costs what its distinct nodes cost.

    >>> from sympy import sin, symbols
    >>> x = symbols("x")
    >>> e = x
    >>> for _ in range(40):
    ...     e = sin(e) + e
    >>> brief(sin(x) + x)
    'x + sin(x)'
    >>> brief(e)
    'x + … + sin(x) + sin(x + sin(x)) + sin(x + sin(x) + sin(x + sin(x)))'
    """
    order, kids = postorder([expr], lambda n: n.args)
    size: dict[Basic, int] = {}
    for n in order:
        size[n] = min(1 + sum(size[k] for k in kids[n]), nodes + 1)
    if size[expr] <= nodes:
        return str(expr)
    dots = Symbol("…")
    # breadth first over the tree's positions, at most ``nodes`` of them: a
    # node shows the children the budget allows, the rest as one ``…``
    positions: list[list] = [[expr, None]]  # [node, child positions or None]
    used, i = 1, 0
    while i < len(positions):
        pos = positions[i]
        i += 1
        ks = kids.get(pos[0], ())
        room = nodes - used
        if not ks or room < 2:
            continue
        wide = min(room, BRIEF_ARGS + 1)
        shown = ks if len(ks) <= wide else ks[: wide - 1]
        pos[1] = [[k, None] for k in shown] + ([[dots, None]] if len(shown) < len(ks) else [])
        used += len(pos[1])
        positions.extend(pos[1])
    built: dict[int, Basic] = {}
    for pos in reversed(positions):  # children before parents
        node, ch = pos
        if ch is None:
            built[id(pos)] = node if not kids.get(node, ()) else dots
        else:
            built[id(pos)] = unevaluated(node, [built[id(c)] for c in ch])
    return str(built[id(positions[0])])

