"""The erfc complements (SymPy writes erfc(-u) as 2 - erfc(u)): siblings of
the normal log-CDF as users type it, log(erfc(-x/√2)/2), which none of the
library's entries was written from, kept to 3 bits where the source loses
them all, their logs and their gradients through the candidates stabilize
ranks."""

from __future__ import annotations

import pytest
from sympy import Rational, Symbol, diff, erfc, log, sqrt

from symgrad.rewrites import Facts, apply_rewrites, in_scope
from symgrad.rewrites.candidates import candidates

from .measure import as_run, as_written, errors

x = Symbol("x", real=True)
SAFE = in_scope("codegen", "safe")


# each over u = -27 to -2 (erfc(-u) underflows past 27.2; mpmath's truth of a
# complement needs about u²/ln 2 bits: further out is seconds a point)
@pytest.mark.parametrize("source, low", [
    (1 - erfc(x / sqrt(2)) / 2, -38.0),  # Φ(x) as erfc(-x/√2)/2
    # c·erfc(-u): c·(2 - erfc(u)), distributed (u = x/3 would lose 9 bits at
    # x = -70 to the rounding of x²/9: exp-square splits c·u² for c = ±2^k only;
    # u = x/4 loses 3.9 past x = 64, where exp-square's split stops)
    (3 * erfc(-x / 2) / 4, -54.0),
    (erfc(x) - 2, -27.0),               # -erfc(-x)
    (x * (2 - erfc(2 * x)), -13.0),     # a factor beside it (not past a subnormal complement)
], ids=["phi", "scaled", "minus", "times-x"])
def test_complements_keep_their_bits_where_erfc_rounds_to_two(source, low):
    form = apply_rewrites([source], SAFE, Facts({x: (-1e150, 1e150)}))[0]
    got = errors(source, {"source": (source, as_written), "form": (form, as_run)},
                 {x: (low, -2.0)}, n=48)
    assert got["source"].max() > 40  # 2 - erfc(u) is 0 where erfc(-u) is a float
    assert got["form"].max() <= 3.0, got["form"].max()


@pytest.mark.parametrize("source", [erfc(x) - 1, 1 - erfc(3 * x)], ids=["minus-one", "one-minus"])
def test_complements_of_one_are_erf(source):
    form = apply_rewrites([source], SAFE, Facts({x: (-1e150, 1e150)}))[0]
    got = errors(source, {"source": (source, as_written), "form": (form, as_run)},
                 {x: (-1e-9, 1e-9)}, n=32)
    assert got["source"].max() > 20
    assert got["form"].max() <= 1.0


def _best(e, region, n=32):
    forms = {c.how: (c.expr, as_run) for c in candidates(e, {x: (-40, 40)})}
    got = errors(e, forms, region, n=n)
    return min(v.max() for v in got.values())


@pytest.mark.parametrize("scale", [Rational(1, 2), Rational(1, 5)], ids=["half", "fifth"])
def test_log_phi_as_users_write_it_and_its_gradient_have_an_accurate_form(scale):
    # log Φ(x) = log(erfc(-x/√2)/2), built as log(1 - erfc(x/√2)/2); the log of
    # c·erfc(-x·s) for another s and c is its sibling; the gradient holds
    # 1/(1 - erfc(u)/2) beside exp(-x²/2), 0·inf without the merged exponents
    e = log(erfc(-x * scale) / 4)
    assert e.has(erfc(x * scale))  # SymPy's 2 - erfc(u), the case this is about
    for f in (e, diff(e, x)):
        assert _best(f, {x: (-35 / scale / 2, -3.0)}) <= 3.0, f
    # where erfc(u) is small, log1p(-erfc(u)/2) is -erfc(u)/2: as accurate as the
    # erfc, which scipy computes to 6-9 bits for u in [6, 27] (erfc-far: 2.8)
    assert _best(e, {x: (6 / scale, 26 / scale)}) <= 3.0
