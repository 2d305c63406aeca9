"""Tracing a custom function once per call, and telling equal traces apart
from different ones: the input dummies are fixed per input shape, and a
rule function is compared by what its behaviour depends on."""

from __future__ import annotations

import functools
import types
from collections.abc import Hashable, Sequence

from sympy import Dummy, ImmutableMatrix, MatrixBase, NDimArray
from sympy.tensor.array import ImmutableDenseNDimArray

from ..shapes import Struct

__all__ = ["Traces", "TraceDummy", "dummies_like", "state_key"]


class TraceDummy(Dummy):
    """A dummy standing for a traced input (or cotangent, or tangent) of a
    custom function.  A custom function defined inside another's rule (the
    nested patterns of TensorFlow's documentation) reads these as values,
    as a TensorFlow custom gradient reads captured tensors: they are not
    its variables, and no gradient flows to them through it."""


def dummies_like(structs: Sequence[Struct], prefix: str) -> tuple[list[Dummy], list[object]]:
    """Real dummies for each flattened argument, and the arguments rebuilt
    from them in their original shapes."""
    flat: list[Dummy] = []
    shaped: list[object] = []
    for i, st in enumerate(structs):
        ds = [TraceDummy(f"{prefix}{i}_{j}", real=True) for j in range(st.size)]
        flat.extend(ds)
        shaped.append(st.build(ds))
    return flat, shaped


class Traces:
    """The templates of one custom function, one per distinct trace, and
    one set of input dummies per input shape (so equal traces are equal)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._dummies: dict[tuple, list[Dummy]] = {}
        self.templates: dict[Hashable, object] = {}

    def inputs(self, structs: Sequence[Struct]) -> tuple[tuple, list[Dummy], list[object]]:
        """``(shape key, flat dummies, dummies shaped as the arguments)``."""
        key = tuple(structs)
        flat = self._dummies.get(key)
        if flat is None:
            flat = self._dummies[key] = dummies_like(structs, self.name)[0]
        shaped, pos = [], 0
        for st in structs:
            shaped.append(st.build(flat[pos : pos + st.size]))
            pos += st.size
        return key, flat, shaped

    def clear(self) -> None:
        self.templates.clear()


# ---- what a rule function's behaviour depends on ---------------------------------


class _Ident:
    """An unhashable value compared by identity (and kept alive by the key)."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Ident) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


def state_key(value: object, depth: int = 0) -> Hashable:
    """A hashable stand-in for ``value`` that is equal for two values that
    behave alike: a function by its code, defaults and the contents of its
    closure cells; Matrices, lists and dicts by their contents; anything
    else unhashable by identity.

    >>> def make(k):
    ...     return lambda dy: k * dy
    >>> state_key(make(2)) == state_key(make(2)), state_key(make(2)) == state_key(make(3))
    (True, False)
    """
    if depth > 4:
        return _Ident(value)
    d = depth + 1
    if isinstance(value, types.FunctionType):
        cells = []
        for c in value.__closure__ or ():
            try:
                cells.append(state_key(c.cell_contents, d))
            except ValueError:  # an empty cell
                cells.append(None)
        return ("fn", value.__code__, state_key(value.__defaults__, d),
                state_key(value.__kwdefaults__, d), tuple(cells))
    if isinstance(value, types.MethodType):
        return ("method", state_key(value.__func__, d), state_key(value.__self__, d))
    if isinstance(value, functools.partial):
        return ("partial", state_key(value.func, d), state_key(value.args, d),
                state_key(value.keywords, d))
    if isinstance(value, MatrixBase):
        return ("matrix", ImmutableMatrix(value))
    if isinstance(value, NDimArray):
        return ("array", ImmutableDenseNDimArray(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(state_key(v, d) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((state_key(k, d), state_key(v, d)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        return _Ident(value)
    return (type(value), value)
