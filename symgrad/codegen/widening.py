"""Code for ``widen(u)``: its subtree computed in the next wider float type.

Before emission each ``widen(u)`` becomes ``_Narrow(u', *leaves)``, where
``u'`` is ``u`` over ``_Up(s)`` in place of each of its symbols ``s``:
a DAG of its own, so the wide copy of a subexpression is never confused
with (or shared with) the narrow one the rest of the program computes, and
two widened subtrees share what they have in common.  A ``widen`` inside a
widened subtree is already wide (it is dropped).  The generated module
then defines three helpers (:data:`WIDEN_HELPERS`): ``_up`` casts an input
up (float16 → float32 → float64 → ``np.longdouble`` where it has more than
52 mantissa bits, else float64; complex likewise), ``_down`` casts the
result back to the type of the subtree's inputs, and ``_d64`` feeds a
``scipy.special`` function, which has no long double loops, float64 (its
value is then as accurate as float64 gives, not wider).  Constants are
Python floats (``np.pi``, ``1/3``): rounded to float64.
"""

from __future__ import annotations

import re

from sympy import Basic, Function, Symbol

from ..build import bare, cancelling, mapped
from ..graph import postorder
from ..widen import widen
from . import widen_helpers
from .printer import KernelPrinter
from .texts import module_text

__all__ = ["widened", "WIDEN_HELPERS", "WIDEN_NAMES", "uses_widen"]


class _Up(Function):
    """A symbol's value cast up to the wider type (codegen only)."""

    nargs = 1

    def _numpycode(self, printer) -> str:
        return f"_up({printer._print(self.args[0])})"


class _Narrow(Function):
    """A wide value cast back to the type of the inputs after it (codegen only)."""

    def _numpycode(self, printer) -> str:
        return f"_down({', '.join(printer._print(a) for a in self.args)})"


class _D64(Function):
    """A wide value cast to float64 for a function without wider loops."""

    nargs = 1

    def _numpycode(self, printer) -> str:
        return f"_d64({printer._print(self.args[0])})"


_SCIPY_ONLY: dict[tuple[type, int], bool] = {}


def _scipy_only(node: Basic) -> bool:
    """Whether generated code computes ``node``'s class with ``scipy.special``
    (no long double loops), found by printing it over placeholders."""
    key = (type(node), len(node.args))
    got = _SCIPY_ONLY.get(key)
    if got is None:
        holes = [Symbol(f"_h{i}") for i in range(len(node.args))]
        try:
            code = KernelPrinter(complex_=False)._print(bare(type(node), holes))
        except Exception:  # noqa: BLE001  (no form at all: emission will say so)
            code = ""
        got = _SCIPY_ONLY[key] = "scipy.special." in code
    return got


def widened(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each ``widen(u)`` replaced by code-only nodes that
    compute ``u`` wide and cast it back (see the module's docstring);
    roots without ``widen`` come back as they are."""
    order, _ = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, widen) for n in order):
        return roots
    wide: dict[Basic, Basic] = {}  # node -> its wide copy (every widened subtree's)

    def up(n: Basic, args: tuple) -> Basic | None:  # a node of a wide copy
        if isinstance(n, Symbol):
            return _Up(n)
        if isinstance(n, widen):  # (already wide)
            return args[0]
        if args and isinstance(n, Function) and _scipy_only(n):
            return cancelling(n, tuple(a if a.is_Number else _D64(a) for a in args))
        return None  # (cancelling where an argument changed)

    def narrow(n: Basic, args: tuple) -> Basic | None:
        if not isinstance(n, widen):
            return None
        u = n.args[0]
        leaves = sorted((s for s in postorder([u], lambda m: m.args)[0]
                         if isinstance(s, Symbol)), key=str)
        if not leaves:  # a constant: nothing to widen
            return args[0]
        return bare(_Narrow, (mapped([u], cancelling, hook=up, memo=wide)[0], *leaves))

    return mapped(roots, cancelling, hook=narrow)


_UP_CALL = re.compile(r"\b_up\(")

WIDEN_NAMES = frozenset({"_up", "_down", "_d64", "_LONG", "_CLONG", "_WIDER"})


def uses_widen(code: str) -> bool:
    """Whether generated code calls the widening helpers."""
    return _UP_CALL.search(code) is not None


WIDEN_HELPERS = module_text(widen_helpers)
