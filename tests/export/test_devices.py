"""Tensors stay on their device: every tensor the exported code makes (a
constant's pair, a scaling exponent, a zero output, a contraction) is made
on its inputs' device.  This machine's PyTorch is a CPU build; its other
device is 'meta' (shapes and types, no data), where an operation mixing in a
tensor of another device fails and an output made elsewhere shows it.
Values on a GPU are untested (docs/export.md)."""

import sympy as sp

import symgrad

from ..backends import torch

x, y = sp.symbols("x y", real=True)


def _devices(*ts):
    return {t.device.type for t in ts}


def test_outputs_and_derivatives_stay_on_the_inputs_device():
    # pairs of floats with a constant no float holds (a pair exp's constants are
    # made the same way), inputs scaled per point, a Piecewise, library calls, and
    # an output that is a number
    e = (symgrad.compensated(x * y / 3 - 1) + symgrad.scaled(x / sp.sqrt(x**2 + y**2))
         + sp.Piecewise((sp.exp(x), x < 0), (1 + x, True)) * sp.erfc(y) + sp.floor(x) * y)
    f = symgrad.to_torch([e, sp.S(2)], [x, y])
    a, b = (torch.empty(4, device="meta", dtype=torch.float64, requires_grad=True)
            for _ in range(2))
    out, two = f(a, b)
    ga, gb = torch.autograd.grad(out.sum(), (a, b), create_graph=True)
    hs = torch.autograd.grad((ga + gb).sum(), (a, b))  # double backward: the next order
    g = torch.func.vmap(torch.func.grad(lambda u, v: f(u, v)[0]))(a.detach(), b.detach())
    assert _devices(out, two, ga, gb, *hs, g) == {"meta"}
    assert out.shape == g.shape == (4,) and out.dtype == torch.float64


def test_matrix_outputs_and_derivatives_stay_on_the_inputs_device():
    # the matrix code's constants (an Identity's eye, a OneMatrix's ones) too:
    # made on the CPU they failed next to 'meta' tensors; logsumexp's pairs of
    # floats near its zero are computed for every row there (no data to branch on)
    X, W = sp.MatrixSymbol("X", 3, 2), sp.MatrixSymbol("W", 2, 2)
    f = symgrad.to_torch([symgrad.logsumexp(X * (W + sp.Identity(2)), axis=1),
                          X * W + sp.OneMatrix(3, 2)], [W, X])
    w = torch.empty(2, 2, device="meta", dtype=torch.float64, requires_grad=True)
    out, more = f(w, torch.empty(3, 2, device="meta", dtype=torch.float64))
    (g,) = torch.autograd.grad(out.sum() + more.sum(), w, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), w)
    assert _devices(out, more, g, h) == {"meta"} and out.shape == (3, 1)
