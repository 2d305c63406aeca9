"""``custom_gradient``, ``custom_vjp`` and ``custom_jvp`` over whole
matrices: a function of matrix formulas
(``MatrixSymbol`` arguments, products, ...) that returns a matrix formula
or a scalar, with a ``grad_fn`` that takes the output's cotangent as a
matrix (of the output's shape) and returns one cotangent per argument, each
of that argument's shape, as matrix formulas.

The function is traced once per argument shapes on matrix dummies; the call
is one node (a ``MatrixExpr`` of the output's shape, or a scalar ``Expr``)
over the arguments.  Its matrix-level rule calls ``grad_fn`` once per trace
with a cotangent dummy and substitutes the arguments and the cotangent into
its answer, so the gradient stays a matrix formula.  Code, ``doit`` and the
stability checks see the forward formula.  A VJP rule (``grad_fn``, ``bwd``)
serves forward mode too, and a JVP rule (``custom_jvp``: ``defjvp``,
``defjvps``) reverse mode: the rule is linear, so its transpose is symgrad's
own reverse (or forward) mode over the rule's formula, by the dummy
tangents (or cotangent); a rule that is not linear is a clear error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from sympy import (
    Basic,
    Dummy,
    Expr,
    ImmutableMatrix,
    MatrixBase,
    MatrixExpr,
    MatrixSymbol,
    OneMatrix,
    S,
    ZeroMatrix,
)
from sympy.core.sympify import _sympify

from ..build import mapped
from ..errors import RuleError, ShapeError, SymgradError
from ..graph import postorder
from ..matrices.rules import MatrixRule
from ..shapes import check_same, flatten_exprs
from .base import _bare

__all__ = ["has_matrix_argument", "matrix_call", "CustomMatrixNode", "CustomScalarNode"]


def _is_mat(e: object) -> bool:
    return getattr(e, "is_Matrix", False)


def has_matrix_argument(args: Sequence[object]) -> bool:
    """Whether any argument is a matrix formula (not an explicit Matrix,
    which the entry-by-entry custom functions take)."""
    return any(_is_mat(a) and not isinstance(a, MatrixBase) for a in _leaves(args))


def _leaves(args: Sequence[object]) -> list:
    """The leaves of the arguments, through containers (pytrees)."""
    out = []
    for a in args:
        if isinstance(a, (Basic, MatrixBase)):
            out.append(a)
        elif isinstance(a, (list, tuple, dict)) or dataclasses.is_dataclass(a):
            try:
                out.extend(flatten_exprs(a, "an argument")[0])
            except (SymgradError, TypeError, ValueError):  # not formulas (a nondiff value)
                pass
        else:
            out.append(a)
    return out


def _flatten_args(args: Sequence[object], who: str) -> tuple[list, list]:
    """Each argument's leaves and structure (None for a leaf argument: a
    formula, a matrix formula or an explicit Matrix, kept whole)."""
    leaves, structs = [], []
    for i, a in enumerate(args):
        if isinstance(a, MatrixBase):
            leaves.append(ImmutableMatrix(a))
            structs.append(None)
        elif isinstance(a, Basic) or not (isinstance(a, (list, tuple, dict))
                                          or dataclasses.is_dataclass(a)):
            leaves.append(_sympify(a))
            structs.append(None)
        else:
            fl, st = flatten_exprs(a, f"{who} argument {i}")
            leaves.extend(fl)
            structs.append(st)
    return leaves, structs


def _shaped(flat: Sequence, structs: list) -> list:
    """The flat leaves rebuilt into the arguments' structures."""
    out, pos = [], 0
    for st in structs:
        n = 1 if st is None else st.size
        out.append(flat[pos] if st is None else st.build(list(flat[pos:pos + n])))
        pos += n
    return out


def _flat_cotangents(got: object, structs: list, who: str) -> tuple:
    """A VJP rule's answer (one cotangent per argument, a pytree for a
    container argument; None for none) as one per leaf."""
    if len(structs) == 1 and (structs[0] is None or _bare(got, structs[0])):
        got = (got,)
    if not isinstance(got, (tuple, list)) or len(got) != len(structs):
        k = len(got) if isinstance(got, (tuple, list)) else 1
        raise RuleError(f"{who} returned {k} cotangents for {len(structs)} arguments; return "
                        "one per argument, each of that argument's shape and structure "
                        "(None for no gradient)")
    flat: list = []
    for i, (g, st) in enumerate(zip(got, structs)):
        if st is None:
            flat.append(g)
        elif g is None:
            flat.extend([None] * st.size)
        else:
            items, gst = flatten_exprs(g, f"the cotangent of argument {i}")
            try:
                check_same(st, gst, "cotangent", "argument")
            except ShapeError as exc:
                raise RuleError(f"{who}: {exc}") from None
            flat.extend(items)
    return tuple(flat)


def _shape(e: Basic) -> tuple:
    return tuple(e.shape) if _is_mat(e) else ()


class _Call:
    """The call of a matrix custom_gradient function: prints as ``f(W, x)``,
    expands (``doit``) to the forward formula, differentiates by its rule."""

    _symgrad_template: MatrixTemplate

    def _symgrad_forward(self) -> Basic:
        """The forward formula at the call's arguments (what code computes)."""
        t = self._symgrad_template
        return t.out.xreplace(dict(zip(t.in_dummies, self.args)))

    def doit(self, **hints: object) -> Basic:
        """The forward formula once every argument is explicit (the oracle
        of tests, the entries of the stability checks); the call itself
        otherwise (SymPy's matrix products call ``doit``)."""
        args = [a.doit(**hints) if hints.get("deep", True) else a for a in self.args]
        if not any(_matrix_symbols(a) for a in args):
            return type(self)(*args)._symgrad_forward().doit(**hints)
        return type(self)(*args) if args != list(self.args) else self

    @property
    def _symgrad_matrix_rule(self) -> MatrixRule:
        return self._symgrad_template.rule

    def _sympystr(self, printer: object) -> str:
        return f"{type(self).__name__}({', '.join(printer._print(a) for a in self.args)})"

    def _latex(self, printer: object, exp: object = None) -> str:
        from ..notation import latex_call

        return latex_call(printer, type(self).__name__, self.args, exp)

    def _pretty(self, printer: object, **kwargs: object) -> object:
        from ..notation import pretty_call

        return pretty_call(printer, type(self).__name__, self.args)


class CustomMatrixNode(_Call, MatrixExpr):
    """A call whose output is a matrix."""

    @property
    def shape(self) -> tuple:
        return self._symgrad_template.out.shape

    def _entry(self, i: object, j: object, **kw: object) -> Expr:
        return self._symgrad_forward()._entry(i, j, **kw)


class CustomScalarNode(_Call, Expr):
    """A call whose output is a scalar (a loss over matrices)."""

    is_commutative = True


class MatrixTemplate:
    """One trace: the argument dummies, the forward formula over them, the
    cotangent and tangent dummies, the rule's answers (asked once) and the
    node class.  ``vjp(ct)`` gives one cotangent per argument, ``jvp(ts)``
    the output's tangent; one of the two is given, the other is its
    transpose."""

    def __init__(self, name: str, in_dummies: list, out: Basic, vjp: Callable | None,
                 jvp: Callable | None = None, who: str = "custom_gradient") -> None:
        self.name = name
        self.who = f"the rule of {who} {name!r}"
        self.in_dummies = in_dummies
        self.out = out
        self.vjp_fn, self.jvp_fn = vjp, jvp
        self.ct = (MatrixSymbol(f"_{name}_ct", *out.shape) if _is_mat(out)
                   else Dummy(f"{name}_ct", real=True))
        self.tans = [_dummy_like(d, f"{name}_t", i) for i, d in enumerate(in_dummies)]
        base = CustomMatrixNode if _is_mat(out) else CustomScalarNode
        self.cls = type(name, (base,), {"_symgrad_template": self})
        self.rule = CustomMatrixRule(self)
        self._answers: tuple | None = None
        self._tangent: Basic | None = None

    def answers(self) -> tuple:
        """The cotangent of each argument, in the dummies and ``ct``."""
        if self._answers is None:
            if self.vjp_fn is not None:
                self._answers = self._ask()
            else:  # the JVP rule transposed: reverse mode over it by the tangents
                got = _transpose(_pair(self.tangent(), self.ct), self.tans)
                self._answers = tuple(_linear(g, self.tans, self.who, "tangents") for g in got)
        return self._answers

    def tangent(self) -> Basic:
        """The output's tangent, in the dummies and ``tans``."""
        if self._tangent is None:
            if self.jvp_fn is not None:
                t = _checked(self.jvp_fn(self.tans), self.out, self.who, "the output")
            else:  # the VJP rule transposed: reverse mode over it by the cotangent
                terms = [_pair(a, d) for a, d in zip(self.answers(), self.tans) if a is not None]
                t = _transpose(sum(terms[1:], terms[0]) if terms else S.Zero, [self.ct])[0]
                t = _linear(t, [self.ct], self.who, "cotangent")
            self._tangent = _zero_like(self.out) if t is None else t
        return self._tangent

    def _ask(self) -> tuple:
        got = self.vjp_fn(self.ct)
        n = len(self.in_dummies)
        if n == 1 and not isinstance(got, (tuple, list)):
            got = (got,)
        if not isinstance(got, (tuple, list)) or len(got) != n:
            k = len(got) if isinstance(got, (tuple, list)) else 1
            raise RuleError(f"{self.who} returned {k} cotangents for {n} arguments; return one "
                            "per argument, each of that argument's shape (None for no gradient)")
        return tuple(None if g is None else _checked(g, d, self.who, f"argument {i}")
                     for i, (g, d) in enumerate(zip(got, self.in_dummies)))


def _checked(g: object, like: Basic, who: str, what: str) -> Basic:
    """``g`` as a formula of ``like``'s shape, or a clear error."""
    g = _sympify(g)
    if isinstance(g, MatrixBase):
        g = ImmutableMatrix(g)
    if _shape(g) != _shape(like):
        want = f"a matrix of shape {_shape(like)}" if _shape(like) else "a scalar"
        raise RuleError(f"{who} returned {g} (shape {_shape(g) or 'scalar'}) for {what}, "
                        f"which is {want}; return {want}, or None for no gradient")
    return g


def _zero_like(e: Basic) -> Basic:
    return ZeroMatrix(*e.shape) if _is_mat(e) else S.Zero


def _pair(a: Basic, b: Basic) -> Basic:
    """⟨a, b⟩: the sum of the entrywise product (a product for scalars)."""
    from ..matrices.rules import hadamard, rsum

    return rsum(hadamard(a, b), None) if _is_mat(a) else a * b


def _transpose(scalar: Basic, by: list) -> list:
    """The gradient of ``scalar`` (linear in ``by``) by each of ``by``."""
    from ..autodiff_matrix import matrix_vjp
    from ..rules import Opts

    if scalar == 0:
        return [None] * len(by)
    got = matrix_vjp([scalar], list(by), [S.One], Opts())
    return [None if g == 0 or isinstance(g, ZeroMatrix) else g for g in got]


def _linear(g: Basic | None, dummies: list, who: str, what: str) -> Basic | None:
    """``g``, or a clear error if it still holds one of ``dummies`` (the
    rule was not linear in its {what})."""
    if g is None:
        return None
    order, _ = postorder([g], lambda n: () if isinstance(n, MatrixSymbol) else n.args)
    if any(n in set(dummies) for n in order):
        raise RuleError(f"{who} is not linear in its {what}, so it cannot serve the other "
                        "mode; write it linear in them (a derivative is)")
    return g


class CustomMatrixRule(MatrixRule):
    """The rule of a matrix custom_gradient call: ``grad_fn``'s answers at
    the call's arguments and cotangent."""

    def __init__(self, template: MatrixTemplate) -> None:
        super().__init__(template.name)
        self.template = template

    def inputs(self, node: Basic) -> tuple:
        return node.args

    def _subs(self, node: Basic, extra: dict) -> dict:
        t = self.template
        m = dict(zip(t.in_dummies, node.args))
        m.update(extra)
        return m

    def vjp(self, node, ct, needed, opts):
        t = self.template
        m = self._subs(node, {t.ct: ct})
        return tuple(None if (a is None or not k) else _fold(a.xreplace(m))
                     for a, k in zip(t.answers(), needed))

    def jvp(self, node, tangents, opts):
        t = self.template
        ts = {d: (_zero_like(a) if tg is None else tg)
              for d, a, tg in zip(t.tans, node.args, tangents)}
        return _fold(t.tangent().xreplace(self._subs(node, ts)))


def _fold(e: Basic) -> Basic:
    """``e`` after a substitution, its products, sums and entrywise products
    rebuilt as the matrix rules build them (a zero tangent or a unit
    cotangent folded away: ``W*0`` is 0, ``1*G`` is G)."""
    from sympy import HadamardProduct, MatAdd, MatMul, Transpose

    from ..matrices.rules import T, hadamard, madd, mul

    build = {MatMul: lambda a: mul(*a), MatAdd: lambda a: madd(*a) or ZeroMatrix(*e.shape),
             HadamardProduct: lambda a: hadamard(*a), Transpose: lambda a: T(a[0])}
    def fold(n: Basic, args: tuple) -> Basic | None:
        make = build.get(type(n))
        if make is not None and (args != n.args or any(
                isinstance(a, (ZeroMatrix, OneMatrix)) or a == 1 for a in args)):
            return make(list(args))
        return None  # SymPy's evaluation where an argument changed

    return mapped([e], _evaluated, hook=fold,
                  swap=lambda n: n if isinstance(n, MatrixSymbol) else None)[0]


def _evaluated(n: Basic, args: tuple) -> Basic:
    """``n`` over new arguments with SymPy's evaluation (a matrix node:
    its constructor checks shapes)."""
    return n.func(*args)


def _matrix_symbols(e: Basic) -> set:
    order, _ = postorder([e], lambda n: () if isinstance(n, MatrixSymbol) else n.args)
    return {n for n in order if isinstance(n, MatrixSymbol)}


def _dummy_like(a: Basic, name: str, i: int) -> Basic:
    if _is_mat(a):
        return MatrixSymbol(f"_{name}_{i}", *a.shape)
    return Dummy(f"{name}_{i}", real=True)


def _captured(out: Basic, dummies: list) -> list:
    """Symbols and matrix symbols the forward formula uses besides its
    arguments (bound variables of an elementwise function excluded)."""
    order, _ = postorder([out], lambda n: () if isinstance(n, MatrixSymbol) else n.args)
    own = set(dummies)
    out = []
    for n in order:
        if isinstance(n, MatrixSymbol):
            if n not in own:
                out.append(n)
        elif getattr(n, "is_Symbol", False) and not isinstance(n, Dummy):
            out.append(n)
    return out


def matrix_call(name: str, cache: dict, args: Sequence[object], trace: Callable,
                who: str = "custom_gradient") -> Basic:
    """The call of a custom function on matrix formulas (see the module):
    ``trace(dummies)`` gives ``(output, vjp or None, jvp or None, key)``,
    ``key`` what the rules' behaviour depends on."""
    args, structs = _flatten_args(args, f"{who} {name!r}")
    shapes = tuple(_shape(a) for a in args)
    dummies = cache.setdefault(("dummies", shapes, tuple(structs)),
                               [_dummy_like(a, name, i) for i, a in enumerate(args)])
    out, vjp, jvp, state = trace(_shaped(dummies, structs))
    rule_who = f"the rule of {who} {name!r}"
    if vjp is not None and any(st is not None for st in structs):
        user_vjp = vjp

        def vjp(ct):  # noqa: F811 - the user's rule, answered per leaf
            return _flat_cotangents(user_vjp(ct), structs, rule_who)
    if jvp is not None and any(st is not None for st in structs):
        user_jvp = jvp

        def jvp(tans):  # noqa: F811 - tangents given in the arguments' structures
            return user_jvp(_shaped(tans, structs))
    if isinstance(out, (tuple, list, dict)) or dataclasses.is_dataclass(out):
        return _several(name, cache, args, dummies, (shapes, tuple(structs), state),
                        out, vjp, jvp, who)
    return _template(name, cache, dummies, (shapes, tuple(structs)), out, state, vjp, jvp,
                     who).cls(*args)


def _template(name: str, cache: dict, dummies: list, key: tuple, out: object, state: object,
              vjp: Callable | None, jvp: Callable | None, who: str) -> MatrixTemplate:
    """The trace of one output (cached by what its rule depends on)."""
    out = _sympify(out)
    if isinstance(out, MatrixBase):
        out = ImmutableMatrix(out)
    extra = _captured(out, dummies)
    if extra:
        raise SymgradError(
            f"{who} {name!r} over matrices uses {extra[0]}, which is not one of its "
            "arguments; pass every symbol and matrix symbol it depends on as an argument "
            "(its rule then gives a cotangent for it)"
        )
    key = (*key, out, state)
    t = cache.get(key)
    if t is None:
        t = cache[key] = MatrixTemplate(name, dummies, out, vjp, jvp, who)
    return t


def _several(name: str, cache: dict, args: list, dummies: list, key: tuple, out: object,
             vjp: Callable | None, jvp: Callable | None, who: str) -> object:
    """A call with several outputs (a tuple, list, dict or dataclass of
    matrix formulas and scalars): one node per output, ``name_k``, whose
    rule is the function's rule with the other outputs' cotangents zero (a
    VJP rule is linear in them, so the walker's sum over the outputs is the
    rule's answer at all the cotangents), or the k-th of its tangents."""
    outs, st = flatten_exprs(out, f"the output of {who} {name!r}")
    zeros = [_zero_like(o) for o in outs]

    def one(k: int) -> tuple:
        vjp_k = None if vjp is None else (
            lambda ct: vjp(st.build([ct if j == k else z for j, z in enumerate(zeros)])))
        jvp_k = None if jvp is None else (
            lambda tans: _output(jvp(tans), st, k, f"the JVP rule of {who} {name!r}"))
        return vjp_k, jvp_k

    nodes = []
    for k, o in enumerate(outs):
        vjp_k, jvp_k = one(k)
        t = _template(f"{name}_{k}", cache, dummies, (*key, st, k), o, None, vjp_k, jvp_k,
                      who)
        nodes.append(t.cls(*args))
    return st.build(nodes)


def _output(tangents: object, st: object, k: int, who: str) -> Basic:
    """The k-th output's tangent of a JVP rule's answer (the outputs'
    structure), or a clear error."""
    flat, got = flatten_exprs(tangents, f"the tangent {who} returned")
    try:
        check_same(st, got, "tangent", "output")
    except ShapeError as exc:
        raise RuleError(f"{who}: {exc}") from None
    return flat[k]
