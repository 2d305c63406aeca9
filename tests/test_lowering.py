"""The lowering pass: markers replaced bottom-up, knowing none by name."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from symgrad import expand, lambdify, relu, sigmoid, stop_gradient
from symgrad.graph import postorder
from symgrad.lowering import lower
from symgrad.nodes import Marker

x, y = sp.symbols("x y")


class passthrough(Marker):  # noqa: N801  a marker that evaluates as its argument
    _symgrad_name = "passthrough"


class twice(Marker):  # noqa: N801  a marker whose forward formula is 2*arg
    _symgrad_name = "twice"

    def _symgrad_lower(self, *args):
        return 2 * args[0]


class nests(Marker):  # noqa: N801  lowers to something holding another marker
    _symgrad_name = "nests"

    def _symgrad_lower(self, *args):
        return twice(args[0]) + 1


def test_markers_are_replaced():
    e = passthrough(sp.sin(x)) * twice(y)
    (low,) = lower([e])  # as written: (2*y)*sin(x)
    assert not low.has(passthrough, twice) and low.doit() == 2 * y * sp.sin(x)
    assert expand(e) == 2 * y * sp.sin(x)


def test_lowering_sees_lowered_arguments_and_nested_markers():
    assert expand(twice(passthrough(x))) == 2 * x
    assert expand(nests(passthrough(x))) == 2 * x + 1


def test_plain_sympy_is_untouched_and_shared():
    e = sp.sin(x * y) + x * y
    (out,) = lower([e])
    assert out is e


def test_structures():
    assert expand([twice(x), y]) == [2 * x, y]
    assert expand((twice(x),)) == (2 * x,)
    m = expand(sp.Matrix([[twice(x), passthrough(y)]]))
    assert m == sp.Matrix([[2 * x, y]])


def test_deep_marker_chain_without_recursion_error():
    # 200 levels past Python's recursion limit: each level costs a recursive
    # walk at least one frame, so any of them fails here (5,000 levels: 1.3 s of CPU)
    import sys

    depth = sys.getrecursionlimit() + 200
    e = x
    for _ in range(depth):
        e = passthrough(e + 1)
    out = expand(e)
    assert not out.has(passthrough)
    assert lambdify(x, e)(0.0) == float(depth)


def test_lambdify_lowers_first():
    f = lambdify([x, y], twice(passthrough(x)) * y)
    np.testing.assert_array_equal(f(np.arange(3.0), 2.0), [0.0, 4.0, 8.0])


def test_an_equal_copy_of_a_node_is_no_change():
    # SymPy formulas can hold equal nodes that are distinct objects; the
    # lowered copy of one must not count as a change and rebuild (re-evaluate)
    # its parents: that re-sorted deep formulas into a RecursionError
    a = sp.Add(x, x, evaluate=False)
    b = sp.Add._from_args((x, x))  # uncached: a distinct object
    assert a == b and a is not b
    e = sp.Mul(a, sp.sin(b, evaluate=False), evaluate=False)
    assert lower([e])[0] is e


def _layers(make, depth):
    e = x
    for k in range(depth):
        e = make(sp.Rational(k % 7 + 2, 3), e)
    return e


def _holds(e, *classes):
    """Whether the DAG below ``e`` holds a node of ``classes`` (``Basic.has``
    walks the tree: exponential in the depth of a formula that shares)."""
    order, _ = postorder([e], lambda n: n.args)
    return any(isinstance(n, classes) for n in order)


def _sigmoid_chain(depth, x0):
    v = x0
    for k in range(depth):
        v = 1 / (1 + math.exp(-((k % 7 + 2) / 3 * v + 1)))
    return v


def test_deep_activation_chains_lower_in_linear_time():
    # lowering rebuilt evaluated SymPy nodes: SymPy's is_number recursed
    # through a 100-layer sigmoid chain (RecursionError in lambdify and
    # expand), sin(e) + stop_gradient(e)*x failed from depth 200, and
    # evaluating the nested Max of a relu chain took 4.7 s at depth 10,
    # over a minute at 20
    sig = _layers(lambda c, e: sigmoid(c * e + 1), 300)
    rel = _layers(lambda c, e: relu(c * e - 1) + x, 300)
    # (SymPy itself cannot build this one evaluated, 300 deep)
    sg = _layers(lambda c, e: sp.Add(sp.sin(e, evaluate=False), stop_gradient(e) * x,
                                     evaluate=False), 300)
    for e in (sig, rel, sg):
        (low,) = lower([e])
        assert not _holds(low, sigmoid, relu, stop_gradient)
        assert not _holds(expand(e), sigmoid, relu, stop_gradient)
    order, _ = postorder(lower([sig]), lambda n: n.args)
    assert sum(isinstance(n, sp.exp) for n in order) == 300
    np.testing.assert_allclose(lambdify(x, sig)(0.25), _sigmoid_chain(300, 0.25), rtol=1e-14)
    r = 0.5
    for k in range(300):
        r = max((k % 7 + 2) / 3 * r - 1, 0.0) + 0.5
    np.testing.assert_allclose(lambdify(x, rel)(0.5), r, rtol=1e-14)


def test_sigmoid_chain_of_the_issue():
    # the repro of issue 9 §3: 100 layers, lambdify and expand raised RecursionError
    e = _layers(lambda c, e: sigmoid(c * e + 1), 100)
    assert lambdify(x, e)(0.25) == pytest.approx(_sigmoid_chain(100, 0.25), rel=1e-14)
    assert not _holds(expand(e), sigmoid)


def test_cancellation_around_markers_is_exact():
    # x - stop_gradient(x) lowers to an exact 0 (attach_gradient's value
    # is exactly fx, even where gx is infinite), without evaluation above it
    e = sp.sin(x) + (x - stop_gradient(x)) / x
    assert lower([e]) == [sp.sin(x)]


def test_lowering_the_same_deep_formula_twice():
    # lambdify, then expand, of a 1000-deep stop_gradient chain: the second
    # lowering met in SymPy's cache the equal nodes the first one built, and
    # SymPy's recursive == raised RecursionError
    e = _layers(lambda c, e: sp.Add(sp.sin(e, evaluate=False),
                                    sp.Mul(stop_gradient(e), x, evaluate=False),
                                    evaluate=False), 1000)
    f = lambdify(x, e)
    assert not _holds(expand(e), stop_gradient)
    first, second = lower([e])[0], lower([e])[0]
    # (SymPy's == of the two is itself recursive: compare hashes and the DAGs)
    assert hash(first) == hash(second) and not _holds(second, stop_gradient)
    assert len(postorder([first], lambda n: n.args)[0]) == len(
        postorder([second], lambda n: n.args)[0])
    assert np.isfinite(f(0.1))
