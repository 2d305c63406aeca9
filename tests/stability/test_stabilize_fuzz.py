"""stabilize never changes a formula's value: a differential fuzz.

Random formulas of the operations where floating point goes wrong
(differences, quotients, exp, log, sqrt, trigonometric functions, powers)
are stabilized over random boxes.  At random points of the box the result,
evaluated at 50 digits (SymPy's evalf, through mpmath), must equal the
formula: to 1e-25 where the chosen form is an identity, and to 1e-12 where
it is a truncated series (an approximation, measured to within 3 bits on
its samples).  Where the formula has a finite value the result must have
one too.  ``SYMGRAD_FUZZ=long`` runs 1,000 examples, at random.
"""

from __future__ import annotations

import os
import random

import mpmath
import sympy as sp
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from symgrad import stabilize
from symgrad.widen import widen

from ..oracles import DPS, try_value

LONG = os.environ.get("SYMGRAD_FUZZ") == "long"
FUZZ = settings(max_examples=1000 if LONG else 12, deadline=None, derandomize=not LONG,
                suppress_health_check=list(HealthCheck))

x, y = sp.symbols("x y", real=True)

leaves = st.sampled_from([x, x, y, sp.Integer(1), sp.Integer(2), sp.Rational(1, 2)])
UNARY = [sp.exp, sp.log, sp.sqrt, sp.sin, sp.cos, sp.tan, sp.atan, lambda u: -u,
         lambda u: u**2, lambda u: 1 / u, sp.cbrt]
BINARY = [sp.Add, lambda a, b: a - b, sp.Mul, lambda a, b: a / b]


def _extend(children: st.SearchStrategy) -> st.SearchStrategy:
    unary = st.builds(lambda f, a: f(a), st.sampled_from(UNARY), children)
    binary = st.builds(lambda f, a, b: f(a, b), st.sampled_from(BINARY), children, children)
    return st.one_of(unary, binary, binary)


formulas = st.recursive(leaves, _extend, max_leaves=5).filter(
    lambda e: isinstance(e, sp.Expr) and bool(e.free_symbols)
    and not e.has(sp.I, sp.zoo, sp.nan, sp.oo, -sp.oo)  # refused, clearly (test_check.py)
)
BOXES = [(0.5, 2.0), (1.0, 1e6), (1e-8, 1e-3), (-1.0, 1.0), (-30.0, 30.0), (1e3, 1e15)]


def _point(box: tuple[float, float], rng: random.Random) -> float:
    lo, hi = box
    if lo > 0:  # log-uniform: every scale of the box
        return float(mpmath.exp(rng.uniform(float(mpmath.log(lo)), float(mpmath.log(hi)))))
    return rng.uniform(lo, hi)


def _series(e: sp.Basic) -> bool:
    """Whether the chosen form holds a truncated series (a polynomial piece)."""
    pieces = [a.expr for a in e.args] if isinstance(e, sp.Piecewise) else [e]
    syms = e.free_symbols
    return any(p.is_polynomial(*syms) and sp.Poly(p, *syms).total_degree() > 2
               for p in pieces if p.free_symbols)


@FUZZ
@given(formulas, st.lists(st.sampled_from(BOXES), min_size=2, max_size=2), st.integers(0, 99))
def test_stabilize_keeps_the_value(e, boxes, seed):
    dom = {s: b for s, b in zip(sorted(e.free_symbols, key=str), boxes)}
    try:
        r = stabilize(e, dom, samples=64, seed=seed)
    except RecursionError:
        reject()
    got = r.args[0] if isinstance(r, widen) else r
    tol = mpmath.mpf(10) ** (-12 if _series(got) else -25)
    rng = random.Random(seed)
    checked = 0
    for _ in range(12):
        at = {s: _point(b, rng) for s, b in dom.items()}
        want = try_value(e, at)
        if want is None or isinstance(want, mpmath.mpc):  # no real value here
            continue
        have = try_value(r, at)
        assert have is not None, f"stabilize({e}) = {r} has no value at {at}; {e} is {want}"
        with mpmath.workdps(DPS):
            assert abs(have - want) <= tol * max(abs(want), mpmath.mpf(10) ** -300), (
                f"stabilize({e}) = {r} at {at}: {have}, the formula {want}"
            )
        checked += 1
        if checked == 4:
            break
