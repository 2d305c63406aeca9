"""What a form costs to evaluate, for ranking forms that are equally
accurate: a weighted count of its operations over the DAG (each distinct
subexpression once), in units of one float addition over an array.

The weights are measured (benchmarks-style, CPU time of one NumPy call
over 10^6 float64 values, 2026-11-27 19:58 UTC, load 7): an addition,
product or quotient 1.0-1.2 ms, ``exp`` 1.0, ``expm1`` 1.5, ``tanh`` 1.7,
``sqrt`` 4.7, ``log``/``log1p`` 5.3-5.4, a select (``np.where``) 5.5,
``sin`` 22.6 (glibc, per element), ``erf``/``erfc`` 17.7-18.4, ``erfcx``
30.9; in pairs of floats (``compensated``) a sum 51 ms and a product 58,
and the pair helpers ``_dd_exp``/``_dd_sin`` 1,331 and 1,347 (a Taylor
series and eight squarings in pairs).  Under ``jax.jit`` the ratios
differ (``exp`` and ``erfc`` cheaper, ``erf`` dearer) but the order of
magnitude of each class is the same: pairs cost tens of plain operations,
a pair ``exp`` or ``sin`` about a thousand, and traced code (JAX, and
NumPy's ``where``) computes every branch of a ``Piecewise``, as counted
here.
"""

from __future__ import annotations

from sympy import Abs, Basic, Function, Piecewise, Pow
from sympy.functions.elementary.piecewise import ExprCondPair

from ..compensated import compensated
from ..exact import exact, polynomial_terms, quotient_terms
from ..graph import postorder
from ..scaled import scaled
from ..widen import widen

__all__ = ["form_cost", "WEIGHTS"]

# a function's cost by name, in additions (measured above; others: _FUNCTION)
WEIGHTS = {
    "exp": 1.0, "expm1": 1.5, "tanh": 1.7, "sinh": 3.0, "cosh": 3.0, "log": 5.3, "log1p": 5.3,
    "sin": 20.0, "cos": 20.0, "tan": 25.0, "atan": 20.0, "asin": 20.0, "acos": 20.0,
    "asinh": 10.0, "acosh": 10.0, "atanh": 10.0, "erf": 17.0, "erfc": 17.0, "erfcx": 30.0,
    "gamma": 25.0, "loggamma": 25.0, "lgamma": 25.0, "digamma": 25.0, "polygamma": 25.0,
    "zeta": 25.0, "log_ndtr": 30.0, "ndtri": 10.0, "erfinv": 10.0,
    "floor": 0.6, "ceiling": 0.6, "Abs": 1.0, "sign": 1.0, "Min": 1.0, "Max": 1.0,
    "Heaviside": 1.0,
}
_FUNCTION = 10.0  # a function not measured
_SQRT = 4.7
# a quotient: NumPy's is an addition's time (memory bound), a fused kernel's
# (jax.jit) several times a product's (the divider's throughput): the
# sigmoid's derivative as exp(x)/(exp(x) + 1)**2 took 2.0 ms per 10^6 under
# jax.jit, as (exp(x)/(exp(x) + 1))/(exp(x) + 1) 5.7 (load 7)
_DIV = 2.0
# a select, per branch past the first: np.where took 5.5 additions' time,
# but a fused kernel's select costs one, and the exports compute branches
# that mirror each other (f(x) where x <= 0, f(-x) elsewhere) once at -|x|
# (export.branches.shared_branches): the sigmoid's derivative's two
# exp-normalized branches ran in 2.0 ms per 10^6 under jax.jit, a form of
# one branch with two more operations 3.9 (load 7)
_SELECT = 1.0
_PAIR = 50.0  # an operation in pairs of floats
# exp, expm1, log, log1p, sin, cos, tan, atan of a pair inside a compensated
# subtree (not its root: there the function of the rounded pair is cheaper)
_PAIR_FUNCTION = 1200.0
_PAIR_FUNCTIONS = frozenset({"exp", "expm1", "log", "log1p", "sin", "cos", "tan", "atan"})
_WIDE = 5.0  # an operation in the wider type (x87 long double): 3-8x
_SCALE = 10.0  # a scaled input: its exponent taken and put back (frexp, ldexp)
# a float of exact(p)'s expansion (2**(j-1) per monomial of degree j): its
# TwoProducts, scaling and summation passes; a 3x3 determinant (24 floats)
# took 2.0 s per 10^6 points, its pairs 0.30, plain 0.020, an addition
# 0.0018 (2026-11-28 02:53 UTC, load 5.4): ~6.7x the pairs' cost
_EXPANSION = 240.0


def _divisor(n: Basic) -> bool:
    return isinstance(n, Pow) and n.args[1].is_number and n.args[1].is_negative


def _plain(n: Basic, alone: bool) -> float:
    """One node's cost in plain floats: a product divides by each of its
    factors ``b**-k`` (code writes ``a/b**k``); such a power costs its
    products, and a quotient too where it stands ``alone`` (a reciprocal
    not in a product)."""
    if n.is_Add:
        return float(len(n.args) - 1)
    if n.is_Mul:
        d = sum(map(_divisor, n.args))
        return float(max(len(n.args) - 1 - d, 0)) + _DIV * d
    if isinstance(n, Pow):
        e = n.args[1]
        div = _DIV if e.is_negative and alone else 0.0
        if e.is_Integer:
            return float(abs(int(e)) - 1) + div
        if e.is_Rational and e.q == 2:
            return _SQRT + float(abs(int(e.p)) - 1) + div
        return WEIGHTS["exp"] + WEIGHTS["log"] + 1.0 + div
    if isinstance(n, Piecewise):
        return _SELECT * (len(n.args) - 1)
    if isinstance(n, (Function, Abs)):
        return WEIGHTS.get(type(n).__name__, _FUNCTION)
    return 1.0  # a comparison, a logical connective


def _parts(p: Basic) -> int:
    """The floats of ``exact(p)``'s expansion (a large count where ``p``
    has none: code generation refuses it)."""
    try:
        _, terms = polynomial_terms(p)
    except ValueError:
        try:
            _, num, den = quotient_terms(p)
        except ValueError:
            return 1 << 20
        terms = num + den
    return sum(max(1, 2 ** (sum(ks) - 1)) for _, _, ks in terms)


def form_cost(e: Basic) -> float:
    """The cost of evaluating ``e`` in generated code: each distinct node
    once, by :data:`WEIGHTS`; inside ``compensated(u)`` an arithmetic
    operation costs ``_PAIR`` and a function with a pair helper
    ``_PAIR_FUNCTION``; inside ``widen(u)`` every operation ``_WIDE``
    times its float cost.

    >>> from sympy import symbols, exp, sin
    >>> from symgrad import compensated
    >>> x = symbols("x", real=True)
    >>> form_cost(exp(x) + 1), form_cost(compensated(exp(x) + 1))
    (2.0, 1250.0)
    >>> form_cost(compensated(sin(x) + x * x)) > 1000  # a pair sine, as exp above
    True
    >>> from symgrad import exact
    >>> y = symbols("y", real=True)
    >>> form_cost(compensated(x * x - y)), form_cost(exact(x * x - y))  # 3 floats, each 240
    (150.0, 720.0)
    """
    order, kids = postorder([e], lambda n: n.args)
    inside: dict[Basic, str] = {}  # node -> the innermost marker over it
    for n in reversed(order):  # parents before their arguments
        mark = inside.get(n, "")
        if isinstance(n, compensated):
            mark = "pairs"
        elif isinstance(n, widen):
            mark = "wide"
        for k in kids[n]:
            if mark and inside.get(k, "") != "pairs":
                inside[k] = mark
    for n in order:  # exact(p): its expansion's cost, nothing inside it counted
        if isinstance(n, exact):
            inside[n.args[0]] = "exact"
            for k in postorder([n.args[0]], lambda m: m.args)[0]:
                inside[k] = "exact"
    tops = {n.args[0] for n in order if isinstance(n, compensated)}
    in_products = {k for n in order if n.is_Mul for k in kids[n]}
    alone = {k for n in order if not n.is_Mul for k in kids[n]}
    total = 0.0
    for n in order:
        if isinstance(n, exact):
            total += _EXPANSION * _parts(n.args[0])
            continue
        if not kids[n] or isinstance(n, (compensated, widen, ExprCondPair)) \
                or inside.get(n) == "exact":
            continue
        if isinstance(n, scaled):
            total += _SCALE * max(1, len(kids[n]))
            continue
        plain = _plain(n, n in alone or n not in in_products)
        mark = inside.get(n, "")
        if mark == "pairs":
            name = type(n).__name__
            if name in _PAIR_FUNCTIONS and n not in tops:
                total += _PAIR_FUNCTION
            elif isinstance(n, Function) and not isinstance(n, Abs):
                total += plain + 2 * _PAIR  # the function to first order in the low part
            else:
                total += _PAIR * max(plain, 1.0)
        elif mark == "wide":
            total += _WIDE * plain
        else:
            total += plain
    return total
