"""Marker nodes: SymPy ``Function`` subclasses that evaluate like what they
wrap and differ only in how they are differentiated.

Every marker says how it *lowers* (what is evaluated in its place) through
``_symgrad_lower(self, *args)``, called with its arguments already lowered;
the lowering pass (:mod:`symgrad.lowering`) knows no marker by name.  The
name rules and overrides use for it is ``_symgrad_name``.
"""

from __future__ import annotations

from sympy import Expr, Function

__all__ = ["Marker", "is_marker"]


class Marker(Function):
    """Base class of symgrad's marker nodes.

    Subclasses set ``_symgrad_name`` (the name rules and override maps use)
    and override ``_symgrad_lower`` when the node is not simply its first
    argument.
    """

    _symgrad_name: str = "Marker"

    def _symgrad_lower(self, *args: Expr) -> Expr:
        return args[0]

    def _eval_evalf(self, prec):
        return self._symgrad_lower(*self.args)._eval_evalf(prec)

    def _eval_is_real(self):
        return self._symgrad_lower(*self.args).is_real


def is_marker(node: object) -> bool:
    """Whether ``node`` lowers to something else before evaluation."""
    return hasattr(type(node), "_symgrad_lower")
