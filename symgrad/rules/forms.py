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

The algebra the forms use lives beside them, one job a module:
:mod:`.cotangents` (products, sums, scaling a cotangent), :mod:`.selection`
(Piecewise cotangents and their support), :mod:`.calls` (calling a user's
rule and checking its answer), :mod:`.walkstate` (the walk's state and
stencils); their names stay importable from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sympy import Basic, Dummy, Expr, Piecewise, S
from sympy.core.function import ArgumentIndexError, Derivative

from ..build import TALL, builder
from ..errors import RuleError, describe
from .calls import _call, as_expr, as_tuple
from .cotangents import _dot, product, scale, total
from .selection import piecewise, support
from .walkstate import _PLACES, WalkState, plan, put_back, stencil

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
    or (``joint=True``) one callable returning all partials as a tuple.
    With ``walk=True`` each callable also takes the running walk's state
    (``opts.walk``, None outside a walk) as its last argument,
    ``d(node, *args, walk)``: the rule table's partials pass it to the
    constructors of :mod:`symgrad.rules.shared`."""

    def __init__(self, name: str, *fns: Callable, joint: bool = False,
                 walk: bool = False) -> None:
        self.name = name
        self.fns = fns
        self.joint = joint
        self.walk = walk

    def partials(self, node: Basic, needed: Sequence[bool], opts: Opts) -> tuple:
        args = self.inputs(node)
        if not self.joint and len(self.fns) != len(args):
            raise RuleError(
                f"rule {self.name!r} has {len(self.fns)} partials but node {describe(node)} has "
                f"{len(args)} arguments"
            )
        walk = opts.walk
        heights = walk.heights if walk is not None else None
        if not heights:
            return self._partials(node, node, args, needed, walk)
        places = None  # the tall arguments, by position (see stencil())
        for i, a in enumerate(args):
            if heights.get(a, 0) > TALL:
                if places is None:
                    places = {}
                places[i] = a
        if places is None:
            return self._partials(node, node, args, needed, walk)
        # the rule's answer on a stencil, and the plan to put the arguments
        # back in it, serve every node of the same key (stencil()'s key)
        small = tuple([None if i in places else a for i, a in enumerate(args)])
        key = (self, node.func if len(args) == len(node.args) else node, small, tuple(needed))
        got = walk.memo.get(key)
        if got is None:
            st = stencil(node, args, walk)
            ps = self._partials(node, st.node, st.args, needed, walk)
            back = st.back()
            got = walk.memo[key] = (st.node, tuple(
                None if p is None else (p, _steps(p, back)) for p in ps
            ))
        at, planned = got
        back = {_PLACES[i]: a for i, a in places.items()}
        back[at] = node
        nodes = walk.nodes
        return tuple(None if e is None else _put_back(e[0], back, e[1], nodes) for e in planned)

    def _partials(self, node: Basic, at: Basic, at_args: tuple, needed: Sequence[bool],
                  walk: WalkState | None) -> tuple:
        args = at_args
        if self.walk:
            at_args = (*at_args, walk)
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


def _steps(expr: Expr, back: dict) -> tuple:
    """:func:`plan`'s steps, each with its node's builder (``build.builder``)."""
    return tuple((n, builder(n)) for n in plan(expr, back))


def _put_back(expr: Expr, back: dict, steps: tuple, nodes) -> Expr:
    """:func:`put_back` along :func:`_steps`: each node rebuilt by its
    builder, a rebuilt node equal to one of ``nodes`` (the walk's) that one."""
    env = back
    get = env.get
    for n, make in steps:
        new = make(tuple([get(a, a) for a in n.args]))
        env[n] = nodes.get(new, new)
    return get(expr, expr)


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
