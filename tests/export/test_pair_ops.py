"""Every operation ``compensated(u)`` computes in pairs runs in PyTorch's
export as in NumPy's code: the pair helpers' text is run with ``np.`` read as
:mod:`symgrad.export.torch_pairs`, so each NumPy name a helper calls must be
there (``sqrt`` was not: AttributeError on any ``compensated(sqrt(u) ...)``),
and the values keep the pairs' bits against exact arithmetic."""

from fractions import Fraction as F

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.stability.bits import FORMATS, bits_error
from symgrad.stability.truth import GroundTruth

from ..backends import jax, jnp, torch

x, y, z = sp.symbols("x y z", real=True)

# one formula per pair operation of codegen/compensating.py, each cancelling
# where its inputs are near each other, over x, y in (1/2, 2)
OPS = {
    "mul": x * y - 1, "prod": x * y * (x + 1) - 2, "div": x / y - 1, "sqrt": sp.sqrt(x) - y,
    "abs": sp.Abs(x - 2 * y) - y, "max": sp.Max(x, y) - y, "min": sp.Min(x, y) - x,
    "exp": sp.exp(x) - y, "expm1": sp.exp(x) - 1 - y, "log": sp.log(x) - y,
    "log1p": sp.log(1 + x) - y, "sin": sp.sin(x) - y, "cos": sp.cos(x) - y,
    "sincos": sp.sin(x) * sp.cos(x) - y, "tan": sp.tan(x) - y, "atan": sp.atan(x) - y,
    "hypot": sp.sqrt(x**2 + y**2) - x,
}
def _points():
    rng = np.random.default_rng(0)
    return rng.uniform(0.5, 2, 50), rng.uniform(0.5, 2, 50)


CASES = [(op, b) for b in ("numpy", "torch") for op in OPS]


@pytest.mark.parametrize("op, backend", CASES)
def test_each_pair_operation_runs_and_keeps_the_bits(op, backend):
    rng = np.random.default_rng(0)
    xs, ys = rng.uniform(0.5, 2, 50), rng.uniform(0.5, 2, 50)
    f = symgrad.lambdify([x, y], symgrad.compensated(OPS[op]), backend=backend)
    got = f(torch.tensor(xs), torch.tensor(ys)).numpy() if backend == "torch" else f(xs, ys)
    truth = GroundTruth([OPS[op]], [x, y]).batch(np.stack([xs, ys], 1))[0][0]
    assert np.max(bits_error(np.asarray(got, float), truth, FORMATS["float64"])) <= 1


# x huge or tiny beside y = x * r, |r| < 1e-3: sqrt(x^2 + y^2) - x cancels ~20 bits,
# which the first-order pair hypot the exports kept until 2026-11-28 lost
# (PyTorch 34.8 bits in the top binades, 37.7 at 1e150, JAX 35.7 and 37.7).
# XLA flushes subnormals: a pair's low part below 2**-1022 is lost, so JAX's
# "tiny" is the magnitudes whose low parts stay normal (25 bits lost at 1e-300)
_SCALES = {"top": (1e300, 1.7e308), "mid": (1e150, 1e160), "one": (0.5, 2.0),
           "tiny": (1e-300, 1e-290)}
_JAX_TINY = (1e-270, 1e-260)


_HYPOT: dict = {}


def _hypot(backend: str):
    """The pair hypot's code in ``backend``, made once (JAX's: jitted, one
    compilation for every scale, where run eagerly each of its ~300
    operations was a compilation of its own: 1.3 s of CPU)."""
    if backend not in _HYPOT:
        f = symgrad.lambdify([x, y], symgrad.compensated(OPS["hypot"]), backend=backend)
        _HYPOT[backend] = jax.jit(f) if backend == "jax" else f
    return _HYPOT[backend]


@pytest.mark.parametrize("scale", _SCALES)
@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_the_pair_hypot_keeps_its_bits_at_every_magnitude(backend, scale):
    rng = np.random.default_rng(1)
    xs = rng.uniform(*(_JAX_TINY if (backend, scale) == ("jax", "tiny") else _SCALES[scale]), 40)
    ys = xs * rng.uniform(-1e-3, 1e-3, 40)
    e = OPS["hypot"]
    want = GroundTruth([e], [x, y]).batch(np.stack([xs, ys], 1))[0][0]
    f = _hypot(backend)
    if backend == "torch":
        got = f(torch.tensor(xs), torch.tensor(ys)).numpy()
    else:
        with jax.enable_x64():
            got = np.asarray(f(jnp.asarray(xs), jnp.asarray(ys)))
    assert np.max(bits_error(np.asarray(got, float), want, FORMATS["float64"])) <= 1


# NumPy's pair helpers take two rare cases on a branch on the data, which JAX's
# and PyTorch's tracing cannot take; the exports take them by selections (until
# 2026-11-28 they did not): TwoSum in the top binade, where s - a overflows and
# s does not (its low part was dropped: 49 bits of x + y - z lost), and the pair
# quotient one ulp under the overflow threshold, where the high parts' quotient
# overflows (inf where the value is the largest float: NMSE 3.4.2's quotient)
_BIG = float(np.finfo(np.float64).max)
_RARE = [x + y - z, (x - z) / (1 - y)]  # at rows 0-1 and 2-4
_ROWS = np.array([[-5.708799999999999e307, _BIG, -5.708799999999999e307 + _BIG],
                  [_BIG, -8.012744671936522e307, _BIG - 8.012744671936522e307],
                  [_BIG, 2.0**-54 + 2.0**-70, 2.0**969], [_BIG, 2.0**-54 + 2.0**-70, 2.0**968],
                  [0.75 * _BIG, 0.25, 0.0]])


@pytest.mark.parametrize("backend", ["numpy", "torch", "jax"])
def test_the_pairs_rare_cases_in_every_backend(backend):
    want = GroundTruth(_RARE, [x, y, z]).batch(_ROWS)[0]
    f = symgrad.lambdify([x, y, z], [symgrad.compensated(e) for e in _RARE], backend=backend)
    if backend == "torch":
        got = [v.numpy() for v in f(*map(torch.tensor, _ROWS.T))]
    elif backend == "jax":
        with jax.enable_x64():
            got = [np.asarray(v) for v in jax.jit(f)(*_ROWS.T)]
    else:
        with np.errstate(all="ignore"):
            got = f(*_ROWS.T)
    for k, rows in enumerate((slice(0, 2), slice(2, 5))):
        bits = bits_error(np.asarray(got[k], float)[rows], want[k][rows], FORMATS["float64"])
        assert np.max(bits) <= 1, (k, bits)




def _products_next_to_the_largest_float(t):
    # a within 2^-20 of the largest float, or in the top 12 binades (either
    # sign), b in (0.01, 0.99), and p = a*b rounded: compensated(x*y - z) at
    # z = p is TwoProduct's error term
    rng = np.random.default_rng(3)
    fi = np.finfo(t)
    a = np.concatenate([fi.max * (1 - rng.uniform(0, 2.0**-20, 60)).astype(t),
                        np.ldexp(rng.uniform(0.5, 1, 60).astype(t),
                                 rng.integers(fi.maxexp - 12, fi.maxexp, 60))])
    a = a * np.where(np.arange(120) % 2, t(1), t(-1))
    a[:2] = fi.max, -fi.max
    b = rng.uniform(0.01, 0.99, 120).astype(t)
    p = a * b
    want = [F(float(u)) * F(float(v)) - F(float(w)) for u, v, w in zip(a, b, p)]
    return a, b, p, want


@pytest.mark.parametrize("backend", ["jax", "torch-dekker"])
def test_the_exported_twoproduct_next_to_the_largest_float_keeps_its_error_term(backend,
                                                                                 monkeypatch):
    # Dekker's split of a factor in the top 2^-26 (float32: 2^-12) of the range,
    # scaled down, split and scaled back, rounded its high half past the largest
    # float: inf, the error term NaN, dropped (3 of these 120 products in
    # float64, 60 in float32; the exports' split is their own text, by
    # selections under jax.jit).  PyTorch's eager fused error was exact; its
    # Dekker products (torch.compile, or a device whose addcmul rounds twice)
    # were not
    from symgrad.export import torch_pairs

    e = symgrad.compensated(x * y - z)
    for t in (np.float64, np.float32):
        a, b, p, want = _products_next_to_the_largest_float(t)
        if backend == "jax":
            with jax.enable_x64():
                got = np.asarray(jax.jit(symgrad.to_jax(e, [x, y, z]))(a, b, p))
        else:
            args = [torch.from_numpy(v) for v in (a, b, p)]
            if backend == "torch-dekker":
                monkeypatch.setitem(torch_pairs._FUSED, (args[0].device, args[0].dtype), False)
            got = symgrad.to_torch(e, [x, y, z])(*args).numpy()
        assert got.dtype == t and [F(float(v)) for v in got] == want


def test_the_exports_reduce_a_rational_multiple_of_pi_in_its_own_units():
    # compensated sin/cos/tan of r*pi*x reduce x modulo 2/r first (fmod, exact):
    # PyTorch's code gives NumPy's floats at every binade (x up to the top of the
    # range, where r*pi*x in pairs was off by whole radians); JAX's helper under
    # jax.jit too (XLA's fmod exact), on its own (a compiled sincos costs ~1.5 s)
    from symgrad.codegen.compensated_helpers import _dd_mod
    from symgrad.export.source import compile_source, generate

    u = symgrad.compensated(sp.cos(x * sp.pi / 180) * y)
    g = compile_source(generate("jax", [x, y], [u])).__globals__
    rng = np.random.default_rng(4)
    for t in (np.float64, np.float32):
        xs = (10 ** rng.uniform(0, np.log10(float(np.finfo(t).max)), 200)).astype(t)
        xs = xs * np.where(rng.uniform(size=200) < 0.5, t(1), t(-1))
        want = symgrad.lambdify([x, y], u, dtype=t)(xs, np.ones_like(xs))
        got = symgrad.to_torch(u, [x, y])(torch.from_numpy(xs), torch.from_numpy(np.ones_like(xs)))
        np.testing.assert_array_equal(got.numpy(), want, strict=True)
        lo = (xs * rng.uniform(-2.0**-30, 2.0**-30, 200)).astype(t)
        with jax.enable_x64():
            red = jax.jit(lambda h, lo_: g["_dd_mod"]((h, lo_), 360.0))(xs, lo)
        for a, b in zip(red, _dd_mod((xs, lo), 360.0)):
            np.testing.assert_array_equal(np.asarray(a), b, strict=True)
