"""Signs and realness over a domain, for the rewrites' validity."""

from __future__ import annotations

import math

from sympy import I, Piecewise, asin, atan, cos, exp, log, pi, sqrt, symbols

from symgrad.rewrites import Facts

x, y = symbols("x y")


def test_symbols_are_real_and_unbounded_without_a_domain():
    f = Facts()
    assert f.real(x) and not f.positive(x) and not f.nonzero(x)
    assert f.positive(exp(x)) is False  # exp(x) may underflow to 0: only nonnegative
    assert f.nonnegative(exp(x)) and f.positive(1 + exp(x))


def test_bounds_follow_the_domain():
    f = Facts({x: (1, 2), y: (-3, -1)})
    assert f.positive(x * x - 0.5) and f.negative(y) and f.nonzero(x * y)
    assert f.positive(log(x + 1)) and f.positive(sqrt(x) - 0.9)
    lo, hi = f.bound(atan(x) + cos(y))
    assert -1 <= lo and hi <= math.pi / 2 + 1 + 1e-12


def test_not_real_where_the_value_may_leave_the_reals():
    f = Facts()
    assert not f.real(log(x)) and not f.real(sqrt(x)) and not f.real(I * x)
    assert not f.real(asin(2)) and not f.real(x ** pi)
    assert Facts({x: (0, 1)}).real(sqrt(x)) and Facts({x: (0.5, 1)}).real(log(x))


def test_polynomials_in_one_variable_by_their_roots():
    f = Facts()
    assert f.positive(1 + x * (x + 1))  # no real root
    assert not f.positive(x**2 - 1)
    assert Facts({x: (2, 3)}).positive(x**2 - 1)


def test_piecewise_takes_the_hull_of_its_branches():
    f = Facts({x: (0, 1)})
    lo, hi = f.bound(Piecewise((x + 2, x > 0.5), (x + 3, True)))
    assert 1.999 < lo <= 2 and 4 <= hi < 4.001


def test_functions_real_at_every_real_argument_and_inside_their_domain():
    from sympy import acosh, asin, floor, sign, tan

    f = Facts()
    assert f.real(tan(x)) and f.real(floor(x) + sign(x)) and f.real(acosh(x**2 + 1))
    assert not f.real(asin(x)) and not f.real(acosh(x))
    assert Facts({x: (-1, 1)}).real(asin(x)) and not Facts({x: (-1, 1.5)}).real(asin(x))


def test_a_norm_minus_its_argument_is_not_negative():
    # hypot(p, q) ≥ |p|: |z| - re ≥ 0 and re - |z| ≤ 0, which intervals alone miss
    from sympy.codegen.cfunctions import hypot

    f = Facts()
    h = hypot(y, x)
    assert f.nonnegative(h - x) and f.nonnegative(h + x) and f.bound(-(h + y))[1] == 0
    assert f.bound(x - h)[1] == 0 and not f.nonnegative(h - 2 * x)
    # a reciprocal with a pole at an end of its argument's range keeps its sign
    assert f.nonnegative(1 / (h - x)) and f.bound(1 / (x - h))[1] <= 0
    assert Facts({x: (0, 1)}).positive(1 / x) and Facts({x: (-1, 1)}).bound(1 / x) == (-math.inf,
                                                                                          math.inf)


def test_sums_past_the_largest_float_are_unbounded_not_an_error():
    big = 1.7976931348623157e308
    f = Facts({x: (-big, big), y: (-big, big)})
    assert f.bound((x + y) ** 2) == (0.0, math.inf) and f.real(x + y + x)


def test_the_accurate_forms_nodes_are_bounded():
    # a rewrite sees Softplus(u) before it is expanded: 1 - tanh(softplus(x))**2 in
    # mish's gradient is one-minus-tanh-squared's only where softplus is known real
    from symgrad.rewrites.forms import Sigmoid, Softplus

    f = Facts({x: (-3, 2)})
    assert f.bound(Sigmoid(x)) == (0.0, 1.0) and f.nonnegative(Softplus(x))
    assert f.bound(Softplus(x))[1] <= 2 + math.log(2) + 1e-12 and Facts().real(Softplus(x))


def test_floor_and_the_exact_square_splits_low_part_are_bounded():
    # the exp-square rewrite writes u = vh + vl with vh = floor(64*Min(64, v))/64:
    # vl = v - vh is in [0, 1/64) where v <= 64; the interval sum alone saw
    # [-64, 30] for v = |x| over (-30, 30) (and a product with exp(-vl**2/2 - ...)
    # looked subnormal, a dead pair branch in log Phi's code)
    from sympy import Abs, ceiling, floor

    from symgrad.rewrites.library import _split

    vh, vl = _split(Abs(x), 64)
    f = Facts({x: (-30, 30)})
    assert f.bound(floor(x / 4)) == (-8, 7) and f.bound(ceiling(x / 4)) == (-7, 8)
    assert f.bound(vh) == (0, 30) and 0 <= f.bound(vl)[0] and f.bound(vl)[1] <= 1 / 64 + 1e-15
    assert f.bound(-vl**2 / 2 - vl * vh)[0] > -1  # never near the subnormals
    lo, hi = f.bound(x - floor(4 * x) / 4)
    assert lo == 0 and 0.25 <= hi < 0.25 + 1e-15
    assert Facts({x: (-100, 100)}).bound(vl)[0] < 0  # past the split's top: v - 64, not bounded so


def test_a_root_plus_a_term_is_signed_through_its_conjugate():
    # √P + T where P - T² cancels symbolically: intervals see two terms that
    # nearly cancel, the conjugate (P - T²)/(√P - T) sees the sign.  Cardano's
    # cube roots (heldout_o row 17: 61.9 bits, cbrt(√(y²/4 + x³/27) - y/2) not
    # known ≥ 0, so cbrt(a) - cbrt(b) was not rewritten); siblings not started
    # from: q of either sign, a root over x² + y
    import numpy as np
    from sympy import Rational

    from symgrad.rewrites import safe_forms

    from .measure import as_run, as_written, errors

    s = sqrt(y**2 / 4 + x**3 / 27)
    f = Facts({x: (1e-2, 1e2), y: (-1e2, 1e2)})
    assert f.positive(s - y / 2) and f.positive(s + y / 2)
    assert Facts({x: (0, 10)}).negative(sqrt(x**2 + 1) - x - 2)  # P - T² = -4x - 3 < 0, T < 0
    assert Facts({x: (0, 10)}).positive(x + 2 - sqrt(x**2 + 1))  # the same, negated
    third = Rational(1, 3)
    r = sqrt(x**2 + y)
    e = (r + x) ** third - (r - x) ** third  # 2·sinh(asinh(x/√y)/3)·y^(1/6), cancelling at x → 0
    form = safe_forms([e], {x: (0, 1e3), y: (1e-3, 1)})[0]
    got = errors(e, {"source": (e, as_written), "form": (form, as_run)},
                 {x: (1e-300, 1e-6), y: (0.5, 1)}, n=24)
    assert got["source"].max() >= 10 and got["form"].max() <= 3, (form, got["form"].max())
    assert np.isfinite(got["form"]).all()
