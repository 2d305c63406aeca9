"""The matrix-formula route of ``to_jax`` / ``to_torch`` (``MatrixSymbol``
arguments), shared by both: the checks, and the formulas' derivative
levels (:mod:`.matrix_levels`: symgrad's matrix gradient, Jacobian-vector
and vector-Jacobian products, as matrix code) handed to the framework's
wrapper (:mod:`.matrix_jax`, :mod:`.matrix_torch`).  An output is a scalar
(a loss) or a matrix formula, or a list or tuple of them."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sympy import Basic, MatrixBase, MatrixSymbol, NDimArray, Symbol

from ..errors import SymgradError
from .args import export_context
from .matrix_levels import MatrixLevel

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
        raise SymgradError(
            f"{name}(stabilize=True) of a MatrixSymbol formula is not supported: symgrad."
            "stabilize of a matrix formula gives the explicit matrix of its entries where "
            "the matrix form does not verify, which matrix code cannot run; export it "
            "without stabilize (its matrix code uses the accurate forms), or over a Matrix "
            "of Symbols (the entries are stabilized one by one)")
    items = list(args) if isinstance(args, (list, tuple)) else [args]
    for i, a in enumerate(items):
        if not isinstance(a, (Symbol, MatrixSymbol)):
            raise SymgradError(f"args[{i}] is {a!r}; with matrix formulas, arguments are "
                               "Symbols and MatrixSymbols")
    outs = list(expr) if isinstance(expr, (list, tuple)) else [expr]
    for k, e in enumerate(outs):
        if not isinstance(e, Basic) or isinstance(e, (MatrixBase, NDimArray)):
            raise SymgradError(f"{name}: output {k} is {type(e).__name__}; with matrix "
                               "formulas, each output is a scalar or a matrix expression")
    level = MatrixLevel(items, outs, export_context())
    if backend == "jax":
        from .matrix_jax import matrix_to_jax as wrap
    else:
        from .matrix_torch import matrix_to_torch as wrap
    f = wrap(level, not isinstance(expr, (list, tuple)))
    if not isinstance(expr, (list, tuple)):
        return f
    inner, kind = f, type(expr)

    def call(*xs):
        return kind(inner(*xs))  # the user's list or tuple back

    call.__dict__.update(inner.__dict__)  # source, Function
    return call
