"""What generated code cannot evaluate, refused before emission with an
error naming the node: a symbol that is not an argument, an undefined
function, an unevaluated derivative or integral."""

from __future__ import annotations

from sympy import Basic, Derivative, Integral, Subs, Symbol
from sympy.core.function import AppliedUndef

from .printer import NoNumpyFormError

__all__ = ["describe", "check_nodes"]

_UNEVALUATED = (Derivative, Integral, Subs)


def describe(node: Basic, depth: int = 3) -> str:
    """``node`` printed to a bounded depth (``…`` below), for error messages.

    >>> from sympy import symbols, sin, exp
    >>> x = symbols("x")
    >>> describe(sin(exp(sin(exp(x)))), depth=2)
    'sin(exp(…))'
    """
    if not node.args:
        return str(node)
    if depth == 0:
        return "…"
    if isinstance(node, AppliedUndef):
        name = str(node.func)
    else:
        name = type(node).__name__
    return f"{name}({', '.join(describe(a, depth - 1) for a in node.args)})"


def _check(node: Basic) -> None:
    if isinstance(node, AppliedUndef):
        raise NoNumpyFormError(
            f"the expression holds the undefined function {describe(node)}; NumPy code can only "
            f"evaluate known functions. Substitute a formula for {node.func}(...) "
            "(expr.subs(f(x), ...)) or make it a symbol before generating code"
        )
    if isinstance(node, _UNEVALUATED):
        kind = type(node).__name__
        raise NoNumpyFormError(
            f"the expression holds an unevaluated {kind}: {describe(node)}; call .doit() on it, or "
            "differentiate with symgrad.grad (which never leaves Derivative nodes for "
            "known functions), before generating code"
        )


def check_nodes(order: list, kids: dict, leaf_names: dict[Basic, str]) -> None:
    """Refuse what generated code cannot evaluate, naming it: a symbol that
    is not an argument, an undefined function, an unevaluated derivative.

    >>> from sympy import symbols, Function
    >>> x, y = symbols("x y")
    >>> e = x + y
    >>> try:
    ...     check_nodes([x, y, e], {x: (), y: (), e: (x, y)}, {x: "x"})
    ... except NoNumpyFormError as err:
    ...     print(str(err)[:58])
    the expression depends on y, which is not among the argume
    """
    # a symbol, or a symbol-like node (MatrixSymbol, Indexed, ...), that is not
    # an argument: the printer would write its name, a user's string, as code
    missing = sorted(
        {
            str(n) if isinstance(n, Symbol) else f"{n} (a {type(n).__name__})"
            for n in order
            if getattr(n, "is_symbol", False)
            and n not in leaf_names
            and not any(getattr(k, "is_symbol", False) for k in kids[n])
        }
    )
    if missing:
        raise NoNumpyFormError(
            f"the expression depends on {', '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not among the arguments; "
            "add them to args or substitute values for them"
        )
    for node in sorted(order, key=lambda n: not isinstance(n, _UNEVALUATED)):
        _check(node)  # an unevaluated Derivative is named before the f(x) inside it
