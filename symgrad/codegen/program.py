"""What emission makes: a program of statements (one assignment each) and
the codes of its results, with the facts about it the entry point reads
(``max_live``, ``fresh``, ``typed``), the one-point kernel printed beside
the array kernel, and what the kernels for NumPy scalars and written in
place are printed from when first needed (``print_pass.scalar_program``,
``print_pass.inplace_program``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sympy import Basic

__all__ = ["Statement", "Program"]


@dataclass
class Statement:
    """One assignment ``name = code`` of a program."""

    name: str
    code: str  # the printed tree (set by the printing pass)
    quiet: bool  # computes a value only a Piecewise branch may use
    reads: frozenset[str] = frozenset()  # the temporaries the code reads
    tree: Basic | None = None  # what it computes, over the names of temporaries
    # and arguments (until printed)
    node: Basic | None = None  # the DAG node it computes (for error messages)


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
    # the kernel for NumPy scalars, printed when first needed
    # (print_pass.scalar_program): the lines' and results' code in operators,
    # before ``as_calls``, and the constants' indices (None: there is none)
    operators: tuple[list[str], list[str], dict | None] | None = None
    # the texts of the real constants the code's ufunc calls take as _k[i]
    # (0-d arrays of the arguments' type, made once per type: as_calls)
    constants: list[str] = field(default_factory=list)
    scalars: bool = False  # the kernel for NumPy scalars: its constants are scalars
    # every result is a distinct operation on the arguments that makes a new
    # array (no argument, constant, view or helper's value): the entry point
    # may return them as they are (see _fresh)
    fresh: bool = False
    # every node keeps the arguments' type and every result depends on an
    # argument: on NumPy scalars of one type, the results are scalars of it
    typed: bool = False
    # the array kernel written in place (inplace.in_place), for arguments of
    # one shape and float type, written when first needed
    # (print_pass.inplace_program) from the arguments' names and the supply
    # of fresh names (None: there is none)
    inplace_from: tuple[set[str], Iterator[str]] | None = None
    # the functions of the masked Piecewise's regions (regions.py): (name, the
    # names of its inputs, its program), written before the kernels
    regions: list = field(default_factory=list)

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

    def point_program(self) -> Program | None:
        """The one-point kernel's program (the same statements, printed by
        ``PointPrinter``), or None."""
        if self.point is None:
            return None
        sts = [Statement(st.name, code, st.quiet) for st, code in zip(self.statements,
                                                                      self.point)]
        return Program(sts, list(self.point_results), self.n_ops)
