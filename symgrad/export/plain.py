"""``lambdify(args, exprs, backend="jax" | "torch")``: the plain code for
that library, without derivative rules (JAX's or PyTorch's autodiff of it,
if asked for, is theirs, not symgrad's: use ``to_jax`` / ``to_torch`` for
symgrad's)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..safe import refuse_string
from .args import signature
from .frame import frame, front_door
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
    f = front_door(sig, frame(backend), kernel, floats=False)
    f.source = source
    return f
