"""Walking formulas as DAGs: every distinct subexpression once, children
before parents, without recursion.

SymPy shares equal subtrees (and compares them structurally), so a formula
whose printed tree is exponential may have only linearly many distinct
nodes; a tree walk would visit the tree, this walks the DAG.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence

from sympy import Basic, Expr

_EXPR_IS_NUMBER = Expr.__dict__["is_number"]  # SymPy's: every argument a number
# a node whose contents are its class and arguments
_ARGS_CONTENT = (Basic._hashable_content, Expr._hashable_content)

__all__ = ["postorder", "numbered", "count_ops", "free_symbols", "numbers", "numbers_in",
           "height", "same", "equal"]


def postorder(
    roots: Iterable[Hashable], children: Callable[[Hashable], Sequence[Hashable]]
) -> tuple[list, dict]:
    """Distinct nodes reachable from ``roots``, each after all its children.

    Returns ``(order, kids)`` where ``kids[node]`` is ``children(node)``,
    called exactly once per distinct node.

    >>> from sympy import sin, symbols
    >>> x, y = symbols("x y")
    >>> e = sin(x + y) * (x + y)
    >>> order, kids = postorder([e], lambda n: n.args)
    >>> order[-1] == e, order.index(x + y) < order.index(sin(x + y))
    (True, True)
    >>> sum(1 for n in order if n == x + y)
    1
    """
    # ``kids`` marks a node seen (its children asked); a node goes into
    # ``order`` when its children's iterator runs out: one hash per edge and
    # one per node (a DAG has no cycle, so a seen node is done or on the path)
    kids: dict = {}
    order: list = []
    for root in roots:
        if root in kids:
            continue
        ks = kids[root] = tuple(children(root))
        stack = [(root, iter(ks))]
        while stack:
            node, it = stack[-1]
            for k in it:
                if k not in kids:
                    kk = kids[k] = tuple(children(k))
                    stack.append((k, iter(kk)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order, kids


def numbered(
    roots: Iterable[Hashable], children: Callable[[Hashable], Sequence[Hashable]]
) -> tuple[list, list, dict]:
    """:func:`postorder` with each node numbered by its place in the order:
    ``(order, kids, index)`` where ``kids[i]`` holds the positions of
    ``order[i]``'s children (``children`` called once per distinct node) and
    ``index`` maps each node to its position.  A node's hash is asked once
    per edge and once per node; tables over the positions need none.

    >>> from sympy import sin, symbols
    >>> x, y = symbols("x y")
    >>> order, kids, index = numbered([sin(x + y) * (x + y)], lambda n: n.args)
    >>> [order[k] for k in kids[index[sin(x + y)]]], index[order[-1]] == len(order) - 1
    ([x + y], True)
    """
    index: dict = {}
    order: list = []
    kids: list = []
    for root in roots:
        if root in index:
            continue
        # a frame: the node, an iterator over its children, their positions
        stack = [(root, iter(tuple(children(root))), [])]
        while stack:
            node, it, got = stack[-1]
            for k in it:
                i = index.get(k)
                if i is None:  # not placed: a DAG has no cycle, so not on the path
                    stack.append((k, iter(tuple(children(k))), []))
                    break
                got.append(i)
            else:
                stack.pop()
                i = index[node] = len(order)
                order.append(node)
                kids.append(tuple(got))
                if stack:
                    stack[-1][2].append(i)
    return order, kids, index


def count_ops(roots: Iterable) -> int:
    """Arithmetic operations to evaluate ``roots`` with every distinct
    subexpression computed once: ``k - 1`` for an Add or Mul of ``k``
    terms, 1 for every other non-atomic node (powers, functions).

    >>> from sympy import sin, symbols
    >>> x, y = symbols("x y")
    >>> count_ops([sin(x + y) * (x + y) + 1])
    4
    """
    order, kids = postorder(roots, lambda n: n.args)
    total = 0
    for node in order:
        k = len(kids[node])
        if k:
            total += k - 1 if (node.is_Add or node.is_Mul) else 1
    return total


def free_symbols(roots: Iterable) -> set:
    """The symbols in ``roots``, found over the DAG (SymPy's
    ``free_symbols`` unions its arguments' sets recursively: a tree walk,
    exponential in a DAG's depth).  A node that binds symbols of its own
    (an ``Integral``, a ``Lambda``) answers for itself.

    >>> from sympy import sin, symbols
    >>> x, y = symbols("x y")
    >>> e = x
    >>> for _ in range(100):
    ...     e = sin(e) + e * y
    >>> sorted(free_symbols([e]), key=str)
    [x, y]
    """
    found: set = set()
    order, kids = postorder(roots, lambda n: () if _whole(n) else n.args)
    for node in order:
        if not kids[node]:  # a leaf, or a node that answers for itself
            found |= node.free_symbols
    return found


def numbers(roots: Iterable) -> set:
    """The nodes of ``roots`` (at every depth) that SymPy's ``is_number``
    calls numbers, found over the DAG: SymPy's ``Expr.is_number`` asks every
    argument's, recursively and uncached (a tree walk, and a RecursionError
    a few hundred levels down).  A class with an ``is_number`` of its own (a
    flag, or a property such as ``Integral``'s) answers for itself.

    >>> from sympy import Add, pi, sin, sqrt, symbols
    >>> x = symbols("x")
    >>> e = sqrt(2)
    >>> for _ in range(2000):
    ...     e = Add(sin(e, evaluate=False), pi, evaluate=False)
    >>> d = Add(x, e, evaluate=False)
    >>> found = numbers([d])
    >>> e in found, d in found, sqrt(2) in found, x in found
    (True, False, True, False)
    """
    return numbers_in(*postorder(roots, lambda n: n.args))


def numbers_in(order: Sequence, kids: dict) -> set:
    """:func:`numbers` over a walk already made (``order, kids`` as
    :func:`postorder` returns them), which may stop at some nodes: a node
    walked as a leaf but holding arguments answers SymPy's ``is_number``
    itself.

    >>> from sympy import sin, symbols
    >>> x = symbols("x")
    >>> e = sin(2) + sin(x)
    >>> order, kids = postorder([e], lambda n: () if n == sin(x) else n.args)
    >>> sorted(map(str, numbers_in(order, kids)))
    ['2', 'sin(2)']
    """
    found: set = set()
    for node in order:
        flag = getattr(type(node), "is_number", False)
        if flag is _EXPR_IS_NUMBER and (kids[node] or not node.args):
            if all(k in found for k in kids[node]):
                found.add(node)
        elif flag if isinstance(flag, bool) else node.is_number:
            found.add(node)
    return found


def height(root) -> int:
    """The longest path from ``root`` down to a leaf (a leaf: 0), over the
    DAG.

    >>> from sympy import sin, symbols
    >>> x = symbols("x")
    >>> e = x
    >>> for _ in range(1000):
    ...     e = sin(e, evaluate=False)
    >>> height(e), height(x)
    (1000, 0)
    """
    order, kids = postorder([root], lambda n: n.args)
    h: dict = {}
    for n in order:
        h[n] = 1 + max((h[k] for k in kids[n]), default=-1)
    return h[root]


def same(a, b) -> bool:
    """``a == b`` told apart by their hashes first (SymPy caches a node's),
    and equal hashes compared over the DAG (:func:`equal`): ``==`` on two
    DAGs of the same shape compares them as trees, recursively (a
    RecursionError a few hundred levels down), as do a list's ``in``,
    ``index`` and ``count`` and a tuple's ``==``.

    >>> from sympy import sin, symbols
    >>> x = symbols("x")
    >>> a, b = x, x + 1
    >>> for _ in range(600):  # (a == b raises RecursionError here)
    ...     a, b = sin(a) + x, sin(b) + x
    >>> same(a, b), same(a, sin(a).args[0])
    (False, True)
    """
    return a is b or (hash(a) == hash(b) and equal(a, b))


def equal(a, b) -> bool:
    """``a == b`` over the DAG: each pair of nodes compared once, without
    recursion.  SymPy's ``==`` compares arguments recursively and compares
    a shared subexpression again on every path to it: two equal copies of
    a DAG whose tree is exponential take exponential time (a ``where``
    chain 300 deep, compared in SymPy's cache, did not finish).  Leaves,
    nodes of two classes and nodes with contents besides their arguments
    are compared by their own ``==``.  Pairs found equal are kept (the
    most recent 2**16): copies met again a level higher stop there, so
    comparing every level of two copies of a chain is linear in its depth.

    >>> from sympy import Add, Mul, sin, symbols
    >>> x = symbols("x")
    >>> a, b = x, x
    >>> for _ in range(200):
    ...     a = Add(sin(a, evaluate=False), Mul(a, a, evaluate=False), evaluate=False)
    ...     b = Add(sin(b, evaluate=False), Mul(b, b, evaluate=False), evaluate=False)
    >>> equal(a, b), equal(a, sin(b, evaluate=False))
    (True, False)
    """
    seen: dict = {}  # pairs met, by ids (both nodes live inside a and b)
    stack = [(a, b)]
    while stack:
        u, v = stack.pop()
        key = (id(u), id(v))
        if u is v or key in seen or key in _EQUAL:
            continue
        seen[key] = (u, v)
        ua, va = getattr(u, "args", None), getattr(v, "args", None)
        if not ua or not va or type(u) is not type(v) \
                or type(u)._hashable_content not in _ARGS_CONTENT:
            if not u == v:
                return False
            continue
        if hash(u) != hash(v) or len(ua) != len(va):
            return False
        stack.extend(zip(ua, va))
    if len(_EQUAL) + len(seen) > _EQUAL_KEPT:
        _EQUAL.clear()
    _EQUAL.update(seen)  # every pair met is equal
    return True


# Pairs of distinct nodes found equal, by ids, the nodes kept (so their ids
# stay theirs; the most recent ``_EQUAL_KEPT``): two copies are compared
# again at every level above them (a dict holding the levels of one copy
# asked for each level of the other), and a pair known equal ends the walk
# there, so the copies of a chain n deep take n pairs in all, not n².
_EQUAL: dict = {}
_EQUAL_KEPT = 1 << 16


def _whole(node) -> bool:
    """Nodes whose free symbols are not their arguments': binders, and
    indexed or matrix entries (the entry itself is the symbol)."""
    return bool(getattr(node, "bound_symbols", ()) or getattr(node, "variables", ())
                or getattr(node, "is_Indexed", False) or type(node).__name__ == "MatrixElement")
