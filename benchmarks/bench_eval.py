"""Evaluation at every size: symgrad.lambdify beside sympy.lambdify(cse=True)
(and JAX's jit where installed), one thread, float64 and float32.

Run:  python benchmarks/bench_eval.py [--max 1e7] [--repeat 7] [--no-jax]
      python benchmarks/bench_eval.py --parts   (where one block's time goes)
      python benchmarks/bench_eval.py --ops     (each operation, NumPy beside JAX)
      python benchmarks/bench_eval.py --sincos  (sin and cos of one argument by one
                                                 complex exp: bitwise? faster?)
      python benchmarks/bench_eval.py --short   (every length from 1 to 32 points:
                                                 the short-batch kernel and the array
                                                 kernel beside SymPy)
      python benchmarks/bench_eval.py --align   (the entry point's outputs and scratch
                                                 arrays 64-byte aligned, as it makes
                                                 them, beside the same code with them
                                                 16, 32 or 48 bytes past)
      python benchmarks/bench_eval.py --pack    (same-operation calls packed into one
                                                 call over stacked arrays, by hand,
                                                 bitwise checked against f_block,
                                                 beside f_block and SymPy; and what
                                                 a packing costs, part by part)

The formula is the quickstart-style gradient of
``log(1 + exp(x*y)) + sin(x)*cos(y) + sqrt(x**2 + y**2)*tanh(x - y)``
(issue 9's), derived by symgrad for symgrad and by ``sympy.diff`` for SymPy,
and written by hand as the fewest NumPy calls with symgrad's accuracy
(``by_hand``: Python floats or NumPy scalars at one point, ``floor`` over
whole arrays), in the same run: where symgrad is over 0.9x SymPy, that
column says whether any NumPy code of that accuracy is under it.
Sizes run from one point (Python floats for float64, NumPy float32 scalars
for float32) to ``--max`` points.  The thread pools of NumPy's BLAS, OpenMP
and XLA are pinned to one thread before anything is imported and symgrad
runs with ``threads=1``.  symgrad and SymPy are timed interleaved (round by
round, each round the mean of enough calls to take about 20 ms), and each
figure is the fastest round: on a shared machine a round is slowed by
other jobs' bursts, never sped up, so the fastest is the closest to the
cost itself (``--median`` gives medians).  The load average is printed with
the table.  That is with ``--rounds``; by default (since 2026-11-27 04:30)
every call is timed on its own, the three called in turn, and each figure is
the 10th percentile of its calls (0.4 s of calls a size, 2 s from 10^6
points): at load 5-10 the rounds' figures still moved by 20-40% between runs
below 10^4 points, the single calls' by a few percent.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

import argparse  # noqa: E402
import datetime  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import symgrad  # noqa: E402

try:  # optional peer
    if "--no-jax" in sys.argv:
        raise ImportError
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
except Exception:  # noqa: BLE001  (any failure: no JAX column)
    jax = None


def _seconds(v: float, digits: int = 2) -> str:
    """``v`` seconds in us below a millisecond, else in ms (one digit more)."""
    return f"{v * 1e6:.{digits}f} us" if v < 1e-3 else f"{v * 1e3:.{digits + 1}f} ms"


def _short_seconds(v: float) -> str:
    return _seconds(v, 1)


def loadavg() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def _calls_for(fn, args, budget: float = 0.02) -> int:
    t = time.perf_counter()
    fn(*args)
    dt = max(time.perf_counter() - t, 1e-7)
    return max(1, int(budget / dt))


def interleaved(fns: dict, args: dict, repeat: int, pick=min) -> dict:
    """Seconds per call of each function, timed round by round: the fastest
    round (``pick=statistics.median``: the median)."""
    inner = {k: _calls_for(f, args[k]) for k, f in fns.items()}
    times: dict = {k: [] for k in fns}
    for _ in range(repeat):
        for k, f in fns.items():
            a, n = args[k], inner[k]
            t = time.perf_counter()
            for _ in range(n):
                f(*a)
            times[k].append((time.perf_counter() - t) / n)
    return {k: pick(v) for k, v in times.items()}


def p10(v: list) -> float:
    return sorted(v)[len(v) // 10]


# The clock single calls are timed by: wall time, or (--cpu) the process's
# CPU time, every thread's (JAX's runtime threads too), which a loaded
# machine's other jobs do not add to (at load 7-8 JAX's wall times moved
# 5x between runs)
CLOCK = [time.perf_counter]


def call_by_call(fns: dict, args: dict, budget: float = 0.4) -> dict:
    """Seconds per call of each function, every call timed on its own and the
    functions called in turn, call by call: the 10th percentile of each
    one's calls.  On a shared machine a burst of other jobs slows the calls
    it hits, whichever function they belong to; a round of many calls (what
    ``interleaved`` times) is slowed by any burst within it, so at the small
    sizes its fastest round still moved by 20-40% between runs."""
    pc = CLOCK[0]
    one = 0.0  # the slowest function's time for one call
    for k, f in fns.items():
        t = pc()
        f(*args[k])
        one = max(one, pc() - t)
    n = max(5, min(20000, int(budget / max(one, 1e-6) / len(fns))))
    times: dict = {k: [] for k in fns}
    for _ in range(n):
        for k, f in fns.items():
            a = args[k]
            t = pc()
            f(*a)
            times[k].append(pc() - t)
    return {k: p10(v) for k, v in times.items()}


HEAP = [""]  # what --heap set, for the table's header


def heap() -> None:
    """glibc's malloc serves a request of at least its mmap threshold (128 kB
    at start) by a fresh mmap, every page of it faulted in at first touch,
    and moves the threshold up to the size of the largest such block freed
    (up to 32 MB), trimming the heap's top past twice that: so whether
    SymPy's temporaries of 10^5 float32 or float64 elements (0.4-0.8 MB, a
    new one for every operation) cost page faults on every call depends on
    which sizes the process allocated and freed before (1,726 faults a call
    at 10^5 float64 points in one process, none in another; symgrad's
    blocks reuse pooled buffers: none).  Fixing both thresholds (mallopt)
    takes the process history out: every array up to 32 MB from the heap."""
    import ctypes
    import ctypes.util
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    m_trim, m_mmap = -1, -3  # M_TRIM_THRESHOLD, M_MMAP_THRESHOLD (malloc.h)
    ok = libc.mallopt(m_mmap, 32 << 20) == 1 and libc.mallopt(m_trim, 256 << 20) == 1
    HEAP[0] = ("  glibc malloc: mmap threshold 32 MB, trim threshold 256 MB" if ok
               else "  (mallopt failed: malloc's thresholds as they were)")


def naive(a, b):
    return np.sqrt(a * a + b * b)


def trig(a, b):
    return np.sin(a), np.cos(a), np.sin(b), np.cos(b)


def floor(x, y, hyp=naive):
    """The gradient written by hand as the fewest NumPy calls (by default
    SymPy's hypot form), every call but the first of each value in place,
    the output array passed by position: what any code of one NumPy call per
    operation costs at least."""
    m, a, s, d = np.multiply, np.add, np.subtract, np.divide
    one = x.dtype.type(1)  # (a NumPy scalar: a Python float costs more)
    t0 = s(x, y)
    np.tanh(t0, t0)
    t1 = hyp(x, y)
    t9 = m(t0, t0)
    m(s(one, t9, t9), t1, t9)
    d(t0, t1, t0)
    t4 = m(x, y)
    np.exp(t4, t4)
    d(t4, a(t4, one, t1), t4)
    c, c2 = np.cos(x), np.cos(y)
    m(c, c2, c)
    a(c, t9, c)
    a(c, m(x, t0, c2), c)
    a(c, m(y, t4, c2), c)
    sn, s2 = np.sin(x), np.sin(y)
    m(sn, s2, sn)
    a(sn, t9, sn)
    s(m(x, t4, s2), sn, s2)
    a(s2, m(y, t0, sn), s2)
    return c, s2


def hand_point(x, y):
    """The gradient by hand on one point of Python floats (the math module:
    what a function of one point costs at least), hypot as math.hypot."""
    t0 = math.tanh(x - y)
    r = math.hypot(x, y)
    t2 = (1 - t0 * t0) * r
    t3 = t0 / r
    e = math.exp(x * y)
    s = e / (1 + e)
    return [t2 + math.cos(x) * math.cos(y) + x * t3 + y * s,
            x * s - (t2 + math.sin(x) * math.sin(y)) + y * t3]


def hand_scalar(x, y):
    """The gradient by hand on two NumPy scalars of one type (float32's
    arithmetic and NumPy's float32 functions), hypot as symgrad's (math.hypot
    rounded to the type)."""
    t0 = np.tanh(x - y)
    r = type(x)(math.hypot(x, y))
    t2 = (1 - t0 * t0) * r
    t3 = t0 / r
    e = np.exp(x * y)
    s = e / (1 + e)
    return [t2 + np.cos(x) * np.cos(y) + x * t3 + y * s,
            x * s - (t2 + np.sin(x) * np.sin(y)) + y * t3]


def by_hand(hypot):
    """The fastest NumPy code written by hand for the gradient at every size,
    with symgrad's accuracy (``hypot``: symgrad's ``_hypot``): one point in
    Python floats (float64) or NumPy scalars (float32), arrays by ``floor``
    in one pass over the whole arrays."""
    def hand(a, b):
        t = type(a)
        if t is float:
            return hand_point(a, b)
        if t is not np.ndarray:
            return hand_scalar(a, b)
        return floor(a, b, hypot)
    return hand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=float, default=1e7, help="largest number of points")
    ap.add_argument("--repeat", type=int, default=7, help="rounds per size")
    ap.add_argument("--no-jax", action="store_true", help="leave JAX out")
    ap.add_argument("--median", action="store_true", help="medians of the rounds, not minima")
    ap.add_argument("--rounds", action="store_true",
                    help="time rounds of calls (fastest round) instead of single calls (p10)")
    ap.add_argument("--ops", action="store_true",
                    help="only the per-operation table: NumPy beside JAX's jit at 1e6 points")
    ap.add_argument("--parts", action="store_true",
                    help="only where the time goes: from 100 to 10^4 points the kernels "
                         "beside the sin/cos calls alone and symgrad's with SymPy's hypot; "
                         "from 10^4 to 10^6, symgrad and JAX beside their sin/cos alone")
    ap.add_argument("--sincos", action="store_true",
                    help="only sin and cos of one argument as one complex exp (glibc's cexp "
                         "calls sincos) beside np.sin and np.cos: bitwise over the whole float "
                         "range, and the time of each from 10 points to --max")
    ap.add_argument("--short", action="store_true",
                    help="only the short batches: symgrad's call, its short-batch kernel "
                         "(f_rows) and its array kernel beside SymPy at 1 to 32 points")
    ap.add_argument("--align", action="store_true",
                    help="only the alignment A/B: the entry point's aligned outputs and "
                         "scratch arrays beside the same code with them 16, 32 and 48 bytes "
                         "past a multiple of 64, 2,048 to 10^5 points")
    ap.add_argument("--pack", action="store_true",
                    help="only the packed kernels: the gradient's same-operation calls "
                         "packed into one call over stacked arrays (by hand, bitwise "
                         "checked) beside f_block and SymPy, 10 to 10^4 points, and "
                         "what stacking, slicing and broadcasting cost")
    ap.add_argument("--heap", action="store_true",
                    help="fix glibc malloc's thresholds (mallopt: mmap at 32 MB, trim at "
                         "256 MB) before anything is timed, so that every array up to 32 MB "
                         "comes from the heap, with no page faults after the first calls")
    ap.add_argument("--cpu", action="store_true",
                    help="time single calls in the process's CPU time, not wall time")
    opt = ap.parse_args()
    if opt.cpu:
        CLOCK[0] = time.process_time
    if opt.heap:
        heap()
    if opt.ops:
        return operations(opt.repeat)
    if opt.parts:
        return parts()
    if opt.sincos:
        return sincos(int(opt.max))
    if opt.short:
        return short()
    if opt.align:
        return aligned()
    if opt.pack:
        return packing()

    x, y = sp.symbols("x y")
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    sg = symgrad.lambdify([x, y], symgrad.grad(f, [x, y]), threads=1)
    sp_fn = sp.lambdify([x, y], [sp.diff(f, x), sp.diff(f, y)], "numpy", cse=True)
    peers = {"symgrad": sg, "sympy": sp_fn,
             "by hand": by_hand(type(sg).__call__.__globals__["_hypot"])}
    if jax is not None:
        def jf(a, b):
            return (jnp.log1p(jnp.exp(a * b)) + jnp.sin(a) * jnp.cos(b)
                    + jnp.sqrt(a**2 + b**2) * jnp.tanh(a - b))
        jg = jax.jit(jax.vmap(jax.grad(jf, argnums=(0, 1))))
        jg1 = jax.jit(jax.grad(jf, argnums=(0, 1)))

        def jax_call(a, b):
            g = (jg if np.ndim(a) else jg1)(a, b)
            return [v.block_until_ready() for v in g]
        peers["jax"] = jax_call

    sizes = [1]
    n = 10
    while n <= opt.max:
        sizes.append(n)
        n *= 10
    rng = np.random.default_rng(0)
    big = max(sizes)
    X64, Y64 = rng.standard_normal(big), rng.standard_normal(big)
    load0 = loadavg()
    rows = []
    for dtype in ("float64", "float32"):
        dt = np.dtype(dtype)
        X, Y = X64.astype(dt), Y64.astype(dt)
        for n in sizes:
            if n == 1:
                a = (0.3, -0.7) if dtype == "float64" else (np.float32(0.3), np.float32(-0.7))
            else:
                a = (X[:n].copy(), Y[:n].copy())
            args = {k: a for k in peers}
            if "jax" in peers:
                args["jax"] = tuple(jnp.asarray(v) for v in a)
            got = sg(*a)
            want = sp_fn(*a)
            np.testing.assert_allclose(np.asarray(peers["by hand"](*a), np.float64),
                                       np.asarray(want, np.float64), rtol=1e-4, atol=1e-4)
            err = max(float(np.max(np.abs(np.asarray(g, np.float64) - np.asarray(w, np.float64))))
                      for g, w in zip(got, want))
            if opt.rounds:
                t = interleaved(peers, args, opt.repeat if n < 10**7 else max(3, opt.repeat // 2),
                                statistics.median if opt.median else min)
            else:
                # JAX on its own: its runtime's threads keep running a while
                # after a call returns, and slowed whichever call came next
                # (symgrad's: 1.3x SymPy at one point with JAX in turn, 0.8x
                # without, in two runs four minutes apart at load 8)
                budget = 2.0 if n >= 10**6 else 0.4
                t = call_by_call({k: v for k, v in peers.items() if k != "jax"}, args, budget)
                if "jax" in peers:
                    t.update(call_by_call({"jax": peers["jax"]}, args, budget / 2))
            rows.append((dtype, n, t, err))
            jx = f"{t['jax']:.3g}" if "jax" in t else "-"
            print(f"# {dtype} n={n}: symgrad {t['symgrad']:.3g} s, sympy {t['sympy']:.3g} s, "
                  f"jax {jx} s", file=sys.stderr)
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  "
          f"Python {sys.version.split()[0]}  numpy {np.__version__}  sympy {sp.__version__}"
          + (f"  jax {jax.__version__}" if jax is not None else "")
          + (f"  one thread  {'median' if opt.median else 'fastest'} of {opt.repeat} rounds"
             if opt.rounds else "  one thread  10th percentile of single calls, interleaved"
             + (", process CPU time" if opt.cpu else ", wall time"))
          + HEAP[0]
          + f"  load average {load0} before, {loadavg()} after")
    head = "| dtype | points | symgrad | sympy cse | symgrad/sympy | by hand | by hand/sympy |"
    line = "|---|---|---|---|---|---|---|"
    if jax is not None:
        head += " JAX jit | symgrad/JAX |"
        line += "---|---|"
    print(head + " max abs diff |")
    print(line + "---|")

    fmt = _seconds
    for dtype, n, t, err in rows:
        r = f"| {dtype} | {n:.0e} | {fmt(t['symgrad'])} | {fmt(t['sympy'])} | " \
            f"{t['symgrad'] / t['sympy']:.2f} | {fmt(t['by hand'])} | " \
            f"{t['by hand'] / t['sympy']:.2f} |"
        if jax is not None:
            r += f" {fmt(t['jax'])} | {t['symgrad'] / t['jax']:.2f} |"
        print(r + f" {err:.1e} |")


def parts() -> None:
    """Where the time of one block goes, from 100 to 10^4 points: symgrad's
    kernel (the one its entry point runs at that size), the same kernel with
    ``hypot`` computed as SymPy's code computes it (``sqrt(x**2 + y**2)``,
    which overflows past 1e154), SymPy's function, and the four sin/cos
    calls both make, alone, and the gradient written by hand as the fewest
    NumPy calls, in place (a floor for code of one NumPy call per operation),
    with symgrad's ``hypot`` (the same accuracy) and with SymPy's; and
    symgrad's whole call (its entry point's tests too); every call timed on
    its own, in turn (10th percentiles)."""
    import types

    x, y = sp.symbols("x y")
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    sg = symgrad.lambdify([x, y], symgrad.grad(f, [x, y]), threads=1)
    sp_fn = sp.lambdify([x, y], [sp.diff(f, x), sp.diff(f, y)], "numpy", cse=True)
    sg.source  # noqa: B018  (writes every kernel: until first called each is a stand-in)
    names = type(sg).__call__.__globals__

    accurate = names["_hypot"]  # symgrad's (np.hypot below HYPOT_SMALL elements)

    def floor_accurate(x, y):
        return floor(x, y, accurate)

    load0 = loadavg()
    rows = []
    rng = np.random.default_rng(0)
    for dtype in ("float64", "float32"):
        for n in (100, 1000, 10000):
            a = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
            kernel = names["f_inplace" if n >= 256 and "f_inplace" in names else "f_block"]
            plain = types.FunctionType(kernel.__code__, {**kernel.__globals__, "_hypot": naive},
                                       None, kernel.__defaults__)
            np.testing.assert_allclose(floor(*a), sp_fn(*a), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(floor_accurate(*a), sp_fn(*a), rtol=1e-5, atol=1e-5)
            fns = {"symgrad": kernel, "naive hypot": plain, "sympy": sp_fn, "sin/cos": trig,
                   "floor": floor, "floor accurate": floor_accurate, "call": sg}
            t = call_by_call(fns, {k: a for k in fns}, 1.0)
            rows.append((dtype, n, t))
    clock = "process CPU time" if CLOCK[0] is time.process_time else "wall time"
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  numpy "
          f"{np.__version__}  one thread  one block, the kernels alone  10th percentile of "
          f"single calls, {clock}  load average {load0} before, {loadavg()} after")
    print("| dtype | points | symgrad call | symgrad kernel | with SymPy's hypot | sympy cse "
          "| sin/cos alone | call/sympy | kernel/sympy | with SymPy's hypot "
          "| the rest (without sin/cos) | fewest calls by hand, symgrad's hypot | /sympy "
          "| by hand, SymPy's hypot | /sympy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for dtype, n, t in rows:
        us = {k: v * 1e6 for k, v in t.items()}
        rest = (us["symgrad"] - us["sin/cos"]) / (us["sympy"] - us["sin/cos"])
        print(f"| {dtype} | {n:.0e} | {us['call']:.2f} us | {us['symgrad']:.2f} us | "
              f"{us['naive hypot']:.2f} us | {us['sympy']:.2f} us | {us['sin/cos']:.2f} us | "
              f"{us['call'] / us['sympy']:.2f} | "
              f"{us['symgrad'] / us['sympy']:.2f} | {us['naive hypot'] / us['sympy']:.2f} | "
              f"{rest:.2f} | {us['floor accurate']:.2f} us | "
              f"{us['floor accurate'] / us['sympy']:.2f} | {us['floor']:.2f} us | "
              f"{us['floor'] / us['sympy']:.2f} |")
    one_point(sg, sp_fn, names)
    if jax is None:
        return
    # JAX: the whole gradient (one fused loop) beside its own sin/cos calls
    # alone, and symgrad's call beside NumPy's sin/cos alone
    def jf(a, b):
        return (jnp.log1p(jnp.exp(a * b)) + jnp.sin(a) * jnp.cos(b)
                + jnp.sqrt(a**2 + b**2) * jnp.tanh(a - b))
    jg = jax.jit(jax.vmap(jax.grad(jf, argnums=(0, 1))))
    jt = jax.jit(lambda a, b: (jnp.sin(a), jnp.cos(a), jnp.sin(b), jnp.cos(b)))

    def run(fn):
        def go(a, b):
            return [v.block_until_ready() for v in fn(a, b)]
        return go
    rows = []
    for dtype in ("float64", "float32"):
        for n in (10**4, 10**5, 10**6):
            a = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
            ja = tuple(jnp.asarray(v) for v in a)
            t = call_by_call({"symgrad": sg, "sin/cos": trig}, {"symgrad": a, "sin/cos": a},
                             1.0)
            t.update(call_by_call({"jax": run(jg), "jax sin/cos": run(jt)},
                                  {"jax": ja, "jax sin/cos": ja}, 1.0))
            rows.append((dtype, n, t))
    print()
    print(f"# JAX {jax.__version__}: the gradient beside its sin/cos calls alone (jit), "
          f"symgrad's call beside NumPy's; load average {loadavg()}")
    print("| dtype | points | symgrad | NumPy sin/cos | symgrad's rest | JAX jit | JAX sin/cos "
          "| JAX's rest | symgrad/JAX |")
    print("|---|---|---|---|---|---|---|---|---|")

    fmt = _short_seconds
    for dtype, n, t in rows:
        print(f"| {dtype} | {n:.0e} | {fmt(t['symgrad'])} | {fmt(t['sin/cos'])} | "
              f"{fmt(t['symgrad'] - t['sin/cos'])} | {fmt(t['jax'])} | {fmt(t['jax sin/cos'])} | "
              f"{fmt(t['jax'] - t['jax sin/cos'])} | {t['symgrad'] / t['jax']:.2f} |")


def short() -> None:
    """Every length from 1 to 32 points, both float types: symgrad's call,
    its short-batch kernel (``f_rows``: the one-point lines in a loop, NumPy's
    lines over the batch first; float64 only) and its array kernel
    (``f_block``) beside SymPy's function, each call timed on its own, in
    turn (10th percentiles); where the entry point changes kernels (its
    ``f_rows`` bound) is the column "runs"."""
    import re

    x, y = sp.symbols("x y")
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    sg = symgrad.lambdify([x, y], symgrad.grad(f, [x, y]), threads=1)
    sp_fn = sp.lambdify([x, y], [sp.diff(f, x), sp.diff(f, y)], "numpy", cse=True)
    names = type(sg).__call__.__globals__
    bound = re.search(r"_shape\[0\] <= (\d+) and _dtype is _D64", sg.source)
    most = int(bound[1]) if bound else 0
    rng = np.random.default_rng(0)
    load0 = loadavg()
    rows = []
    for dtype in ("float64", "float32"):
        for n in (1, 2, 3, 4, 5, 6, 8, 10, 11, 12, 14, 16, 20, 24, 32):
            a = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
            fns = {"symgrad": sg, "sympy": sp_fn, "block": names["f_block"]}
            if dtype == "float64" and "f_rows" in names:
                fns["rows"] = names["f_rows"]
                np.testing.assert_array_equal(fns["rows"](*a), fns["block"](*a))
            rows.append((dtype, n, call_by_call(fns, {k: a for k in fns}, 0.4)))
    clock = "process CPU time" if CLOCK[0] is time.process_time else "wall time"
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  numpy "
          f"{np.__version__}  sympy {sp.__version__}  one thread  10th percentile of single "
          f"calls, interleaved, {clock}  f_rows up to {most} float64 points  "
          f"load average {load0} before, {loadavg()} after")
    print("| dtype | points | runs | symgrad | sympy cse | symgrad/sympy | f_rows | /sympy "
          "| f_block | /sympy |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for dtype, n, t in rows:
        runs = "f_rows" if dtype == "float64" and n <= most else "f_block"
        r = t.get("rows")
        print(f"| {dtype} | {n} | {runs} | {_seconds(t['symgrad'])} | {_seconds(t['sympy'])} | "
              f"{t['symgrad'] / t['sympy']:.2f} | "
              + (f"{_seconds(r)} | {r / t['sympy']:.2f} | " if r else "- | - | ")
              + f"{_seconds(t['block'])} | {t['block'] / t['sympy']:.2f} |")


def aligned() -> None:
    """The entry point as it runs from 2,048 points (outputs and scratch arrays
    starting at a multiple of 64 bytes: ``runtime._outs``, ``runtime._take``)
    beside the same entry point with them 16, 32 and 48 bytes past one (what
    NumPy's own allocations give three times in four), and SymPy's function,
    in one process: each call timed on its own, in turn (10th percentiles).
    The floats are checked the same."""
    import types

    x, y = sp.symbols("x y")
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    sg = symgrad.lambdify([x, y], symgrad.grad(f, [x, y]), threads=1)
    sp_fn = sp.lambdify([x, y], [sp.diff(f, x), sp.diff(f, y)], "numpy", cse=True)
    entry = type(sg).__call__.__globals__["f"]

    def past(off: int):
        def at(base, size):
            return ((-base.ctypes.data % 64) + off) // size

        def outs(k, n, dt):
            size = dt.itemsize
            row = -(-n * size // 64) * (64 // size)
            base = np.empty(k * row + 128 // size, dt)
            s = at(base, size)
            return base[s:s + k * row].reshape(k, row)[:, :n]
        pool: dict = {}

        def take(like, k):
            n, dt = like.shape[-1], like.dtype
            key = (n, dt.char, k)
            if key not in pool:
                bases = [np.empty(n + 128 // dt.itemsize, dt) for _ in range(k)]
                pool[key] = tuple(b[at(b, dt.itemsize):][:n] for b in bases)
            return pool[key]
        names = dict(entry.__globals__, _outs=outs, _take=take, _give=lambda b: None)
        return types.FunctionType(entry.__code__, names, "f", entry.__defaults__)

    rng = np.random.default_rng(0)
    load0 = loadavg()
    rows = []
    for dtype in ("float64", "float32"):
        for n in (2048, 4096, 10**4, 3 * 10**4, 10**5):
            a = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
            fns = {"0": sg, "16": past(16), "32": past(32), "48": past(48), "sympy": sp_fn}
            want = sg(*a)
            for k in ("16", "32", "48"):
                for g, w in zip(fns[k](*a), want):
                    np.testing.assert_array_equal(g, w)
            rows.append((dtype, n, call_by_call(fns, {k: a for k in fns}, 2.0)))
    clock = "process CPU time" if CLOCK[0] is time.process_time else "wall time"
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  numpy "
          f"{np.__version__}  one thread  10th percentile of single calls, interleaved, "
          f"{clock}{HEAP[0]}  load average {load0} before, {loadavg()} after")
    print("| dtype | points | aligned (as made) | +16 B | +32 B | +48 B | sympy cse "
          "| aligned/sympy | +16/sympy | +32/sympy | +48/sympy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for dtype, n, t in rows:
        keys = ("0", "16", "32", "48")
        print(f"| {dtype} | {n} | " + " | ".join(_seconds(t[k]) for k in (*keys, "sympy"))
              + " | " + " | ".join(f"{t[k] / t['sympy']:.2f}" for k in keys) + " |")


def one_point(sg, sp_fn, names: dict) -> None:
    """One point: symgrad's call beside its kernel for that point alone (the
    one-point kernel on Python floats, the NumPy-scalar one on float32
    scalars), the same kernel behind the least dispatch an entry point can
    do (one test of the arguments' type), and SymPy's function; the time of
    a call of a function that does nothing is subtracted from each."""
    kernels = {"float64": names.get("f_point"), "float32": names.get("f_scalar")}
    points = {"float64": (0.3, -0.7), "float32": (np.float32(0.3), np.float32(-0.7))}
    load0 = loadavg()
    rows = []
    for dtype, kernel in kernels.items():
        if kernel is None:
            continue
        kind = float if dtype == "float64" else np.float32

        def least(a, b, kernel=kernel, kind=kind):
            if type(a) is kind and type(b) is kind:
                return list(kernel(a, b))
            return None

        def nothing(a, b):
            return None
        fns = {"call": sg, "kernel": kernel, "least": least, "sympy": sp_fn, "nothing": nothing}
        t = call_by_call(fns, {k: points[dtype] for k in fns}, 1.0)
        rows.append((dtype, {k: (v - t["nothing"]) * 1e6 for k, v in t.items()}))
    print()
    print(f"# one point, net of a call of a function doing nothing; load average {load0} "
          f"before, {loadavg()} after")
    print("| dtype | symgrad call | its kernel alone | the kernel behind one type test "
          "| sympy cse | call/sympy | least/sympy |")
    print("|---|---|---|---|---|---|---|")
    for dtype, us in rows:
        print(f"| {dtype} | {us['call']:.2f} us | {us['kernel']:.2f} us | {us['least']:.2f} us "
              f"| {us['sympy']:.2f} us | {us['call'] / us['sympy']:.2f} "
              f"| {us['least'] / us['sympy']:.2f} |")


def _cis(u: np.ndarray) -> np.ndarray:
    """``exp(i*u)`` as one complex ``np.exp`` in place: real part +0 (exact:
    glibc's ``cexp`` multiplies ``sincos``'s results by ``exp(0) = 1``)."""
    z = np.empty(u.shape, np.complex128 if u.dtype == np.float64 else np.complex64)
    z.real = 0
    z.imag = u
    return np.exp(z, out=z)


def sincos(mx: int) -> None:
    """sin and cos of one argument by one complex ``np.exp`` (``_cis``) beside
    ``np.sin`` and ``np.cos``: (1) bitwise, on 2*10^6 random bit patterns of
    each type (every exponent: subnormals, huge arguments, infinities, NaN)
    and the floats at and beside 4*10^5 multiples of pi/2 and 10^6 normal
    draws of four scales, with +-0, +-inf, NaN; (2) the time of each, alone
    and as the quickstart gradient uses them (``cos(x)*cos(y)``,
    ``sin(x)*sin(y)``: the complex one's parts are strided views), from 10
    points to ``mx``, p10 of single calls in turn."""
    rng = np.random.default_rng(1)
    load0 = loadavg()
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  numpy "
          f"{np.__version__}  one thread  load average {load0}")
    print("| dtype | arguments | finite | re != np.cos (finite) | im != np.sin (finite) "
          "| non-finite | differing in a bit there |")
    print("|---|---|---|---|---|---|---|")
    for dt in (np.float64, np.float32):
        fi = np.finfo(dt)
        uint = np.uint64 if dt == np.float64 else np.uint32
        bits = rng.integers(0, np.iinfo(uint).max, size=2 * 10**6, dtype=uint, endpoint=True)
        k = (np.arange(-2 * 10**5, 2 * 10**5) * (np.pi / 2)).astype(dt)
        u = np.concatenate([
            bits.view(dt), k, np.nextafter(k, dt(np.inf)), np.nextafter(k, dt(-np.inf)),
            (rng.standard_normal(10**6) * rng.choice([1, 10, 1e3, 1e6], 10**6)).astype(dt),
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.tiny, -fi.smallest_subnormal,
                      fi.max, -fi.max], dt)])
        with np.errstate(all="ignore"):
            z, s, c = _cis(u), np.sin(u), np.cos(u)
        fin = np.isfinite(u)
        re = z.real.copy().view(uint) != c.view(uint)
        im = z.imag.copy().view(uint) != s.view(uint)
        print(f"| {dt.__name__} | {u.size} | {int(fin.sum())} | {int((re & fin).sum())} | "
              f"{int((im & fin).sum())} | {int((~fin).sum())} | "
              f"{int(((re | im) & ~fin).sum())} |")

    def two(u, v):
        return np.multiply(np.cos(u), np.cos(v)), np.multiply(np.sin(u), np.sin(v))

    def one(u, v):
        a, b = _cis(u), _cis(v)
        return np.multiply(a.real, b.real), np.multiply(a.imag, b.imag)

    def nothing(u, v):
        return None
    rows = []
    for dt in (np.float64, np.float32):
        n = 10
        while n <= mx:
            a = (rng.standard_normal(n).astype(dt), rng.standard_normal(n).astype(dt))
            fns = {"sin, cos": lambda u, v: (np.sin(u), np.cos(u)),
                   "complex exp": lambda u, v: _cis(u), "two": two, "one": one,
                   "nothing": nothing}
            t = call_by_call(fns, {k: a for k in fns}, 2.0 if n >= 10**6 else 0.6)
            rows.append((dt.__name__, n, {k: v - t["nothing"] for k, v in t.items()}))
            n *= 10
    print()
    clock = "process CPU" if CLOCK[0] is time.process_time else "wall"
    print(f"# p10 of single calls in turn, {clock} time, net of a call doing nothing; "
          f"load average {load0} before, {loadavg()} after")
    print("| dtype | points | np.sin + np.cos | one complex exp | ratio | ns an element, two calls "
          "| one | cos(x)cos(y), sin(x)sin(y) by four calls | by two complex exps | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")

    fmt = _seconds
    for dt, n, t in rows:
        print(f"| {dt} | {n:.0e} | {fmt(t['sin, cos'])} | {fmt(t['complex exp'])} | "
              f"{t['complex exp'] / t['sin, cos']:.2f} | {t['sin, cos'] * 1e9 / n:.1f} | "
              f"{t['complex exp'] * 1e9 / n:.1f} | {fmt(t['two'])} | {fmt(t['one'])} | "
              f"{t['one'] / t['two']:.2f} |")


def packed_full(hyp):
    """The gradient with every group of same-operation calls that can share
    one call packed into it (superword parallelism by hand): sin and cos of
    the stacked arguments, the two products of sines and of cosines, the two
    sums with ``t2``, the four products of ``x``/``y`` with ``t3``/``t6`` and
    the last two sums, each one call over a stacked array; every value
    computed by the same operation on the same operands as ``f_block``, in
    the same order (bitwise the same)."""
    m, a, s, d = np.multiply, np.add, np.subtract, np.divide

    def kernel(x, y):
        n = x.shape[0]
        one = x.dtype.type(1)
        z = np.empty((2, n), x.dtype)
        z[0] = x
        z[1] = y
        t0 = np.tanh(s(x, y))
        t1 = hyp(x, y)
        t2 = m(s(one, np.square(t0)), t1)
        t = np.empty((2, n), x.dtype)
        d(t0, t1, t[0])
        t4 = np.exp(m(x, y))
        d(t4, a(one, t4), t[1])
        sc = np.empty((2, 2, n), x.dtype)
        np.cos(z, sc[0])
        np.sin(z, sc[1])
        p = m(sc[:, 0], sc[:, 1])  # [cos x cos y, sin x sin y]
        a(t2, p, p)  # [t2 + cos x cos y, t2 + sin x sin y]
        q = m(z[:, None], t)  # [[x t3, x t6], [y t3, y t6]]
        r = np.empty((2, n), x.dtype)
        a(p[0], q[0, 0], r[0])
        s(q[0, 1], p[1], r[1])
        a(r, q[1, ::-1], r)
        return (r[0], r[1])
    return kernel


def packed_trig(hyp):
    """The gradient with only sin and cos packed: each of them one call over
    the arguments concatenated, the products over the halves (bitwise
    ``f_block``'s)."""
    m, a, s, d = np.multiply, np.add, np.subtract, np.divide

    def kernel(x, y):
        n = x.shape[0]
        one = x.dtype.type(1)
        z = np.concatenate((x, y))
        sn = np.sin(z)
        cs = np.cos(z)
        t0 = np.tanh(s(x, y))
        t1 = hyp(x, y)
        t2 = m(s(one, np.square(t0)), t1)
        t3 = d(t0, t1)
        t4 = np.exp(m(x, y))
        t6 = d(t4, a(one, t4))
        return (a(a(a(t2, m(cs[:n], cs[n:])), m(x, t3)), m(y, t6)),
                a(s(m(x, t6), a(t2, m(sn[:n], sn[n:]))), m(y, t3)))
    return kernel


def packing() -> None:
    """Issue 20 §6's idea for the per-call cells: where each ufunc call's
    fixed cost dominates (10 to 10^3 points), make one call of two same-
    operation calls over a stacked array.  Two packings of the gradient,
    written by hand and checked bitwise against symgrad's array kernel
    (``f_block``) at every size, beside it and SymPy; then what a packing
    pays for its saved calls, each part alone at 100 points."""
    x, y = sp.symbols("x y")
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    sg = symgrad.lambdify([x, y], symgrad.grad(f, [x, y]), threads=1)
    sp_fn = sp.lambdify([x, y], [sp.diff(f, x), sp.diff(f, y)], "numpy", cse=True)
    names = type(sg).__call__.__globals__
    block = names["f_block"]
    fns = {"sympy": sp_fn, "block": block, "full": packed_full(names["_hypot"]),
           "trig": packed_trig(names["_hypot"])}
    rng = np.random.default_rng(0)
    load0 = loadavg()
    rows = []
    for dtype in ("float64", "float32"):
        for n in (10, 100, 1000, 10**4):
            a = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
            want = block(*a)
            for k in ("full", "trig"):
                for g, w in zip(fns[k](*a), want):
                    assert g.dtype == w.dtype and g.tobytes() == w.tobytes(), (k, dtype, n)
            rows.append((dtype, n, call_by_call(fns, {k: a for k in fns}, 0.4)))
    v, w = rng.standard_normal(100), rng.standard_normal(100)
    vw, out, out2 = np.stack((v, w)), np.empty(100), np.empty((2, 100))
    parts = {
        "sin of 100": (np.sin, (v, out)),
        "sin of 2 x 100 (stacked)": (np.sin, (vw, out2)),
        "multiply 100 by 100": (np.multiply, (v, w, out)),
        "multiply 2 x 100 by 2 x 100": (np.multiply, (vw, vw, out2)),
        "multiply 2 x 100 by 100 (broadcast)": (np.multiply, (vw, v, out2)),
        "concatenate two of 100": (lambda p, q: np.concatenate((p, q)), (v, w)),
        "empty 2 x 100": (lambda: np.empty((2, 100)), ()),
        "a row of 2 x 100 (vw[0])": (vw.__getitem__, (0,)),
        "a slice (vw[0, :50])": (vw.__getitem__, ((0, slice(0, 50)),)),
        "nothing (the clock's own cost)": (lambda: None, ()),
    }
    part = call_by_call({k: p[0] for k, p in parts.items()}, {k: p[1] for k, p in parts.items()},
                        1.0)
    clock = "process CPU time" if CLOCK[0] is time.process_time else "wall time"
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  numpy "
          f"{np.__version__}  sympy {sp.__version__}  one thread  10th percentile of single "
          f"calls, interleaved, {clock}{HEAP[0]}  load average {load0} before, "
          f"{loadavg()} after")
    print("| dtype | points | sympy cse | f_block | /sympy | packed, all | /sympy "
          "| packed, sin and cos | /sympy |")
    print("|---|---|---|---|---|---|---|---|---|")
    for dtype, n, t in rows:
        print(f"| {dtype} | {n:.0e} | {_seconds(t['sympy'])} | {_seconds(t['block'])} | "
              f"{t['block'] / t['sympy']:.2f} | {_seconds(t['full'])} | "
              f"{t['full'] / t['sympy']:.2f} | {_seconds(t['trig'])} | "
              f"{t['trig'] / t['sympy']:.2f} |")
    print()
    print("| part, float64, alone | time (clock's cost included) |")
    print("|---|---|")
    for k, t in part.items():
        print(f"| {k} | {t * 1e9:.0f} ns |")
    # one float32 point (no packing there: what its time is made of)
    p, q = np.float32(0.3), np.float32(-0.7)
    hyp = names["_hypot"]
    one = {
        "symgrad's call": (sg, (p, q)),
        "its kernel alone (f_scalar)": (names["f_scalar"], (p, q)),
        "sympy cse": (sp_fn, (p, q)),
        "symgrad's hypot": (hyp, (p, q)),
        "sqrt(a**2 + b**2) (SymPy's)": (lambda c, e: np.sqrt(c**2 + e**2), (p, q)),
        "np.sin of a float32 scalar": (np.sin, (p,)),
        "nothing (the clock's own cost)": (lambda: None, ()),
    }
    t = call_by_call({k: v[0] for k, v in one.items()}, {k: v[1] for k, v in one.items()}, 1.0)
    print()
    print("| one float32 point | time (clock's cost included) |")
    print("|---|---|")
    for k, v in t.items():
        print(f"| {k} | {v * 1e9:.0f} ns |")


def operations(repeat: int) -> None:
    """Each operation of the gradient alone at 10^6 points, NumPy beside JAX's
    jit (one thread both), and the whole gradient as JAX fuses it: where
    JAX's time goes and where NumPy's does."""
    if jax is None:
        raise SystemExit("JAX is not installed")
    rng = np.random.default_rng(0)
    load0 = loadavg()
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  numpy "
          f"{np.__version__}  jax {jax.__version__}  one thread  10^6 points  "
          f"load average {load0}")
    print("| dtype | operation | NumPy ms | JAX jit ms | NumPy/JAX |")
    print("|---|---|---|---|---|")
    ops = {
        "sin": (np.sin, jnp.sin), "cos": (np.cos, jnp.cos), "exp": (np.exp, jnp.exp),
        "tanh": (np.tanh, jnp.tanh), "sqrt": (np.sqrt, jnp.sqrt),
        "a*b": (np.multiply, jnp.multiply), "a/b": (np.divide, jnp.divide),
        "a+b": (np.add, jnp.add), "hypot": (np.hypot, jnp.hypot),
    }
    binary = {"a*b", "a/b", "a+b", "hypot"}
    for dtype in ("float64", "float32"):
        a = rng.standard_normal(10**6).astype(dtype)
        b = rng.standard_normal(10**6).astype(dtype)
        a = np.abs(a)  # (sqrt)
        ja, jb = jnp.asarray(a), jnp.asarray(b)
        for name, (npf, jf) in ops.items():
            jitted = jax.jit(jf)

            def run_jax(*v, j=jitted):
                return j(*v).block_until_ready()
            two = name in binary
            args = {"np": (a, b) if two else (a,), "jax": (ja, jb) if two else (ja,)}
            run_jax(*args["jax"])
            t = interleaved({"np": npf, "jax": run_jax}, args, repeat)
            print(f"| {dtype} | {name} | {t['np'] * 1e3:.2f} | {t['jax'] * 1e3:.2f} | "
                  f"{t['np'] / t['jax']:.2f} |")


if __name__ == "__main__":
    main()
