"""Flattening what users pass to a list, and rebuilding its structure
afterwards: an expression, a SymPy Matrix or Array, and pytrees of them
(tuples, lists, dicts, named tuples and dataclasses, nested), as JAX does.

A sequence comes back as the type it was (a list as a list, a tuple as a
tuple, as ``jax.grad`` gives them); a dict comes back as a dict with the
same keys, a named tuple or a dataclass as one of its own type.  A list and
a tuple of the same items have the same structure for comparisons
(cotangents for a list may be given as a tuple).  Dict entries
are flattened in sorted key order (JAX's), so two dicts with the same keys
line up whatever order they were written in.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from itertools import product

from sympy import (
    Basic,
    Expr,
    ImmutableMatrix,
    MatrixBase,
    MatrixExpr,
    MatrixSymbol,
    NDimArray,
    Symbol,
    sympify,
)
from sympy.core.sympify import SympifyError
from sympy.tensor.array import ImmutableDenseNDimArray

from .errors import ShapeError, SymgradError, describe
from .safe import refuse_string

__all__ = ["Struct", "flatten_exprs", "flatten_symbols", "check_same", "tree_product"]

_LEAVES = ("scalar", "matrix", "array")
_CONTAINERS = ("tuple", "dict", "namedtuple", "dataclass")


@dataclass(frozen=True)
class Struct:
    """How a flat list maps back to what the user passed.

    ``kind`` is a leaf (``"scalar"``, ``"matrix"``, ``"array"``) or a
    container (``"tuple"``, ``"dict"``, ``"namedtuple"``, ``"dataclass"``)
    whose items' structures are ``parts``; a tuple of scalars has no parts
    (it is the common case, kept flat).  ``node`` says how to rebuild a
    container: the dict's keys, the named tuple's type, the dataclass's
    type and field names.  ``seq`` is the type a ``"tuple"`` comes back
    as (``list`` for a list), not compared."""

    kind: str
    shape: tuple
    parts: tuple = ()
    node: object = None
    seq: type = field(default=tuple, compare=False)

    @property
    def size(self) -> int:
        if self.parts:
            return sum(p.size for p in self.parts)
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def is_leaf(self) -> bool:
        return self.kind in _LEAVES

    def items(self) -> tuple:
        """The item structures of a container (a flat tuple's scalars too)."""
        if self.parts or self.kind != "tuple":
            return self.parts
        return (Struct("scalar", ()),) * self.shape[0]

    def build(self, flat: list) -> object:
        if self.kind == "scalar":
            return flat[0]
        if self.kind == "matrix":
            return ImmutableMatrix(self.shape[0], self.shape[1], flat).as_mutable()
        if self.kind == "array":
            return ImmutableDenseNDimArray(flat, self.shape)
        if self.kind == "tuple" and not self.parts:
            return self.seq(flat)
        out, pos = [], 0
        for p in self.parts:
            out.append(p.build(flat[pos : pos + p.size]))
            pos += p.size
        return self._assemble(out)

    def _assemble(self, items: list) -> object:
        """The container from its items, already built."""
        if self.kind == "dict":
            return dict(zip(self.node, items))
        if self.kind == "namedtuple":
            return self.node(*items)
        if self.kind == "dataclass":
            cls, names = self.node
            return cls(**dict(zip(names, items)))
        return self.seq(items)

    def map_leaves(self, fn, flat: list | None = None) -> object:
        """The structure with each leaf replaced by ``fn(leaf, entries)``
        (``entries`` its slice of ``flat``, or its offsets ``(start,
        stop)`` when ``flat`` is None)."""
        def walk(st: Struct, pos: int) -> tuple[object, int]:
            if st.is_leaf:
                part = flat[pos : pos + st.size] if flat is not None else (pos, pos + st.size)
                return fn(st, part), pos + st.size
            items = []
            for p in st.items():
                v, pos = walk(p, pos)
                items.append(v)
            return st._assemble(items), pos

        return walk(self, 0)[0]

    def paths(self) -> list[str]:
        """An index path per flat entry: ``[0]``, ``['w'][1, 0]``, ..."""
        out: list[str] = []

        def walk(st: Struct, prefix: str) -> None:
            if st.kind == "scalar":
                out.append(prefix)
            elif st.is_leaf:
                out.extend(f"{prefix}[{', '.join(map(str, ix))}]"
                           for ix in product(*map(range, st.shape)))
            else:
                keys = _keys(st)
                for k, p in zip(keys, st.items()):
                    walk(p, f"{prefix}{k}")

        walk(self, "")
        return out

    def describe(self) -> str:
        if self.kind == "scalar":
            return "a scalar"
        if self.kind == "tuple":
            return f"a sequence of {self.shape[0]}"
        if self.kind == "dict":
            return f"a dict with keys {list(self.node)}"
        if self.kind == "namedtuple":
            return f"a {self.node.__name__} (named tuple)"
        if self.kind == "dataclass":
            return f"a {self.node[0].__name__} (dataclass)"
        article = "an" if self.kind == "array" else "a"
        return f"{article} {self.kind} of shape {self.shape}"


def _keys(st: Struct) -> list[str]:
    if st.kind == "dict":
        return [f"[{k!r}]" for k in st.node]
    if st.kind == "dataclass":
        return [f".{n}" for n in st.node[1]]
    if st.kind == "namedtuple":
        return [f".{n}" for n in st.node._fields]
    return [f"[{i}]" for i in range(st.shape[0])]


def _to_expr(value: object, where: str) -> Expr:
    refuse_string(value, None, where)
    if isinstance(value, Expr):
        return value
    hint = "; for a NumPy array pass sympy.Array(value)" if hasattr(value, "shape") else ""
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


def _container(value: object, where: str) -> tuple[str, list, list[str], object] | None:
    """``(kind, items, item paths, node)`` of a container, None for a leaf."""
    if isinstance(value, dict):
        keys = list(value)
        try:
            keys = sorted(keys)
        except TypeError:  # keys of several types: their own order
            pass
        return "dict", [value[k] for k in keys], [f"[{k!r}]" for k in keys], tuple(keys)
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        names = type(value)._fields
        return "namedtuple", list(value), [f".{n}" for n in names], type(value)
    if isinstance(value, (list, tuple)):
        return "tuple", list(value), [f"[{i}]" for i in range(len(value))], None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        hidden = [f.name for f in fields if not f.init]
        if hidden:
            raise SymgradError(
                f"{where} is a {type(value).__name__} dataclass with fields that its "
                f"constructor does not take ({', '.join(hidden)}); symgrad rebuilds a "
                "dataclass by calling it, so give every field init=True, or pass a dict"
            )
        names = tuple(f.name for f in fields)
        return ("dataclass", [getattr(value, n) for n in names], [f".{n}" for n in names],
                (type(value), names))
    return None


class Whole:
    """An explicit matrix that stands for a matrix symbol or formula of its
    shape (a tangent or cotangent): one leaf, not a container of entries."""

    __slots__ = ("matrix",)

    def __init__(self, matrix: ImmutableMatrix) -> None:
        self.matrix = matrix


def _leaf(value: object) -> tuple[list, Struct]:
    if isinstance(value, Whole):
        return [value.matrix], Struct("scalar", ())
    if isinstance(value, MatrixBase):
        return list(value), Struct("matrix", tuple(value.shape))
    if isinstance(value, NDimArray):
        # iterating a rank >= 2 array yields sub-arrays; index it row-major
        shape = tuple(value.shape)
        return [value[i] for i in product(*map(range, shape))], Struct("array", shape)
    return [value], Struct("scalar", ())


def _flatten(value: object, where: str, top: bool) -> tuple[list, list[str], Struct]:
    """Flat entries, the path of each (for errors), and the structure."""
    c = _container(value, where)
    if c is None:
        items, st = _leaf(value)
        if st.kind == "scalar":
            return items, [where], st
        return items, [f"{where}[{i}]" for i in range(len(items))], st
    kind, items, keys, node = c
    if kind == "tuple" and all(_container(v, where) is None and not
                               isinstance(v, (MatrixBase, NDimArray)) for v in items):
        seq = list if isinstance(value, list) else tuple
        items = [v.matrix if isinstance(v, Whole) else v for v in items]
        return items, [f"{where}{k}" for k in keys], Struct("tuple", (len(items),), seq=seq)
    flat: list = []
    paths: list[str] = []
    parts = []
    for v, k in zip(items, keys):
        f, p, st = _flatten(v, f"{where}{k}", False)
        flat.extend(f)
        paths.extend(p)
        parts.append(st)
    seq = list if isinstance(value, list) else tuple
    return flat, paths, Struct(kind, (len(items),), tuple(parts), node, seq)


def flatten_exprs(value: object, what: str, nested: bool = True) -> tuple[list[Expr], Struct]:
    """``value`` as a flat list of expressions, and its structure: an
    expression, a Matrix or Array, or a pytree of them (see the module).

    >>> from sympy import symbols, Matrix
    >>> x, y = symbols("x y")
    >>> flat, st = flatten_exprs({"b": y, "a": [x, Matrix([[x, y]])]}, "exprs")
    >>> flat
    [x, x, y, y]
    >>> st.build(flat)
    {'a': [x, Matrix([[x, y]])], 'b': y}

    (``nested`` is accepted for compatibility: containers always nest.)
    """
    items, paths, struct = _flatten(value, what, True)
    return [_to_expr(v, p) for v, p in zip(items, paths)], struct


def flatten_symbols(value: object, what: str = "wrt") -> tuple[list[Symbol], Struct]:
    """``value`` (a symbol or a MatrixSymbol, a Matrix or Array of symbols,
    or a pytree) as a flat list of symbols (a MatrixSymbol counts as one);
    a clear error for anything else."""
    items, paths, struct = _flatten(value, what, True)
    for s, where in zip(items, paths):
        if not isinstance(s, (Symbol, MatrixSymbol)):
            kind = type(s).__name__
            hint = (
                "substitute a symbol for it first (e.g. u = Symbol('u'); "
                "expr.subs(that, u)) and differentiate with respect to u"
                if isinstance(s, Basic)
                else "pass sympy.Symbol objects"
            )
            raise SymgradError(
                f"can only differentiate with respect to symbols, but {where} is "
                f"{describe(s) if isinstance(s, Basic) else repr(s)} ({kind}); {hint}"
            )
    return items, struct


def whole_matrices(value: object, like: object, where: str = "tangents",
                   of: str = "wrt") -> object:
    """``value`` (tangents or cotangents) with each explicit Matrix, Array
    or NumPy array whose counterpart in ``like`` is a matrix symbol or
    formula of its shape made one leaf (:class:`Whole`), the matrix it
    stands for, as JAX takes a concrete array for an abstract one.

    >>> from sympy import Matrix, MatrixSymbol
    >>> X = MatrixSymbol("X", 2, 1)
    >>> flatten_exprs(whole_matrices([Matrix([[1], [2]])], [X]), "tangents")[0]
    [Matrix([
    [1],
    [2]])]
    """
    if isinstance(like, MatrixExpr) and not isinstance(like, MatrixBase):
        shape = getattr(value, "shape", None)
        if shape is None or isinstance(value, MatrixExpr) or \
                not isinstance(value, (MatrixBase, NDimArray)) and not hasattr(value, "tolist"):
            return value
        if tuple(shape) != tuple(like.shape):
            raise ShapeError(
                f"{where} has shape {tuple(shape)} but {of} is the matrix "
                f"{describe(like)} of shape {tuple(like.shape)}; give a matrix of shape "
                f"{tuple(like.shape)} there")
        try:
            return Whole(ImmutableMatrix(value.tolist()))
        except (TypeError, ValueError, SympifyError) as err:
            raise ShapeError(f"{where} is not a matrix of numbers or expressions "
                             f"({err}); give one of shape {tuple(like.shape)}") from err
    mine, theirs = _container(value, "value"), _container(like, "like")
    if mine is None or theirs is None or mine[0] != theirs[0] or len(mine[1]) != len(theirs[1]):
        return value
    items = [whole_matrices(v, w, where + k, of + k)
             for v, w, k in zip(mine[1], theirs[1], mine[2])]
    if all(a is b for a, b in zip(items, mine[1])):
        return value
    kind = mine[0]
    if kind == "dict":
        return {**value, **dict(zip(mine[3], items))}
    if kind == "namedtuple":
        return type(value)(*items)
    if kind == "tuple":
        return type(value)(items) if isinstance(value, list) else tuple(items)
    return dataclasses.replace(value, **dict(zip(mine[3][1], items)))


def check_same(struct: Struct, other: Struct, what: str, of: str) -> None:
    """``other`` (tangents, cotangents) must have ``struct``'s structure:
    the same containers (dict keys, types, lengths) and, at each leaf, the
    same number of entries (and the same shape where both are shaped)."""
    pairs = [(struct, other, of, what)]
    while pairs:
        a, b, where_a, where_b = pairs.pop()
        if a.is_leaf or b.is_leaf or not (a.parts or b.parts):
            both_shaped = a.kind in ("matrix", "array") and b.kind in ("matrix", "array")
            if a.size != b.size or (both_shaped and a.shape != b.shape) or \
                    (a.is_leaf != b.is_leaf and (a.parts or b.parts)):
                _mismatch(where_b, b, where_a, a, what)
            continue
        if a.kind != b.kind or a.node != b.node or len(a.items()) != len(b.items()):
            _mismatch(where_b, b, where_a, a, what)
        for k, pa, pb in zip(_keys(a), a.items(), b.items()):
            pairs.append((pa, pb, where_a + k, where_b + k))


def _mismatch(where_b: str, b: Struct, where_a: str, a: Struct, what: str) -> None:
    hint = ""
    if a.kind in ("matrix", "array") and b.parts:
        hint = f" (a nested list is a tree of sequences: pass sympy.Array(value) for {a.kind}s)"
    raise ShapeError(
        f"{where_b} is {b.describe()} but {where_a} is {a.describe()}; "
        f"give one {what[:-1] if what.endswith('s') else what} per entry of {where_a}, "
        f"in the same shape{hint}"
    )


def tree_product(rows: list[list], outer: Struct, inner: Struct) -> object:
    """A Jacobian-shaped result as JAX gives it for pytrees: ``outer``'s
    structure, each of its leaves replaced by ``inner``'s structure, whose
    leaves hold ``rows[i][j]`` (∂ output entry i / ∂ input entry j).  A
    leaf pair of shapes (m, n) and (p,) holds an Array of shape (m, n, p);
    where one of the two is a scalar, the other's own kind (a Matrix stays
    a Matrix)."""

    def per_outer(oleaf: Struct, span: tuple[int, int]) -> object:
        oa, ob = span

        def per_inner(ileaf: Struct, ispan: tuple[int, int]) -> object:
            ia, ib = ispan
            block = [rows[i][j] for i in range(oa, ob) for j in range(ia, ib)]
            if oleaf.kind == "scalar":
                return ileaf.build(block)
            if ileaf.kind == "scalar":
                return oleaf.build(block)
            return ImmutableDenseNDimArray(block, oleaf.shape + ileaf.shape)

        return inner.map_leaves(per_inner)

    return outer.map_leaves(per_outer)
