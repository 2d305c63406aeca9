"""Printers for JAX (``jax.numpy``, ``jax.scipy.special``) and PyTorch
(``torch``, ``torch.special``): symgrad's NumPy printer
(:class:`~symgrad.codegen.printer.KernelPrinter`) with its module names
translated.

The NumPy printer writes every library call as ``np.NAME`` or
``scipy.special.NAME`` (argument and temporary names are sanitized and never
end in a dot, so only the printer writes these prefixes); a backend printer
prints a node the same way, then maps each such call to the backend's
function of the same meaning: the same name where the backend has it, a
name of :mod:`symgrad.export.torch_ops` where PyTorch's differs in
semantics (``torch.maximum`` refuses a Python number), and otherwise a
:class:`~symgrad.codegen.printer.NoNumpyFormError` naming the function and
the backend.  ``And``/``Or`` are chained binary calls (``np.logical_and.reduce``
has no PyTorch form), and for PyTorch a constant subexpression
(``log(2)``) is printed as its float value (``torch.log`` refuses a Python
number).
"""

from __future__ import annotations

import math
import re

from sympy import Basic, Expr

from ..codegen.printer import KernelPrinter, NoNumpyFormError
from ..rewrites.forms import digamma_remainder, lgamma_remainder, polygamma_remainder

__all__ = ["JaxPrinter", "TorchPrinter", "printer_for", "HEADERS", "RESERVED"]

_CALL = re.compile(r"\b(np|scipy\.special)\.(\w+)")

# NumPy names PyTorch spells differently (same meaning, tensor arguments)
_TORCH_RENAME = {"equal": "eq", "not_equal": "ne", "conjugate": "conj", "rint": "round",
                 "iscomplexobj": "is_complex"}
# NumPy names whose torch function has NumPy's meaning for tensor arguments
_TORCH_SAME = frozenset("""
sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh exp expm1 exp2 log
log1p log2 log10 sqrt abs sign floor ceil where greater greater_equal less less_equal
logical_and logical_or logical_not logical_xor isnan isinf isfinite real imag sinc fmod
nan pi e inf eq ne conj round is_complex
""".split())
# NumPy names with a helper in torch_ops (a Python number among the arguments, or
# no torch function of that name)
_TORCH_OPS = frozenset(
    "maximum minimum fmin heaviside mod arctan2 hypot cbrt ldexp logaddexp logaddexp2".split())
# scipy.special names and their torch.special / torch_ops forms
_TORCH_SPECIAL = {
    "erf": "torch.special.erf", "erfc": "torch.special.erfc", "erfinv": "torch.special.erfinv",
    "erfcx": "torch.special.erfcx", "gammaln": "torch.special.gammaln",
    "digamma": "_sg.digamma", "expit": "torch.special.expit",
    "logit": "torch.special.logit", "xlogy": "torch.special.xlogy",
    "xlog1py": "torch.special.xlog1py", "i0": "torch.special.i0", "i0e": "torch.special.i0e",
    "i1": "torch.special.i1", "i1e": "torch.special.i1e", "ndtr": "torch.special.ndtr",
    "ndtri": "torch.special.ndtri", "log_ndtr": "torch.special.log_ndtr",
    "polygamma": "_sg.polygamma", "gamma": "_sg.gamma", "loggamma": "_sg.loggamma",
    "zeta": "_sg.zeta", "psi": "_sg.digamma",
}
_JAX_SPECIAL = frozenset("""
erf erfc erfinv erfcx gammaln digamma polygamma zeta gamma expit logit xlogy xlog1py i0e i1e
i0 i1 ndtr ndtri log_ndtr beta betaln gammainc gammaincc expn expi spence loggamma factorial
""".split())

# scipy.special names jax.scipy.special spells differently (same meaning)
_JAX_RENAME = {"psi": "digamma"}  # (the remainders' definitions of symgrad.rewrites.forms)

# XLA computes erf one element at a time in float64, which serializes the
# fused loop around it, and JAX's erfcx is 0 where XLA's erfc is subnormal:
# symgrad.export.jax_ops writes them vectorizable and accurate
_JAX_OPS = frozenset({"erf", "erfcx", "digamma", "polygamma"})
# XLA's digamma (polygamma(0, x)) loses 63 bits at ψ's positive root and 4-9
# across [1/2, 5/2], and its polygamma under jax.jit 3.5 bits everywhere
# (n! as exp(lgamma(n + 1))): jax_ops' (symgrad.rewrites.remainders.digamma,
# ζ(n + 1, x) times an exact n!); PyTorch's digamma likewise (torch_ops)
# and XLA's tanh is 6.5 ulps off in float64 (3.8 in float32) near +-1; its log1p
# is up to 128 ulps off in float64 and cost mish's fused gradient kernel 12.6 ms of 28.4
_JAX_NP_OPS = frozenset({"tanh", "log1p", "frexp", "ldexp"})  # (and a subnormal's frexp/ldexp)

HEADERS = {
    "jax": "import jax.numpy as jnp\nimport jax.scipy.special as jsp\n"
           "from symgrad.export import jax_ops as _jg\n",
    "torch": "import torch\nfrom symgrad.export import torch_ops as _sg\n",
}
RESERVED = frozenset({"jnp", "jsp", "_jg", "jax", "torch", "_sg", "np", "scipy"})


def _jax_name(m: re.Match) -> str:
    mod, name = m.group(1), m.group(2)
    if mod == "np":
        return f"_jg.{name}" if name in _JAX_NP_OPS else f"jnp.{name}"
    if name in _JAX_OPS:
        return f"_jg.{name}"
    if name in _JAX_SPECIAL:
        return f"jsp.{name}"
    if name in _JAX_RENAME:
        return f"_jg.{_JAX_RENAME[name]}"
    raise NoNumpyFormError(f"scipy.special.{name} has no jax.scipy.special form")


def _torch_name(m: re.Match) -> str:
    mod, name = m.group(1), m.group(2)
    if mod == "np":
        name = _TORCH_RENAME.get(name, name)
        if name in _TORCH_SAME:
            return f"torch.{name}"
        if name in _TORCH_OPS:
            return f"_sg.{name}"
        raise NoNumpyFormError(f"numpy.{name} has no PyTorch form in symgrad's export")
    if name in _TORCH_SPECIAL:
        return _TORCH_SPECIAL[name]
    raise NoNumpyFormError(f"scipy.special.{name} has no torch.special form")


# Stirling's remainders of log-gamma and digamma, without the library's lgamma
# and digamma: symgrad.rewrites.remainders' algorithm (NumPy's code calls it
# too) in the framework's ops (the node prints itself before any printer
# method, as NumPy's call)
_REMAINDERS = (lgamma_remainder, digamma_remainder, polygamma_remainder)


class _Translating(KernelPrinter):
    _translate = staticmethod(_jax_name)
    _ops = "_jg"

    def __init__(self) -> None:
        super().__init__(complex_=False)  # real code: I is NaN, as in the NumPy kernels

    def _print(self, expr: Basic, **kwargs) -> str:
        if isinstance(expr, _REMAINDERS):
            args = ", ".join(self._print(a) for a in expr.args)  # (an order: an integer)
            return f"{self._ops}.{type(expr).__name__}({args})"
        return _CALL.sub(self._translate, super()._print(expr, **kwargs))

    def _logic(self, fn: str, expr: Expr) -> str:
        args = [self._print(a) for a in expr.args]
        out = args[-1]
        for a in reversed(args[:-1]):
            out = f"{fn}({a}, {out})"
        return out

    def _print_And(self, expr: Expr) -> str:
        return self._logic("np.logical_and", expr)

    def _print_Or(self, expr: Expr) -> str:
        return self._logic("np.logical_or", expr)


class JaxPrinter(_Translating):
    """Lines of ``jax.numpy`` / ``jax.scipy.special`` code."""

    def _print_loggamma(self, expr: Expr) -> str:
        # XLA's lgamma loses up to 5 bits on (0, 10) besides its zeros (NumPy's
        # text fixes only [1/2, 5/2)): jax_ops' (symgrad.rewrites.remainders)
        return f"_jg.loggamma({self._print(expr.args[0])})"


class TorchPrinter(_Translating):
    """Lines of ``torch`` / ``torch.special`` code."""

    _translate = staticmethod(_torch_name)
    _ops = "_sg"

    def _print(self, expr: Basic, **kwargs) -> str:
        if isinstance(expr, Expr) and expr.args and expr.is_number \
                and not expr.is_Number and not expr.is_Relational:
            v = complex(expr.evalf(20))
            if v.imag == 0 and math.isfinite(v.real):
                return f"({v.real!r})"  # torch.log(2) refuses a Python number
        return super()._print(expr, **kwargs)


def printer_for(backend: str) -> KernelPrinter:
    return {"jax": JaxPrinter, "torch": TorchPrinter}[backend]()
