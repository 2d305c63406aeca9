"""What the entry point may assume of a program's values (``Program.typed``,
``Program.fresh``), read from the formula's DAG: which nodes depend on an
argument, which keep the arguments' float type, and whether every result
is a new array."""

from __future__ import annotations

from sympy import Basic, Max, Min, Piecewise, im, re

from .printer import folded_constant

__all__ = ["depending", "fresh", "keeps_type"]


# Modules whose functions print as a NumPy or scipy.special call that makes a
# new array (a ufunc, or np.where over one); re and im are not among them
# (np.real of a real array is the array itself, np.imag a read-only one).
_NEW_ARRAY_MODULES = ("sympy.functions.", "sympy.codegen.cfunctions", "symgrad.functions",
                      "symgrad.rewrites.", "symgrad.codegen.regions")


def depending(order: list, kids: dict, leaf_names: dict) -> set:
    """The nodes that depend on an argument."""
    depends = set(leaf_names)
    for node in order:
        if node not in depends and any(k in depends for k in kids[node]):
            depends.add(node)
    return depends


def fresh(depends: set, roots: list, leaf_names: dict) -> bool:
    """Whether every root is an operation making a new array that depends on
    an argument: a sum or product of two or more terms, a power, a
    ``Piecewise``, ``Max``/``Min``, or a function printed as a NumPy or
    scipy.special call (never an argument itself, a constant, ``re``/``im``,
    or a helper's call, whose value may be a view of an argument)."""
    for r in roots:
        if r not in depends or r in leaf_names:
            return False
        if r.is_Add or r.is_Mul:
            if len(r.args) < 2:
                return False
        elif not (r.is_Pow or isinstance(r, (Piecewise, Max, Min))):
            mod = type(r).__module__
            if not mod.startswith(_NEW_ARRAY_MODULES) or isinstance(r, (re, im)):
                return False
    return True


# Functions whose NumPy code gives, on arrays of one float type and Python
# numbers, an array of that type (scipy.special's may compute float32 in
# float64; np.where of two Python numbers is an integer or float64 array;
# helpers compute on integers too)
_SAME_TYPE_FUNCTIONS = frozenset({
    "sin", "cos", "tan", "exp", "log", "tanh", "sinh", "cosh", "asin", "acos", "atan",
    "asinh", "acosh", "atanh", "Abs", "sign", "floor", "ceiling", "log1p", "expm1", "hypot",
    "exp2", "log2", "log10", "atan2", "Max", "Min", "logaddexp", "rint",
})


def keeps_type(node: Basic, depends: set) -> bool:
    """Whether ``node``'s code keeps the arguments' float type, so that a
    constant beside it can be an array of that type (printer.as_calls); an
    operation on numbers only is a Python float where the printer folds
    it (``sqrt(2)``: printer.folded_constant), else it may be a float64
    NumPy scalar (``exp(1000)``'s ``np.exp(1000)``)."""
    if not node.args:
        return True
    if node not in depends:
        return folded_constant(node) is not None
    if node.is_Add or node.is_Mul:
        return True
    if node.is_Pow:
        return node.args[1].is_Number or node.args[1].is_Symbol
    return type(node).__name__ in _SAME_TYPE_FUNCTIONS
