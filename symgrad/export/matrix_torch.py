"""``to_torch`` of a scalar matrix formula (:mod:`.matrix_front`): the value
and symgrad's matrix-level gradient, from symgrad's matrix code run over
PyTorch tensors (:mod:`symgrad.export.torch_numpy` stands for NumPy there).
The gradient's own derivative is not exported yet: double backward is an
error, never PyTorch's derivative of the emitted code."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import SymgradError
from .source import compile_matrix

__all__ = ["matrix_to_torch"]


def matrix_to_torch(expr, grads: list, args: list, second: str) -> Callable:
    import torch

    value = compile_matrix("torch", args, [expr])
    gfn = compile_matrix("torch", args, grads)

    class Gradient(torch.autograd.Function):
        @staticmethod
        def forward(*xs):
            return tuple(torch.as_tensor(g, dtype=xs[0].dtype) for g in gfn(*xs))

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, *cts):
            raise SymgradError(second)

    class Loss(torch.autograd.Function):
        @staticmethod
        def forward(*xs):
            return torch.as_tensor(value(*xs)[0])

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, ct):
            return tuple(ct * g for g in Gradient.apply(*ctx.saved_tensors))

    def call(*values):
        tensors = [v if isinstance(v, torch.Tensor) else torch.as_tensor(v) for v in values]
        return Loss.apply(*tensors)

    call.Function = Loss
    call.source = value.source
    return call
