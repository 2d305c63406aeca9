"""The proofs' float tier (symgrad/stability/boxes.py) against the mpmath
tier it replaces: every node's enclosure holds the exact values, is never
looser than the mpmath tier's by more than a few ulps, and says undefined
or unknown only where that tier does; and what is proved is the same."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath.libmp import from_float, mpf_cmp
from sympy import exp, sin, symbols

from symgrad import read_fpcore
from symgrad.lowering import lower
from symgrad.stability import bounds, boxes
from symgrad.stability.bits import FORMATS
from symgrad.stability.intervals import UNDEF, UNKNOWN
from symgrad.stability.truth import Program

from ..rules.specs import SPECS

F64, F32 = FORMATS["float64"], FORMATS["float32"]
A = symbols("a0:3", real=True)
# one spec per function (the table's labels repeat Pow with several exponents)
_SPECS = [s for s in SPECS if s.kind in ("smooth", "nonsmooth")]


def _mpmath_tier(prog, box, fmt):
    inputs = [(from_float(a), from_float(b)) for a, b in box]
    return prog.run(inputs, fmt.prec + 20, post=boxes.rounding(fmt))


def _truth(prog, point):
    return prog.run([(from_float(v), from_float(v)) for v in point], 200)


def _is_interval(v):
    return type(v) is tuple and type(v[0]) is tuple and len(v[0]) == 4


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_SPECS), st.data(), st.sampled_from([F64, F32]))
def test_each_node_holds_the_exact_values_and_is_as_tight_as_mpmaths(spec, data, fmt):
    """Random boxes over (and past) each function's domain, at three
    scales. Each node of the float tier: around the exact value at the
    box's ends and middle; within two units of its last bit of the mpmath
    kernel's interval from the same operands (or tighter); undefined where
    the mpmath tier is, and bounded wherever that tier bounds it."""
    xs = A[:spec.arity]
    (f,) = lower([spec.build(*xs)])
    prog = Program([f], list(xs))
    scale = data.draw(st.sampled_from([1.0, 64.0, 1e6]))
    box = []
    for lo, hi in spec.domain:
        w = (hi - lo) / 2
        u = data.draw(st.floats(lo - w, hi + w)) * scale
        v = data.draw(st.floats(lo - w, hi + w)) * scale
        box.append((min(u, v), max(u, v)))
    lo = np.array([[b[0]] for b in box])
    hi = np.array([[b[1]] for b in box])
    got = boxes.run(prog, lo, hi, fmt, fmt.prec + 20)
    if got.bad[0]:
        return  # past the ends' range: the mpmath tier's box, by design
    ref = _mpmath_tier(prog, box, fmt)
    mids = [tuple((a + b) / 2 for a, b in box), tuple(a for a, _ in box),
            tuple(b for _, b in box)]
    truths = [_truth(prog, p) for p in mids]
    widen = boxes.rounding(fmt)
    for i, v in enumerate(ref):
        s = got.state[i, 0]
        if v is UNDEF:
            assert s == boxes.UNDEFINED, prog.order[i]
            continue
        if not _is_interval(v):
            continue
        assert s == boxes.VALUE, (prog.order[i], box, s)
        flo, fhi = boxes.to_mpf(got.lo[i, 0]), boxes.to_mpf(got.hi[i, 0])
        for t in truths:
            if _is_interval(t[i]):
                assert mpf_cmp(flo, t[i][0]) <= 0 <= mpf_cmp(fhi, t[i][1]), (prog.order[i], box)
        step = prog.steps[i]
        if step[0] != "op" or type(prog.order[i]).__name__ == "Piecewise" or any(
                got.state[a, 0] != boxes.VALUE for a in step[2]):
            continue
        # the same kernel on the float tier's own operands: no looser than it by
        # more than two units of the ends' last bit (no amplification here)
        local = step[1](fmt.prec + 20, *[(boxes.to_mpf(got.lo[a, 0]), boxes.to_mpf(got.hi[a, 0]))
                                         for a in step[2]])
        if not _is_interval(local):
            continue
        local = widen(local)
        slack = np.ldexp(boxes.DT(1), 2 - boxes.PREC)
        mlo, mhi = boxes.end_lo(local[0]), boxes.end_hi(local[1])
        assert got.lo[i, 0] >= mlo - abs(mlo) * slack - 4 * fmt.tiny, (prog.order[i], box)
        assert got.hi[i, 0] <= mhi + abs(mhi) * slack + 4 * fmt.tiny, (prog.order[i], box)


@pytest.fixture(scope="module")
def hamming():
    with open("benchmarks/fpbench/hamming-ch3.fpcore", encoding="utf-8") as f:
        return read_fpcore(f.read())


def test_hamming_statements_are_those_the_mpmath_tier_proves(hamming, monkeypatch):
    """Every third of Hamming's chapter-3 formulas, alternately in float64
    and float32 (all 56 calls were compared at each change of the tier:
    benchmarks/bench_bounds.py): the same statements, word for word, from
    the float tier as from box-by-box mpmath intervals."""
    fast = bounds.node_bounds
    for k, b in enumerate(hamming[::3]):
        fmt = (F64, F32)[k % 2]
        syms = [v for v in b.variables if v in b.expression.free_symbols]
        dom = {s: b.domain[s] for s in syms}
        new = [str(p) for p in bounds.prove([b.expression], syms, dom, fmt)]
        monkeypatch.setattr(bounds, "node_bounds", lambda *a, **k: fast(*a, fast=False))
        old = [str(p) for p in bounds.prove([b.expression], syms, dom, fmt)]
        monkeypatch.setattr(bounds, "node_bounds", fast)
        assert new == old, b.name


def test_boxes_past_the_float_range_are_bounded_in_mpmath():
    """exp(x)/(1 + exp(x)) over [12000, 13000]: both exponentials are past
    every long double (1.2e4932 is e**11356); the float tier leaves such
    boxes to the mpmath tier from the exponentials on, and the hull is the
    mpmath tier's. On [800, 1000] the long doubles hold them: no box is
    left, and the quotient is bounded (loosely: x appears twice) as by
    mpmath."""
    x = A[0]
    f = exp(x) / (1 + exp(x))
    for dom, left in (((12000.0, 13000.0), True), ((800.0, 1000.0), False)):
        prog, fast = bounds.node_bounds([f], [x], {x: dom}, F64)
        _, slow = bounds.node_bounds([f], [x], {x: dom}, F64, fast=False)
        i = prog.order.index(f)
        assert fast[i] == slow[i]
        assert left or (math.isfinite(fast[i][0]) and math.isfinite(fast[i][1]))
        assert fast[prog.order.index(exp(x))][1] == math.inf
        lo, hi = np.array([[dom[0]]]), np.array([[dom[1]]])
        assert bool(boxes.run(prog, lo, hi, F64, 73).bad[0]) == left


def test_a_function_without_a_float_kernel_runs_box_by_box():
    """sin has no kernel in the float tier: its boxes run in the mpmath
    tier's kernel, their ends rounded outward, and feed the float nodes."""
    x = A[0]
    f = 2 * sin(x) + 1
    prog, fast = bounds.node_bounds([f], [x], {x: (-1.0, 1.0)}, F64)
    _, slow = bounds.node_bounds([f], [x], {x: (-1.0, 1.0)}, F64, fast=False)
    for i in range(len(prog.order)):
        if isinstance(slow[i], tuple):
            assert fast[i][0] <= slow[i][0] + 1e-15 and fast[i][1] >= slow[i][1] - 1e-15
    assert fast[prog.order.index(f)] != UNKNOWN


def test_a_ball_arb_cannot_bound_is_left_to_mpmath_never_read_as_zero():
    """exp over [1e300, 1e301]: Arb's ball of exp(1e300) is not finite; the
    box must go to mpmath (a not-finite ball read as [0, 0] once proved
    'exp(a*eps) cannot overflow: a*eps <= inf', a false statement caught
    comparing the tiers on Hamming's NMSE 3.4.2 before it landed)."""
    x = A[0]
    for f in (exp(x), exp(x) + 1):
        dom = {x: (1e300, 1e301)}
        prog, fast = bounds.node_bounds([f], [x], dom, F64)
        _, slow = bounds.node_bounds([f], [x], dom, F64, fast=False)
        assert fast == slow
        assert not any("cannot overflow" in p.statement or "no overflow" in p.statement
                       for p in bounds.prove([f], [x], dom, F64))
