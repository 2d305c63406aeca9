"""``scaled(u)``: the value ``u`` of a homogeneous formula, evaluated by
generated code on its inputs scaled by a power of two, and scaled back.

Mathematically ``scaled`` is the identity: every proof, the mpmath ground
truth and differentiation see ``u``.  It applies only where ``u`` is
*homogeneous* in its symbols, ``u(t·v) = t**d · u(v)`` for every ``t > 0``
(:func:`homogeneity` proves it from the structure and finds ``d``): the
quadratic formula (``d = 0``), a determinant (``d = n``), a norm or
``atan2`` of differences.  Generated code (:mod:`symgrad.codegen.scaling`)
then picks, per point, an exponent ``k`` from the inputs' exponents
(``numpy.frexp``), computes ``u`` on ``ldexp(v, -k)`` and returns
``ldexp(result, d·k)``.  Multiplying by a power of two is exact in binary
floating point, so every rounding of the scaled computation is the one of
the unscaled computation (relative errors are scale-free) wherever neither
leaves the normal range: the form loses nothing there, and where an
intermediate value of ``u`` overflows (``b*b`` in the quadratic formula for
``|b| > 1.3e154``) or underflows, the scaled one stays in range.  Where
the inputs' exponents are more than the type's range apart, so that no
one power of two keeps every input exact, the factors of ``u``'s top
product are scaled each on its own there; a sum at the top has none, and
its smallest scaled inputs underflow: ``stabilize`` measures the form like
any other.

It is the float form for the exponent range, as :func:`symgrad.compensated`
is for precision: plain NumPy in the working type, on every platform.
"""

from __future__ import annotations

from fractions import Fraction

from sympy import (
    Abs,
    Add,
    Basic,
    Function,
    Matrix,
    Max,
    Min,
    Mul,
    Piecewise,
    Pow,
    Rational,
    Symbol,
    atan2,
    igcd,
    ilcm,
    sign,
)
from sympy.codegen.cfunctions import hypot
from sympy.core.relational import Relational
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.logic.boolalg import And, BooleanFalse, BooleanTrue, Not, Or

from .graph import postorder
from .widen import FloatMarker, widen

__all__ = ["scaled", "homogeneity", "weighted_homogeneity", "degrees", "has_scaled"]

_ANY = "any"  # the degree of 0: every degree


class scaled(FloatMarker):  # noqa: N801  (reads like widen)
    """The value ``u``, computed by generated code on its inputs scaled by
    a power of two chosen per point from their exponents, and scaled back
    by the power its degree of homogeneity gives; plain NumPy in the
    working type.  ``u`` must be homogeneous in its symbols
    (:func:`homogeneity`): anything else is refused.

    Mathematically the identity (proofs and the ground truth see ``u``;
    its derivative is ``u``'s).  A number is itself; a Matrix or list is
    scaled entry by entry; ``scaled(compensated(u))`` computes ``u`` in
    pairs of floats over the scaled inputs (both classes at once: an
    intermediate past the range, and a cancellation).

    >>> from sympy import symbols, sqrt
    >>> from symgrad import lambdify
    >>> a, b, c = symbols("a b c")
    >>> root = 2*c / (-b - sqrt(b*b - 4*a*c))  # accurate for b > 0, until b*b overflows
    >>> args = (1.0, 1e200, 1.0)  # the truth: -1e-200
    >>> float(lambdify([a, b, c], root)(*args))  # b*b is inf
    -0.0
    >>> float(lambdify([a, b, c], scaled(root))(*args))
    -1e-200
    """

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_Number or isinstance(u, scaled):
            return u
        if isinstance(u, widen):
            from .errors import SymgradError

            raise SymgradError(f"scaled({u}): scale the formula inside widen(...) instead "
                               "(a wider type has its own exponent range)")
        if not isinstance(u, Basic) or not u.free_symbols:
            return None
        if weighted_homogeneity(u) is None:
            from .errors import SymgradError

            raise SymgradError(
                f"scaled({u}): the formula is not homogeneous in its symbols, even with a "
                "weight per symbol (u(t**w1*v1, ...) is not t**d * u(v) by its structure), so "
                "scaling its inputs changes its value; use compensated(...) or widen(...) "
                "instead")
        return None


def homogeneity(u: Basic) -> Fraction | None:
    """The degree ``d`` where ``u`` is homogeneous in all its symbols
    (``u(t·v) = t**d · u(v)`` for ``t > 0``), proved from its structure
    (one walk of the DAG), else None:
    a symbol has degree 1, a nonzero number 0, a sum's terms (a ``Max``'s
    arguments, a ``Piecewise``'s values, the two sides of a comparison) one
    degree, a product the sum of its factors', ``v**n`` (``n`` a rational
    number) ``n`` times ``v``'s, ``Abs`` its argument's, ``hypot`` its
    arguments' one degree, ``sign`` and
    ``atan2`` of one degree 0, any other function 0 where its arguments
    are of degree 0.

    >>> from sympy import symbols, sqrt, exp
    >>> a, b, c = symbols("a b c")
    >>> homogeneity((-b + sqrt(b**2 - 4*a*c)) / (2*a))
    Fraction(0, 1)
    >>> homogeneity(a*exp(b/c)), homogeneity(sqrt(a*b)), homogeneity(a + 1)
    (Fraction(1, 1), Fraction(1, 1), None)
    """
    deg = degrees(u)
    if deg is None:
        return None
    top = deg[u]
    if top == _ANY or not u.free_symbols:
        return None
    return top


def degrees(u: Basic, weights: dict | None = None) -> dict | None:
    """The degree of every node of ``u`` (a Fraction, or ``"any"`` for a
    zero), as :func:`homogeneity` proves them, each symbol of degree its
    weight (1 without ``weights``); None where one has none."""
    order, kids = postorder([u], lambda n: n.args)
    deg: dict[Basic, object] = {}
    for n in order:
        if weights is not None and isinstance(n, Symbol):
            deg[n] = Fraction(weights.get(n, 1))
            continue
        got = _degree(n, [deg[k] for k in kids[n]])
        if got is None:
            return None
        deg[n] = got
    return deg


def weighted_homogeneity(u: Basic) -> tuple[dict, Fraction] | None:
    """Integer weights ``w`` (symbol -> int) and the degree ``d`` where
    ``u(t**w1·v1, t**w2·v2, ...) = t**d · u(v)`` for every ``t > 0``, proved
    from the structure: the weights 1 where ``u`` is homogeneous
    (:func:`homogeneity`); else the weights that make the terms of every
    sum (the arguments of a function, the sides of a comparison) of one
    degree, solved as linear equations in the weights.  None where only
    all-zero weights do, or ``u`` has no degree.

    >>> from sympy import symbols, sqrt
    >>> x, y = symbols("x y")
    >>> weighted_homogeneity(sqrt(x*x + y))
    ({x: 1, y: 2}, Fraction(1, 1))
    >>> weighted_homogeneity(x + y) is not None, weighted_homogeneity(x + 1)
    (True, None)
    """
    d = homogeneity(u)
    order, kids = postorder([u], lambda n: n.args)
    syms = sorted((n for n in order if isinstance(n, Symbol)), key=str)
    if d is not None:
        return {s: 1 for s in syms}, d
    if not syms:
        return None
    forms: dict[Basic, object] = {}  # degree as a linear form in the weights
    rows: list[dict] = []  # linear forms that must be 0
    for n in order:
        got = _form(n, [forms[k] for k in kids[n]], rows)
        if got is None:
            return None
        forms[n] = got
    if forms[u] == _ANY:
        return None
    space = Matrix([[Rational(r.get(s, 0).numerator, r.get(s, 0).denominator)
                     if isinstance(r.get(s, 0), Fraction) else r.get(s, 0) for s in syms]
                    for r in rows]).nullspace() if rows else [Matrix([1] * len(syms))]
    if not space:
        return None
    v = sum(space[1:], space[0])  # (every basis vector: as few zero weights as may be)
    den = ilcm(*[Fraction(str(c)).denominator for c in v], 1)
    ints = [int(Fraction(str(c)) * den) for c in v]
    g = abs(igcd(*ints)) or 1
    ints = [i // g for i in ints]
    if next(i for i in ints if i) < 0:
        ints = [-i for i in ints]
    w = dict(zip(syms, ints))
    top = sum((c * w[s] for s, c in forms[u].items()), _ZERO)
    return w, Fraction(top)


def _form(n: Basic, args: list, rows: list) -> object:
    """The degree of ``n`` as a linear form in the symbols' weights (a dict
    symbol -> Fraction; ``"any"`` for a zero), the forms that must vanish
    appended to ``rows``; None where it has none."""

    def same(forms: list) -> object:
        real = [f for f in forms if f != _ANY]
        for f in real[1:]:
            rows.append(_minus(f, real[0]))
        return real[0] if real else _ANY

    if isinstance(n, Symbol):
        return {n: Fraction(1)}
    if n.is_Number or (not n.args and n.is_number):
        if n.is_zero:
            return _ANY
        return {} if n.is_finite else None
    if isinstance(n, (BooleanTrue, BooleanFalse)):
        return _ANY
    if isinstance(n, ExprCondPair):
        return args[0]
    if isinstance(n, Relational):
        same(args)
        return {}
    if isinstance(n, (Add, Max, Min, Piecewise, hypot)):
        return same(args)
    if isinstance(n, (And, Or, Not)):
        return {}
    if isinstance(n, Mul):
        if _ANY in args:
            return _ANY
        out: dict = {}
        for f in args:
            for s, c in f.items():
                out[s] = out.get(s, 0) + c
        return out
    if isinstance(n, Pow):
        base, ex = args
        if n.exp.is_Rational:
            if base == _ANY:
                return _ANY if n.exp > 0 else None
            q = Fraction(int(n.exp.p), int(n.exp.q))
            return {s: q * c for s, c in base.items()}
        for f in (base, ex):
            if f != _ANY:
                rows.append(f)
        return {}
    if isinstance(n, (Abs, FloatMarker)):
        return args[0]
    if isinstance(n, (sign, atan2)):
        same(args)
        return {}
    if isinstance(n, Function):
        for f in args:
            if f != _ANY:
                rows.append(f)
        return {}
    return None


def _minus(a: dict, b: dict) -> dict:
    out = dict(a)
    for s, c in b.items():
        out[s] = out.get(s, 0) - c
    return out


def _same(ds: list) -> object:
    """The one degree of ``ds`` (zeros have every degree), else None."""
    real = {d for d in ds if d != _ANY}
    if len(real) > 1:
        return None
    return real.pop() if real else _ANY


_ZERO = Fraction(0)


def _degree(n: Basic, args: list) -> object:
    if any(a is None for a in args):
        return None
    if isinstance(n, Symbol):
        return Fraction(1)
    if n.is_Number or (not n.args and n.is_number):
        if n.is_zero:
            return _ANY
        return _ZERO if n.is_finite else None
    if isinstance(n, (BooleanTrue, BooleanFalse)):
        return _ANY
    if isinstance(n, ExprCondPair):
        return args[0]
    if isinstance(n, Relational):
        return _ZERO if _same(args) is not None else None
    if isinstance(n, (Add, Max, Min, Piecewise, hypot)):
        return _same(args)
    if isinstance(n, (And, Or, Not)):
        return _ZERO
    if isinstance(n, Mul):
        return _ANY if _ANY in args else sum(args, _ZERO)
    if isinstance(n, Pow):
        base, ex = args
        if n.exp.is_Rational:
            if base == _ANY:
                return _ANY if n.exp > 0 else None
            return Fraction(int(n.exp.p), int(n.exp.q)) * base
        return _ZERO if base == ex == _ZERO else None
    if isinstance(n, (Abs, FloatMarker)):
        return args[0]
    if isinstance(n, (sign, atan2)):
        return None if _same(args) is None else _ZERO
    if isinstance(n, Function):
        return _ZERO if all(a == _ANY or a == 0 for a in args) else None
    return None


def has_scaled(exprs) -> bool:
    """Whether any of ``exprs`` holds a ``scaled`` node (one walk of the DAG)."""
    roots = [e for e in exprs if hasattr(e, "args")]
    order, _ = postorder(roots, lambda n: n.args)
    return any(isinstance(n, scaled) for n in order)
