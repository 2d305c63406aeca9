"""The sentences that explain a region: an event, a local error, where the
formula has no real value, and an event that leaves the result right."""

from __future__ import annotations

import math

from sympy import Add, Basic, S, exp

from ..brief import brief
from .bits import Format

__all__ = ["why_event", "why_local", "why_undefined", "why_harmless"]


def why_event(node: Basic, over: bool, output_value: float, fmt: Format) -> str:
    if over:
        if isinstance(node, exp):
            text = (f"{brief(node)} overflows to inf where {brief(node.args[0])} > "
                    f"{math.log(fmt.max):.6g} = log(max {fmt.name})")
        else:
            text = f"{brief(node)} overflows to +-inf"
    elif node.is_Mul or node.is_Pow:
        text = f"{brief(node)} is NaN from finite operands (0/0, or a root of a negative number)"
    elif node.is_Add:
        text = f"{brief(node)} is NaN from finite operands"
    else:
        text = (f"{brief(node)} is NaN: an argument of {type(node).__name__} leaves its domain "
                "through rounding (the exact argument is inside it)")
    if math.isnan(output_value):
        return text + ", and the result is NaN"
    if math.isinf(output_value):
        return text + ", and the result is infinite"
    return text + ", and the result is wrong"


def why_local(node: Basic, cond: float, under: bool) -> str:
    if under:
        return (f"{brief(node)} underflows: it or an operand rounds to 0 or a subnormal where the "
                "exact value is not that small, and the result is wrong")
    if isinstance(node, Add):
        return (f"{brief(node)} cancels: its terms are {cond:.3g} times larger than their sum, so "
                "their rounding errors are amplified")
    return (f"{brief(node)} is ill-conditioned here: it amplifies the rounding errors of its "
            "arguments")


def why_undefined(node: Basic) -> str:
    """Why ``node`` has no real value (its operands have one)."""
    name = type(node).__name__
    if node.is_Pow and node.exp.is_negative and node.exp.is_integer:
        text = f"{brief(node)} divides by zero: {brief(node.base)} = 0"
    elif node.is_Pow and node.exp == S.Half:
        text = f"{brief(node)} is a square root of {brief(node.base)} < 0"
    elif node.is_Pow and node.exp.is_positive:
        text = f"{brief(node)} is a root (a real power) of {brief(node.base)} < 0"
    elif node.is_Pow:
        text = f"{brief(node)} is a negative real power of {brief(node.base)} <= 0"
    elif name in ("log", "log2", "loggamma"):
        text = f"{brief(node)} is a log of {brief(node.args[0])} <= 0"
    elif name == "log1p":
        text = f"{brief(node)} is a log of 1 + {brief(node.args[0])} <= 0"
    elif name in ("gamma", "polygamma"):
        text = f"{brief(node)} is at a pole: its argument is a non-positive integer"
    elif name == "Piecewise":
        text = f"no branch of {brief(node)} holds"
    elif node.args:
        text = f"{brief(node)}: {brief(node.args[-1])} is outside the domain of {name}"
    else:
        text = f"{brief(node)} has no real value"
    return text + "; the formula has no real value here, and a NaN or inf from the code is right"


def why_harmless(node: Basic, over: bool, truth: float, fmt: Format) -> str:
    inf = "inf" if isinstance(node, exp) else "+-inf"
    if over and math.isinf(truth):
        return (f"{brief(node)} overflows to {inf}, and so does the result: its exact value is "
                f"beyond the largest {fmt.name}, so {inf} is its correctly rounded value")
    if over:
        return f"{brief(node)} overflows to {inf}, but the result is still right"
    return f"{brief(node)} is NaN, but the result is still right"
