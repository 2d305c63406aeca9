"""Calling a user's rule and checking its answer: every value a rule returns
is a SymPy expression, a number or None, in the number asked for, and an
exception inside a rule is reported naming the rule and the node.
"""

from __future__ import annotations

from collections.abc import Callable

from sympy import Basic, Expr, sympify
from sympy.core.sympify import SympifyError

from ..errors import RuleError, describe

__all__ = ["as_expr", "as_tuple"]


def as_expr(value: object, rule: str, node: Basic, what: str) -> Expr | None:
    """Validate one value a rule returned: a SymPy expression, a number or None."""
    if value is None:
        return None
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, Basic)):
        raise RuleError(
            f"rule {rule!r} returned {value!r} ({type(value).__name__}) as {what} "
            f"for node {describe(node)}; a rule must return SymPy expressions, numbers or None"
        )
    try:
        out = sympify(value, strict=True)
    except SympifyError as exc:  # pragma: no cover - guarded above
        raise RuleError(f"rule {rule!r} returned {value!r} for node {describe(node)}") from exc
    if not isinstance(out, Expr):
        raise RuleError(
            f"rule {rule!r} returned {value!r} ({type(value).__name__}) as {what} "
            f"for node {describe(node)}; a rule must return SymPy expressions, numbers or None"
        )
    return out


def as_tuple(value: object, n: int, rule: str, node: Basic, what: str) -> tuple:
    """A rule's answer as a tuple of ``n`` expressions (or None), checked."""
    if n == 1 and not isinstance(value, (tuple, list)):
        value = (value,)
    if not isinstance(value, (tuple, list)):
        raise RuleError(
            f"rule {rule!r} returned {value!r} for node {describe(node)} with {n} arguments; "
            f"it must return a tuple of {n} {what}"
        )
    if len(value) != n:
        raise RuleError(
            f"rule {rule!r} returned {len(value)} {what} for node {describe(node)}, "
            f"which has {n} argument{'s' if n != 1 else ''}; return one per argument "
            "(None for an argument that gets no gradient)"
        )
    return tuple(as_expr(v, rule, node, what[:-1] if what.endswith("s") else what) for v in value)


def _call(rule: str, node: Basic, fn: Callable, *args: object) -> object:
    try:
        return fn(*args)
    except RuleError:
        raise
    except RecursionError as exc:
        raise RuleError(
            f"rule {rule!r} hit Python's recursion limit while differentiating node "
            f"{describe(node)}: the rule walks a very deep expression (arguments over 32 "
            "levels reach a rule as placeholders, so it walks the node itself or builds "
            "something of it that SymPy walks: subs, free_symbols, simplify); write the "
            "rule from node.args and its output only"
        ) from exc
    except Exception as exc:
        raise RuleError(
            f"rule {rule!r} raised {type(exc).__name__}: {exc} while differentiating "
            f"node {describe(node)}"
        ) from exc
