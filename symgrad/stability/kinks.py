"""A formula with a kink (``Max``, ``Min``, ``Heaviside`` of a formula, or
a ``Piecewise``) split into its branches, for stabilize to choose a form
for each branch by a search of its own (issue 17 §3: regimes).

The rewrites, the series at zeros and the exp-normalized forms see a
formula whole; a kink hides the smooth formula each side of it.  The
gradient of ``Max(tanh(x) - 1/3, 0)**3`` is ``3·(1 - tanh²x)·H(t)·Max(0,
t)²`` with ``t = tanh(x) - 1/3``: ``1 - tanh²x`` cancels for large x and
``t`` near ``atanh(1/3)``, and no candidate of the whole formula fixed
either (52 bits), where the same formula without the ``Max`` is fixed (an
exp-normalized ``sech²`` and a Taylor series at the zero of ``t``).  Split
at ``t``'s sign, each side is a formula without the kink:

    Piecewise((e[Max(0, t) -> t, H(t) -> 1], t > 0),
              (e[Max(0, t) -> 0, H(t) -> 0], t < 0),
              (e, True))

exactly ``e`` (the last branch, at ``t = 0``, is ``e`` itself: SymPy's
``H(0)`` is 1/2).  stabilize decides the sign of ``t`` by ``t``'s own
best form (a series at its zero), not ``t`` as written, which rounds to
the wrong side within ulps of the kink.  A ``Piecewise`` already is its
branches.
"""

from __future__ import annotations

from sympy import Basic, Expr, Heaviside, Max, Min, Piecewise, S

from ..graph import count_ops, postorder

__all__ = ["branches"]

KINK_OPS = 2000  # formulas larger than this are not split (xreplace walks them)


def _kink(n: Basic) -> Expr | None:
    """The formula whose sign chooses ``n``'s side, where ``n`` is a kink of
    a formula that is not a bare symbol (``Max(a, b)``, ``Min(a, b)``:
    ``a - b``; ``Heaviside(u)``: ``u``); None otherwise."""
    if isinstance(n, (Max, Min)) and len(n.args) == 2:
        a, b = n.args
        u = a - b
    elif isinstance(n, Heaviside):
        u = n.args[0]
    else:
        return None
    u = -u if u.could_extract_minus_sign() else u  # Max(0, t) and Max(t, 0) alike
    if u.is_Symbol or u.is_number or not u.free_symbols:
        return None  # ReLU of a variable: its branches are the variable's sign
    return u


def _side(n: Basic, u: Expr, positive: bool) -> Expr | None:
    """``n``'s value where ``u > 0`` (``positive``) or ``u < 0``, where
    ``n`` is a kink on ``u`` or ``-u``; None for any other node."""
    v = _kink(n)
    if v != u:
        return None
    if isinstance(n, Heaviside):  # (its second argument is its value at 0)
        return S.One if positive == (n.args[0] == u) else S.Zero
    a, b = n.args
    up = positive if (a - b == u) else not positive  # the sign of a - b
    # Max(a, b) is a where a - b > 0
    return (a if up else b) if isinstance(n, Max) else (b if up else a)


def branches(e: Expr) -> list[tuple[Expr, Basic]] | None:
    """The branches ``(formula, condition)`` of ``e``, in order, the last
    condition True: a ``Piecewise``'s own, or ``e`` split at the sign of its
    first kink's formula ``u`` (every ``Max``, ``Min`` and ``Heaviside`` on
    ``u`` or ``-u`` resolved each side; ``e`` itself where ``u = 0``); None
    where ``e`` has neither, or is larger than :data:`KINK_OPS` operations.

    >>> from sympy import symbols, tanh, Max, Heaviside, Rational
    >>> x = symbols("x", real=True)
    >>> t = tanh(x) - Rational(1, 3)
    >>> e = 3 * (1 - tanh(x)**2) * Heaviside(t) * Max(0, t)**2
    >>> [c for _, c in branches(e)]
    [tanh(x) - 1/3 > 0, tanh(x) - 1/3 < 0, True]
    >>> branches(e)[0][0], branches(e)[1][0]
    ((3 - 3*tanh(x)**2)*(tanh(x) - 1/3)**2, 0)
    >>> branches(Max(0, x)) is None
    True
    """
    if isinstance(e, Piecewise):
        return [(a.expr, a.cond) for a in e.args]
    if count_ops([e]) > KINK_OPS:
        return None
    order, _ = postorder([e], lambda n: n.args)
    u = next((v for v in map(_kink, order) if v is not None), None)
    if u is None:
        return None
    out = []
    for positive, cond in ((True, u > 0), (False, u < 0)):
        sides = {n: s for n in order if (s := _side(n, u, positive)) is not None}
        out.append((e.xreplace(sides), cond))
    out.append((e, S.true))
    return out
