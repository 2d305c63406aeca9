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

import math
from collections.abc import Iterable

from sympy import (
    Abs,
    And,
    Basic,
    Eq,
    Float,
    GreaterThan,
    Integer,
    LessThan,
    Mul,
    Piecewise,
    Rational,
    S,
    StrictGreaterThan,
    Symbol,
    cosh,
    exp,
    sign,
    sinh,
)
from sympy.codegen.cfunctions import expm1

from ..build import mapped, piecewise, unevaluated
from ..compensated import compensated
from ..graph import postorder
from .facts import Facts
from .forms import Sigmoid, Softplus

__all__ = ["SMALL", "exact_exponents", "rounded_exponent", "split_overflowing_products",
           "split_subnormal_products"]

SMALL = 4.0  # |u| up to this: exp(fl(u)) is off by 2 ulps at most: not worth pairs
_EXP_LIKE = (exp, expm1, Sigmoid, Softplus)


def _exact(u: Basic) -> bool:
    """Whether ``u`` is computed without rounding from the inputs: a
    number, or a power of two times a symbol or its absolute value."""
    coeff, rest = u.as_coeff_Mul()
    if rest.is_Number or rest == 1:
        return True
    if not coeff.is_Rational or coeff == 0:
        return False  # a float or irrational factor rounds
    p, q = abs(coeff.p), coeff.q
    if p & (p - 1) or q & (q - 1):
        return False  # 3*x, x/3 round
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

    # (one pass over all of them: each node's form is a function of the node)
    exprs = list(exprs)
    roots = [e for e in exprs if isinstance(e, Basic)]
    done = iter(mapped(roots, swap=swap))
    return [next(done) if isinstance(e, Basic) else e for e in exprs]


# ---- products of an exponential that is subnormal ---------------------------


_MUL = Mul(Symbol("a"), Symbol("b"))  # the class unevaluated() builds


def _exp_arg(f: Basic) -> tuple[Basic, bool] | None:
    """(e, compensated?) where ``f`` is ``exp(e)`` or ``compensated(exp(e))``."""
    if isinstance(f, compensated) and isinstance(f.args[0], exp):
        return f.args[0].args[0], True
    if isinstance(f, exp):
        return f.args[0], False
    return None


def _half(e: Basic, pairs: bool) -> Basic:
    h = exp(e / 2)
    return compensated(h) if pairs or rounded_exponent(h) else h


def _split(node: Mul, facts: Facts, lo: float) -> Basic:
    """``c·exp(e)`` (``c`` any other factors, not a number below 1) where
    ``exp(e)`` may be subnormal: ``Piecewise((c·exp(e), e >= lo),
    ((c·exp(e/2))·exp(e/2), True))``; a ``Piecewise`` factor one of whose
    values is such an exponential gets the other factors into its branches
    first.  Unchanged where there is nothing to split."""
    factors = list(node.args)
    for i, f in enumerate(factors):
        rest = factors[:i] + factors[i + 1:]
        if isinstance(f, Piecewise) and any(_exp_arg(v) is not None for v, _ in f.args):
            pairs = [(_split_value(rest, v, facts, lo), c) for v, c in f.args]
            if any(isinstance(v, Piecewise) for v, _ in pairs):
                return piecewise(pairs, evaluate=False)
        if _exp_arg(f) is None:
            continue
        out = _split_one(rest, f, facts, lo)
        if isinstance(out, Piecewise):
            return out
    return node


def _splits(f: Basic) -> bool:
    """Whether :func:`_split` may split at factor ``f``."""
    return _exp_arg(f) is not None or (
        isinstance(f, Piecewise) and any(_exp_arg(v) is not None for v, _ in f.args))


def _split_value(rest: list, v: Basic, facts: Facts, lo: float) -> Basic:
    """``Π rest · v`` for a value ``v`` of a ``Piecewise`` factor: split at
    ``v`` (:func:`_split_one`), or where ``v`` is no exponential, at
    another factor of ``rest`` (``σ(2u)·σ(-2u)`` normalized is a product of
    two such ``Piecewise``, each 1 where the other's exponential may be
    subnormal: the mish second derivative at x = 357.8)."""
    if _exp_arg(v) is not None or not any(_splits(f) for f in rest):
        return _split_one(rest, v, facts, lo)
    whole = _product([*rest, v])
    return _split(whole, facts, lo) if isinstance(whole, Mul) else whole


def _split_one(rest: list, f: Basic, facts: Facts, lo: float) -> Basic:
    """``Π rest · f`` split as in :func:`_split` where ``f`` is an
    exponential that may be subnormal and a factor of ``rest`` may be large
    (a ``Piecewise``); the product as written where not."""
    got = _exp_arg(f)
    whole = _product([*rest, f])
    if got is None or not rest:
        return whole
    e, pairs = got
    c = facts.bound(_product(rest))
    if c is not None and max(abs(c[0]), abs(c[1])) <= 2:
        # at most 2 times a subnormal (1/(1 + exp(x))**2 beside the sigmoid's
        # exp(x)): off by 1.5 units of the grid at most, nothing to gain
        return whole
    b = facts.bound(e)
    if b is not None and b[0] >= lo:
        return whole  # exp(e) is never subnormal on the domain
    h = _half(e, pairs)
    far = unevaluated(_MUL, [_product([*rest, h]), h])
    return piecewise([(whole, e >= lo), (far, True)], evaluate=False)


def _product(factors: list) -> Basic:
    """The product of ``factors`` as written (a factor 1 dropped)."""
    factors = [f for f in factors if f != 1] or [factors[0]]
    return factors[0] if len(factors) == 1 else unevaluated(_MUL, factors)


def _split_before(n: Basic, lo: float) -> bool:
    """Whether ``n`` is a split this pass made: ``Piecewise((..., e >= lo),
    (..., True))``."""
    if not isinstance(n, Piecewise) or len(n.args) != 2 or n.args[1].cond is not S.true:
        return False
    cond = n.args[0].cond
    return isinstance(cond, GreaterThan) and cond.rhs.is_Number and float(cond.rhs) == lo


def split_subnormal_products(exprs: Iterable[Basic], facts: Facts | None = None,
                             lo: float = -708.3964185322641) -> list[Basic]:
    """``exprs`` with each product ``c·exp(e)`` whose exponential may be
    subnormal (``e < lo``, log of the smallest normal float: float64's
    by default) beside a factor that may be large, as ``(c·exp(e/2))·exp(e/2)``
    there: ``exp(e)`` rounded to the subnormal grid first loses up to all its
    bits of a product that is much larger (the derivative of ``x·σ(x)`` at
    x = -744 is ``x·exp(x)`` ≈ -5.7079e-321, and ``exp(-744)`` rounds to
    1e-323, two units of the grid); the halves are normal, and only the product rounds
    to the grid.  One bottom-up pass over the DAG; built unevaluated.

    >>> from sympy import symbols, exp
    >>> from symgrad import lambdify
    >>> x = symbols("x", real=True)
    >>> f = split_subnormal_products([x * exp(x)])[0]
    >>> float(lambdify([x], x * exp(x))(-744.0)), float(lambdify([x], f)(-744.0))
    (-7.35e-321, -5.706e-321)
    """
    exprs = split_overflowing_products(exprs, facts, _HI[lo > _F32_LO])
    facts = facts or Facts()
    # (a compensated node is computed in pairs; a split made before, by this
    # pass on a candidate that stabilize splits again, is kept as it is: its
    # first branch holds where exp(e) is normal, and its halves were split a
    # second time into quarters, a third exp in every evaluation of the GELU
    # gradient, for products that underflow to 0 anyway)
    def kept(n: Basic) -> bool:
        return isinstance(n, compensated) or _split_before(n, lo)

    order, _ = postorder(exprs, lambda n: () if kept(n) else n.args)
    if not any(_exp_arg(n) is not None for n in order):
        return exprs
    return mapped(exprs, swap=lambda n: n if kept(n) else None,
                  after=lambda cur: _split(cur, facts, lo) if isinstance(cur, Mul) else cur)


# the log of the largest float: float64's, float32's (keyed by lo > float32's
# log of its smallest normal, the lo split_subnormal_products is given)
_F32_LO = math.log(1.1754943508222875e-38) - 1
_HI = {False: math.log(1.7976931348623157e308), True: math.log(3.4028234663852886e38)}


def split_overflowing_products(exprs: Iterable[Basic], facts: Facts | None = None,
                               hi: float = _HI[False]) -> list[Basic]:
    """``exprs`` with each product ``c·f`` (``f`` one of ``exp(e)``,
    ``sinh(e)``, ``cosh(e)``) whose ``f`` may overflow (``|e| > hi``, log of
    the largest float) beside factors ``c`` that may be small, as
    ``Piecewise((c·f, |e| <= hi), (0, Eq(c, 0)), (far, True))`` (``c`` of other
    variables than ``e``: small on its own, not with f's scale) where far is
    ``(c·E)·E`` with ``E = exp(|e|/2)`` (four factors ``exp(|e|/4)`` past
    ``|e| = 2 hi``, where a product of a subnormal and exp(e) is still a
    float), times sinh's sign and ``(1 ∓ exp(-2|e|))/2``:
    ``f`` past the range is inf, and the product inf or NaN, where its value
    is a float (the complex sine's ``-sin(re)·sinh(im)`` at re = 4.3e-263,
    im = 802.8: -inf, true -9.5e85; and 0·inf at re = 0).  ``far`` is
    computed ``2**-32`` times its value and scaled back, and where it is past
    the largest float by less than its own rounding error it is that float
    (:func:`_saturated`).  Each branch equals the product.  One bottom-up pass
    over the DAG; built unevaluated.

    >>> from sympy import symbols, sin, sinh
    >>> from symgrad import lambdify
    >>> x, y = symbols("x y", real=True)
    >>> f = split_overflowing_products([sin(x) * sinh(y)])[0]
    >>> [float(lambdify([x, y], f)(*p)) for p in ((4.3e-263, 802.8), (0.0, 1e308), (0.5, 2.0))]
    [9.639367362879346e+85, 0.0, 1.7388095044743164]
    >>> float(lambdify([x, y], f)(-6.440501585491352e-250, -1284.2595268994262))  # the largest
    1.7976931348623157e+308
    """
    exprs = list(exprs)
    facts = facts or Facts()

    def kept(n: Basic) -> bool:
        return isinstance(n, compensated) or _over_before(n, hi)

    order, _ = postorder(exprs, lambda n: () if kept(n) else n.args)
    if not any(isinstance(n, (exp, sinh, cosh)) for n in order):
        return exprs
    return mapped(exprs, swap=lambda n: n if kept(n) else None,
                  after=lambda cur: _over(cur, facts, hi) if isinstance(cur, Mul) else cur)


def _over(node: Mul, facts: Facts, hi: float) -> Basic:
    factors = list(node.args)
    for i, f in enumerate(factors):
        if not isinstance(f, (exp, sinh, cosh)):
            continue
        rest = factors[:i] + factors[i + 1:]
        if not rest:
            continue
        e = f.args[0]
        b = facts.bound(e)
        if b is not None and (b[1] if isinstance(f, exp) else max(-b[0], b[1])) <= hi:
            continue  # never overflows on the domain
        c = _product(rest)
        if not c.free_symbols or c.free_symbols & e.free_symbols:
            # a constant, or a factor whose size goes with f's own (x·exp(x), or
            # x·exp(x)/(1 + exp(x))², expsums' case): only a factor small on its
            # own, independently of f, makes a finite product of an inf
            continue
        bc = facts.bound(c)
        if bc is not None and min(abs(bc[0]), abs(bc[1])) >= 1 and bc[0] * bc[1] > 0:
            continue  # |c| >= 1: the product overflows with f
        a = e if isinstance(f, exp) else Abs(e)
        half, quarter = exp(a / 2), exp(a / 4)  # (a/2, a/4 exact)
        # (sinh's and cosh's 1/2 in the last factor, exactly: the product
        # before it is twice the value, past the range where the value is not;
        # the value 2**-_K times itself, scaled back at the end: _saturated)
        down = Rational(1, 2 ** _K) if isinstance(f, exp) else Rational(1, 2 ** (_K + 1))
        last = lambda v, d=down: unevaluated(_MUL, [v, d])  # noqa: E731
        far = unevaluated(_MUL, [_product([c, half]), last(half)])
        fourth = _product([c, quarter])
        for i in range(3):
            fourth = unevaluated(_MUL, [fourth, last(quarter) if i == 2 else quarter])
        far = piecewise([(far, LessThan(a, 2 * hi)), (fourth, True)], evaluate=False)
        if isinstance(f, sinh):
            far = unevaluated(_MUL, [sign(e), far, -expm1(-2 * a)])
        elif isinstance(f, cosh):
            far = unevaluated(_MUL, [far, 1 + exp(-2 * a)])
        return piecewise([(node, LessThan(a, hi)), (S.Zero, Eq(c, 0)),
                          (_saturated(far, hi), True)], evaluate=False)
    return node


# the far branch is computed 2**-_K times its value (its exponentials are at
# least exp(hi/2), 2**63 in float32: the scaling is exact, no factor underflows)
_K = 32
# the far branch's rounding error, relative, at most (two exponentials, up to
# five products, expm1's factor): 8 ulps, where its value is within them of
# the largest float it is that float (float64, float32 by their hi)
_BAND = {_HI[False]: (1.7976931348623157e308, 2.0 ** -50),
         _HI[True]: (3.4028234663852886e38, 2.0 ** -21)}


def _saturated(v: Basic, hi: float) -> Basic:
    """``v·2**_K`` from ``v``, the far branch's value scaled down: the
    scaling back rounds only at the overflow threshold, and a value past it
    by less than the branch's own rounding error (:data:`_BAND`) is the
    largest float, not inf: the truth may be below the threshold (the
    complex sine at re = 6.440501585491352e-250, im = -1284.2595268994262 is
    1.7976931348623157362e308, the largest float, and the product of two
    rounded exponentials was inf).  Where the value is far past it, inf."""
    big, rel = _BAND.get(hi, _BAND[_HI[False]])
    lo_t = big * 2.0 ** -_K  # exact: a power of two times a float
    hi_t = lo_t * (1 + rel)
    m = Abs(v)
    band = And(StrictGreaterThan(m, Float(lo_t, 20)), LessThan(m, Float(hi_t, 20)))
    return piecewise([(unevaluated(_MUL, [sign(v), Float(big, 20)]), band),
                      (unevaluated(_MUL, [v, Integer(2 ** _K)]), True)], evaluate=False)


def _over_before(n: Basic, hi: float) -> bool:
    """Whether ``n`` is a split :func:`split_overflowing_products` made."""
    if not isinstance(n, Piecewise) or len(n.args) != 3 or n.args[2].cond is not S.true:
        return False
    cond = n.args[0].cond
    return isinstance(cond, LessThan) and cond.rhs.is_Number and float(cond.rhs) == hi
