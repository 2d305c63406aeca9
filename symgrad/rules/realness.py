"""Whether a node's value is real, symbols being real variables; and the
one convention that lets a rule for a real argument serve a complex one.

A real formula may hold complex values inside (``Abs(sqrt(x))`` at x < 0).
There, a rule that assumes a real argument (``Abs' = sign``) is wrong: the
non-holomorphic nodes need the general form.  Reverse mode carries
complex cotangents by the formal chain rule (no conjugation), under the
invariant that a cotangent ``c`` at node ``n`` contributes ``Re(c · dn/dx)``
to the derivative in a real direction ``x``: holomorphic rules keep it as
they are, and a non-holomorphic rule (Abs, sign) writes its cotangent so
that it holds.  The real part is taken once, where the gradient reaches a
real symbol, by the walker; a rule that sent a complex cotangent down
says so in the walk's state (``opts.walk.projected``).
"""

from __future__ import annotations

from functools import lru_cache

import sympy
from sympy import Atom, Basic, Dummy, Expr, Indexed, Symbol, re
from sympy.core.function import AppliedUndef
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.matrices.expressions.matexpr import MatrixElement

from ..build import TALL, replaced, unevaluated
from ..graph import height, postorder

__all__ = ["is_real", "real_part"]


@lru_cache(maxsize=4096)
def is_real(u: Expr) -> bool:
    """Whether ``u`` is real at every real value of its symbols (as SymPy's
    assumptions can tell; False where they cannot).

    >>> from sympy import sqrt, sin, symbols
    >>> x = symbols("x")
    >>> is_real(sin(x) + x**2), is_real(sqrt(x)), is_real(sqrt(x**2 + 1))
    (True, False, True)
    """
    if height(u) > _DEEP:
        return _shallow_is_real(u)
    try:
        return _is_real(u, prime=False)
    except RecursionError:  # SymPy's assumptions recurse into a deep argument
        pass
    try:
        return _is_real(u, prime=True)
    except RecursionError:  # too deep to tell even so
        return False


def _is_real(u: Expr, prime: bool) -> bool:
    if prime:
        _ask_children_first(u)
    if _surely_real(u):
        return True
    known = u.is_extended_real
    if known is not None:
        return known
    r = _rebuilt(u)
    if prime:
        _ask_children_first(r)
    return r.is_extended_real is True


# taller than this (build.TALL: the height past which SymPy's questions
# about a node's assumptions, recursive to its bottom, are not asked of it
# whole): SymPy is asked about one node at a time
_DEEP = TALL
# what is asked of each node, and given to the symbol that stands for it
# (the sign trichotomy implies the non-strict signs; integer would ask algebraic and
# rational, milliseconds a node, for exponents that are numbers almost always)
_FACTS = ("extended_real", "finite", "extended_positive", "extended_negative", "zero")


def _shallow_is_real(u: Expr) -> bool:
    """:func:`is_real` of a tall formula, asking SymPy about one node at a
    time: each node over symbols that stand for its operands and carry
    what was found of them (real, sign, finite, integer).  Asked of the
    whole formula, SymPy's assumptions walk the tree below each node
    (``is_number``, ``as_numer_denom``, ``_monotonic_sign``): quadratic
    in the depth, seconds for 300 nested square roots.  What SymPy
    deduces of a node from its operands' facts holds of the node, so a
    True is sound; where it needed more than those facts the answer is
    False (the general rule is used, as for any formula SymPy cannot tell)."""
    order, kids = postorder([u], lambda n: () if isinstance(n, Atom) else n.args)
    stand: dict = {}
    for n in order:
        if isinstance(n, Atom) or not isinstance(n, Expr) or n.is_Boolean:
            stand[n] = n if not (isinstance(n, Expr) and _variable(n)) else \
                Dummy(str(n), real=True)
            continue
        if _variable(n):
            stand[n] = Dummy(str(n), real=True)
            continue
        try:
            q = unevaluated(n, [stand[k] for k in kids[n]])
            facts = {f: getattr(q, "is_" + f) for f in _FACTS}
            stand[n] = Dummy(**{f: v for f, v in facts.items() if v is not None})
        except Exception:  # noqa: BLE001  (a node SymPy cannot rebuild or ask: unknown)
            stand[n] = Dummy()
    return stand[u].is_extended_real is True


def _ask_children_first(u: Basic) -> None:
    """Ask SymPy whether every node of ``u`` is real, children first (over
    the DAG): asked at the top, its assumptions recurse into operands not
    yet known, and a deep chain (3,000 nested square roots) overflows the
    stack; asked from the bottom, each question goes one level down and
    its answer (and what it deduced on the way) is cached on the node."""
    order, _ = postorder([u], lambda n: () if isinstance(n, Atom) else n.args)
    for n in order:
        if isinstance(n, Expr):
            n.is_extended_real  # noqa: B018 (cached on the node)


# Functions real at every real argument (a quick test before SymPy's
# assumptions, which cost milliseconds on a small sum of plain symbols).
_REAL_TO_REAL = (
    sympy.Abs, sympy.sign, sympy.floor, sympy.ceiling, sympy.Heaviside, sympy.Max, sympy.Min,
    sympy.exp, sympy.sin, sympy.cos, sympy.tan, sympy.sinh, sympy.cosh, sympy.tanh,
    sympy.atan, sympy.erf, sympy.erfc, sympy.frac,
)


def _surely_real(u: Expr) -> bool:
    """True only where ``u`` is plainly real: variables and real numbers
    combined by sums, products, integer powers, nonnegative-base roots,
    Piecewise and real-to-real functions (over the DAG; False means "ask
    SymPy")."""

    def kids(n):
        if isinstance(n, Atom) or _variable(n):
            return ()
        return (n.expr,) if isinstance(n, ExprCondPair) else n.args  # not the condition

    order, args = postorder([u], kids)
    for n in order:
        ks = args[n]
        if _variable(n):
            continue
        if not ks:
            ok = n.is_extended_real is True
        elif isinstance(n, sympy.Pow):
            b, e = n.args
            ok = e.is_integer is True or b.is_nonnegative is True
        else:
            ok = isinstance(n, (sympy.Add, sympy.Mul, sympy.Piecewise, ExprCondPair, _REAL_TO_REAL))
        if not ok:  # children were checked before their parents
            return False
    return True


def _variable(n: Basic) -> bool:
    """A value symgrad takes as a real variable: a symbol not declared
    complex, an undefined function's value, an Indexed or matrix element."""
    if isinstance(n, Symbol):
        return n.is_extended_real is None and not n.is_complex
    return isinstance(n, (AppliedUndef, Indexed, MatrixElement)) and n.is_extended_real is None


def _rebuilt(u: Expr) -> Basic:
    """``u`` with its variables made real dummies, over its DAG and without
    evaluation."""
    return _replaced(u, _variable, lambda n: Dummy(str(n), real=True))


def real_part(g: Expr) -> Expr:
    """``Re(g)``, left unevaluated: SymPy's evaluation of ``re`` splits
    every sum and product into real and imaginary parts (a tree walk, and
    ``cos(atan2(0, x)/2)`` forms for a square root).

    >>> from sympy import sqrt, symbols
    >>> x = symbols("x")
    >>> real_part(sqrt(x) / 2)
    re(sqrt(x)/2)
    """
    return re(g, evaluate=False)


def _replaced(u: Expr, hit, make) -> Basic:
    """``u`` with every node ``n`` for which ``hit(n)`` replaced by
    ``make(n)``, once per distinct node (a DAG walk, no recursion), nothing
    re-evaluated."""
    return replaced(u, lambda n: make(n) if hit(n) else None)
