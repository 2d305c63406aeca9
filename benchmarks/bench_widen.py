"""The cost of ``widen``: generated code for Hamming's trigonometric
differences (the forms ``stabilize`` widens) as plain code and widened, on
10^6 points, one thread, float64 (widened: x87 long double) and float32
(widened: float64); best of 5 runs.  The accuracy side is
``benchmarks/bench_stabilize.py``.

Run (from the repository root):  python -m benchmarks.bench_widen [--n N]
"""

from __future__ import annotations

import argparse
import datetime
import os
import time

import numpy as np
from sympy import cos, sin, symbols

from symgrad import lambdify, widen

x, eps = symbols("x eps")
FORMS = {
    "sin-difference": cos(x) * sin(eps) - 2 * sin(x) * sin(eps / 2) ** 2,
    "cos-difference": -sin(x) * sin(eps) - 2 * cos(x) * sin(eps / 2) ** 2,
    "tan-difference-exact": sin(eps) / (cos(x) * (cos(x) * cos(eps) - sin(x) * sin(eps))),
}


def best(f, *args, repeat: int = 5) -> float:
    f(*args)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10**6)
    n = ap.parse_args().n
    long_bits = np.finfo(np.longdouble).nmant
    print(f"# widen: {n} points, 1 thread, x in [-10, 10], eps in [-1, 1]; "
          f"np.longdouble has {long_bits} mantissa bits")
    print(f"# {datetime.date.today()}, load average {os.getloadavg()[0]:.2f} "
          "(2 cores, shared with other work)")
    print("| form | dtype | plain | widened | ratio |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for dt in ("float64", "float32"):
        xs = rng.uniform(-10, 10, n).astype(dt)
        es = rng.uniform(-1, 1, n).astype(dt)
        for name, f in FORMS.items():
            plain = best(lambdify([x, eps], f, dtype=dt, threads=1), xs, es)
            wide = best(lambdify([x, eps], widen(f), dtype=dt, threads=1), xs, es)
            print(f"| {name} | {dt} | {plain * 1e3:.0f} ms | {wide * 1e3:.0f} ms | "
                  f"{wide / plain:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
