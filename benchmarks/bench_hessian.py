"""Hessian build time: symgrad beside sympy.hessian, CasADi (SX, ``hessian``)
and JAX (``jit(hessian(f))`` traced and compiled, first call included),
where installed, on the extended Rosenbrock function.

symgrad's Hessian is forward-over-reverse: one reverse pass for the
gradient, then per variable a forward pass over the gradient entries that
depend on it, so its cost should follow the Hessian's non-zeros (3n - 2
here), not n times the gradient.  Single-threaded peers (JAX/XLA on one
thread).  A second table: the deep recurrence y <- b*sin(y) + cos(y),
whose weight b is shared by every level (its tangents are alike down to
the bottom), beside JAX.  Run:  python benchmarks/bench_hessian.py [N ...]
"""

from __future__ import annotations

import os

os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import datetime  # noqa: E402
import multiprocessing as mp  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import sympy as sp  # noqa: E402
from bench_diff import _time as _median  # noqa: E402  (run from benchmarks/)
from bench_diff import rosenbrock  # noqa: E402

import symgrad  # noqa: E402

TIMEOUT = 60.0
SIZES = tuple(int(a) for a in sys.argv[1:]) or (30, 100, 300, 1000)
DEPTHS = (100, 400, 1000)


def shared_weight(depth: int):
    """y <- b*sin(y) + cos(y), ``depth`` levels from x, built unevaluated."""
    x, b = sp.symbols("x b", real=True)
    y = x
    for _ in range(depth):
        y = sp.Add(sp.Mul(b, sp.sin(y, evaluate=False), evaluate=False),
                   sp.cos(y, evaluate=False), evaluate=False)
    return y, [x, b]


def _jax_shared(depth: int, out) -> None:
    import jax
    import jax.numpy as jnp

    def f(v):
        y = v[0]
        for _ in range(depth):
            y = v[1] * jnp.sin(y) + jnp.cos(y)
        return y

    t = time.perf_counter()
    jax.jit(jax.hessian(f))(jnp.array([0.3, 0.5])).block_until_ready()
    out.put(time.perf_counter() - t)


def _sympy(n: int, out) -> None:
    f, xs = rosenbrock(n)
    t = time.perf_counter()
    sp.hessian(f, xs)
    out.put(time.perf_counter() - t)


def _casadi(n: int, out) -> None:
    import casadi as ca

    x = ca.SX.sym("x", n)
    f = sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(n - 1))
    out.put(_median(lambda: ca.hessian(f, x), 3))


def _jax(n: int, out) -> None:
    import jax
    import jax.numpy as jnp

    def f(x):
        return jnp.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)

    x0 = jnp.zeros(n)
    t = time.perf_counter()
    jax.jit(jax.hessian(f))(x0).block_until_ready()
    out.put(time.perf_counter() - t)


def peer(fn, n: int) -> float | str | None:
    """The peer's time in a fresh process; None on timeout, the error's name
    if it failed, "-" if it is not installed."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_guard, args=(fn, n, q))
    p.start()
    p.join(TIMEOUT)
    if p.is_alive():
        p.kill()
        p.join()
        return None
    return q.get() if not q.empty() else "failed"


def _guard(fn, n: int, q) -> None:
    try:
        fn(n, q)
    except ImportError:
        q.put("-")
    except Exception as exc:  # reported in the table, not raised
        q.put(type(exc).__name__)


def _cell(v: float | str | None) -> str:
    if v is None:
        return f"> {TIMEOUT:.0f} (killed)"
    return v if isinstance(v, str) else f"{v:.4f}"


def main() -> None:
    print(f"# {datetime.date.today()}  Python {platform.python_version()}  "
          f"SymPy {sp.__version__}  symgrad {symgrad.__version__}  ({platform.machine()})"
          f"  load average {os.getloadavg()[0]:.2f}")
    head = ["n", "non-zeros", "symgrad grad s", "symgrad hessian s", "sympy.hessian s",
            "casadi s", "jax jit s", "hessian/grad"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for n in SIZES:
        f, xs = rosenbrock(n)
        repeat = 5 if n <= 300 else 3
        tg = _median(lambda: symgrad.grad(f, xs), repeat)  # noqa: B023
        th = _median(lambda: symgrad.hessian(f, xs), repeat)  # noqa: B023
        nnz = sum(1 for v in symgrad.hessian(f, xs) if v != 0)
        peers = [peer(_sympy, n) if n <= 100 else "not run", peer(_casadi, n), peer(_jax, n)]
        print(f"| {n} | {nnz} | {tg:.4f} | {th:.4f} | "
              + " | ".join(_cell(v) for v in peers) + f" | {th / tg:.2f} |")
    if sys.argv[1:]:
        return
    print()
    print("| depth | symgrad grad s | symgrad hessian s | jax jit s | hessian/grad |")
    print("|---|---|---|---|---|")
    for d in DEPTHS:
        f, xs = shared_weight(d)
        tg = _median(lambda: symgrad.grad(f, xs), 3)  # noqa: B023
        th = _median(lambda: symgrad.hessian(f, xs), 3)  # noqa: B023
        print(f"| {d} | {tg:.4f} | {th:.4f} | {_cell(peer(_jax_shared, d))} | "
              f"{th / tg:.2f} |")


if __name__ == "__main__":
    main()
