"""register_gradient, gradient_override_map and override (issue 4)."""

from __future__ import annotations

import asyncio
import pickle
import threading

import numpy as np
import pytest
import sympy as sp

from symgrad import (
    NoRuleError,
    RuleError,
    SymgradError,
    expand,
    grad,
    gradient_override_map,
    hessian,
    identity,
    jacobian,
    jvp,
    lambdify,
    override,
    register_gradient,
    stop_gradient,
    unregister_gradient,
    vjp,
)
from symgrad.overrides import canonical_node_name
from symgrad.resolver import ACTIVE_MAPS
from symgrad.rules import DEFAULT_TABLE

x, y, z = sp.symbols("x y z", real=True)


@pytest.fixture
def registry():
    """Names registered by a test are removed after it."""
    before = set(DEFAULT_TABLE.names())
    yield
    for name in set(DEFAULT_TABLE.names()) - before:
        unregister_gradient(name)


@pytest.fixture
def custom_grad(registry):
    @register_gradient("CustomGrad")
    def _const_mul_grad(unused_node, grad):
        return 5 * grad

    return _const_mul_grad


# ---- the examples ----------------------------------------------------


def test_custom_grad_on_identity(custom_grad):
    with gradient_override_map({"Identity": "CustomGrad"}):
        assert grad(identity(x, name="Identity"), x) == 5
    assert grad(identity(x, name="Identity"), x) == 1


def test_floor_straight_through_by_map():
    with gradient_override_map({"Floor": "Identity"}):
        assert grad(sp.floor(x) * y, x) == y
    assert grad(sp.floor(x) * y, x) == 0


def test_override_tags_one_node_only():
    e = override(sp.floor(x), {"floor": "Identity"}) + sp.floor(y)
    assert grad(e, [x, y]) == [1, 0]


def test_override_keeps_every_tag_it_puts():
    # the parents of a tagged node were rebuilt with SymPy's evaluation, whose
    # product merges exponentials into a new plain exp: both tags of sinh's
    # textbook form were lost and grad gave cosh, silently (before 2026-11-27)
    t = override(sp.exp(x) / 2 - sp.exp(-x) / 2, {"exp": "Identity"})
    assert grad(t, x) == 1
    t = override(sp.floor(2 * sp.exp(-x) / (1 + sp.exp(-x)) - 1), {"floor": "Identity",
                                                                   "exp": "Identity"})
    e = float(sp.exp(-0.3))  # d exp[Identity](-x) = -dx: -(2/(1 + e) - 2e/(1 + e)**2)
    assert float(grad(t, x).subs(x, 0.3)) == pytest.approx(-(2 / (1 + e) - 2 * e / (1 + e)**2))

def test_stop_gradient_product():
    g = grad(x * stop_gradient(x), x)
    assert g == stop_gradient(x)
    assert expand(g) == x


def test_map_without_matching_node_changes_nothing():
    e = sp.sin(x) * sp.exp(y) + sp.Max(x, y) + sp.Abs(x)
    plain = grad(e, [x, y])
    with gradient_override_map({"Floor": "Identity"}):
        assert grad(e, [x, y]) == plain
        assert jvp(e, [x, y], [1, 2]) == jvp(e, [x, y], [1, 2])


# ---- register_gradient ------------------------------------------------------------


def test_register_vjp_serves_both_modes(custom_grad):
    with gradient_override_map({"sin": "CustomGrad"}):
        assert grad(sp.sin(x**2), x) == 10 * x
        assert jvp(sp.sin(x**2), x, 1) == 10 * x
        assert vjp(sp.sin(x**2), x, 2) == 20 * x


def test_register_partials_form(registry):
    @register_gradient("SwapPartials", form="partials")
    def _swap(node, a, b):
        return (b * 0 + 7, 11)

    f = sp.Function("pair")(x, y)
    with gradient_override_map({"pair": "SwapPartials"}):
        assert grad(f, [x, y]) == [7, 11]
        assert jvp(f, [x, y], [1, 1]) == 18


def test_register_jvp_form(registry):
    @register_gradient("TwiceTangent", form="jvp")
    def _jvp(node, tangents):
        (t,) = tangents
        return 2 * t

    with gradient_override_map({"exp": "TwiceTangent"}):
        assert jvp(sp.exp(3 * x), x, 1) == 6
        assert grad(sp.exp(3 * x), x) == 6


def test_registered_name_is_a_node_name(registry):
    @register_gradient("erf2")
    def _erf2(node, g):
        return g * 2 * sp.exp(-node.args[0] ** 2) / sp.sqrt(sp.pi)

    f = sp.Function("erf2")
    assert grad(f(x**2), x) == 4 * x * sp.exp(-x**4) / sp.sqrt(sp.pi)


def test_register_twice_is_an_error(custom_grad):
    with pytest.raises(SymgradError, match="already registered.*replace=True"):
        register_gradient("CustomGrad")
    register_gradient("CustomGrad", replace=True)(lambda node, g: 7 * g)
    with gradient_override_map({"Identity": "CustomGrad"}):
        assert grad(identity(x), x) == 7


def test_register_bad_arguments_leave_nothing_behind(registry):
    before = DEFAULT_TABLE.names()
    with pytest.raises(ValueError, match="form"):
        register_gradient("Bad", form="hessian")
    with pytest.raises(TypeError):
        register_gradient("Bad")(42)
    with pytest.raises(TypeError):
        register_gradient(3)
    assert DEFAULT_TABLE.names() == before


def test_replacing_a_builtin_keeps_its_class(registry):
    try:
        register_gradient("floor", replace=True)(lambda node, g: g)
        assert grad(sp.floor(x), x) == 1
        # an undefined function that happens to be called floor is not a floor
        assert grad(sp.Function("floor")(x), x) == sp.Derivative(sp.Function("floor")(x), x)
    finally:
        unregister_gradient("floor")  # restores the built-in rule
    assert grad(sp.floor(x), x) == 0


# ---- bad rules ---------------------------------------------------------------------


def test_rule_that_raises_names_node_and_rule(registry):
    @register_gradient("Broken")
    def _broken(node, g):
        raise ZeroDivisionError("oops")

    with gradient_override_map({"sin": "Broken"}):
        with pytest.raises(RuleError, match=r"'Broken'.*ZeroDivisionError.*sin\(x\)"):
            grad(sp.sin(x), x)
    assert ACTIVE_MAPS.get() == ()


def test_rule_with_wrong_count(registry):
    register_gradient("TwoForOne")(lambda node, g: (g, g))
    with gradient_override_map({"exp": "TwoForOne"}):
        with pytest.raises(RuleError, match=r"'TwoForOne' returned 2 cotangents.*exp\(x\)"):
            grad(sp.exp(x), x)


def test_rule_returning_non_expression(registry):
    register_gradient("Stringy")(lambda node, g: "1")
    with gradient_override_map({"exp": "Stringy"}):
        with pytest.raises(RuleError, match=r"'Stringy' returned '1' \(str\).*exp\(x\)"):
            grad(sp.exp(x), x)
        with pytest.raises(RuleError, match="Stringy"):
            jvp(sp.exp(x), x, 1)


@pytest.mark.parametrize("rule", ["Select", "Piecewise", "Maximum", "Min"])
def test_structural_rule_on_a_node_it_cannot_serve(rule):
    # Select's rule needs a Piecewise node and Maximum's two arguments; mapped
    # onto floor(x) they must say so, not crash (AttributeError) or return a
    # formula holding zoo
    for op in (grad, lambda e, s: jvp(e, s, 1)):
        with gradient_override_map({"floor": rule}):
            with pytest.raises(RuleError, match=rf"'{DEFAULT_TABLE.canonical(rule)}'.*floor\(x\)"):
                op(sp.floor(x) * y, x)
        with pytest.raises(RuleError, match=r"floor\[\w+\]\(x\)"):  # the tag shown
            op(override(sp.floor(x), {"floor": rule}), x)


def test_rule_returning_none_means_no_gradient(registry):
    register_gradient("FirstOnly")(lambda node, g: (g, None))
    with gradient_override_map({"atan2": "FirstOnly"}):
        assert grad(sp.atan2(x, y), [x, y]) == [1, 0]


# ---- gradient_override_map ------------------------------------------------------


def test_maps_nest_inner_wins_outer_still_applies():
    e = sp.floor(x) + sp.ceiling(y)
    with gradient_override_map({"floor": "Identity", "ceiling": "Identity"}):
        assert grad(e, [x, y]) == [1, 1]
        with gradient_override_map({"floor": "Zero"}):
            assert grad(e, [x, y]) == [0, 1]
        assert grad(e, [x, y]) == [1, 1]
    assert grad(e, [x, y]) == [0, 0]


def test_map_restored_on_exception():
    with pytest.raises(KeyError):
        with gradient_override_map({"floor": "Identity"}):
            raise KeyError("inside")
    assert ACTIVE_MAPS.get() == ()
    assert grad(sp.floor(x), x) == 0


def test_map_argument_errors():
    with pytest.raises(TypeError, match="dict from node name to rule name"):
        with gradient_override_map([("floor", "Identity")]):
            pass
    with pytest.raises(TypeError, match="string"):
        with gradient_override_map({"floor": 1}):
            pass
    with pytest.raises(NoRuleError, match=r"'flor'.*'floor'"):
        with gradient_override_map({"flor": "Identity"}):
            pass
    with pytest.raises(NoRuleError, match=r"'Identiy'.*'Identity'"):
        with gradient_override_map({"floor": "Identiy"}):
            pass
    assert ACTIVE_MAPS.get() == ()


def test_maps_are_thread_local():
    barrier = threading.Barrier(2)
    results: dict[str, object] = {}

    def worker(label: str, mapping: dict) -> None:
        with gradient_override_map(mapping):
            barrier.wait(timeout=10)  # both maps active at once
            results[label] = grad(sp.floor(x) * 3, x)
            barrier.wait(timeout=10)

    threads = [
        threading.Thread(target=worker, args=("identity", {"Floor": "Identity"})),
        threading.Thread(target=worker, args=("zero", {"Floor": "Zero"})),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"identity": 3, "zero": 0}


def test_maps_are_task_local():
    async def task(mapping: dict, started: asyncio.Event, other: asyncio.Event):
        with gradient_override_map(mapping):
            started.set()
            await other.wait()
            return grad(sp.floor(x), x)

    async def main():
        a, b = asyncio.Event(), asyncio.Event()
        return await asyncio.gather(
            task({"floor": "Identity"}, a, b), task({"floor": "Zero"}, b, a)
        )

    assert asyncio.run(main()) == [1, 0]


# ---- override tags ------------------------------------------------------------------


def test_tag_substitutes_and_evaluates_like_untagged():
    t = override(sp.floor(x) + sp.exp(y), {"floor": "Identity"})
    plain = sp.floor(x) + sp.exp(y)
    assert t.subs(x, sp.Rational(5, 2)) == 2 + sp.exp(y)
    moved = t.subs(x, z)
    assert grad(moved, z) == 1
    pt = {x: sp.Float(2.5), y: sp.Integer(0)}
    assert t.evalf(subs=pt) == plain.evalf(subs=pt) == sp.Float(3)
    f = lambdify([x, y], t)
    assert f(2.5, 0.0) == 3.0
    assert expand(t) == plain


# ---- tags are visible in every printer; a round trip never drops one (issue 8 §2) ----


def test_tag_is_visible_in_str_pretty_latex_and_srepr():
    t = override(sp.floor(x) + sp.exp(y), {"floor": "Identity"})
    assert set(str(t).split(" + ")) == {"floor[Identity](x)", "exp(y)"}
    assert sp.srepr(override(sp.floor(x), {"floor": "Identity"})) == (
        "floor['Identity'](Symbol('x', real=True))")
    assert "[Identity]" in sp.pretty(t) and "⌊x⌋" in sp.pretty(t, use_unicode=True)
    assert r"\underset{\text{Identity}}" in sp.latex(t)
    assert str(t) != str(sp.floor(x) + sp.exp(y))  # a tagged node differs, visibly
    m = override(sp.Max(x, 1), {"Max": "Identity"})
    assert str(m) == "Max[Identity](1, x)"


def test_srepr_and_str_round_trip_of_a_tagged_node_fails_loudly_not_grad_0():
    # was: sympify(srepr(t)) gave a plain floor, and grad 1 silently became 0
    t = override(sp.floor(x), {"floor": "Identity"})
    assert grad(t, x) == 1
    for text in (sp.srepr(t), str(t)):
        with pytest.raises((TypeError, sp.SympifyError)):
            sp.sympify(text)
    assert grad(pickle.loads(pickle.dumps(t)), x) == 1  # pickle keeps the tag


def test_tagged_node_is_its_own_node_for_subs_and_cancel():
    # a tagged floor(x) is not floor(x): the printers now say so
    t = override(sp.floor(x), {"floor": "Identity"})
    e = t + 1
    assert e.subs(sp.floor(x), 5) == e and str(e) == "floor[Identity](x) + 1"
    assert e.subs(t, 5) == 6
    assert t - sp.floor(x) != 0 and expand(t - sp.floor(x)) == 0


def test_tag_on_a_custom_function_node_prints_with_its_name():
    from symgrad import custom_gradient

    @custom_gradient
    def square(a):
        return a**2, lambda dy: 2 * a * dy

    t = override(square(x), {"square": "Zero"})
    assert str(t) == "square[Zero](x)" and grad(t, x) == 0


def test_tag_pickles():
    t = override(sp.floor(x) * y, {"floor": "Identity"})
    back = pickle.loads(pickle.dumps(t))
    assert str(back) == str(t)
    assert grad(back, x) == y


def test_precedence_tag_over_map_over_table():
    t = override(sp.floor(x), {"floor": "Identity"})
    with gradient_override_map({"floor": "Zero"}):
        assert grad(t, x) == 1  # the tag wins over the map
        assert grad(sp.floor(x), x) == 0
    with gradient_override_map({"sin": "Zero"}):
        assert grad(sp.sin(x), x) == 0  # the map wins over the table
    assert grad(sp.sin(x), x) == sp.cos(x)


def test_override_cannot_tag_add():
    with pytest.raises(SymgradError, match="identity"):
        override(x + y, {"Add": "Zero"})


def test_override_matrix_and_tf_names():
    m = override(sp.Matrix([sp.floor(x), sp.ceiling(y)]), {"Floor": "Identity", "Ceil": "Identity"})
    assert grad(m[0] + m[1], [x, y]) == [1, 1]


# ---- aliases and built-in rules ----------------------------------------------------

ALIASES = [
    ("Floor", sp.floor(x)),
    ("Ceil", sp.ceiling(x)),
    ("Sign", sp.sign(x)),
    ("Abs", sp.Abs(x)),
    ("Exp", sp.exp(x)),
    ("Log", sp.log(x)),
    ("Maximum", sp.Max(x, 2 * z)),
    ("Minimum", sp.Min(x, 2 * z)),
    ("Select", sp.Piecewise((x**2, z > 0), (3 * x, True))),
    ("SelectV2", sp.Piecewise((x**2, z > 0), (3 * x, True))),
]


@pytest.mark.parametrize("tf_name,node", ALIASES, ids=[a for a, _ in ALIASES])
def test_tf_aliases_name_nodes(tf_name, node):
    assert canonical_node_name(tf_name) == type(node).__name__
    with gradient_override_map({tf_name: "StopGradient"}):
        assert grad(node, x) == 0
    with gradient_override_map({type(node).__name__: "StopGradient"}):
        assert grad(node, x) == 0


def test_more_aliases():
    from symgrad import relu, rint, sigmoid, softplus

    for name, node in [("Round", rint(x)), ("Sigmoid", sigmoid(x)),
                       ("Softplus", softplus(x)), ("Relu", relu(x))]:
        with gradient_override_map({name: "Identity"}):
            assert grad(node, x) == 1, name
    with gradient_override_map({"StopGradient": "Identity"}):
        assert grad(x * stop_gradient(x), x) == x + stop_gradient(x)


@pytest.mark.parametrize("tf_name", ["Sqrt", "Rsqrt", "Square", "Reciprocal"])
def test_tf_power_ops_do_not_silently_map_every_power(tf_name):
    # SymPy has no sqrt node (sqrt(x) is Pow(x, 1/2)): {"Sqrt": ...} used to
    # change the gradient of x**2 and 1/y too.  It must refuse, and say how.
    with pytest.raises(NoRuleError, match=rf"{tf_name}.*Pow.*identity"):
        with gradient_override_map({tf_name: "Zero"}):
            pass
    with pytest.raises(NoRuleError, match=rf"{tf_name}.*Pow"):
        override(sp.sqrt(x), {tf_name: "Zero"})
    with gradient_override_map({"identity": "Zero"}):
        assert grad(identity(sp.sqrt(x)) + x**2, x) == 2 * x


def test_builtin_rule_names():
    with gradient_override_map({"exp": "Zero"}):
        assert grad(sp.exp(x), x) == 0
    with gradient_override_map({"exp": "StopGradient"}):
        assert grad(sp.exp(x), x) == 0
    with gradient_override_map({"exp": "Identity"}):
        assert grad(sp.exp(2 * x), x) == 2
    # a table entry named as the rule: exp differentiated like sin
    with gradient_override_map({"exp": "sin"}):
        assert grad(sp.exp(x), x) == sp.cos(x)


# ---- stop_gradient at every order and in every mode ----------------------------------


def test_stop_gradient_every_mode_and_order():
    e = x**2 * stop_gradient(x**3) + stop_gradient(y) * y
    assert grad(e, [x, y]) == [2 * x * stop_gradient(x**3), stop_gradient(y)]
    assert jvp(e, [x, y], [1, 0]) == 2 * x * stop_gradient(x**3)
    assert hessian(e, [x, y]) == sp.Matrix([[2 * stop_gradient(x**3), 0], [0, 0]])
    assert stop_gradient(3) == 3
    assert stop_gradient(stop_gradient(x)) == stop_gradient(x)


def test_lowered_gradient_runs():
    g = grad(x * stop_gradient(x), x)
    assert lambdify([x], g)(np.array([2.0]))[0] == 2.0


# ---- unregister_gradient removes only what users registered (issue 8 §2) ----


@pytest.mark.parametrize("name", ["stop_gradient", "identity", "floor", "exp", "Identity",
                                  "Zero", "StopGradient", "Max", "Piecewise"])
def test_unregister_stop_gradient_and_other_built_ins_is_refused(name):
    with pytest.raises(SymgradError, match=rf"{name!r} is built into symgrad"):
        unregister_gradient(name)
    assert name in DEFAULT_TABLE
    assert grad(x * stop_gradient(x), x) == stop_gradient(x)


def test_unregister_after_replacing_a_built_in_restores_it(registry):
    @register_gradient("floor", replace=True)
    def _ste(node, g):
        return g

    assert grad(sp.floor(x), x) == 1
    unregister_gradient("floor")
    assert grad(sp.floor(x), x) == 0
    with pytest.raises(SymgradError, match="built into symgrad"):
        unregister_gradient("floor")


def test_unregister_a_user_rule_and_an_unknown_name():
    @register_gradient("Tripling")
    def _tripling(node, g):
        return 3 * g

    unregister_gradient("Tripling")
    assert "Tripling" not in DEFAULT_TABLE
    with pytest.raises(NoRuleError, match="no gradient rule named 'Tripling' is registered"):
        unregister_gradient("Tripling")


# ---- gradient_override_map: mismatched exits, re-entry, keys, warnings (issue 8) ----


def test_two_blocks_exited_out_of_order_raise_and_leave_no_map_active():
    a = gradient_override_map({"floor": "Identity"})
    b = gradient_override_map({"ceiling": "Identity"})
    a.__enter__()
    b.__enter__()
    with pytest.raises(SymgradError, match="exited out of order"):
        a.__exit__(None, None, None)
    # A's map is gone, B's (still open) still applies
    assert grad(sp.floor(x) + sp.ceiling(y), [x, y]) == [0, 1]
    b.__exit__(None, None, None)
    assert ACTIVE_MAPS.get() == ()
    assert grad(sp.floor(x) + sp.ceiling(y), [x, y]) == [0, 0]


def test_generator_yielding_inside_a_block_is_caught_at_the_callers_exit():
    def steps():
        with gradient_override_map({"floor": "Identity"}):
            yield grad(sp.floor(x), x)
            yield grad(sp.floor(x), x)

    with pytest.raises(SymgradError, match="out of order.*generator"):
        with gradient_override_map({"ceiling": "Identity"}):
            gen = steps()
            assert next(gen) == 1
            grad(sp.ceiling(x), x)
    assert ACTIVE_MAPS.get() != ()  # the generator's block is still open here...
    gen.close()  # ...until the generator finishes
    assert ACTIVE_MAPS.get() == ()
    assert grad(sp.floor(x), x) == 0


def test_generator_resumed_in_another_context_is_a_clear_error_and_its_map_ends():
    import contextvars

    def steps():
        with gradient_override_map({"floor": "Identity"}):
            yield 1
            yield 2

    gen = steps()
    next(gen)  # the block is entered in this context
    assert grad(sp.floor(x), x) == 1  # (the leak TensorFlow users hit)
    with pytest.raises(SymgradError, match="not active in this context"):
        contextvars.Context().run(lambda: list(gen))  # exits in another (thread's) context
    assert grad(sp.floor(x), x) == 0  # the map ended everywhere, no token ValueError
    ACTIVE_MAPS.set(())


def test_entering_the_same_map_object_twice_is_a_clear_error():
    m = gradient_override_map({"floor": "Identity"})
    with m:
        with pytest.raises(SymgradError, match="already active"):
            with m:
                pass
        assert grad(sp.floor(x), x) == 1
    assert ACTIVE_MAPS.get() == ()
    with m:  # once exited it may be entered again
        assert grad(sp.floor(x), x) == 1


@pytest.mark.parametrize(
    "key, reason",
    [("Symbol", "a leaf"), ("Float", "a leaf"), ("Integer", "a leaf"), ("Pi", "a leaf"),
     ("StrictGreaterThan", "not an expression"), ("And", "not an expression"),
     ("Tuple", "not an expression")],
)
def test_map_keys_that_can_never_match_a_differentiable_node_are_refused(key, reason):
    with pytest.raises(SymgradError, match=rf"'{key}'.*{reason}"):
        with gradient_override_map({key: "Identity"}):
            pass
    with pytest.raises(SymgradError, match=rf"'{key}'.*{reason}"):
        override(x, {key: "Identity"})


def test_block_without_differentiation_inside_warns():
    with pytest.warns(UserWarning, match=r"no differentiation ran inside.*symgrad\.override"):
        with gradient_override_map({"floor": "Identity"}):
            e = sp.floor(x) * 2  # built inside, as in TensorFlow's graph mode
    assert grad(e, x) == 0  # ...but the map applies while grad runs
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with gradient_override_map({"floor": "Identity"}):
            assert grad(e, x) == 2
        with gradient_override_map({"floor": "Identity"}):  # an inner block's use counts
            with gradient_override_map({"ceiling": "Zero"}):
                grad(e, x)
        with pytest.raises(KeyError), gradient_override_map({"floor": "Identity"}):
            raise KeyError("no warning when an exception leaves the block")
        # a differentiation that consults no map is still one (the warning
        # said "no differentiation ran" after grad(x, x) had run)
        for run in (lambda: grad(x, x), lambda: jvp(x * y, [x, y], [1, 0]),
                    lambda: vjp([x], [y], [1]), lambda: hessian(x * y, [x, y]),
                    lambda: jacobian([x, y], [x])):
            with gradient_override_map({"floor": "Identity"}):
                run()


# ---- a registered rule serves the other mode only if linear (issue 8 §2) ----


def test_registered_clipping_vjp_rule_is_refused_in_forward_mode(registry):
    @register_gradient("ClipGrad")
    def _clip(node, g):
        return sp.Max(sp.Min(g, 1), -1)

    with gradient_override_map({"identity": "ClipGrad"}):
        assert grad(3 * identity(x), x) == 1  # reverse mode: as TensorFlow
        with pytest.raises(RuleError, match=r"rule 'ClipGrad' is not linear in its cotangent"):
            jvp(3 * identity(x), x, 1)  # was 3


def test_registered_nonlinear_jvp_rule_is_refused_in_reverse_mode(registry):
    @register_gradient("SquareTangent", form="jvp")
    def _sq(node, tangents):
        return tangents[0] ** 2

    with gradient_override_map({"identity": "SquareTangent"}):
        assert jvp(identity(x), x, 3) == 9  # forward mode: as written
        with pytest.raises(RuleError, match=r"rule 'SquareTangent' is not linear in its tangent"):
            grad(identity(x), x)


def test_registered_linear_rules_still_serve_both_modes(registry):
    @register_gradient("Scaled")
    def _scaled(node, g):
        return g * node.args[0] ** 2

    @register_gradient("ScaledJ", form="jvp")
    def _scaled_j(node, tangents):
        return tangents[0] * node.args[0] ** 2

    for rule in ("Scaled", "ScaledJ"):
        with gradient_override_map({"identity": rule}):
            assert grad(identity(x), x) == x**2 and jvp(identity(x), x, 2) == 2 * x**2


def test_map_works_as_a_decorator_each_call_its_own_block():
    @gradient_override_map({"floor": "Identity"})
    def straight_through_grad(e):
        return grad(e, x)

    assert straight_through_grad(sp.floor(x)) == 1
    assert straight_through_grad(2 * sp.floor(x)) == 2  # the same object, used again
    assert grad(sp.floor(x), x) == 0 and ACTIVE_MAPS.get() == ()


@pytest.mark.parametrize("tf_name", ["Maximum", "Minimum"])
def test_tf_maximum_minimum_map_reaches_max_min_and_symgrad_maximum_minimum(tf_name):
    # tf.maximum is SymPy's Max in a formula and symgrad.maximum in a port of
    # TensorFlow code: a ported map must reach both (it reached Max only)
    from symgrad import maximum, minimum

    fn = {"Maximum": maximum, "Minimum": minimum}[tf_name]
    sym = {"Maximum": sp.Max, "Minimum": sp.Min}[tf_name]
    for node in (fn(x, 2 * z), sym(x, 2 * z)):
        assert grad(node, x) != 0
        with gradient_override_map({tf_name: "StopGradient"}):
            assert grad(node, x) == 0
    # an explicit key for symgrad's node wins over the TensorFlow name's
    want = grad(sym(x, 2 * z), x)
    with gradient_override_map({fn.__name__: sym.__name__, tf_name: "StopGradient"}):
        assert grad(fn(x, 2 * z), x) == want != 0
        assert grad(sym(x, 2 * z), x) == 0
