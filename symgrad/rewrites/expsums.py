"""Sums of exponentials normalized by their largest exponent.

A formula built from sums ``S = Σ cᵢ·exp(aᵢ)`` (the ``cᵢ`` free of
``exp``; a term without ``exp`` is ``c·exp(0)``) by products, quotients,
powers and logarithms overflows where an ``aᵢ`` passes log(max float) and
loses everything where they all pass log(tiny), although its value is
often a modest number: the gradient of log-sum-exp, ``exp(a)/(exp(a) +
exp(b))``, is NaN at (800, 0).  Dividing every exponential of a sum by
the largest, ``exp(M)`` with ``M = aⱼ ≥ every aᵢ``, gives the same value
with the dominant term exactly 1 and every other ``exp`` of a number ≤ 0:

=================================  ==========================================
``S``                              ``exp(M)·Σ cᵢ·exp(aᵢ - M)``
``log(S)``                         ``M + log(cⱼ) + log1p(Σᵢ≠ⱼ (cᵢ/cⱼ)·exp(aᵢ - M))``
``exp(b)·S^p``                     ``exp(b + p·M)·(Σ cᵢ·exp(aᵢ - M))^p``
=================================  ==========================================

and the exponentials of a product are added into one, so a quotient whose
scales cancel (softmax, ``exp(-x)/(1 + exp(-x))²``, tanh written with
``exp``) has no huge factor left.  Which term dominates depends on the
point, so the form is a ``Piecewise`` with one branch per choice of the
largest exponent of each sum (its condition: ``aⱼ ≥ aᵢ`` for every i);
each branch equals the formula everywhere (normalization by any ``M`` is
an identity), so the branches are proved one by one
(:func:`symgrad.rewrites.proof.prove_equal`), and the conditions only say
where each is accurate.  The rewrites of the library then see
``1 - exp(-2x)`` and ``log(1 + exp(-2x))`` and make ``expm1`` and
``log1p`` of them.  Where the branches would be too many (more than
:data:`MAX_BRANCHES`), ``M`` is ``Max(a₁, …, aₖ)`` instead (a log keeps
its own branches): the dominant term is still exactly 1.

``exp(aᵢ - aⱼ)`` rounds ``aᵢ - aⱼ`` where the difference is not exact
(two independent arguments), and loses up to ``log2|aᵢ - aⱼ|`` bits of a
result of that size that the formula as written kept, where nothing
overflowed: :func:`normalized` is for :func:`symgrad.stabilize` to
measure.  :func:`normalized_safe` normalizes only where every difference
of exponents is exact (``2x`` from ``x`` and ``-x``, ``x`` from ``x`` and
0: the sigmoid's, tanh's, softplus's, Bose's families): it is never less
accurate than the source, and ``stabilize=True`` applies it.

>>> from sympy import symbols, exp, log
>>> x, y = symbols("x y", real=True)
>>> f = normalized(exp(x) / (exp(x) + exp(y)))
>>> f.args[0][0].subs({x: 800, y: 0}) == 1 / (1 + exp(-800))  # at (800, 0): no exp(800)
True
>>> f.args[0][1]
x >= y
>>> normalized(log(exp(x) + exp(-x))).args[0]
(x + log(1 + exp(-2*x)), x >= 0)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

from sympy import (
    Abs,
    Add,
    And,
    Basic,
    Dummy,
    Max,
    Mul,
    Piecewise,
    Pow,
    S,
    cosh,
    coth,
    csch,
    exp,
    log,
    sech,
    sinh,
    tanh,
)
from sympy import together as sympy_together
from sympy.codegen.cfunctions import expm1, log1p
from sympy.functions.elementary.miscellaneous import MinMaxBase

from ..build import evaluated, lattice, mapped
from ..graph import count_ops, postorder
from .facts import Facts
from .library import by_name
from .rewrite import apply_rewrites

__all__ = ["MAX_BRANCHES", "ExpSum", "as_exp_sum", "exp_sums", "log_branches", "normalized",
           "normalized_safe", "normalized_beyond", "hyperbolic_as_exp", "with_normalized_sums",
           "after"]

MAX_BRANCHES = 8  # choices of the largest exponent, over all sums, written as branches
MAX_TERMS = 12  # terms of one sum
TOGETHER_OPS = 120  # branches put over a common denominator up to this size
# float64's normal range of exp: exp(u) is a normal float for u in [LO, HI]
EXP_LO = math.log(2.2250738585072014e-308)  # -708.396...
EXP_HI = math.log(1.7976931348623157e308)  # 709.782...
EXP32 = (math.log(1.1754943508222875e-38), math.log(3.4028234663852886e38))  # float32's


class ExpSum:
    """``Σ cᵢ·exp(aᵢ)`` as ``terms``: ((aᵢ, cᵢ), ...), one per distinct
    exponent (0 for the terms without ``exp``)."""

    __slots__ = ("node", "terms")

    def __init__(self, node: Basic, terms: tuple) -> None:
        self.node, self.terms = node, terms

    @property
    def exponents(self) -> tuple:
        return tuple(a for a, _ in self.terms)


def _exp_factor(f: Basic) -> Basic | None:
    """The exponent of ``f`` where it is ``exp(e)`` or ``exp(e)**k``."""
    if isinstance(f, exp):
        return f.args[0]
    if f.is_Pow and isinstance(f.base, exp) and f.exp.is_Number:
        return f.exp * f.base.args[0]
    return None


def _term(t: Basic) -> tuple[Basic, Basic] | None:
    """(a, c) where ``t`` is ``c·exp(a)`` with ``c`` free of ``exp``."""
    a = _exp_factor(t)
    if a is not None:
        return a, S.One
    factors = Mul.make_args(t)
    exps = [e for e in (_exp_factor(f) for f in factors) if e is not None]
    rest = [f for f in factors if _exp_factor(f) is None]
    c = Mul(*rest)
    if not c.is_Number and _holds_exp(c):
        return None
    return Add(*exps), c


def _holds_exp(e: Basic) -> bool:
    order, _ = postorder([e], lambda n: n.args)
    return any(isinstance(n, exp) for n in order)


def as_exp_sum(node: Basic) -> ExpSum | None:
    """``node`` as an :class:`ExpSum` where it is a sum of two or more
    terms ``c·exp(a)``, at least one ``a`` not 0, or sinh or cosh."""
    if isinstance(node, (sinh, cosh)):
        u = node.args[0]
        return ExpSum(node, ((u, S.Half), (-u, S.Half if isinstance(node, cosh) else -S.Half)))
    if isinstance(node, expm1):
        return ExpSum(node, ((node.args[0], S.One), (S.Zero, -S.One)))
    if not isinstance(node, Add) or len(node.args) > MAX_TERMS:
        return None
    by_a: dict[Basic, Basic] = {}
    for t in node.args:
        got = _term(t)
        if got is None:
            return None
        a, c = got
        by_a[a] = by_a.get(a, S.Zero) + c
    terms = tuple((a, c) for a, c in by_a.items() if c != 0)
    if len(terms) < 2 or all(a == 0 for a, _ in terms):
        return None
    return ExpSum(node, terms)


def _normal_already(s: ExpSum, facts: Facts) -> bool:
    """Whether ``s`` is ``c + Σ cᵢ·exp(aᵢ)`` with a number ``c ≠ 0`` and
    every ``aᵢ ≤ 0`` on the domain: nothing to normalize (``1 + exp(-|x|)``)."""
    if not any(a == 0 and c.is_Number for a, c in s.terms):
        return False
    for a, _ in s.terms:
        b = facts.bound(a) if a != 0 else (0.0, 0.0)
        if b is None or b[1] > 0:
            return False
    return True


def exp_sums(exprs: Iterable[Basic], facts: Facts | None = None) -> list[ExpSum]:
    """The sums of exponentials in ``exprs`` (each distinct node once, in
    postorder; not those inside an exponent: those keep their meaning),
    but those already normalized (a constant term, every exponent ≤ 0 on
    the domain of ``facts``).

    >>> from sympy import symbols, exp
    >>> x = symbols("x", real=True)
    >>> [s.terms for s in exp_sums([exp(-x) / (1 + exp(-x))**2])]
    [((0, 1), (-x, 1))]
    """
    return _plan(exprs, facts)[0]


def _plan(exprs: Iterable[Basic], facts: Facts | None) -> tuple[list[ExpSum], dict]:
    """The sums to normalize, and the sums ``c·(exp(u) ± exp(-u))`` to
    write as ``2c·sinh(u)``, ``2c·cosh(u)`` instead.  A sum that stands
    alone (not under a log, not divided by, no other sum of the same
    exponents) overflows where its value does when normalized too: sinh,
    cosh and expm1 are accurate as they are, and a symmetric sum as a
    hyperbolic function is accurate up to where that overflows (710.47,
    not 709.78)."""
    facts = Facts() if facts is None else facts
    order, _ = postorder(list(exprs), lambda n: () if isinstance(n, exp) else n.args)
    sums = [s for s in map(as_exp_sum, order) if s is not None and not _normal_already(s, facts)]
    logged = {n.args[0] for n in order if isinstance(n, log)}
    divided = {n.base for n in order if n.is_Pow and n.exp.is_negative}
    count: dict[frozenset, int] = {}
    for s in sums:
        count[_key(s)] = count.get(_key(s), 0) + 1
    keep, hyper = [], {}
    for s in sums:
        alone = s.node not in logged and s.node not in divided and count[_key(s)] == 1
        if not alone:
            keep.append(s)
        elif isinstance(s.node, Add):
            h = _hyperbolic(s)
            if h is not None:
                hyper[s.node] = h
    return keep, hyper


def _hyperbolic(s: ExpSum) -> Basic | None:
    """``2c·cosh(u)`` or ``2c·sinh(u)`` where ``s`` is ``c·exp(u) ± c·exp(-u)``."""
    if len(s.terms) != 2:
        return None
    (a, c), (b, d) = s.terms
    if a + b != 0 or not (c.is_Number and d.is_Number):
        return None
    if c == d:
        return 2 * c * cosh(a)
    if c == -d:
        return 2 * c * sinh(a)
    return None


def _key(s: ExpSum) -> frozenset:
    return frozenset(s.exponents)


def _combine_exps(node: Mul) -> Basic:
    """A product with its exponential factors added into one ``exp``."""
    exps, rest = [], []
    for f in node.args:
        a = _exp_factor(f)
        (exps if a is not None else rest).append(a if a is not None else f)
    if len(exps) < 2:
        return node
    return Mul(exp(Add(*exps)), *rest)


def _factors(m: Mul) -> list[Basic]:
    """The factors of a product, those of unevaluated products in it too."""
    out, todo = [], [m]
    while todo:
        f = todo.pop()
        if isinstance(f, Mul):
            todo += f.args
        else:
            out.append(f)
    return out


def _fold_coefficient(node: Basic) -> Basic:
    """``c·exp(e)·r`` with a number ``0 < |c| < 1``: beside it, past
    ``e = log(max float32) - 1``, ``((c·exp(e/2))·exp(e/2))·r``, where
    ``exp(e)`` overflows though the product need not (1/(3·exp(x + 1) +
    ...) at x = -710.78 is e^709.78/3, a float).  Built unevaluated:
    SymPy would multiply the halves back together (so would ``exp(e +
    log c)``, and the rounding of ``e + log c`` would cost log2(e) bits)."""
    if not isinstance(node, Mul):
        return node
    c, rest = node.as_coeff_Mul()
    if not (c.is_Number and 0 < abs(c) < 1):
        return node
    exps = [f for f in Mul.make_args(rest) if isinstance(f, exp)]
    if len(exps) != 1:
        return node
    (e,) = exps
    others = Mul(*(f for f in Mul.make_args(rest) if f is not e))
    half = exp(e.args[0] / 2)
    far = Mul(Mul(c, half, evaluate=False), half, evaluate=False)
    far = far if others == 1 else Mul(far, others, evaluate=False)
    # float32's threshold serves float64 too: the halves cost a bit at most
    return Piecewise((node, e.args[0] <= EXP32[1] - 1), (far, True))


def _scaled_sum(s: ExpSum, m: Basic) -> Basic:
    """``Σ cᵢ·exp(aᵢ - m)``; where ``m`` is the exponent of a term with a
    number for coefficient, that number times a sum whose term is 1
    (``(exp(x) - exp(-x))/2`` is ``exp(x)·(1 - exp(-2x))/2``)."""
    cm = next((c for a, c in s.terms if a == m), None)
    if cm is not None and cm.is_Number and cm != 1:
        return Mul(cm, Add(*((c / cm) * exp(a - m) for a, c in s.terms)), evaluate=False)
    return Add(*(c * exp(a - m) for a, c in s.terms))


def _size_bound(s: ExpSum, m: Basic) -> Basic:
    """``Σ |cᵢ|·exp(aᵢ - m)``: at least ``|Σ cᵢ·exp(aᵢ - m)|`` whatever the
    signs of the coefficients, and never negative (so its log is real)."""
    return Add(*(Abs(c) * exp(a - m) for a, c in s.terms))


def _log_of(s: ExpSum, j: int) -> Basic:
    """log(S) with the j-th exponent the largest: ``aⱼ + log(Σ ...)``,
    the dominant coefficient taken out where it is a positive number (so
    the sum is ``1 + ...``, for ``log1p``)."""
    aj, cj = s.terms[j]
    if cj.is_Number and cj.is_positive:
        rest = Add(*((c / cj) * exp(a - aj) for i, (a, c) in enumerate(s.terms) if i != j))
        return aj + log(cj) + log(1 + rest)
    return aj + log(_scaled_sum(s, aj))


def log_branches(s: ExpSum) -> Basic:
    """``log(S)`` normalized by its largest exponent, one branch per choice
    of it (a Piecewise; one term's form where there is one choice).

    >>> from sympy import symbols, exp
    >>> t, q = symbols("t q", real=True)
    >>> log_branches(as_exp_sum(1 + q * exp(-t)))
    Piecewise((log(q*exp(-t) + 1), t >= 0), (-t + log(q + exp(t)), True))
    """
    return _piecewise([(_log_of(s, j), _dominates(s, j)) for j in range(len(s.terms))])


def _piecewise(pieces: list) -> Basic:
    # unevaluated: SymPy's simplification of the conditions can recurse
    # without end on some (x >= 2*x - 3 beside x >= -x - 1)
    pieces = [(e, c) for e, c in pieces if c is not S.false]
    for k, (_, c) in enumerate(pieces):
        if c is S.true:
            pieces = pieces[:k + 1]
            break
    return pieces[0][0] if len(pieces) == 1 else Piecewise(*pieces, evaluate=False)


def _dominates(s: ExpSum, j: int) -> Basic:
    if j == len(s.terms) - 1:
        return S.true
    aj = s.terms[j][0]
    return And(*(_at_least(aj, a) for i, (a, _) in enumerate(s.terms) if i != j))


def _at_least(a: Basic, b: Basic) -> Basic:
    # a >= b, as t >= 0 where a - b is a positive number times t (x >= -x is x >= 0)
    coeff, t = (a - b).as_coeff_Mul()
    if coeff.is_Number and coeff.is_positive and t.is_Symbol:
        return t >= 0
    if coeff.is_Number and coeff.is_negative and t.is_Symbol:
        return t <= 0
    return a >= b


def _substitute(exprs: list[Basic], scale: dict[Basic, Basic], log_form: dict,
                hyper: dict | None = None) -> list[Basic]:
    """``exprs`` with each sum node ``S`` in ``scale`` as ``exp(M)·Σ ...``
    (``M = scale[S]``), each ``log(S)`` as ``log_form[S]``, and the
    exponentials of every product rebuilt added into one."""
    sums = {s.node: s for s in scale}
    order, _ = postorder(exprs, lambda n: () if isinstance(n, exp) else n.args)
    hyper = hyper or {}
    terms = {a for n in order if isinstance(n, Add) for a in n.args}

    def replacement(node: Basic) -> Basic | None:  # (mapped's swap: before the arguments)
        if node in hyper:
            return hyper[node]
        if node in sums:
            s = sums[node]
            m = scale[s]
            return Mul(exp(m), _scaled_sum(s, m), evaluate=False)
        if isinstance(node, log):
            split = _log_split(node.args[0], sums, log_form)
            if split is not None:
                return split
        return node if isinstance(node, exp) else None  # (an exp is kept whole)

    def rebuilt(node: Basic, low: tuple) -> Basic:  # (mapped's hook: over the new arguments)
        if any(a is not b for a, b in zip(low, node.args)):
            if isinstance(node, Pow) and isinstance(low[0], Mul) and node.exp.is_Integer:
                cur = Mul(*(f**node.exp for f in _factors(low[0])))
            else:
                cur = evaluated(node, low)
        else:
            cur = node
        if isinstance(cur, Mul):
            cur = _combine_exps(cur)
            cur = cur if node in terms else _fold_coefficient(cur)
        return cur

    return mapped(exprs, swap=replacement, hook=rebuilt)


def _log_split(arg: Basic, sums: dict, log_form: dict) -> Basic | None:
    """log of a product of positive factors (numbers, exponentials, sums
    of exponentials with positive coefficients, and their powers) as the
    sum of their logs, each sum's in its normalized form; None otherwise
    (``log(1/(1 + exp(-x)))`` is ``-log(1 + exp(-x))``)."""
    if arg in sums:
        return log_form[sums[arg]]
    out = []
    for f in Mul.make_args(arg):
        base, k = (f.base, f.exp) if f.is_Pow and f.exp.is_Number else (f, S.One)
        if isinstance(base, exp):
            out.append(k * base.args[0])
        elif base.is_Number and base.is_positive:
            out.append(k * log(base))
        elif base in sums and all(c.is_Number and c.is_positive for _, c in sums[base].terms):
            out.append(k * log_form[sums[base]])
        else:
            return None
    return Add(*out) if any(f in sums or (f.is_Pow and f.base in sums)
                            for f in Mul.make_args(arg)) else None


def normalized(expr: Basic, facts: Facts | None = None, together: bool = False) -> Basic | None:
    """``expr`` with its sums of exponentials normalized by their largest
    exponent (the module's table), or None where it holds none.  One
    branch per choice of the largest exponent of each sum while they are
    at most :data:`MAX_BRANCHES`; ``Max`` of the exponents beyond.  With
    ``together``, each branch over a common denominator where that is no
    larger: ``1/(1 + exp(b - a)) - 1`` (a softmax entry less one, with
    ``a`` the largest) is ``-exp(b - a)/(1 + exp(b - a))``, the 1s gone."""
    sums, hyper = _plan([expr], facts)
    if not sums:
        return _substitute([expr], {}, {}, hyper)[0] if hyper else None
    groups: dict[frozenset, list[ExpSum]] = {}
    for s in sums:
        groups.setdefault(_key(s), []).append(s)
    keys = list(groups)
    count = math.prod(len(groups[k][0].terms) for k in keys)
    if count > MAX_BRANCHES:
        log_form = {s: log_branches(s) for s in sums}
        scale = {}
        for k in keys:
            m = _max_of(tuple(groups[k][0].exponents))
            scale.update({s: m for s in groups[k]})
        got = _substitute([expr], scale, log_form, hyper)[0]
        return _together(got) if together else got

    def build(i: int, scale: dict) -> Basic:
        if i == len(keys):
            got = _substitute([expr], scale, {s: _log_of(s, choice[s]) for s in sums}, hyper)[0]
            return _together(got) if together else got
        pieces = []
        ref = groups[keys[i]][0]
        for j in range(len(ref.terms)):
            sub = dict(scale)
            for s in groups[keys[i]]:
                # the same exponents, maybe in another order: the same largest one
                jj = s.exponents.index(ref.exponents[j])
                sub[s] = s.exponents[jj]
                choice[s] = jj
            pieces.append((build(i + 1, sub), _dominates(ref, j)))
        return _piecewise(pieces)

    choice: dict[ExpSum, int] = {}
    return build(0, {})


def _together(e: Basic) -> Basic:
    n = count_ops([e])
    if n > TOGETHER_OPS:
        return e
    # each exp an opaque symbol: together would write exp(-x) as 1/exp(x)
    # and undo the normalization
    order, _ = postorder([e], lambda n: () if isinstance(n, exp) else n.args)
    hide = {n: Dummy() for n in order if isinstance(n, exp)}
    try:
        t = _xreplaced(sympy_together(_xreplaced(e, hide)), {d: n for n, d in hide.items()})
    except Exception:  # noqa: BLE001  (SymPy's algebra gives up: as it was)
        return e
    if count_ops([t]) > 2 * n:
        return e
    return _recombine(t)


def _xreplaced(e: Basic, rule: dict) -> Basic:
    """SymPy's ``e.xreplace(rule)`` over the DAG: each distinct node rebuilt
    once, by its class's constructor (SymPy's evaluation) wherever an
    argument was replaced or rebuilt, as ``xreplace`` does, with a ``Max``'s
    or ``Min``'s evaluation kept by its arguments (:func:`.build.evaluated`'s
    memo; SymPy caches neither).  ``xreplace`` walks the tree and built
    each ``Max`` again wherever it recurs: half of ``_together``'s time in the
    asymmetric loss's candidates.  Every node above a replaced one holds a
    replacement or lost it, so it differs from the node it was, as in
    ``xreplace``, which rebuilds it too.

    >>> from sympy import Max, exp, symbols
    >>> x, d = symbols("x d")
    >>> e = Max(exp(x), 1) + exp(x)
    >>> _xreplaced(e, {exp(x): d}) == e.xreplace({exp(x): d})
    True
    """
    if not rule:
        return e
    return mapped([e], _constructed, swap=rule.get)[0]


def _constructed(node: Basic, args: tuple) -> Basic:
    """``node.func(*args)``, a ``Max``'s or ``Min``'s from the memo."""
    if isinstance(node, MinMaxBase):
        return lattice(node.func, tuple(args))
    return node.func(*args)


def _recombine(e: Basic) -> Basic:
    """``e`` with the exponentials of each product added into one (one
    bottom-up pass): together puts ``exp(-x)`` and ``exp(x)`` side by side."""
    order, _ = postorder([e], lambda n: () if isinstance(n, exp) else n.args)
    # the terms of a sum are normalized: their exp does not overflow
    terms = {a for n in order if isinstance(n, Add) for a in n.args}

    def rebuilt(node: Basic, low: tuple) -> Basic:  # (mapped's hook)
        cur = evaluated(node, low) if any(a is not b for a, b in zip(low, node.args)) else node
        if isinstance(cur, Mul):
            cur = _distribute(_combine_exps(cur))
            cur = cur if node in terms or not isinstance(cur, Mul) else _fold_coefficient(cur)
        return cur

    return mapped([e], swap=lambda n: n if isinstance(n, exp) else None, hook=rebuilt)[0]


def _distribute(node: Mul) -> Basic:
    """``exp(e)·(a + b·exp(-e) + ...)·r`` as ``(a·exp(e) + b + ...)·r``:
    an exponential times a sum holding exponentials, multiplied into each
    term (its exponentials added into one), so no ``exp(800)·exp(-800)``
    is left to be inf·0."""
    exps = [f for f in node.args if isinstance(f, exp)]
    sums = [f for f in node.args if isinstance(f, Add)
            and any(isinstance(g, exp) for t in f.args for g in Mul.make_args(t))]
    if len(exps) != 1 or len(sums) != 1:
        return node
    (e,), (s,) = exps, sums
    rest = [f for f in node.args if f is not e and f is not s]
    spread = Add(*(_combine_exps(Mul(e, t)) if isinstance(Mul(e, t), Mul) else Mul(e, t)
                   for t in s.args))
    return Mul(spread, *rest)


def _exact_differences(sums: list[ExpSum]) -> bool:
    """Whether every difference of two exponents of a sum is computed
    exactly from a value the formula computes anyway (``2x``, ``-x``,
    ``x``): a power of two times a node, or its negation."""
    for s in sums:
        for i, (a, _) in enumerate(s.terms):
            for b, _ in s.terms[i + 1:]:
                d = a - b
                coeff, rest = d.as_coeff_Mul()
                if not (coeff.is_Rational and _power_of_two(abs(coeff))
                        and (rest.is_Symbol or rest in s.exponents or -rest in s.exponents)):
                    return False
    return True


def _power_of_two(q) -> bool:
    p, r = q.p, q.q
    return p > 0 and (p & (p - 1)) == 0 and (r & (r - 1)) == 0


def normalized_safe(expr: Basic, facts: Facts | None = None) -> Basic | None:
    """:func:`normalized`, where every difference of two exponents of a
    sum is exact (``2x`` from ``x`` and ``-x``, ``x`` from ``x`` and 0): then
    every ``exp`` of the form has for argument a power of two times a
    value the formula computes anyway, so it loses nothing the formula as
    written keeps; None where some difference rounds (``x - y``: up to
    ``log2|x - y|`` bits of a result that exp(x)/(exp(x) + exp(y)) kept,
    for :func:`symgrad.stabilize` to measure), or where there is no sum.

    >>> from sympy import symbols, exp
    >>> x, y = symbols("x y", real=True)
    >>> normalized_safe(1 / (exp(x) - 1)).args[1]  # exact: x - 0
    (exp(-x)/(1 - exp(-x)), True)
    >>> normalized_safe(exp(x) / (exp(x) + exp(y))) is None  # x - y rounds
    True
    """
    sums = exp_sums([expr], facts)
    if not _exact_differences(sums):
        return None
    return normalized(expr, facts)


def normalized_beyond(expr: Basic, facts: Facts | None = None, lo: float = EXP_LO,
                      hi: float = EXP_HI) -> Basic | None:
    """The formula as written where no product of its exponentials can
    leave ``exp``'s normal range ``[lo, hi]`` (every exponent within
    ``[lo/d, hi/d]``, ``d`` the most exponentials multiplied together),
    :func:`normalized` beyond: a candidate for :func:`symgrad.stabilize`
    to measure, with float64's range or float32's (:data:`EXP32`).

    >>> from sympy import symbols, exp
    >>> x, y = symbols("x y", real=True)
    >>> f = normalized_beyond(exp(x) / (exp(x) + exp(y)))
    >>> f.args[0][0]
    exp(x)/(exp(x) + exp(y))
    >>> sorted(map(str, f.args[0][1].args))[1:3]  # each exp normal; and the sum below max
    ['x <= 709.782712893384', 'x >= -708.396418532264']
    """
    form = normalized(expr, facts)
    if form is None:
        return None
    d = max(_exp_degree(expr), 1)
    sums = exp_sums([expr], facts)
    exps = dict.fromkeys(a for s in sums for a, _ in s.terms if a != 0)
    # each exp normal, and each sum below max float: log(S) = M + log(Σ ...)
    # for M = Max(exponents), the sum's normal form (an exponent near max
    # float beside small ones is no overflow; two of them are)
    # (log1p(N - 1), not log(N): code generation would make log of a sum of
    # exps a logaddexp, which the stability package's node evaluator lacks)
    # (the sum's size bounded by Σ |cᵢ|·exp(aᵢ - M): a sum of negative or
    # mixed terms has no real log, and SymPy refuses to compare one)
    below = [_max_of(tuple(s.exponents))
             + log1p(_size_bound(s, _max_of(tuple(s.exponents))) - 1) <= hi / d
             for s in sums]
    inside = And(*(a >= lo / d for a in exps), *(a <= hi / d for a in exps), *below)
    return Piecewise((expr, inside), (form, True))



@functools.lru_cache(maxsize=256)
def _max_of(exponents: tuple) -> Basic:
    """``Max(*exponents)``, built once per exponents: SymPy's Max compares
    its arguments pairwise with assumption queries (a 10-logit softmax's
    exponents: 45 ms each), and every output of a gradient holds the same
    sum (140 builds of one Max were 6 s of the 10-output softmax
    cross-entropy's stabilize)."""
    return Max(*exponents)

def _exp_degree(expr: Basic) -> float:
    """The most exponentials multiplied together in ``expr``: 1 for an
    ``exp`` or a sum of them, the sum over a product's numerator factors or
    over its denominator's (whichever is more), ``|p|`` times for a power;
    other functions pass their argument's on (a bound
    on how far past exp's range a value of ``expr``'s nodes can be when
    each exponent is within it)."""
    order, kids = postorder([expr], lambda n: () if isinstance(n, exp) else n.args)
    deg: dict[Basic, float] = {}
    for node in order:
        ks = [deg[k] for k in kids[node]]
        if isinstance(node, exp):
            deg[node] = 1.0
        elif isinstance(node, Mul):
            # numerator and denominator are each computed whole: their sums
            den = [k for a, k in zip(kids[node], ks) if a.is_Pow and a.exp.is_negative]
            deg[node] = max(sum(ks) - sum(den), sum(den))
        elif isinstance(node, Pow) and node.exp.is_Number:
            deg[node] = abs(float(node.exp)) * ks[0]
        else:
            deg[node] = max(ks, default=0.0)
    return deg[expr]


_HYPERBOLIC = {
    sinh: lambda u: (exp(u) - exp(-u)) / 2,
    cosh: lambda u: (exp(u) + exp(-u)) / 2,
    tanh: lambda u: (exp(u) - exp(-u)) / (exp(u) + exp(-u)),
    sech: lambda u: 2 / (exp(u) + exp(-u)),
    csch: lambda u: 2 / (exp(u) - exp(-u)),
    coth: lambda u: (exp(u) + exp(-u)) / (exp(u) - exp(-u)),
}


def hyperbolic_as_exp(exprs: list[Basic]) -> list[Basic]:
    """``exprs`` with sinh, cosh, tanh, sech, csch, coth written with
    ``exp`` (one bottom-up pass over the DAG), for :func:`normalized`.

    >>> from sympy import symbols, cosh, log
    >>> x = symbols("x", real=True)
    >>> hyperbolic_as_exp([log(cosh(x))])
    [log(exp(x)/2 + exp(-x)/2)]
    """
    def as_exp(cur: Basic) -> Basic:
        make = _HYPERBOLIC.get(type(cur))
        return make(*cur.args) if make is not None else cur

    return mapped(exprs, evaluated, after=as_exp)


def with_normalized_sums(exprs: list[Basic], rewrites: tuple, facts: Facts) -> list[Basic]:
    """``exprs`` with ``rewrites`` applied, then each that still holds a sum
    of exponentials to normalize (the sigmoid's shapes are normalized by
    the library already) as :func:`normalized_safe` makes it, rewritten
    again (``1 - exp(-2x)`` is then ``-expm1(-2x)``)."""
    out = []
    for e in apply_rewrites(exprs, rewrites, facts):
        n = normalized_safe(e, facts)
        out.append(e if n is None else apply_rewrites([n], after(rewrites), facts)[0])
    return out


def after(rewrites) -> tuple:
    """The rewrites worth applying to a normalized form: not those of the
    sigmoid's and softplus's shapes, which would normalize the normalized
    sums again (``1/(1 + exp(-2x))`` in the branch x ≥ 0 is accurate).
    The sigmoid family's forms of ``tanh`` (``1 - tanh(u)**2`` as
    ``4σ(2u)σ(-2u)``) hold no sum of exponentials and stay: a normalized
    form keeps ``tanh`` of its normalized argument (the mish second
    derivative's ``1 - tanh(x + log1p(exp(-x)))**2`` rounded to 0 from
    x = 19, where its value, about ``8x·exp(-2x)``, is a normal float up to
    x = 354)."""
    kept = tuple(rw for rw in rewrites if (rw.family != "sigmoid" or not rw.lhs.has(exp))
                 and rw.name not in ("softplus", "softplus-log1p", "logaddexp"))
    return (*kept, by_name("exp-difference"))
