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

from ..build import replaced, unevaluated
from ..graph import postorder

__all__ = ["WalkState", "Stencil", "stencil", "plan", "put_back"]


class WalkState:
    """What a rule may need from the running walk, handed to it in
    ``opts.walk`` (never read from ambient state): each node's height (its
    longest path down to a leaf), the walk's memo of rule answers on
    stencils and of supports, and whether a complex cotangent was sent
    down (reverse mode; see :mod:`symgrad.rules.realness`)."""

    __slots__ = ("heights", "memo", "projected", "nodes")

    def __init__(self, heights: dict | None = None, nodes: dict | None = None) -> None:
        self.heights = heights or {}
        self.memo: dict = {}
        self.projected = False
        # the walk's own nodes, each its own key: a node a rule rebuilds
        # equal to one of them is that one (its assumptions already asked)
        self.nodes = nodes if nodes is not None else {}


_TALL = 32


class Stencil:
    """``node`` with each tall argument replaced by a placeholder: ``node``
    and ``args`` to run a rule on, ``back`` to put the arguments back, and
    ``key``, the same for every node that differs only in tall arguments."""

    __slots__ = ("node", "args", "back", "key")

    def __init__(self, node: Basic, args: tuple, back: dict, key: tuple) -> None:
        self.node, self.args, self.back, self.key = node, args, back, key


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
    >>> st.node == sin(st.args[0]), st.back[st.args[0]] is e.args[0]
    (True, True)
    """
    heights = walk.heights if walk is not None else None
    if not heights:
        return None
    tall = [heights.get(a, 0) > _TALL for a in args]
    if not any(tall):
        return None
    while len(_PLACES) < len(args):
        _PLACES.append(Dummy(f"arg{len(_PLACES)}"))
    back: dict = {}
    small = []
    for i, (a, t) in enumerate(zip(args, tall)):
        if t:
            back[_PLACES[i]] = a
            small.append(_PLACES[i])
        else:
            small.append(a)
    key = (node.func, tuple(None if t else a for a, t in zip(args, tall)))
    if len(args) == len(node.args):
        small_node = unevaluated(node, small)  # placeholders: nothing to simplify
        back[small_node] = node
    else:  # inputs are not the node's arguments (Piecewise): keep the node
        small_node = node
        key = (node, key[1])
    return Stencil(small_node, tuple(small), back, key)


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
