"""check_stability and stabilize take a box for a matrix symbol (every entry)
and report per output entry; the reductions are accurate as built."""

from __future__ import annotations

from sympy import MatrixSymbol, log

import symgrad

z = MatrixSymbol("z", 2, 1)


def test_log_softmax_holds_over_a_wide_box():
    # the max is taken out and log1p keeps the dominant entry's bits; what is
    # left is the rounding of z - max (|z|·2⁻⁵³) amplified by exp: ~9 bits at 1000
    r = symgrad.check_stability(symgrad.log_softmax(z), {z: (-1000, 1000)}, samples=24)
    assert len(r.outputs) == 2 and r.max_bits_error <= 10


def test_log_of_softmax_written_naively_is_flagged_per_entry():
    r = symgrad.check_stability(symgrad.elementwise(log, symgrad.softmax(z)),
                                {z: (-1000, 1000)}, samples=24)
    assert not r.ok and len(r.outputs) == 2 and r.max_bits_error > 50
    assert all("z_" in str(s) for s in r.regions[0].ranges)  # boxes name the entries
