"""The default rule table: one line of partials per function, by family.

Each ``d(node, *args)`` is ∂node/∂argᵢ; ``o`` is the node itself (its
output), so ``exp``'s rule is just ``o`` and ``tanh``'s is ``1 - o**2``.
"""

from __future__ import annotations

from sympy import (
    Abs,
    Add,
    Eq,
    Heaviside,
    LambertW,
    Max,
    Min,
    Mod,
    Mul,
    Piecewise,
    Pow,
    S,
    acos,
    acosh,
    acot,
    acoth,
    acsc,
    acsch,
    asec,
    asech,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceiling,
    csc,
    csch,
    erf,
    erfc,
    frac,
    gamma,
    loggamma,
    pi,
    sec,
    sech,
    sqrt,
)

from ..build import piecewise
from ..functions import maximum, minimum, relu, rint, sigmoid, softplus
from ..nodes import identity, stop_gradient, straight_through
from .forms import IdentityRule, PartialsRule, Rule, ZeroRule, product
from .shared import cos, cosh, cot, coth, exp, floor, log, polygamma, sign, sin, sinh, tan, tanh
from .structural import (
    AbsRule,
    AddRule,
    ExtremumRule,
    IntegerParamRule,
    MulRule,
    PiecewiseRule,
    SignRule,
)
from .table import RuleTable

__all__ = ["BUILTIN_RULES", "DEFAULT_TABLE", "NONSMOOTH", "build_default_table"]

# Nodes whose "ad" rule is a convention (a subgradient, or zero almost
# everywhere); under convention="distribution" SymPy's own answer is used.
NONSMOOTH = ("floor", "ceiling", "rint", "sign", "Heaviside", "Abs", "frac", "Mod", "Max", "Min",
             "maximum", "minimum")


def _pow_base(o, b, e):
    """∂bᵉ/∂b = e·bᵉ⁻¹, and 0 at b = e = 0 (not 0·0⁻¹ = nan; b⁰ ≡ 1).  The
    select is on both, so that ∂/∂e of this partial stays b⁻¹ at e = 0."""
    k = e - 1
    p = product(e, b if k is S.One else b**k)  # 2*(x - y) kept so, not distributed
    if e.is_zero is False or b.is_zero is False:
        return p
    return piecewise([(S.Zero, Eq(b, 0) & Eq(e, 0)), (p, True)])


def _pow_exponent(o, b, e, w):
    """∂bᵉ/∂e = bᵉ·log b, and 0 where b = 0 (0ᵉ is flat in e where it is
    defined; not 0·log 0 = nan): JAX's and TensorFlow's convention."""
    p = o * log(w, b)
    return p if b.is_zero is False else piecewise([(S.Zero, Eq(b, 0)), (p, True)])


def build_default_table() -> RuleTable:
    t = RuleTable()

    def rule(cls: type, *partials, walk: bool = False) -> None:
        cls = getattr(cls, "cls", cls)  # unwrap a ``shared`` constructor
        t.add(cls.__name__, PartialsRule(cls.__name__, *partials, walk=walk), cls)

    def walked(cls: type, *partials) -> None:
        """Partials ``d(o, *args, w)`` given the walk ``w``: they build nodes
        with :mod:`.shared`'s constructors, ``cos(w, x)``."""
        rule(cls, *partials, walk=True)

    def special(cls: type, r: Rule) -> None:
        cls = getattr(cls, "cls", cls)
        t.add(cls.__name__, r, cls)

    def nondifferentiable(*classes: type) -> None:
        for cls in classes:
            cls = getattr(cls, "cls", cls)
            t.add(cls.__name__, ZeroRule(cls.__name__), cls)

    # fmt: off
    # ---- arithmetic --------------------------------------------------------
    special(Add, AddRule())
    special(Mul, MulRule())
    walked(Pow,    lambda o, b, e, w: _pow_base(o, b, e), _pow_exponent)
    # ---- exponential and logarithmic ---------------------------------------
    rule(exp,      lambda o, x: o)
    rule(log,      lambda o, x: 1 / x)
    # ---- trigonometric -----------------------------------------------------
    walked(sin,    lambda o, x, w: cos(w, x))
    walked(cos,    lambda o, x, w: -sin(w, x))
    rule(tan,      lambda o, x: 1 + o**2)
    rule(cot,      lambda o, x: -1 - o**2)
    walked(sec,    lambda o, x, w: o * tan(w, x))
    walked(csc,    lambda o, x, w: -o * cot(w, x))
    # ---- inverse trigonometric ---------------------------------------------
    rule(asin,     lambda o, x: 1 / sqrt(1 - x**2))
    rule(acos,     lambda o, x: -1 / sqrt(1 - x**2))
    rule(atan,     lambda o, x: 1 / (1 + x**2))
    rule(acot,     lambda o, x: -1 / (1 + x**2))
    rule(asec,     lambda o, x: 1 / (x**2 * sqrt(1 - 1 / x**2)))
    rule(acsc,     lambda o, x: -1 / (x**2 * sqrt(1 - 1 / x**2)))
    rule(atan2,    lambda o, y, x: x / (x**2 + y**2),   lambda o, y, x: -y / (x**2 + y**2))
    # ---- hyperbolic ----------------------------------------------------------
    walked(sinh,   lambda o, x, w: cosh(w, x))
    walked(cosh,   lambda o, x, w: sinh(w, x))
    rule(tanh,     lambda o, x: 1 - o**2)
    rule(coth,     lambda o, x: 1 - o**2)
    walked(sech,   lambda o, x, w: -o * tanh(w, x))
    walked(csch,   lambda o, x, w: -o * coth(w, x))
    # ---- inverse hyperbolic ----------------------------------------------------
    rule(asinh,    lambda o, x: 1 / sqrt(x**2 + 1))
    rule(acosh,    lambda o, x: 1 / (sqrt(x - 1) * sqrt(x + 1)))
    rule(atanh,    lambda o, x: 1 / (1 - x**2))
    rule(acoth,    lambda o, x: 1 / (1 - x**2))
    rule(asech,    lambda o, x: -1 / (x * sqrt(1 - x**2)))
    rule(acsch,    lambda o, x: -1 / (x**2 * sqrt(1 + 1 / x**2)))
    # ---- special functions -----------------------------------------------------
    walked(erf,    lambda o, x, w: 2 * exp(w, -x**2) / sqrt(pi))
    walked(erfc,   lambda o, x, w: -2 * exp(w, -x**2) / sqrt(pi))
    walked(gamma,  lambda o, x, w: o * polygamma(w, 0, x))
    walked(loggamma, lambda o, x, w: polygamma(w, 0, x))
    # ---- non-smooth: a subgradient, or the derivative of the smooth part -----
    special(Abs, AbsRule())
    rule(frac,     lambda o, x: 1)
    walked(Mod,    lambda o, x, y, w: 1,                lambda o, x, y, w: -floor(w, x / y))
    special(Max, ExtremumRule("Max", +1))
    special(Min, ExtremumRule("Min", -1))
    special(Piecewise, PiecewiseRule())
    # ---- piecewise-constant: zero almost everywhere ----------------------------
    nondifferentiable(floor, ceiling, rint, Heaviside)
    special(sign, SignRule())  # u/|u| where u is complex
    # fmt: on

    # polygamma(n, x) and LambertW(x, k): the order n and the branch k are
    # integers; a gradient into them is an error, raised by the walker.
    # Their partials take the walk last: (o, n, x, w) and (o, x, [k,] w).
    t.add("polygamma", IntegerParamRule(
        "polygamma", (0,), lambda o, n, x, w: polygamma(w, n + 1, x)), polygamma.cls)
    # W' = W/(x(1 + W)) is 0/0 at x = 0, where W is smooth: 1/(x + e^W) is not.
    t.add("LambertW", IntegerParamRule(
        "LambertW", (1,), lambda o, x, *kw: 1 / (x + exp(kw[-1], o))), LambertW)
    # ---- symgrad's marker nodes and activations ------------------------------
    # fmt: off
    t.add("stop_gradient", ZeroRule(), stop_gradient)
    t.add("identity", IdentityRule(), identity)
    rule(straight_through, lambda o, f, b: 0,  lambda o, f, b: 1)
    rule(sigmoid,          lambda o, x: o * (1 - o))
    rule(softplus,         lambda o, x: sigmoid(x))
    rule(relu,             lambda o, x: Heaviside(x, 0))
    special(maximum,       ExtremumRule("maximum", +1))  # arguments as the user wrote them
    special(minimum,       ExtremumRule("minimum", -1))
    # fmt: on
    # Rules any override can name.
    t.add("Identity", IdentityRule())
    t.add("Zero", ZeroRule())
    t.add("StopGradient", ZeroRule())
    return t


DEFAULT_TABLE = build_default_table()
BUILTIN_RULES: frozenset[Rule] = frozenset(DEFAULT_TABLE.rule(n) for n in DEFAULT_TABLE.names())
"""The rules symgrad ships (as built, before any user registration): each is
the derivative of a function, or a conservative convention, so the mixed
partials they give commute (see :func:`symgrad.hessian`)."""
