"""Scale benchmark: a generated gradient over 10^8 points, in memory and
chunked with dask (threads, and a local distributed cluster of processes).

Run:  python benchmarks/bench_scale.py [--points 1e8] [--chunk 1e7] [--repeat 3]

The formula is the quickstart's, f = log(1 + exp(x*y)) + sin(x)*cos(y) +
sqrt(x^2 + y^2)*tanh(x - y), and its gradient (2 outputs).  Each variant
draws the points, evaluates the gradient and sums each output (so nothing
of size 10^8 is sent back); "evaluate only" times the generated function on
arrays already in memory.  Figures are medians of --repeat runs.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time

import dask
import dask.array as da
import numpy as np
import sympy as sp
from dask.distributed import Client, LocalCluster

import symgrad

x, y = sp.symbols("x y", real=True)
F = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)


def median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def evaluate_only(fn, fn1, n: int, repeat: int) -> list[tuple[str, float]]:
    rng = np.random.default_rng(0)
    xs, ys = rng.uniform(-3, 3, n), rng.uniform(-3, 3, n)
    return [("in memory: evaluate only, symgrad's threads", median(lambda: fn(xs, ys), repeat)),
            ("in memory: evaluate only, one thread", median(lambda: fn1(xs, ys), repeat))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=float, default=1e8)
    ap.add_argument("--chunk", type=float, default=1e7)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    n, chunk = int(a.points), int(a.chunk)
    g = sp.Array(list(symgrad.grad(F, [x, y])))
    fn = symgrad.lambdify([x, y], g)  # threads: one per core
    fn1 = symgrad.lambdify([x, y], g, threads=1)  # dask parallelises over chunks

    rows = evaluate_only(fn, fn1, n, a.repeat)

    def in_memory() -> np.ndarray:
        r = np.random.default_rng(0)
        return fn(r.uniform(-3, 3, n), r.uniform(-3, 3, n)).sum(axis=1)

    def graph() -> da.Array:
        r = da.random.default_rng(0)
        X = r.uniform(-3, 3, size=n, chunks=chunk)
        Y = r.uniform(-3, 3, size=n, chunks=chunk)
        G = da.map_blocks(fn1, X, Y, new_axis=0, chunks=((2,), *X.chunks), dtype=float)
        return G.sum(axis=1)

    rows.append(("in memory: draw, evaluate, sum", median(in_memory, a.repeat)))
    with dask.config.set(scheduler="threads"):
        rows.append((f"dask threads, chunks of {chunk:.0e}: draw, evaluate, sum",
                     median(lambda: graph().compute(), a.repeat)))
    t = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        start = time.perf_counter() - t
        graph().compute()  # warm the workers (imports)
        rows.append((f"dask.distributed, 2 processes, chunks of {chunk:.0e}: draw, evaluate, sum",
                     median(lambda: graph().compute(), a.repeat)))
    load = os.getloadavg()
    print(f"{datetime.date.today()}: {n:.0e} points, {os.cpu_count()} cores, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (at the end)")
    print(f"(the local cluster took {start:.1f} s to start, not counted)")
    print()
    print("| variant | time | per 10^8 points |")
    print("|---|---|---|")
    for name, s in rows:
        print(f"| {name} | {s:.2f} s | {s * 1e8 / n:.2f} s |")


if __name__ == "__main__":
    main()
