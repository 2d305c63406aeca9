"""``to_torch`` of a matrix formula (:mod:`.matrix_front`): each derivative
level (:class:`~symgrad.export.matrix_levels.MatrixLevel`) is a
``torch.autograd.Function`` running symgrad's matrix code over PyTorch
tensors (:mod:`symgrad.export.torch_numpy` stands for NumPy there).

A scalar formula (a loss) multiplies the cotangent by symgrad's matrix
gradient, a level of the arguments alone; any other level's backward is
the next level, symgrad's vector-Jacobian product for the inputs that need
a gradient with the cotangents PyTorch passes (a Function of the inputs and
the cotangents).  Double backward (``create_graph=True``) differentiates
that Function by its own backward, the level after; forward mode
(``torch.func.jvp``, ``jacfwd``, ``hessian``) takes the next level of
symgrad's Jacobian-vector products; ``torch.func.vmap`` runs the code
batched (``generate_vmap_rule``): symgrad's formulas at every order, never
PyTorch's derivative of emitted code."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from .matrix_levels import MatrixLevel, shape_of

__all__ = ["matrix_to_torch"]


def _zero(torch, expr, level: MatrixLevel, xs: tuple):
    """Zeros of ``expr``'s shape, after the inputs' leading (batch) axes."""
    batch = torch.broadcast_shapes(*(tuple(x.shape)[:x.ndim - len(shape_of(s))]
                                     for x, s in zip(xs, level.inputs)))
    return torch.zeros(tuple(batch) + shape_of(expr), dtype=xs[0].dtype, device=xs[0].device)


def _on_device(torch, xs):
    """The inputs' device as the default one while the matrix code runs: its
    constants (an Identity's ``np.eye``, a OneMatrix's ``np.ones``) are made
    there (on the CPU, next to tensors of another device, they fail)."""
    dev = xs[0].device
    return contextlib.nullcontext() if dev == torch.get_default_device() else torch.device(dev)


def _batch(x, sym) -> tuple:
    """The leading (batch) axes of the argument ``x`` of ``sym``."""
    return tuple(x.shape)[:x.ndim - len(shape_of(sym))]


def _floats(torch, values) -> list:
    ts = [v if isinstance(v, torch.Tensor) else torch.as_tensor(v) for v in values]
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = torch.promote_types(dt, t.dtype)
    if not dt.is_floating_point:
        dt = torch.get_default_dtype()
    return [t if t.dtype == dt else t.to(dt) for t in ts]


class _TorchLevel:
    """One level as a ``torch.autograd.Function`` returning a tuple of tensors."""

    def __init__(self, level: MatrixLevel) -> None:
        import torch

        self.level = level
        self._next: dict[tuple, _TorchLevel] = {}
        kernel = level.kernel("torch")
        me = self

        class Level(torch.autograd.Function):
            generate_vmap_rule = True

            @staticmethod
            def forward(*xs):
                with _on_device(torch, xs):
                    got = dict(zip(level.live, kernel(*xs))) if level.live else {}
                outs = []
                for k, e in enumerate(level.exprs):
                    o = got[k] if k in got else _zero(torch, e, level, xs)
                    o = torch.as_tensor(o, dtype=xs[0].dtype, device=xs[0].device)
                    outs.append(o.clone() if any(o is x for x in xs) else o)
                return tuple(outs)

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(*inputs)
                ctx.save_for_forward(*inputs)
                ctx.set_materialize_grads(False)

            @staticmethod
            def jvp(ctx, *tangents):
                xs = ctx.saved_tensors
                mask = tuple(j for j, t in enumerate(tangents) if t is not None)
                if not mask:
                    outs = tuple(_zero(torch, e, level, xs) for e in level.exprs)
                else:
                    outs = me.next(("jvp", mask)).fn.apply(*xs, *(tangents[j] for j in mask))
                return outs if len(outs) > 1 else outs[0]

            @staticmethod
            def backward(ctx, *cts):
                xs = ctx.saved_tensors
                res: list = [None] * len(xs)
                mask = tuple(j for j in range(len(xs)) if ctx.needs_input_grad[j])
                outs = tuple(i for i, c in enumerate(cts) if c is not None)
                if mask and outs:
                    nxt = me.next(("vjp", mask, outs))
                    got = nxt.fn.apply(*xs, *(cts[i] for i in outs))
                    for j, g in zip(mask, got):
                        res[j] = g.sum_to_size(xs[j].shape) if g.shape != xs[j].shape else g
                return tuple(res)

        Level.__name__ = f"SymgradMatrixLevel{level.order}"
        self.fn = Level

    def next(self, key: tuple) -> _TorchLevel:
        """The next level: ("vjp", inputs, outputs) for backward, ("jvp",
        inputs) for forward mode."""
        if key not in self._next:
            nxt = self.level.vjp(key[1], key[2]) if key[0] == "vjp" else self.level.jvp(key[1])
            self._next[key] = _TorchLevel(nxt)
        return self._next[key]


def _loss(level: MatrixLevel):
    """A scalar formula: its value, and the backward ct·G, G from the
    gradient's level."""
    import torch

    value = level.kernel("torch")
    gradient = _TorchLevel(level.gradient())
    ins = level.inputs

    class Loss(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(*xs):
            with _on_device(torch, xs):
                out = value(*xs)[0]
            return torch.as_tensor(out, dtype=xs[0].dtype, device=xs[0].device)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)
            ctx.save_for_forward(*inputs)

        @staticmethod
        def jvp(ctx, *tangents):
            xs = ctx.saved_tensors
            gs = gradient.fn.apply(*xs)
            out = torch.zeros(torch.broadcast_shapes(*(_batch(x, s) for x, s in zip(xs, ins))),
                              dtype=gs[0].dtype, device=gs[0].device)
            for g, t, sym in zip(gs, tangents, ins):
                if t is not None:  # summed over the argument's own axes, per batch element
                    k = len(shape_of(sym))
                    out = out + ((g * t).sum(dim=tuple(range(-k, 0))) if k else g * t)
            return out

        @staticmethod
        def backward(ctx, ct):
            xs = ctx.saved_tensors
            gs = gradient.fn.apply(*xs)
            out = []
            for g, x, sym, need in zip(gs, xs, ins, ctx.needs_input_grad):
                if not need:
                    out.append(None)
                    continue
                # the cotangent per batch element times its gradient, summed over
                # the batch axes an argument shared by the batch does not have
                v = ct.reshape(tuple(ct.shape) + (1,) * len(shape_of(sym))) * g
                out.append(v.sum_to_size(x.shape) if v.shape != x.shape else v)
            return tuple(out)

    Loss.gradient = gradient
    return Loss


def matrix_to_torch(level: MatrixLevel, single: bool) -> Callable:
    """The exported function of ``level`` (its formulas of the arguments):
    one tensor if ``single`` (the one formula), else a tuple of them."""
    import torch

    if single and not shape_of(level.exprs[0]):
        fn = _loss(level)

        def call(*values):
            return fn.apply(*_floats(torch, values))
    else:
        fn = _TorchLevel(level).fn

        def call(*values):
            outs = fn.apply(*_floats(torch, values))
            return outs[0] if single else outs

    call.Function = fn
    call.source = level.kernel("torch").source
    return call
