"""Derivation speed and gradient-program size: symgrad beside sympy.diff
(variable by variable), SymEngine and CasADi (``SX``, ``ca.gradient``, best of 3),
the last two where installed (``pip install casadi symengine``: for the
benchmark only, not dependencies).

Times the derivation only, not the construction of the input.  Operation
counts are over distinct subexpressions (``symgrad.graph.count_ops``), so
both the function and its gradient are counted after sharing common
subexpressions.  Run:  python benchmarks/bench_diff.py [family ...]
(``rosenbrock``, ``recurrence``: only those rows).

``--cpu [RUNS]`` (default 3) times the two targets of issue 20 instead, in
this one process and in CPU seconds (``time.process_time``: the machine is
shared, and wall time under load is 2-5x CPU time): Rosenbrock n = 1,000
and the recurrence at depth 10^4, symgrad's median over three fresh
formulas beside CasADi's best of three, per run.
"""

from __future__ import annotations

import datetime
import itertools
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time

import sympy as sp

import symgrad
from symgrad.graph import count_ops

TIMEOUT = 60.0  # seconds a peer gets before it is reported as "did not finish"


# Each case takes fresh symbols: SymPy's cache holds only the last 1,000
# nodes it built, so a formula rebuilt over the symbols of an earlier case
# gets new nodes equal to ones still cached, and the cache compares them,
# as trees (exponential in a DAG's depth: the recurrence at depth 1,000
# built after the one at 100 did not finish in minutes, in SymPy alone).
_fresh = itertools.count()


def rosenbrock(n: int):
    x = sp.symbols(f"x{next(_fresh)}_0:{n}")
    f = sp.Add(*[100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(n - 1)])
    return f, list(x)


def recurrence(depth: int):
    k = next(_fresh)
    a = sp.symbols(f"a{k}_0:{depth}")
    y0 = sp.Symbol(f"y{k}")
    e = y0
    for k in range(depth):
        e = a[k] * sp.sin(e) + sp.cos(e)
    return e, [y0, *a]


CASES = [("rosenbrock", n, rosenbrock) for n in (100, 300, 1000)] + [
    ("recurrence", d, recurrence) for d in (10, 100, 1000, 10_000)
]


def _time(make, size: int, repeat: int) -> float:
    """Median derivation time, each repeat over a freshly built formula
    (deriving the same one again would meet the first gradient's nodes
    in SymPy's cache, see ``_fresh``)."""
    ts = []
    for _ in range(repeat):
        f, xs = make(size)
        t = time.perf_counter()
        symgrad.grad(f, xs)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def _peer(kind: str, family: str, size: int, out) -> None:
    try:
        _run_peer(kind, family, size, out)
    except RecursionError:
        out.put("RecursionError")


def _run_peer(kind: str, family: str, size: int, out) -> None:
    if kind == "casadi":  # its own formula: the SymPy one is not built (the
        # recurrence at 10^4 takes SymPy most of the time limit to build)
        out.put(min(_casadi(family, size) for _ in range(3)))
        return
    f, xs = dict(rosenbrock=rosenbrock, recurrence=recurrence)[family](size)
    if kind == "sympy":
        t = time.perf_counter()
        [sp.diff(f, x) for x in xs]
        out.put(time.perf_counter() - t)
    else:
        import symengine as se

        fe, xe = se.sympify(f), [se.Symbol(str(x)) for x in xs]
        t = time.perf_counter()
        [fe.diff(x) for x in xe]
        out.put(time.perf_counter() - t)


def _casadi(family: str, size: int, clock=time.perf_counter) -> float:
    import casadi as ca

    if family == "rosenbrock":
        x = ca.SX.sym("x", size)
        f = 0
        for i in range(size - 1):
            f += 100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
        v = x
    else:
        a, y0 = ca.SX.sym("a", size), ca.SX.sym("y0")
        f = y0
        for k in range(size):
            f = a[k] * ca.sin(f) + ca.cos(f)
        v = ca.vertcat(y0, a)
    t = clock()
    ca.gradient(f, v)
    return clock() - t


def peer_time(kind: str, family: str, size: int) -> float | str | None:
    """The peer's derivation time in a child process, None on timeout, or
    the name of the error it failed with."""
    q: mp.Queue = mp.Queue()
    p = mp.Process(target=_peer, args=(kind, family, size, q))
    p.start()
    p.join(TIMEOUT)
    if p.is_alive():
        p.kill()
        p.join()
        return None
    return q.get() if not q.empty() else None


def _cell(v: float | str | None) -> str:
    if v is None:
        return f"> {TIMEOUT:.0f} (killed)"
    return v if isinstance(v, str) else f"{v:.4f}"


def cpu_runs(runs: int) -> None:
    """The targets (within 20x CasADi on Rosenbrock n = 1,000, 40x on the
    recurrence at depth 10^4) in CPU seconds, symgrad and CasADi in this
    process, ``runs`` times."""
    import casadi  # noqa: F401  (the peer is needed here)

    print(f"# {datetime.date.today()}  CPU seconds, one process  SymPy {sp.__version__}  "
          f"CasADi {casadi.__version__}")
    print("| run | load | case | symgrad s (median of 3) | each | CasADi s (min of 3) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for run in range(1, runs + 1):
        for family, size in (("rosenbrock", 1000), ("recurrence", 10_000)):
            make = dict(rosenbrock=rosenbrock, recurrence=recurrence)[family]
            ts = []
            for _ in range(3):
                f, xs = make(size)
                t = time.process_time()
                symgrad.grad(f, xs)
                ts.append(time.process_time() - t)
            c = min(_casadi(family, size, time.process_time) for _ in range(3))
            t = statistics.median(ts)
            each = " / ".join(f"{v:.3f}" for v in ts)
            print(f"| {run} | {os.getloadavg()[0]:.1f} | {family} {size} | {t:.3f} | {each} "
                  f"| {c:.4f} | {t / c:.1f}x |", flush=True)


def main() -> None:
    if "--cpu" in sys.argv:
        rest = sys.argv[sys.argv.index("--cpu") + 1:]
        cpu_runs(int(rest[0]) if rest else 3)
        return
    peers = ["sympy"]
    for name in ("symengine", "casadi"):
        try:
            __import__(name)
            peers.append(name)
        except ImportError:
            pass
    print(f"# {datetime.date.today()}  Python {platform.python_version()}  "
          f"SymPy {sp.__version__}  symgrad {symgrad.__version__}  ({platform.machine()})  "
          f"load average {os.getloadavg()[0]:.1f}")
    head = ["case", "n", "symgrad s", *[f"{p} s" for p in peers], "sympy/symgrad",
            "symgrad/casadi", "f ops", "grad ops", "grad/f"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    only = set(sys.argv[1:])
    for family, size, make in CASES:
        if only and family not in only:
            continue
        f, xs = make(size)
        repeat = 5 if size <= 300 else 3 if size <= 1000 else 1
        t = _time(make, size, repeat)
        g = symgrad.grad(f, xs)
        fo, go = count_ops([f]), count_ops(list(g))
        times = [peer_time(p, family, size) for p in peers]
        cells = [_cell(v) for v in times]
        if isinstance(times[0], float):
            ratio = f"{times[0] / t:.0f}x"
        elif times[0] is None:
            ratio = f"> {TIMEOUT / t:.0f}x"
        else:
            ratio = "-"
        c = times[peers.index("casadi")] if "casadi" in peers else None
        vs = f"{t / c:.0f}x" if isinstance(c, float) else "-"
        print(f"| {family} | {size} | {t:.4f} | " + " | ".join(cells)
              + f" | {ratio} | {vs} | {fo} | {go} | {go / fo:.2f} |")


if __name__ == "__main__":
    main()
