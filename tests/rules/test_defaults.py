"""The default rule table, one generated test per entry and spec (see
``specs.py``): exact against ``sympy.diff`` (or the ``"ad"`` convention's
promised value), and numeric against a 50-digit central difference."""

from __future__ import annotations

from contextlib import contextmanager

import mpmath
import pytest
from sympy import S, Symbol, diff, symbols

from symgrad import grad, jvp
from symgrad.lowering import expand as lower
from symgrad.resolver import ACTIVE_MAPS, node_name, resolve
from symgrad.rules import DEFAULT_TABLE, NONSMOOTH, Opts

from ..oracles import DPS, central_difference, close, equivalent, exact, same, value
from .specs import SPECS, Spec

IDS = [s.id for s in SPECS]


def test_every_entry_has_a_spec():
    covered = {s.name for s in SPECS}
    missing = [n for n in DEFAULT_TABLE.names() if n not in covered]
    assert not missing, f"rule-table entries without a spec in tests/rules/specs.py: {missing}"


def test_every_spec_names_an_entry():
    unknown = [s.id for s in SPECS if s.name not in DEFAULT_TABLE.names()]
    assert not unknown, f"specs for names the table does not hold: {unknown}"


def test_spec_ids_are_unique():
    assert len(set(IDS)) == len(IDS)


def _syms(spec: Spec) -> tuple[Symbol, ...]:
    return symbols(f"x0:{spec.arity}", real=True)


@contextmanager
def _applied(spec: Spec, node):
    """Route ``node`` to the spec's rule: only needed for override-only rules."""
    if spec.kind != "override":
        yield
        return
    token = ACTIVE_MAPS.set(ACTIVE_MAPS.get() + ({node_name(node): spec.name},))
    try:
        yield
    finally:
        ACTIVE_MAPS.reset(token)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_spec_exercises_its_entry(spec):
    xs = _syms(spec)
    node = spec.build(*xs)
    with _applied(spec, node):
        rule = resolve(node, Opts())
    assert rule is DEFAULT_TABLE.rule(spec.name), (spec.id, node, rule)
    assert node.free_symbols == set(xs)


def _oracle(spec: Spec, node, xs) -> list:
    if spec.kind == "smooth":
        return [diff(lower(node), x) for x in xs]
    return list(spec.expected(*xs))


def _same(a, b, xs) -> bool:
    # the same verdict in either order; exact cancellation and 50-digit values
    # first, because simplify (and equals) can take seconds where they fail
    # (LambertW's W·e^W = x: 20 s)
    return equivalent(a, b, xs) or same(a, b)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_exact(spec):
    """Reverse (grad) and forward (jvp) mode both give the oracle's partials."""
    xs = _syms(spec)
    node = spec.build(*xs)
    want = _oracle(spec, node, xs)
    with _applied(spec, node):
        rev = grad(node, list(xs))
        fwd = [jvp(node, list(xs), [S.One if j == i else S.Zero for j in range(len(xs))])
               for i in range(len(xs))]
    for x, r, f, w in zip(xs, rev, fwd, want):
        if spec.kind == "smooth":
            # SymPy's simplify misses identities (W·e^W = x for LambertW): where it
            # cannot decide, 50-digit values at random points do
            assert _same(lower(r), w, xs), f"{spec.id}: d/d{x} by grad is {r}, want {w}"
            assert _same(lower(f), w, xs), f"{spec.id}: d/d{x} by jvp is {f}, want {w}"
            continue
        # A convention need only agree where the node is differentiable: there,
        # exactly (the sample points are rationals).
        for p in spec.points():
            at = dict(zip(xs, map(exact, p)))
            want_at = w.xreplace(at)
            assert r.xreplace(at) == want_at, f"{spec.id}: d/d{x} at {p}: {r}, want {w}"
            assert f.xreplace(at) == want_at, f"{spec.id}: d/d{x} at {p}: {f}, want {w}"


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_numeric(spec):
    """Each partial matches a central difference at seeded random points."""
    xs = _syms(spec)
    node = spec.build(*xs)
    with _applied(spec, node):
        partials = grad(node, list(xs))
    target = node if spec.kind in ("smooth", "nonsmooth") else None
    with mpmath.workdps(DPS):
        for p in spec.points(n=4):
            at = dict(zip(xs, p))
            for x, d in zip(xs, partials):
                got = value(d, at)
                if target is None:  # no function to difference: the rule's promise
                    want = value(spec.expected(*xs)[xs.index(x)], at)
                else:
                    want = central_difference(target, at, x)
                assert close(got, want), f"{spec.id}: d/d{x} at {p} is {got}, want {want}"


NONSMOOTH_SPECS = [s for s in SPECS if s.kind == "nonsmooth" and s.name in NONSMOOTH]


def test_nonsmooth_specs_cover_nonsmooth():
    assert set(NONSMOOTH) <= {s.name for s in NONSMOOTH_SPECS}


@pytest.mark.parametrize("spec", NONSMOOTH_SPECS, ids=[s.id for s in NONSMOOTH_SPECS])
def test_distribution_convention_is_sympys(spec):
    xs = _syms(spec)
    node = spec.build(*xs)
    got = grad(node, list(xs), convention="distribution")
    for x, g in zip(xs, got):
        assert same(g, diff(node, x)), f"{spec.id}: {g} vs {diff(node, x)}"


def test_lambertw_derivative_is_finite_at_zero():
    """W'(0) = 1; the textbook W/(x(1 + W)) is 0/0 there (found by the fuzzer)."""
    from sympy import LambertW, Symbol

    x = Symbol("x", real=True)
    assert grad(LambertW(x), x).subs(x, 0) == 1
    assert jvp(LambertW(x), x, 1).subs(x, 0) == 1
