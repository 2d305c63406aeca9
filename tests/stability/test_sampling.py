"""Sampling over the float lattice, and the domain's checks."""

import math

import numpy as np
import pytest
from sympy import Rational, pi, symbols

from symgrad import SymgradError
from symgrad.stability.bits import FORMATS, ordinal
from symgrad.stability.sampling import from_ordinal, parse_domain, sample

x, y = symbols("x y")
F64, F32 = FORMATS["float64"], FORMATS["float32"]


def test_from_ordinal_inverts_ordinal():
    for fmt in (F64, F32):
        xs = np.array([-fmt.max, -1.5, -fmt.tiny, 0.0, fmt.tiny, 1.0, fmt.max], dtype=fmt.dtype)
        assert (from_ordinal(ordinal(xs, fmt), fmt) == xs).all()


def test_uniform_over_ordinals_visits_every_scale():
    pts = sample({x: (1e-300, 1e300)}, [x], 4000, F64, seed=1)[:, 0]
    logs = np.log10(pts)
    # uniform in the exponent: each decade about equally often
    hist, _ = np.histogram(logs, bins=6, range=(-300, 300))
    assert hist.min() > 0.6 * hist.mean()
    assert pts.min() >= 1e-300 and pts.max() <= 1e300
    assert {1e-300, 1e300} <= set(pts.tolist())  # the ends


def test_infinite_ends_and_float32():
    pts = sample({x: (-math.inf, math.inf)}, [x], 500, F32, seed=0)
    assert pts.dtype == np.float32 and np.isfinite(pts).all()
    assert F32.max in pts and -F32.max in pts
    assert (pts < 0).any() and (pts > 0).any()


def test_seed_makes_it_reproducible():
    a = sample({x: (0, 1), y: (2, 3)}, [x, y], 50, F64, seed=3)
    b = sample({x: (0, 1), y: (2, 3)}, [x, y], 50, F64, seed=3)
    assert (a == b).all() and a.shape == (54, 2)  # 50 + 4 corners


def test_domain_ends_are_rounded_inward():
    d = parse_domain({x: (Rational(1, 10), pi)}, [x], F64)
    lo, hi = d[x]
    assert lo >= 0.1 and hi <= math.pi
    with pytest.raises(SymgradError, match="no range"):
        parse_domain({x: (0, 1)}, [x, y], F64)
    with pytest.raises(SymgradError, match="pair"):
        parse_domain({x: 3}, [x], F64)
    with pytest.raises(TypeError, match="string"):
        parse_domain({x: ("0", 1)}, [x], F64)
