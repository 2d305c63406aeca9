"""values: many formulas at a point to 30 digits, balls first, mpmath elsewhere."""

from __future__ import annotations

import mpmath
import sympy as sp

from symgrad.stability.values import Values, evaluator

x, y = sp.symbols("x y", real=True)


def _exact(e, point, dps=60):
    with mpmath.workdps(dps):
        return mpmath.mpmathify(e.evalf(dps, subs={x: sp.Float(point[0], 30),
                                                   y: sp.Float(point[1], 30)}))


def test_balls_decide_where_they_can_and_agree_with_mpmath():
    exprs = [sp.exp(x) - 1 - x, sp.sin(x * y) / y, sp.sqrt(y) * sp.cos(x)]
    v = Values(exprs, [x, y])
    for point in ([1e-10, 2.0], [3.25, 0.5], [-700.0, 1e-300]):
        got = v.at(point)
        for e, g in zip(exprs, got):  # (exp(x) - 1 - x at 1e-10: 5e-21, 10 digits in floats)
            t = _exact(e, point)
            assert abs(g - t) <= 1e-25 * (1 + abs(t)), (e, point, g, t)
    assert v.by_balls == 3


def test_points_the_balls_refuse_go_to_mpmath():
    # sqrt of a negative: not a real ball (a complex value, as mpmath gives it)
    exprs = [x + y, sp.sqrt(x), sp.Piecewise((x, y < 1), (y, True))]
    v = Values(exprs, [x, y])
    got = v.at([-4.0, 1.0])
    assert v.by_balls == 0
    assert got[0] == -3 and got[1] == mpmath.mpc(0, 2) and got[2] == 1
    assert got == [evaluator(e, [x, y])([-4.0, 1.0]) for e in exprs]
    assert Values(exprs, [x, y], gate=True).at([-4.0, 1.0])[1] == mpmath.mpc(0, 2)
    assert Values([sp.log(x), y], [x, y], gate=True).at([0.0, 1.0]) == [None, None]
