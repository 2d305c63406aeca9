"""Rules whose shape depends on the node: variadic Add and Mul, Max/Min with
their tie conventions, Piecewise (gradient to branches, never to
conditions), and Abs/sign, whose form depends on whether the argument is
real."""

from __future__ import annotations

from sympy import Add, Eq, Expr, Heaviside, Mul, Piecewise, S

from ..build import DIRECT_FACTORS, SORTED_HEIGHT, WIDE, factors, piecewise
from ..errors import RuleError, describe
from .forms import Rule, WalkState, product, scale, total
from .realness import is_real, real_part
from .selection import selected, taken
from .shared import Abs, conjugate, sign

__all__ = [
    "AddRule",
    "MulRule",
    "ExtremumRule",
    "PiecewiseRule",
    "IntegerParamRule",
    "AbsRule",
    "SignRule",
]


def _misapplied(rule: str, node, serves: str) -> RuleError:
    return RuleError(
        f"rule {rule!r} serves only {serves}, but an override map or tag applies it to "
        f"the {type(node).__name__} node {describe(node)}; map that node to a rule that "
        "fits it ('Identity', 'Zero', a registered rule)"
    )


class AddRule(Rule):
    """∂(a₁+…+aₙ)/∂aᵢ = 1."""

    name = "Add"

    def vjp(self, node, ct, needed, opts):
        return tuple(ct if k else None for k in needed)

    def jvp(self, node, tangents, opts):
        ts = [t for t in tangents if t is not None]
        if not ts:
            return None
        if len(ts) == 1:
            return ts[0]
        walk = opts.walk
        if walk is not None and walk.heights.get(node, 0) > SORTED_HEIGHT:
            # tangents of a tall sum are as tall: SymPy's canonical order
            # compares them node by node until they differ, and those of a
            # weight shared by every level of a recurrence are alike to the
            # bottom (a Hessian of depth 400 spent 5 s sorting)
            return Add(*ts, evaluate=False)
        return total(ts)

    def partials(self, node, needed, opts):
        return tuple(S.One if k else None for k in needed)


class MulRule(Rule):
    """∂(a₁⋯aₙ)/∂aᵢ = ∏_{j≠i} aⱼ (never ``node/aᵢ``, which is 0/0 at aᵢ = 0)."""

    name = "Mul"

    def partials(self, node, needed, opts):
        args = node.args
        if sum(needed) > DIRECT_FACTORS:
            return _prefix_suffix(args, needed)
        out = []
        for i, k in enumerate(needed):
            if not k:
                out.append(None)
                continue
            rest = args[:i] + args[i + 1 :]
            # A sub-tuple of a canonical Mul's factors is canonical already.
            out.append(factors(rest, node.is_commutative))
        return tuple(out)


def _prefix_suffix(args: tuple, needed) -> tuple:
    """∏_{j<i} aⱼ · ∏_{j>i} aⱼ for each needed i, over products shared
    between the partials (kept nested and in order: flattening would copy
    them, and factors need not commute).

    The partials of the last few products are kept, by their factors'
    tuple (the node's own): forward and reverse mode of one formula (as
    check_gradient's ⟨u, J v⟩ test derives them) then share one chain of
    prefix products.  Built twice they are two equal copies, as tall as
    the product is wide, past SymPy's cache (it keeps 1,000 nodes), and
    ``==`` between them (a dict holding both) compares them a level per
    level: a 1,000-factor product raised RecursionError."""
    needed = tuple(needed)
    hit = _PARTIALS.get(id(args))
    if hit is not None and hit[0] is args and hit[1] == needed:
        return hit[2]
    out = _prefix_suffix_built(args, needed)
    if len(_PARTIALS) >= _PARTIALS_KEPT:
        _PARTIALS.pop(next(iter(_PARTIALS)))
    _PARTIALS[id(args)] = (args, needed, out)  # (args kept: its id stays its own)
    return out


_PARTIALS: dict = {}  # id(args) -> (args, needed, partials)
_PARTIALS_KEPT = 32


def _prefix_suffix_built(args: tuple, needed: tuple) -> tuple:
    n = len(args)
    pre = [None] * (n + 1)  # pre[i] = a₀⋯aᵢ₋₁
    suf = [None] * (n + 1)  # suf[i] = aᵢ⋯aₙ₋₁
    for i in range(n):
        pre[i + 1] = args[i] if pre[i] is None else Mul(pre[i], args[i], evaluate=False)
    for i in range(n - 1, -1, -1):
        suf[i] = args[i] if suf[i + 1] is None else Mul(args[i], suf[i + 1], evaluate=False)
    out = []
    for i, k in enumerate(needed):
        left, right = pre[i], suf[i + 1]
        if not k:
            out.append(None)
        elif left is None or right is None:
            out.append(right if left is None else left)
        else:
            out.append(Mul(left, right, evaluate=False))
    return tuple(out)


class ExtremumRule(Rule):
    """Max/Min route the cotangent to the selected argument.

    ``ties="split"`` shares it equally among tied arguments (the subgradient
    in the middle of the interval; JAX's choice); ``ties="first"`` gives all
    of it to the first tied argument of the node (TensorFlow's choice; SymPy
    sorts the arguments of ``Max``/``Min``, so that is the first in SymPy's
    order: :func:`symgrad.maximum` keeps the user's).

    Which argument is selected is decided from one difference per pair of
    arguments, ``dᵢⱼ = aᵢ − aⱼ``: ``[aᵢ ≥ aⱼ]`` is ``Heaviside(dᵢⱼ, 1)`` and
    ``[aⱼ ≥ aᵢ]`` is ``1 − Heaviside(dᵢⱼ, 0)``, so the two sides of a pair
    never disagree, in exact or in floating-point arithmetic, and some
    argument always wins.  (Not ``Eq(aᵢ, Max(...))``: SymPy solves that for
    a symbol, ``Eq(x, 7*Max(x/7, ...))``, which rounding makes false at a
    tie, and evaluating it with Piecewise or Mod arguments is slow.)
    """

    def __init__(self, name: str, sign: int) -> None:
        self.name = name
        self.sign = sign  # +1 for Max, -1 for Min

    def partials(self, node, needed, opts):
        args = node.args
        n = len(args)
        if n < 2:
            raise _misapplied(self.name, node, "nodes of two or more arguments (Max, Min)")
        split = opts.ties == "split"
        h = (S.Half, S.Half) if split else (S.One, S.Zero)
        if n == 2:
            a, b = args
            ps = (Heaviside(self.sign * (a - b), h[0]), Heaviside(self.sign * (b - a), h[1]))
            return tuple(p if k else None for p, k in zip(ps, needed))
        d = {(i, j): self.sign * (args[i] - args[j]) for i in range(n) for j in range(i + 1, n)}

        def wins(i: int, j: int) -> Expr:
            """[aᵢ ≥ aⱼ] (split) or, first: [aᵢ > aⱼ] for j < i, [aᵢ ≥ aⱼ] for j > i."""
            if i < j:
                return Heaviside(d[i, j], 1)
            return 1 - Heaviside(d[j, i], 0 if split else 1)

        ind = [Mul(*[wins(i, j) for j in range(n) if j != i]) for i in range(n)]
        if not split:
            return tuple(p if k else None for p, k in zip(ind, needed))
        count = Add(*ind)
        return tuple(p / count if k else None for p, k in zip(ind, needed))


# Past build.WIDE branches, each branch's cotangent selects on the branch
# taken, one node shared by all (selection.selected: two pairs each, not the
# n pairs of a one-hot Piecewise over the conditions, n² in all); the walker
# spreads those that meet over the conditions, one Piecewise again.


class PiecewiseRule(Rule):
    """Piecewise differentiates branch by branch; conditions get nothing."""

    name = "Piecewise"

    def vjp(self, node, ct, needed, opts):
        if not isinstance(node, Piecewise):
            raise _misapplied(self.name, node, "Piecewise nodes (where, cond, Select)")
        conds = [pair.cond for pair in node.args]
        if len(conds) <= WIDE:
            return _one_hot(conds, ct, needed)
        where = taken(conds)
        return tuple(selected(ct, where, i) if k else None for i, k in enumerate(needed))

    def jvp(self, node, tangents, opts):
        if not isinstance(node, Piecewise):
            raise _misapplied(self.name, node, "Piecewise nodes (where, cond, Select)")
        if all(t is None for t in tangents):
            return None
        pairs = [(S.Zero if t is None else t, pair.cond) for t, pair in zip(tangents, node.args)]
        # SymPy's evaluation of a Piecewise compares every pair of branches
        return piecewise(pairs, evaluate=len(pairs) <= WIDE)

    def partials(self, node, needed, opts):
        if not isinstance(node, Piecewise):
            raise _misapplied(self.name, node, "Piecewise nodes (where, cond, Select)")
        return _one_hot([pair.cond for pair in node.args], S.One, needed)


def _one_hot(conds: list, ct, needed) -> tuple:
    """``ct`` in branch i and 0 in the others, for each needed branch i,
    over the conditions (SymPy's evaluation of a Piecewise compares every
    pair of branches: only a few branches are evaluated)."""
    evaluate = len(conds) <= WIDE
    return tuple(
        piecewise([(ct if j == i else S.Zero, c) for j, c in enumerate(conds)], evaluate=evaluate)
        if k else None
        for i, k in enumerate(needed)
    )


class IntegerParamRule(Rule):
    """A function with integer-valued parameters (an order, a branch) that
    admit no gradient; ``d(node, *args, walk)`` is the partial in the one
    real argument (``walk``: the running walk's state, for the
    constructors of :mod:`.shared`)."""

    def __init__(self, name: str, int_positions: tuple[int, ...], d) -> None:
        self.name = name
        self.int_positions = int_positions
        self.d = d

    def partials(self, node, needed, opts):
        out = []
        for i, k in enumerate(needed):
            if not k:
                out.append(None)
            elif i in self.int_positions:
                raise RuleError(
                    f"{self.name} is not differentiable in its integer argument "
                    f"{node.args[i]} (node {describe(node)}); keep it free of the symbols you "
                    "differentiate with respect to"
                )
            else:
                out.append(self.d(node, *node.args, opts.walk))
        return tuple(out)


# ---- non-holomorphic nodes of a possibly complex argument -------------------
# (the convention for complex cotangents is in :mod:`symgrad.rules.realness`)


def _real_cotangent(ct, walk: WalkState | None):
    """``Re(ct)``: a cotangent reaching a real-valued node (``ct`` itself
    unless a complex cotangent was sent down before in this walk)."""
    return real_part(ct) if walk is not None and walk.projected else ct


def _mark_projected(walk: WalkState | None) -> None:
    """Record in the walk that a complex cotangent was sent down: the
    walker then takes the real part where the gradient reaches a symbol."""
    if walk is not None:
        walk.projected = True


class AbsRule(Rule):
    """∂|u| = sign(u) for real u; for complex u, d|u| = Re(conj(sign u)·du)."""

    name = "Abs"

    def partials(self, node, needed, opts):
        return (sign(opts.walk, node.args[0]) if needed[0] else None,)

    def vjp(self, node, ct, needed, opts):
        u = node.args[0]
        if is_real(u):
            return (scale(ct, sign(opts.walk, u), opts.walk),)
        c = _real_cotangent(ct, opts.walk)
        _mark_projected(opts.walk)
        w = opts.walk
        return (scale(c, conjugate(w, sign(w, u)), w),)

    def jvp(self, node, tangents, opts):
        u, (t,) = node.args[0], tangents
        if t is None:
            return None
        if is_real(u):
            return product(sign(opts.walk, u), t)
        w = opts.walk
        return real_part(product(conjugate(w, sign(w, u)), t))


class SignRule(Rule):
    """sign(u) is piecewise constant for real u (derivative 0); for complex
    u it is u/|u|: d sign(u) = (du − sign(u)·Re(conj(sign u)·du))/|u|
    (0 at u = 0, the convention of the real case)."""

    name = "sign"

    def partials(self, node, needed, opts):
        return (None,) * len(needed)

    def vjp(self, node, ct, needed, opts):
        u = node.args[0]
        if is_real(u):
            return (None,)
        _mark_projected(opts.walk)  # sign(u) is complex: its cotangent stays whole
        w = opts.walk
        s = sign(w, u)
        g = (ct - real_part(ct * s) * conjugate(w, s)) / Abs(w, u)
        return (piecewise([(S.Zero, Eq(u, 0)), (g, True)]),)

    def jvp(self, node, tangents, opts):
        u, (t,) = node.args[0], tangents
        if t is None or is_real(u):
            return None
        w = opts.walk
        s = sign(w, u)
        g = (t - s * real_part(conjugate(w, s) * t)) / Abs(w, u)
        return piecewise([(S.Zero, Eq(u, 0)), (g, True)])
