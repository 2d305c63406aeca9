"""widen(u): the identity in mathematics (printing, differentiation, proofs,
ground truth), a wider float type in generated code (tests/codegen/test_widen.py)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sympy import Matrix, Symbol, cos, diff, latex, log, pretty, sin, symbols, tan

from symgrad import SymgradError, certified, expand, grad, jvp, stabilize, widen
from symgrad.lowering import unwiden
from symgrad.rewrites.proof import definition
from symgrad.stability.bits import float_format
from symgrad.stability.truth import RESOLVED, GroundTruth
from symgrad.widen import has_widen

x, y, eps = symbols("x y eps")


def test_prints_visibly_everywhere():
    e = widen(sin(x) * y)
    assert str(e) == "widen(y*sin(x))"
    assert pretty(e, use_unicode=True) == "widen(y⋅sin(x))"
    assert latex(e) == r"\operatorname{widen}{\left(y \sin{\left(x \right)} \right)}"
    assert latex(widen(x) ** 2) == r"\operatorname{widen}^{2}{\left(x \right)}"


def test_numbers_nesting_entries_and_strings():
    assert widen(3) == 3
    assert widen(widen(x)) == widen(x)
    assert widen(Matrix([x, y])) == Matrix([widen(x), widen(y)])
    assert widen([x, y]) == [widen(x), widen(y)]
    with pytest.raises(TypeError):
        widen("x + 1")


def test_survives_subs_pickling_and_expand():
    e = widen(sin(x + eps) - sin(x))
    assert pickle.loads(pickle.dumps(e)) == e
    assert e.subs(eps, 2 * y) == widen(sin(x + 2 * y) - sin(x))
    assert expand(e) == e  # lowering keeps it: code generation needs it
    assert abs(e.evalf(subs={x: 1, eps: 2}) - (sin(3) - sin(1)).evalf()) < 1e-15


def test_differentiates_as_the_identity_in_both_modes():
    u = x**2 * sin(y)
    assert grad(widen(u), [x, y]) == grad(u, [x, y])
    assert jvp(widen(u), [x, y], [1, 0]) == jvp(u, [x, y], [1, 0])
    assert diff(widen(u), x) == diff(u, x)
    # inside a larger formula: the derivative (2*x*sin(y), not widened) over
    # the value, which stays widened
    g = grad(log(1 + widen(u)), x)
    assert g == 2 * x * sin(y) / (1 + widen(u))
    assert unwiden([g]) == [grad(log(1 + u), x)]


def test_proofs_and_the_ground_truth_see_through_it():
    u = sin(x + eps) - sin(x)
    assert unwiden([1 + widen(u), x]) == [1 + u, x]
    assert not has_widen(unwiden([widen(widen(u) * 2)]))
    assert definition(widen(log(1 + x))) == log(1 + x)
    got, status = GroundTruth([widen(u)], [x, eps]).at([1.0, 1e-10])
    want, _ = GroundTruth([u], [x, eps]).at([1.0, 1e-10])
    assert status == [RESOLVED] and got == want


def test_an_argument_that_is_not_an_expression_is_refused():
    with pytest.raises((TypeError, SymgradError)):
        widen(object())


def test_is_exported():
    import symgrad

    assert "widen" in symgrad.__all__ and symgrad.widen is widen
    assert cos(widen(Symbol("t"))).has(widen)


# ---- stabilize widens where no float formula is accurate ---------------------------

MAX64, MAX32 = 1.7976931348623157e308, 3.4028234663852886e38
LONG_IS_WIDER = np.finfo(np.longdouble).nmant > 52


def test_stabilize_keeps_a_trigonometric_difference_in_pairs_of_the_dtype():
    # Hamming's example 3.3 over all floats: a form of the dtype before a wider
    # type. In pairs (sin and cos of a pair reduced exactly past 2**50) the sum
    # form sin-difference (terms of about 1) still lost 3.3 bits at a zero 2**-56
    # deep; the product 2cos(x + eps/2)sin(eps/2), which loses every bit in floats,
    # cancels nothing in pairs (x + eps/2 exact), and is offered computed in pairs,
    # ranked by its pairs' figure. (The same mechanism: the cosine's twin, problem
    # 3.3.5, cos-difference-product, tests/rewrites/test_library.py; the tangent's
    # tan-difference-pairs, tests/test_cli.py's --no-widen case.)
    r = stabilize(sin(x + eps) - sin(x), {x: (-MAX64, MAX64), eps: (-MAX64, MAX64)},
                  explain=True, samples=128)
    c = r.choices[0]  # (its figures: the verification's fresh points and search)
    assert "sin-difference-product" in r.how and not r.result.has(widen), r.how
    assert c.after[0] <= 2 and c.after[1] <= 1 < c.before[1], c.after


# (the sine's, Hamming's example 3.3 in float32, is docs/stabilize.md's example of
# widen: the very same call, checked there as here, as the suite runs both)
@pytest.mark.parametrize("source", [tan(x + eps) - tan(x)], ids=["tan"])
def test_stabilize_widens_float32_to_float64(source):
    # (the tangent's best float32 form loses more than 2 bits at points of the
    # choice or of its verification: widened.  At the default 512 samples it was
    # widened at verification, at 256 on the choosing samples ("divided in turn,
    # widened", after-report 0.0 bits), 2026-11-28: the same widening, cheaper)
    r = stabilize(source, {x: (-MAX32, MAX32), eps: (-MAX32, MAX32)},
                  dtype="float32", explain=True, samples=256)
    # (widened where the plain form lost bits, or where the dtype's pairs did: the
    # tangent's float32 pairs past |eps| = 2^21; since 2026-11-29 (session 25) the
    # source certified in float32, verified before the widened form it is cheaper
    # than and losing no bit on its fresh points, is taken first: a form of the
    # dtype before a wider type, as issue 17 asks)
    assert (", widened" in r.how and r.result.has(widen)) or \
        ("certified, as written" in r.how and r.result.has(certified)), r.how
    # (within 2 bits, not 1: near the difference's zeros float64 keeps fewer than 29
    # extra bits, and the search visits them)
    assert r.after.max_bits_error <= 2 and r.after.mean_bits_error <= 0.5


def test_stabilize_does_not_widen_an_accurate_formula():
    from sympy import oo, sqrt

    r = stabilize(sqrt(x + 1) - sqrt(x), {x: (0, oo)}, explain=True, samples=128)
    assert not r.result.has(widen) and "widened" not in r.how


def test_stabilize_never_widens_where_there_is_no_wider_type(monkeypatch):
    # where long double is float64, the search is made as with widen=False;
    # what it then chooses for this formula, never widened, is the next
    # test's (the same search: one stabilize run for both, 1.2 s saved)
    import symgrad.stability.stabilize as st

    assert st._widens(float_format("float32"))
    assert st._widens(float_format("float64")) == LONG_IS_WIDER
    monkeypatch.setattr(st, "_widens", lambda fmt: False)  # as where long double is float64
    made = []

    class Stop(Exception):
        pass

    def search(*args):
        made.append(args[-1])
        raise Stop

    monkeypatch.setattr(st, "_Search", search)
    with pytest.raises(Stop):
        stabilize(sin(x + eps) - sin(x), {x: (-MAX64, MAX64), eps: (-MAX64, MAX64)},
                  samples=128)
    assert made == [False]


def test_stabilize_keeps_to_the_dtype_when_asked():
    # (float32: its sine difference is widened where allowed, docs/stabilize.md;
    # float64's is not since pairs reduce sin and cos exactly, 2026-11-28)
    r = stabilize(sin(x + eps) - sin(x), {x: (-MAX32, MAX32), eps: (-MAX32, MAX32)},
                  dtype="float32", widen=False, explain=True, samples=128)
    # a form of the dtype (either trigonometric rewrite, plain or in pairs: which
    # one 128 screening points rank first depends on the search), never widened
    assert r.how.startswith(("sin-difference", "sin-angle-sum")) and "widened" not in r.how
    assert not r.result.has(widen)


@pytest.mark.skipif(not LONG_IS_WIDER, reason="np.longdouble is float64 here: nothing to widen to")
def test_check_stability_as_written_computes_widen_wide_too():
    # rewrites=False evaluates node by node: a widen(u) is one node, computed wide
    import numpy as np

    from symgrad import check_stability
    from symgrad.stability.floats import NodeEvaluator, generated

    f = widen(cos(x) * sin(eps) - 2 * sin(x) * sin(eps / 2) ** 2)
    dom = {x: (-MAX64, MAX64), eps: (-MAX64, MAX64)}
    run, written = (check_stability(f, dom, rewrites=r, samples=64) for r in (True, False))
    # the same values at the same points (near the zeros of the difference even the
    # long double loses bits, and the search finds such points)
    assert run.max_bits_error == written.max_bits_error and written.mean_bits_error <= 1
    xs, es = np.array([1.0, 1e300, np.pi / 2 - 0.4999]), np.array([1e-3, 1e-300, 1.0])
    got = NodeEvaluator([f], [x, eps], np.float64).values([xs, es])[f]
    np.testing.assert_array_equal(got, generated([x, eps], [f], np.float64)(xs, es)[0])
