"""NumPy code generation: straight-line, blocked functions (NumPy, and
``scipy.special`` for the special functions) from
SymPy expressions (see ``docs/codegen.md``)."""

from .build import lambdify, numpy_code

__all__ = ["lambdify", "numpy_code"]
