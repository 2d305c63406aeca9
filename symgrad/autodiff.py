"""The differentiation operators: grad, jacobian, hessian, jvp, vjp.

All are built on the one walker (:mod:`symgrad.walker`); results are
ordinary SymPy expressions.  Symbols are treated as real variables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sympy import Expr, Matrix, MatrixExpr, MatrixSymbol, NDimArray, S, Symbol, zeros

from .autodiff_matrix import (
    has_matrix,
    map_scalar_parts,
    matrix_hessian,
    matrix_jvp,
    matrix_vjp,
    tree_jacobian,
)
from .errors import SymgradError
from .graph import postorder
from .matrices.wrt import as_scalar, assemble, entries_of, rolled, zero_like
from .resolver import note_differentiation, resolve
from .rules import Opts
from .rules.defaults import BUILTIN_RULES
from .rules.forms import FdiffRule, SympyChainRule, SympyLeafRule
from .shapes import check_same, flatten_exprs, flatten_symbols, tree_product, whole_matrices
from .walker import forward, reverse

__all__ = ["grad", "jacobian", "hessian", "jvp", "vjp"]

_UNCONNECTED = ("zero", "none")

# What ``grad(..., stabilize=True)`` does with the gradient: lower it and
# apply the accurate rewrites, stages after this one, so the package (a
# front-end, symgrad/__init__.py) installs it: differentiation imports
# nothing downstream of it.  Takes the entries (no None) and the domain.
stabilized: Callable[[list, Mapping | None], list] | None = None
# Rules that are SymPy's own derivative of the node.
_SYMPY_RULES = (FdiffRule, SympyChainRule, SympyLeafRule)


def grad(
    expr: Expr,
    wrt: Symbol | list | tuple | Matrix | NDimArray,
    *,
    unconnected: str = "zero",
    convention: str = "ad",
    ties: str = "split",
    stabilize: bool = False,
    domain: Mapping | None = None,
) -> Expr | tuple | Matrix | NDimArray | None:
    """The gradient of a scalar expression, by reverse mode.

    ``wrt`` a Symbol gives an expression; a list/tuple gives a tuple; a
    Matrix or Array of symbols gives a Matrix or Array of the same shape.
    A symbol that no gradient reaches gets 0, or None with
    ``unconnected="none"`` (as TensorFlow's ``unconnected_gradients``); a
    Matrix or Array counts as one variable, as a tensor does there: None if
    no entry is reached, else 0 at the entries that are not.  ``convention``
    and ``ties`` choose the rules of non-differentiable nodes (see the user
    guide).

    ``stabilize=True`` returns the gradient as it is evaluated (markers
    lowered) with symgrad's accurate rewrites applied: those that lose
    accuracy nowhere, valid on ``domain`` (symbol -> (lo, hi); all reals
    if None), so that, say, the gradient of ``log(1 + exp(x))`` is exact
    over the whole float range; :func:`symgrad.stabilize` chooses among
    more forms by measurement.

    >>> from sympy import symbols, sin, floor, Max
    >>> x, y, z = symbols("x y z", real=True)
    >>> grad(x * sin(y), [x, y])
    [sin(y), x*cos(y)]
    >>> grad(floor(x) + y, [x, z], unconnected="none")
    [None, None]
    >>> grad(Max(x, y), x).subs({x: 1, y: 1})
    1/2
    >>> from sympy import log, exp
    >>> grad(log(1 + exp(x)), x, stabilize=True)
    Piecewise((1, x >= 0), (exp(-Abs(x)), True))/(1 + exp(-Abs(x)))
    """
    if unconnected not in _UNCONNECTED:
        raise ValueError(
            f"unconnected={unconnected!r} is not one of {_UNCONNECTED}: 'zero' gives 0 "
            "for a symbol no gradient reaches, 'none' gives None"
        )
    opts = Opts(convention, ties)
    outs, ostruct = flatten_exprs(expr, "expr")
    syms, struct = flatten_symbols(wrt)
    mats = [s for s in syms if isinstance(s, MatrixSymbol)]
    if mats:
        outs = rolled([as_scalar(e, "grad") for e in outs], mats)
    _scalars(outs, "grad", "expressions")
    note_differentiation()  # a use of every active override map
    if ostruct.kind != "scalar":
        raise SymgradError(
            f"grad needs a scalar expression but got {ostruct.describe()}; "
            "use jacobian(exprs, wrt) or vjp(exprs, wrt, cotangents)"
        )
    got = reverse(outs, [S.One], [*syms, *entries_of(outs, mats)], opts)
    for W in mats:
        g = assemble(W, got)
        if g is not None:
            got[W] = g
    missing = None if unconnected == "none" else S.Zero
    if missing is None and struct.kind in ("matrix", "array") and syms:
        if not any(s in got for s in syms):
            return None
        missing = S.Zero
    out = [got.get(s, missing if missing is None else zero_like(s)) for s in syms]
    if stabilize:
        out = _stabilized(out, domain)
    return struct.build(out)


def _scalars(exprs: list, who: str, what: str) -> list:
    """``exprs``, each a scalar expression; a matrix expression (a
    ``MatrixSymbol`` and what is built from it) is refused by name: its
    derivative is not an entry of a gradient, and 0 would be wrong."""
    for e in exprs:
        if isinstance(e, MatrixExpr):
            rows, cols = e.shape
            name = str(e) if e.is_symbol else f"({e})"
            raise SymgradError(
                f"{who} needs scalar {what}, but {e} is a {rows}×{cols} matrix expression "
                f"({type(e).__name__}), not a scalar; differentiate its entries: "
                f"sympy.Matrix({e}) is the Matrix of them (pass it to jacobian, or to grad "
                f"one entry at a time), and {name}[i, j] is one entry"
            )
    return exprs


def _stabilized(exprs: list, domain: Mapping | None) -> list:
    """``exprs`` lowered, with the rewrites that lose accuracy nowhere
    (None entries kept)."""
    if stabilized is None:  # only if symgrad.autodiff is loaded without its package
        raise SymgradError("grad(..., stabilize=True) needs symgrad's rewrites: import symgrad")
    at = [i for i, e in enumerate(exprs) if e is not None and not _is_matrix_formula(e)]
    done = stabilized([exprs[i] for i in at], domain)
    out = list(exprs)
    for i, e in zip(at, done):
        out[i] = e
    for i, e in enumerate(exprs):  # a matrix gradient: its scalar parts, structure kept
        if e is not None and _is_matrix_formula(e):
            out[i] = map_scalar_parts(e, lambda parts: stabilized(parts, None))
    return out


def _is_matrix_formula(e: Expr) -> bool:
    """A matrix formula, or a scalar formula over one (a trace, a sum)."""
    if isinstance(e, MatrixExpr):
        return True
    return isinstance(e, Expr) and any(isinstance(n, MatrixExpr)
                                       for n in postorder([e], lambda n: n.args)[0])


def jacobian(
    exprs: Expr | list | tuple | Matrix | NDimArray,
    wrt: Symbol | list | tuple | Matrix | NDimArray,
    *,
    convention: str = "ad",
    ties: str = "split",
) -> Matrix:
    """The Jacobian Matrix, one row per output, one column per symbol; a
    Matrix or Array of outputs (or of symbols) counts in row-major order.

    It runs reverse mode once per output or forward mode once per symbol,
    whichever is fewer passes.

    >>> from sympy import Array, symbols, exp
    >>> x, y = symbols("x y")
    >>> jacobian([x * y, exp(x)], [x, y])
    Matrix([
    [     y, x],
    [exp(x), 0]])
    >>> jacobian(Array([[x * y], [x]]), Array([x, y]))
    Matrix([
    [y, x],
    [1, 0]])
    """
    opts = Opts(convention, ties)
    outs, ostruct = flatten_exprs(exprs, "exprs")
    syms, sstruct = flatten_symbols(wrt)
    if has_matrix(outs, syms):  # JAX's shapes: output shape + variable shape
        note_differentiation()
        return tree_jacobian(outs, ostruct, syms, sstruct, opts)
    _scalars(outs, "jacobian", "expressions")
    note_differentiation()  # a use of every active override map
    m, n = len(outs), len(syms)
    rows = [[S.Zero] * n for _ in range(m)]
    if m <= n:
        for i in range(m):
            got = reverse(outs, [S.One if k == i else S.Zero for k in range(m)], syms, opts)
            rows[i] = [got.get(s, S.Zero) for s in syms]
    else:
        for j, s in enumerate(syms):
            col = forward(outs, {s: S.One}, opts)
            for i in range(m):
                rows[i][j] = S.Zero if col[i] is None else col[i]
    if _is_tree(ostruct) or _is_tree(sstruct):
        return tree_product(rows, ostruct, sstruct)
    return Matrix(m, n, [v for r in rows for v in r])


def _is_tree(st) -> bool:
    """A pytree beyond one flat sequence, Matrix or Array."""
    return bool(st.parts) or st.kind in ("dict", "namedtuple", "dataclass")


def hessian(
    expr: Expr,
    wrt: list | tuple | Matrix | NDimArray,
    *,
    convention: str = "ad",
    ties: str = "split",
) -> Matrix:
    """The Hessian, forward-over-reverse: one reverse pass for the gradient
    ``g``, then forward passes over it, each for a group of variables no
    entry of ``g`` depends on together (so a banded Hessian costs a few
    passes, not n).  Entry ``[i, j]`` is ∂gᵢ/∂sⱼ.

    With symgrad's own rules the mixed partials commute: the upper triangle
    is computed and mirrored, and the result is exactly symmetric.  A
    formula holding a rule of the user's (a custom gradient, a registered
    or mapped rule) may define a gradient that is not the gradient of any
    function; then both triangles are computed, so the answer does not
    depend on the order of ``wrt``.

    >>> from sympy import symbols, sin
    >>> x, y = symbols("x y")
    >>> hessian(x**2 * sin(y), [x, y])
    Matrix([
    [  2*sin(y), 2*x*cos(y)],
    [2*x*cos(y), -x**2*sin(y)]])
    """
    opts = Opts(convention, ties)
    outs, ostruct = flatten_exprs(expr, "expr")
    syms, sstruct = flatten_symbols(wrt)
    if has_matrix(syms) and ostruct.kind == "scalar" and sstruct.kind == "scalar":
        note_differentiation()  # one matrix symbol: shape W.shape + W.shape
        return matrix_hessian(outs[0], syms[0], opts)
    if has_matrix(syms) and ostruct.kind == "scalar":  # a tree holding matrix symbols
        note_differentiation()  # blocks ∂²/∂sᵢ∂sⱼ of shape sᵢ.shape + sⱼ.shape, as JAX nests
        g = matrix_vjp([as_scalar(outs[0], "hessian")], syms, [S.One], opts)
        return tree_jacobian(g, sstruct, syms, sstruct, opts)
    _scalars(outs, "hessian", "expressions")
    note_differentiation()  # a use of every active override map
    if ostruct.kind != "scalar":
        raise SymgradError(f"hessian needs a scalar expression but got {ostruct.describe()}")
    n = len(syms)
    got = reverse(outs, [S.One], syms, opts)
    g = [got.get(s, S.Zero) for s in syms]
    mirror = _builtin_rules_only([*outs, *g], opts)
    h = zeros(n, n)  # filled entry by entry: Matrix(rows) converts all n² entries
    for seeds, rows in _column_groups(g, syms):
        col = forward([g[i] for i, _ in rows], {syms[j]: S.One for j in seeds}, opts)
        for (i, j), v in zip(rows, col):
            if v is not None and not (mirror and i > j):
                h[i, j] = v
                if mirror:
                    h[j, i] = v
    if _is_tree(sstruct):
        return tree_product(h.tolist(), sstruct, sstruct)
    return h


def _column_groups(g: list, syms: list) -> list:
    """Columns of the Hessian that one forward pass can compute together:
    no gradient entry depends on two of them (Curtis, Powell and Reid's
    compression), so each entry's tangent is its partial in the one column
    of the group it depends on.  A banded Hessian needs as many passes as
    its band is wide, whatever n; a dense one, n.  Returns ``(columns,
    [(row, column), ...])`` per group."""
    deps = _dependence(g, frozenset(syms))
    rows_of: dict = {}
    for i, d in enumerate(deps):
        for s in d:
            rows_of.setdefault(s, []).append(i)
    groups: list = []  # [columns, {row: column}]
    for j, s in enumerate(syms):
        rows = rows_of.get(s)
        if not rows:
            continue
        group = next((gr for gr in groups if gr[1].keys().isdisjoint(rows)), None)
        if group is None:
            group = ([], {})
            groups.append(group)
        group[0].append(j)
        group[1].update(dict.fromkeys(rows, j))
    return [(cols, sorted(owner.items())) for cols, owner in groups]


def _builtin_rules_only(roots: list, opts: Opts) -> bool:
    """Whether every node of ``roots`` is differentiated by a rule symgrad
    ships (or SymPy's own derivative): then second derivatives commute."""
    order, _ = postorder(roots, lambda e: e.args if isinstance(e, Expr) else ())
    for node in order:
        if not node.args or not isinstance(node, Expr):
            continue
        rule = resolve(node, opts)
        if rule not in BUILTIN_RULES and not isinstance(rule, _SYMPY_RULES):
            return False
    return True


def _dependence(exprs: list, syms: frozenset) -> list[frozenset]:
    """The symbols of ``syms`` each expression holds, over their shared DAG
    (each distinct node once)."""
    order, kids = postorder(exprs, lambda e: e.args)
    dep: dict = {}
    empty: frozenset = frozenset()
    for node in order:
        ks = kids[node]
        if not ks:
            dep[node] = frozenset((node,)) if node in syms else empty
            continue
        sets = [dep[k] for k in ks if dep[k]]
        dep[node] = sets[0].union(*sets[1:]) if sets else empty
    return [dep[e] for e in exprs]


def jvp(
    exprs: Expr | list | tuple | Matrix | NDimArray,
    wrt: Symbol | list | tuple | Matrix | NDimArray,
    tangents: Expr | list | tuple | Matrix | NDimArray,
    *,
    convention: str = "ad",
    ties: str = "split",
) -> Expr | tuple | Matrix | NDimArray:
    """The Jacobian-vector product J·v, by forward mode; ``tangents`` has
    the shape of ``wrt``, the result the shape of ``exprs`` (a Matrix or
    Array comes back as one of the same shape).

    >>> from sympy import Array, symbols, sin
    >>> x, y, u, v = symbols("x y u v")
    >>> jvp(x * sin(y), [x, y], [u, v])
    u*sin(y) + v*x*cos(y)
    >>> jvp(Array([[x * y, x]]), Array([x, y]), Array([u, v]))
    [[u*y + v*x, u]]
    """
    opts = Opts(convention, ties)
    outs, ostruct = flatten_exprs(exprs, "exprs")
    syms, sstruct = flatten_symbols(wrt)
    ts, tstruct = flatten_exprs(whole_matrices(tangents, wrt), "tangents")
    if has_matrix(outs, syms, ts):  # matrix formulas: tangents of their shapes
        note_differentiation()
        check_same(sstruct, tstruct, "tangents", "wrt")
        return ostruct.build(matrix_jvp(outs, syms, ts, opts))
    _scalars(outs, "jvp", "expressions")
    note_differentiation()  # a use of every active override map
    _scalars(ts, "jvp", "tangents")
    check_same(sstruct, tstruct, "tangents", "wrt")
    seeds: dict[Symbol, Expr] = {}
    for s, t in zip(syms, ts):
        seeds[s] = seeds[s] + t if s in seeds else t
    res = forward(outs, seeds, opts)
    return ostruct.build([S.Zero if r is None else r for r in res])


def vjp(
    exprs: Expr | list | tuple | Matrix | NDimArray,
    wrt: Symbol | list | tuple | Matrix | NDimArray,
    cotangents: Expr | list | tuple | Matrix | NDimArray,
    *,
    convention: str = "ad",
    ties: str = "split",
) -> Expr | tuple | Matrix | NDimArray:
    """The vector-Jacobian product uᵀ·J, by reverse mode; ``cotangents``
    has the shape of ``exprs``, the result the shape of ``wrt`` (a Matrix
    or Array comes back as one of the same shape).

    >>> from sympy import Matrix, symbols, sin
    >>> x, y, u = symbols("x y u")
    >>> vjp(x * sin(y), [x, y], u)
    [u*sin(y), u*x*cos(y)]
    >>> vjp(Matrix([[x * y, x]]), Matrix([[x, y]]), Matrix([[u, 1]]))
    Matrix([[u*y + 1, u*x]])
    """
    opts = Opts(convention, ties)
    outs, ostruct = flatten_exprs(exprs, "exprs")
    syms, sstruct = flatten_symbols(wrt)
    cts, cstruct = flatten_exprs(
        whole_matrices(cotangents, exprs, "cotangents", "exprs"), "cotangents")
    if has_matrix(outs, syms, cts):  # matrix formulas: cotangents of their shapes
        note_differentiation()
        check_same(ostruct, cstruct, "cotangents", "exprs")
        return sstruct.build(matrix_vjp(outs, syms, cts, opts))
    _scalars(outs, "vjp", "expressions")
    note_differentiation()  # a use of every active override map
    _scalars(cts, "vjp", "cotangents")
    check_same(ostruct, cstruct, "cotangents", "exprs")
    got = reverse(outs, cts, syms, opts)
    return sstruct.build([got.get(s, S.Zero) for s in syms])
