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
    "Param", "Layout", "kernel_source", "entry_source", "block_step", "HELPERS", "ENTRY_NAMES",
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
) -> str:
    """A plain function: numpy in, numpy out, broadcasting like NumPy.

    ``layout=None`` returns the flat tuple of results (the blocked entry
    point's kernel).
    """
    lines = [f"def {name}({', '.join(p.name for p in params)}):", f'    """{doc}"""']
    lines += _renames(params, leaf_names)
    lines += _unpack(params, leaf_names)
    lines += prog.body()
    if layout is None:
        tail = "," if len(prog.results) == 1 else ""
        if len(prog.results) > 4:
            lines += ["    return (", *_wrap(prog.results, "        "), "    )"]
        else:
            lines.append(f"    return ({', '.join(prog.results)}{tail})")
    else:
        lines += _structured_return(prog.results, layout)
    return "\n".join(lines) + "\n"


HELPERS = '''\
def _arg(a, i):
    """Argument ``i`` as a number or an array of numbers: a Python number as
    it is (weakly typed, as in NumPy's arithmetic: ``float32 * 0.5`` stays
    float32), an array as it is; anything with a float value (a SymPy number,
    Fraction, Decimal) as a float; anything else refused, naming it."""
    t = type(a)
    if t is np.ndarray and a.dtype.kind in "fiub" or t in (float, bool) \
            or t is int and -2**63 <= a < 2**63:
        return a
    if isinstance(a, np.generic) and a.dtype.kind in "fiubc":  # NumPy scalars
        return a
    if isinstance(a, np.ma.MaskedArray):
        _refuse(i, a, "a masked array, whose mask the result would lose; pass "
                      "a.filled(np.nan) to make masked points NaN")
    if isinstance(a, (np.ndarray, np.generic)):
        kind = a.dtype.kind
        if kind in "fiubc":
            return a
        if kind != "O":
            _refuse(i, a, f"an array of {a.dtype}, not of numbers")
    elif isinstance(a, complex):
        return a
    elif isinstance(a, (list, tuple)) or hasattr(a, "__array__") \
            or hasattr(a, "__array_interface__"):  # dask, pandas, a SymPy Matrix...
        return _arg(np.asarray(a), i)
    else:
        return _float(a, i)
    return np.array([_float(v, i) for v in a.ravel()], float).reshape(a.shape)


def _float(v, i):
    """``v`` as a float, through its ``__float__`` (strings and None have none)."""
    try:
        return type(v).__float__(v)
    except AttributeError:
        _refuse(i, v, f"a {type(v).__name__}, not a number")
    except (TypeError, ValueError) as err:  # a SymPy symbol: not a number
        _refuse(i, v, f"{v!s:.60} ({type(v).__name__}), not a number ({err})")
    except OverflowError:
        _refuse(i, v, "too large for a float (float64 ends at 1.8e308)")


def _refuse(i, a, what):
    raise TypeError(
        f"argument {i + 1} ({_ARGS[i]}) is {what}; pass numbers or arrays of numbers "
        "(a SymPy expression: substitute values with expr.subs, or evaluate it first)"
    )


def _batch(a, lead, name):
    """The batch shape of argument ``a``, whose leading axes must be ``lead``."""
    if a.shape[:len(lead)] != lead:
        raise ValueError(
            f"argument {name} has shape {a.shape}; it must start with {lead} "
            "(one entry per symbol), followed by any batch shape"
        )
    return a.shape[len(lead):]


def _flat(a, lead, shape, n, dtype):
    """``a`` in ``dtype`` with its batch axes broadcast to ``shape`` and
    flattened (a view where possible); a single point stays as it is."""
    a = a.astype(dtype, copy=False)
    if a.shape[len(lead):] == shape:
        return a.reshape(lead + (n,))
    if a.size == int(np.prod(lead)):
        return a.reshape(lead)
    return np.broadcast_to(a, lead + shape).reshape(lead + (n,))


def _cut(a, lead, s, e):
    """Elements ``s:e`` of a flattened argument (all of a single point)."""
    return a[..., s:e] if a.ndim > lead else a


_f64 = np.float64

_pool = None  # an executor with .map() to run blocks on threads; None: serially
'''


# Names the entry point and the module around it use; lambdify gives no
# argument one of these, so an argument never shadows them.
ENTRY_NAMES = frozenset({
    "_batch", "_flat", "_cut", "_arg", "_float", "_refuse", "_ARGS", "_pool", "_f64",
    "_dtype", "_odtype", "_shape", "_n", "_out", "_run", "_s", "_e", "_r", "_starts", "_v",
    "_o", "_step",
})


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
) -> str:
    """The function ``lambdify`` returns: converts and broadcasts the
    arguments, then runs ``kernel`` over blocks into preallocated outputs
    (complex ones where ``complex_``: the formula holds ``I``).  ``live``:
    the arrays the kernel holds at once (``Program.max_live``), which
    bounds the block length (:func:`block_step`)."""
    names = [p.name for p in params]
    sig = ", ".join(names)
    how = f"in blocks of {block} elements" if block else "in one pass"
    labels = tuple(_label(p) for p in params)
    lines = [
        f"_ARGS = {labels!r}  # the symbols of each argument, for error messages",
        "",
        "",
        f"def {name}({sig}):",
        f'    """Evaluate on NumPy arrays (broadcasting like NumPy), {how}."""',
    ]
    if not dtype and not complex_ and params and not any(p.vector for p in params):
        lines += _python_floats(kernel, names, layout, n_out)
    # Python numbers stay weakly typed, as in NumPy's own arithmetic
    for i, p in enumerate(params):
        lines.append(f"    {p.name} = _arg({p.name}, {i})")
    if dtype:
        lines.append(f"    _dtype = np.dtype({dtype!r})")
    else:
        lines.append(f"    _dtype = np.result_type({', '.join([*names, '1.0'])})")
    # the arguments are evaluated in _dtype (real: symbols are real), the
    # results stored in _odtype, complex when the formula holds I
    odtype = "np.result_type(_dtype, 1j)" if complex_ else "_dtype"
    lines.append(f"    _odtype = {odtype}")
    for p in params:
        lines.append(f"    {p.name} = np.asarray({p.name})")
    shapes = [
        f"_batch({p.name}, {p.lead!r}, {p.name!r})" if p.vector else f"{p.name}.shape"
        for p in params
    ]
    lines.append(f"    _shape = np.broadcast_shapes({', '.join(shapes)})")
    # a single point: NumPy scalars, no arrays at all
    lines.append("    if not _shape:")
    scal = [
        f"{p.name}.astype(_dtype)" if p.vector else f"{p.name}.astype(_dtype)[()]"
        for p in params
    ]
    lines.append(f"        _r = {kernel}({', '.join(scal)})")
    lines += _scalar_return(layout)
    lines.append("    _n = int(np.prod(_shape))")
    for p in params:
        lines.append(f"    {p.name} = _flat({p.name}, {p.lead!r}, _shape, _n, _dtype)")
    lines.append(f"    _out = np.empty(({n_out}, _n), _odtype)")
    if block:
        lines.append(f"    _step = {block_step(block, live)}")
    else:
        lines.append("    _step = max(_n, 1)")
    step = "_step"
    cuts = ", ".join(f"_cut({p.name}, {len(p.lead)}, _s, _e)" for p in params)
    lines.append("")
    lines.append("    def _run(_s):")
    lines.append(f"        _e = _s + {step}")
    lines.append(f"        _r = {kernel}({cuts})")
    for k in range(n_out):
        lines.append(f"        _out[{k}, _s:_e] = _r[{k}]")
    lines.append("")
    lines.append(f"    _starts = range(0, _n, {step})")
    lines.append("    if _pool is None or len(_starts) < 4:")
    lines.append("        for _s in _starts:")
    lines.append("            _run(_s)")
    lines.append("    else:  # blocks on worker threads: NumPy releases the GIL in its loops")
    lines.append("        for _ in _pool.map(_run, _starts):")
    lines.append("            pass")
    lines += _array_return(layout)
    return "\n".join(lines) + "\n"


def _python_floats(kernel: str, names: list[str], layout: Layout, n_out: int) -> list[str]:
    """One point given as Python floats: the kernel on float64 scalars at
    once, without the arrays, checks and broadcasting of the general path
    (the same values: that path makes the same float64 scalars)."""
    test = " and ".join(f"type({n}) is float" for n in names)
    call = f"{kernel}({', '.join(f'_f64({n})' for n in names)})"
    if layout.kind == "scalar":
        return [f"    if {test}:", f"        return _f64({call}[0])"]
    lines = [f"    if {test}:", f"        _r = {call}"]
    if layout.kind == "matrix":
        return lines + [f"        return np.array(_r, _f64).reshape({layout.shape!r})"]
    items = [f"_f64(_r[{k}])" for k in range(n_out)]
    if layout.kind == "tuple":
        return lines + [f"        return ({', '.join(items)}{',' if n_out == 1 else ''})"]
    return lines + [f"        return [{', '.join(items)}]"]


def _scalar_return(layout: Layout) -> list[str]:
    if layout.kind == "scalar":
        return ["        return np.asarray(_r[0], _odtype)[()]"]
    if layout.kind == "matrix":
        return [f"        return np.array(_r, _odtype).reshape({layout.shape!r})"]
    wrap = "tuple" if layout.kind == "tuple" else "list"
    return [f"        return {wrap}(np.asarray(_v, _odtype)[()] for _v in _r)"]


def _array_return(layout: Layout) -> list[str]:
    if layout.kind == "scalar":
        return ["    return _out[0].reshape(_shape)"]
    if layout.kind == "matrix":
        return [f"    return _out.reshape({layout.shape!r} + _shape)"]
    wrap = "tuple" if layout.kind == "tuple" else "list"
    return [f"    return {wrap}(_o.reshape(_shape) for _o in _out)"]
