"""Taylor coefficients in Arb's ball arithmetic: the fast tier of
:func:`.candidates.taylor_coefficients`.

A formula of one variable is evaluated over truncated power series of
balls (python-flint's ``arb_series``: ``exp``, ``log``, the trigonometric
and error functions of a series in C), once, at enough bits that every
coefficient is known to 20 digits: the exact coefficient is inside its
ball, so the float rounded from the ball's middle is the one mpmath's
differentiation at 30 and 45 digits gives wherever those agree to 20
digits (their test).  mpmath differentiates numerically at a working
precision that grows with the order: 24 terms (orders below 48) of the
focal loss's derivative took 1.7 s there, here milliseconds.

Anything this tier cannot settle -- a function without a series kernel
here, a branch (``Abs``, ``Max``, ``Piecewise``) or a domain edge its
argument's ball touches at the point, a division by a series whose
constant term may be 0 (a removable singularity: SymPy's exact series
serves those), a coefficient no precision narrows -- returns
:data:`UNSETTLED`, and the caller runs the mpmath tier as before.
"""

from __future__ import annotations

import threading

from sympy import Basic, Symbol

from ..graph import postorder

try:  # optional: the mpmath tier serves without it
    from flint import arb, arb_series
    from flint import ctx as _ctx
except ImportError:  # pragma: no cover - python-flint is installed with symgrad
    arb = arb_series = None

__all__ = ["ball_taylor", "ball_value", "UNSETTLED"]

UNSETTLED = object()  # this tier cannot say: ask mpmath
_PRECS = (128, 256, 512)  # bits tried, in turn
_AGREE = 20  # digits every kept coefficient is known to (mpmath's tier's test)
_lock = threading.Lock()  # flint's precision is process-wide


class _GiveUp(Exception):
    pass


def _const(s):
    """The constant term of a series (a ball)."""
    c = s.coeffs()
    return c[0] if c else arb(0)


def _positive(s) -> bool:
    return bool(_const(s) > 0)


def _nonzero(s) -> bool:
    c = _const(s)
    return bool(c > 0 or c < 0)


def _inside(s, lo, hi) -> bool:
    c = _const(s)
    return bool(c > lo and c < hi)


def _need(ok: bool) -> None:
    if not ok:
        raise _GiveUp


def _pow(b, e, n: int):
    """``b**e`` for a series ``b`` and a SymPy exponent ``e`` (a number)
    or series (``e`` already evaluated)."""
    if isinstance(e, Basic):
        if e.is_Integer:
            k = int(e)
            if k < 0:
                _need(_nonzero(b))
                return (1 / b) ** (-k) if k != -1 else 1 / b
            return b ** k if k else arb_series([arb(1)], prec=n)
        _need(_positive(b))  # a fractional power: b > 0 at the point
        return (arb(e.p) / arb(e.q) * b.log()).exp() if e.is_Rational else \
            (_number(e) * b.log()).exp()
    _need(_positive(b))
    return (e * b.log()).exp()


def _number(v: Basic):
    """A real number of the formula as a ball."""
    if v.is_Integer:
        return arb(int(v))
    if v.is_Rational:
        return arb(int(v.p)) / arb(int(v.q))
    if v.is_Float:
        sign, man, exp, _ = v._mpf_  # (exact: its binary digits)
        if not man and exp:
            raise _GiveUp  # inf or nan
        return (-1 if sign else 1) * arb(int(man)) * arb(2) ** int(exp)
    name = type(v).__name__
    if name == "Pi":
        return arb.pi()
    if name == "Exp1":
        return arb(1).exp()
    if name == "EulerGamma":
        return arb.const_euler()
    if v.is_real and v.is_number:
        return arb(str(v.evalf(_PRECS[-1] // 3 + 10)))
    raise _GiveUp


def _unary(name: str):
    """The series operation of a function of one argument, checking its
    domain at the point."""
    def sinh(s):
        e = s.exp()
        return (e - 1 / e) / 2

    def cosh(s):
        e = s.exp()
        return (e + 1 / e) / 2

    def tanh(s):
        e = (2 * s).exp()
        return (e - 1) / (e + 1)

    def log(s):
        _need(_positive(s))
        return s.log()

    def sqrt(s):
        _need(_positive(s))
        return s.sqrt()

    def asin(s):
        _need(_inside(s, -1, 1))
        return s.asin()

    def acos(s):
        _need(_inside(s, -1, 1))
        return s.acos()

    def asinh(s):
        return (s + (s * s + 1).sqrt()).log()

    def acosh(s):
        _need(bool(_const(s) > 1))
        return (s + (s * s - 1).sqrt()).log()

    def atanh(s):
        _need(_inside(s, -1, 1))
        return ((1 + s) / (1 - s)).log() / 2

    def gamma(s):
        _need(bool(_const(s) > 0))  # (poles at 0, -1, ...: the right half-line only)
        return s.gamma()

    def loggamma(s):
        _need(bool(_const(s) > 0))
        return s.lgamma()

    def recip_of(fn):
        def op(s):
            v = fn(s)
            _need(_nonzero(v))
            return 1 / v
        return op

    table = {
        "exp": lambda s: s.exp(), "log": log, "sqrt": sqrt,
        "sin": lambda s: s.sin(), "cos": lambda s: s.cos(),
        "tan": lambda s: s.sin() / s.cos() if _nonzero(s.cos()) else _need(False),
        "cot": recip_of(lambda s: s.sin() / s.cos() if _nonzero(s.cos()) else _need(False)),
        "sec": recip_of(lambda s: s.cos()), "csc": recip_of(lambda s: s.sin()),
        "atan": lambda s: s.atan(), "asin": asin, "acos": acos,
        "sinh": sinh, "cosh": cosh, "tanh": tanh,
        "coth": recip_of(tanh), "sech": recip_of(cosh), "csch": recip_of(sinh),
        "asinh": asinh, "acosh": acosh, "atanh": atanh,
        "erf": lambda s: s.erf(), "erfc": lambda s: s.erfc(), "erfi": lambda s: s.erfi(),
        "gamma": gamma, "loggamma": loggamma,
        "log1p": lambda s: log(1 + s), "expm1": lambda s: s.exp() - 1,
    }
    return table.get(name)


def _series(expr: Basic, sym: Symbol, at: float, n: int) -> list:
    """The first ``n`` coefficients of ``expr`` about ``at`` as balls at
    the context's precision (raises :class:`_GiveUp`)."""
    order, kids = postorder([expr], lambda v: v.args)
    val: dict = {}
    varies: dict = {}  # whether a node depends on ``sym`` (children first: no tree walk)
    for node in order:
        if node == sym:
            val[node], varies[node] = arb_series([arb(at), arb(1)], prec=n), True
            continue
        varies[node] = any(varies[k] for k in kids[node])
        if not varies[node]:
            if isinstance(node, Symbol):
                raise _GiveUp  # another variable
            if not (node.is_Boolean or kids[node] and node.func.__name__ == "ExprCondPair"):
                val[node] = arb_series([_number(node)], prec=n)
            continue
        args = [val[k] for k in kids[node]]
        if node.is_Add:
            s = args[0]
            for a in args[1:]:
                s = s + a
        elif node.is_Mul:
            s = args[0]
            for a in args[1:]:
                s = s * a
        elif node.is_Pow:
            e = node.exp
            s = _pow(args[0], e if e.is_number else args[1], n)
        else:
            op = _unary(type(node).__name__) if len(args) == 1 else None
            if op is None:
                raise _GiveUp  # no kernel here, or a branch: mpmath's tier
            s = op(args[0])
        val[node] = s
    out = val[expr].coeffs()
    out += [arb(0)] * (n - len(out))
    if not all(c.is_finite() for c in out):
        raise _GiveUp
    return out


def ball_taylor(expr: Basic, sym: Symbol, at: float, terms: int) -> list[float] | None | object:
    """The first ``terms`` nonzero Taylor coefficients of ``expr`` in
    ``sym`` about ``at``, below order ``2*terms``, as
    :func:`.candidates.taylor_coefficients` defines them (a coefficient
    that is 0 to 20 digits of the largest is 0; None where all are 0),
    or :data:`UNSETTLED` where this tier cannot tell.

    >>> from sympy import symbols, exp
    >>> x = symbols("x")
    >>> ball_taylor(exp(x), x, 0.0, 3)
    [1.0, 1.0, 0.5]
    >>> ball_taylor(abs(x), x, 0.0, 3) is UNSETTLED
    True
    """
    if arb is None:
        return UNSETTLED
    n = 2 * terms
    tiny = arb(10) ** -_AGREE
    for prec in _PRECS:
        with _lock:
            old = _ctx.prec, _ctx.cap
            _ctx.prec, _ctx.cap = prec, n  # (cap: the series' length, made or read)
            try:
                cs = _series(expr, sym, at, n)
            except (_GiveUp, ZeroDivisionError, ValueError, TypeError, AssertionError):
                return UNSETTLED
            finally:
                _ctx.prec, _ctx.cap = old
        mags = [abs(c.mid()) for c in cs]
        big = max(mags)
        if big == 0:
            if all(c.is_exact() for c in cs):
                return None  # the zero function
            continue
        last = prec == _PRECS[-1]
        coeffs: list[float] | None = []
        for c, m in zip(cs, mags):
            small = m + c.rad() <= big * tiny  # below 1e-20 of the largest
            if c.is_exact() and c.is_zero():
                coeffs.append(0.0)
            elif c.rad() <= m * tiny and not c.contains(0):
                coeffs.append(float(c.mid()))  # known to 20 digits, however small
            elif small and last:
                coeffs.append(0.0)  # (mpmath's two precisions differ there: 0)
            else:
                coeffs = None  # not known to 20 digits: more bits
                break
        if coeffs is None:
            continue
        nonzero = [k for k, c in enumerate(coeffs) if c != 0]
        if not nonzero:
            return None
        return coeffs[:nonzero[:terms][-1] + 1]
    return UNSETTLED


def ball_value(expr: Basic, sym: Symbol, at: float, prec: int = 128):
    """The value of ``expr`` at ``sym = at`` as an Arb ball of ``prec``
    bits, evaluated once over the formula's DAG (SymPy's ``evalf`` with
    ``subs`` walks the tree: exponential in the height of a chain that
    reuses its nodes), or :data:`UNSETTLED` where this tier cannot
    evaluate it (a function without a kernel here, a branch, a domain
    edge the argument's ball touches): the caller asks SymPy then.

    >>> from sympy import symbols, sin
    >>> x = symbols("x")
    >>> e = x
    >>> for _ in range(40):  # 40 deep: 2**40 paths, 80 nodes
    ...     e = sin(e) / 2 + x
    >>> v = ball_value(e.xreplace({x: -x}) + e, x, 0.37)
    >>> bool(abs(v) < 1e-30)  # odd: f(-x) + f(x) is 0
    True
    >>> ball_value(abs(x), x, 0.5) is UNSETTLED
    True
    """
    if arb is None:
        return UNSETTLED
    with _lock:
        old = _ctx.prec, _ctx.cap
        _ctx.prec, _ctx.cap = prec, 1
        try:
            v = _series(expr, sym, at, 1)[0]
        except (_GiveUp, ZeroDivisionError, ValueError, TypeError, AssertionError):
            return UNSETTLED
        finally:
            _ctx.prec, _ctx.cap = old
    return v
