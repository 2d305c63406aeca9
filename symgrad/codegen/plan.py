"""The planning pass of emission: which nodes of the DAG get a statement,
which are written inside their user's line, which are divisions and which
run quietly.  Each statement holds a small tree over the names of
arguments and temporaries (printed later, over the final names).

One assignment per shared subexpression: a node used more than once (or a
result) gets a temporary.  A node used once is written inside its user's
line when that keeps the line short (``INLINE_SIZE`` operations,
``INLINE_DEPTH`` deep); otherwise it gets a temporary too, so no line of the
output is deep and no printer ever recurses deeply.  A line applies one
operation to at most ``MAX_OPERANDS`` operands (Python's compiler recurses
once per operand of ``a + b + ...``): longer sums and products are folded
through temporaries.

A reciprocal that a product has for divisor (its first reciprocal factor,
:meth:`Dag.divides`): the product divides by its positive power (held in a
temporary unless it is a name), ``y/x`` or ``y*z/x``, not ``y*t0`` with
``t0 = 1/x``: one rounding fewer, and no overflow of ``1/x`` at a subnormal
``x`` where the product is finite (the gradient of ``sqrt(x**2 + y**2)``
was inf at ``x = -2e-311, y = 7e-319``).  One divisor per product
(``y/(x*w)`` could underflow ``x*w``); other uses read a temporary ``1/x``.
A product of three factors or more divides its divisor into one factor
first, its last in SymPy's order (:func:`~.dag.quotient_factor`):
``x*t/r`` is ``x*(t/r)``, the same two roundings as ``(x*t)/r``, and products
holding the same pair (``x*t/r`` and ``y*t/r`` in a gradient) compute
``t/r`` once, as SymPy's cse does; a quotient one product reads is written
in its line.  Which grouping keeps the intermediate in range depends on
the values (``(x*t)/r`` underflows at subnormal ``x`` where ``x*(t/r)`` is
right; ``y*(cos(y)/x)`` overflows at ``x = 5e-324`` where ``(y*cos(y))/x``
does not): the pair is chosen by the product's structure alone, never by
which other products share it.
A reciprocal is never written inside its user's line: a product printed
over two inlined reciprocals would divide by their product, over a
temporary it multiplies, and which one is inlined depends on how many
users it has, so on the other outputs compiled with it.  Every such
decision is taken from the node's own structure, so an output's floats are
those of its program alone (``lambdify(args, g)(...)[k]`` is bitwise
``lambdify(args, g[k])(...)``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sympy import Basic, Number, Piecewise, S, Symbol

from ..build import piecewise, unevaluated
from .dag import Dag, associative, divisor, reciprocal
from .program import Statement

__all__ = ["Plan", "plan", "INLINE_SIZE", "INLINE_DEPTH", "MAX_OPERANDS"]

# A line holds at most this many operations, nested at most this deep.
INLINE_SIZE = 6
INLINE_DEPTH = 3
# A line applies one operation to at most this many operands.
MAX_OPERANDS = 100

_NONE: frozenset[str] = frozenset()


@dataclass
class Plan:
    """The planned statements (trees over the names, not printed), each
    root's tree (a temporary's or argument's name, or a literal), the
    temporaries holding results, and the operations evaluated."""

    statements: list[Statement]
    results: list[Basic]
    kept: set[str]
    n_ops: int


@dataclass
class _Value:
    """A node's code as its users read it: a tree over names, the
    operations it holds and how deep, whether it is quiet, and the
    temporaries it reads."""

    tree: Basic
    size: int = 0
    depth: int = 0
    quiet: bool = False
    reads: frozenset[str] = _NONE


def plan(dag: Dag, leaf_names: dict[Basic, str], temps: Iterator[str]) -> Plan:
    """The planning pass over ``dag``: ``leaf_names`` names the argument
    symbols, ``temps`` yields fresh temporary names.

    >>> from sympy import symbols, sin
    >>> from symgrad.codegen.dag import read_dag
    >>> x, y = symbols("x y")
    >>> p = plan(read_dag([sin(x*y) + x*y]), {x: "x", y: "y"}, iter(["t0", "t1"]))
    >>> [(st.name, st.tree) for st in p.statements], p.results
    ([('t0', x*y), ('t1', t0 + sin(t0))], [t1])
    """
    planner = _Planner(dag, leaf_names, temps)
    for node in dag.order:
        planner.visit(node)
    return Plan(planner.statements, [planner.placeholder[r] for r in dag.roots],
                {planner.temp_of[r] for r in dag.roots if r in planner.temp_of},
                planner.n_ops)


class _Planner:
    """The planning pass's state: what each node visited so far is read as."""

    def __init__(self, dag: Dag, leaf_names: dict[Basic, str], temps: Iterator[str]) -> None:
        self.dag, self.temps = dag, temps
        self.statements: list[Statement] = []
        self.n_ops = 0
        # node -> its name (a Symbol) or literal, once it has one
        self.placeholder: dict[Basic, Basic] = {n: Symbol(s) for n, s in leaf_names.items()}
        self.temp_of: dict[Basic, str] = {}  # node -> the temporary holding it
        self.inline: dict[Basic, _Value] = {}  # used once: written in its user's line
        # reciprocal -> its division (power**-1) and what that reads
        self.divide_by: dict[Basic, _Value] = {}
        self.quotient_of: dict[tuple, _Value] = {}  # (factor, divisor) -> how it is read

    def visit(self, node: Basic) -> None:
        """Plan ``node``, whose operands are planned."""
        if node in self.placeholder:
            return
        ks = self.dag.kids[node]
        if not ks:  # numbers and constants are written as literals
            self.placeholder[node] = node
            return
        self.n_ops += 1
        pair = self._quotient(node, ks)
        values = self._operands(node, ks, pair)
        size = 1 + sum(v.size for v in values)
        depth = max([1] + [v.depth + 1 for v in values])
        quiet = node not in self.dag.loud or any(v.quiet for v in values)
        if len(values) > MAX_OPERANDS and associative(node):
            values = self._folded(node, values, quiet)
        trees = [v.tree for v in values]
        value = _Value(_rebuild(node, trees), size, depth, quiet,
                       _NONE.union(*(v.reads for v in values)))
        if reciprocal(node) and self.dag.divides(node):
            value = self._divisor(node, trees[0], value)
            if value is None:
                return
        self._place(node, value)

    def _statement(self, tree: Basic, quiet: bool, reads: frozenset[str], node: Basic) -> str:
        name = next(self.temps)
        self.statements.append(Statement(name, "", quiet, reads, tree, node))
        return name

    def _quotient(self, node: Basic, ks: tuple) -> tuple | None:
        """The quotient (factor, divisor) the product ``node`` is computed
        over, computed first if no product before was (None if it has none,
        or its factor or divisor is not a value of its own yet)."""
        pair = self.dag.pairs.get(node)
        if pair is None or pair[1] not in self.divide_by:
            return None
        if pair not in self.quotient_of:
            f, div = pair[0], self.divide_by[pair[1]]
            if f in self.inline:  # (used once: by this product alone)
                value = self.inline.pop(f)
                tree, reads = value.tree, value.reads
            else:
                tree = self.placeholder[f]
                reads = frozenset((self.temp_of[f],)) if f in self.temp_of else _NONE
            quotient = _rebuild(node, [tree, div.tree])
            if self.dag.pair_uses[pair] == 1:  # (one product: written in its line)
                self.quotient_of[pair] = _Value(quotient, 2, 2, False, div.reads | reads)
            else:
                name = self._statement(quotient, pair not in self.dag.pair_loud,
                                       div.reads | reads, node)
                self.quotient_of[pair] = _Value(Symbol(name), reads=frozenset((name,)))
        return pair

    def _operands(self, node: Basic, ks: tuple, pair: tuple | None) -> list[_Value]:
        """How ``node``'s line reads each operand: a name, a literal, an
        inlined tree, a division by a reciprocal's power, or (for a product
        over a quotient) the quotient's name in place of its factor and
        divisor."""
        d = divisor(node, ks)
        out: list[_Value] = []
        for k in ks:
            if pair is not None and k is pair[0]:
                out.append(self.quotient_of[pair])
            elif pair is not None and k is d:
                continue
            elif k is d and k in self.divide_by:
                out.append(self.divide_by[k])
            elif k in self.inline:
                out.append(self.inline.pop(k))
            else:
                reads = frozenset((self.temp_of[k],)) if k in self.temp_of else _NONE
                out.append(_Value(self.placeholder[k], reads=reads))
        return out

    def _folded(self, node: Basic, values: list[_Value], quiet: bool) -> list[_Value]:
        """The operands of a long sum (product, Max, Min) folded, in order,
        through temporaries of ``MAX_OPERANDS`` operands at most (in linear
        time): the operands of the line left."""
        acc: list[_Value] = []
        step = MAX_OPERANDS - 1
        for start in range(0, len(values) - MAX_OPERANDS, step):
            chunk = acc + values[start:start + step]
            name = self._statement(_rebuild(node, [v.tree for v in chunk]), quiet,
                                   _NONE.union(*(v.reads for v in chunk)), node)
            acc = [_Value(Symbol(name), reads=frozenset((name,)))]
        return acc + values[start + step:]

    def _divisor(self, node: Basic, base: Basic, value: _Value) -> _Value | None:
        """A reciprocal ``base**-e`` some product divides by: remember its products' divisor
        ``p = base**e`` (in a temporary unless it is a name or a number);
        its own value ``p**-1`` where some use is not a divisor (None where
        none is)."""
        e = -node.args[1]
        power = base if e == 1 else _rebuild(node, [base, e])
        reads = value.reads
        # (the one product a reciprocal used once divides by writes its
        # power in its line, as before; the same floats as through a name)
        once = self.dag.uses[node] == 1 and node not in self.dag.is_root
        if once or isinstance(power, (Symbol, Number)):
            size, depth = value.size + 1, value.depth
        else:
            name = self._statement(power, value.quiet, reads, node)
            power, reads = Symbol(name), frozenset((name,))
            size, depth = 2, 1
        # (quiet where every use is: no loud node reads the reciprocal)
        inverse = _Value(_rebuild(node, [power, S.NegativeOne]), size, depth,
                         (value.quiet and once) or node not in self.dag.loud, reads)
        self.divide_by[node] = inverse
        if not self.dag.other_uses.get(node) and node not in self.dag.is_root:
            return None  # every use divides: no 1/x to compute
        return inverse

    def _place(self, node: Basic, value: _Value) -> None:
        """Write ``node`` inside its user's line (used once, not a result,
        small) or give it a statement."""
        dag = self.dag
        if dag.uses[node] == 1 and node not in dag.is_root and value.size <= INLINE_SIZE \
                and value.depth <= INLINE_DEPTH and not reciprocal(node):
            self.inline[node] = value
            return
        name = self._statement(value.tree, value.quiet, value.reads, node)
        self.placeholder[node] = Symbol(name)
        self.temp_of[node] = name


def _rebuild(node: Basic, args: list[Basic]) -> Basic:
    """``node`` over new operands, exactly as written (nothing re-evaluated);
    a ``Piecewise``'s operands are its values and conditions, in order.

    Sums, products, powers and function calls are made directly from their
    arguments (the printer reads only the class and the arguments): their
    constructors, even unevaluated, sympify, check and cache every node."""
    if isinstance(node, Piecewise):
        return piecewise(list(zip(args[::2], args[1::2])), evaluate=False)
    return unevaluated(node, args)
