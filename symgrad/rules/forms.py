"""The forms a derivative rule can take, and how each serves both modes.

A rule is asked two questions by the walker:

* ``vjp(node, ct, needed, opts)`` -- the cotangent of each input, given the
  cotangent ``ct`` of the node (reverse mode);
* ``jvp(node, tangents, opts)`` -- the tangent of the node, given a tangent
  (or ``None`` for zero) per input (forward mode).

The most compact form is *partials*, ``∂node/∂inputᵢ``: VJP is ``ct·pᵢ`` and
JVP is ``Σ pᵢ·tᵢ``.  A rule written as a VJP serves forward mode because it
is linear in its cotangent (``pᵢ = vjp(node, 1)ᵢ``); a rule written as a JVP
serves reverse mode through ``pᵢ = jvp(node, eᵢ)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sympy import Add, And, Basic, Dummy, Expr, Mul, Not, Or, Piecewise, S, sympify
from sympy.core.function import ArgumentIndexError, Derivative
from sympy.core.sympify import SympifyError
from sympy.logic.boolalg import Boolean

from ..build import WIDE, connective, factors, plus, scaled, times
from ..build import piecewise as _piecewise
from ..errors import RuleError, describe
from ..graph import postorder
from .walkstate import WalkState, plan, put_back, stencil

__all__ = [
    "Opts",
    "Rule",
    "PartialsRule",
    "VJPRule",
    "JVPRule",
    "ZeroRule",
    "IdentityRule",
    "FdiffRule",
    "SympyChainRule",
    "SympyLeafRule",
    "scale",
    "product",
    "total",
    "piecewise",
    "support",
    "WalkState",
    "stencil",
    "put_back",
]

CONVENTIONS = ("ad", "distribution")
TIES = ("split", "first")


@dataclass(frozen=True)
class Opts:
    """Per-call options every rule may read; ``walk`` is the running walk's
    state (set by the walker, None outside a walk)."""

    convention: str = "ad"
    ties: str = "split"
    walk: WalkState | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise ValueError(
                f"convention={self.convention!r} is not one of {CONVENTIONS}: "
                "'ad' gives the gradients TensorFlow/JAX/PyTorch give, "
                "'distribution' keeps SymPy's own (DiracDelta) answers"
            )
        if self.ties not in TIES:
            raise ValueError(
                f"ties={self.ties!r} is not one of {TIES}: 'split' shares the "
                "cotangent of Max/Min equally among tied arguments, 'first' gives "
                "all of it to the first (as TensorFlow does)"
            )


def _long(e: Expr, cls: type) -> bool:
    """A sum (product) whose terms (factors) SymPy would copy into any sum
    (product) it is part of: long, or holding one kept nested before."""
    return isinstance(e, cls) and (
        len(e.args) >= WIDE or any(isinstance(f, cls) for f in e.args)
    )


def product(a: Expr, b: Expr) -> Expr:
    """``a * b``; a long product ``a`` is kept as one shared factor.

    >>> from sympy import symbols
    >>> x, y = symbols("x y")
    >>> product(2 * x, 3 * y)
    6*x*y
    """
    if _long(a, Mul) or _long(b, Mul):
        return Mul(a, b, evaluate=False)
    done = times(a, b)  # factors over different bases: no SymPy evaluation
    if done is not None:
        return done
    if a.is_Number or b.is_Number:  # a number times a non-sum: no SymPy evaluation
        done = scaled(a, b) if a.is_Number else scaled(b, a)
        if done is not None:
            return done
    scaled_sum = _scaled_sum(a, b)
    if scaled_sum is not None:
        return scaled_sum
    try:
        return Mul(a, b)
    except RecursionError:  # factors alike down to a great depth (see ``total``)
        return Mul(a, b, evaluate=False)


def _coefficient(e: Expr) -> tuple:
    """``e`` as (number, sum or None): ``2*(x + y)`` is (2, x + y), ``3`` is
    (3, None), ``x + y`` is (1, x + y); anything else is (None, None)."""
    if e.is_Number:
        return e, None
    if e.is_Add:
        return S.One, e
    if e.is_Mul and len(e.args) == 2 and e.args[0].is_Number and e.args[1].is_Add:
        return e.args
    return None, None


def _scaled_sum(a: Expr, b: Expr) -> Expr | None:
    """``a * b`` where it is a number times a sum, kept so (``2*(x + y)``):
    SymPy's product distributes the number over the terms (``2*x + 2*y``,
    a new product per term and a new sum, at every level of a chain rule
    that scales a sum: half of the derivation time of the chained
    Rosenbrock function); None where the product is anything else."""
    ca, sa = _coefficient(a)
    cb, sb = _coefficient(b)
    if ca is None or cb is None or (sa is None) == (sb is None):
        return None
    c = ca * cb
    if c is S.Zero or not c.is_finite:
        return None
    s = sa if sb is None else sb
    return s if c is S.One else factors((c, s))


def total(terms: Sequence[Expr]) -> Expr:
    """``Add(*terms)``; a long sum among the terms is kept as one shared term
    (as :func:`product` keeps a long product: the cotangent of ``y`` in
    ``y <- a*sin(y) + y`` is the previous one plus a term, and flattening
    would copy the growing sum into every level), and the sum is left
    unevaluated where SymPy's canonical ordering recurses too deeply.

    Sorting compares terms structurally, recursing until they differ: the
    cotangents of a weight shared by every level of a deep recurrence are
    alike down to the bottom, so canonical ordering would hit Python's
    recursion limit.

    >>> from sympy import symbols
    >>> x, y = symbols("x y")
    >>> total([y, x, x])
    2*x + y
    """
    if any(_long(t, Add) for t in terms):
        return Add(*terms, evaluate=False)
    done = plus(terms)  # unlike terms: SymPy's sum without its evaluation
    if done is not None:
        return done
    try:
        return Add(*terms)
    except RecursionError:
        return Add(*terms, evaluate=False)


def scale(ct: Expr, p: Expr, walk: WalkState | None = None) -> Expr | None:
    """``ct * p``, keeping a zero branch of a Piecewise cotangent exactly zero.

    Distributing over the branches is what keeps a NaN/inf partial of an
    untaken branch (``1/(2*sqrt(x))`` at ``x < 0``) out of the gradient; a
    sum of cotangents from several Piecewise nodes is distributed term by
    term for the same reason.
    """
    if p is S.One:
        return ct
    if p is S.Zero or ct is S.Zero:
        return None
    if not _branchy(ct):
        return product(ct, p)
    if _nested(ct):
        # Distributing into nested branches copies the whole nest, at every
        # level of nested ``where``s (exponential); the product is guarded
        # instead by where ``ct`` may be non-zero, a condition shared
        # between levels.
        where = support(ct, walk)
        if where is S.false:
            return None
        res = product(ct, p)
        return res if where is S.true else piecewise([(res, where), (S.Zero, True)])
    # One level of branches: distribute, bottom-up, without recursion.
    order, kids = postorder([ct], _branches)
    out: dict[Expr, Expr] = {}
    for node in order:
        if isinstance(node, Piecewise):
            out[node] = piecewise([(out[e], c) for e, c in node.args])
        elif kids[node]:
            out[node] = Add(*[out[t] for t in node.args])
        else:
            out[node] = S.Zero if node is S.Zero else product(node, p)
    res = out[ct]
    return None if res is S.Zero else res


def piecewise(pairs: Sequence[tuple]) -> Expr:
    """``Piecewise(*pairs)``, unevaluated past a few branches or over nested
    conditions (SymPy's evaluation compares every pair of branches and
    walks each condition as a tree, not a DAG: exponential in the depth of
    :func:`support`'s conditions).

    >>> from sympy import Symbol
    >>> x = Symbol("x")
    >>> piecewise([(x, x > 0), (x, True)])
    x
    """
    cheap = len(pairs) <= WIDE and not any(
        isinstance(c, (And, Or)) and any(isinstance(a, (And, Or)) for a in c.args)
        for _, c in pairs
    )
    return _piecewise(pairs, evaluate=cheap)


def _nested(ct: Expr) -> bool:
    """Whether a branch of ``ct`` holds branches of its own."""
    pws = [ct] if isinstance(ct, Piecewise) else [t for t in ct.args if isinstance(t, Piecewise)]
    return any(_branchy(pair.expr) for pw in pws for pair in pw.args)


def _any(alts: list) -> Boolean:
    """``Or(*alts)``, with the conjuncts common to all alternatives taken out
    (``(c ∧ s) ∨ (¬c ∧ s)`` is ``s``): the supports of nested ``where``s
    share their outer conditions, which SymPy's Boolean nodes would repeat,
    as trees, at every level."""
    if len(alts) < 2:
        return alts[0] if alts else S.false
    parts = [dict.fromkeys(a.args) if isinstance(a, And) else {a: None} for a in alts]
    common = set(parts[0]).intersection(*parts[1:])
    if not common:
        return connective(Or, alts)
    rest = connective(Or, [connective(And, [a for a in p if a not in common]) for p in parts])
    return connective(And, [*common, rest])


def support(ct: Expr, walk: WalkState | None = None) -> Boolean:
    """A condition outside which ``ct`` is exactly 0 (it may be 0 inside):
    the conditions under which a Piecewise takes a non-zero branch.  One
    node per Piecewise of ``ct``, shared (memoized for ``walk``).

    >>> from sympy import Piecewise, Symbol
    >>> x = Symbol("x")
    >>> support(Piecewise((0, x > 1), (Piecewise((x, x < -2), (0, True)), True)))
    (x <= 1) & (x < -2)
    """
    memo = {} if walk is None else walk.memo.setdefault("support", {})
    order, _ = postorder([ct], lambda e: _branches(e) if e not in memo else ())
    for e in order:
        if e in memo:
            continue
        if isinstance(e, Piecewise):
            alts, earlier = [], []
            for v, c in e.args:
                if v is not S.Zero and memo[v] is not S.false:
                    alts.append(connective(And, [c, *[Not(b) for b in earlier], memo[v]]))
                earlier.append(c)
            memo[e] = _any(alts)
        elif _branchy(e):
            memo[e] = _any([memo[t] for t in e.args])
        else:
            memo[e] = S.false if e is S.Zero else S.true
    return memo[ct]


def _branchy(e: Expr) -> bool:
    return isinstance(e, Piecewise) or (
        isinstance(e, Add) and any(isinstance(t, Piecewise) for t in e.args)
    )


def _branches(e: Expr) -> tuple:
    """What :func:`scale` distributes over: a Piecewise's branch values, the
    terms of a sum holding a Piecewise; anything else is a leaf."""
    if isinstance(e, Piecewise):
        return tuple(pair.expr for pair in e.args)
    return e.args if _branchy(e) else ()


def as_expr(value: object, rule: str, node: Basic, what: str) -> Expr | None:
    """Validate one value a rule returned: a SymPy expression, a number or None."""
    if value is None:
        return None
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, Basic)):
        raise RuleError(
            f"rule {rule!r} returned {value!r} ({type(value).__name__}) as {what} "
            f"for node {describe(node)}; a rule must return SymPy expressions, numbers or None"
        )
    try:
        out = sympify(value, strict=True)
    except SympifyError as exc:  # pragma: no cover - guarded above
        raise RuleError(f"rule {rule!r} returned {value!r} for node {describe(node)}") from exc
    if not isinstance(out, Expr):
        raise RuleError(
            f"rule {rule!r} returned {value!r} ({type(value).__name__}) as {what} "
            f"for node {describe(node)}; a rule must return SymPy expressions, numbers or None"
        )
    return out


def as_tuple(value: object, n: int, rule: str, node: Basic, what: str) -> tuple:
    """A rule's answer as a tuple of ``n`` expressions (or None), checked."""
    if n == 1 and not isinstance(value, (tuple, list)):
        value = (value,)
    if not isinstance(value, (tuple, list)):
        raise RuleError(
            f"rule {rule!r} returned {value!r} for node {describe(node)} with {n} arguments; "
            f"it must return a tuple of {n} {what}"
        )
    if len(value) != n:
        raise RuleError(
            f"rule {rule!r} returned {len(value)} {what} for node {describe(node)}, "
            f"which has {n} argument{'s' if n != 1 else ''}; return one per argument "
            "(None for an argument that gets no gradient)"
        )
    return tuple(as_expr(v, rule, node, what[:-1] if what.endswith("s") else what) for v in value)


def _call(rule: str, node: Basic, fn: Callable, *args: object) -> object:
    try:
        return fn(*args)
    except RuleError:
        raise
    except RecursionError as exc:
        raise RuleError(
            f"rule {rule!r} hit Python's recursion limit while differentiating node "
            f"{describe(node)}: the rule walks a very deep expression (arguments over 32 "
            "levels reach a rule as placeholders, so it walks the node itself or builds "
            "something of it that SymPy walks: subs, free_symbols, simplify); write the "
            "rule from node.args and its output only"
        ) from exc
    except Exception as exc:
        raise RuleError(
            f"rule {rule!r} raised {type(exc).__name__}: {exc} while differentiating "
            f"node {describe(node)}"
        ) from exc


def _dot(partials: Sequence[Expr | None], tangents: Sequence[Expr | None]) -> Expr | None:
    terms = [
        t if p is S.One else product(p, t)
        for p, t in zip(partials, tangents)
        if p is not None and t is not None and p is not S.Zero
    ]
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else total(terms)


class Rule:
    """Base class: a named derivative rule.  Subclasses define ``partials``
    or override ``vjp``/``jvp`` directly."""

    name: str = "?"

    def inputs(self, node: Basic) -> tuple:
        """The subexpressions that receive a gradient (conditions never do:
        a Piecewise node's inputs are its branch values, whatever its rule)."""
        if isinstance(node, Piecewise):
            return tuple(pair.expr for pair in node.args)
        return node.args

    def partials(self, node: Basic, needed: Sequence[bool], opts: Opts) -> tuple:
        raise NotImplementedError

    def vjp(self, node: Basic, ct: Expr, needed: Sequence[bool], opts: Opts) -> tuple:
        ps = self.partials(node, needed, opts)
        walk = opts.walk
        return tuple([scale(ct, p, walk) if (p is not None and k) else None
                      for p, k in zip(ps, needed)])

    def jvp(self, node: Basic, tangents: Sequence[Expr | None], opts: Opts) -> Expr | None:
        needed = [t is not None for t in tangents]
        return _dot(self.partials(node, needed, opts), tangents)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class PartialsRule(Rule):
    """Rule from partials: either one callable per input, ``d(node, *args)``,
    or (``joint=True``) one callable returning all partials as a tuple."""

    def __init__(self, name: str, *fns: Callable, joint: bool = False) -> None:
        self.name = name
        self.fns = fns
        self.joint = joint

    def partials(self, node: Basic, needed: Sequence[bool], opts: Opts) -> tuple:
        args = self.inputs(node)
        if not self.joint and len(self.fns) != len(args):
            raise RuleError(
                f"rule {self.name!r} has {len(self.fns)} partials but node {describe(node)} has "
                f"{len(args)} arguments"
            )
        st = stencil(node, args, opts.walk)
        if st is None:
            return self._partials(node, node, args, needed)
        # the rule's answer on a stencil, and the plan to put the arguments
        # back in it, serve every node of the same key
        walk = opts.walk
        key = (self, st.key, tuple(needed))
        got = walk.memo.get(key)
        if got is None:
            ps = self._partials(node, st.node, st.args, needed)
            back = st.back()
            got = walk.memo[key] = (st.node, tuple(
                None if p is None else (p, plan(p, back)) for p in ps
            ))
        at, planned = got
        back = st.back(at)
        return tuple(None if e is None else put_back(e[0], back, e[1], walk) for e in planned)

    def _partials(self, node: Basic, at: Basic, at_args: tuple, needed: Sequence[bool]) -> tuple:
        args = at_args
        if self.joint:
            out = _call(self.name, node, self.fns[0], at, *at_args)
            ps = as_tuple(out, len(args), self.name, node, "partials")
        else:
            ps = tuple(
                as_expr(_call(self.name, node, f, at, *at_args), self.name, node, "a partial")
                if k
                else None
                for f, k in zip(self.fns, needed)
            )
        return ps


class VJPRule(Rule):
    """Rule given as TensorFlow's gradient function ``fn(node, grad)``,
    returning one cotangent per argument."""

    def __init__(self, name: str, fn: Callable) -> None:
        self.name = name
        self.fn = fn

    def vjp(self, node: Basic, ct: Expr, needed: Sequence[bool], opts: Opts) -> tuple:
        out = _call(self.name, node, self.fn, node, ct)
        cts = as_tuple(out, len(needed), self.name, node, "cotangents")
        return tuple(c if k else None for c, k in zip(cts, needed))

    def partials(self, node: Basic, needed: Sequence[bool], opts: Opts) -> tuple:
        # A VJP is linear in its cotangent, so its value at 1 is the partials.
        return self.vjp(node, S.One, needed, opts)


class JVPRule(Rule):
    """Rule given as ``fn(node, tangents) -> tangent``; ``tangents`` has one
    entry per argument (``0`` where an argument has none)."""

    def __init__(self, name: str, fn: Callable) -> None:
        self.name = name
        self.fn = fn

    def jvp(self, node: Basic, tangents: Sequence[Expr | None], opts: Opts) -> Expr | None:
        ts = tuple(S.Zero if t is None else t for t in tangents)
        out = as_expr(_call(self.name, node, self.fn, node, ts), self.name, node, "a tangent")
        return None if out is S.Zero else out

    def partials(self, node: Basic, needed: Sequence[bool], opts: Opts) -> tuple:
        n = len(needed)
        return tuple(
            self.jvp(node, [S.One if j == i else None for j in range(n)], opts) if k else None
            for i, k in enumerate(needed)
        )


class ZeroRule(Rule):
    """No gradient to any input (``StopGradient``; piecewise-constant nodes)."""

    def __init__(self, name: str = "Zero") -> None:
        self.name = name

    def vjp(self, node, ct, needed, opts):
        return (None,) * len(needed)

    def jvp(self, node, tangents, opts):
        return None

    def partials(self, node, needed, opts):
        return (None,) * len(needed)


class IdentityRule(Rule):
    """Pass the cotangent through to every input (``tf.identity``'s rule)."""

    def __init__(self, name: str = "Identity") -> None:
        self.name = name

    def partials(self, node, needed, opts):
        return (S.One,) * len(needed)


def _real_dummy_chain(node: Basic, i: int) -> Expr:
    """∂node/∂argᵢ the way ``sympy.diff`` computes it (arguments are real)."""
    d = Dummy("xi", real=True)
    args = list(node.args)
    arg = args[i]
    args[i] = d
    return node.func(*args).diff(d).subs(d, arg)


class FdiffRule(Rule):
    """SymPy's own ``fdiff``; where a class has none (the unevaluated
    ``Derivative`` comes back), SymPy's ``diff`` through a real dummy."""

    def __init__(self, name: str) -> None:
        self.name = name

    def partials(self, node, needed, opts):
        out = []
        for i, k in enumerate(needed):
            if not k:
                out.append(None)
                continue
            try:
                p = node.fdiff(i + 1)
            except ArgumentIndexError:
                raise RuleError(
                    f"{type(node).__name__} is not differentiable in argument {i + 1} "
                    f"({node.args[i]}) of node {describe(node)}; keep that argument free of the "
                    "symbols you differentiate with respect to, or register a rule with "
                    f"symgrad.register_gradient({type(node).__name__!r})"
                ) from None
            if isinstance(p, Derivative) and p.expr == node:
                p = _real_dummy_chain(node, i)
            out.append(p)
        return tuple(out)


class SympyChainRule(Rule):
    """SymPy's answer for ∂node/∂argᵢ, through a real dummy (used for the
    ``distribution`` convention: DiracDelta and friends)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def partials(self, node, needed, opts):
        return tuple(_real_dummy_chain(node, i) if k else None for i, k in enumerate(needed))


class SympyLeafRule(Rule):
    """For expression nodes that are not functions (``Derivative``, ``Subs``,
    ``Integral``, ...): SymPy's ``diff`` straight to each free symbol."""

    def __init__(self, name: str) -> None:
        self.name = name

    def inputs(self, node):
        # a symbol-like node (MatrixSymbol, Indexed) is among its own free symbols
        return tuple(sorted((s for s in node.free_symbols if s != node), key=str))

    def partials(self, node, needed, opts):
        return tuple(node.diff(s) if k else None for s, k in zip(self.inputs(node), needed))
