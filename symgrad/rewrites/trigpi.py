"""Rewrites of sine, cosine and tangent of π times an input: reduced exactly.

``sin(pi*x)`` in floats computes ``sin`` of the rounded product ``π·x``:
where the exact value is 0 or small (x at or near an integer), the product's
rounding is all that is left, and ``(1 + cos(pi*x))/2`` (cosine annealing)
loses every bit near x = 1; ``cos(t*pi/180)`` (degrees) is 6.1e-17 at
t = 90, where it is 0.  What NumPy-era libraries do (Julia's ``sinpi``,
Boost's ``sin_pi``, MATLAB's ``sind``): reduce the argument in its own
units, exactly, and multiply by π only what is left, at most a quarter
period, where sine and cosine are well conditioned.

The nodes :class:`~.pi_nodes.sinpi`, :class:`~.pi_nodes.cospi` and
:class:`~.pi_nodes.tanpi` (``sinpi(u, q) = sin(π·u/q)``) carry that
reduction into the code (:mod:`.pi_nodes`).

The rewrites (:data:`TRIGPI`) write ``sin``, ``cos`` and ``tan`` of
``π·(b + c·w)`` (``b`` a multiple of 1/2, ``c`` a rational whose ``1/c``
is such a ``q``) as these nodes, and ``1 ± cospi(u, q)`` as the square of
``cospi(u, 2q)`` or ``sinpi(u, 2q)``: the half angle without a rounding.
"""

from __future__ import annotations

from sympy import Add, Basic, Mul, cos, pi, sin, symbols, tan

from .facts import Facts
from .pattern import PATTERN_SYMBOLS, Match
from .pi_nodes import cospi, reducible, sinpi, tanpi
from .rewrite import Example, Rewrite

__all__ = ["TRIGPI", "pi_multiple"]

a, b, c, p, u, v = PATTERN_SYMBOLS
x, y = symbols("x y")
MAX = 1.7976931348623157e308
ALL = (-MAX, MAX)
# ---- the rewrites -----------------------------------------------------------------------

def pi_multiple(arg: Basic) -> tuple[int, Basic, Basic] | None:
    """``arg`` as ``π·(k/2 + w/q)``: ``(k, w, q)`` with ``k`` an integer,
    ``w`` the expression left and ``q`` :func:`reducible`, or None.

    >>> t = symbols("t")
    >>> pi_multiple(pi*t/180), pi_multiple(pi*(1 - t)/2), pi_multiple(2*pi*t)
    ((0, t, 180), (1, -t, 2), (0, t, 1/2))
    >>> pi_multiple(3*pi/2 - pi*t/4), pi_multiple(pi*t/7 + pi/3), pi_multiple(t) is None
    ((3, -t, 4), None, True)
    """
    terms = Add.make_args(arg)
    # (a term without π as a factor keeps a 1/π below: none, told without
    # SymPy's free_symbols and has, which walk ``arg`` as a tree, exponential
    # in a DAG's depth: 11 s of a sin chain 16 deep's candidates)
    if not all(pi in Mul.make_args(t) for t in terms):
        return None
    over = Add(*(t / pi for t in terms))  # (each term's π cancels)
    if not over.free_symbols or over.has(pi):
        return None
    const, rest = over.as_independent(*over.free_symbols, as_Add=True)
    if not (const.is_Rational and (2 * const).is_Integer):
        return None
    coeff, w = rest.as_coeff_Mul()
    if not coeff.is_Rational or coeff == 0:
        return None
    if w.is_Add:  # π·(1 - x)/2 is written pi*(1/2 - x/2): keep -x as it was
        inner, w2 = w.as_coeff_Mul()
        if inner.is_Rational and inner != 1:
            coeff, w = coeff * inner, w2
    if coeff < 0:
        coeff, w = -coeff, -w
    q = 1 / coeff
    return (int(2 * const), w, q) if reducible(q) else None


def _pi_valid(m: Match, f: Facts) -> bool:
    return f.real(m[u]) and pi_multiple(m[u]) is not None


def _shifted(node, k: int, w: Basic, q: Basic) -> Basic:
    """trig(π/2·k + π·w/q) as ±sinpi, ±cospi or ±1/tanpi of (w, q)."""
    k %= 4 if node is not tan else 2
    if node is sin:
        return (sinpi(w, q), cospi(w, q), -sinpi(w, q), -cospi(w, q))[k]
    if node is cos:
        return (cospi(w, q), -sinpi(w, q), -cospi(w, q), sinpi(w, q))[k]
    return (tanpi(w, q), -1 / tanpi(w, q))[k]


def _build(trig):
    def build(m: Match) -> Basic:
        k, w, q = pi_multiple(m[u])
        return _shifted(trig, k, w, q)
    return build


def _rw(name, lhs, rhs, scope, why, example, valid, where, **extra):
    return Rewrite(name, lhs, rhs, scope, why, example, valid, where, "trig of π·u", extra)


def _half_valid(m: Match, f: Facts) -> bool:
    return f.real(m[u]) and reducible(2 * m[a])


# fmt: off
TRIGPI: tuple[Rewrite, ...] = (
    _rw("sin-pi",          sin(u), sinpi(u / pi), "measured",
        "sin(π·x) rounds π·x: near an integer x the exact value is small and the "
        "product's rounding is all that is left (every bit at x = 1)",
        Example(sin(pi * x), {x: (1 - 2**-20, 1 + 2**-20)}, {x: (0.1, 0.4)}),
        _pi_valid, "u = π·(k/2 + w/q), q a short binary number", build=_build(sin),
        bind={u: pi * x / 180}),
    _rw("cos-pi",          cos(u), cospi(u / pi), "measured",
        "cos(π·x) rounds π·x: near a half-integer x the exact value is small "
        "(cos(t·π/180) is 6.1e-17 at t = 90, where it is 0)",
        Example(cos(pi * x / 180), {x: (90 - 2**-30, 90 + 2**-30)}, {x: (10, 80)}),
        _pi_valid, "u = π·(k/2 + w/q), q a short binary number", build=_build(cos),
        bind={u: pi * x / 180}),
    _rw("tan-pi",          tan(u), tanpi(u / pi), "measured",
        "tan(π·x/4) rounds π·x/4: near x = 4k it is small, near x = 4k + 2 large, "
        "and the product's rounding is what is left",
        Example(tan(pi * x / 4), {x: (4 - 2**-20, 4 + 2**-20)}, {x: (0.5, 1.5)}),
        _pi_valid, "u = π·(k/2 + w/q), q a short binary number", build=_build(tan),
        bind={u: pi * x / 4}),
    # 1 ± cos(π·u/q) = 2·cos²(π·u/(2q)) or 2·sin²(...): the half angle by the
    # divisor, exact (no u/2 to round)
    _rw("one-plus-cospi",  1 + cospi(u, a), 2 * cospi(u, 2 * a)**2, "measured",
        "1 + cos(π·x) cancels near odd x (cosine annealing (1 + cos(π·x))/2 near 1)",
        Example((1 + cos(pi * x)) / 2, {x: (1 - 2**-20, 1 + 2**-20)}, {x: (-0.4, 0.4)}),
        _half_valid, "u real, 2q a short binary number", needs=("cos-pi",)),
    _rw("one-minus-cospi", 1 - cospi(u, a), 2 * sinpi(u, 2 * a)**2, "measured",
        "1 - cos(π·x) cancels near even x",
        Example(1 - cos(pi * x / 180), {x: (720 - 2**-20, 720 + 2**-20)}, {x: (100, 260)}),
        _half_valid, "u real, 2q a short binary number", needs=("cos-pi",)),
)
# fmt: on
