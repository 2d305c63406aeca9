"""postorder: every distinct node once, children first, without recursion."""

from __future__ import annotations

import sys

from sympy import cos, sin, symbols

from symgrad.graph import postorder

x, y = symbols("x y")


def test_children_before_parents_and_each_node_once():
    u = x + y
    e = sin(u) * cos(u) + u**2
    order, kids = postorder([e], lambda n: n.args)
    assert len(order) == len(set(order))
    assert order[-1] == e
    pos = {n: i for i, n in enumerate(order)}
    for n in order:
        assert kids[n] == n.args
        assert all(pos[k] < pos[n] for k in kids[n])
    assert sum(1 for n in order if n == u) == 1


def test_children_is_called_once_per_distinct_node():
    calls = []

    def children(n):
        calls.append(n)
        return n.args

    u = sin(x)
    e = u * u + u + cos(u)
    order, _ = postorder([e, u, e], children)
    assert sorted(map(str, calls)) == sorted(map(str, order))
    assert len(calls) == len(set(calls))


def test_several_roots_share_nodes():
    u = sin(x)
    order, _ = postorder([u + 1, u * y, u], lambda n: n.args)
    assert sum(1 for n in order if n == u) == 1
    assert order.index(u) < order.index(u + 1) and order.index(u) < order.index(u * y)


def test_deep_chain_does_not_recurse():
    depth = 50 * sys.getrecursionlimit()
    order, kids = postorder([depth], lambda n: (n - 1,) if n else ())
    assert order == list(range(depth + 1))
    assert kids[0] == ()


def test_exponential_tree_linear_dag():
    # node k has node k-1 twice: 2**60 paths, 61 nodes
    order, _ = postorder([60], lambda n: (n - 1, n - 1) if n else ())
    assert order == list(range(61))
