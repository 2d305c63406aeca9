"""Exponentials of rounded arguments, computed from the exact argument.

``exp(u)`` multiplies the rounding of its argument by ``|u|``: where ``u``
is a computed value (``a - b``, ``x*y``, ``c*(x + 0.044715*x**3)``) the
float ``fl(u)`` is off by up to half an ulp of ``u``, and ``exp(fl(u))``
by ``|u|/2`` ulps of the result: about ``log2|u|`` bits, 9 near 709 where
the result is still a float.  No rewrite of the formula removes it (the
normalized gradient of log-sum-exp has ``exp(b - a)``; the soft-margin
loss's ``exp(-y*x)`` as written; GELU's ``tanh`` of a cubic).  The fix is
in the arithmetic: ``compensated(exp(u))`` computes ``u`` as a pair of
floats ``h + l`` (error-free sums and products) and ``exp(h)*(1 + l)``,
so that only ``exp``'s own rounding is left.  Mathematically the identity,
so every form it makes equals the formula.

Only exponentials whose argument rounds (not a symbol, a number, or a
power of two times one: ``exp(-2*x)`` is exact) and may be large (beyond
:data:`SMALL` in magnitude on the domain, where the rounding costs a bit
or more) are wrapped: a plain float form, on every platform, for
:func:`symgrad.stabilize` to measure beside the form it came from.
"""

from __future__ import annotations

from collections.abc import Iterable

from sympy import Abs, Basic, Symbol, exp
from sympy.codegen.cfunctions import expm1

from ..build import replaced
from ..compensated import compensated
from .facts import Facts
from .forms import Sigmoid, Softplus

__all__ = ["SMALL", "exact_exponents", "rounded_exponent"]

SMALL = 4.0  # |u| up to this: exp(fl(u)) is off by 2 ulps at most: not worth pairs
_EXP_LIKE = (exp, expm1, Sigmoid, Softplus)


def _exact(u: Basic) -> bool:
    """Whether ``u`` is computed without rounding from the inputs: a
    symbol, a number, ``|s|``, or a power of two times one of these."""
    coeff, rest = u.as_coeff_Mul()
    if rest.is_Number or rest == 1:
        return True
    if coeff.is_Rational:
        p, q = abs(coeff.p), coeff.q
        if p == 0 or p & (p - 1) or q & (q - 1):
            return False
    elif not coeff.is_Number:
        return False
    else:
        return False
    return isinstance(rest, Symbol) or (isinstance(rest, Abs) and isinstance(rest.args[0], Symbol))


def rounded_exponent(node: Basic, facts: Facts | None = None) -> bool:
    """Whether ``node`` is an exponential (``exp``, ``expm1``, the
    sigmoid, the softplus) whose argument rounds and may pass
    :data:`SMALL` in magnitude on the domain of ``facts``.

    >>> from sympy import symbols, exp
    >>> x, y = symbols("x y", real=True)
    >>> rounded_exponent(exp(x - y)), rounded_exponent(exp(-2 * x)), rounded_exponent(exp(x / 3))
    (True, False, True)
    >>> rounded_exponent(exp(x - y), Facts({x: (0, 1), y: (0, 2)}))  # |x - y| <= 2
    False
    """
    if not isinstance(node, _EXP_LIKE) or _exact(node.args[0]):
        return False
    b = (facts or Facts()).bound(node.args[0])
    return b is None or max(abs(b[0]), abs(b[1])) > SMALL


def exact_exponents(exprs: Iterable[Basic], facts: Facts | None = None) -> list[Basic]:
    """``exprs`` with each exponential of a rounded, possibly large argument
    as ``compensated(...)`` (one bottom-up pass over the DAG; the arguments
    inside are left as they are: the pairs compute them).

    >>> from sympy import symbols, exp, log
    >>> x, y = symbols("x y", real=True)
    >>> exact_exponents([1 / (1 + exp(x - y)) + exp(-x)])
    [exp(-x) + 1/(compensated(exp(x - y)) + 1)]
    >>> exact_exponents([log(1 + exp(-2 * x))])  # exact: kept
    [log(1 + exp(-2*x))]
    """
    facts = facts or Facts()

    def swap(n: Basic) -> Basic | None:
        if isinstance(n, compensated):
            return n  # computed in pairs already
        return compensated(n) if rounded_exponent(n, facts) else None

    return [replaced(e, swap) if isinstance(e, Basic) else e for e in exprs]
