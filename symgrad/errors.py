"""Exceptions raised by symgrad.

Every error names what went wrong (the node, the rule, the argument) and how
to fix it, so that a user never has to read a traceback from inside SymPy.
"""

from __future__ import annotations

__all__ = [
    "SymgradError",
    "RuleError",
    "NoRuleError",
    "ComplexValueError",
    "ShapeError",
    "ExpressionTypeError",
    "StabilityWarning",
    "ExportWarning",
]


class SymgradError(ValueError):
    """Base class of every error symgrad raises on bad input (a ValueError,
    so existing ``except ValueError`` handlers keep working).

    >>> from sympy import Symbol
    >>> from symgrad import grad
    >>> try:
    ...     grad(Symbol("x"), 3)
    ... except SymgradError as exc:
    ...     print(str(exc).split(";")[0])
    can only differentiate with respect to symbols, but wrt is 3 (int)
    """


class RuleError(SymgradError):
    """A derivative rule failed or returned something unusable for a node;
    the message names the rule and the node.

    >>> from sympy import Symbol, exp
    >>> from symgrad import grad, gradient_override_map, register_gradient
    >>> from symgrad import unregister_gradient
    >>> _ = register_gradient("Pair")(lambda node, g: (g, g))
    >>> try:
    ...     with gradient_override_map({"exp": "Pair"}):
    ...         grad(exp(Symbol("x")), Symbol("x"))
    ... except RuleError as exc:
    ...     print(str(exc).split(";")[0])
    rule 'Pair' returned 2 cotangents for node exp(x), which has 1 argument
    >>> unregister_gradient("Pair")
    """


class NoRuleError(SymgradError, LookupError):
    """A name (of a node or of a rule) that symgrad does not know; the
    message suggests close matches.

    >>> from symgrad import gradient_override_map
    >>> try:
    ...     with gradient_override_map({"floor": "Identiy"}):
    ...         pass
    ... except NoRuleError as exc:
    ...     print(str(exc).split("?")[0] + "?")
    unknown gradient rule 'Identiy'; did you mean 'Identity', 'IdentityN', 'identity'?
    """


class ComplexValueError(SymgradError):
    """An expression has complex parts that a real-valued rule would get
    wrong; symgrad treats symbols as real.

    >>> from sympy import Symbol, re
    >>> from symgrad import grad
    >>> w = Symbol("w")
    >>> try:
    ...     grad(re(w), w)
    ... except ComplexValueError as exc:
    ...     print(str(exc).split(";")[0])
    re(w) takes a complex part (re)
    """


class ShapeError(SymgradError):
    """Tangents or cotangents whose shape does not match what they pair with.

    >>> from sympy import symbols
    >>> from symgrad import jvp
    >>> x, y = symbols("x y")
    >>> try:
    ...     jvp(x * y, [x, y], [1])
    ... except ShapeError as exc:
    ...     print(str(exc).split(";")[0])
    tangents is a sequence of 1 but wrt is a sequence of 2
    """


class ExpressionTypeError(SymgradError, TypeError):
    """A value that is not a SymPy expression where one is needed: a string
    (symgrad never parses strings: SymPy's ``sympify`` would run them as
    Python), ``None``, an arbitrary object.  Both a ``TypeError`` and a
    :class:`SymgradError`.

    >>> from symgrad import stop_gradient
    >>> try:
    ...     stop_gradient("x")
    ... except TypeError as exc:
    ...     print(str(exc).split(";")[0])
    stop_gradient: x is the string 'x'
    """


def describe(node: object, limit: int = 160) -> str:
    """``node`` as text for an error message, safely: a formula whose
    printed tree is huge or deep is abbreviated, never printed whole (that
    could take exponential time or hit Python's recursion limit).

    >>> from sympy import sin, symbols
    >>> x = symbols("x")
    >>> describe(sin(x) + 1)
    'sin(x) + 1'
    >>> e = x
    >>> for _ in range(60):
    ...     e = sin(e) + e
    >>> describe(e)
    'Add(x, ...)'
    """
    size = _tree_size(node, cap=limit)
    if size <= limit:
        text = str(node)
        return text if len(text) <= limit else text[: limit - 3] + "..."
    args = getattr(node, "args", ())
    inner = ", ".join(
        str(a) if _tree_size(a, cap=20) <= 20 else f"{type(a).__name__.lower()}(...)"
        for a in args[:1]
    )
    more = ", ..." if len(args) > 1 else ""
    return f"{type(node).__name__}({inner}{more})"


def _tree_size(node: object, cap: int) -> int:
    """Nodes in the printed tree of ``node``, counted up to ``cap``."""
    total = 0
    stack = [node]
    while stack and total <= cap:
        n = stack.pop()
        total += 1
        stack.extend(getattr(n, "args", ()))
    return total


class StabilityWarning(UserWarning):
    """Warned by :func:`symgrad.stabilize` (and ``grad``/``lambdify`` with
    ``stabilize=True``) for each output it could not fix: the chosen form
    still loses more than 3 bits somewhere on the domain.  The message says
    where (the box of the points measured losing them, and the worst
    point), the best figure reached and why, as ``Stabilization.unfixed``
    does.  Silence it with ``warnings.simplefilter("ignore", StabilityWarning)``
    or make it an error with ``"error"``.

    >>> import warnings
    >>> from sympy import Symbol, gamma
    >>> from symgrad import stabilize
    >>> x, y = Symbol("x"), Symbol("y")
    >>> with warnings.catch_warnings(record=True) as w:  # (gamma has no pair form)
    ...     warnings.simplefilter("always")
    ...     _ = stabilize(gamma(x) - y * y, {x: (0.5, 1.5), y: (0.5, 1)}, widen=False,
    ...                   samples=64)
    >>> w[0].category.__name__, str(w[0].message).split(":")[0]
    ('StabilityWarning', 'symgrad cannot fix output 0')
    """


class ExportWarning(UserWarning):
    """An exported formula is emitted in a less accurate form than symgrad's
    NumPy code of it would compute (a ``widen``, ``compensated`` or
    ``certified`` form the export does not translate for that backend), or in
    the safe forms because ``stabilize`` failed on it.  Also importable as
    ``symgrad.export.orders.ExportWarning``."""
