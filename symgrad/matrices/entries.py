"""A matrix formula entry by entry, for the stability checks: every matrix
symbol of a domain becomes an explicit matrix of scalar symbols ``W_i_j``
(each with the symbol's box), and the formula expands into its entries in
the stable forms the generated code uses (the maximum taken out of every
exponential of softmax, log-softmax and log-sum-exp)."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar

from sympy import Basic, ImmutableMatrix, Lambda, MatrixBase, MatrixSymbol, Symbol

__all__ = ["STABLE", "entry_symbols", "expand_entries", "explicit", "out_of_reach"]

STABLE: ContextVar[bool] = ContextVar("symgrad_stable_entries", default=False)
"""Whether reductions expand into their stable forms (max taken out)."""


def entry_symbols(W: MatrixSymbol) -> ImmutableMatrix:
    """W as a matrix of real symbols ``W_i_j``.

    >>> entry_symbols(MatrixSymbol("W", 1, 2))
    Matrix([[W_0_0, W_0_1]])
    """
    m, n = (int(d) for d in W.shape)
    return ImmutableMatrix(m, n, lambda i, j: Symbol(f"{W.name}_{i}_{j}", real=True))


def expand_entries(expr: object, domain: Mapping | None) -> tuple[object, Mapping | None]:
    """``expr`` with the matrix symbols of ``domain`` replaced by their
    entries and expanded (a matrix formula becomes an explicit Matrix, one
    output per entry, row-major), and ``domain`` with a box per entry.
    Unchanged when ``domain`` names no matrix symbol.

    >>> from sympy import MatrixSymbol
    >>> from symgrad.matrices import softmax
    >>> z = MatrixSymbol("z", 2, 1)
    >>> e, d = expand_entries(softmax(z), {z: (-1, 1)})
    >>> e.shape, sorted(map(str, d))
    ((2, 1), ['z_0_0', 'z_1_0'])
    """
    if not domain or not any(isinstance(k, MatrixSymbol) for k in domain):
        return expr, domain
    _refuse_out_of_reach(expr, [k for k in domain if isinstance(k, MatrixSymbol)])
    subs, dom = {}, {}
    for k, box in domain.items():
        if isinstance(k, MatrixSymbol):
            E = entry_symbols(k)
            subs[k] = E
            dom.update(dict.fromkeys(E, box))
        else:
            dom[k] = box
    token = STABLE.set(True)
    try:
        out = _expand(expr, subs)
    finally:
        STABLE.reset(token)
    return out, dom


SEARCHES = 10_000
"""The most (output entry, entry symbol) pairs a matrix formula may have in
check_stability and stabilize: the check measures each output entry as a
scalar formula of the entry symbols and searches along each of them, so
its cost grows with their product.  Measured 2026-11-27 (load 4-5): the
gradient of a small network with respect to W1 took 4.4 s of CPU at 80
pairs, 7.1 s at 144 and 24.5 s at 378 (about 0.05-0.07 s a pair), so
10,000 pairs is some ten minutes; a 784-64-10 network on a batch of 10⁴
has 4·10¹¹ and would hang for years (and its entries would not fit in
memory) where this refuses at once."""


def _refuse_out_of_reach(expr: object, mats: list) -> None:
    from ..errors import SymgradError

    why = out_of_reach(expr, mats)
    if why:
        raise SymgradError(why)


def out_of_reach(expr: object, mats: list) -> str | None:
    """Why the entries of ``expr`` over the matrix symbols ``mats`` are too
    many to check (see SEARCHES), or None.

    >>> from sympy import MatrixSymbol
    >>> X, W = MatrixSymbol("X", 100, 50), MatrixSymbol("W", 50, 10)
    >>> out_of_reach(X * W, [X, W]) is not None, out_of_reach(W[:2, :2], [W])
    (True, None)
    """
    from ..graph import postorder

    roots = list(expr.values()) if isinstance(expr, dict) else (
        list(expr) if isinstance(expr, (list, tuple)) else [expr])
    roots = [r for r in roots if isinstance(r, Basic)]
    order, _ = postorder(roots, _kids)
    want = set(mats)
    used = [n for n in order if isinstance(n, MatrixSymbol) and n in want]
    n_vars = 0
    for W in used:
        n_vars += int(W.shape[0]) * int(W.shape[1])
    outs = 0
    for r in roots:
        outs += int(r.shape[0]) * int(r.shape[1]) if getattr(r, "is_Matrix", False) else 1
    if n_vars * outs > SEARCHES:
        names = ", ".join(f"{W.name} {W.shape[0]}×{W.shape[1]}" for W in used)
        return (
            f"the stability check of a matrix formula measures each entry: {outs:,} output "
            f"entries over {n_vars:,} entry symbols ({names}) are {n_vars * outs:,} searches, "
            f"more than the {SEARCHES:,} that finish in minutes (about 0.05 s each); check "
            "the same formula at smaller shapes (a batch of 2, a layer of 3: the elementwise "
            "functions and the reductions' stable forms are the same at every size, only the "
            "sums of the products are longer), or give the elementwise parts their safe forms "
            "over all floats without a check: lambdify(..., stabilize=True)")
    return None


def _expand(expr: object, subs: dict) -> object:
    if isinstance(expr, (list, tuple)):
        return type(expr)(_expand(e, subs) for e in expr)
    if isinstance(expr, dict):
        return {k: _expand(v, subs) for k, v in expr.items()}
    e = explicit(expr, subs)
    return ImmutableMatrix(e) if isinstance(e, MatrixBase) else e


def _leaf(n: Basic) -> bool:
    return isinstance(n, (MatrixSymbol, Lambda, MatrixBase)) or not n.args


def _kids(n: Basic) -> tuple:
    return () if _leaf(n) else n.args


def explicit(expr: Basic, subs: dict) -> Basic:
    """``expr`` with the matrix symbols of ``subs`` replaced by their explicit
    matrices, every matrix node computed as an explicit matrix from its
    arguments' (bottom up, once per node of the DAG): a product is the
    product of explicit matrices, an elementwise function its formula on
    each entry, a reduction its stable entries.  SymPy's ``doit`` of the
    replaced formula gave the same values, but expanded a product's entry as
    a ``Sum`` and re-evaluated every node of every entry (a ``Max`` of a
    softmax's row compared its arguments pairwise): 58 of the 78 s of
    ``stabilize`` of a 24-entry network gradient.

    >>> from sympy import MatrixSymbol, tanh
    >>> from symgrad.matrices import elementwise
    >>> W, x = MatrixSymbol("W", 1, 2), MatrixSymbol("x", 2, 1)
    >>> explicit(elementwise(tanh, W * x), {W: entry_symbols(W)})
    Matrix([[tanh(W_0_0*x[0, 0] + W_0_1*x[1, 0])]])
    """
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
    from sympy.matrices.expressions.matexpr import MatrixElement

    from ..build import mapped
    from .nodes import Reduction

    def leaf(n: Basic) -> Basic | None:  # (mapped's swap: the matrices of subs; leaves)
        got = subs.get(n)
        return got if got is not None else n if _leaf(n) else None

    def computed(n: Basic, args: tuple) -> Basic:  # (the policy, where an argument changed)
        return _node(n, list(args), ElementwiseApplyFunction, MatrixElement, Reduction)

    # (a ones matrix, a symbol not in subs: kept, explicit where used)
    out = mapped([expr], computed, swap=leaf)[0]
    if getattr(out, "is_Matrix", False) and not isinstance(out, MatrixBase):
        out = out.as_explicit()  # a matrix formula the symbols of subs do not reach
    return out


def _node(n: Basic, args: list, Elementwise: type, Element: type, Reduction: type) -> Basic:
    """One node over its arguments' explicit matrices (or scalar formulas)."""
    from sympy import (
        Determinant,
        HadamardPower,
        HadamardProduct,
        Inverse,
        MatAdd,
        MatMul,
        MatPow,
        Mul,
        Trace,
        Transpose,
    )

    def mat(a: Basic) -> Basic:
        if getattr(a, "is_Matrix", False) and not isinstance(a, MatrixBase):
            return ImmutableMatrix(a.as_explicit())
        return a

    if isinstance(n, MatMul):
        scal = Mul(*[a for a in args if not getattr(a, "is_Matrix", False)])
        mats = [mat(a) for a in args if getattr(a, "is_Matrix", False)]
        out = mats[0]
        for M in mats[1:]:
            out = out * M
        return ImmutableMatrix(out.applyfunc(lambda v: scal * v)) if scal != 1 else out
    if isinstance(n, MatAdd):
        out = mat(args[0])
        for M in args[1:]:
            out = out + mat(M)
        return ImmutableMatrix(out)
    if isinstance(n, Transpose):
        return mat(args[0]).T
    if isinstance(n, HadamardProduct):
        out = mat(args[0])
        for M in args[1:]:
            out = out.multiply_elementwise(mat(M))
        return ImmutableMatrix(out)
    if isinstance(n, HadamardPower):
        return ImmutableMatrix(mat(args[0]).applyfunc(lambda v: v ** args[1]))
    if isinstance(n, Elementwise):
        lam = args[0]
        return ImmutableMatrix(mat(args[1]).applyfunc(lambda v: lam(v)))
    if isinstance(n, Element):
        return mat(args[0])[int(args[1]), int(args[2])]
    if isinstance(n, Trace):
        return mat(args[0]).trace()
    if isinstance(n, MatPow):
        return ImmutableMatrix(mat(args[0]) ** args[1])
    if isinstance(n, Inverse):
        return ImmutableMatrix(mat(args[0]).inv())
    if isinstance(n, Determinant):
        return mat(args[0]).det()
    if isinstance(n, Reduction):
        return n._explicit(ImmutableMatrix(mat(args[0])))
    if hasattr(n, "_symgrad_forward"):  # a custom function's call: its formula
        return type(n)(*args)._symgrad_forward().doit()
    rebuilt = n.func(*args)
    if getattr(rebuilt, "is_Matrix", False):
        return mat(rebuilt.doit())
    return rebuilt
