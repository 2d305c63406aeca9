"""custom_jvp and custom_vjp: JAX's interfaces, usable in both modes (issue 5)."""

from __future__ import annotations

import functools

import pytest
import sympy as sp

from symgrad import SymgradError, custom_jvp, custom_vjp, expand, grad, hessian, jvp, vjp
from symgrad.errors import RuleError

x, y, z = sp.symbols("x y z", real=True)


def make_jvp_f():
    @custom_jvp
    def f(a, b):
        return sp.sin(a) * b

    @f.defjvp
    def f_jvp(primals, tangents):
        a, b = primals
        da, db = tangents
        return f(a, b), sp.cos(a) * da * b + sp.sin(a) * db

    return f


def make_vjp_f():
    @custom_vjp
    def f(a, b):
        return sp.sin(a) * b

    def f_fwd(a, b):
        return f(a, b), (sp.cos(a), sp.sin(a), b)

    def f_bwd(res, g):
        cos_a, sin_a, b = res
        return (cos_a * g * b, sin_a * g)

    f.defvjp(f_fwd, f_bwd)
    return f


@pytest.mark.parametrize("make", [make_jvp_f, make_vjp_f], ids=["custom_jvp", "custom_vjp"])
def test_both_modes_agree_with_the_true_derivative(make):
    f = make()
    e = f(x**2, y)
    assert str(e) == "f(x**2, y)"
    assert expand(e) == sp.sin(x**2) * y
    want = [sp.diff(expand(e), s) for s in (x, y)]
    got_rev = grad(e, [x, y])
    got_fwd = [jvp(e, [x, y], [1, 0]), jvp(e, [x, y], [0, 1])]
    for a, b, c in zip(got_rev, got_fwd, want):
        assert sp.simplify(a - c) == 0 and sp.simplify(b - c) == 0
    H = hessian(e, [x, y])
    assert sp.simplify(H - sp.hessian(expand(e), [x, y])) == sp.zeros(2, 2)


def test_custom_jvp_rule_is_used_not_the_true_derivative():
    @custom_jvp
    def clip_grad(a):
        return a

    @clip_grad.defjvp
    def _(primals, tangents):
        (a,), (da,) = primals, tangents
        return clip_grad(a), sp.Max(sp.Min(da, 1), -1)

    # nonlinear in the tangent on purpose: forward mode uses it as written;
    # reverse mode would read partials at e_i, a different derivative
    assert jvp(clip_grad(x), x, 5) == 1
    with pytest.raises(RuleError, match=r"JVP rule of custom_jvp 'clip_grad' is not linear"):
        grad(clip_grad(x), x)


def test_custom_vjp_swapped_and_multi_output():
    @custom_vjp
    def both(a, b):
        return (a * b, a + b)

    def fwd(a, b):
        return both(a, b), (a, b)

    def bwd(res, g):
        a, b = res
        g1, g2 = g
        return (g1 * a + g2, g1 * b + g2)  # swapped partials of the product

    both.defvjp(fwd, bwd)
    p, s = both(x, y)
    assert grad(p, [x, y]) == [x, y]
    assert vjp([p, s], [x, y], [1, 1]) == [x + 1, y + 1]
    assert jvp([p, s], [x, y], [1, 0]) == [x, 1]


def test_nondiff_argnums():
    @functools.partial(custom_jvp, nondiff_argnums=(0,))
    def power(n, a):
        return a**n

    @power.defjvp
    def _(n, primals, tangents):
        (a,), (da,) = primals, tangents
        return power(n, a), n * a ** (n - 1) * da * 2  # twice the truth

    assert grad(power(3, x), x) == 6 * x**2
    assert expand(power(4, x)) == x**4

    @functools.partial(custom_vjp, nondiff_argnums=(1,))
    def scale(a, k):
        return a * k

    scale.defvjp(lambda a, k: (scale(a, k), None), lambda k, res, g: (g * k * 10,))
    assert grad(scale(x, 3), x) == 30


def test_rule_errors_and_undefined_rules():
    @custom_jvp
    def nothing(a):
        return a

    with pytest.raises(SymgradError, match="defjvp"):
        nothing(x)

    @custom_vjp
    def nada(a):
        return a

    with pytest.raises(SymgradError, match="defvjp"):
        nada(x)

    f = make_jvp_f()
    w = sp.Symbol("w", real=True)

    @custom_jvp
    def closes(a):
        return a * w

    closes.defjvp(lambda p, t: (closes(*p), t[0] * w))
    assert grad(closes(x), x) == w
    with pytest.raises(RuleError, match="pass w as an argument"):
        grad(closes(x), w)
    assert f(x, y) == f(x, y)


def test_vjp_rule_that_raises_surfaces():
    @custom_vjp
    def f(a):
        return a

    def bwd(res, g):
        raise ArithmeticError("bwd broke")

    f.defvjp(lambda a: (f(a), ()), bwd)
    with pytest.raises(ArithmeticError, match="bwd broke"):
        grad(f(x), x)


# ---- bwd once with all cotangents; nonlinear rules in the other mode (issue 8 §2) ----


def test_custom_vjp_clip_gradient_jvp_is_refused_not_3_while_grad_is_1():
    @custom_vjp
    def clip_gradient(a):
        return a

    clip_gradient.defvjp(lambda a: (clip_gradient(a), None),
                         lambda res, g: (sp.Max(sp.Min(g, 1), -1),))
    e = 3 * clip_gradient(x)
    assert grad(e, x) == 1
    with pytest.raises(RuleError, match=r"bwd rule of custom_vjp 'clip_gradient' is not linear"):
        jvp(e, x, 1)


def test_custom_vjp_bwd_called_once_with_all_cotangents():
    calls = []

    @custom_vjp
    def pair(a):
        return (a, a)

    def bwd(res, g):
        calls.append(g)
        g0, g1 = g
        n = sp.sqrt(g0**2 + g1**2)
        return ((g0 + g1) * sp.Min(1, 1 / n),)

    pair.defvjp(lambda a: (pair(a), None), bwd)
    p0, p1 = pair(x)
    assert grad(3 * p0 + 4 * p1, x) == sp.Rational(7, 5)
    assert len(calls) == 1


# ---- the body runs at every call (issue 8 §2) ----


def test_custom_jvp_body_reading_state_sees_each_calls_value():
    state = {"k": 2}

    @custom_jvp
    def scaled(a):
        return state["k"] * a

    scaled.defjvp(lambda p, t: (scaled(*p), state["k"] * t[0]))
    first = scaled(x)
    state["k"] = 3
    second = scaled(x)
    assert expand(first) == 2 * x and expand(second) == 3 * x
    assert first != second and grad(second, x) == 3
    assert scaled(x) == second


# ---- rules checked as JAX checks them (issue 8 §5) ----


def _jvp_with(primal, tangent):
    @custom_jvp
    def f(a, b):
        return (a * b, a + b)

    f.defjvp(lambda p, t: (primal(f, *p), tangent(*p, *t)))
    return f


@pytest.mark.parametrize(
    "primal, tangent, message",
    [
        (lambda f, a, b: f(a, b)[0], lambda a, b, da, db: (da, db), "primal_out of a scalar"),
        (lambda f, a, b: (a, b, a), lambda a, b, da, db: (da, db), "primal_out of a sequence of 3"),
        (lambda f, a, b: f(a, b), lambda a, b, da, db: da, "tangent_out of a scalar"),
        (lambda f, a, b: f(a, b), lambda a, b, da, db: sp.Matrix([da, db, 0]),
         "tangent_out of a matrix of shape"),
    ],
    ids=["primal-count-1", "primal-count-3", "tangent-count-1", "tangent-shape"],
)
def test_custom_jvp_rule_outputs_must_match_the_function(primal, tangent, message):
    f = _jvp_with(primal, tangent)
    with pytest.raises(RuleError, match=rf"JVP rule of custom_jvp 'f' returned a {message}"):
        jvp(f(x, y)[0], [x, y], [1, 0])


def test_custom_jvp_matrix_output_shape_is_checked():
    @custom_jvp
    def m(a):
        return sp.Matrix([[a, 2 * a]])

    m.defjvp(lambda p, t: (m(*p), sp.Matrix([t[0], 2 * t[0]])))  # 2x1, not 1x2
    with pytest.raises(RuleError, match=r"matrix of shape \(2, 1\).*matrix of shape \(1, 2\)"):
        grad(m(x)[0, 1], x)


def test_custom_vjp_fwd_output_must_match_the_function():
    @custom_vjp
    def f(a):
        return (a, 2 * a)

    f.defvjp(lambda a: (a, None), lambda res, g: (g[0] + 2 * g[1],))
    with pytest.raises(RuleError, match=r"fwd rule of custom_vjp 'f' returned an output of a sc"):
        grad(f(x)[0], x)


def test_custom_jvp_symbol_in_nondiff_argnums_says_what_is_wrong():
    w = sp.Symbol("w", real=True)

    @functools.partial(custom_jvp, nondiff_argnums=(0,))
    def scaled(k, a):
        return k * a

    scaled.defjvp(lambda k, p, t: (scaled(k, *p), k * t[0]))
    assert grad(scaled(w, x), x) == w
    with pytest.raises(RuleError, match=r"takes w through nondiff_argnums \(argument 0") as exc:
        grad(scaled(w, x), w)
    assert "without taking it as an argument" not in str(exc.value)
