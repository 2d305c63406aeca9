"""Entries SymPy expanded, rolled back into a matrix formula.

SymPy's ``M[i, j]`` of a product of matrix symbols with numeric shapes is
the expanded sum over the entries (``((A*x - b).T*(A*x - b))[0, 0]`` is
``Σᵢ (Σⱼ A[i, j]·x[j, 0] - b[i, 0])²``) before symgrad sees it, so its
gradient came out as an explicit matrix of sums.  :func:`reroll` finds,
bottom up over the DAG, the three shapes that expansion produces:

* a dot product ``Σₜ U[i, t]·V[t, k]`` (either factor possibly transposed)
  is the entry ``(U·V)[i, k]``;
* a sum of entries at one place, ``Σ cₜ·Pₜ[i, k]``, is ``(Σ cₜ·Pₜ)[i, k]``;
* a sum over every entry of one matrix of one function, ``Σ f(P[i, k])``,
  is ``sum(f(P))`` (``f`` elementwise);

and keeps the result only if SymPy's own expansion of it gives back the
formula it was given, node for node (else the formula is left as it was).
"""

from __future__ import annotations

from itertools import product

from sympy import Add, Dummy, Expr, Integer, Mul
from sympy.matrices.expressions.matexpr import MatrixElement

__all__ = ["reroll"]


def reroll(expr: Expr) -> Expr:
    """``expr`` with SymPy's expansions of matrix entries rolled back (see
    the module); ``expr`` itself where nothing rolls or the check fails.

    >>> from sympy import MatrixSymbol
    >>> A, x, b = MatrixSymbol("A", 3, 2), MatrixSymbol("x", 2, 1), MatrixSymbol("b", 3, 1)
    >>> reroll(((A*x - b).T*(A*x - b))[0, 0])
    sum(Lambda(_x, _x**2).(A*x - b))
    """
    from ..build import mapped
    from ..graph import postorder

    if not isinstance(expr, Add):
        return expr
    order, _ = postorder([expr], lambda n: () if isinstance(n, MatrixElement) else n.args)
    if not all(d.is_Integer for n in order if isinstance(n, MatrixElement)
               for d in n.args[0].shape):
        return expr  # symbolic shapes: SymPy does not expand their entries
    lone: dict = {}  # node -> the one entry under it, None (no entry) or _MANY

    def rolled(form: Expr) -> Expr:  # (mapped's after: each sum over its rolled terms)
        return (_roll(form, lone) or form) if isinstance(form, Add) else form

    # SymPy's evaluation where a term rolled (the check below compares with
    # SymPy's own expansion); an entry is a leaf
    out = mapped([expr], _sympy, swap=lambda n: n if isinstance(n, MatrixElement) else None,
                 after=rolled)[0]
    if out is expr or _expanded(out) != expr:
        return expr
    return out


def _expanded(e: Expr) -> Expr:
    """SymPy's expansion of the entries and sums in ``e`` (what the user's
    indexing gave)."""
    from ..build import mapped
    from .nodes import SumAll

    def entries(n: Expr) -> Expr | None:  # (mapped's swap: before the arguments)
        if isinstance(n, MatrixElement):
            return n.args[0][int(n.args[1]), int(n.args[2])]
        if isinstance(n, SumAll):
            X = n.args[0]
            return Add(*[X[i, k] for i, k in product(range(X.rows), range(X.cols))])
        return None

    return mapped([e], _sympy, swap=entries)[0]


def _sympy(node: Expr, args: tuple) -> Expr:
    """``node``'s class over ``args`` with SymPy's evaluation (what the
    user's indexing did, so a rolled formula compares with it)."""
    return node.func(*args)


def _entry(e: Expr) -> tuple | None:
    """(coefficient, parent, i, k) where ``e`` is c·P[i, k]."""
    c, rest = e.as_coeff_Mul()
    if isinstance(rest, MatrixElement):
        return c, rest.args[0], int(rest.args[1]), int(rest.args[2])
    return None


def _roll(add: Add, lone: dict) -> Expr | None:
    return _at_one_place(add) or _over_all_entries(add, lone)


_MANY = object()


def _lone_entry(root: Expr, lone: dict) -> object:
    """The one MatrixElement under ``root`` (None if none, _MANY if more),
    memoized in ``lone`` over the DAG (each node once)."""
    from ..graph import postorder

    order, _ = postorder([root], lambda n: () if n in lone or isinstance(n, MatrixElement)
                         else n.args)
    for n in order:
        if n in lone:
            continue
        if isinstance(n, MatrixElement):
            lone[n] = n
            continue
        got = None
        for a in n.args:
            e = lone[a]
            if e is None or (got is not None and e is not _MANY and e == got):
                continue
            if got is not None or e is _MANY:
                got = _MANY
                break
            got = e
        lone[n] = got
    return lone[root]


def _at_one_place(add: Add) -> Expr | None:
    """``(Σ cₜ·Pₜ)[i, k]`` for a sum of entries and dot products at (i, k)."""
    from sympy import MatAdd

    singles, pairs = [], []
    for t in add.args:
        got = _entry(t)
        if got is not None:
            singles.append(got)
            continue
        c, rest = t.as_coeff_Mul()
        fs = rest.args if isinstance(rest, Mul) else ()
        if len(fs) == 2 and all(isinstance(f, MatrixElement) for f in fs):
            pairs.append((c, fs))
        else:
            return None
    parts = list(singles)
    groups: dict = {}
    for c, fs in pairs:  # dot products: the same factors, one index running
        key = (c, *[f.args[0] for f in fs])
        groups.setdefault(key, []).append(fs)
    for (c, U, V), terms in groups.items():
        dot = _dot(U, V, terms)
        if dot is None:
            return None
        parts.append((c, *dot))
    if len(parts) < 2 and not groups:
        return None
    places = {(i, k) for _, _, i, k in parts}
    shapes = {tuple(P.shape) for _, P, _, _ in parts}
    if len(places) != 1 or len(shapes) != 1:
        return None
    (i, k), = places
    total = (parts[0][0] * parts[0][1] if len(parts) == 1
             else MatAdd(*[c * P for c, P, _, _ in parts]))
    return MatrixElement(total, i, k)


def _dot(U: Expr, V: Expr, terms: list) -> tuple | None:
    """(P, i, k) where the terms U[·]·V[·] are the whole dot product P[i, k]."""
    for u_run, v_run in product((0, 1), (0, 1)):  # which index of each runs
        Uo, Vo = (U if u_run == 1 else U.T), (V if v_run == 0 else V.T)
        n = int(Uo.shape[1])
        if n != int(Vo.shape[0]) or len(terms) != n:
            continue
        seen, fixed = set(), set()
        for fu, fv in terms:
            if fu.args[0] != U:
                fu, fv = fv, fu
            iu = [int(fu.args[1]), int(fu.args[2])]
            iv = [int(fv.args[1]), int(fv.args[2])]
            if iu[u_run] != iv[v_run]:
                break
            seen.add(iu[u_run])
            fixed.add((iu[1 - u_run], iv[1 - v_run]))
        else:
            if seen == set(range(n)) and len(fixed) == 1:
                (i, k), = fixed
                return Uo * Vo, i, k
    return None


def _over_all_entries(add: Add, lone: dict) -> Expr | None:
    """``sum(f(P))`` for Σ f(P[i, k]) over every entry of one matrix P."""
    from .build import elementwise
    from .nodes import SumAll

    found = None
    for t in add.args:
        el = _lone_entry(t, lone)
        if el is None or el is _MANY:
            return None
        if found is None:
            found, el0 = el.args[0], el
        elif el.args[0] != found:
            return None
    P = found
    m, k = int(P.shape[0]), int(P.shape[1])
    if len(add.args) != m * k or m * k < 2:
        return None
    w = Dummy("t")
    body = add.args[0].xreplace({el0: w})
    want = {body.xreplace({w: MatrixElement(P, Integer(i), Integer(j))})
            for i, j in product(range(m), range(k))}
    if set(add.args) != want:
        return None
    return SumAll(elementwise(lambda v: body.xreplace({w: v}), P))
