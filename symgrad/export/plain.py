"""``lambdify(args, exprs, backend="jax" | "torch")``: the plain code for
that library, without derivative rules (JAX's or PyTorch's autodiff of it,
if asked for, is theirs, not symgrad's: use ``to_jax`` / ``to_torch`` for
symgrad's)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..safe import refuse_string
from .args import signature
from .source import compile_source, generate, require

__all__ = ["plain_function"]


def plain_function(backend: str, args: object, exprs: object, *, stabilize: bool = False,
                   domain: Mapping | None = None) -> Callable:
    """A function of ``backend`` arrays computing ``exprs`` from ``args``."""
    require(backend)
    refuse_string(args, "lambdify", "args")
    sig = signature(exprs, args)
    source = generate(backend, sig.symbols, sig.exprs, stabilize=stabilize, domain=domain)
    kernel = compile_source(source)
    if backend == "jax":
        import jax.numpy as xp

        def stack(es, shape):
            return xp.stack(xp.broadcast_arrays(*(xp.asarray(e) for e in es))).reshape(
                shape + xp.shape(es[0]) if xp.ndim(es[0]) else shape)

        take, reshape = xp.asarray, xp.reshape
    else:
        import torch

        def stack(es, shape):
            ts = torch.broadcast_tensors(*(torch.as_tensor(e) for e in es))
            return torch.stack(ts).reshape(shape + tuple(ts[0].shape))

        take, reshape = torch.as_tensor, torch.reshape

    def f(*values):
        flat = sig.split(values[0:1] if sig.single else values, take, reshape)
        return sig.build(list(kernel(*flat)), stack)

    f.source = source
    return f
