"""RuleTable: names, classes, TensorFlow aliases, clear errors."""

from __future__ import annotations

import pytest
from sympy import Function, Symbol, exp, floor, sin

from symgrad import NoRuleError
from symgrad.rules import DEFAULT_TABLE, TF_ALIASES, IdentityRule, RuleTable, ZeroRule

x = Symbol("x")


def test_add_remove_replace():
    t = RuleTable()
    t.add("mine", ZeroRule())
    assert "mine" in t and t.names() == ["mine"]
    assert t.rule("mine").name == "mine"
    with pytest.raises(ValueError, match="'mine' is already registered; pass replace=True"):
        t.add("mine", IdentityRule())
    t.add("mine", IdentityRule(), replace=True)
    assert isinstance(t.rule("mine"), IdentityRule)
    t.remove("mine")
    assert "mine" not in t


def test_entry_with_class_applies_only_to_that_class():
    t = RuleTable()
    t.add("exp", ZeroRule(), exp)
    assert t.for_node(exp(x)) is t.rule("exp")
    assert t.for_node(Function("exp")(x)) is None  # an undefined function named exp
    t.add("g", ZeroRule())  # no class: any node so named
    assert t.for_node(Function("g")(x)) is t.rule("g")
    assert t.for_node(sin(x)) is None


def test_every_tf_alias_names_an_entry():
    missing = {k: v for k, v in TF_ALIASES.items() if v not in DEFAULT_TABLE.names()}
    assert not missing


def test_aliases_resolve_but_names_win():
    assert DEFAULT_TABLE.rule("Floor") is DEFAULT_TABLE.rule("floor")
    assert DEFAULT_TABLE.rule("Maximum") is DEFAULT_TABLE.rule("Max")
    assert "Floor" in DEFAULT_TABLE
    t = RuleTable()
    t.add("Floor", IdentityRule())
    t.add("floor", ZeroRule(), floor)
    assert isinstance(t.rule("Floor"), IdentityRule)


def test_unknown_name_suggests_and_says_how_to_register():
    with pytest.raises(NoRuleError) as info:
        DEFAULT_TABLE.rule("Flor")
    msg = str(info.value)
    assert "unknown gradient rule 'Flor'" in msg
    assert "did you mean" in msg and "'Floor'" in msg
    assert "symgrad.register_gradient('Flor')" in msg
    with pytest.raises(NoRuleError, match="did you mean 'tanh'"):
        DEFAULT_TABLE.rule("TANH")
    with pytest.raises(LookupError):
        DEFAULT_TABLE.rule("erf2")
    with pytest.raises(NoRuleError, match=r"^unknown gradient rule 'Nope'\. Register one with"):
        DEFAULT_TABLE.rule("Nope")  # a sentence of its own when nothing is close
