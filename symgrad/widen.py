"""``widen(u)``: the value ``u``, evaluated by generated code in the next
wider float type.

Mathematically ``widen`` is the identity: every proof, the mpmath ground
truth and differentiation see ``u``.  Only code generation treats it
differently (:mod:`symgrad.codegen.widening`): the inputs of the subtree
are cast up at its leaves (float32 to float64, float64 to ``np.longdouble``
where that type has more than 52 mantissa bits, as the 80-bit x87 type of
x86-64 Linux does; complex types likewise), the subtree is computed there,
and its value is cast back to the type of its inputs.  Where
``np.longdouble`` is float64 (MSVC, macOS on ARM), widening float64 is a
no-op that costs the copies.

It is for the formulas no float rewrite makes accurate: at a zero crossing
of ``sin(x + eps) - sin(x)`` (a pole of the tangent's difference), any
formula built from float64 values of ``sin`` and ``cos``, each within an
ulp, loses ``log2(|terms| / |f|)`` bits in its last subtraction; eleven
more bits of every term keep them.
"""

from __future__ import annotations

from collections.abc import Iterable

from mpmath.libmp import prec_to_dps
from sympy import Basic, Function, Integer
from sympy.core.function import ArgumentIndexError

from .graph import postorder
from .nodes import _leafwise
from .notation import latex_call, pretty_call
from .safe import StrictArgs

__all__ = ["FloatMarker", "widen", "has_widen"]


class FloatMarker(StrictArgs, Function):
    """A marker that is the identity for mathematics (proofs, the ground
    truth, differentiation) and changes only how generated code computes
    its argument: :class:`widen` (a wider type) and
    :class:`symgrad.compensated.compensated` (pairs of the working type).
    Everything but ``eval`` (which markers a marker absorbs) is shared here:
    a Matrix or list is marked entry by entry, the derivative is 1, the
    value and the assumptions are the argument's, and it prints as a call."""

    nargs = 1
    _symgrad_argnames = ("u",)
    _symgrad_expr_only = True

    def __new__(cls, u, **options):
        mapped = _leafwise(cls, u, options)
        if mapped is not None:
            return mapped
        return super().__new__(cls, u, **options)

    def fdiff(self, argindex=1):
        if argindex != 1:
            raise ArgumentIndexError(self, argindex)
        return Integer(1)

    def _eval_evalf(self, prec):
        return self.args[0].evalf(prec_to_dps(prec))

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_is_finite(self):
        return self.args[0].is_finite

    def _eval_is_positive(self):
        return self.args[0].is_positive

    def _eval_is_negative(self):
        return self.args[0].is_negative

    def _eval_is_zero(self):
        return self.args[0].is_zero

    def _eval_conjugate(self):
        return self.func(self.args[0].conjugate())

    def _latex(self, printer, exp=None):
        return latex_call(printer, self.func.__name__, self.args, exp)

    def _pretty(self, printer, **kwargs):
        return pretty_call(printer, self.func.__name__, self.args)


class widen(FloatMarker):  # noqa: N801  (reads like the other markers)
    """The value ``u``, computed by generated code in the next wider float
    type (float32 → float64, float64 → ``np.longdouble`` where it is wider:
    80-bit on x86-64 Linux; otherwise float64, a no-op), and cast back.

    Mathematically the identity: proofs and the ground truth see ``u``, and
    its derivative is ``u``'s (``d widen(u) = du``, itself not widened: to
    widen a derivative, wrap it, or ``stabilize`` it).  A number is itself;
    ``widen(widen(u))`` is ``widen(u)``; a Matrix or list is widened entry by
    entry.

    >>> import numpy as np
    >>> from sympy import symbols, sin
    >>> from symgrad import lambdify
    >>> x, eps = symbols("x eps")
    >>> f = sin(x + eps) - sin(x)
    >>> widen(f)
    widen(-sin(x) + sin(eps + x))
    >>> x0, e0 = np.float32(1), np.float32(1e-4)  # the truth: 5.4026022e-05
    >>> lambdify([x, eps], f, dtype="float32")(x0, e0)  # cancels: 3 digits right
    np.float32(5.4001808e-05)
    >>> lambdify([x, eps], widen(f), dtype="float32")(x0, e0)  # in float64, cast back
    np.float32(5.4026023e-05)
    """

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_Number or isinstance(u, widen):
            return u
        return None


def has_widen(exprs: Iterable[Basic]) -> bool:
    """Whether any of ``exprs`` holds a ``widen`` node (one walk of the DAG:
    SymPy's ``has`` walks the tree, exponential in a DAG's depth)."""
    roots = [e for e in exprs if isinstance(e, Basic)]
    order, _ = postorder(roots, lambda n: n.args)
    return any(isinstance(n, widen) for n in order)
