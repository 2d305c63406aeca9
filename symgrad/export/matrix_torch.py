"""``to_torch`` of a scalar matrix formula (``MatrixSymbol`` arguments: a
loss over weight matrices): the value and symgrad's matrix-level gradient,
from symgrad's matrix code (:mod:`symgrad.codegen.matrix`) run over PyTorch
tensors (:mod:`symgrad.export.torch_numpy` stands for NumPy there).  The
gradient's own derivative is not exported yet: double backward is an error,
never PyTorch's derivative of the emitted code."""

from __future__ import annotations

import linecache
from collections.abc import Callable

from sympy import MatrixSymbol, Symbol

from ..autodiff import grad
from ..codegen.matrix import matrix_code
from ..errors import SymgradError
from . import torch_numpy
from .source import _counter

__all__ = ["matrix_to_torch"]


def _compile(args: list, exprs: list) -> Callable:
    source = matrix_code(args, exprs).replace(
        "import numpy as np\n", "from symgrad.export import torch_numpy as np\n", 1)
    filename = f"<symgrad-export-{next(_counter)}>"
    namespace: dict = {}
    # symgrad's own matrix code: sanitized names, numbers and library calls only
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)

    def along(op, a, axis):  # the NumPy code writes into its output; torch reduces
        return op.reduce(a, axis=axis, keepdims=True)

    namespace["_along"] = along
    fn = namespace["f"]
    fn.source = source
    return fn


def matrix_to_torch(expr, args: list, ctx) -> Callable:
    import torch

    for i, a in enumerate(args):
        if not isinstance(a, (Symbol, MatrixSymbol)):
            raise SymgradError(f"args[{i}] is {a!r}; with matrix formulas, arguments are "
                               "Symbols and MatrixSymbols")
    if getattr(expr, "is_Matrix", False) or not getattr(expr, "is_scalar", True):
        raise SymgradError("to_torch exports a matrix formula only when it is a scalar (a "
                           "loss); a matrix-valued one is not exported yet")
    value = _compile(args, [expr])
    gfn = _compile(args, list(ctx.run(grad, expr, list(args))))
    _ = torch_numpy  # the module the generated code imports

    class Gradient(torch.autograd.Function):
        @staticmethod
        def forward(*xs):
            return tuple(torch.as_tensor(g, dtype=xs[0].dtype) for g in gfn(*xs))

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, *cts):
            raise SymgradError("second derivatives of matrix formulas are not exported yet: "
                               "to_torch of a MatrixSymbol formula gives symgrad's gradient only")

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
