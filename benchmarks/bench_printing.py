"""Printing benchmark: symgrad.program beside SymPy's printers, on a
model-sized gradient and on a gradient 10,000 levels deep.

Run:  python benchmarks/bench_printing.py [--depth 10000] [--units 64]

Sizes are characters of output; times are wall-clock seconds of one run
(CPU seconds beside them: the machine may be shared).
"""

from __future__ import annotations

import argparse
import datetime
import os
import time

import sympy as sp
from sympy import Add, Mul, cos, sin

import symgrad


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    try:
        out = fn()
    except RecursionError:
        out = RecursionError
    return out, time.perf_counter() - w, time.process_time() - c


def mlp(n: int):
    x1, x2, t = sp.symbols("x1 x2 t", real=True)
    w = sp.symbols(f"w1:{n + 1}_1", real=True)
    v = sp.symbols(f"w1:{n + 1}_2", real=True)
    b = sp.symbols(f"b1:{n + 1}", real=True)
    c = sp.symbols(f"c1:{n + 1}", real=True)
    y = sum(c[i] * sp.tanh(w[i] * x1 + v[i] * x2 + b[i]) for i in range(n))
    params = [*w, *v, *b, *c]
    return symgrad.grad((y - t) ** 2, params), [f"∂L/∂{p}" for p in params]


def recurrence(depth: int):
    x, b = sp.symbols("x b", real=True)
    y = x
    for _ in range(depth):
        y = Add(Mul(b, sin(y, evaluate=False), evaluate=False), cos(y, evaluate=False),
                evaluate=False)
    return list(symgrad.grad(y, [x, b])), ["∂y/∂x", "∂y/∂b"]


def row(label: str, exprs: list, names: list) -> None:
    s, ws, cs = timed(lambda: str(exprs))
    p, wp, cp = timed(lambda: symgrad.program(exprs, names))
    t, wt, ct = timed(lambda: p.text())
    u, wu, cu = timed(lambda: p.unicode())
    sympy_size = "RecursionError" if s is RecursionError else f"{len(s):,} chars"
    print(f"| {label} | {sympy_size} ({ws:.2f} s) | {len(t):,} chars, {len(p):,} lines "
          f"| {wp + wt:.2f} s ({cp + ct:.2f} s CPU) | {wu:.2f} s ({cu:.2f} s CPU) |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=10_000)
    ap.add_argument("--units", type=int, default=64)
    a = ap.parse_args()
    load = os.getloadavg()
    print(f"{datetime.date.today()}, {os.cpu_count()} cores, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (at the start)")
    print()
    print("| gradient | SymPy str | symgrad.program, text | program + text time "
          "| program.unicode() time |")
    print("|---|---|---|---|---|")
    row(f"{a.units}-unit layer, 4x{a.units} weights", *mlp(a.units))
    row(f"recurrence {a.depth:,} levels deep, 2 outputs", *recurrence(a.depth))


if __name__ == "__main__":
    main()
