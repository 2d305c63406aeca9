"""Ground truth: the correctly rounded value of a formula at a point.

As Herbie's Rival does: evaluate the formula in interval arithmetic
(:mod:`.intervals`) at some precision and raise the precision until the
interval of every output rounds to a single float of the target format.
Agreement of two low precisions proves nothing (under total cancellation
both say 0); an interval that straddles two floats, or 0, is never taken
for an answer.  A point that is not decided under a precision cap is
*unresolved* and says so; a point where the formula has no real value
(log of a negative number, 0/0) is *undefined*.

The formula is a DAG: it is walked once in postorder
(:func:`symgrad.graph.postorder`), never recursively, after markers are
lowered (:func:`symgrad.lowering.lower`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from fractions import Fraction

import numpy as np
from mpmath.libmp import (
    finf,
    fninf,
    from_float,
    from_int,
    from_man_exp,
    fzero,
    mpf_abs,
    mpf_gt,
    mpf_neg,
    round_ceiling,
    round_floor,
)
from sympy import Basic, Integer, Symbol, erf, erfc, tanh
from sympy.logic.boolalg import BooleanFalse, BooleanTrue

from ..brief import brief
from ..codegen import certify_helpers
from ..errors import SymgradError
from ..graph import free_symbols, postorder
from ..lowering import lower
from ..progress import tick
from ..widen import FloatMarker
from .balls import OPS as BALL_OPS
from .balls import BallProgram, SignlessZero
from .balls import _const as ball_const
from .bits import Format, float_format, ordinal, round_mpf
from .intervals import OPS, UNDEF, UNKNOWN, const, contains_zero, le, lt, point, rational_pow
from .rational import ExactNodes, RationalProgram, binary_fraction, round_fraction

__all__ = ["GroundTruth", "RESOLVED", "UNDEFINED", "UNRESOLVED", "MAX_PREC"]

RESOLVED, UNDEFINED, UNRESOLVED = 0, 1, 2
_ONE, _MINUS_TWO = Integer(1), Integer(-2)
_SATURATING = (erf, tanh)
# log(f(u)) as log1p of f's complement up to |u| = 2**12: past it the complement
# is below every float (e**-8192) and exp(2u) of a huge u costs u's own bits
_HUGE_ARG = 1 << 12
_HUGE_ARG_MPF = from_int(_HUGE_ARG)
MAX_PREC = 8192
SIGN_TRIES = 4  # points left zeros of unknown sign by both tiers, then 4x the start


# ---- conditions: three-valued (True, False, UNKNOWN), UNDEF propagates -----------


def _rel(test: Callable) -> Callable:
    def op(prec, a, b):
        return test(a, b)

    return op


def _lt(a, b):  # a < b
    if lt(a[1], b[0]):
        return True
    if le(b[1], a[0]):
        return False
    return UNKNOWN


def _le(a, b):  # a <= b
    if le(a[1], b[0]):
        return True
    if lt(b[1], a[0]):
        return False
    return UNKNOWN


def _eq(a, b):
    if a[0] == a[1] == b[0] == b[1]:
        return True
    if lt(a[1], b[0]) or lt(b[1], a[0]):
        return False
    return UNKNOWN


def _not(v):
    return v if v is UNKNOWN else not v


def _and(prec, *vs):
    if False in vs:
        return False
    return UNKNOWN if UNKNOWN in vs else True


def _or(prec, *vs):
    if True in vs:
        return True
    return UNKNOWN if UNKNOWN in vs else False


def _ite(c, a, b):
    """ITE(c, a, b): a where c holds, b where not; where c is not known, the
    two if they agree."""
    if c is UNKNOWN:
        return a if a == b else UNKNOWN
    return a if c else b


def _piecewise(prec, *pairs):
    for value, cond in pairs:
        if cond is UNDEF:
            return UNDEF
        if cond is UNKNOWN:
            return UNKNOWN
        if cond:
            return value
    return UNDEF  # no branch holds: SymPy's Piecewise is nan there


LOGIC: dict[str, Callable] = {
    "StrictLessThan": _rel(_lt),
    "LessThan": _rel(_le),
    "StrictGreaterThan": _rel(lambda a, b: _lt(b, a)),
    "GreaterThan": _rel(lambda a, b: _le(b, a)),
    "Equality": _rel(_eq),
    "Unequality": _rel(lambda a, b: _not(_eq(a, b))),
    "And": _and,
    "Or": _or,
    "Not": lambda prec, v: _not(v),
    "ITE": lambda prec, c, a, b: _ite(c, a, b),
    "ExprCondPair": lambda prec, v, c: (v, c),
    "Piecewise": _piecewise,
}
_LAZY = {"ExprCondPair", "Piecewise"}  # take sentinels as arguments


def _same(prec, v):
    return v


def _complement(node: Basic) -> tuple | None:
    """For a sum ``c + k*f(u) + rest``, ``f`` erf or tanh (functions that
    saturate at ±1) and ``c = k`` or ``c = -k``: ``(f, K, negate, u,
    rest)``, the sum being ``K*(1 + f(u)) + rest`` (``negate``: ``c = k =
    K``) or ``K*(1 - f(u)) + rest`` (``c = -k = K``); a sum ``c +
    k*erfc(u) + rest`` with ``c = -2k`` (``2 - erfc(u)``, which is
    ``erfc(-u)``) as ``(c/2)*(1 + erf(u)) + rest``; None for any other
    node."""
    if not node.is_Add:
        return None
    numbers = [a for a in node.args if a.is_Number]
    if not numbers:
        return None
    for t in node.args:
        if isinstance(t, _SATURATING):
            f, k, u = t, _ONE, t.args[0]
        elif t.is_Mul and len(t.args) == 2 and t.args[0].is_Number \
                and isinstance(t.args[1], _SATURATING):
            f, k, u = t.args[1], t.args[0], t.args[1].args[0]
        else:
            continue
        for c in numbers:
            if c == k or c == -k:
                rest = [a for a in node.args if a is not t and a is not c]
                return type(f).__name__, c, c == k, u, rest
    for t in node.args:  # c + k*erfc(u) with c = -2k: (c/2)*erfc(-u), (c/2)*(1 + erf(u))
        k, f = (_ONE, t) if isinstance(t, erfc) else (
            (t.args[0], t.args[1]) if t.is_Mul and len(t.args) == 2 and t.args[0].is_Number
            and isinstance(t.args[1], erfc) else (None, None))
        if f is None:
            continue
        for c in numbers:
            if c == -2 * k:
                rest = [a for a in node.args if a is not t and a is not c]
                return "erf", c / 2, True, f.args[0], rest
    return None


def _square_complement(node: Basic) -> tuple | None:
    """For a sum ``c - c*f(u)**2 + rest``, ``f`` erf or tanh: ``(f, c, u,
    rest)``, the sum being ``c*(1 + f(u))*(1 - f(u)) + rest`` (tanh's
    derivative ``1 - tanh(u)**2``, which is below every float past
    |u| = 373 and whose ball of ``1 - tanh**2`` holds 0 there at every
    precision); None for any other node."""
    if not node.is_Add:
        return None
    numbers = [a for a in node.args if a.is_Number]
    for t in node.args:
        k, sq = (_ONE, t) if t.is_Pow else (
            (t.args[0], t.args[1]) if t.is_Mul and len(t.args) == 2 and t.args[0].is_Number
            and t.args[1].is_Pow else (None, None))
        if sq is None or sq.exp != 2 or not isinstance(sq.base, _SATURATING):
            continue
        for c in numbers:
            if c == -k:
                rest = [a for a in node.args if a is not t and a is not c]
                return type(sq.base).__name__, c, sq.base.args[0], rest
    return None


def _square_complement_op(name: str, k: Basic) -> Callable:
    """The interval (and ball) of ``k*(1 + f(u))*(1 - f(u)) + rest``, each
    factor a complement (:func:`_interval_one_plus`)."""
    add, mul = OPS["Add"], OPS["Mul"]

    def interval(prec, u, *rest):
        a = _interval_one_plus(name, prec, u)
        b = _interval_one_plus(name, prec, (mpf_neg(u[1]), mpf_neg(u[0])))
        if isinstance(a, str) or isinstance(b, str):
            return a if isinstance(a, str) else b
        v = mul(prec, const(k, prec), mul(prec, a, b))
        return add(prec, v, *rest) if rest else v

    def ball(prec, u, *rest):
        if name == "erf":
            a, b = BALL_OPS["erfc"](prec, -u), BALL_OPS["erfc"](prec, u)
        else:
            a, b = 2 / (1 + BALL_OPS["exp"](prec, -2 * u)), 2 / (1 + BALL_OPS["exp"](prec, 2 * u))
        v = ball_const(k, prec) * (a * b)
        for r in rest:
            v = v + r
        return v

    interval.ball = ball
    return interval


def _interval_one_plus(name: str, prec: int, u: tuple) -> tuple | str:
    """1 + f(u): erfc(-u), or 2/(1 + exp(-2u)) for tanh."""
    if name == "erf":
        return OPS["erfc"](prec, (mpf_neg(u[1]), mpf_neg(u[0])))
    e = OPS["exp"](prec, OPS["Mul"](prec, const(_MINUS_TWO, prec), u))
    if isinstance(e, str):
        return e
    d = OPS["Pow"](prec, OPS["Add"](prec, const(_ONE, prec), e), const(-_ONE, prec))
    return d if isinstance(d, str) else OPS["Mul"](prec, const(2 * _ONE, prec), d)


def _complement_op(name: str, k: Basic, plus: bool) -> Callable:
    """The interval (and, as ``.ball``, the ball) of ``k*(1 + f(u)) + rest``
    (``plus``) or ``k*(1 - f(u)) + rest``, from ``u`` and ``rest``: 1 - f(u)
    is 1 + f(-u) (erf and tanh are odd)."""
    add, mul = OPS["Add"], OPS["Mul"]

    def interval(prec, u, *rest):
        e = _interval_one_plus(name, prec, u if plus else (mpf_neg(u[1]), mpf_neg(u[0])))
        if isinstance(e, str):
            return e
        v = mul(prec, const(k, prec), e)
        return add(prec, v, *rest) if rest else v

    def ball(prec, u, *rest):
        w = u if plus else -u
        if name == "erf":
            e = BALL_OPS["erfc"](prec, -w)
        else:
            e = 2 / (1 + BALL_OPS["exp"](prec, -2 * w))
        v = ball_const(k, prec) * e
        for r in rest:
            v = v + r
        return v

    interval.ball = ball
    return interval


def _fraction_complement(node: Basic) -> tuple | None:
    """For a sum ``c + k/(d + u) + rest`` with numbers ``c``, ``k``, ``d``
    and ``k = -c*d`` (``1 - 1/(1 + u)``, the sigmoid's complement):
    ``(c, u, d + u, rest)``, the sum being ``c*u/(d + u) + rest``; None for
    any other node."""
    if not node.is_Add:
        return None
    numbers = [a for a in node.args if a.is_Number]
    if not numbers:
        return None
    for t in node.args:
        k, p = (_ONE, t) if t.is_Pow else (
            (t.args[0], t.args[1]) if t.is_Mul and len(t.args) == 2 and t.args[0].is_Number
            and t.args[1].is_Pow else (None, None))
        if p is None or p.exp != -1 or not p.base.is_Add or len(p.base.args) != 2:
            continue
        d, u = p.base.args
        if not d.is_Number or u.is_Number or d == 0:
            continue
        for c in numbers:
            if k == -c * d:
                rest = [a for a in node.args if a is not t and a is not c]
                return c, u, p.base, rest
    return None


def _fraction_complement_op(c: Basic) -> Callable:
    """The interval (and ball) of ``c*u/(d + u) + rest`` from ``u``, ``d +
    u`` and ``rest``: ``1 - 1/(1 + exp(-s))`` at s = 1e200 is e**-1e200,
    which no interval of the sum as written tells from 0 short of 1e200
    bits (the clustering benchmark's (1 - sigmoid(s))**cn: every point
    unresolved after every precision, 0.13 s each)."""
    add, mul, pw = OPS["Add"], OPS["Mul"], OPS["Pow"]

    def interval(prec, u, den, *rest):
        r = pw(prec, den, const(-_ONE, prec))
        if isinstance(r, str):
            return r
        v = mul(prec, const(c, prec), mul(prec, u, r))
        return add(prec, v, *rest) if rest and not isinstance(v, str) else v

    def ball(prec, u, den, *rest):
        v = ball_const(c, prec) * (u / den)
        for r in rest:
            v = v + r
        return v

    interval.ball = ball
    return interval


def _log_one_plus(node: Basic) -> list | None:
    """For ``log(1 + rest)``: the terms ``rest`` (then the value is
    ``log1p(rest)``); None for any other node."""
    if type(node).__name__ != "log" or not node.args[0].is_Add \
            or _complement(node.args[0]) is not None:  # (1 + tanh(u): the complement's)
        return None
    terms = node.args[0].args
    if _ONE not in terms:
        return None
    rest = list(terms)
    rest.remove(_ONE)
    return rest


def _log1p_op(prec, *rest):
    """The interval (and, as ``.ball``, the ball) of ``log(1 + sum(rest))``
    as ``log1p(sum(rest))``: ``log(1 + exp(x))`` at x = -1e300 is
    e**-1e300, whose sign no ball of 1 + e**-1e300 tells."""
    u = rest[0] if len(rest) == 1 else OPS["Add"](prec, *rest)
    return u if isinstance(u, str) else OPS["log1p"](prec, u)


def _log1p_ball(prec, *rest):
    u = rest[0]
    for r in rest[1:]:
        u = u + r
    return BALL_OPS["log1p"](prec, u)


_log1p_op.ball = _log1p_ball


def _log_saturated(name: str) -> Callable:
    """The interval (and ball) of ``log(f(u))``, ``f`` erf or tanh, as
    ``log1p(-(1 - f(u)))`` with ``1 - f(u) = 1 + f(-u)`` computed as a
    complement (erfc, or ``2/(1 + exp(2u))``): ``log(tanh(exp(exp(20))))``
    is ``-2*exp(-2*exp(exp(20)))``, which no ball of ``tanh`` near 1 tells
    from 0."""

    def plain(prec, u):  # (a complement past the exponent range: as written)
        return OPS["log"](prec, OPS[name](prec, u))

    def interval(prec, u):
        if mpf_gt(mpf_abs(u[0]), _HUGE_ARG_MPF) or mpf_gt(mpf_abs(u[1]), _HUGE_ARG_MPF):
            return plain(prec, u)
        c = _interval_one_plus(name, prec, (mpf_neg(u[1]), mpf_neg(u[0])))
        if isinstance(c, str) or c[0] in (fninf, finf) or c[1] in (fninf, finf):
            return plain(prec, u)
        return OPS["log1p"](prec, (mpf_neg(c[1]), mpf_neg(c[0])))

    def ball(prec, u):
        if not u.is_finite() or abs(u) > _HUGE_ARG:  # exp(2u) would cost u's bits
            return BALL_OPS["log"](prec, BALL_OPS[name](prec, u))
        c = BALL_OPS["erfc"](prec, u) if name == "erf" else 2 / (1 + BALL_OPS["exp"](prec, 2 * u))
        return BALL_OPS["log1p"](prec, -c)

    interval.ball = ball
    return interval


class Program:
    """A formula compiled for interval evaluation: one step per distinct
    node, children first.  Shared by the ground truth and the proofs.

    With ``complements`` (the ground truth's, never the proofs': a proof
    bounds what the float code computes node by node), a sum
    ``c ± c*erf(u) + ...`` is evaluated as ``c*erfc(∓u) + ...``, and
    ``c ± c*tanh(u) + ...`` as ``2c/(1 + exp(∓2u)) + ...``, the same
    value: ``erf(u)/2 + 1/2`` at u = -500 is about e**-250000, which the
    sum as written resolves only past 360,000 bits (an mpmath erf at
    8192 bits costs 37 ms, and the point then stays unresolved); erfc
    resolves it at the first precision.  Likewise ``log(1 + u)`` is
    ``log1p(u)``: ``log(1 + exp(x))`` at x = -1e300 is a zero whose sign no
    ball of ``1 + exp(x)`` tells (softplus was 1,178 zeros of unknown sign
    in 4,660 points over ±1e300)."""

    def __init__(self, exprs: Sequence[Basic], symbols: Sequence[Symbol],
                 complements: bool = False) -> None:
        self.exprs = list(exprs)
        order, kids = postorder(self.exprs, lambda n: n.args)
        self.order = order
        index = {n: i for i, n in enumerate(order)}
        self.outputs = [index[e] for e in self.exprs]
        sym_pos = {s: j for j, s in enumerate(symbols)}
        self.steps: list[tuple] = []
        self.consts: dict[int, Basic] = {}
        # (sin, cos or tan node, its argument's node, whether that argument is
        # never exact): see GroundTruth._beyond_reach
        self.periodic: list[tuple[int, int, bool]] = []
        # each node: built from the inputs by sums, products and integer powers
        # alone (exact at some precision), filled in this one pass, children first
        algebraic: dict[Basic, bool] = {}
        for node in order:
            algebraic[node] = (node.is_Symbol or node.is_Number) if not kids[node] else (
                (node.is_Add or node.is_Mul or (node.is_Pow and node.exp.is_Integer))
                and all(algebraic[k] for k in kids[node]))
        for i, node in enumerate(order):
            if node in sym_pos:
                self.steps.append(("sym", sym_pos[node], ()))
            elif isinstance(node, (BooleanTrue, BooleanFalse)):
                self.steps.append(("bool", bool(node), ()))
            elif isinstance(node, Symbol):
                raise SymgradError(f"the formula holds the symbol {node}, which has no domain")
            elif not kids[node]:
                if not node.is_number:
                    raise SymgradError(f"cannot evaluate {node!r} ({type(node).__name__})")
                self.consts[i] = node
                self.steps.append(("const", i, ()))
            elif isinstance(node, FloatMarker):  # the identity: only generated code differs
                self.steps.append(("op", _same, (index[kids[node][0]],), False))
            elif node.is_Pow and node.exp.is_Rational and not node.exp.is_Integer:
                fn = rational_pow(int(node.exp.p), int(node.exp.q))
                self.steps.append(("op", fn, tuple(index[k] for k in kids[node]), False))
            elif complements and type(node).__name__ == "log" and \
                    isinstance(node.args[0], _SATURATING):
                self.steps.append(("op", _log_saturated(type(node.args[0]).__name__),
                                   (index[node.args[0].args[0]],), False))
            elif complements and (rest := _log_one_plus(node)) is not None:
                self.steps.append(("op", _log1p_op, tuple(index[r] for r in rest), False))
            elif complements and (sq := _square_complement(node)) is not None:
                name, k, u, rest = sq
                self.steps.append(("op", _square_complement_op(name, k),
                                   (index[u], *(index[r] for r in rest)), False))
            elif complements and (comp := _complement(node)) is not None:
                name, k, plus, u, rest = comp
                self.steps.append(("op", _complement_op(name, k, plus),
                                   (index[u], *(index[r] for r in rest)), False))
            elif complements and (frac := _fraction_complement(node)) is not None:
                c, u, den, rest = frac
                self.steps.append(("op", _fraction_complement_op(c),
                                   (index[u], index[den], *(index[r] for r in rest)), False))
            else:
                name = type(node).__name__
                fn = OPS.get(name) or LOGIC.get(name)
                if fn is None:
                    raise SymgradError(
                        f"no ground truth for `{name}` (in {brief(node)}): check_stability knows "
                        f"{', '.join(sorted(OPS))}; rewrite it with those"
                    )
                self.steps.append(("op", fn, tuple(index[k] for k in kids[node]), name in _LAZY))
                if name in ("sin", "cos", "tan"):
                    arg = kids[node][0]
                    # (an argument of the inputs by + - * and integer powers alone
                    # is exact at some precision; one through exp, erfc, ... never)
                    self.periodic.append((i, index[arg], not algebraic[arg]))
        self._const_cache: dict[int, dict[int, tuple]] = {}

    def above(self, nodes: set[int]) -> list[bool]:
        """Whether each step is one of ``nodes`` or computed from one (a pass
        over the steps, children first)."""
        out: list[bool] = []
        for i, step in enumerate(self.steps):
            out.append(i in nodes or any(out[c] for c in step[2]))
        return out

    def _consts(self, prec: int) -> dict[int, tuple]:
        c = self._const_cache.get(prec)
        if c is None:
            c = self._const_cache[prec] = {i: const(v, prec) for i, v in self.consts.items()}
        return c

    def run(self, inputs: Sequence[tuple], prec: int, post: Callable | None = None,
            fixed: dict[int, Fraction] | None = None) -> list:
        """Every node's value (interval, condition or sentinel) with the
        symbols set to the intervals ``inputs``; ``post`` (if given) maps
        each operation's interval (the proofs widen it by a rounding);
        ``fixed``, nodes' exact values (by position), which replace theirs
        (:class:`.rational.ExactNodes`)."""
        consts = self._consts(prec)
        vals: list = []
        append = vals.append
        steps = self.steps
        if fixed:  # ("value", v): appended as it is, like a "bool" step
            steps = list(steps)
            for i, q in fixed.items():
                steps[i] = ("value", _fraction_interval(q, prec), ())
        for step in steps:
            kind = step[0]
            if kind == "op":
                args = [vals[k] for k in step[2]]
                if not step[3]:
                    if UNDEF in args:
                        append(UNDEF)
                        continue
                    if UNKNOWN in args:
                        append(UNKNOWN)
                        continue
                v = step[1](prec, *args)
                if post is not None and type(v) is tuple and type(v[0]) is tuple \
                        and len(v[0]) == 4:
                    v = post(v)
                append(v)
            elif kind == "sym":
                append(inputs[step[1]])
            elif kind == "const":
                append(consts[step[1]])
            else:
                append(step[1])
        return vals


def _fraction_interval(q: Fraction, prec: int) -> tuple:
    """The interval of ``prec`` bits around the rational ``q`` (the point
    itself where ``q`` is a binary number of at most ``prec`` bits)."""
    p, d = q.numerator, q.denominator
    if not p:
        return fzero, fzero
    # the quotient to prec + 3 bits or more, then a sticky bit where it is
    # inexact: rounded either way, the same floats as mpmath's from_rational
    # (correct rounding is unique), without its conversion of p and d, which
    # strips trailing zero bits a byte at a time: some 150 us for the
    # 6,000-bit values of a series' exact nodes, 0.7 s of focal's stabilize
    shift = prec + 3 + d.bit_length() - abs(p).bit_length()
    if shift >= 0:
        m, r = divmod(abs(p) << shift, d)
    else:
        m, r = divmod(abs(p), d << -shift)
    m = -(2 * m + (r != 0)) if p < 0 else 2 * m + (r != 0)
    return (from_man_exp(m, -shift - 1, prec, round_floor),
            from_man_exp(m, -shift - 1, prec, round_ceiling))


def _exact_other(node: Basic, args: list[Fraction]) -> Fraction | None:
    """A node's exact value from its operands' for :class:`ExactNodes`:
    its interval at binary points, where that is a single point (``exp(0)``,
    ``cos(0)``, ``log(1)``: :mod:`.intervals` gives such values as points)."""
    if isinstance(node, FloatMarker):
        return args[0]
    fn = OPS.get(type(node).__name__)
    if fn is None or any(q.denominator & (q.denominator - 1) for q in args):
        return None  # (no interval kernel, or an operand no binary number holds)
    v = fn(_EXACT_PREC, *(point(from_man_exp(q.numerator, 1 - q.denominator.bit_length()))
                         for q in args))
    if type(v) is tuple and type(v[0]) is tuple and v[0] == v[1] and v[0] not in (finf, fninf):
        return binary_fraction(v[0])
    return None


_EXACT_PREC = 64


def _signless(vals: Sequence) -> bool:
    """Whether a value of ``vals`` is a :class:`.balls.SignlessZero`."""
    for v in vals:  # (a loop, as _nan_input: asked two or three times a row)
        if type(v) is SignlessZero:
            return True
    return False


def _nan_input(xs: Sequence[float]) -> bool:
    for x in xs:  # (a loop: the generator's any() was a tenth of a ball row's overhead)
        if math.isnan(x):
            return True
    return False


def _adjacent(a: float, b: float, fmt: Format) -> bool:
    """Whether ``a < b`` are neighbours in ``fmt`` (the largest float and
    inf included)."""
    if math.isnan(a) or math.isnan(b):
        return False
    return int(ordinal(np.array([b]), fmt)[0]) - int(ordinal(np.array([a]), fmt)[0]) == 1


class GroundTruth:
    """Correctly rounded values of ``exprs`` (markers are lowered first).

    >>> from sympy import symbols, exp
    >>> x = symbols("x")
    >>> t = GroundTruth([exp(x) - 1 - x], [x])
    >>> vals, status = t.at([1e-30])  # x = 1.0000000000000000833e-30, x**2/2 + ...
    >>> vals[0], status[0] == RESOLVED
    (5.0000000000000005e-61, True)
    """

    def __init__(
        self,
        exprs: Sequence[Basic],
        symbols: Sequence[Symbol],
        dtype: object = "float64",
        max_prec: int = MAX_PREC,
        memo: dict | None = None,
    ) -> None:
        self.fmt: Format = float_format(dtype)
        self.symbols = list(symbols)
        lowered = lower(list(exprs))
        # rows already resolved by another ground truth of the same formulas,
        # symbols, type and precision (``memo``: stabilize's one dict for its
        # choosing, verifying and before/after reports): see batch_bounds
        self._rows = None if memo is None else memo.setdefault(
            (tuple(lowered), tuple(self.symbols), self.fmt.name, max_prec), {})
        self.program = Program(lowered, self.symbols, complements=True)
        # a rational formula's exact value, where the intervals do not decide
        self.rational = RationalProgram.of(lowered, self.symbols)
        self.max_prec = max_prec
        self.start_prec = self.fmt.prec + 24
        self.balls = BallProgram.of(self.program)  # the fast tier (None: mpmath only)
        self.sign_tries = SIGN_TRIES  # see decided()
        # how far a row not known real (an argument straddling a domain's
        # edge) is pursued, where not by SIGN_TRIES: None, as a zero of
        # unknown sign; a number, that precision for every such row
        # (certified's truth: the lead's D5, session 17)
        self.edge_top: int | None = None
        self.exact: ExactNodes | None = None  # built when first needed (_fixed)
        # whether rows resolved by the caller's ground truth of the same values may
        # be read (:data:`KNOWN`): certified(u)'s truth only (:func:`_certified_truth`)
        self.reads_known = False

    def precisions(self):
        p = self.start_prec
        while p < self.max_prec:
            yield p
            p *= 2
        yield self.max_prec

    def at(self, xs: Sequence[float]) -> tuple[list[float], list[int]]:
        """Each output's correctly rounded value and status at the point
        ``xs`` (floats, one per symbol): NaN unless RESOLVED."""
        v = self.decided(xs)
        if v is not None:
            zero = [type(a) is SignlessZero for a in v]
            vals = [math.nan if z else a for a, z in zip(v, zero)]
            status = [UNRESOLVED if z else RESOLVED for z in zero]
        else:
            vals, status, _, _ = self.resolve(xs)
        self._exactly(xs, vals, status)
        return vals, status

    def _exactly(self, xs: Sequence[float], vals: list, status: list) -> list[int]:
        """Outputs left UNRESOLVED, decided in place from the exact rational
        value where the formula is rational (:mod:`.rational`); the
        outputs so decided."""
        if self.rational is None or UNRESOLVED not in status:
            return []
        exact = self.rational.values(xs)
        if exact is None:
            return []
        done = [k for k, st in enumerate(status) if st == UNRESOLVED]
        for k in done:
            vals[k], status[k] = round_fraction(exact[k], self.fmt), RESOLVED
        return done

    def resolve(self, xs: Sequence[float]) -> tuple[list[float], list[int], list, int]:
        """Like :meth:`at`, also returning every node's value at the last
        precision used, and that precision."""
        if _nan_input(xs):
            # a NaN input is no point of the domain: every output undefined
            # (mpmath and the balls would read it as 0: x*y at (NaN, 1/2) was
            # "exactly 0", and a certified form's recompute a finite number)
            n = len(self.program.outputs)
            return [math.nan] * n, [UNDEFINED] * n, [], self.start_prec
        inputs = [point(from_float(float(x))) for x in xs]
        prog, fmt = self.program, self.fmt
        n = len(prog.outputs)
        out: list[float] = [math.nan] * n
        status = [UNRESOLVED] * n
        todo = set(range(n))
        unbounded: set = set()  # outputs whose interval had an infinite end last time
        straddle: dict = {}  # output -> the two adjacent floats its interval rounded to
        nodes: list = []
        prec = self.start_prec
        lost = False  # a zero whose sign neither tier knows
        # how far a value not known real, or a zero of unknown sign, is pursued:
        # to the top while SIGN_TRIES last, then 4x the start
        top = self.max_prec if self.sign_tries > 0 else 4 * self.start_prec
        fixed = None  # nodes' exact values, once a sign was left undecided
        exact = None  # nodes' exact values, once an output straddled a midpoint
        precs = list(self.precisions())
        j = 0
        while j < len(precs):
            prec = precs[j]
            nodes = prog.run(inputs, prec, fixed=fixed)
            if fixed is None and self._undecided(nodes, todo):
                # a sign no interval decides: an argument that is exactly 0
                # (Heaviside(2 - 2*exp(x/2)) at x = 0) has its exact value,
                # where every node below it has one
                fixed = self._fixed(xs, nodes)
                if fixed:
                    continue  # this precision again, with them
            j += 1
            for k in list(todo):
                v = nodes[prog.outputs[k]]
                if v is UNDEF:
                    status[k] = UNDEFINED
                    todo.discard(k)
                elif v is UNKNOWN:
                    # not even known real: an argument straddling the edge of a
                    # domain (sqrt of an exact 0 reached inexactly, sqrt(1 - sin^2
                    # - cos^2)); more bits may settle it, up to ``top`` (as for a
                    # zero of unknown sign): unresolved, counted (every point of
                    # such a formula cost every precision: 374 points, 4.8 s)
                    if prec >= (top if self.edge_top is None else self.edge_top):
                        todo.discard(k)
                        lost = self.edge_top is None
                    continue
                else:
                    a, b = round_mpf(v[0], fmt), round_mpf(v[1], fmt)
                    if a == b == 0 and math.copysign(1.0, a) != math.copysign(1.0, b):
                        # zeros of both signs: the value's sign is not known; more
                        # bits may exclude 0, up to the top while SIGN_TRIES last,
                        # then 4x the start (as the balls): unresolved, bounded by
                        # the two zeros (the error is the same against either:
                        # check_stability's figures keep it)
                        if prec >= top:
                            todo.discard(k)
                            lost = True
                    elif a == b:
                        out[k], status[k] = a, RESOLVED
                        todo.discard(k)
                    elif v[0] in (fninf, finf) or v[1] in (fninf, finf):
                        # no finite bound twice, at 4x the start: a value past
                        # the range of exp (|u| > 2**16384) is in it; more bits
                        # will not bound it.  Unresolved, and said so.
                        if k in unbounded and prec >= 4 * self.start_prec:
                            todo.discard(k)
                        unbounded.add(k)
                    elif _adjacent(a, b, fmt):
                        # the interval still holds the point halfway between two
                        # floats (or a float and inf) at twice the precision, from
                        # 4x the start on: the value may be that point (exp(log(1 +
                        # 2**-53))), which no precision rounds.  Its exact value
                        # decides it where it is rational (the tie rounds to
                        # even); else it may be beside it by far less than an ulp
                        # (sin(x) - sin(y) at x, y ~ 1e-115: x - y a midpoint,
                        # (x**3 - y**3)/6 some 760 bits below it): pursued up to
                        # ``top``, as a zero of unknown sign, then unresolved,
                        # within a float
                        if straddle.get(k) == (a, b) and prec >= 4 * self.start_prec:
                            if exact is None:
                                exact = self._fixed(xs, nodes)
                            q = exact.get(prog.outputs[k])
                            if q is not None:
                                out[k], status[k] = round_fraction(q, fmt), RESOLVED
                                todo.discard(k)
                            elif prec >= top:
                                todo.discard(k)
                                lost = True
                        straddle[k] = (a, b)
            if todo and prog.periodic and prec >= 2 * self.start_prec:
                # the argument of a sin, cos or tan beyond what the top precision
                # reduces (an interval past 2**(max_prec - p) wide is still wider
                # than a float's unit there: cos(erfcx(x)*exp(x)) at x = -100,
                # erfcx about exp(10**4)): unresolved now, not at every precision
                # to the top (the erfc of each at 8,192 bits: minutes a formula)
                far = self._beyond_reach(nodes, prec >= 16 * self.start_prec)
                if far:
                    hit = prog.above(far)
                    for k in [k for k in todo if hit[prog.outputs[k]]]:
                        todo.discard(k)
            if not todo:
                break
        if lost:
            self.sign_tries -= 1
        return out, status, nodes, prec

    def _beyond_reach(self, nodes: list, algebraic: bool) -> set[int]:
        """The sin, cos and tan nodes whose argument is an interval (not a
        point) with an infinite end, or an end past ``2**(max_prec - p)``
        (``p`` the type's precision): no precision up to the top narrows
        them below a unit of the float type.  An argument of the inputs by
        sums, products and integer powers alone only with ``algebraic``
        (asked from 16x the start precision: such an argument is exact at
        some precision, a product of 23 floats at 16x)."""
        out = set()
        for i, a, never_exact in self.program.periodic:
            if not (never_exact or algebraic):
                continue
            v = nodes[a]
            if type(v) is not tuple or type(v[0]) is not tuple or v[0] == v[1]:
                continue
            ends = (v[0], v[1])
            if any(e in (finf, fninf) for e in ends) or max(
                    (e[2] + e[3] for e in ends if e[1]), default=0) > \
                    self.max_prec - self.fmt.prec:
                out.add(i)
        return out

    def _undecided(self, nodes: list, todo: set) -> bool:
        """Whether an output still to settle is not known real, or its
        interval holds 0 while not being the point 0."""
        for k in todo:
            v = nodes[self.program.outputs[k]]
            if v is UNKNOWN or (type(v) is tuple and type(v[0]) is tuple
                                and v[0] != v[1] and contains_zero(v)):
                return True
        return False

    def _fixed(self, xs: Sequence[float], nodes: list) -> dict[int, Fraction]:
        """The exact values (:class:`.rational.ExactNodes`) of the nodes
        whose interval at ``xs`` is not already that point."""
        if self.exact is None:
            self.exact = ExactNodes(self.program.order, self.symbols, _exact_other)
        # (a node of a real value may be an atom: sin(x) - sin(y) at x = y is 0;
        # its sign, where the interval knows it, writes it as sign*exp(log|a|))
        real = [type(v) is tuple and type(v[0]) is tuple and len(v[0]) == 4 for v in nodes]
        signs = [(1 if lt(fzero, v[0]) else -1 if lt(v[1], fzero) else 0) if r else None
                 for v, r in zip(nodes, real)]
        out = {}
        for i, q in enumerate(self.exact.values(xs, signs)):
            if q is not None and not (real[i] and nodes[i][0] == nodes[i][1]):
                out[i] = q
        return out

    def undefined_origins(self, xs: Sequence[float]) -> list[Basic | None]:
        """Per output, the node where its undefinedness at ``xs`` starts:
        the first node (children first) with no real value whose operands
        all have one (``log(x)`` in ``log(log(x))`` at x = 0; ``log(log(x))``
        at x = 1/2), or None where the output is defined.

        >>> from sympy import symbols, log
        >>> x = symbols("x")
        >>> t = GroundTruth([log(x) - log(log(x))], [x])
        >>> t.undefined_origins([0.5]), t.undefined_origins([0.0]), t.undefined_origins([3.0])
        ([log(log(x))], [log(x)], [None])
        """
        _, status, nodes, _ = self.resolve(xs)
        prog = self.program
        out: list[Basic | None] = []
        for k, st in enumerate(status):
            if st != UNDEFINED:
                out.append(None)
                continue
            i = prog.outputs[k]
            while prog.steps[i][0] == "op":
                nxt = next((c for c in prog.steps[i][2] if nodes[c] is UNDEF), None)
                if nxt is None:
                    break
                i = nxt
            out.append(prog.order[i])
        return out

    def batch(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values and statuses, shape ``(outputs, n)``, at the rows of
        ``points`` (shape ``(n, symbols)``)."""
        vals, status, _, _ = self.batch_bounds(points)
        return vals, status

    def batch_bounds(self, points: np.ndarray) -> tuple[np.ndarray, ...]:
        """Like :meth:`batch`, with two more arrays: floats ``lo <= hi``
        between which the correctly rounded value is known to lie (both
        the value where RESOLVED; NaN where UNDEFINED; where UNRESOLVED,
        the last interval's ends rounded, NaN where not even that is known
        (an argument straddling the edge of a domain))."""
        n_out = len(self.program.outputs)
        shape = (n_out, len(points))
        vals, lo, hi = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
        status = np.full(shape, UNRESOLVED, dtype=np.int8)
        memo, kind = self._rows, np.asarray(points).dtype.str
        # the rows the balls decide whole (most of them): their values kept in a
        # list and written at the end, at once (a column written per row, four
        # times, was a third of this loop's own cost)
        whole: list[int] = []
        whole_v: list[list[float]] = []
        # each row's floats as Python floats, for the balls (the same values: a
        # NumPy scalar's isnan and float() cost 5x a float's, per row and input)
        plain = np.asarray(points).tolist()
        known = _known_rows(self, points) if self.reads_known else None
        raw = None if memo is None and not known else [r.tobytes() for r in points]
        # the rows the balls decide at their first precision, in one pass (what
        # decided() says of them: it is asked for the others only)
        nows, sure = self._first(plain, kind, memo, raw, known)
        for i, row in enumerate(points):
            tick()
            if known:
                v = known.get(raw[i])
                if v is not None:  # (resolved by the caller: the correctly rounded value)
                    whole.append(i)
                    whole_v.append([v])
                    continue
            if memo is not None:
                # a row's figures depend on the row and on whether zeros of
                # unknown sign are still pursued (SIGN_TRIES left): the same
                # as computed anew, and the count of tries spent replayed
                key = (kind, raw[i], self.sign_tries > 0)
                got = memo.get(key)
                if got is not None:
                    if got[1] is None:  # decided whole by the balls: no try spent
                        whole.append(i)
                        whole_v.append(got[0])
                        continue
                    vals[:, i], status[:, i], lo[:, i], hi[:, i], lost = got
                    self.sign_tries -= lost
                    continue
                tries = self.sign_tries
            v = nows[i] if sure[i] else self.decided(plain[i], nows[i])
            if v is not None and not _signless(v):
                # every output decided (decided() spends no try)
                whole.append(i)
                whole_v.append(v)
                if memo is not None:
                    memo[key] = (v, None)
                continue
            self._row(row, i, vals, status, lo, hi, v)
            if memo is not None:
                # (tries spent: none counted where they are unlimited, inf - inf)
                spent = 0 if math.isinf(tries) else tries - self.sign_tries
                memo[key] = (vals[:, i].copy(), status[:, i].copy(), lo[:, i].copy(),
                             hi[:, i].copy(), spent)
        if whole:
            got = np.array(whole_v, dtype=float).reshape(len(whole), n_out).T
            vals[:, whole] = lo[:, whole] = hi[:, whole] = got
            status[:, whole] = RESOLVED
        return vals, status, lo, hi

    def _first(self, plain: list, kind: str, memo: dict | None,
               raw: list | None, known: dict | None) -> tuple[list, list]:
        """What the balls say of each row of ``plain`` at their first
        precision, and whether that decides the row whole
        (:meth:`.balls.BallProgram.first`), for the rows neither ``known``
        (values resolved by the caller) nor the memo holds now (the others:
        None and False; ``raw``, each row's bytes)."""
        n = len(plain)
        if self.balls is None:
            return [None] * n, [False] * n
        if memo is None and not known:
            return self.balls.first(plain, self.fmt, self.start_prec)
        hopeful = self.sign_tries > 0
        todo = [i for i, r in enumerate(raw) if not (known and r in known)
                and (memo is None or (kind, r, hopeful) not in memo)]
        got, sure = self.balls.first([plain[i] for i in todo], self.fmt, self.start_prec)
        nows, whole = [None] * n, [False] * n
        for i, v, w in zip(todo, got, sure):
            nows[i], whole[i] = v, w
        return nows, whole

    def _row(self, row: np.ndarray, i: int, vals: np.ndarray, status: np.ndarray,
             lo: np.ndarray, hi: np.ndarray, v: list | None) -> None:
        """Column ``i`` of batch_bounds' arrays, at the point ``row``, where
        ``v`` is what :meth:`decided` says there."""
        n_out = len(self.program.outputs)
        if v is not None:  # every output decided in balls
            vals[:, i] = lo[:, i] = hi[:, i] = v
            status[:, i] = RESOLVED
            for k, a in enumerate(v):
                if type(a) is SignlessZero:  # a zero of unknown sign: unresolved
                    vals[k, i], lo[k, i], status[k, i] = math.nan, -0.0, UNRESOLVED
        else:
            v, s, nodes, _ = self.resolve(row)
            vals[:, i] = v
            status[:, i] = s
            for k in range(n_out):
                if s[k] == RESOLVED:
                    lo[k, i] = hi[k, i] = v[k]
                elif s[k] == UNRESOLVED:
                    lo[k, i], hi[k, i] = self._rounded_ends(
                        nodes[self.program.outputs[k]])
        if self.rational is not None and (status[:, i] == UNRESOLVED).any():
            v, s = list(vals[:, i]), list(status[:, i])
            for k in self._exactly(row, v, s):
                vals[k, i] = lo[k, i] = hi[k, i] = v[k]
                status[k, i] = RESOLVED

    def decided(self, xs: Sequence[float], first: object = None) -> list[float] | None:
        """Every output's correctly rounded value at ``xs`` from the ball
        tier (:mod:`.balls`), or None where it does not decide them all
        (then :meth:`resolve` does, and alone says undefined or unresolved);
        ``first``, what :meth:`.balls.BallProgram.first` said there, if
        asked."""
        if self.balls is None or _nan_input(xs):
            return None
        # a zero of unknown sign: more bits may tell it (cosh(x) - 1 at x =
        # 5e-324 is 1.2e-647: 2,150 bits), but a ball around an exact 0
        # (cos(pi/2)) or exp(-exp(huge)) never narrows, and every such point
        # cost every precision of both tiers: once SIGN_TRIES points stayed
        # so, the balls stop at 4x the start and the point is unresolved
        hopeful = self.sign_tries > 0
        out = self.balls.decide(xs, self.fmt, self.start_prec, self.max_prec,
                                self.max_prec if hopeful else 4 * self.start_prec, first)
        if out is not None and _signless(out):
            # an exact 0 where every node below has an exact value (exp(x) - 1
            # at x = 0 when its ball is not the point), or cancels exactly
            # (sin(x) - sin(y) at x = y): decided
            inputs = [point(from_float(float(v))) for v in xs]
            fixed = self._fixed(xs, self.program.run(inputs, self.start_prec))
            for k, v in enumerate(out):
                q = fixed.get(self.program.outputs[k])
                if type(v) is SignlessZero and q is not None:
                    out[k] = round_fraction(q, self.fmt)
        if out is not None and hopeful and _signless(out):
            # the interval tier may know the sign: its interval of (1 - s)*s at
            # s = sigmoid(4e9) is [0, tiny], all of it rounding to +0
            return None
        return out

    def _rounded_ends(self, v: object) -> tuple[float, float]:
        if not (type(v) is tuple and len(v) == 2 and type(v[0]) is tuple):
            return math.nan, math.nan  # UNKNOWN: not even that the value is real
        return round_mpf(v[0], self.fmt), round_mpf(v[1], self.fmt)


def middle(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The middle of a truth's bounds, the value an unresolved point stands
    at: ``lo/2 + hi/2`` (no overflow near the largest float), NaN where the
    bounds are the whole line (a pole's neighbourhood), without a warning.

    >>> import numpy as np
    >>> middle(np.array([1.0, -np.inf, 1e308]), np.array([3.0, np.inf, 1.7e308]))
    array([2.00e+000,       nan, 1.35e+308])
    """
    with np.errstate(invalid="ignore"):
        return lo / 2 + hi / 2


# (symbols, dtype name, rows, values, resolved): the rows at which a caller knows the
# correctly rounded values of a certified(u)'s u, while it runs that code
# (stabilize's verification of the source certified: :func:`known_values`)
KNOWN: ContextVar[tuple | None] = ContextVar("symgrad_known_truth", default=None)


def known_values(symbols: Sequence[Symbol], dtype: str, rows: np.ndarray, values: np.ndarray,
                 resolved: np.ndarray):
    """A context in which the ground truth of the ``certified(u)`` code run
    in it (one ``u``, equal to the formula whose correctly rounded
    ``values`` at ``rows`` (over ``symbols``, in ``dtype``) the caller's own
    ground truth has resolved) takes those values at those rows, without
    computing them again: a correctly rounded value is one value, whichever
    ground truth resolves it.  The verification of the source certified
    computes each row's exact value for its figures, and the code it
    measures computed it again at every row its bound did not certify
    (NMSE 3.4.2: about half the box, where its exp overflow)."""
    return _Known((list(symbols), float_format(dtype).name, rows, values, resolved))


class _Known:
    def __init__(self, value: tuple) -> None:
        self.value, self.token = value, None

    def __enter__(self) -> None:
        self.token = KNOWN.set(self.value)

    def __exit__(self, *exc: object) -> None:
        KNOWN.reset(self.token)


def _known_rows(truth: GroundTruth, points: np.ndarray) -> dict | None:
    """:data:`KNOWN`'s rows and values, keyed as ``truth`` reads ``points``
    (its symbols' order and dtype), where it is of the same symbols and type."""
    got = KNOWN.get()
    if got is None:
        return None
    symbols, name, rows, values, resolved = got
    if name != truth.fmt.name or sorted(symbols, key=str) != sorted(truth.symbols, key=str) \
            or len(truth.program.outputs) != 1 or np.asarray(points).dtype != rows.dtype:
        return None
    order = [symbols.index(s) for s in truth.symbols]
    at = np.flatnonzero(resolved)
    mine = np.ascontiguousarray(rows[at][:, order])
    return {r.tobytes(): float(v) for r, v in zip(mine, values[at])}


def _certified_truth(text: str, formula: Basic | None, dtype: str) -> GroundTruth:
    """The ground truth of ``certified(u)``'s rare elements
    (:mod:`symgrad.codegen.certify_helpers`): ``u`` as code generation made it,
    or read back from its ``srepr`` text (a module made in another process)
    by :func:`symgrad.srepr_reader.read_srepr`, which evaluates nothing."""
    if formula is None:  # (read as data: nothing of the text is evaluated)
        from ..srepr_reader import read_srepr

        formula = read_srepr(text)
    truth = GroundTruth([formula], sorted(free_symbols([formula]), key=str), dtype)
    # every element tried to the precision cap: a value that depends on how many
    # hard points came before it would depend on its batch
    truth.sign_tries = math.inf
    # except a row not known real (an argument straddling a domain's edge, as
    # acosh's argument cosh(x - y) = 1 at x = y, which no interval decides):
    # pursued to 16x the start (1,232 bits in float64: |x - y| down to about
    # 2**-600 resolves), a bound of the row alone (the lead's D5), then
    # unresolved as before (the pairs' value stands, as documented, and the
    # verification measures it).  To the cap (8,192 bits) such rows cost the
    # Lorentz distance's stabilize 73 of its 73 s; 4x the start gave up rows
    # the cap decides at 616 bits (|x - y| ~ 5e-51).
    truth.edge_top = 16 * truth.start_prec
    # so each row's value is a function of the row alone, and is remembered: the
    # verification's walk to a zero (depth.deepest_zeros) asks the rare path again
    # at rows it asked before (focal's gradient: 90,438 rows, 64,236 distinct);
    # at most _CERTIFIED_ROWS of them (~800 bytes each), forgotten all at once past that
    truth._rows = _Rows()
    truth.reads_known = True
    return truth


_CERTIFIED_ROWS = 1 << 14


class _Rows(dict):
    """A ground truth's memo of rows that forgets them all past
    ``_CERTIFIED_ROWS`` (a certified function lives as long as its module)."""

    def __setitem__(self, key: object, value: object) -> None:
        if len(self) >= _CERTIFIED_ROWS:
            self.clear()
        super().__setitem__(key, value)


certify_helpers._ZV_MAKER = _certified_truth
