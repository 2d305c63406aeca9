"""What a rule gets from the running walk, as an argument (``opts.walk``),
and how a rule runs over tall arguments (stencils).

A rule's formula (``cos(x)``, ``1/x``, ``1 - o**2``) is evaluated by SymPy,
and SymPy's evaluation asks the argument's assumptions, which recurse to
the bottom of an argument built unevaluated: cost and stack depth grow
with the argument's height, at every level of a chain (quadratic, then a
RecursionError).  Over a tall argument the rule is run on a stencil, the
node with a placeholder for each tall argument, and the argument is put
back in the rule's answer without evaluating anything again.
"""

from __future__ import annotations

from collections.abc import Sequence

from sympy import Basic, Dummy, Expr

from ..build import TALL, replaced, unevaluated
from ..graph import postorder

__all__ = ["WalkState", "NodeTable", "Stencil", "stencil", "plan", "put_back"]


class NodeTable:
    """A walk's value per node, looked up by the node's identity first (an
    integer's hash, not SymPy's ``Basic.__hash__``, a Python call: a
    quarter of a deep gradient's time went to it), then by equality (an
    equal copy of a walk's node, or a node built since).  Reads like a
    dict's ``get``.

    >>> from sympy import cos, Symbol
    >>> x = Symbol("x")
    >>> t = NodeTable([x, cos(x)], [0, 1])
    >>> t.get(cos(x)), t.get(cos(x + 1), -1), len(t)
    (1, -1, 2)
    """

    __slots__ = ("ids", "index", "values")

    def __init__(self, order: Sequence[Basic], values: Sequence, index: dict | None = None,
                 ids: dict | None = None) -> None:
        self.values = values
        self.index = index if index is not None else {n: i for i, n in enumerate(order)}
        self.ids = ids if ids is not None else {id(n): i for i, n in enumerate(order)}

    def get(self, node: Basic, default=None):
        i = self.ids.get(id(node))
        if i is None:
            i = self.index.get(node)
            if i is None:
                return default
        return self.values[i]

    def __len__(self) -> int:
        return len(self.values)


class WalkState:
    """What a rule may need from the running walk, handed to it in
    ``opts.walk`` (never read from ambient state): each node's height (its
    longest path down to a leaf), the walk's memo of rule answers on
    stencils and of supports, and whether a complex cotangent was sent
    down (reverse mode; see :mod:`symgrad.rules.realness`)."""

    __slots__ = ("heights", "memo", "projected", "nodes")

    def __init__(self, heights: dict | NodeTable | None = None,
                 nodes: dict | NodeTable | None = None) -> None:
        self.heights = heights if heights is not None else {}
        self.memo: dict = {}
        self.projected = False
        # the walk's own nodes, each its own key: a node a rule rebuilds
        # equal to one of them is that one (its assumptions already asked)
        self.nodes = nodes if nodes is not None else {}


class Stencil:
    """``node`` with each tall argument replaced by a placeholder: ``node``
    and ``args`` to run a rule on (built when first asked), ``back(node)``
    to put the arguments back, and ``key``, the same for every node that
    differs only in tall arguments (whose stencils are equal)."""

    __slots__ = ("original", "inputs", "places", "key", "_node")

    def __init__(self, original: Basic, inputs: tuple, places: dict, key: tuple) -> None:
        self.original, self.inputs, self.places, self.key = original, inputs, places, key
        self._node = None

    @property
    def args(self) -> tuple:
        return tuple(_PLACES[i] if i in self.places else a for i, a in enumerate(self.inputs))

    @property
    def node(self) -> Basic:
        if self._node is None:
            if len(self.inputs) == len(self.original.args):
                # placeholders: nothing to simplify
                self._node = unevaluated(self.original, self.args)
            else:  # inputs are not the node's arguments (Piecewise): keep the node
                self._node = self.original
        return self._node

    def back(self, node: Basic | None = None) -> dict:
        """What to put back: each placeholder's argument, and the original
        for the stencil's node (``node``, this one's or an equal one's)."""
        out = {_PLACES[i]: a for i, a in self.places.items()}
        out[self.node if node is None else node] = self.original
        return out


# One placeholder per argument position, shared by all stencils.
_PLACES: list = []


def stencil(node: Basic, args: Sequence[Basic], walk: WalkState | None) -> Stencil | None:
    """The stencil of ``node`` over its inputs ``args``; None when no
    argument is tall (or outside a walk).

    >>> from sympy import sin, Symbol
    >>> x = Symbol("x")
    >>> e = x
    >>> for _ in range(40):
    ...     e = sin(e, evaluate=False)
    >>> st = stencil(e, e.args, WalkState({e.args[0]: 39}))
    >>> st.node == sin(st.args[0]), st.back()[st.args[0]] is e.args[0]
    (True, True)
    """
    heights = walk.heights if walk is not None else None
    if not heights:
        return None
    places = {i: a for i, a in enumerate(args) if heights.get(a, 0) > TALL}
    if not places:
        return None
    while len(_PLACES) < len(args):
        _PLACES.append(Dummy(f"arg{len(_PLACES)}"))
    small = tuple(None if i in places else a for i, a in enumerate(args))
    key = (node.func, small) if len(args) == len(node.args) else (node, small)
    return Stencil(node, tuple(args), places, key)


def plan(expr: Expr, back: dict) -> tuple:
    """The nodes of ``expr`` that :func:`put_back` rebuilds (those above a
    key of ``back``), children first: the same for every stencil of one
    key, so a rule's answer on a stencil is planned once.

    >>> from sympy import cos, sin, Dummy, Symbol
    >>> a, x = Dummy("a"), Symbol("x")
    >>> plan(x * cos(a) + 1, {a: sin(x)})
    (cos(_a), x*cos(_a), x*cos(_a) + 1)
    """
    order, kids = postorder([expr], lambda n: () if n in back else n.args)
    above: set = set()
    out = []
    for n in order:
        if n in back:
            above.add(n)
        elif any(k in above for k in kids[n]):
            above.add(n)
            out.append(n)
    return tuple(out)


def put_back(expr: Expr, back: dict, steps: tuple | None = None,
             walk: WalkState | None = None) -> Expr:
    """``expr`` with the stencil's placeholders replaced, the nodes above
    them rebuilt unevaluated (their arguments are already built), along
    ``steps`` (its :func:`plan`) where given; a rebuilt node equal to one
    of ``walk``'s is that one.

    >>> from sympy import cos, sin, Dummy, Symbol
    >>> a, x = Dummy("a"), Symbol("x")
    >>> e, back = x * cos(a) + 1, {a: sin(x)}
    >>> put_back(e, back), put_back(e, back, plan(e, back))
    (x*cos(sin(x)) + 1, x*cos(sin(x)) + 1)
    """
    if steps is None:
        return replaced(expr, back.get)
    env = dict(back)
    nodes = walk.nodes if walk is not None else {}
    for n in steps:
        new = unevaluated(n, tuple([env.get(a, a) for a in n.args]))
        env[n] = nodes.get(new, new)
    return env.get(expr, expr)
