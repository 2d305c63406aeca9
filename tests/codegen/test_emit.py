"""Emission's passes: planning, naming (temporaries reuse dead names) and
printing over the final names."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import lambdify, numpy_code
from symgrad.codegen.emit import build_program
from symgrad.codegen.names import Namer
from symgrad.codegen.naming import REUSE_AFTER
from symgrad.codegen.print_pass import _renamed
from symgrad.codegen.printer import NoNumpyFormError

x, y = sp.symbols("x y")


def test_renaming_is_simultaneous_and_evaluates_nothing():
    t0, t1, t2 = sp.symbols("t0 t1 t2")
    tree = sp.Add(sp.Mul(t0, t1, evaluate=False), sp.Pow(t1, 2), t0, evaluate=False)
    got = _renamed(tree, {t0: t1, t1: t0})
    assert sp.srepr(got) == sp.srepr(
        sp.Add(sp.Mul(t1, t0, evaluate=False), sp.Pow(t0, 2), t1, evaluate=False))
    pw = sp.Piecewise((t0, t1 > 0), (t2, True))
    got = _renamed(pw, {t1: t2, t2: t1})
    assert got.args[0].cond == (t2 > 0) and got.args[1].expr == t1


def test_long_programs_print_over_the_reused_names():
    e = x
    for _ in range(2 * REUSE_AFTER + 20):
        e = sp.sin(e * y) + x  # (a contraction at y = 0.3: roundings do not grow)
    namer = Namer({"x", "y"})
    prog = build_program([e], {x: "x", y: "y"}, namer.temps())
    names = {st.name for st in prog.statements}
    assert len(names) <= prog.max_live + 1 < len(prog.statements)
    for st in prog.statements:  # every name read is assigned before, or an argument
        assert st.tree is None and st.code
    fn = lambdify([x, y], e, threads=1)
    a = np.linspace(-1, 1, 50)
    want = a
    for _ in range(2 * REUSE_AFTER + 20):
        want = np.sin(want * 0.3) + a
    np.testing.assert_allclose(fn(a, 0.3), want, rtol=1e-12)


def test_short_programs_keep_one_name_per_value():
    src = numpy_code([x, y], [sp.sin(x * y) ** 2 + sp.sin(x * y), sp.cos(x * y)])
    assert "t0 = x*y" in src and "t1 = np.sin(t0)" in src


def test_printing_errors_name_the_node():
    g = sp.Function("g")
    with pytest.raises(NoNumpyFormError, match="undefined function g"):
        numpy_code([x], g(x) + 1)
    with pytest.raises(NoNumpyFormError, match="hankel1"):
        numpy_code([x], sp.hankel1(1, x) * x)


def test_products_holding_a_factor_and_divisor_divide_them_once():
    # x*t/r, y*t/r and exp(x)*t/r: each product is its other factors times
    # t/r (the pair its own structure chooses: its divisor and its last
    # factor), so t/r is computed once and is the same float whichever
    # outputs are compiled (test below), as SymPy's cse shares it
    r, t = sp.sqrt(x**2 + y**2 + 1), sp.tanh(x - y)
    exprs = [x * t / r + sp.sin(y), y * t / r + sp.cos(x), t / r * sp.exp(x)]
    src = numpy_code([x, y], exprs)
    assert src.count("/") == 1 and "t2 = t1/t0" in src and src.count("*t2") == 3, src
    fn = lambdify([x, y], exprs)
    ref = sp.lambdify([x, y], exprs, "mpmath")
    rng = np.random.default_rng(1)
    for a, b in [*rng.standard_normal((20, 2)) * 3, (1e-300, 2e-310), (30.0, -20.0)]:
        for got, want in zip(fn(a, b), ref(a, b)):  # (sums of terms of size 1 at most)
            assert abs(got - float(want)) <= 4e-15 * max(1, abs(float(want))), (a, b)


def test_a_quotient_only_branches_use_runs_quietly():
    r = x**2 + 1
    e = sp.Piecewise((x * sp.log(y) / r + y * sp.log(y) / r, y > 0), (x / r, True))
    fn = lambdify([x, y], e)
    with np.errstate(all="raise"):  # log(y) at y <= 0 is computed, never seen
        got = fn(np.array([1.0, 2.0]), np.array([-1.0, np.e]))
    np.testing.assert_allclose(got, [0.5, (2 + np.e) / 5], rtol=1e-15)


def test_a_product_and_its_negation_are_multiplied_once():
    # the gradient of sqrt(x**2 + y**2)*tanh(x - y) holds (1 - t**2)*r and its
    # negation: one product, subtracted where negated, the same floats
    p = sp.exp(x) * sp.sin(y) * (x - y)
    exprs = [p + sp.cos(x), sp.Add(sp.Mul(-1, *p.args), sp.Mul(-1, y, x), sp.tan(y),
                                   evaluate=False)]
    src = numpy_code([x, y], exprs)
    assert src.count("np.exp(x)") == 1 and src.count("*") == 3, src  # p (2), x*y
    fn = lambdify([x, y], exprs)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 500)) * 3
    p_ = (a - b) * np.exp(a) * np.sin(b)  # (SymPy's order of the factors)
    want = [p_ + np.cos(a), -((a - b) * np.exp(a)) * np.sin(b) - a * b + np.tan(b)]
    for got, w in zip(fn(a, b), want):
        np.testing.assert_array_equal(got, w)


def _same_floats(a, b) -> bool:
    """Bitwise the same floats: NaN where NaN, the sign of zero too."""
    a, b = np.asarray(a), np.asarray(b)
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b)) and np.array_equal(a[~nan], b[~nan])
                and np.array_equal(np.signbit(a[~nan]), np.signbit(b[~nan])))


def _multi_output_gradients():
    from symgrad import grad

    z = sp.symbols("z0:3", real=True)
    w = sp.Symbol("w", real=True)
    yield "softmax entry", list(z), grad(sp.exp(z[0]) / sum(sp.exp(v) for v in z), list(z))
    yield "softmax cross-entropy", list(z), grad(sp.log(sum(sp.exp(v) for v in z)) - z[0],
                                                 list(z))
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    yield "bench_eval's", [x, y], grad(f, [x, y])  # (x t/r and y t/r: a quotient in both)
    # (the quotient's factor inlined alone, a temporary jointly)
    yield "a factor the products alone read", [x, y], [x * sp.sin(y) / (x**2 + 1),
                                                       y * sp.sin(y) / (x**2 + 1)]
    # (a product with a negative number first, over a quotient inlined alone:
    # printed -x*w*t/r by SymPy's printer, other roundings, before 2026-11-27)
    t, r = sp.tanh(x - y), sp.sqrt(w**2 + x**2)
    for c in (-1, -3):
        yield f"a negated product ({c}) over a quotient", [x, y, w], [c * w * x * t / r,
                                                                      y * t / r]
    yield "two reciprocals", [x, y, w], grad(y / (x * w) + sp.exp(x) / w + y / x, [x, y, w])
    from ..rules.specs import SPECS

    for spec in SPECS:
        if spec.kind == "smooth" and spec.arity >= 2:
            ts = sp.symbols(f"t0:{spec.arity}", real=True)
            e = spec.build(*(t + 1 for t in ts))
            yield spec.id, list(ts), grad(e, list(ts))


def test_an_outputs_floats_do_not_depend_on_the_other_outputs_compiled_with_it():
    # lambdify(args, g)(...)[k] is bitwise lambdify(args, g[k])(...): no plan
    # (divisions, inlining, shared quotients) is decided by how many users a
    # node has, which the other outputs change (softmax's gradient gave NaN
    # alone and -0.0 jointly, and 1-ulp differences, before 2026-11-27)
    rng = np.random.default_rng(3)
    checked = 0
    for name, args, g in _multi_output_gradients():
        if len(g) < 2:
            continue
        cols = [rng.choice([-1, 1], 300) * 10.0 ** rng.uniform(-3, 3, 300) for _ in args]
        cols[0][:4] = [800.0, -800.0, 0.0, 1e-300]
        with np.errstate(all="ignore"):
            joint = lambdify(args, list(g), threads=1)(*cols)
            for k, e in enumerate(g):
                alone = lambdify(args, e, threads=1)(*cols)
                assert _same_floats(joint[k], alone), (name, k, e)
        checked += 1
    assert checked >= 5
