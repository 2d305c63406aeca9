"""Every generated source over a corpus, dumped to JSON, to show that a
change to code emission leaves the output as it was (or to list where it
does not).

Run in each tree to compare (its code on the path), then compare:

    PYTHONPATH=<tree> python benchmarks/emit_corpus.py dump before.json
    PYTHONPATH=<tree> python benchmarks/emit_corpus.py dump after.json
    python benchmarks/emit_corpus.py compare before.json after.json

The corpus: each value spec of the rule table over compound arguments and in
compound contexts (``tests/codegen/test_every_function._variants``) and its
gradient, as ``numpy_code``, ``lambdify`` (float64 and float32),
``array_function``, and JAX and PyTorch sources (``export.source.generate``)
of the value and of the stabilized gradient (the plain compound ``t``);
``--fpbench N`` adds the first N FPBench formulas stabilized; and a few long
programs (names reused, long sums folded, quiet branches, complex values,
shared quotients).  Errors are dumped as their text, so a change in what is
refused shows too.  (2026-11-27, emit8: 6,200 sources in about 20 s CPU.)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings

import numpy as np
import sympy as sp

import symgrad
from symgrad.codegen.build import array_function, lambdify, numpy_code
from symgrad.export.source import generate


def _sources(args: list, exprs: list, stabilize: bool = False, domain: dict | None = None,
             exports: bool = True) -> dict[str, object]:
    makers = {
        "code": lambda: numpy_code(args, exprs),
        "lam": lambda: lambdify(args, exprs, stabilize=stabilize, domain=domain).source,
        "lam32": lambda: lambdify(args, exprs, dtype=np.float32, stabilize=stabilize,
                                  domain=domain).source,
        "arr": lambda: array_function(args, exprs, np.float64).source,
    }
    if exports:
        for backend in ("jax", "torch"):
            makers[backend] = (lambda b=backend: generate(b, list(args), list(exprs),
                                                           stabilize=stabilize, domain=domain))
    return makers


def dump(path: str, fpbench: int) -> None:
    from tests.codegen.test_every_function import VALUE_SPECS, _variants

    warnings.simplefilter("ignore")
    out: dict[str, str] = {}
    t0 = time.process_time()

    def add(key: str, *a, **k) -> None:
        for tag, make in _sources(*a, **k).items():
            try:
                out[f"{key}|{tag}"] = make()
            except Exception as err:  # noqa: BLE001  (what is refused is output too)
                out[f"{key}|{tag}"] = f"ERR {type(err).__name__}: {str(err)[:300]}"

    for k, spec in enumerate(VALUE_SPECS):
        for v in _variants(spec, 20 * k):
            args = list(v.syms)
            add(v.label, args, [v.expr], exports=v.label.endswith("(t)") or "for n" in v.label)
            try:
                g = list(symgrad.grad(v.expr, args))
            except Exception:  # noqa: BLE001, S112  (a spec without a gradient)
                continue
            add("grad " + v.label, args, g, exports=False)
            if v.label.endswith("(t)"):
                add("sgrad " + v.label, args, g, stabilize=True)
    if fpbench:
        from benchmarks.bench_fpbench import load

        for stem, b in load([], fpbench)[0]:
            syms = [s for s in b.variables if s in b.expression.free_symbols]
            if syms:
                add(f"fp {stem} {b.name}", syms, [b.expression], stabilize=True,
                    domain={s: b.domain[s] for s in syms}, exports=False)
    x, y, z = sp.symbols("x y z", real=True)
    xs = sp.symbols("x0:60", real=True)
    ros = sum(100 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1 - xs[i]) ** 2 for i in range(59))
    add("rosenbrock 60", list(xs), list(symgrad.grad(ros, list(xs))))
    add("long sum", list(xs), [sum(sp.sin(a) * sp.exp(a) for a in xs)])
    e = x
    for i in range(8):
        e = symgrad.where(e > i, sp.sin(e) + i, 2 * e)
    add("where chain", [x], [e, *symgrad.grad(e, [x])])
    add("complex", [x], [sp.sqrt(x - 5) + sp.I * x, sp.log(-sp.Rational(3, 2)) * x])
    add("quotients", [x, y, z],
        list(symgrad.grad(sp.sqrt(x**2 + y**2 + z**2) * sp.tanh(x - y), [x, y, z])))
    add("branches", [x, y], [sp.Piecewise((sp.log(x), x > 0), (sp.exp(y) / x, y > 1),
                                          (x * y, True))])
    print(f"{len(out)} sources, {time.process_time() - t0:.1f} s CPU", file=sys.stderr)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=0, sort_keys=True)


def compare(a: str, b: str) -> int:
    with open(a, encoding="utf-8") as fa, open(b, encoding="utf-8") as fb:
        before, after = json.load(fa), json.load(fb)
    keys = sorted(set(before) | set(after))
    differ = [k for k in keys if before.get(k) != after.get(k)]
    for k in differ[:20]:
        print("differs:", k)
    print(f"{len(keys)} sources, {len(differ)} differ")
    return 1 if differ else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("path")
    d.add_argument("--fpbench", type=int, default=0, help="add the first N FPBench formulas")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    opt = ap.parse_args()
    if opt.cmd == "dump":
        dump(opt.path, opt.fpbench)
    else:
        sys.exit(compare(opt.before, opt.after))


if __name__ == "__main__":
    main()
