"""check_stability on Hamming's chapter 3 (FPBench ``hamming-ch3``).

Each case of FPBench's ``benchmarks/hamming-ch3.fpcore`` (NMSE examples
3.1-3.11 and problems 3.2.1-3.4.6, the formulas Herbie's paper starts
from), over the input range its precondition allows (a box: where the
precondition is not a box, one inside it), in float64, checked both as
written (``rewrites=False``, Herbie's view) and as symgrad's code runs it.
Printed per case: flagged or not, max and mean bits of error, the worst
region and its culprit, and the time taken.  Then the targets:

* as written, every case that loses more than 10 bits is flagged, with the
  expected culprit among its regions' culprits;
* no stable control is flagged;
* each case is checked in at most 3 s at the default settings (CPU time of
  this process: the machine has 2 cores shared with other work, so wall
  time counts other processes' turns; the load average is printed).

Run (from the repository root):  python -m benchmarks.bench_stability [--samples N]
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import time

from sympy import Rational, atan, cos, exp, log, sin, sqrt, symbols, tan

from symgrad import check_stability

x, eps, N, a, b, c, b2, n, y = symbols("x eps N a b c b2 n y", real=True)
INF = math.inf
TINY = 5e-324  # the smallest positive float: an open end at 0
BELOW1 = 1 - 2**-53  # the largest float below 1: an open end at 1
ALL = (-INF, INF)
THIRD = Rational(1, 3)

_p42 = {a: (1e-4, 1), b: (2, 1e100), c: (1e-4, 1)}  # inside b*b >= 4*a*c, a != 0
_p321 = {a: (1e-4, 1), b2: (1, 1e100), c: (1e-4, 1)}  # inside b2*b2 >= a*c, a != 0

# (name, formula, domain, expected culprits: the flagged regions must name one)
CASES = [
    ("NMSE example 3.1", sqrt(x + 1) - sqrt(x), {x: (0, INF)}, [sqrt(x + 1) - sqrt(x)]),
    ("NMSE example 3.3", sin(x + eps) - sin(x), {x: ALL, eps: ALL}, [sin(x + eps) - sin(x)]),
    ("NMSE example 3.4", (1 - cos(x)) / sin(x), {x: ALL}, [1 - cos(x)]),
    ("NMSE example 3.5", atan(N + 1) - atan(N), {N: ALL}, [atan(N + 1) - atan(N)]),
    ("NMSE example 3.6", 1 / sqrt(x) - 1 / sqrt(x + 1), {x: (TINY, INF)},
     [1 / sqrt(x) - 1 / sqrt(x + 1)]),
    ("NMSE problem 3.3.1", 1 / (x + 1) - 1 / x, {x: ALL}, [1 / (x + 1) - 1 / x]),
    ("NMSE problem 3.3.2", tan(x + eps) - tan(x), {x: ALL, eps: ALL}, [tan(x + eps) - tan(x)]),
    ("NMSE problem 3.3.3", 1 / (x + 1) - 2 / x + 1 / (x - 1), {x: ALL},
     [1 / (x + 1) - 2 / x + 1 / (x - 1)]),
    ("NMSE problem 3.3.4", (x + 1) ** THIRD - x**THIRD, {x: (0, INF)},
     [(x + 1) ** THIRD - x**THIRD]),
    ("NMSE problem 3.3.5", cos(x + eps) - cos(x), {x: ALL, eps: ALL}, [cos(x + eps) - cos(x)]),
    ("NMSE problem 3.3.6", log(N + 1) - log(N), {N: (TINY, INF)}, [log(N + 1) - log(N)]),
    ("NMSE problem 3.3.7", exp(x) - 2 + exp(-x), {x: ALL}, [exp(x) - 2 + exp(-x)]),
    ("NMSE p42, positive", (-b + sqrt(b * b - 4 * a * c)) / (2 * a), _p42,
     [-b + sqrt(b**2 - 4 * a * c), b**2 - 4 * a * c]),
    ("NMSE p42, negative", (-b - sqrt(b * b - 4 * a * c)) / (2 * a), _p42,
     [-b - sqrt(b**2 - 4 * a * c), b**2 - 4 * a * c]),
    ("NMSE problem 3.2.1, positive", (-b2 + sqrt(b2 * b2 - a * c)) / a, _p321,
     [-b2 + sqrt(b2**2 - a * c), b2**2 - a * c]),
    ("NMSE problem 3.2.1, negative", (-b2 - sqrt(b2 * b2 - a * c)) / a, _p321,
     [-b2 - sqrt(b2**2 - a * c), b2**2 - a * c]),
    ("NMSE example 3.7", exp(x) - 1, {x: (-0.00017, INF)}, [exp(x) - 1]),
    ("NMSE example 3.8", (N + 1) * log(N + 1) - N * log(N) - 1, {N: (6.8e15, INF)},
     [(N + 1) * log(N + 1) - N * log(N) - 1]),
    ("NMSE example 3.9", 1 / x - 1 / tan(x), {x: (-0.026, 0.026)}, [1 / x - 1 / tan(x)]),
    ("NMSE example 3.10", log(1 - x) / log(1 + x), {x: (-BELOW1, BELOW1)},
     [log(1 - x), log(1 + x)]),
    ("NMSE problem 3.4.1", (1 - cos(x)) / (x * x), {x: ALL}, [1 - cos(x)]),
    ("NMSE problem 3.4.2",
     eps * (exp((a + b) * eps) - 1) / ((exp(a * eps) - 1) * (exp(b * eps) - 1)),
     {a: ALL, b: ALL, eps: (-BELOW1, BELOW1)},
     [exp((a + b) * eps) - 1, exp(a * eps) - 1, exp(b * eps) - 1]),
    ("NMSE problem 3.4.3", log((1 - eps) / (1 + eps)), {eps: (-BELOW1, BELOW1)},
     [log((1 - eps) / (1 + eps)), 1 - eps]),
    ("NMSE problem 3.4.4", sqrt((exp(2 * x) - 1) / (exp(x) - 1)), {x: ALL},
     [exp(2 * x) - 1, exp(x) - 1]),
    ("NMSE problem 3.4.5", (x - sin(x)) / (x - tan(x)), {x: ALL}, [x - sin(x), x - tan(x)]),
    ("NMSE problem 3.4.6", (x + 1) ** (1 / n) - x ** (1 / n), {x: (0, INF), n: ALL},
     [(x + 1) ** (1 / n) - x ** (1 / n)]),
    ("NMSE section 3.5", exp(a * x) - 1, {a: ALL, x: ALL}, [exp(a * x) - 1]),
    ("NMSE section 3.11", exp(x) / (exp(x) - 1), {x: ALL}, [exp(x) - 1]),
]

CONTROLS = [
    ("x/(x + y)", x / (x + y), {x: (1, 4), y: (1, 4)}),
    ("1/(sqrt(x + 1) + sqrt(x))", 1 / (sqrt(x + 1) + sqrt(x)), {x: (1, 1000)}),
    ("sqrt(x**2 + y**2)", sqrt(x**2 + y**2), {x: (1, 100), y: (1, 100)}),
    ("3.1 rewritten", 1 / (sqrt(x + 1) + sqrt(x)), {x: (0, 1e300)}),
    ("3.3.1 rewritten", -1 / (x * (x + 1)), {x: (1, 1e100)}),
]


def _worst(r):
    """The region that loses the most bits (one where the formula itself is
    undefined, with no bits measured, only if there is no other)."""
    regs = sorted(r.regions, key=lambda g: -(g.max_bits if g.max_bits == g.max_bits else -1))
    return regs[0] if regs else None


def run_case(expr, domain, samples, rewrites):
    """The report and the CPU time it took (the machine is shared: wall time
    would count the other processes' turns too)."""
    t0 = time.process_time()
    r = check_stability(expr, domain, samples=samples, rewrites=rewrites)
    return r, time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=4096)
    args = ap.parse_args()
    print(f"# check_stability on FPBench hamming-ch3, float64, {args.samples} samples")
    print(f"# {datetime.date.today()}, load average {os.getloadavg()[0]:.2f} "
          f"(2 cores, shared with other work)")
    head = ("| case | as written: flagged | max / mean bits | worst region, culprit | time | "
            "as run: max / mean bits | time | targets |")
    print(head)
    print("|" + "---|" * 8)
    misses = []
    slow = []
    for name, expr, dom, culprits in CASES:
        rw, tw = run_case(expr, dom, args.samples, rewrites=False)
        rr, tr = run_case(expr, dom, args.samples, rewrites=True)
        flagged = not rw.ok
        names = {str(g.culprit) for g in rw.regions}
        right = any(str(cu) in names for cu in culprits)
        lossy = rw.max_bits_error > 10
        ok = (not lossy) or (flagged and right)
        if not ok:
            misses.append(name)
        if max(tw, tr) > 3:
            slow.append(name)
        w = _worst(rw)
        where = (f"{w.kind}, `{w.culprit}`" if w else "-")
        mark = "ok" if ok else ("NO CULPRIT" if flagged else "MISSED")
        print(f"| {name} | {'yes' if flagged else 'no'} | {rw.max_bits_error:.1f} / "
              f"{rw.mean_bits_error:.1f} | {where} | {tw:.2f} s | {rr.max_bits_error:.1f} / "
              f"{rr.mean_bits_error:.1f} | {tr:.2f} s | {mark} |", flush=True)
    false_alarms = []
    for name, expr, dom in CONTROLS:
        r, t = run_case(expr, dom, args.samples, rewrites=False)
        if not r.ok:
            false_alarms.append(name)
        print(f"| control: {name} | {'yes' if not r.ok else 'no'} | {r.max_bits_error:.1f} / "
              f"{r.mean_bits_error:.1f} | - | {t:.2f} s | | | "
              f"{'ok' if r.ok else 'FALSE ALARM'} |", flush=True)
    print()
    print(f"lossy cases not flagged with their culprit: {misses or 'none'}")
    print(f"false alarms on controls: {false_alarms or 'none'}")
    print(f"cases over 3 s: {slow or 'none'}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
