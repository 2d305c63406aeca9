"""Powers of sums of exponentials (and of powers) with symbolic exponents:
the class of held-out l's Richards curve and FPBench's clustering
benchmark, and siblings of it that neither was built from (written
2026-11-29 08:15 UTC, session 23, logdom23, before any of them was run).

For each formula, over its box, in float64 and float32: ``stabilize`` at
its defaults (``explain=True``) and an independent measurement of the
formula as written and of the chosen form (``benchmarks/independent.py``:
10x512 points by ordinal and as many by value, seed 20261126, against the
ground truth), with what ``stabilize`` reports and its CPU seconds.

Run (from the repository root):
    python -m benchmarks.logdomain_siblings [--only NAME] [--dtype float32]
"""

from __future__ import annotations

import argparse
import time

import sympy as sp
from sympy import Rational, exp, log, oo

from symgrad import stabilize

from .independent import (
    Measured,
    fmt_bits,
    independent_points,
    stats,
    widened,
    worst,
    worst_text,
)

x, y, t, a, b = sp.symbols("x y t a b", real=True)
p, q, v, n, k, T, nu, lam = sp.symbols("p q v n k T nu lam", real=True)
s, s2, cp, cn = sp.symbols("s t cp cn", real=True)


def _sig(u):
    return 1 / (1 + exp(-u))


# (name, formula, box, started from: True for the two known members)
CASES = [
    ("Richards curve (held-out l)", (1 + exp(-x)) ** (-1 / y),
     {x: (-800.0, 800.0), y: (0.1, 10.0)}, True),
    ("clustering (FPBench, herbie)",
     (_sig(s) ** cp * (1 - _sig(s)) ** cn) / (_sig(s2) ** cp * (1 - _sig(s2)) ** cn),
     {cp: (5e-324, oo), cn: (5e-324, oo), s2: (-oo, oo), s: (-oo, oo)}, True),
    # ---- siblings ----
    ("generalized logistic (Richards with Q)", (1 + q * exp(-t)) ** (-1 / v),
     {t: (-1000.0, 1000.0), q: (0.01, 100.0), v: (0.1, 10.0)}, False),
    ("Hill equation", x**n / (k**n + x**n),
     {x: (1e-3, 1e3), k: (1e-3, 1e3), n: (0.5, 200.0)}, False),
    ("power softmax with temperature", x ** (1 / T) / (x ** (1 / T) + y ** (1 / T)),
     {x: (1e-3, 1e3), y: (1e-3, 1e3), T: (0.01, 10.0)}, False),
    ("Student-t kernel", (1 + x**2 / nu) ** (-(nu + 1) / 2),
     {x: (-1e200, 1e200), nu: (0.01, 100.0)}, False),
    ("Box-Cox of a softplus", (log(1 + exp(x)) ** lam - 1) / lam,
     {x: (-800.0, 800.0), lam: (0.05, 2.0)}, False),
    ("p-norm of exponentials", (exp(a) ** p + exp(b) ** p) ** (1 / p),
     {a: (-800.0, 800.0), b: (-800.0, 800.0), p: (0.5, 8.0)}, False),
    ("log-sum-exp with temperature", T * log(exp(x / T) + exp(y / T)),
     {x: (-100.0, 100.0), y: (-100.0, 100.0), T: (0.01, 10.0)}, False),
    ("Fermi-Dirac occupation to a power", (1 + exp((x - y) / T)) ** (-Rational(3, 2) * v),
     {x: (-100.0, 100.0), y: (-100.0, 100.0), T: (0.01, 10.0), v: (0.1, 10.0)}, False),
]


def run(name: str, f, box: dict, dtype: str, samples: int = 512) -> dict:
    syms = sorted(f.free_symbols, key=str)
    t0 = time.process_time()
    r = stabilize(f, box, dtype=dtype, explain=True, samples=samples)
    cpu = time.process_time() - t0
    pts = independent_points(box, syms, 10 * samples, dtype)
    m = Measured([f], syms, pts, dtype)
    before = m.bits(m.as_written([f]))
    after_vals = m.generated([r.result])
    after = m.bits(after_vals)
    (c,) = r.choices
    return {"name": name, "dtype": dtype, "before": stats(before), "after": stats(after),
            "reported": c.after, "how": c.how, "widened": widened([r.result]),
            "cpu": cpu, "unresolved": m.unresolved,
            "worst": worst_text(worst(after, after_vals, m)),
            "form": str(r.result)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--dtype", action="append", default=[])
    ap.add_argument("--forms", action="store_true", help="print the chosen forms")
    args = ap.parse_args()
    print("| formula | type | as written (indep.) | stabilize reports | after (indep.) "
          "| widened | how | unres. | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, f, box, _ in CASES:
        if args.only and not any(o.lower() in name.lower() for o in args.only):
            continue
        for dtype in args.dtype or ("float64", "float32"):
            got = run(name, f, box, dtype)
            print(f"| {name} | {dtype} | {fmt_bits(*got['before'])} | {fmt_bits(*got['reported'])} "
                  f"| {fmt_bits(*got['after'])} | {'yes' if got['widened'] else 'no'} "
                  f"| {got['how'][:60]} | {got['unresolved']} | {got['cpu']:.1f} |", flush=True)
            if args.forms:
                print(f"    {got['form']}\n    worst after: {got['worst']}", flush=True)


if __name__ == "__main__":
    main()
