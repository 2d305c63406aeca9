"""``to_torch``: a formula as a ``torch.autograd.Function`` whose backward,
at every order, is symgrad's.

The Function of order k computes formulas F(x); its backward computes
symgrad's reverse-mode derivative vjp(F, x, u) from (x, u) through the
Function of order k+1, built the same way, lazily, the first time PyTorch
asks for it: so ``backward(create_graph=True)`` records a Function whose
own backward is symgrad's next-order formula, never PyTorch's derivative of
the emitted code.  The Functions use ``setup_context`` and
``generate_vmap_rule``, so ``torch.func.grad``, ``vjp`` and ``vmap`` work;
tensors stay on their device (the code is plain ``torch`` calls).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import Context

from sympy import Dummy

from ..autodiff import jvp, vjp
from ..errors import SymgradError
from .args import export_context, signature
from .source import compile_source, generate, require

__all__ = ["to_torch"]


def _normalize(outs, xs):
    import torch

    shape = torch.broadcast_shapes(*(x.shape for x in xs))
    dt, dev = xs[0].dtype, xs[0].device
    res = []
    for o in outs:
        if not isinstance(o, torch.Tensor):
            o = torch.as_tensor(o, dtype=dt, device=dev)
        if o.shape != shape or o.dtype != dt or any(o is x for x in xs):
            o = o.to(dt).expand(shape).clone()
        res.append(o)
    return tuple(res)


class _Order:
    """The exported Function of one order: formulas ``exprs`` of ``symbols``."""

    def __init__(self, symbols: list, exprs: list, stabilize: bool, domain, order: int,
                 ctx: Context) -> None:
        import torch

        self.symbols, self.exprs, self.order = symbols, exprs, order
        self.stabilize, self.domain, self.ctx = stabilize, domain, ctx
        self.source = generate("torch", symbols, exprs, stabilize=stabilize, domain=domain)
        kernel = compile_source(self.source)
        self._next: dict[str, _Order] = {}
        n = len(symbols)
        me = self

        class Exported(torch.autograd.Function):
            generate_vmap_rule = True

            @staticmethod
            def forward(*xs):
                return _normalize(kernel(*xs), xs)

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(*inputs)
                ctx.save_for_forward(*inputs)

            @staticmethod
            def jvp(ctx, *tangents):
                xs = ctx.saved_tensors
                ts = [torch.zeros_like(x) if t is None else t for t, x in zip(tangents, xs)]
                out = me.next("jvp").apply(*xs, *ts)
                return out if len(out) > 1 else out[0]

            @staticmethod
            def backward(ctx, *cts):
                xs = ctx.saved_tensors
                grads = me.next("vjp").apply(*xs, *cts)
                return tuple(g.sum_to_size(x.shape) if g.shape != x.shape else g
                             for g, x in zip(grads[:n], xs))

        Exported.__name__ = f"SymgradExported{order}"
        self.fn = Exported

    def next(self, mode: str):
        """The next order's Function: symgrad's VJP (``mode="vjp"``, for
        backward) or JVP (``"jvp"``, for forward-mode AD) of these formulas."""
        if mode not in self._next:
            if mode == "vjp":
                extra = [Dummy(f"u{k}") for k in range(len(self.exprs))]
                out = self.ctx.run(vjp, list(self.exprs), list(self.symbols), extra)
            else:
                extra = [Dummy(f"d{s.name}") for s in self.symbols]
                out = self.ctx.run(jvp, list(self.exprs), list(self.symbols), extra)
            out = list(out) if isinstance(out, (list, tuple)) else [out]
            self._next[mode] = _Order(self.symbols + extra, out, self.stabilize, self.domain,
                                      self.order + 1, self.ctx)
        return self._next[mode].fn


def to_torch(expr: object, args: object, *, stabilize: bool = False,
             domain: Mapping | None = None) -> Callable:
    """A PyTorch function computing ``expr`` (an expression or a pytree of
    them) from ``args`` (a Symbol, or a list of Symbols and Matrices of
    Symbols: one tensor argument each) through a ``torch.autograd.Function``
    whose backward is symgrad's VJP, itself a Function of the next order's
    formulas, so double backward (``create_graph=True``) is symgrad's too.
    Overrides, straight-through estimators, custom gradients and stabilized
    forms active when ``to_torch`` is called carry over; with
    ``stabilize=True`` every order is emitted in symgrad's safe forms
    valid on ``domain`` (symbol -> (lo, hi)).  ``torch.func.grad`` and
    ``torch.func.vmap`` work; tensors stay on their device.

    Arguments broadcast; numbers and integer tensors become the common
    floating type (PyTorch's default if none).  ``f.Function`` is the
    ``torch.autograd.Function``, ``f.source`` its forward code.

    >>> import torch, sympy as sp, symgrad
    >>> x, y = sp.symbols("x y")
    >>> with symgrad.gradient_override_map({"Floor": "Identity"}):
    ...     f = symgrad.to_torch(sp.floor(x) * y, [x, y])
    >>> a = torch.tensor(2.5, requires_grad=True)
    >>> f(a, torch.tensor(3.0)).backward()
    >>> a.grad
    tensor(3.)
    """
    require("torch")
    import torch

    from ..codegen.matrix import is_matrix_program
    from ..safe import refuse_string

    refuse_string(args, "to_torch", "args")
    if is_matrix_program(args, expr):
        from .matrix_torch import matrix_to_torch

        if stabilize:
            raise SymgradError("to_torch(stabilize=True) of a MatrixSymbol formula is not "
                               "supported yet; its matrix code uses the accurate forms only")
        return matrix_to_torch(expr, list(args) if isinstance(args, (list, tuple)) else [args],
                               export_context())
    sig = signature(expr, args)
    first = _Order(sig.symbols, sig.exprs, stabilize, domain, 0, export_context())

    def call(*values):
        tensors = [v for v in values if isinstance(v, torch.Tensor)]
        dev = tensors[0].device if tensors else None
        flat = sig.split(values[0:1] if sig.single else values,
                         lambda v: torch.as_tensor(v, device=dev), torch.reshape)
        flat = [v if isinstance(v, torch.Tensor) else torch.as_tensor(v, device=dev)
                for v in flat]
        dt = flat[0].dtype
        for v in flat[1:]:
            dt = torch.promote_types(dt, v.dtype)
        if not dt.is_floating_point:
            dt = torch.get_default_dtype()
        outs = first.fn.apply(*(v.to(dt) for v in flat))
        return sig.build(outs, lambda es, shape: torch.stack(
            torch.broadcast_tensors(*es)).reshape(shape + tuple(es[0].shape)))

    call.source = first.source
    call.Function = first.fn

    def order(k: int) -> _Order:
        """The Function computing the k-th backward (symgrad's VJP, k times)."""
        o = first
        for _ in range(k):
            o.next("vjp")
            o = o._next["vjp"]
        return o

    call.order = order
    return call
