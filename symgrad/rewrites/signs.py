"""Products of a value and its sign, as its absolute value.

The derivative of ``|u|`` is ``sign(u)·u'``, so a gradient holds
``u·sign(u)`` wherever the formula multiplies ``u`` by something built on
``|u|``: the softsign ``x/(1 + |x|)`` has the derivative
``1/(1 + |x|) - x·sign(x)/(1 + |x|)²``.  As written, the two terms cancel
for large ``|x|`` (10 bits at x = 512), and SymPy's algebra cannot see it:
``|x| - x·sign(x)`` is not 0 to ``together``.  ``u·sign(u)`` is ``|u|``
for every float (0 at 0, inf at ±inf, NaN at NaN, and exactly: multiplying
by ±1 does not round), so the fold is safe: it changes no value the code
computes, and it lets ``together`` write the softsign's derivative as
``1/(1 + |x|)²``.
"""

from __future__ import annotations

from collections.abc import Iterable

from sympy import Abs, Basic, Mul, Pow, sign

from ..build import evaluated
from ..graph import postorder

__all__ = ["fold_signs"]


def _fold(node: Mul) -> Basic:
    """One product with each pair ``u``, ``sign(u)`` of its factors (odd
    powers of each) made ``|u|`` times the rest."""
    factors = list(node.args)
    changed = False
    for i, f in enumerate(factors):
        base, k = (f.base, f.exp) if isinstance(f, Pow) and f.exp.is_Integer else (f, 1)
        if not isinstance(base, sign) or int(k) % 2 == 0:
            continue
        u = base.args[0]
        for j, g in enumerate(factors):
            gb, m = (g.base, g.exp) if isinstance(g, Pow) and g.exp.is_Integer else (g, 1)
            if j == i or gb != u or int(m) % 2 == 0 or int(m) < 1:
                continue
            # u**m·sign(u)**k = |u|·u**(m-1)·sign(u)**(k-1), and (m-1, k-1 even)
            # u**(m-1) = |u|**(m-1), sign(u)**(k-1) = 1 away from 0
            if int(k) != 1:
                continue  # sign(u)**3 is sign(u) but for u = 0 (0 either way): left as is
            factors[j] = Abs(u) ** int(m)
            factors[i] = None
            changed = True
            break
    if not changed:
        return node
    return Mul(*(f for f in factors if f is not None))


def fold_signs(exprs: Iterable[Basic]) -> list[Basic]:
    """``exprs`` with every product holding ``u`` and ``sign(u)`` written
    with ``|u|`` (one bottom-up pass over the DAG): an identity on every
    float, exact.

    >>> from sympy import symbols, Abs, sign, together
    >>> x = symbols("x", real=True)
    >>> d = 1 / (1 + Abs(x)) - x * sign(x) / (1 + Abs(x))**2  # the softsign's derivative
    >>> f = fold_signs([d])[0]
    >>> f == 1 / (1 + Abs(x)) - Abs(x) / (1 + Abs(x))**2
    True
    >>> together(f)
    (Abs(x) + 1)**(-2)
    >>> fold_signs([x**3 * sign(x)])
    [x**2*Abs(x)]
    """
    exprs = list(exprs)
    order, kids = postorder(exprs, lambda n: n.args)
    if not any(isinstance(n, sign) for n in order):
        return exprs
    new: dict[Basic, Basic] = {}
    for node in order:
        args = kids[node]
        low = tuple(new[a] for a in args)
        cur = evaluated(node, low) if any(a is not b for a, b in zip(low, args)) else node
        new[node] = _fold(cur) if isinstance(cur, Mul) else cur
    return [new[r] for r in exprs]
