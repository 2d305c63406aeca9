"""check_gradient: proof, departure and counterexample, forward against
reverse mode, and the proof of every entry of the default rule table."""

from __future__ import annotations

import html

import pytest
import sympy as sp

from symgrad import (
    check_gradient,
    custom_gradient,
    gradient_override_map,
    register_gradient,
    straight_through,
    unregister_gradient,
)
from symgrad.errors import SymgradError
from symgrad.resolver import node_name
from symgrad.rules import DEFAULT_TABLE

from ..rules.specs import SPECS

x, y = sp.symbols("x y")


@custom_gradient
def log1pexp(v):
    # TensorFlow's custom_gradient documentation
    e = sp.exp(v)

    def grad_fn(dy):
        return dy * (1 - 1 / (1 + e))

    return sp.log(1 + e), grad_fn


@custom_gradient
def swapped_mul(a, b):
    # the partials of a product, swapped: wrong wherever a != b
    return a * b, lambda dy: (dy * a, dy * b)


def test_tensorflow_log1pexp_gradient_is_proved():
    r = check_gradient(log1pexp(2 * x), x, {x: (-50, 50)})
    assert r.matches and r.ok and r.proof
    assert r.differs_where == [] and r.max_abs_diff < 1e-20
    assert r.jvp_vjp_consistent
    # notebook display: the same report, preformatted (and escaped in HTML)
    assert r._repr_markdown_() == f"```text\n{r}\n```"
    page = r._repr_html_()
    inner = page.removeprefix("<pre>").removesuffix("</pre>")
    assert page == f"<pre>{inner}</pre>" and "<" not in inner
    assert html.unescape(inner) == str(r)


def test_straight_through_floor_departs_everywhere_by_one():
    r = check_gradient(straight_through(sp.floor(x), x), x, {x: (-2, 2)})
    assert not r.matches and not r.confirmed and not r.ok
    assert r.max_abs_diff == 1.0
    (d,) = r.differs_where  # one run over the whole domain: the true derivative is 0 a.e.
    lo, hi = d.ranges[x]
    assert lo < -1.5 and hi > 1.5 and d.fraction == 1.0
    assert d.got == 1.0 and d.true == 0.0
    assert "the rule gives 1, the derivative is 0" in str(r)


def test_straight_through_by_override_map_departs_only_where_it_is_used():
    with gradient_override_map({"floor": "Identity"}):
        r = check_gradient(sp.floor(x) + sp.sin(y), [x, y])
    assert not r.matches
    assert {d.wrt for d in r.differs_where} == {x}  # d/dy is right


def test_swapped_product_partials_give_a_counterexample():
    r = check_gradient(swapped_mul(x, y), [x, y], {x: (1, 2), y: (3, 4)})
    assert not r.matches and not r.confirmed
    dx = next(d for d in r.differs_where if d.wrt == x)
    # at the witness, the rule gives x where the derivative is y
    assert dx.got == pytest.approx(dx.witness[x]) and dx.true == pytest.approx(dx.witness[y])
    assert r.max_abs_diff >= 1


def test_a_vjp_rule_not_linear_in_its_cotangent_breaks_jvp_against_vjp():
    @register_gradient("ClippedSin", replace=True)
    def _clipped(node, g):
        return sp.Max(sp.Min(g, 1), -1) * sp.cos(node.args[0])

    try:
        with gradient_override_map({"sin": "ClippedSin"}):
            r = check_gradient(sp.sin(x), x)
    finally:
        unregister_gradient("ClippedSin")
    assert r.matches  # at a unit cotangent it is the derivative...
    assert not r.jvp_vjp_consistent and not r.ok  # ...but not linear in it
    assert "not linear" in r.jvp_vjp_detail


def test_forward_and_reverse_rules_that_disagree_give_a_counterexample():
    from symgrad.rules.forms import Rule

    class Inconsistent(Rule):  # reverse mode: cos(x); forward mode: 2 cos(x)
        def vjp(self, node, ct, needed, opts):
            return (ct * sp.cos(node.args[0]),)

        def jvp(self, node, tangents, opts):
            return 2 * tangents[0] * sp.cos(node.args[0])

    DEFAULT_TABLE.add("Inconsistent", Inconsistent())
    try:
        with gradient_override_map({"sin": "Inconsistent"}):
            r = check_gradient(sp.sin(x), x)
    finally:
        DEFAULT_TABLE.remove("Inconsistent")
    assert r.matches and not r.jvp_vjp_consistent
    assert "u=37/10" in r.jvp_vjp_detail and "forward mode gives" in r.jvp_vjp_detail


def test_a_custom_gradient_not_linear_in_dy_is_reported():
    @custom_gradient
    def clip_sin(v):
        return sp.sin(v), lambda dy: sp.Max(sp.Min(dy, 1), -1) * sp.cos(v)

    r = check_gradient(clip_sin(x), x)
    assert not r.jvp_vjp_consistent and "not linear" in r.jvp_vjp_detail


def test_bad_input_is_named():
    with pytest.raises(SymgradError, match="scalar"):
        check_gradient([x, y], x)
    with pytest.raises(SymgradError, match="domain names y"):
        check_gradient(sp.sin(x), x, {y: (0, 1)})
    with pytest.raises(TypeError, match="check_gradient"):
        check_gradient("sin(x)", x)


def test_an_undefined_function():
    g = sp.Function("g")
    assert check_gradient(g(x), x).matches  # the formal derivative, both ways

    @register_gradient("g", replace=True)
    def _g(node, dy):
        return dy * sp.cos(node.args[0])

    try:
        r = check_gradient(g(x), x)
    finally:
        unregister_gradient("g")
    assert not r.matches and r.samples == 0 and "not compared" in str(r)


# ---- the default rule table, entry by entry ----------------------------------
_NOT_DERIVATIVES = ("override", "marker")  # rules that depart from the derivative by design


def _check(spec):
    xs = sp.symbols(f"x0:{spec.arity}")
    node = spec.build(*xs)
    domain = dict(zip(xs, spec.domain))
    if spec.kind == "override":
        with gradient_override_map({node_name(node): spec.name}):
            return check_gradient(node, list(xs), domain, samples=12)
    return check_gradient(node, list(xs), domain, samples=12)


def test_every_table_entry_is_checked():
    assert {s.name for s in SPECS} >= set(DEFAULT_TABLE.names())


@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
def test_table_entry_is_proved_or_confirmed(spec):
    r = _check(spec)
    assert r.jvp_vjp_consistent, (spec.id, r.jvp_vjp_detail)
    if spec.kind in _NOT_DERIVATIVES:
        assert not r.matches and r.differs_where, (spec.id, str(r))
    else:
        assert r.matches or r.confirmed, (spec.id, str(r))
        assert r.samples >= 6, spec.id  # compared where the formula is defined


# ---- formulas of many inputs (the sampled forward/reverse comparison) -----------
def _ring(n, inner=sp.sin):
    xs = sp.symbols(f"x0:{n}", real=True)
    return xs, sum(xs[i] * inner(xs[(i + 1) % n]) + sp.exp(xs[i] / 8) for i in range(n))


def test_a_wrong_entry_among_sixty_inputs_is_named():
    xs, f = _ring(60)  # too big for the adjoint proof: sampled along random directions
    r = check_gradient(f + swapped_mul(xs[3], xs[7]), list(xs))
    assert not r.matches and not r.confirmed
    assert {d.wrt for d in r.differs_where} == {xs[3], xs[7]}  # the other 58 are right
    assert r.jvp_vjp_consistent  # wrong, but linear and the same in both modes
    r = check_gradient(f, list(xs))
    assert r.matches and r.confirmed and r.samples == 64 and r.ok
    assert "random directions" in r.jvp_vjp_detail


def test_forward_and_reverse_disagreeing_among_sixty_inputs_are_found():
    from symgrad.rules.forms import Rule

    class Inconsistent(Rule):  # reverse mode: cos(x); forward mode: 2 cos(x)
        def vjp(self, node, ct, needed, opts):
            return (ct * sp.cos(node.args[0]),)

        def jvp(self, node, tangents, opts):
            return 2 * tangents[0] * sp.cos(node.args[0])

    xs, f = _ring(60, sp.cos)
    DEFAULT_TABLE.add("Inconsistent", Inconsistent())
    try:
        with gradient_override_map({"sin": "Inconsistent"}):
            r = check_gradient(f + sp.sin(xs[4]), list(xs))
    finally:
        DEFAULT_TABLE.remove("Inconsistent")
    assert r.matches and not r.jvp_vjp_consistent and not r.ok
    assert "forward mode gives" in r.jvp_vjp_detail and "and 52 more" in r.jvp_vjp_detail


def test_the_true_gradient_of_a_sum_is_sympys_term_by_term():
    # terms of one shape are differentiated once, their symbols renamed back: the
    # answer is still SymPy's derivative of each, with parameters and assumptions
    from symgrad.stability.check_gradient import _true_gradient

    xs = sp.symbols("x0:9", real=True)
    a, p = sp.Symbol("a", real=True), sp.Symbol("p", positive=True)
    f = sum(a * xs[i] * sp.sin(xs[i + 1]) + sp.log(p + xs[i] ** 2) for i in range(8)) \
        + sp.Abs(xs[8]) * xs[0] + sp.sqrt(p) * xs[2] * xs[5]
    wrt = [*xs, a, p]
    got = _true_gradient(f, wrt)
    assert all(sp.expand(g - sp.diff(f, s)) == 0 for g, s in zip(got, wrt))


def _sin_chain(depth: int):
    x = sp.Symbol("x", real=True)
    e = x
    for _ in range(depth):
        e = sp.sin(e) / 2 + x
    return e, x


def test_a_deep_chain_is_sampled_not_walked_as_a_tree():
    # 30 levels: ~120 operations but a tree of thousands of nodes; SymPy's
    # cancel of the difference took 150 s, the SymPy-lambdified jvp/vjp
    # defect 40 s: past EVALUATED_TREE both are sampled over the DAG
    e, x = _sin_chain(30)
    r = check_gradient(e, [x], {x: (-1, 1)}, samples=16)
    assert r.confirmed and r.samples == 16 and r.max_rel_diff < 1e-12
    assert r.jvp_vjp_consistent and "random directions" in r.jvp_vjp_detail
    assert not r.matches and "could not reduce" in r.proof  # not proved: said so


def test_a_chain_past_sympys_diff_is_refused_clearly():
    # 300 levels: SymPy's diff (the oracle) recurses per level; before, a
    # RecursionError from free_symbols
    e, x = _sin_chain(300)
    with pytest.raises(SymgradError, match="SymPy's diff, which recurses per level"):
        check_gradient(e, [x], {x: (-1, 1)})
