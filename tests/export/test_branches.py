"""export.branches: a Piecewise on one symbol's sign loses its dead branches
and computes mirror-image branches once, at -|x|, with the same values
(traced code computes every branch at every point)."""

import numpy as np
import pytest
import sympy as sp
from sympy.codegen.cfunctions import expm1

import symgrad
from symgrad.export.branches import (
    cancelled_into_branches,
    clamped_branches,
    context_pruned,
    exps_by_magnitude,
    shared_branches,
)
from symgrad.graph import postorder
from symgrad.stability.bits import FORMATS, bits_error
from symgrad.stability.sampling import sample
from symgrad.stability.truth import GroundTruth

x, y = sp.symbols("x y", real=True)
FMT = FORMATS["float64"]
E, F = sp.exp(x), sp.exp(-x)

# stabilize's exp-normalized regimes per sign (as it writes them), with the
# exact function each computes
EVEN = [  # sigmoid' (with stabilize's dead x == 0 branch), logistic density, sech**2
    (sp.Piecewise((E / (sp.exp(2 * x) + 2 * E + 1), x <= 0),
                  (1 / (2 * (E / 2 + 1 + F / 2)), (x >= 0) & (x <= 0)),
                  (F / (1 + 2 * F + sp.exp(-2 * x)), True)), E / (1 + E) ** 2),
    (sp.Piecewise((F / (1 + F) ** 2, x >= 0), (E / (1 + E) ** 2, True)), E / (1 + E) ** 2),
    (sp.Piecewise((4 * sp.exp(2 * x) / (sp.exp(2 * x) + 1) ** 2, x < 0),
                  (4 * sp.exp(-2 * x) / (sp.exp(-2 * x) + 1) ** 2, True)), sp.sech(x) ** 2),
]
ODD = [  # tanh (log cosh'), and a sign-split x/(1 + |x|)-like ratio
    (sp.Piecewise((-expm1(-2 * x) / (1 + sp.exp(-2 * x)), x >= 0),
                  (expm1(2 * x) / (sp.exp(2 * x) + 1), True)), sp.tanh(x)),
    (sp.Piecewise((x / (1 - x), x <= 0), (x / (1 + x), True)), x / (1 + sp.Abs(x))),
]


def _pieces(e):
    order, _ = postorder([e], lambda n: n.args)
    return sum(isinstance(n, sp.Piecewise) for n in order)


def _check_same_values(before, after, exact):
    pts = sample({x: (-800.0, 800.0)}, [x], 400, FMT, 3)
    with np.errstate(all="ignore"):
        a, b = (np.asarray(symgrad.lambdify([x], [f])(pts[:, 0])[0]) * np.ones(len(pts))
                for f in (before, after))
    truth = GroundTruth([exact], [x]).batch(pts)[0][0]
    # the same function, computed by the mirror branch's operations: as accurate
    assert np.nanmax(bits_error(b, truth, FMT)) <= np.nanmax(bits_error(a, truth, FMT)) + 1
    assert np.nanmax(bits_error(b, truth, FMT)) <= 3
    assert np.all(np.isfinite(b) == np.isfinite(a))


@pytest.mark.parametrize("form, exact", EVEN)
def test_an_even_regime_is_one_branch_at_minus_abs(form, exact):
    (out,) = shared_branches([form])
    assert _pieces(out) == 0
    order, _ = postorder([out], lambda n: n.args)
    assert sp.Abs(x) in order and x not in [n for n in order if n.func is sp.exp]
    _check_same_values(form, out, exact)


@pytest.mark.parametrize("form, exact", ODD)
def test_an_odd_regime_shares_its_branch_and_selects_the_sign(form, exact):
    (out,) = shared_branches([form])
    assert isinstance(out, sp.Piecewise) and len(out.args) == 2
    assert out.args[0].expr == -out.args[1].expr  # t and -t: t computed once
    order, _ = postorder([out.args[0].expr], lambda n: n.args)
    assert sp.Abs(x) in order
    _check_same_values(form, out, exact)


def test_a_dead_branch_is_dropped_and_the_rest_kept():
    p = sp.Piecewise((x**3, x <= 0), (5, (x >= 0) & (x <= 0)), (x**2, True))
    assert shared_branches([p]) == [sp.Piecewise((x**3, x <= 0), (x**2, True))]


@pytest.mark.parametrize("p", [
    sp.Piecewise((x**3, x < 0), (x**2, True)),  # not mirror images
    sp.Piecewise((sp.exp(x), x < 1), (sp.exp(-x), True)),  # split at 1, not at the sign
    sp.Piecewise((sp.exp(x), x < y), (sp.exp(-x), True)),  # a condition on two symbols
    sp.Piecewise((sp.exp(y), x < 0), (sp.exp(-y), True)),  # mirrored in y, split on x
])
def test_other_piecewise_are_kept(p):
    assert shared_branches([p + y]) == [p + y]


def test_inside_a_larger_formula_and_shared():
    form, exact = EVEN[1]
    (out,) = shared_branches([y * form + sp.log(form)])
    assert _pieces(out) == 0
    order, _ = postorder([out], lambda n: n.args)
    assert [n for n in order if n.func is sp.exp] == [sp.exp(-sp.Abs(x))]  # one exp, shared


def test_folded_only_where_the_domain_holds_the_mirror_image():
    form, _ = EVEN[0]
    # x in (0, 745) has no mirror image in (-1, 745): the x <= 0 branch was not
    # measured at -x there; only the dead branch goes
    (kept,) = shared_branches([form], {x: (-1, 745)})
    assert isinstance(kept, sp.Piecewise) and len(kept.args) == 2
    assert _pieces(shared_branches([form], {x: (-745, 1)})[0]) == 0  # (-1, 0) mirrors (0, 1)
    assert _pieces(shared_branches([form], {y: (0, 1)})[0]) == 0  # x: all floats


def test_the_folded_branch_is_computed_as_written():
    # stabilize writes exp(x/2)*exp(x/2) where exp(x) would be subnormal: SymPy's
    # evaluation would merge it back into exp(x)
    def branch(u):
        half = sp.Mul(sp.exp(u / 2), sp.exp(u / 2), evaluate=False)
        return sp.Mul(half, sp.Pow(1 + sp.exp(u), -1), evaluate=False)

    p = sp.Piecewise((branch(x), x <= 0), (branch(-x), True))
    (out,) = shared_branches([p])
    assert _pieces(out) == 0
    order, _ = postorder([out], lambda n: n.args)
    exps = {n for n in order if n.func is sp.exp}
    assert len(exps) == 2 and sp.exp(-sp.Abs(x)) in exps  # exp(-|x|/2), as written: kept


def test_piecewise_factors_on_one_sign_are_multiplied_into_one():
    # stabilize's regimes per factor of sech(x)**2 = 4 P Q / (1 + t)**2, with
    # P = (1 if x >= 0 else t), Q = (1 if x <= 0 else t), t = exp(-2|x|): P Q
    # is t on each side and at 0 (1 = exp(0)), so no branch is left
    t = sp.exp(-2 * sp.Abs(x))
    P, Q = sp.Piecewise((1, x >= 0), (t, True)), sp.Piecewise((1, x <= 0), (t, True))
    form = sp.Mul(4, P, Q, sp.Pow(1 + t, -2), evaluate=False)
    (out,) = shared_branches([form])
    assert _pieces(out) == 0
    _check_same_values(form, out, sp.sech(x) ** 2)
    # the zero branch differs from both sides' formulas at 0 (2x vs x*t): kept
    # as a two-branch Piecewise whose x >= 0 side is the product's (2x there)
    R = sp.Piecewise((x, x < 0), (2 * x, True))
    (two,) = shared_branches([sp.Mul(P, R, evaluate=False)])
    assert _pieces(two) == 1
    f = symgrad.lambdify([x], [two])
    assert [float(f(v)[0]) for v in (-1.0, 0.0, 1.5)] == [-float(np.exp(-2.0)), 0.0, 3.0]
    assert np.signbit(f(-0.0)[0])  # 2*(-0.0): the sign of the zero is the product's


def test_a_branch_to_a_constant_is_a_clamp_in_torch_with_the_same_values():
    # sigmoid as stabilize writes it: (1 if x >= 0 else t)/(1 + t), t = exp(-|x|):
    # exp(min(x, 0)) on the numerator, no torch.where (random signs make a select
    # cost ~5 exps in eager PyTorch); bitwise the same values, specials included
    from symgrad.export.source import compile_source, generate

    from ..backends import torch

    t = sp.exp(-sp.Abs(x))
    form = sp.Piecewise((1, x >= 0), (t, True)) / (1 + t)
    (out,) = clamped_branches([form])
    assert _pieces(out) == 0 and sp.Min(x, 0) in postorder([out], lambda n: n.args)[0]
    (odd,) = clamped_branches([sp.Piecewise((x, x >= 0), (2 * x, True))])  # no constant side
    assert _pieces(odd) == 1
    pts = np.concatenate([sample({x: (-800.0, 800.0)}, [x], 200, FMT, 4)[:, 0],
                          [0.0, -0.0, 5e-324, -5e-324, np.inf, -np.inf, np.nan, -745.2]])
    src = generate("torch", [x], [form])
    assert "torch.where" not in src
    got = compile_source(src)(torch.from_numpy(pts))[0].numpy()
    want = np.asarray(symgrad.lambdify([x], form)(pts))
    nan = np.isnan(want)  # (NaN's sign bit differs between the libraries)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.int64), want[~nan].view(np.int64))


def test_an_abs_of_an_abs_is_one_abs_in_exported_code():
    # a rewrite for a real u meeting u = -|x| (softplus-log1p on stabilize's
    # log1p(exp(-|x|))) writes exp(-|-|x||): as exp(-|x|) it is one node with the
    # gradient's exp(-|x|), computed once where value and Jacobian share a program
    from sympy.codegen.cfunctions import log1p

    from symgrad.export.source import compile_source, generate

    from ..backends import torch

    twice = sp.Abs(sp.Mul(-1, sp.Abs(x), evaluate=False), evaluate=False)
    value = log1p(sp.exp(sp.Mul(-1, twice, evaluate=False))) + sp.Max(0, x)
    src = generate("torch", [x], [value, sp.exp(-sp.Abs(x))])
    assert src.count("torch.abs") == 1 and src.count("torch.exp") == 1
    pts = np.array([-800.0, -30.0, -0.0, 0.0, 2.5, 750.0, np.inf, -np.inf])
    got = compile_source(src)(torch.from_numpy(pts))[0].numpy()
    assert np.array_equal(got, symgrad.lambdify([x], value)(pts))


def test_exponentials_that_cancel_in_a_branch_are_moved_into_the_branches():
    # d/dx log(erfc(x)) as a rewrite of erfc writes it: exp(-x**2) outside,
    # exp(x**2)/erfcx(x) in the branch where erfc underflows (log Phi's gradient
    # has the same shape with exp(-x**2/2)): there the two cancel
    from scipy.special import erfcx

    from symgrad.rewrites.forms import erfcx as g

    tail = sp.Piecewise((sp.exp(x**2) / g(x), x > 1), (1 / sp.erfc(x), True))
    form = sp.Mul(-2, sp.exp(-(x**2)), tail, sp.Pow(sp.sqrt(sp.pi), -1), evaluate=False)
    (out,) = cancelled_into_branches([form])
    exps = [n for n in postorder([out], lambda n: n.args)[0] if isinstance(n, sp.exp)]
    assert exps == [sp.exp(-(x**2))]  # only the other branch's
    other = sp.Mul(2, sp.exp(x), tail, evaluate=False)  # nothing cancels: left as it is
    assert cancelled_into_branches([other])[0] is other
    pts = np.array([-3.0, 0.0, 0.5, 1.5, 4.0, 25.0, 30.0, 1e3])
    f = symgrad.lambdify([x], out)
    with np.errstate(all="ignore"):
        old = symgrad.lambdify([x], form)(pts)
    want = np.where(pts > 1, -2 / np.sqrt(np.pi) / erfcx(pts), old)
    np.testing.assert_allclose(f(pts), want, rtol=4e-16)
    assert np.isnan(old[-2:]).all()  # exp(x**2) overflowed there: 0 * inf


R2 = sp.sqrt(2)
# stabilize's nesting (log Phi's second derivative): a regime inside a regime
# whose condition rules out its other arm; a domain that rules out an arm; an
# arm on the same boundary (x = -1 reaches it); conditions not on a multiple
# of one symbol (kept)
NESTED = [
    (sp.Piecewise((sp.Piecewise((sp.exp(x), R2 * x < -1.6), (sp.log(-x), True)), R2 * x < -11.7),
                  (sp.sin(x), True)), None, 1),
    (sp.Piecewise((sp.exp(x), x < -40), (sp.sin(x), x < 0), (sp.cos(x), True)), (-30, 30), 1),
    (sp.Piecewise((sp.Piecewise((sp.Piecewise((sp.exp(x), x > -3), (x, True)), x < 5),
                                 (sp.log(x), True)), (x > 0) & (x < 2)), (sp.cos(x), True)),
     None, 1),
    (sp.Piecewise((sp.Piecewise((sp.exp(x), x < -1), (sp.log(x + 2), True)), x <= -1),
                  (x, True)), None, 2),
    (sp.Piecewise((sp.Piecewise((sp.exp(x), sp.Abs(x) < 1), (x, True)), x < 3),
                  (x, True)), None, 2),
]


@pytest.mark.parametrize("form, dom, pieces", NESTED)
def test_arms_no_point_of_their_context_reaches_are_dropped(form, dom, pieces):
    (out,) = context_pruned([form], {x: dom} if dom else None)
    assert _pieces(out) == pieces
    # the same arm's formula at every point, boundaries, infinities and NaN too
    edges = [b * (1 + d) for b in (-11.7 / 1.4142135623730951, -40, -30, -3, -1, 0, 2, 3, 5)
             for d in (-1e-15, 0, 1e-15)]
    pts = np.concatenate([np.linspace(-60, 60, 2001), edges, [np.inf, -np.inf, np.nan]])
    if dom:
        pts = np.concatenate([pts[(pts >= dom[0]) & (pts <= dom[1])], [np.nan]])
    with np.errstate(all="ignore"):
        a, b = (np.asarray(sp.lambdify([x], f, "numpy")(pts), float) * np.ones(len(pts))
                for f in (form, out))
    assert np.array_equal(a, b, equal_nan=True)


def test_exported_code_computes_no_arm_its_context_rules_out():
    from symgrad.export.source import generate

    form = NESTED[0][0]
    src = generate("jax", [x], [form])
    assert "jnp.log(" not in src and "jnp.exp(" in src


def _exps(forms):
    return {n for n in postorder(forms, lambda n: n.args)[0] if isinstance(n, sp.exp)}


# arms per sign of x, as stabilize writes SiLU's gradient (its series about the
# zero first, an underflow split inside), an odd ratio (no mirror fold) and
# sigmoid's where the domain holds no mirror image (no fold)
SIGNED = [
    (sp.Piecewise((x**2, (x >= -1.75) & (x <= -0.25)),
                  (sp.Piecewise(((sp.Piecewise((x * E, x >= -708.4), (sp.Mul(
                      x * sp.exp(x / 2), sp.exp(x / 2), evaluate=False), True))
                                  + E + sp.exp(2 * x)) / (1 + 2 * E + sp.exp(2 * x)), x <= 0),
                                ((1 + x * F + F) / (1 + 2 * F + sp.exp(-2 * x)), True)), True)),
     None, 3),
    (sp.Piecewise((3 * E / (1 + E), x < 0), (x - F / (1 + F), True)), None, 1),
    (sp.Piecewise((E / (1 + E) ** 2, x <= 0), (F / (1 + F) ** 2, True)), (-1, 745), 1),
]


@pytest.mark.parametrize("form, dom, exps", SIGNED)
def test_exponentials_of_one_magnitude_on_either_side_of_zero_are_computed_once(form, dom, exps):
    (out,) = exps_by_magnitude([form], {x: dom} if dom else None)
    assert len(_exps([out])) == exps < len(_exps([form]))
    # the same floats at every point (symgrad's code: sums as written): both sides,
    # 0, -0, underflow, infinities, NaN
    pts = np.concatenate([np.linspace(-800, 800, 4001), [0.0, -0.0, 5e-324, -5e-324, -708.4],
                          [np.inf, -np.inf, np.nan], -np.geomspace(1e-300, 1e3, 300)])
    if dom:
        pts = np.concatenate([pts[(pts >= dom[0]) & (pts <= dom[1])], [np.nan]])
    with np.errstate(all="ignore"):
        a, b = (np.asarray(symgrad.lambdify([x], [f])(pts)[0], float) * np.ones(len(pts))
                for f in (form, out))
    assert np.array_equal(a, b, equal_nan=True)


def test_an_exponential_also_read_without_a_sign_is_left_as_it_is():
    form = E * x + sp.Piecewise((E + sp.exp(2 * x), x <= 0), (F + sp.exp(-2 * x), True))
    (out,) = exps_by_magnitude([form])
    assert sp.exp(x) in _exps([out]) and len(_exps([out])) == 3  # exp(2x) and exp(-2x): one


def test_a_deep_where_chains_derivatives_pass_over_the_dag(monkeypatch):
    # e = where(e > k, sin(e) + k, 2e), 16 deep (65,536 paths as a tree), and
    # its first and second derivatives: every export pass reads conditions,
    # arms and region inputs over the DAG.  Each walked the tree before
    # (SymPy's Piecewise folding of a condition holding a Piecewise,
    # as_independent, the text of a region's inputs, nested And/Or as sets):
    # jax.grad of a 5-deep chain 44 s, to_jax of a 15-deep one 64 s, its
    # Hessian 10 deep never finished.  Same values.
    import itertools

    import symgrad.export.branches as branches
    from symgrad.build import deduplicated
    from symgrad.export.subsets import masked_regions
    from symgrad.export.xla_guards import products_kept_rounded
    from symgrad.graph import count_ops

    e = x
    for k in range(16):
        e = symgrad.where(e > k % 3, sp.sin(e) + k % 3, 2 * e)
    forms = [e, symgrad.grad(e, [x])[0], symgrad.hessian(e, [x])[0, 0]]
    # (the mirror-image screen tells the Hessian's Piecewise((0, x > 0), (D, True))
    # apart without SymPy's canonical form of D, the chain's whole derivative)
    monkeypatch.setattr(branches, "_canonical", lambda f: pytest.fail("canonical forms asked"))
    steps = [step(forms) for step in (shared_branches, context_pruned, exps_by_magnitude)]
    got = symgrad.lambdify([x], forms + sum(steps, []))(np.array([-0.7, 0.25, 0.5, 1.3, 2.9]))
    for k in range(1, 4):  # (one program: each compile costs more than its passes)
        np.testing.assert_array_equal(got[3 * k:3 * k + 3], got[:3])
    roots, _ = masked_regions(forms, itertools.count())
    assert len(roots) == 3
    # one object per distinct node (differentiation leaves equal copies, and every
    # dict of nodes compared a copy with its equal), and no pass copies the chain for
    # an arm (context_pruned rebuilt it for the Hessian's arm on x <= 0: twice the
    # operations to drop one sin); a product's bound over the chain built as written
    # (SymPy sorted its factors comparing them as trees: 37 s at this depth)
    one = deduplicated(forms)
    assert _objects(one) == len(postorder(forms, lambda n: n.args)[0]) < _objects(forms)
    assert count_ops(context_pruned(one)) <= count_ops(forms)
    assert len(products_kept_rounded(one)) == 3


def _objects(roots: list) -> int:
    """The distinct objects (not nodes: equal copies counted each) in ``roots``."""
    seen: dict = {}
    stack = list(roots)
    while stack:
        n = stack.pop()
        if id(n) not in seen:
            seen[id(n)] = n
            stack.extend(n.args)
    return len(seen)
