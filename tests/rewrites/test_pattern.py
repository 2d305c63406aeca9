"""Structural matching of templates against nodes."""

from __future__ import annotations

from sympy import Add, Mul, exp, log, sin, sqrt, symbols

from symgrad.rewrites.pattern import PATTERN_SYMBOLS, match

a, b, c, p, u, v = PATTERN_SYMBOLS
x, y, z = symbols("x y z")


def test_a_pattern_symbol_binds_the_same_node_everywhere():
    assert match(exp(u) / (1 + exp(u)), exp(x) / (1 + exp(x)))[0] == {u: x}
    assert match(exp(u) / (1 + exp(u)), exp(x) / (1 + exp(y))) is None


def test_numbers_must_be_equal_not_algebraically_rearranged():
    assert match(log(1 + u), log(x + 2)) is None
    assert match(log(1 + u), log(x + 1))[0] == {u: x}


def test_a_free_symbol_in_a_sum_takes_the_leftover_terms():
    m, rest = match(log(1 + u), log(1 + x + y))
    assert m == {u: x + y} and rest == ()


def test_a_root_sum_matches_part_of_a_node_and_returns_the_rest():
    m, rest = match(exp(u) - 1, exp(x) - 1 + sin(y) + z)
    assert m == {u: x} and set(rest) == {sin(y), z}
    m, rest = match(exp(u) * (1 + exp(u)) ** -1, y * exp(x) / (1 + exp(x)))
    assert m == {u: x} and rest == (y,)


def test_a_negated_pattern_symbol_binds_the_negation():
    assert match(1 / (1 + exp(-u)), 1 / (1 + exp(x)))[0] == {u: -x}
    assert match(1 / (1 + exp(-u)), 1 / (1 + exp(-x)))[0] == {u: x}


def test_commutative_matching_backtracks():
    # exp(u) first binds u = -x against exp(-x), which fails exp(-u); then u = x
    m, _ = match(exp(u) - 2 + exp(-u), exp(-x) + exp(x) - 2)
    assert m[u] in (x, -x)
    assert match(sqrt(a) - sqrt(b), sqrt(x + 1) - sqrt(x))[0] == {a: x + 1, b: x}


def test_classes_and_argument_counts_must_agree():
    assert match(sin(u), exp(x)) is None
    assert match(Add(u, v), x) is None
    assert match(Mul(2, u), 3 * x) is None
