"""Code generation benchmark: symgrad.lambdify beside SymPy, hand NumPy,
numexpr and JAX, single-threaded first.

Run:  python benchmarks/bench_codegen.py [--quick]

Everything runs in one process on the same arrays; each figure is the
median of several runs.  The headline table is single-threaded (symgrad
with ``threads=1``, numexpr with one thread, JAX pinned to one intra-op
thread is not possible after start-up, so its figure is as JAX runs);
figures with threads follow.  numexpr and JAX are used where installed and
skipped quietly otherwise.  The load average is printed with the figures:
on a shared machine they move with it.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time

import numpy as np
import sympy as sp

import symgrad

try:  # optional peer
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
except Exception:  # noqa: BLE001  (any failure: no JAX column)
    jax = None

try:  # optional peer
    import numexpr
except Exception:  # noqa: BLE001
    numexpr = None


def median_time(fn, *args, repeat: int = 7, inner: int = 1) -> float:
    fn(*args)  # warm up (JIT compilation, caches)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(inner):
            fn(*args)
        times.append((time.perf_counter() - t) / inner)
    return statistics.median(times)


def cold_time(fn, repeat: int = 5) -> float:
    """Median time of ``fn()`` with SymPy's cache cleared before each run (a
    build is done once; repeated, SymPy's cache answers most of it)."""
    from sympy.core.cache import clear_cache

    times = []
    for _ in range(repeat):
        clear_cache()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def loadavg() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def sympy_size(fn) -> tuple[int, int]:
    import inspect

    src = inspect.getsource(fn)
    return len(src.splitlines()), sum(src.count(c) for c in "+-*/") + src.count("(")


def symgrad_size(fn) -> tuple[int, int]:
    return len(fn.source.splitlines()), fn.n_ops


# ---- f(x, y) and its gradient --------------------------------------------------
def hand_f(x, y):
    return np.log1p(np.exp(x * y)) + np.sin(x) * np.cos(y) + np.sqrt(x * x + y * y) * np.tanh(x - y)


def hand_grad(x, y):
    e = np.exp(x * y)
    s = e / (1 + e)
    r = np.sqrt(x * x + y * y)
    t = np.tanh(x - y)
    dt = (1 - t * t) * r
    tr = t / r
    return (y * s + np.cos(x) * np.cos(y) + x * tr + dt,
            x * s - np.sin(x) * np.sin(y) + y * tr - dt)


NE_F = "log1p(exp(x*y)) + sin(x)*cos(y) + sqrt(x*x + y*y)*tanh(x - y)"
NE_GX = ("y*exp(x*y)/(1 + exp(x*y)) + cos(x)*cos(y) + x*tanh(x - y)/sqrt(x*x + y*y)"
         " + (1 - tanh(x - y)**2)*sqrt(x*x + y*y)")
NE_GY = ("x*exp(x*y)/(1 + exp(x*y)) - sin(x)*sin(y) + y*tanh(x - y)/sqrt(x*x + y*y)"
         " - (1 - tanh(x - y)**2)*sqrt(x*x + y*y)")


def transcendentals(block: int = 16384):
    """The gradient's unavoidable calls alone (exp(xy), sin and cos of x and
    y, tanh(x - y), sqrt(x^2 + y^2)) on precomputed arguments, blocked and
    into reused buffers: the cheapest the gradient could be."""
    def run(xy, d, r2, x, y):
        buf = np.empty(min(block, x.size), x.dtype)
        for s in range(0, x.size, block):
            e = s + block
            b = buf[: min(e, x.size) - s]
            np.exp(xy[s:e], out=b)
            np.sin(x[s:e], out=b)
            np.cos(x[s:e], out=b)
            np.sin(y[s:e], out=b)
            np.cos(y[s:e], out=b)
            np.tanh(d[s:e], out=b)
            np.sqrt(r2[s:e], out=b)
    return run


def bench_first(n: int, small: int, rows: list, sizes: list, ratios: list, threaded: list) -> dict:
    x, y = sp.symbols("x y")
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal(n), rng.standard_normal(n)
    X32, Y32 = X.astype(np.float32), Y.astype(np.float32)
    Xs, Ys = X[:small].copy(), Y[:small].copy()

    # build times: derivation, code generation (each the median of 5 builds
    # from a cleared SymPy cache)
    t_grad = cold_time(lambda: symgrad.grad(f, [x, y]))
    g = symgrad.grad(f, [x, y])
    t_build = cold_time(lambda: symgrad.lambdify([x, y], g))
    t_spdiff = cold_time(lambda: [sp.diff(f, x), sp.diff(f, y)])
    spg_exprs = [sp.diff(f, x), sp.diff(f, y)]
    t_spbuild = cold_time(lambda: sp.lambdify([x, y], spg_exprs, "numpy", cse=True))

    sg_grad = symgrad.lambdify([x, y], g, threads=1)
    sg_f = symgrad.lambdify([x, y], f, threads=1)
    sp_grad = sp.lambdify([x, y], spg_exprs, "numpy", cse=True)
    sp_f = sp.lambdify([x, y], f, "numpy", cse=True)
    check = np.max(np.abs(np.array(sg_grad(X, Y)) - np.array(sp_grad(X, Y))))
    trans = transcendentals()
    XY, D, R2 = X * Y, X - Y, X * X + Y * Y

    t = {
        "symgrad gradient": median_time(sg_grad, X, Y),
        "sympy gradient": median_time(sp_grad, X, Y),
        "hand NumPy gradient": median_time(hand_grad, X, Y),
        "transcendental calls alone": median_time(trans, XY, D, R2, X, Y),
        "symgrad f": median_time(sg_f, X, Y),
        "sympy f": median_time(sp_f, X, Y),
        "hand NumPy f": median_time(hand_f, X, Y),
        "symgrad gradient float32": median_time(sg_grad, X32, Y32),
        "sympy gradient float32": median_time(sp_grad, X32, Y32),
        f"symgrad gradient {small}": median_time(sg_grad, Xs, Ys, inner=20),
        f"sympy gradient {small}": median_time(sp_grad, Xs, Ys, inner=20),
        "symgrad gradient 1 point": median_time(sg_grad, 0.3, -0.7, inner=2000),
        "sympy gradient 1 point": median_time(sp_grad, 0.3, -0.7, inner=2000),
    }
    if numexpr is not None:
        numexpr.set_num_threads(1)

        def ne_grad(a, b):
            return (numexpr.evaluate(NE_GX, {"x": a, "y": b}),
                    numexpr.evaluate(NE_GY, {"x": a, "y": b}))
        t["numexpr gradient"] = median_time(ne_grad, X, Y)
        t["numexpr f"] = median_time(lambda a, b: numexpr.evaluate(NE_F, {"x": a, "y": b}), X, Y)
    if jax is not None:
        def jf(a, b):
            return (jnp.log1p(jnp.exp(a * b)) + jnp.sin(a) * jnp.cos(b)
                    + jnp.sqrt(a**2 + b**2) * jnp.tanh(a - b))
        jg = jax.jit(jax.vmap(jax.grad(jf, argnums=(0, 1))))
        JX, JY = jnp.asarray(X), jnp.asarray(Y)
        t["JAX jit(vmap(grad)) CPU"] = median_time(
            lambda a, b: [v.block_until_ready() for v in jg(a, b)], JX, JY)
    for k, v in t.items():
        rows.append((f"f, {n:.0e} points" if "point" not in k and str(small) not in k
                     else "f, small", k, v))
    ratio = [
        (f"gradient, {n:.0e} float64, vs sympy", t["symgrad gradient"] / t["sympy gradient"],
         "<= 0.9"),
        (f"f, {n:.0e} float64, vs sympy f", t["symgrad f"] / t["sympy f"], "<= 1.0"),
        (f"gradient, {n:.0e} float32, vs sympy",
         t["symgrad gradient float32"] / t["sympy gradient float32"], "<= 1.0"),
        (f"gradient, {small} float64, vs sympy",
         t[f"symgrad gradient {small}"] / t[f"sympy gradient {small}"], "<= 1.1"),
        ("one point, Python floats: us per call (sympy's)",
         t["symgrad gradient 1 point"] * 1e6, f"<= 1.5 ({t['sympy gradient 1 point'] * 1e6:.2f})"),
        ("lambdify build / derivation (symgrad)", t_build / t_grad, "<= 1.0"),
        ("gradient / transcendental calls alone",
         t["symgrad gradient"] / t["transcendental calls alone"], "<= 1.25"),
        ("gradient vs hand NumPy gradient", t["symgrad gradient"] / t["hand NumPy gradient"], ""),
    ]
    if numexpr is not None:
        ratio.append(("gradient vs numexpr (1 thread)",
                      t["symgrad gradient"] / t["numexpr gradient"], ""))
    if jax is not None:
        ratio.append(("gradient vs JAX (its own threads)",
                      t["symgrad gradient"] / t["JAX jit(vmap(grad)) CPU"], ""))
    ratios.extend(ratio)
    rows.append(("f, build", "symgrad.grad", t_grad))
    rows.append(("f, build", "symgrad.lambdify of the gradient", t_build))
    rows.append(("f, build", "sympy.diff (both partials)", t_spdiff))
    rows.append(("f, build", "sympy.lambdify(cse=True) of them", t_spbuild))

    # with threads: a bonus where a second core is free
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    sg_grad_mt = symgrad.lambdify([x, y], g)
    tm = median_time(sg_grad_mt, X, Y)
    threaded.append((f"symgrad gradient, threads={cores}", tm, tm / t["sympy gradient"]))
    if numexpr is not None:
        numexpr.set_num_threads(cores)
        tn = median_time(lambda a, b: (numexpr.evaluate(NE_GX, {"x": a, "y": b}),
                                       numexpr.evaluate(NE_GY, {"x": a, "y": b})), X, Y)
        threaded.append((f"numexpr gradient, {cores} threads", tn, tn / t["sympy gradient"]))
        numexpr.set_num_threads(1)

    sizes.append(("f gradient", "symgrad", *symgrad_size(sg_grad)))
    sizes.append(("f gradient", "sympy lambdify+cse", *sympy_size(sp_grad)))
    sizes.append(("f", "symgrad", *symgrad_size(sg_f)))
    t["max |symgrad - sympy|"] = check
    return t


# ---- extended Rosenbrock, n = 1000 ----------------------------------------------
def rosenbrock(xs):
    return sum(100 * (xs[2 * i + 1] - xs[2 * i] ** 2) ** 2 + (1 - xs[2 * i]) ** 2
               for i in range(len(xs) // 2))


def hand_rosen_grad(X):
    a, b = X[0::2], X[1::2]
    g = np.empty_like(X)
    g[0::2] = -400 * a * (b - a * a) - 2 * (1 - a)
    g[1::2] = 200 * (b - a * a)
    return g


def bench_rosenbrock(n: int, batch: int, rows: list, sizes: list) -> dict:
    xs = sp.symbols(f"x0:{n}")
    f = rosenbrock(xs)
    g = symgrad.grad(f, list(xs))
    sg = symgrad.lambdify([list(xs)], list(g), threads=1)
    # SymPy's own diff takes minutes at n = 1000; its code generator is timed
    # on symgrad's gradient expressions instead.
    spg = sp.lambdify([list(xs)], list(g), "numpy", cse=True)
    rng = np.random.default_rng(1)
    one = rng.standard_normal(n)
    many = rng.standard_normal((n, batch))
    err = np.max(np.abs(np.array(sg(many)) - hand_rosen_grad(many)))
    t = {}
    t["one point: symgrad"] = median_time(sg, one)
    t["one point: sympy lambdify+cse"] = median_time(spg, one)
    t["one point: hand NumPy (vectorised)"] = median_time(hand_rosen_grad, one)
    t[f"{batch} points: symgrad"] = median_time(sg, many)
    t[f"{batch} points: sympy lambdify+cse"] = median_time(spg, many)
    t[f"{batch} points: hand NumPy (vectorised)"] = median_time(hand_rosen_grad, many)
    if jax is not None:
        def jrosen(v):
            a, b = v[0::2], v[1::2]
            return jnp.sum(100 * (b - a**2) ** 2 + (1 - a) ** 2)
        jg1 = jax.jit(jax.grad(jrosen))
        jgb = jax.jit(jax.vmap(jax.grad(jrosen), in_axes=1, out_axes=1))
        j1, jm = jnp.asarray(one), jnp.asarray(many)
        t["one point: JAX jit(grad) CPU"] = median_time(lambda v: jg1(v).block_until_ready(), j1)
        t[f"{batch} points: JAX jit(vmap(grad)) CPU"] = median_time(
            lambda v: jgb(v).block_until_ready(), jm)
    for k, v in t.items():
        rows.append((f"Rosenbrock n={n}", k, v))
    sizes.append((f"Rosenbrock n={n} gradient", "symgrad", *symgrad_size(sg)))
    sizes.append((f"Rosenbrock n={n} gradient", "sympy lambdify+cse", *sympy_size(spg)))
    t["max |symgrad - hand|"] = err
    return t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    opt = ap.parse_args()
    n, small, rn, batch = (10**5, 10**4, 100, 10**3) if opt.quick else (10**6, 10**4, 1000, 10**4)
    rows: list = []
    sizes: list = []
    ratios: list = []
    threaded: list = []
    load_before = loadavg()
    first = bench_first(n, small, rows, sizes, ratios, threaded)
    rosen = bench_rosenbrock(rn, batch, rows, sizes)

    print(f"symgrad code generation benchmark, {datetime.datetime.now():%Y-%m-%d %H:%M}, "
          f"numpy {np.__version__}, sympy {sp.__version__}"
          + (f", numexpr {numexpr.__version__}" if numexpr is not None else "")
          + (f", jax {jax.__version__}" if jax is not None else ""))
    print(f"load average (1, 5, 15 min): {load_before} before, {loadavg()} after; "
          f"{os.cpu_count()} cores")
    print()
    print("Single thread (symgrad threads=1; numexpr 1 thread), ratios to the same run's peers:")
    print()
    print(f"| {'what':<48} | {'measured':>8} | {'target':<14} |")
    print(f"|{'-' * 50}|{'-' * 10}|{'-' * 16}|")
    for name, r, target in ratios:
        print(f"| {name:<48} | {r:>8.2f} | {target:<14} |")
    print()
    print(f"| {'case':<22} | {'implementation':<40} | {'median s':>10} |")
    print(f"|{'-' * 24}|{'-' * 42}|{'-' * 12}|")
    for case, impl, sec in rows:
        print(f"| {case:<22} | {impl:<40} | {sec:>10.6f} |")
    print()
    print("With threads (a bonus where the other core is free):")
    print()
    print(f"| {'implementation':<40} | {'median s':>10} | {'vs sympy 1 thread':>17} |")
    print(f"|{'-' * 42}|{'-' * 12}|{'-' * 19}|")
    for impl, sec, r in threaded:
        print(f"| {impl:<40} | {sec:>10.5f} | {r:>17.2f} |")
    print()
    print(f"| {'generated code':<28} | {'generator':<20} | {'lines':>6} | {'operations':>10} |")
    print(f"|{'-' * 30}|{'-' * 22}|{'-' * 8}|{'-' * 12}|")
    for what, who, lines, ops in sizes:
        print(f"| {what:<28} | {who:<20} | {lines:>6} | {ops:>10} |")
    print()
    print("operations: symgrad counts DAG nodes evaluated; for SymPy, operators and calls"
          " in its source.")
    print(f"max abs difference, f gradient, symgrad vs sympy: {first['max |symgrad - sympy|']:.2e}")
    print(f"max abs difference, Rosenbrock gradient, symgrad vs hand: "
          f"{rosen['max |symgrad - hand|']:.2e}")


if __name__ == "__main__":
    main()
