"""Growth of the engine (issue 8 §4): time to derive and size of the
gradient program on formulas that once grew faster than they should,
beside CasADi (SX), JAX (tracing grad to a jaxpr) and SymEngine.

Sizes are operations over distinct subexpressions (``count_ops``) for
symgrad, instructions of the gradient Function for CasADi and equations of
the jaxpr for JAX.  Peers run in a child process with a time limit; the
construction of the input is not timed.  Single thread:
``OMP_NUM_THREADS=1 python benchmarks/bench_engine.py [--quick] [--cpu] [FAMILY ...]``.
``--cpu`` times every derivation (symgrad's and the peers', each in its own
process) in CPU seconds (``time.process_time``: on a shared machine wall
time under load is 2-5x CPU time).
"""

from __future__ import annotations

import datetime
import multiprocessing as mp
import os
import platform
import sys
import time

import sympy as sp

import symgrad
from symgrad.graph import count_ops

TIMEOUT = 60.0
CLOCK = time.process_time if "--cpu" in sys.argv else time.perf_counter


def residual(n: int):
    """y <- a_k*sin(y) + y, built unevaluated."""
    x = sp.Symbol("x", real=True)
    a = sp.symbols(f"a0:{n}", real=True)
    y = x
    for ak in a:
        y = sp.Add(sp.Mul(ak, sp.sin(y, evaluate=False), evaluate=False), y, evaluate=False)
    return y, [x, *a]


def shared_weight(n: int):
    """y <- b*sin(y) + cos(y), one weight b at every level (an RNN's), built
    unevaluated: b's cotangent is a sum of n terms alike down to the bottom."""
    x, b = sp.symbols("x b", real=True)
    y = x
    for _ in range(n):
        y = sp.Add(sp.Mul(b, sp.sin(y, evaluate=False), evaluate=False),
                   sp.cos(y, evaluate=False), evaluate=False)
    return y, [x, b]


def sin_chain(n: int):
    x = sp.Symbol("x", real=True)
    y = x
    for _ in range(n):
        y = sp.sin(y, evaluate=False)
    return y, [x]


def product(n: int):
    xs = sp.symbols(f"x0:{n}", real=True)
    return sp.Mul(*[sp.sin(v) for v in xs]), list(xs)


def piecewise(n: int):
    x = sp.Symbol("x", real=True)
    return sp.Piecewise(*[(k * x**2 + k * sp.sin(x), x < k) for k in range(n)], (x, True)), [x]


def nested_where(n: int):
    x = sp.Symbol("x", real=True)
    y = x
    for k in range(n):
        y = symgrad.where(x > k, sp.sin(y) * (k + 1), y**2 - k)
    return y, [x]


FAMILIES = dict(residual=residual, shared_weight=shared_weight, sin_chain=sin_chain,
                product=product, piecewise=piecewise, nested_where=nested_where)
FULL = [("residual", n) for n in (100, 1000, 10_000)] + [
    ("shared_weight", n) for n in (500, 1000, 2000, 4000)] + [
    ("sin_chain", n) for n in (1000, 10_000, 100_000)] + [
    ("product", n) for n in (100, 1000)] + [
    ("piecewise", n) for n in (20, 40, 80)] + [
    ("nested_where", n) for n in (4, 8, 12, 16)]
QUICK = [("residual", 1000), ("shared_weight", 1000), ("sin_chain", 10_000), ("product", 1000),
         ("piecewise", 40), ("nested_where", 6)]


# ---- peers, each in a child process ------------------------------------------


def _casadi(family: str, n: int):
    import casadi as ca

    x = ca.SX.sym("x")
    if family == "residual":
        a = ca.SX.sym("a", n)
        y = x
        for k in range(n):
            y = a[k] * ca.sin(y) + y
        v = ca.vertcat(x, a)
    elif family == "shared_weight":
        b = ca.SX.sym("b")
        y = x
        for _ in range(n):
            y = b * ca.sin(y) + ca.cos(y)
        v = ca.vertcat(x, b)
    elif family == "sin_chain":
        y, v = x, x
        for _ in range(n):
            y = ca.sin(y)
    elif family == "product":
        v = ca.SX.sym("v", n)
        y = 1
        for k in range(n):
            y = y * ca.sin(v[k])
    else:
        return "-"
    t = CLOCK()
    g = ca.gradient(y, v)
    dt = CLOCK() - t
    return dt, ca.Function("g", [v], [g]).n_instructions()


def _jax(family: str, n: int):
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_platform_name", "cpu")
    if family == "residual":
        def f(x, a):
            y = x
            for k in range(n):
                y = a[k] * jnp.sin(y) + y
            return y
        args = (0.3, jnp.ones(n) * 0.1)
        fn = jax.grad(f, argnums=(0, 1))
    elif family == "sin_chain":
        def f(x):
            for _ in range(n):
                x = jnp.sin(x)
            return x
        args, fn = (0.3,), jax.grad(f)
    elif family == "product":
        def f(v):
            y = 1.0
            for k in range(n):
                y = y * jnp.sin(v[k])
            return y
        args, fn = (jnp.ones(n) * 0.5,), jax.grad(f)
    else:
        return "-"
    t = CLOCK()
    jp = jax.make_jaxpr(fn)(*args)
    return CLOCK() - t, len(jp.jaxpr.eqns)


def _symengine(family: str, n: int):
    import symengine as se

    sys.setrecursionlimit(10**6)
    f, xs = FAMILIES[family](n)
    fe = se.sympify(f)
    xe = [se.Symbol(str(s)) for s in xs]
    t = CLOCK()
    gs = [fe.diff(s) for s in xe]
    dt = CLOCK() - t
    return dt, len(se.cse(gs)[0]) + len(gs)


PEERS = dict(casadi=_casadi, jax=_jax, symengine=_symengine)


def _child(kind, family, n, q):
    try:
        q.put(PEERS[kind](family, n))
    except RecursionError:
        q.put("RecursionError")
    except Exception as exc:  # a peer that cannot take the case
        q.put(type(exc).__name__)


def peer(kind: str, family: str, n: int):
    q: mp.Queue = mp.Queue()
    p = mp.Process(target=_child, args=(kind, family, n, q))
    p.start()
    p.join(TIMEOUT)
    if p.is_alive():
        p.kill()
        p.join()
        return f"> {TIMEOUT:.0f} (killed)"
    return q.get() if not q.empty() else f"crashed ({p.exitcode})"


def _fmt(r) -> str:
    if isinstance(r, tuple):
        return f"{r[0]:.4f} / {r[1]}"
    return str(r)


def main() -> None:
    cases = QUICK if "--quick" in sys.argv else FULL
    only = [a for a in sys.argv[1:] if a in FAMILIES]
    if only:
        cases = [c for c in cases if c[0] in only]
    print(f"# {datetime.date.today()}  Python {platform.python_version()}  SymPy {sp.__version__}"
          f"  load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}  (2 cores, shared)"
          + ("  CPU seconds" if CLOCK is time.process_time else ""))
    print("| case | n | symgrad s | f ops | grad ops | grad/f | CasADi s / instr | "
          "JAX trace s / eqns | SymEngine s / cse ops |")
    print("|---|---|---|---|---|---|---|---|---|")
    for family, n in cases:
        f, xs = FAMILIES[family](n)
        t = CLOCK()
        g = symgrad.grad(f, xs)
        dt = CLOCK() - t
        gl = list(g) if isinstance(g, (tuple, list)) else [g]
        fo, go = count_ops([f]), count_ops(gl)
        peers = [_fmt(peer(k, family, n)) for k in PEERS]
        print(f"| {family} | {n} | {dt:.4f} | {fo} | {go} | {go / fo:.2f} | " + " | ".join(peers)
              + " |", flush=True)


if __name__ == "__main__":
    main()
