"""Taylor polynomials about a point where a formula cancels: its zero
crossings (issue 17: the GELU gradient, ``Φ(x) + x·φ(x)``, keeps 5.9 bits
at its zero x = -0.7518 in float64, whatever form it is written in).

A root ``c`` of ``f`` is found in mpmath at high precision
(:func:`root_near`); it is rarely a float.  The polynomial is expanded
about ``c_hi``, the float nearest ``c`` in the working dtype, in
``t = x - c_hi``, which is exact near ``c`` (Sterbenz: x within a factor
of 2 of ``c_hi``), with the coefficients ``f⁽ᵏ⁾(c_hi)/k!`` computed in
mpmath and rounded once.  The constant term ``f(c_hi)`` is not 0: it is
the value at the float ``c_hi`` itself, tiny and kept to full relative
precision.  At any other float ``x = c_hi + t``, ``|t| ≥ ulp(c_hi)`` and
``|f(c_hi)| ≤ |f'(c)|·ulp/2`` (c is within half an ulp of c_hi), so the
sum ``f(c_hi) + f'(c_hi)·t`` cancels at most a factor 2: no bit is lost to
the root not being a float.  (Expanding about ``c`` itself would need
``t = (x - c_hi) - c_lo``, a two-float constant SymPy folds into one.)
How far from ``c`` the polynomial is accurate is for the caller to measure
(stabilize bisects it against the ground truth and keeps it in a regime).
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
from sympy import Add, Expr, Float, Function, Mul, Symbol, lambdify

from ..graph import count_ops, free_symbols, postorder

__all__ = ["mpmath_function", "root_near", "exact_root", "taylor_about", "cauchy_coefficients",
           "horner", "one_argument", "series_radius"]

DPS = 60  # decimal digits of the root's arithmetic
COEFF_DPS = 30  # of the coefficients' (mpmath's differences raise it as they need)


def _by_evalf(cls: type) -> Callable:
    def value(*args):
        dps = mpmath.mp.dps
        return mpmath.mpmathify(cls(*[Float(a, dps + 5) for a in args]).evalf(dps + 5))
    return value


def mpmath_function(args: list, e: Expr) -> Callable:
    """``e`` as an mpmath function of ``args`` (SymPy's mpmath lambdify),
    symgrad's own functions that mpmath does not have (``erfcx``,
    ``betaln``, ...) evaluated by their ``evalf`` at the working precision,
    where SymPy's printer would name a function mpmath lacks (a NameError
    at the first call).

    >>> from sympy import Symbol, exp
    >>> from symgrad.rewrites.forms import erfcx
    >>> x = Symbol("x")
    >>> f = mpmath_function([x], erfcx(x) * exp(x))
    >>> print(mpmath.nstr(f(mpmath.mpf(30)), 12))
    200861788555.0
    >>> with mpmath.workdps(40):  # at the working precision
    ...     abs(f(30) / (mpmath.exp(930) * mpmath.erfc(30)) - 1) < mpmath.mpf(10) ** -38
    True
    """
    order, _ = postorder([e], lambda n: n.args)
    own = {type(n).__name__: _by_evalf(type(n)) for n in order
           if isinstance(n, Function) and "_eval_evalf" in vars(type(n))
           and not hasattr(mpmath, type(n).__name__)}
    return lambdify(args, e, modules=[own, _GUARDED, "mpmath"])


# Functions whose mpmath evaluation takes memory and time in proportion to the
# binary exponent of their argument (exp's integer part, the trigonometric
# functions' reduction by pi, erf's exp(-x**2)): at an argument past
# 2**HUGE_MAG, an OverflowError, which every caller takes as "no value here".
# (A Cauchy circle of radius 5e13 about a zero of
# exp(-sin(2*y*cosh(1))**2)*cos(2*y*cosh(1)) at y ~ 1e14 put exp(1e14) into
# exp: a MemoryError out of stabilize.)
HUGE_MAG = 2**20


def _guarded(f: Callable) -> Callable:
    def g(*a):
        if any(mpmath.mag(v) > HUGE_MAG for v in a
               if isinstance(v, (mpmath.mpf, mpmath.mpc))):
            raise OverflowError(f"{f.__name__} of a number past 2**{HUGE_MAG}")
        return f(*a)

    g.__name__ = f.__name__
    return g


_GUARDED = {name: _guarded(getattr(mpmath, name)) for name in (
    "exp", "expm1", "sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh",
    "sech", "csch", "coth", "sinc", "erf", "erfc", "erfi", "gamma", "loggamma",
    "rgamma", "digamma", "polygamma", "zeta", "besselj", "bessely", "besseli", "besselk")
    if hasattr(mpmath, name)}


class _Strayed(Exception):
    """The secant iteration left the neighbourhood of its start."""


def root_near(f: Callable, x0: float, width: float) -> mpmath.mpf | None:
    """A root of ``f`` (an mpmath function of one variable) within
    ``width`` of ``x0``, to :data:`DPS` digits, or None where the secant
    iteration does not converge to one there.

    >>> import mpmath
    >>> float(root_near(lambda x: mpmath.erf(x) + x / 2 - mpmath.mpf(1) / 3, 0.0, 1.0))
    0.20671699627931...
    """
    far = 64 * (width + 1)  # an iterate this far off finds no root within width

    def bounded(x):
        if abs(x - x0) > far:  # (exp(exp(-x)) at a huge -x: mpmath's mantissa fills memory)
            raise _Strayed
        return f(x)

    with mpmath.workdps(DPS):
        try:
            c = mpmath.findroot(bounded, mpmath.mpf(x0), tol=mpmath.mpf(10) ** (-DPS + 10))
        except (ValueError, ZeroDivisionError, TypeError, OverflowError, _Strayed):
            return None
        if not isinstance(c, mpmath.mpf) or not mpmath.isfinite(c) \
                or abs(c - x0) > width:
            return None
        scale = max(abs(f(c + mpmath.mpf(2) ** -40 * (1 + abs(c)))), mpmath.mpf(10) ** -DPS)
        if abs(f(c)) > scale * mpmath.mpf(2) ** -60:
            return None  # not a root: where the iteration stopped, f is not small
        return c


SNAP = 12  # a root within 10^-SNAP (relatively) of a simple number where f vanishes is it
_DENOMINATORS = 12  # simple numbers: 0, integers, and p/q for q up to this


def exact_root(f: Callable, c: mpmath.mpf) -> mpmath.mpf | None:
    """The simple number (0, an integer, ``p/q`` with ``q <= 12``) within
    ``10^-SNAP`` (relatively) of the numerical root ``c`` of ``f`` where
    ``f`` vanishes exactly (its value shrinks with the working precision)
    or is undefined (a removable singularity: ``1/x - 1/tan(x)`` at 0);
    None where there is none.  (A multiple root, ``x - sin(x)`` at 0,
    comes out of the secant iteration only to about ``10^-17``.)

    A root found by iteration is exact only to its tolerance: the root of
    ``1/x - 1/tan(x)`` at 0 came out as ``-2.5e-309``, a subnormal, and the
    series about it had a constant term ``f(c)`` no working precision
    resolves (``x/3`` of 1/x's ``1e308``: 620 digits).  About the exact
    root the constant term is 0.

    >>> import mpmath
    >>> exact_root(lambda x: 1 / x - 1 / mpmath.tan(x), mpmath.mpf("-2.5e-309"))
    mpf('0.0')
    >>> exact_root(lambda x: x * x - 2, mpmath.sqrt(2)) is None
    True
    >>> exact_root(lambda x: mpmath.sin(mpmath.pi * x), mpmath.mpf(3) + mpmath.mpf(10) ** -55)
    mpf('3.0')
    """
    with mpmath.workdps(DPS):
        simple = [mpmath.mpf(0), mpmath.nint(c)]
        simple += [mpmath.nint(c * q) / q for q in range(2, _DENOMINATORS + 1)]
        for s in simple:
            if abs(c - s) > mpmath.mpf(10) ** -SNAP * max(1, abs(s)):
                continue
            return s if _vanishes(f, s) else None
    return None


def _vanishes(f: Callable, s: mpmath.mpf) -> bool:
    """Whether ``f(s)`` is 0 or undefined: what mpmath computes there
    shrinks with the working precision (rounding of a zero: ``sin(3π)``),
    or is exactly 0, NaN, or raises; a number that stays is not 0."""
    vals = []
    for dps in (DPS, 2 * DPS):
        with mpmath.workdps(dps):
            try:
                v = f(s)
            except (ValueError, ZeroDivisionError, TypeError, OverflowError):
                return True  # undefined exactly there: its limit is the root's 0
            if v == 0 or not mpmath.isfinite(v):
                return True
            vals.append(abs(v))
    return vals[1] < vals[0] * mpmath.mpf(10) ** (-DPS // 2)


def taylor_about(f: Callable, at: float, terms: int,
                 radius: float | None = None, root: bool = False) -> list[float] | None:
    """``f(at + t) = Σ a_k t^k``: the first ``terms`` coefficients, computed
    in mpmath about the float ``at`` (exact), each rounded to a float once;
    None where they are not finite numbers.  With a ``radius`` (how far the
    polynomial will be used), they are first taken from Cauchy's integral
    (:func:`cauchy_coefficients`), which evaluates ``f`` at working precision
    only; where that does not hold, from mpmath's differences at
    :data:`COEFF_DPS` digits, whose working precision grows with the order.
    With ``root`` (``at`` is an exact root, :func:`exact_root`), the
    constant term is 0, and the coefficients come from Cauchy's integral
    only (``f`` may be undefined at ``at`` itself).

    >>> import mpmath
    >>> taylor_about(mpmath.exp, 0.0, 4)
    [1.0, 1.0, 0.5, 0.16666666666666666]
    >>> taylor_about(mpmath.exp, 0.0, 4, radius=1.0)
    [1.0, 1.0, 0.5, 0.16666666666666666]
    """
    cs = cauchy_coefficients(f, at, terms, radius) if radius else None
    if cs is None and root:
        return None
    if root:
        out = [float(c) for c in cs]
        out[0] = 0.0
        return out if all(map(_finite, out)) else None
    if cs is None:
        with mpmath.workdps(COEFF_DPS):
            try:
                cs = mpmath.taylor(f, mpmath.mpf(at), terms - 1)
            except (ValueError, ZeroDivisionError, TypeError, OverflowError):
                return None
    out = [float(c) for c in cs]
    # the constant term, f(at) at a root's float, is all cancellation (17 digits
    # of f's terms at least): at as many digits as it takes to round it twice alike
    prev = None
    for dps in (DPS, 2 * DPS, 4 * DPS):
        with mpmath.workdps(dps):
            try:
                v = float(f(mpmath.mpf(at)))
            except (ValueError, ZeroDivisionError, TypeError, OverflowError):
                return None
        if v == prev:
            break
        prev = v
    out[0] = v
    return out if all(map(_finite, out)) else None


_NODES = 64  # points on each circle: the aliased terms are (r/R)^64 of each
_AGREE = mpmath.mpf(2) ** -56  # two circles' coefficients agree to this, relatively
_FLOOR = mpmath.mpf(2) ** -60  # or their difference is this of the linear term's


def cauchy_coefficients(f: Callable, at: float, terms: int,
                        radius: float) -> list | None:
    """The first ``terms`` Taylor coefficients of ``f`` about ``at`` from
    Cauchy's integral, ``a_k = (1/N)·Σ_j f(at + r·ω^j)·ω^(-jk)/r^k`` over
    ``N`` = 64 points of a circle of radius ``r``, or None; for a
    polynomial to be used as far as ``radius`` from ``at``.

    Each ``f(at + r·ω^j)`` is one evaluation at :data:`DPS` digits, so a
    function whose mpmath evaluation slows at high precision (the gamma
    family: mpmath's differences for 32 terms of ``loggamma`` run it at
    about 3,800 bits, 6.5 s) costs milliseconds.  Within the disk where
    ``f`` is holomorphic (radius ``R``) the sum's error is the aliased
    terms, ``(r/R)^64`` of each coefficient, and the rounding, ``10^-60``
    of ``f`` over ``r^k``.  So the sum is taken on two circles, ``r`` and
    ``3r/4`` from ``r = radius/8``, halved until they agree (four times at
    most), and kept where for every ``k`` the two agree (and are real) to
    ``2^-56`` of ``a_k`` or to a difference whose term at ``radius``,
    ``δ·radius^(k-1)``, is ``2^-60`` of ``|a_1|`` (at any ``t`` within the
    radius the polynomial's error is then ``2^-60·|a_1·t|`` from each
    term).  A function that is not
    holomorphic there (``Abs``, ``Max``, a comparison, a branch cut inside
    the circle) disagrees or fails at complex points: None.  The caller
    measures the polynomial against the ground truth anyway.

    >>> import mpmath
    >>> cs = cauchy_coefficients(mpmath.loggamma, 2.0, 3, 1.0)
    >>> [round(float(c), 12) for c in cs[1:]]
    [0.422784335098, 0.322467033424]
    >>> cauchy_coefficients(lambda z: abs(z - 1), 1.5, 3, 1.0) is None
    True
    """
    with mpmath.workdps(DPS):
        c, rho = mpmath.mpf(at), mpmath.mpf(radius)
        r = rho / 8
        roots = [mpmath.expjpi(mpmath.mpf(2 * j) / _NODES) for j in range(_NODES)]
        for _ in range(4):
            a = _on_circle(f, c, r, roots, terms)
            b = _on_circle(f, c, r * 3 / 4, roots, terms) if a is not None else None
            if b is None:
                return None
            lin = abs(a[1]) if terms > 1 else 0
            if all(mpmath.isfinite(x) for x in a) and all(
                    max(abs(x - y), abs(x.imag)) <= max(_AGREE * abs(x),
                                                        _FLOOR * lin / rho ** (k - 1))
                    for k, (x, y) in enumerate(zip(a, b))):
                return [x.real for x in a]
            r /= 2
    return None


def _on_circle(f: Callable, c, r, roots: list, terms: int) -> list | None:
    """The coefficients from one circle, or None where ``f`` fails at a
    complex point."""
    try:
        vals = [mpmath.mpc(f(c + r * w)) for w in roots]
    except (ValueError, ZeroDivisionError, TypeError, OverflowError, AttributeError):
        return None
    n = len(roots)
    return [mpmath.fsum(v * roots[(-j * k) % n] for j, v in enumerate(vals)) / (n * r**k)
            for k in range(terms)]


def _finite(v: float) -> bool:
    return v == v and abs(v) != float("inf")


def horner(coeffs: list[float], x: Symbol, at: float) -> Expr:
    """``Σ coeffs[k]·(x - at)^k`` in Horner's form, ``x - at`` computed once.

    >>> from sympy import Symbol
    >>> horner([1.0, 2.0, 3.0], Symbol("x"), 0.5)
    (x - 0.5)*(3.0*x + 0.5) + 1.0
    """
    t = Add(x, Float(-at, 17)) if at != 0 else x
    out: Expr = Float(coeffs[-1], 17)
    for c in reversed(coeffs[:-1]):
        out = Add(Float(c, 17), Mul(t, out)) if c != 0 else Mul(t, out)
    return out


ARGUMENT_OPS = 60  # formulas larger than this are not searched for one argument


def one_argument(expr: Expr, t: Symbol) -> tuple[Expr, Expr] | None:
    """``(u, g)`` where ``expr`` of several variables is ``g(u)``: a function of
    the one subexpression ``u`` (a product or sum holding every variable),
    ``g`` a formula in ``t`` alone; None where there is no such ``u``.
    Found by solving ``u = t`` for a variable that is a factor or a term of
    ``u`` and substituting (formulas of at most :data:`ARGUMENT_OPS`
    operations: CELU's α-derivative ``exp(x/y) - 1 - (x/y)·exp(x/y)``
    cancels wherever ``x/y`` is small, a series in ``x/y`` keeps it).

    >>> from sympy import symbols, exp
    >>> x, y, t = symbols("x y t")
    >>> one_argument(-x * exp(x / y) / y + exp(x / y) - 1, t)
    (x/y, -t*exp(t) + exp(t) - 1)
    >>> one_argument(x * exp(y) + y, t) is None
    True
    """
    free = free_symbols([expr])
    if len(free) < 2 or count_ops([expr]) > ARGUMENT_OPS:
        return None
    order, _ = postorder([expr], lambda n: n.args)
    for node in order:
        if node is expr or not (node.is_Mul or node.is_Add) or free_symbols([node]) != free:
            continue
        for s in sorted(free, key=str):
            sol = _solved(node, s, t)
            if sol is None:
                continue
            g = expr.subs(s, sol)  # (a small formula: ARGUMENT_OPS)
            if free_symbols([g]) == {t}:
                return node, g
    return None


def _solved(node: Expr, s: Symbol, t: Symbol) -> Expr | None:
    """``s`` from ``node = t`` where ``s`` is a factor, a reciprocal factor or
    a term of ``node``; None otherwise."""
    if node.is_Mul:
        args = Mul.make_args(node)
        if s in args:
            return t * s / node
        if s**-1 in args:
            return node * s / t
    elif node.is_Add and s in node.args:
        return t - (node - s)
    return None


def series_radius(coeffs: list[float], eps: float = 2.0**-53) -> float | None:
    """How far from 0 the polynomial ``Σ coeffs[k]·t^k`` may be used: where
    its last nonzero term is within ``eps`` of its first (the terms left out
    are smaller still, for the series of an analytic function); None for a
    monomial or 0.

    >>> round(series_radius([0.0, 1.0, 0.0, 1 / 6], 2.0**-20), 6)
    0.002392
    """
    terms = [(k, abs(c)) for k, c in enumerate(coeffs) if c != 0]
    if len(terms) < 2:
        return None
    (k_lo, c_lo), (k_hi, c_hi) = terms[0], terms[-1]
    return float((eps * c_lo / c_hi) ** (1.0 / (k_hi - k_lo)))
