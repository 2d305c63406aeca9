"""A formula of several variables that is affine in one of them, split
about a centre of that variable where its terms cancel (issue 17 §3).

The gradients of losses over a label or a weight ``y`` are affine in it:
the focal loss's ``d/dx`` is ``(1 - y)·F(x) - y·F(-x)`` (a positive
``F``), whose forms cancel wherever ``y`` is near 1/2 and ``x`` near 0
(the float32 gradient lost 5.5 bits at ``x = 0.0007, y = 0.511``, every
form of the rewrites computing the terms ``y·e^{3x}`` and ``e^{3x}`` apart).
Written about a centre ``c`` of ``y``,

    e(x, y) = e(x, c) + (y - c)·∂e/∂y(x),

the cancellation that follows from ``y`` being near ``c`` is exact:
``y - c`` is computed exactly for ``y`` within a factor 2 of ``c``
(Sterbenz), and ``e(x, c)`` and ``∂e/∂y`` are formulas of fewer variables,
which stabilize's one-variable machinery (its rewrites, series at zeros)
makes accurate on their own.  What is left is the formula's own zero
curve, where ``e(x, c)`` and ``(y - c)·∂e/∂y`` cancel: no float formula
keeps those bits.  The centre is a number of few bits near where the best
form loses (:func:`centre`); regimes place it.
"""

from __future__ import annotations

import math

import numpy as np
from sympy import Expr, Rational, Symbol, diff

from ..graph import count_ops, free_symbols

__all__ = ["affine_slope", "centre", "about"]

AFFINE_OPS = 600  # formulas larger than this are not split (diff and subs walk them)
CENTRE_BITS = 3  # significant bits of a centre


def affine_slope(e: Expr, s: Symbol) -> Expr | None:
    """``∂e/∂s`` where ``e`` is affine in ``s`` (the slope free of ``s``,
    not 0; a constant slope too: ``sigmoid(x) - y`` cancels near x = 0,
    y = 1/2 as written) and holds another variable; None otherwise, or
    where ``e`` is larger than :data:`AFFINE_OPS` operations.

    >>> from sympy import symbols, exp
    >>> x, y = symbols("x y", real=True)
    >>> affine_slope((1 - y) * exp(x) - y * exp(-x), y)
    -exp(x) - exp(-x)
    >>> affine_slope(y * y * exp(x), y) is None
    True
    >>> affine_slope(1 / (1 + exp(-x)) - y, y)
    -1
    """
    free = free_symbols([e])
    if s not in free or len(free) < 2 or count_ops([e]) > AFFINE_OPS:
        return None
    b = diff(e, s)
    if b == 0 or s in free_symbols([b]):
        return None  # constant in s, or not affine in it
    return b


_TINY = float(np.finfo(np.float64).tiny)  # the smallest normal float64


def centre(values: np.ndarray) -> Rational | None:
    """A number of :data:`CENTRE_BITS` significant bits nearest the median of
    ``values`` (the variable at the points where the best form loses), so
    that ``s - centre`` is exact within a factor 2 of it; None where the
    median is 0, subnormal or not finite (about 0 the split is the formula
    itself).

    >>> centre(np.array([0.49, 0.511, 0.52]))
    1/2
    >>> centre(np.array([-3.1, -2.9]))
    -3
    >>> centre(np.array([1e-323, 1.5e-323])) is None  # subnormal: about 0
    True
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return None
    m = float(np.median(v))
    if abs(m) < _TINY or not math.isfinite(m):
        # (0, or a subnormal median, whose split is about 0 too: its centre's
        # powers in the parts overflowed, 2.0**1080 and integers past floats,
        # and stabilize raised OverflowError on FPBench's 9-variable
        # matrixDeterminant once the search drew subnormal rows at the box's
        # ends, d87cc20)
        return None
    e = math.frexp(abs(m))[1] - CENTRE_BITS  # |m| = f * 2**e', f in [0.5, 1)
    r = Rational(round(math.ldexp(abs(m), -e))) * Rational(2) ** e
    return r if m > 0 else -r


def about(e: Expr, s: Symbol, c: Rational) -> Expr:
    """``e`` with ``s`` set to the centre ``c`` (a formula of the other
    variables).

    >>> from sympy import symbols, exp, S
    >>> x, y = symbols("x y", real=True)
    >>> about((1 - y) * exp(x) - y * exp(-x), y, S.Half) == (exp(x) - exp(-x))/2
    True
    """
    return e.subs(s, c)  # (a formula of at most AFFINE_OPS operations)
