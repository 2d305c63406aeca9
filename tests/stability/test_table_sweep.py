"""Every function the rule table knows goes through check_stability and
stabilize without an exception: a test generated from the table's specs
(``tests/rules/specs.py``), so a new entry joins it without anyone
remembering.

Each spec costs about a quarter of a second (one check_stability of the
function with its gradient, one stabilize of the function, 8 points, at
the spec's domain): some 20 s of CPU for the table, more than the whole
suite can spend on it, so it runs in the thorough profile,
``SYMGRAD_FUZZ=long`` (tests/conftest.py), with the long fuzz.
"""

import os

import numpy as np
import pytest
import sympy as sp

from symgrad import check_stability, grad, stabilize
from symgrad.errors import SymgradError

from ..rules.specs import SPECS

LONG = os.environ.get("SYMGRAD_FUZZ") == "long"


@pytest.mark.skipif(not LONG, reason="the table sweep runs with SYMGRAD_FUZZ=long (~20 s CPU)")
@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
def test_every_table_function_is_checked_and_stabilized(spec):
    """A report and a form, never an exception (a refusal must be a
    SymgradError, which names the node and what to do)."""
    xs = sp.symbols(f"a0:{spec.arity}", real=True)
    f = spec.build(*xs)
    dom = dict(zip(xs, spec.domain))
    try:
        r = check_stability([f, *grad(f, list(xs))], dom, samples=8, seed=1)
    except SymgradError as exc:
        assert str(exc)
        return
    assert np.isfinite(r.max_bits_error) and r.samples >= 8
    s = stabilize(f, dom, samples=8, seed=1)
    assert isinstance(s, sp.Basic) and s.free_symbols <= set(xs)
