"""The kernel for a short batch of float64 points (issue 20 §6: from 2 to
about 20 points a call cost what SymPy's does, NumPy's cost per ufunc call).

Its statements are the one-point kernel's (Python floats and :mod:`math`,
which give NumPy's very floats: ``printer.PointPrinter``), run point by
point in one loop, but for the statements that call NumPy (a function
whose NumPy floats are not :mod:`math`'s, a power): those, and the
statements they read, run first as the array kernel's lines over the whole
batch, and the loop takes their values from the arrays.  So every value is
the array kernel's (a point's value does not depend on its batch), at a
tenth of a ufunc call per operation and point.  Where a NumPy line would
warn (its error state raises then), Python raises (``1/0.0``) or a result
is not finite, the kernel gives None and the entry point runs the array
kernel: NumPy's values and warnings, as before.
"""

from __future__ import annotations

import re

from . import runtime
from .program import Program

__all__ = ["rows_plan", "rows_bound", "rows_source"]

# What a short batch costs, in ns (measured 2026-11-28 on four formulas of
# two variables, 1-30 points, load 8-11: the model's break-even within 0-5
# points below the measured one): a ufunc call on a short array (a call of
# ``_hypot``: seven), a float operation of the loop, a call there (math's
# functions, ``_mhypot``), each point's loop and each result's append, and
# the fixed part: the call, the error state around NumPy's lines, each list
# made of an array, each result array made of a list
UFUNC, HYPOT = 300, 7
OP, CALL, POINT, APPEND = 16, 40, 40, 30
FIXED, STATE, LIST, ARRAY = 500, 250, 100, 400
# at most this many points (the cost model is a guess far from its data)
MOST = 64


def _vectorized(code: str) -> bool:
    """Whether a one-point line calls NumPy (``float(np.exp(_v))``, a
    power's ``_pow``): its floats are then the array kernel's only when the
    array kernel computes it."""
    return "np." in code or "_pow(" in code


# (the printed lines' names, calls and operators, read by patterns: a
# line is the printer's, with no strings in it)
_NAME = re.compile(r"\b[A-Za-z_]\w*")
_CALL = re.compile(r"\w\(")
_OP = re.compile(r"[-+*/<>]")


def _names(code: str) -> set[str]:
    return set(_NAME.findall(code))


def _counts(code: str) -> tuple[int, int]:
    """The float operations (about: every operator's sign) and the calls of
    one line of code."""
    return len(_OP.findall(code)), len(_CALL.findall(code))


def rows_bound(prog: Program, args: list[str], plan: tuple) -> int:
    """The most points for which the short-batch kernel costs less than the
    array kernel's calls, by counts of operations and calls (0: never);
    ``plan``: :func:`rows_plan`'s.

    >>> from sympy import symbols, sin, cos
    >>> from symgrad.codegen.emit import build_program
    >>> x, y = symbols("x y")
    >>> def bound(exprs):
    ...     temps = iter(f"t{i}" for i in range(99))
    ...     prog = build_program(exprs, {x: "x", y: "y"}, temps, runtime=True, point=True)
    ...     return rows_bound(prog, ["x", "y"], rows_plan(prog, ["x", "y"]))
    >>> bound([x*y - x/y + 3]), 0 < bound([sin(x)*cos(y) + x*y, x*sin(y) - cos(x)/y])
    (0, True)
    """
    keep, taken = plan

    def calls(code: str) -> int:
        return _counts(code)[1] + (HYPOT - 1) * code.count("_hypot(")
    array = UFUNC * (sum(calls(st.code) for st in prog.statements)
                     + sum(calls(c) for c in prog.results))
    n_out = len(prog.point_results)
    fixed = FIXED + (STATE if keep else 0) \
        + UFUNC * sum(calls(prog.statements[i].code) for i in keep) \
        + LIST * (len(args) + len(taken)) + ARRAY * n_out
    loop = [c for i, c in enumerate(prog.point) if i not in taken] + prog.point_results
    per_point = POINT + APPEND * n_out + sum(OP * _counts(c)[0] + CALL * _counts(c)[1]
                                              for c in loop)
    return max(0, min(MOST, (array - fixed) // per_point))


def rows_plan(prog: Program, args: list[str]) -> tuple[list[int], set[int]] | None:
    """The array statements the short-batch kernel runs first (in order)
    and the statements whose values its loop takes from them, or None (no
    one-point kernel, a result that calls NumPy, a NumPy line that reads no
    argument; NumPy 1).

    >>> from sympy import symbols, sin, tanh
    >>> from symgrad.codegen.emit import build_program
    >>> x, y = symbols("x y")
    >>> prog = build_program([tanh(x - y)*sin(x) + x/y], {x: "x", y: "y"},
    ...                      iter(f"t{i}" for i in range(9)), runtime=True, point=True)
    >>> prog.point
    ['_msin(x)*float(np.tanh(x - y))', 'x/y + t0']
    >>> rows_plan(prog, ["x", "y"])
    ([0], {0})
    """
    if prog.point is None or prog.point_results is None or runtime._STRICT is None:
        return None  # (NumPy 1: no error state to set at the cost of a name)
    if any(_vectorized(c) for c in prog.point_results):
        return None
    taken = {i for i, c in enumerate(prog.point) if _vectorized(c)}
    last: dict[str, int] = {}  # a temporary's name -> its latest statement
    deps: list[list[int]] = []
    reads_args: list[bool] = []
    given = set(args)
    for i, st in enumerate(prog.statements):
        names = _names(st.code)
        deps.append([last[n] for n in names if n in last])
        reads_args.append(any(n in given and n not in last for n in names)
                          or any(reads_args[j] for j in deps[-1]))
        last[st.name] = i
    keep: set[int] = set()
    todo = list(taken)
    while todo:
        i = todo.pop()
        if i not in keep:
            keep.add(i)
            todo.extend(deps[i])
    if any(not reads_args[i] for i in taken):
        return None  # (a constant line: a scalar, not an array)
    own = {f"_p{i}" for i in taken} | {f"_q{i}" for i in taken} | \
        {f"_r{k}" for k in range(len(prog.point_results))}
    if own & given:
        return None  # (an argument named as the kernel's own names)
    return sorted(keep), taken


def rows_source(name: str, args: list[str], prog: Program, n_out: int, plan: tuple) -> str:
    """The short-batch kernel ``name`` of ``prog`` (with a one-point
    kernel) over 1-D float64 arrays ``args`` of one length: a tuple of
    ``n_out`` arrays, or None where the array kernel must run (see the
    module's text); ``plan``: :func:`rows_plan`'s.

    >>> from sympy import symbols, sin, tanh
    >>> from symgrad.codegen.emit import build_program
    >>> x, y = symbols("x y")
    >>> prog = build_program([tanh(x - y)*sin(x) + x/y], {x: "x", y: "y"},
    ...                      iter(f"t{i}" for i in range(9)), runtime=True, point=True)
    >>> text = rows_source("f_rows", ["x", "y"], prog, 1, rows_plan(prog, ["x", "y"]))
    >>> print("\\n".join(text.splitlines()[4:6] + text.splitlines()[12:16]))
            t0 = _mul(_np_sin(x), _np_tanh(_sub(x, y)))
            _p0 = t0.tolist()
            for x, y, _q0 in zip(x.tolist(), y.tolist(), _p0):
                t0 = _q0
                t1 = x/y + t0
                _r0.append(t1)
    """
    keep, taken = plan
    lines = [f"def {name}({', '.join(args)}):",
             f'    """Generated by symgrad: {n_out} output{"s" if n_out != 1 else ""}, '
             f'{prog.n_ops} operations, on a short batch of float64 points."""']
    if prog.constants and any("_k[" in prog.statements[i].code for i in keep):
        lines.append(f"    _k = _K.get({args[0]}.dtype.char) or _consts(_K, _KV, {args[0]}.dtype)")
    if keep:
        lines += ["    _e = _errvar.set(_STRICT)  # (where NumPy would warn: the array kernel)",
                  "    try:"]
        for i in keep:
            st = prog.statements[i]
            lines.append(f"        {st.name} = {st.code}")
            if i in taken:
                lines.append(f"        _p{i} = {st.name}.tolist()")
        lines += ["    except FloatingPointError:", "        return None",
                  "    finally:", "        _errvar.reset(_e)"]
    outs = [f"_r{k}" for k in range(n_out)]
    lines.append("    " + "; ".join(f"{r} = []" for r in outs))
    loop_vars = args + [f"_q{i}" for i in sorted(taken)]
    lists = [f"{a}.tolist()" for a in args] + [f"_p{i}" for i in sorted(taken)]
    lines += ["    try:",
              f"        for {', '.join(loop_vars)} in zip({', '.join(lists)}):"]
    for i, (st, code) in enumerate(zip(prog.statements, prog.point)):
        lines.append(f"            {st.name} = {f'_q{i}' if i in taken else code}")
    for k, code in enumerate(prog.point_results):
        lines.append(f"            _r{k}.append({code})")
    lines += ["    except (ArithmeticError, ValueError, TypeError):  # 1/0.0, math.sqrt(-1.0)",
              "        return None"]
    finite = " and ".join(f"_finite(sum({r}))" for r in outs)
    arrays = ", ".join(f"np.array({r}, np.float64)" for r in outs)
    lines += [f"    if {finite}:  # (a finite sum: every value finite)",
              f"        return ({arrays}{',' if n_out == 1 else ''})",
              "    return None"]
    return "\n".join(lines) + "\n"
