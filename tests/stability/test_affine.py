"""A formula affine in one variable is split about a centre of that
variable where its forms cancel (symgrad.stability.affine, stabilize's
_affine): the label of a loss's gradient near 1/2."""

from __future__ import annotations

import numpy as np
import sympy as sp

from symgrad import certified, stabilize
from symgrad.graph import postorder
from symgrad.stability.affine import about, affine_slope, centre
from symgrad.stability.bits import bits_error, float_format
from symgrad.stability.floats import generated
from symgrad.stability.truth import RESOLVED, GroundTruth

x, y = sp.symbols("x y", real=True)


def test_the_slope_of_an_affine_variable_and_a_centre_of_few_bits():
    e = (1 - y) * sp.exp(x) - y * sp.exp(-x)
    assert affine_slope(e, y) == -sp.exp(x) - sp.exp(-x)
    assert affine_slope(y**2 * x, y) is None  # not affine
    assert affine_slope(sp.exp(y), y) is None  # one variable: nothing to split
    assert affine_slope(sp.exp(x) + 3, y) is None  # no y
    assert centre(np.array([0.49, 0.511, 0.5, 0.6])) == sp.S.Half
    assert centre(np.array([-3.3, -2.9, -3.0])) == -3
    assert centre(np.array([0.0, 0.0, 1.0])) is None  # about 0 it is the formula itself
    split = about(e, y, sp.S.Half) + (y - sp.S.Half) * affine_slope(e, y)
    assert sp.expand(split - e) == 0


def test_a_label_near_one_half_is_split_about_it():
    """Binary cross-entropy's gradient in the logit, as written: its terms
    cancel near x = 0, y = 1/2 (off the zero curve: 4-7 bits in float32);
    the split keeps 2 there (y - 1/2 is exact, the part at y = 1/2 is a
    formula of x alone).  (Sibling, measured, not a test for time:
    (1 - y)·exp(x) - y·exp(-x), split to -2(y - 1/2)·cosh(x) + sinh(x).)
    Kept to float32 (widen=False): widened, the split lost 18.4 bits at its
    zero curve on fresh points, and float64 pairs of the formula as written
    replace it (0 bits); the formula certified (float32 pairs beside their
    bound, the ground truth where it does not certify them) may too."""
    expr = 1 / (1 + sp.exp(-x)) - y
    fmt = float_format("float32")
    got = stabilize(expr, {x: (-4.0, 4.0), y: (0.0, 1.0)}, dtype="float32", samples=64,
                    widen=False)
    order, _ = postorder([got], lambda n: n.args)
    # split about 1/2 (the difference kept a node), or the formula certified
    # (pairs beside their error bound: a form of the dtype, offered before the
    # split since the lead's decision D3, session 15); either keeps the bits below
    assert y - sp.S.Half in order or got.has(certified)
    rng = np.random.default_rng(3)
    xs = rng.uniform(-0.01, 0.01, 200).astype(np.float32)
    ys = rng.uniform(0.26, 0.74, 200).astype(np.float32)
    true, status = GroundTruth([expr], [x, y], fmt.name).batch(np.stack([xs, ys], axis=1))
    # off the zero curve: the value is at least 1/64 of the terms
    off = (status[0] == RESOLVED) & (np.abs(true[0]) > 2.0**-6)

    def bits(form):
        v = generated([x, y], [form], fmt.dtype)(xs, ys)[0]
        return bits_error(v, true[0], fmt)[off]
    assert off.sum() > 100
    assert bits(expr).max() >= 4  # as written
    assert bits(got).max() <= 2
