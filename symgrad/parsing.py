"""Safe parsing: a formula given as a string becomes a SymPy expression
without any of it being executed.

``sympy.sympify`` and ``parse_expr`` evaluate Python, so a string handed to
them can run anything.  :func:`parse` reads the text with the standard
library's :mod:`ast` and builds the SymPy tree itself from an allow-list:
numbers, names, the arithmetic, power, comparison and logical operators,
parentheses, and calls to known function names.  Everything else is a
:class:`ParseError` that points at the offending part.

Limits (each a keyword of :func:`parse`): the text's length, and the depth
of its nesting (parentheses, calls, powers, unary signs; a long ``a + b +
...`` chain counts once).  Python's own parser cannot read a single chain
of more than about 900 ``+`` or ``*`` operators; such a chain is a
ParseError asking for parentheses.

Unicode: names are NFKC-normalised as Python normalises identifiers (so
the full-width ``ｘ`` and the mathematical italic ``𝑥`` are ``x``).  After
that a name may hold ASCII letters, digits, ``_`` and Greek letters, except
the Greek capitals and the omicron that look like Latin letters: two
different symbols must never print alike (the Cyrillic ``х`` is refused, not
read as a second, invisible ``x``).  A non-ASCII character outside a name
(``x²``, ``（x）``) is refused by Python's tokenizer.
"""

from __future__ import annotations

import ast
import difflib
import functools
import inspect
import unicodedata
from collections.abc import Callable, Mapping

from sympy import (
    Add,
    And,
    Basic,
    Dummy,
    E,
    Eq,
    Expr,
    Function,
    I,
    Max,
    Min,
    Mod,
    Mul,
    Ne,
    Not,
    Or,
    Piecewise,
    Pow,
    Symbol,
    cbrt,
    false,
    floor,
    nan,
    oo,
    pi,
    sqrt,
    true,
    zoo,
)
from sympy import Float as SFloat
from sympy import Integer as SInteger
from sympy.logic.boolalg import Boolean

from .compensated import compensated
from .errors import SymgradError
from .graph import postorder
from .overrides import override
from .rewrites.forms import erfcx
from .rules import DEFAULT_TABLE
from .rules.defaults import build_default_table
from .scaled import scaled
from .select import cond, where
from .widen import widen

__all__ = ["parse", "ParseError", "function_names", "MAX_LENGTH", "MAX_DEPTH"]

MAX_LENGTH = 100_000  # characters
MAX_DEPTH = 100  # nesting levels
MAX_DIGITS = 4000  # an exact number longer than this is refused (Python prints 4300)
_MAX_BITS = int(MAX_DIGITS * 3.33)
_EXACT_ARG = 1000  # a call on an exact number larger than this stays unevaluated

# SymPy's names, as its str prints them (1/0 prints as zoo, 0/0 as nan)
CONSTANTS: dict[str, Basic] = {"pi": pi, "E": E, "I": I, "oo": oo, "zoo": zoo, "nan": nan}

# Greek letters that look like Latin ones; refused in names.
_CONFUSABLE = set("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧο")


class ParseError(SymgradError):
    """A string that :func:`parse` refuses: what is wrong and where.

    ``str(err)`` shows the reason, then the line with a caret under the
    offending part; ``err.brief`` is the same in one line.  ``line`` and
    ``column`` are 1-based.

    >>> try:
    ...     parse("x + ().__class__")
    ... except ParseError as err:
    ...     print(err)
    attribute access is not allowed: `.__class__` at column 5
      x + ().__class__
          ^^^^^^^^^^^^
    """

    def __init__(self, reason: str, text: str = "", line: int = 1, column: int = 1,
                 width: int = 1) -> None:
        self.reason, self.text, self.line, self.column = reason, text, line, column
        self.width = max(1, width)
        super().__init__(self._render())

    @property
    def brief(self) -> str:
        """The reason and the position, in one line."""
        where = f"line {self.line}, column {self.column}" if "\n" in self.text else (
            f"column {self.column}")
        return f"{self.reason} at {where}" if self.text else self.reason

    def _render(self) -> str:
        if not self.text:
            return self.reason
        src = self.text.split("\n")[self.line - 1] if self.line <= self.text.count("\n") + 1 else ""
        start, col = 0, self.column - 1
        if len(src) > 72:  # a window around the column
            start = max(0, min(col - 30, len(src) - 72))
            src = ("…" if start else "") + src[start : start + 72] + ("…" if start + 72 < len(src)
                                                                     else "")
            col = col - start + (1 if start else 0)
        width = max(1, min(self.width, len(src) - col))
        return f"{self.brief}\n  {src}\n  {' ' * col}{'^' * width}"


# ---- the allow-list -------------------------------------------------------------


def _table_functions() -> dict[str, Callable]:
    """Node classes of the rule table, and names users registered for
    undefined functions (``register_gradient("erf2")`` makes ``erf2(x)``)."""
    out: dict[str, Callable] = {}
    for name in DEFAULT_TABLE.names():
        entry = DEFAULT_TABLE.registered(name)
        if entry.cls is not None:
            out[name] = entry.cls
        elif name not in _rule_only_names() and name.isidentifier():
            out[name] = Function(name)
    return out


@functools.cache
def _rule_only_names() -> frozenset[str]:
    """Names of the built-in rules that are no node (``Identity``, ``Zero``)."""
    t = build_default_table()
    return frozenset(n for n in t.names() if t.registered(n).cls is None)


# symgrad's own and SymPy's conveniences beyond the table's class names
_EXTRA: dict[str, Callable] = {
    "where": where,
    "cond": cond,
    "sqrt": sqrt,
    "cbrt": cbrt,
    "abs": lambda x: DEFAULT_TABLE.registered("Abs").cls(x),
    "max": Max,
    "min": Min,
    "Eq": Eq,
    "Ne": Ne,
    "And": And,
    "Or": Or,
    "Not": Not,
    # what stabilize writes, so that its printed result parses back
    "widen": widen,
    "compensated": compensated,
    "scaled": scaled,
    "erfcx": erfcx,
}


def _functions(extra: Mapping[str, Callable] | None) -> dict[str, Callable]:
    out = {**_table_functions(), **_EXTRA}
    out.pop("Piecewise", None)
    out["Piecewise"] = _piecewise
    if extra:
        for name, fn in extra.items():
            if not isinstance(name, str) or not name.isidentifier() or not callable(fn):
                raise TypeError(
                    f"parse: functions maps names to callables, got {name!r}: {fn!r}"
                )
            out[name] = fn
    return out


def function_names(functions: Mapping[str, Callable] | None = None) -> list[str]:
    """The function names :func:`parse` accepts (with ``functions`` added).

    >>> names = function_names()
    >>> all(n in names for n in ("exp", "floor", "stop_gradient", "where", "sigmoid"))
    True
    """
    return sorted(_functions(functions))


_TAKES_CONDITIONS = frozenset({"where", "cond", "Piecewise", "And", "Or", "Not"})


def _piecewise(*pairs: object) -> Basic:
    for p in pairs:
        if not isinstance(p, tuple) or len(p) != 2:
            raise SymgradError("Piecewise takes (value, condition) pairs")
    return Piecewise(*pairs)


# ---- the parser ---------------------------------------------------------------------

_FAMILY = {ast.Add: "+", ast.Sub: "+", ast.Mult: "*", ast.Div: "*", ast.BitAnd: "&",
           ast.BitOr: "|"}
_SINGLE_BINOPS = (ast.Pow, ast.Mod, ast.FloorDiv)
_COMPARE = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
            ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.Eq: Eq, ast.NotEq: Ne}
_REFUSED = {
    ast.Attribute: "attribute access is not allowed",
    ast.Subscript: "subscripts (indexing) are not allowed",
    ast.Lambda: "lambda is not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "comprehensions are not allowed",
    ast.List: "lists are not allowed",
    ast.Set: "sets are not allowed",
    ast.Dict: "dicts are not allowed",
    ast.IfExp: "`a if c else b` is not allowed: write where(c, a, b)",
    ast.NamedExpr: "assignment (:=) is not allowed",
    ast.Starred: "starred arguments are not allowed",
    ast.JoinedStr: "strings are not allowed",
    ast.Slice: "slices are not allowed",
    ast.Await: "await is not allowed",
}


def _callee(node: ast.Call) -> tuple[str, str | None] | None:
    """The function name of a call, and its tag: ``f(x)`` or ``f[Rule](x)``
    (how a node tagged by ``override`` prints)."""
    f = node.func
    if isinstance(f, ast.Name):
        return f.id, None
    if isinstance(f, ast.Subscript) and isinstance(f.value, ast.Name) and isinstance(
            f.slice, ast.Name):
        return f.value.id, f.slice.id
    return None


def _tags(*exprs: Basic) -> set[Basic]:
    """The tagged nodes in ``exprs``."""
    order, _ = postorder(exprs, lambda n: n.args)
    return {n for n in order if getattr(type(n), "_symgrad_tag", None) is not None}


def _chain(node: ast.BinOp) -> tuple[list[ast.AST], list[ast.operator]]:
    """Operands and operators of a left-associated chain ``a + b - c ...``
    of one family, flattened (walked along its left spine, no recursion)."""
    fam = _FAMILY[type(node.op)]
    rights, ops = [], []
    while isinstance(node, ast.BinOp) and _FAMILY.get(type(node.op)) == fam:
        rights.append(node.right)
        ops.append(node.op)
        node = node.left
    return [node, *reversed(rights)], list(reversed(ops))


def _kids(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Expression):
        return [node.body]
    if isinstance(node, ast.BinOp):
        if type(node.op) in _FAMILY:
            return _chain(node)[0]
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.Call):
        return list(node.args)
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    return []


class _Parser:
    def __init__(self, text: str, symbols: Mapping[str, Basic] | None,
                 functions: Mapping[str, Callable] | None, max_depth: int) -> None:
        text = text.replace("\r\n", "\n").replace("\r", "\n")  # lines as Python counts them
        self.text = text
        self.lines = text.split("\n")
        self.symbols = dict(symbols or {})
        self.functions = _functions(functions)
        self.max_depth = max_depth

    # -- positions -------------------------------------------------------------
    def error(self, reason: str, node: ast.AST | None = None, line: int = 1,
              col: int = 1, width: int = 1) -> ParseError:
        if node is not None and hasattr(node, "lineno"):
            line, col = self._char_pos(node.lineno, node.col_offset)
            end_line = getattr(node, "end_lineno", None) or node.lineno
            if end_line == node.lineno and node.end_col_offset is not None:
                _, end = self._char_pos(node.lineno, node.end_col_offset)
                width = end - col
            else:
                width = len(self.lines[line - 1]) - col + 1
        return ParseError(reason, self.text, line, col, width)

    def _char_pos(self, lineno: int, byte_col: int) -> tuple[int, int]:
        """A node's (line, column), 1-based characters in the user's text;
        ``ast`` counts UTF-8 bytes, in the text wrapped as ``(`` text ``)``."""
        src = ("(" + self.lines[0]) if lineno == 1 else self.lines[lineno - 1]
        col = len(src.encode("utf-8")[:byte_col].decode("utf-8", "replace"))
        return lineno, col + (0 if lineno == 1 else 1)

    # -- before Python's parser: length, brackets, strings ---------------------------
    def scan(self) -> None:
        text = self.text
        depth, opened = 0, []
        line, col = 1, 0
        for ch in text:
            col += 1
            if ch == "\n":
                line, col = line + 1, 0
            elif ch in "([{":
                depth += 1
                opened.append((line, col))
                if depth > self.max_depth:
                    raise ParseError(
                        f"brackets nested deeper than {self.max_depth} levels "
                        "(parse(..., max_depth=...) raises the limit)", text, line, col)
            elif ch in ")]}":
                if depth == 0:
                    raise ParseError(f"unmatched {ch!r}", text, line, col)
                depth -= 1
                opened.pop()
            elif ch in "'\"":
                raise ParseError("strings are not allowed", text, line, col)
            elif ch == "#":
                raise ParseError("comments (#) are not allowed", text, line, col)
            elif ch == "\x00":
                raise ParseError("a NUL character is not allowed", text, line, col)
        if opened:
            raise ParseError("this bracket is never closed", text, *opened[-1])
        if not text.strip():
            raise ParseError("the formula is empty")

    def syntax(self) -> ast.Expression:
        # Wrapped in parentheses so that a formula may span lines and start
        # with a space; the scan has checked that brackets balance.
        try:
            return ast.parse("(" + self.text + "\n)", mode="eval")
        except SyntaxError as exc:
            lineno = exc.lineno or 1
            line, col = (lineno, 1) if lineno > len(self.lines) else self._char_pos(
                lineno, len(("(" + self.lines[0] if lineno == 1 else self.lines[lineno - 1])
                            .encode("utf-8")[: max(0, (exc.offset or 1) - 1)]))
            if lineno > len(self.lines):  # at the closing parenthesis we added
                line, col = len(self.lines), len(self.lines[-1]) + 1
            msg = exc.msg or "invalid syntax"
            if "Exceeds the limit" in msg:
                msg = "an integer literal of more than 4300 digits (Python's limit)"
            raise ParseError(f"invalid syntax: {msg}", self.text, line, max(col, 1)) from None
        except (RecursionError, MemoryError, ValueError):
            raise ParseError(
                "too deeply nested for Python's parser (a chain of hundreds of + or * "
                "operators, or of unary signs or powers): group it with parentheses"
            ) from None

    # -- the allow-list, top-down ---------------------------------------------------------
    def check(self, tree: ast.Expression) -> None:
        stack: list[tuple[ast.AST, int, ast.AST | None]] = [(tree.body, 1, tree)]
        while stack:
            node, depth, parent = stack.pop()
            if depth > self.max_depth:
                raise self.error(
                    f"nested deeper than {self.max_depth} levels "
                    "(parse(..., max_depth=...) raises the limit)", node)
            self.check_node(node, parent)
            kids = _kids(node)
            if isinstance(node, ast.BinOp) and type(node.op) in _FAMILY:
                for op in _chain(node)[1]:
                    self.check_op(op, node)
            stack.extend((k, depth + 1, node) for k in reversed(kids))

    def check_op(self, op: ast.AST, node: ast.AST) -> None:
        if isinstance(op, ast.BitXor):
            raise self.error("`^` is exclusive or in Python: write ** for a power", node)
        if type(op) not in _FAMILY and not isinstance(op, _SINGLE_BINOPS):
            raise self.error(f"the operator {type(op).__name__} is not allowed", node)

    def check_node(self, node: ast.AST, parent: ast.AST | None) -> None:
        if type(node) in _REFUSED:
            reason = _REFUSED[type(node)]
            if isinstance(node, ast.Attribute):
                reason += f": `.{node.attr}`"
            raise self.error(reason, node)
        if isinstance(node, ast.BinOp):
            self.check_op(node.op, node)
        elif isinstance(node, ast.UnaryOp):
            pass  # +, -, not, ~ are all allowed
        elif isinstance(node, ast.Compare):
            for op in node.ops:
                if type(op) not in _COMPARE:
                    raise self.error(f"the comparison {type(op).__name__} is not allowed", node)
        elif isinstance(node, ast.Call):
            callee = _callee(node)
            if callee is None:
                raise self.error("only calls of function names are allowed (or of tagged "
                                 "ones: floor[Identity](x))", node.func)
            name, tag = callee
            self.check_name(name, node.func)
            if name not in self.functions:
                raise self.error(self.unknown(name), node.func)
            if tag is not None:
                self.check_name(tag, node.func)
            if node.keywords:
                raise self.error(
                    "keyword arguments are not allowed: pass arguments by position",
                    node.keywords[0].value)
        elif isinstance(node, ast.Name):
            self.check_name(node.id, node)
            if node.id in self.functions and node.id not in self.symbols:
                raise self.error(f"{node.id} is a function: call it, {node.id}(...)", node)
        elif isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, complex):
                raise self.error(f"imaginary literals are not allowed: write {v.imag!r}*I", node)
            if not isinstance(v, (bool, int, float)):
                raise self.error(f"{type(v).__name__} constants are not allowed", node)
        elif isinstance(node, ast.Tuple):
            if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
                    and parent.func.id == "Piecewise"):
                raise self.error(
                    "tuples are only allowed as Piecewise's (value, condition) pairs", node)
        elif not isinstance(node, ast.BoolOp):
            raise self.error(f"{type(node).__name__} is not allowed", node)

    def check_name(self, name: str, node: ast.AST) -> None:
        if name.startswith("__"):
            raise self.error(f"dunder names are not allowed: {name}", node)
        for ch in name:
            if ch.isascii() or ("GREEK" in unicodedata.name(ch, "") and ch not in _CONFUSABLE):
                continue
            raise self.error(
                f"the character {ch!r} ({unicodedata.name(ch, hex(ord(ch)))}) in the name "
                f"{name!r} is not allowed: names hold ASCII letters, digits, _ and Greek "
                "letters that look like no Latin letter", node)

    def unknown(self, name: str) -> str:
        close = difflib.get_close_matches(name, list(self.functions), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return (f"unknown function {name!r}{hint} (symgrad.parsing.function_names() lists "
                "the known ones; parse(..., functions={...}) adds your own)")

    # -- building SymPy, bottom-up, without recursion -------------------------------------
    def build(self, tree: ast.Expression) -> Basic:
        value: dict[int, object] = {}
        stack: list[tuple[ast.AST, bool]] = [(tree.body, False)]
        while stack:
            node, ready = stack.pop()
            kids = _kids(node)
            if not ready:
                stack.append((node, True))
                stack.extend((k, False) for k in reversed(kids))
                continue
            args = [value.pop(id(k)) for k in kids]
            try:
                out = self.make(node, args)
            except ParseError:
                raise
            except Exception as exc:  # SymPy's or symgrad's refusal, placed
                msg = str(exc).split("\n")[0] or type(exc).__name__
                if isinstance(exc, TypeError) and isinstance(node, ast.Call) and (
                        "positional argument" in msg):  # Python's words, not SymPy's
                    msg = self.arity(node, len(args)) or msg
                raise self.error(f"{self.what(node)}: {msg}", node) from None
            self.check_size(out, node)
            value[id(node)] = out
        return value[id(tree.body)]

    def arity(self, node: ast.Call, given: int) -> str | None:
        """How a function is called, when a call gave it the wrong number of
        arguments (Python's message names an internal ``__new__``)."""
        name = _callee(node)[0]
        try:
            sig = inspect.signature(self.functions[name])
        except (TypeError, ValueError):  # no signature to show
            return None
        try:
            sig.bind(*range(given))
            return None  # the count fits: the error was another
        except TypeError:
            n = "no arguments" if given == 0 else f"{given} argument{'s' * (given != 1)}"
            return f"{name} is called as {name}({', '.join(sig.parameters)}), not with {n}"

    def what(self, node: ast.AST) -> str:
        if isinstance(node, ast.Call):
            return f"{_callee(node)[0]}(...)"
        return {ast.BinOp: "this operation", ast.Compare: "this comparison",
                ast.UnaryOp: "this operation"}.get(type(node), "this")

    def make(self, node: ast.AST, args: list) -> object:
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                return true if v else false
            if isinstance(v, int):
                return SInteger(v)
            return SFloat(repr(v)) if v == v and abs(v) != float("inf") else self.literal(node)
        if isinstance(node, ast.Name):
            if node.id in self.symbols:
                return self.symbols[node.id]
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            return Symbol(node.id, real=True)
        if isinstance(node, ast.BinOp):
            op = type(node.op)
            if _FAMILY.get(op) not in ("&", "|"):
                self.numbers(args, node)
            if op in _FAMILY:
                ops = _chain(node)[1]
                if _FAMILY[op] == "+":
                    return Add(args[0], *(a if isinstance(o, ast.Add) else -a
                                          for o, a in zip(ops, args[1:])))
                if _FAMILY[op] == "*":
                    return Mul(args[0], *(a if isinstance(o, ast.Mult) else Pow(a, -1)
                                          for o, a in zip(ops, args[1:])))
                return (And if _FAMILY[op] == "&" else Or)(*self.conditions(args, node))
            a, b = args
            if op is ast.Pow:
                self.check_power(a, b, node)
                return Pow(a, b)
            if op is ast.Mod:
                return Mod(a, b)
            return floor(a / b)
        if isinstance(node, ast.UnaryOp):
            (a,) = args
            if isinstance(node.op, (ast.USub, ast.UAdd)):
                self.numbers(args, node)
            if isinstance(node.op, ast.USub):
                return -a
            if isinstance(node.op, ast.UAdd):
                return a
            return Not(*self.conditions(args, node))
        if isinstance(node, ast.BoolOp):
            return (And if isinstance(node.op, ast.And) else Or)(*self.conditions(args, node))
        if isinstance(node, ast.Compare):
            parts = [_COMPARE[type(o)](a, b) for o, a, b in zip(node.ops, args, args[1:])]
            return parts[0] if len(parts) == 1 else And(*parts)
        if isinstance(node, ast.Tuple):
            return tuple(args)
        assert isinstance(node, ast.Call)  # the check allowed nothing else
        name, tag = _callee(node)
        fn = self.functions[name]
        if name not in _TAKES_CONDITIONS:
            self.numbers(args, node)
        if tag is not None:  # floor[Identity](x): this node tagged, not those inside it
            ds = [Dummy() for _ in args]
            out = override(fn(*ds), {name: tag}).xreplace(dict(zip(ds, args)))
            if out.free_symbols and _tags(out) <= _tags(*args):
                raise self.error(f"SymPy simplifies this {name} node away, and its tag "
                                 f"[{tag}] with it ({name}(...) becomes {out})", node)
            return out
        if isinstance(fn, type) and issubclass(fn, Basic) and any(
                getattr(a, "is_Rational", False) and max(abs(a.p), a.q) > _EXACT_ARG
                for a in args):
            # gamma(10**6) evaluated exactly is 5.5 million digits: keep it as written
            return fn(*args, evaluate=False)
        return fn(*args)

    def numbers(self, args: list, node: ast.AST) -> None:
        """Arithmetic and functions take expressions, not conditions."""
        for a in args:
            if not isinstance(a, Expr):
                raise self.error(
                    f"{a} is a condition where a number is needed "
                    "(where(c, 1, 0) turns a condition into a number)", node)

    def conditions(self, args: list, node: ast.AST) -> list:
        """``args`` if each is a condition (and/or/not/&/|/~ take only those)."""
        for a in args:
            if not isinstance(a, Boolean) or (isinstance(a, Expr) and a.is_extended_real):
                raise self.error(
                    f"and, or, not, &, | and ~ combine conditions (x > 0, ...), not {a}", node)
        return args

    def literal(self, node: ast.Constant) -> Basic:
        """A float literal Python reads as inf (``1e400``), read exactly."""
        line = ("(" + self.lines[0]) if node.lineno == 1 else self.lines[node.lineno - 1]
        raw = line.encode("utf-8")[node.col_offset : node.end_col_offset].decode("utf-8")
        return SFloat(raw.replace("_", ""))

    def check_size(self, out: object, node: ast.AST) -> None:
        """Numbers stay within 10**±MAX_DIGITS: beyond, SymPy's exact
        evaluation (the integer part of exp(exp(exp(3))), gamma(10**6), the
        sign of 1 - exp(-10**9)) can take unbounded time or memory."""
        if not isinstance(out, Expr) or out.is_Integer and out.p.bit_length() < 64:
            return
        if out.is_Rational:
            if max(abs(out.p), out.q).bit_length() > _MAX_BITS:
                raise self.error(f"an exact number of more than {MAX_DIGITS} digits", node)
            return
        if out.is_Float:
            value = out
        elif out.is_number and not out.is_Atom:
            try:
                value = abs(out.evalf(15))
            except Exception:  # no numeric value: nothing to bound
                return
            if not value.is_Float:
                return
        else:
            return
        sign, man, exp, bc = value._mpf_
        if man and abs(exp + bc) > _MAX_BITS:
            power = (exp + bc) * 30103 // 100000  # log10(2), in integers: exp may be huge
            raise self.error(
                f"this number is about 10**{power}: numbers beyond 10**±{MAX_DIGITS} are "
                "refused (SymPy's exact evaluation of them can take unbounded time)", node)

    def check_power(self, base: object, exp: object, node: ast.AST) -> None:
        """Refuse exact powers too large to compute (``9**9**9``)."""
        if not (getattr(base, "is_Rational", False) and getattr(exp, "is_Rational", False)):
            return
        if abs(base.p) <= 1 and base.q == 1:
            return
        bits = max(abs(base.p), base.q).bit_length()
        if abs(exp) * bits > _MAX_BITS:
            raise self.error(
                f"{base}**{exp} would be an exact number of more than {MAX_DIGITS} digits; "
                "write a float (2.0**...) to compute it in floating point", node)


def parse(
    text: str,
    *,
    symbols: Mapping[str, Basic] | None = None,
    functions: Mapping[str, Callable] | None = None,
    max_length: int = MAX_LENGTH,
    max_depth: int = MAX_DEPTH,
) -> Basic:
    """The SymPy expression a formula string describes, built without
    executing any of the string (no ``eval``, ``exec`` or ``sympify``).

    Names become real symbols (``symbols`` maps a name to your own object
    instead); ``pi``, ``E``, ``I``, ``oo``, ``zoo`` and ``nan`` are SymPy's
    constants.  Calls
    may name any function of the rule table (``exp``, ``floor``, ``Abs``,
    ``Max``, ``gamma``, ...), symgrad's own (``stop_gradient``,
    ``identity``, ``straight_through``, ``where``, ``cond``, ``sigmoid``,
    ``softplus``, ``relu``, ``rint``), a name registered with
    ``register_gradient`` (an undefined function), ``sqrt``, ``cbrt``,
    ``abs``/``max``/``min``, ``Eq``/``Ne``/``And``/``Or``/``Not``, and what
    ``functions`` adds.  Operators: ``+ - * / // % **``, comparisons
    (chained ones too), ``& | ~`` and ``and or not`` on conditions.  Anything
    else (attributes, subscripts, lambdas, comprehensions, keyword
    arguments, strings, dunder names, over-long or over-deep text) raises
    :class:`ParseError` pointing at the offending part.

    >>> from symgrad import grad
    >>> e = parse("log(1 + exp(x*y)) + where(x > 0, sqrt(x), 0)")
    >>> e.free_symbols == {parse("x"), parse("y")}, parse("x").is_real
    (True, True)
    >>> grad(parse("stop_gradient(x) * x"), parse("x"))
    stop_gradient(x)
    >>> parse("__import__('os')")
    Traceback (most recent call last):
      ...
    symgrad.parsing.ParseError: strings are not allowed at column 12
      __import__('os')
                 ^
    """
    if not isinstance(text, str):
        raise TypeError(f"parse takes a string, not {type(text).__name__}")
    if not isinstance(max_depth, int) or max_depth < 1:
        raise ValueError(f"parse: max_depth={max_depth!r}; give a positive integer")
    if len(text) > max_length:
        raise ParseError(
            f"the formula is {len(text):,} characters long, over the limit of "
            f"{max_length:,} (parse(..., max_length=...) raises it)"
        )
    p = _Parser(text, symbols, functions, max_depth)
    p.scan()
    tree = p.syntax()
    p.check(tree)
    return p.build(tree)
