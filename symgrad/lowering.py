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

from sympy import Basic, Dummy, Expr

from .build import CANONICAL_DEPTH, cancelling, mapped
from .graph import postorder
from .nodes import is_marker
from .shapes import flatten_exprs
from .widen import FloatMarker

__all__ = ["lower", "expand", "canonical", "unwiden"]


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
    return mapped([form], _recorded(built), swap=at.get)[0]


def _recorded(built: set[Basic]):
    """:func:`~symgrad.build.cancelling`, each node it builds added to ``built``."""
    def rebuild(node: Basic, args: tuple) -> Basic:
        out = cancelling(node, args)
        built.add(out)
        return out
    return rebuild


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
    def marker(node: Basic, low: tuple) -> Basic | None:
        if not is_marker(node):
            return None
        out = templates.apply(node, low)
        if memo.get(out) is not out:
            _lower_into([out], memo, templates)  # nests only as deep as markers make markers
            out = memo[out]
        return out

    mapped(roots, _recorded(templates.built), hook=marker, memo=memo)


_ARITHMETIC = ("Add", "Mul", "Pow")


def canonical(exprs: list[Basic], built: set[Basic]) -> list[Basic]:
    """``exprs`` with the sums, products and powers in ``built`` (built
    without evaluation) or above them evaluated, so terms that cancel
    cancel; functions, ``Max``/``Min`` and ``Piecewise`` stay as written
    (evaluating nested ``Max`` takes time exponential in its depth), and so
    does everything deeper than ``CANONICAL_DEPTH``.
    """
    depth: dict[Basic, int] = {}

    def evaluates(node: Basic) -> bool:
        return type(node).__name__ in _ARITHMETIC and depth[node] <= CANONICAL_DEPTH

    def rebuild(node: Basic, args: tuple) -> Basic:  # (where an argument changed)
        return node.func(*args) if evaluates(node) else cancelling(node, args)

    def as_written(node: Basic, low: tuple) -> Basic | None:  # (mapped's hook, every node)
        depth[node] = 1 + max((depth[a] for a in node.args), default=0)
        if node in built and evaluates(node):  # lowering built it without evaluation
            return node.func(*low)
        return None  # SymPy's own node is kept unless an argument changed

    return mapped(exprs, rebuild, hook=as_written)


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
    built: set[Basic] = set()
    out = mapped(roots, _recorded(built),
                 hook=lambda node, low: low[0] if isinstance(node, FloatMarker) else None)
    return canonical(out, built)  # sums flatten, terms cancel
