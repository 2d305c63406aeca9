"""Candidate forms of a formula, for :func:`symgrad.stabilize` to measure.

Every candidate equals the formula mathematically; which is accurate is
for measurement to say.  Three sources:

* the library's rewrites (:mod:`.library`): each ``measured`` rewrite on
  its own, and all of them together, over the ``codegen`` and ``safe``
  ones;
* sums of exponentials normalized by their largest exponent
  (:mod:`.expsums`), hyperbolic functions written with ``exp`` first or
  not; sums of powers of one symbolic exponent written about an integer
  exponent where they are a number (:mod:`.power_sums`);
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

from collections.abc import Callable, Mapping, Sequence

import mpmath
from sympy import (
    Abs,
    Add,
    Basic,
    Dummy,
    Expr,
    Function,
    Mul,
    O,
    Piecewise,
    Pow,
    Rational,
    Symbol,
    cancel,
    collect,
    expand,
    expand_mul,
    factor,
    fraction,
    ilcm,
    series,
    sign,
    together,
)
from sympy.polys.polyerrors import PolynomialError
from sympy.polys.polyutils import parallel_dict_from_expr

from ..graph import count_ops, postorder
from .exact_exponents import exact_exponents, split_subnormal_products
from .exponents import merge_exponentials, settle
from .expsums import (
    EXP32,
    EXP_LO,
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
from .logdomain import grouped_exponents, has_symbolic_power, log_domain
from .power_sums import about_integer_exponents
from .quotients import divide_in_turn
from .regimes import into_branches
from .rewrite import apply_rewrites, fires_on
from .series import horner
from .signs import fold_signs, select_steps
from .taylor_balls import UNSETTLED, ball_taylor, ball_value

__all__ = ["ALGEBRA_OPS", "Candidate", "candidates", "taylor"]

ALGEBRA_OPS = 60
ALGEBRA_DEGREE = 64  # factor: no generator of a higher degree (see _factor)
# factor over several generators: none of a higher degree (see _factor)
ALGEBRA_DEGREE_SEVERAL = 16

_SAFE = in_scope("codegen", "safe")
# (membership by identity: a Rewrite's == compares every field, lhs and rhs
# among them, and ``rw in _SAFE`` cost 58 of those per measured rewrite, 2,700
# a call of candidates; the library holds each rewrite once, by its name)
_SAFE_IDS = frozenset(map(id, _SAFE))
_MEASURED = in_scope("measured")
# per dtype: a rewrite whose form is accurate only in the pairs of some types
# (extra["dtypes"]: sin and cos of a pair reduced exactly, float64's) is not
# offered in the others (float32's pairs reduce to first order past 2**21)
_MEASURED_FOR = {d: tuple(rw for rw in _MEASURED if d in rw.extra.get("dtypes", (d,)))
                 for d in ("float64", "float32")}


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


def _factor(e: Expr) -> Expr:
    """SymPy's ``factor`` of ``e`` over a common denominator, or ``e``
    where its dense polynomials would be huge: ``factor`` expands (``exp``
    of a sum is the product of the exps, ``exp(-(x - 4699/10000)**2/10)``
    holds ``exp(-1/10**9)**22080601``) and holds one coefficient per power
    of each generator up to its degree, level by level: Hartman's 3-variable
    function did not finish in 300 s.  Over two or more generators its
    multivariate factoring grows steeply with the degree (CPU, SymPy 1.14:
    the annuity ``((1 + x)**k - (1 + y)**k)/(x - y)``'s 0.01 s at k = 5,
    0.19 at 15, 0.81 at 20, 4.8 at 30; ``(x**k - y**k)/(x - y)`` 0.22 s at
    20, 5.0 at 40), so there no generator may pass ``ALGEBRA_DEGREE_SEVERAL``."""
    t = together(e)
    n, d = fraction(t)
    try:
        polys, gens = parallel_dict_from_expr([n, d], expand=True)
    except PolynomialError:
        return e
    degrees = [max((m[i] for p in polys for m in p), default=0) for i in range(len(gens))]
    if max(degrees, default=0) > (ALGEBRA_DEGREE if sum(1 for g in degrees if g) < 2
                                  else ALGEBRA_DEGREE_SEVERAL):
        return e
    return factor(t)


def _roots_factored(e: Expr, facts: Facts) -> Expr:
    """:func:`_factor` of ``e`` with each symbol ``v`` that ``e`` holds under
    a rational power of denominator ``m`` (``v**(4/5)``, ``sqrt(v*w)``), and
    that is not negative over the domain, written ``t**m`` for ``t = v**(1/m)``:
    a sum of roots is a polynomial in the roots, whose factors SymPy's
    ``factor`` does not see over ``v`` and ``v**(1/5)`` as two generators.
    A double zero becomes a square of a difference of roots, which the
    power-difference rewrite takes: the Tweedie deviance at p = 6/5,
    ``-25x^(4/5)/2 + 10x/y^(1/5) + 5y^(4/5)/2``, is
    ``5(x^(1/5) - y^(1/5))²(4x^(3/5) + ...)/(2y^(1/5))``.  ``e`` itself where
    no symbol is so (one walk of the DAG).

    >>> from sympy import symbols, sqrt
    >>> x, y = symbols("x y", real=True)
    >>> _roots_factored(x + y - 2*sqrt(x*y), Facts({x: (0, 1), y: (0, 1)}))
    (sqrt(x) - sqrt(y))**2
    """
    dens: dict = {}
    for n in postorder([e], _args)[0]:
        if isinstance(n, Pow) and n.exp.is_Rational and not n.exp.is_Integer:
            for f in Mul.make_args(n.base):  # (a root of a product: each factor's)
                v = f.base if isinstance(f, Pow) and f.exp.is_Integer else f
                if isinstance(v, Symbol):
                    dens[v] = ilcm(dens.get(v, 1), n.exp.q)
    there, back = {}, {}
    for v, m in dens.items():
        if facts.nonnegative(v):
            t = Dummy(positive=True)
            there[v], back[t] = t**m, v ** Rational(1, m)
    if not there:
        return e
    f = _factor(e.xreplace(there))
    return e if f == e.xreplace(there) else f.xreplace(back)


_ALGEBRA: tuple[tuple[str, Callable[[Expr], Expr]], ...] = (
    ("together+factor", _factor),
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
    expr = fold_signs([expr])[0]  # u·sign(u) as |u|: exact, and together sees it
    # a product of a step, 0 where the step is (0·inf is NaN: celu's gradient
    # in float32 past x = 177), before exponentials are normalized (by an exp
    # whose coefficient is that step)
    expr = select_steps([expr])[0]
    base = with_normalized_sums([expr], _SAFE, Facts(domain))[0]
    out = [Candidate(base, "safe forms")]
    # the others may be invalid at an end of the domain (0 in x**p, x ≥ 0):
    # they are measured there, and regimes keep them off it
    facts = Facts(domain, interior=True)
    seen = {base}

    def add(e: Expr, how: str) -> None:  # (O over the DAG: SymPy's has walks the tree)
        if e not in seen and not any(isinstance(n, O) for n in postorder([e], _args)[0]):
            seen.add(e)
            out.append(Candidate(e, how))

    measured = _MEASURED_FOR.get(dtype, _MEASURED)
    applied = []
    # each measured rewrite after the safe ones: the pass of the safe ones alone,
    # once, is that pass's result wherever the rewrite rewrites none of the nodes
    # at which the safe ones applied none (fires_on; most of the 37 rewrites,
    # each a whole pass over the formula before)
    tried: list = []
    safe = apply_rewrites([base], _SAFE, facts, tried=tried)[0]
    for rw in measured:
        if id(rw) in _SAFE_IDS or fires_on(rw, tried, facts):
            e = apply_rewrites([base], [*_SAFE, rw], facts)[0]
        else:
            e = safe
        if e != base:
            applied.append(rw)
            add(e, rw.name)
    if applied:
        # all of them, and those another one enables (hypot-one makes the
        # hypot(x, 1) - x that hypot-conjugate takes)
        e = apply_rewrites([base], [*_SAFE, *measured], facts)[0]
        add(e, "+".join(r.name for r in applied) + ("" if len(applied) > 1 else ", then rewrites"))
    # (one walk: both forms below are of powers with a symbolic exponent, which
    # the safe forms neither make nor remove; most formulas have none)
    symbolic = has_symbolic_power([expr])
    # sums of powers of one symbolic exponent about an integer exponent where
    # they are a number (Tsallis' entropy near order 1, a CES mean near 0)
    for c, (e,) in about_integer_exponents([base], domain) if symbolic else ():
        add(apply_rewrites([e], _SAFE, facts)[0], f"powers about exponent {c}")
        add(apply_rewrites([e], [*_SAFE, *measured], facts)[0],
            f"powers about exponent {c}, then rewrites")
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
    # powers with symbolic exponents in the log domain (exp(p·log B), the logs
    # of sums as softplus, logaddexp or normalized): the Richards curve, a
    # sigmoid to a power, the Hill equation
    if symbolic:
        ld = log_domain([expr], facts)[0]
        if ld != expr:
            add(apply_rewrites(grouped_exponents([ld]), _SAFE, facts)[0], "log domain")
            n = normalized(ld, facts, together=True)
            if n is not None:
                add(apply_rewrites(grouped_exponents([n]), after(_SAFE), facts)[0],
                    "log domain, exp-normalized")
    merged = merge_exponentials([base])[0]
    if merged != base:
        add(settle(apply_rewrites([merged], _SAFE, facts)[0]), "exponents merged")
        # the measured rewrites first: a regime's fallback branch folded out
        # (log(erf(u)/2 + 1/2)) is seen before the safe rewrite that made it
        again = apply_rewrites([merged], measured, facts)
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
            add(apply_rewrites([t], [*_SAFE, *measured], facts)[0], f"{name}, then rewrites")
            n = normalized(t, facts, together=True)
            if n is not None:
                add(apply_rewrites([n], after(_SAFE), facts)[0], f"{name}, exp-normalized")
        # a sum of roots factored as a polynomial in its roots (then the
        # power-difference rewrite takes a difference of roots it exposes)
        try:
            t = _roots_factored(expr, facts)
        except Exception:  # noqa: BLE001  (SymPy's algebra gives up: no candidate)
            t = expr
        if t != expr:
            add(apply_rewrites([t], [*_SAFE, *measured], facts)[0], "roots factored, then rewrites")
    sym = _symmetric(expr)
    if sym is not None:
        add(apply_rewrites([sym[0]], _SAFE, facts)[0], sym[1])
    # (one pass over all the candidates at once: they share most of their DAG,
    # and each node's form is a function of the node alone)
    now = list(out)
    small = [c.expr for c in now if count_ops([c.expr]) <= ALGEBRA_OPS and c.expr.has(Piecewise)]
    taken = iter(into_branches(small))
    for c in now:
        add(divide_in_turn([c.expr])[0], f"{c.how}, divided in turn")
        if count_ops([c.expr]) <= ALGEBRA_OPS and c.expr.has(Piecewise):
            # then the safe rewrites over each branch whole (a square taken out of
            # a root the branch now holds)
            b = next(taken)
            add(apply_rewrites([b], _SAFE, facts)[0] if b != c.expr else b,
                f"{c.how}, factors into branches")
    # each with its exponentials of rounded arguments computed from the exact
    # argument (pairs of floats): exp(b - a) in the normalized gradient of
    # log-sum-exp loses log2|b - a| bits to the rounding of b - a
    # and with each product c·exp(e) whose exp may be subnormal, while c may be
    # large, as (c·exp(e/2))·exp(e/2) there (x·exp(x) at x = -744)
    lo = EXP32[0] if dtype == "float32" else EXP_LO
    now = list(out)
    for c, e in zip(now, split_subnormal_products(exact_exponents([c.expr for c in now], facts),
                                                  facts, lo)):
        add(e, f"{c.how}, exponents exact")
    return out


def _args(n: Basic) -> tuple:
    return n.args


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
    # the screen stops at its first point off 0; the points it skipped are
    # evaluated only where they could matter (an error at any point of the
    # even screen leaves the formula unscreened, as one that fails both)
    skipped: list = []
    for sign_, name in ((1, "even"), (-1, "odd")):
        diff = mirror - sign_ * expr
        try:
            off = _off_zero_at(diff, x, _SCREEN)
            if off is None and skipped:
                _off_zero_at(*skipped[0])  # (only for its error)
        except Exception:  # noqa: BLE001  (SymPy cannot evaluate it (floor, ...): not screened)
            return None
        if off is not None:
            skipped.append((diff, x, _SCREEN[off + 1:], False))
        else:
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


_SCREEN = ("0.37", "1.9", "3.3", "0.81", "2.6")  # _symmetric's points


def _off_zero_at(diff: Expr, x: Symbol, points: Sequence[str], stop: bool = True) -> int | None:
    """The first of ``points`` where ``diff`` (at 30 digits) is not within
    1e-20 of 0 (NaN included), or None; without ``stop``, every point is
    evaluated (an error is what is asked)."""
    off = None
    for i, v in enumerate(points):
        # (at most 40 digits of working precision, not SymPy's 100: at a point where
        # ``diff`` is exactly 0, evalf raised its precision to 100 digits trying to
        # tell the 0, 0.07 s a point for the focal loss's 1-variable parts; 40
        # digits put such a 0 below 1e-100, and a value of 1e-20 or more in
        # 30-digit terms is told as before)
        if not _near_zero(diff, x, v) and off is None:
            off = i
            if stop:
                break
    return off


def _near_zero(diff: Expr, x: Symbol, v: str) -> bool:
    """Whether ``diff`` at ``x = v`` is within 1e-20 of 0 (not NaN): in
    Arb's balls over the DAG where the ball tells (its whole radius on one
    side of 1e-20), else by SymPy's ``evalf`` at 30 digits, which walks the
    tree (exponential in a chain's height: 13 deep, 7.8 s)."""
    b = ball_value(diff, x, float(Rational(v)))
    if b is not UNSETTLED and b.is_finite():
        if abs(b) < 1e-20:
            return True
        if abs(b) > 1e-20:
            return False
    return abs(complex(diff.evalf(30, subs={x: Rational(v)}, maxn=40))) < 1e-20


def taylor(expr: Expr, sym: Symbol, at: Basic, terms: int) -> Expr | None:
    """The Taylor polynomial of ``expr`` in ``sym`` at ``at`` with ``terms``
    nonzero terms at most (orders below ``2*terms``), or None where there is
    no power series there (a pole, a log, a fractional power).

    The coefficients come from mpmath (:func:`_numeric_taylor`: seconds at
    most, a float polynomial); SymPy's ``series`` (exact coefficients) only
    where that fails at ``at`` (a removable singularity, 0/0) and the formula
    nests no function in another: SymPy's series of nested functions takes
    minutes (``exp(sin(x))`` to order 24: over 20 s; a product of cosines of
    sines of erf hung ``stabilize`` for 9 minutes).

    >>> from sympy import symbols, tan, sin
    >>> x = symbols("x")
    >>> taylor(1 / x - 1 / tan(x), x, 0, 3)
    2*x**5/945 + x**3/45 + x/3
    >>> taylor(sin(x), x, 0, 2)
    x*(1.0 - 0.16666666666666666*x**2)
    """
    if count_ops([expr]) > ALGEBRA_OPS:
        return None
    p = _numeric_taylor(expr, sym, at, terms)
    if p is not None or _nested(expr):
        return p
    key = (expr, sym, at)
    if _NOT_POWER.get(key, 2 * terms + 1) <= 2 * terms:
        return None  # (SymPy's series to a lower order held a term no polynomial has)
    try:
        s = series(expr, sym, at, 2 * terms).removeO()
    except Exception:  # noqa: BLE001  (no expansion at this point)
        return None
    if s.has(O):
        return None
    if not s.is_polynomial(sym):
        # a log, a negative or fractional power below this order is in every
        # longer expansion too (asech(x) at 0: 0.08-0.14 s a series, 4 orders)
        if len(_NOT_POWER) >= 256:
            _NOT_POWER.clear()
        _NOT_POWER[key] = min(_NOT_POWER.get(key, 2 * terms), 2 * terms)
        return None
    parts = Add.make_args(s.expand())
    if len(parts) > terms:
        by_order = sorted(parts, key=lambda t: t.as_poly(sym).degree() if t.has(sym) else 0)
        s = Add(*by_order[:terms])
    return s if s != 0 else None


# (expr, sym, at) -> the order of a SymPy series of it that held a term no
# polynomial has (taylor: no longer expansion is a polynomial either)
_NOT_POWER: dict[tuple, int] = {}


def _nested(expr: Expr) -> bool:
    """Whether a function (not a power, sum or product) holds another."""
    order, kids = postorder([expr], lambda n: n.args)
    inner: dict = {}
    for n in order:
        fn = isinstance(n, Function)
        below = any(inner[k] for k in kids[n])
        if fn and below:
            return True
        inner[n] = fn or below
    return False


def _numeric_taylor(expr: Expr, sym: Symbol, at: Basic, terms: int) -> Expr | None:
    """:func:`taylor_coefficients` as a polynomial (Horner's form)."""
    coeffs = taylor_coefficients(expr, sym, at, terms)
    return None if coeffs is None else horner(coeffs, sym, float(at))


def taylor_coefficients(expr: Expr, sym: Symbol, at: Basic, terms: int) -> list[float] | None:
    """The coefficients of the first ``terms`` nonzero coefficients below order
    ``2*terms``, from mpmath's differentiation at 30 and at 45 digits: a
    coefficient both give alike (to 20 digits) is kept, one where they
    differ and that is tiny (below 1e-20 of the largest) is 0 (an odd
    function's even ones), any other makes it None (no series at ``at``:
    a pole, a kink, a complex value), as does an error or a value that is
    not a finite real.  First in Arb's power series of balls
    (:func:`.taylor_balls.ball_taylor`: each coefficient known to 20 digits,
    milliseconds where mpmath's differences of order 47 take a second and
    more); mpmath where those cannot tell (a kink, a domain edge, a function
    without a series kernel there).

    >>> from sympy import symbols, exp
    >>> x = symbols("x")
    >>> taylor_coefficients(exp(x) - 1, x, 0, 3)
    [0.0, 1.0, 0.5, 0.16666666666666666]
    """
    got = ball_taylor(expr, sym, float(at), terms)
    return _mpmath_taylor_coefficients(expr, sym, at, terms) if got is UNSETTLED else got


def _mpmath_taylor_coefficients(expr: Expr, sym: Symbol, at: Basic,
                                terms: int) -> list[float] | None:
    """:func:`taylor_coefficients` from mpmath's differentiation alone."""
    from .series import mpmath_function

    try:
        f = mpmath_function([sym], expr)
        got = []
        for dps in (30, 45):
            with mpmath.workdps(dps):
                cs = mpmath.taylor(f, mpmath.mpf(float(at)), 2 * terms - 1)
            if not all(isinstance(c, mpmath.mpf) and mpmath.isfinite(c) for c in cs):
                return None
            got.append(cs)
    except Exception:  # noqa: BLE001  (no value or no derivative at this point)
        return None
    a, b = got
    big = max(abs(c) for c in b)
    if big == 0:
        return None
    coeffs = []
    for u, v in zip(a, b):
        if abs(u - v) <= abs(v) * mpmath.mpf(10) ** -20:
            coeffs.append(float(v))
        elif abs(v) <= big * mpmath.mpf(10) ** -20:
            coeffs.append(0.0)
        else:
            return None
    nonzero = [k for k, c in enumerate(coeffs) if c != 0]
    if not nonzero:
        return None
    return coeffs[:nonzero[:terms][-1] + 1]
