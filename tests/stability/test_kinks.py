"""A formula with a kink split into its branches (stability/kinks.py), each
chosen by a search of its own where no form of the whole is accurate."""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

from symgrad import grad, stabilize
from symgrad.stability.kinks import branches

x, y = sp.symbols("x y", real=True)


def test_the_branches_are_the_formula_each_side_of_its_kink():
    # every Max, Min and Heaviside on u (or -u) resolved each side; the formula
    # itself where u = 0 (Heaviside(0) is 1/2); a Piecewise is its own branches
    u = sp.exp(-x**2) - sp.Rational(1, 2)
    e = sp.Heaviside(u) * sp.Max(0, u) ** 2 + sp.Min(u, 0) * y + sp.Max(-u, 0) * sp.Heaviside(-u)
    parts = branches(e)
    w = parts[0][1].lhs  # u or -u
    assert w in (u, -u) and [c for _, c in parts] == [w > 0, w < 0, sp.true]
    pos, neg = (parts[0][0], parts[1][0]) if w == u else (parts[1][0], parts[0][0])
    assert pos == u**2 and sp.expand(neg - (u * y - u)) == 0 and parts[2][0] == e
    for xv in (0.0, 0.5, 0.8325546111576977, 1.0, 3.0):  # both sides, near the kink
        at = {x: xv, y: 0.75}
        want = float(e.subs(at))
        got = next(f for f, c in parts if bool(c.subs(at)))
        assert abs(float(sp.sympify(got).subs(at)) - want) <= 1e-15 * max(1.0, abs(want))
    pw = sp.Piecewise((x, x > 1), (sp.exp(x), True))
    assert branches(pw) == [(x, x > 1), (sp.exp(x), True)]
    assert branches(sp.Max(0, x) * sp.exp(x)) is None  # a ReLU of a variable: no split
    assert branches(sp.exp(x) - 1) is None


def test_a_kink_no_whole_form_fixes_is_fixed_branch_by_branch():
    # d/dx Min(tanh(x) + 1/2, 0)**3 = 3(1 - tanh²x)·Min(0, t)²·H(-t): 1 - tanh²x
    # cancels for large |x| and t at its zero x = -atanh(1/2); every form of the
    # whole kept 43.5 bits (float64, 128 samples); split at t's sign, the side
    # t < 0 is exp-normalized with a Taylor series at the zero, and the side is
    # chosen by t's own series (t as written rounds to the wrong side within
    # ulps of the zero: 61.8 bits there, widened before)
    g = grad(sp.Min(sp.tanh(x) + sp.Rational(1, 2), 0) ** 3, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = stabilize(g, {x: (-100, 100)}, samples=64, explain=True)
    c = got.choices[0]
    assert c.before[0] > 40 and c.after[0] <= 3, (c.before, c.after, c.how)
    assert c.how.startswith("branches at the kink") and "widened" not in c.how
    assert np.isfinite(c.after[1])
