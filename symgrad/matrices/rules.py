"""Derivative rules for matrix nodes: the walker accumulates matrix-valued
cotangents over the matrix DAG, one rule per node kind, never expanding
entries.  Ḡ is the node's cotangent (of the node's shape; a scalar for a
scalar node such as a trace or a sum).

    MatMul  A·B             Ā = Ḡ·Bᵀ,  B̄ = Aᵀ·Ḡ   (c·A·B: c̄ = sum(Ḡ ⊙ A·B))
    MatAdd  A + B           Ā = B̄ = Ḡ
    Transpose  Aᵀ           Ā = Ḡᵀ
    Hadamard  A ⊙ B         Ā = Ḡ ⊙ B
    HadamardPower  A∘ᵖ      Ā = Ḡ ⊙ p·A∘ᵖ⁻¹
    Trace   tr A            Ā = ḡ·I
    element A[i, j]         Ā = ḡ at (i, j)
    elementwise f(A)        Ā = Ḡ ⊙ f'(A)   (f' from the rule table)
    sum(A)                  Ā = ḡ·𝟙
    logsumexp(A)            Ā = ḡ·softmax(A)
    softmax(A) = S          Ā = S ⊙ (Ḡ - sum(Ḡ ⊙ S))
    log_softmax(A)          Ā = Ḡ - softmax(A) ⊙ sum(Ḡ)
    norm(A)                 Ā = ḡ·A / norm(A)
    A⁻¹ = V                 Ā = -Vᵀ·Ḡ·Vᵀ         (dV = -V·dA·V)
    det A                   Ā = ḡ·det(A)·A⁻ᵀ     (d det A = det(A)·tr(A⁻¹·dA))

Reductions along an axis broadcast their cotangent back along that axis
(a row times 𝟙 from the left, a column times 𝟙 from the right).  The scalar
derivative of an elementwise function comes from the scalar rule table
through the scalar walker, so overrides (``gradient_override_map``, tags,
custom gradients) reach the entries of a matrix.
"""

from __future__ import annotations

from sympy import (
    Basic,
    Determinant,
    Dummy,
    Expr,
    HadamardPower,
    HadamardProduct,
    Identity,
    ImmutableMatrix,
    Inverse,
    Lambda,
    MatAdd,
    MatMul,
    MatPow,
    MatrixBase,
    MatrixSymbol,
    Mul,
    OneMatrix,
    S,
    Trace,
    Transpose,
    ZeroMatrix,
)
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
from sympy.matrices.expressions.matexpr import MatrixElement

from ..errors import NoRuleError, RuleError, describe
from ..rules.forms import Rule
from .nodes import (
    LogSoftmax,
    LogSumExpAll,
    LogSumExpAxis,
    NormAll,
    NormAxis,
    Softmax,
    SumAll,
    SumAxis,
    axis_of,
)

__all__ = ["matrix_rule", "MATRIX_RULES"]


# ---- building cotangents, with 𝟙 (the ones matrix) folded away -------------

def _is_mat(e: Basic) -> bool:
    return getattr(e, "is_Matrix", False)


def _ones_coeff(M: Expr) -> Expr | None:
    """c where ``M`` is c·𝟙 (a product of scalars and ones matrices)."""
    if isinstance(M, OneMatrix):
        return S.One
    if isinstance(M, MatMul):
        c = []
        mats = [a for a in M.args if _is_mat(a)]
        if not mats or not all(isinstance(a, OneMatrix) for a in mats):
            return None
        c = [a for a in M.args if not _is_mat(a)]
        c += [a.shape[1] for a in mats[:-1]]  # 𝟙ₘₖ·𝟙ₖₙ = k·𝟙ₘₙ
        return Mul(*c)
    return None


def ones(shape: tuple, c: Expr = S.One) -> Expr:
    """c·𝟙 of ``shape`` (𝟙 alone for c = 1)."""
    if c == 0:
        return ZeroMatrix(*shape)
    one = OneMatrix(*shape)
    return one if c == 1 else MatMul(c, one)


def scale(c: Expr, M: Expr) -> Expr:
    """c·M, the scalar kept outside a sum (2·(Ax - b), not 2·Ax - 2·b)."""
    if c == 1:
        return M
    if c == 0:
        return ZeroMatrix(*M.shape)
    k = _ones_coeff(M)
    if k is not None:
        return ones(M.shape, c * k)
    if isinstance(M, MatMul):
        k, mats = M.as_coeff_matrices()
        c = c * k
        return MatMul(c, *mats) if c != 1 else MatMul(*mats) if len(mats) > 1 else mats[0]
    return MatMul(c, M)


def coeff(M: Expr) -> tuple[Expr, Expr]:
    """``(c, core)`` with M = c·core."""
    if isinstance(M, MatMul):
        k, mats = M.as_coeff_matrices()
        if k != 1:
            return k, mats[0] if len(mats) == 1 else MatMul(*mats)
    return S.One, M


def mul(*fs: Expr) -> Expr:
    """The matrix product of ``fs`` (scalars allowed): products flattened,
    scalars gathered in front, identities dropped, 𝟙·𝟙 folded; a scalar
    is not spread over a sum (SymPy's ``doit`` would: 2·Ax - 2·b)."""
    c = S.One
    mats: list = []
    for f in fs:
        if f is None:
            continue
        if isinstance(f, MatMul):
            k, ms = f.as_coeff_matrices()
            c = c * k
            mats.extend(ms)
        elif _is_mat(f):
            mats.append(f)
        else:
            c = c * f
    # identities, and 1×1 ones matrices (𝟙₁ₓ₁ = I₁), drop out of a product
    core = [m for m in mats if not isinstance(m, Identity)
            and not (isinstance(m, OneMatrix) and m.shape == (1, 1))] or mats[:1]
    if any(isinstance(m, ZeroMatrix) for m in core) or c == 0:
        return ZeroMatrix(mats[0].shape[0], mats[-1].shape[1])
    out = core[0] if len(core) == 1 else MatMul(*core)
    k = _ones_coeff(out)
    if k is not None:
        return ones(out.shape, c * k)
    return scale(c, out)


def T(M: Expr) -> Expr:
    """Mᵀ, as the Matrix Cookbook writes it: (c·A·B)ᵀ = c·Bᵀ·Aᵀ, (A + B)ᵀ =
    Aᵀ + Bᵀ, (Aᵀ)ᵀ = A; the transpose of any other formula stays one node
    over it (so Hᵀ shares H, not pushed into tanh's argument)."""
    k = _ones_coeff(M)
    if k is not None:
        return ones((M.shape[1], M.shape[0]), k)
    if isinstance(M, Transpose):
        return M.arg
    if isinstance(M, MatMul):
        c, mats = M.as_coeff_matrices()
        return scale(c, mul(*[T(a) for a in reversed(mats)]))
    if isinstance(M, MatAdd):
        return madd(*[T(a) for a in M.args])
    if isinstance(M, (Identity, ZeroMatrix)):
        return M if M.shape[0] == M.shape[1] else ZeroMatrix(M.shape[1], M.shape[0])
    return Transpose(M)


def hadamard(*fs: Expr) -> Expr:
    """The entrywise product of ``fs``; c·𝟙 factors become scalars."""
    c = S.One
    rest = []
    for f in fs:
        k = _ones_coeff(f)
        if k is None:
            rest.append(f)
        else:
            c = c * k
    if not rest:
        return ones(fs[0].shape, c)
    cs = [coeff(f) for f in rest]
    c = Mul(c, *[k for k, _ in cs])
    rest = [f for _, f in cs]
    core = rest[0] if len(rest) == 1 else HadamardProduct(*rest)
    return scale(c, core)


def madd(*terms: Expr) -> Expr:
    """The sum of ``terms``, like terms collected and a common numeric
    factor taken out ((1/n)·S - (1/n)·Y = (1/n)·(S - Y))."""
    terms = [t for t in terms if t is not None and not isinstance(t, ZeroMatrix)]
    if not terms:
        return None
    if len(terms) == 1:
        return terms[0]
    out = MatAdd(*terms).doit(deep=False)
    if not isinstance(out, MatAdd):
        return out
    cs = [coeff(t) for t in out.args]
    k = abs(cs[0][0])
    if k != 1 and k.is_number and all(abs(c) == k for c, _ in cs):
        return MatMul(k, MatAdd(*[scale(c / k, f) for c, f in cs]))
    return out


def neg(M: Expr) -> Expr:
    return scale(S.NegativeOne, M)


def rsum(M: Expr, axis: int | None) -> Expr:
    """sum(M) (a scalar) or along ``axis`` (a row or a column)."""
    k = _ones_coeff(M)
    m, n = M.shape
    if k is not None:
        if axis is None:
            return k * m * n
        return ones((1, n), k * m) if axis == 0 else ones((m, 1), k * n)
    c, core = coeff(M)
    return c * SumAll(core) if axis is None else scale(c, SumAxis(core, axis))


def broadcast(v: Expr, axis: int | None, shape: tuple) -> Expr:
    """A reduction's cotangent spread back over ``shape``."""
    m, n = shape
    if axis is None:
        return ones(shape, v)
    if axis == 0:
        return mul(OneMatrix(m, 1), v)
    return mul(v, OneMatrix(1, n))


# ---- the rules ---------------------------------------------------------------

class MatrixRule(Rule):
    """A rule over a matrix node: ``vjp`` and ``jvp`` both written out (the
    partials of a matrix node are not scalars)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def inputs(self, node: Basic) -> tuple:
        return tuple(a for a in node.args if isinstance(a, Expr) and not a.is_number)

    def vjp(self, node, ct, needed, opts):
        raise NotImplementedError

    def jvp(self, node, tangents, opts):
        raise NotImplementedError


class LeafRule(MatrixRule):
    """A matrix symbol (or a matrix that holds no variables): a leaf."""

    def inputs(self, node):
        return ()


class MatMulRule(MatrixRule):
    def inputs(self, node):
        return tuple(a for a in node.args if _is_mat(a) or not a.is_number)

    def vjp(self, node, ct, needed, opts):
        args = self.inputs(node)
        num = Mul(*[a for a in node.args if not _is_mat(a) and a.is_number])
        out = []
        for i, (a, k) in enumerate(zip(args, needed)):
            if not k:
                out.append(None)
                continue
            others = [num, *args[:i], *args[i + 1:]]
            if not _is_mat(a):  # a scalar factor: c̄ = sum(Ḡ ⊙ rest)
                out.append(rsum(hadamard(ct, mul(*others)), None))
                continue
            left = [b for b in args[:i] if _is_mat(b)]
            right = [b for b in args[i + 1:] if _is_mat(b)]
            c = Mul(num, *[b for b in args if not _is_mat(b) and b is not a])
            fs = []
            if left:
                fs.append(T(mul(*left)))
            fs.append(ct)
            if right:
                fs.append(T(mul(*right)))
            out.append(scale(c, mul(*fs)))
        return tuple(out)

    def jvp(self, node, tangents, opts):
        args = self.inputs(node)
        num = Mul(*[a for a in node.args if not _is_mat(a) and a.is_number])
        terms = []
        for i, t in enumerate(tangents):
            if t is None:
                continue
            fs = [num, *args[:i], t, *args[i + 1:]]
            terms.append(mul(*fs))
        return madd(*terms) if terms else None


class MatAddRule(MatrixRule):
    def vjp(self, node, ct, needed, opts):
        return tuple(ct if k else None for k in needed)

    def jvp(self, node, tangents, opts):
        ts = [t for t in tangents if t is not None]
        return madd(*ts) if ts else None


class TransposeRule(MatrixRule):
    def vjp(self, node, ct, needed, opts):
        return (T(ct),)

    def jvp(self, node, tangents, opts):
        return T(tangents[0])


class HadamardRule(MatrixRule):
    def vjp(self, node, ct, needed, opts):
        args = node.args
        return tuple(hadamard(ct, *args[:i], *args[i + 1:]) if k else None
                     for i, k in enumerate(needed))

    def jvp(self, node, tangents, opts):
        args = node.args
        terms = [hadamard(t, *args[:i], *args[i + 1:])
                 for i, t in enumerate(tangents) if t is not None]
        return madd(*terms)


class HadamardPowerRule(MatrixRule):
    def inputs(self, node):
        return node.args

    def _partial(self, node):
        base, p = node.args
        if p == 2:
            return scale(2, base)
        return scale(p, HadamardPower(base, p - 1))

    def vjp(self, node, ct, needed, opts):
        if needed[1]:
            raise RuleError(f"{describe(node)}: an entrywise power whose exponent depends on "
                            "the variables has no matrix-level rule; write it with "
                            "elementwise(exp, ...) of a log")
        return (hadamard(ct, self._partial(node)), None)

    def jvp(self, node, tangents, opts):
        if tangents[1] is not None:
            self.vjp(node, None, [False, True], opts)
        return hadamard(tangents[0], self._partial(node))


class TraceRule(MatrixRule):
    def vjp(self, node, ct, needed, opts):
        return (scale(ct, Identity(node.args[0].shape[0])),)

    def jvp(self, node, tangents, opts):
        return Trace(tangents[0])


class ElementRule(MatrixRule):
    """``M[i, j]``: an entry of a matrix symbol is a leaf (as a symbol is);
    an entry of a formula passes its cotangent to that entry."""

    def inputs(self, node):
        M = node.args[0]
        return () if isinstance(M, MatrixSymbol) else (M,)

    def vjp(self, node, ct, needed, opts):
        M, i, j = node.args
        m, n = M.shape
        if (m, n) == (1, 1):
            return (scale(ct, Identity(1)),)
        vals = [S.Zero] * (m * n)
        vals[int(i) * n + int(j)] = ct
        return (ImmutableMatrix(m, n, vals),)

    def jvp(self, node, tangents, opts):
        t = tangents[0]
        _, i, j = node.args
        if isinstance(t, MatrixBase):
            return t[i, j]
        return MatrixElement(t, i, j)


class ExplicitRule(MatrixRule):
    """An explicit Matrix inside a matrix formula: its entries are inputs."""

    def inputs(self, node):
        return tuple(node)

    def vjp(self, node, ct, needed, opts):
        G = ct if isinstance(ct, MatrixBase) else ct.as_explicit()
        return tuple(G[k] if need else None for k, need in enumerate(needed))

    def jvp(self, node, tangents, opts):
        m, n = node.shape
        return ImmutableMatrix(m, n, [S.Zero if t is None else t for t in tangents])


def elementwise_derivative(node: ElementwiseApplyFunction, opts) -> Expr:
    """f'(X) for ``node`` = f(X) entry by entry, as a matrix formula: the
    scalar walker differentiates f's body (so the rule table, its overrides
    and custom gradients decide); written over the node's own output where
    the derivative is a function of f's value (tanh' = 1 - tanh²)."""
    from ..walker import reverse  # the walker calls this rule: import when run

    lam, X = node.args
    d = lam.variables[0]
    body = lam.expr
    got = reverse([body], [S.One], [d], opts).get(d, S.Zero)
    if d not in got.free_symbols:
        return ones(X.shape, got)
    c, mono = got.as_coeff_Mul()
    if mono == d:  # f' = c·x: c·X
        return scale(c, X)
    if mono.is_Pow and mono.base == d and mono.exp.is_Integer and mono.exp > 1:
        return scale(c, HadamardPower(X, mono.exp))
    w = Dummy("w")
    over_out = got.subs(body, w) if body != d else got
    if d not in over_out.free_symbols:
        c, mono = over_out.as_coeff_Mul()
        if mono == w:  # f' = c·f (exp): c times the node itself, not (w ↦ w)(f(X))
            return scale(c, node)
        return ElementwiseApplyFunction(Lambda(w, over_out), node)
    return ElementwiseApplyFunction(Lambda(d, got), X)


def _params(node: ElementwiseApplyFunction) -> tuple:
    """The symbols of f's formula other than its argument (a slope, a
    temperature): inputs of the node too."""
    lam = node.args[0]
    return tuple(sorted(lam.expr.free_symbols - set(lam.variables), key=str))


def _param_partial(node: ElementwiseApplyFunction, p: Expr, opts) -> Expr | None:
    """∂f/∂p over the entries of X (f's formula differentiated in p)."""
    from ..walker import reverse  # the walker calls this rule: import when run

    lam, X = node.args
    got = reverse([lam.expr], [S.One], [p], opts).get(p)
    if got is None or got == 0:
        return None
    if not got.free_symbols & set(lam.variables):
        return ones(X.shape, got)
    return ElementwiseApplyFunction(Lambda(lam.variables[0], got), X)


class ElementwiseRule(MatrixRule):
    def inputs(self, node):
        return (node.args[1], *_params(node))

    def vjp(self, node, ct, needed, opts):
        d = elementwise_derivative(node, opts) if needed[0] else None
        out = [None if d is None or isinstance(d, ZeroMatrix) else hadamard(ct, d)]
        for p, k in zip(_params(node), needed[1:]):
            dp = _param_partial(node, p, opts) if k else None
            out.append(None if dp is None else rsum(hadamard(ct, dp), None))
        return tuple(out)

    def jvp(self, node, tangents, opts):
        terms = []
        if tangents[0] is not None:
            d = elementwise_derivative(node, opts)
            if not isinstance(d, ZeroMatrix):
                terms.append(hadamard(tangents[0], d))
        for p, t in zip(_params(node), tangents[1:]):
            dp = _param_partial(node, p, opts) if t is not None else None
            if dp is not None:
                terms.append(scale(t, dp))
        return madd(*terms) if terms else None


class MatPowRule(MatrixRule):
    """Xⁿ for a whole n ≥ 1: Ā = Σₖ (Xᵀ)ᵏ·Ḡ·(Xᵀ)ⁿ⁻¹⁻ᵏ."""

    def _n(self, node) -> int:
        n = node.args[1]
        if not (n.is_Integer and n >= 1):
            raise NoRuleError(f"no matrix-level derivative rule for {describe(node)}: only "
                              "whole positive powers of a matrix are differentiated")
        return int(n)

    def inputs(self, node):
        return (node.args[0],)

    def _pow(self, X, k):
        return Identity(X.shape[0]) if k == 0 else (X if k == 1 else MatPow(X, k))

    def vjp(self, node, ct, needed, opts):
        n, X = self._n(node), node.args[0]
        XT = T(X)
        return (madd(*[mul(self._pow(XT, k), ct, self._pow(XT, n - 1 - k))
                       for k in range(n)]),)

    def jvp(self, node, tangents, opts):
        n, X = self._n(node), node.args[0]
        return madd(*[mul(self._pow(X, k), tangents[0], self._pow(X, n - 1 - k))
                      for k in range(n)])


class SumRule(MatrixRule):
    def vjp(self, node, ct, needed, opts):
        X = node.args[0]
        return (broadcast(ct, axis_of(node), X.shape),)

    def jvp(self, node, tangents, opts):
        return rsum(tangents[0], axis_of(node))


class LogSumExpRule(MatrixRule):
    def vjp(self, node, ct, needed, opts):
        X = node.args[0]
        ax = axis_of(node)
        return (hadamard(broadcast(ct, ax, X.shape), Softmax(X, ax)),)

    def jvp(self, node, tangents, opts):
        X = node.args[0]
        ax = axis_of(node)
        return rsum(hadamard(tangents[0], Softmax(X, ax)), ax)


class SoftmaxRule(MatrixRule):
    def vjp(self, node, ct, needed, opts):
        ax = axis_of(node)
        inner = rsum(hadamard(ct, node), ax)
        return (hadamard(node, madd(ct, neg(broadcast(inner, ax, node.shape)))),)

    def jvp(self, node, tangents, opts):
        return self.vjp(node, tangents[0], [True], opts)[0]  # S ⊙ (T - sum(T ⊙ S)): self-adjoint


class LogSoftmaxRule(MatrixRule):
    def vjp(self, node, ct, needed, opts):
        X = node.args[0]
        ax = axis_of(node)
        s = Softmax(X, ax)
        return (madd(ct, neg(hadamard(s, broadcast(rsum(ct, ax), ax, X.shape)))),)

    def jvp(self, node, tangents, opts):
        X = node.args[0]
        ax = axis_of(node)
        t = tangents[0]
        return madd(t, neg(broadcast(rsum(hadamard(t, Softmax(X, ax)), ax), ax, X.shape)))


class NormRule(MatrixRule):
    def vjp(self, node, ct, needed, opts):
        return (scale(ct / node, node.args[0]),)

    def jvp(self, node, tangents, opts):
        return rsum(hadamard(tangents[0], node.args[0]), None) / node


class NormAxisRule(MatrixRule):
    """n = ‖X‖ along an axis: X̄ = X ⊙ (Ḡ ⊘ n) spread back over X."""

    def _over(self, node, v):
        return hadamard(v, HadamardPower(node, -1))

    def vjp(self, node, ct, needed, opts):
        X = node.args[0]
        return (hadamard(X, broadcast(self._over(node, ct), axis_of(node), X.shape)),)

    def jvp(self, node, tangents, opts):
        X = node.args[0]
        return self._over(node, rsum(hadamard(tangents[0], X), axis_of(node)))


class InverseRule(MatrixRule):
    """V = A⁻¹: dV = -V·dA·V, so Ā = -Vᵀ·Ḡ·Vᵀ (the node V itself, shared)."""

    def vjp(self, node, ct, needed, opts):
        VT = T(node)
        return (neg(mul(VT, ct, VT)),)

    def jvp(self, node, tangents, opts):
        return neg(mul(node, tangents[0], node))


class DeterminantRule(MatrixRule):
    """d det A = det(A)·tr(A⁻¹·dA) (Jacobi), so Ā = ḡ·det(A)·A⁻ᵀ."""

    def vjp(self, node, ct, needed, opts):
        return (scale(ct * node, T(Inverse(node.arg))),)

    def jvp(self, node, tangents, opts):
        return node * Trace(mul(Inverse(node.arg), tangents[0]))


class MissingMatrixRule(MatrixRule):
    """A matrix node kind with no matrix-level rule: a clear error if a
    gradient reaches it."""

    def vjp(self, node, ct, needed, opts):
        raise NoRuleError(
            f"no matrix-level derivative rule for {describe(node)} ({type(node).__name__}); "
            "symgrad differentiates MatMul, MatAdd, Transpose, HadamardProduct, "
            "HadamardPower, Trace, Inverse, Determinant, whole positive MatPow, elementwise "
            "functions and its reductions at the matrix "
            "level: rewrite the formula with those, or differentiate an explicit "
            "sympy.Matrix of its entries"
        )

    jvp = vjp  # type: ignore[assignment]


MATRIX_RULES: dict[type, Rule] = {}
for _cls, _rule in [
    (MatMul, MatMulRule), (MatAdd, MatAddRule), (Transpose, TransposeRule),
    (HadamardProduct, HadamardRule), (HadamardPower, HadamardPowerRule),
    (Trace, TraceRule), (MatrixElement, ElementRule),
    (ElementwiseApplyFunction, ElementwiseRule), (MatrixSymbol, LeafRule), (MatPow, MatPowRule),
    (SumAll, SumRule), (SumAxis, SumRule), (LogSumExpAll, LogSumExpRule),
    (LogSumExpAxis, LogSumExpRule), (Softmax, SoftmaxRule), (LogSoftmax, LogSoftmaxRule),
    (NormAll, NormRule), (NormAxis, NormAxisRule), (Inverse, InverseRule),
    (Determinant, DeterminantRule),
]:
    MATRIX_RULES[_cls] = _rule(_cls.__name__)

_EXPLICIT = ExplicitRule("Matrix")
_CONSTANT = (Identity, OneMatrix, ZeroMatrix)
_LEAF = LeafRule("constant matrix")


def matrix_rule(node: Basic) -> Rule | None:
    """The matrix-level rule of ``node``, None for a scalar node."""
    own = getattr(node, "_symgrad_matrix_rule", None)  # a matrix custom_gradient call
    if own is not None:
        return own
    rule = MATRIX_RULES.get(type(node))
    if rule is not None:
        return rule
    if isinstance(node, MatrixBase):
        return _EXPLICIT
    if _is_mat(node):
        if isinstance(node, _CONSTANT):
            return _LEAF
        return MissingMatrixRule(type(node).__name__)
    return None
