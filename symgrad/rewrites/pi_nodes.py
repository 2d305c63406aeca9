"""The nodes of sine, cosine and tangent of π times an input, reduced exactly.

``sinpi(u, q)`` is ``sin(π·u/q)`` (``q`` a positive rational, 1 where left
out; ``q = 180``: degrees), likewise :class:`cospi` and :class:`tanpi`.
Their NumPy code reduces the argument in its own units, exactly, and
multiplies by π only what is left, as Julia's ``sinpi``, Boost's
``sin_pi`` and MATLAB's ``sind`` do; for a ``q`` whose half ``L`` a float
holds exactly with its small multiples (:func:`reducible`):

* ``t = fmod(u, 4L)``, exact (the IEEE remainder of floats);
* ``n = rint(t/L)``, ``r = t - n·L``: exact (``n·L`` is exact, and
  ``|r| <= |t|`` on the grid of ``t``), ``|r| <= L/2`` up to the rounding
  of ``t/L`` (a quarter period: ``n`` need only be near);
* ``θ = r·(π/q)``, rounded twice (2**-53 relative each), then
  ``sin(π/2·n + θ)`` is ``±sin θ`` or ``±cos θ`` by ``n mod 4``: within
  about two ulps of the exact value everywhere, its zeros (``u`` a multiple
  of ``2L``) exact.

The ground truth reduces the same way, in rationals
(:mod:`symgrad.stability.intervals`, :mod:`symgrad.stability.balls`); the
rewrites that produce these nodes are :mod:`.trigpi`'s.
"""

from __future__ import annotations

from sympy import Basic, Function, S, cos, pi, sin, tan
from sympy.core.function import ArgumentIndexError

__all__ = ["sinpi", "cospi", "tanpi", "reducible", "Q_BITS"]

# q = m·2**e with an odd m of at most this many bits: its half and 4x its half
# are floats in float32 too, and n·(q/2) for |n| <= 4 is exact
Q_BITS = 20


def reducible(q: Basic) -> bool:
    """Whether ``q`` is a positive binary number of at most :data:`Q_BITS`
    significant bits (``180``, ``1/2``, ``3``), so that the NumPy code's
    reduction is exact in float32 and float64.

    >>> from sympy import Integer, Rational
    >>> reducible(Integer(180)), reducible(Rational(1, 2)), reducible(Rational(7, 3))
    (True, True, False)
    """
    if not (q.is_Rational and q > 0):
        return False
    den = int(q.q)
    if den & (den - 1):
        return False
    m = int(q.p)
    while not m & 1:
        m >>= 1
    return m.bit_length() <= Q_BITS and 2**-1000 < float(q) < 2**1000


class _TrigPi(Function):
    """``trig(π·u/q)``; ``q`` (a positive rational) is 1 where left out
    (and then written: ``sinpi(x)`` is ``sinpi(x, 1)``)."""

    nargs = (1, 2)
    _trig = None  # sin, cos or tan

    @classmethod
    def eval(cls, arg, q=None):
        if q is None:
            return cls(arg, S.One)  # (always two arguments: the templates match them)
        if q.is_number and not (q.is_Rational and q > 0):
            raise ValueError(f"{cls.__name__}'s divisor must be a positive rational, not {q}")
        if arg.is_Number and q.is_number:
            return cls._trig(pi * arg / q)
        return None

    @property
    def divisor(self) -> Basic:
        return self.args[1]

    def definition(self) -> Basic:
        """The function as SymPy writes it.

        >>> from sympy import symbols
        >>> cospi(symbols("t"), 180).definition()
        cos(pi*t/180)
        """
        return self._trig(pi * self.args[0] / self.divisor)

    def _eval_is_real(self):
        return True if self.args[0].is_real and self._trig is not tan else None

    def _eval_evalf(self, prec):
        return self.definition()._eval_evalf(prec)

    def _numpycode(self, printer) -> str:  # the NumPy printers' print method
        q = self.divisor
        half = q / 2
        scale = float((pi / q).evalf(30))
        parts = _PICK[self._trig]
        return (f"(lambda _x: (lambda _t: (lambda _n: (lambda _m, _h: {parts})"
                f"(np.mod(_n, 4), (_t - _n*{float(half)!r})*{scale!r}))"
                f"(np.rint(_t/{float(half)!r})))(np.fmod(_x, {float(4 * half)!r})))"
                f"({printer._print(self.args[0])})")

    _symgrad_numpycode = _numpycode


# sin, cos, tan of π/2·n + θ from n mod 4 (_m) and θ (_h)
_SIN = "(lambda _s, _c: np.where(_m == 0, _s, np.where(_m == 1, _c, np.where(_m == 2, -_s, -_c))))"
_COS = "(lambda _s, _c: np.where(_m == 0, _c, np.where(_m == 1, -_s, np.where(_m == 2, -_c, _s))))"
_PICK = {
    sin: _SIN + "(np.sin(_h), np.cos(_h))",
    cos: _COS + "(np.sin(_h), np.cos(_h))",
    # tan(θ) where n is even, -1/tan(θ) where odd (a pole at θ = 0 there)
    tan: "(lambda _v: np.where((_m == 1) | (_m == 3), -1/_v, _v))(np.tan(_h))",
}


class sinpi(_TrigPi):  # noqa: N801  (Julia's and C23's name)
    """``sin(π·u/q)``, its argument reduced exactly (module docstring).

    >>> from sympy import Rational, symbols
    >>> t = symbols("t")
    >>> sinpi(t), sinpi(t, 180), sinpi(Rational(1, 2)), sinpi(30, 180)
    (sinpi(t, 1), sinpi(t, 180), 1, 1/2)
    >>> sinpi(t, 2).diff(t)
    pi*cospi(t, 2)/2
    """

    _trig = sin

    def fdiff(self, argindex=1):
        if argindex != 1:
            raise ArgumentIndexError(self, argindex)
        return pi / self.divisor * cospi(*self.args)

    def _eval_rewrite_as_sin(self, *args, **kwargs):
        return self.definition()


class cospi(_TrigPi):  # noqa: N801
    """``cos(π·u/q)``, its argument reduced exactly.

    >>> from sympy import symbols
    >>> t = symbols("t")
    >>> cospi(t, 180).rewrite(cos), cospi(90, 180)
    (cos(pi*t/180), 0)
    """

    _trig = cos

    def fdiff(self, argindex=1):
        if argindex != 1:
            raise ArgumentIndexError(self, argindex)
        return -pi / self.divisor * sinpi(*self.args)

    def _eval_rewrite_as_cos(self, *args, **kwargs):
        return self.definition()


class tanpi(_TrigPi):  # noqa: N801
    """``tan(π·u/q)``, its argument reduced exactly.

    >>> from sympy import symbols
    >>> tanpi(symbols("t"), 4).diff(symbols("t"))
    pi/(4*cospi(t, 4)**2)
    """

    _trig = tan

    def fdiff(self, argindex=1):
        if argindex != 1:
            raise ArgumentIndexError(self, argindex)
        return pi / self.divisor / cospi(*self.args) ** 2

    def _eval_rewrite_as_tan(self, *args, **kwargs):
        return self.definition()
