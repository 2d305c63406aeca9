"""The matrix-formula route of ``to_jax`` / ``to_torch`` (``MatrixSymbol``
arguments), shared by both: the checks, and the value's and symgrad's
matrix-level gradient's code (:mod:`symgrad.codegen.matrix`) handed to the
framework's wrapper (:mod:`.matrix_jax`, :mod:`.matrix_torch`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sympy import MatrixSymbol, Symbol

from ..autodiff import grad
from ..errors import SymgradError
from .args import export_context

__all__ = ["matrix_export"]


def matrix_export(backend: str, expr: object, args: object, stabilize: bool,
                  domain: Mapping | None) -> Callable | None:
    """The exported function of a MatrixSymbol formula, or None when
    ``expr`` over ``args`` is not one (the scalar route takes it)."""
    from ..codegen.matrix import is_matrix_program
    from ..safe import refuse_string

    name = f"to_{backend}"
    refuse_string(args, name, "args")
    if not is_matrix_program(args, expr):
        return None
    if stabilize:
        raise SymgradError(f"{name}(stabilize=True) of a MatrixSymbol formula is not "
                           "supported yet; its matrix code uses the accurate forms only")
    items = list(args) if isinstance(args, (list, tuple)) else [args]
    for i, a in enumerate(items):
        if not isinstance(a, (Symbol, MatrixSymbol)):
            raise SymgradError(f"args[{i}] is {a!r}; with matrix formulas, arguments are "
                               "Symbols and MatrixSymbols")
    if getattr(expr, "is_Matrix", False) or not getattr(expr, "is_scalar", True):
        raise SymgradError(f"{name} exports a matrix formula only when it is a scalar (a "
                           "loss); a matrix-valued one is not exported yet")
    ctx = export_context()
    grads = list(ctx.run(grad, expr, items))
    if backend == "jax":
        from .matrix_jax import matrix_to_jax as wrap
    else:
        from .matrix_torch import matrix_to_torch as wrap
    second = (f"second derivatives of matrix formulas are not exported yet: {name} of a "
              "MatrixSymbol formula gives symgrad's gradient only")
    return wrap(expr, grads, items, second)
