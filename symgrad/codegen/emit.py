"""Straight-line code from a formula's DAG, in passes over it, each a module
with one job:

1. reading the DAG (:mod:`~symgrad.codegen.dag`): operands, uses, which
   nodes are loud (used outside a ``Piecewise`` branch), the shared
   divisions; refusing what code cannot evaluate (:mod:`~symgrad.codegen.checks`);
2. planning (:mod:`~symgrad.codegen.plan`): which nodes get a statement,
   which are written inside their user's line, which are divisions and
   which run quietly; each statement holds a small tree over the names of
   arguments and temporaries;
3. naming (:mod:`~symgrad.codegen.naming`): temporaries reuse the names of
   dead ones;
4. printing (:mod:`~symgrad.codegen.print_pass`): each tree, over the final
   names, as a line of code by the printer (NumPy's, or another array
   library's), and for ``lambdify`` the kernels beside it (one point, NumPy
   scalars, written in place);
5. the facts the entry point reads (:mod:`~symgrad.codegen.result_kinds`).

Nodes needed only by a ``Piecewise`` branch (or by a condition tested after
the first) are computed for every element but used only where their branch
is taken; their lines run under ``np.errstate(all="ignore")``, so a branch
not taken neither warns nor, through ``np.where``, reaches the result.
"""

from __future__ import annotations

from collections.abc import Iterator

from sympy import Basic, S

from .checks import check_nodes, describe
from .dag import Dag, read_dag
from .naming import reuse_names
from .plan import plan
from .print_pass import print_calls, print_kernel, print_point, renamed_trees
from .printer import KernelPrinter, PointPrinter, RuntimePrinter
from .program import Program, Statement
from .result_kinds import depending, fresh, keeps_type

__all__ = ["Program", "Statement", "build_program", "describe", "POINT_STATEMENTS"]

# Programs up to this long get a one-point kernel (printer.PointPrinter) and
# the kernels in ufunc calls: a call's cost there is its operations', and a
# second printing pass is cheap.
POINT_STATEMENTS = 1000


def build_program(
    roots: list[Basic], leaf_names: dict[Basic, str], temps: Iterator[str],
    complex_: bool = False, printer: KernelPrinter | None = None, runtime: bool = False,
    point: bool = False, scalars: bool = True, swap: dict[Basic, Basic] | None = None,
    stop: frozenset = frozenset(), constants: bool = True,
    whole: Dag | None = None,
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
    kernel, which gives the same floats (a third less printing).  The
    kernels for NumPy scalars and written in place are printed when first
    needed (:func:`.print_pass.scalar_program`, :func:`.print_pass.inplace_program`).
    ``swap``, ``stop`` and ``whole``: see :func:`.dag.read_dag` (a masked
    ``Piecewise``, a region's inputs: :mod:`.regions`); without
    ``constants`` the runtime code writes its constants as numbers, not as
    ``_k[i]`` (the same floats).

    >>> from sympy import symbols, sin
    >>> x, y = symbols("x y")
    >>> prog = build_program([sin(x*y) + x*y], {x: "x", y: "y"}, iter(["t0", "t1"]))
    >>> [f"{st.name} = {st.code}" for st in prog.statements], prog.results
    (['t0 = x*y', 't1 = t0 + np.sin(t0)'], ['t1'])
    """
    dag = read_dag(roots, lambda order, kids: check_nodes(order, kids, leaf_names), swap, stop,
                   whole)
    prog = Program(complex=complex_ or S.ImaginaryUnit in dag.loud)
    if printer is None:
        printer = (RuntimePrinter if runtime else KernelPrinter)(complex_=prog.complex)
    planned = plan(dag, leaf_names, temps)
    prog.statements, prog.n_ops = planned.statements, planned.n_ops
    rename, prog.max_live = reuse_names(prog.statements, planned.kept)
    results = renamed_trees(prog.statements, planned.results, rename)
    depends = depending(dag.order, dag.kids, leaf_names)
    keeps = constants and all(keeps_type(n, depends) for n in dag.order)
    print_kernel(prog, printer, results, roots)
    short = len(prog.statements) <= POINT_STATEMENTS
    if type(printer) is RuntimePrinter and short:
        print_calls(prog, keeps, scalars)
        if scalars and not prog.complex:  # (written when first needed: print_pass)
            prog.inplace_from = (set(leaf_names.values()), temps)
    if point and short and not prog.complex and not any(st.quiet for st in prog.statements):
        print_point(prog, PointPrinter(complex_=False), results)
    for st in prog.statements:
        st.tree = st.node = None
    prog.typed = keeps and all(r in depends for r in dag.roots)
    prog.fresh = fresh(depends, dag.roots, leaf_names) and \
        len(set(prog.results)) == len(prog.results)
    return prog
