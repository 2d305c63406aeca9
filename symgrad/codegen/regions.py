"""Masked regions: a ``Piecewise`` whose branches need heavy work of their
own computes each branch only at the rows that take it.

The array kernel computes a ``Piecewise`` as ``np.where`` over its branch
values, so every branch is computed at every row; a stabilized form with
regimes over pairs of floats or a wider type pays for all its branches at
each point (NMSE 3.4.2's chosen form: four branches in long-double pairs,
30 us a row).  Here, in ``lambdify``'s runtime code only, each such
``Piecewise`` becomes a code-only :class:`Masked` node over its conditions
and the values its branches read from the rest of the program (their
*inputs*); each branch's own nodes (its *region*: what it alone needs, not
the rest of the program) become a function of their own, ``_mr{i}``, a
program built by the same emission, that the run-time helper
``runtime._masked`` calls on the rows taking that branch only.

The floats are those of ``np.where`` over the whole rows: every operation is
elementwise, so a row's value does not depend on the rows computed beside
it (the lead's rule: a point's value never depends on its batch), and the
result's type is the one ``np.where`` gives (the helper finds it from the
branches' values on no rows, once per signature).  Conditions are computed
at every row, as before; a branch's region is computed once per branch
(nodes two branches share are computed in each, on disjoint rows).  A
``Piecewise`` is masked only where some branch's region is worth it
(``REGION_COST`` operations, a pair or widened operation counting as
``HELPER_COST``): below that, selecting rows costs more than it saves.
A region holds no product or power: emission writes those as what else
the program holds makes them (a quotient one product reads is written
``x*t/r``, one two read ``x*(t/r)``: other floats), so a region's own
program could write them otherwise; calls of helpers (pairs of floats,
widened code), sums and functions are written as they are.
Which ``Piecewise`` are masked is decided from the DAG's structure alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from sympy import Basic, Function, Integer, Piecewise, S, Symbol
from sympy.logic.boolalg import Boolean

from ..build import bare
from ..graph import numbers_in, postorder
from .dag import operands, reciprocal
from .result_kinds import _SAME_TYPE_FUNCTIONS
from .texts import HelperCall

__all__ = ["Masked", "Region", "split", "REGION_NAMES", "MAX_REGIONS", "REGION_COST"]

# A branch's region of at least this cost makes its Piecewise masked
REGION_COST = 24
HELPER_COST = 8  # a helper's call (pairs of floats, widening): many NumPy calls
# regions in one generated module, at most (the names below are reserved)
MAX_REGIONS = 64
REGION_NAMES = frozenset({"_masked"} | {f"_mr{i}" for i in range(MAX_REGIONS)})


class Masked(Function):
    """A ``Piecewise`` computed branch by branch (code only).  Arguments:
    ``k``, the ``k`` conditions (the last ``True``), then per branch its
    region's number (``-1``: no region, the branch's value is its one
    input) and how many inputs it has, then a value of the result's type
    (``like``), then the inputs in order."""

    is_selection = True  # (dag: its first condition is loud, the rest quiet)
    # a number, as a Piecewise of numbers is: a product over it prints with
    # its divisions as it does over the Piecewise (x/(p + 1), not (1/(p + 1))*x)
    is_commutative = True

    def _numpycode(self, printer) -> str:
        a = self.args
        k = int(a[0])
        conds = [printer._print(c) for c in a[1:1 + k]]
        meta = a[1 + k:1 + 3 * k]
        like = printer._print(a[1 + 3 * k])
        at = 2 + 3 * k
        branches = []
        for j in range(k):
            rid, n = int(meta[2 * j]), int(meta[2 * j + 1])
            ins = [printer._print(v) for v in a[at:at + n]]
            at += n
            fn = "None" if rid < 0 else f"_mr{rid}"
            branches.append(f"({fn}, ({', '.join(ins)}{',' if len(ins) == 1 else ''}))")
        tail = "," if k == 1 else ""
        return f"_masked(({', '.join(conds)}{tail}), ({', '.join(branches)}{tail}), {like})"

    _symgrad_numpycode = _numpycode


@dataclass
class Region:
    """One branch's own nodes: the function ``_mr{number}`` computing
    ``value`` from ``inputs`` (nodes of the program around it)."""

    number: int
    value: Basic
    inputs: list[Basic]
    types: dict  # (of the nodes around it: _types)


def _cost(node: Basic, kids: tuple) -> int:
    if not kids:
        return 0
    return HELPER_COST if isinstance(node, HelperCall) else 1


def _context(node: Basic) -> bool:
    """Whether emission writes ``node`` as what else its program holds
    makes it: a product (a quotient it shares with another, ``x*(t/r)``,
    or reads alone, ``x*t/r``; the negation of another product) or a power
    (a reciprocal some product divides by).  A region holds none: its code
    is then what the whole program's is (pairs of floats and widened code
    are calls of helpers, and those are written as they are)."""
    return node.is_Mul or node.is_Pow


def _leaflike(node: Basic, stop: frozenset) -> bool:
    """A node a region reads as an input, never computes: an argument, or
    a node of the program around it."""
    return node in stop or isinstance(node, Symbol)


def split(roots: list[Basic], stop: frozenset = frozenset(), first: int = 0,
          limit: int = MAX_REGIONS, known: dict | None = None
          ) -> tuple[dict[Basic, Basic], list[Region]]:
    """The masked ``Piecewise`` nodes of the program computing ``roots``
    (whose nodes in ``stop`` are its inputs, not computed; ``known``: their
    types, :func:`_types`), as a swap ``Piecewise -> Masked`` for emission,
    and the regions of their branches, numbered from ``first`` (at most
    ``limit`` of them).  Only a ``Piecewise`` whose values all have the
    type of one input (the arguments' type, or the wider one) is masked:
    the result's type is then known before any branch is computed.

    >>> from sympy import symbols, Piecewise, exp, sin
    >>> x = symbols("x")
    >>> e = exp(x)
    >>> for _ in range(30):
    ...     e = exp(sin(e) + x)
    >>> swap, regions = split([Piecewise((e, x < 0), (x, True))])
    >>> [(r.number, r.inputs) for r in regions]
    [(0, [x])]
    >>> swap, regions = split([Piecewise((exp(x), x < 0), (x, True))])  # too cheap
    >>> swap, regions
    ({}, [])
    """
    order, kids = postorder(roots, lambda n: () if _leaflike(n, stop) else operands(n))
    pws = [n for n in order if isinstance(n, Piecewise)]
    if not pws or limit <= 0:
        return {}, []
    types = _types(order, kids, known or {})
    pws = [p for p in pws if _typed(p, types) is not None]
    masked = set(pws)
    kept: dict[Basic, set] = {p: set() for p in pws}  # branches computed at every row
    while True:
        main = _reached(roots, kids, masked, kept)
        regions = {p: [[] if i in kept[p] else _region(pair.args[0], kids, main, stop)
                       for i, pair in enumerate(p.args)]
                   for p in pws if p in masked and p in main}
        changed = False
        for p, rs in regions.items():
            for i, r in enumerate(rs):
                if r and any(_context(n) for n in r):  # (written as the program makes it)
                    kept[p].add(i)
                    changed = True
        light = [p for p, rs in regions.items()
                 if max([sum(_cost(n, kids[n]) for n in r) for i, r in enumerate(rs)
                         if i not in kept[p]], default=0) < REGION_COST] if not changed else []
        if not light and not changed:
            break
        masked -= set(light)
    swap: dict[Basic, Basic] = {}
    out: list[Region] = []
    number = first
    for p in pws:  # (operands before their users: a fixed order)
        if p not in regions or all(not r for r in regions[p]):
            continue
        if len(out) + sum(1 for r in regions[p] if r) > limit:
            break
        conds = [pair.args[1] for pair in p.args]
        values = [pair.args[0] for pair in p.args]
        if conds[-1] is not S.true:  # no condition holds: NaN, as np.where's default
            conds.append(S.true)
            values.append(S.NaN)
            regions[p].append([])
        meta: list[Basic] = []
        inputs: list[Basic] = []
        like = None
        for v, r in zip(values, regions[p]):
            if not r:  # the value is a node of the program (or a number)
                meta += [Integer(-1), Integer(1)]
                inputs.append(v)
                continue
            read = _read_by(r, kids, stop)
            ins = [n for n in order if n in read]
            out.append(Region(number, v, ins, types))
            meta += [Integer(number), Integer(len(ins))]
            inputs += ins
            number += 1
        t = _typed(p, types)
        like = next((n for n in inputs if types.get(n) == t), None)
        if like is None:  # (no input of the result's type: left to np.where)
            del out[len(out) - sum(1 for r in regions[p] if r):]
            number = first + len(out)
            continue
        swap[p] = bare(Masked, (Integer(len(conds)), *conds, *meta, like, *inputs))
    return swap, out


_WIDE, _ARGS, _OTHER = "wide", "arguments", "other"


def _types(order: list, kids: dict, known: dict) -> dict:
    """Each node's type in the code, as far as emission fixes it: the
    arguments' (``_ARGS``), the wider one (``_WIDE``, ``widen``'s code), a
    Python number's (None: weakly typed), or ``_OTHER`` (anything else: a
    condition, a float64 scalar of numbers, scipy's float64 values)."""
    out = dict(known)
    number = numbers_in(order, kids)  # (SymPy's is_number recurses per level: a deep form's crash)
    for n in order:
        if n in out:
            continue
        name = type(n).__name__
        if isinstance(n, Symbol):
            t = _ARGS
        elif not kids[n]:
            t = None if n.is_Number or n.is_NumberSymbol else _OTHER
        elif name == "_Up":
            t = _WIDE
        elif name == "_Narrow":
            t = _ARGS
        elif isinstance(n, Boolean) or n in number:
            t = _OTHER
        elif isinstance(n, Piecewise):
            t = _join(out.get(k) for k in kids[n][0::2])
        elif n.is_Add or n.is_Mul or n.is_Pow or isinstance(n, HelperCall) \
                or name in _SAME_TYPE_FUNCTIONS:
            t = _join(out.get(k) for k in kids[n])
        else:
            t = _OTHER
        out[n] = t
    return out


def _join(ts) -> str | None:
    """The one type of values of types ``ts`` (weak numbers aside)."""
    got = None
    for t in ts:
        if t is None:
            continue
        if t == _OTHER or (got is not None and t != got):
            return _OTHER
        got = t
    return got


def _typed(p: Basic, types: dict) -> str | None:
    """The type of the ``Piecewise`` ``p``'s values, where it is one input's."""
    t = types.get(p)
    return t if t in (_ARGS, _WIDE) else None


def _reached(roots: list, kids: dict, masked: set, kept: dict) -> set:
    """The nodes the program computes itself: reached from the roots, a
    masked ``Piecewise``'s conditions and ``kept`` values but not its others."""
    seen: set = set()
    todo = list(roots)
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        ks = kids[n]
        if n in masked:  # (values and conditions alternate)
            ks = [k for i, k in enumerate(ks) if i % 2 or i // 2 in kept[n]]
        todo.extend(k for k in ks if k not in seen)
    return seen


def _region(value: Basic, kids: dict, main: set, stop: frozenset) -> list:
    """The nodes ``value`` needs that the program does not compute itself
    (empty where ``value`` is one of its nodes, a number or an input), and
    the reciprocals it reads: a product divides by a reciprocal's base
    (plan.py), so a region reads the base, never ``1/x`` as a value of its
    own (``y*(1/x)`` is not ``y/x``)."""
    if value in main or not kids.get(value) or _leaflike(value, stop):
        return []
    seen = {value}
    todo = [value]
    while todo:
        n = todo.pop()
        for k in kids[n]:
            if k not in seen and (k not in main or reciprocal(k)) and kids[k] \
                    and not _leaflike(k, stop):
                seen.add(k)
                todo.append(k)
    return list(seen)


def _read_by(region: list, kids: dict, stop: frozenset) -> set:
    """The nodes outside ``region`` that its nodes read: the program's own
    and its inputs (numbers and constants are written in the region's code)."""
    inside = set(region)
    return {k for n in region for k in kids[n]
            if k not in inside and (kids[k] or _leaflike(k, stop))}
