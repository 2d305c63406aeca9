"""How symgrad's nodes print their own names: as written, in every printer.

SymPy's LaTeX and pretty printers read an underscore in a function name as
a subscript (``stop_gradient`` became "stop" with a subscript "gradient").
symgrad's node names (and the names of custom functions, ``log1p_exp``)
are words: :func:`latex_call` and :func:`pretty_call` print them whole.
A node class calls these from its ``_latex``/``_pretty``, so they sit with
the nodes, below every stage (:mod:`symgrad.printing`, a front-end,
re-exports them).
"""

from __future__ import annotations

from collections.abc import Sequence

from sympy import Basic
from sympy.printing.pretty.stringpict import prettyForm, stringPict

__all__ = ["latex_name", "latex_call", "pretty_call"]


def latex_name(name: str) -> str:
    r"""A function name as one upright word.

    >>> print(latex_name("stop_gradient"))
    \operatorname{stop\_gradient}
    """
    return name if len(name) == 1 else r"\operatorname{" + name.replace("_", r"\_") + "}"


def latex_call(printer, name: str, args: Sequence[Basic], exp: str | None = None) -> str:
    r"""``name(args)`` in LaTeX, raised to ``exp`` as SymPy raises functions.

    >>> from sympy import Symbol, latex
    >>> from symgrad import stop_gradient
    >>> x = Symbol("x")
    >>> print(latex(stop_gradient(x)))
    \operatorname{stop\_gradient}{\left(x \right)}
    >>> print(latex(stop_gradient(x)**2))
    \operatorname{stop\_gradient}^{2}{\left(x \right)}
    """
    head = latex_name(name) + ("" if exp is None else f"^{{{exp}}}")
    inner = ", ".join(printer._print(a) for a in args)
    return head + r"{\left(" + inner + r" \right)}"


def pretty_call(printer, name: str, args: Sequence[Basic]) -> prettyForm:
    """``name(args)`` for SymPy's pretty printer, the name as written.

    >>> from sympy import Symbol, floor, pretty
    >>> from symgrad import straight_through
    >>> print(pretty(straight_through(floor(Symbol("x"))), use_unicode=True))
    straight_through(⌊x⌋, x)
    """
    func = prettyForm(name)
    pargs = prettyForm(*printer._print_seq(args, delimiter=", ").parens())
    pform = prettyForm(*stringPict.next(func, pargs), binding=prettyForm.FUNC)
    pform.prettyFunc, pform.prettyArgs = func, pargs  # what ** needs to raise a function
    return pform
