"""``to_torch``: a formula as a ``torch.autograd.Function`` whose backward,
at every order, is symgrad's.

The Function of order k computes that order's formulas
(:class:`~symgrad.export.orders.Order`); its backward contracts the
cotangents with the entries of J(x), symgrad's derivatives, computed by the
Function of order k+1 (built the same way, lazily, the first time PyTorch
asks for it), and its forward-mode ``jvp`` contracts the tangents with
them.  The contraction (products and sums) is the only code PyTorch
differentiates: so ``backward(create_graph=True)`` records a Function whose
own backward is symgrad's next-order formula, never PyTorch's derivative of
the emitted code.  The Functions use ``setup_context`` and
``generate_vmap_rule``, so ``torch.func.grad``, ``vjp`` and ``vmap`` work;
tensors stay on their device (the code is plain ``torch`` calls).

The value of eager tensors that need a gradient is computed by a joint
Function instead: one program for the value and the Jacobian entries (their
common subexpressions once), the entries kept for the backward, which
contracts them (unless it records a graph, ``create_graph=True``: then the
entries come from the next order's Function as above).

With ``compile=True`` each order's programs are compiled by
``torch.compile`` (one fused loop per program instead of one eager pass
over the data per operation); a program it cannot compile raises a
:class:`~symgrad.errors.SymgradError`, never runs eager in its place.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping

from ..errors import SymgradError
from .args import signature
from .matrix_front import matrix_export
from .orders import (
    ExportWarning,
    FrameworkOrder,
    Order,
    contract_jvp,
    contract_vjp,
    dtype_name,
    export,
)
from .source import require

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


class _TorchOrder(FrameworkOrder):
    """The ``torch.autograd.Function`` of one order (``fn``: its live outputs)."""

    backend = "torch"
    compiled = False  # torch.compile each program (_CompiledTorchOrder)

    def __init__(self, order: Order) -> None:
        import torch

        super().__init__(order)
        self._kernels: dict = {}
        rows = order.live or [-1]  # no live output: one zero output
        me = self

        class Exported(torch.autograd.Function):
            generate_vmap_rule = True

            @staticmethod
            def forward(*xs):
                kernel = me.kernel(False, dtype_name(xs[0].dtype))
                return _normalize(_run(kernel, xs), xs)

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(*inputs)
                ctx.save_for_forward(*inputs)
                ctx.set_materialize_grads(False)  # (see ExportedJoint.forward)

            @staticmethod
            def jvp(ctx, *tangents):
                xs = ctx.saved_tensors
                ts = [torch.zeros_like(x) if t is None else t for t, x in zip(tangents, xs)]
                out = contract_jvp(me.jacobian_at(*xs) if order.live else {}, ts, rows,
                                   lambda: torch.zeros_like(xs[0]))
                shape = torch.broadcast_shapes(*(x.shape for x in xs))
                out = tuple(o.to(xs[0].dtype).expand(shape).clone() for o in out)
                return out if len(out) > 1 else out[0]

            @staticmethod
            def backward(ctx, *cts):
                xs = ctx.saved_tensors
                grads = contract_vjp(me.jacobian_at(*xs) if order.live else {}, cts, rows, len(xs),
                                     lambda j: torch.zeros_like(xs[j]))
                return tuple(g.sum_to_size(x.shape) if g.shape != x.shape else g
                             for g, x in zip(grads, xs))

        Exported.__name__ = f"SymgradExported{order.order}"
        self.fn = Exported
        self.joint = None
        if order.order == 0 and order.live:
            self.joint = self._joint_function(order, rows)

    def _joint_function(self, order: Order, rows: list):
        """The value's Function when a backward will follow (eager tensors
        that need a gradient): its forward computes the value and the
        Jacobian entries in one program and keeps the entries, so the
        backward contracts them instead of recomputing what they share with
        the value (eager PyTorch runs and allocates each operation).  A
        backward that records its own graph (``create_graph=True``) takes
        the entries from the next order's Function instead, whose own
        backward is symgrad's next order."""
        import torch

        me = self

        class ExportedJoint(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *xs):
                kernel = me.kernel(True, dtype_name(xs[0].dtype))
                outs = _normalize(_run(kernel, xs), xs)
                ctx.save_for_backward(*xs, *outs[len(order.live):])
                # an output no loss reads has no cotangent (None, not zeros):
                # 0·J is NaN where its Jacobian entry is inf (the gradient of
                # exp(x) beside exp(2x) at x = 50 in float32 was NaN)
                ctx.set_materialize_grads(False)
                return outs[:len(order.live)]

            @staticmethod
            def backward(ctx, *cts):
                saved = ctx.saved_tensors
                xs = saved[:len(saved) - len(me.order.next().live)]
                if torch.is_grad_enabled():  # create_graph: differentiable entries
                    coef = me.jacobian_at(*xs)
                else:
                    coef = dict(zip(me.order.next().live, saved[len(xs):]))
                grads = contract_vjp(coef, cts, rows, len(xs), lambda j: torch.zeros_like(xs[j]))
                return tuple(g.sum_to_size(x.shape) if g.shape != x.shape else g
                             for g, x in zip(grads, xs))

        ExportedJoint.__name__ = "SymgradExportedJoint"
        return ExportedJoint

    def kernel(self, joint: bool, dtype: str) -> Callable:
        """This order's program for tensors of ``dtype`` (``joint``: with the
        next order's outputs), compiled by ``torch.compile`` if the export was
        asked to (:class:`_Compiled`)."""
        key = (joint, dtype)
        if key not in self._kernels:
            k = (self.order.joint_kernel if joint else self.order.kernel)("torch", dtype)
            self._kernels[key] = _Compiled(k) if self.compiled else k
        return self._kernels[key]

    def run(self, *xs) -> tuple:
        if not xs:  # a function of no arguments: its constants in PyTorch's default type
            import torch

            kernel = self.kernel(False, dtype_name(torch.get_default_dtype()))
            return tuple(torch.as_tensor(o, dtype=torch.get_default_dtype()) for o in kernel())
        if self.joint is not None and _eager_backward(xs):
            return self.joint.apply(*xs)
        return self.fn.apply(*xs)


class _CompiledTorchOrder(_TorchOrder):
    """An order whose programs are compiled (``to_torch(compile=True)``); its
    next order's too."""

    compiled = True


class _Compiled:
    """``kernel`` (a generated program) compiled by ``torch.compile`` on its
    first call: the whole graph (``fullgraph``; shapes dynamic, so another
    batch size is not another compilation).  The first call runs ``kernel``
    eagerly on one point before, so the constants its helpers make on first
    use (a pair exp's table) are made outside the trace.  Anything that fails
    in the compiled call (dynamo cannot trace the program, no C++ compiler
    for inductor, ...) raises a SymgradError: the program never runs eager
    in its place, silently slower.  Inside a ``torch.func`` transform's level
    (``vmap``; ``grad`` runs the Function's forward outside it), where dynamo
    does not compile, it runs eagerly with an :class:`ExportWarning` (once
    per program).  One point (every input of one element) runs as a batch
    of two and gives the first: dynamo compiles a batch of size 1 apart
    (sizes 0 and 1 are specialized), whose code rounded some values an ulp
    differently (the sigmoid's gradient at 2 of 40 points), and a point's
    value must not depend on its batch."""

    def __init__(self, kernel: Callable) -> None:
        self.kernel, self.fn, self.warned = kernel, None, False
        self.source = kernel.source

    def __call__(self, *xs):
        import torch

        stack = getattr(torch._C._functorch, "peek_interpreter_stack", None)
        if stack is not None and stack() is not None:  # (the Function's inputs come unwrapped)
            if not self.warned:  # dynamo compiles nothing inside a torch.func level
                self.warned = True
                warnings.warn("to_torch(compile=True): under a torch.func transform (grad, "
                              "vmap, jacrev, ...) the exported program runs eagerly: "
                              "torch.compile does not compile inside them (compile the "
                              "transformed function instead)", ExportWarning, stacklevel=2)
            return self.kernel(*xs)
        if self.fn is None:
            _prime(self.kernel, xs)
            self.fn = torch.compile(self.kernel, fullgraph=True, dynamic=True)
        shape = torch.broadcast_shapes(*(x.shape for x in xs))
        one = math.prod(shape) == 1
        if one:  # as a batch of two: its code, not the one dynamo specializes for one point
            xs = tuple(x.reshape(1).repeat(2) if x.numel() == 1 else x for x in xs)
        try:
            out = self.fn(*xs)
        except Exception as err:
            msg = str(err).strip().splitlines()
            raise SymgradError(
                f"to_torch(compile=True): torch.compile could not run the exported program "
                f"({type(err).__name__}: {msg[0] if msg else ''}); export without "
                f"compile=True to run it eagerly") from err
        if one:
            out = tuple(o[:1].reshape(shape) if isinstance(o, torch.Tensor) and o.numel() == 2
                        else o for o in out)
        return out


def _prime(kernel: Callable, xs: tuple) -> None:
    """Make what ``kernel``'s helpers make on first use, before dynamo traces
    it (a dict it fills during the trace cannot be rebuilt: dynamo refuses
    the graph): one eager run on one point of ``xs``, then each per-type
    constant of the pair helpers (``_DDConsts``) for ``xs``' float type,
    including those only Dekker's products read (eager PyTorch's products
    take ``addcmul`` instead, traced code Dekker's)."""
    from .torch_pairs import result_type

    kernel(*(x.reshape(-1)[:1] for x in xs))
    names = kernel.__globals__
    consts = names.get("_DDConsts")
    if consts is None:
        return
    t = result_type(*xs)
    for v in list(names.values()):
        if isinstance(v, consts):
            try:
                v[t]
            except Exception:  # noqa: BLE001, S110  (not made for this type: a trace that needs it fails loudly)
                pass


def _run(kernel: Callable, xs: tuple) -> tuple:
    """``kernel(*xs)``: eager CPU tensors of many points block by block (each
    block's tensors stay in the cache: ``torch_ops.blocked``), others whole;
    a compiled program whole (its loop is fused: no tensor in between)."""
    from .torch_ops import blocked

    if isinstance(kernel, _Compiled):
        return kernel(*xs)

    got = blocked(kernel, xs)
    return kernel(*xs) if got is None else got


def _eager_backward(xs) -> bool:
    """Whether a backward may follow on plain eager tensors: grad mode on, an
    input that requires a gradient, no torch.func transform, forward-mode
    AD or compilation (those take the Function with setup_context)."""
    import torch
    from torch.autograd import forward_ad

    wrapped = getattr(torch._C._functorch, "is_functorch_wrapped_tensor", None)
    return (torch.is_grad_enabled() and any(x.requires_grad for x in xs)
            and getattr(forward_ad, "_current_level", 0) < 0
            and not torch.compiler.is_compiling()
            and wrapped is not None and not any(wrapped(x) for x in xs))


def to_torch(expr: object, args: object, *, stabilize: bool = False,
             domain: Mapping | None = None, compile: bool = False) -> Callable:
    """A PyTorch function computing ``expr`` (an expression or a pytree of
    them) from ``args`` (a Symbol, or a list of Symbols and Matrices of
    Symbols: one tensor argument each) through a ``torch.autograd.Function``
    whose backward is symgrad's derivatives contracted with the cotangents,
    computed by a Function of the next order's formulas, so double backward
    (``create_graph=True``) is symgrad's too.  Overrides, straight-through
    estimators, custom gradients and stabilized forms active when
    ``to_torch`` is called carry over; with ``stabilize=True`` each order's
    formulas are emitted in :func:`symgrad.stabilize`'s choice of float
    forms over ``domain`` (symbol -> (lo, hi); all floats where not given).
    ``torch.func.grad`` and ``torch.func.vmap`` work; tensors stay on their
    device.  With ``compile=True`` each program (value, Jacobian entries,
    each order) is compiled by ``torch.compile`` the first time it runs
    (seconds to a minute of compiling, once per program and float type; it
    needs inductor's C++ compiler on the CPU), and runs as one fused loop
    instead of one pass over the data per operation; where it cannot be
    compiled the call raises a :class:`~symgrad.errors.SymgradError`.

    Arguments broadcast; numbers and integer tensors become the common
    floating type (PyTorch's default if none).  ``f.Function`` is the
    ``torch.autograd.Function``, ``f.source`` its forward code,
    ``f.order(k).source`` that of the k-th derivatives.

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
    done = matrix_export("torch", expr, args, stabilize, domain)
    if done is not None:
        if compile:
            raise SymgradError("to_torch(compile=True) of a MatrixSymbol formula is not "
                               "supported: export it without compile=True")
        return done
    call = export(_CompiledTorchOrder if compile else _TorchOrder, signature(expr, args),
                  stabilize, domain)
    call.Function = call.first.fn
    return call
