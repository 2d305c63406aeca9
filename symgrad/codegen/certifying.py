"""Code for ``certified(u)``: ``u`` in pairs beside a bound on the pairs'
error, recomputed by the ground truth where the bound does not certify it
(:mod:`symgrad.certified`).

Before ``compensating`` each ``certified(u)`` becomes one code-only call
``_zv(compensated(u), E2, E1, E0, text, *inputs)``: the ``E`` are
plain expressions of the inputs (:func:`error_masses`), ``text`` is ``u``'s
``srepr`` (the ground truth's formula); the generated module defines the
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
    erf,
    erfc,
    exp,
    log,
    oo,
    sign,
    sin,
    sinh,
    sqrt,
    srepr,
    tan,
    tanh,
)
from sympy.codegen.cfunctions import expm1, hypot, log1p
from sympy.functions.special.delta_functions import Heaviside

from ..build import cancelling, mapped, unevaluated
from ..certified import certified
from ..compensated import compensated
from ..errors import SymgradError
from ..graph import postorder
from ..lowering import lower
from ..rewrites import accurate_forms
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
# 2**-40 E2 + 2**-16 E1 + 2**-140 E0 is over 4x float32's bound (C = 64)
_STEPS = (Heaviside, sign)
_STEP_NEAR = (Integer(2) ** -40, Integer(2) ** -16, Integer(2) ** -140)


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
    if not isinstance(n, (tanh, sinh, cosh, atanh, asinh, acosh, asin, acos)):
        return None
    a = n.args[0]
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
    (:mod:`symgrad.codegen.certify_helpers`: relative error a few eps**2)."""
    return _rewritten(u, lambda n: (_ErfPair if n.func is erf else _ErfcPair)(*n.args)
                      if n.func in (erf, erfc) else None, root=False)


def _as_erf(m: Basic) -> Basic:
    """``m`` (plain code: the masses) with erf and erfc as themselves."""
    if not m.has(_ErfPair, _ErfcPair):
        return m
    return _rewritten(m, lambda n: (erf if isinstance(n, _ErfPair) else erfc)(*n.args)
                      if isinstance(n, (_ErfPair, _ErfcPair)) else None)


def _partials(n: Basic) -> list[Basic]:
    """``n``'s partial derivatives in its arguments, as expressions of them."""
    holes = [Dummy(f"a{i}", real=True) for i in range(len(n.args))]
    f = n.func(*holes)
    table = dict(zip(holes, n.args))
    return [f.diff(h).xreplace(table) for h in holes]


@functools.lru_cache(maxsize=256)
def error_masses(u: Basic) -> tuple[Basic, Basic, Basic]:
    """``(E2, E1, E0)``: a first-order bound on ``compensated(u)``'s error is
    ``C (eps**2 E2 + eps E1 + tiny E0)`` (``tiny`` the type's smallest
    subnormal).  Each node adds its own rounding (a sum of k terms
    ``(k - 1) sum |a|``, a product's ``(k - 1)|v|``, a function of pairs
    ``|v| + |f'(a)||a|`` (its reduction), to E2; a function computed to one
    float, ``|v|``, to E1; 1 to E0, for an operation whose pair falls below
    the normal range, where its low part is lost) and carries its
    arguments' masses times ``|dv/da|``.  One walk of the DAG; SymgradError
    for a node without derivatives (a Piecewise, a comparison).

    >>> from sympy import symbols, log
    >>> x, y = symbols("x y")
    >>> e2, e1, e0 = error_masses(log(y) - x + 1)
    >>> e1
    0
    """
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
            m2, m1, m0 = masses[n.args[0]]
            near = Abs(n.args[0]) <= _STEP_NEAR[0] * m2 + _STEP_NEAR[1] * m1 + _STEP_NEAR[2] * m0
            masses[n] = (zero, Piecewise((oo, near), (zero, True)), zero)
            continue
        try:
            ds = _partials(n)
        except Exception as err:  # noqa: BLE001  (any node SymPy cannot differentiate)
            raise SymgradError(f"certified({u}): no error bound through {n}: {err}") from None
        if isinstance(n, Add):
            own2, own1 = (k - 1) * Add(*[Abs(a) for a in n.args]), zero
        elif isinstance(n, Mul):
            own2, own1 = (k - 1) * Abs(n), zero
        elif isinstance(n, Pow) and n.exp.is_Integer:
            own2, own1 = Abs(n.exp) * Abs(n), zero
        elif isinstance(n, Pow) and n.exp in (Integer(1) / 2, -Integer(1) / 2):
            own2, own1 = 2 * Abs(n), zero
        elif isinstance(n, _PAIR_FUNCS) or getattr(n, "pair_call", None) is not None:
            own2, own1 = Abs(n) + Abs(ds[0]) * Abs(n.args[0]), zero
        elif isinstance(n, hypot) and (n is not u or any(a.free_symbols and not a.is_Symbol
                                                         for a in n.args)):
            # (a pair: the pair root of the pair sum of squares, scaled; at the
            # root of floats it is the float hypot, rounded once: below)
            own2, own1 = 4 * Abs(n), zero
        elif isinstance(n, (Abs, Max, Min)):  # (a choice among pairs: no rounding)
            own2, own1 = zero, zero
        else:
            own2, own1 = zero, Abs(n)
        own = (own2, own1, Integer(k))
        masses[n] = tuple(
            o + Add(*[Abs(d) * masses[a][j] for d, a in zip(ds, n.args) if masses[a][j] != 0])
            for j, o in enumerate(own))
    return masses[u]


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
        try:
            e1 = error_masses(b)[1] if b.free_symbols else None
        except SymgradError:
            return False
        steps = {p: zero for p in e1.atoms(Piecewise) if p.args[0][0] == oo} if e1 else {}
        if e1 is None or e1.xreplace(steps) != 0:  # (0 but next to a step)
            return False
    return True


def _call(u: Basic) -> Basic:
    if isinstance(u, Piecewise):  # each branch certified (the conditions as written)
        return Piecewise(*[(_call(b), c) for b, c in u.args])
    if not u.free_symbols:
        return u
    v = _pair_erf(_pair_tanh(u))
    e2, e1, e0 = (_as_erf(m) for m in error_masses(v))
    text = srepr(u)
    certify_helpers._ZV_FORMS.setdefault(text, u)
    gens = sorted(u.free_symbols, key=str)
    return _zv_class(text)(compensated(v), e2, e1, e0, *gens)


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
