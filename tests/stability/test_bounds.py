"""Proofs over the whole domain (symgrad/stability/bounds.py): the boxes
that cover it stay few however many variables there are."""

import pytest
from sympy import symbols

from symgrad.stability import bounds
from symgrad.stability.bits import FORMATS

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
    run = bounds.Program.run
    monkeypatch.setattr(bounds.Program, "run", lambda self, *a, **k: runs.append(1) or
                        run(self, *a, **k))
    prog, hull = bounds.node_bounds([f], xs, dom, F64)
    assert len(runs) <= 256
    lo, hi = hull[prog.order.index(f)]
    assert lo <= 0 and hi >= 9 * n
    assert any("no overflow" in p.statement for p in bounds.prove([f], xs, dom, F64))
