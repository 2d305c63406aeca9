"""Which rule a node gets: table, then SymPy's fdiff (overrides and tags are
tested in test_overrides.py)."""

from __future__ import annotations

import pytest
from sympy import Derivative, Function, Integral, Symbol, besselj, cos, diff, floor, sin

from symgrad import grad
from symgrad.resolver import node_name, resolve
from symgrad.rules import (
    DEFAULT_TABLE,
    NONSMOOTH,
    FdiffRule,
    Opts,
    SympyChainRule,
    SympyLeafRule,
)

x = Symbol("x", real=True)
t = Symbol("t", real=True)


def test_table_rule_for_builtin_classes():
    assert resolve(sin(x), Opts()) is DEFAULT_TABLE.rule("sin")
    assert resolve(x + 1, Opts()) is DEFAULT_TABLE.rule("Add")
    assert node_name(floor(x)) == "floor"


def test_fdiff_for_functions_without_entry():
    rule = resolve(besselj(0, x), Opts())
    assert isinstance(rule, FdiffRule) and rule.name == "besselj"
    f = Function("f")
    assert isinstance(resolve(f(x), Opts()), FdiffRule)


def test_sympy_leaf_rule_for_non_function_expressions():
    f = Function("f")
    d = Derivative(f(x), x)
    assert isinstance(resolve(d, Opts()), SympyLeafRule)
    e = Integral(sin(t * x), (t, 0, 1))
    assert isinstance(resolve(e, Opts()), SympyLeafRule)
    assert grad(e, x) == diff(e, x)


def test_user_function_named_like_a_builtin_is_not_hijacked():
    fake_sin = Function("sin")
    node = fake_sin(x)
    assert type(node) is not sin
    assert isinstance(resolve(node, Opts()), FdiffRule)
    assert grad(node, x) == Derivative(node, x)
    assert grad(node, x) != cos(x)


@pytest.mark.parametrize("name", NONSMOOTH)
def test_distribution_uses_sympy_for_nonsmooth_entries_only(name):
    cls = DEFAULT_TABLE.entry(name).cls
    node = cls(x, Symbol("y", real=True)) if name in ("Max", "Min", "maximum", "minimum") else None
    if node is None:
        node = cls(x, 3) if name == "Mod" else cls(x)
    assert isinstance(resolve(node, Opts(convention="distribution")), SympyChainRule)
    assert resolve(sin(x), Opts(convention="distribution")) is DEFAULT_TABLE.rule("sin")
