"""symgrad.printing: symgrad's nodes in every printer, and formulas as programs."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad
from symgrad import identity, relu, sigmoid, softplus, stop_gradient, straight_through

x, y = sp.symbols("x y", real=True)


@symgrad.custom_gradient
def log1p_exp(u):
    e = sp.exp(u)

    def grad_fn(dy):
        return dy * (1 - 1 / (1 + e))

    return sp.log(1 + e), grad_fn


# ---- symgrad's nodes print their names whole ------------------------------------------


@pytest.mark.parametrize(
    "expr, latex, pretty",
    [
        (stop_gradient(x), r"\operatorname{stop\_gradient}{\left(x \right)}",
         "stop_gradient(x)"),
        (straight_through(sp.floor(x), sp.tanh(x)),
         r"\operatorname{straight\_through}{\left(\left\lfloor{x}\right\rfloor, "
         r"\tanh{\left(x \right)} \right)}", "straight_through(⌊x⌋, tanh(x))"),
        (identity(x * y), r"\operatorname{identity}{\left(x y \right)}", "identity(x⋅y)"),
        (sigmoid(x) + softplus(y), r"\operatorname{sigmoid}{\left(x \right)} + "
         r"\operatorname{softplus}{\left(y \right)}", "sigmoid(x) + softplus(y)"),
        (relu(x), r"\operatorname{relu}{\left(x \right)}", "relu(x)"),
        (log1p_exp(x), r"\operatorname{log1p\_exp}{\left(x \right)}", "log1p_exp(x)"),
    ],
)
def test_nodes_print_their_names(expr, latex, pretty):
    assert sp.latex(expr) == latex
    assert sp.pretty(expr, use_unicode=True) == pretty
    assert "_" not in sp.latex(expr).replace(r"\_", "")  # no name read as a subscript


def test_nodes_raised_to_a_power():
    assert sp.latex(stop_gradient(x) ** 2) == r"\operatorname{stop\_gradient}^{2}{\left(x \right)}"
    assert sp.latex(log1p_exp(x * y) ** 3) == r"\operatorname{log1p\_exp}^{3}{\left(x y \right)}"
    assert sp.pretty(log1p_exp(x) ** 2, use_unicode=True).splitlines() == [
        "         2   ",
        "log1p_exp (x)",
    ]
    assert str(log1p_exp(x) ** 2) == "log1p_exp(x)**2"


def test_custom_node_prints_its_inputs_only():
    a = sp.Symbol("a", real=True)

    @symgrad.custom_gradient
    def scaled(u):
        return a * u, lambda dy, variables=None: (dy * a, [dy * u])  # captures a

    n = scaled(x)
    assert str(n) == "scaled(x)"
    assert sp.latex(n) == r"\operatorname{scaled}{\left(x \right)}"


# ---- formulas as programs -------------------------------------------------------------

from sympy import Add, Mul, cos, sin  # noqa: E402

from symgrad import grad  # noqa: E402
from symgrad.graph import postorder  # noqa: E402
from symgrad.printing import Code, Program, program  # noqa: E402

from .test_parsing import _formulas  # noqa: E402


def evaluated(e: sp.Basic, defs: dict) -> sp.Basic:
    """``e`` (a line, built as written) with names replaced by their
    definitions and every node rebuilt the way SymPy builds it."""
    order, kids = postorder([e], lambda n: n.args)
    new: dict = {}
    for n in order:
        new[n] = defs.get(n, n) if not kids[n] else n.func(*(new[k] for k in kids[n]))
    return new[e]


def reassemble(p: Program) -> list:
    """The outputs with every temporary substituted back."""
    defs: dict = {}
    for name, rhs in p.lines[: p.n_temps]:
        defs[sp.Symbol(name)] = evaluated(rhs, defs)
    return [evaluated(rhs, defs) for _, rhs in p.outputs]


def check_program(p: Program, exprs: list) -> None:
    """Every name defined before it is used, and the program means exprs."""
    defined: set = set()
    for name, rhs in p.lines:
        temps = {s.name for s in rhs.free_symbols} - {s.name for e in exprs
                                                       for s in e.free_symbols}
        assert temps <= defined, (name, temps - defined)
        defined.add(name)
    assert reassemble(p) == [evaluated(e, {}) for e in exprs]


def mlp(n: int = 8):
    xs = sp.symbols("x1 x2", real=True)
    w = sp.symbols(f"w1:{n + 1}", real=True)
    v = sp.symbols(f"v1:{n + 1}", real=True)
    c = sp.symbols(f"c1:{n + 1}", real=True)
    t = sp.Symbol("t", real=True)
    y = sum(c[i] * sp.tanh(w[i] * xs[0] + v[i] * xs[1] + 1) for i in range(n))
    return (y - t) ** 2, [*w, *v, *c]


def test_program_of_a_gradient_names_shared_parts():
    L, params = mlp(8)
    g = grad(L, params)
    p = program(g, [f"∂L/∂{q}" for q in params])
    check_program(p, list(g))
    text = p.text()
    assert len(text) * 5 < len(str(g))  # the program is far shorter than the tree
    assert "t1 = tanh(" in text and "∂L/∂c8 = " in text
    assert len(p.outputs) == len(params) and p.n_temps == len(p) - len(params)


def test_trivial_parts_stay_inline():
    e = (-x) * sp.sin(-x) + (-x) ** 3 + sp.exp(x * y) * (x * y + 1) + sp.cos(x * y + 1)
    p = program(e)
    temps = [rhs for _, rhs in p.lines[: p.n_temps]]
    assert x * y + 1 in temps and x * y not in temps and -x not in temps
    check_program(p, [e])


def test_deep_formula_prints_where_sympy_cannot():
    # 200 levels past Python's recursion limit: SymPy's recursive printer fails,
    # and so would any recursive walk (10,000 levels: 0.95 s of CPU)
    import sys

    depth = sys.getrecursionlimit() + 200
    y_ = x
    for _ in range(depth):
        y_ = sin(y_, evaluate=False)
    with pytest.raises(RecursionError):
        str(y_)
    p = program(y_)
    text = p.text()
    assert text.count("\n") + 1 == len(p) and len(p) < depth / 10  # lines of ~max_line nodes
    assert text.splitlines()[0] == "t1 = " + "sin(" * 11 + "x" + ")" * 11
    assert text.splitlines()[-1].startswith("out = sin(")


def test_deep_gradient_prints():
    b = sp.Symbol("b", real=True)
    y_ = x
    for _ in range(150):
        y_ = Add(Mul(b, sin(y_, evaluate=False), evaluate=False), cos(y_, evaluate=False),
                 evaluate=False)
    gx, gb = grad(y_, [x, b])
    p = program([gx, gb], ["∂y/∂x", "∂y/∂b"])
    order, _ = postorder([gx, gb], lambda n: n.args)
    assert len(p) <= len(order)  # linear in the DAG
    assert all(len(line) < 200 for line in p.text().splitlines())  # a 150-term sum too
    assert p.latex().count(r"\\") == len(p) - 1
    assert len(p.unicode().splitlines()) >= len(p)


def test_gradient_of_a_300_deep_chain_prints_and_means_it():
    # program's split of a long line counted a kid among its siblings with
    # tuple.count (==: two unequal 300-deep kids compared as trees, a
    # RecursionError); its lines, each short, evaluated in turn give the
    # chain rule's recurrence
    import math

    y_ = x
    for _ in range(300):
        y_ = sin(y_) / 2 + x
    p = program(grad(y_, x))
    v, dv = 0.3, 1.0
    for _ in range(300):
        v, dv = math.sin(v) / 2 + 0.3, math.cos(v) / 2 * dv + 1
    env = {x: sp.Float(0.3)}
    for name, rhs in p.lines:
        env[sp.Symbol(name)] = rhs.xreplace(env).evalf()
    got = [s for s in env if s.name == "out"]
    assert len(got) == 1 and abs(float(env[got[0]]) - dv) < 1e-12 * abs(dv)


def test_a_where_chains_conditions_are_named():
    # a where chain's gradient holds conditions nested as deep as the chain
    # (And(And(...))): only expressions were named, and SymPy's printer
    # recursed into a 60-deep condition; the lines evaluated in turn give
    # the chain rule's recurrence
    import math

    from symgrad import where

    y_ = x
    for _ in range(60):
        y_ = where(y_ > 0, sin(y_), y_ / 2) + x
    p = program(grad(y_, x))
    assert max(map(len, p.text().splitlines())) < 200
    for x0 in (-0.2,):
        v, dv = x0, 1.0
        for _ in range(60):
            v, dv = (math.sin(v), math.cos(v) * dv) if v > 0 else (v / 2, dv / 2)
            v, dv = v + x0, dv + 1
        env: dict = {x: sp.Float(x0)}
        for name, rhs in p.lines:
            val = rhs.xreplace(env).doit()
            env[sp.Symbol(name)] = val if isinstance(val, sp.logic.boolalg.BooleanAtom) \
                else val.evalf()
        assert abs(float(env[sp.Symbol("out")]) - dv) < 1e-12 * abs(dv)


def test_output_names_and_structures():
    t1 = sp.Symbol("t1", real=True)  # a user's symbol named like a temporary
    e = sp.exp(x * t1) + sp.exp(x * t1) ** 2
    p = program({"f": e, "g": sp.exp(x * t1) * y})
    assert [n for n, _ in p.outputs] == ["f", "g"]
    assert p.lines[0][0] == "t2"  # t1 is taken
    check_program(p, [e, sp.exp(x * t1) * y])
    m = program(sp.Matrix([[x, sp.sin(x)], [1, sp.sin(x) ** 2]]))
    assert [n for n, _ in m.outputs] == ["out[0, 0]", "out[0, 1]", "out[1, 0]", "out[1, 1]"]
    assert [n for n, _ in program([x, y]).outputs] == ["out[0]", "out[1]"]
    with pytest.raises(symgrad.SymgradError, match="2 outputs need 2 names"):
        program([x, y], ["a"])
    with pytest.raises(symgrad.SymgradError, match="max_line"):
        program(x, max_line=1)


def test_program_latex_and_unicode():
    w, b = sp.symbols("w1 b1", real=True)
    L = sp.tanh(w * x + b) ** 2 * stop_gradient(y) + sp.tanh(w * x + b)
    p = program(grad(L, [w, b]), names=["∂L/∂w1", "∂L/∂b1"])
    tex = p.latex()
    assert tex.startswith("\\begin{aligned}\n") and tex.endswith("\n\\end{aligned}")
    assert r"t_{1} &= \tanh{\left(b_{1} + w_{1} x \right)}" in tex
    assert r"\frac{\partial L}{\partial w_{1}} &= " in tex
    assert r"\operatorname{stop\_gradient}{\left(y \right)}" in tex
    uni = p.unicode()
    assert "t₁ = tanh(b₁ + w₁⋅x)" in uni and "\n∂L/∂w1 = " in uni


def test_notebook_display():
    p = program(grad(sp.tanh(x * y) ** 2, [x, y]))
    assert p._repr_latex_() == f"$\\displaystyle {p.latex()}$"
    assert p._repr_html_() is None  # small: the LaTeX form shows
    p.LATEX_LINES = 1  # large: a listing, MathJax is slow on thousands of lines
    assert p._repr_latex_() is None
    html = p._repr_html_()
    assert html.startswith("<pre>") and "tanh(x⋅y)" in html
    lt = program(symgrad.where(x < y, x, y))
    lt.LATEX_LINES = 0
    assert "&lt;" in lt._repr_html_() and "<" not in lt._repr_html_()[5:-6]
    assert repr(p).startswith("<Program: ")


def test_code_display():
    fn = symgrad.lambdify([x], grad(sp.log(1 + sp.exp(x)), x))
    c = Code(fn)
    assert str(c) == fn.source
    md = c._repr_markdown_()
    assert md.startswith("```python\n") and md.endswith("\n```") and "def " in md
    assert c._repr_html_().startswith('<pre><code class="language-python">')
    assert Code("a < b")._repr_html_().count("&lt;") == 1
    with pytest.raises(TypeError):
        Code(3)


@settings(max_examples=100, deadline=None)
@given(_formulas(), st.integers(2, 8))
def test_program_means_the_formula(text, max_line):
    try:
        e = symgrad.parse(text)
    except symgrad.ParseError:
        return
    exprs = [e, grad(e, x)] if isinstance(e, sp.Expr) and e.has(x) else [e]
    if not all(isinstance(v, sp.Expr) for v in exprs):
        return
    check_program(program(exprs, max_line=max_line), exprs)
