"""Code for ``certified(u)``: ``u`` in pairs beside a bound on the pairs'
error, recomputed by the ground truth where the bound does not certify it
(:mod:`symgrad.certified`).

Before ``compensating`` each ``certified(u)`` becomes one code-only call
``_zv(compensated(u), E2, E1, E0, text, *inputs)``: the ``E`` are
plain expressions of the inputs (:func:`error_masses`), ``text`` is ``u``'s
text printed over its DAG (:func:`symgrad.srepr_reader.dag_srepr`: the
ground truth's formula); the generated module defines the
helpers (:data:`CERTIFY_HELPERS`, from :mod:`symgrad.codegen.certify_helpers`).
"""

from __future__ import annotations

import functools

from sympy import (
    Abs,
    Add,
    Basic,
    Dummy,
    Float,
    Integer,
    LessThan,
    Max,
    Min,
    Mul,
    Number,
    Piecewise,
    Pow,
    Symbol,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    cos,
    cosh,
    cot,
    coth,
    csc,
    csch,
    erf,
    erfc,
    exp,
    log,
    oo,
    pi,
    sec,
    sign,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    true,
)
from sympy.codegen.cfunctions import expm1, hypot, log1p
from sympy.codegen.numpy_nodes import logaddexp
from sympy.functions.special.delta_functions import Heaviside

from ..build import (
    EVALUATED_TREE,
    cancelling,
    mapped,
    of_class,
    piecewise,
    replaced,
    tree_size,
    unevaluated,
)
from ..certified import certified
from ..compensated import compensated
from ..errors import SymgradError
from ..graph import free_symbols, postorder
from ..lowering import lower
from ..rewrites import accurate_forms
from ..srepr_reader import dag_srepr
from . import certify_helpers
from .compensating import PairCall
from .texts import HelperCall, module_text

__all__ = ["certifying", "certifiable", "error_masses", "CERTIFY_HELPERS", "CERTIFY_NAMES",
           "uses_certify"]

# functions whose value compensating computes as a pair (relative error about
# eps**2, plus eps**2 times the argument from its reduction)
_PAIR_FUNCS = (exp, expm1, log, log1p, sin, cos, tan, atan)  # (and _ErfPair, _ErfcPair)


class _Zv(HelperCall):
    """``_zv(r, e2, e1, e0, text, *inputs)``; ``text`` is the class's (one
    subclass per formula, :func:`_zv_class`)."""

    _helper = "_zv"
    _text = ""
    # (its line runs quiet, and its masses' lines: a pair or a bound that is
    # not finite sends the element to the ground truth)
    handles_nonfinite = True

    def _numpycode(self, printer) -> str:
        r, e2, e1, e0, *inputs = (printer._print(a) for a in self.args)
        return f"_zv({r}, {e2}, {e1}, {e0}, {self._text!r}{''.join(', ' + a for a in inputs)})"

    _symgrad_numpycode = _numpycode


@functools.cache
def _zv_class(text: str) -> type:
    return type("_Zv", (_Zv,), {"_text": text})


# steps (no rounding, derivative 0 away from the step) and how near 0 their
# argument must be, against its masses, for the step to be taken on trust:
# 2**13 u E2 + 2**-16 E1 + 2**13 tiny E0 (u the type's unit roundoff: 2**-40
# E2 in float64, 2**-11 E2 in float32; tiny its smallest subnormal) is 2**13
# times the plain float's own error and over 4x float32's bound (C = 64)
_STEPS = (Heaviside, sign)
_STEP_NEAR = (Integer(2) ** 13, Integer(2) ** -16, Integer(2) ** 13)


class _ZvUnit(HelperCall):
    """``_zv_unit(x)``: the unit roundoff of the type ``x`` is computed in
    (2**-53 in float64, 2**-24 in float32), positive."""

    _helper = "_zv_unit"

    def _eval_is_positive(self):
        return True

    def _eval_is_extended_positive(self):
        return True


class _ZvTiny(_ZvUnit):
    """``_zv_tiny(x)``: the smallest subnormal of the type ``x`` is in."""

    _helper = "_zv_tiny"


def _as_pairs(n: Basic) -> Basic | None:
    """``n`` written in functions of pairs where it is a hyperbolic
    function or its inverse, or asin or acos (None otherwise), each without
    a cancellation of its own: ``tanh(a) = -sign(a) m/(2 + m)``, ``m =
    expm1(-2|a|)`` in (-1, 0] (no overflow); ``sinh(a) = (expm1(a) -
    expm1(-a))/2``, ``cosh(a) = (exp(a) + exp(-a))/2``; ``atanh(a) =
    (log1p(a) - log1p(-a))/2``; ``asinh(a) = sign(a) log1p(|a| + a**2/(1 +
    sqrt(1 + a**2)))``; ``acosh(a) = log1p((a - 1) + sqrt((a - 1)(a +
    1)))``; ``asin(a) = 2 atan(a/(1 + sqrt((1 - a)(1 + a))))`` and
    ``acos(a) = 2 atan(sqrt((1 - a)/(1 + a)))`` (half angles).  (An
    overflow of a term where the value is finite, sinh past exp's threshold,
    is a pair not finite: that element goes to the ground truth.)"""
    if isinstance(n, logaddexp):  # (the safe forms' log(exp(a) + exp(b)))
        a, b = n.args
        if not _small(a, b):
            return _over(_over(_as_pairs(logaddexp(_HOLE, _HOLE2)), a), b)
        return Max(a, b) + log1p(exp(-Abs(a - b)))
    if not isinstance(n, (tanh, sinh, cosh, atanh, asinh, acosh, asin, acos)):
        return None
    a = n.args[0]
    if not _small(a):  # (SymPy's evaluation walks a deep argument as a tree)
        return _over(_as_pairs(n.func(_HOLE)), a)
    if isinstance(n, tanh):
        m = expm1(-2 * Abs(a))
        return -sign(a) * m / (2 + m)
    if isinstance(n, sinh):
        return (expm1(a) - expm1(-a)) / 2
    if isinstance(n, cosh):
        return (exp(a) + exp(-a)) / 2
    if isinstance(n, atanh):
        return (log1p(a) - log1p(-a)) / 2
    if isinstance(n, asinh):
        return sign(a) * log1p(Abs(a) + a**2 / (1 + sqrt(1 + a**2)))
    if isinstance(n, asin):  # (half angles: no infinity at |a| = 1)
        return 2 * atan(a / (1 + sqrt((1 - a) * (1 + a))))
    if isinstance(n, acos):
        return 2 * atan(sqrt((1 - a) / (1 + a)))
    return log1p((a - 1) + sqrt((a - 1) * (a + 1)))


_HOLE = Dummy("a", real=True)
_HOLE2 = Dummy("b", real=True)


def _small(*args: Basic) -> bool:
    """Whether SymPy may evaluate a node over ``args``: each small as a
    tree (its evaluation of some nodes walks the arguments as trees,
    exponential in a DAG's depth)."""
    return all(not a.args or tree_size(a) <= EVALUATED_TREE for a in args)


def _over(form: Basic, a: Basic) -> Basic:
    """``form`` (built over :data:`_HOLE`, then :data:`_HOLE2`) with ``a``
    in the first hole left, as written."""
    hole = _HOLE if form.has(_HOLE) else _HOLE2
    return replaced(form, lambda n: a if n is hole else None)


def _pair_tanh(u: Basic) -> Basic:
    """``u`` with each hyperbolic function (and inverse) written in
    functions of pairs (:func:`_as_pairs`): tanh, sinh, cosh, atanh, asinh
    and acosh as functions of pairs (tanh: no overflow)."""
    return _rewritten(u, _as_pairs)


def _rewritten(u: Basic, swap, root: bool = True) -> Basic:
    """``u`` with each node ``n`` for which ``swap`` gives a node replaced by
    it, bottom up (a node inside a replaced one is replaced too), the nodes
    above rebuilt as written; the root too where ``root``; one walk of the
    DAG."""
    order, _ = postorder([u], lambda n: n.args)
    new: dict[Basic, Basic] = {}
    for n in order:
        args = tuple(new.get(a, a) for a in n.args)
        m = n if all(a is b for a, b in zip(args, n.args)) else unevaluated(n, args)
        got = swap(m) if root or n is not u else None
        if got is not None or m is not n:
            new[n] = m if got is None else got
    return new.get(u, u)


class _ZvErf(PairCall):
    _helper = "_zv_erf"


class _ZvErfc(PairCall):
    _helper = "_zv_erfc"


class _ErfPair(erf):
    """erf computed as a pair (``_zv_erf``), where it is not the root; as
    an expression (its masses' code) it is erf."""

    pair_call = _ZvErf


class _ErfcPair(erfc):
    """erfc computed as a pair (``_zv_erfc``); see :class:`_ErfPair`."""

    pair_call = _ZvErfc


def _pair_erf(u: Basic) -> Basic:
    """``u`` with each ``erf``/``erfc`` below its root computed as a pair
    (:mod:`symgrad.codegen.certify_helpers`: relative error a few eps**2);
    of a number it is a constant (a pair of its exact value: a pair call
    of a number had no code)."""
    return _rewritten(u, lambda n: (_ErfPair if n.func is erf else _ErfcPair)(*n.args)
                      if n.func in (erf, erfc) and not n.is_number else None, root=False)


def _as_erf(m: Basic) -> Basic:
    """``m`` (plain code: the masses) with erf and erfc as themselves."""
    return _rewritten(m, lambda n: (erf if isinstance(n, _ErfPair) else erfc)(*n.args)
                      if isinstance(n, (_ErfPair, _ErfcPair)) else None)


def _partials(n: Basic) -> list[Basic]:
    """``n``'s partial derivatives in its arguments, as expressions of them."""
    holes, ds = _hole_partials(n.func, len(n.args))
    table = dict(zip(holes, n.args))
    if not _small(*n.args):  # (as written: see _small)
        return [replaced(d, table.get) for d in ds]
    return [d.xreplace(table) for d in ds]


@functools.lru_cache(maxsize=1024)
def _hole_partials(func: type, k: int) -> tuple[tuple, tuple]:
    """The holes of ``func`` over ``k`` arguments and its partial
    derivatives in them, once per class and count (SymPy's differentiation
    is most of the masses' cost: a sum of ``k`` terms asks it ``k`` times)."""
    holes = tuple(Dummy(f"a{i}", real=True) for i in range(k))
    if func is Add:
        return holes, (Integer(1),) * k
    f = func(*holes)
    return holes, tuple(f.diff(h) for h in holes)


def _second(n: Basic) -> Basic:
    """The second derivative of the one-argument function ``n`` in its
    argument, as an expression of it."""
    h, d2 = _hole_second(n.func)
    return d2.xreplace({h: n.args[0]}) if _small(n.args[0]) else replaced(
        d2, lambda m: n.args[0] if m is h else None)


@functools.lru_cache(maxsize=64)
def _hole_second(func: type) -> tuple:
    h = Dummy("a", real=True)
    return h, func(h).diff(h, 2)


def _abs(a: Basic) -> Basic:
    """``|a|``: a number's or a symbol's evaluated, otherwise as written
    (SymPy's evaluation of ``Abs`` asks the sign of each factor: two thirds
    of the masses' cost; the value is the same)."""
    if a.is_Number or a.is_Symbol:
        return Abs(a)
    if isinstance(a, (Abs, exp)):
        return a
    return Abs(a, evaluate=False) if _small(a) else of_class(Abs, (a,))


def _times(*fs: Basic) -> Basic:
    """The product of ``fs``, evaluated where they are small."""
    if _small(*fs):
        return Mul(*fs)
    if any(f.is_Number and f.is_zero for f in fs):
        return Integer(0)
    fs = [f for f in fs if f is not Integer(1)]
    return fs[0] if len(fs) == 1 else of_class(Mul, fs)


def _sum(terms: list) -> Basic:
    """The sum of ``terms``, evaluated where they are small."""
    if _small(*terms):
        return Add(*terms)
    terms = [t for t in terms if not (t.is_Number and t.is_zero)]
    return terms[0] if len(terms) == 1 else of_class(Add, terms) if terms else Integer(0)



def error_masses(u: Basic, wide: bool = True) -> tuple[Basic, Basic, Basic]:
    """``(E2, E1, E0)``: a first-order bound on ``compensated(u)``'s error is
    ``C (eps**2 E2 + eps E1 + tiny E0)`` (``tiny`` the type's smallest
    subnormal).  Each node adds its own rounding (a sum of k terms
    ``(k - 1) sum |a|``, a product's ``(k - 1)|v|``, a function of pairs
    ``|v| + |f'(a)||a|`` (its reduction), to E2; a function computed to one
    float, ``|v|``, to E1; 1 to E0, for an operation whose pair falls below
    the normal range, where its low part is lost) and carries its
    arguments' masses times ``|dv/da|`` (a product's factors widened by
    their reach, :func:`_factor_mags`; not where ``wide`` is False, for
    :func:`certifiable`, which asks only whether ``E1`` is 0: the same
    answer, at a third of the cost).  One walk of the DAG; SymgradError
    for a node without derivatives (a Piecewise, a comparison).

    >>> from sympy import symbols, log
    >>> x, y = symbols("x y")
    >>> e2, e1, e0 = error_masses(log(y) - x + 1)
    >>> e1
    0
    """
    if _small(u):  # (kept by equality: a form rebuilt apart finds its masses)
        return _small_masses(u, wide)
    # a large one by node object, the most recent 256 (equality compares an
    # equal formula built apart as a tree: exponential in a DAG's depth)
    hit = _MASSES.get((id(u), wide))
    if hit is not None and hit[0] is u:
        return hit[1]
    got = _error_masses(u, wide)
    if len(_MASSES) >= 256:
        _MASSES.pop(next(iter(_MASSES)))
    _MASSES[id(u), wide] = (u, got)
    return got


_MASSES: dict = {}  # (id(u), wide) -> (u, its masses): u kept, so its id stays its own


@functools.lru_cache(maxsize=256)
def _small_masses(u: Basic, wide: bool) -> tuple[Basic, Basic, Basic]:
    return _error_masses(u, wide)


def _error_masses(u: Basic, wide: bool) -> tuple[Basic, Basic, Basic]:
    order, _ = postorder([u], lambda n: n.args)
    zero = Integer(0)
    masses: dict[Basic, tuple] = {}
    for n in order:
        if isinstance(n, Symbol):
            masses[n] = (zero, zero, zero)
            continue
        if isinstance(n, Number) or n.is_number:
            # a float or a dyadic rational is exact; any other constant is a pair
            exact = isinstance(n, Float) or (n.is_Rational and not n.q & (n.q - 1))
            masses[n] = (zero if exact else Abs(n), zero, zero)
            continue
        if not isinstance(n, Basic) or not n.args or n.is_Boolean or n.is_Relational:
            raise SymgradError(f"certified({u}): no error bound through {n}")
        k = len(n.args)
        if isinstance(n, _STEPS):
            # a step: no rounding, no derivative; where its argument is within
            # its own bound of 0 (float32's constants: looser in float64) the
            # step may be taken the wrong way: not certified there (inf)
            masses[n] = (zero, _near_zero(n.args[0], masses[n.args[0]]), zero)
            continue
        try:
            ds = _partials(n)
        except Exception as err:  # noqa: BLE001  (any node SymPy cannot differentiate)
            raise SymgradError(f"certified({u}): no error bound through {n}: {err}") from None
        if isinstance(n, Add):
            own2, own1 = _times(Integer(k - 1), _sum([_abs(a) for a in n.args])), zero
        elif isinstance(n, Mul):
            own2, own1 = _times(Integer(k - 1), _abs(n)), zero
        elif isinstance(n, Pow) and n.exp.is_Integer:
            own2, own1 = _times(Abs(n.exp), _abs(n)), zero
        elif isinstance(n, Pow) and n.exp in (Integer(1) / 2, -Integer(1) / 2):
            own2, own1 = _times(Integer(2), _abs(n)), zero
        elif isinstance(n, _PAIR_FUNCS) or getattr(n, "pair_call", None) is not None:
            d0 = wide and _ball_mags(n, ds, masses)
            d0 = d0[0] if d0 else _abs(ds[0])
            own2, own1 = _sum([_abs(n), _times(d0, _abs(n.args[0]))]), zero
            if n is u and wide and isinstance(n, _PAIR_FUNCS):
                # at the root compensating rounds f(hi) once and adds f'(hi) lo:
                # its second-order remainder |f''| lo**2/2, lo up to an ulp of
                # the argument, is no pair's (log1p(x + y) at x = -1, y ~ 1e-12:
                # 4.9e-11 relative, certified)
                own2 = _sum([own2, _times(Integer(2), _ball_second(n, masses),
                                          _abs(n.args[0]), _abs(n.args[0]))])
        elif isinstance(n, hypot) and (n is not u or any(
                not a.is_Symbol and free_symbols([a]) for a in n.args)):
            # (a pair: the pair root of the pair sum of squares, scaled; at the
            # root of floats it is the float hypot, rounded once: below)
            own2, own1 = _times(Integer(4), _abs(n)), zero
        elif isinstance(n, (Abs, Max, Min)):  # (a choice among pairs: no rounding)
            own2, own1 = zero, zero
        else:
            own2, own1 = zero, _abs(n)
            if wide and not (isinstance(n, _GUARDED) and _steep_edge(n) is not None) and any(
                    m != 0 for a in n.args for m in masses[a]):
                # a function rounded to one float whose derivative's variation
                # over its argument's reach is not known here (gamma, coth, a
                # power with a symbolic exponent): its factor at the plain
                # argument may understate the exact one without limit, so
                # where its argument carries an error the element is not
                # certified (the ground truth's)
                own1 = oo
        own = (own2, own1, _sum([Integer(k), _quotient_underflow(n), _root_underflow(n, ds)])
               if wide else Integer(k))
        edge = _steep_edge(n, wide)
        if edge is not None and any(m != 0 for m in masses[n.args[0]]):
            # its derivative factor is taken at the argument's PLAIN float, which
            # a cancellation can leave far from the exact value (log of the
            # expanded (x - 1)**7 at x = 1.0001: plain 7.1e-15, exact 1.0e-28:
            # 1/|a| understated 7e13 times, a pair 29 bits off certified): where
            # the argument is within its own reach of the place where the
            # derivative is unbounded, as a step's of 0, the element is not
            # certified (the ground truth's)
            own = (own2, _sum([own1, _near_zero(edge, masses[n.args[0]])]), own[2])
        mags = wide and (_factor_mags(n, masses) or _ball_mags(n, ds, masses)) or [
            _abs(d) for d in ds]
        masses[n] = tuple(
            _sum([o, _sum([_times(d, masses[a][j]) for d, a in zip(mags, n.args)
                           if masses[a][j] != 0])])
            for j, o in enumerate(own))
    return masses[u]


def _factor_mags(n: Basic, masses: dict) -> list[Basic] | None:
    """For a product or a positive integer power: its derivative factors'
    magnitudes with each other factor's plain value widened by its reach
    (:func:`_reach`), None for another node.  The plain value of a factor
    that cancels can be far below its exact value (0 where the exact is
    1e-60): the first-order bound ``|a| M(b) + |b| M(a)`` taken at plain
    values then said 0 for ``y (sqrt(2 - p) - sqrt(2)) p``, ``p`` the
    expanded ``(x + 1)**8`` at ``x = -1 - 3.8e-8``, a pair 9e74 ulps off
    certified.  The widened factor also covers the second-order term
    ``dA dB`` (each pair's error is within its reach)."""
    if isinstance(n, Mul):
        wide = [_sum([_abs(a), _reach(masses[a], a)]) if any(m != 0 for m in masses[a])
                else _abs(a) for a in n.args]
        return [_times(*(w for j, w in enumerate(wide) if j != i)) for i in range(len(wide))]
    if isinstance(n, Pow) and n.exp.is_Integer and n.exp > 1:
        a = n.base
        if not any(m != 0 for m in masses[a]):
            return None
        w = _sum([_abs(a), _reach(masses[a], a)])
        return [_times(Integer(n.exp), w ** (n.exp - 1) if _small(w) else of_class(
            Pow, (w, Integer(n.exp - 1)))), Integer(0)]
    return None


# the classes whose derivative factor is taken at the plain argument only where
# a guard (:func:`_steep_edge`) holds that argument within 2**-13 of its
# magnitude from the place where the factor is unbounded: there the factor
# over the argument's reach is within (1 - 2**-13)**-m of its plain value
# (m the order of the pole); other classes rounded to one float are not
# certified where their argument carries an error (their factor may vary
# without limit over its reach: gamma near a pole, coth and csch like
# exp(-2|a|), a power with a symbolic exponent like exp)
_GUARDED = (log, log1p, Pow, tan, cot, csc, sec)


def _radius(masses: tuple, a: Basic) -> Basic:
    """A bound on how far the plain float of ``a`` (a value with these
    masses) is from its exact value (and from its pair, closer to the exact
    one): ``C (u (E2 + E1) + tiny E0)``, ``C`` the bound's constant (64),
    ``u`` the unit roundoff and ``tiny`` the smallest subnormal of the type
    the code runs in.  The plain code makes the same roundings as the pairs
    but to one float (``u`` for ``eps**2``: a libm function within an ulp,
    ``2u |v|``, against its own term ``|v| + |f'(a) a|``), and its derivative
    factors are the pairs' taken over this radius (:func:`_ball_mags`), so the
    bound holds node by node, up the DAG; the radius is not the guards' reach
    (:func:`_reach`, 2**13 times the plain error) because an exponential's
    factor grows by ``exp(radius)``: a radius 128 times the reach would leave
    uncertified arguments whose pairs certify (an exponent of masses 1e12:
    radius 6.6e-3, reach 0.9)."""
    gens = sorted(free_symbols([a]), key=str)
    unit = _ZvUnit(gens[0]) if gens else Integer(2) ** -53
    tiny = _ZvTiny(gens[0]) if gens else Integer(2) ** -1074
    e2, e1, e0 = masses
    return _times(Integer(64), _sum([_times(unit, _sum([e2, e1])), _times(tiny, e0)]))


def _call_on(f, arg: Basic) -> Basic:
    """``f(arg)``, as written where ``arg`` is large."""
    return f(arg) if _small(arg) else of_class(f, (arg,))


def _ball_mags(n: Basic, ds: list, masses: dict) -> list[Basic] | None:
    """For a node whose derivative factor the plain argument can understate
    without limit although no guard stops it (its value stays finite and
    smooth there): an upper bound of ``|dv/da|`` over every point within
    :func:`_radius` of the plain argument ``a`` (which holds the exact
    argument and its pair), None for another node (its plain factor).
    ``exp(a + r)`` for exp and expm1 (``exp(x y e - t)`` with ``x y e ~
    1e18``: the plain exponent off by 50, its factor ``e**-50`` times the
    exact one, a pair 4,300 ulps off certified); ``|cos a| + r`` for sin
    (``|sin a| + r`` for cos); ``1/(1 + max(0, |a| - r)**2)`` for atan;
    ``2/sqrt(pi) exp(2 |a| r - a**2)`` for erf and erfc computed as pairs
    (``erfc(s)`` 1,080 ulps off certified); ``|p a**(p - 1)| exp(2 |p - 1|
    r/|a|)`` for a power of a numeric exponent ``p`` with ``|p - 1| > 8``
    (other than a positive integer's: :func:`_factor_mags`); 1 for each argument of ``|a|``,
    max and min (their step's factor: 0 at a plain 0 whose pair is not,
    which certified ``|x y e - t|`` 28 ulps off) and of a pair hypot
    (``|a|/hypot <= 1``)."""
    if isinstance(n, (Abs, Max, Min, hypot)):
        return [Integer(1)] * len(n.args)
    steep_power = isinstance(n, Pow) and n.exp.is_number and abs(n.exp - 1) > 8 and not (
        n.exp.is_Integer and n.exp > 0)
    if not (steep_power or isinstance(n, (exp, expm1, sin, cos, atan, _ErfPair, _ErfcPair))):
        return None
    a = n.args[0]
    if not any(m != 0 for m in masses[a]):  # (an exact argument: its plain factor)
        return None
    r = _radius(masses[a], a)
    if steep_power:
        # its guard holds |a| above 128 radii, so |a|**(p - 1) over the radius
        # is within exp(1.01 |p - 1| r/|a|) of its plain value: 1.07 at most
        # where |p - 1| <= 8 (within the constant's room), past it counted
        m = abs(n.exp - 1)
        grow = _times(Integer(2) * m, r, of_class(Pow, (_abs(a), Integer(-1))))
        return [_times(_abs(ds[0]), _call_on(exp, grow)), Integer(0)]
    if isinstance(n, (exp, expm1)):
        return [_call_on(exp, _sum([a, r]))]
    if isinstance(n, (sin, cos)):
        return [_sum([_abs(ds[0]), r])]
    if isinstance(n, atan):  # (as written: SymPy's Max asks the sign of its arguments)
        low = of_class(Max, (Integer(0), _sum([_abs(a), _times(Integer(-1), r)])))
        return [of_class(Pow, (_sum([Integer(1), of_class(Pow, (low, Integer(2)))]),
                               Integer(-1)))]
    top = _sum([_times(Integer(2), _abs(a), r), -_times(a, a)])
    return [_times(2 / sqrt(pi), _call_on(exp, top))]


def _ball_second(n: Basic, masses: dict) -> Basic:
    """``|f''|`` over the argument's radius (:func:`_ball_mags`) for a
    function of pairs at the root (its second-order term): ``exp(a + r)``
    for exp and expm1, ``|f''(a)| + r`` for sin and cos, 1 for atan
    (``|atan''| <= 3 sqrt(3)/8``); the plain ``|f''(a)|`` for log, log1p and
    tan (their guards hold the argument near its plain value)."""
    a = n.args[0]
    if any(m != 0 for m in masses[a]):
        if isinstance(n, (exp, expm1)):
            return _call_on(exp, _sum([a, _radius(masses[a], a)]))
        if isinstance(n, (sin, cos)):
            return _sum([_abs(_second(n)), _radius(masses[a], a)])
    if isinstance(n, atan):
        return Integer(1)
    return _abs(_second(n))


def _reach(masses: tuple, a: Basic) -> Basic:
    """How far the plain float of ``a`` (a value with these masses) may be
    from its exact value, with room: ``2**13 (u E2 + tiny E0) + 2**-16 E1``,
    ``u`` the unit roundoff and ``tiny`` the smallest subnormal of the type
    the code runs in (2**-40 E2 in float64).  With fixed constants (2**-40
    E2, 2**-140 E0) float32's plain error, 2**-24 E2, was above the reach (a
    float32 ``y/p**2``, ``p`` the expanded ``(x - 1)**6``, certified 1.6e7
    ulps off), and float64's underflow 2**934 times below it (a product's
    factors near 1e-305 widened past their values: 3.6x the ground truth's
    rows in a stabilize of ``(1 - y) tanh(x) - y x``)."""
    gens = sorted(free_symbols([a]), key=str)
    unit = _ZvUnit(gens[0]) if gens else Integer(2) ** -53
    tiny = _ZvTiny(gens[0]) if gens else Integer(2) ** -1074
    e2, e1, e0 = masses
    c2, c1, c0 = _STEP_NEAR
    return _sum([_times(c2, unit, e2), _times(c1, e1), _times(c0, tiny, e0)])


# below 2**-100 a pair's low part may fall under the normal range of float32
# (2**-126; float64's 2**-1022): its relative error is then no longer eps**2
_LOW_LOST = Integer(2) ** -100


def _den_factors(n: Basic) -> list[Basic]:
    """The factors of ``n`` that its pair code divides by (a Mul's powers
    with a negative integer exponent; a Pow's own), as compensating
    computes them: the numerator's product, the denominators' chain
    (powers by squaring, then products two at a time), then one division."""
    if isinstance(n, Pow) and n.exp.is_Integer and n.exp < 0:
        return [n]
    if isinstance(n, Mul):
        return [a for a in n.args if isinstance(a, Pow) and a.exp.is_Integer and a.exp < 0]
    return []


def _max1(a: Basic) -> Basic:
    """``max(1, |a|)``, as written where ``a`` is large."""
    return Max(Integer(1), _abs(a)) if _small(a) else of_class(Max, (Integer(1), _abs(a)))


def _quotient_underflow(n: Basic) -> Basic:
    """E0's term for a quotient's underflow inside its own code (0 for any
    other node): the numerator's product ``N`` and each partial product
    ``Q`` of the denominators' chain lose about ``tiny`` where they fall
    below the normal range, which the division amplifies to ``tiny/|D|``
    and ``tiny |v|/|Q|`` in the value ``v``.  The node's own ``tiny`` (its
    count ``k``) does not cover them: ``eps*expm1(eps*(a + b))`` at 2.5e-317
    divided by 6.8e-74 certified NMSE 3.4.2 2.4e9 ulps off.  ``|Q| >=
    1/prod max(1, |t|)`` over the denominators' factors ``t = d**-m``; the
    terms count only where ``N`` or that bound is below 2**-100 (above it
    the pairs' relative bounds hold: their low parts are normal)."""
    den = _den_factors(n)
    if not den:
        return Integer(0)
    num = [a for a in n.args if a not in den] if isinstance(n, Mul) else []
    terms = []
    if num:
        dinv = _times(*[_abs(t) for t in den])
        small = LessThan(_times(*[_abs(a) for a in num]), _LOW_LOST, evaluate=False)
        terms.append(piecewise([(dinv, small), (Integer(0), true)], evaluate=False))
    if len(den) > 1 or den[0].exp < -1:  # (a chain with partial products)
        qinv = _times(*[_max1(t) for t in den])
        small = LessThan(1 / _LOW_LOST, qinv, evaluate=False)
        terms.append(piecewise([(_times(_abs(n), qinv), small), (Integer(0), true)],
                               evaluate=False))
    return _times(Integer(len(n.args)), _sum(terms))


def _root_underflow(n: Basic, ds: list) -> Basic:
    """E0's term for a square root's underflow inside its own code (0 for
    any other node): the pair root ``s`` of ``a`` takes its low part from
    the residual ``a - s**2``, whose product error ``s*s - fl(s*s)`` is
    below the type's smallest subnormal where ``a`` is near the bottom of
    the normal range (2.2e-308): that residual then loses about ``tiny``,
    at ``a``'s scale, which the root carries as ``tiny |ds/da|`` (tiny/(2 s)
    in ``s``: a relative error of 2**-52 at ``a`` = 2.2e-308, one float's,
    not a pair's).  The node's own ``tiny`` does not cover it: Cohen's h,
    ``2 asin(sqrt(x)) - 2 asin(sqrt(y))`` at x = 3e-308, y 2**12 ulps below,
    was certified 39 bits off.  Beside a pair's relative bound the term is
    nil wherever ``a`` is above 2**-960."""
    if isinstance(n, Pow) and n.exp in (Integer(1) / 2, -Integer(1) / 2):
        return _times(Integer(2), _abs(ds[0]))
    return Integer(0)


def _near_zero(a: Basic, masses: tuple) -> Basic:
    """``oo`` where ``a``'s plain value is within its own reach of 0 (its
    masses times :data:`_STEP_NEAR`), else 0: the E1 term of a step's
    argument (the step may be taken the wrong way) and of a log's, a
    reciprocal's or a root's (its derivative factor, taken at the plain
    value, may be understated): the element is then not certified.  Built
    as written (SymPy's Piecewise folds and simplifies a condition holding
    the guards below it: exponential in the depth of a DAG)."""
    near = LessThan(_abs(a), _reach(masses, a), evaluate=False)
    return piecewise([(oo, near), (Integer(0), true)], evaluate=False)


def _steep_edge(n: Basic, wide: bool = True) -> Basic | None:
    """An expression of ``n``'s first argument ``a`` that is 0 where ``n``'s
    derivative in ``a`` (or its value) grows without bound, None for another
    node: ``a`` for a log, a negative or fractional power, coth, csch;
    ``1 + a`` for log1p (atanh's pairs ``log1p(a) - log1p(-a)`` at ``a = 1 -
    p``, ``p`` cancelling: 2e10 ulps off certified); ``sin(a)`` for cot and
    csc, ``cos(a)`` for tan and sec (their poles).  Only ``a`` where not
    ``wide`` (:func:`certifiable`'s masses: the guards' ``E1`` it ignores)."""
    a = n.args[0] if n.args else None
    if isinstance(n, (log, coth, csch)) or isinstance(n, Pow) and n.exp.is_number \
            and not (n.exp.is_Integer and n.exp >= 0):
        return a
    if not wide:
        return None
    if isinstance(n, log1p):
        return _sum([Integer(1), a])
    if isinstance(n, (cot, csc, tan, sec)):
        f = sin if isinstance(n, (cot, csc)) else cos
        return f(a) if _small(a) else of_class(f, (a,))
    return None


def certifiable(u: Basic) -> bool:
    """Whether ``certified(u)`` has a bound with every rounding in pairs
    (``E1 = 0``: no function rounded to one float, which would send nearly
    every element to the ground truth), each branch of a Piecewise so, in
    ``u`` as code generation computes it (lowered, its accurate forms).

    >>> from sympy import symbols, log, tanh, erf, gamma, Piecewise
    >>> x, y = symbols("x y")
    >>> certifiable(log(y) - x), certifiable(tanh(x) - y), certifiable(erf(x) - y)
    (True, True, True)
    >>> certifiable(gamma(x) - y)  # (gamma is rounded to one float in pairs)
    False
    >>> certifiable(Piecewise((log(y) - x, x > 0), (y - x, True)))
    True
    """
    u = _pair_erf(_pair_tanh(accurate_forms(lower([u]))[0]))  # (as code generation has it)
    branches = [b for b, _ in u.args] if isinstance(u, Piecewise) else [u]
    zero = Integer(0)
    for b in branches:
        if _rounded_once(b):  # (E1 is not 0: known without SymPy's algebra)
            return False
        try:
            e1 = error_masses(b, wide=False)[1] if free_symbols([b]) else None
        except SymgradError:
            return False
        if e1 is None:
            return False
        # (0 but next to a step: a step's mass, inf only near its argument's 0)
        if _small(e1):
            e1 = e1.xreplace({p: zero for p in e1.atoms(Piecewise) if p.args[0][0] == oo})
        else:
            e1 = replaced(e1, lambda n: zero if isinstance(n, Piecewise) and n.args[0][0] == oo
                          else None, rebuild=cancelling)
        if e1 != 0:
            return False
    return True


def _rounded_once(u: Basic) -> bool:
    """Whether :func:`error_masses` gives ``u`` an ``E1`` that is not 0
    (steps' masses aside), known from the nodes' classes alone: a node
    computed to one float (``E1``'s own term) below the root along
    partial derivatives that are not 0 (a step carries no mass of its
    argument).  One walk of the DAG, no SymPy algebra: the masses' own
    evaluation (``Abs``'s sign simplification) took 1.5 s on a regime
    split of erf's series that is then refused.  False where the masses
    decide (a node without derivatives)."""
    order, _ = postorder([u], lambda n: n.args)
    free: dict = {}
    has: dict = {}
    for n in order:
        free[n] = isinstance(n, Symbol) or any(free[a] for a in n.args)
        has[n] = False
        if isinstance(n, Symbol) or isinstance(n, Number) or not free[n] or not n.args \
                or n.is_Boolean or n.is_Relational or isinstance(n, _STEPS):
            continue
        if isinstance(n, hypot):
            own = n is u and all(a.is_Symbol or not free[a] for a in n.args)
        else:
            own = not (isinstance(n, (Add, Mul, Abs, Max, Min) + _PAIR_FUNCS)
                       or getattr(n, "pair_call", None) is not None
                       or isinstance(n, Pow) and (n.exp.is_Integer or n.exp in (
                           Integer(1) / 2, -Integer(1) / 2)))
        if own:
            has[n] = True
            continue
        if any(has[a] for a in n.args):
            try:
                _, ds = _hole_partials(n.func, len(n.args))
            except Exception:  # noqa: BLE001  (the masses decide: no derivative)
                continue
            has[n] = any(has[a] and d != 0 for a, d in zip(n.args, ds))
    return has[u]


def _call(u: Basic) -> Basic:
    if isinstance(u, Piecewise):  # each branch certified (the conditions as written)
        return Piecewise(*[(_call(b), c) for b, c in u.args])
    if not free_symbols([u]):
        return u
    v = _pair_erf(_pair_tanh(u))
    e2, e1, e0 = (_as_erf(m) for m in error_masses(v))
    text = dag_srepr(u)  # (srepr prints the tree: exponential in a DAG's depth)
    certify_helpers._ZV_FORMS.setdefault(text, u)
    gens = sorted(free_symbols([u]), key=str)
    # (past SymPy's cache: its lookup compares a formula built apart with an
    # equal one by SymPy's ==, a tree walk)
    return of_class(_zv_class(text), (of_class(compensated, (v,)), e2, e1, e0, *gens))


def certifying(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each ``certified(u)`` replaced by the call that
    computes ``u`` in pairs and recomputes the elements its bound does not
    certify; roots without ``certified`` come back as they are.

    >>> from sympy import symbols, log
    >>> x, y = symbols("x y")
    >>> [c] = certifying([certified(log(y) - x + 1)])
    >>> c.func.__name__, c.args[0]
    ('_Zv', compensated(-x + log(y) + 1))
    """
    order, _ = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, certified) for n in order):
        return roots
    return mapped(roots, cancelling, swap=lambda n: _call(n.args[0])
                  if isinstance(n, certified) else None)


# (the names the helpers' text defines: every one starts _zv or _ZV)
CERTIFY_NAMES = frozenset(n for n in vars(certify_helpers) if n.startswith(("_zv", "_ZV")))


def uses_certify(code: str) -> bool:
    """Whether generated code calls the certifying helpers.

    >>> uses_certify("t0 = _zv(t1, t2, t3, t4, 'x', x)"), uses_certify("t0 = x")
    (True, False)
    """
    return "_zv(" in code


CERTIFY_HELPERS = module_text(certify_helpers)
