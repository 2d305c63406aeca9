"""The tie lines x_j = +-x_i: where a symmetric formula's exact value is
missed by code that rounds the two sides unalike."""

import pytest
from sympy import symbols

from symgrad import check_stability

x, y = symbols("x y")


# NumPy's x**n of an array is not symmetric in the sign for about 5% of mantissas: at
# x = -y the code returns +-1e90 for 0 there only (62 bits); the search reached x = -y
# and whether its mantissa was one of those was luck (verdicts9's audit: 62.4 reported at
# seed 11, 42.4 and 50.1 at 12 and 13; here, at 256 samples, ~50 at 8 seeds of 10 for
# both). The sibling it was not found on: x**3 + y**3
@pytest.mark.parametrize("f, end, seed", [(x**4 - y**4, 1e75, 0), (x**3 + y**3, 1e100, 1)],
                         ids=["x4-y4", "x3+y3"])
def test_a_symmetric_cancellation_is_measured_on_its_tie_line(f, end, seed):
    r = check_stability(f, {x: (-end, end), y: (-end, end)}, seed=seed, samples=256)
    assert r.max_bits_error > 60, str(r)
