"""``compensated(u)``: the value ``u``, evaluated by generated code with
compensated arithmetic in the working float type.

Mathematically ``compensated`` is the identity: every proof, the mpmath
ground truth and differentiation see ``u``.  Only code generation treats
it differently (:mod:`symgrad.codegen.compensating`): every value of the
subtree is an unevaluated sum of two floats of the working type (a
"double-double" in float64, a "float-float" in float32), computed with
error-free transformations (Knuth's TwoSum, Dekker's TwoProduct by
splitting), so sums, products, quotients and square roots carry about
twice the type's precision; an elementary function ``f`` of such a pair
``h + l`` is ``f(h) + f'(h)*l`` (its own rounding is not undone), and the
result is rounded to one float at the end.

It is the float form of :func:`symgrad.widen`: plain NumPy code in the
working type, so it runs on every platform (NumPy has no wider type than
float64 on Windows or ARM macOS), where a polynomial or rational formula
cancels (a determinant, Heron's formula, ``b*b - 4*a*c``), where a product
by an irrational constant rounds before a function that is sensitive to
it (``cos(theta*pi/180)``, ``exp(-(x - p)**2 * c)``), or where a sum's
terms cancel.  It does not help where the values of transcendental
functions themselves cancel (``sin(a)*cos(b) + x`` near 0): their
rounding stays.
"""

from __future__ import annotations

from .widen import FloatMarker

__all__ = ["compensated", "has_compensated"]


class compensated(FloatMarker):  # noqa: N801  (reads like widen)
    """The value ``u``, computed by generated code in compensated arithmetic
    of the working float type (pairs of floats: about twice the
    precision for sums, products, quotients and square roots), rounded to
    one float at the end; plain NumPy, on every platform.

    Mathematically the identity (proofs and the ground truth see ``u``; its
    derivative is ``u``'s).  A number is itself; a Matrix or list is
    compensated entry by entry.

    >>> import numpy as np
    >>> from sympy import symbols
    >>> from symgrad import lambdify
    >>> a, b, c = symbols("a b c")
    >>> disc = b**2 - 4*a*c  # the discriminant: at a = 1, b = 2 + 2**-26, c = 1 + 2**-26
    >>> args = (1.0, 2 + 2.0**-26, 1 + 2.0**-26)  # the truth is 2**-52
    >>> float(lambdify([a, b, c], disc)(*args))  # cancels: no bit right
    0.0
    >>> float(lambdify([a, b, c], compensated(disc))(*args)) == 2.0**-52
    True
    """

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.is_Number or isinstance(u, FloatMarker):
            return u
        return None


def has_compensated(exprs) -> bool:
    """Whether any of ``exprs`` holds a ``compensated`` node (one walk of
    the DAG)."""
    from .graph import postorder

    roots = [e for e in exprs if hasattr(e, "args")]
    order, _ = postorder(roots, lambda n: n.args)
    return any(isinstance(n, compensated) for n in order)
