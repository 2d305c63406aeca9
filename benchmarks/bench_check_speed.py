"""Seconds of the stability checker on the cases of its speed targets.

Issue 17 §5: at the defaults, ``check_stability`` and ``stabilize`` each
within 5 s for a formula of up to 3 variables, within 60 s for the 10-output
gradient of a 10-logit softmax cross-entropy, and ``check_gradient`` of a
1,000-input function within 10 s.  Each case runs once, single-threaded
(the BLAS and OpenMP pools held to one thread), in this process; the table
gives the wall seconds and the process's CPU seconds (less moved by the
other jobs of a shared machine than the wall), with the load average.

    python -m benchmarks.bench_check_speed [--full] [--only NAME]

``--full`` adds the slow cases (stabilize of the softmax gradient,
check_gradient at 1,000 inputs).
"""

from __future__ import annotations

import argparse
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import datetime  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import sympy as sp  # noqa: E402
from sympy import exp, log  # noqa: E402

import symgrad  # noqa: E402
from symgrad import check_gradient, check_stability, grad, read_fpcore, stabilize  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _bce3():
    x, y, w = sp.symbols("x y w", real=True)
    p = 1 / (1 + exp(-x))
    g = grad(-w * (y * log(p) + (1 - y) * log(1 - p)), [x, y, w])
    return "weighted BCE-with-logits gradient (3 vars)", g, {x: (-1000, 1000), y: (0, 1),
                                                             w: (0, 10)}


def _nmse(name):
    with open(os.path.join(HERE, "fpbench", "hamming-ch3.fpcore"), encoding="utf-8") as f:
        b = next(b for b in read_fpcore(f.read()) if b.name == name)
    return name, b.expression, b.domain


def _softmax_ce(n=10):
    z = sp.symbols(f"z0:{n}", real=True)
    f = -log(exp(z[0]) / sum(exp(t) for t in z))
    return f"softmax cross-entropy gradient ({n} logits, {n} outputs)", grad(f, list(z)), \
        {t: (-1000, 1000) for t in z}


def _sum_of_inputs(n):
    xs = sp.symbols(f"x0:{n}", real=True)
    f = sum(xs[i] * sp.sin(xs[(i + 1) % n]) + sp.exp(xs[i] / 8) for i in range(n))
    return f"sum of x_i sin(x_i+1) + exp(x_i/8), {n} inputs", f, list(xs)


def cases(full: bool):
    small = [_bce3(), _nmse("NMSE example 3.3"), _nmse("NMSE example 3.4"),
             _nmse("NMSE example 3.9"), _nmse("NMSE problem 3.4.5"),
             _nmse("NMSE problem 3.4.6")]
    for name, e, dom in small:
        yield name, "check_stability", 5, lambda e=e, dom=dom: check_stability(e, dom)
        yield name, "stabilize", 5, lambda e=e, dom=dom: stabilize(e, dom)
    name, g, dom = _softmax_ce()
    yield name, "check_stability", 60, lambda: check_stability(g, dom)
    if full:
        yield name, "stabilize", 60, lambda: stabilize(g, dom)
    for n in ((100, 1000) if full else (100,)):
        name, f, xs = _sum_of_inputs(n)
        yield name, "check_gradient", 10 if n == 1000 else None, \
            lambda f=f, xs=xs: check_gradient(f, xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the slow cases too")
    ap.add_argument("--only", default=None, help="cases whose name holds this text")
    a = ap.parse_args()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"# {now}  Python {platform.python_version()}  SymPy {sp.__version__}  "
          f"symgrad {symgrad.__version__}  single-threaded")
    print("| case | call | wall s | CPU s | target s | load (1 min) |")
    print("|---|---|---|---|---|---|")
    for name, call, target, run in cases(a.full):
        if a.only and a.only not in name:
            continue
        load = os.getloadavg()[0]
        w0, c0 = time.perf_counter(), time.process_time()
        run()
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        print(f"| {name} | {call} | {wall:.1f} | {cpu:.1f} | "
              f"{'-' if target is None else target} | {load:.1f} |", flush=True)


if __name__ == "__main__":
    main()
