"""Is a rule linear in its cotangents (or tangents)?

A VJP serves forward mode, and a JVP reverse mode, only through linearity:
the partials are the rule's answers at the unit vectors.  A rule that clips
its cotangent is not linear, and reading partials off it would give a
silently different derivative in the other mode.  So before a rule is used
in the mode it was not written for, its traced answer ``c(d)`` (a formula in
the input dummies and the cotangent dummies ``d``) is checked:

    c(d) - Σₖ dₖ · c(eₖ) = 0

exactly where SymPy sees it, else at a few fixed points at 30 digits, else
(no point evaluates to a real number) by the answer being a polynomial of
degree one in ``d``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sympy import Dummy, Expr, Float, Rational, S

__all__ = ["nonlinear_witness"]

# Cotangent values spanning signs and magnitudes around 1, so that clipping
# to [-1, 1] or by norm shows; input values away from 0 and of both signs.
_D = (Rational(37, 10), Rational(-29, 10), Rational(7, 20), Rational(113, 4), Rational(-3, 8))
_X = (Rational(13, 10), Rational(-7, 10), Rational(5, 2), Rational(3, 10), Rational(-19, 10))
_TOL = Float("1e-20", 30)


def _point(j: int, inputs: Sequence[Dummy], dvars: Sequence[Dummy]) -> dict:
    pt = {v: _X[(3 * i + j) % len(_X)] for i, v in enumerate(inputs)}
    pt.update({v: _D[(2 * k + j) % len(_D)] for k, v in enumerate(dvars)})
    return pt


def _real(e: Expr) -> Float | None:
    v = e.evalf(30)
    if v.is_Number and v.is_finite and v.is_real:
        return v
    return None


def _linear_at_points(defect: Expr, value: Expr, inputs, dvars) -> bool | None:
    """True/False where some point decides, None if none evaluates."""
    decided = None
    for j in range(len(_D)):
        pt = _point(j, inputs, dvars)
        d, v = _real(defect.xreplace(pt)), _real(value.xreplace(pt))
        if d is None or v is None:
            continue
        if abs(d) > _TOL * (1 + abs(v)):
            return False
        decided = True
    return decided


def _degree_one(c: Expr, dvars: Sequence[Dummy]) -> bool:
    zero = dict.fromkeys(dvars, S.Zero)
    if c.xreplace(zero) != 0:
        return False
    return all(c.diff(a).diff(b) == 0 for a in dvars for b in dvars)


def nonlinear_witness(
    answers: Sequence[Expr | None], dvars: Sequence[Dummy], inputs: Sequence[Dummy]
) -> int | None:
    """The index of an answer that is not linear in ``dvars``, or None.

    >>> from sympy import Dummy, Max, Min
    >>> d, a = Dummy("d"), Dummy("a")
    >>> nonlinear_witness([d * a, 3 * d], [d], [a]) is None
    True
    >>> nonlinear_witness([d * a, Max(Min(d, 1), -1)], [d], [a])
    1
    """
    units = []
    for k in range(len(dvars)):
        units.append({v: (S.One if i == k else S.Zero) for i, v in enumerate(dvars)})
    for i, c in enumerate(answers):
        if c is None or c is S.Zero:
            continue
        linear = sum((dvars[k] * c.xreplace(u) for k, u in enumerate(units)), S.Zero)
        defect = c - linear
        if defect == 0:
            continue
        verdict = _linear_at_points(defect, c, inputs, dvars)
        if verdict is None:
            verdict = _degree_one(c, dvars)
        if not verdict:
            return i
    return None
