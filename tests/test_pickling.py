"""Pickling and copying keep a formula as written (symgrad/pickling.py)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Add, Mul, Pow

import symgrad

x, y = sp.symbols("x y", real=True)
LEAVES = [x, y, sp.Integer(-1), sp.Integer(2), sp.Rational(1, 2), sp.exp(x)]


def _trips(e):
    """``e`` through pickle at every protocol SymPy takes, and deepcopy."""
    out = [pickle.loads(pickle.dumps(e, protocol=p)) for p in range(2, pickle.HIGHEST_PROTOCOL + 1)]
    return out + [copy.deepcopy(e)]


def test_a_stabilized_form_survives_the_round_trip():
    """The audit's case (seed 8): SymPy's unpickling turned (-1/(2*y))/y back
    into -1/(2*y**2), which overflows to 0 where y**2 does."""
    e = -1 / (2 * y**2)
    form = symgrad.stabilize(e, {y: (-1e300, 1e300)}, samples=256)
    assert form != e
    pts = np.array([2e154, -3e154, 2.5])  # y**2 overflows at the first two
    want = symgrad.lambdify([y], form)(pts)
    assert want[0] != 0 and np.all(np.isfinite(want))
    for back in _trips(form):
        assert sp.srepr(back) == sp.srepr(form)
        assert np.array_equal(symgrad.lambdify([y], back)(pts), want)


def test_hand_built_forms_keep_their_terms_and_order():
    forms = [
        Add(x, x, evaluate=False),                        # SymPy: 2*x
        Mul(2, x + y, evaluate=False),                    # SymPy: 2*x + 2*y
        Add(Mul(x, sp.sign(x)), -sp.Abs(x), -1, evaluate=False),  # cancels exactly in this order
        Pow(Pow(x, 2, evaluate=False), -1, evaluate=False),  # SymPy: x**(-2)
        Mul(Pow(x, -1), Pow(x, -1), evaluate=False),      # SymPy: x**(-2)
    ]
    for f in forms:
        assert type(f)(*f.args) != f  # each one is a form SymPy's constructor changes
        for back in _trips(f):
            assert sp.srepr(back) == sp.srepr(f)


def test_canonical_formulas_pickle_as_sympy_does():
    """Nothing that SymPy's own unpickling rebuilds unchanged names symgrad:
    such a pickle loads where symgrad is not installed."""
    for e in [2 * x + y, x * sp.exp(-y) / (1 + x**2), symgrad.grad(sp.log(1 + sp.exp(x * y)), x)]:
        data = pickle.dumps(e)
        assert b"symgrad" not in data
        assert pickle.loads(data) == e


def _tree(draw_ops):
    nodes = list(LEAVES)
    for op, i, j in draw_ops:
        a, b = nodes[i % len(nodes)], nodes[j % len(nodes)]
        nodes.append(Add(a, b, evaluate=False) if op == 0 else
                     Mul(a, b, evaluate=False) if op == 1 else Pow(a, 2, evaluate=False))
    return nodes[-1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 40), st.integers(0, 40)),
                min_size=1, max_size=8))
def test_any_unevaluated_arithmetic_round_trips(ops):
    e = _tree(ops)
    back = pickle.loads(pickle.dumps(e))
    assert sp.srepr(back) == sp.srepr(e)


def test_piecewise_keeps_its_conditions_and_nesting():
    """stabilize's regimes nest a Piecewise in a Piecewise; SymPy's
    constructors fold the nesting and rewrite the conditions on loading."""
    from sympy import Piecewise

    from symgrad.build import Piecewise as WrittenPiecewise

    inner = Piecewise((x, x < 0), (2 * x, True), evaluate=False)
    nested = Piecewise((inner, -x < -1), (Add(x, x, evaluate=False), True), evaluate=False)
    written = WrittenPiecewise((x, -x < -1), (2 * x, True))
    for f in (nested, written, Mul(2, nested, evaluate=False)):
        for back in _trips(f):
            assert sp.srepr(back) == sp.srepr(f) and type(back) is type(f)


def test_a_function_sympy_would_fold_keeps_its_form_once_stabilize_returns_it():
    """stabilize's gelu and mish forms held Abs(Abs(x)): SymPy's Abs folds it
    on loading; stabilize registers the classes of what it returns."""
    from sympy import Abs

    from symgrad.pickling import keep_as_written

    f = Mul(x, Abs(Abs(x, evaluate=False), evaluate=False), evaluate=False)
    keep_as_written([f])
    for back in _trips(f):
        assert sp.srepr(back) == sp.srepr(f)
