"""Proofs over the whole domain (symgrad/stability/bounds.py): the boxes
that cover it stay few however many variables there are."""

import time

import pytest
from sympy import exp, symbols, tanh

from symgrad.stability.bits import FORMATS
from symgrad.stability.bounds import node_bounds, prove

F64 = FORMATS["float64"]


@pytest.mark.parametrize("n", [14])
def test_many_variables_are_proved_over_a_bounded_number_of_boxes(n):
    """A gradient over a 2x2 network's 14 matrix entries made 2**14 boxes
    (177 s of a 199 s check_stability); the boxes are capped, and what holds
    over the domain is still proved."""
    xs = symbols(f"x:{n}", real=True)
    f = sum(tanh(v) * exp(v) for v in xs)
    dom = {v: (-3.0, 3.0) for v in xs}
    t0 = time.perf_counter()
    prog, hull = node_bounds([f], xs, dom, F64)
    assert time.perf_counter() - t0 < 5
    lo, hi = hull[prog.order.index(f)]
    assert lo <= n * float(tanh(-0.5) * exp(-0.5)) and hi >= n * float(tanh(3.0) * exp(3.0))
    assert any("no overflow" in p.statement for p in prove([f], xs, dom, F64))
