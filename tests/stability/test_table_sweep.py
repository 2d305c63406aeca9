"""Every function the rule table knows goes through check_stability and
stabilize without an exception: a test generated from the table's specs
(``tests/rules/specs.py``), so a new entry joins it without anyone
remembering.

Each spec costs about a sixth of a second (one check_stability of the
function with its gradient, one stabilize of the function, 8 points, at
the spec's domain): 11 s of CPU for the table's 70 specs (00:14 UTC,
load 3), which the default suite pays: a sweep that is skipped by
default proves nothing on a new entry.
"""

import numpy as np
import pytest
import sympy as sp

from symgrad import check_stability, grad, stabilize
from symgrad.errors import SymgradError

from ..rules.specs import SPECS


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
