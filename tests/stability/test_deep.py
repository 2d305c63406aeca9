"""check_stability over a DAG whose tree is exponential (e = sin(e) + e,
nested 30 times: 31 distinct nodes, about 2**30 in the tree): every walk is
over the DAG, every sentence of the report is printed brief, so it finishes
(before, refuse_non_real's tree walk took 15 s at depth 22, and printing one
proof sentence 21.5 s at depth 16)."""

from __future__ import annotations

import pytest
from sympy import S, sin, symbols

from symgrad import SymgradError, check_stability

x = symbols("x", real=True)


def _deep(depth: int, leaf=x):
    e = leaf
    for _ in range(depth):
        e = sin(e) + e
    return e


def test_a_deep_dag_goes_through_check_stability():
    r = check_stability(_deep(30), {x: (-3, 3)}, samples=32)
    text = str(r)
    assert r.samples >= 32 and len(text) < 5000
    assert "…" in text  # the formula is shown cut, not as its 2**30-node tree


def test_a_deep_dag_holding_zoo_is_refused_at_once():
    with pytest.raises(SymgradError, match="zoo"):
        check_stability(_deep(30, S.ComplexInfinity * x), {x: (-3, 3)}, samples=8)
