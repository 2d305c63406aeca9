"""The formula's DAG as emission reads it, in linear walks (no
``sympy.cse``, no recursion): each node's operands (a ``Piecewise``'s
values and conditions), how often each is used, which nodes are loud
(used outside a ``Piecewise`` branch), and the divisions the planning pass
writes (a reciprocal as a product's divisor, paired with one factor the
product's own structure chooses, so that products sharing both share the
quotient; a negated product as its positive one negated, exactly)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sympy import Basic, Max, Min, Piecewise, Pow, S

from ..graph import postorder

__all__ = ["Dag", "read_dag", "quotient_pairs", "quotient_factor", "reciprocal", "divisor",
           "associative"]


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
    # products computed over a quotient: node -> (factor, divisor), and the
    # quotients some loud product reads
    pairs: dict[Basic, tuple]
    pair_loud: set[tuple]
    pair_uses: dict[tuple, int]  # quotient -> how many products read it
    negated: dict[Basic, tuple]  # (see _negated_products)

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


def read_dag(roots: list[Basic], check: Callable[[list, dict], None] | None = None,
             swap: dict[Basic, Basic] | None = None, stop: frozenset = frozenset(),
             whole: Dag | None = None) -> Dag:
    """The facts of :class:`Dag` about ``roots``' DAG; ``check`` is called
    first, on the nodes and their operands as written (it may refuse them).
    ``swap`` replaces nodes wherever they are read (a ``Piecewise`` by its
    masked form: :mod:`.regions`); the nodes in ``stop`` are leaves (the
    inputs of a region's program); ``whole``: the DAG of the whole formula
    this one is a part of, whose decisions that depend on what else is in
    the formula it takes (how many products read a quotient: one is written
    in its line, ``x*t/r``, one two read is named, ``x*(t/r)``; which negated
    products are the negation of another node: ``-(a*b*c)``, not
    ``((-a)*b)*c``), so that the part's floats are the whole's.

    >>> from sympy import symbols, sqrt
    >>> x, y = symbols("x y")
    >>> r = 1/sqrt(x**2 + y**2)
    >>> dag = read_dag([x*r, y*r])
    >>> dag.uses[r], dag.divides(r)
    (2, True)
    """
    def read(n: Basic) -> tuple:
        return () if n in stop else operands(n)

    order, kids = postorder(roots, read)
    if check is not None:
        check(order, kids)
    if swap:
        roots = [swap.get(r, r) for r in roots]
        order, kids = postorder(roots, lambda n: tuple(swap.get(k, k) for k in read(n)))
    negated = _negated_products(order) if whole is None else whole.negated
    if negated:
        order, kids = postorder(roots, lambda n: negated.get(n) or tuple(
            swap.get(k, k) for k in read(n)) if swap else negated.get(n) or read(n))
    uses, other_uses = _uses(order, kids)
    is_root = set(roots)
    loud = _loud(order, kids, is_root)
    pairs, pair_loud = _quotients(order, kids, loud)
    pair_uses: dict[tuple, int] = {}
    for pair in pairs.values():
        pair_uses[pair] = pair_uses.get(pair, 0) + 1
    if whole is not None:
        pair_uses = {pair: max(n, whole.pair_uses.get(pair, 0)) for pair, n in pair_uses.items()}
    return Dag(list(roots), order, kids, uses, other_uses, is_root, loud, pairs, pair_loud,
               pair_uses, negated)


def quotient_pairs(roots: list[Basic]) -> dict[Basic, tuple]:
    """The products emission computes over a quotient (node -> (factor,
    reciprocal)), as its planning pass finds them (:func:`quotient_factor`).

    >>> from sympy import symbols, sqrt, tanh
    >>> x, y = symbols("x y")
    >>> r, t = sqrt(x**2 + y**2), tanh(x - y)
    >>> sorted(quotient_pairs([x*t/r, y*t/r]).values(), key=str) == [(t, 1/r)] * 2
    True
    """
    return read_dag(roots).pairs


def quotient_factor(node: Basic, kids: tuple) -> tuple | None:
    """The (factor, divisor) of the product ``node`` that emission divides
    first, ``a*b*f/r`` as ``a*b*(f/r)``, or None: its divisor (first
    reciprocal factor) with its LAST factor that is neither a number nor a
    reciprocal, in SymPy's order (where the factor common to a gradient's
    terms sorts: ``x*tanh(x - y)/r`` and ``y*tanh(x - y)/r``), in a product
    of three factors or more.  Chosen from the product alone, never from
    which other products hold the same pair, so a product's floats are the
    same in every program holding it (an output's floats do not depend on
    the other outputs compiled with it) and products that hold the same
    pair share their quotient exactly: the same two roundings as
    ``(a*b*f)/r``, one division for them all, as SymPy's cse shares it."""
    if len(kids) < 3:
        return None
    d = divisor(node, kids)
    if d is None:
        return None
    f = next((k for k in reversed(kids) if k is not d and not k.is_Number
              and not reciprocal(k)), None)
    return None if f is None else (f, d)


def _quotients(order: list, kids: dict, loud: set) -> tuple[dict, set]:
    """Each product's quotient (:func:`quotient_factor`) and the quotients
    some loud product reads."""
    pairs: dict[Basic, tuple] = {}
    pair_loud: set = set()
    for node in order:
        if node.is_Mul:
            pair = quotient_factor(node, kids[node])
            if pair is not None:
                pairs[node] = pair
                if node in loud:
                    pair_loud.add(pair)
    return pairs, pair_loud


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
    after the first) of a Piecewise, nor only under a call that handles its
    non-finite values (``handles_nonfinite``): the others are quiet (computed
    for every element, used only where their branch is taken or where the
    call handles what they give)."""
    loud: set[Basic] = set(roots)
    for node in reversed(order):
        # a call that handles its own non-finite values (the pairs' helpers: an
        # error term that overflows is 0; certified's: a bound that is not
        # finite sends the element to the ground truth) runs quiet, and so do
        # the values only it reads (certified's error masses)
        quiet_parent = node not in loud or getattr(node, "handles_nonfinite", False)
        # (a Piecewise's first condition is loud, its values and other
        # conditions quiet; its masked form's likewise: regions.Masked)
        pw = isinstance(node, Piecewise) or getattr(node, "is_selection", False)
        for i, k in enumerate(kids[node]):
            if not (quiet_parent or (pw and i != 1)):
                loud.add(k)
    return {n for n in loud if not getattr(n, "handles_nonfinite", False)}


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
