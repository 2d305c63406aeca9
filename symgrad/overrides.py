"""Overriding derivative rules: by name (``register_gradient``), by scope
(``gradient_override_map``) and per node (``override``).

Precedence when a node is differentiated: its own tag > the innermost
active override map that names it > the rule table > SymPy's ``fdiff``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping

from mpmath.libmp import prec_to_dps
from sympy import Add, Basic, Function, Mul, Pow
from sympy.core.operations import LatticeOp

from .errors import NoRuleError, SymgradError, describe
from .graph import postorder
from .resolver import ACTIVE_MAPS, node_name
from .rules import DEFAULT_TABLE, TF_ALIASES
from .rules.forms import JVPRule, PartialsRule, VJPRule
from .rules.table import TF_POWER_OPS, unknown_name_message
from .safe import StrictArgs
from .shapes import flatten_exprs

__all__ = [
    "register_gradient",
    "unregister_gradient",
    "gradient_override_map",
    "override",
    "canonical_node_name",
]

_FORMS = {"vjp": VJPRule, "partials": None, "jvp": JVPRule}


# ---- names ------------------------------------------------------------------


def _sympy_class_names() -> set[str]:
    """Names of every SymPy expression class alive now (user functions
    ``Function('f')`` included); walked iteratively."""
    names: set[str] = set()
    stack = [Basic]
    seen: set[type] = set()
    while stack:
        cls = stack.pop()
        for sub in type.__subclasses__(cls) if isinstance(cls, type) else ():
            if sub not in seen:
                seen.add(sub)
                names.add(sub.__name__)
                stack.append(sub)
    return names


def known_node_names() -> list[str]:
    return sorted(_sympy_class_names() | set(DEFAULT_TABLE.names()) | set(TF_ALIASES))


def canonical_node_name(name: str) -> str:
    """A node name with a TensorFlow op name resolved (``"Floor"`` ->
    ``"floor"``); an unknown name is an error suggesting close matches.

    >>> canonical_node_name("Floor"), canonical_node_name("exp")
    ('floor', 'exp')
    """
    if not isinstance(name, str):
        raise TypeError(f"a node name must be a string, not {name!r} ({type(name).__name__})")
    if name in TF_ALIASES:
        return TF_ALIASES[name]
    if name in TF_POWER_OPS:
        raise NoRuleError(
            f"TensorFlow's {name!r} has no node of its own in SymPy ({TF_POWER_OPS[name]}), "
            "and mapping 'Pow' would change the gradient of every power in the formula. "
            "Wrap the subexpression in symgrad.identity(...) and map 'identity' "
            "(or override(identity(...), {'identity': rule})); map 'Pow' only if you "
            "mean every power"
        )
    if name in DEFAULT_TABLE or name in _sympy_class_names():
        return name
    raise NoRuleError(
        unknown_name_message(name, "node name", known_node_names()).split(" Register")[0]
        + " Node names are SymPy class names (floor, Abs, exp, Max, Piecewise, ...), "
        "symgrad's (stop_gradient, identity, sigmoid, ...) or TensorFlow op names."
    )


def _canonical_rule_name(name: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"a rule name must be a string, not {name!r} ({type(name).__name__})")
    DEFAULT_TABLE.entry(name)  # a clear error, with suggestions, if unknown
    return DEFAULT_TABLE.canonical(name)


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
        DEFAULT_TABLE.add(name, rule, old.cls if old else None, replace=replace)
        return fn

    return decorator


def unregister_gradient(name: str) -> None:
    """Remove a rule added with :func:`register_gradient`.

    >>> @register_gradient("Doubling")
    ... def _doubling(node, grad):
    ...     return 2 * grad
    >>> "Doubling" in DEFAULT_TABLE
    True
    >>> unregister_gradient("Doubling")
    >>> "Doubling" in DEFAULT_TABLE
    False
    """
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
        out[canonical_node_name(k)] = _canonical_rule_name(v)
    return out


@contextlib.contextmanager
def gradient_override_map(mapping: Mapping[str, str]) -> Iterator[None]:
    """Within the block, nodes named in ``mapping`` are differentiated with
    the mapped rule; their value is untouched.

    Maps nest (the inner one wins for the names it maps) and are restored on
    exit, also on an exception; they are local to a thread and to an
    asyncio task.  Names may be TensorFlow op names.

    >>> import sympy as sp
    >>> from symgrad import grad
    >>> x, y = sp.symbols("x y")
    >>> with gradient_override_map({"Floor": "Identity"}):
    ...     grad(sp.floor(x) * y, x)
    y
    >>> grad(sp.floor(x) * y, x)
    0
    """
    canon = _canonical_mapping(mapping, "gradient_override_map")
    token = ACTIVE_MAPS.set((*ACTIVE_MAPS.get(), canon))
    try:
        yield
    finally:
        ACTIVE_MAPS.reset(token)


# ---- override: per-node tags -------------------------------------------------------

_TAGGED: dict[tuple[type, str], type] = {}


def _rebuild_tagged(base: type, rule: str, args: tuple) -> Basic:
    return tagged_class(base, rule)(*args, evaluate=False)


def _reduce_tagged(self: Basic, protocol: int = 2):
    return (_rebuild_tagged, (type(self)._symgrad_base, type(self)._symgrad_tag, self.args))


def _lower_tagged(self: Basic, *args: Basic) -> Basic:
    return type(self)._symgrad_base(*args)


def _evalf_tagged(self: Basic, prec: int) -> Basic:
    return type(self)._symgrad_base(*self.args).evalf(prec_to_dps(prec))


def tagged_class(base: type, rule: str) -> type:
    """The subclass of ``base`` whose nodes carry the rule tag ``rule``: same
    name (so it prints the same), same evaluation, its own derivative."""
    base = getattr(base, "_symgrad_base", base)
    key = (base, rule)
    cls = _TAGGED.get(key)
    if cls is None:
        bases = (base,) if issubclass(base, StrictArgs) else (StrictArgs, base)
        cls = type(
            base.__name__,
            bases,
            {
                "_symgrad_tag": rule,
                "_symgrad_base": base,
                "_symgrad_lower": _lower_tagged,
                "_eval_evalf": _evalf_tagged,
                "__reduce_ex__": _reduce_tagged,
                "__module__": base.__module__,
            },
        )
        _TAGGED[key] = cls
    return cls


def override(expr: Basic, mapping: Mapping[str, str]) -> Basic:
    """``expr`` with every node inside it whose name is in ``mapping``
    tagged with the mapped rule.

    TensorFlow's "ops created inside the block" made explicit: one formula
    can hold a straight-through ``floor(x)`` beside an ordinary ``floor(y)``.
    A tagged node prints, substitutes, pickles and evaluates like the
    untagged one; only its derivative differs.  ``expr`` may also be a list,
    tuple or Matrix.

    >>> import sympy as sp
    >>> from symgrad import grad
    >>> x, y = sp.symbols("x y")
    >>> e = override(sp.floor(x), {"floor": "Identity"}) + sp.floor(y)
    >>> e
    floor(x) + floor(y)
    >>> grad(e, [x, y])
    (1, 0)
    """
    canon = _canonical_mapping(mapping, "override")
    exprs, struct = flatten_exprs(expr, "expr")
    order, kids = postorder(exprs, lambda n: n.args)
    new: dict[Basic, Basic] = {}
    for node in order:
        args = kids[node]
        low = tuple(new[a] for a in args)
        out = node.func(*low) if any(a is not b for a, b in zip(low, args)) else node
        rule = canon.get(node_name(node)) if args else None
        if rule is not None:
            out = _tag(out, rule)
        new[node] = out
    return struct.build([new[e] for e in exprs])


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
