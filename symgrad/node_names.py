"""Node names, as rule overrides take them: SymPy class names, symgrad's
rule-table names and TensorFlow op names, resolved to the one the rule
table uses, or refused with a reason (a leaf or a condition is never
differentiated) and close matches.  :mod:`symgrad.overrides` registers and
scopes rules by these names.
"""

from __future__ import annotations

from sympy import Atom, Basic, Expr

from .errors import NoRuleError, SymgradError
from .rules import DEFAULT_TABLE, TF_ALIASES
from .rules.table import TF_POWER_OPS, unknown_name_message

__all__ = ["canonical_node_name", "known_node_names"]


def _sympy_classes() -> dict[str, list[type]]:
    """Every SymPy expression class alive now (user functions
    ``Function('f')`` included), by name; walked iteratively."""
    names: dict[str, list[type]] = {}
    stack = [Basic]
    seen: set[type] = set()
    while stack:
        cls = stack.pop()
        for sub in type.__subclasses__(cls) if isinstance(cls, type) else ():
            if sub not in seen:
                seen.add(sub)
                names.setdefault(sub.__name__, []).append(sub)
                stack.append(sub)
    return names


def _sympy_class_names() -> set[str]:
    return set(_sympy_classes())


def _never_differentiated(name: str) -> str | None:
    """Why no node called ``name`` is ever given to a rule, or None."""
    classes = _sympy_classes().get(name, [])
    if not classes or name in DEFAULT_TABLE:
        return None
    if all(issubclass(c, Atom) and issubclass(c, Expr) for c in classes):
        return (
            f"{name!r} names a leaf (a symbol or number, which has no arguments), so no rule "
            "is ever asked to differentiate it: a symbol's derivative with respect to "
            "itself is 1 by definition, a number's is 0"
        )
    if all(not issubclass(c, Expr) for c in classes):
        return (
            f"{name!r} is not an expression ({classes[0].__mro__[1].__name__}): conditions, "
            "relations and containers never receive a gradient (a Piecewise's conditions "
            "get none), so no rule is ever asked to differentiate one"
        )
    return None


def known_node_names() -> list[str]:
    return sorted(_sympy_class_names() | set(DEFAULT_TABLE.names()) | set(TF_ALIASES))


def canonical_node_name(name: str) -> str:
    """A node name with a TensorFlow op name resolved (``"Floor"`` ->
    ``"floor"``); an unknown name is an error suggesting close matches.

    >>> canonical_node_name("Floor"), canonical_node_name("exp")
    ('floor', 'exp')
    """
    if not isinstance(name, str):
        raise TypeError(f"a node name must be a string, not {name!r} ({type(name).__name__})")
    if name in TF_ALIASES:
        return TF_ALIASES[name]
    if name in TF_POWER_OPS:
        raise NoRuleError(
            f"TensorFlow's {name!r} has no node of its own in SymPy ({TF_POWER_OPS[name]}), "
            "and mapping 'Pow' would change the gradient of every power in the formula. "
            "Wrap the subexpression in symgrad.identity(...) and map 'identity' "
            "(or override(identity(...), {'identity': rule})); map 'Pow' only if you "
            "mean every power"
        )
    if name in DEFAULT_TABLE or name in _sympy_class_names():
        why = _never_differentiated(name)
        if why is not None:
            raise SymgradError(
                f"cannot override {name!r}: {why}. Map the function node whose gradient you "
                "want to change (floor, Abs, Max, a custom function, ...)"
            )
        return name
    raise NoRuleError(
        unknown_name_message(name, "node name", known_node_names()).split(" Register")[0]
        + " Node names are SymPy class names (floor, Abs, exp, Max, Piecewise, ...), "
        "symgrad's (stop_gradient, identity, sigmoid, ...) or TensorFlow op names."
    )


def _canonical_rule_name(name: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"a rule name must be a string, not {name!r} ({type(name).__name__})")
    DEFAULT_TABLE.entry(name)  # a clear error, with suggestions, if unknown
    return DEFAULT_TABLE.canonical(name)
