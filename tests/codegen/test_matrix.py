"""lambdify of matrix formulas: arrays of the symbols' shapes with leading
batch axes, products as @, reductions in stable forms."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from sympy import MatrixSymbol, OneMatrix, Trace, hadamard_product, tanh

import symgrad

A = MatrixSymbol("A", 4, 3)
x = MatrixSymbol("x", 3, 1)
b = MatrixSymbol("b", 4, 1)
z = MatrixSymbol("z", 5, 1)
y = MatrixSymbol("y", 5, 1)
rng = np.random.default_rng(0)


def test_least_squares_gradient_as_matmul():
    g = symgrad.grad(symgrad.norm(A * x - b) ** 2, x)
    src = symgrad.numpy_code([A, x, b], g)
    assert "@" in src
    f = symgrad.lambdify([A, x, b], g)
    Av, xv, bv = rng.normal(size=(4, 3)), rng.normal(size=(3, 1)), rng.normal(size=(4, 1))
    np.testing.assert_allclose(f(Av, xv, bv), 2 * Av.T @ (Av @ xv - bv), rtol=1e-13)


def test_leading_batch_axes_broadcast_as_matmul():
    g = symgrad.grad(symgrad.norm(A * x - b) ** 2, x)
    f = symgrad.lambdify([A, x, b], [g, symgrad.norm(A * x - b)])
    Av = rng.normal(size=(2, 1, 4, 3))  # batch (2, 1) against (7,)
    xv = rng.normal(size=(7, 3, 1))
    bv = rng.normal(size=(4, 1))
    got, nrm = f(Av, xv, bv)
    want = 2 * np.swapaxes(Av, -1, -2) @ (Av @ xv - bv)
    assert got.shape == (2, 7, 3, 1) and nrm.shape == (2, 7)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(nrm, np.linalg.norm(Av @ xv - bv, axis=(-2, -1)), rtol=1e-13)


def test_a_matrix_stacked_from_entries_of_products_is_batched():
    # grad of log(1 + exp((W v)[0, 0])) + log(1 + (W v)[1, 0]**2) is a Matrix of entries
    # of W*v times v.T; SymPy's printer wrote each entry as np.dot(W, v)[0, 0]: with a
    # batch of W and v, shape (2, 3, 3, 2) and wrong values, silently (until 2026-11-28)
    W, v = MatrixSymbol("W", 2, 2), MatrixSymbol("v", 2, 1)
    e = sp.log(1 + sp.exp((W * v)[0, 0])) + sp.log(1 + (W * v)[1, 0] ** 2)
    g = symgrad.grad(e, [W])[0]
    Wv, vv = rng.normal(size=(3, 2, 2)), rng.normal(size=(3, 2, 1))
    got = symgrad.lambdify([W, v], g)(Wv, vv)
    assert got.shape == (3, 2, 2)
    for k in range(3):  # SymPy's own value of the formula at each item's explicit matrices
        at = {W: sp.Matrix(Wv[k]), v: sp.Matrix(vv[k])}
        want = np.array(g.subs(at).doit().evalf(30), dtype=float)
        np.testing.assert_allclose(got[k], want, rtol=1e-14)


def test_wrong_trailing_shape_is_named():
    f = symgrad.lambdify([z], symgrad.softmax(z))
    with pytest.raises(ValueError, match=r"argument z: .*\(5, 1\)"):
        f(np.zeros((3, 5)))


def test_mlp_gradients_match_hand_written_numpy():
    n = 6
    X, Y = MatrixSymbol("X", n, 5), MatrixSymbol("Y", n, 3)
    W1, b1 = MatrixSymbol("W1", 5, 4), MatrixSymbol("b1", 1, 4)
    W2, b2 = MatrixSymbol("W2", 4, 3), MatrixSymbol("b2", 1, 3)
    H = symgrad.elementwise(tanh, X * W1 + OneMatrix(n, 1) * b1)
    Z = H * W2 + OneMatrix(n, 1) * b2
    loss = symgrad.mean(symgrad.logsumexp(Z, axis=1)) - symgrad.sum(hadamard_product(Y, Z)) / n
    grads = symgrad.grad(loss, [W1, b1, W2, b2])
    f = symgrad.lambdify([X, Y, W1, b1, W2, b2], [loss, *grads])
    vals = [rng.normal(size=tuple(int(d) for d in M.shape)) for M in (X, Y, W1, b1, W2, b2)]
    Xv, Yv, W1v, b1v, W2v, b2v = vals
    Hv = np.tanh(Xv @ W1v + b1v)
    Zv = Hv @ W2v + b2v
    S = np.exp(Zv - Zv.max(1, keepdims=True))
    S /= S.sum(1, keepdims=True)
    d = (S - Yv) / n
    dA = (d @ W2v.T) * (1 - Hv**2)
    want = [Xv.T @ dA, dA.sum(0, keepdims=True), Hv.T @ d, d.sum(0, keepdims=True)]
    got = f(*vals)
    lse = np.log(np.exp(Zv).sum(1))
    np.testing.assert_allclose(got[0], lse.mean() - (Yv * Zv).sum() / n, rtol=1e-13)
    for g, w in zip(got[1:], want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15)
    src = symgrad.numpy_code([X, Y, W1, b1, W2, b2], grads)
    code = src[src.index("_block("):]  # the formula's code, after the helpers
    assert "np.ones" not in code and "np.repeat" not in code  # 𝟙 products are sums/views


def test_reductions_are_stable_over_the_float_range():
    f = symgrad.lambdify([z], [symgrad.softmax(z), symgrad.log_softmax(z),
                               symgrad.logsumexp(z), symgrad.norm(z)])
    zv = np.array([1000.0, 0.0, -1000.0, 700.0, -745.0]).reshape(5, 1)
    s, ls, lse, nrm = f(zv)
    assert np.all(np.isfinite(s)) and abs(s.sum() - 1) < 1e-15
    assert lse == 1000.0 and np.all(np.isfinite(ls)) and ls[2, 0] == -2000.0
    assert nrm == pytest.approx(np.sqrt(2 * 1000.0**2 + 700.0**2 + 745.0**2), rel=1e-15)
    big = f(np.full((5, 1), 1e300))[3]
    tiny = f(np.full((5, 1), 1e-300))[3]
    assert big == pytest.approx(np.sqrt(5) * 1e300, rel=1e-15)
    assert tiny == pytest.approx(np.sqrt(5) * 1e-300, rel=1e-15)
    minf = f(np.full((5, 1), -np.inf))[2]
    assert minf == -np.inf


def _lost_bits(got: float, want) -> float:
    """Bits lost relative to 53; in the subnormal range, ulps of 2**-1074."""
    import mpmath

    got = mpmath.mpf(float(got))
    if abs(want) < mpmath.mpf(2) ** -1022:
        return max(0.0, float(mpmath.log(abs(got - want) / mpmath.mpf(2) ** -1074 + 1, 2)))
    return max(0.0, float(mpmath.log(abs((got - want) / want) * 2**53 + 1, 2)))


@pytest.mark.parametrize("seed, spread", [(0, 3.2), (1, 3.2), (2, 2.8), (3, 1.5)])
def test_softmax_family_accurate_where_logits_are_hundreds_apart(seed, spread):
    # exp(z - max) amplified the rounding of z - max (|z - max|/2 ulps of it)
    # into up to 9 bits of softmax and of log_softmax at the max; the rounding
    # is undone (TwoSum), checked against mpmath at 300 bits
    import mpmath

    n = 8
    zz = MatrixSymbol("zz", n, 1)
    f = symgrad.lambdify([zz], [symgrad.logsumexp(zz), symgrad.softmax(zz),
                                symgrad.log_softmax(zz)])
    rng = np.random.default_rng(seed)
    # up to ±1600 (beyond ±708: the pair a - m) or ±630 (exp(a) * exp(-m))
    zs = rng.uniform(-1, 1, (40, n)) * 10 ** rng.uniform(0, spread, (40, 1))
    lse, sm, ls = f(zs[..., None])
    worst = [0.0, 0.0, 0.0]
    with mpmath.workprec(300):
        for b in range(zs.shape[0]):
            Z = [mpmath.mpf(float(v)) for v in zs[b]]
            im = int(np.argmax(zs[b]))
            lr = mpmath.log1p(mpmath.fsum(mpmath.exp(v - Z[im]) for j, v in enumerate(Z)
                                          if j != im))
            worst[0] = max(worst[0], _lost_bits(lse[b], Z[im] + lr))
            for k in range(n):
                t = (Z[k] - Z[im]) - lr
                worst[1] = max(worst[1], _lost_bits(sm[b, k, 0], mpmath.exp(t)))
                worst[2] = max(worst[2], _lost_bits(ls[b, k, 0], t))
    assert max(worst) < 3, worst


def test_trace_element_and_scalar_arguments():
    W = MatrixSymbol("W", 3, 3)
    from sympy import Symbol, exp
    c = Symbol("c")
    e = c * Trace(W * W.T) + exp(c)
    f = symgrad.lambdify([W, c], [e, symgrad.grad(e, W)])
    Wv = rng.normal(size=(3, 3))
    val, g = f(Wv, 0.5)
    assert val == pytest.approx(0.5 * np.trace(Wv @ Wv.T) + np.exp(0.5), rel=1e-14)
    np.testing.assert_allclose(g, Wv, rtol=1e-14)  # c·2W at c = 1/2


def test_float32_in_float32_out_without_promotion():
    # constants (𝟙, I, explicit matrices), scalars and reductions stay in float32
    n = 4
    X, W = MatrixSymbol("X", n, 3), MatrixSymbol("W", 3, 2)
    from sympy import Identity, Matrix, Symbol
    c = Symbol("c")
    H = symgrad.elementwise(tanh, X * W + OneMatrix(n, 1) * MatrixSymbol("b", 1, 2))
    outs = [symgrad.softmax(H, axis=1), symgrad.logsumexp(H), c * (W.T * W + Identity(2)),
            H + Matrix(n, 2, list(range(2 * n))), symgrad.norm(H)]
    f = symgrad.lambdify([X, W, MatrixSymbol("b", 1, 2), c], outs)
    vals = [rng.normal(size=(n, 3)), rng.normal(size=(3, 2)), rng.normal(size=(1, 2))]
    got32 = f(*[v.astype(np.float32) for v in vals], 0.5)
    got64 = f(*vals, 0.5)
    for g32, g64 in zip(got32, got64):
        assert g32.dtype == np.float32 and g64.dtype == np.float64
        np.testing.assert_allclose(g32, g64, rtol=1e-5, atol=1e-6)
    assert f(*vals, np.float32(0.5))[2].dtype == np.float64  # float64 arrays win
    f64 = symgrad.lambdify([X, W, MatrixSymbol("b", 1, 2), c], outs, dtype=np.float64)
    assert f64(*[v.astype(np.float32) for v in vals], 0.5)[0].dtype == np.float64


def test_blocks_of_a_large_batch_give_the_one_call_answer():
    # the batch runs in blocks; outputs with and without the batch, batch axes
    # broadcast (n, 1) against (3,), an output that is a view in the kernel
    W, v = MatrixSymbol("W", 5, 5), MatrixSymbol("v", 5, 1)
    S = W + W.T
    outs = [symgrad.softmax(S * v), hadamard_product(S, S).T, S.T * v,
            symgrad.logsumexp(v), W * W, symgrad.grad(symgrad.logsumexp(S * v), W)]
    blocked = symgrad.lambdify([W, v], outs, block=200)
    whole = symgrad.lambdify([W, v], outs, block=None)
    Wv, vv = rng.normal(size=(301, 1, 5, 5)), rng.normal(size=(3, 5, 1))
    W0, v0 = Wv.copy(), vv.copy()
    got, want = blocked(Wv, vv), whole(Wv, vv)
    assert "_blocked" in blocked.source and "_ip(" in blocked.source
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-14, atol=1e-15)
    Sv = Wv + np.swapaxes(Wv, -1, -2)
    np.testing.assert_allclose(got[1], np.swapaxes(Sv * Sv, -1, -2), rtol=1e-15)
    np.testing.assert_allclose(got[2], np.swapaxes(Sv, -1, -2) @ vv, rtol=1e-13, atol=1e-14)
    assert np.array_equal(Wv, W0) and np.array_equal(vv, v0)  # arguments never written


def test_computed_in_place_only_where_nothing_reads_the_array_later():
    # S's memory is read later through its transpose (a view): the entrywise
    # product with S must not be written into S, though S is not named again
    A, C = MatrixSymbol("A", 3, 3), MatrixSymbol("C", 3, 3)
    S = symgrad.softmax(A, axis=1)
    outs = [S.T * C, hadamard_product(S, C), hadamard_product(S.T, C) + C]
    f = symgrad.lambdify([A, C], outs)
    Av, Cv = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    Sv = np.exp(Av) / np.exp(Av).sum(1, keepdims=True)
    got = f(Av, Cv)
    np.testing.assert_allclose(got[1], Sv * Cv, rtol=1e-14)
    np.testing.assert_allclose(got[0], Sv.T @ Cv, rtol=1e-13)
    np.testing.assert_allclose(got[2], Sv.T * Cv + Cv, rtol=1e-14)


def test_infinite_logits():
    f = symgrad.lambdify([z], [symgrad.logsumexp(z), symgrad.softmax(z)])
    lse, s = f(np.array([np.inf, 0.0, 1.0, -np.inf, 2.0]).reshape(5, 1))
    assert lse == np.inf  # as JAX and PyTorch
    lse, s = f(np.array([-np.inf, 0.0, 1.0, -np.inf, 2.0]).reshape(5, 1))
    assert s[0, 0] == 0 and s[3, 0] == 0 and abs(s.sum() - 1) < 1e-15


def test_logsumexp_keeps_its_bits_near_its_zero():
    # lse = m + log1p(r): near lse = 0, m and log1p(r) cancel (up to 40 bits
    # here) and their rounding was that many bits of the result; where more
    # than 4 bits cancel the code recomputes from pairs of floats
    import mpmath

    n = 4
    zz = MatrixSymbol("zz", n, 1)
    f = symgrad.lambdify([zz], symgrad.logsumexp(zz))
    rng = np.random.default_rng(3)
    rows = []
    with mpmath.workprec(600):
        for _ in range(60):
            v = rng.normal(size=n) * rng.choice([0.1, 1, 10, 100])
            L = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(t)) for t in v))
            m = max(float(t - L) for t in v)
            delta = abs(m) * 2.0 ** -rng.uniform(2, 40) * rng.choice([-1, 1])
            rows.append([float(mpmath.mpf(t) - L + delta) for t in v])
        zs = np.array(rows)
        got = f(zs[..., None])
        worst = 0.0
        for b in range(len(zs)):
            Z = [mpmath.mpf(float(t)) for t in zs[b]]
            top = max(Z)
            want = top + mpmath.log1p(mpmath.fsum(mpmath.exp(t - top) for t in Z) - 1)
            worst = max(worst, _lost_bits(got[b], want))
    assert worst < 3, worst
    # the fast code alone: what the pairs of floats fix
    fast = symgrad.lambdify([zz], symgrad.logsumexp(zz)).__call__.__globals__
    assert "_lse_near_zero" in fast


def test_an_elementwise_constant_is_a_matrix_of_its_argument_shape():
    # f(x) = 3 for every entry: an array of X's shape (it was the number 3,
    # and a sum or product into it crashed)
    from sympy import Integer

    X, B = MatrixSymbol("X", 2, 2), MatrixSymbol("B", 2, 2)
    C = symgrad.elementwise(lambda t: Integer(3), X)
    f = symgrad.lambdify([X, B], [C, C + B, hadamard_product(C, B)])
    Bv = rng.normal(size=(4, 2, 2))
    c, s, p = f(np.ones((2, 2), np.float32), Bv.astype(np.float32))
    assert c.shape == (2, 2) and c.dtype == np.float32 and np.all(c == 3)
    np.testing.assert_allclose(s, 3 + Bv, rtol=1e-6)
    np.testing.assert_allclose(p, 3 * Bv, rtol=1e-6)


def test_blocks_and_in_place_code_agree_with_the_plain_code_on_random_formulas():
    # the in-place chains and blocks against the plain kernel (no block, no
    # writes into arrays): random formulas over shared parts, outputs that
    # are views (transposes), parts read again after a sum over them
    import random

    from sympy import exp

    from symgrad.codegen.matrix import matrix_code

    A, B, v = MatrixSymbol("A", 3, 3), MatrixSymbol("B", 3, 3), MatrixSymbol("v", 3, 1)
    pick = random.Random(5)

    def square(parts):
        a, b = pick.choice(parts), pick.choice(parts)
        return pick.choice([
            lambda: a + b, lambda: a - b, lambda: hadamard_product(a, b), lambda: a * b,
            lambda: a.T, lambda: symgrad.elementwise(tanh, a), lambda: 2 * a - b.T,
            lambda: symgrad.softmax(a, axis=1), lambda: symgrad.elementwise(exp, a) + a,
        ])()

    for _ in range(12):
        parts = [A, B]
        for _ in range(6):
            parts.append(square(parts))
        outs = [parts[-1], parts[-2] * v, parts[-3].T, symgrad.logsumexp(parts[-4] * v)]
        fast = symgrad.lambdify([A, B, v], outs, block=20)  # blocks of 2 of the 7
        ns: dict = {}
        exec(matrix_code([A, B, v], outs), ns)  # noqa: S102 - symgrad's own code
        vals = [rng.normal(size=(7, 3, 3)) * 0.5, rng.normal(size=(7, 3, 3)) * 0.5,
                rng.normal(size=(3, 1))]
        before = [x.copy() for x in vals]
        want = ns["f"](*vals)
        for g, w in zip(fast(*vals), want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
        assert all(np.array_equal(x, y) for x, y in zip(vals, before))
        for g, w in zip(fast(*[x.astype(np.float32) for x in vals]), want):  # float32 stays
            assert g.dtype == np.float32
            np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4)


def test_stabilize_true_gives_the_scalar_parts_their_safe_forms():
    # lambdify(stabilize=True) of a matrix formula was the accurate forms only:
    # the logistic function of W*x overflowed to NaN at -1000
    from sympy import exp

    W, x = MatrixSymbol("W", 2, 2), MatrixSymbol("x", 2, 1)
    sig = symgrad.elementwise(lambda t: exp(t) / (1 + exp(t)), W * x)
    Wv, xv = np.array([[1000.0, 0.0], [-1000.0, 0.0]]), np.array([[1.0], [0.0]])
    with np.errstate(all="ignore"):
        plain = symgrad.lambdify([W, x], sig)(Wv, xv)
    safe = symgrad.lambdify([W, x], sig, stabilize=True)(Wv, xv)
    assert np.isnan(plain[0, 0]) and safe.tolist() == [[1.0], [0.0]]


@pytest.mark.parametrize("spread", [1.8, 2.3])  # ±63 (exp(a)*exp(-m)), ±200 (the pair)
def test_softmax_family_accurate_in_float32(spread):
    import mpmath

    n = 6
    zz = MatrixSymbol("zz", n, 1)
    f = symgrad.lambdify([zz], [symgrad.softmax(zz), symgrad.log_softmax(zz)])
    rng = np.random.default_rng(11)
    zs = (rng.uniform(-1, 1, (30, n)) * 10 ** rng.uniform(0, spread, (30, 1))).astype(np.float32)
    sm, ls = f(zs[..., None])
    assert sm.dtype == ls.dtype == np.float32
    worst = 0.0
    with mpmath.workprec(200):
        for b in range(len(zs)):
            Z = [mpmath.mpf(float(v)) for v in zs[b]]
            lse = mpmath.log(mpmath.fsum(mpmath.exp(v) for v in Z))
            for k in range(n):
                for got, want in ((sm[b, k, 0], mpmath.exp(Z[k] - lse)), (ls[b, k, 0], Z[k] - lse)):
                    if abs(want) > mpmath.mpf(2) ** -126:  # float32's normal range
                        err = abs((mpmath.mpf(float(got)) - want) / want) * 2**24
                        worst = max(worst, float(mpmath.log(err + 1, 2)))
    assert worst < 3, worst


@pytest.mark.parametrize("dtype, spread", [(np.float64, 2.5), (np.float64, 3.2),
                                           (np.float32, 1.5), (np.float32, 2.3)])
def test_softmax_alone_is_accurate_on_both_paths(dtype, spread):
    # a softmax whose maximum nothing else needs (the cross-entropy's gradient)
    # is exp(a) / Σ exp(a) for a block of logits within exp's normal range
    # (±316 float64, ±32 float32 here), through the maximum beyond (±1600,
    # ±200); blocks of 4 vectors (8 in float32), so that blocks take each path
    import mpmath

    n = 6
    zz = MatrixSymbol("zz", n, 1)
    f = symgrad.lambdify([zz], symgrad.softmax(zz), block=4 * n)
    assert "_softmax_into" in f.source
    rng = np.random.default_rng(12)
    zs = (rng.uniform(-1, 1, (24, n)) * 10 ** rng.uniform(0, spread, (24, 1))).astype(dtype)
    sm = f(zs[..., None])
    assert sm.dtype == dtype
    bits, tiny = (53, 2.0**-1022) if dtype == np.float64 else (24, 2.0**-126)
    worst = 0.0
    with mpmath.workprec(300):
        for b in range(len(zs)):
            Z = [mpmath.mpf(float(v)) for v in zs[b]]
            lse = mpmath.log(mpmath.fsum(mpmath.exp(v) for v in Z))
            for k in range(n):
                want = mpmath.exp(Z[k] - lse)
                if want > tiny:
                    err = abs((mpmath.mpf(float(sm[b, k, 0])) - want) / want) * 2**bits
                    worst = max(worst, float(mpmath.log(err + 1, 2)))
    assert worst < 3, worst


def test_constant_outputs_beside_matrix_outputs():
    # a constant output (a Jacobian's zero entries) crashed: 'int' object is
    # not subscriptable; it is an array of the computation's type
    from sympy import Rational, S

    f = symgrad.lambdify([A, x], [A * x, S.Zero, Rational(1, 2)])
    for dt in (np.float64, np.float32):
        ax, zero, half = f(np.ones((4, 4, 3), dt), np.ones((3, 1), dt))
        assert ax.shape == (4, 4, 1) and zero.dtype == half.dtype == dt
        assert float(zero) == 0.0 and float(half) == 0.5
