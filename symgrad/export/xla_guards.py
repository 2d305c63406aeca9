"""What generated JAX code guards against XLA's own rewrites of its floats
under ``jax.jit`` (measured with jax 0.10.2 on CPU; docs/export.md):

* its algebraic simplifier writes ``exp(a) * exp(b)`` as ``exp(a + b)``,
  which undoes an exponent split exactly in two (:func:`exps_kept_apart`);
* at its default optimization level it fuses a product into the sum that
  reads it (one fused multiply-add), which turns an exact cancellation of
  two equal roundings (``x*x - y*y`` at ``x = y``: 0 in NumPy) into the
  rounding error of one, of either sign (``sqrt`` of it NaN)
  (:func:`products_kept_rounded`).

The pairs of floats of ``compensated(u)`` are guarded in their helpers
(:mod:`symgrad.export.source`'s JAX text).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import combinations

from sympy import Abs, Add, Basic, Float, Integer, Mul, Pow, Rational, exp

from ..codegen.texts import HelperCall

__all__ = ["exps_kept_apart", "products_kept_rounded"]


class _Kept(HelperCall):
    """``_jg.kept(u)``: ``u`` behind an optimization barrier (JAX)."""

    _helper = "_jg.kept"


def exps_kept_apart(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each exponential after the first among a product's
    factors behind :func:`symgrad.export.jax_ops.kept`: XLA's algebraic
    simplifier rewrites ``exp(a) * exp(b)`` as ``exp(a + b)``, whose
    rounded exponent undoes the exact splits of stabilized forms
    (``exp(-x**2/2)`` as ``exp(-k**2/8192) * exp(-l**2/2 - l k/64)``).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> exps_kept_apart([sp.exp(x) * sp.exp(-x**2) * x])
    [x*_Kept(exp(-x**2))*exp(x)]
    """
    from ..build import mapped

    def apart(n: Basic) -> Basic:
        if not isinstance(n, Mul):
            return n
        es = [a for a in n.args if isinstance(a, exp)]
        if len(es) < 2:
            return n
        rest = [a for a in n.args if not isinstance(a, exp)]
        return Mul(*rest, es[0], *[_Kept(e) for e in es[1:]], evaluate=False)

    return mapped(roots, after=apart)  # (each node itself where none is a product of exps)


class _Rounded(HelperCall):
    """``_jg.rounded(u)``: the product ``u`` as the float it rounds to (JAX)."""

    _helper = "_jg.rounded"


def products_kept_rounded(roots: list[Basic], domain: Mapping | None = None) -> list[Basic]:
    """``roots`` with the rounded products of a sum of two or more of them
    that may cancel (terms not all of one sign over ``domain``) read through
    :func:`symgrad.export.jax_ops.rounded`: XLA fuses a product into the sum
    that reads it (``fma(x, x, -y*y)``), which rounds once where NumPy's code
    rounds twice, and where two equal roundings cancelled exactly (``x*x -
    y*y`` at ``x = y``) leaves one of them, of either sign.  A sum of one
    rounded product and other terms (``c + a*b``, a polynomial's Horner
    step) fused is rounded once and exactly: 0 where it is 0, never less
    accurate; terms of one sign do not cancel; a product that is exact or
    ends in a division (a power of two times one factor, ``a/b``) has
    nothing to fuse: all left as they are.  So is a sum whose fusable
    products are of one sign among themselves (each two of them have a
    product >= 0 over ``domain``: ``x/2 t + c x**3 t``, GELU-tanh's gradient):
    no two of them can cancel, and the sum of them and the other terms fused
    is rounded fewer times, as one product's is (the two ``rounded`` selections
    cost that gradient 0.55 ms of 4.40 per 10^6 float64 points and changed no
    point's accuracy; session 25, docs/performance.md).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> products_kept_rounded([x*x - y*y + 2*x + x/y, x*x + 3*y*y, 3*x*y - 1])
    [2*x + x/y + _Rounded(x**2) + _Rounded(-y**2), x**2 + 3*y**2, 3*x*y - 1]
    >>> t = sp.exp(-x**2)
    >>> one_sign, mixed = products_kept_rounded([sp.tanh(x)/2 + 3*x*t + x**3*t,
    ...                                          sp.tanh(x) + 3*x*t - x**3*t])
    >>> one_sign  # 3x and x**3 of one sign: fused, as NumPy's to rounding
    x**3*exp(-x**2) + 3*x*exp(-x**2) + tanh(x)/2
    >>> mixed
    _Rounded(3*x*exp(-x**2)) + _Rounded(-x**3*exp(-x**2)) + tanh(x)
    """
    from ..build import mapped
    from ..rewrites.facts import Facts

    facts = Facts(domain)

    def one_sign(n: Basic) -> bool:
        bounds = [facts.bound(t) for t in n.args]
        return all(b is not None and b[0] >= 0 for b in bounds) \
            or all(b is not None and b[1] <= 0 for b in bounds)

    def products_of_one_sign(n: Basic) -> bool:
        fused = [t for t in n.args if _fused(t)]
        if len(fused) > _PAIRED_UP_TO:  # (pairs checked: a long sum kept as it was)
            return False
        bounds = (facts.bound(_product(a, b)) for a, b in combinations(fused, 2))
        return all(b is not None and b[0] >= 0 for b in bounds)

    def kept(n: Basic) -> Basic:
        if not isinstance(n, Add) or sum(map(_fused, n.args)) < 2 or one_sign(n) \
                or products_of_one_sign(n):
            return n
        return Add(*[_Rounded(t) if _fused(t) else t for t in n.args], evaluate=False)

    return mapped(roots, after=kept)


_PAIRED_UP_TO = 6  # fusable products of a sum compared pairwise for their signs


def _product(a: Basic, b: Basic) -> Basic:
    """``a * b`` for its bound: SymPy's product (its powers merged: ``3*x*t``
    times ``x**3*t`` is ``3*x**4*t**2``, of one sign), but as written where a
    factor is large as a tree (:func:`..build.tree_size`): SymPy sorts a
    product's factors by comparing them as trees, exponential in the depth
    of a ``where`` chain's derivative (a 16-deep one's export: 37 s).  Its
    bound is then looser: the sum keeps its rounded products (the same
    values as NumPy's code)."""
    from ..build import EVALUATED_TREE, tree_size

    if any(f.args and tree_size(f) > EVALUATED_TREE for f in (a, b)):
        return Mul(a, b, evaluate=False)
    return Mul(a, b)


def _fused(t: Basic) -> bool:
    """Whether ``t``, a term of a sum, ends in a rounded multiplication XLA
    may fuse into the sum: two factors or more (``a*b``, ``a*(f/r)``), a
    square or higher power, or one factor times a coefficient that is not
    a power of two; not ``a/b`` or ``2*a/b``, whose last operation is the
    division."""
    if isinstance(t, Pow):
        return bool(t.exp.is_Integer and t.exp > 1)
    if not isinstance(t, Mul):
        return False
    coeff, rest = t.as_coeff_Mul()
    factors = Mul.make_args(rest)
    top = [f for f in factors if not (isinstance(f, Pow) and f.exp.is_negative)]
    if len(top) > 1 or not _power_of_two(coeff):
        return bool(top)
    return len(top) == len(factors) == 1 and _fused(top[0])  # -x**2; not x**2/y


def _power_of_two(c: Basic) -> bool:
    """Whether the number ``c`` is 0 or plus or minus a power of two (a
    product by it is exact)."""
    q = Rational(c)  # a float's exact value
    p, d = abs(q.p), q.q
    return not (p & (p - 1) or d & (d - 1))


class _Up(HelperCall):
    """``_jg.up(u)``: ``u * 2**64`` (JAX)."""

    _helper = "_jg.up"


class _ExpUp(HelperCall):
    """``_jg.exp_up(exp(u), exp(u/2))``: ``exp(u) * 2**64`` made without a
    subnormal value (JAX)."""

    _helper = "_jg.exp_up"


class _SmallUp(HelperCall):
    """``_jg.small_up(sv, f(v), kind)``: ``f(v) * 2**64`` from ``sv = v *
    2**64`` where ``f(v)`` rounds to ``v`` (JAX)."""

    _helper = "_jg.small_up"


class _Down(HelperCall):
    """``_jg.down(u)``: ``u * 2**-64`` (JAX)."""

    _helper = "_jg.down"


class _Unflushed(HelperCall):
    """``_jg.unflushed(v, sv)``: ``v``, or ``sv * 2**-64`` where ``v`` is
    small enough for a flushed subnormal to matter (JAX)."""

    _helper = "_jg.unflushed"


# f(v) rounds to v for a tiny v: 1 where f(v) = v (1 + O(v**2)), 2 where v (1 + O(v))
_NEAR_IDENTITY = {"tanh": 1, "sin": 1, "tan": 1, "asin": 1, "atan": 1, "sinh": 1,
                  "asinh": 1, "atanh": 1, "log1p": 2, "expm1": 2}


def flushed_terms_scaled(roots: list[Basic], domain: Mapping | None, dtype: str) -> list[Basic]:
    """``roots`` with each sum that may hold a subnormal term where it is
    normal read through :func:`symgrad.export.jax_ops.unflushed`: XLA on the
    CPU flushes subnormal floats to zero (results and operands; NumPy and
    PyTorch keep them), so SiLU's stabilized gradient ``(x e^x + e^x +
    e^2x)/(1 + e^x)**2`` at x = -712, whose term e^x is subnormal and whose
    value (x + 1) e^x is not, lost e^x: 43.5 bits in JAX, 2.0 in NumPy.

    An ``exp(u)`` (or ``compensated(exp(u))``) whose ``u`` may fall below
    the log of ``dtype``'s smallest normal over ``domain`` may be
    subnormal; each value above one is computed again times 2**64 with no
    subnormal in it: ``exp(u)`` as :func:`~symgrad.export.jax_ops.exp_up`
    (from ``exp(u/2)``); a sum as its terms so made; a product as its
    factors that may be subnormal so made, in the product's own order (with
    2**-64 for each after the first: where no term is subnormal the copy is
    the value times 2**64 bit for bit; under jax.jit mish's gradient took
    half the time it took with the scaled factors first);
    ``f(v)`` for an f with f(v) ≈ v at 0 (tanh, log1p, sin, ...) as
    ``v`` so made where f(v) rounds to v; ``|v|`` as ``|v|`` so made; a
    Piecewise branch by branch (a branch bounded away from 0 under its
    condition, and anything else, times 2**64 as it is; stabilize's
    underflow split of a product too, whose factors are normal but whose
    value need not be: float32 GELU-erf's gradient, Φ(x) beside x φ(x) at
    x = -13.2, lost 25 bits).  A value so made
    whose chain holds a sum is then read through ``unflushed``: the scaled
    value times 2**-64 where the value is below tiny/eps * 4 (there a
    flushed term changes it; elsewhere each flushed term is below its
    rounding), the value as it is elsewhere; only the outermost of a chain
    (a root, or a value read by a parent that cannot scale it, ``log(u)``,
    a power).  A product's own flush is not guarded: where a factor is
    subnormal the product is too, unless another factor is large, which
    stabilize's forms split already (``(x e^(x/2)) e^(x/2)``).  Inside
    ``compensated(u)`` nothing changes (the pair function's own first-order
    term is scaled in its JAX helper).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> flushed_terms_scaled([x * sp.exp(x) + sp.exp(x)], {x: (-1000, 0)}, "float64")
    [_Unflushed(x*exp(x) + exp(x), x*_ExpUp(exp(x), exp(x/2)) + _ExpUp(exp(x), exp(x/2)))]
    >>> flushed_terms_scaled([x * sp.exp(x) + sp.exp(x)], {x: (-700, 0)}, "float64")
    [x*exp(x) + exp(x)]
    >>> flushed_terms_scaled([x * sp.exp(x) / (1 + sp.exp(x))], {x: (-1000, 0)}, "float64")
    [x*exp(x)/(exp(x) + 1)]
    """
    import numpy as np
    from sympy import And, Piecewise
    from sympy.core.relational import Relational

    from ..build import mapped, unevaluated
    from ..compensated import compensated
    from ..graph import postorder
    from ..rewrites.facts import Facts

    facts = Facts(domain)
    info = np.finfo(np.dtype(dtype))
    lowest = math.log(float(info.tiny))
    small = float(info.tiny / info.eps) * 4  # below it a flushed term changes a value
    # (not inside a compensated(u): its pairs are their own; compensated(exp(u)) is a leaf)
    order, kids = postorder(roots, lambda n: () if isinstance(n, compensated) else n.args)
    nodes = set(order)
    def never_small(n: Basic, where: Facts) -> bool:
        b = _bound(where, n)
        return b is not None and (b[0] >= small or b[1] <= -small)

    two, half_two = Float(2.0**64), Float(2.0**-64)  # (exact; in pairs: _ddc constants)

    def scalings(order: list, pairs: bool) -> tuple[dict, set, dict]:
        """For the nodes of ``order`` (postorder): node -> its value times
        2**64 made without subnormals; the nodes whose scaled form adds a
        scaled term; node -> the arguments whose scaled value it reads.
        ``pairs``: inside ``compensated(u)``, written as SymPy's own products
        (the compensating pass computes them in pairs; 2**64 is exact), and
        ``f(v) ≈ v`` not scaled through."""
        up: dict[Basic, Basic] = {}
        summed: set[Basic] = set()
        taken: dict[Basic, tuple] = {}

        def times(n: Basic, c: Basic) -> Basic:
            if pairs:
                return Mul(n, c, evaluate=False)
            return _Up(n) if c is two else _Down(n)

        def scaled(n: Basic) -> Basic:
            return up[n] if n in up else times(n, two)

        for n in order:
            args = n.args
            e = _exp_of(n)
            if e is not None:  # exp(u), or compensated(exp(u)): its float, scaled
                b = facts.bound(e.args[0])
                if b is None or b[0] < lowest:
                    half = exp(e.args[0] / 2)
                    if pairs:  # (h * 2**64) * h, in pairs
                        up[n] = Mul(Mul(half, two, evaluate=False), half, evaluate=False)
                        continue
                    if e is not n and compensated(half) in nodes:  # (the pair, computed anyway)
                        half = compensated(half)
                    up[n] = _ExpUp(n, half)
                continue
            if isinstance(n, compensated):  # u in pairs as a whole: its scaled copy in pairs
                inner = scalings(postorder([args[0]], lambda m: m.args)[0], True)[0]
                if args[0] in inner:  # (read through unflushed even without a sum: a
                    up[n] = compensated(inner[args[0]])  # subnormal pair factor is flushed)
                    summed.add(n)
                continue
            if isinstance(n, Piecewise):
                ways, made, before = [], False, []
                for p in args:
                    cond = And(p.cond, *[c.negated for c in before if isinstance(c, Relational)])
                    before.append(p.cond)
                    if p.expr in up and not never_small(p.expr, _within(facts, domain, cond)):
                        ways.append((up[p.expr], p.cond))
                        made = True
                        summed.update([n] if p.expr in summed else [])
                    else:  # (bounded away from 0 there: as it is)
                        ways.append((times(p.expr, two), p.cond))
                    taken[p] = (p.expr,)
                if made:
                    up[n] = Piecewise(*ways)
                    taken[n] = args
                continue
            if not any(a in up for a in args) or never_small(n, facts):
                continue
            if isinstance(n, Add):
                up[n] = Add(*[scaled(a) for a in args], evaluate=False)
                summed.add(n)
                taken[n] = args
            elif isinstance(n, Mul):
                fs = list(dict.fromkeys(a for a in args if a in up))
                # (the factors in the value's order, each scaled one in its place:
                # where no term is subnormal, the value times 2**64 bit for bit)
                first = Mul(*[up[a] if a in up else a for a in args], evaluate=False)
                for _ in fs[1:]:  # (each further factor's 2**64 taken off after the product)
                    first = times(first, half_two)
                up[n] = first
                summed.update([n] if any(f in summed for f in fs) else [])
                taken[n] = tuple(fs)
            elif len(args) == 1 and (isinstance(n, Abs) or (
                    type(n).__name__ in _NEAR_IDENTITY and not pairs)):
                kind = _NEAR_IDENTITY.get(type(n).__name__)
                up[n] = Abs(up[args[0]], evaluate=False) if kind is None \
                    else _SmallUp(up[args[0]], n, Integer(kind))
                summed.update([n] if args[0] in summed else [])
                taken[n] = args
        return up, summed, taken

    up, summed, taken = scalings(order, False)
    # a scaled value with a sum in its chain is read through unflushed where it
    # is a root or some parent reads it as it is
    read = {n for n in roots if n in summed}
    for n in order:  # (not a condition's or an exp's: a tiny change leaves those)
        if not isinstance(n, (Relational, exp)):
            read.update(a for a in kids[n] if a in summed and a not in taken.get(n, ()))
    if not read:
        return roots
    memo: dict = {}

    def opaque(n: Basic) -> Basic | None:  # (its arguments not visited: read here)
        if not isinstance(n, compensated):
            return None
        return _Unflushed(n, up[n]) if n in read else n

    made: dict = {}  # a read node's scaled copy, its own read nodes read through unflushed
    building: list = [None]  # the node whose copy is being mapped

    def hook(n: Basic, new_args: tuple) -> Basic | None:
        if n not in read:
            return None
        plain = unevaluated(n, new_args) if new_args != n.args else n
        # (a copy may hold its node's own value, f(v) in small_up: that as it is)
        return plain if n == building[0] else _Unflushed(plain, made[n])

    # each copy mapped before the copies that hold it (a copy holds its node's
    # descendants, and the node itself in small_up; order is children first):
    # one pass per copy, none nested (a nested pass per node mapped small_up's
    # own node again, without end: the float64 mish second derivative's
    # tanh(...)**2, RecursionError, 2026-11-29)
    for n in order:
        if n in read:
            building[0] = n
            made[n] = mapped([up[n]], swap=opaque, hook=hook, memo=memo)[0]
            memo.pop(n, None)  # (its form as it is, recorded in the copy: not its own)
    building[0] = None
    return mapped(roots, swap=opaque, hook=hook, memo=memo)


def _within(facts, domain: Mapping | None, cond: Basic):
    """``facts``, or Facts over ``domain`` narrowed by ``cond`` where it is a
    bound of a symbol by a number (``x <= 0``) or a conjunction of them."""
    from sympy import And, Number, Symbol
    from sympy.core.relational import Relational

    from ..rewrites.facts import Facts

    box = dict(domain or {})
    for c in And.make_args(cond):
        if not isinstance(c, Relational) or c.rel_op not in ("<", "<=", ">", ">="):
            return facts
        lhs, rhs, op = c.lhs, c.rhs, c.rel_op
        if isinstance(rhs, Symbol) and isinstance(lhs, Number):
            lhs, rhs, op = rhs, lhs, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
        if not (isinstance(lhs, Symbol) and isinstance(rhs, Number)):
            return facts
        lo, hi = box.get(lhs, (-math.inf, math.inf))
        box[lhs] = (max(lo, float(rhs)), hi) if op in (">", ">=") else (lo, min(hi, float(rhs)))
    return Facts(box)


def _exp_of(n: Basic) -> Basic | None:
    """``exp(u)`` where ``n`` is it or ``compensated(exp(u))``, else None."""
    from ..compensated import compensated

    if isinstance(n, compensated) and isinstance(n.args[0], exp):
        return n.args[0]
    return n if isinstance(n, exp) else None


def _bound(facts, n: Basic) -> tuple | None:
    """``facts.bound(n)``, a sum's from its terms' and ``compensated(u)``'s
    ``u``'s (Facts does not know the marker: ``1 + compensated(exp(u))``)."""
    from ..compensated import compensated

    if isinstance(n, compensated):
        return facts.bound(n.args[0])
    if isinstance(n, (Add, Mul)):
        bs = [_bound(facts, t) for t in n.args]
        if any(b is None for b in bs):
            return None
        if isinstance(n, Add):
            return sum(b[0] for b in bs), sum(b[1] for b in bs)
        lo, hi = bs[0]
        for a, b in bs[1:]:  # (interval products; 0 * inf taken as 0: a bound, not a value)
            ends = [0.0 if 0 in (p, q) else p * q for p in (lo, hi) for q in (a, b)]
            lo, hi = min(ends), max(ends)
        return lo, hi
    return facts.bound(n)
