"""Which rule differentiates a node.

Precedence, highest first: the node's own tag (``override(expr, ...)``), the
innermost active ``gradient_override_map``, the rule table, the node's own
rule (custom-gradient nodes), and finally SymPy's own ``fdiff``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from sympy import Basic, Function

from .matrices.rules import matrix_rule
from .rules import DEFAULT_TABLE, NONSMOOTH, Opts, Rule, RuleTable
from .rules.forms import FdiffRule, SympyChainRule, SympyLeafRule

__all__ = ["node_name", "resolve", "resolver", "ACTIVE_MAPS", "note_differentiation"]

# Stack of active override maps (node name -> rule name), innermost last.
# A ContextVar makes it local to each thread and each asyncio task.
ACTIVE_MAPS: ContextVar[tuple[dict[str, str], ...]] = ContextVar(
    "symgrad_override_maps", default=()
)


def note_differentiation() -> None:
    """Tell the active override maps that a differentiation runs inside them
    (a block that saw none warns on exit), whether or not a node consults
    them: grad(x, x) inside a block is a use of it."""
    for mapping in ACTIVE_MAPS.get():
        if hasattr(mapping, "consulted"):
            mapping.consulted = True


def node_name(node: Basic) -> str:
    """The name rules and overrides use for ``node``: its SymPy class name,
    or the name a symgrad marker node declares."""
    return getattr(type(node), "_symgrad_name", type(node).__name__)


def resolve(node: Basic, opts: Opts, table: RuleTable = DEFAULT_TABLE) -> Rule:
    """The rule that differentiates ``node`` under ``opts``.

    >>> from sympy import floor, sin, Symbol
    >>> x = Symbol("x")
    >>> resolve(sin(x), Opts()).name, resolve(floor(x), Opts()).name
    ('sin', 'floor')
    """
    tag = getattr(type(node), "_symgrad_tag", None)
    if tag is not None:
        return tag if isinstance(tag, Rule) else table.rule(tag)
    name = node_name(node)
    for mapping in reversed(ACTIVE_MAPS.get()):
        target = mapping.get(name)
        if target is not None:
            return table.rule(target)
    if opts.convention == "distribution" and name in NONSMOOTH:
        if table.for_node(node, name) is not None:
            return SympyChainRule(name)
    rule = matrix_rule(node)
    if rule is not None:
        return rule
    rule = table.for_node(node, name)
    if rule is not None:
        return rule
    own = getattr(node, "_symgrad_rule", None)  # a custom function's node
    if own is not None:
        return own
    if isinstance(node, Function):
        return FdiffRule(name)
    return SympyLeafRule(name)


def resolver(opts: Opts, table: RuleTable = DEFAULT_TABLE) -> Callable[[Basic], Rule]:
    """:func:`resolve` for one walk: the rule of a node whose rule depends on
    its class alone (no custom function's own rule, not a matrix) is looked
    up once per class.  Valid while the table and the override maps do not
    change (one walk).

    >>> from sympy import sin, Symbol
    >>> x = Symbol("x")
    >>> rule_of = resolver(Opts())
    >>> rule_of(sin(x)) is rule_of(sin(x + 1)) is resolve(sin(x), Opts())
    True
    """
    known: dict[type, Rule] = {}

    def rule_of(node: Basic) -> Rule:
        cls = type(node)
        rule = known.get(cls)
        if rule is None:
            rule = resolve(node, opts, table)
            if _by_class(cls):
                known[cls] = rule
        return rule

    return rule_of


def _by_class(cls: type) -> bool:
    """Whether :func:`resolve` answers for ``cls``'s nodes from the class
    alone: no per-node rule (custom functions) and a plain ``is_Matrix``."""
    return (
        not hasattr(cls, "_symgrad_rule") and not hasattr(cls, "_symgrad_matrix_rule")
        and getattr(cls, "is_Matrix", False) is False
    )
