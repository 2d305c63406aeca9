"""Node-by-node float evaluation agrees with symgrad's generated code."""

import numpy as np
from sympy import Piecewise, Rational, cos, exp, log, sqrt, symbols

from symgrad import lambdify
from symgrad.stability.floats import NodeEvaluator, evaluated_form

a, b, c, x = symbols("a b c x", real=True)


def test_node_values_match_the_generated_code():
    exprs = [
        (-b - sqrt(b * b - a * c)) / a,  # -b (a Mul by -1) beside /a (a reciprocal factor)
        (1 - cos(x)) / x**2,  # one division, as the code generator writes it
        x ** Rational(1, 3) + Piecewise((log(x), x > 1), (0, True)),
        exp(x) / (1 + exp(x)),
    ]
    rng = np.random.default_rng(0)
    pts = [rng.uniform(0.1, 3, 50) for _ in range(4)]
    for dtype in (np.float64, np.float32):
        ne = NodeEvaluator(evaluated_form(exprs, True), [a, b, c, x], dtype)
        vals = ne.values([p.astype(dtype) for p in pts])
        want = lambdify([a, b, c, x], exprs)(*(p.astype(dtype) for p in pts))
        for e, w in zip(evaluated_form(exprs, True), want):
            got = np.broadcast_to(vals[e], w.shape)
            assert got.dtype == dtype
            np.testing.assert_allclose(got, w, rtol=4 * np.finfo(dtype).eps)


def test_a_reciprocal_factor_is_one_division():
    ne = NodeEvaluator([(1 - cos(x)) / x**2], [x], np.float64)
    assert x**-2 not in ne.order  # no node of its own: 0/x**2 is 0, not 0*inf
    v = ne.values([np.array([1e-160])])
    assert v[(1 - cos(x)) / x**2][0] == 0.0


def test_nothing_inside_a_marker_is_computed():
    """widen(u) and compensated(u) are one operation over u's symbols, as
    the code computes them: no node of u's inside is a node of its own,
    pairs nested inside a widen(u) included (each such node evaluated at
    every row of the search cost NMSE 3.4.6's stabilize half its time)."""
    from symgrad import compensated, widen

    inner = compensated(exp(x) - 1) * compensated(log(x + 1))
    f = widen(inner - x)
    ne = NodeEvaluator([f, exp(x)], [x], np.float64)
    assert set(ne.order) == {x, f, exp(x)}  # exp(x): the other root's own
    g = compensated(exp(x) - 1) + x
    ne = NodeEvaluator([g], [x], np.float64)
    assert set(ne.order) == {x, g, g.args[0] if g.args[1] == x else g.args[1]}
    v = ne.values([np.array([1e-20])])
    assert v[g][0] == 2e-20  # the pair's value: exp(x) - 1 in floats is 0 there

def _sums(rng, n):
    """Random sums of 2-5 terms: symbols, their negations and multiples,
    functions of them, and numbers (SymPy's order of terms, and unevaluated
    orders with the negative terms first, which the printer regroups)."""
    from sympy import Add, Integer, pi

    y, z = symbols("y z", real=True)
    pool = [x, -x, y, -y, 2 * z, -3 * z, exp(x), -sqrt(a), a * b, -a * b]
    nums = [Integer(1), Integer(-1), Rational(1, 3), -pi, sqrt(2), Integer(-7)]
    out = []
    while len(out) < n:
        k = int(rng.integers(2, 6))
        terms = [pool[i] for i in rng.choice(len(pool), size=k, replace=False)]
        if rng.random() < 0.6:
            terms.append(nums[int(rng.integers(len(nums)))])
        terms = [terms[i] for i in rng.permutation(len(terms))]
        e = Add(*terms) if rng.random() < 0.5 else Add(*terms, evaluate=False)
        if e.is_Add:
            out.append(e)
    return out, [a, b, x, y, z]


def test_the_additions_read_from_the_kernel_are_the_codes():
    """Folding each step's float sum ``a + b`` (the steps of additions(), in
    their order) gives the generated code's float bitwise, at points where
    partial sums round (carries) and cancel: the order of addition that
    the search watches for carries is the one that runs."""
    rng = np.random.default_rng(7)
    sums, syms = _sums(rng, 40)
    n = 400
    pts = [rng.uniform(0.5, 8, n), rng.uniform(-8, 8, n),
           np.concatenate([2.0 ** rng.integers(0, 12, n // 2) - rng.random(n // 2),
                           rng.uniform(-1e3, 1e3, n - n // 2)]),
           rng.uniform(-1e3, 1e3, n), rng.uniform(-1, 1, n)]
    for dtype in (np.float64, np.float32):
        xs = [p.astype(dtype) for p in pts]
        run = [e for e in evaluated_form(sums, True) if e.is_Add]  # (exp(x) - 1: expm1(x))
        assert len(run) > 30
        want = lambdify(syms, run, dtype=dtype)(*xs)
        ne = NodeEvaluator(run, syms, dtype)
        vals = ne.values(xs)
        for e, w in zip(run, want):
            if dtype == np.float32 and sqrt(2) in e.args:
                continue  # the kernel adds np.sqrt(2), a float64: the sum is float64 (findings)
            steps = ne.additions(e)
            assert len(steps) == len(e.args) - 1
            got: dict = {}
            with np.errstate(all="ignore"):
                for s_a, s_b, s in steps:
                    va = got.get(s_a, vals.get(s_a))
                    vb = got.get(s_b, vals.get(s_b))
                    if vb is None:  # a subtraction's operand, negated
                        vb = -np.asarray(vals.get(-s_b, got.get(-s_b)), dtype=dtype)
                    got[s] = np.asarray(va, dtype=dtype) + np.asarray(vb, dtype=dtype)
            np.testing.assert_array_equal(np.broadcast_to(got[e], w.shape), w, err_msg=str(e))


def test_a_kernel_that_regroups_is_read_as_it_runs():
    """The printer writes ``-a0 - a1 + a2`` as ``a2 - (a0 + a1)``; the tree
    read from such a kernel is that, not the left fold, and its steps are
    ``a0 + a1`` first."""
    from sympy import Add

    from symgrad.stability.floats import _order_of, additions

    a0, a1, a2 = symbols("a0 a1 a2", real=True)
    order = _order_of(lambdify([a0, a1, a2], Add(-a0, -a1, a2, evaluate=False)), 3)
    assert order == ("-", 2, ("+", 0, 1))
    e = Add(a0, a1, a2, evaluate=False)
    steps = additions(e, order)
    (s1, s2) = steps
    assert s1[:2] == (a0, a1) and s2[0] == a2 and s2[1].args == (-1, s1[2])
    assert steps[-1][2] is e
