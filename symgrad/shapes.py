"""Flattening what users pass (an expression, a list or tuple, a SymPy
Matrix or Array) to a list, and rebuilding that structure afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from sympy import Basic, Expr, ImmutableMatrix, MatrixBase, NDimArray, Symbol, sympify
from sympy.core.sympify import SympifyError
from sympy.tensor.array import ImmutableDenseNDimArray

from .errors import ShapeError, SymgradError, describe
from .safe import refuse_string

__all__ = ["Struct", "flatten_exprs", "flatten_symbols"]


@dataclass(frozen=True)
class Struct:
    """How a flat list maps back to what the user passed."""

    kind: str  # "scalar", "tuple", "matrix", "array"
    shape: tuple
    parts: tuple = ()  # a tuple of matrices / arrays: each item's Struct

    @property
    def size(self) -> int:
        if self.parts:
            return sum(p.size for p in self.parts)
        n = 1
        for d in self.shape:
            n *= d
        return n

    def build(self, flat: list) -> object:
        if self.parts:
            out, pos = [], 0
            for p in self.parts:
                out.append(p.build(flat[pos : pos + p.size]))
                pos += p.size
            return tuple(out)
        if self.kind == "scalar":
            return flat[0]
        if self.kind == "tuple":
            return tuple(flat)
        if self.kind == "matrix":
            return ImmutableMatrix(self.shape[0], self.shape[1], flat).as_mutable()
        return ImmutableDenseNDimArray(flat, self.shape)

    def describe(self) -> str:
        if self.kind == "scalar":
            return "a scalar"
        if self.kind == "tuple":
            return f"a sequence of {self.shape[0]}"
        article = "an" if self.kind == "array" else "a"
        return f"{article} {self.kind} of shape {self.shape}"


def _to_expr(value: object, where: str) -> Expr:
    refuse_string(value, None, where)
    if isinstance(value, Expr):
        return value
    nested = isinstance(value, (list, tuple)) or hasattr(value, "shape")
    hint = "; for a nested list or a NumPy array pass sympy.Array(value)" if nested else ""
    try:
        out = sympify(value, strict=True)
    except SympifyError:
        raise SymgradError(
            f"{where} is {value!r} ({type(value).__name__}), not a SymPy expression{hint}"
        ) from None
    if not isinstance(out, Expr):
        raise SymgradError(
            f"{where} is {value!r} ({type(value).__name__}), not a SymPy expression"
        )
    return out


def _structure(value: object) -> tuple[list, Struct]:
    if isinstance(value, MatrixBase):
        return list(value), Struct("matrix", tuple(value.shape))
    if isinstance(value, NDimArray):
        # iterating a rank >= 2 array yields sub-arrays; index it row-major
        shape = tuple(value.shape)
        return [value[i] for i in product(*map(range, shape))], Struct("array", shape)
    if isinstance(value, (list, tuple)):
        return list(value), Struct("tuple", (len(value),))
    return [value], Struct("scalar", ())


def flatten_exprs(value: object, what: str, nested: bool = False) -> tuple[list[Expr], Struct]:
    """``value`` as a flat list of expressions, and its structure.

    With ``nested``, a list or tuple holding a Matrix or Array (the several
    array outputs of a custom function) is flattened item by item.
    """
    if (
        nested
        and isinstance(value, (list, tuple))
        and any(isinstance(v, (MatrixBase, NDimArray)) for v in value)
    ):
        flat: list[Expr] = []
        parts = []
        for i, v in enumerate(value):
            items, st = flatten_exprs(v, f"{what}[{i}]")
            flat.extend(items)
            parts.append(st)
        return flat, Struct("tuple", (len(value),), tuple(parts))
    items, struct = _structure(value)
    return [_to_expr(v, f"{what}[{i}]" if struct.kind != "scalar" else what)
            for i, v in enumerate(items)], struct


def flatten_symbols(value: object, what: str = "wrt") -> tuple[list[Symbol], Struct]:
    """``value`` as a flat list of symbols; a clear error for anything else."""
    items, struct = _structure(value)
    for i, s in enumerate(items):
        if not isinstance(s, Symbol):
            where = what if struct.kind == "scalar" else f"{what}[{i}]"
            kind = type(s).__name__
            hint = (
                "substitute a symbol for it first (e.g. u = Symbol('u'); "
                "expr.subs(that, u)) and differentiate with respect to u"
                if isinstance(s, Basic)
                else "for a nested list pass sympy.Array(value)"
                if isinstance(s, (list, tuple))
                else "pass sympy.Symbol objects"
            )
            raise SymgradError(
                f"can only differentiate with respect to symbols, but {where} is "
                f"{describe(s) if isinstance(s, Basic) else repr(s)} ({kind}); {hint}"
            )
    return items, struct


def check_same(struct: Struct, other: Struct, what: str, of: str) -> None:
    """``other`` (tangents, cotangents) must have ``struct``'s shape."""
    both_shaped = struct.kind in ("matrix", "array") and other.kind in ("matrix", "array")
    if struct.size != other.size or (both_shaped and struct.shape != other.shape):
        raise ShapeError(
            f"{what} is {other.describe()} but {of} is {struct.describe()}; "
            f"give one {what[:-1] if what.endswith('s') else what} per entry of {of}, "
            "in the same shape"
        )


