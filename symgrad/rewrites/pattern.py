"""Structural matching of a node against a template.

A template is an ordinary SymPy expression over *pattern symbols*
(:data:`PATTERN_SYMBOLS`).  Matching is exact and structural, never
algebraic: ``log(1 + u)`` matches ``log(x + 1)`` (``u = x``) and
``log(1 + x + y)`` (``u = x + y``) but not ``log(x + 2)``; SymPy's ``Wild``
would bind ``u = x + 1`` there, which is equal but rewrites nothing useful.

* a pattern symbol matches any subexpression, the same one at each place it
  occurs;
* ``-s`` (``Mul(-1, s)``, ``s`` a pattern symbol) matches any node ``n``,
  binding ``s = -n``, so ``1/(1 + exp(-u))`` also matches
  ``1/(1 + exp(x))`` with ``u = -x``;
* the arguments of ``Add`` and ``Mul`` match as a multiset; a pattern
  symbol among them takes every argument left over
  (``1 + u`` against ``1 + x + y``);
* at the root, an ``Add`` or ``Mul`` template without such a symbol may
  match part of the node: ``exp(u) - 1`` matches ``exp(x) - 1 + y``, and
  the rest (``y``) is handed back to be kept.

Everything else must be equal: numbers, classes, argument counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from sympy import Add, Basic, Dummy, Mul, S

__all__ = ["PATTERN_SYMBOLS", "Match", "match", "is_pattern_symbol"]

Match = dict[Basic, Basic]

PATTERN_SYMBOLS: tuple[Dummy, ...] = tuple(Dummy(n) for n in ("a", "b", "c", "p", "u", "v"))
_PATTERN = frozenset(PATTERN_SYMBOLS)


def is_pattern_symbol(t: Basic) -> bool:
    return t in _PATTERN


def match(template: Basic, node: Basic) -> tuple[Match, tuple[Basic, ...]] | None:
    """The first binding of the template's pattern symbols that rebuilds
    ``node`` (up to the root's leftover arguments, returned beside it).

    >>> from sympy import exp, symbols
    >>> x, y = symbols("x y")
    >>> u = PATTERN_SYMBOLS[4]
    >>> m, rest = match(exp(u) - 1, exp(x) - 1 + y)
    >>> m[u], rest
    (x, (y,))
    >>> match(exp(u) - 1, exp(x) - 2) is None
    True
    """
    if not _may_match(template, node):
        return None
    if isinstance(template, (Add, Mul)) and type(node) is type(template) \
            and not any(is_pattern_symbol(t) for t in template.args):
        for m, rest in _match_commutative(type(node), template.args, node.args, {}, partial=True):
            return m, rest
        return None
    for m in _match(template, node, {}):
        return m, ()
    return None


_NEEDS: dict[Basic, tuple] = {}


def _needs(template: Basic) -> tuple:
    """What a node must have to match ``template`` at its root: its class,
    and the classes (commutative) or the classes and atoms (positional)
    of the arguments that are not pattern symbols."""
    got = _NEEDS.get(template)
    if got is None:
        fixed = [t for t in template.args if not is_pattern_symbol(t) and not _is_negated(t)]
        if isinstance(template, (Add, Mul)):
            got = ("commutative", type(template), tuple(Counter(type(t) for t in fixed).items()))
        else:
            got = ("positional", type(template), len(template.args),
                   tuple((i, t) for i, t in enumerate(template.args)
                         if not is_pattern_symbol(t) and not _is_negated(t)))
        _NEEDS[template] = got
    return got


def _is_negated(t: Basic) -> bool:
    return t.is_Mul and len(t.args) == 2 and t.args[0] is S.NegativeOne \
        and is_pattern_symbol(t.args[1])


def _may_match(template: Basic, node: Basic) -> bool:
    """A cheap necessary condition for :func:`match` (most nodes fail it)."""
    if is_pattern_symbol(template):
        return True
    need = _needs(template)
    if type(node) is not need[1]:
        return False
    if need[0] == "commutative":
        have = [type(a) for a in node.args]
        return all(have.count(k) >= v for k, v in need[2])
    args = node.args
    if len(args) != need[2]:
        return False
    return all(type(args[i]) is type(t) and (t.args or args[i] == t) for i, t in need[3])


def _match(t: Basic, n: Basic, m: Match) -> Iterator[Match]:
    """Every extension of ``m`` under which ``t`` matches ``n``."""
    if is_pattern_symbol(t):
        bound = m.get(t)
        if bound is None:
            yield {**m, t: n}
        elif bound == n:
            yield m
        return
    if t.is_Mul and len(t.args) == 2 and t.args[0] is S.NegativeOne \
            and is_pattern_symbol(t.args[1]):
        yield from _match(t.args[1], -n, m)
        return
    if not t.args:
        if t == n:
            yield m
        return
    if type(t) is not type(n):
        return
    if isinstance(t, (Add, Mul)):
        for m2, _ in _match_commutative(type(n), t.args, n.args, m, partial=False):
            yield m2
        return
    if len(t.args) != len(n.args):
        return
    yield from _match_sequence(t.args, n.args, m)


def _match_sequence(ts: tuple, ns: tuple, m: Match) -> Iterator[Match]:
    if not ts:
        yield m
        return
    for m2 in _match(ts[0], ns[0], m):
        yield from _match_sequence(ts[1:], ns[1:], m2)


def _match_commutative(
    op: type, ts: tuple, ns: tuple, m: Match, partial: bool
) -> Iterator[tuple[Match, tuple]]:
    """Match the arguments ``ts`` of a commutative template (``op`` is
    ``Add`` or ``Mul``) to distinct node arguments ``ns``.

    A pattern symbol among ``ts`` takes all leftover node arguments (at
    least one); otherwise leftovers are allowed only when ``partial``.  A
    template of two pattern symbols alone (``a + b``) gives the first one
    argument and the second the others, for each argument in turn.
    """
    free = [t for t in ts if is_pattern_symbol(t)]
    fixed = [t for t in ts if not is_pattern_symbol(t)]
    if len(free) == 2 and not fixed and len(ns) >= 2:
        # ``a + b`` alone: ``a`` takes one argument, ``b`` the others, each in turn
        for i, n in enumerate(ns):
            rest = ns[:i] + ns[i + 1:]
            for m2 in _match(free[0], n, m):
                for m3 in _match(free[1], rest[0] if len(rest) == 1 else op(*rest), m2):
                    yield m3, ()
        return
    if len(free) > 1 or len(fixed) > len(ns):
        return
    for m2, used in _assign(fixed, ns, m, frozenset()):
        rest = tuple(n for i, n in enumerate(ns) if i not in used)
        if free:
            if rest:
                # (one leftover is bound as it is: op(x) is x, but through
                # SymPy's cache, whose look-up compares an equal copy deeply)
                for m3 in _match(free[0], rest[0] if len(rest) == 1 else op(*rest), m2):
                    yield m3, ()
        elif not rest or partial:
            yield m2, rest


def _assign(fixed: list, ns: tuple, m: Match, used: frozenset) -> Iterator[tuple[Match, frozenset]]:
    if not fixed:
        yield m, used
        return
    t, more = fixed[0], fixed[1:]
    for i, n in enumerate(ns):
        if i in used:
            continue
        for m2 in _match(t, n, m):
            yield from _assign(more, ns, m2, used | {i})
