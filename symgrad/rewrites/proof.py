"""Proof that a rewrite never changes a value: SymPy shows ``lhs - rhs = 0``.

The accurate-form nodes are replaced by their definitions, ``sympy.codegen``
functions (``log1p``, ``expm1``, ``log2``, ``hypot``, ``logaddexp``) and
``erfcx`` by theirs, ``widen(u)`` (wider floats, the same value) by ``u``,
and each branch of a ``Piecewise`` (a regime; nested ones too, in every
combination) must equal the source on its own.  A rewrite whose validity
ties one pattern symbol to others (``b = u²``) says so in ``extra["bind"]``,
and the proof is over that binding.
The pattern symbols become real symbols, or positive ones where the
rewrite's domain of validity says so, and the difference must vanish: by
``expand`` or ``cancel`` (also after rewriting trigonometric and hyperbolic
functions as exponentials), else by ``simplify`` (also after that rewriting,
or ``erfc`` as ``1 - erf``), or have every partial derivative vanish and
vanish at one point, over positive symbols (a connected domain where every
function of the library is smooth: this is how ``atan(a) - atan(b)`` and
the differences of logs are proved).  The cheap steps come first: most
differences vanish by them, at a tenth of ``simplify``'s cost.  Before the
costly ones, a difference that is clearly not 0 at a few points of the
symbols' kind (evaluated to 30 digits) is not sent to ``simplify``: over
those symbols it cannot be proved (a rewrite valid for positive symbols
only fails over the reals this way, without ``simplify``'s search).
"""

from __future__ import annotations

from sympy import (
    Basic,
    Piecewise,
    Rational,
    Symbol,
    cancel,
    cos,
    diff,
    erf,
    erfc,
    exp,
    expand,
    expand_func,
    factorial,
    log,
    loggamma,
    pi,
    polygamma,
    powsimp,
    simplify,
    sin,
    sqrt,
    tan,
)
from sympy.codegen.cfunctions import expm1, hypot, log1p, log2
from sympy.codegen.numpy_nodes import logaddexp
from sympy.core.sorting import default_sort_key

from ..lowering import unwiden
from .forms import (
    Sigmoid,
    Softplus,
    betaln,
    digamma_remainder,
    erfcx,
    lgamma_remainder,
    log1pmx,
    polygamma_remainder,
)
from .pattern import PATTERN_SYMBOLS
from .pi_nodes import cospi, sinpi, tanpi
from .rewrite import Rewrite

__all__ = ["prove", "prove_equal", "NotProved", "definition"]

_DEFS = {
    Sigmoid: lambda u: 1 / (1 + exp(-u)),
    Softplus: lambda u: log(1 + exp(u)),
    log1p: lambda u: log(1 + u),
    log2: lambda u: log(u) / log(2),
    erfcx: lambda u: exp(u**2) * erfc(u),
    expm1: lambda u: exp(u) - 1,
    hypot: lambda a, b: sqrt(a**2 + b**2),
    logaddexp: lambda a, b: log(exp(a) + exp(b)),
    betaln: lambda a, b: loggamma(a) + loggamma(b) - loggamma(a + b),
    lgamma_remainder: lambda x: loggamma(x) - (x - Rational(1, 2)) * log(x) + x - log(2 * pi) / 2,
    digamma_remainder: lambda x: polygamma(0, x) - log(x) + 1 / (2 * x),
    polygamma_remainder: lambda n, x: polygamma(n, x) - (-1) ** (n - 1) * (
        factorial(n - 1) / x**n + factorial(n) / (2 * x ** (n + 1))),
    log1pmx: lambda v: log(1 + v) - v,
    sinpi: lambda u, q: sin(pi * u / q),
    cospi: lambda u, q: cos(pi * u / q),
    tanpi: lambda u, q: tan(pi * u / q),
}


class NotProved(AssertionError):
    """SymPy could not show a rewrite equal to its source."""


def definition(e: Basic) -> Basic:
    """``e`` with accurate-form and ``sympy.codegen`` nodes replaced by
    their definitions in elementary functions, and ``widen(u)`` by ``u``."""
    e = unwiden([e])[0]
    for cls, f in _DEFS.items():
        e = e.replace(cls, f)
    return e


def _cheap_steps(d: Basic):
    """The cheap steps, in order, each computed when the one before it did
    not give 0: (name, the transformation of ``d`` that must give 0).  The
    three that start from the difference rewritten as exponentials share
    its expansion (the same expression, computed once)."""
    yield "equal once written out", d
    yield "expand", expand(d)
    yield "cancel", cancel(d)
    e = expand(d.rewrite(exp))
    yield "expand after rewriting as exponentials", e
    yield "cancel after rewriting as exponentials", cancel(e)
    yield "cancel after rewriting as exponentials and merging them", \
        cancel(powsimp(e, combine="exp"))
    yield ("cancel after expand_func (the recurrences of log-gamma and polygamma)",
           cancel(expand(expand_func(d))) if d.has(loggamma, polygamma) else d)


# where a difference is evaluated before ``simplify`` (each symbol its own
# values, so that no two coincide): real symbols take both signs
_REAL_AT = (Rational(-7, 3), Rational(2, 5), Rational(13, 4), Rational(-3, 11))
_POSITIVE_AT = (Rational(7, 3), Rational(2, 5), Rational(13, 4), Rational(3, 11))


def _clearly_not_zero(d: Basic, syms: list[Symbol]) -> bool:
    """Whether ``d`` is far from 0 (|d| > 1e-12 to 30 digits, finite) at one
    of four points whose coordinates the symbols' assumptions allow.  A
    value SymPy cannot evaluate (a pole, an undefined branch) decides
    nothing."""
    for k in range(len(_REAL_AT)):
        at = {}
        for i, s in enumerate(syms):
            vals = _POSITIVE_AT if s.is_positive else _REAL_AT
            at[s] = vals[(k + i) % len(vals)]
        try:
            v = d.xreplace(at).evalf(30)
            if v.is_number and v.is_finite and abs(v) > 1e-12:
                return True
        except (ArithmeticError, TypeError, ValueError):
            continue
    return False


def _cheap_zero(d: Basic) -> bool:
    return any(v == 0 for _, v in _cheap_steps(d))


def _constant(d: Basic, syms: list[Symbol], zero) -> bool:
    """Every partial derivative of ``d`` is 0 by ``zero``, and ``d`` is 0 at one point."""
    if not syms or not all(zero(expand_func(diff(d, s))) for s in syms):
        return False
    at = {s: Rational(2 + i, 3) for i, s in enumerate(syms)}  # 2/3, 1, 4/3, ...
    return abs(d.subs(at).evalf(50)) < 1e-40


_CONSTANT = "vanishing partial derivatives and value at one point"


def _vanishes(d: Basic, syms: list[Symbol], connected: bool) -> str | None:
    for how, v in _cheap_steps(d):
        if v == 0:
            return how
    # (each partial derivative's cheap steps once: the last step below asks them again)
    cheap: dict = {}

    def cheap_zero(e: Basic) -> bool:
        if e not in cheap:
            cheap[e] = _cheap_zero(e)
        return cheap[e]

    if connected and _constant(d, syms, cheap_zero):
        return _CONSTANT
    # simplify shows d = 0 wherever the symbols' assumptions hold: not if d
    # is clearly not 0 at a point where they do
    if not _clearly_not_zero(d, syms):
        if simplify(d) == 0:
            return "simplify"
        if simplify(d.rewrite(exp)) == 0:
            return "simplify after rewriting as exponentials"
        if d.has(erf, erfc) and simplify(d.rewrite(erf)) == 0:
            return "simplify after rewriting erfc as erf"
        if d.has(loggamma, polygamma) and simplify(expand_func(d)) == 0:
            return "simplify after expand_func (the recurrences of log-gamma and polygamma)"
    # constant on a connected domain where both sides are smooth: the
    # positive orthant (over all reals, log and roots have cuts); this
    # holds about the point below, not everywhere: it is not ruled out above
    if connected and _constant(d, syms, lambda e: cheap_zero(e) or simplify(e) == 0):
        return _CONSTANT
    return None


def _branches(e: Basic) -> list[Basic]:
    """``e`` with each ``Piecewise`` in it (nested ones too) replaced by one
    of its branches, every combination: if each equals the source, so does
    ``e``, whichever branches its conditions pick (and SymPy proves each
    small one faster than the whole)."""
    out, todo = [], [e]
    while todo:
        cur = todo.pop()
        pws = cur.atoms(Piecewise)
        if not pws:
            out.append(cur)
            continue
        # an outermost one; among several, the first in SymPy's canonical order
        # (a set's order follows the hash seed: the branches' order, and so
        # the proof's text and which branch a NotProved names, would too)
        pw = max(sorted(pws, key=default_sort_key), key=lambda q: len(q.atoms(Piecewise)))
        todo += [cur.xreplace({pw: c.expr}) for c in reversed(pw.args)]
    return list(dict.fromkeys(out))


def prove(rw: Rewrite) -> str:
    """How SymPy proves ``rw`` equal to its source (raises NotProved).

    >>> from symgrad.rewrites import by_name
    >>> prove(by_name("expm1"))  # expm1(u) is defined as exp(u) - 1
    'equal once written out over real symbols'
    >>> prove(by_name("sigmoid-complement"))
    'cancel over real symbols'
    """
    # what the domain of validity binds (asinh's log form: b = u²); a list of
    # bindings: each instance is proved (the shifts of polygamma by n)
    binds = rw.extra.get("bind", {})
    how = []
    for bind in [binds] if isinstance(binds, dict) else binds:
        how += _prove_bound(rw, bind)
    return "; ".join(dict.fromkeys(how))


def _prove_bound(rw: Rewrite, bind: dict) -> list[str]:
    lhs = definition(rw.lhs).xreplace(bind).doit()
    rhs = definition(rw.rhs).xreplace(bind).doit()
    branches = _branches(rhs)
    used = [s for s in PATTERN_SYMBOLS if s in lhs.free_symbols]
    # valid everywhere: the proof must hold over the reals
    kinds = ("real",) if rw.where == "everywhere" else ("real", "positive")
    how = []
    for br in branches:
        for kind in kinds:
            rep = {s: Symbol(s.name, **{kind: True}) for s in used}
            got = _vanishes((lhs - br).xreplace(rep), list(rep.values()), kind == "positive")
            if got:
                how.append(f"{got} over {kind} symbols")
                break
        else:
            raise NotProved(f"rewrite {rw.name}: SymPy cannot show {rw.lhs} = {br}")
    return how


def prove_equal(source: Basic, form: Basic) -> str:
    """How SymPy proves ``form`` equal to ``source`` (formulas over real
    symbols): each branch of each ``Piecewise`` of ``form`` on its own, as
    :func:`prove` does for a rewrite (raises NotProved).

    >>> from sympy import Symbol, exp, log, Piecewise
    >>> x = Symbol("x", real=True)
    >>> prove_equal(exp(x) / (1 + exp(x)), Piecewise((1 / (1 + exp(-x)), x >= 0),
    ...                                              (exp(x) / (1 + exp(x)), True)))
    'cancel over real symbols; equal once written out over real symbols'
    >>> prove_equal(log(1 + exp(x)), x + log(1 + exp(-x)))  # simplify, or exp of both sides
    '... over real symbols'
    """
    lhs = definition(source)
    how = []
    for br in _branches(definition(form)):
        d = lhs - br
        syms = sorted(d.free_symbols, key=str)
        # exp(d) = 1 makes d a multiple of 2πi: 0 where both sides are real
        # (cheap steps on d, then on exp(d) - 1, before simplify on either)
        logs = d.has(log)
        got = next((how for how, v in _cheap_steps(d) if v == 0), None)
        if got is None and logs and _cheap_zero(exp(d) - 1):
            got = "the exponential of the difference is 1 by cheap steps (both sides real)"
        if got is None:
            got = _vanishes(d, syms, False)
        if got is None and logs and simplify(exp(d)) == 1:
            got = "the exponential of the difference simplifies to 1 (both sides real)"
        if got is None:
            raise NotProved(f"SymPy cannot show {source} = {br}")
        how.append(f"{got} over real symbols")
    return "; ".join(dict.fromkeys(how))
