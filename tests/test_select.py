"""where / cond: gradient to the taken branch only, and never a NaN from
the branch not taken (issue 4)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import SymgradError, cond, grad, hessian, jvp, lambdify, where

x, y = sp.symbols("x y", real=True)


def test_where_routes_the_cotangent():
    e = where(x > y, x**2, 3 * y)
    gx, gy = grad(e, [x, y])
    assert gx.subs({x: 2, y: 1}) == 4 and gy.subs({x: 2, y: 1}) == 0
    assert gx.subs({x: 0, y: 1}) == 0 and gy.subs({x: 0, y: 1}) == 3


def test_condition_gets_no_gradient():
    # y appears only in the condition
    assert grad(where(y > 0, x, 2 * x), y) == 0


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_untaken_branch_never_leaks_nan(mode):
    e = where(x > 0, sp.sqrt(x), 0)
    g = grad(e, x) if mode == "reverse" else jvp(e, x, 1)
    assert g.subs(x, -1) == 0
    f = lambdify([x], g)
    xs = np.array([-1.0, -0.0, 0.0, 0.25, 4.0])
    with np.errstate(all="raise"):
        out = f(xs)
    np.testing.assert_array_equal(out, [0.0, 0.0, 0.0, 1.0, 0.25])


def test_nan_free_through_a_chain():
    # the classic: log of a branch that is invalid where not taken, times more
    e = y * where(x > 1, sp.log(x - 1), x) ** 2
    g = grad(e, x)
    f = lambdify([x, y], g)
    out = f(np.array([0.5, 3.0]), np.array([2.0, 2.0]))
    np.testing.assert_allclose(out, [2 * 2 * 0.5, 2 * 2 * np.log(2) / 2])


def test_cond_with_callables_and_bools():
    assert grad(cond(x < 1, lambda: x**2, lambda: 2 * x), x) == sp.Piecewise(
        (2 * x, x < 1), (2, True)
    )
    assert cond(True, x, y) == x
    assert where(sp.true, x, y) == x
    assert where(False, x, y) == y


def test_bad_condition():
    with pytest.raises(SymgradError, match="relational or boolean"):
        where(x, 1, 2)
    with pytest.raises(SymgradError, match="string"):
        where(x > 0, "x", 2)


@pytest.mark.parametrize("mode", ["reverse", "hessian"])
def test_nested_where_never_leaks_nan(mode):
    # the outer where's cotangent, a Piecewise, reaches the inner where's
    # branches; it must be distributed there too, not multiplied by their
    # partials (0 * nan at x <= 0, where the inner sqrt branch is untaken)
    e = where(x > 0, where(x > 1, sp.log(x - 1), sp.sqrt(x)), 0) * y
    g = grad(e, x) if mode == "reverse" else hessian(e, [x, y])[0, 0]
    assert g.subs({x: -1, y: 2}) == 0
    f = lambdify([x, y], g)
    for dtype in (np.float32, np.float64):
        out = f(np.array([-1.0, 0.0, 0.25, 2.0], dtype), np.array(2.0, dtype))
        assert np.all(np.isfinite(out)), out
        assert out[0] == 0 and out[1] == 0


def test_where_on_matrices_and_arrays_is_elementwise():
    # tf.where(c, A, B) on tensors: one select per entry, not one Piecewise
    # holding two matrices
    a, b = sp.Matrix([[x, y]]), sp.Matrix([[y, 2 * x]])
    w = where(x > 0, a, b)
    assert isinstance(w, sp.MatrixBase) and w.shape == (1, 2)
    assert w[1] == sp.Piecewise((y, x > 0), (2 * x, True))
    assert grad(w[0] + w[1], x).subs(x, -1) == 2
    # a condition per entry, and a scalar branch broadcast
    c = where(sp.Array([x > 0, y > 0]), sp.Array([sp.sqrt(x), sp.log(y)]), 0)
    assert isinstance(c, sp.NDimArray) and c.shape == (2,)
    assert grad(c[0] + c[1], [x, y]) == [
        sp.Piecewise((1 / (2 * sp.sqrt(x)), x > 0), (0, True)),
        sp.Piecewise((1 / y, y > 0), (0, True)),
    ]
    assert cond(x > 0, lambda: a, lambda: b) == w
    with pytest.raises(SymgradError, match="shape"):
        where(x > 0, a, sp.Matrix([x, y, 1]))


def test_cond_with_tuple_valued_branches_selects_entry_by_entry():
    # was: a Piecewise of Tuples, which nothing could differentiate
    a, b = cond(x < 1, lambda: (x, x**2), lambda: (1, 2 * y))
    assert a == sp.Piecewise((x, x < 1), (1, True))
    assert grad(b, [x, y]) == [sp.Piecewise((2 * x, x < 1), (0, True)),
                              sp.Piecewise((0, x < 1), (2, True))]
    d = cond(x < 1, {"u": x}, {"u": y})
    assert d == {"u": sp.Piecewise((x, x < 1), (y, True))}
    assert where(x < 1, [x, y], [1, 2]) == [sp.Piecewise((x, x < 1), (1, True)),
                                             sp.Piecewise((y, x < 1), (2, True))]


def test_cond_branches_of_different_structure_are_refused():
    with pytest.raises(SymgradError, match="a is a tuple of 2 but b is a tuple of 3"):
        cond(x < 1, (x, y), (x, y, 1))
    with pytest.raises(SymgradError, match="a is a tuple of 2 but b is a single value"):
        cond(x < 1, lambda: (x, y), lambda: x)
    with pytest.raises(SymgradError, match="dict with keys"):
        cond(x < 1, {"u": x}, {"v": x})


def _chain_by_hand(x0: float, depth: int, branch) -> tuple:
    """The value and derivative of the chain, by the chain rule in a loop
    (the same function written without a formula), in mpmath at 50 digits."""
    import mpmath as mp

    with mp.workdps(50):
        v, d = mp.mpf(x0), mp.mpf(1)
        for _ in range(depth):
            v, d = branch(mp, v, d)
        return float(v), float(d)


_HALF = sp.Rational(1, 2)
_CHAINS = {
    # e <- where(e > k, sin(e) + k, 2e): the condition holds the previous where
    "sin": (lambda e: where(e > _HALF, sp.sin(e) + _HALF, 2 * e),
            lambda mp, v, d: (mp.sin(v) + 0.5, mp.cos(v) * d) if v > 0.5 else (2 * v, 2 * d)),
    # cond with functions for branches, the condition the other way round
    "cond": (lambda e: cond(e < _HALF, lambda: sp.cos(e), lambda: e / 3),
             lambda mp, v, d: (mp.cos(v), -mp.sin(v) * d) if v < 0.5 else (v / 3, d / 3)),
}


@pytest.mark.parametrize("name", sorted(_CHAINS))
def test_a_deep_chain_of_wheres_is_built_as_written_and_differentiated(name):
    # issue 20 part 7: SymPy's Piecewise folded a condition holding a
    # Piecewise into an ITE (simplify, as_set: 18 s at depth 6, AssertionError
    # inside SymPy past it); where builds the pairs as written
    step, by_hand = _CHAINS[name]
    depth = 12
    e = x
    for _ in range(depth):
        prev, e = e, step(e)
    assert e.args[0].cond.lhs == prev  # the condition as the user wrote it
    f = lambdify([x], [e, grad(e, x)])
    for x0 in (-3.0, -0.7, 0.01, 0.3, 0.9, 1.7, 2.5):
        v, d = (float(t) for t in f(x0))
        want_v, want_d = _chain_by_hand(x0, depth, by_hand)
        assert v == pytest.approx(want_v, rel=1e-12, abs=1e-300)
        assert d == pytest.approx(want_d, rel=1e-12, abs=1e-300)


def test_sympy_operations_on_a_deep_where_keep_it_as_written():
    # SymPy rebuilds a Piecewise through its class: powers, diff, subs (each
    # failed inside SymPy, AssertionError in piecewise_fold, on conditions
    # holding a Piecewise; sympy.diff itself walks a tree: depth 5 here)
    e = x
    for _ in range(5):
        e = where(e > _HALF, sp.sin(e) + _HALF, 2 * e)
    g = sp.diff(e, x)
    sq = e**2
    f = lambdify([x], [g, grad(e, x), sq, e * e])
    for x0 in (-0.7, 0.3, 1.7):
        a, b, c, d = (float(t) for t in f(x0))
        assert a == pytest.approx(b, rel=1e-12) and c == pytest.approx(d, rel=1e-12)
    assert float(e.subs(x, 1)) == pytest.approx(_chain_by_hand(1.0, 5, _CHAINS["sin"][1])[0])


def test_a_deep_chain_of_wheres_over_a_real_symbol_squares_in_linear_time():
    # e**2 of a where over a real symbol: SymPy pushes the power into the
    # branches and asks each for its assumptions, which ask free_symbols of
    # every node below as a tree (4.5 s at depth 12, x3 a level); the
    # Piecewise symgrad builds finds its symbols once over the DAG
    xr = sp.Symbol("x", real=True)
    depth = 12
    e = xr
    for _ in range(depth):
        e = where(sp.Gt(e, _HALF, evaluate=False), e**2 / 4 + _HALF, -e / 2)
    f = lambdify([xr], [e, grad(e, xr)])

    def by_hand(mp, v, d):
        return (v**2 / 4 + 0.5, v * d / 2) if v > 0.5 else (-v / 2, -d / 2)

    for x0 in (-3.0, -0.7, 0.3, 0.9, 1.7):
        v, d = (float(t) for t in f(x0))
        want_v, want_d = _chain_by_hand(x0, depth, by_hand)
        assert v == pytest.approx(want_v, rel=1e-12, abs=1e-300)
        assert d == pytest.approx(want_d, rel=1e-12, abs=1e-300)


def test_the_symbols_of_a_where_are_found_once_and_handed_out_as_a_copy():
    a, b = sp.symbols("a b")
    e = where(x > a, sp.sin(x) * b, x)
    assert e.free_symbols == {x, a, b}
    e.free_symbols.add(y)  # the caller's set, not the node's
    assert e.free_symbols == {x, a, b}
    assert e.subs(b, 2).free_symbols == {x, a}


_EXP_CHAINS = {
    # exp of a product holding the previous cond: SymPy's exp evaluates a
    # product by logcombine over each factor, a tree walk (and an exp asked
    # whether it is rational evaluates itself again)
    "x*exp(-x)": (lambda e: cond(e < 0, e * sp.exp(-e), sp.log(1 + e)),
                  lambda mp, v, d: ((v * mp.exp(-v), (1 - v) * mp.exp(-v) * d) if v < 0
                                    else (mp.log(1 + v), d / (1 + v)))),
    # a sibling the rewrites turn into expm1(2*e) and log1p(e)
    "exp(2x)-1": (lambda e: where(e < 0, sp.exp(2 * e) - 1, sp.log(1 + e)),
                  lambda mp, v, d: ((mp.expm1(2 * v), 2 * mp.exp(2 * v) * d) if v < 0
                                    else (mp.log(1 + v), d / (1 + v)))),
}


@pytest.mark.parametrize("name", sorted(_EXP_CHAINS))
def test_a_deep_chain_with_exp_of_a_product_lambdifies(name):
    # issue 20 part 7: built unevaluated (SymPy's own exp of a product would
    # walk the chain as a tree when it is built: docs/api.md's way around),
    # the rewrites' pass evaluated each rebuilt exp(-e) again: 27 s at depth
    # 10, no end at 12; it now builds nodes over arguments large as trees as
    # written (build.EVALUATED_TREE)
    step, by_hand = _EXP_CHAINS[name]
    depth = 14
    e = x
    for _ in range(depth):
        with sp.evaluate(False):
            e = step(e)
    f = lambdify([x], [e, grad(e, x)])
    for x0 in (-0.05, -1e-3, -1e-300, 1e-3, 0.3, 2.5):
        v, d = (float(t) for t in f(x0))
        want_v, want_d = _chain_by_hand(x0, depth, by_hand)
        assert v == pytest.approx(want_v, rel=1e-12, abs=1e-300)
        assert d == pytest.approx(want_d, rel=1e-12, abs=1e-300)


def test_gradient_through_a_100_deep_where_chain():
    # reverse mode's merge of a where's cotangents compared condition lists
    # as tuples (==: two unequal deep conditions compared as trees, a
    # RecursionError at depth 100); the gradient is the chain rule's recurrence
    x = sp.Symbol("x", real=True)
    e = x
    for _ in range(100):
        e = where(e > 0, sp.sin(e), e / 2) + x
    f = lambdify([x], grad(e, [x])[0])
    for x0 in (0.3, -0.2):
        v, dv = x0, 1.0
        for _ in range(100):
            v, dv = (np.sin(v), np.cos(v) * dv) if v > 0 else (v / 2, dv / 2)
            v, dv = v + x0, dv + 1
        assert abs(float(f(x0)) - dv) <= 1e-12 * abs(dv)
