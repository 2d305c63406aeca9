"""symgrad: symbolic differentiation over SymPy expressions, driven by a
rule table whose rules you can override.

>>> from sympy import symbols, sin
>>> from symgrad import grad
>>> x, y = symbols("x y")
>>> grad(sin(x * y), [x, y])
[y*cos(x*y), x*cos(x*y)]
"""

from . import autodiff as _autodiff
from . import pickling as _pickling  # noqa: F401  (pickling keeps formulas as written)
from .attach import attach_gradient
from .autodiff import grad, hessian, jacobian, jvp, vjp
from .certified import certified
from .codegen import lambdify, numpy_code
from .compensated import compensated
from .custom import custom_gradient, custom_jvp, custom_vjp
from .errors import (
    ComplexValueError,
    NoRuleError,
    RuleError,
    ShapeError,
    StabilityWarning,
    SymgradError,
)
from .exact import exact
from .export import to_jax, to_torch
from .fpcore import FPCoreError, read_fpcore
from .functions import maximum, minimum, relu, rint, sigmoid, softplus
from .lowering import expand
from .matrices import elementwise, log_softmax, logsumexp, matrix_notation, mean, norm, softmax
from .matrices import sum as sum  # noqa: A004  jax.numpy's name, kept out of __all__
from .nodes import identity, stop_gradient, straight_through
from .overrides import gradient_override_map, override, register_gradient, unregister_gradient
from .parsing import ParseError, parse
from .printing import program
from .rewrites import lowered_safe_forms as _lowered_safe_forms
from .scaled import scaled
from .select import cond, where
from .stability import StabilityReport, check_stability
from .stability.check_gradient import check_gradient
from .stability.stabilize import stabilize
from .widen import widen

# grad(..., stabilize=True) lowers and rewrites: stages after differentiation,
# composed here, at the front, so that autodiff imports nothing downstream.
_autodiff.stabilized = _lowered_safe_forms

__all__ = [
    "grad",
    "jacobian",
    "hessian",
    "jvp",
    "vjp",
    "register_gradient",
    "unregister_gradient",
    "gradient_override_map",
    "override",
    "stop_gradient",
    "identity",
    "straight_through",
    "where",
    "cond",
    "attach_gradient",
    "custom_gradient",
    "custom_jvp",
    "custom_vjp",
    "rint",
    "sigmoid",
    "softplus",
    "relu",
    "maximum",
    "minimum",
    "lambdify",
    "numpy_code",
    "check_stability",
    "check_gradient",
    "stabilize",
    "StabilityReport",
    "expand",
    "SymgradError",
    "StabilityWarning",
    "RuleError",
    "NoRuleError",
    "ComplexValueError",
    "ShapeError",
    "parse",
    "ParseError",
    "read_fpcore",
    "FPCoreError",
    "program",
    "matrix_notation",
    "widen",
    "elementwise",
    "mean",
    "logsumexp",
    "softmax",
    "log_softmax",
    "norm",
    "to_jax",
    "to_torch",
    "compensated",
    "certified",
    "exact",
    "scaled",
]

__version__ = "0.1.0"
