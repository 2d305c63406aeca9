"""Reading SymPy's ``srepr`` text back into the formula, without evaluating
it: nothing of the text is executed (no ``eval``, no ``sympify``).

A generated module that calls ``certified(u)``'s rare path in another
process (pickled or saved code) has only ``u``'s ``srepr`` text.  The text is
read by a small tokenizer and an explicit stack (no recursion: a deep
formula is a deep text), against an allow-list: calls of SymPy's and
symgrad's node classes (:mod:`symgrad.functions`, SymPy's ``codegen``
functions, the relationals and a Piecewise's pairs) over nodes, which are
built as written (:func:`symgrad.build.of_class`: no constructor folds or
computes anything: a ``Pow(Integer(9), Pow(Integer(9), Integer(9)))`` stays
a power), ``Symbol``/``Dummy`` over a quoted name and boolean assumptions,
``Integer``, ``Rational`` and ``Float`` over literal numbers, and SymPy's
named constants (``pi``, ``oo``, ``-oo``).  Anything else (another name, an
attribute, a subscript, an operator, a call of a call) is a SymgradError
naming it.  Identical subtrees are built once (the text of a DAG repeats
them).

``srepr`` prints a formula as a tree: exponential in a DAG's depth (``e =
log(1 + e*e) + e`` nested 30 deep prints about 4**30 nodes).
:func:`dag_srepr` prints it over its DAG instead: each node with more than
one parent is named once (``_3 = log(...)``), the names are used where it
recurs, and the statements end with the formula, separated by ``;``: the
text is linear in the number of edges.  The reader reads both (a text
with names builds every node as written, in the order printed).
"""

from __future__ import annotations

import ast
import re

import sympy
from sympy import Add, Basic, Dummy, Float, Heaviside, Integer, Mul, Rational, S, Symbol, srepr
from sympy.codegen import cfunctions, numpy_nodes
from sympy.core import relational
from sympy.core.basic import _args_sortkey
from sympy.functions.elementary.piecewise import ExprCondPair

from . import functions
from .build import of_class
from .errors import SymgradError
from .graph import postorder

__all__ = ["read_srepr", "dag_srepr"]

_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<int>[0-9]+)"
                    r"|(?P<str>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")|(?P<p>[(),=;-]))")
_FLOAT_TEXT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?inf|nan")
_CONSTANTS = ("pi", "E", "oo", "zoo", "nan", "I", "EulerGamma", "Catalan", "GoldenRatio",
              "TribonacciConstant", "true", "false")
_ATOMS = (Symbol, Dummy, Integer, Rational, Float)
_NAME = re.compile(r"_[0-9]+")  # a shared node's name in a DAG text


def _classes() -> dict[str, type]:
    """The node classes a text may call (by their names)."""
    out = {}
    for space in (vars(sympy), vars(relational), vars(cfunctions), vars(numpy_nodes),
                  vars(functions)):
        for name, v in space.items():
            if isinstance(v, type) and issubclass(v, Basic) and not issubclass(v, _ATOMS):
                out.setdefault(name, v)
    out["ExprCondPair"] = ExprCondPair
    for name in ("Function", "Lambda", "Subs", "Derivative", "Integral", "Sum", "Product",
                 "Symbol", "Dummy", "Wild", "WildFunction"):
        out.pop(name, None)  # (no formula of code generation holds them)
    return out


_CLASSES: dict[str, type] | None = None


def _tokens(text: str) -> list[tuple[str, str]]:
    out, at = [], 0
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None or m.end() == at:
            if not text[at:].strip():
                break
            raise SymgradError(f"srepr text: unexpected {text[at:at + 20]!r} at {at}")
        at = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


def _atom(name: str, args: list, kw: dict) -> Basic:
    if name in ("Symbol", "Dummy"):
        if len(args) != 1 or not isinstance(args[0], str) or \
                any(not isinstance(v, bool) for k, v in kw.items() if k != "dummy_index"):
            raise SymgradError(f"srepr text: {name} takes a quoted name and boolean assumptions")
        if name == "Symbol":
            if "dummy_index" in kw:
                raise SymgradError("srepr text: Symbol takes no dummy_index")
            return Symbol(args[0], **kw)
        if not isinstance(kw.get("dummy_index", 0), int) or isinstance(kw.get("dummy_index"), bool):
            raise SymgradError("srepr text: Dummy's dummy_index is an integer")
        return Dummy(args[0], **kw)
    if name in ("Integer", "Rational"):
        if kw or not args or len(args) > 2 or any(type(a) is not int for a in args):
            raise SymgradError(f"srepr text: {name} takes literal integers")
        return Integer(args[0]) if len(args) == 1 else Rational(*args)
    # Float('text', precision=53)
    if len(args) != 1 or not isinstance(args[0], str) or not _FLOAT_TEXT.fullmatch(args[0]) \
            or set(kw) - {"precision"} or type(kw.get("precision", 53)) is not int \
            or not 1 <= kw.get("precision", 53) <= 4096:
        raise SymgradError("srepr text: Float takes a literal number and its precision")
    return Float(args[0], precision=kw.get("precision", 53))


def _node(cls: type, args: list, as_written: bool = False) -> Basic:
    """A node of ``cls`` over ``args``, as written: a sum's or product's
    terms back in SymPy's order of arguments (``srepr`` prints them in the
    printing order; a number first, as SymPy keeps it; a product's numbers
    multiplied into its coefficient, as SymPy printed them from), Heaviside's value at
    0 (which ``srepr`` leaves out) its default 1/2; ``as_written``: the
    arguments as printed (:func:`dag_srepr` prints a node's own)."""
    if cls in (Add, Mul) and not as_written and all(a.is_commutative for a in args):
        if cls is Mul and sum(a.is_Number for a in args) > 1:
            # srepr prints a product's coefficient -1/7 as the factors -1, 1/7
            c = Mul(*[a for a in args if a.is_Number])
            args = ([c] if c != 1 else []) + [a for a in args if not a.is_Number]
            if len(args) == 1:
                return args[0]
        args = sorted(args, key=_args_sortkey)
        args.sort(key=lambda a: not a.is_Number)  # (stable)
    elif cls is Heaviside and len(args) == 1:
        args = [args[0], S.Half]
    return of_class(cls, args)


def read_srepr(text: str) -> Basic:
    """The formula ``sympy.srepr`` printed as ``text``, read without
    evaluating anything (see the module's docstring); a SymgradError for
    anything but SymPy's and symgrad's nodes and literals.

    >>> from sympy import srepr, symbols, log, Float
    >>> x, y = symbols("x y", positive=True)
    >>> e = log(y) - x + Float(0.1)
    >>> read_srepr(srepr(e)) == e
    True
    >>> read_srepr("eval('2 + 2')")
    Traceback (most recent call last):
    ...
    symgrad.errors.SymgradError: srepr text: 'eval' is not a node SymPy or symgrad knows
    """
    global _CLASSES
    if _CLASSES is None:
        _CLASSES = _classes()
    toks = _tokens(text)
    built: dict[tuple, Basic] = {}  # (class name, args) -> the node (a DAG's repeats)
    # frames: [class name, positional args, keywords, pending keyword]
    stack: list[list] = [["", [], {}, None]]
    i, n = 0, len(toks)
    after = False  # whether a value was just read (then only ',' or ')' may follow)

    def put(value: object) -> None:
        nonlocal after
        if after:
            raise SymgradError("srepr text: two values without a ',' between them")
        after = True
        top = stack[-1]
        if top[3] is not None:
            top[2][top[3]] = value
            top[3] = None
        elif top[2]:
            raise SymgradError("srepr text: a positional argument after a keyword")
        else:
            top[1].append(value)

    names: dict[str, Basic] = {}  # a DAG text's shared nodes
    naming = None  # the name a top-level statement defines
    as_written = ";" in text

    while i < n:
        kind, tok = toks[i]
        nxt = toks[i + 1][1] if i + 1 < n else None
        if kind == "name" and _NAME.fullmatch(tok) and nxt != "(":
            if nxt == "=" and len(stack) == 1:  # a statement: _k = <node>;
                if after or naming is not None or stack[0][1] or tok in names:
                    raise SymgradError(f"srepr text: name {tok!r} out of place")
                naming = tok
                i += 2
                continue
            if tok not in names:
                raise SymgradError(f"srepr text: {tok!r} is not named before")
            put(names[tok])
            i += 1
            continue
        if tok == ";" and kind == "p":
            if len(stack) != 1 or naming is None or not after or \
                    not isinstance(stack[0][1][0], Basic):
                raise SymgradError("srepr text: ';' ends a statement '_k = node' only")
            names[naming] = stack[0][1].pop()
            naming, after = None, False
            i += 1
            continue
        if kind == "name" and nxt == "(":
            if tok not in _CLASSES and tok not in ("Symbol", "Dummy", "Integer", "Rational",
                                                   "Float"):
                raise SymgradError(f"srepr text: {tok!r} is not a node SymPy or symgrad knows")
            if after:
                raise SymgradError("srepr text: two values without a ',' between them")
            stack.append([tok, [], {}, None])
            i += 2
            continue
        if kind == "name" and nxt == "=" and len(stack) > 1:
            if after or stack[-1][3] is not None or tok in stack[-1][2]:
                raise SymgradError(f"srepr text: keyword {tok!r} out of place")
            stack[-1][3] = tok
            i += 2
            continue
        if kind == "name":
            if tok in ("True", "False") and stack[-1][3] is not None:
                put(tok == "True")
            elif tok in _CONSTANTS:
                put(getattr(S, {"oo": "Infinity", "zoo": "ComplexInfinity", "nan": "NaN",
                                "I": "ImaginaryUnit", "E": "Exp1", "pi": "Pi",
                                "true": "true", "false": "false"}.get(tok, tok)))
            else:
                raise SymgradError(f"srepr text: {tok!r} is not a node SymPy or symgrad knows")
        elif kind == "int":
            put(int(tok))
        elif kind == "str":
            put(ast.literal_eval(tok))  # (a string literal's escapes; nothing else)
        elif tok == "-":
            if nxt == "oo":
                put(S.NegativeInfinity)
            elif i + 1 < n and toks[i + 1][0] == "int":
                put(-int(nxt))
            else:
                raise SymgradError("srepr text: '-' before anything but an integer or oo")
            i += 1
        elif tok == ")":
            if len(stack) < 2 or stack[-1][3] is not None or not (after or not (
                    stack[-1][1] or stack[-1][2])):
                raise SymgradError("srepr text: unbalanced ')'")
            name, args, kw, _ = stack.pop()
            after = False
            if name in ("Symbol", "Dummy", "Integer", "Rational", "Float"):
                node = _atom(name, args, kw)
            else:
                if kw or not all(isinstance(a, Basic) for a in args):
                    raise SymgradError(f"srepr text: {name} takes nodes only")
                key = (name, tuple(args))
                node = built.get(key)
                if node is None:
                    node = built[key] = _node(_CLASSES[name], args, as_written)
            put(node)
        elif tok == "," and after and len(stack) > 1:
            after = False
        else:
            raise SymgradError(f"srepr text: unexpected {tok!r}")
        i += 1
    if len(stack) != 1 or naming is not None or len(stack[0][1]) != 1 or \
            not isinstance(stack[0][1][0], Basic):
        raise SymgradError("srepr text: not one formula")
    return stack[0][1][0]


def dag_srepr(e: Basic) -> str:
    """``e``'s text for :func:`read_srepr`, printed over its DAG: each
    node with more than one parent named once (``_k = ...;``, children
    before parents), the formula last; a node's arguments in its own order;
    a leaf as ``srepr`` prints it.  Linear in the DAG's edges, without
    recursion (``srepr`` prints the tree).

    >>> from sympy import symbols, log, srepr
    >>> x = symbols("x")
    >>> e = x
    >>> for _ in range(20):
    ...     e = log(1 + e * e) + e  # each level uses the one below twice
    >>> text = dag_srepr(e)
    >>> len(text) < 10_000, dag_srepr(read_srepr(text)) == text
    (True, True)
    >>> dag_srepr(log(x) + log(x) ** 2)
    "_0 = log(Symbol('x')); Add(Pow(_0, Integer(2)), _0)"
    """
    order, kids = postorder([e], lambda n: n.args)
    parents: dict = {}
    for node in order:
        for k in kids[node]:
            parents[k] = parents.get(k, 0) + 1
    names: dict = {}
    leaves: dict = {}
    out: list[str] = []

    def emit(root: Basic, parts: list) -> None:
        # the node's call, its unnamed arguments inline (each printed once:
        # an unnamed node has one parent), without recursion
        stack = [(root, iter(kids[root]), True)]
        parts.append(type(root).__name__ + "(")
        while stack:
            node, it, first = stack[-1]
            for k in it:
                if not first:
                    parts.append(", ")
                stack[-1] = (node, it, False)
                first = False
                if k in names:
                    parts.append(names[k])
                elif not kids[k]:
                    if k not in leaves:
                        leaves[k] = srepr(k)
                    parts.append(leaves[k])
                else:
                    parts.append(type(k).__name__ + "(")
                    stack.append((k, iter(kids[k]), True))
                    break
            else:
                stack.pop()
                parts.append(")")

    if not kids[e]:
        return srepr(e)
    for node in order:
        if node is not e and kids[node] and parents[node] > 1:
            name = f"_{len(names)}"
            parts = [name, " = "]
            emit(node, parts)
            out.append("".join(parts))
            names[node] = name
    parts = []
    emit(e, parts)
    out.append("".join(parts))
    return "; ".join(out)
