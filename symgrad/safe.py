"""Taking what users pass as SymPy objects, without ever evaluating text.

SymPy's ``sympify`` evaluates a string as Python (``sympify("__import__('os')
.system(...)")`` runs the command), and so does its non-strict form on any
object whose ``str`` it falls back to; ``Function.__new__`` sympifies its
arguments that way.  Every public entry point of symgrad takes its values
through here: strings are refused with a ``TypeError`` naming the function,
everything else is converted strictly.
"""

from __future__ import annotations

import sys

from sympy import Basic, Expr
from sympy.core.sympify import SympifyError, _sympify

from .errors import ExpressionTypeError

__all__ = ["refuse_string", "strict", "StrictArgs", "public_caller"]


def public_caller() -> str | None:
    """The symgrad function the user called (the outermost symgrad frame
    with a public name, below the first frame outside symgrad), to name in
    a message when the code that found the problem does not know it.

    >>> public_caller() is None  # called from outside symgrad
    True
    """
    found = None
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module != "symgrad" and not module.startswith("symgrad."):
            break
        if not frame.f_code.co_name.startswith(("_", "<")):
            found = frame.f_code.co_name
        frame = frame.f_back
    return found


def refuse_string(value: object, who: str | None, what: str) -> None:
    """A ``TypeError`` (also a ``SymgradError``) if ``value`` is a string.

    >>> try:
    ...     refuse_string("x + 1", "stop_gradient", "x")
    ... except TypeError as exc:
    ...     print(str(exc).split(";")[0])
    stop_gradient: x is the string 'x + 1'
    """
    if isinstance(value, (str, bytes)):
        who = who or public_caller()
        prefix = f"{who}: " if who else ""
        raise ExpressionTypeError(
            f"{prefix}{what} is the string {value!r}; symgrad never parses strings here "
            "(SymPy's sympify would run them as Python code). Build the expression with "
            "SymPy objects (x = sympy.Symbol('x'); x + 1), or parse text safely with "
            "symgrad.parse"
        )


def strict(value: object, who: str | None, what: str) -> Basic:
    """``value`` as a SymPy object: strings refused, numbers converted,
    anything else a clear error (never its ``str`` parsed).

    >>> strict(2, "sigmoid", "x")
    2
    """
    refuse_string(value, who, what)
    if isinstance(value, Basic):
        return value
    try:
        return _sympify(value)
    except SympifyError:
        who = who or public_caller()
        prefix = f"{who}: " if who else ""
        raise ExpressionTypeError(
            f"{prefix}{what} is {value!r} ({type(value).__name__}), not a SymPy expression; "
            "pass a SymPy expression or a number"
        ) from None


class StrictArgs:
    """Mixin for ``sympy.Function`` subclasses: arguments are taken
    strictly (strings refused) before ``Function.__new__`` sympifies them.

    >>> from sympy import Function
    >>> class twice(StrictArgs, Function):
    ...     pass
    >>> twice(3)
    twice(3)
    >>> try:
    ...     twice("3")
    ... except TypeError as exc:
    ...     print(str(exc).split(";")[0])
    twice: argument 1 is the string '3'
    """

    def __new__(cls, *args, **options):
        names = getattr(cls, "_symgrad_argnames", ())
        expr_only = getattr(cls, "_symgrad_expr_only", False)
        checked = []
        for i, a in enumerate(args):
            what = names[i] if i < len(names) else f"argument {i + 1}"
            a = strict(a, cls.__name__, what)
            if expr_only and not isinstance(a, Expr):
                raise ExpressionTypeError(
                    f"{cls.__name__}: {what} is {a} ({type(a).__name__}), not an expression; "
                    f"{cls.__name__} applies to expressions (a Matrix, Array, list, tuple or "
                    "dict of them entry by entry)"
                )
            checked.append(a)
        args = tuple(checked)
        return super().__new__(cls, *args, **options)

