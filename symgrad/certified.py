"""``certified(u)``: the value ``u`` computed in pairs with a running error
bound, and recomputed exactly at the rare elements the bound does not
certify (Ziv's strategy, as correctly rounded libms do).

Mathematically ``certified`` is the identity: every proof, the ground truth
and differentiation see ``u``.  Only code generation treats it differently
(:mod:`symgrad.codegen.certifying`): ``u`` is computed as
``compensated(u)`` (pairs of the working type), beside a first-order bound
on the pairs' error, ``C * eps**2 * M``, where ``M`` is ``u``'s running
magnitude (``|x|`` for an input, and at each node ``|v| + sum |dv/da| M(a)``
over its arguments ``a``), computed in plain floats.  Where the rounded
pair's magnitude is not above ``2**p`` times that bound (a cancellation
deeper than the pairs certify: a zero curve of two free inputs, which
inputs approach as deep as they like), or where the pair or the bound is
not finite, the element is recomputed by the ground truth
(:class:`symgrad.stability.truth.GroundTruth`: interval arithmetic at
increasing precision until the value rounds to one float), element by
element, only on that mask.  A point's value never depends on its batch.

It is the form for zero sets that no fixed precision holds: ``log(y) - x +
1`` (the KL divergence's gradient) along ``x = log(y) + 1``, ``tanh(x) -
y``.  The inner values of ``M`` are plain floats; each derivative factor is
bounded over the radius that holds the exact argument and its pair (an
exponent that cancels in plain floats widens exp's factor to ``exp(a +
r)``), a pole's argument within its reach of the pole, a step's near 0, a
function whose factor is not bounded so, or a bound not finite send the
element to the ground truth; the pairs' own constants are measured (not
proved; docs/stabilize.md).  Functions of pairs: exp,
expm1, log, log1p, sin, cos, tan, atan, hypot; tanh, sinh, cosh, atanh,
asinh, acosh, asin, acos and logaddexp written in those; erf and erfc (their
Maclaurin series at ``|a| <= 1/2``, else ``exp(-a**2)`` times erfcx's
tabulated Taylor series, in pairs: ``Phi(x) - y``); another function is
rounded to one float in pairs, and most elements of such a formula go to the
ground truth.
Export (JAX, PyTorch) computes ``compensated(u)`` without the recompute.
"""

from __future__ import annotations

from sympy import Basic

from .build import replaced
from .compensated import compensated
from .widen import FloatMarker

__all__ = ["certified", "pairs_part"]


class certified(FloatMarker):  # noqa: N801  (reads like the other markers)
    """The value ``u``, computed by generated code in pairs of floats with
    an error bound, and recomputed by the ground truth at the elements
    where the bound does not certify the rounded pair (within about an
    ulp): a zero of ``u`` as deep as the inputs put it.

    Mathematically the identity (proofs and the ground truth see ``u``; its
    derivative is ``u``'s).  A number is itself; another marker inside is
    dropped (``certified`` computes in pairs itself).

    >>> from sympy import symbols, log
    >>> from symgrad import lambdify, compensated
    >>> x, y = symbols("x y")
    >>> e = log(y) - x + 1   # zero on the curve x = log(y) + 1
    >>> args = (1.8467980892790432e-16, 0.3678794411714424)  # 2**-110 of log(y)
    >>> float(lambdify([x, y], compensated(e))(*args))  # pairs: no bit right
    0.0
    >>> float(lambdify([x, y], certified(e))(*args))  # the exact value, rounded
    -8.1105622777879e-34
    """

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_Number:
            return u
        if isinstance(u, FloatMarker):
            return cls(u.args[0])
        return None


def pairs_part(e: Basic) -> Basic:
    """``e`` with each ``certified(u)`` computed as ``compensated(u)``: its
    pairs without the ground truth's recompute (the value certified's bound
    judges; a walk toward the zeros evaluates it, where the recompute would
    be asked at nearly every row: the lead's decision D1, session 15).

    >>> from sympy import symbols, log
    >>> x, y = symbols("x y")
    >>> pairs_part(2 * certified(log(y) - x))
    2*compensated(-x + log(y))
    """
    return replaced(e, lambda n: compensated(n.args[0]) if isinstance(n, certified) else None)
