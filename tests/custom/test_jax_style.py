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

    # nonlinear in the tangent on purpose: reverse mode reads partials at e_i
    assert jvp(clip_grad(x), x, 5) == 1
    assert grad(clip_grad(x), x) == 1


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
    assert grad(p, [x, y]) == (x, y)
    assert vjp([p, s], [x, y], [1, 1]) == (x + 1, y + 1)
    assert jvp([p, s], [x, y], [1, 0]) == (x, 1)


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
