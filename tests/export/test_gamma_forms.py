"""The nodes of stabilize's log-gamma and digamma difference forms
(symgrad.rewrites.gammas), exported: Stirling's remainders computed without
the library's lgamma and digamma by NumPy's algorithm
(symgrad.rewrites.remainders), within a few ulps where their definitions
lose ~10 bits below 10; log1pmx as NumPy's code; every derivative symgrad's,
equal to NumPy's code of it."""

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.rewrites.forms import digamma_remainder, lgamma_remainder, log1pmx
from symgrad.stability.bits import FORMATS, bits_error
from symgrad.stability.truth import GroundTruth

from ..backends import jax, torch

x = sp.Symbol("x", positive=True)
v = sp.Symbol("v", real=True)
# below 1/2 (a step as written), the recurrence's [1/2, 10), the series' from 10
PTS = np.concatenate([[1e-300, 1e-5, 0.3], np.linspace(0.5, 9.99, 24), [10.0, 37.5, 1e3, 1e6]])


# stabilize's forms, from x = 10, of log Γ(x + 1/2) - log Γ(x) and ψ(x) - log(x + 3),
# with every node (the brief: NoNumpyFormError, scipy.special.psi, in both frameworks)
FORMS = [(x - sp.Rational(1, 2)) * sp.log(1 + 1 / (2 * x)) + sp.log(x + sp.Rational(1, 2)) / 2
         - lgamma_remainder(x) + lgamma_remainder(x + sp.Rational(1, 2)) - sp.Rational(1, 2),
         digamma_remainder(x) - log1pmx(3 / x) - sp.Rational(7, 2) / x]
EXACT = [sp.loggamma(x + sp.Rational(1, 2)) - sp.loggamma(x), sp.polygamma(0, x) - sp.log(x + 3)]


def test_remainders_within_ulps_where_numpys_definition_cancels():
    nodes = [lgamma_remainder(x), digamma_remainder(x)]
    fj = jax.jit(jax.vmap(symgrad.to_jax(nodes + FORMS, [x])))
    ft = symgrad.to_torch(nodes + FORMS, [x])
    for fmt in ("float64", "float32"):
        f, pts = FORMATS[fmt], PTS.astype(fmt)
        pts = pts[pts > 0]
        truth = GroundTruth(nodes + EXACT, [x]).batch(pts.astype(float)[:, None])[0]
        with jax.enable_x64(fmt == "float64"):
            got_jax = [np.asarray(g, dtype=float) for g in fj(pts)]
        got_torch = [g.double().numpy() for g in ft(torch.tensor(pts))]
        for k, e in enumerate(nodes):
            finite = np.abs(truth[k]) <= np.finfo(fmt).max
            got_numpy = symgrad.lambdify([x], e, dtype=fmt)(pts)
            for got in (got_numpy, got_jax[k], got_torch[k]):
                # (through gammaln/psi: 10.3-11.1 bits near 9, float64 and float32)
                assert np.nanmax(bits_error(got, truth[k], f)[finite]) <= 3
        for k in (2, 3):  # the forms, where stabilize chooses them
            for got in (got_jax[k], got_torch[k]):
                assert np.nanmax(bits_error(got, truth[k], f)[pts >= 10]) <= 3


@pytest.mark.parametrize("e, pts", [
    (lgamma_remainder(x), np.array([0.3, 1.5, 7.25, 10.0, 123.0])),
    (digamma_remainder(x), np.array([0.3, 1.5, 7.25, 10.0, 123.0])),
    (log1pmx(v), np.array([-0.75, -1e-3, 2e-9, 0.5, 40.0])),
])
def test_derivatives_are_symgrads_as_numpys_code(e, pts):
    # jax.grad, torch's backward and double backward: NumPy's code of symgrad's
    # derivatives (the remainders' cancel as NumPy's do: polygamma - log + 1/(2x)),
    # to the rounding of their terms (the libraries' polygammas differ by ulps)
    (s,) = e.free_symbols
    want = [symgrad.lambdify([s], d)(pts) * np.ones_like(pts)
            for d in (symgrad.grad(e, [s])[0], symgrad.hessian(e, [s])[0, 0])]
    atol = 1e-14 * (4 + np.abs(np.log(np.abs(pts) + 1))).max() / np.abs(pts).min() ** 2
    with jax.enable_x64():
        g = np.asarray(jax.jit(jax.vmap(jax.grad(symgrad.to_jax(e, [s]))))(pts))
    t = torch.tensor(pts, requires_grad=True)
    (gt,) = torch.autograd.grad(symgrad.to_torch(e, [s])(t).sum(), t, create_graph=True)
    (ht,) = torch.autograd.grad(gt.sum(), t)
    for got, w in ((g, want[0]), (gt.detach().numpy(), want[0]), (ht.numpy(), want[1])):
        np.testing.assert_allclose(got, w, rtol=1e-12, atol=atol)


def test_second_order_under_jax_is_symgrads():
    e, pts = digamma_remainder(x), np.array([0.3, 1.5, 7.25, 10.0, 123.0])
    want = symgrad.lambdify([x], symgrad.hessian(e, [x])[0, 0])(pts)
    with jax.enable_x64():
        h = np.asarray(jax.jit(jax.vmap(jax.hessian(symgrad.to_jax(e, [x]))))(pts))
    np.testing.assert_allclose(h, want, rtol=1e-12, atol=1e-13 / pts.min() ** 3)


def test_log_gamma_and_digamma_near_their_zeros_and_derivatives():
    # exported log Γ and ψ, their jax.grad / torch backward (ψ, ψ'), in float64 and
    # float32, at points within ulps and 1e-6 of 1, 2 and ψ's root, and a spread:
    # within 3 bits of mpmath as NumPy's code is. Before: ψ (and log Γ's gradient)
    # 63 bits off in JAX, 53 in PyTorch at the root (30.7 in float32), JAX's ψ' 3.5-4.2
    # (XLA's polygamma under jit), JAX's log Γ 4.9-5.0 on [2.5, 5)
    import mpmath

    from tests.rewrites.test_gammas import _bits, _zeros_and_spread

    exprs = [sp.loggamma(x), sp.polygamma(0, x)]
    fj, ft = symgrad.to_jax(exprs, [x]), symgrad.to_torch(exprs, [x])
    for dt in (np.float64, np.float32):
        pts = _zeros_and_spread(dt)
        pts = pts[pts >= np.finfo(dt).tiny]  # (XLA flushes a subnormal input to 0)
        with mpmath.workprec(200):
            want = [np.array([float(f(mpmath.mpf(float(p)))) for p in pts]) for f in (
                mpmath.loggamma, mpmath.digamma, lambda v: mpmath.polygamma(1, v))]
        with jax.enable_x64(dt == np.float64):  # (values and derivatives: one compile)
            vj, dj = jax.jit(lambda p: jax.jvp(fj, (p,), (p * 0 + 1,)))(pts)
            vj, dj = [np.asarray(v) for v in vj], [np.asarray(d) for d in dj]
        t = torch.tensor(pts, requires_grad=True)
        vt = ft(t)
        dt_ = [torch.autograd.grad(v.sum(), t, retain_graph=True)[0].numpy() for v in vt]
        for k in (0, 1):  # values, then derivatives (log Γ' = ψ, ψ' = polygamma(1, x))
            for got in (vj[k], vt[k].detach().numpy()):
                assert got.dtype == dt and _bits(got, want[k], dt).max() <= 3, (k, dt)
            for got in (dj[k], dt_[k]):
                assert _bits(got, want[k + 1], dt).max() <= 3, (k, dt)
