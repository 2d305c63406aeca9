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
