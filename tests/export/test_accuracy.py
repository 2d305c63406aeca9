"""Exported with stabilize=True, the JAX and PyTorch gradients are as
accurate as symgrad's NumPy code of the same formula on the same points,
over the whole float range of the domain (bits against exact arithmetic)."""

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.stability.bits import FORMATS, bits_error
from symgrad.stability.sampling import sample
from symgrad.stability.truth import GroundTruth

jax = pytest.importorskip("jax")
torch = pytest.importorskip("torch")

x, y = sp.symbols("x y", real=True)
FMT = FORMATS["float64"]

CASES = [  # (formula, domain): gradients that lose bits unless written in safe forms
    (sp.log(1 + sp.exp(x)) + sp.sqrt(x**2 + y**2), {x: (-sp.oo, sp.oo), y: (-1e300, 1e300)}),
    (sp.exp(x) / (1 + sp.exp(x)) * y, {x: (-745, 745), y: (-10, 10)}),
]


@pytest.mark.parametrize("expr, domain", CASES)
def test_stabilized_export_as_accurate_as_numpy(expr, domain):
    syms = [x, y]
    dom = {s: tuple(float(v) for v in domain[s]) for s in syms}
    pts = sample(dom, syms, 200, FMT, 0)
    grad = symgrad.grad(expr, syms)
    truth = GroundTruth(list(grad), syms).batch(pts)[0]
    with np.errstate(all="ignore"):
        numpy = symgrad.lambdify(syms, grad, stabilize=True, domain=domain)(*pts.T)
    fj = symgrad.to_jax(expr, syms, stabilize=True, domain=domain)
    with jax.enable_x64():
        gj = jax.jit(jax.vmap(jax.grad(fj, (0, 1))))(pts[:, 0], pts[:, 1])
    ft = symgrad.to_torch(expr, syms, stabilize=True, domain=domain)
    a, b = (torch.tensor(pts[:, k], requires_grad=True) for k in (0, 1))
    ft(a, b).sum().backward()
    gt = (a.grad.numpy(), b.grad.numpy())
    tiny = np.finfo(np.float64).tiny
    normal_in = np.all((np.abs(pts) >= tiny) | (pts == 0), axis=1)
    for k in range(2):
        ref = bits_error(numpy[k], truth[k], FMT)
        # XLA on CPU flushes subnormal numbers to zero (inputs, results): JAX is
        # compared where neither an input nor the exact gradient is subnormal
        normal = normal_in & ((np.abs(truth[k]) >= tiny) | (truth[k] == 0))
        for got, where in ((np.asarray(gj[k]), normal), (gt[k], slice(None))):
            bits = bits_error(got, truth[k], FMT)[where]
            assert np.nanmax(bits) <= np.nanmax(ref[where]) + 1  # libm differences: an ulp
            assert np.nanmean(bits) <= np.nanmean(ref[where]) + 0.05
