"""``custom_jvp`` and ``custom_vjp``: JAX's interfaces on symbolic formulas.

Unlike JAX, each is usable in both modes: a JVP rule is linear in its
tangents, so reverse mode reads the partials off it; a VJP rule is linear
in its cotangent, so forward mode reads the partials off it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence

from sympy import Basic, S
from sympy.core.sympify import _sympify

from ..errors import RuleError, SymgradError, describe
from ..shapes import Struct, flatten_exprs
from .base import (
    GroupVJPRule,
    Template,
    TemplateRule,
    flatten_args,
    free_symbols,
    natural_key,
    node_name_of,
    note,
)
from .matrix import has_matrix_argument, matrix_call
from .traces import TraceDummy, Traces, state_key

__all__ = ["custom_jvp", "custom_vjp"]


class _Custom:
    """Shared by custom_jvp and custom_vjp: nondiff_argnums, tracing, calls."""

    kind = "custom"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        self.fun = fun
        self.name = node_name_of(fun)
        self.nondiff_argnums = tuple(sorted(set(nondiff_argnums)))
        self.traces = Traces(self.name)
        self._matrix_traces: dict = {}
        functools.update_wrapper(self, fun)

    def _split(self, args: tuple) -> tuple[tuple, list]:
        nondiff, diff = [], []
        for i, a in enumerate(args):
            (nondiff if i in self.nondiff_argnums else diff).append(a)
        for v in nondiff:
            if not isinstance(v, Hashable):
                raise SymgradError(
                    f"{self.kind} {self.name!r}: a nondiff argument must be hashable, got {v!r}"
                )
        return tuple(nondiff), diff

    def _merge(self, nondiff: tuple, diff: Sequence) -> list:
        out, nd, df = [], iter(nondiff), iter(diff)
        for i in range(len(nondiff) + len(diff)):
            out.append(next(nd) if i in self.nondiff_argnums else next(df))
        return out

    def __call__(self, *args: object) -> object:
        self._check_defined()
        nondiff, diff = self._split(args)
        if has_matrix_argument(diff):  # whole matrices: one node, a matrix-level rule
            return matrix_call(self.name, self._matrix_traces, diff,
                               functools.partial(self._matrix_trace, nondiff), self.kind)
        flat, structs = flatten_args(diff, self.name)
        shape_key, dummies, shaped = self.traces.inputs(structs)
        outs, out_struct = flatten_exprs(
            self.fun(*self._merge(nondiff, shaped)), f"output of {self.name!r}", nested=True
        )
        key = (nondiff, shape_key, out_struct, tuple(outs))
        t = self.traces.templates.get(key)
        if t is None:
            captured = sorted(free_symbols(outs) - set(dummies), key=natural_key)
            t = Template(self.name, dummies, outs, out_struct, captured)
            t.rule = self._rule(t, nondiff, structs, shaped)
            self.traces.templates[key] = t
        return t.call(flat)

    def _check_defined(self) -> None:
        raise NotImplementedError

    def _rule(self, t: Template, nondiff: tuple, structs: list[Struct], shaped: list):
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name}>"


# ---- custom_jvp ---------------------------------------------------------------------


class _JVPRule(TemplateRule):
    def __init__(self, t: Template, owner: custom_jvp, nondiff: tuple,
                 structs: list[Struct], shaped: list) -> None:
        super().__init__(t)
        self.owner, self.nondiff, self.structs, self.shaped = owner, nondiff, structs, shaped
        self.tangent_dummies = [TraceDummy(f"t{i}", real=True) for i in range(t.n_inputs)]

    def _tangent_outs(self, node) -> list:
        """The JVP rule's tangent outputs, in the dummies and the tangent
        dummies (traced at each use: the rule may read state)."""
        tdum: list = []
        pos = 0
        for st in self.structs:
            tdum.append(st.build(self.tangent_dummies[pos : pos + st.size]))
            pos += st.size
        who = f"the JVP rule of custom_jvp {self.name!r}"
        try:
            got = self.owner.jvp_rule(*self.nondiff, tuple(self.shaped), tuple(tdum))
        except Exception as exc:
            note(exc, f"raised by {who} while differentiating {describe(node)}")
            raise
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            raise RuleError(f"{who} must return (primal_out, tangent_out)")
        t = self.template
        check_output(got[0], t.out_struct, f"{who} returned a primal_out", "the function's output")
        touts = check_output(got[1], t.out_struct, f"{who} returned a tangent_out",
                             "the function's output")
        return [t.to_dummies(self.checked(o, node, "a tangent")) for o in touts]

    def check_captured(self, node, needed):
        check_nondiff(self, node, needed)

    def jvp(self, node, tangents, opts):
        self.check_captured(node, [t is not None for t in tangents])
        t = self.template
        out = self._tangent_outs(node)[node._symgrad_out]
        extra = {d: (S.Zero if v is None else v)
                 for d, v in zip(self.tangent_dummies, tangents[: t.n_inputs])}
        res = t.substitute(out, node.args, extra)
        return None if res is S.Zero else res

    def partials(self, node, needed, opts):
        self.check_captured(node, needed)
        t = self.template
        out = self._tangent_outs(node)[node._symgrad_out]
        self.require_linear([out], self.tangent_dummies, node,
                            f"the JVP rule of custom_jvp {self.name!r}", "reverse mode", "tangent")
        res = []
        for i, k in enumerate(needed[: t.n_inputs]):
            if not k:
                res.append(None)
                continue
            extra = {d: (S.One if j == i else S.Zero) for j, d in enumerate(self.tangent_dummies)}
            res.append(t.substitute(out, node.args, extra))
        return (*res, *[None] * len(t.captured))

    def _linear_hint(self, mode: str) -> str:
        return (
            "Forward mode (jvp) uses it as written; for reverse mode (grad, vjp) write a "
            "rule linear in the tangents (JAX requires it too), or define the derivative "
            "with custom_vjp"
        )


class custom_jvp(_Custom):  # noqa: N801  (JAX's name)
    """JAX's ``jax.custom_jvp``: define the derivative by its JVP rule.

    >>> import sympy as sp
    >>> from symgrad import grad, jvp
    >>> @custom_jvp
    ... def f(x, y):
    ...     return sp.sin(x) * y
    >>> @f.defjvp
    ... def f_jvp(primals, tangents):
    ...     x, y = primals
    ...     x_dot, y_dot = tangents
    ...     return f(x, y), sp.cos(x) * x_dot * y + sp.sin(x) * y_dot
    >>> a, b = sp.symbols("a b", real=True)
    >>> jvp(f(a, b), [a, b], [1, 0])
    b*cos(a)
    >>> grad(f(a, b), [a, b])          # reverse mode from the JVP rule
    [b*cos(a), sin(a)]
    """

    kind = "custom_jvp"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.jvp_rule: Callable | None = None
        self._jvps: tuple | None = None

    def defjvp(self, jvp: Callable) -> Callable:
        """Set the rule ``jvp(primals, tangents) -> (primal_out, tangent_out)``
        (with nondiff arguments first, as in JAX); usable as a decorator."""
        if not callable(jvp):
            raise TypeError(f"custom_jvp {self.name!r}: defjvp takes a function, not {jvp!r}")
        self.jvp_rule = jvp
        self._jvps = None
        self.traces.clear()
        self._matrix_traces.clear()
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """Set the JVP rule one argument at a time, as JAX's ``defjvps``:
        ``jvps[i](g, ans, *primals)`` is the tangent of the output along a
        tangent ``g`` of argument ``i`` (``ans`` the output; None: the
        output does not depend on that argument); the JVP is their sum.

        >>> import sympy as sp
        >>> from symgrad import grad
        >>> @custom_jvp
        ... def f(x, y):
        ...     return sp.sin(x) * y
        >>> f.defjvps(lambda g, ans, x, y: sp.cos(x) * g * y,
        ...           lambda g, ans, x, y: sp.sin(x) * g)
        >>> a, b = sp.symbols("a b", real=True)
        >>> grad(f(a, b), [a, b])
        [b*cos(a), sin(a)]
        """
        if self.nondiff_argnums:
            raise SymgradError(
                f"custom_jvp {self.name!r}: defjvps cannot be used with nondiff_argnums "
                "(nor can it in JAX); define the rule with defjvp"
            )
        for i, j in enumerate(jvps):
            if j is not None and not callable(j):
                raise TypeError(f"custom_jvp {self.name!r}: defjvps argument {i} is {j!r}, "
                                "not a function or None")
        self.defjvp(functools.partial(_sum_of_jvps, self, jvps))
        self._jvps = jvps

    def _check_defined(self) -> None:
        if self.jvp_rule is None:
            raise SymgradError(
                f"custom_jvp {self.name!r} has no JVP rule; define one with @{self.name}.defjvp"
            )

    def _rule(self, t, nondiff, structs, shaped):
        return _JVPRule(t, self, nondiff, structs, shaped)

    def _matrix_trace(self, nondiff: tuple, dummies: list) -> tuple:
        rule, jvps = self.jvp_rule, self._jvps

        def jvp(tans: list):
            if jvps is None:  # nondiff arguments first, as in JAX
                return rule(*nondiff, tuple(dummies), tuple(tans))[1]
            ans = self.fun(*dummies)
            return _sum_tangents([j(g, ans, *dummies) for j, g in zip(jvps, tans)
                                  if j is not None], ans, self.name)
        return (self.fun(*self._merge(nondiff, dummies)), None, jvp,
                state_key((rule, jvps, nondiff)))


def _sum_tangents(parts: list, ans: object, name: str) -> object:
    """The sum of defjvps' per-argument tangents (each of the output's
    structure: a matrix formula, a scalar, or a pytree of them)."""
    from ..matrices.rules import madd
    from .matrix import _zero_like

    flat, st = flatten_exprs(ans, f"output of {name!r}")
    total = [[] for _ in flat]
    for p in parts:
        items = check_output(p, st, f"the defjvps rule of custom_jvp {name!r} returned a "
                             "tangent", "the function's output")
        for acc, v in zip(total, items):
            acc.append(v)
    sums = [(madd(*vs) if _sympify(vs[0]).is_Matrix else sum(vs[1:], vs[0])) if vs
            else _zero_like(o) for vs, o in zip(total, flat)]
    return st.build(sums)


def _sum_of_jvps(owner: custom_jvp, jvps: tuple, primals: tuple, tangents: tuple) -> tuple:
    """The JVP rule ``defjvps`` builds: the sum of the per-argument rules."""
    if len(jvps) != len(primals):
        raise RuleError(
            f"custom_jvp {owner.name!r} was given {len(jvps)} rules by defjvps but is called "
            f"with {len(primals)} arguments; give one rule (or None) per argument"
        )
    ans = owner.fun(*primals)
    flat, st = flatten_exprs(ans, f"output of {owner.name!r}")
    total = [S.Zero] * len(flat)
    for i, (j, g) in enumerate(zip(jvps, tangents)):
        if j is None:
            continue
        part = check_output(j(g, ans, *primals), st,
                            f"the defjvps rule {i} of custom_jvp {owner.name!r} returned a "
                            "tangent", "the function's output")
        total = [a + b for a, b in zip(total, part)]
    return ans, st.build(total)


# ---- custom_vjp ---------------------------------------------------------------------


class _VJPRule(GroupVJPRule):
    """``bwd`` called once with the cotangents of all the outputs of a
    call, as JAX calls it."""

    framework = "JAX"
    linear_fix = "write a bwd linear in g"

    def __init__(self, t: Template, owner: custom_vjp, nondiff: tuple,
                 structs: list[Struct], shaped: list) -> None:
        super().__init__(t)
        self.owner, self.nondiff, self.structs, self.shaped = owner, nondiff, structs, shaped
        self.who = f"the bwd rule of custom_vjp {t.name!r}"

    def check_captured(self, node, needed):
        check_nondiff(self, node, needed)

    def answers(self, node) -> tuple:
        t = self.template
        fwd_who = f"the fwd rule of custom_vjp {self.name!r}"
        try:
            fwd = self.owner.fwd(*self.owner._merge(self.nondiff, self.shaped))
            if not (isinstance(fwd, (tuple, list)) and len(fwd) == 2):
                raise RuleError(f"{fwd_who} must return (output, residuals)")
            check_output(fwd[0], t.out_struct, f"{fwd_who} returned an output",
                         "the function's output")
            cts = self.owner.bwd(*self.nondiff, fwd[1], t.out_struct.build(list(self.cvars)))
        except RuleError:
            raise
        except Exception as exc:
            note(exc, f"raised by the fwd/bwd rules of custom_vjp {self.name!r} "
                      f"while differentiating {describe(node)}")
            raise
        return self.templated(self.flat_cotangents(cts, self.structs, node, self.who), node)


def check_output(value: object, want: Struct, what: str, of: str) -> list:
    """``value`` flattened, an error unless it has the structure ``want``."""
    items, st = flatten_exprs(value, what, nested=True)
    if st != want and not (st.kind == want.kind == "tuple" and st.size == want.size
                           and not st.parts and not want.parts):
        raise RuleError(
            f"{what} of {st.describe()}, but {of} is {want.describe()}; "
            "return values of the same structure and shape (JAX checks this too)"
        )
    return items


def check_nondiff(rule: TemplateRule, node, needed) -> None:
    """Captured symbols get no gradient; one passed as a nondiff argument
    gets an error that says so."""
    t = rule.template
    for i, k in enumerate(needed[t.n_inputs :]):
        if not k:
            continue
        s = t.captured[i]
        for pos, v in zip(rule.owner.nondiff_argnums, rule.nondiff):
            if isinstance(v, Basic) and s in v.free_symbols:
                raise RuleError(
                    f"{rule.owner.kind} {t.name!r} takes {s} through nondiff_argnums (argument "
                    f"{pos} is {describe(v)}), and nondiff arguments are never differentiated "
                    f"(as in JAX), but node {describe(node)} is differentiated with respect to "
                    f"{s}; pass {s} as an ordinary argument, or keep it out of the symbols you "
                    "differentiate with respect to"
                )
    rule.check_captured_base(node, needed)


class custom_vjp(_Custom):  # noqa: N801  (JAX's name)
    """JAX's ``jax.custom_vjp``: define the derivative by forward and
    backward rules, ``fwd(*args) -> (out, residuals)`` and
    ``bwd(residuals, g) -> cotangents``.

    >>> import sympy as sp
    >>> from symgrad import grad, jvp
    >>> @custom_vjp
    ... def f(x, y):
    ...     return sp.sin(x) * y
    >>> def f_fwd(x, y):
    ...     return f(x, y), (sp.cos(x), sp.sin(x), y)
    >>> def f_bwd(res, g):
    ...     cos_x, sin_x, y = res
    ...     return (cos_x * g * y, sin_x * g)
    >>> f.defvjp(f_fwd, f_bwd)
    >>> a, b = sp.symbols("a b", real=True)
    >>> grad(f(a, b), [a, b])
    [b*cos(a), sin(a)]
    >>> jvp(f(a, b), [a, b], [1, 0])   # forward mode, which JAX cannot do here
    b*cos(a)
    """

    kind = "custom_vjp"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        """Set the forward and backward rules (nondiff arguments come first
        in ``bwd``, as in JAX)."""
        if not callable(fwd) or not callable(bwd):
            raise TypeError(f"custom_vjp {self.name!r}: defvjp takes two functions")
        self.fwd, self.bwd = fwd, bwd
        self.traces.clear()
        self._matrix_traces.clear()

    def _check_defined(self) -> None:
        if self.fwd is None:
            raise SymgradError(
                f"custom_vjp {self.name!r} has no VJP rule; define one with "
                f"{self.name}.defvjp(fwd, bwd)"
            )

    def _rule(self, t, nondiff, structs, shaped):
        return _VJPRule(t, self, nondiff, structs, shaped)

    def _matrix_trace(self, nondiff: tuple, dummies: list) -> tuple:
        fwd, bwd = self.fwd, self.bwd
        args = self._merge(nondiff, dummies)

        def vjp(g):  # nondiff arguments first in bwd, as in JAX
            return bwd(*nondiff, fwd(*args)[1], g)
        return self.fun(*args), vjp, None, state_key((fwd, bwd, nondiff))


