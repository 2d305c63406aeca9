"""Issue 8 §2: answers that were silently wrong (rules assuming a real
argument, n-ary Max/Min indicators, ties, 0**y, hessian mirroring,
non-scalar expressions), each against an exact or 50-digit oracle."""

from __future__ import annotations

import pytest
from sympy import (
    Abs,
    I,
    Rational,
    S,
    acosh,
    asin,
    diff,
    log,
    sign,
    sin,
    sqrt,
    symbols,
)

from symgrad import grad, jacobian, jvp, vjp

from .oracles import central_difference, close, value

x, y, z = symbols("x y z", real=True)
p, q = symbols("p q")  # no assumptions: real variables to symgrad


# ---- rules that assume a real argument, applied where it is not real -------

NOT_REAL = [
    # (expression, point): the argument of Abs/sign is not real there
    (Abs(sqrt(x)), {x: -4}),
    (Abs(sqrt(p)), {p: -4}),
    (Abs(log(x)), {x: Rational(-3, 2)}),
    (Abs(asin(x)) * y, {x: 3, y: 2}),
    (Abs(sqrt(x) * y + sin(x)), {x: -2, y: Rational(1, 3)}),
    (Abs(sqrt(Abs(sqrt(x)) - 3)), {x: -1}),  # nested: the inner Abs is real
    (Abs(sqrt(x - 5)) ** 2 + Abs(acosh(x)), {x: Rational(1, 2)}),
    (Abs(sqrt(x)) * Abs(sqrt(y)), {x: -2, y: -3}),
]


def _numeric(e, at, s):
    """∂e/∂s at ``at`` by a 50-digit central difference (error ~1e-30)."""
    return central_difference(e, at, s)


@pytest.mark.parametrize("e, at", NOT_REAL, ids=lambda v: str(v)[:40])
def test_abs_of_a_non_real_argument(e, at):
    syms = sorted(e.free_symbols, key=str)
    rev = grad(e, syms)
    fwd = [jvp(e, syms, [S.One if t == s else S.Zero for t in syms]) for s in syms]
    for s, r, f in zip(syms, rev, fwd):
        want = _numeric(e, at, s)
        assert close(value(r, at), want, 1e-15), (s, r)
        assert close(value(f, at), want, 1e-15), (s, f)


def test_abs_sqrt_at_minus_four_is_sympys():
    g = grad(Abs(sqrt(x)), x)
    assert g.subs(x, -4) == Rational(-1, 4) == diff(Abs(sqrt(x)), x).subs(x, -4)
    assert jacobian([Abs(sqrt(x))], [x])[0].subs(x, -4) == Rational(-1, 4)
    assert vjp(Abs(sqrt(x)), x, 2).subs(x, -4) == Rational(-1, 2)


def test_abs_of_a_real_argument_stays_sign():
    assert grad(Abs(x), x) == sign(x)
    assert grad(Abs(p), p) == sign(p)
    assert grad(Abs(sqrt(x**2 + 1) - 2), x) == x * sign(sqrt(x**2 + 1) - 2) / sqrt(x**2 + 1)
    assert grad(Abs(sin(p) * q), p) == q * cos_(p) * sign(q * sin(p))


def cos_(s):
    from sympy import cos

    return cos(s)


def test_sign_of_a_non_real_argument():
    # sign(u) = u/|u| for complex u: not piecewise constant
    e = Abs(sign(sqrt(x) + 1) + 1)
    at = {x: -3}
    want = _numeric(e, at, x)
    assert close(value(grad(e, x), at), want, 1e-15)
    assert close(value(jvp(e, x, 1), at), want, 1e-15)
    assert grad(sign(sqrt(x) + 1) ** 2, x).subs(x, 4) == 0  # real there: 0 a.e.


def test_a_complex_argument_with_i_is_still_refused():
    from symgrad import ComplexValueError

    with pytest.raises(ComplexValueError):
        grad(sign(I * x + 1), x)


def test_complex_output_holding_abs_of_complex_argument():
    # d/dx sqrt(x)·|sqrt(x)| at -4: 1/(4i)·2 + 2i·(-1/4) = -i (no real part to take)
    e = sqrt(x) * Abs(sqrt(x))
    assert close(value(grad(e, x), {x: -4}), value(-I, {}))
    assert close(value(jvp(e, x, 1), {x: -4}), value(-I, {}))


def test_the_general_form_compiles():
    import numpy as np

    import symgrad

    f = symgrad.lambdify([x], grad(Abs(log(x)), x))
    assert np.allclose(f(np.array([0.5, 2.0])), [-2.0, 0.5])
