"""Exported gradients beside the frameworks' own: speed at 10^6 points and
accuracy in bits.

For each formula: ``jax.grad`` of ``symgrad.to_jax(f, stabilize=True)``
under ``jax.jit``, against JAX's own autodiff of the same formula written in
``jax.numpy`` (and of the library function where JAX has one: ``jax.nn``,
``jax.scipy.special``); the same in PyTorch (``to_torch`` against autograd
of the ``torch`` formula and of ``torch.nn.functional`` / ``torch.special``).
Both exports are measured: as derived, and with ``stabilize=True``
(``symgrad.stabilize``'s choice over the domain for each derivative order).
Speed: the median CPU time (the process's, every thread: XLA's and PyTorch's
kernels run single-threaded) of 15 rounds (at least 3 within 30 s), each
running every implementation of the formula in turn (each round starting at
the next one), of the gradient of 10^6 float64 points (after a warm-up that
compiles): on this shared machine wall time moved 2x between rounds of the
same kernel at load 5-7, CPU time much less (the median, not the least: one
round of JAX's own GELU gradient was counted 0.2 ms of CPU where every other
took 3.7-3.9, at load 16).  Two
sets: uniform over the domain, and typical inputs (normal(0, 3)), where no
exponential is subnormal (libm's slow path).  Accuracy: bits lost against
the exact derivative (symgrad's GroundTruth, arbitrary precision) at 2000
points drawn over the whole float range of the domain, 1000 uniform over it
and 1000 normal(0, 3) (max/mean); for JAX,
those where neither the input nor the exact value is subnormal (XLA on CPU
flushes subnormals to zero: every JAX gradient loses all its bits there).

Run:  python benchmarks/bench_export.py [--jax] [--torch] [--order 2] [--float32]
[--compile] [words]
(words: only the formulas whose name holds one; ``--jax`` / ``--torch``: that
framework's implementations only; ``--order 2``: the second derivative, each
implementation differentiated twice (``jax.grad`` of ``jax.grad``, PyTorch's
double backward), bits against the exact second derivative; ``--float32``:
float32 points (the exports choose ``stabilize``'s float32 forms), bits in
float32; ``--compile``:
two more PyTorch rows, ``to_torch(..., compile=True)`` and autograd of
``torch.compile`` of the torch formula, each compiled by its first call,
before the rounds: about 5 s to several minutes of compiling per formula)
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

import datetime  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
import torch  # noqa: E402

import symgrad  # noqa: E402
from symgrad.stability.bits import FORMATS, bits_error  # noqa: E402
from symgrad.stability.sampling import sample  # noqa: E402
from symgrad.stability.truth import GroundTruth  # noqa: E402

jax.config.update("jax_enable_x64", True)
torch.set_num_threads(1)
x = sp.Symbol("x", real=True)
N = 10**6
ROUNDS = 15
BUDGET = 30.0  # seconds of rounds per formula and point set, after at least 3
FMT = FORMATS["float64"]
COMPILE = False  # --compile: also to_torch(compile=True) and torch.compile of the formula
_C = sp.sqrt(2 / sp.pi)
# Python floats in the frameworks' formulas: a NumPy float64 scalar is not weakly
# typed in JAX, so ``v / _R2`` would compute a float32 input in float64
_R2 = float(np.sqrt(2))
_R2PI = float(np.sqrt(2 / np.pi))
ORDER = 1  # --order 2: the second derivative (each framework's own differentiated twice)
DTYPE = "float64"  # --float32: float32 points (stabilize's float32 forms, bits in float32)

def _named(fn, label: str):
    fn.label = label
    return fn


# name, formula, domain, (jnp formula, JAX library), (torch formula, torch library)
CASES = [
    ("softplus log(1+e^x)", sp.log(1 + sp.exp(x)), (-745.0, 745.0),
     (lambda v: jnp.log(1 + jnp.exp(v)), jax.nn.softplus),
     (lambda v: torch.log(1 + torch.exp(v)), torch.nn.functional.softplus)),
    ("sigmoid e^x/(1+e^x)", sp.exp(x) / (1 + sp.exp(x)), (-745.0, 745.0),
     (lambda v: jnp.exp(v) / (1 + jnp.exp(v)), jax.nn.sigmoid),
     (lambda v: torch.exp(v) / (1 + torch.exp(v)), torch.sigmoid)),
    # SiLU: its stabilized gradient's term e^x is subnormal where the gradient is
    # not (x in (-715.6, -708.4)): XLA flushed it until 2026-11-28 (43.5 bits)
    ("silu x/(1+e^-x)", x / (1 + sp.exp(-x)), (-745.0, 745.0),
     (lambda v: v / (1 + jnp.exp(-v)), jax.nn.silu),
     (lambda v: v / (1 + torch.exp(-v)), torch.nn.functional.silu)),
    ("log Phi(x) (log_ndtr)", sp.log(sp.erfc(-x / sp.sqrt(2)) / 2), (-30.0, 30.0),
     (lambda v: jnp.log(jax.scipy.special.erfc(-v / _R2) / 2),
      jax.scipy.special.log_ndtr),
     (lambda v: torch.log(torch.special.erfc(-v / _R2) / 2), torch.special.log_ndtr)),
    # stabilize's gradient form is compensated(...) (pairs of floats, exported)
    ("gelu tanh", x / 2 * (1 + sp.tanh(_C * (x + sp.Rational(44715, 10**6) * x**3))),
     (-1e4, 1e4),
     (lambda v: v / 2 * (1 + jnp.tanh(_R2PI * (v + 0.044715 * v**3))),
      _named(lambda v: jax.nn.gelu(v, approximate=True), "jax.nn.gelu(approximate=True)")),
     (lambda v: v / 2 * (1 + torch.tanh(_R2PI * (v + 0.044715 * v**3))),
      _named(lambda v: torch.nn.functional.gelu(v, approximate="tanh"),
             "torch gelu(approximate='tanh')"))),
    ("gelu erf", x / 2 * (1 + sp.erf(x / sp.sqrt(2))), (-1e4, 1e4),
     (lambda v: v / 2 * (1 + jax.scipy.special.erf(v / _R2)),
      _named(lambda v: jax.nn.gelu(v, approximate=False), "jax.nn.gelu(approximate=False)")),
     (lambda v: v / 2 * (1 + torch.erf(v / _R2)),
      _named(lambda v: torch.nn.functional.gelu(v), "torch gelu"))),
    ("mish", x * sp.tanh(sp.log(1 + sp.exp(x))), (-1000.0, 1000.0),
     (lambda v: v * jnp.tanh(jnp.log(1 + jnp.exp(v))), jax.nn.mish),
     (lambda v: v * torch.tanh(torch.log(1 + torch.exp(v))), torch.nn.functional.mish)),
    ("x tanh(x) + sin(x)^2", x * sp.tanh(x) + sp.sin(x) ** 2, (-100.0, 100.0),
     (lambda v: v * jnp.tanh(v) + jnp.sin(v) ** 2, None),
     (lambda v: v * torch.tanh(v) + torch.sin(v) ** 2, None)),
]


def _best_times(fns: list, rounds: int = ROUNDS) -> list[float]:
    """The median CPU time of each of ``fns`` over ``rounds`` rounds that run them
    in turn (after a warm-up that compiles): on a shared machine the load
    changes within seconds, and running the implementations one after the
    other would give each a different share of the core.  Each round starts
    at the next implementation: the first of a round runs after the
    previous round's last, whose freed arrays and cache state it inherits
    (measured: the same JAX kernel took 2.9 ms second in a round and 7.3 ms
    first).  Each call's time is CPU seconds of the process (wall time
    includes the other jobs' share of the cores)."""
    for fn in fns:
        fn()
    ts: list[list[float]] = [[] for _ in fns]
    n = len(fns)
    start = time.perf_counter()
    for r in range(rounds):
        if r >= 3 and time.perf_counter() - start > BUDGET:  # a form taking seconds
            break
        for k in [(r + i) % n for i in range(n)]:
            t = time.process_time()
            fns[k]()
            ts[k].append(time.process_time() - t)
    return [float(np.median(t)) for t in ts]


def _jax_grad(f, order: int | None = None):
    """The ORDER-th derivative of the elementwise ``f``, jitted."""
    for _ in range(ORDER if order is None else order):
        f = (lambda h: jax.grad(lambda v: jnp.sum(h(v))))(f)
    g = jax.jit(f)
    return lambda v: g(v)


def _torch_grad(f, order: int | None = None):
    """The ORDER-th derivative of the elementwise ``f`` by autograd (double
    backward for the second)."""
    order = ORDER if order is None else order

    def g(v):
        t = torch.from_numpy(v).requires_grad_(True)
        y = f(t)
        for k in range(order):
            if not y.requires_grad:  # a derivative that no longer depends on t
                return np.zeros_like(v)
            (y,) = torch.autograd.grad(y.sum(), t, create_graph=k < order - 1)
        return y.detach().numpy()
    return g


def _bits(values: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    b = bits_error(np.asarray(values, dtype=np.float64), truth, FORMATS[DTYPE])
    return float(np.nanmax(b)), float(np.nanmean(b))


def run(only: list[str] | None = None, frameworks: tuple = ("JAX", "PyTorch")) -> list[tuple]:
    """The rows of the cases whose name contains one of ``only`` (all if none)."""
    rng = np.random.default_rng(0)
    rows = []
    for name, e, dom, (jf, jlib), (tf, tlib) in CASES:
        if only and not any(w in name for w in only):
            continue
        d = {x: dom}
        # the float range of the domain (every binade), and dense where inputs are:
        # uniform over the domain and normal(0, 3) (PyTorch's softplus returns x past
        # x = 20, 17.7 bits off at 21: the binades' 2000 points seldom land there)
        pts = np.concatenate([sample(d, [x], 2000, FORMATS[DTYPE], 0)[:, 0],
                              np.random.default_rng(1).uniform(dom[0], dom[1], 1000),
                              np.clip(np.random.default_rng(2).normal(0.0, 3.0, 1000), *dom)])
        pts = pts.astype(DTYPE)  # the exact derivative at the points as rounded
        truth = GroundTruth([sp.diff(e, x, ORDER)], [x]).batch(
            pts.astype(np.float64)[:, None])[0][0]
        big = rng.uniform(dom[0], dom[1], N).astype(DTYPE)
        # typical inputs of an activation: exp(x) and its kind stay normal there
        # (over the whole range, libm's exp and log1p take a slow path for each
        # subnormal result: about 400 ns a value against 1-2)
        typical = np.clip(rng.normal(0.0, 3.0, N), dom[0], dom[1]).astype(DTYPE)
        impl = []
        if "JAX" in frameworks:
            fj = symgrad.to_jax(e, [x], stabilize=True, domain=d)
            impl += [("JAX", "symgrad to_jax, stabilize=True", _jax_grad(fj)),
                     ("JAX", "symgrad to_jax", _jax_grad(symgrad.to_jax(e, [x]))),
                     ("JAX", "jax.numpy autodiff", _jax_grad(jf))]
            if jlib is not None:
                impl.append(("JAX", getattr(jlib, "label", None)
                             or f"{jlib.__module__.split('._src')[0]}.{jlib.__name__}",
                             _jax_grad(jlib)))
        if "PyTorch" in frameworks:
            ft = symgrad.to_torch(e, [x], stabilize=True, domain=d)
            impl += [("PyTorch", "symgrad to_torch, stabilize=True", _torch_grad(ft)),
                     ("PyTorch", "symgrad to_torch", _torch_grad(symgrad.to_torch(e, [x]))),
                     ("PyTorch", "torch autograd", _torch_grad(tf))]
            if COMPILE:  # each program compiled by torch.compile (the first call compiles)
                fc = symgrad.to_torch(e, [x], stabilize=True, domain=d, compile=True)
                impl += [("PyTorch", "to_torch, stabilize=True, compile=True", _torch_grad(fc)),
                         ("PyTorch", "torch autograd of torch.compile(formula)",
                          _torch_grad(torch.compile(tf)))]
            if tlib is not None:
                impl.append(("PyTorch", getattr(tlib, "label", None)
                             or f"torch {tlib.__name__}", _torch_grad(tlib)))
        with np.errstate(all="ignore"):
            times = _best_times([lambda g=g, big=big: np.asarray(g(big)) for _, _, g in impl])
            usual = _best_times([lambda g=g, v=typical: np.asarray(g(v)) for _, _, g in impl])
        # XLA on CPU flushes subnormal numbers to zero (inputs and results): the
        # JAX rows' bits are over the points where neither is subnormal (at
        # x = 1.0e-309 every JAX gradient of x tanh x + sin(x)**2 is 0: 49.5 bits)
        tiny = np.finfo(DTYPE).tiny
        normal = ((np.abs(pts) >= tiny) | (pts == 0)) & ((np.abs(truth) >= tiny) | (truth == 0))
        for (fw, label, g), secs, secs2 in zip(impl, times, usual):
            where = normal if fw == "JAX" else slice(None)
            with np.errstate(all="ignore"):
                got = np.asarray(g(pts.copy()))
                mx, mean = _bits(got[where], truth[where])
            if got.dtype != pts.dtype:  # computed in another type: said in the row
                label = f"{label} (returns {got.dtype})"
            rows.append((name, fw, label, secs * 1e3, secs2 * 1e3, mx, mean))
            print(f"{name:24s} {fw:8s} {label:34s} {secs * 1e3:8.1f} ms {secs2 * 1e3:8.1f} ms "
                  f"bits max {mx:5.1f} mean {mean:6.2f}", flush=True)
    return rows


def table(rows: list[tuple]) -> str:
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else "?"
    head = [f"{datetime.date.today()}, {platform.machine()}, Python {platform.python_version()}, "
            f"jax {jax.__version__}, torch {torch.__version__}, single thread, "
            f"load average {' '.join(load)}; "
            f"{'gradient' if ORDER == 1 else f'derivative of order {ORDER}'} of 10^6 {DTYPE} "
            "points (median CPU ms of "
            f"{ROUNDS} rounds, at least 3 within {BUDGET:.0f} s, that run the implementations "
            "in turn from a rotating start; "
            "over the domain: uniform over it; typical: normal(0, 3)), "
            "bits lost against the exact derivative at 2000 points over the domain's "
            "float range, 1000 uniform over it and 1000 normal(0, 3) (max / mean; JAX: "
            "where input and value are not subnormal)", "",
            "| formula | framework | gradient | ms, 10^6 over the domain | vs own autodiff | "
            "ms, 10^6 typical | vs own | bits max | bits mean |",
            "|---|---|---|---|---|---|---|---|---|"]
    own = {(r[0], r[1]): r[3:5] for r in rows
           if r[2] in ("jax.numpy autodiff", "torch autograd")}
    for name, fw, label, ms, ms2, mx, mean in rows:
        o = own[(name, fw)]
        head.append(f"| {name} | {fw} | {label} | {ms:.1f} | {ms / o[0]:.2f}x | {ms2:.1f} | "
                    f"{ms2 / o[1]:.2f}x | {mx:.1f} | {mean:.2f} |")
    return "\n".join(head)


def deep_chains(depths: tuple = (10, 20, 40, 80)) -> str:
    """Export of a deep ``where`` chain (issue 19, issue 20 §7): ``e =
    where(e > k, sin(e) + k, 2 e)``, k = 0, 1, 2, 0, ..., n deep; CPU
    seconds of ``jax.hessian`` (vmapped over 5 points) and of PyTorch's
    double backward of the exported function, the export's code
    generation of every order included (each in a fresh export, after a
    1-deep warm-up), and whether the values equal symgrad.hessian's NumPy
    code's (exactly)."""
    jax.config.update("jax_enable_x64", True)
    x = sp.Symbol("x", real=True)
    pts = np.array([-0.7, 0.25, 0.5, 1.3, 2.9])

    def chain(n):
        e = x
        for k in range(n):
            e = symgrad.where(e > k % 3, sp.sin(e) + k % 3, 2 * e)
        return e

    def jax_h(e):
        return np.asarray(jax.vmap(jax.hessian(symgrad.to_jax(e, [x])))(pts))

    def torch_h(e):
        xs = torch.tensor(pts, requires_grad=True)
        (g,) = torch.autograd.grad(symgrad.to_torch(e, [x])(xs).sum(), xs, create_graph=True)
        return torch.autograd.grad(g.sum(), xs)[0].numpy()

    for run in (jax_h, torch_h):
        run(chain(1))
    rows = ["| depth | jax.hessian (s) | torch double backward (s) | values |", "|---|---|---|---|"]
    for n in depths:
        e = chain(n)
        want = symgrad.lambdify([x], symgrad.hessian(e, [x])[0, 0])(pts)
        cells, same = [], True
        for run in (jax_h, torch_h):
            t = time.process_time()
            got = run(e)
            cells.append(f"{time.process_time() - t:.2f}")
            same = same and np.array_equal(got, want)
        rows.append(f"| {n} | {cells[0]} | {cells[1]} | {'equal' if same else 'DIFFER'} |")
    return "\n".join(rows)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("words", nargs="*",
                    help="only the formulas whose name holds one of these (all if none)")
    ap.add_argument("--jax", action="store_true", help="JAX's implementations only")
    ap.add_argument("--torch", action="store_true", help="PyTorch's implementations only")
    ap.add_argument("--order", type=int, default=1,
                    help="the derivative's order (2: each implementation differentiated twice)")
    ap.add_argument("--float32", action="store_true",
                    help="float32 points (stabilize's float32 forms, bits in float32)")
    ap.add_argument("--compile", action="store_true",
                    help="two more PyTorch rows: to_torch(compile=True) and autograd of "
                         "torch.compile of the formula (each compiled before the rounds)")
    ap.add_argument("--deep", action="store_true",
                    help="only the export of a deep where chain: jax.hessian and torch's "
                         "double backward at 10, 20, 40 and 80 deep (CPU seconds)")
    a = ap.parse_args()
    if a.deep:
        print(deep_chains())
        raise SystemExit
    ORDER, COMPILE = a.order, a.compile
    DTYPE = "float32" if a.float32 else "float64"
    fws = tuple(fw for fw, on in (("JAX", a.jax), ("PyTorch", a.torch)) if on)
    print(table(run(a.words, fws or ("JAX", "PyTorch"))))
