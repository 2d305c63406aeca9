"""Proof that a rewrite never changes a value: SymPy shows ``lhs - rhs = 0``.

The accurate-form nodes are replaced by their definitions, ``sympy.codegen``
functions (``log1p``, ``expm1``, ``log2``, ``hypot``, ``logaddexp``) and
``erfcx`` by theirs, ``widen(u)`` (wider floats, the same value) by ``u``,
and each branch of a ``Piecewise`` (a regime; nested ones too, in every
combination) must equal the source on its own.  A rewrite whose validity
ties one pattern symbol to others (``b = u²``) says so in ``extra["bind"]``,
and the proof is over that binding.
The pattern symbols become real symbols, or positive ones where the
rewrite's domain of validity says so, and the difference must vanish by
``simplify`` (also after rewriting trigonometric and hyperbolic functions
as exponentials, or ``erfc`` as ``1 - erf``), or have every partial
derivative vanish and vanish at one point, over positive symbols (a connected domain where every
function of the library is smooth: this is how ``atan(a) - atan(b)`` and
the differences of logs are proved).
"""

from __future__ import annotations

from sympy import (
    Basic,
    Piecewise,
    Rational,
    Symbol,
    diff,
    erf,
    erfc,
    exp,
    expand_func,
    log,
    loggamma,
    pi,
    polygamma,
    simplify,
    sqrt,
)
from sympy.codegen.cfunctions import expm1, hypot, log1p, log2
from sympy.codegen.numpy_nodes import logaddexp

from ..lowering import unwiden
from .forms import Sigmoid, Softplus, betaln, digamma_remainder, erfcx, lgamma_remainder
from .pattern import PATTERN_SYMBOLS
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


def _vanishes(d: Basic, syms: list[Symbol], connected: bool) -> str | None:
    if simplify(d) == 0:
        return "simplify"
    if simplify(d.rewrite(exp)) == 0:
        return "simplify after rewriting as exponentials"
    if d.has(erf, erfc) and simplify(d.rewrite(erf)) == 0:
        return "simplify after rewriting erfc as erf"
    if d.has(loggamma, polygamma) and simplify(expand_func(d)) == 0:
        return "simplify after expand_func (the recurrences of log-gamma and polygamma)"
    # constant on a connected domain where both sides are smooth: the
    # positive orthant (over all reals, log and roots have cuts)
    if connected and syms and all(simplify(expand_func(diff(d, s))) == 0 for s in syms):
        at = {s: Rational(2 + i, 3) for i, s in enumerate(syms)}  # 2/3, 1, 4/3, ...
        if abs(d.subs(at).evalf(50)) < 1e-40:
            return "vanishing partial derivatives and value at one point"
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
        pw = max(pws, key=lambda q: len(q.atoms(Piecewise)))  # an outermost one
        todo += [cur.xreplace({pw: c.expr}) for c in reversed(pw.args)]
    return list(dict.fromkeys(out))


def prove(rw: Rewrite) -> str:
    """How SymPy proves ``rw`` equal to its source (raises NotProved).

    >>> from symgrad.rewrites import by_name
    >>> prove(by_name("expm1"))
    'simplify over real symbols'
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
    'simplify over real symbols'
    >>> prove_equal(log(1 + exp(x)), x + log(1 + exp(-x)))  # simplify, or exp of both sides
    '... over real symbols'
    """
    lhs = definition(source)
    how = []
    for br in _branches(definition(form)):
        d = lhs - br
        syms = sorted(d.free_symbols, key=str)
        got = _vanishes(d, syms, False)
        if got is None and d.has(log) and simplify(exp(d)) == 1:
            # exp(d) = 1 makes d a multiple of 2πi: 0 where both sides are real
            got = "the exponential of the difference simplifies to 1 (both sides real)"
        if got is None:
            raise NotProved(f"SymPy cannot show {source} = {br}")
        how.append(f"{got} over real symbols")
    return "; ".join(dict.fromkeys(how))
