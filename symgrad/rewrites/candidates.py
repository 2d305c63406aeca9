"""Candidate forms of a formula, for :func:`symgrad.stabilize` to measure.

Every candidate equals the formula mathematically; which is accurate is
for measurement to say.  Three sources:

* the library's rewrites (:mod:`.library`): each ``measured`` rewrite on
  its own, and all of them together, over the ``codegen`` and ``safe``
  ones;
* sums of exponentials normalized by their largest exponent
  (:mod:`.expsums`), hyperbolic functions written with ``exp`` first or
  not;
* algebra that exposes a cancellation to a rewrite or removes it: SymPy's
  ``together`` then ``factor`` (``1/(x+1) - 2/x + 1/(x-1)`` is
  ``2/(x(x-1)(x+1))``), ``cancel`` (``(e^{2x}-1)/(e^x-1)`` is ``e^x + 1``),
  and expanding products then collecting each symbol's terms
  (``(N+1)log(N+1) - N log N`` is ``N(log(N+1) - log N) + log(N+1)``, whose
  difference of logs a rewrite then takes); each followed by the rewrites;
* each of those divided in turn (:mod:`.quotients`): ``p/(a*b)`` as
  ``(p/a)/b``, where the product overflows but the quotient does not;
* truncated Taylor series (:func:`taylor`) at a point where the formula
  cancels, for where no rewrite is known (Herbie's ``1/x - 1/tan x`` near
  0); where a series is accurate is measured, never assumed.

SymPy's algebra can be slow on large formulas: it is tried only on
formulas of at most :data:`ALGEBRA_OPS` operations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sympy import (
    Abs,
    Add,
    Basic,
    Expr,
    O,
    Piecewise,
    Symbol,
    cancel,
    collect,
    expand,
    expand_mul,
    factor,
    series,
    sign,
    together,
)

from ..graph import count_ops
from .exponents import merge_exponentials, settle
from .expsums import (
    EXP32,
    after,
    exp_sums,
    hyperbolic_as_exp,
    normalized,
    normalized_beyond,
    normalized_safe,
    with_normalized_sums,
)
from .facts import Facts
from .library import in_scope
from .quotients import divide_in_turn
from .regimes import into_branches
from .rewrite import apply_rewrites

__all__ = ["ALGEBRA_OPS", "Candidate", "candidates", "taylor"]

ALGEBRA_OPS = 60

_SAFE = in_scope("codegen", "safe")
_MEASURED = in_scope("measured")


class Candidate:
    """A form of the formula and how it was obtained (``how`` names the
    rewrites and transforms, in order)."""

    __slots__ = ("expr", "how")

    def __init__(self, expr: Expr, how: str) -> None:
        self.expr = expr
        self.how = how

    def __repr__(self) -> str:
        return f"Candidate({self.how}: {self.expr})"


def _collect_each(e: Expr) -> Expr:
    syms = sorted(e.free_symbols, key=str)
    return collect(expand_mul(e), syms) if syms else e


_ALGEBRA: tuple[tuple[str, Callable[[Expr], Expr]], ...] = (
    ("together+factor", lambda e: factor(together(e))),
    ("cancel", cancel),
    ("expand+collect", _collect_each),
)


def candidates(expr: Expr, domain: Mapping | None = None,
               dtype: str = "float64") -> list[Candidate]:
    """Distinct forms of ``expr``: the first is ``expr`` with the ``codegen``
    and ``safe`` rewrites applied, valid on ``domain``; the others are valid
    inside it (not necessarily at its ends: the measurement sees those).
    ``dtype`` is the type the code will compute in: a form that keeps the
    formula as written inside ``exp``'s range is offered for that type's
    range (and float32's), never for a wider one (in float32, a branch kept
    up to float64's exponent 709 is NaN past 88, where the points that
    choose may never go).

    >>> from sympy import symbols, log, oo
    >>> x = symbols("x")
    >>> [(c.how, c.expr) for c in candidates(log(x + 1) - log(x), {x: (0, oo)})]
    [('safe forms', -log(x) + log1p(x)), ('log1p-difference', log1p(1/x))]
    """
    base = with_normalized_sums([expr], _SAFE, Facts(domain))[0]
    out = [Candidate(base, "safe forms")]
    # the others may be invalid at an end of the domain (0 in x**p, x ≥ 0):
    # they are measured there, and regimes keep them off it
    facts = Facts(domain, interior=True)
    seen = {base}

    def add(e: Expr, how: str) -> None:
        if e not in seen and not e.has(O):
            seen.add(e)
            out.append(Candidate(e, how))

    applied = []
    for rw in _MEASURED:
        e = apply_rewrites([base], [*_SAFE, rw], facts)[0]
        if e != base:
            applied.append(rw)
            add(e, rw.name)
    if len(applied) > 1:
        add(apply_rewrites([base], [*_SAFE, *applied], facts)[0], "+".join(r.name for r in applied))
    # sums of exponentials normalized by their largest exponent everywhere
    # (the safe forms keep the source where a difference of exponents rounds)
    # (where the safe forms left none to normalize, or normalized them all
    # exactly, the others add nothing but noise to the ranking)
    hyper = hyperbolic_as_exp([expr])[0]
    sums = exp_sums([base], facts)
    tries = [] if not sums else [("exp-normalized", normalized(expr, facts, together=True))]
    if sums and normalized_safe(base, facts) is None:
        if dtype == "float64":
            tries.append(("exp-normalized past float64's range", normalized_beyond(expr, facts)))
        tries.append(("exp-normalized past float32's range",
                      normalized_beyond(expr, facts, *EXP32)))
    if hyper != expr:
        tries.append(("hyperbolic as exp, exp-normalized", normalized(hyper, facts, together=True)))
    for how, e in tries:
        if e is not None:
            add(apply_rewrites([e], after(_SAFE), facts)[0], how)
    merged = merge_exponentials([base])[0]
    if merged != base:
        add(settle(apply_rewrites([merged], _SAFE, facts)[0]), "exponents merged")
        # the measured rewrites first: a regime's fallback branch folded out
        # (log(erf(u)/2 + 1/2)) is seen before the safe rewrite that made it
        again = apply_rewrites([merged], _MEASURED, facts)
        add(settle(apply_rewrites(again, _SAFE, facts)[0]), "exponents merged, then rewrites")
    if count_ops([expr]) <= ALGEBRA_OPS:
        for name, fn in _ALGEBRA:
            try:
                t = fn(expr)
            except Exception:  # noqa: BLE001  (SymPy's algebra gives up: no candidate)
                continue
            if t == expr:
                continue
            add(apply_rewrites([t], _SAFE, facts)[0], name)
            add(apply_rewrites([t], [*_SAFE, *_MEASURED], facts)[0], f"{name}, then rewrites")
            n = normalized(t, facts, together=True)
            if n is not None:
                add(apply_rewrites([n], after(_SAFE), facts)[0], f"{name}, exp-normalized")
    sym = _symmetric(expr)
    if sym is not None:
        add(apply_rewrites([sym[0]], _SAFE, facts)[0], sym[1])
    for c in list(out):
        add(divide_in_turn([c.expr])[0], f"{c.how}, divided in turn")
        if count_ops([c.expr]) <= ALGEBRA_OPS and c.expr.has(Piecewise):
            add(into_branches([c.expr])[0], f"{c.how}, factors into branches")
    return out


def _symmetric(expr: Expr) -> tuple[Expr, str] | None:
    """For a formula of one variable ``x`` that is even (``f(-x) = f(x)``)
    or odd (proved: ``f(-x) ∓ f(x)`` over a common denominator expands to
    0, after a numeric screen at five points),
    ``f(-|x|)`` or ``-sign(x)*f(-|x|)``: one branch for both signs, where
    the formula's accurate form on one side is the other side's too (the
    sigmoid's derivative ``e**x/(1 + e**x)**2`` with ``e**-|x|``: one
    ``exp``, no overflow), else None."""
    free = expr.free_symbols
    if len(free) != 1 or count_ops([expr]) > ALGEBRA_OPS:
        return None
    x = next(iter(free))
    if x.is_nonnegative or x.is_nonpositive:
        return None
    mirror = expr.xreplace({x: -x})
    kind = None
    for sign_, name in ((1, "even"), (-1, "odd")):
        diff = mirror - sign_ * expr
        try:
            vals = [complex(diff.evalf(30, subs={x: v})) for v in (0.37, 1.9, 3.3, 0.81, 2.6)]
        except (TypeError, ValueError):
            return None
        if all(abs(v) < 1e-20 for v in vals):
            try:  # proved: the numerator over a common denominator expands to 0
                if expand(together(diff).as_numer_denom()[0]) == 0:
                    kind = name
            except Exception:  # noqa: BLE001  (SymPy gives up: not proved)
                pass
            break
    if kind is None:
        return None
    folded = expr.xreplace({x: -Abs(x)})
    if kind == "even":
        return folded, "even: f(-|x|)"
    return -sign(x) * folded, "odd: -sign(x)*f(-|x|)"


def taylor(expr: Expr, sym: Symbol, at: Basic, terms: int) -> Expr | None:
    """The Taylor polynomial of ``expr`` in ``sym`` at ``at`` with ``terms``
    nonzero terms at most (orders below ``2*terms``), or None where SymPy
    gives no power series there (a pole, a log, a fractional power).

    >>> from sympy import symbols, tan
    >>> x = symbols("x")
    >>> taylor(1 / x - 1 / tan(x), x, 0, 3)
    2*x**5/945 + x**3/45 + x/3
    """
    if count_ops([expr]) > ALGEBRA_OPS:
        return None
    try:
        s = series(expr, sym, at, 2 * terms).removeO()
    except Exception:  # noqa: BLE001  (no expansion at this point)
        return None
    if s.has(O) or not s.is_polynomial(sym):
        return None
    parts = Add.make_args(s.expand())
    if len(parts) > terms:
        by_order = sorted(parts, key=lambda t: t.as_poly(sym).degree() if t.has(sym) else 0)
        s = Add(*by_order[:terms])
    return s if s != 0 else None
