"""Accurate forms that the rewrites produce, and the nodes that carry them.

Two shapes are recognised in several spellings and then combined further
(``1 - σ(u)`` is ``σ(-u)``; ``log σ(u)`` is ``-softplus(-u)``), so the
rewrites first produce a node for them, :class:`Sigmoid` or
:class:`Softplus`, and the pass ends by expanding each into its accurate
float form (:func:`expand_forms`):

=================  ===================================================
``Sigmoid(u)``     ``where(u >= 0, 1, e)/(1 + e)`` with ``e = exp(-|u|)``
``Softplus(u)``    ``max(u, 0) + log1p(exp(-|u|))``
=================  ===================================================

Both take ``exp`` of a number ≤ 0 only, so nothing overflows, and lose no
tiny value: exact (within 2 ulps) over the whole float range.  The
softplus form is NumPy's own ``logaddexp(0, u)`` algorithm, written out:
as accurate, and five times faster than the ``np.logaddexp`` ufunc.

One node stays in what code generation emits: :class:`erfcx`, the scaled
complementary error function ``exp(u²)·erfc(u)`` (``scipy.special.erfcx``),
which SymPy lacks; the accurate ``erfc`` form of the library is built on it.
"""

from __future__ import annotations

from sympy import (
    Abs,
    Basic,
    Function,
    Max,
    Piecewise,
    Rational,
    S,
    erfc,
    exp,
    factorial,
    log,
    loggamma,
    oo,
    pi,
    polygamma,
    sqrt,
)
from sympy.codegen.cfunctions import log1p
from sympy.core.function import ArgumentIndexError

from ..build import evaluated, mapped

__all__ = ["Sigmoid", "Softplus", "erfcx", "betaln", "lgamma_remainder", "digamma_remainder",
           "polygamma_remainder",
           "log1pmx", "accurate_sigmoid",
           "accurate_softplus", "expand_forms"]


class Sigmoid(Function):
    """σ(u) = 1/(1 + exp(-u)), produced by the rewrites and expanded by
    :func:`expand_forms` (never seen outside :mod:`symgrad.rewrites`)."""

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_Number:
            return 1 / (1 + exp(-u))
        return None

    def definition(self) -> Basic:
        return 1 / (1 + exp(-self.args[0]))


class Softplus(Function):
    """softplus(u) = log(1 + exp(u)), as :class:`Sigmoid`."""

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_Number:
            return log(1 + exp(u))
        return None

    def definition(self) -> Basic:
        return log(1 + exp(self.args[0]))


class erfcx(Function):  # noqa: N801  (scipy's name; SymPy's functions are lower case)
    """The scaled complementary error function ``exp(u²)·erfc(u)``: about
    ``1/(u√π)`` for large u, where ``erfc(u)`` underflows; code generation
    emits ``scipy.special.erfcx``, the ground truth evaluates it in mpmath.

    >>> from sympy import Symbol, diff
    >>> u = Symbol("u")
    >>> erfcx(0), erfcx(u).rewrite(erfc)
    (1, exp(u**2)*erfc(u))
    >>> diff(erfcx(u), u)
    2*u*erfcx(u) - 2/sqrt(pi)
    """

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_zero:
            return S.One
        if u is oo:
            return S.Zero
        return None

    def fdiff(self, argindex=1):
        u = self.args[0]
        return 2 * u * self - 2 / sqrt(pi)

    def _eval_rewrite_as_erfc(self, u, **kwargs):
        return exp(u**2) * erfc(u)

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_is_positive(self):
        return True if self.args[0].is_real else None

    def _eval_evalf(self, prec):
        return self.rewrite(erfc)._eval_evalf(prec)


class betaln(Function):  # noqa: N801  (scipy's name)
    """``log B(a, b) = loggamma(a) + loggamma(b) - loggamma(a + b)`` for
    a, b > 0: code generation emits ``scipy.special.betaln`` (an asymptotic
    series where one argument is a million times the other, where the three
    log-gammas cancel), the ground truth evaluates the definition.

    >>> from sympy import Symbol, loggamma
    >>> a, b = Symbol("a", positive=True), Symbol("b", positive=True)
    >>> betaln(a, b).rewrite(loggamma)
    loggamma(a) + loggamma(b) - loggamma(a + b)
    """

    nargs = 2

    def fdiff(self, argindex=1):
        a, b = self.args
        return polygamma(0, self.args[argindex - 1]) - polygamma(0, a + b)

    def _eval_rewrite_as_loggamma(self, a, b, **kwargs):
        return loggamma(a) + loggamma(b) - loggamma(a + b)

    def _eval_is_real(self):
        a, b = self.args
        return True if a.is_positive and b.is_positive else None

    def _eval_evalf(self, prec):
        return self.rewrite(loggamma)._eval_evalf(prec)



class lgamma_remainder(Function):  # noqa: N801  (as scipy's lower-case names)
    """Stirling's remainder ``loggamma(x) - (x - 1/2)·log(x) + x - log(2π)/2``
    for x > 0, about ``1/(12x)``: where differences of log-gammas of large
    arguments cancel, the Stirling parts are differenced exactly (through
    ``log1p``) and the remainders are small.  Code generation emits a call of
    :func:`symgrad.rewrites.remainders._lgamma_remainder` (its series in
    ``1/x²`` from x = 10, its recurrence below: within a few ulps); the
    ground truth evaluates the definition.

    >>> from sympy import Symbol, loggamma
    >>> x = Symbol("x", positive=True)
    >>> lgamma_remainder(x).rewrite(loggamma)
    x - (x - 1/2)*log(x) + loggamma(x) - log(2*pi)/2
    """

    nargs = 1

    def fdiff(self, argindex=1):
        # ψ(x) - log(x) + 1/(2x), as the node that computes it without cancelling
        return digamma_remainder(self.args[0])

    def _eval_rewrite_as_loggamma(self, x, **kwargs):
        return loggamma(x) - (x - Rational(1, 2)) * log(x) + x - log(2 * pi) / 2

    def _eval_is_real(self):
        return True if self.args[0].is_positive else None

    def _eval_evalf(self, prec):
        return self.rewrite(loggamma)._eval_evalf(prec)

    def _numpycode(self, printer) -> str:  # the NumPy printers' print method
        return f"_lgamma_remainder({printer._print(self.args[0])})"


class digamma_remainder(Function):  # noqa: N801  (as scipy's lower-case names)
    """``digamma(x) - log(x) + 1/(2x)`` for x > 0, about ``-1/(12x²)``: the
    part of ψ that differences of digammas of large arguments leave once
    ``log`` and ``1/(2x)`` are differenced exactly.  Code generation emits a
    call of :func:`symgrad.rewrites.remainders._digamma_remainder`, as
    :class:`lgamma_remainder`'s; the ground truth evaluates the definition.

    >>> from sympy import Symbol, polygamma
    >>> x = Symbol("x", positive=True)
    >>> digamma_remainder(x).rewrite(polygamma)
    -log(x) + polygamma(0, x) + 1/(2*x)
    """

    nargs = 1

    def fdiff(self, argindex=1):
        # polygamma(1, x) - 1/x - 1/(2x²), which cancels (45 bits at 1e6) as written
        return polygamma_remainder(1, self.args[0])

    def _eval_rewrite_as_polygamma(self, x, **kwargs):
        return polygamma(0, x) - log(x) + 1 / (2 * x)

    def _eval_is_real(self):
        return True if self.args[0].is_positive else None

    def _eval_evalf(self, prec):
        return self.rewrite(polygamma)._eval_evalf(prec)

    def _numpycode(self, printer) -> str:  # the NumPy printers' print method
        return f"_digamma_remainder({printer._print(self.args[0])})"


class polygamma_remainder(Function):  # noqa: N801  (as scipy's lower-case names)
    """``polygamma(n, x)`` less its first terms at infinity,
    ``(-1)^(n-1)·((n-1)!/xⁿ + n!/(2xⁿ⁺¹))``, for x > 0 and n >= 1: the n-th
    derivative of :class:`digamma_remainder` (``polygamma_remainder(0, x)``
    is that node), about ``(-1)^(n-1)·(n+1)!/(12xⁿ⁺²)``, of the sign of its
    terms and its derivatives' steps.  The derivatives of the remainders
    are these nodes (as written, ``polygamma(1, x) - 1/x - 1/(2x²)`` loses
    45 bits at 1e6).  Code generation emits a call of
    :func:`symgrad.rewrites.remainders._polygamma_remainder` (its series in
    ``1/x²`` from 10, below its recurrence, whose steps are sums of terms of
    one sign); the ground truth evaluates the definition.

    >>> from sympy import Symbol, diff
    >>> x = Symbol("x", positive=True)
    >>> diff(lgamma_remainder(x), x, 2)
    polygamma_remainder(1, x)
    >>> polygamma_remainder(1, x).rewrite(polygamma)
    polygamma(1, x) - 1/x - 1/(2*x**2)
    >>> polygamma_remainder(0, x)
    digamma_remainder(x)
    """

    nargs = 2

    @classmethod
    def eval(cls, n, x):
        if n.is_Integer and n.is_zero:
            return digamma_remainder(x)
        if n.is_number and not (n.is_Integer and n.is_positive):
            raise ValueError(f"polygamma_remainder's order is an integer >= 0, not {n}")
        return None

    def fdiff(self, argindex=2):
        n, x = self.args
        if argindex != 2:
            raise ArgumentIndexError(self, argindex)
        return polygamma_remainder(n + 1, x)

    def _eval_rewrite_as_polygamma(self, n, x, **kwargs):
        return polygamma(n, x) - (-1) ** (n - 1) * (factorial(n - 1) / x**n
                                                     + factorial(n) / (2 * x ** (n + 1)))

    def _eval_is_real(self):
        return True if self.args[1].is_positive else None

    def _eval_evalf(self, prec):
        return self.rewrite(polygamma)._eval_evalf(prec)

    def _numpycode(self, printer) -> str:  # the NumPy printers' print method
        n, x = self.args
        return f"_polygamma_remainder({int(n)}, {printer._print(x)})"


# log1pmx's series: log1p(v) = 2·atanh(s), s = v/(2 + v), so log1p(v) - v =
# -v²/(2 + v) + 2s³·Σ s²ᵏ/(2k + 3); on [-1/2, 1], |s| ≤ 1/3 and sixteen terms
# leave out less than 2^-54 of the value (which is ≥ v²/4 in size there)
LOG1PMX_FROM, LOG1PMX_TO = -0.5, 1.0
LOG1PMX_SERIES = tuple(Rational(1, 2 * k + 3) for k in range(16))


class log1pmx(Function):  # noqa: N801  (as scipy's lower-case names)
    """``log1p(v) - v`` for v > -1, about ``-v²/2`` near 0, where the
    difference as written keeps no bit of it (Boost's and scipy's internal
    ``log1pmx``).  Code generation emits ``-v²/(2 + v) + 2s³·Σ s²ᵏ/(2k + 3)``
    with ``s = v/(2 + v)`` on [-1/2, 1] (both terms of one sign for v < 0,
    the second under a twelfth of the first for v > 0), the difference
    outside (at most 1.8 bits lost there); the ground truth evaluates the
    definition.

    >>> from sympy import Symbol, log
    >>> v = Symbol("v")
    >>> log1pmx(v).rewrite(log)
    -v + log(v + 1)
    >>> from symgrad import lambdify
    >>> f"{float(lambdify([v], log1pmx(v))(1e-9)):.10e}"  # as written: -5.0000007461e-19
    '-4.9999999967e-19'
    """

    nargs = 1

    @classmethod
    def eval(cls, v):
        if v.is_zero:
            return S.Zero
        return None

    def fdiff(self, argindex=1):
        v = self.args[0]
        return -v / (1 + v)

    def _eval_rewrite_as_log(self, v, **kwargs):
        return log(1 + v) - v

    def _eval_is_real(self):
        v = self.args[0]
        return True if v.is_real and (v + 1).is_positive else None

    def _eval_evalf(self, prec):
        return self.rewrite(log)._eval_evalf(prec)

    def _numpycode(self, printer) -> str:  # the NumPy printers' print method
        series = repr(float(LOG1PMX_SERIES[-1]))
        for c in reversed(LOG1PMX_SERIES[:-1]):
            series = f"({float(c)!r} + _t*{series})"
        v = printer._print(self.args[0])
        # (the series of v clipped to its interval: no overflow where it is not used)
        return (f"(lambda _v: (lambda _w: (lambda _s: np.where(_v == _w, "
                f"-_w*_w/(2 + _w) + 2*_s*_s*_s*(lambda _t: {series})(_s*_s), "
                f"np.log1p(_v) - _v))(_w/(2 + _w)))"
                f"(np.minimum(np.maximum(_v, {LOG1PMX_FROM}), {LOG1PMX_TO})))({v})")


def _abs(u: Basic) -> Basic:
    # |u| as written (Abs would split |x*y| into |x|*|y| for real symbols)
    return Abs(-u if u.could_extract_minus_sign() else u, evaluate=False)


def accurate_sigmoid(u: Basic) -> Basic:
    """1/(1 + exp(-u)), exact over the whole float range (real ``u``).

    >>> from sympy import Symbol
    >>> accurate_sigmoid(Symbol("x"))
    Piecewise((1, x >= 0), (exp(-Abs(x)), True))/(1 + exp(-Abs(x)))
    """
    e = exp(-_abs(u))
    return Piecewise((S.One, u >= 0), (e, True)) / (1 + e)


def accurate_softplus(u: Basic) -> Basic:
    """log(1 + exp(u)) without overflow or loss of tiny values (real ``u``).

    >>> from sympy import Symbol
    >>> accurate_softplus(Symbol("x"))
    log1p(exp(-Abs(x))) + Max(0, x)
    """
    return Max(u, S.Zero) + log1p(exp(-_abs(u)))


_ACCURATE = {Sigmoid: accurate_sigmoid, Softplus: accurate_softplus}


def expand_forms(exprs: list[Basic]) -> list[Basic]:
    """``exprs`` with every :class:`Sigmoid` / :class:`Softplus` expanded to
    its accurate form (one bottom-up pass over the DAG, no recursion)."""
    def expand(cur: Basic) -> Basic:
        make = _ACCURATE.get(type(cur))
        return cur if make is None else make(*cur.args)

    return mapped(exprs, evaluated, after=expand)
