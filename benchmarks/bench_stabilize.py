"""stabilize on Hamming's chapter 3 (FPBench ``hamming-ch3``), beside the
check_stability benchmark whose cases and ranges it reuses
(``benchmarks/bench_stability.py``).

For each case, in float64 over its usual input range: the bits of error
(max / mean) as written (``rewrites=False``, Herbie's view), as symgrad's
code runs it before ``stabilize``, and after; the form chosen and how; the
time ``stabilize`` took (choosing on ``--samples`` points and verifying on
as many fresh ones with ``check_stability``).  All three measurements are
on the same fresh points.  Targets (issue 11): every case whose textbook
rewrite is known ends within 3 bits max; no case gets worse; each case
stabilized in at most 10 s on this machine.

Run (from the repository root):
    python -m benchmarks.bench_stabilize [--samples N] [--no-widen] [CASE ...]
"""

from __future__ import annotations

import argparse
import datetime
import os

from symgrad import check_stability, stabilize

from .bench_stability import CASES

# Cases whose textbook answer (Hamming's, Herbie's paper) is a rewrite symgrad
# knows: the target is within 3 bits max over the whole range benchmarked.
# Left out: 3.4.2, whose three exponentials of products overflow independently
# (the textbook answer is an approximation for small eps).
KNOWN = {
    "NMSE example 3.1", "NMSE example 3.3", "NMSE example 3.4", "NMSE example 3.5",
    "NMSE example 3.6", "NMSE problem 3.3.1", "NMSE problem 3.3.2", "NMSE problem 3.3.3",
    "NMSE problem 3.3.4", "NMSE problem 3.3.5", "NMSE problem 3.3.6", "NMSE problem 3.3.7",
    "NMSE p42, positive", "NMSE p42, negative", "NMSE problem 3.2.1, positive",
    "NMSE problem 3.2.1, negative", "NMSE example 3.7", "NMSE example 3.8",
    "NMSE example 3.9", "NMSE example 3.10", "NMSE problem 3.4.1", "NMSE problem 3.4.3",
    "NMSE problem 3.4.4", "NMSE problem 3.4.5", "NMSE problem 3.4.6", "NMSE section 3.5",
    "NMSE section 3.11",
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=512)
    ap.add_argument("--no-widen", action="store_true",
                    help="stabilize within float64 (widen=False): no long double")
    ap.add_argument("cases", nargs="*", help="substrings of case names (default: all)")
    args = ap.parse_args()
    n = args.samples
    print(f"# stabilize on FPBench hamming-ch3, float64, {n} samples to choose, {n} to verify"
          + (", widen=False" if args.no_widen else ""))
    print(f"# {datetime.date.today()}, load average {os.getloadavg()[0]:.2f} "
          "(2 cores, shared with other work)")
    print("| case | as written max / mean | as run before | after | chosen | time | target |")
    print("|" + "---|" * 7)
    worse, missed, slow = [], [], []
    for name, expr, dom, _ in CASES:
        if args.cases and not any(c in name for c in args.cases):
            continue
        r = stabilize(expr, dom, explain=True, samples=n, widen=not args.no_widen)
        took = r.seconds  # choosing and verifying; the reports are extra
        w = check_stability(expr, dom, samples=n, seed=1, rewrites=False)
        b, a = r.before, r.after
        marks = []
        if a.max_bits_error > b.max_bits_error + 1 or a.mean_bits_error > b.mean_bits_error + 0.5:
            worse.append(name)
            marks.append("WORSE")
        if name in KNOWN and a.max_bits_error > 3:
            missed.append(name)
            marks.append("over 3 bits")
        if took > 10:
            slow.append(name)
            marks.append("over 10 s")
        how = r.how if len(r.how) < 70 else r.how[:67] + "..."
        print(f"| {name} | {w.max_bits_error:.1f} / {w.mean_bits_error:.2f} | "
              f"{b.max_bits_error:.1f} / {b.mean_bits_error:.2f} | "
              f"{a.max_bits_error:.1f} / {a.mean_bits_error:.2f} | {how} | {took:.1f} s | "
              f"{', '.join(marks) or 'ok'} |", flush=True)
    print()
    print(f"worse after stabilize: {worse or 'none'}")
    print(f"known rewrite, over 3 bits max: {missed or 'none'}")
    print(f"over 10 s: {slow or 'none'}")


if __name__ == "__main__":
    main()
