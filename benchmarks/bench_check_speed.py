"""Seconds of the stability checker on the cases of its speed targets.

Issue 17 §5: at the defaults, ``check_stability`` and ``stabilize`` each
within 5 s for a formula of up to 3 variables, within 60 s for the 10-output
gradient of a 10-logit softmax cross-entropy, and ``check_gradient`` of a
1,000-input function within 10 s.  Each case runs once, single-threaded
(the BLAS and OpenMP pools held to one thread), in this process; the table
gives the wall seconds and the process's CPU seconds (less moved by the
other jobs of a shared machine than the wall), with the load average.

    python -m benchmarks.bench_check_speed [--full] [--only NAME]
    python -m benchmarks.bench_check_speed --sweep [--budget S] [--only NAME]

``--full`` adds the slow cases (stabilize of the softmax gradient,
check_gradient at 1,000 inputs).  ``--sweep`` establishes the 5 s target
over the two public sets instead of a few cases: every FPBench benchmark
of ``benchmarks/fpbench`` (in its own precision) and every ML gradient of
``bench_ml_gradients`` (float64 and float32) of at most 3 variables, each
``check_stability`` and ``stabilize`` at the defaults, one case at a time
in a forked child killed after ``--budget`` seconds of wall time; it
prints every call's CPU and wall seconds, then the calls over 5 s of CPU.
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


TARGET = 5.0  # seconds, for a formula of at most 3 variables


def sweep_cases(only: str | None) -> list[tuple[str, str, object, dict, str]]:
    """(set, name, formula or outputs, domain, dtype) of both public sets,
    at most 3 variables each."""
    from .bench_fpbench import load
    from .bench_ml_gradients import CASES

    out = []
    benchmarks, _ = load([only] if only else [], None)
    for stem, b in benchmarks:
        syms = [v for v in b.variables if v in b.expression.free_symbols]
        if 1 <= len(syms) <= 3:
            out.append((f"fpbench/{stem}", b.name, b.expression, {s: b.domain[s] for s in syms},
                        b.dtype))
    for dtype in ("float64", "float32"):
        for case in CASES:
            if only and only.lower() not in case.name.lower():
                continue
            vs = list(case.variables)
            g = list(grad(case.f, vs)) if len(vs) > 1 else grad(case.f, vs[0])
            out.append(("ml gradient", case.name, g, case.domain, dtype))
    return out


def _timed(arg: tuple, send) -> dict:
    """check_stability and stabilize of one case at the defaults, CPU and
    wall seconds of each (in the child process that runs them)."""
    _, _, e, dom, dtype = arg
    r: dict = {}
    for call, fn in (("check", check_stability), ("stabilize", stabilize)):
        send({**r, "stage": call})
        w0, c0 = time.perf_counter(), time.process_time()
        fn(e, dom, dtype=dtype)
        r[call] = (time.process_time() - c0, time.perf_counter() - w0)
    return r


def sweep(only: str | None, budget: float) -> None:
    from .independent import machine_line, run_all

    cases = sweep_cases(only)
    print(f"# sweep: {len(cases)} formulas of <= 3 variables, {machine_line()}")
    print("| set | formula | dtype | check CPU / wall s | stabilize CPU / wall s | "
          "load (1 min) |")
    print("|---|---|---|---|---|---|")
    slow = []

    def done(i: int, r: dict) -> None:
        kind, name, _, _, dtype = cases[i]
        cells = []
        for call in ("check", "stabilize"):
            if call in r:
                cpu, wall = r[call]
                cells.append(f"{cpu:.1f} / {wall:.1f}")
                if cpu > TARGET:
                    slow.append((kind, name, dtype, call, f"{cpu:.1f} s CPU"))
            elif "timeout" in r and r.get("stage") == call:
                cells.append(f"timeout ({r['timeout']:.0f} s wall)")
                slow.append((kind, name, dtype, call, f"timeout at {r['timeout']:.0f} s wall"))
            elif "crash" in r and r.get("stage") == call:
                cells.append("crash: " + str(r["crash"]).splitlines()[-1][:80])
            else:
                cells.append("–")
        print(f"| {kind} | {name} | {dtype} | {cells[0]} | {cells[1]} | "
              f"{os.getloadavg()[0]:.1f} |", flush=True)

    run_all(_timed, cases, budget, 1, done)
    print(f"\n{len(slow)} calls over {TARGET:g} s of CPU (or timed out):")
    for kind, name, dtype, call, what in slow:
        print(f"- {kind} {name} ({dtype}) {call}: {what}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the slow cases too")
    ap.add_argument("--only", default=None, help="cases whose name holds this text")
    ap.add_argument("--sweep", action="store_true",
                    help="every formula of <= 3 variables of the FPBench and ML sets")
    ap.add_argument("--budget", type=float, default=120.0,
                    help="--sweep: wall seconds per formula before it is killed")
    a = ap.parse_args()
    if a.sweep:
        sweep(a.only, a.budget)
        return
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
