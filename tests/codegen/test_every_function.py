"""Generated code against mpmath for every function of the rule table, its
gradient too, generated from the spec list (``tests/rules/specs.py``): a new
table entry is covered as soon as it has a spec, without anyone remembering.

Each node is built over compound arguments (``t + 1``, ``2*t``, ``t/2``,
``-t``, ``t**2``: an emitted template must parenthesize its operands) and put
in compound contexts (``-n``, ``2*n``, ``2**n``, ``3/n``: a template that is
not a single call must be parenthesized as a whole).  The sample points are
the spec's, mapped back through the compound, so every argument lands where
the spec says the function is smooth (or away from its kinks).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import numpy as np
import pytest
import sympy as sp

import symgrad

from ..rules.specs import SPECS, Spec

DPS = 40

# name: (compound of t, its inverse: the t at which the compound is p, or None)
COMPOUNDS: dict[str, tuple[Callable, Callable]] = {
    "t": (lambda t: t, lambda p: p),
    "t + 1": (lambda t: t + 1, lambda p: p - 1),
    "2*t": (lambda t: 2 * t, lambda p: p / 2),
    "t/2": (lambda t: t / 2, lambda p: 2 * p),
    "-t": (lambda t: -t, lambda p: -p),
    "t**2": (lambda t: t**2, lambda p: math.sqrt(p) if p > 0 else None),
}
# name: (context of the node n, whether a value of n is usable there)
CONTEXTS: dict[str, tuple[Callable, Callable]] = {
    "-n": (lambda n: -n, lambda v: True),
    "2*n": (lambda n: 2 * n, lambda v: True),
    "2**n": (lambda n: 2**n, lambda v: abs(v) < 60),
    "3/n": (lambda n: 3 / n, lambda v: abs(v) > 1e-3),
}
N_POINTS = 2
# The specs whose value the generated code is compared with: every function
# (override-only rules have no node of their own).
VALUE_SPECS = [s for s in SPECS if s.kind in ("smooth", "nonsmooth", "marker")]
# Markers' rules are by design not the derivative of their value.
GRADIENT_KINDS = ("smooth", "nonsmooth")


@dataclass
class Variant:
    """One formula built from a spec node: its symbols and sample points."""

    label: str
    expr: sp.Expr
    syms: tuple[sp.Symbol, ...]
    points: list[tuple[float, ...]]


def _variants(spec: Spec, k0: int) -> list[Variant]:
    """The spec's node over each compound argument and in each context."""
    out: list[Variant] = []
    candidates = spec.points(12)
    for j, (label, (compound, inverse)) in enumerate(COMPOUNDS.items()):
        ts = sp.symbols(f"t{k0 + j}_0:{spec.arity}", real=True)
        pts = []
        for p in candidates:
            t = tuple(inverse(v) for v in p)
            if None not in t:
                pts.append(t)
        if pts:
            expr = spec.build(*(compound(s) for s in ts))
            out.append(Variant(f"{spec.id}({label})", expr, ts, pts[:N_POINTS]))
    for j, (label, (context, usable)) in enumerate(CONTEXTS.items()):
        ts = sp.symbols(f"t{k0 + len(COMPOUNDS) + j}_0:{spec.arity}", real=True)
        node = spec.build(*ts)
        # the first N_POINTS usable candidates (each tried in turn: evalf is most
        # of this test's time, and the later ones were never used)
        pts = []
        for p in candidates:
            if len(pts) == N_POINTS:
                break
            if usable(float(value(node, dict(zip(ts, _exact(p)))))):
                pts.append(p)
        if pts:
            out.append(Variant(f"{label} for n = {spec.id}", context(node), ts, pts))
    return out


def _exact(p: tuple[float, ...]) -> tuple[sp.Float, ...]:
    # the binary value the code is given, exactly (a Rational would make SymPy
    # try exact roots of huge integers in a power)
    return tuple(sp.Float(v, DPS + 20) for v in p)


def value(expr: sp.Expr, point: dict) -> mpmath.mpf:
    """``expr`` at ``point`` to ``DPS`` digits (mpmath, through evalf)."""
    r = expr.xreplace(point).evalf(DPS)
    re_, im_ = r.as_real_imag()
    assert re_.is_Number and im_.is_Number and abs(im_) < 1e-30, (expr, point, r)
    return mpmath.mpf(re_)


def central_difference(expr: sp.Expr, point: dict, s: sp.Symbol) -> mpmath.mpf:
    """(f(p + h) - f(p - h)) / 2h along ``s``, h = 1e-12 (error ~ 1e-24)."""
    h = sp.Float("1e-12", DPS + 20)
    up, down = dict(point), dict(point)
    up[s] += h
    down[s] -= h
    with mpmath.workdps(DPS):
        return (value(expr, up) - value(expr, down)) / (2 * mpmath.mpf(h))


def _columns(variants: list[Variant]) -> list[np.ndarray]:
    """One array argument per symbol: the variant's points, padded to
    ``N_POINTS`` by repeating the first."""
    cols = []
    for v in variants:
        pts = (v.points * N_POINTS)[:N_POINTS]
        cols += [np.array([p[i] for p in pts]) for i in range(len(v.syms))]
    return cols


def _check(got: np.ndarray, want: mpmath.mpf, what: str, rel: float) -> None:
    assert np.isfinite(got), f"{what}: generated code gives {got}, mpmath {want}"
    err = abs(mpmath.mpf(float(got)) - want)
    assert err <= rel * max(1, abs(want)), f"{what}: generated code gives {got!r}, mpmath {want}"


@pytest.mark.parametrize("spec", VALUE_SPECS, ids=[s.id for s in VALUE_SPECS])
def test_value_and_gradient_agree_with_mpmath(spec):
    variants = _variants(spec, 0)
    args = [s for v in variants for s in v.syms]
    cols = _columns(variants)
    values = symgrad.lambdify(args, [v.expr for v in variants])(*cols)
    grads = [symgrad.grad(v.expr, list(v.syms)) for v in variants]
    do_grad = spec.kind in GRADIENT_KINDS
    if do_grad:
        gvalues = symgrad.lambdify(args, [g for gs in grads for g in gs])(*cols)
    k = 0
    for i, v in enumerate(variants):
        for j, p in enumerate(v.points):
            point = dict(zip(v.syms, _exact(p)))
            want = value(v.expr, point)
            _check(values[i][j], want, f"{v.label} at {p}", 1e-9)
            if not do_grad:
                continue
            for m, s in enumerate(v.syms):
                want = central_difference(v.expr, point, s)
                _check(gvalues[k + m][j], want, f"d/d{s} {v.label} at {p}", 1e-8)
        k += len(v.syms)


def test_every_table_function_is_covered():
    from symgrad.rules import DEFAULT_TABLE

    covered = {s.name for s in VALUE_SPECS}
    with_class = {n for n in DEFAULT_TABLE.names() if DEFAULT_TABLE.entry(n).cls is not None}
    assert with_class <= covered, with_class - covered
