"""What the floats give: the formula evaluated in the target dtype, whole
(symgrad's own generated code) and node by node (for the analysis).

Node by node, each operation is compiled once by :func:`symgrad.lambdify`
from the node with its operands replaced by placeholders, so a node is
computed exactly as the generated code computes it; conditions and
``Piecewise`` selections are NumPy's comparisons and ``np.where``; a
``widen(u)`` (``compensated(u)``) is one operation over ``u``'s symbols,
computed wide (in pairs of floats) as the generated code computes it.  A
product takes its reciprocal factors along (``x*y**-2`` is one division,
``x/y**2``, as the code generator writes it), so a reciprocal used only
inside products is no node of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

import numpy as np
from sympy import Basic, Dummy, S, Symbol

from ..build import factors, unevaluated
from ..codegen.build import array_function
from ..graph import postorder
from ..lowering import lower
from ..rewrites import accurate_forms
from ..widen import FloatMarker

__all__ = ["evaluated_form", "NodeEvaluator", "generated", "additions"]


def evaluated_form(exprs: Sequence[Basic], rewrites: bool) -> list[Basic]:
    """The formula that runs: markers lowered, and with ``rewrites`` the
    accurate forms symgrad's code generator applies."""
    low = lower(list(exprs))
    return accurate_forms(low) if rewrites else low


def generated(symbols: Sequence[Symbol], exprs: Sequence[Basic], dtype: np.dtype) -> Callable:
    """symgrad's generated function, returning one array per output."""
    fn = array_function(list(symbols), list(exprs), dtype)  # (lambdify's floats on arrays)

    def run(*xs: np.ndarray) -> list[np.ndarray]:
        with np.errstate(all="ignore"):
            out = fn(*xs)
        shape = np.shape(xs[0]) if xs else ()  # a formula of no variable: one value
        return [np.broadcast_to(np.asarray(o, dtype=dtype), shape) for o in out]

    return run


def _piecewise(*vals):
    dt = np.result_type(*(v for v, _ in vals))
    out = np.full(np.shape(vals[0][0]), np.nan, dtype=dt)  # no branch holds: nan
    taken = np.zeros(np.shape(out), dtype=bool)
    for value, cond in vals:
        now = np.asarray(cond, dtype=bool) & ~taken
        out = np.where(now, value, out)
        taken |= now
    return out


_LOGIC: dict[str, Callable] = {
    "StrictLessThan": np.less,
    "LessThan": np.less_equal,
    "StrictGreaterThan": np.greater,
    "GreaterThan": np.greater_equal,
    "Equality": np.equal,
    "Unequality": np.not_equal,
    "And": lambda *a: np.logical_and.reduce(a),
    "Or": lambda *a: np.logical_or.reduce(a),
    "Not": np.logical_not,
    "ITE": np.where,  # ITE(c, a, b): a where c, else b (SymPy's, from relations of Piecewise)
    "ExprCondPair": lambda v, c: (v, c),
    "Piecewise": _piecewise,
}


def _recip_exp(node: Basic, arg: Basic) -> Basic | None:
    """The (negative) exponent of a reciprocal factor of a product."""
    if node.is_Mul and arg.is_Pow and arg.exp.is_number and arg.exp.is_negative:
        return arg.exp
    return None


def _operand(node: Basic, arg: Basic) -> Basic:
    return arg.base if _recip_exp(node, arg) is not None else arg


def _widened_leaves(node: Basic, kids: dict) -> tuple:
    """The symbols below ``widen(u)``, in a fixed order."""
    below, _ = postorder([node.args[0]], lambda n: kids.get(n, n.args))
    return tuple(sorted((n for n in below if isinstance(n, Symbol)), key=str))


def _order_of(code: Callable, n: int) -> object:
    """The tree of the additions in the generated kernel ``code`` (one
    output over the operands ``a0`` ... ``a{n-1}``): nested ``(op, left,
    right)`` with op ``"+"`` or ``"-"``, ``("neg", u)``, an operand's index,
    or ``("k", value)`` for a part of no operand (a constant, as a float);
    None where the kernel does more than add, subtract and negate its
    operands (read from the source it runs)."""
    env = getattr(getattr(code, "__wrapped__", None), "__globals__", None)
    try:
        mod = ast.parse(getattr(code, "source", ""))
    except SyntaxError:
        return None
    fn = next((d for d in mod.body if isinstance(d, ast.FunctionDef) and d.name == "f_block"),
              None)
    if fn is None or env is None:
        return None
    temps: dict[str, ast.expr] = {}
    out = None
    for st in fn.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                isinstance(st.targets[0], ast.Name) and st.targets[0].id != "_k":
            temps[st.targets[0].id] = st.value
        elif isinstance(st, ast.Return) and isinstance(st.value, ast.Tuple) and \
                len(st.value.elts) == 1:
            out = st.value.elts[0]
    names = {f"a{i}": i for i in range(n)}
    binary = {"_add": "+", "_sub": "-"}
    scope = dict(env, _k=tuple(np.float64(v) for v in env.get("_KV", ())))

    def inline(e: ast.expr, depth: int) -> ast.expr:
        if depth > 64:
            raise ValueError(e)
        if isinstance(e, ast.Name) and e.id in temps:
            return inline(temps[e.id], depth + 1)
        for field, val in ast.iter_fields(e):
            if isinstance(val, ast.expr):
                setattr(e, field, inline(val, depth + 1))
            elif isinstance(val, list):
                setattr(e, field, [inline(v, depth + 1) if isinstance(v, ast.expr) else v
                                   for v in val])
        return e

    def tree(e: ast.expr) -> object:
        if isinstance(e, ast.Name) and e.id in names:
            return names[e.id]
        if not any(isinstance(m, ast.Name) and m.id in names for m in ast.walk(e)):
            # (the kernel's own code, a few nodes: no formula is walked here)
            with np.errstate(all="ignore"):
                v = eval(compile(ast.Expression(e), "<kernel>", "eval"), scope)  # noqa: S307
            return ("k", float(v))
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
            if e.func.id in binary and len(e.args) == 2:
                return (binary[e.func.id], tree(e.args[0]), tree(e.args[1]))
            if e.func.id == "_neg" and len(e.args) == 1:
                return ("neg", tree(e.args[0]))
        raise ValueError(e)

    try:
        return None if out is None else tree(inline(out, 0))
    except Exception:  # noqa: BLE001  (a kernel not read: the printer's fold is used)
        return None


def _fold(n: int) -> object:
    """The left fold over ``n`` operands: ``((a0 + a1) + a2) + ...``."""
    t: object = 0
    for i in range(1, n):
        t = ("+", t, i)
    return t


def additions(node: Basic, order: object = None) -> list[tuple[Basic, Basic, Basic]]:
    """The additions the generated code does for the sum ``node``, in its
    order: ``(a, b, s)`` per rounding step, ``s`` the float sum ``a + b``
    (a subtraction's ``b`` is the operand negated, exactly; ``s`` is
    ``node`` itself at the last step).  ``order``: the kernel's tree
    (:func:`_order_of`, as :meth:`NodeEvaluator.additions` reads it); None,
    or a tree whose constants are not ``node``'s: the left fold over
    ``node.args``.

    A partial sum is a node of its own, as written (``-1 - x`` in ``-1 - x - y - z``,
    which the code computes as ``((-1 - x) - y) - z``): where a sum's float
    rounds is where a step the code takes rounds, not any pair of its
    terms (``-1 - z`` is never computed there).

    >>> from sympy import symbols
    >>> x, y, z = symbols("x y z")
    >>> [(a, b) for a, b, _ in additions(-1 - x - y - z)]  # (SymPy prints -y + (-x - 1))
    [(-1, -x), (-x - 1, -y), (-y + (-x - 1), -z)]
    """
    args = node.args
    nums = [a for a in args if a.is_number]

    def constant(v: float) -> Basic:  # the kernel's: one of the sum's numbers, or its negation
        for c in nums:
            if float(c) == v:
                return c
            if float(c) == -v:
                return -c
        raise ValueError(v)

    def build(root: object) -> Basic:
        # the order's tree, operands first, without recursion (a sum of n
        # terms is a fold n deep: a RecursionError past ~1000 terms)
        done: list = []  # values of the subtrees finished
        todo: list = [(root, False)]
        while todo:
            t, ready = todo.pop()
            if isinstance(t, int):
                done.append(args[t])
            elif t[0] == "k":
                done.append(constant(t[1]))
            elif not ready:  # its operands first, left to right
                todo.append((t, True))
                todo.extend((k, False) for k in reversed(t[1:]))
            elif t[0] == "neg":
                done.append(_negated(done.pop()))
            else:
                b = done.pop()
                a = done.pop()
                if t[0] == "-":
                    b = _negated(b)
                s = unevaluated(node, (a, b))
                steps.append((a, b, s))
                done.append(s)
        return done[-1]

    steps: list[tuple[Basic, Basic, Basic]] = []
    try:
        build(_fold(len(args)) if order is None else order)
    except ValueError:
        steps = []
        build(_fold(len(args)))
    if steps:
        a, b, _ = steps[-1]
        steps[-1] = (a, b, node)
    return steps


def _negated(u: Basic) -> Basic:
    """``-u`` as a node whose float is ``u``'s negated (exact)."""
    return -u if u.is_number else factors((S.NegativeOne, u))


class NodeEvaluator:
    """Every node of ``exprs`` evaluated in ``dtype``, one operation at a
    time: ``values(xs)[node]`` is an array over the points ``xs``."""

    _cache: dict = {}  # (op shape, dtype) -> compiled function, shared
    _orders: dict = {}  # (a sum's shape, dtype) -> its kernel's additions (_order_of)

    def __init__(self, exprs: Sequence[Basic], symbols: Sequence[Symbol], dtype: np.dtype) -> None:
        self.dtype = np.dtype(dtype)
        self.symbols = list(symbols)
        order, kids = postorder(list(exprs), lambda n: n.args)
        # operands: a product's reciprocal factors give their bases; a widen(u)'s
        # are u's symbols (it is one operation, computed wide as the code does)
        self.kids = {n: _widened_leaves(n, kids) if isinstance(n, FloatMarker)
                     else tuple(_operand(n, k) for k in ks) for n, ks in kids.items()}
        # the nodes the roots are computed from, in the order of ``order``: not
        # a marker's inside (the code computes u wide as one operation, so u's
        # own nodes, pairs inside a widen(u) among them, are never computed)
        used = set(postorder(list(exprs), lambda n: self.kids[n])[0])
        self.order = [n for n in order if n in used]
        self._ops: dict = {}  # node -> its operation, looked up once (the key asks SymPy)
        self._steps: list | None = None  # see _plan

    def op(self, node: Basic) -> Callable:
        """The float operation of ``node``, applied to its operands' values."""
        name = type(node).__name__
        if name in _LOGIC:
            return _LOGIC[name]
        if isinstance(node, FloatMarker):
            key = (node, self.dtype)
            if key not in self._cache:
                # (the array kernel alone: its floats are lambdify's on arrays, without
                # the kernels for one point and in place, a third of its compile)
                self._cache[key] = array_function(list(self.kids[node]), node, self.dtype)
            return self._cache[key]
        key = self._key(node)
        shape = key[1]
        fn = self._cache.get(key)
        if fn is None:
            holes = [Dummy(f"a{i}", real=True) for i in range(len(node.args))]
            args = [a if a.is_number else h if e is None else h**e
                    for a, h, e in zip(node.args, holes, shape)]
            used = [h for a, h in zip(node.args, holes) if not a.is_number]
            code = array_function(used, unevaluated(node, args), self.dtype)
            picks = [i for i, a in enumerate(node.args) if not a.is_number]

            def fn(*vals, _code=code, _picks=picks):
                return _code(*(vals[i] for i in _picks))

            self._cache[key] = fn
            if node.is_Add:
                self._orders[key] = _order_of(code, len(node.args))
        return fn

    def _key(self, node: Basic) -> tuple:
        shape = tuple(a if a.is_number else _recip_exp(node, a) for a in node.args)
        kinds = tuple("number" if a.is_number else "operand" for a in node.args)
        return (node.func, shape, kinds, self.dtype)

    def additions(self, node: Basic) -> list[tuple[Basic, Basic, Basic]]:
        """The additions (``(a, b, a + b)`` per rounding step) that the
        generated code does for the sum ``node``, in the order of the
        kernel that computes it (:func:`additions`)."""
        self.op(node)
        return additions(node, self._orders.get(self._key(node)))

    def _plan(self) -> list[tuple]:
        """Per node, once: (node, kind, what): a symbol (0, its position),
        a constant (1, its array's value and dtype) or an operation (2,
        its operands); SymPy's is_number walks a node's whole tree."""
        if self._steps is None:
            where = {s: j for j, s in enumerate(self.symbols)}
            steps = []
            for node in self.order:
                if node in where:
                    steps.append((node, 0, where[node]))
                elif node.is_Boolean and not node.args:
                    steps.append((node, 1, (bool(node), None)))
                elif node.is_number:
                    v = float(node) if not node.args else float(node.evalf(30))
                    steps.append((node, 1, (v, self.dtype)))
                else:
                    steps.append((node, 2, self.kids[node]))
            self._steps = steps
        return self._steps

    def values_at(self, xs: Sequence[np.ndarray],
                  rows_of: Callable[[Basic], np.ndarray | None] | None = None
                  ) -> dict[Basic, object]:
        """Like :meth:`values`, each node computed only at the rows
        ``rows_of(node)`` (indices into ``xs``, one 1-D array per symbol;
        None: all of them; empty: the node is not computed).  A node's rows
        must hold those of every node above it that is computed; its array
        is as long as ``xs``, and its entries at other rows are not set."""
        shape = np.shape(xs[0])
        pos = [np.asarray(x, dtype=self.dtype) for x in xs]
        out: dict[Basic, object] = {}
        with np.errstate(all="ignore"):
            for node, kind, what in self._plan():
                idx = None if rows_of is None else rows_of(node)
                if idx is not None and not len(idx):
                    continue
                if kind == 0:
                    out[node] = pos[what]
                elif kind == 1:
                    out[node] = np.full(shape, what[0], dtype=what[1])
                else:
                    fn = self._ops.get(node)
                    if fn is None:
                        fn = self._ops[node] = self.op(node)
                    if idx is None:
                        out[node] = fn(*(out[k] for k in what))
                    else:
                        r = fn(*(_take(out[k], idx) for k in what))
                        out[node] = _put(r, idx, shape[0])
        return out

    def values(self, xs: Sequence[np.ndarray]) -> dict[Basic, np.ndarray]:
        """Each node's float value at the points ``xs`` (one array per symbol)."""
        return self.values_at(xs)

def _take(v: object, idx: np.ndarray) -> object:
    """``v`` (an array over all rows, or a tuple of them) at the rows ``idx``."""
    if type(v) is tuple:
        return tuple(_take(a, idx) for a in v)
    return np.asarray(v)[idx]


def _put(r: object, idx: np.ndarray, n: int) -> object:
    """``r`` (values at the rows ``idx``) as an array over ``n`` rows."""
    if type(r) is tuple:
        return tuple(_put(a, idx, n) for a in r)
    a = np.asarray(r)
    full = np.empty(n, dtype=a.dtype)
    full[idx] = a
    return full
