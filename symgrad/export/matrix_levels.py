"""The derivative levels of an exported matrix formula (``MatrixSymbol``
arguments), whatever the framework.

A level is a list of matrix (or scalar) formulas of a list of inputs.  Its
derivatives are levels too, built lazily the first time the framework asks,
in the context of the export (the overrides active then):

* :meth:`MatrixLevel.jvp`: symgrad's Jacobian-vector product of the
  formulas along fresh tangent symbols for the inputs in ``mask``
  (``symgrad.jvp`` at the matrix level), a level of the inputs and the
  tangents, linear in the tangents (JAX's rule; JAX's reverse mode
  transposes it, linear algebra only, never differentiating emitted code);
* :meth:`MatrixLevel.vjp`: symgrad's vector-Jacobian product for the
  inputs in ``mask`` with fresh cotangent symbols for the outputs in
  ``outs`` (``symgrad.vjp``), a level of the inputs and the cotangents
  (PyTorch's backward; double backward differentiates that level, by its
  own ``vjp``);
* :meth:`MatrixLevel.gradient`: for a scalar formula, symgrad's matrix
  gradient per input, a level of the inputs alone (the coefficients the
  first order contracts with tangents or cotangents).

Each level's code is symgrad's matrix code (:mod:`symgrad.codegen.matrix`)
for the framework (:func:`~symgrad.export.source.compile_matrix`); a
formula that is zero is not emitted, the framework gives zeros of the
shape of what it stands for.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from contextvars import Context

from sympy import Basic, MatrixSymbol, S, Symbol
from sympy.matrices.expressions.special import ZeroMatrix

from ..autodiff import grad, jvp, vjp

__all__ = ["MatrixLevel", "is_zero", "shape_of"]

_fresh = itertools.count()


def _like(s: Basic, kind: str) -> Basic:
    """A fresh symbol of ``s``'s shape (a tangent or a cotangent)."""
    name = f"_{kind}{next(_fresh)}"
    if getattr(s, "is_Matrix", False):
        return MatrixSymbol(name, *s.shape)
    return Symbol(name, real=True)


def shape_of(e: Basic) -> tuple:
    """A formula's own shape: a matrix's, () for a scalar."""
    return tuple(int(d) for d in e.shape) if getattr(e, "is_Matrix", False) else ()


def is_zero(e: Basic) -> bool:
    """Whether ``e`` is a zero the framework fills in (0 or a ZeroMatrix)."""
    return e is S.Zero or isinstance(e, ZeroMatrix) or (getattr(e, "is_zero", None) is True
                                                        and getattr(e, "is_Matrix", False))


class MatrixLevel:
    """Formulas ``exprs`` of ``inputs`` (Symbols and MatrixSymbols), their
    code per framework, and their derivative levels, built on first use."""

    def __init__(self, inputs: list, exprs: list, ctx: Context, order: int = 0) -> None:
        self.inputs, self.exprs, self.ctx, self.order = list(inputs), list(exprs), ctx, order
        self.live = [k for k, e in enumerate(self.exprs) if not is_zero(e)]
        self._kernels: dict[str, Callable] = {}
        self._next: dict[tuple, MatrixLevel] = {}

    def kernel(self, backend: str) -> Callable:
        """The compiled matrix code of the live formulas (``source``: its text)."""
        if backend not in self._kernels:
            from .source import compile_matrix

            if not self.live:  # every formula 0 (a derivative of a linear one): no code

                def nothing(*xs):
                    return ()

                nothing.source = ""
                self._kernels[backend] = nothing
            else:
                self._kernels[backend] = compile_matrix(
                    backend, self.inputs, [self.exprs[k] for k in self.live])
        return self._kernels[backend]

    def jvp(self, mask: tuple) -> MatrixLevel:
        """J·t along tangents for ``inputs[j]``, j in ``mask``: a level of
        the inputs, then those tangents."""
        key = ("jvp", mask)
        if key not in self._next:
            wrt = [self.inputs[j] for j in mask]
            ts = [_like(s, "t") for s in wrt]
            outs = self.ctx.run(jvp, list(self.exprs), wrt, ts)
            self._next[key] = MatrixLevel(self.inputs + ts, list(outs), self.ctx, self.order + 1)
        return self._next[key]

    def vjp(self, mask: tuple, outs: tuple) -> MatrixLevel:
        """cᵀ·J for ``inputs[j]``, j in ``mask``, with cotangents for
        ``exprs[i]``, i in ``outs``: a level of the inputs, then those
        cotangents."""
        key = ("vjp", mask, outs)
        if key not in self._next:
            wrt = [self.inputs[j] for j in mask]
            picked = [self.exprs[i] for i in outs]
            cs = [_like(e, "c") for e in picked]
            got = self.ctx.run(vjp, picked, wrt, cs)
            self._next[key] = MatrixLevel(self.inputs + cs, list(got), self.ctx, self.order + 1)
        return self._next[key]

    def gradient(self) -> MatrixLevel:
        """The matrix gradient of the one scalar formula per input: a level
        of the inputs alone."""
        key = ("grad",)
        if key not in self._next:
            (e,) = self.exprs
            got = self.ctx.run(grad, e, list(self.inputs))
            self._next[key] = MatrixLevel(self.inputs, list(got), self.ctx, self.order + 1)
        return self._next[key]
