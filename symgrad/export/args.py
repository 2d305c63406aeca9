"""What the exported functions take and return: the user's ``args`` (a
symbol, or a sequence whose items are symbols or Matrices / Arrays of
symbols, one array argument each) and ``expr`` (an expression or a pytree
of them, :mod:`symgrad.shapes`)."""

from __future__ import annotations

from dataclasses import dataclass

from sympy import MatrixBase, NDimArray, Symbol

from ..errors import SymgradError
from ..shapes import Struct, flatten_exprs, flatten_symbols

__all__ = ["Signature", "signature"]


@dataclass(frozen=True)
class Signature:
    symbols: list  # every scalar symbol, flat
    params: list  # per positional argument: its shape (() for a symbol)
    exprs: list  # the flat outputs
    struct: Struct  # how to rebuild the outputs
    single: bool  # args was one symbol / one matrix: f(x), not f(*xs)

    def split(self, values: tuple, take, reshape) -> list:
        """The flat per-symbol values from the positional ``values``."""
        if len(values) != len(self.params):
            raise SymgradError(
                f"the exported function takes {len(self.params)} argument(s) "
                f"(one per item of args), got {len(values)}"
            )
        flat: list = []
        for i, (v, shape) in enumerate(zip(values, self.params)):
            if not shape:
                flat.append(v)
                continue
            n = 1
            for d in shape:
                n *= d
            v = take(v)
            if tuple(v.shape[:len(shape)]) != shape:
                raise SymgradError(
                    f"argument {i} has shape {tuple(v.shape)}; its symbols form a "
                    f"{shape} array, so its leading axes must be {shape}"
                )
            flat.extend(reshape(v, (n,) + tuple(v.shape[len(shape):]))[k] for k in range(n))
        return flat

    def build(self, outs: list, stack) -> object:
        def leaf(st: Struct, entries: list) -> object:
            if st.kind == "scalar":
                return entries[0]
            return stack(entries, st.shape)

        return self.struct.map_leaves(leaf, list(outs))


def signature(expr: object, args: object) -> Signature:
    items = [args] if isinstance(args, (Symbol, MatrixBase, NDimArray)) else args
    single = items is not args
    if not isinstance(items, (list, tuple)):
        raise SymgradError(
            f"args is {args!r} ({type(args).__name__}); pass a Symbol, or a list of Symbols "
            "and Matrices of Symbols (one array argument each)"
        )
    symbols: list = []
    params: list = []
    for i, a in enumerate(items):
        syms, st = flatten_symbols(a, f"args[{i}]")
        if st.kind == "scalar":
            params.append(())
        elif st.kind in ("matrix", "array"):
            params.append(tuple(st.shape))
        elif st.kind == "tuple" and not st.parts:  # an inner list: one vector argument
            params.append((len(syms),))
        else:
            raise SymgradError(
                f"args[{i}] is {st.describe()}; an argument is a Symbol or a Matrix / Array "
                "of Symbols"
            )
        symbols.extend(syms)
    if len(set(symbols)) != len(symbols):
        raise SymgradError("args: a symbol appears twice")
    flat, struct = flatten_exprs(expr, "expr")
    if not flat:
        raise SymgradError("expr holds no expression")
    return Signature(symbols, params, flat, struct, single)


def export_context():
    """A context holding the override maps active now, as plain mappings: the
    derivatives of later orders are taken lazily, after the user's
    ``gradient_override_map`` block may have ended, and must still see it."""
    from contextvars import copy_context

    from ..resolver import ACTIVE_MAPS, note_differentiation

    note_differentiation()  # exporting differentiates (now and later) under the maps
    maps = tuple({k: m.get(k) for k in m if m.get(k) is not None}
                 for m in ACTIVE_MAPS.get() if not getattr(m, "closed", False))
    ctx = copy_context()
    ctx.run(ACTIVE_MAPS.set, maps)
    return ctx
