"""Reading FPBench's FPCore format: each benchmark as a SymPy formula and
a domain box.

FPCore (https://fpbench.org/spec/fpcore-2.0.html) writes a benchmark as an
s-expression::

    (FPCore (x)
     :name "NMSE example 3.1"
     :pre (>= x 0)
     (- (sqrt (+ x 1)) (sqrt x)))

:func:`read_fpcore` reads the text with its own tokenizer and builds the
SymPy tree itself from an allow-list (nothing in the text is executed, as
with :func:`symgrad.parse`).  Numbers are exact (``0.1`` is 1/10, FPCore's
real semantics); a function SymPy lacks is a ``sympy.codegen.cfunctions``
node (``log1p``, ``expm1``, ``hypot``, ``fma``, ``log2``, ``log10``,
``exp2``); ``let``/``let*`` bind names (shared subtrees, never copies);
``if`` is a ``Piecewise``.  The precondition becomes a domain box: the
bounds its comparisons put on single variables (``(<= a x b)``,
``(< x b)``, ``(>= x 0)``, ``(< (fabs x) c)``, joined by ``and``); where it
says more than a box can (``(!= x 0)``, ``(< x y)``, an ``or``), the box is
the tightest one it implies and the benchmark says so (``box_exact``,
``box_note``).  What has no SymPy formula of real scalars (loops, tensors,
integer or other data types, mixed precisions, tests of NaN or infinity) is
refused with an :class:`FPCoreError` naming the construct and the benchmark.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from sympy import (
    Abs,
    And,
    Basic,
    E,
    Eq,
    Expr,
    Ge,
    Gt,
    Interval,
    Le,
    Lt,
    Max,
    Min,
    Mod,
    Ne,
    Not,
    Or,
    Piecewise,
    Poly,
    Pow,
    Rational,
    S,
    Symbol,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceiling,
    cos,
    cosh,
    erf,
    erfc,
    exp,
    floor,
    gamma,
    log,
    loggamma,
    pi,
    sign,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
)
from sympy.codegen.cfunctions import exp2, expm1, fma, hypot, log1p, log2, log10
from sympy.logic.boolalg import Boolean
from sympy.solvers.inequalities import solve_univariate_inequality

from .errors import SymgradError
from .functions import rint

__all__ = ["read_fpcore", "FPCoreBenchmark", "FPCoreError", "MAX_LENGTH", "MAX_DEPTH"]

MAX_LENGTH = 10_000_000  # characters of a file
MAX_DEPTH = 400  # nesting of parentheses
MAX_EXPONENT = 20_000  # of an exact number's power of ten or two

DTYPES = {"binary64": "float64", "binary32": "float32"}


class FPCoreError(SymgradError):
    """FPCore text that :func:`read_fpcore` refuses: a syntax error, or a
    construct it cannot express, naming the benchmark (``name``, None for a
    syntax error outside one), the ``construct`` and the ``line``.

    >>> try:
    ...     read_fpcore('(FPCore (x) :name "loop" (while (< x 1) ([x x (* 2 x)]) x))')
    ... except FPCoreError as exc:
    ...     print(exc)
    benchmark 'loop' (line 1): `while` is not supported: loops have no closed formula; \
symgrad reads formulas of real scalars
    """

    def __init__(self, message: str, name: str | None = None, construct: str | None = None,
                 line: int = 1) -> None:
        self.name, self.construct, self.line, self.reason = name, construct, line, message
        where = f"benchmark {name!r} (line {line})" if name is not None else f"line {line}"
        super().__init__(f"{where}: {message}")


@dataclass
class FPCoreBenchmark:
    """One ``(FPCore ...)`` of a file: its ``name`` (the ``:name``
    property, else ``FPCore at line N``), the ``expression`` (SymPy), the
    ``variables`` (real symbols, in the order of the arguments), the
    ``domain`` box (symbol -> ``(lo, hi)``, exact numbers, a strict bound
    as the nearest float64 inside it, ``-oo``/``oo`` where unbounded), the
    ``pre`` text it came from (None without one), whether the box is
    exactly the precondition (``box_exact``; else ``box_note`` says what
    it leaves out), the ``precision`` (``binary64`` unless said) and its
    NumPy ``dtype``, the ``cite`` keys, and every property's text
    (``properties``: key without the colon -> texts, in order).
    """

    name: str
    expression: Expr
    variables: tuple[Symbol, ...]
    domain: dict[Symbol, tuple]
    pre: str | None = None
    box_exact: bool = True
    box_note: str = ""
    precision: str = "binary64"
    cite: tuple[str, ...] = ()
    properties: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    line: int = 1

    @property
    def dtype(self) -> str:
        """The NumPy float type of ``precision``: float64 or float32."""
        return DTYPES[self.precision]


# ---- tokens and s-expressions -----------------------------------------------------------


@dataclass
class _Atom:
    text: str
    start: int
    end: int
    line: int
    string: bool = False  # a "..." literal (text without the quotes, unescaped)


@dataclass
class _List:
    items: list
    start: int
    end: int
    line: int


_TOKEN = re.compile(r"""
    (?P<space>\s+|;[^\n]*)
  | (?P<open>[(\[])
  | (?P<close>[)\]])
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<atom>[^\s()\[\];"]+)
""", re.X | re.S)


def _sexprs(text: str) -> list:
    """The top-level s-expressions of ``text`` (lists of atoms and lists),
    built with an explicit stack (no recursion, whatever the nesting)."""
    if len(text) > MAX_LENGTH:
        raise FPCoreError(f"the text is {len(text):,} characters long; at most "
                          f"{MAX_LENGTH:,} are read")
    top: list = []
    stack: list[tuple[_List, str]] = []
    pos, line = 0, 1
    closer = {"(": ")", "[": "]"}
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # an unterminated string
            raise FPCoreError("a string is not closed (a \" is missing)", line=line)
        kind, tok = m.lastgroup, m.group()
        if kind == "open":
            if len(stack) >= MAX_DEPTH:
                raise FPCoreError(f"nesting deeper than {MAX_DEPTH} levels", line=line)
            stack.append((_List([], pos, pos, line), closer[tok]))
        elif kind == "close":
            if not stack:
                raise FPCoreError(f"`{tok}` closes nothing", line=line)
            lst, want = stack.pop()
            if tok != want:
                raise FPCoreError(f"`{tok}` closes the `{'(' if want == ')' else '['}` of "
                                  f"line {lst.line}; expected `{want}`", line=line)
            lst.end = m.end()
            (stack[-1][0].items if stack else top).append(lst)
        elif kind in ("string", "atom"):
            s = tok[1:-1].replace('\\"', '"').replace("\\\\", "\\") if kind == "string" else tok
            (stack[-1][0].items if stack else top).append(
                _Atom(s, pos, m.end(), line, kind == "string"))
        line += tok.count("\n")
        pos = m.end()
    if stack:
        lst, want = stack[-1]
        raise FPCoreError(f"the `{'(' if want == ')' else '['}` of line {lst.line} is never "
                          f"closed (a `{want}` is missing)", line=line)
    return top


# ---- numbers ----------------------------------------------------------------------------

_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_RATIONAL = re.compile(r"[+-]?\d+/\d*[1-9]\d*")
_HEX = re.compile(r"([+-]?)0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?\d+)?")


def _number(text: str) -> Rational | None:
    """The exact value of an FPCore number literal, or None if ``text`` is
    not one (an exponent past ``MAX_EXPONENT`` is an error)."""
    if _RATIONAL.fullmatch(text):
        return Rational(*map(int, text.split("/")))
    m = _DECIMAL.fullmatch(text)
    if m:
        if m.group(2) and abs(int(m.group(2)[1:])) > MAX_EXPONENT:
            raise ValueError(f"the exponent of {text} is past ±{MAX_EXPONENT}")
        return Rational(Fraction(text))
    m = _HEX.fullmatch(text)
    if m:
        sign, digits, power = m.groups()
        p = int(power[1:]) if power else 0
        if abs(p) > 4 * MAX_EXPONENT:
            raise ValueError(f"the exponent of {text} is past ±{4 * MAX_EXPONENT}")
        whole, _, frac = digits.partition(".")
        mant = int(whole + frac or "0", 16)
        v = Rational(mant) * Rational(2) ** (p - 4 * len(frac))
        return -v if sign == "-" else v
    return None


# ---- the allow-list ---------------------------------------------------------------------


def _cbrt(x):  # the real cube root (SymPy's cbrt is the principal one: complex for x < 0)
    return sign(x) * Abs(x) ** Rational(1, 3) if not x.is_nonnegative else x ** Rational(1, 3)


def _pow(b, e):
    if b.is_number and e.is_number and e.is_Integer and abs(int(e)) > 1024:
        return Pow(b, e, evaluate=False)  # not the exact 10**99999
    return Pow(b, e)


def _trunc(x):
    return Piecewise((floor(x), x >= 0), (ceiling(x), True))


def _copysign(x, y):  # the sign of y; copysign(x, +0) = |x|
    return Piecewise((Abs(x), y >= 0), (-Abs(x), True))


def _round(x):  # halves away from zero
    return Piecewise((floor(x + S.Half), x >= 0), (ceiling(x - S.Half), True))


def _fmod(x, y):  # C's fmod: the sign of x
    return sign(x) * Mod(Abs(x), Abs(y))


def _minus(*a):
    return -a[0] if len(a) == 1 else a[0] - a[1]


def _fold(op: Callable) -> Callable:
    def f(*a):
        out = a[0]
        for b in a[1:]:
            out = op(out, b)
        return out
    return f


# name -> (fewest, most arguments (None: any), builder)
_OPS: dict[str, tuple[int, int | None, Callable]] = {
    "+": (2, None, _fold(lambda a, b: a + b)),
    "-": (1, 2, _minus),
    "*": (2, None, _fold(lambda a, b: a * b)),
    "/": (2, 2, lambda a, b: a / b),
    "fabs": (1, 1, Abs),
    "fma": (3, 3, fma),
    "exp": (1, 1, exp),
    "exp2": (1, 1, exp2),
    "expm1": (1, 1, expm1),
    "log": (1, 1, log),
    "log10": (1, 1, log10),
    "log2": (1, 1, log2),
    "log1p": (1, 1, log1p),
    "pow": (2, 2, _pow),
    "sqrt": (1, 1, sqrt),
    "cbrt": (1, 1, _cbrt),
    "hypot": (2, 2, hypot),
    "sin": (1, 1, sin),
    "cos": (1, 1, cos),
    "tan": (1, 1, tan),
    "asin": (1, 1, asin),
    "acos": (1, 1, acos),
    "atan": (1, 1, atan),
    "atan2": (2, 2, atan2),  # (atan2 y x), as C and SymPy
    "sinh": (1, 1, sinh),
    "cosh": (1, 1, cosh),
    "tanh": (1, 1, tanh),
    "asinh": (1, 1, asinh),
    "acosh": (1, 1, acosh),
    "atanh": (1, 1, atanh),
    "erf": (1, 1, erf),
    "erfc": (1, 1, erfc),
    "tgamma": (1, 1, gamma),
    "lgamma": (1, 1, loggamma),
    "ceil": (1, 1, ceiling),
    "floor": (1, 1, floor),
    "trunc": (1, 1, _trunc),
    "round": (1, 1, _round),
    "nearbyint": (1, 1, rint),
    "fmod": (2, 2, _fmod),
    "remainder": (2, 2, lambda x, y: x - y * rint(x / y)),
    "fmax": (2, 2, Max),
    "fmin": (2, 2, Min),
    "fdim": (2, 2, lambda x, y: Max(x - y, 0)),
    "copysign": (2, 2, _copysign),
}


def _chain(rel: Callable) -> Callable:
    def f(*a):
        return And(*(rel(a[i], a[i + 1]) for i in range(len(a) - 1)))
    return f


def _distinct(*a):
    return And(*(Ne(a[i], a[j]) for i in range(len(a)) for j in range(i + 1, len(a))))


_COMPARISONS: dict[str, Callable] = {
    "<": _chain(lambda a, b: a < b),
    ">": _chain(lambda a, b: a > b),
    "<=": _chain(lambda a, b: a <= b),
    ">=": _chain(lambda a, b: a >= b),
    "==": _chain(Eq),
    "!=": _distinct,
}
_LOGIC: dict[str, tuple[int, int | None, Callable]] = {
    "and": (0, None, And),
    "or": (0, None, Or),
    "not": (1, 1, Not),
}

_CONSTANTS: dict[str, Basic] = {
    "E": E, "LOG2E": 1 / log(2), "LOG10E": 1 / log(10), "LN2": log(2), "LN10": log(10),
    "PI": pi, "PI_2": pi / 2, "PI_4": pi / 4, "M_1_PI": 1 / pi, "M_2_PI": 2 / pi,
    "M_2_SQRTPI": 2 / sqrt(pi), "SQRT2": sqrt(2), "SQRT1_2": 1 / sqrt(2),
    "TRUE": S.true, "FALSE": S.false,
}

# what is refused, and why
_LOOPS = "loops have no closed formula; symgrad reads formulas of real scalars"
_TENSORS = "tensors are not scalars; symgrad reads formulas of real scalars"
_REFUSED: dict[str, str] = {
    "while": _LOOPS, "while*": _LOOPS, "for": _LOOPS, "for*": _LOOPS,
    "tensor": _TENSORS, "tensor*": _TENSORS, "array": _TENSORS, "dim": _TENSORS,
    "size": _TENSORS, "ref": _TENSORS,
    "isfinite": "a test of the float format, which a formula over the reals cannot state",
    "isinf": "a test of the float format, which a formula over the reals cannot state",
    "isnan": "a test of the float format, which a formula over the reals cannot state",
    "isnormal": "a test of the float format, which a formula over the reals cannot state",
    "signbit": "a test of the float format (the sign of -0), which a formula over the reals "
               "cannot state",
    "INFINITY": "an infinite value; symgrad measures finite real values",
    "NAN": "NaN is not a real number",
}


# ---- building one benchmark -------------------------------------------------------------


class _Builder:
    """Builds the SymPy formula of one FPCore, names bound in ``env``."""

    def __init__(self, name: str, precision: str, text: str) -> None:
        self.name, self.precision, self.text = name, precision, text

    def error(self, message: str, node, construct: str | None = None) -> FPCoreError:
        return FPCoreError(message, self.name, construct, node.line)

    def source(self, node) -> str:
        return " ".join(self.text[node.start:node.end].split())

    def expr(self, node, env: dict) -> Expr:
        v = self.build(node, env)
        if not isinstance(v, Expr):
            raise self.error(f"`{self.source(node)}` is a condition where a number is "
                             "expected", node)
        return v

    def cond(self, node, env: dict) -> Boolean:
        v = self.build(node, env)
        if not isinstance(v, Boolean) or isinstance(v, Expr):  # a Symbol is both
            raise self.error(f"`{self.source(node)}` is a number where a condition is "
                             "expected (compare it: (< a b), (== a b), ...)", node)
        return v

    def build(self, node, env: dict) -> Basic:
        if isinstance(node, _Atom):
            return self.atom(node, env)
        if not node.items:
            raise self.error("`()` is an empty expression", node)
        head = node.items[0]
        if not isinstance(head, _Atom) or head.string:
            raise self.error(f"`{self.source(head)}` is not an operation (an FPCore "
                             "expression starts with its operator's name)", head)
        op, args = head.text, node.items[1:]
        if op in _REFUSED:
            raise self.error(f"`{op}` is not supported: {_REFUSED[op]}", node, op)
        if op in ("let", "let*"):
            return self.let(node, op, args, env)
        if op == "if":
            if len(args) != 3:
                raise self.error(f"`if` takes a condition and two branches, got {len(args)} "
                                 "arguments", node, op)
            c = self.cond(args[0], env)
            then, other = self.expr(args[1], env), self.expr(args[2], env)
            return Piecewise((then, c), (other, True))
        if op == "!":
            return self.annotated(node, args, env)
        if op == "cast":
            if len(args) != 1:
                raise self.error("`cast` takes one argument", node, op)
            return self.expr(args[0], env)  # rounding to the current precision: the code's
        if op == "digits":
            return self.digits(node, args)
        if op in _COMPARISONS:
            if len(args) < 2:
                raise self.error(f"`{op}` compares two values or more", node, op)
            return _COMPARISONS[op](*(self.expr(a, env) for a in args))
        if op in _LOGIC:
            lo, hi, fn = _LOGIC[op]
            self.arity(node, op, len(args), lo, hi)
            return fn(*(self.cond(a, env) for a in args))
        if op in _OPS:
            lo, hi, fn = _OPS[op]
            self.arity(node, op, len(args), lo, hi)
            return fn(*(self.expr(a, env) for a in args))
        raise self.error(f"`{op}` is not an FPCore operation that symgrad knows (it reads "
                         f"{', '.join(sorted(_OPS))}, comparisons, and, or, not, if, let, "
                         "let*, cast, !, digits)", head, op)

    def arity(self, node, op: str, n: int, lo: int, hi: int | None) -> None:
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if lo == hi else f"{lo} or more" if hi is None else f"{lo} to {hi}"
            raise self.error(f"`{op}` takes {want} argument{'s' * (want != '1')}, got {n}",
                             node, op)

    def atom(self, node: _Atom, env: dict) -> Basic:
        if node.string:
            raise self.error(f"the string {node.text!r} is not a number", node)
        if node.text in env:
            return env[node.text]
        try:
            v = _number(node.text)
        except ValueError as exc:
            raise self.error(str(exc), node) from None
        if v is not None:
            return v
        if node.text in _CONSTANTS:
            return _CONSTANTS[node.text]
        if node.text in _REFUSED:
            raise self.error(f"`{node.text}` is not supported: {_REFUSED[node.text]}", node,
                             node.text)
        raise self.error(f"`{node.text}` is not a variable, a number or an FPCore constant",
                         node)

    def let(self, node: _List, op: str, args: list, env: dict) -> Basic:
        return self.build(args[1], self.bind(node, op, args, env))

    def bind(self, node: _List, op: str, args: list, env: dict) -> dict:
        """The scope of a ``let``/``let*``'s body."""
        if len(args) != 2 or not isinstance(args[0], _List):
            raise self.error(f"`{op}` takes a list of bindings ([name expr] ...) and a body",
                             node, op)
        inner = dict(env)
        for b in args[0].items:
            if not (isinstance(b, _List) and len(b.items) == 2 and isinstance(b.items[0], _Atom)
                    and not b.items[0].string):
                raise self.error(f"`{self.source(b)}`: a binding of `{op}` is [name expr]", b, op)
            # let: every value in the outer scope; let*: each sees the ones before
            inner[b.items[0].text] = self.build(b.items[1], inner if op == "let*" else env)
        return inner

    def annotated(self, node: _List, args: list, env: dict) -> Basic:
        props, rest = _properties(args, self)
        if len(rest) != 1:
            raise self.error("`!` takes properties and one expression", node, "!")
        for key, value in props:
            if key == "precision" and value.text != self.precision:
                raise self.error(
                    f"`(! :precision {value.text} ...)` is not supported: mixed precisions "
                    f"(this benchmark computes in {self.precision}); symgrad measures one "
                    "float type at a time", node, "!")
            if key == "round" and getattr(value, "text", "") != "nearestEven":
                raise self.error(f"`(! :round {self.source(value)} ...)` is not supported: "
                                 "symgrad's code rounds to nearest, ties to even", node, "!")
        return self.build(rest[0], env)

    def digits(self, node: _List, args: list) -> Expr:
        ints = []
        for a in args:
            if not (isinstance(a, _Atom) and re.fullmatch(r"[+-]?\d+", a.text)):
                raise self.error(f"`(digits m e b)` takes three integers, got "
                                 f"`{self.source(node)}`", node, "digits")
            ints.append(int(a.text))
        if len(ints) != 3 or ints[2] < 2:
            raise self.error(f"`(digits m e b)` takes three integers (base 2 or more), got "
                             f"`{self.source(node)}`", node, "digits")
        m, e, b = ints
        if abs(e) * math.log2(b) > 4 * MAX_EXPONENT:
            raise self.error(f"the exponent of `{self.source(node)}` is too large", node,
                             "digits")
        return Rational(m) * Rational(b) ** e


def _properties(items: list, builder: _Builder | None) -> tuple[list, list]:
    """``:key value`` pairs from the start of ``items``, and what follows."""
    props, i = [], 0
    while i < len(items) and isinstance(items[i], _Atom) and not items[i].string \
            and items[i].text.startswith(":"):
        if i + 1 >= len(items):
            raise FPCoreError(f"the property {items[i].text} has no value",
                              builder.name if builder else None, line=items[i].line)
        props.append((items[i].text[1:], items[i + 1]))
        i += 2
    return props, items[i:]


# ---- the precondition as a box ----------------------------------------------------------


class _Box:
    """Bounds per variable: ``lo[s] = (value, strict)``, and what the
    precondition says that they leave out."""

    def __init__(self) -> None:
        self.lo: dict = {}
        self.hi: dict = {}
        self.notes: list[str] = []

    def lower(self, s: Symbol, v: Expr, strict: bool) -> None:
        old = self.lo.get(s)
        if old is None or bool(v > old[0]) or (v == old[0] and strict):
            self.lo[s] = (v, strict)

    def upper(self, s: Symbol, v: Expr, strict: bool) -> None:
        old = self.hi.get(s)
        if old is None or bool(v < old[0]) or (v == old[0] and strict):
            self.hi[s] = (v, strict)

    def hull(self, other: _Box) -> None:
        """The smallest box holding this one and ``other``."""
        for mine, theirs, wider in ((self.lo, other.lo, lambda a, b: a < b),
                                    (self.hi, other.hi, lambda a, b: a > b)):
            for s in list(mine):
                if s not in theirs:
                    del mine[s]
                elif bool(wider(theirs[s][0], mine[s][0])) or (
                        theirs[s][0] == mine[s][0] and not theirs[s][1]):
                    mine[s] = theirs[s]


_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _real_number(v: Basic) -> bool:
    return isinstance(v, Expr) and v.is_number and v.is_real is True and v.is_finite is True


def _comparison(op: str, vals: list, box: _Box, variables: set) -> bool:
    """Bounds of the chain ``(op v0 v1 ...)`` on single variables (or
    their absolute values) in ``box``; whether the box states the chain."""
    exact = True
    if op == "!=":
        return False
    rels = [(vals[i], vals[i + 1]) for i in range(len(vals) - 1)]
    for a, b in rels:
        for x, c, o in ((a, b, op), (b, a, _FLIP.get(op, op))):  # x o c
            if not _real_number(c):
                continue
            strict = o in ("<", ">")
            if x in variables:
                if o in ("<", "<=", "=="):
                    box.upper(x, c, strict)
                if o in (">", ">=", "=="):
                    box.lower(x, c, strict)
                break
            if isinstance(x, Abs) and x.args[0] in variables:
                if o in ("<", "<=", "=="):  # |x| < c: -c < x < c
                    box.upper(x.args[0], c, strict)
                    box.lower(x.args[0], -c, strict)
                if o in (">", ">=", "==") and bool(c > 0) or (o == ">" and c == 0):
                    exact = False  # |x| > c > 0: two intervals
                break
        else:  # neither side a number beside a variable
            if not (_real_number(a) and _real_number(b)) and not _solved(op, a, b, box,
                                                                         variables):
                exact = False
    return exact


_RELATIONS = {"<": Lt, "<=": Le, ">": Gt, ">=": Ge, "==": Eq}


def _solved(op: str, a: Expr, b: Expr, box: _Box, variables: set) -> bool:
    """``a op b`` as bounds on its one variable, where it is a polynomial
    of degree at most 4 in it (``(> (- 12.25 (* 12 c)) 0.1)``); whether
    the bounds state it exactly."""
    free = (a - b).free_symbols
    if op not in _RELATIONS or len(free) != 1 or not free <= variables:
        return False
    (x,) = free
    d = a - b
    if not d.is_polynomial(x) or Poly(d, x).degree() > 4:
        return False
    try:
        sol = solve_univariate_inequality(_RELATIONS[op](d, 0), x, relational=False)
    except (NotImplementedError, ValueError, TypeError):
        return False
    if sol is S.EmptySet:
        box.lower(x, S.One, False)
        box.upper(x, S.Zero, False)  # empty: refused when the box is made
        return True
    inf, sup = sol.inf, sol.sup
    if inf.is_finite:
        box.lower(x, inf, isinstance(sol, Interval) and sol.left_open or not
                  isinstance(sol, Interval))
    if sup.is_finite:
        box.upper(x, sup, isinstance(sol, Interval) and sol.right_open or not
                  isinstance(sol, Interval))
    return isinstance(sol, Interval)


# ---- reading a file ---------------------------------------------------------------------


def _symbol_names(names: list[str]) -> dict[str, Symbol]:
    """Real symbols for FPCore's argument names, each a Python identifier
    (FPCore allows ``x-1`` and ``a.b``; those become ``x_1``, ``a_b``)."""
    out: dict[str, Symbol] = {}
    taken: set[str] = set()
    for n in names:
        ident = re.sub(r"\W", "_", n)
        if not ident.isidentifier() or keyword.iskeyword(ident):
            ident = f"v_{ident}"
        while ident in taken:
            ident += "_"
        taken.add(ident)
        out[n] = Symbol(ident, real=True)
    return out


def _float_inside(v: Expr, up: bool) -> float:
    """The float64 nearest ``v`` strictly above it (``up``) or below."""
    q = Fraction(int(v.p), int(v.q)) if v.is_Rational else Fraction(str(v.evalf(40)))
    f = float(q)
    while (Fraction(f) <= q) if up else (Fraction(f) >= q):
        f = float(np.nextafter(f, math.inf if up else -math.inf))
    return f


def _core(node: _List, text: str) -> FPCoreBenchmark:
    items = node.items[1:]
    if items and isinstance(items[0], _Atom) and not items[0].text.startswith(":"):
        items = items[1:]  # FPCore 2.0's (FPCore name (args) ...)
    if not items or not isinstance(items[0], _List):
        raise FPCoreError("an FPCore starts with its list of arguments: (FPCore (x y) ...)",
                          line=node.line)
    args_node = items[0]
    props, rest = _properties(items[1:], None)
    texts: dict[str, tuple[str, ...]] = {}
    for key, value in props:
        t = value.text if isinstance(value, _Atom) else " ".join(
            text[value.start:value.end].split())
        texts[key] = (*texts.get(key, ()), t)
    name = texts.get("name", (f"FPCore at line {node.line}",))[0]
    precision = texts.get("precision", ("binary64",))[0]
    b = _Builder(name, precision, text)
    if precision not in DTYPES:
        raise b.error(f"`:precision {precision}` is not supported: symgrad measures binary64 "
                      "(float64) and binary32 (float32)", node, precision)
    if len(rest) != 1:
        raise b.error(f"an FPCore holds one expression after its properties, found "
                      f"{len(rest)}", node)
    names = []
    for a in args_node.items:
        if isinstance(a, _List):
            if a.items and isinstance(a.items[0], _Atom) and a.items[0].text == "!":
                aprops, arest = _properties(a.items[1:], b)
                for key, value in aprops:
                    if key == "precision" and value.text != precision:
                        raise b.error(f"the argument `{b.source(a)}` is not supported: data "
                                      f"type {value.text} (symgrad reads real arguments in "
                                      f"{precision})", a, value.text)
                if len(arest) == 1 and isinstance(arest[0], _Atom):
                    names.append(arest[0].text)
                    continue
            raise b.error(f"the argument `{b.source(a)}` is not supported: tensor arguments "
                          "are not scalars", a, "tensor")
        names.append(a.text)
    if len(set(names)) != len(names):
        raise b.error(f"an argument name is repeated in {b.source(args_node)}", args_node)
    symbols = _symbol_names(names)
    env: dict[str, Basic] = dict(symbols)
    expression = b.expr(rest[0], env)
    variables = tuple(symbols[n] for n in names)
    pre_nodes = [v for k, v in props if k == "pre"]
    domain, exact, note = _domain(b, pre_nodes[0] if pre_nodes else None, env, variables)
    return FPCoreBenchmark(
        name=name, expression=expression, variables=variables, domain=domain,
        pre=texts["pre"][0] if "pre" in texts else None, box_exact=exact, box_note=note,
        precision=precision, cite=tuple(texts.get("cite", ("",))[0].strip("()").split()),
        properties=texts, line=node.line)


def _domain(b: _Builder, pre, env: dict, variables: tuple) -> tuple[dict, bool, str]:
    box = _Box()
    if pre is not None:
        _bounds(b, pre, env, box, set(variables))
    domain = {}
    for s in variables:
        lo, hi = box.lo.get(s), box.hi.get(s)
        lv = S.NegativeInfinity if lo is None else (
            _float_inside(lo[0], True) if lo[1] else lo[0])
        hv = S.Infinity if hi is None else (_float_inside(hi[0], False) if hi[1] else hi[0])
        if lo is not None and hi is not None and (
                bool(lo[0] > hi[0]) or (lo[0] == hi[0] and (lo[1] or hi[1]))):
            raise b.error(f"the precondition `{b.source(pre)}` holds for no {s}: its bounds "
                          f"({lo[0]} and {hi[0]}) leave nothing between them", pre, "pre")
        domain[s] = (lv, hv)
    note = "; ".join(box.notes)
    if note:
        note += "; the domain is the tightest box the rest implies"
    return domain, not box.notes, note


def _bounds(b: _Builder, node, env: dict, box: _Box, variables: set) -> None:
    """Add what the condition ``node`` says of single variables to ``box``."""
    if b.cond(node, env) is S.false:
        raise b.error(f"the precondition `{b.source(node)}` is false", node, "pre")
    head = node.items[0].text if isinstance(node, _List) and node.items and isinstance(
        node.items[0], _Atom) else None
    if head == "and":
        for a in node.items[1:]:
            _bounds(b, a, env, box, variables)
        return
    if head in ("let", "let*"):
        _bounds(b, node.items[2], b.bind(node, head, node.items[1:], env), box, variables)
        return
    if head == "or" and len(node.items) > 1:
        branches = []
        for a in node.items[1:]:
            if b.cond(a, env) is S.false:  # a branch that never holds adds nothing
                continue
            sub = _Box()
            _bounds(b, a, env, sub, variables)
            branches.append(sub)
        hull = branches[0]
        for other in branches[1:]:
            hull.hull(other)
        for s, (v, strict) in hull.lo.items():
            box.lower(s, v, strict)
        for s, (v, strict) in hull.hi.items():
            box.upper(s, v, strict)
        box.notes.append(f"`{b.source(node)}` is a union of boxes")
        return
    if head in _COMPARISONS:
        vals = [b.expr(a, env) for a in node.items[1:]]
        if _comparison(head, vals, box, variables):
            return
        why = "excludes points" if head == "!=" else "is not a bound on one variable"
        box.notes.append(f"`{b.source(node)}` {why}")
        return
    if b.cond(node, env) is S.true:
        return
    box.notes.append(f"`{b.source(node)}` is not a bound on one variable")


def read_fpcore(text: str, *, errors: list | None = None) -> list[FPCoreBenchmark]:
    """The benchmarks of an FPCore file (FPBench's format), each as a SymPy
    formula over real symbols with its domain box (see
    :class:`FPCoreBenchmark`), ready for :func:`symgrad.check_stability`
    and :func:`symgrad.stabilize`.

    A benchmark that cannot be expressed (a loop, a tensor, an integer
    argument, mixed precisions, ...) raises an :class:`FPCoreError` naming
    the construct and the benchmark; given a list as ``errors``, it is
    skipped instead and its error appended there.  A syntax error always
    raises.  Nothing in the text is executed.

    >>> from symgrad import read_fpcore, check_stability
    >>> [b] = read_fpcore('''
    ... (FPCore (x)
    ...  :name "NMSE example 3.1"
    ...  :pre (>= x 0)
    ...  (- (sqrt (+ x 1)) (sqrt x)))''')
    >>> b.name, b.expression, b.domain, b.pre
    ('NMSE example 3.1', -sqrt(x) + sqrt(x + 1), {x: (0, oo)}, '(>= x 0)')
    >>> check_stability(b.expression, b.domain, samples=256, rewrites=False).ok
    False
    """
    if not isinstance(text, str):
        raise TypeError(f"read_fpcore: text is {type(text).__name__}; give the file's text "
                        "(a str)")
    out = []
    for node in _sexprs(text):
        if not (isinstance(node, _List) and node.items and isinstance(node.items[0], _Atom)
                and node.items[0].text == "FPCore"):
            what = node.text if isinstance(node, _Atom) else " ".join(
                text[node.start:node.end].split())[:40]
            raise FPCoreError(f"`{what}` is not an FPCore (the file holds (FPCore ...) "
                              "forms)", line=node.line)
        try:
            out.append(_core(node, text))
        except FPCoreError as exc:
            if errors is None or exc.name is None:
                raise
            errors.append(exc)
    return out
