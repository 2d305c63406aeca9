"""A fast first tier for the ground truth: the formula in Arb's ball arithmetic.

:class:`.truth.GroundTruth` evaluates a formula in mpmath intervals
(:mod:`.intervals`), pure Python: 10 to 30 microseconds an operation.
Arb (python-flint) does the same rigorous arithmetic in C, as balls
``mid +- rad`` that always hold the exact value, at about a microsecond.
:class:`BallProgram` runs the formula that way first; a point whose every
output ball rounds to one float at some precision is decided here (the
exact value is in the ball and rounding is monotone, so that float is the
correctly rounded value).  Everything else -- an argument touching the
edge of a function's domain, an undecided condition, a function without a
kernel here, a ball that no precision narrows -- is left to the mpmath
tier, which alone says *undefined* or *unresolved*: those verdicts keep
their one definition.

Without python-flint the tier is absent and the mpmath tier does all.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from fractions import Fraction
from operator import methodcaller

from sympy import Basic

from .bits import Format, round_mpf

try:  # optional: the pure-Python tier serves without it
    from flint import arb, fmpq
    from flint import ctx as _ctx
except ImportError:  # pragma: no cover - python-flint is installed with symgrad
    arb = fmpq = _ctx = None

__all__ = ["BallProgram", "available"]

_lock = threading.Lock()  # flint's precision is process-wide


def available() -> bool:
    """Whether python-flint is importable (the ball tier exists)."""
    return arb is not None


# ---- helpers -------------------------------------------------------------------
#
# An operation returns a ball, NaN where more precision may decide it (an
# argument straddling the edge of a domain: NaN propagates through the rest),
# or POISON where the point is the mpmath tier's (an argument outside the
# domain or exactly on its edge: undefined, which only that tier says).
# POISON passes through a Piecewise untouched (a branch not taken may be
# undefined) and stops the run wherever it is used.


class _GiveUp(Exception):
    pass


class _Poison:
    def _stop(self, *args):
        raise _GiveUp

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _stop
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = __abs__ = _stop
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = __bool__ = _stop
    __hash__ = object.__hash__

    def __getattr__(self, name):
        if name.startswith("__"):  # introspection (doctest, copy) is not arithmetic
            raise AttributeError(name)
        raise _GiveUp


POISON = _Poison()


def _mag(b) -> int:
    """An upper bound of log2 |b| for a finite ball (0 for small ones)."""
    man, exp = b.mid().man_exp()
    return max(int(exp) + int(man).bit_length(), 0) if man else 0


def _exact_zero(b) -> bool:
    return b.is_exact() and b.is_zero()


def _with_bits(fn: Callable, extra: Callable) -> Callable:
    """``fn(b)`` at the working precision plus ``extra(b)`` bits (exp of a
    huge exact argument needs as many more bits as it has before its point)."""

    def op(prec, b):
        if not b.is_finite():
            return arb.nan()
        more = extra(b)
        if more > 1 << 20:
            return POISON
        if more:
            _ctx.prec = prec + more
            try:
                return fn(b)
            finally:
                _ctx.prec = prec
        return fn(b)

    return op


_BELOW = None if arb is None else arb(2**32)  # |mid| below it: _mag(b) <= 32


def _argbits(b) -> int:
    mid = b.mid()
    if -_BELOW < mid < _BELOW:  # (exact balls: decided; _mag's man_exp is 4x slower)
        return 0
    m = _mag(b)
    return m + 10 if m > 32 else 0


def _domain(lo: float | None, hi: float | None, fn: Callable, closed: bool = False) -> Callable:
    """``fn`` on (lo, hi) (None: unbounded; ``closed``: the ends belong to
    it); NaN where the ball straddles an end, the mpmath tier's beyond."""

    def op(prec, b):
        if (lo is None or b > lo) and (hi is None or b < hi):
            return fn(b)
        if (lo is not None and (b < lo or (not closed and b <= lo))) or \
                (hi is not None and (b > hi or (not closed and b >= hi))):
            return POISON
        if closed and b.is_exact():
            return fn(b)
        return arb.nan()

    return op


def _nonzero(fn: Callable) -> Callable:
    """``fn`` away from 0 (undefined at 0 exactly)."""

    def op(prec, b):
        if b > 0 or b < 0:
            return fn(b)
        if _exact_zero(b):
            return POISON
        return arb.nan()

    return op


def _recip(b):
    return POISON if _exact_zero(b) else 1 / b


def _pow(prec, b, e):
    if e.is_exact() and e.is_integer():
        n = int(e.unique_fmpz())
        return b**n if n >= 0 else _recip(b ** (-n))
    if _exact_zero(b):
        if e > 0:
            return arb(0)
        if e <= 0:
            return POISON
        return arb.nan()
    if b < 0:
        return POISON
    if not b > 0:
        return arb.nan()
    if e.is_exact() and e == arb(0.5):
        return b.sqrt()
    return (e * b.log()).exp()


def _integer_pow(n: int) -> Callable:
    """``_pow`` for the constant integer exponent ``n`` (its ball exact):
    the same power, without asking the exponent's ball what it is at
    every point."""
    if n >= 0:
        return lambda prec, b, e=None: b**n
    return lambda prec, b, e=None: _recip(b ** (-n))


def _rational_pow(p: int, q: int) -> Callable:
    def op(prec, b, e=None):
        if _exact_zero(b):
            if p > 0:
                return arb(0)
            return POISON
        if b < 0:
            return POISON
        if not b > 0:
            return arb.nan()
        r = b.sqrt() if q == 2 else b.root(q)
        return r**p if p > 0 else _recip(r ** (-p))

    return op


def _unary(name: str) -> Callable:
    call = methodcaller(name)
    return lambda prec, b: call(b)


def _explike(name: str) -> Callable:
    return _with_bits(methodcaller(name), _argbits)


def _sqrt(prec, b):
    if _exact_zero(b):
        return arb(0)
    return _domain(0, None, methodcaller("sqrt"))(prec, b)


def _erfcx(prec, b):
    # exp(b²)·erfc(b): Arb has no underflow, so the product is as exact as its factors
    if not b.is_finite():
        return arb.nan()
    more = 2 * _mag(b) + 10
    if more > 1 << 20:
        return POISON
    _ctx.prec = prec + more
    try:
        return (b * b).exp() * b.erfc()
    finally:
        _ctx.prec = prec


def _gamma(prec, b):
    if b > 0 or not b.contains_integer():
        return b.gamma()
    return POISON  # at or across a pole: the mpmath tier's


def _hypot(prec, a, b):
    return (a * a + b * b).sqrt()


def _logaddexp(prec, a, b):
    return a.max(b) + (-abs(a - b)).exp().log1p()


def _max(prec, *a):
    out = a[0]
    for b in a[1:]:
        out = out.max(b)
    return out


def _min(prec, *a):
    out = a[0]
    for b in a[1:]:
        out = out.min(b)
    return out


def _floor(prec, b):
    lo, hi = b.lower().floor(), b.upper().floor()
    return lo if lo == hi else arb.nan()


def _ceiling(prec, b):
    lo, hi = b.lower().ceil(), b.upper().ceil()
    return lo if lo == hi else arb.nan()


def _sign(prec, b):
    if b > 0:
        return arb(1)
    if b < 0:
        return arb(-1)
    return arb(0) if _exact_zero(b) else arb.nan()


def _heaviside(prec, b, h0=None):
    # as the interval tier: 1 above 0, 0 below, H(0) (SymPy's default 1/2) at
    # an exact 0; a ball holding 0 otherwise, more bits (an argument exactly 0
    # reached inexactly is the mpmath tier's, with its exact nodes)
    if b > 0:
        return arb(1)
    if b < 0:
        return arb(0)
    if _exact_zero(b):
        return arb(1) / 2 if h0 is None else h0
    return arb.nan()


def _atan2(prec, y, x):
    if x > 0 or y > 0 or y < 0:
        return arb.atan2(y, x)
    return POISON  # on the branch cut, or at (0, 0)


def _recip_then(fn: Callable, inside: Callable) -> Callable:
    """``fn(1/b)`` where ``inside(b)`` (decided: b strictly within the
    domain, away from its ends); the mpmath tier's elsewhere (its ends,
    where the interval tier decides what is undefined or unknown)."""

    def op(prec, b):
        if inside(b):
            return fn(1 / b)
        return POISON

    return op


def _polygamma(prec, n, b):
    # polygamma(m, x) for x > 0 (the mpmath tier's elsewhere: poles, x <= 0, and
    # |x| >= 2**_FN_MAG, where it says unknown): digamma for m = 0, else
    # (-1)**(m + 1) m! zeta(m + 1, x), Hurwitz's zeta
    if not (n.is_exact() and n.is_integer()) or not b > 0 or not b < _FN_BOUND:
        return POISON
    m = int(n.unique_fmpz())
    if m < 0:
        return POISON
    if m == 0:
        return b.digamma()
    z = arb(m + 1).zeta(b) * math.factorial(m)
    return z if m % 2 else -z


def _lambertw(prec, b, k=None):
    # the principal branch above -1/e, the -1 branch on (-1/e, 0), each away from
    # -1/e by a margin (the mpmath tier decides beside it: unknown there)
    branch = 0
    if k is not None:
        if not (k.is_exact() and k.is_integer()):
            return POISON
        branch = int(k.unique_fmpz())
    if not b > _LAMBERTW_EDGE:
        return POISON
    if branch == 0:
        return b.lambertw()
    if branch == -1 and b < 0:
        return b.lambertw(-1)
    return POISON


def _trig_pi(name: str) -> Callable:
    """sin, cos, tan of π·b/q (symgrad.rewrites.trigpi), an exact ``b``
    reduced as rationals to π/2·n + π·w, |w| <= 1/4 (the mpmath tier's
    reduction); a ball that is not exact, as b/q."""

    def op(prec, b, q):
        if not (b.is_finite() and q.is_exact() and q > 0):
            return POISON
        if b.is_exact():
            v = _fraction(b)
            qq = _fraction(q)
            v -= math.floor(v / (2 * qq)) * 2 * qq
            n = round(2 * v / qq)
            w = v / qq - Fraction(n, 2)
            if w == 0 and name == "tan" and n % 2:
                return POISON  # a pole: undefined, the mpmath tier's
            wb = arb(fmpq(w.numerator, w.denominator))
        else:
            v = b / q
            n = int(round(float(2 * v.mid())))
            wb = v - arb(n) / 2
        m = n % 4
        if name == "tan":
            if m % 2 == 0:
                return wb.tan_pi()
            t = wb.tan_pi()
            return arb.nan() if t.contains(0) else -1 / t
        sin_first = (name == "sin") == (m % 2 == 0)
        out = wb.sin_pi() if sin_first else wb.cos_pi()
        negate = m >= 2 if name == "sin" else m in (1, 2)
        return -out if negate else out

    return op


def _fraction(b) -> Fraction:
    man, exp = b.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)


_FN_BOUND = None if arb is None else arb(2) ** 4096  # intervals._FN_MAG
_LAMBERTW_EDGE = None if arb is None else -arb(1).exp() ** -1 + arb(2) ** -20


OPS: dict[str, Callable] = {
    "Pow": _pow,
    "exp": _explike("exp"),
    "log": _domain(0, None, methodcaller("log")),
    "sin": _unary("sin"),
    "cos": _unary("cos"),
    "tan": _unary("tan"),
    "cot": _nonzero(methodcaller("cot")),
    "sec": _unary("sec"),
    "csc": _nonzero(methodcaller("csc")),
    "asin": _domain(-1, 1, methodcaller("asin"), closed=True),
    "acos": _domain(-1, 1, methodcaller("acos"), closed=True),
    "atan": _unary("atan"),
    "acot": _nonzero(lambda b: (1 / b).atan()),
    "atan2": _atan2,
    "sinh": _explike("sinh"),
    "cosh": _explike("cosh"),
    "tanh": _unary("tanh"),
    "coth": _nonzero(methodcaller("coth")),
    "sech": _explike("sech"),
    "csch": _nonzero(methodcaller("csch")),
    "asinh": _unary("asinh"),
    "acosh": _domain(1, None, methodcaller("acosh"), closed=True),
    "atanh": _domain(-1, 1, methodcaller("atanh")),
    "erf": _unary("erf"),
    "erfc": _explike("erfc"),
    "erfcx": _erfcx,
    "erfinv": _domain(-1, 1, methodcaller("erfinv")),
    "gamma": _gamma,
    "loggamma": _domain(0, None, methodcaller("lgamma")),
    "Abs": lambda prec, b: abs(b),
    "Max": _max,
    "Min": _min,
    "floor": _floor,
    "ceiling": _ceiling,
    "sign": _sign,
    "Heaviside": _heaviside,
    "log1p": _domain(-1, None, methodcaller("log1p")),
    "expm1": _explike("expm1"),
    "hypot": _hypot,
    "logaddexp": _logaddexp,
    "sqrt": _sqrt,
    "polygamma": _polygamma,
    "LambertW": _lambertw,
    "acoth": _recip_then(methodcaller("atanh"), lambda b: b > 1 or b < -1),
    "asec": _recip_then(methodcaller("acos"), lambda b: b > 1 or b < -1),
    "acsc": _recip_then(methodcaller("asin"), lambda b: b > 1 or b < -1),
    "acsch": _recip_then(methodcaller("asinh"), lambda b: b > 0 or b < 0),
    "asech": _recip_then(methodcaller("acosh"), lambda b: b > 0 and b < 1),
    "sinpi": _trig_pi("sin"),
    "cospi": _trig_pi("cos"),
    "tanpi": _trig_pi("tan"),
}


# ---- conditions: True or False, or the point is the mpmath tier's ---------------------


def _lt(prec, a, b):
    if a < b:
        return True
    if a >= b:
        return False
    raise _GiveUp


def _le(prec, a, b):
    if a <= b:
        return True
    if a > b:
        return False
    raise _GiveUp


def _eq(prec, a, b):
    if a == b:
        return True
    if a != b:
        return False
    raise _GiveUp


LOGIC: dict[str, Callable] = {
    "StrictLessThan": _lt,
    "LessThan": _le,
    "StrictGreaterThan": lambda prec, a, b: _lt(prec, b, a),
    "GreaterThan": lambda prec, a, b: _le(prec, b, a),
    "Equality": _eq,
    "Unequality": lambda prec, a, b: not _eq(prec, a, b),
    "And": lambda prec, *vs: all(vs),
    "Or": lambda prec, *vs: any(vs),
    "Not": lambda prec, v: not v,
    "ITE": lambda prec, c, a, b: a if c else b,
}


def _const(value: Basic, prec: int):
    """A ball holding a SymPy number, or None."""
    if value.is_Integer:
        return arb(int(value))
    if value.is_Rational:
        return arb(int(value.p)) / int(value.q)
    # (int(): with gmpy2 installed mpmath's mantissas are gmpy2.mpz, which
    # python-flint's arf does not take)
    if value.is_Float:
        sign, man, exp, _ = value._mpf_
        return arb((int(-man if sign else man), int(exp)))
    v = value.evalf(prec // 3 + 10)
    if not v.is_Float or not v._mpf_[1]:
        return None
    sign, man, exp, bc = v._mpf_
    # within one unit of prec bits, as the mpmath tier trusts evalf
    return arb((int(-man if sign else man), int(exp)), (1, int(exp + bc - prec)))


class BallProgram:
    """A :class:`.truth.Program` compiled to straight-line Python over
    balls (:meth:`of`: None when some node has no ball kernel here)."""

    def __init__(self, program, source: str, env: dict) -> None:
        self.program = program
        self.source = source
        code = compile(source, "<symgrad ball program>", "exec")
        exec(code, env)  # noqa: S102 - our own source, built from the formula's node types
        self._fn = env["_program"]
        self._consts: dict[int, list] = {}

    @classmethod
    def of(cls, program) -> BallProgram | None:
        if arb is None:
            return None
        env: dict = {"POISON": POISON}
        lines = ["def _program(prec, x, c):"]
        name = {}
        pairs = {}  # ExprCondPair step -> (value, condition) names
        for i, step in enumerate(program.steps):
            kind = step[0]
            v = f"v{i}"
            if kind == "sym":
                name[i] = f"x[{step[1]}]"
                continue
            if kind == "const":
                name[i] = f"c[{i}]"
                continue
            if kind == "bool":
                name[i] = repr(step[1])
                continue
            node = program.order[i]
            op = type(node).__name__
            args = [] if op == "Piecewise" else [name[k] for k in step[2]]
            special = getattr(step[1], "ball", None)  # a step of its own (truth's complements)
            if special is not None:
                env[f"f{i}"] = special
                lines.append(f"    {v} = f{i}(prec, {', '.join(args)})")
                name[i] = v
                continue
            if op in ("widen", "compensated", "scaled", "exact"):  # the identity (FloatMarker)
                name[i] = args[0]
                continue
            if op == "ExprCondPair":
                pairs[i] = (args[0], args[1])
                continue
            if op == "Piecewise":
                expr = "POISON"  # no branch holds: undefined
                for k in reversed(step[2]):
                    val, cond = pairs[k]
                    expr = f"({val} if {cond} else {expr})"
                lines.append(f"    {v} = {expr}")
            elif op in ("Add", "Mul"):
                sign = " + " if op == "Add" else " * "
                # (in lines of 32: a sum of 1,000 terms on one line is too deep for compile)
                lines.append(f"    {v} = {sign.join(args[:32])}")
                for k in range(32, len(args), 32):
                    lines.append(f"    {v} = {v}{sign}{sign.join(args[k:k + 32])}")
            else:
                if node.is_Pow and node.exp.is_Integer:
                    fn = _integer_pow(int(node.exp))
                elif node.is_Pow and node.exp.is_Rational:
                    fn = _rational_pow(int(node.exp.p), int(node.exp.q))
                else:
                    fn = OPS.get(op) or LOGIC.get(op)
                if fn is None:
                    return None
                env[f"f{i}"] = fn
                lines.append(f"    {v} = f{i}(prec, {', '.join(args)})")
            name[i] = v
        lines.append(f"    return [{', '.join(name[k] for k in program.outputs)}]")
        return cls(program, "\n".join(lines) + "\n", env)

    def _constants(self, prec: int) -> list | None:
        c = self._consts.get(prec)
        if c is None:
            c = [None] * len(self.program.steps)
            for i, v in self.program.consts.items():
                b = _const(v, prec)
                if b is None:
                    return None
                c[i] = b
            self._consts[prec] = c
        return c

    def decide(self, xs: Sequence[float], fmt: Format, start: int, top: int,
               zero_top: int | None = None, first: object = None) -> list | None:
        """Every output's correctly rounded value in ``fmt`` at the point
        ``xs``, the precision raised from ``start`` up to ``top`` bits; or
        None where the balls do not decide them all.  The next precision
        is what the widest ball says is missing (a difference that cancels
        k bits at p bits needs about p + k), at least twice the last.  A
        zero of unknown sign (:class:`SignlessZero`) raises it up to
        ``zero_top`` (default ``top``) and is returned as such beyond; a ball
        that straddles a midpoint between two floats, narrower than an ulp
        by far, raises it up to ``zero_top`` too, and None beyond.  ``first``:
        what :meth:`first` said of the point at ``start`` (None: computed
        here, as then)."""
        zero_top = top if zero_top is None else zero_top
        n = len(self.program.outputs)
        out: list = [None] * n
        prec = start
        while True:
            if first is not None:
                now, first = (None if first is NO_BALLS else first), None
            else:
                now = self.balls(xs, prec, fmt=fmt)
            if now is None:
                return None
            need = 0
            for k in range(n):
                if out[k] is not None:
                    continue
                v = now[k]
                if v is None or type(v) is Undecided:
                    # no accuracy at all (a ball around 0, or unbounded): 4x
                    need = max(need, 3 * prec if v is None or v < 8 else max(fmt.prec + 16 - v, 1))
                elif type(v) is SignlessZero and prec < zero_top:
                    # a zero of either sign: more bits may exclude 0 (cosh(x) - 1
                    # at x = 5e-324, 1.2e-647, is decided past 2,150 bits); a ball
                    # around an exact 0 or exp(-exp(huge)) never is
                    need = max(need, 3 * prec)
                else:
                    out[k] = v
            if need == 0:
                return out
            if prec >= top or (prec >= zero_top and any(
                    type(now[k]) is Undecided and now[k] >= 2 * fmt.prec + 64
                    for k in range(n) if out[k] is None)):
                # a ball far narrower than an ulp that still straddles where two
                # floats round apart: the value is that halfway point (exp(log(1 +
                # 2**-53))), or beside it by less than the ball (-3x/2 + x**3/24 at
                # x = 8.5e-83: 550 bits below).  Pursued up to ``zero_top``, as the
                # interval tier pursues it (it decided such points at 1,232-4,928
                # bits, ~20 ms each: 86% of a check of the Poly-1 gradient); then
                # the interval tier says unresolved, or decides it by its exact value
                return None
            prec = min(top, prec + min(max(need, prec), 7 * prec))

    def first(self, rows: Sequence[Sequence[float]], fmt: Format,
              prec: int) -> tuple[list, list[bool]]:
        """Per row (a point), what :meth:`balls` says there at ``prec`` with
        ``fmt`` (the first step of :meth:`decide`, which takes it as
        ``first``; ``NO_BALLS`` for its None), None for a row with a NaN
        input (not computed); and per row
        whether that decides every output (a list of floats: then it is
        what :meth:`decide` returns).  The rows run under one taking of
        flint's lock and one setting of its precision, where :meth:`balls`
        takes and sets them per call (a third of a small formula's row).

        >>> from sympy import symbols, exp
        >>> from symgrad.stability.truth import Program
        >>> from symgrad.stability.bits import float_format
        >>> x = symbols("x")
        >>> prog = BallProgram.of(Program([exp(x) - 1], [x]))
        >>> # (e**x - 1 at 1e-300 cancels 77 bits: decided at a later precision)
        >>> nows, whole = prog.first([[1.0], [1e-300]], float_format("float64"), 77)
        >>> nows[0], whole
        ([1.7182818284590453], [True, False])
        """
        nows: list = [None] * len(rows)
        whole = [False] * len(rows)
        fn, isnan = self._fn, math.isnan
        with _lock:
            old = _ctx.prec
            _ctx.prec = prec
            try:
                consts = self._constants(prec)
                for i, xs in enumerate(rows):
                    if any(isnan(x) for x in xs):
                        continue  # (decided() leaves it to the mpmath tier)
                    if consts is None:
                        nows[i] = NO_BALLS
                        continue
                    try:
                        got = fn(prec, [arb(float(x)) for x in xs], consts)
                    except (_GiveUp, ArithmeticError, ValueError, TypeError):
                        nows[i] = NO_BALLS
                        continue
                    if any(b is POISON for b in got):
                        nows[i] = NO_BALLS
                        continue
                    now = nows[i] = [_decide(b, fmt) for b in got]
                    for v in now:
                        if type(v) is not float:  # (None, Undecided, SignlessZero)
                            break
                    else:
                        whole[i] = True
            finally:
                _ctx.prec = old
        return nows, whole

    def balls(self, xs: Sequence[float], prec: int, post: Callable | None = None,
              fmt: Format | None = None) -> list | None:
        """Every output's ball at the point ``xs`` with the working
        precision ``prec`` (each holds the exact value; it may be wide, or
        not finite), each mapped by ``post`` (at that precision) if given,
        or with ``fmt`` by :func:`_decide` (as :meth:`run`); or None for a
        point the mpmath tier must decide (an argument outside a function's
        domain, an undecided condition)."""
        with _lock:
            old = _ctx.prec
            _ctx.prec = prec  # also the precision of the balls' ends
            try:
                consts = self._constants(prec)
                if consts is None:
                    return None
                try:
                    # (Arb's balls only: no NumPy operation runs here, so no
                    # np.errstate, 8 us a call at 1 to 4 calls a point)
                    out = self._fn(prec, [arb(float(x)) for x in xs], consts)
                except (_GiveUp, ArithmeticError, ValueError, TypeError):
                    return None
                for b in out:
                    if b is POISON:
                        return None
                if fmt is not None:  # (a ball's ends are rounded at this precision)
                    return [_decide(b, fmt) for b in out]
                return out if post is None else [post(b) for b in out]
            finally:
                _ctx.prec = old

    def run(self, xs: Sequence[float], prec: int, fmt: Format) -> list | None:
        """Per output at the point ``xs``, with the working precision
        ``prec``: the float of ``fmt`` its exact value rounds to, where its
        ball decides it, else the ball's relative accuracy in bits (None
        if it has none); or None for the point, which the mpmath tier must
        decide."""
        return self.balls(xs, prec, fmt=fmt)


def _mpf(b) -> tuple:
    man, exp = b.man_exp()
    man, exp = int(man), int(exp)
    if man == 0:
        return (0, 0, 0, 0)
    sign = 1 if man < 0 else 0
    man = abs(man)
    return (sign, man, exp, man.bit_length())


_NORMAL64 = 2.2250738585072014e-308  # float64's smallest normal
_MAX64 = 1.7976931348623157e308  # and largest float


def _rounded(a, fmt: Format) -> float:
    """``round_mpf(_mpf(a), fmt)`` of an exact ball ``a`` (a ball's end).

    In float64, Arb's conversion to a double (``float(a)``: ``arf_get_d``
    to nearest, ties to even) is the correctly rounded float wherever that
    is a normal float: the same float, without the significand as a Python
    integer (4 us a call, two calls a ball: 6% of a small stabilize) nor
    the mpmath tuple.  Elsewhere (float32, a subnormal, zero or an
    overflowing result) :func:`round_mpf` decides.

    >>> from flint import arb
    >>> from symgrad.stability.bits import float_format
    >>> f64 = float_format("float64")
    >>> [_rounded(arb(2**54 + k), f64) - 2**54 for k in (1, 2, 3, 6)]  # ties to even
    [0.0, 0.0, 4.0, 8.0]
    """
    if fmt.prec == 53:
        f = float(a)
        if _NORMAL64 <= abs(f) <= _MAX64:
            return f
    return round_mpf(_mpf(a), fmt)


class _NoBalls:
    """What :meth:`BallProgram.first` says of a row where :meth:`BallProgram.balls`
    says None (the mpmath tier's point)."""


NO_BALLS = _NoBalls()


class Undecided(float):
    """A ball's relative accuracy in bits, where it does not round to one float."""


class SignlessZero(float):
    """A ball every point of which rounds to a zero, of both signs: the value
    rounds to a zero whose sign is not known (a value below every precision
    tried, ``sin(log(tanh(exp(exp(20)))))``, or an exact zero the balls
    cannot prove, ``cos(pi/2)``).  No figure depends on the sign (-0 and +0
    are one ordinal), but the value is not established: the truth says
    unresolved, with the two zeros as its bounds."""


def _decide(b, fmt: Format):
    """The float of ``fmt`` that every point of the ball ``b`` rounds to;
    where its ends round apart, an :class:`Undecided` holding its relative
    accuracy (None: not finite).  A ball whose ends round to zeros of
    both signs (it holds 0, or values of both signs too small for the
    format) is a :class:`SignlessZero`: the value's sign is not known."""
    if type(b) is not arb or not b.is_finite():
        return None
    acc = b.rel_accuracy_bits()
    if acc < fmt.prec:  # too wide to round to one float, unless beyond the normal range
        m = abs(float(b.mid()))
        if math.ldexp(1.0, fmt.emin) < m < fmt.max / 2:
            return Undecided(acc)
    lo, hi = _rounded(b.lower(), fmt), _rounded(b.upper(), fmt)
    if lo != hi:
        return Undecided(acc)
    if lo == 0 and math.copysign(1.0, lo) != math.copysign(1.0, hi):  # (-0.0 == 0.0)
        return SignlessZero(0.0)
    return lo
