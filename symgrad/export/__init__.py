"""Export to JAX and PyTorch: ``to_jax``, ``to_torch`` (formulas whose
derivatives of every order are symgrad's) and the code behind
``lambdify(..., backend="jax" | "torch")``.  Neither library is imported
until one of these is called (they are the ``jax`` and ``torch`` extras)."""

from .jax_export import to_jax
from .torch_export import to_torch

__all__ = ["to_jax", "to_torch"]
