"""Proofs over the whole domain (symgrad/stability/bounds.py): the boxes
that cover it stay few however many variables there are."""

import mpmath
import pytest
from sympy import gamma, symbols

from symgrad.stability import bounds
from symgrad.stability.bits import FORMATS
from symgrad.stability.intervals import OPS

F64 = FORMATS["float64"]


@pytest.mark.parametrize("n", [3, 10])
def test_many_variables_are_proved_over_a_bounded_number_of_boxes(n, monkeypatch):
    """A gradient over a 2x2 network's 14 matrix entries was proved over
    2**14 boxes (177 s of a 199 s check_stability); the boxes are capped,
    and what holds over the domain is still proved."""
    xs = symbols(f"x:{n}", real=True)
    f = sum(v * v for v in xs)
    dom = {v: (-3.0, 3.0) for v in xs}
    runs = []
    run = bounds.run  # the float tier takes every box at once (symgrad/stability/boxes.py)
    monkeypatch.setattr(bounds, "run", lambda prog, lo, *a: runs.append(lo.shape[1]) or
                        run(prog, lo, *a))
    prog, hull = bounds.node_bounds([f], xs, dom, F64)
    assert runs and sum(runs) <= 256
    lo, hi = hull[prog.order.index(f)]
    assert lo <= 0 and hi >= 9 * n
    assert any("no overflow" in p.statement for p in bounds.prove([f], xs, dom, F64))


def test_gamma_far_left_of_zero_is_bounded_by_reflection():
    """mpmath's interval gamma recursed once per unit up to 0: gamma over
    [-9999.75, -9999.25] raised RecursionError in the proofs (and in the
    ground truth's interval tier). Now pi/(sin(pi x) gamma(1 - x)): the
    bound holds the true values, of the sign gamma has there."""
    x = symbols("x", real=True)
    prog, hull = bounds.node_bounds([gamma(x)], [x], {x: (-70.5, -70.2)}, F64, fast=False)
    lo, hi = hull[-1]
    for v in (-70.5, -70.35, -70.2):
        assert lo <= float(mpmath.gamma(v)) <= hi < 0
    _, hull = bounds.node_bounds([gamma(x)], [x], {x: (-9999.75, -9999.25)}, F64)
    assert isinstance(hull[-1], tuple)
    mp = OPS["gamma"](80, (mpmath.mpf(-9999.5)._mpf_, mpmath.mpf(-9999.5)._mpf_))
    assert mpmath.mpf(mp[0]) <= mpmath.gamma(-9999.5) <= mpmath.mpf(mp[1])
