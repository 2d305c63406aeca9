"""The ball tier of the ground truth decides exactly what the mpmath tier does."""

import math
import sys

import numpy as np
import pytest
import sympy as sp
from sympy.codegen.cfunctions import expm1

import symgrad
from symgrad.stability.balls import BallProgram, available
from symgrad.stability.bits import float_format
from symgrad.stability.sampling import parse_domain, sample
from symgrad.stability.truth import RESOLVED, UNDEFINED, UNRESOLVED, GroundTruth
from tests.rules.specs import SPECS

pytestmark = pytest.mark.skipif(not available(), reason="python-flint is not installed")

x, y = sp.symbols("x y", real=True)


def _both(exprs, syms, dtype="float64"):
    fast = GroundTruth(exprs, syms, dtype)
    slow = GroundTruth(exprs, syms, dtype)
    slow.balls = None
    return fast, slow


def _agree(exprs, syms, points, dtype="float64"):
    """Where the ball tier decides, the mpmath tier gives the same float (or
    leaves the point unresolved); statuses are otherwise the mpmath tier's."""
    fast, slow = _both(exprs, syms, dtype)
    assert fast.balls is not None
    v1, s1, _, _ = fast.batch_bounds(points)
    v2, s2, _, _ = slow.batch_bounds(points)
    same = (s1 == s2) & ((v1 == v2) | (np.isnan(v1) & np.isnan(v2)))
    better = (s1 == RESOLVED) & (s2 != RESOLVED)  # more precision than mpmath reached
    assert (same | better).all(), [(exprs[k], points[i], v1[k, i], v2[k, i])
                                   for k, i in np.argwhere(~(same | better))][:3]
    nonzero = same & (v1 != 0)  # (the mpmath tier may call a positive tiny value -0.0)
    assert (np.signbit(v1[nonzero]) == np.signbit(v2[nonzero])).all()
    return fast, points


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_every_table_function_and_gradient_it_compiles(dtype):
    """Each rule-table function and its gradient, at its spec's domain and
    over all floats, 6 points each (the table's functions the tier has no
    kernel for are left wholly to the mpmath tier)."""
    fmt = float_format(dtype)
    compiled = 0
    for spec in SPECS:
        syms = sp.symbols(f"a0:{spec.arity}", real=True)
        f = spec.build(*syms)
        exprs = [f, *symgrad.grad(f, list(syms))]
        if BallProgram.of(GroundTruth(exprs, syms, dtype).program) is None:
            continue
        compiled += 1
        for dom in (dict(zip(syms, spec.domain)), {s: (-sp.oo, sp.oo) for s in syms}):
            pts = sample(parse_domain(dom, list(syms), fmt), list(syms), 6, fmt, 3)
            _agree(exprs, list(syms), pts, dtype)
    assert compiled >= 40


def test_extremes_are_exact():
    pts = np.array([[sys.float_info.max], [1e300], [-1e300], [745.2], [-745.2], [1e-310],
                    [-5e-324], [0.0], [1e-8]])
    exprs = [sp.exp(x), sp.sqrt(sp.Abs(x)), sp.exp(-x) * sp.sinh(x), expm1(x) - x,
             sp.log(1 + sp.exp(x)), sp.erfc(x)]
    fast, _ = _agree(exprs, [x], pts)
    v, s = fast.batch(pts)
    assert (s == RESOLVED).all()
    assert v[0, 1] == math.inf and v[0, 2] == 0.0 and not np.signbit(v[0, 2])
    assert v[1, 0] == math.sqrt(sys.float_info.max)
    assert v[2, 5] == 1e-310  # exp(-x) sinh(x) at a subnormal x: no cancellation to 0


def test_undefined_points_are_left_to_the_mpmath_tier():
    fast, _ = _both([sp.log(x), 1 / x, sp.sqrt(x)], [x])
    assert fast.decided([-1.0]) is None and fast.decided([0.0]) is None
    v, s = fast.batch(np.array([[-1.0], [0.0], [4.0]]))
    assert s[0, 0] == s[2, 0] == UNDEFINED and v[1, 0] == -1.0
    assert s[0, 1] == s[1, 1] == UNDEFINED
    assert v[2, 1] == 0.0 and list(v[:, 2]) == [math.log(4.0), 0.25, 2.0]


def test_a_branch_not_taken_does_not_matter():
    pw = sp.Piecewise((sp.log(x), x > 0), (x**2, True))
    fast, _ = _agree([pw], [x], np.array([[-3.0], [2.0], [0.0]]))
    assert fast.decided([-3.0]) == [9.0]


def test_a_step_is_decided_as_the_mpmath_tier_does():
    # (Heaviside had no kernel here: a formula holding one, the gradient of a Max
    # such as the asymmetric loss's, went wholly to the mpmath tier)
    kink = sp.Heaviside(1 / (1 + sp.exp(-x)) - sp.Rational(1, 20))  # x = log(1/19)
    exprs = [kink * x, sp.Heaviside(x, 0) + sp.Heaviside(sp.exp(x) - 1)]
    pts = np.array([[-3.0], [math.log(1 / 19)], [np.nextafter(math.log(1 / 19), 0)],
                    [0.0], [-5e-324], [7.0]])
    fast, _ = _agree(exprs, [x], pts)
    assert fast.decided([0.0]) == [0.0, 0.5] and fast.decided([-3.0]) == [-0.0, 0.0]


def test_cancellation_is_resolved_as_the_mpmath_tier_does():
    # 0.5 + x - 0.5 cancels every bit for tiny x: the precision jumps to what it needs
    pts = np.array([[1e-200], [-3e-150], [2.0**-1000], [7.0]])
    fast, _ = _agree([(sp.Rational(1, 2) + x) - sp.Rational(1, 2), sp.log(1 + x) - x + x**2 / 2,
                      sp.cos(x) - 1 + y], [x, y], np.hstack([pts, pts * 0]))
    v, s = fast.batch(np.hstack([pts, pts * 0]))
    assert (s == RESOLVED).all() and v[0, 0] == 1e-200


@pytest.mark.parametrize("e, pts", [
    (sp.sin(sp.log(sp.tanh(sp.exp((2 + 1 / x) / x)))), [1e-5, 0.01, 0.2, 0.5, 0.9]),
    (sp.log(sp.erf(sp.exp(x))), [3.0, 5.0, 10.0, 30.0]),
    (sp.exp(x) * sp.log(sp.tanh(x)), [20.0, 400.0, 800.0]),
    (sp.tanh(x) - 1, [20.0, 40.0, 400.0, 800.0]),
    (sp.cos(sp.pi * x / 2), [1.0, 3.0, -1.0]),  # an exact zero
], ids=["sin-log-tanh-exp", "log-erf-exp", "exp-log-tanh", "tanh-1", "cos-zero"])
def test_a_zero_of_unknown_sign_is_unresolved_in_both_tiers(e, pts):
    # a saturated function: 1 - tanh(exp(exp(20))) is far below any ball's radius, so
    # the ball of log(tanh(...)) holds 0 at every precision; both tiers gave it the
    # sign of its lower end, which is not known (log(1 + exp(-1e300)) is positive and
    # came out -0.0).  A zero whose sign the precisions tried do not tell is now
    # unresolved, bounded by -0.0 and +0.0 (the error against either is the same:
    # check_stability keeps it in its figures); where more bits tell it, resolved.
    # At a bounded cost: every precision of both tiers for every such point took
    # 10.6 s of CPU for check_stability of the first formula over (1e-6, 1e6)
    fast, slow = _both([e], [x])
    p = np.array([[v] for v in pts])
    for tier in (fast, slow):
        _, s, lo, hi = tier.batch_bounds(p)
        unres = s[0] == UNRESOLVED
        assert ((s[0] == RESOLVED) | unres).all()
        assert (lo[0, unres] == 0).all() and np.signbit(lo[0, unres]).all()
        assert (hi[0, unres] == 0).all() and not np.signbit(hi[0, unres]).any()
    (v1, s1), (v2, s2) = fast.batch(p), slow.batch(p)
    both = (s1 == RESOLVED) & (s2 == RESOLVED)
    assert (v1[both] == v2[both]).all() and (np.signbit(v1[both]) == np.signbit(v2[both])).all()


@pytest.mark.parametrize("e, v, sign", [
    (sp.log(1 + sp.exp(x)), -1e300, 1.0),  # log1p(e**-1e300) > 0: the balls said -0.0
    (sp.cosh(x) - 1, 5e-324, 1.0),  # 1.2e-647: 2,150 bits tell it
    (sp.tanh(x) - 1, 800.0, -1.0),
    (1 - sp.tanh(x)**2, -800.0, 1.0),  # (1 + tanh)(1 - tanh), each a complement
    (2 - 2 * sp.erf(x)**2, 30.0, 1.0),
    (sp.cos(sp.pi * x / 2), 3.0, None),  # exactly 0: no ball tells its sign
], ids=["softplus", "cosh-1", "tanh-1", "tanh-derivative", "erf-square", "exact-zero"])
def test_the_sign_of_a_zero_is_established_or_unresolved(e, v, sign):
    vals, st = GroundTruth([e], [x]).at([v])
    if sign is None:
        assert st == [UNRESOLVED]
    else:
        assert st == [RESOLVED] and vals[0] == 0 and math.copysign(1.0, vals[0]) == sign


def test_one_minus_a_saturated_square_is_exact_in_both_tiers():
    """1 - tanh(u)**2 as (1 + tanh(u))*(1 - tanh(u)), each a complement: at u = 20
    it is 4e**-40/(1 + e**-40)**2, which the sum as written leaves to 17 bits."""
    import mpmath

    fast, slow = _both([1 - sp.tanh(x)**2], [x])
    with mpmath.workprec(300):
        want = float(1 / mpmath.cosh(mpmath.mpf(20))**2)
    for g in (fast, slow):
        vals, st = g.at([20.0])
        assert st == [RESOLVED] and vals == [want]


def test_without_python_flint_or_long_double_symgrad_imports_and_proves_the_same():
    # python-flint is a dependency, but the ball tiers are written to step
    # aside without it (balls.available()); until 2026-11-27 boxes.py's import
    # of flint's context made `import symgrad` fail there.  The proofs' float
    # tier keeps its ends in float64 where NumPy has no 80-bit long double
    # (Windows, ARM macOS): both fallbacks at once, the same statements
    import subprocess
    from pathlib import Path

    from .prove_cases import statements

    code = ("import sys, numpy; sys.modules['flint'] = None; numpy.longdouble = numpy.float64\n"
            "from symgrad.stability import balls, boxes\n"
            "from tests.stability.prove_cases import statements\n"
            "print(balls.available(), boxes.DT.__name__)\n"
            "print(*statements('float32'), sep='\\n')\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=root)
    lines = out.stdout.splitlines()
    assert lines[0] == "False float64"
    here = statements("float32")
    assert len(here) >= 6 and lines[1:] == here
