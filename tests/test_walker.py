"""The walker: every distinct node once, iteratively, linear in the DAG.

The recurrence ``y <- a_k*sin(y) + cos(y)`` is a DAG of ~5 nodes a level
whose printed tree doubles every level; ``sympy.diff`` cannot take it past
depth ~16.
"""

from __future__ import annotations

import random
import sys

import mpmath
import pytest
from sympy import Add, Function, Mul, S, Symbol, Tuple, cos, exp, log, sign, sin, symbols
from sympy.core.cache import clear_cache

from symgrad import RuleError, grad, hessian, jvp
from symgrad.graph import postorder
from symgrad.resolver import ACTIVE_MAPS
from symgrad.rules import DEFAULT_TABLE, Opts, PartialsRule, VJPRule
from symgrad.walker import Walk, forward, reverse

from .oracles import dag_values

x = Symbol("x", real=True)


@pytest.fixture(autouse=True)
def _fresh_sympy_cache():
    """Each test starts from an empty SymPy cache.  SymPy compares cache keys
    structurally, without memo: once some entries of a deep formula are
    evicted, rebuilding the same formula makes equal but distinct nodes, and
    comparing them costs the size of the printed tree (exponential in the
    depth of the recurrences here).  symgrad leaves the user's cache alone,
    so tests that build the same deep formulas must not share it."""
    clear_cache()


def recurrence(depth: int, evaluate: bool = True):
    """``(y_depth, x, (a_1, ..., a_depth))`` with ``y_0 = x``.

    ``evaluate=False`` builds the same DAG without SymPy's canonicalisation,
    which at depth 10,000 takes SymPy ~15 s (not symgrad's time).
    """
    a = symbols(f"a1:{depth + 1}", real=True)
    y = x
    for ak in a:
        if evaluate:
            y = ak * sin(y) + cos(y)
        else:
            y = Add(Mul(ak, sin(y, evaluate=False), evaluate=False), cos(y, evaluate=False),
                    evaluate=False)
    return y, a


def dual_recurrence(x0, avals, dx, da):
    """The recurrence and its directional derivative, iterated numerically."""
    y, dy = x0, dx
    for ak, dak in zip(avals, da):
        s, c = mpmath.sin(y), mpmath.cos(y)
        y, dy = ak * s + c, dak * s + ak * c * dy - s * dy
    return y, dy


def test_deep_recurrence_past_the_recursion_limit_without_recursion_error():
    # 200 levels past Python's recursion limit: each level costs a recursive
    # walk at least one frame, so any of them fails here (10^4 levels took 27 s
    # of the suite at load 4, three times the limit 1.4 s of CPU, this 0.27 s)
    depth = sys.getrecursionlimit() + 200
    y, a = recurrence(depth, evaluate=False)
    wrt = [x, *a]
    g = grad(y, wrt)
    assert len(g) == depth + 1
    assert all(gi != 0 for gi in g[:: 97])
    # the last level: d y_N / d a_N is sin(y_{N-1}), the very node of the formula
    assert g[-1] == y.args[0].args[1]


def _shared_weight_recurrence(depth: int, b: Symbol):
    y = x
    for _ in range(depth):
        y = Add(Mul(b, sin(y, evaluate=False), evaluate=False), cos(y, evaluate=False),
                evaluate=False)
    return y


def test_deep_recurrence_with_one_shared_weight_without_recursion_error():
    # y <- b*sin(y) + cos(y): b's cotangents, one per level, are alike down to
    # the bottom, and SymPy's canonical ordering of their sum (and of the
    # Hessian's products) compared them recursively: RecursionError
    # (700 and 500 levels are past where SymPy's sort recursed too deeply:
    # forms.total fell back to an unevaluated sum there, measured 2026-11-26)
    b = Symbol("b", real=True)
    y = _shared_weight_recurrence(700, b)
    gx, gb = grad(y, [x, b])
    yv, dy, db = mpmath.mpf("0.3"), 1, 0
    with mpmath.workdps(30):
        for _ in range(700):
            s, c = mpmath.sin(yv), mpmath.cos(yv)
            yv, dy, db = s / 2 + c, (c / 2 - s) * dy, s + (c / 2 - s) * db
        got = dag_values([gx, gb], {x: S(3) / 10, b: S(1) / 2}, dps=30)
        assert abs(got[0] - dy) < 1e-20 and abs(got[1] - db) < 1e-20
    h = hessian(_shared_weight_recurrence(500, b), [x, b])
    assert h[0, 1] == h[1, 0] and h[1, 1] != 0


@pytest.fixture(scope="module")
def deep1000():
    y, a = recurrence(1000, evaluate=False)  # the same DAG, without SymPy's 8 s of sorting
    rng = random.Random(1000)
    point = {x: round(rng.uniform(-1, 1), 6)}
    point.update({ak: round(rng.uniform(-0.9, 0.9), 6) for ak in a})
    return y, a, point


def test_deep_recurrence_1000_reverse_agrees_with_forward_numerics(deep1000):
    y, a, point = deep1000
    wrt = [x, *a]
    g = grad(y, wrt)
    rng = random.Random(7)
    v = [rng.choice([-1, 1]) * rng.random() for _ in wrt]
    with mpmath.workdps(40):
        gv = dag_values(list(g), point, dps=40)
        avals = [mpmath.mpf(str(point[ak])) for ak in a]
        want_y, want_dy = dual_recurrence(mpmath.mpf(str(point[x])), avals, v[0], v[1:])
        got = mpmath.fsum(gi * vi for gi, vi in zip(gv, v))
        assert abs(dag_values([y], point, dps=40)[0] - want_y) < mpmath.mpf(10) ** -30
        assert abs(got - want_dy) <= mpmath.mpf(10) ** -25 * max(1, abs(want_dy))
        # single partials: x, and a level near the start, middle and end
        for k in (0, 1, 500, 1000):
            e = [0] * (len(a) + 1)
            e[k] = 1
            _, want = dual_recurrence(mpmath.mpf(str(point[x])), avals, e[0], e[1:])
            assert abs(gv[k] - want) <= mpmath.mpf(10) ** -25 * max(1, abs(want)), k


def test_deep_recurrence_1000_jvp_agrees_with_forward_numerics(deep1000):
    y, a, point = deep1000
    wrt = [x, *a]
    rng = random.Random(8)
    v = [S(rng.randint(-5, 5)) / 4 for _ in wrt]
    t = jvp(y, wrt, v)
    with mpmath.workdps(40):
        got = dag_values([t], point, dps=40)[0]
        avals = [mpmath.mpf(str(point[ak])) for ak in a]
        vv = [mpmath.mpf(vi.p) / vi.q for vi in v]
        _, want = dual_recurrence(mpmath.mpf(str(point[x])), avals, vv[0], vv[1:])
        assert abs(got - want) <= mpmath.mpf(10) ** -25 * max(1, abs(want))


def _size(exprs) -> int:
    return len(postorder(list(exprs), lambda n: n.args)[0])


def test_gradient_program_grows_linearly_with_depth():
    sizes = {}
    for depth in (50, 100, 200):
        y, a = recurrence(depth)
        g = grad(y, [x, *a])
        sizes[depth] = (_size([y]), _size(g))
        assert sizes[depth][1] <= 6 * sizes[depth][0], sizes
    # linear: doubling the depth at most doubles the program (plus slack)
    assert sizes[200][1] <= 2.2 * sizes[100][1] <= 2.2**2 * sizes[50][1]


def test_gradient_costs_a_constant_times_the_function_not_n_times():
    n = 60
    xs = symbols(f"x0:{n}", real=True)
    f = Add(*[100 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1 - xs[i]) ** 2 for i in range(n - 1)])
    g = grad(f, list(xs))
    assert _size(g) <= 4 * _size([f])


def test_walk_visits_each_distinct_node_once():
    y, _ = recurrence(30)
    walk = Walk([y], frozenset([x]), Opts())
    assert len(walk.order) == len(set(walk.order))
    assert walk.order[-1] == y
    pos = {n: i for i, n in enumerate(walk.order)}
    assert all(pos[k] < pos[n] for n in walk.order for k in walk.inputs[n])


def test_each_rule_runs_once_per_distinct_node():
    calls = []

    def sin_vjp(node, ct):
        calls.append(node)
        return (ct * cos(node.args[0]),)

    DEFAULT_TABLE.add("counting_sin", VJPRule("counting_sin", sin_vjp))
    token = ACTIVE_MAPS.set(({"sin": "counting_sin"},))
    try:
        y, a = recurrence(40)
        grad(y, [x, *a])
        assert len(calls) == 40 and len(set(calls)) == 40
        calls.clear()
        jvp(y, [x], [1])
        assert len(calls) == 40
    finally:
        ACTIVE_MAPS.reset(token)
        DEFAULT_TABLE.remove("counting_sin")


def test_shared_subexpression_accumulates_all_paths():
    u = sin(x)
    e = u * u + exp(u) + u
    assert (grad(e, x) - (2 * u + exp(u) + 1) * cos(x)).expand() == 0
    assert (jvp(e, x, 1) - (2 * u + exp(u) + 1) * cos(x)).expand() == 0


def test_reverse_and_forward_entry_points():
    y = Symbol("y", real=True)
    e1, e2 = x * y, sin(x)
    got = reverse([e1, e2], [S(2), S(3)], [x, y], Opts())
    assert got == {x: 2 * y + 3 * cos(x), y: 2 * x}
    # a symbol no cotangent reaches is missing, not zero
    assert reverse([e1], [S.One], [Symbol("z")], Opts()) == {}
    assert reverse([e1], [S.Zero], [x], Opts()) == {}
    assert forward([e1, e2, y], {x: S.One}, Opts()) == [y, cos(x), None]
    assert forward([e1], {x: S.Zero}, Opts()) == [None]


@pytest.mark.parametrize("make", [
    lambda u: abs(u ** S.Half),
    lambda u: abs(u ** S.Half + 1),
    lambda u: abs(log(u)),
    lambda u: abs(u ** S.Half - 2) ** 2,
    lambda u: u * sign(u ** S.Half + 1),
], ids=["Abs(sqrt)", "Abs(sqrt+1)", "Abs(log)", "Abs(sqrt-2)**2", "x*sign(sqrt+1)"])
def test_walker_reverse_agrees_with_grad_where_values_inside_are_complex(make):
    # a real formula holding complex values for x < 0: the walker itself
    # takes the real part (or runs forward mode) where the rules of Abs and
    # sign sent complex cotangents down, so its answer is grad's, and the
    # derivative's (a central difference at x = -2 and x = 3)
    e = make(x)
    got = reverse([e], [S.One], [x], Opts())[x]
    assert got == grad(e, x)
    for v in (-2, 3):
        h = 1e-6
        num = (complex(e.subs(x, v + h).evalf()) - complex(e.subs(x, v - h).evalf())) / (2 * h)
        assert abs(complex(got.subs(x, v).evalf()) - num) < 1e-8


def test_a_rule_reports_a_complex_cotangent_in_the_walk_state_it_is_given():
    # no ambient state: what a rule tells the walk goes through opts.walk
    from symgrad.rules.forms import WalkState
    from symgrad.rules.structural import AbsRule

    state = WalkState()
    AbsRule().vjp(abs(x ** S.Half), S.One, [True], Opts(walk=state))
    assert state.projected
    state = WalkState()
    AbsRule().vjp(abs(x), S.One, [True], Opts(walk=state))
    assert not state.projected
    assert AbsRule().vjp(abs(x ** S.Half), S.One, [True], Opts())  # outside a walk


def test_a_rule_takes_the_walks_own_nodes_from_the_walk_state_it_is_given():
    # no ambient state: the sin rule's cos(u) is the walk's node, handed to
    # it in opts.walk (a ContextVar held the walk's nodes before)
    import symgrad.rules.shared as shared_module
    from symgrad.rules.forms import WalkState

    u = x**3 + x
    mine = cos(u, evaluate=False)
    rule = DEFAULT_TABLE.rule("sin")
    got = rule.partials(sin(u), [True], Opts(walk=WalkState(nodes={mine: mine})))[0]
    assert got is mine
    assert rule.partials(sin(u), [True], Opts())[0] == cos(u)  # outside a walk
    assert not any(type(v).__name__ == "ContextVar" for v in vars(shared_module).values())


def test_gradient_into_a_non_expression_node_is_an_error():
    f = Function("f")
    e = f(x) + Symbol("y")
    assert grad(e, x) == grad(f(x), x)
    g = Function("g")
    with pytest.raises(RuleError, match="is not an expression, so no gradient can flow into it"):
        grad(g(Tuple(x, 1)), x)


def test_rule_error_from_deep_inside_names_the_node():
    y, _ = recurrence(5)
    DEFAULT_TABLE.add("broken", PartialsRule("broken", lambda o, u: (u, u), joint=True))
    token = ACTIVE_MAPS.set(({"cos": "broken"},))
    try:
        with pytest.raises(RuleError, match=r"rule 'broken' returned 2 partials for node cos\("):
            grad(y, x)
    finally:
        ACTIVE_MAPS.reset(token)
        DEFAULT_TABLE.remove("broken")


def test_unary_chain_gradient_is_linear_not_quadratic():
    """A cotangent carried down sin(sin(...)) is a growing product; it must
    be shared level to level, not copied (that was quadratic)."""
    import sympy as sp

    from symgrad import grad, jvp
    from symgrad.graph import count_ops, postorder

    x = sp.Symbol("x")
    e = x
    for _ in range(250):  # SymPy's own construction recurses past about 300
        e = sp.sin(e)
    g, t = grad(e, x), jvp(e, x, 1)
    for d in (g, t):
        order, kids = postorder([d], lambda n: n.args)
        assert max(len(k) for k in kids.values()) <= 8  # no node copies the chain
        assert count_ops([d]) <= 3 * 250
    # the nested products are the same number as SymPy's flat one
    small = x
    for _ in range(12):
        small = sp.sin(small)
    assert sp.expand(grad(small, x) - sp.diff(small, x)) == 0  # (simplify: 2 s)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_failing_rule_leaves_the_collector_as_it_was(mode):
    import gc

    def broken(node, g):
        raise ValueError("broken")

    old = DEFAULT_TABLE.entry("sin")
    DEFAULT_TABLE.add("sin", VJPRule("sin", broken), sin, replace=True)
    try:
        with pytest.raises(RuleError, match="broken"):
            if mode == "reverse":
                grad(sin(x) * exp(x), x)
            else:
                jvp(sin(x) * exp(x), x, 1)
    finally:
        DEFAULT_TABLE.add("sin", old.rule, old.cls, replace=True)
    assert gc.isenabled()  # the collector, paused during the walk, runs again
    gc.disable()  # and one the user turned off stays off
    try:
        grad(sin(x) * exp(x), x)
        assert not gc.isenabled()
    finally:
        gc.enable()


# ---- grouped nodes: one rule call for the sibling outputs of one operation ----


class _PairRule(VJPRule):
    """Groups pair0(a) and pair1(a); its answer is 10*ct0 + ct1**2 (not
    linear in the cotangents, so a per-member call would differ)."""

    def __init__(self):
        super().__init__("Pair", lambda node, ct: (ct,))
        self.calls = []

    def group_key(self, node):
        return ("pair", node.args)

    def group_vjp(self, members, cts, needed, opts):
        self.calls.append(tuple(cts))
        got = dict(zip((type(m).__name__ for m in members), cts))
        return (10 * got.get("pair0", S.Zero) + got.get("pair1", S.Zero) ** 2,)


_PAIR = _PairRule()
_pair0 = type("pair0", (Function,), {"nargs": 1, "_symgrad_rule": _PAIR})
_pair1 = type("pair1", (Function,), {"nargs": 1, "_symgrad_rule": _PAIR})


def test_group_rule_is_called_once_with_all_members_cotangents():
    _PAIR.calls.clear()
    y = Symbol("y", real=True)
    g = reverse([2 * _pair0(x) + 3 * _pair1(x)], [S.One], [x], Opts())
    assert g[x] == 10 * 2 + 3**2
    assert _PAIR.calls == [(2, 3)]
    # a member absent from the formula is not passed; one present that no
    # cotangent reaches gets zero
    _PAIR.calls.clear()
    assert reverse([_pair1(x)], [S.One], [x], Opts())[x] == 1
    assert _PAIR.calls == [(1,)]
    _PAIR.calls.clear()
    assert reverse([_pair0(x), _pair1(x)], [S.Zero, 5], [x], Opts())[x] == 25
    assert sorted(_PAIR.calls[0]) == [0, 5]
    # two groups (different inputs) are two calls
    _PAIR.calls.clear()
    g = reverse([_pair0(x) + _pair0(y)], [S.One], [x, y], Opts())
    assert g == {x: 10, y: 10} and len(_PAIR.calls) == 2


def test_group_answer_reaches_inputs_shared_with_the_rest_of_the_formula():
    # the shared input x also feeds sin(x): both paths add up
    g = reverse([_pair0(x) * _pair1(x) + sin(x)], [S.One], [x], Opts())
    p0, p1 = _pair0(x), _pair1(x)
    assert g[x] == 10 * p1 + p0**2 + cos(x)


def test_group_members_with_different_inputs_is_a_rule_error():
    class Bad(_PairRule):
        def group_key(self, node):
            return "all"

    bad = Bad()
    b0 = type("b0", (Function,), {"nargs": 1, "_symgrad_rule": bad})
    b1 = type("b1", (Function,), {"nargs": 1, "_symgrad_rule": bad})
    with pytest.raises(RuleError, match="share their inputs"):
        reverse([b0(x) + b1(x**2)], [S.One], [x], Opts())


# ---- SymPy's global state: the walker neither changes it nor loops in it ----


def test_a_gradient_keeps_the_users_sympy_cache():
    # sympy's distribute(False) clears every cache on entry and exit
    from sympy.core.cache import cacheit

    @cacheit
    def users_work(n):
        return n

    users_work(1)
    before = users_work.cache_info()
    grad(sin(x) * (x + 1), x)
    jvp(sin(x) * (x + 1), x, 1)
    users_work(1)
    after = users_work.cache_info()
    assert after.currsize == before.currsize and after.hits == before.hits + 1


def _clipped_quantizer(w, s):
    """``s*clip(round(w/s), -8, 7)`` (TF's fake quantization), round as floor(v + 1/2)."""
    from sympy import Max, Min, floor

    return s * Min(Max(floor(w / s + S.Half), -8), 7)


def test_clipped_quantizer_differentiates():
    from sympy import Max, floor

    from symgrad import override

    w = Symbol("w", real=True)
    assert grad(Max(floor(w), -8), w) == 0
    assert jvp(Max(floor(w), -8), w, 1) == 0
    s = S(1) / 4
    assert grad(_clipped_quantizer(w, s), w) == 0
    ste = override(_clipped_quantizer(w, s), {"floor": "Identity"})
    g = grad(ste, w)
    # straight through inside the clipping range, zero outside it
    assert g.subs(w, S(1) / 3) == 1 and g.subs(w, 5) == 0 and g.subs(w, -5) == 0
    assert jvp(ste, w, 1).subs(w, S(1) / 3) == 1


def test_custom_function_of_a_negated_sum():
    from sympy import diff

    y = Symbol("y", real=True)
    f = Function("F")
    e = f(-x - y)
    assert grad(e, x) == diff(e, x)
    assert grad(e * f(x), [x, y]) == [diff(e * f(x), x), diff(e * f(x), y)]
    assert jvp(e, x, 1) == diff(e, x)


def test_max_of_zero_and_a_log_of_a_polynomial():
    from sympy import Max, diff, log

    e = Max(0, log(x * (-x - 1) + 1))
    g, t = grad(e, x), jvp(e, x, 1)
    inner = diff(log(x * (-x - 1) + 1), x)
    for v in (S(-3) / 10, S(-7) / 10):  # log > 0 there: the log's slope
        assert g.subs(x, v) == inner.subs(x, v) == t.subs(x, v)
    assert g.subs(x, S(1) / 2) == 0 == t.subs(x, S(1) / 2)  # log(1/4) < 0


def test_heaviside_overridden_with_identity():
    from sympy import Heaviside

    from symgrad import override

    e = override(Heaviside(x), {"Heaviside": "Identity"})
    assert grad(e, x) == 1 and jvp(e, x, 1) == 1
    assert grad(e * x, x).subs(x, 2) == 3


def test_three_argument_min_of_piecewise_and_mod():
    from sympy import Min, Mod, Piecewise, log

    y = Symbol("y", real=True)
    p = Piecewise((log(x**2 + 1), x > 1), (x**3, True))
    e = Min(p + Mod(x, 2), Mod(x * y, 5) - x, Piecewise((y, x > 2), (x * y, True)) * x)
    gx, gy = grad(e, [x, y])
    tx = jvp(e, [x, y], [1, 0])
    # each argument in turn is the least: the gradient is that argument's
    # (central differences, h = 1e-8: no kink of Mod or Piecewise that close)
    h = S(1) / 10**8
    for pt in ({x: S(1) / 2, y: 3}, {x: S(3), y: 1}, {x: S(3) / 2, y: -1}):
        for s, g in ((x, gx), (y, gy)):
            up, down = ({**pt, s: pt[s] + d} for d in (h, -h))
            want = (e.subs(up) - e.subs(down)) / (2 * h)
            assert abs(g.subs(pt) - want) < 1e-6, (pt, s)
        assert tx.subs(pt) == gx.subs(pt)


# ---- growth: formulas built unevaluated, deeper than SymPy can evaluate ----


def _residual(depth: int):
    """``y <- a_k*sin(y) + y`` built unevaluated (an Euler step, a residual block)."""
    a = symbols(f"a1:{depth + 1}", real=True)
    y = x
    for ak in a:
        y = Add(Mul(ak, sin(y, evaluate=False), evaluate=False), y, evaluate=False)
    return y, a


def test_unevaluated_residual_recurrence_gradient_is_at_most_3x_the_function():
    from symgrad.graph import count_ops

    ratios = []
    for depth in (100, 400):
        y, a = _residual(depth)
        g = grad(y, [x, *a])
        ratios.append(count_ops(g) / count_ops([y]))
    assert max(ratios) <= 3, ratios
    # and it is the gradient: forward differences of the recurrence itself
    y, a = _residual(60)
    point = {x: S(3) / 10, **{ak: S((-1) ** k) / (k + 2) for k, ak in enumerate(a)}}
    g = grad(y, [x, a[0], a[-1]])
    with mpmath.workdps(30):
        got = dag_values(list(g), point, dps=30)
        yv, dy, da0, prev = mpmath.mpf(3) / 10, 1, 0, None
        for k in range(len(a)):
            av = mpmath.mpf((-1) ** k) / (k + 2)
            s, c = mpmath.sin(yv), mpmath.cos(yv)
            da0 = s if k == 0 else da0 * (1 + av * c)
            dy = dy * (1 + av * c)
            prev = s
            yv = av * s + yv
        assert abs(got[0] - dy) < 1e-20 and abs(got[1] - da0) < 1e-20
        assert abs(got[2] - prev) < 1e-20


def test_unevaluated_sin_chain_deeper_than_the_recursion_limit():
    import sys

    from symgrad.graph import count_ops

    depth = sys.getrecursionlimit() + 200
    y = x
    for _ in range(depth):
        y = sin(y, evaluate=False)
    g, t = grad(y, x), jvp(y, x, 1)
    assert count_ops([g]) <= 3 * depth and count_ops([t]) <= 3 * depth
    with mpmath.workdps(20):
        v, d = mpmath.mpf(1) / 2, 1
        for _ in range(depth):
            v, d = mpmath.sin(v), d * mpmath.cos(v)
        got = dag_values([g, t], {x: S.Half}, dps=20)
        assert abs(got[0] - d) < 1e-15 * abs(d) and abs(got[1] - d) < 1e-15 * abs(d)


def test_gradient_of_a_product_of_n_factors_is_linear_in_n():
    from symgrad.graph import count_ops

    xs = symbols("p0:200", real=True)
    f = Mul(*[sin(v) for v in xs])
    g = grad(f, list(xs))
    assert count_ops(g) <= 4 * count_ops([f])  # was n² (every partial its own product)
    point = {v: S(k + 1) / 300 for k, v in enumerate(xs)}
    with mpmath.workdps(30):
        got = dag_values([g[0], g[57], g[-1]], point, dps=30)
        sins = [mpmath.sin(mpmath.mpf(k + 1) / 300) for k in range(200)]
        whole = mpmath.fprod(sins)
        for gi, k in zip(got, (0, 57, 199)):
            want = whole / sins[k] * mpmath.cos(mpmath.mpf(k + 1) / 300)
            assert abs(gi - want) < 1e-25 * abs(want), k
    # a short product keeps SymPy's own form
    a, b, c = symbols("a b c", real=True)
    assert grad(a * b * c, [a, b, c]) == [b * c, a * c, a * b]


def test_piecewise_of_many_branches():
    from sympy import Piecewise, diff

    from symgrad.graph import count_ops

    n = 60  # was O(n³): 9.7 s at n = 80
    f = Piecewise(*[(k * x**2 + k * sin(x), x < k) for k in range(n)], (x, True))
    g, t = grad(f, x), jvp(f, x, 1)
    # the branches' cotangents (their trailing zero branches folded into
    # the last) add up as one Piecewise again: linear, not n terms of up to
    # n branches (2.0x the function's operations, and quadratic time)
    assert count_ops([g]) <= 1.5 * count_ops([f])
    want = diff(f, x)
    for v in (S(-1) / 2, S(1) / 3, S(77) / 2, S(100)):
        assert g.subs(x, v) == want.subs(x, v) == t.subs(x, v), v


def _cotangent_size(n: int) -> int:
    """Edges, over distinct nodes, of the cotangents an n-branch Piecewise
    sends its branches."""
    from sympy import Piecewise

    from symgrad.rules.structural import PiecewiseRule

    f = Piecewise(*[(k * x**2 + sin(k * x), x < k) for k in range(n)], (x, True))
    cts = PiecewiseRule().vjp(f, symbols("c"), [True] * len(f.args), Opts())
    _, kids = postorder(cts, lambda e: e.args)
    return sum(len(k) for k in kids.values())


def test_piecewise_branches_cotangents_grow_linearly():
    import numpy as np
    from sympy import Piecewise, diff, sqrt

    from symgrad import lambdify, where
    from symgrad.rules.selection import Taken

    # one-hot cotangents over the conditions were n² pairs in all (0.63 s
    # for 320 branches); each now selects on the branch taken, one node
    small, large = _cotangent_size(50), _cotangent_size(100)
    assert large <= 2.1 * small, (small, large)
    # a wide Piecewise inside a where, its branches NaN where not taken:
    # the gradient never leaks a NaN, holds each branch's derivative once,
    # and agrees with sympy.diff
    y = symbols("y", real=True)
    f = where(y > 0, Piecewise(*[(k * sqrt(x - k), x > k) for k in range(9, 0, -1)], (x, True)), y)
    g = grad(f, [x, y])
    points = [(-1, 1), (S(7) / 2, 1), (20, 1), (5, -1)]
    with np.errstate(all="raise"):
        got = lambdify([x, y], g)(*np.array(points, dtype=float).T)
    for v, gv in zip((x, y), got):
        want = [float(diff(f, v).subs({x: a, y: b})) for a, b in points]
        np.testing.assert_allclose(gv, want, rtol=1e-14)
    # where the branches' cotangents meet at a symbol they are one
    # Piecewise over the conditions again, with no selection left
    f = Piecewise(*[(k * x**2 + k * sin(x), x < k) for k in range(20)], (x, True))
    g = grad(f, x)
    assert isinstance(g, Piecewise) and [c for _, c in g.args] == [c for _, c in f.args]
    order, _ = postorder([g], lambda e: e.args)
    assert not any(isinstance(e, Taken) for e in order)


def _nested_where(depth: int):
    from symgrad import where

    y = x
    for k in range(depth):
        y = where(x > k, sin(y) * (k + 1), y**2 - k)
    return y


def test_nested_where_gradient_grows_linearly():
    from sympy import diff, sqrt

    from symgrad import lambdify, where
    from symgrad.graph import count_ops

    sizes = [count_ops([grad(_nested_where(d), x)]) / count_ops([_nested_where(d)])
             for d in (4, 12)]
    assert max(sizes) <= 4, sizes  # depth 12 was 75,784 operations for 148
    f = _nested_where(5)
    g, want = grad(f, x), diff(f, x)
    for v in (S(-1) / 2, S(3) / 2, S(7) / 2, S(9)):
        assert abs(g.subs(x, v) - want.subs(x, v)) < 1e-12, v
    # an untaken branch's NaN stays out of a nested where's gradient
    inner = where(x < -5, sqrt(x), 1)
    e = where(x > 0, _nested_where(3) * inner, where(x < -1, x * inner, 0))
    fg = lambdify([x], grad(e, x))
    assert fg(-0.5) == 0 and fg(-3.0) == 1
