"""Complex values in generated code.

Symbols are real, so the arguments of generated code are real; a value is
complex only where the formula holds ``I`` (a program with ``I`` outside
``Piecewise`` branches, or made with a complex ``dtype``, has complex
results).  NumPy has no complex form of ``floor``, ``Mod``, ``Heaviside``,
...; worse, ``np.maximum`` and comparisons order complex numbers
lexicographically.  So such a function receiving a value that holds ``I`` is
refused when the code is built, naming it.
"""

from __future__ import annotations

from sympy import (
    Abs,
    Basic,
    Heaviside,
    Max,
    Min,
    Mod,
    S,
    arg,
    atan2,
    ceiling,
    erfcinv,
    erfinv,
    floor,
    frac,
    im,
    polygamma,
    re,
    zeta,
)
from sympy.core.relational import Relational

from ..functions import rint
from ..graph import postorder
from .checks import describe
from .printer import NoNumpyFormError

__all__ = ["refuse_complex_arguments", "realizes_i"]

# Functions NumPy and SciPy evaluate on real numbers only (np.maximum, np.greater
# order complex numbers lexicographically: a silent wrong answer, not an error).
_REAL_ONLY = (
    floor, ceiling, frac, Mod, Heaviside, Max, Min, atan2, Relational, rint,
    polygamma, erfinv, erfcinv, zeta,
)
_REALIZING = (Abs, re, im, arg)  # real whatever their argument


def refuse_complex_arguments(roots: list[Basic]) -> None:
    """In a complex program, a function that has no complex meaning must not
    receive a value holding ``I``: refuse it, naming it."""
    order, kids = postorder(roots, lambda n: n.args)
    holds_i: set[Basic] = set()
    for node in order:
        if node is S.ImaginaryUnit:
            holds_i.add(node)
        elif not isinstance(node, _REALIZING) and any(k in holds_i for k in kids[node]):
            if isinstance(node, _REAL_ONLY):
                raise NoNumpyFormError(
                    f"{describe(node)} receives a complex value (its argument holds I); "
                    f"{type(node).__name__} has no complex meaning in generated code. Take "
                    "the real part (sympy.re) or the modulus (Abs) of its argument first"
                )
            holds_i.add(node)


def realizes_i(roots: list[Basic]) -> bool:
    """Whether a function that is real whatever its argument (``Abs``,
    ``re``, ``im``, ``arg``) receives a value holding ``I``."""
    order, kids = postorder(roots, lambda n: n.args)
    holds_i: set[Basic] = set()
    for node in order:
        if node is S.ImaginaryUnit:
            holds_i.add(node)
        elif any(k in holds_i for k in kids[node]):
            if isinstance(node, _REALIZING):
                return True
            holds_i.add(node)
    return False
