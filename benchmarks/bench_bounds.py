"""CPU seconds of the proofs (``bounds.prove``): the float tier against box-by-box mpmath.

Every ``check_stability`` proves what holds over its whole domain by
interval bounds over up to 256 boxes (symgrad/stability/bounds.py).  This
times ``prove`` on two public sets -- Hamming's chapter 3 (FPBench's
``hamming-ch3.fpcore``) as written, and the gradients of
``bench_ml_gradients`` as derived and lowered, each in float64 and float32
-- once with the boxes in the float tier (symgrad/stability/boxes.py, the
default) and once box by box in mpmath's intervals (``fast=False``), in
this process, and checks that both prove the same statements, word for
word.  CPU seconds (``time.process_time``: the load stretches them less
than the wall), with the load average.

    python -m benchmarks.bench_bounds [--only NAME] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from symgrad import grad, read_fpcore
from symgrad.lowering import lower
from symgrad.stability import bounds
from symgrad.stability.bits import FORMATS

from .independent import machine_line

HERE = os.path.dirname(os.path.abspath(__file__))


def cases(only: str | None) -> list[tuple[str, list, list, dict, str]]:
    """(name, form, symbols, domain, dtype) of both sets."""
    from .bench_ml_gradients import CASES

    out = []
    with open(os.path.join(HERE, "fpbench", "hamming-ch3.fpcore"), encoding="utf-8") as f:
        for b in read_fpcore(f.read()):
            syms = [v for v in b.variables if v in b.expression.free_symbols]
            if syms and (not only or only.lower() in b.name.lower()):
                for dtype in ("float64", "float32"):
                    out.append((b.name, lower([b.expression]), syms,
                                {s: b.domain[s] for s in syms}, dtype))
    for case in CASES:
        if only and only.lower() not in case.name.lower():
            continue
        vs = list(case.variables)
        form = lower(list(grad(case.f, vs)))
        for dtype in ("float64", "float32"):
            out.append((f"{case.name} (gradient)", form, vs, dict(case.domain), dtype))
    return out


def _timed(form, syms, dom, fmt, fast: bool, repeat: int) -> tuple[float, list[str]]:
    """The median CPU seconds of ``repeat`` prove calls, and what it proves."""
    node_bounds = bounds.node_bounds
    if not fast:
        bounds.node_bounds = lambda *a, **k: node_bounds(*a, fast=False)
    try:
        ts = []
        for _ in range(repeat):
            t = time.process_time()
            proofs = bounds.prove(form, syms, dom, fmt)
            ts.append(time.process_time() - t)
    finally:
        bounds.node_bounds = node_bounds
    return statistics.median(ts), [str(p) for p in proofs]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="cases whose name holds this text")
    ap.add_argument("--repeat", type=int, default=3, help="calls per case and tier (median)")
    a = ap.parse_args()
    rows = cases(a.only)
    print(f"# bench_bounds: {len(rows)} prove calls, {machine_line()}")
    print("| set | calls | mpmath tier CPU s (total) | float tier CPU s (total) | speed-up | "
          "median per call, mpmath / float (ms) | same statements | load (1 min) |")
    print("|---|---|---|---|---|---|---|---|")
    for label, pick in (("Hamming ch. 3, as written", lambda n: "(gradient)" not in n),
                        ("ML gradients, as derived", lambda n: "(gradient)" in n)):
        old, new, same, n = [], [], 0, 0
        for name, form, syms, dom, dtype in rows:
            if not pick(name):
                continue
            fmt = FORMATS[dtype]
            t0, p0 = _timed(form, syms, dom, fmt, False, a.repeat)
            t1, p1 = _timed(form, syms, dom, fmt, True, a.repeat)
            old.append(t0)
            new.append(t1)
            n += 1
            same += p0 == p1
            if p0 != p1:
                print(f"<!-- {name} ({dtype}): mpmath tier {p0!r}; float tier {p1!r} -->")
        if n:
            print(f"| {label} | {n} | {sum(old):.2f} | {sum(new):.2f} | "
                  f"{sum(old) / max(sum(new), 1e-9):.1f}x | "
                  f"{1e3 * statistics.median(old):.1f} / {1e3 * statistics.median(new):.1f} | "
                  f"{same} of {n} | {os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
