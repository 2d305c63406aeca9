"""What a compiled loop over the points would give issue 20 §6's open cells:
the quickstart gradient written in C by hand (one loop, no temporaries),
called through ctypes, beside symgrad's call and ``sympy.lambdify(cse=True)``.

Run:  python benchmarks/bench_cloop.py [--cpu] [--heap] [--max 1e5]   (needs gcc)

symgrad's code generation makes one NumPy call per operation; at 10 to 10^3
points each call's fixed cost (about 0.27 us) bounds it, and at 10^3 to 10^5
float64 points its passes over memory beside glibc's sine and cosine
(docs/performance.md, "Evaluation at every size, session 16").  This
benchmark measures the other kind of kernel, one loop over the points, on the
same formula, with the same floats: every value is the same operation on the
same operands in the same order as symgrad's array kernel ``f_block``
(checked bitwise at every size), because

* float64 ``sin``, ``cos`` and ``sqrt`` of NumPy are glibc's, which the C
  code calls (``sincos`` too: glibc computes it by the same code as ``sin``
  and ``cos``; checked bitwise here, not assumed), and its arithmetic is
  compiled with ``-O2 -fno-fast-math -ffp-contract=off`` (no fused
  multiply-add, no reordering; x86-64's SSE has no excess precision);
* NumPy's ``tanh`` and ``exp`` (float64) and its float32 ``sin``, ``cos``,
  ``tanh`` and ``exp`` are NumPy's own SIMD code, not glibc's, so the loop
  takes them as arrays NumPy made first (as symgrad's short-batch kernel
  ``f_rows`` does);
* the hypot is symgrad's rule (``runtime._hypot``): the square root of the
  sum of squares where that sum is in its range, else the call returns and
  NumPy's kernel runs.

The pointers that ctypes needs cost about 1.2 us each (``ndarray.ctypes``),
so the table also gives the call's parts: the NumPy calls alone and the C
loop alone (pointers made before), their sum being what an extension module
(no ctypes) would come near.  Not code for the library: a measurement of the
route."""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import ctypes  # noqa: E402
import datetime  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import symgrad  # noqa: E402
from symgrad.codegen import runtime  # noqa: E402

C_SOURCE = r"""
#define _GNU_SOURCE
#include <math.h>

/* float64: tanh(x - y) and exp(x*y) come in as NumPy's arrays; f_point's
   order of operations; returns the index of the first point outside the
   hypot rule's range (n: every point done). */
long grad64(long n, const double *x, const double *y, const double *th,
            const double *ex, double *o0, double *o1, double low, double high,
            int both) {
    for (long i = 0; i < n; i++) {
        double a = x[i], b = y[i], t0 = th[i];
        double s = a * a + b * b;
        if (!(s >= low && s <= high)) return i;
        double t1 = sqrt(s);
        double t2 = (1 - t0 * t0) * t1;
        double t3 = t0 / t1;
        double t4 = ex[i];
        double t5 = 1 + t4;
        double t6 = t4 / t5;
        double sa, ca, sb, cb;
        if (both) { sincos(a, &sa, &ca); sincos(b, &sb, &cb); }
        else { sa = sin(a); ca = cos(a); sb = sin(b); cb = cos(b); }
        o0[i] = t2 + ca * cb + a * t3 + b * t6;
        o1[i] = a * t6 - (t2 + sa * sb) + b * t3;
    }
    return n;
}

/* float32: NumPy's sin, cos, tanh and exp as arrays; float arithmetic. */
long grad32(long n, const float *x, const float *y, const float *th,
            const float *ex, const float *sx, const float *cx, const float *sy,
            const float *cy, float *o0, float *o1, float low, float high) {
    for (long i = 0; i < n; i++) {
        float a = x[i], b = y[i], t0 = th[i];
        float s = a * a + b * b;
        if (!(s >= low && s <= high)) return i;
        float t1 = sqrtf(s);
        float t2 = (1.0f - t0 * t0) * t1;
        float t3 = t0 / t1;
        float t4 = ex[i];
        float t5 = 1.0f + t4;
        float t6 = t4 / t5;
        o0[i] = t2 + cx[i] * cy[i] + a * t3 + b * t6;
        o1[i] = a * t6 - (t2 + sx[i] * sy[i]) + b * t3;
    }
    return n;
}
"""

CLOCK = [time.perf_counter]


def loadavg() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def heap() -> str:
    """glibc malloc's thresholds fixed (mmap at 32 MB, trim at 256 MB), as
    ``bench_eval.py --heap`` does: SymPy's temporaries from the heap, with no
    page faults that depend on the process's history."""
    import ctypes.util
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    ok = libc.mallopt(-3, 32 << 20) == 1 and libc.mallopt(-1, 256 << 20) == 1
    return "  glibc malloc: mmap threshold 32 MB, trim threshold 256 MB" if ok else ""


def build(where: str):
    """The C source compiled into a shared library in ``where``, loaded."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        raise SystemExit("no C compiler (gcc or cc) on PATH")
    src, lib = os.path.join(where, "cloop.c"), os.path.join(where, "cloop.so")
    with open(src, "w") as f:
        f.write(C_SOURCE)
    subprocess.run([gcc, "-O2", "-fno-fast-math", "-ffp-contract=off", "-fPIC", "-shared",
                    "-o", lib, src, "-lm"], check=True)
    so = ctypes.CDLL(lib)
    p, d, f32 = ctypes.c_void_p, ctypes.c_double, ctypes.c_float
    so.grad64.argtypes = [ctypes.c_long] + [p] * 6 + [d, d, ctypes.c_int]
    so.grad32.argtypes = [ctypes.c_long] + [p] * 10 + [f32, f32]
    so.grad64.restype = so.grad32.restype = ctypes.c_long
    return so


def kernels(so, block):
    """The C loop's calls for each type: NumPy's lines first, then the loop;
    NumPy's array kernel where a point is outside the hypot rule's range."""
    low64, high64 = runtime._LOW64, runtime._MAX64
    low32 = float(runtime._hypot_low(np.float32))
    high32 = float(np.finfo(np.float32).max)
    g64, g32 = so.grad64, so.grad32

    def c64(x, y, both=1):
        n = x.shape[0]
        th = np.tanh(np.subtract(x, y))
        ex = np.exp(np.multiply(x, y))
        o = np.empty((2, n))
        oa = o.ctypes.data
        if g64(n, x.ctypes.data, y.ctypes.data, th.ctypes.data, ex.ctypes.data, oa,
               oa + 8 * n, low64, high64, both) != n:
            return block(x, y)
        return (o[0], o[1])

    def c32(x, y):
        n = x.shape[0]
        th = np.tanh(np.subtract(x, y))
        ex = np.exp(np.multiply(x, y))
        sx, cx, sy, cy = np.sin(x), np.cos(x), np.sin(y), np.cos(y)
        o = np.empty((2, n), np.float32)
        oa = o.ctypes.data
        if g32(n, x.ctypes.data, y.ctypes.data, th.ctypes.data, ex.ctypes.data, sx.ctypes.data,
               cx.ctypes.data, sy.ctypes.data, cy.ctypes.data, oa, oa + 4 * n, low32,
               high32) != n:
            return block(x, y)
        return (o[0], o[1])

    def parts(x, y):
        """(the NumPy calls alone, the loop alone with its pointers made
        before) for these arguments."""
        n = x.shape[0]
        if x.dtype == np.float64:
            arrays = (x, y, np.tanh(x - y), np.exp(x * y))
            o = np.empty((2, n))
            ptr = [v.ctypes.data for v in arrays] + [o.ctypes.data, o.ctypes.data + 8 * n]

            def lines():
                np.tanh(np.subtract(x, y))
                np.exp(np.multiply(x, y))
                np.empty((2, n))

            # (the arrays kept alive with the pointers: the loop writes into o)
            return lines, lambda keep=(arrays, o): g64(n, *ptr, low64, high64, 1)
        arrays = (x, y, np.tanh(x - y), np.exp(x * y), np.sin(x), np.cos(x), np.sin(y), np.cos(y))
        o = np.empty((2, n), np.float32)
        ptr = [v.ctypes.data for v in arrays] + [o.ctypes.data, o.ctypes.data + 4 * n]

        def lines32():
            np.tanh(np.subtract(x, y))
            np.exp(np.multiply(x, y))
            np.sin(x), np.cos(x), np.sin(y), np.cos(y)
            np.empty((2, n), np.float32)

        return lines32, lambda keep=(arrays, o): g32(n, *ptr, low32, high32)

    return c64, c32, parts


def single_calls(fns: dict, budget: float) -> dict:
    """Each function's 10th percentile of single calls, called in turn."""
    pc = CLOCK[0]
    t = pc()
    for f in fns.values():
        f()
    one = max(pc() - t, 1e-6)
    n = max(7, min(20000, int(budget / one)))
    times: dict = {k: [] for k in fns}
    for _ in range(n):
        for k, f in fns.items():
            t = pc()
            f()
            times[k].append(pc() - t)
    return {k: sorted(v)[len(v) // 10] for k, v in times.items()}


def us(v: float) -> str:
    return f"{v * 1e6:.2f} us" if v < 1e-3 else f"{v * 1e3:.3f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpu", action="store_true", help="process CPU time, not wall time")
    ap.add_argument("--max", type=float, default=1e5, help="largest number of points")
    ap.add_argument("--heap", action="store_true", help="fix glibc malloc's thresholds first")
    opt = ap.parse_args()
    if opt.cpu:
        CLOCK[0] = time.process_time
    fixed = heap() if opt.heap else ""
    x, y = sp.symbols("x y")
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
    sg = symgrad.lambdify([x, y], symgrad.grad(f, [x, y]), threads=1)
    sp_fn = sp.lambdify([x, y], [sp.diff(f, x), sp.diff(f, y)], "numpy", cse=True)
    block = type(sg).__call__.__globals__["f_block"]
    rng = np.random.default_rng(0)
    load0 = loadavg()
    rows = []
    with tempfile.TemporaryDirectory() as where:
        c64, c32, parts = kernels(build(where), block)
        # bitwise: moderate values, and magnitudes over much of the range
        # (points outside the hypot rule's range send the call to f_block)
        for dtype, fn in (("float64", c64), ("float32", c32)):
            for scale in (1.0, 1e3, 1e-3, 1e15, 1e-15):
                a = (rng.standard_normal(4096) * scale).astype(dtype)
                b = (rng.standard_normal(4096) * scale).astype(dtype)
                with np.errstate(all="ignore"):
                    want = block(a, b)
                    gots = [fn(a, b)] + ([fn(a, b, 0)] if dtype == "float64" else [])
                for got in gots:
                    for g, w in zip(got, want):
                        assert g.dtype == w.dtype and g.tobytes() == w.tobytes(), (dtype, scale)
        sizes = [n for n in (10, 100, 1000, 10**4, 10**5, 10**6) if n <= opt.max]
        for dtype in ("float64", "float32"):
            for n in sizes:
                a = rng.standard_normal(n).astype(dtype)
                b = rng.standard_normal(n).astype(dtype)
                fns = {"sympy": lambda a=a, b=b: sp_fn(a, b), "symgrad": lambda a=a, b=b: sg(a, b)}
                if dtype == "float64":
                    fns["c"] = lambda a=a, b=b: c64(a, b)
                    fns["c, sin and cos"] = lambda a=a, b=b: c64(a, b, 0)
                else:
                    fns["c"] = lambda a=a, b=b: c32(a, b)
                lines, loop = parts(a, b)
                fns["numpy lines"], fns["loop"] = lines, loop
                fns["nothing"] = lambda: None
                rows.append((dtype, n, single_calls(fns, 2.0 if n >= 10**5 else 0.5)))
    clock = "process CPU time" if opt.cpu else "wall time"
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  numpy "
          f"{np.__version__}  sympy {sp.__version__}  one thread  10th percentile of single "
          f"calls, interleaved, {clock} (each figure includes the clock's own cost, the "
          f"last column){fixed}  load average {load0} before, {loadavg()} after")
    print("| dtype | points | sympy cse | symgrad | /sympy | C loop, ctypes | /sympy "
          "| C loop with sin, cos | /sympy | NumPy lines alone | loop alone "
          "| lines + loop | /sympy | the clock |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for dtype, n, t in rows:
        z = t["nothing"]
        both = t["numpy lines"] + t["loop"] - z
        sc = t.get("c, sin and cos")
        print(f"| {dtype} | {n:.0e} | {us(t['sympy'])} | {us(t['symgrad'])} | "
              f"{t['symgrad'] / t['sympy']:.2f} | {us(t['c'])} | {t['c'] / t['sympy']:.2f} | "
              + (f"{us(sc)} | {sc / t['sympy']:.2f} | " if sc else "- | - | ")
              + f"{us(t['numpy lines'])} | {us(t['loop'])} | {us(both)} | "
              f"{both / t['sympy']:.2f} | {us(z)} |")


if __name__ == "__main__":
    main()
