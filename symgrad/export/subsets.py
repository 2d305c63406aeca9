"""Values computed only at the points where a Piecewise selects them (eager
PyTorch).

Eager PyTorch runs each operation over the whole tensor, so a ``torch.where``
pays for every arm at every point: stabilize's regimes hold arms that few
points or none select (log Φ's pairs for |x| > 37.6, outside its domain;
GELU's 32-term series about its zero, over a window of width 1.2), and
eager code computed each in full.

:func:`masked_regions` finds where each node of a program is *needed*: the
conditions (literals: a condition node, held or not) that hold at every
point where its value can reach an output.  A root is needed everywhere; a
Piecewise's arm ``k`` is needed where its parent is and its condition holds
and the earlier ones do not (an arm's conditions likewise; a ``scaled(u)``'s
fallback, ``_sc_pick``'s alt, where its ``_sc_use`` holds); a node is
needed where any of its users needs it (the literals common to all its
uses).  The nodes that need a literal form a *region* (each node in one:
the literal a user's region has if it can, else the first); a region whose
nodes cost at least ``REGION_COST`` (about one eager kernel a unit) becomes
a function of the values it reads from outside it (its inputs), returning
the values read outside it (its outputs), called through
:func:`symgrad.export.torch_ops.masked`.  At run time that computes the
region on the points where its literal holds only (gathered by index;
scattered back into whole tensors whose other entries no output reads: the
``torch.where`` above selects another arm there) when that saves more than
the gathering costs, and otherwise over every point, as before; under
tracing (``torch.compile``, ``torch.func`` transforms, a recording
autograd, a device other than the CPU) always over every point.

The same float operations run on the same values: a region's code is its
nodes printed by the same printer, and the planning that makes a node's
code depend on its neighbours (``codegen.emit``: a shared reciprocal
written as a division, a quotient shared by products) is kept on one side
of the boundary: a reciprocal a region reads is computed inside it again,
and a region holding a product that shares a quotient with a product
outside is not made.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sympy import Basic, Dummy, Function, Integer, Mul, Piecewise, Pow, S

from ..build import mapped, replaced
from ..codegen.scaling import _Pick
from ..codegen.texts import HelperCall
from ..graph import postorder

__all__ = ["REGION_COST", "Region", "Masked", "Output", "masked_regions"]

# A region whose nodes cost less (units: about one eager kernel over the
# tensor, 1.3 ms per 10^6 float64 on this machine) is computed in full
REGION_COST = 8
# the cost of a node, by kind (else 1; a sum or product of k terms k - 1),
# measured per 10^6 float64 (11:40 UTC, load 7.5): exp 1.6 ms, tanh 2.6,
# log1p 5.0, erfcx 38, lgamma 26, a product 1.3
_COSTS = {"erfcx": 25, "gamma": 20, "loggamma": 20, "lgamma": 20, "digamma": 20,
          "polygamma": 20, "zeta": 20, "log": 3, "log1p": 3, "expm1": 3, "erfinv": 8,
          "ndtri": 8, "log_ndtr": 25}
_PAIR_COST = 8  # a helper of pairs of floats: 5-30 kernels
_FUNCTION_COST = 2


def _kids(n: Basic) -> tuple:
    """A node's operands as generated code reads them (a Piecewise's values
    and conditions, as ``codegen.emit``)."""
    if isinstance(n, Piecewise):
        return tuple(a for pair in n.args for a in pair.args)
    return n.args


def _cost(n: Basic) -> int:
    if not n.args:
        return 0
    if isinstance(n, HelperCall):
        return _PAIR_COST
    if n.is_Add or n.is_Mul:
        return len(n.args) - 1
    if isinstance(n, Function):
        return _COSTS.get(type(n).__name__, _FUNCTION_COST)
    return 1


def _reciprocal(n: Basic) -> bool:
    return isinstance(n, Pow) and n.args[1].is_Number and n.args[1].is_negative


class Masked(HelperCall):
    """A region's call: ``Masked(number, cost, m, held_1..held_m,
    condition_1..condition_m, inputs...)``, printed ``_sg.masked(conditions,
    helds, function, inputs, cost)`` with the region's function name from
    the printer's ``region_names``; its value is the tuple of the region's
    outputs, needed where each condition is held (True or False)."""

    # (a number: SymPy's own answer, from its boolean arguments, is None, and a
    # product or power built over a call then asks every fact of every node above)
    is_commutative = True

    def _symgrad_numpycode(self, printer) -> str:
        number, cost, m = (int(a) for a in self.args[:3])
        held = [bool(h) for h in self.args[3:3 + m]]
        conds = [printer._print(c) for c in self.args[3 + m:3 + 2 * m]]
        ins = [printer._print(a) for a in self.args[3 + 2 * m:]]
        return (f"_sg.masked(({', '.join(conds)},), ({', '.join(map(str, held))},), "
                f"{printer.region_names[number]}, ({', '.join(ins)},), {cost})")

    _numpycode = _symgrad_numpycode


class Output(HelperCall):
    """``Output(call, k)``: the k-th output of a region's call."""

    is_commutative = True  # (as Masked's)

    def _symgrad_numpycode(self, printer) -> str:
        return f"{printer._print(self.args[0])}[{int(self.args[1])}]"

    _numpycode = _symgrad_numpycode


@dataclass
class Region:
    """A region as a function: its number (``Masked``'s), its parameters
    (symbols standing for its inputs) and its outputs over them."""

    number: int
    params: list
    outputs: list


def _needs(order: list, kids: dict, roots: list) -> dict:
    """node -> the literals (condition, held) true wherever it is needed."""
    need: dict = {r: frozenset() for r in roots}
    for n in reversed(order):  # each node after all its users
        here = need[n]
        if isinstance(n, _Pick) and len(n.args) == 3:  # scaled(u)'s fallback: where use holds
            main, alt, use = n.args
            _meet(need, main, here)
            _meet(need, use, here)
            _meet(need, alt, here | {(use, True)})
        elif isinstance(n, Piecewise):
            before: frozenset = frozenset()
            for pair in n.args:
                e, c = pair.args
                _meet(need, c, here | before)
                lit = before if c is S.true else before | {(c, True)}
                _meet(need, e, here | lit)
                before = before | {(c, False)}
        else:
            for k in kids[n]:
                _meet(need, k, here)
    return need


def _meet(need: dict, n: Basic, lits: frozenset) -> None:
    old = need.get(n)
    need[n] = lits if old is None else old & lits


def masked_regions(roots: list[Basic], numbers: Iterator[int]) -> tuple[list[Basic], list[Region]]:
    """``roots`` with each costly region of nodes needed only where a
    condition holds (or not) computed by a :class:`Masked` call, and those
    regions (numbered from ``numbers``).

    >>> import sympy as sp, itertools
    >>> from symgrad.rewrites.forms import erfcx
    >>> x = sp.Symbol("x", real=True)
    >>> tail = erfcx(sp.exp(x) + 1) * erfcx(x)
    >>> new, regions = masked_regions([sp.Piecewise((tail, x > 30), (x, True))],
    ...                               itertools.count())
    >>> new[0].args[0].args[0].args[0].func.__name__, [len(r.outputs) for r in regions]
    ('Masked', [1])
    >>> masked_regions([sp.Piecewise((sp.exp(x), x > 30), (x, True))], itertools.count())[1]
    []
    """
    order, kids = postorder(roots, _kids)
    if not any(isinstance(n, (Piecewise, _Pick)) for n in order):
        return list(roots), []
    explicit = _explicit_quotients(roots)
    if explicit is not None:  # every shared quotient a node: none is left to check
        roots = explicit
        order, kids = postorder(roots, _kids)
    need = _needs(order, kids, roots)
    rank = {n: i for i, n in enumerate(order)}
    users: dict = {n: [] for n in order}
    for n in order:
        for k in kids[n]:
            users[k].append(n)
    groups = _groups(order, need, rank)
    quotients = _quotient_pairs(order, kids) if explicit is None else {"users": {}}
    plans = []
    for lit, nodes in groups.items():
        plan = _plan(lit, nodes, kids, users, roots, quotients)
        if plan is not None:
            plans.append(plan)
    plans = _acyclic(plans, order, kids)
    if not plans:
        return list(roots), []
    swaps: dict = {}
    regions = []
    for lits, inside, inputs, outputs in plans:
        number = next(numbers)
        params = [Dummy(f"a{i}") for i in range(len(inputs))]
        subst = dict(zip(inputs, params)).get
        regions.append(Region(number, params, [replaced(o, subst) for o in outputs]))
        cost = sum(_cost(n) for n in inside)
        call = (number, lits, cost, inputs)
        for k, o in enumerate(outputs):
            swaps[o] = (call, k)
    memo: dict = {}
    calls: dict = {}

    def swap(n: Basic) -> Basic | None:
        got = swaps.get(n)
        if got is None:
            return None
        (number, lits, cost, inputs), k = got
        if number not in calls:
            args = mapped([c for c, _ in lits] + list(inputs), swap=swap, memo=memo)
            calls[number] = Masked(Integer(number), Integer(cost), Integer(len(lits)),
                                   *(S.true if held else S.false for _, held in lits), *args)
        return Output(calls[number], Integer(k))

    return mapped(roots, swap=swap, memo=memo), regions


def _groups(order: list, need: dict, rank: dict) -> dict:
    """The nodes (with arguments, not numbers) needed only under some
    literals, grouped by those literals (a tuple, by the conditions' place
    in ``order``); a group costing less than ``REGION_COST`` joins the group
    of the most literals among those a subset of its own, if any."""
    groups: dict = {}
    for n in order:
        lits = need.get(n)
        if lits and n.args and not n.is_number:
            key = tuple(sorted(lits, key=lambda lit: (rank[lit[0]], lit[1])))
            groups.setdefault(key, []).append(n)
    for key in sorted(groups, key=len, reverse=True):
        if sum(_cost(n) for n in groups[key]) >= REGION_COST:
            continue
        wider = [k for k in groups if len(k) < len(key) and set(k) <= set(key)]
        if wider:
            into = max(wider, key=len)
            groups[into] = sorted(groups[into] + groups.pop(key), key=rank.get)
    return groups


def _plan(lits: tuple, nodes: list, kids: dict, users: dict, roots: list,
          quotients: dict) -> tuple | None:
    """``(lits, inside, inputs, outputs)`` for a region of ``nodes``, or None
    if they cost too little or a quotient is shared across its boundary."""
    inside = dict.fromkeys(nodes)  # (ordered: the inputs' order below is the nodes')
    # (its mask costs about three kernels a literal: a select, a not, an and)
    if sum(_cost(n) for n in inside) < REGION_COST + 3 * (len(lits) - 1) \
            or any(c in inside for c, _ in lits):
        return None
    todo = [k for n in nodes for k in kids[n] if k not in inside]
    while todo:  # a reciprocal read from outside is computed inside again
        k = todo.pop()
        if k not in inside and _reciprocal(k) and not k.is_number:
            inside[k] = None
            todo.extend(kids[k])
    for n in inside:
        for q in quotients.get(n, ()):
            if any(m not in inside for m in quotients["users"][q]):
                return None
    # in the order the region reads them (deterministic, as the DAG's order:
    # sorting them by their printed text printed each as a tree, exponential
    # in a where chain's depth)
    inputs = list(dict.fromkeys(k for n in inside for k in kids[n] if k not in inside
                                and (k.is_Symbol or (k.args and not k.is_number))))
    outputs = [n for n in nodes if any(u not in inside for u in users[n])]
    if not inputs or not outputs:
        return None
    return lits, inside, inputs, outputs


def _acyclic(plans: list, order: list, kids: dict) -> list:
    """``plans`` with no two whose calls would depend on each other (region
    A reads what region B computes from A's outputs, or A reads through
    nodes outside it what it computes): of a cycle, the region under the
    fewest literals (computed at the most points, where it saves least) is
    dropped, computed in full as before, the cheapest of those first."""
    while plans:
        of = {}
        for i, (_, inside, _, _) in enumerate(plans):
            for n in inside:
                of.setdefault(n, i)
        # region i depends on j if a node of i reaches a node of j through
        # nodes outside every region
        reach: dict = {}
        for n in order:  # children first
            got = set()
            for k in kids[n]:
                if k in of:
                    got.add(of[k])
                else:
                    got |= reach.get(k, set())
            reach[n] = got
        deps = {i: set() for i in range(len(plans))}
        for i, (lits, _, _, _) in enumerate(plans):  # its conditions are read too
            for c, _ in lits:
                deps[i] |= {of[c]} if c in of else reach.get(c, set())
        for n, i in of.items():
            for k in kids[n]:
                if k in of and of[k] != i:
                    deps[i].add(of[k])
                elif k not in of:
                    deps[i] |= reach.get(k, set())
        # (i in deps[i]: i reads, through nodes outside it, what it computes)
        cyc = _on_cycle(deps)
        if not cyc:
            return plans
        # the widest (fewest literals: the most points) goes, then the cheapest
        worst = min(cyc, key=lambda i: (len(plans[i][0]), sum(_cost(n) for n in plans[i][1])))
        plans = [p for i, p in enumerate(plans) if i != worst]
    return plans


def _on_cycle(deps: dict) -> set:
    """The nodes of ``deps`` (i -> the j it depends on) left after removing,
    again and again, those nothing depends on or that depend on nothing."""
    left = {i: set(d) for i, d in deps.items()}
    changed = True
    while changed:
        changed = False
        for i in list(left):
            if not (left[i] & left.keys()):
                del left[i]
                changed = True
    return set(left)


def _quotient_pairs(order: list, kids: dict) -> dict:
    """For each product of three or more factors one of which is a
    reciprocal, the (factor, reciprocal) pairs ``codegen.emit`` may compute
    once as a shared quotient; ``["users"]``: each pair's products."""
    out: dict = {"users": {}}
    for n in order:
        if not isinstance(n, Mul) or len(kids[n]) < 3:
            continue
        d = next((k for k in kids[n] if _reciprocal(k)), None)
        if d is None:
            continue
        pairs = [(f, d) for f in kids[n] if f is not d and not f.is_Number and not _reciprocal(f)]
        out[n] = pairs
        for q in pairs:
            out["users"].setdefault(q, []).append(n)
    return out


def _emit_pairs(roots: list) -> dict:
    """The products ``codegen.emit`` writes with a shared quotient (node ->
    (factor, reciprocal)), found by its own planning steps."""
    from ..codegen.dag import quotient_pairs

    return quotient_pairs(roots)


def _explicit_quotients(roots: list) -> list | None:
    """``roots`` with each product ``codegen.emit`` writes with a shared
    quotient ``f/d`` (``a*f*b*d``, ``d = 1/r`` shared: ``a*q*b`` with ``q =
    f/r`` computed once) holding that quotient as a node ``Mul(f, d)`` in
    ``f``'s place (and its negation, if emit negates it, as ``-1`` times
    it): the same code, whose quotients are values a region can read.  None
    if emit's planning of the result would differ (a product with a second
    reciprocal factor, or a shared quotient left)."""
    pairs = _emit_pairs(roots)
    if not pairs:
        return list(roots)
    for n in pairs:
        if sum(_reciprocal(k) for k in n.args) != 1:
            return None
    quotient: dict = {}

    def with_quotient(n: Basic, args: tuple) -> Basic | None:
        if n not in pairs:
            return None
        f, d = pairs[n]
        at = dict(zip(n.args, args))
        q = quotient.setdefault((f, d), Mul(at[f], at[d], evaluate=False))
        return Mul(*[q if k is f else a for k, a in zip(n.args, args) if k is not d],
                   evaluate=False)

    memo: dict = {}
    out = mapped(roots, hook=with_quotient, memo=memo)
    negated = {}
    for n in memo:
        if isinstance(n, Mul) and len(n.args) > 2 and n.args[0] is S.NegativeOne:
            positive = Mul(*n.args[1:], evaluate=False)
            if positive in pairs:  # emit computes it as -(positive)
                negated[memo[n]] = Mul(S.NegativeOne, memo[positive], evaluate=False)
    if negated:
        out = mapped(out, swap=negated.get)
    return out if not _emit_pairs(out) else None
