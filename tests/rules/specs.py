"""One spec per entry of the default rule table: how to build a sample node,
its arity, where to sample it, and (for non-smooth nodes and the named
override rules) the partials the ``"ad"`` convention promises.

Tests of the rules (``test_defaults.py``) and of code generation reuse this
list; a table entry without a spec fails ``test_every_entry_has_a_spec``.

Kinds:

* ``"smooth"``: the rule is the true derivative; the oracle is ``sympy.diff``.
* ``"nonsmooth"``: the ``"ad"`` rule is a convention; the oracle is
  ``expected`` (exact) and a central difference away from the kinks.
* ``"override"``: a rule with no node class of its own (``Identity``,
  ``Zero``), applied to ``build``'s node through an override map; the
  oracle is ``expected``.
* ``"marker"``: a symgrad node whose rule is by design not the derivative
  of its value (``stop_gradient``, ``straight_through``); the oracle is
  ``expected``.

A symgrad marker node of kind ``"smooth"`` (``sigmoid``) is compared with
``sympy.diff`` of the formula it lowers to.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from sympy import (
    Abs,
    Expr,
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
    cos,
    cosh,
    cot,
    coth,
    csc,
    csch,
    erf,
    erfc,
    exp,
    floor,
    frac,
    gamma,
    log,
    loggamma,
    polygamma,
    sec,
    sech,
    sign,
    sin,
    sinh,
    tan,
    tanh,
)

import symgrad.functions as _functions
import symgrad.nodes as _nodes
from symgrad import rint

__all__ = ["Spec", "SPECS", "specs_for"]

Domain = tuple[float, float]


@dataclass(frozen=True)
class Spec:
    """A sample node for one rule-table entry."""

    name: str  # the table entry
    build: Callable[..., Expr]  # symbols (one per differentiable argument) -> node
    domain: tuple[Domain, ...]  # an open interval per argument
    kind: str = "smooth"  # "smooth" | "nonsmooth" | "override" | "marker"
    valid: Callable[..., bool] | None = None  # keep sample points off kinks / poles
    expected: Callable[..., tuple] | None = None  # "ad" partials, for non-smooth / override
    label: str = ""  # tells apart several specs of one entry

    @property
    def arity(self) -> int:
        return len(self.domain)

    @property
    def id(self) -> str:
        return f"{self.name}[{self.label}]" if self.label else self.name

    def points(self, n: int = 3, seed: int = 0) -> list[tuple[float, ...]]:
        """``n`` seeded random points of the domain where ``valid`` holds."""
        rng = random.Random(f"{self.id}:{seed}")
        out: list[tuple[float, ...]] = []
        while len(out) < n:
            p = tuple(round(rng.uniform(lo, hi), 6) for lo, hi in self.domain)
            if self.valid is None or self.valid(*p):
                out.append(p)
        return out


def _away_from_integers(*v: float, gap: float = 0.05) -> bool:
    return all(abs(x - round(x)) > gap for x in v)


def _away_from_half_integers(x: float) -> bool:
    return abs((x - 0.5) - round(x - 0.5)) > 0.05


def _mod_ok(x: float, y: float) -> bool:
    q = x / y
    return abs(q - round(q)) > 0.05


def _smooth(name, build, *domain, valid=None, label="") -> Spec:
    return Spec(name, build, tuple(domain), "smooth", valid, None, label)


def _nonsmooth(name, build, expected, *domain, valid=None, label="") -> Spec:
    return Spec(name, build, tuple(domain), "nonsmooth", valid, expected, label)


def _zero(*args):
    return (S.Zero,) * len(args)


def _no_ties(*v: float) -> bool:
    return min(abs(a - b) for i, a in enumerate(v) for b in v[i + 1 :]) > 0.05


def _selected(v: tuple, sgn: int) -> tuple:
    """1 for the argument an extremum selects, else 0 (away from ties)."""
    return tuple(
        Mul(*[Heaviside(sgn * (a - b)) for j, b in enumerate(v) if j != i]) for i, a in enumerate(v)
    )


def _half_step(d: Expr) -> Expr:
    return Heaviside(d, S.Half)


WIDE = (-3.0, 3.0)
UNIT = (-0.9, 0.9)
POS = (0.1, 5.0)


def _nonzero(x: float) -> bool:
    return abs(x) > 0.1


def _outside_unit(x: float) -> bool:
    return abs(x) > 1.1


# fmt: off
SPECS: tuple[Spec, ...] = (
    # ---- arithmetic --------------------------------------------------------
    _smooth("Add",      lambda a, b, c: a + b + c,     WIDE, WIDE, WIDE),
    _smooth("Mul",      lambda a, b, c: a * b * c,     WIDE, WIDE, WIDE),
    _smooth("Pow",      lambda b, e: Pow(b, e),        (0.2, 3.0), (-2.5, 2.5)),
    _smooth("Pow",      lambda b: b**3,                WIDE, label="cube"),
    _smooth("Pow",      lambda b: 1 / b**2,            WIDE, valid=_nonzero, label="inverse"),
    _smooth("Pow",      lambda b: b ** S.Half,         POS, label="sqrt"),
    _smooth("Pow",      lambda b: b ** (S.One / 3),    POS, label="cbrt"),
    # ---- exponential and logarithmic ---------------------------------------
    _smooth("exp",      exp,                           WIDE),
    _smooth("log",      log,                           POS),
    # ---- trigonometric -----------------------------------------------------
    _smooth("sin",      sin,                           WIDE),
    _smooth("cos",      cos,                           WIDE),
    _smooth("tan",      tan,                           (-1.4, 1.4)),
    _smooth("cot",      cot,                           (0.1, 3.0)),
    _smooth("sec",      sec,                           (-1.4, 1.4)),
    _smooth("csc",      csc,                           (0.1, 3.0)),
    # ---- inverse trigonometric ---------------------------------------------
    _smooth("asin",     asin,                          UNIT),
    _smooth("acos",     acos,                          UNIT),
    _smooth("atan",     atan,                          WIDE),
    _smooth("acot",     acot,                          WIDE, valid=_nonzero),
    _smooth("asec",     asec,                          (-5.0, 5.0), valid=_outside_unit),
    _smooth("acsc",     acsc,                          (-5.0, 5.0), valid=_outside_unit),
    # atan2 is smooth off the origin and off its cut, the negative x-axis
    _smooth("atan2",    atan2,                         WIDE, WIDE,
            valid=lambda y, x: x > 0.1 or abs(y) > 0.1),
    # ---- hyperbolic --------------------------------------------------------
    _smooth("sinh",     sinh,                          WIDE),
    _smooth("cosh",     cosh,                          WIDE),
    _smooth("tanh",     tanh,                          WIDE),
    _smooth("coth",     coth,                          WIDE, valid=_nonzero),
    _smooth("sech",     sech,                          WIDE),
    _smooth("csch",     csch,                          WIDE, valid=_nonzero),
    # ---- inverse hyperbolic ------------------------------------------------
    _smooth("asinh",    asinh,                         WIDE),
    _smooth("acosh",    acosh,                         (1.1, 5.0)),
    _smooth("atanh",    atanh,                         UNIT),
    _smooth("acoth",    acoth,                         (-5.0, 5.0), valid=_outside_unit),
    _smooth("asech",    asech,                         (0.1, 0.9)),
    _smooth("acsch",    acsch,                         WIDE, valid=_nonzero),
    # ---- special functions -------------------------------------------------
    _smooth("erf",      erf,                           WIDE),
    _smooth("erfc",     erfc,                          WIDE),
    _smooth("gamma",    gamma,                         POS),
    _smooth("gamma",    gamma,                         (-2.9, -0.1), valid=_away_from_integers,
            label="negative"),
    _smooth("loggamma", loggamma,                      POS),
    _smooth("polygamma", lambda x: polygamma(0, x),    POS, label="digamma"),
    _smooth("polygamma", lambda x: polygamma(2, x),    POS, label="order2"),
    _smooth("LambertW", LambertW,                      (-0.35, 5.0)),
    _smooth("LambertW", lambda x: LambertW(x, -1),     (-0.35, -0.05), label="branch-1"),
    _smooth("Piecewise", lambda a, b: Piecewise((a**2, a > b), (sin(b), True)),
            WIDE, WIDE, valid=lambda a, b: abs(a - b) > 0.05),
    # ---- non-smooth: a subgradient, or the derivative of the smooth part ---
    _nonsmooth("Abs",   Abs,       lambda x: (sign(x),),                WIDE, valid=_nonzero),
    _nonsmooth("frac",  frac,      lambda x: (S.One,),                  WIDE,
               valid=_away_from_integers),
    _nonsmooth("Mod",   Mod,       lambda x, y: (S.One, -floor(x / y)), (-6.0, 6.0), (0.5, 2.5),
               valid=_mod_ok),
    _nonsmooth("Mod",   Mod,       lambda x, y: (S.One, -floor(x / y)), (-6.0, 6.0), (-2.5, -0.5),
               valid=_mod_ok, label="negative-divisor"),
    _nonsmooth("Max",   Max,       lambda a, b: (_half_step(a - b), _half_step(b - a)),
               WIDE, WIDE, valid=_no_ties),
    _nonsmooth("Min",   Min,       lambda a, b: (_half_step(b - a), _half_step(a - b)),
               WIDE, WIDE, valid=_no_ties),
    _nonsmooth("Max",   Max,       lambda *v: _selected(v, +1),         WIDE, WIDE, WIDE,
               valid=_no_ties, label="3-ary"),
    _nonsmooth("Min",   Min,       lambda *v: _selected(v, -1),         WIDE, WIDE, WIDE,
               valid=_no_ties, label="3-ary"),
    # ---- piecewise-constant: zero almost everywhere ------------------------
    _nonsmooth("floor",     floor,     _zero, WIDE, valid=_away_from_integers),
    _nonsmooth("ceiling",   ceiling,   _zero, WIDE, valid=_away_from_integers),
    _nonsmooth("rint",      rint,      _zero, WIDE, valid=_away_from_half_integers),
    _nonsmooth("sign",      sign,      _zero, WIDE, valid=_nonzero),
    _nonsmooth("Heaviside", Heaviside, _zero, WIDE, valid=_nonzero),
    # ---- rules that only overrides name ------------------------------------
    # Identity passes the cotangent through: the straight-through floor.
    Spec("Identity", floor, (WIDE,), "override", _away_from_integers, lambda x: (S.One,)),
    Spec("Identity", lambda a, b: Max(a, b), (WIDE, WIDE), "override",
         lambda a, b: abs(a - b) > 0.05, lambda a, b: (S.One, S.One), label="2-ary"),
    # Zero stops it: StopGradient.
    Spec("Zero",     sin,   (WIDE,), "override", None, _zero),
    Spec("Zero",     lambda a, b: a * b, (WIDE, WIDE), "override", None, _zero, label="2-ary"),
)
# fmt: on


def _own_nodes() -> tuple[Spec, ...]:
    """Specs of the entries for symgrad's own node classes."""
    f, n = _functions, _nodes
    made = {
        "stop_gradient": lambda: Spec("stop_gradient", n.stop_gradient, (WIDE,), "marker",
                                      None, _zero),
        "identity": lambda: _smooth("identity", n.identity, WIDE),
        "straight_through": lambda: Spec("straight_through", n.straight_through, (WIDE, WIDE),
                                         "marker", None, lambda fwd, bwd: (S.Zero, S.One)),
        "sigmoid": lambda: _smooth("sigmoid", f.sigmoid, WIDE),
        "softplus": lambda: _smooth("softplus", f.softplus, WIDE),
        "relu": lambda: _nonsmooth("relu", f.relu, lambda x: (Heaviside(x, 0),), WIDE,
                                   valid=_nonzero),
        "maximum": lambda: _nonsmooth("maximum", f.maximum,
                                      lambda a, b: (_half_step(a - b), _half_step(b - a)),
                                      WIDE, WIDE, valid=_no_ties),
        "minimum": lambda: _nonsmooth("minimum", f.minimum,
                                      lambda a, b: (_half_step(b - a), _half_step(a - b)),
                                      WIDE, WIDE, valid=_no_ties),
        "StopGradient": lambda: Spec("StopGradient", sin, (WIDE,), "override", None, _zero),
    }
    return tuple(make() for make in made.values())


SPECS = SPECS + _own_nodes()


def specs_for(name: str) -> list[Spec]:
    """Every spec of the table entry ``name``."""
    return [s for s in SPECS if s.name == name]
