"""Exponential factors merged: huge and tiny factors cancelled symbolically.

A product ``exp(a)·exp(b)·m`` whose factors are huge and tiny where the
product is an ordinary number (the gradient of the normal log-CDF,
``exp(-x²/2)·exp(x²/2)/erfcx(-x/√2)``, is 0·inf = NaN for x < -38.6 as
the rewrites leave it) is ``exp(a + b)·m``, and the summed exponent,
expanded, cancels: ``x²/2 - x²/2`` is 0.  Likewise ``exp(-x)·cosh(x)`` is
``(1 + exp(-2x))/2``: a ``cosh``/``sinh`` factor beside an ``exp`` is
written with exponentials and the product distributed over them.  And a
``Piecewise`` inside a product or a function (what the library's regimes
leave: ``exp(-x²/2)·Piecewise((exp(x²/2)/erfcx(…), …), …)``,
``log(Piecewise(…)/2)``) is folded out first, so that each branch meets
the factors around it (SymPy's ``piecewise_fold``).

Every step is an identity (``exp(a)·exp(b) = exp(a + b)``); which form is
accurate is for :func:`symgrad.stabilize` to measure: merging can also
round a sum the factors kept apart.  The exponent is expanded only where
that makes it smaller (where it cancels).

>>> from sympy import symbols, exp, cosh, sqrt, pi
>>> x = symbols("x", real=True)
>>> merge_exponentials([exp(-x**2 / 2) * exp(x**2 / 2 + x) / sqrt(pi)])
[exp(x)/sqrt(pi)]
>>> merge_exponentials([exp(-x) * cosh(x)])
[1/2 + exp(-2*x)/2]
"""

from __future__ import annotations

from sympy import (
    Add,
    And,
    Basic,
    Mul,
    Or,
    Piecewise,
    Pow,
    S,
    cosh,
    exp,
    expand,
    piecewise_fold,
    sinh,
)
from sympy.logic.boolalg import false, true

from ..build import evaluated, mapped
from ..graph import count_ops, postorder

__all__ = ["merge_exponentials", "settle"]

FOLD_OPS = 400  # SymPy's piecewise_fold walks the tree: only formulas this small


def _exponent(f: Basic) -> Basic | None:
    """``a`` where ``f`` is ``exp(a)`` or ``exp(a)**n``; else None."""
    if isinstance(f, exp):
        return f.args[0]
    if isinstance(f, Pow) and isinstance(f.base, exp) and f.exp.is_Number:
        return f.base.args[0] * f.exp
    return None


def _smaller(a: Basic) -> Basic:
    e = expand(a)
    return e if count_ops([e]) < count_ops([a]) else a


def _merged(node: Mul) -> Basic:
    """A product with its exponential factors as one ``exp`` of the expanded
    sum of the exponents, distributed over a factor that is a sum of
    exponentials (a ``cosh``, ``sinh`` written with them)."""
    exps, sums, rest = [], [], []
    for f in node.args:
        a = _exponent(f)
        if a is not None:
            exps.append(a)
        elif isinstance(f, (cosh, sinh)):
            sums.append(f.rewrite(exp))
        else:
            rest.append(f)
    if not exps or (len(exps) == 1 and not sums):
        return node
    total = _smaller(Add(*exps))
    if not sums:
        return Mul(exp(total), *rest)
    return _product(Mul(*rest), total, sums)


def _product(coeff: Basic, total: Basic, sums: list[Basic]) -> Basic:
    # exp(total)·Π sums, each sum's terms c·exp(b): multiplied out term by term
    terms = [(S.One, total)]
    for s in sums:
        new = []
        for c0, t0 in terms:
            for term in Add.make_args(expand(s)):
                c, b = [], []
                for f in Mul.make_args(term):
                    a = _exponent(f)
                    (b if a is not None else c).append(a if a is not None else f)
                new.append((c0 * Mul(*c), t0 + Add(*b)))
        terms = new
    return coeff * Add(*[c * exp(_smaller(t)) for c, t in terms])


def settle(e: Basic) -> Basic:
    """``e`` with what a top-level ``Piecewise`` knows inside each branch: the
    conditions before it are false and its own is true (a regime that the
    rewrites made again inside one of its own branches collapses).

    >>> from sympy import Piecewise, symbols
    >>> x = symbols("x", real=True)
    >>> settle(Piecewise((1, x > 1), (Piecewise((2, x > 1), (x, True)), True)))
    Piecewise((1, x > 1), (x, True))
    """
    return _branches_known(e)


def _branches_known(e: Basic) -> Basic:
    """A folded ``Piecewise`` whose branches hold the same ``Piecewise``
    again (a regime folded into a regime on the same condition): inside
    each branch, the conditions before it are false and its own is true.
    Then its sign conditions settled (:func:`_sign_settled`)."""
    if not isinstance(e, Piecewise):
        return e
    out, before = [], []
    for expr, cond in e.args:
        known = {c: false for c in before}
        if cond is not true:
            known[cond] = true
        out.append((expr.xreplace(known), cond))
        before.append(cond)
    return Piecewise(*_sign_settled(out))


def _sign_settled(pieces: list) -> list:
    """Branches whose condition is an And/Or of ``t >= 0`` and ``t <= 0`` for
    one real symbol ``t`` (what folding two sign regimes writes): the Or of
    both is true for every real ``t`` (the branches after it go); the And of
    both holds at ``t = 0`` only, and goes where the branch that then takes
    ``t = 0`` has the same finite value there.  The gradient of x*tanh(x) +
    sin(x)**2 had ``(x >= 0) & (x <= 0)`` and ``(x >= 0) | (x <= 0)`` beside
    ``True``: three forms in pairs that np.where, JAX and PyTorch computed at
    every point (25x JAX's own gradient; jax9, 2026-11-27)."""
    if not pieces or pieces[-1][1] is not true:
        return pieces
    kinds = [_sign_kind(c) for _, c in pieces]
    out = []
    for k, ((expr, cond), kind) in enumerate(zip(pieces, kinds)):
        if kind is not None and kind[0] == "or":
            out.append((expr, true))
            return out
        if kind is not None and kind[0] == "and":
            t = kind[1]
            later = next((p for p, q in zip(pieces[k + 1:], kinds[k + 1:])
                          if p[1] is true or (q is not None and q[0] == "or")
                          or p[1].subs(t, 0) is true), None)
            if later is not None:
                here, there = expr.subs(t, 0), later[0].subs(t, 0)
                if here.is_number and there.is_number and here.is_finite \
                        and (here - there).equals(0):
                    continue
        out.append((expr, cond))
    return out


def _sign_kind(c: Basic) -> tuple | None:
    """``("or", t)`` or ``("and", t)`` where ``c`` is the Or or the And of
    ``t >= 0`` and ``t <= 0`` (``t`` one real symbol), else None."""
    if not isinstance(c, (And, Or)) or len(c.args) != 2:
        return None
    ops = set()
    for r in c.args:
        if not (r.is_Relational and r.rhs == 0 and r.lhs.is_Symbol and r.lhs.is_real
                and r.rel_op in (">=", "<=")):
            return None
        ops.add((r.lhs, r.rel_op))
    if len({t for t, _ in ops}) != 1 or len(ops) != 2:
        return None
    return ("or" if isinstance(c, Or) else "and", next(iter(ops))[0])


def _foldable(e: Basic) -> bool:
    """Whether no condition of a ``Piecewise`` in ``e`` holds a ``Piecewise``
    (SymPy's ``piecewise_fold`` asserts there is none: the gradient of the
    asymmetric loss, ``Max(p - 1/20, 0)`` under a ``Heaviside`` whose
    argument holds it, crashed ``stabilize``).  One pass over the DAG."""
    order, _ = postorder([e], lambda n: n.args)
    return not any(isinstance(n, Piecewise) and any(c.has(Piecewise) for _, c in n.args)
                   for n in order)


def merge_exponentials(exprs: list[Basic]) -> list[Basic]:
    """``exprs`` with the ``Piecewise`` nodes folded out of products and
    functions, and each product's exponential factors merged into one
    ``exp`` of their expanded sum (one bottom-up pass over the DAG)."""
    if count_ops(exprs) <= FOLD_OPS:
        exprs = [_branches_known(piecewise_fold(e)) if e.has(Piecewise) and _foldable(e)
                 else e for e in exprs]
    return mapped(exprs, evaluated,
                  after=lambda cur: _merged(cur) if isinstance(cur, Mul) else cur)
