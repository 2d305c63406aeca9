"""Straight-line code from a formula's DAG, in three passes over it:

1. planning (:func:`build_program`'s walk): which nodes get a statement,
   which are written inside their user's line, which are divisions and
   which run quietly; each statement holds a small tree over the names of
   arguments and temporaries;
2. naming (:func:`_reuse_names`): temporaries reuse the names of dead ones;
3. printing (:func:`_print_program`): each tree, over the final names, as
   a line of code by the printer (NumPy's, or another array library's).

One assignment per shared subexpression: a node used more than once (or an
output) gets a temporary, found from the DAG's structure in one linear walk
(no ``sympy.cse``).  A node used once is written inside its user's line when
that keeps the line short; otherwise it gets a temporary too, so no line of
the output is deep and no printer ever recurses deeply.

Each temporary's name is freed after its last use and handed to the next
statement (a register allocation over the names), so the arrays alive at
once are the program's widest point, not its length: a generated function
holds ``Program.max_live`` arrays of one block at most.  Short programs
(up to ``REUSE_AFTER`` statements) keep one name per value, for reading.

Nodes needed only by a ``Piecewise`` branch (or by a condition tested after
the first) are computed for every element but used only where their branch
is taken; their lines run under ``np.errstate(all="ignore")``, so a branch
not taken neither warns nor, through ``np.where``, reaches the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sympy import (
    Basic,
    Derivative,
    Integral,
    Max,
    Min,
    Number,
    Piecewise,
    Pow,
    S,
    Subs,
    Symbol,
    im,
    re,
)
from sympy.core.function import AppliedUndef
from sympy.printing.codeprinter import PrintMethodNotImplementedError

from ..build import mapped, piecewise, unevaluated
from ..graph import postorder
from .inplace import in_place
from .printer import (
    KernelPrinter,
    NoNumpyFormError,
    NoPointForm,
    PointPrinter,
    RuntimePrinter,
    as_calls,
)

__all__ = ["Program", "build_program", "describe"]

# A line holds at most this many operations, nested at most this deep.
INLINE_SIZE = 6
INLINE_DEPTH = 3
# A line applies one operation to at most this many operands.
MAX_OPERANDS = 100
# Programs longer than this reuse the names (and so the arrays) of dead values.
REUSE_AFTER = 32
# Programs up to this long get a one-point kernel (printer.PointPrinter): a
# call's cost there is its operations', and a second printing pass is cheap.
POINT_STATEMENTS = 1000


@dataclass
class Statement:
    name: str
    code: str  # the printed tree (set by the printing pass)
    quiet: bool  # computes a value only a Piecewise branch may use
    reads: frozenset[str] = frozenset()  # the temporaries the code reads
    tree: Basic | None = None  # what it computes, over the names of temporaries
    # and arguments (until printed)
    node: Basic | None = None  # the DAG node it computes (for error messages)
    # the code in operators, where ``code`` calls the ufuncs (printer.as_calls):
    # NumPy scalars' operators cost a fifth of a ufunc call on a scalar
    scalar_code: str | None = None


@dataclass
class Program:
    """The body of a generated function: statements, then result codes."""

    statements: list[Statement] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    n_ops: int = 0  # operations (DAG nodes evaluated), for size reports
    complex: bool = False  # holds the imaginary unit: results are complex
    max_live: int = 0  # temporaries alive at once, at most (arrays of one block)
    # the one-point kernel (printer.PointPrinter): each statement's code and
    # the results' (None: there is none)
    point: list[str] | None = None
    point_results: list[str] | None = None
    # the NumPy ufuncs the code calls by module-level names (printer.as_calls)
    ufuncs: set[str] = field(default_factory=set)
    scalar_results: list[str] | None = None  # the results in operators (as_calls)
    # the texts of the real constants the code's ufunc calls take as _k[i]
    # (0-d arrays of the arguments' type, made once per type: as_calls)
    constants: list[str] = field(default_factory=list)
    # every result is a distinct operation on the arguments that makes a new
    # array (no argument, constant, view or helper's value): the entry point
    # may return them as they are (see _fresh)
    fresh: bool = False
    # the array kernel written in place (inplace.in_place), for arguments of
    # one shape and float type: each statement's code, the results', and
    # whether each result is written into the caller's output row _o[k]
    # (None: there is none)
    # every node keeps the arguments' type and every result depends on an
    # argument: on NumPy scalars of one type, the results are scalars of it
    typed: bool = False
    inplace: list[str] | None = None
    inplace_results: list[str] | None = None
    inplace_direct: list[bool] | None = None

    def body(self, indent: str = "    ") -> list[str]:
        lines: list[str] = []
        quiet = False
        for st in self.statements:
            if st.quiet and not quiet:
                lines.append(f'{indent}with np.errstate(all="ignore"):')
            quiet = st.quiet
            pad = indent * 2 if quiet else indent
            lines.append(f"{pad}{st.name} = {st.code}")
        return lines

    def scalar_program(self) -> Program | None:
        """The program in operators, for NumPy scalars (where the statements
        call the ufuncs: ``printer.as_calls``), or None."""
        if self.scalar_results is None:
            return None
        sts = [Statement(st.name, st.scalar_code, st.quiet) for st in self.statements]
        return Program(sts, list(self.scalar_results), self.n_ops)

    def inplace_program(self) -> Program | None:
        """The in-place kernel's program (``inplace.in_place``), or None."""
        if self.inplace is None:
            return None
        sts = [Statement(st.name, code, st.quiet) for st, code in zip(self.statements,
                                                                      self.inplace)]
        return Program(sts, list(self.inplace_results), self.n_ops,
                       constants=self.constants)

    def point_program(self) -> Program | None:
        """The one-point kernel's program (the same statements, printed by
        ``PointPrinter``), or None."""
        if self.point is None:
            return None
        sts = [Statement(st.name, code, st.quiet) for st, code in zip(self.statements,
                                                                      self.point)]
        return Program(sts, list(self.point_results), self.n_ops)


_UNEVALUATED = (Derivative, Integral, Subs)


def _kids(node: Basic) -> tuple:
    if isinstance(node, Piecewise):
        return tuple(a for pair in node.args for a in pair.args)
    return node.args


def describe(node: Basic, depth: int = 3) -> str:
    """``node`` printed to a bounded depth (``…`` below), for error messages."""
    if not node.args:
        return str(node)
    if depth == 0:
        return "…"
    if isinstance(node, AppliedUndef):
        name = str(node.func)
    else:
        name = type(node).__name__
    return f"{name}({', '.join(describe(a, depth - 1) for a in node.args)})"


def _check(node: Basic) -> None:
    if isinstance(node, AppliedUndef):
        raise NoNumpyFormError(
            f"the expression holds the undefined function {describe(node)}; NumPy code can only "
            f"evaluate known functions. Substitute a formula for {node.func}(...) "
            "(expr.subs(f(x), ...)) or make it a symbol before generating code"
        )
    if isinstance(node, _UNEVALUATED):
        kind = type(node).__name__
        raise NoNumpyFormError(
            f"the expression holds an unevaluated {kind}: {describe(node)}; call .doit() on it, or "
            "differentiate with symgrad.grad (which never leaves Derivative nodes for "
            "known functions), before generating code"
        )


def _check_nodes(order: list, kids: dict, leaf_names: dict[Basic, str]) -> None:
    """Refuse what generated code cannot evaluate, naming it: a symbol that
    is not an argument, an undefined function, an unevaluated derivative."""
    # a symbol, or a symbol-like node (MatrixSymbol, Indexed, ...), that is not
    # an argument: the printer would write its name, a user's string, as code
    missing = sorted(
        {
            str(n) if isinstance(n, Symbol) else f"{n} (a {type(n).__name__})"
            for n in order
            if getattr(n, "is_symbol", False)
            and n not in leaf_names
            and not any(getattr(k, "is_symbol", False) for k in kids[n])
        }
    )
    if missing:
        raise NoNumpyFormError(
            f"the expression depends on {', '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not among the arguments; "
            "add them to args or substitute values for them"
        )
    for node in sorted(order, key=lambda n: not isinstance(n, _UNEVALUATED)):
        _check(node)  # an unevaluated Derivative is named before the f(x) inside it


def _uses(order: list, kids: dict) -> tuple[dict[Basic, int], dict[Basic, int]]:
    """How many times each node is an operand, and (for reciprocals) how many
    of those uses are not as the divisor of a product (see _divisor)."""
    uses: dict[Basic, int] = dict.fromkeys(order, 0)
    other_uses: dict[Basic, int] = {}  # uses of a reciprocal but as y*(1/x)
    for node in order:
        divisor = _divisor(node, kids[node])
        for k in kids[node]:
            uses[k] += 1
            if k is not divisor and _reciprocal(k):
                other_uses[k] = other_uses.get(k, 0) + 1
    return uses, other_uses


def _shared_quotients(order: list, kids: dict, uses: dict, other_uses: dict, roots: set,
                      loud: set) -> tuple[dict, set]:
    """The products of more than two factors whose divisor is a shared
    reciprocal written as a division (see build_program) and one of whose
    other factors another such product holds too: node -> (factor, divisor),
    the first such factor of each product; and the pairs some loud product
    uses."""
    def divides(d: Basic) -> bool:  # as build_program decides it
        return d is not None and uses[d] > other_uses.get(d, 0) \
            and (uses[d] > 1 or d in roots)

    count: dict[tuple, int] = {}
    cands: list[tuple[Basic, Basic, list]] = []
    for node in order:
        ks = kids[node]
        d = _divisor(node, ks)
        if len(ks) < 3 or not divides(d):
            continue
        fs = [k for k in ks if k is not d and not k.is_Number and not _reciprocal(k)]
        for f in dict.fromkeys(fs):
            count[(f, d)] = count.get((f, d), 0) + 1
        cands.append((node, d, fs))
    pairs: dict[Basic, tuple] = {}
    pair_loud: set = set()
    for node, d, fs in cands:
        f = next((f for f in fs if count[(f, d)] > 1), None)
        if f is not None:
            pairs[node] = (f, d)
            if node in loud:
                pair_loud.add((f, d))
    return pairs, pair_loud


def _loud(order: list, kids: dict, roots: set) -> set:
    """The nodes some use of which is not under a branch (or a condition
    after the first) of a Piecewise: the others are quiet (computed for every
    element, used only where their branch is taken)."""
    loud: set[Basic] = set(roots)
    for node in reversed(order):
        quiet_parent = node not in loud
        pw = isinstance(node, Piecewise)
        for i, k in enumerate(kids[node]):
            if not (quiet_parent or (pw and i != 1)):
                loud.add(k)
    return loud


def build_program(
    roots: list[Basic], leaf_names: dict[Basic, str], temps, complex_: bool = False,
    printer: KernelPrinter | None = None, runtime: bool = False, point: bool = False,
    scalars: bool = True,
) -> Program:
    """Statements computing ``roots``; ``leaf_names`` names the argument
    symbols; ``temps`` yields fresh temporary names.  The program is complex
    when ``complex_`` or when ``I`` reaches a root other than through a
    ``Piecewise`` branch; otherwise a complex constant in a branch (the
    ``log(3/2) + I*pi`` of ``log(-3/2)``) is NaN, as ``np.log(-1.5)`` is.
    ``printer`` (a :class:`KernelPrinter` subclass for another array library,
    as :mod:`symgrad.export` uses) prints each line; by default NumPy's, and
    with ``runtime`` (code run by ``lambdify``'s entry point, which imports
    :mod:`symgrad.codegen.runtime`) the one that calls its helpers; with
    ``point`` also the one-point kernel's code (``Program.point``), where
    the program is real and has no quiet lines.  With ``scalars`` false (code
    run only on arrays of one float type), the ``runtime`` program has no
    kernel for NumPy scalars and none written in place: only the array
    kernel, which gives the same floats (a third less printing)."""
    order, kids = postorder(roots, _kids)
    _check_nodes(order, kids, leaf_names)
    negated = _negated_products(order)
    if negated:
        order, kids = postorder(roots, lambda n: negated.get(n) or _kids(n))
    uses, other_uses = _uses(order, kids)
    is_root = set(roots)
    loud = _loud(order, kids, is_root)
    prog = Program(complex=complex_ or S.ImaginaryUnit in loud)
    if printer is None:
        printer = (RuntimePrinter if runtime else KernelPrinter)(complex_=prog.complex)
    placeholder: dict[Basic, Basic] = {n: Symbol(s) for n, s in leaf_names.items()}
    inline: dict[Basic, tuple[Basic, int, int, bool, frozenset]] = {}  # tree, size, depth,
    # quiet, the temporaries it reads
    temp_of: dict[Basic, str] = {}  # node -> the temporary holding it
    # A shared reciprocal (1/x used twice): a product holding it divides by
    # its positive power (held in a temporary unless it is a name), y/x or
    # y*z/x, not y*t0 with t0 = 1/x: one rounding fewer, and no overflow of
    # 1/x at a subnormal x where the product is finite (the gradient of
    # sqrt(x**2 + y**2) was inf at x = -2e-311, y = 7e-319).  One divisor per
    # product (the first reciprocal factor; y/(x*w) could underflow x*w);
    # other uses read the temporary 1/x.
    divide_by: dict[Basic, tuple[Basic, frozenset]] = {}
    # A factor and a shared divisor that several products hold (x*t/r and
    # y*t/r): their quotient t/r is computed once, as SymPy's cse shares it
    # (a division per product fewer; the same two roundings per product)
    pairs, pair_loud = _shared_quotients(order, kids, uses, other_uses, is_root, loud)
    quotient_of: dict[tuple, str] = {}  # (factor, divisor) -> its temporary
    for node in order:
        if node in placeholder:
            continue
        ks = kids[node]
        if not ks:  # numbers and constants are written as literals
            placeholder[node] = node
            continue
        prog.n_ops += 1
        args, size, depth, quiet = [], 1, 1, node not in loud
        arg_reads: list[frozenset] = []  # the temporaries each operand reads
        divisor = _divisor(node, ks)
        pair = pairs.get(node)
        if pair is not None and (pair[0] not in placeholder or divisor not in divide_by):
            pair = None
        if pair is not None and pair not in quotient_of:
            f, (tree, r) = pair[0], divide_by[divisor]
            name = next(temps)
            prog.statements.append(Statement(
                name, "", pair not in pair_loud, r | frozenset(
                    (temp_of[f],) if f in temp_of else ()),
                _rebuild(node, [placeholder[f], tree]), node))
            quotient_of[pair] = name
        for k in ks:
            if pair is not None and k is pair[0]:
                args.append(Symbol(quotient_of[pair]))
                arg_reads.append(frozenset((quotient_of[pair],)))
                continue
            if pair is not None and k is divisor:
                continue
            if k is divisor and k in divide_by:
                tree, r = divide_by[k]
                args.append(tree)
                size, depth = size + 2, max(depth, 2)
                arg_reads.append(r)
            elif k in inline:
                tree, s, d, q, r = inline.pop(k)
                args.append(tree)
                size, depth, quiet = size + s, max(depth, d + 1), quiet or q
                arg_reads.append(r)
            else:
                args.append(placeholder[k])
                arg_reads.append(frozenset((temp_of[k],)) if k in temp_of else frozenset())
        if len(args) > MAX_OPERANDS and _associative(node):
            # Python's compiler recurses once per operand of a long ``a + b + ...``
            # line: fold the operands, in order, through temporaries (in linear time)
            acc: list = []
            acc_reads: list[frozenset] = []
            for start in range(0, len(args) - MAX_OPERANDS, MAX_OPERANDS - 1):
                chunk = args[start:start + MAX_OPERANDS - 1]
                chunk_reads = arg_reads[start:start + MAX_OPERANDS - 1]
                name = next(temps)
                part = _rebuild(node, acc + chunk)
                prog.statements.append(Statement(
                    name, "", quiet, frozenset().union(*acc_reads, *chunk_reads), part, node))
                acc, acc_reads = [Symbol(name)], [frozenset((name,))]
            rest = start + MAX_OPERANDS - 1
            args, arg_reads = acc + args[rest:], acc_reads + arg_reads[rest:]
        reads = frozenset().union(*arg_reads)
        if _reciprocal(node) and uses[node] > other_uses.get(node, 0) \
                and (uses[node] > 1 or node in is_root):
            base, e = args[0], -node.args[1]
            power = base if e == 1 else _rebuild(node, [base, e])
            if not isinstance(power, (Symbol, Number)):
                name = next(temps)
                prog.statements.append(Statement(name, "", quiet, reads, power, node))
                power, reads = Symbol(name), frozenset((name,))
            divide_by[node] = (_rebuild(node, [power, S.NegativeOne]), reads)
            if not other_uses.get(node) and node not in is_root:
                continue  # every use divides: no 1/x to compute
            args, arg_reads = [power, S.NegativeOne], [reads, frozenset()]
        tree = _rebuild(node, args)
        if uses[node] == 1 and node not in is_root and size <= INLINE_SIZE \
                and depth <= INLINE_DEPTH:
            inline[node] = (tree, size, depth, quiet, reads)
            continue
        name = next(temps)
        prog.statements.append(Statement(name, "", quiet, reads, tree, node))
        placeholder[node] = Symbol(name)
        temp_of[node] = name
    rename = _reuse_names(prog, {temp_of[r] for r in roots if r in temp_of})
    point_printer = PointPrinter(complex_=False) if point and not prog.complex \
        and len(prog.statements) <= POINT_STATEMENTS \
        and not any(st.quiet for st in prog.statements) else None
    depends = _depending(order, kids, leaf_names)
    keeps = all(_keeps_type(n, depends) for n in order)
    _print_program(prog, printer, [placeholder[r] for r in roots], roots, rename,
                   point_printer, keeps, (set(leaf_names.values()), temps) if scalars else None,
                   scalars)
    prog.typed = keeps and all(r in depends for r in roots)
    prog.fresh = _fresh(depends, roots, leaf_names) \
        and len(set(prog.results)) == len(prog.results)
    return prog


# Modules whose functions print as a NumPy or scipy.special call that makes a
# new array (a ufunc, or np.where over one); re and im are not among them
# (np.real of a real array is the array itself, np.imag a read-only one).
_NEW_ARRAY_MODULES = ("sympy.functions.", "sympy.codegen.cfunctions", "symgrad.functions",
                      "symgrad.rewrites.")


def _depending(order: list, kids: dict, leaf_names: dict) -> set:
    """The nodes that depend on an argument."""
    depends = set(leaf_names)
    for node in order:
        if node not in depends and any(k in depends for k in kids[node]):
            depends.add(node)
    return depends


def _fresh(depends: set, roots: list, leaf_names: dict) -> bool:
    """Whether every root is an operation making a new array that depends on
    an argument: a sum or product of two or more terms, a power, a
    ``Piecewise``, ``Max``/``Min``, or a function printed as a NumPy or
    scipy.special call (never an argument itself, a constant, ``re``/``im``,
    or a helper's call, whose value may be a view of an argument)."""
    for r in roots:
        if r not in depends or r in leaf_names:
            return False
        if r.is_Add or r.is_Mul:
            if len(r.args) < 2:
                return False
        elif not (r.is_Pow or isinstance(r, (Piecewise, Max, Min))):
            mod = type(r).__module__
            if not mod.startswith(_NEW_ARRAY_MODULES) or isinstance(r, (re, im)):
                return False
    return True


# Functions whose NumPy code gives, on arrays of one float type and Python
# numbers, an array of that type (scipy.special's may compute float32 in
# float64; np.where of two Python numbers is an integer or float64 array;
# helpers compute on integers too)
_SAME_TYPE_FUNCTIONS = frozenset({
    "sin", "cos", "tan", "exp", "log", "tanh", "sinh", "cosh", "asin", "acos", "atan",
    "asinh", "acosh", "atanh", "Abs", "sign", "floor", "ceiling", "log1p", "expm1", "hypot",
    "exp2", "log2", "log10", "atan2", "Max", "Min", "logaddexp", "rint",
})


def _keeps_type(node: Basic, depends: set) -> bool:
    """Whether ``node``'s code keeps the arguments' float type, so that a
    constant beside it can be an array of that type (printer.as_calls); an
    operation on numbers only may be a float64 NumPy scalar (np.sqrt(2))."""
    if not node.args:
        return True
    if node not in depends:
        return False
    if node.is_Add or node.is_Mul:
        return True
    if node.is_Pow:
        return node.args[1].is_Number or node.args[1].is_Symbol
    return type(node).__name__ in _SAME_TYPE_FUNCTIONS


def _negated_products(order: list) -> dict[Basic, tuple]:
    """The products ``-a*b*...`` of the DAG whose positive product ``a*b*...``
    is a node of it too: node -> its operands as ``(-1, a*b*...)``, so that
    the product is computed once and negated (exactly: ``(-a)*b`` and
    ``-(a*b)`` are the same float), and, inside a sum, subtracted for free
    (``p - a*b``, see ``KernelPrinter._print_Add``).  The gradient of
    ``sqrt(x**2 + y**2)*tanh(x - y)`` holds ``(1 - t**2)*r`` in one entry
    and its negation in the other."""
    products = {n.args: n for n in order if n.is_Mul}
    out: dict[Basic, tuple] = {}
    for n in products.values():
        a = n.args
        if len(a) > 2 and a[0] is S.NegativeOne:
            positive = products.get(a[1:])
            if positive is not None:
                out[n] = (S.NegativeOne, positive)
    return out


def _reuse_names(prog: Program, kept: set[str]) -> dict[str, str]:
    """The naming pass: give each statement the name of a temporary already
    dead (read for the last time by this very statement, or before), so
    that the arrays alive at once are as many as the program is wide;
    ``kept`` (the results) stay alive to the end.  Renames the statements
    (their trees are renamed when printed) and returns the renaming; sets
    ``prog.max_live``."""
    sts = prog.statements
    last: dict[str, int] = {}
    for i, st in enumerate(sts):
        for r in st.reads:
            last[r] = i
    end = len(sts)
    for k in kept:
        last[k] = end
    reuse = len(sts) > REUSE_AFTER
    rename: dict[str, str] = {}
    free: list[str] = []  # dead names, the latest freed on top
    live = peak = 0
    for i, st in enumerate(sts):
        peak = max(peak, live + 1)  # (a value read for the last time dies after this line)
        dying = [rename.get(r, r) for r in sorted(st.reads) if last[r] == i]
        # (sorted: the same source every time)
        free.extend(dying)
        live += 1 - len(dying)
        if st.name not in last:  # never read (cannot happen for a program's values)
            last[st.name] = i
        if reuse and free:
            rename[st.name] = free.pop()
        elif not reuse:
            free.clear()
        st.name = rename.get(st.name, st.name)
    prog.max_live = peak
    return rename


def _print_program(prog: Program, printer: KernelPrinter, results: list[Basic],
                   roots: list[Basic], rename: dict[str, str],
                   point_printer: KernelPrinter | None = None,
                   constants: bool = True, names: tuple | None = None,
                   scalars: bool = True) -> None:
    """The printing pass: each statement's tree, and each result, as code,
    over the temporaries' final names (and by ``point_printer`` too, if
    given, into ``prog.point``); with ``names`` (the arguments' names and a
    supply of fresh ones) also the kernel written in place (``prog.inplace``);
    with ``scalars``, the code for NumPy scalars (``Statement.scalar_code``)."""
    symbols = {Symbol(a): Symbol(b) for a, b in rename.items()}
    point: list[str] = []
    for st in prog.statements:
        tree = _renamed(st.tree, symbols)
        st.code = _print(printer, tree, st.node)
        if point_printer is not None:
            try:
                point.append(point_printer._print(tree))
            except (NoPointForm, NoNumpyFormError, PrintMethodNotImplementedError):
                point_printer = None  # (the kernel's own printing names what fails)
        st.tree = st.node = None
    trees = [_renamed(t, symbols) for t in results]
    prog.results = [_print(printer, t, r) for t, r in zip(trees, roots)]
    if type(printer) is RuntimePrinter and len(prog.statements) <= POINT_STATEMENTS:
        # operators as the ufunc calls they make (lambdify's kernel)
        kept: dict[str, int] | None = {} if constants else None
        for st in prog.statements:
            if scalars:
                st.scalar_code = _calls(st.code, prog.ufuncs, None, squares_only=True)
            st.code = _calls(st.code, prog.ufuncs, kept)
        if scalars:
            prog.scalar_results = [_calls(c, prog.ufuncs, None, squares_only=True)
                                   for c in prog.results]
        prog.results = [_calls(c, prog.ufuncs, kept) for c in prog.results]
        prog.constants = list(kept or ())
        if names is not None and not prog.complex:
            prog.inplace, prog.inplace_results, prog.inplace_direct = in_place(
                [st.name for st in prog.statements], [st.code for st in prog.statements],
                prog.results, names[0], names[1])
    if point_printer is not None:
        try:
            codes = [point_printer._print(t) for t in trees]
        except NoPointForm:
            return
        prog.point, prog.point_results = point, codes


def _calls(code: str, ufuncs: set[str], constants: dict[str, int] | None,
           squares_only: bool = False) -> str:
    out, used = as_calls(code, squares_only, constants)
    ufuncs |= used
    return out


def _renamed(tree: Basic, symbols: dict[Basic, Basic]) -> Basic:
    """``tree`` (a statement's: a few operations deep) with ``symbols``
    replaced at once, nothing re-evaluated."""
    if not symbols:
        return tree
    return mapped([tree], _rebuilt, swap=symbols.get)[0]


def _rebuilt(node: Basic, args: tuple) -> Basic:
    """``node`` over new arguments as written (a ``Piecewise`` over its
    rebuilt value/condition pairs)."""
    if isinstance(node, Piecewise):
        return piecewise([pair.args for pair in args], evaluate=False)
    return unevaluated(node, args)


def _divisor(node: Basic, kids: tuple) -> Basic | None:
    """The factor of a product that is written as a division, if any: its
    first reciprocal factor."""
    if not node.is_Mul:
        return None
    return next((k for k in kids if _reciprocal(k)), None)


def _reciprocal(node: Basic) -> bool:
    """A power with a negative number for exponent: ``1/x``, ``x**-2``,
    ``1/sqrt(x)``."""
    return isinstance(node, Pow) and node.args[1].is_Number and node.args[1].is_negative


def _associative(node: Basic) -> bool:
    return node.is_Add or node.is_Mul or isinstance(node, (Max, Min))


def _rebuild(node: Basic, args: list[Basic]) -> Basic:
    """``node`` over new operands, exactly as written (nothing re-evaluated).

    Sums, products, powers and function calls are made directly from their
    arguments (the printer reads only the class and the arguments): their
    constructors, even unevaluated, sympify, check and cache every node."""
    if isinstance(node, Piecewise):
        return piecewise(list(zip(args[::2], args[1::2])), evaluate=False)
    return unevaluated(node, args)


def _print(printer: KernelPrinter, tree: Basic, node: Basic) -> str:
    try:
        return printer._print(tree)
    except (NoNumpyFormError, PrintMethodNotImplementedError) as err:
        what = str(err).splitlines()[0]
        raise NoNumpyFormError(
            f"cannot generate NumPy code for {describe(node)} "
            f"({what}); symgrad's generated code calls NumPy and scipy.special only. "
            "Rewrite it in functions they have (or substitute values for it) first"
        ) from None
