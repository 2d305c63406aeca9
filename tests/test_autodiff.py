"""The operators grad / jacobian / hessian / jvp / vjp: their shapes, the
conventions for non-differentiable nodes, the fallbacks to SymPy, and the
errors bad input gets."""

from __future__ import annotations

import random

import pytest
from sympy import (
    Abs,
    Derivative,
    DiracDelta,
    Function,
    Heaviside,
    I,
    ImmutableMatrix,
    LambertW,
    Matrix,
    Max,
    Min,
    Mod,
    Piecewise,
    Rational,
    S,
    Subs,
    Symbol,
    arg,
    asin,
    atan2,
    atanh,
    besselj,
    cbrt,
    ceiling,
    conjugate,
    cos,
    diff,
    exp,
    floor,
    frac,
    fresnels,
    im,
    log,
    polygamma,
    re,
    root,
    sign,
    sin,
    sinc,
    sqrt,
    symbols,
    tanh,
)
from sympy import hessian as sympy_hessian

import symgrad.autodiff as autodiff
from symgrad import (
    ComplexValueError,
    RuleError,
    ShapeError,
    SymgradError,
    grad,
    hessian,
    jacobian,
    jvp,
    rint,
    vjp,
)
from symgrad.resolver import resolve
from symgrad.rules import DEFAULT_TABLE, FdiffRule, JVPRule, Opts, PartialsRule, VJPRule

from .oracles import close, same, value

x, y, z = symbols("x y z", real=True)
a, b, c = symbols("a b c", real=True)
f, g = Function("f"), Function("g")


# ---- grad: what wrt gives back -------------------------------------------


def test_grad_wrt_symbol_gives_expression():
    assert grad(x**2 * sin(y), x) == 2 * x * sin(y)
    assert grad(x**2 * sin(y), y) == x**2 * cos(y)


def test_grad_wrt_list_gives_list_and_tuple_gives_tuple():
    e = x * y + exp(z)
    assert grad(e, [x, y, z]) == [y, x, exp(z)]
    assert grad(e, (z, x)) == (exp(z), y)
    assert grad(e, [x, x]) == [y, y]


def test_grad_wrt_matrix_gives_matrix_of_same_shape():
    w = Matrix(2, 2, symbols("w0:4", real=True))
    e = sum(k * s**2 for k, s in enumerate(w, 1))
    got = grad(e, w)
    assert isinstance(got, Matrix) and got.shape == (2, 2)
    assert got == Matrix(2, 2, [2 * k * s for k, s in enumerate(w, 1)])
    col = Matrix([x, y, z])
    got = grad(x * y * z, col)
    assert got.shape == (3, 1) and got == Matrix([y * z, x * z, x * y])
    assert grad(x * y, ImmutableMatrix([[x, y]])).shape == (1, 2)


def test_unconnected_zero_and_none():
    e = x * sin(y)
    assert grad(e, [x, z]) == [sin(y), 0]
    assert grad(e, [x, z], unconnected="none") == [sin(y), None]
    assert grad(e, z, unconnected="none") is None
    # a gradient stopped by a piecewise-constant node reaches nothing either
    assert grad(floor(x) + y, [x, y], unconnected="none") == [None, 1]
    # a constant expression
    assert grad(S(3), x) == 0 and grad(S(3), x, unconnected="none") is None


def test_results_are_ordinary_sympy_expressions():
    gx, gy = grad(exp(x * y) + log(x), [x, y])
    assert same(gx, diff(exp(x * y) + log(x), x))
    assert gx.subs({x: 1, y: 1}) == 1 + exp(1)
    assert str(gy) == "x*exp(x*y)"


# ---- jacobian --------------------------------------------------------------


def _spy(monkeypatch):
    calls = {"reverse": 0, "forward": 0}
    for name in calls:
        real = getattr(autodiff, name)

        def wrapped(*args, _real=real, _name=name, **kw):
            calls[_name] += 1
            return _real(*args, **kw)

        monkeypatch.setattr(autodiff, name, wrapped)
    return calls


def test_jacobian_reverse_path_rows_are_outputs(monkeypatch):
    outs = [x * y * z, sin(x) + exp(z)]
    calls = _spy(monkeypatch)
    got = jacobian(outs, [x, y, z])
    assert calls == {"reverse": 2, "forward": 0}
    assert got.shape == (2, 3)
    assert got == Matrix(outs).jacobian([x, y, z])


def test_jacobian_forward_path_rows_are_outputs(monkeypatch):
    outs = [x * y, sin(x), exp(y) * x, tanh(x - y)]
    calls = _spy(monkeypatch)
    got = jacobian(outs, [x, y])
    assert calls == {"reverse": 0, "forward": 2}
    assert got.shape == (4, 2)
    want = Matrix(outs).jacobian([x, y])
    assert all(same(p, q) for p, q in zip(got, want))


def test_jacobian_of_matrix_and_unconnected_outputs():
    got = jacobian(Matrix([x**2, S(1), y]), Matrix([x, y]))
    assert got == Matrix([[2 * x, 0], [0, 0], [0, 1]])
    assert jacobian(x * y, [x, y]) == Matrix([[y, x]])


# ---- hessian ---------------------------------------------------------------


def test_hessian_is_symmetric_and_matches_sympy():
    e = exp(x * y) * sin(z) + x**3 * y + log(1 + z**2) * x
    h = hessian(e, [x, y, z])
    assert h.shape == (3, 3)
    assert h == h.T
    want = sympy_hessian(e, [x, y, z])
    assert all(same(p, q) for p, q in zip(h, want))


def test_hessian_rejects_non_scalar():
    with pytest.raises(SymgradError, match="hessian needs a scalar expression"):
        hessian([x, y], [x, y])


# ---- jvp / vjp -------------------------------------------------------------


def test_jvp_shapes():
    u, v = symbols("u v", real=True)
    assert jvp(x * sin(y), [x, y], [u, v]) == u * sin(y) + v * x * cos(y)
    assert jvp(x**2, x, u) == 2 * u * x
    got = jvp([x * y, x + y, S(2)], (x, y), (u, v))
    assert isinstance(got, list) and got == [u * y + v * x, u + v, 0]
    got = jvp(Matrix([[x * y, x], [y, x + y]]), Matrix([x, y]), Matrix([u, v]))
    assert isinstance(got, Matrix) and got.shape == (2, 2)
    assert got == Matrix([[u * y + v * x, u], [v, u + v]])
    # a symbol repeated in wrt accumulates its tangents
    assert jvp(x * y, [x, x], [1, 2]) == 3 * y


def test_vjp_shapes():
    u, v = symbols("u v", real=True)
    assert vjp(x * sin(y), [x, y], u) == [u * sin(y), u * x * cos(y)]
    assert vjp(x**2, x, u) == 2 * u * x
    got = vjp([x * y, x + y], Matrix([x, y]), [u, v])
    assert isinstance(got, Matrix) and got.shape == (2, 1)
    assert got == Matrix([u * y + v, u * x + v])
    got = vjp(Matrix([[x * y, x]]), [x, y], Matrix([[u, v]]))
    assert got == [u * y + v, u * x]


def test_jvp_and_vjp_pair_up():
    outs = [x * y * z, sin(x) * exp(y), log(1 + z**2)]
    wrt = [x, y, z]
    u = symbols("u0:3", real=True)
    v = symbols("v0:3", real=True)
    lhs = sum(ui * ji for ui, ji in zip(u, jvp(outs, wrt, v)))
    rhs = sum(vi * gi for vi, gi in zip(v, vjp(outs, wrt, u)))
    assert same(lhs, rhs)


def test_log_with_a_base_and_roots():
    # log(x, b) is log(x)/log(b) in SymPy; roots are powers
    for e in [log(x, y), log(x, 2), sqrt(x), root(x, 4), cbrt(x) * x]:
        for s in (x, y):
            assert same(grad(e, s), diff(e, s)), (e, s)


# ---- SymPy's own forms -----------------------------------------------------


def test_undefined_function_gives_derivative():
    assert grad(f(x), x) == Derivative(f(x), x)
    assert grad(f(x, y), y) == diff(f(x, y), y)
    assert grad(f(x) * g(y), [x, y]) == [Derivative(f(x), x) * g(y), f(x) * Derivative(g(y), y)]


def test_undefined_function_chain_gives_derivative_and_subs():
    got = grad(f(g(x)), x)
    assert got == diff(f(g(x)), x)
    got = grad(f(2 * x + 1), x)
    assert got.has(Subs)
    assert same(got.doit(), diff(f(2 * x + 1), x).doit())
    got = grad(f(x * y, x), x)
    assert same(got.doit(), diff(f(x * y, x), x).doit())


def test_derivative_nodes_differentiate_through_sympy():
    e = x * Derivative(f(x), x)
    assert same(grad(e, x), diff(e, x))


@pytest.mark.parametrize(
    "expr", [sinc(x), besselj(0, x), fresnels(x), besselj(1, x**2)], ids=str
)
def test_function_without_entry_falls_back_to_fdiff(expr):
    assert type(expr).__name__ not in DEFAULT_TABLE
    assert isinstance(resolve(expr, Opts()), FdiffRule)
    assert same(grad(expr, x), diff(expr, x))
    assert same(jvp(expr, x, 1), diff(expr, x))


# ---- conventions -----------------------------------------------------------


@pytest.mark.parametrize("fn", [floor, ceiling, rint, sign, Heaviside], ids=lambda f: f.__name__)
def test_piecewise_constant_nodes_give_zero(fn):
    assert grad(fn(x), x) == 0
    assert grad(fn(x**2 + y) * y, x) == 0
    assert jvp(fn(x), x, 1) == 0
    assert grad(fn(x) + x, x) == 1


def test_abs_gives_sign():
    assert grad(Abs(x), x) == sign(x)
    assert grad(Abs(x), x).subs(x, 0) == 0
    assert grad(Abs(sin(x)), x) == sign(sin(x)) * cos(x)


def test_frac_and_mod_give_derivative_of_smooth_part():
    assert grad(frac(x), x) == 1
    assert grad(frac(x**2), x) == 2 * x
    assert grad(Mod(x, y), [x, y]) == [1, -floor(x / y)]
    assert grad(Mod(sin(x), 3), x) == cos(x)
    assert grad(Mod(x, y), y).subs({x: Rational(7, 2), y: 2}) == -1


def test_max_min_route_to_selected_argument():
    gx, gy = grad(Max(x, y), [x, y])
    assert (gx.subs({x: 2, y: 1}), gy.subs({x: 2, y: 1})) == (1, 0)
    assert (gx.subs({x: 1, y: 2}), gy.subs({x: 1, y: 2})) == (0, 1)
    gx, gy = grad(Min(x, y), [x, y])
    assert (gx.subs({x: 2, y: 1}), gy.subs({x: 2, y: 1})) == (0, 1)
    assert grad(Max(x**2, y), x).subs({x: 3, y: 1}) == 6


@pytest.mark.parametrize("fn", [Max, Min], ids=["Max", "Min"])
def test_binary_ties(fn):
    tie = {x: 1, y: 1}
    assert [d.subs(tie) for d in grad(fn(x, y), [x, y])] == [S.Half, S.Half]
    assert [d.subs(tie) for d in grad(fn(x, y), [x, y], ties="split")] == [S.Half, S.Half]
    assert [d.subs(tie) for d in grad(fn(x, y), [x, y], ties="first")] == [1, 0]
    # the first argument is the first of the node (SymPy orders them)
    first = fn(x, y).args[0]
    got = grad(fn(x, y), [first], ties="first")[0].subs(tie)
    assert got == 1


@pytest.mark.parametrize("fn", [Max, Min], ids=["Max", "Min"])
def test_nary_ties(fn):
    wrt = list(fn(a, b, c).args)  # the node's own argument order
    node = fn(a, b, c)
    split = grad(node, wrt)
    first = grad(node, wrt, ties="first")
    all_tied = dict.fromkeys(wrt, 2)
    assert [d.subs(all_tied) for d in split] == [Rational(1, 3)] * 3
    assert [d.subs(all_tied) for d in first] == [1, 0, 0]
    ext = 3 if fn is Max else 1
    two_tied = {wrt[0]: 2, wrt[1]: ext, wrt[2]: ext}
    assert [d.subs(two_tied) for d in split] == [0, S.Half, S.Half]
    assert [d.subs(two_tied) for d in first] == [0, 1, 0]
    clear = {wrt[0]: 2, wrt[1]: ext, wrt[2]: 2}
    assert [d.subs(clear) for d in split] == [0, 1, 0]
    assert [d.subs(clear) for d in first] == [0, 1, 0]


def test_piecewise_branch_by_branch_and_no_gradient_into_conditions():
    e = Piecewise((x**2, x > y), (sin(x) * y, True))
    gx, gy = grad(e, [x, y])
    assert same(gx, Piecewise((2 * x, x > y), (cos(x) * y, True)))
    assert same(gy, Piecewise((0, x > y), (sin(x), True)))
    # the condition is the only place y appears: no gradient at all
    e = Piecewise((x, y > 0), (2 * x, True))
    assert grad(e, y) == 0
    assert grad(e, y, unconnected="none") is None
    assert jvp(e, y, 1) == 0
    assert same(grad(e, x), Piecewise((1, y > 0), (2, True)))


def test_where_leak_untaken_branch_gives_exact_zero():
    e = Piecewise((sqrt(x), x > 0), (0, True))
    assert grad(e, x).subs(x, -1) == 0
    assert jvp(e, x, 1).subs(x, -1) == 0
    assert grad(e, x).subs(x, 4) == Rational(1, 4)
    # deeper inside the branch, and with the node feeding two places
    e = Piecewise((log(sqrt(x)) * sqrt(x), x > 0), (0, True))
    assert grad(e, x).subs(x, -1) == 0
    e2 = e * y + e**2 + exp(e)
    assert grad(e2, x).subs({x: -1, y: 3}) == 0
    assert grad(e2, x).subs({x: 0, y: 3}) == 0


def test_where_leak_two_piecewise_nodes_over_one_branch():
    # log(x) gets a cotangent from two Piecewise nodes with different
    # conditions; at x = 0 neither branch is taken, so 0 (not 0 * zoo = nan)
    e = Piecewise((log(x), x > 0), (0, True)) + Piecewise((log(x), x > 1), (0, True))
    assert grad(e, x).subs(x, 0) == 0
    assert jvp(e, x, 1).subs(x, 0) == 0
    assert grad(e, x).subs(x, 2) == 1
    e = Piecewise((log(x) * y, x > 0), (0, True)) + Piecewise((log(x), x > 1), (y, True))
    assert grad(e, [x, y]) and grad(e, x).subs({x: 0, y: 5}) == 0
    assert grad(e, x).subs({x: Rational(1, 2), y: 5}) == 10


def test_distribution_convention_keeps_sympys_answers():
    for e in [sign(x), Heaviside(x), Abs(x), floor(x), Max(x, y), Min(x, y), Mod(x, y)]:
        assert grad(e, x, convention="distribution") == diff(e, x), e
    assert grad(sign(x), x, convention="distribution") == 2 * DiracDelta(x)
    assert grad(Heaviside(x**2 - 1), x, convention="distribution") == 2 * x * DiracDelta(x**2 - 1)
    # smooth nodes are untouched by the convention
    assert grad(sin(x) * Abs(x), x, convention="distribution") == diff(sin(x) * Abs(x), x)


# ---- bad input ---------------------------------------------------------------

OPERATORS = {
    "grad": lambda wrt, **kw: grad(x * y, wrt, **kw),
    "jacobian": lambda wrt, **kw: jacobian([x * y], wrt, **kw),
    "hessian": lambda wrt, **kw: hessian(x * y, wrt, **kw),
    "jvp": lambda wrt, **kw: jvp(x * y, wrt, [1] * (len(wrt) if isinstance(wrt, list) else 1),
                                 **kw),
    "vjp": lambda wrt, **kw: vjp(x * y, wrt, 1, **kw),
}


@pytest.mark.parametrize("op", OPERATORS)
@pytest.mark.parametrize(
    "wrt, where, hint",
    [
        (x**2, "wrt is x**2 (Pow)", "substitute a symbol"),
        (S(3), "wrt is 3 (Integer)", "substitute a symbol"),
        (3, "wrt is 3 (int)", "pass sympy.Symbol objects"),
        ("x", "wrt is 'x' (str)", "pass sympy.Symbol objects"),
        ([x, x * y], "wrt[1] is x*y (Mul)", "substitute a symbol"),
        ([x, f(x)], "wrt[1] is f(x) (f)", "substitute a symbol"),
    ],
    ids=["power", "sympy-number", "int", "string", "list-with-product", "function"],
)
def test_wrt_must_be_symbols(op, wrt, where, hint):
    with pytest.raises(SymgradError) as info:
        OPERATORS[op](wrt)
    msg = str(info.value)
    assert "can only differentiate with respect to symbols" in msg
    assert where in msg and hint in msg


@pytest.mark.parametrize("op", OPERATORS)
def test_invalid_convention_and_ties(op):
    msg = r"convention='dirac' is not one of \('ad', 'distribution'\)"
    with pytest.raises(ValueError, match=msg):
        OPERATORS[op]([x, y], convention="dirac")
    with pytest.raises(ValueError, match=r"ties='last' is not one of \('split', 'first'\)"):
        OPERATORS[op]([x, y], ties="last")


def test_invalid_unconnected():
    with pytest.raises(ValueError, match=r"unconnected='nan' is not one of \('zero', 'none'\)"):
        grad(x, x, unconnected="nan")
    with pytest.raises(ValueError, match="unconnected=None"):
        grad(x, x, unconnected=None)


def test_grad_rejects_non_scalar():
    msg = "grad needs a scalar expression but got a sequence of 2"
    with pytest.raises(SymgradError, match=msg):
        grad([x, y], x)
    with pytest.raises(SymgradError, match="use jacobian"):
        grad(Matrix([x, y]), x)


def test_string_expression_is_never_evaluated(tmp_path):
    marker = tmp_path / "pwned"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch() or x"
    with pytest.raises(SymgradError, match="symgrad never parses strings"):
        grad(payload, x)
    with pytest.raises(SymgradError, match=r"exprs\[1\] is the string"):
        jacobian([x, payload], [x])
    with pytest.raises(SymgradError, match="tangents is the string"):
        jvp(x, x, payload)
    with pytest.raises(SymgradError, match="cotangents is the string"):
        vjp(x, x, payload)
    assert not marker.exists()


def test_non_expression_input():
    with pytest.raises(SymgradError, match=r"expr is x > 0 \(StrictGreaterThan\), not a SymPy"):
        grad(x > 0, x)
    with pytest.raises(SymgradError, match="not a SymPy expression"):
        grad(object(), x)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: jvp([x, y], [x, y], [1]),
            "tangents is a sequence of 1 but wrt is a sequence of 2",
        ),
        (lambda: jvp(x, [x, y], 1), "tangents is a scalar but wrt is a sequence of 2"),
        (
            lambda: vjp([x, y], [x], [1, 2, 3]),
            "cotangents is a sequence of 3 but exprs is a sequence of 2",
        ),
        (lambda: vjp(x, [x], [1, 2]), "cotangents is a sequence of 2 but exprs is a scalar"),
        (
            lambda: vjp(Matrix([[x, y]]), [x, y], Matrix([1, 2])),
            "cotangents is a matrix of shape (2, 1) but exprs is a matrix of shape (1, 2)",
        ),
        (
            lambda: jvp(x, Matrix([[x, y]]), Matrix([1, 2])),
            "tangents is a matrix of shape (2, 1) but wrt is a matrix of shape (1, 2)",
        ),
    ],
    ids=["jvp-short", "jvp-scalar", "vjp-long", "vjp-scalar-expr", "vjp-matrix", "jvp-matrix"],
)
def test_mismatched_tangent_shapes(call, message):
    with pytest.raises(ShapeError) as info:
        call()
    assert message in str(info.value)
    assert "in the same shape" in str(info.value)


# Rules that break their contract, registered for a node class of their own.
myop = Function("myop")


@pytest.fixture
def register():
    added = []

    def add(rule):
        DEFAULT_TABLE.add("myop", rule, replace=True)
        added.append("myop")

    yield add
    for name in added:
        if name in DEFAULT_TABLE.names():
            DEFAULT_TABLE.remove(name)


@pytest.mark.parametrize(
    "rule, message",
    [
        (PartialsRule("myop", lambda o, u, v: (u,), joint=True), "returned 1 partials"),
        (PartialsRule("myop", lambda o, u, v: (u, v, 1), joint=True), "returned 3 partials"),
        (PartialsRule("myop", lambda o, u, v: u), "has 1 partials but node myop(x, y)"),
        (VJPRule("myop", lambda node, ct: (ct,)), "returned 1 cotangents"),
        (VJPRule("myop", lambda node, ct: [ct, ct, ct]), "returned 3 cotangents"),
    ],
    ids=["joint-short", "joint-long", "too-few-functions", "vjp-short", "vjp-long"],
)
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_rule_with_wrong_number_of_partials(register, rule, message, mode):
    register(rule)
    with pytest.raises(RuleError) as info:
        if mode == "reverse":
            grad(myop(x, y), [x, y])
        else:
            jvp(myop(x, y), [x, y], [1, 1])
    msg = str(info.value)
    assert "'myop'" in msg and "myop(x, y)" in msg and message in msg


@pytest.mark.parametrize(
    "rule, message",
    [
        (PartialsRule("myop", lambda o, u, v: "u", lambda o, u, v: 1), "returned 'u' (str)"),
        (
            PartialsRule("myop", lambda o, u, v: 1 / 0, lambda o, u, v: 1),
            "raised ZeroDivisionError",
        ),
        (VJPRule("myop", lambda node, ct: ct), "it must return a tuple of 2 cotangents"),
        (JVPRule("myop", lambda node, ts: (ts[0], ts[1])), "as a tangent"),
    ],
    ids=["string", "raises", "vjp-not-tuple", "jvp-tuple"],
)
def test_rule_returning_garbage(register, rule, message):
    register(rule)
    with pytest.raises(RuleError) as info:
        grad(myop(x, y), [x, y])
    msg = str(info.value)
    assert "'myop'" in msg and "myop(x, y)" in msg and message in msg


def test_registered_rules_in_each_form_agree(register):
    want = (2 * x * y, x**2)
    for rule in [
        PartialsRule("myop", lambda o, u, v: 2 * u * v, lambda o, u, v: u**2),
        PartialsRule("myop", lambda o, u, v: (2 * u * v, u**2), joint=True),
        VJPRule("myop", lambda node, ct: (ct * 2 * node.args[0] * node.args[1],
                                          ct * node.args[0] ** 2)),
        JVPRule("myop", lambda node, ts: 2 * node.args[0] * node.args[1] * ts[0]
                + node.args[0] ** 2 * ts[1]),
    ]:
        register(rule)
        assert grad(myop(x, y), (x, y)) == want, rule
        assert jvp(myop(x, y), [x, y], [1, 0]) == want[0], rule
        assert jvp(myop(x, y), [x, y], [0, 1]) == want[1], rule


def test_register_fixture_cleans_up():
    assert "myop" not in DEFAULT_TABLE.names()


def test_integer_arguments_take_no_gradient():
    n = Symbol("n", integer=True)
    with pytest.raises(RuleError, match=r"not differentiable in its integer argument n"):
        grad(polygamma(n, x), n)
    with pytest.raises(RuleError, match=r"LambertW is not differentiable in its integer argument"):
        grad(LambertW(x, n), n)
    w = LambertW(x, n)  # W' = 1/(x + e^W) = W/(x(1 + W)), as W·e^W = x
    assert grad(w, x) == 1 / (x + exp(w))
    assert (grad(w, x) - diff(w, x)).subs(exp(w), x / w).simplify() == 0
    nu = Symbol("nu", real=True)
    with pytest.raises(RuleError, match=r"register_gradient\('besselj'\)"):
        grad(besselj(nu, x), nu)


# ---- complex parts: an error or SymPy's own answer, never a wrong one ------

w = Symbol("w")
zc = Symbol("zc", complex=True)

COMPLEX_ERRORS = [  # (expr, wrt, message)
    (re(w), w, "takes a complex part (re)"),
    (im(w), w, "takes a complex part (im)"),
    (conjugate(w), w, "takes a complex part (conjugate)"),
    (arg(w), w, "takes a complex part (arg)"),
    (im(f(x)), x, "takes a complex part (im)"),
    (re(w) * x + w, w, "takes a complex part (re)"),
    (Abs(x + I * w), x, "applies Abs"),
    (Abs(zc + x), x, "applies Abs"),
    (sign(I * x + 1), x, "applies sign"),
    (atan2(I * x, 1), x, "applies atan2"),
    (Piecewise((I * x, x > 0), (0, True)), x, "applies Piecewise"),
    # complex constants without an I in them
    (Abs(x + asin(2)), x, "applies Abs"),
    (sign(x + atanh(2)), x, "applies sign"),
    (Abs(x * y + LambertW(-1)), x, "applies Abs"),
]


@pytest.mark.parametrize("expr, s, message", COMPLEX_ERRORS, ids=lambda v: str(v)[:30])
def test_complex_parts_are_an_error(expr, s, message):
    with pytest.raises(ComplexValueError) as info:
        grad(expr, s)
    assert message in str(info.value)
    with pytest.raises(ComplexValueError):
        jvp(expr, s, 1)


def test_complex_part_advice_fits_the_symbols():
    # a plain symbol: declare it real
    with pytest.raises(ComplexValueError, match=r"Declare w real \(Symbol"):
        grad(re(w), w)
    # real symbols already (the Hessian of Abs(sqrt(x)) walks conjugate(sqrt(x))):
    # "declare the symbols real" would be circular; bound them instead
    with pytest.raises(ComplexValueError) as info:
        hessian(Abs(sqrt(x)), [x])
    assert "sqrt(x) is not real for every real value" in str(info.value)
    assert "Declare" not in str(info.value)
    z = Symbol("z", nonnegative=True)
    assert hessian(Abs(sqrt(z)), [z])[0, 0] == diff(sqrt(z), z, 2)


# (Abs(x + I*y) with x, y real is sqrt(x**2 + y**2) already: real, and fine.)
HOLOMORPHIC = [
    exp(I * x), sin(x + I), log(x + I), (x + I) ** 2, sqrt(x + I * y), x * I * cos(y),
    Abs(x + I * y), exp(x * asin(2)), Abs(x + asin(S(1) / 2)),
]


@pytest.mark.parametrize("expr", HOLOMORPHIC, ids=str)
def test_holomorphic_complex_expressions_match_sympy(expr):
    rng = random.Random(str(expr))
    got, want = grad(expr, x), diff(expr, x)
    for _ in range(3):
        at = {x: round(rng.uniform(-2, 2), 4), y: round(rng.uniform(0.1, 2), 4)}
        assert close(value(got, at), value(want, at))


def test_indexed_and_matrix_elements_are_constants():
    # a symbol-like node is among its own free symbols: the walker took it as
    # its own input and failed with a bare KeyError
    import sympy as sp

    a, m = sp.IndexedBase("a"), sp.MatrixSymbol("M", 2, 2)
    assert grad(a[1] * x**2, x) == 2 * x * a[1]
    assert grad(sin(m[0, 1] * x), x) == m[0, 1] * cos(m[0, 1] * x)
    assert jvp(a[1] * x * y, [x, y], [1, 0]) == a[1] * y
    assert hessian(a[1] * x**2, [x]) == Matrix([[2 * a[1]]])
