"""check_stability and stabilize on every FPBench benchmark that is a
formula of real scalars (``benchmarks/fpbench/*.fpcore``, read with
``symgrad.read_fpcore``), none of them tuned for.

For each benchmark, over the box its precondition gives, in its precision
(or ``--dtype``):

* ``check_stability`` of the formula as written (``rewrites=False``,
  Herbie's view), at its defaults: flagged (verdict not ok) or not, its
  max / mean bits, its time;
* ``stabilize`` at its defaults (``explain=True``): what it reports after,
  the form chosen, widened (``widen(...)`` in it) or not, its time;
* an independent measurement (``benchmarks/independent.py``): another
  seed, ten times ``stabilize``'s samples uniform over the float ordinals
  plus as many uniform in value, against the mpmath ground truth, of the
  formula as written (node by node), and of the stabilized form as
  symgrad's code runs it; points the ground truth cannot decide are
  counted (``unres.``).

A case is *lossy* when the independent measurement finds more than 3 bits
lost as written, or a region ``check_stability`` reports is confirmed at
its witness point by the ground truth.  Classes: **missed** (lossy, not
flagged), **false alarm** (flagged, not lossy), **unfixed** (lossy, more
than 3 bits after stabilize, on the independent points or at the worst
points stabilize itself reports, measured by the same ground truth),
**false claim** (stabilize's reported max is below the independent one by
more than 1 bit, and the latter is over 3),
**worse** (the stabilized form loses more than the formula as symgrad ran
it before), **crash**, **timeout** (the per-case budget, CPU seconds), **slow** (check
or stabilize over 5 CPU seconds with at most 3 variables, over 60 otherwise).

Run (from the repository root):
    python -m benchmarks.bench_fpbench [--dtype float32] [--only NAME] [--limit N]
        [--budget SECONDS] [--jobs N] [--markdown OUT.md] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from symgrad import check_stability, read_fpcore, stabilize
from symgrad.lowering import lower

from .independent import (
    Measured,
    fmt_bits,
    independent_points,
    machine_line,
    nonfinite_where_finite,
    run_all,
    stats,
    widened,
    worst,
    worst_text,
)

FILES = Path(__file__).resolve().parent / "fpbench"
LOSSY = 3.0  # bits


def load(only: list[str], limit: int | None) -> tuple[list, list]:
    """The benchmarks of every file (file stem, benchmark), and the refused."""
    cases, refused = [], []
    for path in sorted(FILES.glob("*.fpcore")):
        errors: list = []
        for b in read_fpcore(path.read_text(encoding="utf-8"), errors=errors):
            if only and not any(o.lower() in b.name.lower() for o in only):
                continue
            cases.append((path.stem, b))
        refused += [(path.stem, e) for e in errors]
    return (cases[:limit] if limit else cases), refused


def measure(arg: tuple, send=lambda part: None) -> dict:
    """Everything measured on one benchmark (runs in a child process;
    ``send`` passes on what is measured so far)."""
    (_, b), dtype, samples, factor = arg
    dtype = dtype or b.dtype
    expr = b.expression
    symbols = [v for v in b.variables if v in expr.free_symbols]
    dom = {s: b.domain[s] for s in symbols}
    r: dict = {"vars": len(symbols), "dtype": dtype}
    if not symbols:
        return {**r, "crash": "no variable: a constant"}
    t, cpu = time.perf_counter(), time.process_time()
    send({**r, "stage": "check_stability"})
    rep = check_stability(expr, dom, dtype=dtype, rewrites=False)
    r["check_s"] = time.perf_counter() - t
    r["check_cpu"] = time.process_time() - cpu  # (the load does not stretch it)
    r["flagged"] = not rep.ok
    r["check"] = (rep.max_bits_error, rep.mean_bits_error)
    r["check_unresolved"] = rep.unresolved
    witnesses = [g.witness.point for g in rep.regions if g.witness is not None]

    t, cpu = time.perf_counter(), time.process_time()
    send({**r, "stage": "stabilize"})
    s = stabilize(expr, dom, dtype=dtype, explain=True)
    r["stabilize_s"] = s.seconds
    r["stabilize_cpu"] = time.process_time() - cpu
    r["stabilize_all_s"] = time.perf_counter() - t
    r["reported_before"] = (s.before.max_bits_error, s.before.mean_bits_error)
    r["reported_after"] = (s.after.max_bits_error, s.after.mean_bits_error)
    r["how"] = s.how
    result = s.result
    r["result"] = str(result)[:300]
    r["widened"] = widened([result])

    t = time.perf_counter()
    send({**r, "stage": "the independent measurement"})
    pts = independent_points(dom, symbols, factor * samples, dtype)
    m = Measured([expr], symbols, pts, dtype)
    form = lower([expr])
    written = m.as_written(form)[0]
    before = m.generated([expr])[0]
    after = m.generated([result])[0]
    r["points"] = len(pts)
    r["unresolved"], r["undefined"] = m.unresolved, m.undefined
    r["written"] = stats(m.bits(written))
    r["before"] = stats(m.bits(before))
    r["after"] = stats(m.bits(after))
    r["worst_written"] = worst(m.bits(written), written, m)
    r["worst_after"] = worst(m.bits(after), after, m)
    r["after_nonfinite"] = nonfinite_where_finite(after, m)
    r["written_nonfinite"] = nonfinite_where_finite(written, m)
    # the checker's witnesses, confirmed (or not) by the ground truth
    r["witness"] = 0.0
    if witnesses:
        wp = np.array([[w[s_] for s_ in symbols] for w in witnesses], dtype=np.dtype(dtype))
        mw = Measured([expr], symbols, wp, dtype)
        r["witness"] = stats(mw.bits(mw.as_written(form)[0]))[0]
    # stabilize's own worst points of its result, measured the same way: a
    # thin region its search found and the uniform points missed still counts
    r["witness_after"] = _at_witnesses(s.after, [expr], [result], symbols, dtype)
    r["independent_s"] = time.perf_counter() - t
    r["stage"] = None
    return r


def _seconds(r: dict, stage: str) -> float:
    """A stage's CPU seconds (its wall seconds in results from before they
    were recorded): what the table shows and 'slow' judges."""
    return r.get(stage + "_cpu", r[stage + "_s"])


def _at_witnesses(report, exprs: list, result: list, symbols: list, dtype: str) -> float:
    """The most bits ``result`` (symgrad's code) loses at the witness points
    of ``report``'s regions, by the benchmark's own ground truth of ``exprs``
    (0.0 where the report has none)."""
    pts = [g.witness.point for g in report.regions if g.witness is not None]
    if not pts:
        return 0.0
    wp = np.array([[w[s_] for s_ in symbols] for w in pts], dtype=np.dtype(dtype))
    mw = Measured(exprs, symbols, wp, dtype)
    return max(stats(mw.bits(v))[0] for v in mw.generated(result))


def after_max(r: dict) -> float:
    """The stabilized form's worst loss: on the independent points, or at
    stabilize's own reported worst points (measured here too)."""
    return max(r["after"][0], r.get("witness_after", 0.0))


def classify(r: dict) -> list[str]:
    if "timeout" in r:
        return ["timeout"]
    if "crash" in r:
        return ["crash"]
    out = []
    lossy = r["written"][0] > LOSSY or r["witness"] > LOSSY
    r["lossy"] = lossy
    if lossy and not r["flagged"]:
        out.append("missed")
    if r["flagged"] and not lossy:
        out.append("false alarm")
    if lossy and after_max(r) > LOSSY:
        out.append("unfixed")
    if r["after"][0] > LOSSY and r["after"][0] > r["reported_after"][0] + 1:
        out.append("false claim")
    if r["after"][0] > max(r["before"][0], LOSSY) + 1 or r["after"][1] > r["before"][1] + 1:
        out.append("worse")
    limit = 5 if r["vars"] <= 3 else 60
    if _seconds(r, "check") > limit or _seconds(r, "stabilize") > limit:
        out.append("slow")
    return out


def row(name: str, r: dict, classes: list[str]) -> str:
    """A table row; a case cut short shows what it had measured."""
    def pair(key: str) -> str:
        return fmt_bits(*r[key]) if key in r else "–"

    def yes(key: str) -> str:
        return "–" if key not in r else "yes" if r[key] else "no"

    how = r.get("how", "–").replace("|", "\\|")
    how = how if len(how) <= 40 else how[:37] + "..."
    unres = (f"{r['unresolved']}" + (f" (+{r['undefined']} undef.)" if r["undefined"] else "")
             if "unresolved" in r else "–")
    times = " / ".join(f"{_seconds(r, k):.1f}" if k + "_s" in r else "–"
                       for k in ("check", "stabilize"))
    verdict = ", ".join(classes) or "ok"
    if "timeout" in r:
        verdict += f" ({r['timeout']:.0f} s, in {r.get('stage')})"
    if "crash" in r:
        verdict += f": {r['crash'][:120]}".replace("|", "\\|")
    return (f"| {name} | {r.get('vars', '–')} | {yes('flagged')} | {pair('check')} | "
            f"{pair('written')} | {pair('reported_after')} | {pair('after')} | "
            f"{yes('widened')} | {how} | {unres} | {times} | {verdict} |")


HEADER = ("| benchmark | vars | flagged | check max / mean | as written (indep.) | "
          "stabilize reports | after (indep.) | widened | how | unres. | time check / "
          "stabilize (CPU s) | classes |\n|" + "---|" * 12)


def summary(results: list[tuple[str, dict, list[str]]]) -> list[str]:
    done = [(n, r, c) for n, r, c in results if "lossy" in r]
    lossy = [(n, r, c) for n, r, c in done if r["lossy"]]
    flagged = [x for x in lossy if x[1]["flagged"]]
    alarms = [x for x in done if x[1]["flagged"] and not x[1]["lossy"]]
    fixed = [x for x in lossy if after_max(x[1]) <= LOSSY]
    plain = [x for x in fixed if not x[1]["widened"]]
    pct = (lambda k: f"{100 * k / len(lossy):.0f}%") if lossy else (lambda k: "–")
    lines = [
        f"{len(results)} benchmarks run, {len(done)} measured "
        f"({sum('timeout' in r for _, r, _ in results)} timed out, "
        f"{sum('crash' in r for _, r, _ in results)} crashed).",
        f"lossy (> {LOSSY:g} bits as written): {len(lossy)}; flagged by check_stability: "
        f"{len(flagged)} of {len(lossy)}; false alarms: {len(alarms)}; within {LOSSY:g} bits "
        f"after stabilize: {len(fixed)} of {len(lossy)} ({pct(len(fixed))}), without "
        f"widening: {len(plain)} ({pct(len(plain))}).",
    ]
    by_class: dict[str, list[str]] = {}
    for n, _, c in results:
        for k in c:
            by_class.setdefault(k, []).append(n)
    for k in ("missed", "false alarm", "unfixed", "false claim", "worse", "crash", "timeout",
              "slow"):
        if k in by_class:
            lines.append(f"{k} ({len(by_class[k])}): {'; '.join(by_class[k])}")
    return lines


def details(results: list) -> list[str]:
    """The worst independent point of each case in a failure class."""
    lines = []
    for name, r, k in results:
        if not set(k) - {"slow"} or "after" not in r:
            continue
        name = getattr(name, "name", name)
        label = f"{name} ({r['dtype']})" if "dtype" in r else name
        lines.append(f"- {label}: {', '.join(k)}; written: "
                     f"{worst_text(r.get('worst_written')) or '-'}; after stabilize: "
                     f"{worst_text(r.get('worst_after')) or '-'}; chosen by {r.get('how')}")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtype", choices=("float64", "float32"), default=None,
                    help="the float type (default: each benchmark's :precision)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="only benchmarks whose name contains NAME (repeatable)")
    ap.add_argument("--limit", type=int, default=None, metavar="N", help="the first N only")
    ap.add_argument("--samples", type=int, default=512,
                    help="stabilize's samples (its default); the independent points are "
                    "--factor times as many, twice (ordinals and values)")
    ap.add_argument("--factor", type=int, default=10)
    ap.add_argument("--budget", type=float, default=180.0, metavar="SECONDS",
                    help="CPU seconds per benchmark, for all of it (default 180; the "
                    "machine's load does not stretch it; 10x as much wall at most)")
    ap.add_argument("--jobs", type=int, default=2, help="benchmarks at once (default 2)")
    ap.add_argument("--markdown", metavar="OUT.md", help="also write the table here")
    ap.add_argument("--json", metavar="OUT.json", help="also write every figure here")
    args = ap.parse_args(argv)
    cases, refused = load(args.only, args.limit)
    start = time.perf_counter()
    head = [f"# FPBench, {len(cases)} benchmarks ({args.dtype or 'each its :precision'}), "
            f"{machine_line()}",
            f"# check_stability at its defaults; stabilize at {args.samples} samples; "
            f"independent points: {args.factor}x{args.samples} by ordinal + as many by value, "
            f"seed 20261126; budget {args.budget:.0f} CPU s per benchmark, {args.jobs} at once", ""]
    print("\n".join(head), flush=True)
    print(HEADER, flush=True)

    def progress(i: int, r: dict) -> None:
        print(f"[{i + 1}/{len(cases)}] {cases[i][1].name}: "
              f"{', '.join(classify(dict(r))) or 'ok'} ({r['wall']:.1f} s wall, "
              f"{r.get('cpu', 0):.1f} s CPU)", file=sys.stderr, flush=True)
        # the row too, as it is measured: a run cut short keeps what it measured
        stem, b = cases[i]
        print(row(f"{b.name} ({stem})", dict(r), classify(dict(r))), file=sys.stderr, flush=True)

    results = run_all(measure, [(c, args.dtype, args.samples, args.factor) for c in cases],
                      args.budget, args.jobs, progress, cpu=True)
    out = []
    lines = []
    for (stem, b), r in zip(cases, results):
        c = classify(r)
        out.append((b.name, r, c))
        lines.append(row(f"{b.name} ({stem})", r, c))
    print("\n".join(lines))
    print()
    tail = summary(out)
    tail.append(f"refused by read_fpcore ({len(refused)}): "
                + "; ".join(f"{e.name} ({e.construct})" for _, e in refused))
    tail.append(f"total {time.perf_counter() - start:.0f} s")
    tail += ["", "Worst independent points of the cases in a class:", *details(out)]
    print("\n".join(tail))
    if args.markdown:
        Path(args.markdown).write_text("\n".join([*head, HEADER, *lines, "", *tail]) + "\n",
                                       encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"name": n, **{k: v for k, v in r.items() if k != "traceback"}, "classes": c}
             for n, r, c in out], indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
