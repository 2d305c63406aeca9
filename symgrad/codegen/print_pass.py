"""The printing pass of emission: each planned statement's tree, over the
temporaries' final names (:mod:`~symgrad.codegen.naming`), as a line of
code by the printer (NumPy's, or another array library's); then, for
``lambdify``'s runtime code, the kernels beside the array kernel: for one
point of Python floats (:class:`~symgrad.codegen.printer.PointPrinter`),
printed at once; for NumPy scalars (operators, where the array kernel calls
the ufuncs: :func:`~symgrad.codegen.printer.as_calls`) and written in place
(:func:`~symgrad.codegen.inplace.in_place`), printed when first needed
(:func:`scalar_program`, :func:`inplace_program`: ``lambdify`` writes
those kernels on their first call, see :mod:`symgrad.codegen.compiled`).
"""

from __future__ import annotations

from sympy import Basic, Piecewise, Symbol
from sympy.printing.codeprinter import PrintMethodNotImplementedError

from ..build import mapped, piecewise, unevaluated
from .checks import describe
from .inplace import in_place
from .printer import KernelPrinter, NoNumpyFormError, NoPointForm, as_calls
from .program import Program, Statement

__all__ = ["renamed_trees", "print_kernel", "print_point", "print_calls", "scalar_program",
           "inplace_program"]


def renamed_trees(statements: list[Statement], results: list[Basic],
                  rename: dict[str, str]) -> list[Basic]:
    """Rename the statements' trees (in place) and ``results`` (returned)
    to the temporaries' final names, at once."""
    symbols = {Symbol(a): Symbol(b) for a, b in rename.items()}
    for st in statements:
        st.tree = _renamed(st.tree, symbols)
    return [_renamed(t, symbols) for t in results]


def print_kernel(prog: Program, printer: KernelPrinter, results: list[Basic],
                 roots: list[Basic]) -> None:
    """Each statement's tree and each result as code by ``printer``; an
    error names the node that cannot be printed."""
    for st in prog.statements:
        st.code = _print(printer, st.tree, st.node)
    prog.results = [_print(printer, t, r) for t, r in zip(results, roots)]


def print_point(prog: Program, printer: KernelPrinter, results: list[Basic]) -> None:
    """The one-point kernel's code by ``printer`` (``prog.point`` and
    ``prog.point_results``), unless a node has no such form (then none)."""
    try:
        point = [printer._print(st.tree) for st in prog.statements]
    except (NoPointForm, NoNumpyFormError, PrintMethodNotImplementedError):
        return  # (the kernel's own printing names what fails)
    try:
        codes = [printer._print(t) for t in results]
    except NoPointForm:
        return
    prog.point, prog.point_results = point, codes


def print_calls(prog: Program, constants: bool, scalars: bool) -> None:
    """The array kernel's operators as the ufunc calls they make (NumPy
    scalars' operators cost a fifth of a ufunc call on a scalar, arrays'
    ufunc calls less than the operators), recording the ufuncs called
    (``prog.ufuncs``) and, with ``constants`` (every node keeps the
    arguments' float type), the real constants taken as 0-d arrays of that
    type (``prog.constants``); with ``scalars``, the code in operators is
    kept for the kernel for NumPy scalars (``prog.operators``:
    :func:`scalar_program`)."""
    kept: dict[str, int] | None = {} if constants else None
    if scalars:
        prog.operators = ([st.code for st in prog.statements], list(prog.results), kept)
    for st in prog.statements:
        st.code = _calls(st.code, prog.ufuncs, kept)
    prog.results = [_calls(c, prog.ufuncs, kept) for c in prog.results]
    prog.constants = list(kept or ())


def scalar_program(prog: Program) -> Program | None:
    """The kernel for NumPy scalars (None: there is none): the array
    kernel's lines in operators, but for squares (``_sq``), the ufuncs' names
    and the constants as ``_k[i]``, which are the array kernel's (the same
    constants, in the same order: :func:`~symgrad.codegen.printer.as_calls`
    takes a constant at every binary operator in both forms)."""
    if prog.operators is None:
        return None
    codes, results, kept = prog.operators
    kept = None if kept is None else dict(kept)
    ufuncs: set[str] = set()
    # (NumPy scalars' operators with a Python number cost 0.1-0.2 us more
    # than with a scalar of their type: the scalar kernel takes them as
    # scalars of the arguments' type, made once per type)
    sts = [Statement(st.name, _calls(c, ufuncs, kept, squares_only=True), st.quiet)
           for st, c in zip(prog.statements, codes)]
    outs = [_calls(c, ufuncs, kept, squares_only=True) for c in results]
    if not ufuncs <= prog.ufuncs or kept is not None and list(kept) != prog.constants:
        raise AssertionError("symgrad: the kernel for NumPy scalars calls a ufunc or takes a "
                             "constant the module does not have (please report this)")
    return Program(sts, outs, prog.n_ops, constants=prog.constants, scalars=True)


def inplace_program(prog: Program) -> tuple[Program, list[bool], int] | None:
    """The array kernel (in ufunc calls) written in place (None: there is
    none): its program, whether each result is written into the caller's
    output row ``_o[k]``, and the number of scratch arrays ``_b[j]`` it
    writes what it would allocate into (:func:`~symgrad.codegen.inplace.in_place`)."""
    if prog.inplace_from is None:
        return None
    arguments, temps = prog.inplace_from
    codes, results, direct, scratch = in_place(
        [st.name for st in prog.statements], [st.code for st in prog.statements],
        prog.results, arguments, temps)
    sts = [Statement(st.name, code, st.quiet) for st, code in zip(prog.statements, codes)]
    return Program(sts, results, prog.n_ops, constants=prog.constants), direct, scratch


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
