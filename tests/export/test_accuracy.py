"""Exported with stabilize=True, each derivative order is emitted in
symgrad.stabilize's choice for it: the JAX and PyTorch gradients are as
accurate as symgrad's NumPy code of the same stabilized formula on the same
points, over the whole float range of the domain (bits against exact
arithmetic), where the formula as derived loses all its bits."""

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.stability.bits import FORMATS, bits_error
from symgrad.stability.sampling import sample
from symgrad.stability.truth import GroundTruth

jax = pytest.importorskip("jax")
torch = pytest.importorskip("torch")

x = sp.Symbol("x", real=True)
FMT = FORMATS["float64"]
TINY = np.finfo(np.float64).tiny

CASES = [  # (formula, domain): as derived, the gradient loses 64 bits somewhere
    # the sigmoid; its derivative exp(x)/(1 + exp(x))**2 is inf/inf past x = 709.78
    (sp.exp(x) / (1 + sp.exp(x)), (-745, 745)),
    # log(cosh(x)): sinh(x)/cosh(x) is inf/inf past 710 (tanh: a sibling not started from)
    (sp.log(sp.cosh(x)), (-800, 800)),
]


@pytest.mark.parametrize("expr, domain", CASES)
def test_stabilized_export_as_accurate_as_numpy(expr, domain):
    dom = {x: domain}
    pts = sample({x: tuple(map(float, domain))}, [x], 300, FMT, 0)[:, 0]
    (derived,) = symgrad.grad(expr, [x])
    truth = GroundTruth([derived], [x]).batch(pts[:, None])[0][0]
    fj = symgrad.to_jax(expr, [x], stabilize=True, domain=dom)
    ft = symgrad.to_torch(expr, [x], stabilize=True, domain=dom)
    (form,) = fj.order(1).forms  # stabilize's choice for the gradient
    assert ft.order(1).forms == [form]
    with np.errstate(all="ignore"):
        numpy = symgrad.lambdify([x], form)(pts) * np.ones_like(pts)
        raw = symgrad.lambdify([x], derived)(pts) * np.ones_like(pts)
    with jax.enable_x64():
        gj = np.asarray(jax.jit(jax.vmap(jax.grad(fj)))(pts))
    a = torch.tensor(pts, requires_grad=True)
    ft(a).sum().backward()
    ref = bits_error(numpy, truth, FMT)
    assert np.nanmax(bits_error(raw, truth, FMT)) > 60  # the formula as derived fails
    assert np.nanmax(ref) <= 3  # stabilize's form does not
    # XLA on CPU flushes subnormal numbers to zero (inputs, results): JAX is
    # compared where neither the input nor the exact gradient is subnormal
    normal = ((np.abs(pts) >= TINY) | (pts == 0)) & ((np.abs(truth) >= TINY) | (truth == 0))
    for got, where in ((gj, normal), (a.grad.numpy(), slice(None))):
        bits = bits_error(got, truth, FMT)[where]
        assert np.nanmax(bits) <= np.nanmax(ref[where]) + 1  # libm differences: an ulp
        assert np.nanmean(bits) <= np.nanmean(ref[where]) + 0.05


def test_second_order_is_stabilized_for_itself():
    # softplus'' = sigmoid': exp(x)/(1 + exp(x))**2 as derived, inf/inf past 709.78
    e = sp.log(1 + sp.exp(x))
    f = symgrad.to_jax(e, [x], stabilize=True, domain={x: (-745, 745)})
    pts = np.array([-700.0, -30.0, -1.0, 0.0, 2.0, 40.0, 705.0])  # results normal (XLA: FTZ)
    truth = GroundTruth([symgrad.hessian(e, [x])[0, 0]], [x]).batch(pts[:, None])[0][0]
    with jax.enable_x64():
        h = np.asarray(jax.jit(jax.vmap(jax.hessian(f)))(pts))
    assert np.nanmax(bits_error(h, truth, FMT)) <= 3


def test_a_marked_choice_falls_back_with_a_warning():
    from symgrad.export.orders import ExportWarning, float_form

    # compensated/widen code is not translated: the plain float form is
    # emitted, and the warning names the order and the output
    form = sp.log(1 + symgrad.compensated(x * x - 1))
    with pytest.warns(ExportWarning, match="order 1, output 0.*compensated/widen"):
        assert float_form(form, "order 1, output 0") == sp.log(x**2)
    assert float_form(sp.log(x)) == sp.log(x)
