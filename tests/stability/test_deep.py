"""check_stability over a DAG whose tree is exponential (e = sin(e) + e,
nested 30 times: 31 distinct nodes, about 2**30 in the tree): every walk is
over the DAG, every sentence of the report is printed brief, so it finishes
(before, refuse_non_real's tree walk took 15 s at depth 22, and printing one
proof sentence 21.5 s at depth 16)."""

from __future__ import annotations

import pytest
from sympy import Add, S, sin, symbols

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


def _chain(depth: int, leaf=x):
    """e = sin(e)/2 + x nested ``depth`` times: one node per level, but
    SymPy's recursive queries (is_number, ==) go a few frames per level.
    (sin built unevaluated: its evaluation compares the argument with
    cached nodes, which recursed when another test had built a chain in the
    same process: the file failed run alone, passed under xdist)"""
    e = leaf
    for _ in range(depth):
        e = sin(e, evaluate=False) / 2 + x
    return e


def test_range_bands_on_a_200_deep_form():
    # bands.range_bands asked SymPy's is_number of every node and tested a
    # list's membership (==, as trees): RecursionError at depth 300 (200 here)
    import numpy as np

    from symgrad.stability.bands import range_bands
    from symgrad.stability.bits import FORMATS
    from symgrad.stability.sampling import float_range

    v = symbols("v", positive=True)
    fmt = FORMATS["float32"]
    start = np.array([[0.5, 1e-30], [1e-3, 1e-20]], dtype=np.float32)
    ranges = [float_range(0.0, 1.0, fmt), float_range(0.0, 0.25, fmt)]
    g = 1 + _chain(200) / 4  # within [1, 1.4] over [0, 1]: the product's band stays
    rows = range_bands([(x * (1 - x) / v - 1) * x * g], [x, v], start, ranges, fmt)
    assert len(rows)
    with np.errstate(all="ignore"):
        q = rows[:, 0] * (1 - rows[:, 0]) / rows[:, 1]  # overflows in float32 ...
    f = rows[:, 0].astype(float) * (rows[:, 0] * (1 - rows[:, 0].astype(float)) / rows[:, 1])
    assert bool(np.isinf(q).all() and (1.4 * f < 3e38).all())  # ... the value is finite


def test_a_sum_of_1200_terms_is_folded_without_recursion():
    # floats.additions rebuilt the kernel's left fold recursively, a frame
    # per term: RecursionError past ~1000 terms
    from symgrad.stability.floats import additions

    e = Add(S.Half, *[sin(k * x, evaluate=False) for k in range(1, 1201)])
    steps = additions(e)
    assert len(steps) == 1200 and steps[-1][2] is e
    assert steps[0][0] == S.Half and all(s.args == (a, b) for a, b, s in steps[:-1])
    assert all(steps[i][2] is steps[i + 1][0] for i in range(1199))



def test_stabilizations_text_shows_a_deep_formula_brief():
    # Stabilization.__str__ printed source and choice with SymPy's printer:
    # stabilize(..., explain=True) of e = exp(-e)/2 + x nested 120 deep
    # raised RecursionError at its last line; past 100 levels, brief
    from symgrad.stability.stabilize import _shown

    e = _chain(200)
    text = _shown(e)
    assert "…" in text and len(text) < 200 and text.startswith("x + sin(")
    assert _shown(sin(x) / 2 + x) == str(sin(x) / 2 + x)


def _frames() -> int:
    import sys

    f, n = sys._getframe(), 0
    while f is not None:
        f, n = f.f_back, n + 1
    return n


def test_check_gradient_of_a_wide_product_does_not_recurse_per_factor():
    # the gradient's terms share tall prefix and suffix products: SymPy's
    # sum of gradient minus truth sorted them with Basic.compare, a frame
    # per level they share (a 1,000-factor product: 33 s, then
    # RecursionError); here 70 factors with 60 frames to spare
    import sys

    from sympy import Mul

    from symgrad import check_gradient

    e = Mul(*[1 + x / k for k in range(1, 71)])
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_frames() + 60)
    try:
        r = check_gradient(e, x, {x: (-1, 1)}, samples=2)
    finally:
        sys.setrecursionlimit(limit)
    assert r.confirmed and r.jvp_vjp_consistent and r.max_rel_diff < 1e-25


def test_forward_and_reverse_mode_share_a_products_prefixes():
    # built twice, past SymPy's cache (it keeps 1,000 nodes: cleared here),
    # the prefix products are equal copies as tall as the product is wide,
    # and == between them (one dict holding both: lowering, Values) walks
    # them a level per level: RecursionError for 300 factors in check_gradient
    from sympy import Dummy, Mul
    from sympy.core.cache import clear_cache

    from symgrad import jvp, vjp
    from symgrad.graph import postorder

    e = Mul(*[1 + x / k for k in range(1, 41)])
    jv = jvp(e, [x], [Dummy("v")])
    clear_cache()
    (vj,) = vjp(e, [x], Dummy("u"))
    nodes = {}  # by object
    stack = [jv, vj]
    while stack:
        n = stack.pop()
        if id(n) not in nodes and n.args:
            nodes[id(n)] = n
            stack.extend(n.args)
    tall = [n for n in nodes.values() if n.is_Mul and len(postorder([n], lambda m: m.args)[0]) > 40]
    assert len(tall) > 40 and len({hash(n) for n in tall}) == len(tall)
