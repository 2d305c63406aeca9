"""Where each function leaves the float range or its domain: a table.

For a node ``f(u)``, :func:`edges` gives ``(u, c)`` pairs: the argument
values at which ``f`` overflows, underflows into the subnormals or to 0,
saturates to a constant (``tanh`` to +-1, where ``1 + tanh(u)`` cancels
completely), leaves its domain, has a pole, or is 0 (a log near 1).
The values are those of the target format (``exp`` overflows at
u = log(max)).  Constants without a closed form (where ``gamma`` or
``erfcx`` overflows) are solved once per format with mpmath.
"""

from __future__ import annotations

import math
from functools import cache

import mpmath
from sympy import Basic, log

from .bits import Format

__all__ = ["domain_edges", "edges"]


def _normal(fmt: Format) -> float:
    """The smallest positive normal float."""
    return math.ldexp(1.0, fmt.emin)


@cache
def _solved(name: str, target: float, lo: float, hi: float) -> float:
    """The argument in [lo, hi] where the log of the monotone special
    function ``name`` equals ``target``."""
    with mpmath.workdps(30):
        f = {
            "gamma": lambda u: mpmath.loggamma(u) - target,
            "erfc": lambda u: mpmath.log(mpmath.erfc(u)) - target,
            "erfcx": lambda u: u * u + mpmath.log(mpmath.erfc(u)) - target,
            "loggamma": lambda u: mpmath.log(mpmath.loggamma(u)) - target,
        }[name]
        a, b = mpmath.mpf(lo), mpmath.mpf(hi)
        up = f(a) < 0
        for _ in range(300):  # bisection: geometric while the bracket spans scales
            m = mpmath.sqrt(a * b) if a > 0 and b > 4 * a else (a + b) / 2
            if (f(m) < 0) == up:
                a = m
            else:
                b = m
        return float(a)


def _exp_edges(u: Basic, fmt: Format, base: float = math.e) -> list[tuple[Basic, float]]:
    lb = math.log(base)
    return [(u, math.log(fmt.max) / lb), (u, math.log(_normal(fmt)) / lb),
            (u, math.log(fmt.tiny) / lb)]


def _power_edges(b: Basic, e: float, fmt: Format) -> list[tuple[Basic, float]]:
    """|b|**e overflows, turns subnormal, rounds to 0; b = 0 where it is a
    pole or a root's domain edge."""
    out = []
    for lim in (fmt.max, _normal(fmt), fmt.tiny):
        lm = math.log(lim) / e
        if abs(lm) < math.log(fmt.max):
            m = math.exp(lm)
            out += [(b, m), (b, -m)]
    out.append((b, 0.0))
    return out


def edges(node: Basic, fmt: Format) -> list[tuple[Basic, float]]:
    """``(argument, value)`` pairs where ``node`` overflows, underflows,
    saturates, leaves its domain or is 0, in the format ``fmt``.

    >>> from sympy import exp, symbols
    >>> from .bits import FORMATS
    >>> x = symbols("x")
    >>> [round(c, 3) for _, c in edges(exp(x), FORMATS["float64"])]
    [709.783, -708.396, -744.44]
    """
    name = type(node).__name__
    args = node.args
    if not args:
        return []
    u = args[0]
    logmax = math.log(fmt.max)
    sat = (fmt.prec + 1) * math.log(2)  # 1 - f(u) below half an ulp of 1
    if name == "exp":
        return _exp_edges(u, fmt)
    if name == "exp2":
        return _exp_edges(u, fmt, 2.0)
    if name == "expm1":
        return [(u, logmax), (u, -sat)]  # overflow; -1 to the float
    if name in ("sinh", "cosh"):
        c = logmax + math.log(2.0)
        return [(u, c), (u, -c)]
    if name == "tanh":  # 1 - tanh(u) ~ 2 exp(-2u) below half an ulp of 1
        c = (sat + math.log(2.0)) / 2
        return [(u, c), (u, -c), (u, 0.0)]
    if name in ("log", "log2", "log10"):
        return [(u, 0.0), (u, 1.0)]
    if name == "log1p":
        return [(u, -1.0), (u, 0.0)]
    if name in ("asin", "acos", "atanh", "acoth", "erfinv"):
        return [(u, -1.0), (u, 1.0)]
    if name in ("acosh", "asech"):
        return [(u, 1.0)]
    if name == "LambertW":
        return [(u, -math.exp(-1.0))]
    if name in ("gamma", "factorial"):
        shift = 1.0 if name == "factorial" else 0.0
        c = _solved("gamma", logmax, 10.0, 200.0)
        return [(u, c - shift), (u, -shift)]
    if name == "loggamma":
        c = _solved("loggamma", logmax, 10.0, 1e307)
        return [(u, 0.0), (u, 1.0), (u, 2.0), (u, c)]
    if name == "erfc":
        return [(u, _solved("erfc", math.log(_normal(fmt)), 1.0, 40.0)),
                (u, _solved("erfc", math.log(fmt.tiny), 1.0, 40.0)),
                (u, _solved("erfc", -sat, 1.0, 40.0))]
    if name == "erf":
        c = _solved("erfc", -sat, 1.0, 40.0)
        return [(u, c), (u, -c)]
    if name == "erfcx":
        return [(u, _solved("erfcx", logmax, -40.0, -1.0))]
    if name == "Pow":
        b, e = args
        if e.is_number and e.is_real and e != 0:
            out = _power_edges(b, float(e), fmt)
            return out if (not e.is_integer or e.is_negative) else out[:-1]
        if not e.is_number:  # b**e = exp(e*log(b))
            return _exp_edges(e * log(b), fmt)
    return []


def domain_edges(node: Basic) -> list[tuple[Basic, float, int]]:
    """``(argument, edge, side)`` where ``node`` leaves its real domain: past
    ``edge`` on the ``side`` (+1 above it, -1 below) it has no real value,
    or a pole.  Where the exact argument only touches the edge
    (``acos(sin x sin y + cos x cos y cos z)`` at x = y, z = 0), its
    rounding can cross it: a NaN where the exact value is finite.

    >>> from sympy import acos, sqrt, symbols
    >>> x = symbols("x")
    >>> domain_edges(acos(x)), domain_edges(sqrt(x))
    ([(x, -1.0, -1), (x, 1.0, 1)], [(x, 0.0, -1)])
    """
    name = type(node).__name__
    args = node.args
    if not args:
        return []
    u = args[0]
    if name in ("asin", "acos", "atanh"):
        return [(u, -1.0, -1), (u, 1.0, 1)]
    if name in ("acosh", "asech"):
        return [(u, 1.0, -1)]
    if name in ("log", "log2", "log10"):
        return [(u, 0.0, -1)]
    if name == "log1p":
        return [(u, -1.0, -1)]
    if name == "Pow":
        b, e = args
        if e.is_number and e.is_real and not e.is_integer:
            return [(b, 0.0, -1)]
    return []
