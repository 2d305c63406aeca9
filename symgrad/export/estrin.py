"""Long Horner sums emitted by Estrin's scheme in JAX code.

The series ``stabilize`` puts beside a zero (``rewrites.series.horner``:
``c0 + t*(c1 + t*(c2 + ...))`` with ``t = x - at``, up to 32 terms) is a
chain of dependent multiply-adds: each step waits for the one inside it.
Under ``jax.jit`` XLA fuses the whole gradient into one loop over the
points, and that chain is the loop's critical path: the GELU-erf
gradient's 32-term series cost about 5 ms of its 23 per 10^6 float64 points
(JAX's whole gradient: 13-14).  Estrin's scheme sums the same polynomial
as a tree, ``(c0 + c1 t) + t²(c2 + c3 t) + t⁴(...)``, ``t²``, ``t⁴``, ...
by squaring: about the same operations, ``log2(n)`` deep instead of ``n``.

Its rounding errors are bounded as Horner's (both sum the products
``ck·t^k`` with at most about ``2n`` roundings each, relative to
``Σ|ck·t^k|``); the values differ from NumPy's Horner code by a rounding
here and there, as XLA's fused multiply-adds already make them.  Eager
PyTorch runs one kernel per operation whatever the depth: its code keeps
Horner's form (no squarings to pay for).
"""

from __future__ import annotations

from sympy import Add, Basic, Mul, Pow, S

from ..build import mapped

__all__ = ["HEAD", "MIN_TERMS", "estrin_sums"]

# the first HEAD terms stay Horner's steps (most of the value; the tail's
# rounding errors reach the result damped by t**HEAD); a chain of fewer than
# MIN_TERMS multiply-adds is left as it is (no critical path to shorten)
HEAD = 8
MIN_TERMS = 16


def _step(n: Basic) -> tuple[Basic, Basic, Basic] | None:
    """``(c, t, inner)`` where ``n`` is ``c + t*inner`` or ``t*inner`` (``c``
    0) with ``c`` a number and ``t`` a symbol or a symbol plus a number:
    one Horner step; else None."""
    c, rest = n.as_coeff_Add() if isinstance(n, Add) else (S.Zero, n)
    if not isinstance(rest, Mul) or len(rest.args) != 2:
        return None
    for t, inner in (rest.args, rest.args[::-1]):
        if t.is_Symbol or (isinstance(t, Add) and len(t.args) == 2
                           and sum(a.is_Symbol for a in t.args) == 1
                           and sum(a.is_Number for a in t.args) == 1):
            if inner.has(t) or isinstance(inner, (Add, Mul)) or inner.is_Number:
                return c, t, inner
    return None


def _chain(n: Basic) -> tuple[Basic, list[Basic]] | None:
    """``(t, [c0, c1, ..., rest])`` where ``n`` is ``c0 + t*(c1 + t*(...
    + t*rest))`` (at least :data:`MIN_TERMS` steps of the same ``t``);
    else None."""
    first = _step(n)
    if first is None:
        return None
    t, coeffs, cur = first[1], [], n
    while True:
        step = _step(cur)
        if step is None or step[1] != t:
            break
        coeffs.append(step[0])
        cur = step[2]
    if len(coeffs) < MIN_TERMS:
        return None
    return t, coeffs + [cur]


def _estrin(t: Basic, coeffs: list[Basic]) -> Basic:
    """``Σ coeffs[k]·t^k`` as Estrin's tree (unevaluated: SymPy would
    distribute a number over ``t``'s sum)."""
    level, w = list(coeffs), t
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level), 2):
            if i + 1 == len(level):
                nxt.append(level[i])
                continue
            hi = Mul(w, level[i + 1], evaluate=False)
            nxt.append(hi if level[i] == 0 else Add(level[i], hi, evaluate=False))
        level = nxt
        w = Pow(w, 2, evaluate=False)
    return level[0]


def _horner_head(t: Basic, coeffs: list[Basic]) -> Basic:
    """The first :data:`HEAD` terms by Horner's rule around Estrin's sum
    of the others (unevaluated)."""
    out = _estrin(t, coeffs[HEAD:])
    for c in reversed(coeffs[:HEAD]):
        hi = Mul(t, out, evaluate=False)
        out = hi if c == 0 else Add(c, hi, evaluate=False)
    return out


def estrin_sums(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each Horner chain of at least :data:`MIN_TERMS`
    multiply-adds in one ``t`` (a symbol, or a symbol plus a number) summed
    by Estrin's scheme instead.

    >>> from math import factorial
    >>> from sympy import Symbol
    >>> from symgrad.rewrites.series import horner
    >>> x = Symbol("x")
    >>> p = horner([1.0 / factorial(k) for k in range(20)], x, 0.25)  # exp(x - 1/4)
    >>> q = estrin_sums([p])[0]
    >>> str(q).count("(((x - 0.25)**2)**2)**2")  # t**8 by squaring, beside t**2 and t**4
    1
    >>> float(q.subs(x, 0.75)) == float(p.subs(x, 0.75))
    True
    """
    def swap(n: Basic) -> Basic | None:
        if not isinstance(n, (Add, Mul)):
            return None
        found = _chain(n)
        return None if found is None else _horner_head(*found)

    return mapped(roots, swap=swap)
