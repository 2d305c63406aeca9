"""The lowering pass: markers replaced bottom-up, knowing none by name."""

from __future__ import annotations

import numpy as np
import sympy as sp

from symgrad import expand, lambdify
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
    assert lower([e]) == [2 * y * sp.sin(x)]
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
    e = x
    for _ in range(5000):
        e = passthrough(e + 1)
    out = expand(e)
    assert not out.has(passthrough)
    assert lambdify(x, e)(0.0) == 5000.0


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
