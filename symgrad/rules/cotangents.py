"""The algebra of tangents and cotangents: products, sums, and the scaling
of a cotangent by a partial (distributed over a Piecewise cotangent's
branches so an untaken branch's NaN partial stays out of the gradient).

Products and sums are built in SymPy's canonical form without its
evaluation where :mod:`symgrad.build` knows the result, and a long product
or sum is kept as one shared factor or term (flattening would copy it into
every level of a recurrence).
"""

from __future__ import annotations

from collections.abc import Sequence

from sympy import Add, Expr, Mul, Piecewise, S

from ..build import WIDE, factors, plus, scaled, times
from ..graph import postorder
from .selection import _branches, _branchy, _nested, piecewise, support
from .walkstate import WalkState

__all__ = ["product", "total", "scale"]


def _long(e: Expr, cls: type) -> bool:
    """A sum (product) whose terms (factors) SymPy would copy into any sum
    (product) it is part of: long, or holding one kept nested before."""
    return isinstance(e, cls) and (
        len(e.args) >= WIDE or any(isinstance(f, cls) for f in e.args)
    )


def product(a: Expr, b: Expr) -> Expr:
    """``a * b``; a long product ``a`` is kept as one shared factor.

    >>> from sympy import symbols
    >>> x, y = symbols("x y")
    >>> product(2 * x, 3 * y)
    6*x*y
    """
    if (isinstance(a, Mul) and _long(a, Mul)) or (isinstance(b, Mul) and _long(b, Mul)):
        return Mul(a, b, evaluate=False)
    done = times(a, b)  # factors over different bases: no SymPy evaluation
    if done is not None:
        return done
    if a.is_Number or b.is_Number:  # a number times a non-sum: no SymPy evaluation
        done = scaled(a, b) if a.is_Number else scaled(b, a)
        if done is not None:
            return done
    scaled_sum = _scaled_sum(a, b)
    if scaled_sum is not None:
        return scaled_sum
    try:
        return Mul(a, b)
    except RecursionError:  # factors alike down to a great depth (see ``total``)
        return Mul(a, b, evaluate=False)


def _coefficient(e: Expr) -> tuple:
    """``e`` as (number, sum or None): ``2*(x + y)`` is (2, x + y), ``3`` is
    (3, None), ``x + y`` is (1, x + y); anything else is (None, None)."""
    if e.is_Number:
        return e, None
    if e.is_Add:
        return S.One, e
    if e.is_Mul and len(e.args) == 2 and e.args[0].is_Number and e.args[1].is_Add:
        return e.args
    return None, None


def _scaled_sum(a: Expr, b: Expr) -> Expr | None:
    """``a * b`` where it is a number times a sum, kept so (``2*(x + y)``):
    SymPy's product distributes the number over the terms (``2*x + 2*y``,
    a new product per term and a new sum, at every level of a chain rule
    that scales a sum: half of the derivation time of the chained
    Rosenbrock function); None where the product is anything else."""
    ca, sa = _coefficient(a)
    cb, sb = _coefficient(b)
    if ca is None or cb is None or (sa is None) == (sb is None):
        return None
    c = ca * cb
    if c is S.Zero or not c.is_finite:
        return None
    s = sa if sb is None else sb
    return s if c is S.One else factors((c, s))


def total(terms: Sequence[Expr]) -> Expr:
    """``Add(*terms)``; a long sum among the terms is kept as one shared term
    (as :func:`product` keeps a long product: the cotangent of ``y`` in
    ``y <- a*sin(y) + y`` is the previous one plus a term, and flattening
    would copy the growing sum into every level), and the sum is left
    unevaluated where SymPy's canonical ordering recurses too deeply.

    Sorting compares terms structurally, recursing until they differ: the
    cotangents of a weight shared by every level of a deep recurrence are
    alike down to the bottom, so canonical ordering would hit Python's
    recursion limit.

    >>> from sympy import symbols
    >>> x, y = symbols("x y")
    >>> total([y, x, x])
    2*x + y
    """
    if any(_long(t, Add) for t in terms):
        return Add(*terms, evaluate=False)
    done = plus(terms)  # unlike terms: SymPy's sum without its evaluation
    if done is not None:
        return done
    try:
        return Add(*terms)
    except RecursionError:
        return Add(*terms, evaluate=False)


def scale(ct: Expr, p: Expr, walk: WalkState | None = None) -> Expr | None:
    """``ct * p``, keeping a zero branch of a Piecewise cotangent exactly zero.

    Distributing over the branches is what keeps a NaN/inf partial of an
    untaken branch (``1/(2*sqrt(x))`` at ``x < 0``) out of the gradient; a
    sum of cotangents from several Piecewise nodes is distributed term by
    term for the same reason.
    """
    if p is S.One:
        return ct
    if p is S.Zero or ct is S.Zero:
        return None
    if not _branchy(ct):
        return product(ct, p)
    if _nested(ct):
        # Distributing into nested branches copies the whole nest, at every
        # level of nested ``where``s (exponential); the product is guarded
        # instead by where ``ct`` may be non-zero, a condition shared
        # between levels.
        where = support(ct, walk)
        if where is S.false:
            return None
        res = product(ct, p)
        return res if where is S.true else piecewise([(res, where), (S.Zero, True)])
    # One level of branches: distribute, bottom-up, without recursion.
    order, kids = postorder([ct], _branches)
    out: dict[Expr, Expr] = {}
    for node in order:
        if isinstance(node, Piecewise):
            out[node] = piecewise([(out[e], c) for e, c in node.args])
        elif kids[node]:
            out[node] = Add(*[out[t] for t in node.args])
        else:
            out[node] = S.Zero if node is S.Zero else product(node, p)
    res = out[ct]
    return None if res is S.Zero else res


def _dot(partials: Sequence[Expr | None], tangents: Sequence[Expr | None]) -> Expr | None:
    terms = [
        t if p is S.One else product(p, t)
        for p, t in zip(partials, tangents)
        if p is not None and t is not None and p is not S.Zero
    ]
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else total(terms)
