"""Matrix-level gradients beside JAX and sympy.diff: least squares, a
10-logit softmax cross-entropy, and a two-layer MLP on a batch.

Run:  python benchmarks/bench_matrix.py [--quick]

One thread everywhere: the environment variables below are set before
NumPy and JAX load (OpenBLAS/MKL/OpenMP threads, XLA's CPU thread pool).
JAX runs ``jit(grad(loss))`` on the CPU, in float64 (the softmax
cross-entropy in float32 too, both sides); each figure is the least CPU
time over rounds that run symgrad's code and JAX's in turn, after a
warm-up (JIT compilation excluded).  Derive times are symgrad's ``grad``
on the matrix formula (and ``sympy.diff`` where it finishes within its
budget).  The load average is printed with the figures: on a shared
machine they move with it.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

import argparse  # noqa: E402
import datetime  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
from sympy import MatrixSymbol, OneMatrix, hadamard_product, tanh  # noqa: E402

import symgrad  # noqa: E402

try:  # the peer
    import jax

    jax.config.update("jax_enable_x64", True)  # float32 arrays stay float32
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
except Exception:  # noqa: BLE001  (any failure: no JAX column)
    jax = None


def best_times(calls: list, rounds: int = 15) -> list:
    """The least CPU time of each call (a function and its arguments) over
    ``rounds`` rounds that run all of them in turn (after a warm-up), so
    that the load of a shared machine falls alike on them; CPU time, not
    wall time, since a process waiting for a core is not computing."""
    for fn, args in calls:
        _ready(fn(*args))
    best = [float("inf")] * len(calls)
    for _ in range(rounds):
        for i, (fn, args) in enumerate(calls):
            t = time.process_time()
            _ready(fn(*args))
            best[i] = min(best[i], time.process_time() - t)
    return best


def _ready(out):
    if jax is not None:
        jax.block_until_ready(out)
    return out


def timed(fn, budget: float):
    """fn() in a thread, or None if it takes longer than ``budget`` seconds."""
    box: dict = {}

    def run():
        t = time.perf_counter()
        box["out"] = fn()
        box["t"] = time.perf_counter() - t

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(budget)
    return (box["t"], box["out"]) if "t" in box else None


def rel(a, b) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


# ---- least squares ----------------------------------------------------------

def least_squares(rows: list, quick: bool) -> None:
    A = MatrixSymbol("A", 200, 100)
    x = MatrixSymbol("x", 100, 1)
    b = MatrixSymbol("b", 200, 1)
    loss = symgrad.norm(A * x - b) ** 2
    t = time.perf_counter()
    g = symgrad.grad(loss, x)
    derive = time.perf_counter() - t
    assert g == sp.MatMul(2, A.T, A * x - b), g
    sym = timed(lambda: sp.diff(((A * x - b).T * (A * x - b)), x), 20 if not quick else 5)
    rng = np.random.default_rng(0)
    Av, xv, bv = rng.normal(size=(200, 100)), rng.normal(size=(100, 1)), rng.normal(size=(200, 1))
    f = symgrad.lambdify([A, x, b], g)
    row = {"case": "least squares 200x100", "formula": str(g), "derive": derive,
           "sympy": None if sym is None else sym[0]}
    calls = [(f, (Av, xv, bv))]
    if jax is not None:
        jg = jax.jit(jax.grad(lambda x: jnp.sum((Av @ x - bv) ** 2)))
        calls.append((jg, (xv,)))
        row["err"] = rel(f(Av, xv, bv), jg(xv))
    times = best_times(calls, 50)
    row["ours"] = times[0]
    if jax is not None:
        row["jax"] = times[1]
    rows.append(row)


# ---- softmax cross-entropy over 10 logits -----------------------------------

def softmax_ce(rows: list, quick: bool, dtype: type = np.float64) -> None:
    n = 10_000 if quick else 100_000
    z = MatrixSymbol("z", 10, 1)
    y = MatrixSymbol("y", 10, 1)
    loss = symgrad.logsumexp(z) - (y.T * z)[0, 0]
    t = time.perf_counter()
    g = symgrad.grad(loss, z)
    derive = time.perf_counter() - t
    assert g == symgrad.softmax(z) - y, g
    rng = np.random.default_rng(1)
    zv = (rng.normal(size=(n, 10, 1)) * 3).astype(dtype)
    yv = np.zeros((n, 10, 1), dtype)
    yv[np.arange(n), rng.integers(0, 10, n), 0] = 1
    f = symgrad.lambdify([z, y], g)  # batch axis first, broadcast as matmul does
    name = np.dtype(dtype).name
    row = {"case": f"softmax CE, 10 logits, batch {n}, {name}", "formula": str(g),
           "derive": derive, "sympy": None}
    calls = [(f, (zv, yv))]
    if jax is not None:
        def one(z1, y1):
            return jax.nn.logsumexp(z1) - jnp.sum(y1 * z1)

        jg = jax.jit(jax.vmap(jax.grad(one)))
        calls.append((jg, (zv, yv)))
        got, want = f(zv, yv), jg(zv, yv)
        assert got.dtype == want.dtype == dtype, (got.dtype, want.dtype)
        row["err"] = rel(got, want)
    times = best_times(calls, 25)
    row["ours"] = times[0]
    if jax is not None:
        row["jax"] = times[1]
    rows.append(row)


# ---- two-layer MLP ----------------------------------------------------------

def mlp(rows: list, quick: bool) -> None:
    N = 2_000 if quick else 10_000
    X, Y = MatrixSymbol("X", N, 784), MatrixSymbol("Y", N, 10)
    W1, b1 = MatrixSymbol("W1", 784, 64), MatrixSymbol("b1", 1, 64)
    W2, b2 = MatrixSymbol("W2", 64, 10), MatrixSymbol("b2", 1, 10)
    t = time.perf_counter()
    H = symgrad.elementwise(tanh, X * W1 + OneMatrix(N, 1) * b1)
    Z = H * W2 + OneMatrix(N, 1) * b2
    loss = symgrad.mean(symgrad.logsumexp(Z, axis=1)) - symgrad.sum(hadamard_product(Y, Z)) / N
    grads = symgrad.grad(loss, [W1, b1, W2, b2])
    derive = time.perf_counter() - t
    rng = np.random.default_rng(2)
    Xv = rng.normal(size=(N, 784))
    Yv = np.zeros((N, 10))
    Yv[np.arange(N), rng.integers(0, 10, N)] = 1
    ps = [rng.normal(size=s) * 0.05 for s in [(784, 64), (1, 64), (64, 10), (1, 10)]]
    f = symgrad.lambdify([X, Y, W1, b1, W2, b2], grads)
    row = {"case": f"MLP 784-64-10 tanh, batch {N}", "formula": "", "derive": derive,
           "sympy": None}
    calls = [(f, (Xv, Yv, *ps))]
    if jax is not None:
        def jloss(p, X, Y):
            W1, b1, W2, b2 = p
            Z = jnp.tanh(X @ W1 + b1) @ W2 + b2
            return jnp.mean(jax.nn.logsumexp(Z, axis=1)) - jnp.sum(Y * Z) / X.shape[0]

        jg = jax.jit(jax.grad(jloss))
        calls.append((jg, (ps, Xv, Yv)))
        row["err"] = max(rel(a, b) for a, b in zip(f(Xv, Yv, *ps), jg(ps, Xv, Yv)))
    times = best_times(calls, 9)
    row["ours"] = times[0]
    if jax is not None:
        row["jax"] = times[1]
    rows.append(row)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    rows: list = []
    least_squares(rows, a.quick)
    softmax_ce(rows, a.quick)
    softmax_ce(rows, a.quick, np.float32)
    mlp(rows, a.quick)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[0]
    print(f"bench_matrix, {stamp}, load {load}, one thread, float64 unless said; "
          "least CPU time of interleaved rounds")
    print("| case | derive (symgrad) | sympy.diff | evaluate symgrad | JAX jit(grad) | "
          "ratio | max rel. diff |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        sym = "n/a" if r["sympy"] is None else f"{r['sympy']:.3f} s"
        jx = r.get("jax")
        ratio = "" if jx is None else f"{r['ours'] / jx:.2f}x"
        print(f"| {r['case']} | {r['derive']:.4f} s | {sym} | {r['ours'] * 1e3:.2f} ms | "
              f"{'' if jx is None else f'{jx * 1e3:.2f} ms'} | {ratio} | "
              f"{r.get('err', float('nan')):.1e} |")
    for r in rows:
        if r["formula"]:
            print(f"{r['case']}: {r['formula']}")


if __name__ == "__main__":
    main()
