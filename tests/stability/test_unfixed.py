"""What stabilize says where it cannot fix a formula (stability/unfixed.py):
the region, the best figure reached, "symgrad cannot fix", and the reason
class; in the explain report and the command."""

from __future__ import annotations

import sympy as sp

from symgrad import stabilize
from symgrad.stability.report import Region, Witness
from symgrad.stability.unfixed import cannot_fix

x, y = sp.symbols("x y", real=True)


def test_an_unfixable_cancellation_is_said_plainly():
    # erf(x) - y near erf(x) = y: erf's value rounds, and no float form of the
    # dtype keeps the bits (pairs do not undo erf's rounding; a wider type
    # would).  (sin(x) - y was the example until sin of pairs, 2026-11-27)
    s = stabilize(sp.erf(x) - y, {x: (0.5, 1.5), y: (0.5, 1)}, widen=False, explain=True,
                  samples=128)
    assert len(s.unfixed) == 1
    text = s.unfixed[0]
    assert text.startswith("symgrad cannot fix output 0: the formula as it is")
    assert "still loses up to" in text and "where x in [" in text and "y in [" in text
    assert "its terms cancel there" in text
    assert text in str(s)


def test_a_fixed_formula_says_nothing_of_the_kind():
    s = stabilize(sp.sqrt(x + 1) - sp.sqrt(x), {x: (0, sp.oo)}, explain=True, samples=128)
    assert s.unfixed == [] and "cannot fix" not in str(s)


def test_the_reason_follows_the_kind_of_the_region_left():
    w = Witness({x: 800.0}, float("inf"), 1e300, 64.0)
    for kind, words in [("overflow", "overflows there"), ("nan", "becomes NaN"),
                        ("underflow", "underflows there"), ("cancellation", "cancel")]:
        r = Region(kind, {x: (710.0, 1000.0)}, 64.0, sp.exp(x), 0, w)
        report = type("R", (), {"regions": [r]})()
        text = cannot_fix(0, (64.0, 3.1), "exp-normalized", None, report)
        assert words in text and "where x in [710, 1000]" in text, text
        assert "the best form found (exp-normalized)" in text
    assert cannot_fix(0, (2.6, 0.1), "safe forms", None, None) is None  # within 3 bits


def test_the_command_says_it_cannot_fix():
    from ..test_cli import run

    code, out, _ = run("stabilize", "erf(x) - y", "--domain", "x=0.5:1.5", "--domain",
                       "y=0.5:1", "--no-widen", "--samples", "128", "--text")
    assert code == 1
    assert "symgrad cannot fix output 0" in out
    assert "verdict: NOT ok: symgrad cannot fix this" in out
