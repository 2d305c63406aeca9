"""Code generation benchmark: symgrad.lambdify beside SymPy, hand NumPy and JAX.

Run:  python benchmarks/bench_codegen.py [--quick]

Everything runs in one process on the same arrays; each figure is the
median of several runs.  JAX is used where it is installed (it is not a
dependency of symgrad) and skipped quietly otherwise.
"""

from __future__ import annotations

import argparse
import datetime
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


def median_time(fn, *args, repeat: int = 7) -> float:
    fn(*args)  # warm up (JIT compilation, caches)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def sympy_size(fn) -> tuple[int, int]:
    import inspect

    src = inspect.getsource(fn)
    return len(src.splitlines()), sum(src.count(c) for c in "+-*/") + src.count("(")


def symgrad_size(fn) -> tuple[int, int]:
    return len(fn.source.splitlines()), fn.n_ops


# ---- f(x, y) and its gradient over 10^6 points ---------------------------------
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


def blocked(fn, n_out: int, block: int = 16384):
    def run(x, y):
        outs = [np.empty_like(x) for _ in range(n_out)]
        for s in range(0, x.size, block):
            r = fn(x[s:s + block], y[s:s + block])
            for o, v in zip(outs, r):
                o[s:s + block] = v
        return outs
    return run


def bench_first(n: int, rows: list, sizes: list) -> dict:
    x, y = sp.symbols("x y")
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal(n), rng.standard_normal(n)

    sg_grad = symgrad.lambdify([x, y], symgrad.grad(f, [x, y]))
    sg_f = symgrad.lambdify([x, y], f)
    sp_grad = sp.lambdify([x, y], [sp.diff(f, x), sp.diff(f, y)], "numpy", cse=True)
    check = np.max(np.abs(np.array(sg_grad(X, Y)) - np.array(sp_grad(X, Y))))
    t = {
        "symgrad gradient": median_time(sg_grad, X, Y),
        "sympy lambdify+cse gradient": median_time(sp_grad, X, Y),
        "hand NumPy gradient": median_time(hand_grad, X, Y),
        "hand NumPy gradient, 16k blocks": median_time(blocked(hand_grad, 2), X, Y),
        "symgrad f": median_time(sg_f, X, Y),
        "hand NumPy f": median_time(hand_f, X, Y),
    }
    if jax is not None:
        def jf(a, b):
            return (jnp.log1p(jnp.exp(a * b)) + jnp.sin(a) * jnp.cos(b)
                    + jnp.sqrt(a**2 + b**2) * jnp.tanh(a - b))
        jg = jax.jit(jax.vmap(jax.grad(jf, argnums=(0, 1))))
        JX, JY = jnp.asarray(X), jnp.asarray(Y)
        t["JAX jit(vmap(grad)) CPU"] = median_time(
            lambda a, b: [v.block_until_ready() for v in jg(a, b)], JX, JY)
    for k, v in t.items():
        rows.append((f"f, {n:.0e} points", k, v))
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
    sg = symgrad.lambdify([list(xs)], list(g))
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
    n, rn, batch = (10**5, 100, 10**3) if opt.quick else (10**6, 1000, 10**4)
    rows: list = []
    sizes: list = []
    first = bench_first(n, rows, sizes)
    rosen = bench_rosenbrock(rn, batch, rows, sizes)

    print(f"symgrad code generation benchmark, {datetime.date.today()}, "
          f"numpy {np.__version__}, sympy {sp.__version__}"
          + (f", jax {jax.__version__}" if jax is not None else ", JAX not installed"))
    print()
    print(f"| {'case':<22} | {'implementation':<40} | {'median s':>10} |")
    print(f"|{'-' * 24}|{'-' * 42}|{'-' * 12}|")
    for case, impl, sec in rows:
        print(f"| {case:<22} | {impl:<40} | {sec:>10.5f} |")
    print()
    sg = first["symgrad gradient"]
    ratios = [
        ("symgrad gradient / sympy lambdify+cse gradient",
         sg / first["sympy lambdify+cse gradient"], "<= 0.7"),
        ("symgrad gradient / symgrad f", sg / first["symgrad f"], "<= 1.5"),
        ("symgrad gradient / hand NumPy f", sg / first["hand NumPy f"], "<= 1.5"),
    ]
    if "JAX jit(vmap(grad)) CPU" in first:
        ratios.append(("symgrad gradient / JAX", sg / first["JAX jit(vmap(grad)) CPU"], "<= 1.0"))
    print(f"| {'ratio (f gradient)':<50} | {'measured':>8} | {'target':>7} |")
    print(f"|{'-' * 52}|{'-' * 10}|{'-' * 9}|")
    for name, r, target in ratios:
        print(f"| {name:<50} | {r:>8.2f} | {target:>7} |")
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
