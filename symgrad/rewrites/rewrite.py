"""A rewrite as data, and the pass that applies a set of them to a DAG.

A :class:`Rewrite` is a template (``lhs``), its replacement (``rhs``, over
the same pattern symbols), where it is valid (a predicate on what the
pattern symbols bound, answered by :class:`~symgrad.rewrites.facts.Facts`),
how far it may be trusted without measuring (``scope``), and an
:class:`Example`: an instance with the region where the source loses its
bits and a region where it does not, which the tests measure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from sympy import Add, Basic, Mul

from ..build import EVALUATED_TREE, evaluated, mapped, replaced, tree_size
from ..graph import free_symbols
from .facts import Facts
from .forms import Sigmoid, Softplus, expand_forms
from .pattern import Match, match

__all__ = ["Rewrite", "Example", "SCOPES", "apply_rewrites", "fires_on", "replace_nodes",
           "reevaluated"]

# codegen:  applied to every formula code generation emits (today's accurate forms)
# safe:     never loses accuracy where valid; applied by stabilize=True without measuring
# measured: kept only where a measurement shows it loses nothing on the domain
SCOPES = ("codegen", "safe", "measured")

Validity = Callable[[Match, Facts], bool]


@dataclass(frozen=True)
class Example:
    """An instance of a rewrite's source and where to measure it: over
    ``unstable`` the source loses bits and the rewrite keeps them; over
    ``elsewhere`` the rewrite loses none; over ``everywhere`` (the whole
    float range where it is valid; required of the ``codegen`` and ``safe``
    scopes) it loses none at any sample."""

    expr: Basic
    unstable: Mapping[Basic, tuple[float, float]]
    elsewhere: Mapping[Basic, tuple[float, float]]
    everywhere: Mapping[Basic, tuple[float, float]] | None = None


@dataclass(frozen=True)
class Rewrite:
    """``lhs`` → ``rhs`` where ``valid`` holds.  ``where`` says the domain of
    validity in words; ``why`` what the source loses and the form keeps."""

    name: str
    lhs: Basic
    rhs: Basic
    scope: str
    why: str
    example: Example
    valid: Validity | None = None
    where: str = "everywhere"
    family: str = ""
    extra: Mapping = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.scope not in SCOPES:
            raise ValueError(f"rewrite {self.name}: scope {self.scope!r} not in {SCOPES}")

    @property
    def makes_forms(self) -> bool:
        """Whether its replacement holds an accurate-form node to expand."""
        return self.rhs.has(Sigmoid, Softplus)

    def apply(self, node: Basic, facts: Facts) -> Basic | None:
        """The rewritten node, or None where the template does not match
        or the bound arguments are outside the domain of validity."""
        for m, k, rest in self.matches(node):
            if self.valid is not None and not self.valid(m, facts):
                if k is None:
                    return None  # (a match at the root that is not valid: no scaled one)
                continue
            if k is None:
                out = self.replacement(m)
                return type(node)(out, *rest) if rest else out
            return Add(k * self.replacement(m), *rest)
        return None

    def matches(self, node: Basic) -> tuple:
        """Where the template matches ``node``, structurally (the domain of
        validity not asked): ``((m, None, rest),)`` where it matches at the
        root (``rest``: the root's arguments left over), else each match of
        :meth:`_scaled_matches` ``(m, k, rest)`` in order.  Remembered per
        node object (:data:`_MATCHES`): ``stabilize`` rewrites the same nodes again
        and again, in every candidate and in every candidate's code (25,939
        calls on 3,632 distinct nodes for the focal loss's gradient), and
        the scaled search builds SymPy quotients for each pair of terms."""
        key = (id(self), id(node))
        got = _MATCHES.get(key)
        if got is not None and got[0] is self and got[1] is node:
            return got[2]
        found = match(self.lhs, node)
        out = ((found[0], None, found[1]),) if found is not None else self._scaled_matches(node)
        if len(_MATCHES) >= _MATCHES_MAX:
            _MATCHES.clear()
        _MATCHES[key] = (self, node, out)  # (both kept alive: their ids stay theirs)
        return out

    def replacement(self, m: Match) -> Basic:
        """``rhs`` over what the pattern symbols bound; a rewrite whose
        replacement depends on the match (a sum of as many terms as an
        integer shift) builds it with ``extra["build"]``."""
        build = self.extra.get("build")
        # xreplace's evaluation, but through build.evaluated: SymPy's would walk
        # a bound argument large as a tree (log1p(u) asks whether u is zero)
        return build(m) if build is not None else replaced(self.rhs, m.get, evaluated)

    def _scaled_matches(self, node: Basic) -> tuple:
        """A two-term sum template matched up to a common factor of the two
        terms: ``k*erf(u) + k`` is ``k*(erf(u) + 1)`` (SymPy distributes
        ``(erf(u) + 1)/2`` and ``x*(1 + erf(u))/2``), ``k*log(a) - k*log(b)``
        is ``k*(log(a) - log(b))``; the node's other terms are kept.  Each
        such match ``(m, k, rest)`` in order (:meth:`apply` takes the first
        valid one: ``k * rhs + rest``)."""
        if not (isinstance(node, Add) and isinstance(self.lhs, Add) and len(self.lhs.args) == 2
                and 2 <= len(node.args) <= _SCALED_TERMS):
            return ()
        if tree_size(node) > EVALUATED_TREE:  # its quotients are SymPy's evaluation
            return ()
        kinds = {type(t) for t in self.lhs.args} | \
            {type(f) for t in self.lhs.args for f in Mul.make_args(t)}
        terms = node.args
        out = []
        # the node's quotients, built once for every rule (SymPy's divisions were
        # half of this search: the same pairs for each two-term template)
        held = _QUOTIENTS.get(id(node))
        if held is None or held[0] is not node:
            if len(_QUOTIENTS) >= _MATCHES_MAX:
                _QUOTIENTS.clear()
            held = _QUOTIENTS[id(node)] = (node, {})  # (the node kept alive: its id stays)
        quotients = held[1]
        for i, s in enumerate(terms):
            if not isinstance(s, Mul):
                continue
            for a, f in enumerate(s.args):
                if type(f) not in kinds or not _variable(f):
                    continue  # (a constant factor, 1/sqrt(pi), is part of k)
                k = quotients.get((i, a))
                if k is None:
                    k = quotients[(i, a)] = s / f
                for j, t in enumerate(terms):
                    if j == i:
                        continue
                    pair = quotients.get((i, a, j))
                    if pair is None:
                        pair = quotients[(i, a, j)] = Add(f, t / k)
                    got = match(self.lhs, pair)
                    if got is None or got[1]:
                        continue
                    rest = tuple(r for n, r in enumerate(terms) if n not in (i, j))
                    out.append((got[0], k, rest))
        return tuple(out)

    def __repr__(self) -> str:
        return f"Rewrite({self.name}: {self.lhs} -> {self.rhs}, {self.scope})"


def _variable(node: Basic) -> bool:
    """Whether ``node`` holds a symbol, found over the DAG (SymPy's
    ``free_symbols`` walks the tree: exponential in a cond chain's depth)."""
    return not (node.is_Atom and not node.is_Symbol) and bool(free_symbols([node]))


_SCALED_TERMS = 6  # sums as long as this are searched for a scaled pair
# (id(rewrite), id(node)) -> (the rewrite, the node, its structural matches there):
# Rewrite.matches.  Keyed by identity: a node as key would make a look-up compare an
# equal copy with SymPy's ==, recursive over the tree (a RecursionError at 100
# nested sigmoids, seen after another test left an equal chain in the dict)
_MATCHES: dict = {}
_MATCHES_MAX = 1 << 17  # entries kept at most (then forgotten, all at once)
# id(node) -> (the node, its sums' quotients k = s/f and pairs f + t/k by position):
# Rewrite._scaled_matches, shared by every rule; forgotten as _MATCHES is
_QUOTIENTS: dict = {}
_MAX_STEPS = 8  # rewrites nested in the nodes that rewrites create


def reevaluated(node: Basic, args: tuple, new: Mapping[Basic, Basic]) -> Basic:
    """``node`` over its rewritten children, evaluated
    (:func:`symgrad.build.evaluated`); itself where none changed: an equal
    copy is no change, and rebuilding it would re-evaluate it."""
    low = tuple(new[a] for a in args)
    if any(a is not b and a != b for a, b in zip(low, args)):
        return evaluated(node, low)
    return node


def apply_rewrites(
    exprs: Iterable[Basic], rewrites: Iterable[Rewrite], facts: Facts | None = None,
    tried: list | None = None,
) -> list[Basic]:
    """``exprs`` with ``rewrites`` applied wherever they match and are valid.

    One bottom-up pass over the DAG (each distinct node once, no
    recursion over the formula): each node is rebuilt from its rewritten
    children, then rewritten by the first rewrite that matches (in the
    order given); the nodes that rewrite creates go through the same pass.
    Finally every accurate-form node is expanded.

    ``tried``, a list, receives every node at which the pass asked the
    rewrites and none of them rewrote it (:func:`fires_on`: whether another
    rewrite, added after these, would have changed the pass).

    >>> from sympy import symbols, exp, log
    >>> from symgrad.rewrites import LIBRARY
    >>> x = symbols("x")
    >>> apply_rewrites([log(1 + x), exp(x) - 1 + x], LIBRARY)
    [log1p(x), x + expm1(x)]
    """
    roots = list(exprs)
    facts = Facts() if facts is None else facts
    by_root: dict[type, list[Rewrite]] = {}
    for rw in rewrites:
        by_root.setdefault(type(rw.lhs), []).append(rw)
    new: dict[Basic, Basic] = {}  # node -> rewritten; a result maps to itself
    made_forms = False  # an accurate-form node to expand at the end

    def run(tops: list[Basic], depth: int, made_by: tuple[Rewrite, ...]) -> list[Basic]:
        # one build.mapped pass, its memo shared by the passes it nests
        def rewritten(cur: Basic) -> Basic:  # a node rebuilt over its rewritten arguments
            if depth >= _MAX_STEPS:
                return cur
            for rw in by_root.get(type(cur), ()):
                if rw in made_by:
                    continue  # a rewrite does not rewrite what it made
                out = rw.apply(cur, facts)
                if out is not None and out != cur:
                    nonlocal made_forms
                    made_forms = made_forms or rw.makes_forms
                    # the source is done (a regime keeps it as a branch), then the
                    # rewrite's new nodes go through the pass, as deep as rewrites nest
                    new.setdefault(cur, cur)
                    return run([out], depth + 1, (*made_by, rw))[0]
            if tried is not None:
                tried.append(cur)
            return cur

        return mapped(tops, evaluated, after=rewritten, memo=new)

    out = run(roots, 0, ())
    return expand_forms(out) if made_forms else out


def fires_on(rw: Rewrite, tried: Iterable[Basic], facts: Facts) -> bool:
    """Whether ``rw`` rewrites one of the nodes ``tried`` (an
    :func:`apply_rewrites` pass's nodes at which no rewrite of the pass
    applied).  Where it rewrites none, the same pass with ``rw`` added after
    its rewrites does exactly what the pass did: at each node the pass's
    rewrites are asked first, in the same order, and ``rw`` is asked only
    at these nodes, where it changes nothing; so the pass's result is its
    result too.

    >>> from sympy import symbols, log, exp
    >>> from symgrad.rewrites import LIBRARY
    >>> x = symbols("x")
    >>> seen = []
    >>> apply_rewrites([exp(x) + x], LIBRARY[:1], tried=seen)
    [x + exp(x)]
    >>> log1p = next(r for r in LIBRARY if r.name == "log1p")
    >>> fires_on(log1p, seen, Facts()), fires_on(log1p, [log(1 + x)], Facts())
    (False, True)
    """
    kind = type(rw.lhs)
    for n in tried:
        if type(n) is kind:
            out = rw.apply(n, facts)
            if out is not None and out != n:
                return True
    return False


def replace_nodes(exprs: Iterable[Basic], repl: Mapping[Basic, Basic]) -> list[Basic]:
    """``exprs`` with each node that is a key of ``repl`` replaced (and the
    nodes above it rebuilt), in one bottom-up pass over the DAG."""
    return mapped(list(exprs), evaluated, swap=repl.get)
