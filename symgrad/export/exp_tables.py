"""Exponentials of a bounded integer, looked up in JAX code.

``stabilize``'s exact split of a square, ``exp(-x**2/2)`` as
``exp(-l**2/2 - l*k/64) * exp(-k**2/8192)`` with ``k = floor(64 min(64,
|x|))`` and ``l = |x| - k/64`` (the erf family: GELU-erf, log Φ), computes
its second factor by an ``exp`` at every point, though ``k`` takes at most
4097 values whatever ``x`` is.  Under ``jax.jit`` that ``exp`` costs about
3 ms per 10^6 float64 points (JAX's whole GELU-erf gradient: 13-14); a
lookup in a table of its values costs less, and each entry is the exact
exponential correctly rounded (:func:`symgrad.export.jax_ops.exp_table`),
where XLA's ``exp`` is within about an ulp.

The bound on ``k`` is taken over all real inputs, not the domain's: an
input outside the domain the forms were chosen for still gets its own
value.  Eager PyTorch gathers by index at about the cost of an ``exp``:
its code keeps the ``exp``.
"""

from __future__ import annotations

from sympy import Basic, Dummy, Poly, Rational, ceiling, exp, floor

from ..build import mapped
from ..codegen.texts import HelperCall
from ..graph import postorder
from ..rewrites.facts import Facts

__all__ = ["MAX_ENTRIES", "exps_by_table"]

MAX_ENTRIES = 1 << 14  # a table of at most 16,384 values (128 KB in float64)
_DEGREE = 4  # exponents polynomial in k up to this degree


class _ExpTable(HelperCall):
    """``_jg.exp_table(k, lo, hi, p0, q0, p1, q1, ...)``."""

    _helper = "_jg.exp_table"


def _integer_node(g: Basic) -> Basic | None:
    """The one ``floor``/``ceiling`` node ``g`` reads, if it reads one only."""
    order, _ = postorder([g], lambda n: n.args)
    found = {n for n in order if isinstance(n, (floor, ceiling))}
    return found.pop() if len(found) == 1 else None


def _unmarked(k: Basic) -> Basic:
    """``k`` with each ``compensated(u)`` read as ``u``, for its bound: a pair
    rounded once is a float within the bounds of ``u`` where those are
    floats (rounding is monotonic), which integer bounds below 2**53 are.

    >>> import sympy as sp, symgrad
    >>> x = sp.Symbol("x", real=True)
    >>> _unmarked(sp.floor(symgrad.compensated(64 * sp.Min(64, sp.Abs(x)))))
    floor(64*Min(64, Abs(x)))
    """
    from ..compensated import compensated

    return k.replace(lambda n: isinstance(n, compensated), lambda n: n.args[0])


def _table(n: Basic, facts: Facts) -> Basic | None:
    """``n`` = exp(polynomial of one bounded integer node) as a lookup."""
    g = n.args[0]
    k = _integer_node(g)
    if k is None:
        return None
    K = Dummy("k")
    h = g.xreplace({k: K})
    if h.free_symbols != {K}:
        return None
    try:
        p = Poly(h, K)
    except Exception:  # noqa: BLE001  (not a polynomial in k)
        return None
    if p.degree() > _DEGREE or not all(c.is_Rational or c.is_Float for c in p.all_coeffs()):
        return None
    b = facts.bound(_unmarked(k))
    if b is None or not all(abs(v) < MAX_ENTRIES * 2**20 and v == int(v) for v in b) \
            or b[1] - b[0] >= MAX_ENTRIES:
        return None
    args = [k, int(b[0]), int(b[1])]
    for c in reversed(p.all_coeffs()):  # degree 0 first
        q = Rational(c)  # a float's exact value
        args += [q.p, q.q]
    return _ExpTable(*args)


def exps_by_table(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each ``exp`` of a polynomial in one ``floor`` or
    ``ceiling`` node whose value is bounded (over all real inputs) by at
    most :data:`MAX_ENTRIES` integers read from a table instead, and so is
    ``compensated(exp(...))`` of such an exponent (GELU-erf's gradient: the
    pairs' exp of a float exponent, whose polynomial in integers is exact,
    is that float's exp rounded; the entry is the correctly rounded one);
    not an ``exp`` deeper inside a float marker (what it computes in pairs
    is its own).  An integer node that reads a ``compensated(u)`` is bounded
    as ``u``.  Run before the markers are compiled into pair helpers.

    >>> import sympy as sp, symgrad
    >>> x = sp.Symbol("x", real=True)
    >>> k = sp.floor(64 * sp.Min(64, sp.Abs(x)))
    >>> exps_by_table([sp.exp(-k**2 / 8192), sp.exp(-sp.floor(x)**2)])  # 4097 k; any floor(x)
    [_ExpTable(floor(64*Min(64, Abs(x))), 0, 4096, 0, 1, 0, 1, -1, 8192), exp(-floor(x)**2)]
    >>> exps_by_table([symgrad.compensated(sp.exp(-k**2 / 16384))])
    [_ExpTable(floor(64*Min(64, Abs(x))), 0, 4096, 0, 1, 0, 1, -1, 16384)]
    """
    from ..compensated import compensated
    from ..widen import FloatMarker

    facts = Facts(None)

    def swap(n: Basic) -> Basic | None:  # (asked top down, before n's arguments)
        if isinstance(n, compensated) and isinstance(n.args[0], exp):
            # the pairs' exp of a float exponent (a polynomial in integers: exact
            # here) is that float's exp, rounded: the table's entry, correctly rounded
            return _table(n.args[0], facts) or n
        if isinstance(n, FloatMarker):
            return n  # what a marker computes in pairs or wider is its own
        return _table(n, facts) if isinstance(n, exp) else None

    return mapped(roots, swap=swap)
