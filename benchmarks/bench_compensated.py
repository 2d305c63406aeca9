"""The cost and the accuracy of ``compensated`` beside ``widen``: generated
code for one formula of each class compensated arithmetic fixes (a
polynomial cancelling near its roots, Heron's formula, a product by a
constant no float holds before ``cos``, a sum of exponentials of cancelling
sums), as plain code, compensated and widened; time on 10^6 points, one
thread, best of 3, float64 (widened: x87 long double) and float32 (widened:
float64); accuracy (bits max / mean) on 2,000 points against the ground
truth, half uniform in the box and half at the formula's cancellation.

Run (from the repository root):  python -m benchmarks.bench_compensated [--n N]
"""

from __future__ import annotations

import argparse
import datetime
import os
import time

import numpy as np
from sympy import cos, exp, pi, sqrt, symbols

from symgrad import compensated, lambdify, widen
from symgrad.stability.bits import bits_error, float_format
from symgrad.stability.truth import RESOLVED, GroundTruth

a, b, c, r, t, x, y = symbols("a b c r t x y")


def _disc_near(rng, n):
    av, cv = rng.uniform(1, 2, (2, n))
    return [av, 2 * np.sqrt(av * cv) * (1 + rng.integers(-8, 8, n) * 2.0**-52), cv]


def _heron_near(rng, n):  # a flat triangle: c = a + b, nearly
    av, bv = rng.uniform(1, 10, (2, n))
    return [av, bv, (av + bv) * (1 - rng.uniform(0, 1e-12, n))]


def _deg_near(rng, n):
    return [rng.uniform(1, 10, n), rng.choice([90.0, 270.0], n) + rng.uniform(-1e-4, 1e-4, n)]


def _gauss_near(rng, n):
    return [rng.uniform(5, 6, n), rng.uniform(5, 6, n)]


CASES = [
    ("b^2 - 4ac", b**2 - 4 * a * c, [a, b, c], [(1, 2), (2, 4), (1, 2)], _disc_near),
    ("Heron (triangle)", sqrt((a + (b + c)) * (c - (a - b)) * (c + (a - b)) * (a + (b - c))) / 4,
     [a, b, c], [(1, 10), (1, 10), (1, 20)], _heron_near),
    ("r*cos(t*pi/180)", r * cos(t * pi / 180), [r, t], [(1, 10), (0, 360)], _deg_near),
    ("exp(-((x-p)^2+(y-q)^2)*c)", exp(-((x - 0.1) ** 2 + (y - 0.7) ** 2) * 1.3), [x, y],
     [(0, 6), (0, 6)], _gauss_near),
]


def best(f, *args, repeat: int = 3) -> float:
    f(*args)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def accuracy(expr, syms, box, near, dtype, n=2000):
    fmt = float_format(dtype)
    rng = np.random.default_rng(1)
    cols = [np.concatenate([rng.uniform(lo, hi, n // 2), v[: n // 2]])
            for (lo, hi), v in zip(box, near(rng, n // 2))]
    cols = [np.asarray(k, fmt.dtype) for k in cols]
    true, st = GroundTruth([expr], syms, fmt.name).batch(
        np.stack([k.astype(float) for k in cols], axis=1))
    ok = st[0] == RESOLVED
    out = []
    for form in (expr, compensated(expr), widen(expr)):
        v = lambdify(syms, form, dtype=dtype, threads=1)(*cols)
        bits = bits_error(np.asarray(v, fmt.dtype), true[0], fmt)[ok]
        out.append(f"{bits.max():.1f} / {bits.mean():.2f}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10**6)
    n = ap.parse_args().n
    print(f"# compensated vs widen: {n} points, 1 thread; np.longdouble has "
          f"{np.finfo(np.longdouble).nmant} mantissa bits")
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())} (2 cores, shared)")
    print("| formula | dtype | plain | compensated | widened | bits plain | bits compensated "
          "| bits widened |")
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for dt in ("float64", "float32"):
        for name, expr, syms, box, near in CASES:
            cols = [rng.uniform(lo, hi, n).astype(dt) for lo, hi in box]
            plain = best(lambdify(syms, expr, dtype=dt, threads=1), *cols)
            comp = best(lambdify(syms, compensated(expr), dtype=dt, threads=1), *cols)
            wide = best(lambdify(syms, widen(expr), dtype=dt, threads=1), *cols)
            acc = accuracy(expr, syms, box, near, dt)
            print(f"| {name} | {dt} | {plain * 1e3:.0f} ms | {comp * 1e3:.0f} ms "
                  f"({comp / plain:.1f}x) | {wide * 1e3:.0f} ms ({wide / plain:.1f}x) | "
                  + " | ".join(acc) + " |", flush=True)


if __name__ == "__main__":
    main()
