"""Functions whose derivatives you choose: ``custom_gradient`` (TensorFlow's
interface) and ``custom_jvp`` / ``custom_vjp`` (JAX's)."""

from .gradient import custom_gradient
from .jax_style import custom_jvp, custom_vjp

__all__ = ["custom_gradient", "custom_jvp", "custom_vjp"]
