"""check_stability and stabilize take a box for a matrix symbol (every entry)
and report per output entry; the reductions are accurate as built."""

from __future__ import annotations

import pytest
from sympy import MatrixSymbol, log

import symgrad

z = MatrixSymbol("z", 2, 1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_softmax_and_log_softmax_hold_over_a_wide_box(dtype):
    # the max is taken out, log1p keeps the dominant entry's bits, and the
    # rounding of z - max (which exp amplified into ~9 bits at 1000) is undone
    for f in (symgrad.log_softmax(z), symgrad.softmax(z)):
        r = symgrad.check_stability(f, {z: (-1000, 1000)}, samples=24, dtype=dtype)
        assert len(r.outputs) == 2 and r.max_bits_error <= 2.5, (f, r.max_bits_error)


def test_log_of_softmax_written_naively_is_flagged_per_entry():
    r = symgrad.check_stability(symgrad.elementwise(log, symgrad.softmax(z)),
                                {z: (-1000, 1000)}, samples=24)
    assert not r.ok and len(r.outputs) == 2 and r.max_bits_error > 50
    assert all("z_" in str(s) for s in r.regions[0].ranges)  # boxes name the entries


def test_stabilize_keeps_a_matrix_formula_where_it_verifies():
    # the reductions are stable as built; an elementwise body is stabilized
    # over all floats; the matrix form checked over the box is kept
    from sympy import MatrixExpr, exp
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

    assert symgrad.stabilize(symgrad.log_softmax(z), {z: (-1000, 1000)}, samples=24) == \
        symgrad.log_softmax(z)
    softplus = symgrad.elementwise(lambda t: log(1 + exp(t)), z)
    got = symgrad.stabilize(softplus, {z: (-800, 800)}, samples=24)
    assert isinstance(got, ElementwiseApplyFunction) and got.args[1] == z
    assert got != softplus and isinstance(got, MatrixExpr)
    r = symgrad.check_stability(got, {z: (-800, 800)}, samples=24)
    assert r.ok and r.max_bits_error < 3


def test_stabilize_keeps_a_matrix_formula_whose_only_loss_is_a_products_sums():
    # tanh(W*x) loses where the sums of W*x cancel; the matrix code computes
    # them as BLAS does, so the matrix form stays (it used to come back as
    # explicit entries in compensated arithmetic), and a warning says why
    from sympy import tanh

    W, x = MatrixSymbol("W", 2, 2), MatrixSymbol("x", 2, 1)
    f = symgrad.elementwise(tanh, W * x)
    with pytest.warns(symgrad.StabilityWarning, match=r"sums of W\*x cancel.*BLAS"):
        got = symgrad.stabilize(f, {W: (-3, 3), x: (-3, 3)}, samples=16, explain=True)
    assert got.result == f and "tanh(W*x)  ->  tanh(W*x)" in str(got)
    assert "sums of W*x cancel" in str(got)  # explain says it too


def test_stabilize_keeps_a_loss_over_matrices_a_formula_over_matrices():
    # a scalar computed from matrix formulas (a loss) is kept one too: its
    # elementwise parts stabilized, no explicit entries
    from sympy import exp

    loss = symgrad.sum(symgrad.elementwise(lambda t: log(1 + exp(t)), z))
    got = symgrad.stabilize(loss, {z: (-800, 800)}, samples=16)
    assert isinstance(got, symgrad.matrices.SumAll) and got != loss
    assert symgrad.check_stability(got, {z: (-800, 800)}, samples=16).ok


def test_stabilize_of_a_real_size_layer_keeps_it_unchecked_and_says_so():
    # 10^4 x 784 inputs: the entries are out of reach (a hang, then a refusal):
    # the elementwise function is stabilized over all floats, nothing checked
    import warnings

    from sympy import exp

    n = 10_000
    X, W = MatrixSymbol("X", n, 784), MatrixSymbol("W", 784, 64)
    softplus = symgrad.elementwise(lambda t: log(1 + exp(t)), X * W)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept = symgrad.stabilize(symgrad.sum(softplus), {X: (-3, 3), W: (-1, 1)}, samples=16)
    with symgrad.matrix_notation():
        assert str(kept) == "sum((_x ↦ log1p(exp(-Abs(_x))) + Max(0, _x))(X*W))"
    msg = str(caught[0].message)
    assert "checks no entry" in msg and "7,890,176 entry symbols" in msg
    with pytest.raises(symgrad.SymgradError, match="smaller shapes"):
        symgrad.stabilize(softplus, {X: (-3, 3), W: (-1, 1)}, samples=16, explain=True)


def _lse_exact(row):
    import mpmath

    # (2,200 bits: lse's zero is reached at subnormal results, 1 + 1e-318 in the sum)
    with mpmath.workprec(2200):
        return float(mpmath.log(sum(mpmath.exp(mpmath.mpf(float(v))) for v in row)))


_Z3, _Z23 = MatrixSymbol("z", 3, 1), MatrixSymbol("Z", 2, 3)


@pytest.mark.parametrize("f, M, dom, seed, least, most", [
    (symgrad.logsumexp(_Z3), _Z3, (-1000, 1000), 0, 40, 64),  # 50.7 bits reported before
    (symgrad.logsumexp(_Z3), _Z3, (-1000, 1000), 1, 40, 64),  # 62.9
    (symgrad.logsumexp(_Z23, axis=1), _Z23, (-30, 30), 0, 0, 40),  # 61.9
], ids=["lse-0", "lse-1", "lse-rows-0"])
def test_the_matrix_code_is_measured_not_the_entries_formula(f, M, dom, seed, least, most):
    """The entries of logsumexp are m + log1p(r), which cancels near its zero;
    the matrix code lambdify writes recomputes there from pairs of floats.
    check_stability measured the entries' own code and raised an alarm the
    matrix code does not have (matrix4's false alarm); it measures the matrix
    code now: its worst points, re-measured against mpmath, agree."""
    import numpy as np

    from symgrad.stability.bits import FORMATS, bits_error

    r = symgrad.check_stability(f, {M: dom}, samples=512, seed=seed)
    # (the matrix code keeps its bits until ~50 cancel at lse's zero, then loses
    # some: docs/matrices.md.  Over (-1000, 1000) a logit whose exp is ~2**-53 of
    # the sum moves it below a float of the others: ~100 bits cancel (terms
    # ~1e-227, result ~1e-257) and 47-63 bits are lost, true against mpmath
    # below; until 2026-11-28 the search of the deepest zeros ranked zeros whose
    # terms all underflow first and reported 1.6-24 there)
    assert least <= r.max_bits_error <= most, r.max_bits_error
    run = symgrad.lambdify([M], f)
    worst = np.argsort(-np.nan_to_num(np.nanmax(r.bits, axis=0), nan=-1))[:4]
    for i in worst:
        p = r.points[i].reshape(M.shape)
        got = np.asarray(run(p), dtype=float).ravel()
        rows = p.T if M.shape[1] == 1 else p
        want = np.array([_lse_exact(row) for row in rows])[: len(got)]
        true_bits = bits_error(got, want, FORMATS["float64"])
        # the figures are true: the check's bits at its worst points are mpmath's
        assert np.allclose(np.nanmax(true_bits), np.nanmax(r.bits[:, i]), atol=1.0), \
            (p, got, want, r.bits[:, i])


def test_a_loss_of_the_matrix_code_is_still_raised():
    """Its sibling: the cross-entropy lse(z) - yᵀz cancels in the matrix code too."""
    y3, z3 = MatrixSymbol("y", 3, 1), MatrixSymbol("z", 3, 1)
    r = symgrad.check_stability(symgrad.logsumexp(z3) - (y3.T * z3)[0, 0],
                                {z3: (-30, 30), y3: (0, 1)}, samples=256)
    assert not r.ok and r.max_bits_error > 40 and r.regions


def test_the_matrix_code_is_checked_against_the_entries_before_it_is_measured():
    """A scalar beside a batch of matrices (a * softmax(z)) runs the matrix code;
    where the matrix code and the entries' code disagree at the first points (a
    wrong assembly of the batch), the entries' code is measured instead."""
    import numpy as np
    from sympy import Symbol

    from symgrad.matrices.entries import entry_symbols
    from symgrad.stability.matrix_code import matrix_run

    z3, a = MatrixSymbol("z", 3, 1), Symbol("a", real=True)
    f, dom = a * symgrad.softmax(z3), {z3: (-5, 5), a: (-2, 2)}
    syms = [*entry_symbols(z3), a]
    cols = [np.array([0.1, 0.2]), np.array([0.3, -1.0]), np.array([2.0, 0.5]),
            np.array([1.5, -2.0])]
    e = np.exp(np.array([cols[0], cols[1], cols[2]]))
    want = cols[3] * e / e.sum(axis=0)
    got = matrix_run(f, dom, syms, np.float64, 3)(*cols)
    np.testing.assert_allclose(np.array(got), want, rtol=1e-15)
    wrong = lambda *xs: [np.full(len(xs[0]), 7.0)] * 3  # noqa: E731
    assert (np.array(matrix_run(f, dom, syms, np.float64, 3, wrong)(*cols)) == 7.0).all()
    assert symgrad.check_stability(f, dom, samples=64).ok
