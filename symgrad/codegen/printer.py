"""The NumPy printer for one statement of generated code.

It is SymPy's ``SciPyPrinter`` with these changes: names come out as
``np.sin`` (the generated module does ``import numpy as np``, and
``import scipy.special`` when a special function is used: NumPy for what
NumPy has, ``scipy.special`` for the rest); a function with neither form
raises :class:`NoNumpyFormError` instead of printing a comment; a special
function whose value at a real argument may be complex (``loggamma`` below
0, ``LambertW`` below -1/e, ``Ci`` below 0) gives NaN there, as ``np.log``
does, never the real part of the complex value; powers, ``Max``/``Min``, reciprocal
trigonometric and hyperbolic functions, ``Heaviside``, ``frac`` and ``rint``
print as the fast, precision-keeping NumPy calls; ``Piecewise`` prints as a
``np.where`` chain (only the selected branch reaches the result; Python
scalars stay weakly typed, so float32 stays float32).

The printer only ever sees one node with its operands replaced by names,
so it never recurses deeply however deep the formula is.
"""

from __future__ import annotations

import ast
import functools
import math

import numpy as np
from sympy import Basic, Expr, S
from sympy.printing.numpy import NumPyPrinter, SciPyPrinter
from sympy.printing.precedence import PRECEDENCE

from ..build import factors, unevaluated
from ..errors import SymgradError

__all__ = ["NoNumpyFormError", "KernelPrinter", "RuntimePrinter", "PointPrinter", "as_calls",
           "folded_constant", "CALL_NAMES"]

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


# Special functions SymPy's SciPyPrinter does not know: f(args) -> scipy.special name.
_SCIPY = {
    "erfinv": "erfinv",
    "erfcinv": "erfcinv",
    "erfi": "erfi",
    "erfcx": "erfcx",  # symgrad.rewrites.forms.erfcx
    "betaln": "betaln",  # symgrad.rewrites.forms.betaln
    "zeta": "zeta",
    "elliptic_k": "ellipk",
}


def _nan_unless(cond: str, value: str, arg: str) -> str:
    """``value`` (over ``_a``) where ``cond`` holds of the argument ``arg``, else
    NaN; ``arg`` is evaluated once."""
    return f"(lambda _a: np.where({cond}, {value}, np.nan))({arg})"


_TINY64 = 2.2250738585072014e-308  # the smallest normal float64
LGAMMA2_TERMS = 30  # of log Γ(2 + t)'s series: (|t|/2)**30/30 < 2**-60 for |t| <= 1/2


@functools.cache
def lgamma2_coefficients() -> tuple[float, ...]:
    """``c`` with ``log Γ(2 + t) = t·(c[0] + c[1]·t + c[2]·t² + ...)``:
    ``1 - γ``, then ``(-1)^k (ζ(k) - 1)/k`` for k = 2 to :data:`LGAMMA2_TERMS`
    (Abramowitz and Stegun 6.1.33, from ``log Γ(1 + t)``'s series less
    ``log1p(t)``'s), to double precision.

    >>> c = lgamma2_coefficients()
    >>> len(c), round(c[0], 12), round(c[1], 12)
    (30, 0.422784335098, 0.322467033424)
    """
    import mpmath

    with mpmath.workdps(40):
        return (float(1 - mpmath.euler),) + tuple(
            float((-1) ** k * (mpmath.zeta(k) - 1) / k) for k in range(2, LGAMMA2_TERMS + 1))


def _lgamma2_series(t: str) -> str:
    """The text of ``log Γ(2 + t)/t`` in Horner's form, ``t`` a name."""
    c = lgamma2_coefficients()
    out = repr(c[-1])
    for ck in reversed(c[:-1]):
        out = f"({ck!r} + {t}*{out})"
    return out

# A Piecewise of more branches is a flat np.select, not a np.where chain.
MAX_NESTED_WHERE = 32


class NoNumpyFormError(SymgradError):
    """A node that generated code cannot evaluate (an undefined function, a
    ``Derivative``, a function neither NumPy nor ``scipy.special`` has)."""


def _negated(term: Expr) -> Expr | None:
    """``-term``, exactly and unevaluated, for a term that prints with a
    leading minus: a negative number, or a product with a negative number
    first; otherwise None."""
    if term.is_Number:
        return -term
    if term.is_Mul and term.args[0].is_Number and term.args[0].is_negative:
        c, rest = -term.args[0], list(term.args[1:])
        if c != 1:
            return unevaluated(term, [c, *rest])
        return rest[0] if len(rest) == 1 else unevaluated(term, rest)
    return None


def folded_constant(expr: Basic) -> str | None:
    """A real constant computed from numbers by functions or powers
    (``sqrt(2)``, ``exp(-1/2)``, ``log(2)/3``) as the Python float nearest
    its value, or None for anything else.  Printed as written it is a
    NumPy call on numbers, ``np.sqrt(2)``: a float64 scalar, NumPy's
    strong type, which made the operations of a float32 kernel after it
    float64 (``sqrt(2)*x*y/hypot(x, y)`` overflowed only at the final
    cast); a Python float is NumPy's weak scalar (float32 stays float32),
    and the value is rounded once, from 30 digits.

    >>> from sympy import exp, pi, sqrt, Symbol
    >>> folded_constant(sqrt(2)), folded_constant(-exp(-S.Half))
    ('1.4142135623730951', '(-0.6065306597126334)')
    >>> folded_constant(pi), folded_constant(exp(1000)), folded_constant(sqrt(Symbol("x")))
    (None, None, None)
    """
    if not isinstance(expr, Expr) or expr.is_Atom or not expr.is_number \
            or not (expr.is_Pow or expr.is_Function or expr.is_Mul or expr.is_Add):
        return None
    if not any(a.is_Pow or a.is_Function for a in expr.atoms(Expr) | {expr}
               if not a.is_Atom):
        return None  # numbers and number symbols alone: printed as Python numbers already
    try:
        v = expr.evalf(30)
    except (TypeError, ValueError, ArithmeticError):
        return None
    if not v.is_Float:  # complex, infinite or not a number: as written
        return None
    f = float(v)
    if not math.isfinite(f) or (f == 0 and v != 0):
        return None  # beyond a float: the call's own overflow or underflow, as written
    return repr(f) if f >= 0 else f"({f!r})"


class KernelPrinter(SciPyPrinter):
    """``SciPyPrinter`` emitting ``np.``- and ``scipy.special.``-qualified code."""

    printmethod = "_symgrad_numpycode"
    _kc = NumPyPrinter._kc  # pi is np.pi, not scipy.constants.pi

    def __init__(self, complex_: bool = True) -> None:
        super().__init__(
            {"fully_qualified_modules": True, "allow_unknown_functions": False, "order": "none"}
        )
        self.complex = complex_  # False: real code, where I (a value not real) is NaN

    def _print(self, expr: Basic, **kwargs) -> str:
        folded = folded_constant(expr)
        return folded if folded is not None else super()._print(expr, **kwargs)

    def _print_Mul(self, expr: Expr) -> str:
        # a product with a negative number first is its positive product
        # negated, as planned: SymPy's printer rebuilds ``-c*rest`` with its
        # coefficient, which flattens an operand product held whole
        # (``-x*z*(t/r)`` printed ``-x*z*t/r``: other roundings)
        pos = _negated(expr)
        if pos is not None and pos.is_Mul and any(a.is_Mul for a in pos.args):
            return "-" + self.parenthesize(pos, PRECEDENCE["Mul"], strict=False)
        return super()._print_Mul(expr)

    # -- module names -----------------------------------------------------
    def _module_format(self, fqn: str, register: bool = True) -> str:
        if fqn.startswith("numpy."):
            return "np." + fqn[len("numpy."):]
        if fqn.startswith("scipy.special."):
            return fqn
        raise NoNumpyFormError(f"needs {fqn}, which is not part of NumPy or scipy.special")

    def _print_not_supported(self, expr: Basic) -> str:
        raise NoNumpyFormError(
            f"{type(expr).__name__} has no form in NumPy or scipy.special"
        )

    def _print_ImaginaryUnit(self, expr: Expr) -> str:
        return "1j" if self.complex else "np.nan"

    def _print_ComplexInfinity(self, expr: Expr) -> str:
        raise NoNumpyFormError("zoo (complex infinity, as from 1/0) has no NumPy value")

    # -- arithmetic -------------------------------------------------------
    def _print_Add(self, expr: Expr, order: str | None = None) -> str:
        # -a*b + c is (-a)*b + c in Python, a negation more than c - a*b, which
        # is the same float (c + (-a) == c - a, and the terms after add to it
        # in the same order): the first two terms are swapped.  Likewise
        # -a - b + c (((-a) - b) + c) is c - (a + b): -a - b is -(a + b)
        # exactly, so the same float, a negation fewer
        a = expr.args
        if len(a) > 1 and a[0].could_extract_minus_sign():
            j = next((i for i, t in enumerate(a) if not t.could_extract_minus_sign()), 0)
            if j == 1:
                expr = unevaluated(expr, [a[1], a[0], *a[2:]])
            elif j > 1:
                lead = [_negated(t) for t in a[:j]]
                if all(t is not None for t in lead):
                    inner = unevaluated(expr, lead)
                    expr = unevaluated(expr, [a[j], factors((S.NegativeOne, inner)),
                                              *a[j + 1:]])
        return super()._print_Add(expr, order)

    def _print_Pow(self, expr: Expr, rational: bool = False) -> str:
        base, e = expr.args
        b = self.parenthesize(base, 60)  # tighter than ** (precedence 60)
        if e is S.Half:
            return f"np.sqrt({self._print(base)})"
        if e == -S.Half:
            return f"(1/np.sqrt({self._print(base)}))"
        if e == S(1) / 3:
            return self._principal_cbrt(base)
        if e is S.NegativeOne:
            return f"(1/{b})"
        if e.is_Integer and e.is_negative:
            return f"(1/{b}**{-e})"
        if e.is_Integer:
            return f"{b}**{e}"
        return f"{b}**{self.parenthesize(e, 60)}"

    def _principal_cbrt(self, base: Expr) -> str:
        """``base**(1/3)`` as SymPy means it: the principal root, complex
        below 0, so NaN there in real code (``sqrt(-1)``'s invalid flag
        too); ``np.cbrt`` (the real root) is exact to half an ulp, where
        ``base**(1/3)`` loses up to a hundred; complex values take the power."""
        if base.is_extended_nonnegative:
            return f"np.cbrt({self._print(base)})"
        real = "np.cbrt(_b)*np.sqrt(np.sign(_b))"  # sqrt(-1): NaN below 0
        return f"(lambda _b: _b**(1/3) if np.iscomplexobj(_b) else {real})({self._print(base)})"

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
        sc = _SCIPY.get(type(expr).__name__)
        if sc is not None:
            return self._call(f"scipy.special.{sc}", expr.args)
        tpl = _RECIPROCAL.get(type(expr).__name__)
        if tpl is not None and len(expr.args) == 1:
            arg = expr.args[0]
            inner = self.parenthesize(arg, 60) if "1/{}" in tpl else self._print(arg)
            return tpl.format(inner)
        return super()._print_Function(expr)

    # -- special functions (scipy.special) ----------------------------------
    def _call(self, fn: str, args: tuple) -> str:
        return f"{fn}({', '.join(self._print(a) for a in args)})"

    def _print_loggamma(self, expr: Expr) -> str:
        # gammaln is log|gamma|: loggamma of a real x < 0 is complex, and
        # scipy's loggamma gives NaN there.  Both overflow below the smallest
        # normal float64 (inf at 2.5e-309, where log Γ is 710.6): there
        # log Γ(x) = -log(x) - γx + O(x²) is -log(x) to the last bit
        # (float32 takes scipy's float64 path, exact at its subnormals).
        # About its zeros 1 and 2 scipy's loses the value's bits (2.5 times
        # the value at 1 - 2**-53, the wrong sign at 2 - 2**-52, 29 bits lost
        # within 1e-6 of either): on [1/2, 5/2) the series of log Γ(2 + t)
        # at t = x - 2, less log1p(t) at t = x - 1 below 3/2 (t exact there)
        # (the series of the rows outside at 2, t = 0: no overflow, no warning)
        series = (f"(lambda _w: (lambda _h: (lambda _t: _t*{_lgamma2_series('_t')} - "
                  f"np.where(_h, np.log1p(_t), 0))(np.where(_h, _w - 1, _w - 2)))(_w < 1.5))"
                  f"(np.where(_m, _g, 2.0))")
        return (f"(lambda _g: (lambda _m: np.where((_g > 0) & (_g < {_TINY64!r}), "
                f"-np.log(np.where(_g > 0, _g, 1)), np.where(_m, {series}, "
                f"scipy.special.loggamma(_g))))((_g >= 0.5) & (_g < 2.5)))"
                f"({self._print(expr.args[0])})")

    def _print_factorial(self, expr: Expr) -> str:
        # scipy's factorial is 0 below 0; x! = gamma(x + 1) everywhere
        return f"scipy.special.gamma({self.parenthesize(expr.args[0], 40)} + 1)"

    def _print_LambertW(self, expr: Expr) -> str:
        # lambertw is complex-valued: the real value where it is real, else NaN
        w = self._call("scipy.special.lambertw", expr.args)
        return f"(lambda _w: np.where(_w.imag == 0, _w.real, np.nan))({w})"

    def _print_Ci(self, expr: Expr) -> str:
        return _nan_unless("_a >= 0", "scipy.special.sici(_a)[1]", self._print(expr.args[0]))

    def _print_Chi(self, expr: Expr) -> str:
        return _nan_unless("_a >= 0", "scipy.special.shichi(_a)[1]", self._print(expr.args[0]))

    def _print_Shi(self, expr: Expr) -> str:
        return f"scipy.special.shichi({self._print(expr.args[0])})[0]"

    def _print_expint(self, expr: Expr) -> str:
        if not expr.args[0].is_Integer:  # expn is for integer orders only
            return self._print_not_supported(expr)
        return self._call("scipy.special.expn", expr.args)

    def _print_elliptic_e(self, expr: Expr) -> str:
        if len(expr.args) != 1:
            return self._print_not_supported(expr)
        return self._call("scipy.special.ellipe", expr.args)

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
        if len(pairs) > MAX_NESTED_WHERE:
            return self._select(pairs, out)
        for e, c in reversed(pairs):
            out = f"np.where({self._print(c)}, {self._print(e)}, {out})"
        return out

    def _select(self, pairs: list, default: str) -> str:
        """A flat ``np.select`` (Python's parser allows 200 nested brackets),
        in the type the ``np.where`` chain gives: Python numbers among the
        values stay weakly typed, so float32 stays float32."""
        n = len(pairs)
        conds = ", ".join(self._print(c) for _, c in pairs)
        values = ", ".join(self._print(e) for e, _ in pairs)
        pick = f"np.select(_v[:{n}], _v[{n}:{2 * n}], _v[{2 * n}])"
        return (
            f"(lambda *_v: {pick}.astype(np.result_type(*_v[{n}:]), copy=False))"
            f"({conds}, {values}, {default})"
        )


class RuntimePrinter(KernelPrinter):
    """The printer of code run by ``lambdify``'s entry point: it may call the
    helpers of :mod:`symgrad.codegen.runtime` (``hypot`` at the cost of a
    square root on whole blocks)."""

    def _print_hypot(self, expr: Expr) -> str:
        if len(expr.args) != 2:
            return super()._print_hypot(expr)
        return f"_hypot({self._print(expr.args[0])}, {self._print(expr.args[1])})"


# NumPy functions the one-point kernel calls on Python floats, with the test
# of their argument ``_v`` under which NumPy neither warns nor gives inf or
# NaN from a finite argument (None: it never does, for any argument); where
# the test fails the kernel raises, and the entry point runs the NumPy
# kernel, so NumPy's warnings come once.  The bounds are within the exact
# ones (exp overflows past 709.7827).
_POINT_CALLS = {
    "exp": "_v < 709.78", "expm1": "_v < 709.78", "log": "_v > 0", "log2": "_v > 0",
    "log10": "_v > 0", "log1p": "_v > -1", "sinh": "-710 < _v < 710",
    "cosh": "-710 < _v < 710", "arcsin": "-1 <= _v <= 1", "arccos": "-1 <= _v <= 1",
    "arctanh": "-1 < _v < 1", "arccosh": "_v >= 1", "tan": "_v - _v == 0",
    "tanh": None, "arctan": None, "arcsinh": None, "floor": None, "ceil": None,
    "sign": None, "rint": None, "maximum": None, "minimum": None, "arctan2": None,
    "heaviside": None, "where": None, "logical_and": None, "logical_or": None,
    "logical_not": None, "logaddexp": None,
}


class NoPointForm(Exception):
    """A node the one-point kernel does not compute (then there is none)."""


class PointPrinter(RuntimePrinter):
    """The printer of the one-point kernel ``lambdify`` adds for Python
    floats: the same code where Python's float arithmetic and :mod:`math`
    give the very floats NumPy's arrays give (``+ - * /``, ``sin``, ``cos``,
    ``sqrt``, ``abs``, a square as ``v*v``), at a tenth of a NumPy call's
    cost on a scalar; the NumPy functions of ``_POINT_CALLS`` on the floats,
    their result back as a float; anything else raises :class:`NoPointForm`.
    Where Python raises instead of giving inf or NaN (``1/0.0``,
    ``math.sqrt(-1.0)``), or an argument fails its test, the entry point
    runs the NumPy kernel instead."""

    def _print(self, expr: Basic, **kwargs) -> str:
        if hasattr(expr, "_symgrad_numpycode") or hasattr(expr, "_numpycode"):
            raise NoPointForm(type(expr).__name__)  # a helper's call (widen, compensated, ...)
        out = super()._print(expr, **kwargs)
        if out.startswith("np.") and not expr.is_Atom:
            name = out[3:out.index("(")] if "(" in out else ""
            if name not in _POINT_CALLS:
                raise NoPointForm(out)
            test = _POINT_CALLS[name]
            if test is None:
                return f"float({out})"
            arg = self._print(expr.args[0]) if len(expr.args) == 1 else None
            if out != f"np.{name}({arg})":  # (asec(x) is np.arccos(1/x): not arccos of x)
                raise NoPointForm(out)
            return f"(float(np.{name}(_v)) if ({test.replace('_v', f'(_v := {arg})', 1)}) " \
                "else _bad())"
        if out.startswith(("scipy.", "(lambda")):
            raise NoPointForm(out)
        return out

    def _print_sin(self, expr: Expr) -> str:
        return f"_msin({self._print(expr.args[0])})"

    def _print_cos(self, expr: Expr) -> str:
        return f"_mcos({self._print(expr.args[0])})"

    def _print_Abs(self, expr: Expr) -> str:
        return f"abs({self._print(expr.args[0])})"

    def _print_hypot(self, expr: Expr) -> str:
        if len(expr.args) != 2:
            raise NoPointForm("hypot")
        return f"_mhypot({self._print(expr.args[0])}, {self._print(expr.args[1])})"

    def _print_Pow(self, expr: Expr, rational: bool = False) -> str:
        base, e = expr.args
        if e is S.Half:
            return f"_msqrt({self._print(base)})"
        if e == -S.Half:
            return f"(1/_msqrt({self._print(base)}))"
        if e.is_Integer and abs(e) <= 2:
            # x**2 is np.square(x) on arrays, x*x: not pow(x, 2), 1 ulp off at times
            b = self._print(base)
            power = self.parenthesize(base, 60) if abs(e) == 1 \
                else f"({b}*{b})" if b.isidentifier() \
                else f"_sq({b})"  # (1/(a + b), not 1/a + b; a name: no call)
            return power if e > 0 else f"(1/{power})"
        if e == S(1) / 3:
            raise NoPointForm("cbrt")
        # NumPy's power (Python's (-1.0)**1.5 is complex), where math.pow
        # neither raises nor overflows
        power = f"_pow({self._print(base)}, {self._print(abs(e) if e.is_Integer else e)})"
        return f"(1/{power})" if e.is_Integer and e < 0 else power


# Python's operators on arrays as the ufunc calls they make, by names the
# runtime module gives them (``_add = np.add``, ...)
_BINARY = {ast.Add: "_add", ast.Sub: "_sub", ast.Mult: "_mul", ast.Div: "_div"}
# NumPy's ufuncs, called by a module-level name each (``_np_sin = np.sin``):
# read from the namespace as loaded (``getattr`` of every name in ``dir(np)``
# imported each lazily loaded submodule: f2py, testing, ma, polynomial, ...,
# ~60 ms of every ``import symgrad``); no ufunc is lazily loaded
_UFUNCS = frozenset(n for n in dir(np) if isinstance(vars(np).get(n), np.ufunc))
# those of two float operands, whose constant operands the kernel takes as
# ``_k[i]`` as it does an operator's (``np.maximum(0, x)``: 0.70 -> 0.40 us
# at 10 elements, the same floats; 2026-11-28)
_FLOAT_UFUNCS = frozenset(f"_np_{n}" for n in (
    "maximum", "minimum", "fmax", "fmin", "arctan2", "heaviside", "logaddexp", "logaddexp2",
    "copysign"))
CALL_NAMES = frozenset({*_BINARY.values(), "_neg", "_square", "_k", "_K", "_KV", "_consts",
                        "_KS", "_sconsts",
                        *(f"_np_{n}" for n in _UFUNCS)})


def _constant(node: ast.AST) -> bool:
    """Whether ``node`` is Python numbers only (``1/2``, ``-3``, ``np.pi/180``):
    left to Python, which gives a Python float (NumPy's weak scalar: float32
    stays float32), where a ufunc would give a float64 scalar."""
    for n in ast.walk(node):
        if isinstance(n, (ast.Name, ast.Call)) and not _np_number(n):
            if not (isinstance(n, ast.Name) and n.id == "np"):
                return False
        elif isinstance(n, ast.Attribute) and not _np_number(n):
            return False
    return True


def _np_number(n: ast.AST) -> bool:
    """``np.pi``, ``np.e``, ``np.inf``, ``np.nan``: Python floats."""
    return isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) \
        and n.value.id == "np" and isinstance(getattr(np, n.attr, None), float)


class _Calls(ast.NodeTransformer):
    def __init__(self, squares_only: bool = False, constants: dict | None = None) -> None:
        self.ufuncs: set[str] = set()
        self.squares_only = squares_only
        self.constants = constants
        self.known: dict[ast.AST, bool] = {}  # node -> _constant(node), bottom-up

    def _constant(self, node: ast.AST) -> bool:
        """:func:`_constant`, each node's answer kept (the visit asks it of
        every operator, over subtrees it asked before)."""
        done = self.known.get(node)
        if done is None:
            t = type(node)
            if t is ast.BinOp:
                done = self._constant(node.left) and self._constant(node.right)
            elif t is ast.Constant:
                done = True
            elif t is ast.UnaryOp:
                done = self._constant(node.operand)
            elif isinstance(node, ast.Name):
                done = node.id == "np"
            elif isinstance(node, ast.Call):
                done = False
            elif isinstance(node, ast.Attribute):
                done = _np_number(node)
            else:
                done = all(self._constant(k) for k in ast.iter_child_nodes(node))
            self.known[node] = done
        return done

    def _operand(self, node: ast.AST) -> ast.AST:
        """A real constant operand of a ufunc call as ``_k[i]`` (the kernel's
        constants, 0-d arrays of its arguments' type: a Python number costs
        a ufunc call 0.3-0.6 us of conversion), where ``constants`` is kept."""
        if self.constants is None or not self._constant(node) or any(
                isinstance(n, ast.Constant) and type(n.value) not in (int, float)
                or isinstance(n, ast.Constant) and type(n.value) is int and abs(n.value) > 2**53
                for n in ast.walk(node)):
            return node
        i = self.constants.setdefault(ast.unparse(node), len(self.constants))
        return ast.Subscript(ast.Name("_k", ast.Load()), ast.Constant(i), ast.Load())

    def visit(self, node: ast.AST) -> ast.AST:
        """What ``ast.NodeTransformer.visit`` does, written out for the
        nodes the kernel's lines are made of (a third of ``as_calls``'s
        time was the generic walk's); other nodes by the generic walk."""
        t = type(node)
        if t is ast.Name or t is ast.Constant:
            return node
        if t is ast.BinOp:
            node.left = self.visit(node.left)
            node.right = self.visit(node.right)
            return self._binop(node)
        if t is ast.Call:
            node.func = self.visit(node.func)
            node.args = [self.visit(a) for a in node.args]
            if type(node.func) is ast.Name and node.func.id in _FLOAT_UFUNCS:
                node.args = [self._operand(a) for a in node.args]
            for k in node.keywords:
                k.value = self.visit(k.value)
            return node
        if t is ast.UnaryOp:
            node.operand = self.visit(node.operand)
            return self._unaryop(node)
        if t is ast.Attribute:
            return self.visit_Attribute(node)
        return super().visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        return self._binop(node)

    def _binop(self, node: ast.BinOp) -> ast.AST:
        if self._constant(node):
            return node
        name = _BINARY.get(type(node.op))
        if name is not None and not self.squares_only:
            return ast.Call(ast.Name(name, ast.Load()),
                            [self._operand(node.left), self._operand(node.right)], [])
        if name is not None and self.constants is not None:  # (NumPy scalars' operators)
            node.left, node.right = self._operand(node.left), self._operand(node.right)
            return node
        if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) \
                and type(node.right.value) is int and node.right.value == 2:
            # NumPy's x**2 on arrays: x*x (a NumPy scalar's is pow, an ulp off at times)
            if self.squares_only and isinstance(node.left, ast.Name):  # t*t: no call
                return ast.BinOp(node.left, ast.Mult(), ast.Name(node.left.id, ast.Load()))
            sq = "_sq" if self.squares_only else "_square"
            return ast.Call(ast.Name(sq, ast.Load()), [node.left], [])
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return self._unaryop(node)

    def _unaryop(self, node: ast.UnaryOp) -> ast.AST:
        if isinstance(node.op, ast.USub) and not self._constant(node) \
                and not self.squares_only:
            return ast.Call(ast.Name("_neg", ast.Load()), [node.operand], [])
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "np" \
                and node.attr in _UFUNCS:
            self.ufuncs.add(node.attr)
            return ast.Name(f"_np_{node.attr}", ast.Load())
        return node


# ast.unparse's operator precedences (its _Precedence), for the operators
# the kernel's lines hold
_TEST, _ARITH, _TERM, _FACTOR, _POWER = 0, 1, 2, 3, 4
_BINOPS = {ast.Add: ("+", _ARITH), ast.Sub: ("-", _ARITH), ast.Mult: ("*", _TERM),
           ast.Div: ("/", _TERM), ast.Pow: ("**", _POWER)}


class _Unknown(Exception):
    """A node inside an operator that :func:`unparse` does not write."""


def unparse(node: ast.AST) -> str:
    """``ast.unparse(node)``, written here for what the kernel's lines are
    made of (calls of names, names, numbers, ``+ - * / **`` and unary minus,
    ``_k[i]``, ``(w := ...)``, ``out=`` keywords) at a tenth of its cost (it
    is a quarter of ``lambdify``'s time on a program of 400 lines); anything
    else by ``ast.unparse`` itself.

    >>> unparse(ast.parse("_add((w := _mul(x, _k[0])), 2.5, out=w)", mode="eval").body)
    '_add((w := _mul(x, _k[0])), 2.5, out=w)'
    >>> unparse(ast.parse("-(x + 1)**2/(1/180*y) - -_f(a*b, -c)", mode="eval").body)
    '-(x + 1) ** 2 / (1 / 180 * y) - -_f(a * b, -c)'
    """
    try:
        return _unparse(node, _TEST)
    except _Unknown:
        return ast.unparse(node)


def _unparse(node: ast.AST, prec: int) -> str:
    """``node`` as ast.unparse writes it where its context has precedence
    ``prec``; :class:`_Unknown` inside an operator for a node not written here."""
    t = type(node)
    if t is ast.Name:
        return node.id
    if t is ast.BinOp:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise _Unknown
        sign, p = op
        left, right = (p + 1, p) if p == _POWER else (p, p + 1)
        out = f"{_unparse(node.left, left)} {sign} {_unparse(node.right, right)}"
        return f"({out})" if prec > p else out
    if t is ast.Call and type(node.func) is ast.Name \
            and all(k.arg is not None for k in node.keywords):
        parts = [unparse(a) for a in node.args]
        parts += [f"{k.arg}={unparse(k.value)}" for k in node.keywords]
        return f"{node.func.id}({', '.join(parts)})"
    if t is ast.Constant:
        v = node.value
        if type(v) is int or type(v) is float and math.isfinite(v):
            return repr(v)
    elif t is ast.UnaryOp and type(node.op) is ast.USub:
        out = f"-{_unparse(node.operand, _FACTOR)}"
        return f"({out})" if prec > _FACTOR else out
    elif t is ast.NamedExpr and type(node.target) is ast.Name:
        return f"({node.target.id} := {unparse(node.value)})"
    elif t is ast.Subscript and type(node.value) is ast.Name \
            and type(node.slice) is ast.Constant and type(node.slice.value) is int:
        return f"{node.value.id}[{node.slice.value}]"
    if prec > _TEST:
        raise _Unknown
    return ast.unparse(node)


def as_calls(code: str, squares_only: bool = False,
             constants: dict | None = None) -> tuple[str, set[str]]:
    """``code`` (an expression the NumPy printer wrote) with its operators on
    arrays written as the ufunc calls Python makes for them (``_mul(x, y)``
    for ``x*y``: the same call, the same floats, without the operator's
    dispatch, 5% of a small array's call) and NumPy's ufuncs by module-level
    names; and the ufuncs it calls.

    >>> as_calls("-x*y + np.sin(x)**2 - 1/2")
    ('_sub(_add(_mul(_neg(x), y), _square(_np_sin(x))), 1 / 2)', {'sin'})
    >>> as_calls("(1/180)*np.pi*x")[0]  # (a Python float times x: float32 stays float32)
    '_mul(1 / 180 * np.pi, x)'

    With ``squares_only`` (code for NumPy scalars, whose operators cost a
    fifth of a ufunc call), only ``x**2`` is rewritten, as ``_sq(x)``
    (``x*x``, what an array's ``x**2`` computes; ``t*t`` for a name), and
    the ufuncs' names.  With ``constants`` (a dict
    of constants' texts to their indices, shared by a kernel's lines) the
    real constants a binary ufunc call (or, with ``squares_only``, a binary
    operator) takes are ``_k[i]``:

    >>> k = {}
    >>> as_calls("1 - x**2 + x/3", constants=k)[0], k
    ('_add(_sub(_k[0], _square(x)), _div(x, _k[1]))', {'1': 0, '3': 1})
    >>> as_calls("1 - x**2 + x/3", True, k)[0]
    '_k[0] - x * x + x / _k[1]'
    """
    t = _Calls(squares_only, constants)
    tree = t.visit(ast.parse(code, mode="eval").body)
    return unparse(tree), t.ufuncs  # (unparse reads no line numbers)
