"""``lambdify`` and ``numpy_code``: from SymPy expressions to NumPy functions.

The pipeline: lower the markers (:func:`symgrad.lowering.lower`), rewrite to
accurate NumPy forms, emit straight-line code from the DAG, and (for
``lambdify``) compile it with a blocked entry point, the entry point's
other kernels written and compiled when first needed
(:mod:`symgrad.codegen.compiled`).  The source is kept on the function and
registered with :mod:`linecache`, so ``inspect.getsource`` and tracebacks
show it.
"""

from __future__ import annotations

import itertools
import keyword
import re
import unicodedata
from collections.abc import Callable, Mapping

import numpy as np
from sympy import Basic, Expr, MatrixBase, NDimArray, Symbol

from ..certified import certified
from ..compensated import compensated
from ..errors import SymgradError
from ..exact import exact
from ..graph import postorder
from ..lowering import lower
from ..rewrites import accurate_forms, safe_forms
from ..scaled import scaled
from ..shapes import flatten_exprs
from ..widen import widen
from .certifying import CERTIFY_HELPERS, CERTIFY_NAMES, certifying, uses_certify
from .compensating import (
    COMPENSATED_HELPERS,
    COMPENSATED_NAMES,
    compensating,
    uses_compensated,
)
from .compiled import load
from .complex_values import realizes_i, refuse_complex_arguments
from .dag import Dag, read_dag
from .emit import Program, build_program
from .expanding import EXPANSION_HELPERS, EXPANSION_NAMES, expanding, uses_expansions
from .matrix import is_matrix_program, matrix_code, matrix_lambdify
from .names import Namer
from .print_pass import inplace_program, scalar_program
from .printer import CALL_NAMES
from .regions import MAX_REGIONS, REGION_NAMES, split
from .rows import rows_bound, rows_plan, rows_source
from .scaling import SCALE_HELPERS, SCALE_NAMES, _Pick, compacting, scaling, uses_scaling
from .source import (
    ENTRY_NAMES,
    REMAINDER_IMPORT,
    REMAINDER_NAMES,
    RUNTIME_IMPORT,
    Layout,
    Param,
    entry_source,
    into_source,
    kernel_source,
    scalar_listed,
)
from .widening import WIDEN_HELPERS, WIDEN_NAMES, uses_widen, widened

__all__ = ["lambdify", "numpy_code", "array_function", "DEFAULT_BLOCK"]

DEFAULT_BLOCK = 16384  # float64 elements per block (128 kB an array; float32 twice as
# many): temporaries stay in the L2 cache


def _params(args: object, namer: Namer) -> tuple[list[Param], dict[Basic, str]]:
    """Parameters from ``args``: a symbol, or a sequence whose items are
    symbols or (vector parameters) sequences / matrices of symbols."""
    if isinstance(args, Symbol):
        items: list = [args]
    elif isinstance(args, (list, tuple, MatrixBase, NDimArray)):
        items = list(args)
    else:
        raise SymgradError(
            f"args is {args!r} ({type(args).__name__}); pass a Symbol or a list of "
            "Symbols (an inner list of Symbols becomes one array argument)"
        )
    params: list[Param] = []
    leaf: dict[Basic, str] = {}

    def take(s: object, where: str) -> Symbol:
        if not isinstance(s, Symbol):
            raise SymgradError(
                f"{where} is {s!r} ({type(s).__name__}); arguments must be Symbols. "
                "Substitute a symbol for it first (expr.subs(that, Symbol('u')))"
            )
        if s in leaf:
            raise SymgradError(f"{where}: the symbol {s} appears twice in args")
        leaf[s] = namer.name(s.name)
        return s

    for i, a in enumerate(items):
        if isinstance(a, (list, tuple, MatrixBase, NDimArray)):
            syms = tuple(take(s, f"args[{i}][{j}]") for j, s in enumerate(a))
            params.append(Param("", syms, True))
        else:
            s = take(a, f"args[{i}]")
            params.append(Param(leaf[s], (s,), False))
    # vector parameters get names after all symbols, so none clashes
    return [
        Param(namer.name(f"arg{i}"), p.symbols, True) if p.vector else p
        for i, p in enumerate(params)
    ], leaf


def _layout(exprs: object) -> tuple[list[Expr], Layout]:
    flat, struct = flatten_exprs(exprs, "exprs")
    if struct.kind == "scalar":
        return flat, Layout("scalar")
    if struct.kind == "tuple":
        return flat, Layout("list" if isinstance(exprs, list) else "tuple")
    return flat, Layout("matrix", struct.shape)


_MARKERS = (certified, exact, scaled, compensated, widen, _Pick)


def _holds_markers(roots: list[Basic]) -> bool:
    """Whether a node of ``roots``' DAG is a marker a code-generation pass
    rewrites (certified, exact, scaled, compensated, widen): one walk, where
    each of the six passes would walk the DAG to find none."""
    order, _ = postorder(roots, lambda n: n.args)
    return any(isinstance(n, _MARKERS) for n in order)


def _compile(
    args: object, exprs: object, reserved: frozenset[str] = frozenset(),
    stabilize: bool = False, domain: Mapping | None = None, complex_: bool = False,
    runtime: bool = False, point: bool = False, scalars: bool = True,
) -> tuple[list[Param], dict, Program, Layout, Namer]:
    reserved = reserved | WIDEN_NAMES | COMPENSATED_NAMES | SCALE_NAMES | REGION_NAMES \
        | REMAINDER_NAMES \
        | EXPANSION_NAMES | CERTIFY_NAMES
    namer = Namer(reserved)
    params, leaf = _params(args, namer)
    flat, layout = _layout(exprs)
    roots = safe_forms(lower(flat), domain) if stabilize else accurate_forms(lower(flat))
    if _holds_markers(roots):  # (each pass returns roots as they are without its marker)
        roots = certifying(roots)  # certified(u): u in pairs, recomputed where not certified
        roots = expanding(roots)  # exact(p): the polynomial p as an expansion, rounded once
        roots = scaling(roots)  # scaled(u): u on inputs scaled by a power of two
        roots = compensating(roots, domain if stabilize else None)  # compensated(u): in pairs
        roots = compacting(roots)  # scaled(u)'s fallback at the rows taking it only
        roots = widened(roots)  # widen(u): u computed in the next wider type
    # a Piecewise whose branches need heavy work: each branch at its rows only
    swap, regions = split(roots) if runtime and not complex_ else ({}, [])
    # (its parts decide as the whole formula's code does: read_dag's whole)
    whole = read_dag(roots) if regions else None
    prog = build_program(roots, leaf, namer.temps(), complex_, runtime=runtime, point=point,
                         scalars=scalars, swap=swap, whole=whole)
    if regions and not prog.complex:
        prog.regions = _region_programs(regions, reserved, whole)
    if not prog.complex and _may_print_i_as_nan(prog) and realizes_i(roots):
        # I only in branches, but under Abs, re, im or arg there: a real value
        # computed through complex ones, which NaN for I would lose
        prog = build_program(roots, leaf, namer.temps(), True, runtime=runtime,
                             scalars=scalars)  # (no masked regions in complex code)
    if prog.complex:
        refuse_complex_arguments(roots)
    return params, leaf, prog, layout, namer


def _region_programs(regions: list, reserved: frozenset[str], whole: Dag) -> list:
    """The program of each region of the masked ``Piecewise`` (and of
    those its regions hold, numbered after them), as ``(name, inputs'
    names, program)``; a worklist, no recursion."""
    out = []
    todo = list(regions)
    number = len(regions)
    made: dict[tuple, str] = {}  # (value, inputs) -> the function computing it
    while todo:
        r = todo.pop(0)
        key = (r.value, tuple(r.inputs))
        if key in made:  # (the same branch in two places: one function)
            out.append((f"_mr{r.number}", None, made[key]))
            continue
        made[key] = f"_mr{r.number}"
        stop = frozenset(r.inputs)
        swap, more = split([r.value], stop, number, MAX_REGIONS - number, r.types)
        number += len(more)
        todo += more
        namer = Namer(reserved)
        names = {n: namer.name(f"a{i}") for i, n in enumerate(r.inputs)}
        prog = build_program([r.value], names, namer.temps(), runtime=True, scalars=False,
                             swap=swap, stop=stop, constants=False, whole=whole)
        out.append((f"_mr{r.number}", [names[n] for n in r.inputs], prog))
    return out


def _region_source(name: str, params: list[str] | None, prog: Program | str) -> str:
    """A region's function: its inputs in, its branch's value out (a tuple);
    (``params`` None: another name for the function ``prog``)."""
    if params is None:
        return f"{name} = {prog}\n"
    lines = [f"def {name}({', '.join(params)}):",
             '    """A branch of a masked Piecewise, at the rows that take it."""',
             *prog.body(), f"    return ({prog.results[0]},)"]
    return "\n".join(lines) + "\n"


def _may_print_i_as_nan(prog: Program) -> bool:
    """Whether real code may hold an I printed as NaN (a cheap necessary test)."""
    return any("np.nan" in st.code for st in prog.statements) \
        or any("np.nan" in r for r in prog.results)


_SCIPY_USE = re.compile(r"\bscipy\.special\.")
_REMAINDER_USE = re.compile(rf"\b({'|'.join(REMAINDER_NAMES)})\(")


def _imports(prog: Program, runtime: bool = False) -> str:
    """The import lines of the generated module: NumPy, and ``scipy.special``
    only when a special function is used (names are sanitized, so only the
    printer writes ``scipy.special.``); with ``runtime``, the helpers of the
    entry point (:mod:`symgrad.codegen.runtime`); Stirling's remainders
    (:mod:`symgrad.rewrites.remainders`) where a node calls them."""
    progs = [prog, *(p for _, params, p in prog.regions if params is not None)]
    code = [c for p in progs for c in itertools.chain((s.code for s in p.statements), p.results)]
    uses_scipy = any(_SCIPY_USE.search(c) for c in code)
    ufuncs = set().union(*(p.ufuncs for p in progs))
    remainders = any(_REMAINDER_USE.search(c) for c in code)
    head = "import numpy as np\n" + ("import scipy.special\n" if uses_scipy else "") \
        + (RUNTIME_IMPORT + "\n" if runtime else "") \
        + (REMAINDER_IMPORT + "\n" if remainders else "") \
        + ("from symgrad.codegen.runtime import _masked\n" if prog.regions else "") \
        + "".join(f"_np_{u} = np.{u}\n" for u in sorted(ufuncs)) \
        + (f"_KV = ({', '.join(prog.constants)},)  # the kernel's constants\n_K = {{}}\n"
           + ("_KS = {}\n" if prog.operators is not None else "")
           if prog.constants else "")
    wide = any(uses_widen(c) for c in code)
    pairs = any(uses_compensated(c) for c in code)
    scales = any(uses_scaling(c) for c in code)
    expansions = any(uses_expansions(c) for c in code)
    certify = any(uses_certify(c) for c in code)
    return head + ("\n\n" + WIDEN_HELPERS if wide else "") \
        + ("\n\n" + COMPENSATED_HELPERS if pairs else "") \
        + ("\n\n" + EXPANSION_HELPERS if expansions else "") \
        + ("\n\n" + CERTIFY_HELPERS if certify else "") \
        + ("\n\n" + SCALE_HELPERS if scales else "") \
        + "".join("\n\n" + _region_source(*r) for r in prog.regions)


def _doc(prog: Program, n_out: int) -> str:
    outs = "1 output" if n_out == 1 else f"{n_out} outputs"
    ops = "1 operation" if prog.n_ops == 1 else f"{prog.n_ops} operations"
    return f"Generated by symgrad: {outs}, {ops}."


def numpy_code(args: object, exprs: object, name: str = "f") -> str:
    """The source of a plain NumPy function computing ``exprs`` from ``args``.

    The function imports only NumPy (and ``scipy.special`` when it calls a
    special function such as ``erf`` or ``gamma``; never SymPy, and symgrad
    only for the Stirling remainders of ``stabilize``'s log-gamma forms,
    :mod:`symgrad.rewrites.remainders`, which imports NumPy only), broadcasts
    like NumPy, and has one assignment per shared subexpression.  An inner
    list in ``args`` becomes one array argument whose first axis runs over
    its symbols.

    >>> from sympy import symbols, sin, cos, exp, log
    >>> x, y = symbols("x y")
    >>> print(numpy_code([x, y], [sin(x * y) + y, cos(x * y) * log(1 + x)]))
    import numpy as np
    <BLANKLINE>
    <BLANKLINE>
    def f(x, y):
        \"\"\"Generated by symgrad: 2 outputs, 6 operations.\"\"\"
        t0 = x*y
        t1 = y + np.sin(t0)
        t2 = np.cos(t0)*np.log1p(x)
        return [t1, t2]
    <BLANKLINE>
    """
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) \
            or unicodedata.normalize("NFKC", name) in ("np", "scipy"):
        raise SymgradError(
            f"name={name!r} is not usable as the generated function's name: give an "
            "identifier that is not a Python keyword (nor np or scipy, the modules the "
            "code imports)"
        )
    if is_matrix_program(args, exprs):
        return matrix_code(args, exprs, name)
    params, leaf, prog, layout, _ = _compile(args, exprs)
    body = kernel_source(name, params, leaf, prog, layout, _doc(prog, len(prog.results)))
    return _imports(prog) + "\n\n" + body


def lambdify(
    args: object,
    exprs: object,
    *,
    dtype: object = None,
    block: int | None = DEFAULT_BLOCK,
    threads: int | None = None,
    stabilize: bool = False,
    domain: Mapping | None = None,
    backend: str = "numpy",
) -> Callable:
    """A fast NumPy function computing ``exprs`` (an expression, a list or
    tuple, or a Matrix) from the symbols ``args``.

    Arguments broadcast like NumPy.  Results are arrays in ``dtype``
    (default: the arguments' common floating type, so float32 stays
    float32); a Matrix comes back as an array of shape
    ``matrix shape + broadcast shape``.  Large inputs are evaluated
    ``block`` elements at a time (float32 ones twice as many: the same
    bytes) into preallocated outputs (``block=None``: in one pass), the
    blocks shared among ``threads`` worker threads (default: one per
    available core; ``threads=1`` runs serially).  NumPy
    releases the GIL inside its loops, so the threads run in parallel.
    Markers are lowered first and ``Piecewise`` selects without letting an
    untaken branch's NaN or inf into the result.

    The source is ``fn.source``: the whole module (its kernels for one
    point, NumPy scalars, short batches and in place are written when a
    call first needs them, and ``source`` writes those not written yet);
    ``inspect.getsource(fn)`` is its entry point.  The
    function pickles (as its source, compiled again on loading), so it runs
    under ``multiprocessing``, ``concurrent.futures`` and dask.  Arguments
    are numbers or arrays of numbers (a SymPy number, ``Fraction`` or
    ``Decimal`` is converted; anything else is a ``TypeError`` naming the
    argument).  A formula holding ``I`` outside ``Piecewise`` branches has
    complex results (a real ``dtype`` is then an error).

    Accurate forms (``log1p``, ``expm1``, ``hypot``, ...) are always used;
    ``stabilize=True`` adds every rewrite of :mod:`symgrad.rewrites` that
    loses accuracy nowhere it is valid (the exact sigmoid, conjugates of
    differences of roots, ...), valid on ``domain`` (symbol -> (lo, hi)).
    :func:`symgrad.stabilize` chooses among more forms by measurement.

    ``backend="jax"`` or ``"torch"`` gives the same formula as plain
    ``jax.numpy`` or ``torch`` code (the ``jax`` / ``torch`` extras;
    ``dtype``, ``block`` and ``threads`` are NumPy's only) with no
    derivative rules: for symgrad's derivatives there, use
    :func:`symgrad.to_jax` / :func:`symgrad.to_torch`.

    >>> import numpy as np
    >>> from sympy import symbols, Piecewise, log, Matrix
    >>> x, y = symbols("x y")
    >>> f = lambdify([x, y], x * y + 1)
    >>> f(np.arange(3.0), 2.0)
    array([1., 3., 5.])
    >>> g = lambdify(x, Piecewise((log(x), x > 0), (0, True)))
    >>> g(np.array([-1.0, 0.0, np.e]))
    array([0., 0., 1.])
    >>> lambdify([x], Matrix([[x, 1], [2, x]]))(np.float32(3)).dtype
    dtype('float32')
    """
    if backend != "numpy":
        from ..export.plain import plain_function  # the extras, imported only when asked

        return plain_function(backend, args, exprs, stabilize=stabilize, domain=domain)
    if block is not None and (not isinstance(block, int) or block < 1):
        raise SymgradError(f"block={block!r}: give a positive number of elements, or None")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise SymgradError(f"threads={threads!r}: give a positive number of threads, or None")
    dt = None if dtype is None else np.dtype(dtype)
    if dt is not None and dt.kind not in "fc":
        raise SymgradError(f"dtype={dtype!r}: give a floating or complex type (float32, ...)")
    if is_matrix_program(args, exprs):
        if dt is not None and dt.kind != "f":
            raise SymgradError(f"dtype={dtype!r}: matrix formulas are computed in a real "
                               "floating type (float32, float64)")
        return matrix_lambdify(args, exprs, dt, block, stabilize)
    return _numpy_function(args, exprs, dt, block, threads, stabilize, domain)


def array_function(args: object, exprs: object, dtype: object) -> Callable:
    """``lambdify(args, exprs, dtype=dtype, threads=1)`` for code run once
    on arrays of points (the stability checker's measurements): the same
    array kernel and entry point, so the same floats on arrays, without the
    kernels for one point, for NumPy scalars and written in place (which
    give those floats too, and cost a third of ``lambdify``'s time to
    write); a NumPy scalar runs the array kernel.

    >>> import numpy as np
    >>> from sympy import symbols, exp
    >>> x = symbols("x")
    >>> f = array_function([x], [exp(x) - 1], np.float32)
    >>> f(np.array([1e-3, 1.0], np.float32))[0].dtype, "f_inplace" in f.source
    (dtype('float32'), False)
    """
    dt = np.dtype(dtype)
    if dt.kind != "f" or is_matrix_program(args, exprs):
        return lambdify(args, exprs, dtype=dt, threads=1)
    return _numpy_function(args, exprs, dt, DEFAULT_BLOCK, 1, False, None, full=False)


def _numpy_function(args: object, exprs: object, dt: np.dtype | None, block: int | None,
                    threads: int | None, stabilize: bool, domain: Mapping | None,
                    full: bool = True) -> Callable:
    """``lambdify``'s function of a scalar formula; without ``full``, its
    array kernel and entry point only (:func:`array_function`)."""
    complex_ = dt is not None and dt.kind == "c"
    params, leaf, prog, layout, namer = _compile(
        args, exprs, ENTRY_NAMES | CALL_NAMES, stabilize, domain, complex_, runtime=True,
        point=full and dt is None, scalars=full,
    )
    if dt is not None and not complex_ and prog.complex:
        raise SymgradError(
            f"the formula is complex-valued (it holds I), and dtype={dt.name!r} is real: "
            "pass a complex dtype (dtype=complex), or take its real part (sympy.re) first"
        )
    dt = None if dt is None else dt.str
    name, kernel = namer.name("f"), namer.name("f_block")
    n_out = len(prog.results)
    point_prog = prog.point_program() if dt is None else None
    point = namer.name("f_point") if point_prog is not None else None
    scalar = namer.name("f_scalar") if prog.operators is not None else None
    has_ip = prog.inplace_from is not None and (dt is None or np.dtype(dt).kind == "f")
    inplace = namer.name("f_inplace") if has_ip else None
    names = [p.name for p in params]
    plan = rows_plan(prog, names) if point and not any(p.vector for p in params) else None
    most = rows_bound(prog, names, plan) if plan else 0
    rows = namer.name("f_rows") if most else None
    into = namer.name("f_into") if inplace else None
    doc = _doc(prog, n_out)[:-1]
    # The kernels besides the array kernel, written when first called
    # (compiled._Later; in this order where ``source`` writes them all)
    later: dict[tuple[str, ...], Callable[[], str]] = {}
    if scalar:
        later[(scalar,)] = lambda: kernel_source(
            scalar, params, leaf, scalar_program(prog), None, doc + ", on NumPy scalars.",
            listed=scalar_listed(layout))
    if point:
        later[(point,)] = lambda: kernel_source(
            point, params, leaf, point_prog, None, doc + ", on one point of Python floats.")
    if rows:
        later[(rows,)] = lambda: rows_source(rows, names, prog, n_out, plan)

    def in_place() -> str:
        ip_prog, direct, scratch = inplace_program(prog)
        return kernel_source(inplace, params, leaf, ip_prog, None, doc + ", in place.",
                             outs=n_out, scratch=scratch) \
            + "\n\n" + into_source(into, inplace, params, n_out, direct, scratch)
    if inplace:
        later[(inplace, into)] = in_place
    head = _imports(prog, runtime=True) + "\n\n" \
        + kernel_source(kernel, params, leaf, prog, None, _doc(prog, n_out)) + "\n\n"
    entry = entry_source(name, kernel, params, layout, n_out, dt, block, prog.complex,
                         prog.max_live, prog.fresh, point, scalar, inplace, into,
                         prog.typed and scalar is not None, (rows, most) if rows else None)
    return load(head + entry, name, threads, prog.n_ops, entry=len(head), later=later)
