"""Products of a value and its sign, as its absolute value; products of
a step, as a selection.

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

The derivative of ``Max(0, u)`` or ``Min(0, u)`` is a step
``Heaviside(±u)·u'``: a gradient holds products ``Heaviside(a)·b`` whose
other factors may overflow where the step is 0 (celu's
``exp(x/2)·Heaviside(2 - 2·exp(x/2))`` past x = 177 in float32): ``0·inf``
is NaN where the value is 0.  :func:`select_steps` writes each such
product as ``Piecewise((0, a < 0), (Heaviside(a)·b, True))``: the same
value wherever ``b`` is finite (the same rounded ``a`` decides), and 0,
not NaN, where it is not.  A step depends on its argument's sign alone,
so the argument is first reduced to the innermost value with the same
sign (:func:`sign_core`: ``2 - 2·exp(x/2)`` has the sign of ``-x``): the
step is then decided on an exact input, not on a value that rounds to 0
where it is not (``x/2`` of the smallest subnormal is 0, and the step's
``Heaviside(0) = 1/2`` made celu's gradient 1.5 instead of 1).
"""

from __future__ import annotations

from collections.abc import Iterable

from sympy import (
    Abs,
    Add,
    Basic,
    Heaviside,
    Integer,
    Lt,
    Mul,
    Pow,
    asinh,
    atan,
    erf,
    exp,
    sign,
    sinh,
    tanh,
)
from sympy.codegen.cfunctions import expm1

from ..build import evaluated, mapped, piecewise
from ..graph import postorder

__all__ = ["fold_signs", "select_steps", "sign_core"]

# odd, increasing functions: f(u) has the sign of u
_SAME_SIGN = (expm1, sinh, tanh, atan, asinh, erf)


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
    with ``|u|`` (one bottom-up pass over the DAG): ``u*sign(u)`` is
    ``|u|`` on every float, exactly.  In a longer product the generated
    code computes a quotient first (``3*x*(sign(x)/(1 + |x|))``, folded
    ``3*(|x|/(1 + |x|))``): the folded product rounds in another order
    (an ulp apart at x = 1.5), and is finite where the product as written
    overflows in an intermediate (3.0 at the largest float, not inf).

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
    order, _ = postorder(exprs, lambda n: n.args)
    if not any(isinstance(n, sign) for n in order):
        return exprs
    return _each_product(exprs, _fold)


def _each_product(exprs: list, fn) -> list:
    """``exprs`` rebuilt bottom up (build.mapped), ``fn`` applied to each
    product once its arguments are."""
    def hook(node: Basic, args: tuple) -> Basic:
        changed = any(a is not b for a, b in zip(args, node.args))
        cur = evaluated(node, args) if changed else node
        return fn(cur) if isinstance(cur, Mul) else cur
    return mapped(exprs, evaluated, hook=hook)


def sign_core(a: Basic) -> Basic:
    """The innermost value with the sign of ``a`` (0 where ``a`` is 0), for
    real ``a``: positive constant factors dropped (a negative one made -1),
    odd increasing functions (``expm1``, ``sinh``, ``tanh``, ``atan``,
    ``asinh``, ``erf``) and ``c - c·exp(u)`` (the sign of ``-c·u``) seen
    through.

    >>> from sympy import symbols, exp, tanh
    >>> x = symbols("x", real=True)
    >>> sign_core(2 - 2 * exp(x / 2)), sign_core(3 * tanh(x - 1))
    (-x, x - 1)
    """
    neg = False
    while True:
        if isinstance(a, Mul):
            c, rest = a.as_coeff_Mul()
            if c.is_number and c != 1 and c.is_nonzero and rest != 1:
                neg ^= bool(c.is_negative)
                a = rest
                continue
        if isinstance(a, _SAME_SIGN) and len(a.args) == 1:
            a = a.args[0]
            continue
        if isinstance(a, Add) and len(a.args) == 2:
            k, t = a.args if a.args[0].is_number else a.args[::-1]
            m, e = t.as_coeff_Mul()
            if k.is_number and k.is_nonzero and isinstance(e, exp) and k + m == 0:
                neg ^= bool(m.is_negative)
                a = e.args[0]
                continue
        break
    return -a if neg else a


def select_steps(exprs: Iterable[Basic]) -> list[Basic]:
    """``exprs`` with every product of a step ``Heaviside(a)`` and factors
    that are not numbers selected: ``Piecewise((0, a < 0), (product,
    True))`` (one bottom-up pass over the DAG).  Equal wherever the other
    factors are finite, and 0 where the step is and they overflowed (where
    the product gave NaN).

    >>> import numpy as np
    >>> from sympy import symbols, exp, Heaviside
    >>> from symgrad import lambdify
    >>> x = symbols("x", real=True)
    >>> d = exp(x / 2) * Heaviside(2 - 2 * exp(x / 2))  # in celu's gradient
    >>> s = select_steps([d])[0]
    >>> s
    Piecewise((0, -x < 0), (exp(x/2)*Heaviside(-x), True))
    >>> at = np.float32(200)
    >>> lambdify([x], d, dtype="float32")(at), lambdify([x], s, dtype="float32")(at)
    (np.float32(nan), np.float32(0.0))
    """
    exprs = list(exprs)
    order, _ = postorder(exprs, lambda n: n.args)
    if not any(isinstance(n, Heaviside) for n in order):
        return exprs
    return _each_product(exprs, _select)


def _select(node: Mul) -> Basic:
    steps = [f for f in node.args if isinstance(f, Heaviside)]
    if not steps or all(f.is_number or isinstance(f, Heaviside) for f in node.args):
        return node
    out = node
    for h in steps:
        a = h.args[0]
        if a.is_number:
            continue
        core = sign_core(a)
        if core != a:
            step = Heaviside(core, *h.args[1:])
            out = Mul(*(step if f == h else f for f in out.args))
            a = core
        # as written (SymPy would make 2 - 2*exp(u) < 0 into exp(u) > 1): the
        # same rounded value of a decides as in the step itself
        out = piecewise([(Integer(0), Lt(a, 0, evaluate=False)), (out, True)], evaluate=False)
    return out
