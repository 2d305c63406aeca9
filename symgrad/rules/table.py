"""The rule table: a name -> rule mapping, with the SymPy class each built-in
entry belongs to, and TensorFlow's op names as aliases."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from sympy import Basic

from ..errors import NoRuleError, SymgradError
from .forms import Rule

__all__ = ["Entry", "RuleTable", "TF_ALIASES", "TF_ALSO", "TF_POWER_OPS"]

# TensorFlow op name -> symgrad node name.  Accepted wherever a name is
# taken; as a rule name an entry of the table wins over an alias (so
# "Identity" and "StopGradient" name the built-in rules).
TF_ALIASES: dict[str, str] = {
    "Floor": "floor",
    "Ceil": "ceiling",
    "Round": "rint",
    "Rint": "rint",
    "Sign": "sign",
    "Exp": "exp",
    "Log": "log",
    "Abs": "Abs",
    "AddV2": "Add",
    "AddN": "Add",
    "Mul": "Mul",
    "Sin": "sin",
    "Cos": "cos",
    "Tan": "tan",
    "Asin": "asin",
    "Acos": "acos",
    "Atan": "atan",
    "Atan2": "atan2",
    "Sinh": "sinh",
    "Cosh": "cosh",
    "Tanh": "tanh",
    "Asinh": "asinh",
    "Acosh": "acosh",
    "Atanh": "atanh",
    "Erf": "erf",
    "Erfc": "erfc",
    "Lgamma": "loggamma",
    "Digamma": "polygamma",
    "Polygamma": "polygamma",
    "FloorMod": "Mod",
    "Maximum": "Max",
    "Minimum": "Min",
    "Select": "Piecewise",
    "SelectV2": "Piecewise",
    "StopGradient": "stop_gradient",
    "PreventGradient": "stop_gradient",
    "Identity": "identity",
    "IdentityN": "identity",
    "Sigmoid": "sigmoid",
    "Softplus": "softplus",
    "Relu": "relu",
}


# TensorFlow names that also key symgrad's own node of the op: tf.maximum is
# both SymPy's Max (what a formula holds) and symgrad.maximum (order-keeping,
# what a port of TensorFlow code holds), so a ported map reaches both.
TF_ALSO: dict[str, tuple[str, ...]] = {"Maximum": ("maximum",), "Minimum": ("minimum",)}


# TensorFlow ops that SymPy writes as a power: no node of their own, and
# mapping "Pow" would change the gradient of every power in the formula.
TF_POWER_OPS: dict[str, str] = {
    "Sqrt": "sqrt(x) is Pow(x, 1/2)",
    "Rsqrt": "1/sqrt(x) is Pow(x, -1/2)",
    "Square": "x**2 is Pow(x, 2)",
    "Reciprocal": "1/x is Pow(x, -1)",
    "Inv": "1/x is Pow(x, -1)",
}


@dataclass(frozen=True)
class Entry:
    """A rule and, for built-in entries, the SymPy class it applies to.

    ``cls is None`` (a user-registered name) matches any node whose class
    is so named, including an undefined function ``Function('f')``.
    """

    rule: Rule
    cls: type | None = None


class RuleTable:
    """Named derivative rules.  Lookups accept TensorFlow aliases."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}

    # -- building ---------------------------------------------------------
    def add(self, name: str, rule: Rule, cls: type | None = None, *, replace: bool = False) -> None:
        self.check_free(name, replace)
        rule.name = name
        self._entries[name] = Entry(rule, cls)

    def check_free(self, name: str, replace: bool = False) -> None:
        """An error unless ``name`` may be (re)registered."""
        if name in self._entries and not replace:
            raise SymgradError(
                f"a gradient rule named {name!r} is already registered; "
                "pass replace=True to replace it"
            )

    def registered(self, name: str) -> Entry | None:
        """The entry registered under exactly ``name`` (no aliases), if any."""
        return self._entries.get(name)

    def remove(self, name: str) -> None:
        del self._entries[name]

    # -- looking up -------------------------------------------------------
    def canonical(self, name: str) -> str:
        """``name`` with a TensorFlow alias resolved (names win over aliases)."""
        if name in self._entries:
            return name
        return TF_ALIASES.get(name, name)

    def __contains__(self, name: str) -> bool:
        return self.canonical(name) in self._entries

    def names(self) -> list[str]:
        return sorted(self._entries)

    def entry(self, name: str) -> Entry:
        """The entry for a rule name (or alias); a clear error if unknown."""
        key = self.canonical(name)
        try:
            return self._entries[key]
        except KeyError:
            known = self.known_names()
            raise NoRuleError(unknown_name_message(name, "gradient rule", known)) from None

    def rule(self, name: str) -> Rule:
        return self.entry(name).rule

    def for_node(self, node: Basic, name: str | None = None) -> Rule | None:
        """The rule registered for ``node``'s name, if it applies to it."""
        e = self._entries.get(type(node).__name__ if name is None else name)
        if e is None or (e.cls is not None and not isinstance(node, e.cls)):
            return None
        return e.rule

    def known_names(self) -> list[str]:
        return sorted(set(self._entries) | set(TF_ALIASES))


def unknown_name_message(name: str, kind: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if not close:
        lowered = {k.lower(): k for k in known}
        close = [lowered[name.lower()]] if name.lower() in lowered else []
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else "."
    return (
        f"unknown {kind} {name!r}{hint} Register one with "
        f"symgrad.register_gradient({name!r})"
    )
