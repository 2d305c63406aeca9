"""One ``erfcx`` for the erf family's branches in JAX code.

``stabilize`` writes ``erfc(v)`` where it is small as ``erfcx(v) * E`` with
``E = exp(-v**2)`` split exactly (GELU-erf, log Φ), and keeps ``1 +
erf(w)`` or ``erfc(w)`` in the other branch of the same selection, ``w =
-v`` or ``v``.  Traced code computes every branch at every point: JAX's
GELU-erf gradient computed an ``erfcx`` (its own ``exp(v**2)`` inside) and
an ``erf`` (XLA's ``erfc`` with its own ``exp(-w**2)`` inside), though for
``|w| > 1`` ``erf(w) = sign(w) (1 - erfcx(|w|) E)`` with the program's own
``E``.  Here each such call reads the argument's absolute value as a node
of the program (``|v|`` and ``|-v|`` are one node) and the program's ``E``:
:func:`symgrad.export.jax_ops.erf_given` (erf, or erfc with ``complement``)
and ``erfcx(v, |v|)`` compute the same ``erfcx`` of ``|v|`` past 1 (Cephes'
rational approximations, no ``exp``), which XLA computes once.  An ``erfcx``
selected only where its argument is >= 0 (log Φ's gradient: ``1/erfcx(v)``
where ``v > 0.8``) reads ``exp(v**2)`` below 1 as ``1/E`` too: no ``exp`` of
its own (``erfcx(v, |v|, E)``; past ``v = -26.6`` E is flushed to 0 where
``erfcx(v)`` is finite, so not where the argument can be negative).
"""

from __future__ import annotations

from sympy import (
    Abs,
    And,
    Basic,
    GreaterThan,
    LessThan,
    Mul,
    Piecewise,
    StrictGreaterThan,
    StrictLessThan,
    diff,
    erf,
    erfc,
    exp,
    expand,
)

from ..build import mapped
from ..codegen.texts import HelperCall
from ..graph import postorder
from ..rewrites.forms import erfcx

__all__ = ["erfs_by_erfcx"]


class _ErfcGiven(HelperCall):
    """``_jg.erf_given(v, |v|, exp(-v**2), complement=True)``."""

    _helper = "_jg.erf_given"
    _keywords = ", complement=True"

    def _numpycode(self, printer) -> str:
        return f"{self._helper}({', '.join(printer._print(a) for a in self.args)}{self._keywords})"

    _symgrad_numpycode = _numpycode


class _ErfGiven(_ErfcGiven):
    """``_jg.erf_given(w, |w|, exp(-w**2))``."""

    _keywords = ""


class _ErfcGivenPlain(_ErfcGiven):
    """``_jg.erf_given(v, |v|, exp(-v**2), complement=True, asymptotic=False)``:
    the square rounded in floats (no asymptotic arm past 16)."""

    _keywords = ", complement=True, asymptotic=False"


class _ErfGivenPlain(_ErfcGiven):
    """``_jg.erf_given(w, |w|, exp(-w**2), asymptotic=False)``."""

    _keywords = ", asymptotic=False"


class _ErfcxAbs(HelperCall):
    """``_jg.erfcx(v, |v|)``, or ``_jg.erfcx(v, |v|, exp(-v**2))``."""

    _helper = "_jg.erfcx"


def _at_least_zero(v: Basic, cond: Basic) -> bool:
    """Whether ``cond`` (a relation, or a conjunction holding one) implies
    ``v >= 0``, ``v`` a linear function of the relation's sides: ``v = k d +
    c`` with ``d`` the relation's left side minus its right, ``k`` and ``c``
    numbers, ``d``'s sign given by the relation (log Φ's gradient selects
    ``erfcx(-sqrt(2)*x/2)`` where ``sqrt(2)*x < -1.6``: ``v = -d/2 + 0.8``).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> _at_least_zero(-x / 2, x < -1.6), _at_least_zero(-x / 2, x < 1), _at_least_zero(x, x > 0)
    (True, False, True)
    """
    if isinstance(cond, And):
        return any(_at_least_zero(v, c) for c in cond.args)
    if not isinstance(cond, (StrictLessThan, LessThan, StrictGreaterThan, GreaterThan)):
        return False
    d = cond.lhs - cond.rhs
    syms = d.free_symbols
    if not syms or not v.free_symbols <= syms:
        return False
    s = next(iter(syms))
    dd = diff(d, s)
    if dd == 0:
        return False
    k = diff(v, s) / dd
    c = expand(v - k * d)
    if not (k.is_number and c.is_number and k.is_real and c.is_real):
        return False
    below = isinstance(cond, (StrictLessThan, LessThan))  # d < 0 (or <= 0)
    return bool(c >= 0) and bool(k <= 0 if below else k >= 0)


def _selected_at_least_zero(roots: list[Basic]) -> set:
    """The ``erfcx`` nodes reached from ``roots`` only through a branch of a
    selection whose condition implies their argument is >= 0."""
    seen: set = set()
    unsafe: set = set()
    stack = [(r, frozenset()) for r in roots]
    while stack:
        n, proven = stack.pop()
        if (n, proven) in seen:
            continue
        seen.add((n, proven))
        if isinstance(n, erfcx):
            if n not in proven:
                unsafe.add(n)
            continue
        if isinstance(n, Piecewise):
            for e, c in n.args:
                here = frozenset(f for f in postorder([e], lambda m: m.args)[0]
                                 if isinstance(f, erfcx) and _at_least_zero(f.args[0], c))
                stack.append((e, proven | here))
                stack.append((c, proven))
            continue
        stack.extend((a, proven) for a in n.args)
    everything = postorder(roots, lambda m: m.args)[0]
    return {n for n in everything if isinstance(n, erfcx)} - unsafe


def _square_of(n: Basic) -> tuple[Basic, Basic] | None:
    """``(s, E)`` where ``n`` is a product holding exponentials ``E`` (their
    product) with ``E = exp(-s)``, ``s`` expanded; else None."""
    if not isinstance(n, Mul):
        return None
    es = [f for f in n.args if isinstance(f, exp)]
    if not es:
        return None
    return expand(-sum(e.args[0] for e in es)), es[0] if len(es) == 1 else Mul(*es, evaluate=False)


def erfs_by_erfcx(roots: list[Basic]) -> list[Basic]:
    """``roots`` with ``erfcx(v) * E``, ``erf(w)`` and ``erfc(w)`` computed
    from one ``erfcx`` of the argument's absolute value where the program
    holds ``E = exp(-v**2)`` (a product of exponentials whose exponents sum
    to ``-v**2``), and each other ``erfcx(v)`` reading ``|v|`` too; nothing
    inside a float marker (what it computes in pairs or wider is its own).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> E = sp.exp(-x**2)
    >>> erfs_by_erfcx([erfcx(-x) * E, 1 + sp.erf(x), 1 / erfcx(-x)])  # doctest: +ELLIPSIS
    [_ErfcGiven(-x, Abs(x), exp(-x**2)), _ErfGiven(x, Abs(x), exp(-x**2)) + 1, ...]
    >>> erfs_by_erfcx([sp.erf(x) + erfcx(x)])  # no exp(-x**2) in the program: no change
    [erf(x) + erfcx(x)]
    """
    from ..widen import FloatMarker

    order, _ = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, (erf, erfc, erfcx)) for n in order):
        return roots
    squares: dict[Basic, Basic] = {}
    for n in order:
        found = _square_of(n)
        if found is not None:
            squares.setdefault(*found)
    if not squares:
        return roots

    positive = _selected_at_least_zero(roots)
    # erfc(v) past |v| = 16 from erfcx's R/S, not its asymptotic series, where
    # the program's exp(-v**2) is one exp of a square rounded in floats (its
    # error, v**2 u/2 and more, dwarfs the series' 1.4 ulps) and no erfcx of
    # +-v shares the work (the derived log Phi gradient: 0.6 ms of 6.5)
    shared = {expand(n.args[0] ** 2) for n in order if isinstance(n, erfcx)}

    def plain(v: Basic) -> bool:
        s = expand(v**2)
        return isinstance(squares[s], exp) and s not in shared

    def given(v: Basic) -> Basic | None:
        return squares.get(expand(v**2))

    def swap(n: Basic) -> Basic | None:
        return n if isinstance(n, FloatMarker) else None

    def after(n: Basic) -> Basic:
        if isinstance(n, Mul):
            found = _square_of(n)
            fs = [f for f in n.args if isinstance(f, (erfcx, _ErfcxAbs))]
            if found is not None and fs and found[0] == expand(fs[0].args[0] ** 2):
                v = fs[0].args[0]
                rest = [f for f in n.args if f is not fs[0] and not isinstance(f, exp)]
                return Mul(*rest, _ErfcGiven(v, Abs(v), found[1]), evaluate=False) if rest \
                    else _ErfcGiven(v, Abs(v), found[1])
            return n
        if isinstance(n, (erf, erfc)) and (e := given(n.args[0])) is not None:
            cls = ((_ErfGivenPlain, _ErfGiven), (_ErfcGivenPlain, _ErfcGiven))[
                isinstance(n, erfc)][not plain(n.args[0])]
            return cls(n.args[0], Abs(n.args[0]), e)
        if isinstance(n, erfcx) and (e := given(n.args[0])) is not None:
            # exp(v**2) as 1/E where erfcx is read for v >= 0 only (past
            # -26.6 E is flushed to 0 where erfcx(v) is finite)
            return _ErfcxAbs(n.args[0], Abs(n.args[0]), *([e] if n in positive else []))
        return n

    return mapped(roots, swap=swap, after=after)
