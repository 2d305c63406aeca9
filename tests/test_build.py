"""symgrad.build.unevaluated: the one way nodes are rebuilt, for every class
of node a formula can hold, including those whose constructors take no
``evaluate=`` (sympy.codegen's logaddexp crashed check_stability)."""

from __future__ import annotations

import pytest
import sympy as sp
from sympy import Basic, Max, Piecewise, Rational, S, exp, log, sin, symbols
from sympy.codegen.cfunctions import expm1, hypot, log1p
from sympy.codegen.numpy_nodes import logaddexp, logaddexp2
from sympy.functions.elementary.piecewise import ExprCondPair

from symgrad import check_stability, stabilize
from symgrad.build import unevaluated
from symgrad.rewrites.forms import Sigmoid, Softplus, erfcx

x, y, z = symbols("x y z", real=True)


@pytest.mark.parametrize("node", [
    x + y, x * y, x**y, sin(x), Max(x, y), logaddexp(x, y), logaddexp2(x, y),
    log1p(x), expm1(x), hypot(x, y), Sigmoid(x), Softplus(x), erfcx(x),
    ExprCondPair(x, x > 0), Piecewise((x, x > 0), (y, True)), x < y,
], ids=str)
def test_rebuilds_every_kind_of_node_without_evaluating(node):
    args = tuple(z if a == x else a for a in node.args)
    got = unevaluated(node, args)
    assert type(got) is type(node) and got.args == args


def test_nothing_is_evaluated():
    assert unevaluated(x * y, (S(2), x + 1)).args == (2, x + 1)
    assert unevaluated(sin(x), (S.Zero,)).args == (0,)
    assert unevaluated(x**2, (S(2), S(3))).args == (2, 3)
    assert unevaluated(logaddexp(x, y), (y, Rational(1, 2))).args == (y, Rational(1, 2))


@pytest.mark.parametrize("formula", [
    log(exp(x) + exp(y)), logaddexp(x, y) * sin(x), log(exp(x) + exp(y)) - x,
], ids=str)
def test_logaddexp_goes_through_check_stability_and_stabilize(formula):
    dom = {x: (-800, 800), y: (-800, 800)}
    r = check_stability(formula, dom, samples=32)
    assert r.samples >= 32
    assert stabilize(formula, dom, samples=32) is not None



def test_piecewise_keeps_a_condition_holding_a_piecewise_as_written():
    from sympy import ITE
    from sympy import Piecewise as SympyPiecewise

    from symgrad.build import Piecewise as AsWritten
    from symgrad.build import piecewise

    inner = piecewise([(sin(x), x > 1), (2 * x, True)])
    assert type(inner) is SympyPiecewise  # small conditions: SymPy's evaluation
    outer = piecewise([(x, inner > 1), (y, inner > 1), (z, True)])
    assert isinstance(outer, AsWritten) and not outer.has(ITE)
    assert outer.args[0].cond == (inner > 1) and len(outer.args) == 2  # the repeat dropped
    same = Basic.__new__(SympyPiecewise, *outer.args)  # (its constructor would fold it)
    assert outer == same and same == outer and hash(outer) == hash(same)
    assert piecewise([(x, S.false), (y, True)]) == y
    assert piecewise([(y, inner > 1), (y, True)]) == y


def test_piecewise_of_a_large_value_is_built_as_written(monkeypatch):
    """A Piecewise whose value is large (or holds a Piecewise) is built as
    written, not by SymPy's constructor, whose evaluation rebuilds the
    values: equal copies of what an earlier run built, mixed into this
    run's DAG, which every dict of nodes then compares as trees.  The
    Hessian of a where chain after its gradient made 21,189 / 80,439 /
    329,007 node comparisons at 8 / 10 / 12 deep (7.7 s at 16 deep); as
    many as the DAG has nodes now, and the same values."""
    import symgrad
    from symgrad.graph import postorder

    def chain(depth):
        e = x
        for k in range(depth):
            e = symgrad.where(x > Rational(k, depth), sp.cos(e) * y + x, e / 2 - x)
        return e

    e = chain(12)
    symgrad.grad(e, x)
    calls, real_eq = [0], Basic.__eq__

    def counted(self, other):
        calls[0] += 1
        return real_eq(self, other)

    monkeypatch.setattr(Basic, "__eq__", counted)
    h = symgrad.hessian(e, [x, y])
    monkeypatch.setattr(Basic, "__eq__", real_eq)
    nodes = len(postorder([*h], lambda a: a.args)[0])
    assert calls[0] <= 2 * nodes, (calls[0], nodes)
    small = chain(3)  # the same values as SymPy's own derivatives
    exact = [[sp.diff(small, a, b) for b in (x, y)] for a in (x, y)]
    got = symgrad.hessian(small, [x, y])
    for pt in ({x: 0.3, y: 0.7}, {x: 0.9, y: -1.3}, {x: -0.2, y: 2.1}):
        for i in range(2):
            for j in range(2):
                assert abs(float(got[i, j].subs(pt)) - float(exact[i][j].subs(pt))) <= 1e-12


def test_scaled_times_and_plus_build_what_sympys_product_and_sum_build():
    # symgrad's product and sum without SymPy's evaluation: where they
    # answer, the node is SymPy's own (same class, same arguments in the
    # same order); where SymPy's evaluation could change the factors or
    # terms (like terms, factors over one base), they decline
    import itertools
    import random

    import sympy as sp

    from symgrad.build import plus, scaled, times

    x, y = sp.symbols("x y")
    z = sp.Symbol("z", positive=True)
    nc = sp.Symbol("A", commutative=False)
    atoms = [x, y, nc, sp.pi, sp.I, sp.E, sp.Integer(3), sp.Rational(1, 2), sp.Float(1.5),
             sp.Integer(-1), sp.Integer(0), sp.Float(0.0), sp.oo, sp.zoo, sp.nan]
    kinds = [x + 1, x + y, x**2, 1 / x, sp.sqrt(x), sp.sqrt(2), sp.exp(x), sp.exp(y), sp.sin(x),
             sp.cos(x), sp.Abs(x), sp.Piecewise((x, x > 0), (0, True)), sp.log(x), (x + 1)**2,
             sp.Max(x, y), x**sp.pi, sp.pi**x, sp.Function("f")(x), 2**x, sp.O(x),
             sp.Pow(2, 3, evaluate=False), sp.exp(1 / x)]
    products = [2 * x, x * y, 3 * x * sp.cos(y), x * sp.sin(x) * (x + 1), -sp.cos(x) * sp.exp(y),
                sp.pi * x, sp.sqrt(2) * x, x / (x + 1), nc * x, -200 * (x - y**2), 2 * y,
                -sp.sin(y), x * sp.exp(x), sp.Mul(sp.Float(0.0), x, evaluate=False)]
    pool = atoms + kinds + products
    answered = dict.fromkeys((scaled, times, plus), 0)

    def check(build, args):
        got = build(*args) if build is not plus else build(args)
        if got is not None:
            answered[build] += 1
            want = sp.Add(*args) if build is plus else sp.Mul(*args)
            assert type(got) is type(want) and got.args == want.args, (build, args)

    for a, b in itertools.product(pool, repeat=2):
        for build in answered:
            check(build, (a, b))
    # products of products, sums of several terms
    factors = [x, y, z, sp.sin(x), sp.cos(y), sp.exp(x), sp.exp(z), x**2, 1 / y, sp.sqrt(z),
               x + y, y - z**2, sp.log(z), sp.Abs(x), sp.Float(2.5), sp.Rational(-3, 7), -1, sp.pi,
               sp.gamma(x), x**y, (x + y)**-2]
    rng = random.Random(7)
    for _ in range(600):
        a, b = (sp.Mul(*rng.sample(factors, rng.randint(1, 4))) for _ in range(2))
        check(times, (a, b))
        terms = [sp.Mul(*rng.sample(factors, rng.randint(1, 3))) for _ in range(rng.randint(2, 4))]
        check(plus, tuple(terms))
    assert answered[scaled] > 100 and answered[times] > 800 and answered[plus] > 1500, answered


def test_replaced_keeps_a_dag_whose_equal_nodes_are_distinct_objects():
    # SymPy's cache can hold sin(x) over another, equal x: "unchanged" is by
    # equality of what was swapped, not by identity of what came back
    from symgrad.build import replaced

    x = sp.Symbol("x")
    x2 = sp.Symbol.__xnew__(sp.Symbol, "x")
    assert x2 == x and x2 is not x
    e = sp.Add(sp.Mul(sp.sin(x), sp.cos(x2)), x2)
    assert replaced(e, {sp.Symbol("y"): x}.get) is e
    assert replaced(e, {x: sp.Symbol("z")}.get) == e.subs(x, sp.Symbol("z"))


def test_only_build_calls_sympys_private_constructors():
    # issue 20 §1: one module owns how nodes are built; every other module
    # builds through it (build.bare, unevaluated, ...), never through SymPy's
    # private constructors (a class's own __new__ calling its base is not one)
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "symgrad"
    private = ("Basic.__new__(", "._from_args(", "._new_rawargs(")
    found = [f"{p.relative_to(package)}: {c}" for p in package.rglob("*.py")
             if p != package / "build.py" for c in private if c in p.read_text()]
    assert found == []
