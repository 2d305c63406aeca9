r"""Matrix formulas printed as the Matrix Cookbook writes them, in every
printer: ``A ⊙ B`` for an entrywise product, ``𝟙`` for the ones matrix,
``A∘²`` for an entrywise power, and a function applied entry by entry as
the function (``tanh(X)``; a formula as ``(w ↦ 1 - w**2)(H)``).

SymPy prints these nodes as its internals (``HadamardProduct(A, B)``,
``Lambda(_x, tanh(_x)).(X)``, and ``1`` for the ones matrix, which reads as
the number).  The nodes are SymPy's own classes (``hadamard_product``,
``X.applyfunc`` and ``OneMatrix`` build them too), so :func:`install`
teaches SymPy's text, Unicode and LaTeX printers these methods; it runs
when :mod:`symgrad.matrices` is imported (with ``import symgrad``) and
changes the printing of these matrix nodes only.  The program printer
(:func:`symgrad.program`) uses the same methods.

>>> from sympy import MatrixSymbol, OneMatrix, hadamard_product, latex, pretty, tanh
>>> from symgrad import elementwise
>>> X, b = MatrixSymbol("X", 3, 2), MatrixSymbol("b", 1, 2)
>>> H = elementwise(tanh, X + OneMatrix(3, 1) * b)
>>> print(hadamard_product(H, X))
tanh(X + 𝟙*b) ⊙ X
>>> print(pretty(hadamard_product(H, X), use_unicode=True))
tanh(𝟙⋅b + X) ⊙ X
>>> print(latex(hadamard_product(H, X)))
\tanh\left(X + \mathbb{1} b\right) \odot X
>>> print(X.applyfunc(lambda t: 1 - t**2))
(_d ↦ 1 - _d**2)(X)
"""

from __future__ import annotations

from sympy import Basic, Function, Symbol
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.stringpict import prettyForm
from sympy.printing.str import StrPrinter

__all__ = ["install", "STR", "PRETTY", "LATEX"]

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _function_of(e: Basic) -> type | None:
    """f where the elementwise node ``e`` applies f itself (``tanh``), else
    None (a formula of the entry)."""
    lam = e.args[0]
    body, (d,) = lam.expr, lam.variables
    if isinstance(body, Function) and body.args == (d,):
        return body.func
    return None


def _fname(printer: StrPrinter, f: type) -> str:
    return printer._print(f(Symbol("_"))).split("(")[0]


# ---- text ----------------------------------------------------------------------

def _str_hadamard(self: StrPrinter, expr: Basic) -> str:
    return " ⊙ ".join(self.parenthesize(a, PRECEDENCE["Mul"]) for a in expr.args)


def _str_hadamard_power(self: StrPrinter, expr: Basic) -> str:
    base, p = expr.args
    sup = str(p).translate(_SUPERSCRIPT) if p.is_Integer else f"({self._print(p)})"
    return f"{self.parenthesize(base, PRECEDENCE['Pow'])}∘{sup}"


def _str_ones(self: StrPrinter, expr: Basic) -> str:
    return "𝟙"


def _str_elementwise(self: StrPrinter, expr: Basic) -> str:
    f = _function_of(expr)
    arg = self._print(expr.args[1])
    if f is not None:
        return f"{_fname(self, f)}({arg})"
    lam = expr.args[0]
    return f"({self._print(lam.variables[0])} ↦ {self._print(lam.expr)})({arg})"


STR = {"HadamardProduct": _str_hadamard, "HadamardPower": _str_hadamard_power,
       "OneMatrix": _str_ones, "ElementwiseApplyFunction": _str_elementwise}


# ---- Unicode (and ASCII) -------------------------------------------------------

def _pretty_hadamard(self: PrettyPrinter, expr: Basic) -> prettyForm:
    dot = " ⊙ " if self._use_unicode else " .* "
    return self._print_seq(expr.args, None, None, dot,
                           parenthesize=lambda x: x.is_MatAdd or x.is_MatMul)


def _pretty_elementwise(self: PrettyPrinter, expr: Basic) -> prettyForm:
    f = _function_of(expr)
    arg = prettyForm(*self._print(expr.args[1]).parens())
    if f is not None:
        head = prettyForm(_fname(StrPrinter(), f))
    else:
        lam = expr.args[0]
        arrow = " ↦ " if self._use_unicode else " -> "
        inner = prettyForm(*self._print(lam.variables[0]).right(arrow))
        head = prettyForm(*prettyForm(*inner.right(self._print(lam.expr))).parens())
    return prettyForm(*head.right(arg))


PRETTY = {"HadamardProduct": _pretty_hadamard, "ElementwiseApplyFunction": _pretty_elementwise}


# ---- LaTeX -----------------------------------------------------------------------

def _latex_hadamard(self: LatexPrinter, expr: Basic) -> str:
    return r" \odot ".join(self.parenthesize(a, PRECEDENCE["Mul"]) for a in expr.args)


def _latex_ones(self: LatexPrinter, expr: Basic) -> str:
    return r"\mathbb{1}"


def _latex_elementwise(self: LatexPrinter, expr: Basic) -> str:
    f = _function_of(expr)
    arg = self._print(expr.args[1])
    if f is not None:
        name = self._print(f(Symbol("_"))).split(r"{\left(")[0]
        return rf"{name}\left({arg}\right)"
    lam = expr.args[0]
    return (rf"\left({self._print(lam.variables[0])} \mapsto {self._print(lam.expr)}\right)"
            rf"\left({arg}\right)")


LATEX = {"HadamardProduct": _latex_hadamard, "OneMatrix": _latex_ones,
         "ElementwiseApplyFunction": _latex_elementwise}


def install() -> None:
    """Give SymPy's printers the methods above (idempotent)."""
    for cls, table in ((StrPrinter, STR), (PrettyPrinter, PRETTY), (LatexPrinter, LATEX)):
        for name, fn in table.items():
            setattr(cls, f"_print_{name}", fn)
