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


def test_copies_of_a_where_chain_are_compared_over_the_dag(monkeypatch):
    # the hessian of a where chain meets equal copies of its Piecewise nodes
    # (SymPy's cache, the walk's memo): SymPy's == compared them as trees,
    # exponential in the depth (26 deep, after jvp: 4 million Piecewise
    # comparisons, 39 s); graph.equal takes each pair once, and a pair
    # known equal ends the walk (300 deep: 8 s with the first, 0.26 s)
    import mpmath
    from sympy import Symbol

    import symgrad.build as build
    from symgrad import hessian, jvp, lambdify, where

    r = Symbol("r", real=True)
    e = r
    for _ in range(26):
        e = where(e > 0, sin(e), e / 2) + r
    calls = [0]
    eq = build.Piecewise.__eq__

    def counted(a, b):
        calls[0] += 1
        assert calls[0] < 2000, "Piecewise nodes compared as trees"
        return eq(a, b)

    jvp(e, [r], [1])  # (its nodes in SymPy's cache)
    monkeypatch.setattr(build.Piecewise, "__eq__", counted)
    ((h,),) = hessian(e, [r]).tolist()

    def chain(t):
        v = t
        for _ in range(26):
            v = (mpmath.sin(v) if v > 0 else v / 2) + t
        return v

    f = lambdify([r], h)
    for t in (0.3, 0.7):
        want = mpmath.diff(chain, t, 2)
        assert want and abs(f(t) - want) < 1e-9 * abs(want)
