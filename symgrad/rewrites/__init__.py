"""The one library of accurate rewrites (the lowering stage of the pipeline).

Each rewrite carries its template, its domain of validity and the example
its proof measures (:mod:`.library`).  Code generation applies the
``codegen`` scope to everything it emits (:func:`accurate_forms`);
``stabilize=True`` in ``grad`` / ``lambdify`` adds the ``safe`` scope
(:func:`safe_forms`); :func:`symgrad.stabilize` chooses among all of them,
and among algebraic transforms, regimes and series, by measurement.
"""

from ..lowering import lower
from .expsums import with_normalized_sums
from .facts import Facts
from .forms import Sigmoid, Softplus
from .library import LIBRARY, by_name, in_scope
from .rewrite import SCOPES, Example, Rewrite, apply_rewrites, replace_nodes
from .signs import fold_signs

__all__ = [
    "LIBRARY",
    "SCOPES",
    "Example",
    "Facts",
    "Rewrite",
    "Sigmoid",
    "Softplus",
    "accurate_forms",
    "apply_rewrites",
    "by_name",
    "in_scope",
    "replace_nodes",
    "safe_forms",
    "lowered_safe_forms",
]


def accurate_forms(exprs: list, domain: dict | None = None) -> list:
    """``exprs`` with the ``codegen`` rewrites applied: the forms code
    generation emits for every formula.

    >>> from sympy import symbols, log, exp, sqrt
    >>> x, y = symbols("x y")
    >>> accurate_forms([log(1 + exp(x * y)), sqrt(x**2 + y**2), exp(x) - 1, log(x + 1)])
    [log1p(exp(-Abs(x*y))) + Max(0, x*y), hypot(x, y), expm1(x), log1p(x)]
    """
    return apply_rewrites(exprs, _CODEGEN, Facts(domain))


def safe_forms(exprs: list, domain: dict | None = None) -> list:
    """``exprs`` with the ``codegen`` and ``safe`` rewrites applied, valid
    on ``domain`` (symbol -> (lo, hi); all reals where None), and the sums
    of exponentials left normalized by their largest exponent where that
    loses nothing (:func:`~symgrad.rewrites.expsums.normalized_safe`):
    what ``stabilize=True`` does without measuring.

    >>> from sympy import symbols, exp
    >>> x = symbols("x")
    >>> safe_forms([exp(x) / (1 + exp(x))])
    [Piecewise((1, x >= 0), (exp(-Abs(x)), True))/(1 + exp(-Abs(x)))]
    """
    return with_normalized_sums(fold_signs(exprs), _SAFE, Facts(domain))


def lowered_safe_forms(exprs: list, domain: dict | None = None) -> list:
    """``exprs`` lowered (markers dropped), then :func:`safe_forms`: what
    ``grad(..., stabilize=True)`` returns (the package installs it there,
    :data:`symgrad.autodiff.stabilized`).

    >>> from sympy import symbols, exp
    >>> from symgrad import stop_gradient
    >>> x = symbols("x")
    >>> lowered_safe_forms([stop_gradient(exp(x)) - 1])
    [expm1(x)]
    """
    return safe_forms(lower(exprs), domain)


_CODEGEN = in_scope("codegen")
_SAFE = in_scope("codegen", "safe")
