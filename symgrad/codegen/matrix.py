"""Code for matrix formulas: straight-line NumPy over the matrix DAG.

Every ``MatrixSymbol`` argument is an array whose last two axes are the
symbol's shape; leading axes are a batch, broadcast as ``np.matmul`` does.
A scalar is carried as an array of shape ``batch + (1, 1)`` (so it
broadcasts against matrices) and returned without those two axes.  One
statement per distinct node:

* products are ``@`` (BLAS); a product with a ones matrix 𝟙 is a sum
  along an axis (or a broadcast view), never a multiplication by ones;
* inverses and determinants are ``np.linalg.inv``/``det`` (batched);
* transposes swap the last two axes (a view); sums, entrywise products and
  powers are NumPy's; an elementwise function is its scalar formula over
  the whole array (lowered, in its accurate form);
* reductions are in their stable forms: the maximum is taken out of every
  exponential (logsumexp, softmax, log_softmax), with the rounding of
  ``x - max`` undone (TwoSum) so that ``exp`` does not amplify it; the norm
  is scaled by the largest magnitude.
"""

from __future__ import annotations

from collections.abc import Callable

from sympy import (
    Basic,
    Determinant,
    Expr,
    HadamardPower,
    HadamardProduct,
    Identity,
    Inverse,
    Lambda,
    MatAdd,
    MatMul,
    MatPow,
    MatrixBase,
    MatrixExpr,
    MatrixSymbol,
    OneMatrix,
    Symbol,
    Trace,
    Transpose,
    ZeroMatrix,
)
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
from sympy.matrices.expressions.matexpr import MatrixElement

from ..errors import SymgradError
from ..graph import postorder
from ..lowering import lower
from ..matrices.nodes import (
    LogSoftmax,
    LogSumExpAll,
    LogSumExpAxis,
    NormAll,
    Softmax,
    SumAll,
    SumAxis,
    axis_of,
)
from ..rewrites import accurate_forms
from ..shapes import flatten_exprs
from .compiled import load
from .names import Namer
from .printer import KernelPrinter

__all__ = ["is_matrix_program", "matrix_lambdify", "matrix_code"]


def is_matrix_program(args: object, exprs: object) -> bool:
    """Whether ``args`` hold a MatrixSymbol or ``exprs`` a matrix formula."""
    items = list(args) if isinstance(args, (list, tuple)) else [args]
    if any(isinstance(a, MatrixSymbol) for a in items):
        return True
    outs = exprs if isinstance(exprs, (list, tuple)) else [exprs]
    return any(isinstance(e, MatrixExpr) for e in outs)


def _ax(axis: int | None, shape: tuple | None = None) -> str:
    """The array axes of a reduction; over all entries of a vector, only
    its long axis (NumPy reduces one axis faster than two)."""
    if axis is None and shape is not None:
        if shape[1] == 1:
            return "-2"
        if shape[0] == 1:
            return "-1"
    return "(-2, -1)" if axis is None else ("-2" if axis == 0 else "-1")


def _kids(node: Basic) -> tuple:
    if isinstance(node, (MatrixSymbol, Symbol)) or not node.args:
        return ()
    if isinstance(node, ElementwiseApplyFunction):
        lam = node.args[0]
        return (node.args[1], *sorted(lam.expr.free_symbols - set(lam.variables), key=str))
    if isinstance(node, MatPow):
        return (node.args[0],)
    if isinstance(node, (MatrixElement,)):
        return (node.args[0],)
    if isinstance(node, (OneMatrix, Identity, ZeroMatrix, MatrixBase)):
        return ()
    if isinstance(node, (SumAxis, LogSumExpAxis, Softmax, LogSoftmax, HadamardPower)):
        return (node.args[0],)
    if isinstance(node, MatAdd):  # a - b, not a + (-1)*b
        return tuple(_negated(a) or a for a in node.args)
    if isinstance(node, MatMul):  # 𝟙 factors are sums and broadcasts, not arrays
        return tuple(a for a in node.args if isinstance(a, Expr) and not a.is_number
                     and not isinstance(a, OneMatrix))
    return tuple(a for a in node.args if isinstance(a, Expr))


def _negated(term: Basic) -> Basic | None:
    """b where ``term`` is -b."""
    if isinstance(term, MatMul) and term.args[0] == -1:
        rest = term.args[1:]
        return rest[0] if len(rest) == 1 else MatMul(*rest)
    return None


class _Emitter:
    def __init__(self, names: dict, namer: Namer) -> None:
        self.names = dict(names)
        self.namer = namer
        self.temps = namer.temps()
        self.lines: list[str] = []
        self.printer = KernelPrinter(complex_=False)
        self.shifted: dict = {}

    def name(self, node: Basic) -> str:
        return self.names[node]

    def emit(self, node: Basic, code: str) -> None:
        t = next(self.temps)
        self.lines.append(f"{t} = {code}")
        self.names[node] = t

    def scalar_code(self, e: Expr, subs: dict) -> str:
        """A scalar formula over names (``subs``: node -> name)."""
        placeholders = {k: Symbol(v) for k, v in subs.items()}
        e = e.xreplace(placeholders) if placeholders else e
        e = accurate_forms(lower([e]))[0]
        return self.printer.doprint(e)

    # -- one node ---------------------------------------------------------
    def node(self, n: Basic) -> None:  # noqa: C901 - one case per node kind
        nm = self.name
        if isinstance(n, MatMul):
            self._matmul(n)
        elif isinstance(n, MatAdd):
            pos = [nm(a) for a in n.args if _negated(a) is None]
            neg = [nm(_negated(a)) for a in n.args if _negated(a) is not None]
            code = " + ".join(pos) if pos else "-" + neg.pop(0)
            self.emit(n, code + "".join(f" - {b}" for b in neg))
        elif isinstance(n, MatPow):
            self.emit(n, f"np.linalg.matrix_power({nm(n.args[0])}, {int(n.args[1])})")
        elif isinstance(n, Transpose):
            self.emit(n, f"np.swapaxes({nm(n.arg)}, -1, -2)")
        elif isinstance(n, HadamardProduct):
            self.emit(n, "*".join(nm(a) for a in n.args))
        elif isinstance(n, HadamardPower):
            self.emit(n, f"{nm(n.args[0])}**{self.printer.doprint(n.args[1])}")
        elif isinstance(n, ElementwiseApplyFunction):
            lam: Lambda = n.args[0]
            subs = {k: nm(k) for k in _kids(n)[1:]}  # f's parameters
            subs[lam.variables[0]] = nm(n.args[1])
            self.emit(n, self.scalar_code(lam.expr, subs))
        elif isinstance(n, Inverse):
            self.emit(n, f"np.linalg.inv({nm(n.arg)})")
        elif isinstance(n, Determinant):
            self.emit(n, f"np.linalg.det({nm(n.arg)})[..., None, None]")
        elif isinstance(n, Trace):
            self.emit(n, f"np.trace({nm(n.arg)}, axis1=-2, axis2=-1)[..., None, None]")
        elif isinstance(n, MatrixElement):
            i, j = int(n.args[1]), int(n.args[2])
            self.emit(n, f"{nm(n.args[0])}[..., {i}:{i + 1}, {j}:{j + 1}]")
        elif isinstance(n, (SumAll, SumAxis)):
            ax = _ax(axis_of(n), n.args[0].shape)
            self.emit(n, f"np.sum({nm(n.args[0])}, axis={ax}, keepdims=True)")
        elif isinstance(n, (LogSumExpAll, LogSumExpAxis, Softmax, LogSoftmax)):
            self._exp_family(n)
        elif isinstance(n, NormAll):
            self.emit(n, f"_norm({nm(n.args[0])})")
        elif isinstance(n, (OneMatrix, Identity, ZeroMatrix)):
            m, k = (int(d) for d in n.shape)
            make = {OneMatrix: f"np.ones(({m}, {k}))", ZeroMatrix: f"np.zeros(({m}, {k}))",
                    Identity: f"np.eye({m})"}[type(n)]
            self.emit(n, make)
        elif isinstance(n, MatrixBase):
            rows = [[self.scalar_code(v, {}) for v in n.row(i)] for i in range(n.rows)]
            self.emit(n, "_stack([" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "])")
        elif isinstance(n, MatrixExpr):
            raise SymgradError(f"lambdify: no code for the matrix node {n} "
                               f"({type(n).__name__})")
        else:  # a scalar node over named children
            kids = {k: nm(k) for k in _kids(n)}
            self.emit(n, self.scalar_code(n.func(*[Symbol(kids[a]) if a in kids else a
                                                   for a in n.args]), {}))

    def _matmul(self, n: MatMul) -> None:
        scal = [a for a in n.args if not getattr(a, "is_Matrix", False)]
        mats = [a for a in n.args if getattr(a, "is_Matrix", False)]
        code = self._product(mats)
        if scal:
            c = "*".join(self.name(a) if a in self.names else
                         f"({self.scalar_code(a, {})})" for a in scal)
            code = f"-{code}" if c == "(-1)" else f"{c}*{code}"
        self.emit(n, code)

    def _product(self, mats: list) -> str:
        """A chain of products; 𝟙 factors become sums and broadcasts."""
        out = None  # (code, shape)
        for M in mats:
            if out is None:
                out = (self.name(M) if not isinstance(M, OneMatrix) else None, M.shape, M)
                continue
            code, shape, prev = out
            if isinstance(M, OneMatrix):  # X·𝟙(k, n): row sums, repeated n times
                s = f"np.sum({code}, axis=-1, keepdims=True)"
                n = int(M.shape[1])
                code = s if n == 1 else f"_spread({s}, -1, {n})"
            elif code is None:  # 𝟙(m, k)·Y: column sums of Y, repeated m times
                m, k = (int(d) for d in prev.shape)
                y = self.name(M)
                s = y if k == 1 else f"np.sum({y}, axis=-2, keepdims=True)"
                code = s if m == 1 else f"_spread({s}, -2, {m})"
            else:
                code = f"({code} @ {self.name(M)})"
            out = (code, (shape[0], M.shape[1]), M)
        code = out[0]
        return code if code is not None else f"np.ones(({int(out[1][0])}, {int(out[1][1])}))"

    def _shifted(self, X: Basic, ax: str) -> tuple[str, str, str]:
        """m, exp(x - m) and its sum along ``ax``, computed once per
        argument and axis (logsumexp, softmax and log_softmax share them)."""
        key = (X, ax)
        if key not in self.shifted:
            a = self.name(X)
            m, e, s = next(self.temps), next(self.temps), next(self.temps)
            self.lines += [f"{m} = _finite_max({a}, {ax})", f"{e} = _exp_shift({a}, {m})",
                           f"{s} = _along(np.add, {e}, {ax})"]
            self.shifted[key] = (m, e, s)
        return self.shifted[key]

    def _rest(self, X: Basic, ax: str) -> str:
        """Σ exp(x - m) - 1 with the terms at the maximum counted apart
        (log1p of it keeps log_softmax's bits where one logit dominates)."""
        key = (X, ax, "rest")
        if key not in self.shifted:
            a = self.name(X)
            m, e, _ = self._shifted(X, ax)
            r = next(self.temps)
            self.lines.append(f"{r} = _rest({a}, {m}, {e}, {ax})")
            self.shifted[key] = r
        return self.shifted[key]

    def _exp_family(self, n: Basic) -> None:
        a = self.name(n.args[0])
        ax = _ax(axis_of(n), n.args[0].shape)
        m, e, s = self._shifted(n.args[0], ax)
        if isinstance(n, Softmax):
            self.emit(n, f"{e}/{s}")
        elif isinstance(n, LogSoftmax):
            self.emit(n, f"({a} - {m}) - np.log1p({self._rest(n.args[0], ax)})")
        else:
            self.emit(n, f"{m} + np.log1p({self._rest(n.args[0], ax)})")


_HELPERS = '''
def _along(op, a, axis):
    """op-reduction along one short axis (-1 or -2), kept: NumPy's own
    reduction over a short inner axis is slow, a few whole-array ops are not."""
    if isinstance(axis, tuple) or a.shape[axis] > 32:
        return op.reduce(a, axis=axis, keepdims=True)
    take = (lambda k: a[..., k:k + 1, :]) if axis == -2 else (lambda k: a[..., k:k + 1])
    out = take(0).copy()
    for k in range(1, a.shape[axis]):
        op(out, take(k), out=out)
    return out


def _finite_max(a, axis):
    """The maximum along axis, 0 where it is not finite (all -inf, or inf)."""
    m = _along(np.maximum, a, axis)
    return np.where(np.isfinite(m), m, 0.0)


def _exp_shift(a, m):
    """exp(a - m), the rounding of a - m undone: with d + lo = a - m exactly
    (Knuth's TwoSum), exp(a - m) = exp(d)*(1 + lo) to within an ulp.  The
    rounding of d alone (up to |d|/2 ulps of d, hundreds where logits are
    hundreds apart) would be amplified by exp into as many ulps of the result."""
    d = a - m
    b = d - a
    lo = (a - (d - b)) - (m + b)
    return np.exp(d)*(1.0 + np.where(np.isfinite(lo), lo, 0.0))


def _rest(a, m, e, axis):
    """Σ exp(a - m) - 1 along axis, the terms at the maximum counted apart."""
    top = a == m
    return _along(np.add, np.where(top, 0.0, e), axis) + (_along(np.add, top * 1.0, axis) - 1)


def _norm(a):
    """sqrt(sum(a**2)) scaled by the largest magnitude: no overflow or underflow."""
    s = np.max(np.abs(a), axis=(-2, -1), keepdims=True)
    safe = np.where(s > 0, s, 1.0)
    return np.where(s > 0, s*np.sqrt(np.sum((a/safe)**2, axis=(-2, -1), keepdims=True)), 0.0)


def _spread(a, axis, n):
    """a (of length 1 along axis) repeated n times along it: a view."""
    shape = list(a.shape)
    shape[axis] = n
    return np.broadcast_to(a, tuple(shape))


def _stack(rows):
    return np.asarray(np.broadcast_arrays(*[v for r in rows for v in r])).reshape(
        (len(rows), len(rows[0])) + np.broadcast(*[v for r in rows for v in r]).shape)
'''


def _forward_formulas(roots: list) -> list:
    """``roots`` with each matrix custom_gradient call replaced by its forward
    formula (its ``_symgrad_forward``), calls inside calls too."""
    for _ in range(32):  # a call's formula may hold further calls
        order, _ = postorder(roots, lambda n: () if isinstance(n, (Symbol, MatrixSymbol))
                             else n.args)
        calls = {n: n._symgrad_forward() for n in order if hasattr(n, "_symgrad_forward")}
        if not calls:
            return roots
        roots = [r.xreplace(calls) for r in roots]
    raise SymgradError("lambdify: custom_gradient calls nested more than 32 deep")


def _program(args: object, exprs: object, fname: str) -> tuple[str, int]:
    items = list(args) if isinstance(args, (list, tuple)) else [args]
    namer = Namer(frozenset({"np", "_finite_max", "_norm", "_stack", "_spread", "_arg",
                             "_along", "_rest", "_exp_shift"}))
    names: dict = {}
    params = []
    for i, a in enumerate(items):
        if not isinstance(a, (Symbol, MatrixSymbol)):
            raise SymgradError(f"args[{i}] is {a!r} ({type(a).__name__}); with matrix "
                               "formulas, arguments are Symbols and MatrixSymbols")
        if a in names:
            raise SymgradError(f"args[{i}]: {a} appears twice in args")
        names[a] = namer.name(a.name)
        params.append(a)
    flat, struct = flatten_exprs(exprs, "exprs")
    flat = _forward_formulas(flat)
    em = _Emitter(names, namer)
    order, _ = postorder(flat, _kids)
    for n in order:
        if n in em.names:
            continue
        if not _kids(n) and not isinstance(n, (MatrixExpr, MatrixBase)):
            if isinstance(n, Symbol):
                raise SymgradError(f"lambdify: the formula holds {n}, which is not in args")
            if isinstance(n, MatrixSymbol):
                raise SymgradError(f"lambdify: the formula holds {n}, which is not in args")
            em.names[n] = f"({em.scalar_code(n, {})})"
            continue
        if isinstance(n, MatrixSymbol):
            raise SymgradError(f"lambdify: the formula holds {n}, which is not in args")
        em.node(n)
    head = [f"def {fname}({', '.join(names[p] for p in params)}):",
            '    """Generated by symgrad from a matrix formula."""']
    for p in params:
        v = names[p]
        if isinstance(p, MatrixSymbol):
            m, k = (int(d) for d in p.shape)
            head.append(f"    {v} = _arg({v}, ({m}, {k}), {p.name!r})")
        else:
            head.append(f"    {v} = np.asarray({v}, dtype=float)[..., None, None]")
    body = [f"    {line}" for line in em.lines]
    outs = []
    for e in flat:
        v = em.names[e]
        outs.append(v if isinstance(e, MatrixExpr) else f"{v}[..., 0, 0]")
    ret = outs[0] if struct.kind == "scalar" else (
        "(" + ", ".join(outs) + ("," if len(outs) == 1 else "") + ")")
    src = "\n".join(head + body + [f"    return {ret}"])
    arg_helper = '''
def _arg(a, shape, name):
    a = np.asarray(a, dtype=float)
    if a.shape[-2:] != shape:
        raise ValueError(f"argument {name}: expected an array whose last two axes are "
                         f"{shape} (leading axes are a batch), got shape {a.shape}")
    return a
'''
    return "import numpy as np\n" + _HELPERS + arg_helper + "\n\n" + src + "\n", len(em.lines)


def matrix_code(args: object, exprs: object, name: str = "f") -> str:
    """The NumPy source for a matrix formula (see the module)."""
    return _program(args, exprs, name)[0]


def matrix_lambdify(args: object, exprs: object) -> Callable:
    """A NumPy function of matrix formulas (see the module)."""
    source, n_ops = _program(args, exprs, "f")
    return load(source, "f", 1, n_ops)
