"""Property tests over random expression trees (hypothesis): grad agrees
with ``sympy.diff``; jvp and vjp are adjoint, ⟨u, J v⟩ = ⟨uᵀJ, v⟩; forward
and reverse mode agree; the Hessian is symmetric and matches
``sympy.hessian``.

Trees are small and built from functions defined on all of ℝ, so every
sample point is valid.  Comparisons are numeric, at 30 digits, at points
hypothesis picks; a point where a float64 pre-check overflows (towers of
``exp``) is discarded rather than evaluated at high precision.
"""

from __future__ import annotations

import math
import os

import mpmath
import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sympy import (
    Add,
    Integer,
    Matrix,
    Mul,
    Rational,
    asinh,
    atan,
    cancel,
    cos,
    diff,
    exp,
    lambdify,
    log,
    sin,
    sqrt,
    symbols,
    tanh,
)
from sympy import hessian as sympy_hessian

from symgrad import grad, hessian, jacobian, jvp, vjp

from .oracles import equivalent

X = symbols("x y z", real=True)
DPS = 30
REL = mpmath.mpf(10) ** -20

# SYMGRAD_FUZZ=long: twenty times the examples, drawn at random (tests/conftest.py);
# the default counts are what CI's time affords
SCALE = 20 if os.environ.get("SYMGRAD_FUZZ") == "long" else 1
SETTINGS = settings(
    max_examples=50 * SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# ---- random trees ------------------------------------------------------------

UNARY = [
    exp,
    sin,
    cos,
    tanh,
    atan,
    cancel,
    asinh,
    lambda u: log(1 + u**2),
    lambda u: sqrt(1 + u**2),
    lambda u: u**2,
    lambda u: u**3,
    lambda u: (1 + u**2) ** -2,
]
BINARY = [
    lambda u, v: Add(u, v),
    lambda u, v: Add(u, -v),
    lambda u, v: Mul(u, v),
    lambda u, v: u / (1 + v**2),
    lambda u, v: u / (2 + sin(v)),
]

leaves = st.one_of(
    st.sampled_from(X),
    st.sampled_from(X),
    st.sampled_from(X),
    st.sampled_from([Integer(2), Integer(-3), Rational(1, 2), Rational(-3, 2)]),
)


def _extend(children):
    unary = st.builds(lambda f, u: f(u), st.sampled_from(UNARY), children)
    binary = st.builds(lambda f, u, v: f(u, v), st.sampled_from(BINARY), children, children)
    return unary | binary


trees = st.recursive(leaves, _extend, max_leaves=10).filter(lambda e: e.free_symbols)
# ``cancel`` is exact but its cost grows fast with nesting: smaller trees.
small_trees = st.recursive(leaves, _extend, max_leaves=6).filter(lambda e: e.free_symbols)
points = st.tuples(*[st.floats(-1.5, 1.5, allow_nan=False, width=32) for _ in X])


# ---- numbers ----------------------------------------------------------------


def _finite_floats(exprs, syms, vals) -> bool:
    """A float64 pre-check: every expression finite and moderate at ``vals``."""
    with np.errstate(all="ignore"):
        for e in exprs:
            try:
                v = complex(lambdify(syms, e, "numpy")(*vals))
            except (OverflowError, ZeroDivisionError, ValueError):
                return False
            if not (math.isfinite(v.real) and math.isfinite(v.imag)) or abs(v) > 1e12:
                return False
    return True


def _mp(exprs, syms, vals) -> list:
    with mpmath.workdps(DPS):
        args = [mpmath.mpf(repr(float(v))) for v in vals]
        return [mpmath.mpf(lambdify(syms, e, "mpmath")(*args)) for e in exprs]


def _agree(got, want) -> bool:
    with mpmath.workdps(DPS):
        return all(abs(g - w) <= REL * max(1, abs(w)) for g, w in zip(got, want))


def _check(got, want, syms, vals) -> None:
    assume(_finite_floats(list(want), syms, vals))
    g, w = _mp(got, syms, vals), _mp(want, syms, vals)
    assert _agree(g, w), (got, want, vals, g, w)


# ---- properties ---------------------------------------------------------------


@SETTINGS
@given(trees, points)
def test_grad_agrees_with_sympy_diff(e, p):
    got = grad(e, list(X))
    want = [diff(e, s) for s in X]
    for g, w in zip(got, want):
        if g == w:
            continue
        _check([g], [w], X, p)


@SETTINGS
@given(small_trees)
def test_grad_agrees_with_sympy_diff_exactly(e):
    """Exactly where SymPy can decide it (equal trees, or a difference that
    ``cancel`` takes to 0), else at random rational points at 50 digits:
    ``cancel`` is no zero test once square roots of sums appear, and a
    property test must not fail on a correct answer."""
    for s in X:
        g, w = grad(e, s), diff(e, s)
        assert equivalent(g, w, X), (e, s, g, w)


@settings(SETTINGS, max_examples=25 * SCALE)  # two trees, four modes each: the costliest here
@given(trees, trees, points, st.lists(st.integers(-3, 3), min_size=5, max_size=5))
def test_jvp_vjp_adjoint(e1, e2, p, uv):
    """⟨u, J v⟩ = ⟨uᵀJ, v⟩ with symbolic u, v, then at numbers."""
    outs = [e1, e2]
    u = symbols("u0:2", real=True)
    v = symbols("v0:3", real=True)
    lhs = sum(ui * ji for ui, ji in zip(u, jvp(outs, list(X), list(v))))
    rhs = sum(vi * gi for vi, gi in zip(v, vjp(outs, list(X), list(u))))
    syms = (*X, *u, *v)
    _check([lhs], [rhs], syms, (*p, *uv))
    # and with numeric tangents / cotangents
    un, vn = uv[:2], uv[2:]
    lhs = sum(ui * ji for ui, ji in zip(un, jvp(outs, list(X), vn)))
    rhs = sum(vi * gi for vi, gi in zip(vn, vjp(outs, list(X), un)))
    _check([lhs], [rhs], X, p)


@settings(SETTINGS, max_examples=30 * SCALE)
@given(trees, points)
def test_forward_and_reverse_agree(e, p):
    rev = grad(e, list(X))
    fwd = [jvp(e, list(X), [1 if j == i else 0 for j in range(3)]) for i in range(3)]
    _check(fwd, list(rev), X, p)


@settings(SETTINGS, max_examples=20 * SCALE)
@given(trees, points)
def test_hessian_symmetric_and_matches_sympy(e, p):
    h = hessian(e, list(X))
    assert h.shape == (3, 3)
    assert h == h.T
    want = sympy_hessian(e, X)
    _check(list(h), list(want), X, p)


@settings(SETTINGS, max_examples=15 * SCALE)
@given(trees, trees)
def test_jacobian_rows_are_gradients(e1, e2):
    j = jacobian([e1, e2], list(X))
    assert j == Matrix([list(grad(e1, list(X))), list(grad(e2, list(X)))])
