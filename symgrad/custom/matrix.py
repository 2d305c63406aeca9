"""``custom_gradient`` over whole matrices: a function of matrix formulas
(``MatrixSymbol`` arguments, products, ...) that returns a matrix formula
or a scalar, with a ``grad_fn`` that takes the output's cotangent as a
matrix (of the output's shape) and returns one cotangent per argument, each
of that argument's shape, as matrix formulas.

The function is traced once per argument shapes on matrix dummies; the call
is one node (a ``MatrixExpr`` of the output's shape, or a scalar ``Expr``)
over the arguments.  Its matrix-level rule calls ``grad_fn`` once per trace
with a cotangent dummy and substitutes the arguments and the cotangent into
its answer, so the gradient stays a matrix formula.  Code, ``doit`` and the
stability checks see the forward formula.  As in TensorFlow, ``grad_fn``
serves reverse mode (grad, vjp); forward mode through it is a clear error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sympy import Basic, Dummy, Expr, ImmutableMatrix, MatrixBase, MatrixExpr, MatrixSymbol
from sympy.core.sympify import _sympify

from ..errors import RuleError, SymgradError, describe
from ..graph import postorder
from ..matrices.rules import MatrixRule
from .traces import state_key

__all__ = ["has_matrix_argument", "matrix_call", "CustomMatrixNode", "CustomScalarNode"]


def _is_mat(e: object) -> bool:
    return getattr(e, "is_Matrix", False)


def has_matrix_argument(args: Sequence[object]) -> bool:
    """Whether any argument is a matrix formula (not an explicit Matrix,
    which the entry-by-entry custom functions take)."""
    return any(_is_mat(a) and not isinstance(a, MatrixBase) for a in args)


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
    cotangent dummy, ``grad_fn``'s answers (asked once) and the node class."""

    def __init__(self, name: str, in_dummies: list, out: Basic, grad_fn: Callable) -> None:
        self.name = name
        self.in_dummies = in_dummies
        self.out = out
        self.grad_fn = grad_fn
        self.ct = (MatrixSymbol(f"_{name}_ct", *out.shape) if _is_mat(out)
                   else Dummy(f"{name}_ct", real=True))
        base = CustomMatrixNode if _is_mat(out) else CustomScalarNode
        self.cls = type(name, (base,), {"_symgrad_template": self})
        self.rule = CustomMatrixRule(self)
        self._answers: tuple | None = None

    def answers(self) -> tuple:
        if self._answers is None:
            self._answers = self._ask()
        return self._answers

    def _ask(self) -> tuple:
        who = f"the grad_fn of custom_gradient {self.name!r}"
        got = self.grad_fn(self.ct)
        n = len(self.in_dummies)
        if n == 1 and not isinstance(got, (tuple, list)):
            got = (got,)
        if not isinstance(got, (tuple, list)) or len(got) != n:
            k = len(got) if isinstance(got, (tuple, list)) else 1
            raise RuleError(f"{who} returned {k} cotangents for {n} arguments; return one per "
                            "argument, each of that argument's shape (None for no gradient)")
        out = []
        for i, (g, d) in enumerate(zip(got, self.in_dummies)):
            if g is None:
                out.append(None)
                continue
            g = _sympify(g)
            if isinstance(g, MatrixBase):
                g = ImmutableMatrix(g)
            if _shape(g) != _shape(d):
                want = f"a matrix of shape {_shape(d)}" if _shape(d) else "a scalar"
                raise RuleError(f"{who} returned {g} (shape {_shape(g) or 'scalar'}) for argument "
                                f"{i}, which is {want}; return {want}, or None for no gradient")
            out.append(g)
        return tuple(out)


class CustomMatrixRule(MatrixRule):
    """The rule of a matrix custom_gradient call: ``grad_fn``'s answers at
    the call's arguments and cotangent."""

    def __init__(self, template: MatrixTemplate) -> None:
        super().__init__(template.name)
        self.template = template

    def inputs(self, node: Basic) -> tuple:
        return node.args

    def vjp(self, node, ct, needed, opts):
        t = self.template
        m = dict(zip(t.in_dummies, node.args))
        m[t.ct] = ct
        return tuple(None if (a is None or not k) else a.xreplace(m)
                     for a, k in zip(t.answers(), needed))

    def jvp(self, node, tangents, opts):
        raise RuleError(
            f"custom_gradient {self.template.name!r} over matrices ({describe(node)}) gives a "
            "reverse-mode rule (grad, vjp) only, as TensorFlow's does; forward mode (jvp, a "
            "jacobian by a scalar, hessian) through it is not supported"
        )


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


def matrix_call(fun: Callable, name: str, cache: dict, args: Sequence[object]) -> Basic:
    """``fun(*args)`` for a custom_gradient function called on matrix
    formulas (see the module)."""
    args = [_sympify(a) for a in args]
    args = [ImmutableMatrix(a) if isinstance(a, MatrixBase) else a for a in args]
    shapes = tuple(_shape(a) for a in args)
    dummies = cache.setdefault(("dummies", shapes),
                               [_dummy_like(a, name, i) for i, a in enumerate(args)])
    got = fun(*dummies)
    if not (isinstance(got, tuple) and len(got) == 2 and callable(got[1])):
        raise SymgradError(f"custom_gradient function {name!r} must return (outputs, grad_fn), "
                           f"got {got!r}")
    out, grad_fn = got
    if isinstance(out, (tuple, list, dict)):
        raise SymgradError(f"custom_gradient function {name!r}: over matrix formulas it returns "
                           "one matrix formula or one scalar; return a tuple of outputs only "
                           "for explicit Matrices of symbols")
    out = _sympify(out)
    if isinstance(out, MatrixBase):
        out = ImmutableMatrix(out)
    extra = _captured(out, dummies)
    if extra:
        raise SymgradError(
            f"custom_gradient function {name!r} over matrices uses {extra[0]}, which is not "
            "one of its arguments; pass every symbol and matrix symbol it depends on as an "
            "argument (its grad_fn then returns a cotangent for it)"
        )
    key = (shapes, out, state_key(grad_fn))
    t = cache.get(key)
    if t is None:
        t = cache[key] = MatrixTemplate(name, dummies, out, grad_fn)
    return t.cls(*args)
