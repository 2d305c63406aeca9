"""The array kernel written in place: each ufunc call writes its result into
the array of an operand that nothing reads afterwards.

A ufunc called with an output array (``np.add(a, b, a)``) runs the same loop
on the same values as without one, so it gives the very floats, and the
kernel then allocates an array per statement only where no operand's array
is free: fewer allocations and a working set that stays in the cache (the
operand was just read).  An operand's array is free where it is

* the value of a nested call of the same line (``_mul(x, y)`` inside
  ``_np_exp(_mul(x, y))``), which nothing else can read, or
* a temporary that no later line reads before it is assigned again, that
  no result is, that the line reads once, and that a ufunc call (or
  ``_hypot``) made: never an argument or a constant, never a view.

The pass is valid only where every value is an array of the arguments' one
shape and float type (the entry point's common case: arrays of one type and
shape, see :func:`symgrad.codegen.source.entry_source`), so that a result
always has its operand's shape and type; the caller checks that every node
of the program keeps the arguments' type (``result_kinds.keeps_type``).  The
results may go straight into the caller's output rows (``_o[k]``: a block
of the preallocated outputs, or None for a new array), and the arrays a line
still allocates into scratch arrays ``_b[j]`` the caller keeps from block to
block (:class:`_Arrays`; None for new arrays): the same loops on the same
values again, so the same floats.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator

import numpy as np

from .printer import unparse

__all__ = ["in_place"]

# The kernel's operators as ufunc calls (printer.as_calls) and their operands
_OPERATORS = {"_add": np.add, "_sub": np.subtract, "_mul": np.multiply,
              "_div": np.divide, "_neg": np.negative, "_square": np.square}
# Calls that return a new array of their operands' shape and type, but take
# no output array
_OWNED_HELPERS = frozenset({"_hypot"})
# The float types the entry point's arrays may have (half to long double)
_FLOATS = "efdg"

# A nested value is bound to a name (``(w := ...)``, one more pair of
# parentheses) only this deep in a line: Python's parser takes 200 nested
# parentheses, and a long sum is a line of 100 nested calls (plan.MAX_OPERANDS)
MAX_BOUND_DEPTH = 24

# What a value of the kernel is, given arguments that are arrays of one shape
# and float type T: an array of that shape and type (ARRAY); a number that
# keeps T (WEAK: a Python number, or _k[i], a 0-d array of T); or anything
# else (None: a float64 scalar such as np.log(2), scipy's values, np.where's)
ARRAY, WEAK = "array", "weak"

# Which array a value is (_Writer.visit): an array the kernel does not make
# (an argument, an output row, a number)
NOT_OURS = -1


class _Arrays:
    """Which array each value of the kernel is, and when it is made and last
    read: the arrays a ufunc call would allocate then go into scratch arrays
    the caller passes (``_b``, kept from call to call: no allocation, no
    page to touch), one scratch array holding in turn arrays whose lives do
    not overlap, and none holding an array a result may be (or be a view of)."""

    def __init__(self) -> None:
        self.ids = itertools.count()
        self.held: dict[str, frozenset[int]] = {}  # temporary -> the arrays it may be
        self.made: dict[int, int] = {}  # allocation site's array -> its line
        self.last: dict[int, int] = {}  # array -> the last line that touches it
        self.sites: list[tuple[int, ast.Call, bool]] = []  # (array, call, out by keyword)

    def line(self, i: int, name: str, writer: _Writer, ident: int | None) -> None:
        """Line ``i`` (``name = ...``) written by ``writer``, whose value is
        the array ``ident``."""
        for a in writer.seen:
            self.last[a] = i
        for site in writer.sites:
            self.made[site[0]] = i
            self.sites.append(site)
        if ident is None:  # (not known: it may be a view of anything the line touches)
            self.held[name] = frozenset(writer.seen)
        else:
            self.held[name] = frozenset() if ident == NOT_OURS else frozenset((ident,))

    def assign(self, pinned: set[int]) -> int:
        """Give the allocation sites scratch arrays ``_b[j]`` in the order
        they are made, each the free one freed last (the likeliest still in
        the cache; any free one gives an interval graph's colouring with the
        fewest arrays), none to an array in ``pinned``; the number of
        scratch arrays."""
        holder: list[int] = []  # scratch array j -> the array it holds
        for ident, node, keyword in self.sites:
            if ident in pinned:
                continue
            start = self.made[ident]
            # (of the free ones, the one freed last: the likeliest in the cache)
            j, end = len(holder), -1
            for i, h in enumerate(holder):
                if end < self.last[h] < start:
                    j, end = i, self.last[h]
            if j == len(holder):
                holder.append(ident)
            holder[j] = ident
            out = ast.Subscript(ast.Name("_b", ast.Load()), ast.Constant(j), ast.Load())
            if keyword:
                node.keywords = [ast.keyword("out", out)]
            else:
                node.args = [*node.args, out]
        return len(holder)


def _ufunc(name: str) -> np.ufunc | None:
    """The elementwise ufunc of one output called ``name`` in the kernel that
    computes in the type of its operands for every float type (so operands of
    one type T and Python numbers give T), or None."""
    u = _OPERATORS.get(name)
    if u is None and name.startswith("_np_"):
        u = getattr(np, name[4:], None)
    if not isinstance(u, np.ufunc) or u.nout != 1 or u.signature is not None:
        return None
    loops = {t.replace("->", "") for t in u.types}
    return u if all(c * (u.nin + 1) in loops for c in _FLOATS) else None


def _called(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords \
            and not any(isinstance(a, ast.Starred) for a in node.args):
        return node.func.id
    return None


def _number(node: ast.AST) -> bool:
    """Python numbers only (``1 / 2``, ``-3``, ``np.pi``)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Constant):
            if type(n.value) not in (int, float):
                return False
        elif isinstance(n, ast.Attribute):
            if not (isinstance(n.value, ast.Name) and n.value.id == "np"
                    and isinstance(getattr(np, n.attr, None), float)):
                return False
        elif isinstance(n, ast.Name):
            if n.id != "np":
                return False
        elif not isinstance(n, (ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop,
                                ast.Load)):
            return False
    return True


class _Writer:
    """Rewrites one line's tree, giving each ufunc call whose value is an
    array an output array: an operand's that nothing reads afterwards."""

    def __init__(self, kinds: dict[str, str | None], free: set[str], walrus: list[str],
                 names: Iterator[str], arrays: _Arrays | None = None) -> None:
        self.kinds = kinds  # argument or temporary -> its value's kind (ARRAY, ...)
        self.free = free  # temporaries this line may write into (read once here, dead after)
        self.walrus = walrus  # the names a call's nested value is bound to, by depth
        self.names = names
        self.arrays = arrays  # which array each value is (None: no scratch arrays)
        self.seen: set[int] = set()  # the arrays this line reads or makes
        self.sites: list[tuple[int, ast.Call, bool]] = []  # (array, call, out by keyword)

    def _bound(self, depth: int) -> str:
        while len(self.walrus) <= depth:
            self.walrus.append(next(self.names))
        return self.walrus[depth]

    def visit(self, node: ast.AST, depth: int, out: ast.AST | None = None) -> tuple:
        """``node`` rewritten, its kind, whether its value is an array
        nothing else holds (a call's new array), and which array it is (an
        identity of :class:`_Arrays`; NOT_OURS: one the kernel does not
        make, an argument or an output row; None: not known, a value that
        may be a view of any array its expression reads); a ufunc call at
        its top writes into ``out`` where given, else into a free operand's
        array, else into a new array (where scratch arrays are assigned, an
        allocation site)."""
        if isinstance(node, ast.Name):
            return node, self.kinds.get(node.id), False, self._read(node.id)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == "_k":
            return node, WEAK, False, NOT_OURS
        if _number(node):
            return node, WEAK, False, NOT_OURS
        name = _called(node)
        if name is not None:
            seen = [self.visit(a, depth + 1) for a in node.args]
            args = [a for a, _, _, _ in seen]
            node = ast.Call(node.func, args, [])
            kinds = {k for _, k, _, _ in seen}
            array = ARRAY in kinds and kinds <= {ARRAY, WEAK}
            u = _ufunc(name)
            if u is not None and u.nin == len(args) and array:
                ident = NOT_OURS  # (the caller's output row)
                if out is None:
                    out, ident = self._free_operand(seen, args, depth)
                keyword = u is np.maximum or u is np.minimum
                if out is not None:  # (positional: 50-80 ns a call less than by
                    # keyword, measured 2026-11-27; by keyword for np.maximum and
                    # np.minimum, where NumPy deprecates a positional one)
                    if keyword:
                        node.keywords = [ast.keyword("out", out)]
                    else:
                        node.args = [*args, out]
                else:  # a new array: an allocation site
                    ident = self._new()
                    self.sites.append((ident, node, keyword))
                return node, ARRAY, True, ident
            if name in _OWNED_HELPERS and array:
                return node, ARRAY, True, self._new()
            return node, None, False, None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):  # x ** 3: np.power
            left, lk, _, _ = self.visit(node.left, depth + 1)
            right, rk, _, _ = self.visit(node.right, depth + 1)
            node = ast.BinOp(left, node.op, right)
            array = lk == ARRAY and rk in (ARRAY, WEAK)
            return node, ARRAY if array else None, array, self._new() if array else None
        for field, value in ast.iter_fields(node):  # anything else: its calls inside
            if isinstance(value, ast.expr):
                setattr(node, field, self.visit(value, depth + 1)[0])
            elif isinstance(value, list):
                setattr(node, field, [self.visit(v, depth + 1)[0] if isinstance(v, ast.expr)
                                      else v for v in value])
        return node, None, False, None

    def _read(self, name: str) -> int | None:
        """The array a name holds (reading it: the line touches them)."""
        if self.arrays is None:
            return NOT_OURS
        held = self.arrays.held.get(name)
        if held is None:  # (an argument, a constant)
            return NOT_OURS
        self.seen.update(held)
        if not held:
            return NOT_OURS
        return next(iter(held)) if len(held) == 1 else None

    def _new(self) -> int:
        """A new array's identity, which this line makes."""
        if self.arrays is None:
            return NOT_OURS
        ident = next(self.arrays.ids)
        self.seen.add(ident)
        return ident

    def _free_operand(self, seen: list[tuple], args: list[ast.AST],
                      depth: int) -> tuple[ast.AST | None, int | None]:
        """An operand of a call at ``depth`` whose array the call may write
        into (bound to a name where it is a nested call's value), and which
        array that is; or None."""
        for i, (a, kind, new, ident) in enumerate(seen):  # a nested call's new array
            if new and kind == ARRAY and depth < MAX_BOUND_DEPTH:
                name = self._bound(depth)
                args[i] = ast.NamedExpr(ast.Name(name, ast.Store()), a)
                return ast.Name(name, ast.Load()), ident
        for a, kind, _, ident in seen:  # a temporary no later line reads
            if isinstance(a, ast.Name) and a.id in self.free and kind == ARRAY:
                self.free.discard(a.id)
                return ast.Name(a.id, ast.Load()), ident
        return None, None


def _reads(tree: ast.AST, temps: set[str]) -> list[str]:
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in temps]


def in_place(names: list[str], codes: list[str], results: list[str], args: set[str],
             fresh_names: Iterator[str]) -> tuple[list[str], list[str], list[bool], int]:
    """The kernel's lines (``names[i] = codes[i]``, ufunc calls as
    ``printer.as_calls`` writes them) and its results, written in place;
    per result, whether it is written into ``_o[k]``; and the number of
    scratch arrays ``_b[j]`` the lines write the arrays they would allocate
    into (see :class:`_Arrays`; ``_b`` of Nones: new arrays, as without).
    ``args`` are the arguments' names; ``fresh_names`` yields names no
    other value of the kernel has (for the nested values a call writes into).

    >>> in_place(["t0", "t1"], ["_np_exp(_mul(x, y))", "_add(t0, _square(x))"], ["t1"],
    ...          {"x", "y"}, iter(["w0", "w1"]))[0]
    ['_np_exp((w0 := _mul(x, y, _b[0])), w0)', '_add(t0, _square(x, _b[1]), _o[0])']
    """
    temps = set(names)
    trees = [ast.parse(c, mode="eval").body for c in codes]
    result_trees = [ast.parse(c, mode="eval").body for c in results]
    end_reads = set()
    for t in result_trees:
        end_reads.update(_reads(t, temps))
    # the line whose value each result is, where it is a temporary's last
    # assignment (and no other result is that temporary)
    last_def = {n: i for i, n in enumerate(names)}
    direct: dict[int, int] = {}  # line -> the result written into _o
    for k, t in enumerate(result_trees):
        if isinstance(t, ast.Name) and t.id in last_def \
                and sum(isinstance(r, ast.Name) and r.id == t.id for r in result_trees) == 1:
            direct[last_def[t.id]] = k
    # the temporaries each line reads for the last time: no later line reads
    # them before assigning them again, and no result is them
    reads = [_reads(t, temps) for t in trees]
    dead_after: list[set[str]] = [set() for _ in trees]
    alive = set(end_reads)  # names a later line (or a result) reads before assigning
    for i in range(len(trees) - 1, -1, -1):  # (backwards)
        dead_after[i] = {r for r in reads[i] if r not in alive}
        alive.discard(names[i])
        alive.update(reads[i])
    kinds: dict[str, str | None] = dict.fromkeys(args, ARRAY)
    owned: dict[str, bool] = {}  # temporary -> whether its array is the kernel's own
    walrus: list[str] = []
    written = [False] * len(results)
    arrays = _Arrays()
    out_trees = []
    for i, tree in enumerate(trees):
        free = {r for r in dead_after[i] if reads[i].count(r) == 1 and owned.get(r)}
        top = None
        if i in direct and _ufunc(_called(tree) or "") is not None:
            top = ast.Subscript(ast.Name("_o", ast.Load()), ast.Constant(direct[i]), ast.Load())
        writer = _Writer(kinds, set(free), walrus, fresh_names, arrays)
        new, kind, new_array, ident = writer.visit(tree, 0, top)
        if top is not None and kind == ARRAY:
            written[direct[i]] = True
        elif top is not None:  # (not an array of the arguments' type: no _o written)
            writer = _Writer(kinds, free, walrus, fresh_names, arrays)
            new, kind, new_array, ident = writer.visit(ast.parse(codes[i], mode="eval").body, 0)
        arrays.line(i, names[i], writer, ident)
        kinds[names[i]] = kind
        owned[names[i]] = new_array
        out_trees.append(new)
    # no scratch array holds what a result may be (arrays the results read
    # are theirs, or copied where they are written into the outputs)
    pinned: set[int] = set()
    for name in end_reads:
        pinned |= arrays.held.get(name, frozenset())
    out_results = []
    for k, t in enumerate(result_trees):
        if not written[k] and not isinstance(t, ast.Name):
            o = ast.Subscript(ast.Name("_o", ast.Load()), ast.Constant(k), ast.Load())
            new, kind, _, _ = _Writer(kinds, set(), walrus, fresh_names).visit(
                ast.parse(results[k], mode="eval").body, 0, o)
            if kind == ARRAY and _ufunc(_called(t) or "") is not None:
                t, written[k] = new, True
        out_results.append(t)
    scratch = arrays.assign(pinned)
    return [unparse(t) for t in out_trees], [unparse(t) for t in out_results], written, scratch
