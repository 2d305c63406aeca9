"""Printing symgrad's formulas: function names as written, in every printer
(:mod:`symgrad.notation`, re-exported here), and formulas as programs.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from sympy import (
    Basic,
    Expr,
    Identity,
    MatrixSymbol,
    OneMatrix,
    Symbol,
    ZeroMatrix,
    latex,
)
from sympy.core.operations import AssocOp
from sympy.core.sorting import default_sort_key
from sympy.logic.boolalg import Boolean
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.pretty_symbology import pretty_use_unicode
from sympy.printing.pretty.stringpict import prettyForm

from .build import bare, unevaluated
from .errors import SymgradError
from .graph import postorder, same
from .matrices.notation import MatrixLatexPrinter, MatrixPrettyPrinter, MatrixStrPrinter
from .notation import latex_call, latex_name, pretty_call
from .shapes import flatten_exprs

__all__ = ["latex_name", "latex_call", "pretty_call", "Program", "program", "Code"]


# ---- formulas as programs ----------------------------------------------------------

MAX_LINE = 12  # nodes on one line before parts of it get names of their own


def _trivial(node: Basic) -> bool:
    """Not worth a name even when shared: ``-x``, ``x*y``, ``x**2``, ``x + 1``."""
    return (node.is_Add or node.is_Mul or node.is_Pow) and len(node.args) == 2 and all(
        a.is_Atom for a in node.args)


_MATRIX_LEAVES = (MatrixSymbol, OneMatrix, Identity, ZeroMatrix)


def _nameable(node: Basic) -> bool:
    # (a condition too: a where chain's gradient holds conditions nested as
    # deep as the chain, which SymPy's printers recurse into)
    return bool(node.args) and isinstance(node, (Expr, Boolean)) \
        and not isinstance(node, _MATRIX_LEAVES)


def _children(node: Basic) -> tuple:
    """A node's parts as a program shows them: a matrix symbol, a constant
    matrix and an elementwise function's formula are leaves."""
    if isinstance(node, _MATRIX_LEAVES):
        return ()
    if isinstance(node, ElementwiseApplyFunction):
        return (node.args[1],)
    return node.args


def _temp(name: str, rhs: Basic) -> Basic:
    """The name a line defines: a matrix symbol of its shape for a matrix."""
    if getattr(rhs, "is_Matrix", False):
        return MatrixSymbol(name, *rhs.shape)
    return Symbol(name)


# ---- matrix formulas as the Matrix Cookbook writes them ---------------------------

# the printer classes live beside their methods (matrices/notation.py)


def _rebuild(node: Basic, args: tuple) -> Basic:
    """``node`` over new arguments, as written: no evaluation, no checks
    (its arguments are names standing for parts of a valid formula)."""
    if isinstance(node, AssocOp):  # in SymPy's order, numbers first
        if node.is_commutative:
            args = sorted(args, key=default_sort_key)
        return unevaluated(node, args, node.is_commutative)
    if isinstance(node, ElementwiseApplyFunction):  # its formula is not a part
        return bare(type(node), (node.args[0], args[0]))
    return unevaluated(node, args)


class Program:
    """A formula as its shared subexpressions, named and in order, then its
    outputs: as long as the program that computes it, not as its tree.

    ``lines`` holds ``(name, expression)`` pairs: the temporaries ``t1``,
    ``t2``, ... (each used in a later line), then one line per output.
    ``str(p)`` (also ``p.text()``) is plain text, ``p.unicode()`` SymPy's
    pretty form line by line, ``p.latex()`` an ``aligned`` block; in a
    notebook it renders as LaTeX (as a preformatted listing past
    ``Program.LATEX_LINES`` lines, which MathJax renders slowly).
    """

    LATEX_LINES = 200

    def __init__(self, lines: list[tuple[str, Basic]], n_temps: int) -> None:
        self.lines = lines
        self.n_temps = n_temps

    @property
    def outputs(self) -> list[tuple[str, Basic]]:
        return self.lines[self.n_temps :]

    def __len__(self) -> int:
        return len(self.lines)

    def text(self) -> str:
        printer = MatrixStrPrinter({"order": "none"})
        return "\n".join(f"{name} = {printer.doprint(rhs)}" for name, rhs in self.lines)

    __str__ = text

    def __repr__(self) -> str:
        return f"<Program: {self.n_temps} temporaries, {len(self.outputs)} outputs>"

    def unicode(self) -> str:
        return self.pretty(use_unicode=True)

    def pretty(self, use_unicode: bool = True) -> str:
        printer = MatrixPrettyPrinter({"use_unicode": use_unicode, "wrap_line": False})
        return "\n".join(pretty_assignment(n, rhs, printer) for n, rhs in self.lines)

    def latex(self) -> str:
        printer = MatrixLatexPrinter()
        rows = [f"{latex_output_name(name)} &= {printer.doprint(rhs)}" for name, rhs in self.lines]
        return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"

    # -- notebooks --------------------------------------------------------------
    def _repr_latex_(self) -> str | None:
        return f"$\\displaystyle {self.latex()}$" if len(self) <= self.LATEX_LINES else None

    def _repr_html_(self) -> str | None:
        if len(self) <= self.LATEX_LINES:
            return None  # the LaTeX form is shown
        return f"<pre>{html.escape(self.unicode())}</pre>"


def pretty_assignment(name: str, rhs: Basic, printer: PrettyPrinter | None = None) -> str:
    """``name = rhs`` in SymPy's pretty form, the name on the formula's baseline.

    >>> from sympy import Symbol
    >>> print(pretty_assignment("∂f/∂x", 1 / (1 + Symbol("x"))))
            1
    ∂f/∂x = ─────
            x + 1
    """
    printer = printer or PrettyPrinter({"use_unicode": True, "wrap_line": False})
    # SymPy's pretty symbols read a global flag, as sympy.pretty sets it
    flag = pretty_use_unicode(printer._settings["use_unicode"])
    try:
        lhs = prettyForm(*printer._print(Symbol(name)).right(" = "))
        block = prettyForm(*lhs.right(printer._print(rhs))).render(wrap_line=False)
    finally:
        pretty_use_unicode(flag)
    return "\n".join(line.rstrip() for line in block.split("\n"))


def latex_output_name(name: str) -> str:
    r"""``∂L/∂w1`` as \frac{\partial L}{\partial w_{1}}; other names as symbols."""
    if name.startswith("∂") and name.count("/∂") == 1:
        top, bottom = name[1:].split("/∂")
        if top and bottom:
            return (r"\frac{\partial " + latex(Symbol(top)) + r"}{\partial "
                    + latex(Symbol(bottom)) + "}")
    return latex(Symbol(name))


def _output_names(exprs: object, names: object) -> tuple[list[Basic], list[str]]:
    if isinstance(exprs, Mapping):
        if names is not None:
            raise SymgradError("program: exprs is a dict, whose keys are the names; "
                               "do not pass names too")
        flat, names = [], []
        for k, v in exprs.items():  # in the user's order; a key names its value's entries
            sub, st = flatten_exprs(v, f"exprs[{k!r}]")
            flat.extend(sub)
            names.extend(f"{k}{p}" for p in st.paths())
        return flat, names
    flat, struct = flatten_exprs(exprs, "exprs")
    if names is None:
        names = [f"out{p}" for p in struct.paths()]
    elif isinstance(names, str):
        names = [names]
    names = list(names)
    if len(names) != len(flat) or not all(isinstance(n, str) and n for n in names):
        raise SymgradError(
            f"program: {len(flat)} outputs need {len(flat)} names (non-empty strings), "
            f"got {names!r}")
    return flat, names


def program(exprs: object, names: Sequence[str] | str | None = None, *,
            max_line: int = MAX_LINE) -> Program:
    """``exprs`` (an expression, a list, a Matrix, or a dict from names to
    expressions) as a :class:`Program`: each subexpression used more than
    once gets a name (``t1``, ``t2``, ...) and a line of its own, in an order
    where every name is defined before it is used, then come the outputs.
    A line longer than ``max_line`` nodes has its largest parts named too,
    so a formula thousands of levels deep prints as thousands of short
    lines (SymPy's printers recurse, and fail past about a thousand).

    ``names`` names the outputs (``"∂L/∂w1"`` prints as a fraction of
    partials in LaTeX); the default is ``out`` or ``out[i]``.

    >>> import sympy as sp
    >>> from symgrad import grad
    >>> x, w, b = sp.symbols("x w b", real=True)
    >>> L = sp.tanh(w * x + b) ** 2
    >>> p = program(grad(L, [w, b]), names=["∂L/∂w", "∂L/∂b"])
    >>> print(p)
    t1 = tanh(b + w*x)
    t2 = 1 - t1**2
    ∂L/∂w = 2*t1*t2*x
    ∂L/∂b = 2*t1*t2
    >>> print(p.latex())
    \\begin{aligned}
    t_{1} &= \\tanh{\\left(b + w x \\right)} \\\\
    t_{2} &= 1 - t_{1}^{2} \\\\
    \\frac{\\partial L}{\\partial w} &= 2 t_{1} t_{2} x \\\\
    \\frac{\\partial L}{\\partial b} &= 2 t_{1} t_{2}
    \\end{aligned}
    """
    if not isinstance(max_line, int) or max_line < 2:
        raise SymgradError(f"program: max_line={max_line!r}; give an integer of at least 2")
    roots, out_names = _output_names(exprs, names)
    order, kids = postorder(roots, _children)
    uses: dict[Basic, int] = dict.fromkeys(order, 0)
    for node in order:
        for k in kids[node]:
            uses[k] += 1
    for r in roots:
        uses[r] += 1
    named: set[Basic] = set()
    size: dict[Basic, int] = {}
    for node in order:
        ks = kids[node]
        size[node] = 1 + sum(1 if k in named else size[k] for k in ks)
        if size[node] > max_line:  # name the largest parts until the line is short
            parts = {k for k in ks if _nameable(k) and k not in named and size[k] > 4}
            for k in sorted(parts, key=lambda k: -size[k]):
                named.add(k)
                # (counted by hash: a tuple's count compares unequal deep kids as trees)
                size[node] -= (size[k] - 1) * sum(1 for c in ks if same(c, k))
                if size[node] <= max_line:
                    break
        if uses[node] > 1 and _nameable(node) and not _trivial(node):
            named.add(node)
    taken = {s.name for s in order if isinstance(s, Symbol)} | set(out_names)
    lines: list[tuple[str, Basic]] = []
    counter = 0

    def emit(rhs: Basic) -> Symbol:
        nonlocal counter
        counter += 1
        while f"t{counter}" in taken:
            counter += 1
        lines.append((f"t{counter}", rhs))
        return _temp(f"t{counter}", rhs)

    shown: dict[Basic, Basic] = {}  # node -> what a line shows for it
    for node in order:
        if not kids[node]:
            shown[node] = node
            continue
        args = [shown[k] for k in kids[node]]
        if isinstance(node, AssocOp) and node.is_commutative:
            while len(args) > max_line:  # a long sum or product: in partial ones
                chunks = [args[i : i + max_line] for i in range(0, len(args), max_line)]
                args = [emit(_rebuild(node, tuple(c))) if len(c) > 1 else c[0] for c in chunks]
        rhs = _rebuild(node, tuple(args))
        shown[node] = emit(rhs) if node in named else rhs
    n_temps = len(lines)
    lines.extend((n, shown[r]) for n, r in zip(out_names, roots))
    return Program(lines, n_temps)


class Code:
    """Generated source, shown as highlighted code in a notebook.

    Wraps a string, or anything with a ``source`` attribute (the functions
    ``lambdify`` returns); ``str(c)`` is the source itself.

    >>> from sympy import Symbol, exp, log
    >>> from symgrad import numpy_code
    >>> x = Symbol("x")
    >>> c = Code(numpy_code([x], log(1 + exp(x))))
    >>> print(c._repr_markdown_().splitlines()[0])
    ```python
    """

    def __init__(self, source: object, language: str = "python") -> None:
        src = getattr(source, "source", source)
        if not isinstance(src, str):
            raise TypeError(f"Code takes source text or a generated function, not {source!r}")
        self.source, self.language = src, language

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        return f"<Code: {self.source.count(chr(10)) + 1} lines of {self.language}>"

    def _repr_markdown_(self) -> str:
        return f"```{self.language}\n{self.source.rstrip()}\n```"

    def _repr_html_(self) -> str:
        return (f'<pre><code class="language-{self.language}">'
                f"{html.escape(self.source.rstrip())}</code></pre>")

