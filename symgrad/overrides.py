"""Overriding derivative rules: by name (``register_gradient``), by scope
(``gradient_override_map``) and per node (``override``).

Precedence when a node is differentiated: its own tag > the innermost
active override map that names it > the rule table > SymPy's ``fdiff``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping

from sympy import Add, Basic, Dummy, Function, Mul, Pow, S
from sympy.core.operations import LatticeOp

from .build import mapped, unevaluated
from .errors import NoRuleError, RuleError, SymgradError, describe
from .linearity import nonlinear_witness
from .node_names import _canonical_rule_name, canonical_node_name
from .resolver import ACTIVE_MAPS, node_name
from .rules import DEFAULT_TABLE, TF_ALSO
from .rules.forms import JVPRule, PartialsRule, VJPRule
from .shapes import flatten_exprs
from .tags import tagged_class

__all__ = [
    "register_gradient",
    "unregister_gradient",
    "gradient_override_map",
    "override",
    "canonical_node_name",
]

class _LinearCheck:
    """A rule written for one mode serves the other through its partials,
    read off it at unit (co)tangents; that is only its derivative if the
    rule is linear in them, which is checked (at the node's symbols)."""

    def require_linear(self, answers, dvars, node, other: str, mode: str, fix: str) -> None:
        inputs = sorted(node.free_symbols, key=str)
        if nonlinear_witness(answers, dvars, inputs) is not None:
            raise RuleError(
                f"rule {self.name!r} is not linear in its {other} (doubling it does not double "
                f"its answer, as when it clips it), and {mode} would read partial derivatives "
                f"off it at a unit {other}, disagreeing with the rule itself; node "
                f"{describe(node)} cannot be differentiated in {mode} through it. {fix}"
            )


class _UserVJPRule(_LinearCheck, VJPRule):
    def partials(self, node, needed, opts):
        g = Dummy("g", real=True)
        answers = self.vjp(node, g, needed, opts)
        self.require_linear(
            answers, [g], node, "cotangent", "forward mode",
            "Reverse mode (grad, vjp) uses it as TensorFlow does; for forward mode register "
            "a rule linear in grad, or one with form='partials' or form='jvp'",
        )
        return tuple(None if a is None else a.xreplace({g: S.One}) for a in answers)


class _UserJVPRule(_LinearCheck, JVPRule):
    def partials(self, node, needed, opts):
        ts = [Dummy(f"t{i}", real=True) for i in range(len(needed))]
        out = self.jvp(node, ts, opts)
        self.require_linear(
            [out], ts, node, "tangent", "reverse mode",
            "Forward mode (jvp) uses it as written; for reverse mode register a rule linear "
            "in the tangents, or one with form='vjp' or form='partials'",
        )
        return tuple(
            None if (out is None or not k)
            else out.xreplace({t: (S.One if j == i else S.Zero) for j, t in enumerate(ts)})
            for i, k in enumerate(needed)
        )


_FORMS = {"vjp": _UserVJPRule, "partials": None, "jvp": _UserJVPRule}

# The rules symgrad ships (the table as built, before any user code runs),
# and the built-in entries a user replaced, to restore on unregister.
_BUILT_IN = frozenset(DEFAULT_TABLE.names())
_REPLACED: dict[str, object] = {}


# ---- register_gradient -------------------------------------------------------


def register_gradient(
    name: str, form: str = "vjp", *, replace: bool = False
) -> Callable[[Callable], Callable]:
    """Decorator adding a named derivative rule to the table.

    ``form="vjp"`` (the default) is TensorFlow's ``RegisterGradient`` shape,
    ``rule(node, grad)`` returning one cotangent per argument of the node (a
    single expression for a one-argument node; ``None`` for no gradient).
    ``form="partials"`` is ``rule(node, *args)`` returning ∂node/∂argᵢ;
    ``form="jvp"`` is ``rule(node, tangents)`` returning the node's tangent.
    Whatever the form, the rule serves both reverse and forward mode.  A
    name registered twice is an error unless ``replace=True``.

    The name is a rule name that override maps can point at, and also a
    node name: a node whose class is so named (an undefined function
    ``Function("erf2")``, say) is differentiated by it.

    >>> import sympy as sp
    >>> from symgrad import grad, jvp
    >>> @register_gradient("erf2", replace=True)
    ... def _erf2_grad(node, grad):
    ...     (x,) = node.args
    ...     return grad * 2 * sp.exp(-x**2) / sp.sqrt(sp.pi)
    >>> x = sp.Symbol("x")
    >>> grad(sp.Function("erf2")(x), x)
    2*exp(-x**2)/sqrt(pi)
    >>> jvp(sp.Function("erf2")(x), x, 3)
    6*exp(-x**2)/sqrt(pi)
    >>> unregister_gradient("erf2")
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"register_gradient: name must be a non-empty string, not {name!r}")
    if form not in _FORMS:
        raise ValueError(f"register_gradient: form={form!r} is not one of {tuple(_FORMS)}")
    DEFAULT_TABLE.check_free(name, replace)

    def decorator(fn: Callable) -> Callable:
        if not callable(fn):
            raise TypeError(f"register_gradient({name!r}) decorates a function, not {fn!r}")
        if form == "partials":
            rule = PartialsRule(name, fn, joint=True)
        else:
            rule = _FORMS[form](name, fn)
        old = DEFAULT_TABLE.registered(name)
        if old is not None and name in _BUILT_IN and name not in _REPLACED:
            _REPLACED[name] = old
        DEFAULT_TABLE.add(name, rule, old.cls if old else None, replace=replace)
        return fn

    return decorator


def unregister_gradient(name: str) -> None:
    """Remove a rule added with :func:`register_gradient`; where it replaced
    a built-in rule, the built-in one is back.  Built-in rules (of symgrad's
    own nodes and of the default table) cannot be removed.

    >>> @register_gradient("Doubling")
    ... def _doubling(node, grad):
    ...     return 2 * grad
    >>> "Doubling" in DEFAULT_TABLE
    True
    >>> unregister_gradient("Doubling")
    >>> "Doubling" in DEFAULT_TABLE
    False
    """
    old = _REPLACED.pop(name, None)
    if old is not None:
        DEFAULT_TABLE.add(name, old.rule, old.cls, replace=True)
        return
    if name in _BUILT_IN:
        raise SymgradError(
            f"the gradient rule {name!r} is built into symgrad and cannot be removed "
            "(without it, nodes it differentiates would have no gradient). To change it, "
            f"register_gradient({name!r}, replace=True) your own rule (unregister_gradient "
            "then restores the built-in one), or use gradient_override_map / override"
        )
    if DEFAULT_TABLE.registered(name) is None:
        raise NoRuleError(f"no gradient rule named {name!r} is registered")
    DEFAULT_TABLE.remove(name)


# ---- gradient_override_map --------------------------------------------------------


def _canonical_mapping(mapping: object, who: str) -> dict[str, str]:
    if not isinstance(mapping, Mapping):
        raise TypeError(
            f"{who} takes a dict from node name to rule name, e.g. "
            f"{{'floor': 'Identity'}}, not {mapping!r} ({type(mapping).__name__})"
        )
    out: dict[str, str] = {}
    for k, v in mapping.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError(
                f"{who}: every key and value must be a string (node name -> rule name), "
                f"got {k!r}: {v!r}"
            )
        rule = _canonical_rule_name(v)
        out[canonical_node_name(k)] = rule
        for also in TF_ALSO.get(k, ()):  # "Maximum": Max and symgrad.maximum
            out.setdefault(also, rule)
    return out


class _Block(Mapping):
    """One entered ``gradient_override_map`` block, as the resolver sees it:
    a node name -> rule name mapping that goes empty once the block is
    exited (wherever that happens), and that notes being consulted."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping
        self.closed = False
        self.consulted = False

    def get(self, name, default=None):
        if self.closed:
            return default
        self.consulted = True
        return self.mapping.get(name, default)

    def __getitem__(self, name):
        if self.closed:
            raise KeyError(name)
        return self.mapping[name]

    def __iter__(self):
        return iter(() if self.closed else self.mapping)

    def __len__(self) -> int:
        return 0 if self.closed else len(self.mapping)


def _open(stack: tuple) -> tuple:
    return tuple(m for m in stack if not getattr(m, "closed", False))


class gradient_override_map:  # noqa: N801  (TensorFlow's name, used as a function)
    """Within the block, nodes named in ``mapping`` are differentiated with
    the mapped rule; their value is untouched.

    The map applies while ``grad``/``jvp``/... run inside the block, not to
    the expressions built there (TensorFlow's map is graph-scoped; this one
    is dynamic): a block that exits with no differentiation run inside it
    warns.  To fix a rule into an expression, tag it with :func:`override`.

    Maps nest (the inner one wins for the names it maps) and end on exit,
    also on an exception.  They are local to a thread and to an asyncio
    task: a thread started inside a block does not see the map.  Blocks
    must exit in the reverse order of entry; one exited out of order, or in
    another thread or task than it was entered (a generator suspended
    inside a block and resumed elsewhere), raises a :class:`SymgradError`
    and its map ends everywhere.  Names may be TensorFlow op names.

    >>> import sympy as sp
    >>> from symgrad import grad
    >>> x, y = sp.symbols("x y")
    >>> with gradient_override_map({"Floor": "Identity"}):
    ...     grad(sp.floor(x) * y, x)
    y
    >>> grad(sp.floor(x) * y, x)
    0
    """

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self.mapping = _canonical_mapping(mapping, "gradient_override_map")
        self._block: _Block | None = None

    def __call__(self, func: Callable) -> Callable:
        """Use as a decorator: each call of ``func`` runs in a block of its own."""
        mapping = self.mapping

        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            with gradient_override_map(mapping):
                return func(*args, **kwargs)

        return wrapped

    def __enter__(self) -> None:
        if self._block is not None:
            raise SymgradError(
                f"this gradient_override_map({self.mapping}) is already active: a block "
                "object cannot be entered again while it is open; to nest the same map, "
                "create another one, gradient_override_map(mapping)"
            )
        self._block = _Block(self.mapping)
        ACTIVE_MAPS.set((*_open(ACTIVE_MAPS.get()), self._block))

    def __exit__(self, exc_type, exc, tb) -> bool:
        block, self._block = self._block, None
        if block is None:
            raise SymgradError(f"gradient_override_map({self.mapping}) exited but never entered")
        block.closed = True  # ends the map in every context that still holds it
        stack = ACTIVE_MAPS.get()
        if stack and stack[-1] is block:
            ACTIVE_MAPS.set(_open(stack[:-1]))
            if stack[-2:-1] and isinstance(stack[-2], _Block):
                stack[-2].consulted |= block.consulted  # an inner block's use counts
        else:
            ACTIVE_MAPS.set(_open(stack))
            if exc_type is None:
                raise SymgradError(self._mismatch(any(m is block for m in stack)))
        if exc_type is None and not block.consulted:
            warnings.warn(
                f"gradient_override_map({self.mapping}): no differentiation ran inside the "
                "block. The map applies only while grad/jvp/vjp/jacobian/hessian run inside "
                "it, not to the expressions built there (unlike TensorFlow's graph-scoped "
                "map). Call grad inside the block, or tag the nodes with "
                "symgrad.override(expr, mapping)",
                UserWarning,
                stacklevel=2,
            )
        return False

    def _mismatch(self, present: bool) -> str:
        if present:
            return (
                f"gradient_override_map({self.mapping}) exited out of order: a block entered "
                "after it is still open (often a generator suspended inside a `with "
                "gradient_override_map(...)` block, whose map then applies to its caller). "
                "Its map has ended; the later block's still applies until it exits. Exit "
                "blocks in the reverse order of entry, and close such generators first"
            )
        return (
            f"gradient_override_map({self.mapping}) is not active in this context: it was "
            "entered in another thread or asyncio task (a generator suspended inside the "
            "block and resumed elsewhere) or exited out of order. Its map has ended "
            "everywhere; enter and exit a block in the same thread or task"
        )


# ---- override: per-node tags -------------------------------------------------------

def override(expr: Basic, mapping: Mapping[str, str]) -> Basic:
    """``expr`` with every node inside it whose name is in ``mapping``
    tagged with the mapped rule.

    TensorFlow's "ops created inside the block" made explicit: one formula
    can hold a straight-through ``floor(x)`` beside an ordinary ``floor(y)``.
    A tagged node substitutes, pickles and evaluates like the untagged one,
    and differentiates with its tag.  It is a node of its own, not equal to
    the untagged one, and prints with its tag (``floor[Identity](x)``) so
    the difference is visible; text never parses back to a plain node
    silently.  ``expr`` may also be a list, tuple or Matrix.

    >>> import sympy as sp
    >>> from symgrad import grad
    >>> x, y = sp.symbols("x y")
    >>> t = override(sp.floor(x), {"floor": "Identity"})
    >>> t
    floor[Identity](x)
    >>> grad(t + sp.floor(y), [x, y])
    [1, 0]
    """
    canon = _canonical_mapping(mapping, "override")
    exprs, struct = flatten_exprs(expr, "expr")

    def tag(form: Basic) -> Basic:  # (mapped's after: each node over its tagged arguments)
        rule = canon.get(node_name(form)) if form.args else None
        return form if rule is None else _tag(form, rule)

    # as written above a tag: the parents are the user's nodes, already
    # evaluated, over a twin of an argument (build.mapped, issue 20 part 1)
    return struct.build(mapped(exprs, unevaluated, after=tag))


def _tag(node: Basic, rule: str) -> Basic:
    if isinstance(node, (Add, Mul, Pow)):
        raise SymgradError(
            f"override cannot tag the {type(node).__name__} node {describe(node)}: SymPy rebuilds "
            f"{type(node).__name__} nodes freely, so a tag would not survive. Wrap the "
            "subexpression in symgrad.identity(...) and override 'identity', or use "
            f"gradient_override_map({{{type(node).__name__!r}: {rule!r}}})"
        )
    if not isinstance(node, (Function, LatticeOp)):
        raise SymgradError(f"override cannot tag {describe(node)} ({type(node).__name__})")
    return tagged_class(type(node), rule)(*node.args, evaluate=False)
