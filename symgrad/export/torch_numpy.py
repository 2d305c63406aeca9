"""The few NumPy functions symgrad's matrix code calls, over PyTorch tensors
(``axis``/``keepdims`` as ``dim``/``keepdim``), for ``to_torch`` of matrix
formulas; any other name is PyTorch's function of that meaning
(:mod:`symgrad.export.printers`' table).  Forward values only."""

from __future__ import annotations

import torch

from ..codegen.printer import NoNumpyFormError
from . import torch_ops
from .printers import _TORCH_RENAME, _TORCH_SAME

nan, pi, e, inf = torch.nan, torch.pi, torch.e, torch.inf


def asarray(a, dtype=None):
    t = a if isinstance(a, torch.Tensor) else torch.as_tensor(a)
    if dtype is float and not t.is_floating_point():
        t = t.to(torch.get_default_dtype())
    return t


def sum(a, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    return torch.sum(a, dim=axis, keepdim=keepdims) if axis is not None else torch.sum(a)


def max(a, axis=None, keepdims=False):  # noqa: A001
    return torch.amax(a, dim=axis, keepdim=keepdims) if axis is not None else torch.amax(a)


def swapaxes(a, i, j):
    return torch.swapaxes(a, i, j)


def trace(a, axis1=0, axis2=1):
    return torch.diagonal(a, dim1=axis1, dim2=axis2).sum(-1)


def ones(shape):
    return torch.ones(shape, dtype=torch.get_default_dtype())


def zeros(shape):
    return torch.zeros(shape, dtype=torch.get_default_dtype())


def eye(n):
    return torch.eye(n, dtype=torch.get_default_dtype())


def nan_to_num(a, copy=True, nan=0.0, posinf=None, neginf=None):  # noqa: ARG001  (NumPy's)
    return torch.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)


broadcast_to = torch.broadcast_to
broadcast_arrays = torch.broadcast_tensors
broadcast_shapes = torch.broadcast_shapes


def concatenate(arrays, axis=0):
    return torch.cat(list(arrays), dim=axis)


class _Reducer:
    def __init__(self, fn) -> None:
        self.fn = fn

    def reduce(self, a, axis=None, keepdims=False):
        return self.fn(a, dim=axis, keepdim=keepdims)

    def __call__(self, a, b):
        return _ELEMENTWISE[self.fn](a, b)


add = _Reducer(torch.sum)
maximum = _Reducer(torch.amax)
_ELEMENTWISE = {torch.sum: lambda a, b: a + b, torch.amax: torch_ops.maximum}


class _NoTorchForm(NoNumpyFormError, AttributeError):
    """A NumPy name with no PyTorch form (an AttributeError too: tools that
    probe a module's attributes, as doctest collection does, see none)."""


def __getattr__(name: str):
    torch_name = _TORCH_RENAME.get(name, name)
    if hasattr(torch_ops, name):
        return getattr(torch_ops, name)
    if torch_name in _TORCH_SAME:
        return getattr(torch, torch_name)
    raise _NoTorchForm(f"numpy.{name} has no PyTorch form in symgrad's matrix export")
