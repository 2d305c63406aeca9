"""The text of generated functions: the plain kernel (``numpy_code``) and the
blocked entry point around it (``lambdify``).

Everything here writes source from names made safe by
:class:`~symgrad.codegen.names.Namer` and from code the printer wrote; no
string a user supplied reaches the output except inside ``repr`` in a
comment.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from sympy import Basic, Symbol

from .emit import Program

__all__ = [
    "Param", "Layout", "kernel_source", "entry_source", "into_source", "block_step", "block_len",
    "short_path",
    "RUNTIME_IMPORT",
    "REMAINDER_IMPORT",
    "REMAINDER_NAMES",
    "ENTRY_NAMES",
]


@dataclass(frozen=True)
class Param:
    """One argument of the generated function: a symbol, or a vector of them
    (an array whose first axis runs over the symbols)."""

    name: str
    symbols: tuple[Symbol, ...]
    vector: bool

    @property
    def lead(self) -> tuple[int, ...]:
        return (len(self.symbols),) if self.vector else ()


@dataclass(frozen=True)
class Layout:
    """How the flat outputs are returned: "scalar", "tuple", "list", "matrix"."""

    kind: str
    shape: tuple[int, ...] = ()


def _wrap(items: list[str], indent: str) -> list[str]:
    text = ", ".join(items)
    lines = textwrap.wrap(
        text, 90 - len(indent), break_on_hyphens=False, break_long_words=False
    )
    return [indent + ln for ln in lines]


def _renames(params: list[Param], leaf_names: dict[Basic, str]) -> list[str]:
    out = []
    for p in params:
        for s in p.symbols:
            if leaf_names[s] != s.name:
                out.append(f"    # {leaf_names[s]} is the symbol {s.name!r}")
    return out


def _unpack(params: list[Param], leaf_names: dict[Basic, str]) -> list[str]:
    out = []
    for p in params:
        if p.vector:
            names = [leaf_names[s] for s in p.symbols]
            if len(names) == 1:
                out.append(f"    ({names[0]},) = {p.name}")
            else:
                out.append("    (")
                out.extend(_wrap(names, "        "))
                out.append(f"    ) = {p.name}")
    return out


def _structured_return(results: list[str], layout: Layout) -> list[str]:
    if layout.kind == "scalar":
        return [f"    return {results[0]}"]
    if layout.kind in ("tuple", "list"):
        if not results:
            return ["    return ()" if layout.kind == "tuple" else "    return []"]
        left, right = ("(", ")") if layout.kind == "tuple" else ("[", "]")
        tail = "," if layout.kind == "tuple" and len(results) == 1 else ""
        return [f"    return {left}", *_wrap(results, "        "), f"    {tail}{right}"] \
            if len(results) > 4 else [f"    return {left}{', '.join(results)}{tail}{right}"]
    # matrix: entries broadcast to one shape, then stacked in the Matrix's shape
    return [
        "    entries = (",
        *_wrap(results, "        "),
        "    )",
        "    dtype = np.result_type(*entries)",
        "    entries = np.broadcast_arrays(*entries)",
        f"    return np.array(entries, dtype).reshape({layout.shape!r} + entries[0].shape)",
    ]


def kernel_source(
    name: str,
    params: list[Param],
    leaf_names: dict[Basic, str],
    prog: Program,
    layout: Layout | None,
    doc: str,
    outs: int | None = None,
    scratch: int = 0,
    listed: bool = False,
) -> str:
    """A plain function: numpy in, numpy out, broadcasting like NumPy.

    ``layout=None`` returns the flat tuple of results (the blocked entry
    point's kernel).  With ``outs`` (the in-place kernel's: see
    :mod:`symgrad.codegen.inplace`) it takes one more argument, ``_o``: the
    arrays some results are written into (a block of the outputs), by
    default ``outs`` Nones (new arrays), and ``_b``, its ``scratch`` scratch
    arrays (by default Nones too: new arrays).  With ``listed`` the
    results are a list (what the entry point returns for a list layout).
    """
    sig = [p.name for p in params] + ([f"_o=(None,) * {outs}"] if outs is not None else [])
    sig += [f"_b=(None,) * {scratch}"] if scratch else []
    lines = [f"def {name}({', '.join(sig)}):", f'    """{doc}"""']
    lines += _renames(params, leaf_names)
    if prog.constants and params and prog.scalars:  # (NumPy scalars of one type)
        first = params[0].name
        lines.append(f"    _k = _KS.get(type({first})) or _sconsts(_KS, _KV, {first})")
    elif prog.constants and params:  # the constants in the arguments' type (printer.as_calls)
        first = params[0].name
        lines.append(f"    _k = _K.get({first}.dtype.char) or _consts(_K, _KV, {first}.dtype)")
    lines += _unpack(params, leaf_names)
    lines += prog.body()
    if layout is None and listed:
        if len(prog.results) > 4:
            lines += ["    return [", *_wrap(prog.results, "        "), "    ]"]
        else:
            lines.append(f"    return [{', '.join(prog.results)}]")
    elif layout is None:
        tail = "," if len(prog.results) == 1 else ""
        if len(prog.results) > 4:
            lines += ["    return (", *_wrap(prog.results, "        "), "    )"]
        else:
            lines.append(f"    return ({', '.join(prog.results)}{tail})")
    else:
        lines += _structured_return(prog.results, layout)
    return "\n".join(lines) + "\n"


# The line of the generated module that brings in its run-time helpers
# (:mod:`symgrad.codegen.runtime`).
RUNTIME_IMPORT = (
    "from symgrad.codegen.runtime import _arg, _batch, _cut, _f32, _f64, _finite, _flat, _fresh, "
    "_hypot, _mcos, _mhypot, _msin, _msqrt, _nd, _sq, _pow, _bad, _add, _sub, _mul, _div, "
    "_neg, _square, _consts, _sconsts, _plain, _D32, _D64, _typed, _astype, _scalars, _rows, "
    "_take, _give, _errvar, _STRICT, _outs"
)


# The line that brings in Stirling's remainders (the nodes' NumPy code calls
# them: :mod:`symgrad.rewrites.remainders`, which imports NumPy only), and
# their names, which no argument takes
REMAINDER_NAMES = frozenset({"_lgamma_remainder", "_digamma_remainder", "_polygamma_remainder"})
REMAINDER_IMPORT = ("from symgrad.rewrites.remainders import _digamma_remainder, "
                    "_lgamma_remainder, _polygamma_remainder")


# Names the entry point and the module around it use; lambdify gives no
# argument one of these, so an argument never shadows them.
ENTRY_NAMES = frozenset({
    "_batch", "_flat", "_cut", "_arg", "_hypot", "_nd", "_fresh", "_ARGS", "_DTYPE", "_pool",
    "_f64", "_f32", "_t", "_finite", "_mcos", "_mhypot", "_msin", "_msqrt", "_sq",
    "_pow", "_bad", "_plain",
    "_dtype", "_odtype", "_shape", "_n", "_out", "_run", "_s", "_e", "_r", "_starts", "_v",
    "_o", "_step", "_ip", "_D32", "_D64", "_typed", "_astype", "_scalars", "_rows",
    "_b", "_take", "_give", "_errvar", "_STRICT", "_outs",
})


# From this many elements up, one block of arrays of one type and shape runs
# the kernel written in place (inplace.py); below, the one that allocates,
# whose calls cost a little less (no output argument, no names bound): the
# two crossed at 150-250 elements, float32 and float64 (2026-11-27, load 5)
INPLACE_FROM = 256

# From this many elements up, a call of one block of the kernel written in
# place, of a program whose results are not all new arrays, runs as a call
# of blocks does (``_run``): into outputs and scratch arrays that start at a
# multiple of 64 bytes (``runtime._outs``, ``runtime._take``), so no result
# is copied.  A program of new arrays (``Program.fresh``) runs one block as
# the kernel alone, into the new arrays it writes, at every length: the path
# of blocks cost 3-17% more there, in every pair of processes alternated
# (three gradients, 3,000-16,000 float64 and 3,000-30,000 float32 points,
# glibc's malloc as it starts and with fixed thresholds; 2026-11-29, load
# 5-9), where its aligned writes had saved 2-7% (session 15, load 0.3).
ALIGNED_FROM = 2048

# The arrays a block keeps alive at once (``Program.max_live`` of them, plus
# the few a line makes on the way) stay under this many bytes per thread: a
# long program runs in shorter blocks, down to MIN_BLOCK elements.
LIVE_BYTES = 64 * 2**20
MIN_BLOCK = 512


def block_step(block: int, live: int) -> str:
    """The block length the entry point uses: ``block``, or (where ``live``
    arrays of it would take more than ``LIVE_BYTES``) a shorter one, chosen
    at run time from the element size.

    >>> block_step(16384, 20), block_step(16384, 20000)
    ('16384', 'max(512, min(16384, 3355 // _dtype.itemsize))')
    """
    if (live + 2) * block * 16 <= LIVE_BYTES:
        return str(block)
    return f"max({MIN_BLOCK}, min({block}, {LIVE_BYTES // (live + 2)} // _dtype.itemsize))"


def block_len(block: int, live: int) -> str:
    """:func:`block_step`'s length as the entry point computes it: where it
    is ``block`` itself, float32 arrays (4-byte elements) run blocks of
    twice as many elements, the bytes of ``block`` float64 ones, whose
    temporaries stay in the cache as well (10^5 float32 points, blocks of
    16,384 -> 32,768: 1.41 -> 1.22 and 1.45 -> 1.16 ms CPU, 2026-11-27,
    load 16).

    >>> block_len(16384, 20)
    '(32768 if _dtype is _D32 else 16384)'
    """
    step = block_step(block, live)
    if not step.isdigit():
        return step
    return f"({2 * block} if _dtype is _D32 else {block})"


def _label(p: Param) -> str:
    """The symbols of an argument, for error messages (a long vector cut short)."""
    names = [s.name for s in p.symbols[:4]]
    if len(p.symbols) > 4:
        names[3:] = [f"... ({len(p.symbols)} symbols)"]
    return ", ".join(names)


def entry_source(
    name: str,
    kernel: str,
    params: list[Param],
    layout: Layout,
    n_out: int,
    dtype: str | None,
    block: int | None,
    complex_: bool = False,
    live: int = 0,
    fresh: bool = False,
    point: str | None = None,
    scalar: str | None = None,
    inplace: str | None = None,
    into: str | None = None,
    typed: bool = False,
    rows: tuple[str, int] | None = None,
) -> str:
    """The function ``lambdify`` returns: converts and broadcasts the
    arguments, then runs ``kernel`` over blocks into preallocated outputs
    (complex ones where ``complex_``: the formula holds ``I``).  ``live``:
    the arrays the kernel holds at once (``Program.max_live``), which
    bounds the block length (:func:`block_step`).  Arrays of one float type
    and one batch shape skip the conversions and checks, and a call of one
    block calls the kernel directly; with ``fresh`` (``Program.fresh``: each
    result a new array) it returns the kernel's arrays, where they have the
    block's length and the output type, without copying them.  ``point``
    names the one-point kernel (``printer.PointPrinter``'s), which one point
    of Python floats or float64 scalars runs first; ``scalar`` the kernel
    for NumPy scalars (``kernel`` itself by default); ``inplace`` the kernel
    written in place (:mod:`symgrad.codegen.inplace`), which arrays of one
    float type and shape run, and ``into`` the function running it on a
    block of the whole arrays into the outputs' rows (:func:`into_source`);
    ``typed``: every result of the kernel on NumPy scalars is a scalar of
    their type (``Program.typed``); ``rows``:
    the kernel for a short batch of float64 points (:mod:`.rows`) and the
    most points it runs (on the shortest path and on one block of any
    shape: flat arrays of the batch's points, after broadcasting)."""
    names = [p.name for p in params]
    sig = ", ".join(names)
    how = f"in blocks of {block} elements ({2 * block} of float32)" \
        if block and block_step(block, live).isdigit() else \
        (f"in blocks of {block} elements at most" if block else "in one pass")
    labels = tuple(_label(p) for p in params)
    lines = [
        f"_ARGS = {labels!r}  # the symbols of each argument, for error messages",
        "_pool = None  # an executor with .map() to run blocks on threads; None: serially",
    ]
    if dtype:
        lines.append(f"_DTYPE = np.dtype({dtype!r})")
    lines += [
        "",
        "",
        f"def {name}({sig}):",
        f'    """Evaluate on NumPy arrays (broadcasting like NumPy), {how}."""',
    ]
    short = short_path(fresh, n_out, layout, dtype, complex_, block, live)
    if not dtype and not complex_ and params and not any(p.vector for p in params):
        floats = _python_floats(scalar or kernel, names, layout, n_out, point, typed,
                                scalar is not None and scalar_listed(layout))
        at = next(i for i, ln in enumerate(floats) if ln.startswith("    if _t is _f64"))
        lines += floats[:at]
        if short:
            one_type = params and all(p.symbols for p in params)
            lines += _short_arrays(kernel, names, layout, n_out, int(block_step(block, live)),
                                   inplace if one_type else None, typed, rows)
        lines += floats[at:]
    pad = "    "
    same = params and not complex_ and all(p.symbols for p in params)
    if not same:
        inplace = None
    if same:
        lines += _same_arrays(params, dtype)
        if inplace:
            lines.append("        _ip = True  # (the in-place kernel)")
        step = block_step(block, live) if block else None
        if fresh and n_out and layout.kind != "matrix" and not any(p.vector for p in params) \
                and step is not None and step.isdigit():
            lines += _same_arrays_one_block(kernel, names, layout, n_out,
                                            block_len(block, live), inplace)
        pad = "        "
        lines.append("    else:")
        if inplace:
            lines.append("        _ip = False")
    # Python numbers stay weakly typed, as in NumPy's own arithmetic
    for i, p in enumerate(params):
        lines.append(f"{pad}{p.name} = _arg({p.name}, {i}, _ARGS)")
    if dtype:
        lines.append(f"{pad}_dtype = _DTYPE")
    else:
        lines.append(f"{pad}_dtype = np.result_type({', '.join([*names, '1.0'])})")
    # the arguments are evaluated in _dtype (real: symbols are real), the
    # results stored in _odtype, complex when the formula holds I
    odtype = "np.result_type(_dtype, 1j)" if complex_ else "_dtype"
    lines.append(f"{pad}_odtype = {odtype}")
    for p in params:
        lines.append(f"{pad}{p.name} = np.asarray({p.name})")
    shapes = [
        f"_batch({p.name}, {p.lead!r}, {p.name!r})" if p.vector else f"{p.name}.shape"
        for p in params
    ]
    lines.append(f"{pad}_shape = np.broadcast_shapes({', '.join(shapes)})")
    # a single point: NumPy scalars, no arrays at all
    lines.append(f"{pad}if not _shape:")
    scal = [
        f"{p.name}.astype(_dtype)" if p.vector else f"{p.name}.astype(_dtype)[()]"
        for p in params
    ]
    lines.append(f"{pad}    _r = {scalar or kernel}({', '.join(scal)})")
    lines += [pad + ln[4:] for ln in _scalar_return(layout)]
    lines.append(f"{pad}_n = int(np.prod(_shape))")
    for p in params:
        lines.append(f"{pad}{p.name} = _flat({p.name}, {p.lead!r}, _shape, _n, _dtype)")
    if block:
        lines.append(f"    _step = {block_len(block, live)}")
    else:
        lines.append("    _step = max(_n, 1)")
    whole = ", ".join(names)
    cuts = ", ".join(f"_cut({p.name}, {len(p.lead)}, _s, _e)" for p in params)
    out = f"    _out = np.empty(({n_out}, _n), _odtype)" if layout.kind == "matrix" \
        else f"    _out = _outs({n_out}, _n, _odtype)"
    if inplace:  # (in place from ALIGNED_FROM elements: into aligned arrays, in _run)
        lines.append("    if 0 < _n <= _step and not (_ip and _n >= "
                     f"{ALIGNED_FROM}):  # one block: the kernel on the whole arrays")
    else:
        lines.append("    if 0 < _n <= _step:  # one block: the kernel on the whole arrays")
    if rows:  # (a short float64 batch: any shape, any results, broadcast arguments;
        # _flat leaves an argument of one element 0-d)
        full = ", ".join(f"{n} if {n}.ndim else {n}.repeat(_n)" for n in names)
        lines += [f"        if _n <= {rows[1]} and _dtype is _D64 and _plain():",
                  f"            _r = {rows[0]}({full})",
                  "            if _r is not None:",
                  *["            " + ln for ln in _fresh_return(layout, n_out)]]
    if inplace:
        lines.append(f"        _r = {inplace}({whole}) if _ip and _n >= {INPLACE_FROM} "
                     f"else {kernel}({whole})")
    else:
        lines.append(f"        _r = {kernel}({whole})")
    if fresh and n_out and layout.kind != "matrix":
        lines.append("        if _fresh(_r, _n, _odtype):  # new arrays: returned as they are")
        lines += ["        " + ln for ln in _fresh_return(layout, n_out)]
    lines.append("    " + out)
    for k in range(n_out):
        lines.append(f"        _out[{k}] = _r[{k}]")
    lines.append("        return " + _array_return(layout, n_out)[0].strip()[len("return "):])
    lines.append(out)
    lines.append("")
    # (its free names as default values: a closure would make them cells of
    # the entry point, allocated on every call, one point's too)
    bound = [*names, "_out", "_step", *(["_ip"] if inplace else [])]
    lines.append(f"    def _run(_s, {', '.join(f'{n}={n}' for n in bound)}):")
    lines.append("        _e = _s + _step")
    pad = "        "
    if inplace:
        views = ", ".join(f"{p.name}[:, _s:_e]" if p.vector else f"{p.name}[_s:_e]"
                          for p in params)
        lines.append("        if _ip:  # (views of whole arrays; results into the outputs)")
        lines.append(f"            {into}({views}, _out[:, _s:_e])")
        lines.append("            return")
    lines.append(f"{pad}_r = {kernel}({cuts})")
    for k in range(n_out):
        lines.append(f"{pad}_out[{k}, _s:_e] = _r[{k}]")
    lines.append("")
    lines.append("    _starts = range(0, _n, _step)")
    lines.append("    if _pool is None or len(_starts) < 4:")
    lines.append("        for _s in _starts:")
    lines.append("            _run(_s)")
    lines.append("    else:  # blocks on worker threads: NumPy releases the GIL in its loops")
    lines.append("        for _ in _pool.map(_run, _starts):")
    lines.append("            pass")
    lines += _array_return(layout, n_out)
    return "\n".join(lines) + "\n"


def into_source(name: str, inplace: str, params: list[Param], n_out: int,
                direct: list[bool], scratch: int) -> str:
    """The function the entry point runs the kernel written in place
    ``inplace`` through, on one block of the whole arrays (views): into the
    outputs' rows ``_o`` (the results ``direct`` marks straight from the
    kernel's ufunc calls, the others copied), with ``scratch`` scratch
    arrays taken for the block and given back (``runtime._take``: kept from
    block to block and call to call).  It is written with the kernel, when
    first needed, so the entry point's text does not depend on them.

    >>> from sympy import symbols
    >>> x, y = symbols("x y")
    >>> ps = [Param("x", (x,), False), Param("y", (y,), False)]
    >>> print(into_source("f_into", "f_inplace", ps, 2, [True, False], 1))
    def f_into(x, y, _o):
        \"\"\"f_inplace on a block, into the outputs' rows _o.\"\"\"
        _b = _take(_o, 1)
        _r = f_inplace(x, y, _o, _b)
        _give(_b)
        _o[1] = _r[1]
    <BLANKLINE>
    """
    args = ", ".join(p.name for p in params)
    lines = [f"def {name}({args}, _o):",
             f'    """{inplace} on a block, into the outputs\' rows _o."""']
    if scratch:  # (arrays kept from block to block and call to call)
        lines.append(f"    _b = _take(_o, {scratch})")
        call = f"{inplace}({args}, _o, _b)"
    else:
        call = f"{inplace}({args}, _o)"
    lines.append(f"    {call}" if all(direct) else f"    _r = {call}")
    if scratch:
        lines.append("    _give(_b)")
    lines += [f"    _o[{k}] = _r[{k}]" for k in range(n_out) if not direct[k]]
    return "\n".join(lines) + "\n"


def short_path(fresh: bool, n_out: int, layout: Layout, dtype: str | None,
               complex_: bool, block: int | None, live: int) -> bool:
    """Whether the entry point has the shortest path (:func:`_short_arrays`):
    a program of new arrays (``fresh``), not a matrix, of no fixed or
    complex type, in blocks of a length fixed at once.

    >>> short_path(True, 2, Layout("list"), None, False, 16384, 20)
    True
    >>> short_path(True, 2, Layout("list"), None, False, None, 20)
    False
    """
    return bool(fresh and n_out and layout.kind != "matrix" and not dtype and not complex_
                and block is not None and block_step(block, live).isdigit())


def _same_arrays(params: list[Param], dtype: str | None) -> list[str]:
    """The test and set-up of the common case: every argument an array of
    one float type (``dtype`` where it is fixed) and one batch shape, no
    broadcasting, so no conversion and no check is needed."""
    lead = next((p for p in params if not p.vector), params[0])  # gives the batch size
    first = params[0].name
    # (a native float type: the general path gives byte-swapped input native results)
    kind = f"{first}.dtype == _DTYPE" if dtype \
        else f'{first}.dtype.kind == "f" and {first}.dtype.isnative'
    tests = [f"type({p.name}) is _nd" for p in params] + [kind]
    tests += [f"{p.name}.dtype is {first}.dtype" for p in params[1:]]

    def batch(p: Param) -> str:
        return f"{p.name}.shape[1:]" if p.vector else f"{p.name}.shape"
    for p in params:
        if p.vector:
            tests.append(f"{p.name}.shape[:1] == {p.lead!r}")
    tests += [f"{batch(p)} == {batch(params[0])}" for p in params[1:]]
    tests.append(f"len({batch(params[0])})")
    out = ["    if (" + tests[0]]
    for t in tests[1:]:
        if len(out[-1]) + len(t) > 85:
            out.append("            and " + t)
        else:
            out[-1] += " and " + t
    out[-1] += "):"
    out += [
        f"        _dtype = _odtype = {first}.dtype",
        f"        _shape = {batch(params[0])}",
        f"        _n = {lead.name}.size" + (f" // {len(lead.symbols)}" if lead.vector else ""),
    ]
    out.append("        if len(_shape) != 1:  # (a view's making costs a third of a ufunc call)")
    for p in params:
        to = f"({len(p.symbols)}, _n)" if p.vector else "_n"
        out.append(f"            {p.name} = {p.name}.reshape({to})")
    return out


def _short_arrays(kernel: str, names: list[str], layout: Layout, n_out: int,
                  step: int, inplace: str | None = None, typed: bool = False,
                  rows: tuple[str, int] | None = None) -> list[str]:
    """The shortest path, for a call of one block (up to ``step`` elements)
    of 1-D float64 or float32 arrays of one length, of a program whose
    results are new arrays (``Program.fresh``): the kernel (from
    ``INPLACE_FROM`` elements up the one written in place, ``inplace``), and
    its arrays as the outputs, whose type is tested only where the program
    may not keep it (not ``typed``).  It skips the tests of NumPy scalars
    and of any float type and shape: 0.35 us fewer at 10 points (3% of a
    call), 0.5 us at 1,000 (1-2%; measured 2026-11-27).  With ``rows``
    (a short-batch kernel and its most points), float64 batches up to that
    many points run it first, under NumPy's default error state (as the
    one-point kernel does), the kernel where it gives None.  Calls of the
    kernel written in place run it at every length up to a block's, into
    the new arrays it writes (``ALIGNED_FROM``)."""
    first = names[0]
    args = ", ".join(names)
    # (``_t``: the first argument's type, :func:`_python_floats`)
    tests = ["_t is _nd", *(f"type({n}) is _nd" for n in names[1:])]
    same = [f"{n}.dtype is _dtype and {n}.shape == _shape" for n in names[1:]]
    types = " and ".join(f"_r[{k}].dtype is _dtype" for k in range(n_out)) if n_out <= 4 \
        else "_typed(_r, _dtype)"
    one = "_r[0]" if layout.kind == "scalar" else ("_r" if layout.kind == "tuple" else "list(_r)")
    if inplace:
        call = f"{inplace}({args}) if _shape[0] >= {INPLACE_FROM} else {kernel}({args})"
        # (float32 blocks hold twice the elements, block_len)
        b32, b64 = 2 * step, step
        bound = f"<= {b64}" if b32 == b64 else f"<= ({b32} if _dtype is _D32 else {b64})"
    else:
        call = f"{kernel}({args})"
        bound = f"< {min(step + 1, INPLACE_FROM)}"
    short = [] if rows is None else [
        f"            if _shape[0] <= {rows[1]} and _dtype is _D64 and _plain():",
        f"                _r = {rows[0]}({args})",
        "                if _r is not None:",
        f"                    return {one}",
    ]
    return [
        f"    if {' and '.join(tests)}:",
        f"        _dtype = {first}.dtype",
        f"        _shape = {first}.shape",
        "        if ((_dtype is _D64 or _dtype is _D32) and len(_shape) == 1 "
        f"and 0 < _shape[0] {bound}" + "".join(f"\n                and {t}" for t in same)
        + "):",
        *short,
        f"            _r = {call}",
        *([] if typed else [f"            if not ({types}):",
                            "                _r = _astype(_r, _dtype)"]),
        f"            return {one}",
    ]


def _same_arrays_one_block(kernel: str, names: list[str], layout: Layout, n_out: int,
                           step: str, inplace: str | None = None) -> list[str]:
    """Arrays of one float type and shape, in one block, of a program whose
    results are new arrays (``Program.fresh``): those arrays are the outputs,
    with no test but their type's (where a function computed in another
    type, as scipy's expn in float64 for float32, a converted copy).  From
    ``INPLACE_FROM`` elements up, the kernel written in place ``inplace``."""
    same = " and ".join(f"_r[{k}].dtype is _dtype" for k in range(n_out)) if n_out <= 4 \
        else "_typed(_r, _dtype)"
    args = ", ".join(names)
    call = f"{inplace}({args}) if _n >= {INPLACE_FROM} else {kernel}({args})" if inplace \
        else f"{kernel}({args})"
    return [
        f"        if 0 < _n <= {step}:  # one block of new arrays: the outputs",
        f"            _r = {call}",
        f"            if not ({same}):",
        "                _r = _astype(_r, _dtype)",
        *["        " + ln for ln in _fresh_return(layout, n_out)],
    ]


def scalar_listed(layout: Layout) -> bool:
    """Whether the kernel for NumPy scalars returns its results as a list
    (``kernel_source``'s ``listed``): where the entry point returns a list of
    them, it returns the kernel's (a list made from a tuple cost 0.1 us of a
    float32 point's 2.2, measured 2026-11-27)."""
    return layout.kind == "list"


def _python_floats(kernel: str, names: list[str], layout: Layout, n_out: int,
                   point: str | None = None, typed: bool = False,
                   listed: bool = False) -> list[str]:
    """One point given as Python floats, or as NumPy float32 or float64
    scalars of one type: the kernel on scalars of that type (float64 for
    Python floats) at once, without the arrays, checks and broadcasting of
    the general path (the same values: that path makes the same scalars).
    With a one-point kernel ``point``, Python floats and float64 scalars run
    it first, and the kernel only where Python raises (``1/0.0``) or a
    result is not finite (so NumPy's inf, NaN and warnings are the same).
    With ``typed`` (``Program.typed``), NumPy scalars' results are scalars
    of their type as the kernel returns them (``listed``: in the list the
    kernel returns)."""
    test = " and ".join(["_t is float", *(f"type({n}) is float" for n in names[1:])])
    same = " and ".join(f"type({n}) is _t" for n in names[1:])
    # (the first argument's type, taken once: every path below tests it)
    lines = [f"    _t = type({names[0]})", f"    if {test}:"]
    if point:
        lines += _try_point(point, names, layout, n_out, names)
    lines += _point(kernel, names, layout, n_out, "_f64")
    # (float32 scalars next: before the tests of arrays, whose calls cost
    # 10 us and more, and of float64 scalars)
    lines.append(f"    if _t is _f32{' and ' + same if same else ''}:")
    lines += _point(kernel, names, layout, n_out, "_t", typed, listed)
    lines.append(f"    if _t is _f64{' and ' + same if same else ''}:")
    if point:
        lines += _try_point(point, names, layout, n_out, [f"float({n})" for n in names])
    return lines + _point(kernel, names, layout, n_out, "_t", typed, listed)


def _try_point(point: str, names: list[str], layout: Layout, n_out: int,
               args: list[str]) -> list[str]:
    """The one-point kernel on ``args``, returned where it neither raised
    nor gave a result that is not finite."""
    finite = " and ".join(f"_finite(_r[{k}])" for k in range(n_out)) if n_out <= 4 \
        else "all(map(_finite, _r))"
    lines = [
        "        try:",
        f"            _r = {point}({', '.join(args)})",
        f"            if {finite}:",
        *["        " + ln for ln in _point_return(layout, n_out, "_f64")],
        "        except (ArithmeticError, ValueError, TypeError):  # 1/0.0, math.sqrt(-1.0)",
        "            pass",
    ]
    # (under another error state than NumPy's default, NumPy's scalars: an
    # overflow on the way to a finite result raises as it did)
    return ["        if _plain():", *["    " + ln for ln in lines]]


def _point(kernel: str, names: list[str], layout: Layout, n_out: int, kind: str,
           typed: bool = False, listed: bool = False) -> list[str]:
    """The kernel on one point of scalars made by ``kind`` (a scalar type);
    with ``typed`` (NumPy scalars of type ``kind``, and a program whose
    results keep their type) its results as they are."""
    call = f"{kernel}({', '.join(f'{kind}({n})' if kind == '_f64' else n for n in names)})"
    if typed and layout.kind in ("scalar", "tuple", "list"):
        if layout.kind == "scalar":
            return [f"        return {call}[0]"]
        return [f"        return {call if layout.kind == 'tuple' or listed else f'list({call})'}"]
    if layout.kind == "scalar":
        return [f"        return {kind}({call}[0])"]
    return [f"        _r = {call}", *_point_return(layout, n_out, kind)]


def _point_return(layout: Layout, n_out: int, kind: str) -> list[str]:
    """The results ``_r`` of one point as scalars of ``kind``."""
    if layout.kind == "scalar":
        return [f"        return {kind}(_r[0])"]
    if layout.kind == "matrix":
        return [f"        return np.array(_r, {kind}).reshape({layout.shape!r})"]
    items = [f"{kind}(_r[{k}])" for k in range(n_out)]
    if kind == "_t":  # (NumPy's arithmetic on scalars of type _t gives that type)
        items = [f"_r[{k}] if type(_r[{k}]) is _t else _t(_r[{k}])" for k in range(n_out)]
    if layout.kind == "tuple":
        return [f"        return ({', '.join(items)}{',' if n_out == 1 else ''})"]
    return [f"        return [{', '.join(items)}]"]


def _scalar_return(layout: Layout) -> list[str]:
    if layout.kind == "scalar":
        return ["        return np.asarray(_r[0], _odtype)[()]"]
    if layout.kind == "matrix":
        return [f"        return np.array(_r, _odtype).reshape({layout.shape!r})"]
    wrap = "tuple" if layout.kind == "tuple" else "list"
    if wrap == "tuple":
        return ["        return tuple(_scalars(_r, _odtype))"]
    return ["        return _scalars(_r, _odtype)"]


def _fresh_return(layout: Layout, n_out: int) -> list[str]:
    """The kernel's results ``_r`` (a tuple of ``n_out`` arrays of ``_n``
    elements) as the call's outputs, in the batch shape ``_shape``."""
    one = "_r[0]" if layout.kind == "scalar" else ("_r" if layout.kind == "tuple" else "list(_r)")
    if layout.kind == "scalar":
        many = "_r[0].reshape(_shape)"
    else:
        items = ", ".join(f"_r[{k}].reshape(_shape)" for k in range(n_out))
        many = f"({items},)" if layout.kind == "tuple" else f"[{items}]"
    return [
        "    if len(_shape) == 1:",
        f"        return {one}",
        f"    return {many}",
    ]


def _array_return(layout: Layout, n_out: int) -> list[str]:
    if layout.kind == "scalar":
        return ["    return _out[0].reshape(_shape)"]
    if layout.kind == "matrix":
        return [f"    return _out.reshape({layout.shape!r} + _shape)"]
    wrap = "tuple" if layout.kind == "tuple" else "list"
    if not 0 < n_out <= 8:
        return ["    return tuple(_rows(_out, _shape))" if wrap == "tuple"
                else "    return _rows(_out, _shape)"]
    items = ", ".join(f"_out[{k}].reshape(_shape)" for k in range(n_out))
    left, right = ("(", ",)" if n_out == 1 else ")") if wrap == "tuple" else ("[", "]")
    return [f"    return {left}{items}{right}"]
