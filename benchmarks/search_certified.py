"""A counterexample search for ``certified(...)``'s bound (issue 17 §1).

``certified(u)`` labels its value correct to about an ulp: the pairs' value
where its first-order bound certifies it, the ground truth's elsewhere.  A
value more than 2 ulps from the truth is a silent wrong answer.  This
builds random formulas from pieces that cancel (expanded powers,
differences of near-equal functions, tiny scale factors that push a
product's partial products below the normal range), feeds them into
functions whose derivative is unbounded or large somewhere (log, log1p,
reciprocals, negative and fractional powers, atanh, acos, asin, acosh, tan,
cot, csc, exp), evaluates ``certified`` at points near those places
(float64, or float32 with its ranges scaled) and compares each value with
mpmath at 1,200 bits.  It prints each formula with its count of
counterexamples (the worst two shown), and the total: 0 is the target.

    python -m benchmarks.search_certified [--n 60] [--seed 3] [--family all|steep|sub|root|mag]
                                          [--dtype float64|float32]
"""

from __future__ import annotations

import argparse
import math
import random
import time

import mpmath
import numpy as np
import sympy as sp
from sympy.codegen.cfunctions import log1p

from symgrad import certified, lambdify

from .independent import machine_line

x, y = sp.symbols("x y")
a, b, e = sp.symbols("a b e")
HALF_PI = sp.Float(math.pi / 2)


def piece(rng: random.Random) -> tuple[sp.Basic, sp.Basic]:
    """A piece that cancels to 0 at ``x = c``, and ``c``."""
    c = rng.choice([1, 2, sp.Rational(1, 2), 3, -1])
    n, m = rng.randint(2, 7), rng.randint(1, 4)
    return rng.choice([
        (sp.expand((x - c) ** n), c),
        (sp.expand((x - c) ** (2 * m)), c),
        (sp.expand((x - c) ** (2 * m)), c),
        (sp.exp(x) - 1 - x, 0),
        (sp.cos(x) - 1, 0),
        (sp.log(x) - (x - 1), 1),
        (sp.sin(x) - x, 0),
        (sp.expand((x - c) * (x + c)) - (x - c) ** 2 - 2 * c * (x - c), c),
        (x * x - 2 * c * x + c * c, c),
    ])


def steep(rng: random.Random, p: sp.Basic) -> tuple[sp.Basic, str]:
    """A function of ``p`` steep where ``p`` is near 0, and its name."""
    return rng.choice([
        (sp.log(p), "log"), (1 / p, "recip"), (sp.sqrt(p ** 2), "sqrt(p^2)"),
        (p ** -3, "p^-3"), (sp.atanh(1 - p ** 2), "atanh(1-p^2)"),
        (sp.acos(1 - p ** 2), "acos(1-p^2)"), (sp.asin(1 - p ** 2), "asin(1-p^2)"),
        (sp.acosh(1 + p ** 2), "acosh(1+p^2)"), (sp.log(1 + (p - 1)), "log(1+(p-1))"),
        (sp.tan(p + sp.pi / 2), "-cot"), (sp.atanh(p - 1), "atanh(p-1)"),
        (log1p(p - 1), "log1p(p-1)"), (sp.sqrt(1 - sp.cos(p)), "sqrt(1-cos)"),
        (sp.exp(p) / p, "exp/p"), (sp.atanh(1 - p), "atanh(1-p)"), (sp.acos(1 - p), "acos(1-p)"),
        (sp.asin(1 - p), "asin(1-p)"), (sp.acosh(1 + p), "acosh(1+p)"),
        (log1p(-1 + p), "log1p(-1+p)"), (sp.log(1 + p), "log(1+p)"),
        (sp.sqrt(2 - p) - sp.sqrt(2), "sqrt-diff"), (sp.tan(HALF_PI + p), "tan(pi/2+p)"),
        (sp.sin(HALF_PI + p) - 1, "sin(pi/2+p)-1"), (sp.csc(p), "csc"),
    ])


def outer(rng: random.Random, f: sp.Basic, p: sp.Basic) -> sp.Basic:
    """The whole formula over ``x, y``: ``y`` a scale or an offset, or a
    steep function at the root of ``p`` plus a small ``y``."""
    root = rng.choice([log1p(p - 1 + y), sp.log(p + y), sp.tan(HALF_PI + p + y),
                       sp.atanh(1 - p + y), sp.sqrt(p + y)])
    return rng.choice([f - y, f * y, y * p * f, f / y, f + y * x, f * y * y, root])


def steep_case(rng: random.Random, n: int, s: float = 1.0) -> tuple[sp.Basic, tuple, list, str]:
    p, c = piece(rng)
    f, name = steep(rng, p)
    pts = []
    for _ in range(n):
        d = rng.choice([1, -1]) * 10.0 ** rng.uniform(-9 if s == 1 else -4.5, -1)
        yy = rng.choice([-1e6, -3.0, 0.7, 1e9, 10.0 ** rng.uniform(-5, 5),
                         rng.choice([1, -1]) * 10.0 ** rng.uniform(-16, -8)])
        pts.append((float(c) + d, yy))
    return outer(rng, f, p), (x, y), pts, name


def sub_case(rng: random.Random, n: int, s: float = 1.0) -> tuple[sp.Basic, tuple, list, str]:
    """Products whose partial products fall below the normal range (the
    exponents' ranges scaled by ``s`` for float32)."""
    u = lambda lo, hi: 10.0 ** rng.uniform(lo * s, hi * s)  # noqa: E731
    k = rng.randrange(4)
    if k == 0:  # NMSE 3.4.2
        f = e * (sp.exp(e * (a + b)) - 1) / ((sp.exp(a * e) - 1) * (sp.exp(b * e) - 1))
        return f, (a, b, e), [(u(230, 250), u(230, 250), u(-300, -250)) for _ in range(n)], \
            "nmse342"
    if k == 1:
        return e * sp.exp(a) / sp.exp(b) ** 2, (a, b, e), [
            (rng.uniform(-745, -700) * s, rng.uniform(-400, -300) * s, u(-30, 30))
            for _ in range(n)], \
            "e*exp/exp^2"
    if k == 2:
        return a * b / e, (a, b, e), [(u(-200, -150), u(-170, -150), u(-300, -200))
                                      for _ in range(n)], "a*b/e"
    return a / e ** 2, (a, e), [(u(-5, 5), u(-163, -154)) for _ in range(n)], "a/e^2"


def root_case(rng: random.Random, n: int, s: float = 1.0) -> tuple[sp.Basic, tuple, list, str]:
    """A steep function at the root of a pair sum ``x + y``, ``x`` at the
    function's edge and ``y`` far smaller (the pair's low part is then as
    large as the distance to the edge)."""
    f, edge, name = rng.choice([
        (log1p(x + y), -1.0, "log1p(x+y)"), (sp.atanh(x + y), 1.0, "atanh(x+y)"),
        (sp.acos(x + y), 1.0, "acos(x+y)"), (sp.tan(x + y), math.pi / 2, "tan(x+y)"),
        (sp.log(x * y), 1.0, "log(x*y)"), (sp.sqrt(x + y) - 1, 1.0, "sqrt(x+y)-1")])
    lo = -16 if s == 1 else -7
    pts = [(edge, rng.choice([1, -1]) * 10.0 ** rng.uniform(lo, lo + 6)) for _ in range(n)]
    return f, (x, y), pts, name


_s, _t, _w = sp.symbols("s t w")


def mag_case(rng: random.Random, n: int, s: float = 1.0) -> tuple[sp.Basic, tuple, list, str]:
    """An intermediate whose PLAIN float is far from its exact value by a
    large relative amount, under a function or a product whose magnitude
    the bound takes at that plain value: an exponent ``x y e - t`` (a
    product of three inputs near a float ``t``: the plain product is off by
    about an ulp of ``|x y e|``, the pairs' by eps**2 of it) under exp,
    expm1, a sigmoid, softplus, sin, erfc, a reciprocal, a log; a product of
    two such exponentials that underflows; |.| and Max of a plain 0; a sum
    whose terms overflow (the exponents' ranges scaled by ``s``)."""
    mag = 10.0 ** rng.uniform(14 * s if s == 1 else 6, 18 * s if s == 1 else 9)
    p = x * y * e
    ex = p - _t
    kind = rng.choice(["exp", "exp", "expm1", "sigmoid", "softplus", "exp*w", "exp+w",
                       "sin", "erfc", "recip", "log", "underflow", "abs", "max", "overflow"])
    lo_d, hi_d = {"exp": (-700, 700), "exp*w": (-700, 700), "exp+w": (-40, 40),
                  "expm1": (-40, 40), "sigmoid": (-40, 40), "softplus": (-40, 40),
                  "sin": (-50, 50), "erfc": (-5, 26), "recip": (-1e3, 1e3),
                  "log": (1e-3, 1e3), "underflow": (-400, -300), "abs": (0, 0),
                  "max": (0, 0), "overflow": (1, 1)}[kind]
    u = {"exp": sp.exp(ex), "exp*w": _w * sp.exp(ex), "exp+w": sp.exp(ex) + _w,
         "expm1": sp.expm1(ex) if hasattr(sp, "expm1") else None,
         "sigmoid": 1 / (1 + sp.exp(ex)), "softplus": log1p(sp.exp(ex)),
         "sin": sp.sin(ex), "erfc": sp.erfc(ex), "recip": _w / ex, "log": sp.log(ex),
         "underflow": sp.exp(ex) * sp.exp(ex - _w), "abs": sp.Abs(ex) * _w,
         "max": sp.Max(ex, 0) * _w, "overflow": x * y * e - _t * _w}[kind]
    if u is None:
        from sympy.codegen.cfunctions import expm1
        u = expm1(ex)
    args = (x, y, e, _t) + ((_w,) if u.has(_w) else ())
    pts = []
    for _ in range(n):
        xs = [rng.uniform(1, 2) * mag ** (1 / 3) for _ in range(3)]
        pl = float(np.float64(xs[0]) * np.float64(xs[1]) * np.float64(xs[2]))
        if kind == "overflow":  # x y e past the largest float, t w just below it
            xs = [rng.uniform(1, 2) * 1.7e308 ** (1 / 3) for _ in range(3)]
            big = xs[0] * xs[1] * xs[2]
            pts.append((*xs, big / 4, 4.0 * (1 + rng.uniform(-1e-12, 1e-12))))
            continue
        d = rng.uniform(lo_d, hi_d) * (s if abs(hi_d) > 50 else 1)
        w = {"exp*w": 10.0 ** rng.uniform(-5, 5), "exp+w": 10.0 ** rng.uniform(-20, 20),
             "recip": 3.0, "underflow": rng.uniform(300, 400) * s, "abs": 1e9,
             "max": 1e9}.get(kind)
        tt = pl - d  # (abs, max: the plain exponent is 0 exactly)
        pts.append((*xs, tt) + ((w,) if w is not None else ()))
    return u, args, pts, kind


def ulps(got: float, want, dt: np.dtype) -> float | None:
    """|got - want| in ulps of ``want`` in ``dt`` (None where ``want`` is
    0, not finite or outside the normal range)."""
    fi = np.finfo(dt)
    if want == 0 or not mpmath.isfinite(want) or not float(fi.tiny) <= abs(want) <= float(fi.max):
        return None
    if not math.isfinite(got):
        return math.inf
    w = dt.type(float(want))
    return float(abs(mpmath.mpf(got) - want) / float(np.spacing(abs(w))))


def run_one(u: sp.Basic, args: tuple, pts: list, label: str, dt: np.dtype) -> int:
    """Counterexamples of ``certified(u)`` at ``pts`` (rounded to ``dt``;
    the worst two printed)."""
    pts = [tuple(float(v) for v in p) for p in np.array(pts, dtype=float).astype(dt)]
    try:
        f = lambdify(list(args), certified(u))
        fm = sp.lambdify(list(args), u, "mpmath")
        got = np.asarray(f(*np.array(pts, dtype=dt).T), dtype=float)
    except Exception as err:  # noqa: BLE001  (a formula symgrad refuses: say so, go on)
        print(f"  SKIP {label}: {type(err).__name__}: {str(err)[:80]}")
        return 0
    bad = []
    for p, g in zip(pts, got):
        try:
            w = fm(*[mpmath.mpf(v) for v in p])
        except (ValueError, ZeroDivisionError, TypeError):
            continue
        if isinstance(w, mpmath.mpc):
            if w.imag != 0:
                continue
            w = w.real
        err = ulps(float(g), w, dt)
        if err is not None and err > 2:
            bad.append((err, p, float(g), mpmath.nstr(w, 17)))
    for err, p, g, w in sorted(bad, reverse=True)[:2]:
        print(f"  CEX {label} at {p}: certified {g!r}, truth {w} ({err:.3g} ulps)")
    return len(bad)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60, help="formulas")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--points", type=int, default=40, help="points per formula")
    ap.add_argument("--family", choices=["all", "steep", "sub", "root", "mag"], default="all")
    ap.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    dt = np.dtype(opts.dtype)
    s = 1.0 if dt == np.float64 else 38 / 308  # (the exponents' ranges)
    mpmath.mp.prec = 1200
    print(machine_line())
    t0, total = time.process_time(), 0
    for i in range(opts.n):
        fam = opts.family if opts.family != "all" else rng.choice(
            ["sub", "root", "steep", "steep", "steep", "steep"])
        case = {"sub": sub_case, "root": root_case, "steep": steep_case,
                "mag": mag_case}[fam]
        u, args, pts, name = case(rng, opts.points, s)
        label = f"#{i} {name}: {u}"
        bad = run_one(u, args, pts, label, dt)
        total += bad
        print(f"{i:3d} {bad:3d}/{len(pts)} {label[:110]}", flush=True)
    print(f"formulas {opts.n}, counterexamples {total}, CPU {time.process_time() - t0:.1f} s")


if __name__ == "__main__":
    main()
