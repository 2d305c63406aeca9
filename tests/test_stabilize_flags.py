"""grad(..., stabilize=True) and lambdify(..., stabilize=True): the
rewrites that lose accuracy nowhere, in one call."""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from symgrad import grad, lambdify

x = sp.symbols("x")


def _sigmoid_truth(v: float) -> float:
    with mpmath.workdps(60):
        return float(1 / (1 + mpmath.exp(-mpmath.mpf(float(v)))))


def test_gradient_of_log1pexp_is_exact_over_the_float_range_without_a_custom_gradient():
    g = grad(sp.log(1 + sp.exp(x)), x, stabilize=True)
    f = lambdify([x], g)
    for dtype in (np.float32, np.float64):
        pts = np.linspace(-1000, 1000, 2001).astype(dtype)
        got = f(pts)
        assert got.dtype == dtype and np.all(np.isfinite(got))
        true = np.array([_sigmoid_truth(v) for v in pts]).astype(dtype)
        ulps = np.abs(got.view(np.int32 if dtype == np.float32 else np.int64).astype(np.int64)
                      - true.view(np.int32 if dtype == np.float32 else np.int64).astype(np.int64))
        assert ulps.max() <= 2, (dtype, ulps.max())


def test_without_it_the_plain_gradient_is_nan():
    f = lambdify([x], grad(sp.log(1 + sp.exp(x)), x))
    with np.errstate(all="ignore"):
        assert np.isnan(f(np.float64(1000.0))) and np.isnan(f(np.float32(100.0)))


def test_lambdify_stabilize_applies_safe_rewrites_valid_on_the_domain():
    e = sp.sqrt(x + 1) - sp.sqrt(x)
    assert "sqrt(x) +" in lambdify([x], e, stabilize=True, domain={x: (0, np.inf)}).source \
        or "np.sqrt(x) + " in lambdify([x], e, stabilize=True, domain={x: (0, np.inf)}).source
    f = lambdify([x], e, stabilize=True, domain={x: (0, np.inf)})
    assert f(1e300) == 1 / (2 * np.sqrt(1e300))
    # without a domain sqrt(x) may be non-real: the rewrite does not apply
    assert lambdify([x], e, stabilize=True)(1e300) == 0.0


def test_grad_stabilize_keeps_unconnected_none():
    y = sp.symbols("y")
    assert grad(sp.sin(x), [x, y], unconnected="none", stabilize=True) == [sp.cos(x), None]
