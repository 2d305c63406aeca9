"""The formula's DAG as emission reads it, in linear walks (no
``sympy.cse``, no recursion): each node's operands (a ``Piecewise``'s
values and conditions), how often each is used, which nodes are loud
(used outside a ``Piecewise`` branch), and the divisions the planning pass
writes (a reciprocal as a product's divisor; a negated product as its
positive one negated, exactly)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sympy import Basic, Max, Min, Piecewise, Pow, S

from ..graph import postorder

__all__ = ["Dag", "read_dag", "quotient_pairs", "reciprocal", "divisor", "associative"]


@dataclass
class Dag:
    """What the planning pass reads of the formula's DAG."""

    roots: list[Basic]
    order: list[Basic]  # every node, operands before their users
    kids: dict[Basic, tuple]  # node -> its operands as the code reads them
    uses: dict[Basic, int]  # node -> how many times it is an operand
    other_uses: dict[Basic, int]  # reciprocal -> its uses but as a product's divisor
    is_root: set[Basic]
    loud: set[Basic]  # nodes some use of which is not under a Piecewise branch

    def divides(self, node: Basic) -> bool:
        """Whether the reciprocal ``node`` is written as a division by its
        positive power where a product holds it: wherever some product has
        it for divisor.  Decided by the DAG's structure, never by how many
        users a node has, so an output's floats do not depend on the other
        outputs compiled with it (``lambdify(args, g)[k]`` is bitwise
        ``lambdify(args, g[k])``)."""
        return self.uses[node] > self.other_uses.get(node, 0)


def operands(node: Basic) -> tuple:
    """A node's operands as generated code reads them (a ``Piecewise``'s
    values and conditions, in order)."""
    if isinstance(node, Piecewise):
        return tuple(a for pair in node.args for a in pair.args)
    return node.args


def read_dag(roots: list[Basic], check: Callable[[list, dict], None] | None = None) -> Dag:
    """The facts of :class:`Dag` about ``roots``' DAG; ``check`` is called
    first, on the nodes and their operands as written (it may refuse them).

    >>> from sympy import symbols, sqrt
    >>> x, y = symbols("x y")
    >>> r = 1/sqrt(x**2 + y**2)
    >>> dag = read_dag([x*r, y*r])
    >>> dag.uses[r], dag.divides(r)
    (2, True)
    """
    order, kids = postorder(roots, operands)
    if check is not None:
        check(order, kids)
    negated = _negated_products(order)
    if negated:
        order, kids = postorder(roots, lambda n: negated.get(n) or operands(n))
    uses, other_uses = _uses(order, kids)
    is_root = set(roots)
    loud = _loud(order, kids, is_root)
    return Dag(list(roots), order, kids, uses, other_uses, is_root, loud)


def quotient_pairs(roots: list[Basic]) -> dict[Basic, tuple]:
    """The products emission writes with a quotient shared with other
    products (node -> (factor, reciprocal)): none since 2026-11-27 (emit8),
    as sharing ``t/r`` between ``x*t/r`` and ``y*t/r`` made an output's
    floats depend on the other outputs compiled with it."""
    return {}


def _uses(order: list, kids: dict) -> tuple[dict[Basic, int], dict[Basic, int]]:
    """How many times each node is an operand, and (for reciprocals) how many
    of those uses are not as the divisor of a product (see divisor)."""
    uses: dict[Basic, int] = dict.fromkeys(order, 0)
    other_uses: dict[Basic, int] = {}  # uses of a reciprocal but as y*(1/x)
    for node in order:
        d = divisor(node, kids[node])
        for k in kids[node]:
            uses[k] += 1
            if k is not d and reciprocal(k):
                other_uses[k] = other_uses.get(k, 0) + 1
    return uses, other_uses


def _loud(order: list, kids: dict, roots: set) -> set:
    """The nodes some use of which is not under a branch (or a condition
    after the first) of a Piecewise: the others are quiet (computed for every
    element, used only where their branch is taken)."""
    loud: set[Basic] = set(roots)
    for node in reversed(order):
        quiet_parent = node not in loud
        pw = isinstance(node, Piecewise)
        for i, k in enumerate(kids[node]):
            if not (quiet_parent or (pw and i != 1)):
                loud.add(k)
    return loud


def _negated_products(order: list) -> dict[Basic, tuple]:
    """The products ``-a*b*...`` of the DAG whose positive product ``a*b*...``
    is a node of it too: node -> its operands as ``(-1, a*b*...)``, so that
    the product is computed once and negated (exactly: ``(-a)*b`` and
    ``-(a*b)`` are the same float), and, inside a sum, subtracted for free
    (``p - a*b``, see ``KernelPrinter._print_Add``).  The gradient of
    ``sqrt(x**2 + y**2)*tanh(x - y)`` holds ``(1 - t**2)*r`` in one entry
    and its negation in the other."""
    products = {n.args: n for n in order if n.is_Mul}
    out: dict[Basic, tuple] = {}
    for n in products.values():
        a = n.args
        if len(a) > 2 and a[0] is S.NegativeOne:
            positive = products.get(a[1:])
            if positive is not None:
                out[n] = (S.NegativeOne, positive)
    return out


def divisor(node: Basic, kids: tuple) -> Basic | None:
    """The factor of a product that is written as a division, if any: its
    first reciprocal factor."""
    if not node.is_Mul:
        return None
    return next((k for k in kids if reciprocal(k)), None)


def reciprocal(node: Basic) -> bool:
    """A power with a negative number for exponent: ``1/x``, ``x**-2``,
    ``1/sqrt(x)``."""
    return isinstance(node, Pow) and node.args[1].is_Number and node.args[1].is_negative


def associative(node: Basic) -> bool:
    """A sum, product, ``Max`` or ``Min``: its operands may be folded in order."""
    return node.is_Add or node.is_Mul or isinstance(node, (Max, Min))
