"""A guard on derivation speed (issue 20 §2): exits non-zero when the
gradient of the chained Rosenbrock function (n = 300) or of the recurrence
``y <- a_k*sin(y) + cos(y)`` (depth 1000) takes more than ``TOLERANCE``
times its recorded figure.

A figure is the derivation's time over the time SymPy takes to build the
same formula from fresh symbols, both measured interleaved in this run:
the ratio moves with symgrad, not with the machine's load (the 2.1x
regression of issue 20 moved the Rosenbrock ratio from 1.3 to 3; load 4 to
12 moves it by about 20%).  Not a test: timing does not belong in the
suite.  Run:

    python benchmarks/guard_diff.py            # check against the record
    python benchmarks/guard_diff.py --record   # write today's figures
"""

from __future__ import annotations

import datetime
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's symgrad
from bench_diff import recurrence, rosenbrock  # noqa: E402  (the same formulas, fresh symbols)

import symgrad  # noqa: E402

RECORD = Path(__file__).with_name("guard_diff.json")
TOLERANCE = 1.6
REPEAT = 7
CASES = {"rosenbrock 300": (rosenbrock, 300), "recurrence 1000": (recurrence, 1000)}


def figure(make, size: int) -> tuple[float, float]:
    """(derivation s / construction s, derivation s), medians over fresh
    symbols each time (SymPy's cache never answers)."""
    build, derive = [], []
    for _ in range(REPEAT):
        t = time.perf_counter()
        f, xs = make(size)
        build.append(time.perf_counter() - t)
        t = time.perf_counter()
        symgrad.grad(f, xs)
        derive.append(time.perf_counter() - t)
    d = statistics.median(derive)
    return d / statistics.median(build), d


def main(argv: list[str]) -> int:
    print(f"symgrad from {Path(symgrad.__file__).parent}")
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    load = os.getloadavg()[0]
    now = {name: figure(make, size) for name, (make, size) in CASES.items()}
    if "--record" in argv:
        RECORD.write_text(json.dumps({
            name: {"ratio": round(r, 3), "seconds": round(s, 4), "load": round(load, 1),
                   "date": str(datetime.date.today())} for name, (r, s) in now.items()
        }, indent=2) + "\n")
        print(f"recorded {RECORD.name} (load {load:.1f})")
        return 0
    bad = 0
    for name, (r, s) in now.items():
        was = record.get(name)
        if was is None:
            print(f"{name}: no record; run with --record")
            bad = 1
            continue
        verdict = "ok" if r <= was["ratio"] * TOLERANCE else "SLOWER"
        bad |= verdict != "ok"
        print(f"{name}: derivation/construction {r:.2f} (recorded {was['ratio']:.2f} on "
              f"{was['date']}; limit {was['ratio'] * TOLERANCE:.2f}), {s:.4f} s at load "
              f"{load:.1f}: {verdict}")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
