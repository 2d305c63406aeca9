"""Powers with symbolic exponents in the log domain.

A power ``B**p`` whose exponent is not a number and whose base is a
positive product of sums of exponentials (or of powers), exponentials and
positive factors overflows or underflows in its intermediates where its
value is an ordinary float: the Richards curve ``(1 + exp(-x))**(-1/y)``
is 0 where ``exp(-x)`` overflows (x < -709.8 in float64, -88.7 in
float32) and its value is about ``exp(x/y)``; a sigmoid to a power
``σ(s)**c`` is 0 where ``σ(s)`` underflows and its value is
``exp(-c·softplus(-s))``; the Hill equation ``x**n/(k**n + x**n)`` is
inf/inf where the powers overflow.  Normalizing the sums by their largest
exponent (:mod:`.expsums`) does not reach them: the power's exponent is
not a number, so ``exp(M)**p`` stays apart from the rest.  The log domain
does:

=====================================  ==========================================
``B**p``                               ``exp(p·log B)``
``log(Π fₖ^eₖ)``                       ``Σ eₖ·log fₖ`` (the base over a common denominator
                                       where a term of it is negative: ``1 - σ(s)`` is
                                       ``1/(1 + exp(s))``)
``log(exp(a))``                        ``a``
``log(Σ cᵢ·Π fᵢⱼ)`` (cᵢ > 0)           ``log(Σ cᵢ·exp(Σ log fᵢⱼ))``: a log-sum-exp, which the
                                       library then computes as ``softplus``, ``logaddexp``
                                       or normalized by its largest exponent
``x**n`` (inside such a sum)           ``exp(n·log x)``
=====================================  ==========================================

and the exponentials of a product are merged into one, so that a
quotient of such powers (the clustering benchmark's
``σ(s)^cp·(1 - σ(s))^cn / (σ(t)^cp·(1 - σ(t))^cn)``) is one ``exp`` of a
sum of softplus terms, never inf/inf.  Every step is an identity for
positive bases (the proof: :func:`symgrad.rewrites.proof.prove_equal` on
each form, and mpmath on both sides in the tests).

The log domain has a price: ``exp(L)`` turns an absolute error of ``L``
into a relative error of the value, so a value of size ``exp(L)`` is off
by about ``|L|·eps`` (up to ``log2(745)`` = 9.5 bits in float64, 6.5 in
float32) where the power as written keeps every bit.  These forms are
candidates that :func:`symgrad.stabilize` measures, by regions, beside the
written and normalized forms (and computed in pairs or a wider type where
no plain form keeps the bits).

>>> from sympy import symbols, exp
>>> x, y = symbols("x y", real=True)
>>> log_domain([(1 + exp(-x)) ** (-1 / y)])
[exp(-log(1 + exp(-x))/y)]
"""

from __future__ import annotations

from collections.abc import Iterable

from sympy import Abs, Add, Basic, Mul, Piecewise, Pow, S, exp, log, together

from ..build import evaluated, mapped
from .expsums import as_exp_sum, log_branches
from .facts import Facts

__all__ = ["grouped_exponents", "has_symbolic_power", "log_domain", "log_parts",
           "softplus_difference"]


def _symbolic_power(node: Basic) -> bool:
    return isinstance(node, Pow) and not node.exp.is_Number


def log_parts(base: Basic, facts: Facts | None = None, _again: bool = True) -> Basic | None:
    """``log(base)`` as a sum of exponents and logs of positive factors
    (each sum of positive terms a log of a sum of exponentials), or None
    where ``base`` is not shown positive that way.

    >>> from sympy import symbols, exp
    >>> s, q, t = symbols("s q t", real=True)
    >>> log_parts(1 - 1 / (1 + exp(-s)))
    -log(exp(s) + 1)
    >>> log_parts(1 + q * exp(-t), Facts({q: (0.01, 100)}))  # normalized by -t where larger
    Piecewise((log(q*exp(-t) + 1), t >= 0), (-t + log(q + exp(t)), True))
    """
    facts = facts or Facts()
    if base.is_Number:
        return log(base) if base.is_positive else None
    if isinstance(base, exp):
        return base.args[0] if facts.real(base.args[0]) else None
    if isinstance(base, Mul):
        parts = [log_parts(f, facts, _again) for f in base.args]
        return None if any(p is None for p in parts) else Add(*parts)
    if isinstance(base, Pow):
        k = base.exp
        if k.is_Integer and k.is_even and facts.real(base.base):
            inner = log_parts(base.base, facts, _again)
            if inner is None:
                inner = log(Abs(base.base))
            return k * inner
        inner = log_parts(base.base, facts, _again)
        return None if inner is None else k * inner
    if isinstance(base, Add):
        terms = []
        for term in base.args:
            c, rest = term.as_coeff_Mul()
            if not (c.is_Number and c.is_positive):
                break
            if rest == 1:
                terms.append(c)
                continue
            e = log_parts(rest, facts, _again)
            if e is None:
                break
            terms.append(c * exp(e))
        else:
            return _log_of_sum(Add(*terms))
        if _again:  # a negative term: over a common denominator (1 - σ(s) = 1/(1 + exp(s)))
            t = together(base)
            if t != base:
                return log_parts(t, facts, False)
        return None
    if facts.positive(base):
        return log(base)
    return None


def _log_of_sum(total: Basic) -> Basic:
    """``log(total)``, a sum of positive terms ``c·exp(a)``: as it is where
    the library computes it whole (``log(1 + exp(u))`` as a softplus,
    ``log(exp(a) + exp(b))`` as ``logaddexp``), else normalized by its
    largest exponent, one branch per choice (:func:`.expsums.log_branches`:
    the sums inside an exponent are left alone by the normalization of the
    formula)."""
    s = as_exp_sum(total)
    if s is None or (len(s.terms) == 2 and all(c == 1 for _, c in s.terms)):
        return log(total)
    return log_branches(s)


def log_domain(exprs: Iterable[Basic], facts: Facts | None = None) -> list[Basic]:
    """``exprs`` with each power of a non-number exponent whose base
    :func:`log_parts` shows positive as ``exp(p·log_parts(base))`` (one
    bottom-up pass over the DAG), and the exponentials of each product
    merged into one; the logs of sums are left for the library's rewrites
    (``softplus``, ``logaddexp``) and :func:`.expsums.normalized`.

    >>> from sympy import symbols
    >>> x, n, k = symbols("x n k", real=True)
    >>> log_domain([x**n / (k**n + x**n)], Facts({x: (1e-3, 1e3), k: (1e-3, 1e3)}))
    [exp(n*log(x))/(exp(n*log(k)) + exp(n*log(x)))]
    """
    facts = facts or Facts()

    def hook(node: Basic, args: tuple) -> Basic | None:
        cur = evaluated(node, args) if any(a is not b for a, b in zip(args, node.args)) else node
        if _symbolic_power(cur):
            parts = log_parts(cur.base, facts)
            if parts is not None:
                return exp(cur.exp * parts)
        if isinstance(cur, Mul):
            exps = [f for f in cur.args if isinstance(f, exp)]
            if len(exps) > 1:
                rest = [f for f in cur.args if not isinstance(f, exp)]
                return Mul(exp(Add(*(f.args[0] for f in exps))), *rest)
        if isinstance(cur, Pow) and isinstance(cur.base, exp) and cur.exp.is_Number:
            return exp(cur.exp * cur.base.args[0])
        return cur

    exprs = list(exprs)
    roots = [e for e in exprs if isinstance(e, Basic)]
    done = iter(mapped(roots, hook=hook))
    return [next(done) if isinstance(e, Basic) else e for e in exprs]


def _softplus_arg(term: Basic) -> tuple[int, Basic] | None:
    """(±1, u) where ``term`` is ``±log(1 + exp(u))``."""
    sign, t = (-1, -term) if term.could_extract_minus_sign() else (1, term)
    if isinstance(t, log):
        s = as_exp_sum(t.args[0])
        if s is not None and len(s.terms) == 2 and all(c == 1 for _, c in s.terms):
            (a, _), (b, _) = s.terms
            if a == 0 or b == 0:
                return sign, a + b
    return None


def softplus_difference(a: Basic, b: Basic) -> Basic:
    """``log(1 + exp(a)) - log(1 + exp(b))`` computed without cancelling
    where ``a`` and ``b`` are close: ``log1p(σ(b)·expm1(a - b))`` where
    ``|a - b| ≤ 1`` (``(1 + eᵃ)/(1 + eᵇ) = 1 + σ(b)·expm1(a - b)``; σ(b)
    written ``1/(1 + exp(-b))`` for the library's exact sigmoid), the
    difference of softplus values elsewhere, where it does not cancel.
    The clustering benchmark's ``cn·(softplus(t) - softplus(s))`` at
    s, t ~ 1e-16, cn ~ 1e19 lost 9 bits in pairs as a difference.

    >>> from sympy import symbols
    >>> a, b = symbols("a b", real=True)
    >>> softplus_difference(a, b).args[0]
    (log(1 + (exp(a - b) - 1)/(1 + exp(-b))), Abs(a - b) <= 1)
    """
    d = a - b
    near = log(1 + (exp(d) - 1) / (1 + exp(-b)))
    return Piecewise((near, Abs(d) <= 1), (log(1 + exp(a)) - log(1 + exp(b)), True),
                     evaluate=False)


def _differences(body: list[Basic]) -> list[Basic]:
    """``body`` (the terms of one coefficient's group) with each pair
    ``log(1 + exp(a)) - log(1 + exp(b))`` as :func:`softplus_difference`."""
    plus = [(i, u) for i, t in enumerate(body) for sg, u in [_softplus_arg(t) or (0, 0)] if sg > 0]
    minus = [(i, u) for i, t in enumerate(body) for sg, u in [_softplus_arg(t) or (0, 0)] if sg < 0]
    out, used = [], set()
    for (i, a), (j, b) in zip(plus, minus):
        out.append(softplus_difference(a, b))
        used |= {i, j}
    return out + [t for k, t in enumerate(body) if k not in used]


def grouped_exponents(exprs: Iterable[Basic]) -> list[Basic]:
    """``exprs`` with the terms of each exponent (the argument of an
    ``exp`` that is a sum) gathered by their symbolic coefficient: the
    symbols and powers of symbols among a term's factors.  A quotient of
    powers with the same exponent is then that exponent times a difference
    (``n·(log x - log k)``, ``cn·(softplus(t) - softplus(s))``): exactly 0
    where the two sides are equal, and one product's rounding, not two; a
    difference of two softplus values is :func:`softplus_difference`.

    >>> from sympy import symbols, exp, log
    >>> n, x, k = symbols("n x k", real=True)
    >>> grouped_exponents([exp(n * log(x) - n * log(k) + x)])
    [exp(n*(-log(k) + log(x)) + x)]
    """

    def coefficient(term: Basic) -> tuple[Basic, Basic]:
        keep, body = [], []
        for f in Mul.make_args(term):
            is_sym = f.is_Symbol or (isinstance(f, Pow) and f.base.is_Symbol and f.exp.is_Number)
            (keep if is_sym else body).append(f)
        if not body:
            return S.One, term
        return Mul(*keep), Mul(*body)

    def hook(node: Basic, args: tuple) -> Basic | None:
        cur = evaluated(node, args) if any(a is not b for a, b in zip(args, node.args)) else node
        if not (isinstance(cur, exp) and isinstance(cur.args[0], Add)):
            return cur
        groups: dict[Basic, list[Basic]] = {}
        for term in cur.args[0].args:
            c, body = coefficient(term)
            groups.setdefault(c, []).append(body)
        if all(len(b) < 2 for c, b in groups.items() if c != 1):
            return cur
        return exp(Add(*(c * Add(*_differences(b)) for c, b in groups.items())))

    exprs = list(exprs)
    roots = [e for e in exprs if isinstance(e, Basic)]
    done = iter(mapped(roots, hook=hook))
    return [next(done) if isinstance(e, Basic) else e for e in exprs]


def has_symbolic_power(exprs: Iterable[Basic]) -> bool:
    """Whether a power with an exponent that is not a number is among
    ``exprs``' nodes (one walk of the DAG).

    >>> from sympy import symbols, exp
    >>> x, y = symbols("x y")
    >>> has_symbolic_power([(1 + exp(-x)) ** (-1 / y)]), has_symbolic_power([x**2 + exp(y)])
    (True, False)
    """
    from ..graph import postorder

    order, _ = postorder([e for e in exprs if isinstance(e, Basic)], lambda n: n.args)
    return any(_symbolic_power(n) for n in order)


