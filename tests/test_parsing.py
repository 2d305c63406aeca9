"""symgrad.parse: formulas from strings, with nothing executed."""

from __future__ import annotations

import ast
import builtins
import contextlib
import os
import time

import pytest
import sympy as sp
import sympy.parsing.sympy_parser as sympy_parser
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad
from symgrad import grad, parse
from symgrad.parsing import ParseError, function_names
from symgrad.rules import DEFAULT_TABLE

x, y, z = sp.symbols("x y z", real=True)


# ---- what it accepts ------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x**2 + sin(y)", x**2 + sp.sin(y)),
        ("1/3", sp.Rational(1, 3)),
        ("2.5*x", sp.Float("2.5") * x),
        ("x - y - z", x - y - z),
        ("x / y / z", x / y / z),
        ("x**y**z", x ** (y**z)),
        ("-x**2", -(x**2)),
        ("x // 2", sp.floor(x / 2)),
        ("x % 3", sp.Mod(x, 3)),
        ("0 < x < 1", sp.And(sp.Lt(0, x), x < 1)),
        ("(x > 0) & (y <= 1) | ~(z >= 2)", ((x > 0) & (y <= 1)) | (z < 2)),
        ("x > 0 and not y > 1", sp.And(x > 0, y <= 1)),
        ("x == 1", sp.Eq(x, 1)),
        ("x != 1", sp.Ne(x, 1)),
        ("pi + E + oo", sp.pi + sp.E + sp.oo),
        ("where(x > 0, sqrt(x), 0)", symgrad.where(x > 0, sp.sqrt(x), 0)),
        ("cond(x < 1, x**2, 2*x)", symgrad.cond(x < 1, x**2, 2 * x)),
        ("Piecewise((x, x > 0), (0, True))", sp.Piecewise((x, x > 0), (0, True))),
        ("stop_gradient(x)*straight_through(floor(x), tanh(x))",
         symgrad.stop_gradient(x) * symgrad.straight_through(sp.floor(x), sp.tanh(x))),
        ("identity(x) + sigmoid(x) + softplus(x) + relu(x) + rint(x)",
         symgrad.identity(x) + symgrad.sigmoid(x) + symgrad.softplus(x) + symgrad.relu(x)
         + symgrad.rint(x)),
        ("abs(x) + max(x, y) + min(x, 1) + Abs(y) + Max(x, y, z)",
         sp.Abs(x) + sp.Max(x, y) + sp.Min(x, 1) + sp.Abs(y) + sp.Max(x, y, z)),
        ("log(x, 2) + atan2(y, x) + polygamma(1, x) + cbrt(x)",
         sp.log(x, 2) + sp.atan2(y, x) + sp.polygamma(1, x) + sp.cbrt(x)),
        ("  x +\n  y", x + y),  # leading space and several lines
        ("1e400", sp.Float("1e400")),  # Python reads inf; the text is exact
        ("gamma(5)", sp.Integer(24)),
        ("maximum(x, 3) - minimum(3, y)", symgrad.maximum(x, 3) - symgrad.minimum(3, y)),
    ],
)
def test_accepts(text, expected):
    got = parse(text)
    assert got == expected


def test_maximum_and_minimum_keep_the_order_written():
    """tf.maximum's order decides ties="first"; parse and str keep it."""
    for e in (symgrad.maximum(x, 3), symgrad.maximum(3, x), symgrad.minimum(y, x)):
        assert parse(str(e)).args == e.args


def test_symbols_are_real_and_shared():
    e = parse("x*y + x")
    assert e.free_symbols == {x, y}
    assert all(s.is_real for s in e.free_symbols)
    assert grad(parse("x*sin(y)"), [x, y]) == [sp.sin(y), x * sp.cos(y)]


def test_every_table_function_parses():
    """Generated from the rule table: each node class parses by its name."""
    names = function_names()
    for name in DEFAULT_TABLE.names():
        cls = DEFAULT_TABLE.registered(name).cls
        if cls is None:
            continue
        assert name in names
        nargs = getattr(cls, "nargs", None)
        n = min(nargs) if isinstance(nargs, (set, frozenset, sp.FiniteSet)) and nargs else 2
        if name in ("Piecewise", "Add", "Mul", "Max", "Min"):
            continue  # n-ary or pairs: covered above
        n = int(n)
        args = [x, y, z][:n] if name not in ("polygamma",) else [sp.Integer(1), x]
        text = f"{name}({', '.join(map(str, args))})"
        assert parse(text) == cls(*args), text


def test_str_round_trip():
    exprs = [
        sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) / (x**2 + 1),
        symgrad.where(x > 0, sp.sqrt(x), -x) * symgrad.stop_gradient(y),
        sp.Piecewise((x, (x > 0) & (y < 1)), (y, True)),
        sp.Heaviside(x, 0) + sp.Mod(x, y) - sp.floor(x / 3) + sp.Rational(-7, 2),
        grad(sp.tanh(x * y + 1) ** 2, x),
    ]
    for e in exprs:
        assert parse(str(e)) == e, str(e)


@pytest.mark.parametrize("text, message", [
    ("stop_gradient()", "stop_gradient is called as stop_gradient(x), not with no arguments"),
    ("identity(x, y, z)", "identity is called as identity(x), not with 3 arguments"),
    ("where(x > 0)", "where is called as where(cond, a, b), not with 1 argument"),
    ("straight_through()", "straight_through is called as straight_through(forward, backward)"),
])
def test_a_call_with_the_wrong_number_of_arguments_says_how_to_call(text, message):
    with pytest.raises(ParseError) as info:
        parse(text)
    assert message in info.value.brief and "__new__" not in str(info.value)


def test_sympys_printed_constants_read_back_as_constants():
    """str of a formula may hold nan, zoo (1/0), oo: they are not new symbols."""
    for e in [sp.nan, sp.zoo * x, -sp.oo + x, sp.zoo + sp.I * y, sp.E ** x + sp.pi]:
        assert parse(str(e)) == e, str(e)
    assert parse("nan").free_symbols == set() and parse("zoo*x").free_symbols == {x}


def test_symbols_and_functions_mappings():
    t = sp.Symbol("t", positive=True)
    twice = lambda a: 2 * a  # noqa: E731
    assert parse("t + double(x)", symbols={"t": t}, functions={"double": twice}) == t + 2 * x
    with pytest.raises(TypeError):
        parse("x", functions={"not a name": twice})


def test_registered_rule_names_parse_as_functions():
    @symgrad.register_gradient("erf3", replace=True)
    def _erf3(node, g):
        return 3 * g

    try:
        e = parse("erf3(x)")
        assert e == sp.Function("erf3")(x)
        assert grad(e, x) == 3
    finally:
        symgrad.unregister_gradient("erf3")
    with pytest.raises(ParseError, match="unknown function 'erf3'"):
        parse("erf3(x)")


# ---- what it refuses, and where it points --------------------------------------------


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("x + ().__class__", "attribute access", 5),
        ("().__class__.__bases__", "attribute access", 1),
        ("__import__('os').system('echo owned')", "strings are not allowed", 12),
        ("__import__", "dunder", 1),
        ("x.__class__", "attribute", 1),
        ("x[0]", "subscripts", 1),
        ("lambda: 1", "lambda", 1),
        ("[t for t in x]", "comprehensions", 1),
        ("(t for t in x)", "comprehensions", 1),
        ("sin(x=1)", "keyword arguments", 7),
        ("sin(*x)", "starred", 5),
        ("eval(x)", "unknown function 'eval'", 1),
        ("getattr(x, y)", "unknown function", 1),
        ("x if y else z", r"where\(c, a, b\)", 1),
        ("x ^ 2", "write \\*\\* for a power", 1),
        ("x @ y", "not allowed", 1),
        ("x is y", "Is is not allowed", 1),
        ("(x := 1)", "assignment", 2),
        ("{1: x}", "dicts", 1),
        ("(x, y)", "tuples are only allowed", 1),
        ("2j", "imaginary", 1),
        ("None", "constants are not allowed", 1),
        ("...", "constants are not allowed", 1),
        ("f'{x}'", "strings", 2),
        ("x # comment", "comments", 3),
        ("sin", "is a function: call it", 1),
        ("sin(x)(y)", "only calls of function names", 1),
        ("floor(x, y)", "floor takes exactly 1 argument", 1),
        ("where(x, 1, 2)", "condition must be", 1),
        ("x and y", "combine conditions", 1),
        ("x)", "unmatched", 2),
        ("sin(x", "never closed", 4),
        ("x +", "invalid syntax", 4),
        ("x = 1", "invalid syntax", 1),
        ("x²", "invalid character", 2),
        ("（x）", "invalid character", 1),
        ("х + x", "CYRILLIC SMALL LETTER HA", 1),
        ("Α + x", "GREEK CAPITAL LETTER ALPHA", 1),
        ("x + é", "LATIN SMALL LETTER E WITH ACUTE", 5),
        ("9**9**9", "more than 4000 digits", 1),
        ("2**100000", "more than 4000 digits", 1),
        ("1" * 5000, "4300 digits", 1),
    ],
)
def test_refuses(text, message, column):
    with pytest.raises(ParseError, match=message) as info:
        parse(text)
    assert info.value.column == column
    assert info.value.line == 1


def test_caret_points_at_the_offending_part():
    with pytest.raises(ParseError) as info:
        parse("sin(x) + cos(y) + ().__class__")
    assert str(info.value).splitlines() == [
        "attribute access is not allowed: `.__class__` at column 19",
        "  sin(x) + cos(y) + ().__class__",
        "                    ^^^^^^^^^^^^",
    ]
    with pytest.raises(ParseError) as info:
        parse("α + х")  # columns count characters, not UTF-8 bytes
    assert str(info.value).splitlines()[2] == "      ^"
    with pytest.raises(ParseError) as info:
        parse("x +\n y.z")
    assert (info.value.line, info.value.column) == (2, 2)
    assert "line 2, column 2" in info.value.brief
    long = "x + " * 40 + "y.z" + " + x" * 40
    lines = str(pytest.raises(ParseError, parse, long).value).splitlines()
    assert len(lines[1]) < 90 and lines[1][lines[2].index("^")] == "y"


def test_unicode_look_alikes():
    # NFKC, as Python reads identifiers: full-width and mathematical letters are ASCII ones
    assert parse("ｘ + 𝑥") == 2 * x
    assert parse("θ*α") == sp.Symbol("θ", real=True) * sp.Symbol("α", real=True)
    assert parse("µ") == sp.Symbol("μ", real=True)  # the micro sign is Greek mu
    with pytest.raises(ParseError, match="GREEK SMALL LETTER OMICRON"):
        parse("ο")


def test_limits_are_refused_fast():
    t0 = time.perf_counter()
    cases = [
        "x" * 10_000_000,  # 10 MB
        "(" * 100_000 + "x" + ")" * 100_000,
        "(" * 150 + "x" + ")" * 150,
        "sin(" * 150 + "x" + ")" * 150,
        "-" * 150 + "x",
        "-" * 50_000 + "x",
        "x**" * 150 + "x",
        "x**" * 20_000 + "x",
        "x+" * 20_000 + "x",
        "(" * 20_000,
    ]
    for text in cases:
        with pytest.raises(ParseError):
            parse(text)
    assert time.perf_counter() - t0 < 5  # a guard against a hang, not a benchmark
    with pytest.raises(ParseError, match="over the limit"):
        parse("x + y", max_length=3)
    assert parse("-" * 150 + "x", max_depth=200) == x
    assert parse("+".join(["x"] * 500)) == 500 * x  # a long chain counts once


def test_numbers_stay_within_bounds():
    """Huge or tiny numbers are refused before SymPy's exact evaluation of
    them (an integer part, a factorial) can hang: found by the fuzzer."""
    assert parse("2**100 + gamma(1000)/gamma(999)") == 2**100 + 999
    assert parse("floor(exp(100))") == sp.floor(sp.exp(100))
    assert parse("floor(10001/3)") == sp.floor(sp.Rational(10001, 3), evaluate=False)
    t0 = time.perf_counter()
    for text in ["floor(exp(exp(exp(3))))", "gamma(10**6)", "rint(1e300**1e300)",
                 "floor(1 - exp(-10**9))", "Mod(exp(10**6), 3)", "2.0**100000",
                 "x + 1e5000", "I*exp(10**5)"]:
        with pytest.raises(ParseError, match=r"about 10\*\*"):
            parse(text)
    assert time.perf_counter() - t0 < 5  # a guard against a hang, not a benchmark


def test_not_a_string():
    with pytest.raises(TypeError, match="parse takes a string"):
        parse(x)


# ---- nothing executed, nothing crashes -------------------------------------------------


class Executed(BaseException):
    """Raised if parsing reaches something that runs Python from text."""


@contextlib.contextmanager
def no_execution():
    """eval, exec, compile and SymPy's string parser raise ``Executed``."""

    def refuse(*args, **kwargs):
        raise Executed(args[:1])

    real_compile = builtins.compile

    def to_ast_only(source, filename, mode, flags=0, *args, **kwargs):
        if not flags & ast.PyCF_ONLY_AST:  # reading into an AST runs nothing
            raise Executed(source)
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(builtins, "eval", refuse)
        mp.setattr(builtins, "exec", refuse)
        mp.setattr(builtins, "compile", to_ast_only)
        mp.setattr(sympy_parser, "parse_expr", refuse)
        mp.setattr(sympy_parser, "eval_expr", refuse)
        yield


# SYMGRAD_FUZZ=long (tests/conftest.py): ten times the fuzz examples
SCALE = 10 if os.environ.get("SYMGRAD_FUZZ") == "long" else 1

HOSTILE = [
    "__import__('os').system('touch /tmp/symgrad-owned')",
    "().__class__.__bases__[0].__subclasses__()",
    "x.__globals__",
    "exec('1')",
    "eval('1')",
    "open('/etc/passwd')",
    "getattr(x, '__class__')",
    "Symbol('x')",
    "sympify('x')",
    "S('x')",
    "lambda: 1",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "x if __import__('os') else y",
    "Function('f')(x)",
    "sin(x).func",
    "breakpoint()",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_inputs(text):
    with no_execution(), pytest.raises(ParseError):
        parse(text)


def _check(text: str) -> None:
    """Only ParseError escapes, and nothing is executed."""
    with no_execution():
        try:
            out = parse(text)
        except ParseError:
            return
    assert isinstance(out, sp.Basic)


TOKENS = [
    "x", "y", "1", "2.5", "1e308", "0", "pi", "I", "+", "-", "*", "/", "**", "//", "%", "(",
    ")", ",", "<", ">=", "==", "!=", "&", "|", "~", "not", " and ", " or ", "sin", "exp",
    "log", "floor", "where", "stop_gradient", "Piecewise", "True", ".", "[", "]", "__class__",
    "__import__", "'", "lambda", ":", "=", " if ", " else ", "^", "@", "ｘ", "х", "θ", "²",
    "\n", "\r", "\t", "\x0c", " ", "\x00", "#", "{", "}", "9**9**9", "gamma(", "Max(",
]

LEAVES = st.sampled_from(["x", "y", "z", "0", "1", "2", "0.5", "pi", "E", "1e300", "-3"])
FUNCS1 = ["sin", "exp", "log", "sqrt", "floor", "Abs", "tanh", "stop_gradient", "sigmoid",
          "relu", "gamma", "atan", "rint", "softplus", "erf", "acosh", "LambertW"]


def _formulas():
    def extend(children):
        return st.one_of(
            st.builds(lambda a, o, b: f"({a}){o}({b})", children,
                      st.sampled_from(["+", "-", "*", "/", "**", "//", "%"]), children),
            st.builds(lambda f, a: f"{f}({a})", st.sampled_from(FUNCS1), children),
            st.builds(lambda c, a, b: f"where({c} > 0, {a}, {b})", children, children, children),
            st.builds(lambda a, b: f"Max({a}, {b})", children, children),
            st.builds(lambda a: f"-({a})", children),
        )

    return st.recursive(LEAVES, extend, max_leaves=12)


# every code point, lone surrogates included: text that no UTF-8 file holds
# is still a str a user can pass (and hypothesis draws it without building
# its table of Unicode categories, 1.4 s of CPU in a fresh checkout)
@settings(max_examples=100 * SCALE, deadline=None)
@given(st.text(st.characters(), max_size=40))
def test_fuzz_any_text(text):
    _check(text)


@settings(max_examples=100 * SCALE, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=25))
def test_fuzz_token_soup(tokens):
    _check("".join(tokens))


@settings(max_examples=100 * SCALE, deadline=None)
@given(_formulas())
def test_fuzz_formulas(text):
    _check(text)  # well formed; SymPy may still refuse a node (log(0) > 0)


def test_tagged_nodes_round_trip():
    """A node tagged by override prints as floor[Identity](x); parse reads
    it back with its tag (or refuses, never drops it)."""
    e = symgrad.override(sp.floor(x), {"floor": "Identity"}) + sp.floor(y)
    back = parse(str(e))
    assert back == e and grad(back, [x, y]) == [1, 0]
    inner = parse("floor[Identity](floor(y) + x)")
    assert grad(inner, [x, y]) == [1, 0]  # the tag is on the outer node only
    assert parse("floor[Identity](3)") == 3
    with pytest.raises(ParseError, match="simplifies this Abs node away, and its tag"):
        parse("Abs[Zero](Abs(x))")  # Abs(Abs(x)) is Abs(x): the tag would be lost
    with pytest.raises(ParseError, match="unknown gradient rule 'Identiy'"):
        parse("floor[Identiy](x)")
    with pytest.raises(ParseError, match="subscripts"):
        parse("floor[Identity]")


def test_what_stabilize_prints_parses_back():
    # `symgrad stabilize` prints widen(...) and erfcx(...): both parse back
    from symgrad import widen
    from symgrad.rewrites.forms import erfcx

    x, eps = sp.symbols("x eps", real=True)
    e = widen(sp.sin(eps) * sp.cos(x) - 2 * sp.sin(eps / 2) ** 2 * sp.sin(x))
    assert parse(str(e)) == e
    assert parse("exp(-x**2)*erfcx(x)") == sp.exp(-x**2) * erfcx(x)
