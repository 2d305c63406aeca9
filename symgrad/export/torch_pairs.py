"""The NumPy names symgrad's compensated-arithmetic helpers
(:mod:`symgrad.codegen.compensated_helpers`) call, over PyTorch tensors:
generated PyTorch code runs those helpers' text with ``np.`` read as this
module (``_tnp.``), so ``compensated(u)`` is computed in pairs of floats as
NumPy's code computes it.  Forward values only."""

from __future__ import annotations

import builtins
import math

import numpy as np
import torch

__all__ = ["dtype", "finfo", "result_type", "where", "isfinite", "abs", "float_pair", "rint",
           "exp2", "exp", "log", "zeros_like", "log1p", "floor", "sin", "cos", "arctan", "sqrt",
           "const_pair", "fused", "product_error", "finite", "exp_table", "index", "take",
           "isinf", "eager", "all_finite", "fmod", "minimum", "maximum"]


class _Type:
    """A float type as the helpers use one: ``type(v)`` makes a constant of
    it (a Python float, which PyTorch computes in the tensor's type)."""

    def __init__(self, t: torch.dtype) -> None:
        self.t = t

    @staticmethod
    def type(v: float) -> float:
        return float(v)


class _Finfo:
    def __init__(self, t: torch.dtype) -> None:
        fi = torch.finfo(t)
        self.nmant = round(-math.log2(fi.eps))  # bits after the point: 52, 23
        self.tiny, self.max = fi.tiny, fi.max
        self.maxexp = round(math.log2(fi.max))  # 1024, 128: as NumPy's finfo


def dtype(t) -> _Type:
    return t if isinstance(t, _Type) else _Type(t)


def finfo(t) -> _Finfo:
    return _Finfo(t.t if isinstance(t, _Type) else t)


def result_type(*values) -> torch.dtype:
    """The floating type of the tensors among ``values`` (PyTorch's default if none)."""
    ts = [v.dtype for v in values if isinstance(v, torch.Tensor)]
    if not ts:
        return torch.get_default_dtype()
    dt = ts[0]
    for t in ts[1:]:
        dt = torch.promote_types(dt, t)
    return dt if dt.is_floating_point else torch.get_default_dtype()


def where(cond, a, b):
    return torch.where(cond, a, b)


def fmod(a, m):
    return torch.fmod(a, m)


def minimum(a, b):
    return torch.clamp(a, max=b)  # (b a float: the split's bound; NaN stays NaN)


def maximum(a, b):
    return torch.clamp(a, min=b)


def finite(e):
    """``e``, 0 where it is not finite: ``where(isfinite(e), e, 0)`` in one
    operation on tensors (torch.isfinite is four, then the select: per
    32,768 float64 at load 3-7, 16-25 us against 120-140).

    >>> finite(torch.tensor([1.5, float("inf"), -float("inf"), float("nan"), -0.0]))
    tensor([1.5000, 0.0000, 0.0000, 0.0000, -0.0000])
    """
    if isinstance(e, torch.Tensor) and e.dtype.is_floating_point:
        return torch.nan_to_num(e, nan=0.0, posinf=0.0, neginf=0.0)
    return where(isfinite(e), e, 0)


def isfinite(a):
    return torch.isfinite(a) if isinstance(a, torch.Tensor) else torch.tensor(math.isfinite(a))


def eager(*values) -> bool:
    """Whether each of ``values`` is a number or a plain CPU tensor outside any
    tracing (torch.compile, torch.jit, torch.func): data may then decide
    which form of a helper runs, as in NumPy's helpers (a rare case's
    selections computed only where some point needs them).

    >>> eager(torch.ones(2), 1.0), eager(torch.ones(2, device="meta"))
    (True, False)
    """
    if torch.compiler.is_compiling() or torch.jit.is_tracing():
        return False
    wrapped = getattr(torch._C._functorch, "is_functorch_wrapped_tensor", None)
    for v in values:
        if isinstance(v, torch.Tensor) and (type(v) is not torch.Tensor or v.device.type != "cpu"
                                            or wrapped is None or wrapped(v)):
            return False
    return True


def all_finite(v) -> bool:
    """Whether every element of the tensor ``v`` is finite, read from their
    sum (one pass, no temporary: 0.3 ms per 10^6 float64, ``isfinite(v).all()``
    3.3; a sum that overflows reads False, which only sends the caller to
    its general form).

    >>> all_finite(torch.tensor([1.0, -2.0])), all_finite(torch.tensor([1.0, float("nan")]))
    (True, False)
    """
    return math.isfinite(v.sum())


def isinf(a):
    return torch.isinf(a)


def abs(a):  # noqa: A001  (NumPy's name)
    # (a number too: the selected pair quotient's constant numerator, -2*c/...)
    return torch.abs(a) if isinstance(a, torch.Tensor) else builtins.abs(a)


def zeros_like(a):
    return torch.zeros_like(a)


def rint(a):
    return torch.round(a)  # (halves to even, as NumPy's rint)


def exp2(a):
    return torch.exp2(a)


def exp(a):
    return torch.exp(a)


def log(a):
    return torch.log(a)


def log1p(a):
    return torch.log1p(a)


def floor(a):
    return torch.floor(a)


def sin(a):
    return torch.sin(a)


def cos(a):
    return torch.cos(a)


def arctan(a):
    return torch.atan(a)


def sqrt(a):
    if isinstance(a, torch.Tensor):
        return torch.sqrt(a)
    return math.sqrt(a) if a >= 0 else math.nan  # (NumPy's NaN, not ValueError)


def float_pair(h: float, lo: float, t: torch.dtype) -> tuple[float, float]:
    """The constant h + lo (float64s) as two Python floats that ``t`` holds."""
    npt = np.float32 if torch.finfo(t).bits <= 32 else np.float64
    hi = float(npt(h))
    return hi, float(npt((h - hi) + lo))


def const_pair(h: float, lo: float, t: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """The constant h + lo as a pair of 0-d tensors of ``t`` (a Python float
    would be taken for a literal of at most 11 bits by Dekker's split)."""
    hi, low = float_pair(h, lo, t)
    # on the CPU whatever the default device: a 0-d CPU tensor combines with a
    # tensor of any device, and the helpers cache these per type
    return torch.tensor(hi, dtype=t, device="cpu"), torch.tensor(low, dtype=t, device="cpu")


# whether torch.addcmul rounds once, per (device, float type): checked on first use
_FUSED: dict = {}


def fused(a, b) -> bool:
    """Whether the exact error of a*b may be taken as ``addcmul(-(a*b), a, b)``
    (:func:`product_error`): both plain eager tensors of one device and float
    type (no torch.compile, torch.func or other tracing: they get Dekker's
    products, whose operations they fuse) on which ``torch.addcmul`` is
    checked to round once (a fused multiply-add: PyTorch does not promise it,
    so it is measured on that device and type the first time, on 67 products
    that cover a vector loop and its scalar tail)."""
    if type(a) is not torch.Tensor or type(b) is not torch.Tensor \
            or a.dtype != b.dtype or a.device != b.device or not a.dtype.is_floating_point \
            or torch.compiler.is_compiling() or torch.jit.is_tracing():
        return False
    wrapped = getattr(torch._C._functorch, "is_functorch_wrapped_tensor", None)
    if wrapped is None or wrapped(a) or wrapped(b):
        return False
    key = (a.device, a.dtype)
    if key not in _FUSED:
        _FUSED[key] = _rounds_once(a.device, a.dtype)
    return _FUSED[key]


def _rounds_once(device: torch.device, t: torch.dtype) -> bool:
    from fractions import Fraction

    if device.type == "meta":  # no values to check
        return False
    g = np.random.default_rng(0)
    x, y = (torch.tensor(g.uniform(1, 2, 67), dtype=t, device=device) for _ in range(2))
    p = x * y
    e = torch.addcmul(-p, x, y)
    want = [Fraction(u) * Fraction(v) - Fraction(w)
            for u, v, w in zip(x.tolist(), y.tolist(), p.tolist())]
    return any(want) and all(Fraction(f) == w for f, w in zip(e.tolist(), want))


def product_error(a, b, p):
    """a*b - p, exactly (p = a*b rounded), in one fused multiply-add: only
    where :func:`fused` holds."""
    return torch.addcmul(-p, a, b)


_EXP_TABLES: dict = {}


def exp_table(t: torch.dtype, like) -> tuple:
    """The pair ``exp``'s table constants in float type ``t``
    (:func:`symgrad.export.jax_ops.exp_reduction`, which imports no JAX):
    256/ln 2 as a Python float; ln(2)/256's three floats as 0-d CPU tensors
    (a Python float would be taken for a literal of at most 11 bits by
    Dekker's split); the table's high and low parts on ``like``'s device.

    >>> inv, c1, c2, c3, hi, lo = exp_table(torch.float64, torch.zeros(1))
    >>> hi.shape, float(hi[128]), c1.dtype
    (torch.Size([257]), 0.0, torch.float64)
    """
    from .jax_ops import exp_reduction

    dev = like.device if isinstance(like, torch.Tensor) else torch.device("cpu")
    key = (t, dev)
    if key not in _EXP_TABLES:
        npt = np.float32 if torch.finfo(t).bits <= 32 else np.float64
        inv, c1, c2, c3, hi, lo = exp_reduction(npt)
        consts = [torch.tensor(float(c), dtype=t, device="cpu") for c in (c1, c2, c3)]
        tables = [torch.from_numpy(np.ascontiguousarray(v)).to(dtype=t, device=dev)
                  for v in (hi, lo)]
        _EXP_TABLES[key] = (float(inv), *consts, *tables)
    return _EXP_TABLES[key]


def index(v):
    """An integral float tensor as indices (int64), NaN as 0 (a NaN argument's
    value is NaN whatever the table entry; jax.numpy.take's indices are
    clamped, a torch index out of range raises).

    >>> index(torch.tensor([3.0, float("nan"), 0.0]))
    tensor([3, 0, 0])
    """
    return torch.nan_to_num(v, nan=0.0).to(torch.int64)


def take(table, i):
    """``table[i]`` for a 1-d ``table`` and indices ``i`` of any shape.

    >>> import torch
    >>> take(torch.tensor([1.0, 2.0, 4.0]), torch.tensor([[2, 0], [1, 1]])).tolist()
    [[4.0, 1.0], [2.0, 2.0]]
    """
    if torch.compiler.is_compiling():  # (traced: table[i] of a 0-d i reads i's value)
        return torch.take(table, i.reshape(-1)).reshape(i.shape)
    return table[i]
