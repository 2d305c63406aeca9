"""The NumPy printer for one statement of generated code.

It is SymPy's ``NumPyPrinter`` with these changes: names come out as
``np.sin`` (the generated module does ``import numpy as np`` and nothing
else); a function with no NumPy form raises :class:`NoNumpyFormError`
instead of printing a comment; powers, ``Max``/``Min``, reciprocal
trigonometric and hyperbolic functions, ``Heaviside``, ``frac`` and ``rint``
print as the fast, precision-keeping NumPy calls; ``Piecewise`` prints as a
``np.where`` chain (only the selected branch reaches the result; Python
scalars stay weakly typed, so float32 stays float32).

The printer only ever sees one node with its operands replaced by names,
so it never recurses deeply however deep the formula is.
"""

from __future__ import annotations

from sympy import Basic, Expr, S
from sympy.printing.numpy import NumPyPrinter

from ..errors import SymgradError

__all__ = ["NoNumpyFormError", "KernelPrinter"]

# Reciprocal and inverse-reciprocal functions: f(x) -> template over NumPy.
# Every template is parenthesized as a whole, and ``1/{}`` gets an atomic
# operand (``acot(x + 1)`` is ``arctan(1/(x + 1))``, not ``arctan(1/1 + x)``).
_RECIPROCAL = {
    "sec": "(1/np.cos({}))",
    "csc": "(1/np.sin({}))",
    "cot": "(1/np.tan({}))",
    "sech": "(1/np.cosh({}))",
    "csch": "(1/np.sinh({}))",
    "coth": "(1/np.tanh({}))",
    "acot": "np.arctan(1/{})",
    "asec": "np.arccos(1/{})",
    "acsc": "np.arcsin(1/{})",
    "acoth": "np.arctanh(1/{})",
    "asech": "np.arccosh(1/{})",
    "acsch": "np.arcsinh(1/{})",
}


class NoNumpyFormError(SymgradError):
    """A node that NumPy cannot evaluate (an undefined function, a
    ``Derivative``, a special function NumPy lacks)."""


class KernelPrinter(NumPyPrinter):
    """``NumPyPrinter`` emitting ``np.``-qualified, numpy-only code."""

    printmethod = "_symgrad_numpycode"

    def __init__(self) -> None:
        super().__init__(
            {"fully_qualified_modules": True, "allow_unknown_functions": False, "order": "none"}
        )

    # -- module names -----------------------------------------------------
    def _module_format(self, fqn: str, register: bool = True) -> str:
        if fqn.startswith("numpy."):
            return "np." + fqn[len("numpy."):]
        raise NoNumpyFormError(f"needs {fqn}, which is not part of NumPy")

    def _print_not_supported(self, expr: Basic) -> str:
        raise NoNumpyFormError(f"{type(expr).__name__} has no NumPy form")

    def _print_ComplexInfinity(self, expr: Expr) -> str:
        raise NoNumpyFormError("zoo (complex infinity, as from 1/0) has no NumPy value")

    # -- arithmetic -------------------------------------------------------
    def _print_Pow(self, expr: Expr, rational: bool = False) -> str:
        base, e = expr.args
        b = self.parenthesize(base, 60)  # tighter than ** (precedence 60)
        if e is S.Half:
            return f"np.sqrt({self._print(base)})"
        if e == -S.Half:
            return f"(1/np.sqrt({self._print(base)}))"
        if e == S(1) / 3:
            return f"np.cbrt({self._print(base)})"
        if e is S.NegativeOne:
            return f"(1/{b})"
        if e.is_Integer and e.is_negative:
            return f"(1/{b}**{-e})"
        if e.is_Integer:
            return f"{b}**{e}"
        return f"{b}**{self.parenthesize(e, 60)}"

    def _print_Max(self, expr: Expr) -> str:
        return self._chain("np.maximum", expr.args)

    def _print_Min(self, expr: Expr) -> str:
        return self._chain("np.minimum", expr.args)

    def _chain(self, fn: str, args: tuple) -> str:
        out = self._print(args[0])
        for a in args[1:]:
            out = f"{fn}({out}, {self._print(a)})"
        return out

    # -- functions NumPy spells differently -------------------------------
    def _print_Function(self, expr: Expr) -> str:
        tpl = _RECIPROCAL.get(type(expr).__name__)
        if tpl is not None and len(expr.args) == 1:
            arg = expr.args[0]
            inner = self.parenthesize(arg, 60) if "1/{}" in tpl else self._print(arg)
            return tpl.format(inner)
        return super()._print_Function(expr)

    def _print_Heaviside(self, expr: Expr) -> str:
        h0 = expr.args[1] if len(expr.args) > 1 else S.Half
        return f"np.heaviside({self._print(expr.args[0])}, {self._print(h0)})"

    def _print_frac(self, expr: Expr) -> str:
        x = self.parenthesize(expr.args[0], 50)
        return f"({x} - np.floor({self._print(expr.args[0])}))"

    def _print_Abs(self, expr: Expr) -> str:
        return f"np.abs({self._print(expr.args[0])})"

    def _print_conjugate(self, expr: Expr) -> str:
        return f"np.conjugate({self._print(expr.args[0])})"

    def _print_rint(self, expr: Expr) -> str:
        return f"np.rint({self._print(expr.args[0])})"

    # -- selection --------------------------------------------------------
    def _print_Piecewise(self, expr: Expr) -> str:
        pairs = [(p.expr, p.cond) for p in expr.args]
        if pairs[-1][1] is S.true:
            out = self._print(pairs.pop()[0])
        else:
            out = "np.nan"  # no condition holds: undefined, as in SymPy
        for e, c in reversed(pairs):
            out = f"np.where({self._print(c)}, {self._print(e)}, {out})"
        return out
