"""Exact arithmetic when mpmath's integers are not Python ints (gmpy2 installed).

With gmpy2 installed, mpmath runs on its gmpy backend: mantissas, and the
integers ``to_int`` returns, are ``gmpy2.mpz``, which python-flint's ``arb``
and ``math.ldexp`` refuse ("cannot create arf from tuple", "Expected an int
as second argument to ldexp": the ground truth and the proofs crashed so until
6701b65).  gmpy2 is no dependency of symgrad or of its tests, so these tests
hand symgrad's readers of mpmath integers an int-like type that, like mpz, is
not an ``int``: every place where one reaches flint or ``ldexp`` must make it
a Python int first.  (Checked against real gmpy2 too, by hand: docs/stability.md.)
"""

import functools
import math

import pytest
from flint import arb, ctx
from mpmath.libmp import from_float, from_rational
from sympy import Float, LambertW, exp, polygamma, symbols

from symgrad.stability import intervals
from symgrad.stability.balls import _const
from symgrad.stability.bits import float_format, round_mpf
from symgrad.stability.truth import RESOLVED, GroundTruth

x = symbols("x", real=True)


@functools.total_ordering
class Mpz:
    """An integer that is not an ``int`` (as gmpy2.mpz is not)."""

    __slots__ = ("v",)

    def __init__(self, v) -> None:
        self.v = int(v)

    def __int__(self) -> int:
        return self.v

    __index__ = __int__

    def __hash__(self) -> int:
        return hash(self.v)

    def __eq__(self, o) -> bool:
        return self.v == int(o)

    def __lt__(self, o) -> bool:
        return self.v < int(o)

    def __bool__(self) -> bool:
        return bool(self.v)

    def bit_length(self) -> int:
        return self.v.bit_length()

    def __neg__(self):
        return Mpz(-self.v)

    def __abs__(self):
        return Mpz(abs(self.v))


def _binary(name):
    def op(self, o):
        return Mpz(getattr(self.v, name)(int(o)))
    return op


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__rshift__", "__lshift__", "__and__", "__floordiv__", "__mod__"):
    setattr(Mpz, _name, _binary(_name))


def test_the_stand_in_is_refused_where_mpz_is():
    with pytest.raises(TypeError):
        arb((Mpz(5), -2))
    with pytest.raises(TypeError):
        math.ldexp(1.0, Mpz(3))


@pytest.mark.parametrize("v", [1.25, -3.0e-310, 5e-324, 1.7976931348623157e308, 1 / 3, 0.1])
def test_rounding_takes_mpz_mantissas(v):
    f64 = float_format("float64")
    sign, man, e, bc = from_float(v)
    assert round_mpf((sign, Mpz(man), Mpz(e), Mpz(bc)), f64) == v
    # and one that rounds: 1/3 at 200 bits, to float64 and to float32's subnormals
    sign, man, e, bc = from_rational(1, 3 * 2**140, 200)
    fake = (sign, Mpz(man), Mpz(e), Mpz(bc))
    for fmt in (f64, float_format("float32")):
        assert round_mpf(fake, fmt) == round_mpf((sign, man, e, bc), fmt)


def test_ball_constants_take_mpz_mantissas():
    f = object.__new__(Float)  # a Float as SymPy makes it under the gmpy backend
    sign, man, e, bc = from_float(-1.25)
    f._mpf_, f._prec = (sign, Mpz(man), Mpz(e), Mpz(bc)), 53
    assert _const(f, 128) == arb(-1.25)

    class Irrational:  # a number with no exact form: evaluated (evalf gives mpz too)
        is_Integer = is_Rational = is_Float = False

        def evalf(self, digits):
            g = object.__new__(Float)
            s, m, k, b = from_rational(1, 3, 200)
            g._mpf_, g._prec = (s, Mpz(m), Mpz(k), Mpz(b)), 200
            return g

    third = _const(Irrational(), 128)
    prec, ctx.prec = ctx.prec, 256
    try:
        assert third.contains(arb(1) / 3) and third.rad() < arb(2) ** -120
    finally:
        ctx.prec = prec


def test_interval_ground_truth_takes_mpz_from_to_int(monkeypatch):
    """The interval tier's integers from mpmath's to_int: exp's reduction of a
    huge argument, integer powers, polygamma's order, LambertW's branch."""
    cases = [((exp(x) - exp(-x)) / (exp(x) + exp(-x)), 1e300),  # exp(±1e300), reduced
             (exp(x) * x**-3, 700.0), (polygamma(1, x), 2.5), (LambertW(x, -1), -0.2)]

    def values():
        out = []
        for e, at in cases:
            t = GroundTruth([e], [x])
            t.balls = None  # the mpmath tier alone
            vals, status = t.at([at])
            assert status == [RESOLVED], e
            out.append(vals[0])
        return out

    plain = values()
    real_to_int = intervals.to_int
    monkeypatch.setattr(intervals, "to_int", lambda v: Mpz(real_to_int(v)))
    assert values() == plain
