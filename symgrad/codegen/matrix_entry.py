"""What lambdify's code of a matrix formula adds (:mod:`symgrad.codegen.matrix`):
NumPy only, unlike :mod:`.matrix_helpers`, whose text the export shares.

Real code, linted and tested here; a generated module carries this text
(after this docstring and the imports).  The entry converts the arguments
to their common float type and runs the kernel on blocks of the first
batch axis (``_dtype``, ``_blocked``); inside a block, arrays the kernel
allocated and no longer needs are written into instead of allocating new
ones (``_ip``, ``_exp_shift_into``): a fresh array of more than a few pages
costs more than the arithmetic on it (page faults), and a block's arrays
then stay in the cache.
"""

import numpy as np


def _ip(op, a, b):
    """op(a, b), written into ``a`` (an array the kernel allocated and no
    longer reads) when it has the result's shape and type."""
    if a.flags.owndata and a.flags.writeable:
        try:
            return op(a, b, out=a, casting="no")
        except (ValueError, TypeError):  # broadcast to a larger shape, or another type
            pass
    return op(a, b)


def _exp_shift_into(a, m):
    """_exp_shift(a, m) (see there) with three arrays allocated, not nine."""
    d = a - m
    b = d - a
    t = d - b
    np.subtract(a, t, out=t)
    np.add(m, b, out=b)
    np.subtract(t, b, out=t)
    np.fmin(t, 1.0, out=t)
    t += 1.0
    np.exp(d, out=d)
    d *= t
    return d


def _dtype(args, dt):
    """The float type to compute in: ``dt`` if given, else the arguments'
    common floating type (float32 stays float32; a Python number is weakly
    typed, as in NumPy's arithmetic; integers count as float64)."""
    if dt is not None:
        return np.dtype(dt)
    kinds = []
    for a in args:
        if isinstance(a, (bool, int, float)):
            continue
        t = np.asarray(a).dtype
        kinds.append(t if t.kind == "f" else np.dtype(np.float64))
    return np.result_type(*kinds) if kinds else np.dtype(np.float64)


def _blocked(kernel, args, dt, cells, block):
    """``kernel(*args, dt)`` computed ``rows`` of the first batch axis at a
    time into preallocated outputs, so that its temporaries (``cells``
    entries a batch element at the most, ``block`` entries in all) stay in
    the cache; in one call when there is no batch axis or few rows.  Every
    node of a matrix program maps batch elements to batch elements, so the
    blocks are independent."""
    lead = len(np.broadcast_shapes(*[a.shape[:-2] for a in args]))
    if block is None or lead == 0:
        return kernel(*args, dt)
    n = max(a.shape[0] for a in args if a.ndim - 2 == lead)
    inner = 1
    for a in args:
        if a.ndim - 2 == lead:
            inner = max(inner, int(np.prod(a.shape[1:-2], dtype=np.int64)))
    rows = max(2, block // (cells * inner))
    if n < 2 * rows:
        return kernel(*args, dt)

    def part(s):
        return [a[s:s + rows] if a.ndim - 2 == lead and a.shape[0] == n else a for a in args]

    first = kernel(*part(0), dt)
    full = []
    for o in first:
        if o.ndim - 2 == lead and o.shape[0] == rows:  # batched (else the same for all)
            f = np.empty((n,) + o.shape[1:], o.dtype)
            f[:rows] = o
            full.append(f)
        else:
            full.append(None)
    for s in range(rows, n, rows):
        got = kernel(*part(s), dt)
        for f, o in zip(full, got):
            if f is not None:
                f[s:s + rows] = o
    return tuple(o if f is None else f for f, o in zip(full, first))
