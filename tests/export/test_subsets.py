"""export.subsets: in eager PyTorch, what only a rarely selected Piecewise
arm needs is computed at the points that select it (not at all where none
does), with the same floats as computing it everywhere; traced code
(torch.func, autograd recording a graph) computes it everywhere."""

import os

import numpy as np
import pytest
import sympy as sp
from sympy.codegen.cfunctions import log1p

import symgrad
from symgrad.rewrites.forms import erfcx

from ..backends import torch

x, y = sp.symbols("x y", real=True)
R = 1 / (1 + x**2)  # a reciprocal read inside and outside the arm
COSTLY = erfcx(x) * sp.exp(-x)
RARE = sp.Piecewise((erfcx(x) * sp.exp(-x), x > 2), (y * sp.exp(x), True))  # x > 2: rare
CASES = [
    # a rare arm reading a reciprocal the other arm reads, and a quotient
    # y/(1 + x**2) the code computes once for both; a dead arm (x > 50)
    # beside a common one holding a rare one (y < -1)
    sp.Piecewise((COSTLY * y * R, x > 2), (sp.exp(x) * y * R + x * R, True)),
    sp.Piecewise((erfcx(y) * log1p(x**2), x > 50),
                 (sp.Piecewise((COSTLY * R, y < -1), (x * R, True)), True)),
    # what is needed where x > 3 reads what is needed where x > 3 and y > 0,
    # which reads it back: one region (two would call each other)
    sp.Piecewise((sp.Piecewise((erfcx(COSTLY + y) * sp.exp(y), y > 0), (x, True))
                  * erfcx(x + 1) + COSTLY, x > 2), (x, True)),
]


@pytest.fixture
def calls(monkeypatch):
    """The number of points each region was computed at, per masked() call."""
    from symgrad.export import torch_ops  # (imports torch: not at collection)

    seen = []
    real = torch_ops.masked

    def spy(cond, held, fn, inputs, cost):
        def counted(*ins):
            sizes = [v.numel() for v in torch_ops._flat(ins) if v.numel() > 1]
            seen.append(max(sizes, default=1))
            return fn(*ins)
        return real(cond, held, counted, inputs, cost)

    monkeypatch.setattr(torch_ops, "masked", spy)
    return seen


def _without_regions(monkeypatch):
    """Code generated as before export.subsets: every arm a torch.where's."""
    from symgrad.export import source

    monkeypatch.setattr(source, "masked_regions", lambda roots, numbers: (list(roots), []))


@pytest.mark.parametrize("k", range(len(CASES)))
def test_a_rare_arm_is_computed_where_selected_with_the_same_floats(k, calls, monkeypatch):
    e = CASES[k]
    f = symgrad.lambdify([x, y], e, backend="torch")
    assert "_sg.masked(" in f.source
    rng = np.random.default_rng(k)
    n = 4099  # (not a multiple of a vector width: subsets' tails differ too)
    xs = torch.tensor(rng.normal(0, 1.5, n))
    ys = torch.tensor(rng.normal(0, 1, n))
    fast = f(xs, ys)
    assert calls and max(calls) < n  # the subsets only
    if k == 1:
        assert min(calls) <= 1  # x > 50: computed at no point
    _without_regions(monkeypatch)
    plain = symgrad.lambdify([x, y], e, backend="torch")
    assert "_sg.masked(" not in plain.source
    slow = plain(xs, ys)
    assert np.array_equal(fast.numpy(), slow.numpy(), equal_nan=True)  # bit for bit (NaN too)
    assert not np.any(np.signbit(fast.numpy()) != np.signbit(slow.numpy()))
    assert fast.dtype == slow.dtype and fast.shape == slow.shape


def test_to_torch_gradients_and_transforms_with_regions(calls):
    f = symgrad.to_torch(RARE, [x, y])
    assert "_sg.masked(" in f.order(1).source
    xs = torch.linspace(-3, 4, 257, dtype=torch.float64, requires_grad=True)
    ys = torch.full((257,), 0.5, dtype=torch.float64)
    f(xs, ys).sum().backward()
    g_eager = xs.grad.clone()
    assert calls and max(calls) < 257
    grads = torch.func.vmap(torch.func.grad(lambda a, b: f(a, b)))(xs.detach(), ys)
    assert torch.equal(grads, g_eager)
    # double backward: the gradient's own Function computes its regions too
    xs.grad = None
    (g,) = torch.autograd.grad(f(xs, ys).sum(), xs, create_graph=True)
    assert torch.equal(g.detach(), g_eager)
    g.sum().backward()
    assert torch.isfinite(xs.grad).all()


def test_traced_or_recording_code_computes_every_point(calls):
    f = symgrad.lambdify([x, y], RARE, backend="torch")
    xs = torch.linspace(-3, 4, 64, dtype=torch.float64, requires_grad=True)
    out = f(xs, torch.tensor(0.5, dtype=torch.float64))  # autograd records: the where chain
    assert out.requires_grad and calls and min(calls) == 64


@pytest.mark.skipif(os.environ.get("SYMGRAD_LONG") != "1",
                    reason="torch.compile's tracing takes ~3 s of CPU: SYMGRAD_LONG=1 runs it")
def test_torch_compile_runs_the_export():
    f = symgrad.to_torch(RARE, [x, y])
    xs = torch.linspace(-3, 4, 300, dtype=torch.float64, requires_grad=True)
    ys = torch.full((300,), 0.5, dtype=torch.float64)
    f(xs, ys).sum().backward()
    want, xs.grad = xs.grad.clone(), None
    compiled = torch.compile(lambda a, b: f(a, b), backend="eager")  # dynamo traces: every point
    compiled(xs, ys).sum().backward()
    assert torch.equal(xs.grad, want)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_scaled_forms_fallback_is_computed_at_the_rows_that_take_it(dtype, calls, monkeypatch):
    # scaled(u)'s fallback (u's factors scaled back each, _sc_pick's alt) is
    # read only where _sc_use holds: a region under that condition, as NumPy's
    # code computes it at those rows only (scaling.compacting). The same bytes
    # as alt computed at every row (x**2*y: 1248 -> 802 ms per 10^6 points over
    # +-1e300, 799 -> 465 typical; quadratic in pairs 1674 -> 901)
    e = symgrad.scaled(x**2 * y)
    f = symgrad.lambdify([x, y], e, backend="torch")
    assert "_sg.masked(" in f.source
    rng = np.random.default_rng(0)
    n = 4099
    big = np.finfo(dtype).maxexp * 0.3  # (decades: a few rows round an input when scaled)
    xs, ys = (torch.tensor((rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-big, big, n))
                           .astype(dtype)) for _ in range(2))
    fast = f(xs, ys)
    assert calls and 0 < max(calls) < n // 2
    _without_regions(monkeypatch)
    slow = symgrad.lambdify([x, y], e, backend="torch")(xs, ys)
    assert fast.dtype == slow.dtype == getattr(torch, dtype)
    assert fast.numpy().tobytes() == slow.numpy().tobytes()
