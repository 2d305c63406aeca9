"""The gradients of ML loss and activation functions, typed as their
textbook formulas, differentiated by symgrad, beside the gradients JAX and
PyTorch give through their own implementations.

The functions are those of ``jax.nn``, ``torch.nn.functional``, optax and
the log-domain functions of ``scipy.special`` (as ``jax.scipy.special`` and
``torch.special`` implement them).  For each, in float64 and float32, over
a box wide enough to reach where exponentials overflow:

* ``check_stability`` of symgrad's gradient as derived (as symgrad's
  generated code runs it): flagged or not, its time;
* ``stabilize`` of that gradient at its defaults: widened or not, its time;
* an independent measurement (``benchmarks/independent.py``: another seed,
  ten times stabilize's samples by ordinal plus as many uniform in value,
  the mpmath ground truth of the exact derivative) of the gradient as
  derived, after stabilize, JAX's (``jax.grad``, x64 enabled) and
  PyTorch's (``torch.autograd``), each through the library's own function.

JAX and PyTorch are not dependencies of symgrad: install them for this
benchmark only (``pip install jax jaxlib torch optax``); without them their
columns say "not installed".  Targets (issue 17): every case losing more
than 3 bits flagged; no false alarm; at least 90% of lossy cases within 3
bits after stabilize, 80% without widening; symgrad's gradient after
stabilize at least as accurate as each library's (no more than 1 bit worse
in mean, never NaN/inf where the library is finite).

Run (from the repository root):
    python -m benchmarks.bench_ml_gradients [--dtype float64|float32] [--only NAME]
        [--limit N] [--budget SECONDS] [--jobs N] [--markdown OUT.md] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sympy as sp
from sympy import Abs, Max, Piecewise, exp, log, sqrt, tanh

from symgrad import check_stability, grad, stabilize

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

LOSSY = 3.0
x, y, a, b, c, p = sp.symbols("x y a b c p", real=True)
W = 1000.0  # logits and activations over [-W, W]: past every overflow of exp
TINY = 5e-324
BELOW1 = 1 - 2**-53


def sigmoid(t):
    return 1 / (1 + exp(-t))


@dataclass
class Case:
    """A function as users type it, its domain, and the libraries' own
    versions: ``jax(L)`` and ``torch(L)`` return a function of the
    variables (scalars for JAX, 1-D tensors for PyTorch), ``L`` holding the
    library's modules; None where a library has none."""

    name: str
    source: str
    f: sp.Expr
    variables: tuple
    domain: dict
    jax: Callable | None = None
    torch: Callable | None = None


SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
GC = sqrt(2 / sp.pi)
_lse3 = log(exp(a) + exp(b) + exp(c))
_p = sigmoid(x)
_sm2 = exp(a) / (exp(a) + exp(b))
_pm = Max(_p - sp.Rational(1, 20), 0)  # ASL's shifted probability of the negatives


def _stack(L, *ts):
    return L.stack(list(ts), -1)


CASES = [
    Case("sigmoid", "jax.nn.sigmoid, torch.sigmoid", sigmoid(x), (x,), {x: (-W, W)},
         lambda L: L.nn.sigmoid, lambda L: L.torch.sigmoid),
    Case("softplus", "jax.nn.softplus, F.softplus", log(1 + exp(x)), (x,), {x: (-W, W)},
         lambda L: L.nn.softplus, lambda L: L.F.softplus),
    Case("log_sigmoid", "jax.nn.log_sigmoid, F.logsigmoid, scipy.special.log_expit",
         log(sigmoid(x)), (x,), {x: (-W, W)},
         lambda L: L.nn.log_sigmoid, lambda L: L.F.logsigmoid),
    Case("silu / swish", "jax.nn.silu, F.silu", x * sigmoid(x), (x,), {x: (-W, W)},
         lambda L: L.nn.silu, lambda L: L.F.silu),
    Case("gelu (tanh form)", "jax.nn.gelu(approximate=True), F.gelu(approximate='tanh')",
         x / 2 * (1 + tanh(GC * (x + sp.Float("0.044715", 30) * x**3))), (x,), {x: (-W, W)},
         lambda L: lambda t: L.nn.gelu(t, approximate=True),
         lambda L: lambda t: L.F.gelu(t, approximate="tanh")),
    Case("gelu (erf form)", "jax.nn.gelu(approximate=False), F.gelu",
         x / 2 * (1 + sp.erf(x / sqrt(2))), (x,), {x: (-W, W)},
         lambda L: lambda t: L.nn.gelu(t, approximate=False), lambda L: L.F.gelu),
    Case("elu", "jax.nn.elu, F.elu", Piecewise((x, x > 0), (exp(x) - 1, True)), (x,),
         {x: (-W, W)}, lambda L: L.nn.elu, lambda L: L.F.elu),
    Case("selu", "jax.nn.selu, F.selu",
         SELU_S * Piecewise((x, x > 0), (SELU_A * (exp(x) - 1), True)), (x,), {x: (-W, W)},
         lambda L: L.nn.selu, lambda L: L.F.selu),
    Case("celu (alpha=2)", "jax.nn.celu, F.celu",
         Max(0, x) + sp.Min(0, 2 * (exp(x / 2) - 1)), (x,), {x: (-W, W)},
         lambda L: lambda t: L.nn.celu(t, alpha=2.0),
         lambda L: lambda t: L.F.celu(t, alpha=2.0)),
    Case("mish", "jax.nn.mish, F.mish", x * tanh(log(1 + exp(x))), (x,), {x: (-W, W)},
         lambda L: L.nn.mish, lambda L: L.F.mish),
    Case("softsign", "jax.nn.soft_sign, F.softsign", x / (1 + Abs(x)), (x,), {x: (-W, W)},
         lambda L: L.nn.soft_sign, lambda L: L.F.softsign),
    Case("squareplus", "jax.nn.squareplus", (x + sqrt(x**2 + 4)) / 2, (x,),
         {x: (-1e6, 1e6)}, lambda L: L.nn.squareplus, None),
    Case("tanh (exp form)", "jnp.tanh, torch.tanh", (exp(x) - exp(-x)) / (exp(x) + exp(-x)),
         (x,), {x: (-W, W)}, lambda L: L.jnp.tanh, lambda L: L.torch.tanh),
    Case("logaddexp", "jnp.logaddexp, torch.logaddexp", log(exp(a) + exp(b)), (a, b),
         {a: (-W, W), b: (-W, W)}, lambda L: L.jnp.logaddexp, lambda L: L.torch.logaddexp),
    Case("logsumexp (3)", "jax.nn.logsumexp, torch.logsumexp", _lse3, (a, b, c),
         {a: (-W, W), b: (-W, W), c: (-W, W)},
         lambda L: lambda *t: L.nn.logsumexp(_stack(L.jnp, *t)),
         lambda L: lambda *t: L.torch.logsumexp(_stack(L.torch, *t), -1)),
    Case("softmax entry (3)", "jax.nn.softmax, torch.softmax",
         exp(a) / (exp(a) + exp(b) + exp(c)), (a, b, c), {a: (-W, W), b: (-W, W), c: (-W, W)},
         lambda L: lambda *t: L.nn.softmax(_stack(L.jnp, *t))[0],
         lambda L: lambda *t: L.torch.softmax(_stack(L.torch, *t), -1)[..., 0]),
    Case("log_softmax entry (3)", "jax.nn.log_softmax, F.log_softmax", a - _lse3, (a, b, c),
         {a: (-W, W), b: (-W, W), c: (-W, W)},
         lambda L: lambda *t: L.nn.log_softmax(_stack(L.jnp, *t))[0],
         lambda L: lambda *t: L.F.log_softmax(_stack(L.torch, *t), -1)[..., 0]),
    Case("softmax cross-entropy (3, label 0)", "optax.softmax_cross_entropy, F.cross_entropy",
         -log(exp(a) / (exp(a) + exp(b) + exp(c))), (a, b, c),
         {a: (-W, W), b: (-W, W), c: (-W, W)},
         lambda L: lambda *t: L.optax.softmax_cross_entropy(_stack(L.jnp, *t),
                                                             L.jnp.array([1.0, 0, 0])),
         lambda L: lambda *t: L.F.cross_entropy(
             _stack(L.torch, *t), L.torch.zeros(t[0].shape[0], dtype=L.torch.long),
             reduction="none")),
    Case("binary cross-entropy with logits",
         "optax.sigmoid_binary_cross_entropy, F.binary_cross_entropy_with_logits",
         -(y * log(_p) + (1 - y) * log(1 - _p)), (x, y), {x: (-W, W), y: (0, 1)},
         lambda L: L.optax.sigmoid_binary_cross_entropy,
         lambda L: lambda t, u: L.F.binary_cross_entropy_with_logits(t, u, reduction="none")),
    Case("binary cross-entropy on probabilities", "F.binary_cross_entropy",
         -(y * log(p) + (1 - y) * log(1 - p)), (p, y), {p: (TINY, BELOW1), y: (0, 1)},
         None, lambda L: lambda t, u: L.F.binary_cross_entropy(t, u, reduction="none")),
    Case("focal loss (gamma=2, logits)",
         "optax.sigmoid_focal_loss, torchvision's sigmoid_focal_loss formula",
         -(y * (1 - _p) ** 2 * log(_p) + (1 - y) * _p**2 * log(1 - _p)), (x, y),
         {x: (-W, W), y: (0, 1)},
         lambda L: lambda t, u: L.optax.sigmoid_focal_loss(t, u, gamma=2.0),
         lambda L: lambda t, u: _torch_focal(L, t, u)),
    Case("poly-1 cross-entropy (eps=2, 2 logits, label 0)", "optax.poly_loss_cross_entropy",
         -log(_sm2) + 2 * (1 - _sm2), (a, b), {a: (-W, W), b: (-W, W)},
         lambda L: lambda t, u: L.optax.losses.poly_loss_cross_entropy(
             _stack(L.jnp, t, u), L.jnp.array([1.0, 0]), epsilon=2.0),
         lambda L: lambda t, u: _torch_poly(L, t, u)),
    Case("poly-1 sigmoid loss (eps=1, logits)", "PolyLoss (Leng et al. 2022), sigmoid form",
         -(y * log(_p) + (1 - y) * log(1 - _p)) + (1 - (y * _p + (1 - y) * (1 - _p))),
         (x, y), {x: (-W, W), y: (0, 1)}, None,
         lambda L: lambda t, u: L.F.binary_cross_entropy_with_logits(t, u, reduction="none")
         + (1 - (u * L.torch.sigmoid(t) + (1 - u) * (1 - L.torch.sigmoid(t))))),
    Case("focal loss (gamma=2, alpha=1/4, logits)",
         "optax.sigmoid_focal_loss(alpha=0.25), torchvision.ops.sigmoid_focal_loss",
         -(y * (1 - _p) ** 2 * log(_p) / 4 + 3 * (1 - y) * _p**2 * log(1 - _p) / 4), (x, y),
         {x: (-W, W), y: (0, 1)},
         lambda L: lambda t, u: L.optax.sigmoid_focal_loss(t, u, alpha=0.25, gamma=2.0),
         lambda L: lambda t, u: _torch_focal(L, t, u, alpha=0.25)),
    Case("asymmetric loss (gamma+=1, gamma-=4, clip 1/20)",
         "ASL (Ridnik et al. 2021), its reference implementation without the log clamp",
         -(y * (1 - _p) * log(_p) + (1 - y) * _pm**4 * log(1 - _pm)), (x, y),
         {x: (-W, W), y: (0, 1)}, None, lambda L: lambda t, u: _torch_asl(L, t, u)),
    Case("huber (delta=1)", "optax.huber_loss, F.huber_loss",
         Piecewise(((x - y) ** 2 / 2, Abs(x - y) <= 1), (Abs(x - y) - sp.S.Half, True)),
         (x, y), {x: (-W, W), y: (-W, W)},
         lambda L: lambda t, u: L.optax.huber_loss(t, u, delta=1.0),
         lambda L: lambda t, u: L.F.huber_loss(t, u, reduction="none", delta=1.0)),
    Case("smooth L1 (beta=1/2)", "F.smooth_l1_loss",
         Piecewise(((x - y) ** 2, Abs(x - y) < sp.S.Half), (Abs(x - y) - sp.Rational(1, 4),
                                                            True)),
         (x, y), {x: (-W, W), y: (-W, W)}, None,
         lambda L: lambda t, u: L.F.smooth_l1_loss(t, u, reduction="none", beta=0.5)),
    Case("log-cosh loss", "optax.log_cosh", log(sp.cosh(x - y)), (x, y),
         {x: (-W, W), y: (-W, W)}, lambda L: L.optax.log_cosh, None),
    Case("hinge", "optax.hinge_loss", Max(0, 1 - y * x), (x, y), {x: (-W, W), y: (-1, 1)},
         lambda L: L.optax.hinge_loss, None),
    Case("squared hinge", "(relu(1 - y x))**2", Max(0, 1 - y * x) ** 2, (x, y),
         {x: (-W, W), y: (-1, 1)},
         lambda L: lambda t, u: L.nn.relu(1 - u * t) ** 2,
         lambda L: lambda t, u: L.F.relu(1 - u * t) ** 2),
    Case("soft margin", "F.soft_margin_loss", log(1 + exp(-y * x)), (x, y),
         {x: (-W, W), y: (-1, 1)}, None,
         lambda L: lambda t, u: L.F.soft_margin_loss(t, u, reduction="none")),
    Case("poisson NLL (log input)", "F.poisson_nll_loss", exp(x) - y * x, (x, y),
         {x: (-100, 100), y: (0, 100)}, None,
         lambda L: lambda t, u: L.F.poisson_nll_loss(t, u, log_input=True, full=False,
                                                     reduction="none")),
    Case("KL divergence (log input)", "optax.kl_divergence, F.kl_div",
         y * (log(y) - x), (x, y), {x: (-W, 0), y: (TINY, 1)},
         # (optax sums over its last axis by default; under vmap a row is a scalar)
         lambda L: lambda t, u: L.optax.kl_divergence(t, u, axis=None),
         lambda L: lambda t, u: L.F.kl_div(t, u, reduction="none")),
    Case("log_ndtr", "scipy.special.log_ndtr, jax.scipy.special, torch.special",
         log((1 + sp.erf(x / sqrt(2))) / 2), (x,), {x: (-W, W)},
         lambda L: L.jsp.log_ndtr, lambda L: L.torch.special.log_ndtr),
    Case("ndtr", "scipy.special.ndtr, jax.scipy.special, torch.special",
         (1 + sp.erf(x / sqrt(2))) / 2, (x,), {x: (-W, W)},
         lambda L: L.jsp.ndtr, lambda L: L.torch.special.ndtr),
    Case("logit", "scipy.special.logit, jax.scipy.special, torch.logit",
         log(p / (1 - p)), (p,), {p: (TINY, BELOW1)},
         lambda L: L.jsp.logit, lambda L: L.torch.logit),
    Case("entr", "scipy.special.entr, jax.scipy.special, torch.special",
         -p * log(p), (p,), {p: (TINY, 1e300)},
         lambda L: L.jsp.entr, lambda L: L.torch.special.entr),
]


def _torch_focal(L, t, u, alpha=-1.0):
    """torchvision.ops.sigmoid_focal_loss (alpha < 0: none), gamma = 2."""
    q = L.torch.sigmoid(t)
    ce = L.F.binary_cross_entropy_with_logits(t, u, reduction="none")
    q_t = q * u + (1 - q) * (1 - u)
    loss = ce * (1 - q_t) ** 2
    return loss if alpha < 0 else (alpha * u + (1 - alpha) * (1 - u)) * loss


def _torch_poly(L, t, u):
    """PolyLoss's Poly-1 (epsilon 2) on two logits, label 0, as its paper's code."""
    z = _stack(L.torch, t, u)
    ce = L.F.cross_entropy(z, L.torch.zeros(t.shape[0], dtype=L.torch.long), reduction="none")
    return ce + 2 * (1 - L.torch.softmax(z, -1)[..., 0])


def _torch_asl(L, t, u):
    """AsymmetricLoss's reference code (Alibaba-MIIL/ASL, losses.py), gamma_pos 1,
    gamma_neg 4, clip 0.05, without its clamp of the log's argument at 1e-8
    (which changes the function)."""
    pos = L.torch.sigmoid(t)
    neg = (1 - pos + 0.05).clamp(max=1)
    loss = u * L.torch.log(pos) + (1 - u) * L.torch.log(neg)
    pt = pos * u + neg * (1 - u)
    return -loss * L.torch.pow(1 - pt, 1 * u + 4 * (1 - u))


# ---- the libraries, imported in the child only (JAX must not be forked) -------------------


class _Lib:
    pass


def _jax():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.special as jsp

    L = _Lib()
    L.jax, L.jnp, L.nn, L.jsp = jax, jnp, jax.nn, jsp
    try:
        import optax

        L.optax = optax
    except ImportError:
        L.optax = None
    return L


def _torch():
    import torch
    import torch.nn.functional as F  # noqa: N812

    torch.set_num_threads(1)
    L = _Lib()
    L.torch, L.F = torch, F
    return L


def jax_grad(case: Case, cols: list[np.ndarray], dtype: str) -> np.ndarray:
    L = _jax()
    fn = case.jax(L)
    n = len(cols)
    g = L.jax.jit(L.jax.vmap(L.jax.grad(lambda *t: fn(*t), argnums=tuple(range(n)))))
    out = g(*(L.jnp.asarray(col, dtype=dtype) for col in cols))
    return np.stack([np.asarray(o, dtype=dtype) for o in out])


def torch_grad(case: Case, cols: list[np.ndarray], dtype: str) -> np.ndarray:
    L = _torch()
    fn = case.torch(L)
    ts = [L.torch.tensor(col, dtype=getattr(L.torch, dtype), requires_grad=True)
          for col in cols]
    out = fn(*ts)
    gs = L.torch.autograd.grad(out.sum(), ts, allow_unused=True)
    return np.stack([np.zeros(len(cols[0]), dtype=dtype) if g_ is None
                     else g_.detach().numpy().astype(dtype) for g_ in gs])


def installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


# ---- one case, one dtype (in a child process) ---------------------------------------------


def measure(arg: tuple, send=lambda part: None) -> dict:
    case, dtype, samples, factor = arg
    r: dict = {"vars": len(case.variables), "dtype": dtype}
    g = list(grad(case.f, list(case.variables))) if len(case.variables) > 1 else [
        grad(case.f, case.variables[0])]
    r["grad_ops"] = int(sum(sp.count_ops(e) for e in g))
    t, cpu = time.perf_counter(), time.process_time()
    send({**r, "stage": "check_stability"})
    rep = check_stability(g, case.domain, dtype=dtype)
    r["check_s"] = time.perf_counter() - t
    r["check_cpu"] = time.process_time() - cpu  # (the load does not stretch it)
    r["flagged"] = not rep.ok
    r["check"] = (rep.max_bits_error, rep.mean_bits_error)
    witnesses = [w.witness.point for w in rep.regions if w.witness is not None]

    t, cpu = time.perf_counter(), time.process_time()
    send({**r, "stage": "stabilize"})
    s = stabilize(g, case.domain, dtype=dtype, explain=True)
    r["stabilize_s"] = s.seconds
    r["stabilize_cpu"] = time.process_time() - cpu
    # what stabilize reports of its result: check_stability's after-report, or
    # an output's own verification on fresh points (its warning), the larger
    r["reported_after"] = (max([s.after.max_bits_error] + [c.after[0] for c in s.choices]),
                           s.after.mean_bits_error)
    r["how"] = s.how
    result = list(s.result)
    r["widened"] = widened(result)

    send({**r, "stage": "the independent measurement"})
    syms = list(case.variables)
    pts = independent_points(case.domain, syms, factor * samples, dtype)
    m = Measured(g, syms, pts, dtype)
    r["truth_s"] = m.truth_seconds
    r["points"], r["unresolved"], r["undefined"] = len(pts), m.unresolved, m.undefined
    cols = m.cols
    derived = m.generated(g)
    after = m.generated(result)
    r["derived"] = stats(m.bits(derived))
    r["after"] = stats(m.bits(after))
    r["worst_derived"] = worst(m.bits(derived), derived, m)
    r["worst_after"] = worst(m.bits(after), after, m)
    r["after_nonfinite"] = nonfinite_where_finite(after, m)
    r["witness"] = 0.0
    if witnesses:
        wp = np.array([[w[s_] for s_ in syms] for w in witnesses], dtype=np.dtype(dtype))
        mw = Measured(g, syms, wp, dtype)
        r["witness"] = stats(mw.bits(mw.generated(g)))[0]
    # stabilize's own worst points of its result, measured the same way: a
    # thin region its search found and the uniform points missed still counts
    # (the after-report's witnesses, and where each output's verification on
    # fresh points measured its max: the focal loss's 61.7 bits at x = 5.9e-51,
    # y = 1/2 were in its warning only)
    r["witness_after"] = 0.0
    after_pts = [w.witness.point for w in s.after.regions if w.witness is not None]
    after_pts += [c.worst for c in s.choices if c.worst]
    if after_pts:
        wp = np.array([[w[s_] for s_ in syms] for w in after_pts], dtype=np.dtype(dtype))
        mw = Measured(g, syms, wp, dtype)
        r["witness_after"] = stats(mw.bits(mw.generated(result)))[0]
    for lib, fn, have in (("jax", jax_grad, case.jax), ("torch", torch_grad, case.torch)):
        if have is None:
            r[lib] = "none"
            continue
        if not installed(lib):
            r[lib] = "not installed"
            continue
        send({**r, "stage": lib})
        t = time.perf_counter()
        try:
            vals = fn(case, cols, dtype)
            r[lib + "_s"] = time.perf_counter() - t
        except Exception as exc:  # the library's own failure, reported as such
            r[lib] = f"error: {type(exc).__name__}: {' '.join(str(exc).split())[:100]}"
            continue
        bits = m.bits(vals)
        r[lib] = stats(bits)
        lib_finite = np.isfinite(vals)
        ok = (m.status == 0) & np.isfinite(m.true)
        r[lib + "_nonfinite"] = int(np.sum(ok & ~lib_finite))
        # symgrad's stabilized gradient NaN/inf where the library's is finite (truth finite)
        r[lib + "_we_nonfinite"] = int(np.sum(ok & lib_finite & ~np.isfinite(after)))
    r["stage"] = None
    return r


def _seconds(r: dict, stage: str) -> float:
    """A stage's CPU seconds (its wall seconds in results from before they
    were recorded): what the table shows and 'slow' judges."""
    return r.get(stage + "_cpu", r[stage + "_s"])


def after_max(r: dict) -> float:
    """The stabilized form's worst loss: on the independent points, or at
    stabilize's own reported worst points (measured here too)."""
    return max(r["after"][0], r.get("witness_after", 0.0))


def classify(r: dict) -> list[str]:
    out = []
    if "timeout" in r:
        out.append("timeout")
    if "crash" in r:
        out.append("crash")
    if "after" not in r:
        return out
    lossy = r["derived"][0] > LOSSY or r["witness"] > LOSSY
    r["lossy"] = lossy
    if lossy and not r["flagged"]:
        out.append("missed")
    if r["flagged"] and not lossy:
        out.append("false alarm")
    if lossy and after_max(r) > LOSSY:
        out.append("unfixed")
    if r["after"][0] > LOSSY and r["after"][0] > r["reported_after"][0] + 1:
        out.append("false claim")
    for lib in ("jax", "torch"):
        v = r.get(lib)
        if isinstance(v, (list, tuple)):
            if r["after"][1] > v[1] + 1:
                out.append(f"worse than {lib}")
            if r.get(lib + "_we_nonfinite"):
                out.append(f"NaN/inf where {lib} is finite")
    limit = 5 if r["vars"] <= 3 else 60
    if _seconds(r, "check") > limit or _seconds(r, "stabilize") > limit:
        out.append("slow")
    return out


HEADER = ("| gradient of | dtype | flagged | as derived (indep.) | after stabilize | "
          "stabilize reports | widened | JAX | PyTorch | unres. | time check / stabilize "
          "(CPU s) | classes |\n|" + "---|" * 12)


def row(case: Case, r: dict, classes: list[str]) -> str:
    def pair(key: str) -> str:
        return fmt_bits(*r[key]) if key in r else "–"

    def lib(key: str) -> str:
        v = r.get(key, "–")
        if isinstance(v, (list, tuple)):
            extra = f" ({r[key + '_nonfinite']} non-finite)" if r.get(key + "_nonfinite") else ""
            return fmt_bits(*v) + extra
        return str(v).replace("|", "\\|")

    flagged = "–" if "flagged" not in r else "yes" if r["flagged"] else "no"
    wid = "–" if "widened" not in r else "yes" if r["widened"] else "no"
    unres = f"{r['unresolved']}" if "unresolved" in r else "–"
    times = " / ".join(f"{_seconds(r, k):.1f}" if k + "_s" in r else "–"
                       for k in ("check", "stabilize"))
    verdict = ", ".join(classes) or "ok"
    if "timeout" in r:
        verdict += f" ({r['timeout']:.0f} s, in {r.get('stage')})"
    if "crash" in r:
        verdict += f": {r['crash'][:120]}".replace("|", "\\|")
    return (f"| {case.name} | {r.get('dtype', '')} | {flagged} | {pair('derived')} | "
            f"{pair('after')} | {pair('reported_after')} | {wid} | {lib('jax')} | "
            f"{lib('torch')} | {unres} | {times} | {verdict} |")


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.0f}%" if n else "–"


def summary(results: list) -> list[str]:
    lines = []
    for dtype in ("float64", "float32"):
        rs = [(cs, r, k) for cs, r, k in results if r.get("dtype") == dtype]
        if not rs:
            continue
        done = [x for x in rs if "lossy" in x[1]]
        lossy = [x for x in done if x[1]["lossy"]]
        flagged = [x for x in lossy if x[1]["flagged"]]
        alarms = [x for x in done if x[1]["flagged"] and not x[1]["lossy"]]
        fixed = [x for x in lossy if after_max(x[1]) <= LOSSY]
        plain = [x for x in fixed if not x[1]["widened"]]
        libs = []
        for lib in ("jax", "torch"):
            have = [x for x in done if isinstance(x[1].get(lib), (list, tuple))]
            good = [x for x in have if not any(k.endswith(lib) or k.endswith(f"{lib} is finite")
                                               for k in x[2])]
            libs.append(f"as accurate as {lib} (mean within 1 bit, no NaN/inf where it is "
                        f"finite): {len(good)} of {len(have)}")
        lines.append(
            f"{dtype}: {len(rs)} gradients, {len(done)} measured; lossy (> {LOSSY:g} bits as "
            f"derived): {len(lossy)}; flagged: {len(flagged)} of {len(lossy)}; false alarms: "
            f"{len(alarms)}; within {LOSSY:g} bits after stabilize: {len(fixed)} of "
            f"{len(lossy)} ({_pct(len(fixed), len(lossy))}), without widening: {len(plain)} "
            f"({_pct(len(plain), len(lossy))}); {'; '.join(libs)}.")
        by: dict[str, list[str]] = {}
        for cs, _, k in rs:
            for kk in k:
                by.setdefault(kk, []).append(cs.name)
        for kk, names in by.items():
            lines.append(f"  {dtype} {kk} ({len(names)}): {'; '.join(names)}")
    return lines


def details(results: list) -> list[str]:
    """The worst independent point of each case in a failure class."""
    lines = []
    for name, r, k in results:
        if not set(k) - {"slow"} or "after" not in r:
            continue
        name = getattr(name, "name", name)
        label = f"{name} ({r['dtype']})" if "dtype" in r else name
        lines.append(f"- {label}: {', '.join(k)}; derived: "
                     f"{worst_text(r.get('worst_derived')) or '-'}; after stabilize: "
                     f"{worst_text(r.get('worst_after')) or '-'}; chosen by {r.get('how')}")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtype", choices=("float64", "float32"), action="append",
                    help="the float types (default: both)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME")
    ap.add_argument("--limit", type=int, default=None, metavar="N")
    ap.add_argument("--samples", type=int, default=512)
    ap.add_argument("--factor", type=int, default=10)
    ap.add_argument("--budget", type=float, default=180.0, metavar="SECONDS",
                    help="CPU seconds per gradient and dtype (default 180; the machine's "
                    "load does not stretch it; 10x as much wall at most)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--markdown", metavar="OUT.md")
    ap.add_argument("--json", metavar="OUT.json")
    args = ap.parse_args(argv)
    dtypes = args.dtype or ["float64", "float32"]
    cases = [cs for cs in CASES
             if not args.only or any(o.lower() in cs.name.lower() for o in args.only)]
    cases = cases[: args.limit] if args.limit else cases
    work = [(cs, dt) for dt in dtypes for cs in cases]
    missing = [m for m in ("jax", "torch", "optax") if not installed(m)]
    head = [f"# ML gradients, {len(cases)} functions x {', '.join(dtypes)}, {machine_line()}",
            f"# check_stability and stabilize at their defaults; independent points: "
            f"{args.factor}x{args.samples} by ordinal + as many by value, seed 20261126; "
            f"budget {args.budget:.0f} CPU s per gradient, {args.jobs} at once",
            "# " + (f"not installed (their columns say so): {', '.join(missing)}" if missing
                    else "JAX, PyTorch and optax installed: " + _versions()), ""]
    print("\n".join(head), flush=True)
    start = time.perf_counter()

    def progress(i: int, r: dict) -> None:
        cs, dt = work[i]
        print(f"[{i + 1}/{len(work)}] {cs.name} {dt}: {', '.join(classify(dict(r))) or 'ok'} "
              f"({r['wall']:.1f} s wall, {r.get('cpu', 0):.1f} s CPU)", file=sys.stderr, flush=True)
        # the row too, as it is measured: a run cut short keeps what it measured
        print(row(cs, dict(r), classify(dict(r))), file=sys.stderr, flush=True)

    results = run_all(measure, [(cs, dt, args.samples, args.factor) for cs, dt in work],
                      args.budget, args.jobs, progress, cpu=True)
    out, lines = [], []
    for (cs, _), r in zip(work, results):
        k = classify(r)
        out.append((cs, r, k))
        lines.append(row(cs, r, k))
    tail = summary(out) + [f"total {time.perf_counter() - start:.0f} s", "",
                           "Worst independent points of the cases in a class:", *details(out)]
    print(HEADER)
    print("\n".join(lines))
    print()
    print("\n".join(tail))
    if args.markdown:
        Path(args.markdown).write_text("\n".join([*head, HEADER, *lines, "", *tail]) + "\n",
                                       encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"name": cs.name, **{k: v for k, v in r.items() if k != "traceback"},
              "classes": k} for cs, r, k in out], indent=1, default=str), encoding="utf-8")


def _versions() -> str:
    from importlib.metadata import version

    return ", ".join(f"{m} {version(m)}" for m in ("jax", "torch", "optax"))


if __name__ == "__main__":
    main()
