"""Lowering: the expression that is *evaluated* in place of a formula.

Marker nodes (:mod:`symgrad.nodes`) matter to differentiation only; before a
formula is evaluated or emitted each one is replaced by what it lowers to,
``node._symgrad_lower(*args)``.  The pass knows no marker by name, walks the
DAG bottom-up once (no recursion, so any depth), and rebuilds only the nodes
below which something changed.

Nothing SymPy already built is evaluated again.  A marker's lowering is
computed once per marker class and arity over placeholder symbols (a small
formula, cheap to evaluate) and then grafted onto the lowered arguments;
parents are rebuilt over their lowered arguments without evaluation.  Over
a deep formula SymPy's evaluation walks the whole depth for every node it
builds (``is_number`` recurses, ``Max`` compares its arguments pairwise):
re-evaluating made lowering quadratic, or worse, and ended in a
``RecursionError`` about a hundred sigmoid layers deep.
"""

from __future__ import annotations

from collections.abc import Iterable

from sympy import Add, Basic, Dummy, Expr, Mul, Piecewise, S

from .build import piecewise, unevaluated
from .graph import postorder
from .nodes import is_marker
from .shapes import flatten_exprs
from .widen import FloatMarker

__all__ = ["lower", "expand", "rebuild", "canonical", "unwiden"]


def rebuild(node: Basic, args: tuple | list) -> Basic:
    """``node`` over new arguments, as written: nothing is re-evaluated,
    except that a sum drops terms that cancel exactly (``x - x``), and a
    product with an exact zero factor is zero, as SymPy has them (so
    ``x - stop_gradient(x)`` lowers to 0).  Neither looks deeper than the
    node's own arguments.

    >>> from sympy import symbols, S
    >>> x, y = symbols("x y")
    >>> rebuild(2 * x, (S(2), y + 1)).args  # SymPy would distribute 2*(y + 1)
    (2, y + 1)
    >>> rebuild(x + y, (x, -x)), rebuild(x * y, (x, S.Zero))
    (0, 0)
    """
    if node.is_Add:
        return _sum(args)
    if node.is_Mul and any(a is S.Zero for a in args) and all(a.is_finite is not False
                                                           for a in args if a.is_Number):
        return S.Zero
    if isinstance(node, Piecewise):
        return piecewise([a.args for a in args], evaluate=False)
    return _uncached(node, args)


def _uncached(node: Basic, args: tuple | list) -> Basic:
    """``node`` over ``args`` unevaluated and past SymPy's cache: a lookup
    there compares a new deep node with an equal one built before (lowering
    the same formula twice) by SymPy's recursive ``==``, a RecursionError
    past about a thousand levels (:func:`symgrad.build.unevaluated`)."""
    return unevaluated(node, args)


def _sum(args: tuple | list) -> Basic:
    """``Add(*args)`` without evaluation, terms ``c*t`` with equal ``t``
    collected when they cancel (numbers are added)."""
    coeff: dict[Basic, Basic] = {}
    number = S.Zero
    for a in args:
        if a.is_Number:
            number += a
            continue
        c, t = _split(a)
        coeff[t] = coeff.get(t, S.Zero) + c
    if all(c != 0 for c in coeff.values()) and len(coeff) + (number != 0) == len(args):
        return Add._from_args(args)  # nothing cancels: as written
    terms = [a for a in args if not a.is_Number and coeff[_split(a)[1]] != 0]
    if number != 0:
        terms.insert(0, number)
    if not terms:
        return S.Zero
    return terms[0] if len(terms) == 1 else Add._from_args(terms)


def _split(a: Basic) -> tuple[Basic, Basic]:
    """``a`` as (number, term): ``2*x*y`` is (2, x*y)."""
    if not (a.is_Mul and a.args[0].is_Number):
        return S.One, a
    rest = a.args[1:]
    return a.args[0], rest[0] if len(rest) == 1 else Mul._from_args(rest)


class _Templates:
    """Each marker class's lowering, over placeholders, computed once."""

    def __init__(self, built: set[Basic]) -> None:
        self._made: dict[tuple[type, int], tuple[tuple[Dummy, ...], Basic]] = {}
        self.built = built  # every node rebuilt without evaluation

    def apply(self, node: Basic, args: tuple) -> Basic:
        """``node``'s lowering at the (lowered) ``args``."""
        key = (type(node), len(args))
        made = self._made.get(key)
        if made is None:
            holes = tuple(Dummy(f"a{i}") for i in range(len(args)))
            try:
                form = node.func(*holes)._symgrad_lower(*holes)
            except Exception:  # noqa: BLE001  a marker that cannot stand over placeholders
                return node._symgrad_lower(*args)
            made = self._made[key] = (holes, form)
        holes, form = made
        return _graft(form, dict(zip(holes, args)), self.built)


def _graft(form: Basic, at: dict[Basic, Basic], built: set[Basic]) -> Basic:
    """``form`` with its placeholders replaced by ``at``, rebuilt without
    evaluation (``form`` is small: a marker's lowering); new nodes go to
    ``built``."""
    order, kids = postorder([form], lambda n: () if n in at else n.args)
    new: dict[Basic, Basic] = dict(at)
    for node in order:
        if node in new:
            continue
        args = kids[node]
        low = tuple(new[a] for a in args)
        if any(a is not b for a, b in zip(low, args)):
            new[node] = rebuild(node, low)
            built.add(new[node])
        else:
            new[node] = node
    return new[form]


def lower(exprs: Iterable[Basic]) -> list[Basic]:
    """Each expression with every marker node replaced by its lowering.

    Linear in the distinct nodes, at any depth; plain SymPy comes back as it
    is (the same objects).

    >>> from sympy import symbols, sin
    >>> from symgrad import sigmoid
    >>> x = symbols("x")
    >>> lower([sin(x) + 1, x])
    [sin(x) + 1, x]
    >>> lower([sigmoid(2 * x)])
    [1/(1 + exp(-2*x))]
    """
    return _lowered(list(exprs))[0]


def _lowered(roots: list[Basic]) -> tuple[list[Basic], set[Basic]]:
    """The lowered roots, and the nodes rebuilt (without evaluation) on the way."""
    memo: dict[Basic, Basic] = {}
    templates = _Templates(set())
    _lower_into(roots, memo, templates)
    return [memo[r] for r in roots], templates.built


def _lower_into(roots: list[Basic], memo: dict[Basic, Basic], templates: _Templates) -> None:
    """Fill ``memo[node]`` (the lowered node) for every node below ``roots``.

    Nodes already in ``memo`` are not walked again, so a marker whose
    lowering holds further markers costs only its new part.
    """
    order, kids = postorder(roots, lambda n: () if n in memo else n.args)
    for node in order:
        if node in memo:
            continue
        args = kids[node]
        low = tuple(memo[a] for a in args)
        if is_marker(node):
            out = templates.apply(node, low)
            if memo.get(out) is not out:
                _lower_into([out], memo, templates)  # nests only as deep as markers make markers
                out = memo[out]
        elif any(a is not b and (hash(a) != hash(b) or a != b) for a, b in zip(low, args)):
            # (an equal copy is no change: rebuilding it would be wasted work;
            # hashes first: SymPy's == walks down to the first difference)
            out = rebuild(node, low)
            templates.built.add(out)
        else:
            out = node
        memo[node] = out
        memo.setdefault(out, out)


# Arithmetic above a lowered marker is re-evaluated (so ``x*g - x*g``
# cancels) only this many levels above the leaves: SymPy's evaluation
# recurses through the depth of a formula (``is_number`` is not cached).
CANONICAL_DEPTH = 100
_ARITHMETIC = ("Add", "Mul", "Pow")


def canonical(exprs: list[Basic], built: set[Basic]) -> list[Basic]:
    """``exprs`` with the sums, products and powers in ``built`` (built
    without evaluation) or above them evaluated, so terms that cancel
    cancel; functions, ``Max``/``Min`` and ``Piecewise`` stay as written
    (evaluating nested ``Max`` takes time exponential in its depth), and so
    does everything deeper than ``CANONICAL_DEPTH``.
    """
    order, kids = postorder(exprs, lambda n: n.args)
    new: dict[Basic, Basic] = {}
    depth: dict[Basic, int] = {}
    for node in order:
        args = kids[node]
        depth[node] = 1 + max((depth[a] for a in args), default=0)
        low = tuple(new[a] for a in args)
        changed = any(a is not b for a, b in zip(low, args))
        if not changed and node not in built:
            new[node] = node  # as SymPy built it
        elif type(node).__name__ in _ARITHMETIC and depth[node] <= CANONICAL_DEPTH:
            new[node] = node.func(*low)
        else:
            new[node] = rebuild(node, low) if changed else node
    return [new[r] for r in exprs]


def expand(expr: Expr | list | tuple) -> Expr | list | tuple:
    """``expr`` as plain SymPy: markers lowered to what they evaluate as.

    Takes an expression, a list/tuple, or a Matrix, and returns the same
    structure.  Plain SymPy passes through unchanged.  Sums, products and
    powers rebuilt around a marker are evaluated (terms cancel); functions
    over them are rebuilt as written (see :func:`canonical`).

    >>> from sympy import symbols, exp
    >>> from symgrad import relu
    >>> x, y = symbols("x y")
    >>> expand(exp(x) * y)
    y*exp(x)
    >>> expand([x, 2 * relu(y)])
    [x, 2*Max(0, y)]
    """
    flat, struct = flatten_exprs(expr, "expr")
    out = canonical(*_lowered(flat))
    if isinstance(expr, list) and not struct.parts:
        return out
    return struct.build(out)


def unwiden(exprs: Iterable[Basic]) -> list[Basic]:
    """Each expression with every ``widen(u)`` (and every other
    :class:`~symgrad.widen.FloatMarker`, such as ``compensated(u)``)
    replaced by ``u``: the mathematics, for proofs and the ground truth.
    One pass over the DAG (no recursion); sums and products around a
    removed ``widen`` are evaluated again, as :func:`symgrad.expand` does;
    an expression without ``widen`` comes back as it is.

    >>> from sympy import symbols, sin
    >>> from symgrad import widen
    >>> x = symbols("x")
    >>> unwiden([1 + widen(sin(x)), x])
    [sin(x) + 1, x]
    """
    roots = list(exprs)
    order, kids = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, FloatMarker) for n in order):
        return roots
    new: dict[Basic, Basic] = {}
    built: set[Basic] = set()
    for node in order:
        args = kids[node]
        low = tuple(new[a] for a in args)
        if isinstance(node, FloatMarker):
            new[node] = low[0]
        elif any(a is not b for a, b in zip(low, args)):
            new[node] = rebuild(node, low)
            built.add(new[node])
        else:
            new[node] = node
    return canonical([new[r] for r in roots], built)  # sums flatten, terms cancel
