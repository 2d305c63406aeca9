"""What the functions ``lambdify`` returns call at run time.

The generated module imports these (``from symgrad.codegen.runtime import
...``) instead of carrying their text: they are compiled once per process,
and read, linted and tested like the rest of the package.  This module
imports NumPy (and math) only and runs no code a user wrote: it converts and checks
arguments, cuts them into blocks, and computes ``hypot`` fast.

A function pickled with ``threads=1`` is loaded without symgrad (see
:mod:`symgrad.codegen.compiled`): the pickle then carries this module's
text, which is why it must stay self-contained.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["_arg", "_batch", "_flat", "_cut", "_fresh", "_hypot", "_f32", "_f64", "_nd",
           "_msin", "_mcos", "_msqrt", "_mhypot", "_sq", "_finite", "_pow", "_bad",
           "_add", "_sub", "_mul", "_div", "_neg", "_square", "_consts", "_sconsts", "_plain",
           "_D32", "_D64", "_typed", "_astype", "_scalars", "_rows", "_take", "_give",
           "_masked", "_outs", "ALIGN_FROM"]

_f32 = np.float32
_f64 = np.float64
_Z32 = _f32(0.0)
_Z64 = _f64(0.0)
_nd = np.ndarray
_D32 = np.dtype(np.float32)  # (the types of arrays: one object each, tested by identity)
_D64 = np.dtype(np.float64)

# The kernel's operators as the ufunc calls they make (printer.as_calls)
_add = np.add
_sub = np.subtract
_mul = np.multiply
_div = np.divide
_neg = np.negative
_square = np.square

# The one-point kernel's functions (see printer.PointPrinter): math's sin,
# cos and sqrt give the floats NumPy's give (tested), at a tenth of the cost
_msin = math.sin
_mcos = math.cos
_msqrt = math.sqrt
_finite = math.isfinite


def _sq(v):
    """``v*v``: the square NumPy's ``x**2`` computes (Python's ``v**2`` is
    ``pow``, an ulp off at times)."""
    return v * v


def _consts(cache, values, dtype):
    """The kernel's constants ``values`` as 0-d arrays of ``dtype`` (what
    NumPy makes of a Python number beside an array of that type, without
    making it at every call), kept in ``cache`` by the type's code."""
    k = tuple(np.array(v, dtype) for v in values)
    cache[dtype.char] = k
    return k


def _sconsts(cache, values, x):
    """The scalar kernel's constants ``values`` as scalars of ``x``'s type
    (what NumPy makes of a Python number beside such a scalar, made once),
    kept in ``cache`` by that type; where ``x`` is an array (a vector
    argument), 0-d arrays of its type, not kept."""
    if type(x) is _nd:
        return tuple(np.array(v, x.dtype) for v in values)
    k = tuple(np.array(v, x.dtype)[()] for v in values)
    cache[type(x)] = k
    return k


def _pow(b, e):
    """``b**e`` in NumPy float64 scalars (as the kernel on one point computes
    it) as a float, where ``math.pow`` neither raises (a negative base, zero
    to a negative power) nor overflows."""
    math.pow(b, e)
    return float(_f64(b) ** e)


# NumPy's error state (np.errstate, np.seterr) is this context variable's
# value (NumPy 2; None elsewhere: np.geterr at each call)
_errvar = getattr(getattr(getattr(np, "_core", None), "_ufunc_config", None),
                  "_extobj_contextvar", None)
_DEFAULT_ERR = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}
_STRICT = None
if _errvar is not None:  # the error state ignoring everything, set and reset by _hypot
    with np.errstate(all="ignore"):
        _IGNORE = _errvar.get()
    with np.errstate(all="ignore", over="raise"):  # (_hypot's squares of arrays)
        _OVER = _errvar.get()
    # (a short batch's NumPy lines, rows.py: where NumPy's default would warn)
    with np.errstate(divide="raise", over="raise", invalid="raise", under="ignore"):
        _STRICT = _errvar.get()
_err_seen = [None]  # the last error state found to be NumPy's default


def _plain():
    """Whether NumPy's error state is its default (warn; ignore underflow),
    where the one-point kernel may run: under another (``over="raise"``),
    an overflow on the way to a finite result, which Python's float
    arithmetic does not report, must raise as NumPy's scalars do.

    >>> _plain()
    True
    >>> with np.errstate(over="raise"):
    ...     _plain()
    False
    """
    if _errvar is None:
        return np.geterr() == _DEFAULT_ERR
    e = _errvar.get()
    if e is _err_seen[0]:
        return True
    if np.geterr() == _DEFAULT_ERR:
        _err_seen[0] = e
        return True
    return False


def _bad():
    """Raised by the one-point kernel where NumPy would warn: the entry
    point then runs the NumPy kernel."""
    raise ArithmeticError


def _arg(a, i, labels):
    """Argument ``i`` as a number or an array of numbers: a Python number as
    it is (weakly typed, as in NumPy's arithmetic: ``float32 * 0.5`` stays
    float32), an array as it is; anything with a float value (a SymPy number,
    Fraction, Decimal) as a float; anything else refused, naming it after
    ``labels[i]`` (the symbols of the argument).

    >>> _arg(0.5, 0, ("x",)), _arg(2, 0, ("x",))
    (0.5, 2)
    >>> _arg("1", 1, ("x", "y"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: argument 2 (y) is a str, not a number; pass numbers or arrays of numbers ...
    """
    t = type(a)
    if t is _nd and a.dtype.kind in "fiub" or t in (float, bool) \
            or t is int and -2**63 <= a < 2**63:
        return a
    if isinstance(a, np.generic) and a.dtype.kind in "fiubc":  # NumPy scalars
        return a
    if isinstance(a, np.ma.MaskedArray):
        _refuse(i, a, "a masked array, whose mask the result would lose; pass "
                      "a.filled(np.nan) to make masked points NaN", labels)
    if isinstance(a, (np.ndarray, np.generic)):
        kind = a.dtype.kind
        if kind in "fiubc":
            return a
        if kind != "O":
            _refuse(i, a, f"an array of {a.dtype}, not of numbers", labels)
    elif isinstance(a, complex):
        return a
    elif isinstance(a, (list, tuple)) or hasattr(a, "__array__") \
            or hasattr(a, "__array_interface__"):  # dask, pandas, a SymPy Matrix...
        return _arg(np.asarray(a), i, labels)
    else:
        return _float(a, i, labels)
    return np.array([_float(v, i, labels) for v in a.ravel()], float).reshape(a.shape)


def _float(v, i, labels):
    """``v`` as a float, through its ``__float__`` (strings and None have none)."""
    try:
        return type(v).__float__(v)
    except AttributeError:
        _refuse(i, v, f"a {type(v).__name__}, not a number", labels)
    except (TypeError, ValueError) as err:  # a SymPy symbol: not a number
        _refuse(i, v, f"{v!s:.60} ({type(v).__name__}), not a number ({err})", labels)
    except OverflowError:
        _refuse(i, v, "too large for a float (float64 ends at 1.8e308)", labels)


def _refuse(i, a, what, labels):
    raise TypeError(
        f"argument {i + 1} ({labels[i]}) is {what}; pass numbers or arrays of numbers "
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


def _typed(r, dtype) -> bool:
    """Whether every result of ``r`` has type ``dtype`` (the entry point
    calls this and the three below where it would write a generator, which
    makes the names it reads closure cells of the whole entry point: seven
    cells allocated on every call, 0.1-0.2 us of a one-point call)."""
    return all(v.dtype is dtype for v in r)


def _astype(r, dtype) -> tuple:
    """The results ``r`` converted to ``dtype``."""
    return tuple(v.astype(dtype) for v in r)


def _scalars(r, dtype) -> list:
    """The results ``r`` of one point as NumPy scalars of ``dtype``."""
    return [np.asarray(v, dtype)[()] for v in r]


def _rows(out, shape) -> list:
    """The rows of ``out`` in the batch ``shape``."""
    return [o.reshape(shape) for o in out]


# The scratch arrays of the kernels written in place (codegen.inplace): sets
# of them free for use, by (length, type code, count); a call takes a set
# and gives it back after, so a set is never in two calls at once (threads,
# a kernel calling back into another), and a block of a long call writes
# into arrays already paged in: a new array of a block's 128 kB is mapped
# and touched page by page at every allocation.  At most 2 sets a key, and
# SCRATCH_BYTES in all (past it the sets are dropped and made again).
_SCRATCH: dict = {}
SCRATCH_BYTES = 64 * 2**20
_scratch_bytes = [0]


# Arrays of this many bytes up that the kernels write (the outputs of a call
# of blocks, the scratch arrays of the kernels written in place) start at a
# multiple of 64 bytes.  A ufunc writing an array of 10^4 or more float32 or
# float64 elements whose data is not so aligned ran 1.7-2x slower (add of
# 32,768 float32 elements: 4.4 us into an aligned array, 8.8 us at 4, 16 or
# 32 bytes past it; where the operands start does not matter), and NumPy's
# arrays start at 0, 16, 32 or 48 bytes past a multiple of 64, each as
# likely (measured 2026-11-28, AVX-512 stores).  The same loops run on the
# same values: the floats are the same.
ALIGN_FROM = 16384


def _aligned(n, dtype):
    """A new array of ``n`` elements of ``dtype`` whose data starts at a
    multiple of 64 bytes (where the type's size divides 64).

    >>> a = _aligned(1000, np.dtype(np.float32))
    >>> a.shape, a.ctypes.data % 64
    ((1000,), 0)
    """
    size = dtype.itemsize
    if 64 % size:
        return np.empty(n, dtype)
    base = np.empty(n + 64 // size, dtype)
    return base[(-base.ctypes.data % 64) // size:][:n]


def _outs(k, n, dtype):
    """The outputs of a call of ``n`` elements a row: a new ``(k, n)`` array,
    each row starting at a multiple of 64 bytes where a row takes
    ``ALIGN_FROM`` bytes or more (and the type's size divides 64).

    >>> o = _outs(2, 5000, np.dtype(np.float64))
    >>> o.shape, o[0].ctypes.data % 64, o[1].ctypes.data % 64, o[1].flags.c_contiguous
    ((2, 5000), 0, 0, True)
    """
    size = dtype.itemsize
    if n * size < ALIGN_FROM or 64 % size:
        return np.empty((k, n), dtype)
    row = -(-n * size // 64) * (64 // size)  # (n, up to a multiple of 64 bytes)
    base = np.empty(k * row + 64 // size, dtype)
    start = (-base.ctypes.data % 64) // size
    return base[start:start + k * row].reshape(k, row)[:, :n]


def _take(like, k):
    """``k`` scratch arrays of the length (last axis) and type of ``like``:
    a set given back before, else new ones.

    >>> b = _take(np.zeros((2, 5), np.float32), 3)
    >>> len(b), b[0].shape, b[0].dtype
    (3, (5,), dtype('float32'))
    >>> _give(b); _take(np.zeros(5, np.float32), 3) is b
    True
    """
    n = like.shape[-1]
    free = _SCRATCH.get((n, like.dtype.char, k))
    if free:
        try:
            return free.pop()
        except IndexError:  # (another thread took the last one)
            pass
    return tuple([_aligned(n, like.dtype) for _ in range(k)])


def _give(b):
    """Give the scratch arrays ``b`` (from :func:`_take`) back."""
    a = b[0]
    key = (a.shape[0], a.dtype.char, len(b))
    free = _SCRATCH.get(key)
    if free is None:
        size = 2 * len(b) * a.nbytes
        if _scratch_bytes[0] + size > SCRATCH_BYTES:
            _SCRATCH.clear()
            _scratch_bytes[0] = 0
            if size > SCRATCH_BYTES:
                return
        _scratch_bytes[0] += size
        free = _SCRATCH.setdefault(key, [])
    if len(free) < 2:
        free.append(b)


def _fresh(r, n, dtype):
    """Whether the kernel's results ``r`` (new arrays, as the generated code
    knows) can be the call's outputs as they are: arrays of ``n`` elements
    of ``dtype`` (a result that depends on a single point only, or that a
    function computed in another type, is copied into the outputs instead).

    >>> a = np.zeros(3)
    >>> _fresh((a, a + 1), 3, a.dtype), _fresh((a, np.float64(1)), 3, a.dtype)
    (True, False)
    """
    for v in r:
        if type(v) is not _nd or v.dtype is not dtype or v.shape != (n,):
            return False
    return True


# hypot(a, b), per element: sqrt(a*a + b*b), the squares and their sum in
# the arguments' type, where that sum is at least HYPOT_LOW (no square lost
# bits below the normal range: they are then exact to 2p bits there) and
# finite; np.hypot elsewhere (the far ends of the range, infinities, NaN).
# One formula for a value whatever the batch it is in (one point, a block
# of any length, beside any other rows: a point's value must not depend on
# them); the square root path is within 1.2 ulp of the truth.
def _hypot_low(dtype) -> float:
    """The least sum of squares the square root path takes, in ``dtype``
    (its smallest normal number times 2**(2*p), p its precision)."""
    fi = np.finfo(dtype)
    return float(fi.tiny) * 2.0 ** (2 * (fi.nmant + 1))


_LOW64, _MAX64 = _hypot_low(np.float64), float(np.finfo(np.float64).max)
_LOW32, _MAX32 = _hypot_low(np.float32), float(np.finfo(np.float32).max)
_LIMITS = {}  # type code -> (low, max) as scalars of that type
# the native float types -> HYPOT_LOW as a scalar of that type and as a 0-d
# array (a ufunc compares an array to a 0-d array faster than to a scalar),
# where _hypot takes its arrays' path (NumPy 2's error state: its overflow
# flag read)
_LOW_ND = {} if _errvar is None else {
    np.dtype(t): (np.dtype(t).type(_hypot_low(np.dtype(t))),
                  np.array(_hypot_low(np.dtype(t)), t))
    for t in (np.float16, np.float32, np.float64, np.longdouble)}
# kept for the callers that sized batches by them (stability.depth)
HYPOT_SMALL = 256
HYPOT_SMALL_32 = 2048


def _limits(dtype) -> tuple:
    k = _LIMITS.get(dtype.char)
    if k is None:
        k = _LIMITS[dtype.char] = (dtype.type(_hypot_low(dtype)), np.finfo(dtype).max)
    return k


def _mhypot(a, b):
    """hypot of two Python floats (the one-point kernel): the square root
    path, or ArithmeticError where the formula is np.hypot's (the entry
    point then runs the kernel on NumPy scalars).

    >>> _mhypot(3.0, 4.0)
    5.0
    """
    s = a * a + b * b
    if _LOW64 <= s <= _MAX64:
        return _msqrt(s)
    raise ArithmeticError


def _hypot(a, b):
    """``hypot(a, b)`` at about the cost of a square root, per element
    ``sqrt(a*a + b*b)`` where that sum is in range, ``np.hypot`` elsewhere.

    ``np.hypot`` costs 15 times ``np.sqrt`` (it is not vectorized).  Where
    the sum of the squares (in the arguments' type) is at least HYPOT_LOW
    and finite, ``sqrt`` of it is within 1.2 ulp of the truth and 1 ulp of
    ``np.hypot``; elsewhere (a square overflowed or lost bits as a
    subnormal, an infinity, a NaN) the element is ``np.hypot``'s.  The
    choice is the element's own: a value does not depend on the other
    elements or on how many there are.  The squares' overflow is not the
    caller's: it raises no warning.

    >>> _hypot(3.0, 4.0), _hypot(np.full(600, 3.0), 4.0)[0]
    (np.float64(5.0), np.float64(5.0))
    """
    t = type(a)
    if t is _nd and type(b) is _nd:  # (the kernels' case: arrays of one type and shape)
        low = _LOW_ND.get(a.dtype)
        if low is not None and b.dtype is a.dtype and a.shape == b.shape and a.ndim and a.size:
            # NumPy raises on the overflow flag of a square or of the sum,
            # in this one error state (the others ignored): with no
            # overflow, every sum is finite but where an operand is
            # infinite, whose square root is np.hypot's infinity (an
            # infinite operand beside NaN has a NaN sum, which the test
            # of the least sum below finds): no test of the largest
            token = _errvar.set(_OVER)
            try:
                s = _square(a)
                _add(s, _square(b), s)
            except FloatingPointError:
                s = None
            finally:
                _errvar.reset(token)
            # every sum at least HYPOT_LOW (NaN is not): below 8,192 elements
            # counted (a comparison and a count cost half a reduction there),
            # from there the least sum (the reduction costs less): one test
            if s is not None and (_count(_ge(s, low[1])) == s.size
                                  if s.size < 8192 else low[0] <= _min(s, None)):
                return _sqrt(s, s)
    if t is _f64 and type(b) is t:  # (the same float64 arithmetic in Python floats)
        fa, fb = float(a), float(b)
        s = fa * fa + fb * fb
        if _LOW64 <= s <= _MAX64:
            return _Z64 + _msqrt(s)
        return _np_hypot(a, b)
    if t is _f32 and type(b) is t:
        fa = float(a)  # (their squares exact in float64)
        fb = float(b)
        p = fa * fa
        q = fb * fb
        if (_TINY32 <= p <= _QMAX32 or p == 0) and (_TINY32 <= q <= _QMAX32 or q == 0) \
                and _LOW32_2 <= p + q <= _HALF32:
            # (no float32 square or sum below can leave the normal range, and
            # the sum is in range: a float32 square root, correctly rounded)
            return _Z32 + _msqrt(float(a * a + b * b))
    if _errvar is None:
        with np.errstate(all="ignore"):
            s = a * a + b * b
    else:
        token = _errvar.set(_IGNORE)
        try:
            s = _squares(a, b)
        finally:
            _errvar.reset(token)
    dt = getattr(s, "dtype", None)
    if dt is None or dt.kind != "f":  # (integers: squares wrap around; Python numbers)
        return _np_hypot(a, b)
    low, high = _limits(dt)
    if type(s) is _nd and s.size and low <= _min(s, None) and _max(s, None) <= high:
        return _sqrt(s, s)
    ok = (s >= low) & (s <= high)  # (NaN: False)
    if type(s) is _nd:
        r = _sqrt(s, s, where=ok)
    else:
        r = _sqrt(s) if ok else s
    return np.where(ok, r, _np_hypot(a, b))[()] if not ok.all() else r


def _squares(a, b):
    """``a*a + b*b`` in NumPy's arithmetic (operators: a Python float stays
    weakly typed, as in np.hypot), the sum in place where it can be."""
    s = a * a
    q = b * b
    if type(s) is _nd and type(q) is _nd and q.dtype is s.dtype and q.shape == s.shape:
        return _add(s, q, s)
    return s + q  # (mixed types or shapes: NumPy's promotion and broadcasting)


_TINY32 = float(np.finfo(np.float32).tiny)
_QMAX32 = _MAX32 / 4
_LOW32_2, _HALF32 = 2 * _LOW32, _MAX32 / 2  # (the float32 scalars' bounds on the sum)
_np_hypot = np.hypot
_min = np.minimum.reduce
_ge = np.greater_equal
# the number of true elements of a boolean array: NumPy's C function where
# it can be reached (np.count_nonzero's Python wrapper costs 0.15 us more)
_count = getattr(getattr(getattr(np, "_core", None), "multiarray", None), "count_nonzero",
                 np.count_nonzero)
_max = np.maximum.reduce
_sqrt = np.sqrt
_inf = np.inf


def _at_rows(v, idx, shape):
    """``v`` (an array over the rows ``shape``, a pair of them, or one value
    for all) at the flat rows ``idx``."""
    if type(v) is tuple:
        return tuple(_at_rows(p, idx, shape) for p in v)
    if type(v) is not _nd or not v.ndim:
        return v
    if v.shape != shape:
        v = np.broadcast_to(v, shape)
    return v.reshape(-1)[idx]


def _floats_of(v):
    """The arrays of a branch input: ``v`` itself, or those of a pair, or of
    a tuple of pairs (a ``sincos`` pair's sine and cosine), at any depth."""
    if type(v) is not tuple:
        return (v,)
    out, todo = [], list(v)
    while todo:
        p = todo.pop()
        if type(p) is tuple:
            todo.extend(p)
        else:
            out.append(p)
    return out


def _masked(conds, branches, like):
    """A ``Piecewise`` computed branch by branch, each only at the rows that
    take it (:mod:`symgrad.codegen.regions`): ``conds`` its conditions (the
    last True), ``branches`` per condition ``(fn, inputs)``: the branch's
    function of its inputs (None: its value is its one input); ``like`` a
    value of the type every branch's value has (or a pair of them).  The
    floats of ``np.where`` over the whole rows (every operation is
    elementwise), in its type.

    >>> x = np.array([-2.0, 3.0, -0.5])
    >>> twice = lambda v: (v * 2,)
    >>> _masked((x < 0, True), ((twice, (x,)), (None, (x,))), x)
    array([-4.,  3., -1.])
    """
    shape = np.broadcast_shapes(
        *(np.shape(c) for c in conds),
        *(np.shape(p) for _, vs in branches for v in vs for p in _floats_of(v)))
    n = 1
    for d in shape:
        n *= d
    while type(like) is tuple:  # (a pair, or pairs: their first float)
        like = like[0]
    out = np.empty(n, np.result_type(like))
    left = None  # the rows no condition has taken yet (None: all)
    with np.errstate(all="ignore"):
        for c, (fn, vs) in zip(conds, branches):
            if c is True:
                now = left
            else:
                c = np.broadcast_to(np.asarray(c, bool), shape).reshape(-1)
                now = c if left is None else c & left
            idx = None if now is None else np.flatnonzero(now)
            if idx is not None and len(idx) == n:
                idx = None  # (every row: no copy)
            if idx is not None and not len(idx):
                continue
            if idx is None:
                out.reshape(shape)[...] = vs[0] if fn is None else fn(*vs)[0]
                break
            if fn is None:
                out[idx] = _at_rows(vs[0], idx, shape)
            else:
                out[idx] = fn(*(_at_rows(v, idx, shape) for v in vs))[0]
            if c is True:
                break
            left = ~c if left is None else left & ~c
            if not left.any():
                break
    return out.reshape(shape)
