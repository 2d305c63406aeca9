"""The one policy for rebuilding a SymPy node over new arguments, as
written: no evaluation, no checks, past SymPy's cache.

Every stage that rebuilds a node (lowering, realness, the rule forms, the
printers, code generation, the node-by-node float evaluator of the
stability checker) calls :func:`unevaluated`.  Node classes differ in what
their constructor takes: SymPy's own take ``evaluate=False``, but
``sympy.codegen``'s nodes (``logaddexp``, ``logaddexp2``) and a few
containers (``ExprCondPair``) take no keyword at all, and constructors
that sort their arguments (``Max``, ``logaddexp``) walk the whole tree
below to do it, exponential in a DAG's depth.  So functions, powers, sums,
products and lattice nodes are made directly (``Basic.__new__``), the way
their constructors make them once evaluation is done; any other class gets
``evaluate=False`` if its constructor takes it, and its plain constructor
if not.

Piecewise nodes are the exception to "SymPy evaluates every node":
SymPy's pair constructor (``ExprCondPair``) folds a condition that holds a
Piecewise into an ``ITE`` (``piecewise_fold``, ``simplify``, ``as_set``,
periodicity: seconds for ``where(e > k, ...)`` nested five deep, and an
``AssertionError`` inside SymPy on some), even with ``evaluate=False``,
and the evaluation of a Piecewise walks every condition as a tree,
exponential in a DAG's depth.  :func:`piecewise` builds the pairs as
written; it lets SymPy evaluate only conditions small as trees.  What it
builds as written is a :class:`Piecewise` (SymPy's, but for its
constructor), so that SymPy's own operations on it (``e**2``,
``sympy.diff``, ``subs``: SymPy's methods rebuild through ``self.func``)
keep it as written too: SymPy's fold of a condition holding a deep
Piecewise takes exponential time, or fails (an ``AssertionError`` in
``piecewise_fold``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cmp_to_key

import sympy
from sympy import Add, Basic, Expr, Function, Mul, S, Tuple
from sympy.calculus.accumulationbounds import AccumBounds
from sympy.core.basic import _cmp_name
from sympy.core.function import AppliedUndef
from sympy.core.operations import LatticeOp
from sympy.functions.elementary.exponential import ExpBase
from sympy.functions.elementary.miscellaneous import MinMaxBase
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.matrices.expressions import MatrixExpr

from . import graph
from .graph import postorder

__all__ = [
    "unevaluated", "builder", "bare", "of_class", "cancelling", "evaluated", "lattice",
    "replaced", "mapped", "deduplicated",
    "factors", "scaled", "times", "plus",
    "piecewise", "Piecewise", "connective", "WIDE", "DIRECT_FACTORS", "TALL", "SORTED_HEIGHT",
    "SMALL_CONDITION", "EVALUATED_TREE", "CANONICAL_DEPTH", "tree_size", "coeff_term",
]


def unevaluated(node: Basic, args: Sequence[Basic], commutative: bool | None = None) -> Basic:
    """``node``'s class over ``args``, as written; a sum's or product's
    commutativity is ``commutative`` where given (the printers rebuild over
    names standing for matrix parts), else its arguments'.

    >>> from sympy import S, symbols
    >>> from sympy.codegen.numpy_nodes import logaddexp
    >>> x, y = symbols("x y")
    >>> unevaluated(2 * x, (S(2), y + 1)).args  # SymPy would distribute 2*(y + 1)
    (2, y + 1)
    >>> unevaluated(logaddexp(x, y), (y, S(0)))  # it takes no evaluate=False
    logaddexp(y, 0)
    """
    args = tuple(args)
    cls = type(node)
    if node.is_Add or node.is_Mul:
        return cls._from_args(args, commutative)
    if node.is_Pow:
        obj = Basic.__new__(cls, *args)
        obj.is_commutative = args[0].is_commutative and args[1].is_commutative
        return obj
    if isinstance(node, (MinMaxBase, LatticeOp)):
        obj = Basic.__new__(cls, *args)
        obj._argset = frozenset(args)
        return obj
    if isinstance(node, ExprCondPair):  # its constructor folds the condition
        return Tuple.__new__(cls, *args)
    if isinstance(node, sympy.Piecewise) and all(isinstance(a, ExprCondPair) for a in args):
        return Basic.__new__(cls, *args)
    if isinstance(node, Function) and not isinstance(node, AppliedUndef):
        obj = Basic.__new__(cls, *args)
        nargs = getattr(node, "nargs", None)  # (what Function's constructor sets)
        if nargs is not None:
            obj.nargs = nargs
        return obj
    try:
        return node.func(*args, evaluate=False)
    except TypeError:  # a class without the keyword (ExprCondPair, Tuple)
        return node.func(*args)


def builder(node: Basic) -> Callable[[tuple], Basic]:
    """:func:`unevaluated` for ``node``'s class, chosen once: a function of
    the arguments (a tuple) that builds what ``unevaluated(node, args)``
    builds, for a rebuild that makes many nodes like ``node`` (a rule's
    answer on a stencil, put back at every node of a chain).

    >>> from sympy import cos, symbols
    >>> x, y = symbols("x y")
    >>> make = builder(cos(x))
    >>> make((y,)) == cos(y), make((x + y,)).args
    (True, (x + y,))
    """
    cls = type(node)
    if node.is_Add or node.is_Mul:
        return lambda args: cls._from_args(args)
    if isinstance(node, Function) and not isinstance(node, AppliedUndef) and not (
            isinstance(node, (MinMaxBase, LatticeOp, sympy.Piecewise))):
        nargs = getattr(node, "nargs", None)
        if nargs is None:
            return lambda args: Basic.__new__(cls, *args)

        def make(args: tuple) -> Basic:
            obj = Basic.__new__(cls, *args)
            obj.nargs = nargs
            return obj

        return make
    return lambda args: unevaluated(node, args)


def bare(cls: type, args: Sequence[Basic]) -> Basic:
    """A node of class ``cls`` over ``args`` with nothing asked or checked
    (SymPy's ``Basic.__new__``), for nodes no constructor would take: a
    formula printed over placeholders or names (an ``exp`` of a hole, an
    elementwise function over the name of a matrix), a marker of a code
    generator's own.  Every other build goes through :func:`unevaluated`,
    which sets what a class's constructor sets.

    >>> from sympy import Symbol, exp
    >>> bare(exp, (Symbol("h"),)).args
    (h,)
    """
    return Basic.__new__(cls, *args)


def of_class(cls: type, args: Sequence[Basic]) -> Basic:
    """:func:`unevaluated` for a class without a node of it at hand (what
    unpickling rebuilds): a node of ``cls`` over ``args``, as written.

    >>> from sympy import Add, Symbol
    >>> x = Symbol("x")
    >>> of_class(Add, (x, x))
    x + x
    """
    return unevaluated(Basic.__new__(cls), tuple(args))


def cancelling(node: Basic, args: Sequence[Basic]) -> Basic:
    """``node`` over new arguments, as written (lowering's and code
    generation's rebuild): nothing is re-evaluated,
    except that a sum drops terms that cancel exactly (``x - x``), and a
    product with an exact zero factor is zero, as SymPy has them (so
    ``x - stop_gradient(x)`` lowers to 0).  Neither looks deeper than the
    node's own arguments.

    >>> from sympy import symbols, S
    >>> x, y = symbols("x y")
    >>> cancelling(2 * x, (S(2), y + 1)).args  # SymPy would distribute 2*(y + 1)
    (2, y + 1)
    >>> cancelling(x + y, (x, -x)), cancelling(x * y, (x, S.Zero))
    (0, 0)
    """
    if node.is_Add:
        return _cancelled_sum(args)
    if node.is_Mul and any(a is S.Zero for a in args) and all(a.is_finite is not False
                                                           for a in args if a.is_Number):
        return S.Zero
    if isinstance(node, sympy.Piecewise):
        return piecewise([a.args for a in args], evaluate=False)
    # past SymPy's cache: a lookup there compares a new deep node with an
    # equal one built before by SymPy's recursive ==
    return unevaluated(node, args)


def _cancelled_sum(args: Sequence[Basic]) -> Basic:
    """``Add(*args)`` without evaluation, terms ``c*t`` with equal ``t``
    collected when they cancel (numbers are added)."""
    coeff: dict[Basic, Basic] = {}
    number = S.Zero
    for a in args:
        if a.is_Number:
            number += a
            continue
        c, t = coeff_term(a)
        coeff[t] = coeff.get(t, S.Zero) + c
    if all(c != 0 for c in coeff.values()) and len(coeff) + (number != 0) == len(args):
        return Add._from_args(args)  # nothing cancels: as written
    terms = [a for a in args if not a.is_Number and coeff[coeff_term(a)[1]] != 0]
    if number != 0:
        terms.insert(0, number)
    if not terms:
        return S.Zero
    return terms[0] if len(terms) == 1 else Add._from_args(terms)


def coeff_term(a: Basic) -> tuple[Basic, Basic]:
    """``a`` as (number, term), the term as built (no evaluation, no walk
    below ``a``'s own arguments): the key that collects a sum's terms.

    >>> from sympy import symbols
    >>> x, y = symbols("x y")
    >>> coeff_term(2 * x * y), coeff_term(x)
    ((2, x*y), (1, x))
    """
    if not (a.is_Mul and a.args[0].is_Number):
        return S.One, a
    rest = a.args[1:]
    return a.args[0], rest[0] if len(rest) == 1 else Mul._from_args(rest)


def evaluated(node: Basic, args: Sequence[Basic]) -> Basic:
    """``node``'s class over new arguments with SymPy's evaluation (the
    rewrites' rebuild: a rewritten argument may simplify its parent), except
    a Piecewise and its pairs, built as written: SymPy folds a condition
    holding a Piecewise into ITE form (set algebra over trees: a 6-deep cond
    chain never finished); and a node with an argument larger as a tree
    than ``EVALUATED_TREE`` (:func:`tree_size`), built as written but for
    exact cancellation (:func:`cancelling`): SymPy's evaluation of some
    nodes walks their arguments as trees.

    >>> from sympy import S, exp, log, symbols
    >>> x, y = symbols("x y")
    >>> evaluated(exp(x), (log(y),)), evaluated(2 * x, (S(2), y + 1))
    (y, 2*y + 2)
    """
    args = tuple(args)
    if isinstance(node, ExprCondPair):
        return Tuple.__new__(ExprCondPair, *args)
    if isinstance(node, sympy.Piecewise):
        return piecewise([a.args for a in args])
    if any(a.args and tree_size(a) > EVALUATED_TREE for a in args):
        return cancelling(node, args)
    if node.is_Mul and any(a.is_Mul for a in node.args):
        # a product grouped as written (SymPy's never holds a product): its
        # grouping is its order of operations, kept (stabilize's underflow
        # split (c·exp(e/2))·exp(e/2), whose exponent a rewrite changed, was
        # folded into c·exp(e), subnormal: the mish second derivative at x =
        # 357.8 lost 10.5 bits)
        return unevaluated(node, args)
    if isinstance(node, MinMaxBase):
        # SymPy caches most constructors, not Max's and Min's, whose evaluation
        # asks the assumptions of every pair of arguments (some ms each): the
        # same ones came back 1,427 times in the asymmetric loss's stabilize,
        # 79 distinct, 11% of its CPU.  Their value is a function of the
        # arguments (their assumptions are part of them): kept, as _TREE's
        return lattice(node.func, args)
    return node.func(*args)


def lattice(cls: type, args: tuple) -> Basic:
    """``cls(*args)`` for ``Max`` or ``Min`` (SymPy's evaluation), kept by
    (class, arguments) for the next call (:func:`evaluated`'s memo).

    >>> from sympy import Max, symbols
    >>> x = symbols("x")
    >>> lattice(Max, (x, x + 1))
    x + 1
    """
    key = (cls, args)
    got = _LATTICE.get(key)
    if got is None:
        if len(_LATTICE) >= _TREE_KEPT:
            _LATTICE.clear()
        got = _LATTICE[key] = cls(*args)
    return got


_LATTICE: dict = {}  # (Max or Min, arguments) -> SymPy's evaluated node


def tree_size(node: Basic) -> int:
    """How many nodes ``node`` has counted as a tree (each path to a node
    counts it again), found over the DAG, at most ``EVALUATED_TREE + 1``
    (a larger count is that).  Sizes are kept between calls, by node
    object (the most recent ``2**16``), so a rebuild asking about each new
    node's arguments counts every distinct node once.

    >>> from sympy import Symbol, cos, sin
    >>> x = Symbol("x")
    >>> e = x
    >>> for _ in range(3):
    ...     e = sin(e) + cos(e)  # the tree doubles at every level
    >>> tree_size(e), tree_size(sin(x) + cos(x))
    (29, 5)
    >>> for _ in range(20):
    ...     e = sin(e) + cos(e)
    >>> tree_size(e) == EVALUATED_TREE + 1
    True
    """
    hit = _TREE.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    cap = EVALUATED_TREE + 1

    def known(n: Basic) -> int | None:
        h = _TREE.get(id(n))
        return h[1] if h is not None and h[0] is n else None

    order, kids = postorder([node], lambda n: () if known(n) is not None else n.args)
    if len(_TREE) + len(order) > _TREE_KEPT:
        _TREE.clear()
    size: dict = {}  # by equality: kids holds equal children, maybe other objects
    for n in order:
        s = known(n)
        if s is None:
            s = 1
            for c in kids[n]:
                s += size[c]
                if s >= cap:
                    s = cap
                    break
            _TREE[id(n)] = (n, s)
        size[n] = s
    return size[node]


_TREE: dict = {}  # id(node) -> (node, tree size): the node kept, so its id stays its own
_TREE_KEPT = 1 << 16


def replaced(root: Basic, swap: Callable[[Basic], Basic | None],
             rebuild: Callable[[Basic, Sequence[Basic]], Basic] = unevaluated) -> Basic:
    """``root`` with every node ``n`` for which ``swap(n)`` is not None
    replaced by it (its arguments not visited), the nodes above rebuilt
    by ``rebuild``, as written by default (:func:`unevaluated`), each
    distinct node once, without recursion; a node none of whose arguments
    changed is kept (the same object).  ``swap`` is called once per
    distinct node reached.  (:func:`mapped` over one root.)

    >>> from sympy import cos, sin, symbols
    >>> x, y = symbols("x y")
    >>> e = sin(x) * cos(x) + x
    >>> replaced(e, {x: 2 * y}.get)  # nothing re-evaluated: 2*y stays a factor
    2*y + sin(2*y)*cos(2*y)
    >>> replaced(e, {y: x}.get) is e
    True
    """
    return mapped([root], rebuild, swap=swap)[0]


def deduplicated(roots: Sequence[Basic]) -> list:
    """``roots`` with equal nodes made one object: each node over its
    arguments' one objects, kept where it already is (the same object),
    else the first of its equals met, else rebuilt as written.  Walked by
    object identity and matched by class and argument identities, so no
    two nodes are compared (``==`` on two equal copies of a DAG compares
    them as trees).  Differentiation leaves equal copies (a reverse-mode
    Hessian of a 40-deep ``where`` chain: 2,713 objects, 1,681 distinct
    nodes), and every later dict or set of nodes compares a copy with the
    one it holds: code generation's passes spent most of their time there.
    A node whose contents are more than its class and arguments (a symbol,
    a number: matched by ``==``; an integral: kept as it is) is not rebuilt.

    >>> from sympy import Add, Mul, S, sin, symbols
    >>> x = symbols("x")
    >>> a, b = (Add._from_args((S.One, sin(x))) for _ in range(2))
    >>> a is b, a == b
    (False, True)
    >>> u, v = deduplicated([sin(a), Mul._from_args((a, b))])
    >>> u.args[0] is v.args[0] is v.args[1], u == sin(a)
    (True, True)
    """
    rep: dict = {}  # id(object) -> its one object
    walked: list = []  # (every object walked kept: its id stays its own)
    table: dict = {}  # (class, the arguments' one objects' ids) or (class, leaf) -> one object
    stack = [(r, False) for r in reversed(roots)]
    while stack:
        n, ready = stack.pop()
        if id(n) in rep:
            continue
        args = n.args
        if not ready and args:
            stack.append((n, True))
            stack.extend((a, False) for a in reversed(args) if id(a) not in rep)
            continue
        if not args:
            got = table.setdefault((type(n), n), n)
        elif type(n)._hashable_content not in graph._ARGS_CONTENT:
            got = n
        else:
            new = tuple(rep[id(a)] for a in args)
            key = (type(n), tuple(map(id, new)))
            got = table.get(key)
            if got is None:
                same_args = all(u is v for u, v in zip(new, args))
                got = table[key] = n if same_args else unevaluated(n, new)
                hash(got)  # (kept by the node: asked later, it would recurse down a new chain)
        rep[id(n)] = got
        walked.append(n)
    return [rep[id(r)] for r in roots]


Hook = Callable[[Basic, tuple], "Basic | None"]


def mapped(roots: Sequence[Basic], rebuild: Callable[[Basic, Sequence[Basic]], Basic] = unevaluated,
           *, swap: Callable[[Basic], Basic | None] | None = None, hook: Hook | None = None,
           every: bool = False, memo: dict | None = None,
           after: Callable[[Basic], Basic] | None = None) -> list:
    """``roots`` mapped bottom up over their DAG, each distinct node once,
    children first, without recursion: the one rebuild loop every stage
    uses, with its policy (``rebuild``) and its per-node hooks.

    * ``swap(n)``, asked before ``n``'s arguments are visited: a
      replacement, whose arguments are not visited, or None;
    * ``hook(n, args)``, asked after, with ``n``'s arguments mapped: ``n``'s
      new form, or None for the default;
    * the default: ``rebuild(n, args)`` where an argument changed (or
      wherever ``n`` has arguments, with ``every``), else ``n`` itself;
    * ``after(form)``, asked of each visited node's form (the hook's or
      the default's): its final form (a pass that rewrites each node
      rebuilt over its rewritten arguments).

    A node changes when its new form is another object that is not equal to
    it (hashes compared first: an equal copy is no change, and rebuilding
    the nodes above it would be wasted work).  ``memo`` (node -> new form)
    is read and filled: a node in it is not visited again, and each new
    form maps to itself, so a later call stops at it.

    >>> from sympy import S, Symbol, sin
    >>> x, y = Symbol("x"), Symbol("y")
    >>> e = (y + 1) * sin(x)
    >>> mapped([e], swap={y: S(2)}.get), mapped([e], evaluated, swap={y: S(2)}.get)
    ([(1 + 2)*sin(x)], [3*sin(x)])
    >>> mapped([e], evaluated, hook=lambda n, a: 2 * a[0] if n.func is sin else None)
    [2*x*(y + 1)]
    >>> mapped([e], evaluated, after=lambda n: n.args[0] if n.func is sin else n)
    [x*(y + 1)]
    """
    done = {} if memo is None else memo
    hits: dict = {}

    def kids(n: Basic) -> tuple:
        if n in done:
            return ()
        if swap is not None:
            r = swap(n)
            if r is not None:
                hits[n] = r
                return ()
        return n.args

    order, ks = postorder(roots, kids)
    new: dict = {}
    changed: set = set()  # by equality: an argument may be an equal copy of the node seen
    for n in order:
        fresh = n not in done  # (a hook or ``after`` that runs a nested pass over the
        # same memo may put n in it: its form here is still the one recorded)
        if not fresh:
            new[n] = out = done[n]
        elif n in hits:
            out = hits[n]
        else:
            k = ks[n]
            args = tuple(new[c] for c in k)
            out = hook(n, args) if hook is not None else None
            if out is None:
                out = rebuild(n, args) if k and (every or any(c in changed for c in k)) else n
            if after is not None:
                out = after(out)
        if out is not n and (n in hits or hash(out) != hash(n) or out != n):
            changed.add(n)
        elif fresh:
            out = n
        new[n] = out
        if memo is not None and fresh:
            done[n] = out
            done.setdefault(out, out)
    return [new[r] for r in roots]


def factors(args: Sequence[Basic], commutative: bool = True) -> Basic:
    """The product of ``args`` as written, for factors already in SymPy's
    canonical order (a sub-tuple of a canonical product's factors, a
    number before a sum); one factor is itself.

    >>> from sympy import S, symbols
    >>> x, y = symbols("x y")
    >>> factors((S(2), x + y)).args  # SymPy would distribute 2*x + 2*y
    (2, x + y)
    """
    args = tuple(args)
    return args[0] if len(args) == 1 else Mul._from_args(args, commutative)


def scaled(c: Basic, e: Basic) -> Basic | None:
    """``c * e`` for a number ``c``, in SymPy's canonical form, built
    without SymPy's product evaluation (its flatten, sort and cache: the
    most of a chain rule's cost); None where only that evaluation knows
    the result (``e`` a sum, which SymPy distributes over; a factor that is
    a power of a number, which may merge with ``c``; ``c`` zero or not
    finite).

    >>> from sympy import S, sin, symbols
    >>> x, y = symbols("x y")
    >>> scaled(S(-1), 200 * x * sin(y)), scaled(S(2), sin(y)), scaled(S(1) / 2, 2 * x)
    (-200*x*sin(y), 2*sin(y), x)
    >>> scaled(S(2), x + y) is None
    True
    """
    if not c.is_Number or c.is_zero or not c.is_finite:  # 0.0 absorbs as 0 does
        return None
    if e.is_Number:
        return c * e
    if e.is_Add or not e.is_commutative:
        return None
    if e.is_Mul:
        k, rest = (e.args[0], e.args[1:]) if e.args[0].is_Number else (S.One, e.args)
    else:
        k, rest = S.One, (e,)
    if any(f.is_Pow and f.args[0].is_Number or _numeric_atom(f) for f in rest):
        return None
    k = c * k
    if k is S.One:
        return rest[0] if len(rest) == 1 else Mul._from_args(rest, True)
    if k.is_zero or not k.is_finite:
        return None
    return Mul._from_args((k, *rest), True)


def times(a: Basic, b: Basic) -> Basic | None:
    """``a * b`` in SymPy's canonical form without SymPy's product
    evaluation, for two factors or products whose factors all have
    different bases (``x``, ``x**2`` and ``1/x`` share one; so do ``exp(x)``
    and ``exp(y)``): their coefficients multiplied, their factors merged in
    :meth:`Basic.compare`'s order, the coefficient first.  None where only
    that evaluation knows the result (a number, factors over one base, a
    power of a number or of a numeric atom such as ``pi``, a number times
    one sum, which SymPy distributes).

    >>> from sympy import Mul, cos, exp, symbols
    >>> x, y = symbols("x y")
    >>> times(x + y, cos(x)) == Mul(x + y, cos(x)), times(x, x**2) is None
    (True, True)
    >>> times(3 * x * (x + y), cos(y)).args
    (3, x, x + y, cos(y))
    >>> times(-200 * y * (x + y), 2 * x).args, times(exp(x), 2 * exp(y)) is None
    ((-400, x, y, x + y), True)
    """
    ca, fa, ka = _split(a)
    if fa is None:
        return None
    cb, fb, kb = _split(b)
    if fb is None:
        return None
    c = cb if ca is S.One else ca if cb is S.One else ca * cb
    if c is not S.One and (c.is_zero or not c.is_finite):  # 0.0 absorbs as 0 does
        return None
    if len(ka) == 1 and len(kb) == 1:  # one base each (the common case): no set
        u, v = ka[0], kb[0]
        if u is v or (hash(u) == hash(v) and u == v):
            return None
    else:
        bases = {*ka, *kb}
        if len(bases) < len(ka) + len(kb):  # a repeated base: SymPy merges powers
            return None
    try:
        fs = _merged(fa, fb)
    except RecursionError:  # alike to a great depth: SymPy's own sort recurses too
        return None
    return Mul._from_args(fs if c is S.One else (c, *fs), True)


def _split(e: Basic) -> tuple:
    """``e`` as (coefficient, factors, their bases) when every factor is
    one SymPy's product keeps as it is beside factors over other bases
    (:func:`_plain`), in one pass; (None, None, None) otherwise.  A
    factor's base is its power's or exponential's base, else itself."""
    if e.is_Mul:
        args = e.args
        c, rest = (args[0], args[1:]) if args[0].is_Number else (S.One, args)
    else:
        c, rest = S.One, (e,)
    bases = []
    for f in rest:
        cls = type(f)
        kind = _PLAIN_KIND.get(cls)
        if kind is None:
            kind = _plain_class(cls)
        if not kind or not f.is_commutative:
            return None, None, None
        if cls.is_Pow:
            base = f.args[0]
            if base.is_Atom and not base.is_Symbol:  # a power of a number or of pi
                return None, None, None
            bases.append(base)
        elif kind is _EXP:
            bases.append(f.as_base_exp()[0])
        else:
            bases.append(f)
    return c, rest, bases


def _merged(fa: tuple, fb: tuple) -> tuple:
    """Two runs of factors in canonical order, merged into one."""
    if len(fb) > len(fa):
        fa, fb = fb, fa
    if len(fb) == 1:  # one factor put in its place
        g = fb[0]
        at, n = 0, len(fa)
        while at < n and _compare(fa[at], g) < 0:
            at += 1
        return (*fa[:at], g, *fa[at:])
    return tuple(sorted((*fa, *fb), key=_sort_key))


def _compare(a: Basic, b: Basic) -> int:
    """:meth:`Basic.compare`, SymPy's canonical order, with the order of two
    classes (a lookup in SymPy's list of class names) kept once known."""
    if a is b:
        return 0
    ta, tb = type(a), type(b)
    if ta is not tb:
        c = _CLASS_ORDER.get((ta, tb))
        if c is None:
            c = _CLASS_ORDER[(ta, tb)] = _cmp_name(ta, tb)
        if c:
            return c
    return a.compare(b)


_CLASS_ORDER: dict = {}
_sort_key = cmp_to_key(_compare)


def plus(terms: Sequence[Basic]) -> Basic | None:
    """``Add(*terms)`` in SymPy's canonical form without SymPy's sum
    evaluation, for terms with different non-numeric parts (``2*x`` and
    ``x`` share one) and at most one number: the number first, the others
    in :meth:`Basic.compare`'s order.  None where only that evaluation
    knows the result (like terms, a sum among the terms, an infinity,
    an unevaluated power of a number, terms that are not commutative
    expressions).

    >>> from sympy import Add, S, cos, sin, symbols
    >>> x, y = symbols("x y")
    >>> terms = [x * cos(y), -sin(y), 3 * x, S(1)]
    >>> plus(terms).args == Add(*terms).args
    True
    >>> plus([2 * x, x]) is None
    True
    """
    number = None
    rest: list = []
    seen: set = set()
    for t in terms:
        if not isinstance(t, Expr) or t.is_Add or not t.is_commutative or t.is_Order:
            return None
        if t.is_Number:
            if number is not None or t.is_zero or not t.is_finite:
                return None
            number = t
            continue
        if t.is_Mul:
            args = t.args
            if args[0].is_Number:
                if args[0].is_zero or not args[0].is_finite:
                    return None
                key = args[1] if len(args) == 2 else args[1:]
            else:
                key = args
        elif (
            t.is_Pow and t.args[0].is_Number or t.is_Atom and not t.is_Symbol and not t.is_finite
            or isinstance(t, (AccumBounds, MatrixExpr))
        ):
            return None
        else:
            key = t
        if key in seen:
            return None
        seen.add(key)
        rest.append(t)
    if len(rest) + (number is not None) < 2:
        return None
    try:
        rest.sort(key=_sort_key)
    except RecursionError:
        return None
    return Add._from_args((number, *rest) if number is not None else rest, True)


def _plain(f: Basic) -> bool:
    """A factor SymPy's product keeps as it is beside one of another kind."""
    cls = type(f)
    kind = _PLAIN_KIND.get(cls)
    if kind is None:
        kind = _plain_class(cls)
    return bool(kind) and f.is_commutative and not (f.is_Pow and _numeric_atom(f.args[0]))


def _plain_class(cls: type):
    """What the class alone says of :func:`_plain` (SymPy's is_* flags are
    class-level), kept: False, True, or ``_EXP`` for an exponential (a
    plain factor whose base is not itself)."""
    kind = (
        issubclass(cls, Expr) and not cls.is_Number and not cls.is_Mul
        and not (cls.is_Atom and not cls.is_Symbol) and not cls.is_Order
        and not issubclass(cls, AccumBounds)
    )
    if kind and issubclass(cls, ExpBase):
        kind = _EXP
    _PLAIN_KIND[cls] = kind
    return kind


_PLAIN_KIND: dict = {}
_EXP = 2  # (truthy)


def _numeric_atom(f: Basic) -> bool:
    """A number, or an atom that is one (``pi``, ``I``, ``zoo``)."""
    return f.is_Atom and not f.is_Symbol


# ---- growth limits: where symgrad stops asking for SymPy's evaluation ------
# SymPy's evaluation walks arguments as trees, compares them pairwise and
# copies a flattened argument into every node built over it; past these
# sizes symgrad builds as written (every stage takes them from here).

#: Factors (terms, branches) past which a product (sum) is kept nested, one
#: shared factor (term), when multiplied (added): a canonical product copies
#: a product factor's factors into itself, so a cotangent carried down a chain
#: (c·cos(y₁)·cos(y₂)···) would be copied at every level, quadratic; and
#: past which a Piecewise is built as written (SymPy's evaluation compares
#: every pair of branches, O(n³) over the n cotangents of n branches).
WIDE = 8
#: Factors needing a partial past which a product's partials are built from
#: shared prefix and suffix products: 3n multiplications, not n².
DIRECT_FACTORS = 6
#: Height (longest path to a leaf) past which a rule runs on a stencil, a
#: placeholder for the argument: SymPy's evaluation of the rule's formula
#: asks the argument's assumptions, recursively to its bottom.
TALL = 32
#: Height past which a sum of tangents keeps the order it was built in:
#: SymPy's canonical order compares tall alike terms node by node.
SORTED_HEIGHT = 64
#: Nodes, counted as a tree, of a condition past which SymPy does not
#: evaluate the Piecewise or connective holding it (canonical relations,
#: repeats dropped: its evaluation walks conditions as trees).
SMALL_CONDITION = 64
#: Nodes, counted as a tree, of an argument past which :func:`evaluated`
#: builds as written (:func:`cancelling`): SymPy's evaluation of some nodes
#: walks an argument as a tree (``exp`` of a product runs ``logcombine``
#: over every factor, and an unevaluated ``exp`` asked whether it is
#: rational evaluates itself), exponential in a DAG's depth: a 10-deep
#: ``cond(e < 0, e*exp(-e), log(1 + e))`` took 27 s in the rewrites' pass.
EVALUATED_TREE = 1024
#: Depth (levels above the leaves) past which arithmetic above a lowered
#: marker is no longer re-evaluated (so ``x*g - x*g`` cancels only below
#: it): SymPy's evaluation recurses through the depth of a formula
#: (``is_number`` is not cached).
CANONICAL_DEPTH = 100


def piecewise(pairs: Sequence[tuple], *, evaluate: bool = True) -> Basic:
    """``Piecewise(*pairs)`` with each ``(value, condition)`` pair as
    written.  Pairs after a true condition, and pairs whose condition is
    false or repeats an earlier one, are dropped; one pair left with a
    true condition is its value.  With ``evaluate`` SymPy's evaluation
    runs too, if every condition is small as a tree (it walks them as
    trees); a condition that holds a Piecewise is never folded.

    >>> from sympy import Symbol, sin
    >>> x = Symbol("x", real=True)
    >>> piecewise([(x, -x < -1), (2 * x, True)])  # small: SymPy's canonical form
    Piecewise((x, x > 1), (2*x, True))
    >>> e = x
    >>> for _ in range(30):  # 2**30 nodes as a tree, 90 distinct
    ...     e = piecewise([(sin(e), e > 1), (2 * e, True)])
    >>> e.args[0].cond.lhs == e.args[1].expr.args[1]  # the condition as written
    True
    """
    out: list = []
    seen: set = set()
    for value, cond in pairs:
        if cond is True or cond is S.true:
            cond = S.true
        elif cond is False or cond is S.false or cond in seen:
            continue
        seen.add(cond)
        out.append(Tuple.__new__(ExprCondPair, value, cond))
        if cond is S.true:
            break
    if not out:
        raise ValueError("piecewise: every condition is false; give a last pair (value, True)")
    if len(out) == 1 and out[0].cond is S.true:
        return out[0].expr
    if len(out) >= 2 and out[-1].cond is S.true:
        # pairs before the last with its value are the last's (one pass:
        # a branch's cotangent has as many trailing zero branches as the
        # node has branches after it)
        last = out[-1].expr
        k = len(out) - 1
        while k >= 1 and _same(out[k - 1].expr, last):
            k -= 1
        if k < len(out) - 1:
            if k == 0:
                return last
            out = [*out[:k], Tuple.__new__(ExprCondPair, last, S.true)]
    if evaluate and all(_small(p.cond) and _small(p.expr) for p in out):
        return sympy.Piecewise(*out)
    return Basic.__new__(Piecewise, *out)


def connective(cls: type, args: Sequence[Basic]) -> Basic:
    """``And(*args)`` or ``Or(*args)`` (``cls``): SymPy's when every
    argument is small as a tree (its constructor sorts them, walking each
    as a tree), else as written: the neutral constant dropped, the
    absorbing one absorbing, repeats dropped, the order kept.

    >>> from sympy import And, Symbol
    >>> x = Symbol("x")
    >>> connective(And, [x > 1, x > 1, x < 3])
    (x > 1) & (x < 3)
    """
    absorbing = S.false if cls is sympy.And else S.true
    if all(_small(a) for a in args):
        return cls(*args)
    kept: dict = {}
    for a in args:
        if a is absorbing:
            return absorbing
        if a is not ~absorbing:
            kept[a] = None
    if not kept:
        return ~absorbing
    if len(kept) == 1:
        return next(iter(kept))
    obj = Basic.__new__(cls, *kept)
    obj._argset = frozenset(kept)
    return obj


class Piecewise(sympy.Piecewise):
    """SymPy's Piecewise, built as written (:func:`piecewise`): SymPy's
    methods (powers, derivatives, substitution) rebuild it through its
    class, so they keep it as written.  It is named, prints, hashes and
    compares as SymPy's (equal to one with the same pairs), and every
    rule, printer and evaluator keyed on ``Piecewise`` takes it.

    >>> from sympy import Symbol
    >>> x = Symbol("x", real=True)
    >>> p = Piecewise((x, -x < -1), (2 * x, True))
    >>> p  # as written: SymPy's own would make the condition x > 1
    Piecewise((x, -x < -1), (2*x, True))
    >>> p**2
    Piecewise((x**2, -x < -1), (4*x**2, True))
    >>> p == sympy.Piecewise((x, -x < -1), (2 * x, True), evaluate=False)
    True
    """

    def __new__(cls, *args, **options):
        return piecewise([getattr(a, "args", a) for a in args], evaluate=False)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, sympy.Piecewise):  # (pair by pair over the DAG: SymPy's
            # == walks two equal copies as trees, exponential in a where chain's depth)
            return self is other or (len(self.args) == len(other.args) and all(
                map(graph.equal, self.args, other.args)))
        return super().__eq__(other)

    __hash__ = sympy.Piecewise.__hash__

    @property
    def free_symbols(self) -> set:
        """Found once over the DAG and kept: SymPy's ``free_symbols``
        unions the arguments' sets as a tree walk, and its assumption
        queries ask for them at every node (``e**2`` of a ``where``
        nested twelve deep: seconds)."""
        found = self.__dict__.get("_free_symbols")
        if found is None:
            found = self.__dict__["_free_symbols"] = frozenset(graph.free_symbols([self]))
        return set(found)


def _same(a: Basic, b: Basic) -> bool:
    """``a == b``, told apart by their (cached) hashes first: ``==`` on two
    deep unequal DAGs compares them as trees."""
    return a is b or (hash(a) == hash(b) and a == b)


def _small(node: Basic) -> bool:
    """Whether ``node`` has at most ``SMALL_CONDITION`` nodes as a tree
    and no Piecewise (counted with an early stop: the cost is bounded by
    the limit)."""
    stack = [node]
    count = 0
    while stack:
        count += 1
        n = stack.pop()
        if count > SMALL_CONDITION or isinstance(n, sympy.Piecewise):
            return False
        stack.extend(n.args)
    return True
