"""Quotients by a product, divided in turn.

``p/(a*b)`` is computed by the code generator as one division by the
product ``a*b``, which overflows to inf where ``|a*b|`` passes the largest
float although the quotient itself is a representable (if tiny) number:
``-1/(x*(x + 1))`` is 0 at x = 1e160 where the true value is -1e-320.
Dividing in turn, ``(p/a)/b``, keeps every intermediate near the result's
magnitude; a square over a square, ``2*s**2/x**2``, becomes
``2*(s/x)**2``, and over a product of squares ``((s/x)/c)**2``.  Which
of the two forms is the more accurate depends on where (``p/a`` can
underflow where ``a*b`` does not overflow), so this is a candidate for
:func:`symgrad.stabilize` to measure, never applied unmeasured.

SymPy would multiply the nested quotients back together, so the nodes are
built unevaluated; code generation emits them as they stand.

>>> from sympy import symbols, sin, cos
>>> x = symbols("x")
>>> divide_in_turn([-1 / (x * (x + 1)), 2 * sin(x / 2) ** 2 / x**2])
[(-1/x)/(x + 1), 2*(sin(x/2)/x)**2]
>>> divide_in_turn([sin(x) ** 2 / (2 * x**2 * cos(x / 2) ** 2)])
[((sin(x)/x)/cos(x/2))**2/2]
"""

from __future__ import annotations

from sympy import Basic, Mul, Pow, S

from ..build import evaluated, mapped

__all__ = ["divide_in_turn"]


def _divided(node: Mul) -> Basic | None:
    """``node`` with its reciprocal factors divided in turn, or None where
    it divides by at most one factor (once)."""
    coeff, nums, dens = S.One, [], []
    for f in node.args:
        if f.is_Number:
            coeff *= f
        elif f.is_Pow and f.exp.is_Integer and f.exp < 0:
            dens.append((f.base, int(-f.exp)))
        else:
            nums.append(f)
    if sum(k for _, k in dens) < 2:
        return None
    paired = []
    for i, (_d, k) in enumerate(dens):
        if k < 2:
            continue
        n = next((t for t in nums if t.is_Pow and t.exp == k), None)
        if n is not None:
            # n**k/(d**k·e**k) = ((n/d)/e)**k: the powers never overflow, and
            # the one rounding into the subnormals is the last (n**k/d**k
            # rounded first, then divided by e**k < 1, amplified it)
            nums.remove(n)
            base = n.base
            for j in range(i, len(dens)):
                if dens[j][1] == k:
                    base = Mul(base, Pow(dens[j][0], -1), evaluate=False)
                    dens[j] = (dens[j][0], 0)
            paired.append(Pow(base, k, evaluate=False))
    acc = Mul(coeff, *nums)
    for d, k in dens:
        for _ in range(k):
            acc = Mul(acc, Pow(d, -1), evaluate=False)
    return Mul(acc, *paired, evaluate=False) if paired else acc


def divide_in_turn(exprs: list[Basic]) -> list[Basic]:
    """``exprs`` with every product holding two or more reciprocal factors
    (``p/(a*b)``, ``p/a**2``) rewritten to divide by one factor at a time
    (one bottom-up pass over the DAG)."""
    return mapped(exprs, evaluated,
                  after=lambda cur: (_divided(cur) or cur) if isinstance(cur, Mul) else cur)
