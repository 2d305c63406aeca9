"""Code for matrix formulas: straight-line NumPy over the matrix DAG.

Every ``MatrixSymbol`` argument is an array whose last two axes are the
symbol's shape; leading axes are a batch, broadcast as ``np.matmul`` does.
A scalar is carried as an array of shape ``batch + (1, 1)`` (so it
broadcasts against matrices) and returned without those two axes.  The
module has a kernel, ``f_block(*args, _dt)``, one statement per distinct
node:

* products are ``@`` (BLAS); a product with a ones matrix 𝟙 is a sum
  along an axis (or a broadcast view), never a multiplication by ones;
* inverses and determinants are ``np.linalg.inv``/``det`` (batched);
* transposes swap the last two axes (a view); sums, entrywise products and
  powers are NumPy's; an elementwise function is its scalar formula over
  the whole array (lowered, in its accurate form);
* reductions are in their stable forms: the maximum is taken out of every
  exponential (logsumexp, softmax, log_softmax) without keeping the
  rounding of ``x - max``, which ``exp`` would amplify; the norm is scaled
  by the largest magnitude;

and an entry, ``f(*args)``.  ``lambdify``'s entry (:mod:`.matrix_entry`)
converts the arguments to their common float type (float32 stays float32;
constants are cast) and runs the kernel on blocks of the first batch axis
that stay in the cache; its kernel writes a sum or product into an array
it allocated and no longer reads, computes ``exp(x - max)`` as
``exp(x)*exp(-max)`` where both are normal floats (else from the exact
pair ``x - max``), and recomputes ``logsumexp`` from pairs of floats where
it is near 0.  ``matrix_code``'s plain entry (what ``numpy_code`` shows
and the export runs over ``jax.numpy`` and tensors) converts to float and
calls the plain kernel once (:mod:`.matrix_helpers` only).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
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
    NormAxis,
    Softmax,
    SumAll,
    SumAxis,
    axis_of,
)
from ..rewrites import accurate_forms, safe_forms
from ..shapes import flatten_exprs
from . import matrix_entry, matrix_helpers
from .compensating import COMPENSATED_HELPERS
from .compiled import load
from .names import Namer
from .printer import KernelPrinter
from .texts import module_text

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
    if isinstance(node, MatrixBase):  # its entries: scalar nodes of the program
        return tuple(dict.fromkeys(v for v in node if isinstance(v, Expr) and not v.is_number))
    if isinstance(node, (OneMatrix, Identity, ZeroMatrix)):
        return ()
    if isinstance(node, (SumAxis, LogSumExpAxis, NormAxis, Softmax, LogSoftmax, HadamardPower)):
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


def _computes(code: str) -> bool:
    """Whether the scalar code ``code`` allocates its result: it is not a
    name, nor a call that may give back its argument or a view of it."""
    bare = code.strip("()")
    return not (_NAME.fullmatch(bare) or bare.startswith(("np.asarray(", "np.real(",
                                                           "np.imag(", "_cast(")))


_OPS = {"+": "np.add", "-": "np.subtract", "*": "np.multiply", "/": "np.divide"}
_NAME = re.compile(r"[A-Za-z_]\w*")


class _Stmt:
    """One statement: ``target = code``.  ``fresh``: the value is an array
    the statement allocates (never a view of, or the same array as, another
    name); ``chain``: the code is ``first op x op y ...`` (``(first, [(op,
    name), ...])``), which may be computed into ``first`` once it is dead."""

    __slots__ = ("target", "code", "fresh", "chain")

    def __init__(self, target: str, code: str, fresh: bool, chain: tuple | None) -> None:
        self.target, self.code, self.fresh, self.chain = target, code, fresh, chain


class _Emitter:
    def __init__(self, names: dict, namer: Namer, inplace: bool = False,
                 safe: bool = False, near_zero: bool = False) -> None:
        self.names = dict(names)
        self.namer = namer
        self.temps = namer.temps()
        self.stmts: list[_Stmt] = []
        self.printer = KernelPrinter(complex_=False)
        self.shifted: dict = {}
        self.inplace = inplace
        self.safe = safe  # lambdify(stabilize=True): the safe rewrites too
        # logsumexp recomputed near its zero by _lse_near_zero: lambdify's NumPy
        # code (inplace) has it; plain code only on request (the export supplies it)
        self.near_zero = inplace or near_zero
        self.uses_pairs = False  # the code calls compensated arithmetic's pair helpers
        # (argument, axis) of a logsumexp or log_softmax: the maximum and the
        # exponentials are computed once and shared with a softmax of them
        self.shares: set = set()

    def name(self, node: Basic) -> str:
        return self.names[node]

    def emit(self, node: Basic | None, code: str, fresh: bool = False,
             chain: tuple | None = None) -> str:
        t = next(self.temps)
        self.stmts.append(_Stmt(t, code, fresh, chain))
        if node is not None:
            self.names[node] = t
        return t

    def emit_chain(self, node: Basic, first: str, ops: list) -> None:
        """``first op₁ x₁ op₂ x₂ ...`` (left to right): a fresh array once
        there is an operation.  Operands of ``+`` and ``*`` may change
        places with ``first`` (a sum's or an entrywise product's order)."""
        code = first + "".join(f" {op} {x}" if op in "+-" else f"{op}{x}" for op, x in ops)
        self.emit(node, code, fresh=bool(ops), chain=(first, ops) if ops else None)

    def lines(self, outputs: list[str]) -> list[str]:
        """The statements; with ``inplace``, a chain whose first operand is a
        fresh array no later statement or output reads (directly or through
        a name that may share its memory) is computed into it."""
        if not self.inplace:
            return [f"{st.target} = {st.code}" for st in self.stmts]
        fresh = {st.target for st in self.stmts if st.fresh}
        uses = [set(_NAME.findall(st.code)) for st in self.stmts]
        last = dict.fromkeys(outputs, len(self.stmts))  # name -> last statement reading it
        for i in range(len(self.stmts) - 1, -1, -1):
            st = self.stmts[i]
            seen = last.get(st.target, -1)
            for u in uses[i]:
                # a statement that is not fresh may share its operands' memory
                reach = i if st.fresh else max(i, seen)
                last[u] = max(last.get(u, -1), reach)
        out = []
        for i, st in enumerate(self.stmts):
            code = st.code
            if st.chain is not None:
                first, ops = st.chain
                dead = [x for x in [first] + [x for op, x in ops if op in "+*"]
                        if x in fresh and last.get(x, -1) <= i]
                if dead:
                    into = dead[0]
                    if into != first:  # it changes places with the first operand
                        k = next(k for k, (op, x) in enumerate(ops) if x == into)
                        ops = [*ops[:k], (ops[k][0], first), *ops[k + 1:]]
                    cur = into
                    for op, x in ops:
                        cur = f"_ip({_OPS[op]}, {cur}, {x})"
                    code = cur
            out.append(f"{st.target} = {code}")
        return out

    def scalar_code(self, e: Expr, subs: dict) -> str:
        """A scalar formula over names (``subs``: node -> name)."""
        placeholders = {k: Symbol(v) for k, v in subs.items()}
        e = e.xreplace(placeholders) if placeholders else e
        # an entry of a matrix ranges over all floats (no box bounds W*x)
        e = (safe_forms if self.safe else accurate_forms)(lower([e]))[0]
        return self.printer.doprint(e)

    # -- one node ---------------------------------------------------------
    def node(self, n: Basic) -> None:  # noqa: C901 - one case per node kind
        nm = self.name
        if isinstance(n, MatMul):
            self._matmul(n)
        elif isinstance(n, MatAdd):
            pos = [nm(a) for a in n.args if _negated(a) is None]
            neg = [nm(_negated(a)) for a in n.args if _negated(a) is not None]
            if pos:
                self.emit_chain(n, pos[0], [("+", a) for a in pos[1:]]
                                + [("-", b) for b in neg])
            else:
                self.emit(n, "-" + neg[0] + "".join(f" - {b}" for b in neg[1:]), fresh=True)
        elif isinstance(n, MatPow):
            self.emit(n, f"np.linalg.matrix_power({nm(n.args[0])}, {int(n.args[1])})")
        elif isinstance(n, Transpose):
            self.emit(n, f"np.swapaxes({nm(n.arg)}, -1, -2)")
        elif isinstance(n, HadamardProduct):
            self.emit_chain(n, nm(n.args[0]), [("*", nm(a)) for a in n.args[1:]])
        elif isinstance(n, HadamardPower):
            self.emit(n, f"{nm(n.args[0])}**{self.printer.doprint(n.args[1])}", fresh=True)
        elif isinstance(n, ElementwiseApplyFunction):
            lam: Lambda = n.args[0]
            subs = {k: nm(k) for k in _kids(n)[1:]}  # f's parameters
            subs[lam.variables[0]] = nm(n.args[1])
            code = self.scalar_code(lam.expr, subs)
            if lam.variables[0] not in lam.expr.free_symbols:  # a constant: of X's shape
                code = f"np.zeros_like({nm(n.args[1])}) + ({code})"
            self.emit(n, code, fresh=_computes(code))
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
        elif isinstance(n, NormAxis):
            self.emit(n, f"_norm({nm(n.args[0])}, {_ax(axis_of(n))})")
        elif isinstance(n, (OneMatrix, Identity, ZeroMatrix)):
            m, k = (int(d) for d in n.shape)
            make = {OneMatrix: f"np.ones(({m}, {k}))", ZeroMatrix: f"np.zeros(({m}, {k}))",
                    Identity: f"np.eye({m})"}[type(n)]
            self.emit(n, f"_cast({make}, _dt)")
        elif isinstance(n, MatrixBase):
            # each entry by its name: an array (batch, 1, 1) computed as the program's other
            # scalar nodes (SymPy's printer over a whole entry printed an element of a
            # matrix product as np.dot(...)[0, 0]: the batch's axes indexed, not the matrix's)
            rows = [[self.scalar_code(v, {}) if v.is_number else nm(v) for v in n.row(i)]
                    for i in range(n.rows)]
            self.emit(n, "_cast(_stack([" + ", ".join("[" + ", ".join(r) + "]" for r in rows)
                      + "]), _dt)")
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
        # a product or a sum allocates; a broadcast view or a name does not
        self.emit(n, code, fresh=not (code.startswith("_spread(") or _NAME.fullmatch(code)))

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
        if code is not None:
            return code
        return f"_cast(np.ones(({int(out[1][0])}, {int(out[1][1])})), _dt)"

    def _shifted(self, X: Basic, ax: str) -> tuple[str, str, str]:
        """m, exp(x - m) and its sum along ``ax``, computed once per
        argument and axis (logsumexp, softmax and log_softmax share them)."""
        key = (X, ax)
        if key not in self.shifted:
            a = self.name(X)
            shift = "_exp_shift_into" if self.inplace else "_exp_shift"
            m = self.emit(None, f"_finite_max({a}, {ax})", fresh=True)
            e = self.emit(None, f"{shift}({a}, {m})", fresh=True)
            s = self.emit(None, f"_along(np.add, {e}, {ax})", fresh=True)
            self.shifted[key] = (m, e, s)
        return self.shifted[key]

    def _rest(self, X: Basic, ax: str) -> str:
        """Σ exp(x - m) - 1 with the terms at the maximum counted apart
        (log1p of it keeps log_softmax's bits where one logit dominates)."""
        key = (X, ax, "rest")
        if key not in self.shifted:
            a = self.name(X)
            m, e, _ = self._shifted(X, ax)
            rest = "_rest_into" if self.inplace else "_rest"
            self.shifted[key] = self.emit(None, f"{rest}({a}, {m}, {e}, {ax})", fresh=True)
        return self.shifted[key]

    def _exp_family(self, n: Basic) -> None:
        a = self.name(n.args[0])
        ax = _ax(axis_of(n), n.args[0].shape)
        if isinstance(n, Softmax) and self.inplace and (n.args[0], ax) not in self.shares:
            self.emit(n, f"_softmax_into({a}, {ax})", fresh=True)
            return
        m, e, s = self._shifted(n.args[0], ax)
        if isinstance(n, Softmax):
            self.emit_chain(n, e, [("/", s)])
        elif isinstance(n, LogSoftmax):
            self.emit(n, f"({a} - {m}) - np.log1p({self._rest(n.args[0], ax)})", fresh=True)
        else:
            lse = self.emit(None if self.near_zero else n,
                            f"{m} + np.log1p({self._rest(n.args[0], ax)})", fresh=True)
            if self.near_zero:  # accurate near its zero too (pairs of floats there)
                self.uses_pairs |= self.inplace  # the plain code's caller supplies them
                self.emit(n, f"_lse_near_zero({a}, {m}, {lse}, {ax})", fresh=True)


_HELPERS = module_text(matrix_helpers)
_ENTRY_HELPERS = module_text(matrix_entry)


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


def _tuple(names: list[str]) -> str:
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


_RESERVED = frozenset({"np", "_finite_max", "_norm", "_stack", "_spread", "_arg", "_along",
                       "_rest", "_exp_shift", "_cast", "_dtype", "_blocked", "_dt", "_o",
                       "_ip", "_exp_shift_into", "_rest_into", "_softmax_into",
                       "_lse_near_zero", "_exp_pair", "_pair_sum"})


def _program(args: object, exprs: object, fname: str, entry: dict | None = None,
             near_zero: bool = False) -> tuple[str, int]:
    """The module of a matrix formula: its kernel ``<fname>_block(*args, _dt)``
    (one statement per node; the outputs as arrays with the two matrix axes)
    and ``<fname>(*args)``, which converts the arguments and calls it.  With
    ``entry`` (``{"dtype": ..., "block": ...}``: lambdify's) the arguments are
    converted to their common float type and the kernel runs on blocks of the
    first batch axis; without, as ``float`` in one call (the plain form the
    export runs over ``jax.numpy`` and tensors)."""
    items = list(args) if isinstance(args, (list, tuple)) else [args]
    namer = Namer(_RESERVED)
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
    kernel = namer.name(f"{fname}_block")
    flat, struct = flatten_exprs(exprs, "exprs")
    flat = _forward_formulas(flat)
    em = _Emitter(names, namer, inplace=entry is not None,
                  safe=entry is not None and entry.get("stabilize", False), near_zero=near_zero)
    order, _ = postorder(flat, _kids)
    em.shares = {(n.args[0], _ax(axis_of(n), n.args[0].shape)) for n in order
                 if isinstance(n, (LogSumExpAll, LogSumExpAxis, LogSoftmax))}
    cells = 1  # the most entries of one node (a batch element's)
    for n in order:
        if getattr(n, "is_Matrix", False):
            cells = max(cells, int(n.shape[0]) * int(n.shape[1]))
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
    pnames = [names[p] for p in params]
    raw = [em.names[e] for e in flat]
    for k, e in enumerate(flat):  # a constant output: an array like the others
        if not isinstance(e, MatrixExpr) and not _NAME.fullmatch(raw[k]) and not _kids(e):
            raw[k] = em.emit(None, f"_cast(np.full((1, 1), {raw[k]}, dtype=float), _dt)",
                             fresh=True)
    kern = [f"def {kernel}({', '.join([*pnames, '_dt'])}):",
            *[f"    {line}" for line in em.lines(raw)],
            f"    return ({', '.join(raw)},)"]
    head = [f"def {fname}({', '.join(pnames)}):",
            '    """Generated by symgrad from a matrix formula."""']
    dt = "float"
    if entry is not None:
        head.append(f"    _dt = _dtype({_tuple(pnames)}, {entry['dtype']!r})")
        dt = "_dt"
    for p in params:
        v = names[p]
        if isinstance(p, MatrixSymbol):
            m, k = (int(d) for d in p.shape)
            shape_dt = f"({m}, {k}), {p.name!r}" + (", _dt" if entry is not None else "")
            head.append(f"    {v} = _arg({v}, {shape_dt})")
        else:
            head.append(f"    {v} = np.asarray({v}, dtype={dt})[..., None, None]")
    call = f"{kernel}({''.join(v + ', ' for v in pnames)}None)"
    if entry is not None:
        call = f"_blocked({kernel}, {_tuple(pnames)}, _dt, {cells}, {entry['block']!r})"
    head.append(f"    _o = {call}")
    outs = [f"_o[{i}]" if isinstance(e, MatrixExpr) else f"_o[{i}][..., 0, 0]"
            for i, e in enumerate(flat)]
    ret = outs[0] if struct.kind == "scalar" else (
        "(" + ", ".join(outs) + ("," if len(outs) == 1 else "") + ")")
    src = "\n".join(kern) + "\n\n\n" + "\n".join([*head, f"    return {ret}"])
    helpers = _HELPERS if entry is None else _HELPERS + "\n\n" + _ENTRY_HELPERS
    if em.uses_pairs:
        helpers += "\n\n" + COMPENSATED_HELPERS
    return "import numpy as np\n\n" + helpers + "\n\n" + src + "\n", len(em.stmts)


def matrix_code(args: object, exprs: object, name: str = "f", near_zero: bool = False) -> str:
    """The NumPy source for a matrix formula (see the module), in its plain
    form: arguments as float arrays, no blocks.  With ``near_zero`` each
    logsumexp is passed through ``_lse_near_zero(a, m, lse, axis)``, which
    the caller defines (the export's recomputes it from pairs of floats near
    0, as lambdify's code does)."""
    return _program(args, exprs, name, near_zero=near_zero)[0]


def matrix_lambdify(args: object, exprs: object, dtype: object = None,
                    block: int | None = 1 << 14, stabilize: bool = False) -> Callable:
    """A NumPy function of matrix formulas (see the module): results in
    ``dtype`` (default: the arguments' common float type, so float32 stays
    float32), computed ``block`` entries of the largest node at a time
    along the first batch axis (``None``: in one call); ``stabilize``: the
    scalar parts (elementwise formulas, explicit entries) in their safe
    forms over all floats, as ``lambdify(stabilize=True)``."""
    dt = None if dtype is None else np.dtype(dtype).name
    source, n_ops = _program(args, exprs, "f", {"dtype": dt, "block": block,
                                                "stabilize": stabilize})
    return load(source, "f", 1, n_ops)
