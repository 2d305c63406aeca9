"""``custom_gradient``: TensorFlow's ``tf.custom_gradient`` on symbolic
formulas.

``f(*xs)`` returns ``(ys, grad_fn)``; ``grad_fn(*dys)`` returns one
cotangent per input (``None`` for none).  As in TensorFlow, ``grad_fn`` is
called once with the cotangents of all the outputs of a call.  When the
forward formula uses symbols that are not inputs (TensorFlow's variables),
``grad_fn`` is called with ``variables=[those symbols]`` and returns
``(grad_xs, grad_vars)``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

from sympy import Basic

from ..errors import RuleError, SymgradError, describe
from ..nodes import _is_array
from ..shapes import Struct, flatten_exprs
from .base import (
    GroupVJPRule,
    Template,
    flatten_args,
    free_symbols,
    natural_key,
    node_name_of,
    note,
)
from .matrix import has_matrix_argument, matrix_call
from .traces import TraceDummy, Traces, state_key

__all__ = ["custom_gradient"]


def _accepts_variables(fn: Callable) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


class _GradFnRule(GroupVJPRule):
    """The rule of a ``custom_gradient`` function's outputs: ``grad_fn``
    called once with the cotangents of all of them (zero for outputs the
    formula does not use), as TensorFlow calls it."""

    framework = "TensorFlow"
    linear_fix = "write a grad_fn linear in dy"

    def __init__(self, template: Template, grad_fn: Callable, in_structs: list[Struct]) -> None:
        super().__init__(template)
        self.grad_fn = grad_fn
        self.in_structs = in_structs
        self.who = f"the grad_fn of custom_gradient {template.name!r}"

    def check_captured(self, node, needed):
        pass  # grad_fn answers for the variables; traced values get none (TF)

    def answers(self, node: Basic) -> tuple:
        t = self.template
        dys = t.out_struct.build(list(self.cvars))
        args = (dys,) if t.out_struct.kind != "tuple" else tuple(dys)
        kwargs = {"variables": list(t.variables)} if t.variables else {}
        try:
            out = self.grad_fn(*args, **kwargs)
        except Exception as exc:
            note(exc, f"raised by the grad_fn of custom_gradient {t.name!r} "
                       f"while differentiating {describe(node)}")
            raise
        if t.variables:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise RuleError(
                    f"the grad_fn of custom_gradient {t.name!r} was given variables=... and "
                    "must return (grad_xs, grad_vars)"
                )
            grad_xs, grad_vars = out
            grad_vars = _flat_vars(grad_vars)
            if len(grad_vars) != len(t.variables):
                raise RuleError(
                    f"the grad_fn of custom_gradient {t.name!r} returned {len(grad_vars)} "
                    f"variable gradients for {len(t.variables)} variables {list(t.variables)}"
                )
        else:
            grad_xs, grad_vars = out, []
        by_var = iter(grad_vars)
        grad_caps = [None if isinstance(s, TraceDummy) else next(by_var) for s in t.captured]
        flat = self.flat_cotangents(grad_xs, self.in_structs, node, self.who)
        return self.templated([*flat, *grad_caps], node)


def _flat_vars(grad_vars: object) -> list:
    """The variable gradients, one per captured symbol: a Matrix or Array
    item (TensorFlow's one gradient per variable tensor) counts entry by
    entry, row-major."""
    items = list(grad_vars) if isinstance(grad_vars, (tuple, list)) else [grad_vars]
    flat: list = []
    for v in items:
        flat.extend(flatten_exprs(v, "a variable gradient")[0] if _is_array(v) else [v])
    return flat


class CustomGradient:
    """The object ``@custom_gradient`` returns: call it on expressions."""

    def __init__(self, fun: Callable) -> None:
        self.fun = fun
        self.name = node_name_of(fun)
        self.traces = Traces(self.name)
        self._matrix_traces: dict = {}
        functools.update_wrapper(self, fun)

    def __call__(self, *args: object) -> object:
        if has_matrix_argument(args):  # whole matrices: one node, a matrix-level rule
            return matrix_call(self.name, self._matrix_traces, args, self._trace)
        flat, structs = flatten_args(args, self.name)
        shape_key, dummies, shaped = self.traces.inputs(structs)
        got = self.fun(*shaped)
        if not (isinstance(got, tuple) and len(got) == 2 and callable(got[1])):
            raise SymgradError(
                f"custom_gradient function {self.name!r} must return (outputs, grad_fn), "
                f"got {got!r}"
            )
        ys, grad_fn = got
        outs, out_struct = flatten_exprs(ys, f"output of {self.name!r}", nested=True)
        key = (shape_key, out_struct, tuple(outs), state_key(grad_fn))
        t = self.traces.templates.get(key)
        if t is None:
            t = self.traces.templates[key] = self._template(dummies, structs, outs, out_struct,
                                                            grad_fn)
        return t.call(flat)

    def _trace(self, dummies: list) -> tuple:
        got = self.fun(*dummies)
        if not (isinstance(got, tuple) and len(got) == 2 and callable(got[1])):
            raise SymgradError(
                f"custom_gradient function {self.name!r} must return (outputs, grad_fn), "
                f"got {got!r}"
            )
        ys, grad_fn = got
        # grad_fn(*dys), one cotangent per output of a tuple, as with scalars
        vjp = (lambda g: grad_fn(*g)) if isinstance(ys, tuple) else grad_fn
        return ys, vjp, None, state_key(grad_fn)

    def _template(self, dummies, structs, outs, out_struct, grad_fn) -> Template:
        captured = sorted(free_symbols(outs) - set(dummies), key=natural_key)
        variables = [s for s in captured if not isinstance(s, TraceDummy)]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError(
                f"the forward formula of custom_gradient {self.name!r} uses the symbols "
                f"{variables}, which are not among its inputs (TensorFlow's variables), so its "
                "grad_fn must accept a keyword argument `variables` and return "
                "(grad_xs, grad_vars)"
            )
        t = Template(self.name, dummies, outs, out_struct, captured)
        t.rule = _GradFnRule(t, grad_fn, structs)
        return t

    def __get__(self, obj: object, objtype: type | None = None) -> object:
        if obj is None:
            return self
        cache = obj.__dict__.setdefault("_symgrad_bound", {}) if hasattr(obj, "__dict__") else {}
        bound = cache.get(id(self))
        if bound is None:
            bound = cache[id(self)] = CustomGradient(functools.partial(self.fun, obj))
            bound.name = self.name
        return bound

    def __repr__(self) -> str:
        return f"<custom_gradient {self.name}>"


def custom_gradient(f: Callable[..., tuple]) -> CustomGradient:
    """Decorator: a function whose gradient is the one you give.

    ``f(*xs)`` returns ``(ys, grad_fn)`` as with ``tf.custom_gradient``.
    Calling the decorated function on expressions returns a node that prints
    as the function's name, evaluates (and ``expand``\\ s, and compiles) as
    the forward formula, and differentiates through ``grad_fn``, in reverse
    and forward mode and at any order.

    >>> import sympy as sp
    >>> from symgrad import grad, expand
    >>> @custom_gradient
    ... def log1pexp(x):
    ...     e = sp.exp(x)
    ...     def grad_fn(dy):
    ...         return dy * (1 - 1 / (1 + e))
    ...     return sp.log(1 + e), grad_fn
    >>> u = sp.Symbol("u", real=True)
    >>> log1pexp(2 * u)
    log1pexp(2*u)
    >>> expand(log1pexp(2 * u))
    log(exp(2*u) + 1)
    >>> grad(log1pexp(2 * u), u)
    2*(1 - 1/(exp(2*u) + 1))
    """
    if not callable(f):
        raise TypeError(f"custom_gradient decorates a function, not {f!r}")
    return CustomGradient(f)


