"""The walker: reverse- and forward-mode accumulation over a formula's DAG.

It visits every distinct subexpression once, children before parents,
without recursion, and knows no function by name: each node's rule comes
from the resolver.  Cost is linear in the number of distinct nodes.

It changes no global SymPy state: running under ``distribute(False)`` made
SymPy's own simplifications loop (``Max(floor(w), -8)``: RecursionError) and
cleared SymPy's cache, the user's, twice per call.  Growth that SymPy's
evaluation would cause is prevented where the walker builds nodes
(:mod:`symgrad.rules.forms`).

Grouped nodes (reverse mode).  A rule may define ``group_key(node)``: nodes
for which it returns the same non-None key are the sibling outputs of one
operation (the outputs of one call of a ``custom_gradient`` function), and
they must share their inputs.  The walker then gathers the cotangents of all
members present in the formula and calls ``rule.group_vjp(members, cts,
needed, opts)`` once, when the last member is visited in reverse order (all
members precede their shared inputs in that order, so no input is visited
before the group's answer reaches it); ``cts[i]`` is ``members[i]``'s
cotangent, ``S.Zero`` where none reached it, and members absent from the
formula are the rule's business (their cotangent is zero).  Forward mode
calls each member's ``jvp`` as usual; a grouped rule keeps it consistent.

Python's cyclic garbage collector is paused while a walk runs (where it
was enabled, and enabled again after, whatever happens).  A walk builds
its answer's nodes, which live as long as the answer, and every few
thousand of them the collector scanned every object alive, the formula
and SymPy's caches included: 30% of the gradient's time at depth 10⁴ of
``y ← a·sin(y) + cos(y)`` and 10-20% of Rosenbrock's at n = 1,000.  The
nodes hold no reference cycles, so nothing waits for a collection.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import wraps

from sympy import Add, Basic, Expr, I, Piecewise, S, Symbol
from sympy.functions.elementary.complexes import (
    adjoint,
    arg,
    conjugate,
    im,
    periodic_argument,
    polar_lift,
    principal_branch,
    re,
)

from .build import SORTED_HEIGHT, WIDE
from .errors import ComplexValueError, RuleError, describe
from .graph import same
from .matrices.rules import madd
from .resolver import node_name, resolver
from .rules import NONSMOOTH, Opts
from .rules.forms import WalkState, piecewise, total
from .rules.realness import is_real, real_part
from .rules.selection import selection, spread
from .rules.walkstate import NodeTable

__all__ = ["Walk", "reverse", "forward"]

# Nodes that only make sense for complex arguments.
_COMPLEX_PARTS = (re, im, conjugate, arg, adjoint, polar_lift, periodic_argument, principal_branch)
# Built-in rules that are wrong for complex arguments (not holomorphic).
_NONHOLOMORPHIC = frozenset(NONSMOOTH) | {"Piecewise", "atan2"}


def _is_complex_part(cls: type) -> bool:
    """Whether ``cls`` is one of :data:`_COMPLEX_PARTS`, kept per class
    (``isinstance`` against them asks their metaclasses: about 2 µs a node)."""
    got = _COMPLEX_CLASSES.get(cls)
    if got is None:
        got = _COMPLEX_CLASSES[cls] = issubclass(cls, _COMPLEX_PARTS)
    return got


_COMPLEX_CLASSES: dict[type, bool] = {}


def _is_complex_symbol(s: Basic) -> bool:
    return isinstance(s, Symbol) and (
        s.is_extended_real is False or (s.is_complex and s.is_extended_real is None)
    )


def _complex_part_message(node: Basic) -> str:
    """Why a complex part (re, im, conjugate, arg) stops the walk, and what
    to do: declare the symbols real, or, when they are, bound them so the
    part's argument is real (a gradient of ``Abs(sqrt(y))`` holds
    ``conjugate(sqrt(y))``, complex for y < 0, so its Hessian stops there)."""
    head = (f"{describe(node)} takes a complex part ({type(node).__name__}); symgrad "
            "treats symbols as real and its rules are real-valued. ")
    loose = sorted(str(s) for s in node.free_symbols if not s.is_extended_real)
    if loose:
        return head + (f"Declare {', '.join(loose)} real (Symbol('x', real=True)) so SymPy "
                       "simplifies it away, or use sympy.diff for complex analysis")
    return head + (f"Its argument {node.args[0]} is not real for every real value of its "
                   "symbols (a gradient of Abs or sign of it holds this part): bound the "
                   "symbols so SymPy proves it real (Symbol('y', nonnegative=True) for "
                   "sqrt(y)), or use sympy.diff for complex analysis")


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off inside the block, if it was on
    (on again after it, also on an error); a block inside another is the
    outer one's.

    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _paused(fn: Callable) -> Callable:
    """``fn`` run with the collector paused (:func:`collector_paused`)."""

    @wraps(fn)
    def run(*args, **kwargs):
        with collector_paused():
            return fn(*args, **kwargs)

    return run


class Walk:
    """One formula's DAG, with each node's rule, inputs and dependence on
    the symbols being differentiated.

    Nodes are numbered in the walk's order (children first), and its tables
    are lists over those positions: SymPy's ``Basic.__hash__`` is a Python
    call, asked once per edge and once per node here (by
    :func:`symgrad.graph.numbered`), not at every look-up of the walk."""

    def __init__(self, roots: Sequence[Expr], wrt: frozenset, opts: Opts) -> None:
        self.opts = opts
        self.wrt = wrt
        rule_of = resolver(opts)
        # whether any rule groups its nodes (custom rules): else no node is
        # asked for a group key (two lookups a node)
        self.grouped = False
        # Nodes are numbered children first (as :func:`symgrad.graph.numbered`
        # numbers them) and each node's entries are found when it is
        # numbered, its inputs' known: one pass.  Per position: the rule
        # (None at a leaf), whether the node depends on wrt, its height
        # (longest path down to a leaf: a rule over a taller argument runs
        # on a stencil, :func:`symgrad.rules.forms.stencil`; rules read it in
        # ``opts.walk``) and which of its inputs depend on wrt.  A numeric
        # (constant) node's own assumptions say whether it is complex:
        # asin(2), log(-2), LambertW(-1) hold no I.  ``ids`` finds a node by
        # its identity (an integer's hash), ``index`` by equality (SymPy's
        # ``Basic.__hash__``, a Python call): an equal copy met again is
        # found by its identity after the first time.
        index: dict = {}
        ids: dict = {}
        order: list = []
        kid_pos: list = []
        rule_at: list = []
        depends_at: list = []
        height_at: list = []
        needed_at: list = []
        cplx: list = []
        numeric: list = []
        rules: dict = {}  # id(node) -> its rule, while it is on the path
        copies: list = []

        def frame(node: Basic) -> tuple:
            if not node.args or not isinstance(node, Expr):
                return (node, iter(()), [])
            rule = rules[id(node)] = rule_of(node)
            if not self.grouped and getattr(rule, "group_key", None) is not None:
                self.grouped = True
            return (node, iter(tuple(rule.inputs(node))), [])

        for root in roots:
            if id(root) in ids or root in index:
                continue
            stack = [frame(root)]
            while stack:
                node, it, got = stack[-1]
                for k in it:
                    i = ids.get(id(k))
                    if i is None:
                        i = index.get(k)
                        if i is None:  # not placed: a DAG has no cycle, so not on the path
                            stack.append(frame(k))
                            break
                        ids[id(k)] = i
                        copies.append(k)  # kept alive: its id stays its own
                    got.append(i)
                else:
                    stack.pop()
                    i = len(order)
                    index[node] = i
                    ids[id(node)] = i
                    order.append(node)
                    kids = tuple(got)
                    kid_pos.append(kids)
                    if stack:
                        stack[-1][2].append(i)
                    if not kids:
                        rule_at.append(None)
                        depends_at.append(node in wrt)
                        cplx.append(node is I or _is_complex_symbol(node))
                        numeric.append(node.is_number)
                        height_at.append(0)
                        needed_at.append(())
                        if node.args and not isinstance(node, Expr) and node.free_symbols & wrt:
                            raise RuleError(
                                f"{describe(node)} ({type(node).__name__}) is not an expression, "
                                "so no gradient can flow into it; keep it free of the symbols "
                                "you differentiate with respect to"
                            )
                        continue
                    rule = rules.pop(id(node))
                    rule_at.append(rule)
                    d = False
                    c = False
                    n = True
                    h = 0
                    needed = []
                    for k in kids:
                        kd = depends_at[k]
                        needed.append(kd)
                        d = d or kd
                        c = c or cplx[k]
                        n = n and numeric[k]
                        if height_at[k] > h:
                            h = height_at[k]
                    needed_at.append(tuple(needed))
                    # SymPy asks it of every factor and term it builds, recursively
                    # when not yet known: ask it children first, one level each.
                    node.is_commutative  # noqa: B018
                    if n:
                        real = node.is_extended_real
                        c = real is False or (c and real is not True)
                    cplx.append(c)
                    numeric.append(n)
                    height_at.append(h + 1)
                    depends_at.append(d)
                    if d:
                        if _is_complex_part(type(node)):
                            raise ComplexValueError(_complex_part_message(node))
                        if c and rule.name in _NONHOLOMORPHIC:
                            raise ComplexValueError(
                                f"{describe(node)} applies {node_name(node)}, which is not "
                                "complex-differentiable, to a complex-valued argument; its "
                                "real-valued rule would give a wrong answer. Keep I, complex "
                                "symbols and complex constants (asin(2), log(-2)) out of its "
                                "argument"
                            )
        self.order, self.kids, self.index, self.ids = order, kid_pos, index, ids
        self._copies = copies
        self.rule_at, self.depends_at, self.height_at, self.needed_at = (
            rule_at, depends_at, height_at, needed_at)

    def state(self) -> WalkState:
        """What the rules get from this walk (``opts.walk``): each node's
        height, and the walk's own nodes."""
        return WalkState(NodeTable(self.order, self.height_at, self.index, self.ids),
                         NodeTable(self.order, self.order, self.index, self.ids))

    @property
    def inputs(self) -> dict[Basic, tuple]:
        """Each node's inputs (the walk's own nodes), by node."""
        order = self.order
        return {n: tuple(order[k] for k in ks) for n, ks in zip(order, self.kids)}

    def nodes(self) -> list:
        """Nodes that depend on the symbols, children first."""
        return [n for n, d in zip(self.order, self.depends_at) if d]


def _sum(terms: list, heights: NodeTable | None = None, final: bool = False) -> Expr:
    """Add cotangent terms, merging Piecewise terms over the same conditions
    (the branches of one Piecewise node) into a single Piecewise; a term
    whose conditions begin another's, up to its last (true) one, is that
    one's too (:func:`_aligned`).  Many tall terms (at least ``WIDE``, one
    of their factors a node of the formula taller than ``SORTED_HEIGHT`` by
    ``heights``) are added in the order they came, as forward mode adds
    tall tangents: SymPy's canonical order compares them node by node until
    they differ, and the cotangents of a weight shared by every level of a
    recurrence are alike down to the bottom (quadratic in the depth, times
    the depth: 700 levels, 0.7 s of a 0.8 s gradient).

    Cotangents of a wide Piecewise's branches, each selected on the branch
    taken (:func:`symgrad.rules.selection.selected`), are spread over the
    node's conditions where two or more meet, or one reaches a symbol
    (``final``): the gradient holds no such selection."""
    if final:
        terms = [a for t in terms for a in (t.args if _selections(t) else (t,))]
    if len(terms) == 1 and not (final and selection(terms[0])):
        return terms[0]
    if getattr(terms[0], "is_Matrix", False):  # matrix cotangents
        return madd(*terms)
    # conditions -> [(the term, or None where extended), its values]
    groups: dict[tuple, list] = {}
    rest = []
    chosen: dict = {}  # Taken node -> {position: [values]}, [terms]
    for t in terms:
        sel = selection(t)
        if sel is not None:
            where, j, v = sel
            by, ts = chosen.setdefault(where, ({}, []))
            by.setdefault(j, []).append(v)
            ts.append(t)
        elif isinstance(t, Piecewise):
            groups.setdefault(tuple(c for _, c in t.args), []).append(
                (t, [e for e, _ in t.args]))
        else:
            rest.append(t)
    for where, (by, ts) in chosen.items():
        if len(ts) == 1 and not final:
            rest.append(ts[0])
            continue
        values = {j: vs[0] if len(vs) == 1 else total(vs) for j, vs in by.items()}
        groups.setdefault(tuple(c for _, c in where.args), []).append(
            (None, spread(where, values)))
    if len(groups) > 1:
        groups = _aligned(groups)
    for conds, members in groups.items():
        if len(members) == 1 and members[0][0] is not None:
            rest.append(members[0][0])
            continue
        branches = [total([vs[i] for _, vs in members if vs[i] is not S.Zero] or [S.Zero])
                    for i in range(len(conds))]
        rest.append(piecewise(list(zip(branches, conds))))
    if len(rest) == 1:
        return rest[0]
    if heights is not None and len(rest) >= WIDE and _tall(rest, heights):
        return Add(*rest, evaluate=False)
    return total(rest)


def _selections(t: Expr) -> bool:
    """Whether ``t`` is a sum holding a selected cotangent."""
    return isinstance(t, Add) and any(selection(a) is not None for a in t.args)


def _tall(terms: list, heights: NodeTable) -> bool:
    """Whether a term has a factor (or is a node) of the formula taller
    than ``SORTED_HEIGHT``."""
    for t in terms:
        for f in (t.args if t.is_Mul else (t,)):
            if heights.get(f, 0) > SORTED_HEIGHT:
                return True
    return False


def _aligned(groups: dict) -> dict:
    """``groups`` with the condition lists that end in a true condition and
    whose other conditions begin a longer such list merged into it.  A
    Piecewise takes its last value wherever its other conditions fail, so
    ``((a, c₀), (b, True))`` is ``((a, c₀), (b, c₁), (b, True))``: the
    cotangents of one Piecewise node's branches, whose trailing zero
    branches were folded into the last, add up as one Piecewise again (n
    branches: n terms of up to n branches each, quadratic, otherwise)."""
    out: dict = {}
    tops: list = []  # the longest lists, ending in a true condition
    for conds in sorted(groups, key=len, reverse=True):
        members = groups[conds]
        if conds[-1] is S.true:
            head = conds[:-1]
            # (condition by condition, hashes first: a tuple's == compares
            # two deep conditions as trees)
            top = next((t for t in tops if len(t) > len(head)
                        and all(map(same, t[:len(head)], head))), None)
            if top is not None:
                extra = len(top) - len(head)
                out[top].extend((None, vs[:-1] + [vs[-1]] * extra) for _, vs in members)
                continue
            tops.append(conds)
        out[conds] = list(members)
    return out


def _groups(walk: Walk) -> tuple[dict[int, Hashable], dict[Hashable, list]]:
    """Each grouped node's key (by position), and each group's members'
    positions in walk order."""
    key_of: dict[int, Hashable] = {}
    members: dict[Hashable, list] = {}
    if not walk.grouped:
        return key_of, members
    order, kids = walk.order, walk.kids
    for i, node in enumerate(order):
        rule = walk.rule_at[i]
        if not walk.depends_at[i] or rule is None:
            continue
        group_key = getattr(rule, "group_key", None)
        key = group_key(node) if group_key is not None else None
        if key is None:
            continue
        first = members.setdefault(key, [i])[0]
        if first != i:
            if kids[first] != kids[i]:
                raise RuleError(
                    f"rule {rule.name!r} groups the nodes {describe(order[first])} and "
                    f"{describe(node)}, whose inputs differ; a group's members must share "
                    "their inputs"
                )
            members[key].append(i)
        key_of[i] = key
    return key_of, members


@_paused
def reverse(
    outputs: Sequence[Expr], cotangents: Sequence[Expr], wrt: Sequence[Symbol], opts: Opts
) -> dict[Symbol, Expr]:
    """Σₖ cotangentₖ · ∂outputₖ/∂s for each ``s`` in ``wrt`` (missing where
    no cotangent reaches ``s``).

    Formulas that hold complex values inside (``Abs(sqrt(x))`` at x < 0)
    are finished here: non-holomorphic rules there send complex cotangents
    down, so the gradient of a real output in a real direction is the real
    part of what reaches the symbol (see :mod:`symgrad.rules.realness`).
    Where an output or a cotangent may itself be complex, that projection
    does not apply and forward mode, exact for every rule, gives the answer.

    >>> from sympy import Abs, Symbol, sqrt
    >>> x = Symbol("x", real=True)
    >>> reverse([Abs(sqrt(x))], [S.One], [x], Opts())
    {x: re(sign(conjugate(sqrt(x)))/(2*sqrt(x)))}
    """
    wrtset = frozenset(wrt)
    walk = Walk(outputs, wrtset, opts)
    state = walk.state()
    got = _accumulate(walk, outputs, cotangents, wrtset, replace(opts, walk=state))
    if not state.projected:
        return got
    if all(is_real(e) for e in (*outputs, *cotangents)):
        return {s: real_part(g) for s, g in got.items()}
    out: dict = {}
    for s in dict.fromkeys(wrt):
        col = forward(outputs, {s: S.One}, opts)
        terms = [c * t for c, t in zip(cotangents, col) if t is not None and c != 0]
        if terms:
            out[s] = Add(*terms)
    return out


def _accumulate(
    walk: Walk, outputs: Sequence[Expr], cotangents: Sequence[Expr], wrtset: frozenset,
    opts: Opts,
) -> dict[Symbol, Expr]:
    """Reverse accumulation over ``walk``, the rules given ``opts`` (which
    carries the walk's state), over the walk's positions."""
    order, kid_pos, index = walk.order, walk.kids, walk.index
    rule_at, needed_at, depends_at = walk.rule_at, walk.needed_at, walk.depends_at
    heights = opts.walk.heights if opts.walk is not None else None
    acc: list = [None] * len(order)
    for out, c in zip(outputs, cotangents):
        if c is not S.Zero and c != 0:
            i = index[out]
            if acc[i] is None:
                acc[i] = [c]
            else:
                acc[i].append(c)
    result: dict[Symbol, Expr] = {}
    key_of, groups = _groups(walk)
    gathered: dict[Hashable, dict[int, Expr]] = {}
    # symbols with arguments (x[i]): their gradient stops at them
    inner_wrt = {index[s] for s in wrtset if s in index and rule_at[index[s]] is not None}
    for i in range(len(order) - 1, -1, -1):
        terms = acc[i]
        key = key_of.get(i) if key_of else None
        if key is not None:  # a member of a group: gather, answer at the last
            acc[i] = None
            got = gathered.setdefault(key, {})
            if terms:
                got[i] = _sum(terms, heights)
            members = groups[key]
            if i != members[0]:
                continue
            del gathered[key]
            if not got:
                continue
            kids = kid_pos[i]
            cts = rule_at[i].group_vjp(
                [order[m] for m in members], [got.get(m, S.Zero) for m in members],
                [depends_at[k] for k in kids], opts,
            )
        elif terms is None:
            continue
        else:
            acc[i] = None
            node = order[i]
            rule = rule_at[i]
            if rule is None:  # a leaf: a symbol differentiated, or a constant
                if node in wrtset:
                    result[node] = _sum(terms, heights, final=True)
                continue
            if not depends_at[i]:
                continue
            g = terms[0] if len(terms) == 1 else _sum(terms, heights)
            if inner_wrt and i in inner_wrt:
                result[node] = _sum(terms, heights, final=True)
                continue
            kids = kid_pos[i]
            cts = rule.vjp(node, g, list(needed_at[i]), opts)
        if len(cts) != len(kids):
            raise RuleError(
                f"rule {rule_at[i].name!r} returned {len(cts)} cotangents for node "
                f"{describe(order[i])}, which has {len(kids)} inputs"
            )
        for k, c in zip(kids, cts):
            if c is not None and c is not S.Zero:
                if acc[k] is None:
                    acc[k] = [c]
                else:
                    acc[k].append(c)
    return result


@_paused
def forward(
    outputs: Sequence[Expr], tangents: dict[Symbol, Expr], opts: Opts
) -> list[Expr | None]:
    """The tangent of each output given a tangent per symbol (None = zero)."""
    seeds = {s: t for s, t in tangents.items() if t is not None and t is not S.Zero and t != 0}
    walk = Walk(outputs, frozenset(seeds), opts)
    opts = replace(opts, walk=walk.state())
    order, kid_pos, index = walk.order, walk.kids, walk.index
    rule_at, depends_at = walk.rule_at, walk.depends_at
    tan: list = [None] * len(order)
    seeded = set()
    for s, t in seeds.items():
        i = index.get(s)
        if i is not None:
            tan[i] = t
            seeded.add(i)
    for i, node in enumerate(order):
        rule = rule_at[i]
        if rule is None or not depends_at[i] or i in seeded:
            continue
        ts = [tan[k] for k in kid_pos[i]]
        if all(t is None for t in ts):
            continue
        t = rule.jvp(node, ts, opts)
        if t is not None and t is not S.Zero:
            tan[i] = t
    return [tan[index[o]] for o in outputs]
