"""The NumPy names symgrad's compensated-arithmetic helpers
(:mod:`symgrad.codegen.compensated_helpers`) call, over PyTorch tensors:
generated PyTorch code runs those helpers' text with ``np.`` read as this
module (``_tnp.``), so ``compensated(u)`` is computed in pairs of floats as
NumPy's code computes it.  Forward values only."""

from __future__ import annotations

import math

import numpy as np
import torch

__all__ = ["dtype", "finfo", "result_type", "where", "isfinite", "abs", "float_pair", "rint",
           "exp2", "exp", "log", "log1p", "floor", "sin", "cos", "arctan", "const_pair"]


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


def isfinite(a):
    return torch.isfinite(a) if isinstance(a, torch.Tensor) else torch.tensor(math.isfinite(a))


def abs(a):  # noqa: A001  (NumPy's name)
    return torch.abs(a)


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
