"""The rule forms: partials, VJP, JVP; each serves both modes."""

from __future__ import annotations

import pytest
from sympy import Function, Piecewise, S, Symbol, cos, sin, sqrt, symbols

from symgrad import RuleError, grad
from symgrad.rules import IdentityRule, JVPRule, Opts, PartialsRule, VJPRule, ZeroRule
from symgrad.rules.forms import scale

x, y, z = symbols("x y z", real=True)
h = Function("h")
OPTS = Opts()


def test_opts_defaults_and_validation():
    assert (Opts().convention, Opts().ties) == ("ad", "split")
    with pytest.raises(ValueError, match="'distribution' keeps SymPy's own"):
        Opts(convention="subgradient")
    with pytest.raises(ValueError, match="'first' gives all of it to the first"):
        Opts(ties="random")


def test_scale_distributes_over_piecewise_cotangents():
    ct = Piecewise((2, x > 0), (0, True))
    got = scale(ct, 1 / sqrt(x))
    assert got == Piecewise((2 / sqrt(x), x > 0), (0, True))
    assert got.subs(x, -1) == 0
    assert scale(ct, S.One) is ct
    assert scale(ct, S.Zero) is None and scale(S.Zero, x) is None
    assert scale(y, x) == x * y


@pytest.mark.parametrize(
    "rule",
    [
        PartialsRule("h", lambda o, u, v: v * cos(u), lambda o, u, v: sin(u)),
        PartialsRule("h", lambda o, u, v: (v * cos(u), sin(u)), joint=True),
        VJPRule("h", lambda n, ct: (ct * n.args[1] * cos(n.args[0]), ct * sin(n.args[0]))),
        JVPRule("h", lambda n, ts: n.args[1] * cos(n.args[0]) * ts[0] + sin(n.args[0]) * ts[1]),
    ],
    ids=["partials", "joint", "vjp", "jvp"],
)
def test_each_form_serves_both_modes(rule):
    node = h(x, y)
    assert rule.partials(node, [True, True], OPTS) == (y * cos(x), sin(x))
    assert rule.vjp(node, z, [True, True], OPTS) == (z * y * cos(x), z * sin(x))
    assert rule.vjp(node, z, [False, True], OPTS) == (None, z * sin(x))
    assert rule.jvp(node, [S.One, None], OPTS) == y * cos(x)
    assert rule.jvp(node, [None, z], OPTS) == z * sin(x)


def test_none_partial_means_no_gradient():
    rule = PartialsRule("h", lambda o, u, v: None, lambda o, u, v: 1)
    assert rule.vjp(h(x, y), z, [True, True], OPTS) == (None, z)
    assert rule.jvp(h(x, y), [S.One, None], OPTS) is None


def test_zero_and_identity_rules():
    assert ZeroRule().vjp(h(x, y), z, [True, True], OPTS) == (None, None)
    assert ZeroRule().jvp(h(x, y), [S.One, S.One], OPTS) is None
    assert IdentityRule().vjp(h(x, y), z, [True, True], OPTS) == (z, z)
    assert IdentityRule().jvp(h(x, y), [S.One, z], OPTS) == 1 + z


def test_mul_partials_never_divide():
    # ∂(xyz)/∂x is yz, not (xyz)/x: fine at x = 0
    assert grad(x * y * z, x) == y * z
    assert grad(x * y * z, [x, y, z]) == [y * z, x * z, x * y]
    assert grad(x**2 * y, x).subs({x: 0, y: 1}) == 0


def test_rule_errors_name_rule_and_node():
    rule = PartialsRule("h", lambda o, u, v: (u,), joint=True)
    with pytest.raises(RuleError, match=r"rule 'h' returned 1 partials for node h\(x, y\), "
                                        r"which has 2 arguments"):
        rule.partials(h(x, y), [True, True], OPTS)
    rule = VJPRule("h", lambda n, ct: Symbol)
    with pytest.raises(RuleError, match="must return a tuple of 2 cotangents"):
        rule.vjp(h(x, y), z, [True, True], OPTS)
