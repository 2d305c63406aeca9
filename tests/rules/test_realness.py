"""rules/realness.py: whether an argument is real, and the Abs/sign rules
that depend on it, on deep arguments."""

import math

import mpmath
import pytest
import sympy as sp

from symgrad import grad, lambdify

x = sp.Symbol("x", real=True)


def _nested_roots(depth: int, e: sp.Expr = x) -> sp.Expr:
    """sqrt(... sqrt(sqrt(e + 1) + 1) ... + 1), built without evaluation."""
    for _ in range(depth):
        e = sp.Pow(sp.Add(e, sp.Integer(1), evaluate=False), sp.Rational(1, 2), evaluate=False)
    return e


@pytest.mark.parametrize("start", [x, sp.Symbol("p", positive=True)], ids=str)
def test_abs_of_a_deep_argument_differentiates(start):
    # is_real(u) (x: SymPy's assumptions asked at the top), then sign(u) and
    # conjugate(sign(u)) of the rule (p: their evaluation) recursed in SymPy
    depth = 300
    g = grad(sp.Abs(_nested_roots(depth, start), evaluate=False), start)
    with mpmath.workdps(30):
        u, want = mpmath.mpf(2), mpmath.mpf(1)
        for _ in range(depth):
            want /= 2 * mpmath.sqrt(u + 1)
            u = mpmath.sqrt(u + 1)
    got = lambdify([start], g)(2.0)
    assert math.isclose(got, float(want), rel_tol=1e-12)


def _chain(depth, step, e=x):
    for _ in range(depth):
        e = step(e)
    return e


_ADD = lambda *a: sp.Add(*a, evaluate=False)  # noqa: E731  (built as written: SymPy's
_MUL = lambda *a: sp.Mul(*a, evaluate=False)  # noqa: E731  evaluation walks the trees)


@pytest.mark.parametrize("step, real", [
    # a positive argument at every level
    (lambda e: sp.log(_ADD(1, sp.exp(e, evaluate=False)), evaluate=False), True),
    (lambda e: _ADD(sp.Pow(_ADD(sp.Pow(e, 2, evaluate=False), 1), sp.Rational(1, 2),
                           evaluate=False), _MUL(sp.Rational(-1, 3), e)), True),
    (lambda e: _ADD(sp.atan(e, evaluate=False),
                    _MUL(sp.Abs(e, evaluate=False), sp.sin(e, evaluate=False))), True),
    (lambda e: sp.sqrt(_ADD(e, sp.Integer(1))), False),  # e + 1 < 0 somewhere
    (lambda e: _ADD(sp.log(sp.cos(e, evaluate=False), evaluate=False), e), False),  # log(-1)
], ids=["log1pexp", "hypot-like", "atan-abs-sin", "nested-roots", "log-cos"])
def test_a_tall_argument_is_judged_one_node_at_a_time(step, real):
    # taller than 32 levels, SymPy is asked about each node over symbols standing for its
    # operands (asked of the whole, its assumptions walk the tree below every node)
    from symgrad.graph import height
    from symgrad.rules.realness import _DEEP, is_real

    u = _chain(40, step)
    assert height(u) > _DEEP
    assert is_real(u) is real
    assert is_real(_chain(3, step)) is real  # the short chain, asked of SymPy whole
