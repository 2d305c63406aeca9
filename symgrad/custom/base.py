"""What the custom-derivative interfaces share: tracing a user's function
with dummy symbols into a *template*, and one node class per output.

A call ``f(u, v)`` returns nodes ``f(u, v)`` whose arguments are the
flattened inputs followed by any symbols the forward formula captured.  A
node lowers to the template's forward formula with its arguments put in
place of the dummies.

The function's body runs at every call, as in TensorFlow and JAX, so a body
that reads state (a ``k`` in a closure) gives each call what it read; calls
whose traces agree (same forward formulas in the same dummies, same rule
state) share one template, so ``f(x) == f(x)``.  The user's rule is traced
when a node is differentiated, each time (TensorFlow calls ``grad_fn`` at
every gradient computation), so an error in it surfaces from ``grad``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from sympy import Basic, Dummy, Expr, Function, S, Symbol
from sympy.core.function import AppliedUndef

from ..errors import RuleError, ShapeError, describe
from ..graph import postorder
from ..linearity import nonlinear_witness
from ..nodes import Marker
from ..notation import latex_call, pretty_call
from ..rules.forms import Rule, _dot, as_expr
from ..shapes import Struct, check_same, flatten_exprs
from .traces import TraceDummy

__all__ = [
    "Template",
    "CustomNode",
    "flatten_args",
    "natural_key",
    "free_symbols",
    "note",
    "GroupVJPRule",
]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def natural_key(s: Symbol) -> tuple:
    """Sort key ordering ``W_2_10`` after ``W_2_9`` (row-major for the usual
    matrix-of-symbols names)."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s.name))


def free_symbols(exprs: Sequence[Basic]) -> set:
    """Free symbols of ``exprs``, found over the DAG without recursion."""
    order, _ = postorder(exprs, lambda n: n.args)
    return {n for n in order if isinstance(n, Symbol)}


def flatten_args(args: Sequence[object], who: str) -> tuple[list[Expr], list[Struct]]:
    """Each argument (an expression, a Matrix or an Array, or a pytree of
    them: tuples, lists, dicts, named tuples, dataclasses) flattened."""
    flat: list[Expr] = []
    structs: list[Struct] = []
    for i, a in enumerate(args):
        items, st = flatten_exprs(a, f"{who} argument {i}")
        flat.extend(items)
        structs.append(st)
    return flat, structs


class Template:
    """A traced custom function: dummies standing for its inputs and captured
    symbols, its forward formulas in those dummies, and its rule."""

    def __init__(
        self,
        name: str,
        in_dummies: list[Dummy],
        outputs: list[Expr],
        out_struct: Struct,
        captured: list[Symbol],
    ) -> None:
        self.name = name
        self.in_dummies = in_dummies
        self.captured = captured
        # captured symbols of the user (TensorFlow's variables); the rest are
        # values of an enclosing custom function's trace
        self.variables = [s for s in captured if not isinstance(s, TraceDummy)]
        self.cap_dummies = [Dummy(f"{s.name}_", real=True) for s in captured]
        to_dummy = dict(zip(captured, self.cap_dummies))
        self.outputs = [o.xreplace(to_dummy) for o in outputs]
        self.out_struct = out_struct
        self.dummies = [*in_dummies, *self.cap_dummies]
        self.classes = [self._node_class(k) for k in range(len(self.outputs))]
        self.rule: Rule | None = None  # set by the interface that traced it

    @property
    def n_inputs(self) -> int:
        return len(self.in_dummies)

    def substitute(self, expr: Expr, args: Sequence[Basic], extra: dict | None = None) -> Expr:
        """``expr`` (in the dummies) at the node's arguments."""
        m = dict(zip(self.dummies, args))
        if extra:
            m.update(extra)
        return expr.xreplace(m)

    def to_dummies(self, expr: Expr) -> Expr:
        """Captured symbols in a rule's answer replaced by their dummies."""
        return expr.xreplace(dict(zip(self.captured, self.cap_dummies)))

    def call(self, flat_args: Sequence[Expr]) -> object:
        nodes = [cls(*flat_args, *self.captured) for cls in self.classes]
        return self.out_struct.build(nodes)

    def _node_class(self, k: int) -> type:
        name = self.name if len(self.outputs) == 1 else f"{self.name}_{k}"
        return type(name, (CustomNode,), {"_symgrad_template": self, "_symgrad_out": k,
                                          "nargs": len(self.dummies)})


class CustomNode(Marker):
    """A node of a custom-derivative function; prints with its inputs only
    (captured symbols are arguments too, so gradients reach them)."""

    _symgrad_template: Template
    _symgrad_out: int

    def _symgrad_lower(self, *args: Expr) -> Expr:
        t = self._symgrad_template
        return t.substitute(t.outputs[self._symgrad_out], args)

    @property
    def inputs(self) -> tuple:
        return self.args[: self._symgrad_template.n_inputs]

    def _display(self) -> AppliedUndef:
        return Function(type(self).__name__)(*self.inputs)

    def _sympystr(self, printer) -> str:
        return printer._print(self._display())

    def _latex(self, printer, exp=None) -> str:
        return latex_call(printer, type(self).__name__, self.inputs, exp)

    def _pretty(self, printer, **kwargs):
        return pretty_call(printer, type(self).__name__, self.inputs)

    def __reduce_ex__(self, protocol):
        raise TypeError(
            f"a node of the custom function {type(self).__name__!r} cannot be pickled: "
            "its rule is a Python function. Pickle symgrad.expand(expr) instead"
        )

    @property
    def _symgrad_rule(self) -> Rule:
        return self._symgrad_template.rule


def note(exc: BaseException, text: str) -> None:
    """Attach ``text`` to a user's exception (Python 3.11+), which then
    propagates unchanged."""
    if hasattr(exc, "add_note"):
        exc.add_note(text)


def node_name_of(fun: Callable) -> str:
    name = getattr(fun, "__name__", "") or ""
    return name if _IDENT.match(name) else "custom"


class TemplateRule(Rule):
    """Base of the custom rules: partial derivatives come from per-output
    templates computed once and substituted at each node."""

    def __init__(self, template: Template) -> None:
        self.template = template
        self.name = template.name
        self._linear: dict[tuple, bool] = {}

    def check_captured(self, node: Basic, needed: Sequence[bool]) -> None:
        self.check_captured_base(node, needed)

    def check_captured_base(self, node: Basic, needed: Sequence[bool]) -> None:
        t = self.template
        for i, k in enumerate(needed[t.n_inputs :]):
            if k and isinstance(t.captured[i], TraceDummy):
                raise RuleError(
                    f"the custom function {t.name!r} reads an input of the custom function "
                    "whose rule defines it, without taking it as an argument, and its rule "
                    f"gives no derivative with respect to it (node {describe(node)}); pass "
                    "that value as an argument (JAX's closure_convert does the same)"
                )
            if k:
                raise RuleError(
                    f"the custom function {t.name!r} uses the symbol {t.captured[i]} without "
                    "taking it as an argument, and its rule gives no derivative with respect "
                    f"to it (node {describe(node)}); pass {t.captured[i]} as an argument"
                )

    def jvp(self, node, tangents, opts):
        return _dot(self.partials(node, [t is not None for t in tangents], opts), tangents)

    def require_linear(
        self, answers: Sequence[Expr | None], dvars: Sequence[Dummy], node: Basic,
        rule: str, mode: str, other: str,
    ) -> None:
        """An error unless the traced ``answers`` are linear in ``dvars``:
        only then does the rule serve ``mode``, through its partials."""
        key = (tuple(answers), tuple(dvars))
        ok = self._linear.get(key)
        if ok is None:
            witness = nonlinear_witness(answers, dvars, self.template.dummies)
            ok = self._linear[key] = witness is None
        if not ok:
            raise RuleError(
                f"{rule} is not linear in its {other}s (doubling them does not double its "
                f"answer, as when it clips them), and {mode} would read partial derivatives "
                f"off it at unit {other}s, disagreeing with the rule itself; node "
                f"{describe(node)} cannot be differentiated in {mode} through it. "
                f"{self._linear_hint(mode)}"
            )

    def _linear_hint(self, mode: str) -> str:
        return ""

    def checked(self, value: object, node: Basic, what: str) -> Expr | None:
        return as_expr(value, self.name, node, what)

    def flat_cotangents(
        self, cts: object, structs: Sequence[Struct], node: Basic, who: str
    ) -> list:
        """A rule's cotangents, one per input (an expression, Matrix, Array
        or None), checked against the inputs' shapes and flattened."""
        n = len(structs)
        if n == 1 and _bare(cts, structs[0]):
            cts = (cts,)
        if not isinstance(cts, (tuple, list)) or len(cts) != n:
            got = len(cts) if isinstance(cts, (tuple, list)) else 1
            raise RuleError(
                f"{who} returned {got} cotangents for {n} inputs (node {describe(node)}); "
                "return one per input, None for no gradient" + self._nested_hint(got, n)
            )
        flat: list = []
        for st, c in zip(structs, cts):
            if c is None:
                flat.extend([None] * st.size)
                continue
            items, got_st = flatten_exprs(c, f"cotangent returned by {self.name!r}")
            try:
                check_same(st, got_st, "cotangent", "input")
            except ShapeError:
                raise RuleError(
                    f"{who} returned a cotangent of {got_st.describe()} for an input of "
                    f"{st.describe()}"
                ) from None
            flat.extend(items)
        return flat

    def _nested_hint(self, got: int, n: int) -> str:
        """TensorFlow's documented ``op_with_fused_backprop`` has the inner
        rule return ``(second_order_for_x, gradient_wrt_dy)``."""
        t = self.template
        if got <= n or not any(isinstance(s, TraceDummy) for s in t.captured):
            return ""
        return (
            f". {t.name!r} is defined inside another custom function's rule: in "
            "TensorFlow's documented pattern (op_with_fused_backprop) its rule returns "
            "(second_order_for_x, gradient_wrt_dy), but the gradient with respect to dy "
            f"follows here from the product dy * {t.name}(x) by the chain rule: return "
            "only the cotangents of its own inputs (second_order_for_x)"
        )

    def templated(self, flat: Sequence[object], node: Basic) -> tuple:
        """Checked cotangents with captured symbols replaced by dummies."""
        t = self.template
        return tuple(
            None if c is None else t.to_dummies(self.checked(c, node, "a cotangent"))
            for c in flat
        )


def _bare(cts: object, st: Struct) -> bool:
    """Whether a rule's answer for a function of one input is that input's
    cotangent itself rather than a sequence of one (both are accepted, as
    TensorFlow accepts them; for an input that is itself a sequence of one,
    ``((g,),)`` is the sequence form)."""
    if not isinstance(cts, (tuple, list)):
        return True
    if st.is_leaf:  # a sequence for one expression or Matrix: one per input
        return False
    if len(cts) != 1:
        return True
    return st.kind == "tuple" and st.shape == (1,) and not isinstance(cts[0], (tuple, list))


class GroupVJPRule(TemplateRule):
    """A rule given as one VJP over all the outputs of a call (TensorFlow's
    ``grad_fn``, JAX's ``bwd``): the outputs are one group for the walker,
    so the VJP is called once with all their cotangents, as those
    frameworks do.  Forward mode reads the partials off it at unit
    cotangents, once it is checked to be linear in them."""

    who: str = "the rule"  # names the user's rule in errors
    framework: str = "TensorFlow"
    linear_fix: str = ""  # how to make the rule serve forward mode

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        self.cvars = [TraceDummy(f"ct{k}", real=True) for k in range(len(template.outputs))]

    def answers(self, node: Basic) -> tuple:
        """The rule's cotangents (one per argument of ``node``, or per
        input), in the template's dummies and ``cvars``."""
        raise NotImplementedError

    def group_key(self, node: Basic) -> tuple:
        return (self, node.args)

    def group_vjp(self, members, cts, needed, opts):
        node = members[0]
        self.check_captured(node, needed)
        extra = dict.fromkeys(self.cvars, S.Zero)
        for m, c in zip(members, cts):
            extra[self.cvars[m._symgrad_out]] = c
        return self._at(self.answers(node), node, extra, needed)

    def vjp(self, node, ct, needed, opts):
        return self.group_vjp([node], [ct], needed, opts)

    def partials(self, node, needed, opts):
        self.check_captured(node, needed)
        answers = self.answers(node)
        self.require_linear(answers, self.cvars, node, self.who, "forward mode", "cotangent")
        k = node._symgrad_out
        extra = {c: (S.One if i == k else S.Zero) for i, c in enumerate(self.cvars)}
        return self._at(answers, node, extra, needed)

    def _at(self, answers: tuple, node: Basic, extra: dict, needed: Sequence[bool]) -> tuple:
        t = self.template
        out = [
            t.substitute(c, node.args, extra) if (k and c is not None) else None
            for c, k in zip(answers, needed)
        ]
        return (*out, *[None] * (len(needed) - len(out)))

    def _linear_hint(self, mode: str) -> str:
        return (
            f"Reverse mode (grad, vjp) uses it as {self.framework} does; for forward mode "
            f"(jvp, jacobian by columns, hessian through it) {self.linear_fix}, or define "
            "the derivative with custom_jvp"
        )
