"""What the code of ``widen(u)`` calls (:mod:`symgrad.codegen.widening`).

Real code, linted and tested here; a generated module carries this text
(after this docstring and the imports) so that ``numpy_code`` stays
NumPy-only and a pickled function loads without symgrad.
"""

import numpy as np

# widen(): subtrees computed in the next wider float type.  _LONG is the
# 80-bit x87 type where NumPy's long double is one (x86-64 Linux), else float64.
_LONG = np.longdouble if np.finfo(np.longdouble).nmant > 52 else np.float64
_CLONG = np.clongdouble if _LONG is np.longdouble else np.complex128
_WIDER = {
    np.dtype(np.float16): np.dtype(np.float32), np.dtype(np.float32): np.dtype(np.float64),
    np.dtype(np.float64): np.dtype(_LONG), np.dtype(np.complex64): np.dtype(np.complex128),
    np.dtype(np.complex128): np.dtype(_CLONG),
}


def _up(a):
    """``a`` in the next wider float type."""
    t = np.result_type(a, 1.0)
    return np.asarray(a, _WIDER.get(t, t))[()]


def _down(v, *like):
    """``v`` in the type of the inputs ``like`` (complex if ``v`` is)."""
    t = np.result_type(*like, 1.0)
    if np.iscomplexobj(v) and t.kind != "c":
        t = np.result_type(t, 1j)
    return np.asarray(v, t)[()]


def _d64(a):
    """``a`` for scipy.special, which has no long double loops: float64."""
    t = np.result_type(a)
    return np.asarray(a, np.complex128 if t.kind == "c" else np.float64)[()] \
        if t.itemsize > (16 if t.kind == "c" else 8) else a
