r"""Matrix formulas printed as the Matrix Cookbook writes them: ``A ⊙ B``
for an entrywise product, ``𝟙`` for the ones matrix, ``A∘²`` for an
entrywise power, and a function applied entry by entry as the function
(``tanh(X)``; a formula as ``(w ↦ 1 - w**2)(H)``).

SymPy prints these nodes as its internals (``HadamardProduct(A, B)``,
``Lambda(_x, tanh(_x)).(X)``, and ``1`` for the ones matrix, which reads as
the number).  They are SymPy's own classes (``hadamard_product``,
``X.applyfunc`` and ``OneMatrix`` build them too), so printing them
otherwise means changing SymPy's printers, which belong to the user:
``import symgrad`` does not (as importing a library should not change how
another prints; seaborn stopped restyling matplotlib on import for the same
reason).  :func:`matrix_notation` does, when asked: for the rest of the
session, or inside a ``with`` block.  symgrad's own printers
(:func:`symgrad.program`, the command line) always use this notation.

>>> from sympy import MatrixSymbol, OneMatrix, hadamard_product, latex, pretty, tanh
>>> from symgrad import elementwise
>>> X, b = MatrixSymbol("X", 3, 2), MatrixSymbol("b", 1, 2)
>>> H = elementwise(tanh, X + OneMatrix(3, 1) * b)
>>> print(hadamard_product(H, X))
HadamardProduct(Lambda(_x, tanh(_x)).(X + 1*b), X)
>>> with matrix_notation():
...     print(hadamard_product(H, X))
...     print(pretty(hadamard_product(H, X), use_unicode=True))
...     print(latex(hadamard_product(H, X)))
...     print(X.applyfunc(lambda t: 1 - t**2))
tanh(X + 𝟙*b) ⊙ X
tanh(𝟙⋅b + X) ⊙ X
\tanh\left(X + \mathbb{1} b\right) \odot X
(_d ↦ 1 - _d**2)(X)
>>> print(OneMatrix(3, 1) * b)  # as SymPy prints it again
1*b
"""

from __future__ import annotations

from sympy import Basic, Function, Symbol
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.stringpict import prettyForm
from sympy.printing.str import StrPrinter

__all__ = ["matrix_notation", "STR", "PRETTY", "LATEX", "MatrixStrPrinter",
           "MatrixPrettyPrinter", "MatrixLatexPrinter", "matrix_text"]

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


class MatrixStrPrinter(StrPrinter):
    """Text with ⊙ for entrywise products, 𝟙 for the ones matrix, and an
    elementwise function written as the function (``tanh(X)``), whatever
    SymPy's own printers do: symgrad's printers (``program``, messages)."""


class MatrixPrettyPrinter(PrettyPrinter):
    """Unicode with ⊙, 𝟙 and elementwise functions written as functions."""


class MatrixLatexPrinter(LatexPrinter):
    r"""LaTeX with \odot, \mathbb{1} and elementwise functions as functions."""


for _cls, _table in ((MatrixStrPrinter, STR), (MatrixPrettyPrinter, PRETTY),
                     (MatrixLatexPrinter, LATEX)):
    for _name, _fn in _table.items():
        setattr(_cls, f"_print_{_name}", _fn)


def matrix_text(e: Basic, limit: int | None = None) -> str:
    """``e`` as text in the Cookbook's notation, its middle elided past
    ``limit`` characters.

    >>> from sympy import MatrixSymbol, hadamard_product
    >>> A, B = MatrixSymbol("A", 2, 2), MatrixSymbol("B", 2, 2)
    >>> matrix_text(hadamard_product(A, B) * A, limit=8)
    '(A ⊙…)*A'
    """
    text = MatrixStrPrinter({"order": "none"}).doprint(e)
    if limit is None or len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return text[:half + (limit - 1) % 2] + "…" + text[len(text) - half:]


_PRINTERS = ((StrPrinter, STR), (PrettyPrinter, PRETTY), (LatexPrinter, LATEX))
_MISSING = object()
# SymPy's own methods (PrettyPrinter and LatexPrinter have some), given back
# by matrix_notation(False)
_SYMPY = {(cls, name): cls.__dict__.get(f"_print_{name}", _MISSING)
          for cls, table in _PRINTERS for name in table}


def _put(cls: type, name: str, fn: object) -> None:
    if fn is _MISSING:
        if f"_print_{name}" in cls.__dict__:
            delattr(cls, f"_print_{name}")
    else:
        setattr(cls, f"_print_{name}", fn)


class matrix_notation:  # noqa: N801 - a function to the user, as np.printoptions
    """Print matrix formulas in the Matrix Cookbook's notation with SymPy's
    own printers (``print``, ``str``, ``pretty``, ``latex``, notebooks):
    from the call on, or, used as a context manager, inside the ``with``
    block only.  ``matrix_notation(False)`` gives SymPy's printing back.

    >>> from sympy import MatrixSymbol, OneMatrix
    >>> b = MatrixSymbol("b", 1, 2)
    >>> with matrix_notation():
    ...     print(OneMatrix(3, 1) * b)
    𝟙*b
    >>> print(OneMatrix(3, 1) * b)
    1*b
    """

    def __init__(self, enable: bool = True) -> None:
        if not isinstance(enable, bool):
            raise TypeError(f"symgrad.matrix_notation: enable is {enable!r}; give True or False")
        self.enable = enable
        self._saved = [(cls, name, cls.__dict__.get(f"_print_{name}", _MISSING))
                       for cls, table in _PRINTERS for name in table]
        for cls, table in _PRINTERS:
            for name, fn in table.items():
                _put(cls, name, fn if enable else _SYMPY[cls, name])

    def __repr__(self) -> str:
        return f"matrix_notation(enable={self.enable})"

    def __enter__(self) -> matrix_notation:
        return self

    def __exit__(self, *exc: object) -> None:
        for cls, name, old in self._saved:
            _put(cls, name, old)
